"""The mutation suite (tests/mutants): every mutant must change the verdict of every claim that certifies it.

The score is printed at the end of the run (``mutation score: K/N killed``); the bar is all of them,
and at least 40 mutants over the five papers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import mutants as mt

MUTANTS = mt.all_mutants()
#: results of this run, printed by conftest's terminal summary
SCORE: dict[str, bool] = {}


@pytest.fixture(scope="module")
def results(request, verify_json_run):
    """Every selected mutant's verdicts with it, computed in two worker processes, beside its claims' verdicts
    without it, read from the session's run of the whole ledger (tests/conftest.py)."""
    import os

    selected = list(dict.fromkeys(getattr(item.callspec.params["mutant"], "name", item.callspec.params["mutant"])
                                  for item in request.session.items
                                  if item.originalname in ("test_mutant_is_killed", "test_zhu2025_mutant_is_an_error",
                                                             "test_builder_defect_is_an_error")
                                  and hasattr(item, "callspec")))
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return mt.trials(selected, jobs=min(2, jobs), records=verify_json_run.records)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_killed(mutant, results):
    before, after = results[mutant.name]
    errors = {c: v for c, v in before.items() if v[0] == "error"}
    assert not errors, f"without the mutant, its claims must stand: {errors}"
    survived = {c: after[c] for c in mutant.claims if after[c] == before[c]}
    SCORE[mutant.name] = not survived
    assert not survived, (f"mutant {mutant.name!r} ({mutant.description}) survives: {survived} unchanged")


ZHU2025 = [m for m in MUTANTS if all(c.startswith("zhu2025:") for c in m.claims)]


@pytest.mark.parametrize("mutant", ZHU2025, ids=[m.name for m in ZHU2025])
def test_zhu2025_mutant_is_an_error(mutant, results):
    """Issue 36 item 6: a bug in isomat is never the paper's fault -- a zhu2025 mutant leaves no claim refuted,
    misprint or inconsistent that was not so without it (an independent reference decides those verdicts; a
    broken builder, rule or hypothesis makes its claims errors or weakens them)."""
    before, after = results[mutant.name]
    against = ("refuted", "misprint", "inconsistent")
    turned = {c: after[c] for c in mutant.claims if after[c][0] in against and after[c] != before[c]}
    assert not turned, f"mutant {mutant.name!r} turns claims against the paper: {turned}"
    for c in mutant.claims:
        if after[c] != before[c] and after[c][0] != "error":  # only a weaker strength of the same verdict
            assert after[c][0] == before[c][0], (mutant.name, c, before[c], after[c])


#: issue 36's builder defects that appear only where no check used to look (between the exhaustive bound and the
#: random range, above 1000, with 3+ factors, with equal shapes, t = n p): the binding checks against the
#: independent references catch them, and every claim they certify becomes an error -- never a verdict about
#: the paper, never the old verdict
BUILDER_ERRORS = ("kron_operator-wrong-from-three-factors", "kron_operator-wrong-equal-shapes",
                  "swap_matrix-wrong-for-9-to-19", "stp-t-is-np", "projection-wrong-above-1000")


@pytest.mark.parametrize("mutant", BUILDER_ERRORS)
def test_builder_defect_is_an_error(mutant, results):
    before, after = results[mutant]
    assert all(v[0] != "error" for v in before.values()), before
    assert all(v[:2] == ("error", None) for v in after.values()), after


def test_every_proved_claim_has_a_mutant(verify_json_run):
    """A proof binds to the code only where breaking that code changes its verdict: every claim the
    ledger marks proved is named by at least one mutant (test_mutant_is_killed then checks it)."""
    proved = {r["id"] for r in verify_json_run.data["claims"] if r.get("strength") == "proved"}
    assert proved, "the ledger proves nothing?"
    covered = {c for m in MUTANTS for c in m.claims}
    assert not proved - covered, f"proved claims with no mutant: {sorted(proved - covered)}"


def test_enough_mutants_over_every_paper():
    assert len(MUTANTS) >= 40, len(MUTANTS)
    papers = {c.split(":", 1)[0] for m in MUTANTS for c in m.claims}
    assert papers == set(mt.PAPERS), papers


def test_documented_list_is_current():
    path = Path(__file__).resolve().parent.parent / "docs" / "guide" / "mutants.md"
    assert path.read_text(encoding="utf-8") == mt.markdown(MUTANTS), (
        "regenerate: .venv/bin/python -m tests.mutants --markdown > docs/guide/mutants.md")


def test_applied_undoes_bindings_made_while_in_force():
    # a module first imported under a mutant binds the broken function at its import; the mutant's end undoes that
    # too (else a later trial in the same worker ran with a leftover defect: farag2025:eq17/eq19 once survived so)
    import sys
    import types

    import isomat.algebra.conv as conv

    original = conv.conv_matrix
    m = mt.Mutant("probe", "builder", "isomat.algebra.conv:conv_matrix", lambda f: (lambda *a, **k: None),
                  ("zhu2025:thm4.1/forward",), "returns None")
    late = types.ModuleType("isomat._late_import_probe")
    try:
        with mt.applied(m):
            sys.modules[late.__name__] = late
            late.conv_matrix = conv.conv_matrix  # what `from isomat.algebra.conv import conv_matrix` binds now
            assert late.conv_matrix is not original
        assert late.conv_matrix is original and conv.conv_matrix is original
    finally:
        sys.modules.pop(late.__name__, None)


def test_applied_patches_every_binding_and_restores():
    import isomat.algebra as alg
    import isomat.algebra.conv as conv

    original = conv.conv_matrix
    m = mt.Mutant("probe", "builder", "isomat.algebra.conv:conv_matrix", lambda f: (lambda *a, **k: None),
                  ("zhu2025:thm4.1/forward",), "returns None")
    with mt.applied(m):
        assert conv.conv_matrix is not original and alg.conv_matrix is conv.conv_matrix
    assert conv.conv_matrix is original and alg.conv_matrix is original


def test_shared_factories_change_only_what_they_name():
    """tests/mutants/factories.py: the one "scale this result" / "one too high" / "one index off" every paper's
    mutants use (issue 41 item 3): the part named, on the inputs named, and nothing else."""
    from .mutants.factories import argument_plus_one, plus_one, scaled

    grads = scaled(2, part="x")(lambda n: {"x": n, "b": n})
    assert grads(3) == {"x": 6, "b": 3}
    pair = plus_one(part=0)(lambda n: (n, n))
    assert pair(3) == (4, 3) and isinstance(pair(3), tuple)
    only_odd = scaled(10, when=lambda n: n % 2 == 1)(lambda n: n)
    assert [only_odd(n) for n in range(4)] == [0, 10, 2, 30]
    with pytest.raises(TypeError, match="part='x' of a int result"):
        scaled(part="x")(lambda n: n)(1)

    def rule(row, col, *, stride=1):
        return (row, col, stride)
    assert argument_plus_one("col")(rule)(1, 2) == (1, 3, 1)
    assert argument_plus_one("col")(rule)(row=1, col=2) == (1, 3, 1)
    assert argument_plus_one("stride")(rule)(1, 2) == (1, 2, 2)
    with pytest.raises(ValueError, match="has no argument 'k'"):
        argument_plus_one("k")(rule)
