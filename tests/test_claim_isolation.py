"""One claim cannot touch another, the package's files are read-only to the CLI, nothing outlives a run
(issue 37, items 3-6).

Each finding of the issue is reproduced on a real ``python -m isomat verify`` process: a claims file
with one good claim, the hostile one, and the good refuted claim after it (the one a reused worker's
patched engine used to turn into ``holds``, exit 0).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests._procs import tagged

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 3  # --claim-timeout
LIMIT = 120  # a run still going after this long is hung

# the claims file's first and last claims, which a hostile claim between them must not touch
from tests.test_hostile_claims import HEAD, TAIL  # noqa: E402
from tests.test_hostile_claims import _assert_good as _assert_first_and_last_good  # noqa: E402


def _hostile(body: str, name: str = "hostile") -> str:
    """A claim ``goodlab2026:<name>`` whose check is ``body`` (``name`` may be ``hostile/<case>``)."""
    fn = "_" + name.replace("/", "_").replace("-", "_")
    return (f'\n\n@claim("goodlab2026:{name}", quote="q", statement="s", methods=["exhaustive"])\n'
            f"def {fn}():\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n")


def _name(case: str) -> str:
    return "hostile/" + case.replace("_", "-")


def _cases_file(cases: dict) -> str:
    """The good first claim, every case of ``cases`` as a claim of its own (``goodlab2026:hostile/<case>``),
    the good last claim, and a good claim after them all: each user claim runs in a worker of its own, so one
    run shows every case -- and that no hostile claim touches another's record either."""
    return HEAD + "".join(_hostile(body, _name(case)) for case, (body, _) in sorted(cases.items())) + TAIL \
        + _hostile("return " + GOOD, "after")


GOOD = 'decide(exhaustive(lambda k: True, range(2), describe="k in 0..1"))'

#: the worker's pipe to the runner: the third argument of its command line (isomat.proofs._runner)
FORGE = '''
from isomat.proofs import _runner
fd = int(sys.argv[3])
forged = dict(first_record, id="goodlab2026:{victim}", verdict="holds", strength="exhaustive")
forged.pop("counterexample", None)
os.write(fd, _runner.encode({{"kind": "done", "id": "goodlab2026:{victim}", "where": None, "record": forged}}))
'''

#: name: (the hostile claim's body, what its record's error says -- None: it may say anything, its verdict is its own)
CASES = {
    # the check replaces the engine's record builder, in its worker: the next claim would read "holds"
    "patch_record_of": ('''
        from isomat.proofs import engine
        def forged(c, outcome, t0):
            return dict(engine._record_head(c), verdict="holds", strength="exhaustive", evidence={}, seconds=0.0)
        engine._record_of = forged
        engine.run_claim.__globals__["_record_of"] = forged
        return ''' + GOOD, None),
    # the check disables the engine's validation and returns a verdict that is none
    "disable_outcome_problem": ('''
        from isomat.proofs import engine
        engine._outcome_problem = lambda o: None
        engine.run_claim.__globals__["_outcome_problem"] = lambda o: None
        o = ''' + GOOD + '''
        object.__setattr__(o, "verdict", "totally-proved")
        return o''', "totally-proved"),
    # the check sends a record of the next claim down its worker's pipe (two records with one id)
    "forge_other_claim": ("first_record = {'id': 'x', 'paper': 'goodlab2026', 'label': 'last', 'quote': 'q', "
                          "'statement': 's', 'methods': ['exhaustive'], 'evidence': {}, 'seconds': 0.0}\n"
                          + FORGE.format(victim="last") + "return " + GOOD, "goodlab2026:last"),
    "forge_own_twice": ("first_record = {'id': 'x', 'paper': 'goodlab2026', 'label': 'hostile', 'quote': 'q', "
                        "'statement': 's', 'methods': ['exhaustive'], 'evidence': {}, 'seconds': 0.0}\n"
                        + FORGE.format(victim="hostile/forge-own-twice") + "return " + GOOD, None),
    # garbage on the pipe: a huge announced length, bytes that are no JSON, a frame cut short
    "garbage_length": ("os.write(int(sys.argv[3]), b'\\xff' * 64)\nreturn " + GOOD, "malformed"),
    "garbage_pickle": ("import pickle, struct\nbody = pickle.dumps(object)\n"
                       "os.write(int(sys.argv[3]), struct.pack('!Q', len(body)) + body)\nreturn " + GOOD, "malformed"),
    "garbage_deep": ("import struct\nbody = b'[' * 100000 + b']' * 100000\n"
                     "os.write(int(sys.argv[3]), struct.pack('!Q', len(body)) + body)\nreturn " + GOOD, "malformed"),
    "garbage_partial_then_hang": ("os.write(int(sys.argv[3]), b'\\x00\\x00\\x00')\ntime.sleep(10**6)",
                                  f"timed out after {TIMEOUT} s"),
    # a message that would end the run (a worker that cannot import the claims) sent by a check: its error only
    "forge_init_error": ("from isomat.proofs import _runner\n"
                         "os.write(int(sys.argv[3]), _runner.encode({'kind': 'init-error', 'error': 'forged'}))\n"
                         "return " + GOOD, "init-error"),
    "close_pipe": ("os.close(int(sys.argv[3]))\nreturn " + GOOD, "worker process"),
}


def _env(**extra: str) -> dict:
    return dict(os.environ, ISOMAT_RECHECK="0",
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), **extra)


def _verify(path: Path, *args: str, env: dict | None = None, timeout: float = LIMIT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "isomat", "verify", *args], capture_output=True, text=True,
                          env=env or _env(), cwd=path.parent if path.is_file() else path, timeout=timeout)


def _assert_good(recs: dict) -> None:
    """test_hostile_claims' check of the good first and last claims, and that the last one tested every case."""
    _assert_first_and_last_good(recs)
    assert recs["goodlab2026:last"]["evidence"]["printed"]["tested"] == 6


# every user's claim has a worker of its own whatever --jobs says: every case in one run (a run starts an
# interpreter per claim); the finding itself (a patched engine in a reused worker) is run with both counts
@pytest.mark.parametrize(("jobs", "cases"), [(2, sorted(CASES)), (1, ["patch_record_of"])])
def test_hostile_claims_change_no_other_record(jobs, cases, tmp_path):
    path = tmp_path / f"isolation_{jobs}.py"
    path.write_text(_cases_file({c: CASES[c] for c in cases}))
    p = _verify(path, "--claims", str(path), "--json", "--claim-timeout", str(TIMEOUT), "--jobs", str(jobs))
    report = json.loads(p.stdout)  # valid JSON, nothing else on stdout
    ids = [r["id"] for r in report["claims"]]
    assert ids == (["goodlab2026:first"] + [f"goodlab2026:{_name(c)}" for c in cases]
                   + ["goodlab2026:last", "goodlab2026:after"]), ids
    recs = {r["id"]: r for r in report["claims"]}
    _assert_good(recs)
    assert recs["goodlab2026:after"]["verdict"] == "holds", recs["goodlab2026:after"]
    assert recs["goodlab2026:after"]["evidence"]["printed"]["tested"] == 2
    errors = False
    for case in cases:
        hostile = recs[f"goodlab2026:{_name(case)}"]
        error = CASES[case][1]
        if error is not None:
            assert hostile["verdict"] == "error" and error in hostile["error"], (case, hostile)
        errors |= hostile["verdict"] == "error"
    assert p.returncode == (1 if errors else 0), p.stderr[-2000:]
    assert "Traceback" not in p.stderr, p.stderr[-3000:]


def test_records_are_built_from_the_runners_claim(tmp_path):
    # a check that rewrites its record's head in its worker (quote, statement, methods) changes nothing:
    # the head is the runner's own claim; only the verdict and evidence are the worker's, validated
    from isomat.proofs import _runner
    from isomat.proofs.engine import Claim

    c = Claim("goodlab2026:x", "the quote", "the statement", ("exhaustive",), lambda: None)
    sent = {"id": "goodlab2026:x", "paper": "goodlab2026", "label": "x", "quote": "forged", "statement": "forged",
            "methods": ["symbolic"], "verdict": "holds", "strength": "exhaustive",
            "evidence": {"printed": {"ok": True, "method": "exhaustive", "tested": 2}}, "seconds": 0.5,
            "same_proof_as": "zhu2025:thm4.1/forward", "obligations": ["forged"]}
    rec = _runner.record_from_worker(c, sent)
    assert (rec["quote"], rec["statement"], rec["methods"]) == ("the quote", "the statement", ["exhaustive"])
    assert "same_proof_as" not in rec and "obligations" not in rec
    for bad, why in [({"id": "goodlab2026:y"}, "not of"), ({"verdict": "totally-proved"}, "schema"),
                     ({"strength": "proved"}, "sizes"), ({"strength": "proved", "sizes": [], "obligations": []}, "for_all"), ({"verdict": "refuted", "strength": "counterexample"},
                                                          "counterexample"),
                     ({"evidence": {"cross": {"ok": False}}}, "failed check"), ({"seconds": -1}, "below"),
                     ({"verdict": "error"}, "error")]:
        with pytest.raises(_runner.MessageError, match=why):
            _runner.record_from_worker(c, {**sent, **bad})
    with pytest.raises(_runner.MessageError):
        _runner.record_from_worker(c, ["not", "a", "record"])


def test_the_record_validator_agrees_with_jsonschema(tmp_path):
    # the runner's validator of ledger.schema.json against the jsonschema package (an independent
    # implementation), on real records and on broken copies of them
    jsonschema = pytest.importorskip("jsonschema")
    from isomat.proofs import _runner

    path = tmp_path / "agree_claims.py"
    path.write_text(HEAD + TAIL)
    p = _verify(path, "--claims", str(path), "--json", "--claim-timeout", "30", "--jobs", "1")
    records = json.loads(p.stdout)["claims"]
    schema = json.loads((ROOT / "isomat" / "proofs" / "ledger.schema.json").read_text())
    validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/record"})
    broken = []
    for r in records:
        broken += [r, {**r, "verdict": "nope"}, {**r, "strength": "proved"}, {**r, "methods": []},
                   {**r, "id": "Bad Id"}, {k: v for k, v in r.items() if k != "evidence"}, {**r, "seconds": "1"},
                   {**r, "beyond": False}, {**r, "second_solver": {"obligations": 0, "confirmed": 0,
                                                                   "single_solver": []}},
                   {**r, "discrepancies": [{"where": "x", "printed": 1}]}, {**r, "verdict": "misprint"}]
    for rec in broken:
        theirs = not list(validator.iter_errors(rec))
        ours = not _runner.schema_problems(rec)
        assert ours == theirs, (rec, _runner.schema_problems(rec), [e.message for e in validator.iter_errors(rec)])


# -- nothing outlives a run -----------------------------------------------------------------------------
FORKS = {
    "fork": 'if os.fork() == 0:\n    time.sleep(10**6)\n    os._exit(0)\nreturn ' + GOOD,
    "fork_setsid": 'if os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\n    os._exit(0)\nreturn ' + GOOD,
    "double_fork_setsid": ('if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(10**6)\n'
                           '    os._exit(0)\nreturn ' + GOOD),
    "fork_and_hang": 'if os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\n    os._exit(0)\ntime.sleep(10**6)',
    "subprocess_sleep": ('import subprocess\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(10**6)"], '
                         'start_new_session=True)\nreturn ' + GOOD),
}


def _tagged(tag: str) -> list[int]:
    return tagged("ISOLATION_TEST", tag)


@pytest.fixture(scope="module")
def plain_run_seconds(tmp_path_factory):
    """The wall time of the same run with checks that start nothing: the interpreters' start and the
    run's own work on this machine, now -- what the issue's bound (claim timeout + 5 s) comes on top of."""
    path = tmp_path_factory.mktemp("plain") / "plain.py"
    path.write_text(_cases_file({case: ("return " + GOOD, None) for case in FORKS}))
    t0 = time.monotonic()
    _verify(path, "--claims", str(path), "--json", "--claim-timeout", str(TIMEOUT), "--jobs", "1")
    return time.monotonic() - t0


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc to find the processes")
@pytest.mark.parametrize(("jobs", "cases"), [(1, sorted(FORKS)), (2, ["double_fork_setsid"])])
def test_nothing_a_check_starts_outlives_the_run(jobs, cases, tmp_path, plain_run_seconds):
    # subprocess.run(capture_output=True) waits until every holder of the pipes is gone: it used to wait 47 s,
    # or forever, for a process the check left behind
    path = tmp_path / f"forks_{jobs}.py"
    path.write_text(_cases_file({c: (FORKS[c], None) for c in cases}))
    tag = uuid.uuid4().hex
    t0 = time.monotonic()
    p = _verify(path, "--claims", str(path), "--json", "--claim-timeout", str(TIMEOUT), "--jobs", str(jobs),
                env=_env(ISOLATION_TEST=tag))
    wall = time.monotonic() - t0
    recs = {r["id"]: r for r in json.loads(p.stdout)["claims"]}
    _assert_good(recs)
    for case in cases:
        hostile = recs[f"goodlab2026:{_name(case)}"]
        if case == "fork_and_hang":
            assert f"timed out after {TIMEOUT} s" in hostile["error"], hostile
        else:
            assert hostile["verdict"] == "holds", (case, hostile)
    time.sleep(0.5)
    left = _tagged(tag)
    assert not left, [(pid, (Path(f"/proc/{pid}/cmdline").read_bytes()[:200])) for pid in left]
    # the issue's bound: subprocess.run(capture_output=True) returns within the claim timeout + 5 s of what the
    # same run takes when its checks start nothing (measured just before, on this machine as loaded as it is);
    # a run that waited for a leftover process would have taken 10**6 s
    assert wall < LIMIT
    assert wall <= plain_run_seconds + TIMEOUT + 5, (wall, plain_run_seconds)


# -- the package's files are read-only to the CLI -------------------------------------------------------
def _package_expected() -> dict[str, str]:
    d = ROOT / "isomat" / "proofs" / "expected"
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.glob("*.json"))}


def test_write_expected_never_writes_the_package(tmp_path):
    from isomat.cli import main
    import io

    before = _package_expected()
    user = tmp_path / "paper_ids_refused.py"  # (claims run in this process: ids of their own)
    user.write_text((HEAD + TAIL).replace("goodlab2026", "pkglab2026").replace("pkglab2026:first", "do2017:mine"))
    runs = [
        # the finding: --claim ID --write-expected cut reneau2025.json from 41 entries to 1
        (["--claim", "reneau2025:abstract/lora", "--write-expected"], "--expected FILE"),
        # a --claims file with a do2017: id replaced do2017.json
        (["--claims", str(user), "--write-expected"], "--expected FILE"),
        (["--claims", str(user), "--write-expected", "--expected", str(ROOT / "isomat" / "proofs" / "expected" /
                                                                       "do2017.json")], "inside the isomat package"),
        (["--claims", str(user), "--write-expected", "--expected", str(tmp_path / "mine.json")], "--include-papers"),
        (["--paper", "reneau2025", "--write-expected", "--expected", str(tmp_path / "mine.json")], "--include-papers"),
        (["--claims", str(user), "--include-papers"], "goes with --write-expected"),
    ]
    for argv, message in runs:
        out, err = io.StringIO(), io.StringIO()
        code = main(["verify", *argv], out=out, err=err)
        assert code == 2 and message in err.getvalue() and len(err.getvalue().splitlines()) == 1, (argv, err.getvalue())
        assert not (tmp_path / "mine.json").exists()
    # a symbolic link into the package is the package too
    link = tmp_path / "link.json"
    link.symlink_to(ROOT / "isomat" / "proofs" / "expected" / "do2017.json")
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "--claims", str(user), "--write-expected", "--include-papers", "--expected", str(link)],
                out=out, err=err) == 2
    assert "inside the isomat package" in err.getvalue()
    assert _package_expected() == before


def test_write_expected_merges_by_id_and_includes_papers_only_when_asked(tmp_path):
    import io

    from isomat.cli import main

    guard = tmp_path / "guard.json"
    guard.write_text(json.dumps({"otherlab2025:kept": "refuted", "mergelab2026:first": "refuted"}))
    path = tmp_path / "merge_claims.py"  # (claims run in this process: ids of their own)
    path.write_text((HEAD + TAIL).replace("goodlab2026", "mergelab2026"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "--claims", str(path), "--jobs", "1", "--write-expected", "--expected", str(guard)],
                out=out, err=err) == 0, err.getvalue()
    assert json.loads(guard.read_text()) == {"otherlab2025:kept": "refuted", "mergelab2026:first": "holds",
                                             "mergelab2026:last": "refuted"}
    before = _package_expected()
    user = tmp_path / "paper_ids_included.py"
    user.write_text((HEAD + TAIL).replace("goodlab2026", "inclab2026").replace("inclab2026:first", "do2017:included"))
    assert main(["verify", "--claims", str(user), "--jobs", "1", "--write-expected", "--include-papers",
                 "--expected", str(guard)], out=io.StringIO(), err=io.StringIO()) == 0
    assert json.loads(guard.read_text())["do2017:included"] == "holds"
    assert json.loads(guard.read_text())["otherlab2025:kept"] == "refuted"
    assert _package_expected() == before


def test_write_expected_api_refuses_a_part_of_a_paper():
    from isomat import proofs

    proofs.load(["reneau2025"])
    rec = {"id": "reneau2025:abstract/lora", "paper": "reneau2025", "verdict": "holds"}
    with pytest.raises(ValueError, match="from 1 of its claims"):
        proofs.write_expected([rec])


# -- one line for every bad argument ---------------------------------------------------------------------
def test_bad_expected_and_export_smt_are_one_line(tmp_path):
    path = tmp_path / "args_claims.py"
    path.write_text(HEAD + TAIL)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "afile").write_text("x")
    cases = [
        (["--expected", str(deep)], "nests deeper"),
        (["--expected", "/dev/zero"], "a device"),
        (["--expected", str(fifo)], "a FIFO"),
        (["--expected", str(tmp_path)], "a directory"),
        (["--expected", str(tmp_path / "missing.json")], "no such file"),
        (["--write-expected", "--expected", str(deep)], "nests deeper"),
        (["--export-smt", str(tmp_path / "afile")], "--export-smt"),
        (["--export-smt", str(tmp_path / "afile" / "sub")], "--export-smt"),
    ]
    import io

    from isomat.cli import main

    # in this process: every argument is refused before the claims file is read (so nothing is declared here)
    for extra, message in cases:
        out, err = io.StringIO(), io.StringIO()
        code = main(["verify", "--claims", str(path), "--json", "--jobs", "1", *extra], out=out, err=err)
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        assert code == 2 and len(lines) == 1 and message in lines[0], (extra, err.getvalue()[-2000:])
        assert out.getvalue() == ""
    from isomat.proofs.engine import REGISTRY

    assert not any(cid.startswith("goodlab2026:") and REGISTRY[cid].check.__module__.endswith("args_claims")
                   for cid in REGISTRY)


def test_import_time_output_of_a_claims_file_is_not_on_stdout(tmp_path):
    path = tmp_path / "chatty_claims.py"
    path.write_text("import os, sys\nprint('hello at import')\nos.write(1, b'raw at import\\n')\n"
                    "print('err at import', file=sys.stderr)\n" + HEAD + TAIL)
    for extra in (["--jobs", "1"], ["--claim-timeout", "0", "--jobs", "1"]):
        p = _verify(path, "--claims", str(path), "--json", *extra)
        report = json.loads(p.stdout)
        _assert_good({r["id"]: r for r in report["claims"]})
        assert "hello at import" in p.stderr and "raw at import" in p.stderr


# -- in-process mode (--claim-timeout 0 --jobs 1): the same containment where it can be had ---------------
INPROCESS = {
    "fd_write": (f'os.write(1, b"raw on fd 1\\n")\nos.write(2, b"raw on fd 2\\n")\nreturn {GOOD}', None),
    "base_exception": ("class Escape(BaseException):\n    pass\nraise Escape('out')", "Escape"),
    "generator_exit": ("raise GeneratorExit", "GeneratorExit"),
    "thread": ("import threading\nthreading.Thread(target=time.sleep, args=(10**6,)).start()\nreturn " + GOOD, None),
}


def test_in_process_claims_are_contained(tmp_path):
    path = tmp_path / "inproc_all.py"
    path.write_text(_cases_file(INPROCESS))
    p = _verify(path, "--claims", str(path), "--json", "--claim-timeout", "0", "--jobs", "1", timeout=60)
    recs = {r["id"]: r for r in json.loads(p.stdout)["claims"]}  # the JSON alone on stdout
    _assert_good(recs)
    for case, (_, error) in sorted(INPROCESS.items()):
        hostile = recs[f"goodlab2026:{_name(case)}"]
        if error is None:
            assert hostile["verdict"] == "holds", (case, hostile, p.stderr[-2000:])
        else:
            assert hostile["verdict"] == "error" and error in hostile["error"], (case, hostile)
        if case == "fd_write":
            assert "raw on fd 1" in hostile["output"] and "raw on fd 2" in hostile["output"]
    assert p.returncode == 1  # errors among the records
    assert "Traceback" not in p.stderr, p.stderr[-2000:]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_kill_tagged_matches_a_worker_tag_exactly_and_a_run_by_prefix():
    # worker 1's tag must not end workers 10, 11, ... of the same run; the run's end takes them all
    from isomat.proofs import _runner

    run = uuid.uuid4().hex
    procs = {tag: subprocess.Popen(["sleep", "600"], env=dict(os.environ, ISOMAT_WORKER=f"{run}.{tag}"),
                                   start_new_session=True) for tag in ("1", "10")}
    try:
        time.sleep(0.3)
        assert _runner.kill_tagged(f"{run}.1") == 1
        assert procs["1"].wait(10) == -9 and procs["10"].poll() is None
        assert _runner.kill_tagged(f"{run}.", prefix=True) == 1
        assert procs["10"].wait(10) == -9
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


def test_maintainers_script_refuses_what_is_not_a_paper():
    # benchmarks/_write_expected.py is the one route that writes the package's expected files
    import importlib.util

    spec = importlib.util.spec_from_file_location("_write_expected_script", ROOT / "benchmarks" / "_write_expected.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for argv in ([], ["mylab2026"]):
        with pytest.raises(SystemExit) as exc:
            script.main(argv)
        assert exc.value.code == 2
    from isomat import proofs

    with pytest.raises(ValueError, match="not a claim of the five papers"):
        proofs.write_expected([{"id": "mylab2026:eq1", "paper": "mylab2026", "verdict": "holds"}])
