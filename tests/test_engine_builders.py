"""The engine's builder checks (builder_check) and independent references (confirm=, from_printed) -- issue 36."""

from __future__ import annotations

import pytest

from isomat.errors import CheckError
from isomat.proofs import engine
from isomat.proofs.engine import Claim, Trial, builder_check, compare_printed, decide, exhaustive, run_claim


def _proved() -> Trial:
    return Trial(True, "symbolic", {"for_all": "n >= 1", "sizes": ["n"]}, strength="proved")


def _check(ok: bool = True) -> Trial:
    return exhaustive(lambda n: ok, range(1, 5), describe="1 <= n <= 4", method="exact")


def test_a_builder_not_derived_from_the_rule_caps_the_headline_strength():
    out = decide(_proved(), kron_binds=builder_check(_check(), derived_from_rule=False, builder="kron_operator"))
    assert out.verdict == "holds" and out.strength == "exhaustive"
    note = out.evidence["kron_binds"]["builder"]
    assert note.startswith("not derived from the proved rule") and "exhaustive" in note
    assert out.evidence["kron_binds"]["builds"] == "kron_operator"
    sampled = Trial(True, "property", {"strategy": "s"})
    assert decide(_proved(), b=builder_check(sampled, derived_from_rule=False)).strength == "sampled"


def test_a_derived_builder_keeps_the_proof_and_says_so():
    out = decide(_proved(), swap=builder_check(_check(), derived_from_rule=True, builder="swap_matrix"))
    assert out.strength == "proved" and out.evidence["swap"]["builder"] == engine.DERIVED == "derived from the proved rule"


def test_a_plain_trial_keyword_is_unchanged_backward_compatible():
    assert decide(_proved(), crosscheck=_check()).strength == "proved"
    assert compare_printed({"a": 1}, {"a": 1}, b=builder_check(Trial(True, "property", {}), derived_from_rule=False)
                           ).strength == "sampled"


def test_a_failing_builder_check_is_an_error_whether_derived_or_not():
    for derived in (True, False):
        with pytest.raises(CheckError, match="disagrees with its reference"):
            decide(_proved(), b=builder_check(_check(ok=False), derived_from_rule=derived))


def test_builder_check_refuses_what_it_cannot_mean():
    with pytest.raises(TypeError, match="Trial"):
        builder_check("ok", derived_from_rule=True)
    with pytest.raises(TypeError, match="derived_from_rule"):
        builder_check(_check(), derived_from_rule="yes")


def test_a_corrected_verdict_is_capped_too():
    printed = exhaustive(lambda n: n < 2, range(5), describe="0..4")
    out = decide(printed, correction=("n < 5", _proved()), b=builder_check(_check(), derived_from_rule=False))
    assert out.verdict == "holds-corrected" and out.strength == "exhaustive"


def test_confirm_records_the_reference_or_makes_the_claim_an_error():
    failing = exhaustive(lambda n: n < 3, range(6), describe="0..5")
    seen = []

    def agrees(cx):
        seen.append(cx["case"])
        return exhaustive(lambda c: not c < 3, [cx["case"]], describe="loops", method="exact")

    out = decide(failing, confirm=agrees)
    assert out.verdict == "refuted" and seen == [3] and out.evidence["independent_reference"]["ok"] is True
    with pytest.raises(CheckError, match="not confirmed by the independent reference"):
        decide(failing, confirm=lambda cx: exhaustive(lambda c: False, [cx["case"]], describe="loops"))
    # not used when the statement holds
    assert "independent_reference" not in decide(_check(), confirm=lambda cx: 1 / 0).evidence


def _run(paper: str, check):
    return run_claim(Claim(f"{paper}:x", "q", "s", ("exhaustive",), check))


def test_a_refutation_of_a_confirmed_paper_needs_its_independent_reference():
    failing = lambda: decide(exhaustive(lambda n: n < 3, range(6), describe="0..5"))  # noqa: E731
    for paper in sorted(engine.CONFIRMED_PAPERS):
        rec = _run(paper, failing)
        assert rec["verdict"] == "error" and "independent reference" in rec["error"]
        confirmed = _run(paper, lambda: decide(exhaustive(lambda n: n < 3, range(6), describe="0..5"),
                                               confirm=lambda cx: exhaustive(lambda c: c >= 3, [cx["case"]], describe="r")))
        assert confirmed["verdict"] == "refuted" and confirmed["evidence"]["independent_reference"]["ok"]
    assert engine.CONFIRMED_PAPERS == frozenset(engine.PAPERS)  # all five papers (issue 36 item 6)


def test_a_user_source_opts_in_to_confirmation():
    def failing():
        return decide(exhaustive(lambda n: n < 3, range(6), describe="0..5"))

    assert _run("mylab2026", failing)["verdict"] == "refuted"  # a user's own source: unchanged unless it asks
    try:
        engine.require_confirmation("mylab2026")
        rec = _run("mylab2026", failing)
        assert rec["verdict"] == "error" and "has no 'independent_reference'" in rec["error"]
    finally:
        engine._CONFIRMED_SOURCES.discard("mylab2026")
    with pytest.raises(ValueError, match="source keys"):
        engine.require_confirmation("MyLab")


def test_compare_printed_confirmation_and_from_printed():
    out = compare_printed({"a": 1}, {"a": 2}, from_printed=True)
    assert out.verdict == "misprint" and out.evidence["independent_reference"]["reference"] == engine.FROM_PRINTED
    out = compare_printed({"a": 1}, {"a": 2}, kind="inconsistent",
                          confirm=lambda ds: exhaustive(lambda d: d["correct"] == 2, ds, describe="loops"))
    assert out.evidence["independent_reference"]["ok"] is True
    with pytest.raises(CheckError, match="not confirmed"):
        compare_printed({"a": 1}, {"a": 2}, confirm=lambda ds: exhaustive(lambda d: d["correct"] == 3, ds, describe="r"))


def test_an_edited_reference_is_caught_at_the_record():
    import dataclasses

    def edited():
        o = decide(exhaustive(lambda n: n < 3, range(6), describe="0..5"),
                   confirm=lambda cx: exhaustive(lambda c: True, [cx["case"]], describe="r"))
        return dataclasses.replace(o, evidence={**o.evidence, "independent_reference": {"ok": False}})

    rec = _run("mylab2026", edited)  # a reference given is held to, whatever the source
    assert rec["verdict"] == "error" and "independent reference" in rec["error"]
