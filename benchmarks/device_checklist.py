"""The device checklist (issue 15): everything the GPU field needs, checked on a real CUDA device.

One command, run from the checkout on a machine with a GPU::

    python benchmarks/device_checklist.py [--json PATH] [--allow-skip] [--only NAMES] [--skip NAMES]
                                          [--verify-paper PAPER] [--quick]

Checks, in order (``--only`` / ``--skip`` take comma-separated names):

``probe``
    ``isomat.gpu.gpu_status``: CuPy >= 14.1, a compiled kernel, a cuSPARSE and a cuBLAS product.
``families``
    every construction family built in the cupy field against the same build in NumPy (one line
    per family; the result must be device data and agree to 1e-12).
``int64``
    the Kronecker product of two 1 x 70000 sparse vectors (extent 4.9e9 > 2**31) on the device:
    int64 indices, the same entries as SciPy's.
``verify``
    ``isomat verify --backend cupy`` against ``isomat verify`` on the CPU: the same verdict for
    every claim of the ledger (``--verify-paper`` restricts both runs to one paper).
``dlpack``
    ``isomat.export.to_dlpack`` of a cupy-field operator read by ``torch.from_dlpack`` on the
    device, and back with ``isomat.export.from_dlpack`` (skipped when torch or its CUDA is missing).
``dask``
    ``isomat.distributed.apply_row_blocks(..., device="gpu")`` on a local Dask cluster against the
    CPU product (skipped when dask.distributed is missing).
``bench``
    ``benchmarks/gpu.py --quick`` in a subprocess: exit status 0 and figures, not ``skipped``.

Each check prints one line, ``PASS``, ``FAIL`` or ``SKIP``, its name and the detail or reason; the
JSON summary (default ``device_checklist.json``) holds the same with timings and the device. The
exit status is 1 when any check fails, else 0. Without a usable CUDA device nothing else runs: it
prints ``SKIP ... no usable CUDA device: <the probe's reason>`` and exits 2, or 0 with
``--allow-skip`` (the CI path).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

CHECKS = ("probe", "families", "int64", "verify", "dlpack", "dask", "bench")
EXIT_NO_DEVICE = 2


class Skip(Exception):
    """A check that cannot run here (a missing optional dependency), with the reason."""


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


def check_verify(paper: str | None) -> str:
    from isomat.cli import main as cli

    def run(*extra: str) -> dict:
        out, err = io.StringIO(), io.StringIO()
        cli(["verify", "--json", *(("--paper", paper) if paper else ()), *extra], out=out, err=err)
        try:
            return json.loads(out.getvalue())
        except json.JSONDecodeError:
            raise AssertionError(f"isomat verify {' '.join(extra)} printed no JSON: {err.getvalue().strip()[-300:]}") from None

    cpu, gpu = run(), run("--backend", "cupy")
    if gpu.get("backend") != "cupy":
        raise AssertionError(f"the GPU run reports backend {gpu.get('backend')!r}")
    a = {c["id"]: c["verdict"] for c in cpu["claims"]}
    b = {c["id"]: c["verdict"] for c in gpu["claims"]}
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if differ:
        raise AssertionError(f"{len(differ)} verdicts differ: " + "; ".join(f"{k}: cpu {a.get(k)}, cupy {b.get(k)}"
                                                                          for k in differ[:5]))
    return f"{len(a)} claims, the same verdict on both backends"


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


def check_bench(timeout: float) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gpu.json"
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu.py"), "--quick", "--json", str(out)],
                              capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        if proc.returncode != 0:
            raise AssertionError(f"benchmarks/gpu.py --quick exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
        if not out.exists():
            raise AssertionError("benchmarks/gpu.py --quick wrote no JSON")
        result = json.loads(out.read_text())
    body = result.get("result", result)
    if body.get("skipped"):
        raise AssertionError(f"benchmarks/gpu.py skipped: {body['skipped']}")
    if not body.get("figures"):
        raise AssertionError("benchmarks/gpu.py --quick reported no figures")
    errors = [n for n in body.get("notes", []) if "failed" in str(n) or "error" in str(n).lower()]
    if errors:
        raise AssertionError("; ".join(map(str, errors)))
    return f"{len(body['figures'])} figures" + (f"; {body['notes'][0]}" if body.get("notes") else "")


# -- the runner ----------------------------------------------------------------------------------
def _line(status: str, name: str, detail: str, out: Any) -> None:
    print(f"{status:<4}  {name:<28} {detail}", file=out, flush=True)


def _run(name: str, fn: Callable[[], str], out: Any) -> dict:
    t0, tb = time.perf_counter(), None
    try:
        status, detail = "PASS", fn()
    except Skip as exc:
        status, detail = "SKIP", str(exc)
    except Exception as exc:  # noqa: BLE001 - every failure is reported, the next check still runs
        status, detail = "FAIL", f"{type(exc).__name__}: {exc}".replace("\n", " ")[:600]
        tb = traceback.format_exc()
    rec = {"name": name, "status": status, "detail": detail, "seconds": round(time.perf_counter() - t0, 3)}
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
    ap.add_argument("--json", metavar="PATH", default="device_checklist.json",
                    help="write the summary here (default device_checklist.json)")
    ap.add_argument("--allow-skip", action="store_true",
                    help="exit 0, not 2, when there is no usable CUDA device (the CI path)")
    ap.add_argument("--only", metavar="NAMES", help=f"run only these checks ({', '.join(CHECKS)}); probe always runs")
    ap.add_argument("--skip", metavar="NAMES", help="leave these checks out")
    ap.add_argument("--verify-paper", metavar="PAPER", help="restrict the verify check to one paper's claims")
    ap.add_argument("--quick", action="store_true",
                    help="a shorter run (what `isomat bench --quick` passes): verify only cheng2025's claims")
    ap.add_argument("--bench-timeout", type=float, default=1800.0, help="seconds for benchmarks/gpu.py --quick")
    args = ap.parse_args(argv)
    only, skip = _names(args.only), _names(args.skip)
    wanted = [c for c in CHECKS if (not only or c in only or c == "probe") and c not in skip - {"probe"}]

    from isomat.gpu import device_info, gpu_status

    t0 = time.perf_counter()
    ok, reason = gpu_status(refresh=True)
    summary: dict[str, Any] = {"checklist": "isomat device checklist (issue 15)", "benchmark": "device_checklist",
                               "argv": list(argv or sys.argv[1:]), "checks": []}
    if not ok:
        message = f"no usable CUDA device: {reason}"
        _line("SKIP", "device checklist", message, out)
        if not args.allow_skip:
            print(f"device_checklist: nothing was checked (exit status {EXIT_NO_DEVICE}); "
                  "--allow-skip exits 0 without a device", file=sys.stderr)
        # "skipped" as benchmarks/README.md spells it, so that a report reading this JSON says why
        summary.update(status="skipped", reason=message, skipped=message,
                       exit_status=0 if args.allow_skip else EXIT_NO_DEVICE)
        _write(args.json, summary)
        return summary["exit_status"]
    summary["device"] = device_info()
    records = [_run("probe", lambda: reason, out)]
    for name in wanted[1:]:
        if name == "families":
            records += [_run(f"families/{fam}", lambda fam=fam: check_family(fam), out) for fam in FAMILY_NAMES]
        elif name == "int64":
            records.append(_run("int64", check_int64, out))
        elif name == "verify":
            paper = args.verify_paper or ("cheng2025" if args.quick else None)
            records.append(_run("verify", lambda: check_verify(paper), out))
        elif name == "dlpack":
            records.append(_run("dlpack", check_dlpack, out))
        elif name == "dask":
            records.append(_run("dask", check_dask, out))
        elif name == "bench":
            records.append(_run("bench", lambda: check_bench(args.bench_timeout), out))
    failed = [r["name"] for r in records if r["status"] == "FAIL"]
    counts = {s: sum(r["status"] == s for r in records) for s in ("PASS", "FAIL", "SKIP")}
    summary.update(checks=records, counts=counts, failed=failed, status="failed" if failed else "passed",
                   seconds=round(time.perf_counter() - t0, 1), exit_status=1 if failed else 0)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped"
          + (f" -- failed: {', '.join(failed)}" if failed else ""), file=out, flush=True)
    _write(args.json, summary)
    return summary["exit_status"]


def _write(path: str | None, summary: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
