"""The sparse twin's kernels against direct sums (issue: whole networks, second step, item 3).

The values' gradient of ``y = x W^T`` is ``grad_values[e] = sum_n g[n, rows[e]] * x[n, cols[e]]``:
the tiled GEMM form (:func:`isomat.torch.twin._sddmm_tiled`, a block of rows times the columns its
entries read) and the gather form are checked against that sum written out in NumPy on random
patterns of every shape class (empty rows, one dense row, banded, scattered), with the tile budget
and waste limit set small so every branch -- tiles, halved blocks, gather fallback -- runs. The
gather's bincount adjoint is checked against autograd's own scatter-add.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from isomat.torch import twin as tw  # noqa: E402


def _pattern(draw_rng, n_out, n_in, kind):
    if kind == "banded":
        rows, cols = [], []
        for r in range(n_out):
            lo = (r * n_in) // max(n_out, 1)
            for c in range(lo, min(n_in, lo + 3)):
                rows.append(r)
                cols.append(c)
        return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
    if kind == "dense-row":
        rows = np.repeat(np.arange(n_out), n_in)[: n_out * n_in]
        cols = np.tile(np.arange(n_in), n_out)
        keep = draw_rng.random(rows.size) < (1.0 if kind == "dense-row" else 0.3)
        return rows[keep].astype(np.int64), cols[keep].astype(np.int64)
    mask = draw_rng.random((n_out, n_in)) < 0.15
    mask[draw_rng.integers(0, n_out)] = False  # an empty row
    r, c = np.nonzero(mask)
    return r.astype(np.int64), c.astype(np.int64)


@settings(max_examples=40, deadline=None)
@given(n_out=st.integers(1, 70), n_in=st.integers(1, 70), N=st.integers(1, 5),
       kind=st.sampled_from(["banded", "dense-row", "scattered"]), seed=st.integers(0, 2**16),
       elements=st.sampled_from([16, 64, 1 << 22]), waste=st.sampled_from([1, 2, 32]),
       dtype=st.sampled_from([torch.float64, torch.float32]))
def test_tiled_values_gradient_equals_the_direct_sum(n_out, n_in, N, kind, seed, elements, waste, dtype):
    rng = np.random.default_rng(seed)
    rows, cols = _pattern(rng, n_out, n_in, kind)
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    crow = np.zeros(n_out + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_out), out=crow[1:])
    g = rng.standard_normal((N, n_out))
    x = rng.standard_normal((N, n_in))
    want = (g[:, rows] * x[:, cols]).sum(axis=0)  # the definition, in float64
    old = tw._TILE_ELEMENTS, tw._TILE_WASTE
    tw._TILE_ELEMENTS, tw._TILE_WASTE = elements, waste
    try:
        plan = tw._plan_tiles(crow, cols, n_in)
    finally:
        tw._TILE_ELEMENTS, tw._TILE_WASTE = old
    covered = sorted((e0, e1) for e0, e1, *_ in plan)
    assert sum(e1 - e0 for e0, e1 in covered) == rows.size  # every entry in exactly one block
    assert all(a[1] <= b[0] for a, b in zip(covered, covered[1:]))
    gt, xt = torch.tensor(g, dtype=dtype), torch.tensor(x, dtype=dtype)
    rt, ct = torch.from_numpy(rows), torch.from_numpy(cols)
    got = tw._sddmm_tiled(gt, xt, rt, ct, plan).double().numpy()
    ref = tw._sddmm(gt, xt, rt, ct).double().numpy()
    tol = 1e-12 if dtype == torch.float64 else 1e-4
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(ref, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_gather_adjoint_is_autograds_scatter_add(dtype):
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(37, generator=gen, dtype=dtype, requires_grad=True)
    idx = torch.randint(0, 37, (500,), generator=gen)
    g = torch.randn(500, generator=gen, dtype=dtype)
    (a,) = torch.autograd.grad(tw._gather(w, idx), w, g)
    (b,) = torch.autograd.grad(w[idx], w, g)
    assert a.dtype == dtype
    torch.testing.assert_close(a, b, rtol=1e-12 if dtype == torch.float64 else 1e-5, atol=1e-12 if dtype == torch.float64 else 1e-5)
