"""GPU figures: conv SpMV against the device's memory bandwidth, and SPM against a cuBLAS matmul.

1. Convolution SpMV: the ``padding="same"`` 3x3 convolution matrix of an S x S image (S = 8192 by
   default: 67M rows, ~604M stored entries), built in the cupy field (pattern on the device), CSR,
   float64 values and int32 indices. Effective bandwidth = bytes moved by one CSR SpMV (values,
   column indices, row pointers, x read once, y written) / median time, as a fraction of the
   theoretical peak (memory clock x bus width x 2) and of a device-to-device copy measured in the
   same run. Target: at least 50% of peak.
   The build is timed warm: a first (cold) build pays NVRTC's kernel compilation and the memory
   pool's growth and is reported apart; the warm builds are timed with CUDA events (median).
   The memory pool's high-water mark during a build (``total_bytes`` after a build started from
   an emptied pool) is recorded against the device memory guard's estimate
   (``DEVICE_BYTES_PER_ENTRY`` per stored entry, ``isomat/algebra/_operator.py``).
2. Diagonal-block product (issue 15, item 8) on the same matrix: ``diagonal_blocks`` converts
   the CSR on the device (8 bytes an entry, no column indices) and its CUDA kernel is timed beside
   the cuSPARSE CSR SpMV, same x, same run (CUDA events, medians), with the bytes each reads, the
   effective bandwidths, the speedup and the largest difference between the two products.
3. SPM (farag2025) forward at n = 4096, batch 256, float32 end to end (angles, ``d_in``,
   ``d_out``, bias and the batch; the output's dtype is recorded), against ``X @ W`` with a dense
   4096 x 4096 float32 ``W`` (cuBLAS), same run.

Each leg runs on its own: one that fails leaves its error in ``errors`` and the JSON is still
written (exit status 1); the other legs' figures stand. On a machine without a usable CUDA device
it writes ``skipped`` with the reason and exits 0.
Run: ``python benchmarks/gpu.py [--quick] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from isomat.bench import figure, ratio, time_median, write_result  # noqa: E402
from isomat.gpu import device_info, gpu_status, require_cupy  # noqa: E402


def event_seconds(cp: Any, fn: Any) -> tuple[float, Any]:
    """``(seconds, result)`` of ``fn()`` between two CUDA events (device time, synchronized)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    out = fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / 1e3, out


def conv_build(cp: Any, size: int, build_repeats: int) -> tuple[Any, list, list, list]:
    """The conv matrix, built cold once and then warm ``build_repeats`` times (CUDA events), with
    the memory pool's high-water mark against the device guard's estimate."""
    import statistics

    import isomat
    from isomat.algebra._operator import DEVICE_BYTES_PER_ENTRY
    from isomat.algebra.conv import conv_matrix

    kernel = cp.random.default_rng(0).standard_normal((3, 3))
    nnz_est = 9 * size * size
    pool = cp.get_default_memory_pool()

    def build() -> Any:
        return conv_matrix((size, size), kernel, padding="same", backend="cupy", format="csr")

    with isomat.memory_limit(max(isomat.get_memory_limit(), 64 * nnz_est + (1 << 30))):
        t_cold, A = event_seconds(cp, build)  # NVRTC compiles its kernels here; the pool grows
        warm, peak = [], 0
        for _ in range(max(int(build_repeats), 1)):
            del A
            pool.free_all_blocks()
            base = pool.total_bytes()
            t, A = event_seconds(cp, build)
            warm.append(t)
            peak = max(peak, pool.total_bytes() - base)  # the pool keeps what it took: its high-water mark
    estimate = DEVICE_BYTES_PER_ENTRY * int(A.nnz) + 16 * (A.shape[0] + 1)
    f_warm = figure("conv matrix build on device (warm)", statistics.median(warm), "s", repeats=len(warm),
                    image=f"{size}x{size}", nnz=int(A.nnz), timer="CUDA events")
    f_cold = figure("conv matrix build on device (cold: NVRTC compile, pool growth)", t_cold, "s", repeats=1,
                    stat="single", timer="CUDA events")
    f_peak = figure("device memory pool peak during the build", peak, "B", repeats=len(warm), stat="max")
    f_est = figure("device memory guard estimate for the build", estimate, "B", stat="estimate",
                   bytes_per_entry=DEVICE_BYTES_PER_ENTRY)
    notes = [f"compile and first-use overhead of the build: {t_cold - statistics.median(warm):.3g} s"]
    ratios = [ratio("cold build / warm build", f_cold, f_warm)]
    if peak > 0:
        r = ratio("memory pool peak / guard estimate", f_peak, f_est)
        ratios.append(r)
        notes.append(f"the guard's estimate {'bounds' if r['value'] <= 1 else 'UNDERESTIMATES'} the measured pool "
                     f"peak ({r['value']:.2f} of it)")
    else:
        notes.append("the memory pool reported no growth during the build (not a CuPy memory pool?)")
    return A, [f_warm, f_cold, f_peak, f_est], ratios, notes


def conv_spmv(cp: Any, size: int, repeats: int, build_repeats: int = 3) -> tuple[list, list, list]:
    """Figures, ratios and notes of the conv build and SpMV bandwidth measurement."""
    sync = cp.cuda.Device().synchronize
    A, build_figs, build_ratios, build_notes = conv_build(cp, size, build_repeats)
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
    figs = [f_spmv, f_bw, f_copy, *build_figs]
    ratios = [ratio("SpMV bandwidth / device copy bandwidth", f_bw, f_copy), *build_ratios]
    notes = list(build_notes)
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


def diagonal_vs_csr(cp: Any, size: int, repeats: int) -> tuple[list, list, list]:
    """Figures, ratios and notes of the diagonal-block product against cuSPARSE's CSR SpMV on the
    same convolution matrix (CUDA events, medians)."""
    import isomat
    from isomat.algebra.conv import conv_matrix
    from isomat.algebra.diagonal import diagonal_blocks

    kernel = cp.random.default_rng(0).standard_normal((3, 3))
    n = size * size
    with isomat.memory_limit(max(isomat.get_memory_limit(), 64 * 9 * n + (1 << 30))):
        A = conv_matrix((size, size), kernel, padding="same", backend="cupy", format="csr")
        t_convert, D = event_seconds(cp, lambda: diagonal_blocks(A))
    x = cp.random.default_rng(1).standard_normal(n)
    y_csr, y_dia = A @ x, D @ x  # first calls: cuSPARSE setup, NVRTC compile of the kernel
    diff = float(cp.abs(y_dia - y_csr).max()) / max(float(cp.abs(y_csr).max()), 1e-300)
    t_csr = _event_median(cp, lambda: A @ x, repeats)
    t_dia = _event_median(cp, lambda: D @ x, repeats)
    vb = x.dtype.itemsize
    csr_bytes = A.nnz * (A.data.dtype.itemsize + A.indices.dtype.itemsize) + (n + 1) * A.indptr.dtype.itemsize + 2 * n * vb
    dia_bytes = D.data.size * D.data.dtype.itemsize + D.offsets.size * 8 + 2 * n * vb
    params = dict(image=f"{size}x{size}", kernel="3x3", nnz=int(A.nnz), diagonals=int(D.offsets.size),
                  fill=round(D.fill, 4), timer="CUDA events")
    f_csr = figure("CSR SpMV time (cuSPARSE, same matrix)", t_csr, "s", repeats=repeats, **params)
    f_dia = figure("diagonal-block product time (RawKernel)", t_dia, "s", repeats=repeats, **params)
    f_csr_bw = figure("CSR SpMV effective bandwidth", csr_bytes / t_csr, "B/s", repeats=repeats, bytes_moved=int(csr_bytes))
    f_dia_bw = figure("diagonal-block product effective bandwidth", dia_bytes / t_dia, "B/s", repeats=repeats,
                      bytes_moved=int(dia_bytes))
    f_conv = figure("diagonal-block conversion from CSR on device", t_convert, "s", repeats=1, stat="single",
                    timer="CUDA events")
    f_diff = figure("max |diagonal product - CSR product| / max |CSR product|", diff, "1", stat="single")
    notes = [f"the diagonal storage reads {dia_bytes / csr_bytes:.2f} of the CSR bytes"]
    if not diff <= 1e-12:
        notes.append(f"the diagonal-block product DIFFERS from the CSR product (relative {diff:.3g})")
    return ([f_csr, f_dia, f_csr_bw, f_dia_bw, f_conv, f_diff],
            [ratio("speedup of the diagonal-block product over CSR SpMV", f_csr, f_dia)], notes)


def _event_median(cp: Any, fn: Any, repeats: int) -> float:
    """Median over ``repeats`` of ``fn()``'s device time between CUDA events."""
    import statistics

    return statistics.median(event_seconds(cp, fn)[0] for _ in range(max(int(repeats), 1)))


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
    params = (rng.random((L, n // 2), dtype=cp.float32) * 2 * np.pi - np.pi).astype(cp.float32)
    # float32 end to end: spm_layer's d_in, d_out and bias default to float64 ones / zeros
    ones, zeros = cp.ones(n, dtype=cp.float32), cp.zeros(n, dtype=cp.float32)
    layer = spm_layer(n, butterfly_pairings(n, L), params, variant="rotation", d_in=ones, d_out=ones, bias=zeros,
                      backend="cupy")
    y = spm_forward(layer, X)
    dtype = str(y.dtype)
    t_spm, _ = time_median(lambda: spm_forward(layer, X), repeats=repeats, warmup=2, sync=sync)
    f_spm = figure("SPM forward (cupy field)", t_spm, "s", repeats=repeats, n=n, batch=batch, L=L, dtype=dtype)
    notes = [] if dtype == "float32" else [f"SPM forward computed in {dtype}, not float32: the comparison is not like for like"]
    return [f_mm, f_spm], [ratio("speedup of SPM over dense matmul", f_mm, f_spm)], notes


def run(*, size: int = 8192, n: int = 4096, batch: int = 256, repeats: int = 9,
        build_repeats: int = 3) -> dict[str, Any]:
    """The benchmark result (``skipped`` with the reason when there is no usable device; a leg
    that fails leaves its error in ``errors`` and the other leg still runs)."""
    ok, reason = gpu_status()
    if not ok:
        return {"benchmark": "gpu", "skipped": reason, "figures": [], "ratios": [], "notes": []}
    cp = require_cupy()
    result: dict[str, Any] = {"benchmark": "gpu", "figures": [], "ratios": [], "notes": [], "errors": []}
    legs = [("conv", lambda: conv_spmv(cp, size, repeats, build_repeats)),
            ("diagonal", lambda: diagonal_vs_csr(cp, size, repeats)),
            ("spm", lambda: spm_vs_cublas(cp, n, batch, repeats))]
    for name, leg in legs:
        try:
            figs, ratios, notes = leg()
        except Exception as exc:  # noqa: BLE001 - reported in the JSON, never hidden
            import traceback

            result["errors"].append({"leg": name, "error": f"{type(exc).__name__}: {exc}",
                                     "traceback": traceback.format_exc()[-4000:]})
            result["notes"].append(f"{name} leg failed: {type(exc).__name__}: {exc}")
            continue
        result["figures"] += figs
        result["ratios"] += ratios
        result["notes"] += notes
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", help="write the result as JSON (benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="1024x1024 image, n = 1024, 3 repeats")
    ap.add_argument("--size", type=int, default=None, help="image side (default 8192)")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    size = args.size or (1024 if args.quick else 8192)
    repeats = args.repeats or (3 if args.quick else 9)
    result = run(size=size, n=1024 if args.quick else 4096, repeats=repeats, build_repeats=2 if args.quick else 3)
    write_result(args.json, result)
    return 1 if result.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
