"""isomat.algebra.attention: linearized attention on x⊗x⊗x and the paper's W_SA (zhu2025 §4.4, A.3)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import lift3, linear_attention, linear_attention_matrix, softmax_attention, zhu_a3_output, zhu_w_sa
from isomat.testing import dottest


@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 999))
def test_lifted_operator_matches_direct(T, d, dk, dv, seed):
    rng = np.random.default_rng(seed)
    Wq, Wk, Wv = rng.standard_normal((d, dk)), rng.standard_normal((d, dk)), rng.standard_normal((d, dv))
    X = rng.standard_normal((T, d))
    W3 = linear_attention_matrix(T, Wq, Wk, Wv)
    assert W3.shape == (T * dv, (T * d) ** 3) and W3.nnz <= T * T * d**3 * dv
    ref = (X @ Wq) @ (X @ Wk).T @ (X @ Wv)  # direct formula, no isomat code
    np.testing.assert_allclose(W3 @ lift3(X.ravel()), ref.ravel(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(linear_attention(X, Wq, Wk, Wv), ref, rtol=1e-12, atol=1e-12)
    dottest(W3, rng=seed)


def test_against_torch_without_softmax_and_with():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    T, d = 4, 3
    Wq, Wk, Wv, X = rng.standard_normal((d, d)), rng.standard_normal((d, d)), rng.standard_normal((d, d)), rng.standard_normal((T, d))
    q, k, v = (torch.tensor(X) @ torch.tensor(W) for W in (Wq, Wk, Wv))
    np.testing.assert_allclose(linear_attention_matrix(T, Wq, Wk, Wv) @ lift3(X.ravel()), (q @ k.T @ v).numpy().ravel(), rtol=1e-10)
    ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0].numpy()
    np.testing.assert_allclose(softmax_attention(X, Wq, Wk, Wv), ref, rtol=1e-10)


def test_exact_symbolic():
    T, d = 2, 2
    Wq, Wk, Wv = (sympy.Matrix(d, d, sympy.symbols(f"{c}0:{d * d}")) for c in "qkv")
    X = sympy.Matrix(T, d, sympy.symbols("x0:4"))
    W3 = linear_attention_matrix(T, Wq, Wk, Wv)
    assert isinstance(W3, sympy.SparseMatrix)
    x = list(X.reshape(T * d, 1))
    lifted = sympy.Matrix([a * b * c for a in x for b in x for c in x])
    direct = (X * Wq) * (X * Wk).T * (X * Wv)
    assert (W3 * lifted - direct.reshape(T * d, 1)).expand().is_zero_matrix


@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 999))
def test_printed_w_sa_is_quadratic_not_the_cubic_output(M, N, seed):
    if N > M:
        with pytest.raises(ValueError, match="printed W_SA is undefined"):
            zhu_w_sa(np.ones((M, N)), np.ones((M, N)), np.ones((M, N)))
        return
    rng = np.random.default_rng(seed)
    WQ, WK, WV = (rng.integers(-3, 4, size=(M, N)).astype(float) for _ in range(3))
    x = rng.integers(-3, 4, size=N).astype(float)
    Ws = zhu_w_sa(WQ, WK, WV)
    printed_sum = np.array([sum(WV[m, j] * WK[j, i] * WQ[m, i] * x[i] * x[j] for i in range(N) for j in range(N)) for m in range(M)])
    np.testing.assert_allclose(Ws @ np.kron(x, x), printed_sum, atol=1e-9)
    y = zhu_a3_output(WQ, WK, WV, x)
    np.testing.assert_allclose(y, (WV @ x) * ((WK @ x) @ (WQ @ x)), atol=1e-9)
    np.testing.assert_allclose(zhu_a3_output(WQ, WK, WV, 2 * x), 8 * y, atol=1e-9)  # cubic
    dottest(Ws, rng=seed)


@pytest.mark.parametrize(
    "fn, args, exc, words",
    [
        (linear_attention_matrix, (0, np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))), ValueError, "T must be a positive integer"),
        (linear_attention_matrix, (2, np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 2))), ValueError, "Wk must have the shape of Wq"),
        (linear_attention_matrix, (2, np.ones((2, 2)), np.ones((2, 2)), np.ones((3, 2))), ValueError, "Wv must have d = 2 rows"),
        (linear_attention_matrix, (2, np.ones(2), np.ones((2, 2)), np.ones((2, 2))), ValueError, "Wq must be a non-empty matrix"),
        (zhu_w_sa, (np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 2))), ValueError, "must all be M x N"),
    ],
)
def test_bad_arguments(fn, args, exc, words):
    with pytest.raises(exc, match=words):
        fn(*args)


def test_memory_bound():
    with isomat.memory_limit(10_000):
        with pytest.raises(isomat.SizeLimitError, match="linear_attention_matrix"):
            linear_attention_matrix(8, np.ones((4, 4)), np.ones((4, 4)), np.ones((4, 4)))
