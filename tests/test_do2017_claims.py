"""The do2017 ledger: counterexamples and discrepancies are the minimal, exact ones."""

from __future__ import annotations

import pytest

from isomat.proofs import engine, load


@pytest.fixture(scope="module")
def records():
    claims = {c.id: c for c in load(["do2017"])}
    wanted = ["do2017:eq18/renormalization", "do2017:sec2.2/highway", "do2017:appa/gru", "do2017:tab2",
              "do2017:eq17/order", "do2017:eq14/asymmetric", "do2017:fig3", "do2017:sec4.3",
              "do2017:abstract/parameters"]
    return {cid: engine.run_claim(claims[cid]) for cid in wanted}


def test_renormalization_minimal_counterexample_is_the_single_edge(records):
    r = records["do2017:eq18/renormalization"]
    assert r["verdict"] == "holds-corrected"
    cx = r["counterexample"]
    assert cx["edges"] == [[0, 1]]
    assert cx["I + D^-1/2 A D^-1/2"] == [[1, 1], [1, 1]]
    assert cx["D~^-1/2 A~ D~^-1/2"] == [["1/2", "1/2"], ["1/2", "1/2"]]


def test_highway_and_gru_collapse_to_previous_state(records):
    for cid in ("do2017:sec2.2/highway", "do2017:appa/gru"):
        r = records[cid]
        assert r["verdict"] == "holds-corrected"
        assert r["evidence"].get("printed_update_equals_previous_state", r["evidence"].get("printed_equals_previous_state"))
        assert "Zt ⊙ H̃t" in r["correction"]


def test_table2_discrepancies(records):
    r = records["do2017:tab2"]
    assert r["verdict"] == "inconsistent"
    got = {d["where"]: (d["printed"], d["correct"]) for d in r["discrepancies"]}
    assert got == {"Citeseer avg degree": ("2.78", "2.86"), "Cora avg degree": ("3.90", "4.01")}


def test_chebyshev_order_and_asymmetric_laplacian(records):
    assert records["do2017:eq17/order"]["discrepancies"] == [
        {"where": "K for the first-order filter", "printed": 1, "correct": 2}]
    r = records["do2017:eq14/asymmetric"]
    assert r["verdict"] == "refuted"
    assert r["counterexample"]["L"] == [[1, -1, 0], [-1, 1, 0], [-1, 0, 1]]  # 0↔1, 2→0


def test_fig3_and_spectrogram(records):
    assert records["do2017:fig3"]["evidence"]["fails_at_2x2_to_2x2_with_all_columns_present"] is True
    r = records["do2017:sec4.3"]
    assert r["verdict"] == "holds"
    assert r["evidence"]["default_boundary_shape"] == [64, 32, 33]


def test_parameter_counterexample(records):
    cx = records["do2017:abstract/parameters"]["counterexample"]
    assert cx == {"case": [1, 1, 1, 2], "parameters": 5, "parameters_with_1x1_output": 3}
