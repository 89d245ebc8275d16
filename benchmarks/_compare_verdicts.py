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
import re
import sys


def classify(text: str) -> str | None:
    t = text.lower()
    if "bound wrong" in t:
        return "BOUND WRONG"
    if "impossible" in t:
        return "IMPOSSIBLE"
    for k in ("noisy", "loaded", "disturbed", "collapsed"):
        if k in t:
            return f"no verdict ({k})"
    if "not met" in t:
        return "not met"
    if re.search(r"\bmet\b", t):
        return "met"
    return None


def verdicts(path: str) -> dict[tuple[str, str], str]:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    out: dict[tuple[str, str], str] = {}
    for s in report["benchmarks"]:
        name = s["name"]
        for q in (s.get("result") or {}).get("ratios", []) or []:
            key = re.sub(r"\s*--\s*(met|not met|noisy|loaded|disturbed|measured|bound wrong).*$", "", q["name"])
            c = classify(q["verdict"]) if q.get("verdict") else (
                classify(q["name"].split("--")[-1]) if "--" in q["name"] else None)
            if c:
                out[(name, key)] = c
        section = ""
        for line in (s.get("stdout") or "").splitlines():
            if line and not line.startswith(" "):
                section = line.strip()[:60]
            stripped = line.strip()
            if "[" in line and any(w in line for w in ("target", "loaded", "noisy", "bound wrong")):
                key = section + " | " + re.split(r"\s{2,}\d", stripped)[0].split(" [bound")[0]
                c = classify(line[line.index("["):])
                if c:
                    out[(name, key)] = c
            elif stripped.startswith("target (no slower"):
                key = section + " | " + re.sub(r"^.*?(\d) thread\(s\).*$", r"target, \1 thread(s)", stripped)
                c = classify(stripped.split(":", 2)[-1])
                if c:
                    out[(name, key)] = c
    return out


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
