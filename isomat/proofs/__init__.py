"""The claims ledger: one module of claims per paper, and the engine that runs them.

Paper modules (``isomat.proofs.<paper>``) register their claims on import. Expected verdicts in
``isomat/proofs/expected/<paper>.json`` are a regression guard only: they never produce a
verdict, they flag a computed verdict that changed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .engine import PAPERS, REGISTRY, VERDICTS, Claim, run_claim, using_float_backend

EXPECTED_DIR = Path(__file__).with_name("expected")


def available_papers() -> list[str]:
    """Paper keys whose claims module exists."""
    return [p for p in PAPERS if importlib.util.find_spec(f"{__name__}.{p}") is not None]


def load(papers: Iterable[str] | None = None) -> list[Claim]:
    """Import the claims modules of ``papers`` (all by default) and return their claims."""
    chosen = list(papers) if papers is not None else available_papers()
    for p in chosen:
        if p not in PAPERS:
            raise ValueError(f"paper must be one of {PAPERS}, got {p!r}")
        if importlib.util.find_spec(f"{__name__}.{p}") is None:
            raise ValueError(f"no claims module for paper {p!r} yet")
        importlib.import_module(f"{__name__}.{p}")
    return [c for c in REGISTRY.values() if c.paper in chosen]


def run(
    papers: Iterable[str] | None = None,
    *,
    backend: str = "numpy",
    on_record: Callable[[int, int, dict[str, Any]], None] | None = None,
    on_start: Callable[[int, int, Claim], None] | None = None,
) -> dict[str, Any]:
    """Run the ledger and return the report: records, total seconds, expected-verdict diffs."""
    claims = load(papers)
    t0 = time.perf_counter()
    records = []
    with using_float_backend(backend):
        for i, c in enumerate(claims, 1):
            if on_start:
                on_start(i, len(claims), c)
            rec = run_claim(c)
            records.append(rec)
            if on_record:
                on_record(i, len(claims), rec)
    total = time.perf_counter() - t0
    chosen = sorted({c.paper for c in claims} | set(papers or []))
    return {
        "claims": records,
        "total_seconds": round(total, 3),
        "regressions": compare_expected(records, chosen),
    }


def expected_verdicts(paper: str) -> dict[str, str]:
    path = EXPECTED_DIR / f"{paper}.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def compare_expected(records: list[dict[str, Any]], papers: Iterable[str]) -> list[dict[str, Any]]:
    """Every difference between computed and expected verdicts, errors included."""
    diffs = []
    computed = {r["id"]: r["verdict"] for r in records}
    for p in papers:
        exp = expected_verdicts(p)
        for cid, verdict in exp.items():
            if cid not in computed:
                diffs.append({"id": cid, "expected": verdict, "computed": None})
            elif computed[cid] != verdict:
                diffs.append({"id": cid, "expected": verdict, "computed": computed[cid]})
    for r in records:
        if r["id"] not in expected_verdicts(r["paper"]):
            diffs.append({"id": r["id"], "expected": None, "computed": r["verdict"]})
        elif r["verdict"] == "error":
            pass  # already listed as a changed verdict above
    return diffs


def write_expected(records: list[dict[str, Any]]) -> list[Path]:
    """Record computed verdicts as the new regression guard (refuses when a check errored)."""
    errors = [r["id"] for r in records if r["verdict"] not in VERDICTS]
    if errors:
        raise RuntimeError(f"refusing to record expected verdicts while checks error: {errors}")
    by_paper: dict[str, dict[str, str]] = {}
    for r in records:
        by_paper.setdefault(r["paper"], {})[r["id"]] = r["verdict"]
    EXPECTED_DIR.mkdir(exist_ok=True)
    paths = []
    for paper, verdicts in by_paper.items():
        path = EXPECTED_DIR / f"{paper}.json"
        path.write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")
        paths.append(path)
    return paths


__all__ = ["PAPERS", "VERDICTS", "available_papers", "compare_expected", "load", "run", "write_expected"]
