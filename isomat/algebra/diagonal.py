r"""A sparse matrix stored by the diagonals of its square blocks (a blocked DIA format).

A stride-1, "same"-padded convolution matrix (zhu2025 §4.2.1, Theorem 4.1) is banded inside
each (output channel, input channel) block: its entries lie on a few diagonals, one per kernel
tap. Stored by diagonals, its values need no column indices -- 8 bytes an entry in float64
instead of CSR's 12 -- and the apply becomes contiguous multiply-adds along each diagonal.
This is SciPy's DIA format applied block by block, with the blocks of a block row laid end to
end so that every diagonal is one long contiguous stream.

Layout. With block size :math:`b`, an entry :math:`(r, c)` with :math:`r = p b + i` and
:math:`c = q b + j` (:math:`0 \le i, j < b`) lies on the block diagonal :math:`k = j - i` and is
stored at ``data[p, d, c]`` where ``offsets[d] == k`` (SciPy's convention: a diagonal is indexed
by column). Positions that hold no entry are zero, so the apply can run each diagonal across
block-column boundaries without testing them: for a "virtual row" :math:`n = q b + i`,

.. math::

    z_n = \sum_d \mathrm{data}[p, d, n + k_d]\, x_{n + k_d}, \qquad
    y_{p b + i} = \sum_q z_{q b + i},

and ``data[p, d, n + k]`` is zero whenever :math:`n + k` leaves block column :math:`q`.

On the GPU (``field="cupy"``) the diagonals live on the device and the product is one CUDA
kernel (a CuPy ``RawKernel``): a thread per output row :math:`r = p b + i` sums
:math:`\mathrm{data}[p, d, q b + i + k_d]\, x_{q b + i + k_d}` over the diagonals and block
columns, so the threads of a warp read consecutive values of each diagonal (coalesced) and the
matrix streams at 8 bytes an entry in float64 where cuSPARSE's CSR reads 12 (value and int32
column index) plus the row pointers. cupyx's own ``dia_matrix`` is no substitute: its product
converts to CSC and then CSR on every call (``cupyx/scipy/sparse/_dia.py``, CuPy 14.2).
"""

from __future__ import annotations

import math
import numbers

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from .._config import get_memory_limit
from ..errors import SizeLimitError
from ..gpu import cupy_sparse, is_cupy_array, is_cupy_sparse, register_raw_kernel_source, require_cupy
from . import _threads
from ._operator import SparseOperator, _human

if TYPE_CHECKING:
    from scipy.sparse.linalg import LinearOperator
    import cupyx.scipy.sparse

try:  # SciPy's compiled DIA kernel: y[n] += data[n] * x[n] along one diagonal, GIL released
    from scipy.sparse import _sparsetools

    _DIA_KERNEL = _sparsetools.dia_matvec
except (ImportError, AttributeError):  # pragma: no cover - private API moved
    _DIA_KERNEL = None

_ZERO_OFFSET = np.zeros(1, dtype=np.int32)
_KERNEL_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)
# Rows per kernel call. Each call drops and retakes the GIL, and with two threads the handoffs
# dominate short calls; long ones spill the result tile from L2 to L3, which costs less. Measured
# on the 2048^2 benchmark matrix (apply / streaming bound, medians of 15 paired repeats): 32K rows
# 2.05, 64K 1.29, 128K 1.00, 256K 0.92, 512K 0.89; the 64->64 block behaves alike.
DEFAULT_TILE = 524288


# x is cache resident (each tile of it is read once per diagonal), so its loads are fast, and a load
# whose address lies just past a recent store's, modulo 4 KiB, waits for that store ("4K aliasing").
# Measured on the 2048^2 matrix: with x 0-2 elements past y modulo 4 KiB the apply took 13.1 ms,
# 9.7-10.4 ms at every other placement. (The data stream comes from memory and hides the stall.)
_PAGE = 4096
_ALIAS_AHEAD, _ALIAS_BEHIND = 40, 16  # bytes a load may sit past / before a store and alias it


def _aliases(store: int, loads: np.ndarray) -> bool:
    res = (loads - store) % _PAGE
    return bool(np.any((res < _ALIAS_AHEAD) | (res > _PAGE - _ALIAS_BEHIND)))


def _placed(y: np.ndarray, scratch: np.ndarray, loads: np.ndarray) -> np.ndarray:
    """``y`` itself when no load stream aliases it, else the view of ``scratch`` of the same length
    whose start is farthest from every load stream modulo 4 KiB."""
    n, size = y.shape[0], y.itemsize
    if not _aliases(y.ctypes.data, loads):
        return y
    starts = scratch.ctypes.data + size * np.arange(min(_PAGE // size, scratch.shape[0] - n + 1))
    res = (loads[None, :] - starts[:, None]) % _PAGE
    s = int(np.argmax(np.minimum(res, _PAGE - res).min(axis=1)))
    return scratch[s:s + n]


def _kernel_axpy(diag: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    """``y += diag * x`` (1-d, equal lengths, one dtype the kernel takes) in place."""
    n = diag.shape[0]
    _DIA_KERNEL(n, n, 1, n, _ZERO_OFFSET, diag, x, y)


def _numpy_axpy(diag: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    y += diag * x


def _axpy_for(dtype: np.dtype) -> Any:
    """The in-place ``y += diag * x`` for operands of ``dtype`` (chosen once per product: the
    call sits in the innermost Python loop)."""
    return _kernel_axpy if _DIA_KERNEL is not None and np.dtype(dtype).type in _KERNEL_DTYPES else _numpy_axpy


class DiagonalBlocks:
    r"""A sparse matrix stored by the diagonals of its :math:`b\times b` blocks.

    Build one with :func:`diagonal_blocks`. ``A @ x`` / :meth:`matvec` applies it on several
    threads, :meth:`rmatvec` applies :math:`A^{\mathsf T}`, :meth:`tocsr` gives the SciPy matrix
    back. In the ``cupy`` field (``data`` a CuPy array) both products run as CUDA kernels on
    CuPy arrays; :meth:`to_field` moves the storage between host and device.

    Attributes
    ----------
    shape : tuple of int
    block : int
        The block size :math:`b`.
    offsets : ndarray of int64, shape (n_diagonals,)
        The block diagonals :math:`k = j - i` that hold entries, increasing.
    data : ndarray (NumPy or CuPy), shape (n_block_rows, n_diagonals, n_block_cols * block)
        ``data[p, d, c]`` is entry :math:`(p b + (c \bmod b) - k_d,\ c)`; zero where there is none.
    nnz : int
        Stored entries of the matrix it was built from (before zero fill).
    field : {"numpy", "cupy"}
        Where ``data`` lives (the CPU, or the GPU through CuPy).
    """

    def __init__(self, shape: tuple[int, int], block: int, offsets: np.ndarray, data: np.ndarray, nnz: int):
        self.shape = (_validate.nonnegative_int("shape[0]", shape[0]), _validate.nonnegative_int("shape[1]", shape[1]))
        self.block = _validate.positive_int("block", block)
        # offsets stay on the host in both fields (a few numbers the Python loops and the checks
        # read); the device kernel gets its own copy, made once
        self.offsets = np.asarray(offsets.get() if is_cupy_array(offsets) else offsets, dtype=np.int64)
        self.field = "cupy" if is_cupy_array(data) else "numpy"
        # the kernels take contiguous storage (a CUDA RawKernel ignores strides altogether)
        self.data = (require_cupy().ascontiguousarray(data) if self.field == "cupy" else np.ascontiguousarray(data))
        self._device_offsets: Any = None
        self.nnz = _validate.nonnegative_int("nnz", nnz)
        b = self.block
        expected = (-(-self.shape[0] // b), self.offsets.size, -(-self.shape[1] // b) * b)
        if self.offsets.ndim != 1 or self.data.shape != expected:
            raise ValueError(f"data must have shape (block rows, diagonals, block columns * block) = {expected} "
                             f"for shape {self.shape}, block {b} and {self.offsets.size} offsets, got {self.data.shape}")

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def fill(self) -> float:
        """Stored values per matrix entry (1.0: no zero fill)."""
        return self.data.size / max(self.nnz, 1)

    def __repr__(self) -> str:
        where = ", field='cupy'" if self.field == "cupy" else ""
        return (f"DiagonalBlocks(shape={self.shape}, block={self.block}, diagonals={len(self.offsets)}, "
                f"nnz={self.nnz:,}, fill={self.fill:.3f}, dtype={self.dtype}{where})")

    def to_field(self, field: str) -> "DiagonalBlocks":
        """The same matrix with its diagonals in ``field`` (``"numpy"``: host, ``"cupy"``: device);
        ``self`` when already there. The values are copied once, host <-> device."""
        field = _validate.choice("field", field, ("numpy", "cupy"))
        if field == self.field:
            return self
        data = require_cupy().asarray(self.data) if field == "cupy" else self.data.get()
        return DiagonalBlocks(self.shape, self.block, self.offsets, data, self.nnz)

    def _rows_in(self, p: int) -> int:
        return min(self.block, self.shape[0] - p * self.block)

    # -----------------------------------------------------------------------------------------
    def matvec(self, x: Any, *, threads: int | None = None, out: np.ndarray | None = None,
               tile: int | None = None) -> np.ndarray:
        r""":math:`y = A x`, in tiles of ``tile`` rows on ``threads`` threads.

        Each kernel call streams one diagonal over ``tile`` consecutive (virtual) rows, with the
        GIL released; long calls keep the threads from queueing for the GIL between calls, and
        ``tile`` rows of the result stay in cache while the diagonals are summed into them. A
        result that would sit at x's address modulo 4 KiB (where the CPU stalls loads behind
        stores) is summed in a scratch placed away from x and copied out.

        Parameters
        ----------
        x : array of shape (n_cols,)
        threads : int, optional
            Default: the thread cap (``ISOMAT_NUM_THREADS``, else the usable CPUs); a larger value is capped. Work is split by row tiles (one block) or by
            block rows (several), so a single block row of several block columns uses one.
        out : ndarray of shape (n_rows,), optional
            Contiguous, of the result dtype; returned.
        tile : int, optional
            Rows per kernel call (default :data:`DEFAULT_TILE`).

        In the ``cupy`` field ``x`` (and ``out``) are CuPy arrays, the product is one CUDA kernel
        launch and ``threads`` / ``tile`` are checked but unused (the device schedules its own).
        """
        if self.field == "cupy":
            if threads is not None:
                _validate.positive_int("threads", threads)
            if tile is not None:
                _validate.positive_int("tile", tile)
            return self._device_product(x, out, transpose=False)
        x = np.asarray(x)
        if x.ndim != 1 or x.shape[0] != self.shape[1]:
            raise ValueError(f"x must have shape ({self.shape[1]},), got {x.shape}")
        nthreads = _threads.resolve(_validate.positive_int("threads", threads) if threads is not None else None)
        R = _validate.positive_int("tile", tile) if tile is not None else DEFAULT_TILE
        dtype = np.result_type(self.data.dtype, x.dtype)
        x = np.ascontiguousarray(x, dtype=dtype)
        data = self.data if self.data.dtype == dtype else self.data.astype(dtype)
        if out is None:
            y = np.empty(self.shape[0], dtype=dtype)
        elif (not isinstance(out, np.ndarray) or out.shape != (self.shape[0],) or out.dtype != dtype
              or not out.flags.c_contiguous):
            raise ValueError(f"out must be a contiguous NumPy array of shape ({self.shape[0]},) and dtype {dtype}, "
                             f"got {getattr(out, 'shape', type(out).__name__)} {getattr(out, 'dtype', '')}")
        else:
            y = out
        b, n_cols = self.block, self.shape[1]
        n_br, _, span = data.shape
        offsets = [int(k) for k in self.offsets]

        if b >= R or span == b:  # a tile of rows lies inside one block row: accumulate straight into y
            R = min(R, max(1, -(-self.shape[0] // (2 * nthreads))))  # at least two tiles a thread
            tasks = [(p, i0) for p in range(n_br) for i0 in range(0, self._rows_in(p), R)]
            groups = [tasks[t::nthreads] for t in range(nthreads)]
            zlen = 0
        else:  # tiles of whole block columns go to a scratch z, then are summed over block columns
            zlen = min(max(1, R // b) * b, span)
            # a thread owns whole block rows, so no two threads add into the same rows of y
            groups = [[(p, t0) for p in range(t, n_br, nthreads) for t0 in range(0, span, zlen)]
                      for t in range(nthreads)]
            for p in range(n_br):
                y[p * b:p * b + self._rows_in(p)] = 0

        size, x_at = np.dtype(dtype).itemsize, x.ctypes.data
        _axpy = _axpy_for(dtype)

        def loads(first: list[int]) -> np.ndarray:
            """Addresses of the x elements paired with result element 0, for each diagonal and
            each virtual-row start in ``first``."""
            return x_at + size * np.add.outer(np.asarray(first, dtype=np.int64),
                                               np.asarray(offsets, dtype=np.int64)).ravel()

        def direct(p: int, i0: int, scratch: np.ndarray) -> None:
            i1 = min(i0 + R, self._rows_in(p))
            ys = y[p * b + i0:p * b + i1]
            zs = _placed(ys, scratch, loads([q0 + i0 for q0 in range(0, span, b)]))
            zs[:] = 0
            for q0 in range(0, span, b):
                for d, k in enumerate(offsets):
                    lo, hi = max(q0 + i0, q0 - k, -k), min(q0 + i1, q0 + b - k, n_cols - k)
                    if hi > lo:
                        _axpy(data[p, d, lo + k:hi + k], x[lo + k:hi + k], zs[lo - q0 - i0:hi - q0 - i0])
            if zs is not ys:
                ys[:] = zs

        def tiled(p: int, t0: int, scratch: np.ndarray) -> None:
            t1 = min(t0 + zlen, span)
            zs = _placed(scratch[:t1 - t0], scratch, loads([t0]))
            zs[:] = 0
            for d, k in enumerate(offsets):
                lo, hi = max(t0, -k), min(t1, n_cols - k)
                if hi > lo:
                    _axpy(data[p, d, lo + k:hi + k], x[lo + k:hi + k], zs[lo - t0:hi - t0])
            rows = self._rows_in(p)
            y[p * b:p * b + rows] += zs.reshape(-1, b)[:, :rows].sum(axis=0)

        def work(group: list[tuple[int, int]]) -> None:
            # scratch for results that would alias a load stream, with a page of room to place them
            scratch = np.empty((zlen or R) + _PAGE // size, dtype=dtype)
            for p, start in group:
                (tiled if zlen else direct)(p, start, scratch)

        busy = [g for g in groups if g]
        _threads.share(work, busy, len(busy))  # the calling thread takes part: one thread fewer to wake
        return y

    def rmatvec(self, y: Any) -> np.ndarray:
        r""":math:`x = A^{\mathsf T} y` (one thread): each diagonal read once against a copy of
        the block row's part of ``y`` repeated over the block columns. In the ``cupy`` field, one
        CUDA kernel launch (a thread per column) on a CuPy ``y``."""
        if self.field == "cupy":
            return self._device_product(y, None, transpose=True)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != self.shape[0]:
            raise ValueError(f"y must have shape ({self.shape[0]},), got {y.shape}")
        dtype = np.result_type(self.data.dtype, y.dtype)
        y = y.astype(dtype, copy=False)
        data = self.data if self.data.dtype == dtype else self.data.astype(dtype)
        b, n_cols = self.block, self.shape[1]
        n_br, _, span = data.shape
        out = np.zeros(span, dtype=dtype)
        yv = np.zeros(span, dtype=dtype)
        _axpy = _axpy_for(dtype)
        for p in range(n_br):
            rows = self._rows_in(p)
            if rows < b:
                yv[:] = 0
            yv.reshape(-1, b)[:, :rows] = y[p * b:p * b + rows]
            for d, k in enumerate(int(k) for k in self.offsets):
                lo, hi = max(0, -k), min(span, n_cols - k)
                if hi > lo:
                    _axpy(data[p, d, lo + k:hi + k], yv[lo:hi], out[lo + k:hi + k])
        return out[:n_cols]

    def _device_product(self, v: Any, out: Any, *, transpose: bool) -> Any:
        """``A v`` (or ``A^T v``) in the cupy field: one launch of :func:`_device_kernel`."""
        cp = require_cupy()
        name, n_in, n_out = ("y", self.shape[0], self.shape[1]) if transpose else ("x", self.shape[1], self.shape[0])
        if not is_cupy_array(v):
            # no silent host -> device copy per product: the caller moves x once
            raise TypeError(f"{name} must be a CuPy array for a DiagonalBlocks in the cupy field, got "
                            f"{type(v).__name__} (move it with isomat.gpu.to_gpu)")
        if v.ndim != 1 or v.shape[0] != n_in:
            raise ValueError(f"{name} must have shape ({n_in},), got {tuple(v.shape)}")
        dtype = np.result_type(self.data.dtype, v.dtype)
        if dtype not in (np.float32, np.float64):
            raise TypeError(f"{name}: the device product takes float32 or float64 values, got {dtype} "
                            "(complex matrices: use the numpy field)")
        v = cp.ascontiguousarray(v, dtype=dtype)
        data = self.data if self.data.dtype == dtype else self.data.astype(dtype)
        if out is None:
            out = cp.empty(n_out, dtype=dtype)
        elif (not is_cupy_array(out) or tuple(out.shape) != (n_out,) or out.dtype != dtype
              or not out.flags.c_contiguous):
            raise ValueError(f"out must be a contiguous CuPy array of shape ({n_out},) and dtype {dtype}, "
                             f"got {getattr(out, 'shape', type(out).__name__)} {getattr(out, 'dtype', '')}")
        if n_out == 0:
            return out
        if self.offsets.size == 0:
            out.fill(0)
            return out
        if self._device_offsets is None:
            self._device_offsets = cp.asarray(self.offsets)
        i64 = np.int64
        args = (data, self._device_offsets, v, out, i64(self.shape[0]), i64(self.shape[1]), i64(self.block),
                i64(self.offsets.size), i64(data.shape[2]))
        chunk = _DEVICE_CHUNK_BYTES // np.dtype(dtype).itemsize  # block columns a chunked thread sums
        n_chunks = -(-(-(-self.shape[1] // self.block)) // chunk)
        if transpose or n_chunks <= 1:
            kernel = _device_kernel(cp, dtype, transpose)
            kernel((min(-(-n_out // 256), 1 << 20),), (256,), args + ((i64(data.shape[0]),) if transpose else ()))
            return out
        # many block columns: partial sums per chunk, then one pass adds them in a fixed order
        part = cp.empty((n_chunks, n_out), dtype=dtype)
        threads = 128
        _device_kernel(cp, dtype, "matvec_chunks")((min(-(-(n_out * n_chunks) // threads), 1 << 20),), (threads,),
                                                   args[:3] + (part,) + args[4:] + (i64(chunk),))
        _device_kernel(cp, dtype, "sum_chunks")((min(-(-n_out // threads), 1 << 20),), (threads,),
                                                (part, out, i64(n_out), i64(n_chunks)))
        return out

    def __matmul__(self, x: Any) -> np.ndarray:
        return self.matvec(x)

    def aslinearoperator(self) -> LinearOperator:
        """A ``scipy.sparse.linalg.LinearOperator`` with this matvec and rmatvec (numpy field)."""
        if self.field == "cupy":
            raise TypeError("aslinearoperator gives a SciPy (host) operator: call to_field('numpy') first")
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(self.shape, matvec=self.matvec, rmatvec=self.rmatvec, dtype=self.dtype)

    def tocsr(self) -> "sp.csr_array | cupyx.scipy.sparse.csr_matrix":
        """The matrix as a SciPy CSR array (stored zeros dropped); in the cupy field a
        ``cupyx.scipy.sparse.csr_matrix`` (converted on the host: a checking aid, not a fast path)."""
        if self.field == "cupy":
            return cupy_sparse().csr_matrix(sp.csr_matrix(self.to_field("numpy").tocsr()))
        b, (n_rows, n_cols) = self.block, self.shape
        n_br, _, span = self.data.shape
        c = np.arange(span)
        rows_l, cols_l, vals_l = [], [], []
        for p in range(n_br):
            for d, k in enumerate(self.offsets):
                local = c % b - int(k)
                keep = (local >= 0) & (local < self._rows_in(p)) & (c < n_cols) & (self.data[p, d] != 0)
                rows_l.append(p * b + local[keep])
                cols_l.append(c[keep])
                vals_l.append(self.data[p, d][keep])
        if not rows_l:
            return sp.csr_array(self.shape, dtype=self.dtype)
        A = sp.coo_array((np.concatenate(vals_l), (np.concatenate(rows_l), np.concatenate(cols_l))),
                         shape=(n_rows, n_cols))
        return A.tocsr()

    def toarray(self) -> np.ndarray:
        """Dense rendering in the field (a NumPy or CuPy array)."""
        return self.tocsr().toarray()


# The device kernels, one per value type. A thread per result entry (and, for the chunked product,
# per chunk of block columns), grid-stride so that any grid covers any size; 64-bit index arithmetic
# because data holds n_block_rows * diagonals * span values, which passes 2**31 for large layers.
# Threads of a warp take consecutive rows i of one block row, so for each diagonal d and block column
# q they read consecutive data[p, d, q b + i + k] (and x) entries: the loads coalesce, and the matrix
# streams once at 8 bytes an entry (float64).
#
# Measured on an H100 (2026-11-26; benchmarks/results/nvidia-h100-2026-11-26-*), as fractions of a
# device-to-device copy's bandwidth: with one block column (a single-channel layer) a thread per row
# summing its diagonals streams at 0.90. With many block columns (a 64 -> 64-channel layer at 256^2)
# the same thread summing all 64 x 9 streams, a block apart, reaches 0.66 (float32) / 0.76
# (float64); threads that each take one chunk of 64 bytes of block columns (16 float32 or 8 float64),
# every row of a chunk before the next, reach 0.89 / 0.90, and one more pass adds the chunks'
# partial sums. Chunks written as a stride loop over columns instead of a counted loop over block
# columns: 0.59 / 0.82; four independent sums per thread: slower. A^T y: the one-sum kernel (0.66 /
# 0.76) beat its chunked variant (0.50 / 0.78).
_MATVEC_SOURCE = r"""
extern "C" __global__ void isomat_dia_blocks_matvec_NAME(
    const T* __restrict__ data, const long long* __restrict__ offsets, const T* __restrict__ x, T* __restrict__ y,
    long long n_rows, long long n_cols, long long block, long long n_diag, long long span)
{
  const long long step = (long long)blockDim.x * gridDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n_rows; r += step) {
    const long long p = r / block, i = r - p * block;
    const T* band = data + p * n_diag * span;
    T acc = 0;
    for (long long d = 0; d < n_diag; ++d) {
      const long long j = i + offsets[d];  /* column inside each block */
      if (j < 0 || j >= block) continue;
      const T* diag = band + d * span;
      for (long long c = j; c < n_cols; c += block) acc += diag[c] * x[c];
    }
    y[r] = acc;
  }
}
"""
# The chunked product: part[h, r] sums block columns h * chunk .. (h + 1) * chunk - 1 of row r.
_MATVEC_CHUNKS_SOURCE = r"""
extern "C" __global__ void isomat_dia_blocks_matvec_chunks_NAME(
    const T* __restrict__ data, const long long* __restrict__ offsets, const T* __restrict__ x, T* __restrict__ part,
    long long n_rows, long long n_cols, long long block, long long n_diag, long long span, long long chunk)
{
  const long long n_bc = (n_cols + block - 1) / block, n_chunks = (n_bc + chunk - 1) / chunk;
  const long long step = (long long)blockDim.x * gridDim.x, total = n_rows * n_chunks;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const long long h = t / n_rows, r = t - h * n_rows;  /* chunk-major: every row of chunk 0 first */
    const long long p = r / block, i = r - p * block;
    const T* band = data + p * n_diag * span;
    const long long q0 = h * chunk, q1 = q0 + chunk < n_bc ? q0 + chunk : n_bc;
    T acc = 0;
    for (long long d = 0; d < n_diag; ++d) {
      const long long j = i + offsets[d];  /* column inside each block */
      if (j < 0 || j >= block) continue;
      const T* diag = band + d * span;
      for (long long q = q0; q < q1; ++q) {
        const long long c = q * block + j;
        if (c < n_cols) acc += diag[c] * x[c];
      }
    }
    part[h * n_rows + r] = acc;
  }
}
"""
# A^T y: a thread per column c = q b + j sums data[p, d, c] y[p b + j - k_d] over block rows p and
# diagonals d; consecutive threads read consecutive c, so these loads coalesce too.
_RMATVEC_SOURCE = r"""
extern "C" __global__ void isomat_dia_blocks_rmatvec_NAME(
    const T* __restrict__ data, const long long* __restrict__ offsets, const T* __restrict__ y, T* __restrict__ x,
    long long n_rows, long long n_cols, long long block, long long n_diag, long long span, long long n_brows)
{
  const long long step = (long long)blockDim.x * gridDim.x;
  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < n_cols; c += step) {
    const long long j = c % block;
    T acc = 0;
    for (long long d = 0; d < n_diag; ++d) {
      const long long i = j - offsets[d];  /* row inside each block */
      if (i < 0 || i >= block) continue;
      for (long long p = 0; p < n_brows; ++p) {
        const long long r = p * block + i;
        if (r >= n_rows) break;
        acc += data[(p * n_diag + d) * span + c] * y[r];
      }
    }
    x[c] = acc;
  }
}
"""
# The chunks' partial sums, added in a fixed order: a thread per result entry reads its n_chunks
# partials, a stride of n apart (consecutive threads, consecutive entries: coalesced).
_SUM_CHUNKS_SOURCE = r"""
extern "C" __global__ void isomat_dia_blocks_sum_chunks_NAME(
    const T* __restrict__ part, T* __restrict__ out, long long n, long long n_chunks)
{
  const long long step = (long long)blockDim.x * gridDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += step) {
    T acc = 0;
    for (long long h = 0; h < n_chunks; ++h) acc += part[h * n + r];
    out[r] = acc;
  }
}
"""
_KERNELS: dict[tuple, Any] = {}
#: bytes of one diagonal's values a device thread sums before handing over (see the kernels' comment)
_DEVICE_CHUNK_BYTES = 64


_SOURCES = {"matvec": _MATVEC_SOURCE, "matvec_chunks": _MATVEC_CHUNKS_SOURCE, "rmatvec": _RMATVEC_SOURCE,
            "sum_chunks": _SUM_CHUNKS_SOURCE}


def _kernel_source(dtype: Any, kind: Any) -> tuple[str, str]:
    """``(kernel name, CUDA source)`` of ``kind`` (a key of ``_SOURCES``; True / False for rmatvec /
    matvec) for ``dtype`` (float32 or float64)."""
    kind = {True: "rmatvec", False: "matvec"}.get(kind, kind)
    ctype, suffix = ("double", "f64") if np.dtype(dtype) == np.float64 else ("float", "f32")
    return f"isomat_dia_blocks_{kind}_{suffix}", f"typedef {ctype} T;\n" + _SOURCES[kind].replace("NAME", suffix)


for _dtype in (np.float32, np.float64):  # declared for the NVRTC test (tests/test_nvrtc.py)
    for _kind in _SOURCES:
        register_raw_kernel_source(*_kernel_source(_dtype, _kind))


def _device_kernel(cp: Any, dtype: np.dtype, transpose: Any) -> Any:
    """The compiled kernel for ``dtype`` (float32 or float64), made once per CuPy module
    (``transpose``: True / False, or a key of ``_SOURCES``)."""
    key = (id(cp), np.dtype(dtype).name, transpose)
    if key not in _KERNELS:
        name, source = _kernel_source(dtype, transpose)
        _KERNELS[key] = cp.RawKernel(source, name)
    return _KERNELS[key]


def diagonal_blocks(A: Any, *, block: int | None = None, max_fill: float = 1.5,
                    chunk: int = 1 << 22, field: str | None = None) -> DiagonalBlocks:
    r"""Store a sparse matrix by the diagonals of its :math:`b\times b` blocks.

    Parameters
    ----------
    A : scipy.sparse or cupyx.scipy.sparse matrix, or SparseOperator (numpy or cupy field)
        The materialized matrix, for example ``conv_matrix(...)`` (``backend="cupy"`` for one on
        the device).
    block : int, optional
        Block size :math:`b`. The default, ``max(A.shape)``, is one block: right for a
        single-channel convolution. For a multi-channel layer acting on ``(C, *spatial)`` use the
        number of spatial positions, so that each (output, input) channel block is banded.
    max_fill : float
        Refuse when the zero-filled storage would exceed ``max_fill`` values per entry -- the
        sign that ``A`` is not banded in blocks of this size (strided or "valid" convolutions,
        random sparsity).
    chunk : int
        Entries converted per vectorized step (bounds the temporary index arrays).
    field : {"numpy", "cupy"}, optional
        Where the diagonals are stored and the product runs. Default: the field of ``A`` (a
        cupyx matrix or a cupy-field operator is converted on the device, with CuPy; host input
        on the host). A host ``A`` with ``field="cupy"`` is converted on the host and its
        diagonals copied to the device once.

    Raises
    ------
    ValueError
        ``block`` not a positive integer, or the fill over ``max_fill``.
    SizeLimitError
        The stored values would exceed the memory bound (or, in the cupy field, the device's
        free memory).
    """
    if field is not None:
        field = _validate.choice("field", field, ("numpy", "cupy"))
    if isinstance(A, SparseOperator):
        if A.field == "sympy":
            raise TypeError(f"A must be a float operator (numpy or cupy field), got the {A.field} field")
        A = A.to_cupy("csr") if A.field == "cupy" and field != "numpy" else A.to_scipy("csr")
    if is_cupy_sparse(A):
        if field == "numpy":
            A = A.get()
        else:
            return _diagonal_blocks_xp(A.tocsr(), require_cupy(), block, max_fill, chunk)
    if type(A).__module__.startswith("sympy"):
        raise TypeError("A must be a float operator: a SymPy matrix holds exact entries, which the diagonal "
                        "storage does not (build it with backend='numpy')")
    if not sp.issparse(A):
        raise TypeError(f"A must be a scipy.sparse array or matrix, a cupyx.scipy.sparse matrix or a "
                        f"SparseOperator, got {type(A).__name__}")
    if field == "cupy" and A.dtype.kind == "c":  # refused before the host conversion, not after it
        raise TypeError("A: the device product takes float32 or float64 values, got a complex matrix "
                        "(use field='numpy')")
    D = _diagonal_blocks_xp(sp.csr_array(A), np, block, max_fill, chunk)
    return D.to_field("cupy") if field == "cupy" else D


def _check_storage(what: str, stored: int, itemsize: int, xp: Any, temp: int) -> None:
    """Refuse, before anything is allocated, ``stored`` values of ``itemsize`` bytes over the memory
    bound or, on the device (``xp`` CuPy), over its free memory with ``temp`` bytes of work arrays
    beside them."""
    need = stored * itemsize
    if need > get_memory_limit():
        raise SizeLimitError(
            f"{what}: storing {stored:,} values would need about {_human(need)}, over the memory "
            f"bound of {_human(get_memory_limit())} (raise it with isomat.set_memory_limit, ISOMAT_MEMORY_LIMIT or isomat export --memory-limit)")
    if xp is not np:
        # on the device the bound that bites is its free memory: refuse with the sizes rather than
        # fail with an OutOfMemoryError half-way
        free = int(xp.cuda.Device().mem_info[0])
        if need + temp > free:
            raise SizeLimitError(f"{what}: storing {stored:,} values on the GPU would need about "
                                 f"{_human(need)}, over the {_human(free)} free on the device")


def _diagonal_blocks_xp(A: Any, xp: Any, block: int | None, max_fill: float, chunk: int) -> DiagonalBlocks:
    """:func:`diagonal_blocks` of a CSR matrix ``A`` of the array module ``xp`` (NumPy or CuPy),
    written once against ``xp`` so that a device matrix is converted on the device."""
    if xp is not np and A.dtype.kind == "c":
        raise TypeError("A: the device product takes float32 or float64 values, got a complex matrix "
                        "(use field='numpy')")
    A.sum_duplicates()
    if A.dtype.kind not in "fc":
        A = A.astype(np.float64)
    n_rows, n_cols = A.shape
    b = _validate.positive_int("block", block) if block is not None else max(n_rows, n_cols, 1)
    if isinstance(max_fill, bool) or not isinstance(max_fill, numbers.Real):  # True used to pass as 1
        raise TypeError(f"max_fill must be a number >= 1 (inf: no limit), got {max_fill!r}")
    if not max_fill >= 1:  # NaN too
        raise ValueError(f"max_fill must be a number >= 1 (inf: no limit), got {max_fill!r}")
    chunk = _validate.positive_int("chunk", chunk)
    n_br, n_bc = -(-n_rows // b), -(-n_cols // b)
    indptr, indices, values = A.indptr, A.indices, A.data
    single = n_br == 1 and n_bc == 1  # one block: k = c - r, no remainders to take

    def entries(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row, column and block diagonal of stored entries lo..hi."""
        r0 = int(xp.searchsorted(indptr, lo, side="right")) - 1
        r1 = int(xp.searchsorted(indptr, hi, side="left"))
        counts = xp.diff(xp.clip(indptr[r0:r1 + 1], lo, hi))
        r = xp.repeat(xp.arange(r0, r0 + counts.size, dtype=xp.int64), counts)
        c = indices[lo:hi].astype(xp.int64)
        return r, c, (c - r if single else c % b - r % b)

    # which block diagonals hold entries (a mask over -(b-1)..b-1, or a sort when b is huge)
    use_mask = 2 * b - 1 <= max(4 * A.nnz, 1 << 20)
    present = xp.zeros(2 * b - 1, dtype=bool) if use_mask else None
    seen: list[np.ndarray] = []
    for lo in range(0, A.nnz, chunk):
        k = entries(lo, min(lo + chunk, A.nnz))[2]
        if present is not None:
            present[k + (b - 1)] = True
        else:
            seen.append(xp.unique(k))
    if present is not None:
        offsets = xp.flatnonzero(present) - (b - 1)
    else:
        offsets = xp.unique(xp.concatenate(seen)) if seen else xp.zeros(0, dtype=xp.int64)
    n_d = int(offsets.size)
    stored = n_br * n_d * n_bc * b
    if stored > max_fill * max(A.nnz, 1) and A.nnz:
        raise ValueError(
            f"A is not banded in blocks of {b}: its {A.nnz:,} entries lie on {n_d} block diagonals, "
            f"which would store {stored:,} values ({stored / A.nnz:.2f} per entry, over max_fill={max_fill}); "
            f"pass block= (for a multi-channel convolution, the number of spatial positions)")
    # the chunk's index arrays on the device: 4 int64s an entry
    _check_storage("diagonal_blocks", stored, A.dtype.itemsize, xp, 32 * min(chunk, A.nnz))
    data = xp.zeros((n_br, n_d, n_bc * b), dtype=A.dtype)
    flat = data.reshape(-1)
    span = n_bc * b
    if present is not None:  # diagonal number by table look-up (a binary search per entry is slower)
        number = xp.zeros(2 * b - 1, dtype=xp.int64)
        number[offsets + (b - 1)] = xp.arange(n_d)
    for lo in range(0, A.nnz, chunk):  # entries recomputed, not kept from the first pass: nnz int64s
        hi = min(lo + chunk, A.nnz)
        r, c, k = entries(lo, hi)
        d = number[k + (b - 1)] if present is not None else xp.searchsorted(offsets, k)
        if not single:
            d += (r // b) * n_d
        flat[d * span + c] = values[lo:hi]
    return DiagonalBlocks((n_rows, n_cols), b, offsets, data, A.nnz)


def _conv_diagonal_blocks(taps: Any, spatial: tuple[int, ...], shifts: list[tuple[int, ...]], *,
                          max_fill: float = 1.5) -> DiagonalBlocks | None:
    r"""The block-diagonal storage of a stride-1, shape-keeping, zero-boundary convolution, built
    from its kernel without the CSR matrix.

    A 64->64-channel 3x3 layer at 512x512 has 9.7e9 entries: its CSR cannot be held on a GPU (and
    CuPy's CSR breaks past :math:`2^{31}` entries), while its diagonals can. Tap :math:`t` reads
    input position :math:`o + s_t` for output position :math:`o`, so within each channel block it
    is the single block diagonal :math:`k_t = \sum_i s_{t,i} m_i` (:math:`m` the row-major strides)
    and ``data[p, d_t, q b + j] = kernel[p, q, t]`` exactly where :math:`j - s_t` (per axis) lies
    inside the image, zero elsewhere.

    Parameters
    ----------
    taps : ndarray (NumPy or CuPy), shape (C_out, C_in, n_taps)
        The kernel, taps flattened row-major; its float dtype is the storage's.
    spatial : tuple of int
        The image shape :math:`(n_1, \dots, n_d)` (input and output alike); :math:`b` is its product.
    shifts : list of tuple of int
        Per tap, the per-axis shift :math:`s_{t,i} = t_i \delta_i - \ell_i` of the position it reads.
    max_fill : float
        Refuse, as :func:`diagonal_blocks` does, storage over this many values per entry.

    Returns
    -------
    DiagonalBlocks or None
        In the field of ``taps``; equal (offsets, data, ``nnz``) to :func:`diagonal_blocks` of the
        layer's CSR matrix with ``block = b``. None when two taps that read the image share a block
        diagonal (a kernel wider than the image): the caller builds the CSR matrix then, whose
        duplicate entries :func:`diagonal_blocks` sums.

    Raises
    ------
    ValueError
        The fill over ``max_fill``.
    SizeLimitError
        Before allocating: the storage over the memory bound (or the device's free memory).
    """
    xp = require_cupy() if is_cupy_array(taps) else np
    spatial = tuple(int(n) for n in spatial)
    b = math.prod(spatial)
    strides = [math.prod(spatial[i + 1:]) for i in range(len(spatial))]
    c_out, c_in, _ = taps.shape
    # a tap shifted a whole image away along some axis reads nothing: the CSR matrix has no entry
    # of it, so no diagonal either
    present = [t for t, s in enumerate(shifts) if all(abs(si) < n for si, n in zip(s, spatial))]
    offset = {t: sum(si * m for si, m in zip(shifts[t], strides)) for t in present}
    if len(set(offset.values())) < len(present):
        return None
    order = sorted(present, key=offset.__getitem__)
    # the CSR matrix stores every tap inside the image, zero kernel values included (n - |s| per axis)
    nnz = c_out * c_in * sum(math.prod(n - abs(si) for si, n in zip(shifts[t], spatial)) for t in present)
    n_d = len(order)
    stored = c_out * n_d * c_in * b
    if stored > max_fill * max(nnz, 1) and nnz:
        raise ValueError(
            f"conv_matrix: the layer is not banded enough for format='diagonal': its {nnz:,} entries lie on "
            f"{n_d} block diagonals of blocks of {b}, which would store {stored:,} values "
            f"({stored / nnz:.2f} per entry, over max_fill={max_fill}); an image this small is mostly "
            f"border: use format='csr'")
    # beside data, one tap's values and a slice tuple at a time
    _check_storage("conv_matrix", stored, taps.dtype.itemsize, xp, c_out * c_in * taps.dtype.itemsize)
    # zeros: every position outside the image stays zero (calloc'd on the host: untouched pages are free)
    data = xp.zeros((c_out, n_d, c_in * b), dtype=taps.dtype)
    grid = data.reshape((c_out, n_d, c_in) + spatial)  # a view: the block column's positions as the image
    lift = (slice(None), slice(None)) + (None,) * len(spatial)
    for d, t in enumerate(order):
        # column position j (per axis) holds the entry of output position j - s: inside for
        # max(0, s) <= j < n + min(0, s). Written in place from the small (C_out, C_in) tap: nothing
        # of data's size is made twice
        inside = tuple(slice(max(0, si), n + min(0, si)) for si, n in zip(shifts[t], spatial))
        grid[(slice(None), d, slice(None)) + inside] = taps[:, :, t][lift]
    offsets = np.array([offset[t] for t in order], dtype=np.int64)
    return DiagonalBlocks((c_out * b, c_in * b), b, offsets, data, nnz)


__all__ = ["DiagonalBlocks", "diagonal_blocks"]
