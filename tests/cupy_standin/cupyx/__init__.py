"""Stand-in ``cupyx`` (test-only); see ``tests/cupy_standin``."""

STANDIN = True


def scatter_add(a, slices, value):
    """``cupyx.scatter_add``: unbuffered ``a[slices] += value`` (repeated indices accumulate).

    As in CuPy (``_scatter_op`` prepares its indices like ``__setitem__``), out-of-bounds integer
    array indices wrap around instead of raising."""
    import numpy as np

    import cupy

    if not isinstance(a, cupy.ndarray):
        raise TypeError(f"a must be a cupy.ndarray, got {type(a).__name__}")

    def un(x):
        if isinstance(x, cupy.ndarray):
            return x._a
        if isinstance(x, np.ndarray):
            raise TypeError("scatter_add: a host numpy.ndarray passed to a device function")
        if isinstance(x, tuple):
            return tuple(un(v) for v in x)
        return x

    np.add.at(a._a, cupy._unwrap_index(un(slices), a._a.shape), un(value))
