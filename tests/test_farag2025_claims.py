"""farag2025 ledger: the records that carry findings have the expected content, and the checks are
sensitive (a wrong formula or a wrong transcription flips the verdict)."""

from __future__ import annotations

import pytest

from isomat.proofs import farag2025 as F
from isomat.proofs import load
from isomat.proofs.engine import run_claim

CLAIMS = {c.id: c for c in load(["farag2025"])}


def rec(cid):
    return run_claim(CLAIMS[cid])


def test_every_claim_gets_a_verdict():
    for cid in ("farag2025:eq1", "farag2025:eq9", "farag2025:eq19", "farag2025:sec4", "farag2025:eq28",
                "farag2025:eq39", "farag2025:sec5/params"):
        assert rec(cid)["verdict"] != "error", cid


def test_eq1_holds_in_recursion_order_and_records_the_other_reading():
    r = rec("farag2025:eq1")
    assert r["verdict"] == "holds"
    other = r["evidence"]["other_reading"]
    assert other["agrees_with_recursion"] is False
    assert other["counterexample"]["case"][0] == 2  # n = 2 already separates B1 B2 from B2 B1


def test_text_summaries_list_only_real_contradictions():
    r = rec("farag2025:sec9.3/text")
    assert r["verdict"] == "inconsistent"
    assert r["discrepancies"] == [{"where": "SPM final BPC", "printed": "2.98", "correct": "3.02"}]
    r = rec("farag2025:sec9.1/text")
    assert r["discrepancies"] == [{"where": "n=1024 Δ acc (points)", "printed": "+17 to +24", "correct": "+5.06"}]


def test_sec7_6_correction_is_sufficiency_only():
    # |d| = 1 is not necessary: d_in = 2·1, d_out = 1/2·1 keeps the layer orthogonal
    lay = F.spm_layer(2, [F.np.array([[0, 1]])], [[F.sympy.atan2(3, 4)]], d_in=[2, 2],
                      d_out=[F.sympy.Rational(1, 2)] * 2)
    M = F.sympy.Matrix(F.layer_matrix(lay))
    assert (M.T * M - F.sympy.eye(2)).is_zero_matrix
    r = rec("farag2025:sec7.6")
    assert "iff" not in r["correction"] and "not necessary" in r["correction"]


def test_min_depth_is_the_stated_lower_bound_and_exact():
    r = rec("farag2025:sec9.2/min-depth")
    assert r["verdict"] == "holds"
    assert r["evidence"]["min_depths"] == {"1": 0, "2": 1, "3": 3, "4": 2, "5": 4, "6": 3, "7": 4, "8": 3}


def test_naive_dense_reference_matches_layer_matrix():
    lay = F.random_spm(7, 3, variant="general", schedule="random", odd="scale", seed=2)
    assert F.np.allclose(F._naive_dense(lay), F.layer_matrix(lay).toarray(), rtol=1e-13, atol=1e-14)
    lay = F.random_spm(6, 2, variant="rotation", schedule="butterfly", seed=3)
    assert F.np.allclose(F._naive_dense(lay), F.layer_matrix(lay).toarray(), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("which, wrong", [
    ("eq38", lambda GS, Q, K, dh: GS * K),  # the 1/sqrt(d_h) dropped
    ("eq39", lambda GS, Q, K, dh: GS * Q / F.sympy.sqrt(dh)),  # G_S instead of G_S^T
    ("eq36", lambda GH, A, V: GH * V.T * 2),
    ("sec7.4", lambda GA, A: A.multiply_elementwise(GA)),  # the centring term dropped
])
def test_direct_attention_checks_detect_a_wrong_formula(monkeypatch, which, wrong):
    assert F._attn_direct(which).ok
    monkeypatch.setitem(F._ATTN_PRINTED, which, wrong)
    assert not F._attn_direct(which).ok


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


@pytest.mark.parametrize("cid", ["farag2025:sec7.6", "farag2025:sec9.2/butterfly-depth"])
def test_corrections_are_verified(cid):
    r = rec(cid)
    assert r["verdict"] == "holds-corrected"
    assert r["evidence"]["corrected"]["ok"] is True


@pytest.mark.parametrize("cid", ["farag2025:sec8.2/dimension", "farag2025:sec8.4/stages"])
def test_favourable_reading_holds_and_other_reading_is_recorded(cid):
    r = rec(cid)
    assert r["verdict"] == "holds"
    ev = r["evidence"]
    if cid.endswith("stages"):
        assert ev["other_reading"]["orthogonal"] is False
        assert ev["other_reading"]["counterexample"]["at s = 2: ||B||_2"] == 2
    else:
        assert ev["ranks"]["n=8,L=3"] == 32 and "n=4,L=3" in ev["saturated_at_n2"]


def test_float_checks_run_in_the_gpu_field(cupy_standin_module):
    from isomat.proofs.engine import using_float_backend

    ids = ["farag2025:eq3", "farag2025:eq19", "farag2025:sec4", "farag2025:sec6.2", "farag2025:eq24", "farag2025:eq29"]
    host = {cid: rec(cid)["verdict"] for cid in ids}
    cupy_standin_module.reset_transfers()
    with using_float_backend("cupy"):
        dev = {cid: rec(cid) for cid in ids}
    assert {k: v["verdict"] for k, v in dev.items()} == host == {cid: "holds" for cid in ids}, dev
    assert cupy_standin_module.TRANSFERS["d2h_bytes"] > 0
