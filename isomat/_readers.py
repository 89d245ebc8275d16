"""Validation and size estimates shared by the readers of :mod:`isomat.export`.

A file is untrusted input: every reader checks what the file *declares* -- the shape, the index
dtype and bounds, the ``indptr``, the value dtype, the sizes in the zip directory, the ``.npy``
headers, the MatrixMarket size line, the MAT variable headers, the torch storages -- before
anything else touches the arrays, and estimates the bytes it is about to allocate, refusing past
:func:`isomat._config.get_memory_limit` (:class:`~isomat.errors.SizeLimitError`) before reading.
Each failure is a one-line ``ValueError`` naming the file and what is wrong.

Compressed data is never inflated past what was declared and checked: ``.npz`` members are read
into a buffer of the size their ``.npy`` header declared (in chunks, never more), and a compressed
``.mat`` variable is inflated in chunks with a cap of its declared size. Only stored and deflated
zip members are read (``zipfile`` inflates bzip2 and lzma with no cap), a zip's central directory
is sized before ``zipfile`` lists it, an ``.npy`` header's length is checked before it is read,
a MatrixMarket header is parsed here and SciPy is handed a canonical copy of what was checked, and
metadata is sized by the Python objects parsing it would build (issue 37).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._config import get_memory_limit
from .errors import SizeLimitError

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


# -- .npy / .npz --------------------------------------------------------------------------------
#: longest ``.npy`` header read, in bytes (NumPy's own safe-loading cap is 10000 characters; the
#: length field of a v2/v3 header is 4 bytes, so it is checked before the header is read)
NPY_HEADER_CAP = 10000
_NPY_V3 = (3, 0)


def _read_exact(fh: Any, n: int, what: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise EOFError(f"{what}: expected {n} bytes, got {len(data)}")
    return data


def _npy_v3_header(text: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) of a v3.0 header -- v2.0 with a UTF-8 header, for which NumPy
    offers no public reader -- checked as NumPy checks it: a dict literal with exactly the keys
    ``descr``, ``fortran_order`` and ``shape``, a tuple of ints, a bool, and a descr that
    ``numpy.lib.format.descr_to_dtype`` (public) accepts."""
    import ast

    from numpy.lib import format as npy

    if len(text) > NPY_HEADER_CAP:
        raise ValueError(f"header of {len(text)} characters, over {NPY_HEADER_CAP}")
    d = ast.literal_eval(text)
    if not isinstance(d, dict) or set(d) != set(npy.EXPECTED_KEYS):
        raise ValueError(f"header is not a dict with the keys {sorted(npy.EXPECTED_KEYS)}")
    shape, fortran = d["shape"], d["fortran_order"]
    if not isinstance(shape, tuple) or not all(isinstance(x, int) and not isinstance(x, bool) for x in shape):
        raise ValueError(f"shape is not valid: {shape!r}")
    if not isinstance(fortran, bool):
        raise ValueError(f"fortran_order is not a valid bool: {fortran!r}")
    return shape, fortran, npy.descr_to_dtype(d["descr"])


def npy_header(p: Any, fh: Any, what: str) -> tuple[np.dtype, tuple[int, ...], bool]:
    """The (dtype, shape, fortran_order) an ``.npy`` stream's header declares (object arrays refused).

    Versions 1.0 and 2.0 are parsed by NumPy's public ``read_array_header_1_0/2_0``; a v2.0/v3.0
    header's 4-byte length is checked against :data:`NPY_HEADER_CAP` before the header is read (a
    crafted length could ask for 4 GiB, which NumPy would read first and measure after); v3.0 is
    parsed by :func:`_npy_v3_header` (NumPy 2.4 has no public v3.0 reader)."""
    import io

    from numpy.lib import format as npy

    try:
        version = npy.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(fh, max_header_size=NPY_HEADER_CAP)
        elif version in ((2, 0), _NPY_V3):
            raw = _read_exact(fh, 4, "the header length")
            n = struct.unpack("<I", raw)[0]
            if n > NPY_HEADER_CAP * 4:  # a UTF-8 character is at most 4 bytes
                raise ValueError(f"its header declares {n} bytes, over {NPY_HEADER_CAP * 4}")
            head = _read_exact(fh, n, "the header")
            if version == (2, 0):
                shape, fortran, dtype = npy.read_array_header_2_0(io.BytesIO(raw + head),
                                                                  max_header_size=NPY_HEADER_CAP)
            else:
                shape, fortran, dtype = _npy_v3_header(head.decode("utf-8"))
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, OSError, EOFError, SyntaxError, TypeError, RecursionError, MemoryError) as exc:
        # (a MemoryError or RecursionError here is the parser's, on at most 40000 bytes: the file's fault)
        raise fail(p, f"{what} has no readable .npy header ({' '.join(str(exc).split())[:200]})") from None
    if dtype.hasobject:
        raise fail(p, f"{what} holds {dtype} (Python objects), which are not read")
    if any(int(n) < 0 for n in shape):
        raise fail(p, f"{what} declares a negative shape {shape}")
    return dtype, tuple(int(n) for n in shape), bool(fortran)


def npy_nbytes(dtype: np.dtype, shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n * dtype.itemsize


def read_into(p: Any, fh: Any, dtype: np.dtype, shape: tuple[int, ...], fortran: bool, what: str) -> np.ndarray:
    """Read exactly the declared array from ``fh`` in chunks, never more."""
    nbytes = npy_nbytes(dtype, shape)
    buf = np.empty(nbytes, dtype=np.uint8)
    view = memoryview(buf)
    got = 0
    while got < nbytes:
        n = fh.readinto(view[got:got + _CHUNK]) if hasattr(fh, "readinto") else None
        if n is None:
            chunk = fh.read(min(_CHUNK, nbytes - got))
            n = len(chunk)
            view[got:got + n] = chunk
        if not n:
            raise fail(p, f"{what} is truncated: {got} of its declared {nbytes} bytes")
        got += n
    arr = buf.view(dtype) if nbytes else np.empty(0, dtype=dtype)
    return arr.reshape(shape[::-1]).transpose() if fortran else arr.reshape(shape)


def load_npy(p: Any, what: str) -> np.ndarray:
    """A ``.npy`` file, refused past the memory bound from its header."""
    with open(p, "rb") as fh:
        dtype, shape, fortran = npy_header(p, fh, what)
        nbytes = npy_nbytes(dtype, shape)
        check_alloc(p, nbytes, f"{what} (shape {shape}, {dtype})")
        return read_into(p, fh, dtype, shape, fortran, what)


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


#: zip compression methods whose members are read: stored, and deflated (zlib inflates with an
#: output cap, which zipfile passes; for bzip2 and lzma it passes none)
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_ZIP_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma", 9: "deflate64"}


class Npz:
    """An ``.npz`` archive read from its zip directory: each member's declared ``.npy`` header is
    read (and checked against the zip's declared size) before any member's data is inflated."""

    def __init__(self, p: Path) -> None:
        self.p = p
        zip_directory_ok(p)  # (outside the try: a SizeLimitError stays one)
        try:
            self.zf = zipfile.ZipFile(p)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise fail(p, f"is not an .npz (zip) archive ({exc})") from None
        self.headers: dict[str, tuple[np.dtype, tuple[int, ...], bool]] = {}
        self.infos: dict[str, zipfile.ZipInfo] = {}
        for info in self.zf.infolist():
            if not info.filename.endswith(".npy"):
                continue
            name = info.filename[:-4]
            if info.compress_type not in _ZIP_METHODS:
                # CPython's zipfile inflates bzip2 and lzma members with no cap on the output (a read of
                # the 128-byte .npy header inflated > 2 GiB of a bz2 bomb); NumPy writes neither
                method = _ZIP_METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
                raise fail(p, f"member {name!r} is compressed with {method}; .npz members are read stored or "
                              "deflated only (what numpy.savez and savez_compressed write)")
            try:
                with self.zf.open(info) as fh:
                    head = npy_header(p, fh, f"member {name!r}")
                    offset = fh.tell()
            except (zipfile.BadZipFile, OSError, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
                raise fail(p, f"member {name!r} cannot be read ({exc})") from None
            declared = npy_nbytes(head[0], head[1])
            if info.file_size != offset + declared:
                raise fail(p, f"member {name!r} declares {declared} bytes of {head[0]} {head[1]} in its header but "
                              f"{info.file_size - offset} in the zip directory")
            self.headers[name] = head
            self.infos[name] = info  # the very entry checked (a duplicate name must not open another)

    @property
    def files(self) -> list[str]:
        return list(self.headers)

    def nbytes(self, *names: str) -> int:
        return sum(npy_nbytes(*self.headers[n][:2]) for n in names if n in self.headers)

    def shape(self, name: str) -> tuple[int, ...]:
        return self.headers[name][1]

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.headers:
            raise fail(self.p, f"has no member {name!r}")
        dtype, shape, fortran = self.headers[name]
        check_alloc(self.p, npy_nbytes(dtype, shape), f"member {name!r} ({dtype} {shape})")
        try:
            with self.zf.open(self.infos[name]) as fh:
                npy_header(self.p, fh, f"member {name!r}")
                return read_into(self.p, fh, dtype, shape, fortran, f"member {name!r}")
        except (zipfile.BadZipFile, OSError, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
            raise fail(self.p, f"member {name!r} cannot be read ({exc})") from None

    def text(self, name: str, limit: int = MAX_JSON_CHARS * 4) -> str:
        dtype, shape, _ = self.headers[name]
        if dtype.kind not in "US" or shape != () or dtype.itemsize > limit:
            raise fail(self.p, f"member {name!r} must be one string, got {dtype} of shape {shape}")
        # the member and the str made of it, both held for a moment
        check_alloc(self.p, 2 * dtype.itemsize, f"member {name!r} ({dtype})")
        return str(self[name][()])

    def close(self) -> None:
        self.zf.close()

    def __enter__(self) -> Npz:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_npz(p: Path) -> sp.csr_array:
    """The matrix of a SciPy ``save_npz`` archive (csr/csc/coo) or a BCOO one, validated."""
    with Npz(p) as z:
        bcoo = "isomat_layout" in z.files and z.text("isomat_layout") == "bcoo"
        if bcoo:
            needed = ("data", "indices", "shape")
        else:
            if "format" not in z.files:
                raise fail(p, "has no 'format' member (not a scipy.sparse.save_npz archive)")
            fmt = z.text("format")
            if fmt not in ("csr", "csc", "coo"):
                raise fail(p, f"holds the sparse format {fmt!r}; csr, csc and coo are read")
            needed = ("data", "shape") + (("row", "col") if fmt == "coo" else ("indices", "indptr"))
        for name in needed:
            if name not in z.files:
                raise fail(p, f"has no {name!r} member")
        dshape = z.shape("data")
        if len(dshape) != 1:
            raise fail(p, f"its data member must be 1-d, got shape {dshape}")
        if z.shape("shape") != (2,):
            raise fail(p, f"its shape member must hold two integers, got shape {z.shape('shape')}")
        shape = shape2(p, z["shape"])
        dt = value_dtype(p, z.headers["data"][0])
        nnz = dshape[0]
        converted = bcoo or fmt != "csr" or dt != z.headers["data"][0]
        estimate = z.nbytes(*needed) + (csr_bytes(shape, nnz, dt.itemsize) if converted else 0)
        if not bcoo and fmt == "csr":
            estimate = max(estimate, csr_bytes(shape, nnz, dt.itemsize))
        check_alloc(p, estimate, f"a {shape[0]}x{shape[1]} matrix of {nnz} stored values")
        if bcoo:
            idx = z["indices"]
            if idx.ndim != 2 or idx.shape[1:] != (2,):
                raise fail(p, f"its BCOO indices must have shape (nnz, 2), got {idx.shape}")
            return coo(p, shape, z["data"], idx[:, 0], idx[:, 1])
        if fmt == "coo":
            return coo(p, shape, z["data"], z["row"], z["col"])
        return csr(p, shape, z["data"], z["indices"], z["indptr"], major="row" if fmt == "csr" else "col")


def read_bcoo_arrays(p: Path) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """(data, indices (nnz, 2), shape) of a BCOO archive, validated (no conversion)."""
    with Npz(p) as z:
        if "isomat_layout" not in z.files or z.text("isomat_layout") != "bcoo":
            raise fail(p, "is not a BCOO archive (written by to_jax_npz / --format jax)")
        for name in ("data", "indices", "shape"):
            if name not in z.files:
                raise fail(p, f"has no {name!r} member")
        check_alloc(p, z.nbytes("data", "indices", "shape"), "the BCOO arrays")
        shape = shape2(p, z["shape"])
        data = values(p, z["data"])
        idx = z["indices"]
        if idx.ndim != 2 or idx.shape[1:] != (2,) or len(idx) != len(data):
            raise fail(p, f"its BCOO indices must have shape ({len(data)}, 2), got {idx.shape}")
        _index(p, idx[:, 0], "row indices", shape[0])
        _index(p, idx[:, 1], "column indices", shape[1])
        return data, idx, shape


# -- MatrixMarket -------------------------------------------------------------------------------
#: longest banner or size line read (a comment line may be any length: it is skipped in pieces)
MTX_LINE_CAP = 1 << 16
_MTX_PIECE = 1 << 20


def _mtx_line(fh: Any) -> tuple[bytes, bool]:
    """The next line's first :data:`MTX_LINE_CAP` bytes and whether it was longer; the whole line is
    consumed, in pieces, whatever its length (``b""``: the end of the file)."""
    head = fh.readline(MTX_LINE_CAP + 1)
    if len(head) <= MTX_LINE_CAP or head.endswith(b"\n"):
        return head, False
    while True:
        piece = fh.readline(_MTX_PIECE)
        if not piece or piece.endswith(b"\n"):
            return head[:MTX_LINE_CAP], True


class MtxHeader:
    """A MatrixMarket file's banner and size line as isomat parsed them, and where its entries start.

    :func:`mtx_header` makes it; :meth:`stream` hands SciPy a canonical banner and size line built
    from these very numbers followed by the file's body, so what SciPy allocates is what was
    estimated -- whatever the comments hold (a comment line longer than any read buffer once let a
    forged size line pass the estimate while SciPy read the real one)."""

    def __init__(self, layout: str, field: str, symmetry: str, rows: int, cols: int, nnz: int, body: int) -> None:
        self.layout, self.field, self.symmetry = layout, field, symmetry
        self.rows, self.cols, self.nnz, self.body = rows, cols, nnz, body

    def text(self) -> bytes:
        size = f"{self.rows} {self.cols}" + (f" {self.nnz}" if self.layout == "coordinate" else "")
        return f"%%MatrixMarket matrix {self.layout} {self.field} {self.symmetry}\n{size}\n".encode()

    def stream(self, fh: Any) -> io.BufferedReader:
        """A binary stream: :meth:`text`, then ``fh`` from the first byte after the size line."""
        fh.seek(self.body)
        return io.BufferedReader(_Spliced(self.text(), fh), _CHUNK)


class _Spliced(io.RawIOBase):
    def __init__(self, head: bytes, fh: Any) -> None:
        self.head, self.fh, self.pos = head, fh, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.pos < len(self.head):
            k = min(len(b), len(self.head) - self.pos)
            b[:k] = self.head[self.pos:self.pos + k]
            self.pos += k
            return k
        return self.fh.readinto(b)


def mtx_header(p: Path, fh: Any) -> MtxHeader:
    """Parse a MatrixMarket file's banner and size line from ``fh``; refuse past the memory bound."""
    banner_raw, long = _mtx_line(fh)
    banner = [] if long else banner_raw.decode("latin-1").split()
    if len(banner) != 5 or banner[0].lower() != "%%matrixmarket" or banner[1].lower() != "matrix":
        raise fail(p, "has no '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner line")
    layout, field, symmetry = (s.lower() for s in banner[2:])
    if layout not in ("coordinate", "array") or field not in ("real", "double", "complex", "integer", "pattern") \
            or symmetry not in ("general", "symmetric", "skew-symmetric", "hermitian"):
        raise fail(p, f"has the unsupported banner {' '.join(banner)!r}")
    while True:  # comment and blank lines, each skipped whole
        line, long = _mtx_line(fh)
        if not line:
            raise fail(p, "has no size line")
        if line.startswith(b"%") or (not long and not line.strip()):
            continue
        break
    need = 3 if layout == "coordinate" else 2
    words = line.split()
    nums = [int(w) for w in words if w.isdigit() and len(w) <= 20] if not long else []
    if len(nums) != need or len(words) != need:
        raise fail(p, f"its size line {line[:80].decode('latin-1').strip()!r} is not {need} non-negative integers")
    rows, cols = nums[0], nums[1]
    if max(rows, cols) >= 2**63:
        raise fail(p, f"declares a {rows}x{cols} matrix (extents must be below 2**63)")
    item = 16 if field == "complex" else 8
    if layout == "array":
        nnz = rows * cols
        estimate = nnz * item + csr_bytes((rows, cols), nnz, item)
    else:
        nnz = nums[2]
        if nnz > rows * cols:
            raise fail(p, f"declares {nnz} entries in a {rows}x{cols} matrix")
        stored = nnz * 2 if symmetry != "general" else nnz
        # the reader's COO triplets (int64 pairs and values), then the CSR
        estimate = stored * (16 + item) + csr_bytes((rows, cols), stored, item) + stored * (16 + item)
    check_alloc(p, estimate, f"a {rows}x{cols} MatrixMarket {layout} matrix of "
                             f"{nnz * (2 if layout == 'coordinate' and symmetry != 'general' else 1)} entries")
    return MtxHeader(layout, field, symmetry, rows, cols, nums[2] if layout == "coordinate" else nnz, fh.tell())


def mtx_estimate(p: Path) -> MtxHeader:
    """Check a MatrixMarket file's banner and size line; refuse past the memory bound."""
    with open(p, "rb") as fh:
        return mtx_header(p, fh)


# -- MATLAB .mat (v5) ---------------------------------------------------------------------------
_MAT_CLASS_BYTES = {1: 0, 2: 0, 3: 0, 4: 2, 5: 8, 6: 8, 7: 4, 8: 1, 9: 1, 10: 2, 11: 2, 12: 4, 13: 4, 14: 8, 15: 8}
_MX_SPARSE, _MI_MATRIX, _MI_COMPRESSED = 5, 14, 15


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
    if cls == _MX_SPARSE:
        rows, cols = (dims + (1, 1))[:2]
        return nzmax * (4 + 8 * (2 if cplx else 1)) * 2 + (cols + 1) * 8 + csr_bytes((rows, cols), nzmax, 16 if cplx else 8)
    return n * max(_MAT_CLASS_BYTES.get(cls, 8), 1) * (2 if cplx else 1) * 2


def mat_load(p: Path, name: str, required: bool = True) -> Any:
    """The variable ``name`` of a v5 ``.mat`` file (as ``scipy.io.loadmat`` gives it), after its
    declared header was checked against the memory bound; a truncated file, a compressed variable
    that inflates past its declared size and a missing variable are each named."""
    import scipy.io

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
        check_alloc(p, need, f"the variable {name!r} ({'x'.join(map(str, dims))}, {nzmax if cls == _MX_SPARSE else ''}"
                             f"{' stored values' if cls == _MX_SPARSE else 'dense'})")
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


def mat_matrix(p: Path, value: Any) -> sp.csr_array:
    """A loaded ``.mat`` variable as a validated ``csr_array``."""
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


# -- torch ---------------------------------------------------------------------------------------
def pt_estimate(p: Path) -> None:
    """Refuse a ``.pt`` (zip) archive whose storages declare more bytes than the memory bound."""
    zip_directory_ok(p)  # (outside the try: a SizeLimitError stays one)
    try:
        with zipfile.ZipFile(p) as zf:
            total = sum(i.file_size for i in zf.infolist() if "/data/" in i.filename)
            pickled = sum(i.file_size for i in zf.infolist() if i.filename.endswith(".pkl"))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise fail(p, f"is not a torch (zip) file ({exc})") from None
    # unpickling builds Python objects from the pickle: a byte per empty list (APPENDS of ']'),
    # 64 bytes each, so the pickle counts 80 times its size (an export's pickle is a few KiB)
    check_alloc(p, total + 80 * pickled, "the tensor storages and the pickled objects")


def torch_tensor(p: Any, t: Any, what: str = "the matrix") -> Any:
    """Check a loaded tensor: a torch.Tensor, 2-d, whose logical size (stride-0 expansions
    counted as they would be materialized) fits the memory bound."""
    import torch

    if not isinstance(t, torch.Tensor):
        raise fail(p, f"{what} is a {type(t).__name__}, not a torch.Tensor")
    if t.ndim != 2:
        raise fail(p, f"{what} must be 2-d, got shape {tuple(t.shape)}")
    if t.layout == torch.strided:
        check_alloc(p, t.numel() * t.element_size() * 2, f"{what} (dense {tuple(t.shape)}, {t.dtype})")
    elif t.layout == torch.sparse_coo:
        ind, val = t._indices(), t._values()
        check_alloc(p, (ind.numel() * 8 + val.numel() * val.element_size()) * 3, f"{what} (sparse COO, "
                    f"{val.numel()} values)")
    elif t.layout == torch.sparse_csr:
        n = t.crow_indices().numel() + t.col_indices().numel()
        check_alloc(p, (n * 8 + t.values().numel() * t.values().element_size()) * 2, f"{what} (sparse CSR)")
    else:
        raise fail(p, f"{what} has layout {t.layout}; expected sparse_coo, sparse_csr or strided")
    return t


def bias_vector(p: Any, b: Any) -> np.ndarray:
    b = np.asarray(b)
    if b.ndim != 1:
        raise fail(p, f"its bias must be a 1-d array, got shape {b.shape}")
    return values(p, b)


def torch_host(p: Any, v: Any) -> np.ndarray:
    """A dense torch tensor's values as a NumPy array (float16/bfloat16 widened, bools to float64)."""
    import torch

    if v.dtype in (torch.float16, torch.bfloat16):
        v = v.to(torch.float32)
    elif v.dtype == torch.bool:
        v = v.to(torch.float64)
    try:
        return v.contiguous().numpy()
    except (TypeError, RuntimeError) as exc:
        raise fail(p, f"its values ({v.dtype}) cannot be read ({exc})") from None


def torch_matrix(p: Any, t: Any) -> sp.csr_array:
    """A validated ``csr_array`` from a 2-d torch tensor, its indices checked before any use."""
    import torch

    t = torch_tensor(p, t).detach().cpu()
    shape = (int(t.shape[0]), int(t.shape[1]))

    def host(v: Any) -> np.ndarray:
        return torch_host(p, v)

    if t.layout == torch.sparse_coo:
        ind = t._indices()
        if ind.ndim != 2 or ind.shape[0] != 2:
            raise fail(p, f"its COO indices must have shape (2, nnz), got {tuple(ind.shape)}")
        vals = t._values()
        if vals.ndim != 1:
            raise fail(p, f"its COO values must be 1-d (no dense dimensions), got shape {tuple(vals.shape)}")
        ind = ind.contiguous().numpy()
        return coo(p, shape, host(vals), ind[0], ind[1])
    if t.layout == torch.sparse_csr:
        return csr(p, shape, host(t.values()), t.col_indices().contiguous().numpy(),
                   t.crow_indices().contiguous().numpy())
    return dense(p, host(t))
