"""DLPack: a dense matrix handed to any framework that speaks ``__dlpack__``, and taken back."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from .._types import FieldArray
from ..gpu import is_cupy_array, is_cupy_sparse
from ._base import to_scipy

def to_dlpack(A: Any) -> FieldArray:
    """The dense matrix as an array exporting the DLPack protocol (``__dlpack__``).

    A NumPy array for host data, a CuPy array (device memory, no copy to the host) for the
    cupy field; consume it with ``torch.from_dlpack``, ``numpy.from_dlpack``,
    ``jax.dlpack.from_dlpack`` or :func:`from_dlpack`. Dense: meant for matrices that fit.
    """
    import sympy

    from ..algebra._operator import SparseOperator, check_bytes, check_size

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

    from ..gpu import require_cupy

    cupy = require_cupy()
    on_device = cupy.from_dlpack(x) if not is_cupy_array(x) else x
    if device == "host":
        return importlib.import_module("cupy").asnumpy(on_device)
    return on_device
