"""`isomat verify`: table, JSON in the conventions.md schema, Markdown, exit status."""

from __future__ import annotations

import io
import json
import re

import pytest

from isomat import proofs
from isomat.cli import main
from isomat.proofs.engine import METHODS, PAPERS, VERDICTS

ID_RE = re.compile(r"^[a-z]+\d{4}:[a-z]+[a-z0-9.\-]*(/[a-z0-9.\-_]+)?$")
REQUIRED = {"id": str, "paper": str, "label": str, "quote": str, "statement": str,
            "verdict": str, "methods": list, "evidence": dict, "seconds": (int, float)}


def validate_record(r: dict) -> None:
    for key, typ in REQUIRED.items():
        assert key in r, f"{r.get('id')}: missing {key}"
        assert isinstance(r[key], typ), f"{r['id']}: {key} is {type(r[key]).__name__}"
    assert ID_RE.match(r["id"]), r["id"]
    assert r["paper"] in PAPERS and r["id"].startswith(r["paper"] + ":")
    assert r["id"].split(":", 1)[1].split("/")[0] == r["label"]
    assert r["verdict"] in VERDICTS, f"{r['id']}: verdict {r['verdict']!r} ({r.get('error')})"
    assert r["methods"] and set(r["methods"]) <= set(METHODS)
    assert r["quote"].strip() and r["statement"].strip()
    if r["verdict"] in ("refuted", "holds-corrected"):
        assert r.get("counterexample") not in (None, {}, []), f"{r['id']}: no counterexample"
    if r["verdict"] == "holds-corrected":
        assert isinstance(r.get("correction"), str) and r["correction"].strip()
    if r["verdict"] in ("misprint", "inconsistent"):
        assert r.get("discrepancies"), f"{r['id']}: no discrepancies"
        for d in r["discrepancies"]:
            assert set(d) == {"where", "printed", "correct"}
    if r["verdict"] == "not-checkable":
        assert "reason" in r["evidence"] or "not" in r["statement"]


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def ledger_json():
    code, out, err = run_cli("verify", "--json")
    return code, json.loads(out), err


def test_json_validates_against_conventions(ledger_json):
    code, data, err = ledger_json
    assert code == 0, err
    assert data["claims"], "the ledger is empty"
    ids = [r["id"] for r in data["claims"]]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    for r in data["claims"]:
        validate_record(r)
    json.dumps(data)  # round-trips


def test_whole_ledger_under_a_minute(ledger_json):
    _, data, _ = ledger_json
    assert data["total_seconds"] < 60, f"ledger took {data['total_seconds']} s"


def test_computed_verdicts_match_the_regression_guard(ledger_json):
    _, data, _ = ledger_json
    assert data["regressions"] == []
    for r in data["claims"]:
        assert proofs.expected_verdicts(r["paper"]).get(r["id"]) == r["verdict"]


def test_table_and_markdown(tmp_path):
    md = tmp_path / "ledger.md"
    code, out, _ = run_cli("verify", "--paper", "cheng2025", "--markdown", str(md))
    assert code == 0
    assert "cheng2025:prop2.10" in out and "holds" in out
    assert re.search(r"\d+ claims in [\d.]+ s", out)
    text = md.read_text()
    assert text.startswith("# isomat claims ledger") and "| `cheng2025:def2.9` |" in text


def test_changed_verdict_exits_1(monkeypatch):
    real = proofs.expected_verdicts

    def tampered(paper):
        exp = dict(real(paper))
        if "cheng2025:prop2.10" in exp:
            exp["cheng2025:prop2.10"] = "refuted"
        return exp

    monkeypatch.setattr(proofs, "expected_verdicts", tampered)
    code, _, err = run_cli("verify", "--paper", "cheng2025")
    assert code == 1
    assert "cheng2025:prop2.10: expected refuted, computed holds" in err


def test_bad_paper_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        run_cli("verify", "--paper", "nobody2020")
    assert exc.value.code == 2
