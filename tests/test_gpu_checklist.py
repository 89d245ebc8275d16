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


@pytest.mark.standin
def test_the_checks_run_through_the_standin(cupy_standin_module, tmp_path):
    dc = _script()
    out = io.StringIO()
    path = tmp_path / "summary.json"
    code = dc.main(["--json", str(path), "--verify-paper", "do2017", "--skip", "dask"], out=out)
    text = out.getvalue()
    summary = json.loads(path.read_text())
    by_name = {c["name"]: c for c in summary["checks"]}
    assert by_name["probe"]["status"] == "PASS"
    for fam in dc.FAMILY_NAMES:
        assert by_name[f"families/{fam}"]["status"] == "PASS", by_name[f"families/{fam}"]
    assert by_name["int64"]["status"] == "PASS" and "indices int64" in by_name["int64"]["detail"]
    assert by_name["verify"]["status"] == "PASS", by_name["verify"]
    assert "dask" not in by_name
    # torch without CUDA here: a SKIP with the reason, never a PASS
    assert by_name["dlpack"]["status"] in ("SKIP", "FAIL")
    if by_name["dlpack"]["status"] == "SKIP":
        assert "torch" in by_name["dlpack"]["detail"]
    # benchmarks/gpu.py runs in a subprocess, where the stand-in is not installed: it skips, and a
    # skipped benchmark is a failed check -- the exit status says so
    assert by_name["bench"]["status"] == "FAIL" and "skipped" in by_name["bench"]["detail"]
    assert code == 1 and summary["status"] == "failed" and "bench" in summary["failed"]
    for line in text.splitlines()[:-1]:
        assert line.split()[0] in ("PASS", "FAIL", "SKIP"), line
    assert text.splitlines()[-1].endswith("1 failed, 1 skipped -- failed: bench"), text.splitlines()[-1]


@pytest.mark.standin
def test_dask_with_device_gpu_through_the_standin(cupy_standin_module, tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    dc = _script()
    out = io.StringIO()
    code = dc.main(["--json", str(tmp_path / "s.json"), "--only", "dask"], out=out)
    assert code == 0, out.getvalue()
    assert "PASS  dask" in out.getvalue()
