"""Issue 27 (deliverable 5): claims whose checks multiply float matrices run them in the float field of the run.

Under the CuPy stand-in with the cupy float backend, each claim converted to build its float products in
``float_backend()`` reaches the (stand-in) device and keeps the verdict it has with NumPy. Only those claims run.
"""

from __future__ import annotations

import pytest

from isomat.gpu import device_uses

pytestmark = pytest.mark.standin

#: claims whose float matrix products moved into the float field of the run (issue 27, deliverable 5)
CONVERTED = [
    "cheng2025:eq36",
    "cheng2025:eq43",
    "cheng2025:eq47",
    "cheng2025:sec6/i",
    "cheng2025:beyond/i-standard",
    "cheng2025:sec6/ii",
    "cheng2025:beyond/ii-standard",
    "cheng2025:sec6/vs-standard",
    "zhu2025:sec4.4/third-order-tensor",
]


@pytest.mark.parametrize("cid", CONVERTED)
def test_converted_claim_touches_the_device_and_keeps_its_verdict(cupy_standin_module, cid):
    from isomat import proofs
    from isomat.proofs.engine import REGISTRY, run_claim, using_float_backend

    proofs.load([cid.split(":", 1)[0]])
    host = run_claim(REGISTRY[cid])
    uses = device_uses()
    with using_float_backend("cupy"):
        dev = run_claim(REGISTRY[cid])
    assert device_uses() > uses, f"{cid} did not reach the device under the cupy backend"
    assert dev["verdict"] == host["verdict"], dev.get("error")
    assert dev["strength"] == host["strength"]
    assert host["verdict"] == proofs.expected_verdicts(cid.split(":", 1)[0])[cid]


def test_a_claim_resting_on_a_cached_device_result_is_counted_apart(cupy_standin_module):
    """zhu2025:sec4.2.1/bijective rests on the conv builder check that sec4.2.1/equals-convolution computes
    on the device first (one cached building block): the runner lists the first as device work and the
    second as resting on a cached device result -- and with the cache empty, the second does the work."""
    import sys

    from isomat import proofs
    from isomat.proofs.engine import REGISTRY

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    from tests.mutants import clear_caches

    proofs.load(["zhu2025"])
    first, second = REGISTRY["zhu2025:sec4.2.1/equals-convolution"], REGISTRY["zhu2025:sec4.2.1/bijective"]
    clear_caches()
    report = proofs.run(claims=[first, second], backend="cupy")
    assert report["device_claims"] == [first.id] and report["device_reused_claims"] == [second.id]
    clear_caches()
    report = proofs.run(claims=[second], backend="cupy")
    assert report["device_claims"] == [second.id] and report["device_reused_claims"] == []
    assert all(r["verdict"] == proofs.expected_verdicts("zhu2025")[r["id"]] for r in report["claims"])
