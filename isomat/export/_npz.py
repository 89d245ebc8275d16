"""NumPy ``.npz``: a CSR matrix in ``scipy.sparse.save_npz``'s layout, written and read back.

The writer streams the CSR arrays into the archive's members (no copy); the reader is the
validating one of issue 37: the zip directory is sized before ``zipfile`` lists it, each
member's ``.npy`` header is parsed and checked against the zip's declared size before any data is
inflated, a member is read into a buffer of exactly its declared size, and only stored and
deflated members are read. The ``.npy`` parsing here also serves a conv kernel file
(:mod:`~isomat.export._families`). A JAX BCOO file is an ``.npz`` too (:mod:`~isomat.export._jax`);
:func:`npz_matrix` reads either layout.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ._base import B_NAME, OLD_BIAS_NAMES, _bias_of, _check_target, _metadata_json, _path, _Reading, _write_atomic, _zip_ok, to_scipy
from ._checks import (MAX_JSON_CHARS, _CHUNK, bias_vector, check_alloc, coo, csr, csr_bytes, fail, shape2,
                      value_dtype, zip_directory_ok)

#: bytes of an array written to an npz member at a time
_NPZ_PIECE = 1 << 20


def _write_npz(path: str, arrays: dict[str, Any], compressed: bool) -> None:
    """``numpy.savez`` for arrays and for ``(dtype, shape, chunks)`` triples whose chunks (C-order
    pieces) are generated while the member is written, so a derived array is never held whole."""
    import zipfile

    from numpy.lib import format as npy

    mode = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=mode, allowZip64=True) as zf:
        for name, value in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as fh:
                if isinstance(value, tuple):
                    dtype, shape, chunks = value
                    npy.write_array_header_2_0(fh, {"descr": npy.dtype_to_descr(np.dtype(dtype)),
                                                    "fortran_order": False, "shape": tuple(shape)})
                    for chunk in chunks:
                        fh.write(memoryview(np.ascontiguousarray(chunk, dtype=dtype).reshape(-1).view(np.uint8)))
                else:
                    arr = np.asanyarray(value)
                    if arr.dtype.hasobject or arr.nbytes <= _NPZ_PIECE or not arr.flags.c_contiguous:
                        npy.write_array(fh, arr, allow_pickle=False)
                        continue
                    # a large array goes in zero-copy pieces: numpy's write_array to a non-file stream
                    # copies 16 MiB buffers, which at small sizes is more than the export itself adds
                    npy.write_array_header_2_0(fh, {"descr": npy.dtype_to_descr(arr.dtype),
                                                    "fortran_order": False, "shape": arr.shape})
                    raw = memoryview(arr.reshape(-1).view(np.uint8))
                    for a in range(0, len(raw), _NPZ_PIECE):
                        fh.write(raw[a:a + _NPZ_PIECE])


def to_npz(A: Any, path: Any, *, compressed: bool = True, metadata: dict[str, Any] | None = None,
           overwrite: bool = True, bias: Any = None) -> Path:
    """Write ``A`` as CSR in ``scipy.sparse.save_npz``'s layout to ``path`` (``.npz``); returns the path.

    ``metadata`` (a JSON-serializable dict) is stored beside the arrays as ``isomat_metadata``;
    ``scipy.sparse.load_npz`` ignores it and :func:`read_metadata` returns it. A ``bias`` (one value
    per row) is stored as the member ``b`` (``numpy.load(path)["b"]``; :func:`read_bias`). The CSR
    arrays are streamed into the archive (no copy)."""
    p = _path(path, ".npz")
    compressed = _validate.boolean("compressed", compressed)
    _check_target(p, _validate.boolean("overwrite", overwrite))
    M = to_scipy(A, "csr")
    arrays = dict(indices=M.indices, indptr=M.indptr, format=np.array("csr"), shape=np.array(M.shape), data=M.data)
    if metadata is not None:
        arrays["isomat_metadata"] = np.array(_metadata_json(metadata))
    if bias is not None:
        arrays[B_NAME] = _bias_of(bias, M)
    return _write_atomic(p, lambda t: _write_npz(t, arrays, compressed), _zip_ok, overwrite)


def read_npz(path: Any) -> sp.csr_array:
    """Read a file written by :func:`to_npz` (or :func:`to_jax_npz`) as a ``csr_array``."""
    p = _path(path, ".npz")
    with _Reading(p, "a sparse-matrix .npz archive"):
        # the zip directory and .npy headers are checked (sizes, dtypes) before a member is inflated,
        # then the shape, indices, indptr and values before SciPy touches them
        return npz_matrix(p)


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


def npz_matrix(p: Path) -> sp.csr_array:
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


def npz_metadata_text(p: Path) -> str | None:
    """The archive's ``isomat_metadata`` member (JSON text), or None."""
    with Npz(p) as z:
        return z.text("isomat_metadata") if "isomat_metadata" in z.files else None


def npz_bias(p: Path) -> np.ndarray | None:
    """The archive's bias (member ``b``; 0.2.0's ``isomat_bias``), validated, or None."""
    with _Reading(p, "a sparse-matrix .npz archive"), Npz(p) as z:
        for name in (B_NAME, OLD_BIAS_NAMES["npz"]):
            if name in z.files:
                return bias_vector(p, z[name])
    return None
