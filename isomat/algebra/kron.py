r"""Kronecker products as sparse operators (the shared core for do2017 and reneau2025).

:math:`(A\otimes B)_{(i_a r + i_b),\,(j_a s + j_b)} = a_{i_a j_a}\, b_{i_b j_b}` for
:math:`A\in\mathcal M_{p\times q}`, :math:`B\in\mathcal M_{r\times s}`: the pattern is the
outer combination of the factors' patterns, built without a dense intermediate.

With row-major ``vec`` (conventions.md), :math:`\operatorname{vec}(A X B) = (A\otimes B^{\mathsf T})\operatorname{vec}(X)`.
"""

from __future__ import annotations

from typing import Any

from . import _backend
from ._operator import SparseOperator, as_operator, check_size, render


def kron_operator(*factors: Any, backend: str | None = None) -> SparseOperator:
    r"""The :class:`SparseOperator` of :math:`F_1\otimes F_2\otimes\cdots\otimes F_k`.

    Parameters
    ----------
    *factors : matrix
        NumPy/CuPy arrays, SymPy matrices, SciPy sparse arrays or SparseOperators.
    backend : {"sympy", "numpy", "cupy"}, optional
        Field of the result; default: the field of the inputs (SymPy in gives exact).
    """
    if not factors:
        raise ValueError("kron_operator needs at least one factor")
    field = _backend.resolve_field(backend, *factors)
    ops = [as_operator(f, field=field, name=f"factors[{i}]") for i, f in enumerate(factors)]
    out = ops[0]
    xp = _backend.array_module(field)
    for k, B in enumerate(ops[1:], 1):
        A = out
        shape = (A.shape[0] * B.shape[0], A.shape[1] * B.shape[1])
        check_size("kron", shape, A.nnz * B.nnz, field=field)
        dt = _backend.index_dtype(*shape)
        ra = A.rows.astype(dt)[:, None]
        ca = A.cols.astype(dt)[:, None]
        rows = (ra * B.shape[0] + B.rows.astype(dt)[None, :]).reshape(-1)
        cols = (ca * B.shape[1] + B.cols.astype(dt)[None, :]).reshape(-1)
        vals = (A.values[:, None] * B.values[None, :]).reshape(-1)
        out = SparseOperator.build(shape, rows, cols, vals, field)
    return out


def kron(*factors: Any, backend: str | None = None, format: str = "csr") -> Any:
    """:math:`F_1\\otimes\\cdots\\otimes F_k` rendered in its field (see :func:`kron_operator`)."""
    return render(kron_operator(*factors, backend=backend), format)


__all__ = ["kron", "kron_operator"]
