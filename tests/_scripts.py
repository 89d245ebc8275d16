"""Load a script of ``benchmarks/`` as a module (the scripts are not a package: run as files, read here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(stem: str, module_name: str | None = None) -> ModuleType:
    """``benchmarks/<stem>.py`` executed as the module ``module_name`` (default: the stem)."""
    spec = importlib.util.spec_from_file_location(module_name or stem, BENCHMARKS / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
