"""ISOMAT_NUM_THREADS and the shared pool (isomat.algebra._threads)."""
import os

import numpy as np
import pytest

from isomat.algebra import _threads


def test_default_is_usable_cpus(monkeypatch):
    monkeypatch.delenv("ISOMAT_NUM_THREADS", raising=False)
    assert _threads.num_threads() == _threads.usable_cpus() >= 1
    if hasattr(os, "sched_getaffinity"):
        assert _threads.usable_cpus() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("value,n", [("1", 1), (" 3 ", 3), ("", None)])
def test_parse(monkeypatch, value, n):
    monkeypatch.setenv("ISOMAT_NUM_THREADS", value)
    assert _threads.num_threads() == (n or _threads.usable_cpus())


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", "2x"])
def test_bad_values_name_the_variable(monkeypatch, value):
    monkeypatch.setenv("ISOMAT_NUM_THREADS", value)
    with pytest.raises(ValueError, match="ISOMAT_NUM_THREADS"):
        _threads.num_threads()


def test_resolve_caps(monkeypatch):
    monkeypatch.setenv("ISOMAT_NUM_THREADS", "2")
    assert _threads.resolve(None) == 2
    assert _threads.resolve(8) == 2
    assert _threads.resolve(1) == 1
    assert 1 <= _threads.blas_threads() <= 2
    assert _threads.blas_threads(5) == 2


def test_blas_limit_runs():
    a = np.ones((64, 64))
    with _threads.blas_limit(1):
        assert (a @ a)[0, 0] == 64


def test_one_pool_shared():
    from isomat.algebra import conv, diagonal  # noqa: F401  (no import cycle)
    assert conv._pool is _threads.pool and conv._POOLS is _threads._POOLS
    assert _threads.pool(2) is _threads.pool(2)


def test_conv_apply_with_env(monkeypatch):
    from isomat.algebra import conv_apply, conv_matrix
    monkeypatch.setenv("ISOMAT_NUM_THREADS", "1")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 12, 12)), rng.standard_normal((3, 2, 3, 3))
    np.testing.assert_allclose(conv_apply(x, w, padding=1).ravel(), conv_matrix(x.shape, w, padding=1) @ x.ravel(), atol=1e-12)
    monkeypatch.setenv("ISOMAT_NUM_THREADS", "nope")
    with pytest.raises(ValueError, match="ISOMAT_NUM_THREADS"):
        conv_apply(x[0], w[0, 0])


def test_busy_cores_sees_another_process_and_its_end(monkeypatch):
    """blas_threads counts the cores other processes keep busy now, not the lagging load average: a
    busy child process counts while it runs."""
    import subprocess
    import sys
    import time

    if _threads._cpu_busy_seconds() is None:
        pytest.skip("no /proc/stat here")
    monkeypatch.setattr(_threads, "_LAST_SAMPLE", [])
    _threads.busy_cores()  # the first sample
    burner = subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<3: pass"])
    try:
        time.sleep(0.3)
        _threads.busy_cores()
        time.sleep(0.8)
        assert _threads.busy_cores() >= 1
    finally:
        burner.kill()
        burner.wait()


@pytest.mark.parametrize("total, own, expected", [
    (0.05, 0.0, 0),    # a quiet machine
    (2.0, 2.0, 0),     # isomat alone on both cores
    (1.0, 0.0, 1),     # another process on one core, isomat idle
    (2.0, 1.33, 1),    # a burner beside two isomat workers gets 0.67 of a core: it wants a whole one
    (2.0, 1.0, 1),     # a burner beside one worker
    (1.6, 1.0, 0),     # not saturated: 0.6 of a core elsewhere is not a busy core
    (2.0, 0.0, 2),     # two other processes
])
def test_busy_cores_counts_a_squeezed_process_as_busy(monkeypatch, total, own, expected):
    """Over a one-second window on two CPUs (``total``: all CPUs' busy seconds, ``own``: this
    process's), the cores other processes keep busy; where every CPU was busy, the others' share
    rounds up, for they got only what this process left them."""
    clock = {"t": 100.0, "busy": 5000.0, "own": 10.0}
    monkeypatch.setattr(_threads.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(_threads.time, "monotonic", lambda: clock["t"])
    monkeypatch.setattr(_threads.time, "process_time", lambda: clock["own"])
    monkeypatch.setattr(_threads, "_cpu_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(_threads, "_LAST_SAMPLE", [])
    _threads.busy_cores()  # the first sample
    clock.update(t=101.0, busy=5000.0 + total, own=10.0 + own)
    assert _threads.busy_cores() == expected


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
@pytest.mark.parametrize("n_items", [0, 1, 2, 7, 50])
def test_share_runs_every_item_once_the_caller_taking_part(workers, n_items):
    import threading
    import time

    done: list[tuple[int, int]] = []

    def work(i):
        time.sleep(0.001)  # long enough that the pool's threads get items too
        done.append((i, threading.get_ident()))

    _threads.share(work, range(n_items), workers)
    assert sorted(i for i, _ in done) == list(range(n_items))
    if n_items >= 25 * workers:  # 25 ms of items a thread: the caller, running from the start, takes some
        assert threading.get_ident() in {t for _, t in done}
    if workers == 1:
        assert {t for _, t in done} <= {threading.get_ident()}


@pytest.mark.parametrize("failing", [0, 5])
def test_share_raises_the_first_failure_after_the_threads_stop(failing):
    import time

    started = []

    def work(i):
        started.append(i)
        time.sleep(0.0005)  # lets the threads interleave
        if i == failing:
            raise ArithmeticError(f"item {i}")

    with pytest.raises(ArithmeticError, match=f"item {failing}"):
        _threads.share(work, range(400), 2)
    assert len(started) < 400  # no new items after the failure
