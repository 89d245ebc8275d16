"""The machine a report or a benchmark ran on (shared by :mod:`isomat.cli` and :mod:`isomat.bench`,
so that neither imports the other), and the CPU facts isomat's thread rules and benchmarks read
(:func:`usable_cpus`, :func:`cpu_busy_seconds`: one implementation for ``isomat.algebra._threads``
and ``isomat.bench``)."""

from __future__ import annotations

import os
import platform
from typing import Any


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


__all__ = ["cpu_busy_seconds", "machine_info", "procs_running", "usable_cpus"]
