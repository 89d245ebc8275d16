"""What every format of :mod:`isomat.export` shares: the conversion to SciPy, the checks of a
target path, the atomic write, the reading guard, the metadata text, the bias vector and the
row-major / column-major renumbering.

Each format module (``_npz``, ``_mtx``, ``_mat``, ``_pt``, ``_jax``) builds on this one and on
:mod:`isomat.export._checks` (the validation of untrusted files); none imports another format's
module except where a format is stored inside another (a JAX BCOO file is an ``.npz``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ..gpu import is_cupy_array, is_cupy_sparse, to_cpu

#: file suffix of each format of :func:`write` (``jax``: a BCOO matrix's arrays in an ``.npz``)
#: file suffix of each format of :func:`write` (``jax``: a BCOO matrix's arrays in an ``.npz``)
SUFFIXES = {"mtx": ".mtx", "npz": ".npz", "pt": ".pt", "mat": ".mat", "jax": ".npz"}
#: where every format keeps the affine map ``y = W x + b`` (docs/guide/export.md, "One layout"): the
#: matrix's name (a ``.mat`` variable, a ``.pt`` dict key) and the bias's (an ``.npz`` member, a ``.mat``
#: variable, a ``.pt`` dict key, a key of the ``.mtx`` metadata)
W_NAME, B_NAME = "W", "b"
#: the bias's names in isomat 0.2.0's files, still read (npz member, pt key, mtx metadata key)
OLD_BIAS_NAMES = {"npz": "isomat_bias", "pt": "bias", "mtx": "bias_values"}


FORMATS = tuple(SUFFIXES)


# ---------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------
def to_scipy(A: Any, format: str = "csr") -> sp.sparray:
    """A float ``scipy.sparse`` array (``csr``, ``csc`` or ``coo``) with duplicates summed.

    Values keep their float or complex dtype (a float32 model stays float32); bools and integers
    become float64, exact SymPy values are rounded to float64.

    Parameters
    ----------
    A : SparseOperator, scipy/cupyx sparse, NumPy/CuPy array or SymPy matrix
        A 2-d operator.
    format : {"csr", "csc", "coo"}
    """
    import sympy

    from ..algebra._operator import SparseOperator

    if not isinstance(format, str) or format not in ("csr", "csc", "coo"):
        raise ValueError(f"format must be 'csr', 'csc' or 'coo', got {format!r}")
    if isinstance(A, SparseOperator):
        return A.to_scipy(format)
    if is_cupy_sparse(A) or is_cupy_array(A):
        A = to_cpu(A)
    if isinstance(A, sympy.MatrixBase):
        from ..algebra._operator import as_operator

        return as_operator(A).to_scipy(format)
    if sp.issparse(A):
        if A.format == format and A.dtype.kind in "fc" and getattr(A, "has_canonical_format", False) and A.ndim == 2:
            # already what is asked for: share its arrays (a copy of a large matrix is what makes a write
            # hold twice the matrix); canonical, so nothing below would change them
            return {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array}[format](A, copy=False)
        out = sp.coo_array(A)
        if out.dtype.kind not in "fc":
            out = out.astype(np.float64)
        out.sum_duplicates()
        return out.asformat(format)
    if isinstance(A, (np.ndarray, list, tuple)):
        arr = np.asarray(A)
        if arr.ndim != 2:
            raise ValueError(f"A must be a matrix (2-d), got an array of shape {arr.shape}")
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"A must be numeric, got dtype {arr.dtype}")
        # float32 and complex64 stay as they are (a model's dtype is kept); bools and integers become float64
        return sp.coo_array(arr if arr.dtype.kind in "fc" else arr.astype(np.float64)).asformat(format)
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
    ``check``, fsync, then rename onto ``p`` (:func:`isomat.export._atomic.write_atomic`): a failure leaves
    no partial file and never reports a path that was not written (SciPy's ``mmwrite`` silently
    writes nothing into a missing directory)."""
    from ._atomic import write_atomic

    _validate.boolean("overwrite", overwrite)
    return write_atomic(p, write, check, overwrite=overwrite, what="path", exists_hint=_EXISTS)


def _umask() -> int:
    from ._atomic import umask

    return umask()


def _zip_ok(t: Path) -> None:
    import zipfile

    if not zipfile.is_zipfile(t):  # .npz and torch's .pt are zip archives
        raise OSError(f"{str(t)!r} is not a readable zip archive")


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


def _metadata_json(metadata: dict[str, Any]) -> str:
    if not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    try:
        return json.dumps(metadata, sort_keys=True, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"metadata must be JSON-serializable: {exc}") from None


def flatten_permutation(shape: Any) -> np.ndarray:
    """``perm[i]``: the column-major (Fortran, MATLAB ``x(:)``) position of the entry at row-major
    position ``i`` of a tensor of ``shape``."""
    shape = _validate.shape("shape", shape)
    from ..algebra._operator import check_bytes

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
    # (``jax`` needs no JAX to write: its members are plain arrays; only load_jax_bcoo needs JAX)
    _check_target(p, _validate.boolean("overwrite", overwrite))
    return p, fmt


def _bias_of(bias: Any, M: Any) -> np.ndarray:
    """``bias`` as a 1-d float array with one value per row of ``M`` (refused by name otherwise)."""
    from ..algebra._backend import to_numpy

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
    # the bias takes the matrix's dtype (one layout: W and b of one precision), complex only where one is
    base = M.dtype if M.dtype.kind in "fc" else np.dtype(np.float64)
    kind = np.result_type(base, np.complex64) if b.dtype.kind == "c" and base.kind == "f" else base
    return np.ascontiguousarray(b, dtype=kind)


def _split_bias(A: Any) -> tuple[Any, Any]:
    """``(W, b)`` of an affine map given as a pair, or ``(A, None)``."""
    if isinstance(A, tuple):
        if len(A) != 2:
            raise TypeError(f"A must be an operator or an affine pair (W, b), got a tuple of {len(A)} items")
        return A
    return A, None
