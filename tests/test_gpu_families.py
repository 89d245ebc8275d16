"""Every construction family in the GPU field: the same operator from NumPy and from CuPy inputs.

Runs for the ``cupy-standin`` field (the GPU glue on the CPU, tests/cupy_standin) and for a real
device when there is one. The families are :func:`isomat.testing.families.family_builds`.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from isomat.gpu import is_cupy_array, to_gpu
from isomat.testing.families import family_builds, family_graph

from .conftest import FLOAT_FIELDS, _field_fixture, to_host

G = family_graph()
LOG: dict[str, dict] = {}

# name -> build(dev, backend); dev moves inputs to the field, backend names it (the table is the
# testing kit's, shared with benchmarks/device_checklist.py)
CASES = family_builds()


# inputs that exist only on the host and must be copied: the graph's edge list (i, j, weight per
# stored entry), the SPM pairings (L stages of n // 2 pairs of int64)
HOST_INPUT_BYTES = {
    "adjacency": 24 * 2 * G.number_of_edges() + 8 * G.number_of_nodes(),
    "laplacian": 24 * 2 * G.number_of_edges() + 16 * G.number_of_nodes(),
    "spm": 3 * 4 * 2 * 8,
}


@pytest.fixture(params=FLOAT_FIELDS[1:])
def gpu_field(request):
    yield from _field_fixture(request)


@pytest.mark.parametrize("case", sorted(CASES))
def test_family_in_gpu_field(gpu_field, case):
    build = CASES[case]
    ref = to_host(build(lambda x: x, "numpy"))
    dev_inputs = {}

    def dev(x):
        d = to_gpu(x)
        dev_inputs[id(x)] = d
        return d

    build(dev, "cupy")  # warm-up: module imports, cached tables
    cp = sys.modules["cupy"]
    standin = getattr(cp, "STANDIN", False)
    if standin:
        cp.reset_transfers()
    out = build(lambda x: dev_inputs[id(x)] if id(x) in dev_inputs else to_gpu(x), "cupy")  # inputs on the device
    if standin:
        moved = dict(cp.TRANSFERS)
        LOG[case] = moved
    assert is_cupy_array(out), f"{case}: a {type(out).__module__}.{type(out).__name__} came back, not a CuPy result"
    np.testing.assert_allclose(to_host(out), ref, rtol=1e-12, atol=1e-12)
    if standin:  # built on the device: no pattern-sized copies either way
        nnz = int(getattr(out, "nnz", np.count_nonzero(ref)))
        allowed = max(4 * nnz, 256) + HOST_INPUT_BYTES.get(case, 0)
        assert moved["h2d_bytes"] < allowed, (case, moved, nnz)
        assert moved["d2h_bytes"] < max(4 * nnz, 256), (case, moved, nnz)
        # CuPy wraps out-of-bounds integer-array indices where NumPy raises: no build may produce one
        assert cp.INDEX_WRAPS["count"] == 0, f"{case}: an out-of-bounds index was wrapped on the device"
