"""Process-wide settings and the machine they apply to: the memory bound that constructions refuse
to exceed, and the CPU facts that isomat's thread rules and benchmarks read (:func:`usable_cpus`,
:func:`cpu_busy_seconds`, :func:`procs_running`) with the machine a report names (:func:`machine_info`),
shared by :mod:`isomat.algebra._threads`, :mod:`isomat.cli` and :mod:`isomat.bench` so that none
of them imports another for it."""

from __future__ import annotations

import contextlib
import os
import platform
from collections.abc import Iterator
from typing import Any

_DEFAULT_LIMIT = 2 * 1024**3  # 2 GiB


_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1000, "KIB": 1024, "M": 1024**2, "MB": 1000**2, "MIB": 1024**2,
          "G": 1024**3, "GB": 1000**3, "GIB": 1024**3, "T": 1024**4, "TB": 1000**4, "TIB": 1024**4}


def parse_size(value: object, name: str = "memory limit") -> int:
    """Bytes from an int or a string with an optional unit: ``4G``, ``512M``, ``1.5GiB``, ``2e9``.

    Binary units for the single letters and ``KiB`` / ``MiB`` / ``GiB`` / ``TiB``; decimal ones for
    ``KB`` / ``MB`` / ``GB`` / ``TB``. Refuses anything that is not a positive number of bytes."""
    import re

    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number of bytes or a size like '4G', got {value!r}")
    if isinstance(value, int):
        nbytes = value
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", value)
        if not m or m.group(2).upper() not in _UNITS:
            raise ValueError(f"{name} must be a number of bytes or a size like '4G', '512M', '1.5GiB', got {value!r}")
        number = float(m.group(1)) * _UNITS[m.group(2).upper()]
        if number != number or number in (float("inf"), float("-inf")):  # '1e400': int(inf) raised OverflowError
            raise ValueError(f"{name} must be a finite number of bytes, got {value!r}")
        nbytes = int(number)
    elif hasattr(value, "__index__"):
        nbytes = int(value.__index__())  # type: ignore[attr-defined]
    else:
        raise TypeError(f"{name} must be a number of bytes or a size like '4G', got {type(value).__name__}")
    if nbytes <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return nbytes


def environment_limit() -> int | None:
    """The bound ``ISOMAT_MEMORY_LIMIT`` sets (``None`` when unset); a ValueError naming the variable
    when it is no size. Read when a bound is first needed, never at import: a bad value must not break
    ``import isomat`` or ``isomat --version``, and the command line reports it in one line."""
    raw = os.environ.get("ISOMAT_MEMORY_LIMIT")
    return None if raw is None else parse_size(raw, "ISOMAT_MEMORY_LIMIT")


#: the bound set by set_memory_limit; None: ISOMAT_MEMORY_LIMIT or the default, read at first use
_limit: int | None = None


def get_memory_limit() -> int:
    """Bytes a single construction may allocate for its result (default 2 GiB, or
    ``ISOMAT_MEMORY_LIMIT``, or what :func:`set_memory_limit` set)."""
    if _limit is not None:
        return _limit
    env = environment_limit()
    return _DEFAULT_LIMIT if env is None else env


def set_memory_limit(nbytes: int | str) -> None:
    """Set the memory bound that constructions refuse to exceed: bytes, or a size like ``"4G"``."""
    global _limit
    _limit = parse_size(nbytes, "nbytes")


@contextlib.contextmanager
def memory_limit(nbytes: int | str) -> Iterator[None]:
    """Temporarily set the memory bound: ``with isomat.memory_limit(10**8): ...``."""
    global _limit
    old = _limit
    set_memory_limit(nbytes)
    try:
        yield
    finally:
        _limit = old


# -- the machine -------------------------------------------------------------------------------
def _machine() -> dict[str, Any]:
    """Platform, processor, CPU count and the versions of Python, NumPy, SciPy and SymPy (read from
    their installed metadata: importing SciPy and SymPy to ask would cost a report most of a second)."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "sympy": _version("sympy"),
    }


def _version(package: str) -> str | None:
    """The version of an installed package (an imported module's own ``__version__`` first), None without it."""
    import sys
    from importlib import metadata

    module = sys.modules.get(package)
    if module is not None and isinstance(getattr(module, "__version__", None), str):
        return module.__version__
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


machine_info = _machine


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def cpu_busy_seconds() -> float | None:
    """CPU-seconds all CPUs have spent busy since boot (``/proc/stat``); None where unavailable."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
        if fields[0] != "cpu":
            return None
        vals = [int(v) for v in fields[1:9]]  # user nice system idle iowait irq softirq steal
        return (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def procs_running() -> int | None:
    """Threads running or ready to run on any CPU now, the caller included (``/proc/stat``'s
    ``procs_running``); None where unavailable."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None

