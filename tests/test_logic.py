"""isomat.algebra.logic: structure matrices against truth tables written directly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from isomat.algebra import (
    conjunction, delta_form, disjunction, equivalence, implication, logical_matrix, logical_vector, nand, negation,
    nor, stp, structure_matrix, xor,
)

from .conftest import to_host

TRUTH = {
    conjunction: lambda p, q: p and q, disjunction: lambda p, q: p or q,
    implication: lambda p, q: (not p) or q, equivalence: lambda p, q: p == q,
    xor: lambda p, q: p != q, nand: lambda p, q: not (p and q), nor: lambda p, q: not (p or q),
}


def vec(b):
    return np.array([1.0, 0.0]) if b else np.array([0.0, 1.0])


@pytest.mark.parametrize("op", list(TRUTH), ids=lambda f: f.__name__)
def test_boolean_structure_matrices(op):
    M = op().toarray()
    for p, q in itertools.product((True, False), repeat=2):
        np.testing.assert_array_equal(M @ np.kron(vec(p), vec(q)), vec(TRUTH[op](p, q)))
        np.testing.assert_array_equal(stp(M, stp(vec(p), vec(q))).ravel(), vec(TRUTH[op](p, q)))
    assert delta_form(op()) == (2, op(form="delta"))
    assert delta_form(op(backend="sympy")) == (2, op(form="delta"))


def test_negation_and_printed_forms():
    assert negation(form="delta") == (2, 1)
    assert conjunction(form="delta") == (1, 2, 2, 2)
    assert disjunction(form="delta") == (1, 1, 1, 2)
    assert implication(form="delta") == (1, 2, 1, 1)
    assert equivalence(form="delta") == (1, 2, 2, 1)


@pytest.mark.parametrize("k", [3, 4, 5])
def test_k_valued(k):
    val = lambda i: (k - 1 - i) / (k - 1)  # noqa: E731
    for i, j in itertools.product(range(k), repeat=2):
        x = np.kron(np.eye(k)[i], np.eye(k)[j])
        got = conjunction(k).toarray() @ x
        np.testing.assert_array_equal(got, np.eye(k)[int(round((1 - min(val(i), val(j))) * (k - 1)))])
        got = implication(k).toarray() @ x
        np.testing.assert_array_equal(got, np.eye(k)[int(round((1 - max(1 - val(i), val(j))) * (k - 1)))])
    np.testing.assert_array_equal(negation(k).toarray(), np.fliplr(np.eye(k)))


@st.composite
def bool_exprs(draw, syms, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(syms))
    op = draw(st.sampled_from(["and", "or", "not", "imp", "xor"]))
    a = draw(bool_exprs(syms, depth - 1))
    if op == "not":
        return ~a
    b = draw(bool_exprs(syms, depth - 1))
    return {"and": a & b, "or": a | b, "imp": sympy.Implies(a, b), "xor": sympy.Xor(a, b)}[op]


P, Q, R = sympy.symbols("p q r")


@given(bool_exprs([P, Q, R]))
def test_expression_to_structure_matrix(expr):
    M = structure_matrix(expr, [P, Q, R]).toarray()
    for a, b, c in itertools.product((True, False), repeat=3):
        want = bool(expr.subs({P: a, Q: b, R: c}))
        np.testing.assert_array_equal(M @ np.kron(np.kron(vec(a), vec(b)), vec(c)), vec(want))


def test_callable_and_k_valued_callable():
    assert structure_matrix(lambda a, b: a & ~b, 2, form="delta") == (2, 1, 2, 2)
    assert structure_matrix(lambda a, b: np.minimum(a, b), 2, k=3, form="delta") == conjunction(3, form="delta")


def test_logical_vector_and_matrix(field):
    v = logical_vector(2, 3, backend="sympy")
    assert v == sympy.Matrix([0, 1, 0])
    L = logical_matrix([1, 3, 2], 3, backend=field)
    np.testing.assert_array_equal(to_host(L).astype(float), np.eye(3)[:, [0, 2, 1]])


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: logical_vector(4, 3), ValueError, "i must be in \\[1, k\\]"),
        (lambda: logical_matrix([0, 1], 2), ValueError, "indices must lie in \\[1, k\\]"),
        (lambda: logical_matrix("12", 2), TypeError, "indices must be a sequence"),
        (lambda: conjunction(1), ValueError, "k must be an integer >= 2"),
        (lambda: conjunction(form="table"), ValueError, "form must be one of"),
        (lambda: delta_form(np.array([[1, 1], [1, 0]])), ValueError, "not a logical matrix: column 1"),
        (lambda: structure_matrix(P & Q, [P]), ValueError, "not in variables"),
        (lambda: structure_matrix(42, 2), TypeError, "expr must be a SymPy Boolean expression or a callable"),
        (lambda: structure_matrix(P, "p"), TypeError, "variables must be"),
        (lambda: structure_matrix(P & Q, [P, Q], k=3), ValueError, "needs k = 2"),
    ],
)
def test_bad_arguments(call, exc, words):
    with pytest.raises(exc, match=words):
        call()
