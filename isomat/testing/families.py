"""One small instance of every construction family, buildable in any float field.

Used to check a field against another -- the GPU field against NumPy in the test suite
(``tests/test_gpu_families.py``) and on a real device (``benchmarks/device_checklist.py``) -- and
available to users checking their own CuPy install the same way::

    from isomat.gpu import to_gpu
    from isomat.testing.families import family_builds

    for name, build in family_builds().items():
        host, device = build(lambda x: x, "numpy"), build(to_gpu, "cupy")
        # compare host with device.get() ...

Each entry is ``build(dev, backend)``: ``dev`` moves a host input array to the field (the
identity for NumPy, :func:`isomat.gpu.to_gpu` for CuPy) and ``backend`` names the field for the
constructions that take no array. The inputs are drawn once from a fixed seed, so two builds of
a family in two fields see the same values.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import networkx as nx

#: build(dev, backend) -> the family's matrix in that field
FamilyBuild = Callable[[Callable[[Any], Any], str], Any]


def family_graph() -> nx.Graph:
    """The graph of the graph families: G(7, 0.5) with seed 3 plus a path (no isolated node)."""
    import networkx as nx

    G = nx.gnp_random_graph(7, 0.5, seed=3)
    G.add_edges_from((i, i + 1) for i in range(6))
    return G


def family_builds(seed: int = 11) -> dict[str, FamilyBuild]:
    """``{family name: build(dev, backend)}`` for every construction family (see the module docstring)."""
    R = np.random.default_rng(seed)
    K_CONV = R.standard_normal((3, 2, 3, 3))
    A23, B32, U34, V44 = R.standard_normal((2, 3)), R.standard_normal((3, 2)), R.standard_normal((4, 3)), R.standard_normal((4, 4)) / 3
    W2, W3 = R.standard_normal((2, 3)), R.standard_normal((3, 2))
    A24, B23 = R.standard_normal((2, 4)), R.standard_normal((2, 3))
    SPM_P = R.uniform(-np.pi, np.pi, (3, 4))
    G = family_graph()

    def m(name: str) -> Any:
        return importlib.import_module(f"isomat.algebra.{name}")

    return {
        "projection": lambda dev, b: m("projection").projection(7, 4, backend=b),
        "kron": lambda dev, b: m("kron").kron(dev(A23), dev(B32)),
        "conv": lambda dev, b: m("conv").conv_matrix((2, 6, 5), dev(K_CONV), padding=1),
        "conv-rows": lambda dev, b: m("conv").conv_matrix((2, 6, 5), dev(K_CONV), padding=1, rows=(7, 41)),
        "avgpool": lambda dev, b: m("pool").avgpool_matrix((2, 6, 6), (2, 2), backend=b),
        "rnn": lambda dev, b: m("rnn").rnn_matrix(dev(U34), dev(V44), 3),
        "linear-attention": lambda dev, b: m("attention").linear_attention_matrix(2, dev(A23.T), dev(A23.T), dev(B32)),
        "zhu-w-sa": lambda dev, b: m("attention").zhu_w_sa(dev(V44), dev(V44), dev(V44)),
        "stp": lambda dev, b: m("stp").stp(dev(A24), dev(B23)),
        "dk_stp": lambda dev, b: m("stp").dk_stp(dev(A24), dev(B23)),
        "bridge": lambda dev, b: m("stp").bridge(6, 4, backend=b),
        "swap": lambda dev, b: m("stp").swap_matrix(3, 2, backend=b),
        "diamond": lambda dev, b: m("hyper").diamond_matrix(dev(V44[:3, :3]), [2, 3, 6]),
        "logical_matrix": lambda dev, b: m("logic").logical_matrix([1, 2, 2, 1], 2, backend=b),
        "matrix_layer": lambda dev, b: m("matrix_layer").matrix_layer(dev(U34), dev(V44), dev(np.ones((3, 4)))).weight,
        "adjacency": lambda dev, b: m("graph").adjacency(G, backend=b),
        "laplacian": lambda dev, b: m("graph").laplacian(G, backend=b),
        "ndlinear": lambda dev, b: m("ndlinear").ndlinear_matrix([dev(W2), dev(W3)])[0],
        "spm": lambda dev, b: m("spm").layer_matrix(
            m("spm").spm_layer(8, m("spm").butterfly_pairings(8, 3), dev(SPM_P), backend=b)),
    }


__all__ = ["FamilyBuild", "family_builds", "family_graph"]
