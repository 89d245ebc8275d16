"""An operator described once: shape, sparsity pattern and values, rendered in any field.

Every construction in :mod:`isomat.algebra` builds a :class:`SparseOperator` -- row and column
index arrays made with vectorized array code, and one value per stored entry -- and renders it
as a ``sympy.SparseMatrix`` (exact), a ``scipy.sparse`` array (float, CPU) or a
``cupyx.scipy.sparse`` matrix (float, GPU). Repeated ``(row, col)`` pairs are summed in every
rendering, so constructions may emit one entry per contribution (per kernel tap, per overlap).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, Union

import numpy as np
import scipy.sparse as sp
import sympy

from .._config import get_memory_limit
from ..errors import SizeLimitError
from ..gpu import cupy_sparse
from .. import _validate
from .._types import DenseMatrix, SparseMatrix
from . import _backend

if TYPE_CHECKING:
    import cupyx.scipy.sparse


def estimate_bytes(nnz: int, n_rows: int, *, value_bytes: int = 8, index_bytes: int | None = None,
                   staging: bool = True) -> int:
    """Bytes of a CSR result with ``nnz`` stored entries (values, column indices, row pointer),
    plus the per-row counts every build computes first, plus, when ``staging``, what a construction
    holds on the way: the COO triplets it builds (int64 rows and columns, the values) and their copies
    in SciPy's COO -> CSR conversion -- three sets of triplets at the peak, measured on swap_matrix
    (85 bytes per entry). tests/test_robustness.py checks that this estimate bounds the real peak RSS."""
    nnz = _validate.nonnegative_int("nnz", nnz)
    n_rows = _validate.nonnegative_int("n_rows", n_rows)
    if nnz and not n_rows:
        raise ValueError(f"n_rows must be at least 1 for nnz = {nnz} stored entries (entries lie in rows), got 0")
    value_bytes = _validate.positive_int("value_bytes", value_bytes)
    if index_bytes is not None:
        index_bytes = _validate.positive_int("index_bytes", index_bytes)
    staging = _validate.boolean("staging", staging)
    if index_bytes is None:
        index_bytes = _backend.index_dtype(nnz, n_rows).itemsize
    csr = nnz * (value_bytes + index_bytes) + (n_rows + 1) * index_bytes
    coo = 3 * nnz * (value_bytes + 2 * 8) if staging else 0
    return csr + coo + 8 * n_rows


#: Bytes :func:`estimate_bytes` charges a SymPy value. Measured with tracemalloc (SymPy 1.14, CPython,
#: 2026-11-26): a SymPy Integer/Rational/Symbol is 72-80 B by ``sys.getsizeof`` alone, but a built
#: ``SparseMatrix`` also holds a dict entry and a ``(row, col)`` tuple key per value, and the build peaks
#: higher still: ``projection(100003, 100019, backend="sympy")`` 185.6 MB for 200,021 entries (928 B an
#: entry), ``kron`` of a 300x300 Rational matrix and a 2x2 Rational/Symbol one 198.7 / 203.7 MB for
#: 360,000 (552 / 566 B), ``logical_matrix`` 79.2 MB for 100,000 (792 B). With 64 B the estimate was
#: 62.8 / 110.9 / 32.0 MB (3x low); with 256 B it is 216.4 / 387.4 / 108.8 MB, above every peak
#: (tests/test_guards_everywhere.py measures it again).
SYMPY_VALUE_BYTES = 256


def value_bytes(field: str) -> int:
    """Bytes one value takes in ``field``: a float64, or a SymPy object with its share of the
    SparseMatrix's dict (:data:`SYMPY_VALUE_BYTES`, measured)."""
    return 8 if field != "sympy" else SYMPY_VALUE_BYTES


def check_size(what: str, shape: tuple[int, int], nnz: int, *, field: str = "numpy", staging: bool = True,
               device_scratch: int = 0) -> None:
    """Refuse, with the size it would need, a result larger than the memory bound.

    ``staging=False`` for constructions that fill CSR arrays directly (no COO intermediate).
    """
    need = estimate_bytes(int(nnz), int(shape[0]), value_bytes=value_bytes(field), staging=staging)
    limit = get_memory_limit()
    if need > limit:
        raise SizeLimitError(
            f"{what}: a {shape[0]}x{shape[1]} operator with {nnz:,} stored entries would need "
            f"about {_human(need)}, over the memory bound of {_human(limit)} "
            f"(raise it with isomat.set_memory_limit, ISOMAT_MEMORY_LIMIT or isomat export --memory-limit)"
        )
    if field == "cupy":
        _check_device(what, shape, int(nnz), staging=staging, scratch=device_scratch)


#: Device bytes a cupy-field build holds at its peak, per stored entry, when it stages COO triplets
#: (int64 rows and columns, the values) and converts them to CSR through ``sum_duplicates`` (a
#: lexsort, its permutation and sorted copies). Measured as the memory pool's high-water mark on an
#: H100 (CuPy 14.2, 2026-11-26, ``benchmarks/device_checklist.py``'s memory check and
#: ``benchmarks/gpu.py``): conv 68.5, avgpool 70.0, swap 72.0, kron 52.0 bytes per entry -- above the
#: 50 assumed before any device run. 80 bounds them with a margin.
DEVICE_BYTES_PER_ENTRY_STAGED = 80
#: Scratch of a direct CSR fill on the device (``conv_matrix``'s blocks, at most
#: ``conv._DEVICE_BLOCK_ENTRIES`` taps each): the block's column indices, its mask, the mask's
#: nonzero indices (two int64s) and the gathered values, per tap.
DEVICE_FILL_SCRATCH_PER_TAP = 48
#: CuPy releases before 14.3 cast a sparse matrix's indices to int32 when it has 2**31 or more stored
#: entries (``indptr[-1]`` wraps negative; upstream issue #9490, fixed in 14.3).
CUPY_LARGE_NNZ_FIX = (14, 3)


def device_bytes_estimate(nnz: int, n_rows: int, *, staging: bool = True, value_bytes: int = 8,
                          index_bytes: int = 8, scratch: int = 0) -> int:
    """Device bytes a cupy-field build of ``nnz`` stored entries in ``n_rows`` rows holds at its peak.

    ``staging=True``: built through COO triplets and ``sum_duplicates``
    (:data:`DEVICE_BYTES_PER_ENTRY_STAGED` per entry, measured). ``staging=False``: CSR arrays filled
    in place (values and column indices, the row counts and pointers) plus ``scratch`` bytes of
    work arrays. ``benchmarks/device_checklist.py`` measures both against the pool's peak."""
    nnz, n_rows = int(nnz), int(n_rows)
    if staging:
        return DEVICE_BYTES_PER_ENTRY_STAGED * nnz + 16 * (n_rows + 1)
    return nnz * (int(value_bytes) + int(index_bytes)) + 24 * (n_rows + 1) + int(scratch)


_LAST_DEVICE_ESTIMATE: dict[str, Any] = {}


def last_device_estimate() -> dict[str, Any]:
    """The device guard's last estimate (``what``, ``nnz``, ``rows``, ``staging``, ``bytes``): what
    the benchmarks set against the memory pool's measured peak of the same build."""
    return dict(_LAST_DEVICE_ESTIMATE)


def _check_device(what: str, shape: tuple[int, int], nnz: int, *, staging: bool = True, scratch: int = 0) -> None:
    """Refuse a cupy-field build whose device temporaries exceed the device's free memory (the
    driver's free bytes plus what CuPy's pool holds unused) -- a SizeLimitError with the sizes, never
    an OutOfMemoryError half-way through -- and a sparse matrix of 2**31 or more stored entries on a
    CuPy that corrupts it."""
    import importlib

    try:
        cp = importlib.import_module("cupy")
        free, _total = cp.cuda.Device().mem_info
        free = int(free) + int(cp.get_default_memory_pool().free_bytes())
    except Exception:  # noqa: BLE001 - no device to ask (the field itself will say why)
        return
    if nnz >= 2**31:
        from ..gpu import _version_tuple

        version = getattr(cp, "__version__", "0")
        if _version_tuple(version) < CUPY_LARGE_NNZ_FIX:
            raise SizeLimitError(
                f"{what}: a {shape[0]}x{shape[1]} sparse matrix with {nnz:,} stored entries (2**31 or more) is "
                f"corrupted by CuPy {version}, which casts its indices to int32 (upstream issue #9490, fixed in "
                f"CuPy {'.'.join(map(str, CUPY_LARGE_NNZ_FIX))}): upgrade CuPy; for a stride-1 convolution use "
                f"format='diagonal' (64-bit indexing, no CSR), or build it in row blocks (rows=...)")
    need = device_bytes_estimate(nnz, int(shape[0]), staging=staging, scratch=scratch)
    _LAST_DEVICE_ESTIMATE.clear()
    _LAST_DEVICE_ESTIMATE.update(what=what, nnz=nnz, rows=int(shape[0]), staging=staging, bytes=need)
    if need > free:
        raise SizeLimitError(
            f"{what}: building a {shape[0]}x{shape[1]} operator with {nnz:,} stored entries on the GPU would "
            f"hold about {_human(need)} of device memory at its peak, over the {_human(int(free))} free on the device")


def check_bytes(what: str, nbytes: int, detail: str = "") -> None:
    """Refuse, before allocating, work whose arrays would hold more than the memory bound: dense
    results, index arrays and temporaries of matrix-free applies, permutations of huge sizes."""
    limit = get_memory_limit()
    if nbytes > limit:
        raise SizeLimitError(
            f"{what}: {detail + ' ' if detail else ''}would need about {_human(int(nbytes))}, over the memory bound "
            f"of {_human(limit)} (raise it with isomat.set_memory_limit, ISOMAT_MEMORY_LIMIT or isomat export --memory-limit)")


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{n} B"


@dataclass(frozen=True, eq=False)
class SparseOperator:
    """A matrix given by its pattern and values, in one field.

    Parameters
    ----------
    shape : tuple of int
        ``(n_rows, n_cols)``.
    rows, cols : array of int
        Row and column index of each stored entry (NumPy, or CuPy in the cupy field).
        Duplicated pairs are summed when rendered.
    values : array
        One value per stored entry: an object array of SymPy numbers (sympy field), float
        NumPy array (numpy field) or CuPy array (cupy field).
    field : {"sympy", "numpy", "cupy"}
    canonical : bool
        The constructor's promise that entries are sorted by (row, col) with no repeated pair;
        CSR is then rendered directly, without the COO sort and duplicate summation.
    """

    shape: tuple[int, int]
    rows: Any
    cols: Any
    values: Any
    field: str
    canonical: bool = False

    def __repr__(self) -> str:
        # the pattern and values are summarized, never dumped (a repr of a million-entry operator is a line)
        return (f"SparseOperator(shape={self.shape}, nnz={len(self.rows)}, field={self.field!r}, "
                f"dtype={getattr(self.values, 'dtype', type(self.values).__name__)})")

    def __post_init__(self) -> None:
        if not (len(self.rows) == len(self.cols) == len(self.values)):
            raise ValueError(
                f"rows, cols and values must have equal length, got "
                f"{len(self.rows)}, {len(self.cols)}, {len(self.values)}"
            )

    @classmethod
    def build(cls, shape: tuple[int, int], rows: Any, cols: Any, values: Any, field: str, *,
              canonical: bool = False) -> "SparseOperator":
        """Assemble with the index dtype chosen from the shape (int32 when it fits)."""
        xp = _backend.array_module(field)
        dt = _backend.index_dtype(shape[0], shape[1], len(rows))
        return cls(
            (int(shape[0]), int(shape[1])),
            xp.asarray(rows).astype(dt, copy=False),
            xp.asarray(cols).astype(dt, copy=False),
            values,
            field,
            canonical,
        )

    def _indptr(self, xp: Any) -> Any:
        """CSR row pointer of a canonical (row-sorted) pattern."""
        rows = xp.asarray(self.rows)
        return xp.searchsorted(rows, xp.arange(self.shape[0] + 1, dtype=rows.dtype)).astype(rows.dtype)

    @property
    def nnz(self) -> int:
        """Stored entries before duplicates are summed."""
        return int(len(self.values))

    @property
    def T(self) -> "SparseOperator":
        return SparseOperator((self.shape[1], self.shape[0]), self.cols, self.rows, self.values, self.field)  # not row-sorted

    # -- renderings ---------------------------------------------------------------------------
    def to_scipy(self, format: str = "csr") -> sp.sparray:
        """Float rendering as a ``scipy.sparse`` array (``csr``, ``csc`` or ``coo``)."""
        rows = _backend.to_numpy(self.rows)
        cols = _backend.to_numpy(self.cols)
        vals = self.values
        if self.field == "sympy":
            vals = _backend._object_to_float(np.asarray(vals, dtype=object), "values")
        vals = _backend.to_numpy(vals)
        if self.canonical and format == "csr":
            A = sp.csr_array((vals, cols, self._indptr(np).astype(cols.dtype)), shape=self.shape)
            A.has_canonical_format = True
            return A
        coo = sp.coo_array((vals, (rows, cols)), shape=self.shape)
        coo.sum_duplicates()
        return coo.asformat(format)

    def to_sympy(self) -> sympy.SparseMatrix:
        """Exact rendering as a ``sympy.SparseMatrix`` (duplicates summed exactly)."""
        vals = self.values
        if self.field != "sympy":
            vals = _backend.as_values(_backend.to_numpy(vals), "sympy")
        entries: dict[tuple[int, int], Any] = {}
        for r, c, v in zip(_backend.to_numpy(self.rows).tolist(), _backend.to_numpy(self.cols).tolist(), vals):
            key = (r, c)
            entries[key] = entries[key] + v if key in entries else v
        return sympy.SparseMatrix(self.shape[0], self.shape[1], {k: v for k, v in entries.items() if v != 0})

    def to_cupy(self, format: str = "csr") -> cupyx.scipy.sparse.spmatrix:
        """GPU rendering as a ``cupyx.scipy.sparse`` matrix."""
        cpx = cupy_sparse()
        xp = _backend.array_module("cupy")
        vals = self.values
        if self.field == "sympy":
            vals = _backend._object_to_float(np.asarray(vals, dtype=object), "values")
        vals = xp.asarray(vals)
        if vals.dtype.kind not in "fc":
            vals = vals.astype(xp.float64)
        if self.canonical and format == "csr":
            return cpx.csr_matrix((vals, xp.asarray(self.cols), self._indptr(xp)), shape=self.shape)
        coo = cpx.coo_matrix((vals, (xp.asarray(self.rows), xp.asarray(self.cols))), shape=self.shape)
        coo.sum_duplicates()
        return coo.asformat(format)

    def to_field(self, field: str) -> "SparseOperator":
        """The same operator in ``field`` (``"sympy"``, ``"numpy"`` or ``"cupy"``): its pattern and
        values moved or converted (``self`` when already there). :func:`isomat.gpu.to_gpu` and
        :func:`~isomat.gpu.to_cpu` call this, so that the GPU glue needs no algebra types."""
        return as_operator(self, field=_validate.backend(field, "field"), name="values")

    def render(self, format: str = "csr") -> SparseMatrix:
        """Render in the operator's own field."""
        if self.field == "sympy":
            return self.to_sympy()
        if self.field == "cupy":
            return self.to_cupy(format)
        return self.to_scipy(format)

    def todense(self) -> DenseMatrix:
        """Dense rendering in the operator's own field (``sympy.Matrix``, NumPy or CuPy array);
        a :class:`~isomat.errors.SizeLimitError` before allocating when it would pass the memory bound."""
        m, n = int(self.shape[0]), int(self.shape[1])
        # a float64 (complex128) per entry, or a SymPy Matrix's list slot per entry (zeros share one
        # object) built through a second list; plus the sparse rendering it is made from
        item = 16 if self.field == "sympy" or getattr(self.values, "dtype", np.dtype(object)).kind == "c" else 8
        check_bytes("SparseOperator.todense", m * n * item + estimate_bytes(self.nnz, m, value_bytes=value_bytes(self.field)),
                    f"a dense {m}x{n} matrix")
        if self.field == "sympy":
            return sympy.Matrix(self.to_sympy())
        if self.field == "cupy":
            return self.to_cupy().toarray()
        return self.to_scipy().toarray()


#: (defined here, beside :class:`SparseOperator`, so that :mod:`isomat._types` beneath the algebra
#: names nothing of it: the two modules imported each other, issue 41)
Rendered: TypeAlias = Union["sp.sparray", "sympy.SparseMatrix", "cupyx.scipy.sparse.spmatrix", SparseOperator]
"""What a construction with ``backend=`` and ``format=`` arguments returns: a
:data:`~isomat._types.SparseMatrix` in the field of ``backend`` for ``format`` ``"csr"``, ``"csc"`` or
``"coo"``, or the field-neutral :class:`~isomat.algebra.SparseOperator` for ``format="operator"``."""


def render(op: SparseOperator, format: str) -> Rendered:
    """Render ``op`` in its own field, or return it as is when ``format == "operator"``."""
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator"))
    if format == "operator":
        return op
    return op.render(format)


def as_operator(M: Any, *, field: str | None = None, name: str = "M") -> SparseOperator:
    """Wrap a matrix (NumPy/CuPy array, SymPy matrix, SciPy/CuPy sparse, or a SparseOperator) as
    a :class:`SparseOperator` holding its nonzero entries, in ``field`` (default: the input's). A 1-d
    input is read as a column vector (n x 1)."""
    if field is not None:
        field = _validate.backend(field, "field")  # "bogus" used to pass through unchecked
    if isinstance(M, SparseOperator):
        if field is None or field == M.field:
            return M
        return SparseOperator.build(M.shape, _backend.to_numpy(M.rows) if field != "cupy" else M.rows,
                                    _backend.to_numpy(M.cols) if field != "cupy" else M.cols,
                                    _backend.as_values(_backend.to_numpy(M.values) if field != "cupy" else M.values, field, name=name),
                                    field)
    if sp.issparse(M) or (hasattr(M, "tocoo") and hasattr(M, "shape") and not isinstance(M, sympy.MatrixBase)):
        coo = M.tocoo()
        fld = field or _backend.field_of(coo.data)
        vals = _backend.as_values(coo.data, fld, name=name)
        return SparseOperator.build(tuple(coo.shape), coo.row if fld == "cupy" else _backend.to_numpy(coo.row),
                                    coo.col if fld == "cupy" else _backend.to_numpy(coo.col), vals, fld)
    fld = field or _backend.field_of(M)
    arr = _backend.as_values(M, fld, name=name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (2-d), got an array of shape {tuple(arr.shape)}")
    xp = _backend.array_module(fld)
    if fld == "sympy":
        nz = np.array([v != 0 for v in arr.reshape(-1)], dtype=bool).reshape(arr.shape)
        r, c = np.nonzero(nz)
    else:
        r, c = xp.nonzero(arr)
    return SparseOperator.build(tuple(arr.shape), r, c, arr[r, c], fld)
