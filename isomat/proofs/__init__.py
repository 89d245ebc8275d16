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
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import _validate
from . import engine
from . import smt as recheck
from ..gpu import device_reuses, device_uses
from ._runner import WorkerStartError, claim_source, fd_output, run_in_workers
from .engine import PAPERS, REGISTRY, VERDICTS, Claim, load_file, run_claim, using_float_backend

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
    # a paper's claims are those its own modules declare: a claims file of one's own that uses a
    # paper's id (``do2017:mine``, with --include-papers) never joins that paper's ledger
    return [c for c in REGISTRY.values() if c.paper in chosen and _declared_by_paper(c)]


def _declared_by_paper(c: Claim) -> bool:
    module = getattr(c.check, "__module__", None) or ""
    return module == f"{__name__}.{c.paper}" or module.startswith(f"{__name__}.{c.paper}.")


#: ``isomat verify``'s time limit for one claim, in seconds (the prover's own limit per proof is
#: its ``ProofTimeout``): a claim over it is an error record, and the run goes on.
DEFAULT_CLAIM_TIMEOUT = 300.0


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
    fork_here: bool = False,
) -> dict[str, Any]:
    """Run the ledger (or the given ``claims``) and return the report: records, total seconds,
    and the differences from the expected verdicts of the five papers (claims of other sources
    have no regression guard).

    ``jobs > 1`` runs the claims in up to that many fresh worker processes (new interpreters, or, for a
    claims file of one's own, copies forked from one process that imported it and ran nothing: nothing
    of this process's threads or libraries' state is inherited), which import the claims' modules (or
    files) again; :func:`default_jobs` is what ``isomat verify`` uses. The records, and the
    callbacks, still come in the claims' order, and each claim is the same computation as in one
    process (checks are independent, seeded, and share no state but pure caches). A claim that a
    fresh process does not declare the same way -- one made in a notebook or a function body, or
    whose check was replaced here -- is run here instead.

    Claims are kept apart (issue 37): the papers' claims share workers that import only the papers'
    modules; any other claim (a claims file of one's own) runs in a worker started for it alone and
    ended after it, so a check that patches the engine or forges its answer changes only its own
    record. A worker sends its record as JSON text of bounded size; the record is built here, from
    this process's own claim and the validated verdict and evidence (see
    :mod:`isomat.proofs._runner`). Every worker runs in a session of its own, its output on a file of
    the runner's; what a check starts is killed at the end of its claim, and nothing a run started
    outlives it.

    ``claim_timeout`` (seconds; ``isomat verify`` gives :data:`DEFAULT_CLAIM_TIMEOUT`) bounds each
    claim: with it, even ``jobs=1`` runs the claims in worker processes (one at a time). A claim over
    the limit, whose check ends its worker (``os._exit``, a signal), or whose worker sends what is not
    its record, is an error record and the worker is replaced; the run goes on. A claims file that
    fails to import in a worker raises :class:`WorkerStartError`. A claim run here (numpy and no
    limit, another backend, or one the workers do not declare) has no time limit and is trusted code:
    what it writes to stdout and stderr (file descriptors 1 and 2 included) is kept in its record's
    ``output`` and any exception it raises is its error, but a thread or a process it starts is not
    stopped.

    ``export_smt`` is a directory: every Z3 proof obligation of the run is written there as one
    SMT-LIB 2 file (see :mod:`isomat.proofs.recheck`), by whichever process discharges it.

    ``fork_here`` (for a process that imported the claims' modules and did nothing else, as the ``isomat``
    command): the papers' workers are copies of this process (forked: one import in all; Linux, a
    process of one thread) rather than fresh interpreters that import the papers' modules again; a
    user's claims still run in copies of a template that imported their file itself. Leave it off in a
    process that holds state of its own (a notebook, a script that patched anything): a copy would
    inherit it."""
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
            with fd_output() as raw:  # os.write(1, ...), a C library's print: the record's, not the report's
                rec = run_claim(c)
            if raw[0]:
                rec["output"] = engine.capped_output(rec.get("output", "") + raw[0])
            if backend != "numpy" and device_uses() > uses:
                device_claims.append(c.id)
            elif backend != "numpy" and device_reuses() > reuses:
                reused_claims.append(c.id)
        records.append(rec)
        if on_record:
            on_record(i + 1, len(claims), rec)

    with using_float_backend(backend):
        try:
            declared = any(claim_source(c) is not None for c in claims)
            workers = min(jobs, len(claims)) if backend == "numpy" and declared else 0
            if workers > 1 or (workers == 1 and claim_timeout is not None):
                from .._config import get_memory_limit

                from ..algebra import _threads

                # the cores shared out: each worker's thread cap (isomat's pools and BLAS) is its share of
                # isomat's cap, so that ``workers`` processes never run more threads than there are cores
                # (2 workers with 2 OpenBLAS threads each on 2 cores: cheng2025's claims took 44.5 s in one
                # worker, 32.4 s with one BLAS thread; the claims' matrices are small)
                config = {"backend": backend, "export_smt": export, "memory_limit": get_memory_limit(),
                          "threads": max(1, _threads.num_threads() // workers)}
                run_in_workers(claims, workers, config, claim_timeout, emit, announce, DEFAULT_CLAIM_TIMEOUT,
                               fork_here=fork_here)
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


#: the largest expected-verdicts file read (the five papers' files together are about 20 kB)
EXPECTED_FILE_LIMIT = 16 * 2**20
PACKAGE_DIR = Path(__file__).resolve().parent.parent


def _inside_package(path: str | Path) -> bool:
    target = Path(path).resolve()
    return target == PACKAGE_DIR or PACKAGE_DIR in target.parents


def read_expected_file(path: str | Path) -> dict[str, str]:
    """The ``{claim id: verdict}`` object of the JSON file ``path``, read safely: a regular file only
    (a FIFO, a device such as ``/dev/zero``, a directory is refused before it is read), at most
    :data:`EXPECTED_FILE_LIMIT` bytes, nested at most as deep as the runner's messages. Every problem
    is a ValueError naming the file."""
    import stat

    from ._runner import MessageError, decode

    p = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait; the mode is checked on what was opened
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise ValueError(f"{str(p)!r}: no such file (write it with --write-expected --expected {p})") from None
    except OSError as exc:
        raise ValueError(f"{str(p)!r} cannot be read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                    "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "not a regular file")
            raise ValueError(f"{str(p)!r} is {kind}, not a regular JSON file of expected verdicts")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(EXPECTED_FILE_LIMIT + 1)
    except OSError as exc:
        raise ValueError(f"{str(p)!r} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > EXPECTED_FILE_LIMIT:
        raise ValueError(f"{str(p)!r} is over {EXPECTED_FILE_LIMIT} bytes: not a file of expected verdicts")
    try:
        expected = decode(data)
    except MessageError as exc:
        raise ValueError(f"{str(p)!r} is not a JSON file of expected verdicts ({str(exc).replace('message', 'file')})") \
            from None
    if not isinstance(expected, dict) or not all(isinstance(k, str) and v in VERDICTS for k, v in expected.items()):
        raise ValueError(f"{str(p)!r} must hold a JSON object {{claim id: verdict}} with verdicts from {VERDICTS}")
    return expected


def write_expected_file(records: list[dict[str, Any]], path: str | Path, *, include_papers: bool = False) -> Path:
    """Record the computed verdicts of ``records`` as ``{claim id: verdict}`` in the JSON file ``path``
    (your own claims' regression guard; written atomically), merged by id into what the file holds:
    the other entries are kept. Refuses while a check errors, a ``path`` inside the isomat package
    (its own expected files are regenerated with ``benchmarks/_write_expected.py``), and ids of the five
    papers unless ``include_papers``. Each refusal is a ValueError (RuntimeError for the errors)."""
    if _inside_package(path):
        raise ValueError(f"{str(path)!r} is inside the isomat package ({PACKAGE_DIR}): its files are not "
                         "written by a run (maintainers: benchmarks/_write_expected.py)")
    papers_ids = [r["id"] for r in records if r["paper"] in PAPERS]
    if papers_ids and not include_papers:
        raise ValueError(f"refusing to record verdicts of the five papers' claims ({', '.join(papers_ids[:3])}"
                         f"{', ...' if len(papers_ids) > 3 else ''}) without --include-papers")
    errors = [r["id"] for r in records if r["verdict"] not in VERDICTS]
    if errors:
        raise RuntimeError(f"refusing to record expected verdicts while checks error: {errors}")
    from ..export._atomic import write_text

    merged = read_expected_file(path) if os.path.lexists(path) else {}
    merged.update({r["id"]: r["verdict"] for r in records})
    text = json.dumps(merged, indent=1, sort_keys=True) + "\n"
    return write_text(Path(path), text, what="expected-verdicts file")


def compare_expected_file(records: list[dict[str, Any]], path: str | Path | dict[str, str]) -> list[dict[str, Any]]:
    """Differences between the computed verdicts and the ``{claim id: verdict}`` file ``path`` (or that
    mapping, read already with :func:`read_expected_file`): a claim whose verdict changed, one the file
    expects that did not run, one that ran that the file does not list."""
    expected = path if isinstance(path, dict) else read_expected_file(path)
    computed = {r["id"]: r["verdict"] for r in records}
    diffs = [{"id": cid, "expected": v, "computed": computed.get(cid)} for cid, v in expected.items()
             if computed.get(cid) != v]
    diffs += [{"id": cid, "expected": None, "computed": v} for cid, v in computed.items() if cid not in expected]
    return diffs


def write_expected(records: list[dict[str, Any]]) -> list[Path]:
    """For isomat's maintainers (``benchmarks/_write_expected.py``; never the CLI): record computed
    verdicts as the package's regression guard, ``isomat/proofs/expected/<paper>.json``. Each paper's
    file is written whole, so ``records`` must hold every declared claim of each paper it touches (a
    subset would drop the others' entries: refused), and no error."""
    errors = [r["id"] for r in records if r["verdict"] not in VERDICTS]
    if errors:
        raise RuntimeError(f"refusing to record expected verdicts while checks error: {errors}")
    by_paper: dict[str, dict[str, str]] = {}
    for r in records:
        if r["paper"] not in PAPERS:
            raise ValueError(f"{r['id']!r} is not a claim of the five papers: its verdict is not the package's")
        by_paper.setdefault(r["paper"], {})[r["id"]] = r["verdict"]
    for paper, verdicts in by_paper.items():
        missing = sorted(c.id for c in REGISTRY.values() if c.paper == paper and c.id not in verdicts)
        if missing:
            raise ValueError(f"refusing to rewrite {paper}.json from {len(verdicts)} of its claims: "
                             f"{len(missing)} missing ({', '.join(missing[:3])}, ...)")
    EXPECTED_DIR.mkdir(exist_ok=True)
    from ..export._atomic import write_text

    paths = []
    for paper, verdicts in by_paper.items():
        paths.append(write_text(EXPECTED_DIR / f"{paper}.json", json.dumps(verdicts, indent=1, sort_keys=True) + "\n",
                                what="expected-verdicts file"))
    # the proved claims' obligations, so same_proof_as is computed against the whole ledger whichever claims run
    # (engine.same_proofs): the rewritten papers' entries replaced, in ledger order (papers, then declaration order)
    known = {cid: obl for cid, obl in engine.ledger_obligations().items() if cid.split(":", 1)[0] not in by_paper}
    known.update({r["id"]: r["obligations"] for r in records if r.get("strength") == "proved" and r.get("obligations")})
    order = {c.id: i for i, c in enumerate(REGISTRY.values())}
    ordered = sorted(known, key=lambda cid: (PAPERS.index(cid.split(":", 1)[0]), order.get(cid, len(order))))
    paths.append(write_text(engine.OBLIGATIONS_FILE, json.dumps({cid: known[cid] for cid in ordered}, indent=1) + "\n",
                            what="proof-obligations file"))
    engine._ledger_obligations.cache_clear()
    return paths


__all__ = ["DEFAULT_CLAIM_TIMEOUT", "PAPERS", "VERDICTS", "WorkerStartError", "available_papers", "compare_expected", "compare_expected_file", "load", "load_file",
           "read_expected_file", "run", "write_expected", "write_expected_file"]
