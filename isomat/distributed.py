r"""Applying an operator too large for one process, in row blocks on Dask (extra ``distributed``).

:math:`y = Wx` is computed as :math:`y_{[s,t)} = W_{[s,t),:}\,x` for a partition of the rows into
blocks :math:`[s,t)`. Each Dask worker receives only the *recipe* of its blocks -- a picklable
``build_block(start, stop)`` that builds those rows of the pattern and values (constructions take
``rows=(start, stop)`` for that, e.g. :func:`isomat.algebra.conv_matrix`) -- builds them, multiplies,
and returns its piece of :math:`y`; no process ever holds the whole matrix. Blocks run on the CPU
(SciPy) or on the worker's GPU (``device="gpu"``: CuPy).

Dask on GPUs
------------
With ``device="gpu"`` each block is *built* on the device, not built on the host and copied: the
recipe is called as ``build_block(start, stop, backend="cupy")`` (a :func:`construction_rows`
recipe passes ``backend="cupy"`` on to the construction, whose pattern and values are then made
with CuPy), multiplied there with cuSPARSE, and only the block's piece of :math:`y` comes back to
the host. A recipe that takes no ``backend`` keyword is called as ``build_block(start, stop)``
and a host result is copied to the device (the record's ``built_on`` says which happened).

Each worker should own one GPU, and one thread (``threads_per_worker=1``): CuPy works on the
process's current device, device 0 of what the process can see. Pin a worker to GPU ``i`` by
starting it with ``CUDA_VISIBLE_DEVICES=i`` in its environment, one worker per GPU::

    dask scheduler &
    CUDA_VISIBLE_DEVICES=0 dask worker tcp://SCHEDULER:8786 --nworkers 1 --nthreads 1 &
    CUDA_VISIBLE_DEVICES=1 dask worker tcp://SCHEDULER:8786 --nworkers 1 --nthreads 1 &

or, where ``dask_cuda`` is installed, let ``dask_cuda.LocalCUDACluster()`` start one worker per
visible GPU and set each worker's ``CUDA_VISIBLE_DEVICES`` for it::

    from dask_cuda import LocalCUDACluster
    with LocalCUDACluster(threads_per_worker=1) as cluster, Client(cluster) as client:
        y = apply_row_blocks(build, n_rows, x, client=client, device="gpu")

Blocks go round-robin over the workers (``workers=`` chooses them), so with one worker per GPU
every GPU builds and multiplies its own blocks.

Example
-------
>>> from dask.distributed import Client, LocalCluster                       # doctest: +SKIP
>>> from isomat.distributed import apply_row_blocks, construction_rows     # doctest: +SKIP
>>> from isomat.algebra import conv_matrix                                 # doctest: +SKIP
>>> build = construction_rows(conv_matrix, (1, 512, 512), kernel, padding="same")  # doctest: +SKIP
>>> with LocalCluster(n_workers=4) as cluster, Client(cluster) as client:  # doctest: +SKIP
...     y = apply_row_blocks(build, 512 * 512, x, client=client, n_blocks=8)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from . import _validate

__all__ = ["apply_row_blocks", "construction_rows", "row_blocks", "BlockInfo"]


def row_blocks(n_rows: int, n_blocks: int) -> list[tuple[int, int]]:
    """Split ``range(n_rows)`` into ``n_blocks`` contiguous ``(start, stop)`` blocks of near-equal size."""
    n_rows = _validate.positive_int("n_rows", n_rows)
    n_blocks = _validate.positive_int("n_blocks", n_blocks)
    if n_blocks > n_rows:
        raise ValueError(f"n_blocks must be at most n_rows = {n_rows}, got {n_blocks}")
    from .algebra._operator import check_bytes

    check_bytes("row_blocks", 3 * 8 * (n_blocks + 1), f"{n_blocks:,} blocks")  # the edges and the list of pairs
    edges = np.linspace(0, n_rows, n_blocks + 1).round().astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def _call_rows(func: Callable[..., Any], args: tuple, kwargs: dict, start: int, stop: int, *,
               backend: str | None = None) -> Any:
    if backend is not None:  # the field the worker asks for (device="gpu": cupy) wins over the recipe's
        kwargs = {**kwargs, "backend": backend}
    return func(*args, rows=(start, stop), format="csr", **kwargs)


def _takes_backend(build_block: Callable[..., Any]) -> bool:
    """Whether ``build_block`` accepts a ``backend=`` keyword (a named parameter or ``**kwargs``)."""
    import inspect

    try:
        params = inspect.signature(build_block).parameters.values()
    except (TypeError, ValueError):  # builtins and some C callables have no signature
        return False
    return any(p.name == "backend" and p.kind != p.POSITIONAL_ONLY or p.kind == p.VAR_KEYWORD for p in params)


def construction_rows(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[[int, int], Any]:
    """A picklable ``build_block(start, stop)`` calling ``func(*args, rows=(start, stop), format="csr", **kwargs)``.

    ``func`` is a construction that supports building a row range alone (a ``rows=`` keyword),
    such as :func:`isomat.algebra.conv_matrix`. The recipe also takes ``backend=``
    (``build_block(start, stop, backend="cupy")``), which replaces any ``backend`` in ``kwargs``:
    :func:`apply_row_blocks` passes it with ``device="gpu"`` so that blocks are built on the device.
    """
    if not callable(func):
        raise TypeError(f"func must be a construction (callable), got {type(func).__name__}")
    return functools.partial(_call_rows, func, tuple(args), dict(kwargs))


class BlockInfo(dict):
    """Per-block record: ``start``, ``stop``, ``nnz``, ``build_seconds``, ``apply_seconds`` (wall),
    ``cpu_seconds`` (CPU time of the worker process while it built and multiplied), ``worker``,
    ``built_on`` (``"host"`` or ``"device"``: where the block's matrix was made)."""


def _apply_block(build_block: Callable[[int, int], Any], start: int, stop: int, x: Any, device: str) -> tuple[Any, dict]:
    from .gpu import is_cupy_array

    c0, t0 = time.process_time(), time.perf_counter()
    if device == "gpu" and _takes_backend(build_block):
        block = build_block(start, stop, backend="cupy")  # built on the device: no host build, no copy
    else:
        block = build_block(start, stop)
    from .algebra._operator import SparseOperator

    built_on = "device" if (block.field == "cupy" if isinstance(block, SparseOperator) else is_cupy_array(block)) \
        else "host"

    if isinstance(block, SparseOperator):
        block = block.render("csr")
    t1 = time.perf_counter()
    if block.shape[0] != stop - start:
        raise ValueError(f"build_block({start}, {stop}) returned {block.shape[0]} rows, expected {stop - start}")
    if device == "gpu":
        from .gpu import to_cpu, to_gpu

        y = to_cpu(to_gpu(block) @ to_gpu(x))  # type: ignore[operator]  # to_gpu returns a device block as it is
    else:
        from .gpu import to_cpu

        if is_cupy_array(block):
            block = to_cpu(block)
        y = block @ x
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        worker = None
    info = {"start": start, "stop": stop, "nnz": int(block.nnz), "build_seconds": t1 - t0,
            "apply_seconds": t2 - t1, "cpu_seconds": cpu, "worker": worker, "built_on": built_on}
    return np.asarray(y), info


def apply_row_blocks(build_block: Callable[[int, int], Any], n_rows: int, x: Any, *, client: Any,
                     n_blocks: int | None = None, device: str = "cpu", workers: Sequence[str] | None = None,
                     return_info: bool = False) -> np.ndarray | tuple[np.ndarray, list[BlockInfo]]:
    r"""``W @ x`` with ``W`` built and applied in row blocks on a Dask cluster.

    Parameters
    ----------
    build_block : callable ``(start, stop) -> matrix``
        Builds rows ``[start, stop)`` of ``W`` only (a ``(stop - start) x n`` SciPy/CuPy sparse
        matrix or SparseOperator); must be picklable (see :func:`construction_rows`). It runs on
        the workers: the matrix is never sent over the network nor built whole.
    n_rows : int
        Rows of ``W``.
    x : numpy.ndarray
        ``(n,)`` or ``(n, k)``; scattered once to every worker.
    client : dask.distributed.Client or None
        ``None``: no cluster -- the blocks are built and applied one after another in this process,
        the same code path a worker runs (a serial mode to develop and test a ``build_block`` before
        it meets a cluster; ``workers`` must then be ``None``).
    n_blocks : int, optional
        Number of row blocks (default: the number of workers; without a client, enough blocks that
        none holds more than a quarter of the rows, at least one).
    device : {"cpu", "gpu"}
        Multiply with SciPy, or on the worker's GPU with CuPy; with ``"gpu"`` a recipe that takes
        ``backend=`` (every :func:`construction_rows` recipe) builds its block on the device. Pin
        one worker to each GPU (module docstring: "Dask on GPUs").
    workers : list of str, optional
        Worker addresses; block ``i`` runs on ``workers[i % len(workers)]`` (default: all of the
        client's workers, round-robin, so each worker builds only its own blocks).
    return_info : bool
        Also return a list of per-block :class:`BlockInfo` records.

    Returns
    -------
    numpy.ndarray
        ``W @ x`` (and the block records when ``return_info``).
    """
    if client is not None and not all(hasattr(client, a) for a in ("submit", "scatter", "gather")):
        raise TypeError(f"client must be a dask.distributed.Client or None (serial, in this process), "
                        f"got {type(client).__name__}")
    if not callable(build_block):
        raise TypeError(f"build_block must be callable (start, stop) -> matrix, got {type(build_block).__name__}")
    device = _validate.choice("device", device, ("cpu", "gpu"))
    n_rows = _validate.positive_int("n_rows", n_rows)
    return_info = _validate.boolean("return_info", return_info)
    if workers is not None and (isinstance(workers, (str, bytes)) or not isinstance(workers, Sequence)
                                or not all(isinstance(w, str) for w in workers)):
        raise TypeError(f"workers must be None or a sequence of worker addresses (str), got {workers!r:.80}")
    from .gpu import is_cupy_array

    if is_cupy_array(x):
        x = x.get()
    x = np.asarray(x)
    if x.ndim not in (1, 2) or x.dtype.kind not in "biufc":
        raise ValueError(f"x must be a numeric vector or matrix, got an array of shape {x.shape} and dtype {x.dtype}")
    if client is None:
        if workers is not None:
            raise ValueError("workers: given without a client; the serial mode (client=None) runs in this process")
        if n_blocks is None:
            n_blocks = min(4, n_rows)
        blocks = row_blocks(n_rows, n_blocks)
        results = [_apply_block(build_block, a, b, x, device) for a, b in blocks]
    else:
        if workers is None:
            workers = sorted(client.scheduler_info()["workers"])
        workers = list(workers)
        if not workers:
            raise ValueError("workers: the cluster has no workers")
        if n_blocks is None:
            n_blocks = min(len(workers), n_rows)
        blocks = row_blocks(n_rows, n_blocks)
        x_f = client.scatter(x, broadcast=True, hash=False)  # a fresh key: a released earlier scatter cannot race it
        futures = [
            client.submit(_apply_block, build_block, a, b, x_f, device, workers=[workers[i % len(workers)]],
                          allow_other_workers=False, pure=False, key=f"isomat-row-block-{a}-{b}-{time.time_ns()}")
            for i, (a, b) in enumerate(blocks)
        ]
        results = client.gather(futures)
    pieces = [r[0] for r in results]
    for (a, b), piece in zip(blocks, pieces):
        if piece.shape[0] != b - a:
            raise ValueError(f"row block [{a}, {b}) produced {piece.shape[0]} rows")
    y = np.concatenate(pieces, axis=0)
    # an n_rows below the operator's would return a shorter y without a word: for a construction_rows
    # recipe, ask for the row past the last one (one row, built here); a construction that has it is
    # longer than n_rows said. (A builder of the caller's own is taken at its word.)
    beyond = 0
    if isinstance(build_block, functools.partial) and build_block.func is _call_rows:
        try:
            extra = build_block(n_rows, n_rows + 1)
            beyond = int(extra.shape[0]) if getattr(extra, "shape", None) is not None else 0
        except Exception:  # noqa: BLE001 - no such row: the operator has n_rows rows, as it should
            beyond = 0
    if beyond:
        raise ValueError(f"n_rows={n_rows} is below the operator's rows: build_block({n_rows}, {n_rows + 1}) gives a row "
                         "(pass the operator's whole row count)")
    if return_info:
        return y, [BlockInfo(r[1]) for r in results]
    return y
