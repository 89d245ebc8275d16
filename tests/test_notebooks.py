"""Every notebook in notebooks/ runs top to bottom (nbclient), as in CI, and its stored outputs are fresh.

The notebooks are stored *with* their outputs, so that figures and results show wherever the
repository is browsed and on the documentation site (myst-nb renders the stored outputs, it does
not execute). The test executes each notebook and fails when a cell raises, or when the stored
outputs are stale: the text outputs of the fresh run (``text/plain`` and stream text, whitespace
collapsed, solver timings masked) must equal the stored ones, cell by cell, and every stored
image must still be produced. Image bytes and execution counts are not compared.

After changing a notebook or what it prints, store it again, executed::

    .venv/bin/python -m tests.test_notebooks --write              # every notebook
    .venv/bin/python -m tests.test_notebooks --write zhu2025      # one (by stem)
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))

# values that differ from run to run by nature: wall-clock timings printed inside ledger records
# ("seconds": 0.0484, solver_seconds 0.05) and object addresses; they are masked before comparing
_VOLATILE = [
    (re.compile(r"(seconds\"?'?\s*[:=]?\s*)-?\d+(?:\.\d*)?(?:e-?\d+)?"), r"\1<time>"),
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "0x<address>"),
]


def _normalize(text: str) -> str:
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def cell_outputs(cell) -> list[dict]:
    """A code cell's outputs as comparable items: consecutive streams merged, rich outputs by text."""
    items: list[dict] = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            name = f"stream {out.get('name', 'stdout')}"
            if items and items[-1]["kind"] == name:
                items[-1]["text"] += _text(out.get("text", ""))
            else:
                items.append({"kind": name, "text": _text(out.get("text", "")), "image": False})
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            items.append({"kind": "result", "text": _text(data.get("text/plain", "")),
                          "image": any(k.startswith("image/") for k in data)})
        elif kind == "error":
            items.append({"kind": "error", "text": f"{out.get('ename')}: {out.get('evalue')}", "image": False})
    return items


@contextlib.contextmanager
def _kernel_environment():
    """The environment a notebook's kernel is started with (it inherits this process's), restored after."""
    env_backup = {k: os.environ.get(k) for k in ("MPLBACKEND", "PYTHONPATH", "PYTHONHASHSEED")}
    os.environ["MPLBACKEND"] = "Agg"  # the notebooks select the inline backend; nothing opens a window
    os.environ["PYTHONHASHSEED"] = "0"
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env_backup["PYTHONPATH"]]))
    try:
        yield
    finally:
        for k, v in env_backup.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _client(path: Path, cwd: str, timeout: int):
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return nb, nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                                       resources={"metadata": {"path": cwd}})


def execute(path: Path, cwd: str, timeout: int = 600):
    """Run a notebook with nbclient in ``cwd`` (this checkout's isomat importable); return it executed."""
    with _kernel_environment():
        nb, client = _client(path, cwd, timeout)
        client.execute()
    return nb


def execute_all(runs: list[tuple[Path, str]], concurrency: int, timeout: int = 600) -> dict[Path, object]:
    """:func:`execute` of each (notebook, cwd), up to ``concurrency`` kernels at once (each notebook has its
    own kernel process and folder: the runs are independent). Value: the executed notebook, or the
    exception its run raised."""
    import asyncio

    async def one(path: Path, cwd: str, gate: asyncio.Semaphore):
        async with gate:
            nb, client = _client(path, cwd, timeout)
            try:
                await client.async_execute()
            except Exception as exc:  # handed to the notebook's own test, which raises it
                return path, exc
            return path, nb

    async def every():
        gate = asyncio.Semaphore(max(1, concurrency))
        return await asyncio.gather(*(one(p, cwd, gate) for p, cwd in runs))

    with _kernel_environment():
        return dict(asyncio.run(every()))


def _where(path: Path, index: int, cell) -> str:
    first = next((line for line in _text(cell.source).splitlines() if line.strip()), "")
    return f"{path.parent.name}/{path.name}, cell {index} (code starting {first[:60]!r})"


def stale_outputs(path: Path, stored, fresh) -> list[str]:
    """Messages naming each cell whose stored outputs differ from the fresh run's."""
    problems = []
    for index, (old, new) in enumerate(zip(stored.cells, fresh.cells)):
        if old.cell_type != "code":
            continue
        where = _where(path, index, old)
        if old.get("execution_count") is None:
            problems.append(f"{where}: stored without being executed")
        a, b = cell_outputs(old), cell_outputs(new)
        if [o["kind"] for o in a] != [o["kind"] for o in b]:
            problems.append(f"{where}: stored outputs {[o['kind'] for o in a]}, a fresh run gives "
                            f"{[o['kind'] for o in b]}")
            continue
        for k, (o, n) in enumerate(zip(a, b)):
            if _normalize(o["text"]) != _normalize(n["text"]):
                problems.append(f"{where}, output {k} ({o['kind']}) is stale:\n--- stored\n{o['text'].rstrip()}"
                                f"\n--- fresh run\n{n['text'].rstrip()}")
            if o["image"] and not n["image"]:
                problems.append(f"{where}, output {k}: an image is stored, a fresh run shows none")
    return problems


@pytest.fixture(scope="module")
def executed(request, tmp_path_factory):
    """Every selected notebook of test_notebook_runs_and_outputs_are_fresh, executed as :func:`execute`
    runs it (own kernel, own empty folder), as many at once as this process has CPUs: the notebooks are
    independent, and one at a time they left a core idle."""
    pytest.importorskip("nbformat", reason="notebooks extra not installed")
    pytest.importorskip("nbclient", reason="notebooks extra not installed")
    selected = [item.callspec.params["path"] for item in request.session.items
                if item.originalname == "test_notebook_runs_and_outputs_are_fresh" and hasattr(item, "callspec")]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return execute_all([(p, str(tmp_path_factory.mktemp(p.stem))) for p in dict.fromkeys(selected)], cpus)


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_outputs_are_fresh(path, executed):
    nbformat = pytest.importorskip("nbformat", reason="notebooks extra not installed")
    pytest.importorskip("nbclient", reason="notebooks extra not installed")
    stored = nbformat.read(path, as_version=4)
    fresh = executed[path]
    if isinstance(fresh, BaseException):
        raise fresh  # the run raised (a cell error, a timeout, a dead kernel), as execute() would have
    errors = [f"{_where(path, i, c)}: {o['text']}" for i, c in enumerate(fresh.cells) if c.cell_type == "code"
              for o in cell_outputs(c) if o["kind"] == "error"]
    assert not errors, "a cell raised:\n" + "\n".join(errors)
    problems = stale_outputs(path, stored, fresh)
    assert not problems, (
        "stored outputs are stale (store the notebook again: "
        f".venv/bin/python -m tests.test_notebooks --write {path.stem}):\n" + "\n".join(problems))



def test_stale_outputs_are_named():
    """The comparison itself (no kernel): a changed text, a lost image, a timing, an unexecuted cell."""
    nbformat = pytest.importorskip("nbformat", reason="notebooks extra not installed")
    import copy

    path = REPO / "notebooks" / "zhu2025.ipynb"
    stored = nbformat.read(path, as_version=4)
    assert not stale_outputs(path, stored, copy.deepcopy(stored))
    codes = [i for i, c in enumerate(stored.cells) if c.cell_type == "code"]
    assert all(stored.cells[i].get("execution_count") is not None for i in codes), "stored unexecuted"
    with_image = next(i for i in codes if any(o["image"] for o in cell_outputs(stored.cells[i])))
    with_stream = next(i for i in codes if any(o["kind"] == "stream stdout" for o in cell_outputs(stored.cells[i])))

    fresh = copy.deepcopy(stored)
    out = next(o for o in fresh.cells[with_stream].outputs if o.output_type == "stream")
    out.text = out.text + "one more line\n"
    (msg,) = stale_outputs(path, stored, fresh)
    assert f"notebooks/zhu2025.ipynb, cell {with_stream}" in msg and "one more line" in msg

    fresh = copy.deepcopy(stored)
    for o in fresh.cells[with_image].outputs:
        o.get("data", {}).pop("image/png", None)
    (msg,) = stale_outputs(path, stored, fresh)
    assert f"cell {with_image}" in msg and "image" in msg

    a, b = copy.deepcopy(stored), copy.deepcopy(stored)
    a.cells[with_stream].outputs = [nbformat.v4.new_output("stream", name="stdout", text='"seconds": 0.0484\n')]
    b.cells[with_stream].outputs = [nbformat.v4.new_output("stream", name="stdout", text='"seconds": 1.5\n')]
    assert not stale_outputs(path, a, b)
    a.cells[with_stream].execution_count = None
    assert "stored without being executed" in stale_outputs(path, a, b)[0]

#: a printed float residual (an error, a difference) with digits, in scientific notation, below 1e-6
#: (a round bound such as ``1e-12`` is not one): rounding noise,
#: which differs between CPUs and BLAS builds; a notebook prints what it means instead ("< 1e-12: True")
_FLOAT_NOISE = re.compile(r"(?<![\w.])[-+]?\d\.\d+e-(?:0*[7-9]|0*[1-9]\d+)\b|\b0\.0+e\+?0+\b")


def float_noise(path: Path, nb) -> list[str]:
    """Messages naming each stored output that prints float rounding noise."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for o in cell_outputs(cell):
            if o["kind"] != "error":
                hits = _FLOAT_NOISE.findall(_normalize(o["text"]))
                if hits:
                    found.append(f"{_where(path, index, cell)} prints float noise {hits[:3]}: print a bound instead")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_float_noise_in_stored_outputs(path):
    """A residual's digits are not part of what a notebook means: compared raw, they made the staleness
    check fail on another CPU (1.4e-16 stored, 3.3e-16 computed)."""
    nbformat = pytest.importorskip("nbformat", reason="notebooks extra not installed")
    assert not float_noise(path, nbformat.read(path, as_version=4))


def test_float_noise_is_found():
    nbformat = pytest.importorskip("nbformat", reason="notebooks extra not installed")
    nb = nbformat.v4.new_notebook()
    for text in ("err = 1.4e-16\n", "max 0.0e+00\n", "5.551115123125783e-17\n", "fd 9.18e-10\n"):
        cell = nbformat.v4.new_code_cell("print(err)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        nb.cells = [cell]
        assert float_noise(Path("x.ipynb"), nb), text
    cell = nbformat.v4.new_code_cell("print(ok)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="error below 1e-12: True; tol 1e-10 3.5e+02\n")]
    nb.cells = [cell]
    assert not float_noise(Path("x.ipynb"), nb)


def write(stems: list[str]) -> None:
    """Execute the notebooks and store them with their outputs (``--write``)."""
    import nbformat

    for path in NOTEBOOKS:
        if stems and path.stem not in stems:
            continue
        with tempfile.TemporaryDirectory() as cwd:
            nb = execute(path, cwd)
        bad = [o for c in nb.cells if c.cell_type == "code" for o in cell_outputs(c) if o["kind"] == "error"]
        if bad:
            raise SystemExit(f"{path.name}: a cell raised: {bad[0]['text']}")
        nbformat.write(nb, path)
        print(f"stored {path.relative_to(REPO)} with its outputs")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--write":
        raise SystemExit("usage: python -m tests.test_notebooks --write [STEM ...]")
    write(args[1:])
