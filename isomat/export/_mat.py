"""MATLAB ``.mat`` (v5): a sparse matrix ``W`` written in column bands, and read back validated.

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

The reader (:func:`read_mat`, :func:`mat_load`) walks the file's top-level elements itself: a
truncated file is named as such, the wanted variable's declared size is checked against the
memory bound before it is inflated (in chunks, capped at its declared size), and only then is
``scipy.io.loadmat`` given that one variable.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import scipy.io
import scipy.sparse as sp

from .. import _validate
from ._base import _check_target, _metadata_json, _order_maps, _path, _Reading, _bias_of, _write_atomic, to_scipy
from ._base import B_NAME
from ._checks import bias_vector, check_alloc, csr_bytes, fail, loaded_matrix
from ._chunks import row_indices, row_ranges

_MI_INT8, _MI_INT32, _MI_UINT32, _MI_DOUBLE, _MI_MATRIX = 1, 5, 6, 9, 14
_MX_SPARSE_CLASS = 5
_MI_COMPRESSED = 15
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


def to_mat(A: Any, path: Any, *, name: str = "W", order: str = "C", input_shape: Any = None,
           output_shape: Any = None, metadata: dict[str, Any] | None = None, overwrite: bool = True,
           bias: Any = None) -> Path:
    """Write ``A`` as a MATLAB sparse matrix (``.mat``, v5) named ``name``; returns the path.

    MATLAB flattens column-major: ``x(:)`` of an ``m x n`` array stacks its columns, while isomat's
    matrices act on row-major flattenings. ``order="F"`` (with the tensors' ``input_shape`` and
    ``output_shape``) writes :func:`column_major` of ``A`` -- the matrix for which ``W * x(:)``
    equals the layer's ``y(:)`` in MATLAB; ``order="C"`` writes ``A`` as it is. ``metadata`` goes
    in as a struct ``isomat_metadata`` and as the JSON text ``isomat_metadata_json``; a ``bias``
    (one value per row of ``A``, in the same order as ``A``'s rows) as the column ``b``, so that
    ``y = W * x + b``.

    MATLAB's sparse matrices hold double (or complex double) values with int32 indices, at most
    4 GiB per variable in the v5 format; anything else is refused before writing. The sparse
    element is streamed in column bands from the CSR (``scipy.io.savemat`` would hold about three
    copies); ``scipy.io.loadmat`` reads it back as ``csc_matrix``.
    """
    p = _path(path, ".mat")
    if not isinstance(name, str) or not name.isidentifier() or len(name) > 63:
        raise ValueError(f"name must be a MATLAB variable name (a letter, then letters, digits or _), got {name!r}")
    _check_target(p, _validate.boolean("overwrite", overwrite))
    M = to_scipy(A, "csr")
    if M.dtype not in (np.float64, np.complex128):
        raise ValueError(f"A has {M.dtype} values: MATLAB sparse matrices hold double values (float64 or complex128)")
    check_writable(M.shape, M.nnz, M.dtype.kind == "c", name)
    rmap, cmap = _order_maps(M, order, input_shape, output_shape)
    variables: dict[str, Any] = {}
    if metadata is not None:
        text = _metadata_json(metadata)
        variables = {"isomat_metadata": _mat_struct(json.loads(text)), "isomat_metadata_json": text}
    if bias is not None:
        b = _bias_of(bias, M)
        if rmap is not None:  # row i of A is row rmap[i] of the written matrix
            moved = np.empty_like(b)
            moved[rmap] = b
            b = moved
        variables[B_NAME] = b.astype(M.dtype).reshape(-1, 1)
    return _write_atomic(p, lambda t: write_mat(t, M, name, variables, row_map=rmap, col_map=cmap),
                         lambda t: _mat_ok(t, name, M.shape), overwrite)


def _mat_struct(value: Any) -> Any:
    """JSON values as savemat takes them: dicts -> structs, number lists -> arrays, None -> []."""
    if isinstance(value, dict):
        return {k: _mat_struct(v) for k, v in value.items()}
    if value is None:
        return np.zeros((0, 0))
    if isinstance(value, list):
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return np.array(value)
        cell = np.empty(len(value), dtype=object)
        cell[:] = [_mat_struct(v) for v in value]
        return cell
    return value


def _mat_ok(t: Path, name: str, shape: tuple[int, int]) -> None:
    found = {v[0]: v for v in scipy.io.whosmat(str(t))}
    if name not in found or tuple(found[name][1]) != tuple(shape) or found[name][2] != "sparse":
        raise OSError(f"{str(t)!r} does not read back a sparse {shape[0]}x{shape[1]} variable {name!r}")


def read_mat(path: Any, name: str = "W") -> sp.csr_array:
    """Read the sparse variable ``name`` of a ``.mat`` file as a ``csr_array``."""
    p = _path(path, ".mat")
    with _Reading(p, "a MATLAB .mat file"):
        # the variable headers are walked (a truncated file is named as such) and the variable's declared
        # size checked against the memory bound before it is inflated (capped) and parsed; its indices
        # are checked before the CSC becomes CSR
        return loaded_matrix(p, mat_load(p, name))


#: bytes per value of each MAT array class (mxCHAR_CLASS .. mxUINT64_CLASS)
_MAT_CLASS_BYTES = {1: 0, 2: 0, 3: 0, 4: 2, 5: 8, 6: 8, 7: 4, 8: 1, 9: 1, 10: 2, 11: 2, 12: 4, 13: 4, 14: 8, 15: 8}


def _mat_var_header(p: Any, head: bytes, order: str) -> tuple[int, bool, int, tuple[int, ...], str]:
    """(class, complex, nzmax, dims, name) from the first bytes of an ``miMATRIX``'s contents."""
    def sub(off: int) -> tuple[int, int, bytes, int]:
        if off + 8 > len(head):
            raise fail(p, "has a truncated variable header")
        a, b = struct.unpack(order + "II", head[off:off + 8])
        if a >> 16:  # small data element: the bytes are in the tag
            mdtype, n = a & 0xFFFF, a >> 16
            return mdtype, n, head[off + 4:off + 4 + n], off + 8
        n = b
        end = off + 8 + n + (-n % 8)
        if off + 8 + n > len(head):
            raise fail(p, "has a truncated or oversized variable header")
        return a, n, head[off + 8:off + 8 + n], end

    _, _, flags, off = sub(0)
    if len(flags) < 8:
        raise fail(p, "has a malformed array-flags element")
    f0, nzmax = struct.unpack(order + "II", flags[:8])
    cls, cplx = f0 & 0xFF, bool(f0 & 0x0800)
    mdtype, n, raw, off = sub(off)
    if mdtype != 5 or n % 4 or n == 0:
        raise fail(p, "has a malformed dimensions element")
    dims = struct.unpack(order + f"{n // 4}i", raw)
    if any(d < 0 for d in dims):
        raise fail(p, f"declares negative dimensions {dims}")
    _, _, name, off = sub(off)
    return cls, cplx, nzmax, tuple(dims), name.decode("latin-1")


def _var_bytes(cls: int, cplx: bool, nzmax: int, dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    if cls == _MX_SPARSE_CLASS:
        rows, cols = (dims + (1, 1))[:2]
        return nzmax * (4 + 8 * (2 if cplx else 1)) * 2 + (cols + 1) * 8 + csr_bytes((rows, cols), nzmax, 16 if cplx else 8)
    return n * max(_MAT_CLASS_BYTES.get(cls, 8), 1) * (2 if cplx else 1) * 2


def mat_load(p: Path, name: str, required: bool = True) -> Any:
    """The variable ``name`` of a v5 ``.mat`` file (as ``scipy.io.loadmat`` gives it), after its
    declared header was checked against the memory bound; a truncated file, a compressed variable
    that inflates past its declared size and a missing variable are each named."""
    size = p.stat().st_size
    with open(p, "rb") as fh:
        header = fh.read(128)
        if len(header) < 128:
            raise fail(p, f"is truncated ({len(header)} bytes, shorter than a MAT file's 128-byte header)")
        endian = header[126:128]
        if endian not in (b"IM", b"MI"):
            raise fail(p, "is not a MAT v5 file (no endian indicator; v4 files are not read)")
        order = "<" if endian == b"IM" else ">"
        if struct.unpack(order + "H", header[124:126])[0] != 0x0100:
            raise fail(p, "is not a MAT v5 file (v7.3 HDF5 files are not read)")
        pos = 128
        found = None
        while pos < size:
            fh.seek(pos)
            tag = fh.read(8)
            if len(tag) < 8:
                if tag.strip(b"\0"):
                    raise fail(p, f"is truncated (a partial element tag at byte {pos})")
                break
            mdtype, nbytes = struct.unpack(order + "II", tag)
            if mdtype == _MI_MATRIX and 0 < pos + 8 + nbytes - size <= 8:
                nbytes = size - pos - 8  # isomat's writer before 0.x declared its last sparse element 8 bytes long
            if pos + 8 + nbytes > size:
                raise fail(p, f"is truncated: the element at byte {pos} declares {nbytes} bytes, "
                              f"{size - pos - 8} remain")
            if mdtype == _MI_COMPRESSED:
                head, inner = _inflate_head(p, fh, nbytes, 4096)
                if len(head) < 8:
                    raise fail(p, f"has a compressed element at byte {pos} without a variable inside")
                imd, inbytes = struct.unpack(order + "II", head[:8])
                body = head[8:]
            else:
                imd, inbytes, body = mdtype, nbytes, fh.read(min(nbytes, 4096))
            if imd == _MI_MATRIX and inbytes:
                cls, cplx, nzmax, dims, vname = _mat_var_header(p, body, order)
                if vname == name:
                    found = (pos, mdtype, nbytes, inbytes, cls, cplx, nzmax, dims)
            pos += 8 + nbytes + (0 if mdtype == _MI_COMPRESSED else -nbytes % 8)
        if found is None:
            if not required:
                return None
            raise fail(p, f"has no variable {name!r}")
        pos, mdtype, nbytes, inbytes, cls, cplx, nzmax, dims = found
        need = _var_bytes(cls, cplx, nzmax, dims) + inbytes
        check_alloc(p, need, f"the variable {name!r} ({'x'.join(map(str, dims))}, {nzmax if cls == _MX_SPARSE_CLASS else ''}"
                             f"{' stored values' if cls == _MX_SPARSE_CLASS else 'dense'})")
        fh.seek(pos + 8)
        if mdtype == _MI_COMPRESSED:
            element = _inflate_capped(p, fh, nbytes, 8 + inbytes)
        else:
            element = struct.pack(order + "II", mdtype, nbytes) + fh.read(nbytes)
    buf = io.BytesIO(header + element)
    del element
    try:
        data = scipy.io.loadmat(buf, variable_names=[name])
    except Exception as exc:  # noqa: BLE001 -- what scipy cannot parse is named in one line
        raise fail(p, f"its variable {name!r} cannot be read ({type(exc).__name__}: {exc})"[:400]) from None
    if name not in data:
        raise fail(p, f"its variable {name!r} cannot be read")
    return data[name]


def _inflate_head(p: Any, fh: Any, nbytes: int, want: int) -> tuple[bytes, None]:
    d = zlib.decompressobj()
    out = b""
    left = nbytes
    try:
        while len(out) < want and left > 0:
            chunk = fh.read(min(left, 1 << 16))
            if not chunk:
                break
            left -= len(chunk)
            out += d.decompress(chunk, want - len(out))
            while d.unconsumed_tail and len(out) < want:
                out += d.decompress(d.unconsumed_tail, want - len(out))
            if d.eof:
                break
    except zlib.error as exc:
        raise fail(p, f"has a corrupt compressed element ({exc})") from None
    return out, None


def _inflate_capped(p: Any, fh: Any, nbytes: int, cap: int) -> bytes:
    """Inflate a compressed element of ``nbytes`` compressed bytes, stopping past ``cap`` bytes."""
    d = zlib.decompressobj()
    out = bytearray()
    left = nbytes
    try:
        while left > 0 and not d.eof:
            chunk = fh.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)
            data = chunk
            while data and not d.eof:
                out += d.decompress(data, cap + 1 - len(out))
                if len(out) > cap:
                    raise fail(p, f"has a compressed variable that inflates past its declared {cap - 8} bytes")
                data = d.unconsumed_tail
    except zlib.error as exc:
        raise fail(p, f"has a corrupt compressed element ({exc})") from None
    if len(out) < cap:
        raise fail(p, f"has a compressed variable that inflates to {len(out)} bytes, short of its declared {cap}")
    return bytes(out)


def mat_metadata_text(p: Path) -> str | None:
    """The file's ``isomat_metadata_json`` (one string), or None."""
    value = mat_load(p, "isomat_metadata_json", required=False)
    if value is None:
        return None
    if not (isinstance(value, np.ndarray) and value.dtype.kind == "U" and value.size == 1):
        raise fail(p, f"its isomat_metadata_json is not one string, got {type(value).__name__}")
    return str(value.ravel()[0])


def mat_bias(p: Path) -> np.ndarray | None:
    """The file's bias column ``b``, validated, or None."""
    with _Reading(p, "a MATLAB .mat file"):
        value = mat_load(p, B_NAME, required=False)
    return None if value is None else bias_vector(p, np.asarray(value).ravel())
