"""The trusted core (issue 36, items 3 and 4): each class of false statement the reviewer got
"proved" is tried again here and must not be proved; fdiv/fmod are floor division for every sign;
the second solver can disagree, and the re-check refuses files that are no ledger obligation."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import numpy as np
import pytest
import sympy
import z3

from isomat.errors import CheckError
from isomat.proofs import engine
from isomat.proofs import prover as pv
from isomat.proofs import smt as recheck

I = z3.IntSort()


def _not_proved(p: pv.Proof) -> None:
    assert p.status != "proved", p
    with pytest.raises(CheckError):
        p.trial()


# ---------------------------------------------------------------------------------------------
# false statements: none is proved
# ---------------------------------------------------------------------------------------------
def test_two_quantified_axioms_that_contradict_each_other():
    f, x = z3.Function("f_pos_neg", I, I), z3.Int("x")
    pos = pv.axiom("f-positive", z3.ForAll([x], f(x) > 0), text="f > 0")
    neg = pv.axiom("f-negative", z3.ForAll([x], f(x) < 0), text="f < 0")
    p = pv.prove(f(3) == 7, axioms=[pos, neg], for_all="nothing")
    _not_proved(p)
    assert p.status in ("vacuous", "unknown"), p


def test_a_quantified_axiom_that_is_no_definition():
    x, a = z3.Ints("x a")
    everything_zero = pv.axiom("all-zero", z3.ForAll([x], x == 0), text="every integer is 0")
    p = pv.prove(a == 5, axioms=[everything_zero], for_all="every a")
    _not_proved(p)
    assert p.status == "vacuous"


def test_a_quantified_definition_and_a_ground_axiom_against_it():
    f, x = z3.Function("f_succ", I, I), z3.Int("x")
    succ = pv.axiom("f-succ", z3.ForAll([x], f(x) == x + 1), text="f(x) = x + 1")
    five = pv.axiom("f0-five", f(0) == 5, text="f(0) = 5")
    p = pv.prove(f(3) == 100, axioms=[succ, five], for_all="nothing")
    _not_proved(p)
    assert p.status == "vacuous"
    # each alone is consistent: the definition proves what it says
    assert pv.prove(f(3) == 4, axioms=[succ], for_all="f(3)").status == "proved"


def test_axioms_behind_a_used_lemma_are_in_the_consistency_check():
    f, x, y = z3.Function("f_zero", I, I), z3.Int("x"), z3.Int("y")
    zero = pv.axiom("f-zero", z3.ForAll([x], f(x) == 0), text="f = 0")
    lm = pv.lemma("f-zero-everywhere", [y], f(y) == 0, axioms=[zero], text="f(y) = 0 for all y")
    one = pv.axiom("f4-one", f(4) == 1, text="f(4) = 1")
    # the lemma (quantified) and f(4) = 1 contradict; the axiom behind the lemma is a premise too
    p = pv.prove(f(7) == 123, lemmas=[lm], axioms=[one], for_all="nothing")
    _not_proved(p)
    assert p.status == "vacuous" and "axioms behind the lemmas" in p.reason


@pytest.mark.parametrize("make", [
    lambda: z3.Real("r"), lambda: z3.Bool("b"), lambda: z3.BitVec("v", 8), lambda: z3.Int("i"),
    lambda: z3.Const("u", z3.DeclareSort("U")),
], ids=["Real", "Bool", "BitVec", "Int", "uninterpreted"])
def test_a_lemma_may_not_quantify_a_constant_free_in_its_axioms_of_any_sort(make):
    v = make()
    stmt = v if z3.is_bool(v) else v == _some(v)  # the axiom pins v to one value
    pinned = pv.axiom(f"pin-{v}", stmt, text="one value")
    # "for all v: stmt" would follow from an axiom about one v -- and from it anything
    with pytest.raises(ValueError, match="occurs free"):
        pv.lemma(f"forall-{v}", [v], stmt, axioms=[pinned], text="for all")
    # nor through a lemma built on the axiom (transitively)
    mid = pv.lemma(f"mid-{v}", [], stmt, axioms=[pinned], text="that value")
    with pytest.raises(ValueError, match="occurs free"):
        pv.lemma(f"forall2-{v}", [v], stmt, using=[mid], text="for all")


def _some(v):
    if z3.is_real(v):
        return z3.RealVal(0)
    if z3.is_bv(v):
        return z3.BitVecVal(0, v.size())
    if z3.is_int(v):
        return z3.IntVal(0)
    return z3.Const("u0", v.sort())


def _genuine():
    return pv.FLATTEN_DIV_MOD


def test_lemma_and_instance_and_proof_are_made_by_the_prover_only():
    q, r, n = z3.Ints("q r n")
    with pytest.raises(TypeError, match="made only by the prover"):
        pv.Lemma("false", z3.ForAll([q], q == 0), "for all q: q = 0")
    with pytest.raises(TypeError, match="made only by the prover"):
        pv.LemmaInstance(_genuine(), z3.BoolVal(False))
    with pytest.raises(TypeError, match="made only by the prover"):
        pv.Proof("proved", "x", "false", 0.0)
    # dataclasses.replace goes through the constructor: refused
    with pytest.raises(TypeError, match="made only by the prover"):
        dataclasses.replace(_genuine(), statement=z3.ForAll([q], q == 0))
    # pickling cannot rebuild one; copy gives the very object (the same proof)
    with pytest.raises(TypeError):
        pickle.dumps(_genuine())
    assert copy.copy(_genuine()) is _genuine() and copy.deepcopy(_genuine()) is _genuine()


def test_forged_lemmas_around_the_constructor_are_refused_by_prove():
    q, a = z3.Ints("q a")
    forged = object.__new__(pv.Lemma)
    for k, v in dict(name="false", statement=z3.ForAll([q], q == 0), text="q = 0", uses=(), axioms=(), method="z3",
                     seconds=0.0, solvers=(), single_solver=None, smt2=()).items():
        object.__setattr__(forged, k, v)
    with pytest.raises(TypeError, match="not made by the prover"):
        pv.prove(a == 5, lemmas=[forged], for_all="every a")
    with pytest.raises(TypeError, match="not made by the prover"):
        forged.at(a)
    # a genuine lemma whose statement was swapped after it was proved
    victim = pv.lemma("victim", [q], z3.Implies(q > 0, q >= 1), text="q > 0 → q >= 1")
    object.__setattr__(victim, "statement", z3.ForAll([q], q == 0))
    with pytest.raises(TypeError, match="altered"):
        pv.prove(a == 5, lemmas=[victim], for_all="every a")
    # an instance made around .at()
    inst = object.__new__(pv.LemmaInstance)
    object.__setattr__(inst, "lemma", _genuine())
    object.__setattr__(inst, "statement", a == 5)
    with pytest.raises(TypeError, match="not made by the prover"):
        pv.prove(a == 5, lemmas=[inst], for_all="every a")


def test_a_proved_trial_needs_a_certified_proof():
    with pytest.raises(CheckError, match="cannot be claimed"):
        engine.Trial(True, "symbolic", {"for_all": "x", "sizes": []}, strength="proved")
    forged = object.__new__(pv.Proof)
    object.__setattr__(forged, "status", "proved")
    with pytest.raises(CheckError, match="cannot be claimed"):
        engine.Trial(True, "symbolic", {"for_all": "x", "sizes": []}, strength="proved", proof=forged)
    # a proved trial made around __post_init__ is refused where it is used
    t = object.__new__(engine.Trial)
    for k, v in dict(ok=True, method="symbolic", evidence={"for_all": "x", "sizes": []}, counterexample=None,
                     strength="proved", proof=None).items():
        object.__setattr__(t, k, v)
    with pytest.raises(CheckError, match="certified"):
        engine.decide(t)
    # a genuine one passes, and stays proved through with_evidence and all_of
    (a,) = pv.ints("a")
    good = pv.prove(a + 1 > a, for_all="every a").trial()
    assert good.strength == "proved" and good.with_evidence(note="x").strength == "proved"
    assert engine.all_of(good, good).strength == "proved"
    assert engine.decide(good).strength == "proved"
    # the certificate is bound to the proof's fields
    p = pv.prove(a + 2 > a, for_all="every a")
    object.__setattr__(p, "status", "proved")  # (unchanged: still the same status)
    assert p.trial().strength == "proved"
    object.__setattr__(p, "for_all", "something else")
    with pytest.raises(CheckError, match="cannot be claimed"):
        p.trial()


def test_symbolic_zero_records_the_domain_sympy_used():
    x, y = sympy.symbols("x y", positive=True)
    diff = sympy.log(x * y) - sympy.log(x) - sympy.log(y)
    t = engine.symbolic_zero(diff, describe="log(xy) = log x + log y", for_all="all real x, y > 0",
                             domain={"x": "real > 0", "y": "real > 0"})
    # the identity holds only because x and y were declared positive: the record says so
    assert t.strength == "proved"
    assert t.evidence["assumptions"] == {"x": ["positive"], "y": ["positive"]}
    assert t.evidence["for_all"] == "all real x, y > 0; domain: x real > 0, y real > 0"
    u, v = sympy.symbols("u v")
    plain = engine.symbolic_zero((u + 1) ** 2 - u**2 - 2 * u - 1, describe="square", for_all="all u")
    assert plain.evidence["assumptions"] == {} and plain.evidence["for_all"] == "all u"
    # without the assumption SymPy does not reach zero: no proof
    assert not engine.symbolic_zero(sympy.log(u * v) - sympy.log(u) - sympy.log(v), describe="log", for_all="all u, v").ok


def test_symbolic_zero_refuses_a_for_all_its_symbols_assumptions_narrow():
    """Issue 36 item 3: SymPy reaches zero with the symbols' assumptions; a for_all that does not state them (or
    states a domain that does not imply them) would call proved what holds only on the narrower domain."""
    n = sympy.Symbol("n", positive=True)
    diff = sympy.Abs(n, evaluate=False) - n  # zero only for n >= 0: positive=True does the work
    with pytest.raises(CheckError, match=r"symbol n is declared positive .*'for all integers n'"):
        engine.symbolic_zero(diff, describe="|n| = n", for_all="for all integers n")
    with pytest.raises(CheckError, match=r"symbol n is declared positive .*'for all integers n' states n integer, "
                                         r"which does not imply positive"):
        engine.symbolic_zero(diff, describe="|n| = n", for_all="for all integers n", domain={"n": "integer"})
    # an Indexed entry x[k] of a real IndexedBase answers to the domain of its base x
    k, m = sympy.Symbol("k", integer=True), sympy.Symbol("m", integer=True, nonnegative=True)
    xs = sympy.IndexedBase("x", real=True)
    with pytest.raises(CheckError, match="symbol x is declared"):
        engine.symbolic_zero(sympy.im(xs[k], evaluate=False), describe="Im x_k", for_all="all k, x", domain={"k": "integer"})
    ok = engine.symbolic_zero(sympy.im(xs[k], evaluate=False), describe="Im x_k", for_all="all k, x", domain={"k": "integer", "x": "real"})
    assert ok.strength == "proved" and ok.evidence["for_all"] == "all k, x; domain: k integer, x real"
    # a stated domain narrower than the assumptions is a true (weaker) statement; the record carries it
    t = engine.symbolic_zero(diff, describe="|n| = n", for_all="for all n >= 1", domain={"n": "integer >= 1"})
    assert t.strength == "proved" and t.evidence["for_all"] == "for all n >= 1; domain: n integer >= 1"
    with pytest.raises(CheckError, match="symbol m is declared integer, nonnegative"):
        engine.symbolic_zero(m - sympy.Abs(m, evaluate=False), describe="|m| = m", for_all="every m", domain={"m": "real >= 0"})
    assert engine.symbolic_zero(m - sympy.Abs(m, evaluate=False), describe="|m| = m", for_all="every m", domain={"m": "integer >= 0"}).ok
    with pytest.raises(ValueError, match=r"domain\['n'\] must be one of"):
        engine.symbolic_zero(diff, describe="|n| = n", for_all="for all n", domain={"n": "positive"})
    with pytest.raises(ValueError, match="give for_all too"):
        engine.symbolic_zero(diff, describe="|n| = n", domain={"n": "real > 0"})


# ---------------------------------------------------------------------------------------------
# a candidate model of the premises: checked, recorded, never trusted
# ---------------------------------------------------------------------------------------------
def _prefix_sums():
    """Prefix sums S(k) = Σ_{j<k} x(j) of an uninterpreted x, with the hypothesis S(n) = 1."""
    x, S = z3.Function("x_entry", I, I), z3.Function("prefix", I, I)
    j, n = z3.Ints("j n")
    ax = [pv.axiom("prefix-0", S(0) == 0, text="empty sum"),
          pv.axiom("prefix-step", z3.ForAll([j], z3.Implies(j >= 0, S(j + 1) == S(j) + x(j))), text="S(j+1) = S(j) + x_j")]
    return x, S, n, ax


def test_a_candidate_model_is_checked_and_recorded():
    x, S, n, ax = _prefix_sums()
    model = {x: lambda j: z3.If(j == 0, 1, 0), S: lambda k: z3.If(k >= 1, 1, 0)}
    p = pv.prove(S(n) + 1 == 2, assuming=[n >= 1, S(n) == 1], axioms=ax, for_all="n >= 1 with S(n) = 1", model=model)
    assert p.status == "proved"
    ev = p.trial().evidence
    assert ev["model"] == {"x_entry": "(lambda ((x_entry!0 Int)) (ite (= x_entry!0 0) 1 0))",
                           "prefix": "(lambda ((prefix!0 Int)) (ite (>= prefix!0 1) 1 0))"}
    assert ev["witness"]["n"] >= 1
    # a model that satisfies no premise set shows nothing: unknown, never vacuous and never proved
    wrong = pv.prove(S(n) + 1 == 2, assuming=[n >= 1, S(n) == 1], axioms=ax, for_all="n >= 1",
                     model={x: lambda j: z3.IntVal(0), S: lambda k: z3.IntVal(0)})
    assert wrong.status == "unknown" and "candidate model" in wrong.reason
    _not_proved(wrong)


def test_no_model_makes_contradicting_premises_consistent():
    x, S, n, ax = _prefix_sums()
    clash = pv.axiom("prefix-1", S(1) == 5, text="against the definition when x_0 = 1")
    for model in ({x: lambda j: z3.IntVal(1), S: lambda k: k}, {x: lambda j: z3.IntVal(1)}, {n: 1}):
        p = pv.prove(S(n) == 1, assuming=[n >= 1, S(n) == 1, x(0) == 1], axioms=[*ax, clash], for_all="n >= 1",
                     model=model)
        _not_proved(p)


def test_a_claim_whose_premises_need_a_model_records_it():
    # cheng2025:prop4.6's quantified premises (columns of an uninterpreted A summing to 1) have no
    # model Z3 finds alone: the claim gives one, the prover checks it, the record carries it
    from isomat.proofs import load

    (claim,) = [c for c in load(["cheng2025"]) if c.id == "cheng2025:prop4.6"]
    rec = engine.run_claim(claim)
    assert (rec["verdict"], rec["strength"]) == ("holds", "proved"), rec.get("error")
    (proof,) = [t for t in rec["evidence"]["printed"]["trials"] if "model" in t]
    assert set(proof["model"]) >= {"A_entry", "x_entry", "ColumnSum", "m", "n"} and proof["witness"] == {"m": 1, "n": 1}


def test_a_candidate_model_is_read_strictly():
    x, S, n, ax = _prefix_sums()
    for bad, err in (({x: 1}, TypeError), ({x: lambda j: z3.BoolVal(True)}, TypeError), ({"x_entry": lambda j: j}, TypeError),
                     ({n: "one"}, TypeError), ({x: lambda j: S(j), S: lambda k: k}, ValueError), ([(x, 1)], TypeError)):
        with pytest.raises(err, match="model"):
            pv.prove(S(n) == 1, assuming=[S(n) == 1], axioms=ax, for_all="n", model=bad)


# ---------------------------------------------------------------------------------------------
# fdiv / fmod: floor division for every sign
# ---------------------------------------------------------------------------------------------
GRID = range(-9, 10)
DIVISORS = [d for d in range(-5, 6) if d != 0]


def test_fdiv_fmod_agree_with_numpy_and_python_for_every_sign():
    assert pv.fdiv(7, -2) == -4 and pv.fmod(7, -2) == -1
    a = np.array(list(GRID), dtype=np.int64)
    for d in DIVISORS:
        assert (pv.fdiv(a, d) == np.floor_divide(a, d)).all() and (pv.fmod(a, d) == np.mod(a, d)).all()
        # the Z3 translation evaluates to the same numbers, literal dividend and divisor alike
        for x in GRID:
            for b in (d, z3.IntVal(d)):
                assert z3.simplify(pv.fdiv(z3.IntVal(x), b)).as_long() == x // d, (x, d)
                assert z3.simplify(pv.fmod(z3.IntVal(x), b)).as_long() == x % d, (x, d)
            # a Python int dividend of a Z3 divisor stays integer division
            assert z3.simplify(pv.fdiv(x, z3.IntVal(d))).as_long() == x // d
            assert z3.simplify(pv.fmod(x, z3.IntVal(d))).as_long() == x % d


def test_the_z3_translation_is_proved_equal_to_numpy_on_a_grid():
    # for every literal divisor of either sign and every dividend on the grid: a solver proof that
    # fdiv/fmod's Z3 terms equal NumPy's results
    # (a small grid: the evaluation on the whole grid is the test above; this is the solver's reading)
    grid, divisors = range(-4, 5), (-3, -2, -1, 1, 2, 3)
    goals = [z3.And(pv.fdiv(z3.IntVal(x), d) == int(np.floor_divide(x, d)), pv.fmod(z3.IntVal(x), d) == int(np.mod(x, d)))
             for x in grid for d in divisors]
    p = pv.prove(z3.And(*goals), for_all=f"a in {grid.start}..{grid.stop - 1}, b in {divisors}")
    assert p.status == "proved"
    # and for every dividend (symbolic) with a negative literal divisor: the floor-division laws
    (a,) = pv.ints("a")
    for d in (-1, -2, -3, -7):
        q, r = pv.fdiv(a, d), pv.fmod(a, d)
        law = pv.prove(z3.And(a == d * q + r, d < r, r <= 0), for_all=f"every integer a, b = {d}")
        assert law.status == "proved", law
    # Z3's own div is Euclidean: 7 div -2 = -3, which is not floor division
    assert z3.simplify(z3.IntVal(7) / z3.IntVal(-2)).as_long() == -3 != pv.fdiv(7, -2)


def test_a_symbolic_divisor_must_be_proved_positive():
    a, b = pv.ints("a b")
    # with b of either sign, Z3's div/mod would be Euclidean: another function -- refused
    p = pv.prove(pv.fdiv(a, b) * b + pv.fmod(a, b) == a, assuming=[b != 0], for_all="b != 0")
    _not_proved(p)
    assert "refused" in p.reason and "positive" in p.reason
    # a false statement that holds for Euclidean division only: refused, never proved
    euclid = pv.prove(pv.fmod(a, b) >= 0, assuming=[b != 0], for_all="b != 0")
    _not_proved(euclid)
    # a divisor shown positive by the hypotheses, or by the condition guarding the term: proved
    assert pv.prove(pv.fdiv(a, b) * b + pv.fmod(a, b) == a, assuming=[b >= 1], for_all="b >= 1").status == "proved"
    assert pv.prove(z3.Implies(b > 0, pv.fmod(a, b) >= 0), for_all="every a, b").status == "proved"
    with pytest.raises(ZeroDivisionError):
        pv.fdiv(a, 0)
    # a quantified hypothesis beside them is read, not tripped over
    (j,) = pv.ints("j")
    f = z3.Function("f", I, I)
    assert pv.prove(pv.fmod(a, b) < b, assuming=[z3.ForAll([j], f(j) >= 0), b >= 1], for_all="b >= 1").status == "proved"


# ---------------------------------------------------------------------------------------------
# the second solver can disagree
# ---------------------------------------------------------------------------------------------
WRONG_BODY = "(declare-fun x () Int)\n(assert (>= x 1))\n(assert (not (>= x 2)))\n(check-sat)\n"


def test_no_status_line_forces_an_answer():
    text = recheck.script(WRONG_BODY, claim="t2026:eq1", for_all="x >= 1")
    assert ":status" not in text
    # cvc5 answers sat on a satisfiable obligation (with a status line it raised, read as "unknown")
    assert recheck.cvc5_check(text)["result"] == "sat"


def test_a_sat_from_cvc5_makes_the_claim_an_error_naming_the_obligation(monkeypatch):
    monkeypatch.setattr(recheck, "cvc5_check", lambda text, **kw: {"name": "cvc5", "version": "x", "result": "sat"})
    # (run_claim turns the CheckError raised inside a claim's check into the claim's error record)
    with recheck.claim_context("coretest2026:eq1"):
        with pytest.raises(CheckError, match=r"solvers disagree.*obligation coretest2026_eq1-\d+\.smt2"):
            pv.prove(z3.Int("a") + 1 > z3.Int("a"), for_all="every a")


def test_recheck_with_a_ledger_refuses_what_no_record_lists(tmp_path, capsys):
    (a,) = pv.ints("a")
    out = tmp_path / "smt"
    recheck.export_to(out)
    try:
        with recheck.claim_context("coretest2026:eq2"):
            p = pv.prove(a + 3 > a, for_all="every a")
    finally:
        recheck.export_to(None)
    (name,) = [f.name for f in out.glob("coretest2026_eq2-*.smt2")]
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"claims": [{"id": "coretest2026:eq2", "evidence": {"printed": p.evidence()}}]}))
    assert recheck.main(["--ledger", str(ledger), str(out / name)]) == 0
    # the same commands under another comment header are the same obligation; other commands are not
    text = (out / name).read_text()
    (out / name).write_text(text.replace("; for all: every a", "; for all: anything"))
    assert recheck.main(["--ledger", str(ledger), str(out / name)]) == 0
    (out / name).write_text(text.replace("(check-sat)", "(assert false)\n(check-sat)"))
    assert recheck.main(["--ledger", str(ledger), str(out / name)]) == 1
    assert "refused" in capsys.readouterr().out
    # a file the ledger does not list, in a directory without a manifest
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "x-01.smt2").write_text("(set-logic ALL)\n(assert false)\n(check-sat)\n")
    assert recheck.main(["--ledger", str(ledger), str(lone)]) == 1
    assert recheck.main([str(lone)]) == 1
    assert "no ledger obligation" in capsys.readouterr().out
