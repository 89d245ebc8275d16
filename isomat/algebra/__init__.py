"""Constructions: neural-layer operators as structured matrices, one module per family.

Every construction builds a :class:`SparseOperator` (pattern plus values) once and renders it
in the field the caller asks for; see :mod:`isomat.algebra._operator`. Each family module lists
its public names in ``__all__``; they are re-exported here.
"""

from __future__ import annotations

import importlib

from ._backend import field_of
from ._operator import SparseOperator, as_operator, estimate_bytes

__all__ = ["SparseOperator", "as_operator", "estimate_bytes", "field_of"]

# Family modules, in the order of the papers. A module that is not written yet is skipped.
_FAMILIES = (
    "projection", "conv", "pool", "rnn", "attention",  # zhu2025 (+ cheng2025's projection)
    "kron", "matrix_layer", "graph", "ndlinear",  # do2017, reneau2025
    "spm",  # farag2025
    "stp", "logic", "hyper",  # cheng2025
)

for _name in _FAMILIES:
    try:
        _mod = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name == f"{__name__}.{_name}":
            continue
        raise
    for _public in getattr(_mod, "__all__", ()):
        _prev = globals().get(_public)
        # a family may export a function named like its own module (projection, kron): that
        # replaces the submodule attribute; anything else already exported is a clash
        if _prev is not None and _prev is not getattr(_mod, _public) and not isinstance(_prev, type(_mod)):
            raise ImportError(f"isomat.algebra.{_name} exports {_public!r}, which another family already exports")
        globals()[_public] = getattr(_mod, _public)
        __all__.append(_public)
del _name, _mod, _public, _prev
