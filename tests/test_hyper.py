"""isomat.algebra.hyper: hypervectors, ⋄, padding and the dimension-free transformer pieces
(cheng2025 §IV-§VI), against references written with np.kron / dense projection matrices."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from scipy.linalg import block_diag

from isomat.algebra import (
    Hypervector, assembled_attention, attention_scores, df_add, df_attention, df_attention_general,
    df_feed_forward, diamond, diamond_matrix, factor_product_form, hv_inner, hv_inner_weighted, hv_nominal_add,
    hv_nominal_add_r, project_pad, project_padding_linear, project_rows, truncate_rows, zero_pad,
    zero_padding_linear,
)
from isomat.testing import dottest

dims_st = st.lists(st.integers(1, 6), min_size=1, max_size=4)


def kproj(m, n):
    t = math.lcm(m, n)
    return (n / t) * np.kron(np.eye(n), np.ones((1, t // n))) @ np.kron(np.eye(m), np.ones((t // m, 1)))


def hv(dims, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n) for n in dims]


@given(dims_st)
def test_forms(dims):
    X = Hypervector(hv(dims))
    assert X.dims == tuple(dims) and len(X) == len(dims)
    np.testing.assert_allclose(X.addition_form(), np.concatenate(X.values()))
    ref = X.values()[0]
    for v in X.values()[1:]:
        ref = np.kron(ref, v)
    np.testing.assert_allclose(X.product_form(), ref, rtol=1e-13)
    Y = Hypervector.from_addition_form(X.addition_form(), dims)
    assert all(np.array_equal(a, b) for a, b in zip(X.values(), Y.values()))
    assert [len(r) for r in X.pseudo_matrix()] == list(dims)


@given(dims_st)
def test_factor_product_form(dims):
    rng = np.random.default_rng(sum(dims))
    xs = [rng.random(n) + 0.1 for n in dims]
    X = Hypervector(xs)
    F, c = factor_product_form(X.product_form(), dims)
    for f, x in zip(F.values(), xs):
        np.testing.assert_allclose(f, x / x.sum(), rtol=1e-10)
    np.testing.assert_allclose(c, np.prod([x.sum() for x in xs]), rtol=1e-10)


def test_factor_product_form_exact_and_errors():
    X = Hypervector([sympy.Matrix([1, 2]), sympy.Matrix([3, 0, 1])])
    F, c = factor_product_form(X.product_form(), (2, 3))
    assert list(F[0]) == [sympy.Rational(1, 3), sympy.Rational(2, 3)] and c == 12
    with pytest.raises(ValueError, match="not a product form"):
        factor_product_form(np.array([1.0, 0, 0, 1]), (2, 2))
    with pytest.raises(ValueError, match="x is zero"):
        factor_product_form(np.zeros(4), (2, 2))
    with pytest.raises(ValueError, match="need their product 4"):
        factor_product_form(np.ones(5), (2, 2))


@given(dims_st)
def test_padding(dims):
    X = hv(dims, 1)
    d = max(dims) + 2
    Z = zero_pad(X, d)
    for i, x in enumerate(X):
        np.testing.assert_array_equal(Z[i, : len(x)], x)
        assert not Z[i, len(x):].any()
    P = project_pad(X, d)
    for i, x in enumerate(X):
        np.testing.assert_allclose(P[i], kproj(len(x), d) @ x, rtol=1e-12, atol=1e-12)
    back = project_rows(P, dims)
    for b, x in zip(back.values(), X):
        np.testing.assert_allclose(b, kproj(d, len(x)) @ kproj(len(x), d) @ x, rtol=1e-12, atol=1e-12)
    assert truncate_rows(Z, dims).dims == tuple(dims)


@given(dims_st)
def test_diamond_steps_equal_matrix(dims):
    s, n0 = len(dims), max(dims)
    rng = np.random.default_rng(len(dims) * 31 + sum(dims))
    A = rng.standard_normal((s, s))
    X = hv(dims, 2)
    M = diamond_matrix(A, dims)
    ref = block_diag(*[kproj(n0, n) for n in dims]) @ np.kron(A, np.eye(n0)) @ block_diag(*[kproj(n, n0) for n in dims])
    np.testing.assert_allclose(M.toarray(), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M @ np.concatenate(X), np.concatenate(diamond(A, X).values()), rtol=1e-12, atol=1e-12)
    dottest(M, rng=s)


def test_diamond_exact_example_4_15():
    x = sympy.symbols("a b c d e")
    W = sympy.Matrix(2, 2, sympy.symbols("w11 w12 w21 w22"))
    X = [sympy.Matrix(x[:2]), sympy.Matrix(x[2:])]
    D = diamond(W, X)
    M = diamond_matrix(W, (2, 3))
    assert isinstance(M, sympy.SparseMatrix)
    assert ((M * sympy.Matrix(x)) - sympy.Matrix.vstack(*list(D))).expand().is_zero_matrix


@given(dims_st, dims_st)
def test_inner_products(dx, dy):
    X, Y = hv(dx, 3), hv(dy, 4)
    G = hv_inner(X, Y)
    for i, x in enumerate(X):
        for j, y in enumerate(Y):
            t = math.lcm(len(x), len(y))
            ref = np.kron(x, np.ones(t // len(x))) @ np.kron(y, np.ones(t // len(y))) / t
            assert abs(G[i, j] - ref) < 1e-12
            assert abs(hv_inner_weighted(X, Y)[i, j] - ref * math.sqrt(t)) < 1e-11


def test_nominal_additions_and_df_add():
    X, Y = hv((2, 3), 5), hv((4, 1, 2), 6)
    M = hv_nominal_add(X, Y, 3)
    assert M.shape == (6, 3)
    np.testing.assert_allclose(M[2], kproj(2, 3) @ X[0] + kproj(1, 3) @ Y[1])  # X ⊗ 1_3, Y ⊗ 1_2 (eq. 66)
    Z = hv_nominal_add_r(X, Y[:2], (2, 5))
    np.testing.assert_allclose(Z.values()[1], kproj(3, 5) @ X[1] + kproj(1, 5) @ Y[1])
    F = df_add(X, Y[:2])
    np.testing.assert_allclose(F.values()[0], kproj(2, 4) @ X[0] + Y[0])


def test_padding_algorithms_homogeneous_reduce_to_matmul():
    rng = np.random.default_rng(7)
    W, X = rng.standard_normal((4, 4)), [rng.standard_normal(4) for _ in range(3)]
    ref = (W @ np.stack(X).T).T
    for out in (zero_padding_linear(W, X, (4, 4, 4)), project_padding_linear(W, X, (4, 4, 4))):
        np.testing.assert_allclose(np.stack(out.values()), ref, rtol=1e-12)


def test_attention_pieces():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    Q, K, V = (rng.standard_normal((3, 4)) for _ in range(3))
    A = attention_scores(list(Q), list(K))
    ref = torch.softmax(torch.tensor(Q @ K.T / 2.0), dim=1).numpy()
    np.testing.assert_allclose(A, ref, rtol=1e-12)
    out = df_attention(list(Q), list(K), list(V))
    np.testing.assert_allclose(np.stack(out.values()), ref @ V, rtol=1e-12)
    g = df_attention_general(list(Q), list(K), list(V))
    np.testing.assert_allclose(np.stack(g.values()), ref @ V, rtol=1e-12)
    Xr = hv((2, 3, 5), 9)
    assert df_attention(Xr, Xr, Xr).dims == (2, 3, 5)
    assert df_feed_forward(Xr, np.eye(3), Xr, np.eye(3), Xr).dims == (2, 3, 5)
    S = assembled_attention(Q, np.eye(4), np.eye(4), np.eye(4))
    np.testing.assert_allclose(S.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: Hypervector([]), TypeError, "non-empty sequence"),
        (lambda: Hypervector("abc"), TypeError, "non-empty sequence"),
        (lambda: zero_pad(hv((2, 5)), 3), ValueError, "d >= every n_i"),
        (lambda: diamond(np.eye(3), hv((2, 3))), ValueError, "A must have s = 2 columns"),
        (lambda: diamond(np.ones((3, 2)), hv((2, 3))), ValueError, "give out_dims"),
        (lambda: diamond_matrix(np.eye(2), (2, 3, 4)), ValueError, "A must be s x s = 3x3"),
        (lambda: project_rows(np.ones((2, 3)), (1, 2, 3)), ValueError, "one size per row"),
        (lambda: zero_padding_linear(np.ones((2, 3)), hv((2,)), (2,)), ValueError, "W must be square"),
        (lambda: hv_nominal_add_r(hv((2,)), hv((2, 3)), (2,)), ValueError, "equal lengths"),
        (lambda: df_add(hv((2,)), 5), TypeError, "F must be a Hypervector"),
        (lambda: Hypervector.from_addition_form(np.ones(4), (2, 3)), ValueError, "need 5"),
    ],
)
def test_bad_arguments(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_concat_heads_and_weights():
    from isomat.algebra import df_concat

    H1, H2 = hv((2, 3), 11), hv((4, 1), 12)
    out = df_concat([H1, H2], (3, 2))
    np.testing.assert_allclose(out.values()[0], kproj(2, 3) @ H1[0] + kproj(4, 3) @ H2[0], rtol=1e-12)
    np.testing.assert_allclose(out.values()[1], kproj(3, 2) @ H1[1] + kproj(1, 2) @ H2[1], rtol=1e-12)
    w = df_concat([H1, H2], (3, 2), weights=[0.25, 0.75])
    np.testing.assert_allclose(w.values()[1], 0.25 * kproj(3, 2) @ H1[1] + 0.75 * kproj(1, 2) @ H2[1], rtol=1e-12)
    with pytest.raises(ValueError, match="one entry per head"):
        df_concat([H1, H2], (3, 2), weights=[1.0])
    with pytest.raises(ValueError, match="every head must have s = 3 vectors"):
        df_concat([H1, H2], (3, 2, 1))


def test_project_exact_matrix_columns():
    from isomat.algebra import project, projection

    X = sympy.Matrix([[1, 2], [3, 4], [5, 6]])
    assert project(X, 2) == sympy.Matrix(projection(3, 2, backend="sympy")) * X
    assert project(X, 6) == sympy.Matrix(projection(3, 6, backend="sympy")) * X


def test_float_fields_project_and_diamond(float_field):
    """The GPU code path (CuPy stand-in on the CPU when no device) gives the NumPy results."""
    from isomat.algebra import dk_stp, project, stp

    from .conftest import to_host

    rng = np.random.default_rng(21)
    A, B, x = rng.standard_normal((3, 4)), rng.standard_normal((6, 2)), rng.standard_normal(5)
    X = hv((2, 3, 4), 22)
    W = rng.standard_normal((3, 3))
    ref = (stp(A, B), dk_stp(A, B), project(x, 3), np.concatenate(diamond(W, X).values()))
    if float_field == "cupy":
        import cupy

        A, B, x, W = (cupy.asarray(v) for v in (A, B, x, W))
        X = [cupy.asarray(v) for v in X]
    got = (stp(A, B), dk_stp(A, B), project(x, 3), np.concatenate([to_host(v) for v in diamond(W, X).values()]))
    for g, r in zip(got, ref):
        np.testing.assert_allclose(to_host(g), r, rtol=1e-12, atol=1e-12)


def test_an_exact_operand_makes_the_result_exact_from_the_start():
    """A NumPy hypervector met by an exact W or A is made exact before it is padded or projected: projected in floats
    first, the exact result held float roundings of thirds as rationals (705563941621377667/54043195528445952 for
    235/18, the value of Alg. 5.2 computed with the Π of (22) by hand)."""
    from isomat.algebra.hyper import diamond, project_padding_linear, zero_padding_linear

    X_np = [np.array([1, 2]), np.array([4, 5, 6])]
    X_ex = [sympy.Matrix(v.tolist()) for v in X_np]
    W = sympy.Matrix(4, 4, lambda i, j: sympy.Rational(2 + i - j, 1 + i))
    for fn in (project_padding_linear, zero_padding_linear):
        got, want = fn(W, X_np, (3, 1)), fn(W, X_ex, (3, 1))
        assert got.field == "sympy" and [list(v) for v in got.values()] == [list(v) for v in want.values()]
    assert list(project_padding_linear(W, X_np, (3, 1)).values()[1]) == [sympy.Rational(235, 18)]
    A = sympy.Matrix([[sympy.Rational(1, 3), 1], [2, sympy.Rational(1, 7)]])
    assert [list(v) for v in diamond(A, X_np).values()] == [list(v) for v in diamond(A, X_ex).values()]
