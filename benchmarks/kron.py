"""NdLinear matrix-free vs the materialized flattened dense layer vs the `ndlinear` package (CPU).

A batch of 3-mode 32x32x32 tensors (reneau2025 §3.1/§3.2's running example, D_k = H_k = 32) is
pushed through

* ``isomat.algebra.ndlinear_apply`` (three batched mode products, eq. (1) FLOPs),
* the flattened dense layer ``X_flat @ W_full.T + beta`` with ``W_full = W_1 ⊗ W_2 ⊗ W_3``
  materialized (32768 x 32768; float32 = 4 GiB, so this benchmark needs ~5 GiB of memory),
* ``ndlinear.NdLinear((32,32,32), (32,32,32))`` (torch, ``no_grad``),

all in float32, in the same run, and prints min / median / max, ratios and the machine. Targets
(issue 5): ndlinear_apply >= 100x faster than the dense layer and no slower than the package.

Timed fairly (issue 29): every leg runs under the same thread setting (``isomat.bench.thread_limit``:
BLAS and OpenMP pools through threadpoolctl, ``torch.set_num_threads``), in a one-thread and an
all-thread column; the legs are interleaved (isomat, package, dense, isomat, ...) after a warm-up,
with a short sleep before each sample so that threads one library leaves spinning (torch's OpenMP,
OpenBLAS) are parked before the next library's call. A ratio whose legs have a median over twice
their minimum is NOISY and gets no verdict (at load 3-4 an earlier version reported medians 6-18x
their minimums and a "2.7x faster than the package" that the minimums, 1.61 vs 1.37 ms, did not
support); an all-thread leg faster than the thread count allows, or collapsed, is flagged.

Run: ``python3 benchmarks/kron.py [--batch 16] [--repeat 9] [--quick] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing


def machine() -> str:
    from isomat.bench import cpu_model

    cpu = cpu_model() or platform.processor() or ""
    return f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} logical cores, numpy {np.__version__}"


def main() -> None:
    from isomat.algebra import ndlinear_apply, ndlinear_bias, ndlinear_flops

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--no-dense", action="store_true", help="skip the 4 GiB dense layer")
    ap.add_argument("--json", default=None, help="write the figures and ratios as JSON (isomat.bench format)")
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

    from isomat.bench import (LoadWatch, load_text, scaling_check, thread_columns, thread_control, time_legs,
                              timing_figure, verdict, verdict_text, write_result)

    print(f"machine: {machine()}")
    print(f"start: {load_text()}")
    print(f"batch {args.batch} of {D} -> {D}, float32; {args.repeat} interleaved samples per leg after a warm-up "
          f"(min/median/max, ms), columns {' and '.join(f'{c} thread(s)' for c in thread_columns())}")
    fl = ndlinear_flops(D, D, args.batch)
    print(f"FLOPs (eq. 1): ndlinear {fl['ndlinear']:.3e}, dense {fl['dense']:.3e} (ratio {fl['dense'] / fl['ndlinear']:.0f}x)")
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    print(f"environment thread settings: {threads}")

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

    print(f"thread control: {thread_control()}\n")
    cols = thread_columns()
    figures, ratios, notes, by_col = [], [], [], {}
    for c in cols:
        with LoadWatch() as lw:
            tm = time_legs(fns, repeats=args.repeat, warmup=1, threads=c, cooldown=0.02)
        by_col[c] = (tm, lw)
        t_iso = tm["isomat ndlinear_apply"]
        print(f"-- {c} thread(s) [{lw.text}]")
        for name, t in tm.items():
            print(f"  {name:28s} {t.text():>34s}   median ratio to isomat {t.median / t_iso.median:8.2f}x")
            figures.append(timing_figure(f"{name} ({c} thread(s))", t, "s", batch=args.batch, modes=list(D)))
        for name, goal in (("dense flattened layer", 100.0), ("ndlinear package (torch)", 1.0)):
            if name in tm:
                v = verdict(f"{name} / isomat ({c} thread(s))", tm[name], t_iso, target=None if args.quick else goal,
                            load=lw)
                ratios.append(v)
                print("  " + verdict_text(v))
    if len(cols) > 1:
        for name in fns:
            why = scaling_check(by_col[1][0][name], by_col[cols[-1]][0][name], cols[-1])
            if why:
                print(f"{name}: {why}")
                notes.append(f"{name}: {why}")
                for v in ratios:
                    if (name in v["name"] or name == "isomat ndlinear_apply") and (
                            why.startswith("IMPOSSIBLE") or f"({cols[-1]} thread(s))" in v["name"]):
                        v["verdict"], v["why"] = "disturbed", why
    if args.quick:
        print("\nquick run (8x8x8, 3 repeats): a smoke test of the script, no verdict on the targets")
    else:
        print("\ntargets (median ratios; NOISY / disturbed = no verdict):")
        for v in ratios:
            print(f"  {v['name']}: {v['value']:.2f}x (mins {v['min_ratio']:.2f}x) -> {v['verdict'].upper()}")
    print(f"end: {load_text()}")
    with open(os.devnull, "w") as sink:
        write_result(args.json, {"benchmark": "kron", "figures": figures, "ratios": ratios,
                                 "notes": notes + ["all legs under the same thread setting, 1 and all threads; "
                                                   "NOISY = median > 2x min: no verdict"]}, out=sink)


if __name__ == "__main__":
    main()
