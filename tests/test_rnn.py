"""isomat.algebra.rnn against the unrolled recurrence and torch (zhu2025 §4.3, Thm 4.2)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import rnn_apply, rnn_matrix, zhu_rnn_main_text
from isomat.testing import dottest


def loop_rnn(U, V, X):
    """h_t = U x_t + V h_{t-1}, h_0 = 0: a loop over time, no isomat code."""
    h = np.zeros(U.shape[0])
    out = []
    for x in X:
        h = U @ x + V @ h
        out.append(h)
    return np.array(out)


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 6), st.integers(0, 999))
def test_matches_recurrence(M, N, T, seed):
    rng = np.random.default_rng(seed)
    U, V, X = rng.standard_normal((M, N)), rng.standard_normal((M, M)) / 2, rng.standard_normal((T, N))
    W = rnn_matrix(U, V, T)
    assert W.shape == (T * M, T * N)
    np.testing.assert_allclose(W @ X.ravel(), loop_rnn(U, V, X).ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rnn_apply(U, V, X), loop_rnn(U, V, X), rtol=1e-12, atol=1e-12)
    dottest(W, rng=seed)
    Wd = W.toarray()
    for t in range(T):  # block lower triangular with diagonal blocks U
        assert np.all(Wd[t * M:(t + 1) * M, (t + 1) * N:] == 0)
        np.testing.assert_array_equal(Wd[t * M:(t + 1) * M, t * N:(t + 1) * N], U)


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5), st.integers(0, 999))
def test_matches_torch_rnn_without_nonlinearity(M, N, T, seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    U, V, X = rng.standard_normal((M, N)), rng.standard_normal((M, M)) / 2, rng.standard_normal((T, N))
    # torch.nn.RNN with relu on inputs that stay linear is not a check of the linear map; use the cell's
    # own linear part: h_t = W_ih x_t + W_hh h_{t-1} via torch matmuls
    h = torch.zeros(M, dtype=torch.float64)
    outs = []
    for x in torch.tensor(X):
        h = torch.tensor(U) @ x + torch.tensor(V) @ h
        outs.append(h)
    ref = torch.stack(outs).numpy()
    np.testing.assert_allclose(rnn_matrix(U, V, T) @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)


def test_tanh_rnn_is_not_tanh_of_the_matrix():
    torch = pytest.importorskip("torch")
    rnn = torch.nn.RNN(1, 1, nonlinearity="tanh", bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.fill_(1.0)
        rnn.weight_hh_l0.fill_(1.0)
    X = np.array([[1.0], [1.0]])
    out = rnn(torch.tensor(X)[None])[0][0].detach().numpy().ravel()
    lin = np.tanh(rnn_matrix(np.ones((1, 1)), np.ones((1, 1)), 2) @ X.ravel())
    assert abs(out[1] - lin[1]) > 1e-3  # σ inside the recurrence (zhu2025 §8), not after W_RNN
    np.testing.assert_allclose(rnn_apply(np.ones((1, 1)), np.ones((1, 1)), X, activation=np.tanh).ravel(), out, rtol=1e-12)


def test_exact_noncommuting_symbolic():
    U = sympy.Matrix(2, 3, sympy.symbols("u0:6"))
    V = sympy.Matrix(2, 2, sympy.symbols("v0:4"))
    W = rnn_matrix(U, V, 3)
    assert isinstance(W, sympy.SparseMatrix) and W.shape == (6, 9)
    assert (W[4:6, 0:3] - V * V * U).expand().is_zero_matrix and (W[2:4, 0:3] - V * U).expand().is_zero_matrix
    X = sympy.Matrix(3, 3, sympy.symbols("x0:9"))
    H = rnn_apply(U, V, X)
    assert (W * X.reshape(9, 1) - sympy.Matrix(H.reshape(-1).tolist())).expand().is_zero_matrix


def test_main_text_form_as_printed():
    a, b = sympy.symbols("a b")
    assert zhu_rnn_main_text(a, b, 3) == sympy.Matrix([[a, 0, 0], [a * b, a, 0], [a * b**2, a * b, a]])
    A = sympy.Matrix(2, 2, sympy.symbols("p0:4"))
    B = sympy.Matrix(2, 2, sympy.symbols("q0:4"))
    W = zhu_rnn_main_text(A, B, 2)
    assert W[2:4, 0:2] == A * B  # the printed order, which differs from the recurrence's B * A
    assert (A * B - B * A).expand() != sympy.zeros(2, 2)


@pytest.mark.parametrize(
    "fn, args, exc, words",
    [
        (rnn_matrix, (np.ones((2, 3)), np.ones((3, 3)), 2), ValueError, "V must be square M x M with M = U.shape"),
        (rnn_matrix, (np.ones((2, 3)), np.ones((2, 2)), 0), ValueError, "steps must be a positive integer, got 0"),
        (rnn_matrix, (np.ones((2, 3, 1)), np.ones((2, 2)), 2), ValueError, "U must be a matrix"),
        (rnn_matrix, (np.ones((2, 3)), np.ones((2, 2)), 2.0), TypeError, "steps must be an integer"),
        (zhu_rnn_main_text, (np.ones((2, 3)), np.ones((2, 2)), 2), ValueError, r"W_xh W_hh\^\(i-j\) is undefined"),
        (rnn_apply, (np.ones((2, 3)), np.ones((2, 2)), np.ones((4, 2))), ValueError, "X must have N = 3 columns"),
    ],
)
def test_bad_arguments(fn, args, exc, words):
    with pytest.raises(exc, match=words):
        fn(*args)


def test_memory_bound():
    with isomat.memory_limit(10_000):
        with pytest.raises(isomat.SizeLimitError, match="rnn_matrix"):
            rnn_matrix(np.ones((8, 8)), np.ones((8, 8)), 40)
