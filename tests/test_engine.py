"""The ledger engine: verdicts come from trials, counterexamples are minimal, errors surface."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import strategies as st

from isomat.errors import CheckError
from isomat.proofs import engine
from isomat.proofs.engine import (
    Claim,
    compare_printed,
    decide,
    exhaustive,
    not_checkable,
    numeric_close,
    property_search,
    run_claim,
    symbolic_zero,
)


def test_false_toy_claim_property_counterexample_is_minimal():
    # "every n in [0, 1000] has n**2 < 50": false; the minimal counterexample is n = 8
    trial = property_search(lambda n: n * n < 50, st.integers(0, 1000), describe="0..1000")
    out = decide(trial)
    assert out.verdict == "refuted"
    assert out.counterexample == {"case": 8}


def test_false_toy_claim_matrices_commute_minimal_counterexample():
    # "all integer square matrices commute" -- smallest failing size is 2x2 with entries in {0, 1}
    def cases():
        for k in range(1, 3):
            entries = list(itertools.product((0, 1), repeat=k * k))
            for a in entries:
                for b in entries:
                    yield k, a, b

    def commutes(case):
        k, a, b = case
        A, B = sympy.Matrix(k, k, a), sympy.Matrix(k, k, b)
        return A * B == B * A

    out = decide(exhaustive(commutes, cases(), describe="k <= 2, 0/1 entries"))
    assert out.verdict == "refuted"
    k, a, b = out.counterexample["case"]
    assert k == 2  # 1x1 matrices always commute, so the first failure has size 2
    A, B = sympy.Matrix(2, 2, a), sympy.Matrix(2, 2, b)
    assert A * B != B * A
    assert sum(a) + sum(b) == 2  # and it is as sparse as possible: one 1 in each matrix


def test_true_claim_holds_and_counts_cases():
    out = decide(exhaustive(lambda n: (n * (n + 1)) % 2 == 0, range(100), describe="0..99"))
    assert out.verdict == "holds"
    assert out.evidence["printed"]["tested"] == 100


def test_correction_must_itself_verify():
    false = exhaustive(lambda n: n < 5, range(10), describe="0..9")
    good = exhaustive(lambda n: n < 10, range(10), describe="0..9")
    assert decide(false, correction=("n < 10", good)).verdict == "holds-corrected"
    with pytest.raises(CheckError, match="does not verify"):
        decide(false, correction=("n < 7", exhaustive(lambda n: n < 7, range(10), describe="0..9")))


def test_symbolic_and_numeric_trials():
    x, y = sympy.symbols("x y")
    assert symbolic_zero((x + y) ** 2 - x**2 - 2 * x * y - y**2, describe="binomial").ok
    bad = symbolic_zero((x + y) ** 2 - x**2 - y**2, describe="freshman's dream")
    assert not bad.ok and bad.counterexample["residual"] == "2*x*y"
    assert numeric_close([1.0, 2.0], [1.0, 2.0 + 1e-13], describe="near").ok
    assert not numeric_close([1.0, 2.0], [1.0, 2.1], describe="far", rtol=1e-3).ok


def test_compare_printed_lists_every_discrepancy():
    out = compare_printed({"a": 1, "b": sympy.Rational(1, 3), "c": 5}, {"a": 1, "b": sympy.Rational(1, 2), "c": 6})
    assert out.verdict == "misprint"
    assert [d["where"] for d in out.discrepancies] == ["b", "c"]
    assert compare_printed({"a": 2}, {"a": 2}).verdict == "holds"
    assert compare_printed({"a": 2}, {"a": 3}, kind="inconsistent").verdict == "inconsistent"
    assert compare_printed({"x": 0.333}, {"x": 1 / 3}, rel_tol=1e-3).verdict == "holds"


def test_run_claim_reports_errors_not_verdicts():
    def broken():
        raise ZeroDivisionError("boom")

    rec = run_claim(Claim("zhu2025:thm9.9", "q", "s", ("exact",), broken))
    assert rec["verdict"] == "error" and "ZeroDivisionError" in rec["error"]
    rec = run_claim(Claim("zhu2025:thm9.9", "q", "s", ("exact",), lambda: True))
    assert rec["verdict"] == "error" and "not an Outcome" in rec["error"]
    rec = run_claim(Claim("zhu2025:tab9", "q", "s", ("recompute",), lambda: not_checkable("needs training")))
    assert rec["verdict"] == "not-checkable"


@pytest.mark.parametrize("bad", ["Zhu2025:thm4.1", "zhu2025 thm4.1", "nobody:thm1", "2020:thm1", "zhu2025:"])
def test_claim_ids_are_validated(bad):
    with pytest.raises(ValueError):
        engine.claim(bad, quote="q", statement="s", methods=["exact"])


def test_unknown_method_refused():
    with pytest.raises(ValueError, match="methods"):
        engine.claim("zhu2025:thm1", quote="q", statement="s", methods=["guess"])


# ---------------------------------------------------------------------------------------------
# strength: derived from the trials, never typed
# ---------------------------------------------------------------------------------------------
def test_strength_follows_the_evidence():
    ex = exhaustive(lambda n: n >= 0, range(5), describe="0..4")
    assert decide(ex).strength == "exhaustive"
    prop = property_search(lambda n: n >= 0, st.integers(0, 9), describe="0..9", max_examples=10)
    assert decide(prop).strength == "sampled"
    assert compare_printed({"a": 1}, {"a": 1}).strength == "recompute"
    assert decide(numeric_close(1.0, 1.0, describe="x")).strength == "sampled"
    assert decide(exhaustive(lambda n: True, range(3), describe="r", strength="sampled")).strength == "sampled"
    x = sympy.Symbol("x")
    assert decide(symbolic_zero((x + 1) ** 2 - x**2 - 2 * x - 1, describe="square")).strength == "exhaustive"
    proved = symbolic_zero((x + 1) ** 2 - x**2 - 2 * x - 1, describe="square", for_all="all complex x")
    out = decide(proved)
    assert out.strength == "proved" and out.evidence["printed"]["for_all"] == "all complex x"


def test_counterexample_verdicts_and_not_checkable():
    bad = exhaustive(lambda n: n < 3, range(5), describe="0..4")
    assert decide(bad).strength == "counterexample"
    assert compare_printed({"a": 1}, {"a": 2}).strength == "counterexample"
    assert not_checkable("needs training").strength is None


def test_conjunction_is_as_strong_as_its_weakest_part():
    x = sympy.Symbol("x")
    proved = symbolic_zero(x - x, describe="x - x", for_all="all x")
    ex = exhaustive(lambda n: True, range(2), describe="0..1")
    assert engine.all_of(proved, proved).strength == "proved"
    assert engine.all_of(proved, ex).strength == "exhaustive"
    prop = property_search(lambda n: True, st.integers(0, 3), describe="0..3", max_examples=5)
    assert engine.all_of(proved, ex, prop).strength == "sampled"


def test_holds_corrected_takes_the_corrections_strength():
    x = sympy.Symbol("x")
    printed = exhaustive(lambda n: n < 1, range(3), describe="0..2")
    correction = symbolic_zero(x - x, describe="corrected", for_all="all x")
    out = decide(printed, correction=("the corrected statement", correction))
    assert out.verdict == "holds-corrected" and out.strength == "proved"


def test_proved_cannot_be_claimed_without_saying_what_was_quantified():
    with pytest.raises(CheckError, match="for_all"):
        engine.Trial(True, "symbolic", {"compared": "x"}, strength="proved")
    with pytest.raises(ValueError, match="strength"):
        engine.Trial(True, "exact", {}, strength="certain")
    with pytest.raises(ValueError, match="strength"):
        exhaustive(lambda n: True, range(2), describe="r", strength="proved")


def test_record_carries_strength():
    c = Claim("zhu2025:sec9/x", "q", "s", ("exhaustive",), lambda: decide(exhaustive(lambda n: True, range(2), describe="r")))
    rec = run_claim(c)
    assert rec["strength"] == "exhaustive"


# ---------------------------------------------------------------------------------------------
# readings, hypotheses, beyond, one check per claim (conventions: readings, beyond)
# ---------------------------------------------------------------------------------------------
def _refuted_at(n):
    return decide(exhaustive(lambda k: k < n, range(n + 3), describe=f"0..{n + 2}"))


def test_headline_is_the_most_favourable_supported_reading():
    literal = engine.Reading("literal", "as printed", _refuted_at(2))
    appendix = engine.Reading("appendix", "as the appendix proves it", decide(exhaustive(lambda k: True, range(3), describe="0..2")))
    out = engine.by_readings(literal, appendix)
    assert out.verdict == "holds" and out.strength == "exhaustive"
    assert out.evidence["headline_reading"] == "appendix"
    assert [(r["reading"], r["verdict"], r["headline"]) for r in out.readings] == [
        ("literal", "refuted", False), ("appendix", "holds", True)]
    assert out.readings[0]["counterexample"] == {"case": 2}


def test_an_unsupported_reading_never_makes_the_paper_look_better():
    literal = engine.Reading("literal", "as printed", _refuted_at(1))
    generous = engine.Reading("generous", "what the text does not say", decide(exhaustive(lambda k: True, range(3), describe="r")),
                              supported=False)
    out = engine.by_readings(literal, generous)
    assert out.verdict == "refuted" and out.strength == "counterexample"
    with pytest.raises(CheckError, match="supported"):
        engine.by_readings(engine.Reading("a", "s", _refuted_at(1), supported=False),
                           engine.Reading("b", "s", _refuted_at(2), supported=False))
    with pytest.raises(ValueError, match="distinct"):
        engine.by_readings(literal, literal)


def test_counterexample_must_satisfy_the_claims_hypotheses():
    hyp = engine.Hypotheses("n is odd", lambda case: case % 2 == 1)
    ok = Claim("mylab2026:sec9/odd", "q", "s", ("exhaustive",),
               lambda: decide(exhaustive(lambda k: k != 3, [1, 3, 5], describe="odd")), hyp)
    assert run_claim(ok)["verdict"] == "refuted"
    bad = Claim("mylab2026:sec9/even", "q", "s", ("exhaustive",),
                lambda: decide(exhaustive(lambda k: k != 2, range(5), describe="0..4")), hyp)
    rec = run_claim(bad)
    assert rec["verdict"] == "error" and "violates the claim's hypotheses" in rec["error"]
    # the readings' counterexamples are held to the hypotheses too
    reading_bad = Claim("mylab2026:sec9/readings", "q", "s", ("exhaustive",), lambda: engine.by_readings(
        engine.Reading("a", "s", decide(exhaustive(lambda k: True, [1], describe="1"))),
        engine.Reading("b", "s", _refuted_at(2))), hyp)
    assert run_claim(reading_bad)["verdict"] == "error"


def test_two_claims_never_share_one_check(monkeypatch):
    monkeypatch.setattr(engine, "REGISTRY", {})

    def check():
        return decide(exhaustive(lambda k: True, range(2), describe="r"))

    engine.claim("zhu2025:sec9/a", quote="q", statement="s", methods=["exhaustive"])(check)
    with pytest.raises(ValueError, match="share one check"):
        engine.claim("zhu2025:sec9/b", quote="q", statement="s", methods=["exhaustive"])(check)


def test_beyond_claims_are_marked():
    c = Claim("farag2025:beyond/min-depth", "q", "s", ("exhaustive",), lambda: decide(exhaustive(lambda k: True, range(2), describe="r")))
    assert c.beyond and run_claim(c)["beyond"] is True
    assert not Claim("farag2025:sec9.2/x", "q", "s", ("exhaustive",), lambda: None).beyond


def test_any_source_key_is_open_to_users(monkeypatch):
    # the engine is not closed to the five papers: a user's own key is a claim like any other
    monkeypatch.setattr(engine, "REGISTRY", {})
    engine.claim("nobody2020:thm1", quote="q", statement="s", methods=["exact"])(
        lambda: decide(exhaustive(lambda k: True, range(2), describe="r")))
    c = engine.REGISTRY["nobody2020:thm1"]
    assert c.paper == "nobody2020" and run_claim(c)["verdict"] == "holds"


def test_compare_printed_takes_its_counterexample_and_correction_from_trials():
    from isomat.proofs.engine import Trial, compare_printed

    bad = Trial(False, "exact", {"cases": "n <= 3"}, {"case": [2]})
    good = Trial(True, "exact", {"cases": "n <= 3"})
    out = compare_printed({"a": 1}, {"a": 2}, kind="inconsistent", witness=bad, correction=("use 2", good))
    assert out.verdict == "inconsistent" and out.counterexample == {"case": [2]} and out.correction == "use 2"
    assert out.evidence["printed_vs_reference"]["ok"] is False and out.evidence["corrected"]["ok"] is True
    with pytest.raises(CheckError, match="does not verify"):
        compare_printed({"a": 1}, {"a": 2}, kind="inconsistent", correction=("use 3", bad))
    # a passing witness contributes no counterexample
    assert compare_printed({"a": 1}, {"a": 2}, kind="inconsistent", witness=good).counterexample is None


def test_claims_run_in_worker_processes_give_the_same_records_in_order(verify_json_run):
    # isomat verify runs the ledger in fresh worker processes (one per usable CPU): the records are those of
    # one process -- only the measured seconds may differ. The session's whole-ledger run (tests/conftest.py)
    # ran reneau2025 in workers; its records are compared with a run of the same claims here, in this process.
    from isomat import proofs

    claims = proofs.load(["reneau2025"])[:12]
    workers = {r["id"]: r for r in verify_json_run.records if r["paper"] == "reneau2025"}

    def strip(x):
        # (``smt2``: the digests of the obligation files this run wrote. Observed: for reneau2025:sec2.2
        # they differ between the parent and a worker while the obligations' own digests -- sorted
        # sexprs of the same premises and goal -- agree, so Z3's Solver.to_smt2 text of one obligation
        # depends on the process's state. recheck ties a run's files to that run's records.)
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds", "solver_seconds", "same_proof_as", "smt2")}
        return [strip(v) for v in x] if isinstance(x, list) else x

    serial = proofs.run(claims=claims)
    assert strip(serial["claims"]) == strip([workers[c.id] for c in claims])
    # the callbacks come in the claims' order, whichever worker finishes first
    few = sorted(claims, key=lambda c: workers[c.id]["seconds"])[:4]
    seen = []
    parallel = proofs.run(claims=few, jobs=2, on_start=lambda i, n, c: seen.append(("start", i, c.id)),
                          on_record=lambda i, n, r: seen.append(("record", i, r["id"])))
    assert [r["id"] for r in parallel["claims"]] == [c.id for c in few]
    assert seen == [(kind, i, c.id) for i, c in enumerate(few, 1) for kind in ("start", "record")]
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        proofs.run(claims=claims, jobs=0)
    with pytest.raises(ValueError, match="cupy backend"):
        proofs.run(claims=claims, jobs=2, backend="cupy")


def test_claims_a_fresh_process_cannot_declare_run_here(monkeypatch):
    # a claim made in a function body, and a ledger claim whose check was replaced in this process,
    # are not what a worker would import: both run in this process, as declared here
    from isomat import proofs

    monkeypatch.setattr(engine, "REGISTRY", dict(engine.REGISTRY))
    engine.claim("nobody2021:local", quote="q", statement="s", methods=["exact"])(
        lambda: decide(exhaustive(lambda k: k < 1, range(2), describe="k < 2")))
    local = engine.REGISTRY["nobody2021:local"]
    ledger = proofs.load(["reneau2025"])[0]
    replaced = Claim(ledger.id, ledger.quote, ledger.statement, ledger.methods,
                     lambda: decide(exhaustive(lambda k: True, range(1), describe="replaced")))
    records = proofs.run(claims=[local, replaced, *proofs.load(["reneau2025"])[1:3]], jobs=2)["claims"]
    assert records[0]["verdict"] == "refuted" and records[0]["counterexample"]["case"] == 1
    assert records[1]["id"] == ledger.id and records[1]["evidence"]["printed"]["cases"] == "replaced"


def test_second_solver_counts_the_obligations_cvc5_confirmed():
    from isomat.proofs.engine import second_solver

    z3_ok = {"name": "z3", "version": "4", "result": "unsat"}
    ev = {"printed": {"for_all": "n", "solvers": [z3_ok, {"name": "cvc5", "version": "1", "result": "unsat"}],
                      "lemmas": [{"name": "l", "solvers": [z3_ok, {"name": "cvc5", "version": "1", "result": "unknown"}],
                                  "single_solver": "cvc5: unknown (resource limit 1 ran out)"}]}}
    assert second_solver(ev) == {"obligations": 2, "confirmed": 1,
                                 "single_solver": ["cvc5: unknown (resource limit 1 ran out)"]}
    assert second_solver({"printed": {"for_all": "x", "tool": "sympy"}}) is None


def test_device_cached_remembers_an_error_but_not_one_of_the_moment():
    """A building block that fails fails the same way for every claim that shares it, computed once; errors of
    the moment (memory, the OS, the memory bound in force) are computed again."""
    from isomat.errors import SizeLimitError

    calls = []

    @engine.device_cached
    def block(kind):
        calls.append(kind)
        raise {"value": ValueError("the builder disagrees at (3, 4)"), "memory": MemoryError("no room"),
               "bound": SizeLimitError("over the bound"), "os": OSError("busy")}[kind]

    for kind, exc in [("value", ValueError), ("memory", MemoryError), ("bound", SizeLimitError), ("os", OSError)]:
        for _ in range(2):
            with pytest.raises(exc) as info:
                block(kind)
            assert str(info.value) in ("the builder disagrees at (3, 4)", "no room", "over the bound", "busy")
    assert calls == ["value", "memory", "memory", "bound", "bound", "os", "os"]
    block.cache_clear()
    with pytest.raises(ValueError):
        block("value")
    assert calls[-1] == "value" and len(calls) == 8


def test_holds_memory_bound_needs_both_the_build_at_the_bound_and_the_refusal_below_it():
    # a builder's stated bound: built under it, refused one byte below with a SizeLimitError naming the builder
    from isomat.algebra._operator import estimate_bytes
    from isomat.proofs.engine import holds_memory_bound

    need = estimate_bytes(5, 3, value_bytes=8, staging=True)

    def build():
        from isomat.algebra._operator import check_size
        check_size("toy", (3, 3), 5)

    assert holds_memory_bound(build, need, "toy")
    assert not holds_memory_bound(build, need + 1, "toy")  # not refused one byte below the bound given
    assert not holds_memory_bound(build, need - 1, "toy")  # refused at the bound given
    assert not holds_memory_bound(build, need, "other")  # refused, but naming something else
    with pytest.raises(ZeroDivisionError):  # another exception is no refusal: it propagates
        holds_memory_bound(lambda: 1 / 0, need, "toy")
