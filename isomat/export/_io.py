"""Any format by its suffix: :func:`write`, :func:`read`, :func:`read_metadata`, :func:`read_bias`.

:func:`write` records what a file holds (the flattening order, the tensor shapes, the dtype, the
convention, isomat's version) whatever the caller passed, and hands the matrix to the format's
own writer; the readers pick the format's validating reader from the suffix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ._base import (B_NAME, _bias_of, _metadata_json, _order_maps, _Reading, _split_bias, column_major, to_scipy,
                    write_target)
from ._checks import metadata_json
from ._jax import to_jax_npz
from ._mat import mat_bias, mat_metadata_text, read_mat, to_mat
from ._mtx import (_MTX_TAG, as_recorded, mtx_bias, mtx_bias_values, mtx_metadata_text, read_matrix_market,
                   to_matrix_market)
from ._npz import npz_bias, npz_metadata_text, read_npz, to_npz
from ._pt import load_torch, pt_bias, pt_metadata, save_torch, torch_matrix


def _file(path: Any) -> Path:
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    p = Path(path)
    if p.suffix not in (".mtx", ".npz", ".pt", ".mat"):
        raise ValueError(f"path must end in .mtx, .npz, .pt or .mat, got {str(p)!r}")
    return p


def read_metadata(path: Any) -> dict[str, Any]:
    """The metadata :func:`write` stored with a matrix (``.mtx`` comment, ``.npz`` array, ``.pt`` dict,
    ``.mat`` JSON text); ``{}`` when the file has none. Metadata that is not a JSON object (a crafted
    file) is refused by name, as is a file the format's reader cannot parse."""
    p = _file(path)
    if p.suffix == ".pt":  # loaded (and checked) as read() loads it
        return pt_metadata(p)
    with _Reading(p, f"a {p.suffix} file with isomat metadata"):
        text = {".mtx": mtx_metadata_text, ".npz": npz_metadata_text, ".mat": mat_metadata_text}[p.suffix](p)
        return {} if text is None else metadata_json(p, text)


def read_bias(path: Any) -> np.ndarray | None:
    """The bias ``b`` written with a matrix by ``write((W, b), path)`` (``None`` when the file has none).

    It is in the file's row order: with ``order="F"`` the bias was permuted with the rows. Files of
    isomat 0.2.0, which named the bias otherwise (``isomat_bias``, ``"bias"``, ``bias_values``), are
    read too (docs/guide/export.md, "One layout")."""
    p = _file(path)
    if p.suffix == ".npz":
        return npz_bias(p)
    if p.suffix == ".pt":
        return pt_bias(p)
    if p.suffix == ".mat":
        return mat_bias(p)
    return mtx_bias(p, read_metadata(p))


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
        With a pair, the bias ``b`` (one value per row, in ``W``'s dtype) is written too, named
        ``b`` in every format -- an ``npz``/``jax`` member, a key of the torch dict ``{"W", "b",
        "metadata"}``, the ``.mat`` column, a key of the ``.mtx`` metadata -- and the metadata's
        ``convention`` says ``y = W x + b`` (docs/guide/export.md, "One layout");
        :func:`read_bias` reads it back.
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
        Converts the values first (the indices are shared, not copied). Default: the matrix's own
        dtype (a float32 model stays float32), except in ``.mat``, whose sparse matrices hold
        double values only: float32 is widened (exactly) to float64 there.
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
    elif fmt == "mat" and M.dtype in (np.float32, np.complex64):  # MATLAB's sparse is double: widened exactly
        M = sp.csr_array((M.data.astype(np.complex128 if M.dtype.kind == "c" else np.float64), M.indices, M.indptr),
                         shape=M.shape, copy=False)
        M.has_canonical_format = True
    _order_maps(M, "C", input_shape, output_shape)  # the shapes are checked whatever the order
    b = None if bias is None else _bias_of(bias, M)  # in W's dtype as written; complex only where one is
    flat = ("column-major (Fortran, MATLAB x(:)) flattening of input and output" if order == "F"
            else "row-major (C) flattening of input and output")
    from .. import __version__

    # what the file holds is recorded whatever the caller passed: the facts below are computed here, last
    metadata = {"isomat_version": __version__, "rows": "outputs", "columns": "inputs",
                **(metadata or {}), "convention": "y = W x + b" if b is not None else "y = W x",
                "shape": [int(M.shape[0]), int(M.shape[1])], "dtype": str(M.dtype),
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
        if b is not None:  # MatrixMarket holds one matrix: the bias goes into the metadata line, as "b"
            metadata[B_NAME] = mtx_bias_values(b)
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
    if p.suffix == ".mtx":  # in the dtype written (the text of a float32 file parses exactly in float32 only)
        return as_recorded(read_matrix_market(p), read_metadata(p))
    if p.suffix == ".npz":
        return read_npz(p)
    if p.suffix == ".pt":
        return torch_matrix(p, load_torch(p))
    if p.suffix == ".mat":
        return read_mat(p)
    raise ValueError(f"path must end in .mtx, .npz, .pt or .mat, got {str(p)!r}")
