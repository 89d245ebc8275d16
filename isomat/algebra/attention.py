r"""Linearized self-attention as a sparse operator on lifted inputs (zhu2025 §4.4, Thm 4.3, App. A.3).

Dropping the softmax, single-head attention of a sequence :math:`X\in\mathbb{R}^{T\times d}` is the
cubic map :math:`Z=(XW_q)(XW_k)^{\mathsf T}(XW_v)`. With :math:`x=\operatorname{vec}X` (row-major)
and :math:`G=W_qW_k^{\mathsf T}`,

.. math::

    Z_{k,c}=\sum_{i}\sum_{b,e,f} G_{b e}\,(W_v)_{f c}\;X_{k b}X_{i e}X_{i f},
    \qquad \operatorname{vec}Z = \mathcal W\,(x\otimes x\otimes x),

with :math:`\mathcal W_{(k,c),\,((k,b),(i,e),(i,f))}=G_{be}(W_v)_{fc}`: :math:`T^2d^3d_v` stored
entries out of :math:`Td_v(Td)^3`. :func:`zhu_w_sa` is the paper's :math:`W_{SA}` of A.3 as printed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validate
from .._types import FieldArray
from ._operator import Rendered
from . import _backend
from ._operator import SparseOperator, check_size, render


def _mat(name: str, M: Any, field: str) -> FieldArray:
    arr = _backend.as_values(M, field, name=name)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty matrix (2-d), got an array of shape {tuple(arr.shape)}")
    return arr


def _need_rows(what: str, name: str, M: Any, rows: int) -> None:
    if M.shape[0] != rows:
        raise ValueError(f"{name} must have {rows} rows ({what}), got shape {tuple(M.shape)}")


def _mm(a, b, field):
    if field == "sympy":
        import sympy

        return np.array((sympy.Matrix(a) * sympy.Matrix(b)).tolist(), dtype=object).reshape(a.shape[0], b.shape[1])
    return a @ b


def linear_attention(X: Any, Wq: Any, Wk: Any, Wv: Any) -> FieldArray:
    r""":math:`(XW_q)(XW_k)^{\mathsf T}(XW_v)` computed directly (the reference map)."""
    field = _backend.field_of(X, Wq, Wk, Wv)
    Xa, A, B, C = (_mat(n, v, field) for n, v in (("X", X), ("Wq", Wq), ("Wk", Wk), ("Wv", Wv)))
    for n, W in (("Wq", A), ("Wk", B), ("Wv", C)):
        _need_rows(f"X W with X of shape {tuple(Xa.shape)}", n, W, Xa.shape[1])
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"Wq and Wk must have the same number of columns (Q Kᵀ), got {tuple(A.shape)} and {tuple(B.shape)}")
    Q, K, V = _mm(Xa, A, field), _mm(Xa, B, field), _mm(Xa, C, field)
    return _mm(_mm(Q, K.T, field), V, field)


def _real_matrix(name: str, M: Any) -> np.ndarray:
    """A non-empty 2-d real float64 array, or a TypeError / ValueError naming ``name``."""
    if M is None or isinstance(M, (str, bytes)):
        raise TypeError(f"{name} must be a 2-d real array, got {type(M).__name__}")
    try:
        a = np.asarray(M, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 2-d real array, got {type(M).__name__}") from None
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-d array, got shape {a.shape}")
    return a


def softmax_attention(X: Any, Wq: Any, Wk: Any, Wv: Any) -> np.ndarray:
    r""":math:`\operatorname{softmax}(QK^{\mathsf T}/\sqrt{d})V` in float64 (zhu2025 §4.4)."""
    Xa = _real_matrix("X", X)
    Ws = [_real_matrix(n, W) for n, W in (("Wq", Wq), ("Wk", Wk), ("Wv", Wv))]
    for n, W in zip(("Wq", "Wk", "Wv"), Ws):
        if W.shape[0] != Xa.shape[1]:
            raise ValueError(f"{n} must have X.shape[1] = {Xa.shape[1]} rows (X W is X's tokens times {n}), "
                             f"got shape {W.shape}")
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(f"Wq and Wk must have the same number of columns (Q Kᵀ), got {Ws[0].shape} and {Ws[1].shape}")
    Q, K, V = Xa @ Ws[0], Xa @ Ws[1], Xa @ Ws[2]
    S = Q @ K.T / np.sqrt(Xa.shape[1])
    S = np.exp(S - S.max(axis=1, keepdims=True))
    return (S / S.sum(axis=1, keepdims=True)) @ V


def lift3(x: Any) -> FieldArray:
    r""":math:`x\otimes x\otimes x` (row-major Kronecker) of a vector."""
    field = _backend.field_of(x)
    v = _backend.as_values(x, field, name="x")
    if v.ndim == 0 or v.size == 0 or (v.ndim == 2 and 1 not in v.shape) or v.ndim > 2:
        raise ValueError(f"x must be a non-empty vector (1-d, or a row / column), got shape {tuple(v.shape)}")
    v = v.reshape(-1)
    n = v.shape[0]
    return (v[:, None, None] * v[None, :, None] * v[None, None, :]).reshape(n ** 3)


def linear_attention_matrix(T: Any, Wq: Any, Wk: Any, Wv: Any, *, backend: str | None = None,
                            format: str = "csr") -> Rendered:
    r"""The sparse :math:`\mathcal W` with :math:`\operatorname{vec}Z=\mathcal W(x\otimes x\otimes x)`.

    Parameters
    ----------
    T : int
        Sequence length.
    Wq, Wk : (d, d_k) matrices
    Wv : (d, d_v) matrix

    Returns
    -------
    matrix
        :math:`(T d_v)\times (Td)^3`, :math:`T^2 d^3 d_v` stored entries
        (:math:`\mathcal W_{(k,c),((k,b),(i,e),(i,f))}=(W_qW_k^{\mathsf T})_{be}(W_v)_{fc}`).
    """
    T = _validate.positive_int("T", T)
    field = _backend.resolve_field(backend, Wq, Wk, Wv)
    A, B, C = _mat("Wq", Wq, field), _mat("Wk", Wk, field), _mat("Wv", Wv, field)
    d = A.shape[0]
    if B.shape != A.shape:
        raise ValueError(f"Wk must have the shape of Wq {tuple(A.shape)}, got {tuple(B.shape)}")
    if C.shape[0] != d:
        raise ValueError(f"Wv must have d = {d} rows (Wq.shape[0]), got shape {tuple(C.shape)}")
    dv = C.shape[1]
    n = T * d
    shape = (T * dv, n ** 3)
    nnz = T * T * d ** 3 * dv
    check_size("linear_attention_matrix", shape, nnz, field=field)
    xp = _backend.array_module(field)
    G = _mm(A, B.T, field)
    ar = lambda k: xp.arange(k, dtype=xp.int64)  # noqa: E731
    # axes: (k, c, b, i, e, f)
    k = ar(T)[:, None, None, None, None, None]
    c = ar(dv)[None, :, None, None, None, None]
    b = ar(d)[None, None, :, None, None, None]
    i = ar(T)[None, None, None, :, None, None]
    e = ar(d)[None, None, None, None, :, None]
    f = ar(d)[None, None, None, None, None, :]
    full = (T, dv, d, T, d, d)
    rows = xp.broadcast_to(k * dv + c, full).reshape(-1)
    cols = xp.broadcast_to(((k * d + b) * n + (i * d + e)) * n + (i * d + f), full).reshape(-1)
    Gx = G[None, None, :, None, :, None]
    Cx = C.T[None, :, None, None, None, :]
    vals = (np.broadcast_to(Gx, full) * np.broadcast_to(Cx, full)).reshape(-1) if field == "sympy" else \
        xp.broadcast_to(Gx * Cx, full).reshape(-1)
    # rows (k, c) in order; within a row the columns increase in (b, i, e, f) (i's step d n + d exceeds the
    # span of (e, f)) and are distinct: assembled as is, without a COO sort
    return render(SparseOperator.build(shape, rows, cols, vals, field, canonical=True), format)


def zhu_w_sa(W_Q: Any, W_K: Any, W_V: Any, *, backend: str | None = None, format: str = "csr") -> Rendered:
    r"""The paper's :math:`W_{SA}\in\mathbb{R}^{M\times N^2}` of zhu2025 A.3, exactly as printed:

    .. math::

        [W_{SA}]_{m,(i,j)} = [W_V]_{m,j}\,[W_K]_{j,i}\,[W_Q]_{m,i},

    column :math:`(i,j)\mapsto iN+j` so that :math:`(\vec X\otimes\vec X)_{iN+j}=X_iX_j`.
    :math:`[W_K]_{j,i}` uses :math:`j` (a column index of :math:`W_V`, up to :math:`N`) as a row
    index of :math:`W_K` (:math:`M` rows), so the formula is defined only when :math:`N\le M`.
    """
    field = _backend.resolve_field(backend, W_Q, W_K, W_V)
    Q, K, V = _mat("W_Q", W_Q, field), _mat("W_K", W_K, field), _mat("W_V", W_V, field)
    M, N = Q.shape
    if K.shape != (M, N) or V.shape != (M, N):
        raise ValueError(f"W_Q, W_K, W_V must all be M x N = {(M, N)}, got {tuple(K.shape)} and {tuple(V.shape)}")
    if N > M:
        raise ValueError(f"[W_K]_(j,i) with j up to N = {N} needs N <= M = {M} rows of W_K; the printed W_SA is undefined")
    check_size("zhu_w_sa", (M, N * N), M * N * N, field=field)
    xp = _backend.array_module(field)
    m = xp.arange(M, dtype=xp.int64)[:, None, None]
    i = xp.arange(N, dtype=xp.int64)[None, :, None]
    j = xp.arange(N, dtype=xp.int64)[None, None, :]
    full = (M, N, N)
    rows = xp.broadcast_to(m, full).reshape(-1)
    cols = xp.broadcast_to(i * N + j, full).reshape(-1)
    Vx = np.broadcast_to(V[:, None, :], full) if field == "sympy" else xp.broadcast_to(V[:, None, :], full)
    Kx = np.broadcast_to(K[:N, :N].T[None, :, :], full) if field == "sympy" else xp.broadcast_to(K[:N, :N].T[None, :, :], full)
    Qx = np.broadcast_to(Q[:, :, None], full) if field == "sympy" else xp.broadcast_to(Q[:, :, None], full)
    vals = (Vx * Kx * Qx).reshape(-1)
    return render(SparseOperator.build((M, N * N), rows, cols, vals, field), format)


def zhu_a3_output(W_Q: Any, W_K: Any, W_V: Any, x: Any) -> FieldArray:
    r"""A.3's own definition of the output: :math:`y = V(K^{\mathsf T}Q)` with
    :math:`Q=W_Q\vec X`, :math:`K=W_K\vec X`, :math:`V=W_V\vec X` (vectors, so :math:`K^{\mathsf T}Q` is a scalar)."""
    field = _backend.field_of(W_Q, W_K, W_V, x)
    Q, K, V = _mat("W_Q", W_Q, field), _mat("W_K", W_K, field), _mat("W_V", W_V, field)
    xv = _backend.as_values(x, field, name="x").reshape(-1, 1)
    for n, W in (("W_Q", Q), ("W_K", K), ("W_V", V)):
        if W.shape[1] != xv.shape[0]:
            raise ValueError(f"{n} must have len(x) = {xv.shape[0]} columns (W x), got shape {tuple(W.shape)}")
    if Q.shape[0] != K.shape[0]:
        raise ValueError(f"W_Q and W_K must have the same number of rows (KᵀQ), got {tuple(Q.shape)} and {tuple(K.shape)}")
    q, k, v = _mm(Q, xv, field), _mm(K, xv, field), _mm(V, xv, field)
    return (v * _mm(k.T, q, field)[0, 0]).reshape(-1)


__all__ = ["lift3", "linear_attention", "linear_attention_matrix", "softmax_attention", "zhu_a3_output", "zhu_w_sa"]
