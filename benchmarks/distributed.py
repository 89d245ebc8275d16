"""Row-block products on Dask: scaling from 1 to 2 workers, and the largest matrix applied.

The operator is the ``padding="same"`` 3x3 convolution matrix of an S x S image
(``isomat.algebra.conv_matrix``). ``isomat.distributed.apply_row_blocks`` sends each worker
*process* only the recipe of its row blocks; the worker builds those rows, multiplies, and returns
its piece of y. Figures (medians over repeats, same run): wall time of y = W x with 1 and with 2
worker processes (one thread each) and their ratio; then the largest image of the run applied in
many blocks, with the total nnz and the largest block any one process held.

Run: ``python benchmarks/distributed.py [--quick] [--json OUT]`` (about a minute; under two).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# this file is named like the dask.distributed package: take its directory off the path first
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import numpy as np  # noqa: E402

from isomat.bench import figure, ratio, time_median, write_result  # noqa: E402


def _product(client, size: int, n_blocks: int, kernel: np.ndarray, x: np.ndarray):
    from isomat.algebra.conv import conv_matrix
    from isomat.distributed import apply_row_blocks, construction_rows

    # threads=1: one core per worker process, so 1 -> 2 workers is 1 -> 2 cores
    build = construction_rows(conv_matrix, (size, size), kernel, padding="same", threads=1)
    return apply_row_blocks(build, size * size, x, client=client, n_blocks=n_blocks, return_info=True)


def run(*, size: int = 1536, big: int = 8192, repeats: int = 5) -> dict:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # the distributed extra is optional: skip with the reason, exit 0
        return {"benchmark": "distributed", "skipped": f"dask.distributed is not installed ({exc}); "
                "pip install 'isomat[distributed]'", "figures": [], "ratios": [], "notes": []}

    from isomat.algebra.conv import conv_matrix

    rng = np.random.default_rng(0)
    kernel = rng.standard_normal((3, 3))
    x = rng.standard_normal(size * size)
    figs, ratios, notes = [], [], []
    times, compute, cpu_fig = {}, {}, {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=50) as cluster, Client(cluster) as client:
            client.wait_for_workers(workers)
            infos = []
            t, _ = time_median(lambda: infos.append(_product(client, size, 8, kernel, x)[1]), repeats=repeats,
                               warmup=1)
            nnz = sum(i["nnz"] for i in infos[-1])
            times[workers] = figure(f"y = W x on {workers} worker(s)", t, "s", repeats=repeats,
                                    image=f"{size}x{size}", blocks=8, nnz=int(nnz))
            # busiest worker's build + multiply seconds (no scheduling, transfer or gather), per run
            busiest, busiest_cpu = [], []
            for run_info in infos[1:]:
                wall: dict = {}
                cpu: dict = {}
                for i in run_info:
                    wall[i["worker"]] = wall.get(i["worker"], 0.0) + i["build_seconds"] + i["apply_seconds"]
                    cpu[i["worker"]] = cpu.get(i["worker"], 0.0) + i["cpu_seconds"]
                busiest.append(max(wall.values()))
                busiest_cpu.append(max(cpu.values()))
            compute[workers] = figure(f"busiest worker's build + multiply, {workers} worker(s)",
                                      float(np.median(busiest)), "s", repeats=len(busiest))
            cpu_fig[workers] = figure(f"busiest worker's CPU time, {workers} worker(s)",
                                      float(np.median(busiest_cpu)), "s", repeats=len(busiest_cpu))
            if workers == 2:
                # correctness against the single-process product, same run
                y, _ = _product(client, size, 8, kernel, x)
                W = conv_matrix((size, size), kernel, padding="same")
                err = float(np.max(np.abs(y - W @ x)) / max(np.max(np.abs(W @ x)), 1e-300))
                notes.append(f"max relative difference to the single-process product: {err:.2e}")
                del W
                # the largest matrix of this run, in 64 blocks, never whole in one process
                xb = rng.standard_normal(big * big)
                t0 = time.perf_counter()
                yb, info = _product(client, big, 64, kernel, xb)
                t_big = time.perf_counter() - t0
                total = sum(i["nnz"] for i in info)
                block_max = max(i["nnz"] for i in info)
                figs.append(figure("largest matrix applied: nnz", total, "entries", stat="single", repeats=1,
                                   image=f"{big}x{big}", rows=big * big, blocks=64))
                figs.append(figure("largest block held by one process: nnz", block_max, "entries", stat="single"))
                figs.append(figure("largest matrix applied: wall time", t_big, "s", stat="single", repeats=1))
                notes.append(f"the whole {big * big}x{big * big} CSR matrix would need about "
                             f"{total * 12 / 2**30:.2f} GiB (float64 values + int32 indices); the largest block held "
                             f"{block_max * 12 / 2**20:.0f} MiB")
                del yb
    figs = [times[1], times[2], compute[1], compute[2], cpu_fig[1], cpu_fig[2], *figs]
    ratios.append(ratio("speedup from 1 to 2 workers (wall time)", times[1], times[2]))
    ratios.append(ratio("speedup from 1 to 2 workers (busiest worker's compute)", compute[1], compute[2]))
    ratios.append(ratio("work split from 1 to 2 workers (busiest worker's CPU time)", cpu_fig[1], cpu_fig[2]))
    notes.append("worker processes share the machine with everything else running; on a 2-core machine "
                 "the ideal speedup is 2 and a busy machine shows less: the CPU-time ratio shows how the work "
                 "split, the wall-time ratios what the machine delivered")
    return {"benchmark": "distributed", "figures": figs, "ratios": ratios, "notes": notes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="PATH", help="write the result as JSON (benchmarks/README.md)")
    ap.add_argument("--quick", action="store_true", help="512x512 image, largest 1024x1024, 2 repeats")
    args = ap.parse_args(argv)
    if args.quick:
        result = run(size=512, big=1024, repeats=2)
    else:
        result = run()
    write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
