"""Valid positional arguments for every public callable with defaulted keyword arguments (issue 17).

:data:`MORE_CALLS` maps a callable's dotted name to a builder returning its valid positional
arguments -- a tuple, or a :class:`Call` where a required keyword-only argument is needed too
(``apply_row_blocks``' ``client``). ``tests/test_fuzz.py`` merges these into ``VALID_CALLS`` and
fuzzes every defaulted keyword argument of each with bad values; a test there asserts that the
covered set equals the set of callables in the surface that have defaulted keyword arguments.
Arrays are float64 C-contiguous (the layout test re-runs them Fortran-ordered, strided and as ints).
"""

from __future__ import annotations

import os
from typing import Any, Callable, NamedTuple

import numpy as np

import isomat.algebra as A


class Call(NamedTuple):
    """Positional arguments and required keyword-only arguments of one valid call."""

    args: tuple
    kwargs: dict


#: the directory export builders write into (the fuzz test points it at its tmp_path)
TMP = os.environ.get("PYTEST_FUZZ_TMP", "/tmp")


def _tmp(name: str) -> str:
    return os.path.join(TMP, name)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _graph():
    import networkx as nx

    return nx.path_graph(4)


def _hv(dims, seed=0):
    rng = _rng(seed)
    return [rng.standard_normal(n) for n in dims]


def _theta(a, b, h1, h2, seed=0):
    rng = _rng(seed)
    return tuple(rng.standard_normal(s) for s in ((a, h1), (b, h2), (h1, h1), (h2, h2), (h1, h2)))


def _spm(n=6, L=2, seed=0):
    return A.random_spm(n, L, seed=seed)


class _FakeFuture:
    def __init__(self, value):
        self.value = value


class FakeClient:
    """The part of dask.distributed.Client that ``apply_row_blocks`` uses, run in this process
    (a real cluster per fuzz example would take seconds; the argument checks are the same)."""

    def scheduler_info(self):
        return {"workers": {"inproc://a": {}, "inproc://b": {}}}

    def scatter(self, x, **_):
        return x

    def submit(self, fn, *args, **_):
        return _FakeFuture(fn(*args))

    def gather(self, futures):
        return [f.value for f in futures]


def _row_block_call() -> Call:
    from isomat.distributed import construction_rows

    build = construction_rows(A.conv_matrix, (1, 6, 6), np.ones((1, 1, 3, 3)), padding=1)
    return Call((build, 36, np.ones(36)), {"client": FakeClient()})


def _jax_file() -> tuple:
    from isomat.export import to_jax_npz

    A32 = __import__("scipy.sparse").sparse.csr_array(_rng(36).standard_normal((3, 3)).astype(np.float32))
    return (to_jax_npz(A32, _tmp("jl.npz")),)  # float32: JAX loads it without jax_enable_x64


def _conv_record() -> tuple:
    """The metadata of a conv export whose 1x1x3x3 kernel is recorded with its values (rebuild's ``kernel=``
    is then checked against that record)."""
    import hashlib

    k = _rng(5).standard_normal((1, 1, 3, 3))
    rec = {"dtype": "float64", "path": "k.npy", "shape": [1, 1, 3, 3], "values": k.tolist(),
           "sha256": hashlib.sha256(k.tobytes()).hexdigest()}
    return ({"kind": "conv", "parameters": {"input_shape": [1, 6, 6], "kernel": rec}},)


def _network():
    from isomat.torch import from_model

    return from_model(_module(), (1, 6, 6))


def _network_manifest() -> str:
    from isomat import export

    return str(export.write_network(_network(), _tmp("readnet.npz"))[-1])


def _module():
    import torch

    torch.manual_seed(0)
    return torch.nn.Conv2d(1, 2, 3).double()


CONFIG = {"hidden_size": 8, "intermediate_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1,
          "num_hidden_layers": 2, "head_dim": 4}

#: valid positional arguments of every other public callable with defaulted keyword arguments
MORE_CALLS: dict[str, Callable[[], Any]] = {
    # graphs
    "isomat.algebra.adjacency": lambda: (_graph(),),
    "isomat.algebra.laplacian": lambda: (_graph(),),
    "isomat.algebra.mean_aggregation": lambda: (_graph(),),
    "isomat.algebra.normalized_adjacency": lambda: (_graph(),),
    "isomat.algebra.renormalized_adjacency": lambda: (_graph(),),
    "isomat.algebra.spectral_filter": lambda: (_graph(), np.exp),
    "isomat.algebra.multi_attention": lambda: ([_rng(1).random((3, 3)), _rng(2).random((3, 3))], 2),
    # logic
    "isomat.algebra.conjunction": lambda: (2,),
    "isomat.algebra.disjunction": lambda: (2,),
    "isomat.algebra.equivalence": lambda: (2,),
    "isomat.algebra.implication": lambda: (2,),
    "isomat.algebra.nand": lambda: (2,),
    "isomat.algebra.negation": lambda: (2,),
    "isomat.algebra.nor": lambda: (2,),
    "isomat.algebra.xor": lambda: (2,),
    "isomat.algebra.power_reducing_matrix": lambda: (2,),
    "isomat.algebra.front_maintaining": lambda: (2, 3),
    "isomat.algebra.rear_maintaining": lambda: (2, 3),
    "isomat.algebra.logical_matrix": lambda: ([1, 2, 2, 1], 2),
    "isomat.algebra.logical_vector": lambda: (1, 2),
    "isomat.algebra.retriever": lambda: ([2, 3], 2),
    "isomat.algebra.structure_matrix": lambda: (lambda a, b: a & ~b, 2),
    "isomat.algebra.bridge": lambda: (2, 3),
    "isomat.algebra.bridge_weighted": lambda: (2, 3),
    # attention and hypervectors
    "isomat.algebra.attention_scores": lambda: (_hv((4, 4, 4), 1), _hv((4, 4, 4), 2)),
    "isomat.algebra.df_attention": lambda: (_hv((4, 4, 4), 1), _hv((4, 4, 4), 2), _hv((4, 4, 4), 3)),
    "isomat.algebra.df_attention_general": lambda: (_hv((4, 4, 4), 1), _hv((4, 4, 4), 2), _hv((4, 4, 4), 3)),
    "isomat.algebra.df_concat": lambda: ([_hv((2, 3), 11), _hv((4, 1), 12)], (3, 2)),
    "isomat.algebra.diamond": lambda: (_rng(3).standard_normal((3, 3)), _hv((2, 3, 4), 4)),
    "isomat.algebra.diamond_matrix": lambda: (_rng(3).standard_normal((3, 3)), [2, 3, 6]),
    "isomat.algebra.factor_product_form": lambda: (np.kron(*_hv((2, 3), 5)), (2, 3)),
    "isomat.algebra.linear_attention_matrix": lambda: (3, *(_rng(i).standard_normal((2, 2)) for i in (6, 7, 8))),
    "isomat.algebra.zhu_w_sa": lambda: tuple(_rng(i).standard_normal((3, 2)) for i in (6, 7, 8)),
    # convolution, pooling, padding
    "isomat.algebra.conv_kron_factors": lambda: ((6, 6), _rng(9).standard_normal((3, 3))),
    "isomat.algebra.conv_linear_operator": lambda: ((1, 6, 6), _rng(9).standard_normal((2, 1, 3, 3))),
    "isomat.algebra.conv_transpose_apply": lambda: (_rng(10).standard_normal((2, 4, 4)),
                                                    _rng(9).standard_normal((2, 1, 3, 3)), (1, 6, 6)),
    "isomat.algebra.shift_matrix": lambda: (6, 3, 1),
    "isomat.algebra.zhu_conv_matrix": lambda: ((6, 6), _rng(9).standard_normal((3, 3))),
    "isomat.algebra.zhu_conv_rows": lambda: ((6, 6), 3),
    "isomat.algebra.zhu_pool_matrix": lambda: ((6, 6), 2),
    "isomat.algebra.padding_index": lambda: (5, 1, 2),
    "isomat.algebra.padding_matrix": lambda: ((2, 4, 4), 1),
    "isomat.algebra.diagonal_blocks": lambda: (A.conv_matrix((1, 6, 6), np.ones((1, 1, 3, 3)), padding=1),),
    # Kronecker structure
    "isomat.algebra.kron": lambda: (_rng(11).standard_normal((2, 3)), _rng(12).standard_normal((3, 2))),
    "isomat.algebra.kron_operator": lambda: (_rng(11).standard_normal((2, 3)), _rng(12).standard_normal((3, 2))),
    "isomat.algebra.is_kronecker": lambda: (np.kron(_rng(11).standard_normal((2, 3)), _rng(12).standard_normal((3, 2))),
                                            (2, 3), (3, 2)),
    "isomat.algebra.kronecker_rank": lambda: (np.kron(_rng(11).standard_normal((2, 3)), _rng(12).standard_normal((3, 2))),
                                              (2, 3), (3, 2)),
    "isomat.algebra.kronecker_factors": lambda: (np.kron(_rng(11).standard_normal((2, 3)),
                                                         _rng(12).standard_normal((3, 2))), [(2, 3), (3, 2)]),
    "isomat.algebra.factor_pair": lambda: (12,),
    # NdLinear, matrix layers, LoRA counts
    "isomat.algebra.ndlinear_apply": lambda: (_rng(13).standard_normal((2, 3)),
                                              [_rng(14).standard_normal((4, 2)), _rng(15).standard_normal((2, 3))]),
    "isomat.algebra.ndlinear_bias": lambda: ([_rng(14).standard_normal((4, 2)), _rng(15).standard_normal((2, 3))],
                                             [_rng(16).standard_normal(4), _rng(17).standard_normal(2)]),
    "isomat.algebra.ndlinear_matrix": lambda: ([_rng(14).standard_normal((4, 2)), _rng(15).standard_normal((2, 3))],),
    "isomat.algebra.ndlinear_linear_operator": lambda: ([_rng(14).standard_normal((4, 2)),
                                                         _rng(15).standard_normal((2, 3))],),
    "isomat.algebra.ndlinear_from_dense": lambda: (np.kron(_rng(14).standard_normal((4, 2)),
                                                           _rng(15).standard_normal((2, 3))), (2, 3), (4, 2)),
    "isomat.algebra.ndlinear_flops": lambda: ((2, 3), (4, 2)),
    "isomat.algebra.ndlinear_param_count": lambda: ((2, 3), (4, 2)),
    "isomat.algebra.ndlinear_lora_param_count": lambda: (dict(CONFIG),),
    "isomat.algebra.lora_param_count": lambda: (dict(CONFIG), 2),
    "isomat.algebra.transformer_linear_shapes": lambda: (dict(CONFIG),),
    "isomat.algebra.matrix_layer": lambda: (_rng(18).standard_normal((2, 3)), _rng(19).standard_normal((3, 2))),
    "isomat.algebra.matrix_layer2": lambda: tuple(_rng(i).standard_normal((2, 2)) for i in (18, 19, 20, 21)),
    "isomat.algebra.matrix_layer_parameter_count": lambda: ((2, 3), (3, 2)),
    "isomat.algebra.matrix_rnn_cell": lambda: (_rng(22).standard_normal((2, 3)), _rng(23).standard_normal((2, 2)),
                                               _theta(2, 3, 2, 2),
                                               tuple(_rng(i).standard_normal(s) for i, s in
                                                     ((24, (2, 2)), (25, (2, 2)), (26, (2, 2)))),),
    "isomat.algebra.matrix_lstm_cell": lambda: (_rng(22).standard_normal((2, 3)), _rng(23).standard_normal((2, 2)),
                                                _rng(27).standard_normal((2, 2)),
                                                {g: _theta(2, 3, 2, 2, i) for i, g in enumerate("ifoc")}),
    "isomat.algebra.matrix_gru_cell": lambda: (_rng(22).standard_normal((2, 3)), _rng(23).standard_normal((2, 2)),
                                               {g: _theta(2, 3, 2, 2, i) for i, g in enumerate("zrh")}),
    "isomat.algebra.matrix_highway": lambda: (_rng(23).standard_normal((2, 3)),
                                              tuple(_rng(i).standard_normal(s) for i, s in ((1, (2, 2)), (2, (3, 3)), (3, (2, 3)))),
                                              tuple(_rng(i).standard_normal(s) for i, s in ((4, (2, 2)), (5, (3, 3)), (6, (2, 3))))),
    # projection
    "isomat.algebra.project_pad": lambda: (_hv((2, 3, 4), 28),),
    "isomat.algebra.projection_operator": lambda: (3, 5),
    "isomat.algebra.butterfly_pairings": lambda: (8,),
    # RNN
    "isomat.algebra.rnn_apply": lambda: (_rng(29).standard_normal((2, 2)), _rng(30).standard_normal((2, 2)),
                                         _rng(31).standard_normal((3, 2))),
    "isomat.algebra.rnn_matrix": lambda: (_rng(29).standard_normal((2, 2)), _rng(30).standard_normal((2, 2)), 3),
    "isomat.algebra.zhu_rnn_main_text": lambda: (_rng(29).standard_normal((2, 2)), _rng(30).standard_normal((2, 2)), 3),
    # SPM
    "isomat.algebra.spm_layer": lambda: (6, "butterfly", _rng(32).uniform(0, 3, (2, 3))),
    "isomat.algebra.spm_forward": lambda: (_spm(), _rng(33).standard_normal((3, 6))),
    "isomat.algebra.spm_backward": lambda: (_spm(), _rng(33).standard_normal((3, 6)), _rng(34).standard_normal((3, 6))),
    "isomat.algebra.spm_attention_forward": lambda: ({k: _spm(6, 2, i) for i, k in enumerate("QKVO")},
                                                     _rng(35).standard_normal((3, 6))),
    "isomat.algebra.layer_matrix": lambda: (_spm(),),
    "isomat.algebra.stage_matrix": lambda: (_spm(), 0),
    # operators and memory
    "isomat.algebra.as_operator": lambda: (_rng(36).standard_normal((3, 3)),),
    "isomat.algebra.estimate_bytes": lambda: (10, 3),
    # export
    "isomat.export.to_scipy": lambda: (_rng(36).standard_normal((3, 3)),),
    "isomat.export.to_torch": lambda: (_rng(36).standard_normal((3, 3)),),
    "isomat.export.to_jax_bcoo": lambda: (__import__("scipy.sparse").sparse.csr_array(  # JAX is 32-bit by default
        _rng(36).standard_normal((3, 3)).astype(np.float32)),),
    "isomat.export.to_npz": lambda: (_rng(36).standard_normal((3, 3)), _tmp("n.npz")),
    "isomat.export.save_torch": lambda: (_rng(36).standard_normal((3, 3)), _tmp("s.pt")),
    "isomat.export.from_dlpack": lambda: (_rng(36).standard_normal((3, 3)),),
    "isomat.export.to_mat": lambda: (_rng(36).standard_normal((3, 3)), _tmp("m.mat")),
    "isomat.export.to_jax_npz": lambda: (_rng(36).standard_normal((3, 3)), _tmp("j.npz")),
    "isomat.export.load_jax_bcoo": _jax_file,
    # testing helpers
    "isomat.testing.dottest": lambda: (_rng(36).standard_normal((3, 4)),),
    "isomat.testing.assert_same_operator": lambda: (_rng(36).standard_normal((3, 4)), _rng(36).standard_normal((3, 4))),
    "isomat.testing.assert_matches_dense": lambda: (_rng(36).standard_normal((3, 4)), _rng(36).standard_normal((3, 4))),
    # distributed, torch
    "isomat.distributed.apply_row_blocks": _row_block_call,
    "isomat.torch.from_module": lambda: (_module(), (1, 6, 6)),
    "isomat.torch.from_model": lambda: (_module(), (1, 6, 6)),
    "isomat.torch.to_sparse_model": lambda: (_module(), (1, 6, 6)),
    "isomat.export.write_network": lambda: (_network(), _tmp("net.npz")),
    "isomat.export.rebuild": _conv_record,
    "isomat.export.read_network": lambda: (_network_manifest(),),
}
