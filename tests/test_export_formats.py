"""Issue 14: ``.mat`` (MATLAB's column-major ``x(:)``), the JAX ``BCOO`` file, ``--order``, ``--force``,
and writes that share the matrix's arrays instead of copying them.

References are independent of the writers: ``scipy.io.loadmat`` reads the ``.mat`` files, NumPy's
``ravel(order="F")`` defines column-major flattening, ``np.kron`` the Kronecker identity
:math:`P_F (A\\otimes B) P_F^T = B\\otimes A`, and do2017's own column-major matrix layer.
"""

from __future__ import annotations

import contextlib
import io
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from isomat import export
from isomat.cli import main


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv], out=out, err=err)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _random_csr(shape, density=0.3, seed=0, complex_=False):
    rng = np.random.default_rng(seed)
    M = sp.random_array(shape, density=density, format="csr", rng=rng)
    if complex_:
        M = sp.csr_array(M + 1j * sp.random_array(shape, density=density, format="csr", rng=rng))
    M.sum_duplicates()
    return M


# -- .mat ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, density, complex_", [((40, 30), 0.2, False), ((3, 500), 0.4, True),
                                                      ((6, 6), 0.0, False), ((1, 1), 1.0, False)])
def test_mat_reads_back_with_scipy(tmp_path, shape, density, complex_):
    M = _random_csr(shape, density, complex_=complex_)
    p = export.to_mat(M, tmp_path / "w.mat", metadata={"kind": "test", "shape": list(shape), "seed": None})
    data = scipy.io.loadmat(p)
    W = data["W"]
    assert sp.issparse(W) and W.shape == shape and W.dtype == M.dtype
    np.testing.assert_array_equal(W.toarray(), M.toarray())
    assert str(data["isomat_metadata"]["kind"][0, 0][0]) == "test"
    assert export.read_metadata(p) == {"kind": "test", "shape": list(shape), "seed": None}
    np.testing.assert_array_equal(export.read(p).toarray(), M.toarray())


def test_mat_band_scan_matches_scipy_savemat(tmp_path):
    # many bands and row chunks (tiny band sizes): the streamed element reads back as savemat's does
    from isomat.export import _mat as _matfile

    M = _random_csr((37, 53), 0.35, seed=3)
    _matfile.write_mat(str(tmp_path / "a.mat"), M, "W", {}, band_entries=5, chunk_entries=3)
    scipy.io.savemat(tmp_path / "b.mat", {"W": M.tocsc()})
    a, b = scipy.io.loadmat(tmp_path / "a.mat")["W"], scipy.io.loadmat(tmp_path / "b.mat")["W"]
    assert (a != b).nnz == 0 and np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)


def test_mat_refuses_what_matlab_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="double values"):
        export.to_mat(_random_csr((4, 4)).astype(np.float32), tmp_path / "x.mat")
    with pytest.raises(ValueError, match="name must be a MATLAB variable name"):
        export.to_mat(_random_csr((4, 4)), tmp_path / "x.mat", name="2bad")
    from isomat.export import _mat as _matfile

    with pytest.raises(ValueError, match="4 GiB limit per variable"):
        _matfile.check_writable((10**6, 10**6), 400_000_000, False)
    with pytest.raises(ValueError, match="int32 indices"):
        _matfile.check_writable((2**31, 3), 5, False)
    assert not list(tmp_path.iterdir())  # nothing left behind


# -- column-major flattening -----------------------------------------------------------------------
def test_column_major_is_the_matrix_of_fortran_flattening():
    rng = np.random.default_rng(1)
    in_shape, out_shape = (2, 3, 4), (3, 5)
    M = _random_csr((15, 24), 0.5)
    WF = export.column_major(M, in_shape, out_shape)
    X = rng.standard_normal(in_shape)
    y = M @ X.ravel()  # row-major: the layer
    np.testing.assert_allclose(WF @ X.ravel(order="F"), y.reshape(out_shape).ravel(order="F"), rtol=1e-13)
    assert export.flatten_permutation((2, 3)).tolist() == [0, 2, 4, 1, 3, 5]


def test_column_major_kron_swaps_the_factors():
    # (A (x) B) vec_C(X) = vec_C(A X B^T)  and  vec_F(A X B^T) = (B (x) A) vec_F(X)
    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((2, 3)), rng.standard_normal((4, 5))
    WF = export.column_major(sp.csr_array(np.kron(A, B)), (3, 5), (2, 4))
    np.testing.assert_allclose(WF.toarray(), np.kron(B, A), rtol=1e-14)


def test_column_major_matrix_layer_is_do2017_column_major_layer(tmp_path):
    from isomat.algebra.matrix_layer import matrix_layer

    rng = np.random.default_rng(3)
    U, V = rng.standard_normal((3, 2)), rng.standard_normal((4, 5))  # P: 3 x 4 -> Y: 2 x 5
    C = matrix_layer(U, V, order="C", format="csr").weight
    F = matrix_layer(U, V, order="F", format="csr").weight
    np.testing.assert_allclose(export.column_major(C, (3, 4), (2, 5)).toarray(), F.toarray(), rtol=1e-14)


def test_column_major_refuses_shapes_that_do_not_fit():
    with pytest.raises(ValueError, match="input_shape .* has 6 entries; the matrix has 24 columns"):
        export.column_major(_random_csr((15, 24)), (2, 3), (3, 5))
    with pytest.raises(ValueError, match="needs input_shape and output_shape"):
        export.write(_random_csr((4, 4)), "x.npz", order="F")


@pytest.mark.parametrize("fmt", ["mat", "npz", "mtx"])
def test_cli_order_f_gives_the_matrix_of_x_colon(tmp_path, fmt):
    # the conv layer on MATLAB's x(:): W_F x(:) = y(:) with y the layer's output (torch as the reference)
    torch = pytest.importorskip("torch")
    kernel = np.random.default_rng(4).standard_normal((3, 2, 3, 2))
    np.save(tmp_path / "k.npy", kernel)
    path = tmp_path / f"c.{fmt}"
    code, out, err = run_cli("export", "conv", "--input-shape", "2,5,6", "--kernel", tmp_path / "k.npy", "--padding", "1",
                             "--order", "F", "-o", path)
    assert code == 0, err
    WF = export.read(path)
    if fmt == "mat":  # MATLAB needs each column's row indices ascending
        raw = scipy.io.loadmat(path)["W"]
        assert all((np.diff(raw.indices[raw.indptr[j]:raw.indptr[j + 1]]) > 0).all() for j in range(raw.shape[1]))
    X = np.random.default_rng(5).standard_normal((2, 5, 6))
    Y = torch.nn.functional.conv2d(torch.from_numpy(X)[None], torch.from_numpy(kernel), padding=1)[0].numpy()
    np.testing.assert_allclose(WF @ X.ravel(order="F"), Y.ravel(order="F"), rtol=1e-12, atol=1e-12)
    meta = export.read_metadata(path)
    assert meta["order"].startswith("column-major") and meta["input_shape"] == [2, 5, 6]
    assert meta["output_shape"] == list(Y.shape)


def test_cli_metadata_has_tensor_shapes(tmp_path):
    code, _, err = run_cli("export", "kron", "--factors", "2x3,4x5", "-o", tmp_path / "k.npz", "--seed", "1")
    assert code == 0, err
    meta = export.read_metadata(tmp_path / "k.npz")
    assert meta["input_shape"] == [3, 5] and meta["output_shape"] == [2, 4] and meta["shape"] == [8, 15]


def test_cli_mat_float32_is_refused_in_one_line(tmp_path):
    code, out, err = run_cli("export", "projection", "--m", "4", "--n", "2", "--dtype", "float32", "-o", tmp_path / "p.mat")
    assert code == 2 and "double values" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


# -- JAX -----------------------------------------------------------------------------------------
def test_jax_format_round_trip(tmp_path):
    pytest.importorskip("jax")
    code, out, err = run_cli("export", "conv", "--input-shape", "1,6,6", "--kernel-size", "3", "--format", "jax",
                             "--seed", "2", "-o", tmp_path / "c.npz")
    assert code == 0, err
    ref = export.read(tmp_path / "c.npz")  # SciPy's view of the BCOO arrays
    code, _, err = run_cli("export", "conv", "--input-shape", "1,6,6", "--kernel-size", "3", "--seed", "2",
                           "-o", tmp_path / "r.npz")
    np.testing.assert_array_equal(ref.toarray(), export.read(tmp_path / "r.npz").toarray())
    B = export.load_jax_bcoo(tmp_path / "c.npz", dtype=np.float32)
    np.testing.assert_allclose(np.asarray(B.todense()), ref.toarray().astype(np.float32), rtol=1e-6)
    with np.load(tmp_path / "c.npz") as z:
        assert z["indices"].dtype == np.int32 and z["indices"].shape == (ref.nnz, 2)
    assert export.read_metadata(tmp_path / "c.npz")["kind"] == "conv"
    with pytest.raises(ValueError, match="not a BCOO archive"):
        export.load_jax_bcoo(tmp_path / "r.npz")


def test_jax_npz_index_chunks_cover_every_row(tmp_path):
    pytest.importorskip("jax")
    M = _random_csr((300, 7), 0.5, seed=9)
    export.to_jax_npz(M, tmp_path / "m.npz")
    np.testing.assert_array_equal(export.read(tmp_path / "m.npz").toarray(), M.toarray())


# -- --force and overwrite -----------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["mtx", "npz", "pt", "mat"])
def test_existing_file_is_replaced_only_with_force(tmp_path, fmt):
    if fmt == "pt":
        pytest.importorskip("torch")
    path = tmp_path / f"p.{fmt}"
    path.write_bytes(b"keep me")
    code, out, err = run_cli("export", "projection", "--m", "4", "--n", "2", "-o", path)
    assert code == 2 and "exists" in err and "--force" in err and len(err.strip().splitlines()) == 1
    assert path.read_bytes() == b"keep me" and sorted(os.listdir(tmp_path)) == [path.name]
    code, out, err = run_cli("export", "projection", "--m", "4", "--n", "2", "-o", path, "--force")
    assert code == 0, err
    assert export.read(path).shape == (2, 4)
    with pytest.raises(ValueError, match="exists: pass overwrite=True"):
        export.write(sp.eye_array(2, format="csr"), path, overwrite=False)


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(export._npz, "_write_npz", boom)
    with pytest.raises(OSError, match="disk full"):
        export.to_npz(sp.eye_array(3, format="csr"), tmp_path / "x.npz")
    assert not list(tmp_path.iterdir())


# -- writes share the matrix's arrays -------------------------------------------------------------
def test_to_scipy_shares_a_canonical_matrix():
    M = _random_csr((50, 40))
    S = export.to_scipy(M, "csr")
    assert np.shares_memory(S.data, M.data) and np.shares_memory(S.indices, M.indices)
    U = sp.csr_array((np.ones(3), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2))  # duplicates
    S = export.to_scipy(U, "csr")
    assert not np.shares_memory(S.data, U.data) and S.toarray().tolist() == [[0, 2], [1, 0]]


def test_torch_csr_shares_scipy_int32_indices():
    torch = pytest.importorskip("torch")
    M = _random_csr((60, 50))
    T = export.to_torch(M, "csr")
    assert T.crow_indices().dtype == torch.int32 and T.col_indices().data_ptr() == M.indices.ctypes.data
    x = np.random.default_rng(0).standard_normal(50)
    np.testing.assert_allclose((T @ torch.from_numpy(x)).numpy(), M @ x, rtol=1e-13)
    C = export.to_torch(M, "coo")
    assert C.is_coalesced() and C.indices().dtype == torch.int64
    np.testing.assert_array_equal(C.to_dense().numpy(), M.toarray())


def test_export_benchmark_quick_runs(tmp_path):
    # the benchmark itself (a fresh process per format) on the small matrix: it reports every format
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "export.py"
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--formats", "npz,mat", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    names = {r["name"] for r in result["ratios"]}
    assert names == {"npz export peak / CSR size", "mat export peak / CSR size"}, result["notes"]


@pytest.mark.parametrize("complex_", [False, True])
def test_matrix_market_row_blocks_read_back(tmp_path, complex_):
    # many small blocks, empty rows between them: SciPy's reader gets the matrix and the header comment
    M = _random_csr((41, 17), 0.15, seed=5, complex_=complex_)
    M = sp.csr_array(M.multiply(np.arange(41)[:, None] % 3 != 1))  # every third row empty
    M.eliminate_zeros()
    export._mtx._write_mtx_blocks(str(tmp_path / "m.mtx"), M, " first\nsecond line", 17, block_entries=4)
    back = scipy.io.mmread(tmp_path / "m.mtx")
    np.testing.assert_array_equal(back.toarray(), M.toarray())
    lines = (tmp_path / "m.mtx").read_text().splitlines()
    assert lines[0].startswith("%%MatrixMarket matrix coordinate") and lines[0].endswith("general")
    assert lines[1:3] == ["% first", "%second line"] and lines[3] == f"41 17 {M.nnz}" and len(lines) == 4 + M.nnz


def test_no_overwrite_without_hard_links(tmp_path, monkeypatch):
    # where os.link is not supported the file is still written (checked, then renamed) and still kept
    def no_links(*a, **k):
        raise PermissionError("hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    p = export.write(sp.eye_array(3, format="csr"), tmp_path / "x.npz", overwrite=False)
    assert export.read(p).shape == (3, 3) and sorted(os.listdir(tmp_path)) == ["x.npz"]
    with pytest.raises(ValueError, match="exists"):
        export.write(sp.eye_array(3, format="csr"), tmp_path / "x.npz", overwrite=False)
