"""Numba stencil kernels for single-channel convolution (optional: isomat works without Numba).

:func:`apply2d` computes ``y = A x`` for a single-channel 2-D convolution directly from the
unpadded ``x``: each axis's padding (zeros, circular, reflect, replicate), stride and dilation is
an index map ``idx[o, t]`` (the input index tap ``t`` of output ``o`` reads, ``-1`` for a zero),
built with ``np.pad`` on ``arange`` so it is the very map the NumPy path's padded copy makes.
Columns whose taps all fall inside the image (the interior) read ``x`` by affine index, the few
border columns through the map.  Output rows are computed one at a time: the row of ``y`` and
the ``K0`` rows of ``x`` it needs sit in L1/L2, so ``x`` is read from memory once and ``y``
written once.  Row blocks run on isomat's own pool (the kernel is ``nogil``).

Summation order (``fastmath=False``, so it is exactly this): for each output, ``0.0`` plus the
taps in row-major tap order (``t0`` outer, ``t1`` inner), skipping taps that read a zero pad --
the order of the CSR row of :func:`~isomat.algebra.conv_matrix` for zero padding (bit-equal); with
circular, reflect or replicate padding CSR merges repeated columns first, so they agree to rounding.

Compiled lazily on first use (never at ``import isomat``), cached to disk (``cache=True``); a
cache directory Numba cannot write makes Numba warn and compile in memory, which is caught here.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

_KERNEL: Any = None
_FAILED = False
DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def available() -> bool:
    """Numba importable (and not disabled by a failed compile)."""
    if _FAILED:
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _fused3(ys, xa, xb, xc, w0, w1, w2):  # pragma: no cover - compiled
    for j in range(ys.shape[0]):
        ys[j] = ys[j] + w0 * xa[j] + w1 * xb[j] + w2 * xc[j]


def _fused5(ys, xa, xb, xc, xd, xe, w0, w1, w2, w3, w4):  # pragma: no cover - compiled
    for j in range(ys.shape[0]):
        ys[j] = ys[j] + w0 * xa[j] + w1 * xb[j] + w2 * xc[j] + w3 * xd[j] + w4 * xe[j]


def _axpy(ys, xs, wt):  # pragma: no cover - compiled
    for j in range(ys.shape[0]):
        ys[j] += wt * xs[j]


def _compile() -> Any:
    global _KERNEL
    if _KERNEL is not None:
        return _KERNEL
    import numba

    fused3 = fused5 = axpy = None  # bound below, before `rows` is compiled (numba freezes closures then)

    def rows(x, w, i0, i1, lo1, hi1, s1, d1, off1, y, r0, r1):  # pragma: no cover - compiled
        K0, K1 = w.shape
        O1 = y.shape[1]
        for o0 in range(r0, r1):
            yr = y[o0]
            for o1 in range(O1):
                yr[o1] = 0.0
            for t0 in range(K0):
                r = i0[o0, t0]
                if r < 0:
                    continue
                xr = x[r]
                # border columns (through the index map), tap by tap
                for t1 in range(K1):
                    wt = w[t0, t1]
                    for o1 in range(0, lo1):
                        c = i1[o1, t1]
                        if c >= 0:
                            yr[o1] += wt * xr[c]
                    for o1 in range(hi1, O1):
                        c = i1[o1, t1]
                        if c >= 0:
                            yr[o1] += wt * xr[c]
                # interior columns: views indexed from 0 (no wrap-around checks), so the loops
                # vectorise; a row of 3 or 5 taps is fused into one pass over y (the same order:
                # ((y + w0 x0) + w1 x1) + ...), other widths take one pass a tap
                m = hi1 - lo1
                if m <= 0:
                    continue
                ys = yr[lo1:hi1]
                a0 = lo1 * s1 - off1
                if s1 == 1:  # contiguous views: the loops vectorise
                    if K1 == 3:
                        fused3(ys, xr[a0:a0 + m], xr[a0 + d1:a0 + d1 + m], xr[a0 + 2 * d1:a0 + 2 * d1 + m],
                               w[t0, 0], w[t0, 1], w[t0, 2])
                    elif K1 == 5:
                        fused5(ys, xr[a0:a0 + m], xr[a0 + d1:a0 + d1 + m], xr[a0 + 2 * d1:a0 + 2 * d1 + m],
                               xr[a0 + 3 * d1:a0 + 3 * d1 + m], xr[a0 + 4 * d1:a0 + 4 * d1 + m],
                               w[t0, 0], w[t0, 1], w[t0, 2], w[t0, 3], w[t0, 4])
                    else:
                        for t1 in range(K1):
                            axpy(ys, xr[a0 + t1 * d1:a0 + t1 * d1 + m], w[t0, t1])
                else:
                    e = (m - 1) * s1 + 1
                    if K1 == 3:
                        fused3(ys, xr[a0:a0 + e:s1], xr[a0 + d1:a0 + d1 + e:s1], xr[a0 + 2 * d1:a0 + 2 * d1 + e:s1],
                               w[t0, 0], w[t0, 1], w[t0, 2])
                    else:
                        for t1 in range(K1):
                            axpy(ys, xr[a0 + t1 * d1:a0 + t1 * d1 + e:s1], w[t0, t1])
        return 0

    def jit(fn, cache):
        return numba.njit(cache=cache, nogil=True, fastmath=False)(fn)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumbaWarning: cannot cache to a read-only dir
        try:
            fused3, fused5, axpy = jit(_fused3, True), jit(_fused5, True), jit(_axpy, True)
            _KERNEL = jit(rows, True)
        except Exception:  # pragma: no cover - a cache locator failure: compile in memory
            fused3, fused5, axpy = jit(_fused3, False), jit(_fused5, False), jit(_axpy, False)
            _KERNEL = jit(rows, False)
    return _KERNEL


def index_map(n: int, lo: int, hi: int, n_out: int, taps: int, stride: int, dilation: int, boundary: str) -> np.ndarray:
    """``idx[o, t]``: the input index output ``o``'s tap ``t`` reads along one axis (``-1``: zero pad)."""
    mode = {"zero": "constant", "circular": "wrap", "reflect": "reflect", "replicate": "edge"}[boundary]
    ar = np.arange(n, dtype=np.int64)
    if mode == "constant":
        src = np.pad(ar, (lo, hi), mode="constant", constant_values=-1)
    else:
        src = np.pad(ar, (lo, hi), mode=mode)
    p = np.arange(n_out, dtype=np.int64)[:, None] * stride + np.arange(taps, dtype=np.int64)[None, :] * dilation
    return np.ascontiguousarray(src[p])


def interior(n: int, lo: int, n_out: int, taps: int, stride: int, dilation: int) -> tuple[int, int]:
    """Outputs ``[a, b)`` whose every tap reads inside ``[0, n)`` by ``o*stride + t*dilation - lo``."""
    a = -(-lo // stride)
    b = (n - 1 + lo - (taps - 1) * dilation) // stride + 1
    a, b = min(max(a, 0), n_out), min(max(b, 0), n_out)
    return (a, max(a, b))


def apply2d(x: np.ndarray, w: np.ndarray, out_shape: tuple[int, int], lo: tuple[int, int], hi: tuple[int, int],
            stride: tuple[int, int], dilation: tuple[int, int], boundary: str, nthreads: int, pool: Any) -> np.ndarray:
    """Single-channel 2-D ``y = conv(x, w)`` (``x``, ``w`` of one float dtype) on ``nthreads`` row blocks."""
    global _FAILED
    kern = _compile()
    x = np.ascontiguousarray(x)
    w = np.ascontiguousarray(w, dtype=x.dtype)
    (n0, n1), (K0, K1), (O0, O1) = x.shape, w.shape, out_shape
    i0 = index_map(n0, lo[0], hi[0], O0, K0, stride[0], dilation[0], boundary)
    i1 = index_map(n1, lo[1], hi[1], O1, K1, stride[1], dilation[1], boundary)
    a, b = interior(n1, lo[1], O1, K1, stride[1], dilation[1])
    y = np.empty((O0, O1), dtype=x.dtype)
    nthreads = max(1, min(nthreads, O0))
    args = (x, w, i0, i1, a, b, stride[1], dilation[1], lo[1], y)
    if nthreads == 1:
        kern(*args, 0, O0)
        return y
    # a few blocks per thread evens out a loaded core
    nb = min(O0, 4 * nthreads)
    edges = [O0 * j // nb for j in range(nb + 1)]
    list(pool(nthreads).map(lambda j: kern(*args, edges[j], edges[j + 1]), range(nb)))
    return y
