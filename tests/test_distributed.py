"""isomat.distributed: a convolution matrix applied in row blocks on a 4-worker LocalCluster."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from isomat.algebra import conv_matrix, projection
from isomat.distributed import apply_row_blocks, construction_rows, row_blocks

distributed = pytest.importorskip("distributed", reason="the distributed extra (dask.distributed) is not installed")


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=4, threads_per_worker=1, processes=False, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as c:
        yield c


def test_row_blocks_partition():
    for n, k in [(10, 4), (7, 7), (1000, 3)]:
        b = row_blocks(n, k)
        assert len(b) == k and b[0][0] == 0 and b[-1][1] == n
        assert all(p[1] == q[0] for p, q in zip(b, b[1:]))
        assert max(s - a for a, s in b) - min(s - a for a, s in b) <= 1
    with pytest.raises(ValueError, match="n_blocks"):
        row_blocks(3, 4)


CALLS: dict[str, list] = {}


class RecordingBuilder:
    """Records which rows each call builds (in this process: the cluster runs in threads;
    the builder itself is pickled by Dask, so the record lives in a module-level dict)."""

    def __init__(self, inner, tag):
        self.inner, self.tag = inner, tag
        CALLS[tag] = []

    def __call__(self, start, stop):
        CALLS[self.tag].append((start, stop))  # list.append is atomic
        return self.inner(start, stop)


def test_conv_on_four_workers_matches_single_machine(client):
    rng = np.random.default_rng(0)
    shape, kernel = (2, 24, 20), rng.standard_normal((3, 2, 3, 3))
    build = construction_rows(conv_matrix, shape, kernel, padding="same", stride=1)
    pickle.loads(pickle.dumps(build))  # the recipe travels to worker processes
    W = conv_matrix(shape, kernel, padding="same")
    x = rng.standard_normal((W.shape[1], 2))
    rec = RecordingBuilder(build, "conv")
    y, info = apply_row_blocks(rec, W.shape[0], x, client=client, n_blocks=8, return_info=True)
    np.testing.assert_allclose(y, W @ x, rtol=1e-12, atol=1e-12)
    # every block built exactly once, each covering only its own rows
    assert sorted(CALLS["conv"]) == row_blocks(W.shape[0], 8)
    assert max(b - a for a, b in CALLS["conv"]) <= math.ceil(W.shape[0] / 8)
    assert sum(i["nnz"] for i in info) == W.nnz
    assert len({i["worker"] for i in info}) == 4  # all four workers took part


def test_vector_and_other_builders(client):
    rng = np.random.default_rng(1)
    W = sp.random_array((101, 37), density=0.2, rng=rng, format="csr")

    def rows_of(start, stop):
        return W[start:stop]

    x = rng.standard_normal(37)
    np.testing.assert_allclose(apply_row_blocks(rows_of, 101, x, client=client, n_blocks=5), W @ x, rtol=1e-12)
    P = projection(9, 13, format="operator")
    # a SparseOperator block is rendered before multiplying
    from isomat.algebra import as_operator

    y = apply_row_blocks(lambda a, b: as_operator(P.to_scipy()[a:b]), 13, np.ones(9), client=client)
    np.testing.assert_allclose(y, np.ones(13), rtol=1e-14)  # rows of a projection sum to one


def test_gpu_blocks_through_the_standin(client, cupy_standin_module):
    rng = np.random.default_rng(2)
    kernel = rng.standard_normal((3, 3))
    build = construction_rows(conv_matrix, (16, 16), kernel, padding=1)
    W = conv_matrix((16, 16), kernel, padding=1)
    x = rng.standard_normal(W.shape[1])
    y = apply_row_blocks(build, W.shape[0], x, client=client, device="gpu")
    np.testing.assert_allclose(y, W @ x, rtol=1e-12, atol=1e-12)


BACKENDS_SEEN: list = []


def recording_conv(*args, **kwargs):
    # a construction that notes the field each block is asked for, then builds it
    BACKENDS_SEEN.append(kwargs.get("backend"))
    return conv_matrix(*args, **kwargs)


@pytest.mark.parametrize("recipe_backend", [None, "numpy"])
def test_gpu_blocks_are_built_on_the_device(client, cupy_standin_module, recipe_backend):
    # issue 15, item 9: device="gpu" calls the recipe with backend="cupy" (it wins over the recipe's own
    # backend), so each block is built by CuPy -- no host build and no copy of the block to the device
    cp = cupy_standin_module
    rng = np.random.default_rng(4)
    kernel = rng.standard_normal((2, 1, 3, 3))
    extra = {} if recipe_backend is None else {"backend": recipe_backend}
    build = construction_rows(recording_conv, (1, 12, 12), kernel, padding=1, **extra)
    W = conv_matrix((1, 12, 12), kernel, padding=1)
    x = rng.standard_normal(W.shape[1])
    BACKENDS_SEEN.clear()
    cp.reset_transfers()
    y, info = apply_row_blocks(build, W.shape[0], x, client=client, device="gpu", n_blocks=3, return_info=True)
    np.testing.assert_allclose(y, W @ x, rtol=1e-12, atol=1e-12)
    # three blocks on the device, then apply_row_blocks's probe of the row past the last (refused: n_rows is right)
    assert BACKENDS_SEEN == ["cupy"] * 3 + [recipe_backend]
    assert [i["built_on"] for i in info] == ["device"] * 3
    # what crossed to the device: x and the 3x3 kernel per block, never a block's 12 bytes per entry
    moved = cp.TRANSFERS["h2d_bytes"]
    assert moved <= 3 * (x.nbytes + kernel.nbytes), moved
    assert moved < 12 * W.nnz


def test_gpu_blocks_of_a_recipe_without_backend_are_copied(client, cupy_standin_module):
    # a recipe that takes no backend= is built as it builds (here on the host), and copied
    rng = np.random.default_rng(5)
    W = conv_matrix((10, 10), rng.standard_normal((3, 3)), padding=1)
    x = rng.standard_normal(W.shape[1])

    def host_rows(start, stop):
        return W[start:stop]

    y, info = apply_row_blocks(host_rows, W.shape[0], x, client=client, device="gpu", n_blocks=2, return_info=True)
    np.testing.assert_allclose(y, W @ x, rtol=1e-12, atol=1e-12)
    assert [i["built_on"] for i in info] == ["host", "host"]
    y, info = apply_row_blocks(host_rows, W.shape[0], x, client=client, n_blocks=2, return_info=True)
    assert [i["built_on"] for i in info] == ["host", "host"]


def test_which_recipes_take_a_backend():
    from isomat.distributed import _takes_backend

    assert _takes_backend(construction_rows(conv_matrix, (4, 4), np.ones((3, 3))))
    assert _takes_backend(lambda a, b, backend=None: None)
    assert _takes_backend(lambda a, b, **kw: None)
    assert not _takes_backend(lambda a, b: None)
    assert not _takes_backend(lambda a, b, backend, /: None)  # positional-only: not a keyword
    assert not _takes_backend(max)  # no signature


def test_bad_arguments(client):
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client or None"):
        apply_row_blocks(lambda a, b: None, 3, np.ones(3), client=object())
    with pytest.raises(ValueError, match="workers: given without a client"):
        apply_row_blocks(lambda a, b: sp.csr_array((b - a, 3)), 3, np.ones(3), client=None, workers=["tcp://x"])
    with pytest.raises(ValueError, match="device"):
        apply_row_blocks(lambda a, b: None, 3, np.ones(3), client=client, device="tpu")
    with pytest.raises(ValueError, match="x must be"):
        apply_row_blocks(lambda a, b: None, 3, np.ones((2, 2, 2)), client=client)
    with pytest.raises(ValueError, match="rows"):
        apply_row_blocks(lambda a, b: sp.csr_array((1, 3)), 4, np.ones(3), client=client, n_blocks=2)
    with pytest.raises(TypeError, match="func"):
        construction_rows(3)


def test_an_n_rows_below_the_operators_is_refused(client):
    # issue 24, item 11: a shorter y came back silently
    shape, kernel = (1, 8, 8), np.ones((1, 1, 3, 3))
    build = construction_rows(conv_matrix, shape, kernel, padding="same")
    with pytest.raises(ValueError, match="n_rows=60 is below the operator's rows"):
        apply_row_blocks(build, 60, np.ones(64), client=client)


def test_serial_mode_without_a_client_equals_the_whole_product():
    """client=None builds and applies the blocks in this process, by the code a worker runs (no Dask)."""
    from isomat.algebra import conv_matrix

    rng = np.random.default_rng(0)
    kernel = rng.standard_normal((2, 3, 3, 3))
    x = rng.standard_normal(3 * 7 * 7)
    W = conv_matrix((3, 7, 7), kernel, padding=1)
    build = construction_rows(conv_matrix, (3, 7, 7), kernel, padding=1)
    for n_blocks in (None, 1, 5, W.shape[0]):
        y, info = apply_row_blocks(build, W.shape[0], x, client=None, n_blocks=n_blocks, return_info=True)
        np.testing.assert_allclose(y, W @ x, rtol=1e-13, atol=1e-13)
        assert len(info) == (min(4, W.shape[0]) if n_blocks is None else n_blocks)
    with pytest.raises(ValueError, match=r"build_block\(0, 2\) returned 1 rows, expected 2"):
        apply_row_blocks(lambda a, b: sp.csr_array((1, 3)), 4, np.ones(3), client=None, n_blocks=2)
