"""Claims of cheng2025, "On Dimension-Free Transformer: An Application of STP to AI".

Paper: ../shared/papers/cheng2025-dimension-free-transformer.txt. Vectors are columns; Kronecker
products follow the paper's formulas; ``t = lcm`` as in eq. (12)-(22).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import sympy
from hypothesis import strategies as st

from ..algebra import projection
from .engine import (
    all_of,
    claim,
    decide,
    exact_equal,
    exhaustive,
    numeric_close,
    property_search,
    symbolic_zero,
)


# ---------------------------------------------------------------------------------------------
# Naive references written straight from the printed Kronecker formulas (eqs. 17-19, 22).
# They share no code with isomat.algebra.
# ---------------------------------------------------------------------------------------------
def _ones(k: int) -> sympy.Matrix:
    return sympy.ones(k, 1)


def naive_projection(m: int, n: int) -> sympy.Matrix:
    """Eq. (22): Π^m_n = (n/t) (I_n ⊗ 1ᵀ_{t/n}) (I_m ⊗ 1_{t/m})."""
    t = math.lcm(m, n)
    left = sympy.kronecker_product(sympy.eye(n), _ones(t // n).T)
    right = sympy.kronecker_product(sympy.eye(m), _ones(t // m))
    return sympy.Rational(n, t) * left * right


def naive_inner_v(x: sympy.Matrix, y: sympy.Matrix) -> sympy.Expr:
    """Eq. (17): <x, y>_V = (1/t) <x ⊗ 1_{t/m}, y ⊗ 1_{t/n}>."""
    m, n = x.rows, y.rows
    t = math.lcm(m, n)
    xe = sympy.kronecker_product(x, _ones(t // m))
    ye = sympy.kronecker_product(y, _ones(t // n))
    return (xe.T * ye)[0, 0] / t


def naive_dist_v_sq(x: sympy.Matrix, y: sympy.Matrix) -> sympy.Expr:
    """Eq. (19) squared, with x - y the STA difference of eq. (14)."""
    m, n = x.rows, y.rows
    t = math.lcm(m, n)
    d = sympy.kronecker_product(x, _ones(t // m)) - sympy.kronecker_product(y, _ones(t // n))
    return naive_inner_v(d, d)


@lru_cache(maxsize=None)
def _exact(m: int, n: int) -> np.ndarray:
    """isomat's Π^m_n as a dense object array of SymPy Rationals (exact matrix products)."""
    return np.array(projection(m, n, backend="sympy").tolist(), dtype=object)


# ---------------------------------------------------------------------------------------------
SIZES = range(1, 6)


@claim(
    "cheng2025:def2.9",
    quote="π^m_n(x) = argmin_{y ∈ R^n} d_V(x, y)   (20)",
    statement=(
        "The argmin in (20) exists and is unique for every m, n: d_V(x, y)² is a quadratic in y "
        "whose Hessian is (2/n)·I_n (positive definite), checked symbolically with generic "
        "symbols x ∈ R^m, y ∈ R^n for all 1 ≤ m, n ≤ 5."
    ),
    methods=["symbolic", "exhaustive"],
)
def _def2_9():
    def hessian_ok(mn):
        m, n = mn
        x = sympy.Matrix(sympy.symbols(f"x0:{m}"))
        y = sympy.Matrix(sympy.symbols(f"y0:{n}"))
        H = sympy.hessian(sympy.expand(naive_dist_v_sq(x, y)), list(y))
        return (H - sympy.Rational(2, n) * sympy.eye(n)).is_zero_matrix

    return decide(exhaustive(hessian_ok, itertools.product(SIZES, SIZES), describe="1 <= m, n <= 5, symbolic x, y"))


@claim(
    "cheng2025:prop2.10",
    quote="π^m_n(x) = Π^m_n x,  Π^m_n = (n/t)(I_n ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/m})   (21)-(22)",
    statement=(
        "With d_V from (17)-(19): the gradient of d_V(x, y)² in y vanishes at y = Π^m_n x "
        "(symbolic x, all 1 ≤ m, n ≤ 5; with def2.9's positive-definite Hessian this makes Π^m_n x "
        "the unique minimizer); Π^m_n x is no farther from x than any y, tested exactly on "
        "Hypothesis-drawn integer x, y with m, n ≤ 12; and isomat's projection(m, n) equals the "
        "printed formula (22) entry by entry for all m, n ≤ 12."
    ),
    methods=["symbolic", "property", "exact"],
)
def _prop2_10():
    def gradient_zero(mn):
        m, n = mn
        x = sympy.Matrix(sympy.symbols(f"x0:{m}"))
        y = sympy.Matrix(sympy.symbols(f"y0:{n}"))
        f = sympy.expand(naive_dist_v_sq(x, y))
        at = dict(zip(y, naive_projection(m, n) * x))
        return all(sympy.expand(sympy.diff(f, yi).subs(at)) == 0 for yi in y)

    symbolic = exhaustive(gradient_zero, itertools.product(SIZES, SIZES), describe="1 <= m, n <= 5, symbolic x")
    symbolic.method = "symbolic"

    vec = lambda k: st.lists(st.integers(-9, 9), min_size=k, max_size=k)  # noqa: E731
    draws = st.tuples(st.integers(1, 12), st.integers(1, 12)).flatmap(
        lambda mn: st.tuples(st.just(mn[0]), st.just(mn[1]), vec(mn[0]), vec(mn[1]))
    )

    def nearest(case):
        m, n, x, y = case
        X, Y = sympy.Matrix(x), sympy.Matrix(y)
        return naive_dist_v_sq(X, sympy.Matrix(_exact(m, n).dot(np.array(x, dtype=object)))) <= naive_dist_v_sq(X, Y)

    prop = property_search(nearest, draws, describe="m, n in [1, 12]; x, y integer vectors in [-9, 9]", max_examples=150)

    formula = exhaustive(
        lambda mn: sympy.Matrix(_exact(*mn)) == naive_projection(*mn),
        itertools.product(range(1, 13), range(1, 13)),
        describe="projection(m, n) vs eq. (22), 1 <= m, n <= 12",
    )
    formula.method = "exact"
    return decide(all_of(symbolic, prop, formula))


@claim(
    "cheng2025:eq22/row-stochastic",
    quote="Π^m_n = (n/t)(I_n ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/m})   (22)",
    statement=(
        "Π^m_n is row-stochastic: entries ≥ 0 and every row sums to exactly 1 (exact, all m, n ≤ 16); "
        "its column sums are n/m; it has n + m − gcd(m, n) nonzeros; float64 row sums are 1 within "
        "1e-12 for Hypothesis-drawn m, n up to 10^5."
    ),
    methods=["exact", "exhaustive", "property"],
)
def _row_stochastic():
    def exact_ok(mn):
        m, n = mn
        P = _exact(m, n)
        return (
            all(v >= 0 for v in P.flat)
            and all(s == 1 for s in P.sum(axis=1))
            and all(s == sympy.Rational(n, m) for s in P.sum(axis=0))
            and sum(1 for v in P.flat if v != 0) == n + m - math.gcd(m, n)
        )

    ex = exhaustive(exact_ok, itertools.product(range(1, 17), range(1, 17)), describe="1 <= m, n <= 16")
    ex.method = "exact"

    def float_ok(mn):
        P = projection(*mn)
        return bool(np.all(np.abs(P.sum(axis=1) - 1.0) <= 1e-12) and P.min() >= 0)

    prop = property_search(float_ok, st.tuples(st.integers(1, 10**5), st.integers(1, 10**5)),
                           describe="m, n in [1, 1e5], float64, tol 1e-12", max_examples=40)
    return decide(all_of(ex, prop))


@claim(
    "cheng2025:eq22/composition",
    quote=(
        "(not printed as a claim) Π^m_n of eq. (22) composed through an intermediate dimension: "
        "Π^k_r Π^m_k = Π^m_r, the semigroup property a reader may assume; the proof of Prop. 2.12 "
        "uses its special case (26)"
    ),
    statement=(
        "Π^k_r Π^m_k = Π^m_r for all positive m, k, r — checked exactly for every triple with "
        "m, k, r ≤ 8, in order of increasing m + k + r."
    ),
    methods=["exact", "exhaustive"],
)
def _composition():
    def composes(mkr):
        m, k, r = mkr
        return bool(np.all(_exact(k, r).dot(_exact(m, k)) == _exact(m, r)))

    def witness(mkr):
        m, k, r = mkr
        return {"lhs": _exact(k, r).dot(_exact(m, k)), "rhs": _exact(m, r)}

    def triples(bound):
        return sorted(itertools.product(range(1, bound + 1), repeat=3), key=lambda c: (sum(c), c))

    printed = exhaustive(composes, triples(8), describe="1 <= m, k, r <= 8, by m+k+r", witness=witness)
    corrected = exhaustive(
        composes,
        [c for c in triples(12) if c[1] % c[0] == 0 or c[1] % c[2] == 0],
        describe="1 <= m, k, r <= 12 with m | k or r | k",
    )
    n_hold = sum(composes(c) for c in triples(8))
    return decide(
        printed,
        correction=(
            "Π^k_r Π^m_k = Π^m_r whenever m | k (Π^m_k is then the lossless refinement x ⊗ 1_{k/m}) "
            "or r | k (tower property of block averages); it fails in general",
            corrected,
        ),
        triples_that_compose_up_to_8=f"{n_hold} of {8**3}",
    )
