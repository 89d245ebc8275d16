"""Device kernel variants of the diagonal-block products, each checked against CSR before it is timed.

Issue 42: the 64 -> 64-channel 3x3 "same" conv at 256 x 256 (2.4e9 stored entries) stored by
diagonals (``isomat.algebra.diagonal``) reaches 0.89 / 0.90 of a device-to-device copy for ``A x``
(the chunked kernel) and 0.66 / 0.77 (float32 / float64) for ``A^T y`` (the one-sum kernel). The
variants timed here, float32 and float64:

``matvec``
    the library's ``A x`` (``DiagonalBlocks.__matmul__``: the chunked kernel and its chunk sum above
    one chunk of input channels, the one-sum kernel below).
``rmatvec``
    the library's ``A^T y`` (one sum per column over every block row and diagonal).
``rmatvec_chunks``
    the exact mirror of the library's ``matvec_chunks``: a thread per (chunk of block rows, column)
    sums 64 bytes' worth of block rows (16 float32 / 8 float64 output channels) with a counted loop,
    every column of a chunk before the next chunk; the library's ``sum_chunks`` adds the partials.
``rmatvec_chunks_vec``
    the same with vector loads: a thread takes 4 float32 (``float4``) or 2 float64 (``double2``)
    consecutive columns, one 16-byte load per diagonal and block row (the block size must be a
    multiple of the lanes and the storage 16-byte aligned; the launcher refuses otherwise).

Every variant's result is first compared, at a size whose CSR CuPy can hold, with the device's CSR
product (cuSPARSE) and the host's (SciPy), for input / output channel counts on both sides of the
chunking threshold (partial chunks included); at the timed size sampled entries are compared with
the host's direct sums. A variant that differs is a mismatch (exit status 1) and is not timed.
Times are CUDA events (medians), bandwidths fractions of a device-to-device copy measured in the
same run. Run::

    python benchmarks/kernel_variants.py [--json OUT] [--channels 64] [--size 256] [--repeats 9] [--quick]

Without a usable CUDA device it writes ``skipped`` with the reason and exits 0. The CUDA sources are
in :data:`SOURCES`; ``tests/test_nvrtc.py`` compiles each with the real NVRTC, and
``tests/test_kernel_variants.py`` runs them through the CuPy stand-in.
"""

from __future__ import annotations

import argparse
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

VARIANTS = ("matvec", "rmatvec", "rmatvec_chunks", "rmatvec_chunks_vec")

# The mirror of isomat.algebra.diagonal's matvec_chunks: part[h, c] sums block rows h * chunk ..
# (h + 1) * chunk - 1 of column c; chunk-major, so consecutive threads read consecutive c of one
# diagonal (coalesced), and no `break`: the counted loop lets the loads be issued ahead.
_RMATVEC_CHUNKS = r"""
extern "C" __global__ void isomat_variant_rmatvec_chunks_NAME(
    const T* __restrict__ data, const long long* __restrict__ offsets, const T* __restrict__ y, T* __restrict__ part,
    long long n_rows, long long n_cols, long long block, long long n_diag, long long span, long long chunk)
{
  const long long n_br = (n_rows + block - 1) / block, n_chunks = (n_br + chunk - 1) / chunk;
  const long long step = (long long)blockDim.x * gridDim.x, total = n_cols * n_chunks;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const long long h = t / n_cols, c = t - h * n_cols;
    const long long j = c % block;  /* column inside its block */
    const long long p0 = h * chunk, p1 = p0 + chunk < n_br ? p0 + chunk : n_br;
    T acc = 0;
    for (long long d = 0; d < n_diag; ++d) {
      const long long i = j - offsets[d];  /* row inside each block */
      if (i < 0 || i >= block) continue;
      for (long long p = p0; p < p1; ++p) {
        const long long r = p * block + i;
        if (r < n_rows) acc += data[(p * n_diag + d) * span + c] * y[r];
      }
    }
    part[h * n_cols + c] = acc;
  }
}
"""
# The same with one 16-byte load of V consecutive columns c0 .. c0 + V - 1 (one block, as block % V == 0)
# per diagonal and block row: VT is float4 (V = 4) or double2 (V = 2), LANES(F) names the lanes.
_RMATVEC_CHUNKS_VEC = r"""
#define LANE(u, f) { const long long i = j0 + u - k; \
  if (i >= 0 && i < block && p * block + i < n_rows) a##u += v.f * y[p * block + i]; }
extern "C" __global__ void isomat_variant_rmatvec_chunks_vec_NAME(
    const VT* __restrict__ data, const long long* __restrict__ offsets, const T* __restrict__ y, VT* __restrict__ part,
    long long n_rows, long long n_cols, long long block, long long n_diag, long long span, long long chunk)
{
  const long long n_br = (n_rows + block - 1) / block, n_chunks = (n_br + chunk - 1) / chunk;
  const long long groups = n_cols / V, vspan = span / V;
  const long long step = (long long)blockDim.x * gridDim.x, total = groups * n_chunks;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const long long h = t / groups, g = t - h * groups;
    const long long j0 = (g * V) % block;
    const long long p0 = h * chunk, p1 = p0 + chunk < n_br ? p0 + chunk : n_br;
    T a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (long long d = 0; d < n_diag; ++d) {
      const long long k = offsets[d];
      for (long long p = p0; p < p1; ++p) {
        const VT v = data[(p * n_diag + d) * vspan + g];
        LANES
      }
    }
    VT out;
    STORE
    part[h * groups + g] = out;
  }
}
"""
_LANES = {4: ("LANE(0, x) LANE(1, y) LANE(2, z) LANE(3, w)", "out.x = a0; out.y = a1; out.z = a2; out.w = a3;"),
          2: ("LANE(0, x) LANE(1, y)", "out.x = a0; out.y = a1; (void)a2; (void)a3;")}
#: bytes of one diagonal's values a chunked thread sums (the library's choice for matvec_chunks)
CHUNK_BYTES = 64


def _source(kind: str, dtype: Any) -> tuple[str, str]:
    """``(kernel name, CUDA source)`` of the variant ``kind`` ("rmatvec_chunks" / "rmatvec_chunks_vec")."""
    f64 = np.dtype(dtype) == np.float64
    ctype, suffix = ("double", "f64") if f64 else ("float", "f32")
    if kind == "rmatvec_chunks":
        body = _RMATVEC_CHUNKS
        head = f"typedef {ctype} T;\n"
    elif kind == "rmatvec_chunks_vec":
        lanes = 2 if f64 else 4
        lane_code, store = _LANES[lanes]
        body = _RMATVEC_CHUNKS_VEC.replace("LANES", lane_code).replace("STORE", store)
        head = f"typedef {ctype} T;\ntypedef {ctype}{lanes} VT;\n#define V {lanes}\n"
    else:
        raise ValueError(f"kind must be 'rmatvec_chunks' or 'rmatvec_chunks_vec', got {kind!r}")
    return f"isomat_variant_{kind}_{suffix}", head + body.replace("NAME", suffix)


#: ``{kernel name: CUDA source}`` of every variant kernel (tests/test_nvrtc.py compiles them all)
SOURCES = dict(_source(kind, dt) for kind in ("rmatvec_chunks", "rmatvec_chunks_vec") for dt in (np.float32, np.float64))


def lanes(dtype: Any) -> int:
    """Values a vector load of the ``_vec`` variant carries: 16 bytes."""
    return 16 // np.dtype(dtype).itemsize


def _ptr(a: Any) -> int:
    return int(a.data.ptr)


class Variants:
    """The compiled variant kernels of one CuPy module, and the products of a ``DiagonalBlocks``."""

    def __init__(self, cp: Any) -> None:
        self.cp, self._kernels, self._offsets = cp, {}, {}

    def kernel(self, kind: str, dtype: Any) -> Any:
        key = (kind, np.dtype(dtype).name)
        if key not in self._kernels:
            name, source = _source(kind, dtype)
            self._kernels[key] = self.cp.RawKernel(source, name)
        return self._kernels[key]

    def product(self, kind: str, D: Any, v: Any) -> Any:
        """``A v`` ("matvec") or ``A^T v`` (the others) of the cupy-field ``DiagonalBlocks`` ``D``."""
        if kind == "matvec":
            return D @ v
        if kind == "rmatvec":
            return D.rmatvec(v)
        return self.rmatvec_chunks(D, v, vector=kind == "rmatvec_chunks_vec")

    def rmatvec_chunks(self, D: Any, y: Any, *, vector: bool) -> Any:
        """``A^T y`` by partial sums over chunks of block rows, then the library's chunk sum."""
        from isomat.algebra.diagonal import _device_kernel

        cp, dtype = self.cp, D.data.dtype
        if y.dtype != dtype or y.shape != (D.shape[0],):
            raise ValueError(f"y must be a ({D.shape[0]},) {dtype} CuPy array, got {tuple(y.shape)} {y.dtype}")
        n_rows, n_cols = D.shape
        b, n_diag, span = D.block, int(D.offsets.size), int(D.data.shape[2])
        chunk = CHUNK_BYTES // dtype.itemsize
        n_chunks = -(-(-(-n_rows // b)) // chunk)
        part = cp.empty((n_chunks, n_cols), dtype=dtype)
        if vector:
            v = lanes(dtype)
            if b % v or span % v or n_cols % v or _ptr(D.data) % 16 or _ptr(part) % 16:
                raise ValueError(f"the vector-load variant needs the block ({b}) and the span ({span}) multiples of "
                                 f"{v} and 16-byte aligned storage")
            work = n_cols // v * n_chunks
        else:
            work = n_cols * n_chunks
        if self._offsets.get(id(D), (None,))[0] is not D:  # copied once per store, not per product
            self._offsets[id(D)] = (D, cp.asarray(np.asarray(D.offsets, dtype=np.int64)))
        offsets = self._offsets[id(D)][1]
        i64 = np.int64
        threads = 128
        self.kernel("rmatvec_chunks_vec" if vector else "rmatvec_chunks", dtype)(
            (min(-(-work // threads), 1 << 20),), (threads,),
            (D.data, offsets, y, part, i64(n_rows), i64(n_cols), i64(b), i64(n_diag), i64(span), i64(chunk)))
        out = cp.empty(n_cols, dtype=dtype)
        _device_kernel(cp, dtype, "sum_chunks")((min(-(-n_cols // threads), 1 << 20),), (threads,),
                                                (part, out, i64(n_cols), i64(n_chunks)))
        return out


def check_against_csr(cp: Any, variants: Variants, dtype: Any, channel_pairs: tuple[tuple[int, int], ...],
                      size: tuple[int, int], seed: int = 21) -> tuple[float, list[str]]:
    """Every variant against the device's CSR product and the host's, for ``(c_out, c_in)`` convs at
    ``size``: the worst relative difference and the mismatches (float32 1e-5, float64 1e-12)."""
    import scipy.sparse as sp

    from isomat.algebra import conv_matrix
    from isomat.gpu import to_gpu

    rtol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    rng = np.random.default_rng(seed)
    worst, bad = 0.0, []
    for c_out, c_in in channel_pairs:
        kernel = rng.standard_normal((c_out, c_in, 3, 3)).astype(dtype)
        A_host = sp.csr_array(conv_matrix((c_in, *size), kernel, padding="same"))
        A_dev = to_gpu(A_host)
        D = conv_matrix((c_in, *size), cp.asarray(kernel), padding="same", format="diagonal")
        x = rng.standard_normal(A_host.shape[1]).astype(dtype)
        y = rng.standard_normal(A_host.shape[0]).astype(dtype)
        for kind in VARIANTS:
            v_host, v_dev = (x, A_dev) if kind == "matvec" else (y, A_dev.T)
            host = (A_host @ x) if kind == "matvec" else (A_host.T @ y)
            got = variants.product(kind, D, cp.asarray(v_host))
            if got.dtype != np.dtype(dtype):
                bad.append(f"{kind} ({np.dtype(dtype).name}, {c_out}<-{c_in}): returned {got.dtype}")
                continue
            got = got.get().astype(np.float64)
            scale = max(float(np.abs(host).max()), 1e-30)
            for ref_name, ref in (("the host CSR", host.astype(np.float64)),
                                  ("the device CSR", (v_dev @ cp.asarray(v_host)).get().astype(np.float64))):
                err = float(np.abs(got - ref).max()) / scale
                worst = max(worst, err)
                if not err <= rtol:
                    bad.append(f"{kind} ({np.dtype(dtype).name}, {c_out}<-{c_in} channels at {size}): differs from "
                               f"{ref_name} by {err:.3g} relative (> {rtol})")
    return worst, bad


def _event_median(cp: Any, fn: Callable[[], Any], repeats: int) -> float:
    import statistics

    fn()
    times = []
    for _ in range(max(int(repeats), 1)):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


def run(*, channels: int = 64, size: int = 256, repeats: int = 9, check_size: tuple[int, int] = (16, 16),
        quick: bool = False) -> dict[str, Any]:
    """The result: checks first (a variant that differs is listed in ``mismatches`` and not timed), then
    each variant's time and bandwidth against the copy, float32 and float64."""
    import importlib.util

    from isomat.gpu import device_info, gpu_status, require_cupy

    ok, reason = gpu_status()
    if not ok:
        return {"benchmark": "kernel_variants", "skipped": reason, "figures": [], "ratios": [], "notes": []}
    cp = require_cupy()
    spec = importlib.util.spec_from_file_location("_isomat_gpu_bench", _HERE / "gpu.py")
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)  # the copy figure, the diagonals, the direct sums: shared with gpu.py
    variants = Variants(cp)
    result: dict[str, Any] = {"benchmark": "kernel_variants", "device": device_info(), "figures": [], "ratios": [],
                              "notes": [gpu.QUICK_NOTE] if quick else [], "mismatches": [], "checks": {}}
    copy = gpu.copy_bandwidth(cp, 1 << 27 if quick else 2 << 30, repeats)
    result["figures"].append(copy)
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        per = CHUNK_BYTES // np.dtype(dtype).itemsize
        pairs = ((2, 3), (per + 1, per + 1), (2 * per + 3, 2), (3, 2 * per + 3), (channels, channels))
        worst, bad = check_against_csr(cp, variants, dtype, pairs, check_size)
        result["checks"][name] = {"channel_pairs": [list(p) for p in pairs], "size": list(check_size),
                                  "max_rel_diff": worst, "mismatches": bad}
        result["mismatches"] += bad
        wrong = {k for k in VARIANTS if any(m.startswith(f"{k} (") for m in bad)}
        D, kernel = gpu._conv_diagonals(cp, channels, size, dtype)
        x = cp.asarray(np.random.default_rng(4).standard_normal(D.shape[1]).astype(dtype))
        y = cp.asarray(np.random.default_rng(6).standard_normal(D.shape[0]).astype(dtype))
        moved = D.data.nbytes + D.offsets.size * 8 + (D.shape[0] + D.shape[1]) * np.dtype(dtype).itemsize
        rtol = 1e-5 if dtype == np.float32 else 1e-13
        for kind in VARIANTS:
            if kind in wrong:
                result["notes"].append(f"{kind} ({name}) not timed: it differs from CSR")
                continue
            v = x if kind == "matvec" else y
            out = variants.product(kind, D, v)
            miss = gpu._check_sampled_rows(f"{kind} ({name}, {channels} channels at {size}^2)", kernel, v.get(), out,
                                           size, rtol, transpose=kind != "matvec")
            if miss:
                result["mismatches"] += miss
                continue
            t = _event_median(cp, lambda: variants.product(kind, D, v), repeats)
            params = dict(image=f"{size}x{size}", channels=f"{channels}->{channels}", dtype=name, nnz=int(D.nnz),
                          timer="CUDA events")
            f_t = figure(f"{kind} time ({name})", t, "s", repeats=repeats, **params)
            f_bw = figure(f"{kind} effective bandwidth ({name})", moved / t, "B/s", repeats=repeats,
                          bytes_moved=int(moved))
            result["figures"] += [f_t, f_bw]
            result["ratios"].append(ratio(f"{kind} bandwidth / device copy bandwidth ({name})", f_bw, copy))
        del D, x, y
        cp.get_default_memory_pool().free_all_blocks()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", help="write the result as JSON")
    ap.add_argument("--channels", type=int, default=None, help="channels in and out of the timed conv (default 64)")
    ap.add_argument("--size", type=int, default=None, help="image side of the timed conv (default 256)")
    ap.add_argument("--repeats", type=int, default=None, help="timed repeats (default 9)")
    ap.add_argument("--quick", action="store_true", help="small sizes (8 channels at 16^2): overheads, not bandwidths")
    args = ap.parse_args(argv)
    q = args.quick
    t0 = time.perf_counter()
    result = run(channels=args.channels or (8 if q else 64), size=args.size or (16 if q else 256),
                 repeats=args.repeats or (3 if q else 9), check_size=(4, 6) if q else (16, 16), quick=q)
    result["seconds"] = round(time.perf_counter() - t0, 2)
    write_result(args.json, result)
    for m in result.get("mismatches", []):
        print(f"MISMATCH: {m}", file=sys.stderr)
    return 1 if result.get("mismatches") else 0


if __name__ == "__main__":
    sys.exit(main())
