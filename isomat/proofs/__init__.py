"""The claims ledger: one module of claims per paper, and the engine that runs them.

Paper modules (``isomat.proofs.<paper>``) register their claims on import. Expected verdicts in
``isomat/proofs/expected/<paper>.json`` are a regression guard only: they never produce a
verdict, they flag a computed verdict that changed.

Your own claims go through the same engine: declare them with :func:`isomat.proofs.engine.claim`
under your own source key (``mylab2026:eq3``) in a Python file, and run them with
``isomat verify --claims FILE`` or :func:`load_file` and :func:`run`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import _validate
from . import engine
from . import smt as recheck
from ..gpu import device_uses
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


def _claim_sources(claims: list[Claim]) -> list[str]:
    """What a fresh interpreter imports to declare ``claims`` again: module names, or the paths of
    files loaded with :func:`load_file` (claims of ``__main__`` -- a notebook, a script -- have none)."""
    sources: list[str] = []
    for c in claims:
        name = getattr(c.check, "__module__", None) or "__main__"
        module = sys.modules.get(name)
        if module is None or name == "__main__":
            continue
        src = getattr(module, "__file__", None) if name.startswith("isomat_user_claims_") else name
        if src is not None and src not in sources:
            sources.append(src)
    return sources


def _where(check: Any) -> tuple[str, int, str] | None:
    """Where a check's code was written: a worker's claim is run there only when its check is this one."""
    code = getattr(check, "__code__", None)
    return None if code is None else (code.co_filename, code.co_firstlineno, check.__qualname__)


def _start_worker(backend: str, sources: list[str], export_smt: str | None = None,
                  memory_limit: int | None = None) -> None:
    # Ctrl-C reaches the whole process group: the parent alone answers it (it ends the pool); a worker
    # that raised KeyboardInterrupt too would print a traceback and be respawned by the pool
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    engine._float_backend.set(backend)
    if memory_limit is not None:  # the caller's bound (set_memory_limit, --memory-limit) holds in the workers too
        from .._config import set_memory_limit

        set_memory_limit(memory_limit)
    # before the claims' modules are imported, so the lemmas they prove at import are written too
    recheck.export_to(export_smt)
    for src in sources:
        if src.endswith(".py"):
            load_file(src)
        else:
            importlib.import_module(src)


def _run_id(claim_id: str) -> tuple[tuple[str, int, str] | None, dict[str, Any]] | None:
    """(where the worker's check was written, its record), or None for a claim it does not know."""
    c = REGISTRY.get(claim_id)
    return None if c is None else (_where(c.check), run_claim(c))


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """Start processes that ignore SIGINT from birth (an ignored signal stays ignored across exec): a
    Ctrl-C reaching the process group while a worker is still importing would otherwise print its
    KeyboardInterrupt traceback. The parent answers Ctrl-C and ends the pool."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _polled(results: Any) -> Iterator[Any]:
    """The pool's results in order, waited for in short slices: the main thread comes back to Python
    often, so a signal (Ctrl-C, SIGTERM) is answered at once rather than after the next claim."""
    while True:
        try:
            yield results.next(timeout=0.2)
        except multiprocessing.TimeoutError:
            continue
        except StopIteration:
            return


def default_jobs(backend: str = "numpy") -> int:
    """Worker processes for :func:`run`: the CPUs this process may use with the NumPy backend;
    one with the cupy backend (the workers would contend for one device)."""
    if backend != "numpy":
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
    export_smt: str | Path | None = None,
) -> dict[str, Any]:
    """Run the ledger (or the given ``claims``) and return the report: records, total seconds,
    and the differences from the expected verdicts of the five papers (claims of other sources
    have no regression guard).

    ``jobs > 1`` runs the claims in that many fresh worker processes (``spawn``: nothing of this
    process's threads or libraries' state is inherited), which import the claims' modules (or
    files) again; :func:`default_jobs` is what ``isomat verify`` uses. The records, and the
    callbacks, still come in the claims' order, and each claim is the same computation as in one
    process (checks are independent, seeded, and share no state but pure caches). A claim that a
    fresh process does not declare the same way -- one made in a notebook or a function body, or
    whose check was replaced here -- is run here instead.

    ``export_smt`` is a directory: every Z3 proof obligation of the run is written there as one
    SMT-LIB 2 file (see :mod:`isomat.proofs.recheck`), by whichever process discharges it."""
    if claims is not None and papers is not None:
        raise ValueError("give papers or claims, not both")
    jobs = _validate.positive_int("jobs", jobs)
    given = claims is not None
    claims = list(claims) if claims is not None else load(papers)
    if jobs > 1 and backend != "numpy":
        raise ValueError(f"jobs > 1 runs worker processes, which the {backend} backend cannot share a device with")
    t0 = time.perf_counter()
    records = []
    device_claims: list[str] = []  # with the cupy backend: the claims whose checks reached the device
    pool = None
    export = None if export_smt is None else str(Path(export_smt).resolve())
    if export is not None:
        recheck.export_to(export)
    with using_float_backend(backend):
        try:
            if min(jobs, len(claims)) > 1:
                from .._config import get_memory_limit

                with _sigint_ignored_by_children():
                    pool = multiprocessing.get_context("spawn").Pool(
                        min(jobs, len(claims)), initializer=_start_worker,
                        initargs=(backend, _claim_sources(claims), export, get_memory_limit()))
                results = _polled(pool.imap(_run_id, [c.id for c in claims], chunksize=1))
            else:
                results = (None for _ in claims)
            for i, c in enumerate(claims, 1):
                if on_start:
                    on_start(i, len(claims), c)
                done = next(results)
                uses = device_uses()
                rec = done[1] if done is not None and done[0] is not None and done[0] == _where(c.check) else run_claim(c)
                if backend != "numpy" and device_uses() > uses:
                    device_claims.append(c.id)
                records.append(rec)
                if on_record:
                    on_record(i, len(claims), rec)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
            if export is not None:
                recheck.export_to(None)
    total = time.perf_counter() - t0
    engine.same_proofs(records)
    if given:
        # a chosen set of claims: only a ledger claim whose verdict changed is a regression
        regressions = [{"id": r["id"], "expected": exp, "computed": r["verdict"]} for r in records
                       if r["paper"] in PAPERS and (exp := expected_verdicts(r["paper"]).get(r["id"])) is not None
                       and exp != r["verdict"]]
    else:
        regressions = compare_expected(records, sorted({c.paper for c in claims} | set(papers or [])))
    report = {"claims": records, "total_seconds": round(total, 3), "regressions": regressions}
    if backend != "numpy":
        report["device_claims"] = device_claims
    return report


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


def write_expected_file(records: list[dict[str, Any]], path: str | Path) -> Path:
    """Record the computed verdicts of ``records`` as ``{claim id: verdict}`` in the JSON file ``path``
    (your own claims' regression guard; written atomically). Refuses while a check errors."""
    import tempfile

    errors = [r["id"] for r in records if r["verdict"] not in VERDICTS]
    if errors:
        raise RuntimeError(f"refusing to record expected verdicts while checks error: {errors}")
    p = Path(path)
    if not p.parent.is_dir():
        raise ValueError(f"{str(p)!r}: the directory {str(p.parent)!r} does not exist")
    text = json.dumps({r["id"]: r["verdict"] for r in records}, indent=1, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return p


def compare_expected_file(records: list[dict[str, Any]], path: str | Path) -> list[dict[str, Any]]:
    """Differences between the computed verdicts and the ``{claim id: verdict}`` file ``path``: a claim whose
    verdict changed, one the file expects that did not run, one that ran that the file does not list."""
    p = Path(path)
    try:
        expected = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{str(p)!r}: no such file (write it with --write-expected --expected {p})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{str(p)!r} is not a JSON file of expected verdicts ({exc})") from None
    if not isinstance(expected, dict) or not all(isinstance(k, str) and v in VERDICTS for k, v in expected.items()):
        raise ValueError(f"{str(p)!r} must hold a JSON object {{claim id: verdict}} with verdicts from {VERDICTS}")
    computed = {r["id"]: r["verdict"] for r in records}
    diffs = [{"id": cid, "expected": v, "computed": computed.get(cid)} for cid, v in expected.items()
             if computed.get(cid) != v]
    diffs += [{"id": cid, "expected": None, "computed": v} for cid, v in computed.items() if cid not in expected]
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


__all__ = ["PAPERS", "VERDICTS", "available_papers", "compare_expected", "compare_expected_file", "load", "load_file",
           "run", "write_expected", "write_expected_file"]
