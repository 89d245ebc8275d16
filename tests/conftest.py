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

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, print_blob=True,
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


@pytest.fixture(scope="session")
def verify_json_run():
    """One in-process ``isomat verify --json`` of the whole ledger, shared by every test that needs the
    whole ledger's records (tests/test_cli.py, tests/test_docs.py and the per-paper claim tests).

    The ledger was run up to nine times per session (a full ``verify --json``, one ``proofs.run`` per
    paper, a ``verify --paper reneau2025 --json``); the records are the same computation each time
    (checks are seeded and independent; ``proofs.run`` promises the records of worker processes equal
    the in-process ones, which tests/test_engine.py checks). ``proofs.run`` is only observed here (the
    call goes through unchanged) to keep its report's records as Python objects beside the JSON text.

    Attributes: ``code``, ``text`` (stdout), ``data`` (the parsed JSON), ``err`` (stderr) and
    ``records`` (the report's records, as ``proofs.run`` returned them). Use :func:`paper_records`
    for a copy of one paper's records.
    """
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


def pytest_terminal_summary(terminalreporter):
    """The mutation suite's score (tests/test_mutations.py), when it ran."""
    module = sys.modules.get("tests.test_mutations")
    score = getattr(module, "SCORE", None) if module is not None else None
    if score:
        killed = sum(score.values())
        terminalreporter.write_line(f"mutation score: {killed}/{len(score)} mutants killed"
                                    + ("" if killed == len(score) else
                                       f"; survivors: {', '.join(k for k, v in score.items() if not v)}"))
