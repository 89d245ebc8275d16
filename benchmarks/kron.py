"""NdLinear matrix-free vs the materialized flattened dense layer vs the `ndlinear` package (CPU).

A batch of 3-mode 32x32x32 tensors (reneau2025 §3.1/§3.2's running example, D_k = H_k = 32) is
pushed through

* ``isomat.algebra.ndlinear_apply`` (three batched mode products, eq. (1) FLOPs),
* the flattened dense layer ``X_flat @ W_full.T + beta`` with ``W_full = W_1 ⊗ W_2 ⊗ W_3``
  materialized (32768 x 32768; float32 = 4 GiB, so this benchmark needs ~5 GiB of memory),
* ``ndlinear.NdLinear((32,32,32), (32,32,32))`` (torch, ``no_grad``),

all in float32, in the same run, and prints medians, ratios and the machine. Targets (issue 5):
ndlinear_apply >= 100x faster than the dense layer and no slower than the package.

Run: ``python3 benchmarks/kron.py [--batch 16] [--repeat 7]``. Timings on a shared machine are
noisy; the medians of several repeats are reported.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing


def machine() -> str:
    from isomat.bench import cpu_model

    cpu = cpu_model() or platform.processor() or ""
    return f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} logical cores, numpy {np.__version__}"


def phased_medians(fns: dict, repeat: int, rounds: int = 3) -> dict:
    """Median (and min) seconds of each callable over ``rounds`` rounds; in a round each candidate
    runs one warm-up call then ``repeat`` timed calls before the next candidate starts, so that
    thread pools left spinning by one library (OpenBLAS, torch's OpenMP) do not land in another's
    timings, while load changes between rounds still hit every candidate."""
    times: dict = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = repeat if name != "dense flattened layer" else max(2, repeat // 3)
            fn()
            for _ in range(n):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return {name: (statistics.median(ts), min(ts), len(ts)) for name, ts in times.items()}


def main() -> None:
    from isomat.algebra import ndlinear_apply, ndlinear_bias, ndlinear_flops

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--no-dense", action="store_true", help="skip the 4 GiB dense layer")
    ap.add_argument("--quick", action="store_true",
                    help="8x8x8 modes (a 2 MiB dense layer instead of 4 GiB), 3 repeats: a smoke run, not a measurement")
    args = ap.parse_args()

    n = 8 if args.quick else 32
    if args.quick:
        args.repeat = min(args.repeat, 3)
    D = (n, n, n)
    rng = np.random.default_rng(0)
    Ws = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in D]
    bs = [rng.standard_normal(n).astype(np.float32) for _ in D]
    X = rng.standard_normal((args.batch, *D)).astype(np.float32)

    print(f"machine: {machine()}")
    print(f"batch {args.batch} of {D} -> {D}, float32, medians over 3 rounds of {args.repeat} runs")
    fl = ndlinear_flops(D, D, args.batch)
    print(f"FLOPs (eq. 1): ndlinear {fl['ndlinear']:.3e}, dense {fl['dense']:.3e} (ratio {fl['dense'] / fl['ndlinear']:.0f}x)")
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    print(f"thread settings: {threads}")
    print("note: other jobs share this machine's cores; timings are noisy\n")

    Y = ndlinear_apply(X, Ws, bs)
    fns = {"isomat ndlinear_apply": lambda: ndlinear_apply(X, Ws, bs)}

    try:
        import torch
        from ndlinear import NdLinear

        torch.manual_seed(0)
        m = NdLinear(D, D)
        with torch.no_grad():
            for layer, W, b in zip(m.align_layers, Ws, bs):
                layer.weight.copy_(torch.from_numpy(W))
                layer.bias.copy_(torch.from_numpy(b))
        Xt = torch.from_numpy(X)

        def run_pkg():
            with torch.no_grad():
                return m(Xt)

        fns["ndlinear package (torch)"] = run_pkg
        err = float(np.abs(run_pkg().numpy() - Y).max())
        print(f"package vs isomat: max |diff| = {err:.2e} (torch {torch.__version__}, {torch.get_num_threads()} threads)")
    except ImportError as exc:
        print(f"ndlinear package skipped: {exc}")

    if not args.no_dense:
        t0 = time.perf_counter()
        W_full = np.kron(np.kron(Ws[0], Ws[1]), Ws[2])  # n^3 x n^3 float32: 4 GiB at n = 32
        beta = ndlinear_bias(Ws, bs).astype(np.float32)
        print(f"materialized dense layer: {W_full.nbytes / 2**30:.1f} GiB in {time.perf_counter() - t0:.1f} s")
        Xf = X.reshape(args.batch, -1)
        fns["dense flattened layer"] = lambda: Xf @ W_full.T + beta
        err = float(np.abs((Xf @ W_full.T + beta).reshape(Y.shape) - Y).max())
        print(f"dense vs isomat: max |diff| = {err:.2e}")

    stats = phased_medians(fns, args.repeat)
    results = {name: med for name, (med, _, _) in stats.items()}
    t_iso = results["isomat ndlinear_apply"]
    print()
    for name, (t, tmin, n) in stats.items():
        print(f"{name:28s} median {t * 1e3:10.3f} ms (min {tmin * 1e3:9.3f}, {n:2d} runs)   ratio to isomat {t / t_iso:8.1f}x")
    if args.quick:
        print("\nquick run (8x8x8, 3 repeats): a smoke test of the script, no verdict on the targets")
        return
    if "dense flattened layer" in results:
        r = results["dense flattened layer"] / t_iso
        print(f"\ntarget >= 100x faster than dense: {'met' if r >= 100 else 'NOT met'} ({r:.0f}x)")
    if "ndlinear package (torch)" in results:
        r = results["ndlinear package (torch)"] / t_iso
        print(f"target no slower than the package: {'met' if r >= 1 else 'NOT met'} ({r:.2f}x)")


if __name__ == "__main__":
    main()
