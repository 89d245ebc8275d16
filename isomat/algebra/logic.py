r"""Logic in the STP (algebraic state-space) form: logical vectors, logical matrices and
structure matrices of Boolean and k-valued connectives (the toolbox of Cheng's group).

Conventions (Cheng, Qi & Li 2011, *Analysis and Control of Boolean Networks*):

* a k-valued truth value is a logical vector :math:`\delta_k^i=\operatorname{Col}_i(I_k)`,
  standing for the value :math:`(k-i)/(k-1)`; Boolean: :math:`\delta_2^1=` True,
  :math:`\delta_2^2=` False;
* a logical matrix :math:`L\in\mathcal L_{k\times r}` has every column a logical vector and is
  written in :math:`\delta`-form :math:`L=\delta_k[i_1,\dots,i_r]` (1-based, as printed);
* the structure matrix :math:`M_\sigma` of an r-ary connective :math:`\sigma` satisfies
  :math:`\sigma(p_1,\dots,p_r)=M_\sigma\ltimes p_1\ltimes\cdots\ltimes p_r`, so column
  :math:`1+\sum_j (i_j-1)k^{r-j}` holds :math:`\sigma(\delta_k^{i_1},\dots,\delta_k^{i_r})`
  (first argument most significant).

k-valued connectives follow Cheng's convention: :math:`\neg p=1-p`, :math:`p\wedge q=\min`,
:math:`p\vee q=\max`, :math:`p\to q=\neg p\vee q`, :math:`p\leftrightarrow q=(p\to q)\wedge(q\to p)`,
:math:`p\,\bar\vee\,q=\neg(p\leftrightarrow q)`, nand :math:`=\neg\wedge`, nor :math:`=\neg\vee`.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from .. import _validate
from .._types import DenseMatrix
from ._operator import Rendered
from ..errors import SizeLimitError
from . import _backend
from ._operator import SparseOperator, check_bytes, check_size, render, value_bytes


def logical_vector(i: int, k: int = 2, *, backend: str = "numpy") -> DenseMatrix:
    r""":math:`\delta_k^i=\operatorname{Col}_i(I_k)` (1-based ``i``) as a dense column.

    ``sympy.Matrix`` for ``backend="sympy"``, else a length-``k`` NumPy/CuPy array.
    """
    k = _validate.positive_int("k", k)
    i = _validate.positive_int("i", i)
    if i > k:
        raise ValueError(f"i must be in [1, k] = [1, {k}], got {i}")
    field = _validate.backend(backend)
    check_bytes("logical_vector", k * value_bytes(field), f"a dense vector of length k = {k:,}")
    if field == "sympy":
        return sympy.Matrix([1 if r == i - 1 else 0 for r in range(k)])
    xp = _backend.array_module(field)
    v = xp.zeros(k)
    v[i - 1] = 1.0
    return v


def logical_matrix(indices: Sequence[int], k: int, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""The logical matrix :math:`\delta_k[i_1,\dots,i_r]` (column j is :math:`\delta_k^{i_j}`).

    Sparse in its field (``r`` stored entries); ``format="operator"`` gives the pattern.
    """
    k = _validate.positive_int("k", k)
    field = _validate.backend(backend)
    if isinstance(indices, (str, bytes)) or not hasattr(indices, "__len__"):
        raise TypeError(f"indices must be a sequence of integers in [1, {k}], got {indices!r}")
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
        raise TypeError(f"indices must be a non-empty 1-d sequence of integers in [1, {k}], got {indices!r}")
    if idx.min() < 1 or idx.max() > k:
        raise ValueError(f"indices must lie in [1, k] = [1, {k}], got values from {idx.min()} to {idx.max()}")
    r = idx.size
    check_size("logical_matrix", (k, r), r, field=field)
    xp = _backend.array_module(field)
    rows = xp.asarray(idx - 1)
    cols = xp.arange(r)
    vals = _backend.rational(xp.ones(r, dtype=xp.int64), 1, field, xp)
    return render(SparseOperator.build((k, r), rows, cols, vals, field), format)


def delta_form(L: Any) -> tuple[int, tuple[int, ...]]:
    r"""``(k, (i_1, ..., i_r))`` with :math:`L=\delta_k[i_1,\dots,i_r]`; ValueError when ``L`` is
    not a logical matrix (a column that is not some :math:`\delta_k^i`)."""
    if isinstance(L, sympy.MatrixBase):
        arr = np.array(L.tolist(), dtype=object)
    elif hasattr(L, "toarray"):
        arr = L.toarray()
    elif isinstance(L, SparseOperator):
        arr = L.todense()
        arr = np.array(arr.tolist(), dtype=object) if isinstance(arr, sympy.MatrixBase) else arr
    else:
        arr = np.asarray(_backend.to_numpy(L))
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"L must be a non-empty matrix, got an array of shape {arr.shape}")
    ones = np.array([[v == 1 for v in row] for row in arr.tolist()], dtype=bool)
    zeros = np.array([[v == 0 for v in row] for row in arr.tolist()], dtype=bool)
    if not np.all(ones | zeros) or not np.all(ones.sum(axis=0) == 1):
        bad = int(np.nonzero(~(np.all(ones | zeros, axis=0) & (ones.sum(axis=0) == 1)))[0][0])
        raise ValueError(f"L is not a logical matrix: column {bad + 1} is not a column of I_{arr.shape[0]}")
    return arr.shape[0], tuple(int(i) + 1 for i in np.argmax(ones, axis=0))


# ---------------------------------------------------------------------------------------------
# Connectives
# ---------------------------------------------------------------------------------------------
def _values(k: int) -> np.ndarray:
    """Truth values of δ_k^1..δ_k^k as integers v in {k-1, ..., 0} (value v/(k-1))."""
    return np.arange(k - 1, -1, -1)


_UNARY = {"negation": lambda p, top: top - p}
_BINARY: dict[str, Callable[[np.ndarray, np.ndarray, int], np.ndarray]] = {
    "conjunction": lambda p, q, top: np.minimum(p, q),
    "disjunction": lambda p, q, top: np.maximum(p, q),
    "implication": lambda p, q, top: np.maximum(top - p, q),
    "equivalence": lambda p, q, top: np.minimum(np.maximum(top - p, q), np.maximum(top - q, p)),
    "xor": lambda p, q, top: top - np.minimum(np.maximum(top - p, q), np.maximum(top - q, p)),
    "nand": lambda p, q, top: top - np.minimum(p, q),
    "nor": lambda p, q, top: top - np.maximum(p, q),
}


def _structure(name: str, k: int, form: str, backend: str, format: str) -> Rendered | tuple[int, ...]:
    k = _validate.integer("k", k, minimum=2)
    form = _validate.choice("form", form, ("matrix", "delta"))
    arity = 1 if name in _UNARY else 2
    # the truth table holds k^arity entries (and the matrix as many columns): refuse before building it
    check_bytes(name, 5 * 8 * k ** arity, f"a truth table of k^{arity} = {k ** arity:,} entries")
    top = k - 1
    vals = _values(k)
    if name in _UNARY:
        out = _UNARY[name](vals, top)
    else:
        p = np.repeat(vals, k)
        q = np.tile(vals, k)
        out = _BINARY[name](p, q, top)
    idx = tuple(int(i) for i in (top - out + 1))
    if form == "delta":
        return idx
    return logical_matrix(idx, k, backend=backend, format=format)


def _make(name: str, arity: str, formula: str) -> Callable[..., Any]:
    def f(k: int = 2, *, form: str = "matrix", backend: str = "numpy",
          format: str = "csr") -> Rendered | tuple[int, ...]:
        return _structure(name, k, form, backend, format)

    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = (
        f"Structure matrix of {arity} {name}, :math:`{formula}` (k-valued; Boolean for ``k=2``).\n\n"
        "``form=\"matrix\"`` gives the logical matrix in its field (sparse; ``backend``, ``format``),\n"
        "``form=\"delta\"`` the 1-based :math:`\\delta_k`-indices. Column order: first argument\n"
        "most significant, True (:math:`\\delta_k^1`) first."
    )
    return f


negation = _make("negation", "unary", r"M_\neg:\ \neg p = M_\neg p,\ M_\neg=\delta_2[2,1]")
conjunction = _make("conjunction", "binary", r"M_c=\delta_2[1,2,2,2]")
disjunction = _make("disjunction", "binary", r"M_d=\delta_2[1,1,1,2]")
implication = _make("implication", "binary", r"M_i=\delta_2[1,2,1,1]")
equivalence = _make("equivalence", "binary", r"M_e=\delta_2[1,2,2,1]")
xor = _make("xor", "binary", r"M_{\bar\vee}=\delta_2[2,1,1,2]")
nand = _make("nand", "binary", r"M_{\uparrow}=\delta_2[2,1,1,1]")
nor = _make("nor", "binary", r"M_{\downarrow}=\delta_2[2,2,2,1]")


def _eval_bool(e: Any, env: dict) -> np.ndarray:
    """Vectorized truth table of a SymPy Boolean expression over the arrays in ``env``."""
    from sympy.logic import boolalg as ba

    if e in env:
        return env[e]
    if e is sympy.true or e == True:  # noqa: E712
        return np.array(True)
    if e is sympy.false or e == False:  # noqa: E712
        return np.array(False)
    args = [_eval_bool(a, env) for a in e.args]
    if isinstance(e, ba.Not):
        return ~args[0]
    if isinstance(e, ba.And):
        return np.logical_and.reduce(np.broadcast_arrays(*args))
    if isinstance(e, ba.Or):
        return np.logical_or.reduce(np.broadcast_arrays(*args))
    if isinstance(e, ba.Xor):
        return np.logical_xor.reduce(np.broadcast_arrays(*args))
    if isinstance(e, ba.Nand):
        return ~np.logical_and.reduce(np.broadcast_arrays(*args))
    if isinstance(e, ba.Nor):
        return ~np.logical_or.reduce(np.broadcast_arrays(*args))
    if isinstance(e, ba.Implies):
        return ~args[0] | args[1]
    if isinstance(e, ba.Equivalent):
        b = np.broadcast_arrays(*args)
        return np.logical_and.reduce([x == b[0] for x in b])
    if isinstance(e, ba.ITE):
        return np.where(args[0], args[1], args[2])
    raise TypeError(f"expr: unsupported Boolean operation {type(e).__name__} in {e}")


def structure_matrix(expr: Any, variables: Sequence[Any] | int, *, k: int = 2, form: str = "matrix",
                     backend: str = "numpy", format: str = "csr") -> Rendered | tuple[int, ...]:
    r"""Canonical structure matrix of a logical expression: :math:`f(p_1,\dots,p_n)=M_f\ltimes_{j}p_j`.

    Parameters
    ----------
    expr : sympy Boolean expression or callable
        A SymPy Boolean expression in ``variables`` (``k = 2`` only), or a vectorized callable
        ``f(*values)`` taking NumPy arrays of truth values — booleans for ``k = 2``, the numbers
        :math:`(k-i)/(k-1)` for ``k > 2`` — and returning values of the same kind.
    variables : sequence of sympy Symbols, or int
        The argument order (first = most significant); for a callable, the number of arguments
        may be given as an int.
    k : int
        Number of truth values.
    form : {"matrix", "delta"}

    Returns
    -------
    The :math:`k\times k^n` logical matrix (sparse, in ``backend``) or its :math:`\delta`-indices.
    """
    k = _validate.integer("k", k, minimum=2)
    form = _validate.choice("form", form, ("matrix", "delta"))
    if isinstance(variables, (int, np.integer)) and not isinstance(variables, bool):
        nvar = _validate.positive_int("variables", variables)
        symbols = None
    elif isinstance(variables, Sequence) and not isinstance(variables, (str, bytes)) and len(variables) > 0:
        nvar = len(variables)
        symbols = list(variables)
    else:
        raise TypeError(f"variables must be a non-empty sequence of symbols or a positive int, got {variables!r}")
    if nvar * math.log2(k) > 62:  # k**nvar itself would be astronomically large (and slow to form)
        raise SizeLimitError(f"structure_matrix: {nvar} variables over k = {k} values make a truth table of "
                             f"k^{nvar} > 2^62 entries, about 2^{nvar * math.log2(k) + math.log2(8 * (nvar + 2)):.0f} "
                             f"bytes, over any memory bound")
    check_bytes("structure_matrix", 8 * (nvar + 2) * k**nvar, f"the truth table of {nvar} variables over k = {k} values")
    check_size("structure_matrix", (k, k**nvar), k**nvar, field=_validate.backend(backend))
    # all assignments, first variable most significant, δ^1 (True / top value) first
    grid = np.indices((k,) * nvar).reshape(nvar, -1)  # 0-based δ indices
    top = k - 1
    if isinstance(expr, sympy.Basic):
        if k != 2:
            raise ValueError(f"a SymPy Boolean expression needs k = 2, got k = {k}")
        if symbols is None:
            raise TypeError("variables must list the SymPy symbols of expr (argument order)")
        missing = expr.free_symbols - set(symbols)
        if missing:
            raise ValueError(f"expr has symbols {sorted(map(str, missing))} that are not in variables")
        env = {sym: g == 0 for sym, g in zip(symbols, grid)}
        res = np.broadcast_to(_eval_bool(expr, env), (k**nvar,))
        idx: np.ndarray | tuple[int, ...] = np.where(res, 1, 2)
    elif callable(expr):
        if k == 2:
            args = [g == 0 for g in grid]
            res = np.broadcast_to(np.asarray(expr(*args)), (k**nvar,))
            if res.dtype != bool:
                raise TypeError(f"expr must return booleans for k = 2, got dtype {res.dtype}")
            idx = np.where(res, 1, 2)
        else:
            args = [(top - g) / top for g in grid]
            res = np.broadcast_to(np.asarray(expr(*args), dtype=float), (k**nvar,))
            level = np.rint(res * top)
            if np.any(np.abs(res * top - level) > 1e-9) or level.min() < 0 or level.max() > top:
                raise ValueError(f"expr must return truth values in {{0, 1/{top}, ..., 1}} for k = {k}")
            idx = (top - level).astype(int) + 1
    else:
        raise TypeError(f"expr must be a SymPy Boolean expression or a callable, got {type(expr).__name__}")
    idx = tuple(int(i) for i in idx)
    if form == "delta":
        return idx
    return logical_matrix(idx, k, backend=backend, format=format)


__all__ = [
    "conjunction",
    "delta_form",
    "disjunction",
    "equivalence",
    "implication",
    "logical_matrix",
    "logical_vector",
    "nand",
    "negation",
    "nor",
    "structure_matrix",
    "xor",
]
