"""``isomat verify --backend cupy``: the float checks see the cupy field (through the stand-in)."""

from __future__ import annotations

import io
import json
import sys

import numpy as np

from isomat import proofs
from isomat.algebra import projection
from isomat.algebra._backend import to_numpy
from isomat.cli import main
from isomat.gpu import gpu_status, is_cupy_sparse
from isomat.proofs.engine import Claim, decide, float_backend, numeric_close

SEEN: dict[str, object] = {}


def _row_stochastic_on_float_backend():
    """A float check written the way ledger checks use the backend: built in float_backend()."""
    P = projection(12, 8, backend=float_backend())
    SEEN["field"] = float_backend()
    SEEN["device"] = is_cupy_sparse(P)
    sums = to_numpy(P.sum(axis=1)).ravel()
    return decide(numeric_close(sums, np.ones(8), describe="row sums of projection(12, 8)"))


CLAIM = Claim("cheng2025:eq22/backend-probe", "rows sum to one", "row sums of Pi^12_8 in the float field",
              ("numeric",), _row_stochastic_on_float_backend)


def _verify(monkeypatch, *argv):
    monkeypatch.setattr(proofs, "load", lambda papers=None: [CLAIM])
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", "--paper", "cheng2025", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_backend_cupy_runs_float_checks_in_the_gpu_field(cupy_standin_module, monkeypatch):
    SEEN.clear()
    code, out, err = _verify(monkeypatch, "--backend", "cupy", "--json")
    report = json.loads(out)
    assert report["backend"] == "cupy"
    (rec,) = [r for r in report["claims"] if r["id"] == CLAIM.id]
    assert rec["verdict"] == "holds", rec
    assert SEEN == {"field": "cupy", "device": True}


def test_backend_numpy_is_the_default(monkeypatch):
    SEEN.clear()
    code, out, err = _verify(monkeypatch, "--json")
    assert json.loads(out)["backend"] == "numpy"
    assert SEEN == {"field": "numpy", "device": False}


def test_backend_cupy_without_device_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    try:
        gpu_status(refresh=True)
        code, out, err = _verify(monkeypatch, "--backend", "cupy")
        assert code == 2
        assert "--backend cupy needs a usable GPU: no cupy" in err
    finally:
        monkeypatch.undo()
        gpu_status(refresh=True)


def test_ledger_float_check_runs_in_the_gpu_field(cupy_standin_module):
    """A real ledger claim whose float part uses float_backend(): same verdict on the GPU field."""
    import isomat.proofs.cheng2025  # noqa: F401 - registers the claims
    from isomat.proofs.engine import REGISTRY, run_claim, using_float_backend

    cid = "cheng2025:beyond/row-stochastic"
    if cid not in REGISTRY:
        import pytest

        pytest.skip(f"{cid} is not in the ledger")
    cp = cupy_standin_module
    host = run_claim(REGISTRY[cid])
    cp.reset_transfers()
    with using_float_backend("cupy"):
        dev = run_claim(REGISTRY[cid])
    assert dev["verdict"] == host["verdict"] == "holds", dev.get("error")
    assert cp.TRANSFERS["d2h_bytes"] > 0  # the row sums came back from the (stand-in) device
