"""SPM forward + backward against a dense NumPy layer (farag2025 Table 1 setting).

float32, batch 256, L = log2 n butterfly stages, rotation variant, n = 256 ... 4096, one run.
Prints medians, the speedup per n next to the paper's Table 1 values (their n = 4096 value is
from Table 2, which used L = 12), per-stage times against the memory-streaming bound measured in
the same run, the machine, and whether each target is met.

Run: ``python3 benchmarks/spm.py`` (about a minute). Timings on shared machines are noisy.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from isomat.algebra.spm import SPMKernel, random_spm  # noqa: E402

PAPER_SPEEDUP = {256: 0.51, 512: 1.07, 1024: 1.81, 2048: 3.42, 4096: 7.03}  # Table 1; 4096 from Table 2 (L = 12)
NS = (256, 512, 1024, 2048, 4096)
BATCH = 256
DT = np.float32


def median_time(fn, repeat, number=1):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        ts.append((time.perf_counter() - t0) / number)
    return statistics.median(ts)


def copy_bandwidth():
    """Bytes per second of a large NumPy copy (read + write counted), 64 MiB arrays."""
    a = np.ones(16 * 2**20, dtype=np.float32)
    b = np.empty_like(a)
    t = median_time(lambda: np.copyto(b, a), 15)
    return 2 * a.nbytes / t


def dense_step(W, b, X, G):
    Y = X @ W.T + b
    gX = G @ W
    gW = G.T @ X
    gb = G.sum(axis=0)
    return Y, gX, gW, gb


def main():
    print(f"machine: {platform.machine()} {platform.processor() or ''} | {platform.platform()} | "
          f"{os.cpu_count()} logical CPUs | numpy {np.__version__}")
    print("note: other jobs share these 2 cores; medians are noisy (a few tens of percent).")
    bw = copy_bandwidth()
    print(f"large-copy bandwidth (read+write): {bw / 1e9:.2f} GB/s")
    rows, stage_ok = [], True
    for n in NS:
        L = int(math.log2(n))
        rng = np.random.default_rng(n)
        X = rng.standard_normal((BATCH, n)).astype(DT)
        G = rng.standard_normal((BATCH, n)).astype(DT)
        W = (rng.standard_normal((n, n)) / math.sqrt(n)).astype(DT)
        bvec = np.zeros(n, DT)
        K = SPMKernel(random_spm(n, L, schedule="butterfly", seed=n), BATCH, DT)
        rep = 15 if n <= 1024 else 7
        # interleaved: each repetition times dense then SPM back to back, so both see the same load
        dense_fn, spm_fn = (lambda: dense_step(W, bvec, X, G)), (lambda: (K.forward(X), K.backward(G)))
        dense_fn(), spm_fn()
        td, tsp = [], []
        for _ in range(rep):
            td.append(median_time(dense_fn, 1))
            tsp.append(median_time(spm_fn, 1, number=3))
        t_dense, t_spm = statistics.median(td), statistics.median(tsp)
        bw_n = copy_bandwidth()  # re-measured next to this n's stage timing
        # one stage (forward), in isolation, against the streaming bound for that stage
        K.forward(X)
        u, v = K.U[L // 2], K.V
        t_stage = median_time(lambda: K.stage_forward(L // 2, u, v), 25, number=20)
        t_gather = median_time(lambda: np.take(v, K.fperm[0], axis=0, out=u), 25, number=20) if L > 1 else 0.0
        bound = 2 * n * BATCH * np.dtype(DT).itemsize / max(bw, bw_n)  # read z, write z'
        ratio = (t_stage + t_gather) / bound
        stage_ok &= ratio <= 2
        rows.append((n, L, t_dense, t_spm, statistics.median(a / b for a, b in zip(td, tsp)), t_stage, t_gather, bound, ratio))
    print()
    print(f"{'n':>5} {'L':>3} {'dense ms':>9} {'SPM ms':>8} {'speedup*':>8} {'paper':>6} | "
          f"{'stage us':>9} {'gather us':>9} {'bound us':>9} {'x bound':>8}")
    for n, L, td, ts, spd, tst, tg, bnd, r in rows:
        print(f"{n:>5} {L:>3} {td * 1e3:>9.3f} {ts * 1e3:>8.3f} {spd:>7.2f}x {PAPER_SPEEDUP[n]:>5.2f}x | "
              f"{tst * 1e6:>9.1f} {tg * 1e6:>9.1f} {bnd * 1e6:>9.1f} {r:>7.2f}x")
    spd = {r[0]: r[4] for r in rows}
    print("* speedup = median over repetitions of (dense time / SPM time) measured back to back; "
          "bound = 2 n B 4 bytes / large-copy bandwidth (the faster of the two measurements)")
    print()
    print("targets (forward + backward, float32, batch 256, L = log2 n):")
    print(f"  speedup >= 1x at n = 512:  {spd[512]:.2f}x  -> {'MET' if spd[512] >= 1 else 'NOT MET'}")
    print(f"  speedup >= 5x at n = 4096: {spd[4096]:.2f}x  -> {'MET' if spd[4096] >= 5 else 'NOT MET'}")
    worst = max(r[8] for r in rows)
    print(f"  each stage (4 multiply-adds + the row gather to the next stage's order) within 2x of the "
          f"streaming bound: worst {worst:.2f}x -> {'MET' if stage_ok else 'NOT MET'}")
    print("  (paper's speedups are per training step of a whole model on their hardware; ours are one layer's "
          "forward+backward, so only the trend is comparable)")


if __name__ == "__main__":
    main()
