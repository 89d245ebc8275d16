"""Compare the verdicts of two ``isomat bench`` JSON reports, e.g. one from a quiet machine and one
from a loaded one: ``python benchmarks/_compare_verdicts.py QUIET.json LOADED.json``.

Each verdict -- a ratio's ``verdict`` in a script's JSON result, or a ``[target ...]`` / ``[loaded ...]``
/ ``[noisy ...]`` mark in a text-only script's output -- is classified as met, not met, or no verdict
(noisy, loaded, disturbed); a line judged "met" in one report and "not met" in the other is a
contradiction, and a ratio below its physical bound ("bound wrong") or an impossible thread column is
flagged. Exit status 1 when there is either. (Not a benchmark: the leading underscore keeps
``isomat bench`` from running it.)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # appended: never shadows an installed isomat


from isomat.bench import report_verdicts  # noqa: E402  (one classifier, shared with the report)


def verdicts(path: str) -> dict[tuple[str, str], str]:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    return {(v["benchmark"], v["name"]): v["verdict"] for v in report_verdicts(report) if v["verdict"] != "measured"}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[1].strip(), file=sys.stderr)
        return 2
    a, b = verdicts(argv[0]), verdicts(argv[1])
    bad = 0
    for k in sorted(set(a) | set(b)):
        va, vb = a.get(k, "-"), b.get(k, "-")
        flag = ""
        if {va, vb} == {"met", "not met"}:
            flag = "  <== CONTRADICTION"
        elif {va, vb} & {"BOUND WRONG", "IMPOSSIBLE"}:
            flag = "  <== impossible"
        bad += bool(flag)
        print(f"{k[0]:12s} {k[1][:90]:90s} | {va:22s} | {vb:22s}{flag}")
    print(f"\n{len(set(a) | set(b))} verdict lines; {bad} contradictions or impossible results")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
