"""isomat's thread pools and its one thread-count rule (shared by :mod:`.conv` and :mod:`.diagonal`).

``ISOMAT_NUM_THREADS`` (read here, and only here) caps every parallel section of isomat: its own
worker pools and the BLAS/OpenMP threads the libraries it calls may start.  Unset, the cap is the
number of CPUs this process may run on (``len(os.sched_getaffinity(0))``).  A value that is not a
positive integer raises :class:`ValueError` naming the variable.

Inside isomat's own parallel sections BLAS is limited to one thread (``blas_limit(1)``), so that
``n`` isomat workers never run ``n × (BLAS threads)``.  The workers of a multi-channel
``conv_apply`` (and a lone GEMM elsewhere) number :func:`blas_threads`: the cap less the cores
other processes keep busy, measured from ``/proc/stat`` between calls (at least one), so that a
loaded machine is not oversubscribed (measured on 2 loaded cores: a 64→64 3×3 conv at 56² took
32 ms with two OpenBLAS threads, 6.0 ms with one).
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence, TypeVar

from .._config import cpu_busy_seconds as _cpu_busy_seconds, procs_running as _procs_running, usable_cpus

T = TypeVar("T")

ENV = "ISOMAT_NUM_THREADS"

_POOLS: dict[int, ThreadPoolExecutor] = {}


def parse_num_threads(value: str | None) -> int:
    """The thread cap for an ``ISOMAT_NUM_THREADS`` value (``None`` or empty: :func:`usable_cpus`)."""
    if value is None or value.strip() == "":
        return usable_cpus()
    try:
        n = int(value.strip())
    except ValueError:
        raise ValueError(f"{ENV} must be a positive integer, got {value!r}") from None
    if n < 1:
        raise ValueError(f"{ENV} must be a positive integer, got {value!r}")
    return n


def num_threads() -> int:
    """isomat's thread cap: ``ISOMAT_NUM_THREADS``, else the usable CPUs (read on every call)."""
    return parse_num_threads(os.environ.get(ENV))


def resolve(threads: int | None) -> int:
    """Workers for a call: the caller's ``threads`` (never above the cap), else the cap."""
    cap = num_threads()
    return cap if threads is None else max(1, min(int(threads), cap))


#: (monotonic time, all CPUs' busy seconds, this process's CPU seconds, cores others kept busy)
_LAST_SAMPLE: list = []
#: shortest window over which the busy cores are measured again (shorter calls reuse the last figure)
BUSY_WINDOW_S = 0.25


def busy_cores() -> int:
    """Cores other processes keep busy: measured over the time since the previous call (at least
    :data:`BUSY_WINDOW_S`; all CPUs' busy time from ``/proc/stat`` less this process's own CPU
    time), rounded so that three quarters of a core counts as one -- or, where every CPU was busy,
    so that a quarter counts as one: then the others got only the share this process left them (one
    CPU burner beside two isomat workers on two cores ran 0.67 of a core, which rounded down to
    none and kept isomat oversubscribing). With no earlier sample, the threads running now less
    the caller (``procs_running``); without ``/proc/stat``, the 1-minute load average. (The load
    average lags both ways: a minute after another job ends it still reports a busy core, and a
    job started seconds ago barely shows, so a process's first calls beside it oversubscribed.)"""
    now = time.monotonic()
    if _LAST_SAMPLE and now - _LAST_SAMPLE[0] < BUSY_WINDOW_S:  # a hot path: no file read
        return _LAST_SAMPLE[3]
    busy, own = _cpu_busy_seconds(), time.process_time()
    if busy is not None and _LAST_SAMPLE:
        t0, busy0, own0, _ = _LAST_SAMPLE
        others = max(0.0, (busy - busy0) - (own - own0)) / (now - t0)
        saturated = (busy - busy0) / (now - t0) >= (os.cpu_count() or 1) - 0.25
        cores = math.ceil(others - 0.25) if saturated else int(others + 0.25)
        _LAST_SAMPLE[:] = [now, busy, own, cores]
        return cores
    running = _procs_running() if busy is not None else None
    if running is not None:
        cores = max(0, running - 1)
    else:
        try:
            cores = int(os.getloadavg()[0])
        except (AttributeError, OSError):
            cores = 0
    if busy is not None:
        _LAST_SAMPLE[:] = [now, busy, own, cores]
    return cores


def blas_threads(threads: int | None = None) -> int:
    """Threads for a lone GEMM, or workers for a section that gives each one BLAS thread
    (multi-channel ``conv_apply``): ``threads`` if given (capped), else the cap less the cores other
    processes keep busy (:func:`busy_cores`), at least 1."""
    if threads is not None:
        return resolve(threads)
    return max(1, min(num_threads(), usable_cpus() - busy_cores()))


_CONTROLLER = None


@contextlib.contextmanager
def blas_limit(n: int) -> Iterator[None]:
    """Limit BLAS (and OpenMP) threads to ``n`` inside the block (no-op without threadpoolctl)."""
    global _CONTROLLER
    try:
        import threadpoolctl
    except ImportError:  # pragma: no cover - threadpoolctl is a runtime dependency
        yield
        return
    if _CONTROLLER is None:  # enumerating the loaded libraries costs ~1 ms: once per process
        _CONTROLLER = threadpoolctl.ThreadpoolController()
    with _CONTROLLER.limit(limits=int(n)):
        yield


def pool(n: int) -> ThreadPoolExecutor:
    """A persistent pool of ``n`` worker threads (creating one per call costs ~0.1 ms)."""
    if n not in _POOLS:
        _POOLS[n] = ThreadPoolExecutor(n, thread_name_prefix="isomat")
    return _POOLS[n]


_pool = pool


def share(work: Callable[[T], object], items: Sequence[T], workers: int) -> None:
    """``work(item)`` for every item, on ``workers`` threads of which the calling thread is one.

    Each thread takes the next item as it finishes one, so a core another process slows does
    fewer; the caller taking part spares one thread's wake-up and its own sleep while it waits.
    The first exception stops the threads from taking new items and is raised once all have
    stopped."""
    n = min(int(workers), len(items))
    if n <= 1:
        for item in items:
            work(item)
        return
    taken = itertools.count()  # next() on a count is atomic under the GIL
    failed: list[BaseException] = []

    def loop() -> None:
        while not failed:
            i = next(taken)
            if i >= len(items):
                return
            try:
                work(items[i])
            except BaseException as exc:  # stop the others; raised below
                failed.append(exc)
                raise

    futures = [pool(n - 1).submit(loop) for _ in range(n - 1)]
    try:
        loop()
    finally:
        for f in futures:
            try:
                f.result()
            except BaseException:  # noqa: S110 - the first failure is raised below
                pass
    if failed:
        raise failed[0]


def _forget_pools_in_child() -> None:
    # a fork()ed child inherits the pools' bookkeeping but not their threads: submitting to an
    # inherited pool would wait forever (multiprocessing's fork start method, Dask process workers)
    _POOLS.clear()
    global _CONTROLLER
    _CONTROLLER = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_in_child)
