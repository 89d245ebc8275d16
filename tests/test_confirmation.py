"""Issue 36 item 6 -- a bug is never the paper's fault: in zhu2025, do2017 and farag2025 (as in cheng2025 and
reneau2025) a builder or reference defect that reaches a claim becomes an ``error``, never a verdict against the
paper. One cheap mutant per paper, each run in-process on the claim it would have turned against the paper."""

from __future__ import annotations

import pytest

from isomat import proofs
from isomat.proofs import engine, prover


@pytest.fixture(autouse=True)
def _no_recheck():
    old = prover.set_recheck(False)  # whether a verdict changes is the checks' business, not cvc5's
    try:
        yield
    finally:
        prover.set_recheck(old)


def _run(cid: str, clear: bool = True) -> dict:
    from tests import mutants as mt

    proofs.load([cid.split(":", 1)[0]])
    if clear:
        mt.clear_caches()
    return engine.run_claim(engine.REGISTRY[cid])


def test_farag2025_a_builder_defect_that_would_refute_the_paper_is_an_error():
    """param_count counting the stage parameters once (not L times) makes sec5/ratio's Z3 step fail: without the
    confirmation rule that was a refutation of the paper's O(n/L); with it, an error naming what is missing."""
    from tests import mutants as mt

    (m,) = [x for x in mt.all_mutants() if x.name == "spm-param-count-without-depth"]
    proofs.load(["farag2025"])
    c = engine.REGISTRY["farag2025:sec5/ratio"]
    with mt.applied(m):
        outcome = c.check()
    assert outcome.verdict == "refuted", outcome  # what the defect would have said about the paper
    # what run_claim makes of it: an error naming the missing reference (one run; run_claim asks exactly this)
    assert "has no 'independent_reference'" in engine.confirmation_problem(c.paper, outcome)
    rec = engine.run_claim(engine.Claim(c.id, c.quote, c.statement, c.methods, lambda: outcome))
    assert rec["verdict"] == "error" and "has no 'independent_reference'" in rec["error"], rec


def test_zhu2025_a_broken_reference_build_is_not_confirmed(monkeypatch):
    """converse is decided on the loop build of the convolution matrices; built as zeros, the 1×1 image (where the
    paper's converse holds) would read as its counterexample. The dimension count by loops does not confirm it."""
    import numpy as np

    from isomat.proofs.zhu2025 import thm4_1

    rec = _run("zhu2025:thm4.1/converse")
    assert rec["verdict"] == "refuted" and rec["evidence"]["independent_reference"]["ok"] is True
    monkeypatch.setattr(thm4_1, "naive_conv_matrix", lambda H, W, K, **kw: np.zeros((H * W, H * W), dtype=object))
    rec = _run("zhu2025:thm4.1/converse")
    assert rec["verdict"] == "error" and "not confirmed by the independent reference" in rec["error"], rec


def test_do2017_a_builder_defect_behind_a_misprint_is_an_error(monkeypatch):
    """eq18/misprint's correct values are isomat's renormalized_adjacency; doubled, they would list wrong 'correct'
    entries against the paper. Eq. (18) written out from the adjacency does not confirm them: an error. The
    operator's own check on every small graph and at 3000 nodes stands in passing (as where no such check looks;
    it costs seconds), so what the claim itself compares decides."""
    from isomat.algebra import graph
    from isomat.proofs.do2017 import appb

    monkeypatch.setattr(appb, "_graph_binding", lambda name: engine.Trial(True, "exact", {"stand_in": name}))
    rec = _run("do2017:eq18/misprint")
    assert rec["verdict"] == "misprint" and rec["evidence"]["independent_reference"]["ok"] is True
    real = graph.renormalized_adjacency

    def doubled(*args, **kwargs):
        return 2 * real(*args, **kwargs)

    monkeypatch.setattr(graph, "renormalized_adjacency", doubled)
    rec = _run("do2017:eq18/misprint")
    assert rec["verdict"] == "error", rec
    assert "renormalized_vs_definition" in rec["error"] or "not confirmed" in rec["error"], rec["error"]


@pytest.mark.parametrize("paper", ["zhu2025", "do2017", "farag2025"])
def test_every_blaming_verdict_of_the_paper_names_its_confirmation(paper):
    """The rule holds for all five papers (engine.CONFIRMED_PAPERS): a blaming headline of these three without an
    independent reference is an error, whatever the claim."""
    assert paper in engine.CONFIRMED_PAPERS
    o = engine.Outcome("misprint", {}, discrepancies=[{"where": "x", "printed": 1, "correct": 2}])
    assert "has no 'independent_reference'" in engine.confirmation_problem(paper, o)
