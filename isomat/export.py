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
DLPack (dense)            :func:`to_dlpack`                           :func:`from_dlpack`
========================  ==========================================  =======================

The command line ``isomat export KIND ... --format mtx|npz|pt -o FILE`` builds an operator of a
construction family (see :data:`FAMILIES`) and writes it with these functions.
"""

from __future__ import annotations

import argparse
import json
import secrets
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import scipy.io
import scipy.sparse as sp

from . import _validate
from .gpu import is_cupy_array, is_cupy_sparse, to_cpu

FORMATS = ("mtx", "npz", "pt")


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


def _write_atomic(p: Path, write: Callable[[str], None], check: Callable[[Path], None]) -> Path:
    """Write through ``write(temporary path)`` in ``p``'s directory, read the header back with
    ``check``, then rename onto ``p``: a failure leaves no partial file and never reports a path
    that was not written (SciPy's ``mmwrite`` silently writes nothing into a missing directory)."""
    import os
    import tempfile

    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"path {str(p)!r}: the directory {str(parent)!r} does not exist (create it first)")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.stem}.", suffix=p.suffix, dir=parent)
    os.close(fd)
    try:
        write(tmp)
        if not Path(tmp).is_file() or Path(tmp).stat().st_size == 0:
            raise OSError(f"writing {str(p)!r} produced no data")
        check(Path(tmp))
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def _mtx_header_ok(t: Path) -> None:
    with open(t, "rb") as fh:
        if not fh.readline().startswith(b"%%MatrixMarket"):
            raise OSError(f"{str(t)!r} does not start with a MatrixMarket header")


def _zip_ok(t: Path) -> None:
    import zipfile

    if not zipfile.is_zipfile(t):  # .npz and torch's .pt are zip archives
        raise OSError(f"{str(t)!r} is not a readable zip archive")


def to_matrix_market(A: Any, path: Any, *, comment: str = "", precision: int | None = None) -> Path:
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
    """
    p = _path(path, ".mtx")
    M = to_scipy(A, "coo")
    # 17 significant digits round-trip float64 exactly, 9 float32. SciPy's writer (fast_matrix_market)
    # corrupts float32 values asked for more than ~10 digits -- NUL bytes, lost exponents, a reader that
    # segfaults -- so single precision is capped at the 9 digits that carry it
    single = M.dtype in (np.float32, np.complex64)
    most = 9 if single else 30
    precision = (9 if single else 17) if precision is None else _validate.positive_int("precision", precision)
    if precision > most:
        raise ValueError(f"precision must be at most {most} significant digits for {M.dtype} values, got {precision}")
    return _write_atomic(p, lambda t: scipy.io.mmwrite(t, M, comment=comment, precision=precision), _mtx_header_ok)


def read_matrix_market(path: Any) -> sp.csr_array:
    """Read a ``.mtx`` file as a ``csr_array``."""
    return sp.csr_array(scipy.io.mmread(str(_path(path, ".mtx"))))


def to_npz(A: Any, path: Any, *, compressed: bool = True, metadata: dict[str, Any] | None = None) -> Path:
    """Write ``A`` as CSR in ``scipy.sparse.save_npz``'s layout to ``path`` (``.npz``); returns the path.

    ``metadata`` (a JSON-serializable dict) is stored beside the arrays as ``isomat_metadata``;
    ``scipy.sparse.load_npz`` ignores it and :func:`read_metadata` returns it."""
    p = _path(path, ".npz")
    M = to_scipy(A, "csr")
    arrays = dict(indices=M.indices, indptr=M.indptr, format=np.array("csr"), shape=np.array(M.shape), data=M.data)
    if metadata is not None:
        arrays["isomat_metadata"] = np.array(_metadata_json(metadata))
    save = np.savez_compressed if compressed else np.savez
    return _write_atomic(p, lambda t: save(t, **arrays), _zip_ok)


def read_npz(path: Any) -> sp.csr_array:
    """Read a file written by :func:`to_npz` as a ``csr_array``."""
    return sp.csr_array(sp.load_npz(str(_path(path, ".npz"))))


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - the torch extra is installed in CI
        raise ImportError("PyTorch export needs the torch extra: pip install 'isomat[torch]'") from exc
    return torch


def to_torch(A: Any, format: str = "coo") -> Any:
    """A PyTorch sparse tensor: ``torch.sparse_coo_tensor`` (coalesced) or ``torch.sparse_csr_tensor``.

    Parameters
    ----------
    A : operator (see :func:`to_scipy`)
    format : {"coo", "csr"}
        Layout of the tensor. Indices are int64, values float64 (complex128 for complex input).
    """
    torch = _torch()
    if format == "coo":
        M = to_scipy(A, "coo")
        idx = torch.from_numpy(np.vstack([M.row, M.col]).astype(np.int64))
        return torch.sparse_coo_tensor(idx, torch.from_numpy(np.ascontiguousarray(M.data)), M.shape,
                                       check_invariants=True).coalesce()
    if format == "csr":
        M = to_scipy(A, "csr")
        M.sort_indices()
        with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
            warnings.filterwarnings("ignore", message=".*Sparse CSR tensor support is in beta.*")
            return torch.sparse_csr_tensor(torch.from_numpy(M.indptr.astype(np.int64)),
                                           torch.from_numpy(M.indices.astype(np.int64)),
                                           torch.from_numpy(np.ascontiguousarray(M.data)), M.shape,
                                           check_invariants=True)
    raise ValueError(f"format must be 'coo' or 'csr', got {format!r}")


def from_torch(t: Any) -> sp.csr_array:
    """A ``csr_array`` from a PyTorch sparse COO/CSR tensor or a dense 2-d tensor."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor, got {type(t).__name__}")
    if t.ndim != 2:
        raise ValueError(f"t must be 2-d, got shape {tuple(t.shape)}")
    t = t.detach().cpu()
    if t.layout == torch.sparse_coo:
        t = t.coalesce()
        r, c = t.indices().numpy()
        return sp.csr_array(sp.coo_array((t.values().numpy(), (r, c)), shape=tuple(t.shape)))
    if t.layout == torch.sparse_csr:
        return sp.csr_array((t.values().numpy(), t.col_indices().numpy(), t.crow_indices().numpy()),
                            shape=tuple(t.shape))
    if t.layout == torch.strided:
        return sp.csr_array(t.numpy())
    raise ValueError(f"t has layout {t.layout}; expected sparse_coo, sparse_csr or strided")


def save_torch(A: Any, path: Any, format: str = "coo", *, metadata: dict[str, Any] | None = None) -> Path:
    """``torch.save`` the tensor of :func:`to_torch` to ``path`` (``.pt``); returns the path.

    With ``metadata`` the file holds ``{"matrix": tensor, "metadata": dict}`` (both load with
    ``weights_only=True``); :func:`load_torch` returns the tensor either way."""
    p = _path(path, ".pt")
    T = to_torch(A, format)
    obj = T if metadata is None else {"matrix": T, "metadata": json.loads(_metadata_json(metadata))}
    return _write_atomic(p, lambda t: _torch().save(obj, t), _zip_ok)


def load_torch(path: Any) -> Any:
    """Load a tensor written by :func:`save_torch` (``weights_only=True``)."""
    obj = _torch().load(str(_path(path, ".pt")), weights_only=True)
    return obj["matrix"] if isinstance(obj, dict) else obj


def _metadata_json(metadata: dict[str, Any]) -> str:
    if not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    try:
        return json.dumps(metadata, sort_keys=True, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"metadata must be JSON-serializable: {exc}") from None


_MTX_TAG = "isomat-metadata: "


def read_metadata(path: Any) -> dict[str, Any]:
    """The metadata :func:`write` stored with a matrix (``.mtx`` comment, ``.npz`` array, ``.pt`` dict);
    ``{}`` when the file has none."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix == ".mtx":
        with open(p, encoding="utf-8") as fh:
            for line in fh:
                if not line.startswith("%"):
                    break
                if line.startswith("%" + _MTX_TAG) or line.startswith("% " + _MTX_TAG):
                    return json.loads(line.split(_MTX_TAG, 1)[1])
        return {}
    if p.suffix == ".npz":
        with np.load(p, allow_pickle=False) as z:
            return json.loads(str(z["isomat_metadata"])) if "isomat_metadata" in z.files else {}
    if p.suffix == ".pt":
        obj = _torch().load(str(p), weights_only=True)
        return dict(obj["metadata"]) if isinstance(obj, dict) else {}
    raise ValueError(f"path must end in .mtx, .npz or .pt, got {str(p)!r}")


def to_jax_bcoo(A: Any, dtype: Any = None) -> Any:
    """A ``jax.experimental.sparse.BCOO`` matrix (needs jax).

    The values keep their dtype. JAX stores 64-bit values only with ``jax_enable_x64`` set, and
    would otherwise round float64 to float32 silently; that case raises instead, unless
    ``dtype`` asks for the narrower type explicitly (``dtype=np.float32``).
    """
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental import sparse as jsparse
    except ImportError as exc:
        raise ImportError("JAX export needs jax: pip install jax") from exc
    M = to_scipy(A, "coo")
    values = M.data if dtype is None else M.data.astype(dtype)
    if values.dtype.itemsize > 4 * (2 if values.dtype.kind == "c" else 1) and not jax.config.jax_enable_x64:
        raise ValueError(
            f"A has {values.dtype} values, which JAX would round to 32 bits: enable 64-bit JAX "
            f"(jax.config.update('jax_enable_x64', True)) or pass dtype=np.float32 to export rounded values")
    idx = np.stack([M.row, M.col], axis=1).astype(np.int32)
    return jsparse.BCOO((jnp.asarray(values), jnp.asarray(idx)), shape=M.shape)


def from_jax_bcoo(M: Any) -> sp.csr_array:
    """A ``csr_array`` from a 2-d ``BCOO`` matrix (duplicates summed)."""
    if not all(hasattr(M, a) for a in ("data", "indices", "shape")):
        raise TypeError(f"M must be a jax.experimental.sparse.BCOO matrix, got {type(M).__name__}")
    data = np.asarray(M.data)
    idx = np.asarray(M.indices)
    if idx.ndim != 2 or idx.shape[1] != 2:
        raise ValueError(f"M must be a 2-d BCOO with indices of shape (nnz, 2), got {idx.shape}")
    return sp.csr_array(sp.coo_array((data, (idx[:, 0], idx[:, 1])), shape=tuple(M.shape)))


def to_dlpack(A: Any) -> Any:
    """The dense matrix as an array exporting the DLPack protocol (``__dlpack__``).

    A NumPy array for host data, a CuPy array (device memory, no copy to the host) for the
    cupy field; consume it with ``torch.from_dlpack``, ``numpy.from_dlpack``,
    ``jax.dlpack.from_dlpack`` or :func:`from_dlpack`. Dense: meant for matrices that fit.
    """
    import sympy

    from .algebra._operator import SparseOperator, check_size

    if isinstance(A, SparseOperator):
        check_size("to_dlpack (dense)", A.shape, A.shape[0] * A.shape[1], field="numpy")
        if A.field == "cupy":
            return A.todense()
        return np.ascontiguousarray(A.to_scipy().toarray())
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


def from_dlpack(x: Any, *, device: str = "same") -> Any:
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
        return np.from_dlpack(x)
    import importlib

    from .gpu import require_cupy

    cupy = require_cupy()
    on_device = cupy.from_dlpack(x) if not is_cupy_array(x) else x
    if device == "host":
        return importlib.import_module("cupy").asnumpy(on_device)
    return on_device


def write(A: Any, path: Any, format: str | None = None, *, comment: str = "", torch_layout: str = "coo",
          metadata: dict[str, Any] | None = None, dtype: Any = None) -> Path:
    """Write ``A`` in ``format`` (``mtx``, ``npz`` or ``pt``; default: the file's suffix).

    ``metadata`` (what the matrix is: kind, layer parameters, shapes, order, convention, dtype,
    version, seed) goes into the file -- the MatrixMarket comment, an ``npz`` array, the torch
    dict -- and :func:`read_metadata` reads it back. ``dtype`` (``float32`` / ``float64``, or a
    complex one for complex values) converts the values first."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be one of {', '.join(FORMATS)} or None (the path's suffix), got {format!r}")
    torch_layout = _validate.choice("torch_layout", torch_layout, ("coo", "csr"))
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict (JSON-serializable), got {type(metadata).__name__}")
    fmt = format or p.suffix.lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if p.suffix != "." + fmt:
        raise ValueError(f"-o/path must end in '.{fmt}' for format {fmt!r}, got {str(p)!r}")
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype must be float32, float64, complex64 or complex128, got {dtype!r}") from None
        if dt not in (np.float32, np.float64, np.complex64, np.complex128):
            raise ValueError(f"dtype must be float32, float64, complex64 or complex128, got {dt}")
        M = to_scipy(A, "csr")
        if np.iscomplexobj(M.data) and dt.kind != "c":
            raise ValueError(f"the values are complex: dtype must be complex64 or complex128, got {dt}")
        A = M.astype(dt)
    if metadata is not None:
        metadata = {**metadata, "dtype": str(to_scipy(A, "csr").dtype)}
    if fmt == "mtx":
        text = comment + ("\n" + _MTX_TAG + _metadata_json(metadata) if metadata is not None else "")
        return to_matrix_market(A, p, comment=text)
    if fmt == "npz":
        return to_npz(A, p, metadata=metadata)
    return save_torch(A, p, torch_layout, metadata=metadata)


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
        return from_torch(load_torch(p))
    raise ValueError(f"path must end in .mtx, .npz or .pt, got {str(p)!r}")


# ---------------------------------------------------------------------------------------------
# the family registry behind ``isomat export KIND``
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExportFamily:
    """One ``isomat export`` kind: its options and how to build its operator.

    ``build(args, rng)`` returns the operator (anything :func:`to_scipy` takes) from the parsed
    options, drawing random values from ``rng`` (a seeded ``numpy.random.Generator``).
    """

    name: str
    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    build: Callable[[argparse.Namespace, np.random.Generator], Any]


FAMILIES: dict[str, ExportFamily] = {}


class _FamilyClass(Protocol):
    """What :func:`family` needs of the class object it registers: ``options(parser)`` and
    ``build(args, rng)`` callable on the class itself (static methods; matched by the class
    object, so ``self`` below stands for nothing)."""

    def options(self, parser: argparse.ArgumentParser, /) -> None: ...

    def build(self, args: argparse.Namespace, rng: np.random.Generator, /) -> Any: ...


_FamilyT = TypeVar("_FamilyT", bound=_FamilyClass)


def family(name: str, help: str) -> Callable[[_FamilyT], _FamilyT]:
    """Class decorator registering an ``isomat export`` kind.

    The class has two static methods: ``options(parser)`` adds the kind's own argparse
    options, ``build(args, rng)`` returns the operator.
    """

    def deco(cls: _FamilyT) -> _FamilyT:
        FAMILIES[name] = ExportFamily(name, help, cls.options, cls.build)
        return cls

    return deco


def int_list(text: str) -> tuple[int, ...]:
    """argparse type: ``"1,28,28"`` -> ``(1, 28, 28)``."""
    parts = text.split(",")
    try:
        out = tuple(int(p) for p in parts if p.strip() != "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not out:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    return out


def positive(text: str) -> int:
    """argparse type: a positive integer."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def int_or_tuple(text: str) -> int | tuple[int, ...]:
    """argparse type: ``"3"`` -> 3, ``"3,5"`` -> (3, 5)."""
    t = int_list(text)
    return t[0] if len(t) == 1 else t


def new_seed() -> int:
    """A fresh seed (printed by the CLI so the run can be repeated with ``--seed``)."""
    return secrets.randbelow(2**31)


def _matrix_from_file(path: str, what: str) -> np.ndarray:
    p = Path(path)
    if p.suffix != ".npy":
        raise ValueError(f"{what} must be a .npy file, got {path!r}")
    if not p.is_file():
        raise ValueError(f"{what} {path!r}: no such file")
    try:
        return np.load(p, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{what} {path!r} is not a readable .npy array ({exc})") from None


# -- projection (cheng2025 eq. 22) ----------------------------------------------------------------
@family("projection", "cheng2025 projection Pi^m_n (eq. 22): n x m, rows sum to one")
class _Projection:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--m", type=positive, required=True, help="input dimension (columns)")
        p.add_argument("--n", type=positive, required=True, help="output dimension (rows)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.projection import projection_operator

        return projection_operator(args.m, args.n)


# -- kron ------------------------------------------------------------------------------------------
def _factor_shapes(text: str) -> list[tuple[int, ...]]:
    shapes = [int_list(f.replace("x", ",")) for f in text.split(",")]
    for shape in shapes:
        if len(shape) != 2 or min(shape) < 1:
            raise argparse.ArgumentTypeError(f"each factor is ROWSxCOLS with positive sizes, got {text!r}")
    return shapes


def _unit_interval(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0.0 < v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return v


@family("kron", "Kronecker product of random Gaussian factors")
class _Kron:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--factors", required=True, type=_factor_shapes,
                       help="factor shapes, e.g. 2x3,4x4 (each ROWSxCOLS)")
        p.add_argument("--density", type=_unit_interval, default=1.0,
                       help="fraction of nonzero factor entries (default 1)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.kron import kron_operator

        factors = [rng.standard_normal(s) * (rng.random(s) < args.density) for s in args.factors]
        return kron_operator(*factors)


# -- conv (zhu2025 §4.2.1) -------------------------------------------------------------------------
def _padding(text: str) -> Any:
    if text in ("same", "valid"):
        return text
    try:
        return int_or_tuple(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected an integer, a tuple like 1,2, 'same' or 'valid', got {text!r}") from None


@family("conv", "zhu2025 convolution matrix W_conv (cross-correlation as torch conv1d/2d/3d)")
class _Conv:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-shape", type=int_list, required=True, help="C_in,n1,...,nd, e.g. 1,28,28")
        p.add_argument("--kernel-size", type=int_or_tuple, default=None,
                       help="k or k1,...,kd (random Gaussian kernel; or give --kernel)")
        p.add_argument("--kernel", metavar="FILE.npy", default=None,
                       help="kernel array (C_out, C_in, k1, ..., kd) from a .npy file")
        p.add_argument("--out-channels", type=positive, default=1, help="C_out of a random kernel (default 1)")
        p.add_argument("--stride", type=int_or_tuple, default=1)
        p.add_argument("--padding", type=_padding, default=0, help="int, tuple, 'same' or 'valid'")
        p.add_argument("--dilation", type=int_or_tuple, default=1)
        p.add_argument("--boundary", choices=["zero", "circular", "reflect", "replicate"], default="zero",
                       help="value read outside the input, as torch's padding_mode (zeros, circular, reflect, replicate)")
        p.add_argument("--groups", type=positive, default=1,
                       help="channel groups as torch (a random kernel then has C_in/groups input channels)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.conv import conv_matrix

        shape = args.input_shape
        if len(shape) < 2:
            raise ValueError(f"--input-shape must be C_in,n1,...,nd with at least one spatial axis, got {shape}")
        d = len(shape) - 1
        if args.kernel is not None:
            if args.kernel_size is not None:
                raise ValueError("give either --kernel or --kernel-size, not both")
            kernel = _matrix_from_file(args.kernel, "--kernel")
        else:
            if args.kernel_size is None:
                raise ValueError("--kernel-size (or --kernel FILE.npy) is required")
            ks = args.kernel_size if isinstance(args.kernel_size, tuple) else (args.kernel_size,) * d
            if len(ks) != d:
                raise ValueError(f"--kernel-size needs {d} values for a {d}-d input, got {len(ks)}")
            if shape[0] % args.groups:
                raise ValueError(f"--groups {args.groups} must divide C_in = {shape[0]}")
            kernel = rng.standard_normal((args.out_channels, shape[0] // args.groups, *ks))
        return conv_matrix(shape, kernel, stride=args.stride, padding=args.padding, dilation=args.dilation,
                           boundary=args.boundary, groups=args.groups, format="operator")


# -- pool (zhu2025 §4.2.2) -------------------------------------------------------------------------
@family("pool", "zhu2025 average-pooling matrix W_pool (as torch avg_pool1d/2d/3d)")
class _Pool:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-shape", type=int_list, required=True, help="C,n1,...,nd, e.g. 1,28,28")
        p.add_argument("--kernel-size", type=int_or_tuple, required=True, help="window k or k1,...,kd")
        p.add_argument("--stride", type=int_or_tuple, default=None, help="default: the window")
        p.add_argument("--padding", type=int_or_tuple, default=0)
        p.add_argument("--exclude-pad", action="store_true", help="count_include_pad=False")
        p.add_argument("--ceil-mode", action="store_true", help="round the output size up (torch's ceil_mode)")
        p.add_argument("--divisor-override", type=positive, default=None, help="divide every window sum by this")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.pool import avgpool_matrix

        shape = args.input_shape
        if len(shape) < 2:
            raise ValueError(f"--input-shape must be C,n1,...,nd with at least one spatial axis, got {shape}")
        return avgpool_matrix(shape, args.kernel_size, stride=args.stride, padding=args.padding,
                              ceil_mode=args.ceil_mode, count_include_pad=not args.exclude_pad,
                              divisor_override=args.divisor_override, ndim=len(shape) - 1, format="operator")


# -- rnn (zhu2025 App. A.2) ------------------------------------------------------------------------
@family("rnn", "zhu2025 unrolled linear RNN matrix W_RNN (h_t = U x_t + V h_(t-1)), random U, V")
class _Rnn:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-size", type=positive, required=True, help="N (size of x_t)")
        p.add_argument("--hidden-size", type=positive, required=True, help="M (size of h_t)")
        p.add_argument("--steps", type=positive, required=True, help="T (sequence length)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.rnn import rnn_matrix

        M, N = args.hidden_size, args.input_size
        U = rng.standard_normal((M, N)) / np.sqrt(N)
        V = rng.standard_normal((M, M)) / np.sqrt(M)
        return rnn_matrix(U, V, args.steps, format="operator")


# -- attention (zhu2025 §4.2.4) --------------------------------------------------------------------
@family("attention", "zhu2025 linear self-attention matrix (vec Z = W (x kron x kron x)), random Wq, Wk, Wv")
class _Attention:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tokens", type=positive, required=True, help="T (sequence length)")
        p.add_argument("--dim", type=positive, required=True, help="d (token dimension)")
        p.add_argument("--dim-k", type=positive, default=None, help="d_k (default d)")
        p.add_argument("--dim-v", type=positive, default=None, help="d_v (default d)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.attention import linear_attention_matrix

        d, dk, dv = args.dim, args.dim_k or args.dim, args.dim_v or args.dim
        return linear_attention_matrix(args.tokens, rng.standard_normal((d, dk)), rng.standard_normal((d, dk)),
                                       rng.standard_normal((d, dv)), format="operator")


# -- stp, dk_stp (cheng2025 Def. 2.5, Def. 2.4) ----------------------------------------------------
def _stp_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--a-shape", type=int_list, required=True, help="ROWS,COLS of the random A")
    p.add_argument("--b-shape", type=int_list, required=True, help="ROWS,COLS of the random B")


def _stp_operands(args: argparse.Namespace, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    for opt, s in (("--a-shape", args.a_shape), ("--b-shape", args.b_shape)):
        if len(s) != 2 or min(s) < 1:
            raise ValueError(f"{opt} must be ROWS,COLS with positive sizes, got {','.join(map(str, s))}")
    return rng.standard_normal(args.a_shape), rng.standard_normal(args.b_shape)


@family("stp", "cheng2025 left semi-tensor product A |x B of random A, B (Def. 2.5, eq. 12)")
class _Stp:
    options = staticmethod(_stp_options)

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.stp import stp

        return stp(*_stp_operands(args, rng))


@family("dk_stp", "cheng2025 dimension-keeping STP of random A, B (Def. 2.4, with the bridge matrix)")
class _DkStp:
    options = staticmethod(_stp_options)

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.stp import dk_stp

        return dk_stp(*_stp_operands(args, rng))


# -- matrix_layer (do2017 eqs. 2-3) ----------------------------------------------------------------
@family("matrix_layer", "do2017 matrix layer vec(U^T P V + B) = W vec(P) + vec(B), random U, V, B")
class _MatrixLayer:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--in-shape", type=int_list, required=True, help="m,n of the input P")
        p.add_argument("--out-shape", type=int_list, required=True, help="p,q of the output Y")
        p.add_argument("--order", choices=["C", "F"], default="C", help="vec order (default C, row-major)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.matrix_layer import matrix_layer

        for opt, s in (("--in-shape", args.in_shape), ("--out-shape", args.out_shape)):
            if len(s) != 2:
                raise ValueError(f"{opt} must be ROWS,COLS, got {','.join(map(str, s))}")
        (m, n), (p, q) = args.in_shape, args.out_shape
        U, V = rng.standard_normal((m, p)), rng.standard_normal((n, q))
        return matrix_layer(U, V, order=args.order, format="operator").weight


# -- graph (do2017 §3, app. B) ---------------------------------------------------------------------
_GRAPH_OPERATORS = ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency", "laplacian")


def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1], got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1], got {text!r}")
    return v


@family("graph", "do2017 graph operators of a random G(n, p) graph (adjacency, normalizations, Laplacian)")
class _Graph:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--nodes", type=positive, required=True, help="number of nodes")
        p.add_argument("--p", type=_probability, default=0.1, help="edge probability (default 0.1)")
        p.add_argument("--operator", choices=_GRAPH_OPERATORS, default="adjacency")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        import networkx as nx

        from .algebra import graph

        G = nx.gnp_random_graph(args.nodes, args.p, seed=int(rng.integers(2**31)))
        G.add_edges_from((i, i + 1) for i in range(args.nodes - 1))  # a path keeps every node connected
        return getattr(graph, args.operator)(G, format="operator")


# -- ndlinear (reneau2025 Alg. 1) ------------------------------------------------------------------
@family("ndlinear", "reneau2025 NdLinear layer as one Kronecker operator, random factor weights")
class _NdLinear:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-dims", type=int_list, required=True, help="D1,...,DN")
        p.add_argument("--hidden-dims", type=int_list, required=True, help="H1,...,HN (same count)")
        p.add_argument("--order", choices=["outer", "inner"], default="outer",
                       help="which mode is applied first (see isomat.algebra.ndlinear)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.ndlinear import ndlinear_matrix

        if len(args.input_dims) != len(args.hidden_dims):
            raise ValueError(f"--hidden-dims needs {len(args.input_dims)} values (one per input dim), "
                             f"got {len(args.hidden_dims)}")
        weights = [rng.standard_normal((h, d)) / np.sqrt(d) for d, h in zip(args.input_dims, args.hidden_dims)]
        return ndlinear_matrix(weights, order=args.order, format="operator")[0]


# -- spm (farag2025 eq. 1) -------------------------------------------------------------------------
@family("spm", "farag2025 stagewise pairwise mixer: the layer's n x n matrix (random rotations)")
class _Spm:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--n", type=positive, required=True, help="dimension")
        p.add_argument("--stages", type=positive, default=None, help="L (default ceil(log2 n))")
        p.add_argument("--variant", choices=["rotation", "general"], default="rotation")
        p.add_argument("--schedule", choices=["butterfly", "random"], default="butterfly")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.spm import layer_matrix, random_spm

        layer = random_spm(args.n, args.stages, variant=args.variant, schedule=args.schedule,
                           seed=int(rng.integers(2**31)))
        return layer_matrix(layer, format="csr")


# -- hyper (cheng2025 eqs. 76-82) ------------------------------------------------------------------
@family("hyper", "cheng2025 diamond product X -> A <> X on hypervector addition forms, random s x s A")
class _Hyper:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dims", type=int_list, required=True, help="n_1,...,n_s (dimensions of the components)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.hyper import diamond_matrix

        s = len(args.dims)
        return diamond_matrix(rng.standard_normal((s, s)), args.dims, format="operator")


# -- logic (cheng2025 §2, logical matrices) --------------------------------------------------------
@family("logic", "cheng2025 logical matrix delta_k[i_1, ..., i_r] (column j is delta_k^(i_j))")
class _Logic:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--indices", type=int_list, default=None, help="i_1,...,i_r in 1..k (default: random, r = k)")
        p.add_argument("--k", type=positive, required=True, help="number of logical values")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from .algebra.logic import logical_matrix

        idx = args.indices if args.indices is not None else tuple(int(i) for i in rng.integers(1, args.k + 1, args.k))
        return logical_matrix(list(idx), args.k, format="operator")


#: the library API of this module (the CLI's family registry and argument parsers are not part of it)
__all__ = ["FORMATS", "from_dlpack", "from_jax_bcoo", "from_torch", "load_torch", "read", "read_matrix_market",
           "read_metadata", "read_npz", "save_torch", "to_dlpack", "to_jax_bcoo", "to_matrix_market", "to_npz", "to_scipy", "to_torch",
           "write"]
