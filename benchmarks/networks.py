"""Whole networks (``isomat.torch``): build cost, local affine maps against ``jacrev``, the sparse twin's cost.

Four legs, one run, every output checked against torch before anything is timed:

1. ``from_model`` build time and stored entries (``network.nnz``) for LeNet-5 at 32x32 and a ResNet
   ``BasicBlock`` stack (widths 16, 32, 64, eval-mode batch norm with random statistics) at 32x32:
   seconds, entries per second, ns per entry. Check: ``network.forward(x)`` equals the float64 model.
2. ``network.local_affine(x)`` against ``torch.func.jacrev`` for a conv stack whose output is a feature
   map, ``Conv2d(3,16,3,p=1)-ReLU-Conv2d(16,16,3,p=1)-ReLU`` at 32x32 (a 16,384 x 3,072 Jacobian),
   float64. Check: ``J`` equals jacrev's Jacobian (max |diff| <= 1e-12) and ``J x + c`` the model's
   output. Time ratio (target >= 20x) and memory: isomat's peak (``tracemalloc``, which sees NumPy's
   and SciPy's buffers) against the sparse result's own bytes (``J.data + J.indices + J.indptr``;
   target <= 2x); for jacrev the dense result's bytes and the process's peak RSS above its RSS before
   the call (``resource.getrusage`` high-water mark; torch's CPU allocator is invisible to
   ``tracemalloc``), taken on the untimed warm-up call. jacrev of a 16k-output model takes ~30 s
   here, so it is timed 3 times (``--jac-repeats``) and isomat 3 times per jacrev call.
2b. ``local_affine`` against ``jacrev`` on two classifiers with 10 outputs, LeNet-5 (max pooling) and a
   VGG-style net (``isomat.testing.models.VGGSmall``: conv-BN-ReLU x2, pool, x2 stages, widths 16 and 32,
   then two linear layers) at 32x32, float64: the chain is multiplied in reverse order (``order="auto"``),
   each factor by its cheapest exact form (``isomat/torch/_products.py``: a convolution's kernel through
   torch's transposed convolution, a linear layer's dense copy, a batch norm's diagonal).
   Check: ``J`` equals jacrev's. Target: jacrev time / local_affine time >= 1; isomat's peak against the
   sparse J's bytes is printed (the factors' products in between included; ``tracemalloc`` does not see
   the buffers torch allocates for the transposed convolutions' results, so this peak leaves those out).
3. The sparse twin (``to_sparse_model``) forward + backward against the native model's, CPU,
   LeNet-5 and the VGG-style net, batch 64, float32 and float64, with both kernels: ``"auto"`` (the
   default: each layer's cheapest exact form -- torch's convolution on the tied weights, one GEMM for
   a linear layer, elementwise for batch norm) and ``"sparse"`` (CSR products everywhere). Check: outputs
   and every parameter gradient equal (float64 to 1e-12 relative, float32 to torch's ``assert_close``
   defaults), each kernel. Target: twin / native <= 3 in float32 with ``"auto"`` (the issue's); the
   ``"sparse"`` kernel and float64 are printed as costs.

Repeats are interleaved (each round times every leg of a group in turn, after one untimed warm-up
call each), so a change of load hits all legs. Each figure is a median with min and max; a median more
than 2x its minimum is reported as noisy, and a ratio with a noisy side carries no verdict. The load
average (1, 5, 15 min) is printed before and after; torch (and the BLAS libraries) use ``--threads``
threads (default 1, what SciPy's sparse products on the isomat side use) -- no oversubscription.

Run: ``python benchmarks/networks.py [--quick] [--json PATH] [--threads 1] [--repeats 7]
[--jac-repeats 3] [--size 32] [--legs 1,2,2b,3] [--clock wall|cpu]``. ``--quick``: 8x8 conv stack, a small ResNet at 16x16, 2 repeats -- a
smoke run of the script (seconds), not a measurement. Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # appended: a benchmarks/ module never shadows a library


# -- timing and memory helpers --------------------------------------------------------------------
#: the clock of every timed call: wall time (``time.perf_counter``, default) or, with ``--clock cpu``, the
#: calling thread's CPU time (``time.thread_time``): every leg runs on one thread, and on a machine other
#: jobs load, CPU time leaves out the time the scheduler gave them (cache contention stays)
CLOCK = time.perf_counter


def _once(fn) -> float:
    t0 = CLOCK()
    fn()
    return CLOCK() - t0


def interleaved(legs: dict, rounds: int, per_round: dict | None = None, warmup: bool = True) -> dict:
    """Seconds of each leg: one untimed warm-up call each (``warmup=False``: the caller already made
    it), then ``rounds`` rounds in which every leg runs ``per_round[leg]`` (default 1) timed calls in turn."""
    per_round = per_round or {}
    for fn in legs.values() if warmup else ():
        fn()
    times: dict = {name: [] for name in legs}
    for _ in range(rounds):
        for name, fn in legs.items():
            for _ in range(per_round.get(name, 1)):
                times[name].append(_once(fn))
    return times


def spread(ts) -> dict:
    med, lo, hi = statistics.median(ts), min(ts), max(ts)
    return {"min": lo, "median": med, "max": hi, "n": len(ts), "noisy": med > 2 * lo}


def rss_now() -> int:
    """Resident set size in bytes (Linux ``/proc/self/statm``; 0 where there is none)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def peak_rss() -> int:
    import resource

    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kib * 1024 if sys.platform != "darwin" else kib


def sparse_bytes(J) -> int:
    return int(J.data.nbytes + J.indices.nbytes + J.indptr.nbytes)


class Run:
    """Figures, ratios, checks, notes and the printed table of one run."""

    def __init__(self) -> None:
        from isomat.bench import figure, ratio

        self._figure, self._ratio = figure, ratio
        self.figures: list = []
        self.ratios: list = []
        self.checks: list = []
        self.notes: list = []
        self.rows: list = []

    def timed(self, name: str, ts, unit: str = "s", **params) -> dict:
        s = spread(ts)
        f = self._figure(name, s["median"], unit, repeats=s["n"], min=s["min"], max=s["max"], noisy=s["noisy"], **params)
        self.figures.append(f)
        self.rows.append((name, s))
        if s["noisy"]:
            self.notes.append(f"{name}: noisy (median {s['median']:.4g} s > 2x min {s['min']:.4g} s): no verdict")
        return f

    def value(self, name: str, value: float, unit: str, stat: str = "value", **params) -> dict:
        f = self._figure(name, value, unit, stat=stat, **params)
        self.figures.append(f)
        return f

    def ratio(self, name: str, num: dict, den: dict, target: str | None = None) -> dict:
        r = self._ratio(name, num, den)
        noisy = bool((num.get("params") or {}).get("noisy") or (den.get("params") or {}).get("noisy"))
        nmin, dmin = (num.get("params") or {}).get("min"), (den.get("params") or {}).get("min")
        if nmin is not None and dmin is not None:
            r["ratio_of_minima"] = nmin / dmin
        r["noisy"] = noisy
        if target is not None:
            r["target"] = target
        self.ratios.append(r)
        return r

    def check(self, name: str, ok: bool, **info) -> None:
        self.checks.append({"name": name, "ok": bool(ok), **info})
        print(f"  check {'ok  ' if ok else 'FAIL'} {name} " + ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else
                                                                    f"{k}={v}" for k, v in info.items()), flush=True)


def _max_rel(got, ref) -> tuple[float, float]:
    import numpy as np

    got, ref = np.asarray(got, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    d = float(np.abs(got - ref).max()) if got.size else 0.0
    return d, d / max(float(np.abs(ref).max()) if ref.size else 0.0, 1e-300)


# -- leg 1: from_model build ----------------------------------------------------------------------
def _randomize_batchnorm(model, seed: int = 0) -> None:
    import torch
    from torch import nn

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=g))
                m.running_var.copy_(0.5 + torch.rand(m.running_var.shape, generator=g))
                m.weight.copy_(1.0 + 0.1 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))


def leg_build(run: Run, quick: bool, repeats: int) -> None:
    import copy

    import torch

    from isomat.testing.models import LeNet5, ResNetStack
    from isomat.torch import from_model

    torch.manual_seed(0)
    widths, res_size = ((4, 8), 16) if quick else ((16, 32, 64), 32)
    resnet = ResNetStack(widths=widths, blocks_per_stage=1, c_in=3)
    _randomize_batchnorm(resnet)
    models = {
        "LeNet-5 (1,32,32)": (LeNet5().eval(), (1, 32, 32)),
        f"ResNet BasicBlock stack widths {'-'.join(map(str, widths))} (3,{res_size},{res_size})":
            (resnet.eval(), (3, res_size, res_size)),
    }
    print(f"\n[1] from_model build: {len(models)} models, {repeats} interleaved repeats after a warm-up", flush=True)
    nets = {}
    for name, (m, shape) in models.items():
        net = from_model(m, shape)
        nets[name] = net
        x = torch.randn((2,) + shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
        with torch.no_grad():
            ref = copy.deepcopy(m).double()(x).numpy()
        abs_d, rel_d = _max_rel(net.forward(x.numpy()), ref)
        run.check(f"from_model forward == float64 model, {name}", rel_d <= 1e-9, max_abs_diff=abs_d,
                  max_rel_diff=rel_d, tol_rel=1e-9)
    times = interleaved({name: (lambda m=m, s=s: from_model(m, s)) for name, (m, s) in models.items()}, repeats)
    per_entry = {}
    for name, ts in times.items():
        nnz = int(nets[name].nnz)
        f = run.timed(f"from_model build, {name}", ts, nnz=nnz, nodes=len(nets[name].nodes))
        run.value(f"stored entries, {name}", nnz, "entries")
        run.value(f"entries per second, {name}", nnz / f["value"], "entries/s", stat="nnz / median")
        per_entry[name] = run.value(f"ns per stored entry, {name}", f["value"] / nnz * 1e9, "ns", stat="median / nnz",
                                    noisy=f["params"]["noisy"], min=f["params"]["min"] / nnz * 1e9)
    a, b = list(per_entry.values())
    run.ratio("build ns per entry: ResNet / LeNet-5", b, a)


# -- leg 2: local_affine against jacrev -----------------------------------------------------------
def leg_jacobian(run: Run, quick: bool, size: int, jac_repeats: int, per_round: int) -> None:
    import gc
    import tracemalloc

    import numpy as np
    import torch
    from torch import nn

    from isomat.torch import from_model

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
    model = model.double().eval()
    shape = (3, size, size)
    net = from_model(model, shape)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    xn = x.numpy()
    n_out, n_in = 16 * size * size, 3 * size * size
    print(f"\n[2] local_affine vs torch.func.jacrev: conv stack at {size}x{size}, float64, a {n_out:,} x {n_in:,} "
          f"Jacobian; {jac_repeats} jacrev repeats, {per_round} local_affine calls per repeat", flush=True)

    def f1(z):
        return model(z[None])[0]

    def jac():
        with torch.no_grad():  # jacrev differentiates through its own transform; no_grad only spares the graph
            return torch.func.jacrev(f1)(x)

    # warm-up calls that are checked and measured (memory), untimed
    gc.collect()
    rss0, peak0 = rss_now(), peak_rss()
    Jd = jac()
    peak1 = peak_rss()
    Jd = Jd.detach().reshape(n_out, n_in).numpy()
    dense_bytes = int(Jd.nbytes)
    if peak1 > peak0:
        rss_delta, rss_note = peak1 - rss0, "measured"
    else:
        rss_delta, rss_note = None, (f"the call did not raise the process's RSS high-water mark ({peak0 / 2**20:.0f} MiB); "
                                     f"its peak is at most {(peak0 - rss0) / 2**20:.0f} MiB above the RSS before it")
    la = net.local_affine(xn)
    J = la.J
    diff = float(np.abs(J.toarray() - Jd).max())
    run.check("local_affine J == jacrev Jacobian", diff <= 1e-12, max_abs_diff=diff, tol=1e-12, shape=f"{n_out}x{n_in}")
    with torch.no_grad():
        y = model(x[None])[0].numpy().ravel()
    abs_c, rel_c = _max_rel(J @ xn.ravel() + la.c, y)
    run.check("J x + c == model(x)", abs_c <= 1e-12 * max(1.0, float(np.abs(y).max())), max_abs_diff=abs_c, tol=1e-12)
    del Jd
    gc.collect()
    tracemalloc.start()
    la2 = net.local_affine(xn)
    _, iso_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    run.check("local_affine repeatable (tracemalloc call)", (la2.J != J).nnz == 0)
    del la2
    sizeJ = sparse_bytes(J)

    # both were just called untimed (the checks and the memory measurements): those are the warm-ups
    times = interleaved({"isomat": lambda: net.local_affine(xn), "jacrev": jac}, jac_repeats,
                        per_round={"isomat": per_round}, warmup=False)
    fi = run.timed(f"isomat local_affine, conv stack {size}x{size}", times["isomat"], n_out=n_out, n_in=n_in,
                   nnz=int(J.nnz))
    fj = run.timed(f"torch.func.jacrev, conv stack {size}x{size}", times["jacrev"], n_out=n_out, n_in=n_in)
    run.ratio("jacrev time / local_affine time", fj, fi, target=">= 20")
    fs = run.value("sparse J bytes (data + indices + indptr)", sizeJ, "B", nnz=int(J.nnz), index_dtype=str(J.indices.dtype))
    fp = run.value("isomat local_affine peak (tracemalloc)", iso_peak, "B", stat="peak of one call")
    fd = run.value("jacrev dense result bytes", dense_bytes, "B", stat="size")
    run.ratio("isomat peak / sparse J bytes", fp, fs, target="<= 2")
    run.ratio("jacrev dense result bytes / sparse J bytes", fd, fs)
    if rss_delta is not None:
        fr = run.value("jacrev peak RSS above the RSS before the call", rss_delta, "B", stat="peak of one call")
        run.ratio("jacrev peak RSS delta / isomat peak", fr, fp)
    else:
        run.notes.append(f"jacrev peak RSS delta not measured: {rss_note}")
    run.notes.append("memory: isomat's peak is tracemalloc's (NumPy and SciPy buffers); torch's CPU allocator is "
                     "invisible to tracemalloc, so jacrev's is the process RSS high-water mark above the RSS before "
                     "the (untimed, first) call, which includes the dense result")


# -- leg 2b: classifiers' Jacobians (few outputs): local_affine in reverse order against jacrev ---------
def _classifiers(quick: bool):
    from isomat.testing.models import LeNet5, VGGSmall

    yield "LeNet-5", lambda: LeNet5(pool="max"), (1, 32, 32)
    yield "VGG-style", lambda: VGGSmall((8, 16) if quick else (16, 32)), (3, 32, 32)


def leg_classifiers(run: Run, quick: bool, repeats: int) -> None:
    import gc
    import tracemalloc

    import numpy as np
    import torch

    from isomat.torch import from_model

    print(f"\n[2b] local_affine vs torch.func.jacrev on classifiers (10 outputs), float64; {repeats} rounds", flush=True)
    for label, factory, shape in _classifiers(quick):
        torch.manual_seed(0)
        model = factory().double().eval()
        _randomize_batchnorm(model)
        net = from_model(model, shape)
        x = torch.randn(shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
        xn = x.numpy()

        def jac(model=model, x=x):
            with torch.no_grad():
                return torch.func.jacrev(lambda z: model(z[None])[0])(x)

        la = net.local_affine(xn)
        Jd = jac().detach().reshape(la.J.shape).numpy()
        diff = float(np.abs(la.J.toarray() - Jd).max())
        run.check(f"{label}: local_affine J == jacrev Jacobian", diff <= 1e-12, max_abs_diff=diff, tol=1e-12,
                  order=net._order(xn, "auto")[0])
        gc.collect()
        tracemalloc.start()
        net.local_affine(xn)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        times = interleaved({"isomat": lambda net=net, xn=xn: net.local_affine(xn), "jacrev": jac}, repeats)
        fi = run.timed(f"isomat local_affine, {label}", times["isomat"], n_out=int(la.J.shape[0]), n_in=int(la.J.shape[1]))
        fj = run.timed(f"torch.func.jacrev, {label}", times["jacrev"])
        run.ratio(f"jacrev time / local_affine time, {label}", fj, fi, target=">= 1")
        fs = run.value(f"sparse J bytes, {label}", sparse_bytes(la.J), "B", nnz=int(la.J.nnz))
        fp = run.value(f"isomat local_affine peak (tracemalloc), {label}", peak, "B", stat="peak of one call")
        run.ratio(f"isomat peak / sparse J bytes, {label} (the factors' products in between included)", fp, fs)
    run.notes.append("2b: isomat's peak is tracemalloc's, which does not see the buffers torch allocates for the "
                     "transposed convolutions' results (each n_out x a layer's input size, float64; the forward "
                     "convolutions' values are copied into NumPy's buffers and counted)")


# -- leg 3: the sparse twin's forward + backward --------------------------------------------------
def leg_twin(run: Run, quick: bool, repeats: int, batch: int) -> None:
    import torch

    from isomat.torch import to_sparse_model
    from isomat.torch.twin import TWIN_KERNELS

    print(f"\n[3] sparse twin vs native (LeNet-5, VGG-style), forward + backward, batch {batch}, float32 and float64; "
          f"{repeats} interleaved rounds of 3 calls", flush=True)
    legs, pairs = {}, []
    for (label, factory, shape), dtype in [(c, d) for c in _classifiers(quick) for d in (torch.float32, torch.float64)]:
        tag = f"{label}, {str(dtype).replace('torch.', '')}"
        torch.manual_seed(0)
        native = factory().eval().to(dtype)
        _randomize_batchnorm(native)
        twin = to_sparse_model(native, shape, dtype=dtype)
        gen = torch.Generator().manual_seed(3)
        x = torch.randn((batch,) + shape, generator=gen, dtype=torch.float64).to(dtype)
        g = torch.randn((batch, 10), generator=gen, dtype=torch.float64).to(dtype)

        def step(m, params, x=x, g=g):
            for p in params:
                p.grad = None
            y = m(x)
            (y * g).sum().backward()
            return y

        nat_params = list(native.parameters())
        twin_params = list(twin.parameters())
        y_nat = step(native, nat_params).detach()
        rtol, atol = (1e-12, 1e-12) if dtype == torch.float64 else (1.3e-6, 1e-5)  # torch's float32 defaults

        def close(a, b, scale=1.0):
            try:
                torch.testing.assert_close(a, b, rtol=rtol, atol=atol * scale)
                return True
            except AssertionError:
                return False

        for kernel in TWIN_KERNELS:
            twin.kernel = kernel
            y_twin = step(twin, twin_params).detach()
            abs_d, rel_d = _max_rel(y_twin.numpy(), y_nat.numpy())
            run.check(f"twin output == native, {tag}, kernel={kernel}", close(y_twin, y_nat), max_abs_diff=abs_d,
                      max_rel_diff=rel_d)
            nat_named = dict(native.named_parameters())
            twin_named = dict(twin.source.named_parameters())
            ok_names = nat_named.keys() == twin_named.keys()
            worst, ok = 0.0, ok_names
            for name, p in nat_named.items():
                q = twin_named.get(name)
                if q is None or q.grad is None or p.grad is None:
                    ok = False
                    continue
                worst = max(worst, _max_rel(q.grad.numpy(), p.grad.numpy())[1])
                ok = ok and close(q.grad, p.grad, scale=10.0)
            run.check(f"twin parameter gradients == native, {tag}, kernel={kernel} ({len(nat_named)} tensors)", ok,
                      max_rel_diff=worst)

            def leg(m=twin, ps=twin_params, s=step, kernel=kernel):
                m.kernel = kernel  # one attribute per layer: negligible beside a step
                return s(m, ps)
            legs[f"twin {tag} {kernel}"] = leg
        forms = sorted({st.form for layers in twin.affine.values() for a in layers for st in a.stages})
        run.notes.append(f"{tag}: kernel='auto' computes its layers as {', '.join(forms)} (twin._Stage.form)")
        legs[f"native {tag}"] = lambda m=native, ps=nat_params, s=step: s(m, ps)
        pairs.append(tag)
    times = interleaved(legs, repeats, per_round={k: 3 for k in legs})
    for tag in pairs:
        fn = run.timed(f"native forward+backward, {tag}, batch {batch}", times[f"native {tag}"])
        for kernel in TWIN_KERNELS:
            ft = run.timed(f"sparse twin (kernel={kernel}) forward+backward, {tag}, batch {batch}",
                           times[f"twin {tag} {kernel}"])
            run.ratio(f"twin / native time, {tag}, kernel={kernel}", ft, fn,
                      target="<= 3" if "float32" in tag and kernel == "auto" else None)


# -- main -----------------------------------------------------------------------------------------
LEGS = {"1", "2", "2b", "3"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 2 repeats: a smoke run (seconds), no verdict")
    ap.add_argument("--json", default=None, help="write the result as JSON here")
    ap.add_argument("--threads", type=int, default=1, help="torch and BLAS threads (default 1)")
    ap.add_argument("--repeats", type=int, default=7, help="rounds for legs 1 and 3 (default 7)")
    ap.add_argument("--jac-repeats", type=int, default=3, help="timed jacrev calls in leg 2 (default 3)")
    ap.add_argument("--legs", default="1,2,2b,3", help="the legs to run (default all: 1,2,2b,3)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time calls by wall clock (default) or by the thread's CPU time (a loaded machine)")
    ap.add_argument("--size", type=int, default=None, help="leg 2's image side (default 32; 8 with --quick)")
    args = ap.parse_args(argv)
    threads = max(1, args.threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before NumPy and torch load
        os.environ[var] = str(threads)

    import platform

    from isomat.bench import cpu_model, write_result

    try:
        import torch
    except ImportError as exc:
        write_result(args.json, {"benchmark": "networks", "figures": [], "ratios": [], "notes": [],
                                 "skipped": f"torch is not installed ({exc})"})
        return 0
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    repeats = 2 if args.quick else max(1, args.repeats)
    jac_repeats = 2 if args.quick else max(1, args.jac_repeats)
    size = args.size or (8 if args.quick else 32)

    load_before = os.getloadavg()
    cpu = cpu_model() or platform.processor() or platform.machine()
    print(f"machine: {cpu}; {os.cpu_count()} logical CPUs; torch {torch.__version__} with {torch.get_num_threads()} "
          f"thread(s), {threads} BLAS thread(s)")
    print(f"load average before: {', '.join(f'{v:.2f}' for v in load_before)} (1, 5, 15 min)"
          + ("; quick run: a smoke test of the script, no verdict" if args.quick else ""), flush=True)
    run = Run()
    t_all = time.perf_counter()
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    legs = set(args.legs.split(","))
    if not legs <= LEGS:
        ap.error(f"--legs takes a comma-separated subset of {','.join(sorted(LEGS))}, got {args.legs!r}")
    if "1" in legs:
        leg_build(run, args.quick, repeats)
    if "2" in legs:
        leg_jacobian(run, args.quick, size, jac_repeats, per_round=3)
    if "2b" in legs:
        leg_classifiers(run, args.quick, repeats)
    if "3" in legs:
        leg_twin(run, args.quick, repeats, batch=64)
    load_after = os.getloadavg()

    print(f"\n{'figure':<78s} {'min':>10s} {'median':>10s} {'max':>10s} {'n':>3s}")
    for name, s in run.rows:
        print(f"{name:<78s} {s['min']:10.4g} {s['median']:10.4g} {s['max']:10.4g} {s['n']:3d}"
              + ("  NOISY" if s["noisy"] else ""))
    print(f"\n{'ratio':<60s} {'medians':>10s} {'minima':>10s}  target")
    for r in run.ratios:
        rm = r.get("ratio_of_minima")
        print(f"{r['name']:<60s} {r['value']:10.4g} {'' if rm is None else f'{rm:10.4g}':>10s}  "
              f"{r.get('target', '-')}{'  NOISY: no verdict' if r.get('noisy') else ''}")

    if args.quick:
        run.notes.append("quick run (small sizes, 2 repeats): a smoke test of the script, no verdict on the targets")
    else:
        for r in run.ratios:
            if r.get("target"):
                op, bound = r["target"].split()
                ok = r["value"] >= float(bound) if op == ">=" else r["value"] <= float(bound)
                verdict = "noisy: no verdict" if r.get("noisy") else ("met" if ok else "NOT met")
                run.notes.append(f"target {r['name']} {r['target']}: {verdict} ({r['value']:.3g})")
    failed = [c["name"] for c in run.checks if not c["ok"]]
    run.notes.append(f"checks: {len(run.checks) - len(failed)} of {len(run.checks)} passed"
                     + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    run.notes.append(f"load average {', '.join(f'{v:.2f}' for v in load_before)} before, "
                     f"{', '.join(f'{v:.2f}' for v in load_after)} after (1, 5, 15 min); {os.cpu_count()} logical CPUs; "
                     f"torch threads {torch.get_num_threads()}, BLAS threads {threads}; clock {args.clock}; "
                     f"total {time.perf_counter() - t_all:.0f} s")
    print()
    write_result(args.json, {"benchmark": "networks", "quick": bool(args.quick), "threads": threads, "clock": args.clock,
                             "load_average": {"before": list(load_before), "after": list(load_after)},
                             "checks": run.checks, "figures": run.figures, "ratios": run.ratios, "notes": run.notes})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
