"""Export operators to other libraries and files, and read them back.

Every function takes a :class:`~isomat.algebra.SparseOperator`, a ``scipy.sparse`` array or
matrix, a ``cupyx.scipy.sparse`` matrix, a dense NumPy/CuPy array or a SymPy matrix (exact
values are rounded to float64; device data is copied to the host first).

========================  ==========================================  =======================
target                    writer                                      reader
========================  ==========================================  =======================
SciPy sparse array        :func:`to_scipy`                            --
MatrixMarket ``.mtx``     :func:`to_matrix_market`                    :func:`read_matrix_market`
NumPy ``.npz``            :func:`to_npz` (``scipy.sparse.save_npz``)  :func:`read_npz`
PyTorch COO/CSR tensor    :func:`to_torch`; file: :func:`save_torch`  :func:`from_torch`, :func:`load_torch`
JAX BCOO                  :func:`to_jax_bcoo` (needs jax)             :func:`from_jax_bcoo`
JAX BCOO file ``.npz``    :func:`to_jax_npz`                          :func:`load_jax_bcoo`
MATLAB ``.mat``           :func:`to_mat`, :func:`column_major`         :func:`read_mat`
DLPack (dense)            :func:`to_dlpack`                           :func:`from_dlpack`
========================  ==========================================  =======================

:func:`write` picks the writer from the format or the file's suffix and stores what the matrix
is (:func:`read_metadata` reads it back); :func:`read` reads any of the files. Every writer
writes to a temporary file beside the target, reads its header back, then renames it onto the
target: a failure leaves no partial file, and ``overwrite=False`` keeps an existing one.

Matrices are written as they are held -- the CSR arrays stream into ``.npz`` members, the torch
CSR tensor shares SciPy's index arrays, the ``.mat`` sparse element is written in column bands
-- so that a write holds little beyond the matrix itself (``benchmarks/export.py`` measures it).

The command line ``isomat export KIND ... --format mtx|npz|pt|mat|jax -o FILE`` builds an operator
of a construction family (see :data:`FAMILIES`) and writes it with these functions.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.io
import scipy.sparse as sp

from . import _readers, _validate
from ._chunks import row_indices, row_ranges
from ._types import FieldArray
from .gpu import is_cupy_array, is_cupy_sparse, to_cpu

if TYPE_CHECKING:  # optional dependencies, named for annotations only
    import jax.experimental.sparse
    import torch

#: file suffix of each format of :func:`write` (``jax``: a BCOO matrix's arrays in an ``.npz``)
SUFFIXES = {"mtx": ".mtx", "npz": ".npz", "pt": ".pt", "mat": ".mat", "jax": ".npz"}
FORMATS = tuple(SUFFIXES)


# ---------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------
def to_scipy(A: Any, format: str = "csr") -> sp.sparray:
    """A float ``scipy.sparse`` array (``csr``, ``csc`` or ``coo``) with duplicates summed.

    Parameters
    ----------
    A : SparseOperator, scipy/cupyx sparse, NumPy/CuPy array or SymPy matrix
        A 2-d operator.
    format : {"csr", "csc", "coo"}
    """
    import sympy

    from .algebra._operator import SparseOperator

    if not isinstance(format, str) or format not in ("csr", "csc", "coo"):
        raise ValueError(f"format must be 'csr', 'csc' or 'coo', got {format!r}")
    if isinstance(A, SparseOperator):
        return A.to_scipy(format)
    if is_cupy_sparse(A) or is_cupy_array(A):
        A = to_cpu(A)
    if isinstance(A, sympy.MatrixBase):
        from .algebra._operator import as_operator

        return as_operator(A).to_scipy(format)
    if sp.issparse(A):
        if A.format == format and A.dtype.kind in "fc" and getattr(A, "has_canonical_format", False) and A.ndim == 2:
            # already what is asked for: share its arrays (a copy of a large matrix is what makes a write
            # hold twice the matrix); canonical, so nothing below would change them
            return {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array}[format](A, copy=False)
        out = sp.coo_array(A)
        out.sum_duplicates()
        return out.asformat(format)
    if isinstance(A, (np.ndarray, list, tuple)):
        arr = np.asarray(A)
        if arr.ndim != 2:
            raise ValueError(f"A must be a matrix (2-d), got an array of shape {arr.shape}")
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"A must be numeric, got dtype {arr.dtype}")
        return sp.coo_array(arr.astype(np.result_type(arr.dtype, np.float64))).asformat(format)
    raise TypeError(
        f"A must be a SparseOperator, a SciPy/CuPy sparse matrix, a NumPy/CuPy array or a SymPy "
        f"matrix, got {type(A).__name__}"
    )


def _path(path: Any, suffix: str) -> Path:
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix != suffix:
        raise ValueError(f"path must end in {suffix!r}, got {str(p)!r}")
    return p


_EXISTS = "pass overwrite=True (isomat export --force) to replace it"


def _check_target(p: Path, overwrite: bool) -> None:
    """Refuse, before any work, a target in a missing or read-only directory, a directory in its
    place, or one that exists (``overwrite=False``)."""
    from ._atomic import check_target

    check_target(p, overwrite=overwrite, what="path", exists_hint=_EXISTS)


def _write_atomic(p: Path, write: Callable[[str], None], check: Callable[[Path], None], overwrite: bool = True) -> Path:
    """Write through ``write(temporary path)`` in ``p``'s directory, read the header back with
    ``check``, fsync, then rename onto ``p`` (:func:`isomat._atomic.write_atomic`): a failure leaves
    no partial file and never reports a path that was not written (SciPy's ``mmwrite`` silently
    writes nothing into a missing directory)."""
    from ._atomic import write_atomic

    _validate.boolean("overwrite", overwrite)
    return write_atomic(p, write, check, overwrite=overwrite, what="path", exists_hint=_EXISTS)


def _umask() -> int:
    from ._atomic import umask

    return umask()


def _mtx_header_ok(t: Path) -> None:
    with open(t, "rb") as fh:
        if not fh.readline().startswith(b"%%MatrixMarket"):
            raise OSError(f"{str(t)!r} does not start with a MatrixMarket header")


def _zip_ok(t: Path) -> None:
    import zipfile

    if not zipfile.is_zipfile(t):  # .npz and torch's .pt are zip archives
        raise OSError(f"{str(t)!r} is not a readable zip archive")


def to_matrix_market(A: Any, path: Any, *, comment: str = "", precision: int | None = None,
                     overwrite: bool = True) -> Path:
    """Write ``A`` as a MatrixMarket coordinate file (``.mtx``); returns the path.

    Parameters
    ----------
    A : operator (see :func:`to_scipy`)
    path : str or Path
        Ends in ``.mtx``.
    comment : str
        Written in the header (e.g. the construction and its seed).
    precision : int, optional
        Significant digits; default: enough to round-trip float64 exactly (17).
    overwrite : bool
        Replace an existing file (default); ``False`` refuses instead.

    Notes
    -----
    Written as a ``general`` coordinate matrix in row order, a block of rows at a time (SciPy's
    writer formats each block; this function writes the header with the total count), so the
    write holds one block's text beyond the matrix -- ``scipy.io.mmwrite`` of the whole matrix
    would hold its COO triplets and several copies of the text.
    """
    p = _path(path, ".mtx")
    _check_target(p, _validate.boolean("overwrite", overwrite))
    if not isinstance(comment, str):
        raise TypeError(f"comment must be a str, got {type(comment).__name__}")
    M = to_scipy(A, "csr")
    # 17 significant digits round-trip float64 exactly, 9 float32. SciPy's writer (fast_matrix_market)
    # corrupts float32 values asked for more than ~10 digits -- NUL bytes, lost exponents, a reader that
    # segfaults -- so single precision is capped at the 9 digits that carry it
    single = M.dtype in (np.float32, np.complex64)
    most = 9 if single else 30
    precision = (9 if single else 17) if precision is None else _validate.positive_int("precision", precision)
    if precision > most:
        raise ValueError(f"precision must be at most {most} significant digits for {M.dtype} values, got {precision}")
    return _write_atomic(p, lambda t: _write_mtx_blocks(t, M, comment, precision), _mtx_header_ok, overwrite)


def _write_mtx_blocks(path: str, M: sp.csr_array, comment: str, precision: int, block_entries: int = 1 << 20) -> None:
    import io

    field = "complex" if M.dtype.kind == "c" else "real"

    def body(block: sp.coo_array) -> bytes:
        buf = io.BytesIO()
        scipy.io.mmwrite(buf, block, precision=precision, field=field, symmetry="general")
        text = buf.getvalue()
        pos = 0
        while text.startswith(b"%", pos):  # the banner and comment lines
            pos = text.index(b"\n", pos) + 1
        return text[text.index(b"\n", pos) + 1:]  # after the size line

    with open(path, "wb") as fh:
        head = io.BytesIO()
        scipy.io.mmwrite(head, sp.coo_array(M.shape, dtype=M.dtype), comment=comment, precision=precision,
                         field=field, symmetry="general")
        text = head.getvalue().rstrip(b"\n")
        comments = text[text.index(b"\n") + 1:text.rindex(b"\n") + 1]  # SciPy's rendering of the comment
        fh.write(f"%%MatrixMarket matrix coordinate {field} general\n".encode() + comments
                 + f"{M.shape[0]} {M.shape[1]} {M.nnz}\n".encode())
        for r0, r1, a, b in row_ranges(M, block_entries):
            fh.write(body(sp.coo_array((M.data[a:b], (row_indices(M, r0, r1), M.indices[a:b])), shape=M.shape)))


class _Reading:
    """Around a dependency's read of ``path``: a missing file, or one the dependency cannot parse,
    is a one-line ValueError naming the file and the format -- never a traceback from inside SciPy,
    NumPy or torch."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path, self.kind = path, kind

    def __enter__(self) -> None:
        if not self.path.is_file():
            raise ValueError(f"{str(self.path)!r}: no such file" if not self.path.exists()
                             else f"{str(self.path)!r} is not a file")

    def __exit__(self, etype: Any, exc: Any, tb: Any) -> bool:
        if exc is None or isinstance(exc, (KeyboardInterrupt, SystemExit, MemoryError)) or getattr(exc, "_isomat", False):
            return False
        detail = getattr(exc, "_isomat_detail", None)  # what the file-checking readers found wrong
        reason = " ".join(f"{type(exc).__name__}: {exc}".split()) if detail is None else detail
        err = ValueError(f"{str(self.path)!r} cannot be read as {self.kind} ({reason[:300]})")
        err._isomat = True  # type: ignore[attr-defined]
        raise err from None


def read_matrix_market(path: Any) -> sp.csr_array:
    """Read a ``.mtx`` file as a ``csr_array``."""
    p = _path(path, ".mtx")
    with _Reading(p, "a MatrixMarket file"), open(p, "rb") as fh:
        # isomat parses the banner and size line (comments of any length skipped) and checks them against
        # the memory bound; SciPy reads a canonical header of those same numbers, then the file's body
        head = _readers.mtx_header(p, fh)
        return _readers.mat_matrix(p, scipy.io.mmread(head.stream(fh)))


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
    per row) is stored as ``isomat_bias`` (:func:`read_bias`). The CSR arrays are streamed into the
    archive (no copy)."""
    p = _path(path, ".npz")
    compressed = _validate.boolean("compressed", compressed)
    _check_target(p, _validate.boolean("overwrite", overwrite))
    M = to_scipy(A, "csr")
    arrays = dict(indices=M.indices, indptr=M.indptr, format=np.array("csr"), shape=np.array(M.shape), data=M.data)
    if metadata is not None:
        arrays["isomat_metadata"] = np.array(_metadata_json(metadata))
    if bias is not None:
        arrays["isomat_bias"] = _bias_of(bias, M)
    return _write_atomic(p, lambda t: _write_npz(t, arrays, compressed), _zip_ok, overwrite)


def read_npz(path: Any) -> sp.csr_array:
    """Read a file written by :func:`to_npz` (or :func:`to_jax_npz`) as a ``csr_array``."""
    p = _path(path, ".npz")
    with _Reading(p, "a sparse-matrix .npz archive"):
        # the zip directory and .npy headers are checked (sizes, dtypes) before a member is inflated,
        # then the shape, indices, indptr and values before SciPy touches them
        return _readers.read_npz(p)


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - the torch extra is installed in CI
        raise ImportError("PyTorch export needs the torch extra: pip install 'isomat[torch]'") from exc
    return torch


def to_torch(A: Any, format: str = "coo") -> torch.Tensor:
    """A PyTorch sparse tensor: ``torch.sparse_coo_tensor`` (coalesced) or ``torch.sparse_csr_tensor``.

    Parameters
    ----------
    A : operator (see :func:`to_scipy`)
    format : {"coo", "csr"}
        Layout of the tensor. Values keep their dtype (float64, or complex128 for complex input,
        unless the input holds float32). COO indices are int64 (torch's only COO index type); CSR
        indices keep SciPy's int32 where they fit, shared with the SciPy matrix without a copy
        (torch multiplies int32 and int64 CSR tensors alike).
    """
    format = _validate.choice("format", format, ("coo", "csr"))
    torch = _torch()
    if format == "coo":
        # canonical CSR is coalesced COO in row-major order: fill the int64 (row, col) pairs in row
        # chunks (no full-size temporaries) and share the values
        M = to_scipy(A, "csr")
        M.sum_duplicates()  # a no-op on a canonical matrix (to_scipy shares only those)
        idx = np.empty((2, M.nnz), dtype=np.int64)
        idx[1] = M.indices
        for r0, r1, a, b in row_ranges(M, 1 << 22):
            idx[0, a:b] = row_indices(M, r0, r1)
        # the pairs come from a canonical CSR (SciPy checked the indices; sorted, no duplicates): torch's
        # invariant check would copy all 16 bytes an entry again, to find what holds by construction
        return torch.sparse_coo_tensor(torch.from_numpy(idx), torch.from_numpy(np.ascontiguousarray(M.data)), M.shape,
                                       check_invariants=False, is_coalesced=True)
    if format == "csr":
        M = to_scipy(A, "csr")
        M.sort_indices()
        # torch's invariant check (check_invariants=True) runs on its OpenMP pool, which deadlocks in a
        # child forked after the parent used it (issue 24 item 9): check the same invariants here with
        # NumPy (single-threaded) and build the tensor without torch's check
        ip, ix = M.indptr, M.indices
        if (len(ip) != M.shape[0] + 1 or (len(ip) and (int(ip[0]) != 0 or int(ip[-1]) != len(ix)))
                or len(ix) != len(M.data) or (len(ip) > 1 and bool(np.any(ip[1:] < ip[:-1])))
                or (len(ix) and (int(ix.min()) < 0 or int(ix.max()) >= M.shape[1]))):
            raise ValueError(f"A is not a valid {M.shape[0]}x{M.shape[1]} CSR matrix (indptr must start at 0, end at "
                             f"nnz = {len(ix)} and not decrease; column indices must lie in [0, {M.shape[1]}))")
        with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
            warnings.filterwarnings("ignore", message=".*Sparse CSR tensor support is in beta.*")
            index = np.result_type(M.indptr.dtype, M.indices.dtype)
            return torch.sparse_csr_tensor(torch.from_numpy(M.indptr.astype(index, copy=False)),
                                           torch.from_numpy(M.indices.astype(index, copy=False)),
                                           torch.from_numpy(np.ascontiguousarray(M.data)), M.shape,
                                           check_invariants=False)
    raise ValueError(f"format must be 'coo' or 'csr', got {format!r}")


def from_torch(t: Any) -> sp.csr_array:
    """A ``csr_array`` from a PyTorch sparse COO/CSR tensor or a dense 2-d tensor."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor, got {type(t).__name__}")
    if t.ndim != 2:
        raise ValueError(f"t must be 2-d, got shape {tuple(t.shape)}")
    # the indices are checked (integers, in bounds, monotone crow_indices) before SciPy or torch's
    # coalesce touches them, and a stride-0 expansion is refused past the memory bound
    return _readers.torch_matrix("t", t)


def save_torch(A: Any, path: Any, format: str = "coo", *, metadata: dict[str, Any] | None = None,
               overwrite: bool = True, bias: Any = None) -> Path:
    """``torch.save`` the tensor of :func:`to_torch` to ``path`` (``.pt``); returns the path.

    With ``metadata`` the file holds ``{"matrix": tensor, "metadata": dict}`` (both load with
    ``weights_only=True``); :func:`load_torch` returns the tensor either way. A CSR tensor shares
    the matrix's arrays; a COO one adds its int64 (row, col) pairs (16 bytes an entry)."""
    from .algebra._operator import check_bytes

    p = _path(path, ".pt")
    _check_target(p, _validate.boolean("overwrite", overwrite))
    format = _validate.choice("format", format, ("coo", "csr"))
    if format == "coo":
        M = to_scipy(A, "csr")
        check_bytes("save_torch (COO)", 16 * M.nnz, f"the int64 (row, col) pairs of {M.nnz} stored entries "
                    "(use format='csr' / --torch-layout csr to share the matrix's arrays)")
        A = M
    b = None if bias is None else _bias_of(bias, to_scipy(A, "csr") if not sp.issparse(A) else A)
    T = to_torch(A, format)
    obj: Any = T if metadata is None and b is None else {"matrix": T}
    if metadata is not None:
        obj["metadata"] = json.loads(_metadata_json(metadata))
    if b is not None:
        obj["bias"] = _torch().from_numpy(b)
    return _write_atomic(p, lambda t: _torch().save(obj, t), _zip_ok, overwrite)


def load_torch(path: Any) -> torch.Tensor:
    """Load a tensor written by :func:`save_torch` (``weights_only=True``)."""
    p = _path(path, ".pt")
    obj = _load_pt(p)
    if isinstance(obj, dict):
        if "matrix" not in obj:
            raise _readers.fail(p, f"holds a dict without a 'matrix' tensor (keys {sorted(map(str, obj))[:10]})")
        obj = obj["matrix"]
    return _readers.torch_tensor(p, obj)


def _load_pt(p: Path) -> Any:
    """``torch.load(weights_only=True)`` of ``p``: its storages' declared sizes checked against the
    memory bound first, and its sparse tensors' invariants (index bounds) checked while loading."""
    torch = _torch()
    with _Reading(p, "a torch file"):
        _readers.pt_estimate(p)
        with torch.sparse.check_sparse_tensor_invariants(enable=True):
            return torch.load(str(p), weights_only=True)


def _metadata_json(metadata: dict[str, Any]) -> str:
    if not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    try:
        return json.dumps(metadata, sort_keys=True, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"metadata must be JSON-serializable: {exc}") from None


_MTX_TAG = "isomat-metadata: "


def read_metadata(path: Any) -> dict[str, Any]:
    """The metadata :func:`write` stored with a matrix (``.mtx`` comment, ``.npz`` array, ``.pt`` dict,
    ``.mat`` JSON text); ``{}`` when the file has none. Metadata that is not a JSON object (a crafted
    file) is refused by name, as is a file the format's reader cannot parse."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix not in (".mtx", ".npz", ".pt", ".mat"):
        raise ValueError(f"path must end in .mtx, .npz, .pt or .mat, got {str(p)!r}")
    if p.suffix == ".pt":  # loaded (and checked) as read() loads it
        obj = _load_pt(p)
        return _readers.metadata_dict(p, obj.get("metadata", {})) if isinstance(obj, dict) else {}
    with _Reading(p, f"a {p.suffix} file with isomat metadata"):
        text: str | None = None
        if p.suffix == ".mtx":
            # lines end at "\n" only: a "\r" inside a comment must not start a forged metadata line, and
            # the metadata line write() puts last in the header wins over anything before it
            cap = _readers.metadata_cap() + 64  # a line is held as text: capped under the memory bound
            with open(p, encoding="utf-8", errors="replace", newline="\n") as fh:
                if not fh.readline(1 << 16).startswith("%%MatrixMarket"):
                    raise ValueError("no %%MatrixMarket header line")
                while True:
                    line = fh.readline(cap)
                    if not line.startswith("%"):
                        break
                    tagged = line.startswith("%" + _MTX_TAG) or line.startswith("% " + _MTX_TAG)
                    if len(line) == cap and not line.endswith("\n"):  # longer than the cap
                        if tagged:
                            raise _readers.fail(p, f"its metadata line is longer than {cap} characters (the memory "
                                                   "bound's cap; raise the bound to read it)")
                        while True:  # a long comment: skipped whole, in pieces
                            rest = fh.readline(1 << 20)
                            if not rest or rest.endswith("\n"):
                                break
                        continue
                    if tagged:
                        text = line.split(_MTX_TAG, 1)[1].rstrip("\r\n")
        elif p.suffix == ".npz":
            with _readers.Npz(p) as z:
                if "isomat_metadata" in z.files:
                    text = z.text("isomat_metadata")
        else:
            value = _readers.mat_load(p, "isomat_metadata_json", required=False)
            if value is not None:
                if not (isinstance(value, np.ndarray) and value.dtype.kind == "U" and value.size == 1):
                    raise _readers.fail(p, f"its isomat_metadata_json is not one string, got {type(value).__name__}")
                text = str(value.ravel()[0])
        return {} if text is None else _readers.metadata_json(p, text)


def flatten_permutation(shape: Any) -> np.ndarray:
    """``perm[i]``: the column-major (Fortran, MATLAB ``x(:)``) position of the entry at row-major
    position ``i`` of a tensor of ``shape``."""
    shape = _validate.shape("shape", shape)
    from .algebra._operator import check_bytes

    n = int(np.prod(shape, dtype=object))
    check_bytes("flatten_permutation", 16 * n, f"the permutation of {n} positions")
    return np.arange(n, dtype=np.int64).reshape(shape, order="F").ravel(order="C")


def _order_maps(M: sp.sparray, order: str, input_shape: Any, output_shape: Any) -> tuple[Any, Any]:
    """(row map, column map) taking the row-major matrix to the one of ``order`` (None: identity)."""
    order = _validate.choice("order", order, ("C", "F"))
    shapes = []
    for name, shape, n in (("output_shape", output_shape, M.shape[0]), ("input_shape", input_shape, M.shape[1])):
        if shape is None:  # needed for F only; checked whenever given
            shapes.append(None)
            continue
        shape = _validate.shape(name, shape)
        if int(np.prod(shape, dtype=object)) != n:
            raise ValueError(f"{name} {shape} has {int(np.prod(shape, dtype=object))} entries; the matrix has {n} "
                             f"{'rows' if name == 'output_shape' else 'columns'}")
        shapes.append(shape)
    if order == "C":
        return None, None
    if None in shapes:
        raise ValueError("order='F' needs input_shape and output_shape (the tensors the matrix maps between)")
    return tuple(flatten_permutation(s) if len(s) > 1 else None for s in shapes)


def column_major(A: Any, input_shape: Any, output_shape: Any) -> sp.csr_array:
    r"""The matrix acting on column-major flattenings: :math:`W_F = P_{out} W P_{in}^{\mathsf T}`.

    isomat's matrices act on row-major (C) flattenings, ``vec(Y) = W vec(X)`` with NumPy's
    ``ravel()``. MATLAB's ``x(:)``, Fortran and Julia flatten column-major: for them the same layer
    is ``W_F``, with ``W_F[p_out(i), p_in(j)] = W[i, j]`` where ``p(i)`` is the column-major
    position of the entry at row-major position ``i`` (:func:`flatten_permutation`).

    Parameters
    ----------
    A : operator (see :func:`to_scipy`)
    input_shape, output_shape : tuple of int
        The tensors ``X`` and ``Y`` (``prod(input_shape)`` columns, ``prod(output_shape)`` rows).
    """
    M = to_scipy(A, "csr")
    rmap, cmap = _order_maps(M, "F", input_shape, output_shape)
    C = M.tocoo()
    rows = rmap[C.row] if rmap is not None else C.row
    cols = cmap[C.col] if cmap is not None else C.col
    return sp.csr_array(sp.coo_array((C.data, (rows, cols)), shape=M.shape))


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
    from . import _matfile

    p = _path(path, ".mat")
    if not isinstance(name, str) or not name.isidentifier() or len(name) > 63:
        raise ValueError(f"name must be a MATLAB variable name (a letter, then letters, digits or _), got {name!r}")
    _check_target(p, _validate.boolean("overwrite", overwrite))
    M = to_scipy(A, "csr")
    if M.dtype not in (np.float64, np.complex128):
        raise ValueError(f"A has {M.dtype} values: MATLAB sparse matrices hold double values (float64 or complex128)")
    _matfile.check_writable(M.shape, M.nnz, M.dtype.kind == "c", name)
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
        variables["b"] = b.astype(M.dtype).reshape(-1, 1)
    return _write_atomic(p, lambda t: _matfile.write_mat(t, M, name, variables, row_map=rmap, col_map=cmap),
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
        return _readers.mat_matrix(p, _readers.mat_load(p, name))


def to_jax_npz(A: Any, path: Any, *, metadata: dict[str, Any] | None = None, compressed: bool = True,
               overwrite: bool = True, bias: Any = None) -> Path:
    """Write ``A`` as the arrays of a JAX ``BCOO`` matrix in an ``.npz``; returns the path.

    The archive holds ``data`` (the values, as stored), ``indices`` (``(nnz, 2)`` (row, column)
    pairs, int32 where they fit, as JAX indexes), ``shape``, ``isomat_layout = "bcoo"`` and the
    metadata. :func:`load_jax_bcoo` makes the ``BCOO`` (``BCOO((data, indices), shape=shape)`` by
    hand); :func:`read` gives the SciPy matrix. The index pairs are generated in row chunks while
    they are written (never held whole).
    """
    p = _path(path, ".npz")
    compressed = _validate.boolean("compressed", compressed)
    _check_target(p, _validate.boolean("overwrite", overwrite))
    M = to_scipy(A, "csr")
    index = np.int32 if max(M.shape) < 2**31 else np.int64

    def pairs() -> Any:
        for r0, r1, a, b in row_ranges(M, 1 << 17):  # ~1 MiB pieces: a small matrix's peak is its own
            chunk = np.empty((b - a, 2), dtype=index)
            chunk[:, 0] = row_indices(M, r0, r1, index)
            chunk[:, 1] = M.indices[a:b]
            yield chunk

    arrays: dict[str, Any] = {"data": M.data, "indices": (index, (M.nnz, 2), pairs()), "shape": np.array(M.shape),
                              "isomat_layout": np.array("bcoo")}
    if metadata is not None:
        arrays["isomat_metadata"] = np.array(_metadata_json(metadata))
    if bias is not None:
        arrays["isomat_bias"] = _bias_of(bias, M)
    return _write_atomic(p, lambda t: _write_npz(t, arrays, compressed), _zip_ok, overwrite)


def load_jax_bcoo(path: Any, dtype: Any = None) -> jax.experimental.sparse.BCOO:
    """The ``jax.experimental.sparse.BCOO`` matrix of a file written by :func:`to_jax_npz`.

    As :func:`to_jax_bcoo`: 64-bit values need ``jax_enable_x64``, or ``dtype=np.float32`` to
    load them rounded."""
    p = _path(path, ".npz")
    if dtype is not None:
        dtype = _validate.dtype("dtype", dtype, kinds="fc")
    with _Reading(p, "a BCOO .npz archive"):
        data, idx, shape = _readers.read_bcoo_arrays(p)  # sizes, dtypes, shape and index bounds checked
    return _bcoo(data, idx, shape, dtype, "the file")


def to_jax_bcoo(A: Any, dtype: Any = None) -> jax.experimental.sparse.BCOO:
    """A ``jax.experimental.sparse.BCOO`` matrix (needs jax).

    The values keep their dtype. JAX stores 64-bit values only with ``jax_enable_x64`` set, and
    would otherwise round float64 to float32 silently; that case raises instead, unless
    ``dtype`` asks for the narrower type explicitly (``dtype=np.float32``).
    """
    if dtype is not None:
        dtype = _validate.dtype("dtype", dtype, kinds="fc")
    M = to_scipy(A, "coo")
    return _bcoo(M.data, np.stack([M.row, M.col], axis=1), M.shape, dtype, "A")


def _bcoo(data: np.ndarray, idx: np.ndarray, shape: tuple[int, int], dtype: Any, what: str) -> Any:
    """The BCOO of (data, (nnz, 2) indices): int32 indices where every extent and the number of
    entries fit, int64 otherwise (which needs 64-bit JAX: refused, never wrapped, without it)."""
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental import sparse as jsparse
    except ImportError as exc:
        raise ImportError("JAX export needs jax: pip install jax") from exc
    from .algebra._backend import index_dtype

    values = data if dtype is None else data.astype(dtype)
    if values.dtype.itemsize > 4 * (2 if values.dtype.kind == "c" else 1) and not jax.config.jax_enable_x64:
        raise ValueError(
            f"{what} has {values.dtype} values, which JAX would round to 32 bits: enable 64-bit JAX "
            f"(jax.config.update('jax_enable_x64', True)) or pass dtype=np.float32 to export rounded values")
    index = index_dtype(*shape, len(values))
    if index == np.int64 and not jax.config.jax_enable_x64:
        raise ValueError(
            f"{what} has shape {tuple(shape)} and {len(values)} stored values: its indices need int64, which JAX "
            f"holds only with 64-bit JAX enabled (jax.config.update('jax_enable_x64', True))")
    return jsparse.BCOO((jnp.asarray(values), jnp.asarray(np.asarray(idx).astype(index, copy=False))),
                        shape=tuple(int(v) for v in shape))


def from_jax_bcoo(M: Any) -> sp.csr_array:
    """A ``csr_array`` from a 2-d ``BCOO`` matrix (duplicates summed)."""
    if not all(hasattr(M, a) for a in ("data", "indices", "shape")):
        raise TypeError(f"M must be a jax.experimental.sparse.BCOO matrix, got {type(M).__name__}")
    data = np.asarray(M.data)
    idx = np.asarray(M.indices)
    if idx.ndim != 2 or idx.shape[1] != 2:
        raise ValueError(f"M must be a 2-d BCOO with indices of shape (nnz, 2), got {idx.shape}")
    if len(tuple(M.shape)) != 2:
        raise ValueError(f"M must be 2-d, got shape {tuple(M.shape)}")
    shape = _readers.shape2("M", np.asarray(tuple(M.shape), dtype=np.int64))
    return _readers.coo("M", shape, data, idx[:, 0], idx[:, 1])  # indices checked before SciPy sees them


def to_dlpack(A: Any) -> FieldArray:
    """The dense matrix as an array exporting the DLPack protocol (``__dlpack__``).

    A NumPy array for host data, a CuPy array (device memory, no copy to the host) for the
    cupy field; consume it with ``torch.from_dlpack``, ``numpy.from_dlpack``,
    ``jax.dlpack.from_dlpack`` or :func:`from_dlpack`. Dense: meant for matrices that fit.
    """
    import sympy

    from .algebra._operator import SparseOperator, check_bytes, check_size

    if isinstance(A, SparseOperator):
        check_size("to_dlpack (dense)", A.shape, A.shape[0] * A.shape[1], field="numpy")
        if A.field == "cupy":
            return A.todense()
        return np.ascontiguousarray(A.to_scipy().toarray())
    if is_cupy_sparse(A) or isinstance(A, sympy.MatrixBase) or sp.issparse(A):
        # the dense result (complex input: 16 bytes an entry), refused before anything is allocated
        kind = getattr(getattr(A, "dtype", None), "kind", "f")
        check_bytes("to_dlpack (dense)", int(A.shape[0]) * int(A.shape[1]) * (16 if kind == "c" else 8),
                    f"a dense {A.shape[0]}x{A.shape[1]} matrix")
    if is_cupy_sparse(A):
        return A.toarray()
    if is_cupy_array(A):
        return A
    if isinstance(A, sympy.MatrixBase) or sp.issparse(A):
        return np.ascontiguousarray(to_scipy(A).toarray())
    arr = np.asarray(A)
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"A must be a numeric matrix, got {type(A).__name__} (dtype {arr.dtype})")
    if arr.ndim != 2:
        raise ValueError(f"A must be a matrix (2-d), got shape {arr.shape}")
    return np.ascontiguousarray(arr)


#: DLPack device types (dlpack.h): host memory, and device memory NumPy cannot read
_DLPACK_CPU = (1, 3)  # kDLCPU, kDLCUDAHost (pinned host memory)


def from_dlpack(x: Any, *, device: str = "same") -> FieldArray:
    """The array behind any object with ``__dlpack__``, without a copy where it can stay put.

    Host data (CPU DLPack device) gives a NumPy array (``numpy.from_dlpack``). Device data -- a
    CuPy array, a torch tensor on ``cuda:0``, a JAX array on a GPU -- stays on the device as a
    CuPy array with ``device="same"`` (``cupy.from_dlpack``, zero-copy), or is copied to a NumPy
    array with ``device="host"`` (``numpy.from_dlpack`` cannot read device memory).
    """
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"x must export __dlpack__, got {type(x).__name__}")
    device = _validate.choice("device", device, ("same", "host"))
    kind = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
    if int(kind) in _DLPACK_CPU:
        try:
            return np.from_dlpack(x)
        except BufferError as exc:  # e.g. an object array: DLPack carries numbers only
            raise TypeError(f"x cannot be exchanged through DLPack: {exc}") from None
    import importlib

    from .gpu import require_cupy

    cupy = require_cupy()
    on_device = cupy.from_dlpack(x) if not is_cupy_array(x) else x
    if device == "host":
        return importlib.import_module("cupy").asnumpy(on_device)
    return on_device


def write_target(path: Any, format: str | None = None, *, overwrite: bool = True) -> tuple[Path, str]:
    """``(path, format)`` of a :func:`write` call, checked before anything is built: the format is
    known (or follows from the suffix), the suffix matches it, the directory exists and, with
    ``overwrite=False``, the file does not."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be one of {', '.join(FORMATS)} or None (the path's suffix), got {format!r}")
    by_suffix = {v: k for k, v in SUFFIXES.items() if k != "jax"}
    fmt = format if format is not None else by_suffix.get(p.suffix, p.suffix.lstrip("."))
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)} (or a path ending in "
                         f"{', '.join(sorted(set(SUFFIXES.values())))}), got {fmt!r}")
    if p.suffix != SUFFIXES[fmt]:
        raise ValueError(f"-o/path must end in '{SUFFIXES[fmt]}' for format {fmt!r}, got {str(p)!r}")
    if fmt == "jax":
        try:
            import jax  # noqa: F401
        except ImportError as exc:
            raise ImportError(f"format 'jax' needs JAX to load the file: pip install jax ({exc})") from None
    _check_target(p, _validate.boolean("overwrite", overwrite))
    return p, fmt


def _bias_of(bias: Any, M: Any) -> np.ndarray:
    """``bias`` as a 1-d float array with one value per row of ``M`` (refused by name otherwise)."""
    from .algebra._backend import to_numpy

    if isinstance(bias, (str, bytes, dict)):
        raise TypeError(f"bias must be a vector of numbers (one per row), got {type(bias).__name__}")
    try:
        b = np.asarray(to_numpy(bias.detach().cpu().numpy() if hasattr(bias, "detach") else bias))
    except Exception as exc:  # noqa: BLE001 -- anything that is no array is refused by name
        raise TypeError(f"bias must be a vector of numbers (one per row), got {type(bias).__name__} ({exc})") from None
    if b.dtype == object:
        try:
            b = b.astype(np.complex128 if any(isinstance(v, complex) for v in b.ravel()) else np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"bias must hold numbers, got {b.dtype} values") from None
    if b.dtype.kind not in "iufcb":
        raise TypeError(f"bias must hold numbers, got {b.dtype} values")
    if b.ndim != 1 or b.shape[0] != M.shape[0]:
        raise ValueError(f"bias must be a vector of {M.shape[0]} values (one per row of the {M.shape[0]}x{M.shape[1]} "
                         f"matrix), got shape {b.shape}")
    kind = np.result_type(b.dtype, np.float64 if M.dtype.kind not in "fc" else M.dtype)
    return np.ascontiguousarray(b, dtype=kind if kind.kind in "fc" else np.float64)


def _split_bias(A: Any) -> tuple[Any, Any]:
    """``(W, b)`` of an affine map given as a pair, or ``(A, None)``."""
    if isinstance(A, tuple):
        if len(A) != 2:
            raise TypeError(f"A must be an operator or an affine pair (W, b), got a tuple of {len(A)} items")
        return A
    return A, None


def read_bias(path: Any) -> np.ndarray | None:
    """The bias written with a matrix by ``write((W, b), path)`` (``None`` when the file has none).

    It is in the file's row order: with ``order="F"`` the bias was permuted with the rows."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix == ".npz":
        with _Reading(p, "a sparse-matrix .npz archive"), _readers.Npz(p) as z:
            return _readers.bias_vector(p, z["isomat_bias"]) if "isomat_bias" in z.files else None
    if p.suffix == ".pt":
        obj = _load_pt(p)
        if not (isinstance(obj, dict) and "bias" in obj):
            return None
        t = obj["bias"]
        if not isinstance(t, _torch().Tensor) or t.layout != _torch().strided or t.ndim != 1:
            raise _readers.fail(p, f"its bias is not a 1-d dense tensor ({type(t).__name__})")
        _readers.check_alloc(p, t.numel() * t.element_size(), "the bias")
        return _readers.bias_vector(p, _readers.torch_host(p, t))
    if p.suffix == ".mat":
        with _Reading(p, "a MATLAB .mat file"):
            value = _readers.mat_load(p, "b", required=False)
        return None if value is None else _readers.bias_vector(p, np.asarray(value).ravel())
    if p.suffix == ".mtx":
        values = read_metadata(p).get("bias_values")
        if not isinstance(values, list):
            return None

        def num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool)

        # numbers, or [real, imaginary] pairs (a crafted [[1]] made b[:, 1] an IndexError)
        if not (all(num(v) for v in values)
                or all(isinstance(v, list) and len(v) == 2 and num(v[0]) and num(v[1]) for v in values)):
            raise _readers.fail(p, "its metadata's bias_values must be numbers or [real, imaginary] pairs")
        b = np.asarray(values, dtype=float)
        return b[:, 0] + 1j * b[:, 1] if b.ndim == 2 else b
    raise ValueError(f"path must end in .mtx, .npz, .pt or .mat, got {str(p)!r}")


def write(A: Any, path: Any, format: str | None = None, *, comment: str = "", torch_layout: str = "coo",
          metadata: dict[str, Any] | None = None, dtype: Any = None, order: str = "C", input_shape: Any = None,
          output_shape: Any = None, overwrite: bool = True) -> Path:
    """Write ``A`` in ``format`` (``mtx``, ``npz``, ``pt``, ``mat`` or ``jax``; default: the file's suffix).

    Every file records what it holds -- the flattening order, the input and output tensor shapes,
    the value dtype, the matrix's shape and isomat's version, beside any ``metadata`` given --
    and :func:`read_metadata` reads it back: an ``order="F"`` file always says so.

    Parameters
    ----------
    A : operator (see :func:`to_scipy`), or an affine pair ``(W, b)``
        With a pair, the bias ``b`` (one value per row) is written too (an ``npz``/``jax`` member
        ``isomat_bias``, the torch dict's ``"bias"``, the ``.mat`` column ``b``, the ``.mtx``
        metadata's ``"bias_values"``) and :func:`read_bias` reads it back.
    path : str or Path
        Ends in the format's suffix (:data:`SUFFIXES`; ``jax`` writes an ``.npz``).
    format : {"mtx", "npz", "pt", "mat", "jax"}, optional
    comment : str
        MatrixMarket header text.
    torch_layout : {"coo", "csr"}
        Layout of the ``pt`` tensor (``csr`` shares the matrix's arrays; ``coo`` adds 16 bytes an entry).
    metadata : dict, optional
        What the matrix is (kind, layer parameters, shapes, order, convention, dtype, version,
        seed): it goes into the file -- the MatrixMarket comment, an ``npz`` array, the torch
        dict, the ``.mat`` struct -- and :func:`read_metadata` reads it back (with ``dtype`` and
        ``order`` filled in).
    dtype : {"float32", "float64", "complex64", "complex128"}, optional
        Converts the values first (the indices are shared, not copied).
    order : {"C", "F"}
        ``"F"``: write :func:`column_major` of ``A`` (needs ``input_shape`` and ``output_shape``),
        the matrix for column-major ``x(:)`` (MATLAB, Fortran, Julia).
    overwrite : bool
        Replace an existing file (default); ``False`` refuses (``isomat export`` without ``--force``).
    """
    torch_layout = _validate.choice("torch_layout", torch_layout, ("coo", "csr"))
    order = _validate.choice("order", order, ("C", "F"))
    if not isinstance(comment, str):
        raise TypeError(f"comment must be a str, got {type(comment).__name__}")
    if _MTX_TAG.strip() in comment:  # a forged metadata line in the comment would shadow the real one
        raise ValueError(f"comment must not contain {_MTX_TAG.strip()!r} (the metadata line's tag), got {comment!r}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict (JSON-serializable), got {type(metadata).__name__}")
    p, fmt = write_target(path, format, overwrite=overwrite)
    A, bias = _split_bias(A)
    M = to_scipy(A, "csr")
    b = None if bias is None else _bias_of(bias, M)
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype must be float32, float64, complex64 or complex128, got {dtype!r}") from None
        if dt not in (np.float32, np.float64, np.complex64, np.complex128):
            raise ValueError(f"dtype must be float32, float64, complex64 or complex128, got {dt}")
        if np.iscomplexobj(M.data) and dt.kind != "c":
            raise ValueError(f"the values are complex: dtype must be complex64 or complex128, got {dt}")
        if fmt == "mat" and dt not in (np.float64, np.complex128):
            raise ValueError(f"dtype {dt}: MATLAB sparse matrices hold double values (float64 or complex128)")
        if dt != M.dtype:  # new values, shared indices (scipy's astype would copy the indices too)
            M = sp.csr_array((M.data.astype(dt), M.indices, M.indptr), shape=M.shape, copy=False)
            M.has_canonical_format = True
    _order_maps(M, "C", input_shape, output_shape)  # the shapes are checked whatever the order
    if b is not None and dtype is not None:
        b = b.astype(M.dtype if M.dtype.kind == "c" or b.dtype.kind != "c" else b.dtype)
    flat = ("column-major (Fortran, MATLAB x(:)) flattening of input and output" if order == "F"
            else "row-major (C) flattening of input and output")
    from . import __version__

    # what the file holds is recorded whatever the caller passed: the facts below are computed here, last
    metadata = {"isomat_version": __version__, "rows": "outputs", "columns": "inputs", "convention": "y = W x",
                **(metadata or {}), "shape": [int(M.shape[0]), int(M.shape[1])], "dtype": str(M.dtype),
                "order": flat,
                "input_shape": [int(v) for v in (input_shape if input_shape is not None else (M.shape[1],))],
                "output_shape": [int(v) for v in (output_shape if output_shape is not None else (M.shape[0],))],
                "bias": b is not None}
    if fmt == "mat":  # renumbers while it streams: no permuted copy
        return to_mat(M, p, order=order, input_shape=input_shape, output_shape=output_shape, metadata=metadata,
                      overwrite=overwrite, bias=b)
    if order == "F":
        M = column_major(M, input_shape, output_shape)
        if b is not None:
            rmap = _order_maps(M, "F", input_shape, output_shape)[0]
            if rmap is not None:
                moved = np.empty_like(b)
                moved[rmap] = b
                b = moved
    if fmt == "mtx":
        if b is not None:  # MatrixMarket holds one matrix: the bias goes into the metadata line
            metadata["bias_values"] = ([[float(v.real), float(v.imag)] for v in b] if np.iscomplexobj(b)
                                       else [float(v) for v in b])  # complex values as [real, imag] pairs
        text = comment.replace("\r", " ") + "\n" + _MTX_TAG + _metadata_json(metadata)
        return to_matrix_market(M, p, comment=text, overwrite=overwrite)
    if fmt == "npz":
        return to_npz(M, p, metadata=metadata, overwrite=overwrite, bias=b)
    if fmt == "jax":
        return to_jax_npz(M, p, metadata=metadata, overwrite=overwrite, bias=b)
    return save_torch(M, p, torch_layout, metadata=metadata, overwrite=overwrite, bias=b)


def read(path: Any) -> sp.csr_array:
    """Read a file written by :func:`write` (by its suffix) as a ``csr_array``."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix == ".mtx":
        return read_matrix_market(p)
    if p.suffix == ".npz":
        return read_npz(p)
    if p.suffix == ".pt":
        return _readers.torch_matrix(p, load_torch(p))
    if p.suffix == ".mat":
        return read_mat(p)
    raise ValueError(f"path must end in .mtx, .npz, .pt or .mat, got {str(p)!r}")


# the family registry behind ``isomat export KIND`` (isomat/_export_families.py), re-exported
from ._export_families import (FAMILIES, ExportFamily, family, int_list, int_or_tuple,  # noqa: E402
                               new_seed, normal, positive)


def rebuild(source: Any, *, kernel: Any = None) -> sp.csr_array:
    """The operator an ``isomat export`` file holds, made again from its metadata.

    ``source`` is the file (any format) or its :func:`read_metadata` dict. The family (``kind``) is
    built again from the recorded ``parameters``, drawing its random values from
    ``numpy.random.default_rng(seed)`` in the same order as the command line did -- so a random
    kernel is reproducible from the recorded ``seed`` -- and a kernel given as a file comes from
    the recorded values (small kernels), from ``kernel``, or from the recorded path.
    The result is the row-major (``order="C"``) float64 matrix, whatever order the file was written in.

    A file is untrusted input: every recorded option is checked with the command line's own
    types and ranges before anything is built (only the family's options; others are refused,
    :func:`isomat._export_families.recorded_options`), and a recorded kernel path is read only
    from inside the export file's own folder (symlinks followed), as a ``.npy`` of the recorded
    shape, dtype and SHA-256 -- one message for every way it can fail, so that a crafted file
    cannot probe the machine's files (issue 37 items 1-2).

    Parameters
    ----------
    source : str, Path or dict
        An ``isomat export`` file, or its metadata (then a kernel recorded by path needs ``kernel``).
    kernel : str, Path or numpy.ndarray, optional
        The conv kernel (a ``.npy`` anywhere, or an array), checked against the recorded shape,
        dtype and SHA-256; for an export whose kernel file is not beside it.
    """
    from ._export_families import recorded_kernel, recorded_options

    folder = None
    if isinstance(source, (str, Path)):
        try:
            meta = read_metadata(source)
        except ValueError as exc:  # the reader names its own argument ("path"): say it of ours
            raise ValueError(f"source: {' '.join(str(exc).split())}") from None
        folder = Path(source).parent
    else:
        meta = source
    if not isinstance(meta, dict):
        raise TypeError(f"source must be an `isomat export` file or its metadata dict, got {type(source).__name__}")
    from .errors import SizeLimitError

    def of_file(exc: ValueError) -> ValueError:  # a refused record names its file (one line)
        return exc if folder is None else ValueError(f"source {str(source)!r}: {exc}")

    try:
        if "kind" not in meta or not isinstance(meta.get("parameters"), dict):
            raise ValueError("source must be an `isomat export` file or its metadata (with 'kind' and 'parameters'), "
                             f"got one with the keys {sorted(map(str, meta))[:20]}")
        kind = meta["kind"]
        if not isinstance(kind, str) or kind not in FAMILIES:
            raise ValueError(f"unknown export kind {repr(kind)[:80]} (known: {', '.join(sorted(FAMILIES))})")
        fam = FAMILIES[kind]
        args = recorded_options(fam, meta["parameters"])
        seed = meta.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**128:
            raise ValueError(f"the recorded seed must be a non-negative integer, got {repr(seed)[:80]}")
    except SizeLimitError:
        raise
    except ValueError as exc:
        raise of_file(exc) from None
    if getattr(args, "kernel", None) is not None:
        try:
            args.kernel = recorded_kernel(args.kernel, folder, kernel)
        except SizeLimitError:
            raise
        except ValueError as exc:
            if kernel is not None:  # about the caller's own kernel
                raise
            raise of_file(exc) from None
    elif kernel is not None:
        raise ValueError(f"kernel: this {kind} export records no kernel file (its values come from the recorded "
                         "options and seed)")
    return to_scipy(fam.build(args, np.random.default_rng(seed)), "csr")


def write_network(network: Any, path: Any, format: str | None = None, *, order: str = "C", dtype: Any = None,
                  metadata: dict[str, Any] | None = None, overwrite: bool = True) -> list[Path]:
    """Write a whole network (:func:`isomat.torch.from_model`) through :func:`write`'s formats.

    An affine network (no nonlinearity) is one file holding its composed ``(W, b)`` (its
    :meth:`~isomat.torch.network.Network.affine_segments`), with the model's input and output
    tensor shapes in its metadata; ``order="F"`` works as for :func:`write`. A network with
    nonlinearities is written as one file per affine segment weight,
    ``<stem>.<segment>[.<k>]<suffix>``, each with its metadata, plus ``<stem>.<format>.network.json``: the
    nodes in order (segments with their files and inputs, activations with their parameters, max
    pools with their windows) and every tensor shape. Returns the paths written.
    """
    from ._network_export import write_network as _write

    return _write(network, path, format, order=order, dtype=dtype, metadata=metadata, overwrite=overwrite)


from ._network_export import read_network  # noqa: E402  (torch-free; the reader of write_network's files)

#: the library API of this module (the CLI's family registry and argument parsers are not part of it)
__all__ = ["FORMATS", "SUFFIXES", "column_major", "read_bias", "rebuild", "flatten_permutation", "from_dlpack", "from_jax_bcoo", "from_torch",
           "load_jax_bcoo", "load_torch", "read", "read_mat", "read_matrix_market", "read_metadata", "read_network", "read_npz",
           "save_torch", "to_dlpack", "to_jax_bcoo", "to_jax_npz", "to_mat", "to_matrix_market", "to_npz", "to_scipy",
           "to_torch", "write", "write_network"]
