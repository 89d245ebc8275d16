r"""Linear recurrences as block lower-triangular matrices (zhu2025 §4.3, Theorem 4.2, Appendix A.2).

For :math:`h_t = U x_t + V h_{t-1}`, :math:`h_0 = 0`, :math:`t = 1..T`, with
:math:`U\in\mathbb{R}^{M\times N}`, :math:`V\in\mathbb{R}^{M\times M}`, stacking
:math:`\vec X = (x_1;\dots;x_T)` and :math:`\vec H=(h_1;\dots;h_T)` gives
:math:`\vec H = W_{RNN}\vec X` with the :math:`(TM)\times(TN)` block lower-triangular

.. math::

    (W_{RNN})_{t,s} = V^{t-s}U\ (s\le t),\qquad 0\ (s>t).

:func:`zhu_rnn_main_text` is the paper's main-text form :math:`W_{rnn}[i,j]=W_{xh}W_{hh}^{i-j}`
exactly as printed (the factor order differs from the matrix printed next to it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validate
from .._types import FieldArray
from ._operator import Rendered
from . import _backend
from ._operator import check_bytes, SparseOperator, check_size, render, value_bytes


def _matrix(name: str, M: Any, field: str) -> FieldArray:
    if isinstance(M, (bool, np.bool_, complex, np.complexfloating)):
        raise TypeError(f"{name} must be a real number or a real matrix, got {type(M).__name__}")
    arr = _backend.as_values(M, field, name=name)
    if field != "sympy" and arr.dtype.kind in "fc" and not bool(np.all(np.isfinite(_backend.to_numpy(arr)))):
        raise ValueError(f"{name} must have finite entries (no NaN or infinity)")
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    if arr.size == 0:
        raise ValueError(f"{name} must be a non-empty matrix, got shape {tuple(arr.shape)}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (2-d), got an array of shape {tuple(arr.shape)}")
    return arr


def _dot(a: Any, b: Any, field: str) -> FieldArray:
    if field == "sympy":
        return np.array((__import__("sympy").Matrix(a) * __import__("sympy").Matrix(b)).tolist(), dtype=object).reshape(a.shape[0], b.shape[1])
    return a @ b


def _block_lower(blocks: Any, steps: int, field: str, shape_rc: tuple[int, int], format: str) -> Rendered:
    """Assemble block (t, s) = blocks[t - s] for s <= t (blocks: (T, r, c) array)."""
    xp = _backend.array_module(field)
    T = steps
    r, c = shape_rc
    t, s = np.tril_indices(T)
    nnz = len(t) * r * c
    check_size("rnn_matrix", (T * r, T * c), nnz, field=field)
    t = xp.asarray(t, dtype=xp.int64)[:, None, None]
    s = xp.asarray(s, dtype=xp.int64)[:, None, None]
    a = xp.arange(r, dtype=xp.int64)[None, :, None]
    b = xp.arange(c, dtype=xp.int64)[None, None, :]
    rows = xp.broadcast_to(t * r + a, (t.shape[0], r, c)).reshape(-1)
    cols = xp.broadcast_to(s * c + b, (t.shape[0], r, c)).reshape(-1)
    k = (t - s).reshape(-1)
    vals = blocks[_backend.to_numpy(k) if field == "sympy" else k].reshape(-1)
    return render(SparseOperator.build((T * r, T * c), rows, cols, vals, field), format)


def rnn_matrix(U: Any, V: Any, steps: Any, *, backend: str | None = None, format: str = "csr") -> Rendered:
    r"""The :math:`(TM)\times(TN)` matrix of :math:`h_t = Ux_t + Vh_{t-1}`, :math:`h_0=0`
    (zhu2025 Appendix A.2): block :math:`(t, s)` is :math:`V^{t-s}U` for :math:`s\le t`.

    Parameters
    ----------
    U : (M, N) matrix
        Input-to-hidden weights.
    V : (M, M) matrix
        Hidden-to-hidden weights.
    steps : int
        Sequence length :math:`T`.
    backend : {"sympy", "numpy", "cupy"}, optional
        Default: the field of ``U`` and ``V`` (SymPy gives exact, non-commuting products kept in order).
    """
    steps = _validate.positive_int("steps", steps)
    field = _backend.resolve_field(backend, U, V)
    Ua, Va = _matrix("U", U, field), _matrix("V", V, field)
    M, N = Ua.shape
    if Va.shape != (M, M):
        raise ValueError(f"V must be square M x M with M = U.shape[0] = {M}, got shape {tuple(Va.shape)}")
    check_size("rnn_matrix", (steps * M, steps * N), steps * (steps + 1) // 2 * M * N, field=field)
    powers = [Ua]
    for _ in range(1, steps):  # one product per step (not per entry)
        powers.append(_dot(Va, powers[-1], field))
    xp = _backend.array_module(field)
    blocks = np.stack(powers) if field != "cupy" else xp.stack(powers)
    return _block_lower(blocks, steps, field, (M, N), format)


def zhu_rnn_main_text(W_xh: Any, W_hh: Any, m: Any, *, backend: str | None = None, format: str = "csr") -> Rendered:
    r"""zhu2025 §4.3 exactly as printed: :math:`W_{rnn}[i,j]=W_{xh}W_{hh}^{\,i-j}`, :math:`0\le j\le i<m`.

    Scalars give the printed :math:`m\times m` matrix; matrices give blocks
    :math:`W_{xh}W_{hh}^{i-j}` (note the order), which exist only when :math:`W_{xh}W_{hh}` is
    defined: a ``ValueError`` otherwise, naming the shapes.
    """
    m = _validate.positive_int("m", m)
    field = _backend.resolve_field(backend, W_xh, W_hh)
    A, B = _matrix("W_xh", W_xh, field), _matrix("W_hh", W_hh, field)
    if B.shape[0] != B.shape[1]:
        raise ValueError(f"W_hh must be square, got shape {tuple(B.shape)}")
    if m > 1 and A.shape[1] != B.shape[0]:
        raise ValueError(
            f"W_xh W_hh^(i-j) is undefined: W_xh has shape {tuple(A.shape)} and W_hh {tuple(B.shape)} "
            f"(needs W_xh.shape[1] == W_hh.shape[0])"
        )
    # m powers of W_hh and an m(m+1)/2-block result: refuse before the loop (m = 10^12 never ended)
    a, b = A.shape
    check_bytes("zhu_rnn_main_text", 8 * (m * (a * b + b * b) + m * (m + 1) // 2 * a * b),
                f"{m:,} blocks of {a}x{b}")
    blocks = [A]
    Bk = None
    for _ in range(1, m):
        Bk = B if Bk is None else _dot(Bk, B, field)
        blocks.append(_dot(A, Bk, field))
    xp = _backend.array_module(field)
    arr = np.stack(blocks) if field != "cupy" else xp.stack(blocks)
    return _block_lower(arr, m, field, tuple(A.shape), format)


def rnn_apply(U: Any, V: Any, X: Any, *, activation: Any = None) -> np.ndarray:
    r"""Run :math:`h_t=\sigma(Ux_t+Vh_{t-1})`, :math:`h_0=0`, over the rows of ``X`` (T x N);
    returns ``H`` (T x M). ``activation=None`` is the linear recurrence of Theorem 4.2."""
    activation = _validate.function("activation", activation, optional=True)
    field = _backend.field_of(U, V, X)
    Ua, Va, Xa = _matrix("U", U, field), _matrix("V", V, field), _matrix("X", X, field)
    if Xa.shape[1] != Ua.shape[1]:
        raise ValueError(f"X must have N = {Ua.shape[1]} columns (U.shape[1]), got shape {tuple(Xa.shape)}")
    T, M = int(Xa.shape[0]), int(Ua.shape[0])
    # the T states kept (one small array each: ~0.5 KiB of object overhead measured per step at
    # M = 1), then stacked into H (SymPy objects: a rough lower bound)
    item = value_bytes(field)
    check_bytes("rnn_apply", T * (2 * M * item + 1024) + 4 * M * item, f"{T:,} steps of {M:,} hidden units")
    h = np.zeros((Ua.shape[0], 1), dtype=object if field == "sympy" else Ua.dtype)
    if field == "sympy":
        h[:] = 0
    out = []
    for t in range(Xa.shape[0]):  # the recurrence itself: one step per time step
        h = _dot(Ua, Xa[t].reshape(-1, 1), field) + _dot(Va, h, field)
        if activation is not None:
            h = np.vectorize(activation, otypes=[object if field == "sympy" else float])(h)
        out.append(h.reshape(-1))
    return np.stack(out)


__all__ = ["rnn_apply", "rnn_matrix", "zhu_rnn_main_text"]
