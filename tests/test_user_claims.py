"""Your own claims: declared under your own source key, run through the same engine and CLI."""

from __future__ import annotations

import io
import json
import textwrap

import pytest

from isomat import proofs
from isomat.cli import main

CLAIMS = textwrap.dedent('''
    """Claims of a user's own layer: a (C, HW) feature map reordered to channels-last."""
    import itertools

    from isomat.proofs.engine import claim, decide, exhaustive
    from isomat.proofs.prover import fdiv, fmod, ints, prove

    C, HW, i = ints("C HW i")


    def to_last(i, C, HW):
        return fmod(i, HW) * C + fdiv(i, HW)


    @claim("mylab2026:eq1", quote="reordering to channels-last and back is the identity",
           statement="to_first(to_last(i)) = i for every C, HW >= 1 and 0 <= i < C*HW", methods=["symbolic"])
    def _round_trip():
        goal = fmod(to_last(i, C, HW), C) * HW + fdiv(to_last(i, C, HW), C) == i
        return decide(prove(goal, assuming=[C >= 1, HW >= 1, 0 <= i, i < C * HW],
                            for_all="C, HW >= 1 and 0 <= i < C*HW").trial())


    @claim("mylab2026:eq2", quote="channels-last index is i*C mod (C*HW)",
           statement="to_last(i) = (i*C) mod (C*HW), all C, HW <= 4 and every i", methods=["exhaustive"],
           hypotheses=("C, HW >= 1", lambda case: case[0] >= 1 and case[1] >= 1))
    def _wrong_formula():
        cases = sorted(((c, h, k) for c in range(1, 5) for h in range(1, 5) for k in range(c * h)),
                       key=lambda t: (t[0] + t[1] + t[2], t))
        return decide(exhaustive(lambda t: to_last(t[2], t[0], t[1]) == (t[2] * t[0]) % (t[0] * t[1]), cases,
                                 describe="C, HW <= 4, every i, smallest first"))
''')


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def claims_file(tmp_path):
    path = tmp_path / "my_claims.py"
    path.write_text(CLAIMS)
    return path


def test_user_claims_run_through_verify_json(claims_file):
    code, out, err = run_cli("verify", "--claims", str(claims_file), "--json")
    assert code == 0, err
    recs = {r["id"]: r for r in json.loads(out)["claims"]}
    assert set(recs) == {"mylab2026:eq1", "mylab2026:eq2"}
    proved = recs["mylab2026:eq1"]
    assert proved["verdict"] == "holds" and proved["strength"] == "proved"
    assert proved["evidence"]["printed"]["for_all"] == "C, HW >= 1 and 0 <= i < C*HW"
    refuted = recs["mylab2026:eq2"]
    assert refuted["verdict"] == "refuted" and refuted["strength"] == "counterexample"
    C, HW, i = refuted["counterexample"]["case"]
    assert (i % HW) * C + i // HW != (i * C) % (C * HW)  # a real counterexample ...
    assert C + HW + i == 4  # ... and the smallest: every case with a smaller sum satisfies the formula
    assert refuted["hypotheses"] == "C, HW >= 1"


def test_user_claims_table_and_one_record_in_full(claims_file):
    code, out, _ = run_cli("verify", "--claims", str(claims_file))
    assert code == 0 and "mylab2026:eq1" in out and "2 claims" in out.splitlines()[-1]
    code, out, _ = run_cli("verify", "--claims", str(claims_file), "--claim", "mylab2026:eq2")
    assert code == 0
    assert out.startswith("mylab2026:eq2  refuted (counterexample)")
    for part in ("quote", "statement", "hypotheses", "counterexample", "evidence"):
        assert f"\n{part}" in out


def test_loading_the_same_file_again_replaces_its_claims(claims_file):
    first = proofs.load_file(claims_file)
    again = proofs.load_file(claims_file)
    assert [c.id for c in first] == [c.id for c in again] == ["mylab2026:eq1", "mylab2026:eq2"]


def test_bad_claims_sources_are_one_line_errors(tmp_path):
    code, _, err = run_cli("verify", "--claims", str(tmp_path / "missing.py"))
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    code, _, err = run_cli("verify", "--claims", str(empty))
    assert code == 2 and "declares no claim" in err
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    code, _, err = run_cli("verify", "--claims", str(broken))
    assert code == 2 and "boom" in err and len(err.strip().splitlines()) == 1
    bad_id = tmp_path / "bad_id.py"
    bad_id.write_text("from isomat.proofs.engine import claim\n"
                      "@claim('My Lab:eq1', quote='q', statement='s', methods=['exact'])\n"
                      "def f(): pass\n")
    code, _, err = run_cli("verify", "--claims", str(bad_id))
    assert code == 2 and "<source>:<label>" in err


def test_one_ledger_claim_in_full():
    code, out, _ = run_cli("verify", "--claim", "zhu2025:thm4.1/half-bandwidth")
    assert code == 0 and out.startswith("zhu2025:thm4.1/half-bandwidth  holds-corrected")
    assert "\ncorrection" in out and "\ncounterexample" in out
    code, _, err = run_cli("verify", "--claim", "zhu2025:thm4.1/nope")
    assert code == 2 and "zhu2025:thm4.1/forward" in err


def _verify(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(["verify", *argv], out=out, err=err), out.getvalue(), err.getvalue()


def test_strict_fails_a_refuted_claim_and_expected_files_guard_your_verdicts(claims_file, tmp_path):
    """Your own claims in CI: --strict exits 1 on a refuted claim; --expected FILE keeps your verdicts (written
    with --write-expected --expected FILE, wherever you choose), and a changed verdict exits 1."""
    f = claims_file
    code, _, err = _verify("--claims", str(f), "--jobs", "1")
    assert code == 0, err  # a refuted claim is a verdict, not a failure, unless you ask
    code, _, err = _verify("--claims", str(f), "--jobs", "1", "--strict")
    assert code == 1 and "(--strict)" in err
    guard = tmp_path / "expected.json"
    code, _, err = _verify("--claims", str(f), "--jobs", "1", "--write-expected", "--expected", str(guard))
    assert code == 0 and guard.is_file(), err
    written = json.loads(guard.read_text())
    assert written["mylab2026:eq1"] == "holds" and "isomat" not in str(guard.parent)
    assert _verify("--claims", str(f), "--jobs", "1", "--expected", str(guard))[0] == 0
    guard.write_text(json.dumps({**written, "mylab2026:eq1": "refuted"}))
    code, _, err = _verify("--claims", str(f), "--jobs", "1", "--expected", str(guard))
    assert code == 1 and "mylab2026:eq1: expected refuted, computed holds" in err
    guard.write_text("not json")
    code, _, err = _verify("--claims", str(f), "--jobs", "1", "--expected", str(guard))
    assert code == 2 and "--expected" in err and "\n" not in err.strip()


def test_verify_plot_draws_your_claims_and_refuses_a_bad_file_before_the_run(claims_file, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "ledger.png"
    code, out, err = run_cli("verify", "--claims", str(claims_file), "--plot", str(target))
    assert code == 0, err
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and "drew the verdicts" in err
    code, out, err = run_cli("verify", "--claims", str(claims_file), "--plot", str(tmp_path / "ledger.txt"))
    assert code == 2 and err.strip().count("\n") == 0 and "must end in .png, .svg or .pdf" in err
