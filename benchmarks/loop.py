"""The everyday loop's wall times against issue 40's targets: importing isomat and its prover, the
command line's help, four trivial claims of one's own, and one cheap paper claim.

Each leg runs in a fresh process (``python -c``, ``python -m isomat ...``), the legs interleaved so
that a change of load hits all of them; each is reported as min / median / max of ``--repeat`` runs
(default 5) beside its target, with the load average before and after, and the least CPU time a run
took (its processes' user + system time: what a quiet machine's wall time would approach for a leg
that runs one process at a time). A leg whose median is over
twice its minimum is NOISY (``isomat.bench.verdict``'s rule) and gets no verdict; a leg measured at a
machine where other processes kept more than half a core busy meanwhile is LOADED: its figure is reported, its verdict is not
(the targets are for 2 cores at low load).

Targets (issue 40, 2 cores, low load): ``import isomat`` < 0.5 s, ``import isomat.proofs.prover``
< 0.5 s, ``isomat --help`` < 0.5 s, ``isomat verify --claims F`` with four trivial claims < 3 s,
``isomat verify --claim zhu2025:sec4.2.1/display-vs-p`` < 3 s. The prover's lemma library is warmed
in its cache once before the runs (the first process of a new isomat, Z3 or cvc5 version proves it),
and every leg runs once untimed first.

Bytecode: an installed isomat has its modules' bytecode (``pip install`` compiles it), so the legs run
with Python's own bytecode cache (``__pycache__`` beside the sources, written by the warm-up run) even
where the environment says ``PYTHONDONTWRITEBYTECODE`` -- without it every run compiles isomat's
modules from source again (about 0.1 s of CPU for the prover, more for a paper's claims).
``--no-bytecode`` keeps the environment's setting, to compare.

Run: ``python benchmarks/loop.py [--repeat 5] [--quick] [--no-bytecode] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # appended: a benchmarks/ module never shadows a library

#: four trivial claims of one's own (each a few cases, no proof)
CLAIMS = '''
from isomat.proofs.engine import claim, decide, exhaustive

for k in range(4):
    @claim(f"looplab2026:eq{k + 1}", quote="trivial", statement="n + 0 = n for n < 4", methods=["exhaustive"])
    def _trivial():
        return decide(exhaustive(lambda n: n + 0 == n, range(4), describe="n < 4"))
'''
PAPER_CLAIM = "zhu2025:sec4.2.1/display-vs-p"
TARGETS = {"import isomat": 0.5, "import isomat.proofs.prover": 0.5, "isomat --help": 0.5,
           "verify --claims F (4 trivial claims)": 3.0, f"verify --claim {PAPER_CLAIM}": 3.0}


def _legs(claims_file: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {"import isomat": [py, "-c", "import isomat"],
            "import isomat.proofs.prover": [py, "-c", "import isomat.proofs.prover"],
            "isomat --help": [py, "-m", "isomat", "--help"],
            "verify --claims F (4 trivial claims)": [py, "-m", "isomat", "verify", "--claims", str(claims_file)],
            f"verify --claim {PAPER_CLAIM}": [py, "-m", "isomat", "verify", "--claim", PAPER_CLAIM]}


def _cpu() -> float:
    """CPU seconds of the child processes waited for so far (a leg's workers included: each is waited
    for by its parent)."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _run(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``."""
    c0, t0 = _cpu(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[1:])} exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, cpu


def _options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="targets: " + "; ".join(f"{k} < {v:g} s" for k, v in TARGETS.items()))
    ap.add_argument("--json", default=None, help="write the result here (isomat.bench's format)")
    ap.add_argument("--quick", action="store_true", help="two runs per leg")
    ap.add_argument("--repeat", type=int, default=5, help="runs per leg (default 5)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="keep the environment's PYTHONDONTWRITEBYTECODE (default: bytecode cached, as installed)")
    return ap.parse_args()


def main() -> None:
    from isomat.bench import LoadWatch, all_threads, write_result

    args = _options()
    repeat = 2 if args.quick else max(1, args.repeat)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    bytecode = ("bytecode as the environment says" if args.no_bytecode or "PYTHONDONTWRITEBYTECODE" not in os.environ
                else "bytecode cached (the environment's PYTHONDONTWRITEBYTECODE dropped, as for an installed isomat)")
    cpus = all_threads()
    with tempfile.TemporaryDirectory(prefix="isomat-loop-") as tmp:
        claims_file = Path(tmp) / "my_claims.py"
        claims_file.write_text(CLAIMS)
        legs = _legs(claims_file)
        _run([sys.executable, "-c", "from isomat.proofs import prover; prover.FLATTENING_LEMMAS"], env, tmp)
        for cmd in legs.values():  # untimed: the bytecode written, the files in the page cache
            _run(cmd, env, tmp)
        times: dict[str, list[float]] = {name: [] for name in legs}
        cpus_used: dict[str, list[float]] = {name: [] for name in legs}
        with LoadWatch() as lw:
            for _ in range(repeat):
                for name, cmd in legs.items():  # interleaved: a change of load hits every leg
                    wall, cpu = _run(cmd, env, tmp)
                    times[name].append(wall)
                    cpus_used[name].append(cpu)
    loads = [x for x in (lw.before, lw.after) if x is not None]
    # other processes kept more than half a core busy (or, without /proc/stat, the load exceeded the CPUs)
    loaded = lw.others > 0.5 if lw.others is not None else bool(loads) and max(loads) > cpus
    print(f"the everyday loop: {repeat} interleaved runs per leg, fresh processes, {bytecode}; {lw.text}")
    figures, ratios, notes = [], [], []
    for name, ts in times.items():
        lo, med, hi = min(ts), statistics.median(ts), max(ts)
        target = TARGETS[name]
        noisy = med > 2 * lo
        verdict = ("no verdict (NOISY)" if noisy else "no verdict (LOADED)" if loaded
                   else "met" if med < target else "not met")
        cpu = min(cpus_used[name])
        print(f"  {name:45s} {lo:6.2f} / {med:6.2f} / {hi:6.2f} s (min / median / max; CPU min {cpu:.2f} s)  "
              f"target < {target:g} s: {verdict}")
        figures.append({"name": name, "value": med, "unit": "s", "stat": "median", "repeats": repeat,
                        "min": lo, "max": hi, "cpu_seconds_min": cpu})
        ratios.append({"name": f"{name} / target", "value": med / target, "numerator": name,
                       "denominator": f"target {target:g} s", "target": "<= 1",
                       **({"verdict": verdict} if verdict in ("met", "not met") else {})})
        notes.append(f"{name}: {lo:.2f} / {med:.2f} / {hi:.2f} s (CPU min {cpu:.2f} s), target < {target:g} s: "
                     f"{verdict}")
    write_result(args.json, {"benchmark": "loop", "figures": figures, "ratios": ratios, "notes": notes + [bytecode],
                             "load": lw.text})


if __name__ == "__main__":
    main()
