"""Index arithmetic that means the same on Python ints, NumPy arrays and Z3 terms.

An entry rule of a structured matrix -- "row ``r`` has its tap at column ``c``" -- written with
these functions runs vectorized in a construction's tests and is, unchanged, the statement that
:mod:`isomat.proofs.prover` proves for every size. The algebra modules import them from here (not
from :mod:`isomat.proofs`), so the constructions sit below the ledger.

Z3's integer ``div``/``mod`` are Euclidean: for a positive divisor they agree with Python's
``//`` and ``%`` (floor division) for every sign of the dividend. The functions are meant for
positive divisors only; a proof's hypotheses must say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from ._types import BoolTerm, IndexTerm

if TYPE_CHECKING:
    import numpy as np
    import z3

_T = TypeVar("_T")

__all__ = ["both", "either", "fdiv", "fmod", "index_operands", "ite"]


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


def fdiv(a: Any, b: Any) -> IndexTerm:
    """Floor division ``a // b`` for a positive divisor ``b`` (Z3: integer ``div``)."""
    if _is_z3(a, b):
        return a / b
    return a // b


def fmod(a: Any, b: Any) -> IndexTerm:
    """Remainder ``a % b`` in ``[0, b)`` for a positive divisor ``b`` (Z3: integer ``mod``)."""
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
