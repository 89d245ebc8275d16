"""``isomat bench``: the runner, its reports, and the GPU benchmark's code through the stand-in."""

from __future__ import annotations

import importlib.util
import io
import json
import textwrap
import time
from pathlib import Path

import pytest

from isomat.bench import figure, ratio, run_benchmarks, time_median
from isomat.cli import main

ROOT = Path(__file__).resolve().parent.parent

JSON_SCRIPT = textwrap.dedent('''
    import argparse, sys
    from isomat.bench import figure, ratio, write_result
    ap = argparse.ArgumentParser(); ap.add_argument("--json"); ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    f1 = figure("slow", 4.0 if not a.quick else 2.0, "s", repeats=3)
    f2 = figure("fast", 1.0, "s", repeats=3)
    write_result(a.json, {"benchmark": "good", "figures": [f1, f2], "ratios": [ratio("speedup", f1, f2)],
                          "notes": ["quick" if a.quick else "full"]})
''')
PLAIN_SCRIPT = "print('plain output 42')\n"
FAILING_SCRIPT = "import sys\nprint('boom', file=sys.stderr)\nsys.exit(3)\n"


@pytest.fixture
def bench_dir(tmp_path):
    d = tmp_path / "benchmarks"
    d.mkdir()
    (d / "good.py").write_text(JSON_SCRIPT)
    (d / "plain.py").write_text(PLAIN_SCRIPT)
    (d / "bad.py").write_text(FAILING_SCRIPT)
    (d / "_helper.py").write_text("raise SystemExit('not a benchmark')\n")
    return d


def test_reports(bench_dir, tmp_path):
    j, m = tmp_path / "r.json", tmp_path / "r.md"
    report = run_benchmarks(bench_dir, json_path=j, markdown_path=m, quick=True)
    on_disk = json.loads(j.read_text())
    assert on_disk["benchmarks"] == json.loads(json.dumps(report["benchmarks"]))
    by = {b["name"]: b for b in on_disk["benchmarks"]}
    assert set(by) == {"good", "plain", "bad"}
    good = by["good"]
    assert good["status"] == "ok" and "--quick" in good["command"] and "--json" in good["command"]
    assert good["result"]["ratios"][0]["value"] == 2.0 and good["result"]["notes"] == ["quick"]
    assert "machine" in good["result"] and "gpu" in on_disk["machine"]
    assert by["plain"]["status"] == "ok" and "plain output 42" in by["plain"]["stdout"]
    assert "--json" not in by["plain"]["command"]
    assert by["bad"]["status"] == "failed" and by["bad"]["returncode"] == 3 and "boom" in by["bad"]["stderr"]
    md = m.read_text()
    assert "## good" in md and "| speedup | 2 |" in md and "plain output 42" in md and "Failed (exit 3)" in md
    assert "GPU:" in md


def test_cli_only_and_exit_status(bench_dir, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    j, m = tmp_path / "a.json", tmp_path / "a.md"
    code = main(["bench", "--dir", str(bench_dir), "--only", "good", "--json", str(j), "--markdown", str(m)],
                out=out, err=err)
    assert code == 0, err.getvalue()
    assert [b["name"] for b in json.loads(j.read_text())["benchmarks"]] == ["good"]
    assert json.loads(j.read_text())["benchmarks"][0]["result"]["notes"] == ["full"]
    code = main(["bench", "--dir", str(bench_dir), "--only", "bad", "--json", str(j), "--markdown", str(m)],
                out=out, err=err)
    assert code == 1 and "failed: bad" in out.getvalue()
    code = main(["bench", "--dir", str(bench_dir), "--only", "nope", "--json", str(j), "--markdown", str(m)],
                out=out, err=err)
    assert code == 2 and "--only: no benchmark named nope" in err.getvalue()


def test_helpers():
    calls = []
    t, ts = time_median(lambda: calls.append(1), repeats=5, warmup=2)
    assert len(calls) == 7 and len(ts) == 5 and min(ts) <= t <= max(ts)
    with pytest.raises(ValueError, match="repeats"):
        time_median(lambda: None, repeats=0)
    r = ratio("r", figure("a", 3.0, "s"), figure("b", 1.5, "s"))
    assert r["value"] == 2.0 and r["numerator"] == "a"


def _load_gpu_benchmark():
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "benchmarks" / "gpu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gpu_benchmark_skips_with_reason_without_device(tmp_path):
    from isomat.bench import run_script
    from isomat.gpu import gpu_status

    ok, reason = gpu_status()
    if ok:
        pytest.skip("a usable device exists: nothing to skip")
    entry = run_script(ROOT / "benchmarks" / "gpu.py", quick=True, timeout=120)
    assert entry["status"] == "skipped", entry
    assert entry["result"]["skipped"] == reason


def test_gpu_benchmark_code_runs_through_standin(cupy_standin_module):
    """Every line of the GPU benchmark runs on the CPU (timings meaningless, structure checked)."""
    mod = _load_gpu_benchmark()
    res = mod.run(size=24, n=32, batch=4, repeats=2, channels=2, channel_size=16, large_size=16, build_size=32,
                  spm_sizes=(32,))
    names = [f["name"] for f in res["figures"]]
    assert {"conv SpMV time", "conv SpMV effective bandwidth", "device copy bandwidth",
            "dense forward X @ W (cuBLAS), n=32"} <= set(names)
    spmv = next(f for f in res["figures"] if f["name"] == "conv SpMV time")
    assert spmv["params"]["nnz"] == 22 * 22 * 9 + 4 * 22 * 6 + 4 * 4
    assert any(r["name"] == "SpMV bandwidth / theoretical peak" for r in res["ratios"])
    spm = [f for f in res["figures"] if f["name"].startswith("SPM")]
    assert spm or any(n.startswith("spm") for n in res["notes"]), res["notes"]


SKIP_SCRIPT = textwrap.dedent('''
    import argparse, json, sys
    ap = argparse.ArgumentParser(); ap.add_argument("--json"); ap.add_argument("--code", type=int, default=CODE)
    a = ap.parse_args()
    json.dump({"benchmark": "NAME", SKIPPED "figures": [], "ratios": [], "notes": []}, open(a.json, "w"))
    print("SKIP  no device", file=sys.stderr)
    sys.exit(a.code)
''')


@pytest.mark.parametrize("name,code,skipped,status", [
    ("skip_exit2", 2, '"skipped": "no usable CUDA device: none here",', "skipped"),  # the checklist's way
    ("skip_exit0", 0, '"skipped": "no usable CUDA device: none here",', "skipped"),
    ("noskip_exit2", 2, "", "failed"),  # a JSON without the key does not excuse the exit status
    ("emptyskip_exit2", 2, '"skipped": "",', "failed"),
])
def test_a_written_skip_is_a_skip_whatever_the_exit_status(tmp_path, name, code, skipped, status):
    from isomat.bench import run_script

    script = tmp_path / "benchmarks" / f"{name}.py"
    script.parent.mkdir()
    script.write_text(SKIP_SCRIPT.replace("CODE", str(code)).replace("NAME", name).replace("SKIPPED", skipped))
    entry = run_script(script, timeout=60)
    assert entry["status"] == status, entry
    assert entry["returncode"] == code
    if status == "skipped":
        assert entry["reason"] == "no usable CUDA device: none here"
        assert entry["result"]["skipped"] == entry["reason"]
        report = run_benchmarks(script.parent, json_path=tmp_path / "r.json", markdown_path=tmp_path / "r.md")
        (b,) = report["benchmarks"]
        assert b["status"] == "skipped"
        text = (tmp_path / "r.md").read_text()
        assert "Skipped: no usable CUDA device: none here" in text and "Failed" not in text
    else:
        assert "reason" not in entry and "SKIP  no device" in entry["stderr"]


def test_device_checklist_is_a_skip_in_the_bench_report_without_a_device():
    # benchmarks/device_checklist.py exits 2 without a GPU (a shell run notices); isomat bench reads
    # its JSON and reports a skip with the probe's reason, not a failure
    from isomat.bench import run_script
    from isomat.gpu import gpu_status

    ok, reason = gpu_status()
    if ok:
        pytest.skip("a usable device exists: the checklist runs")
    entry = run_script(ROOT / "benchmarks" / "device_checklist.py", quick=True, timeout=300)
    assert entry["returncode"] == 2, entry
    assert entry["status"] == "skipped", entry
    assert reason in entry["reason"]


# -- issue 29: honest timings ------------------------------------------------------------------------
def test_bench_does_not_import_cli():
    import subprocess
    import sys

    code = "import sys, isomat.bench; isomat.bench.machine(); print('isomat.cli' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
    from isomat import _config, cli

    assert cli._machine is _config.machine_info and {"platform", "cpus", "numpy"} <= set(_config.machine_info())


def test_time_legs_interleaves_and_reports_min_median_max():
    from isomat.bench import time_legs

    order = []
    t = time_legs({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeats=3, warmup=1,
                  number={"a": 2, "b": 1})
    assert order == ["a", "a", "b"] * 4  # warm-up round, then A B A B ...
    for leg in t.values():
        assert len(leg.times) == 3 and leg.min <= leg.median <= leg.max
    with pytest.raises(ValueError, match="repeats"):
        time_legs({"a": lambda: None}, repeats=0)


def _timing(name, times, threads=None):
    from isomat.bench import Timing

    return Timing(name, list(times), threads)


def test_verdict_noisy_bound_and_load():
    from isomat.bench import LoadWatch, verdict, verdict_text

    slow, fast = _timing("slow", [4.0, 4.1, 4.2]), _timing("fast", [1.0, 1.0, 1.1])
    with LoadWatch() as lw:
        pass
    v = verdict("speedup", slow, fast, target=3, load=lw)
    assert v["verdict"] == "met" and v["value"] == pytest.approx(4.1) and "load_before" in v and "load_after" in v
    assert verdict("speedup", slow, fast, target=5)["verdict"] == "not met"
    noisy = _timing("noisy", [1.0, 2.5, 3.0])  # median 2.5 > 2 x min 1.0
    assert noisy.noisy and verdict("r", slow, noisy, target=1)["verdict"] == "noisy"
    assert "NOISY" in verdict_text(verdict("r", slow, noisy, target=1))
    # a measurement under its physical bound: the bound is wrong, not a result < 1
    bound, meas = _timing("bound", [2.0, 2.0, 2.0]), _timing("time", [1.0, 1.0, 1.0])
    v = verdict("time / bound", meas, bound, bound=True)
    assert v["verdict"] == "bound wrong" and "BOUND WRONG" in verdict_text(v)
    assert verdict("time / bound", bound, meas, bound=True)["verdict"] == "measured"


def test_scaling_check_flags_impossible_and_collapsed_columns():
    from isomat.bench import scaling_check

    one, two = _timing("1", [3.4, 3.4, 3.5]), _timing("2", [1.0, 1.0, 1.0])
    assert "IMPOSSIBLE" in scaling_check(one, two, 2)  # 3.4x from 2 threads
    assert scaling_check(_timing("1", [1.8] * 3), two, 2) is None
    assert "COLLAPSED" in scaling_check(_timing("1", [1.0] * 3), _timing("2", [60.0] * 3), 2)
    assert scaling_check(one, two, 1) is None


def test_thread_limit_sets_and_restores():
    pytest.importorskip("threadpoolctl")
    import numpy as np  # noqa: F401  (loads OpenBLAS)
    from threadpoolctl import threadpool_info

    from isomat.bench import all_threads, thread_columns, thread_limit

    before = [d["num_threads"] for d in threadpool_info()]
    with thread_limit(1) as n:
        assert n == 1 and all(d["num_threads"] == 1 for d in threadpool_info())
    assert [d["num_threads"] for d in threadpool_info()] == before
    assert thread_columns()[0] == 1 and thread_columns()[-1] == all_threads()
    with pytest.raises(ValueError):
        with thread_limit(0):
            pass


def test_timing_figure_carries_min_max():
    from isomat.bench import timing_figure

    f = timing_figure("x", _timing("x", [1.0, 2.0, 4.0], threads=1), "s", n=3)
    assert f["value"] == 2.0 and f["params"]["min"] == 1.0 and f["params"]["max"] == 4.0
    assert f["params"]["threads"] == 1 and f["repeats"] == 3 and "noisy" not in f["params"]


def test_loadwatch_counts_other_processes_not_its_own():
    """A busy child process shows up in ``others``; this process's own CPU time does not."""
    import subprocess
    import sys as _sys

    from isomat.bench import LoadWatch, cpu_busy_seconds
    if cpu_busy_seconds() is None:
        pytest.skip("no /proc/stat here")
    burner = subprocess.Popen([_sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<3: pass"])
    try:
        time.sleep(0.3)
        with LoadWatch() as lw:
            time.sleep(1.0)
    finally:
        burner.kill()
        burner.wait()
    assert lw.others is not None and lw.others > 0.4, lw.text  # the burner held about one core
    assert lw.loaded and "other processes used" in lw.text


def test_loadwatch_counts_a_leg_run_as_a_subprocess_as_its_own(monkeypatch):
    """A measured leg that is a child process (``benchmarks/ledger.py`` times ``isomat verify --jobs N``)
    is the measurement: its CPU time, once waited for, is this process's, not another process's load
    (the ledger's parallel speedup was judged "loaded" on a quiet machine, its own workers counted as
    others).  Checked without depending on the machine's load: the child's CPU time shows in this
    process's, and LoadWatch's arithmetic is fed known busy times."""
    import subprocess
    import sys as _sys

    from isomat import bench

    before = bench._own_cpu_seconds()
    child = subprocess.run([_sys.executable, "-c", "import time\nx = 0\nfor i in range(3_000_000): x += i\n"
                            "print(time.process_time())"], check=True, capture_output=True, text=True)
    assert bench._own_cpu_seconds() - before >= 0.9 * float(child.stdout)  # the waited-for child's seconds

    clock = {"busy": 100.0, "own": 5.0, "t": 10.0}
    with monkeypatch.context() as m:  # (undone before pytest reads its own clock again)
        m.setattr(bench, "cpu_busy_seconds", lambda: clock["busy"])
        m.setattr(bench, "_own_cpu_seconds", lambda: clock["own"])
        m.setattr(bench.time, "perf_counter", lambda: clock["t"])
        with bench.LoadWatch() as lw:
            clock.update(busy=102.0, own=6.8, t=11.0)  # 2 busy core-seconds in 1 s, 1.8 of them this process's
    assert abs(lw.others - 0.2) < 1e-9 and not lw.loaded, lw.text


def test_verdict_withheld_when_multithread_legs_lacked_cores():
    from isomat.bench import LoadWatch, all_threads, verdict, verdict_text
    fast, slow = _timing("fast", [1.0, 1.0, 1.1]), _timing("slow", [3.0, 3.0, 3.1])
    busy = LoadWatch(before=2.0, after=2.0, others=all_threads())  # every core busy elsewhere
    quiet = LoadWatch(before=0.1, after=0.1, others=0.0)
    fast.threads = slow.threads = all_threads()
    if all_threads() > 1:
        v = verdict("r", slow, fast, target=2, load=busy)
        assert v["verdict"] == "loaded" and "LOADED" in verdict_text(v)
    assert verdict("r", slow, fast, target=2, load=quiet)["verdict"] == "met"
    fast.threads = slow.threads = 1  # one-thread interleaved legs: the load hits both alike
    assert verdict("r", slow, fast, target=2, load=busy)["verdict"] == "met"
    v = dict(verdict("r", slow, fast, target=2), verdict="disturbed", why="COLLAPSED: x")
    assert "DISTURBED (COLLAPSED: x)" in verdict_text(v)


def test_compare_verdicts_flags_a_contradiction_and_accepts_a_withheld_verdict(tmp_path):
    """benchmarks/_compare_verdicts.py: 'met' in one report and 'not met' in the other is a contradiction
    (exit 1); a verdict withheld under load is not."""
    import subprocess
    import sys as _sys

    def report(path, ratio_verdict, text_mark):
        path.write_text(json.dumps({"benchmarks": [
            {"name": "a", "result": {"ratios": [{"name": "x / y (1 thread(s))", "verdict": ratio_verdict}]}},
            {"name": "b", "stdout": f"section\n  leg one      1.0 2.0 3.0 ms  x bound 1 2 3  [{text_mark}]\n"}]}))
        return str(path)

    script = str(Path(__file__).resolve().parent.parent / "benchmarks" / "_compare_verdicts.py")
    quiet = report(tmp_path / "q.json", "met", "target <= 2.5x met")
    loaded = report(tmp_path / "l.json", "met", "loaded: other processes kept 1.00 cores busy, no verdict")
    flipped = report(tmp_path / "f.json", "not met", "target <= 2.5x met")
    ok = subprocess.run([_sys.executable, script, quiet, loaded], capture_output=True, text=True)
    assert ok.returncode == 0 and "2 verdict lines; 0 contradictions" in ok.stdout, ok.stdout
    bad = subprocess.run([_sys.executable, script, quiet, flipped], capture_output=True, text=True)
    assert bad.returncode == 1 and "CONTRADICTION" in bad.stdout, bad.stdout


LEDGER_CLAIMS = textwrap.dedent('''
    from isomat.proofs.engine import claim, decide, exhaustive

    @claim("benchlab2026:eq1", quote="n(n+1) is even", statement="n(n+1) is even for 0 <= n < 50",
           methods=["exhaustive"])
    def _eq1():
        return decide(exhaustive(lambda n: n * (n + 1) % 2 == 0, range(50), describe="0 <= n < 50"))

    @claim("benchlab2026:eq2", quote="n^2 >= n", statement="n^2 >= n for 0 <= n < 50", methods=["exhaustive"])
    def _eq2():
        return decide(exhaustive(lambda n: n * n >= n, range(50), describe="0 <= n < 50"))
''')


def test_ledger_benchmark_runs_on_your_own_claims(tmp_path):
    """benchmarks/ledger.py end to end -- both legs, their figures, the speedup ratio, the budget ratios -- on two small
    claims (``--claims``), instead of timing two runs of a paper's ledger (the wheel test no longer runs it)."""
    import subprocess
    import sys

    claims = tmp_path / "bench_claims.py"
    claims.write_text(LEDGER_CLAIMS)
    out = tmp_path / "ledger.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ledger.py"), "--quick", "--claims", str(claims),
                           "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"isomat verify --claims {claims}: 1 interleaved runs per leg" in proc.stdout
    result = json.loads(out.read_text())
    names = [f["name"] for f in result["figures"]]
    assert names[0] == "ledger total, --jobs 1" and all(f["unit"] == "s" and f["value"] > 0 for f in result["figures"])
    assert any(r["name"].endswith("/ budget") for r in result["ratios"])
    assert any("benchlab2026:eq" in n for n in result["notes"])  # the slowest claims are the file's
    assert not any("the 60 s budget" in n for n in result["notes"])  # no budget verdict on other claims
