"""STP, DK-STP and the projection Π against the naive Kronecker formulas of cheng2025 (CPU).

In the same run, for dimension pairs with lcm(n, p) >= 2000 (coprime, divisible and general):

* ``isomat.algebra.stp(A, B)`` vs ``np.kron(A, I_{t/n}) @ np.kron(B, I_{t/p})`` (eq. 12),
* ``isomat.algebra.dk_stp(A, B)`` vs ``np.kron(A, 1ᵀ_{t/n}) @ np.kron(B, 1_{t/p})`` (eq. 13),
* ``isomat.algebra.projection(m, n)`` (sparse, n + m - gcd entries) and the matrix-free
  ``project(x, n)`` vs ``(n/t) (I_n ⊗ 1ᵀ_{t/n}) (I_m ⊗ 1_{t/m})`` built densely (eq. 22),

medians over repeats, the ratio naive / isomat (target: >= 100x when lcm >= 2000), then for each
method the largest lcm it handles within 1 second (coprime pairs (k, k + 1), k doubling) and the
peak memory of that run (tracemalloc). Other jobs may share the cores: timings are noisy.

Run: ``python3 benchmarks/stp.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import math
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--m", type=int, default=8, help="rows of A")
    ap.add_argument("--q", type=int, default=8, help="columns of B")
    ap.add_argument("--m-dk", type=int, default=64, help="rows of A and columns of B for dk_stp")
    args = ap.parse_args()
    repeats = args.repeat or (3 if args.quick else 7)
    m, q = args.m, args.q
    rng = np.random.default_rng(0)
    M = methods(m, q, rng)
    pairs = [(40, 53), (96, 100), (50, 2000), (7, 2003), (90, 91)] if not args.quick else [(40, 53), (7, 2003)]
    Mdk = methods(args.m_dk, args.m_dk, rng)  # DK-STP: larger A, B so the naive product is not all overhead
    figures, ratios, notes = [], [], []
    print(f"stp: A is {m}×n, B is p×{q}; dk_stp: A is {args.m_dk}×n, B is p×{args.m_dk}; medians over {repeats} runs")
    print("other jobs may share the cores, so timings are noisy; naive runs estimated over 1 GiB are skipped")
    for n, p in pairs:
        t = math.lcm(n, p)
        print(f"\n(n, p) = ({n}, {p}), lcm = {t}, gcd = {math.gcd(n, p)}")
        for base, nv, table, mm in (("stp", "stp naive", M, m), ("dk_stp", "dk_stp naive", Mdk, args.m_dk),
                                    ("projection", "projection naive", M, None),
                                    ("project (matrix-free)", "projection naive", M, None)):
            need = table[nv][1](n, p)
            f_iso = figure(f"{base} (n={n}, p={p})", time_median(table[base][0](n, p), repeats=repeats)[0], "s",
                           repeats=repeats, n=n, p=p, lcm=t, m=mm, q=mm)
            figures.append(f_iso)
            if need > 2**30:
                print(f"  {base:22s} isomat {f_iso['value'] * 1e3:9.3f} ms   naive skipped (needs ~{need / 2**30:.1f} GiB)")
                notes.append(f"{nv} at (n, p) = ({n}, {p}) skipped: needs ~{need / 2**30:.1f} GiB")
                continue
            f_nv = figure(f"{nv} (n={n}, p={p})", time_median(table[nv][0](n, p), repeats=repeats)[0], "s",
                          repeats=repeats, n=n, p=p, lcm=t, m=mm, q=mm)
            r = ratio(f"{base}: naive / isomat (n={n}, p={p}, lcm {t})", f_nv, f_iso)
            figures.append(f_nv)
            ratios.append(r)
            flag = "meets" if r["value"] >= 100 else "MISSES"
            print(f"  {base:22s} isomat {f_iso['value'] * 1e3:9.3f} ms   naive {f_nv['value'] * 1e3:9.3f} ms   "
                  f"ratio {r['value']:9.1f}x  ({flag} the 100x target)")

    print("\nlargest lcm handled within 1 s (coprime (k, k+1), k doubling; memory guard 3 GiB):")
    ks = [2**j for j in range(3, 26 if not args.quick else 14)]
    for name, (build, mem) in M.items():
        best = None
        for k in ks:
            n, p = k, k + 1
            if mem(n, p) > 3 * 2**30:
                notes.append(f"{name}: stopped at k = {k} (estimated memory {mem(n, p) / 2**30:.1f} GiB over the guard)")
                break
            try:
                fn = build(n, p)
                t0 = time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
            except (SizeLimitError, MemoryError) as exc:
                notes.append(f"{name}: stopped at k = {k}: {type(exc).__name__}")
                break
            if dt > 1.0:
                break
            best = (n, p, dt)
        if best is None:
            print(f"  {name:24s} nothing within 1 s")
            continue
        n, p, dt = best
        tracemalloc.start()
        build(n, p)()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t = math.lcm(n, p)
        figures.append(figure(f"{name}: largest lcm within 1 s", t, "lcm", stat="single run", n=n, p=p,
                              seconds=round(dt, 4), peak_bytes=peak))
        print(f"  {name:24s} lcm {t:>16,d}  (n={n}, p={p})  {dt:7.3f} s  peak {peak / 2**20:10.2f} MiB")
    write_result(args.json, {"benchmark": "stp", "figures": figures, "ratios": ratios,
                             "notes": notes + ["timings on a shared 2-core machine; noisy"]})


if __name__ == "__main__":
    main()
