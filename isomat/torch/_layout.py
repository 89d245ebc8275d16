r"""Exact sparse matrices of torch's structural (parameter-free, affine) tensor operations.

Each builder takes the shape of ONE sample (no batch axis) and returns the matrix :math:`W` (and,
for affine operations, the vector :math:`b`) with

.. math::

    f(x_{\text{batch}})[0]\text{.flatten()} = W\,\operatorname{vec}(x) + b,
    \qquad x_{\text{batch}} = x[\text{None}],

under row-major (C-order) flattening (``docs/conventions.md``). These are the links a tracer needs
to turn a whole torch model into a chain of sparse affine maps.

Fields
------
``backend="numpy"`` returns a canonical ``scipy.sparse.csr_array`` of float64 (sorted indices, no
duplicates, no explicit zeros) and a float64 NumPy ``b``; ``backend="sympy"`` returns a
``sympy.SparseMatrix`` with exact entries (``Rational``, or exact expressions for batch norm) and a
``sympy.Matrix`` column ``b``. Every operator is built once, as a pattern (rows, columns) plus
exact values (integer numerators and denominators), and rendered in the field asked for.

Torch semantics reproduced (and worth knowing)
----------------------------------------------
* ``F.interpolate`` decides *which* input taps an output reads with torch's own floating-point
  arithmetic: ``floorf`` of the source coordinate (float32 rounding even for float64 tensors);
  in 2-D the nearest modes compute the scale in float32 and treat ``out == in`` and
  ``out == 2 * in`` specially, while 1-D and 3-D compute it in float64 without those shortcuts;
  the linear modes copy the input whenever ``out == in``, whatever ``scale_factor`` says. The tap
  choice is taken from torch (it is an integer, so it is the same in both fields); the *weights*
  are exact rationals of the source coordinate (the scale taken exactly from the given float).
* ``F.adaptive_max_pool`` picks the first maximum of a window in row-major order, but the *last*
  NaN when a window holds NaN.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
import sympy

from .. import _validate
from ..algebra import _backend
from ..algebra._operator import check_size

__all__ = [
    "adaptive_avgpool_matrix",
    "adaptive_maxpool_selection",
    "batchnorm_matrix",
    "concat_matrices",
    "index_matrix",
    "interpolate_matrix",
    "pad_matrix",
    "permute_matrix",
    "pixel_shuffle_matrix",
    "pixel_unshuffle_matrix",
    "reduce_matrix",
]

_FIELDS = ("numpy", "sympy")
_describe = _validate._describe


# -- the one construction: factors with exact values, a Kronecker product, a rendering ----------

class _Factor:
    """An ``m x n`` sparse factor: entries ``(rows[k], cols[k])`` with exact values
    ``num[k] / den[k]`` (int64 arrays, or object arrays of Python ints where they may be large;
    ``None`` for all ones)."""

    __slots__ = ("m", "n", "rows", "cols", "num", "den")

    def __init__(self, m: int, n: int, rows: np.ndarray, cols: np.ndarray,
                 num: np.ndarray | None = None, den: np.ndarray | None = None) -> None:
        self.m, self.n = int(m), int(n)
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.num, self.den = num, den

    @classmethod
    def identity(cls, n: int) -> "_Factor":
        r = np.arange(n, dtype=np.int64)
        return cls(n, n, r, r)

    @classmethod
    def selection(cls, m: int, n: int, src: np.ndarray) -> "_Factor":
        """Row ``i`` reads input ``src[i]`` (rows with ``src < 0`` are empty)."""
        src = np.asarray(src, dtype=np.int64)
        rows = np.flatnonzero(src >= 0)
        return cls(m, n, rows, src[rows])

    def values(self, field: str) -> np.ndarray | None:
        """The values in ``field``: float64 (numpy) or SymPy Rationals (sympy); ``None`` = ones."""
        if self.num is None:
            return None
        if field == "sympy":
            return np.array([sympy.Rational(int(a), int(b)) for a, b in zip(self.num, self.den)], dtype=object)
        if self.num.dtype == object or self.den.dtype == object:
            # Python ints (interpolation's exact coordinates): int / int is correctly rounded, however large
            return np.true_divide(self.num, self.den).astype(np.float64)
        return self.num.astype(np.float64) / self.den.astype(np.float64)


def _kron(factors: list[_Factor], field: str, what: str) -> tuple[int, int, np.ndarray, np.ndarray, Any]:
    """Pattern and values of ``kron(factors)`` (vectorised index arithmetic)."""
    m = math.prod(f.m for f in factors)
    n = math.prod(f.n for f in factors)
    nnz = math.prod(len(f.rows) for f in factors)
    check_size(what, (m, n), nnz, field=field)
    rows = np.zeros(1, dtype=np.int64)
    cols = np.zeros(1, dtype=np.int64)
    vals: Any = None
    for f in factors:
        prev = len(rows)
        rows = (rows[:, None] * f.m + f.rows[None, :]).reshape(-1)
        cols = (cols[:, None] * f.n + f.cols[None, :]).reshape(-1)
        v = f.values(field)
        if v is not None or vals is not None:
            left = vals if vals is not None else _ones(prev, field)
            right = v if v is not None else _ones(len(f.rows), field)
            vals = (left[:, None] * right[None, :]).reshape(-1)
    return m, n, rows, cols, vals


def _ones(k: int, field: str) -> np.ndarray:
    if field == "sympy":
        out = np.empty(k, dtype=object)
        out[:] = sympy.S.One
        return out
    return np.ones(k, dtype=np.float64)


def _render(m: int, n: int, rows: np.ndarray, cols: np.ndarray, vals: Any, field: str) -> Any:
    """``scipy.sparse.csr_array`` (canonical) or ``sympy.SparseMatrix``; duplicates summed, zeros dropped."""
    if field == "sympy":
        entries: dict[tuple[int, int], Any] = {}
        values = vals if vals is not None else [sympy.S.One] * len(rows)
        for r, c, v in zip(rows.tolist(), cols.tolist(), values):
            entries[(r, c)] = entries[(r, c)] + v if (r, c) in entries else v
        return sympy.SparseMatrix(m, n, {k: v for k, v in entries.items() if v != 0})
    data = np.ones(len(rows), dtype=np.float64) if vals is None else np.asarray(vals, dtype=np.float64)
    A = sp.coo_array((data, (rows, cols)), shape=(m, n)).tocsr()
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    return A


def _permutation(src: np.ndarray, n_in: int, field: str, what: str) -> Any:
    """The 0/1 matrix whose row ``i`` reads input ``src[i]``."""
    src = np.asarray(src, dtype=np.int64).reshape(-1)
    check_size(what, (len(src), n_in), len(src), field=field)
    return _render(len(src), n_in, np.arange(len(src), dtype=np.int64), src, None, field)


# -- argument checks ------------------------------------------------------------------------------

def _field(backend: Any) -> str:
    return _validate.choice("backend", backend, _FIELDS)


def _shape(input_shape: Any, name: str = "input_shape") -> tuple[int, ...]:
    if isinstance(input_shape, np.ndarray) and input_shape.ndim == 1:
        input_shape = tuple(input_shape.tolist())
    return _validate.shape(name, input_shape)


def _int(name: str, value: Any, minimum: int | None = None) -> int:
    return _validate.integer(name, value, minimum=minimum)


def _axis(name: str, value: Any, ndim: int) -> int:
    v = _int(name, value)
    if not -ndim <= v < ndim:
        raise ValueError(f"{name} must be an axis of a {ndim}-axis sample, in [{-ndim}, {ndim - 1}], got {v}")
    return v % ndim


def _int_seq(name: str, value: Any) -> tuple[Any, ...]:
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = tuple(value.tolist())
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integers, got {_describe(value)}")
    return tuple(value)


# -- adaptive pooling ----------------------------------------------------------------------------

def _adaptive_geometry(input_shape: tuple[int, ...], output_size: Any, name: str = "output_size"
                       ) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """``(d, spatial input sizes, spatial output sizes)`` for torch's adaptive pools."""
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        d = len(input_shape) - 1
        if d not in (1, 2, 3):
            raise ValueError(f"an integer {name} pools every spatial axis of a (C, *spatial) sample with 1 to 3 "
                             f"spatial axes; input_shape {input_shape} has {d}: give {name} as a tuple")
        output_size = (output_size,) * d
    entries = _int_seq(name, output_size) if not isinstance(output_size, (numbers.Integral,)) else ()
    d = len(entries)
    if d not in (1, 2, 3):
        raise ValueError(f"{name} must have 1, 2 or 3 entries (adaptive pooling in 1d, 2d or 3d), got {output_size!r}")
    if len(input_shape) != d + 1:
        raise ValueError(f"input_shape must be (C, *spatial) with {d} spatial axes for a {d}-entry {name}, "
                         f"got {input_shape}")
    spatial = input_shape[1:]
    out = tuple(spatial[k] if v is None else _int(f"{name}[{k}]", v, minimum=1) for k, v in enumerate(entries))
    return d, spatial, out


def _adaptive_windows(n: int, o: int) -> tuple[np.ndarray, np.ndarray]:
    """torch's windows: ``start = floor(i n / o)``, ``end = ceil((i + 1) n / o)``."""
    i = np.arange(o, dtype=np.int64)
    start = (i * n) // o
    end = -((-(i + 1) * n) // o)
    return start, end - start


def _avg_factor(n: int, o: int) -> _Factor:
    start, length = _adaptive_windows(n, o)
    rows = np.repeat(np.arange(o, dtype=np.int64), length)
    offset = np.arange(len(rows), dtype=np.int64) - np.repeat(np.cumsum(length) - length, length)
    den = np.repeat(length, length)
    num = np.ones(len(rows), dtype=np.int64)
    return _Factor(o, n, rows, start[rows] + offset, num, den)


def adaptive_avgpool_matrix(input_shape: Any, output_size: Any, backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The matrix of ``nn.AdaptiveAvgPool{1,2,3}d`` / ``F.adaptive_avg_pool{1,2,3}d`` on one sample.

    Output :math:`i` of a spatial axis of input size :math:`n` and output size :math:`o` averages
    inputs :math:`j \in [\lfloor i n / o \rfloor, \lceil (i+1) n / o \rceil)`, as torch does. The
    operator is separable:
    :math:`W = I_C \otimes A_{n_1 \to o_1} \otimes \cdots \otimes A_{n_d \to o_d}`, with exact
    entries :math:`1 / \prod_k \text{window}_k` (``1/3`` for a three-tap window).

    Parameters
    ----------
    input_shape : tuple of int
        ``(C, n_1, ..., n_d)``, one sample.
    output_size : int or tuple of (int or None)
        torch's ``output_size``; an int applies to every spatial axis of ``input_shape``, a tuple
        has ``d`` entries, and ``None`` keeps that axis' size.
    backend : {"numpy", "sympy"}

    Returns
    -------
    W : scipy.sparse.csr_array or sympy.SparseMatrix
        ``(C * prod(o), C * prod(n))``.
    out_shape : tuple of int
        ``(C, o_1, ..., o_d)``.
    """
    field = _field(backend)
    shape = _shape(input_shape)
    _d, spatial, out = _adaptive_geometry(shape, output_size)
    factors = [_Factor.identity(shape[0])] + [_avg_factor(n, o) for n, o in zip(spatial, out)]
    m, n, rows, cols, vals = _kron(factors, field, "adaptive_avgpool_matrix")
    return _render(m, n, rows, cols, vals, field), (shape[0],) + out


def adaptive_maxpool_selection(x: Any, output_size: Any) -> tuple[sp.csr_array, tuple[int, ...]]:
    r"""The 0/1 selection :math:`S(x)` with :math:`S(x)\,x = ` ``F.adaptive_max_pool{1,2,3}d(x)``.

    Windows are those of :func:`adaptive_avgpool_matrix`. Row :math:`(c, o)` has one 1 at the first
    maximum of its window in row-major order, or -- when the window holds NaN -- at its *last* NaN,
    as torch's CPU kernel (``val > maxval || isnan(val)``) picks it. This is torch's
    ``return_indices`` choice; max pooling is only linear for a fixed input.

    Parameters
    ----------
    x : array_like
        One real sample ``(C, n_1, ..., n_d)`` (NumPy array or torch tensor).
    output_size : int or tuple of (int or None)
        As :func:`adaptive_avgpool_matrix`.

    Returns
    -------
    S : scipy.sparse.csr_array
        float64, ``(C * prod(o), x.size)``.
    out_shape : tuple of int
    """
    xv = np.asarray(_backend.from_torch(x))
    if xv.dtype.kind not in "biuf":
        raise TypeError(f"x must be a real numeric array, got dtype {xv.dtype}")
    if xv.ndim < 2 or xv.size == 0:
        raise ValueError(f"x must be a non-empty sample (C, *spatial), got shape {tuple(xv.shape)}")
    xv = xv.astype(np.float64)
    shape = tuple(int(s) for s in xv.shape)
    d, spatial, out = _adaptive_geometry(shape, output_size)
    C = shape[0]
    n_in, n_out = xv.size, C * math.prod(out)
    check_size("adaptive_maxpool_selection", (n_out, n_in), n_out, field="numpy")
    # candidate taps: axis k contributes (o_k, K_k) indices, broadcast to (o_1..o_d, K_1..K_d)
    idx: list[np.ndarray] = []
    valid = np.ones((1,) * (2 * d), dtype=bool)
    flat = np.zeros((1,) * (2 * d), dtype=np.int64)
    strides = [math.prod(spatial[k + 1:]) for k in range(d)]
    for k, (n, o) in enumerate(zip(spatial, out)):
        start, length = _adaptive_windows(n, o)
        K = int(length.max())
        t = np.arange(K, dtype=np.int64)
        ik = np.minimum(start[:, None] + t[None, :], n - 1)
        vk = t[None, :] < length[:, None]
        view = [1] * (2 * d)
        view[k], view[d + k] = o, K
        idx.append(ik.reshape(view))
        valid = valid & vk.reshape(view)
        flat = flat + ik.reshape(view) * strides[k]
    check_size("adaptive_maxpool_selection (window scratch)", (n_out, 1), C * valid.size, field="numpy")
    vals = xv[(slice(None),) + tuple(idx)]                        # (C, o..., K...)
    O, Kp = math.prod(out), math.prod(valid.shape[d:])
    vals = vals.reshape(C, O, Kp)
    valid = np.broadcast_to(valid, tuple(out) + valid.shape[d:]).reshape(O, Kp)
    flat = np.broadcast_to(flat, tuple(out) + flat.shape[d:]).reshape(O, Kp)
    isnan = np.isnan(vals) & valid[None]
    masked = np.where(valid[None], np.where(np.isnan(vals), -np.inf, vals), -np.inf)
    best = np.argmax(masked, axis=2)                                # first maximum (position 0 is valid)
    has_nan = isnan.any(axis=2)
    last_nan = Kp - 1 - np.argmax(isnan[:, :, ::-1], axis=2)
    best = np.where(has_nan, last_nan, best)
    cols = np.take_along_axis(np.broadcast_to(flat[None], (C, O, Kp)), best[:, :, None], axis=2)[:, :, 0]
    cols = cols + (np.arange(C, dtype=np.int64) * math.prod(spatial))[:, None]
    return _permutation(cols.reshape(-1), n_in, "numpy", "adaptive_maxpool_selection"), (C,) + out


# -- interpolation -------------------------------------------------------------------------------

_INTERP_MODES = {"nearest": None, "nearest-exact": None, "linear": 1, "bilinear": 2, "trilinear": 3}


def _ratio_exact(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> Fraction:
    """torch's ``area_pixel_compute_scale`` in exact arithmetic."""
    if align_corners:
        return Fraction(n_in - 1, n_out - 1) if n_out > 1 else Fraction(0)
    if scale is not None and scale > 0:
        return 1 / Fraction(scale)
    return Fraction(n_in, n_out)


def _ratio_float(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> float:
    """The same in float64, as torch's double kernels compute it."""
    if align_corners:
        return float(n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return float(n_in) / n_out


def _nearest_source(n_in: int, n_out: int, scale: float | None, exact: bool, d: int) -> np.ndarray:
    """The input index torch's ``nearest`` (``exact=False``) or ``nearest-exact`` reads per output.

    2-D kernels use ``nearest_idx`` / ``nearest_exact_idx`` (scale in float32; ``nearest`` copies
    when ``out == in`` and halves when ``out == 2 in``); the 1-D and 3-D kernels compute the
    coordinate in float64 and floor it with ``floorf`` (float32).
    """
    dst = np.arange(n_out, dtype=np.int64)
    if d == 2:
        if not exact and n_out == n_in:
            return dst
        if not exact and n_out == 2 * n_in:
            return dst >> 1
        s32 = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n_in) / np.float32(n_out)
        pos = dst.astype(np.float32)
        if exact:
            pos = pos + np.float32(0.5)
        src = np.floor(pos * s32)
    else:
        r = _ratio_float(n_in, n_out, False, scale)
        if exact:
            real = np.maximum(r * (dst + 0.5) - 0.5, 0.0) + 0.5
        else:
            real = r * dst.astype(np.float64)
        src = np.floor(real.astype(np.float32))
    return np.minimum(src.astype(np.int64), n_in - 1)


def _linear_factor(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> _Factor:
    """One axis of torch's (bi/tri)linear interpolation: taps chosen as torch's float kernel chooses
    them (``floorf`` of the float64 coordinate), weights exact rationals of the exact coordinate."""
    if n_out == n_in:                                   # torch copies, whatever the scale says
        return _Factor.identity(n_in)
    dst = np.arange(n_out, dtype=np.int64)
    # torch's float64 coordinate decides the taps
    r = _ratio_float(n_in, n_out, align_corners, scale)
    real = r * dst.astype(np.float64) if align_corners else np.maximum(r * (dst + 0.5) - 0.5, 0.0)
    h0 = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n_in - 1)
    h1 = h0 + (h0 < n_in - 1)
    # the exact coordinate src = N / D (N per output, D common), Python ints
    q = _ratio_exact(n_in, n_out, align_corners, scale)
    P, Q = q.numerator, q.denominator
    dsto = dst.astype(object)
    if align_corners:
        N, D = dsto * P, Q
    else:
        N, D = dsto * (2 * P) + (P - Q), 2 * Q
        N = np.where(N < 0, 0, N)                       # torch clamps a negative coordinate to 0
    lam1 = N - h0.astype(object) * D
    lam1 = np.where(lam1 < 0, 0, np.where(lam1 > D, D, lam1))
    lam0 = D - lam1
    rows = np.concatenate([dst, dst])
    cols = np.concatenate([h0, h1])
    num = np.concatenate([lam0, lam1]).astype(object)
    den = np.empty(len(num), dtype=object)
    den[:] = D
    return _Factor(n_out, n_in, rows, cols, num, den)


def _per_axis(name: str, value: Any, d: int, kind: str) -> tuple[Any, ...]:
    if isinstance(value, (list, tuple)):
        if len(value) != d:
            raise ValueError(f"{name} must be one {kind} or {d} of them (one per spatial axis), got {value!r}")
        return tuple(value)
    return (value,) * d


def interpolate_matrix(input_shape: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                       align_corners: Any = None, recompute_scale_factor: Any = None, antialias: Any = False,
                       backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The matrix of ``F.interpolate`` / ``nn.Upsample`` on one sample ``(C, *spatial)``.

    Modes ``"nearest"``, ``"nearest-exact"``, ``"linear"`` (one spatial axis), ``"bilinear"`` (two)
    and ``"trilinear"`` (three), with either ``align_corners``. The operator is separable,
    :math:`W = I_C \otimes A_1 \otimes \cdots \otimes A_d`. For an output index :math:`i` the
    linear modes read the source coordinate (torch's ``area_pixel_compute_source_index``)

    .. math::

        s_i = \begin{cases} r\, i, & r = \frac{n-1}{o-1} \text{ (align\_corners)} \\
        \max\!\big(0, r\,(i + \tfrac12) - \tfrac12\big), & r = 1/\text{scale\_factor}
        \text{ if given (and not recomputed), else } n / o, \end{cases}

    and weigh taps :math:`h_0 = \min(\lfloor s_i \rfloor, n-1)` and :math:`h_0 + 1` (clamped) by
    :math:`1 - \lambda` and :math:`\lambda = \operatorname{clip}(s_i - h_0, 0, 1)`. In the sympy
    field :math:`s_i` is exact (the scale is the Rational of the given float, exactly); the taps
    are those torch's float kernel picks (``floorf``), so both fields describe torch's operator.
    Nearest modes are 0/1 selections with torch's indices (``nearest_idx``,
    ``nearest_neighbor_exact_compute_source_index``).

    Parameters
    ----------
    input_shape : tuple of int
        ``(C, n_1, ..., n_d)``, ``d`` in 1..3.
    size : int or tuple of int, optional
        Output spatial size; exactly one of ``size`` and ``scale_factor``.
    scale_factor : float or tuple of float, optional
        Output size ``floor(n * scale_factor)``; the kernel then uses ``1 / scale_factor`` unless
        ``recompute_scale_factor`` is True.
    mode : str
    align_corners : bool or None
        Only for the linear modes (None means False), as torch.
    recompute_scale_factor : bool or None
    antialias : bool
        Must be False (torch's antialiasing is not supported).
    backend : {"numpy", "sympy"}

    Returns
    -------
    W : scipy.sparse.csr_array or sympy.SparseMatrix
    out_shape : tuple of int
    """
    field = _field(backend)
    shape = _shape(input_shape)
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, one of {tuple(_INTERP_MODES)}, got {_describe(mode)}")
    if mode not in _INTERP_MODES:
        raise ValueError(f"mode {mode!r} is not supported: interpolate_matrix builds {tuple(_INTERP_MODES)} "
                         f"(bicubic, area and antialiased modes are not affine maps of this kind or not implemented)")
    if antialias is not False:
        raise ValueError(f"antialias={antialias!r} is not supported: only antialias=False")
    d = len(shape) - 1
    want = _INTERP_MODES[mode]
    if want is not None and d != want:
        raise ValueError(f"mode {mode!r} needs a sample (C, *spatial) with {want} spatial axes, got input_shape {shape}")
    if d not in (1, 2, 3):
        raise ValueError(f"input_shape must be (C, *spatial) with 1 to 3 spatial axes, got {shape}")
    linear = want is not None
    if align_corners is not None:
        if not linear:
            raise ValueError(f"align_corners={align_corners!r}: align_corners can only be set with the interpolating "
                             f"modes linear, bilinear and trilinear, not mode {mode!r}")
        align = _validate.boolean("align_corners", align_corners)
    else:
        align = False
    if recompute_scale_factor is not None:
        recompute_scale_factor = _validate.boolean("recompute_scale_factor", recompute_scale_factor)
    spatial = shape[1:]
    if (size is None) == (scale_factor is None):
        raise ValueError(f"give exactly one of size and scale_factor, got size={size!r}, scale_factor={scale_factor!r}")
    scales: tuple[float | None, ...]
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor=True is not meaningful with an explicit size (torch refuses it)")
        out = tuple(_int(f"size[{k}]" if isinstance(size, (list, tuple)) else "size", v, minimum=1)
                    for k, v in enumerate(_per_axis("size", size, d, "int")))
        scales = (None,) * d
    else:
        raw = _per_axis("scale_factor", scale_factor, d, "positive number")
        sf = []
        for k, v in enumerate(raw):
            nm = f"scale_factor[{k}]" if isinstance(scale_factor, (list, tuple)) else "scale_factor"
            v = float(_validate.finite_real(nm, v))
            if v <= 0:
                raise ValueError(f"{nm} must be a positive number, got {v!r}")
            sf.append(v)
        out = tuple(int(math.floor(n * s)) for n, s in zip(spatial, sf))
        for k, o in enumerate(out):
            if o < 1:
                raise ValueError(f"scale_factor {sf[k]!r} gives an empty output axis ({spatial[k]} * {sf[k]!r} < 1)")
        scales = (None,) * d if recompute_scale_factor else tuple(sf)
    factors = [_Factor.identity(shape[0])]
    for n, o, s in zip(spatial, out, scales):
        if linear:
            factors.append(_linear_factor(n, o, align, s))
        else:
            factors.append(_Factor.selection(o, n, _nearest_source(n, o, s, mode == "nearest-exact", d)))
    m, n_, rows, cols, vals = _kron(factors, field, "interpolate_matrix")
    return _render(m, n_, rows, cols, vals, field), (shape[0],) + out


# -- padding -------------------------------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_source(n: int, lo: int, hi: int, mode: str, axis: int) -> np.ndarray:
    """Input index read by each output position of one padded axis (-1: the constant)."""
    o = np.arange(n + lo + hi, dtype=np.int64) - lo
    if mode == "constant":
        return np.where((o >= 0) & (o < n), o, -1)
    if mode == "replicate":
        return np.clip(o, 0, n - 1)
    if mode == "circular":
        # torch crops (negative pads) first, then wraps around what is left of the axis
        start, kept = max(-lo, 0), n + min(lo, 0) + min(hi, 0)
        if lo > n or hi > n:
            raise ValueError(f"pad ({lo}, {hi}) on axis {axis} of size {n}: circular padding must be at most the "
                             f"axis size (torch: 'Padding value causes wrapping around more than once')")
        if kept < 1:
            raise ValueError(f"pad ({lo}, {hi}) on axis {axis} of size {n}: circular padding needs at least one "
                             f"entry left after cropping, got {kept}")
        return start + (np.arange(n + lo + hi, dtype=np.int64) - max(lo, 0)) % kept
    if lo >= n or hi >= n:  # reflect
        raise ValueError(f"pad ({lo}, {hi}) on axis {axis} of size {n}: reflect padding must be less than the "
                         f"axis size")
    o = np.abs(o)
    return np.where(o > n - 1, 2 * (n - 1) - o, o)


def pad_matrix(input_shape: Any, pad: Any, mode: str = "constant", value: Any = 0.0,
               backend: str = "numpy") -> tuple[Any, Any, tuple[int, ...]]:
    r"""``F.pad(x, pad, mode, value)`` on one sample as :math:`y = W x + b`.

    ``pad`` is torch's tuple, last axis first: ``(left, right, top, bottom, front, back)``; it
    pads the trailing ``len(pad) // 2`` axes of the sample, and negative entries crop. ``"constant"``
    puts ``value`` into ``b`` (``b = 0`` when ``value`` is 0); ``"reflect"`` (pads < axis size),
    ``"replicate"`` and ``"circular"`` (pads <= axis size) make :math:`W` a 0/1 selection with
    ``b = 0``. The operator is :math:`I \otimes P_1 \otimes \cdots \otimes P_k`.

    Circular padding crops first and wraps around what is left, as torch does (``(2, -1)`` on
    ``[0, 1, 2, 3, 4]`` gives ``[2, 3, 0, 1, 2, 3]``); where a left pad exceeds what the crop leaves,
    torch reads uninitialised memory or refuses, and this gives the wrap-around values.

    Parameters
    ----------
    input_shape : tuple of int
    pad : sequence of int
        Even length, at most ``2 * len(input_shape)``.
    mode : {"constant", "reflect", "replicate", "circular"}
    value : float
        The constant (constant mode only; torch refuses it with the other modes).
    backend : {"numpy", "sympy"}

    Returns
    -------
    W : scipy.sparse.csr_array or sympy.SparseMatrix
    b : numpy.ndarray or sympy.Matrix
        Exact ``Rational(value)`` in the sympy field.
    out_shape : tuple of int
    """
    field = _field(backend)
    shape = _shape(input_shape)
    mode = _validate.choice("mode", mode, _PAD_MODES)
    pads = tuple(_int(f"pad[{i}]", v) for i, v in enumerate(_int_seq("pad", pad)))
    if len(pads) % 2 or not pads:
        raise ValueError(f"pad must have an even, non-zero number of entries (left, right, ...), got {pads!r}")
    k = len(pads) // 2
    if k > len(shape):
        raise ValueError(f"pad {pads!r} pads {k} axes, but input_shape {shape} has only {len(shape)}")
    if value is None:
        value = 0.0
    value = _validate.finite_real("value", value)
    if mode != "constant" and value != 0:
        raise ValueError(f"value={value!r}: padding mode {mode!r} takes no value (only mode 'constant' does)")
    lead = shape[: len(shape) - k]
    factors = [_Factor.identity(math.prod(lead))]
    masks = []
    out = list(lead)
    for j in range(k):
        axis = len(shape) - k + j
        lo, hi = pads[2 * (k - 1 - j)], pads[2 * (k - 1 - j) + 1]
        n = shape[axis]
        if n + lo + hi < 1:
            raise ValueError(f"pad ({lo}, {hi}) on axis {axis} of size {n} leaves {n + lo + hi} entries; "
                             f"at least 1 is needed")
        src = _pad_source(n, lo, hi, mode, axis)
        factors.append(_Factor.selection(len(src), n, src))
        masks.append(src >= 0)
        out.append(len(src))
    m, n_, rows, cols, vals = _kron(factors, field, "pad_matrix")
    W = _render(m, n_, rows, cols, vals, field)
    inside = np.ones(tuple(out[len(lead):]), dtype=bool)
    for j, mk in enumerate(masks):
        view = [1] * k
        view[j] = len(mk)
        inside = inside & mk.reshape(view)
    outside = np.tile(~inside.reshape(-1), math.prod(lead))
    if field == "sympy":
        v = _exact(value)
        b = sympy.Matrix(m, 1, [v if o else sympy.S.Zero for o in outside.tolist()])
    else:
        b = np.where(outside, float(value), 0.0)
    return W, b, tuple(out)


# -- permutations --------------------------------------------------------------------------------

def _spatial_shuffle(name: str, input_shape: Any, factor: Any, backend: Any) -> tuple[str, tuple[int, ...], int]:
    field = _field(backend)
    shape = _shape(input_shape)
    r = _int(name, factor, minimum=1)
    if len(shape) < 3:
        raise ValueError(f"input_shape must be (C, H, W) (or (*, C, H, W)), got {shape}")
    return field, shape, r


def pixel_shuffle_matrix(input_shape: Any, upscale_factor: Any, backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The permutation matrix of ``F.pixel_shuffle`` / ``nn.PixelShuffle`` on a sample ``(C r^2, H, W)``.

    :math:`y[c, h r + i, w r + j] = x[c r^2 + i r + j, h, w]`; the output is ``(C, H r, W r)``
    (leading axes, if any, are carried along).

    Parameters
    ----------
    input_shape : tuple of int
    upscale_factor : int
    backend : {"numpy", "sympy"}
    """
    field, shape, r = _spatial_shuffle("upscale_factor", input_shape, upscale_factor, backend)
    *lead, C, H, W = shape
    if C % (r * r):
        raise ValueError(f"pixel_shuffle needs the channel count {C} of input_shape {shape} to be divisible by "
                         f"upscale_factor**2 = {r * r}")
    c = C // (r * r)
    L = math.prod(lead)
    src = np.arange(math.prod(shape), dtype=np.int64).reshape(L, c, r, r, H, W).transpose(0, 1, 4, 2, 5, 3)
    return _permutation(src, math.prod(shape), field, "pixel_shuffle_matrix"), tuple(lead) + (c, H * r, W * r)


def pixel_unshuffle_matrix(input_shape: Any, downscale_factor: Any, backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The permutation matrix of ``F.pixel_unshuffle`` / ``nn.PixelUnshuffle`` on ``(C, H r, W r)``.

    :math:`y[c r^2 + i r + j, h, w] = x[c, h r + i, w r + j]`; the output is ``(C r^2, H, W)``.

    Parameters
    ----------
    input_shape : tuple of int
    downscale_factor : int
    backend : {"numpy", "sympy"}
    """
    field, shape, r = _spatial_shuffle("downscale_factor", input_shape, downscale_factor, backend)
    *lead, C, H, W = shape
    if H % r or W % r:
        raise ValueError(f"pixel_unshuffle needs the spatial sizes ({H}, {W}) of input_shape {shape} to be divisible "
                         f"by downscale_factor = {r}")
    h, w = H // r, W // r
    L = math.prod(lead)
    src = np.arange(math.prod(shape), dtype=np.int64).reshape(L, C, h, r, w, r).transpose(0, 1, 3, 5, 2, 4)
    return _permutation(src, math.prod(shape), field, "pixel_unshuffle_matrix"), tuple(lead) + (C * r * r, h, w)


def permute_matrix(input_shape: Any, dims: Any, backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The permutation matrix of ``x.permute(dims).contiguous()`` on one sample.

    Parameters
    ----------
    input_shape : tuple of int
    dims : sequence of int
        A permutation of ``range(len(input_shape))`` (negative axes allowed, as torch).
    backend : {"numpy", "sympy"}
    """
    field = _field(backend)
    shape = _shape(input_shape)
    nd = len(shape)
    raw = _int_seq("dims", dims)
    if len(raw) != nd:
        raise ValueError(f"dims must be a permutation of the {nd} axes of input_shape {shape}, got {tuple(raw)!r}")
    axes = tuple(_axis(f"dims[{i}]", v, nd) for i, v in enumerate(raw))
    if len(set(axes)) != nd:
        raise ValueError(f"dims must be a permutation of range({nd}) (each axis once), got {tuple(raw)!r}")
    src = np.arange(math.prod(shape), dtype=np.int64).reshape(shape).transpose(axes)
    return _permutation(src, math.prod(shape), field, "permute_matrix"), tuple(shape[a] for a in axes)


def concat_matrices(shapes: Any, dim: Any = 0, backend: str = "numpy") -> tuple[list[Any], tuple[int, ...]]:
    r"""``torch.cat(xs, dim)`` on samples as :math:`y = \sum_i W_i x_i`.

    Parameters
    ----------
    shapes : sequence of tuple of int
        The samples' shapes: equal ranks, equal sizes except along ``dim``.
    dim : int
        An axis of the samples (negative allowed).
    backend : {"numpy", "sympy"}

    Returns
    -------
    Ws : list
        One 0/1 matrix ``(prod(out_shape), prod(shapes[i]))`` per input.
    out_shape : tuple of int
    """
    field = _field(backend)
    if not isinstance(shapes, Sequence) or isinstance(shapes, (str, bytes)) or not shapes:
        raise TypeError(f"shapes must be a non-empty sequence of shapes, got {_describe(shapes)}")
    shps = [_shape(s, f"shapes[{i}]") for i, s in enumerate(shapes)]
    nd = len(shps[0])
    for i, s in enumerate(shps):
        if len(s) != nd:
            raise ValueError(f"shapes[{i}] = {s} has {len(s)} axes, shapes[0] = {shps[0]} has {nd}: torch.cat needs equal ranks")
    ax = _axis("dim", dim, nd)
    for i, s in enumerate(shps):
        if s[:ax] + s[ax + 1:] != shps[0][:ax] + shps[0][ax + 1:]:
            raise ValueError(f"shapes[{i}] = {s} differs from shapes[0] = {shps[0]} off axis {ax}: torch.cat needs equal "
                             f"sizes except along dim")
    out = shps[0][:ax] + (sum(s[ax] for s in shps),) + shps[0][ax + 1:]
    grid = np.arange(math.prod(out), dtype=np.int64).reshape(out)
    Ws, offset = [], 0
    for s in shps:
        sel = [slice(None)] * nd
        sel[ax] = slice(offset, offset + s[ax])
        rows = grid[tuple(sel)].reshape(-1)
        offset += s[ax]
        check_size("concat_matrices", (len(grid.reshape(-1)), len(rows)), len(rows), field=field)
        Ws.append(_render(math.prod(out), len(rows), rows, np.arange(len(rows), dtype=np.int64), None, field))
    return Ws, out


def index_matrix(input_shape: Any, index: Any, backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The 0/1 matrix of basic indexing ``x[index]`` on one sample (a view, then contiguous).

    Parameters
    ----------
    input_shape : tuple of int
    index : int, slice, None, Ellipsis or a tuple of them
        Slices with positive steps and any (negative or out-of-range) bounds, as torch. Tensors,
        lists, arrays and bools (advanced indexing) are refused.
    backend : {"numpy", "sympy"}
    """
    field = _field(backend)
    shape = _shape(input_shape)
    items = index if isinstance(index, tuple) else (index,)
    clean: list[Any] = []
    n_axes = sum(1 for it in items if it is not None and it is not Ellipsis)
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise ValueError(f"index {index!r} has more than one Ellipsis")
    if n_axes > len(shape):
        raise ValueError(f"index {index!r} indexes {n_axes} axes, but input_shape {shape} has {len(shape)}")
    axis = 0
    for pos, it in enumerate(items):
        if it is None:
            clean.append(None)
        elif it is Ellipsis:
            clean.append(Ellipsis)
            axis += len(shape) - n_axes
        elif isinstance(it, slice):
            parts = []
            for nm in ("start", "stop", "step"):
                v = getattr(it, nm)
                if v is not None:
                    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                        raise TypeError(f"index[{pos}]: slice {nm} must be an integer or None, got {_describe(v)}")
                    v = int(v)
                parts.append(v)
            if parts[2] is not None and parts[2] <= 0:
                raise ValueError(f"index[{pos}]: slice step must be positive (torch refuses {parts[2]}), got {it!r}")
            clean.append(slice(*parts))
            axis += 1
        elif isinstance(it, numbers.Integral) and not isinstance(it, (bool, np.bool_)):
            n = shape[axis]
            if not -n <= int(it) < n:
                raise ValueError(f"index[{pos}] = {int(it)} is out of range for axis {axis} of size {n}")
            clean.append(int(it))
            axis += 1
        else:
            raise TypeError(f"index[{pos}] = {_describe(it)}: only ints, slices, None and Ellipsis (basic indexing) "
                            f"are supported; tensors, lists, arrays and bools are advanced indexing")
    src = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)[tuple(clean)]
    out = tuple(int(s) for s in np.shape(src))
    return _permutation(np.asarray(src), math.prod(shape), field, "index_matrix"), out


def reduce_matrix(input_shape: Any, dims: Any = None, keepdim: Any = False, mean: Any = True,
                  backend: str = "numpy") -> tuple[Any, tuple[int, ...]]:
    r"""The matrix of ``x.mean(dims, keepdim)`` (``mean=True``) or ``x.sum(dims, keepdim)`` on one sample.

    Entries are :math:`1/\prod_{k \in \text{dims}} n_k` (exact in the sympy field) or 1.

    Parameters
    ----------
    input_shape : tuple of int
    dims : int, sequence of int or None
        Axes of the sample (negative allowed); ``None`` or ``()`` reduces every axis, as torch.
    keepdim : bool
    mean : bool
    backend : {"numpy", "sympy"}
    """
    field = _field(backend)
    shape = _shape(input_shape)
    nd = len(shape)
    keepdim = _validate.boolean("keepdim", keepdim)
    mean = _validate.boolean("mean", mean)
    if dims is None:
        axes: tuple[int, ...] = tuple(range(nd))
    elif isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        axes = (_axis("dims", dims, nd),)
    else:
        raw = _int_seq("dims", dims)
        axes = tuple(_axis(f"dims[{i}]", v, nd) for i, v in enumerate(raw)) or tuple(range(nd))
        if len(set(axes)) != len(axes):
            raise ValueError(f"dims {tuple(raw)!r} names an axis more than once")
    kept = tuple(1 if a in axes else s for a, s in enumerate(shape))
    out = kept if keepdim else tuple(s for a, s in enumerate(shape) if a not in axes)
    N = math.prod(shape)
    count = math.prod(shape[a] for a in axes)
    check_size("reduce_matrix", (math.prod(kept), N), N, field=field)
    rows = np.broadcast_to(np.arange(math.prod(kept), dtype=np.int64).reshape(kept), shape).reshape(-1)
    f = _Factor(math.prod(kept), N, rows, np.arange(N, dtype=np.int64),
                *((np.ones(N, dtype=np.int64), np.full(N, count, dtype=np.int64)) if mean and count > 1 else (None, None)))
    return _render(f.m, f.n, f.rows, f.cols, f.values(field), field), out


# -- batch norm ----------------------------------------------------------------------------------

def _channel_vector(name: str, value: Any, C: int, default: float | None) -> np.ndarray:
    if value is None:
        if default is None:
            raise TypeError(f"{name} must be an array of {C} numbers, got None")
        return np.full(C, default, dtype=np.float64)
    arr = np.asarray(_backend.from_torch(value))
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array of {C} entries, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.shape != (C,):
        raise ValueError(f"{name} must have shape ({C},) (one entry per channel of input_shape), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr[~np.isfinite(arr)][0]!r} in it")
    return arr


def _exact(v: float) -> sympy.Rational:
    f = Fraction(float(v))
    return sympy.Rational(f.numerator, f.denominator)


def batchnorm_matrix(input_shape: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,
                     eps: Any = 1e-5, backend: str = "numpy") -> tuple[Any, Any, tuple[int, ...]]:
    r"""Eval-mode ``nn.BatchNorm1d/2d/3d`` on one sample as :math:`y = W x + b`.

    .. math::

        y_{c,\dots} = \frac{x_{c,\dots} - \mu_c}{\sqrt{\sigma^2_c + \epsilon}}\,\gamma_c + \beta_c,
        \qquad W = \operatorname{diag}(s_c)\otimes I,\quad s_c = \frac{\gamma_c}{\sqrt{\sigma^2_c+\epsilon}},
        \quad b_c = \beta_c - \mu_c s_c.

    In the numpy field :math:`s_c` is computed in float64; in the sympy field every float is
    taken exactly (``Rational``) and the square root stays symbolic.

    Parameters
    ----------
    input_shape : tuple of int
        ``(C,)``, ``(C, L)`` or ``(C, *spatial)``.
    running_mean, running_var : array_like
        ``(C,)`` (NumPy arrays or torch tensors).
    weight, bias : array_like or None
        ``(C,)``; None for ``affine=False`` (1 and 0).
    eps : float
        Positive.
    backend : {"numpy", "sympy"}
    """
    field = _field(backend)
    shape = _shape(input_shape)
    C, inner = shape[0], math.prod(shape[1:])
    mu = _channel_vector("running_mean", running_mean, C, None)
    var = _channel_vector("running_var", running_var, C, None)
    w = _channel_vector("weight", weight, C, 1.0)
    bb = _channel_vector("bias", bias, C, 0.0)
    eps = _validate.finite_real("eps", eps)
    if eps <= 0:
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    if np.any(var + eps <= 0):
        bad = int(np.flatnonzero(var + eps <= 0)[0])
        raise ValueError(f"running_var[{bad}] + eps = {var[bad] + eps!r} must be positive")
    N = C * inner
    check_size("batchnorm_matrix", (N, N), N, field=field)
    diag = np.arange(N, dtype=np.int64)
    channel = np.repeat(np.arange(C), inner)
    if field == "sympy":
        scale = [_exact(w[c]) / sympy.sqrt(_exact(var[c]) + _exact(eps)) for c in range(C)]
        shift = [_exact(bb[c]) - _exact(mu[c]) * scale[c] for c in range(C)]
        vals = np.empty(N, dtype=object)
        vals[:] = [scale[c] for c in channel.tolist()]
        b = sympy.Matrix(N, 1, [shift[c] for c in channel.tolist()])
    else:
        s = w / np.sqrt(var + eps)
        vals = s[channel]
        b = (bb - mu * s)[channel]
    return _render(N, N, diag, diag, vals, field), b, shape
