"""Issue 38 items 3 and 5, issue 41 item 3: record fields computed from the evidence, the threshold-reading helper,
and checks that fail for a wrong printed value or a wrong construction (the named ones, and every results claim)."""

from __future__ import annotations

import copy
import re
import time
from fractions import Fraction

import pytest
import z3

from isomat.proofs import engine, prover
from isomat.proofs.engine import REGISTRY, run_claim


def _loaded(*papers):
    from isomat import proofs

    return {c.id: c for c in proofs.load(list(papers))}


# ---------------------------------------------------------------------------------------------
# the threshold-reading helper (issue 41 item 3)
# ---------------------------------------------------------------------------------------------
def test_printed_checks_decides_from_the_comparisons():
    ok = engine.printed_checks({"a above b": True, "c within 10% of d": True}, margin="1/10")
    assert ok.verdict == "holds" and ok.strength == "recompute" and ok.evidence["margin"] == "1/10"
    bad = engine.printed_checks({"a above b": True, "c within 10% of d": False})
    assert bad.verdict == "inconsistent"
    assert bad.discrepancies == ({"where": "c within 10% of d", "printed": True, "correct": False},)
    assert bad.evidence["independent_reference"]["ok"] is True  # arithmetic on the printed numbers alone
    assert engine.printed_checks({"x": False}, kind="misprint").verdict == "misprint"
    with pytest.raises(TypeError, match="bool"):
        engine.printed_checks({"a above b": 1})
    with pytest.raises(ValueError, match="non-empty"):
        engine.printed_checks({})
    r = engine.by_readings(engine.threshold_reading("strict", "s", {"x": False}),
                           engine.threshold_reading("tolerant", "t", {"x": True}, supported=False),
                           engine.threshold_reading("open", "o", engine.not_checkable("no data")))
    assert r.verdict == "inconsistent" and r.evidence["headline_reading"] == "strict"
    with pytest.raises(TypeError, match="evidence"):
        engine.threshold_reading("x", "y", engine.not_checkable("no data"), margin=1)


# ---------------------------------------------------------------------------------------------
# fields computed from the evidence (issue 38 item 5)
# ---------------------------------------------------------------------------------------------
def _user_claim(cid, check, methods=("exhaustive",)):
    REGISTRY.pop(cid, None)
    engine.claim(cid, quote="q", statement="s", methods=list(methods))(check)
    try:
        return run_claim(REGISTRY[cid])
    finally:
        REGISTRY.pop(cid, None)


def test_methods_are_the_evidence_s_and_a_prove_without_sizes_is_flagged():
    from isomat.cli import proof_counts

    n = z3.Int("n")

    def undeclared():
        return engine.decide(prover.prove(n + 0 == n, for_all="every integer n").trial())

    def declared():
        return engine.decide(prover.prove(n + 0 == n, for_all="every integer n", sizes=()).trial())

    a = _user_claim("referee2026:undeclared", undeclared)
    b = _user_claim("referee2026:declared", declared)
    # the claim declares "exhaustive"; its evidence is a Z3 proof: the record says symbolic
    assert a["methods"] == b["methods"] == ["symbolic"]
    assert a["strength"] == b["strength"] == "proved" and a["sizes"] == b["sizes"] == []
    assert a["sizes_undeclared"] == ["every integer n"] and "sizes_undeclared" not in b
    counts = proof_counts([a, b])
    assert (counts["proved_identities"], counts["proved_sizes_undeclared"]) == (1, 1)
    # a not-checkable record has no trial: it keeps the methods its claim declares
    c = _user_claim("referee2026:open", lambda: engine.not_checkable("no data"), methods=("recompute",))
    assert c["methods"] == ["recompute"]
    # the runner derives them again from what a worker sends (a worker cannot type its own)
    from isomat.proofs import _runner

    sent = dict(a, methods=["numeric"], sizes_undeclared=["forged"])
    rec = _runner.record_from_worker(engine.Claim("referee2026:undeclared", "q", "s", ("exhaustive",), undeclared), sent)
    assert rec["methods"] == ["symbolic"] and rec["sizes_undeclared"] == ["every integer n"]


def test_same_proof_as_is_computed_against_the_whole_ledger():
    def rec(cid, obligations):
        return {"id": cid, "paper": cid.split(":")[0], "strength": "proved", "obligations": obligations}

    ledger = {"zhu2025:a": ["x", "y"], "zhu2025:b": ["x"], "zhu2025:c": ["x", "y"], "zhu2025:beyond/d": ["x", "y", "z"]}
    whole = [rec(cid, obl) for cid, obl in ledger.items()]
    engine.same_proofs(whole, ledger)
    marks = {r["id"]: r.get("same_proof_as") for r in whole}
    assert marks == {"zhu2025:a": None, "zhu2025:b": "zhu2025:a", "zhu2025:c": "zhu2025:a", "zhu2025:beyond/d": None}
    # each record run alone, or with any other, gets the mark it gets in the whole ledger
    for cid in ledger:
        for others in ([], [c for c in ledger if c != cid][:1]):
            part = [rec(x, ledger[x]) for x in [cid, *others]]
            engine.same_proofs(part, ledger)
            assert part[0].get("same_proof_as") == marks[cid], (cid, others)


def test_the_stored_obligations_are_the_whole_ledger_s(verify_json_run):
    computed = {r["id"]: r["obligations"] for r in verify_json_run.records
                if r["paper"] in engine.PAPERS and r.get("strength") == "proved" and r.get("obligations")}
    stored = engine.ledger_obligations()
    assert stored == computed, "rewrite isomat/proofs/expected/obligations.json with benchmarks/_write_expected.py --all"
    # and the marks the whole run made are the ones each record gets against the stored ledger
    for r in verify_json_run.records:
        if r["paper"] in engine.PAPERS and r.get("strength") == "proved":
            alone = copy.deepcopy(r)
            engine.same_proofs([alone])
            assert alone.get("same_proof_as") == r.get("same_proof_as"), r["id"]


def test_claim_prints_the_computed_fields():
    from isomat.cli import _full_record

    rec = {"id": "zhu2025:x", "verdict": "holds", "strength": "proved", "quote": "q", "statement": "s",
           "methods": ["symbolic"], "evidence": {"printed": {"ok": True}}, "seconds": 0.1, "sizes": ["H", "W"],
           "obligations": ["ab"], "same_proof_as": "zhu2025:y",
           "second_solver": {"obligations": 3, "confirmed": 2, "single_solver": ["cvc5: unknown"]}}
    text = _full_record(rec)
    fields = {m.group(1).strip(): m.group(2) for m in re.finditer(r"^(sizes|same proof as|second solver)\s{2,}(.*)$",
                                                                  text, re.M)}
    assert set(fields) == {"sizes", "same proof as", "second solver"}, text[:2000]
    assert fields["sizes"] == "H, W" and fields["same proof as"] == "zhu2025:y"
    assert fields["second solver"] == "cvc5 confirmed 2 of 3 Z3 obligations; on Z3 alone: cvc5: unknown"
    assert "second_solver" not in text and "same_proof_as" not in text  # not inside a JSON blob
    alone = _full_record(dict(rec, sizes=[], same_proof_as=None, second_solver=None))
    assert "none (a size-free identity)" in alone and "none (counted here)" in alone and "a SymPy identity" in alone


# ---------------------------------------------------------------------------------------------
# the named checks of item 3 fail for a wrong printed value or a wrong construction
# ---------------------------------------------------------------------------------------------
def _rerun(cid):
    return run_claim(_loaded(cid.split(":")[0])[cid])


def test_display_vs_p_reads_the_display(monkeypatch):
    from isomat.proofs.zhu2025 import sec4_2

    assert _rerun("zhu2025:sec4.2.1/display-vs-p")["verdict"] == "holds"
    for wrong in ({"leading zeros of rows 0, 1, 2": (0, 1, 2), "trailing zeros of the last row": 1},
                  {"leading zeros of rows 0, 1, 2": (0, 2, 4), "trailing zeros of the last row": 0}):
        monkeypatch.setattr(sec4_2, "WCONV_DISPLAY", wrong)
        assert _rerun("zhu2025:sec4.2.1/display-vs-p")["verdict"] == "inconsistent", wrong


def test_eq44_reads_the_printed_token_axis(monkeypatch):
    from types import SimpleNamespace

    import numpy as np

    from isomat.proofs.cheng2025 import further

    # a stand-in for torch's F.linear (x Tᵀ), so the test does not import torch: what is under test is the axis
    torch = SimpleNamespace(tensor=np.asarray, nn=SimpleNamespace(functional=SimpleNamespace(
        linear=lambda x, T: SimpleNamespace(numpy=lambda: np.asarray(x) @ np.asarray(T).T))))
    assert all(further._eq44_per_token(c, torch) for c in [(1, 1, 1), (2, 3, 2), (3, 2, 3)])
    rows = {k: 0 for k in further.EQ44_TOKEN_AXIS}  # a paper printing its §III.C tokens in rows
    monkeypatch.setattr(further, "EQ44_TOKEN_AXIS", rows)
    assert not further._eq44_per_token((2, 3, 2), torch) and not further._eq44_per_token((2, 2, 2), torch)


def test_farag_linearity_readings_read_isomat_s_layer(monkeypatch):
    from isomat.proofs.farag2025 import sec2

    orig = sec2.spm_forward
    monkeypatch.setattr(sec2, "spm_forward", lambda layer, X, **kw: orig(layer, X, **kw) * 2)  # a wrong layer
    for cid in ("farag2025:abstract/global", "farag2025:sec6.2/linear"):
        rec = _rerun(cid)  # isomat's layer is not the paper's: an error, never a verdict about the paper
        assert rec["verdict"] == "error" and "spm_forward disagrees" in rec["error"], (cid, rec.get("error"))


# ---------------------------------------------------------------------------------------------
# ledger-wide: no results check passes for a wrong printed table
# ---------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"^([+-]?)(\d+)(?:\.(\d+))?([MkK%]?)$")


_FACTORS = (Fraction(3, 2), Fraction(1, 2), Fraction(5, 2), Fraction(1, 3), Fraction(2))  # a cycle of five: rows of 2, 3, 4 or 6 shift phase


def _wrong(value, position):
    """A printed value made wrong: a number scaled by 3/2, 1/2, 5/2, 1/3 or 2 by its position along the table (so columns
    change order and ratios too) and moved by one unit of its last digit, in its printed format; a bool negated; None
    made a text; a word marked as another word."""
    factor = _FACTORS[position % len(_FACTORS)]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return int(value * factor) + 1
    if isinstance(value, Fraction):
        return value * factor + 1
    if isinstance(value, float):
        return value * float(factor) + 1.0
    if isinstance(value, str):
        m = _NUMBER.match(value.strip())
        if not m:
            return value + " (misread)"
        sign, whole, frac, suffix = m.groups()
        places = len(frac or "")
        x = Fraction(f"{whole}.{frac}" if frac else whole) * factor + Fraction(1, 10 ** places)
        return f"{sign}{float(x):.{places}f}{suffix}"
    if value is None:
        return "given"
    return value


def _negated(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, Fraction, float)):
        return -value if value else 1
    m = _NUMBER.match(value.strip()) if isinstance(value, str) else None
    if m:
        return value.strip()[1:] if m.group(1) == "-" else "-" + value.strip().lstrip("+")
    return value


def _constant(value):
    if isinstance(value, (int, Fraction, float)) and not isinstance(value, bool):
        return type(value)(1)
    m = _NUMBER.match(value.strip()) if isinstance(value, str) else None
    return f"1{'.' + '0' * len(m.group(3)) if m.group(3) else ''}{m.group(4)}" if m else value


#: the misreadings a transcription can suffer, each a way to make a printed table wrong
MODES = ("scaled", "scaled, other phase", "columns swapped", "rows swapped", "negated", "constant")


def _perturbed(table, mode):
    """``table`` made wrong (``MODES[mode]``): its numbers -- and integer keys, a table's steps or widths -- scaled by
    :func:`_wrong` (two phases of the cycle); every row reversed (columns swapped); the values of every dict rotated
    by one key (rows swapped); every number negated (every order reversed); every number 1 (every strict comparison
    false, every size the smallest)."""
    count = [mode]

    def leaf(x):
        count[0] += 1
        if mode in (0, 1):
            return _wrong(x, count[0])
        return _negated(x) if mode == 4 else _constant(x) if mode == 5 else x

    def walk(x):
        if isinstance(x, dict):
            keys = [leaf(k) if mode in (0, 1) and isinstance(k, int) and not isinstance(k, bool) else k for k in x]
            values = [walk(v) for v in x.values()]
            if mode == 3 and len(values) > 1:
                values = values[1:] + values[:1]
            return dict(zip(keys, values))
        if isinstance(x, (list, tuple)):
            items = [walk(v) for v in x]
            return type(x)(reversed(items) if mode == 2 else items)
        return leaf(x)

    return walk(table)


def _names(code):
    out = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            out |= _names(const)
    return out


def _printed_tables(fn):
    """The transcriptions a check reads: the upper-case dicts named by the check or by the module-level functions of
    isomat.proofs it calls, transitively (a static closure), each as (the module's globals, its name)."""
    found, seen, todo = set(), set(), [fn]
    while todo:
        f = todo.pop()
        f = getattr(f, "__wrapped__", f)
        if id(f) in seen or not hasattr(f, "__code__"):
            continue
        seen.add(id(f))
        g = f.__globals__
        for name in _names(f.__code__):
            v = g.get(name)
            # a transcription lives in a paper's module; the engine's own upper-case dicts are no printed table
            in_paper = g.get("__name__", "").split(".")[2:3] in ([p] for p in engine.PAPERS)
            if name.isupper() and isinstance(v, dict) and v and in_paper:
                found.add((id(g), name))
                _GLOBALS[id(g)] = g
            elif callable(v) and getattr(v, "__module__", "").startswith("isomat.proofs"):
                todo.append(v)
    return sorted(found)


_GLOBALS: dict = {}


def _signature(rec):
    return (rec["verdict"], str(rec.get("discrepancies")), str(rec.get("evidence")),
            [(x["verdict"], str(x.get("discrepancies")), str(x.get("evidence"))) for x in rec.get("readings") or []])


def test_no_results_check_passes_a_wrong_printed_table():
    """Every results claim (a check of printed numbers: the claim declares only ``recompute``) that reads printed
    tables -- upper-case dicts, found by a static closure over the functions it calls -- is run again with every table
    made wrong three ways (numbers scaled two ways, columns swapped): a claim that holds must stop holding under one
    of them, and every other claim's record must change (it reads the table). The claims that read no table (not
    checkable, or a printed value written inline) are out of scope; the constructions are the mutation suite's."""
    claims = _loaded(*engine.PAPERS)
    checked, blind = [], []
    for cid, c in claims.items():
        if c.methods != ("recompute",):
            continue
        tables = _printed_tables(c.check)
        if not tables:
            continue
        t = time.perf_counter()
        base = run_claim(c)
        if base["verdict"] in ("not-checkable", "error") or time.perf_counter() - t > 0.5:
            continue
        saved = [(_GLOBALS[gid], name, _GLOBALS[gid][name]) for gid, name in tables]
        caught = False
        for mode in range(len(MODES)):
            try:
                for g, name, v in saved:
                    g[name] = _perturbed(copy.deepcopy(v), mode)
                wrong = run_claim(c)
            finally:
                for g, name, v in saved:
                    g[name] = v
            caught = wrong["verdict"] != "holds" if base["verdict"] == "holds" else _signature(wrong) != _signature(base)
            if caught:
                break
        checked.append(cid)
        if not caught:
            blind.append(cid)
    assert len(checked) >= 40, checked
    assert not blind, f"results checks that a wrong printed table does not move: {blind}"


# The ledger-wide counterpart for constructions is the mutation suite (tests/test_mutations.py): every mutant of a
# builder, rule, axiom or backward pass must move every claim that certifies it, and every proved claim has a mutant
# (test_every_proved_claim_has_a_mutant) -- a sample of those mutants run here again would add time, not a check.
