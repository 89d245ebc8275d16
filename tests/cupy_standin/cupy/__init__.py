"""Stand-in ``cupy`` (test-only): a device-array type on top of NumPy; see ``tests/cupy_standin``.

Only the calls isomat's GPU field and its tests make are provided; each one exists with the same
name and meaning in CuPy (checked against the CuPy reference). Anything else is an
``AttributeError``, so the stand-in cannot hide a call that real CuPy lacks.
"""

from __future__ import annotations

import builtins
import sys
import types
from typing import Any

import numpy as _np

__version__ = "14.2.0"  # the CuPy release the stand-in imitates (isomat needs >= 14.1)
STANDIN = True

_ALLOWED_KINDS = "biufc"

# bytes copied host -> device (asarray/array of host data) and device -> host (get, tolist, item);
# tests reset and read these to check that a construction builds on the device
TRANSFERS = {"h2d_bytes": 0, "d2h_bytes": 0}

# out-of-bounds integer-array indices that were wrapped around (as CuPy does, where NumPy raises
# IndexError); a stand-in-only counter so that tests can show a GPU build never relies on them
INDEX_WRAPS = {"count": 0}


def reset_transfers() -> None:
    TRANSFERS["h2d_bytes"] = 0
    TRANSFERS["d2h_bytes"] = 0
    INDEX_WRAPS["count"] = 0


def _check_dtype(a: _np.ndarray) -> _np.ndarray:
    if a.dtype.kind not in _ALLOWED_KINDS:
        raise TypeError(f"Unsupported dtype {a.dtype} (the stand-in, like CuPy, has no object or string arrays)")
    return a


class MemoryPointer:
    """``cupy.cuda.MemoryPointer`` reduced to its address, ``ptr`` (an int)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = int(ptr)


class ndarray:  # noqa: N801 - CuPy's name
    """Device array stand-in: holds a NumPy array, reachable only through ``get()``."""

    __slots__ = ("_a",)
    __array_priority__ = 1000  # make NumPy defer binary operators to us (and fail)

    def __init__(self, shape: Any = None, dtype: Any = float, *, _a: _np.ndarray | None = None) -> None:
        if _a is None:
            _a = _np.empty(shape, dtype=dtype)
        self._a = _check_dtype(_a)

    # -- host transfer -------------------------------------------------------------------------
    def get(self, stream: Any = None, order: str = "C", out: Any = None) -> _np.ndarray:
        """Copy to the host (the only way out, as on a device)."""
        TRANSFERS["d2h_bytes"] += self._a.nbytes
        return _np.array(self._a, order=order, copy=True)

    def set(self, arr: _np.ndarray, stream: Any = None) -> None:
        self._a[...] = arr

    # -- DLPack: the data live on a (pretend) CUDA device --------------------------------------
    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)  # kDLCUDA, device 0 -- as a real CuPy array reports

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        # a host consumer (numpy.from_dlpack) cannot read device memory; real CuPy fails there too
        raise BufferError("the array lives on a CUDA device: a host DLPack consumer cannot read it")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        args = [_unwrap(x, strict=True) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o, strict=True) for o in kwargs["out"])
        return _wrap(getattr(ufunc, method)(*args, **kwargs))

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        impl = _FUNCTIONS.get(func.__name__)
        if impl is None:
            return NotImplemented
        return impl(*args, **kwargs)

    # -- attributes ----------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    T = property(lambda self: _wrap(self._a.T))
    real = property(lambda self: _wrap(self._a.real))
    imag = property(lambda self: _wrap(self._a.imag))
    flags = property(lambda self: self._a.flags)
    # cupy.cuda.MemoryPointer: its device address (`.ptr`), what alignment checks read
    data = property(lambda self: MemoryPointer(self._a.ctypes.data))

    def __getattr__(self, name: str) -> Any:
        if name not in _METHODS:
            raise AttributeError(f"'cupy.ndarray' stand-in has no attribute {name!r}")
        meth = getattr(self._a, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return _wrap(meth(*[_unwrap(a, strict=True) for a in args],
                              **{k: _unwrap(v, strict=True) for k, v in kwargs.items()}))

        return call

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None, copy: bool = True) -> "ndarray":
        return _wrap(self._a.astype(dtype, order=order, copy=copy))

    def item(self) -> Any:
        TRANSFERS["d2h_bytes"] += self._a.itemsize
        return self._a.item()

    def tolist(self) -> Any:
        TRANSFERS["d2h_bytes"] += self._a.nbytes
        return self._a.tolist()

    def __repr__(self) -> str:
        return "cupy-standin." + repr(self._a)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        for v in self._a:
            yield _wrap(_np.asarray(v))

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __getitem__(self, key: Any) -> "ndarray":
        return _wrap(_np.asarray(self._a[_unwrap_index(key, self._a.shape)]))

    def __setitem__(self, key: Any, value: Any) -> None:
        """CuPy 14.2's ``_scatter_op`` (``cupy/_core/_routines_indexing.pyx``): with only basic
        indices (ints, slices, ``...``, ``None``) a value that is not a device array goes through
        ``fill``, which takes scalars only -- a host ``numpy.ndarray`` or a list is a ValueError
        ("Refuse assignment from CPU arrays, see gh-2079"); with an integer or boolean index array,
        a host value is copied to the device (``core.array(value)``), counted here as a transfer."""
        if isinstance(value, ndarray):
            self._a[_unwrap_index(key, self._a.shape)] = value._a
            return
        if not _is_advanced(key):
            v = _np.asarray(value, dtype=self._a.dtype)
            if v.shape != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
            self._a[_unwrap_index(key, self._a.shape)] = v[()]
            return
        v = _np.asarray(value, dtype=self._a.dtype)
        if isinstance(value, (_np.ndarray, list, tuple)):
            TRANSFERS["h2d_bytes"] += v.nbytes
        self._a[_unwrap_index(key, self._a.shape)] = v

    # -- CuPy's own semantics where they differ from NumPy's -----------------------------------
    def take(self, indices: Any, axis: Any = None, out: Any = None) -> "ndarray":
        """``ndarray.take``: out-of-bounds indices wrap around (CuPy's ``cupy_take`` kernel computes
        ``indices % index_range``); there is no ``mode`` argument."""
        n = self._a.size if axis is None else self._a.shape[axis]
        idx = _wrap_indices(_unwrap(indices, strict=False), n)
        r = _np.take(self._a, idx, axis=axis)
        if out is not None:
            out._a[...] = r
            return out
        return _wrap(_np.asarray(r))

    def repeat(self, repeats: Any, axis: Any = None) -> "ndarray":
        return _repeat(self, repeats, axis)

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'cupy.ndarray'")


def _binop(name: str):
    def op(self: ndarray, other: Any) -> Any:
        if isinstance(other, _np.ndarray):
            raise TypeError(f"Unsupported type {type(other)} (a host array in a device operation)")
        if not isinstance(other, (ndarray, int, float, complex, bool, _np.generic)):
            return NotImplemented
        return _wrap(getattr(self._a, name)(_unwrap(other, strict=True)))

    op.__name__ = name
    return op


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
              "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "and", "rand", "or", "ror", "xor", "rxor",
              "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge",
              "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ior", "iand", "ixor"):
    setattr(ndarray, f"__{_name}__", _binop(f"__{_name}__"))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_name}__", (lambda n: lambda self: _wrap(getattr(self._a, n)()))(f"__{_name}__"))

_METHODS = frozenset("""
reshape ravel flatten copy sum prod max min argmax argmin any all mean cumsum argsort sort nonzero
transpose swapaxes clip conj conjugate dot fill squeeze view diagonal round
""".split())


def _unwrap(x: Any, *, strict: bool) -> Any:
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, _np.ndarray):
        if strict:
            raise TypeError(f"Unsupported type {type(x)} (a host numpy.ndarray passed to a device function)")
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v, strict=strict) for v in x)
    return x


def _is_advanced(key: Any) -> bool:
    """Whether an index holds an integer or boolean array (device, host or a list): CuPy's advanced
    indexing; ints, slices, ``...`` and ``None`` alone are basic."""
    parts = key if isinstance(key, tuple) else (key,)
    return builtins.any(isinstance(k, (ndarray, _np.ndarray, list)) for k in parts)


def _wrap_indices(idx: Any, n: int) -> Any:
    """CuPy's treatment of an integer index *array* on an axis of extent ``n``: wrapped around
    (``i % n``, as the ``cupy_take`` / scatter kernels compute), where NumPy raises IndexError.
    Python integers are left alone (CuPy bounds-checks a scalar index and raises IndexError)."""
    if isinstance(idx, list):
        idx = _np.asarray(idx)
    if not isinstance(idx, _np.ndarray) or idx.dtype.kind not in "iu" or n == 0:
        return idx
    if idx.size and bool(((idx < -n) | (idx >= n)).any()):
        INDEX_WRAPS["count"] += 1  # some index was out of bounds: NumPy would have raised IndexError
    return _np.mod(idx, n)


def _unwrap_index(key: Any, shape: tuple[int, ...] | None = None) -> Any:
    """Host form of an index; integer arrays (device, host or lists) wrap around per axis, as in
    CuPy's ``_prepare_multiple_array_indexing`` ("wrap all out-of-bound indices")."""
    parts = list(key) if isinstance(key, tuple) else [key]
    parts = [_unwrap(k, strict=False) for k in parts]
    if shape is None:
        return tuple(parts) if isinstance(key, tuple) else parts[0]

    def consumed(k: Any) -> int:
        if k is None:
            return 0
        if isinstance(k, _np.ndarray) and k.dtype == bool:
            return builtins.max(k.ndim, 1)
        return 1

    n_ell = builtins.sum(1 for k in parts if k is Ellipsis)  # (this module's own sum is cupy.sum)
    used = builtins.sum(consumed(k) for k in parts if k is not Ellipsis)
    axis = 0
    out = []
    for k in parts:
        if k is Ellipsis and n_ell == 1:
            axis += len(shape) - used
            out.append(k)
            continue
        if (isinstance(k, list) or (isinstance(k, _np.ndarray) and k.dtype.kind in "iu")) and axis < len(shape):
            arr = _np.asarray(k)
            if arr.dtype.kind in "iu":
                k = _wrap_indices(arr, shape[axis])
        out.append(k)
        axis += consumed(k)
    return tuple(out) if isinstance(key, tuple) else out[0]


def _wrap(x: Any) -> Any:
    if isinstance(x, _np.ndarray):
        return ndarray(_a=x)
    if isinstance(x, _np.generic):
        return ndarray(_a=_np.asarray(x))
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list) and x and all(isinstance(v, _np.ndarray) for v in x):
        return [_wrap(v) for v in x]
    return x


def _device_fn(name: str, *, host_ok: bool = False):
    npf = getattr(_np, name)

    def f(*args: Any, **kwargs: Any) -> Any:
        from_host = host_ok and bool(args) and not isinstance(args[0], ndarray)
        args = [_unwrap(a, strict=not host_ok) for a in args]
        kwargs = {k: _unwrap(v, strict=not host_ok) for k, v in kwargs.items()}
        out = _wrap(npf(*args, **kwargs))
        if from_host and isinstance(out, ndarray):
            TRANSFERS["h2d_bytes"] += out._a.nbytes
        return out

    f.__name__ = name
    f.__qualname__ = name
    return f


# functions that copy host data onto the device
_HOST_OK = ("array", "asarray", "ascontiguousarray")
# device functions (each exists in CuPy with NumPy's signature)
_DEVICE = """
zeros ones empty full zeros_like ones_like empty_like full_like arange linspace eye identity indices
meshgrid tile repeat broadcast_to concatenate stack hstack vstack column_stack where nonzero flatnonzero
argsort sort lexsort unique union1d searchsorted cumsum diff sum prod abs absolute sqrt exp log
maximum minimum clip floor_divide mod remainder ravel reshape transpose moveaxis swapaxes take
take_along_axis einsum matmul dot kron outer isclose allclose array_equal count_nonzero bincount isin
argmax argmin amax amin max min ravel_multi_index unravel_index roll flip pad real imag conj
logical_and logical_or logical_not equal any all mean floor ceil sign tensordot expand_dims squeeze
diag diagonal trace cumprod add subtract multiply divide true_divide negative power square copyto
sin cos tan tanh sinh cosh arcsin arccos arctan arctan2 exp2 expm1 log1p log2 log10 reciprocal hypot fmod
isfinite isnan isinf shape
""".split()

_FUNCTIONS: dict[str, Any] = {}
for _name in _HOST_OK:
    _FUNCTIONS[_name] = _device_fn(_name, host_ok=True)
for _name in _DEVICE:
    _FUNCTIONS[_name] = _device_fn(_name)


def _repeat(a: Any, repeats: Any, axis: Any = None) -> ndarray:
    """``cupy.repeat`` as CuPy >= 14.1 has it (``_routines_manipulation.pyx: _repeat``): ``repeats``
    may be an int, a sequence or a device array (safely castable to intp, at most 1-d); a host
    ``numpy.ndarray`` is refused with a TypeError; negative counts are a ValueError."""
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)} (cupy.repeat of a host array)")
    if isinstance(repeats, ndarray):
        reps = repeats._a
        if not _np.can_cast(reps.dtype, _np.intp, casting="safe"):
            raise TypeError(f"Cannot cast array data from dtype('{reps.dtype}') to dtype('{_np.dtype(_np.intp)}') "
                            "according to the rule 'safe'")
        if reps.ndim > 1:
            raise ValueError("object too deep for desired array")
        reps = reps.astype(_np.intp)
    elif isinstance(repeats, _np.ndarray):
        raise TypeError("'repeats' does not accept numpy.ndarray; convert with cupy.array() first")
    else:
        import operator

        try:
            reps = operator.index(repeats)
        except TypeError:
            if not isinstance(repeats, (list, tuple)):
                raise ValueError(f"'repeats' should be int or sequence: {repeats}") from None
            reps = _np.asarray(repeats, dtype=_np.intp)
            if reps.ndim > 1:
                raise ValueError("object too deep for desired array") from None
    src = a._a.ravel() if axis is None else a._a
    ax = 0 if axis is None else axis
    if isinstance(reps, _np.ndarray) and reps.size != 1:
        if reps.size != src.shape[ax]:
            raise ValueError(f"'repeats' and 'axis' of 'a' should be same length: {src.shape[ax]} != {reps.size}")
        if reps.size and reps.min() < 0:
            raise ValueError("all elements of 'repeats' should not be negative")
        return _wrap(_np.repeat(src, reps, axis=ax))
    rep = int(reps.reshape(-1)[0]) if isinstance(reps, _np.ndarray) else int(reps)
    if rep < 0:
        raise ValueError(f"'repeats' should not be negative: {rep}")
    return _wrap(_np.repeat(src, rep, axis=ax))


def _take(a: Any, indices: Any, axis: Any = None, out: Any = None) -> ndarray:
    """``cupy.take``: no ``mode``; out-of-bounds indices wrap around."""
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)} (cupy.take of a host array)")
    if isinstance(indices, _np.ndarray):
        raise TypeError("Unsupported type <class 'numpy.ndarray'> (host indices in a device function)")
    return a.take(indices, axis, out)


def _take_along_axis(a: Any, indices: Any, axis: Any) -> ndarray:
    """``cupy.take_along_axis``: built on integer-array indexing, so out-of-bounds indices wrap."""
    if not isinstance(a, ndarray) or not isinstance(indices, ndarray):
        raise TypeError("take_along_axis takes device arrays")
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    src = a._a.ravel() if axis is None else a._a
    ax = 0 if axis is None else axis
    idx = _wrap_indices(indices._a, src.shape[ax])
    return _wrap(_np.take_along_axis(src, idx, axis=ax))


_FUNCTIONS.update(repeat=_repeat, take=_take, take_along_axis=_take_along_axis)
globals().update(_FUNCTIONS)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None) -> _np.ndarray:
    """Host copy of a device array (host input passes through, as in CuPy)."""
    return a.get() if isinstance(a, ndarray) else _np.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    import sys

    return sys.modules[__name__] if builtins.any(isinstance(a, ndarray) for a in args) else _np


def isscalar(x: Any) -> bool:
    return _np.isscalar(x)


def fromDlpack(*args: Any) -> Any:  # noqa: N802 - CuPy's name
    raise NotImplementedError("the stand-in has no DLPack device memory")


# dtypes and constants are NumPy's own objects in CuPy too
for _name in ("float16", "float32", "float64", "complex64", "complex128", "int8", "int16", "int32", "int64",
              "uint8", "uint16", "uint32", "uint64", "intp", "bool_", "dtype", "result_type", "can_cast",
              "iinfo", "finfo", "newaxis", "pi", "inf", "nan", "e"):
    globals()[_name] = getattr(_np, _name)


# -- random --------------------------------------------------------------------------------------
class _Generator:
    def __init__(self, seed: Any = None) -> None:
        self._g = _np.random.default_rng(seed)

    def standard_normal(self, size: Any = None, dtype: Any = _np.float64) -> ndarray:
        return _wrap(_np.asarray(self._g.standard_normal(size, dtype=dtype)))

    def random(self, size: Any = None, dtype: Any = _np.float64) -> ndarray:
        return _wrap(_np.asarray(self._g.random(size, dtype=dtype)))

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = _np.int64) -> ndarray:
        return _wrap(_np.asarray(self._g.integers(low, high, size, dtype=dtype)))


random = types.SimpleNamespace(default_rng=_Generator)


# -- cuda ----------------------------------------------------------------------------------------
class _Device:
    def __init__(self, device: int = 0) -> None:
        self.id = int(device)

    def synchronize(self) -> None:
        return None

    @property
    def mem_info(self) -> tuple[int, int]:
        return (8 << 30, 8 << 30)

    @property
    def compute_capability(self) -> str:
        return "00"


def _device_properties(device: int) -> dict[str, Any]:
    return {"name": b"cupy stand-in (CPU)", "totalGlobalMem": 8 << 30,
            "memoryClockRate": 1_000_000, "memoryBusWidth": 64}


class _Event:
    """``cupy.cuda.Event`` (``cupy/cuda/stream.pyx``): ``record()`` notes the host clock here (the
    stand-in runs synchronously), ``synchronize()`` returns at once."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False) -> None:
        self._t: float | None = None
        self._timing = not disable_timing

    def record(self, stream: Any = None) -> None:
        import time

        self._t = time.perf_counter()

    def synchronize(self) -> None:
        return None

    @property
    def done(self) -> bool:
        return True


def _get_elapsed_time(start_event: _Event, end_event: _Event) -> float:
    """``cupy.cuda.get_elapsed_time``: milliseconds between two recorded events."""
    if start_event._t is None or end_event._t is None or not (start_event._timing and end_event._timing):
        raise RuntimeError("cudaErrorInvalidResourceHandle: an event was not recorded or has timing disabled")
    return (end_event._t - start_event._t) * 1e3


class _MemoryPool:
    """``cupy.cuda.MemoryPool`` as ``cupy.get_default_memory_pool()`` returns it; the stand-in
    allocates through NumPy, so the pool holds nothing (every count is 0)."""

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_bytes(self) -> int:
        return 0

    def free_all_blocks(self, stream: Any = None) -> None:
        return None


_POOL = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _POOL


cuda = types.SimpleNamespace(
    Device=_Device,
    Event=_Event,
    get_elapsed_time=_get_elapsed_time,
    MemoryPool=_MemoryPool,
    runtime=types.SimpleNamespace(getDeviceProperties=_device_properties, getDeviceCount=lambda: 1,
                                  runtimeGetVersion=lambda: 0, driverGetVersion=lambda: 0),
)

del _name


# -- linalg (cupy.linalg has these with NumPy's signatures) --------------------------------------
def _linalg_fn(name: str):
    npf = getattr(_np.linalg, name)

    def f(*args: Any, **kwargs: Any) -> Any:
        return _wrap(npf(*[_unwrap(a, strict=True) for a in args],
                         **{k: _unwrap(v, strict=True) for k, v in kwargs.items()}))

    f.__name__ = name
    return f


linalg = types.SimpleNamespace(**{n: _linalg_fn(n) for n in
                                  ("svd", "norm", "qr", "solve", "eigh", "eigvalsh", "lstsq", "matrix_rank",
                                   "inv", "pinv", "det", "slogdet", "cholesky")})


class ElementwiseKernel:
    """``cupy.ElementwiseKernel(in_params, out_params, operation, name)``: the stand-in runs the
    operation -- a C statement such as ``y = 2 * x`` -- on the host arrays (the probe's kernels are
    simple assignments, which read the same in C and Python)."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel") -> None:
        self._ins = [p.split()[-1] for p in in_params.split(",")]
        self._out = out_params.split()[-1]
        self._op = operation.strip().rstrip(";")
        self.name = name

    def __call__(self, *args: Any) -> "ndarray":
        env = {n: _unwrap(a, strict=True) for n, a in zip(self._ins, args)}
        exec(self._op, {}, env)  # noqa: S102 - a test stand-in running the probe's own statement
        return ndarray(_a=_np.asarray(env[self._out]))


def from_dlpack(x: Any) -> "ndarray":
    """``cupy.from_dlpack``: a device array stays as it is; host data is copied to the device."""
    if isinstance(x, ndarray):
        return x
    a = _np.from_dlpack(x)
    TRANSFERS["h2d_bytes"] += a.nbytes
    return ndarray(_a=_np.array(a))



# -- RawKernel: the CUDA source itself, compiled for the host ----------------------------------------
class RawKernel:
    """``cupy.RawKernel(code, name, options=(), backend="nvrtc", ...)`` (``cupy/_core/raw.pyx``).

    CPU emulation of the same CUDA source: on the first call the code is compiled with the host
    C++ compiler (``$CXX`` or ``g++``) behind a prelude that defines ``__global__``,
    ``threadIdx``/``blockIdx``/``blockDim``/``gridDim``, and the kernel runs once per (block,
    thread) in order. Arguments are passed as ``cuLaunchKernel`` receives them from CuPy
    (``cupy/cuda/function.pyx: _pointer``): a ``cupy.ndarray`` as its data pointer (views ignored,
    as RawKernel ignores them), ``None`` as a null pointer, a size-one ``numpy.ndarray`` by value, a
    larger one refused with CuPy's TypeError, and scalars by value with CuPy's dtype
    (``_scalar.pyx``: Python ``int`` -> int64, ``float`` -> float64, NumPy scalars their own dtype).

    Stricter than a device where a device would compute garbage: an argument whose size differs
    from the declared parameter's (an int64 passed for an ``int``) is a TypeError, not a misread;
    a block of more than 1024 threads is refused as CUDA refuses it. Kernels that need threads to
    run concurrently (``__shared__``, ``__syncthreads``, atomics, warp intrinsics) are refused with
    NotImplementedError: a sequential emulation cannot show their races.
    """

    _UNSUPPORTED = ("atomic", "__shfl", "cooperative_groups", "__ballot")
    #: a block's shared memory without opting in (cudaFuncSetAttribute): 48 KiB on every device since sm_20
    SHARED_LIMIT = 48 * 1024

    def __init__(self, code: str, name: str, options: tuple = (), backend: str = "nvrtc", *,
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 jitify: Any = None) -> None:
        if not isinstance(code, str) or not isinstance(name, str):
            raise TypeError("RawKernel takes the code and the kernel name as str")
        if not isinstance(options, tuple):
            raise TypeError(f"Argument 'options' has incorrect type (expected tuple, got {type(options).__name__})")
        self.code, self.name, self.options, self.backend = code, name, options, backend
        self.__name__ = name
        self._lib: Any = None
        self._params: list[str] = []

    def _compile(self) -> None:
        # (this module defines cupy.max, cupy.min, ...: the builtins are spelled out below)
        import ctypes
        import hashlib
        import os
        import re
        import shutil
        import subprocess
        import tempfile

        # NVRTC has no host C++ headers (no <cstdio>, <cmath>, <stdint.h>...): CuPy passes only its own
        # include folder, so only cupy/ headers resolve. A source that includes another fails to compile
        # on a device; here too (tests/test_nvrtc.py compiles isomat's sources with the real NVRTC).
        for header in re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', self.code, flags=re.M):
            if not header.startswith("cupy/"):
                raise RuntimeError(f"compilation of {self.name!r} failed:\ncatastrophic error: cannot open source file "
                                   f"\"{header}\" (NVRTC provides no host C++ headers)")
        for word in self._UNSUPPORTED:
            if word in self.code:
                raise NotImplementedError(f"the cupy stand-in runs kernels one thread at a time and cannot emulate {word!r}")
        code = self.code
        # kernels whose threads meet (__syncthreads, __shared__ memory) run a block's threads at once, one
        # host thread each, meeting at a barrier; the dynamic shared array becomes the block's buffer
        self._threaded = "__syncthreads" in code or "__shared__" in code
        for decl in re.finditer(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?([\w\s]+?)\s+(\w+)\s*\[\s*\]\s*;",
                                code):
            code = code.replace(decl.group(0), f"\n#define {decl.group(2)} (({decl.group(1)}*)standin_dynamic_shared)\n")
        m = re.search(r'extern\s+"C"\s+__global__\s+void\s+' + re.escape(self.name) + r"\s*\(([^)]*)\)", self.code)
        if m is None:  # cuModuleGetFunction fails: CUDA_ERROR_NOT_FOUND
            raise RuntimeError(f"CUDA_ERROR_NOT_FOUND: named symbol not found ({self.name!r}: no extern \"C\" __global__ "
                               "kernel of that name in the code)")
        params = [p.strip() for p in m.group(1).split(",") if p.strip()]
        types_ = [re.sub(r"\b[A-Za-z_]\w*\s*$", "", p).strip() for p in params]
        self._params = types_
        call = ", ".join(f"*({t}*)args[{i}]" for i, t in enumerate(types_))
        sizes = "".join(f"out[{i}] = sizeof({t}); " for i, t in enumerate(types_))
        source = (_RAW_PRELUDE + "\n#line 1\n" + code + "\n" + _RAW_DRIVER.replace("KERNEL", self.name)
                  .replace("CALL", call).replace("SIZES", sizes))
        cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
        if cxx is None:
            reason = ("the cupy stand-in compiles RawKernel code with a host C++ compiler, and none was found "
                      "(set CXX or install g++)")
            if "pytest" in sys.modules:  # a machine without a compiler cannot run the emulation: skip, with the reason
                import pytest

                pytest.skip(reason)
            raise RuntimeError(reason)
        key = hashlib.sha256((source + cxx).encode()).hexdigest()[:20]
        if "dir" not in _RAW_CACHE:  # one build directory per process, removed when it exits
            import atexit

            _RAW_CACHE["dir"] = tempfile.mkdtemp(prefix="cupy-standin-raw-")
            atexit.register(shutil.rmtree, _RAW_CACHE["dir"], ignore_errors=True)
        cache = _RAW_CACHE["dir"]
        lib = os.path.join(cache, f"{key}.so")
        if not os.path.exists(lib):
            src = os.path.join(cache, f"{key}.cpp")
            with open(src, "w") as f:
                f.write(source)
            proc = subprocess.run([cxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-w", src, "-o", lib + ".tmp"],
                                  capture_output=True, text=True)
            if proc.returncode:  # NVRTC's CompileException carries the log the same way
                raise RuntimeError(f"compilation of {self.name!r} failed:\n{proc.stderr}")
            os.replace(lib + ".tmp", lib)
        self._lib = ctypes.CDLL(lib)
        n = len(types_)
        out = (ctypes.c_size_t * builtins.max(n, 1))()
        self._lib.standin_sizes(out)
        self._sizes = [int(out[i]) for i in range(n)]

    def __call__(self, grid: tuple, block: tuple, args: Any, shared_mem: int = 0, stream: Any = None,
                 enable_cooperative_groups: bool = False) -> None:
        import ctypes

        for what, dims in (("grid", grid), ("block", block)):
            if not isinstance(dims, tuple):
                raise TypeError(f"Argument '{what}' has incorrect type (expected tuple, got {type(dims).__name__})")
        g = tuple(int(v) for v in (grid + (1, 1))[:3])
        b = tuple(int(v) for v in (block + (1, 1))[:3])
        if builtins.min(g + b) < 1 or b[0] * b[1] * b[2] > 1024 or b[2] > 64:
            raise RuntimeError(f"CUDA_ERROR_INVALID_VALUE: invalid argument (grid {g}, block {b})")
        if not isinstance(shared_mem, int) or not 0 <= shared_mem <= self.SHARED_LIMIT:
            raise RuntimeError(f"CUDA_ERROR_INVALID_VALUE: invalid argument (shared_mem {shared_mem!r}: at most "
                               f"{self.SHARED_LIMIT} bytes without cudaFuncSetAttribute)")
        if self._lib is None:
            self._compile()
        args = tuple(args)
        if len(args) != len(self._params):
            # a device reads past the argument buffer; refuse instead
            raise TypeError(f"{self.name} takes {len(self._params)} arguments, {len(args)} given")
        keep, ptrs = [], (ctypes.c_void_p * builtins.max(len(args), 1))()
        for i, a in enumerate(args):
            if isinstance(a, ndarray) or a is None:
                slot = ctypes.c_void_p(a._a.ctypes.data if a is not None else 0)
                nbytes, what = ctypes.sizeof(ctypes.c_void_p), "a pointer"
            else:
                if isinstance(a, _np.ndarray):
                    if a.size != 1:
                        raise TypeError(
                            f"You are trying to pass a numpy.ndarray of shape {a.shape} as a kernel parameter. Only "
                            "numpy.ndarrays of size one can be passed by value. If you meant to pass a pointer to "
                            "__global__ memory, you need to pass a cupy.ndarray instead.")
                    v = _np.ascontiguousarray(a).reshape(())
                elif type(a) is bool:
                    v = _np.asarray(a, dtype=_np.bool_)
                elif type(a) is int:
                    v = _np.asarray(a, dtype=_np.uint64 if a >= 0x8000000000000000 else _np.int64)
                elif type(a) is float:
                    v = _np.asarray(a, dtype=_np.float64)
                elif type(a) is complex:
                    v = _np.asarray(a, dtype=_np.complex128)
                elif isinstance(a, _np.generic):
                    v = _np.asarray(a)
                else:
                    raise TypeError(f"Unsupported type {type(a)}")
                slot = _np.array(v)  # owned, aligned storage for the value
                nbytes, what = slot.itemsize, f"a {slot.dtype} scalar"
            if nbytes != self._sizes[i]:
                raise TypeError(f"{self.name}: argument {i} is {what} ({nbytes} bytes) but the parameter is "
                                f"'{self._params[i]}' ({self._sizes[i]} bytes); a device would misread it")
            keep.append(slot)
            ptrs[i] = ctypes.addressof(slot) if isinstance(slot, ctypes.c_void_p) else slot.ctypes.data
        self._lib.standin_launch(*[ctypes.c_uint(v) for v in g + b], ptrs, ctypes.c_size_t(shared_mem),
                                 ctypes.c_int(int(self._threaded)))

    @property
    def attributes(self) -> dict:
        return {"max_threads_per_block": 1024}


_RAW_CACHE: dict[str, str] = {}
_RAW_PRELUDE = r"""
#include <cstddef>
#include <cmath>
#include <cstring>
#include <vector>
#include <ucontext.h>
struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
/* Kernels whose threads meet (__syncthreads, __shared__) run a block's threads as coroutines, each on
   its own stack: a thread that reaches __syncthreads() hands over to the next unfinished one, round
   robin, so no thread passes a barrier before every thread of the block has reached it (a finished
   thread counts as arrived, as on Volta and later). */
static std::vector<ucontext_t> standin_ctx;
static std::vector<uint3> standin_tid;
static std::vector<char> standin_finished;
static ucontext_t standin_main;
static unsigned standin_current = 0, standin_left = 0;
static void standin_switch_from(unsigned me) {
  const unsigned n = (unsigned)standin_ctx.size();
  unsigned next = me;
  for (unsigned step = 1; step <= n; ++step) {
    const unsigned k = (me + step) % n;
    if (!standin_finished[k]) { next = k; break; }
  }
  if (standin_finished[me] && next == me) { setcontext(&standin_main); }  /* the block is done */
  if (next == me) return;  /* the others have finished: carry on */
  standin_current = next;
  threadIdx = standin_tid[next];
  swapcontext(&standin_ctx[me], &standin_ctx[next]);
  threadIdx = standin_tid[me];
}
static void standin_syncthreads() { standin_switch_from(standin_current); }
static unsigned char* standin_dynamic_shared = nullptr;
#define __syncthreads() standin_syncthreads()
#define __shared__ static
#define __align__(n) alignas(n)
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __ldg(p) (*(p))
// CUDA's built-in vector types (vector_types.h, which NVRTC provides without an include), aligned as
// there: a vector load needs 16-byte-aligned addresses on a device
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) double2 { double x, y; };
"""
_RAW_DRIVER = r"""
extern "C" void standin_sizes(size_t* out) { SIZES }
static void** standin_args = nullptr;
static void standin_entry() {
  void** args = standin_args;
  KERNEL(CALL);
  standin_finished[standin_current] = 1;
  standin_switch_from(standin_current);
}
extern "C" void standin_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               void** args, size_t shared_bytes, int threaded) {
  gridDim = {gx, gy, gz}; blockDim = {bx, by, bz};
  const size_t stack = 1 << 16;
  const unsigned n = bx * by * bz;
  /* shared memory starts undefined on a device: here all bits set (NaN for floats), so a read before a
     write shows */
  std::vector<unsigned char> shared(shared_bytes + 16);
  std::vector<char> stacks(threaded ? (size_t)n * stack : 0);
  standin_args = args;
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    blockIdx = {x, y, z};
    if (!threaded) {
      for (unsigned tz = 0; tz < bz; ++tz) for (unsigned ty = 0; ty < by; ++ty) for (unsigned tx = 0; tx < bx; ++tx) {
        threadIdx = {tx, ty, tz};
        KERNEL(CALL);
      }
      continue;
    }
    std::memset(shared.data(), 0xff, shared.size());
    standin_dynamic_shared = shared.data() + (16 - reinterpret_cast<size_t>(shared.data()) % 16) % 16;
    standin_ctx.assign(n, ucontext_t());
    standin_tid.assign(n, uint3());
    standin_finished.assign(n, 0);
    unsigned k = 0;
    for (unsigned tz = 0; tz < bz; ++tz) for (unsigned ty = 0; ty < by; ++ty) for (unsigned tx = 0; tx < bx; ++tx, ++k) {
      standin_tid[k] = {tx, ty, tz};
      getcontext(&standin_ctx[k]);
      standin_ctx[k].uc_stack.ss_sp = stacks.data() + (size_t)k * stack;
      standin_ctx[k].uc_stack.ss_size = stack;
      standin_ctx[k].uc_link = &standin_main;
      makecontext(&standin_ctx[k], standin_entry, 0);
    }
    standin_current = 0;
    threadIdx = standin_tid[0];
    swapcontext(&standin_main, &standin_ctx[0]);
  }
}
"""
