r"""A second solver: every Z3 proof obligation re-checked by cvc5, and written as SMT-LIB 2.

A proof by :func:`isomat.proofs.prover.prove` is Z3 finding the negated goal unsatisfiable
together with the hypotheses and the lemmas and axioms it used. That obligation is written as a
self-contained SMT-LIB 2 script (:func:`script`) and handed to cvc5 through its Python API, with a
*deterministic* resource limit (cvc5's ``rlimit-per``, a count of work, never a clock):

* cvc5 answers ``unsat``: it confirms the proof (the record lists both solvers and their versions);
* cvc5 answers ``unknown`` (its resource limit ran out, or quantifiers it cannot close): the proof
  stands on Z3 alone and the record says so (``single_solver`` with cvc5's reason);
* cvc5 answers ``sat``: the two solvers disagree about the obligation -- an error
  (:class:`~isomat.errors.CheckError` naming the obligation's file), never a proof; the claim's
  record is an error. No ``(set-info :status ...)`` line presumes the answer.

A wall-clock limit is a safety net only; running into it raises
:class:`~isomat.errors.ProofTimeout` (the outcome never depends on the machine's load).

``isomat verify --export-smt DIR`` writes every obligation of the run into ``DIR``, one file per
obligation named by the claim (``zhu2025_thm4.1_forward-01.smt2``; a lemma proved outside a claim,
at import, by its name: ``lemma_nested-mod-01.smt2``). Each file is plain SMT-LIB 2 with a comment
header and ``(set-logic ALL)``; ``unsat`` confirms the proof. Each write appends a line (file,
:func:`digest`, claim) to ``DIR/manifest.jsonl``, and every proof's record carries the digests of
its obligations (``"smt2": [sha256]``), so the re-check refuses a file listed in no manifest and no
record, or one whose digest differs (exit 1, as on any ``sat`` or unreadable file); ``--ledger
FILE`` (an ``isomat verify --json`` output) requires every file to be one of its obligations.
Re-check them with (``python -m isomat.proofs.recheck`` runs :func:`main`)

.. code-block:: console

    $ python -m isomat.proofs.recheck DIR            # cvc5 through its Python API (the pip package ships no binary)
    $ python -m isomat.proofs.recheck --ledger ledger.json DIR
    $ python -m isomat.proofs.recheck --solver z3 DIR
    $ cvc5 DIR/zhu2025_thm4.1_forward-01.smt2        # a cvc5 binary, where one is installed
    $ z3 -smt2 DIR/zhu2025_thm4.1_forward-01.smt2
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import CheckError, ProofTimeout


def _cvc5_module() -> Any:
    """cvc5's Python module, or None where it is not installed (then nothing is re-checked and every
    proof says so). Imported on first use, not with this module: importing cvc5 costs about 0.1 s of
    CPU, which ``import isomat.proofs.prover`` (issue 40's everyday loop) does not pay until a proof
    is re-checked."""
    if not _CVC5:
        try:  # cvc5 is a runtime dependency
            import cvc5
        except ImportError:  # pragma: no cover - exercised only in a broken install
            cvc5 = None
        _CVC5.append(cvc5)
    return _CVC5[0]


_CVC5: list[Any] = []  # [cvc5 module or None] once imported

__all__ = ["CVC5_OPTIONS", "CVC5_VERSION", "DEFAULT_CVC5_RLIMIT", "DEFAULT_CVC5_TIMEOUT_S", "agreement",
           "cvc5_check", "digest", "export_to", "main", "recheck_paths", "sanitize", "script",
           "z3_check"]

#: cvc5's deterministic work budget for one obligation (``rlimit-per``, cvc5 resource units).
#: An obligation cvc5 cannot close within it is ``unknown`` (the proof stands on Z3 alone, marked
#: single-solver). Measured on the ledger's 211 obligations: 100k confirms 169 (about 0.2 s each,
#: 38 s in all on one core); 50k confirms 146 (23 s); 200k 176; 2M confirms only 7 more of the
#: 44 left at 200k, at 300 s -- what cvc5 does not close quickly it does not close at all.
DEFAULT_CVC5_RLIMIT = 100_000
#: cvc5 options of the re-check: after E-matching, instantiate quantified lemmas and axioms with every
#: ground term (``full-saturate-quant``; confirms about a fifth more of the ledger's quantified obligations),
#: and one central equality engine for all theories (``ee-mode``). Measured on the ledger's 399 obligations
#: (2026-11-29, one core): with ``ee-mode=central`` 331 confirmed in 34.7 s, against 328 in 45.8 s with the
#: default distributed engines (four of reneau2025's induction steps gained, one zhu2025 cubic-form step lost;
#: the 68 left unknown spend the same 100k units, a quarter faster)
CVC5_OPTIONS = {"full-saturate-quant": "true", "ee-mode": "central"}
#: wall-clock safety net of one cvc5 call, seconds (the resource limit ends a call long before it)
DEFAULT_CVC5_TIMEOUT_S = 120.0


# ---------------------------------------------------------------------------------------------
# the SMT-LIB script of an obligation
# ---------------------------------------------------------------------------------------------
def _comment(text: str) -> str:
    return " ".join(str(text).split())


def script(smtlib: str, *, claim: str | None = None, for_all: str | None = None, lemma: str | None = None,
           z3_version: str | None = None) -> str:
    """The obligation ``smtlib`` (Z3's ``Solver.to_smt2()`` text: declarations, hypotheses, the
    lemmas and axioms used, the negated goal, ``(check-sat)``) as a self-contained SMT-LIB 2 file:
    a comment header saying what it proves, ``(set-logic ALL)``, the body, ``(check-sat)``."""
    body = [ln for ln in smtlib.splitlines()
            if not ln.startswith("; benchmark generated") and not ln.strip().startswith("(set-info :status")]
    while body and not body[-1].strip():
        body.pop()
    if not body or body[-1].strip() != "(check-sat)":
        body.append("(check-sat)")
    head = ["; isomat proof obligation"]
    if claim:
        head.append(f"; claim: {_comment(claim)}")
    if lemma:
        head.append(f"; lemma: {_comment(lemma)}")
    if for_all:
        head.append(f"; for all: {_comment(for_all)}")
    if z3_version:
        head.append(f"; proved by: z3 {z3_version}")
    head += ["; the hypotheses, the lemmas and axioms the proof used, and the negation of the goal:",
             "; `unsat` confirms the proof (the goal follows); `sat` would refute it",
             "(set-info :smt-lib-version 2.6)", "(set-option :produce-models false)", "(set-logic ALL)"]
    # (no ``(set-info :status unsat)``: a status line makes cvc5 raise on a ``sat`` answer -- read as
    # "could not read" -- and presumes the answer the re-check is there to give)
    return "\n".join(head + body) + "\n"


# ---------------------------------------------------------------------------------------------
# cvc5
# ---------------------------------------------------------------------------------------------
def cvc5_check(text: str, *, rlimit: int = DEFAULT_CVC5_RLIMIT, timeout_s: float = DEFAULT_CVC5_TIMEOUT_S,
               name: str = "obligation") -> dict[str, Any]:
    """Re-check an SMT-LIB 2 obligation with cvc5 (in-process, a fresh solver) under a
    deterministic resource limit. Returns ``{"name": "cvc5", "version", "result": "unsat" | "sat" |
    "unknown", "reason"?: ..., "seconds"}``; a parse error is ``unknown`` with the parser's message
    (nothing confirmed, nothing refuted). Running into the wall-clock safety net raises
    :class:`~isomat.errors.ProofTimeout`."""
    _cvc5 = _cvc5_module()
    out: dict[str, Any] = {"name": "cvc5", "version": getattr(_cvc5, "__version__", None)}
    if _cvc5 is None:
        return {**out, "result": "unknown", "reason": "cvc5 is not installed"}
    t0 = time.perf_counter()
    tm = _cvc5.TermManager()
    solver = _cvc5.Solver(tm)
    solver.setOption("rlimit-per", str(int(rlimit)))
    solver.setOption("tlimit-per", str(int(timeout_s * 1000)))
    solver.setOption("seed", "0")
    for key, value in CVC5_OPTIONS.items():
        solver.setOption(key, value)
    sm = _cvc5.SymbolManager(tm)
    parser = _cvc5.InputParser(solver, sm)
    result = None
    try:
        parser.setStringInput(_cvc5.InputLanguage.SMT_LIB_2_6, text, name)
        while True:
            cmd = parser.nextCommand()
            if cmd.isNull():
                break
            if cmd.getCommandName() == "check-sat":
                result = solver.checkSat()
                break
            cmd.invoke(solver, sm)
    except RuntimeError as exc:  # cvc5 raises RuntimeError for parse and logic errors
        return {**out, "result": "unknown", "reason": f"cvc5 could not read the obligation: {_comment(exc)[:300]}",
                "seconds": round(time.perf_counter() - t0, 4)}
    seconds = round(time.perf_counter() - t0, 4)
    if result is None:
        return {**out, "result": "unknown", "reason": "the script has no (check-sat)", "seconds": seconds}
    if result.isUnsat():
        return {**out, "result": "unsat", "seconds": seconds}
    if result.isSat():
        return {**out, "result": "sat", "seconds": seconds}
    why = str(result.getUnknownExplanation())
    if "TIMEOUT" in why:
        raise ProofTimeout(f"cvc5 ran past its {timeout_s:g} s wall-clock safety net on {name!r} "
                           "(the machine is overloaded or the resource limit is too high); nothing was decided")
    reason = {"RESOURCEOUT": f"resource limit {int(rlimit)} ran out", "INCOMPLETE": "incomplete (quantifiers "
              "or nonlinear arithmetic it cannot close)"}.get(why.rsplit(".", 1)[-1], why.rsplit(".", 1)[-1].lower())
    return {**out, "result": "unknown", "reason": reason, "seconds": seconds}


def z3_check(text: str, *, timeout_s: float = DEFAULT_CVC5_TIMEOUT_S) -> dict[str, Any]:
    """Re-check an SMT-LIB 2 file with Z3 (a fresh context, as ``z3 -smt2 FILE`` would)."""
    import z3

    t0 = time.perf_counter()
    ctx = z3.Context()
    s = z3.Solver(ctx=ctx)
    s.set("timeout", int(timeout_s * 1000))
    try:
        s.from_string(text)
    except z3.Z3Exception as exc:
        return {"name": "z3", "version": z3.get_version_string(), "result": "error",
                "reason": f"z3 could not read the obligation: {_comment(exc)[:300]}",
                "seconds": round(time.perf_counter() - t0, 4)}
    res = s.check()
    out = {"name": "z3", "version": z3.get_version_string(), "result": str(res), "seconds": round(time.perf_counter() - t0, 4)}
    if res == z3.unknown:
        out["reason"] = s.reason_unknown()
    return out


def agreement(z3_version: str, cvc5_result: dict[str, Any], what: str,
              obligation: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """The ``solvers`` list of a proof (Z3's ``unsat`` and cvc5's answer) and, when cvc5 did not
    confirm it, the ``single_solver`` reason. cvc5's ``sat`` is a disagreement: CheckError naming
    the obligation (its exported file name, when given), which makes the claim's record an error."""
    if cvc5_result["result"] == "sat":
        where = f" (obligation {obligation})" if obligation else ""
        raise CheckError(f"the solvers disagree on {what!r}{where}: z3 {z3_version} proved it (unsat) and cvc5 "
                         f"{cvc5_result.get('version')} finds the obligation satisfiable (sat) -- no proof stands")
    solvers = [{"name": "z3", "version": z3_version, "result": "unsat"},
               {k: v for k, v in cvc5_result.items() if k != "seconds"}]
    single = None
    if cvc5_result["result"] != "unsat":
        single = f"cvc5: unknown ({cvc5_result.get('reason', 'unknown')})"
    return solvers, single


# ---------------------------------------------------------------------------------------------
# export: one file per obligation, named by the claim
# ---------------------------------------------------------------------------------------------
_EXPORT_DIR: Path | None = None
#: obligations discharged before an export directory was set (lemmas proved at import), written when it is
_PENDING: dict[str, tuple[str, str, str | None, str | None]] = {}  # by file name: a lemma proved again
# (another test, a reload, with other axioms) replaces its file, so one export lists one digest per file
_COUNTERS: dict[str, int] = {}
#: the claim whose check is running (set by the engine), naming the files of its obligations
current_claim: contextvars.ContextVar[str | None] = contextvars.ContextVar("isomat_current_claim", default=None)


def sanitize(name: str) -> str:
    """A file-name stem from a claim id or lemma name (``zhu2025:thm4.1/forward`` → ``zhu2025_thm4.1_forward``)."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("_") or "obligation"


@contextlib.contextmanager
def claim_context(claim_id: str) -> Iterator[None]:
    """Obligations discharged inside are named after ``claim_id`` (numbered from 01 each run)."""
    token = current_claim.set(claim_id)
    _COUNTERS.pop(sanitize(claim_id), None)
    try:
        yield
    finally:
        current_claim.reset(token)


def export_to(directory: str | Path | None) -> None:
    """Write every obligation discharged from now on (and those already discharged outside a claim,
    the import-time lemmas) into ``directory``; ``None`` stops exporting."""
    global _EXPORT_DIR
    _EXPORT_DIR = None if directory is None else Path(directory)
    if _EXPORT_DIR is not None:
        _EXPORT_DIR.mkdir(parents=True, exist_ok=True)
        for pending in _PENDING.values():
            _write(*pending)


#: the export's list of the files it wrote and their digests (one JSON object a line, appended: the
#: worker processes of one run write into the same directory)
MANIFEST = "manifest.jsonl"


def digest(text: str) -> str:
    """The SHA-256 of an obligation file's SMT-LIB commands: its text (UTF-8) less the ``;`` comment
    lines. The records and the manifest carry it. (The comment header names the claim that first
    discharged the obligation, which depends on the order claims ran in -- a proof cached by one claim
    and used by another, a worker that proved it first -- while the commands are what a solver reads:
    any change to them changes the digest.)"""
    commands = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith(";"))
    return hashlib.sha256(commands.encode("utf-8")).hexdigest()


def _write(name: str, text: str, claim: str | None, lemma: str | None) -> None:
    assert _EXPORT_DIR is not None
    path = _EXPORT_DIR / name
    # atomically: worker processes may write the same import-time lemma file at once
    fd, tmp = tempfile.mkstemp(dir=_EXPORT_DIR, prefix=".tmp-", suffix=".smt2")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    line = json.dumps({"file": name, "sha256": digest(text), "claim": claim, "lemma": lemma}) + "\n"
    # one write of one short line to a file opened for appending: lines of concurrent writers do not interleave
    fd = os.open(_EXPORT_DIR / MANIFEST, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def record_obligation(text: str, *, lemma: str | None = None) -> tuple[str, str]:
    """Note one discharged obligation (a :func:`script` text) and return its file name and
    :func:`digest` (which the proof's record carries, exported or not): written at once when exporting; one
    discharged outside a claim (a lemma proved at import) is kept for a later :func:`export_to`."""
    claim = current_claim.get()
    if claim is not None:
        stem = sanitize(claim)
    elif lemma:
        stem = "lemma_" + sanitize(lemma)
        # a file per lemma: the same lemma proved again (another worker, a reload) rewrites it
        _COUNTERS.pop(stem, None)
    else:
        stem = "obligation"  # a proof outside any claim or lemma (a notebook cell): written only while exporting
    n = _COUNTERS[stem] = _COUNTERS.get(stem, 0) + 1
    name = f"{stem}-{n:02d}.smt2"
    if claim is None and lemma:
        _PENDING[name] = (name, text, None, lemma)
    if _EXPORT_DIR is not None:
        _write(name, text, claim, lemma)
    return name, digest(text)


# ---------------------------------------------------------------------------------------------
# python -m isomat.proofs.recheck DIR
# ---------------------------------------------------------------------------------------------
def _ledger_digests(ledger: Any) -> set[str]:
    """Every obligation digest in an ``isomat verify --json`` output: the ``smt2`` lists of the
    proofs in its records (and of the lemmas they used)."""
    found: set[str] = set()
    todo = [ledger]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if isinstance(x.get("smt2"), list):
                found.update(h for h in x["smt2"] if isinstance(h, str))
            todo += x.values()
        elif isinstance(x, list):
            todo += x
    return found


def _manifest_digests(directory: Path) -> dict[str, set[str]]:
    """The digests the export wrote into ``directory``'s manifest (empty when it has none)."""
    found: dict[str, set[str]] = {}
    path = directory / MANIFEST
    if not path.is_file():
        return found
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            found.setdefault(str(entry["file"]), set()).add(str(entry["sha256"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: line {k} is no manifest entry ({exc})") from None
    return found


def recheck_paths(paths: list[Path], *, solver: str = "cvc5", rlimit: int | None = None,
                  digests: dict[str, set[str]] | None = None, ledger: set[str] | None = None) -> list[dict[str, Any]]:
    """Re-check each file. With ``digests`` (file name -> the digest the export's manifest lists)
    or ``ledger`` (the digests an ``isomat verify --json`` output's records carry), a file listed
    nowhere, or whose :func:`digest` differs from its listing, is ``refused`` without running a
    solver; with ``ledger``, a file must be among its digests. A file that cannot be read is an
    ``error``."""
    results = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            results.append({"file": str(path), "result": "error", "reason": f"cannot read it: {exc}", "seconds": 0.0})
            continue
        if digests is not None or ledger is not None:
            h = digest(text)
            listed = (digests or {}).get(path.name)
            why = None
            if not listed and (ledger is None or h not in ledger):
                why = "no ledger obligation: listed in no export manifest and no record"
            elif listed and (h not in listed or len(listed) > 1):
                why = ("its SMT-LIB commands differ from the digest the export's manifest lists" if h not in listed
                       else "the manifest gives it different digests")
            elif ledger is not None and h not in ledger:
                why = "its digest is in no record of the ledger (no ledger obligation)"
            if why:
                results.append({"file": str(path), "result": "refused", "seconds": 0.0, "reason": why})
                continue
        if solver == "cvc5":
            r = cvc5_check(text, rlimit=rlimit or DEFAULT_CVC5_RLIMIT, name=path.name)
        else:
            r = z3_check(text)
        if r["result"] == "unknown" and str(r.get("reason", "")).startswith("cvc5 could not read"):
            r = {**r, "result": "error"}  # an unreadable file confirms nothing and is no re-check
        results.append({"file": str(path), **r})
    return results


def main(argv: list[str] | None = None) -> int:
    """``python -m isomat.proofs.recheck DIR``: exit 0 only when every file is a listed ledger
    obligation with its recorded digest and no solver finds one satisfiable (``unknown``, a solver
    out of budget, is allowed: the record says so); 1 on any ``sat``, ``refused`` or ``error``;
    2 when there is nothing to check."""
    ap = argparse.ArgumentParser(prog="python -m isomat.proofs.recheck",
                                 description="Re-check exported SMT-LIB 2 proof obligations (isomat verify "
                                             "--export-smt DIR): unsat confirms a proof. Each file must be listed, "
                                             "with its SHA-256, by the export's manifest.jsonl or by --ledger.")
    ap.add_argument("paths", nargs="+", help="directories of .smt2 files, or files")
    ap.add_argument("--solver", choices=("cvc5", "z3"), default="cvc5")
    ap.add_argument("--ledger", metavar="FILE", default=None,
                    help="an `isomat verify --json` output: every file must be one of the obligations its records "
                         "list (by digest), besides matching the export's manifest.jsonl where that lists it")
    ap.add_argument("--rlimit", type=int, default=DEFAULT_CVC5_RLIMIT,
                    help=f"cvc5 resource limit per file (default {DEFAULT_CVC5_RLIMIT}, the ledger's: the same answers "
                         "as the records; raise it to give cvc5 more room)")
    args = ap.parse_args(argv)
    files: list[Path] = []
    digests: dict[str, set[str]] = {}
    ledger: set[str] | None = None
    try:
        for p in map(Path, args.paths):
            files += sorted(p.glob("*.smt2")) if p.is_dir() else [p]
            for name, hs in _manifest_digests(p if p.is_dir() else p.parent).items():
                digests.setdefault(name, set()).update(hs)
        if args.ledger:
            ledger = _ledger_digests(json.loads(Path(args.ledger).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"cannot read the listing: {exc}", file=sys.stderr)
        return 1
    if not files:
        print("no .smt2 files found", file=sys.stderr)
        return 2
    counts: dict[str, int] = {}
    for r in recheck_paths(files, solver=args.solver, rlimit=args.rlimit, digests=digests, ledger=ledger):
        counts[r["result"]] = counts.get(r["result"], 0) + 1
        extra = f"  ({r['reason']})" if r.get("reason") else ""
        print(f"{r['result']:8s} {r['seconds']:8.3f}s  {Path(r['file']).name}{extra}")
    version = (getattr(_cvc5_module(), "__version__", None) if args.solver == "cvc5"
               else __import__("z3").get_version_string())
    print(f"{args.solver} {version}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" of {len(files)}")
    return 1 if counts.get("sat") or counts.get("refused") or counts.get("error") else 0


def __getattr__(name: str) -> Any:
    """``CVC5_VERSION``: cvc5's version, or None where it is not installed (cvc5 is imported on first use)."""
    if name == "CVC5_VERSION":
        return getattr(_cvc5_module(), "__version__", None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
