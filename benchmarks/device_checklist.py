"""The device checklist: everything the GPU field needs, checked on a real CUDA device, in one command.

Run from the checkout on a machine with a GPU (the recipe for a lent machine with no package
index, which wheels to carry and where the kernel cache goes: ``benchmarks/README.md``)::

    python benchmarks/device_checklist.py [--json PATH] [--budget SECONDS] [--allow-skip]
                                          [--only NAMES] [--skip NAMES] [--verify-paper PAPER] [--quick]
                                          [--strict] [--bench-floor FRACTION]

Checks, in order (``--only`` / ``--skip`` take comma-separated names):

``probe``
    ``isomat.gpu.gpu_status``: CuPy >= 14.1, a compiled kernel, a cuSPARSE and a cuBLAS product;
    the device, driver, CUDA runtime and CuPy versions are recorded.
``families``
    every construction family built in the cupy field against the same build in NumPy (one line
    per family; the result must be device data and agree to 1e-12).
``diagonal``
    small multi-channel convs through ``diagonal_blocks`` on the device against the host's CSR
    product and the device's: matvec and rmatvec, float32 (tolerance 1e-5 relative) and float64
    (1e-12), at input channel counts on both sides of the chunked kernel's threshold, partial
    chunks included (:data:`DIAGONAL_CHANNELS`).
``memory``
    the device memory pool's peak for builds of ~10^7 stored entries of the scalable families
    (conv, avgpool, swap, kron), per stored entry, against the device guard's estimate.
``int64``
    the Kronecker product of two 1 x 70000 sparse vectors (extent 4.9e9 > 2**31) on the device:
    int64 indices, the same entries as SciPy's.
``dlpack``
    ``isomat.export.to_dlpack`` of a cupy-field operator read by ``torch.from_dlpack`` on the
    device, and back with ``isomat.export.from_dlpack`` (skipped when torch or its CUDA is missing).
``twin``
    the sparse twin on CUDA (``isomat.torch.SparseAffine`` of a replicate-padded Conv2d and a
    Linear, ``to_sparse_model`` of LeNet-5): output, input and parameter gradients against the
    native modules, float64 (1e-12) and float32 (1e-5); skipped when torch's CUDA is missing.
``dask``
    ``isomat.distributed.apply_row_blocks(..., device="gpu")`` on a local Dask cluster against the
    CPU product (skipped when dask.distributed is missing).
``bench``
    ``benchmarks/gpu.py`` in a subprocess (``--quick`` with ``--quick``): its full JSON is kept
    beside the checklist's (``<json stem>-gpu.json``); the check fails on an error, a mismatch, or
    ``skipped``.
``verify``
    ``isomat verify --backend cupy`` against ``isomat verify`` on the CPU, both in subprocesses at
    once: the same verdict for every claim (``--verify-paper`` restricts both runs to one paper);
    both verdict lists are kept in the JSON.

Time: ``--budget`` (default 480 s) is the whole run's. Before each check the checklist keeps back
the minimum the checks after it need; a check that does not fit in what is left is a ``SKIP`` "for
time", a subprocess check gets what is left as its timeout. The JSON (default
``benchmarks/results/device_checklist.json``) is rewritten after every check, so a run cut short
keeps what it did.

``--strict`` (the recipe's): a check skipped for time fails; ``bench`` fails any product whose
bandwidth is below ``--bench-floor`` (default :data:`DEFAULT_BENCH_FLOOR`, 0.4; with ``--quick``,
whose sizes time overheads, only when given) of the device copy measured in the same run;
``verify`` fails unless every claim whose check compares float products (:func:`float_claims`:
its CPU record lists the ``numeric`` method) reached the device in this run, and says how many did.

Each check prints one line, ``PASS``, ``FAIL`` or ``SKIP``, its name and the detail or reason. The
exit status is 1 when any check fails, else 0. Without a usable CUDA device nothing else runs: it
prints ``SKIP ... no usable CUDA device: <the probe's reason>`` and exits 2, or 0 with
``--allow-skip`` (the CI path).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Run as a script, this folder is sys.path[0], and its modules would shadow packages:
# benchmarks/distributed.py hid dask's `distributed` from the dask check.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

CHECKS = ("probe", "families", "diagonal", "memory", "int64", "dlpack", "twin", "dask", "bench", "verify")
#: seconds each check needs at the least (on an H100: compiles included); what the budget keeps back
MINIMUM_S = {"probe": 0, "families": 20, "diagonal": 5, "memory": 10, "int64": 5, "dlpack": 5, "twin": 10,
             "dask": 15, "bench": 60, "verify": 60}
DEFAULT_BUDGET_S = 480.0
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "device_checklist.json"
EXIT_NO_DEVICE = 2


class Skip(Exception):
    """A check that cannot run here (a missing optional dependency, no time left), with the reason."""


# -- the families: the testing kit's table, name -> build(dev, backend) ------------------------------
def _families() -> dict[str, Callable[[Callable[[Any], Any], str], Any]]:
    from isomat.testing.families import family_builds

    return family_builds()


FAMILY_NAMES = tuple(_families())


def _dense_host(x: Any) -> np.ndarray:
    if hasattr(x, "toarray"):
        x = x.toarray()
    if hasattr(x, "get"):
        x = x.get()
    return np.asarray(x, dtype=float)


def check_family(name: str) -> str:
    from isomat.gpu import is_cupy_array, to_gpu

    build = _families()[name]
    ref = _dense_host(build(lambda x: x, "numpy"))
    out = build(to_gpu, "cupy")
    if not is_cupy_array(out):
        raise AssertionError(f"a {type(out).__module__}.{type(out).__name__} came back, not device data")
    got = _dense_host(out)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    return f"{type(out).__name__} {tuple(got.shape)}, max |diff| {float(np.max(np.abs(got - ref), initial=0.0)):.1e}"


#: input channels of the diagonal check per dtype: one chunk, exactly one full chunk, one full chunk and a
#: partial one, and several with a partial last (the device sums 64 bytes of block columns a chunk: 16
#: float32 or 8 float64 input channels), so the one-sum and the chunked kernels both run, partial chunks too
DIAGONAL_CHANNELS = {np.float32: (3, 16, 17, 35), np.float64: (3, 8, 9, 19)}


def check_diagonal() -> str:
    """'Same' 3x3 convs from 2 output channels to each of :data:`DIAGONAL_CHANNELS`' input channel
    counts, stored by diagonals on the device: matvec and rmatvec against the host's CSR product
    (SciPy, independent of the device kernels) and the device's CSR (cuSPARSE), float32 (1e-5
    relative) and float64 (1e-12); the chunk counts the device product used are reported."""
    import scipy.sparse as sp

    from isomat.algebra import conv_matrix
    from isomat.algebra.diagonal import _DEVICE_CHUNK_BYTES
    from isomat.gpu import require_cupy, to_gpu

    cp = require_cupy()
    rng = np.random.default_rng(12)
    lines = []
    for dtype, rtol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        worst, chunks = 0.0, []
        for c_in in DIAGONAL_CHANNELS[dtype]:
            kernel = rng.standard_normal((2, c_in, 3, 3)).astype(dtype)
            shape = (c_in, 7, 5)
            A_host = sp.csr_array(conv_matrix(shape, kernel, padding="same"))
            D = conv_matrix(shape, cp.asarray(kernel), padding="same", format="diagonal")
            A_dev = to_gpu(A_host)
            if D.field != "cupy" or D.dtype != dtype:
                raise AssertionError(f"format='diagonal' gave a {D.field}-field {D.dtype} store, not cupy {np.dtype(dtype)}")
            per = _DEVICE_CHUNK_BYTES // np.dtype(dtype).itemsize
            chunks.append(f"{c_in}: {-(-c_in // per)}")
            x = rng.standard_normal(A_host.shape[1]).astype(dtype)
            y = rng.standard_normal(A_host.shape[0]).astype(dtype)
            for what, got, dev, host in (("matvec", D @ cp.asarray(x), A_dev @ cp.asarray(x), A_host @ x),
                                         ("rmatvec", D.rmatvec(cp.asarray(y)), A_dev.T @ cp.asarray(y), A_host.T @ y)):
                if got.dtype != dtype:
                    raise AssertionError(f"{np.dtype(dtype).name} {what} returned {got.dtype}")
                got, dev = got.get().astype(float), dev.get().astype(float)
                scale = max(float(np.abs(host).max()), 1e-30)
                for ref_name, ref in (("the host CSR", host.astype(float)), ("the device CSR", dev)):
                    err = float(np.abs(got - ref).max()) / scale
                    worst = max(worst, err)
                    if not err <= rtol:
                        raise AssertionError(f"{np.dtype(dtype).name} {what}, {c_in} input channels, differs from "
                                             f"{ref_name}: relative {err:.3g} > {rtol}")
        lines.append(f"{np.dtype(dtype).name} max rel diff {worst:.1e} (input channels: chunks {', '.join(chunks)})")
    return "matvec and rmatvec equal CSR's (host and device): " + "; ".join(lines)


def _memory_builds(cp: Any) -> dict[str, Callable[[], Any]]:
    """Builds of ~10^7 stored entries of the families whose size is one argument."""
    import scipy.sparse as sp

    from isomat.algebra import avgpool_matrix, conv_matrix, kron, swap_matrix
    from isomat.gpu import to_gpu

    k = cp.asarray(np.random.default_rng(1).standard_normal((3, 3)))
    a = to_gpu(sp.random_array((2048, 2048), density=2e-3, rng=3, format="csr"))
    b = to_gpu(sp.random_array((1024, 1024), density=1e-3, rng=4, format="csr"))
    return {"conv 1024^2 3x3": lambda: conv_matrix((1024, 1024), k, padding="same", backend="cupy"),
            "avgpool 4096^2 2x2": lambda: avgpool_matrix((1, 4096, 4096), (2, 2), backend="cupy"),
            "swap 4096 x 2048": lambda: swap_matrix(4096, 2048, backend="cupy"),
            "kron of two random sparse": lambda: kron(a, b)}


def check_memory(records: list) -> str:
    from isomat.algebra._operator import last_device_estimate
    from isomat.gpu import require_cupy

    cp = require_cupy()
    pool = cp.get_default_memory_pool()
    lines = []
    for name, build in _memory_builds(cp).items():
        build()  # first use: compiles, pool growth
        pool.free_all_blocks()
        base = pool.total_bytes()
        A = build()
        cp.cuda.Device().synchronize()
        peak, nnz, rows = pool.total_bytes() - base, int(A.nnz), int(A.shape[0])
        guard = last_device_estimate()  # the guard's estimate for this build
        if guard.get("nnz") != nnz:
            raise AssertionError(f"{name}: the device guard did not see this build (last estimate {guard})")
        estimate = guard["bytes"]
        records.append({"family": name, "nnz": nnz, "rows": rows, "staging": guard["staging"], "pool_peak_bytes": int(peak),
                        "bytes_per_entry": round(peak / max(nnz, 1), 2), "guard_estimate_bytes": int(estimate),
                        "peak_over_estimate": round(peak / max(estimate, 1), 3)})
        lines.append(f"{name}: {peak / max(nnz, 1):.1f} B/entry ({peak / max(estimate, 1):.2f} of the guard's)")
        del A
        pool.free_all_blocks()
    over = [r["family"] for r in records if r["peak_over_estimate"] > 1]
    if over:
        raise AssertionError("the device guard UNDERESTIMATES: " + "; ".join(lines))
    return "; ".join(lines)


def check_int64() -> str:
    import scipy.sparse as sp

    from isomat.algebra import kron
    from isomat.gpu import is_cupy_sparse, to_gpu

    a = sp.random_array((1, 70000), density=1e-4, rng=1, format="csr")
    b = sp.random_array((1, 70000), density=1e-4, rng=2, format="csr")
    K = kron(to_gpu(a), to_gpu(b))
    if not is_cupy_sparse(K):
        raise AssertionError(f"kron gave a {type(K).__name__}, not a cupyx sparse matrix")
    if K.shape != (1, 70000 * 70000):
        raise AssertionError(f"shape {K.shape}")
    index = {n: getattr(K, n).dtype for n in ("indices", "indptr", "row", "col") if hasattr(K, n)}
    if any(dt != np.int64 for dt in index.values()):
        raise AssertionError(f"index dtypes {index}: an extent of 4.9e9 needs int64")
    host = sp.csr_array(K.get())
    ref = sp.kron(sp.csr_array(a), sp.csr_array(b), format="csr")
    if host.nnz != ref.nnz or int(host.indices.max()) != int(ref.indices.max()) or abs(host - ref).max() != 0:
        raise AssertionError("the device product's entries differ from SciPy's")
    return f"{K.format} {K.shape}, nnz {K.nnz}, indices int64, largest column {int(ref.indices.max()):,}"


def _subprocess(argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    """``argv`` with this interpreter, from the checkout, killed at ``timeout`` seconds (a
    ``Skip`` when there is no time at all)."""
    if timeout < 1:
        raise Skip(f"for time: {timeout:.0f} s left of the budget")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)


def float_claims(cpu_report: dict) -> list[str]:
    """The claims whose checks compare float products: those whose CPU record lists the ``numeric``
    method (``isomat.proofs.engine.METHODS``; a float comparison with a stated tolerance). Read from
    the CPU run, so the set does not depend on what the device run counted."""
    return sorted(c["id"] for c in cpu_report["claims"] if "numeric" in (c.get("methods") or []))


def check_verify(paper: str | None, timeout: float, record: dict, *, strict: bool = False) -> str:
    """Both ledgers in subprocesses at once (the CPU one on the CPUs, the cupy one on the device).
    With ``strict`` every claim whose check compares float products (:func:`float_claims`) must have
    reached the device in this run: by device work of its own or by a device result an earlier claim
    of the run computed (counted apart)."""
    if timeout < MINIMUM_S["verify"]:
        raise Skip(f"for time: {timeout:.0f} s left of the budget, the check needs {MINIMUM_S['verify']}")
    base = ["-m", "isomat", "verify", "--json", *(("--paper", paper) if paper else ())]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    procs = {which: subprocess.Popen([sys.executable, *base, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=ROOT, env=env)
             for which, extra in (("cpu", []), ("cupy", ["--backend", "cupy"]))}
    deadline = time.monotonic() + timeout
    results: dict[str, dict] = {}
    try:
        for which, proc in procs.items():
            try:
                stdout, stderr = proc.communicate(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                raise AssertionError(f"isomat verify ({which}) did not finish within the {timeout:.0f} s left") from None
            try:
                results[which] = json.loads(stdout)
            except json.JSONDecodeError:
                raise AssertionError(f"isomat verify ({which}) exited {proc.returncode} and printed no JSON: "
                                     f"{stderr.strip()[-400:]}") from None
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return compare_verify(results["cpu"], results["cupy"], record, strict=strict)


def compare_verify(cpu: dict, gpu: dict, record: dict, *, strict: bool = False) -> str:
    """:func:`check_verify`'s verdict on the two ``isomat verify --json`` reports (CPU, cupy)."""
    if gpu.get("backend") != "cupy":
        raise AssertionError(f"the GPU run reports backend {gpu.get('backend')!r}")
    a = {c["id"]: c["verdict"] for c in cpu["claims"]}
    b = {c["id"]: c["verdict"] for c in gpu["claims"]}
    record["verdicts"] = {"cpu": a, "cupy": b}
    touched = gpu.get("device_claims")
    if touched is not None:
        record["device_claims"] = touched
        record["device_reused_claims"] = gpu.get("device_reused_claims", [])
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if differ:
        raise AssertionError(f"{len(differ)} verdicts differ: " + "; ".join(f"{k}: cpu {a.get(k)}, cupy {b.get(k)}"
                                                                          for k in differ[:5]))
    touched_text = (f"; {len(touched)} claims ran device work, {len(gpu.get('device_reused_claims', []))} more rest on "
                    "cached device results" if isinstance(touched, list) else "")
    floats = float_claims(cpu)
    ran = set(touched or [])
    reused = set(gpu.get("device_reused_claims") or [])
    missing = [k for k in floats if k not in ran | reused]
    record["float_claims"] = {"claims": floats, "ran_on_device": sorted(ran & set(floats)),
                              "rest_on_device_results": sorted(reused & set(floats)), "not_on_device": missing}
    floats_text = (f"; of the {len(floats)} claims whose checks compare float products, {len(ran & set(floats))} ran "
                   f"on the device in this run, {len(reused & set(floats))} rest on device results of this run, "
                   f"{len(missing)} did not reach it")
    if strict and (touched is None or missing):
        raise AssertionError(("the cupy run reports no device claims" if touched is None else
                              f"{len(missing)} of the {len(floats)} float claims did not reach the device: "
                              + ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")) + " (--strict)")
    return f"{len(a)} claims, the same verdict on both backends{touched_text}{floats_text}"


def check_dlpack() -> str:
    try:
        import torch
    except ImportError as exc:
        raise Skip(f"torch is not installed ({exc})") from None
    if not torch.cuda.is_available():
        raise Skip(f"torch {torch.__version__} has no usable CUDA")
    from isomat.algebra import conv_matrix
    from isomat.export import from_dlpack, to_dlpack
    from isomat.gpu import is_cupy_array, require_cupy

    cp = require_cupy()
    kernel = np.arange(9.0).reshape(3, 3)
    A = conv_matrix((6, 6), cp.asarray(kernel), format="operator")
    t = torch.from_dlpack(to_dlpack(A))
    if t.device.type != "cuda":
        raise AssertionError(f"torch received the matrix on {t.device}, not on the GPU")
    ref = conv_matrix((6, 6), kernel).toarray()
    np.testing.assert_array_equal(t.cpu().numpy(), ref)
    back = from_dlpack(t)
    if not is_cupy_array(back):
        raise AssertionError(f"from_dlpack(cuda tensor) gave a {type(back).__name__}, not a CuPy array")
    np.testing.assert_array_equal(from_dlpack(t, device="host"), ref)
    return f"CuPy -> torch on {t.device} -> CuPy, and to the host, all equal"


def check_twin() -> str:
    """The sparse twin (isomat.torch.SparseAffine / to_sparse_model) on CUDA: forward, input and
    parameter gradients equal the native module's, float64 (1e-12) and float32 (1e-5)."""
    try:
        import torch
    except ImportError as exc:
        raise Skip(f"torch is not installed ({exc})") from None
    if not torch.cuda.is_available():
        raise Skip(f"torch {torch.__version__} has no usable CUDA")
    return twin_equals_native("cuda")


def twin_equals_native(device: str) -> str:
    """:func:`check_twin`'s comparisons on ``device`` (the tests run them on the CPU)."""
    import copy

    import torch
    from torch import nn

    from isomat.testing.models import LeNet5
    from isomat.torch import SparseAffine, to_sparse_model

    done = []
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
        torch.manual_seed(0)
        cases = [("Conv2d replicate", nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"), (2, 9, 9)),
                 ("Linear", nn.Linear(20, 7), (20,))]
        for name, module, shape in cases:
            module = module.to(device=device, dtype=dtype)
            native = copy.deepcopy(module)
            twin = SparseAffine.from_module(module, shape)
            x = torch.randn((4,) + shape, dtype=dtype, device=device, requires_grad=True)
            xn = x.detach().clone().requires_grad_(True)
            y, yn = twin(x), native(xn)
            if y.device.type != torch.device(device).type:
                raise AssertionError(f"{name}: the twin's output is on {y.device}, not on {device}")
            torch.testing.assert_close(y, yn, rtol=tol, atol=tol)
            g = torch.randn_like(y)
            y.backward(g)
            yn.backward(g)
            torch.testing.assert_close(x.grad, xn.grad, rtol=tol, atol=tol)
            for (pn, p), q in zip(module.named_parameters(), native.parameters()):
                torch.testing.assert_close(p.grad, q.grad, rtol=tol, atol=tol, msg=f"{name} {pn}.grad differs")
            done.append(f"{name} {str(dtype).split('.')[-1]}")
        model = LeNet5().to(device=device, dtype=dtype).eval()
        sparse = to_sparse_model(model, (1, 32, 32))
        x = torch.randn(8, 1, 32, 32, dtype=dtype, device=device)
        torch.testing.assert_close(sparse(x), model(x), rtol=tol * 10, atol=tol * 10)
        done.append(f"LeNet-5 {str(dtype).split('.')[-1]}")
    return f"twin equals native on {device}: " + ", ".join(done)


def check_dask() -> str:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise Skip(f"dask.distributed is not installed ({exc})") from None
    from isomat.algebra import conv_matrix
    from isomat.distributed import apply_row_blocks, construction_rows

    kernel = np.random.default_rng(5).standard_normal((3, 3))
    x = np.random.default_rng(6).standard_normal(64 * 64)
    build = construction_rows(conv_matrix, (64, 64), kernel, padding="same")
    ref = conv_matrix((64, 64), kernel, padding="same") @ x
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        y, info = apply_row_blocks(build, 64 * 64, x, client=client, n_blocks=4, device="gpu", return_info=True)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    where = sorted({i["built_on"] for i in info})
    if where != ["device"]:  # construction_rows recipes build on the device with device="gpu"
        raise AssertionError(f"blocks were built on {where}, expected on the device")
    return "conv 4096 x 4096 in 4 row blocks on 2 workers, device='gpu', built on the device, equal to the CPU product"


def bench_json_path(json_path: str | os.PathLike | None) -> Path | None:
    """Where ``benchmarks/gpu.py``'s own JSON is kept: beside the checklist's, ``<stem>-gpu.json``."""
    if not json_path:
        return None
    p = Path(json_path)
    return p.with_name(f"{p.stem}-gpu.json")


#: the fraction of the device-to-device copy (measured in the same run) below which a product's bandwidth
#: fails ``--strict``'s bench. The lowest such figure of the committed H100 runs is the 64-channel A^T y in
#: float32, 0.505 in the last full run (0.665 in run 1): 0.4 keeps room for that spread and still fails a
#: product that lost a fifth of it. (The issue's targets, 0.85, are reported as met or not, not enforced.)
DEFAULT_BENCH_FLOOR = 0.4
#: the bench ratios the floor applies to: each product's effective bandwidth over the copy's
COPY_RATIO = "bandwidth / device copy bandwidth"


def below_floor(result: dict, floor: float) -> list[str]:
    """The ratios of ``benchmarks/gpu.py``'s ``result`` that set a product's bandwidth against the copy
    (:data:`COPY_RATIO`) and fall below ``floor``, as ``"name: value"`` (NaN counts as below)."""
    return [f"{r['name']}: {r['value']:.3f}" for r in result.get("ratios", [])
            if COPY_RATIO in r["name"] and not r["value"] >= floor]


def check_bench(quick: bool, timeout: float, json_path: Path | None, record: dict, floor: float | None = None) -> str:
    """``benchmarks/gpu.py`` in a subprocess; with ``floor`` every product's bandwidth must reach that
    fraction of the copy measured in the same run (:func:`below_floor`)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = json_path or Path(tmp) / "gpu.json"
        argv = [str(ROOT / "benchmarks" / "gpu.py"), "--json", str(out), *(["--quick"] if quick else [])]
        try:
            proc = _subprocess(argv, timeout)
        except subprocess.TimeoutExpired:
            proc = None
        result = json.loads(out.read_text()) if out.exists() else None
    if result is not None:
        record["bench"] = {k: result.get(k) for k in ("legs", "errors", "mismatches", "notes") if k in result}
        record["bench"]["json"] = str(json_path) if json_path else None
    if proc is None:
        done = sorted((result or {}).get("legs", {}))
        raise AssertionError(f"benchmarks/gpu.py ran past the {timeout:.0f} s left of the budget "
                             f"(legs done: {', '.join(done) or 'none'}; their figures are kept)")
    if result is None:
        raise AssertionError(f"benchmarks/gpu.py exited {proc.returncode} and wrote no JSON: {proc.stderr.strip()[-400:]}")
    body = result.get("result", result)
    if body.get("skipped"):
        raise AssertionError(f"benchmarks/gpu.py skipped: {body['skipped']}")
    problems = [f"{e['leg']}: {e['error']}" for e in body.get("errors", [])] + list(body.get("mismatches", []))
    if problems or proc.returncode != 0:
        raise AssertionError(f"benchmarks/gpu.py exited {proc.returncode}: " + ("; ".join(problems) or proc.stderr.strip()[-400:]))
    if not body.get("figures"):
        raise AssertionError("benchmarks/gpu.py reported no figures")
    fractions = [r for r in body.get("ratios", []) if COPY_RATIO in r["name"]]
    floor_text = ""
    if floor is not None:
        record["bench_floor"] = floor
        slow = below_floor(body, floor)
        if not fractions:
            raise AssertionError(f"benchmarks/gpu.py reported no bandwidth against the copy to hold to the floor {floor}")
        if slow:
            raise AssertionError(f"{len(slow)} of {len(fractions)} products below {floor} of the copy measured in the "
                                 "same run: " + "; ".join(slow))
        floor_text = f", every product's bandwidth >= {floor} of the copy (lowest {min(r['value'] for r in fractions):.3f})"
    return f"{len(body['figures'])} figures, {len(body.get('ratios', []))} ratios{floor_text}" + (
        f", kept in {json_path.name}" if json_path else "")


# -- the runner ----------------------------------------------------------------------------------
def _line(status: str, name: str, detail: str, out: Any) -> None:
    print(f"{status:<4}  {name:<28} {detail}", file=out, flush=True)


def _run(name: str, fn: Callable[[], str], out: Any, record: dict | None = None, *, strict: bool = False) -> dict:
    t0, tb = time.perf_counter(), None
    try:
        status, detail = "PASS", fn()
    except Skip as exc:
        status, detail = "SKIP", str(exc)
        if strict and detail.startswith("for time"):  # --strict: a check not run is not a pass
            status, detail = "FAIL", f"{detail} (--strict: a check skipped for time fails)"
    except Exception as exc:  # noqa: BLE001 - every failure is reported, the next check still runs
        status, detail = "FAIL", f"{type(exc).__name__}: {exc}".replace("\n", " ")[:600]
        tb = traceback.format_exc()
    rec = {"name": name, "status": status, "detail": detail, "seconds": round(time.perf_counter() - t0, 3),
           **(record or {})}
    if tb:
        rec["traceback"] = tb
    _line(status, name, detail, out)
    return rec


def _names(text: str | None) -> set[str]:
    if not text:
        return set()
    names = {n.strip() for n in text.split(",") if n.strip()}
    unknown = names - set(CHECKS)
    if unknown:
        raise SystemExit(f"device_checklist: unknown check(s) {sorted(unknown)}; the checks are {', '.join(CHECKS)}")
    return names


def main(argv: list[str] | None = None, *, out: Any = None) -> int:
    out = out or sys.stdout
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", default=str(DEFAULT_JSON),
                    help="write the summary here after every check (default benchmarks/results/device_checklist.json); "
                         "benchmarks/gpu.py's JSON goes beside it")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, metavar="SECONDS",
                    help=f"the whole run's time (default {DEFAULT_BUDGET_S:.0f} s); checks that do not fit are skipped")
    ap.add_argument("--allow-skip", action="store_true",
                    help="exit 0, not 2, when there is no usable CUDA device (the CI path)")
    ap.add_argument("--only", metavar="NAMES", help=f"run only these checks ({', '.join(CHECKS)}); probe always runs")
    ap.add_argument("--skip", metavar="NAMES", help="leave these checks out")
    ap.add_argument("--verify-paper", metavar="PAPER", help="restrict the verify check to one paper's claims")
    ap.add_argument("--quick", action="store_true",
                    help="a shorter run (what `isomat bench --quick` passes): gpu.py --quick, verify only cheng2025's claims")
    ap.add_argument("--strict", action="store_true",
                    help="a check skipped for time fails; verify requires device work for every float claim; bench "
                         f"fails a product below --bench-floor of the copy (default {DEFAULT_BENCH_FLOOR} unless --quick)")
    ap.add_argument("--bench-floor", type=float, default=None, metavar="FRACTION",
                    help=f"bench fails a product whose bandwidth is below this fraction of the device copy measured in "
                         f"the same run (default with --strict: {DEFAULT_BENCH_FLOOR}; with --quick, whose sizes time "
                         "overheads, only when given)")
    args = ap.parse_args(argv)
    if args.bench_floor is not None and not 0 < args.bench_floor <= 1:
        raise SystemExit(f"device_checklist: --bench-floor must be a fraction in (0, 1], got {args.bench_floor}")
    bench_floor = args.bench_floor if args.bench_floor is not None else (
        DEFAULT_BENCH_FLOOR if args.strict and not args.quick else None)
    only, skip = _names(args.only), _names(args.skip)
    wanted = [c for c in CHECKS if (not only or c in only or c == "probe") and c not in skip - {"probe"}]
    if not args.budget > 0:
        raise SystemExit(f"device_checklist: --budget must be a positive number of seconds, got {args.budget}")

    from isomat.gpu import device_info, gpu_status

    t0 = time.monotonic()
    deadline = t0 + args.budget
    ok, reason = gpu_status(refresh=True)
    json_path = Path(args.json) if args.json else None
    summary: dict[str, Any] = {"checklist": "isomat device checklist", "benchmark": "device_checklist",
                               "argv": list(argv if argv is not None else sys.argv[1:]), "budget_s": args.budget,
                               "strict": args.strict, "bench_floor": bench_floor, "status": "running", "checks": []}
    if not ok:
        message = f"no usable CUDA device: {reason}"
        _line("SKIP", "device checklist", message, out)
        if not args.allow_skip:
            print(f"device_checklist: nothing was checked (exit status {EXIT_NO_DEVICE}); "
                  "--allow-skip exits 0 without a device", file=sys.stderr)
        # "skipped" as benchmarks/README.md spells it, so that a report reading this JSON says why
        summary.update(status="skipped", reason=message, skipped=message,
                       exit_status=0 if args.allow_skip else EXIT_NO_DEVICE)
        _write(json_path, summary)
        return summary["exit_status"]
    summary["device"] = _device_versions(device_info())
    records: list[dict] = summary["checks"]

    def left(after: str) -> float:
        """Seconds left for the check ``after`` names, keeping back the minimum of the checks after it."""
        later = wanted[wanted.index(after) + 1:]
        return deadline - time.monotonic() - sum(MINIMUM_S[c] for c in later)

    def add(rec: dict) -> None:
        records.append(rec)
        _write(json_path, summary)

    def timed(name: str, fn: Callable[[], str]) -> Callable[[], str]:
        def go() -> str:
            room = left(name.split("/")[0])
            if room < MINIMUM_S[name.split("/")[0]] / (len(FAMILY_NAMES) if "/" in name else 1):
                raise Skip(f"for time: {max(room, 0):.0f} s left of the budget for it")
            return fn()
        return go

    strict = args.strict
    add(_run("probe", lambda: reason, out))
    for name in wanted[1:]:
        if name == "families":
            for fam in FAMILY_NAMES:
                add(_run(f"families/{fam}", timed(f"families/{fam}", lambda fam=fam: check_family(fam)), out,
                         strict=strict))
        elif name == "memory":
            rec: dict = {"families": []}
            add(_run("memory", timed("memory", lambda rec=rec: check_memory(rec["families"])), out, rec, strict=strict))
        elif name == "verify":
            rec = {}
            paper = args.verify_paper or ("cheng2025" if args.quick else None)
            add(_run("verify", lambda rec=rec: check_verify(paper, left("verify"), rec, strict=strict), out, rec,
                     strict=strict))
        elif name == "bench":
            rec = {}
            add(_run("bench", lambda rec=rec: check_bench(args.quick, left("bench"), bench_json_path(json_path), rec,
                                                          bench_floor), out, rec, strict=strict))
        else:
            fn = {"diagonal": check_diagonal, "int64": check_int64, "dlpack": check_dlpack, "twin": check_twin,
                  "dask": check_dask}[name]
            add(_run(name, timed(name, fn), out, strict=strict))
    failed = [r["name"] for r in records if r["status"] == "FAIL"]
    for_time = [r["name"] for r in records if r["status"] == "SKIP" and r["detail"].startswith("for time")]
    counts = {s: sum(r["status"] == s for r in records) for s in ("PASS", "FAIL", "SKIP")}
    summary.update(counts=counts, failed=failed, skipped_for_time=for_time, status="failed" if failed else "passed",
                   seconds=round(time.monotonic() - t0, 1), exit_status=1 if failed else 0)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped"
          + (f" ({len(for_time)} for time)" if for_time else "")
          + (f" -- failed: {', '.join(failed)}" if failed else ""), file=out, flush=True)
    _write(json_path, summary)
    return summary["exit_status"]


def _device_versions(info: dict) -> dict:
    """The device's record with the driver's and the CUDA runtime's versions (as CUDA encodes them,
    e.g. 13000 for 13.0, and spelled out)."""
    try:
        import cupy

        for key, fn in (("driver_cuda_version", cupy.cuda.runtime.driverGetVersion),
                        ("runtime_cuda_version", cupy.cuda.runtime.runtimeGetVersion)):
            v = int(fn())
            info[key] = f"{v // 1000}.{v % 1000 // 10}" if v else "unknown"
    except Exception as exc:  # noqa: BLE001 - the versions are a record, not a check
        info["versions_error"] = f"{type(exc).__name__}: {exc}"
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if smi.returncode == 0:
            info["nvidia_smi"] = smi.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def _write(path: Path | None, summary: dict) -> None:
    """Atomically (a temporary file renamed over the old), so a run killed mid-write leaves the last
    complete summary."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
