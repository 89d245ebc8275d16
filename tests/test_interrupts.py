"""Ctrl-C and SIGTERM end isomat verify, export and bench cleanly, tested with real signals on real processes.

Ctrl-C in a terminal sends SIGINT to the whole foreground process group; ``kill`` sends SIGTERM (or
SIGINT) to one process. Each must end the command with the one line "interrupted" on stderr, no
traceback, exit status 130 (SIGINT) or 143 (SIGTERM), no process left behind (worker pools, a
benchmark's children) and no temporary file. The limits below only catch a hang: how fast the
commands stop (well under a second here, on an idle machine) is not a wall-clock assertion.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests._procs import tagged

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 60  # a command still running this long after the signal is hung


def _started(argv, cwd, ready):
    """Start ``python -m isomat argv`` in a session of its own, with a tag in its environment that every
    process it starts inherits (so they are found even in sessions of their own, or orphaned); return it
    once ``ready()`` holds (or after 60 s)."""
    tag = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               ISOMAT_INTERRUPT_TEST=tag)
    p = subprocess.Popen([sys.executable, "-m", "isomat", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True, cwd=cwd, env=env)
    p.tag = tag
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None and not ready(p):
        time.sleep(0.1)
    return p


def _children(p):
    """Every live process carrying ``p``'s tag (``p`` itself included while it runs)."""
    return tagged("ISOMAT_INTERRUPT_TEST", p.tag)


def _command(pid):
    return subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()[:200]


def _stop(p, sig, group):
    assert p.poll() is None, f"the command ended before the signal: {p.communicate()[1][-2000:]}"
    (os.killpg if group else os.kill)(p.pid, sig)
    try:
        out, err = p.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail(f"still running {HANG_S} s after signal {sig}")
    # a worker the parent failed to end would still be listed in the session after a moment (the spawn
    # context's resource tracker ends by itself once the parent has gone; it is given a few seconds)
    deadline = time.monotonic() + 5
    while _children(p) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [(c, _command(c)) for c in _children(p)]
    for c, _ in left:
        os.kill(c, signal.SIGKILL)
    return p.returncode, err, left


def _assert_clean(code, err, left, sig):
    assert code == (130 if sig == signal.SIGINT else 143), (code, err[-2000:])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[-1].endswith(": interrupted"), err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    assert not left, f"processes left behind: {left}"


def _has_workers(p):
    return len(_children(p)) >= 3  # the parent, and spawned workers


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("group", [True, False], ids=["group", "parent"])
def test_verify_with_workers_stops(sig, group, tmp_path):
    p = _started(["verify", "--jobs", "2"], tmp_path, _has_workers)
    time.sleep(1.0)  # workers busy with claims
    _assert_clean(*_stop(p, sig, group), sig)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_verify_in_one_process_stops(sig, tmp_path):
    start = time.monotonic()
    p = _started(["verify", "--jobs", "1"], tmp_path, lambda p: time.monotonic() - start > 4)  # into the claims
    _assert_clean(*_stop(p, sig, True), sig)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_export_stops_and_leaves_no_temporary_file(sig, tmp_path):
    target = tmp_path / "big.mtx"
    # ~29 million entries written as text: many seconds of work
    argv = ["export", "conv", "--input-shape", "16,112,112", "--kernel-size", "3", "--out-channels", "16",
            "--padding", "1", "--seed", "0", "--memory-limit", "4G", "-o", str(target)]
    p = _started(argv, tmp_path, lambda p: any(x.name.startswith(".big.") for x in tmp_path.iterdir()))
    _assert_clean(*_stop(p, sig, True), sig)
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_bench_stops_its_scripts_too(sig, tmp_path):
    argv = ["bench", "--dir", str(ROOT / "benchmarks"), "--only", "ledger", "--json", str(tmp_path / "b.json"),
            "--markdown", str(tmp_path / "b.md")]
    p = _started(argv, tmp_path, lambda p: len(_children(p)) >= 3)  # bench, the script, isomat verify
    time.sleep(0.5)
    _assert_clean(*_stop(p, sig, False), sig)
