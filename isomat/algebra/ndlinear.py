r"""NdLinear (reneau2025) as a Kronecker operator, matrix-free mode products, and its counts.

An NdLinear layer maps :math:`X\in\mathbb R^{D_1\times\cdots\times D_N}` to
:math:`Y\in\mathbb R^{H_1\times\cdots\times H_N}` by one linear map per mode (reneau2025,
Algorithm 1, §2.2). Weights are stored as the reference implementation stores them, one
``nn.Linear`` per mode: :math:`W_k\in\mathcal M_{H_k\times D_k}` (the paper writes its transpose,
:math:`W_k^{\mathsf T}\in\mathbb R^{D_k\times H_k}`, acting on the right). With row-major
(C order) ``vec``, the weight part of the layer is

.. math:: \operatorname{vec}(Y) = (W_1\otimes W_2\otimes\cdots\otimes W_N)\operatorname{vec}(X) + \beta,

for *either* transform order. The biases :math:`b_k\in\mathbb R^{H_k}` enter :math:`\beta`, and
there the order matters. Order ``"outer"`` (modes :math:`1,\dots,N`, Algorithm 1,
``NdLinear(..., transform_outer=True)``) gives

.. math:: \beta_{\text{outer}} = \sum_{k=1}^N \Bigl(\bigotimes_{j<k}\mathbf 1_{H_j}\Bigr)\otimes b_k
          \otimes\Bigl(\bigotimes_{j>k} W_j\mathbf 1_{D_j}\Bigr),

and order ``"inner"`` (modes :math:`N,\dots,1`, ``transform_outer=False``) gives
:math:`\beta_{\text{inner}} = \sum_k (\bigotimes_{j<k} W_j\mathbf 1_{D_j})\otimes b_k\otimes(\bigotimes_{j>k}\mathbf 1_{H_j})`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy

from .. import _validate
from .._types import DenseMatrix, FieldArray
from . import _backend
from ._operator import check_bytes, render, value_bytes
from .kron import kron_operator, kronecker_factors

ORDERS = ("outer", "inner")

#: Public architecture facts of the two models of reneau2025 Table 1, transcribed from their
#: published configuration files (``config.json`` of Qwen/Qwen3-1.7B and meta-llama/Meta-Llama-3-8B).
TRANSFORMER_CONFIGS: dict[str, dict[str, int]] = {
    "Qwen3-1.7B": {"num_hidden_layers": 28, "hidden_size": 2048, "intermediate_size": 6144,
                   "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128},
    "Meta-Llama-3-8B": {"num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128},
}
#: The adapted modules of reneau2025 Appendix D.1 (same file's ``lora_target_modules``).
LORA_TARGET_MODULES: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
#: Factorization rules for :func:`factor_pair`.
FACTOR_RULES = ("square-small-first", "square-large-first")


# ---------------------------------------------------------------------------------------------
# argument handling
# ---------------------------------------------------------------------------------------------
def _host_array(x: Any) -> Any:
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # torch tensor
        return x.detach().cpu().numpy()
    return x


def _weights(weights: Any, backend: str | None) -> tuple[list[Any], str]:
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or len(weights) == 0:
        raise TypeError(f"weights must be a non-empty sequence of matrices (one per mode, shape (H_k, D_k)), "
                        f"got {type(weights).__name__}")
    ws = [_host_array(w) for w in weights]
    field = _backend.resolve_field(backend, *ws)
    out = []
    for k, w in enumerate(ws):
        if isinstance(w, numbers.Number) or (getattr(w, "ndim", None) == 0 and not isinstance(w, sympy.MatrixBase)):
            raise TypeError(f"weights[{k}] must be a matrix of shape (H_k, D_k), got {type(w).__name__}")
        arr = _backend.as_values(w, field, name=f"weights[{k}]")
        if arr.ndim != 2:
            raise ValueError(f"weights[{k}] must be a matrix of shape (H_k, D_k), got shape {tuple(arr.shape)}")
        out.append(arr)
    return out, field


def _biases(biases: Any, ws: list[Any], field: str) -> list[Any | None]:
    if biases is None:
        return [None] * len(ws)
    if isinstance(biases, (str, bytes)) or not isinstance(biases, Sequence):
        raise TypeError(f"biases must be None or a sequence of {len(ws)} vectors (or None entries), "
                        f"got {type(biases).__name__}")
    if len(biases) != len(ws):
        raise ValueError(f"biases must have one entry per mode ({len(ws)}), got {len(biases)}")
    out: list[Any | None] = []
    for k, (b, w) in enumerate(zip(biases, ws)):
        if b is None:
            out.append(None)
            continue
        arr = _backend.as_values(_host_array(b), field, name=f"biases[{k}]").reshape(-1)
        if arr.shape[0] != w.shape[0]:
            raise ValueError(f"biases[{k}] must have H_k = {w.shape[0]} entries (rows of weights[{k}]), "
                             f"got {arr.shape[0]}")
        out.append(arr)
    return out


def _order(order: Any) -> str:
    return _validate.choice("order", order, ORDERS)


def _kvec(*vs: Any) -> FieldArray:
    """Row-major Kronecker product of vectors (works for object arrays)."""
    out = vs[0]
    for v in vs[1:]:
        out = (out[:, None] * v[None, :]).reshape(-1)
    return out


# ---------------------------------------------------------------------------------------------
# the operator and its bias
# ---------------------------------------------------------------------------------------------
def ndlinear_bias(weights: Any, biases: Any = None, order: str = "outer", *, backend: str | None = None) -> DenseMatrix:
    r"""Effective bias :math:`\beta` of an NdLinear layer (module docstring), a vector of length
    :math:`\prod_k H_k` in the field of the inputs (a ``sympy.Matrix`` column for exact input)."""
    ws, field = _weights(weights, backend)
    bs = _biases(biases, ws, field)
    order = _order(order)
    xp = _backend.array_module(field)
    n_out = math.prod(w.shape[0] for w in ws)
    zero = sympy.Integer(0) if field == "sympy" else 0.0
    beta = np.full(n_out, zero, dtype=object) if field == "sympy" else xp.zeros(n_out, dtype=ws[0].dtype)
    ones = [np.full(w.shape[0], sympy.Integer(1), dtype=object) if field == "sympy" else xp.ones(w.shape[0], dtype=w.dtype)
            for w in ws]
    rowsum = [w.sum(axis=1) for w in ws]  # W_j 1_{D_j}: what mode j makes of a constant fibre
    for k, b in enumerate(bs):
        if b is None:
            continue
        if order == "outer":  # modes 1..N: earlier modes see the bias as constant, later ones mix it
            parts = [*ones[:k], b, *rowsum[k + 1:]]
        else:
            parts = [*rowsum[:k], b, *ones[k + 1:]]
        beta = beta + _kvec(*parts)
    if field == "sympy":
        return sympy.Matrix(n_out, 1, [sympy.expand(v) for v in beta])
    return beta


def ndlinear_matrix(weights: Any, biases: Any = None, order: str = "outer", *, backend: str | None = None,
                    format: str = "csr") -> tuple[Any, Any]:
    r"""The flattened NdLinear layer: Kronecker operator and effective bias (reneau2025 Alg. 1, App. A).

    .. math:: \operatorname{vec}(Y) = (W_1\otimes\cdots\otimes W_N)\operatorname{vec}(X) + \beta_{\text{order}}

    with row-major ``vec`` and :math:`\beta` as in the module docstring. Equal, for both orders, to
    ``ndlinear.NdLinear(input_dims, hidden_size, transform_outer=(order == "outer"))`` whose
    ``align_layers[k]`` has ``weight = W_k`` and ``bias = b_k``.

    Parameters
    ----------
    weights : sequence of matrices
        :math:`W_k` of shape ``(H_k, D_k)`` (``nn.Linear.weight`` layout); NumPy, CuPy, SymPy or
        torch tensors (converted to NumPy).
    biases : sequence of vectors or None, optional
        :math:`b_k` of length ``H_k``; ``None`` (or a ``None`` entry) for no bias.
    order : {"outer", "inner"}
        ``"outer"``: modes transformed first to last (Algorithm 1, ``transform_outer=True``);
        ``"inner"``: last to first (``transform_outer=False``).
    backend : {"sympy", "numpy", "cupy"}, optional
    format : {"csr", "csc", "coo", "operator"}

    Returns
    -------
    (K, beta)
        ``K`` of shape ``(prod H, prod D)`` rendered in its field; ``beta`` of length ``prod H``
        (zeros when there are no biases).
    """
    ws, field = _weights(weights, backend)
    _biases(biases, ws, field)
    _order(order)
    K = kron_operator(*ws, backend=field)
    return render(K, format), ndlinear_bias(ws, biases, order, backend=field)


def mode_product_entry(o: Any, i: Any, P: Any, D: Any, H: Any, Q: Any, w: Any) -> Any:
    r"""Entry rule of one mode product of :func:`ndlinear_apply` (reneau2025 Algorithm 1, one step).

    The tensor is viewed as :math:`(P, D, Q)` -- :math:`P` the product of the leading axes, :math:`Q` of the
    trailing ones, :math:`D = D_k` -- and mapped to :math:`(P, H, Q)`. Algorithm 1 moves mode :math:`k` last
    and reshapes, so input entry :math:`(p, d, q)` lands in row :math:`pQ + q`, column :math:`d` of
    ``X_matrix``; ``Y_matrix = X_matrix W_k^T`` and the inverse reshape/permute put row :math:`pQ+q`, column
    :math:`h` back at :math:`(p, h, q)`. With row-major flat indices :math:`o = (pH + h)Q + q` (output) and
    :math:`i = (p'D + d)Q + q'` (input), the coefficient of input :math:`i` in output :math:`o` is

    .. math:: w(h, d)\;\text{if } pQ + q = p'Q + q' \text{ (the same row of X\_matrix)},\quad 0 \text{ otherwise},

    with ``w(h, d)`` :math:`= W_k[h, d]` (``nn.Linear`` layout). Written with
    :func:`~isomat.proofs.prover.fdiv` / ``fmod`` / ``ite`` so it acts on ints, NumPy index arrays and Z3
    terms alike: the tests compare it with :func:`ndlinear_apply`, and ``isomat.proofs.reneau2025`` proves
    it equal to the entry of :math:`I_P\otimes W_k\otimes I_Q` for every :math:`P, D, H, Q`.
    """
    from .._types import fdiv, fmod, ite

    p, h, q = fdiv(o, H * Q), fmod(fdiv(o, Q), H), fmod(o, Q)
    p2, d, q2 = fdiv(i, D * Q), fmod(fdiv(i, Q), D), fmod(i, Q)
    return ite(p * Q + q == p2 * Q + q2, w(h, d), 0 * w(h, d))


def mode_bias_entry(o: Any, H: Any, Q: Any, b: Any) -> Any:
    r"""Entry rule of the bias of one mode product (Algorithm 1's ``+ b_k``): output flat index
    :math:`o = (pH + h)Q + q` receives ``b(h)``, :math:`h = \lfloor o/Q\rfloor \bmod H`."""
    from .._types import fdiv, fmod

    return b(fmod(fdiv(o, Q), H))


def ndlinear_apply(X: Any, weights: Any, biases: Any = None, order: str = "outer", *,
                   backend: str | None = None) -> FieldArray:
    r"""Matrix-free NdLinear: :math:`Y = X\times_1 W_1\times_2\cdots\times_N W_N` (+ biases after each
    mode product, in ``order``), reneau2025 Algorithm 1 and §2.2.

    Each mode product is one batched matrix product :math:`(P, D_k, Q)\to(P, H_k, Q)` with
    :math:`P` the product of the leading axes and :math:`Q` of the trailing ones; no Kronecker
    matrix is formed, so the cost is eq. (1)'s :math:`2B\sum_k(\prod_{j<k}H_j)(\prod_{j>k}D_j)D_kH_k`.

    Parameters
    ----------
    X : array of shape ``(*batch, D_1, ..., D_N)``
        Any number of leading batch axes (none for a single sample).
    weights, biases, order, backend
        As in :func:`ndlinear_matrix`.

    Returns
    -------
    array of shape ``(*batch, H_1, ..., H_N)`` in the field of the inputs (object array of SymPy
    expressions for exact input).
    """
    ws, field = _weights(weights, backend)
    bs = _biases(biases, ws, field)
    order = _order(order)
    X = _host_array(X)
    if isinstance(X, sympy.MatrixBase) or isinstance(X, (sympy.NDimArray,)):
        X = np.array(X.tolist(), dtype=object)
    x = _backend.as_values(X, field, name="X")
    N = len(ws)
    dims = tuple(w.shape[1] for w in ws)
    if x.ndim < N or tuple(x.shape[x.ndim - N:]) != dims:
        raise ValueError(f"X must have shape (*batch, {', '.join(map(str, dims))}) (D_k = columns of weights[k]), "
                         f"got {tuple(x.shape)}")
    lead = tuple(x.shape[: x.ndim - N])
    batch = math.prod(lead)
    out_dims = tuple(w.shape[0] for w in ws)
    # the largest intermediate of the chosen order: after modes 0..k-1 ("outer") it holds
    # out_dims[:k] x dims[k:], after modes N-1..k ("inner") dims[:k] x out_dims[k:] (the inner order
    # used to be bounded by the outer order's sizes, which can be far smaller)
    if order == "outer":
        largest = batch * max(math.prod(out_dims[:k]) * math.prod(dims[k:]) for k in range(N + 1))
    else:
        largest = batch * max(math.prod(dims[:k]) * math.prod(out_dims[k:]) for k in range(N + 1))
    # the current tensor, a mode's product, its bias sum and the converted input: four at most
    check_bytes("ndlinear_apply", 4 * largest * value_bytes(field),
                f"intermediates of up to {largest:,} values ({order} order, batch {batch:,})")
    shape = [batch, *dims]
    cur = x.reshape(shape)
    xp = _backend.array_module(field)
    for k in (range(N) if order == "outer" else reversed(range(N))):
        P = math.prod(shape[: k + 1])
        Q = math.prod(shape[k + 2:])
        if Q == 1:  # last mode: one (P, D_k) @ (D_k, H_k) product
            y3 = cur.reshape(P, shape[k + 1]) @ ws[k].T
            if (bk := bs[k]) is not None:
                y3 = y3 + bk[None, :]
        else:  # P products (H_k, D_k) @ (D_k, Q), batched
            y3 = xp.matmul(ws[k], cur.reshape(P, shape[k + 1], Q))
            if (bk := bs[k]) is not None:
                y3 = y3 + bk[:, None]
        shape[k + 1] = out_dims[k]
        cur = y3.reshape(shape)
    if field == "sympy":
        cur = np.vectorize(sympy.expand, otypes=[object])(cur) if cur.size else cur
    return cur.reshape(*lead, *out_dims)


def ndlinear_from_dense(W: Any, input_dims: Any, hidden_dims: Any, *, tol: float | None = None) -> list[Any]:
    r"""Recover NdLinear weights :math:`W_k` (shape ``(H_k, D_k)``) from a flattened dense layer
    :math:`W = W_1\otimes\cdots\otimes W_N` (exact for SymPy input), via
    :func:`isomat.algebra.kron.kronecker_factors`; ``ValueError`` when ``W`` has no such structure."""
    D = _validate.shape("input_dims", input_dims)
    H = _validate.shape("hidden_dims", hidden_dims, ndim=len(D))
    return kronecker_factors(W, list(zip(H, D)), tol=tol)


# ---------------------------------------------------------------------------------------------
# counts (§3.1, §3.2 eq. 1)
# ---------------------------------------------------------------------------------------------
def _dims(input_dims: Any, hidden_dims: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    D = _validate.shape("input_dims", input_dims)
    H = _validate.shape("hidden_dims", hidden_dims, ndim=len(D))
    return D, H


def ndlinear_param_count(input_dims: Any, hidden_dims: Any, *, bias: bool = True) -> dict[str, int]:
    r"""Parameters of NdLinear and of the flattened dense layer (reneau2025 §3.1).

    .. math:: \#_{\text{NdLinear}} = \sum_k (D_kH_k + H_k),\qquad
              \#_{\text{dense}} = D_{\text{flat}}H_{\text{flat}} + H_{\text{flat}}

    (bias terms dropped when ``bias=False``). Returns ``{"ndlinear": ..., "dense": ...}``.
    """
    D, H = _dims(input_dims, hidden_dims)
    if not isinstance(bias, bool):
        raise TypeError(f"bias must be a bool, got {bias!r}")
    nd = sum(d * h + (h if bias else 0) for d, h in zip(D, H))
    Hf = math.prod(H)
    dense = math.prod(D) * Hf + (Hf if bias else 0)
    return {"ndlinear": nd, "dense": dense}


def ndlinear_flops(input_dims: Any, hidden_dims: Any, batch: int = 1, order: str = "outer") -> dict[str, int]:
    r"""FLOPs (a multiply-add counts 2; bias additions not counted) of NdLinear in ``order`` and of
    the flattened dense layer, reneau2025 §3.2 eq. (1):

    .. math:: \text{FLOPs}_{\text{outer}} = 2B\sum_{k=1}^N\Bigl(\prod_{j<k}H_j\Bigr)\Bigl(\prod_{j>k}D_j\Bigr)D_kH_k,
              \qquad \text{FLOPs}_{\text{dense}} = 2B\prod_kD_k\prod_kH_k .

    For ``order="inner"`` the roles of the earlier and later modes swap.
    Returns ``{"ndlinear": ..., "dense": ...}``.
    """
    D, H = _dims(input_dims, hidden_dims)
    B = _validate.positive_int("batch", batch)
    order = _order(order)
    N = len(D)
    if order == "outer":
        terms = [math.prod(H[:k]) * math.prod(D[k + 1:]) * D[k] * H[k] for k in range(N)]
    else:
        terms = [math.prod(D[:k]) * math.prod(H[k + 1:]) * D[k] * H[k] for k in range(N)]
    return {"ndlinear": 2 * B * sum(terms), "dense": 2 * B * math.prod(D) * math.prod(H)}


# ---------------------------------------------------------------------------------------------
# LoRA and NdLinear-LoRA parameter counts for decoder-only transformers (Table 1)
# ---------------------------------------------------------------------------------------------
_CONFIG_KEYS = ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
                "num_key_value_heads", "head_dim")


def transformer_linear_shapes(config: Any, target_modules: Sequence[str] = LORA_TARGET_MODULES) -> list[tuple[str, int, int]]:
    """``(module, in_features, out_features)`` of one decoder layer's targeted projections
    (Llama/Qwen layout: grouped-query attention and a gated MLP)."""
    if isinstance(config, str):
        if config not in TRANSFORMER_CONFIGS:
            raise ValueError(f"config must be one of {tuple(TRANSFORMER_CONFIGS)} or a dict, got {config!r}")
        config = TRANSFORMER_CONFIGS[config]
    if not isinstance(config, dict):
        raise TypeError(f"config must be a model name or a dict with keys {_CONFIG_KEYS}, got {type(config).__name__}")
    missing = [k for k in _CONFIG_KEYS if k not in config]
    if missing:
        raise ValueError(f"config is missing keys {missing} (expected {_CONFIG_KEYS})")
    c = {k: _validate.positive_int(f"config[{k!r}]", config[k]) for k in _CONFIG_KEYS}
    h, i = c["hidden_size"], c["intermediate_size"]
    q, kv = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"]
    table = {"q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h),
             "gate_proj": (h, i), "up_proj": (h, i), "down_proj": (i, h)}
    if isinstance(target_modules, str) or not isinstance(target_modules, Sequence):
        raise TypeError(f"target_modules must be a sequence of module names, got {target_modules!r}")
    bad = [m for m in target_modules if m not in table]
    if bad:
        raise ValueError(f"target_modules: unknown modules {bad}; known: {tuple(table)}")
    return [(m, *table[m]) for m in target_modules]


def lora_param_count(config: Any, rank: int, target_modules: Sequence[str] = LORA_TARGET_MODULES) -> int:
    r"""Trainable parameters of LoRA (Hu et al. 2022): :math:`r(d_\text{in}+d_\text{out})` per adapted
    ``d_in -> d_out`` projection, times the number of layers."""
    r = _validate.positive_int("rank", rank)
    shapes = transformer_linear_shapes(config, target_modules)
    layers = (TRANSFORMER_CONFIGS[config] if isinstance(config, str) else config)["num_hidden_layers"]
    return layers * sum(r * (a + b) for _, a, b in shapes)


def factor_pair(n: int, rule: str = "square-small-first") -> tuple[int, int]:
    """Two-factor split ``n = a*b`` closest to square (``a <= b`` for ``square-small-first``)."""
    n = _validate.positive_int("n", n)
    rule = _validate.choice("rule", rule, FACTOR_RULES)
    a = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return (a, n // a) if rule == "square-small-first" else (n // a, a)


def ndlinear_lora_param_count(config: Any, *, rule: str = "square-small-first", bias: bool = True,
                              target_modules: Sequence[str] = LORA_TARGET_MODULES) -> int:
    r"""Trainable parameters of an NdLinear-LoRA adapter (reneau2025 §4.2.1): each adapted
    ``d_in -> d_out`` projection gets a 2-mode NdLinear from ``factor_pair(d_in)`` to
    ``factor_pair(d_out)`` (§3.1 count, biases optional), times the number of layers."""
    shapes = transformer_linear_shapes(config, target_modules)
    layers = (TRANSFORMER_CONFIGS[config] if isinstance(config, str) else config)["num_hidden_layers"]
    per = sum(ndlinear_param_count(factor_pair(a, rule), factor_pair(b, rule), bias=bias)["ndlinear"]
              for _, a, b in shapes)
    return layers * per


__all__ = ["FACTOR_RULES", "LORA_TARGET_MODULES", "ORDERS", "TRANSFORMER_CONFIGS", "factor_pair",
           "lora_param_count", "ndlinear_apply", "ndlinear_bias", "ndlinear_flops", "ndlinear_from_dense",
           "ndlinear_lora_param_count", "ndlinear_matrix", "ndlinear_param_count", "transformer_linear_shapes"]
