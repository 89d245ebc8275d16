"""conv_matrix(..., format="diagonal") built straight from the kernel, without the CSR matrix.

References that share no code with the direct builder: the CSR path (``conv_matrix(...,
format="csr")`` then :func:`diagonal_blocks`), a zero-padded cross-correlation written as a loop
over taps of NumPy slices, and the dense transpose of the CSR matrix.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import DiagonalBlocks, conv_matrix, diagonal_blocks
from isomat.algebra import conv as cv
from isomat.algebra import diagonal as dg
from isomat.errors import SizeLimitError


def _no_csr(*args, **kwargs):
    raise AssertionError("the CSR matrix was built")


def _correlate(X, K, dil, lo):
    """Zero-padded cross-correlation (torch's convNd) of X (C_in, *n) with K (C_out, C_in, *k)."""
    spatial, ktaps = X.shape[1:], K.shape[2:]
    hi = [dl * (k - 1) - l for dl, k, l in zip(dil, ktaps, lo)]
    Xp = np.pad(X, [(0, 0)] + list(zip(lo, hi)))
    Y = np.zeros((K.shape[0],) + spatial)
    for t in itertools.product(*(range(k) for k in ktaps)):
        window = Xp[(slice(None),) + tuple(slice(ti * dl, ti * dl + n) for ti, dl, n in zip(t, dil, spatial))]
        Y += np.tensordot(K[(slice(None), slice(None)) + t].astype(np.float64), window, axes=(1, 0))
    return Y


@st.composite
def layers(draw):
    d = draw(st.integers(1, 3))
    spatial = tuple(draw(st.lists(st.integers(1, 7 if d < 3 else 4), min_size=d, max_size=d)))
    ktaps = tuple(draw(st.lists(st.integers(1, 4), min_size=d, max_size=d)))  # odd and even
    dil = tuple(draw(st.lists(st.integers(1, 2), min_size=d, max_size=d)))
    c_in, c_out = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    total = [dl * (k - 1) for dl, k in zip(dil, ktaps)]
    # an explicit (symmetric) padding keeps the shape when the total is even
    explicit = all(t % 2 == 0 for t in total) and draw(st.booleans())
    padding = tuple(t // 2 for t in total) if explicit else "same"
    lo = tuple(t // 2 for t in total)
    single = c_in == c_out == 1 and d < 3 and draw(st.booleans())  # (n1..nd) with a (k1..kd) kernel
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return spatial, ktaps, dil, c_in, c_out, padding, lo, single, dtype


@given(layers(), st.integers(0, 2**31 - 1))
def test_direct_equals_the_csr_path_and_the_correlation(layer, seed):
    spatial, ktaps, dil, c_in, c_out, padding, lo, single, dtype = layer
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in) + ktaps).astype(dtype)
    K[rng.random(K.shape) < 0.2] = 0  # kernel zeros are stored entries of the CSR matrix: nnz counts them
    shape, kern = ((spatial, K[0, 0]) if single else ((c_in,) + spatial, K))
    b = math.prod(spatial)
    A = conv_matrix(shape, kern, padding=padding, dilation=dil, format="csr")
    calls = []

    def spy(*args, **kwargs):
        out = orig(*args, **kwargs)
        calls.append(out)
        return out

    orig = dg._conv_diagonal_blocks
    with pytest.MonkeyPatch.context() as mp:
        # tiny images are mostly border, which format="diagonal" refuses (max_fill 1.5): compare the
        # storage without the bound, and the refusal with it
        mp.setattr(dg, "_conv_diagonal_blocks", functools.partial(spy, max_fill=np.inf))
        mp.setattr(dg, "diagonal_blocks", functools.partial(diagonal_blocks, max_fill=np.inf))  # taps collided
        D = conv_matrix(shape, kern, padding=padding, dilation=dil, format="diagonal")
    R = diagonal_blocks(A, block=b, max_fill=np.inf)
    assert isinstance(D, DiagonalBlocks) and D.field == "numpy" and D.block == b
    assert len(calls) == 1
    if calls[0] is not None:  # taken (not two taps on one diagonal): no CSR matrix was converted
        assert calls[0] is D
    np.testing.assert_array_equal(D.offsets, R.offsets)
    assert D.offsets.dtype == np.int64 and np.all(np.diff(D.offsets) > 0)
    assert D.data.dtype == dtype and D.data.shape == R.data.shape
    np.testing.assert_array_equal(D.data, R.data)
    assert D.nnz == R.nnz == A.nnz
    assert (D.tocsr() != A).nnz == 0
    # the bounded call refuses exactly when the CSR path does
    try:
        diagonal_blocks(A, block=b)
        refused = False
    except ValueError:
        refused = True
    if refused:
        with pytest.raises(ValueError, match="not banded"):
            conv_matrix(shape, kern, padding=padding, dilation=dil, format="diagonal")
    else:
        Db = conv_matrix(shape, kern, padding=padding, dilation=dil, format="diagonal")
        np.testing.assert_array_equal(Db.data, R.data)
    # the products against an independent correlation and the dense transpose
    X = rng.standard_normal((c_in,) + spatial).astype(dtype)
    y = rng.standard_normal(A.shape[0]).astype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    ref = _correlate(X.astype(np.float64), K.astype(np.float64), dil, lo).ravel()
    np.testing.assert_allclose(D @ X.ravel(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(D.rmatvec(y), A.toarray().T.astype(np.float64) @ y, rtol=tol, atol=tol)


def test_the_direct_path_builds_no_csr(monkeypatch):
    rng = np.random.default_rng(3)
    K = rng.standard_normal((3, 2, 3, 4))
    ref = conv_matrix((2, 11, 12), K, padding="same")
    R = diagonal_blocks(ref, block=132)
    monkeypatch.setattr(cv, "_build", _no_csr)
    monkeypatch.setattr(dg, "diagonal_blocks", _no_csr)
    D = conv_matrix((2, 11, 12), K, padding="same", format="diagonal")
    np.testing.assert_array_equal(D.data, R.data)
    np.testing.assert_array_equal(D.offsets, R.offsets)
    assert D.nnz == ref.nnz
    # an integer kernel gives float64 (as the CSR path), single channel and 3-d too
    Di = conv_matrix((12, 13), np.arange(9).reshape(3, 3), padding=1, format="diagonal")
    assert Di.dtype == np.float64
    D3 = conv_matrix((1, 6, 7, 8), rng.standard_normal((2, 1, 3, 3, 3)).astype(np.float32), padding="same",
                     format="diagonal")
    assert D3.dtype == np.float32 and len(D3.offsets) == 27


def _fallback_case(monkeypatch, shape, K, **kw):
    """conv_matrix(format="diagonal") of a layer the direct builder does not take: it equals the CSR
    matrix (the bound on the fill lifted, so that small layers are compared too)."""
    A = conv_matrix(shape, K, **kw)
    orig = dg.diagonal_blocks
    used = []
    monkeypatch.setattr(dg, "diagonal_blocks", lambda M, **k: used.append(1) or orig(M, **{**k, "max_fill": np.inf}))
    D = conv_matrix(shape, K, format="diagonal", **kw)
    assert used == [1]  # built through the CSR matrix
    np.testing.assert_array_equal(D.toarray(), A.toarray())
    assert D.nnz == A.nnz
    return D


def test_taps_on_one_diagonal_fall_back(monkeypatch):
    # a (3, 5) kernel on a 3-wide image: taps (0, 2) and (1, -1) both read 2 positions ahead
    rng = np.random.default_rng(4)
    K = rng.standard_normal((2, 2, 3, 5))
    shifts = [(a - 1, c - 2) for a in range(3) for c in range(5)]
    assert dg._conv_diagonal_blocks(K.reshape(2, 2, 15), (20, 3), shifts) is None
    D = _fallback_case(monkeypatch, (2, 20, 3), K, padding="same")
    # the same layer without the fill bound lifted: the CSR path's own answer
    monkeypatch.undo()
    D0 = conv_matrix((2, 20, 3), K, padding="same", format="diagonal")
    np.testing.assert_array_equal(D0.data, D.data)


def test_taps_that_read_nothing_have_no_diagonal(monkeypatch):
    # 1 position, a 2-tap kernel dilated by 3: both taps fall outside; the CSR matrix is empty
    monkeypatch.setattr(cv, "_build", _no_csr)
    D = conv_matrix((1,), np.array([1.0, 2.0]), padding="same", dilation=3, format="diagonal")
    assert D.nnz == 0 and D.offsets.size == 0 and D.data.shape == (1, 0, 1)
    np.testing.assert_array_equal(D.toarray(), np.zeros((1, 1)))


@pytest.mark.parametrize("kw", [dict(groups=2, padding="same"), dict(padding=1, boundary="circular"),
                                dict(padding=1, boundary="reflect"), dict(stride=2, padding=1),
                                dict(padding="same", rows=(64, 192))])
def test_other_layers_fall_back(monkeypatch, kw):
    rng = np.random.default_rng(5)
    K = rng.standard_normal((4, 1 if kw.get("groups") else 2, 3, 3))
    _fallback_case(monkeypatch, (2, 8, 8), K, **kw)


def test_complex_kernel_falls_back(monkeypatch):
    K = np.random.default_rng(6).standard_normal((2, 2, 3, 3)) * (1 + 1j)
    D = _fallback_case(monkeypatch, (2, 9, 9), K, padding="same")
    assert D.dtype == np.complex128


def test_refused_before_allocation(monkeypatch):
    K = np.ones((3, 2, 3, 3))
    monkeypatch.setattr(cv, "_build", _no_csr)
    monkeypatch.setattr(dg.np, "zeros", _no_csr)  # the storage is never allocated
    with isomat.memory_limit(1000):
        with pytest.raises(SizeLimitError, match=r"conv_matrix: storing 48,600 values would need about .*over "
                                                 r"the memory bound"):
            conv_matrix((2, 30, 30), K, padding="same", format="diagonal")
    monkeypatch.undo()
    # the layer of the motivation: 9.7e9 float32 values (38.6 GB), whose CSR could not exist on a GPU
    with isomat.memory_limit("1G"):
        monkeypatch.setattr(cv, "_build", _no_csr)
        with pytest.raises(SizeLimitError, match="storing 9,663,676,416 values"):
            conv_matrix((64, 512, 512), np.ones((64, 64, 3, 3), np.float32), padding="same", format="diagonal")


def test_built_on_the_device(cupy_standin_module, monkeypatch):
    cp = cupy_standin_module
    rng = np.random.default_rng(7)
    for dtype in (np.float64, np.float32):
        K = rng.standard_normal((3, 2, 3, 3)).astype(dtype)
        host = conv_matrix((2, 10, 9), K, padding="same", format="diagonal")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cv, "_build", _no_csr)
            mp.setattr(dg, "diagonal_blocks", _no_csr)
            cp.reset_transfers()
            D = conv_matrix((2, 10, 9), cp.asarray(K), padding="same", format="diagonal")
            # built on the device: nothing of the storage's size crossed from the host
            assert cp.TRANSFERS["h2d_bytes"] < host.data.nbytes
        assert D.field == "cupy" and isinstance(D.data, cp.ndarray) and D.dtype == dtype
        np.testing.assert_array_equal(D.data.get(), host.data)
        np.testing.assert_array_equal(D.offsets, host.offsets)
        assert D.nnz == host.nnz
        x = rng.standard_normal(D.shape[1]).astype(dtype)
        np.testing.assert_allclose((D @ cp.asarray(x)).get(), host @ x, rtol=1e-5, atol=1e-5)
    # over the device's free memory: refused with the sizes, before allocating
    monkeypatch.setattr(cp.cuda.Device, "mem_info", property(lambda self: (10_000, 8 << 30)))
    with pytest.raises(SizeLimitError, match=r"conv_matrix: storing 48,600 values on the GPU .* free on the device"):
        conv_matrix((2, 30, 30), cp.asarray(np.ones((3, 2, 3, 3))), padding="same", format="diagonal")
