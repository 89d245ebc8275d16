"""A CPU stand-in for the part of CuPy that isomat uses (test-only, never shipped).

The packages ``cupy`` and ``cupyx`` under this directory implement, on top of NumPy and SciPy,
exactly the ``cupy`` / ``cupyx.scipy.sparse`` calls that isomat's GPU field makes, with the
same strictness as a device would impose:

* arrays are a distinct type (``cupy.ndarray``, ``__module__ == "cupy"``) that moves to the
  host only through ``.get()`` (or ``cupy.asnumpy``); ``numpy.asarray(x)`` raises ``TypeError``
  as it does for real CuPy, and mixing a host ``numpy.ndarray`` into an arithmetic operation
  raises ``TypeError``;
* object (SymPy) dtypes are refused;
* sparse matrices hold float/complex values only, like cuSPARSE, and choose int32 or int64
  indices as CuPy >= 14.1 does (int64 kept for an extent >= 2**31); they are CuPy's ``*_matrix``
  classes, with its matrix semantics (``*`` is the product, ``sum(axis=1)`` is 2-d);
* ``cupy.repeat`` takes device repeats, and out-of-bounds integer-array indices wrap around
  instead of raising (counted in ``cupy.INDEX_WRAPS``), as in CuPy.

What each behaviour imitates, and where in CuPy's source it was read: ``docs/gpu.md``.

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
