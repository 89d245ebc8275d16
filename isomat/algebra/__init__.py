"""Constructions: neural-layer operators as structured matrices, one module per family.

Every construction builds a :class:`SparseOperator` (pattern plus values) once and renders it
in the field the caller asks for; see :mod:`isomat.algebra._operator`. Each family module lists
its public names in ``__all__``; they are re-exported here (tests/test_algebra_exports.py checks
that this list and the modules' ``__all__`` agree).
"""

from __future__ import annotations

from typing import Any

from . import _backend
from ._operator import SparseOperator, as_operator, estimate_bytes

from .projection import (  # cheng2025 eq. 22
    project,
    projection,
    projection_operator,
    projection_overlap,
)

from .conv import (  # zhu2025
    conv_apply,
    conv_kron_factors,
    conv_matrix,
    conv_output_shape,
    csr_matvec,
    shift_matrix,
    zhu_conv_matrix,
    zhu_conv_rows,
    zhu_offsets,
)

from .diagonal import (  # storage by block diagonals: fast apply of banded (conv) matrices
    DiagonalBlocks,
    diagonal_blocks,
)

from .pool import (  # zhu2025
    avgpool_matrix,
    maxpool_selection,
    patch_major_order,
    pool_output_shape,
    zhu_pool_matrix,
)

from .rnn import (  # zhu2025
    rnn_apply,
    rnn_matrix,
    zhu_rnn_main_text,
)

from .attention import (  # zhu2025
    lift3,
    linear_attention,
    linear_attention_matrix,
    softmax_attention,
    zhu_a3_output,
    zhu_w_sa,
)

from .kron import (  # Kronecker core, factorization (do2017, reneau2025)
    KroneckerFactors,
    is_kronecker,
    kron,
    kron_operator,
    kron_rearrange,
    kronecker_factors,
    kronecker_rank,
    nearest_kronecker,
)

from .matrix_layer import (  # do2017
    MatrixLayer,
    mat1,
    mat2,
    matrix_gru_cell,
    matrix_highway,
    matrix_layer,
    matrix_layer2,
    matrix_lstm_cell,
    matrix_rnn_cell,
    matrix_layer_parameter_count,
    sigm,
)

from .graph import (  # do2017
    adjacency,
    chebyshev_filter,
    laplacian,
    mean_aggregation,
    multi_attention,
    normalized_adjacency,
    renormalized_adjacency,
    spectral_filter,
)

from .ndlinear import (  # reneau2025
    FACTOR_RULES,
    LORA_TARGET_MODULES,
    ORDERS,
    TRANSFORMER_CONFIGS,
    factor_pair,
    lora_param_count,
    ndlinear_apply,
    ndlinear_bias,
    ndlinear_flops,
    ndlinear_from_dense,
    ndlinear_lora_param_count,
    ndlinear_matrix,
    ndlinear_param_count,
    transformer_linear_shapes,
)

from .spm import (  # farag2025
    SPM,
    SPMKernel,
    spm_layer,
    random_spm,
    butterfly_pairings,
    random_pairings,
    stage_operator,
    stage_matrix,
    layer_matrix,
    spm_forward,
    spm_backward,
    spm_transpose_apply,
    spm_gru_forward,
    spm_gru_backward,
    spm_attention_forward,
    spm_attention_backward,
)

from .padding import (  # torch's padding modes as a 0/1 matrix (isomat.torch)
    PADDING_MODES,
    padded_shape,
    padding_index,
    padding_matrix,
)

from .linear_operators import (  # matrix-free layers as scipy.sparse.linalg.LinearOperator
    MatrixFreeOperator,
    conv_linear_operator,
    conv_transpose_apply,
    diagonal_blocks_linear_operator,
    ndlinear_linear_operator,
    projection_linear_operator,
    spm_linear_operator,
)

from .stp import (  # cheng2025
    block_transpose,
    bridge,
    bridge_weighted,
    column_stack,
    column_unstack,
    dist_v,
    dk_stp,
    dk_stp_weighted,
    front_maintaining,
    inner_v,
    nominal_add,
    norm_v,
    power_reducing_matrix,
    rear_maintaining,
    retriever,
    row_stack,
    row_unstack,
    sta,
    sta_sub,
    stp,
    stp_chain,
    stp_right,
    swap_matrix,
    power_reducing_row,
    retriever_entry,
    swap_row,
)

from .logic import (  # cheng2025 (STP logic toolbox)
    conjunction,
    delta_form,
    disjunction,
    equivalence,
    implication,
    logical_matrix,
    logical_vector,
    nand,
    negation,
    nor,
    structure_matrix,
    xor,
)

from .hyper import (  # cheng2025
    Hypervector,
    assembled_attention,
    attention_scores,
    df_add,
    df_attention,
    df_attention_general,
    df_concat,
    df_feed_forward,
    diamond,
    diamond_matrix,
    factor_product_form,
    hv_inner,
    hv_inner_weighted,
    hv_nominal_add,
    hv_nominal_add_r,
    project_pad,
    project_padding_linear,
    project_rows,
    relu,
    softmax_rows,
    truncate_rows,
    zero_pad,
    zero_padding_linear,
)

FAMILIES = ('projection', 'conv', 'diagonal', 'pool', 'rnn', 'attention', 'kron', 'matrix_layer', 'graph', 'ndlinear', 'spm', 'padding', 'linear_operators', 'stp', 'logic', 'hyper')


def field_of(*inputs: Any) -> str:
    """The field the inputs belong to: ``"sympy"`` for SymPy (or Fraction) values, ``"cupy"`` for CuPy
    arrays, else ``"numpy"``; mixing SymPy with CuPy is refused. A string or bytes, or None, is no array
    of values and is refused (NumPy would read it as a 0-d text or object array)."""
    for k, x in enumerate(inputs):
        if isinstance(x, (str, bytes)):
            raise TypeError(f"inputs[{k}] must be an array or matrix of numbers, got the {type(x).__name__} {x!r}")
        if x is None:  # NumPy would read None as a 0-d object array: no field at all
            raise TypeError(f"inputs[{k}] must be an array or matrix of numbers, got None")
    return _backend.field_of(*inputs)


__all__ = [
    "SparseOperator",
    "as_operator",
    "estimate_bytes",
    "field_of",
    "project",
    "projection",
    "projection_operator",
    "projection_overlap",
    "conv_apply",
    "conv_kron_factors",
    "conv_matrix",
    "conv_output_shape",
    "csr_matvec",
    "DiagonalBlocks",
    "diagonal_blocks",
    "shift_matrix",
    "zhu_conv_matrix",
    "zhu_conv_rows",
    "zhu_offsets",
    "avgpool_matrix",
    "maxpool_selection",
    "patch_major_order",
    "pool_output_shape",
    "zhu_pool_matrix",
    "rnn_apply",
    "rnn_matrix",
    "zhu_rnn_main_text",
    "lift3",
    "linear_attention",
    "linear_attention_matrix",
    "softmax_attention",
    "zhu_a3_output",
    "zhu_w_sa",
    "KroneckerFactors",
    "is_kronecker",
    "kron",
    "kron_operator",
    "kron_rearrange",
    "kronecker_factors",
    "kronecker_rank",
    "nearest_kronecker",
    "MatrixLayer",
    "mat1",
    "mat2",
    "matrix_gru_cell",
    "matrix_highway",
    "matrix_layer",
    "matrix_layer2",
    "matrix_lstm_cell",
    "matrix_rnn_cell",
    "matrix_layer_parameter_count",
    "sigm",
    "adjacency",
    "chebyshev_filter",
    "laplacian",
    "mean_aggregation",
    "multi_attention",
    "normalized_adjacency",
    "renormalized_adjacency",
    "spectral_filter",
    "FACTOR_RULES",
    "LORA_TARGET_MODULES",
    "ORDERS",
    "TRANSFORMER_CONFIGS",
    "factor_pair",
    "lora_param_count",
    "ndlinear_apply",
    "ndlinear_bias",
    "ndlinear_flops",
    "ndlinear_from_dense",
    "ndlinear_lora_param_count",
    "ndlinear_matrix",
    "ndlinear_param_count",
    "transformer_linear_shapes",
    "SPM",
    "SPMKernel",
    "spm_layer",
    "random_spm",
    "butterfly_pairings",
    "random_pairings",
    "stage_operator",
    "stage_matrix",
    "layer_matrix",
    "spm_forward",
    "spm_backward",
    "spm_transpose_apply",
    "spm_gru_forward",
    "spm_gru_backward",
    "spm_attention_forward",
    "spm_attention_backward",
    "PADDING_MODES",
    "padded_shape",
    "padding_index",
    "padding_matrix",
    "MatrixFreeOperator",
    "conv_linear_operator",
    "conv_transpose_apply",
    "diagonal_blocks_linear_operator",
    "ndlinear_linear_operator",
    "projection_linear_operator",
    "spm_linear_operator",
    "block_transpose",
    "bridge",
    "bridge_weighted",
    "column_stack",
    "column_unstack",
    "dist_v",
    "dk_stp",
    "dk_stp_weighted",
    "front_maintaining",
    "inner_v",
    "nominal_add",
    "norm_v",
    "power_reducing_matrix",
    "rear_maintaining",
    "retriever",
    "row_stack",
    "row_unstack",
    "sta",
    "sta_sub",
    "stp",
    "stp_chain",
    "stp_right",
    "swap_matrix",
    "power_reducing_row",
    "retriever_entry",
    "swap_row",
    "conjunction",
    "delta_form",
    "disjunction",
    "equivalence",
    "implication",
    "logical_matrix",
    "logical_vector",
    "nand",
    "negation",
    "nor",
    "structure_matrix",
    "xor",
    "Hypervector",
    "assembled_attention",
    "attention_scores",
    "df_add",
    "df_attention",
    "df_attention_general",
    "df_concat",
    "df_feed_forward",
    "diamond",
    "diamond_matrix",
    "factor_product_form",
    "hv_inner",
    "hv_inner_weighted",
    "hv_nominal_add",
    "hv_nominal_add_r",
    "project_pad",
    "project_padding_linear",
    "project_rows",
    "relu",
    "softmax_rows",
    "truncate_rows",
    "zero_pad",
    "zero_padding_linear",
]
