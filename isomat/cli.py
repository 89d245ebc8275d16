"""Command line: ``isomat verify``.

``isomat verify`` runs the claims ledger on the CPU and prints one row per claim as it finishes
(id, verdict, methods, seconds), then the totals. Exit status 1 when a computed verdict differs
from the expected-verdict file or a check raises.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from . import __version__

_ID_W, _VERDICT_W, _METHODS_W = 44, 16, 30


def _machine() -> dict[str, Any]:
    import os

    import numpy
    import scipy
    import sympy

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
    }


def _row(rec: dict[str, Any]) -> str:
    methods = ",".join(rec["methods"])
    return f"{rec['id']:<{_ID_W}} {rec['verdict']:<{_VERDICT_W}} {methods:<{_METHODS_W}} {rec['seconds']:>8.2f}"


def _markdown(report: dict[str, Any]) -> str:
    lines = [
        "# isomat claims ledger",
        "",
        f"isomat {report['isomat_version']}, generated {report['generated']}, "
        f"{len(report['claims'])} claims in {report['total_seconds']:.1f} s.",
        "",
        "| id | verdict | methods | seconds | detail |",
        "|---|---|---|---:|---|",
    ]
    for r in report["claims"]:
        detail = r.get("correction") or r.get("error") or ""
        if "counterexample" in r:
            detail = (detail + "; " if detail else "") + "counterexample: " + json.dumps(r["counterexample"], ensure_ascii=False)
        if "discrepancies" in r:
            detail = (detail + "; " if detail else "") + f"{len(r['discrepancies'])} discrepancies"
        detail = detail.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{r['id']}` | {r['verdict']} | {', '.join(r['methods'])} | {r['seconds']:.2f} | {detail} |")
    return "\n".join(lines) + "\n"


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import proofs

    papers = [args.paper] if args.paper else None
    if args.backend == "cupy":
        from .gpu import gpu_status

        ok, reason = gpu_status()
        if not ok:
            print(f"isomat verify: --backend cupy needs a usable GPU: {reason}", file=err)
            return 2
    try:
        claims = proofs.load(papers)
    except ValueError as exc:
        print(f"isomat verify: {exc}", file=err)
        return 2
    table = not args.json
    show_progress = args.json and err.isatty()
    if table:
        print(f"{'id':<{_ID_W}} {'verdict':<{_VERDICT_W}} {'methods':<{_METHODS_W}} {'seconds':>8}", file=out)
        print("-" * (_ID_W + _VERDICT_W + _METHODS_W + 11), file=out)

    def on_start(i: int, n: int, c: Any) -> None:
        if show_progress:
            print(f"\r[{i}/{n}] {c.id:<60}", end="", file=err, flush=True)

    def on_record(i: int, n: int, rec: dict[str, Any]) -> None:
        if table:
            print(_row(rec), file=out, flush=True)
            if rec["verdict"] == "error":
                print(f"    error: {rec['error']}", file=out)

    report = proofs.run(papers, backend=args.backend, on_start=on_start, on_record=on_record)
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
    errors = [r for r in records if r["verdict"] == "error"]
    if args.json:
        json.dump(report, out, indent=1, ensure_ascii=False)
        print(file=out)
    else:
        counts = Counter(r["verdict"] for r in records)
        print("-" * (_ID_W + _VERDICT_W + _METHODS_W + 11), file=out)
        print(
            f"{len(records)} claims in {report['total_seconds']:.1f} s: "
            + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())),
            file=out,
        )
    if args.markdown:
        Path(args.markdown).write_text(_markdown(report), encoding="utf-8")
    if args.write_expected:
        for path in proofs.write_expected(records):
            print(f"wrote {path}", file=err)
        return 0 if not errors else 1
    regressions = report["regressions"]
    for d in regressions:
        print(f"isomat verify: {d['id']}: expected {d['expected']}, computed {d['computed']}", file=err)
    return 1 if (regressions or errors) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="isomat", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"isomat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="run the claims ledger and print the verdicts")
    from .proofs.engine import PAPERS

    v.add_argument("--paper", choices=PAPERS, help="only this paper's claims")
    v.add_argument("--json", action="store_true", help="print the ledger as JSON (conventions.md schema)")
    v.add_argument("--markdown", metavar="FILE", help="also write the ledger as a Markdown table to FILE")
    v.add_argument("--backend", choices=["numpy", "cupy"], default="numpy",
                   help="field for the float checks (default numpy; cupy needs a usable GPU)")
    v.add_argument("--write-expected", action="store_true",
                   help="record the computed verdicts as the regression guard (for developers)")
    v.set_defaults(func=cmd_verify)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args, out or sys.stdout, err or sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
