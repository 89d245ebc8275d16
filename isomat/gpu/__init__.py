"""CuPy glue: finding a usable device, and moving arrays and operators on and off it.

Layering: this package sits *below* the algebra core. It imports nothing from
:mod:`isomat.algebra` (``tests/test_gpu_layering.py`` checks it, by reading the source and by
importing it in a fresh interpreter), and the algebra core reaches the device only through it
(:func:`require_cupy`, :func:`cupy_sparse`, :func:`is_cupy_array`). Objects that know their own
field -- a :class:`~isomat.algebra.SparseOperator`, a :class:`~isomat.algebra.DiagonalBlocks` --
move themselves with their ``to_field(field)`` method; :func:`to_gpu` and :func:`to_cpu` call it
and handle plain arrays, SciPy sparse and SymPy matrices here.

``import cupy`` succeeding proves nothing: a usable device is one where allocating
``cupy.zeros(1)`` works. Everything here imports CuPy lazily (through :mod:`importlib`, so a
module placed in ``sys.modules`` is honoured), so isomat imports and runs on machines without it.

The reason string of :func:`gpu_status` says what is missing: ``"no cupy: ..."`` (not installed,
or its import fails), a CuPy older than :data:`MIN_CUPY`, ``"... no usable CUDA driver: ..."``
(the driver is missing or too old), ``"... no usable CUDA device: ..."`` (no device, or it cannot
allocate), or the library that fails real work: NVRTC (a compiled elementwise kernel), cuSPARSE (a
CSR product) or cuBLAS (a dense product).

Sparse types: one per field, and how they differ
------------------------------------------------
The CPU field (``backend="numpy"``) returns ``scipy.sparse`` *arrays* (``csr_array``,
``csc_array``, ``coo_array``); the GPU field (``backend="cupy"``, and :func:`to_gpu`) returns
``cupyx.scipy.sparse`` *matrices* (``csr_matrix``, ``csc_matrix``, ``coo_matrix``). CuPy 14.1, the
oldest CuPy isomat supports (:data:`MIN_CUPY`), has no sparse array classes; CuPy 14.2 added
``cupyx.scipy.sparse.csr_array`` and its siblings, and the GPU field can move to them once isomat
requires 14.2. Until then these operations differ between the fields (``A`` sparse, ``x`` dense):

* ``A * x`` -- GPU: the matrix-vector product (``A @ x``); CPU: the broadcast elementwise product.
* ``A * B`` (both sparse) -- GPU: the matrix product; CPU: the elementwise (Hadamard) product.
* ``x * A`` (dense on the left) -- GPU: ``x @ A``; CPU: elementwise.
* ``A ** 2`` -- GPU: the matrix power ``A @ A``; CPU: elementwise square.
* ``A.sum(axis=1)`` / ``A.sum(axis=0)`` -- GPU: a 2-d ``cupy.ndarray`` of shape ``(m, 1)`` /
  ``(1, n)`` (CuPy has no ``numpy.matrix``); CPU: 1-d, ``(m,)`` / ``(n,)``. ``sum()`` is 0-d in both.
* ``A.A`` -- GPU: ``toarray()`` with a DeprecationWarning; CPU: no such attribute.
* ``A.get()`` -- GPU: a host ``scipy.sparse`` *matrix* (``csr_matrix``); CPU: no such method.
  :func:`to_cpu` gives the ``*_array`` of the CPU field instead.

The same in both: ``A @ x`` and ``A @ B`` (the product; a scalar operand of ``@`` is a
ValueError), ``A * 2.0`` (scaling), ``A.multiply(B)`` (elementwise), ``A.T`` (``csr`` becomes
``csc``, same kind), ``A.toarray()`` (a 2-d dense array of the field). Code meant for both fields
writes ``@``, ``.multiply()``, ``.toarray()`` and ``.ravel()`` on sums; ``tests/test_gpu_sparse_types.py``
checks each line above through the CuPy stand-in, and ``docs/gpu.md`` has the same table.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # for annotations only: this package imports neither CuPy nor the algebra core
    import cupy
    import cupyx.scipy.sparse
    import numpy as np
    import scipy.sparse as sp


_T = TypeVar("_T")


class FieldObject(Protocol):
    """What moves itself between fields -- a SparseOperator, a DiagonalBlocks (named by shape, not
    imported: this package sits below the algebra core)."""

    field: str

    def to_field(self, field: str) -> "FieldObject": ...

_status: tuple[bool, str] | None = None

_DRIVER_WORDS = ("driver", "libcuda", "cuda_error_not_initialized", "cudaerrorinsufficientdriver")


def _probe() -> tuple[bool, str]:
    try:
        cupy = importlib.import_module("cupy")
        importlib.import_module("cupyx.scipy.sparse")
    except ModuleNotFoundError as exc:
        if exc.name in ("cupy", "cupyx", "cupyx.scipy", "cupyx.scipy.sparse"):
            return False, f"no cupy: {type(exc).__name__}: {exc}"
        return False, f"no cupy (its import fails, missing {exc.name}; no CUDA driver or toolkit?): {exc}"
    except (ImportError, RuntimeError) as exc:
        what = "no usable CUDA driver" if _mentions_driver(exc) else "cupy does not import"
        return False, f"no cupy ({what}): {type(exc).__name__}: {exc}"
    version = getattr(cupy, "__version__", "0")
    if _version_tuple(version) < MIN_CUPY:
        # before 14.1 cupy.repeat refuses device repeats and cupyx sparse matrices cast int64 indices to
        # int32 (a matrix with an extent >= 2**31 would be silently corrupted)
        return False, (f"cupy {version} is older than the {'.'.join(map(str, MIN_CUPY))} isomat needs "
                       f"(pip install 'isomat[gpu]' or 'isomat[gpu-cuda13]')")
    try:
        cupy.zeros(1)
    except Exception as exc:  # CUDARuntimeError, CUDADriverError, RuntimeError...
        what = "driver" if _mentions_driver(exc) else "device"
        return False, f"cupy imports but no usable CUDA {what}: {type(exc).__name__}: {exc}"
    # cupy.zeros is a memset: it succeeds without NVRTC, cuSPARSE or cuBLAS. Do real work with each.
    try:
        twice = cupy.ElementwiseKernel("float64 x", "float64 y", "y = 2 * x", "isomat_probe_twice")
        if float(twice(cupy.arange(4, dtype=cupy.float64)).sum()) != 12.0:
            return False, "cupy runs but a compiled kernel computed a wrong value"
    except Exception as exc:  # noqa: BLE001 - any failure here means the kernel path is unusable
        return False, f"cupy cannot compile and run a kernel (NVRTC missing or broken?): {type(exc).__name__}: {exc}"
    try:
        sparse = importlib.import_module("cupyx.scipy.sparse")
        A = sparse.csr_matrix((cupy.asarray([1.0, 2.0]), cupy.asarray([0, 1]), cupy.asarray([0, 1, 2])), shape=(2, 2))
        if float((A @ cupy.ones(2)).sum()) != 3.0:
            return False, "cuSPARSE ran but its product was wrong"
    except Exception as exc:  # noqa: BLE001
        return False, f"cupy cannot run a sparse product (cuSPARSE missing or broken?): {type(exc).__name__}: {exc}"
    try:
        if float((cupy.ones((2, 2)) @ cupy.ones(2)).sum()) != 4.0:
            return False, "cuBLAS ran but its product was wrong"
    except Exception as exc:  # noqa: BLE001
        return False, f"cupy cannot run a dense product (cuBLAS missing or broken?): {type(exc).__name__}: {exc}"
    return True, f"usable CUDA device (cupy {version}: kernels, cuSPARSE and cuBLAS ran)"


#: the oldest CuPy isomat supports (device ``repeats`` in ``cupy.repeat``; int64 sparse indices kept)
MIN_CUPY = (14, 1)


def _version_tuple(version: str) -> tuple[int, ...]:
    import re

    parts = re.findall(r"\d+", str(version).split("+")[0])[:2]
    return tuple(int(p) for p in parts) if parts else (0,)


def _mentions_driver(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return any(w in text for w in _DRIVER_WORDS)


def gpu_status(*, refresh: bool = False) -> tuple[bool, str]:
    """``(usable, reason)``: whether CuPy can allocate on a device, and why not.

    Parameters
    ----------
    refresh : bool
        Probe again instead of returning the cached answer.
    """
    global _status
    if _status is None or refresh:
        _status = _probe()
    return _status


def gpu_available() -> bool:
    """True when CuPy imports and ``cupy.zeros(1)`` succeeds."""
    return gpu_status()[0]


_device_uses = [0]
_device_reuses = [0]
_RAW_KERNEL_SOURCES: dict[str, str] = {}


def register_raw_kernel_source(name: str, source: str) -> None:
    """Declare the CUDA source of a RawKernel isomat compiles (``name`` its ``extern "C"`` kernel).
    Modules register their sources when imported, so ``tests/test_nvrtc.py`` compiles every one of
    them with the real NVRTC on a machine without a GPU."""
    if _RAW_KERNEL_SOURCES.get(name, source) != source:
        raise ValueError(f"two different RawKernel sources are registered under the name {name!r}")
    _RAW_KERNEL_SOURCES[name] = source


def raw_kernel_sources() -> dict[str, str]:
    """``{kernel name: CUDA source}`` of every RawKernel registered so far (import
    :mod:`isomat.algebra` first to have them all)."""
    return dict(_RAW_KERNEL_SOURCES)


def note_device_reuse() -> None:
    """A cached result that was computed on the device was used again (see
    :func:`isomat.proofs.engine.device_cached`): the ledger runner counts the claim whose check
    rests on it as using the device, apart from the claims that ran device work themselves."""
    _device_reuses[0] += 1


def device_reuses() -> int:
    """How many times a cached device result was used again (:func:`note_device_reuse`)."""
    return _device_reuses[0]


def device_uses() -> int:
    """How many times isomat has reached for the device (:func:`require_cupy` answered, and through
    it :func:`cupy_sparse`, :func:`to_gpu` and every cupy-field construction): the ledger runner
    compares it before and after a claim to say which claims used the device."""
    return _device_uses[0]


def require_cupy() -> ModuleType:
    """Return the ``cupy`` module, or raise RuntimeError saying why it is unusable."""
    ok, reason = gpu_status()
    if not ok:
        raise RuntimeError(f"backend='cupy' needs a usable GPU: {reason}")
    _device_uses[0] += 1
    return importlib.import_module("cupy")


def cupy_sparse() -> ModuleType:
    """Return ``cupyx.scipy.sparse`` (after checking the device)."""
    require_cupy()
    return importlib.import_module("cupyx.scipy.sparse")


def is_cupy_array(x: Any) -> bool:
    """True for CuPy arrays and ``cupyx.scipy.sparse`` matrices (by their type's module)."""
    mod = type(x).__module__
    return mod.startswith("cupy") or mod.startswith("cupyx")


def is_cupy_sparse(x: Any) -> bool:
    """True for a ``cupyx.scipy.sparse`` matrix."""
    return type(x).__module__.startswith("cupyx") and hasattr(x, "tocoo") and hasattr(x, "nnz")


def device_info() -> dict[str, Any]:
    """Name, memory and theoretical memory bandwidth of device 0 (``{"usable": False, ...}``
    with the reason when there is none)."""
    ok, reason = gpu_status()
    if not ok:
        return {"usable": False, "reason": reason}
    cp = require_cupy()
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props.get("name", b"?")
    info: dict[str, Any] = {"usable": True, "name": name.decode() if isinstance(name, bytes) else str(name),
                            "total_memory_bytes": int(props.get("totalGlobalMem", 0))}
    clock_khz, bus_bits = props.get("memoryClockRate"), props.get("memoryBusWidth")
    if clock_khz and bus_bits:  # double data rate: two transfers per clock
        info["peak_bandwidth_bytes_per_s"] = 2.0 * float(clock_khz) * 1e3 * float(bus_bits) / 8.0
    info["cupy"] = getattr(cp, "__version__", "?")
    return info


def to_gpu(x: Any, *, format: str | None = None
           ) -> cupy.ndarray | cupyx.scipy.sparse.spmatrix | FieldObject:
    """Move an array, a sparse matrix or an operator onto the device.

    Parameters
    ----------
    x : numpy.ndarray, scipy.sparse array/matrix, SparseOperator, sympy.Matrix, or CuPy data
        NumPy arrays become CuPy arrays; SciPy sparse becomes ``cupyx.scipy.sparse`` in the same
        format (``coo``, ``csr``, ``csc``; others as ``csr``) unless ``format`` is given; a
        :class:`~isomat.algebra.SparseOperator` is re-expressed in the ``cupy`` field (its
        pattern and values become device arrays; any object with ``field`` and ``to_field``,
        such as :class:`~isomat.algebra.DiagonalBlocks`, moves itself); a SymPy matrix becomes a float CuPy array.
        CuPy data is returned as is.
    format : {"coo", "csr", "csc"}, optional
        Sparse format of the result for sparse input.

    Returns
    -------
    CuPy array, ``cupyx.scipy.sparse`` matrix, or SparseOperator (DiagonalBlocks) in the ``cupy`` field.
    """
    import numpy as np
    import scipy.sparse as sp
    import sympy

    if format is not None and format not in ("coo", "csr", "csc"):
        raise ValueError(f"format must be 'coo', 'csr' or 'csc', got {format!r}")
    if _knows_its_field(x):  # SparseOperator, DiagonalBlocks: the algebra side moves its own types
        return x.to_field("cupy")
    if is_cupy_array(x):
        return x.asformat(format) if (format and is_cupy_sparse(x)) else x
    cp = require_cupy()
    if sp.issparse(x):
        cpx = cupy_sparse()
        fmt = format or (x.format if x.format in ("coo", "csr", "csc") else "csr")
        host = x.asformat(fmt)
        if host.dtype.kind not in "fc":
            host = host.astype(np.float64)
        cls = {"coo": cpx.coo_matrix, "csr": cpx.csr_matrix, "csc": cpx.csc_matrix}[fmt]
        return cls(host)
    if isinstance(x, sympy.MatrixBase):
        return cp.asarray(_sympy_to_float(x))
    if isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex)):
        return cp.asarray(x)
    raise TypeError(f"to_gpu: cannot move a {type(x).__name__} to the device; expected a NumPy array, "
                    "SciPy sparse matrix, SymPy matrix or SparseOperator")


def to_cpu(x: _T) -> _T | np.ndarray | sp.sparray:
    """Bring device data back: the inverse of :func:`to_gpu`.

    CuPy arrays become NumPy arrays, ``cupyx.scipy.sparse`` matrices become ``scipy.sparse``
    arrays (``coo_array``/``csr_array``/``csc_array``) of the same format, a SparseOperator in
    the ``cupy`` field moves to the ``numpy`` field. Host data is returned as is.
    """
    import scipy.sparse as sp

    if _knows_its_field(x):
        return x.to_field("numpy") if x.field == "cupy" else x  # type: ignore[attr-defined]
    if is_cupy_sparse(x):
        host = x.get()  # type: ignore[attr-defined]
        return {"coo": sp.coo_array, "csr": sp.csr_array, "csc": sp.csc_array}[host.format](host)
    if is_cupy_array(x):
        return x.get()  # type: ignore[attr-defined]
    return x


def _knows_its_field(x: Any) -> bool:
    """An isomat object that moves itself between fields (``field`` and ``to_field``), recognised
    without importing the algebra package that defines it."""
    return isinstance(getattr(x, "field", None), str) and callable(getattr(x, "to_field", None))


def _sympy_to_float(M: Any) -> np.ndarray:
    """A float (or complex) NumPy array of a numeric SymPy matrix; TypeError for symbols."""
    import numpy as np

    entries = M.tolist()
    try:
        cplx = any(v.is_real is False for row in entries for v in row)
        return np.array([[complex(v) if cplx else float(v) for v in row] for row in entries],
                        dtype=complex if cplx else float).reshape(M.shape)
    except TypeError:
        raise TypeError("x holds symbolic entries that have no float value; use the sympy backend") from None


__all__ = ["gpu_status", "gpu_available", "require_cupy", "cupy_sparse", "is_cupy_array", "is_cupy_sparse",
           "device_info", "to_gpu", "to_cpu"]
