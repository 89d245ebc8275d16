"""GPU figures: conv products against the device's copy bandwidth, builds, and SPM against cuBLAS.

Every time is device time between CUDA events (medians), every bandwidth a fraction of a
device-to-device copy measured in the same run. The legs (``--legs`` picks some):

``conv``
    The ``padding="same"`` 3x3 convolution matrix of an S x S image (S = 8192: 67M rows, ~604M
    stored entries; one product moves ~7.8 GB), built in the cupy field, CSR with float64 values.
    Its build is timed cold (NVRTC compiles, the pool grows) and warm; the memory pool's
    high-water mark during a warm build is set against the device guard's estimate
    (``last_device_estimate``, ``isomat/algebra/_operator.py``); cuSPARSE's CSR SpMV is timed,
    its effective bandwidth a fraction of the copy and of the theoretical peak.
``diagonal``
    The same matrix as diagonal blocks (``diagonal_blocks``: 8 bytes an entry, no column indices)
    and its RawKernel beside cuSPARSE, same x: times, bandwidths, the speedup; the two products
    must agree to 1e-12 (relative), else a mismatch.
``channels``
    A 64 -> 64-channel 3x3 "same" convolution at 256 x 256 (2.4e9 stored entries), stored by
    diagonals straight from the kernel (``conv_matrix(..., format="diagonal")``), float32 and
    float64: the product's bandwidth against the copy (target >= 80%), and the transpose product.
    Its CSR is not built: CuPy <= 14.2 corrupts a CSR past 2**31 stored entries (upstream #9490).
``large``
    A 64 -> 64-channel 3x3 conv at 512 x 512 (9.7e9 stored entries, float32 diagonals ~39 GB),
    applied on the device; sampled rows are checked against the direct sum on the host (a
    mismatch past float32's tolerance fails the run).
``build``
    Construction of the 4096 x 4096 conv matrix: ns per stored entry on the device (warm, CUDA
    events) beside the CPU build of the same matrix (all CPU threads, wall clock).
``spm``
    SPM (farag2025) forward and backward, float32 end to end, n = 1024 ... 8192, batch 256, against
    the dense layer on cuBLAS (``X @ W``; backward ``G @ W.T`` and ``X.T @ G``), same run: the
    per-stage kernels and the fused ones (``isomat/algebra/_spm_fused.py``, all L stages in one
    launch; its backward includes the forward that keeps each stage's input). Both are first
    compared with the CPU field's ``spm_forward`` / ``spm_backward`` in float64 (1e-4 of the largest
    magnitude). Target (issue 42): fused forward + backward >= 1x dense at n = 1024, faster at
    every n >= 2048.

``--quick`` runs the legs at small sizes: its figures time overheads (launches, descriptor setup),
and are not bandwidth figures -- the JSON says so. With ``--json`` the result is written after
every leg, so a run cut short keeps what it measured. A leg that fails leaves its error in
``errors``; a value that differs from its reference goes to ``mismatches``; either makes the exit
status 1. Without a usable CUDA device it writes ``skipped`` with the reason and exits 0.
Run: ``python benchmarks/gpu.py [--quick] [--json OUT] [--legs conv,diagonal,...]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

_HERE = Path(__file__).resolve().parent
# run as a script, this folder is sys.path[0]: its modules (distributed.py, ...) would shadow packages
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import numpy as np  # noqa: E402

from isomat.bench import figure, ratio, write_result  # noqa: E402
from isomat.gpu import device_info, gpu_status, require_cupy  # noqa: E402

LEGS = ("conv", "diagonal", "channels", "large", "build", "spm")
QUICK_NOTE = ("quick mode: the sizes are small, so the times measure launch and descriptor overheads; "
              "they are not bandwidth figures")


def event_seconds(cp: Any, fn: Callable[[], Any]) -> tuple[float, Any]:
    """``(seconds, result)`` of ``fn()`` between two CUDA events (device time, synchronized)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    out = fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / 1e3, out


def _event_median(cp: Any, fn: Callable[[], Any], repeats: int, warmup: int = 1) -> float:
    """Median over ``repeats`` of ``fn()``'s device time between CUDA events, after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    return statistics.median(event_seconds(cp, fn)[0] for _ in range(max(int(repeats), 1)))


def _host_median(cp: Any, fn: Callable[[], Any], repeats: int) -> float:
    """Median host wall time of ``fn()`` with the device synchronized after each call."""
    sync = cp.cuda.Device().synchronize
    times = []
    for _ in range(max(int(repeats), 1)):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _roomy(*nbytes: int) -> Any:
    """A memory-bound context for a benchmark build: at least the given sizes plus 1 GiB, and never
    below the bound in force (the guard's own estimate decides, the benchmark only makes room)."""
    import isomat

    return isomat.memory_limit(max(isomat.get_memory_limit(), *(int(b) + (1 << 30) for b in nbytes)))


def copy_bandwidth(cp: Any, n_bytes: int, repeats: int) -> dict:
    """A device-to-device copy of ``n_bytes`` (read + written), CUDA events: the bandwidth the
    products are measured against."""
    a = cp.ones(max(int(n_bytes) // 8, 1 << 24), dtype=cp.float64)  # >= 128 MiB: well past the L2 cache
    b = cp.empty_like(a)
    t = _event_median(cp, lambda: cp.copyto(b, a), repeats, warmup=2)
    moved = 2 * a.nbytes
    del a, b
    return figure("device copy bandwidth", moved / t, "B/s", repeats=repeats, bytes=int(moved), timer="CUDA events")


def _conv_csr(cp: Any, size: int) -> Any:
    from isomat.algebra._operator import estimate_bytes
    from isomat.algebra.conv import conv_matrix

    n = size * size
    with _roomy(estimate_bytes(9 * n, n)):
        return conv_matrix((size, size), _conv_kernel(cp), padding="same", backend="cupy", format="csr")


def _conv_kernel(cp: Any) -> Any:
    """The 3x3 kernel (on the device) of :func:`_conv_csr`'s matrices; ``.get().reshape(1, 1, 3, 3)``
    is what the host's direct sums of sampled rows use."""
    return cp.random.default_rng(0).standard_normal((3, 3))


def conv_leg(cp: Any, size: int, repeats: int, build_repeats: int, copy: dict) -> tuple[list, list, list, list]:
    """The conv matrix's build (cold, warm, pool peak against the guard) and its CSR SpMV bandwidth."""
    from isomat.algebra._operator import last_device_estimate

    pool = cp.get_default_memory_pool()
    t_cold, A = event_seconds(cp, lambda: _conv_csr(cp, size))  # NVRTC compiles its kernels here
    warm, peak = [], 0
    for _ in range(max(int(build_repeats), 1)):
        del A
        pool.free_all_blocks()
        base = pool.total_bytes()
        t, A = event_seconds(cp, lambda: _conv_csr(cp, size))
        warm.append(t)
        peak = max(peak, pool.total_bytes() - base)  # the pool keeps what it took: its high-water mark
    n = size * size
    x = cp.random.default_rng(1).standard_normal(n)
    y = A @ x
    mismatches = _check_sampled_rows("conv leg (CSR build and SpMV)", _conv_kernel(cp).get().reshape(1, 1, 3, 3), x.get(), y, size, 1e-12)
    t = _event_median(cp, lambda: A @ x, repeats, warmup=2)
    moved = (A.nnz * (A.data.dtype.itemsize + A.indices.dtype.itemsize) + (n + 1) * A.indptr.dtype.itemsize
             + n * x.dtype.itemsize + n * y.dtype.itemsize)
    guard = last_device_estimate()  # what the guard computed for the last build, this matrix's
    estimate = guard.get("bytes", float("nan"))
    params = dict(image=f"{size}x{size}", kernel="3x3", nnz=int(A.nnz), timer="CUDA events")
    f_warm = figure("conv matrix build on device (warm)", statistics.median(warm), "s", repeats=len(warm), **params)
    f_cold = figure("conv matrix build on device (cold: NVRTC compile, pool growth)", t_cold, "s", repeats=1,
                    stat="single", timer="CUDA events")
    f_peak = figure("device memory pool peak during the build", peak, "B", repeats=len(warm), stat="max",
                    bytes_per_entry=round(peak / max(int(A.nnz), 1), 2))
    f_est = figure("device memory guard estimate for the build", estimate, "B", stat="estimate",
                   bytes_per_entry=round(estimate / max(int(A.nnz), 1), 2), staging=guard.get("staging"))
    f_spmv = figure("conv SpMV time", t, "s", repeats=repeats, **params)
    f_bw = figure("conv SpMV effective bandwidth", moved / t, "B/s", repeats=repeats, bytes_moved=int(moved))
    # what a call costs apart from moving bytes: CuPy's csr @ x creates the cuSPARSE descriptors and its
    # work buffer on every call; a 64 x 64 product is that overhead alone (host clock, synchronized)
    tiny = _conv_csr(cp, 8)
    xt = cp.ones(tiny.shape[1])
    tiny @ xt
    t_tiny = _host_median(cp, lambda: tiny @ xt, max(repeats, 25))
    f_over = figure("CSR SpMV call overhead (64x64 matrix: descriptors, buffer, launch; host clock)", t_tiny, "s",
                    repeats=max(repeats, 25), timer="perf_counter after synchronize")
    figs = [f_spmv, f_bw, f_warm, f_cold, f_peak, f_est, f_over]
    ratios = [ratio("SpMV bandwidth / device copy bandwidth", f_bw, copy), ratio("cold build / warm build", f_cold, f_warm)]
    notes = [f"compile and first-use overhead of the build: {t_cold - statistics.median(warm):.3g} s",
             f"one SpMV moves {moved / 1e9:.3g} GB; the per-call overhead is {t_tiny / t:.1%} of its time"]
    if peak > 0:
        r = ratio("memory pool peak / guard estimate", f_peak, f_est)
        ratios.append(r)
        notes.append(f"the guard's estimate {'bounds' if r['value'] <= 1 else 'UNDERESTIMATES'} the measured pool "
                     f"peak ({r['value']:.2f} of it; {peak / A.nnz:.1f} B per stored entry)")
    else:
        notes.append("the memory pool reported no growth during the build (not a CuPy memory pool?)")
    peak_bw = device_info().get("peak_bandwidth_bytes_per_s")
    if peak_bw:
        f_th = figure("theoretical peak bandwidth", peak_bw, "B/s", stat="device property")
        figs.append(f_th)
        r = ratio("SpMV bandwidth / theoretical peak", f_bw, f_th)
        ratios.append(r)
        notes.append(f"target >= 50% of peak: {'met' if r['value'] >= 0.5 else 'not met'} ({r['value']:.1%})")
    return figs, ratios, notes, mismatches


def diagonal_leg(cp: Any, size: int, repeats: int, copy: dict) -> tuple[list, list, list, list]:
    """The diagonal-block RawKernel against cuSPARSE's CSR SpMV on the same matrix and x."""
    from isomat.algebra.diagonal import diagonal_blocks

    A = _conv_csr(cp, size)
    n = size * size
    with _roomy(9 * n * 8):
        t_convert, D = event_seconds(cp, lambda: diagonal_blocks(A))
    x = cp.random.default_rng(1).standard_normal(n)
    y_csr, y_dia = A @ x, D @ x  # first calls: cuSPARSE setup, NVRTC compile of the kernel
    diff = float(cp.abs(y_dia - y_csr).max()) / max(float(cp.abs(y_csr).max()), 1e-300)
    mismatches = _check_sampled_rows("diagonal leg (diagonal-block product)", _conv_kernel(cp).get().reshape(1, 1, 3, 3), x.get(), y_dia, size, 1e-12)
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
        mismatches.append(f"diagonal leg: the diagonal-block product DIFFERS from the CSR product (relative {diff:.3g})")
    return ([f_csr, f_dia, f_csr_bw, f_dia_bw, f_conv, f_diff],
            [ratio("speedup of the diagonal-block product over CSR SpMV", f_csr, f_dia),
             ratio("CSR SpMV bandwidth / device copy bandwidth", f_csr_bw, copy),
             ratio("diagonal-block product bandwidth / device copy bandwidth", f_dia_bw, copy)], notes, mismatches)


def _conv_diagonals(cp: Any, channels: int, size: int, dtype: Any, seed: int = 3) -> tuple[Any, np.ndarray]:
    """The channels -> channels 3x3 'same' conv at size x size, stored by diagonals on the device
    straight from the kernel, and the host kernel it was built from."""
    from isomat.algebra.conv import conv_matrix

    kernel = np.random.default_rng(seed).standard_normal((channels, channels, 3, 3)).astype(dtype)
    stored = channels * channels * 9 * size * size * np.dtype(dtype).itemsize
    with _roomy(stored):
        D = conv_matrix((channels, size, size), cp.asarray(kernel), padding="same", format="diagonal")
    return D, kernel


def _sampled_rows(kernel: np.ndarray, v: np.ndarray, size: int, rows: np.ndarray, *,
                  transpose: bool = False) -> tuple[np.ndarray, np.ndarray]:
    r"""Entries ``rows`` of :math:`A v` (or :math:`A^{\mathsf T} v`) for the 3x3 'same' cross-correlation
    with ``kernel`` (C_out, C_in, 3, 3), summed directly on the host in float64 (torch's conv2d), and the
    sums of the terms' magnitudes (the scale of float32 rounding). The transpose is the cross-correlation
    with the channels swapped and the taps flipped: input (ci, a, b) collects ``kernel[o, ci, ty, tx] *
    v[o, a - ty + 1, b - tx + 1]``."""
    k64 = kernel.astype(np.float64)
    if transpose:
        k64 = k64.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    c_in = k64.shape[1]
    img = np.zeros((c_in, size + 2, size + 2))
    img[:, 1:-1, 1:-1] = v.reshape(c_in, size, size)
    vals, scale = np.empty(rows.size), np.empty(rows.size)
    for n, r in enumerate(rows):
        o, rem = divmod(int(r), size * size)
        yy, xx = divmod(rem, size)
        terms = k64[o] * img[:, yy:yy + 3, xx:xx + 3]
        vals[n], scale[n] = terms.sum(), np.abs(terms).sum()
    return vals, scale


def _check_sampled_rows(what: str, kernel: np.ndarray, v: np.ndarray, out: Any, size: int, rtol: float, *,
                        transpose: bool = False, samples: int = 48, seed: int = 11) -> list[str]:
    """Sampled entries of a device product ``out`` (``A v``, or ``A^T v`` with ``transpose``) against the
    host's direct sums (:func:`_sampled_rows`), the corners and far ends included:
    the mismatches, each within ``rtol`` of the sum of its terms' magnitudes or listed."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, out.shape[0], samples)
    rows[:4] = [0, size - 1, size * size - 1, out.shape[0] - 1]
    want, scale = _sampled_rows(kernel, v, size, rows, transpose=transpose)
    got = out[require_cupy().asarray(rows)].get().astype(np.float64)
    bad = np.flatnonzero(np.abs(got - want) > rtol * scale + 1e-300)
    if not bad.size:
        return []
    i = bad[0]
    return [f"{what}: {bad.size} of {rows.size} sampled entries differ from the host's direct sum, e.g. entry "
            f"{int(rows[i])}: {got[i]!r} vs {want[i]!r}"]


def channels_leg(cp: Any, channels: int, size: int, repeats: int, copy: dict) -> tuple[list, list, list, list]:
    """A multi-channel conv stored by diagonals: product and transpose-product bandwidth, float32 and float64."""
    figs, ratios, notes, mismatches = [], [], [], []
    nnz = None
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        t_build, (D, kernel) = event_seconds(cp, lambda: _conv_diagonals(cp, channels, size, dtype))
        nnz = D.nnz
        n = D.shape[1]
        x = cp.asarray(np.random.default_rng(4).standard_normal(n).astype(dtype))
        y = D @ x
        xt = D.rmatvec(y)
        t_mv = _event_median(cp, lambda: D @ x, repeats)
        t_rmv = _event_median(cp, lambda: D.rmatvec(y), repeats)

        moved = D.data.nbytes + D.offsets.size * 8 + (D.shape[0] + n) * np.dtype(dtype).itemsize
        params = dict(image=f"{size}x{size}", channels=f"{channels}->{channels}", kernel="3x3", nnz=int(D.nnz),
                      dtype=name, timer="CUDA events")
        f_b = figure(f"{channels}-channel conv stored by diagonals: build on device ({name})", t_build, "s",
                     stat="single", **params)
        f_mv = figure(f"{channels}-channel diagonal-block product time ({name})", t_mv, "s", repeats=repeats, **params)
        f_bw = figure(f"{channels}-channel diagonal-block product bandwidth ({name})", moved / t_mv, "B/s",
                      repeats=repeats, bytes_moved=int(moved))
        f_rbw = figure(f"{channels}-channel diagonal-block transpose product bandwidth ({name})", moved / t_rmv, "B/s",
                       repeats=repeats, bytes_moved=int(moved))
        figs += [f_b, f_mv, f_bw, f_rbw]
        r = ratio(f"{channels}-channel diagonal-block product bandwidth / device copy bandwidth ({name})", f_bw, copy)
        ratios += [r, ratio(f"{channels}-channel transpose product bandwidth / device copy bandwidth ({name})",
                            f_rbw, copy)]
        notes.append(f"{name}: target >= 80% of the copy bandwidth: {'met' if r['value'] >= 0.8 else 'not met'} "
                     f"({r['value']:.1%}; one product moves {moved / 1e9:.3g} GB)")
        # sampled rows of A x and columns of A^T y against the host's direct sums: the timings are of right products
        rtol = 1e-5 if dtype == np.float32 else 1e-13
        mismatches += _check_sampled_rows(f"channels leg ({name}, A x)", kernel, x.get(), y, size, rtol)
        mismatches += _check_sampled_rows(f"channels leg ({name}, A^T y)", kernel, y.get(), xt, size, rtol, transpose=True)
        del D, x, y, xt
        cp.get_default_memory_pool().free_all_blocks()
    if nnz is not None and nnz >= 2**31:
        notes.append(f"CSR not built: {nnz:,} stored entries is past 2**31, which CuPy <= 14.2's CSR corrupts "
                     "(upstream issue #9490)")
    return figs, ratios, notes, mismatches


def large_leg(cp: Any, channels: int, size: int, samples: int = 64) -> tuple[list, list, list, list]:
    """A conv with more than 2**31 stored entries, applied on the device by diagonals (float32) and
    checked on sampled rows against the direct sum on the host."""
    t_build, (D, kernel) = event_seconds(cp, lambda: _conv_diagonals(cp, channels, size, np.float32, seed=7))
    x_host = np.random.default_rng(8).standard_normal(D.shape[1]).astype(np.float32)
    x = cp.asarray(x_host)
    D @ x  # the kernel's first launch
    t, y = event_seconds(cp, lambda: D @ x)
    rows = np.random.default_rng(9).integers(0, D.shape[0], samples)
    rows[:4] = [0, size * size - 1, D.shape[0] - 1, D.shape[0] // 2]  # corners and the far end: 64-bit offsets
    want, scale = _sampled_rows(kernel, x_host, size, rows)
    got = y[cp.asarray(rows)].get().astype(np.float64)
    err = np.abs(got - want) / (scale + 1e-30)
    params = dict(image=f"{size}x{size}", channels=f"{channels}->{channels}", kernel="3x3", nnz=int(D.nnz),
                  dtype="float32", stored_bytes=int(D.data.nbytes), timer="CUDA events")
    figs = [figure("conv past 2**31 entries: build by diagonals on device", t_build, "s", stat="single", **params),
            figure("conv past 2**31 entries: diagonal-block product time", t, "s", stat="single", **params),
            figure("conv past 2**31 entries: max relative error of sampled rows", float(err.max()), "1",
                   stat="max", samples=int(rows.size))]
    mismatches = []
    if not err.max() <= 1e-5:
        mismatches.append(f"large leg: sampled rows differ from the direct sum (relative {err.max():.3g} > 1e-5)")
    del D, x, y
    cp.get_default_memory_pool().free_all_blocks()
    nnz = params["nnz"]
    return figs, [], [f"{nnz:,} stored entries ({nnz / 2**31:.2f} x 2**31) applied with 64-bit indexing, no CSR"], mismatches


def build_leg(cp: Any, size: int, build_repeats: int) -> tuple[list, list, list, list]:
    """ns per stored entry of the conv build: device (warm, CUDA events) beside the CPU (wall clock)."""
    import os

    from isomat.algebra._operator import estimate_bytes
    from isomat.algebra.conv import conv_matrix

    kernel = np.random.default_rng(0).standard_normal((3, 3))
    n = size * size
    dev_kernel = cp.asarray(kernel)
    with _roomy(estimate_bytes(9 * n, n)):
        def dev():
            return conv_matrix((size, size), dev_kernel, padding="same", backend="cupy", format="csr")

        A = dev()
        nnz = int(A.nnz)
        del A
        t_dev = _event_median(cp, dev, build_repeats, warmup=0)
        threads = os.cpu_count() or 1
        cpu_times = []
        for _ in range(max(1, min(int(build_repeats), 2))):
            t0 = time.perf_counter()
            B = conv_matrix((size, size), kernel, padding="same", format="csr", threads=threads)
            cpu_times.append(time.perf_counter() - t0)
            del B
    t_cpu = statistics.median(cpu_times)
    params = dict(image=f"{size}x{size}", kernel="3x3", nnz=nnz)
    f_dev = figure("conv build on device, ns per stored entry (warm)", t_dev / nnz * 1e9, "ns", repeats=build_repeats,
                   timer="CUDA events", **params)
    f_cpu = figure("conv build on the CPU, ns per stored entry", t_cpu / nnz * 1e9, "ns", repeats=len(cpu_times),
                   threads=threads, timer="wall clock", **params)
    return [f_dev, f_cpu], [ratio("speedup of the device build over the CPU build", f_cpu, f_dev)], [], []


def spm_leg(cp: Any, sizes: tuple[int, ...], batch: int, repeats: int) -> tuple[list, list, list, list]:
    """SPM forward and backward (float32) against the dense layer on cuBLAS, at each n."""
    from isomat.algebra._spm_fused import fused_unsupported, spm_backward_fused, spm_forward_fused
    from isomat.algebra.spm import butterfly_pairings, spm_backward, spm_forward, spm_layer

    figs, ratios, notes, mismatches = [], [], [], []
    for n in sizes:
        rng = cp.random.default_rng(2)
        X = rng.standard_normal((batch, n), dtype=cp.float32)
        G = rng.standard_normal((batch, n), dtype=cp.float32)
        W = rng.standard_normal((n, n), dtype=cp.float32)
        t_mm = _event_median(cp, lambda: X @ W, repeats, warmup=2)
        t_mm_b = _event_median(cp, lambda: (G @ W.T, X.T @ G), repeats, warmup=2)
        L = int(np.log2(n))
        params = (rng.random((L, n // 2), dtype=cp.float32) * 2 * np.pi - np.pi).astype(cp.float32)
        ones, zeros = cp.ones(n, dtype=cp.float32), cp.zeros(n, dtype=cp.float32)
        layer = spm_layer(n, butterfly_pairings(n, L), params, variant="rotation", d_in=ones, d_out=ones,
                          bias=zeros, backend="cupy")
        y = spm_forward(layer, X)
        grads = spm_backward(layer, X, G)
        mismatches += spm_against_host(f"spm leg, n={n}", layer, X, G, y, grads, 1e-4)
        t_f = _event_median(cp, lambda: spm_forward(layer, X), repeats, warmup=2)
        t_b = _event_median(cp, lambda: spm_backward(layer, X, G), repeats, warmup=1)
        fused = fused_unsupported(layer, X) is None
        if fused:  # all L stages in one launch (isomat/algebra/_spm_fused.py), checked before it is timed
            mismatches += spm_against_host(f"spm leg (fused), n={n}", layer, X, G, spm_forward_fused(layer, X),
                                           spm_backward_fused(layer, X, G), 1e-4)
            t_ff = _event_median(cp, lambda: spm_forward_fused(layer, X), repeats, warmup=2)
            t_fb = _event_median(cp, lambda: spm_backward_fused(layer, X, G), repeats, warmup=1)
        else:
            notes.append(f"n={n}: no fused SPM: {fused_unsupported(layer, X)}")
        kw = dict(n=n, batch=batch, L=L, dtype=str(y.dtype), timer="CUDA events")
        f_mm = figure(f"dense forward X @ W (cuBLAS), n={n}", t_mm, "s", repeats=repeats, **kw)
        f_mmb = figure(f"dense backward G @ W.T and X.T @ G (cuBLAS), n={n}", t_mm_b, "s", repeats=repeats, **kw)
        f_f = figure(f"SPM forward (cupy field), n={n}", t_f, "s", repeats=repeats, **kw)
        f_b = figure(f"SPM backward (cupy field), n={n}", t_b, "s", repeats=repeats, **kw)
        figs += [f_mm, f_mmb, f_f, f_b]
        ratios += [ratio(f"speedup of SPM forward over dense, n={n}", f_mm, f_f),
                   ratio(f"speedup of SPM backward over dense, n={n}", f_mmb, f_b)]
        if fused:
            f_ff = figure(f"SPM fused forward (one launch), n={n}", t_ff, "s", repeats=repeats, **kw)
            f_fb = figure(f"SPM fused backward (forward with cache + one backward launch), n={n}", t_fb, "s",
                          repeats=repeats, **kw)
            f_dense = figure(f"dense forward + backward (cuBLAS), n={n}", t_mm + t_mm_b, "s", stat="sum of medians", **kw)
            f_both = figure(f"SPM fused forward + backward, n={n}", t_ff + t_fb, "s", stat="sum of medians", **kw)
            figs += [f_ff, f_fb, f_dense, f_both]
            r_both = ratio(f"speedup of SPM fused forward + backward over dense, n={n}", f_dense, f_both)
            ratios += [ratio(f"speedup of SPM fused forward over dense, n={n}", f_mm, f_ff),
                       ratio(f"speedup of SPM fused backward over dense, n={n}", f_mmb, f_fb), r_both]
            want = 1.0 if n >= 1024 else None  # issue 42: >= 1x at n = 1024, faster at every n >= 2048
            if want is not None:
                notes.append(f"n={n}: SPM fused forward + backward {r_both['value']:.2f}x dense: target "
                             f"{'> 1' if n >= 2048 else '>= 1'}x {'met' if r_both['value'] >= want else 'not met'}")
        dtypes = {str(y.dtype)} | {str(v.dtype) for v in grads.values() if hasattr(v, "dtype")}
        if dtypes != {"float32"}:
            notes.append(f"n={n}: SPM computed in {sorted(dtypes)}, not float32 alone: the comparison is not like for like")
        del X, G, W, layer, y, grads
    return figs, ratios, notes, mismatches


def spm_against_host(what: str, layer: Any, X: Any, G: Any, y: Any, grads: dict, rtol: float) -> list[str]:
    """The device's SPM forward ``y`` and backward ``grads`` against the CPU field's
    ``spm_forward`` / ``spm_backward`` of the same layer in float64 (the numpy field's array code,
    which shares no kernel with the device): each within ``rtol`` of its reference's largest
    magnitude, else a mismatch."""
    from isomat.algebra.spm import spm_backward, spm_forward, spm_layer
    from isomat.gpu import to_cpu

    host = spm_layer(layer.n, list(layer.pairs), to_cpu(layer.params), variant=layer.variant, d_in=to_cpu(layer.d_in),
                     d_out=to_cpu(layer.d_out), bias=to_cpu(layer.bias), odd=layer.odd,
                     odd_scale=None if layer.odd_scale is None else to_cpu(layer.odd_scale), backend="numpy")
    Xh, Gh = X.get().astype(np.float64), G.get().astype(np.float64)
    ref = {"forward": spm_forward(host, Xh)}
    ref.update(spm_backward(host, Xh, Gh))
    got = {"forward": y, **grads}
    out = []
    for key, want in ref.items():
        if not hasattr(want, "shape") or key not in got or got[key] is None:
            continue
        have = got[key].get() if hasattr(got[key], "get") else np.asarray(got[key])
        want = np.asarray(want, dtype=np.float64)
        err = float(np.abs(have.astype(np.float64) - want).max(initial=0.0)) / max(float(np.abs(want).max(initial=0.0)), 1e-30)
        if not err <= rtol:
            out.append(f"{what}: {key} differs from the CPU spm_{'forward' if key == 'forward' else 'backward'} "
                       f"(relative {err:.3g} > {rtol})")
    return out


def run(*, size: int = 8192, n: int = 4096, batch: int = 256, repeats: int = 9, build_repeats: int = 3,
        channels: int = 64, channel_size: int = 256, large_size: int = 512, build_size: int = 4096,
        spm_sizes: tuple[int, ...] | None = None, legs: tuple[str, ...] = LEGS, quick: bool = False,
        json_path: str | None = None) -> dict[str, Any]:
    """The benchmark result (``skipped`` with the reason when there is no usable device). A leg that
    fails leaves its error in ``errors``, a value that differs goes to ``mismatches``; the other legs
    still run. With ``json_path`` the result is written after every leg."""
    ok, reason = gpu_status()
    if not ok:
        return {"benchmark": "gpu", "skipped": reason, "figures": [], "ratios": [], "notes": []}
    cp = require_cupy()
    result: dict[str, Any] = {"benchmark": "gpu", "device": device_info(), "figures": [], "ratios": [],
                              "notes": [QUICK_NOTE] if quick else [], "errors": [], "mismatches": [], "legs": {}}
    copy: dict = {}
    spm_sizes = tuple(spm_sizes or (n,))
    plan: list[tuple[str, Callable[[], tuple]]] = [
        ("conv", lambda: conv_leg(cp, size, repeats, build_repeats, copy)),
        ("diagonal", lambda: diagonal_leg(cp, size, repeats, copy)),
        ("channels", lambda: channels_leg(cp, channels, channel_size, repeats, copy)),
        ("large", lambda: large_leg(cp, channels, large_size)),
        ("build", lambda: build_leg(cp, build_size, build_repeats)),
        ("spm", lambda: spm_leg(cp, spm_sizes, batch, repeats)),
    ]
    try:
        copy.update(copy_bandwidth(cp, 2 << 30 if not quick else 1 << 27, repeats))
        result["figures"].append(dict(copy))
    except Exception as exc:  # noqa: BLE001 - without the copy figure no ratio can be formed
        result["errors"].append({"leg": "copy", "error": f"{type(exc).__name__}: {exc}"})
        copy.update(figure("device copy bandwidth", float("nan"), "B/s"))
    for name, leg in plan:
        if name not in legs:
            continue
        t0 = time.perf_counter()
        try:
            figs, ratios, notes, mismatches = leg()
        except Exception as exc:  # noqa: BLE001 - reported in the JSON, never hidden
            import traceback

            result["errors"].append({"leg": name, "error": f"{type(exc).__name__}: {exc}",
                                     "traceback": traceback.format_exc()[-4000:]})
            result["notes"].append(f"{name} leg failed: {type(exc).__name__}: {exc}")
            result["legs"][name] = {"status": "error", "seconds": round(time.perf_counter() - t0, 2)}
        else:
            result["figures"] += figs
            result["ratios"] += ratios
            result["notes"] += notes
            result["mismatches"] += mismatches
            result["legs"][name] = {"status": "mismatch" if mismatches else "ok",
                                    "seconds": round(time.perf_counter() - t0, 2)}
        finally:
            try:
                cp.get_default_memory_pool().free_all_blocks()
            except Exception:  # noqa: BLE001 - a broken context is reported by the next leg
                pass
        if json_path:
            write_result(json_path, result, out=_Quiet())
    return result


class _Quiet:
    """A text sink (the summary is printed once, at the end)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", help="write the result as JSON after every leg (benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="small sizes (not bandwidth figures), 3 repeats")
    ap.add_argument("--size", type=int, default=None, help="image side of the conv and diagonal legs (default 8192)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--legs", metavar="NAMES", default=",".join(LEGS), help=f"comma-separated, of {', '.join(LEGS)}")
    args = ap.parse_args(argv)
    legs = tuple(s.strip() for s in args.legs.split(",") if s.strip())
    unknown = sorted(set(legs) - set(LEGS))
    if unknown:
        ap.error(f"unknown leg(s) {unknown}; the legs are {', '.join(LEGS)}")
    q = args.quick
    result = run(size=args.size or (1024 if q else 8192), n=1024 if q else 4096, repeats=args.repeats or (3 if q else 9),
                 build_repeats=2 if q else 3, channels=8 if q else 64, channel_size=64 if q else 256,
                 large_size=64 if q else 512, build_size=256 if q else 4096,
                 spm_sizes=(256, 1024) if q else (1024, 2048, 4096, 8192), batch=16 if q else 256, legs=legs, quick=q,
                 json_path=args.json)
    write_result(args.json, result)
    for m in result.get("mismatches", []):
        print(f"MISMATCH: {m}", file=sys.stderr)
    return 1 if result.get("errors") or result.get("mismatches") else 0


if __name__ == "__main__":
    sys.exit(main())
