"""reneau2025 ledger: budget, the details of its non-holds verdicts, and that its checks can fail."""

from __future__ import annotations

import time

import pytest

from isomat import proofs
from isomat.proofs.engine import REGISTRY, run_claim


@pytest.fixture(scope="module")
def records():
    proofs.load(["reneau2025"])
    t0 = time.perf_counter()
    recs = {c.id: run_claim(c) for c in REGISTRY.values() if c.paper == "reneau2025"}
    return recs, time.perf_counter() - t0


def test_budget_and_expected(records):
    recs, seconds = records
    assert seconds < 6.0
    expected = proofs.expected_verdicts("reneau2025")
    assert {k: r["verdict"] for k, r in recs.items()} == expected


def test_non_holds_details(records):
    recs, _ = records
    assert recs["reneau2025:tab1/llama3-8b"]["discrepancies"] == [{"where": "lora-r4", "printed": "10.48M", "correct": "10.49M"}]
    assert recs["reneau2025:tab1/llama3-8b"]["evidence"]["exact_counts"]["lora-r4"] == 10485760
    ex = recs["reneau2025:eq1/example"]["discrepancies"]
    assert [d["correct"] for d in ex] == [2 * 10**9, 6 * 10**6]
    sec22 = recs["reneau2025:sec2.2"]
    assert sec22["counterexample"]["case"] == [[1], [2]] and "W_kᵀ" in sec22["correction"]


def test_checks_detect_a_wrong_construction(monkeypatch):
    import isomat.proofs.reneau2025 as R

    proofs.load(["reneau2025"])
    orig = R._isomat_flat
    swap = {"outer": "inner", "inner": "outer"}
    monkeypatch.setattr(R, "_isomat_flat", lambda Wp, bs, order: orig(Wp, bs, swap[order]))
    rec = run_claim(REGISTRY["reneau2025:alg1"])
    assert rec["verdict"] == "refuted"
    assert rec["counterexample"]["case"] == [[1, 1], [1, 1]]  # minimal: N = 2, all modes 1x1
