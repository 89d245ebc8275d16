"""JAX: a ``jax.experimental.sparse.BCOO`` matrix, as an object or as its arrays in an ``.npz``.

The file (``--format jax``) holds plain NumPy arrays -- ``data``, ``indices`` (``(nnz, 2)``
row and column pairs), ``shape``, ``isomat_layout = "bcoo"`` -- so writing it needs no JAX;
only :func:`load_jax_bcoo` and :func:`to_jax_bcoo`, which make the JAX object, do. The index
pairs are generated in row chunks while they are written (never held whole).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ._base import B_NAME, _bias_of, _check_target, _metadata_json, _path, _Reading, _write_atomic, _zip_ok, to_scipy
from ._checks import _index, check_alloc, coo, fail, shape2, values
from ._chunks import row_indices, row_ranges
from ._npz import Npz, _write_npz

if TYPE_CHECKING:  # optional dependency, named for annotations only
    import jax.experimental.sparse

def to_jax_npz(A: Any, path: Any, *, metadata: dict[str, Any] | None = None, compressed: bool = True,
               overwrite: bool = True, bias: Any = None) -> Path:
    """Write ``A`` as the arrays of a JAX ``BCOO`` matrix in an ``.npz``; returns the path.

    The archive holds ``data`` (the values, as stored), ``indices`` (``(nnz, 2)`` (row, column)
    pairs, int32 where they fit, as JAX indexes), ``shape``, ``isomat_layout = "bcoo"``, the
    metadata and a bias as ``b``. :func:`load_jax_bcoo` makes the ``BCOO`` (``BCOO((data, indices), shape=shape)`` by
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
        arrays[B_NAME] = _bias_of(bias, M)
    return _write_atomic(p, lambda t: _write_npz(t, arrays, compressed), _zip_ok, overwrite)


def load_jax_bcoo(path: Any, dtype: Any = None) -> jax.experimental.sparse.BCOO:
    """The ``jax.experimental.sparse.BCOO`` matrix of a file written by :func:`to_jax_npz`.

    As :func:`to_jax_bcoo`: 64-bit values need ``jax_enable_x64``, or ``dtype=np.float32`` to
    load them rounded."""
    p = _path(path, ".npz")
    if dtype is not None:
        dtype = _validate.dtype("dtype", dtype, kinds="fc")
    with _Reading(p, "a BCOO .npz archive"):
        data, idx, shape = read_bcoo_arrays(p)  # sizes, dtypes, shape and index bounds checked
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
    from ..algebra._backend import index_dtype

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
    shape = shape2("M", np.asarray(tuple(M.shape), dtype=np.int64))
    return coo("M", shape, data, idx[:, 0], idx[:, 1])  # indices checked before SciPy sees them


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
