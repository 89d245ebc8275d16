"""The Numba stencil behind single-channel conv_apply: exact against the CSR product, with and
without Numba (no timing assertions)."""
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
    real = _stencil.apply2d
    monkeypatch.setattr(_stencil, "apply2d", lambda *a, **k: calls.append(1) or real(*a, **k))
    conv_apply(np.ones((8, 8)), np.ones((3, 3)), padding=1)
    assert calls == [1]


def test_numba_missing_falls_back(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    assert not _stencil.available()
    called = []
    monkeypatch.setattr(_stencil, "apply2d", lambda *a, **k: called.append(1))
    for mode in MODES:
        _check((19, 13), (3, 3), (1, 2), (1, 1), (1, 1), mode, np.float64, 3)
    assert not called


def test_import_does_not_compile():
    import subprocess
    code = ("import isomat, isomat.algebra, sys; from isomat.algebra import _stencil; "
            "assert _stencil._KERNEL is None; assert 'numba' not in sys.modules")
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
