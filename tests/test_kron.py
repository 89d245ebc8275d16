"""kron / kron_operator against np.kron and sympy.kronecker_product."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from isomat.algebra import kron
from isomat.testing import assert_matches_dense, dottest
from isomat.testing.strategies import float_matrices, kron_shapes

mats = float_matrices(max_rows=4, max_cols=4, elements=(0.0, 1.0, -2.0, 0.5, 3.0))


@given(mats, mats, mats)
def test_matches_np_kron(A, B, C):
    K = kron(A, B, C)
    assert_matches_dense(K, np.kron(np.kron(A, B), C))
    dottest(K, rng=1)


def test_exact_symbolic():
    a, b, c = sympy.symbols("a b c")
    A = sympy.Matrix([[a, 0], [1, b]])
    B = sympy.Matrix([[c, 2, 0]])
    assert kron(A, B) == sympy.kronecker_product(A, B)


def test_row_major_vec_identity():
    # conventions.md: vec_C(A X B) = (A ⊗ Bᵀ) vec_C(X)
    rng = np.random.default_rng(0)
    A, X, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(kron(A, B.T) @ X.ravel(), (A @ X @ B).ravel(), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Kronecker factorization: rearrangement, nearest Kronecker product, rank, exact recovery
# ---------------------------------------------------------------------------------------------
import pytest  # noqa: E402

from isomat.algebra import (  # noqa: E402
    is_kronecker,
    kron_rearrange,
    kronecker_factors,
    kronecker_rank,
    nearest_kronecker,
)

small = st.tuples(st.integers(1, 3), st.integers(1, 3))
ints = st.integers(-4, 4)


def _int_mat(shape):
    return arrays(np.int64, shape, elements=ints)


def _naive_rearrange(W, sa, sb):
    """R[i1*n1 + j1, i2*n2 + j2] = W[i1*m2 + i2, j1*n2 + j2], by loops."""
    (m1, n1), (m2, n2) = sa, sb
    R = np.zeros((m1 * n1, m2 * n2), dtype=W.dtype)
    for i1 in range(m1):
        for j1 in range(n1):
            for i2 in range(m2):
                for j2 in range(n2):
                    R[i1 * n1 + j1, i2 * n2 + j2] = W[i1 * m2 + i2, j1 * n2 + j2]
    return R


@given(small.flatmap(lambda s: st.tuples(st.just(s), _int_mat(s))), small.flatmap(lambda s: st.tuples(st.just(s), _int_mat(s))))
def test_rearrangement_of_kron_is_rank_one_outer(a, b):
    (sa, A), (sb, B) = a, b
    W = np.kron(A, B).astype(float)
    R = kron_rearrange(W, sa, sb)
    np.testing.assert_array_equal(R, _naive_rearrange(W, sa, sb))
    np.testing.assert_array_equal(R, np.outer(A.ravel(), B.ravel()))
    exact = kron_rearrange(sympy.Matrix(np.kron(A, B).tolist()), sa, sb)
    assert exact == sympy.Matrix(np.outer(A.ravel(), B.ravel()).tolist())


@given(st.tuples(small, small, st.integers(0, 2**32 - 1)))
def test_nearest_kronecker_is_optimal(case):
    sa, sb, seed = case
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((sa[0] * sb[0], sa[1] * sb[1]))
    A, B, res = nearest_kronecker(W, sa, sb)
    assert A.shape == sa and B.shape == sb
    np.testing.assert_allclose(res, np.linalg.norm(W - np.kron(A, B)), rtol=1e-9, atol=1e-12)
    # no competitor does better: random factors, and perturbations of the optimum
    for _ in range(5):
        A2 = A + 0.1 * rng.standard_normal(sa)
        B2 = B + 0.1 * rng.standard_normal(sb)
        assert np.linalg.norm(W - np.kron(A2, B2)) >= res - 1e-12
    # an exact product is recovered with zero residual
    A0, B0 = rng.standard_normal(sa), rng.standard_normal(sb)
    A1, B1, r1 = nearest_kronecker(np.kron(A0, B0), sa, sb)
    np.testing.assert_allclose(np.kron(A1, B1), np.kron(A0, B0), atol=1e-12)
    assert r1 < 1e-12


@given(st.tuples(small, small, st.integers(1, 3), st.integers(0, 2**32 - 1)))
def test_kronecker_rank_of_generic_sums(case):
    sa, sb, r, seed = case
    rng = np.random.default_rng(seed)
    terms = [(rng.integers(-5, 6, sa), rng.integers(-5, 6, sb)) for _ in range(r)]
    W = sum(np.kron(A, B) for A, B in terms)
    U = np.array([A.ravel() for A, _ in terms]).T
    V = np.array([B.ravel() for _, B in terms]).T
    expect = int((sympy.Matrix(U.tolist()) * sympy.Matrix(V.tolist()).T).rank())  # rank of sum_i vec(A_i) vec(B_i)^T
    assert kronecker_rank(sympy.Matrix(W.tolist()), sa, sb) == expect  # exact
    assert kronecker_rank(W.astype(float), sa, sb) == expect  # float, default tolerance
    assert is_kronecker(sympy.Matrix(W.tolist()), sa, sb) == (expect <= 1)


def test_exact_detection_is_exact():
    # a Kronecker product plus a perturbation far below any float tolerance is *not* Kronecker
    A = sympy.Matrix([[1, 2], [3, 4]])
    B = sympy.Matrix([[1, -1], [2, 5]])
    W = sympy.kronecker_product(A, B)
    assert is_kronecker(W, (2, 2), (2, 2))
    W2 = sympy.Matrix(W)
    W2[0, 0] += sympy.Rational(1, 10**30)
    assert not is_kronecker(W2, (2, 2), (2, 2))
    assert kronecker_rank(W2, (2, 2), (2, 2)) == 2
    assert is_kronecker(np.array(W2.tolist(), dtype=float), (2, 2), (2, 2))  # float cannot see it


@given(kron_shapes(min_factors=1, max_factors=3, max_side=3), st.integers(0, 2**32 - 1))
def test_kronecker_factors_recover_n_factors(shapes, seed):
    rng = np.random.default_rng(seed)
    Fs = [rng.integers(1, 5, s) * rng.choice([-1, 1], s) for s in shapes]
    W = Fs[0]
    for F in Fs[1:]:
        W = np.kron(W, F)
    got = kronecker_factors(W.astype(float), shapes)
    K = got[0]
    for F in got[1:]:
        K = np.kron(K, F)
    np.testing.assert_allclose(K, W, rtol=1e-10, atol=1e-10)
    exact = kronecker_factors(sympy.Matrix(W.tolist()), shapes)
    Ke = exact[0]
    for F in exact[1:]:
        Ke = sympy.kronecker_product(Ke, F)
    assert Ke == sympy.Matrix(W.tolist())
    for F, s in zip(exact, shapes):
        assert F.shape == tuple(s)


def test_symbolic_factors():
    a = sympy.symbols("a0:4")
    b = sympy.symbols("b0:2")
    A, B = sympy.Matrix(2, 2, a), sympy.Matrix(1, 2, b)
    W = sympy.kronecker_product(A, B)
    F1, F2 = kronecker_factors(W, [(2, 2), (1, 2)])
    assert (sympy.kronecker_product(F1, F2) - W).applyfunc(sympy.simplify).is_zero_matrix


def test_factorization_errors():
    W = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match=r"W must have shape .*\(4, 4\).*got \(3, 4\)"):
        kron_rearrange(W, (2, 2), (2, 2))
    with pytest.raises(TypeError, match="shape_a must be a tuple"):
        nearest_kronecker(W, 3, (1, 1))
    with pytest.raises(ValueError, match="shape_b must have 2 entries"):
        kronecker_rank(W, (3, 4), (1, 1, 1))
    with pytest.raises(ValueError, match="shape_a\\[0\\] must be a positive integer"):
        is_kronecker(W, (0, 4), (1, 1))
    with pytest.raises(ValueError, match="not a Kronecker product"):
        kronecker_factors(np.random.default_rng(0).standard_normal((4, 4)), [(2, 2), (2, 2)])
    with pytest.raises(ValueError, match="not a Kronecker product"):
        kronecker_factors(sympy.Matrix([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]), [(2, 2), (2, 2)])
    with pytest.raises(ValueError, match="not rational"):
        nearest_kronecker(sympy.Matrix([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]), (2, 2), (2, 2))
    with pytest.raises(TypeError, match="shapes must be a non-empty sequence"):
        kronecker_factors(W, [])
    with pytest.raises(ValueError, match="W must be a matrix"):
        kron_rearrange(np.zeros((2, 2, 2)), (1, 1), (2, 2))


def test_factorization_float_fields(float_field):
    from isomat.algebra._backend import array_module, to_numpy

    xp = array_module(float_field)
    if not hasattr(xp, "linalg"):
        pytest.skip("the CuPy stand-in has no cupy.linalg (real CuPy has cupy.linalg.svd)")
    rng = np.random.default_rng(7)
    A0, B0 = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    W = xp.asarray(np.kron(A0, B0))
    A, B, res = nearest_kronecker(W, (2, 3), (3, 2))
    assert type(A) is type(W)
    np.testing.assert_allclose(np.kron(to_numpy(A), to_numpy(B)), np.kron(A0, B0), atol=1e-12)
    assert res < 1e-12
    assert kronecker_rank(W, (2, 3), (3, 2)) == 1
    F = kronecker_factors(W, [(2, 3), (3, 2)])
    np.testing.assert_allclose(np.kron(to_numpy(F[0]), to_numpy(F[1])), np.kron(A0, B0), atol=1e-12)


@given(mats, mats)
def test_kron_operator_equals_kron_entry_rule(A, B):
    """kron_operator (vectorized) equals its scalar entry rule kron_entry, the function the reneau2025 proofs use."""
    from isomat.algebra.kron import kron_entry

    K = np.asarray(kron(A, B).toarray())
    rows, cols = np.indices(K.shape)
    rule = kron_entry(rows, cols, lambda i, j: A[i, j], lambda i, j: B[i, j], B.shape)
    np.testing.assert_array_equal(K, rule)
    # scalar calls agree with the array call
    r, c = K.shape[0] - 1, K.shape[1] - 1
    assert kron_entry(r, c, lambda i, j: A[i, j], lambda i, j: B[i, j], B.shape) == rule[r, c]


@given(mats, mats, mats)
def test_nested_kron_entry_rule_three_factors(A, B, C):
    from isomat.algebra.kron import kron_entry

    K = np.asarray(kron(A, B, C).toarray())
    rows, cols = np.indices(K.shape)
    bc = lambda i, j: kron_entry(i, j, lambda x, y: B[x, y], lambda x, y: C[x, y], C.shape)
    rule = kron_entry(rows, cols, lambda i, j: A[i, j], bc, (B.shape[0] * C.shape[0], B.shape[1] * C.shape[1]))
    np.testing.assert_array_equal(K, rule)


@given(mats, mats)
def test_kron_rearrange_equals_entry_rule(A, B):
    from isomat.algebra.kron import kron_rearrange, kron_rearrange_entry

    W = np.kron(A, B) + np.arange(A.shape[0] * B.shape[0] * A.shape[1] * B.shape[1]).reshape(
        A.shape[0] * B.shape[0], A.shape[1] * B.shape[1])  # any W of the right shape
    R = np.asarray(kron_rearrange(W, A.shape, B.shape))
    r, c = np.indices(R.shape)
    np.testing.assert_array_equal(R, kron_rearrange_entry(r, c, lambda i, j: W[i, j], A.shape, B.shape))


def test_kronecker_factors_bounds_the_svd_of_its_largest_split():
    """The memory estimate counts the SVD of the rearrangement, whose shape the factor shapes set: a 1 x 10^4 W split
    into two 1 x 100 factors has a 100 x 100 rearrangement (the estimate from W's own shape counted a 1 x 10^4 SVD:
    U, Vt of 1 row, 240 kB in all here, where the split's U and Vt need 480 kB more)."""
    from isomat import memory_limit
    from isomat.algebra.kron import kronecker_factors
    from isomat.errors import SizeLimitError

    a, b = np.arange(1.0, 101.0).reshape(1, 100), np.linspace(-1.0, 2.0, 100).reshape(1, 100)
    W = np.kron(a, b)
    with memory_limit(400_000):
        with pytest.raises(SizeLimitError, match="kronecker_factors: .*and SVD"):
            kronecker_factors(W, [(1, 100), (1, 100)])
    with memory_limit(10**6):
        F1, F2 = kronecker_factors(W, [(1, 100), (1, 100)])
    np.testing.assert_allclose(np.kron(F1, F2), W, rtol=1e-12, atol=1e-12)


def test_a_ragged_list_is_refused_naming_the_argument():
    from isomat.algebra.kron import kron_operator, kron_rearrange

    with pytest.raises(ValueError, match=r"^W must be a rectangular array of numbers"):
        kron_rearrange([[1.0, 2.0], [3.0]], (1, 1), (2, 1))
    with pytest.raises(ValueError, match=r"^factors\[1\] must be a rectangular array"):
        kron_operator(np.eye(2), [[1.0, 2.0], [3.0]])
