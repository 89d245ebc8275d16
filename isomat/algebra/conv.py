r"""Convolution layers as exact sparse matrices (zhu2025 §4.2.1, Theorem 4.1 and Appendix A.1).

A convolution layer with kernel :math:`k\in\mathbb{R}^{C_{out}\times C_{in}\times k_1\times\cdots\times k_d}`
(cross-correlation, exactly as ``torch.nn.functional.conv{1,2,3}d``) maps the row-major
flattened input :math:`x=\operatorname{vec}(X)`, :math:`X\in\mathbb{R}^{C_{in}\times n_1\times\cdots\times n_d}`,
to the row-major flattened output :math:`\operatorname{vec}(Y)`,

.. math::

    Y_{c,o_1,\dots,o_d} = \sum_{c'}\sum_{t_1,\dots,t_d} k_{c,c',t_1,\dots,t_d}\,
        X_{c',\,o_1 s_1 - \ell_1 + t_1\delta_1,\;\dots,\;o_d s_d - \ell_d + t_d\delta_d},

with stride :math:`s`, low padding :math:`\ell`, dilation :math:`\delta`; an index outside
:math:`[0, n_i)` reads zero (``boundary="zero"``) or wraps modulo :math:`n_i`
(``boundary="circular"``, as ``padding_mode="circular"``). Output size per axis:
:math:`\lfloor (n_i+\ell_i+h_i-\delta_i(k_i-1)-1)/s_i\rfloor + 1`.

For a 2-d single-channel kernel the matrix is a sum over taps of Kronecker products of
shift (selection) matrices, :math:`W=\sum_{a,b} k_{ab}\,S^{(1)}_a\otimes S^{(2)}_b` with
:math:`(S^{(i)}_t)_{o,j}=[\,j = o s_i-\ell_i+t\delta_i\,]` (row-major vec, conventions.md):
:func:`conv_kron_factors` returns these factors and :func:`conv_apply` applies the same sum
matrix-free (each :math:`S_a X S_b^{\mathsf T}` is a strided slice).

The paper's own :math:`W_{conv}` of §4.2.1, with flattened offsets :math:`N_0` and its formula
for :math:`P`, is :func:`zhu_conv_matrix`.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from . import _backend, _stencil, _threads
from ..gpu import cupy_sparse
from ._operator import (DEVICE_FILL_SCRATCH_PER_TAP, SparseOperator, check_bytes, check_size, estimate_bytes, render,
                        value_bytes)

_BOUNDARIES = ("zero", "circular", "reflect", "replicate")
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")  # torch's padding_mode names
_IM2COL_BYTES = 256 * 2**20  # largest stacked-shifts buffer conv_apply builds; above it, one GEMM per tap
#: the stacked shifts are built and multiplied a block of output rows at a time, blocks of about this
#: size, which the GEMM reads back from the cache; the blocks go to isomat's workers, each with BLAS
#: on one thread.  Measured float64, 64->64 3x3 at 56^2 (a 14 MB stack): one thread, 0.93x the time
#: of one stack (at 128^2 0.90-0.95x; 16 MiB blocks gained nothing); two cores, 3.3-4.0 ms against
#: 3.7-6.4 ms for one stack and one two-thread GEMM, whose BLAS worker spun through the serial stack.
_IM2COL_BLOCK_BYTES = 4 * 2**20
_SCRATCH = threading.local()


def _scratch(size: int, dtype: Any) -> np.ndarray:
    """A flat per-thread work array of at least ``size`` values, kept between calls: a fresh 75 MB
    buffer costs ~8 ms of page faults per call, a third of a 64->64 conv_apply at 128x128 (measured).
    One a little larger is reused (calls whose stack blocks change with the BLAS thread count
    would otherwise trade buffers); one over 4x the need plus 16 MiB is dropped for a new one."""
    dtype = np.dtype(dtype)
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or buf.dtype != dtype or not size <= buf.size <= 4 * size + (16 << 20) // dtype.itemsize:
        _SCRATCH.buf = None  # drop the old one before allocating
        _SCRATCH.buf = buf = np.empty(size, dtype=dtype)
    return buf[:size]


# ---------------------------------------------------------------------------------------------
# argument handling
# ---------------------------------------------------------------------------------------------
def _boundary(boundary: Any, padding_mode: Any) -> Any:
    """``boundary``, or torch's ``padding_mode`` spelling of it (``"zeros"`` is isomat's ``"zero"``);
    ``"zero"`` when neither is given. Both at once is refused, even when they agree: one name for
    one option. The value itself is checked by the plan (``boundary``) or here (``padding_mode``)."""
    if padding_mode is None:
        return "zero" if boundary is None else boundary
    if boundary is not None:
        raise ValueError(f"boundary={boundary!r} and padding_mode={padding_mode!r} are both given: padding_mode is "
                         f"torch's name for boundary, pass only one of them")
    mode = _validate.choice("padding_mode", padding_mode, _PADDING_MODES)
    return "zero" if mode == "zeros" else mode


def _kernel_values(kernel: Any, field: str) -> Any:
    if kernel is None:
        raise TypeError("kernel must be an array of shape (C_out, C_in, k1, ..., kd), got None")
    if isinstance(kernel, (str, bytes)):
        raise TypeError(f"kernel must be an array of shape (C_out, C_in, k1, ..., kd), got {kernel!r}")
    vals = _backend.as_values(kernel, field, name="kernel")
    if vals.ndim == 0:
        raise ValueError("kernel must be an array of shape (C_out, C_in, k1, ..., kd) or (k1, ..., kd), got a scalar")
    if any(s == 0 for s in vals.shape):
        raise ValueError(f"kernel must have no empty axis, got shape {tuple(vals.shape)}")
    return vals


def _geometry(input_shape: Any, kshape: tuple[int, ...],
              groups: int = 1) -> tuple[int, int, int, tuple[int, ...], tuple[int, ...], bool]:
    """(d, C_in, C_out, spatial, ktaps, single_channel) from input_shape and the kernel's shape
    (``(C_out, C_in / groups, k1, ..., kd)``, as torch)."""
    shape = _validate.shape("input_shape", input_shape)
    if len(kshape) == len(shape):  # single channel: kernel (k1..kd) on input (n1..nd)
        if len(shape) >= 3 and kshape[0] == shape[0]:
            # (3, 32, 32) with a (3, 3, 3) kernel: one 3-d volume, or 3 channels of a 2-d layer whose kernel
            # lacks its C_out axis? torch's layout makes the leading axis channels; refuse rather than guess
            k, n = tuple(kshape), shape
            raise ValueError(
                f"kernel of shape {k} on input_shape {n} reads two ways: a single-channel {len(n)}-d convolution, or a "
                f"{len(n) - 1}-d convolution over C_in = {n[0]} channels whose kernel lacks its C_out axis. Pass the "
                f"kernel as (C_out, {n[0]}, {', '.join(map(str, k[1:]))}) for the channels, or as "
                f"{(1, 1) + k} with input_shape {(1,) + n} for the single-channel {len(n)}-d convolution")
        if groups != 1:
            raise ValueError(f"groups must be 1 for a single-channel kernel of shape {tuple(kshape)}, got {groups}")
        return len(shape), 1, 1, shape, tuple(kshape), True
    if len(kshape) == len(shape) + 1 and len(shape) >= 2:
        c_out, c_in = kshape[0], kshape[1] * groups
        if c_in != shape[0]:
            if groups == 1:
                raise ValueError(
                    f"kernel has C_in = {c_in} input channels (shape {tuple(kshape)}) but input_shape "
                    f"{shape} has {shape[0]} channels; expected kernel.shape[1] == input_shape[0]"
                )
            raise ValueError(
                f"kernel has {kshape[1]} input channels per group (shape {tuple(kshape)}) but input_shape "
                f"{shape} has {shape[0]} channels; expected kernel.shape[1] * groups == input_shape[0] (groups={groups})"
            )
        if c_out % groups:
            raise ValueError(f"groups={groups} must divide the kernel's C_out = {c_out} (shape {tuple(kshape)})")
        return len(shape) - 1, c_in, c_out, shape[1:], tuple(kshape[2:]), False
    raise ValueError(
        f"kernel of shape {tuple(kshape)} does not fit input_shape {shape}: expected a kernel "
        f"(C_out, C_in, k1, ..., kd) with input_shape (C_in, n1, ..., nd), or a kernel (k1, ..., kd) "
        f"with input_shape (n1, ..., nd)"
    )


def _padding(padding: Any, d: int, ktaps: tuple[int, ...], dilation: tuple[int, ...],
             stride: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(padding, str):
        _validate.choice("padding", padding, ("valid", "same"))
        if padding == "valid":
            return (0,) * d, (0,) * d
        if any(s != 1 for s in stride):
            raise ValueError(f"padding='same' needs stride 1 on every axis (as torch), got stride {stride}")
        total = tuple(dl * (k - 1) for dl, k in zip(dilation, ktaps))
        lo = tuple(t // 2 for t in total)
        return lo, tuple(t - l for t, l in zip(total, lo))
    pad = _validate.int_tuple("padding", padding, d, minimum=0)
    return pad, pad


def _row_range(rows: Any, n_rows: int) -> tuple[int, int]:
    if rows is None:
        return 0, n_rows
    if isinstance(rows, slice):
        start, stop, step = rows.indices(n_rows)
        if step != 1:
            raise ValueError(f"rows must be a slice with step 1, got step {rows.step}")
        return start, max(start, stop)
    if isinstance(rows, (tuple, list)) and len(rows) == 2:
        start = _validate.nonnegative_int("rows[0]", rows[0])
        stop = _validate.nonnegative_int("rows[1]", rows[1])
        if not start <= stop <= n_rows:
            raise ValueError(f"rows must satisfy 0 <= start <= stop <= {n_rows} (output rows), got {(start, stop)}")
        return start, stop
    raise TypeError(f"rows must be None, a slice or a (start, stop) pair, got {rows!r} ({type(rows).__name__})")


class _Plan:
    """Validated geometry of one convolution (shared by the matrix, the factors and the apply)."""

    def __init__(self, input_shape, kshape, stride, padding, dilation, boundary, *, depthwise=False, groups=1,
                 extra_hi=None):
        if depthwise:
            shape = _validate.shape("input_shape", input_shape)
            self.d = len(kshape)
            if len(shape) == self.d:
                self.c_in, self.spatial = 1, shape
            elif len(shape) == self.d + 1:
                self.c_in, self.spatial = shape[0], shape[1:]
            else:
                raise ValueError(f"input_shape {shape} must have {self.d} or {self.d + 1} entries for a {self.d}-d window")
            self.c_out, self.ktaps, self.single = self.c_in, tuple(kshape), len(shape) == self.d
            self.groups = self.c_in  # a window per channel
        else:
            self.groups = _validate.positive_int("groups", groups)
            self.d, self.c_in, self.c_out, self.spatial, self.ktaps, self.single = _geometry(input_shape, kshape, self.groups)
        d = self.d
        self.depthwise = depthwise
        self.cpg = self.c_in // self.groups  # input channels each output channel reads
        self.opg = self.c_out // self.groups  # output channels per group
        self.stride = _validate.int_tuple("stride", stride, d, minimum=1)
        self.dilation = _validate.int_tuple("dilation", dilation, d, minimum=1)
        # torch's padding_mode spells the zero boundary "zeros": accepted as the same
        boundary = "zero" if isinstance(boundary, str) and boundary == "zeros" else boundary
        self.boundary = _validate.choice("boundary", boundary, _BOUNDARIES)
        self.lo, self.hi = _padding(padding, d, self.ktaps, self.dilation, self.stride)
        if self.boundary == "reflect":  # torch: "Padding size should be less than the corresponding input dimension"
            for i in range(d):
                if max(self.lo[i], self.hi[i]) >= self.spatial[i]:
                    raise ValueError(f"boundary='reflect' needs padding < the input size along each axis (as torch's "
                                     f"padding_mode='reflect'), got padding ({self.lo[i]}, {self.hi[i]}) for size "
                                     f"{self.spatial[i]} along spatial axis {i}")
        if extra_hi is not None:  # pooling's ceil_mode: windows may run past the padded input
            self.hi = tuple(h + e for h, e in zip(self.hi, extra_hi))
        out = []
        for i in range(d):
            span = self.spatial[i] + self.lo[i] + self.hi[i] - self.dilation[i] * (self.ktaps[i] - 1)
            if span < 1:
                raise ValueError(
                    f"kernel extent {self.dilation[i] * (self.ktaps[i] - 1) + 1} (dilation {self.dilation[i]}) is larger "
                    f"than the padded input {self.spatial[i] + self.lo[i] + self.hi[i]} along spatial axis {i}"
                )
            out.append((span - 1) // self.stride[i] + 1)
        self.out = tuple(out)
        self.n_in = self.c_in * math.prod(self.spatial)
        self.n_out = self.c_out * math.prod(self.out)
        self.K = math.prod(self.ktaps)

    def axis_taps(self, o: np.ndarray, i: int, xp: Any) -> tuple[Any, Any]:
        """Input index (len(o) x k_i) along axis i and its validity mask (None when circular)."""
        t = xp.arange(self.ktaps[i], dtype=xp.int64) * self.dilation[i]
        idx = o.astype(xp.int64)[:, None] * self.stride[i] - self.lo[i] + t[None, :]
        n = self.spatial[i]
        if self.boundary == "circular":
            return idx % n, None
        if self.boundary == "replicate":  # the edge value repeated (torch's padding_mode="replicate", NumPy "edge")
            return xp.clip(idx, 0, n - 1), None
        if self.boundary == "reflect":  # mirrored without repeating the edge (torch's "reflect"), period 2(n - 1)
            if n == 1:
                return xp.zeros_like(idx), None
            r = idx % (2 * n - 2)
            return xp.where(r < n, r, 2 * n - 2 - r), None
        return idx, (idx >= 0) & (idx < n)


def _axis_tap_bytes(n_out: int, taps: int) -> int:
    """Bytes :meth:`_Plan.axis_taps` holds for ``n_out`` outputs of ``taps`` taps: the positions, the
    int64 index matrix and its temporaries, the boolean mask and its two comparisons."""
    return 8 * n_out * (2 + 3 * taps)


_BLOCK_ENTRIES = 1 << 17  # entries (before masking) generated per block: cache-sized
# On the device a block is a handful of kernel launches and a synchronizing mask compaction, whatever
# its size: cache-sized blocks made the 8192^2 build 4,600 blocks long (7.8 s on an H100, 2026-11-26).
_DEVICE_BLOCK_ENTRIES = 1 << 24
#: workers forced on the NumPy fill whatever the thread cap (0: the cap decides), set only by
#: :func:`_paths_at_small_sizes`
_FORCE_THREADS = 0
#: the largest extent the builder stores in int32 indices (its columns, rows and stored entries all at most this:
#: int32, else int64); a check sets it small (:func:`_paths_at_small_sizes`) so the int64 path runs at small sizes
_INT32_MAX = int(np.iinfo(np.int32).max)


def _index_dtype(*extents: int) -> np.dtype:
    """The builder's index dtype: int32 when every extent is at most :data:`_INT32_MAX`, else int64."""
    return np.dtype(np.int32) if max((int(e) for e in extents), default=0) <= _INT32_MAX else np.dtype(np.int64)


@contextlib.contextmanager
def _paths_at_small_sizes(*, block_entries: int = 8, threads: int = 2, int32_max: int = 0):
    """Run the builder's size-dependent paths at small sizes, for a check (zhu2025's binding checks):
    blocks of ``block_entries`` entries (many blocks, several per output channel, on the host and the
    device), the fill on ``threads`` workers whatever the thread cap, and int64 indices wherever an extent
    (columns, output rows, stored entries) exceeds ``int32_max`` (0: always). Restored on exit.
    Not thread-safe: module state, for a check run in one thread."""
    global _BLOCK_ENTRIES, _DEVICE_BLOCK_ENTRIES, _FORCE_THREADS, _INT32_MAX
    saved = _BLOCK_ENTRIES, _DEVICE_BLOCK_ENTRIES, _FORCE_THREADS, _INT32_MAX
    _BLOCK_ENTRIES = _DEVICE_BLOCK_ENTRIES = block_entries
    _FORCE_THREADS, _INT32_MAX = threads, int32_max
    try:
        yield
    finally:
        _BLOCK_ENTRIES, _DEVICE_BLOCK_ENTRIES, _FORCE_THREADS, _INT32_MAX = saved


def _counts(plan: _Plan, r0: int, r1: int, xp: Any) -> Any:
    """Stored entries of each output row in [r0, r1) (exact, before building anything)."""
    grid = xp.ones((1,), dtype=xp.int64)
    for i in range(plan.d):
        o = xp.arange(plan.out[i], dtype=xp.int64)
        _, valid = plan.axis_taps(o, i, xp)
        c = xp.full(plan.out[i], plan.ktaps[i], dtype=xp.int64) if valid is None else valid.sum(axis=1)
        grid = (grid[:, None] * c[None, :]).reshape(-1)
    per_plane = grid * plan.cpg
    plane = per_plane.shape[0]
    c0, c1 = r0 // plane, -(-r1 // plane)
    allc = xp.tile(per_plane, max(c1 - c0, 0))
    return allc[r0 - c0 * plane: r1 - c0 * plane]


def _blocks(plan: _Plan, r0: int, r1: int, xp: Any):
    """Yield (row_lo, row_hi, co, make) for consecutive blocks of output rows in [r0, r1);
    ``make()`` returns (cols, mask) of the block.

    ``cols`` is (rows, C*K) -- every tap of every row, rows outer, (channel, taps) inner -- and
    ``mask`` (rows, C*K) marks the taps inside the input (None when all are: circular boundary
    or an interior block). A block never spans two output channels.
    """
    d = plan.d
    line = math.prod(plan.out[1:])  # rows per line (co, o_0)
    plane = plan.out[0] * line
    CK = plan.cpg * plan.K
    dt = _index_dtype(plan.n_in, plan.n_out)
    in_strides = [math.prod(plan.spatial[i + 1:]) for i in range(d)]
    n_sp = math.prod(plan.spatial)
    # trailing axes: per-axis index and validity over their whole output range (small)
    tails = [plan.axis_taps(xp.arange(plan.out[i], dtype=xp.int64), i, xp) for i in range(1, d)]
    lines_per_block = max(1, (_BLOCK_ENTRIES if xp is np else _DEVICE_BLOCK_ENTRIES) // max(1, line * CK))
    C = plan.cpg
    nd = 1 + (d - 1) + 1 + d

    def place(arr, out_axis, k_axis):
        shp = [1] * nd
        shp[out_axis] = arr.shape[0]
        shp[k_axis] = arr.shape[1]
        return arr.reshape(shp)

    def make(row, hi, co, l0, l1, scratch=None):
        idx0, val0 = plan.axis_taps(xp.arange(l0, l1, dtype=xp.int64), 0, xp)
        nl = l1 - l0
        # shape (lines, o_1..o_{d-1}, C, k_0..k_{d-1}): rows outer, (channel, taps) inner
        chan = ((co // plan.opg) * plan.cpg + xp.arange(plan.cpg, dtype=xp.int64)) * n_sp  # the group's inputs
        shp = [1] * nd
        shp[d] = chan.shape[0]
        terms = [chan.astype(dt).reshape(shp), place((idx0 * in_strides[0]).astype(dt), 0, d + 1)]
        valids = [] if val0 is None else [place(val0, 0, d + 1)]
        allvalid = val0 is None or bool(val0.all())
        for i in range(1, d):
            idx, val = tails[i - 1]
            terms.append(place((idx * in_strides[i]).astype(dt), i, d + 1 + i))
            if val is not None:
                valids.append(place(val, i, d + 1 + i))
                allvalid = allvalid and bool(val.all())
        full = (nl,) + plan.out[1:] + (C,) + plan.ktaps
        size = nl * line * CK
        # only the last (full-size) operation writes, into a reused per-thread buffer when given
        acc = terms[0]
        for t in terms[1:-1]:
            acc = acc + t
        out_c = xp.empty(full, dtype=dt) if scratch is None else scratch["cols"][:size].reshape(full)
        xp.add(acc, terms[-1], out=out_c)
        mask = None
        if not allvalid:
            out_m = xp.empty(full, dtype=bool) if scratch is None else scratch["mask"][:size].reshape(full)
            if len(valids) == 1:
                out_m[...] = valids[0]
            else:
                m = valids[0]
                for v in valids[1:-1]:
                    m = m & v
                xp.logical_and(m, valids[-1], out=out_m)
            mask = out_m.reshape(nl * line, CK)
        start = co * plane + l0 * line
        a, b = row - start, hi - start
        return out_c.reshape(nl * line, CK)[a:b], (None if mask is None else mask[a:b])

    row = r0
    while row < r1:
        co, rest = divmod(row, plane)
        l0 = rest // line
        l1 = min(plan.out[0], l0 + lines_per_block)
        hi = min(r1, co * plane + l1 * line)
        yield row, hi, co, (lambda scratch=None, row=row, hi=hi, co=co, l0=l0, l1=l1: make(row, hi, co, l0, l1, scratch))
        row = hi


def _fill(plan: _Plan, kflat: Any, r0: int, r1: int, field: str, xp: Any, threads: int):
    """(indptr, cols, values) of output rows [r0, r1), blocks filled in parallel (NumPy)."""
    counts = _counts(plan, r0, r1, xp)
    R = r1 - r0
    total = int(counts.sum()) if R else 0
    # one dtype for the row pointer and the columns (SciPy and CuPy keep them alike): int64 when the columns, the
    # rows or the stored entries pass int32 (columns alone in int32 once made the row pointer of a layer with
    # 2^31 entries wrap when it was cast to theirs)
    idt = _index_dtype(plan.n_in, plan.n_out, total)
    indptr = xp.zeros(R + 1, dtype=idt)
    if R:
        indptr[1:] = xp.cumsum(counts)
    cols = xp.empty(total, dtype=idt)
    vals = np.empty(total, dtype=object) if field == "sympy" else xp.empty(total, dtype=kflat.dtype)
    ip_host = _backend.to_numpy(indptr) if field == "cupy" else indptr

    local = threading.local()
    CK = plan.cpg * plan.K
    cap = max(1, _BLOCK_ENTRIES // CK + math.prod(plan.out[1:])) * CK  # entries of the largest block

    def scratch_for(co):
        if field != "numpy":
            return None
        sc = getattr(local, "sc", None)
        if sc is None:
            sc = local.sc = {"cols": np.empty(cap + CK * math.prod(plan.out[1:]), dtype=cols.dtype),
                             "mask": np.empty(cap + CK * math.prod(plan.out[1:]), dtype=bool), "co": None}
        if sc["co"] != co:
            kv = kflat[0] if kflat.shape[0] == 1 else kflat[co]
            sc["vals"] = np.ascontiguousarray(np.broadcast_to(kv, (len(sc["cols"]) // CK, CK))).reshape(-1)
            sc["co"] = co
        return sc

    def work(blk):
        lo, hi, co, make = blk
        sc = scratch_for(co)
        c, m = make(sc)
        p0, p1 = int(ip_host[lo - r0]), int(ip_host[hi - r0])
        kv = kflat[0] if kflat.shape[0] == 1 else kflat[co]
        if m is None:
            cols[p0:p1].reshape(c.shape)[...] = c
            vals[p0:p1].reshape(c.shape)[...] = kv
        elif sc is not None:
            mf = m.reshape(-1)
            np.compress(mf, c.reshape(-1), out=cols[p0:p1])
            np.compress(mf, sc["vals"][:mf.shape[0]], out=vals[p0:p1])
        else:
            cols[p0:p1] = c[m]
            vals[p0:p1] = (np if field == "sympy" else xp).broadcast_to(kv, c.shape)[m]

    blocks = _blocks(plan, r0, r1, xp)
    if field == "numpy" and threads > 1:
        for _ in _pool(threads).map(work, blocks):
            pass
    else:
        for blk in blocks:
            work(blk)
    return indptr, cols, vals


def _max_entries(plan: _Plan, R: int) -> int:
    return R * plan.cpg * plan.K


def _check_stored(plan: _Plan, r0: int, r1: int, field: str, staging: bool, what: str = "conv_matrix",
                  scratch: int = 0) -> None:
    """Refuse before anything proportional to the output exists. The stored entries factor over the
    axes (taps inside the input along each axis), so their number costs O(sum of the axis lengths)."""
    per_plane = 1
    for i in range(plan.d):
        if plan.out[i] * plan.ktaps[i] > 1 << 22:  # a long axis: its upper bound (no per-tap mask built)
            per_plane *= plan.out[i] * plan.ktaps[i]
            continue
        _, valid = plan.axis_taps(np.arange(plan.out[i], dtype=np.int64), i, np)
        per_plane *= plan.out[i] * plan.ktaps[i] if valid is None else int(valid.sum())
    bound = min(plan.c_out * plan.cpg * per_plane, (r1 - r0) * plan.cpg * plan.K)
    check_size(what, (r1 - r0, plan.n_in), bound, field=field, staging=staging, device_scratch=scratch)


def _build(plan: _Plan, kflat: Any, rows: Any, field: str, format: str, threads: int | None = None) -> Any:
    r0, r1 = _row_range(rows, plan.n_out)
    shape = (r1 - r0, plan.n_in)
    xp = _backend.array_module(field)
    # The CSR paths fill indptr/indices/data in place, with no COO staging arrays: the NumPy one
    # always, the device one where rows come out sorted and duplicate-free (zero boundary).
    direct_csr = format == "csr" and (field == "numpy" or (field == "cupy" and plan.boundary == "zero"))
    staging = not direct_csr
    scratch = DEVICE_FILL_SCRATCH_PER_TAP * min(_DEVICE_BLOCK_ENTRIES, _max_entries(plan, r1 - r0))
    _check_stored(plan, r0, r1, field, staging, scratch=scratch)
    nnz = int(_counts(plan, r0, r1, xp).sum()) if r1 > r0 else 0
    check_size("conv_matrix", shape, nnz, field=field, staging=staging, device_scratch=scratch)
    nthreads = _FORCE_THREADS or _threads.resolve(threads)
    indptr, cols, vals = _fill(plan, kflat, r0, r1, field, xp, nthreads)
    if field == "cupy" and direct_csr:
        # rows in order, each row's columns increasing and distinct: the CSR as filled is canonical.
        # Through COO (int64 row ids, a lexsort in sum_duplicates) the build held 68.5 bytes an entry
        # at its peak on an H100, this path the CSR's own 12-16 plus a block's scratch.
        return cupy_sparse().csr_matrix((vals, cols, indptr), shape=shape)
    if field == "numpy" and format == "csr":
        A = sp.csr_array((vals, cols, indptr), shape=shape, copy=False)
        if plan.boundary != "zero":
            # wrapped, mirrored or clamped taps may land on one column twice (and out of order): sum them
            A.has_sorted_indices = False
            A.sum_duplicates()
        else:
            A.has_sorted_indices = True
            A.has_canonical_format = True
        return A
    counts = xp.diff(indptr)
    rws = xp.repeat(xp.arange(r1 - r0, dtype=xp.int64), counts.astype(xp.int64))
    op = SparseOperator.build(shape, rws, cols, vals, field)
    return render(op, format)


# ---------------------------------------------------------------------------------------------
# public constructions
# ---------------------------------------------------------------------------------------------
def conv_matrix(input_shape: Any, kernel: Any, *, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                boundary: str | None = None, groups: int = 1, rows: Any = None, backend: str | None = None,
                format: str = "csr", threads: int | None = None, padding_mode: str | None = None) -> Any:
    r"""The exact sparse matrix of an N-d convolution layer (zhu2025 §4.2.1, Theorem 4.1).

    Cross-correlation as ``torch.nn.functional.conv1d/conv2d/conv3d``:
    :math:`\operatorname{vec}(Y) = W\operatorname{vec}(X)` with row-major ``vec`` of the
    input :math:`(C_{in}, n_1,\dots,n_d)` and output :math:`(C_{out}, o_1,\dots,o_d)`,

    .. math::

        W_{(c,o),(c',j)} = \sum_{t:\; j_i = o_i s_i-\ell_i+t_i\delta_i\ \forall i} k_{c,c',t}

    (indices taken modulo :math:`n_i` for ``boundary="circular"``, mirrored for ``"reflect"``, clamped
    for ``"replicate"``: torch's ``padding_mode``).

    Parameters
    ----------
    input_shape : tuple of int
        ``(C_in, n1, ..., nd)``; or ``(n1, ..., nd)`` for a single-channel kernel ``(k1, ..., kd)``.
    kernel : array
        ``(C_out, C_in / groups, k1, ..., kd)`` (or ``(k1, ..., kd)``): NumPy/CuPy array (float
        result) or SymPy matrix / object array of symbols or rationals (exact result).
    stride, dilation : int or tuple of int
        Positive, one per spatial axis.
    padding : int, tuple of int, "valid" or "same"
        Symmetric padding per axis; "same" pads ``dilation*(k-1)`` in total, the extra one on the
        high side, as torch (stride 1 only).
    boundary : {"zero", "circular", "reflect", "replicate"}, default "zero"
        Value read outside the input, as torch's ``padding_mode`` (``"zeros"``, ``"circular"``,
        ``"reflect"``, ``"replicate"``): zero, the periodic continuation, the mirror image without
        repeating the edge (padding must be smaller than the input, as in torch), or the edge value.
        torch's ``"zeros"`` is accepted as ``"zero"``.
    groups : int
        As torch: the channels split into ``groups`` groups, output channel ``c`` reading only
        the input channels of group ``c // (C_out / groups)`` (``groups = C_in``: depthwise).
        The matrix is then block diagonal over the groups.
    rows : slice or (start, stop), optional
        Build only these output rows (a row block of shape ``(stop - start, n_in)``), without
        building the rest; stacking the blocks gives the whole matrix.
    backend : {"sympy", "numpy", "cupy"}, optional
        Field; default: the kernel's.
    format : {"csr", "csc", "coo", "operator", "diagonal"}
        ``"diagonal"``: float only, the values stored by the diagonals of each channel block
        (:class:`isomat.algebra.DiagonalBlocks` with ``block = prod(n)``), for fast repeated
        products; a stride-1 convolution whose output keeps the input's spatial shape
        (``padding="same"``) is banded so, and any other is refused. For a float32/float64
        layer with ``boundary="zero"``, ``groups=1``, no ``rows``, stride 1 and output shape =
        input shape, the diagonals are built directly from the kernel (one per kernel tap that
        reads the image) and no CSR matrix is built, so a layer whose CSR would not fit in memory
        can still be stored; the storage is refused before allocation when over the memory bound
        (in the cupy field, also the device's free memory). Otherwise -- or when two taps share a
        diagonal, a kernel wider than the image -- the CSR matrix is built and converted by
        :func:`isomat.algebra.diagonal_blocks`. Both give the same storage and ``nnz`` (kernel
        zeros count as entries, as in the CSR matrix). In the cupy field the diagonals are built
        and stored on the device, and the product is a CUDA kernel.
    threads : int, optional
        Threads filling row blocks of a NumPy result (default: ``ISOMAT_NUM_THREADS``, else the usable CPUs).
    padding_mode : {"zeros", "reflect", "replicate", "circular"}, optional
        torch's spelling of ``boundary`` (``nn.Conv2d(..., padding_mode=...)``): the same option
        under torch's name and values. Give ``boundary`` or ``padding_mode``, not both.

    Returns
    -------
    matrix
        ``(C_out * prod(o), C_in * prod(n))``.

    Examples
    --------
    >>> import numpy as np
    >>> conv_matrix((3,), np.array([1.0, 2.0]), padding=0).toarray()
    array([[1., 2., 0.],
           [0., 1., 2.]])
    """
    boundary = _boundary(boundary, padding_mode)
    field = _backend.resolve_field(backend, kernel)
    k = _kernel_values(kernel, field)
    plan = _Plan(input_shape, tuple(k.shape), stride, padding, dilation, boundary, groups=groups)
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator", "diagonal"))
    if format == "diagonal" and field == "sympy":
        raise ValueError(f"format='diagonal' stores float values; the kernel gives the {field} field")
    kflat = k.reshape(plan.c_out, plan.cpg * plan.K)
    threads = _validate.threads(threads)
    if format == "diagonal":
        # imported here: diagonal.py's module imports reach back into this package
        from .diagonal import _conv_diagonal_blocks, diagonal_blocks

        if _direct_diagonal(plan, kflat, rows):
            shifts = [tuple(ti * dl - lo for ti, dl, lo in zip(t, plan.dilation, plan.lo))
                      for t in itertools.product(*(range(k) for k in plan.ktaps))]
            D = _conv_diagonal_blocks(kflat.reshape(plan.c_out, plan.c_in, plan.K), plan.spatial, shifts)
            if D is not None:
                return D
        return diagonal_blocks(_build(plan, kflat, rows, field, "csr", threads), block=math.prod(plan.spatial))
    return _build(plan, kflat, rows, field, format, threads)


def _direct_diagonal(plan: _Plan, kflat: Any, rows: Any) -> bool:
    """Whether ``format="diagonal"`` can be built straight from the kernel, without the CSR matrix:
    a whole (``rows`` None), ungrouped, zero-boundary, stride-1 layer whose output keeps the input's
    spatial shape, with float32/float64 values. Each tap is then one block diagonal of every channel
    block (unless taps collide: :func:`~isomat.algebra.diagonal._conv_diagonal_blocks` says so)."""
    return (rows is None and plan.groups == 1 and plan.boundary == "zero" and not plan.depthwise
            and all(s == 1 for s in plan.stride) and plan.out == plan.spatial
            and kflat.dtype in (np.float32, np.float64))


def conv_output_shape(input_shape: Any, kernel_shape: Any, *, stride: Any = 1, padding: Any = 0,
                      dilation: Any = 1, groups: int = 1) -> tuple[int, ...]:
    """Output shape ``(C_out, o1, ..., od)`` (or ``(o1, ..., od)`` single-channel) of :func:`conv_matrix`."""
    ks = _validate.shape("kernel_shape", kernel_shape)
    plan = _Plan(input_shape, ks, stride, padding, dilation, "zero", groups=groups)
    return plan.out if plan.single else (plan.c_out,) + plan.out


def shift_matrix(n: int, taps: int, tap: int, *, stride: int = 1, padding: Any = 0, dilation: int = 1,
                 boundary: str = "zero", backend: str = "numpy", format: str = "csr") -> Any:
    r"""Selection matrix :math:`S_t\in\{0,1\}^{o\times n}` of tap ``tap`` along one axis.

    :math:`(S_t)_{o,j} = 1` iff :math:`j \equiv o s - \ell + t\delta` (in range for the zero
    boundary, modulo :math:`n` for the circular one), for a kernel of ``taps`` taps.
    """
    taps = _validate.positive_int("taps", taps)
    tap = _validate.nonnegative_int("tap", tap)
    if tap >= taps:
        raise ValueError(f"tap must be < taps = {taps}, got {tap}")
    field = _validate.backend(backend)
    plan = _Plan((n,), (taps,), stride, padding, dilation, boundary)
    # refused before the index arrays exist (a padding of 10**12 used to allocate 14.6 TiB first)
    check_size("shift_matrix", (plan.out[0], plan.spatial[0]), plan.out[0], field=field)
    check_bytes("shift_matrix", _axis_tap_bytes(plan.out[0], taps), f"the tap indices of {plan.out[0]:,} outputs")
    xp = _backend.array_module(field)
    o = xp.arange(plan.out[0], dtype=xp.int64)
    idx, valid = plan.axis_taps(o, 0, xp)
    j = idx[:, tap]
    keep = xp.ones(len(o), dtype=bool) if valid is None else valid[:, tap]
    op = SparseOperator.build((plan.out[0], n), o[keep], j[keep],
                              _backend.rational(xp.ones(int(keep.sum()), dtype=xp.int64), 1, field, xp), field)
    return render(op, format)


def conv_kron_factors(image_shape: Any, kernel: Any, *, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                      boundary: str = "zero", backend: str | None = None, format: str = "csr") -> list[tuple[Any, Any, Any]]:
    r"""Kronecker structure of a 2-d single-channel convolution.

    Returns ``[(k_ab, S_a, T_b), ...]`` over the kernel taps with

    .. math::

        W = \sum_{a,b} k_{ab}\, S_a\otimes T_b,

    where :math:`S_a` (:math:`o_1\times n_1`) and :math:`T_b` (:math:`o_2\times n_2`) are the
    :func:`shift_matrix` selections of the two axes (row-major vec, so
    :math:`(S_a\otimes T_b)\operatorname{vec}X=\operatorname{vec}(S_a X T_b^{\mathsf T})`).
    """
    image_shape = _validate.shape("image_shape", image_shape, ndim=2)  # named as the caller knows it
    field = _backend.resolve_field(backend, kernel)
    k = _kernel_values(kernel, field)
    if k.ndim != 2:
        raise ValueError(f"kernel must be 2-d (k1, k2) for conv_kron_factors, got shape {tuple(k.shape)}")
    plan = _Plan(image_shape, tuple(k.shape), stride, padding, dilation, boundary)
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator"))
    o1, o2 = plan.out
    # every factor kept (k1 row selections S_a, k1 * k2 column selections T_b) and one axis' tap
    # indices at a time: refused before any is built (a padding of 10**12 used to allocate 14.6 TiB)
    held = k.shape[0] * estimate_bytes(o1, o1) + int(k.size) * estimate_bytes(o2, o2)
    temp = max(_axis_tap_bytes(o1, k.shape[0]), _axis_tap_bytes(o2, k.shape[1]))
    check_bytes("conv_kron_factors", held + temp, f"{int(k.size)} pairs of shift matrices with {o1:,} and {o2:,} rows")
    pad = tuple(zip(plan.lo, plan.hi))
    out = []
    for a in range(k.shape[0]):
        S = _shift_pad(plan, 0, a, pad, field, format)
        for b in range(k.shape[1]):
            out.append((k[a, b], S, _shift_pad(plan, 1, b, pad, field, format)))
    return out


def _shift_pad(plan: _Plan, axis: int, tap: int, pad, field, format):
    xp = _backend.array_module(field)
    o = xp.arange(plan.out[axis], dtype=xp.int64)
    idx, valid = plan.axis_taps(o, axis, xp)
    j = idx[:, tap]
    keep = xp.ones(len(o), dtype=bool) if valid is None else valid[:, tap]
    n = plan.spatial[axis]
    op = SparseOperator.build((plan.out[axis], n), o[keep], j[keep],
                              _backend.rational(xp.ones(int(keep.sum()), dtype=xp.int64), 1, field, xp), field)
    return render(op, format)


def _zero_padded_tap(plan: _Plan, x: Any, t: tuple[int, ...], dst: Any, rows: tuple[int, int] | None = None) -> None:
    """Write tap ``t``'s shifted input under zero padding into ``dst`` (``(C_in, *out)``, or
    ``(C_in, r1 - r0, *out[1:])`` for the output rows ``rows = (r0, r1)`` of the first spatial axis):
    ``dst[c, o] = x[c, o * stride - lo + t * dilation]``, zero where that index leaves ``x``.

    The interior is one strided slice copy and the border a few zeroed slabs, so ``x`` needs no padded
    copy: on the reference machine a fresh 1.7 MB ``np.pad`` result (64 channels at 58^2) cost its
    page faults on every call, ~1 ms of a 6 ms 64->64 apply."""
    src, inner, borders = [slice(None)], [slice(None)], []
    for i in range(plan.d):
        s, n, o = plan.stride[i], plan.spatial[i], plan.out[i]
        off = t[i] * plan.dilation[i] - plan.lo[i]  # input index of output 0 (of dst)
        if i == 0 and rows is not None:
            off, o = off + rows[0] * s, rows[1] - rows[0]
        o_lo = min(o, max(0, -(off // s)))  # first output whose index is >= 0: ceil(-off / s)
        o_hi = max(o_lo, min(o, (n - 1 - off) // s + 1))  # one past the last whose index is < n
        src.append(slice(o_lo * s + off, (o_hi - 1) * s + off + 1 if o_hi > o_lo else o_lo * s + off, s))
        inner.append(slice(o_lo, o_hi))
        borders += [(i, slice(0, o_lo)), (i, slice(o_hi, o))]
    if all(sl.stop > sl.start for sl in inner[1:]):
        dst[tuple(inner)] = x[tuple(src)]
        for i, sl in borders:
            if sl.stop > sl.start:
                dst[(slice(None),) * (i + 1) + (sl,)] = 0
    else:
        dst[...] = 0


def _stencil_eligible(plan: _Plan, field: str, x_dtype: Any, k_dtype: Any, out_dtype: Any,
                      transpose: bool = False, threads: int | None = None) -> bool:
    """The Numba stencil (:mod:`._stencil`) takes a 2-D float32/float64 layer whose input and kernel
    share the result's dtype: every single-channel layer, and a multi-channel one where the
    measured rule :func:`._stencil.prefer` (for ``A^T y``: :func:`._stencil.prefer_transpose`) says it
    beats the GEMM path."""
    if not (field == "numpy" and plan.d == 2 and x_dtype == k_dtype == out_dtype and out_dtype in _stencil.DTYPES
            and _stencil.available()):
        return False
    if plan.c_in == 1 and plan.c_out == 1:
        return True
    if transpose:
        return _stencil.prefer_transpose(plan.c_in, plan.c_out, plan.groups, plan.ktaps, plan.out)
    return _stencil.prefer(plan.c_in, plan.c_out, plan.groups, plan.ktaps, plan.out, np.dtype(out_dtype).itemsize,
                           _IM2COL_BYTES, _threads.blas_threads(threads), _threads.num_threads())


def conv_apply(x: Any, kernel: Any, *, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
               boundary: str | None = None, groups: int = 1, threads: int | None = None,
               padding_mode: str | None = None, out: Any = None) -> Any:
    r"""Matrix-free convolution: :math:`\sum_t k_t\,(S^{(1)}_{t_1}\otimes\cdots\otimes S^{(d)}_{t_d})x`.

    Each Kronecker product of shifts applied to :math:`X` is a strided slice of the padded
    input, so nothing of size nnz is built. With Numba installed (the ``fast`` extra), a 2-D
    float32/float64 layer -- every single-channel one, and a multi-channel one where the measured
    rule of :func:`isomat.algebra._stencil.prefer` says so -- runs as a compiled stencil that
    reads ``x`` once and writes ``y`` once (:mod:`isomat.algebra._stencil`; bit-equal to
    ``conv_matrix(...) @ x`` under zero padding). Otherwise single-channel layers run as
    cache-blocked multiply-adds over row blocks on ``threads`` threads (NumPy releases the GIL);
    multi-channel layers stack the shifted inputs (at most 256 MiB, a block of output rows at a
    time, blocks shared among ``threads`` workers) and make one GEMM with the kernel per block, or
    one GEMM per tap when that buffer would be larger. Under zero padding the shifts are copied
    from ``x`` itself, with no padded copy. The stacking buffer is kept per thread between calls (a
    fresh one costs its page faults every call).

    Parameters
    ----------
    x : array
        ``input_shape`` (``(C_in, n1..nd)``, or ``(n1..nd)`` for a single-channel kernel), or its
        row-major flattening (then the result is flattened too).
    kernel, stride, padding, dilation, boundary, groups, padding_mode
        As :func:`conv_matrix` (``padding_mode``: torch's name for ``boundary``).
    threads : int, optional
        Worker threads (default: ``ISOMAT_NUM_THREADS``, else the usable CPUs; never above that cap).
    out : numpy.ndarray, optional
        Where to write the result (NumPy inputs): C-contiguous, writeable, of the result's shape
        and dtype, not overlapping ``x``; returned. Reusing one spares the operating system's
        zeroing of fresh pages on every call (at 2048x2048 float64 about as long as the stencil
        itself). The stencil writes into it directly; the other paths copy their result in.
    """
    boundary = _boundary(boundary, padding_mode)
    threads = _validate.threads(threads)
    field = _backend.field_of(x, kernel)
    xv = _backend.as_values(x, field, name="x")
    if xv.size == 0:  # refused here by its own name (the plan would call it input_shape)
        raise ValueError(f"x must be a non-empty array (C_in, n1..nd) or (n1..nd), got shape {tuple(xv.shape)}")
    k = _kernel_values(kernel, field)
    kd = k.ndim
    flat = xv.ndim == 1 and kd > 1
    if flat:
        raise ValueError("x given flat needs its shape: pass x reshaped to input_shape")
    if kd == xv.ndim:
        _geometry(tuple(xv.shape), tuple(k.shape), groups)  # refuses a layer that reads two ways, as conv_matrix
        k = k.reshape((1, 1) + k.shape)
        xv = xv.reshape((1,) + xv.shape)
        single = True
    elif kd == xv.ndim + 1:
        single = False
    else:
        raise ValueError(f"x of shape {tuple(xv.shape)} does not fit kernel of shape {tuple(k.shape)}")
    plan = _Plan(tuple(xv.shape), tuple(k.shape), stride, padding, dilation, boundary, groups=groups)
    out_dtype = np.result_type(xv.dtype, k.dtype) if field != "sympy" else object
    y_shape = (plan.c_out,) + plan.out
    if out is not None:
        _check_out(out, field, plan.out if single else y_shape, out_dtype, xv)
    stencil = _stencil_eligible(plan, field, xv.dtype, k.dtype, out_dtype, threads=threads)
    item = value_bytes(field)
    if stencil:  # the output (unless given) and the two index maps
        check_bytes("conv_apply", (0 if out is not None else item * plan.n_out) + 8 * plan.K * sum(plan.out),
                    f"an output of {plan.n_out:,} values")
    else:
        padded = plan.c_in * math.prod(n + a + b for n, a, b in zip(plan.spatial, plan.lo, plan.hi))
        # the output, the padded copy of the input and the per-tap temporaries (at most the im2col buffer)
        check_bytes("conv_apply", item * (2 * plan.n_out + padded) + min(_IM2COL_BYTES, item * plan.c_in * plan.K * math.prod(plan.out)),
                    f"an output of {plan.n_out:,} and a padded input of {padded:,} values")
    xp = _backend.array_module(field)
    pad = [(0, 0)] + list(zip(plan.lo, plan.hi))
    direct = plan.boundary == "zero" and field != "sympy" and not (plan.c_in == plan.c_out == 1)
    if stencil or direct:  # reads x itself: no padded copy (the GEMM paths: see _zero_padded_tap)
        xpad = xv
    elif any(p != (0, 0) for p in pad):
        xpad = xp.pad(xv, pad, mode={"zero": "constant", "circular": "wrap", "reflect": "reflect",
                                     "replicate": "edge"}[plan.boundary])
    else:
        xpad = xv
    d = plan.d
    taps = list(itertools.product(*[range(t) for t in plan.ktaps]))

    def view(t, lo_row=0, hi_row=None):
        sl = [slice(None)]
        for i in range(d):
            start = t[i] * plan.dilation[i]
            o = plan.out[i]
            if i == 0 and hi_row is not None:
                sl.append(slice(start + lo_row * plan.stride[0], start + (hi_row - 1) * plan.stride[0] + 1, plan.stride[0]))
            else:
                sl.append(slice(start, start + (o - 1) * plan.stride[i] + 1, plan.stride[i]))
        return xpad[tuple(sl)]

    if stencil:
        # the Numba stencil: x read once, y written once, no padded copy (see ._stencil)
        y = _stencil.forward(xv, k, plan.groups, plan.out, plan.lo, plan.hi, plan.stride, plan.dilation,
                             plan.boundary, _threads.resolve(threads),
                             out=None if out is None else out.reshape(y_shape))
        if out is not None:
            return out
    elif plan.c_in == 1 and plan.c_out == 1 and field == "numpy":
        w = [k[(0, 0) + t] for t in taps]
        o0 = plan.out[0]
        row_len = math.prod(plan.out[1:]) if d > 1 else 1
        # rows per block: ~512 KiB of float64 keeps acc/tmp in L2, yet each ufunc call is long
        # enough that two threads do not convoy on the GIL between calls (16K elements did)
        block = max(1, 65536 // max(row_len, 1))
        nthreads = min(_threads.resolve(threads), o0)  # an upper bound: at most a thread per row
        chunk = -(-o0 // nthreads)
        y = xp.empty(y_shape, dtype=out_dtype)

        def work(c0):
            c1 = min(o0, c0 + chunk)
            for b0 in range(c0, c1, block):
                b1 = min(c1, b0 + block)
                acc = y[0, b0:b1]
                tmp = np.empty_like(acc)
                np.multiply(view(taps[0], b0, b1)[0], w[0], out=acc)
                for t, wt in zip(taps[1:], w[1:]):
                    np.multiply(view(t, b0, b1)[0], wt, out=tmp)
                    np.add(acc, tmp, out=acc)

        starts = list(range(0, o0, chunk))
        if len(starts) > 1:
            list(_pool(nthreads).map(work, starts))
        else:
            work(0)
    elif field != "sympy" and plan.c_in * plan.K * math.prod(plan.out) * xv.itemsize <= _IM2COL_BYTES:
        # stack the K shifted copies of a block of output rows (C_in, K, rows, *out[1:]), then one GEMM
        # with the kernel per group (a batched matmul over the groups) into those rows of y
        o0, row_len = plan.out[0], math.prod(plan.out[1:])
        g, ck = plan.groups, plan.cpg * plan.K
        kg = k.reshape(g, plan.opg, ck)

        def stack(dst, r0, r1):
            for j, t in enumerate(taps):
                if direct:
                    _zero_padded_tap(plan, xv, t, dst[:, j], (r0, r1))
                else:
                    dst[:, j] = view(t, r0, r1)

        if field == "numpy":
            # workers: the cores other processes leave free (never above ISOMAT_NUM_THREADS), each
            # stacking and multiplying blocks of about _IM2COL_BLOCK_BYTES with BLAS on one thread
            workers = _threads.blas_threads(threads) if plan.n_out * ck >= _stencil.PARALLEL_MIN_MACS else 1
            per_row = plan.c_in * plan.K * row_len  # stacked values an output row needs
            rows = max(1, min(o0, _IM2COL_BLOCK_BYTES // (per_row * xv.itemsize)))
            nblocks = max(-(-o0 // rows), min(o0, workers))
            rows = -(-o0 // nblocks)  # even blocks
            y = np.empty(y_shape, dtype=out_dtype)
            yg = y.reshape(g, plan.opg, o0 * row_len)

            def work(r0):
                r1 = min(o0, r0 + rows)
                # this thread's scratch; the last block may be shorter: the front of it, still contiguous
                b = _scratch(per_row * rows, xv.dtype)[:per_row * (r1 - r0)]
                b = b.reshape((plan.c_in, plan.K, r1 - r0) + plan.out[1:])
                stack(b, r0, r1)
                np.matmul(kg, b.reshape(g, ck, -1), out=yg[:, :, r0 * row_len:r1 * row_len])

            with _threads.blas_limit(1):
                _threads.share(work, range(0, o0, rows), workers)
        else:  # the GPU: one stack, one batched GEMM
            buf = xp.empty((plan.c_in, plan.K) + plan.out, dtype=xv.dtype)
            stack(buf, 0, o0)
            y = (kg @ buf.reshape(g, ck, -1)).reshape(y_shape)
    else:
        y = xp.zeros(y_shape, dtype=out_dtype)
        g = plan.groups
        tap = xp.empty((plan.c_in,) + plan.out, dtype=xv.dtype) if direct else None
        for t in taps:
            kt = k[(slice(None), slice(None)) + t].reshape(g, plan.opg, plan.cpg)  # per group (C_out/g, C_in/g)
            if direct:
                _zero_padded_tap(plan, xv, t, tap)
                v = tap.reshape(g, plan.cpg, -1)
            else:
                v = view(t).reshape(g, plan.cpg, -1)
            if field == "sympy":
                y = y + np.stack([np.tensordot(kt[i], v[i], axes=([1], [0])) for i in range(g)]).reshape(y_shape)
            else:
                y += (kt @ v).reshape(y_shape)
    y = y[0] if single else y
    if out is not None:
        np.copyto(out, y)
        return out
    return y


def _check_out(out: Any, field: str, shape: tuple[int, ...], dtype: Any, x: Any) -> None:
    """``out=`` of :func:`conv_apply`: a writeable C-contiguous NumPy array of the result's shape and
    dtype that does not overlap the input (a ValueError/TypeError naming what differs)."""
    if field != "numpy":
        raise TypeError(f"out= takes NumPy inputs; this call computes in the {field!r} field")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if tuple(out.shape) != tuple(shape) or out.dtype != dtype:
        raise ValueError(f"out must have the result's shape {tuple(shape)} and dtype {np.dtype(dtype)}, got shape "
                         f"{tuple(out.shape)} and dtype {out.dtype}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writeable")
    if isinstance(x, np.ndarray) and np.may_share_memory(out, x):  # x: the input as values
        raise ValueError("out must not overlap x")


def csr_matvec(A: Any, x: Any, *, threads: int | None = None, out: Any = None, blocks_per_thread: int = 4) -> np.ndarray:
    r"""``A @ x`` for a SciPy CSR array, in row blocks of equal nnz on ``threads`` threads.

    SciPy's CSR kernel releases the GIL, so the blocks run in parallel. Each thread takes every
    ``threads``-th block (interleaved, so both threads stream neighbouring parts of ``x``), and
    each block is handed to the kernel as views of the whole ``indices``/``data`` with its
    absolute slice of ``indptr``: nothing is copied.
    """
    if not (sp.issparse(A) and A.format == "csr"):
        raise TypeError(f"A must be a scipy.sparse CSR array, got {type(A).__name__}")
    x = np.asarray(x)
    if x.shape != (A.shape[1],):
        raise ValueError(f"x must have shape ({A.shape[1]},), got {x.shape}")
    nthreads = _threads.resolve(_validate.threads(threads))
    blocks_per_thread = _validate.positive_int("blocks_per_thread", blocks_per_thread)
    dtype = np.result_type(A.dtype, x.dtype)
    if out is None:
        y = np.empty(A.shape[0], dtype=dtype)
    else:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a NumPy array, got {type(out).__name__}")
        if out.shape != (A.shape[0],) or out.dtype != dtype:
            # a narrower out (int64 for a float product) would silently truncate the result
            raise ValueError(f"out must have shape ({A.shape[0]},) and dtype {dtype} (the product's), "
                             f"got shape {out.shape} and dtype {out.dtype}")
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("out must be a writeable, C-contiguous array")
        y = out
    indptr = A.indptr
    # threads and blocks are upper bounds: never more blocks than rows, never more threads than blocks
    nblocks = min(nthreads * blocks_per_thread, max(A.shape[0], 1)) if nthreads > 1 else 1
    nthreads = min(nthreads, nblocks)
    cuts = np.searchsorted(indptr, np.linspace(0, A.nnz, nblocks + 1)).clip(0, A.shape[0])
    cuts[0], cuts[-1] = 0, A.shape[0]
    try:
        from scipy.sparse import _sparsetools

        kernel = _sparsetools.csr_matvec
    except (ImportError, AttributeError):  # pragma: no cover - private API moved
        kernel = None
    fast = kernel is not None and y.dtype == A.dtype == x.dtype and indptr.dtype == A.indices.dtype

    def block(i: int) -> None:
        a, b = int(cuts[i]), int(cuts[i + 1])
        if b <= a:
            return
        y[a:b] = 0  # the kernel accumulates into y
        if fast:
            kernel(b - a, A.shape[1], indptr[a:b + 1], A.indices, A.data, x, y[a:b])
        else:
            p0, p1 = int(indptr[a]), int(indptr[b])
            blk = sp.csr_array((A.data[p0:p1], A.indices[p0:p1], indptr[a:b + 1] - p0), shape=(b - a, A.shape[1]))
            y[a:b] = blk @ x

    def work(t: int) -> None:
        for i in range(t, nblocks, nthreads):
            block(i)

    if nthreads == 1:
        work(0)
    else:
        list(_pool(nthreads).map(work, range(nthreads)))
    return y


# the pools and the thread-count rule live in ._threads (shared with .diagonal, no import cycle)
_POOLS = _threads._POOLS
_pool = _threads.pool


# ---------------------------------------------------------------------------------------------
# entry rules: one scalar function per construction, the statement the ledger proves
# ---------------------------------------------------------------------------------------------
def conv2d_tap(row: Any, col: Any, H: Any, W: Any, KH: Any, KW: Any, *, stride: Any = (1, 1), padding: Any = (0, 0),
               dilation: Any = (1, 1)) -> Any:
    r"""Entry rule of :func:`conv_matrix` for a 2-d single-channel kernel with the zero boundary.

    Row ``row`` is the output pixel :math:`(o_1, o_2) = (\lfloor row/O_2\rfloor, row \bmod O_2)` and
    column ``col`` the input pixel :math:`(u, v) = (\lfloor col/W\rfloor, col \bmod W)` (row-major
    ``vec``, :math:`O_2 = \lfloor (W + 2\ell_2 - \delta_2(K_W-1) - 1)/s_2\rfloor + 1`). The entry
    :math:`W_{row,col}` is :math:`k_{ab}` for the unique tap with
    :math:`u = o_1 s_1 - \ell_1 + a\delta_1`, :math:`v = o_2 s_2 - \ell_2 + b\delta_2`, and zero when no
    tap reads that pixel. Returns the flat tap index :math:`aK_W + b`, or :math:`-1` for a zero
    entry (for ``0 <= row < O_1 O_2`` and ``0 <= col < HW``).

    Written with :func:`isomat._types.fdiv`/``fmod``/``ite``/``both``, so the same function runs on
    Python ints, NumPy arrays (tested against the builder) and Z3 terms (proved in
    :mod:`isomat.proofs.zhu2025`: Theorem 4.1 / Appendix A.1, §4.2).
    """
    from .._types import both, fdiv, fmod, ite

    (s1, s2), (l1, l2), (d1, d2) = stride, padding, dilation
    O2 = fdiv(W + 2 * l2 - d2 * (KW - 1) - 1, s2) + 1
    o1, o2 = fdiv(row, O2), fmod(row, O2)
    u, v = fdiv(col, W), fmod(col, W)
    du, dv = u - o1 * s1 + l1, v - o2 * s2 + l2
    a, b = fdiv(du, d1), fdiv(dv, d2)
    hit = both(du >= 0, dv >= 0, fmod(du, d1) == 0, fmod(dv, d2) == 0, a < KH, b < KW)
    return ite(hit, a * KW + b, -1)


def zhu_conv_tap(p: Any, c: Any, n: Any, r: Any, s: Any) -> Any:
    r"""Entry rule of :func:`zhu_conv_matrix` (zhu2025 §4.2.1): :math:`W_{conv}[p, x + ps] = w_x` for
    :math:`x = in + j\in N_0`, so entry :math:`(p, c)` holds the tap :math:`(i, j) =
    (\lfloor x/n\rfloor, x \bmod n)` of :math:`x = c - ps` when :math:`0\le x`, :math:`i < r`,
    :math:`j < r` (unique, as :math:`r\le n`). Returns the flat tap index :math:`ir + j`, or
    :math:`-1` for a zero entry (for ``0 <= p < P`` and ``0 <= c < L``; columns ``>= L`` are
    dropped by the builder)."""
    from .._types import both, fdiv, fmod, ite

    x = c - p * s
    i, j = fdiv(x, n), fmod(x, n)
    return ite(both(x >= 0, i < r, j < r), i * r + j, -1)


# ---------------------------------------------------------------------------------------------
# the paper's W_conv of §4.2.1, exactly as printed
# ---------------------------------------------------------------------------------------------
def zhu_offsets(image_shape: Any, r: Any) -> np.ndarray:
    r""":math:`N_0=\{i n + j \mid 0\le i,j<r\}` of zhu2025 §4.2.1 (row-major offsets of an
    :math:`r\times r` window in an :math:`m\times n` image), in increasing order."""
    m, n = _validate.shape("image_shape", image_shape, ndim=2)
    r = _validate.positive_int("r", r)
    check_bytes("zhu_offsets", 3 * 8 * r * r, f"the offsets of an r x r window, r = {r}")  # before meshgrid allocates
    i, j = np.meshgrid(np.arange(r), np.arange(r), indexing="ij")
    return np.sort((i * n + j).reshape(-1))


def zhu_conv_rows(image_shape: Any, r: int, stride: int = 1) -> int:
    r"""The paper's :math:`P=\lfloor (L-\max N_0)/s\rfloor+1`, :math:`L=mn` (zhu2025 §4.2.1)."""
    m, n = _validate.shape("image_shape", image_shape, ndim=2)
    s = _validate.positive_int("stride", stride)
    N0 = zhu_offsets((m, n), r)
    return (m * n - int(N0.max())) // s + 1


def zhu_conv_matrix(image_shape: Any, kernel: Any, stride: int = 1, *, overflow: str = "drop",
                    backend: str | None = None, format: str = "csr") -> Any:
    r"""The paper's :math:`W_{conv}\in\mathbb{R}^{P\times L}` of zhu2025 §4.2.1, exactly as printed.

    .. math::

        L = mn,\quad N_0=\{in+j\mid 0\le i,j<r\},\quad
        P=\Big\lfloor\frac{L-\max N_0}{s}\Big\rfloor+1,\quad
        W_{conv}[p,\,x+ps]=w_x\ \ (x = in+j\in N_0,\ w_x=k_{ij}).

    Printed :math:`P` lets the last row reach column :math:`\max N_0+(P-1)s`, which is
    :math:`L` (one past the last column) whenever :math:`s\mid L-\max N_0`; ``overflow`` says what
    to do with such entries: ``"drop"`` (keep the printed :math:`P\times L` shape and omit them),
    ``"raise"`` (ValueError naming the row), or ``"extend"`` (widen the matrix to hold them, so
    the printed pattern is kept whole).

    Parameters
    ----------
    image_shape : (m, n)
    kernel : (r, r) array
        Square, with :math:`r\le\min(m,n)` (otherwise offsets in :math:`N_0` alias).
    stride : int
        The paper's :math:`s`, a step of the flattened window start.
    """
    m, n = _validate.shape("image_shape", image_shape, ndim=2)
    s = _validate.positive_int("stride", stride)
    _validate.choice("overflow", overflow, ("drop", "raise", "extend"))
    field = _backend.resolve_field(backend, kernel)
    k = _kernel_values(kernel, field)
    if k.ndim != 2 or k.shape[0] != k.shape[1]:
        raise ValueError(f"kernel must be a square r x r matrix (zhu2025 §4.2.1), got shape {tuple(k.shape)}")
    r = k.shape[0]
    if r > min(m, n):
        raise ValueError(f"kernel size r = {r} must not exceed min(m, n) = {min(m, n)} for image_shape {(m, n)}")
    L = m * n
    P = zhu_conv_rows((m, n), r, s)  # the printed P, one definition
    check_size("zhu_conv_matrix", (P, L), P * r * r, field=field)
    i, j = np.meshgrid(np.arange(r), np.arange(r), indexing="ij")
    x = (i * n + j).reshape(-1)
    rows = np.repeat(np.arange(P, dtype=np.int64), r * r)
    cols = (np.arange(P, dtype=np.int64)[:, None] * s + x[None, :]).reshape(-1)
    vals = np.tile(k.reshape(-1), P) if field != "cupy" else _backend.array_module(field).tile(k.reshape(-1), P)
    ncols = L
    bad = cols >= L
    if bad.any():
        if overflow == "raise":
            p = int(rows[bad][0])
            raise ValueError(
                f"row p = {p} of the printed W_conv (P = {P}) has a column {int(cols[bad].max())} >= L = {L}: "
                f"the printed P counts one window too many"
            )
        if overflow == "drop":
            keep = ~bad
            rows, cols = rows[keep], cols[keep]
            vals = vals[keep if field != "cupy" else _backend.array_module(field).asarray(keep)]
        else:
            ncols = int(cols.max()) + 1
    xp = _backend.array_module(field)
    # rows in order, each row's columns increasing (the offsets x = in + j increase in (i, j) as j < r <= n)
    # and distinct: the CSR is assembled as is, without a COO sort (a third of the build at 512², measured)
    op = SparseOperator.build((P, ncols), xp.asarray(rows), xp.asarray(cols), vals, field, canonical=True)
    return render(op, format)


__all__ = [
    "conv_apply",
    "conv_kron_factors",
    "conv_matrix",
    "conv_output_shape",
    "csr_matvec",
    "shift_matrix",
    "zhu_conv_matrix",
    "zhu_conv_rows",
    "zhu_offsets",
]
