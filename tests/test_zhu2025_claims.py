"""The zhu2025 ledger: minimal counterexamples are what a reader can redo by hand."""

from __future__ import annotations

import pytest

from isomat import proofs


@pytest.fixture(scope="module")
def ledger():
    report = proofs.run(["zhu2025"])
    assert not [r for r in report["claims"] if r["verdict"] == "error"]
    return {r["id"]: r for r in report["claims"]}


def test_runs_fast_and_matches_expected(ledger):
    expected = proofs.expected_verdicts("zhu2025")
    assert expected and {k: v["verdict"] for k, v in ledger.items()} == expected
    assert sum(r["seconds"] for r in ledger.values()) < 10


@pytest.mark.parametrize(
    "cid, key, value",
    [
        ("zhu2025:sec4.2.1/p-formula", "case", [1, 1, 1, 1]),  # 1x1 image, 1x1 kernel, s = 1: P = 2 rows
        ("zhu2025:sec4.2.2/q", "case", [1, 4, 2]),
        ("zhu2025:sec4.2.2/index-formula", "case", [2, 4, 2]),
        ("zhu2025:sec4.3/main-text-order", "case", [2, 2]),  # 2x2 non-commuting weights, 2 steps
        ("zhu2025:sec4.3/main-text-shapes", "case", [1, 2]),
        ("zhu2025:thm4.2/strictly-lower-triangular", "case", [1, 1, 1]),
        ("zhu2025:thm4.1/half-bandwidth", "case", [2, 2, 3]),
        ("zhu2025:thm4.1/converse", "case", [1, 2, 1]),
        ("zhu2025:thm4.1/circular", "case", [1, 1, 3]),
        ("zhu2025:thm4.3/w-sa", "case", [1, 1]),
    ],
)
def test_minimal_counterexamples(ledger, cid, key, value):
    assert ledger[cid]["counterexample"][key] == value


def test_printed_w_conv_last_row_overflows(ledger):
    cx = ledger["zhu2025:sec4.2.1/p-formula"]["counterexample"]
    assert cx["last_row_max_column"] == cx["L"]


def test_text_vs_table2_names_cifar100_convergence(ledger):
    r = ledger["zhu2025:sec7/text-vs-tab2"]
    assert r["verdict"] == "inconsistent"
    assert [d["where"] for d in r["discrepancies"]] == ["CIFAR-100: sparse converges faster"]
