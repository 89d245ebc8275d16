"""Validation and size estimates shared by the readers of :mod:`isomat.export`.

A file is untrusted input: every reader checks what the file *declares* -- the shape, the index
dtype and bounds, the ``indptr``, the value dtype, the sizes in the zip directory, the ``.npy``
headers, the MatrixMarket size line, the MAT variable headers, the torch storages -- before
anything else touches the arrays, and estimates the bytes it is about to allocate, refusing past
:func:`isomat._config.get_memory_limit` (:class:`~isomat.errors.SizeLimitError`) before reading.
Each failure is a one-line ``ValueError`` naming the file and what is wrong.

This module holds what every format's reader shares: the one-line failure, the memory check, the
index, shape and value checks that turn declared arrays into a validated ``csr_array``, the JSON
metadata's limits and the zip directory's size. Each format's own parsing sits beside its writer:
``.npy``/``.npz`` headers in :mod:`~isomat.export._npz` (read into buffers of the declared size,
never more; stored and deflated members only, since ``zipfile`` inflates bzip2 and lzma with no
cap), the MatrixMarket banner and size line in :mod:`~isomat.export._mtx` (SciPy is handed a
canonical copy of what was checked), the MAT v5 variable headers in :mod:`~isomat.export._mat`
(a compressed variable inflated in chunks, capped at its declared size) and the torch storages
in :mod:`~isomat.export._pt` (issue 37).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._config import get_memory_limit
from ..errors import SizeLimitError

#: deepest nesting of metadata JSON that is read (a crafted file could nest far deeper)
#: deepest nesting of metadata JSON that is read (a crafted file could nest far deeper)
MAX_JSON_DEPTH = 64


#: largest metadata text that is parsed
MAX_JSON_CHARS = 64 << 20


_CHUNK = 1 << 22


def fail(p: Any, message: str) -> ValueError:
    """A one-line ValueError about file ``p`` (marked so that ``_Reading`` passes it through)."""
    detail = " ".join(message.split())
    err = ValueError(f"{str(p)!r}: {detail}")
    err._isomat_detail = detail  # type: ignore[attr-defined]  # _Reading names the format around it
    return err


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def check_alloc(p: Any, nbytes: int, what: str) -> None:
    """Refuse reading ``p`` when it would allocate more than the memory bound."""
    limit = get_memory_limit()
    if nbytes > limit:
        err = SizeLimitError(
            f"{str(p)!r}: reading {what} would need about {_human(int(nbytes))}, over the memory bound of "
            f"{_human(limit)} (raise it with isomat.set_memory_limit, ISOMAT_MEMORY_LIMIT or --memory-limit)")
        err._isomat = True  # type: ignore[attr-defined]
        raise err


def index_bytes(*extents: int) -> int:
    return 4 if max((int(e) for e in extents), default=0) < 2**31 else 8


def csr_bytes(shape: tuple[int, int], nnz: int, itemsize: int) -> int:
    """Bytes of a CSR matrix of this shape and number of entries."""
    ib = index_bytes(*shape, nnz)
    return (int(shape[0]) + 1) * ib + int(nnz) * (ib + int(itemsize))


# -- shapes, dtypes ----------------------------------------------------------------------------
def shape2(p: Any, raw: Any) -> tuple[int, int]:
    """A declared 2-d shape of non-negative integers."""
    arr = np.asarray(raw)
    if arr.dtype.kind not in "iu" or arr.shape != (2,):
        raise fail(p, f"its shape must be two integers, got {arr.dtype} of shape {arr.shape}")
    shape = (int(arr[0]), int(arr[1]))
    if min(shape) < 0 or max(shape) >= 2**63:
        raise fail(p, f"its shape {shape} is not two non-negative integers below 2**63")
    return shape


def value_dtype(p: Any, dtype: Any) -> np.dtype:
    """The native dtype the values are read as: float32/64 and complex64/128 as they are (native
    byte order), float16 widened to float32, bools and integers to float64; others refused."""
    dt = np.dtype(dtype)
    if dt.kind == "f" and dt.itemsize == 2:
        return np.dtype(np.float32)
    if dt.kind in "fc" and dt.itemsize in (4, 8, 16) and not (dt.kind == "f" and dt.itemsize == 16):
        return dt.newbyteorder("=")
    if dt.kind in "biu":
        return np.dtype(np.float64)
    raise fail(p, f"its values are {dt}; expected float32, float64, complex64 or complex128 "
                  "(integers, bools and float16 are converted)")


def values(p: Any, data: Any) -> np.ndarray:
    arr = np.asarray(data)
    if arr.ndim != 1:
        raise fail(p, f"its values must be a 1-d array, got shape {arr.shape}")
    dt = value_dtype(p, arr.dtype)
    return arr if arr.dtype == dt else arr.astype(dt)


def _index(p: Any, arr: Any, what: str, extent: int, ndim: int = 1) -> np.ndarray:
    """An index array: integers, ``0 <= i < extent``, native byte order, in SciPy's index dtype."""
    a = np.asarray(arr)
    if a.dtype.kind not in "iu":
        raise fail(p, f"its {what} must be integers, got {a.dtype}")
    if a.ndim != ndim:
        raise fail(p, f"its {what} must be a {ndim}-d array, got shape {a.shape}")
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= extent:
            raise fail(p, f"its {what} must lie in [0, {extent}), found {lo if lo < 0 else hi}")
    return a


def _target(*extents: int) -> np.dtype:
    return np.dtype(np.int32) if index_bytes(*extents) == 4 else np.dtype(np.int64)


def csr(p: Any, shape: tuple[int, int], data: Any, indices: Any, indptr: Any, *, major: str = "row") -> sp.csr_array:
    """A validated ``csr_array`` from CSR arrays (``major="col"``: CSC arrays, converted)."""
    n_major, n_minor = (shape[0], shape[1]) if major == "row" else (shape[1], shape[0])
    ptr = _index(p, indptr, "indptr", 2**63)
    if len(ptr) != n_major + 1:
        raise fail(p, f"its indptr has {len(ptr)} entries; a {shape[0]}x{shape[1]} {'CSR' if major == 'row' else 'CSC'} "
                      f"matrix needs {n_major + 1}")
    data = values(p, data)
    nnz = len(data)
    if int(ptr[0]) != 0 or int(ptr[-1]) != nnz:
        raise fail(p, f"its indptr must run from 0 to the {nnz} stored values, got {int(ptr[0])} .. {int(ptr[-1])}")
    if len(ptr) > 1 and bool((np.diff(ptr) < 0).any()):
        raise fail(p, "its indptr is not non-decreasing")
    idx = _index(p, indices, "row indices" if major == "col" else "column indices", n_minor)
    if len(idx) != nnz:
        raise fail(p, f"it has {len(idx)} indices but {nnz} values")
    it = _target(*shape, nnz)
    ptr = ptr.astype(it, copy=False) if ptr.dtype.isnative else ptr.astype(it)
    idx = idx.astype(it, copy=False) if idx.dtype.isnative else idx.astype(it)
    if major == "row":
        return sp.csr_array((data, idx, ptr), shape=shape, copy=False)
    return sp.csr_array(sp.csc_array((data, idx, ptr), shape=shape, copy=False))


def coo(p: Any, shape: tuple[int, int], data: Any, row: Any, col: Any) -> sp.csr_array:
    """A validated ``csr_array`` from COO triplets (duplicates summed)."""
    data = values(p, data)
    r = _index(p, row, "row indices", shape[0])
    c = _index(p, col, "column indices", shape[1])
    if not (len(r) == len(c) == len(data)):
        raise fail(p, f"it has {len(r)} row indices, {len(c)} column indices and {len(data)} values")
    it = _target(*shape, len(data))
    return sp.csr_array(sp.coo_array((data, (r.astype(it), c.astype(it))), shape=shape))


def dense(p: Any, arr: Any) -> sp.csr_array:
    a = np.asarray(arr)
    if a.ndim != 2:
        raise fail(p, f"it holds a {a.ndim}-d array of shape {a.shape}, not a matrix")
    dt = value_dtype(p, a.dtype)
    return sp.csr_array(a if a.dtype == dt else a.astype(dt))


def bias_vector(p: Any, b: Any) -> np.ndarray:
    b = np.asarray(b)
    if b.ndim != 1:
        raise fail(p, f"its bias must be a 1-d array, got shape {b.shape}")
    return values(p, b)


def loaded_matrix(p: Any, value: Any) -> sp.csr_array:
    """A matrix as SciPy loaded it (``loadmat``'s variable, ``mmread``'s result: sparse or dense) as a
    validated ``csr_array``."""
    if sp.issparse(value):
        v = value
        shape = (int(v.shape[0]), int(v.shape[1]))
        if v.format == "csc":
            return csr(p, shape, v.data, v.indices, v.indptr, major="col")
        if v.format == "csr":
            return csr(p, shape, v.data, v.indices, v.indptr)
        v = v.tocoo()
        return coo(p, shape, v.data, v.row, v.col)
    return dense(p, value)


# -- JSON metadata ------------------------------------------------------------------------------
def json_depth_ok(p: Any, text: str) -> None:
    """Refuse JSON text nested deeper than :data:`MAX_JSON_DEPTH` (before ``json.loads`` recurses)."""
    if len(text) > MAX_JSON_CHARS:
        raise fail(p, f"its metadata is {len(text)} characters, over {MAX_JSON_CHARS}")
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise fail(p, f"its metadata nests deeper than {MAX_JSON_DEPTH} levels")
        elif ch in "]}":
            depth -= 1


def metadata_cap() -> int:
    """Longest metadata text read, in characters: :data:`MAX_JSON_CHARS`, or less under a small
    memory bound (a JSON value costs up to ~24 bytes of Python objects per character of text)."""
    return max(1 << 16, min(MAX_JSON_CHARS, get_memory_limit() // 32))


def json_bytes(text: str) -> int:
    """An upper estimate of the bytes ``json.loads(text)`` holds with its text: every value (one
    per ``[``, ``{`` or ``,``) a Python object of at most 96 bytes with its pointer and dict slot --
    ``[[],[],...]`` makes a 64-byte list of every 3 characters -- and the text's characters at up
    to 4 bytes each (strings)."""
    values = text.count("[") + text.count("{") + text.count(",") + 1
    return 96 * values + 8 * len(text)


def metadata_json(p: Any, text: str) -> dict[str, Any]:
    import json

    # refused past the memory bound before json.loads builds it (issue 37: 64 MiB of '[],' made 1.4 GB of lists)
    check_alloc(p, json_bytes(text), f"its metadata ({len(text)} characters of JSON)")
    json_depth_ok(p, text)
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise fail(p, f"its metadata is not valid JSON ({exc})") from None
    return metadata_dict(p, found)


def metadata_dict(p: Any, found: Any) -> dict[str, Any]:
    if not isinstance(found, dict):
        raise fail(p, f"its metadata is a {type(found).__name__}, not an object (a dict)")
    _depth(p, found, 0)
    return dict(found)


def _depth(p: Any, v: Any, d: int) -> None:
    if d > MAX_JSON_DEPTH:
        raise fail(p, f"its metadata nests deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(v, dict):
        for k, w in v.items():
            if not isinstance(k, str):
                raise fail(p, f"its metadata has a key of type {type(k).__name__}, not str")
            _depth(p, w, d + 1)
    elif isinstance(v, (list, tuple)):
        for w in v:
            _depth(p, w, d + 1)


def zip_directory_ok(p: Any) -> None:
    """Refuse a zip archive whose central directory lists more entries than the memory bound holds,
    before ``zipfile`` makes its ``ZipInfo`` objects (~560 bytes each: a crafted directory of a
    million one-letter names, 47 MB, takes 560 MB to open). The counts are read from the end-of-
    central-directory record (and its zip64 twin; the directory's size bounds the count, since zipfile
    parses all of it); an archive without one is left to ``zipfile``."""
    try:
        fh = open(p, "rb")
    except OSError as exc:
        raise fail(p, f"cannot be opened ({exc})") from None
    with fh:
        size = fh.seek(0, 2)
        n = min(size, (1 << 16) + 22)
        fh.seek(size - n)
        tail = fh.read(n)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + 22 > len(tail):
            return
        entries, cd_size = struct.unpack("<HI", tail[at + 10:at + 16])
        if (entries == 0xFFFF or cd_size == 0xFFFFFFFF) and at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":
            (z64,) = struct.unpack("<Q", tail[at - 12:at - 4])
            if z64 + 56 <= size:
                fh.seek(z64)
                rec = fh.read(56)
                if rec[:4] == b"PK\x06\x06":
                    entries, cd_size = struct.unpack("<QQ", rec[32:48])
    # zipfile parses the whole directory whatever count the record gives: an entry is at least 46 bytes of it
    entries = max(int(entries), int(cd_size) // 46)
    check_alloc(p, 640 * entries + 4 * int(cd_size), f"the zip directory of {entries} entries")
