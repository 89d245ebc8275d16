"""benchmarks/networks.py: its quick mode runs through ``isomat bench``'s runner and every output check
passes. No timing is asserted (speed is the benchmark's business, never a unit test's)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent


def test_networks_benchmark_quick_runs_and_checks_its_outputs():
    from isomat.bench import run_script

    entry = run_script(ROOT / "benchmarks" / "networks.py", quick=True, timeout=300)
    assert entry["status"] == "ok", entry
    res = entry["result"]
    assert res["benchmark"] == "networks" and res["quick"] is True
    checks = res["checks"]
    assert len(checks) >= 9 and all(c["ok"] for c in checks), checks
    names = " ".join(c["name"] for c in checks)
    assert "jacrev" in names and "gradients" in names and "from_model forward" in names
    fig = {f["name"] for f in res["figures"]}
    assert any(n.startswith("torch.func.jacrev") for n in fig) and any(n.startswith("sparse twin") for n in fig)
    assert {"jacrev time / local_affine time", "isomat peak / sparse J bytes"} <= {r["name"] for r in res["ratios"]}
    assert set(res["load_average"]) == {"before", "after"}
