"""The one place that knows about fields.

A *field* is where the values of an operator live:

``"sympy"``  exact; values are a NumPy object array of SymPy numbers or expressions;
``"numpy"``  float on the CPU; values are a float64 (or complex128) NumPy array;
``"cupy"``   float on the GPU; values are a CuPy array.

Index arrays are built with the field's array module (``numpy`` for sympy and numpy,
``cupy`` for cupy), so a construction is written once against ``xp`` and never per backend.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType
from typing import Any, TypeVar

import numpy as np
import sympy

from .. import _validate
from ..gpu import is_cupy_array, require_cupy

FIELDS = _validate.BACKENDS

_T = TypeVar("_T")


def _is_sympy(x: Any) -> bool:
    if isinstance(x, (sympy.Basic, sympy.MatrixBase, sympy.NDimArray, Fraction)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype == object and any(_is_sympy(v) for v in x.flat[: min(x.size, 64)])
    if isinstance(x, (list, tuple)):
        return any(_is_sympy(v) for v in x)
    return False


def field_of(*inputs: Any) -> str:
    """The field that inputs belong to: SymPy in gives sympy, CuPy in gives cupy, else numpy.

    Mixing CuPy with SymPy is refused.
    """
    has_sym = any(_is_sympy(x) for x in inputs)
    has_cp = any(is_cupy_array(x) for x in inputs)
    if has_sym and has_cp:
        raise TypeError("cannot mix SymPy (exact) and CuPy (GPU float) inputs in one construction")
    if has_sym:
        return "sympy"
    if has_cp:
        return "cupy"
    return "numpy"


def resolve_field(backend: str | None, *inputs: Any) -> str:
    """``backend`` if given (validated), otherwise the field of the inputs."""
    if backend is None:
        return field_of(*inputs)
    backend = _validate.backend(backend)
    inferred = field_of(*inputs) if inputs else backend
    if inputs and inferred == "sympy" and backend != "sympy":
        # exact inputs rendered as floats is allowed (explicit request); nothing to check
        pass
    return backend


def array_module(field: str) -> ModuleType:
    """``numpy`` for the sympy and numpy fields, ``cupy`` for cupy."""
    if field == "cupy":
        return require_cupy()
    return np


def is_torch_tensor(x: Any) -> bool:
    """A torch tensor or Parameter (recognized without importing torch)."""
    return type(x).__module__.split(".", 1)[0] == "torch" and hasattr(x, "detach") and hasattr(x, "numpy")


def from_torch(x: _T) -> _T | np.ndarray:
    """A torch tensor or Parameter as a NumPy array: detached from autograd and copied to the host
    (torch's own ``numpy()`` refuses a tensor that requires grad, a CUDA tensor and bfloat16);
    anything else unchanged. Lists and tuples of tensors (``kron([A, B])``) are converted item by item."""
    if is_torch_tensor(x):
        t = x.detach().cpu().resolve_conj()  # type: ignore[attr-defined]
        if str(t.dtype) in ("torch.bfloat16", "torch.float16"):
            t = t.float()
        return t.numpy()
    if isinstance(x, (list, tuple)) and any(is_torch_tensor(v) for v in x):
        return type(x)(from_torch(v) for v in x)
    return x


def as_values(x: Any, field: str, *, name: str = "values") -> Any:
    """Convert an array-like to the field's value array (shape kept). torch tensors and Parameters
    are taken as they are in value (detached, see :func:`from_torch`), as NumPy arrays are."""
    x = from_torch(x)
    if field == "sympy":
        if isinstance(x, (sympy.MatrixBase, sympy.NDimArray)):
            arr = np.array(x.tolist(), dtype=object)
        elif is_cupy_array(x):
            arr = np.asarray(x.get(), dtype=object)
        else:
            arr = np.array(x, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(arr.reshape(-1)):
            flat[i] = _to_sympy_number(v, name)
        return out
    if isinstance(x, (sympy.MatrixBase, sympy.NDimArray)):
        x = np.array(x.tolist(), dtype=object)
    if field != "cupy" and is_cupy_array(x):
        x = x.get()  # device -> host is explicit: CuPy refuses implicit conversion
    if field == "cupy":
        cp = require_cupy()
        if isinstance(x, np.ndarray) and x.dtype == object:
            x = _object_to_float(x, name)
        arr = _readable(cp.asarray, x, name)
        if arr.dtype.kind not in "fc":
            arr = arr.astype(cp.float64)
        return arr
    arr = _readable(np.asarray, x, name)
    if arr.dtype == object:
        arr = _object_to_float(arr, name)
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"{name} must be numeric, got an array of dtype {arr.dtype}")
    if arr.dtype.kind not in "fc":
        arr = arr.astype(np.float64)
    return arr


def _readable(asarray: Any, x: Any, name: str) -> Any:
    """``asarray(x)``, with NumPy's (or CuPy's) refusal of a ragged nested list said about ``name``."""
    try:
        return asarray(x)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular array of numbers (nested lists of equal lengths), got a "
                         f"{type(x).__name__} that is not: {exc}") from None


def _to_sympy_number(v: Any, name: str) -> sympy.Expr:
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v):  # no Rational is NaN or infinite (Fraction raises deep inside)
            raise ValueError(f"{name}: {float(v)} has no exact value; the exact (SymPy) field needs finite numbers")
        # exact field: keep the binary value exactly rather than rounding it to a decimal
        return sympy.Rational(Fraction(float(v)))
    try:
        return sympy.sympify(v, strict=True)
    except (sympy.SympifyError, TypeError):
        raise TypeError(f"{name}: cannot use {v!r} as an exact SymPy value") from None


def _object_to_float(arr: np.ndarray, name: str) -> np.ndarray:
    flat = arr.reshape(-1)
    # float("2.5") would read a string as a number, float("a") fail inside with no name: neither is a value
    text = next((v for v in flat if isinstance(v, (str, bytes))), None)
    if text is not None:
        raise TypeError(f"{name} must hold numbers, got the string {text!r} among its entries")
    try:
        return np.array([complex(v) if _is_complex(v) else float(v) for v in flat]).reshape(arr.shape)
    except TypeError:
        raise TypeError(
            f"{name} holds symbolic entries that have no float value; use the sympy backend"
        ) from None


def _is_complex(v: Any) -> bool:
    if isinstance(v, complex):
        return True
    if isinstance(v, sympy.Basic):
        return v.is_real is False
    return False


def rational(numerators: Any, denominator: int, field: str, xp: ModuleType | None = None) -> Any:
    """Values ``numerators / denominator``: exact Rationals in the sympy field, floats otherwise.

    ``numerators`` is an integer array built with ``xp``; ``denominator`` a positive int.
    """
    if field == "sympy":
        nums = np.asarray(numerators)
        out = np.empty(nums.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(nums.reshape(-1).tolist()):
            flat[i] = sympy.Rational(int(v), int(denominator))
        return out
    xp = xp or array_module(field)
    return numerators.astype(xp.float64) / float(denominator)


def to_numpy(x: Any) -> np.ndarray:
    """A host copy of a NumPy or CuPy array (or a torch tensor, detached)."""
    if is_cupy_array(x):
        return x.get()
    return np.asarray(from_torch(x))


def index_dtype(*extents: int) -> np.dtype:
    """int32 when every index fits in it, int64 otherwise."""
    biggest = max((int(e) for e in extents), default=0)
    return np.dtype(np.int32) if biggest <= np.iinfo(np.int32).max else np.dtype(np.int64)
