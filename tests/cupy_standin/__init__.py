"""A CPU stand-in for the part of CuPy that isomat uses (test-only, never shipped).

The packages ``cupy`` and ``cupyx`` under this directory implement, on top of NumPy and SciPy,
exactly the ``cupy`` / ``cupyx.scipy.sparse`` calls that isomat's GPU field makes, with the
same strictness as a device would impose:

* arrays are a distinct type (``cupy.ndarray``, ``__module__ == "cupy"``) that moves to the
  host only through ``.get()`` (or ``cupy.asnumpy``); ``numpy.asarray(x)`` raises ``TypeError``
  as it does for real CuPy, and mixing a host ``numpy.ndarray`` into an arithmetic operation
  raises ``TypeError``;
* object (SymPy) dtypes are refused;
* sparse matrices hold int32 indices and float/complex values only, like cuSPARSE.

``tests/conftest.py`` installs these modules in ``sys.modules`` for the ``cupy-standin`` field
parameter, so that every field-parametrized test also runs the GPU glue on a CPU.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
NAMES = ("cupy", "cupyx", "cupyx.scipy", "cupyx.scipy.sparse")


def load() -> dict[str, ModuleType]:
    """Import the stand-in modules without leaving them (or this directory) installed."""
    saved = {n: sys.modules.pop(n) for n in NAMES if n in sys.modules}
    sys.path.insert(0, str(HERE))
    try:
        mods = {n: importlib.import_module(n) for n in NAMES}
    finally:
        sys.path.remove(str(HERE))
        for n in NAMES:
            sys.modules.pop(n, None)
        sys.modules.update(saved)
    return mods
