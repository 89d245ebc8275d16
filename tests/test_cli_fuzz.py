"""Issue 17 (and 14 item 4): the command line, fuzzed -- every outcome is a file or one line.

For every ``isomat export`` kind, Hypothesis draws an argument list from the kind's own options
(read from the parser, so a new option is fuzzed the day it is added): each option present or
not, with a value drawn from good and bad ones -- zero, negative, huge, float, empty, text,
tuples of the wrong length, ``same`` / ``valid``, sizes with units -- and an output path whose
suffix may be right, wrong, missing, or in a missing directory. ``isomat verify`` is fuzzed on
its error paths (unknown papers, claim ids and claim files; unwritable Markdown targets).

Each run is classified:

* exit 0 -- the output file exists, reads back with :func:`isomat.export.read`, and its shape is
  the one printed;
* exit non-zero -- stderr is exactly one line, names the program, and holds no traceback;
* anything raised out of ``main`` (a traceback for the user), a hang, or a ``MemoryError`` -- a
  failure of the test.

The memory bound is 64 MiB during the run, so huge sizes must be refused before they allocate.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import signal
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isomat import export
from isomat._config import memory_limit
from isomat.cli import build_parser, main

pytestmark = pytest.mark.fuzz
EXAMPLES = 2 * int(os.environ.get("ISOMAT_FUZZ_EXAMPLES", "12"))
TALLY: collections.Counter = collections.Counter()
TIME_LIMIT_S = 30

VALUES = ["0", "-1", "1", "2", "3", "7", "1000000000000", "2.5", "", "abc", "1,2", "3,4,4", "1,0,5", "2,-3",
          "2x3,3x2", "0x3", "same", "valid", "nan", "1,1000000,1000000", "64M", "1K", "4X"]
SUFFIXES = [".npz", ".mtx", ".pt", ".mat", ".txt", "", "/missing/x.npz"]


def _options(kind: str) -> list[argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    export_parser = sub.choices["export"]
    kinds = next(a for a in export_parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in kinds.choices[kind]._actions
            if a.option_strings and a.dest not in ("help", "output", "seed", "memory_limit")]


def _run(argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    in_main = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")

    def alarm(*_):
        raise TimeoutError(f"no answer in {TIME_LIMIT_S} s")

    if in_main:
        old = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(TIME_LIMIT_S)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = main(argv, out=out, err=err)
            except SystemExit as exc:
                code = exc.code
    finally:
        if in_main:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


def _check(argv: list[str], path: str | None) -> None:
    try:
        code, out, err = _run(argv)
    except BaseException as exc:  # noqa: BLE001 - anything out of main is a traceback for the user
        raise AssertionError(f"isomat {' '.join(argv)!r} raised {type(exc).__name__}: {exc}") from exc
    TALLY["written" if code == 0 else "refused in one line"] += 1
    if code == 0:
        assert path is not None and os.path.isfile(path), f"exit 0 without a file: {argv}\n{out}{err}"
        back = export.read(path)
        assert f"{back.shape[0]}x{back.shape[1]}" in out, (argv, out)
        os.unlink(path)
        return
    lines = [line for line in err.splitlines() if line.strip()]
    assert code not in (None, 0), (argv, code, err)
    assert len(lines) == 1, f"isomat {' '.join(argv)}: stderr is not one line:\n{err}"
    assert "Traceback" not in err and lines[0].startswith("isomat"), (argv, err)


KINDS = sorted(export.FAMILIES)


def _pairs(argv: list[str]) -> dict[str, list[str]]:
    """A valid example's options, ``{"--opt": [value]}`` (``[]`` for a flag)."""
    out: dict[str, list[str]] = {}
    for a in argv:
        if a.startswith("--"):
            out[a] = []
            last = a
        else:
            out[last].append(a)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_export_options_fuzzed(kind, tmp_path):
    from tests.test_cli_export import EXAMPLES as VALID

    actions = _options(kind)
    base = _pairs(VALID[kind])

    def mutation(a: argparse.Action):
        name = a.option_strings[-1]
        if a.nargs == 0:  # a flag: on or off
            return st.sampled_from([("set", name, []), ("drop", name, [])])
        values = (list(a.choices) + ["bogus"]) if a.choices else VALUES
        return st.one_of(st.sampled_from(values).map(lambda v: ("set", name, [v])), st.just(("drop", name, [])))

    # a valid example with up to three options changed, dropped or added: near-valid input is where
    # a wrong result or a deep traceback hides; the suffix is right most of the time
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.one_of(*[mutation(a) for a in actions]), max_size=3),
           st.sampled_from([".npz", ".mtx", ".pt", ".mat", ".npz"] * 3 + SUFFIXES),
           st.sampled_from([None, None, None, "64M", "0", "1K"]))
    def run(mutations, suffix, limit):
        opts = dict(base)
        for op, name, value in mutations:
            if op == "drop":
                opts.pop(name, None)
            else:
                opts[name] = value
        path = str(tmp_path / f"out{suffix}")
        argv = ["export", kind, *[v for k, vs in opts.items() for v in (k, *vs)], "-o", path, "--seed", "1"]
        if limit is not None:
            argv += ["--memory-limit", limit]
        with memory_limit("64M"):
            _check(argv, path)

    run()


@pytest.mark.parametrize("argv", [
    ["verify", "--claim", "nosuch.claim.id"],
    ["verify", "--claims", "/nonexistent/claims.py"],
    ["verify", "--claims", "not.an.importable.module"],
    ["verify", "--paper", "zhu2025", "--claims", "x.py"],
    ["verify", "--paper", ""],
    ["verify", "--backend", "bogus"],
    ["verify", "--claim", "zhu2025.thm4.1", "--markdown", "/nonexistent/dir/ledger.md"],
    ["export"],
    ["export", "conv"],
    ["bench", "--only", "nosuchbenchmark", "--json", "/nonexistent/dir/r.json"],
    [],
    ["--bogus"],
])
def test_other_commands_fail_in_one_line(argv):
    _check(argv, None)


def test_the_fuzz_reaches_every_kind_and_option():
    # the option lists come from the parser: a new kind or option is fuzzed without a list here
    assert set(KINDS) == set(export.FAMILIES)
    assert any(a.dest == "order" for a in _options("conv")) and any(a.dest == "force" for a in _options("conv"))


def test_zz_cli_fuzz_summary(capsys):
    """Prints the tally of this run (runs that wrote a file, runs refused in one line)."""
    with capsys.disabled():
        print(f"\ncli fuzz: {len(KINDS)} export kinds, {EXAMPLES} argument lists each; outcomes {dict(TALLY)}")
