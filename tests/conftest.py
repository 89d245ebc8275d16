"""Shared fixtures: the fields an operator renders in, and GPU/torch availability.

Float fields: ``numpy``; ``cupy-standin`` -- the GPU field's code run on the CPU through the
test-only CuPy stand-in in ``tests/cupy_standin`` (installed in ``sys.modules`` for the test and
removed after); ``cupy`` -- a real device, skipped with the reason when there is none. Tests get
the field *name* (``"cupy"`` for both GPU parameters), so one test body serves all of them.
"""

from __future__ import annotations

import sys

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


def pytest_terminal_summary(terminalreporter):
    """The mutation suite's score (tests/test_mutations.py), when it ran."""
    module = sys.modules.get("tests.test_mutations")
    score = getattr(module, "SCORE", None) if module is not None else None
    if score:
        killed = sum(score.values())
        terminalreporter.write_line(f"mutation score: {killed}/{len(score)} mutants killed"
                                    + ("" if killed == len(score) else
                                       f"; survivors: {', '.join(k for k, v in score.items() if not v)}"))
