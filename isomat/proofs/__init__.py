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
from ..gpu import device_reuses, device_uses
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


#: ``isomat verify``'s time limit for one claim, in seconds (the prover's own limit per proof is
#: its ``ProofTimeout``): a claim over it is an error record, and the run goes on.
DEFAULT_CLAIM_TIMEOUT = 300.0


class WorkerStartError(RuntimeError):
    """A worker process could not declare the claims (a claims file that fails to import there,
    or a worker that died or hung while importing them): the run cannot go on."""


def _worker_main(conn: Any, backend: str, sources: list[str], export_smt: str | None,
                 memory_limit: int | None, out_path: str) -> None:
    """A worker: declare the claims, then run the claim ids the parent sends, one at a time, and send
    back ``(where, record)`` (``None`` for a claim it does not know). Whatever is written to this
    process's stdout and stderr goes to ``out_path`` (emptied before each claim), never to the CLI's
    output; the parent reads it into the record, also when the check kills the process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        _start_worker(backend, sources, export_smt, memory_limit)
    except BaseException as exc:  # noqa: BLE001 -- an import that fails here, however, is the run's error
        conn.send(("init-error", f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:2000]))
        return
    conn.send(("ready", None))
    while True:
        try:
            claim_id = conn.recv()
        except (EOFError, OSError):
            return
        if claim_id is None:
            return
        os.ftruncate(1, 0)
        t0 = time.perf_counter()
        try:
            result = _run_id(claim_id)
        except BaseException as exc:  # noqa: BLE001 -- whatever escapes the check is this claim's error
            c = REGISTRY.get(claim_id)
            result = None if c is None else (_where(c.check), engine.error_record(
                c, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0))
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        if result is not None:
            extra = _read_output(out_path)
            if extra:
                result[1]["output"] = engine.capped_output(result[1].get("output", "") + extra)
        try:
            conn.send(("done", result))
        except Exception as exc:  # a record that does not pickle
            c = REGISTRY[claim_id]
            conn.send(("done", (_where(c.check), engine.error_record(c, f"record not transferable: {type(exc).__name__}: "
                                                                         f"{exc}", time.perf_counter() - t0))))


def _read_output(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read(engine.OUTPUT_LIMIT + 1)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


class _Worker:
    """One spawned worker process and the claim it is running (an index into the run's claims)."""

    def __init__(self, ctx: Any, args: tuple[Any, ...], out_path: str) -> None:
        self.conn, child = ctx.Pipe()
        self.out_path = out_path
        with _sigint_ignored_by_children():
            self.proc = ctx.Process(target=_worker_main, args=(child, *args, out_path), daemon=True)
            self.proc.start()
        child.close()
        self.ready = False
        self.born = time.monotonic()
        self.index: int | None = None
        self.since = 0.0

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def death(self) -> str:
        self.proc.join(1)
        code = self.proc.exitcode
        if code is None:
            return "its worker process closed its pipe"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"its worker process was killed by {signal.Signals(-code).name}"
            return f"its worker process was killed by signal {-code}"
        return f"its worker process exited with status {code}"


def _run_in_workers(claims: list[Claim], jobs: int, args: tuple[Any, ...], claim_timeout: float | None,
                    emit: Callable[[int, dict[str, Any] | None], None], announce: Callable[[int], None]) -> None:
    """Run ``claims`` in ``jobs`` spawned worker processes (each reused from claim to claim, replaced
    when it dies or runs over ``claim_timeout``); ``announce(i)`` and ``emit(i, record or None)`` are
    called in the claims' order (None: the worker does not know the claim; run it here)."""
    import shutil
    import tempfile
    from collections import deque
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("spawn")
    tmp = tempfile.mkdtemp(prefix="isomat-verify-")
    start_limit = max(claim_timeout or DEFAULT_CLAIM_TIMEOUT, 120.0)
    pending = deque(range(len(claims)))
    results: dict[int, tuple[tuple[str, int, str] | None, dict[str, Any]] | None] = {}
    workers: list[_Worker] = []
    count = [0]

    def spawn() -> _Worker:
        count[0] += 1
        w = _Worker(ctx, args, os.path.join(tmp, f"worker-{count[0]}.out"))
        workers.append(w)
        return w

    def lost(w: _Worker, why: str) -> None:
        """``w`` is gone (dead, or killed here): its claim becomes an error record; a replacement takes its place."""
        i = w.index
        w.stop()
        workers.remove(w)
        if not w.ready:
            raise WorkerStartError(f"a worker process could not declare the claims: {why} while importing them")
        if i is not None:
            c = claims[i]
            output = _read_output(w.out_path)
            results[i] = (_where(c.check), engine.error_record(c, why, time.monotonic() - w.since, output or None))
        if pending:
            spawn()

    try:
        for _ in range(min(jobs, len(claims))):
            spawn()
        nxt = 0
        announced = -1
        while nxt < len(claims):
            if announced < nxt:
                announce(nxt)
                announced = nxt
            if nxt in results:
                done = results.pop(nxt)
                emit(nxt, None if done is None or done[0] is None or done[0] != _where(claims[nxt].check) else done[1])
                nxt += 1
                continue
            for w in workers:
                if w.ready and w.index is None and pending:
                    i = pending.popleft()
                    try:
                        w.conn.send(claims[i].id)
                    except OSError:
                        pending.appendleft(i)  # it died between claims: the next pass replaces it
                        continue
                    w.index, w.since = i, time.monotonic()
            if not workers and pending:
                spawn()
            wait([w.conn for w in workers] + [w.proc.sentinel for w in workers], timeout=0.2)
            now = time.monotonic()
            for w in list(workers):
                try:
                    while w.conn.poll():
                        kind, payload = w.conn.recv()
                        if kind == "init-error":
                            raise WorkerStartError(f"a worker process could not declare the claims: {payload}")
                        if kind == "ready":
                            w.ready = True
                        elif kind == "done" and w.index is not None:
                            results[w.index] = payload
                            w.index = None
                except (EOFError, OSError):
                    lost(w, w.death() + (" while running the check" if w.index is not None else ""))
                    continue
                if not w.proc.is_alive():
                    lost(w, w.death() + (" while running the check" if w.index is not None else ""))
                elif not w.ready and now - w.born > start_limit:
                    lost(w, f"no answer in {start_limit:g} s")
                elif w.index is not None and claim_timeout is not None and now - w.since > claim_timeout:
                    lost(w, f"timed out after {claim_timeout:g} s (the check was stopped)")
    finally:
        for w in workers:
            with contextlib.suppress(Exception):
                w.conn.send(None)
            w.stop()
        shutil.rmtree(tmp, ignore_errors=True)


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
    claim_timeout: float | None = None,
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

    ``claim_timeout`` (seconds; ``isomat verify`` gives :data:`DEFAULT_CLAIM_TIMEOUT`) bounds each
    claim: with it, even ``jobs=1`` runs the claims in a worker process (one, reused from claim to
    claim). A claim over the limit, or whose check ends its worker (``os._exit``, a signal), is an
    error record and the worker is replaced; the run goes on. A claims file that fails to import in a
    worker raises :class:`WorkerStartError`. A claim run here (numpy and no limit, another backend, or
    one the workers do not declare) has no time limit. What a check writes to stdout or stderr is
    kept in its record's ``output``.

    ``export_smt`` is a directory: every Z3 proof obligation of the run is written there as one
    SMT-LIB 2 file (see :mod:`isomat.proofs.recheck`), by whichever process discharges it."""
    if claims is not None and papers is not None:
        raise ValueError("give papers or claims, not both")
    jobs = _validate.positive_int("jobs", jobs)
    if claim_timeout is not None:
        if isinstance(claim_timeout, bool) or not isinstance(claim_timeout, (int, float)) or not claim_timeout > 0 \
                or claim_timeout == float("inf"):
            raise ValueError(f"claim_timeout must be a positive number of seconds or None, got {claim_timeout!r}")
        claim_timeout = float(claim_timeout)
    given = claims is not None
    claims = list(claims) if claims is not None else load(papers)
    if jobs > 1 and backend != "numpy":
        raise ValueError(f"jobs > 1 runs worker processes, which the {backend} backend cannot share a device with")
    t0 = time.perf_counter()
    records: list[dict[str, Any]] = []
    device_claims: list[str] = []  # with the cupy backend: the claims whose checks reached the device
    reused_claims: list[str] = []  # ... and those whose checks rest on device results an earlier claim computed
    export = None if export_smt is None else str(Path(export_smt).resolve())
    if export is not None:
        recheck.export_to(export)

    def announce(i: int) -> None:
        if on_start:
            on_start(i + 1, len(claims), claims[i])

    def emit(i: int, rec: dict[str, Any] | None) -> None:
        c = claims[i]
        if rec is None:  # run here
            uses, reuses = device_uses(), device_reuses()
            rec = run_claim(c)
            if backend != "numpy" and device_uses() > uses:
                device_claims.append(c.id)
            elif backend != "numpy" and device_reuses() > reuses:
                reused_claims.append(c.id)
        records.append(rec)
        if on_record:
            on_record(i + 1, len(claims), rec)

    with using_float_backend(backend):
        try:
            sources = _claim_sources(claims)
            workers = min(jobs, len(claims)) if backend == "numpy" and sources else 0
            if workers > 1 or (workers == 1 and claim_timeout is not None):
                from .._config import get_memory_limit

                _run_in_workers(claims, workers, (backend, sources, export, get_memory_limit()), claim_timeout,
                                emit, announce)
            else:
                for i in range(len(claims)):
                    announce(i)
                    emit(i, None)
        finally:
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
        report["device_reused_claims"] = reused_claims
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

    errors = [r["id"] for r in records if r["verdict"] not in VERDICTS]
    if errors:
        raise RuntimeError(f"refusing to record expected verdicts while checks error: {errors}")
    from .._atomic import write_text

    text = json.dumps({r["id"]: r["verdict"] for r in records}, indent=1, sort_keys=True) + "\n"
    p = write_text(Path(path), text, what="expected-verdicts file")
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
        from .._atomic import write_text

        paths.append(write_text(EXPECTED_DIR / f"{paper}.json", json.dumps(verdicts, indent=1, sort_keys=True) + "\n",
                                what="expected-verdicts file"))
    return paths


__all__ = ["DEFAULT_CLAIM_TIMEOUT", "PAPERS", "VERDICTS", "WorkerStartError", "available_papers", "compare_expected", "compare_expected_file", "load", "load_file",
           "run", "write_expected", "write_expected_file"]
