"""The Numba stencil behind 2-D conv_apply and the transposed convolution: exact against the CSR
product (bit-equal under zero padding), with and without Numba (no timing assertions)."""
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from isomat.algebra import _stencil, conv_apply, conv_matrix
from isomat.algebra import conv as conv_mod

MODES = ["zero", "circular", "reflect", "replicate"]
needs_numba = pytest.mark.skipif(not _stencil.available(), reason="numba not installed")


def _tol(dtype):
    return 1e-12 if dtype == np.float64 else 2e-5


@st.composite
def layers(draw):
    d = 2  # the fast path; 1-D and 3-D fall back (test_mixed_dtype_and_other_dims_fall_back)
    k = tuple(draw(st.integers(1, 5)) for _ in range(d))
    dil = tuple(draw(st.integers(1, 3)) for _ in range(d))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(d))
    mode = draw(st.sampled_from(MODES))
    span = tuple((kk - 1) * dd + 1 for kk, dd in zip(k, dil))
    pad = tuple(draw(st.integers(0, s - 1)) for s in span)
    # reflect needs pad < n; every mode needs the padded image to hold one window
    n = tuple(draw(st.integers(max(s - 2 * p, p + 1, 1), max(s - 2 * p, p + 1, 1) + 12)) for s, p in zip(span, pad))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    seed = draw(st.integers(0, 2**31))
    return n, k, stride, pad, dil, mode, dtype, seed


def _check(n, k, stride, pad, dil, mode, dtype, seed, threads=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    w = rng.standard_normal(k).astype(dtype)
    kw = dict(stride=stride, padding=pad, dilation=dil, boundary=mode)
    y = conv_apply(x, w, threads=threads, **kw)
    A = conv_matrix(n, w.astype(np.float64), **kw)
    ref = A @ x.astype(np.float64).ravel()
    assert y.dtype == dtype
    scale = max(1.0, float(np.abs(ref).max(initial=0.0)))
    np.testing.assert_allclose(y.ravel().astype(np.float64), ref, rtol=0, atol=_tol(dtype) * scale * np.prod(k))
    return y


@needs_numba
@settings(deadline=None, max_examples=150)
@given(layers())
def test_stencil_matches_csr(layer):
    _check(*layer)


@needs_numba
@settings(deadline=None, max_examples=40)
@given(layers(), st.integers(1, 4))
def test_stencil_equals_numpy_path(layer, threads):
    n, k, stride, pad, dil, mode, dtype, seed = layer
    fast = _check(*layer, threads=threads)
    saved = _stencil._FAILED
    _stencil._FAILED = True  # the NumPy path
    try:
        slow = _check(*layer, threads=threads)
    finally:
        _stencil._FAILED = saved
    np.testing.assert_allclose(fast, slow, rtol=0, atol=_tol(dtype) * max(1.0, float(np.abs(slow).max())) * np.prod(k))


@needs_numba
def test_zero_padding_bit_equal_to_csr():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((64, 61)), rng.standard_normal((3, 3))
    y = conv_apply(x, w, padding=1)
    assert np.array_equal(y.ravel(), conv_matrix(x.shape, w, padding=1) @ x.ravel())


@needs_numba
def test_fast_path_taken(monkeypatch):
    calls = []
    real = _stencil.forward
    monkeypatch.setattr(_stencil, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    conv_apply(np.ones((8, 8)), np.ones((3, 3)), padding=1)
    assert calls == [1]


def test_numba_missing_falls_back(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    assert not _stencil.available()
    called = []
    monkeypatch.setattr(_stencil, "forward", lambda *a, **k: called.append(1))
    monkeypatch.setattr(_stencil, "transpose", lambda *a, **k: called.append(1))
    for mode in MODES:
        _check((19, 13), (3, 3), (1, 2), (1, 1), (1, 1), mode, np.float64, 3)
    assert not called


def test_import_does_not_compile():
    import subprocess
    code = ("import isomat, isomat.algebra, sys; from isomat.algebra import _stencil; "
            "assert _stencil._KERNELS == {}; assert 'numba' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@needs_numba
def test_readonly_cache_dir(tmp_path):
    import os
    import subprocess
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(ro / "nope"))
    code = ("import numpy as np; from isomat.algebra import conv_apply, conv_matrix; x=np.arange(30.).reshape(5,6); "
            "w=np.ones((3,3)); assert np.allclose(conv_apply(x,w,padding=1).ravel(), conv_matrix(x.shape,w,padding=1)@x.ravel())")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_mixed_dtype_and_other_dims_fall_back():
    rng = np.random.default_rng(2)
    for n, k in [((30,), (3,)), ((6, 7, 5), (3, 3, 3))]:
        x, w = rng.standard_normal(n), rng.standard_normal(k)
        np.testing.assert_allclose(conv_apply(x, w, padding=1).ravel(), conv_matrix(n, w, padding=1) @ x.ravel(), atol=1e-12)
    x = rng.standard_normal((9, 9)).astype(np.float32)
    y = conv_apply(x, rng.standard_normal((3, 3)))
    assert y.dtype == np.float64


def test_generated_kernels_are_current():
    from isomat.algebra import _stencil_gen, _stencil_kernels
    assert pathlib.Path(_stencil_kernels.__file__).read_text() == _stencil_gen.module_source(), \
        "isomat/algebra/_stencil_kernels.py is stale: run python -m isomat.algebra._stencil_gen"


@needs_numba
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [(1, 1), (2, 3), (3, 3), (4, 4), (5, 5), (7, 7), (3, 1)])
@pytest.mark.parametrize("stride", [1, 2])
def test_zero_padding_bit_equal_every_kernel(dtype, k, stride):
    """Both interior kernels (straight-line 3x3/5x5, tap passes otherwise) and the border
    sum in the CSR row's order: equal bits, float32 included (SciPy sums float32 in float32)."""
    rng = np.random.default_rng(sum(k) + stride)
    x, w = rng.standard_normal((29, 33)).astype(dtype), rng.standard_normal(k).astype(dtype)
    pad = (k[0] // 2, k[1] // 2)
    A = conv_matrix(x.shape, w, padding=pad, stride=stride)
    assert A.dtype == dtype
    y = conv_apply(x, w, padding=pad, stride=stride)
    assert y.dtype == dtype and np.array_equal(y.ravel(), A @ x.ravel())


@st.composite
def channel_layers(draw):
    groups = draw(st.integers(1, 3))
    cpg, opg = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    k = draw(st.sampled_from([(3, 3), (5, 5), (2, 3), (1, 1)]))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    mode = draw(st.sampled_from(MODES))
    pad = tuple(draw(st.integers(0, (kk - 1) * dd)) for kk, dd in zip(k, dil))
    n = tuple(draw(st.integers(max((kk - 1) * dd + 1, p + 1), 14)) for kk, dd, p in zip(k, dil, pad))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return groups, cpg, opg, n, k, stride, pad, dil, mode, dtype, draw(st.integers(0, 2**31))


@needs_numba
@settings(deadline=None, max_examples=60)
@given(channel_layers())
def test_multichannel_stencil_matches_csr_both_ways(monkeypatch, layer):
    """Channels and groups through the stencil (forced here; normally the measured rule decides):
    forward bit-equal to CSR under zero padding (to rounding otherwise), transpose to rounding."""
    from isomat.algebra import conv_transpose_apply
    groups, cpg, opg, n, k, stride, pad, dil, mode, dtype, seed = layer
    monkeypatch.setattr(_stencil, "prefer", lambda *a: True)
    monkeypatch.setattr(_stencil, "prefer_transpose", lambda *a: True)
    rng = np.random.default_rng(seed)
    c_in, c_out = groups * cpg, groups * opg
    x = rng.standard_normal((c_in,) + n).astype(dtype)
    w = rng.standard_normal((c_out, cpg) + k).astype(dtype)
    kw = dict(stride=stride, padding=pad, dilation=dil, boundary=mode, groups=groups)
    A = conv_matrix(x.shape, w, **kw)
    y = conv_apply(x, w, **kw)
    ref = A @ x.ravel()
    tol = _tol(dtype) * np.prod(k) * cpg * max(1.0, float(np.abs(ref).max(initial=0)))
    if mode == "zero":
        assert np.array_equal(y.ravel(), ref)
    else:
        np.testing.assert_allclose(y.ravel(), ref, rtol=0, atol=tol)
    g = rng.standard_normal(A.shape[0]).astype(dtype)
    xa = conv_transpose_apply(g.reshape(y.shape), w, x.shape, **kw)
    assert xa.dtype == dtype
    ref_t = A.T.astype(np.float64) @ g.astype(np.float64)
    np.testing.assert_allclose(xa.ravel(), ref_t, rtol=0, atol=_tol(dtype) * np.prod(k) * opg * 4 *
                               max(1.0, float(np.abs(ref_t).max(initial=0))))


@needs_numba
@settings(deadline=None, max_examples=60)
@given(layers(), st.integers(1, 3))
def test_transpose_stencil_dot_test(layer, threads):
    """<A x, g> = <x, A^T g> with the forward and the transposed stencil (float64, any padding)."""
    from isomat.algebra import conv_linear_operator
    n, k, stride, pad, dil, mode, _, seed = layer
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(k)
    op = conv_linear_operator(n, w, stride=stride, padding=pad, dilation=dil, boundary=mode)
    x, g = rng.standard_normal(op.shape[1]), rng.standard_normal(op.shape[0])
    lhs, rhs = float(g @ (op @ x)), float(x @ op.rmatvec(g))
    assert abs(lhs - rhs) <= 1e-12 * max(1.0, float(np.abs(x).sum() * np.abs(g).sum()))
    ref = conv_matrix(n, w, stride=stride, padding=pad, dilation=dil, boundary=mode).T @ g
    np.testing.assert_allclose(op.rmatvec(g), ref, rtol=0, atol=1e-12 * max(1.0, float(np.abs(ref).max())) * np.prod(k))


@needs_numba
def test_transpose_takes_the_stencil(monkeypatch):
    from isomat.algebra import conv_transpose_apply
    calls = []
    real = _stencil.transpose
    monkeypatch.setattr(_stencil, "transpose", lambda *a, **k: calls.append(1) or real(*a, **k))
    conv_transpose_apply(np.ones((8, 8)), np.ones((3, 3)), (8, 8), padding=1)
    assert calls == [1]


@pytest.mark.parametrize("numba_on", [True, False])
def test_out_is_written_and_returned(monkeypatch, numba_on):
    if numba_on and not _stencil.available():
        pytest.skip("numba not installed")
    if not numba_on:
        monkeypatch.setattr(_stencil, "_FAILED", True)
    rng = np.random.default_rng(4)
    for x, w in [(rng.standard_normal((20, 17)), rng.standard_normal((3, 3))),
                 (rng.standard_normal((2, 9, 8)), rng.standard_normal((3, 2, 3, 3)))]:
        ref = conv_apply(x, w, padding=1)
        out = np.full(ref.shape, np.nan)
        assert conv_apply(x, w, padding=1, out=out) is out
        assert np.array_equal(out, ref)


def test_out_refusals():
    x, w = np.ones((6, 6)), np.ones((3, 3))
    cases = [(np.empty((6, 5)), ValueError, "shape"), (np.empty((6, 6), np.float32), ValueError, "dtype"),
             (np.empty((6, 12))[:, ::2], ValueError, "C-contiguous"), ([[0.0] * 6] * 6, TypeError, "numpy.ndarray")]
    ro = np.empty((6, 6))
    ro.flags.writeable = False
    cases.append((ro, ValueError, "writeable"))
    for out, exc, word in cases:
        with pytest.raises(exc, match=word):
            conv_apply(x, w, padding=1, out=out)
    with pytest.raises(ValueError, match="overlap"):
        conv_apply(x, w, padding=1, out=x)
    import sympy
    with pytest.raises(TypeError, match="NumPy inputs"):
        conv_apply(sympy.Matrix(np.ones((6, 6), dtype=int)), np.ones((3, 3), dtype=int), padding=1, out=np.empty((6, 6)))


@needs_numba
def test_the_measured_rule_routes_layers(monkeypatch):
    """The rule of _stencil.prefer as documented: depthwise and few-output layers take the stencil,
    short rows and many outputs per group the GEMM (each choice visible as a call of forward)."""
    from isomat.algebra.conv import _IM2COL_BYTES
    calls = []
    real = _stencil.forward
    monkeypatch.setattr(_stencil, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(5)

    def routed(c_in, c_out, groups, n, k=3):
        calls.clear()
        x, w = rng.standard_normal((c_in, n, n)), rng.standard_normal((c_out, c_in // groups, k, k))
        y = conv_apply(x, w, padding=1, groups=groups)
        np.testing.assert_allclose(y.ravel(), conv_matrix(x.shape, w, padding=1, groups=groups) @ x.ravel(),
                                   rtol=1e-12, atol=1e-12)
        blas, cores = _threads.blas_threads(None), _threads.num_threads()
        assert _stencil.prefer(c_in, c_out, groups, (k, k), (n, n), 8, _IM2COL_BYTES, blas, cores) == bool(calls)
        return bool(calls)

    from isomat.algebra import _threads
    assert routed(16, 16, 16, 40)      # depthwise: opg 1
    assert routed(8, 2, 1, 24)         # two outputs
    assert not routed(8, 8, 1, 32)     # short rows: the GEMM
    assert routed(4, 4, 1, 96)         # opg 4 on rows of 96
    assert not routed(16, 16, 1, 96)   # opg 16 below 256^2 outputs
    # BLAS on every core (quiet) against BLAS on one of two (loaded)
    assert not _stencil.prefer(8, 8, 1, (3, 3), (128, 128), 8, _IM2COL_BYTES, 2, 2)
    assert _stencil.prefer(8, 8, 1, (3, 3), (128, 128), 8, _IM2COL_BYTES, 1, 2)
    assert _stencil.prefer(16, 16, 1, (3, 3), (256, 256), 8, _IM2COL_BYTES, 1, 2)
    assert not _stencil.prefer(16, 16, 1, (3, 3), (256, 256), 8, _IM2COL_BYTES, 2, 2)
    assert not _stencil.prefer(64, 64, 1, (3, 3), (256, 256), 8, 2**40, 1, 2)  # one GEMM: opg 64 goes to BLAS
    assert _stencil.prefer(64, 64, 1, (3, 3), (256, 256), 8, 2**20, 2, 2)      # one GEMM per tap: the stencil
    # the transpose's rule: depthwise and long rows up to 32 channels a group take the stencil
    assert _stencil.prefer_transpose(16, 16, 16, (3, 3), (32, 32))
    assert not _stencil.prefer_transpose(16, 16, 1, (3, 3), (32, 32))
    assert _stencil.prefer_transpose(16, 16, 1, (3, 3), (128, 128))
    assert not _stencil.prefer_transpose(64, 64, 1, (3, 3), (128, 128))
