"""Argument checks shared by every construction.

Each helper names the argument, what was given and what was expected, so that bad input
fails at the boundary rather than deep inside NumPy.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

BACKENDS = ("sympy", "numpy", "cupy")


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def integer(name: str, value: Any, *, minimum: int | None = None) -> int:
    """Return ``value`` as a Python int, refusing bools, floats and strings."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_describe(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}, got {value}")
    return value


def positive_int(name: str, value: Any) -> int:
    return integer(name, value, minimum=1)


def nonnegative_int(name: str, value: Any) -> int:
    return integer(name, value, minimum=0)


def threads(value: Any, name: str = "threads") -> int | None:
    """``None`` (the default: as many as the machine offers, at most 2) or a positive int; refuses
    0, negatives and bools, which would otherwise be taken silently as the default."""
    if value is None:
        return None
    return positive_int(name, value)


def seed(value: Any, name: str = "seed") -> int | None:
    """``None`` (fresh entropy) or a non-negative int, as NumPy's ``default_rng`` takes it; refuses
    floats, bools and negatives at the boundary with the argument's name."""
    if value is None:
        return None
    return integer(name, value, minimum=0)


def finite_real(name: str, value: Any) -> float:
    """A finite real number (not NaN, not infinite, not complex, not a string or bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite real number, got {_describe(value)}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return value


def int_tuple(name: str, value: Any, length: int, *, minimum: int = 1) -> tuple[int, ...]:
    """An int -- or a 1-entry sequence, as torch's convolution and pooling accept -- broadcast to
    ``length`` entries, or a sequence of exactly ``length`` ints."""
    if isinstance(value, (numbers.Integral,)) and not isinstance(value, bool):
        return (integer(name, value, minimum=minimum),) * length
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise TypeError(
            f"{name} must be an integer or a sequence of {length} integers, got {_describe(value)}"
        )
    if len(value) == 1 and length != 1:
        return (integer(f"{name}[0]", value[0], minimum=minimum),) * length
    if len(value) != length:
        raise ValueError(f"{name} must have {length} entries, got {len(value)}: {tuple(value)!r}")
    return tuple(integer(f"{name}[{i}]", v, minimum=minimum) for i, v in enumerate(value))


def shape(name: str, value: Any, *, ndim: int | Sequence[int] | None = None) -> tuple[int, ...]:
    """A tuple of positive ints; ``ndim`` restricts its length."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a tuple of positive integers, got {_describe(value)}")
    dims = tuple(positive_int(f"{name}[{i}]", v) for i, v in enumerate(value))
    if not dims:
        raise ValueError(f"{name} must have at least one entry, got ()")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if len(dims) not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name} must have {want} entries, got {len(dims)}: {dims!r}")
    return dims


def backend(value: Any, name: str = "backend") -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {BACKENDS}, got {_describe(value)}")
    if value not in BACKENDS:
        raise ValueError(f"{name} must be one of {BACKENDS}, got {value!r}")
    return value


def choice(name: str, value: Any, options: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(options)}, got {_describe(value)}")
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


def boolean(name: str, value: Any) -> bool:
    """``True`` or ``False`` (NumPy's bools too); refuses ``None``, numbers and strings, which would
    otherwise be read by their truth value (``weighted=0.0`` silently unweighted)."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)


def function(name: str, value: Any, *, optional: bool = False) -> Any:
    """A callable (an activation, a filter); ``None`` too where ``optional``."""
    if value is None and optional:
        return None
    if not callable(value):
        expected = "a callable or None" if optional else "a callable"
        raise TypeError(f"{name} must be {expected}, got {_describe(value)}")
    return value


def tolerance(name: str, value: Any, *, optional: bool = True) -> float | None:
    """A finite real number >= 0, or (where ``optional``) ``None`` for the callee's default."""
    if value is None and optional:
        return None
    value = finite_real(name, value)
    if value < 0:
        raise ValueError(f"{name} must be a finite real number >= 0, got {value!r}")
    return value


def dtype(name: str, value: Any, *, kinds: str = "biufc") -> Any:
    """A NumPy dtype of one of ``kinds`` (``None`` is NumPy's float64), with the argument's name in
    the refusal instead of NumPy's 'Cannot interpret ... as a data type'."""
    import numpy as np

    try:
        dt = np.dtype(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a NumPy dtype, got {_describe(value)}") from exc
    if dt.kind not in kinds:
        raise TypeError(f"{name} must be a numeric NumPy dtype, got {dt}")
    return dt


def rng(value: Any, name: str = "rng") -> Any:
    """``None``, a non-negative int seed or a ``numpy.random.Generator``."""
    import numpy as np

    if value is None or isinstance(value, np.random.Generator):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be None, a non-negative integer seed or a numpy.random.Generator, "
                        f"got {_describe(value)}")
    return integer(name, value, minimum=0)


def dims(name: str, value: Any) -> tuple[int, ...]:
    """A sequence (list, tuple, range, 1-d array) of positive ints, named ``name``."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = tuple(value.tolist())
    elif isinstance(value, range):
        value = tuple(value)
    return shape(name, value)
