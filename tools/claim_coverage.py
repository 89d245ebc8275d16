"""Branch coverage of each certified ``isomat.algebra`` function by the ledger claims that certify it.

Issue 36, item 1: "the branch coverage of each certified builder by its claims is measured and reported
per module" (target: 95% per certified builder). The functions are those of :mod:`tools.certified`
(the certified builders, entry rules and backward passes, and their module-private helpers); the claims
run in this process through :func:`isomat.proofs.engine.run_claim`, under coverage.py with branch
measurement and one dynamic context per claim, every ``functools`` cache of isomat emptied before each
claim (a claim that read a cached matrix would not run its builder), with one thread and without the
cvc5 re-check (the proofs are not what is measured).

The same run derives ``tools/certifies.json`` (``--write-map``): for each function in scope, the claims
whose run executed it -- the claims the mutation run (``tools/mutation.py``) holds against it. Measured
only on claims that run a function, its coverage by "its claims" is its coverage by the whole ledger.

Usage (from the repository root)::

    python -m tools.claim_coverage                      # every module in scope, the claims in the map
    python -m tools.claim_coverage --module conv --module pool --json cov.json
    python -m tools.claim_coverage --write-map          # run the whole ledger, rewrite tools/certifies.json

``--gpu-standin`` runs the claims once more in the cupy field, on the test suite's CuPy stand-in, and counts the
device arms they execute too (a verdict that differs from the CPU run's is printed).

Prints one row per function (statements, branches, branch coverage, the missed branches as
``line->line``, the claims) and one per module; exits 1 when a certified function's branch coverage (its
own and its helpers' branches) is below ``--threshold``. A *guard arc* is a branch into a ``raise``
statement, or into a block of plain statements ending in one (bad input refused): no claim passes bad input
(the test suite does), so the threshold is held against the branches without them unless ``--count-guards``;
both figures are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

# before isomat is imported: one thread (worker threads started before coverage would go unmeasured)
# and no cvc5 re-check
if __name__ == "__main__":  # run as the tool (never set for a process importing it)
    os.environ.setdefault("ISOMAT_NUM_THREADS", "1")
    os.environ["ISOMAT_RECHECK"] = "0"

from tools import certified  # noqa: E402


def isomat_caches() -> list[Any]:
    """Every ``functools`` cache of isomat that exists now (module level ones exist from import on)."""
    return [obj for obj in gc.get_objects()
            if isinstance(obj, functools._lru_cache_wrapper)
            and (getattr(obj, "__module__", "") or "").startswith("isomat")]


def load_ledger(papers: list[str] | None = None) -> dict[str, Any]:
    """Import the claims modules (all papers by default), turn the cvc5 re-check off; the registry."""
    from isomat import proofs
    from isomat.proofs import prover
    from isomat.proofs.engine import REGISTRY

    prover.set_recheck(False)
    proofs.load(papers)
    return REGISTRY


#: the suffix of a claim's coverage context in the GPU-field pass (``--gpu-standin``)
GPU_CONTEXT = "@cupy"


def measure(claim_ids: list[str], modules: list[str], *, gpu_standin: bool = False
            ) -> tuple[Any, dict[str, float], dict[str, tuple[str, Any]]]:
    """Run ``claim_ids`` under coverage (branch, one context per claim), measuring the files of ``modules``.
    ``gpu_standin``: then run them again with the float checks in the cupy field (``isomat verify --backend
    cupy``), on the test suite's CuPy stand-in (``tests/cupy_standin``, NumPy underneath), in contexts
    ``<claim id>@cupy``: the builders' device arms are what a run on a GPU executes.

    Returns (the stopped ``coverage.Coverage``, seconds per claim, (verdict, strength) per claim; of the CPU
    pass)."""
    import coverage

    from isomat.proofs.engine import REGISTRY, run_claim

    files = sorted({certified.span(m, certified.scope([m])[m][0])[0] for m in modules})
    cov = coverage.Coverage(branch=True, data_file=None, include=files, config_file=False)
    caches = isomat_caches()
    seconds: dict[str, float] = {}
    verdicts: dict[str, tuple[str, Any]] = {}

    def one_pass(suffix: str) -> None:
        for cid in claim_ids:
            for c in caches:
                c.cache_clear()
            cov.switch_context(cid + suffix)
            t0 = time.perf_counter()
            rec = run_claim(REGISTRY[cid])
            if not suffix:
                seconds[cid] = round(time.perf_counter() - t0, 3)
                verdicts[cid] = (rec["verdict"], rec["strength"])
            elif (rec["verdict"], rec["strength"]) != verdicts[cid]:  # the fields must agree, as on a device
                print(f"{cid}: {rec['verdict']}/{rec['strength']} in the cupy field, {'/'.join(map(str, verdicts[cid]))} "
                      "on the CPU", file=sys.stderr)

    cov.start()
    try:
        one_pass("")
        if gpu_standin:
            with _standin_installed():
                from isomat.proofs.engine import using_float_backend

                with using_float_backend("cupy"):
                    one_pass(GPU_CONTEXT)
    finally:
        cov.stop()
    return cov, seconds, verdicts


@contextlib.contextmanager
def _standin_installed():
    """The test suite's CuPy stand-in in ``sys.modules`` for the block (the device probe re-run on entry and exit).
    Only the stand-in's own names are put back afterwards: a module first imported inside the block stays (clearing
    ``sys.modules`` back to a copy, as ``mock.patch.dict`` does, would load such a module twice)."""
    from isomat.gpu import gpu_status

    sys.path.insert(0, str(certified.ROOT / "tests"))
    try:
        import cupy_standin
    finally:
        sys.path.pop(0)
    saved = {name: sys.modules.get(name) for name in cupy_standin.NAMES}
    sys.modules.update(cupy_standin.load())
    try:
        ok, reason = gpu_status(refresh=True)
        if not ok:
            raise RuntimeError(f"the CuPy stand-in does not pass the device probe: {reason}")
        yield
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        gpu_status(refresh=True)


def _refusal_blocks(text: list[str]) -> set[int]:
    """First lines of the blocks that only refuse: straight-line simple statements (the message's parts, assigned
    before it) ending in a ``raise`` -- a branch into one is a guard arc as much as a branch into the ``raise``."""
    import ast

    simple = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Pass)
    firsts: set[int] = set()
    for node in ast.walk(ast.parse("\n".join(text))):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if (isinstance(block, list) and block and isinstance(block[-1], ast.Raise)
                    and all(isinstance(st, simple) for st in block[:-1])):
                firsts.add(block[0].lineno)
    return firsts


def per_function(cov: Any, modules: list[str]) -> dict[str, dict[str, Any]]:
    """"module:function" -> its statements, branches, coverage and the claims that ran it.

    A function's lines are its body (the ``def`` line runs at import, before measuring starts)."""
    data = cov.get_data()
    out: dict[str, dict[str, Any]] = {}
    for m in modules:
        names = certified.scope([m])[m]
        filename = certified.span(m, names[0])[0]
        analysis = cov._analyze(filename)  # coverage.py's own per-file analysis (statements, arcs)
        by_line = data.contexts_by_lineno(filename)
        missing_arcs = analysis.missing_branch_arcs()
        branch_lines = set(analysis._branch_lines())
        text = Path(filename).read_text(encoding="utf-8").splitlines()
        # a guard arc: a branch into a `raise` (bad input refused); no claim passes bad input, the test
        # suite does (tests/test_guards_everywhere.py), so coverage is also given without them
        raising = {i + 1 for i, line in enumerate(text) if line.lstrip().startswith("raise ")} | _refusal_blocks(text)
        for name in names:
            _, first, last = certified.span(m, name)
            body = range(first + 1, last + 1)
            statements = [ln for ln in body if ln in analysis.statements]
            executed = [ln for ln in statements if ln in analysis.executed]
            blines = [ln for ln in body if ln in branch_lines]
            n_branches = sum(analysis.exit_counts[ln] for ln in blines)
            missed = [f"{a}->{b}" for a in blines for b in missing_arcs.get(a, [])]
            guard_arcs = {(a, b) for (a, b) in analysis.arc_possibilities if a in blines and b in raising}
            guards_missed = sum(1 for a in blines for b in missing_arcs.get(a, []) if (a, b) in guard_arcs)
            nb = n_branches - len(guard_arcs)
            nbr = n_branches - len(missed) - (len(guard_arcs) - guards_missed)
            claims = sorted({c.removesuffix(GPU_CONTEXT) for ln in body for c in by_line.get(ln, []) if c})
            out[f"{m}:{name}"] = {
                "module": certified.short(m), "function": name, "certified": name in certified.CERTIFIED[m],
                "lines": [first, last], "statements": len(statements), "statements_run": len(executed),
                "branches": n_branches, "branches_run": n_branches - len(missed),
                "branch_coverage": round((n_branches - len(missed)) / n_branches, 4) if n_branches else None,
                "guard_branches": len(guard_arcs), "branches_no_guards": nb, "branches_run_no_guards": nbr,
                "branch_coverage_no_guards": round(nbr / nb, 4) if nb else None,
                "line_coverage": round(len(executed) / len(statements), 4) if statements else None,
                "missed_lines": [ln for ln in statements if ln not in analysis.executed],
                "missed_branches": missed, "claims": claims,
            }
    return out


def rollup(rows: dict[str, dict[str, Any]], modules: list[str]) -> dict[str, dict[str, Any]]:
    """Per certified function: its own and its helpers' numbers together (each helper counted once per
    certified function that reaches it); per module: every function in scope once."""
    import importlib

    out: dict[str, dict[str, Any]] = {}
    for m in modules:
        module = importlib.import_module(m)
        mod_rows = [r for k, r in rows.items() if k.startswith(m + ":")]
        for name in certified.CERTIFIED[m]:
            parts = [name] + certified._helpers(module, (name,))
            rs = [rows[f"{m}:{p}"] for p in parts if f"{m}:{p}" in rows]
            b = sum(r["branches"] for r in rs)
            br = sum(r["branches_run"] for r in rs)
            g = sum(r["branches_no_guards"] for r in rs)
            gr = sum(r["branches_run_no_guards"] for r in rs)
            out[f"{m}:{name}"] = {"with_helpers": parts[1:], "branches": b, "branches_run": br,
                                  "claims": len(rows[f"{m}:{name}"]["claims"]) if f"{m}:{name}" in rows else 0,
                                  "branch_coverage": round(br / b, 4) if b else None,
                                  "branches_no_guards": g, "branches_run_no_guards": gr,
                                  "branch_coverage_no_guards": round(gr / g, 4) if g else None}
        b = sum(r["branches"] for r in mod_rows)
        br = sum(r["branches_run"] for r in mod_rows)
        g = sum(r["branches_no_guards"] for r in mod_rows)
        gr = sum(r["branches_run_no_guards"] for r in mod_rows)
        s = sum(r["statements"] for r in mod_rows)
        sr = sum(r["statements_run"] for r in mod_rows)
        out[certified.short(m)] = {"functions": len(mod_rows), "statements": s, "statements_run": sr,
                                   "branches": b, "branches_run": br,
                                   "branch_coverage": round(br / b, 4) if b else None,
                                   "branches_no_guards": g, "branches_run_no_guards": gr,
                                   "branch_coverage_no_guards": round(gr / g, 4) if g else None,
                                   "line_coverage": round(sr / s, 4) if s else None}
    return out


def _pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.claim_coverage", description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", help="a module in scope (conv, pool, ...); repeatable; default all")
    ap.add_argument("--threshold", type=float, default=0.95,
                    help="least branch coverage of each certified function with its helpers (default 0.95)")
    ap.add_argument("--count-guards", action="store_true",
                    help="hold the threshold against every branch, the arcs into a `raise` (bad input) included; "
                         "by default those guard arcs are left out, as the mutation run leaves out raise statements")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--write-map", action="store_true",
                    help="run every claim of the ledger and rewrite tools/certifies.json from what each ran")
    ap.add_argument("--gpu-standin", action="store_true",
                    help="run the claims a second time in the cupy field, on the test suite's CuPy stand-in, and count "
                         "the device arms they execute (a claim's id is listed once)")
    args = ap.parse_args(argv)
    if not 0.0 <= args.threshold <= 1.0:
        ap.error(f"--threshold must be in [0, 1], got {args.threshold}")
    try:
        modules = [certified.module_name(m) for m in args.module] if args.module else list(certified.CERTIFIED)
    except ValueError as exc:
        ap.error(str(exc))
    if args.write_map and args.module:
        ap.error("--write-map runs the whole ledger over every module in scope; leave out --module")
    if args.write_map and args.gpu_standin:
        ap.error("--write-map records what the CPU run executes (the mutation run's claims); leave out --gpu-standin")
    registry = load_ledger()
    if args.write_map:
        claim_ids = sorted(registry)
    else:
        cmap = certified.load_map()["functions"]
        claim_ids = sorted({c for k, cs in cmap.items() if k.split(":")[0] in modules for c in cs})
        unknown = [c for c in claim_ids if c not in registry]
        if unknown:
            print(f"tools/certifies.json names claims the ledger no longer has: {unknown}; rerun --write-map",
                  file=sys.stderr)
            claim_ids = [c for c in claim_ids if c in registry]
    t0 = time.perf_counter()
    cov, seconds, verdicts = measure(claim_ids, modules, gpu_standin=args.gpu_standin)
    wall = time.perf_counter() - t0
    rows = per_function(cov, modules)
    totals = rollup(rows, modules)
    if args.write_map:
        mapping = {"derived_by": "python -m tools.claim_coverage --write-map",
                   "source_digest": certified.source_digest(),
                   "functions": {k: r["claims"] for k, r in rows.items()},
                   "seconds": {c: seconds[c] for c in sorted(seconds)},
                   "verdicts": {c: list(verdicts[c]) for c in sorted(verdicts)}}
        certified.MAP_PATH.write_text(json.dumps(mapping, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {certified.MAP_PATH} ({len(claim_ids)} claims run in {wall:.1f} s)")
    failing = []
    print(f"{'function':44s} {'stmts':>9s} {'branches':>9s} {'branch%':>7s}  claims  missed branches")
    for m in modules:
        for k, r in rows.items():
            if not k.startswith(m + ":"):
                continue
            mark = "" if r["certified"] else "  (helper)"
            print(f"{certified.short(m) + '.' + r['function'] + mark:44s} {r['statements_run']:4d}/{r['statements']:<4d}"
                  f" {r['branches_run']:4d}/{r['branches']:<4d} {_pct(r['branch_coverage'])}  {len(r['claims']):6d}"
                  f"  {' '.join(r['missed_branches'][:8])}{' ...' if len(r['missed_branches']) > 8 else ''}")
    print()
    key = "branch_coverage" if args.count_guards else "branch_coverage_no_guards"
    print(f"{'certified function (with its helpers)':44s} {'branches':>9s} {'branch%':>7s} {'no guards':>9s} "
          f"{'branch%':>7s}")
    for m in modules:
        for name in certified.CERTIFIED[m]:
            t = totals[f"{m}:{name}"]
            # a function no claim runs fails whatever its branch count (one without branches reads "-")
            ok = (t[key] is None or t[key] >= args.threshold) and t["claims"] > 0
            if not ok:
                failing.append(f"{m}:{name}")
            print(f"{certified.short(m) + '.' + name:44s} {t['branches_run']:4d}/{t['branches']:<4d} "
                  f"{_pct(t['branch_coverage'])} {t['branches_run_no_guards']:4d}/{t['branches_no_guards']:<4d} "
                  f"{_pct(t['branch_coverage_no_guards'])}{'' if ok else '  BELOW' if t['claims'] else '  NO CLAIM RUNS IT'}")
    print()
    print(f"{'module':14s} {'functions':>9s} {'lines':>11s} {'line%':>6s} {'branches':>11s} {'branch%':>7s} "
          f"{'no guards':>11s} {'branch%':>7s}")
    for m in modules:
        t = totals[certified.short(m)]
        print(f"{certified.short(m):14s} {t['functions']:9d} {t['statements_run']:5d}/{t['statements']:<5d} "
              f"{_pct(t['line_coverage'])} {t['branches_run']:5d}/{t['branches']:<5d} {_pct(t['branch_coverage'])} "
              f"{t['branches_run_no_guards']:5d}/{t['branches_no_guards']:<5d} {_pct(t['branch_coverage_no_guards'])}")
    print(f"\n{len(claim_ids)} claims run in {wall:.1f} s; {len(failing)} certified function(s) below "
          f"{100 * args.threshold:.0f}% branch coverage ({'guard arcs counted' if args.count_guards else 'guard arcs into a raise left out'})")
    if args.json:
        args.json.write_text(json.dumps({"threshold": args.threshold, "count_guards": args.count_guards,
                                         "claims_run": len(claim_ids),
                                         "seconds": round(wall, 1), "functions": rows, "totals": totals,
                                         "below_threshold": failing}, indent=1) + "\n", encoding="utf-8")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
