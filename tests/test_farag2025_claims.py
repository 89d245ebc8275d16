"""farag2025 ledger: the records that carry findings have the expected content, and the checks are
sensitive (a wrong formula or a wrong transcription flips the verdict)."""

from __future__ import annotations

import pytest

from isomat.proofs import load
from isomat.proofs import farag2025 as F
from isomat.proofs.engine import run_claim

CLAIMS = {c.id: c for c in load(["farag2025"])}


def rec(cid):
    return run_claim(CLAIMS[cid])


def test_every_claim_gets_a_verdict():
    for cid in ("farag2025:eq1", "farag2025:eq9", "farag2025:eq19", "farag2025:sec4", "farag2025:eq28",
                "farag2025:eq39", "farag2025:sec5/params"):
        assert rec(cid)["verdict"] != "error", cid


def test_eq1_order_counterexample_is_two_by_two():
    r = rec("farag2025:eq1")
    assert r["verdict"] == "holds-corrected"
    assert r["counterexample"]["case"][0] == 2  # n = 2 already separates B1 B2 from B2 B1


def test_table4_bpc_inconsistencies_listed():
    r = rec("farag2025:tab4")
    assert r["verdict"] == "inconsistent"
    assert [d["where"] for d in r["discrepancies"]] == ["Table 4 step 800 BPC", "Table 4 step 1000 BPC"]


def test_bpc_rule_accepts_rounding_and_rejects_mismatch():
    assert F._bpc_consistent("2.28", "3.30")  # 2.2849/ln 2 = 3.2965 rounds to 3.30
    assert not F._bpc_consistent("2.58", "3.03")


def test_min_depth_values():
    assert {n: F._min_depth(n) for n in range(1, 9)} == {1: 0, 2: 1, 3: 3, 4: 2, 5: 4, 6: 3, 7: 4, 8: 3}


def test_gradient_claim_detects_a_wrong_formula():
    # eq. (9) with the sign of the second term flipped must not hold
    wrong = F.d1 * (-F.sympy.sin(F.th) * F.x1 - F.sympy.cos(F.th) * F.x2) - F.d2 * (F.sympy.cos(F.th) * F.x1 - F.sympy.sin(F.th) * F.x2)
    out = F._pair_grad_claim(F._R_Y1, F._R_Y2, F.th, wrong, F._R_PARAMS, F._R_POINT)
    assert out.verdict == "refuted"


def test_table_checks_detect_a_changed_transcription(monkeypatch):
    bad = dict(F.TAB1)
    bad[512] = bad[512][:5] + ("1.10",)
    monkeypatch.setattr(F, "TAB1", bad)
    r = rec("farag2025:tab1/speedup")
    assert r["verdict"] == "inconsistent"
    assert r["discrepancies"] == [{"where": "n=512 speedup", "printed": "1.10", "correct": "1.07"}]


@pytest.mark.parametrize("cid", ["farag2025:sec8.2/dimension", "farag2025:sec8.4/stages", "farag2025:sec7.6"])
def test_corrections_are_verified(cid):
    r = rec(cid)
    assert r["verdict"] == "holds-corrected"
    assert r["evidence"]["corrected"]["ok"] is True
