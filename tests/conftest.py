"""Shared fixtures: the fields an operator renders in, and GPU/torch availability.

Float fields: ``numpy``; ``cupy-standin`` -- the GPU field's code run on the CPU through the
test-only CuPy stand-in in ``tests/cupy_standin`` (installed in ``sys.modules`` for the test and
removed after); ``cupy`` -- a real device, skipped with the reason when there is none. Tests get
the field *name* (``"cupy"`` for both GPU parameters), so one test body serves all of them.
"""

from __future__ import annotations

import copy
import sys
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, settings

from isomat.gpu import gpu_status

from . import cupy_standin

# 30 derandomized examples per property (tests that need more or fewer say so): 143 properties share CI's
# 15-minute budget with the ledger, the mutants and the docs build
settings.register_profile(
    "ci", max_examples=30, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "dev", max_examples=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("ci")

GPU_OK, GPU_REASON = gpu_status()

requires_gpu = pytest.mark.skipif(not GPU_OK, reason=f"GPU field skipped: {GPU_REASON}")

FLOAT_FIELDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("cupy-standin", id="cupy-standin", marks=[pytest.mark.standin]),
    pytest.param("cupy", id="cupy", marks=[pytest.mark.gpu, requires_gpu]),
]
ALL_FIELDS = [pytest.param("sympy", id="sympy"), *FLOAT_FIELDS]

_STANDIN_MODULES = None


def standin_modules() -> dict:
    """The stand-in ``cupy``/``cupyx`` modules, imported once per session (not installed)."""
    global _STANDIN_MODULES
    if _STANDIN_MODULES is None:
        _STANDIN_MODULES = cupy_standin.load()
    return _STANDIN_MODULES


def install_standin(monkeypatch: pytest.MonkeyPatch, modules: dict | None = None):
    """Put the stand-in in ``sys.modules`` (undone by ``monkeypatch``) and re-probe the device.

    Returns the stand-in ``cupy`` module.
    """
    mods = modules or standin_modules()
    for name in cupy_standin.NAMES:
        monkeypatch.setitem(sys.modules, name, mods[name])
    ok, reason = gpu_status(refresh=True)
    assert ok, f"the cupy stand-in should pass the device probe: {reason}"
    return mods["cupy"]


@pytest.fixture
def cupy_standin_module(monkeypatch):
    """The stand-in ``cupy`` module, installed for this test."""
    yield install_standin(monkeypatch)
    monkeypatch.undo()
    gpu_status(refresh=True)



#: the GPU tests' one corrupted product (issue 27, issue 41 item 3): DiagonalBlocks' device product
#: off by 1%, the kind of wrong kernel value a mismatch check must catch. Run in process by the
#: fixture below, and in a subprocess by the ``sitecustomize.py`` it writes.
CORRUPT_PRODUCT = """\
import isomat.algebra.diagonal as _dg

_right = _dg.DiagonalBlocks._device_product


def _off(self, v, out, *, transpose):
    y = _right(self, v, out, transpose=transpose)
    y *= 1.01
    return y
"""


@pytest.fixture
def corrupted_product(monkeypatch, tmp_path):
    """DiagonalBlocks' device product off by 1% in this process; returns a folder whose
    ``sitecustomize.py`` does the same in any Python process with the folder on its path."""
    import isomat.algebra.diagonal as dg

    space: dict = {}
    exec(CORRUPT_PRODUCT, space)  # noqa: S102 -- the constant above, the very text the subprocess runs
    monkeypatch.setattr(dg.DiagonalBlocks, "_device_product", space["_off"])
    folder = tmp_path / "corrupted_product"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(CORRUPT_PRODUCT + "\n\n_dg.DiagonalBlocks._device_product = _off\n",
                                             encoding="utf-8")
    return folder

def _field_value(request):
    name = request.param
    if name != "cupy-standin":
        return name, None
    mp = pytest.MonkeyPatch()
    install_standin(mp)
    return "cupy", mp


def _field_fixture(request):
    name, mp = _field_value(request)
    try:
        yield name
    finally:
        if mp is not None:
            mp.undo()
            gpu_status(refresh=True)


def to_host(x):
    """Dense NumPy copy of a SciPy/CuPy sparse matrix, CuPy array or SymPy matrix."""
    import numpy as np
    import sympy

    if isinstance(x, sympy.MatrixBase):
        return np.array(x.tolist(), dtype=object)
    if hasattr(x, "toarray"):
        x = x.toarray()
    if hasattr(x, "get"):
        x = x.get()
    return np.asarray(x)


@pytest.fixture(params=ALL_FIELDS)
def field(request):
    yield from _field_fixture(request)


@pytest.fixture(params=FLOAT_FIELDS)
def float_field(request):
    yield from _field_fixture(request)


def _verify_json_run() -> SimpleNamespace:
    """One in-process ``isomat verify --json`` of the whole ledger (see :func:`verify_json_run`)."""
    import io
    import json

    from isomat import proofs
    from isomat.cli import main

    reports = []
    real_run = proofs.run

    def observed_run(*args, **kwargs):
        report = real_run(*args, **kwargs)
        reports.append(report)
        return report

    mp = pytest.MonkeyPatch()
    mp.setattr(proofs, "run", observed_run)
    try:
        out, err = io.StringIO(), io.StringIO()
        code = main(["verify", "--json"], out=out, err=err)
    finally:
        mp.undo()
    assert len(reports) == 1, f"isomat verify --json called proofs.run {len(reports)} times"
    return SimpleNamespace(code=code, text=out.getvalue(), data=json.loads(out.getvalue()), err=err.getvalue(),
                           records=reports[0]["claims"])


@pytest.fixture(scope="session")
def verify_json_run(request, tmp_path_factory):
    """One in-process ``isomat verify --json`` of the whole ledger, shared by every test that needs the
    whole ledger's records (tests/test_cli.py, tests/test_docs.py and the per-paper claim tests).

    The ledger was run up to nine times per session (a full ``verify --json``, one ``proofs.run`` per
    paper, a ``verify --paper reneau2025 --json``); the records are the same computation each time
    (checks are seeded and independent; ``proofs.run`` promises the records of worker processes equal
    the in-process ones, which tests/test_engine.py checks). ``proofs.run`` is only observed here (the
    call goes through unchanged) to keep its report's records as Python objects beside the JSON text.

    Under pytest-xdist (the README's ``-n``) the run is made once per session, not once per worker: the
    first worker that needs it computes it under a lock in the session's shared temporary folder and
    pickles it there; the others wait on the lock and read it (the same computation each time, as above).

    Attributes: ``code``, ``text`` (stdout), ``data`` (the parsed JSON), ``err`` (stderr) and
    ``records`` (the report's records, as ``proofs.run`` returned them). Use :func:`paper_records`
    for a copy of one paper's records.
    """
    if not hasattr(request.config, "workerinput"):  # no xdist worker: this process is the whole session
        return _verify_json_run()
    import fcntl
    import pickle

    shared = tmp_path_factory.getbasetemp().parent  # one folder per session, shared by its workers
    target = shared / "verify_json_run.pickle"
    with open(shared / "verify_json_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held while the first worker computes; released at the block's end
        if target.is_file():
            return pickle.loads(target.read_bytes())
        run = _verify_json_run()
        partial = target.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(run))
        partial.replace(target)
        return run


def paper_records(run, paper: str, *, same_proof_as: bool = True) -> list[dict]:
    """A deep copy of ``paper``'s records from :func:`verify_json_run`, as ``proofs.run([paper])`` gives
    them: the paper's claims, in its order, with ``same_proof_as`` computed again (against the whole
    ledger's obligations, as ``proofs.run`` does whichever claims ran: the same mark as in the whole run).
    ``same_proof_as=False``: without that mark, as ``run_claim`` gives each record."""
    from isomat.proofs import engine

    records = copy.deepcopy([r for r in run.records if r["paper"] == paper])
    for r in records:
        r.pop("same_proof_as", None)
    if same_proof_as:
        engine.same_proofs(records)
    return records


#: the files that take longest (measured with --durations: the mutation suite, the documentation site, the
#: notebooks, CI's mutation sample, the wheel without extras, the GPU checklist through the stand-in), collected
#: first: under pytest-xdist (README's ``-n auto --dist loadfile --no-loadscope-reorder``) a worker takes a file at
#: a time in collection order, so the long ones start at once and the short ones fill both workers' ends (with the
#: long ones last, one worker ran the site build alone for two minutes while the other had finished). xdist 3.x
#: reorders the files by their number of tests unless told not to: the site build (4 tests) ran last
_LONGEST_FIRST = ("test_mutations.py", "test_docs_build.py", "test_notebooks.py", "test_mutation_tool.py",
                  "test_packaging.py", "test_gpu_checklist.py", "test_bench_networks.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


#: the mutation suite's score as xdist workers reported it (the controller runs no test itself)
_WORKER_SCORES: dict[str, bool] = {}


def pytest_sessionfinish(session):
    """An xdist worker hands the mutation suite's score to the controller (``workeroutput``)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    score = getattr(sys.modules.get("tests.test_mutations"), "SCORE", None)
    if workeroutput is not None and score:
        workeroutput["mutation_score"] = dict(score)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """xdist's controller: collect what a finished worker reported."""
    _WORKER_SCORES.update(getattr(node, "workeroutput", {}).get("mutation_score", {}))


def pytest_terminal_summary(terminalreporter):
    """The mutation suite's score (tests/test_mutations.py), when it ran."""
    module = sys.modules.get("tests.test_mutations")
    score = (getattr(module, "SCORE", None) if module is not None else None) or _WORKER_SCORES
    if score:
        killed = sum(score.values())
        terminalreporter.write_line(f"mutation score: {killed}/{len(score)} mutants killed"
                                    + ("" if killed == len(score) else
                                       f"; survivors: {', '.join(k for k, v in score.items() if not v)}"))
