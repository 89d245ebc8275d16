"""Stand-in ``cupyx.scipy.sparse`` (test-only): SciPy sparse matrices behind a device type.

Only the ``*_matrix`` classes isomat uses (``coo``, ``csr``, ``csc``), with CuPy's *matrix*
semantics (``cupyx/scipy/sparse/_base.py``, identical in 14.1 and 14.2): ``*`` is the matrix product
(``x * A`` for a dense ``x`` is ``x @ A``), ``@`` refuses a scalar with a ValueError, ``sum(axis=0|1)``
is a 2-d ``cupy.ndarray`` of shape ``(1, n)`` / ``(m, 1)`` (CuPy has no ``numpy.matrix``), ``.A`` is
``toarray()`` with a DeprecationWarning, ``.get()`` gives the SciPy ``*_matrix`` of the same format.
CuPy 14.2's ``*_array`` classes are not imitated (isomat, supporting 14.1, does not use them).

Index dtype as in CuPy >= 14.1 (and SciPy): the ``(data, (row, col))`` and ``(data, indices,
indptr)`` constructors choose int32 when ``max(shape)`` and the index values fit, int64 otherwise
(``_sputils.get_index_dtype(..., check_contents=True)``), so an int64 index with an extent
>= 2**31 is kept, never cast to int32; a SciPy matrix keeps its own index dtype. Values are
bool/float32/float64/complex64/complex128; the tuple constructors want device arrays
(``cupy.ndarray``), and products with a host ``numpy.ndarray`` are refused.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as _np
import scipy.sparse as _sp

import cupy as _cp

STANDIN = True
_DTYPES = "?fdFD"


def _dev(a: _np.ndarray) -> "_cp.ndarray":
    return _cp.ndarray(_a=a)


_INT32 = _np.iinfo(_np.int32)


def get_index_dtype(arrays: Any = (), maxval: Any = None, check_contents: bool = False) -> Any:
    """``cupyx.scipy.sparse.get_index_dtype`` (``_sputils.py``): int32 unless ``maxval`` or an index
    array (by type, or with ``check_contents`` by value) needs int64."""
    dtype = _np.int32
    if maxval is not None and maxval > _INT32.max:
        dtype = _np.int64
    if isinstance(arrays, (_cp.ndarray, _np.ndarray)):
        arrays = (arrays,)
    for arr in arrays:
        a = arr._a if isinstance(arr, _cp.ndarray) else _np.asarray(arr)
        if not _np.can_cast(a.dtype, _np.int32):
            if check_contents:
                if a.size == 0:
                    continue
                if a.dtype.kind in "iu" and a.min() >= _INT32.min and a.max() <= _INT32.max:
                    continue
            dtype = _np.int64
            break
    return dtype


def _need_device(x: Any, what: str) -> _np.ndarray:
    if not isinstance(x, _cp.ndarray):
        raise ValueError(f"{what} must be a cupy.ndarray, got {type(x).__name__}")
    return x._a


class _Internal:
    __slots__ = ("m",)

    def __init__(self, m: Any) -> None:
        self.m = m


class spmatrix:
    """Base class: wraps a host SciPy sparse matrix ``_m`` of the same format."""

    format = ""
    _scipy = None
    ndim = 2
    __array_priority__ = 101  # as CuPy's _spbase: a cupy.ndarray operand defers to the sparse matrix

    def __init__(self, arg1: Any, shape: Any = None, dtype: Any = None, copy: bool = False) -> None:
        idx_dtype = None
        if isinstance(arg1, _Internal):  # a conversion inside the stand-in: data already on the "device"
            m = arg1.m
        else:
            m, idx_dtype = self._convert(arg1, shape, dtype, copy)
        m = self._scipy(m)
        if dtype is not None:
            m = m.astype(dtype)
        if m.dtype.char not in _DTYPES:
            if m.dtype.kind in "iu":  # CuPy refuses integer data; be as strict
                raise ValueError("Only bool, float32, float64, complex64 and complex128 are supported")
            raise ValueError(f"unsupported dtype {m.dtype}")
        if idx_dtype is not None:  # CuPy's choice for the tuple constructors (SciPy's may differ)
            for name in ("row", "col", "indices", "indptr"):
                if hasattr(m, name):
                    setattr(m, name, getattr(m, name).astype(idx_dtype, copy=False))
        self._m = m

    @classmethod
    def _convert(cls, arg1: Any, shape: Any, dtype: Any, copy: bool) -> tuple[Any, Any]:
        """``(host SciPy matrix, index dtype CuPy would choose or None to keep the matrix's)``."""
        fmt = cls.format or None
        if isinstance(arg1, spmatrix):
            return (arg1._m.copy() if copy else arg1._m), None
        if _sp.issparse(arg1):  # host scipy sparse -> device (allowed in CuPy; its index dtype kept)
            out = arg1.asformat(fmt).copy() if fmt else arg1.copy()
            _cp.TRANSFERS["h2d_bytes"] += out.data.nbytes + sum(
                getattr(out, n).nbytes for n in ("row", "col", "indices", "indptr") if hasattr(out, n))
            host = arg1.asformat(fmt) if fmt else arg1
            return out, (host.row.dtype if hasattr(host, "row") else host.indices.dtype)
        if isinstance(arg1, _cp.ndarray):
            if arg1.ndim != 2:
                raise ValueError("expected dimension <= 2 array or matrix")
            return _sp.coo_matrix(arg1._a), None
        if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[0], tuple):
            return _sp.coo_matrix(arg1, dtype=dtype), None  # (M, N) empty
        if isinstance(arg1, tuple) and len(arg1) == 2 and _np.isscalar(arg1[0]):
            return _sp.coo_matrix(arg1, dtype=dtype), get_index_dtype(maxval=max(arg1))
        if isinstance(arg1, tuple) and len(arg1) == 2:
            data, (row, col) = arg1
            d = _need_device(data, "data")
            r = _need_device(row, "row")
            c = _need_device(col, "col")
            if d.ndim != 1 or r.ndim != 1 or c.ndim != 1:
                raise ValueError("row, column, and data arrays must be 1-D")
            if shape is None:
                raise ValueError("the stand-in needs shape= for (data, (row, col))")
            idx = get_index_dtype((r, c), maxval=max(shape), check_contents=True)
            return _sp.coo_matrix((d, (r.astype(idx), c.astype(idx))), shape=shape), idx
        if isinstance(arg1, tuple) and len(arg1) == 3:
            data, indices, indptr = arg1
            ind, ptr = _need_device(indices, "indices"), _need_device(indptr, "indptr")
            if fmt == "coo":
                raise TypeError("invalid input format")  # CuPy's coo_matrix takes no (data, indices, indptr)
            idx = get_index_dtype((ind, ptr), maxval=max(shape) if shape is not None else None, check_contents=True)
            compressed = _sp.csc_matrix if fmt == "csc" else _sp.csr_matrix  # read in the class's own format
            return compressed((_need_device(data, "data"), ind.astype(idx), ptr.astype(idx)), shape=shape), idx
        if isinstance(arg1, _np.ndarray):
            raise TypeError("a host numpy.ndarray cannot make a cupyx sparse matrix; use cupy.asarray first")
        raise ValueError(f"Unsupported initializer format: {type(arg1).__name__}")

    # -- attributes -----------------------------------------------------------------------------
    shape = property(lambda self: self._m.shape)
    nnz = property(lambda self: self._m.nnz)
    dtype = property(lambda self: self._m.dtype)
    data = property(lambda self: _dev(self._m.data))
    size = property(lambda self: self._m.nnz)

    def __repr__(self) -> str:
        return f"<cupyx stand-in {self.format}_matrix {self.shape} nnz={self.nnz}>"

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()`.")

    # -- conversions ----------------------------------------------------------------------------
    def get(self, stream: Any = None) -> Any:
        """Host copy as a ``scipy.sparse`` matrix of the same format."""
        out = self._m.copy()
        _cp.TRANSFERS["d2h_bytes"] += out.data.nbytes + sum(
            getattr(out, n).nbytes for n in ("row", "col", "indices", "indptr") if hasattr(out, n))
        return out

    def asformat(self, format: str) -> "spmatrix":
        if format is None or format == self.format:
            return self
        return getattr(self, "to" + format)()

    def tocoo(self, copy: bool = False) -> "coo_matrix":
        return coo_matrix(_Internal(self._m.tocoo()))

    def tocsr(self, copy: bool = False) -> "csr_matrix":
        return csr_matrix(_Internal(self._m.tocsr()))

    def tocsc(self, copy: bool = False) -> "csc_matrix":
        return csc_matrix(_Internal(self._m.tocsc()))

    def toarray(self, order: Any = None, out: Any = None) -> "_cp.ndarray":
        return _dev(self._m.toarray())

    def todense(self, order: Any = None, out: Any = None) -> "_cp.ndarray":
        return self.toarray()

    @property
    def A(self) -> "_cp.ndarray":
        """``toarray()``, deprecated in CuPy's ``spmatrix`` (it warns, and sparse arrays lack it)."""
        warnings.warn("`spmatrix.A` is deprecated; use `.toarray()` instead.", DeprecationWarning, stacklevel=2)
        return self.toarray()

    def copy(self) -> "spmatrix":
        return type(self)(_Internal(self._m.copy()))

    def astype(self, t: Any) -> "spmatrix":
        return type(self)(_Internal(self._m.astype(t)))

    def transpose(self, axes: Any = None, copy: bool = False) -> "spmatrix":
        return _from_scipy(self._m.transpose())

    T = property(transpose)

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None) -> "_cp.ndarray":
        s = self._m.sum(axis=axis, dtype=dtype)
        return _dev(_np.asarray(s))

    def diagonal(self, k: int = 0) -> "_cp.ndarray":
        return _dev(self._m.diagonal(k))

    def eliminate_zeros(self) -> None:
        self._m.eliminate_zeros()

    def sum_duplicates(self) -> None:
        self._m.sum_duplicates()

    @property
    def has_canonical_format(self) -> bool:
        return bool(self._m.has_canonical_format)

    # -- arithmetic -----------------------------------------------------------------------------
    def _operand(self, other: Any) -> Any:
        if isinstance(other, spmatrix):
            return other._m
        if isinstance(other, _cp.ndarray):
            return other._a
        if isinstance(other, _np.ndarray) or _sp.issparse(other):
            raise TypeError(f"cupyx sparse with a host {type(other).__name__}: move it to the device first")
        if _np.isscalar(other):
            return other
        return None

    def _result(self, r: Any) -> Any:
        if _sp.issparse(r):
            return _from_scipy(r)
        return _dev(_np.asarray(r))

    def __matmul__(self, other: Any) -> Any:
        if _np.isscalar(other) or (isinstance(other, _cp.ndarray) and other.ndim == 0):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(self._m @ o)

    def __rmatmul__(self, other: Any) -> Any:
        if _np.isscalar(other) or (isinstance(other, _cp.ndarray) and other.ndim == 0):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(o @ self._m)

    def dot(self, other: Any) -> Any:
        return self.__matmul__(other)

    # matrix semantics: * is the matrix product (CuPy's spmatrix.__mul__ -> _matmul_dispatch); a
    # cupy.ndarray on the left defers to __rmul__ (sparse __array_priority__ 101 > ndarray's 100),
    # which is (A.T * x.T).T = x @ A
    def __mul__(self, other: Any) -> Any:
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(self._m * o if _np.isscalar(o) else self._m @ o)

    def __rmul__(self, other: Any) -> Any:
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(o * self._m if _np.isscalar(o) else o @ self._m)

    def __pow__(self, other: Any) -> Any:
        """Matrix power, as CuPy's ``spmatrix.__pow__`` (square matrix, integer exponent)."""
        if not isinstance(other, (int, _np.integer)):
            raise ValueError("exponent must be an integer")
        if self.shape[0] != self.shape[1]:
            raise TypeError("matrix is not square")
        return self._result(self._m ** int(other))

    def __truediv__(self, other: Any) -> Any:
        if not _np.isscalar(other):
            return NotImplemented
        return self._result(self._m / other)

    def __add__(self, other: Any) -> Any:
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(self._m + o)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(self._m - o)

    def __neg__(self) -> "spmatrix":
        return _from_scipy(-self._m)

    def multiply(self, other: Any) -> Any:
        o = self._operand(other)
        if o is None:
            return NotImplemented
        return self._result(self._m.multiply(o))


class coo_matrix(spmatrix):  # noqa: N801
    format = "coo"
    _scipy = staticmethod(lambda m: _sp.coo_matrix(m))
    row = property(lambda self: _dev(self._m.row))
    col = property(lambda self: _dev(self._m.col))


class csr_matrix(spmatrix):  # noqa: N801
    format = "csr"
    _scipy = staticmethod(lambda m: _sp.csr_matrix(m))
    indices = property(lambda self: _dev(self._m.indices))
    indptr = property(lambda self: _dev(self._m.indptr))

    def sort_indices(self) -> None:
        self._m.sort_indices()


class csc_matrix(spmatrix):  # noqa: N801
    format = "csc"
    _scipy = staticmethod(lambda m: _sp.csc_matrix(m))
    indices = property(lambda self: _dev(self._m.indices))
    indptr = property(lambda self: _dev(self._m.indptr))

    def sort_indices(self) -> None:
        self._m.sort_indices()


def _from_scipy(m: Any) -> spmatrix:
    return {"coo": coo_matrix, "csr": csr_matrix, "csc": csc_matrix}[m.format](_Internal(m))


def issparse(x: Any) -> bool:
    return isinstance(x, spmatrix)


isspmatrix = issparse


def isspmatrix_csr(x: Any) -> bool:
    return isinstance(x, csr_matrix)


def isspmatrix_csc(x: Any) -> bool:
    return isinstance(x, csc_matrix)


def isspmatrix_coo(x: Any) -> bool:
    return isinstance(x, coo_matrix)


def identity(n: int, dtype: Any = "d", format: str | None = None) -> spmatrix:
    return _from_scipy(_sp.identity(n, dtype=dtype, format=format or "csr"))


def eye(m: int, n: int | None = None, k: int = 0, dtype: Any = "d", format: str | None = None) -> spmatrix:
    return _from_scipy(_sp.eye(m, n, k=k, dtype=dtype, format=format or "csr"))


def kron(A: Any, B: Any, format: str | None = None) -> spmatrix:
    if not (isinstance(A, spmatrix) and isinstance(B, spmatrix)):
        raise TypeError("kron of the stand-in takes cupyx sparse matrices")
    return _from_scipy(_sp.kron(A._m, B._m, format=format or "coo"))


def vstack(blocks: Any, format: str | None = None, dtype: Any = None) -> spmatrix:
    return _from_scipy(_sp.vstack([b._m for b in blocks], format=format or "csr", dtype=dtype))


def hstack(blocks: Any, format: str | None = None, dtype: Any = None) -> spmatrix:
    return _from_scipy(_sp.hstack([b._m for b in blocks], format=format or "csr", dtype=dtype))
