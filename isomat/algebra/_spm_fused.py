r"""SPM (farag2025) forward and backward as one CUDA launch each: all :math:`L` stages of a batch row in
one thread block, the row held in shared memory (issue 42 item 3).

The per-stage kernels of :mod:`isomat.algebra.spm` launch once per stage (13 launches at
:math:`n = 8192`) and read and write the whole activation array each time; on an H100 the forward
took 0.35-0.38 ms at every :math:`n`, latency rather than traffic. Here a thread block takes a batch
row: it loads :math:`z_0 = D_{in} x` (eq. 2) into shared memory, applies the stages in place -- the
pairs of a stage are disjoint, so each thread rewrites its own pairs (eq. 5-6 / 10-11) and one
``__syncthreads()`` separates the stages -- and writes :math:`y = D_{out} z_L + b` (eq. 4). The
backward launch holds :math:`g = D_{out}^{\mathsf T} G` (eq. 15) in shared memory and runs the
stages in reverse (eq. 7-8 / 12-13), reading each stage's input from the forward's cache and
adding each row's parameter-gradient terms (eq. 9 / 14) into its block's own slice of ``contrib``
(no atomics, a fixed order); one ``sum(axis=0)`` over blocks finishes the batch sums.

Scope: the cupy field, float32 and float64, even :math:`n` (every coordinate in a pair at every
stage), :math:`n` values of a row within the 48 KiB of shared memory a block has without opting in
(float32 up to :math:`n = 12288`, float64 up to 6144). :func:`fused_unsupported` says why a layer is
outside it. The results equal :func:`isomat.algebra.spm.spm_forward` / ``spm_backward`` to float
rounding (the same operations per pair in the same order; the batch sums in another order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..gpu import register_raw_kernel_source
from .spm import SPM, _device_dtype, _device_index, _device_operands, _xp

#: shared memory a block may use without cudaFuncSetAttribute (all CUDA devices since compute 2.0)
SHARED_LIMIT = 48 * 1024
#: threads per block at most: a block's threads stride over the row's pairs
THREADS = 256


def _threads(n: int) -> int:
    """Threads of a block for rows of ``n``: one per pair up to :data:`THREADS`, whole warps."""
    return max(32, min(THREADS, -(-(n // 2) // 32) * 32))

# Coefficients of pair p of the stage (eq. 5-6 rotation, eq. 10-11 entries).
_COEFFS = r"""
#define ISOMAT_COEFFS(p) \
  T a, b, c, d; \
  if (rotation) { const T cs = COS(params[p]), sn = SIN(params[p]); a = cs; b = -sn; c = sn; d = cs; } \
  else { a = params[4 * (p)]; b = params[4 * (p) + 1]; c = params[4 * (p) + 2]; d = params[4 * (p) + 3]; }
"""
_FORWARD_SOURCE = _COEFFS + r"""
extern "C" __global__ void isomat_spm_fused_forward_SUFFIX(
    const T* __restrict__ X, T* __restrict__ Y, T* __restrict__ cache, const long long* __restrict__ pairs,
    const T* __restrict__ params, const T* __restrict__ d_in, const T* __restrict__ d_out, const T* __restrict__ bias,
    long long rows, long long n, long long L, long long rotation)
{
  extern __shared__ __align__(16) unsigned char isomat_smem[];
  T* z = (T*)isomat_smem;
  const long long m = n / 2;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    for (long long k = threadIdx.x; k < n; k += blockDim.x) z[k] = d_in[k] * X[row * n + k];  /* eq. (2) */
    __syncthreads();
    for (long long ell = 0; ell < L; ++ell) {
      for (long long k = threadIdx.x; k < m; k += blockDim.x) {  /* the stage's pairs are disjoint: in place */
        const long long p = ell * m + k;
        const long long i = pairs[2 * p], j = pairs[2 * p + 1];
        ISOMAT_COEFFS(p)
        const T x1 = z[i], x2 = z[j];
        if (cache != nullptr) {  /* z_ell, the backward's stage input */
          cache[(ell * rows + row) * n + i] = x1;
          cache[(ell * rows + row) * n + j] = x2;
        }
        z[i] = a * x1 + b * x2;
        z[j] = c * x1 + d * x2;
      }
      __syncthreads();
    }
    for (long long k = threadIdx.x; k < n; k += blockDim.x) {
      if (cache != nullptr) cache[(L * rows + row) * n + k] = z[k];
      Y[row * n + k] = d_out[k] * z[k] + bias[k];  /* eq. (4) */
    }
    __syncthreads();  /* z is reused by the block's next row */
  }
}
"""
_BACKWARD_SOURCE = _COEFFS + r"""
extern "C" __global__ void isomat_spm_fused_backward_SUFFIX(
    const T* __restrict__ cache, const T* __restrict__ G, T* __restrict__ gz0, T* __restrict__ contrib,
    const long long* __restrict__ pairs, const T* __restrict__ params, const T* __restrict__ d_out,
    long long rows, long long n, long long L, long long rotation)
{
  extern __shared__ __align__(16) unsigned char isomat_smem[];
  T* g = (T*)isomat_smem;
  const long long m = n / 2, per = rotation ? 1 : 4;
  T* acc = contrib + (long long)blockIdx.x * L * m * per;  /* this block's slice: no other block writes it */
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const bool first = row < gridDim.x;
    for (long long k = threadIdx.x; k < n; k += blockDim.x) g[k] = G[row * n + k] * d_out[k];  /* eq. (15) */
    __syncthreads();
    for (long long ell = L - 1; ell >= 0; --ell) {
      const T* z = cache + (ell * rows + row) * n;
      for (long long k = threadIdx.x; k < m; k += blockDim.x) {
        const long long p = ell * m + k;
        const long long i = pairs[2 * p], j = pairs[2 * p + 1];
        ISOMAT_COEFFS(p)
        const T x1 = z[i], x2 = z[j], d1 = g[i], d2 = g[j];
        g[i] = a * d1 + c * d2;  /* eq. (7) / (12) */
        g[j] = b * d1 + d * d2;  /* eq. (8) / (13) */
        if (rotation) {  /* eq. (9), cos = a, sin = c */
          const T e = d1 * (-c * x1 - a * x2) + d2 * (a * x1 - c * x2);
          acc[p] = first ? e : acc[p] + e;
        } else {  /* eq. (14) */
          T* q = acc + 4 * p;
          q[0] = first ? d1 * x1 : q[0] + d1 * x1;
          q[1] = first ? d1 * x2 : q[1] + d1 * x2;
          q[2] = first ? d2 * x1 : q[2] + d2 * x1;
          q[3] = first ? d2 * x2 : q[3] + d2 * x2;
        }
      }
      __syncthreads();
    }
    for (long long k = threadIdx.x; k < n; k += blockDim.x) gz0[row * n + k] = g[k];
    __syncthreads();
  }
}
"""
_SOURCES = {"forward": _FORWARD_SOURCE, "backward": _BACKWARD_SOURCE}
_KERNELS: dict[tuple, Any] = {}


def _kernel_source(dtype: Any, name: str) -> tuple[str, str]:
    """``(kernel name, CUDA source)`` of the fused ``name`` ("forward" / "backward") for float32 / float64."""
    f64 = np.dtype(dtype) == np.float64
    ctype, suffix = ("double", "f64") if f64 else ("float", "f32")
    cos, sin = ("cos", "sin") if f64 else ("cosf", "sinf")  # float32 math stays float32
    source = _SOURCES[name].replace("SUFFIX", suffix).replace("COS", cos).replace("SIN", sin)
    return f"isomat_spm_fused_{name}_{suffix}", f"typedef {ctype} T;\n" + source


for _dtype in (np.float32, np.float64):  # declared for the NVRTC test (tests/test_nvrtc.py)
    for _name in _SOURCES:
        register_raw_kernel_source(*_kernel_source(_dtype, _name))


def _kernel(cp: Any, dtype: Any, name: str) -> Any:
    key = (id(cp), np.dtype(dtype).name, name)
    if key not in _KERNELS:
        _KERNELS[key] = cp.RawKernel(*reversed(_kernel_source(dtype, name)))
    return _KERNELS[key]


def fused_unsupported(layer: SPM, *arrays: Any) -> str | None:
    """Why the fused kernels do not apply to ``layer`` (and the inputs ``arrays``), or None when they do."""
    if not isinstance(layer, SPM):
        return f"layer must be an SPM (spm_layer), got {type(layer).__name__}"
    dt = _device_dtype(layer, *arrays)
    if dt is None:
        return (f"the fused kernels run the cupy field in float32 / float64; this layer is in the {layer.field} "
                "field or its values are not real floats")
    if layer.n % 2:
        return f"the fused kernels take even n (every coordinate paired at every stage), got n = {layer.n}"
    if layer.n * dt.itemsize > SHARED_LIMIT:
        return (f"a row of n = {layer.n} {dt.name} values needs {layer.n * dt.itemsize} bytes of shared memory, "
                f"over the {SHARED_LIMIT} a block has")
    return None


def _prepare(layer: SPM, arrays: tuple[tuple[str, Any], ...]) -> tuple[Any, np.dtype, tuple, int, list]:
    """The CuPy module, dtype, batch shape, row count and contiguous ``(rows, n)`` arrays; a ValueError
    naming what is wrong when the fused kernels do not apply."""
    for name, a in arrays:
        if tuple(getattr(a, "shape", ()))[-1:] != (layer.n,):
            raise ValueError(f"{name} must have shape (..., {layer.n}), got {tuple(getattr(a, 'shape', ()))}")
    why = fused_unsupported(layer, *(a for _, a in arrays))
    if why is not None:
        raise ValueError(f"spm fused: {why}")
    cp = _xp(layer)
    dt = _device_dtype(layer, *(a for _, a in arrays))
    shape = tuple(arrays[0][1].shape)
    rows = int(np.prod(shape[:-1]))
    flat = [cp.ascontiguousarray(a, dtype=dt).reshape(rows, layer.n) for _, a in arrays]
    return cp, dt, shape, rows, flat


def _launch_forward(cp: Any, layer: SPM, Xc: Any, dt: np.dtype, rows: int, keep: bool) -> tuple[Any, Any]:
    n, L = layer.n, layer.L
    pairs, _ = _device_index(cp, layer)
    params, _ = _device_operands(cp, layer, dt)
    Y = cp.empty((rows, n), dtype=dt)
    cache = cp.empty((L + 1, rows, n), dtype=dt) if keep else None
    vec = [cp.ascontiguousarray(cp.asarray(v), dtype=dt) for v in (layer.d_in, layer.d_out, layer.bias)]
    if rows:
        i64 = np.int64
        _kernel(cp, dt, "forward")((min(rows, 1 << 16),), (_threads(n),),
                                   (Xc, Y, cache, pairs, params, *vec, i64(rows), i64(n), i64(L),
                                    i64(layer.variant == "rotation")), shared_mem=n * dt.itemsize)
    return Y, cache


def spm_forward_fused(layer: SPM, X: Any) -> Any:
    r""":func:`isomat.algebra.spm.spm_forward` (farag2025 eq. 2-4) in one kernel launch: a thread block per
    batch row runs all :math:`L` stages in shared memory.

    Parameters
    ----------
    layer : SPM
        A cupy-field layer with even ``n`` (:func:`fused_unsupported` says what else).
    X : cupy.ndarray, shape (..., n)
        Float32 or float64 (the result has NumPy's promotion of ``X`` and the layer's arrays).

    Raises
    ------
    ValueError
        ``X`` not of shape ``(..., n)``, or a layer the fused kernels do not take (the reason).
    """
    cp, dt, shape, rows, (Xc,) = _prepare(layer, (("X", X),))
    Y, _ = _launch_forward(cp, layer, Xc, dt, rows, False)
    return Y.reshape(shape)


def spm_backward_fused(layer: SPM, X: Any, G: Any) -> dict[str, Any]:
    r""":func:`isomat.algebra.spm.spm_backward` (farag2025 §4, eq. 7-9, 12-19) in two launches: the fused
    forward keeping each stage's input, then a thread block per batch row running the stages in reverse
    in shared memory; parameter gradients are summed over the batch by one reduction over blocks.

    Returns the same keys as ``spm_backward``: ``"x"``, ``"params"``, ``"d_in"``, ``"d_out"``, ``"bias"``.

    Raises
    ------
    ValueError
        ``X`` or ``G`` not of shape ``(..., n)``, different shapes, or a layer the fused kernels do not take.
    """
    if tuple(getattr(X, "shape", ())) != tuple(getattr(G, "shape", ())):
        raise ValueError(f"G must have X's shape {tuple(getattr(X, 'shape', ()))}, got {tuple(getattr(G, 'shape', ()))}")
    cp, dt, shape, rows, (Xc, Gc) = _prepare(layer, (("X", X), ("G", G)))
    n, L, m = layer.n, layer.L, layer.n // 2
    _, cache = _launch_forward(cp, layer, Xc, dt, rows, True)
    per = 1 if layer.variant == "rotation" else 4
    blocks = min(rows, 1 << 16)
    contrib = cp.empty((max(blocks, 1), L * m * per), dtype=dt)
    gz0 = cp.empty((rows, n), dtype=dt)
    if rows:
        pairs, _ = _device_index(cp, layer)
        params, _ = _device_operands(cp, layer, dt)
        i64 = np.int64
        _kernel(cp, dt, "backward")((blocks,), (_threads(n),),
                                    (cache, Gc, gz0, contrib, pairs, params, cp.ascontiguousarray(cp.asarray(layer.d_out), dtype=dt),
                                     i64(rows), i64(n), i64(L), i64(layer.variant == "rotation")),
                                    shared_mem=n * dt.itemsize)
        acc = contrib.sum(axis=0)
    else:
        acc = cp.zeros(L * m * per, dtype=dt)
    d_in = cp.asarray(layer.d_in, dtype=dt)
    grads = {"bias": Gc.sum(axis=0), "d_out": (Gc * cache[L]).sum(axis=0),  # eq. (16), (17)
             "params": acc.reshape(layer.params.shape), "d_in": (gz0 * Xc).sum(axis=0),  # eq. (19)
             "x": (gz0 * d_in).reshape(shape)}  # eq. (18)
    if len(shape) == 1:
        for k in ("bias", "d_out", "d_in"):
            grads[k] = grads[k].reshape(n)
    return grads
