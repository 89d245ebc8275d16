"""PyTorch ``.pt``: a sparse COO or CSR tensor (and its metadata and bias), written and read back.

:func:`to_torch` makes the tensor from the CSR without copies beyond torch's own int64 COO
pairs; :func:`save_torch` writes it with ``torch.save``. The reader loads with
``weights_only=True`` after the zip archive's storages were sized against the memory bound, with
torch's sparse invariant checks on, and checks each tensor's indices before SciPy sees them.
Every name here needs the ``torch`` extra only when called.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ._base import B_NAME, OLD_BIAS_NAMES, W_NAME, _bias_of, _check_target, _metadata_json, _path, _Reading, _write_atomic, _zip_ok, to_scipy
from ._checks import bias_vector, check_alloc, coo, csr, dense, fail, metadata_dict, zip_directory_ok
from ._chunks import row_indices, row_ranges

if TYPE_CHECKING:  # optional dependency, named for annotations only
    import torch

#: the matrix's key in isomat 0.2.0's ``.pt`` dicts, still read
OLD_MATRIX_KEY = "matrix"

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
    return torch_matrix("t", t)


def save_torch(A: Any, path: Any, format: str = "coo", *, metadata: dict[str, Any] | None = None,
               overwrite: bool = True, bias: Any = None) -> Path:
    """``torch.save`` the tensor of :func:`to_torch` to ``path`` (``.pt``); returns the path.

    With ``metadata`` or a ``bias`` the file holds the dict ``{"W": tensor, "b": bias, "metadata":
    dict}`` (the keys given; all load with ``torch.load(path, weights_only=True)``), else the tensor
    alone; :func:`load_torch` returns the tensor either way. A CSR tensor shares
    the matrix's arrays; a COO one adds its int64 (row, col) pairs (16 bytes an entry)."""
    from ..algebra._operator import check_bytes

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
    obj: Any = T if metadata is None and b is None else {W_NAME: T}
    if metadata is not None:
        obj["metadata"] = json.loads(_metadata_json(metadata))
    if b is not None:
        obj[B_NAME] = _torch().from_numpy(b)
    return _write_atomic(p, lambda t: _torch().save(obj, t), _zip_ok, overwrite)


def load_torch(path: Any) -> torch.Tensor:
    """Load the matrix of a file written by :func:`save_torch` (``weights_only=True``): the tensor
    itself, or the dict's ``"W"`` (``"matrix"`` in isomat 0.2.0's files)."""
    p = _path(path, ".pt")
    obj = _load_pt(p)
    if isinstance(obj, dict):
        key = W_NAME if W_NAME in obj else OLD_MATRIX_KEY
        if key not in obj:
            raise fail(p, f"holds a dict without a {W_NAME!r} tensor (nor 0.2.0's {OLD_MATRIX_KEY!r}; keys "
                          f"{sorted(map(str, obj))[:10]})")
        obj = obj[key]
    return torch_tensor(p, obj)


def _load_pt(p: Path) -> Any:
    """``torch.load(weights_only=True)`` of ``p``: its storages' declared sizes checked against the
    memory bound first, and its sparse tensors' invariants (index bounds) checked while loading."""
    torch = _torch()
    with _Reading(p, "a torch file"):
        pt_estimate(p)
        with torch.sparse.check_sparse_tensor_invariants(enable=True):
            return torch.load(str(p), weights_only=True)


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


def pt_metadata(p: Path) -> dict[str, Any]:
    """The dict's ``"metadata"`` (validated), or ``{}`` (a bare tensor, or a dict without it)."""
    obj = _load_pt(p)
    return metadata_dict(p, obj.get("metadata", {})) if isinstance(obj, dict) else {}


def pt_bias(p: Path) -> np.ndarray | None:
    """The dict's bias (key ``"b"``; 0.2.0's ``"bias"``), a 1-d dense tensor, or None."""
    obj = _load_pt(p)
    key = next((k for k in (B_NAME, OLD_BIAS_NAMES["pt"]) if isinstance(obj, dict) and k in obj), None)
    if key is None:
        return None
    t = obj[key]
    torch = _torch()
    if not isinstance(t, torch.Tensor) or t.layout != torch.strided or t.ndim != 1:
        raise fail(p, f"its bias is not a 1-d dense tensor ({type(t).__name__})")
    check_alloc(p, t.numel() * t.element_size(), "the bias")
    return bias_vector(p, torch_host(p, t))
