"""NdLinear (reneau2025): Kronecker form and matrix-free mode products against np.kron, a naive
Algorithm 1 written with einsum, the `ndlinear` reference package (torch), and exact SymPy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from isomat.algebra import (
    LORA_TARGET_MODULES,
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
from isomat.testing import assert_matches_dense, dottest

# the public configuration facts the library transcribes, kept in the repository with their source
CONFIG_FILE = Path(__file__).resolve().parent / "data" / "model-configs.json"


# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------
def naive_algorithm1(X, Ws, bs, order):
    """reneau2025 Algorithm 1 with einsum on one mode at a time (batch axis 0)."""
    N = len(Ws)
    Y = X
    letters = "abcdefgh"
    for k in (range(N) if order == "outer" else reversed(range(N))):
        src = "z" + letters[:N]
        dst = src.replace(letters[k], "y")
        Y = np.einsum(f"{src},y{letters[k]}->{dst}", Y, Ws[k])
        if bs[k] is not None:
            shape = [1] * (N + 1)
            shape[k + 1] = -1
            Y = Y + np.asarray(bs[k]).reshape(shape)
    return Y


def np_kron_all(Ws):
    K = np.ones((1, 1))
    for W in Ws:
        K = np.kron(K, W)
    return K


dims = st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=3)


@st.composite
def layers(draw):
    ds = draw(dims)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    Ws = [rng.standard_normal((h, d)) for d, h in ds]
    bs = [rng.standard_normal(h) if draw(st.booleans()) else None for d, h in ds]
    B = draw(st.integers(1, 3))
    X = rng.standard_normal((B, *[d for d, _ in ds]))
    return Ws, bs, X


@given(layers(), st.sampled_from(["outer", "inner"]))
def test_kronecker_form_matches_naive_algorithm1_and_np_kron(layer, order):
    Ws, bs, X = layer
    K, beta = ndlinear_matrix(Ws, bs, order)
    assert_matches_dense(K, np_kron_all(Ws))
    ref = naive_algorithm1(X, Ws, bs, order)
    Y = ndlinear_apply(X, Ws, bs, order)
    np.testing.assert_allclose(Y, ref, rtol=1e-12, atol=1e-12)
    flat = X.reshape(X.shape[0], -1) @ K.T + beta
    np.testing.assert_allclose(flat.reshape(ref.shape), ref, rtol=1e-12, atol=1e-12)
    dottest(K, rng=2)
    # matrix-free operator: forward with W_k, adjoint with W_k^T
    D = X.shape[1:]
    H = tuple(W.shape[0] for W in Ws)
    dottest(K, rng=3, matvec=lambda v: ndlinear_apply(v.reshape(D), Ws).ravel(),
            rmatvec=lambda v: ndlinear_apply(v.reshape(H), [W.T for W in Ws]).ravel())


@given(layers())
def test_order_changes_only_the_bias(layer):
    Ws, bs, X = layer
    Ko, _ = ndlinear_matrix(Ws, bs, "outer")
    Ki, _ = ndlinear_matrix(Ws, bs, "inner")
    assert (Ko != Ki).nnz == 0
    np.testing.assert_allclose(ndlinear_apply(X, Ws, None, "outer"), ndlinear_apply(X, Ws, None, "inner"), rtol=1e-12, atol=1e-12)


def test_order_matters_for_bias_minimal_example():
    # N = 2, D = H = (1, 1): outer bias = b1*w2 + b2, inner = w1*b2 + b1
    W = [np.array([[2.0]]), np.array([[3.0]])]
    b = [np.array([1.0]), np.array([1.0])]
    assert ndlinear_bias(W, b, "outer")[0] == 1 * 3 + 1
    assert ndlinear_bias(W, b, "inner")[0] == 2 * 1 + 1


def test_exact_symbolic_identity():
    N, D, H = 2, (2, 3), (3, 2)
    Ws = [sympy.Matrix(H[k], D[k], sympy.symbols(f"w{k}_0:{H[k] * D[k]}")) for k in range(N)]
    bs = [sympy.Matrix(sympy.symbols(f"b{k}_0:{H[k]}")) for k in range(N)]
    x = sympy.symbols(f"x0:{math.prod(D)}")
    X = np.array(x, dtype=object).reshape(D)
    for order in ("outer", "inner"):
        K, beta = ndlinear_matrix(Ws, bs, order)
        assert K == sympy.kronecker_product(*Ws)
        Y = ndlinear_apply(X, Ws, bs, order)
        # Algorithm 1 by hand, exact: mode products as explicit sums
        Wn = [np.array(W.tolist(), dtype=object) for W in Ws]
        bn = [np.array(list(b), dtype=object) for b in bs]
        T = X
        for k in ((0, 1) if order == "outer" else (1, 0)):
            T = np.tensordot(Wn[k], T, axes=([1], [k]))
            T = np.moveaxis(T, 0, k)
            T = T + (bn[k][:, None] if k == 0 else bn[k][None, :])
        diff = (sympy.Matrix(np.asarray(Y).reshape(-1, 1).tolist()) - sympy.Matrix(T.reshape(-1, 1).tolist()))
        assert diff.applyfunc(sympy.expand).is_zero_matrix
        lin = K * sympy.Matrix(x) + beta
        assert (lin - sympy.Matrix(T.reshape(-1, 1).tolist())).applyfunc(sympy.expand).is_zero_matrix


@pytest.mark.parametrize("outer", [True, False])
def test_matches_reference_package(outer):
    torch = pytest.importorskip("torch")
    ndl = pytest.importorskip("ndlinear")
    rng = np.random.default_rng(1)
    order = "outer" if outer else "inner"
    for D, H in [((3,), (2,)), ((2, 3), (4, 2)), ((2, 3, 4), (3, 2, 5)), ((1, 2, 1, 3), (2, 1, 3, 1))]:
        torch.manual_seed(0)
        m = ndl.NdLinear(D, H, transform_outer=outer).double()
        Ws = [layer.weight for layer in m.align_layers]
        bs = [layer.bias for layer in m.align_layers]
        X = rng.standard_normal((4, *D))
        ref = m(torch.from_numpy(X)).detach().numpy()
        np.testing.assert_allclose(ndlinear_apply(X, Ws, bs, order), ref, rtol=1e-12, atol=1e-12)
        K, beta = ndlinear_matrix(Ws, bs, order)
        np.testing.assert_allclose((X.reshape(4, -1) @ K.T + beta).reshape(ref.shape), ref, rtol=1e-12, atol=1e-12)
        counted = sum(p.numel() for p in m.parameters())
        assert ndlinear_param_count(D, H)["ndlinear"] == counted
        flops = ndlinear_flops(D, H, batch=4, order=order)["ndlinear"]
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as fc:
            m(torch.from_numpy(X))
        assert flops == fc.get_total_flops()


@given(layers())
def test_recover_weights_from_dense(layer):
    Ws, _, X = layer
    K = np_kron_all(Ws)
    D = X.shape[1:]
    H = tuple(W.shape[0] for W in Ws)
    got = ndlinear_from_dense(K, D, H)
    np.testing.assert_allclose(np_kron_all(got), K, rtol=1e-9, atol=1e-12)
    Wi = [np.random.default_rng(0).integers(-3, 4, W.shape) for W in Ws]
    exact = ndlinear_from_dense(sympy.Matrix(np_kron_all(Wi).astype(int).tolist()), D, H)
    assert sympy.kronecker_product(*exact) == sympy.Matrix(np_kron_all(Wi).astype(int).tolist()) if len(exact) > 1 else exact[0] == sympy.Matrix(Wi[0].tolist())


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40)), min_size=1, max_size=4), st.integers(1, 64))
def test_counts_against_naive(ds, B):
    D, H = [d for d, _ in ds], [h for _, h in ds]
    pc = ndlinear_param_count(D, H)
    assert pc["ndlinear"] == sum(d * h + h for d, h in ds)
    assert pc["dense"] == math.prod(D) * math.prod(H) + math.prod(H)
    assert ndlinear_param_count(D, H, bias=False)["ndlinear"] == sum(d * h for d, h in ds)
    # FLOPs: simulate Algorithm 1's shapes step by step (rows x D_k x H_k matmul = 2 * rows * D_k * H_k)
    for order, seq in (("outer", range(len(D))), ("inner", reversed(range(len(D))))):
        shape = list(D)
        total = 0
        for k in seq:
            rows = B * math.prod(shape) // shape[k]
            total += 2 * rows * D[k] * H[k]
            shape[k] = H[k]
        assert ndlinear_flops(D, H, B, order)["ndlinear"] == total
    assert ndlinear_flops(D, H, B)["dense"] == 2 * B * math.prod(D) * math.prod(H)


def test_lora_counts_and_config_transcription():
    # Qwen3-1.7B: per layer r*(4096 + 3072 + 3072 + 4096 + 8192 + 8192 + 8192), 28 layers
    assert lora_param_count("Qwen3-1.7B", 1) == 28 * (4096 + 3072 * 2 + 4096 + 8192 * 3)
    assert lora_param_count("Meta-Llama-3-8B", 8) == 8 * 32 * (8192 + 5120 * 2 + 8192 + 18432 * 3)
    assert factor_pair(6144) == (64, 96) and factor_pair(14336) == (112, 128) and factor_pair(13) == (1, 13)
    assert factor_pair(6144, "square-large-first") == (96, 64)
    torch = pytest.importorskip("torch")
    ndl = pytest.importorskip("ndlinear")
    for name in TRANSFORMER_CONFIGS:
        cfg = TRANSFORMER_CONFIGS[name]
        with torch.device("meta"):
            total = sum(sum(p.numel() for p in ndl.NdLinear(factor_pair(a), factor_pair(b)).parameters())
                        for _, a, b in transformer_linear_shapes(cfg))
        assert ndlinear_lora_param_count(name) == cfg["num_hidden_layers"] * total


def test_transcription_matches_the_published_config_files():
    data = json.loads(CONFIG_FILE.read_text())
    assert set(data["_source"]) == {*TRANSFORMER_CONFIGS, "lora_target_modules"}
    for name, cfg in TRANSFORMER_CONFIGS.items():
        assert data[name] == cfg
    assert tuple(data["lora_target_modules"]) == LORA_TARGET_MODULES


def test_bad_input():
    W = [np.eye(2), np.ones((3, 2))]
    with pytest.raises(TypeError, match="weights must be a non-empty sequence"):
        ndlinear_matrix(np.eye(2))
    with pytest.raises(TypeError, match="weights must be a non-empty sequence"):
        ndlinear_matrix([])
    with pytest.raises(ValueError, match=r"weights\[1\] must be a matrix of shape \(H_k, D_k\), got shape \(3,\)"):
        ndlinear_matrix([np.eye(2), np.ones(3)])
    with pytest.raises(ValueError, match="order must be one of"):
        ndlinear_matrix(W, order="sideways")
    with pytest.raises(ValueError, match=r"biases must have one entry per mode \(2\), got 1"):
        ndlinear_matrix(W, [np.ones(2)])
    with pytest.raises(ValueError, match=r"biases\[1\] must have H_k = 3 entries .* got 2"):
        ndlinear_matrix(W, [None, np.ones(2)])
    with pytest.raises(ValueError, match=r"X must have shape \(\*batch, 2, 2\) .* got \(5, 2, 3\)"):
        ndlinear_apply(np.zeros((5, 2, 3)), W)
    with pytest.raises(ValueError, match="hidden_dims must have 2 entries"):
        ndlinear_param_count((2, 3), (4,))
    with pytest.raises(TypeError, match="input_dims\\[0\\] must be an integer"):
        ndlinear_flops((2.0, 3), (4, 4))
    with pytest.raises(ValueError, match="batch must be a positive integer"):
        ndlinear_flops((2, 3), (4, 4), batch=0)
    with pytest.raises(ValueError, match="rank must be a positive integer"):
        lora_param_count("Qwen3-1.7B", 0)
    with pytest.raises(ValueError, match="config must be one of"):
        lora_param_count("GPT-2", 4)
    with pytest.raises(ValueError, match="config is missing keys"):
        lora_param_count({"hidden_size": 8}, 4)
    with pytest.raises(ValueError, match="target_modules: unknown modules"):
        lora_param_count("Qwen3-1.7B", 4, ["lm_head"])
    with pytest.raises(ValueError, match="rule must be one of"):
        factor_pair(12, "cubic")


def test_float_fields(float_field):
    """Same layer in every float field (CuPy in -> CuPy out; skipped without a usable GPU)."""
    from isomat.algebra._backend import array_module, to_numpy

    xp = array_module(float_field)
    rng = np.random.default_rng(5)
    Ws = [rng.standard_normal((3, 2)), rng.standard_normal((2, 4))]
    bs = [rng.standard_normal(3), rng.standard_normal(2)]
    X = rng.standard_normal((2, 2, 4))
    K, beta = ndlinear_matrix([xp.asarray(W) for W in Ws], [xp.asarray(b) for b in bs])
    Kd = K.toarray()
    np.testing.assert_allclose(to_numpy(Kd), np.kron(*Ws), rtol=1e-12)
    Y = ndlinear_apply(xp.asarray(X), [xp.asarray(W) for W in Ws], [xp.asarray(b) for b in bs])
    assert type(Y) is type(xp.asarray(X))
    np.testing.assert_allclose(to_numpy(Y), naive_algorithm1(X, Ws, bs, "outer"), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_numpy(beta), ndlinear_bias(Ws, bs), rtol=1e-12)
    dottest(K, rng=4)


@st.composite
def _step_case(draw):
    N = draw(st.integers(1, 3))
    D = tuple(draw(st.integers(1, 3)) for _ in range(N))
    k = draw(st.integers(0, N - 1))
    Hk = draw(st.integers(1, 3))
    W = np.array(draw(st.lists(st.integers(-5, 5), min_size=Hk * D[k], max_size=Hk * D[k])), dtype=float).reshape(Hk, D[k])
    b = np.array(draw(st.lists(st.integers(-5, 5), min_size=Hk, max_size=Hk)), dtype=float)
    return D, k, W, b


@given(_step_case())
def test_ndlinear_apply_step_equals_mode_product_entry_rule(case):
    """One mode product of ndlinear_apply (identity on the other modes) equals the scalar entry rule
    mode_product_entry / mode_bias_entry that isomat.proofs.reneau2025 proves equal to I_P ⊗ W_k ⊗ I_Q."""
    from isomat.algebra.ndlinear import mode_bias_entry, mode_product_entry

    D, k, W, b = case
    N, Hk = len(D), W.shape[0]
    ws = [np.eye(d) for d in D]
    ws[k] = W
    bs = [None] * N
    bs[k] = b
    P, Q = math.prod(D[:k]), math.prod(D[k + 1:])
    n_in, n_out = P * D[k] * Q, P * Hk * Q
    # columns of the step's matrix: apply it (without bias) to the unit vectors
    E = np.eye(n_in).reshape(n_in, *D)
    M = ndlinear_apply(E, ws).reshape(n_in, n_out).T
    o, i = np.indices((n_out, n_in))
    rule = mode_product_entry(o, i, P, D[k], Hk, Q, lambda h, d: W[h, d])
    np.testing.assert_array_equal(M, rule)
    beta = ndlinear_apply(np.zeros((1, *D)), ws, bs).reshape(-1)
    np.testing.assert_array_equal(beta, mode_bias_entry(np.arange(n_out), Hk, Q, lambda h: b[h]))
