"""``isomat bench``: run the scripts in ``benchmarks/`` and write a JSON and a Markdown report.

Convention for a benchmark script ``benchmarks/NAME.py`` (see ``benchmarks/README.md``): given
``--json PATH`` it writes its results to ``PATH`` as

.. code-block:: json

    {"benchmark": "NAME",
     "figures": [{"name": "...", "value": 1.0, "unit": "s", "stat": "median", "repeats": 7,
                  "params": {}}],
     "ratios": [{"name": "...", "value": 2.0, "numerator": "...", "denominator": "..."}],
     "notes": ["..."],
     "skipped": "reason (only when it measured nothing, e.g. no usable GPU)"}

and given ``--quick`` it uses small sizes and few repeats. Every figure is a median over repeats;
every ratio is formed from two figures of the same run. A script that does not mention ``--json``
in its source is run without it and its standard output goes into the report.

The helpers :func:`time_median`, :func:`cpu_model`, :func:`figure`, :func:`ratio` and
:func:`write_result` are for the scripts, and so is the machinery for timings that tell the truth on
a shared machine (issue 29):

* :func:`time_legs` runs the legs of a comparison interleaved (A B A B ...) after a warm-up, so that a
  change of load hits every leg, and returns a :class:`Timing` (min / median / max) per leg;
* :func:`thread_limit` runs a leg under a fixed BLAS/OpenMP thread count (``threadpoolctl`` for
  OpenBLAS/MKL/OpenMP, ``torch.set_num_threads`` when torch is loaded), so a baseline and isomat
  run under the same settings; :func:`thread_columns` is the one-thread and all-thread pair;
* :func:`verdict` turns two timings into a ratio with a verdict, or none: "noisy" when a median is
  over twice its minimum, "bound wrong" when a measurement beats a physical bound, and the load
  average before and after (:class:`LoadWatch`) beside it; :func:`scaling_check` flags a many-thread
  column faster than the thread count allows;
* :func:`timing_figure` is the JSON figure of a :class:`Timing` (median, with min and max).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field as _field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from ._config import cpu_busy_seconds, usable_cpus


# -- helpers for benchmark scripts ---------------------------------------------------------------
def cpu_model() -> str | None:
    """The CPU's model name from ``/proc/cpuinfo`` (``platform.processor()`` is often empty or
    just the architecture on Linux), or None where there is no such line."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def time_median(fn: Callable[[], Any], *, repeats: int = 5, warmup: int = 1,
                sync: Callable[[], Any] | None = None) -> tuple[float, list[float]]:
    """Median wall time of ``fn()`` over ``repeats`` runs after ``warmup`` runs.

    Parameters
    ----------
    fn : callable
        The work to time.
    repeats, warmup : int
        Timed and untimed runs (``repeats >= 1``).
    sync : callable, optional
        Called after each run before the clock stops (e.g. a CUDA device synchronize).

    Returns
    -------
    (median seconds, list of all timed seconds)
    """
    if int(repeats) < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    for _ in range(int(warmup)):
        fn()
        if sync is not None:
            sync()
    times = []
    for _ in range(int(repeats)):
        t0 = time.perf_counter()
        fn()
        if sync is not None:
            sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def figure(name: str, value: float, unit: str, *, repeats: int | None = None, stat: str = "median",
           **params: Any) -> dict[str, Any]:
    """One figure of a benchmark result (see the module docstring)."""
    out: dict[str, Any] = {"name": name, "value": float(value), "unit": unit, "stat": stat}
    if repeats is not None:
        out["repeats"] = int(repeats)
    if params:
        out["params"] = params
    return out


def ratio(name: str, numerator: dict[str, Any], denominator: dict[str, Any]) -> dict[str, Any]:
    """The ratio of two figures measured in the same run."""
    return {"name": name, "value": numerator["value"] / denominator["value"],
            "numerator": numerator["name"], "denominator": denominator["name"]}


# -- honest timings on a shared machine (issue 29) -------------------------------------------------
#: a median more than this many times its minimum is noise, not a measurement to give a verdict on
NOISY_FACTOR = 2.0


def load_average() -> tuple[float, float, float] | None:
    """``os.getloadavg()``, or None where the platform has none."""
    try:
        return tuple(float(v) for v in os.getloadavg())  # type: ignore[return-value]
    except (OSError, AttributeError):
        return None


def load_text(load: tuple[float, float, float] | None = None) -> str:
    """``"load average 1.02 0.87 0.55"`` (now, or of ``load``)."""
    load = load_average() if load is None else load
    return "load average n/a" if load is None else "load average " + " ".join(f"{v:.2f}" for v in load)


#: cores other processes may keep busy during a measurement before a verdict that needs the
#: machine to itself is withheld (see :attr:`LoadWatch.others`)
OTHERS_LIMIT = 0.25


def _own_cpu_seconds() -> float:
    """CPU seconds of this process and of the child processes it has waited for."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


@dataclass
class LoadWatch:
    """The load during a measurement: ``with LoadWatch() as lw: ...`` then ``lw.before``, ``lw.after``
    (1-minute load averages), ``lw.others`` and ``lw.text``.

    ``others`` is the number of cores other processes kept busy meanwhile: all CPUs' busy time
    (``/proc/stat``) less this process's own CPU time and that of the child processes it waited for
    (a leg run as a subprocess, e.g. ``isomat verify --jobs 2`` and its workers, is the
    measurement, not a disturbance of it), over the wall time.  Unlike the load average, which lags
    by a minute and counts this process too, it says whether the measurement had the machine to
    itself (None where ``/proc/stat`` is missing)."""

    before: float | None = None
    after: float | None = None
    others: float | None = None

    def __enter__(self) -> LoadWatch:
        load = load_average()
        self.before = None if load is None else load[0]
        self.after = self.others = None
        self._t0, self._busy0, self._own0 = time.perf_counter(), cpu_busy_seconds(), _own_cpu_seconds()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> LoadWatch:
        load = load_average()
        self.after = None if load is None else load[0]
        busy, wall = cpu_busy_seconds(), time.perf_counter() - getattr(self, "_t0", time.perf_counter())
        if busy is not None and getattr(self, "_busy0", None) is not None and wall > 0:
            self.others = max(0.0, (busy - self._busy0 - (_own_cpu_seconds() - self._own0)) / wall)
        return self

    @property
    def loaded(self) -> bool:
        """Other processes kept more than :data:`OTHERS_LIMIT` cores busy during the measurement."""
        return self.others is not None and self.others > OTHERS_LIMIT

    def short_of_cores(self, threads: int) -> bool:
        """Legs on ``threads`` (> 1) threads lacked cores: other processes kept busy cores they needed."""
        return threads > 1 and self.others is not None and self.others + threads > all_threads() + OTHERS_LIMIT

    @property
    def text(self) -> str:
        def f(v: float | None) -> str:
            return "n/a" if v is None else f"{v:.2f}"

        return (f"load {f(self.before)} before, {f(self.after)} after ({os.cpu_count()} logical CPUs); other "
                f"processes used {f(self.others)} cores meanwhile")


def all_threads() -> int:
    """The all-thread column's count: the CPUs this process may run on."""
    return usable_cpus()


def thread_columns() -> list[int]:
    """``[1, all_threads()]`` (just ``[1]`` on a one-CPU machine): the columns every comparison gets."""
    n = all_threads()
    return [1] if n == 1 else [1, n]


@contextlib.contextmanager
def thread_limit(n: int | None) -> Iterator[int]:
    """Run the block with BLAS and OpenMP pools (OpenBLAS, MKL, BLIS, libgomp/libiomp through
    ``threadpoolctl.threadpool_limits``) and torch's intra-op pool (``torch.set_num_threads``, when
    torch is already imported) limited to ``n`` threads (None: :func:`all_threads`); the previous
    settings come back after. Yields the count. Without ``threadpoolctl`` the BLAS pools are left as
    they are -- the count is then a request, and the caller should say so (:func:`thread_control`)."""
    n = all_threads() if n is None else int(n)
    if n < 1:
        raise ValueError(f"threads must be >= 1, got {n}")
    with contextlib.ExitStack() as stack:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn and the dev extra
            pass
        else:
            stack.enter_context(threadpool_limits(limits=n))
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch, "set_num_threads"):
            old = torch.get_num_threads()
            torch.set_num_threads(n)
            stack.callback(torch.set_num_threads, old)
        yield n


def thread_control() -> str:
    """What :func:`thread_limit` controls in this process, for a benchmark's header."""
    parts = []
    try:
        from threadpoolctl import threadpool_info

        libs = sorted({f"{d.get('internal_api')} ({d.get('num_threads')} threads)" for d in threadpool_info()})
        parts.append("threadpoolctl: " + (", ".join(libs) if libs else "no pools loaded yet"))
    except ImportError:  # pragma: no cover
        parts.append("threadpoolctl missing: BLAS/OpenMP threads NOT controlled")
    if "torch" in sys.modules:
        parts.append(f"torch ({sys.modules['torch'].get_num_threads()} intra-op threads)")
    return "; ".join(parts)


@dataclass
class Timing:
    """Per-call seconds of one leg of :func:`time_legs`: ``min``, ``median``, ``max``, ``times``."""

    name: str
    times: list[float] = _field(default_factory=list)
    threads: int | None = None

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def max(self) -> float:
        return max(self.times)

    @property
    def noisy(self) -> bool:
        """Median over :data:`NOISY_FACTOR` times the minimum: no verdict rests on it."""
        return self.median > NOISY_FACTOR * self.min

    def text(self, scale: float = 1e3, unit: str = "ms") -> str:
        return (f"{self.min * scale:.4g}/{self.median * scale:.4g}/{self.max * scale:.4g} {unit}"
                + (" NOISY" if self.noisy else ""))


def time_legs(legs: dict[str, Callable[[], Any]], *, repeats: int = 5, warmup: int = 1, number: int | dict[str, int] = 1,
              threads: int | None = None, sync: Callable[[], Any] | None = None,
              cooldown: float = 0.0) -> dict[str, Timing]:
    """Time the ``legs`` interleaved: after ``warmup`` untimed rounds, ``repeats`` rounds each run every
    leg once in turn (A B A B ...), so that a change of load hits every leg alike.

    Parameters
    ----------
    legs : dict name -> callable
    repeats, warmup : int
        Timed and untimed rounds (``repeats >= 1``).
    number : int or dict name -> int
        Calls per timed sample (the sample is their mean): a batch for a call too short to time alone.
    threads : int, optional
        Run every leg under :func:`thread_limit` (``threads``): a baseline and isomat under the same
        thread settings. None leaves the settings as they are.
    sync : callable, optional
        Called after each sample before the clock stops (e.g. a CUDA synchronize).
    cooldown : float
        Seconds to sleep before each sample, so that threads one library left spinning (OpenBLAS,
        OpenMP's block time) are parked before the next library's call.

    Returns
    -------
    dict name -> :class:`Timing` (per-call seconds)
    """
    if int(repeats) < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    counts = {k: int(number[k]) if isinstance(number, dict) else int(number) for k in legs}
    out = {k: Timing(k, threads=threads) for k in legs}
    ctx = thread_limit(threads) if threads is not None else contextlib.nullcontext()
    with ctx:
        for r in range(int(warmup) + int(repeats)):
            for name, fn in legs.items():
                if cooldown:
                    time.sleep(cooldown)
                t0 = time.perf_counter()
                for _ in range(counts[name]):
                    fn()
                if sync is not None:
                    sync()
                dt = (time.perf_counter() - t0) / counts[name]
                if r >= int(warmup):
                    out[name].times.append(dt)
    return out


def calls_for(fn: Callable[[], Any], target: float = 0.01, most: int = 1000) -> int:
    """How many calls of ``fn`` take about ``target`` seconds (one call measured; at least 1)."""
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    return max(1, min(int(most), int(target / max(dt, 1e-7))))


def verdict(name: str, numerator: Timing, denominator: Timing, *, target: float | None = None,
            bound: bool = False, load: LoadWatch | None = None) -> dict[str, Any]:
    """The ratio ``numerator / denominator`` of two timings of the same run, with its verdict.

    The value is the ratio of the medians (``min_ratio`` the ratio of the minimums beside it).
    ``verdict`` is

    * ``"noisy"`` -- no verdict -- when either timing's median is over twice its minimum;
    * ``"bound wrong"`` when ``bound`` (the numerator is a physical lower bound on the denominator's
      time, e.g. memory streaming) and the ratio is below 1: a measurement cannot beat its bound, so
      the bound is misstated, never a ratio < 1 printed as a result;
    * ``"loaded"`` -- no verdict -- when the legs ran on several threads (``Timing.threads``) and
      other processes kept busy cores they needed (``load.others + threads`` over the CPUs by more
      than :data:`OTHERS_LIMIT`): interleaving evens out load between one-thread legs, but a thread
      pool short of a core is slowed by how its work is split, not alike for both legs;
    * ``"met"`` / ``"not met"`` against ``target`` (the ratio must reach it), else ``"measured"``.

    The load average before and after (``load``) is recorded with it.
    """
    value = numerator.median / denominator.median
    out: dict[str, Any] = {"name": name, "value": value, "numerator": numerator.name,
                           "denominator": denominator.name, "min_ratio": numerator.min / denominator.min,
                           "stat": "median / median"}
    if target is not None:
        out["target"] = float(target)
    if load is not None:
        out["load_before"], out["load_after"] = load.before, load.after
        if load.others is not None:
            out["others"] = load.others
    threads = max(numerator.threads or 1, denominator.threads or 1)
    out["threads"] = threads
    if numerator.noisy or denominator.noisy:
        out["verdict"] = "noisy"
    elif load is not None and load.short_of_cores(threads):
        out["verdict"] = "loaded"
    elif bound and min(value, out["min_ratio"]) < 1:
        out["verdict"] = "bound wrong"
    elif target is not None:
        out["verdict"] = "met" if value >= target else "not met"
    else:
        out["verdict"] = "measured"
    return out


def verdict_text(v: dict[str, Any]) -> str:
    """One line for :func:`verdict`'s result."""
    tail = {"noisy": "NOISY (median > 2x min): no verdict",
            "bound wrong": "BOUND WRONG (a measurement beat its physical bound): no verdict",
            "loaded": (f"LOADED (other processes kept {v.get('others', 0):.2f} cores busy under "
                       f"{v.get('threads', '')}-thread legs): no verdict"),
            "disturbed": f"DISTURBED ({v.get('why', 'a thread column failed its scaling check')})",
            "met": f"target {v.get('target', 0):g}x MET", "not met": f"target {v.get('target', 0):g}x NOT MET",
            "measured": ""}[v["verdict"]]
    load = ""
    if "load_before" in v:
        b, a = v["load_before"], v["load_after"]
        load = f" [load {'n/a' if b is None else f'{b:.2f}'} -> {'n/a' if a is None else f'{a:.2f}'}]"
    return f"{v['name']}: {v['value']:.3g}x (mins {v['min_ratio']:.3g}x) {tail}{load}".rstrip()


def scaling_check(one: Timing, many: Timing, threads: int, *, slack: float = 1.15,
                  collapse: float | None = 2.0) -> str | None:
    """None, or why the ``threads``-thread timing cannot be trusted: with ``threads`` threads a call is
    at most ``threads`` times faster than with one (``slack`` for cache effects), so a larger speedup
    means the one-thread run was disturbed (IMPOSSIBLE); and a ``threads``-thread run over ``collapse``
    times slower than the one-thread run is a thread pool stalled by a busy core (COLLAPSED)."""
    if threads <= 1:
        return None
    best = one.min / many.min
    med = one.median / many.median
    if max(best, med) > threads * slack:
        return (f"IMPOSSIBLE: {threads} threads {max(best, med):.2f}x faster than 1 on {all_threads()} CPUs "
                f"(at most {threads}x): measurement disturbed, no verdict")
    if collapse and min(best, med) < 1 / collapse:
        return (f"COLLAPSED: {threads} threads {1 / min(best, med):.1f}x slower than 1 (a busy core stalls the "
                f"thread pool): the all-thread column is not a fair comparison, no verdict")
    return None


def timing_figure(name: str, t: Timing, unit: str = "s", **params: Any) -> dict[str, Any]:
    """The :func:`figure` of a :class:`Timing`: its median, with ``min``, ``max``, the thread count
    and ``noisy`` in the parameters."""
    extra: dict[str, Any] = {"min": t.min, "max": t.max}
    if t.threads is not None:
        extra["threads"] = t.threads
    if t.noisy:
        extra["noisy"] = True
    return figure(name, t.median, unit, repeats=len(t.times), **extra, **params)


def machine() -> dict[str, Any]:
    """Platform, CPU count, library versions and the GPU (or why there is none)."""
    from ._config import machine_info as _machine  # not from .cli: cli imports this module (issue 29's cycle)
    from .gpu import device_info

    info = _machine()
    info["gpu"] = device_info()
    return info


def write_result(path: str | os.PathLike | None, result: dict[str, Any], *, out: TextIO | None = None) -> None:
    """Write a script's result as JSON to ``path`` (if given) and print a short summary."""
    result = {"machine": machine(), **result}
    if path:
        from .export._atomic import write_text

        write_text(path, json.dumps(result, indent=1, default=float), what="--json")
    out = out or sys.stdout
    if result.get("skipped"):
        print(f"{result.get('benchmark', '?')}: skipped: {result['skipped']}", file=out)
    for f in result.get("figures", []):
        print(f"{f['name']}: {f['value']:.6g} {f['unit']} ({f.get('stat', 'median')}"
              + (f" of {f['repeats']}" if "repeats" in f else "") + ")", file=out)
    for r in result.get("ratios", []):
        print(f"{r['name']}: {r['value']:.4g} ({r['numerator']} / {r['denominator']})"
              + (f" -- {r['verdict']}" if r.get("verdict") else ""), file=out)
    for n in result.get("notes", []):
        print(f"note: {n}", file=out)


# -- the runner ----------------------------------------------------------------------------------
def discover(directory: str | os.PathLike) -> list[Path]:
    """The benchmark scripts: ``*.py`` in ``directory`` not starting with ``_``, sorted."""
    d = Path(directory)
    if not d.is_dir():
        raise ValueError(f"--dir: {str(d)!r} is not a directory")
    return sorted(p for p in d.glob("*.py") if not p.name.startswith("_"))


def _tail(text: str, n: int = 4000) -> str:
    return text if len(text) <= n else "..." + text[-n:]


def _run_group(cmd: list[str], *, timeout: float, env: dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd)`` with the script in a process group of its own, ended whole -- the script
    and whatever it started (``isomat verify`` and its workers, a Dask cluster) -- when it times out or
    this process is interrupted (Ctrl-C, SIGTERM), so that nothing is left running."""
    import signal

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            start_new_session=True)
    try:
        out, errs = proc.communicate(timeout=timeout)
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, errs = proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, errs)


def run_script(script: Path, *, quick: bool = False, timeout: float = 900.0) -> dict[str, Any]:
    """Run one script in a subprocess and collect its JSON result (or its output).

    The entry's ``status`` is ``"skipped"`` (with the ``reason``) when the script wrote a JSON
    result whose ``"skipped"`` key is set and which holds no figures -- whatever its exit status --,
    ``"failed"`` for any other non-zero exit, a time-out or an unreadable JSON result, else ``"ok"``.
    """
    source = script.read_text(encoding="utf-8", errors="replace")
    uses_json = "--json" in source
    cmd = [sys.executable, str(script)]
    if quick and "--quick" in source:
        cmd.append("--quick")
    env = dict(os.environ)
    root = str(script.resolve().parent.parent)
    here = str(Path(__file__).resolve().parent.parent)  # the isomat running this report
    paths = [here] + ([root] if root != here else []) + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    entry: dict[str, Any] = {"name": script.stem, "script": str(script)}
    with tempfile.TemporaryDirectory() as tmp:
        out_json = Path(tmp) / "result.json"
        if uses_json:
            cmd += ["--json", str(out_json)]
        entry["command"] = " ".join(["python", *cmd[1:]]).replace(str(out_json), "OUT.json")
        t0 = time.perf_counter()
        try:
            proc = _run_group(cmd, timeout=timeout, env=env, cwd=root)
        except subprocess.TimeoutExpired as exc:
            entry.update(status="failed", seconds=time.perf_counter() - t0, returncode=None,
                         error=f"timed out after {timeout:g} s", stdout=_tail(str(exc.stdout or "")))
            return entry
        entry["seconds"] = time.perf_counter() - t0
        entry["returncode"] = proc.returncode
        result = None
        if uses_json and out_json.exists():
            try:
                result = json.loads(out_json.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                entry["error"] = f"invalid JSON result: {exc}"
    skipped = isinstance(result, dict) and bool(result.get("skipped")) and not result.get("figures")
    if proc.returncode != 0 and not skipped:
        entry.update(status="failed", stdout=_tail(proc.stdout), stderr=_tail(proc.stderr))
        return entry
    if skipped:
        # a script that wrote a skip (benchmarks/README.md's "skipped" key) skipped, whatever its exit
        # status: benchmarks/device_checklist.py exits 2 without a GPU so that a shell run notices
        entry.update(status="skipped", reason=str(result["skipped"]), result=result)
        return entry
    if result is None:
        # a script without a JSON result reports in its text, verdicts anywhere in it: keep it whole
        # (up to 256 KB; the last 4 KB cut benchmarks/conv.py's first verdicts from the report)
        entry.update(status="ok" if "error" not in entry else "failed", stdout=_tail(proc.stdout, 256_000))
        return entry
    entry["result"] = result
    entry["status"] = "ok"
    return entry


def run_benchmarks(directory: str | os.PathLike = "benchmarks", *, json_path: str | os.PathLike = "bench-report.json",
                   markdown_path: str | os.PathLike = "bench-report.md", quick: bool = False,
                   only: Sequence[str] | None = None, timeout: float = 900.0,
                   log: TextIO | None = None) -> dict[str, Any]:
    """Run the benchmark scripts and write the JSON and Markdown reports; return the report.

    Parameters
    ----------
    directory : path
        Where the scripts are.
    json_path, markdown_path : path
        The reports.
    quick : bool
        Pass ``--quick`` to scripts that take it.
    only : list of str, optional
        Script names (without ``.py``) to run; unknown names are a ValueError.
    timeout : float
        Seconds per script.
    log : text stream, optional
        Progress lines.
    """
    from .export._atomic import check_target

    # the reports' targets are checked before the benchmarks run, not after
    check_target(Path(json_path), what="--json")
    check_target(Path(markdown_path), what="--markdown")
    scripts = discover(directory)
    if only:
        names = {s.stem for s in scripts}
        unknown = [n for n in only if n not in names]
        if unknown:
            raise ValueError(f"--only: no benchmark named {', '.join(unknown)}; have {', '.join(sorted(names)) or 'none'}")
        scripts = [s for s in scripts if s.stem in set(only)]
    report: dict[str, Any] = {
        "isomat_version": __version__,
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "quick": bool(quick),
        "machine": machine(),
        "benchmarks": [],
    }
    report["load_before"] = load_average()
    t_start = time.perf_counter()
    for i, s in enumerate(scripts, 1):
        if log is not None:  # progress: which script, how far, how long so far
            print(f"isomat bench: [{i}/{len(scripts)}] {s.stem} ... ({time.perf_counter() - t_start:.0f} s so far)",
                  file=log, flush=True)
        entry = run_script(s, quick=quick, timeout=timeout)
        if log is not None:
            print(f"isomat bench: [{i}/{len(scripts)}] {s.stem}: {entry['status']} in {entry['seconds']:.1f} s",
                  file=log, flush=True)
        report["benchmarks"].append(entry)
    report["load_after"] = load_average()
    from .export._atomic import write_text

    write_text(json_path, json.dumps(report, indent=1, default=float), what="--json")
    write_text(markdown_path, markdown(report), what="--markdown")
    return report


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: the classes a verdict falls in: met, not met, no verdict (why), impossible
def classify(text: str) -> str | None:
    """The class of a verdict's text: ``"met"``, ``"not met"``, ``"no verdict (noisy)"`` (or
    loaded / disturbed / collapsed / quick), ``"BOUND WRONG"`` / ``"IMPOSSIBLE"`` (a measurement that
    cannot be), or ``None`` when the text states no verdict."""
    t = text.lower()
    if "bound wrong" in t:
        return "BOUND WRONG"
    if "impossible" in t:
        return "IMPOSSIBLE"
    for k in ("noisy", "loaded", "disturbed", "collapsed", "quick"):
        if k in t:
            return f"no verdict ({k})"
    if "not met" in t or "missed" in t:
        return "not met"
    if re.search(r"\bmet\b", t):
        return "met"
    return None


_TARGET = re.compile(r"^\s*(<=|>=|<|>|=)?\s*([-+0-9.eE]+)\s*x?\s*$")


def target_text(ratio_entry: dict[str, Any]) -> str:
    """A JSON ratio's target as text (``">= 100"``; a bare number from :func:`verdict` means the
    ratio must reach it), or ``""``."""
    t = ratio_entry.get("target")
    if t is None:
        return ""
    if isinstance(t, (int, float)):
        return f">= {t:g}"
    return str(t).strip()


def _judge(value: float, target: str) -> str | None:
    m = _TARGET.match(target)
    if not m:
        return None
    op, bound = m.group(1) or ">=", float(m.group(2))
    ok = {"<=": value <= bound, ">=": value >= bound, "<": value < bound, ">": value > bound, "=": value == bound}[op]
    return "met" if ok else "not met"


def report_verdicts(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every verdict of a report from :func:`run_benchmarks`, one entry each: ``benchmark``, ``name``,
    ``value`` (None for a text line), ``target`` (text), ``verdict`` (:func:`classify`'s class, or
    ``"measured"`` for a ratio without a target) and ``source`` (``"json"`` or ``"text"``).

    A JSON ratio's verdict is its own ``verdict`` field when it has one; else, when it has a target and
    is not noisy, the value judged against the target; a text-only script's verdicts are its lines that
    carry a ``[target ...]``, ``[loaded ...]`` or ``[noisy ...]`` mark or a ``target (...)`` statement."""
    out: list[dict[str, Any]] = []
    for b in report.get("benchmarks", []):
        bname = b.get("name", "?")
        res = b.get("result") or {}
        for r in res.get("ratios", []) or []:
            name = re.sub(r"\s*--\s*(met|not met|noisy|loaded|disturbed|measured|bound wrong).*$", "", str(r.get("name", "")))
            target = target_text(r)
            value = r.get("value")
            if r.get("verdict"):
                v = classify(str(r["verdict"])) or "measured"
            elif "--" in str(r.get("name", "")) and classify(str(r["name"]).split("--")[-1]):
                v = classify(str(r["name"]).split("--")[-1])
            elif r.get("noisy"):
                v = "no verdict (noisy)"
            elif target and isinstance(value, (int, float)):
                v = _judge(float(value), target) or "measured"
            else:
                v = "measured"
            if report.get("quick") and v in ("met", "not met"):
                v = "no verdict (quick)"
            out.append({"benchmark": bname, "name": name, "value": value, "target": target, "verdict": v, "source": "json"})
        section = ""
        for line in (b.get("stdout") or "").splitlines():
            if line and not line.startswith(" "):
                section = line.strip()[:60]
            stripped = line.strip()
            c = None
            if "[" in line and any(w in line for w in ("target", "loaded", "noisy", "bound wrong")):
                key = section + " | " + re.split(r"\s{2,}\d", stripped)[0].split(" [bound")[0]
                c = classify(line[line.index("["):])
            elif stripped.startswith("target (no slower") or re.search(r"target [0-9.]+x (MET|NOT MET)", stripped):
                key = section + " | " + stripped.split(":")[0]
                c = classify(stripped.split(":", 2)[-1])
            if c and report.get("quick") and c in ("met", "not met"):
                c = "no verdict (quick)"
            if c:
                m = re.search(r"target\s*(<=|>=|<|>)?\s*([0-9.]+)x?", stripped)
                out.append({"benchmark": bname, "name": key, "value": None,
                            "target": (f"{m.group(1) or '>='} {m.group(2)}" if m else ""), "verdict": c, "source": "text",
                            "line": stripped})
    return out


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """Counts of :func:`report_verdicts` by class (met, not met, no verdict, impossible; ratios
    without a target are ``measured``), with the load average before and after the run and one line
    of text (``summary(report)["text"]``)."""
    vs = report_verdicts(report)
    met = sum(v["verdict"] == "met" for v in vs)
    missed = sum(v["verdict"] == "not met" for v in vs)
    none = sum(v["verdict"].startswith("no verdict") for v in vs)
    bad = sum(v["verdict"] in ("BOUND WRONG", "IMPOSSIBLE") for v in vs)
    measured = sum(v["verdict"] == "measured" for v in vs)
    failed = [b["name"] for b in report.get("benchmarks", []) if b.get("status") == "failed"]
    lb, la = report.get("load_before"), report.get("load_after")

    def load(v: Any) -> str:
        return "n/a" if not v else f"{v[0]:.2f}"

    text = (f"{met} met, {missed} not met, {none} without a verdict (noisy, loaded, disturbed or quick)"
            + (f", {bad} impossible" if bad else "") + f"; {measured} ratios measured without a target; "
            f"load average {load(lb)} before, {load(la)} after, on {(report.get('machine') or {}).get('cpus', '?')} CPUs"
            + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return {"met": met, "not met": missed, "no verdict": none, "impossible": bad, "measured": measured,
            "failed": failed, "text": text}


def markdown(report: dict[str, Any]) -> str:
    """The Markdown rendering of a report from :func:`run_benchmarks`."""
    m = report["machine"]
    gpu = m.get("gpu", {})
    gpu_line = (f"{gpu.get('name')} ({gpu.get('total_memory_bytes', 0) / 2**30:.0f} GiB)" if gpu.get("usable")
                else f"none ({gpu.get('reason', '?')})")
    lines = [
        "# isomat benchmarks", "",
        f"**Summary: {summary(report)['text']}.**", "",
        f"isomat {report['isomat_version']}, generated {report['generated']}"
        + (", quick mode" if report.get("quick") else "") + ".", "",
        f"* machine: {m.get('platform')}, {m.get('processor')}, {m.get('cpus')} CPUs",
        f"* python {m.get('python')}, numpy {m.get('numpy')}, scipy {m.get('scipy')}",
        f"* GPU: {gpu_line}", "",
        "Figures are medians over the stated repeats (min and max among the parameters where a script gives "
        "them); ratios are formed from figures of the same run; a ratio marked noisy (median > 2x min) carries "
        "no verdict.", "",
    ]
    verdicts = report_verdicts(report)
    for b in report["benchmarks"]:
        lines += [f"## {b['name']}", "", f"`{b.get('command', '')}` -- {b['status']}, {b.get('seconds', 0):.1f} s", ""]
        res = b.get("result") or {}
        if res.get("skipped"):
            lines += [f"Skipped: {_md(res['skipped'])}", ""]
        if res.get("figures"):
            lines += ["| figure | value | unit | stat | repeats | parameters |", "|---|---:|---|---|---:|---|"]
            for f in res["figures"]:
                params = ", ".join(f"{k}={v}" for k, v in (f.get("params") or {}).items())
                lines.append(f"| {_md(f['name'])} | {f['value']:.6g} | {_md(f['unit'])} | {f.get('stat', 'median')} "
                             f"| {f.get('repeats', '')} | {_md(params)} |")
            lines.append("")
        judged = [v for v in verdicts if v["benchmark"] == b["name"]]
        if res.get("ratios"):
            lines += ["| ratio | value | target | verdict | numerator | denominator |", "|---|---:|---|---|---|---|"]
            for r, v in zip(res["ratios"], [v for v in judged if v["source"] == "json"]):
                lines.append(f"| {_md(v['name'])} | {r['value']:.4g} | {_md(v['target'] or '-')} | {v['verdict']} "
                             f"| {_md(r.get('numerator', ''))} | {_md(r.get('denominator', ''))} |")
            lines.append("")
        text_verdicts = [v for v in judged if v["source"] == "text"]
        if text_verdicts:
            lines += ["| verdict line | target | verdict |", "|---|---|---|"]
            lines += [f"| {_md(v['line'])} | {_md(v['target'] or '-')} | {v['verdict']} |" for v in text_verdicts]
            lines += ["", f"The script's whole output is in the appendix ({b['name']})."
                      if not res and b.get("stdout") else "", ""]
        for n in res.get("notes", []):
            lines.append(f"* {_md(n)}")
        if res.get("notes"):
            lines.append("")
        if not res and b.get("stdout") and not text_verdicts:
            lines += ["The script states no verdict; its output is in the appendix.", ""]
        if b["status"] == "failed":
            lines += [f"Failed (exit {b.get('returncode')}): {_md(b.get('error', ''))}", "", "```",
                      (b.get("stderr") or "").rstrip()[-2000:], "```", ""]
    raw = [b for b in report["benchmarks"] if not b.get("result") and b.get("stdout")]
    if raw:
        lines += ["## Appendix: the output of the text-only scripts", ""]
        for b in raw:
            lines += [f"### {b['name']}", "", "```", b["stdout"].rstrip(), "```", ""]
    return "\n".join(lines) + "\n"


__all__ = ["LoadWatch", "Timing", "all_threads", "calls_for", "classify", "discover", "figure", "load_average", "load_text",
           "machine", "markdown", "ratio", "report_verdicts", "run_benchmarks", "summary", "target_text", "run_script", "scaling_check", "thread_columns",
           "thread_control", "thread_limit", "time_legs", "time_median", "timing_figure", "verdict", "verdict_text",
           "write_result"]
