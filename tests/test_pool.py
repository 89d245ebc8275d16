"""isomat.algebra.pool against torch, direct loops and the paper's W_pool (zhu2025 §4.2.2)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st

import isomat
from isomat.algebra import avgpool_matrix, maxpool_selection, patch_major_order, pool_output_shape, zhu_pool_matrix
from isomat.testing import dottest
from isomat.testing.strategies import pool_layers


def _out_size(n, k, s, p, ceil_mode):
    if not ceil_mode:
        return (n + 2 * p - k) // s + 1
    o = -(-(n + 2 * p - k) // s) + 1
    return o - 1 if (o - 1) * s >= n + p else o  # torch: the last window starts inside input + left pad


def loop_pool(X, win, stride, pad, how, count_include_pad=True, ceil_mode=False, divisor_override=None):
    """Direct loops (channels first): average or max over each window; padding reads 0 / -inf;
    with ceil_mode a window past the padded input counts only its taps inside it (torch)."""
    C, sp_in = X.shape[0], X.shape[1:]
    d = len(sp_in)
    out = [_out_size(sp_in[i], win[i], stride[i], pad[i], ceil_mode) for i in range(d)]
    Y = np.zeros((C,) + tuple(out))
    for c in range(C):
        for o in itertools.product(*[range(n) for n in out]):
            vals, total = [], 0
            for t in itertools.product(*[range(k) for k in win]):
                idx = [o[i] * stride[i] - pad[i] + t[i] for i in range(d)]
                if all(j < n + p for j, n, p in zip(idx, sp_in, pad)):
                    total += 1
                if all(0 <= j < n for j, n in zip(idx, sp_in)):
                    vals.append(X[(c,) + tuple(idx)])
            if how == "max":
                Y[(c,) + o] = max(vals)
            else:
                div = divisor_override or (total if count_include_pad else len(vals))
                Y[(c,) + o] = sum(vals) / div
    return Y


def pool_case():
    """(d, win, stride, pad, n, c, seed), inputs smaller than the window included, drawn by the kit."""
    return pool_layers(kinds=("avg",), torch_compatible=False, ceil_modes=(False,), divisors=(None,), values=False).map(
        lambda c: (c.d, c.window, c.stride, c.padding, c.spatial, c.channels, c.seed))


@given(pool_case(), st.booleans())
def test_avgpool_matches_loops_and_torch(case, cip):
    d, win, stride, pad, n, c, seed = case
    X = np.random.default_rng(seed).standard_normal((c,) + n)
    A = avgpool_matrix((c,) + n, win, stride=stride, padding=pad, count_include_pad=cip)
    ref = loop_pool(X, win, stride, pad, "avg", cip)
    assert pool_output_shape((c,) + n, win, stride=stride, padding=pad) == ref.shape
    np.testing.assert_allclose(A @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    dottest(A, rng=seed)
    torch = pytest.importorskip("torch")
    if any(ni < k for ni, k in zip(n, win)):
        return  # torch refuses inputs smaller than the window even when padding makes them fit
    f = {1: torch.nn.functional.avg_pool1d, 2: torch.nn.functional.avg_pool2d, 3: torch.nn.functional.avg_pool3d}[d]
    t = f(torch.tensor(X)[None], win, stride=stride, padding=pad, count_include_pad=cip)[0].numpy()
    np.testing.assert_allclose(A @ X.ravel(), t.ravel(), rtol=1e-12, atol=1e-12)


@given(pool_case(), st.booleans(), st.booleans(), st.sampled_from([None, 1, 3]))
def test_avgpool_ceil_mode_and_divisor_override(case, cip, ceil_mode, divisor):
    d, win, stride, pad, n, c, seed = case
    X = np.random.default_rng(seed).standard_normal((c,) + n)
    kw = dict(stride=stride, padding=pad, ceil_mode=ceil_mode, count_include_pad=cip, divisor_override=divisor)
    A = avgpool_matrix((c,) + n, win, **kw)
    ref = loop_pool(X, win, stride, pad, "avg", cip, ceil_mode, divisor)
    assert pool_output_shape((c,) + n, win, stride=stride, padding=pad, ceil_mode=ceil_mode) == ref.shape
    np.testing.assert_allclose(A @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    dottest(A, rng=seed)
    S = maxpool_selection(X, win, stride=stride, padding=pad, ceil_mode=ceil_mode)
    np.testing.assert_array_equal(S @ X.ravel(), loop_pool(X, win, stride, pad, "max", ceil_mode=ceil_mode).ravel())
    torch = pytest.importorskip("torch")
    if any(ni < k for ni, k in zip(n, win)) or (divisor is not None and d == 1):
        return  # torch refuses inputs smaller than the window; avg_pool1d has no divisor_override
    f = {1: torch.nn.functional.avg_pool1d, 2: torch.nn.functional.avg_pool2d, 3: torch.nn.functional.avg_pool3d}[d]
    tkw = dict(stride=stride, padding=pad, ceil_mode=ceil_mode, count_include_pad=cip)
    if divisor is not None:
        tkw["divisor_override"] = divisor
    t = f(torch.tensor(X)[None], win, **tkw)[0].numpy()
    np.testing.assert_allclose(A @ X.ravel(), t.ravel(), rtol=1e-12, atol=1e-12)
    m = {1: torch.nn.functional.max_pool1d, 2: torch.nn.functional.max_pool2d, 3: torch.nn.functional.max_pool3d}[d]
    tm = m(torch.tensor(X)[None], win, stride=stride, padding=pad, ceil_mode=ceil_mode)[0].numpy()
    np.testing.assert_array_equal(S @ X.ravel(), tm.ravel())


def test_ceil_mode_exact_example():
    # a 5-wide row, window 2, stride 2, ceil_mode: a third window holds only the last pixel
    A = avgpool_matrix((5,), 2, ceil_mode=True, backend="sympy")
    h = sympy.Rational(1, 2)
    assert A == sympy.Matrix([[h, h, 0, 0, 0], [0, 0, h, h, 0], [0, 0, 0, 0, 1]])
    assert avgpool_matrix((5,), 2, ceil_mode=True, divisor_override=3, backend="sympy")[2, 4] == sympy.Rational(1, 3)
    with pytest.raises(ValueError, match="divisor_override must be a non-zero integer"):
        avgpool_matrix((5,), 2, divisor_override=0)
    with pytest.raises(TypeError, match="ceil_mode must be a bool"):
        avgpool_matrix((5,), 2, ceil_mode=1)


@given(pool_case(), st.booleans())
def test_maxpool_selection_matches_loops_and_torch(case, ties):
    d, win, stride, pad, n, c, seed = case
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(c,) + n).astype(float) if ties else rng.standard_normal((c,) + n)
    S = maxpool_selection(X, win, stride=stride, padding=pad)
    ref = loop_pool(X, win, stride, pad, "max")
    np.testing.assert_array_equal(S @ X.ravel(), ref.ravel())
    assert np.all(S.sum(axis=1) == 1) and set(np.unique(S.data)) == {1.0}
    dottest(S, rng=seed)
    torch = pytest.importorskip("torch")
    if any(ni < k for ni, k in zip(n, win)):
        return  # torch refuses inputs smaller than the window even when padding makes them fit
    f = {1: torch.nn.functional.max_pool1d, 2: torch.nn.functional.max_pool2d, 3: torch.nn.functional.max_pool3d}[d]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = f(torch.tensor(X)[None], win, stride=stride, padding=pad)[0].numpy()
    np.testing.assert_array_equal(S @ X.ravel(), t.ravel())


def test_maxpool_selection_exact_and_data_dependent():
    X = sympy.Matrix([[1, sympy.Rational(5, 2)], [-3, 2]])
    S = maxpool_selection(np.array(X.tolist(), dtype=object), (2, 2))
    assert isinstance(S, sympy.SparseMatrix) and S * X.reshape(4, 1) == sympy.Matrix([[sympy.Rational(5, 2)]])
    S2 = maxpool_selection(-np.array([[1.0, 2.5], [-3, 2]]), 2, ndim=2)
    assert S2.toarray().tolist() == [[0.0, 0.0, 1.0, 0.0]]  # another x, another matrix


def test_avgpool_exact_rationals():
    A = avgpool_matrix((3, 6), (3, 2), backend="sympy")
    assert A.shape == (3, 18) and set(A.values()) == {sympy.Rational(1, 6)}
    X = sympy.Matrix(3, 6, sympy.symbols("x0:18"))
    assert (A * X.reshape(18, 1))[0] == sum(X[i, j] for i in range(3) for j in range(2)) / 6


@given(st.integers(1, 4), st.integers(1, 4), st.integers(2, 3))
def test_zhu_pool_row_major_vs_patch_major(a, b, p):
    m, n = a * p, b * p
    X = np.random.default_rng(m * 7 + n).standard_normal((m, n))
    ref = avgpool_matrix((m, n), (p, p)) @ X.ravel()
    Wpm = zhu_pool_matrix((m, n), p, flattening="patch-major")
    np.testing.assert_allclose(Wpm @ X.ravel(), ref, rtol=1e-13)
    printed = zhu_pool_matrix((m, n), p)
    np.testing.assert_allclose(printed @ X.ravel()[patch_major_order((m, n), p)], ref, rtol=1e-13)
    same = np.allclose(printed @ X.ravel(), ref)
    assert same == (b == 1)  # row-major agrees only when a window row spans the whole image row
    dottest(printed)


@pytest.mark.parametrize(
    "fn, args, kwargs, exc, words",
    [
        (avgpool_matrix, ((4, 4), (2, 2)), {"padding": 2}, ValueError, "padding must be at most half the"),
        (avgpool_matrix, ((4, 4), (0, 0)), {}, ValueError, r"window\[0\] must be a positive integer, got 0"),
        (avgpool_matrix, ((4, 4), 0), {"ndim": 2}, ValueError, "window must be a positive integer, got 0"),
        (avgpool_matrix, ((4, 4), (2, 2)), {"stride": (1, 2, 3)}, ValueError, "stride must have 2 entries"),
        (avgpool_matrix, ((4, 4), (2, 2)), {"count_include_pad": 1}, TypeError, "count_include_pad must be a bool"),
        (avgpool_matrix, ((2, 4, 4, 4, 4), (2, 2)), {}, ValueError, r"must be \(n1..n2\) or \(C, n1..n2\)"),
        (maxpool_selection, (np.ones((4, 4), dtype=complex), (2, 2)), {}, TypeError, "x must be real"),
        (zhu_pool_matrix, ((3, 3), 2), {}, ValueError, r"Q = L / p\^2 must be an integer: L = 9, p = 2"),
        (zhu_pool_matrix, ((2, 8), 4), {"flattening": "patch-major"}, ValueError, "p = 4 must divide both image sides"),
        (zhu_pool_matrix, ((4, 4), 2), {"flattening": "col-major"}, ValueError, "flattening must be one of"),
        (maxpool_selection, (np.ones((4, 4)), (2, 2)), {"padding": -1}, ValueError, "padding must be an integer >= 0"),
    ],
)
def test_bad_arguments(fn, args, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        fn(*args, **kwargs)


def test_memory_bound():
    with isomat.memory_limit(10_000):
        with pytest.raises(isomat.SizeLimitError, match="would need about"):
            avgpool_matrix((3, 64, 64), (2, 2))


def test_fields_agree(field):
    from .conftest import to_host

    A = to_host(avgpool_matrix((2, 4, 6), (2, 3), padding=(1, 0), backend=field)).astype(float)
    np.testing.assert_allclose(A, avgpool_matrix((2, 4, 6), (2, 3), padding=(1, 0)).toarray(), rtol=1e-15)
    # per-row divisors: taps inside the input, and windows past the padded input (ceil_mode)
    for kw in ({"count_include_pad": False}, {"ceil_mode": True}, {"ceil_mode": True, "count_include_pad": False}):
        A = to_host(avgpool_matrix((2, 5, 6), (2, 4), padding=(1, 1), backend=field, **kw)).astype(float)
        np.testing.assert_allclose(A, avgpool_matrix((2, 5, 6), (2, 4), padding=(1, 1), **kw).toarray(), rtol=1e-15)


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))
def test_patch_major_pixel_is_the_entry_rule_of_patch_major_order(a, b, p):
    """The scalar rule isomat.proofs.zhu2025 proves is what patch_major_order (and so zhu_pool_matrix's
    patch-major flattening) builds, on every position."""
    from isomat.algebra.pool import patch_major_order, patch_major_pixel

    m, n = a * p, b * p
    k = np.arange(m * n)
    np.testing.assert_array_equal(patch_major_pixel(k, n, p), patch_major_order((m, n), p))
    assert patch_major_pixel(m * n - 1, n, p) == patch_major_order((m, n), p)[-1]



def test_one_meaning_per_shape_int_windows_need_ndim():
    # issue 13: (3, 32, 32) with an int window is 3 channels for avg_pool2d and one volume for avg_pool3d: refused
    with pytest.raises(ValueError, match=r"window=2 does not say how many of the 3 axes .* pass ndim="):
        avgpool_matrix((3, 32, 32), 2)
    with pytest.raises(ValueError, match="does not say how many"):
        maxpool_selection(np.zeros((3, 4, 4)), 2)
    with pytest.raises(ValueError, match=r"must be \(n1..n1\) or \(C, n1..n1\) for a 1-d window"):
        pool_output_shape((3, 8, 8), (2,))  # a 1-tuple window is a 1-d window
    assert avgpool_matrix((3, 32, 32), 2, ndim=2).shape == (768, 3072)  # torch's avg_pool2d: per channel
    assert avgpool_matrix((3, 32, 32), (2, 2)).shape == (768, 3072)
    assert avgpool_matrix((4, 32, 32), 2, ndim=3).shape == (2 * 16 * 16, 4 * 32 * 32)  # one volume
    assert avgpool_matrix((6,), 2).shape == (3, 6)  # a single axis is unambiguous
    with pytest.raises(ValueError, match=r"must be \(n1..n2\) or \(C, n1..n2\)"):
        avgpool_matrix((2, 3, 8, 8), (2, 2))
    with pytest.raises(ValueError, match="contradicts"):
        avgpool_matrix((3, 8, 8), (2, 2), ndim=3)


@given(st.integers(1, 3), st.integers(3, 7), st.integers(3, 7), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2),
       st.integers(0, 1), st.booleans(), st.integers(0, 2**16))
def test_maxpool_dilation_matches_torch(c, h, w, k, dil, stride, pad, ceil, seed):
    torch = pytest.importorskip("torch")
    assume(2 * pad <= k and dil * (k - 1) + 1 <= min(h, w) + 2 * pad)
    X = np.random.default_rng(seed).standard_normal((c, h, w))
    S = maxpool_selection(X, (k, k), stride=stride, padding=pad, dilation=dil, ceil_mode=ceil)
    ref = torch.nn.functional.max_pool2d(torch.tensor(X)[None], k, stride=stride, padding=pad, dilation=dil,
                                         ceil_mode=ceil)[0].numpy()
    assert pool_output_shape(X.shape, (k, k), stride=stride, padding=pad, dilation=dil, ceil_mode=ceil) == ref.shape
    np.testing.assert_array_equal(S @ X.ravel(), ref.ravel())
    # against direct loops: the maximum over the dilated window, padding read as -inf
    oh, ow = ref.shape[1:]
    loop = np.full(ref.shape, -np.inf)
    for ch in range(c):
        for i in range(oh):
            for j in range(ow):
                for a in range(k):
                    for b in range(k):
                        u, v = i * stride - pad + a * dil, j * stride - pad + b * dil
                        if 0 <= u < h and 0 <= v < w:
                            loop[ch, i, j] = max(loop[ch, i, j], X[ch, u, v])
    np.testing.assert_array_equal(ref, loop)


def test_one_tuple_broadcast_and_divisor_override_as_torch():
    torch = pytest.importorskip("torch")
    x = np.arange(1.0, 17.0).reshape(1, 4, 4)
    for div in (-2, 3):
        A = avgpool_matrix(x.shape, 2, stride=(1,), padding=(1,), divisor_override=div, ndim=2)
        ref = torch.nn.functional.avg_pool2d(torch.tensor(x), (2,), stride=(1,), padding=(1,), divisor_override=div)
        np.testing.assert_allclose(A @ x.ravel(), ref.numpy().ravel(), rtol=1e-15)
    assert avgpool_matrix((4,), 2, divisor_override=-2, backend="sympy")[0, 0] == sympy.Rational(-1, 2)
    with pytest.raises(ValueError, match="divisor_override must be a non-zero integer"):
        avgpool_matrix((4,), 2, divisor_override=0)
