"""A ledger runner that survives its claims (issue 24): a claims file whose check exits, kills its process,
hangs, prints, raises at import, carries evidence that cannot be written, or edits its outcome after it was
derived gives a run that ends, prints valid JSON with every other claim's record intact, and exits non-zero.

Each case is a claim between two good claims in one claims file, run through
``python -m isomat verify --claims FILE --json --claim-timeout 3`` with one worker and with two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 3  # --claim-timeout
# a run that does not end is stopped here (the hanging claim sleeps 10**6 s): that the claim timeout
# fired is read from the hanging claim's record ("timed out after 3 s"), not from the wall clock, which
# a busy machine stretches (the interpreters' start, a replacement worker's imports)
LIMIT = 120

HEAD = '''
import os, signal, sys, time

from isomat.proofs.engine import claim, decide, exhaustive


@claim("goodlab2026:first", quote="k >= 0", statement="every k in 0..4 is >= 0", methods=["exhaustive"])
def _first():
    return decide(exhaustive(lambda k: k >= 0, range(5), describe="k in 0..4"))
'''

TAIL = '''

@claim("goodlab2026:last", quote="k < 10", statement="every k in 0..4 is < 10; 5 is a counterexample of k < 5",
       methods=["exhaustive"])
def _last():
    return decide(exhaustive(lambda k: k < 5, range(7), describe="k in 0..6"))
'''


def _hostile(body: str) -> str:
    return ('\n\n@claim("goodlab2026:hostile", quote="q", statement="s", methods=["exhaustive"])\n'
            "def _hostile():\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n")


GOOD = 'decide(exhaustive(lambda k: True, range(2), describe="k in 0..1"))'

#: name: (file body between the two good claims, what the hostile record's error says, or None for a verdict)
CASES = {
    "sys_exit": (_hostile("sys.exit(0)"), "SystemExit"),
    "os_exit": (_hostile("os._exit(3)"), "exited with status 3"),
    "hang": (_hostile("time.sleep(10**6)"), f"timed out after {TIMEOUT} s"),
    "keyboard_interrupt": (_hostile("raise KeyboardInterrupt"), "KeyboardInterrupt"),
    "sigkill": (_hostile("os.kill(os.getpid(), signal.SIGKILL)"), "SIGKILL"),
    "evidence_str_raises": ("\nclass Bad:\n    def __str__(self):\n        raise RuntimeError('no str')\n"
                            "    __repr__ = __str__\n" + _hostile(f"return decide(exhaustive(lambda k: True, range(2), "
                                                                     f"describe='k'), note=Bad())"), "no str"),
    "edit_outcome": (_hostile('o = decide(exhaustive(lambda k: k < 1, range(3), describe="k"))\n'
                              'o.verdict = "holds"\nreturn o'), "FrozenInstance"),
    "edit_outcome_behind_its_back": (_hostile('o = decide(exhaustive(lambda k: k < 1, range(3), describe="k"))\n'
                                              'object.__setattr__(o, "verdict", "holds")\nreturn o'), "invalid outcome"),
    "divine_strength": (_hostile(f'o = {GOOD}\nobject.__setattr__(o, "verdict", "totally-proved")\n'
                                 'object.__setattr__(o, "strength", "divine")\nreturn o'), "invalid outcome"),
    "refuted_without_counterexample": (_hostile('o = decide(exhaustive(lambda k: k < 1, range(3), describe="k"))\n'
                                                'object.__setattr__(o, "counterexample", None)\nreturn o'),
                                       "counterexample"),
    "proved_without_for_all": (_hostile(f'o = {GOOD}\nobject.__setattr__(o, "strength", "proved")\nreturn o'),
                               "for_all"),
    "edit_evidence": (_hostile(f'o = {GOOD}\no.evidence["printed"] = {{"ok": True}}\nreturn o'), "read-only"),
    "print": (_hostile(f'print("chatter from the check")\nprint("more", file=sys.stderr)\n'
                       f'os.write(1, b"raw fd write\\n")\nreturn {GOOD}'), None),
    "nan_evidence": (_hostile(f'return decide(exhaustive(lambda k: True, range(2), describe="k"), '
                              f'worst=float("nan"), big=float("inf"), small=-float("inf"))'), None),
}


def _verify(path: Path, jobs: int, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ISOMAT_RECHECK="0",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "isomat", "verify", "--claims", str(path), "--json",
                           "--claim-timeout", str(TIMEOUT), "--jobs", str(jobs), *extra],
                          capture_output=True, text=True, env=env, cwd=path.parent, timeout=LIMIT)


def _assert_good(recs: dict) -> None:
    first, last = recs["goodlab2026:first"], recs["goodlab2026:last"]
    assert (first["verdict"], first["strength"]) == ("holds", "exhaustive"), first
    assert first["evidence"]["printed"]["tested"] == 5
    assert (last["verdict"], last["strength"]) == ("refuted", "counterexample"), last
    assert last["counterexample"]["case"] == 5


def _slug(case: str) -> str:
    return case.replace("_", "-")


def _all_cases_file() -> str:
    """One claims file: the good first claim, every hostile case as a claim of its own
    (``goodlab2026:hostile/<case>``), the good last claim. Each case's claim runs in a worker of its own, so
    one run shows every case at once -- and that no hostile claim touches another's record either."""
    body = "".join(text.replace('"goodlab2026:hostile"', f'"goodlab2026:hostile/{_slug(case)}"')
                   .replace("def _hostile(", f"def _hostile_{case}(").replace("class Bad:", f"class Bad_{case}:")
                   .replace("note=Bad()", f"note=Bad_{case}()")
                   for case, (text, _) in sorted(CASES.items()))
    return HEAD + body + TAIL


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_hostile_claim_is_one_record_and_the_run_goes_on(jobs, tmp_path):
    path = tmp_path / "hostile_all.py"
    path.write_text(_all_cases_file())
    p = _verify(path, jobs)
    report = json.loads(p.stdout)  # valid JSON, nothing else on stdout
    ids = [r["id"] for r in report["claims"]]
    assert ids == (["goodlab2026:first"] + [f"goodlab2026:hostile/{_slug(c)}" for c in sorted(CASES)]
                   + ["goodlab2026:last"]), ids
    recs = {r["id"]: r for r in report["claims"]}
    _assert_good(recs)
    for case, (_, error) in sorted(CASES.items()):
        hostile = recs[f"goodlab2026:hostile/{_slug(case)}"]
        if error is None:  # a check that prints, or whose evidence holds NaN, is no error
            assert hostile["verdict"] == "holds", (case, hostile)
        else:
            assert hostile["verdict"] == "error" and hostile["strength"] is None, (case, hostile)
            assert error in hostile["error"], (case, hostile["error"])
        if case == "print":
            # print and sys.stderr, and a write to the file descriptor itself (the check runs in a worker)
            assert "chatter from the check" in hostile["output"] and "more" in hostile["output"], hostile
            assert "raw fd write" in hostile["output"], hostile
        if case == "nan_evidence":
            assert hostile["evidence"]["worst"] == "NaN"
            assert (hostile["evidence"]["big"], hostile["evidence"]["small"]) == ("Infinity", "-Infinity")
    assert p.returncode == 1, p.stderr[-2000:]  # errors among the records


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("where", ["everywhere", "worker_only"])
def test_claims_file_failing_to_import_is_one_line_exit_2(where, jobs, tmp_path):
    fail = ("raise RuntimeError('broken claims file')\n" if where == "everywhere" else
            "import os\nif os.environ.get(\"ISOMAT_WORKER\"):  # a worker process (isomat.proofs._runner)\n"
            "    raise RuntimeError('broken claims file')\n")
    path = tmp_path / f"hostile_import_{where}.py"
    path.write_text(HEAD + fail + TAIL)
    p = _verify(path, jobs)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "broken claims file" in lines[0] and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.stdout == ""


@pytest.mark.parametrize("case", ["sys_exit", "keyboard_interrupt", "print", "edit_outcome", "evidence_str_raises"])
def test_hostile_claim_run_in_this_process(case, tmp_path):
    # --claim-timeout 0 --jobs 1: no limit, the claims run in the CLI's own process; SystemExit and a
    # KeyboardInterrupt the check raises itself are its error (a real Ctrl-C still ends the run:
    # tests/test_interrupts.py), and its output is kept in the record, never printed
    import io

    from isomat.cli import main

    body, error = CASES[case]
    path = tmp_path / "inproc_claims.py"  # one module name: declaring the same claims again replaces them
    path.write_text(HEAD + body + TAIL)
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", "--claims", str(path), "--json", "--claim-timeout", "0", "--jobs", "1"], out=out, err=err)
    recs = {r["id"]: r for r in json.loads(out.getvalue())["claims"]}
    _assert_good(recs)
    hostile = recs["goodlab2026:hostile"]
    if error is None:
        assert code == 0 and hostile["verdict"] == "holds" and "chatter from the check" in hostile["output"]
    else:
        assert code == 1 and hostile["verdict"] == "error" and error in hostile["error"], hostile


def test_jobs_above_the_usable_cpus_are_refused():
    # issue 24, item 11: --jobs had no upper bound (6 workers x 190 MB on 2 CPUs)
    import io

    from isomat import proofs
    from isomat.cli import main

    usable = proofs.default_jobs("numpy")
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "--paper", "reneau2025", "--jobs", str(usable + 1)], out=out, err=err) == 2
    assert out.getvalue() == "" and f"pass at most --jobs {usable}" in err.getvalue()
