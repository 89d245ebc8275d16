"""Issue 15, item 7: ``benchmarks/gpu.py`` is honest -- run through the CuPy stand-in at tiny sizes.

The SPM leg is float32 end to end (the output's dtype is recorded), the build is timed warm with
CUDA events apart from the cold first build, the memory pool's peak is set against the device
guard's estimate, and a leg that fails leaves its error in the JSON while the other leg's figures
stand (exit status 1).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.standin

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gpu_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _names(result):
    return {f["name"]: f for f in result["figures"]}


def test_legs_report_warm_builds_float32_spm_and_the_guard_estimate(cupy_standin_module):
    result = _bench().run(size=32, n=16, batch=4, repeats=2, build_repeats=2)
    assert result["errors"] == [], result["errors"]
    figs = _names(result)
    warm = figs["conv matrix build on device (warm)"]
    assert warm["repeats"] == 2 and warm["params"]["timer"] == "CUDA events"
    assert figs["conv matrix build on device (cold: NVRTC compile, pool growth)"]["stat"] == "single"
    est = figs["device memory guard estimate for the build"]
    from isomat.algebra._operator import DEVICE_BYTES_PER_ENTRY

    nnz = warm["params"]["nnz"]
    assert est["value"] == DEVICE_BYTES_PER_ENTRY * nnz + 16 * (32 * 32 + 1)
    assert "device memory pool peak during the build" in figs
    assert figs["SPM forward (cupy field)"]["params"]["dtype"] == "float32"
    assert not any("not float32" in n for n in result["notes"])
    assert any(r["name"] == "cold build / warm build" for r in result["ratios"])


def test_a_failing_leg_still_writes_the_json(cupy_standin_module, monkeypatch, tmp_path):
    import isomat.algebra.conv as conv

    def broken(*args, **kwargs):
        raise RuntimeError("cudaErrorMemoryAllocation: out of memory")

    monkeypatch.setattr(conv, "conv_matrix", broken)
    out = tmp_path / "gpu.json"
    code = _bench().main(["--json", str(out), "--size", "32", "--repeats", "1", "--quick"])
    assert code == 1
    result = json.loads(out.read_text())
    (err,) = result["errors"]
    assert err["leg"] == "conv" and "out of memory" in err["error"]
    assert any(n.startswith("conv leg failed") for n in result["notes"])
    assert "SPM forward (cupy field)" in _names(result)  # the other leg still ran
