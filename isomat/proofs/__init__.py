"""The claims ledger: one module of claims per paper, and the engine that runs them.

Paper modules (``isomat.proofs.<paper>``) register their claims on import. Expected verdicts in
``isomat/proofs/expected/<paper>.json`` are a regression guard only: they never produce a
verdict, they flag a computed verdict that changed.

Your own claims go through the same engine: declare them with :func:`isomat.proofs.engine.claim`
under your own source key (``mylab2026:eq3``) in a Python file, and run them with
``isomat verify --claims FILE`` or :func:`load_file` and :func:`run`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import _validate
from . import engine
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


def load_file(source: str | Path) -> list[Claim]:
    """Import a file (``claims.py``) or an importable module name (``mylab.claims``) that
    declares claims, and return the claims it declared, in order.

    Loading the same file again replaces its claims (it is the same definitions run again)."""
    path = Path(source)
    before = dict(REGISTRY)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise ValueError(f"claims file {str(source)!r} does not exist (expected a .py file or an importable module name)")
        path = path.resolve()
        # named by the file's stem: loading a file of that name again is the same definitions again
        name = "isomat_user_claims_" + "".join(ch if ch.isalnum() else "_" for ch in path.stem)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"claims file {str(source)!r} cannot be imported as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    else:
        try:
            module = importlib.import_module(str(source))
        except ModuleNotFoundError as exc:
            raise ValueError(f"claims source {str(source)!r} is neither a file nor an importable module ({exc})") from None
    mine = [c for cid, c in REGISTRY.items() if before.get(cid) is not c]
    if not mine:
        raise ValueError(f"claims source {str(source)!r} declares no claim (use @isomat.proofs.engine.claim)")
    return mine


#: the claims a forked worker runs by index (set in the parent just before the pool forks)
_WORK: list[Claim] = []


def _start_worker(backend: str) -> None:
    engine._float_backend.set(backend)


def _run_index(i: int) -> dict[str, Any]:
    return run_claim(_WORK[i])


def default_jobs(backend: str = "numpy") -> int:
    """Worker processes for :func:`run`: the CPUs this process may use, for the NumPy backend on a
    platform with ``fork`` (the workers inherit the loaded claims, the user's own included); one
    otherwise (a forked child must not touch a parent's CUDA context)."""
    if backend != "numpy" or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run(
    papers: Iterable[str] | None = None,
    *,
    claims: Iterable[Claim] | None = None,
    backend: str = "numpy",
    on_record: Callable[[int, int, dict[str, Any]], None] | None = None,
    on_start: Callable[[int, int, Claim], None] | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Run the ledger (or the given ``claims``) and return the report: records, total seconds,
    and the differences from the expected verdicts of the five papers (claims of other sources
    have no regression guard).

    ``jobs > 1`` runs the claims in that many forked worker processes (:func:`default_jobs` is
    what ``isomat verify`` uses); the records, and the callbacks, still come in the claims'
    order, and each claim is the same computation as in one process (checks are independent,
    seeded, and share no state but pure caches)."""
    if claims is not None and papers is not None:
        raise ValueError("give papers or claims, not both")
    jobs = _validate.positive_int("jobs", jobs)
    given = claims is not None
    claims = list(claims) if claims is not None else load(papers)
    jobs = min(jobs, len(claims))
    if jobs > 1 and backend != "numpy":
        raise ValueError(f"jobs > 1 runs forked workers, which the {backend} backend cannot share a device with")
    global _WORK
    t0 = time.perf_counter()
    records = []
    pool = None
    with using_float_backend(backend):
        try:
            if jobs > 1:
                _WORK = claims
                pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_start_worker, initargs=(backend,))
                results = pool.imap(_run_index, range(len(claims)), chunksize=1)
            else:
                results = map(run_claim, claims)
            for i, c in enumerate(claims, 1):
                if on_start:
                    on_start(i, len(claims), c)
                rec = next(results)
                records.append(rec)
                if on_record:
                    on_record(i, len(claims), rec)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
                _WORK = []
    total = time.perf_counter() - t0
    if given:
        # a chosen set of claims: only a ledger claim whose verdict changed is a regression
        regressions = [{"id": r["id"], "expected": exp, "computed": r["verdict"]} for r in records
                       if r["paper"] in PAPERS and (exp := expected_verdicts(r["paper"]).get(r["id"])) is not None
                       and exp != r["verdict"]]
    else:
        regressions = compare_expected(records, sorted({c.paper for c in claims} | set(papers or [])))
    return {"claims": records, "total_seconds": round(total, 3), "regressions": regressions}


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
        if r["paper"] not in PAPERS:
            continue  # a user's own claims: no regression guard
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


__all__ = ["PAPERS", "VERDICTS", "available_papers", "compare_expected", "load", "load_file", "run", "write_expected"]
