"""Every construction family in the GPU field: the same operator from NumPy and from CuPy inputs.

Runs for the ``cupy-standin`` field (the GPU glue on the CPU, tests/cupy_standin) and for a real
device when there is one. A family module that is not present is skipped with that reason.
"""

from __future__ import annotations

import importlib
import sys

import networkx as nx
import numpy as np
import pytest

from isomat.gpu import is_cupy_array, to_gpu

from .conftest import FLOAT_FIELDS, _field_fixture, to_host

R = np.random.default_rng(11)
K_CONV = R.standard_normal((3, 2, 3, 3))
A23, B32, U34, V44 = R.standard_normal((2, 3)), R.standard_normal((3, 2)), R.standard_normal((4, 3)), R.standard_normal((4, 4)) / 3
W2, W3 = R.standard_normal((2, 3)), R.standard_normal((3, 2))
A24, B23 = R.standard_normal((2, 4)), R.standard_normal((2, 3))
SPM_P = R.uniform(-np.pi, np.pi, (3, 4))
G = nx.gnp_random_graph(7, 0.5, seed=3)
G.add_edges_from((i, i + 1) for i in range(6))  # connected: no isolated nodes


LOG: dict[str, dict] = {}


def _m(module):
    try:
        return importlib.import_module(f"isomat.algebra.{module}")
    except ModuleNotFoundError:
        pytest.skip(f"isomat.algebra.{module} is not present")


# name -> (module, build(dev, backend)); dev moves inputs to the field, backend names it
CASES = {
    "projection": ("projection", lambda dev, b: _m("projection").projection(7, 4, backend=b)),
    "kron": ("kron", lambda dev, b: _m("kron").kron(dev(A23), dev(B32))),
    "conv": ("conv", lambda dev, b: _m("conv").conv_matrix((2, 6, 5), dev(K_CONV), padding=1)),
    "conv-rows": ("conv", lambda dev, b: _m("conv").conv_matrix((2, 6, 5), dev(K_CONV), padding=1, rows=(7, 41))),
    "avgpool": ("pool", lambda dev, b: _m("pool").avgpool_matrix((2, 6, 6), (2, 2), backend=b)),
    "rnn": ("rnn", lambda dev, b: _m("rnn").rnn_matrix(dev(U34), dev(V44), 3)),
    "linear-attention": ("attention", lambda dev, b: _m("attention").linear_attention_matrix(2, dev(A23.T), dev(A23.T), dev(B32))),
    "zhu-w-sa": ("attention", lambda dev, b: _m("attention").zhu_w_sa(dev(V44), dev(V44), dev(V44))),
    "stp": ("stp", lambda dev, b: _m("stp").stp(dev(A24), dev(B23))),
    "dk_stp": ("stp", lambda dev, b: _m("stp").dk_stp(dev(A24), dev(B23))),
    "bridge": ("stp", lambda dev, b: _m("stp").bridge(6, 4, backend=b)),
    "swap": ("stp", lambda dev, b: _m("stp").swap_matrix(3, 2, backend=b)),
    "diamond": ("hyper", lambda dev, b: _m("hyper").diamond_matrix(dev(V44[:3, :3]), [2, 3, 6])),
    "logical_matrix": ("logic", lambda dev, b: _m("logic").logical_matrix([1, 2, 2, 1], 2, backend=b)),
    "matrix_layer": ("matrix_layer", lambda dev, b: _m("matrix_layer").matrix_layer(dev(U34), dev(V44), dev(np.ones((3, 4)))).weight),
    "adjacency": ("graph", lambda dev, b: _m("graph").adjacency(G, backend=b)),
    "laplacian": ("graph", lambda dev, b: _m("graph").laplacian(G, backend=b)),
    "ndlinear": ("ndlinear", lambda dev, b: _m("ndlinear").ndlinear_matrix([dev(W2), dev(W3)])[0]),
    "spm": ("spm", lambda dev, b: _m("spm").layer_matrix(
        _m("spm").spm_layer(8, _m("spm").butterfly_pairings(8, 3), dev(SPM_P), backend=b))),
}


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
    _, build = CASES[case]
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
