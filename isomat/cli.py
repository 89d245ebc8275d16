"""Command line: ``isomat verify``, ``isomat export``, ``isomat bench``.

``isomat verify`` runs the claims ledger and prints one row per claim as it finishes
(id, verdict, strength of the evidence, methods, seconds), then the totals per verdict and per
strength; ``--backend cupy`` runs the float checks on the
GPU. Exit status 1 when a computed verdict differs from the expected-verdict file or a check raises.

``isomat export KIND [options] --format mtx|npz|pt|mat|jax [--order C|F] [--force] -o FILE`` writes
an operator of a construction family (random values from a printed seed; ``isomat export --help``
lists the kinds, ``isomat export KIND --help`` their options).

``isomat bench`` runs the scripts in ``benchmarks/`` and writes a JSON and a Markdown report.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from ._config import machine_info as _machine  # shared with isomat.bench, which does not import this module

#: the table fits 100 columns; a longer id widens the id column of the whole table (every id of the run is
#: known before the first row), so the columns stay aligned
_ID_W, _VERDICT_W, _STRENGTH_W, _METHODS_W = 38, 15, 14, 22
_RULE_W = _ID_W + _VERDICT_W + _STRENGTH_W + _METHODS_W + 10


def _strength(rec: dict[str, Any]) -> str:
    return rec.get("strength") or "-"


def _row(rec: dict[str, Any], id_w: int = _ID_W) -> str:
    methods = ",".join(rec["methods"])
    return (f"{rec['id']:<{id_w}} {rec['verdict']:<{_VERDICT_W}} {_strength(rec):<{_STRENGTH_W}} "
            f"{methods:<{_METHODS_W}} {rec['seconds']:>6.2f}")


def proof_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How the proved records of ``records`` count (issue 22): ``proved_for_all_sizes`` (non-empty
    ``sizes``, no ``same_proof_as``), ``proved_identities`` (size-free, declared so, no ``same_proof_as``),
    ``proved_sizes_undeclared`` (empty ``sizes`` from a ``prove()`` not told its sizes: flagged, not an identity),
    ``proved_repeated`` (``same_proof_as``: counted once, under the other claim), and of all proved
    records, ``rechecked_cvc5`` (every Z3 obligation confirmed by cvc5), ``single_solver`` (some only
    by Z3) and ``sympy_only`` (a SymPy identity: no SMT obligation)."""
    proved = [r for r in records if r.get("strength") == "proved"]
    counted = [r for r in proved if not r.get("same_proof_as")]
    out = {
        "proved": len(proved),
        "proved_for_all_sizes": sum(1 for r in counted if r.get("sizes")),
        "proved_identities": sum(1 for r in counted if not r.get("sizes") and not r.get("sizes_undeclared")),
        "proved_sizes_undeclared": sum(1 for r in counted if not r.get("sizes") and r.get("sizes_undeclared")),
        "proved_repeated": len(proved) - len(counted),
        "rechecked_cvc5": 0,
        "single_solver": 0,
        "sympy_only": 0,
    }
    for r in proved:
        ss = r.get("second_solver")
        if not ss:
            out["sympy_only"] += 1
        elif ss["confirmed"] == ss["obligations"]:
            out["rechecked_cvc5"] += 1
        else:
            out["single_solver"] += 1
    return out


def ledger_counts(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The tally of ``records`` as JSON: claims, verdicts, strengths and :func:`proof_counts`."""
    return {"claims": len(records), "verdicts": dict(sorted(Counter(r["verdict"] for r in records).items())),
            "strengths": dict(sorted(Counter(_strength(r) for r in records).items())), **proof_counts(records)}


def _n(count: int, noun: str) -> str:
    """'1 claim', '2 claims'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _seed(text: str) -> int:
    """argparse type of --seed: a non-negative integer (argparse names the option in its message)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0 or value >= 2**63:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer below 2**63, got {text!r}")
    return value


def _counts(records: list[dict[str, Any]]) -> str:
    """'a holds, ...; by strength: p proved, ...; proved: f for all sizes, i identities, r repeated;
    second solver: ...' (strengths in order, strongest first)."""
    from .proofs.engine import STRENGTHS

    verdicts = Counter(r["verdict"] for r in records)
    # an error has no strength either, but it is no not-checkable claim: counted apart, as an error
    strengths = Counter("error" if r["verdict"] == "error" else _strength(r) for r in records)
    order = [*STRENGTHS, "-", "error"]
    label = {"-": "none (not-checkable)", "error": "none (error)"}
    by_strength = ", ".join(f"{strengths[k]} {label.get(k, k)}" for k in order if strengths[k])
    text = ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())) + f"; by strength: {by_strength}"
    pc = proof_counts(records)
    if pc["proved"]:
        text += (f"; proved: {pc['proved_for_all_sizes']} for all sizes, {pc['proved_identities']} identities, "
                 + (f"{pc['proved_sizes_undeclared']} with sizes undeclared, " if pc["proved_sizes_undeclared"] else "")
                 + f"{pc['proved_repeated']} repeated (same proof as another claim); second solver: "
                 f"{pc['rechecked_cvc5']} re-checked by cvc5, {pc['single_solver']} single-solver (z3), "
                 f"{pc['sympy_only']} SymPy identities")
    return text


def _readings_line(r: dict[str, Any]) -> str:
    """'readings disagree: literal refuted; appendix holds (headline)' for a claim read several ways."""
    rs = r.get("readings") or []
    if not rs:
        return ""
    head = "readings disagree" if len({x["verdict"] for x in rs}) > 1 else "readings agree"
    return head + ": " + "; ".join(
        f"{x['reading']} {x['verdict']}" + (" (headline)" if x.get("headline") else "")
        + ("" if x.get("supported", True) else " (not supported by the text)") for x in rs)


def _split_beyond(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The paper's own claims, and the results beyond the paper (not counted in its tally)."""
    return [r for r in records if not r.get("beyond")], [r for r in records if r.get("beyond")]


def _proof_detail(r: dict[str, Any]) -> str:
    """For a proved record: what was quantified and by which tool (from its evidence)."""
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if "for_all" in x and isinstance(x["for_all"], str):
                found.append(x["for_all"] + (f" ({x['tool']})" if "tool" in x else ""))
                return
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    ev = r.get("evidence", {})
    walk(ev.get("corrected") if r["verdict"] == "holds-corrected" else ev.get("printed", ev))
    text = "proved " + "; ".join(dict.fromkeys(found)) if found else ""
    extra = [f"sizes: {', '.join(r['sizes'])}" if r.get("sizes") else "size-free identity"]
    if r.get("same_proof_as"):
        extra.append(f"same proof as `{r['same_proof_as']}` (counted there)")
    ss = r.get("second_solver")
    if ss:
        extra.append(f"cvc5 confirmed {ss['confirmed']}/{ss['obligations']} obligations"
                     + (f" (single-solver: {'; '.join(ss['single_solver'][:2])})" if ss["single_solver"] else ""))
    return (text + " [" + "; ".join(extra) + "]").strip()


def _cell(text: str, limit: int = 400) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail(r: dict[str, Any]) -> str:
    """What a reader needs beside the verdict: correction, counterexample, discrepancies, reason."""
    parts = []
    if r.get("readings"):
        parts.append(_readings_line(r))
    if r.get("strength") == "proved":
        parts.append(_proof_detail(r))
    if "correction" in r:
        parts.append("correction: " + r["correction"])
    if "counterexample" in r:
        parts.append("counterexample: " + json.dumps(r["counterexample"], ensure_ascii=False))
    if "discrepancies" in r:
        shown = "; ".join(f"{d['where']}: printed {d['printed']}, correct {d['correct']}" for d in r["discrepancies"][:3])
        more = len(r["discrepancies"]) - 3
        parts.append(f"{len(r['discrepancies'])} discrepancies: {shown}" + (f"; … {more} more" if more > 0 else ""))
    if r["verdict"] == "not-checkable" and "reason" in r.get("evidence", {}):
        parts.append(str(r["evidence"]["reason"]))
    if "error" in r:
        parts.append("error: " + r["error"])
    return _cell(" — ".join(p for p in parts if p))


def _markdown(report: dict[str, Any]) -> str:
    records = report["claims"]
    pc = proof_counts(_split_beyond(records)[0])
    lines = [
        "# isomat claims ledger",
        "",
        f"Generated by `isomat verify --markdown` (isomat {report['isomat_version']}, {report['generated']}): "
        f"{_n(len(records), 'claim')} in {report['total_seconds']:.1f} s. Every verdict below was computed by "
        "running its check; `isomat verify --json` has the full records (quote, statement, evidence).",
        "",
        "The *strength* column says how strong each verdict's evidence is: **proved** — for every size "
        "and value, discharged by Z3 or SymPy with symbolic dimensions (what was quantified is in the "
        "detail); **exhaustive** — exact or symbolic at every size up to a stated bound; **recompute** — "
        "printed numbers recomputed from their inputs; **sampled** — random instances; "
        "**counterexample** — a refuted, misprint or inconsistent verdict, settled by one exact case.",
        "",
        "Where a statement can be read more than one way, the detail lists every reading with its own "
        "verdict; the headline is the most favourable reading that the paper's text supports. Results "
        "isomat finds that a paper does not state (`<paper>:beyond/...`) are listed apart and are not "
        "counted in the paper's tally.",
        "",
        "Proved claims are counted three ways: **proved for all sizes** — the record lists the symbolic "
        "sizes it quantifies (`sizes`); **proved identities** — size-free (a fixed-size block, scalar "
        "calculus); **repeated** — every obligation is discharged inside another claim's proof "
        "(`same_proof_as`), counted there once. Every Z3 obligation is re-checked by cvc5 (within a "
        "deterministic resource limit): a proof cvc5 did not confirm stands on Z3 alone and is marked "
        "single-solver with the reason; `isomat verify --export-smt DIR` writes the obligations as "
        "SMT-LIB 2 files anyone can re-check.",
        "",
        f"All papers: {_counts(_split_beyond(records)[0])}.",
        "",
        f"**{pc['proved_for_all_sizes']} proved for all sizes**, {pc['proved_identities']} proved identities, "
        f"{pc['proved_repeated']} repeated proofs; {pc['rechecked_cvc5']} proofs re-checked by cvc5, "
        f"{pc['single_solver']} single-solver, {pc['sympy_only']} SymPy identities.",
        "",
    ]
    papers = list(dict.fromkeys(r["paper"] for r in records))
    for paper in papers:
        recs, beyond = _split_beyond([r for r in records if r["paper"] == paper])
        lines += [f"## {paper}", "", f"{_n(len(recs), 'claim')}: {_counts(recs)}.", ""]
        for title, group in (("", recs), ("### Beyond the paper (not counted above)", beyond)):
            if not group:
                continue
            if title:
                lines += [title, "", f"{len(group)} results: {_counts(group)}.", ""]
            lines += ["| id | verdict | strength | methods | seconds | detail |", "|---|---|---|---|---:|---|"]
            for r in group:
                lines.append(f"| `{r['id']}` | {r['verdict']} | {_strength(r)} | {', '.join(r['methods'])} | "
                             f"{r['seconds']:.2f} | {_detail(r)} |")
            lines.append("")
    return "\n".join(lines)


def _full_record(r: dict[str, Any]) -> str:
    """One record in full, for a reader: quote, statement, readings, evidence, counterexample, correction."""
    import textwrap

    def block(label: str, text: str) -> list[str]:
        body = textwrap.wrap(" ".join(str(text).split()), 96) or [""]
        return [f"{label:<16}{body[0]}"] + [" " * 16 + line for line in body[1:]]

    def as_json(x: Any) -> str:
        """One line per top-level key, compact JSON values wrapped under it."""
        if not isinstance(x, dict):
            return "\n".join(textwrap.wrap(json.dumps(x, ensure_ascii=False), 92))
        out = []
        for k, v in x.items():
            text = json.dumps(v, ensure_ascii=False)
            wrapped = textwrap.wrap(text, 92 - len(str(k)) - 2) or [""]
            out.append(f"{k}: {wrapped[0]}")
            out += ["  " + w for w in wrapped[1:]]
        return "\n".join(out)

    lines = [f"{r['id']}  {r['verdict']}" + (f" ({r['strength']})" if r.get("strength") else ""),
             "=" * min(100, len(r["id"]) + 30)]
    if r.get("beyond"):
        lines.append("(a result beyond the paper: not counted in its tally)")
    lines += block("quote", r["quote"]) + block("statement", r["statement"])
    if r.get("hypotheses"):
        lines += block("hypotheses", r["hypotheses"])
    lines += block("methods", ", ".join(r["methods"]))
    # the computed fields of a proved record, each on its own line (issue 38 item 5), not inside the evidence blob
    if "sizes" in r:
        lines += block("sizes", ", ".join(r["sizes"]) or "none (a size-free identity)"
                       if not r.get("sizes_undeclared") else ", ".join(r["sizes"]) or "none given")
    if r.get("sizes_undeclared"):
        lines += block("sizes undeclared", "; ".join(r["sizes_undeclared"]))
    if "sizes" in r:
        lines += block("same proof as", r.get("same_proof_as") or "none (counted here)")
    if r.get("second_solver"):
        ss = r["second_solver"]
        lines += block("second solver", f"cvc5 confirmed {ss['confirmed']} of {ss['obligations']} Z3 obligations"
                       + (f"; on Z3 alone: {'; '.join(ss['single_solver'])}" if ss.get("single_solver") else ""))
    elif "sizes" in r:
        lines += block("second solver", "none (no Z3 obligation: a SymPy identity)")
    if r.get("correction"):
        lines += block("correction", r["correction"])
    if r.get("counterexample") is not None:
        lines += ["counterexample", textwrap.indent(as_json(r["counterexample"]), "    ")]
    for d in r.get("discrepancies") or []:
        lines += block("discrepancy", f"{d['where']}: printed {d['printed']}, correct {d['correct']}")
    for x in r.get("readings") or []:
        # the label column is 15 wide: the reading's name goes in the text, whole, never cut
        lines += block("reading", f"{x['reading']}: {x['verdict']} ({x.get('strength') or '-'})"
                       + (" — the headline" if x.get("headline") else "")
                       + ("" if x.get("supported", True) else " — not supported by the text")
                       + f". {x['statement']}")
        if x.get("counterexample") is not None:
            lines.append(textwrap.indent("counterexample " + json.dumps(x["counterexample"], ensure_ascii=False), " " * 16))
    if r.get("error"):
        lines += block("error", r["error"])
    if r.get("traceback"):  # shown as it is: its lines and indentation are its meaning
        lines += ["traceback", textwrap.indent(r["traceback"].rstrip("\n"), "    ")]
    lines += ["evidence", textwrap.indent(as_json(r.get("evidence", {})), "    ")]
    lines.append(f"{'seconds':<16}{r['seconds']}")
    return "\n".join(lines)


def _claim_timeout(text: str) -> float:
    """``--claim-timeout``: seconds, a positive number (0: no limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (value >= 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds (0: no limit), got {text!r}")
    return value


def _workers(text: str) -> int:
    """argparse type of ``--jobs``: a number of worker processes, at least 1 (defined here: the export
    families' option types would import SciPy and SymPy into every ``isomat verify``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import proofs

    papers = list(dict.fromkeys(args.paper)) if args.paper else None  # every --paper given, in order
    usable = proofs.default_jobs("numpy")
    if args.jobs is not None and args.jobs > usable:
        # more workers than CPUs only multiplies memory (each imports the ledger) and contention
        print(f"isomat verify: --jobs {args.jobs}: this machine gives the process {usable} usable CPU"
              f"{'s' if usable != 1 else ''}; pass at most --jobs {usable}", file=err)
        return 2
    if args.write_expected and not args.expected:
        print("isomat verify: --write-expected records the verdicts in the file named by --expected FILE (the "
              "package's own expected files are not written by a run; maintainers: benchmarks/_write_expected.py)",
              file=err)
        return 2
    if args.include_papers and not args.write_expected:
        print("isomat verify: --include-papers goes with --write-expected", file=err)
        return 2
    expected = None  # --expected, read before the run (a FIFO, a device, a bad file: one line, nothing run)
    if args.expected:
        try:
            if args.write_expected:
                if proofs._inside_package(args.expected):
                    raise ValueError(f"{args.expected!r} is inside the isomat package ({proofs.PACKAGE_DIR}): a run "
                                     "does not write the package's files (maintainers: benchmarks/_write_expected.py)")
                if os.path.lexists(args.expected):
                    proofs.read_expected_file(args.expected)  # merged into after the run: it must be one
            else:
                expected = proofs.read_expected_file(args.expected)
        except ValueError as exc:
            print(f"isomat verify: --expected: {' '.join(str(exc).split())}", file=err)
            return 2
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("isomat verify: --plot needs matplotlib (pip install 'isomat[notebooks]')", file=err)
            return 2
        if Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
            print(f"isomat verify: --plot {args.plot!r}: the file must end in .png, .svg or .pdf", file=err)
            return 2
    if args.markdown or args.write_expected or args.plot:
        # the files the run will write are checked before it runs, not after the whole ledger
        from .export._atomic import check_target

        try:
            if args.plot:
                check_target(Path(args.plot), what="--plot")
            if args.markdown:
                check_target(Path(args.markdown), what="--markdown")
            if args.write_expected:
                check_target(Path(args.expected), what="--expected")
        except ValueError as exc:
            print(f"isomat verify: {exc}", file=err)
            return 2
    if args.export_smt:
        try:
            Path(args.export_smt).mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file of that name, a file on the way, no permission: one line
            print(f"isomat verify: --export-smt {args.export_smt!r}: cannot make it a directory of SMT-LIB files "
                  f"({exc.strerror or type(exc).__name__})", file=err)
            return 2
    if args.memory_limit is not None:
        from ._config import set_memory_limit

        set_memory_limit(args.memory_limit)
    if args.backend == "cupy":
        from .gpu import gpu_status

        ok, reason = gpu_status()
        if not ok:
            print(f"isomat verify: --backend cupy needs a usable GPU: {reason}", file=err)
            return 2
    chosen = None  # None: the ledger of `papers`; else exactly these claims
    try:
        if args.claims:
            if args.paper:
                print("isomat verify: --claims and --paper exclude each other", file=err)
                return 2
            with _stdout_to(err):  # what the file prints as it is imported is not the report
                chosen = proofs.load_file(args.claims)
        elif args.claim:
            source = args.claim.split(":", 1)[0]
            chosen = proofs.load([source] if source in proofs.PAPERS else papers)
        else:
            proofs.load(papers)
        if args.claim:
            match = [c for c in chosen or [] if c.id == args.claim]
            if not match:
                near = sorted(c.id for c in chosen or [] if c.id.startswith(args.claim.split("/")[0]))[:8]
                print(f"isomat verify: no claim {args.claim!r}" + (f"; ids that start alike: {', '.join(near)}" if near else ""),
                      file=err)
                return 2
            chosen = match
    except ValueError as exc:
        print(f"isomat verify: {' '.join(str(exc).split())}", file=err)
        return 2
    except Exception as exc:  # a user's claims file that fails to import: one line, not a traceback
        if not args.claims:
            raise
        print(f"isomat verify: claims file {args.claims!r} failed to load: {type(exc).__name__}: {exc}", file=err)
        return 2
    if args.write_expected and not args.include_papers:
        ids = [c.id for c in chosen] if chosen is not None else [c.id for c in proofs.load(papers)]
        ours = [cid for cid in ids if cid.split(":", 1)[0] in proofs.PAPERS]
        if ours:
            print(f"isomat verify: --write-expected: refusing to record verdicts of the five papers' claims "
                  f"({', '.join(ours[:3])}{', ...' if len(ours) > 3 else ''}) without --include-papers", file=err)
            return 2
    # run as the program, the papers' workers are copies of this process (see _main)
    fork_here = getattr(args, "program", False)
    timeout = (proofs.DEFAULT_CLAIM_TIMEOUT if args.claim_timeout is None
               else None if args.claim_timeout == 0 else args.claim_timeout)
    if args.claim and not args.json:
        try:
            report = proofs.run(claims=chosen, backend=args.backend, export_smt=args.export_smt, claim_timeout=timeout,
                                fork_here=fork_here)
        except proofs.WorkerStartError as exc:
            print(f"isomat verify: {' '.join(str(exc).split())}"[:2000], file=err)
            return 2
        (rec,) = report["claims"]
        print(_full_record(rec), file=out)
        return 1 if (report["regressions"] or rec["verdict"] == "error") else 0
    table = not args.json
    # every id of the run, known before the first row: the id column is as wide as the longest
    id_w = max([_ID_W, *(len(c.id) for c in (chosen if chosen is not None else proofs.load(papers)))])
    show_progress = args.json and err.isatty()
    if table:
        print(f"{'id':<{id_w}} {'verdict':<{_VERDICT_W}} {'strength':<{_STRENGTH_W}} {'methods':<{_METHODS_W}} "
              f"{'secs':>6}", file=out)
        print("-" * (_RULE_W + id_w - _ID_W), file=out)

    def on_start(i: int, n: int, c: Any) -> None:
        if show_progress:
            print(f"\r[{i}/{n}] {c.id:<60}", end="", file=err, flush=True)

    def on_record(i: int, n: int, rec: dict[str, Any]) -> None:
        if table:
            print(_row(rec, id_w), file=out, flush=True)
            if rec["verdict"] == "error":
                print(f"    error: {rec['error']}", file=out)
                if args.verbose and rec.get("traceback"):
                    print("\n".join("    " + line for line in rec["traceback"].rstrip("\n").split("\n")), file=out)
            elif rec.get("readings"):
                print(f"    {_readings_line(rec)}", file=out)

    jobs = args.jobs if args.jobs is not None else proofs.default_jobs(args.backend)
    try:
        report = (proofs.run(claims=chosen, backend=args.backend, on_start=on_start, on_record=on_record, jobs=jobs,
                             export_smt=args.export_smt, claim_timeout=timeout, fork_here=fork_here)
                  if chosen is not None
                  else proofs.run(papers, backend=args.backend, on_start=on_start, on_record=on_record, jobs=jobs,
                                  export_smt=args.export_smt, claim_timeout=timeout, fork_here=fork_here))
    except proofs.WorkerStartError as exc:  # a claims file that imports here but not in a worker: one line
        if show_progress:
            print(file=err)
        print(f"isomat verify: {' '.join(str(exc).split())}"[:2000], file=err)
        return 2
    if show_progress:
        print(file=err)
    report = {
        "isomat_version": __version__,
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "backend": args.backend,
        "machine": _machine(),
        **report,
    }
    records = report["claims"]
    own_records, beyond_records = _split_beyond(records)
    report["counts"] = ledger_counts(own_records)
    if beyond_records:
        report["counts_beyond"] = ledger_counts(beyond_records)
    errors = [r for r in records if r["verdict"] == "error"]
    if args.json:
        # NaN and infinities are written as strings in the records (conventions.md): bare ones are never printed
        out.write(json.dumps(report, indent=1, ensure_ascii=False, allow_nan=False))
        print(file=out)
    else:
        own, beyond = _split_beyond(records)
        print("-" * (_RULE_W + id_w - _ID_W), file=out)
        if beyond:
            print(f"{_n(len(beyond), 'result')} beyond the papers (not in the tally): {_counts(beyond)}", file=out)
        print(f"{_n(len(own), 'claim')} in {report['total_seconds']:.1f} s: {_counts(own)}", file=out)
        if "device_claims" in report:
            reused = report.get("device_reused_claims", [])
            print(f"{len(report['device_claims']) + len(reused)} of {_n(len(records), 'claim')} used the device "
                  f"(--backend {args.backend}): {len(report['device_claims'])} ran device work, {len(reused)} rest "
                  "on device results an earlier claim computed (cached)", file=out)
    if args.export_smt:
        n = len(list(Path(args.export_smt).glob("*.smt2")))
        print(f"isomat verify: {n} SMT-LIB obligations in {args.export_smt} (re-check: python -m "
              f"isomat.proofs.recheck {args.export_smt})", file=err)
    if args.markdown:
        from .export._atomic import write_text

        write_text(args.markdown, _markdown(report), what="--markdown")
    if args.plot:
        from .plot import ledger

        ledger(records, path=args.plot, beyond=not any(r.get("id", "").split(":")[0] in proofs.PAPERS for r in records))
        print(f"isomat verify: drew the verdicts and strengths per paper in {args.plot}", file=err)
    if args.write_expected:  # your own claims' guard, where you keep it, merged by id
        try:
            path = proofs.write_expected_file(records, args.expected, include_papers=args.include_papers)
        except (ValueError, RuntimeError, OSError) as exc:
            print(f"isomat verify: --expected: {' '.join(str(exc).split())}", file=err)
            return 2
        print(f"wrote {path}", file=err)
        return 0 if not errors else 1
    regressions = report["regressions"]
    if expected is not None:
        regressions = regressions + proofs.compare_expected_file(records, expected)
    for d in regressions:
        print(f"isomat verify: {d['id']}: expected {d['expected']}, computed {d['computed']}", file=err)
    failing = [r for r in records if r["verdict"] in ("refuted", "misprint", "inconsistent")] if args.strict else []
    for r in failing:
        print(f"isomat verify: {r['id']}: {r['verdict']} (--strict)", file=err)
    return 1 if (regressions or errors or failing) else 0


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line naming the option (exit status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _bench_dir(given: str | None) -> str:
    """The benchmarks directory: the one given, else ./benchmarks, else the checkout's (found from the package),
    else the copy an installed wheel carries (isomat/_benchmarks), so `isomat bench` works from any directory
    of a source checkout and from an installed isomat."""
    from pathlib import Path

    if given is not None:
        return given
    here = Path("benchmarks")
    if here.is_dir():
        return str(here)
    beside = Path(__file__).resolve().parent.parent / "benchmarks"
    if beside.is_dir():
        return str(beside)
    shipped = Path(__file__).resolve().parent / "_benchmarks"  # an installed wheel carries them here
    return str(shipped) if shipped.is_dir() else str(here)


#: what an export reports as one line instead of a traceback (_export_error says how)
_EXPORT_ERRORS = (ValueError, TypeError, ImportError, OSError, ArithmeticError, MemoryError)


def _export_error(prog: str, exc: BaseException, err: TextIO) -> int:
    """One line on ``err`` for a failed ``isomat export``, and its exit status: 2 for the arguments
    (bad values, a missing extra, arithmetic that overflows somewhere not yet guarded), 1 for the
    machine (the disk; memory exhausted before the bound refused -- SizeLimitError is a ValueError)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, (ValueError, TypeError)):
        print(f"{prog}: error: {text}", file=err)
        return 2
    if isinstance(exc, ImportError):
        print(f"{prog}: error: {exc}", file=err)
        return 2
    if isinstance(exc, OSError):
        print(f"{prog}: error: {text}", file=err)
        return 1
    if isinstance(exc, ArithmeticError):
        print(f"{prog}: error: {type(exc).__name__}: {text} (check the options' sizes)", file=err)
        return 2
    print(f"{prog}: error: out of memory during the build{': ' + text if text else ''}; "
          f"set a lower --memory-limit (or ISOMAT_MEMORY_LIMIT) to have oversized builds refused first", file=err)
    return 1


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import numpy as np

    from . import export

    fam = export.FAMILIES[args.kind]
    seed = args.seed if args.seed is not None else export.new_seed()
    prog = f"isomat export {args.kind}"
    try:
        if args.memory_limit is not None:
            from ._config import set_memory_limit

            set_memory_limit(args.memory_limit)
        rng = np.random.default_rng(seed)
        before = rng.bit_generator.state
        # refuse a bad target before the build (which may take a while)
        export.write_target(args.output, args.format, overwrite=args.force)
        progress = err.isatty()  # stages of a long export, on a terminal only (a log or a pipe stays clean)
        t0 = time.perf_counter()
        if progress:
            print(f"{prog}: building ...", file=err, flush=True)
        op = fam.build(args, rng)
        random_values = rng.bit_generator.state != before  # the seed matters only when values were drawn
        M = export.to_scipy(op, "csr")  # held once: the build's CSR itself where the family builds CSR
        del op
        in_shape, out_shape = fam.shapes(args, M.shape)
        skip = {"func", "command", "kind", "output", "format", "seed", "torch_layout", "memory_limit", "dtype",
                "order", "force", "program"}  # program: how the CLI was entered (_main), not a layer parameter
        params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(vars(args).items())
                  if k not in skip and v is not None and not callable(v)}
        params.update(fam.describe(args))  # e.g. a kernel file's real channels and content hash
        if progress:
            print(f"{prog}: built {M.shape[0]}x{M.shape[1]}, {M.nnz:,} stored entries in {time.perf_counter() - t0:.1f} s; "
                  f"writing {args.output} ...", file=err, flush=True)
        metadata = {"isomat_version": __version__, "kind": args.kind, "parameters": params,
                    "shape": list(M.shape), "input_shape": list(in_shape), "output_shape": list(out_shape),
                    "rows": "outputs", "columns": "inputs", "convention": "y = W x",
                    **({"seed": seed} if random_values else {})}
        path = export.write(M, args.output, args.format, torch_layout=args.torch_layout, metadata=metadata,
                            dtype=args.dtype, order=args.order, input_shape=in_shape, output_shape=out_shape,
                            overwrite=args.force,
                            comment=f" isomat {__version__} export {args.kind}" + (f", seed {seed}" if random_values else ""))
    except _EXPORT_ERRORS as exc:
        return _export_error(prog, exc, err)
    if random_values:
        print(f"seed {seed}", file=out)
    print(f"wrote {path}: {args.kind} operator {M.shape[0]}x{M.shape[1]} "
          f"({'x'.join(map(str, in_shape))} -> {'x'.join(map(str, out_shape))}), {M.nnz} stored entries, "
          f"format {path.suffix.lstrip('.')}", file=out)
    return 0


def _load_factory(spec: str) -> Any:
    """``pkg.mod:factory`` or ``path/file.py:factory`` -> the callable (one-line errors)."""
    import importlib
    import importlib.util
    from pathlib import Path

    mod_name, sep, attr = spec.rpartition(":")
    if not sep or not mod_name or not attr.isidentifier():
        raise ValueError(f"--module must be MODULE:FACTORY (pkg.models:make_net or models.py:make_net), got {spec!r}")
    if mod_name.endswith(".py"):
        path = Path(mod_name)
        if not path.is_file():
            raise ValueError(f"--module {spec!r}: no such file {str(path)!r}")
        loader_spec = importlib.util.spec_from_file_location(f"_isomat_model_{path.stem}", path)
        if loader_spec is None or loader_spec.loader is None:  # pragma: no cover
            raise ValueError(f"--module {spec!r}: cannot load {str(path)!r} as Python")
        module = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(module)
    else:
        import os
        import sys

        if os.getcwd() not in sys.path:  # as `python -m`: a module beside the user resolves
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            raise ValueError(f"--module {spec!r}: cannot import {mod_name!r} ({exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ValueError(f"--module {spec!r}: {mod_name!r} has no callable {attr!r}")
    return factory


def _model_dtype(model: Any) -> str | None:
    """The value dtype an export of ``model`` keeps by default: ``float32`` for a model whose floating
    parameters and buffers are float32 or narrower (float16 and bfloat16 are exact in float32),
    ``None`` (float64, the traced network's own) otherwise or for a model without any."""
    import torch

    found = {t.dtype for t in [*model.parameters(), *model.buffers()] if t.is_floating_point()}
    return "float32" if found and found <= {torch.float32, torch.float16, torch.bfloat16} else None


def cmd_export_model(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import export

    prog = "isomat export model"
    try:
        if args.memory_limit is not None:
            from ._config import set_memory_limit

            set_memory_limit(args.memory_limit)
        _, fmt = export.write_target(args.output, args.format, overwrite=args.force)
        import torch  # an ImportError is one line below (the torch extra)

        from .torch import from_model
        factory = _load_factory(args.module)
        model = factory()
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"--module {args.module!r} returned {type(model).__name__}, not a torch.nn.Module")
        model.eval()
        network = from_model(model, args.input_shape)
        dtype = args.dtype if args.dtype is not None or fmt == "mat" else _model_dtype(model)
        paths = export.write_network(network, args.output, args.format, order=args.order, dtype=dtype,
                                     metadata={"module": args.module, "eval": True}, overwrite=args.force)
    except _EXPORT_ERRORS as exc:
        return _export_error(prog, exc, err)
    shape_in = "x".join(map(str, network.input_shape))
    shape_out = "x".join(map(str, network.output_shape))
    if len(paths) == 1:
        print(f"wrote {paths[0]}: model {network.name} ({shape_in} -> {shape_out}) as one affine map, "
              f"{network.collapsed().nnz} stored entries", file=out)
    else:
        print(f"wrote {len(paths) - 1} segment files and {paths[-1]}: model {network.name} ({shape_in} -> {shape_out}), "
              f"{len(network.nodes)} nodes", file=out)
    return 0


def cmd_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import os

    from .bench import run_benchmarks, summary

    if args.memory_limit is not None:
        os.environ["ISOMAT_MEMORY_LIMIT"] = str(args.memory_limit)  # the scripts inherit it
    if args.plot is not None:  # before the benchmarks run: a missing matplotlib or a bad folder is known at once
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("isomat bench: --plot needs matplotlib (pip install 'isomat[notebooks]')", file=err)
            return 2
        plot_dir = Path(args.plot)
        if plot_dir.exists() and not plot_dir.is_dir():
            print(f"isomat bench: --plot: {str(plot_dir)!r} is not a folder", file=err)
            return 2
    try:
        report = run_benchmarks(_bench_dir(args.dir), json_path=args.json, markdown_path=args.markdown, quick=args.quick,
                                only=args.only, timeout=args.timeout, log=err)
    except ValueError as exc:
        print(f"isomat bench: error: {exc}", file=err)
        return 2
    failed = [b["name"] for b in report["benchmarks"] if b["status"] == "failed"]
    print(f"wrote {args.json} and {args.markdown}: {len(report['benchmarks'])} benchmarks"
          + (f", failed: {', '.join(failed)}" if failed else ""), file=out)
    print(f"summary: {summary(report)['text']}", file=out)
    if args.plot is not None:
        from .plot import bench_ratios, bench_scaling

        plot_dir.mkdir(parents=True, exist_ok=True)
        for name, draw in (("bench-ratios.png", bench_ratios), ("bench-scaling.png", bench_scaling)):
            draw(report, path=plot_dir / name)
        print(f"wrote {plot_dir / 'bench-ratios.png'} and {plot_dir / 'bench-scaling.png'}", file=out)
    return 1 if failed else 0


def _size(text: str) -> int:
    """argparse type of ``--memory-limit``: bytes, or a size like ``4G`` / ``512M`` (parsed once, here,
    for every command, so a bad size is argparse's one-line error naming the option)."""
    from ._config import parse_size

    try:
        return parse_size(text)
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_memory_limit(parser: Any, what: str) -> None:
    parser.add_argument("--memory-limit", type=_size, default=None, metavar="SIZE",
                        help=f"{what}: bytes or a size like 4G, 512M (default: ISOMAT_MEMORY_LIMIT or 2G)")


def _add_export(sub: Any) -> None:
    from . import export

    e = sub.add_parser("export", help=_COMMANDS["export"],
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Build an operator of a construction family (random values from a seed, "
                                   "which is printed) and write it as MatrixMarket, NumPy .npz, a PyTorch "
                                   "sparse tensor, a MATLAB .mat or a JAX BCOO .npz. Kinds and their options: "
                                   "isomat export KIND --help.")
    kinds = e.add_subparsers(dest="kind", required=True, metavar="KIND", parser_class=_Parser)
    usages: list[str] = []
    for name, fam in export.FAMILIES.items():
        k = kinds.add_parser(name, help=fam.help, description=fam.help)
        fam.add_options(k)
        g = k.add_argument_group("output")
        g.add_argument("-o", "--output", required=True, metavar="FILE", help="file to write (.mtx, .npz, .pt or .mat)")
        g.add_argument("--format", choices=export.FORMATS, default=None,
                       help="file format (default: from the suffix of FILE; jax: the arrays of a JAX BCOO in an .npz)")
        g.add_argument("--order", choices=["C", "F"], default="C",
                       help="flattening of input and output: C row-major (default, NumPy/torch), F column-major "
                            "(MATLAB's x(:), Fortran, Julia)")
        g.add_argument("--force", action="store_true", help="replace FILE if it exists (default: refuse)")
        g.add_argument("--seed", type=_seed, default=None,
                       help="seed of the random values, a non-negative integer (default: fresh, printed)")
        g.add_argument("--torch-layout", choices=["coo", "csr"], default="coo",
                       help="sparse layout for --format pt (csr shares the matrix's arrays; coo adds 16 bytes an entry)")
        g.add_argument("--dtype", choices=["float32", "float64", "complex64", "complex128"], default=None,
                       help="value type written (default: the construction's, float64 for real values)")
        _add_memory_limit(g, "memory bound for the build")
        k.set_defaults(func=cmd_export)
        usages.append("  " + " ".join(k.format_usage().split())[len("usage: "):])
    m = kinds.add_parser("model", help="a whole torch model, traced (isomat.torch.from_model), as its exact affine "
                                       "segments", description="Trace a torch model made by a factory function and write "
                                       "its exact sparse affine map (W, b) -- or, with nonlinearities, one file per affine "
                                       "segment and a <stem>.<format>.network.json manifest chaining them (read back by isomat.export.read_network). Needs the torch extra.")
    m.add_argument("--module", required=True, metavar="MOD:FACTORY",
                   help="the model factory: an importable module and a callable in it (pkg.models:make_net), or a "
                        "Python file and a callable (path/to/models.py:make_net); called with no arguments, then .eval()")
    m.add_argument("--input-shape", required=True, type=export.int_list, metavar="C,H,W",
                   help="one sample's shape, no batch axis (e.g. 1,28,28)")
    g = m.add_argument_group("output")
    g.add_argument("-o", "--output", required=True, metavar="FILE", help="file to write (.mtx, .npz, .pt or .mat)")
    g.add_argument("--format", choices=export.FORMATS, default=None, help="file format (default: from the suffix of FILE)")
    g.add_argument("--order", choices=["C", "F"], default="C",
                   help="flattening (F: column-major; an affine model only)")
    g.add_argument("--force", action="store_true", help="replace existing files (default: refuse)")
    g.add_argument("--dtype", choices=["float32", "float64"], default=None,
                   help="value type written (default: the model's own, float32 for a float32 model; .mat: float64)")
    _add_memory_limit(g, "memory bound for the build")
    m.set_defaults(func=cmd_export_model)
    usages.append("  " + " ".join(m.format_usage().split())[len("usage: "):])
    e.epilog = "kinds and their options:\n" + "\n".join(usages)


def _add_bench(sub: Any) -> None:
    b = sub.add_parser("bench", help=_COMMANDS["bench"])
    b.add_argument("--dir", default=None,
                   help="directory of benchmark scripts (default: ./benchmarks, else the checkout's benchmarks/ next to "
                        "the isomat package)")
    b.add_argument("--json", default="bench-report.json", metavar="FILE", help="JSON report (default bench-report.json)")
    b.add_argument("--markdown", default="bench-report.md", metavar="FILE", help="Markdown report (default bench-report.md)")
    b.add_argument("--quick", action="store_true", help="pass --quick to the scripts (small sizes, few repeats)")
    b.add_argument("--only", action="append", metavar="NAME", help="run only this script (repeatable; name without .py)")
    b.add_argument("--timeout", type=float, default=900.0, help="seconds per script (default 900)")
    b.add_argument("--plot", default=None, metavar="DIR",
                   help="also draw the ratios against their targets and the scaling curves, as PNG files in DIR "
                        "(needs matplotlib)")
    _add_memory_limit(b, "memory bound for the scripts' builds (passed as ISOMAT_MEMORY_LIMIT)")
    b.set_defaults(func=cmd_bench)


#: the subcommands and their one-line help (the top-level parser needs no more: `isomat --help` imports
#: neither the ledger nor the construction families)
_COMMANDS = {"verify": "run the claims ledger and print the verdicts",
             "export": "write an operator of a construction family to a file",
             "bench": "run benchmarks/*.py and write bench-report.json and bench-report.md"}


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), or None."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in _COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. ``only``: build that subcommand's options and give the others their
    name and help alone (``"none"``: every subcommand so, for the top-level help); default: all."""
    parser = _Parser(prog="isomat", description="isomat's command line: verify runs the claims ledger, export writes "
                                                 "an operator to a file, bench runs the benchmarks.")
    parser.add_argument("--version", action="version", version=f"isomat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    full = {name: only in (None, name) for name in _COMMANDS}
    if full["verify"]:
        _add_verify(sub)
    else:
        sub.add_parser("verify", help=_COMMANDS["verify"])
    if full["export"]:
        _add_export(sub)
    else:
        sub.add_parser("export", help=_COMMANDS["export"])
    if full["bench"]:
        _add_bench(sub)
    else:
        sub.add_parser("bench", help=_COMMANDS["bench"])
    return parser


def _add_verify(sub: Any) -> None:
    v = sub.add_parser("verify", help=_COMMANDS["verify"])
    from .proofs.engine import PAPERS

    v.add_argument("--paper", choices=PAPERS, action="append",
                   help="only this paper's claims (repeat it for several papers: --paper do2017 --paper zhu2025)")
    v.add_argument("--claims", metavar="PATH", help="run your own claims instead of the ledger: a Python file or an "
                                                   "importable module that declares them with isomat.proofs.engine.claim. "
                                                   "Its code is executed -- imported in this process and in each claim's "
                                                   "worker process: run only files you trust (each claim runs in a "
                                                   "worker of its own, which cannot change another claim's record)")
    v.add_argument("-v", "--verbose", action="store_true",
                   help="print a failing check's traceback (from the check down) under its row; --claim ID shows "
                        "it always")
    v.add_argument("--strict", action="store_true",
                   help="exit 1 when any claim is refuted, misprint or inconsistent (as for an error or a changed "
                        "verdict): a CI gate for your own claims")
    v.add_argument("--expected", metavar="FILE",
                   help="a JSON file of expected verdicts ({claim id: verdict}) to compare with, exit 1 on a "
                        "difference; with --write-expected, record the computed verdicts there (your own claims' "
                        "regression guard)")
    v.add_argument("--claim", metavar="ID", help="run one claim and print its record in full (quote, statement, readings, "
                                                "evidence, counterexample, correction); with --json, the record as JSON")
    v.add_argument("--json", action="store_true", help="print the ledger as JSON (conventions.md schema)")
    v.add_argument("--markdown", metavar="FILE", help="also write the ledger as a Markdown table to FILE")
    v.add_argument("--plot", metavar="FILE", default=None,
                   help="also draw the verdicts and the strengths of the evidence per paper in FILE (.png, .svg or "
                        ".pdf; needs matplotlib)")
    v.add_argument("--export-smt", metavar="DIR", default=None,
                   help="write every Z3 proof obligation of the run into DIR as one SMT-LIB 2 file (named by claim "
                        "id); unsat confirms a proof: python -m isomat.proofs.recheck DIR, cvc5 FILE or z3 -smt2 FILE")
    v.add_argument("--backend", choices=["numpy", "cupy"], default="numpy",
                   help="field for the float checks (default numpy; cupy needs a usable GPU)")
    v.add_argument("--jobs", type=_workers, default=None, metavar="N",
                   help="worker processes running claims side by side (default: the usable CPUs with the numpy "
                        "backend, 1 with cupy); the output is the same, in the same order")
    v.add_argument("--claim-timeout", type=_claim_timeout, default=None, metavar="SECONDS",
                   help="time limit for one claim (default 300): a claim over it is an error record and the run goes "
                        "on; the claims run in worker processes (one with --jobs 1) so that they can be stopped; 0: "
                        "no limit (with --jobs 1 the claims then run in this process: for trusted claims only -- "
                        "nothing stops a check that hangs or a process it starts)")
    _add_memory_limit(v, "memory bound for the checks' builds")
    v.add_argument("--write-expected", action="store_true",
                   help="record the computed verdicts as the regression guard in --expected FILE (required), merged "
                        "by id into what it holds; never a file inside the isomat package")
    v.add_argument("--include-papers", action="store_true",
                   help="with --write-expected: also record verdicts of the five papers' claims (refused otherwise)")
    v.set_defaults(func=cmd_verify)


@contextlib.contextmanager
def _stdout_to(err: TextIO) -> Iterator[None]:
    """While a claims file is imported: what it prints goes to ``err``, and what it writes to file
    descriptor 1 goes to descriptor 2, so that stdout holds the report alone."""
    import os

    for stream in (sys.stdout, sys.__stdout__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        saved = None
    try:
        with contextlib.redirect_stdout(err):
            yield
    finally:
        for stream in (sys.stdout, sys.__stdout__):
            with contextlib.suppress(Exception):
                stream.flush()  # type: ignore[union-attr]
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt for SIGINT, so that ``finally`` blocks run:
    worker pools are ended, temporary files removed."""


def _raise_terminated(signum: int, frame: Any) -> None:
    # a check running in this process: the Terminated raised in it ends the run (the engine may be loaded
    # only in part: the signal can come while it is being imported)
    note = getattr(sys.modules.get("isomat.proofs.engine"), "note_real_signal", None)
    if callable(note):
        note()
    raise Terminated(signum)


@contextlib.contextmanager
def _interruptible(z3_too: bool = True) -> Iterator[None]:
    """SIGINT and SIGTERM end the command through its ``finally`` blocks (Python raises KeyboardInterrupt
    for SIGINT; SIGTERM would end the process at once, leaving workers and temporary files behind).
    Z3 is told not to catch Ctrl-C itself: it would turn the interrupt into a cancelled check, which the
    run would go on from."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread (a caller's thread runs main() as is)
        return
    old_int, old_term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_terminated)
    if z3_too:  # only verify proves: other commands (and --help) do not import Z3
        import z3

        z3.set_param("ctrl_c", False)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    code = _main(argv, out=out, err=err)
    if argv is None and out is None and err is None:
        # run as the program (`isomat`, `python -m isomat`): a thread a check left running in this process
        # (--claim-timeout 0 --jobs 1) must not keep it alive after the report: flush and leave
        live = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
        if live:
            import os

            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(code)
    return code


def _main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    # run as the program (``isomat``, ``python -m isomat``): this process holds nothing but what the
    # command imports, so verify's workers may be copies of it (proofs.run's fork_here); a caller's
    # process (cli.main from Python, a test) is never copied
    program = argv is None and out is None and err is None
    err = err or sys.stderr
    command = "isomat"
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        named = _command_of(words)
        with _interruptible(z3_too=named == "verify"):
            # (building the parser imports the construction families: an interrupt may come that early)
            args = build_parser(named or "none").parse_args(argv)
            command = f"isomat {args.command}"
            args.program = program
            try:  # a bad ISOMAT_MEMORY_LIMIT is one line before any work, not an error in every claim
                from ._config import environment_limit

                environment_limit()
            except ValueError as exc:
                print(f"{command}: error: {exc}", file=err)
                return 2
            # --memory-limit holds for this command only: main() called from Python leaves the caller's
            # bound (and ISOMAT_MEMORY_LIMIT, which bench passes on to its scripts) as it found them
            from . import _config

            saved_limit, saved_env = _config._limit, os.environ.get("ISOMAT_MEMORY_LIMIT")
            try:
                return args.func(args, out or sys.stdout, err)
            finally:
                _config._limit = saved_limit
                if saved_env is None:
                    os.environ.pop("ISOMAT_MEMORY_LIMIT", None)
                else:
                    os.environ["ISOMAT_MEMORY_LIMIT"] = saved_env
    except (KeyboardInterrupt, Terminated) as exc:
        # one line, no traceback; the shell's convention: 128 + the signal's number
        print(f"{command}: interrupted", file=err)
        return 143 if isinstance(exc, Terminated) else 130
    except BrokenPipeError:
        # the reader went away (`isomat verify --json | head`): end quietly, as a Unix filter does

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
