"""Type aliases used in isomat's public signatures.

Most constructions return their result *in the field of their inputs* (or of ``backend=``):
exact SymPy, float NumPy, or float CuPy on the GPU (see :mod:`isomat.algebra._backend`). A
Python annotation cannot say "the kind of the argument", so these aliases name the union of the
three renderings and say in words which one comes back. Every name in them is a string
resolved under ``TYPE_CHECKING`` only (CuPy and Z3 are optional dependencies), so importing this
module imports nothing at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias, Union

if TYPE_CHECKING:  # named for type checkers only: importing this module imports nothing
    import cupy
    import cupyx.scipy.sparse
    import numpy as np
    import scipy.sparse as sp
    import sympy
    import z3

    from .algebra._operator import SparseOperator

__all__ = ["DenseMatrix", "FieldArray", "FieldScalar", "SparseMatrix", "Rendered", "IndexTerm", "BoolTerm"]

FieldArray: TypeAlias = Union["np.ndarray", "cupy.ndarray"]
"""A value array: NumPy (object dtype of SymPy numbers in the exact field, float64 or complex128 in
the ``numpy`` field) or CuPy (``cupy`` field)."""

DenseMatrix: TypeAlias = Union["sympy.Matrix", "np.ndarray", "cupy.ndarray"]
"""A dense matrix or vector in its field: ``sympy.Matrix`` (exact, ``"sympy"``), a NumPy array
(``"numpy"``) or a CuPy array (``"cupy"``). A function returning it gives the kind of its inputs,
or the one named by its ``backend`` argument."""

FieldScalar: TypeAlias = Union["sympy.Expr", "np.number", float, "cupy.ndarray"]
"""A scalar in its field: a SymPy expression (exact), a NumPy or Python float (``"numpy"``), or a
0-d CuPy array (``"cupy"``, left on the device)."""

SparseMatrix: TypeAlias = Union["sp.sparray", "sympy.SparseMatrix", "cupyx.scipy.sparse.spmatrix"]
"""A sparse matrix rendered in its field: a ``scipy.sparse`` array (``csr_array``, ``csc_array``
or ``coo_array``, as ``format`` says) for ``"numpy"``, an exact ``sympy.SparseMatrix`` for
``"sympy"``, a ``cupyx.scipy.sparse`` matrix for ``"cupy"``."""

Rendered: TypeAlias = Union["sp.sparray", "sympy.SparseMatrix", "cupyx.scipy.sparse.spmatrix", "SparseOperator"]
"""What a construction with ``backend=`` and ``format=`` arguments returns: a
:data:`SparseMatrix` in the field of ``backend`` for ``format`` ``"csr"``, ``"csc"`` or ``"coo"``,
or the field-neutral :class:`~isomat.algebra.SparseOperator` for ``format="operator"``."""

IndexTerm: TypeAlias = Union[int, "np.ndarray", "z3.ArithRef"]
"""An integer index in an entry rule: a Python int, an integer NumPy array (vectorized) or a Z3
integer term (the same rule, proved for every size by :mod:`isomat.proofs.prover`)."""

BoolTerm: TypeAlias = Union[bool, "np.bool_", "np.ndarray", "z3.BoolRef"]
"""A condition in an entry rule: a Python or NumPy bool, a boolean NumPy array or a Z3 formula."""
