r"""Matrix-free layers as :class:`scipy.sparse.linalg.LinearOperator` objects.

Every matrix-free apply in :mod:`isomat.algebra` -- :func:`~isomat.algebra.conv_apply`,
:func:`~isomat.algebra.project`, :func:`~isomat.algebra.ndlinear_apply`, the SPM forward
(:func:`~isomat.algebra.spm_forward`, :func:`~isomat.algebra.spm_transpose_apply`) and
:class:`~isomat.algebra.DiagonalBlocks` -- is wrapped here as a SciPy ``LinearOperator`` with
``matvec``, ``rmatvec``, ``matmat`` and ``rmatmat``, so that ``scipy.sparse.linalg`` solvers
(``cg``, ``lsqr``, ``lsmr``, ``gmres``, ``svds``, ``eigsh`` ...) and ``pylops.aslinearoperator``
take it directly, with no matrix ever built.

Conventions. A layer maps the row-major flattening :math:`x=\operatorname{vec}(X)` of an input of
``input_shape`` to the row-major flattening of its output of ``output_shape`` (both recorded on
the operator), exactly as the materialized matrices of the same family
(:func:`~isomat.algebra.conv_matrix`, :func:`~isomat.algebra.projection`,
:func:`~isomat.algebra.ndlinear_matrix`, :func:`~isomat.algebra.layer_matrix`,
:meth:`~isomat.algebra.DiagonalBlocks.toarray`). ``matmat`` takes the columns of an
``(N, k)`` array as ``k`` inputs and runs them as one batch where that is faster than column by
column;
``rmatvec``/``rmatmat`` apply the adjoint :math:`A^{\mathsf H}` (the transpose for real layers),
again matrix-free. The operators are *linear*: where the layer has a bias (NdLinear, SPM) it is
kept out of the operator and exposed as the attribute ``bias``, so that
``layer(x) == A @ x + A.bias``.

The operators are float (NumPy, CPU): kernels and weights may be NumPy arrays, torch tensors or
Parameters (detached), or exact SymPy numbers (converted to float); symbolic entries and CuPy
arrays are refused with a ``TypeError``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from .. import _validate
from .._config import get_memory_limit
from ..errors import SizeLimitError
from ..gpu import is_cupy_array
from . import _backend
from ._operator import _human

__all__ = [
    "MatrixFreeOperator",
    "conv_linear_operator",
    "conv_transpose_apply",
    "diagonal_blocks_linear_operator",
    "ndlinear_linear_operator",
    "projection_linear_operator",
    "spm_linear_operator",
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _float_array(value: Any, name: str) -> np.ndarray:
    """A float (or complex) NumPy array from NumPy, torch (detached), SymPy numbers or lists."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got {value!r}")
    if is_cupy_array(value):
        raise TypeError(f"{name} is a CuPy array: the LinearOperators here are NumPy (CPU) operators; "
                        f"pass {name}.get()")
    if hasattr(value, "detach") and hasattr(value, "cpu") and hasattr(value, "numpy"):  # torch
        value = value.detach().cpu().numpy()
    return _backend.as_values(value, "numpy", name=name)


def _float_dtype(*dtypes: Any) -> np.dtype:
    """The operator dtype: the inputs' float/complex type, at least float32."""
    dt = np.result_type(*dtypes)
    if dt.kind not in "fc":
        dt = np.dtype(np.float64)
    return dt


def _check_entries(what: str, entries: int, itemsize: int) -> None:
    """The memory guard (``isomat.set_memory_limit``) applied to dense temporaries."""
    need = int(entries) * int(itemsize)
    limit = get_memory_limit()
    if need > limit:
        raise SizeLimitError(
            f"{what}: its work arrays would hold {int(entries):,} values, about {_human(need)}, over the memory "
            f"bound of {_human(limit)} (raise it with isomat.set_memory_limit, ISOMAT_MEMORY_LIMIT or isomat export --memory-limit, "
            f"or apply fewer columns at a time)")


class MatrixFreeOperator(LinearOperator):
    r"""A ``scipy.sparse.linalg.LinearOperator`` over a matrix-free layer apply.

    Built by the ``*_linear_operator`` functions of this module. Subclasses supply the batched
    forward map ``_apply_forward(X)`` (``X`` of shape ``(k, *input_shape)`` to ``(k, *output_shape)``)
    and the batched transpose ``_apply_transpose(Y)``; this class does the flattening that SciPy's
    protocol asks for, and forms the adjoint of a complex operator as
    :math:`A^{\mathsf H}y=\overline{A^{\mathsf T}\bar y}`.

    Attributes
    ----------
    shape : (int, int)
        ``(prod(output_shape), prod(input_shape))``.
    dtype : numpy.dtype
    input_shape, output_shape : tuple of int
        The layer's (unflattened) input and output shapes, row-major ``vec`` on both sides.
    bias : ndarray or None
        The layer's bias (kept out of the linear operator), or ``None`` for a bias-free layer.
    """

    def __init__(self, dtype: Any, input_shape: tuple[int, ...], output_shape: tuple[int, ...],
                 bias: np.ndarray | None = None) -> None:
        self.input_shape = tuple(int(s) for s in input_shape)
        self.output_shape = tuple(int(s) for s in output_shape)
        self.bias = bias
        super().__init__(dtype=np.dtype(dtype), shape=(math.prod(self.output_shape), math.prod(self.input_shape)))

    # subclasses ---------------------------------------------------------------------------
    def _apply_forward(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # SciPy's protocol ------------------------------------------------------------------------
    def _matmat(self, X: Any) -> np.ndarray:
        X = np.asarray(X)
        k = X.shape[1]
        Y = self._apply_forward(np.ascontiguousarray(X.T).reshape((k,) + self.input_shape))
        return Y.reshape(k, -1).T

    def _matvec(self, x: Any) -> np.ndarray:
        return self._matmat(np.asarray(x).reshape(-1, 1)).reshape(-1)

    def _rmatmat(self, Y: Any) -> np.ndarray:
        Y = np.asarray(Y)
        k = Y.shape[1]
        complex_op = self.dtype.kind == "c"
        Yb = np.ascontiguousarray((Y.conj() if complex_op else Y).T).reshape((k,) + self.output_shape)
        X = self._apply_transpose(Yb).reshape(k, -1).T
        return X.conj() if complex_op else X

    def _rmatvec(self, y: Any) -> np.ndarray:
        return self._rmatmat(np.asarray(y).reshape(-1, 1)).reshape(-1)

    def __repr__(self) -> str:
        return (f"<{self.shape[0]}x{self.shape[1]} {type(self).__name__} with dtype={self.dtype}, "
                f"input_shape={self.input_shape}, output_shape={self.output_shape}>")


# ---------------------------------------------------------------------------------------------
# convolution: conv_apply forward, transposed convolution (scatter-add) adjoint
# ---------------------------------------------------------------------------------------------
def _source_index(j: int, n: int, boundary: str) -> int | None:
    """The input index that padded position ``j`` (relative to the first input element) reads
    under ``boundary``; ``None`` when it reads zero."""
    if 0 <= j < n:
        return j
    if boundary == "zero":
        return None
    if boundary == "circular":
        return j % n
    if boundary == "replicate":
        return min(max(j, 0), n - 1)
    if boundary == "reflect":  # torch/NumPy "reflect": the edge is not repeated, period 2(n - 1)
        if n == 1:
            return 0
        r = j % (2 * n - 2)
        return r if r < n else 2 * n - 2 - r
    raise ValueError(f"boundary {boundary!r} has no adjoint here; expected 'zero', 'circular', 'reflect' or "
                     f"'replicate'")


def _fold_axis(G: np.ndarray, axis: int, n: int, lo: int, hi: int, boundary: str) -> np.ndarray:
    r"""Adjoint of padding one axis: the interior plus every padded position added onto the input
    position it was read from (:func:`_source_index`)."""
    sl = [slice(None)] * G.ndim
    sl[axis] = slice(lo, lo + n)
    out = G[tuple(sl)].copy()
    if boundary == "zero":
        return out
    for p in itertools.chain(range(lo), range(lo + n, lo + n + hi)):
        j = _source_index(p - lo, n, boundary)
        if j is None:
            continue
        before = (slice(None),) * axis
        out[before + (j,)] += G[before + (p,)]
    return out


def _transposed_conv(Y: np.ndarray, k: np.ndarray, plan: Any) -> np.ndarray:
    r"""Batched :math:`W^{\mathsf T}`: ``Y`` of shape ``(B, C_out, *out)`` to ``(B, C_in, *spatial)``.

    With :math:`W=\sum_t K_t\otimes(S^{(1)}_{t_1}\otimes\cdots\otimes S^{(d)}_{t_d})` (zhu2025
    §4.2.1; :math:`K_t` the block-diagonal-over-groups channel matrix of tap :math:`t`, the
    :math:`S` shifts into the padded input), :math:`W^{\mathsf T}=\sum_t K_t^{\mathsf T}\otimes
    (S^{(1)}_{t_1}\otimes\cdots)^{\mathsf T}`: per tap one batched GEMM
    :math:`K_t^{\mathsf T}Y`, scatter-added into the strided slice of the padded buffer that the
    forward tap reads; the padding is then undone by its adjoint (:func:`_fold_axis`).
    """
    B = Y.shape[0]
    d, g, opg, cpg = plan.d, plan.groups, plan.opg, plan.cpg
    padded = tuple(n + lo + hi for n, lo, hi in zip(plan.spatial, plan.lo, plan.hi))
    P = math.prod(plan.out)
    dtype = np.result_type(Y.dtype, k.dtype)
    _check_entries("conv transpose apply", B * plan.c_in * (math.prod(padded) + 2 * P), dtype.itemsize)
    from . import _threads

    G = np.zeros((B, plan.c_in) + padded, dtype=dtype)
    Yg = Y.reshape(B, g, opg, P)
    for t in itertools.product(*[range(kt) for kt in plan.ktaps]):
        kt = k[(slice(None), slice(None)) + t].reshape(g, opg, cpg)
        # BLAS threads by the load, as conv_apply's GEMM (two OpenBLAS threads beside a busy core took
        # 146 ms for a 64->64 3x3 transpose at 32^2 that one thread does in a few)
        with _threads.blas_limit(_threads.blas_threads(None)):
            Z = np.matmul(kt.transpose(0, 2, 1), Yg)  # (g, cpg, opg) @ (B, g, opg, P) -> (B, g, cpg, P)
        sl = tuple(slice(t[i] * plan.dilation[i], t[i] * plan.dilation[i] + (plan.out[i] - 1) * plan.stride[i] + 1,
                         plan.stride[i]) for i in range(d))
        G[(slice(None), slice(None)) + sl] += Z.reshape((B, plan.c_in) + plan.out)  # distinct positions per tap
    for i in range(d):
        G = _fold_axis(G, 2 + i, plan.spatial[i], plan.lo[i], plan.hi[i], plan.boundary)
    return G


def _conv_setup(input_shape: Any, kernel: Any, stride: Any, padding: Any, dilation: Any, boundary: Any,
                groups: Any) -> tuple[np.ndarray, Any]:
    from .conv import _kernel_values, _Plan

    k = _kernel_values(_float_array(kernel, "kernel") if kernel is not None and not isinstance(kernel, (str, bytes))
                       else kernel, "numpy")
    plan = _Plan(input_shape, tuple(k.shape), stride, padding, dilation, boundary, groups=groups)
    return k, plan


def conv_transpose_apply(y: Any, kernel: Any, input_shape: Any, *, stride: Any = 1, padding: Any = 0,
                         dilation: Any = 1, boundary: str = "zero", groups: int = 1) -> np.ndarray:
    r"""Matrix-free transposed convolution :math:`W^{\mathsf T}y` of the layer of :func:`~isomat.algebra.conv_matrix`.

    The convolution of zhu2025 §4.2.1 (Theorem 4.1), as torch's ``conv{1,2,3}d``, is

    .. math::

        Y_{c,o} = \sum_{c'}\sum_{t} k_{c,c',t}\,\tilde X_{c',\,o\odot s+t\odot\delta},
        \qquad W = \sum_t K_t\otimes S_t,\quad S_t = S^{(1)}_{t_1}\otimes\cdots\otimes S^{(d)}_{t_d},

    with :math:`\tilde X = \Pi X` the padded input (zero, circular, ... padding is a linear map
    :math:`\Pi`), :math:`S^{(i)}_{t_i}` the shift selecting rows :math:`o_i s_i + t_i\delta_i` of
    the padded axis and :math:`K_t` the channel matrix of tap :math:`t` (block diagonal over
    ``groups``). Its transpose is

    .. math::

        W^{\mathsf T}y = \Pi^{\mathsf T}\sum_t \bigl(K_t^{\mathsf T}\otimes S_t^{\mathsf T}\bigr)y,
        \qquad \bigl(W^{\mathsf T}Y\bigr)_{c',j} = \sum_{c}\sum_{(t,o):\;o\odot s+t\odot\delta=j}
            k_{c,c',t}\,Y_{c,o}\ \ (\text{before } \Pi^{\mathsf T}),

    a correlation of the zero-stuffed (stride-dilated) :math:`Y` with the flipped kernel, which
    is computed here as a scatter-add: for each tap one batched GEMM :math:`K_t^{\mathsf T}Y`
    added into the strided slice of the padded buffer that the forward tap reads. No matrix is
    built; the work arrays hold the padded input and one tap's products. :math:`\Pi^{\mathsf T}`
    keeps the interior and adds each padded position onto the input position it copies
    (circular: modulo :math:`n_i`; reflect, replicate: the mirrored / clamped index). For the
    zero boundary this is ``torch.nn.functional.conv_transpose{1,2,3}d`` with
    ``output_padding`` chosen to give back ``input_shape``.

    Parameters
    ----------
    y : array
        The output side: ``(C_out, o1, ..., od)`` (``(o1, ..., od)`` for a single-channel kernel),
        with or without one leading batch axis, or flat (``(N_out,)``, or ``(B, N_out)``).
    kernel, input_shape, stride, padding, dilation, boundary, groups
        As :func:`~isomat.algebra.conv_matrix`.

    Returns
    -------
    ndarray
        ``input_shape`` (with the batch axis when ``y`` had one; flat when ``y`` was flat).
    """
    k, plan = _conv_setup(input_shape, kernel, stride, padding, dilation, boundary, groups)
    Y = _float_array(y, "y")
    out_shape = plan.out if plan.single else (plan.c_out,) + plan.out
    in_shape = plan.spatial if plan.single else (plan.c_in,) + plan.spatial
    n_out = math.prod(out_shape)
    if Y.shape == out_shape or (Y.ndim == 1 and Y.shape[0] == n_out):
        flat, batch = Y.ndim == 1 and len(out_shape) > 1, False
        Yb = Y.reshape((1,) + out_shape)
    elif Y.shape[1:] == out_shape or (Y.ndim == 2 and Y.shape[1] == n_out and len(out_shape) > 1):
        flat, batch = Y.ndim == 2 and len(out_shape) > 1, True
        Yb = Y.reshape((Y.shape[0],) + out_shape)
    else:
        raise ValueError(f"y must have the convolution's output shape {out_shape} (or {n_out} entries flat), "
                         f"optionally after one batch axis, got shape {tuple(Y.shape)}")
    X = _conv_transpose_batch(Yb, k, plan)
    X = X.reshape((X.shape[0],) + ((math.prod(in_shape),) if flat else in_shape))
    return X if batch else X[0]


def _conv_transpose_batch(Yb: np.ndarray, k: np.ndarray, plan: Any) -> np.ndarray:
    """``(B, *out_shape)`` -> ``(B, *in_shape)`` (single-channel shapes without the channel axis)."""
    B = Yb.shape[0]
    from . import _stencil, _threads
    from .conv import _stencil_eligible

    dtype = np.result_type(Yb.dtype, k.dtype)
    if _stencil_eligible(plan, "numpy", dtype, dtype, dtype, transpose=True):
        # the Numba stencil (isomat.algebra._stencil.transpose): each input row owned by one thread,
        # padding folded through the same index maps as the forward apply
        in_shape = (plan.c_in,) + plan.spatial
        _check_entries("conv transpose apply", B * math.prod(in_shape), dtype.itemsize)
        kk = np.ascontiguousarray((k.reshape((1, 1) + k.shape) if plan.single else k), dtype=dtype)
        Ys = Yb.astype(dtype, copy=False).reshape((B, plan.c_out) + plan.out)
        X = [_stencil.transpose(Ys[b], kk, plan.groups, in_shape, plan.lo, plan.hi, plan.stride, plan.dilation,
                                plan.boundary, _threads.resolve(None)) for b in range(B)]
        X = X[0][None] if B == 1 else np.stack(X)  # one sample: no copy
        return X.reshape((B,) + (plan.spatial if plan.single else in_shape))
    if plan.single:
        G = _transposed_conv(Yb.reshape((B, 1) + plan.out), k.reshape((1, 1) + k.shape), plan)
        return G.reshape((B,) + plan.spatial)
    return _transposed_conv(Yb, k, plan)


class _ConvOperator(MatrixFreeOperator):
    def __repr__(self) -> str:
        # what a user built (conv_linear_operator), not this private class's name
        return (f"<conv_linear_operator: input {self.input_shape} -> output {self.output_shape}, kernel "
                f"{tuple(self.kernel.shape)}, {self.dtype}>")

    def __init__(self, k: np.ndarray, plan: Any, kwargs: dict[str, Any]) -> None:
        self.kernel, self.plan, self._kw = k, plan, kwargs
        in_shape = plan.spatial if plan.single else (plan.c_in,) + plan.spatial
        out_shape = plan.out if plan.single else (plan.c_out,) + plan.out
        super().__init__(_float_dtype(k.dtype, np.float32), in_shape, out_shape)

    def _apply_forward(self, X: np.ndarray) -> np.ndarray:
        from .conv import _IM2COL_BYTES, conv_apply

        B, plan, k = X.shape[0], self.plan, self.kernel
        stacked = B * plan.c_in * plan.K * math.prod(plan.out) * np.result_type(X.dtype, k.dtype).itemsize
        if B == 1 or plan.single or stacked > _IM2COL_BYTES:
            # one sample at a time: conv_apply's threaded single-channel path, or a batch whose
            # stacked shifts would not fit conv_apply's one-GEMM buffer (measured: no gain then)
            return np.stack([conv_apply(X[b], k, **self._kw) for b in range(B)])
        # a batch is one convolution with B times the groups: sample b's channels form groups
        # b*g .. b*g + g - 1 of a (B*C_in, *spatial) input, read by a B-fold tiled kernel, and
        # conv_apply makes one batched GEMM of it
        kb = np.tile(k, (B,) + (1,) * (k.ndim - 1))
        Xb = X.reshape((B * plan.c_in,) + plan.spatial)
        kw = dict(self._kw, groups=B * plan.groups)
        Y = conv_apply(Xb, np.ascontiguousarray(kb), **kw)
        return Y.reshape((B,) + self.output_shape)

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:
        return _conv_transpose_batch(Y, self.kernel, self.plan)


def conv_linear_operator(input_shape: Any, kernel: Any, *, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                         boundary: str = "zero", groups: int = 1) -> MatrixFreeOperator:
    r"""The convolution layer of :func:`~isomat.algebra.conv_matrix` as a ``LinearOperator`` (zhu2025 §4.2.1).

    ``A @ x`` is :func:`~isomat.algebra.conv_apply` on ``x`` reshaped to ``input_shape``
    (:math:`W x=\sum_t (K_t\otimes S_t)x`, strided slices of the padded input, one GEMM);
    ``A.T @ y`` / ``A.rmatvec(y)`` is the transposed convolution :func:`conv_transpose_apply`
    (a scatter-add of :math:`K_t^{\mathsf T}Y` per tap, then the adjoint of the padding). A
    ``matmat`` of ``k`` columns of a multi-channel layer is one convolution with ``k`` times the
    groups (the batch laid along the channels: one GEMM) while its stacked shifts fit
    ``conv_apply``'s buffer, else (and for single-channel layers, whose threaded path is faster)
    ``k`` applies; an ``rmatmat`` is one batched transposed convolution. Nothing of size nnz is
    built.

    Parameters
    ----------
    input_shape : tuple of int
        ``(C_in, n1, ..., nd)``, or ``(n1, ..., nd)`` for a single-channel kernel ``(k1, ..., kd)``.
    kernel : array
        ``(C_out, C_in / groups, k1, ..., kd)`` (or ``(k1, ..., kd)``): NumPy, torch (detached) or
        exact numbers (converted to float).
    stride, padding, dilation, boundary, groups
        As :func:`~isomat.algebra.conv_matrix`.

    Returns
    -------
    MatrixFreeOperator
        Of shape ``(C_out * prod(o), C_in * prod(n))`` and the kernel's float dtype, equal to
        ``conv_matrix(input_shape, kernel, ...)``; ``input_shape`` / ``output_shape`` attributes.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse.linalg import lsqr
    >>> rng = np.random.default_rng(0)
    >>> A = conv_linear_operator((1, 16, 16), rng.standard_normal((2, 1, 3, 3)), padding=1)
    >>> A.shape, A.output_shape
    ((512, 256), (2, 16, 16))
    >>> x = rng.standard_normal(256)
    >>> x_hat = lsqr(A, A @ x, atol=1e-12, btol=1e-12)[0]   # recover the input from the output
    >>> bool(np.linalg.norm(x_hat - x) < 1e-8)
    True
    """
    k, plan = _conv_setup(input_shape, kernel, stride, padding, dilation, boundary, groups)
    # conv_apply takes the same (now validated) arguments
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "boundary": boundary, "groups": groups}
    return _ConvOperator(k, plan, kw)


# ---------------------------------------------------------------------------------------------
# projection (cheng2025 eq. 22)
# ---------------------------------------------------------------------------------------------
class _ProjectionOperator(MatrixFreeOperator):
    def __init__(self, m: int, n: int) -> None:
        self.m, self.n = m, n
        super().__init__(np.float64, (m,), (n,))

    def _apply_forward(self, X: np.ndarray) -> np.ndarray:
        from .projection import project

        return np.asarray(project(np.ascontiguousarray(X.T), self.n)).reshape(self.n, -1).T

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:
        from .projection import project

        return (self.n / self.m) * np.asarray(project(np.ascontiguousarray(Y.T), self.m)).reshape(self.m, -1).T

    def _matmat(self, X: Any) -> np.ndarray:  # project takes the (m, k) columns as they are
        from .projection import project

        return np.asarray(project(np.asarray(X), self.n)).reshape(self.n, -1)

    def _rmatmat(self, Y: Any) -> np.ndarray:
        from .projection import project

        return (self.n / self.m) * np.asarray(project(np.asarray(Y), self.m)).reshape(self.m, -1)


def projection_linear_operator(m: int, n: int) -> MatrixFreeOperator:
    r"""The cross-dimensional projection :math:`\Pi^m_n:\mathbb R^m\to\mathbb R^n` (cheng2025
    Definition 2.9, eq. 22) as a ``LinearOperator``, applied by :func:`~isomat.algebra.project`.

    With :math:`t=\operatorname{lcm}(m,n)`,
    :math:`\Pi^m_n=\frac nt(I_n\otimes\mathbf 1^{\mathsf T}_{t/n})(I_m\otimes\mathbf 1_{t/m})`, so

    .. math::

        (\Pi^m_n)^{\mathsf T} = \frac nt\,(I_m\otimes\mathbf 1^{\mathsf T}_{t/m})(I_n\otimes\mathbf 1_{t/n})
        = \frac nm\,\Pi^n_m :

    the adjoint is the projection back, scaled by :math:`n/m`, and is applied matrix-free by
    the same :func:`~isomat.algebra.project` in :math:`O((m+n)k)` for ``k`` columns.

    Returns
    -------
    MatrixFreeOperator
        ``n x m``, float64, equal to ``projection(m, n)``.
    """
    m = _validate.positive_int("m", m)
    n = _validate.positive_int("n", n)
    return _ProjectionOperator(m, n)


# ---------------------------------------------------------------------------------------------
# NdLinear (reneau2025)
# ---------------------------------------------------------------------------------------------
class _NdLinearOperator(MatrixFreeOperator):
    def __init__(self, ws: list[np.ndarray], bias: np.ndarray | None) -> None:
        self.weights = ws
        self._wt = [np.ascontiguousarray(w.T) for w in ws]
        super().__init__(_float_dtype(*[w.dtype for w in ws], np.float32), tuple(w.shape[1] for w in ws),
                         tuple(w.shape[0] for w in ws), bias)

    def _apply_forward(self, X: np.ndarray) -> np.ndarray:
        from .ndlinear import ndlinear_apply

        return ndlinear_apply(X, self.weights, backend="numpy")

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:
        from .ndlinear import ndlinear_apply

        return ndlinear_apply(Y, self._wt, backend="numpy")


def ndlinear_linear_operator(weights: Any, biases: Any = None, order: str = "outer", *,
                             input_shape: Any = None) -> MatrixFreeOperator:
    r"""The linear part :math:`W_1\otimes\cdots\otimes W_N` of an NdLinear layer (reneau2025 Alg. 1)
    as a ``LinearOperator``, applied by :func:`~isomat.algebra.ndlinear_apply`.

    ``A @ x`` is the sequence of mode products :math:`X\times_1W_1\cdots\times_NW_N` on ``x``
    reshaped to :math:`(D_1,\dots,D_N)` (row-major); ``matmat`` runs its columns as one batch.
    The adjoint is the layer of the transposed weights, since
    :math:`(W_1\otimes\cdots\otimes W_N)^{\mathsf T}=W_1^{\mathsf T}\otimes\cdots\otimes W_N^{\mathsf T}`,
    again matrix-free.

    The bias. An NdLinear layer is affine, :math:`\operatorname{vec}Y=(\bigotimes_k W_k)\operatorname{vec}X+\beta`,
    and a ``LinearOperator`` is linear, so the operator is the weight part only (for either
    ``order``: the orders differ in :math:`\beta` alone). ``biases`` and ``order`` only fill the
    attribute ``A.bias`` with :math:`\beta` (:func:`~isomat.algebra.ndlinear_bias`; zeros when
    ``biases`` is None), so that ``ndlinear_apply(X, weights, biases, order).ravel() == A @ X.ravel() + A.bias``.

    Parameters
    ----------
    weights : sequence of matrices
        :math:`W_k` of shape ``(H_k, D_k)`` (``nn.Linear.weight`` layout); NumPy, torch or exact numbers.
    biases : sequence of vectors or None, optional
    order : {"outer", "inner"}
    input_shape : tuple of int, optional
        :math:`(D_1,\dots,D_N)`, checked against the weights when given.

    Returns
    -------
    MatrixFreeOperator
        ``prod(H) x prod(D)``, equal to ``ndlinear_matrix(weights)[0]``.
    """
    from .ndlinear import _weights, ndlinear_bias

    if isinstance(weights, (list, tuple)):
        weights = [w if np.isscalar(w) else _float_array(w, f"weights[{i}]") for i, w in enumerate(weights)]
    ws, _ = _weights(weights, "numpy")
    ws = [np.asarray(w) for w in ws]
    if input_shape is not None:
        D = _validate.shape("input_shape", input_shape)
        cols = tuple(w.shape[1] for w in ws)
        if D != cols:
            raise ValueError(f"input_shape {D} does not match the weights: their columns give D = {cols}")
    if biases is not None and isinstance(biases, (list, tuple)):
        biases = [None if b is None else _float_array(b, f"biases[{i}]") for i, b in enumerate(biases)]
    beta = np.asarray(ndlinear_bias(ws, biases, order, backend="numpy"))
    return _NdLinearOperator(ws, beta)


# ---------------------------------------------------------------------------------------------
# SPM (farag2025)
# ---------------------------------------------------------------------------------------------
class _SPMOperator(MatrixFreeOperator):
    def __init__(self, layer: Any, dtype: np.dtype) -> None:
        self.layer = layer
        self._linear = dataclasses.replace(layer, bias=np.zeros(layer.n, dtype=np.asarray(layer.bias).dtype))
        super().__init__(dtype, (layer.n,), (layer.n,), np.asarray(layer.bias))

    def _apply_forward(self, X: np.ndarray) -> np.ndarray:
        from .spm import spm_forward

        return spm_forward(self._linear, X)

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:
        from .spm import spm_transpose_apply

        return spm_transpose_apply(self.layer, Y)


def spm_linear_operator(layer: Any) -> MatrixFreeOperator:
    r"""The linear part :math:`D_{\mathrm{out}}B_L\cdots B_1D_{\mathrm{in}}` of an SPM layer
    (farag2025 eq. 1) as an ``n x n`` ``LinearOperator``.

    ``A @ x`` is :func:`~isomat.algebra.spm_forward` without the bias (eq. 2--4, :math:`O(nL)`:
    one gather and four multiply-adds per pair and stage); ``A.rmatvec(y)`` is
    :func:`~isomat.algebra.spm_transpose_apply`, :math:`D_{\mathrm{in}}B_1^{\mathsf T}\cdots
    B_L^{\mathsf T}D_{\mathrm{out}}y` (the backward recursion eq. 7--8 / 12--13, §7.3). A
    ``matmat`` runs the columns as one batch (rows of the SPM's ``(..., n)`` batch). The bias
    :math:`\mathbf b` is kept out of the operator and exposed as ``A.bias``:
    ``spm_forward(layer, x) == A @ x + A.bias``.

    Parameters
    ----------
    layer : SPM
        A float (NumPy field) layer from :func:`~isomat.algebra.spm_layer` or
        :func:`~isomat.algebra.random_spm`.

    Returns
    -------
    MatrixFreeOperator
        ``n x n``, equal to ``layer_matrix(layer)``; ``A.layer`` is the layer, ``A.bias`` its bias.
    """
    from .spm import SPM

    if not isinstance(layer, SPM):
        raise TypeError(f"layer must be an isomat SPM (from spm_layer or random_spm), got {type(layer).__name__}")
    if layer.field != "numpy":
        raise TypeError(f"layer must be a float (numpy field) SPM for a LinearOperator, got the {layer.field} field; "
                        f"build it with backend='numpy' (layer_matrix gives the exact matrix)")
    parts = [layer.params, layer.d_in, layer.d_out] + ([layer.odd_scale] if layer.odd_scale is not None else [])
    return _SPMOperator(layer, _float_dtype(*[np.asarray(p).dtype for p in parts], np.float32))


# ---------------------------------------------------------------------------------------------
# DiagonalBlocks
# ---------------------------------------------------------------------------------------------
class _DiagonalBlocksOperator(MatrixFreeOperator):
    def __init__(self, D: Any) -> None:
        self.blocks = D
        super().__init__(_float_dtype(D.dtype, np.float32), (D.shape[1],), (D.shape[0],))

    # one vector: DiagonalBlocks' own (threaded) kernels
    def _matvec(self, x: Any) -> np.ndarray:
        return self.blocks.matvec(np.asarray(x).reshape(-1))

    def _rmatvec(self, y: Any) -> np.ndarray:
        y = np.asarray(y).reshape(-1)
        if self.dtype.kind == "c":
            return self.blocks.rmatvec(y.conj()).conj()
        return self.blocks.rmatvec(y)

    # several: the same diagonal sweeps with the columns carried along
    def _apply_forward(self, X: np.ndarray) -> np.ndarray:
        return _dia_matmat(self.blocks, np.ascontiguousarray(X.reshape(X.shape[0], -1).T)).T

    def _apply_transpose(self, Y: np.ndarray) -> np.ndarray:
        return _dia_rmatmat(self.blocks, np.ascontiguousarray(Y.reshape(Y.shape[0], -1).T)).T


def _dia_matmat(D: Any, X: np.ndarray) -> np.ndarray:
    r"""``D @ X`` for ``X`` of shape ``(n_cols, k)``: per block row :math:`p` the virtual rows
    :math:`z_v=\sum_d \mathrm{data}[p,d,v+k_d]\,X_{v+k_d,:}`, then :math:`Y_{pb+i,:}=\sum_q z_{qb+i,:}`."""
    b, (n_rows, n_cols) = D.block, D.shape
    n_br, _, span = D.data.shape
    kcols = X.shape[1]
    dtype = np.result_type(D.data.dtype, X.dtype)
    _check_entries("DiagonalBlocks matmat", (span + n_rows) * kcols, dtype.itemsize)
    Y = np.zeros((n_rows, kcols), dtype=dtype)
    Z = np.empty((span, kcols), dtype=dtype)
    for p in range(n_br):
        Z[:] = 0
        for d, kd in enumerate(int(v) for v in D.offsets):
            lo, hi = max(0, -kd), min(span, n_cols - kd)
            if hi > lo:
                Z[lo:hi] += D.data[p, d, lo + kd:hi + kd, None] * X[lo + kd:hi + kd]
        rows = min(b, n_rows - p * b)
        Y[p * b:p * b + rows] = Z.reshape(-1, b, kcols)[:, :rows].sum(axis=0)
    return Y


def _dia_rmatmat(D: Any, Y: np.ndarray) -> np.ndarray:
    r"""``D.T @ Y`` for ``Y`` of shape ``(n_rows, k)``: each diagonal read once against the block
    row's rows of ``Y`` repeated over the block columns (as :meth:`DiagonalBlocks.rmatvec`)."""
    b, (n_rows, n_cols) = D.block, D.shape
    n_br, _, span = D.data.shape
    kcols = Y.shape[1]
    dtype = np.result_type(D.data.dtype, Y.dtype)
    _check_entries("DiagonalBlocks rmatmat", 2 * span * kcols, dtype.itemsize)
    out = np.zeros((span, kcols), dtype=dtype)
    Yv = np.zeros((span, kcols), dtype=dtype)
    for p in range(n_br):
        rows = min(b, n_rows - p * b)
        if rows < b:
            Yv[:] = 0
        Yv.reshape(-1, b, kcols)[:, :rows] = Y[p * b:p * b + rows]
        for d, kd in enumerate(int(v) for v in D.offsets):
            lo, hi = max(0, -kd), min(span, n_cols - kd)
            if hi > lo:
                out[lo + kd:hi + kd] += D.data[p, d, lo + kd:hi + kd, None] * Yv[lo:hi]
    return out[:n_cols]


def diagonal_blocks_linear_operator(D: Any) -> MatrixFreeOperator:
    r"""A :class:`~isomat.algebra.DiagonalBlocks` matrix as a ``LinearOperator`` with ``matmat``.

    ``matvec`` / ``rmatvec`` are the matrix's own threaded kernels
    (:meth:`~isomat.algebra.DiagonalBlocks.matvec`, :meth:`~isomat.algebra.DiagonalBlocks.rmatvec`);
    ``matmat`` / ``rmatmat`` make the same sweeps along each stored diagonal with all ``k``
    columns carried at once (:math:`y_{pb+i}=\sum_q\sum_d \mathrm{data}[p,d,v+k_d]x_{v+k_d}`,
    :math:`v=qb+i`), instead of ``k`` separate products. (``DiagonalBlocks.aslinearoperator()``
    gives the vector products only.)

    Parameters
    ----------
    D : DiagonalBlocks
        From :func:`~isomat.algebra.diagonal_blocks` or ``conv_matrix(..., format="diagonal")``.
    """
    from .diagonal import DiagonalBlocks

    if not isinstance(D, DiagonalBlocks):
        raise TypeError(f"D must be a DiagonalBlocks (from diagonal_blocks or conv_matrix(..., format='diagonal')), "
                        f"got {type(D).__name__}")
    return _DiagonalBlocksOperator(D)
