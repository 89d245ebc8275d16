"""isomat.algebra.stp against naive Kronecker formulas (cheng2025 eqs. 12-19, 23, 61-63) and the
STP toolbox identities. References use np.kron / sympy.kronecker_product only."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import (
    block_transpose, bridge, bridge_weighted, column_stack, column_unstack, dist_v, dk_stp, dk_stp_weighted,
    front_maintaining, inner_v, nominal_add, norm_v, power_reducing_matrix, project, projection,
    rear_maintaining, retriever, row_stack, row_unstack, sta, sta_sub, stp, stp_chain, stp_right, swap_matrix,
)
from isomat.testing import assert_matches_dense, dottest
from isomat.testing.strategies import stp_dims

from .conftest import to_host

# dimension pairs: coprime, divisible, general
pairs = stp_dims(max_dim=9, max_ratio=4, relations=("coprime", "divisible", "any"))


def kstp(A, B):
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    return np.kron(A, np.eye(t // n)) @ np.kron(B, np.eye(t // p))


def kstp_right(A, B):
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    return np.kron(np.eye(t // n), A) @ np.kron(np.eye(t // p), B)


def kdk(A, B, weighted=False):
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    out = np.kron(A, np.ones((1, t // n))) @ np.kron(B, np.ones((t // p, 1)))
    return out / (t // p) if weighted else out


def kpsi(n, p):
    t = math.lcm(n, p)
    return np.kron(np.eye(n), np.ones((1, t // n))) @ np.kron(np.eye(p), np.ones((t // p, 1)))


def rng_for(*args):
    return np.random.default_rng(abs(hash(args)) % 2**32)


@given(pairs, st.integers(1, 4), st.integers(1, 4))
def test_stp_left_and_right_match_kronecker(np_, m, q):
    n, p = np_
    rng = rng_for(n, p, m, q)
    A, B = rng.standard_normal((m, n)), rng.standard_normal((p, q))
    np.testing.assert_allclose(stp(A, B), kstp(A, B), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(stp_right(A, B), kstp_right(A, B), rtol=1e-12, atol=1e-12)


@given(pairs, st.integers(1, 3), st.integers(1, 3))
def test_stp_exact(np_, m, q):
    n, p = np_
    rng = rng_for(n, p, m, q, "x")
    A = sympy.Matrix(rng.integers(-5, 6, (m, n)).tolist()) / 3
    B = sympy.Matrix(rng.integers(-5, 6, (p, q)).tolist())
    t = math.lcm(n, p)
    ref = sympy.kronecker_product(A, sympy.eye(t // n)) * sympy.kronecker_product(B, sympy.eye(t // p))
    out = stp(A, B)
    assert isinstance(out, sympy.MatrixBase) and out == ref


def test_stp_chain_and_ordinary_product():
    rng = np.random.default_rng(0)
    A, B, C = rng.standard_normal((2, 4)), rng.standard_normal((6, 3)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(stp_chain(A, B, C), kstp(kstp(A, B), C), rtol=1e-12)
    D = rng.standard_normal((4, 3))
    np.testing.assert_allclose(stp(A, D), A @ D, rtol=1e-13)
    np.testing.assert_allclose(stp(A, np.arange(2.0)), kstp(A, np.arange(2.0)[:, None]))


@given(pairs, st.integers(1, 4), st.integers(1, 4))
def test_dk_stp_and_bridges_match(np_, m, q):
    n, p = np_
    rng = rng_for(n, p, m, q, "dk")
    A, B = rng.standard_normal((m, n)), rng.standard_normal((p, q))
    np.testing.assert_allclose(dk_stp(A, B), kdk(A, B), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dk_stp_weighted(A, B), kdk(A, B, True), rtol=1e-12, atol=1e-12)
    assert_matches_dense(bridge(n, p), kpsi(n, p))
    assert_matches_dense(bridge_weighted(n, p), kpsi(n, p) * p / math.lcm(n, p))
    assert bridge(n, p).nnz == n + p - math.gcd(n, p)
    dottest(bridge(n, p), rng=n + p)
    dottest(bridge_weighted(n, p), rng=n * p)


def test_fields_agree(field):
    A = np.arange(6.0).reshape(2, 3)
    B = np.arange(8.0).reshape(4, 2)
    if field == "sympy":
        A, B = sympy.Matrix(A.astype(int).tolist()), sympy.Matrix(B.astype(int).tolist())
    elif field == "cupy":
        import cupy

        A, B = cupy.asarray(A), cupy.asarray(B)
    ref_A, ref_B = np.arange(6.0).reshape(2, 3), np.arange(8.0).reshape(4, 2)
    for f, ref in ((stp, kstp), (stp_right, kstp_right), (dk_stp, kdk)):
        out = to_host(f(A, B)).astype(float)
        np.testing.assert_allclose(out, ref(ref_A, ref_B), rtol=1e-12)
    np.testing.assert_allclose(to_host(bridge(3, 4, backend=field)).astype(float), kpsi(3, 4))
    np.testing.assert_allclose(to_host(swap_matrix(2, 3, backend=field)).astype(float), to_host(swap_matrix(2, 3)))


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=9), st.lists(st.integers(-5, 5), min_size=1, max_size=9))
def test_sta_and_v_geometry_exact(xs, ys):
    x, y = sympy.Matrix(xs), sympy.Matrix(ys)
    m, n = len(xs), len(ys)
    t = math.lcm(m, n)
    xe = sympy.kronecker_product(x, sympy.ones(t // m, 1))
    ye = sympy.kronecker_product(y, sympy.ones(t // n, 1))
    assert sta(x, y) == xe + ye and sta_sub(x, y) == xe - ye
    assert inner_v(x, y) == (xe.T * ye)[0, 0] / t
    assert norm_v(x) ** 2 == (x.T * x)[0, 0] / m
    assert sympy.simplify(dist_v(x, y) ** 2 - ((xe - ye).T * (xe - ye))[0, 0] / t) == 0
    for r in (1, 2, 5):
        ref = sympy.Matrix(projection(m, r, backend="sympy")) * x + sympy.Matrix(projection(n, r, backend="sympy")) * y
        assert nominal_add(x, y, r) == ref


@given(pairs, st.integers(1, 3))
def test_project_matrix_free(mn, k):
    m, n = mn
    rng = rng_for(m, n, k, "p")
    x = rng.standard_normal(m)
    P = projection(m, n)
    np.testing.assert_allclose(project(x, n), P @ x, rtol=1e-12, atol=1e-12)
    X = rng.standard_normal((m, k))
    np.testing.assert_allclose(project(X, n), P @ X, rtol=1e-12, atol=1e-12)
    dottest(P, rng=1, matvec=lambda v: project(v, n), rmatvec=lambda v: P.T @ v)


def test_project_exact_and_huge_lcm():
    assert project(sympy.Matrix([1, 2, 3]), 2) == sympy.Matrix([sympy.Rational(4, 3), sympy.Rational(8, 3)])
    x = np.ones(999_983)
    y = project(x, 1_000_003)  # lcm ~ 1e12: never formed
    np.testing.assert_allclose(y, 1.0, rtol=1e-9)
    A = np.ones((1, 999_983))
    B = np.ones((1_000_003, 1))
    assert abs(dk_stp(A, B)[0, 0] / kpsi_sum(999_983, 1_000_003) - 1) < 1e-9


def kpsi_sum(n, p):
    return math.lcm(n, p)  # 1ᵀ Ψ 1 = t (each of the t shared indices counted once)


@given(st.integers(1, 6), st.integers(1, 6))
def test_swap_matrix(m, n):
    W = swap_matrix(m, n)
    rng = rng_for(m, n, "w")
    x, y = rng.standard_normal(m), rng.standard_normal(n)
    np.testing.assert_allclose(W @ np.kron(x, y), np.kron(y, x), rtol=1e-14)
    assert_matches_dense(W.T, swap_matrix(n, m).toarray())
    dottest(W, rng=m + n)
    Ws = sympy.Matrix(swap_matrix(m, n, backend="sympy"))
    assert Ws * Ws.T == sympy.eye(m * n)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_power_reducing_and_dummy_operators(k):
    Mr = power_reducing_matrix(k)
    E = np.eye(k)
    for i in range(k):
        np.testing.assert_array_equal(Mr @ E[i], np.kron(E[i], E[i]))
        for j in range(k):
            np.testing.assert_array_equal(front_maintaining(k) @ np.kron(E[i], E[j]), E[i])
            np.testing.assert_array_equal(rear_maintaining(k) @ np.kron(E[i], E[j]), E[j])
    dottest(Mr)
    assert front_maintaining(2).toarray().tolist() == [[1, 1, 0, 0], [0, 0, 1, 1]]
    assert rear_maintaining(2).toarray().tolist() == [[1, 0, 1, 0], [0, 1, 0, 1]]


def test_retriever():
    dims = [2, 3, 2]
    E = [np.eye(d) for d in dims]
    for a in range(2):
        for b in range(3):
            for c in range(2):
                x = np.kron(np.kron(E[0][a], E[1][b]), E[2][c])
                for i, want in enumerate((E[0][a], E[1][b], E[2][c]), 1):
                    np.testing.assert_array_equal(retriever(dims, i) @ x, want)
    dottest(retriever(dims, 2))


@given(st.integers(1, 5), st.integers(1, 5))
def test_stacking_roundtrip(m, n):
    A = np.arange(m * n, dtype=float).reshape(m, n)
    np.testing.assert_array_equal(column_stack(A).ravel(), A.ravel(order="F"))
    np.testing.assert_array_equal(row_stack(A).ravel(), A.ravel())
    np.testing.assert_array_equal(column_unstack(column_stack(A), m, n), A)
    np.testing.assert_array_equal(row_unstack(row_stack(A), m, n), A)
    S = sympy.Matrix(A.astype(int).tolist())
    assert column_unstack(column_stack(S), m, n) == S


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_block_transpose(p, q, bi, bj):
    A = np.arange(p * bi * q * bj, dtype=float).reshape(p * bi, q * bj)
    B = block_transpose(A, p, q)
    for i in range(bi):
        for j in range(bj):
            np.testing.assert_array_equal(B[j * p:(j + 1) * p, i * q:(i + 1) * q], A[i * p:(i + 1) * p, j * q:(j + 1) * q])


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: stp(np.eye(2), "abc"), TypeError, "B must be a matrix"),
        (lambda: stp(np.zeros((0, 3)), np.eye(2)), ValueError, "A must be a non-empty matrix"),
        (lambda: stp(np.zeros((2, 2, 2)), np.eye(2)), ValueError, "A must be a non-empty matrix"),
        (lambda: stp_chain(), ValueError, "at least one factor"),
        (lambda: bridge(0, 2), ValueError, "n must be a positive integer, got 0"),
        (lambda: bridge(2, 1.5), TypeError, "p must be an integer"),
        (lambda: swap_matrix(2.5), TypeError, "m must be an integer"),
        (lambda: sta(np.ones(2), None), TypeError, "y must be a matrix or vector"),
        (lambda: inner_v(np.ones((2, 2)), np.ones(2)), ValueError, "x must be a non-empty vector"),
        (lambda: nominal_add(np.ones(2), np.ones(3), 0), ValueError, "r must be a positive integer, got 0"),
        (lambda: row_unstack(np.ones(5), 2, 3), ValueError, "v must have m\\*n = 6 entries"),
        (lambda: block_transpose(np.ones((3, 4)), 2, 2), ValueError, "does not split into blocks"),
        (lambda: retriever([2, 2], 3), ValueError, "i must be in \\[1, 2\\]"),
        (lambda: retriever(2, 1), TypeError, "dims must be a sequence"),
        (lambda: project(np.ones(3), 0), ValueError, "n must be a positive integer"),
        (lambda: power_reducing_matrix(2, backend="torch"), ValueError, "backend must be one of"),
    ],
)
def test_bad_arguments(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_memory_bound():
    with isomat.memory_limit(10_000):
        with pytest.raises(isomat.SizeLimitError, match="stp"):
            stp(np.ones((50, 7)), np.ones((11, 50)))
        with pytest.raises(isomat.SizeLimitError):
            swap_matrix(100, 100)


def _pattern(M):
    """(row, col) pairs of the 1s of a 0/1 sparse matrix, with every stored value checked to be 1."""
    C = M.tocoo()
    assert np.all(C.data == 1)
    return set(zip(C.row.tolist(), C.col.tolist()))


@given(st.integers(1, 12), st.integers(1, 12))
def test_swap_and_power_reducing_equal_their_entry_rules(m, n):
    """The builders equal the scalar entry rules that cheng2025's proofs quantify over."""
    from isomat.algebra.stp import power_reducing_row, swap_row

    assert _pattern(swap_matrix(m, n)) == {(swap_row(k, m, n), k) for k in range(m * n)}
    assert _pattern(power_reducing_matrix(m)) == {(power_reducing_row(c, m), c) for c in range(m)}


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_retriever_and_dummies_equal_their_entry_rule(dims, data):
    from isomat.algebra.stp import retriever_entry

    i = data.draw(st.integers(1, len(dims)))
    size, after = dims[i - 1], math.prod(dims[i:])
    S = retriever(dims, i)
    assert S.shape == (size, math.prod(dims))
    assert _pattern(S) == {(r, c) for r in range(size) for c in range(S.shape[1]) if retriever_entry(r, c, size, after)}
    p, q = dims[0], dims[-1]
    assert _pattern(front_maintaining(p, q)) == {(r, c) for r in range(p) for c in range(p * q) if retriever_entry(r, c, p, q)}
    assert _pattern(rear_maintaining(p, q)) == {(r, c) for r in range(q) for c in range(p * q) if retriever_entry(r, c, q, 1)}


def test_swap_and_power_reducing_builders_are_driven_by_their_entry_rules(monkeypatch):
    """One source of truth: swap_matrix and power_reducing_matrix place their ones where the proved entry rules
    say -- a changed rule changes the builder (cupy and sympy fields take the same host indices)."""
    import importlib

    stp_mod = importlib.import_module("isomat.algebra.stp")
    W = stp_mod.swap_matrix(3, 4, backend="sympy")
    assert all(W[stp_mod.swap_row(k, 3, 4), k] == 1 for k in range(12))
    monkeypatch.setattr(stp_mod, "swap_row", lambda k, m, n: k)
    assert (stp_mod.swap_matrix(3, 4).toarray() == np.eye(12)).all()
    monkeypatch.setattr(stp_mod, "power_reducing_row", lambda c, k: c)
    assert stp_mod.power_reducing_matrix(3).toarray()[:3].tolist() == np.eye(3).tolist()
