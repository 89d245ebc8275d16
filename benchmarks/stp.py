"""STP, DK-STP and the projection Π against the naive Kronecker formulas of cheng2025 (CPU).

Operands (stated, not tuned): ``A`` is m×n and ``B`` is p×q with m = q = 64 (``--width``), a
realistic layer width, for all of ``stp`` and ``dk_stp``; the projection maps R^n -> R^p. Dimension
pairs (n, p), all with lcm(n, p) >= 2000: coprime balanced (40, 53), (60, 61); a shared factor
(96, 100); divisible (50, 2000), (2000, 50); coprime skewed (7, 300), (300, 7). In the same run:

* ``isomat.algebra.stp(A, B)`` vs ``np.kron(A, I_{t/n}) @ np.kron(B, I_{t/p})`` (eq. 12),
* ``isomat.algebra.dk_stp(A, B)`` vs ``np.kron(A, 1ᵀ_{t/n}) @ np.kron(B, 1_{t/p})`` (eq. 13),
* ``isomat.algebra.projection(n, p)`` (sparse, n + p - gcd entries) and the matrix-free
  ``project(x, p)`` vs ``(p/t) (I_p ⊗ 1ᵀ_{t/p}) (I_n ⊗ 1_{t/n})`` built densely (eq. 22) (times x
  for the matrix-free comparison),

medians over >= 5 repeats, every ratio naive / isomat and per shape and method whether the target
(>= 100x when lcm >= 2000) is met, two ways measured in the same repetitions: "cold" (one call of
each side, alternated, so each call finds the other side's data in the caches) and "warm" (a
timeit-style batch of back-to-back calls, per-call mean). Then, for each method, the largest lcm it handles within 1 second (coprime pairs (k, k + 1),
k growing by about sqrt 2) and the peak memory of that run (tracemalloc). Other jobs may share the
cores: timings are noisy, and the load average is printed at the start and the end.

Run: ``python3 benchmarks/stp.py [--quick] [--json PATH] [--width W] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from isomat.bench import figure, ratio, time_median, write_result  # noqa: E402
from isomat.algebra import dk_stp, project, projection, stp  # noqa: E402
from isomat.errors import SizeLimitError  # noqa: E402


def naive_stp(A, B):
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    return np.kron(A, np.eye(t // n)) @ np.kron(B, np.eye(t // p))


def naive_dk(A, B):
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    return np.kron(A, np.ones((1, t // n))) @ np.kron(B, np.ones((t // p, 1)))


def naive_projection(m, n):
    t = math.lcm(m, n)
    return (n / t) * np.kron(np.eye(n), np.ones((1, t // n))) @ np.kron(np.eye(m), np.ones((t // m, 1)))


def methods(m: int, q: int, rng):
    """name -> (builder(n, p) returning a zero-arg callable, naive-or-isomat, memory estimate in bytes)."""

    def mats(n, p):
        return rng.standard_normal((m, n)), rng.standard_normal((p, q))

    def stp_iso(n, p):
        A, B = mats(n, p)
        return lambda: stp(A, B)

    def stp_naive(n, p):
        A, B = mats(n, p)
        return lambda: naive_stp(A, B)

    def dk_iso(n, p):
        A, B = mats(n, p)
        return lambda: dk_stp(A, B)

    def dk_naive(n, p):
        A, B = mats(n, p)
        return lambda: naive_dk(A, B)

    def proj_iso(n, p):
        return lambda: projection(n, p)

    def proj_free(n, p):
        x = rng.standard_normal(n)
        return lambda: project(x, p)

    def proj_naive(n, p):
        return lambda: naive_projection(n, p)

    def t_of(n, p):
        return math.lcm(n, p)

    return {
        "stp": (stp_iso, lambda n, p: 8 * (m * q * t_of(n, p) // math.gcd(n, p) + m * t_of(n, p) + t_of(n, p) * q)),
        "stp naive": (stp_naive, lambda n, p: 8 * ((m * t_of(n, p) // n) * t_of(n, p) + t_of(n, p) * (q * t_of(n, p) // p))),
        "dk_stp": (dk_iso, lambda n, p: 8 * (m * n + p * q + 4 * (n + p))),
        "dk_stp naive": (dk_naive, lambda n, p: 8 * (m + q) * t_of(n, p)),
        "projection": (proj_iso, lambda n, p: 48 * (n + p)),
        "project (matrix-free)": (proj_free, lambda n, p: 40 * (n + p)),
        "projection naive": (proj_naive, lambda n, p: 8 * (n + p) * t_of(n, p)),
    }


SHAPES = [
    ("coprime, balanced", 40, 53),
    ("coprime, balanced", 60, 61),
    ("shared factor 4", 96, 100),
    ("divisible, p = 40 n", 50, 2000),
    ("divisible, n = 40 p", 2000, 50),
    ("coprime, skewed", 7, 300),
    ("coprime, skewed", 300, 7),
]


def _load() -> str:
    try:
        a, b, c = os.getloadavg()
        return f"load average {a:.2f} {b:.2f} {c:.2f}"
    except OSError:
        return "load average n/a"


def _machine_line() -> str:
    import platform

    import scipy

    from isomat.bench import cpu_model

    cpu = cpu_model() or platform.processor() or platform.machine()
    return (f"machine: {cpu} | {os.cpu_count()} logical CPUs | Python {platform.python_version()} | "
            f"numpy {np.__version__} | scipy {scipy.__version__}")


def _batch(fn, k: int) -> float:
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def _alternate(f_iso, f_nv, repeats: int) -> dict[str, float]:
    """Medians of isomat and naive, two ways, in the same repetitions:

    * cold: one call of each, alternated (each call follows the other side's work, so the
      caches hold the other side's data: what one call costs in a mixed workload);
    * warm: a timeit-style batch of back-to-back calls of each (about 20 ms per batch, at least
      one call), the per-call mean.
    """
    t_i0 = _batch(f_iso, 1)
    t_n0 = _batch(f_nv, 1)
    k_i = max(1, min(2000, int(0.02 / max(t_i0, 1e-7))))
    k_n = max(1, min(200, int(0.02 / max(t_n0, 1e-7))))
    ci, cn, wi, wn = [], [], [], []
    for _ in range(repeats):
        ci.append(_batch(f_iso, 1))
        cn.append(_batch(f_nv, 1))
        wi.append(_batch(f_iso, k_i))
        wn.append(_batch(f_nv, k_n))
    med = statistics.median
    return {"cold_iso": med(ci), "cold_naive": med(cn), "warm_iso": med(wi), "warm_naive": med(wn)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=None, help="repeats per timing (default 5; --quick 3)")
    ap.add_argument("--width", type=int, default=64, help="m = rows of A = q = columns of B")
    args = ap.parse_args()
    repeats = args.repeat or (3 if args.quick else 5)
    m = q = args.width
    rng = np.random.default_rng(0)
    M = methods(m, q, rng)
    shapes = SHAPES if not args.quick else [SHAPES[0], SHAPES[3]]
    figures, ratios, notes, verdicts = [], [], [], []
    print(_machine_line())
    print(f"start: {_load()}  (other jobs may share the cores; timings are noisy)")
    print(f"A is {m}×n, B is p×{q} for stp and dk_stp; medians over {repeats} repeats; cold = single calls alternated,")
    print("warm = timeit-style batches of back-to-back calls (per-call mean), both in the same repetitions;")
    print("naive runs estimated over 2 GiB are not run (reported, not hidden)")
    for kind, n, p in shapes:
        t = math.lcm(n, p)
        print(f"\n(n, p) = ({n}, {p}) [{kind}], lcm = {t}, gcd = {math.gcd(n, p)}")
        for base, nv in (("stp", "stp naive"), ("dk_stp", "dk_stp naive"), ("projection", "projection naive"),
                         ("project (matrix-free)", "projection naive")):
            need = M[nv][1](n, p)
            f_iso = M[base][0](n, p)
            if need > 2 * 2**30:
                ti = time_median(f_iso, repeats=repeats)[0]
                print(f"  {base:22s} isomat {ti * 1e3:10.3f} ms   naive NOT RUN (needs ~{need / 2**30:.1f} GiB)  "
                      f"-> target not measured")
                notes.append(f"{nv} at (n, p) = ({n}, {p}) not run: needs ~{need / 2**30:.1f} GiB")
                verdicts += [(base, "cold", n, p, t, None), (base, "warm", n, p, t, None)]
                continue
            f_nv = M[nv][0](n, p)
            if base == "project (matrix-free)":
                x = rng.standard_normal(n)
                f_nv = (lambda P=f_nv, x=x: P() @ x)
            tm = _alternate(f_iso, f_nv, repeats)
            line = f"  {base:22s}"
            for mode in ("cold", "warm"):
                ti, tn = tm[f"{mode}_iso"], tm[f"{mode}_naive"]
                fi = figure(f"{base} (n={n}, p={p}, {mode})", ti, "s", repeats=repeats, n=n, p=p, lcm=t, m=m, q=q)
                fn_ = figure(f"{nv} (n={n}, p={p}, {mode}) [vs {base}]", tn, "s", repeats=repeats, n=n, p=p, lcm=t,
                             m=m, q=q)
                r = ratio(f"{base}: naive / isomat (n={n}, p={p}, lcm {t}, {mode})", fn_, fi)
                figures += [fi, fn_]
                ratios.append(r)
                ok = r["value"] >= 100
                verdicts.append((base, mode, n, p, t, ok))
                line += (f" | {mode}: isomat {ti * 1e3:8.3f} ms naive {tn * 1e3:9.3f} ms = {r['value']:7.1f}x "
                         f"{'MET' if ok else 'NOT MET'}")
            print(line)

    print("\nsummary of the 100x target (lcm >= 2000), per method and timing mode over the shapes above:")
    for base in ("stp", "dk_stp", "projection", "project (matrix-free)"):
        for mode in ("cold", "warm"):
            vs = [v for v in verdicts if v[0] == base and v[1] == mode]
            miss = [f"({n},{p})" for _, _, n, p, _, ok in vs if ok is False]
            nm = [f"({n},{p})" for _, _, n, p, _, ok in vs if ok is None]
            met = sum(1 for v in vs if v[5])
            print(f"  {base:22s} {mode}: met {met}/{len(vs)}" + (f"; NOT met at {', '.join(miss)}" if miss else "")
                  + (f"; not measured at {', '.join(nm)}" if nm else ""))

    print("\nlargest lcm handled within 1 s (coprime (k, k+1), k growing by ~sqrt 2; memory guard 3 GiB; "
          "peak = tracemalloc peak of that run):")
    ks = sorted({round(8 * 2 ** (j / 2)) for j in range(2 * 23 if not args.quick else 2 * 11)})
    for name, (build, mem) in M.items():
        best, why = None, f"k list exhausted at k = {ks[-1]}"
        for k in ks:
            n, p = k, k + 1
            if mem(n, p) > 3 * 2**30:
                why = f"stopped at k = {k}: estimated memory {mem(n, p) / 2**30:.1f} GiB over the 3 GiB guard"
                break
            try:
                fn = build(n, p)
                t0 = time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
            except (SizeLimitError, MemoryError) as exc:
                why = f"stopped at k = {k}: {type(exc).__name__} (isomat's memory guard)"
                break
            if dt > 1.0:
                why = f"k = {k} took {dt:.2f} s"
                break
            best = (n, p, dt)
        notes.append(f"{name}: {why}")
        if best is None:
            print(f"  {name:24s} nothing within 1 s ({why})")
            continue
        n, p, dt = best
        tracemalloc.start()
        build(n, p)()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t = math.lcm(n, p)
        figures.append(figure(f"{name}: largest lcm within 1 s", t, "lcm", stat="single run", n=n, p=p,
                              seconds=round(dt, 4), peak_bytes=peak))
        print(f"  {name:24s} lcm {t:>14,d}  (n={n}, p={p})  {dt:7.3f} s  peak {peak / 2**20:9.2f} MiB   [{why}]")
    print(f"\nend: {_load()}")
    write_result(args.json, {"benchmark": "stp", "figures": figures, "ratios": ratios,
                             "notes": notes + ["timings on a shared 2-core machine; noisy"]})


if __name__ == "__main__":
    main()
