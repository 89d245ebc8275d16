"""The machine a report or a benchmark ran on (shared by :mod:`isomat.cli` and :mod:`isomat.bench`,
so that neither imports the other)."""

from __future__ import annotations

import os
import platform
from typing import Any


def _machine() -> dict[str, Any]:
    """Platform, processor, CPU count and the versions of Python, NumPy, SciPy and SymPy."""
    import numpy
    import scipy
    import sympy

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
    }


machine_info = _machine

__all__ = ["machine_info"]
