"""The second solver (issue 22, item 5): every Z3 obligation re-checked by cvc5, a disagreement is
an error, and ``--export-smt`` writes SMT-LIB files that cvc5 and z3 re-check."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from isomat.errors import CheckError
from isomat.proofs import prover as pv
from isomat.proofs import smt as recheck

WRONG = """(set-logic ALL)
(declare-fun x () Int)
(assert (>= x 1))
(assert (not (>= x 2)))
(check-sat)
"""

RIGHT = WRONG.replace("(not (>= x 2))", "(not (>= x 0))")


def test_cvc5_confirms_refutes_or_says_unknown():
    assert recheck.cvc5_check(RIGHT)["result"] == "unsat"
    assert recheck.cvc5_check(WRONG)["result"] == "sat"
    r = recheck.cvc5_check("(set-logic ALL)\n(declare-fun x () Int)\n(assert (= x (", name="broken")
    assert r["result"] == "unknown" and "could not read" in r["reason"]
    assert recheck.cvc5_check(RIGHT)["version"] == recheck.CVC5_VERSION


def test_a_disagreement_is_an_error():
    with pytest.raises(CheckError, match="solvers disagree"):
        recheck.agreement(pv.Z3_VERSION, recheck.cvc5_check(WRONG), "a wrong obligation")
    solvers, single = recheck.agreement(pv.Z3_VERSION, recheck.cvc5_check(RIGHT), "a right one")
    assert [s["result"] for s in solvers] == ["unsat", "unsat"] and single is None


def test_a_proof_cvc5_contradicts_is_never_made(monkeypatch):
    # as if cvc5 found the obligation satisfiable: prove raises, no proof stands
    monkeypatch.setattr(recheck, "cvc5_check", lambda text, **kw: {"name": "cvc5", "version": "x", "result": "sat"})
    (a,) = pv.ints("a")
    with pytest.raises(CheckError, match="solvers disagree"):
        pv.prove(a + 1 > a, for_all="every a")


def test_the_script_is_self_contained_smtlib():
    H, W, i = pv.ints("H W i")
    p = pv.prove(pv.fdiv(i, W) * W + pv.fmod(i, W) == i, assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
                 lemmas=[pv.DIV_MOD_RECOMPOSE.at(i, W)], for_all="H, W >= 1 and 0 <= i < HW")
    text = recheck.script(p.smtlib, claim="mylab2026:eq1", for_all=p.for_all, z3_version=pv.Z3_VERSION)
    assert text.startswith("; isomat proof obligation\n; claim: mylab2026:eq1\n")
    assert "(set-logic ALL)" in text and text.rstrip().endswith("(check-sat)") and "`unsat` confirms" in text
    assert recheck.cvc5_check(text)["result"] == "unsat"
    assert recheck.z3_check(text)["result"] == "unsat"


CLAIMS = '''
from isomat.proofs.engine import claim, decide
from isomat.proofs.prover import ints, prove, fdiv, fmod, FLATTEN_DIV_MOD

@claim("smttest2026:eq1/digits", quote="digits recompose", statement="q = i div W, r = i mod W recompose i",
       methods=["symbolic"])
def digits():
    H, W, i = ints("H W i")
    return decide(prove(fdiv(i, W) * W + fmod(i, W) == i, assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
                        sizes=[H, W], for_all="H, W >= 1 and 0 <= i < HW").trial())

@claim("smttest2026:eq2", quote="flatten", statement="(q W + r) div W = q", methods=["symbolic"])
def flatten():
    W, q, r = ints("W q r")
    return decide(prove(fdiv(q * W + r, W) == q, assuming=[W >= 1, 0 <= r, r < W], sizes=[W],
                        lemmas=[FLATTEN_DIV_MOD.at(q, r, W)], for_all="W >= 1, 0 <= r < W").trial())
'''


@pytest.mark.parametrize("jobs", [1, 2])
def test_export_smt_writes_files_cvc5_and_z3_recheck(tmp_path, jobs, capsys):
    from isomat import proofs

    src = tmp_path / "mylab_claims.py"
    src.write_text(textwrap.dedent(CLAIMS))
    out = tmp_path / "smt"
    report = proofs.run(claims=proofs.load_file(src), jobs=jobs, export_smt=out)
    recs = {r["id"]: r for r in report["claims"]}
    assert all(r["verdict"] == "holds" and r["strength"] == "proved" for r in recs.values()), recs
    assert recs["smttest2026:eq1/digits"]["second_solver"] == {"obligations": 1, "confirmed": 1, "single_solver": []}
    # the record carries the SHA-256 of its exported obligation, the file's text's
    smt2 = recs["smttest2026:eq1/digits"]["evidence"]["printed"]["smt2"]
    assert smt2 == [recheck.digest((out / "smttest2026_eq1_digits-01.smt2").read_text())]
    names = sorted(p.name for p in out.glob("*.smt2"))
    assert "smttest2026_eq1_digits-01.smt2" in names and "smttest2026_eq2-01.smt2" in names
    assert "lemma_flatten-div-mod-01.smt2" in names  # the library lemmas, proved at import, too
    head = (out / "smttest2026_eq1_digits-01.smt2").read_text()
    assert "; claim: smttest2026:eq1/digits" in head and "; for all: H, W >= 1 and 0 <= i < HW" in head
    # python -m isomat.proofs.recheck DIR: cvc5 through its API
    assert recheck.main([str(out)]) == 0  # every file is listed in the export's manifest with its digest
    printed = capsys.readouterr().out
    assert "unsat" in printed and f"of {len(names)}" in printed
    assert not any(line.startswith("sat ") for line in printed.splitlines())
    # z3 re-checks every file too (the z3 binary of the z3-solver package, where it is installed)
    z3_bin = shutil.which("z3") or str(Path(sys.executable).with_name("z3"))
    if Path(z3_bin).exists():
        for name in names:
            res = subprocess.run([z3_bin, "-smt2", str(out / name)], capture_output=True, text=True, timeout=120)
            assert res.stdout.strip() == "unsat", (name, res.stdout, res.stderr)


def _listed(directory, **files):
    """Write ``files`` (name -> text) and list them, with their digests, in the manifest as the export does."""
    import json

    with open(directory / recheck.MANIFEST, "a") as m:
        for name, text in files.items():
            (directory / name).write_text(text)
            m.write(json.dumps({"file": name, "sha256": recheck.digest(text), "claim": "t", "lemma": None}) + "\n")


def test_recheck_main_reports_a_disagreement(tmp_path, capsys):
    _listed(tmp_path, **{"wrong-01.smt2": WRONG, "right-01.smt2": RIGHT})
    assert recheck.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith("sat ") for line in out.splitlines()) and "1 sat, 1 unsat of 2" in out
    # the listed right file alone is confirmed: exit 0
    assert recheck.main([str(tmp_path / "right-01.smt2")]) == 0


def test_recheck_refuses_unlisted_altered_and_unreadable_files(tmp_path, capsys):
    _listed(tmp_path, **{"right-01.smt2": RIGHT})
    # a file no export listed -- "(assert false)" is unsat, and would have been "confirmed"
    (tmp_path / "forged-01.smt2").write_text("(set-logic ALL)\n(assert false)\n(check-sat)\n")
    assert recheck.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "forged-01.smt2" in out and "no ledger obligation" in out
    (tmp_path / "forged-01.smt2").unlink()
    assert recheck.main([str(tmp_path)]) == 0
    capsys.readouterr()
    # a listed file whose text was changed since (here: its hypothesis made stronger)
    (tmp_path / "right-01.smt2").write_text(RIGHT.replace("(>= x 1)", "(>= x 5)"))
    assert recheck.main([str(tmp_path)]) == 1
    assert "differ from the digest" in capsys.readouterr().out
    # a listed file cvc5 cannot parse is an error, not an "unknown" that passes
    broken = "(set-logic ALL)\n(declare-fun x () Int)\n(assert (= x (\n"
    _listed(tmp_path, **{"broken-01.smt2": broken})
    assert recheck.main([str(tmp_path / "broken-01.smt2")]) == 1
    assert "error" in capsys.readouterr().out


def test_sanitized_names():
    assert recheck.sanitize("zhu2025:thm4.1/forward") == "zhu2025_thm4.1_forward"
    assert recheck.sanitize("cheng2025:beyond/pi composition") == "cheng2025_beyond_pi_composition"


def test_a_lemma_proved_again_is_exported_once(tmp_path):
    # (as when two tests, or a reload, prove a lemma of one name with other statements in one process)
    import json

    (a,) = pv.ints("a")
    pv.lemma("smttest-again", [a], a + 1 > a, text="a + 1 > a")
    pv.lemma("smttest-again", [a], a + 2 > a, text="a + 2 > a")
    recheck.export_to(tmp_path)
    recheck.export_to(None)
    listed = [json.loads(line) for line in (tmp_path / recheck.MANIFEST).read_text().splitlines()]
    assert len([e for e in listed if e["file"] == "lemma_smttest-again-01.smt2"]) == 1
    assert recheck.main([str(tmp_path / "lemma_smttest-again-01.smt2")]) == 0
