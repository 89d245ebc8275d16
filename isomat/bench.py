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
:func:`write_result` are for the scripts.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from . import __version__


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


def machine() -> dict[str, Any]:
    """Platform, CPU count, library versions and the GPU (or why there is none)."""
    from .cli import _machine
    from .gpu import device_info

    info = _machine()
    info["gpu"] = device_info()
    return info


def write_result(path: str | os.PathLike | None, result: dict[str, Any], *, out: TextIO | None = None) -> None:
    """Write a script's result as JSON to ``path`` (if given) and print a short summary."""
    result = {"machine": machine(), **result}
    if path:
        from ._atomic import write_text

        write_text(path, json.dumps(result, indent=1, default=float), what="--json")
    out = out or sys.stdout
    if result.get("skipped"):
        print(f"{result.get('benchmark', '?')}: skipped: {result['skipped']}", file=out)
    for f in result.get("figures", []):
        print(f"{f['name']}: {f['value']:.6g} {f['unit']} ({f.get('stat', 'median')}"
              + (f" of {f['repeats']}" if "repeats" in f else "") + ")", file=out)
    for r in result.get("ratios", []):
        print(f"{r['name']}: {r['value']:.4g} ({r['numerator']} / {r['denominator']})", file=out)
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
        entry.update(status="ok" if "error" not in entry else "failed", stdout=_tail(proc.stdout))
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
    from ._atomic import check_target

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
    from ._atomic import write_text

    write_text(json_path, json.dumps(report, indent=1, default=float), what="--json")
    write_text(markdown_path, markdown(report), what="--markdown")
    return report


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(report: dict[str, Any]) -> str:
    """The Markdown rendering of a report from :func:`run_benchmarks`."""
    m = report["machine"]
    gpu = m.get("gpu", {})
    gpu_line = (f"{gpu.get('name')} ({gpu.get('total_memory_bytes', 0) / 2**30:.0f} GiB)" if gpu.get("usable")
                else f"none ({gpu.get('reason', '?')})")
    lines = [
        "# isomat benchmarks", "",
        f"isomat {report['isomat_version']}, generated {report['generated']}"
        + (", quick mode" if report.get("quick") else "") + ".", "",
        f"* machine: {m.get('platform')}, {m.get('processor')}, {m.get('cpus')} CPUs",
        f"* python {m.get('python')}, numpy {m.get('numpy')}, scipy {m.get('scipy')}",
        f"* GPU: {gpu_line}", "",
        "Figures are medians over the stated repeats; ratios are formed from figures of the same run.", "",
    ]
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
        if res.get("ratios"):
            lines += ["| ratio | value | numerator | denominator |", "|---|---:|---|---|"]
            for r in res["ratios"]:
                lines.append(f"| {_md(r['name'])} | {r['value']:.4g} | {_md(r['numerator'])} | {_md(r['denominator'])} |")
            lines.append("")
        for n in res.get("notes", []):
            lines.append(f"* {_md(n)}")
        if res.get("notes"):
            lines.append("")
        if not res and b.get("stdout"):
            lines += ["```", b["stdout"].rstrip(), "```", ""]
        if b["status"] == "failed":
            lines += [f"Failed (exit {b.get('returncode')}): {_md(b.get('error', ''))}", "", "```",
                      (b.get("stderr") or "").rstrip()[-2000:], "```", ""]
    return "\n".join(lines) + "\n"


__all__ = ["discover", "figure", "machine", "markdown", "ratio", "run_benchmarks", "run_script", "time_median",
           "write_result"]
