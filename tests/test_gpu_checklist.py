"""Issue 15: ``benchmarks/device_checklist.py``, the one command that checks a real device.

Without a usable CUDA device it must say so (the probe's reason) and exit 2, or 0 with
``--allow-skip`` -- the CI path, run here as a subprocess. Through the CuPy stand-in the checks
themselves run (families, int64 indices, verify, Dask), a check that cannot run is a SKIP with its
reason, and a failing one a FAIL line and exit status 1.
"""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .conftest import GPU_OK, GPU_REASON
from .test_gpu_families import CASES

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "device_checklist.py"

no_device_only = pytest.mark.skipif(GPU_OK, reason="a usable CUDA device is present: the checklist would run")


def _script():
    spec = importlib.util.spec_from_file_location("device_checklist", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@no_device_only
def test_without_a_device_the_ci_path_skips_with_the_reason(tmp_path):
    out = tmp_path / "summary.json"
    proc = _run("--allow-skip", "--json", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = f"no usable CUDA device: {GPU_REASON.removeprefix('GPU field skipped: ')}"
    assert proc.stdout.startswith("SKIP") and line in proc.stdout, proc.stdout
    summary = json.loads(out.read_text())
    assert summary["status"] == "skipped" and summary["reason"] == summary["skipped"] == line and summary["checks"] == []
    assert summary["exit_status"] == 0


@no_device_only
def test_without_a_device_and_without_allow_skip_it_exits_2(tmp_path):
    proc = _run("--json", str(tmp_path / "s.json"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "no usable CUDA device: " in proc.stdout and "--allow-skip" in proc.stderr
    assert json.loads((tmp_path / "s.json").read_text())["exit_status"] == 2


def test_the_checklist_covers_every_family_the_tests_cover():
    assert set(_script().FAMILY_NAMES) == set(CASES)


def test_unknown_check_names_are_refused():
    with pytest.raises(SystemExit, match="unknown check"):
        _script().main(["--only", "probe,nope", "--json", ""])


STANDIN = ROOT / "tests" / "cupy_standin"


def _standin_env(monkeypatch, *extra: Path) -> None:
    """Subprocesses (gpu.py, the two verify runs) import the stand-in as ``cupy`` too."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(map(str, [*extra, STANDIN, ROOT])))
    monkeypatch.setenv("ISOMAT_RECHECK", "0")


@pytest.mark.standin
def test_the_checks_run_through_the_standin(cupy_standin_module, monkeypatch, tmp_path):
    _standin_env(monkeypatch)
    dc = _script()
    out = io.StringIO()
    path = tmp_path / "summary.json"
    code = dc.main(["--json", str(path), "--verify-paper", "do2017", "--skip", "dask", "--quick"], out=out)
    text = out.getvalue()
    summary = json.loads(path.read_text())
    by_name = {c["name"]: c for c in summary["checks"]}
    assert by_name["probe"]["status"] == "PASS"
    for fam in dc.FAMILY_NAMES:
        assert by_name[f"families/{fam}"]["status"] == "PASS", by_name[f"families/{fam}"]
    assert by_name["diagonal"]["status"] == "PASS" and "float32" in by_name["diagonal"]["detail"]
    assert by_name["memory"]["status"] == "PASS" and len(by_name["memory"]["families"]) == 4
    assert by_name["int64"]["status"] == "PASS" and "indices int64" in by_name["int64"]["detail"]
    assert by_name["verify"]["status"] == "PASS", by_name["verify"]
    verdicts = by_name["verify"]["verdicts"]
    assert verdicts["cpu"] == verdicts["cupy"] and all(k.startswith("do2017:") for k in verdicts["cpu"])
    assert "dask" not in by_name
    # torch without CUDA here: a SKIP with the reason, never a PASS
    assert by_name["dlpack"]["status"] in ("SKIP", "FAIL")
    if by_name["dlpack"]["status"] == "SKIP":
        assert "torch" in by_name["dlpack"]["detail"]
    # benchmarks/gpu.py ran in its subprocess, and its whole JSON is kept beside the summary
    assert by_name["bench"]["status"] == "PASS", by_name["bench"]
    kept = json.loads((tmp_path / "summary-gpu.json").read_text())
    assert kept["figures"] and set(kept["legs"]) == {"conv", "diagonal", "channels", "large", "build", "spm"}
    assert any("not bandwidth figures" in n for n in kept["notes"])
    assert code == 0 and summary["status"] == "passed" and summary["skipped_for_time"] == []
    assert {"name", "cupy", "runtime_cuda_version"} <= set(summary["device"])
    for line in text.splitlines()[:-1]:
        assert line.split()[0] in ("PASS", "FAIL", "SKIP"), line


@pytest.mark.standin
def test_the_summary_is_on_disk_after_every_check(cupy_standin_module, monkeypatch, tmp_path):
    dc = _script()
    path = tmp_path / "s.json"
    seen = []

    def int64_reads_the_file():
        seen.extend(c["name"] for c in json.loads(path.read_text())["checks"])
        raise KeyboardInterrupt  # cut short here: what was checked is on disk

    monkeypatch.setattr(dc, "check_int64", int64_reads_the_file)
    with pytest.raises(KeyboardInterrupt):
        dc.main(["--json", str(path), "--only", "diagonal,int64"], out=io.StringIO())
    assert seen == ["probe", "diagonal"]
    assert json.loads(path.read_text())["status"] == "running"


@pytest.mark.standin
def test_checks_that_do_not_fit_the_budget_are_skipped_for_time(cupy_standin_module, tmp_path):
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "diagonal,int64,bench,verify", "--budget", "1"],
                   out=out)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert code == 0, out.getvalue()
    assert summary["skipped_for_time"] == ["diagonal", "int64", "bench", "verify"]
    assert "4 skipped (4 for time)" in out.getvalue().splitlines()[-1]
    assert summary["seconds"] < 30


@pytest.mark.standin
def test_a_wrong_kernel_value_fails_the_checklist(cupy_standin_module, corrupted_product, monkeypatch, tmp_path):
    # the diagonal check in process, and benchmarks/gpu.py in its subprocess (patched by a sitecustomize)
    _standin_env(monkeypatch, corrupted_product)
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "diagonal,bench", "--quick"], out=out)
    summary = json.loads((tmp_path / "s.json").read_text())
    by_name = {c["name"]: c for c in summary["checks"]}
    assert code == 1 and summary["failed"] == ["diagonal", "bench"], out.getvalue()
    assert "differs from" in by_name["diagonal"]["detail"]
    assert "DIFFERS" in by_name["bench"]["detail"] and by_name["bench"]["bench"]["mismatches"]


@pytest.mark.standin
def test_the_recipe_runs_dry_on_the_standin(monkeypatch, tmp_path):
    # benchmarks/device_run.sh as the README gives it, with the stand-in as cupy and no wheels to install
    import os
    import shutil

    if shutil.which("bash") is None:
        pytest.skip("no bash")
    env = dict(os.environ, OUT=str(tmp_path / "out"), PYTHON=sys.executable, WHEELS=str(tmp_path / "no-wheels"),
               CUPY_CACHE_DIR=str(tmp_path / "cache" / "cupy"), DEVCACHE=str(tmp_path / "no-cache"),
               PYTHONPATH=os.pathsep.join(map(str, [STANDIN, ROOT])), BUDGET="120", VARIANTS_S="0")
    proc = subprocess.run(["bash", str(ROOT / "benchmarks" / "device_run.sh"), "--only", "diagonal,bench", "--quick"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} >= {"checklist.json", "checklist-gpu.json", "log", "cupy_cache.tgz"}
    summary = json.loads((out / "checklist.json").read_text())
    assert summary["status"] == "passed" and summary["budget_s"] == 120 and summary["strict"] is True
    assert "PASS  bench" in (out / "log").read_text()
    assert "device_wheels: z3 import" in proc.stdout  # --only diagonal,bench: the Dask stack is not asked for


def test_the_recipe_names_the_wheels_to_download(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("device_wheels", ROOT / "benchmarks" / "device_wheels.py")
    dw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dw)
    monkeypatch.setitem(dw.REQUIREMENTS, "dask", ("dask", "isomat_no_such_module_tblib"))
    assert dw.main(["--only", "dask"]) == dw.EXIT_MISSING == 3
    err = capsys.readouterr().err
    assert "isomat_no_such_module_tblib: import isomat_no_such_module_tblib: ModuleNotFoundError" in err
    assert "pip download --only-binary=:all:" in err and "-d .whl dask distributed isomat_no_such_module_tblib z3-solver" in err
    capsys.readouterr()
    assert dw.main(["--skip", "dask"]) == 0  # the dask check left out: z3 alone is asked for


def test_run_as_a_script_the_benchmarks_folder_shadows_nothing(tmp_path):
    # benchmarks/distributed.py once hid dask's `distributed` from the dask check
    code = ("import runpy, sys; sys.argv = ['device_checklist.py', '--help']\n"
            "try:\n    runpy.run_path(%r, run_name='not_main')\nexcept SystemExit:\n    pass\n"
            "from pathlib import Path\n"
            "print(any(Path(p or '.').resolve() == Path(%r) for p in sys.path))" % (str(SCRIPT), str(SCRIPT.parent)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT / "benchmarks")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.standin
def test_dask_with_device_gpu_through_the_standin(cupy_standin_module, tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "dask"], out=out)
    assert code == 0, out.getvalue()
    assert "PASS  dask" in out.getvalue()


# -- --strict (issue 42): each strict failure fires --------------------------------------------------
@pytest.mark.standin
def test_strict_fails_a_check_skipped_for_time(cupy_standin_module, tmp_path):
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "diagonal,int64", "--budget", "1", "--strict"],
                   out=out)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert code == 1 and summary["failed"] == ["diagonal", "int64"], out.getvalue()
    assert all("--strict" in c["detail"] for c in summary["checks"][1:])


@pytest.mark.standin
def test_strict_diagonal_reaches_the_partial_chunk(cupy_standin_module, monkeypatch, tmp_path):
    # a chunk sum that drops the last (partial) chunk: invisible at 3 input channels (one chunk, the
    # one-sum kernel) and at 16 float32 / 8 float64 (one full chunk); the check's 17 / 9 channels catch it
    import isomat.algebra.diagonal as dg

    real = dg._device_kernel

    def dropping(cp, dtype, kind):
        kernel = real(cp, dtype, kind)
        if kind != "sum_chunks":
            return kernel
        return lambda grid, block, args: kernel(grid, block, args[:3] + (np.int64(int(args[3]) - 1),))

    monkeypatch.setattr(dg, "_device_kernel", dropping)
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "diagonal", "--strict"], out=out)
    detail = json.loads((tmp_path / "s.json").read_text())["checks"][1]["detail"]
    assert code == 1 and "float32 matvec, 17 input channels, differs from the host CSR" in detail, out.getvalue()


def _fake_bench(dc, copy_s: float, product_s: float):
    """``benchmarks/gpu.py``'s JSON written by the bench's own figure/ratio arithmetic with injected
    timings: a copy of 1 GB in ``copy_s`` and a product moving 1 GB in ``product_s``."""
    from isomat.bench import figure, ratio

    def run(argv, timeout):
        copy = figure("device copy bandwidth", 1e9 / copy_s, "B/s")
        bw = figure("diagonal-block product effective bandwidth", 1e9 / product_s, "B/s")
        path = Path(argv[argv.index("--json") + 1])
        path.write_text(json.dumps({"figures": [copy, bw], "errors": [], "mismatches": [], "legs": {"diagonal": {}},
                                    "ratios": [ratio("diagonal-block product bandwidth / device copy bandwidth", bw, copy)]}))
        return subprocess.CompletedProcess(argv, 0, "", "")

    return run


@pytest.mark.standin
@pytest.mark.parametrize("product_s, fails", [(4e-3, True), (1.2e-3, False)])
def test_strict_bench_fails_below_the_floor_of_the_copy(cupy_standin_module, monkeypatch, tmp_path, product_s, fails):
    dc = _script()
    monkeypatch.setattr(dc, "_subprocess", _fake_bench(dc, 1e-3, product_s))
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "bench", "--strict"], out=out)
    summary = json.loads((tmp_path / "s.json").read_text())
    bench = summary["checks"][1]
    assert summary["bench_floor"] == dc.DEFAULT_BENCH_FLOOR == 0.4
    if fails:  # 0.25 of the copy
        assert code == 1 and bench["status"] == "FAIL" and "below 0.4 of the copy" in bench["detail"], out.getvalue()
        assert "diagonal-block product bandwidth / device copy bandwidth: 0.250" in bench["detail"]
    else:  # 0.83 of the copy
        assert code == 0 and "lowest 0.833" in bench["detail"], out.getvalue()


def test_strict_verify_requires_device_work_for_every_float_claim():
    dc = _script()
    cpu = {"claims": [{"id": "p:a", "verdict": "holds", "methods": ["numeric"]},
                      {"id": "p:b", "verdict": "holds", "methods": ["exact", "numeric"]},
                      {"id": "p:c", "verdict": "holds", "methods": ["symbolic"]}]}
    assert dc.float_claims(cpu) == ["p:a", "p:b"]
    gpu = {"backend": "cupy", "claims": cpu["claims"], "device_claims": ["p:a"], "device_reused_claims": []}
    rec: dict = {}
    assert "of the 2 claims whose checks compare float products, 1 ran on the device" in dc.compare_verify(cpu, gpu, rec)
    with pytest.raises(AssertionError, match="1 of the 2 float claims did not reach the device: p:b"):
        dc.compare_verify(cpu, gpu, rec, strict=True)
    assert rec["float_claims"]["not_on_device"] == ["p:b"]
    gpu["device_reused_claims"] = ["p:b"]  # a device result an earlier claim of the run computed
    assert "1 rest on device results of this run, 0 did not reach it" in dc.compare_verify(cpu, gpu, rec, strict=True)
    with pytest.raises(AssertionError, match="no device claims"):
        dc.compare_verify(cpu, {k: v for k, v in gpu.items() if k != "device_claims"}, {}, strict=True)
