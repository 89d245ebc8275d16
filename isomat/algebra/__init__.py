"""Constructions: neural-layer operators as structured matrices, one module per family.

Every construction builds a :class:`SparseOperator` (pattern plus values) once and renders it
in the field the caller asks for; see :mod:`isomat.algebra._operator`.
"""

from ._backend import field_of
from ._operator import SparseOperator, estimate_bytes
from .projection import projection, projection_operator

__all__ = ["SparseOperator", "estimate_bytes", "field_of", "projection", "projection_operator"]
