"""Exact sparse matrices for whole networks: SymPy's ``DomainMatrix`` in its sparse (SDM) format.

A network's composed maps can hold hundreds of thousands of entries; ``sympy.SparseMatrix``
multiplies entry by entry through SymPy expressions, ``DomainMatrix`` multiplies over a domain (QQ:
Python or gmpy rationals; EX where a batch-norm scale brings a square root). Floats enter exactly
(every float is a dyadic rational: ``float.as_integer_ratio``), so "exact" means exact arithmetic on
the very numbers torch stores, never a rational guess at them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
import sympy
from sympy.polys.domains import EX, QQ
from sympy.polys.matrices import DomainMatrix
from sympy.polys.matrices.sdm import SDM

__all__ = ["ExactMatrix", "from_csr", "from_sympy", "identity", "diagonal", "to_sympy", "vector_to_sympy",
           "matmul", "add", "from_vector"]

ExactMatrix = DomainMatrix


def _qq(v: float) -> Any:
    if not np.isfinite(v):
        raise ValueError(f"a non-finite value ({v}) has no exact (rational) value")
    n, d = float(v).as_integer_ratio()
    return QQ(n, d)


def from_csr(W: Any) -> DomainMatrix:
    """The exact value of a float CSR matrix (each stored float is a dyadic rational)."""
    W = sp.csr_array(W)
    m, n = W.shape
    rows: dict[int, dict[int, Any]] = {}
    indptr, indices, data = W.indptr, W.indices, W.data
    for i in range(m):
        lo, hi = indptr[i], indptr[i + 1]
        if lo == hi:
            continue
        row = {int(j): _qq(v) for j, v in zip(indices[lo:hi], data[lo:hi]) if v != 0}
        if row:
            rows[i] = row
    return DomainMatrix.from_rep(SDM(rows, (m, n), QQ))


def from_sympy(M: Any) -> DomainMatrix:
    """A ``sympy.SparseMatrix`` / ``Matrix`` as a sparse DomainMatrix over the smallest domain."""
    M = sympy.SparseMatrix(M)
    dok = M.todok()
    if not dok:
        return DomainMatrix.from_rep(SDM({}, M.shape, QQ))
    rows: dict[int, dict[int, Any]] = {}
    try:
        for (i, j), v in dok.items():
            rows.setdefault(i, {})[j] = QQ.from_sympy(sympy.nsimplify(v) if isinstance(v, sympy.Float) else v)
        return DomainMatrix.from_rep(SDM(rows, M.shape, QQ))
    except Exception:  # not rational (a batch-norm scale's square root): SymPy's expression domain
        rows = {}
        for (i, j), v in dok.items():
            rows.setdefault(i, {})[j] = EX.from_sympy(v)
        return DomainMatrix.from_rep(SDM(rows, M.shape, EX))


def from_vector(b: Any) -> DomainMatrix:
    """A column vector (NumPy floats exactly, or SymPy entries) as an ``n x 1`` DomainMatrix."""
    if isinstance(b, (sympy.MatrixBase,)):
        return from_sympy(sympy.SparseMatrix(b).reshape(len(b), 1))
    arr = np.asarray(b)
    if arr.dtype == object:
        return from_sympy(sympy.SparseMatrix(len(arr), 1, list(arr.reshape(-1))))
    return from_csr(sp.csr_array(arr.reshape(-1, 1).astype(np.float64)))


def identity(n: int) -> DomainMatrix:
    return DomainMatrix.from_rep(SDM({i: {i: QQ(1)} for i in range(n)}, (n, n), QQ))


def diagonal(values: Any) -> DomainMatrix:
    """diag(values): floats exactly, Fractions, or SymPy numbers."""
    rows = {}
    dom = QQ
    vals = list(values)
    conv = []
    for v in vals:
        if isinstance(v, (float, np.floating, int, np.integer)):
            conv.append(_qq(float(v)))
        elif isinstance(v, Fraction):
            conv.append(QQ(v.numerator, v.denominator))
        else:
            conv.append(sympy.sympify(v))
    if any(isinstance(v, sympy.Basic) and not v.is_Rational for v in conv):
        dom = EX
        conv = [EX.from_sympy(v if isinstance(v, sympy.Basic) else QQ.to_sympy(v)) for v in conv]
    else:
        conv = [QQ.from_sympy(v) if isinstance(v, sympy.Basic) else v for v in conv]
    for i, v in enumerate(conv):
        if v != dom.zero:
            rows[i] = {i: v}
    n = len(vals)
    return DomainMatrix.from_rep(SDM(rows, (n, n), dom))


def matmul(A: DomainMatrix, B: DomainMatrix) -> DomainMatrix:
    A, B = A.unify(B)
    return A * B


def add(A: DomainMatrix, B: DomainMatrix) -> DomainMatrix:
    A, B = A.unify(B)
    return A + B


def to_sympy(D: DomainMatrix) -> sympy.SparseMatrix:
    """A sparse DomainMatrix as ``sympy.SparseMatrix`` (entries Rational, or expressions over EX)."""
    dom = D.domain
    dok = {(i, j): dom.to_sympy(v) for i, row in D.rep.to_sdm().items() for j, v in row.items()}
    return sympy.SparseMatrix(D.shape[0], D.shape[1], dok)


def vector_to_sympy(D: DomainMatrix) -> sympy.Matrix:
    """An ``n x 1`` DomainMatrix as a SymPy column ``Matrix``."""
    return sympy.Matrix(to_sympy(D))
