"""The claims ledger's wall time: the whole of ``isomat verify`` against its 60 s budget, with one
worker and with one per CPU.

Timing left the test suite (a wall-clock assertion fails on a busy machine without any defect); this
script measures it instead. Each repeat runs ``isomat verify --json`` in a fresh process -- with
``--jobs 1`` and with ``--jobs N`` (N = the CPUs this process may use, the default), interleaved so
that a change of load hits both -- and reports min / median / max of the ledger's own total (and the
process wall time, start-up included), the parallel speedup as the ratio of minimums and of medians
(``isomat.bench.verdict``: NOISY, no verdict, when a median is over twice its minimum), the sum of
the claims' own times against the longest claim (what perfect balancing could reach), the slowest
claims and the load average before and after.

What the parallel ledger gives (issue 29, measured on the 2-core development VM, 3 interleaved runs
each, load 0.78 before and 1.83 after, another job holding one core for part of the run): ``--jobs 1``
52.7 / 55.2 / 57.8 s (min / median / max), ``--jobs 2`` 30.2 / 48.6 / 51.4 s. The speedup is real
when the second core is free -- 1.74x of the minimums, against an ideal of about 2x (the claims'
times sum to 50 s, the longest claim takes 6 s) less the workers' start-up -- and vanishes when
another job holds a core (1.14x of the medians; the issue's 26 vs 27 s at load 3). The dispatch is
already dynamic (an idle worker takes the next claim), so a worker waits on the machine, not on an
unbalanced split.

Issue 36 (2026-11-29, the same VM, 2 interleaved runs each, load 1.33 before and 1.59 after): ``--jobs 2``
40.1 / 42.4 / 44.6 s, ``--jobs 1`` 87.9 / 91.8 / 95.6 s (the claims' own times sum to 87.2 s; the longest claim
takes 6.2 s): under the budget since each worker takes a run of neighbouring claims, repeated proof requests are
answered once per worker, and the prover compares terms by id rather than by their SMT-LIB text.

Run: ``python benchmarks/ledger.py [--repeat 3] [--quick] [--claims PATH] [--json PATH]``. ``--claims PATH`` times
``isomat verify --claims PATH`` (your own claims) instead of the ledger; the test suite runs the script that way on
two small claims, which checks the script without timing two runs of a paper's ledger.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # appended: a benchmarks/ module never shadows a library

BUDGET_S = 60.0


def _verify(jobs: int | None, papers: list[str], claims: str | None = None) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "isomat", "verify", "--json"] + (["--claims", claims] if claims else [])
    for p in papers:
        cmd += ["--paper", p]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=1800)
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"isomat verify exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def main() -> None:
    from isomat.bench import LoadWatch, Timing, all_threads, timing_figure, verdict, verdict_text, write_result

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one repeat of one paper (reneau2025)")
    ap.add_argument("--claims", default=None, help="time isomat verify --claims PATH instead of the ledger")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    repeat = 1 if args.quick else max(1, args.repeat)
    claims = str(Path(args.claims).resolve()) if args.claims else None  # verify runs in the repository root
    papers = ["reneau2025"] if args.quick and not claims else []
    what = f"--claims {args.claims}" if claims else ("--paper reneau2025" if args.quick else "")
    n = all_threads()
    order = [("--jobs 1", 1)] + ([(f"--jobs {n}", n)] if n > 1 else [])
    legs = {name: Timing(name, threads=j) for name, j in order}  # the ledger's own total_seconds
    walls: dict[str, list[float]] = {name: [] for name, _ in order}  # the process, startup included
    claim_sum: dict[str, list[float]] = {name: [] for name, _ in order}
    slowest: dict[str, float] = {}
    with LoadWatch() as lw:
        for _ in range(repeat):
            for name, jobs in order:  # interleaved: a change of load hits both
                wall, data = _verify(jobs, papers, claims)
                walls[name].append(wall)
                legs[name].times.append(float(data["total_seconds"]))
                claim_sum[name].append(sum(float(r["seconds"]) for r in data["claims"]))
                for r in data["claims"]:
                    slowest[r["id"]] = max(slowest.get(r["id"], 0.0), float(r["seconds"]))
    figures, ratios, notes = [], [], []
    print(f"isomat verify{' ' + what if what else ''}: {repeat} interleaved runs per leg; {lw.text}")
    for name, t in legs.items():
        figures.append(timing_figure(f"ledger total, {name}", t, "s", process_wall_min=min(walls[name]),
                                     claim_seconds_sum_min=min(claim_sum[name])))
        print(f"  {name:10s} ledger {t.text(1, 's'):>26s} | process wall min {min(walls[name]):.1f} s | "
              f"sum of claim times min {min(claim_sum[name]):.1f} s")
    longest = max(slowest.values()) if slowest else 0.0
    if len(order) > 1:
        one, many = legs[order[0][0]], legs[order[1][0]]
        v = verdict(f"parallel speedup ({order[0][0]} / {order[1][0]})", one, many, load=lw)
        ratios.append(v)
        print("  " + verdict_text(v))
        ideal = max(min(claim_sum[order[0][0]]) / n, longest)
        notes.append(f"parallel speedup: {v['min_ratio']:.2f}x of minimums, {v['value']:.2f}x of medians with {n} "
                     f"workers on {os.cpu_count()} logical CPUs ({lw.text}); the claims' own times sum to "
                     f"{min(claim_sum[order[0][0]]):.1f} s and the longest claim takes {longest:.1f} s, so {n} "
                     f"perfectly balanced workers could at best reach {ideal:.1f} s plus their start-up "
                     f"(each worker is a spawned process that imports the claims' libraries)")
        print("  " + notes[-1])
    budget = figures[-1] | {"name": "budget (conventions)", "value": BUDGET_S, "unit": "s", "stat": "bound"}
    for f in figures:
        ratios.append({"name": f"{f['name']} / budget", "value": f["value"] / BUDGET_S, "numerator": f["name"],
                       "denominator": budget["name"]})
    top = sorted(slowest.items(), key=lambda kv: -kv[1])[:8]
    notes.append("slowest claims (max over repeats): " + ", ".join(f"{k} {v:.2f} s" for k, v in top))
    for name, t in legs.items():
        if t.noisy:
            notes.append(f"{name}: NOISY (median {t.median:.1f} s > 2x min {t.min:.1f} s): no verdict")
    if not args.quick and not claims:
        best = legs[order[-1][0]]
        verdict_60 = "no verdict (noisy)" if best.noisy else ("met" if best.median < BUDGET_S else "missed")
        notes.append(f"the 60 s budget with {order[-1][0]} (the default): {verdict_60}")
    write_result(args.json, {"benchmark": "ledger", "figures": figures, "ratios": ratios, "notes": notes})


if __name__ == "__main__":
    main()
