"""Type aliases used in isomat's public signatures, and the index arithmetic of entry rules.

Most constructions return their result *in the field of their inputs* (or of ``backend=``):
exact SymPy, float NumPy, or float CuPy on the GPU (see :mod:`isomat.algebra._backend`). A
Python annotation cannot say "the kind of the argument", so these aliases name the union of the
three renderings and say in words which one comes back. Every name in them is a string
resolved under ``TYPE_CHECKING`` only (CuPy and Z3 are optional dependencies), so importing this
module imports nothing at run time.

The index arithmetic below (:func:`fdiv`, :func:`fmod`, :func:`ite`, :func:`both`,
:func:`either`) acts on :data:`IndexTerm` and :data:`BoolTerm` alike -- Python ints, NumPy arrays
and Z3 terms -- so an entry rule of a structured matrix ("row ``r`` has its tap at column ``c``")
written with it runs vectorized in a construction's tests and is, unchanged, the statement that
:mod:`isomat.proofs.prover` proves for every size. It lives here, beneath both, so that the
algebra imports nothing of the ledger and the prover loads nothing of the algebra. NumPy, CuPy and
Z3 are imported inside the functions, when a call needs them.

:func:`fdiv` and :func:`fmod` are *floor* division and its remainder, NumPy's and Python's ``//``
and ``%``, for every sign of both operands. Z3's integer ``div``/``mod`` are Euclidean
(``0 <= a mod b < |b|``): they agree with floor division for a positive divisor only
(``fdiv(7, -2)`` is -4, Z3's ``7 div -2`` is -3). So on Z3 terms

* a positive literal divisor keeps Z3's plain ``div``/``mod`` (the cheap term every proof uses);
* a negative literal divisor ``b`` is rewritten exactly: ``a // b = (-a) div (-b)`` and
  ``a % b = -((-a) mod (-b))`` (floor of ``a/b`` is floor of ``(-a)/(-b)``, a positive divisor);
* a symbolic divisor keeps ``div``/``mod``, and :func:`isomat.proofs.prover.prove` refuses to
  prove a statement unless every such divisor is proved positive where its term is evaluated
  (from the hypotheses and the conditions guarding the term): the statement is then about floor
  division, never about Euclidean division under the same name;
* a zero literal divisor is a ``ZeroDivisionError`` (Python raises; NumPy returns 0 with a warning
  -- neither is a value worth a proof).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, Union

if TYPE_CHECKING:  # named for type checkers only: importing this module imports nothing
    import cupy
    import cupyx.scipy.sparse
    import numpy as np
    import scipy.sparse as sp
    import sympy
    import z3


__all__ = ["DenseMatrix", "FieldArray", "FieldScalar", "SparseMatrix", "IndexTerm", "BoolTerm",
           "both", "either", "fdiv", "fmod", "index_operands", "ite"]

FieldArray: TypeAlias = Union["np.ndarray", "cupy.ndarray"]
"""A value array: NumPy (object dtype of SymPy numbers in the exact field, float64 or complex128 in
the ``numpy`` field) or CuPy (``cupy`` field)."""

DenseMatrix: TypeAlias = Union["sympy.Matrix", "np.ndarray", "cupy.ndarray"]
"""A dense matrix or vector in its field: ``sympy.Matrix`` (exact, ``"sympy"``), a NumPy array
(``"numpy"``) or a CuPy array (``"cupy"``). A function returning it gives the kind of its inputs,
or the one named by its ``backend`` argument."""

FieldScalar: TypeAlias = Union["sympy.Expr", "np.number", float, "cupy.ndarray"]
"""A scalar in its field: a SymPy expression (exact), a NumPy or Python float (``"numpy"``), or a
0-d CuPy array (``"cupy"``, left on the device)."""

SparseMatrix: TypeAlias = Union["sp.sparray", "sympy.SparseMatrix", "cupyx.scipy.sparse.spmatrix"]
"""A sparse matrix rendered in its field: a ``scipy.sparse`` array (``csr_array``, ``csc_array``
or ``coo_array``, as ``format`` says) for ``"numpy"``, an exact ``sympy.SparseMatrix`` for
``"sympy"``, a ``cupyx.scipy.sparse`` matrix for ``"cupy"``."""

IndexTerm: TypeAlias = Union[int, "np.ndarray", "z3.ArithRef"]
"""An integer index in an entry rule: a Python int, an integer NumPy array (vectorized) or a Z3
integer term (the same rule, proved for every size by :mod:`isomat.proofs.prover`)."""

BoolTerm: TypeAlias = Union[bool, "np.bool_", "np.ndarray", "z3.BoolRef"]
"""A condition in an entry rule: a Python or NumPy bool, a boolean NumPy array or a Z3 formula."""


# -- index arithmetic of entry rules (ints, NumPy arrays and Z3 terms alike) ---------------------
_T = TypeVar("_T")

def _is_z3(*xs: Any) -> bool:
    return any(type(x).__module__.startswith("z3") for x in xs)


def _cupy_of(*xs: Any) -> Any:
    """The CuPy module when one of ``xs`` is a CuPy array (by its type's module, as isomat.gpu does), else None:
    an entry rule evaluated on device arrays stays on the device."""
    import sys

    if any(type(x).__module__.startswith("cupy") for x in xs):
        return sys.modules.get("cupy")
    return None


def index_operands(where: str, **values: Any) -> None:
    """Refuse what an entry rule cannot mean: an entry rule is a formula over the integers (Python
    ints, integer NumPy arrays, Z3 integer terms), so ``None``, bools, floats, complex numbers,
    strings and non-integer arrays are a ``TypeError`` naming the argument -- never a formula
    evaluated on a value that only looks like an index."""
    import numbers

    import numpy as np

    for name, v in values.items():
        if _is_z3(v):
            continue
        if isinstance(v, np.ndarray) or _cupy_of(v) is not None:
            ok = v.dtype.kind in "iu"
        else:
            ok = isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
        if not ok:
            text = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
            raise TypeError(f"{where}: {name} must be an integer, an integer NumPy array or a Z3 integer term, "
                            f"got {text} ({type(v).__name__})")


def _literal(b: Any) -> int | None:
    """The value of ``b`` when it is an integer literal (a Python int or a Z3 integer numeral)."""
    if isinstance(b, int) and not isinstance(b, bool):
        return b
    if _is_z3(b):
        import z3

        if z3.is_int_value(b):
            return b.as_long()
    return None


def _as_z3(a: Any) -> Any:
    """``a`` as a Z3 integer term (a Python int dividend of a Z3 divisor would otherwise divide as a float)."""
    if _is_z3(a):
        return a
    import z3

    return z3.IntVal(a)


def fdiv(a: Any, b: Any) -> IndexTerm:
    """Floor division ``a // b`` (NumPy's and Python's) for every sign of ``a`` and ``b``.

    On Z3 terms: integer ``div`` for a positive literal or symbolic divisor (a proof must show a
    symbolic one positive, see the module docstring), ``(-a) div (-b)`` for a negative literal
    divisor; a zero literal divisor raises ``ZeroDivisionError``.
    """
    if _is_z3(a, b):
        k = _literal(b)
        if k == 0:
            raise ZeroDivisionError(f"fdiv: the divisor b is 0 (dividend {a}); floor division by zero has no value")
        if k is not None and k < 0:
            return (-_as_z3(a)) / (-k)
        return a / b
    return a // b


def fmod(a: Any, b: Any) -> IndexTerm:
    """Floor remainder ``a % b`` (NumPy's and Python's; its sign is the divisor's, ``a == b *
    fdiv(a, b) + fmod(a, b)``) for every sign of ``a`` and ``b``.

    On Z3 terms: integer ``mod`` for a positive literal or symbolic divisor (a proof must show a
    symbolic one positive), ``-((-a) mod (-b))`` for a negative literal divisor; a zero literal
    divisor raises ``ZeroDivisionError``.
    """
    if _is_z3(a, b):
        k = _literal(b)
        if k == 0:
            raise ZeroDivisionError(f"fmod: the divisor b is 0 (dividend {a}); the floor remainder by zero has no value")
        if k is not None and k < 0:
            return -((-_as_z3(a)) % (-k))
    return a % b


def ite(cond: Any, a: _T, b: _T) -> _T | np.ndarray | z3.ExprRef:
    """``a if cond else b``, elementwise for arrays, ``If`` for Z3 terms."""
    if _is_z3(cond, a, b):
        import z3

        return z3.If(cond, a, b)
    import numpy as np

    cp = _cupy_of(cond, a, b)
    if cp is not None:
        return cp.where(cond, a, b)
    if isinstance(cond, np.ndarray) or isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.where(cond, a, b)  # type: ignore[call-overload]
    return a if cond else b


def both(*conds: Any) -> BoolTerm:
    """Conjunction: ``z3.And`` for terms, ``&`` for arrays, ``and`` for bools."""
    if _is_z3(*conds):
        import z3

        return z3.And(*conds)
    out = conds[0]
    for c in conds[1:]:
        out = out & c
    return out


def either(*conds: Any) -> BoolTerm:
    """Disjunction: ``z3.Or`` for terms, ``|`` for arrays, ``or`` for bools."""
    if _is_z3(*conds):
        import z3

        return z3.Or(*conds)
    out = conds[0]
    for c in conds[1:]:
        out = out | c
    return out
