"""The proof layer: proofs for every size, minimal counterexamples, lemmas that are needed, and
no proof from a timeout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st

from isomat.errors import CheckError
from isomat.proofs import prover as pv
from isomat.proofs.engine import decide, exhaustive


def _triangular():
    """tri(k) = 0 + 1 + ... + (k-1), defined by two axioms; its closed form proved by induction."""
    tri = z3.Function("tri", z3.IntSort(), z3.IntSort())
    k = z3.Int("k")
    zero = pv.axiom("tri-zero", tri(0) == 0, text="tri(0) = 0")
    succ = pv.axiom("tri-succ", z3.ForAll([k], z3.Implies(k >= 0, tri(k + 1) == tri(k) + k), patterns=[tri(k + 1)]),
                    text="tri(k + 1) = tri(k) + k for k >= 0")
    closed = pv.induction("tri-closed", k, lambda x: 2 * tri(x) == x * (x - 1), axioms=[zero, succ],
                          text="for all k >= 0: 2·tri(k) = k(k - 1)", patterns=[tri(k)])
    return tri, zero, succ, closed


def test_true_index_identity_is_proved_for_every_size():
    H, W, i = pv.ints("H W i")
    p = pv.prove(pv.fdiv(i, W) * W + pv.fmod(i, W) == i, assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
                 for_all="H, W >= 1 and 0 <= i < HW")
    assert p.status == "proved"
    t = p.trial("row-major digits recompose")
    assert t.ok and t.strength == "proved"
    assert t.evidence["for_all"] == "H, W >= 1 and 0 <= i < HW" and t.evidence["tool"].startswith("z3 ")
    out = decide(t)
    assert out.verdict == "holds" and out.strength == "proved"


def test_false_size_generic_identity_gets_a_minimal_counterexample():
    # "(i div n) mod m = (i mod m) div n" -- false; the solver's counterexample must be the
    # smallest (by i + n + m) among all that satisfy the hypotheses, checked here by brute force
    i, n, m = pv.ints("i n m")
    p = pv.prove(pv.fmod(pv.fdiv(i, n), m) == pv.fdiv(pv.fmod(i, m), n), assuming=[n >= 1, m >= 1, i >= 0],
                 for_all="i >= 0 and n, m >= 1")
    assert p.status == "counterexample", p.reason
    cx = p.counterexample
    assert (cx["i"] // cx["n"]) % cx["m"] != (cx["i"] % cx["m"]) // cx["n"]
    total = cx["i"] + cx["n"] + cx["m"]
    smaller = [(a, b, c) for a, b, c in itertools.product(range(total), range(1, total), range(1, total))
               if a + b + c < total and (a // b) % c != (a % c) // b]
    assert smaller == []
    t = p.trial()
    assert not t.ok and t.counterexample == {"case": cx}
    assert decide(t).verdict == "refuted"


def test_proofs_do_not_depend_on_what_ran_before():
    # every proof runs in a fresh context under a work budget: Z3 activity earlier in the process
    # (which used to change the search and turn this goal into a timeout) changes nothing
    i, n, m = pv.ints("i n m")
    goal, hyps = pv.fmod(pv.fdiv(i, n), m) == pv.fdiv(pv.fmod(i, m), n), [n >= 1, m >= 1, i >= 0]
    first = pv.prove(goal, assuming=hyps, for_all="x")
    a, b, c = z3.Ints("a b c")
    z3.Solver().check(a * b == c + 7, a > 2)
    for _ in range(3):
        pv.prove(pv.fdiv(a * b, b) == a, assuming=[b >= 1], for_all="b >= 1")
    again = pv.prove(goal, assuming=hyps, for_all="x")
    assert (first.status, first.counterexample) == (again.status, again.counterexample) == ("counterexample", {"i": 2, "m": 2, "n": 2})


def test_counterexample_is_deterministic():
    i, n = pv.ints("i n")
    runs = [pv.prove(pv.fdiv(i, n) * n == i, assuming=[n >= 1, i >= 0], for_all="i >= 0, n >= 1").counterexample
            for _ in range(3)]
    assert runs[0] == runs[1] == runs[2] == {"i": 1, "n": 2}


def test_true_identity_that_needs_a_lemma_is_proved_only_with_it():
    tri, zero, succ, closed = _triangular()
    a, b = pv.ints("a b")
    goal = tri(a + b) == tri(a) + tri(b) + a * b
    without = pv.prove(goal, assuming=[a >= 0, b >= 0], axioms=[zero, succ], for_all="a, b >= 0", rlimit=20_000_000)
    assert without.status == "unknown"  # no proof without the lemma -- and no false refutation
    with pytest.raises(CheckError, match="no proof"):
        without.trial()
    proof = pv.prove(goal, assuming=[a >= 0, b >= 0], axioms=[zero, succ], lemmas=[closed], for_all="a, b >= 0")
    assert proof.status == "proved"
    assert proof.lemmas == ["tri-closed"]
    (rec,) = proof.evidence()["lemmas"]
    assert rec["axioms"] == ["tri-zero", "tri-succ"] and rec["proved_by"].startswith("induction on k")


def test_unknown_falls_back_to_exhaustive_evidence_never_to_a_proof():
    tri, zero, succ, _ = _triangular()
    a, b = pv.ints("a b")
    p = pv.prove(tri(a + b) == tri(a) + tri(b) + a * b, assuming=[a >= 0, b >= 0], axioms=[zero, succ],
                 for_all="a, b >= 0", rlimit=10_000_000)
    assert p.status == "unknown"
    t = p.or_else(lambda: exhaustive(lambda c: sum(range(c[0] + c[1])) == sum(range(c[0])) + sum(range(c[1])) + c[0] * c[1],
                                     itertools.product(range(6), repeat=2), describe="a, b < 6"))
    assert t.ok and t.strength == "exhaustive"
    assert t.evidence["proof_attempt"]["status"] == "unknown"


def test_a_false_lemma_is_never_made():
    q, n = pv.ints("q n")
    with pytest.raises(CheckError, match="not proved"):
        pv.lemma("wrong", [q, n], z3.Implies(n > 0, pv.fdiv(q, n) * n == q), text="every q is a multiple of n")


def test_induction_refuses_a_false_step():
    k = z3.Int("k")
    with pytest.raises(CheckError, match="step"):
        pv.induction("wrong", k, lambda x: x * x >= 2 * x, text="k^2 >= 2k", start=0)  # fails at k = 1


def test_flattening_library_is_proved_and_named():
    names = [lm.name for lm in pv.FLATTENING_LEMMAS]
    assert len(names) == len(set(names)) >= 6
    for lm in pv.FLATTENING_LEMMAS:
        assert lm.method == "z3" and lm.text and z3.is_quantifier(lm.statement)


def test_lemma_library_is_used_and_reported():
    # a 3-digit mixed-radix flattening: the proof names the library lemmas its unsat core used
    a, b, c, B, C = pv.ints("a b c B C")
    flat = (a * B + b) * C + c
    goal = z3.And(pv.fdiv(flat, C) == a * B + b, pv.fmod(flat, C) == c)
    p = pv.prove(goal, assuming=[B >= 1, C >= 1, a >= 0, 0 <= b, b < B, 0 <= c, c < C],
                 lemmas=pv.FLATTENING_LEMMAS, for_all="B, C >= 1 and digits in range")
    assert p.status == "proved"
    assert set(p.lemmas) <= {lm.name for lm in pv.FLATTENING_LEMMAS}


@given(st.integers(-10**6, 10**6), st.integers(1, 10**4))
def test_index_helpers_mean_the_same_on_ints_numpy_and_z3(a, b):
    # the bridge that makes "the function that runs is the function proved": for a positive
    # divisor, Python/NumPy floor division and Z3's Euclidean div/mod agree for every dividend
    za, zb = z3.IntVal(a), z3.IntVal(b)
    assert z3.simplify(pv.fdiv(za, zb)).as_long() == pv.fdiv(a, b) == int(pv.fdiv(np.int64(a), np.int64(b)))
    assert z3.simplify(pv.fmod(za, zb)).as_long() == pv.fmod(a, b) == int(pv.fmod(np.int64(a), np.int64(b)))


def test_index_helpers_on_arrays():
    x = np.arange(6)
    np.testing.assert_array_equal(pv.ite(x % 2 == 0, x, -x), [0, -1, 2, -3, 4, -5])
    np.testing.assert_array_equal(pv.both(x > 1, x < 4), [False, False, True, True, False, False])
    np.testing.assert_array_equal(pv.either(x < 1, x > 4), [True, False, False, False, False, True])
    assert pv.ite(True, 1, 2) == 1 and pv.both(True, False) is False


def test_lemma_instances_are_cheap_and_recorded():
    # NESTED_MOD in the library is proved from instances of three smaller lemmas, and says so
    assert set(pv.NESTED_MOD.uses) == {"div-mod-recompose", "nested-div", "div-shift"}
    x, n = pv.ints("x n")
    inst = pv.DIV_SHIFT.at(x, 3, n)
    p = pv.prove(pv.fdiv(x + 3 * n, n) - pv.fdiv(x, n) == 3, assuming=[n >= 1], lemmas=[inst], for_all="x, n >= 1")
    assert p.status == "proved"
    with pytest.raises(ValueError, match="quantifies 3"):
        pv.DIV_SHIFT.at(x, n)


def test_bit_vector_goals_use_the_general_solver():
    # the integer solver cannot decide bit-vectors (it once answered a bogus "sat"): such goals go
    # to Z3's general solver, and their counterexamples are minimal and checked too
    i, l = z3.BitVec("i", 16), z3.BitVec("l", 16)
    partner = i ^ (z3.BitVecVal(1, 16) << l)
    assert pv.prove(partner ^ (z3.BitVecVal(1, 16) << l) == i, assuming=[z3.ULT(l, 15)], for_all="16-bit i, l < 15").proved
    wrong = pv.prove(partner == i + (z3.BitVecVal(1, 16) << l), assuming=[z3.ULT(l, 15)], for_all="16-bit i, l < 15")
    assert wrong.status == "counterexample" and wrong.counterexample == {"i": 1, "l": 0}


def test_induction_keeps_its_hypotheses_in_the_lemma():
    # the hypothesis d > 0 was used by the step; the lemma must say "d > 0 ->", or it would claim
    # more than was proved (with d = 0 the property fails)
    k, d = pv.ints("k d")
    f = z3.Function("f", z3.IntSort(), z3.IntSort(), z3.IntSort())
    zero = pv.axiom("f-zero", z3.ForAll([d], f(0, d) == 0), text="f(0, d) = 0")
    succ = pv.axiom("f-succ", z3.ForAll([k, d], z3.Implies(k >= 0, f(k + 1, d) == f(k, d) + d)), text="f(k+1, d) = f(k, d) + d")
    lm = pv.induction("f-positive", k, lambda x: f(x + 1, d) > 0, other=[d], assuming=[d > 0], axioms=[zero, succ],
                      text="for all k >= 0 and d > 0: f(k+1, d) > 0")
    body = lm.statement.body()
    assert "d > 0" in str(lm.statement) or "0 < " in str(body)
    # the lemma cannot prove the property for d = 0, where it is false
    p = pv.prove(f(1, 0) > 0, lemmas=[lm], axioms=[zero, succ], for_all="d = 0", rlimit=5_000_000)
    assert p.status != "proved"
    with pytest.raises(ValueError, match="induction variable"):
        pv.induction("bad", k, lambda x: f(x, d) >= 0, assuming=[k >= 0], text="x")


# ---------------------------------------------------------------------------------------------
# issue 22: soundness regressions, the second solver, hints, the guide's worked example
# ---------------------------------------------------------------------------------------------
def test_a_lemma_may_not_quantify_a_variable_an_axiom_pins_down():
    x, y = pv.ints("x y")
    ax = pv.axiom("x-is-zero", x == 0, text="x = 0")
    with pytest.raises(ValueError, match="quantifies x"):
        pv.lemma("bad", [x], x == 0, axioms=[ax], text="for all x: x = 0")
    with pytest.raises(ValueError, match="quantifies x"):
        pv.induction("bad-induction", x, lambda n: n == 0, axioms=[ax], text="for all x: x = 0")


def test_contradictory_hypotheses_are_vacuous_never_proved():
    (z,) = pv.ints("z")
    p = pv.prove(z == 1, assuming=[z > 0, z < 0], for_all="z > 0 and z < 0")
    assert p.status == "vacuous" and not p.proved and p.witness is None
    with pytest.raises(CheckError):
        p.trial()


def test_an_implication_with_an_unsatisfiable_antecedent_is_vacuous():
    (z,) = pv.ints("z")
    p = pv.prove(z3.Implies(z * z < 0, z == 7), for_all="every z")
    assert p.status == "vacuous"
    q = pv.prove(z3.Implies(z > 3, z >= 4), for_all="every z")
    assert q.status == "proved" and q.witness is not None


def test_an_induction_whose_base_holds_vacuously_still_works():
    n = z3.Int("n")
    lm = pv.induction("positive-square", n, lambda k: z3.Implies(k >= 1, k * k >= k), text="for all n >= 1: n² >= n")
    assert lm.method.startswith("induction")
    a = z3.Int("a")
    assert pv.prove(a * a >= a, assuming=[a >= 1], lemmas=[lm.at(a)], for_all="a >= 1").proved


def test_sizes_must_be_free_unknowns_of_the_obligation():
    H, W, i = pv.ints("H W i")
    goal, hyps = pv.fdiv(i, W) * W + pv.fmod(i, W) == i, [H >= 1, W >= 1, 0 <= i, i < H * W]
    assert pv.prove(goal, assuming=hyps, sizes=[H, W], for_all="H, W").sizes == ["H", "W"]
    with pytest.raises(ValueError, match="not free unknowns"):
        pv.prove(goal, assuming=hyps, sizes=["N"], for_all="H, W")
    with pytest.raises(TypeError):
        pv.prove(goal, assuming=hyps, sizes="H", for_all="H, W")


def test_the_wall_clock_raises_prooftimeout_never_unknown():
    from isomat.errors import ProofTimeout

    C, H, W, r, o = pv.ints("C H W r o")
    c, y, x = pv.fdiv(o, H * r * W * r), pv.fmod(pv.fdiv(o, W * r), H * r), pv.fmod(o, W * r)
    src = ((c * r * r + pv.fmod(y, r) * r + pv.fmod(x, r)) * H + pv.fdiv(y, r)) * W + pv.fdiv(x, r)
    with pytest.raises(ProofTimeout):
        pv.prove(src < C * r * r * H * W, assuming=[C >= 1, H >= 1, W >= 1, r >= 1, 0 <= o, o < C * H * r * W * r],
                 for_all="a hard goal", rlimit=10**12, timeout_s=0.05)


def test_a_proof_lists_the_solvers_that_agreed():
    H, W, i = pv.ints("H W i")
    p = pv.prove(pv.fdiv(i, W) * W + pv.fmod(i, W) == i, assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
                 sizes=[H, W], for_all="H, W >= 1 and 0 <= i < HW")
    assert [(s["name"], s["result"]) for s in p.solvers] == [("z3", "unsat"), ("cvc5", "unsat")]
    assert all(s["version"] for s in p.solvers) and p.single_solver is None
    ev = p.trial().evidence
    assert ev["solvers"] == p.solvers and "single_solver" not in ev
    assert "(set-logic ALL)" not in p.smtlib and "(check-sat)" in p.smtlib
    # lemmas record theirs too
    assert pv.FLATTEN_DIV_MOD.record()["solvers"][1] == {"name": "cvc5", "version": pv.CVC5_VERSION, "result": "unsat"}


def test_cvc5_unknown_leaves_a_single_solver_proof():
    H, W, i = pv.ints("H W i")
    p = pv.prove(pv.fdiv(i, W) * W + pv.fmod(i, W) == i, assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
                 for_all="H, W >= 1 and 0 <= i < HW", cvc5_rlimit=1)
    assert p.status == "proved"  # Z3's proof stands
    assert p.solvers[1]["result"] == "unknown"
    assert p.single_solver is not None and p.single_solver.startswith("cvc5: unknown (resource limit")
    assert p.trial().evidence["single_solver"] == p.single_solver


def test_unknown_says_what_to_try():
    C, H, W, r, o = pv.ints("C H W r o")
    c, y, x = pv.fdiv(o, H * r * W * r), pv.fmod(pv.fdiv(o, W * r), H * r), pv.fmod(o, W * r)
    src = ((c * r * r + pv.fmod(y, r) * r + pv.fmod(x, r)) * H + pv.fdiv(y, r)) * W + pv.fdiv(x, r)
    p = pv.prove(src < C * r * r * H * W, assuming=[C >= 1, H >= 1, W >= 1, r >= 1, 0 <= o, o < C * H * r * W * r],
                 for_all="pixel shuffle source range", rlimit=500_000)
    assert p.status == "unknown"
    assert "resource limit" in p.hint and "raise rlimit" in p.hint
    assert "bound the digits" in p.hint and "FLATTEN_DIV_MOD" in p.hint and "NESTED_MOD" in p.hint
    fallback = p.or_else(lambda: exhaustive(lambda k: True, range(3), describe="k < 3"))
    assert fallback.evidence["proof_attempt"]["hint"] == p.hint


def test_the_guides_examples_run():
    """docs/guide/proofs.md: every ```python block is a doctest (the pixel-shuffle example among them)."""
    import doctest
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "proofs.md").read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.S))
    test = doctest.DocTestParser().get_doctest(code, {}, "proofs.md", "docs/guide/proofs.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)  # no ELLIPSIS: the guide runs as plain doctest
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 30 and result.failed == 0, result
