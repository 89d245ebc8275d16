"""GPU figures: conv SpMV against the device's memory bandwidth, and SPM against a cuBLAS matmul.

1. Convolution SpMV: the ``padding="same"`` 3x3 convolution matrix of an S x S image (S = 8192 by
   default: 67M rows, ~604M stored entries), built in the cupy field (pattern on the device), CSR,
   float64 values and int32 indices. Effective bandwidth = bytes moved by one CSR SpMV (values,
   column indices, row pointers, x read once, y written) / median time, as a fraction of the
   theoretical peak (memory clock x bus width x 2) and of a device-to-device copy measured in the
   same run. Target: at least 50% of peak.
2. SPM (farag2025) forward at n = 4096, batch 256, float32, against ``X @ W`` with a dense
   4096 x 4096 float32 ``W`` (cuBLAS), same run.

On a machine without a usable CUDA device it writes ``skipped`` with the reason and exits 0.
Run: ``python benchmarks/gpu.py [--quick] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from isomat.bench import figure, ratio, time_median, write_result  # noqa: E402
from isomat.gpu import device_info, gpu_status, require_cupy  # noqa: E402


def conv_spmv(cp: Any, size: int, repeats: int) -> tuple[list, list, list]:
    """Figures, ratios and notes of the conv SpMV bandwidth measurement."""
    import isomat
    from isomat.algebra.conv import conv_matrix

    sync = cp.cuda.Device().synchronize
    kernel = cp.random.default_rng(0).standard_normal((3, 3))
    nnz_est = 9 * size * size
    with isomat.memory_limit(max(isomat.get_memory_limit(), 64 * nnz_est + (1 << 30))):
        t0 = time.perf_counter()
        A = conv_matrix((size, size), kernel, padding="same", backend="cupy", format="csr")
        sync()
        t_build = time.perf_counter() - t0
    n = size * size
    x = cp.random.default_rng(1).standard_normal(n)
    y = A @ x
    sync()
    t, _ = time_median(lambda: A @ x, repeats=repeats, warmup=2, sync=sync)
    ib, vb = A.indices.dtype.itemsize, A.data.dtype.itemsize
    moved = A.nnz * (vb + ib) + (n + 1) * A.indptr.dtype.itemsize + n * x.dtype.itemsize + n * y.dtype.itemsize
    a = cp.ones(max(n, 1 << 24), dtype=cp.float64)  # >= 128 MiB: well past the L2 cache
    b = cp.empty_like(a)
    t_copy, _ = time_median(lambda: cp.copyto(b, a), repeats=repeats, warmup=2, sync=sync)
    f_spmv = figure("conv SpMV time", t, "s", repeats=repeats, image=f"{size}x{size}", kernel="3x3", nnz=int(A.nnz))
    f_bw = figure("conv SpMV effective bandwidth", moved / t, "B/s", repeats=repeats, bytes_moved=int(moved))
    f_copy = figure("device copy bandwidth", 2 * a.nbytes / t_copy, "B/s", repeats=repeats, bytes=int(2 * a.nbytes))
    figs = [f_spmv, f_bw, f_copy, figure("conv matrix build on device", t_build, "s", repeats=1, stat="single")]
    ratios = [ratio("SpMV bandwidth / device copy bandwidth", f_bw, f_copy)]
    notes = []
    peak = device_info().get("peak_bandwidth_bytes_per_s")
    if peak:
        f_peak = figure("theoretical peak bandwidth", peak, "B/s", stat="device property")
        figs.append(f_peak)
        r = ratio("SpMV bandwidth / theoretical peak", f_bw, f_peak)
        ratios.append(r)
        notes.append(f"target >= 50% of peak: {'met' if r['value'] >= 0.5 else 'not met'} ({r['value']:.1%})")
    else:
        notes.append("the device reports no memory clock / bus width; compared with the measured copy only")
    return figs, ratios, notes


def spm_vs_cublas(cp: Any, n: int, batch: int, repeats: int) -> tuple[list, list, list]:
    """Figures, ratios and notes of SPM forward against a dense cuBLAS matmul."""
    sync = cp.cuda.Device().synchronize
    rng = cp.random.default_rng(2)
    X = rng.standard_normal((batch, n), dtype=cp.float32)
    W = rng.standard_normal((n, n), dtype=cp.float32)
    t_mm, _ = time_median(lambda: X @ W, repeats=repeats, warmup=2, sync=sync)
    f_mm = figure("dense matmul (cuBLAS)", t_mm, "s", repeats=repeats, n=n, batch=batch, dtype="float32")
    try:
        from isomat.algebra.spm import butterfly_pairings, spm_forward, spm_layer
    except ImportError as exc:
        return [f_mm], [], [f"spm not available: {exc}"]
    L = int(np.log2(n))
    params = rng.random((L, n // 2), dtype=cp.float32) * 2 * np.pi - np.pi
    try:
        layer = spm_layer(n, butterfly_pairings(n, L), params, variant="rotation", backend="cupy")
        t_spm, _ = time_median(lambda: spm_forward(layer, X), repeats=repeats, warmup=2, sync=sync)
    except Exception as exc:  # report, do not hide: SPM in the cupy field may be missing
        return [f_mm], [], [f"spm in the cupy field failed: {type(exc).__name__}: {exc}"]
    f_spm = figure("SPM forward (cupy field)", t_spm, "s", repeats=repeats, n=n, batch=batch, L=L, dtype="float32")
    return [f_mm, f_spm], [ratio("speedup of SPM over dense matmul", f_mm, f_spm)], []


def run(*, size: int = 8192, n: int = 4096, batch: int = 256, repeats: int = 9) -> dict[str, Any]:
    """The benchmark result (``skipped`` with the reason when there is no usable device)."""
    ok, reason = gpu_status()
    if not ok:
        return {"benchmark": "gpu", "skipped": reason, "figures": [], "ratios": [], "notes": []}
    cp = require_cupy()
    figs, ratios, notes = conv_spmv(cp, size, repeats)
    f2, r2, n2 = spm_vs_cublas(cp, n, batch, repeats)
    return {"benchmark": "gpu", "figures": figs + f2, "ratios": ratios + r2, "notes": notes + n2}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", help="write the result as JSON (benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="1024x1024 image, n = 1024, 3 repeats")
    ap.add_argument("--size", type=int, default=None, help="image side (default 8192)")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    size = args.size or (1024 if args.quick else 8192)
    repeats = args.repeats or (3 if args.quick else 9)
    result = run(size=size, n=1024 if args.quick else 4096, repeats=repeats)
    write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
