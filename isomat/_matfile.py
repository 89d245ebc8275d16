"""A MATLAB v5 ``.mat`` writer for one large sparse matrix, in column blocks.

SciPy's ``savemat`` converts a sparse matrix to CSC (a second copy of the matrix), casts the
indices again and serializes each array through ``tobytes`` (a third copy): about three times
the matrix's size at its peak. This writer streams the MATLAB sparse element (the format is in
MathWorks' "MAT-File Format", Level 5: an ``miMATRIX`` element of class ``mxSPARSE_CLASS``
holding array flags with ``nzmax``, dimensions, the name, then ``ir`` (row indices, 0-based
int32, sorted within each column), ``jc`` (column pointers, int32) and ``pr`` / ``pi`` (the real
and imaginary values, double)) straight from a CSR matrix: it gathers the entries of a band of
columns at a time, so what it holds beyond the CSR is one band's triplets.

Optional row and column maps renumber the indices on the way (``row_map[i]`` is the written row
of row ``i``): that is how a row-major matrix becomes the one acting on MATLAB's column-major
``x(:)`` without a permuted copy.

The header and any further variables (the metadata struct) come from ``scipy.io.savemat``
itself, written to memory and spliced in: the file is a 128-byte header followed by top-level
elements, so the sparse element can be appended to SciPy's own output.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, BinaryIO

import numpy as np
import scipy.io
import scipy.sparse as sp

from ._chunks import row_indices, row_ranges

_MI_INT8, _MI_INT32, _MI_UINT32, _MI_DOUBLE, _MI_MATRIX = 1, 5, 6, 9, 14
_MX_SPARSE_CLASS = 5
_COMPLEX_FLAG = 0x0800  # bit 3 of the flags byte (the second byte of the first array-flags word)
#: an element's byte count is a uint32
_MAX_ELEMENT_BYTES = 2**32 - 1


def _pad8(n: int) -> int:
    return (8 - n % 8) % 8


def _tag(mdtype: int, nbytes: int) -> bytes:
    return np.array([mdtype, nbytes], dtype="<u4").tobytes()


def sparse_element_bytes(nnz: int, n_cols: int, name: str, is_complex: bool) -> int:
    """Bytes of the sparse ``miMATRIX`` element's contents (its own 8-byte tag excluded)."""
    nz = max(nnz, 1)
    parts = [8, 8, len(name), 4 * nz, 4 * (n_cols + 1)] + [8 * nz] * (2 if is_complex else 1)
    return sum(8 + p + _pad8(p) for p in parts)


def check_writable(shape: tuple[int, int], nnz: int, is_complex: bool, name: str = "W") -> None:
    """Refuse, before anything is written, a matrix the v5 format cannot hold."""
    if max(shape) >= 2**31:
        raise ValueError(f"A has shape {shape}: a MAT v5 sparse matrix has int32 indices (dimensions below 2**31); "
                         "write .npz or .mtx instead")
    if nnz >= 2**31:
        raise ValueError(f"A has {nnz} stored entries: a MAT v5 sparse matrix holds fewer than 2**31; write .npz or .mtx")
    total = sparse_element_bytes(nnz, shape[1], name, is_complex)
    if total > _MAX_ELEMENT_BYTES:
        raise ValueError(f"A would take {total} bytes in one MAT v5 variable, over the format's 4 GiB limit per "
                         f"variable ({nnz} stored entries); write .npz or .mtx instead")


def _band_of_column(n_cols: int, col_map: np.ndarray | None, n_bands: int) -> np.ndarray:
    """Band of each (unmapped) column: bands are equal ranges of *written* columns."""
    width = -(-n_cols // n_bands)
    written = np.arange(n_cols, dtype=np.int64) if col_map is None else col_map
    dtype = np.uint8 if n_bands <= 255 else np.uint16 if n_bands <= 65535 else np.int64
    return (written // width).astype(dtype)


def _bands(M: sp.csr_array, row_map: np.ndarray | None, col_map: np.ndarray | None, band_entries: int,
           chunk_entries: int, take: str) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For each band of written columns, in order: (the written columns of its entries, the
    ``take`` values of its entries -- ``"rows"`` (written row indices) or ``"values"``), sorted by
    written column, and by written row within a column (MATLAB needs sorted row indices).

    The entries are gathered in row order (row chunks of about ``chunk_entries`` entries): without
    a row map a stable sort by column alone leaves each column's rows ascending; with one, the
    written rows are a second sort key. What a band holds is its columns, its ``take`` values
    (and written rows, with a row map) and the sort's permutation."""
    n_bands = max(1, -(-M.nnz // band_entries))
    band_of = _band_of_column(M.shape[1], col_map, n_bands)
    index = np.int32 if max(M.shape) < 2**31 else np.int64
    ranges = list(row_ranges(M, chunk_entries))
    for band in range(n_bands):
        cs, vs, rs = [], [], []
        for r0, r1, a, b in ranges:
            sel = np.flatnonzero(band_of[M.indices[a:b]] == band)
            if not len(sel):
                continue
            cols = M.indices[a:b][sel]
            cs.append(col_map[cols].astype(index) if col_map is not None else cols.astype(index, copy=False))
            if take == "rows" or row_map is not None:
                rows = row_indices(M, r0, r1, index)[sel]
                rs.append(rows if row_map is None else row_map[rows].astype(index))
            if take == "values":
                vs.append(M.data[a:b][sel])
        if not cs:
            continue
        cols = np.concatenate(cs)
        rows = np.concatenate(rs) if rs else None
        vals = rows if take == "rows" else np.concatenate(vs)
        del cs, vs, rs
        order = np.argsort(cols, kind="stable") if row_map is None else np.lexsort((rows, cols))
        del rows
        yield cols[order], vals[order]


def write_sparse(fh: BinaryIO, M: sp.csr_array, name: str, *, row_map: np.ndarray | None = None,
                 col_map: np.ndarray | None = None, band_entries: int = 1 << 22, chunk_entries: int = 1 << 20) -> None:
    """Write ``M`` (canonical CSR: sorted, no duplicates) as the top-level sparse variable ``name``."""
    n_rows, n_cols = M.shape
    is_complex = M.dtype.kind == "c"
    check_writable(M.shape, M.nnz, is_complex, name)
    nz = max(M.nnz, 1)  # MATLAB will not load a sparse matrix with nzmax 0
    fh.write(_tag(_MI_MATRIX, sparse_element_bytes(M.nnz, n_cols, name, is_complex)))
    flags = _MX_SPARSE_CLASS | (_COMPLEX_FLAG if is_complex else 0)
    fh.write(_tag(_MI_UINT32, 8) + np.array([flags, nz], dtype="<u4").tobytes())
    fh.write(_tag(_MI_INT32, 8) + np.array([n_rows, n_cols], dtype="<i4").tobytes())
    raw = name.encode("ascii")
    fh.write(_tag(_MI_INT8, len(raw)) + raw + b"\0" * _pad8(len(raw)))

    def stream(mdtype: int, itemsize: int, take: str, convert: Any) -> np.ndarray:
        nbytes = itemsize * nz
        fh.write(_tag(mdtype, nbytes))
        counts = np.zeros(n_cols, dtype=np.int64)
        written = 0
        for cols, vals in _bands(M, row_map, col_map, band_entries, chunk_entries, take):
            part = convert(vals)
            fh.write(part.tobytes())
            written += len(part)
            counts += np.bincount(cols, minlength=n_cols)
        if written != M.nnz:  # pragma: no cover - a band scan that lost entries is a bug, not user input
            raise AssertionError(f"wrote {written} of {M.nnz} entries")
        if M.nnz == 0:
            fh.write(b"\0" * itemsize)
        fh.write(b"\0" * _pad8(nbytes))
        return counts

    counts = stream(_MI_INT32, 4, "rows", lambda r: r.astype("<i4"))
    jc = np.concatenate([[0], np.cumsum(counts)]).astype("<i4")
    fh.write(_tag(_MI_INT32, jc.nbytes) + jc.tobytes() + b"\0" * _pad8(jc.nbytes))
    stream(_MI_DOUBLE, 8, "values", lambda v: np.ascontiguousarray(v.real, dtype="<f8"))
    if is_complex:
        stream(_MI_DOUBLE, 8, "values", lambda v: np.ascontiguousarray(v.imag, dtype="<f8"))


def write_mat(path: str, M: sp.csr_array, name: str, variables: dict[str, Any], **kw: Any) -> None:
    """A ``.mat`` file with SciPy's header and ``variables`` (``savemat``), then the sparse ``name``."""
    buf = io.BytesIO()
    scipy.io.savemat(buf, variables, format="5", long_field_names=True, do_compression=False, oned_as="row")
    head = buf.getvalue()
    with open(path, "wb") as fh:
        fh.write(head)  # the 128-byte header, then the small variables
        write_sparse(fh, M, name, **kw)
