"""CuPy glue: finding a usable device, and moving arrays and operators on and off it.

``import cupy`` succeeding proves nothing: a usable device is one where allocating
``cupy.zeros(1)`` works. Everything here imports CuPy lazily, so isomat imports and runs
on machines without it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

_status: tuple[bool, str] | None = None


def _probe() -> tuple[bool, str]:
    try:
        cupy = importlib.import_module("cupy")
        importlib.import_module("cupyx.scipy.sparse")
    except (ImportError, RuntimeError) as exc:
        return False, f"no cupy: {type(exc).__name__}: {exc}"
    try:
        cupy.zeros(1)
    except Exception as exc:  # CUDARuntimeError, CUDADriverError, RuntimeError...
        return False, f"cupy imports but no usable CUDA device: {type(exc).__name__}: {exc}"
    return True, "usable CUDA device"


def gpu_status(*, refresh: bool = False) -> tuple[bool, str]:
    """``(usable, reason)``: whether CuPy can allocate on a device, and why not."""
    global _status
    if _status is None or refresh:
        _status = _probe()
    return _status


def gpu_available() -> bool:
    """True when CuPy imports and ``cupy.zeros(1)`` succeeds."""
    return gpu_status()[0]


def require_cupy() -> ModuleType:
    """Return the ``cupy`` module, or raise RuntimeError saying why it is unusable."""
    ok, reason = gpu_status()
    if not ok:
        raise RuntimeError(f"backend='cupy' needs a usable GPU: {reason}")
    return importlib.import_module("cupy")


def cupy_sparse() -> ModuleType:
    """Return ``cupyx.scipy.sparse`` (after checking the device)."""
    require_cupy()
    return importlib.import_module("cupyx.scipy.sparse")


def is_cupy_array(x: Any) -> bool:
    mod = type(x).__module__
    return mod.startswith("cupy") or mod.startswith("cupyx")
