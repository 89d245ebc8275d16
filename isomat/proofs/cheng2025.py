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

from ..algebra import _backend, projection
from ..errors import CheckError
from ..algebra._backend import to_numpy
from ..algebra.projection import projection_overlap
from .engine import (
    Reading,
    all_of,
    by_readings,
    compare_printed,
    claim,
    decide,
    exhaustive,
    float_backend,
    property_search,
)
from . import prover as _pv

#: why the float checks are "sampled": one random float64 instance per size, compared within a tolerance
SAMPLED_WHY = (" Strength sampled: one random float64 instance per size, compared within a tolerance; an exact check "
               "would need softmax/exp/sqrt/normalization symbolically at every size, infeasible here.")


# ---------------------------------------------------------------------------------------------
# Naive references written straight from the printed Kronecker formulas (eqs. 17-19, 22).
# They share no code with isomat.algebra.
# ---------------------------------------------------------------------------------------------
def _kron(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    """Kronecker product straight from its definition, (A ⊗ B)[i, j] = A[i // r, j // s] B[i % r, j % s]."""
    A, B = sympy.Matrix(A), sympy.Matrix(B)
    r, s = B.shape
    return sympy.Matrix(A.rows * r, A.cols * s, lambda i, j: A[i // r, j // s] * B[i % r, j % s])


def _ones(k: int) -> sympy.Matrix:
    return sympy.ones(k, 1)


def _positive_sizes(case) -> bool:
    """Every number in a counterexample's case is a size (a positive integer), except a float (a scaling, nonzero);
    strings name a variant."""
    if isinstance(case, str):
        return True
    if isinstance(case, (list, tuple)):
        return all(_positive_sizes(v) for v in case)
    if isinstance(case, bool):
        return False
    if isinstance(case, int):
        return case >= 1
    if isinstance(case, float):
        return case != 0
    return False


#: the paper's standing hypothesis on sizes: every dimension (m, n, p, q, s, n0, d, ...) is a positive integer
_SIZES = ("all dimensions (m, n, p, q, r, s, n_i, n0, d, ...) are positive integers; a scaling λ is nonzero",
          _positive_sizes)


def naive_projection(m: int, n: int) -> sympy.Matrix:
    """Eq. (22): Π^m_n = (n/t) (I_n ⊗ 1ᵀ_{t/n}) (I_m ⊗ 1_{t/m}) (a fresh copy: callers may modify it)."""
    return _naive_projection(int(m), int(n)).copy()


@lru_cache(maxsize=None)
def _naive_projection(m: int, n: int) -> sympy.Matrix:
    # the same Π^m_n is asked for by many claims; building it from eq. (22) is the slow part of the ledger
    t = math.lcm(m, n)
    left = _kron(sympy.eye(n), _ones(t // n).T)
    right = _kron(sympy.eye(m), _ones(t // m))
    return sympy.Rational(n, t) * left * right


def naive_inner_v(x: sympy.Matrix, y: sympy.Matrix) -> sympy.Expr:
    """Eq. (17): <x, y>_V = (1/t) <x ⊗ 1_{t/m}, y ⊗ 1_{t/n}>."""
    m, n = x.rows, y.rows
    t = math.lcm(m, n)
    xe = _kron(x, _ones(t // m))
    ye = _kron(y, _ones(t // n))
    return (xe.T * ye)[0, 0] / t


def naive_dist_v_sq(x: sympy.Matrix, y: sympy.Matrix) -> sympy.Expr:
    """Eq. (19) squared, with x - y the STA difference of eq. (14)."""
    m, n = x.rows, y.rows
    t = math.lcm(m, n)
    d = _kron(x, _ones(t // m)) - _kron(y, _ones(t // n))
    return naive_inner_v(d, d)


@lru_cache(maxsize=None)
def _exact(m: int, n: int) -> np.ndarray:
    """isomat's Π^m_n as a dense object array of SymPy Rationals (exact matrix products)."""
    return np.array(projection(m, n, backend="sympy").tolist(), dtype=object)


# ---------------------------------------------------------------------------------------------
# Proved for every size: Π^m_n through its entry rule (isomat.algebra.projection.projection_overlap,
# the builder equals it in tests/test_projection.py): m·Π^m_n[i, j] = ov(i, j, m, n), the length of
# [i m, (i+1) m) ∩ [j n, (j+1) n). Sums over a symbolic range go through one proved lemma: the prefix
# sum S(i, k, A, B) = Σ_{u<k} ov(i, u, A, B), defined by two axioms, equals the overlap of
# [i A, (i+1) A) with [0, k B) (induction on k) -- the column blocks partition [0, k B).
# ---------------------------------------------------------------------------------------------
_ov_rule = projection_overlap  # m·Π^m_n[i, j] = _ov_rule(i, j, m, n)


def _zmax(x, y):
    return _pv.ite(x >= y, x, y)


def _zmin(x, y):
    return _pv.ite(x <= y, x, y)


@lru_cache(maxsize=None)
def _pi_prefix():
    """(S, lemma): S(i, k, A, B) = Σ_{u<k} ov(i, u, A, B) (axioms) and the proved closed form
    S(i, k, A, B) = max(0, min((i+1) A, k B) − i A) for i, k >= 0, A, B >= 1."""
    import z3

    i, k, A, B = _pv.ints("i k A B")
    S = z3.Function("OverlapPrefix", *[z3.IntSort()] * 5)
    ax0 = _pv.axiom("overlap-prefix-0", z3.ForAll([i, A, B], S(i, 0, A, B) == 0),
                    text="S(i, 0, A, B) = 0 (empty sum)")
    ax1 = _pv.axiom("overlap-prefix-step",
                    z3.ForAll([i, k, A, B], z3.Implies(k >= 0, S(i, k + 1, A, B) == S(i, k, A, B) + _ov_rule(i, k, A, B)),
                              patterns=[S(i, k + 1, A, B)]),
                    text="S(i, k+1, A, B) = S(i, k, A, B) + ov(i, k, A, B): S is the prefix sum of row i of the overlaps")
    lm = _pv.induction(
        "overlap-prefix-closed-form", k,
        lambda k: z3.Implies(z3.And(i >= 0, A >= 1, B >= 1), S(i, k, A, B) == _zmax(0, _zmin((i + 1) * A, k * B) - i * A)),
        text="for all i, k >= 0 and A, B >= 1: Σ_{u<k} |[iA, (i+1)A) ∩ [uB, (u+1)B)| = |[iA, (i+1)A) ∩ [0, kB)| "
             "(the blocks [uB, (u+1)B) partition [0, kB))",
        other=[i, A, B], axioms=[ax0, ax1], patterns=[S(i, k, A, B)], timeout_s=5)
    _pi_prefix.axioms = (ax0, ax1)
    return S, lm


def _proof_trial(goal, *, for_all, assuming=(), lemmas=(), describe, fallback=None):
    """A proved trial, or (when Z3 says unknown) the exhaustive fallback with the attempt noted."""
    p = _pv.prove(goal, for_all=for_all, assuming=list(assuming), lemmas=list(lemmas), timeout_s=5)
    return p.or_else(fallback, describe) if fallback is not None else p.trial(describe)


def _crosscheck(t):
    """A cheap exhaustive trial kept as extra evidence next to a proof (never weakens its strength)."""
    return dict(t.evidence, ok=t.ok)


#: textbook facts some proofs use as steps, listed by name in the proved trial's evidence ("axioms")
_TEXTBOOK = {
    "matmul-entry": "(XY)[i, j] = Σ_u X[i, u] Y[u, j] (definition of the matrix product)",
    "kron-entry": "(A ⊗ B)[i, j] = A[i div r, j div s] · B[i mod r, j mod s] for B of size r×s (definition of ⊗)",
    "matmul-associative": "(XY)Z = X(YZ) for conformable matrices",
    "matmul-bilinear": "(X + X')Y = XY + X'Y, X(Y + Y') = XY + XY' and (cX)Y = X(cY) = c(XY)",
    "kron-column": "x ⊗ 1_k = (I_m ⊗ 1_k) x and x ⊗ y = (x ⊗ I_n) y for columns x ∈ R^m, y ∈ R^n; hence x ⋉ y = x ⊗ y "
                   "(eq. (12) with t = n)",
    "permutation-matrix-action": "if P has exactly one 1 in each column k, in row σ(k), with σ a permutation, then "
                                 "(PX)[σ(k), :] = X[k, :], (XPᵀ)[:, σ(k)] = X[:, k] and Pᵀ = P⁻¹",
    "quadratic-taylor": "a quadratic function equals its second-order Taylor expansion at any point",
    "pd-unique-minimizer": "a quadratic with zero gradient at y* and positive definite Hessian has y* as its unique "
                           "minimizer",
    "nonnegative-closure": "sums and products of nonnegative reals are nonnegative",
    "minor-rank": "a matrix with a nonzero k×k minor has rank >= k; a triangular matrix with nonzero diagonal has "
                  "nonzero determinant",
    "full-column-rank-injective": "a matrix of rank equal to its number of columns is injective",
}


def _textbook(trial, *names):
    """``trial`` (wrapped, so shared cached trials are not modified) with the textbook steps it uses listed by name."""
    t = all_of(trial)
    t.evidence["axioms"] = [{"name": n, "statement": _TEXTBOOK[n]} for n in names]
    return t


@lru_cache(maxsize=None)
def _pi_count():
    """(C, lemma): C(i, j, k, a, b) = #{u < k : u div a = i and u div b = j} (axioms), the (i, j) entry of
    (I_n ⊗ 1ᵀ_a)(I_m ⊗ 1_b) summed over u < k; proved closed form (induction on k):
    C = max(0, min((i+1)a, (j+1)b, k) − max(ia, jb))."""
    import z3

    i, j, k, a, b = _pv.ints("i j k a b")
    C = z3.Function("BlockCount", *[z3.IntSort()] * 6)
    ax0 = _pv.axiom("block-count-0", z3.ForAll([i, j, a, b], C(i, j, 0, a, b) == 0), text="C(i, j, 0, a, b) = 0 (empty sum)")
    ax1 = _pv.axiom(
        "block-count-step",
        z3.ForAll([i, j, k, a, b], z3.Implies(k >= 0, C(i, j, k + 1, a, b) == C(i, j, k, a, b)
                                               + _pv.ite(_pv.both(_pv.fdiv(k, a) == i, _pv.fdiv(k, b) == j), 1, 0)),
                  patterns=[C(i, j, k + 1, a, b)]),
        text="C(i, j, k+1, a, b) = C(i, j, k, a, b) + [k div a = i][k div b = j] "
             "((I_n ⊗ 1ᵀ_a)[i, k] = [k div a = i], (I_m ⊗ 1_b)[k, j] = [k div b = j])")
    lm = _pv.induction(
        "block-count-closed-form", k,
        lambda k: z3.Implies(z3.And(a >= 1, b >= 1, i >= 0, j >= 0),
                             C(i, j, k, a, b) == _zmax(0, _zmin(_zmin((i + 1) * a, (j + 1) * b), k) - _zmax(i * a, j * b))),
        text="for all i, j, k >= 0, a, b >= 1: #{u < k : u div a = i, u div b = j} = |[ia, (i+1)a) ∩ [jb, (j+1)b) ∩ [0, k)|",
        other=[i, j, a, b], axioms=[ax0, ax1], patterns=[C(i, j, k, a, b)], timeout_s=5)
    return C, lm


def _pi_eq22_proof():
    """isomat's entry rule equals the printed (22), for all m, n: (n/t)·C(i, j, t, t/n, t/m) = ov(i, j, m, n)/m."""
    C, count = _pi_count()
    m, n, a, b, i, j = _pv.ints("m n a b i j")
    return _proof_trial(
        m * C(i, j, n * a, a, b) == a * _ov_rule(i, j, m, n),
        for_all="for all m, n >= 1 and every common multiple t = n·a = m·b (t = lcm(m, n) included), 0 <= i < n, 0 <= j < m",
        assuming=[m >= 1, n >= 1, a >= 1, b >= 1, n * a == m * b, 0 <= i, i < n, 0 <= j, j < m], lemmas=[count],
        describe="(22)[i, j] = (n/t)·((I_n ⊗ 1ᵀ_a)(I_m ⊗ 1_b))[i, j] = C(i, j, t, a, b)/a = ov(i, j, m, n)/m = isomat's rule")


def _gram_proof():
    """FᵀF = a·I_n for F = I_n ⊗ 1_a (the map y ↦ y ⊗ 1_{t/n} of (17)), for all n, a."""
    C, count = _pi_count()
    n, a, i, j = _pv.ints("n a i j")
    return _proof_trial(
        C(i, j, n * a, a, a) == _pv.ite(i == j, a, 0),
        for_all="for all n, a >= 1 (a = t/n), 0 <= i, j < n", assuming=[n >= 1, a >= 1, 0 <= i, i < n, 0 <= j, j < n],
        lemmas=[count], describe="(FᵀF)[i, j] = #{u < na : u div a = i = j} = a·[i = j], F = I_n ⊗ 1_a")


def _dv_calculus(part: str):
    """SymPy, symbolic sizes: d_V(x, y)² = (1/t)‖Ex − Fy‖² (eqs. 17-19, E = I_m ⊗ 1_{t/m}, F = I_n ⊗ 1_{t/n} as
    MatrixSymbols t×m, t×n, t = n·a); its gradient and Hessian in y by SymPy's matrix calculus, then FᵀF
    rewritten to a·I_n (proved by _gram_proof). part: "hessian" (= (2/n) I_n) or "gradient" (zero at
    y = (n/t) FᵀE x = Π^m_n x, eq. 22)."""
    from .engine import symbolic_zero

    m, n, a = sympy.symbols("m n a", positive=True, integer=True)
    t = n * a
    E, F = sympy.MatrixSymbol("E", t, m), sympy.MatrixSymbol("F", t, n)
    x, y = sympy.MatrixSymbol("x", m, 1), sympy.MatrixSymbol("y", n, 1)
    f = (E * x - F * y).T * (E * x - F * y) / t

    def gram(expr):  # FᵀF -> a·I_n inside every product (the proved identity)
        def rw(e):
            out, args, k = [], list(e.args), 0
            while k < len(args):
                if k + 1 < len(args) and args[k] == F.T and args[k + 1] == F:
                    out.append(a * sympy.Identity(n))
                    k += 2
                else:
                    out.append(args[k])
                    k += 1
            return sympy.MatMul(*out).doit()

        out = sympy.expand(expr).replace(lambda e: isinstance(e, sympy.MatMul), rw)
        if isinstance(out, sympy.MatAdd):  # re-add the rewritten terms so that like terms combine
            terms = list(out.args)
            out = terms[0]
            for term in terms[1:]:
                out = out + term
        return out

    p, q = sympy.symbols("p q", integer=True, nonnegative=True)
    grad = f.diff(y)
    for_all = "for all m, n, a >= 1 (t = n·a), all x ∈ R^m, y ∈ R^n, every entry p, q (symbolic sizes)"
    if part == "hessian":
        residual = (gram(grad.diff(y)) - sympy.Rational(2) / n * sympy.Identity(n))
        return symbolic_zero(sympy.simplify(residual)[p, q], for_all=for_all,
                             describe="Hessian of d_V(x, y)² in y = (2/t)FᵀF = (2a/t) I_n = (2/n) I_n")
    residual = gram(grad.subs(y, F.T * E * x / a))
    return symbolic_zero(sympy.simplify(residual)[p, 0], for_all=for_all,
                         describe="∇_y d_V(x, y)² = −(2/t)Fᵀ(Ex − Fy) vanishes at y = (1/a)FᵀE x = (n/t)FᵀE x = Π^m_n x")

@lru_cache(maxsize=None)
def _vec_kron_lemma():
    """((A ⊗ I_k) V_r(X))[(a, e)] = (AX)[a, e] for A p×s, X s×k (row-major V_r), every p, s, k, as a lemma.

    Rows and columns of A ⊗ I_k are indexed by digit pairs (a, e), (q, e') (the Kronecker entry rule
    (A ⊗ I_k)[(a, e), (q, e')] = A[a, q]·[e = e']), V_r(X)[(q, e')] = X[q, e']; the sum over columns, taken
    in row-major order, is defined by axioms (inner sum over e' < k, outer over q < s), as is the sum
    (AX)[a, e] = Σ_{l<s} A[a, l] X[l, e]; A and X are uninterpreted."""
    import z3

    I, R = z3.IntSort(), z3.RealSort()
    A, X = z3.Function("A", I, I, R), z3.Function("X", I, I, R)
    a, e, k, q, E, Q, L = _pv.ints("a e k q E Q L")
    P, U, T = z3.Function("MatProdPrefix", I, I, I, R), z3.Function("KronRowInner", I, I, I, I, I, R), \
        z3.Function("KronRowPrefix", I, I, I, I, R)
    one = lambda c: z3.If(c, z3.RealVal(1), z3.RealVal(0))  # noqa: E731
    ax = [
        _pv.axiom("matprod-0", z3.ForAll([a, e], P(a, e, 0) == 0), text="Σ_{l<0} A[a,l] X[l,e] = 0"),
        _pv.axiom("matprod-step", z3.ForAll([a, e, L], z3.Implies(L >= 0, P(a, e, L + 1) == P(a, e, L) + A(a, L) * X(L, e)),
                                             patterns=[P(a, e, L + 1)]), text="P(a,e,L+1) = P(a,e,L) + A[a,L] X[L,e]"),
        _pv.axiom("kron-inner-0", z3.ForAll([a, e, k, q], U(a, e, k, q, 0) == 0), text="empty inner sum"),
        _pv.axiom("kron-inner-step", z3.ForAll([a, e, k, q, E], z3.Implies(
            E >= 0, U(a, e, k, q, E + 1) == U(a, e, k, q, E) + A(a, q) * one(e == E) * X(q, E)), patterns=[U(a, e, k, q, E + 1)]),
            text="U(a,e,k,q,E+1) = U(a,e,k,q,E) + (A⊗I_k)[(a,e),(q,E)]·V_r(X)[(q,E)]"),
        _pv.axiom("kron-outer-0", z3.ForAll([a, e, k], T(a, e, k, 0) == 0), text="empty outer sum"),
        _pv.axiom("kron-outer-step", z3.ForAll([a, e, k, Q], z3.Implies(Q >= 0, T(a, e, k, Q + 1) == T(a, e, k, Q) + U(a, e, k, Q, k)),
                                               patterns=[T(a, e, k, Q + 1)]), text="T(a,e,k,Q+1) = T(a,e,k,Q) + U(a,e,k,Q,k)"),
    ]
    inner = _pv.induction(
        "kron-identity-inner-sum", E,
        lambda E: z3.Implies(z3.And(0 <= e, e < k, E <= k), U(a, e, k, q, E) == z3.If(e < E, A(a, q) * X(q, e), z3.RealVal(0))),
        text="for all 0 <= e < k, 0 <= E <= k: Σ_{e'<E} A[a,q][e = e'] X[q,e'] = [e < E]·A[a,q] X[q,e]",
        other=[a, e, k, q], axioms=ax[2:4], patterns=[U(a, e, k, q, E)])
    full = _pv.lemma("kron-identity-block", [a, e, k, q],
                     z3.Implies(z3.And(0 <= e, e < k), U(a, e, k, q, k) == A(a, q) * X(q, e)),
                     text="for all 0 <= e < k: the block q of row (a, e) of (A ⊗ I_k) V_r(X) is A[a,q] X[q,e]",
                     using=[inner], patterns=[U(a, e, k, q, k)])
    outer = _pv.induction(
        "kron-identity-row", Q, lambda Q: z3.Implies(z3.And(0 <= e, e < k), T(a, e, k, Q) == P(a, e, Q)),
        text="for all Q >= 0, 0 <= e < k: Σ_{q<Q} Σ_{e'<k} (A⊗I_k)[(a,e),(q,e')] V_r(X)[(q,e')] = Σ_{l<Q} A[a,l] X[l,e]",
        other=[a, e, k], axioms=[ax[0], ax[1], ax[4], ax[5]], using=[full], patterns=[T(a, e, k, Q)], timeout_s=1.0)
    return T, P, outer


def _vec_kron_proof(what: str):
    T, P, outer = _vec_kron_lemma()
    a, e, k, s_ = _pv.ints("a e k s")
    return _proof_trial(
        T(a, e, k, s_) == P(a, e, s_),
        for_all="for all p, s, k >= 1, A ∈ M_{p×s}, X ∈ M_{s×k} (uninterpreted), every row (a, e), 0 <= e < k",
        assuming=[s_ >= 1, k >= 1, 0 <= e, e < k, a >= 0], lemmas=[outer],
        describe=f"((A ⊗ I_k) V_r(X))[(a, e)] = Σ_{{l<s}} A[a,l] X[l,e] = V_r(AX)[(a, e)] (A ⊗ I_k has sk columns = the length "
                 f"of V_r(X)); {what}")

# ---------------------------------------------------------------------------------------------
SIZES = range(1, 6)


@claim(
    "cheng2025:def2.9",
    quote="π^m_n(x) = argmin_{y ∈ R^n} d_V(x, y)   (20)",
    statement=(
        "The argmin in (20) exists and is unique for every m, n: d_V(x, y)² = (1/t)‖Ex − Fy‖² (eqs. 17-19, "
        "E = I_m ⊗ 1_{t/m}, F = I_n ⊗ 1_{t/n}) is a quadratic in y whose Hessian is (2/n)·I_n (positive definite). "
        "Proved for all m, n: FᵀF = (t/n)·I_n (Z3, block-count lemma) and the Hessian (2/t)FᵀF by SymPy matrix "
        "calculus with symbolic sizes. Cross-check: the Hessian of the explicit d_V² with generic symbols "
        "x ∈ R^m, y ∈ R^n for all 1 ≤ m, n ≤ 3."
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

    cross = exhaustive(hessian_ok, itertools.product(range(1, 4), range(1, 4)), describe="1 <= m, n <= 3, symbolic x, y")
    return decide(_textbook(all_of(_gram_proof(), _dv_calculus("hessian")), "matmul-associative", "quadratic-taylor",
                            "pd-unique-minimizer"), exhaustive_crosscheck=_crosscheck(cross))


@claim(
    "cheng2025:prop2.10",
    quote="π^m_n(x) = Π^m_n x,  Π^m_n = (n/t)(I_n ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/m})   (21)-(22)",
    statement=(
        "Proved for all m, n >= 1: isomat's entry rule of projection(m, n) equals the printed (22) (block-count "
        "lemma, Z3); with d_V(x, y)² = (1/t)‖Ex − Fy‖² from (17)-(19) (E = I_m ⊗ 1_{t/m}, F = I_n ⊗ 1_{t/n}), "
        "FᵀF = (t/n) I_n (Z3), and by SymPy matrix calculus with symbolic sizes the gradient in y vanishes at "
        "y = (n/t)FᵀE x = Π^m_n x and the Hessian is (2/n) I_n; a quadratic is its own second-order Taylor "
        "expansion, so d_V(x, y)² = d_V(x, Π^m_n x)² + (1/n)‖y − Π^m_n x‖²: Π^m_n x is the unique minimizer. "
        "Cross-checks: the gradient with symbolic x for all 1 ≤ m, n ≤ 3 and projection = (22) for m, n ≤ 6 "
        "(exhaustive); Π^m_n x no farther from x than any y on 20 Hypothesis-drawn integer x, y, m, n ≤ 12 (sampled)."
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

    symbolic = exhaustive(gradient_zero, itertools.product(range(1, 4), range(1, 4)), describe="1 <= m, n <= 3, symbolic x",
                          method="symbolic")

    vec = lambda k: st.lists(st.integers(-9, 9), min_size=k, max_size=k)  # noqa: E731
    draws = st.tuples(st.integers(1, 12), st.integers(1, 12)).flatmap(
        lambda mn: st.tuples(st.just(mn[0]), st.just(mn[1]), vec(mn[0]), vec(mn[1]))
    )

    def nearest(case):
        m, n, x, y = case
        X, Y = sympy.Matrix(x), sympy.Matrix(y)
        return naive_dist_v_sq(X, sympy.Matrix(_exact(m, n).dot(np.array(x, dtype=object)))) <= naive_dist_v_sq(X, Y)

    prop = property_search(nearest, draws, describe="m, n in [1, 12]; x, y integer vectors in [-9, 9]", max_examples=20)

    formula = exhaustive(
        lambda mn: sympy.Matrix(_exact(*mn)) == naive_projection(*mn),
        itertools.product(range(1, 7), range(1, 7)),
        describe="projection(m, n) vs eq. (22), 1 <= m, n <= 6",
    method="exact",
)
    proof = all_of(_pi_eq22_proof(), _gram_proof(), _dv_calculus("gradient"), _dv_calculus("hessian"))
    return decide(_textbook(proof, "matmul-associative", "quadratic-taylor", "pd-unique-minimizer"),
                  exhaustive_crosscheck=_crosscheck(all_of(symbolic, formula)), sampled_crosscheck=_crosscheck(prop))


@claim(
    "cheng2025:eq22/row-stochastic",
    quote="Π^m_n = (n/t)(I_n ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/m})   (22)",
    statement=(
        "Proved for all m, n >= 1, 0 <= i < n, 0 <= j < m, on isomat's entry rule m·Π^m_n[i, j] = ov(i, j, m, n) "
        "(the builder equals it: tests/test_projection.py; the rule equals (22): prop2.10): every entry is >= 0, "
        "every row sums to exactly 1 and every column to n/m (the sums are prefix sums of overlaps, closed form "
        "proved by induction). Cross-checks recorded with it (not part of the proof): exact row/column sums "
        "and n + m − gcd(m, n) nonzeros for all m, n <= 8 (the nonzero count is not proved: gcd has no Z3 "
        "builtin); float64 row sums 1 within 1e-12 for 10 Hypothesis-drawn m, n up to 10^5."
    ),
    methods=["symbolic", "exact", "exhaustive", "property"],
)
def _row_stochastic():
    S, prefix = _pi_prefix()
    m, n, i, j = _pv.ints("m n i j")
    # column j of ov(., ., m, n) is row j of ov(., ., n, m): the overlap is symmetric
    goal = _pv.both(_ov_rule(i, j, m, n) >= 0, S(i, m, m, n) == m, S(j, n, n, m) == n,
                    _ov_rule(i, j, m, n) == _ov_rule(j, i, n, m))
    proof = _proof_trial(
        goal, for_all="for all m, n >= 1, 0 <= i < n, 0 <= j < m",
        assuming=[m >= 1, n >= 1, 0 <= i, i < n, 0 <= j, j < m], lemmas=[prefix],
        describe="m·Π^m_n[i,j] = ov(i,j,m,n) >= 0; Σ_j ov(i,j,m,n) = S(i,m,m,n) = m (row sum 1); "
                 "Σ_i ov(i,j,m,n) = Σ_i ov(j,i,n,m) = S(j,n,n,m) = n (column sum n/m)")

    def exact_ok(mn):
        m, n = mn
        P = _exact(m, n)
        return (
            all(v >= 0 for v in P.flat)
            and all(s == 1 for s in P.sum(axis=1))
            and all(s == sympy.Rational(n, m) for s in P.sum(axis=0))
            and sum(1 for v in P.flat if v != 0) == n + m - math.gcd(m, n)
        )

    ex = exhaustive(exact_ok, itertools.product(range(1, 9), range(1, 9)), describe="1 <= m, n <= 8", method="exact")

    def float_ok(mn):
        P = projection(*mn, backend=float_backend())  # on the GPU under `isomat verify --backend cupy`
        sums = to_numpy(P.sum(axis=1)).ravel()
        return bool(np.all(np.abs(sums - 1.0) <= 1e-12) and to_numpy(P.data).min() >= 0)

    prop = property_search(float_ok, st.tuples(st.integers(1, 10**5), st.integers(1, 10**5)),
                           describe="m, n in [1, 1e5], float64, tol 1e-12", max_examples=10)
    return decide(proof, exact_crosscheck_with_nnz=_crosscheck(ex), float_crosscheck=_crosscheck(prop))


@claim(
    "cheng2025:beyond/pi-composition",
    quote=(
        "(not printed as a claim) Π^m_n of eq. (22) composed through an intermediate dimension: "
        "Π^k_r Π^m_k = Π^m_r, the semigroup property a reader may assume; the proof of Prop. 2.12 "
        "uses its special case (26)"
    ),
    statement=(
        "Π^k_r Π^m_k = Π^m_r for all positive m, k, r — checked exactly for every triple with "
        "m, k, r ≤ 8, in order of increasing m + k + r. The correction (m | k or r | k) is proved for all sizes on "
        "the entry rule of Π: for m | k, Π^m_k = I_m ⊗ 1_{k/m} and (26); for r | k, Π^k_r = (r/k)(I_r ⊗ 1ᵀ_{k/r}) "
        "and a block sum of overlaps (proved prefix-sum lemma); exact cross-check for m, k, r ≤ 8. The condition is "
        "sufficient, not necessary: the triples up to 8 that compose without it (e.g. (m, k, r) = (2, 5, 3)) are "
        "recorded in evidence; the exact condition is not settled."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
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
        [c for c in triples(8) if c[1] % c[0] == 0 or c[1] % c[2] == 0],
        describe="1 <= m, k, r <= 8 with m | k or r | k",
    )
    holding = [c for c in triples(8) if composes(c)]
    n_hold = len(holding)
    # the correction's condition is sufficient, not necessary: triples that compose without m | k or r | k
    extra = [list(c) for c in holding if c[1] % c[0] and c[1] % c[2]]
    return decide(
        printed,
        correction=(
            "Π^k_r Π^m_k = Π^m_r whenever m | k (Π^m_k is then the lossless refinement x ⊗ 1_{k/m}) "
            "or r | k (tower property of block averages); it fails in general",
            _textbook(_composition_proof(), "matmul-entry", "kron-entry", "matmul-associative"),
        ),
        triples_that_compose_up_to_8=f"{n_hold} of {8**3}",
        compose_without_m_or_r_dividing_k={"note": "the condition m | k or r | k is sufficient, not necessary; the exact "
                                                   "condition is not settled here", "triples": extra[:20],
                                           "count_up_to_8": len(extra)},
        corrected_exhaustive_crosscheck=_crosscheck(corrected),
    )


def _composition_proof():
    """The corrected composition law for all sizes, in two cases, each two proved entry identities.

    m | k, k = mc: Π^m_k = I_m ⊗ 1_c (entrywise), and Π^k_r (I_m ⊗ 1_c) = Π^m_r is (26).
    r | k, k = rc: Π^k_r = (1/c)(I_r ⊗ 1ᵀ_c) (entrywise), and row i of (1/c)(I_r ⊗ 1ᵀ_c) Π^m_k averages rows
    ic..ic+c−1 of Π^m_k: (1/(cm)) Σ_u ov(u, j, m, k) = (1/(cm)) Σ_u ov(j, u, k, m), a block sum, = Π^m_r[i, j]."""
    S, prefix = _pi_prefix()
    m, c, r, i, j, u = _pv.ints("m c r i j u")
    in_block = lambda u, j: _pv.both(j * c <= u, u < (j + 1) * c)  # noqa: E731  (u div c = j)
    refine = _proof_trial(
        _ov_rule(u, j, m, m * c) == _pv.ite(in_block(u, j), m, 0),
        for_all="for all m, c >= 1, 0 <= u < mc, 0 <= j < m",
        assuming=[m >= 1, c >= 1, 0 <= u, u < m * c, 0 <= j, j < m],
        describe="m | k, k = mc: Π^m_k[u, j] = ov(u, j, m, mc)/m = [u div c = j], i.e. Π^m_k = I_m ⊗ 1_c")
    average = _proof_trial(
        _ov_rule(i, u, r * c, r) == _pv.ite(in_block(u, i), r, 0),
        for_all="for all r, c >= 1, 0 <= i < r, 0 <= u < rc",
        assuming=[r >= 1, c >= 1, 0 <= i, i < r, 0 <= u, u < r * c],
        describe="r | k, k = rc: Π^k_r[i, u] = ov(i, u, rc, r)/(rc) = [u div c = i]/c, i.e. Π^k_r = (1/c)(I_r ⊗ 1ᵀ_c)")
    tower = _proof_trial(
        _pv.both(S(j, (i + 1) * c, r * c, m) - S(j, i * c, r * c, m) == c * _ov_rule(i, j, m, r),
                 _ov_rule(u, j, m, r * c) == _ov_rule(j, u, r * c, m)),
        for_all="for all m, r, c >= 1, 0 <= i < r, 0 <= j < m, all u",
        assuming=[m >= 1, r >= 1, c >= 1, 0 <= i, i < r, 0 <= j, j < m], lemmas=[prefix],
        describe="r | k, k = rc: Σ_{u=ic}^{ic+c-1} ov(u, j, m, k) = Σ_u ov(j, u, k, m) = S(j,(i+1)c,k,m) − S(j,ic,k,m) "
                 "= c·ov(i, j, m, r), i.e. (1/c)(I_r ⊗ 1ᵀ_c) Π^m_k = Π^m_r")
    return all_of(refine, _eq26_proof(), average, tower)


# =============================================================================================
# §II: STP, DK-STP, bridge, STA (eqs. 12-16) and the classical STP theorems
# =============================================================================================
import importlib  # noqa: E402

_stp_mod = importlib.import_module("isomat.algebra.stp")
_logic = importlib.import_module("isomat.algebra.logic")
_hyper = importlib.import_module("isomat.algebra.hyper")


def _dev(a):
    """A float64 array in the float field of the run (CuPy under `isomat verify --backend cupy`)."""
    return _backend.as_values(np.asarray(a, dtype=float), float_backend())


def _rand(rows: int, cols: int, seed: int, lo: int = -3, hi: int = 3) -> sympy.Matrix:
    """Deterministic random integer matrix (exact)."""
    rng = np.random.default_rng(seed)
    return sympy.Matrix(rng.integers(lo, hi + 1, size=(rows, cols)).tolist())


def _grand(rows: int, cols: int, seed: int, *_: int) -> sympy.Matrix:
    """Generic matrix (independent symbols g<seed>_i_j) in place of a random integer one: an identity that is
    polynomial in the entries and holds for it holds for every value at that size (exact, not sampled)."""
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"g{seed}_{i}_{j}"))


def _same(X, Y) -> bool:
    """X = Y as polynomials in the generic entries (shapes equal, every entry of X − Y expands to 0)."""
    X, Y = sympy.Matrix(X), sympy.Matrix(Y)
    return X.shape == Y.shape and all(sympy.expand(v) == 0 for v in X - Y)


def naive_stp(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    """Eq. (12) with sympy.kronecker_product: (A ⊗ I_{t/n})(B ⊗ I_{t/p})."""
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    return _kron(A, sympy.eye(t // n)) * _kron(B, sympy.eye(t // p))


def naive_stp_right(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    return _kron(sympy.eye(t // n), A) * _kron(sympy.eye(t // p), B)


def naive_dk(A: sympy.Matrix, B: sympy.Matrix, weighted: bool = False) -> sympy.Matrix:
    """Eq. (13) (or (61) when weighted): (A ⊗ 1ᵀ_{t/n})(B ⊗ 1_{t/p}) [· 1/(t/p)]."""
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    out = _kron(A, _ones(t // n).T) * _kron(B, _ones(t // p))
    return out / (t // p) if weighted else out


def naive_sta(x: sympy.Matrix, y: sympy.Matrix, sign: int = 1) -> sympy.Matrix:
    """Eq. (14): (x ⊗ 1_{t/m}) ± (y ⊗ 1_{t/n})."""
    t = math.lcm(x.rows, y.rows)
    return _kron(x, _ones(t // x.rows)) + sign * _kron(y, _ones(t // y.rows))


def _M(x) -> sympy.Matrix:
    return sympy.Matrix(x)


def _dims(k: int, bound: int):
    """All k-tuples of dimensions in [1, bound], smallest total first."""
    return sorted(itertools.product(range(1, bound + 1), repeat=k), key=lambda c: (sum(c), c))


def _exact_exhaustive(pred, cases, describe, witness=None):
    tr = exhaustive(pred, cases, describe=describe, witness=witness, method="exact")
    return tr


@claim(
    "cheng2025:beyond/stp-formula",
    quote="A ⋉ B := (A ⊗ I_{t/n})(B ⊗ I_{t/p}),  t = lcm(n, p)   (12)",
    statement=(
        "isomat.algebra.stp (Chinese-remainder re-indexing, no Kronecker factor formed) equals the "
        "printed formula (12) built from the Kronecker definition, exactly, on generic (symbolic) matrices "
        "for every m, q ∈ {1, 2} and n, p ∈ [1, 5] (100 shapes: coprime, divisible and general n, p); "
        "likewise stp_right against (I_{t/n} ⊗ A)(I_{t/p} ⊗ B)."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_formula():
    def ok(c):
        m, n, p, q = c
        A, B = _grand(m, n, sum(c)), _grand(p, q, 7 * sum(c) + 1)
        return _stp_mod.stp(A, B) == naive_stp(A, B) and _stp_mod.stp_right(A, B) == naive_stp_right(A, B)

    cases = sorted(itertools.product((1, 2), range(1, 6), range(1, 6), (1, 2)), key=lambda c: (sum(c), c))
    return decide(_exact_exhaustive(ok, cases, "m, q in {1, 2}; n, p in [1, 5]; integer entries in [-3, 3]"))


@claim(
    "cheng2025:def2.1/eq12",
    quote="(3) A ⋉ B = AB when n = p; (4) associativity; (5) distributivity — required of any STP",
    statement=(
        "The MM-STP of eq. (12) satisfies Def. 2.1, exactly, with the naive formula (12) on generic (symbolic) matrices "
        "(so for all values at each size): "
        "A ⋉ B = AB for A m×n, B n×q, all m, n, q in [1, 3]; (A ⋉ B) ⋉ C = A ⋉ (B ⋉ C) for A 1×n, B p×q, C r×1 (the outer sizes do not enter the STP), all "
        "n, p, q, r in [1, 3]; (A + A') ⋉ C = A ⋉ C + A' ⋉ C and Cᵀ ⋉ (A + A') = Cᵀ ⋉ A + Cᵀ ⋉ A' for A, A' m×n, "
        "C p×2, all m, n, p in [1, 3]. (Hypothesis-drawn dims up to 6: beyond/stp-associative, beyond/stp-property-sweep.)"
    ),
    methods=["exact", "exhaustive"],
)
def _def21_eq12():
    def generalizes(c):
        m, n, q = c
        A, B = _grand(m, n, 3 * sum(c)), _grand(n, q, 5 * sum(c))
        return _same(naive_stp(A, B), A * B)

    def assoc(c):
        n, p, q, r = c
        A, B, C = _grand(1, n, sum(c)), _grand(p, q, 2 * sum(c) + 1), _grand(r, 1, 3 * sum(c) + 2)
        return _same(naive_stp(naive_stp(A, B), C), naive_stp(A, naive_stp(B, C)))

    def distrib(c):
        m, n, p = c
        A, A2, C = _grand(m, n, sum(c)), _grand(m, n, sum(c) + 9), _grand(p, 2, sum(c) + 4)
        return (_same(naive_stp(A + A2, C), naive_stp(A, C) + naive_stp(A2, C))
                and _same(naive_stp(C.T, A + A2), naive_stp(C.T, A) + naive_stp(C.T, A2)))

    return decide(all_of(
        _exact_exhaustive(generalizes, _dims(3, 3), "m, n, q in [1, 3]"),
        _exact_exhaustive(assoc, _dims(4, 3), "n, p, q, r in [1, 3]"),
        _exact_exhaustive(distrib, _dims(3, 3), "m, n, p in [1, 3]"),
    ))


@claim(
    "cheng2025:beyond/stp-associative",
    quote="(classical; Cheng, Qi & Zhao 2012, Thm 2.11) (A ⋉ B) ⋉ C = A ⋉ (B ⋉ C) for all dimensions",
    statement=(
        "Associativity of isomat's stp on Hypothesis-drawn dimensions (each in [1, 6], so coprime, "
        "divisible and general pairs occur) and integer entries in [-3, 3], exact (SymPy), 60 examples. Sampled: an "
        "exact check for every dimension needs lcm(lcm(m, n), k) = lcm(m, lcm(n, k)) inside the block structure, "
        "which the prover here does not yet have, so it is infeasible here."
    ),
    methods=["property", "exact"],
)
def _stp_assoc():
    dims = st.tuples(*[st.integers(1, 6)] * 6)

    def ok(d):
        m, n, p, q, r, s = d
        A, B, C = _rand(m, n, sum(d)), _rand(p, q, sum(d) + 1), _rand(r, s, sum(d) + 2)
        S = _stp_mod.stp
        return S(S(A, B), C) == S(A, S(B, C))

    return decide(property_search(ok, dims, describe="A m×n, B p×q, C r×s; all dims in [1, 6]", max_examples=60))


@claim(
    "cheng2025:beyond/stp-transpose-inverse",
    quote="(classical) (A ⋉ B)ᵀ = Bᵀ ⋉ Aᵀ;  (A ⋉ B)⁻¹ = B⁻¹ ⋉ A⁻¹ for invertible A, B",
    statement=(
        "Exact on generic (symbolic) matrices, so for all values at each size, using isomat's stp: the transpose rule "
        "and distributivity over + for every (m, n, p, q) in [1, 3]^4 (Hypothesis-drawn dims up to 6 in "
        "beyond/stp-property-sweep); the inverse rule for every pair of square sizes n, p in [1, 3] as the polynomial "
        "identity (A ⋉ B)(adj B ⋉ adj A) = det A det B · I (by bilinearity of ⋉ this is (A ⋉ B)(B⁻¹ ⋉ A⁻¹) = I for every "
        "invertible A, B)."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_transpose_inverse():
    S = _stp_mod.stp

    def transpose(c):
        m, n, p, q = c
        A, B, A2 = _grand(m, n, 11), _grand(p, q, 12), _grand(m, n, 13)
        return _same(S(A, B).T, S(B.T, A.T)) and _same(S(A + A2, B), S(A, B) + S(A2, B))

    def inverse(c):
        n, p = c
        A, B = _grand(n, n, 20), _grand(p, p, 21)
        P = S(A, B)
        return _same(P * S(B.adjugate(), A.adjugate()), A.det() * B.det() * sympy.eye(P.rows))

    return decide(all_of(
        _exact_exhaustive(transpose, _dims(4, 3), "m, n, p, q in [1, 3] (dims up to 6 in beyond/stp-property-sweep)"),
        _exact_exhaustive(inverse, _dims(2, 3), "generic square A n×n, B p×p, n, p in [1, 3]"),
    ))


@claim(
    "cheng2025:beyond/stp-vector-commute",
    quote="(classical pseudo-commutativity) X ⋉ A = (I_t ⊗ A) ⋉ X for a column X ∈ R^t; A ⋉ Z = Z ⋉ (I_t ⊗ A) for a row Z",
    statement=(
        "Exact, isomat's stp, for every A of size m×n with m, n ∈ [1, 4] and t ∈ [1, 4], generic (symbolic) entries "
        "of A, X, Z (so for all values at each size)."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_commute():
    S = _stp_mod.stp

    def ok(c):
        m, n, t = c
        A, X, Z = _grand(m, n, sum(c)), _grand(t, 1, sum(c) + 3), _grand(1, t, sum(c) + 5)
        It = _kron(sympy.eye(t), A)
        return S(X, A) == S(It, X) and S(A, Z) == S(Z, It)

    return decide(_exact_exhaustive(ok, _dims(3, 4), "m, n, t in [1, 4]"))


def naive_swap(m: int, n: int) -> sympy.Matrix:
    """W[m,n] from its definition: column of δ_m^i ⊗ δ_n^j is δ_n^j ⊗ δ_m^i."""
    cols = []
    for i in range(m):
        for j in range(n):
            cols.append(_kron(sympy.eye(n)[:, j], sympy.eye(m)[:, i]))
    return sympy.Matrix.hstack(*cols)


@claim(
    "cheng2025:beyond/swap-matrix",
    quote="(classical) W[m,n](x ⋉ y) = y ⋉ x;  W[m,n]ᵀ = W[m,n]⁻¹ = W[n,m];  W[m,p](A ⊗ B)W[q,n] = B ⊗ A",
    statement=(
        "Proved for all m, n, p, q >= 1 on the entry rule of isomat's swap_matrix (column k = i n + j has its 1 in "
        "row σ(k) = j m + i; the builder equals it: tests/test_stp.py): σ is a permutation of [0, mn) with inverse "
        "σ_{n,m}, W[m,n]ᵀ = W[n,m] = W[m,n]⁻¹; W[m,n](x ⊗ y) = y ⊗ x for all x, y (for columns x ⋉ y = x ⊗ y, "
        "eq. 12 with t = n); and W[m,p](A⊗B)W[q,n] = B⊗A for all A m×n, B p×q (a permutation matrix product "
        "permutes the indices; A, B, x, y are uninterpreted). Cross-check: exact, swap_matrix vs the column "
        "definition, orthogonality and W(x ⋉ y) = y ⋉ x with isomat's stp for m, n <= 5, the Kronecker swap for "
        "m, n, p, q in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
)
def _swap():
    W = lambda m, n: sympy.Matrix(_stp_mod.swap_matrix(m, n, backend="sympy"))  # noqa: E731

    def basic(c):
        m, n = c
        x, y = _rand(m, 1, sum(c)), _rand(n, 1, sum(c) + 1)
        Wmn = W(m, n)
        return (Wmn == naive_swap(m, n) and Wmn.T * Wmn == sympy.eye(m * n) and Wmn.T == W(n, m)
                and Wmn * _stp_mod.stp(x, y) == _stp_mod.stp(y, x))

    def kron_swap(c):
        m, n, p, q = c
        A, B = _rand(m, n, sum(c)), _rand(p, q, sum(c) + 2)
        return W(m, p) * _kron(A, B) * W(q, n) == _kron(B, A)

    import z3

    m, n, p, q, k, r, c = _pv.ints("m n p q k r c")
    R = z3.RealSort()
    x, y = z3.Function("x", z3.IntSort(), R), z3.Function("y", z3.IntSort(), R)
    sw, fd, fm = _stp_mod.swap_row, _pv.fdiv, _pv.fmod
    perm = _proof_trial(
        _pv.both(0 <= sw(k, m, n), sw(k, m, n) < m * n, sw(sw(k, m, n), n, m) == k,
                 y(fd(sw(k, m, n), m)) * x(fm(sw(k, m, n), m)) == x(fd(k, n)) * y(fm(k, n))),
        for_all="for all m, n >= 1, 0 <= k < mn, and all x ∈ R^m, y ∈ R^n (uninterpreted)",
        assuming=[m >= 1, n >= 1, 0 <= k, k < m * n],
        describe="σ_{m,n}(k) = swap_row(k, m, n) maps [0, mn) into itself and σ_{n,m}∘σ_{m,n} = id (for all m, n, so "
                 "also σ_{m,n}∘σ_{n,m} = id): W[m,n] is a permutation matrix with W[m,n]⁻¹ = W[m,n]ᵀ = W[n,m]; "
                 "(x ⊗ y)[k] = (y ⊗ x)[σ(k)], i.e. W[m,n](x ⊗ y) = y ⊗ x")
    kron = _proof_trial(
        _pv.both(fd(sw(r, p, m), p) == fm(r, m), fm(sw(r, p, m), p) == fd(r, m),
                 fd(sw(c, q, n), q) == fm(c, n), fm(sw(c, q, n), q) == fd(c, n)),
        for_all="for all m, n, p, q >= 1, 0 <= r < pm, 0 <= c < qn",
        assuming=[m >= 1, n >= 1, p >= 1, q >= 1, 0 <= r, r < p * m, 0 <= c, c < q * n],
        describe="(W[m,p] (A⊗B) W[q,n])[r, c] = (A⊗B)[σ_{m,p}⁻¹(r), σ_{q,n}(c)] = (A⊗B)[σ_{p,m}(r), σ_{q,n}(c)] "
                 "= A[σ_{p,m}(r) div p, σ_{q,n}(c) div q]·B[σ_{p,m}(r) mod p, σ_{q,n}(c) mod q]; the proved digits "
                 "(σ_{p,m}(r) div p = r mod m, σ_{p,m}(r) mod p = r div m, likewise for c) turn it into "
                 "A[r mod m, c mod n]·B[r div m, c div n] = (B⊗A)[r, c] for every A, B")
    cross = all_of(
        _exact_exhaustive(basic, _dims(2, 5), "m, n in [1, 5]"),
        _exact_exhaustive(kron_swap, _dims(4, 3), "m, n, p, q in [1, 3]"),
    )
    return decide(_textbook(all_of(perm, kron), "kron-entry", "kron-column", "permutation-matrix-action", "matmul-entry"),
                  exhaustive_crosscheck=_crosscheck(cross))


@claim(
    "cheng2025:beyond/power-reducing-dummy",
    quote=(
        "(classical) x ⋉ x = M_{r,k} x for x ∈ Δ_k; D_f x y = x, D_r x y = y (front-/rear-maintaining); "
        "S_i x_1 ⋉ ... ⋉ x_d = x_i (retriever)"
    ),
    statement=(
        "Exhaustive over all logical vectors: k ∈ [2, 5] for M_{r,k}; p, q ∈ [1, 4] for D_f, D_r; all "
        "dims tuples of length ≤ 3 with entries in [2, 3] and every i for the retriever; exact."
    ),
    methods=["exact", "exhaustive"],
)
def _power_dummy():
    S = _stp_mod.stp
    d = lambda k, i: sympy.eye(k)[:, i]  # noqa: E731

    def power(k):
        Mr = sympy.Matrix(_stp_mod.power_reducing_matrix(k, backend="sympy"))
        return all(S(d(k, i), d(k, i)) == Mr * d(k, i) for i in range(k))

    def dummy(c):
        p, q = c
        Df = sympy.Matrix(_stp_mod.front_maintaining(p, q, backend="sympy"))
        Dr = sympy.Matrix(_stp_mod.rear_maintaining(p, q, backend="sympy"))
        return all(Df * S(d(p, i), d(q, j)) == d(p, i) and Dr * S(d(p, i), d(q, j)) == d(q, j)
                   for i in range(p) for j in range(q))

    def retr(dims):
        for i in range(1, len(dims) + 1):
            R = sympy.Matrix(_stp_mod.retriever(list(dims), i, backend="sympy"))
            for idx in itertools.product(*[range(k) for k in dims]):
                x = _stp_mod.stp_chain(*[d(k, j) for k, j in zip(dims, idx)]) if len(dims) > 1 else d(dims[0], idx[0])
                if R * x != d(dims[i - 1], idx[i - 1]):
                    return False
        return True

    retr_cases = [c for L in (1, 2, 3) for c in itertools.product((2, 3), repeat=L)]
    return decide(all_of(
        _exact_exhaustive(power, range(2, 6), "k in [2, 5]"),
        _exact_exhaustive(dummy, _dims(2, 4), "p, q in [1, 4]"),
        _exact_exhaustive(retr, retr_cases, "dims in {2, 3}^L, L <= 3"),
    ))


@claim(
    "cheng2025:beyond/stp-property-sweep",
    quote=(
        "(classical; Cheng, Qi & Zhao 2012) for all dimensions: (A ⋉ B)ᵀ = Bᵀ ⋉ Aᵀ, (A + A') ⋉ B = A ⋉ B + A' ⋉ B, "
        "B ⋉ (A + A') = B ⋉ A + B ⋉ A'; X ⋉ A = (I_t ⊗ A) ⋉ X; the same laws for the DK-STP (13), also associative"
    ),
    statement=(
        "Hypothesis-drawn dimensions, each in [1, 6] (so coprime, divisible and general n, p all occur; shrinking "
        "would give a minimal failure), integer entries in [-3, 3], exact (SymPy), 60 examples: for isomat's stp: "
        "transpose rule and both distributive laws; for isomat's dk_stp: equality with the naive formula (13), "
        "associativity, both distributive laws, and the transpose rule (A ⋉_DK B)ᵀ = Bᵀ ⋉_DK Aᵀ; pseudo-commutativity "
        "X ⋉ A = (I_r ⊗ A) ⋉ X, A ⋉ Z = Z ⋉ (I_r ⊗ A) for a column X ∈ R^r and a row Z (isomat's stp). Sampled: "
        "an exact check for every dimension needs sums over lcm-sized blocks that the prover here does not yet "
        "handle, so it is infeasible here."
    ),
    methods=["property", "exact"],
)
def _property_sweep():
    S, D = _stp_mod.stp, _stp_mod.dk_stp

    def ok(d):
        m, n, p, q, r, u = d
        A, A2 = _rand(m, n, sum(d) + 40), _rand(m, n, sum(d) + 41)
        B, B2 = _rand(p, q, sum(d) + 42), _rand(p, q, sum(d) + 43)
        C = _rand(r, u, sum(d) + 44)
        stp_ok = (S(A, B).T == S(B.T, A.T) and S(A + A2, B) == S(A, B) + S(A2, B)
                  and S(A, B + B2) == S(A, B) + S(A, B2))
        dk_ok = (D(A, B) == naive_dk(A, B) and D(D(A, B), C) == D(A, D(B, C))
                 and D(A + A2, B) == D(A, B) + D(A2, B) and D(A, B + B2) == D(A, B) + D(A, B2)
                 and D(A, B).T == D(B.T, A.T))
        X, Z = _rand(r, 1, sum(d) + 45), _rand(1, r, sum(d) + 46)
        It = _kron(sympy.eye(r), A)
        commute_ok = S(X, A) == S(It, X) and S(A, Z) == S(Z, It)
        return stp_ok and dk_ok and commute_ok

    return decide(property_search(ok, st.tuples(*[st.integers(1, 6)] * 6),
                                  describe="A m×n, B p×q, C r×u; all dims in [1, 6]; entries in [-3, 3]", max_examples=60))


@claim(
    "cheng2025:beyond/logic-structure-matrices",
    quote=(
        "(classical) σ(p, q) = M_σ ⋉ p ⋉ q with M_¬ = δ2[2 1], M_∧ = δ2[1 2 2 2], M_∨ = δ2[1 1 1 2], "
        "M_→ = δ2[1 2 1 1], M_↔ = δ2[1 2 2 1]; and M_σ2 ⋉ M_σ1-type compositions give the structure matrix "
        "of a compound expression"
    ),
    statement=(
        "For k ∈ [2, 4] and every connective (¬, ∧, ∨, →, ↔, xor, nand, nor): M_σ ⋉ δ_k^i ⋉ δ_k^j equals "
        "δ_k of the truth value σ((k−i)/(k−1), (k−j)/(k−1)) computed directly (min/max/1−p), for all i, j; "
        "the Boolean δ-forms equal the printed ones; and for the compound p → (q ∧ ¬r) the structure matrix "
        "from the expression equals M_→ ⋉ p ⋉ M_∧ ⋉ q ⋉ M_¬ ⋉ r evaluated with the classical rule "
        "(move logical vectors right with swap / dummy) on every assignment."
    ),
    methods=["exact", "exhaustive"],
)
def _logic_claim():
    S = _stp_mod.stp
    direct = {
        "conjunction": lambda p, q: min(p, q), "disjunction": lambda p, q: max(p, q),
        "implication": lambda p, q: max(1 - p, q),
        "equivalence": lambda p, q: min(max(1 - p, q), max(1 - q, p)),
        "xor": lambda p, q: 1 - min(max(1 - p, q), max(1 - q, p)),
        "nand": lambda p, q: 1 - min(p, q), "nor": lambda p, q: 1 - max(p, q),
    }

    def ok(k):
        val = lambda i: sympy.Rational(k - 1 - i, k - 1)  # noqa: E731
        vec = lambda v: sympy.eye(k)[:, int(k - 1 - v * (k - 1))]  # noqa: E731
        N = sympy.Matrix(_logic.negation(k, backend="sympy"))
        if any(N * sympy.eye(k)[:, i] != vec(1 - val(i)) for i in range(k)):
            return False
        for name, f in direct.items():
            M = sympy.Matrix(getattr(_logic, name)(k, backend="sympy"))
            for i in range(k):
                for j in range(k):
                    if S(M, S(sympy.eye(k)[:, i], sympy.eye(k)[:, j])) != vec(f(val(i), val(j))):
                        return False
        return True

    printed = {"negation": (2, 1), "conjunction": (1, 2, 2, 2), "disjunction": (1, 1, 1, 2),
               "implication": (1, 2, 1, 1), "equivalence": (1, 2, 2, 1)}
    forms = exhaustive(lambda name: getattr(_logic, name)(form="delta") == printed[name], list(printed),
                       describe="Boolean δ-forms vs the classical printed ones", method="exact")
    p, q, r = sympy.symbols("p q r")
    Mf = sympy.Matrix(_logic.structure_matrix(sympy.Implies(p, q & ~r), [p, q, r], backend="sympy"))
    Mi, Mc, Mn = (sympy.Matrix(f(backend="sympy")) for f in (_logic.implication, _logic.conjunction, _logic.negation))

    def compound(a):
        P, Qv, R = (sympy.eye(2)[:, i] for i in a)
        return Mf * S(S(P, Qv), R) == S(Mi, S(P, S(Mc, S(Qv, S(Mn, R)))))

    comp = _exact_exhaustive(compound, list(itertools.product(range(2), repeat=3)), "all 8 assignments of p, q, r")
    return decide(all_of(_exact_exhaustive(ok, range(2, 5), "k in [2, 4]"), forms, comp))


@claim(
    "cheng2025:def2.1/eq13",
    quote="A ⋉_DK B := (A ⊗ 1ᵀ_{t/n})(B ⊗ 1_{t/p})   (13), claimed an STP in the sense of Def. 2.1",
    statement=(
        "The DK-STP satisfies Def. 2.1, proved for all sizes: (13) = A Ψ_{n×p} B with Ψ = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) "
        "(A ⊗ 1ᵀ_{t/n} = A (I_n ⊗ 1ᵀ_{t/n}), B ⊗ 1_{t/p} = (I_p ⊗ 1_{t/p}) B entrywise, uninterpreted A, B), and "
        "Ψ_{n×n} = I_n, so it equals AB when n = p; (A ⋉ B) ⋉ C = A Ψ B Ψ' C = A ⋉ (B ⋉ C) and distributivity "
        "follow from associativity and bilinearity of the matrix product. Cross-check: exact, naive (13), random "
        "integer matrices, dimensions in [1, 3], and isomat's dk_stp (prefix-sum projection, no t-sized factor) "
        "equals (13) for every (m, n, p, q) in [1, 3]^4."
    ),
    methods=["exact", "exhaustive"],
)
def _def21_eq13():
    def generalizes(c):
        m, n, q = c
        A, B = _rand(m, n, sum(c)), _rand(n, q, sum(c) + 1)
        return naive_dk(A, B) == A * B

    def assoc(c):
        n, p, q, r = c
        A, B, C = _rand(2, n, sum(c)), _rand(p, q, sum(c) + 1), _rand(r, 2, sum(c) + 2)
        return naive_dk(naive_dk(A, B), C) == naive_dk(A, naive_dk(B, C))

    def distrib(c):
        m, n, p = c
        A, A2, C = _rand(m, n, sum(c)), _rand(m, n, sum(c) + 3), _rand(p, 2, sum(c) + 4)
        return (naive_dk(A + A2, C) == naive_dk(A, C) + naive_dk(A2, C)
                and naive_dk(C.T, A + A2) == naive_dk(C.T, A) + naive_dk(C.T, A2))

    def impl(c):
        m, n, p, q = c
        A, B = _rand(m, n, sum(c) + 5), _rand(p, q, sum(c) + 6)
        return _stp_mod.dk_stp(A, B) == naive_dk(A, B) and _stp_mod.dk_stp_weighted(A, B) == naive_dk(A, B, True)

    cross = all_of(
        _exact_exhaustive(generalizes, _dims(3, 3), "m, n, q in [1, 3]"),
        _exact_exhaustive(assoc, _dims(4, 3), "n, p, q, r in [1, 3]"),
        _exact_exhaustive(distrib, _dims(3, 3), "m, n, p in [1, 3]"),
        _exact_exhaustive(impl, _dims(4, 3), "dk_stp vs (13), m, n, p, q in [1, 3]"),
    )
    C, count = _pi_count()
    n, l, k = _pv.ints("n l k")
    square = _proof_trial(
        C(l, k, n, 1, 1) == _pv.ite(l == k, 1, 0), for_all="for all n >= 1, 0 <= l, k < n",
        assuming=[n >= 1, 0 <= l, l < n, 0 <= k, k < n], lemmas=[count],
        describe="n = p: t = n and Ψ_{n×n} = (I_n ⊗ 1ᵀ_1)(I_n ⊗ 1_1) = I_n (block count), so A ⋉_DK B = AB")
    return decide(_textbook(all_of(_kron_ones_proof(), square), "matmul-associative", "matmul-bilinear"),
                  exhaustive_crosscheck=_crosscheck(cross))


@claim(
    "cheng2025:def2.3/sta",
    quote="x ± y := (x ⊗ 1_{t/m}) ± (y ⊗ 1_{t/n})   (14); STA must be commutative (8) and associative (9)",
    statement=(
        "isomat's sta / sta_sub equal (14); x ⊕ y = y ⊕ x and (x ⊕ y) ⊕ z = x ⊕ (y ⊕ z) — exact, generic "
        "(symbolic) vectors, all m, n, k in [1, 5]."
    ),
    methods=["exact", "exhaustive"],
)
def _def23():
    def ok(c):
        m, n, k = c
        x, y, z = _grand(m, 1, sum(c)), _grand(n, 1, sum(c) + 1), _grand(k, 1, sum(c) + 2)
        A = _stp_mod.sta
        return (A(x, y) == naive_sta(x, y) and _stp_mod.sta_sub(x, y) == naive_sta(x, y, -1)
                and A(x, y) == A(y, x) and A(A(x, y), z) == A(x, A(y, z)))

    return decide(_exact_exhaustive(ok, _dims(3, 5), "m, n, k in [1, 5]"))


def _gen(rows: int, cols: int, name: str) -> sympy.Matrix:
    """Generic (symbolic) matrix: a failure found with it is a failure for almost all values."""
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i + 1}_{j + 1}"))


@claim(
    "cheng2025:beyond/dk-stp-mv",
    quote=(
        "(10) A ⋉ (B ⋉ x) = (A ⋉ B) ⋉ x;  (11) A ⋉ (x ⊕ y) = (A ⋉ x) ⊕ (A ⋉ y) — required of an MV-STP; "
        "the paper gives no concrete MV-STP, the DK-STP (13) with a vector is the one it uses later"
    ),
    statement=(
        "Not asserted in so many words: whether the DK-STP (13), applied to a column vector, with the STA (14) is an "
        "MV-STP of Def. 2.4. (10) is checked symbolically (generic A m×n, B p×q, x ∈ R^r) for all m, n, p, q, r in [1, 2]; "
        "(11) symbolically (generic A m×n, x ∈ R^{p1}, y ∈ R^{p2}) for all (m, n, p1, p2) in [1, 3]^4, smallest first, "
        "so the first failing size is minimal for generic values; the counterexample is that size with all entries 1. "
        "The correction (projection-based product) is checked the same way."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=_SIZES,
)
def _def24():
    def semigroup(c, prod):
        m, n, p, q, r = c
        A, B, x = _gen(m, n, "a"), _gen(p, q, "b"), _gen(r, 1, "x")
        return (prod(A, prod(B, x)) - prod(prod(A, B), x)).expand().is_zero_matrix

    def distributive(c, prod):
        m, n, p1, p2 = c
        A, x, y = _gen(m, n, "a"), _gen(p1, 1, "x"), _gen(p2, 1, "y")
        return (prod(A, naive_sta(x, y)) - naive_sta(prod(A, x), prod(A, y))).expand().is_zero_matrix

    def witness(c):
        m, n, p1, p2 = c
        A, x, y = sympy.ones(m, n), sympy.ones(p1, 1), sympy.ones(p2, 1)
        lhs, rhs = naive_dk(A, naive_sta(x, y)), naive_sta(naive_dk(A, x), naive_dk(A, y))
        if lhs == rhs:
            raise AssertionError("the all-ones instance does not separate the two sides")
        return {"A": A, "x": x, "y": y, "A⋉(x⊕y)": lhs, "(A⋉x)⊕(A⋉y)": rhs}

    def pp(M, v):  # projection-based product A ⋉_Π B := A Π^p_n B
        return M * naive_projection(v.rows, M.cols) * v

    def sym_exhaustive(pred, cases, describe, witness=None):
        tr = exhaustive(pred, cases, describe=describe, witness=witness, method="symbolic")
        return tr

    printed = all_of(
        sym_exhaustive(lambda c: semigroup(c, naive_dk), _dims(5, 2), "(10): m, n, p, q, r in [1, 2], generic entries"),
        sym_exhaustive(lambda c: distributive(c, naive_dk), _dims(4, 3), "(11): m, n, p1, p2 in [1, 3], generic entries",
                       witness),
    )
    corrected = all_of(
        sym_exhaustive(lambda c: semigroup(c, pp), _dims(5, 2), "(10) for A Π^p_n B: m, n, p, q, r in [1, 2]"),
        sym_exhaustive(lambda c: distributive(c, pp), _dims(4, 3), "(11) for A Π^p_n x: m, n, p1, p2 in [1, 3]"),
    )
    return decide(printed, correction=(
        "the DK-STP satisfies (10) but not (11); the projection-based product A ⋉_Π B := A Π^p_n B = (n/t)·(A ⋉_DK B) "
        "satisfies both (with ⊕ the STA): A Π^t_n (x ⊗ 1 + y ⊗ 1) = A Π^{p1}_n x + A Π^{p2}_n y",
        corrected))


@claim(
    "cheng2025:prop2.7",
    quote="Ψ_{n×p} := (I ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/p}) ∈ M_{n×m}   (15),   M ⋉ N = M Ψ_{n×p} N   (16)",
    statement=(
        "Printed (15) read with I = I_n: the product is formed when the inner sizes agree and must be an n×m "
        "matrix with (16) for the DK-STP (13); checked exactly for all (m, n, p, q) in [1, 3]^4 by size. "
        "Correction: Ψ_{n×p} = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) ∈ M_{n×p} (n×t times t×p), and M Ψ_{n×p} N = (13), "
        "proved for all sizes: M ⊗ 1ᵀ_{t/n} = M (I_n ⊗ 1ᵀ_{t/n}) and N ⊗ 1_{t/p} = (I_p ⊗ 1_{t/p}) N entrywise "
        "(delta-sum lemma, uninterpreted M, N, as in def2.1/eq13), then associativity of the matrix product. "
        "Exact cross-check on generic matrices against (13) and against isomat's bridge, all sizes in [1, 3]^4."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop27():
    def printed_ok(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        L = _kron(sympy.eye(n), _ones(t // n).T)
        R = _kron(sympy.eye(m), _ones(t // p))
        if L.cols != R.rows:
            return False
        Psi = L * R
        if Psi.shape != (n, m):
            return False
        A, B = _grand(m, n, 1), _grand(p, q, 2)
        return Psi.shape[1] == B.rows and _same(A * Psi * B, naive_dk(A, B))

    def witness(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        return {"(I_n ⊗ 1ᵀ_{t/n}) size": [n, n * (t // n)], "(I_m ⊗ 1_{t/p}) size": [m * (t // p), m]}

    printed = exhaustive(printed_ok, _dims(4, 3), describe="m, n, p, q in [1, 3]", witness=witness, method="exact")

    def corr(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        Psi = _kron(sympy.eye(n), _ones(t // n).T) * _kron(sympy.eye(p), _ones(t // p))
        A, B = _grand(m, n, 1), _grand(p, q, 2)
        return (Psi.shape == (n, p) and _same(A * Psi * B, naive_dk(A, B))
                and sympy.Matrix(_stp_mod.bridge(n, p, backend="sympy")) == Psi)

    return decide(printed, correction=(
        "Ψ_{n×p} = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) ∈ M_{n×p} (= (t/n)·Π^p_n), and then M ⋉_DK N = M Ψ_{n×p} N",
        _textbook(_kron_ones_proof(), "matmul-associative")),
        corrected_exhaustive_crosscheck=_crosscheck(_exact_exhaustive(corr, _dims(4, 3), "m, n, p, q in [1, 3]")))


@claim(
    "cheng2025:def2.8",
    quote="<x, y>_V := (1/t) <x ⊗ 1_{t/m}, y ⊗ 1_{t/n}>  (17);  ||x||_V (18);  d_V(x, y) := ||x − y||_V  (19)",
    statement=(
        "isomat's inner_v / norm_v / dist_v (O(m + n), no R^t vector) equal (17)-(19) exactly for all m, n in "
        "[1, 8] on integer vectors; <·,·>_V is symmetric and ||x||²_V = ||x||²/m; d_V is a pseudometric on R^∞: "
        "the triangle inequality holds (Hypothesis, float64, tol 1e-12, sizes ≤ 12) and d_V(x, x ⊗ 1_k) = 0 for "
        "x ≠ x ⊗ 1_k (so d_V is a metric only on the quotient by ~, as in Cheng 2019). Sampled: the triangle "
        "inequality involves square roots of sums over symbolic lengths, for which an exact check at every size is "
        "infeasible here (the identities (17)-(19) themselves are exact)."
    ),
    methods=["exact", "exhaustive", "property"],
)
def _def28():
    def ok(c):
        m, n = c
        x, y = _rand(m, 1, sum(c)), _rand(n, 1, sum(c) + 1)
        return (sympy.simplify(_stp_mod.inner_v(x, y) - naive_inner_v(x, y)) == 0
                and _stp_mod.inner_v(x, y) == _stp_mod.inner_v(y, x)
                and _stp_mod.norm_v(x) ** 2 == (x.T * x)[0, 0] / m
                and sympy.simplify(_stp_mod.dist_v(x, y) ** 2 - naive_dist_v_sq(x, y)) == 0
                and _stp_mod.dist_v(x, _kron(x, _ones(2))) == 0)

    vec = lambda k: st.lists(st.integers(-9, 9), min_size=k, max_size=k)  # noqa: E731
    tri = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12)).flatmap(
        lambda d: st.tuples(vec(d[0]), vec(d[1]), vec(d[2])))

    def triangle(c):
        x, y, z = (_dev(v) for v in c)
        D = lambda a, b: float(to_numpy(_stp_mod.dist_v(a, b)))  # noqa: E731
        return D(x, z) <= D(x, y) + D(y, z) + 1e-12

    return decide(all_of(_exact_exhaustive(ok, _dims(2, 8), "m, n in [1, 8]"),
                         property_search(triangle, tri, describe="x, y, z integer vectors, sizes in [1, 12]", max_examples=80)))


@claim(
    "cheng2025:prop2.12",
    quote="x +_r y := Π^m_r x + Π^n_r y  (23);  x +_r y = Π^t_r (x + y),  t = lcm(m, n)  (24)",
    statement=(
        "With x + y the STA (14), x ⊕ y = (I_m ⊗ 1_{t/m}) x + (I_n ⊗ 1_{t/n}) y, so by linearity (24) holds for all "
        "x, y exactly when Π^t_r (I_m ⊗ 1_{t/m}) = Π^m_r and Π^t_r (I_n ⊗ 1_{t/n}) = Π^n_r; both are instances of "
        "Π^t_r (I_m ⊗ 1_μ) = Π^m_r, proved for all m, μ, r >= 1 and t = mμ (so for t = lcm(m, n) and m or n) on "
        "the entry rule of Π (as in prop2.12/eq26). Cross-check: (24) with symbolic x ∈ R^m, y ∈ R^n and isomat's nominal_add = (23), "
        "all m, n, r in [1, 4]."
    ),
    methods=["symbolic", "exhaustive"],
)
def _prop212():
    def ok(c):
        m, n, r = c
        x = sympy.Matrix(sympy.symbols(f"x0:{m}"))
        y = sympy.Matrix(sympy.symbols(f"y0:{n}"))
        t = math.lcm(m, n)
        lhs = naive_projection(m, r) * x + naive_projection(n, r) * y
        rhs = naive_projection(t, r) * naive_sta(x, y)
        impl = _stp_mod.nominal_add(x, y, r)
        return (lhs - rhs).expand().is_zero_matrix and (lhs - impl).expand().is_zero_matrix

    tr = exhaustive(ok, _dims(3, 4), describe="m, n, r in [1, 4], symbolic x, y", method="symbolic")
    return decide(_textbook(_eq26_proof(), "kron-column", "matmul-bilinear", "matmul-entry"),
                  exhaustive_crosscheck=_crosscheck(tr))


def _eq26_proof():
    """(26) as an entry identity, for all sizes: Σ_{u ∈ block j} Π^t_r[i, u] = Π^m_r[i, j], t = m μ.
    (27) is the same statement for n, ν = t/n: one universally quantified proof covers both."""
    S, prefix = _pi_prefix()
    m, mu, r, i, j = _pv.ints("m mu r i j")
    return _proof_trial(
        S(i, (j + 1) * mu, m * mu, r) - S(i, j * mu, m * mu, r) == mu * _ov_rule(i, j, m, r),
        for_all="for all m, μ, r >= 1 (t = mμ: every multiple of m), 0 <= i < r, 0 <= j < m",
        assuming=[m >= 1, mu >= 1, r >= 1, 0 <= i, i < r, 0 <= j, j < m], lemmas=[prefix],
        describe="t·Σ_{u=jμ}^{jμ+μ-1} Π^t_r[i,u] = S(i,(j+1)μ,t,r) − S(i,jμ,t,r) = μ·ov(i,j,m,r) = t·Π^m_r[i,j], "
                 "i.e. Π^t_r (I_m ⊗ 1_μ) = Π^m_r for every multiple t = mμ of m")


@claim(
    "cheng2025:prop2.12/eq26",
    quote="Π^t_r (x ⊗ 1_{t/m}) = Π^m_r x  (26);  Π^t_r (y ⊗ 1_{t/n}) = Π^n_r y  (27);  the split (25)",
    statement=(
        "(26) and (27) for every m | t: Π^t_r (I_m ⊗ 1_{t/m}) = Π^m_r as matrices, proved for all m, μ = t/m, r >= 1 "
        "on the entry rule m·Π^m_r[i, j] = ov(i, j, m, r): column j of the left side is the sum of the columns "
        "jμ, ..., jμ+μ−1 of Π^t_r, a difference of overlap prefix sums (proved lemma); this covers t = lcm(m, n) "
        "for every n, and (27) is the case m := n. (25) is linearity of Π^t_r. Cross-check: exact matrices, "
        "m <= 4, t/m <= 3, r <= 5."
    ),
    methods=["symbolic", "exact", "exhaustive"],
)
def _eq26():
    def ok(c):
        m, k, r = c
        t = m * k
        return naive_projection(t, r) * _kron(sympy.eye(m), _ones(k)) == naive_projection(m, r)

    cases = sorted(itertools.product(range(1, 5), range(1, 4), range(1, 6)), key=lambda c: (sum(c), c))
    return decide(_textbook(_eq26_proof(), "matmul-entry", "kron-entry", "matmul-bilinear"),
                  exhaustive_crosscheck=_crosscheck(_exact_exhaustive(ok, cases, "m <= 4, t/m <= 3, r <= 5")))


@claim(
    "cheng2025:def2.11",
    quote="The r-nominal addition of x and y is defined by x +_r y := Π^m_r x + Π^n_r y ∈ R^r. (23)",
    statement=(
        "+_r is an STA in the sense of Def. 2.3, i.e. commutative (8) and associative (9), for every r: "
        "x +_r y = Π^m_r x + Π^n_r y = y +_r x (vector addition commutes), and for x ∈ R^m, y ∈ R^n, z ∈ R^p, "
        "(x +_r y) +_r z = Π^r_r(Π^m_r x + Π^n_r y) + Π^p_r z = Π^m_r x + Π^n_r y + Π^p_r z = x +_r (y +_r z), since "
        "Π^r_r = I_r — proved for all r >= 1 on the entry rule of Π (r·Π^r_r[i, j] = ov(i, j, r, r) = r·[i = j]), with "
        "linearity of the matrix product. Exact cross-check: generic (symbolic) x, y, z, the naive (22) projections and "
        "isomat's nominal_add, all m, n, p, r in [1, 2] and four mixed cases with sizes 3."
    ),
    methods=["symbolic", "exact", "exhaustive"],
)
def _def211():
    r, i, j = _pv.ints("r i j")
    ident = _proof_trial(
        _ov_rule(i, j, r, r) == _pv.ite(i == j, r, 0), for_all="for all r >= 1, 0 <= i, j < r",
        assuming=[r >= 1, 0 <= i, i < r, 0 <= j, j < r],
        describe="Π^r_r[i, j] = ov(i, j, r, r)/r = [i = j]: Π^r_r = I_r, so (x +_r y) +_r z = Π^m_r x + Π^n_r y + "
                 "Π^p_r z = x +_r (y +_r z); x +_r y = y +_r x by commutativity of vector addition")

    def ok(c):
        m, n, p, r = c
        x, y, z = _grand(m, 1, 1), _grand(n, 1, 2), _grand(p, 1, 3)
        add = lambda a, b: naive_projection(a.rows, r) * a + naive_projection(b.rows, r) * b  # noqa: E731
        impl = sympy.Matrix(_stp_mod.nominal_add(x, y, r))
        return (_same(add(x, y), add(y, x)) and _same(add(add(x, y), z), add(x, add(y, z)))
                and _same(impl, add(x, y)))

    cases = _dims(4, 2) + [(2, 3, 1, 3), (3, 2, 3, 2), (1, 3, 2, 3), (3, 3, 2, 2)]
    cross = _exact_exhaustive(ok, cases, "m, n, p, r in [1, 2] and four mixed cases with sizes 3")
    return decide(_textbook(ident, "matmul-bilinear", "matmul-entry"), exhaustive_crosscheck=_crosscheck(cross))


@claim(
    "cheng2025:prop2.12/proof-coefficient",
    quote="Π^t_r (x ⊗ 1_{t/m}) = (1/r)(I_r ⊗ 1ᵀ_{s/r})(I_t ⊗ 1_{s/t})(x ⊗ 1_{t/m})  (first line of the proof)",
    statement=(
        "The scalar c with Π^t_r = c·(I_r ⊗ 1ᵀ_{s/r})(I_t ⊗ 1_{s/t}), s = lcm(t, r), recomputed from (22) for "
        "every t, r in [1, 4], compared with the printed 1/r (the next line of the proof uses r/s)."
    ),
    methods=["recompute"],
)
def _proof_coeff():
    printed, recomputed = {}, {}
    for t, r in itertools.product(range(1, 5), range(1, 5)):
        s = math.lcm(t, r)
        M = _kron(sympy.eye(r), _ones(s // r).T) * _kron(sympy.eye(t), _ones(s // t))
        P = naive_projection(t, r)
        c = P[0, 0] / M[0, 0]
        if P != c * M:
            raise AssertionError("Π^t_r is not a multiple of the Kronecker product")
        key = f"proof of Prop. 2.12, line 1, coefficient for t={t}, r={r}"
        printed[key] = sympy.Rational(1, r)
        recomputed[key] = c
    return compare_printed(printed, recomputed, correct_formula="r/s, s = lcm(t, r)")


@claim(
    "cheng2025:prop2.12/proof-steps",
    quote=(
        "= (r/s)(I_r ⊗ 1ᵀ_{s/r})[I_m ⊗ (I_μ ⊗ 1_{s/t})](x ⊗ 1_{t/m}) = ... = (r/s)(I_r ⊗ 1ᵀ_{s/r})(x ⊗ 1_{s/m}) = ... "
        "= (rλ/s)(I_r ⊗ 1ᵀ_{δ/r})(I_m ⊗ 1_{δ/m}) x = (r/δ)(I_r ⊗ 1ᵀ_{δ/r})(I_m ⊗ 1_{δ/m}) x = Π^m_r x  (proof of (26))"
    ),
    statement=(
        "Each line of the printed chain proving (26), from the second on, written as a matrix acting on x (x ⊗ v = "
        "(I_m ⊗ v) x) with t = lcm(m, n) = μm, s = lcm(t, r), δ = lcm(r, m), λ = s/δ, equals the line before; the "
        "first line is taken with the coefficient r/s (its printed 1/r is the misprint recorded in "
        "prop2.12/proof-coefficient); the chain starts at Π^t_r (x ⊗ 1_{t/m}) and ends at Π^m_r x (naive (22)). Exact, "
        "all m, n, r in [1, 4]; (27) is the same chain with m and n exchanged, i.e. the case (n, m, r) of the same loop."
    ),
    methods=["exact", "exhaustive"],
)
def _proof_steps():
    K, E = _kron, sympy.eye

    def chain(m, n, r):
        t = math.lcm(m, n)
        mu, s, delta = t // m, math.lcm(t, r), math.lcm(r, m)
        lam = s // delta
        c = sympy.Rational(r, s)
        head = K(E(r), _ones(s // r).T)
        return [
            naive_projection(t, r) * K(E(m), _ones(t // m)),
            c * head * K(E(t), _ones(s // t)) * K(E(m), _ones(t // m)),
            c * head * K(E(m), K(E(mu), _ones(s // t))) * K(E(m), _ones(t // m)),
            c * head * K(E(m), K(E(mu), _ones(s // t)) * _ones(mu)),
            c * head * K(E(m), K(_ones(mu), _ones(s // t))),
            c * head * K(E(m), _ones(s // m)),
            c * K(K(E(r), _ones(delta // r).T), _ones(lam).T) * K(K(E(m), _ones(delta // m)), _ones(lam)),
            sympy.Rational(r * lam, s) * K(E(r), _ones(delta // r).T) * K(E(m), _ones(delta // m)),
            sympy.Rational(r, delta) * K(E(r), _ones(delta // r).T) * K(E(m), _ones(delta // m)),
            naive_projection(m, r),
        ]

    def ok(c):
        m, n, r = c
        L = chain(m, n, r)
        return all(a == b for a, b in itertools.pairwise(L))

    def witness(c):
        L = chain(*c)
        k = next(i for i, (a, b) in enumerate(itertools.pairwise(L)) if a != b)
        return {"first unequal step": k + 1, "before": L[k], "after": L[k + 1]}

    return decide(_exact_exhaustive(ok, _dims(3, 4), "m, n, r in [1, 4]", witness))


# =============================================================================================
# §III: the transformer formulas against the standard definitions (torch as the reference)
# =============================================================================================
def _torch():
    import torch

    return torch


def _rnd(shape, seed, lo=-3, hi=3):
    return np.random.default_rng(seed).integers(lo, hi + 1, size=shape)


def _softmax_np(E):
    E = np.asarray(E, dtype=float)
    ex = np.exp(E - np.where(np.isfinite(E.max(axis=1, keepdims=True)), E.max(axis=1, keepdims=True), 0))
    with np.errstate(invalid="ignore"):
        return ex / ex.sum(axis=1, keepdims=True)


def _sdpa(Q, K, V, causal=False):
    torch = _torch()
    t = lambda a: torch.tensor(np.asarray(a, dtype=float), dtype=torch.float64)  # noqa: E731
    return torch.nn.functional.scaled_dot_product_attention(t(Q)[None], t(K)[None], t(V)[None], is_causal=causal)[0].numpy()


def _close(a, b, tol=1e-12):
    a, b = np.asarray(to_numpy(a), dtype=float), np.asarray(to_numpy(b), dtype=float)
    return a.shape == b.shape and bool(np.all(np.isfinite(a))) and bool(np.allclose(a, b, rtol=tol, atol=tol))


def _num_exhaustive(pred, cases, describe, witness=None):
    """Float checks on random data: every size, one random instance each -- strength "sampled" (SAMPLED_WHY)."""
    return exhaustive(pred, cases, describe=describe + "; one random float64 instance per size", witness=witness,
                      method="numeric", strength="sampled")


@claim(
    "cheng2025:eq36",
    quote="Qᵀ = W^q Xᵀ, Kᵀ = W^k Xᵀ, Vᵀ = W^v Xᵀ,  W^q, W^k, W^v ∈ M_{n0×n0}   (36)",
    statement=(
        "(36) is the standard bias-free projection Q = X W^qᵀ of torch.nn.functional.linear(X, W^q): equal "
        "for all s, n0 in [1, 4] on integer X, W (float64, tol 1e-12)."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _eq36():
    torch = _torch()

    def ok(c):
        s, n0 = c
        X, W = _rnd((s, n0), sum(c)), _rnd((n0, n0), sum(c) + 1)
        ref = torch.nn.functional.linear(torch.tensor(X, dtype=torch.float64), torch.tensor(W, dtype=torch.float64)).numpy()
        return _close((W @ X.T).T, ref)

    return decide(_num_exhaustive(ok, _dims(2, 4), "s, n0 in [1, 4]"))


@claim(
    "cheng2025:eq43",
    quote="A = softmax(QKᵀ/√n)  (41);  for E := QKᵀ/√s, softmax(E) row-wise  (43);  softmax(QKᵀ/√s + PM)V  (48)",
    statement=(
        "Eqs. (43) and (48) scale by 1/√s (s = batch/sequence length) where the paper's own (41) (and the standard "
        "attention of [18]) scale by 1/√d_k (d_k = n0, the query/key dimension): the two printed scalings differ "
        "whenever s ≠ n0 (compared for every s, n0 in [1, 4]), so the paper is inconsistent. Checked: softmax(QKᵀ/√s)V equals "
        "torch.nn.functional.scaled_dot_product_attention (scale 1/√n0) for all s, n0 in [1, 4], integer Q, K, V "
        "(float64, tol 1e-12)."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq43():
    def case(c, scale_dim):
        s, n0 = c
        Q, K, V = _rnd((s, n0), sum(c)), _rnd((s, n0), sum(c) + 1), _rnd((s, n0), sum(c) + 2)
        d = s if scale_dim == "s" else n0
        return _softmax_np(Q @ K.T / math.sqrt(d)) @ V, _sdpa(Q, K, V)

    def witness(c):
        s, n0 = c
        mine, ref = case(c, "s")
        return {"Q": _rnd((s, n0), sum(c)).tolist(), "K": _rnd((s, n0), sum(c) + 1).tolist(),
                "V": _rnd((s, n0), sum(c) + 2).tolist(), "printed (1/√s)": mine.tolist(), "standard (1/√n0)": ref.tolist()}

    printed = _num_exhaustive(lambda c: _close(*case(c, "s")), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _num_exhaustive(lambda c: _close(*case(c, "n0")), _dims(2, 4), "s, n0 in [1, 4]")
    if not corrected.ok:
        raise CheckError("the correction E := QKᵀ/√n0 does not verify")
    sn = _dims(2, 4)
    o = compare_printed({f"scale of QKᵀ in (43)/(48), s = {s}, n0 = {n}": f"1/√{s}" for s, n in sn},
                        {f"scale of QKᵀ in (43)/(48), s = {s}, n0 = {n}": f"1/√{n}" for s, n in sn},
                        kind="inconsistent", method="compare the paper's two printed scalings",
                        against="(41): A = softmax(QKᵀ/√n), n = n0 the query/key dimension",
                        printed_vs_torch_sdpa=_crosscheck(printed), corrected_vs_torch_sdpa=_crosscheck(corrected))
    o.counterexample = printed.counterexample
    o.correction = "E := QKᵀ/√n0 (the key dimension d_k = n0, as in (41)), in (43) and (48)"
    return o


@claim(
    "cheng2025:eq47",
    quote="p_{i,j} = 0 for j > i,  −∞ for j ≤ i   (47);  Attention = softmax(QKᵀ/√s + PM)V  (48)",
    statement=(
        "The causal mask (47)-(48) compared with the standard causal attention (torch scaled_dot_product_attention, "
        "is_causal=True, scale 1/√n0 — the scale is taken as in the standard so only the mask is tested) for all "
        "s, n0 in [1, 4], integer Q, K, V; a row that is all −∞ gives NaN and counts as a failure."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq47():
    def run(c, printed):
        s, n0 = c
        Q, K, V = _rnd((s, n0), sum(c)), _rnd((s, n0), sum(c) + 1), _rnd((s, n0), sum(c) + 2)
        i, j = np.indices((s, s))
        PM = np.where(j > i, 0.0, -np.inf) if printed else np.where(j > i, -np.inf, 0.0)
        return _softmax_np(Q @ K.T / math.sqrt(n0) + PM) @ V, _sdpa(Q, K, V, causal=True)

    def witness(c):
        mine, ref = run(c, True)
        return {"printed mask result": [[str(v) for v in r] for r in mine.tolist()], "causal attention": ref.tolist()}

    printed = _num_exhaustive(lambda c: _close(*run(c, True)), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _num_exhaustive(lambda c: _close(*run(c, False)), _dims(2, 4), "s, n0 in [1, 4]")
    return decide(printed, correction=(
        "p_{i,j} = 0 for j ≤ i and −∞ for j > i (mask the future, keep the diagonal)", corrected))


@claim(
    "cheng2025:eq50",
    quote="Step 1, Add: Add is completed by residual network ... X' = ReLU(X + F(X))   (50);  Step 2, Normalization (52)",
    statement=(
        "Add & Norm of [18] is LayerNorm(X + F(X)) (torch.nn.functional.layer_norm over each token's n0 features, "
        "eps 1e-5): no ReLU. The printed pipeline LayerNorm(ReLU(X + F(X))) is compared with it for all s, n0 in [1, 3], "
        "with the sublayer output F(X) = 0 (a zero-weight sublayer) and X[i, j] = j − 1 (a negative first feature), "
        "float64 tol 1e-12; n0 = 1 agrees for all inputs (LayerNorm of one feature is 0). (A ReLU after the addition "
        "is He et al.'s ResNet block, not the transformer's Add & Norm.) Correction verified against a float64 "
        "LayerNorm written out in NumPy."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq50():
    torch = _torch()
    eps = 1e-5

    def ln(Z):
        t = torch.tensor(np.asarray(Z, dtype=float))
        return torch.nn.functional.layer_norm(t, (t.shape[1],), eps=eps).numpy()

    def data(c):
        s, n0 = c
        return np.tile(np.arange(n0, dtype=float) - 1, (s, 1)), np.zeros((s, n0))

    def printed_ok(c):
        X, F = data(c)
        return _close(ln(np.maximum(X + F, 0)), ln(X + F))

    def witness(c):
        X, F = data(c)
        return {"X": X.tolist(), "F(X)": F.tolist(), "Norm(ReLU(X + F(X)))": ln(np.maximum(X + F, 0)).tolist(),
                "Norm(X + F(X))": ln(X + F).tolist()}

    def corrected(c):
        X, F = data(c)
        Z = X + F
        mine = (Z - Z.mean(axis=1, keepdims=True)) / np.sqrt(Z.var(axis=1, keepdims=True) + eps)
        return _close(mine, ln(X + F))

    return decide(_num_exhaustive(printed_ok, _dims(2, 3), "s, n0 in [1, 3]", witness),
                  correction=("X' = X + F(X) (the residual sum itself; the Norm of (52) follows)",
                              _num_exhaustive(corrected, _dims(2, 3), "s, n0 in [1, 3], NumPy LayerNorm vs torch")))


@claim(
    "cheng2025:eq52",
    quote="y = (x − E(x))/√(Var(x) + ε) * γ + β  (52),  Var(x) = (1/d) √(Σ_i (x_{i,j} − E_j(x))²)",
    statement=(
        "Vector-wise and layer-wise normalization with the printed Var compared with the standard layer "
        "normalization torch.nn.functional.layer_norm (biased variance (1/d)Σ(x − E)², same ε = 1e-3, γ = 1, "
        "β = 0), for d in [1, 4] (vector-wise, one column) and d×s in [1, 3]² (layer-wise), integer x, float64 tol 1e-12."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq52():
    torch = _torch()
    eps = 1e-3

    def norm(x, printed):
        x = np.asarray(x, dtype=float)
        E = x.mean()
        dev = ((x - E) ** 2).sum()
        var = math.sqrt(dev) / x.size if printed else dev / x.size
        return (x - E) / math.sqrt(var + eps)

    def ref(x):
        t = torch.tensor(np.asarray(x, dtype=float))
        return torch.nn.functional.layer_norm(t, t.shape, eps=eps).numpy()

    cases = [("vector", (d, 1)) for d in range(1, 5)] + [("layer", c) for c in _dims(2, 3)]

    def ok(case, printed=True):
        _, (d, s) = case
        x = _rnd((d, s), d * 10 + s)
        return _close(norm(x, printed), ref(x))

    def witness(case):
        _, (d, s) = case
        x = _rnd((d, s), d * 10 + s)
        return {"x": x.tolist(), "printed": norm(x, True).tolist(), "layer_norm": ref(x).tolist()}

    printed = _num_exhaustive(ok, cases, "vector-wise d in [1, 4]; layer-wise d, s in [1, 3]", witness)
    corrected = _num_exhaustive(lambda c: ok(c, False), cases, "same cases, Var = (1/d) Σ (x − E)²")
    return decide(printed, correction=("Var(x) = (1/d) Σ_i (x_{i,j} − E_j(x))² (no square root); layer-wise (1/(ds)) ΣΣ (x − E)²", corrected))


@claim(
    "cheng2025:eq53",
    quote="FFN(X) = W_2 ReLU(W_1 X + α B_1) + β B_2,  X ∈ M_{s×n0}, W_1 ∈ M_{α×s}, W_2 ∈ M_{β×α}   (53)",
    statement=(
        "The standard feed-forward of [18] acts on each token separately, FFN(X)_i = ReLU(X_i V_1 + b_1) V_2 + b_2, "
        "so it commutes with permutations of the tokens (rows of X). Checked: the printed (53), with β = s so the "
        "shapes allow it and the biases read as shared by all tokens (αB_1 = 1_α b_1ᵀ, βB_2 = 1_s b_2ᵀ, the reading "
        "most favourable to the paper: only the weights W_1 ∈ M_{α×s}, W_2 ∈ M_{s×α} can then break it), commutes with "
        "the cyclic shift of the rows, exactly, for all s, n0, α in [1, 3] (s = 1 is equivariant for all values, P = I), on "
        "X = (1, 2, ...) row by row, W_1 = [1 0 ... 0] in every row, W_2 = e_1 1ᵀ_α, b = 0; "
        "the correction is compared with torch Linear-ReLU-Linear."
        + SAMPLED_WHY
    ),
    methods=["exact", "exhaustive", "numeric"],
    hypotheses=_SIZES,
)
def _eq53():
    torch = _torch()
    relu = lambda a: np.maximum(a, 0)  # noqa: E731

    def data(c):  # every hidden unit reads token 1 and only token 1 is written: X positive, biases 0
        s, n0, al = c
        X = np.arange(1, s * n0 + 1, dtype=np.int64).reshape(s, n0)
        W1 = np.zeros((al, s), dtype=np.int64)
        W1[:, 0] = 1
        W2 = np.zeros((s, al), dtype=np.int64)
        W2[0, :] = 1
        return X, W1, W2, np.zeros(n0, dtype=np.int64), np.zeros(n0, dtype=np.int64)

    def printed_f(Z, W1, W2, b1, b2):  # biases shared by the tokens, as in [18] (the reading most favourable to (53))
        return W2 @ relu(W1 @ Z + np.ones((W1.shape[0], 1), dtype=np.int64) * b1) + np.ones((W2.shape[0], 1), dtype=np.int64) * b2

    def printed_ok(c):
        X, W1, W2, b1, b2 = data(c)
        P = np.roll(np.eye(c[0], dtype=np.int64), 1, axis=0)
        return np.array_equal(printed_f(P @ X, W1, W2, b1, b2), P @ printed_f(X, W1, W2, b1, b2))

    def witness(c):
        X, W1, W2, b1, b2 = data(c)
        P = np.roll(np.eye(c[0], dtype=np.int64), 1, axis=0)
        return {"X": X.tolist(), "W1": W1.tolist(), "W2": W2.tolist(), "b1": b1.tolist(), "b2": b2.tolist(),
                "P (cyclic row shift)": P.tolist(), "FFN(PX)": printed_f(P @ X, W1, W2, b1, b2).tolist(),
                "P FFN(X)": (P @ printed_f(X, W1, W2, b1, b2)).tolist()}

    printed = _exact_exhaustive(printed_ok, _dims(3, 3), "s, n0, α in [1, 3]", witness)

    def corr(c):
        s, n0, dff = c
        X, V1, V2 = _rnd((s, n0), sum(c)), _rnd((n0, dff), sum(c) + 1), _rnd((dff, n0), sum(c) + 2)
        b1, b2 = _rnd(dff, sum(c) + 3), _rnd(n0, sum(c) + 4)
        mine = relu(X @ V1 + b1) @ V2 + b2
        net = torch.nn.Sequential(torch.nn.Linear(n0, dff), torch.nn.ReLU(), torch.nn.Linear(dff, n0)).double()
        with torch.no_grad():
            net[0].weight.copy_(torch.tensor(V1.T, dtype=torch.float64)); net[0].bias.copy_(torch.tensor(b1, dtype=torch.float64))
            net[2].weight.copy_(torch.tensor(V2.T, dtype=torch.float64)); net[2].bias.copy_(torch.tensor(b2, dtype=torch.float64))
            ref = net(torch.tensor(X, dtype=torch.float64)).numpy()
        P = np.roll(np.eye(s, dtype=np.int64), 1, axis=0)
        return _close(mine, ref) and np.array_equal(relu(P @ X @ V1 + b1) @ V2 + b2, P @ mine)

    return decide(printed, correction=(
        "FFN(X) = ReLU(X W_1 + 1_s b_1ᵀ) W_2 + 1_s b_2ᵀ with W_1 ∈ M_{n0×d_ff}, W_2 ∈ M_{d_ff×n0}: the weights act on the "
        "feature dimension of each token, not across the s tokens",
        _num_exhaustive(corr, _dims(3, 3), "s, n0, d_ff in [1, 3], vs torch Linear-ReLU-Linear")))


# =============================================================================================
# §IV: hypervectors, stochastic products, the operator ⋄
# =============================================================================================
def _blockdiag(blocks):
    return sympy.diag(*blocks)


def _sym_hv(dims, name="x"):
    return [sympy.Matrix(sympy.symbols(f"{name}{i + 1}_1:{n + 1}")) for i, n in enumerate(dims)]


def _hv_cases(max_s=3, max_n=3):
    cases = [c for s in range(1, max_s + 1) for c in itertools.product(range(1, max_n + 1), repeat=s)]
    return sorted(cases, key=lambda c: (len(c), sum(c), c))


@claim(
    "cheng2025:prop4.3",
    quote=(
        "0 ≠ x = ⋉ x_i = ⋉ y_i ⇒ y_i = λ_i x_i with Π λ_i = 1  (58); if all x^i are normalized (x^i_j ≥ 0, "
        "Σ_j x^i_j = 1) then the x^i are unique"
    ),
    statement=(
        "The theorem itself, exhaustively: for dims (2,2), (2,3), (3,2), (3,3), (2,2,2), all factor tuples with entries "
        "in {−1, 0, 1} are grouped by their nonzero STP product ⋉ x_i (= ⊗ x_i for vectors) and every two tuples with the "
        "same product satisfy y_i = λ_i x_i with Π λ_i = 1 (exact Fractions); normalized tuples (nonnegative, sums 1, "
        "from entries {0, 1, 2}) with the same product are identical. "
        "Cross-check (one random integer instance per dims, not counted in the strength): for every dims tuple of "
        "length s ≤ 3 with n_i ≤ 3 and integer factors in [−3, 3] (nonzero) / [0, 3] "
        "(normalizable), exact: isomat's factor_product_form recovers factors y_i of x = ⋉ x_i with y_i ∥ x_i "
        "and Π λ_i = 1; with normalization the recovered factors are exactly x_i / Σ x_i (the unique stochastic "
        "ones) and x = (Π Σ x_i)·⋉ y_i."
    ),
    methods=["exact", "exhaustive"],
)
def _prop43():
    def ok(dims):
        seed = sum(dims) * 7 + len(dims)
        xs = []
        for i, n in enumerate(dims):
            v = _rand(n, 1, seed + i)
            if v.is_zero_matrix:
                v[0] = 1
            xs.append(v)
        x = xs[0]
        for v in xs[1:]:
            x = _kron(x, v)
        Y, c = _hyper.factor_product_form(x, dims, normalize=False)
        lam = []
        for xi, yi in zip(xs, Y):
            k = next(j for j in range(xi.rows) if xi[j] != 0)
            lam.append(yi[k] / xi[k])
            if yi != lam[-1] * xi:
                return False
        if sympy.prod(lam) * c != 1:
            return False
        ps = [_rand(n, 1, seed + 10 + i, 0, 3) + sympy.Matrix([1] + [0] * (n - 1)) for i, n in enumerate(dims)]
        z = ps[0]
        for v in ps[1:]:
            z = _kron(z, v)
        Z, cz = _hyper.factor_product_form(z, dims)
        return all(zi == pi / sum(pi) for zi, pi in zip(Z, ps)) and cz == sympy.prod([sum(p) for p in ps])

    def theorem(dims):  # every pair of factorizations of the same nonzero product, entries in {-1, 0, 1} / {0, 1, 2}
        from fractions import Fraction

        def kron(vs):
            out = [Fraction(1)]
            for v in vs:
                out = [a * b for a in out for b in v]
            return tuple(out)

        groups: dict = {}
        for vs in itertools.product(*[list(itertools.product((-1, 0, 1), repeat=n)) for n in dims]):
            x = kron(vs)
            if any(x):
                groups.setdefault(x, []).append(vs)
        for members in groups.values():
            xs = members[0]
            for ys in members[1:]:
                lam = []
                for xi, yi in zip(xs, ys):
                    k = next(j for j, v in enumerate(xi) if v)
                    lam.append(Fraction(yi[k], xi[k]))
                    if any(Fraction(b) != lam[-1] * a for a, b in zip(xi, yi)):
                        return False
                if math.prod(lam) != 1:
                    return False
        normalized: dict = {}
        for vs in itertools.product(*[[v for v in itertools.product((0, 1, 2), repeat=n) if any(v)] for n in dims]):
            ps = tuple(tuple(Fraction(a, sum(v)) for a in v) for v in vs)
            if normalized.setdefault(kron(ps), ps) != ps:
                return False
        return True

    thm_cases = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 2, 2)]
    return decide(
        _exact_exhaustive(theorem, thm_cases, "all factor tuples with entries in {-1, 0, 1} (uniqueness: normalized "
                          "from {0, 1, 2}) for dims (2,2), (2,3), (3,2), (3,3), (2,2,2)"),
        sampled_crosscheck=_crosscheck(exhaustive(
            ok, _hv_cases(), describe="isomat factor_product_form, dims of length <= 3, n_i <= 3; one random integer "
            "instance per dims", method="exact", strength="sampled")))


def _rand_stochastic(rows, cols, seed):
    M = _rand(rows, cols, seed, 0, 4) + sympy.ones(rows, cols) * 0
    M[0, :] = M[0, :] + sympy.ones(1, cols)
    return M * sympy.diag(*[sympy.Rational(1, sum(M[:, j])) for j in range(cols)])


def _is_stochastic(M):
    return all(v >= 0 for v in M) and all(sum(M[:, j]) == 1 for j in range(M.cols))


@claim(
    "cheng2025:prop4.6",
    quote="A ∈ Υ_{m×n}, x ∈ Υ^n ⇒ Ax ∈ Υ^m   (60)",
    statement=(
        "Exact on generic entries, so for every column-stochastic A and stochastic x at each size, all m, n in [1, 5]: "
        "with nonnegative symbols a_ij, x_j every entry Σ_j a_ij x_j of Ax is nonnegative (SymPy sign inference), and "
        "with the last row of A and the last entry of x eliminated by the sum-1 constraints (a_{m,j} = 1 − Σ_{i<m} a_ij, "
        "x_n = 1 − Σ_{j<n} x_j) the entries of Ax sum to 1 identically."
    ),
    methods=["exact", "exhaustive"],
)
def _prop46():
    def ok(c):
        m, n = c
        A = sympy.Matrix(m, n, lambda i, j: sympy.Symbol(f"a_{i}_{j}", nonnegative=True))
        x = sympy.Matrix(n, 1, lambda j, _: sympy.Symbol(f"x_{j}", nonnegative=True))
        nonneg = all(v.is_nonnegative for v in A * x)
        sub = {A[m - 1, j]: 1 - sum(A[i, j] for i in range(m - 1)) for j in range(n)}
        sub[x[n - 1]] = 1 - sum(x[j] for j in range(n - 1))
        return nonneg and sympy.expand(sum(A * x).subs(sub, simultaneous=True)) == 1

    return decide(_exact_exhaustive(ok, _dims(2, 5), "m, n in [1, 5]"))


@claim(
    "cheng2025:prop4.8",
    quote="A ⋉_w B := (A ⊗ 1ᵀ_{t/n})(B ⊗ (1/(t/p)) 1_{t/p})  (61) = A Ψ^w_{n×p} B  (62),  Ψ^w = (1/(t/p))(I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p})  (63)",
    statement=(
        "Proved for all sizes: (62) with Ψ^w of (63) equals (61) (A ⊗ 1ᵀ_{t/n} = A (I_n ⊗ 1ᵀ_{t/n}) and B ⊗ 1_{t/p} = "
        "(I_p ⊗ 1_{t/p}) B entrywise, uninterpreted A, B, then associativity of the matrix product); isomat's "
        "bridge_weighted, built as (p/n)·Π^p_n, equals (63) (block-count lemma on the entry rule of Π). Exact "
        "cross-check for all (m, n, p, q) in [1, 3]^4."
    ),
    methods=["exact", "exhaustive"],
)
def _prop48():
    def ok(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        Pw = sympy.Rational(p, t) * _kron(sympy.eye(n), _ones(t // n).T) * _kron(sympy.eye(p), _ones(t // p))
        A, B = _rand(m, n, sum(c)), _rand(p, q, sum(c) + 1)
        return A * Pw * B == naive_dk(A, B, True) and sympy.Matrix(_stp_mod.bridge_weighted(n, p, backend="sympy")) == Pw

    return decide(_textbook(_prop48_proof(), "matmul-associative", "matmul-bilinear"),
                  exhaustive_crosscheck=_crosscheck(_exact_exhaustive(ok, _dims(4, 3), "m, n, p, q in [1, 3]")))


@lru_cache(maxsize=None)
def _kron_ones_proof():
    """A ⊗ 1ᵀ_a = A (I_n ⊗ 1ᵀ_a) and B ⊗ 1_b = (I_p ⊗ 1_b) B, for all sizes: entry (i, u) of the right side is a
    sum over l < n with the single term l = u div a (a 'delta sum', defined by axioms, closed form by
    induction); A, B uninterpreted."""
    import z3

    I, R = z3.IntSort(), z3.RealSort()
    A, B = z3.Function("A", I, I, R), z3.Function("B", I, I, R)
    DA, DB = z3.Function("DeltaSumA", I, I, I, R), z3.Function("DeltaSumB", I, I, I, R)
    i, q, L, u, a, n, j, b, p_ = _pv.ints("i q L u a n j b p")
    one = lambda c: z3.If(c, z3.RealVal(1), z3.RealVal(0))  # noqa: E731
    lemmas = []
    for name, D, entry in (("A", DA, lambda i, l: A(i, l)), ("B", DB, lambda j, k: B(k, j))):
        ax = [_pv.axiom(f"delta-sum-{name}-0", z3.ForAll([i, q], D(i, q, 0) == 0), text="empty sum"),
              _pv.axiom(f"delta-sum-{name}-step", z3.ForAll([i, q, L], z3.Implies(
                  L >= 0, D(i, q, L + 1) == D(i, q, L) + entry(i, L) * one(L == q)), patterns=[D(i, q, L + 1)]),
                  text=f"D(i, q, L+1) = D(i, q, L) + {name}-entry(i, L)·[L = q]")]
        lemmas.append(_pv.induction(
            f"delta-sum-{name}", L,
            lambda L, D=D, entry=entry: z3.Implies(q >= 0, D(i, q, L) == z3.If(q < L, entry(i, q), z3.RealVal(0))),
            text=f"for all L, q >= 0: Σ_{{l<L}} {name}-entry(i, l)·[l = q] = [q < L]·{name}-entry(i, q)",
            other=[i, q], axioms=ax, patterns=[D(i, q, L)]))
    return _proof_trial(
        _pv.both(DA(i, _pv.fdiv(u, a), n) == A(i, _pv.fdiv(u, a)), DB(j, _pv.fdiv(u, b), p_) == B(_pv.fdiv(u, b), j)),
        for_all="for all n, p, a, b >= 1 with t = na = pb, 0 <= u < t, all A (m×n), B (p×q) (uninterpreted), all i, j",
        assuming=[n >= 1, p_ >= 1, a >= 1, b >= 1, n * a == p_ * b, 0 <= u, u < n * a], lemmas=lemmas,
        describe="(A (I_n ⊗ 1ᵀ_a))[i, u] = Σ_{l<n} A[i,l][u div a = l] = A[i, u div a] = (A ⊗ 1ᵀ_a)[i, u] and "
                 "((I_p ⊗ 1_b) B)[u, j] = B[u div b, j] = (B ⊗ 1_b)[u, j]")


def _prop48_proof():
    """(61) = (62) and bridge_weighted = (63), for all sizes: (61) = A (I_n ⊗ 1ᵀ_a)(I_p ⊗ 1_b) B / b = A Ψ^w B by
    _kron_ones_proof and associativity of the matrix product."""
    kron = _kron_ones_proof()
    n, a, b, p_ = _pv.ints("n a b p")
    C, count = _pi_count()
    k, l = _pv.ints("k l")
    bridge = _proof_trial(
        n * C(l, k, n * a, a, b) == b * _ov_rule(l, k, p_, n),
        for_all="for all n, p >= 1 and every common multiple t = na = pb, 0 <= l < n, 0 <= k < p",
        assuming=[n >= 1, p_ >= 1, a >= 1, b >= 1, n * a == p_ * b, 0 <= l, l < n, 0 <= k, k < p_], lemmas=[count],
        describe="(63)[l, k] = (1/b)·((I_n ⊗ 1ᵀ_a)(I_p ⊗ 1_b))[l, k] = C(l, k, t, a, b)/b = ov(l, k, p, n)/n = "
                 "(p/n)·Π^p_n[l, k], which is how isomat's bridge_weighted is built")
    return all_of(kron, bridge)


@claim(
    "cheng2025:prop4.9",
    quote="(i) A, B stochastic ⇒ A ⋉_w B stochastic; (ii) A stochastic, x stochastic ⇒ A ⋉_w x stochastic",
    statement=(
        "With Def. 4.4 (columns in Υ), proved for all sizes: A ⋉_w B = A Ψ^w B ((61) = (62), prop4.8) and Ψ^w of (63) "
        "is column-stochastic (entries >= 0, every column sums to 1: prefix-sum lemma on the entry rule of Π); so "
        "for column-stochastic A, B (or x): 1ᵀ A Ψ^w B = 1ᵀ Ψ^w B = 1ᵀ B = 1ᵀ and all entries are sums of products "
        "of nonnegative numbers. Cross-check (one random rational instance per size, so sampled): column-stochastic "
        "A (m×n), B (p×q), x ∈ Υ^p, all m, n, p, q in [1, 3], with isomat's dk_stp_weighted."
    ),
    methods=["exact", "exhaustive"],
)
def _prop49():
    def ok(c):
        m, n, p, q = c
        A, B, x = _rand_stochastic(m, n, sum(c)), _rand_stochastic(p, q, sum(c) + 1), _rand_stochastic(p, 1, sum(c) + 2)
        return _is_stochastic(_stp_mod.dk_stp_weighted(A, B)) and _is_stochastic(_stp_mod.dk_stp_weighted(A, x))

    S, prefix = _pi_prefix()
    n, p_, l, k = _pv.ints("n p l k")
    columns = _proof_trial(
        _pv.both(_ov_rule(l, k, p_, n) >= 0, _ov_rule(l, k, p_, n) == _ov_rule(k, l, n, p_), S(k, n, n, p_) == n),
        for_all="for all n, p >= 1, 0 <= l < n, 0 <= k < p", assuming=[n >= 1, p_ >= 1, 0 <= l, l < n, 0 <= k, k < p_],
        lemmas=[prefix],
        describe="Ψ^w[l, k] = ov(l, k, p, n)/n >= 0 and column k sums to Σ_l ov(k, l, n, p)/n = S(k, n, n, p)/n = 1: "
                 "Ψ^w is column-stochastic")
    cross = _exact_exhaustive(ok, _dims(4, 3), "m, n, p, q in [1, 3]")
    return decide(_textbook(all_of(_prop48_proof(), columns), "matmul-associative", "matmul-entry", "nonnegative-closure"),
                  sampled_crosscheck=_crosscheck(cross))


@claim(
    "cheng2025:prop4.10",
    quote="X ∈ M_{s×n0} ⇒ V_{Qᵀ} = (W^q ⊗ I_{n0}) V_{Xᵀ}   (64)  (V = row stacking, footnote to (59))",
    statement=(
        "With Qᵀ = W^q Xᵀ (36), W^q ∈ M_{n0×n0}: the printed (64) must be defined (sizes) and equal V_r(W^q Xᵀ), exact, "
        "random integers, all s, n0 in [1, 4]. Correction: V_r(W Xᵀ) = (W ⊗ I_s) V_r(Xᵀ) (Xᵀ has s columns), proved for "
        "all sizes as V_r(AX) = (A ⊗ I_k) V_r(X) with uninterpreted A, X (sums defined by axioms, closed forms by "
        "induction); exact cross-check for s, n0 in [1, 4]."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop410():
    def ok(c, k_of):
        s, n0 = c
        W, X = _rand(n0, n0, sum(c)), _rand(s, n0, sum(c) + 1)
        K = _kron(W, sympy.eye(k_of(s, n0)))
        v = (X.T).reshape(n0 * s, 1)
        return K.cols == v.rows and K * v == (W * X.T).reshape(n0 * s, 1)

    def witness(c):
        s, n0 = c
        return {"W^q ⊗ I_{n0} size": [n0 * n0, n0 * n0], "V_{Xᵀ} length": n0 * s, "V_{Qᵀ} length": n0 * s}

    printed = _exact_exhaustive(lambda c: ok(c, lambda s, n0: n0), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _exact_exhaustive(lambda c: ok(c, lambda s, n0: s), _dims(2, 4), "s, n0 in [1, 4]")
    proof = _vec_kron_proof("here A = W^q (n0×n0), X := Xᵀ (n0×s), k = s")
    return decide(printed, correction=("V_{Qᵀ} = (W^q ⊗ I_s) V_{Xᵀ}", proof),
                  corrected_exhaustive_crosscheck=_crosscheck(corrected))


@claim(
    "cheng2025:prop4.14",
    quote="X ∈ M_{s×n0} ⇒ A ⋄ X = AX, and V_{AX} = (A ⊗ I_s) V_X   (75)",
    statement=(
        "For homogeneous X (all n_i = n0): isomat's step-by-step ⋄ (Def. 4.13) gives AX, and the printed (75) is defined "
        "and equals V_r(AX); exact, symbolic X, random integer A, all s, n0 in [1, 3]. Correction: (A ⊗ I_{n0}), proved "
        "for all sizes for Def. 4.13 in its matrix form (82) (with (78) corrected): Π^{n0}_{n0} = I and "
        "V_r(AX) = (A ⊗ I_{n0}) V_r(X) (uninterpreted A, X); isomat's diamond = AX is an exact cross-check, s, n0 in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop414():
    def ok(c, k_of):
        s, n0 = c
        A = _rand(s, s, sum(c))
        X = sympy.Matrix(s, n0, lambda i, j: sympy.Symbol(f"x{i + 1}_{j + 1}"))
        D = _hyper.diamond(A, [X[i, :].T for i in range(s)])
        if sympy.Matrix.vstack(*[d.T for d in D]) != A * X:
            return False
        K = _kron(A, sympy.eye(k_of(s, n0)))
        v = X.reshape(s * n0, 1)
        return K.cols == v.rows and (K * v - (A * X).reshape(s * n0, 1)).expand().is_zero_matrix

    def witness(c):
        s, n0 = c
        return {"A ⊗ I_s size": [s * s, s * s], "V_X length": s * n0}

    printed = _exact_exhaustive(lambda c: ok(c, lambda s, n0: s), _dims(2, 3), "s, n0 in [1, 3]", witness)
    corrected = _exact_exhaustive(lambda c: ok(c, lambda s, n0: n0), _dims(2, 3), "s, n0 in [1, 3]")
    n0, i, j = _pv.ints("n0 i j")
    ident = _proof_trial(
        _ov_rule(i, j, n0, n0) == _pv.ite(i == j, n0, 0), for_all="for all n0 >= 1, 0 <= i, j < n0",
        assuming=[n0 >= 1, 0 <= i, i < n0, 0 <= j, j < n0],
        describe="Π^{n0}_{n0} = I_{n0}: for homogeneous X the blocks T_X̃, T_Ξ of (82) are identities")
    proof = all_of(ident, _vec_kron_proof("here X is s×n0, k = n0; with T_X̃ = T_Ξ = I, (82) gives V_{A⋄X} = V_{AX}"))
    return decide(printed, correction=("A ⋄ X = AX and V_{AX} = (A ⊗ I_{n0}) V_X",
                                       _textbook(proof, "matmul-associative", "matmul-entry")),
                  corrected_exhaustive_crosscheck=_crosscheck(corrected))


@claim(
    "cheng2025:eq76",
    quote="V_{X̃} = T_{X̃} V_X  (76),  T_{X̃} = diag(Π^{n_1}_{n0}, ..., Π^{n_s}_{n0})  (77);  V_{A⋄X} = T_Ξ V_{Ξ̃}  (79), T_Ξ = diag(Π^{n0}_{n_i})  (80)",
    statement=(
        "Steps 1 and 3 of Def. 4.13 as block-diagonal matrices (naive Π of (22)) agree with isomat's project_pad / "
        "project_rows, symbolically, for every dims tuple of length ≤ 3 with n_i ≤ 3."
    ),
    methods=["symbolic", "exhaustive"],
)
def _eq76():
    def ok(dims):
        n0 = max(dims)
        xs = _sym_hv(dims)
        VX = sympy.Matrix.vstack(*xs)
        T = _blockdiag([naive_projection(n, n0) for n in dims])
        Xt = _hyper.project_pad(xs)
        step1 = (T * VX - Xt.reshape(len(dims) * n0, 1)).expand().is_zero_matrix
        Xi = sympy.Matrix(len(dims), n0, lambda i, j: sympy.Symbol(f"z{i}_{j}"))
        T3 = _blockdiag([naive_projection(n0, n) for n in dims])
        rows = _hyper.project_rows(Xi, dims)
        step3 = (T3 * Xi.reshape(len(dims) * n0, 1) - sympy.Matrix.vstack(*list(rows))).expand().is_zero_matrix
        return step1 and step3

    tr = exhaustive(ok, _hv_cases(), describe="dims of length <= 3, n_i <= 3", method="symbolic")
    return decide(tr)


@claim(
    "cheng2025:eq82",
    quote="V_{Ξ̃} = (A ⊗ I_s) V_{X̃}  (78);  V_{A⋄X} = T_Ξ (A ⊗ I_s) T_{X̃} V_X  (82)",
    statement=(
        "The matrix expression (82) (naive Π blocks, printed A ⊗ I_s) must be defined and equal the step-by-step ⋄ of "
        "Def. 4.13 (isomat diamond), symbolic X, random integer A, every dims tuple of length ≤ 3 with n_i ≤ 3. "
        "Correction: A ⊗ I_{n0} in (78) and (82), proved for all sizes: Def. 4.13's steps 1 and 3 are the block "
        "diagonals T_X̃, T_Ξ by (76)/(79), and step 2, Ξ̃ = A X̃, is V_Ξ̃ = (A ⊗ I_{n0}) V_X̃ (V_r(AX) = (A ⊗ I_k) V_r(X) "
        "for uninterpreted A, X, every size). Cross-check: isomat's diamond and diamond_matrix, symbolic X, every "
        "dims tuple of length ≤ 3 with n_i ≤ 3."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq82():
    def ok(dims, k_of):
        s, n0 = len(dims), max(dims)
        A = _rand(s, s, sum(dims) + s)
        xs = _sym_hv(dims)
        VX = sympy.Matrix.vstack(*xs)
        T1 = _blockdiag([naive_projection(n, n0) for n in dims])
        T3 = _blockdiag([naive_projection(n0, n) for n in dims])
        K = _kron(A, sympy.eye(k_of(s, n0)))
        if K.cols != T1.rows:
            return False
        M = T3 * K * T1
        steps = sympy.Matrix.vstack(*list(_hyper.diamond(A, xs)))
        ok_ = (M * VX - steps).expand().is_zero_matrix
        if k_of(s, n0) == n0:
            ok_ = ok_ and sympy.Matrix(_hyper.diamond_matrix(A, dims)) == M
        return ok_

    cases = _hv_cases()

    def witness(dims):
        s, n0 = len(dims), max(dims)
        return {"A ⊗ I_s size": [s * s, s * s], "T_X̃ size": [s * n0, sum(dims)]}

    printed = exhaustive(lambda d: ok(d, lambda s, n0: s), cases, describe="dims of length <= 3, n_i <= 3", witness=witness, method="symbolic")
    corrected = exhaustive(lambda d: ok(d, lambda s, n0: n0), cases, describe="dims of length <= 3, n_i <= 3", method="symbolic")
    proof = _vec_kron_proof("here X̃ is s×n0 (step 1 of Def. 4.13, V_X̃ = T_X̃ V_X by (76)), k = n0: (78) reads "
                            "V_Ξ̃ = (A ⊗ I_{n0}) V_X̃, and step 3 (79) V_{A⋄X} = T_Ξ V_Ξ̃ gives (82) with A ⊗ I_{n0}")
    return decide(printed, correction=("V_{A⋄X} = T_Ξ (A ⊗ I_{n0}) T_{X̃} V_X (and (78) with A ⊗ I_{n0})",
                                       _textbook(proof, "matmul-associative", "matmul-entry")),
                  corrected_exhaustive_crosscheck=_crosscheck(corrected))


@claim(
    "cheng2025:eq70",
    quote="m_i = n_j = d ⇒ X ⊙ Y = XYᵀ/d,  X ⊙_w Y = XYᵀ/√d   (70)",
    statement=(
        "Exact, generic (symbolic) homogeneous hypervectors, so for all values at each size, s, t, d in [1, 3], with "
        "isomat's hv_inner / hv_inner_weighted "
        "(Def. 4.12, ⊙_w read as (X ⊙ Y) ∘ W); and hv_inner equals the naive ⟨·,·⟩_V of (17) entrywise on ragged "
        "dims (s, t ≤ 2, sizes ≤ 4)."
    ),
    methods=["exact", "exhaustive"],
)
def _eq70():
    def homog(c):
        s, t, d = c
        X, Y = _grand(s, d, 1), _grand(t, d, 2)
        hx, hy = [X[i, :].T for i in range(s)], [Y[j, :].T for j in range(t)]
        return (_same(_hyper.hv_inner(hx, hy), X * Y.T / d)
                and _same(_hyper.hv_inner_weighted(hx, hy), X * Y.T / sympy.sqrt(d)))

    def ragged(c):
        a, b, cc, dd = c
        xs, ys = [_grand(a, 1, 1), _grand(b, 1, 2)], [_grand(cc, 1, 3), _grand(dd, 1, 4)]
        G = _hyper.hv_inner(xs, ys)
        return all(sympy.expand(G[i, j] - naive_inner_v(xs[i], ys[j])) == 0 for i in range(2) for j in range(2))

    return decide(all_of(_exact_exhaustive(homog, _dims(3, 3), "s, t, d in [1, 3]"),
                         _exact_exhaustive(ragged, _dims(4, 3), "two-vector hypervectors, sizes in [1, 3]")))


# =============================================================================================
# Example 4.15 (printed values transcribed from the paper, §IV-C)
# =============================================================================================
_W2 = sympy.Matrix(2, 2, lambda i, j: sympy.Symbol(f"w{i + 1}{j + 1}"))


def _P(text: str) -> sympy.Expr:
    """Parse a transcribed printed expression; x{i}_{j} is the paper's x^i_j (vector i, entry j)."""
    return sympy.expand(sympy.sympify(text))


# Example 4.15: X as printed (x^i_j written x{i}_{j}; the paper prints z^2_2 for the (2, 2) entry) and V_X of Step 1
_EX415_X = [["x1_1", "x1_2"], ["x2_1", "z2_2", "x2_3"]]
_EX415_VX = ["x1_1", "x1_2", "x2_1", "x2_2", "x2_3"]
# Example 4.15, Step 1: T_X̃ = diag(Π^2_3, I_3) as printed (6 x 5)
_EX415_TX = [[1, 0, 0, 0, 0], ["1/2", "1/2", 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
# Step 2: V_Ξ = (W ⊗ I_3) V_X̃ as printed
_EX415_VXI = ["w11*x1_1 + w12*x2_1", "w11*(x1_1 + x1_2)/2 + w12*x2_2", "w11*x1_2 + w12*x2_3",
              "w21*x1_1 + w22*x2_1", "w21*(x1_1 + x1_2)/2 + w22*x2_2", "w21*x1_2 + w22*x2_3"]
# Step 2: W ⊗ I_3 as printed (6 x 6)
_EX415_WI3 = [["w11", 0, 0, "w12", 0, 0], [0, "w11", 0, 0, "w12", 0], [0, 0, "w11", 0, 0, "w12"],
              ["w21", 0, 0, "w22", 0, 0], [0, "w21", 0, 0, "w22", 0], [0, 0, "w21", 0, 0, "w22"]]
# Step 3: T_Ξ = diag(Π^3_2, I_3) as printed (5 x 6)
_EX415_TXI = [["2/3", "1/3", 0, 0, 0, 0], [0, "1/3", "2/3", 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]]
# q^1_1, q^1_2, q^2_1, q^2_2, q^2_3 as printed (the printed x_2^1 in q^1_1 is x1_2 here)
_EX415_Q = ["2*(w11*x1_1 + w12*x1_2)/3 + (w11*(x1_1 + x1_2) + 2*w12*x2_2)/6",
            "(w11*(x1_1 + x1_2) + 2*w12*x2_2)/6 + 2*(w11*x1_2 + w12*x2_3)/3",
            "w21*x1_1 + w22*x2_1", "w21*(x1_1 + x1_2)/2 + w22*x2_2", "w21*x1_2 + w22*x2_3"]


@claim(
    "cheng2025:ex4.15",
    quote="Example 4.15: W ⋄ X for X = {(x^1_1, x^1_2), (x^2_1, x^2_2, x^2_3)}, W ∈ M_{2×2}: T_X̃, W ⊗ I_3, V_Ξ, T_Ξ, q's",
    statement=(
        "Every printed entry of T_X̃ (6×5), W ⊗ I_3 (6×6), V_Ξ (6), T_Ξ (5×6), V_{W⋄X} = (q^1_1, q^1_2, q^2_1, q^2_2, q^2_3) "
        "recomputed: T's from the naive Π of (22), W ⊗ I_3 from the definition, V_Ξ = (W⊗I_3) T_X̃ V_X, and the q's from "
        "isomat's step-by-step ⋄ (Def. 4.13), compared exactly as polynomials."
    ),
    methods=["recompute", "symbolic"],
)
def _ex415():
    xs = _sym_hv((2, 3))
    VX = sympy.Matrix.vstack(*xs)
    TX = _blockdiag([naive_projection(2, 3), sympy.eye(3)])
    TXi = _blockdiag([naive_projection(3, 2), sympy.eye(3)])
    K = _kron(_W2, sympy.eye(3))
    VXi = K * TX * VX
    q = sympy.Matrix.vstack(*list(_hyper.diamond(_W2, xs)))
    printed, recomputed = {}, {}
    for i in range(6):
        for j in range(5):
            printed[f"T_X̃[{i + 1},{j + 1}]"] = sympy.Rational(sympy.sympify(_EX415_TX[i][j]))
            recomputed[f"T_X̃[{i + 1},{j + 1}]"] = TX[i, j]
    for i in range(6):
        for j in range(6):
            printed[f"W⊗I_3[{i + 1},{j + 1}]"] = sympy.sympify(_EX415_WI3[i][j])
            recomputed[f"W⊗I_3[{i + 1},{j + 1}]"] = K[i, j]
    for i in range(6):
        printed[f"V_Ξ[{i + 1}]"] = _P(_EX415_VXI[i])
        recomputed[f"V_Ξ[{i + 1}]"] = sympy.expand(VXi[i])
    for i in range(5):
        for j in range(6):
            printed[f"T_Ξ[{i + 1},{j + 1}]"] = sympy.Rational(sympy.sympify(_EX415_TXI[i][j]))
            recomputed[f"T_Ξ[{i + 1},{j + 1}]"] = TXi[i, j]
    # the printed X (pseudo-matrix) against V_X = (x^1_1, x^1_2, x^2_1, x^2_2, x^2_3)ᵀ printed in Step 1 (eq. 56)
    for k, (p_sym, v_sym) in enumerate(zip([e for row in _EX415_X for e in row], _EX415_VX)):
        printed[f"X entry {k + 1} (row by row) vs V_X[{k + 1}]"] = p_sym
        recomputed[f"X entry {k + 1} (row by row) vs V_X[{k + 1}]"] = v_sym
    names = ["q^1_1", "q^1_2", "q^2_1", "q^2_2", "q^2_3"]
    for i, nm in enumerate(names):
        printed[f"{nm} (and V_W⋄X[{i + 1}])"] = _P(_EX415_Q[i])
        recomputed[f"{nm} (and V_W⋄X[{i + 1}])"] = sympy.expand(q[i])
    return compare_printed(printed, recomputed, check="T_Ξ V_Ξ equals the step-by-step ⋄: "
                           + str((TXi * VXi - q).expand().is_zero_matrix))


# =============================================================================================
# Example 5.3 (every printed matrix and coefficient, transcribed from §V-A)
# =============================================================================================
_W6 = sympy.Matrix(6, 6, lambda i, j: sympy.Symbol(f"w{i + 1}{j + 1}"))
_EX53_DIMS = (3, 4, 5, 3)
# Zero-padding, step 3: q^k_i = Σ_{j ≤ n_k} w_{i,j} x^k_j for i ≤ n_k (printed in full for k = 1..4)
_EX53_ZERO = {k: [" + ".join(f"w{i}{j}*x{k}_{j}" for j in range(1, n + 1)) for i in range(1, n + 1)]
              for k, n in zip((1, 2, 3, 4), _EX53_DIMS)}
# Projection-padding, step 1
_EX53_P36 = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]]          # Π^3_6
_EX53_P46 = [[2, 0, 0, 0], [1, 1, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 1, 1], [0, 0, 0, 2]]  # Π^4_6 = (1/2)[.]
_EX53_P56 = [[5, 0, 0, 0, 0], [1, 4, 0, 0, 0], [0, 2, 3, 0, 0], [0, 0, 3, 2, 0], [0, 0, 0, 4, 1], [0, 0, 0, 0, 5]]  # (1/5)[.]
_EX53_PX2 = ["x2_1", "(x2_1 + x2_2)/2", "x2_2", "x2_3", "(x2_3 + x2_4)/2", "x2_4"]         # Π^4_6(x^2)
_EX53_PX3 = ["x3_1", "(x3_1 + 4*x3_2)/5", "(2*x3_2 + 3*x3_3)/5", "(3*x3_3 + 2*x3_4)/5", "(4*x3_4 + x3_5)/5", "x3_5"]
_EX53_XT = [
    ["x1_1", "x1_1", "x1_2", "x1_2", "x1_3", "x1_3"],
    ["x2_1", "(x2_1 + x2_2)/2", "x2_2", "x2_2", "(x2_3 + x2_4)/2", "x2_4"],
    ["x3_1", "(x3_1 + 4*x3_2)/5", "(2*x3_2 + 3*x3_3)/5", "(3*x3_3 + 2*x3_4)/5", "(4*x3_4 + x3_5)/5", "x3_5"],
    ["x4_1", "x4_1", "x4_2", "x4_2", "x4_3", "x4_3"],
]
# Step 2: q̃^k_i (printed as formulas in the row index i)
_EX53_QT = {
    1: "(w{i}1 + w{i}2)*x1_1 + (w{i}3 + w{i}4)*x1_2 + (w{i}5 + w{i}6)*x1_3",
    2: "(w{i}1 + w{i}2/2)*x2_1 + (w{i}2/2 + w{i}3)*x2_2 + (w{i}4 + w{i}5/2)*x2_3 + (w{i}5/2 + w{i}6)*x2_4",
    3: "(w{i}1 + w{i}2/5)*x3_1 + (4*w{i}2/5 + 2*w{i}3/5)*x3_2 + (3*w{i}3/5 + 3*w{i}4/5)*x3_3 + (w{i}5/5 + w{i}6)*x3_5",
    4: "(w{i}1 + w{i}2)*x4_1 + (w{i}3 + w{i}4)*x4_2 + (w{i}5 + w{i}6)*x4_3",
}
# Step 3
_EX53_P63 = [[1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 1]]                 # Π^6_3 = (1/2)[.]
_EX53_P64 = [[2, 1, 0, 0, 0, 0], [0, 1, 2, 0, 0, 0], [0, 0, 0, 2, 1, 0], [0, 0, 0, 0, 1, 2]]  # Π^6_4 = (1/3)[.]
_EX53_P65 = [[5, 1, 0, 0, 0, 0], [0, 4, 2, 0, 0, 0], [0, 0, 3, 3, 0, 0], [0, 0, 0, 2, 4, 0], [0, 0, 0, 0, 1, 5]]  # (1/6)[.]
_EX53_MU = [  # q^1 = (1/2) μ x^1, q^4 = (1/2) μ x^4
    ["w11 + w12 + w21 + w22", "w13 + w14 + w23 + w24", "w15 + w16 + w25 + w26"],
    ["w31 + w32 + w41 + w42", "w33 + w34 + w43 + w44", "w35 + w36 + w45 + w46"],
    ["w51 + w52 + w61 + w62", "w53 + w54 + w63 + w64", "w55 + w56 + w65 + w66"],
]
_EX53_LAMBDA = [  # q^2 = (1/3) λ x^2
    ["2*w11 + w12 + w21 + w22/2", "w12 + 2*w13 + w22/2 + w23", "2*w14 + w15 + w24 + w25/2", "w15 + 2*w16 + w25/2 + w26"],
    ["w21 + w22/2 + 2*w31 + w32", "w22/2 + w23 + w32 + 2*w33", "w24 + w25/2 + 2*w34 + w35", "w25/2 + w26 + w35 + 2*w36"],
    ["2*w41 + w42 + w51 + w52/2", "w42 + 2*w43 + w52/2 + w53", "2*w44 + w45 + w54 + w55/2", "w45 + 2*w46 + w55/2 + w56"],
    ["w51 + w52/2 + 2*w61 + w62", "w52/2 + w53 + w62 + 2*w63", "w54 + w55/2 + 2*w64 + w65", "w55/2 + w56 + w65 + 2*w66"],
]
_EX53_ETA = [  # q^3 = (1/30) η x^3
    ["25*w11 + 5*w12 + 5*w21 + w22", "20*w12 + 10*w13 + 4*w22 + 2*w23", "15*w13 + 15*w14 + 3*w23 + 3*w24",
     "10*w14 + 20*w15 + 2*w24 + 4*w25", "5*w15 + 25*w16 + w25 + 5*w23"],
    ["20*w21 + 4*w22 + 10*w31 + 2*w32", "16*w22 + 8*w23 + 8*w32 + 4*w33", "12*w23 + 12*w24 + 6*w33 + 6*w34",
     "8*w24 + 16*w25 + 4*w34 + 8*w35", "4*w25 + 20*w26 + 2*w35 + 10*w36"],
    ["15*w31 + 3*w32 + 15*w41 + 3*w42", "12*w32 + 6*w33 + 12*w42 + 6*w43", "9*w33 + 9*w34 + 9*w43 + 9*w44",
     "6*w34 + 12*w35 + 4*w44 + 12*w45", "3*w35 + 15*w56 + 3*w65 + 3*w66"],
    ["10*w41 + 2*w42 + 20*w51 + 4*w52", "8*w42 + 4*w43 + 16*w52 + 8*w53", "6*w43 + 6*w44 + 12*w53 + 12*w54",
     "4*w44 + 8*w45 + 8*w54 + 16*w55", "2*w45 + 10*w46 + 4*w55 + 20*w56"],
    ["5*w51 + w52 + 25*w61 + 5*w62", "4*w52 + 2*w53 + 20*w62 + 10*w63", "3*w53 + 3*w54 + 15*w63 + 15*w64",
     "2*w54 + 4*w55 + 10*w64 + 20*w65", "w55 + 5*w56 + 5*w65 + 25*w66"],
]


@claim(
    "cheng2025:ex5.3",
    quote=(
        "Example 5.3: s = 4, dims (3, 4, 5, 3), n0 = 6, W^q ∈ M_{6×6}; zero-padding q^1..q^4; projection-padding "
        "Π^3_6, Π^4_6, Π^5_6, X̃, q̃^k_i, Π^6_3, Π^6_4, Π^6_5 and the coefficient matrices μ, λ, η"
    ),
    statement=(
        "Every printed entry (15 zero-padding outputs, 3 Π^n_6 matrices and their printed Kronecker factor forms "
        "(coefficient n/t and the sizes of the 1-vectors), Π^4_6 x^2 and the vector printed as Π^4_6(x^3) (its label's "
        "source dimension against dim x^3 = 5), the 4×6 X̃, q̃^k_i for "
        "k = 1..4 and i = 1..6, Π^6_3, Π^6_4, Π^6_5, and the 9 + 16 + 25 entries of μ, λ, η) recomputed exactly: Π from "
        "the naive formula (22), the zero-padded Q by (85)-(87), X̃ by (88)-(89), q̃ = W^q x̃ (as the example computes, "
        "Q̃ᵀ = W^q X̃ᵀ), q^k = Π^6_{n_k} q̃^k; μ = 2·[∂q^1/∂x^1], λ = 3·[∂q^2/∂x^2], η = 30·[∂q^3/∂x^3]. Compared as "
        "polynomials; isomat's project_padding_linear / zero_padding_linear must give the same q's."
    ),
    methods=["recompute", "symbolic"],
)
def _ex53():
    xs = _sym_hv(_EX53_DIMS)
    printed, recomputed = {}, {}

    def put(key, p, r):
        printed[key] = p
        recomputed[key] = sympy.expand(r)

    # zero padding
    Xz = sympy.Matrix([[x[j] if j < x.rows else 0 for j in range(6)] for x in xs])
    Qz = (_W6 * Xz.T).T
    for k, n in zip(range(4), _EX53_DIMS):
        for i in range(n):
            put(f"zero-padding q^{k + 1}[{i + 1}]", _P(_EX53_ZERO[k + 1][i]), Qz[k, i])
    # projections (step 1)
    for name, M, scale, m in (("Π^3_6", _EX53_P36, 1, 3), ("Π^4_6", _EX53_P46, sympy.Rational(1, 2), 4),
                              ("Π^5_6", _EX53_P56, sympy.Rational(1, 5), 5)):
        P = naive_projection(m, 6)
        for i in range(6):
            for j in range(m):
                put(f"{name}[{i + 1},{j + 1}]", scale * M[i][j], P[i, j])
    for i in range(6):
        put(f"Π^4_6(x^2)[{i + 1}]", _P(_EX53_PX2[i]), (naive_projection(4, 6) * xs[1])[i])
        put(f"Π^5_6(x^3)[{i + 1}] (printed label Π^4_6(x^3))", _P(_EX53_PX3[i]), (naive_projection(5, 6) * xs[2])[i])
    put("source dimension in the printed label Π^?_6(x^3)", 4, sympy.Integer(xs[2].rows))
    # printed factor forms Π^4_6 = (6/12)(I_6 ⊗ 1ᵀ_2)(I_4 ⊗ 1_3), Π^5_6 = (6/30)(I_6 ⊗ 1ᵀ_5)(I_5 ⊗ 1_6), Π^3_6 = I_6(I_3 ⊗ 1_2)
    for m, coeff, left, right in ((3, 1, 1, 2), (4, sympy.Rational(6, 12), 2, 3), (5, sympy.Rational(6, 30), 5, 6)):
        t = math.lcm(m, 6)
        put(f"Π^{m}_6 factor form: coefficient", coeff, sympy.Rational(6, t))
        put(f"Π^{m}_6 factor form: size of 1ᵀ in I_6 ⊗ 1ᵀ", left, sympy.Integer(t // 6))
        put(f"Π^{m}_6 factor form: size of 1 in I_{m} ⊗ 1", right, sympy.Integer(t // m))
    Xt = sympy.Matrix([list((naive_projection(x.rows, 6) * x).T) for x in xs])
    for k in range(4):
        for j in range(6):
            put(f"X̃[{k + 1},{j + 1}]", _P(_EX53_XT[k][j]), Xt[k, j])
    # step 2
    Qt = _W6 * Xt.T  # column k is q̃^k
    for k in range(4):
        for i in range(6):
            put(f"q̃^{k + 1}_{i + 1}", _P(_EX53_QT[k + 1].format(i=i + 1)), Qt[i, k])
    # step 3
    for name, M, scale, n in (("Π^6_3", _EX53_P63, sympy.Rational(1, 2), 3), ("Π^6_4", _EX53_P64, sympy.Rational(1, 3), 4),
                              ("Π^6_5", _EX53_P65, sympy.Rational(1, 6), 5)):
        P = naive_projection(6, n)
        for i in range(n):
            for j in range(6):
                put(f"{name}[{i + 1},{j + 1}]", scale * M[i][j], P[i, j])
    q = [naive_projection(6, n) * Qt[:, k] for k, n in enumerate(_EX53_DIMS)]
    for name, table, k, scale in (("μ", _EX53_MU, 0, 2), ("λ", _EX53_LAMBDA, 1, 3), ("η", _EX53_ETA, 2, 30)):
        J = q[k].jacobian(list(xs[k]))
        for i in range(J.rows):
            for j in range(J.cols):
                put(f"{name}[{i + 1},{j + 1}]", _P(table[i][j]), scale * J[i, j])
    J4 = q[3].jacobian(list(xs[3]))
    for i in range(3):
        for j in range(3):
            put(f"μ[{i + 1},{j + 1}] (as used for q^4)", _P(_EX53_MU[i][j]), 2 * J4[i, j])
    # isomat agrees with the naive recomputation (else the check itself is wrong)
    iso_p = _hyper.project_padding_linear(_W6, xs, _EX53_DIMS)
    iso_z = _hyper.zero_padding_linear(_W6, xs, _EX53_DIMS)
    for k in range(4):
        if not ((iso_p[k] - q[k]).expand().is_zero_matrix
                and (iso_z[k] - Qz[k, : _EX53_DIMS[k]].T).expand().is_zero_matrix):
            from ..errors import CheckError

            raise CheckError(f"isomat's padding algorithms disagree with the naive recomputation for q^{k + 1}")
    return compare_printed(printed, recomputed, isomat_agrees=True)


# =============================================================================================
# §V: remarks 5.4-5.7, algorithms 5.1/5.2, eqs. (97)-(98), (104), (106)
# =============================================================================================
@claim(
    "cheng2025:rem5.4/i",
    quote="(i) No additional junk information caused by padded zero [with projection-padding]",
    statement=(
        "Read as: every entry of the project-padded x̃ = Π^{n_i}_{n0} x is an average of entries of x (rows of "
        "Π^{n_i}_{n0} nonnegative, summing to 1 — no constant padded entry, where zero-padding has n0 − n_i constant "
        "zeros, recorded in evidence for Example 5.3), and nothing is lost (Π^{n_i}_{n0} injective, rank n_i). Proved "
        "for all 1 <= n_i <= n0 on the entry rule of Π (row sums by the prefix-sum lemma; rank by an n_i×n_i "
        "triangular submatrix with nonzero diagonal); exact cross-check, all 1 ≤ n_i ≤ n0 ≤ 8. (Whether the padding mask can be dropped in training is empirical, not checked.)"
    ),
    methods=["exact", "exhaustive"],
)
def _rem54i():
    cases = [(n, d) for d in range(1, 9) for n in range(1, d + 1)]

    def ok(c):
        P = naive_projection(*c)
        rows_are_averages = all(all(v >= 0 for v in P.row(i)) and sum(P.row(i)) == 1 for i in range(P.rows))
        return rows_are_averages and P.rank() == c[0]

    zero_rows = {f"n = {n}, n0 = {d}": d - n for n, d in ((3, 6), (4, 6), (5, 6))}
    S, prefix = _pi_prefix()
    n, d, i, j, jp = _pv.ints("n d i j jp")
    row = lambda j: _pv.fdiv(j * d + n - 1, n)  # noqa: E731  (the first row whose block starts in column block j)
    averages = _proof_trial(
        _pv.both(_ov_rule(i, j, n, d) >= 0, S(i, n, n, d) == n),
        for_all="for all n, n0 >= 1, 0 <= i < n0, 0 <= j < n", assuming=[n >= 1, d >= 1, 0 <= i, i < d, 0 <= j, j < n],
        lemmas=[prefix], describe="rows of Π^n_{n0} are >= 0 and sum to 1 (prefix-sum lemma)")
    injective = _proof_trial(
        _pv.both(0 <= row(j), row(j) < d, _ov_rule(row(j), j, n, d) > 0,
                 _pv.ite(jp < j, _ov_rule(row(j), jp, n, d) == 0, True), _pv.ite(j + 1 < n, row(j) < row(j + 1), True)),
        for_all="for all 1 <= n <= n0, 0 <= j, j' < n", assuming=[n >= 1, d >= n, 0 <= j, j < n, 0 <= jp, jp < n],
        describe="rows ρ(j) = ceil(j·n0/n), j < n, are distinct rows of Π^n_{n0} with entry (ρ(j), j) > 0 and (ρ(j), j') = 0 "
                 "for j' < j: that n×n submatrix is triangular with nonzero diagonal, so rank Π^n_{n0} = n (injective)")
    cross = _exact_exhaustive(ok, cases, "1 <= n <= n0 <= 8")
    return decide(_textbook(all_of(averages, injective), "matmul-entry", "minor-rank", "full-column-rank-injective"),
                  exhaustive_crosscheck=_crosscheck(cross),
                  zero_padding_constant_entries=zero_rows)


@claim(
    "cheng2025:rem5.4/ii",
    quote="(ii) Even if ... n_i > n0, projection-padding can still handle it by a standard projection and without losing information",
    statement=(
        "Read as printed, 'without losing information': Π^{n_i}_{n0} with n_i > n0 would have to be injective: exact "
        "rank test for all 1 ≤ n0 < n_i ≤ 8; refuted, the counterexample gives two different vectors with the same "
        "projection. Second reading, recorded but not supported by the text (it drops 'without losing information'): "
        "the standard projection handles n_i > n0 as the d_V-nearest vector of R^{n0}, d_V(x, y)² = d_V(x, Π x)² + "
        "(1/n0)‖y − Π x‖² for all y (exact, generic x, y, all 1 ≤ n0 < n_i ≤ 4); it holds (Prop. 2.10, prop2.10)."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=("n_i > n0 >= 1 (the case (ii) addresses: a vector longer than the padded size)",
                lambda c: _positive_sizes(c) and c[0] > c[1]),
)
def _rem54ii():
    cases = sorted([(n, d) for n in range(1, 9) for d in range(1, n)], key=lambda c: (sum(c), c))

    def witness(c):
        n, d = c
        v = naive_projection(n, d).nullspace()[0]
        v = v / max(abs(e) for e in v if e != 0)
        return {"x": list(v), "x'": [0] * n, "Π x": list(naive_projection(n, d) * v), "Π x'": [0] * d}

    def nearest(c):
        n, d = c
        x, y = _grand(n, 1, 1), _grand(d, 1, 2)
        px = naive_projection(n, d) * x
        return sympy.expand(naive_dist_v_sq(x, y) - naive_dist_v_sq(x, px) - ((y - px).T * (y - px))[0, 0] / d) == 0

    return by_readings(
        Reading("lossless (injective)", "without losing information: Π^{n_i}_{n0} is injective for n_i > n0",
                decide(_exact_exhaustive(lambda c: naive_projection(c[0], c[1]).rank() == c[0], cases,
                                         "1 <= n0 < n_i <= 8", witness))),
        Reading("handled (nearest vector)", "Π^{n_i}_{n0} x is the d_V-nearest vector of R^{n0} to x, for n_i > n0",
                decide(_exact_exhaustive(nearest, [c for c in cases if c[0] <= 4], "1 <= n0 < n_i <= 4, generic x, y")),
                supported=False),
    )


@claim(
    "cheng2025:rem5.4/iii",
    quote="(iii) the output sequences can have the same sizes as the input sequences if we wish",
    statement=(
        "isomat's ⋄ (Def. 4.13) and Alg. 5.2 with out_dims = input dims return vectors of exactly the input sizes, "
        "every dims tuple of length ≤ 3, n_i ≤ 4, random floats."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _rem54iii():
    def ok(dims):
        rng = np.random.default_rng(sum(dims))
        X = [_dev(rng.standard_normal(n)) for n in dims]
        s, d = len(dims), max(dims) + 1
        a = _hyper.diamond(_dev(rng.standard_normal((s, s))), X).dims
        b = _hyper.project_padding_linear(_dev(rng.standard_normal((d, d))), X, dims).dims
        return a == b == tuple(dims)

    return decide(_num_exhaustive(ok, _hv_cases(3, 4), "dims of length <= 3, n_i <= 4"))


@claim(
    "cheng2025:alg5.2",
    quote="Step 2, Calculate padded Q̃ as Q̃ = W^q X̃   (90)   [Alg. 5.1 step 2: Q̃ᵀ = W^q X̃ᵀ (86)]",
    statement=(
        "(90) with W^q ∈ M_{d×d} and X̃ ∈ M_{s×d} (89) must be defined and agree with (86)'s Q̃ᵀ = W^q X̃ᵀ, the form "
        "Example 5.3 computes; exact with generic symbols W^q, X̃, all s, d in [1, 4], against an independent "
        "token-by-token reference q̃^i = W^q x̃^i computed by loops."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _alg52():
    def ok(c, printed):
        s, d = c
        W, Xt = _gen(d, d, "w"), _gen(s, d, "x")  # generic: exact for all values at each size
        # independent reference: token by token, q̃^i = W^q x̃^i with x̃^i the i-th row of X̃ (Alg. 5.1 step 2,
        # Example 5.3), by explicit loops
        ref = sympy.Matrix(s, d, lambda i, k: sum(W[k, j] * Xt[i, j] for j in range(d)))
        if printed:
            return W.cols == Xt.rows and (W * Xt).shape == ref.shape and (W * Xt - ref).expand().is_zero_matrix
        return W.cols == Xt.T.rows and ((W * Xt.T).T - ref).expand().is_zero_matrix

    def witness(c):
        s, d = c
        return {"W^q size": [d, d], "X̃ size": [s, d]}

    return decide(_exact_exhaustive(lambda c: ok(c, True), _dims(2, 4), "s, d in [1, 4]", witness),
                  correction=("Q̃ᵀ = W^q X̃ᵀ in (90), as in (86) and in Example 5.3",
                              _exact_exhaustive(lambda c: ok(c, False), _dims(2, 4), "s, d in [1, 4]")))


@claim(
    "cheng2025:beyond/unpad",
    quote="(not printed as a claim) the un-padding q^i = Π^d_{m_i} q̃^i of (91) undoes the padding x̃^i = Π^{n_i}_d x^i of (88)",
    statement=(
        "Π^d_n Π^n_d = I_n for all n ≤ d? exact, all 1 ≤ n ≤ d ≤ 8 in order of d. Correction: exactly when n | d — "
        "proved for all 1 <= n <= d on the entry rule of Π (if: Π^n_d = I_n ⊗ 1_{d/n} and (26); only if: a positive "
        "off-diagonal entry); exact cross-check of the equivalence for n <= d <= 8."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=("1 <= n <= d (x^i of size n_i = n padded to d, then un-padded)",
                lambda c: _positive_sizes(c) and c[0] <= c[1]),
)
def _unpad():
    cases = [(n, d) for d in range(1, 9) for n in range(1, d + 1)]

    def ok(c):
        n, d = c
        return naive_projection(d, n) * naive_projection(n, d) == sympy.eye(n)

    def witness(c):
        n, d = c
        return {"Π^d_n Π^n_d": naive_projection(d, n) * naive_projection(n, d)}

    iff = exhaustive(lambda c: ok(c) == (c[1] % c[0] == 0), cases, describe="1 <= n <= d <= 8: identity iff n | d", method="exact")
    n, c, d, i, j, u = _pv.ints("n c d i j u")
    refine = _proof_trial(
        _pv.both(_ov_rule(u, j, n, n * c) == _pv.ite(_pv.both(j * c <= u, u < (j + 1) * c), n, 0),
                 _ov_rule(i, j, n, n) == _pv.ite(i == j, n, 0)),
        for_all="for all n, c >= 1 (d = nc), 0 <= u < d, 0 <= i, j < n",
        assuming=[n >= 1, c >= 1, 0 <= u, u < n * c, 0 <= i, i < n, 0 <= j, j < n],
        describe="if n | d: Π^n_d = I_n ⊗ 1_{d/n}, so Π^d_n Π^n_d = Π^d_n (I_n ⊗ 1_{d/n}) = Π^n_n by (26) (proved), and Π^n_n = I_n")
    us = _pv.fdiv(d, n)
    only_if = _proof_trial(
        _pv.both(0 <= us, us < d, _ov_rule(0, us, d, n) > 0, _ov_rule(us, 1, n, d) > 0, _ov_rule(i, j, d, n) >= 0,
                 _ov_rule(j, i, n, d) >= 0),
        for_all="for all n >= 2, d >= n with n ∤ d, all i, j",
        assuming=[n >= 2, d >= n, _pv.fmod(d, n) != 0],
        describe="if n ∤ d: with u* = d div n, Π^d_n[0, u*] > 0 and Π^n_d[u*, 1] > 0 and all entries are >= 0, so the "
                 "off-diagonal entry (Π^d_n Π^n_d)[0, 1] >= Π^d_n[0, u*]·Π^n_d[u*, 1] > 0: the product is not I_n")
    proof = _textbook(all_of(refine, _eq26_proof(), only_if), "matmul-entry", "kron-entry", "nonnegative-closure")
    return decide(_exact_exhaustive(ok, cases, "1 <= n <= d <= 8", witness),
                  correction=("Π^d_n Π^n_d = I_n if and only if n | d; otherwise un-padding only approximates", proof),
                  corrected_exhaustive_crosscheck=_crosscheck(iff))


def _float_hv(dims, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n) for n in dims]


@claim(
    "cheng2025:rem5.5",
    quote=(
        "(i) When all dimensions equal n, the A in (93) [softmax(Q ⊙_w K)] is exactly the A in (41); "
        "(ii) A = softmax(Q ⊙ K) (94) gives softmax(QKᵀ/n) (95)"
    ),
    statement=(
        "Exact on the scores: Q ⊙_w K = QKᵀ/√n and Q ⊙ K = QKᵀ/n (isomat hv_inner_weighted / hv_inner, generic "
        "(symbolic) Q, K, so for all values), all s, n in [1, 4]; equal scores give equal softmax, so the A of (93) is "
        "that of (41). Cross-check (one integer instance per size, float, not counted in the strength): the attention "
        "matrices agree with softmax(QKᵀ/√n) from torch scaled_dot_product_attention (V = I_s), tol 1e-12."
    ),
    methods=["exact", "exhaustive", "numeric"],
)
def _rem55():
    def ok(c):
        s, n = c
        Q, K = _grand(s, n, 1), _grand(s, n, 2)
        hq, hk = [Q[i, :].T for i in range(s)], [K[i, :].T for i in range(s)]
        return (_same(_hyper.hv_inner_weighted(hq, hk), Q * K.T / sympy.sqrt(n))
                and _same(_hyper.hv_inner(hq, hk), Q * K.T / n))

    def num(c):
        s, n = c
        Q, K = _rand(s, n, sum(c)), _rand(s, n, sum(c) + 1)
        Qf, Kf = np.array(Q.tolist(), dtype=float), np.array(K.tolist(), dtype=float)
        A = _hyper.attention_scores([_dev(q) for q in Qf], [_dev(k) for k in Kf])
        return _close(A, _sdpa(Qf, Kf, np.eye(s)))

    return decide(_exact_exhaustive(ok, _dims(2, 4), "s, n in [1, 4]"),
                  numeric_crosscheck=_crosscheck(_num_exhaustive(num, _dims(2, 4), "s, n in [1, 4]")))


def _np_proj(m: int, n: int) -> np.ndarray:
    """Eq. (22) in float64 with np.kron (independent of isomat)."""
    t = math.lcm(m, n)
    return n / t * np.kron(np.eye(n), np.ones((1, t // n))) @ np.kron(np.eye(m), np.ones((t // m, 1)))


def _np_inner_v(x, y) -> float:
    """Eq. (17) in float64."""
    m, n = len(x), len(y)
    t = math.lcm(m, n)
    return float(np.kron(x, np.ones(t // m)) @ np.kron(y, np.ones(t // n))) / t


def _np_att97(Q, K, V):
    """Eq. (97) from its printed parts: A = softmax(Q ⊙_w K) (67)-(69), 93; (A ⊗ 1ᵀ_{t/q}) ⋄ (1_{t/r} ⊗ V) by the three
    steps of Def. 4.13, step 3 projecting row i to dim q^i (the reading that gives p output vectors)."""
    G = np.array([[_np_inner_v(x, y) * math.sqrt(math.lcm(len(x), len(y))) for y in K] for x in Q])
    A = _softmax_np(G)
    q, r = len(K), len(V)
    t = math.lcm(q, r)
    Abig = np.kron(A, np.ones((1, t // q)))
    Vbig = [V[i % r] for i in range(t)]
    n0 = max(len(v) for v in Vbig)
    Xt = np.stack([_np_proj(len(v), n0) @ v for v in Vbig])
    Xi = Abig @ Xt
    return [_np_proj(n0, len(Q[i])) @ Xi[i] for i in range(len(Q))]


@claim(
    "cheng2025:rem5.6",
    quote="Attention(Q, K, V) := (A ⊗ 1ᵀ_{t/q}) ⋄ (1_{t/r} ⊗ V),  t = lcm(q, r)   (97) — the most general case of (96)",
    statement=(
        "(97) built naively in float64 from its printed parts (⟨·,·⟩_V of (17) with np.kron, ⊙_w of (69), row softmax, "
        "A ⊗ 1ᵀ_{t/q} with np.kron, 1_{t/r} ⊗ V as t/r copies of V, the three steps of Def. 4.13 with Π of (22), step 3 "
        "to the dims of Q): for q = r it equals (96) A ⋄ V built the same way (so (97) generalizes (96)), and isomat's "
        "df_attention_general (run in the float field) equals it for every p, q, r in [1, 3] with ragged vector sizes "
        "in [1, 3]; float64 tol 1e-12. At q = r (t = q) (97) is (96) term by term, so that comparison is structural; "
        "the content of this reading is that the generalization is well defined and isomat computes it. Second reading "
        "(recorded, not the headline): 'the most general case' of an attention keeps what makes it an attention, the "
        "output depends on the scores A = softmax(Q ⊙_w K) once there are several keys and values (q, r >= 2). "
        "Refuted: when gcd(q, r) = 1 every key block of A ⊗ 1ᵀ_{t/q} meets every copy of V once, so (97) gives "
        "Π Σ_k v^k whatever Q and K are (minimal case p, q, r = 1, 2, 3: two K with different scores, same output). "
        "(Evidence also records that for q ≠ r the rows of A ⊗ 1ᵀ_{t/q} sum to t/q, so (97) scales a constant V by t/q.)"
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=("p, q, r are positive integers (numbers of query, key and value vectors); the second reading asks "
                "q, r >= 2", lambda c: _positive_sizes(c) and c[1] >= 2 and c[2] >= 2),
)
def _rem56():
    def hv(k, seed, offset):
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(1 + (i + offset) % 3) for i in range(k)]

    def att96(Q, K, V):  # (96): A ⋄ V, Def. 4.13 steps, outputs of V's own sizes
        G = np.array([[_np_inner_v(x, y) * math.sqrt(math.lcm(len(x), len(y))) for y in K] for x in Q])
        A = _softmax_np(G)
        n0 = max(len(v) for v in V)
        Xi = A @ np.stack([_np_proj(len(v), n0) @ v for v in V])
        return [_np_proj(n0, len(V[i])) @ Xi[i] for i in range(len(V))]

    def ok(c):
        p, q, r = c
        Q, K, V = hv(p, sum(c), 0), hv(q, sum(c) + 1, 1), hv(r, sum(c) + 2, 2)
        ref = _np_att97(Q, K, V)
        iso = _hyper.df_attention_general([_dev(v) for v in Q], [_dev(v) for v in K], [_dev(v) for v in V])
        same = len(iso.values()) == len(ref) and all(_close(to_numpy(a), b) for a, b in zip(iso.values(), ref))
        if p == q == r:  # (96) needs a square A and V with as many vectors as Q; take Q's sizes = V's sizes
            Qv = [np.resize(Q[i], len(V[i])) for i in range(p)]
            same = same and all(_close(a, b) for a, b in zip(_np_att97(Qv, K, V), att96(Qv, K, V)))
        return same

    def ignores_scores(c):  # gcd(q, r) = 1: every key block of A ⊗ 1ᵀ_r meets every copy of V once
        p, q, r = c
        Q, K, V = hv(p, sum(c), 0), hv(q, sum(c) + 1, 1), hv(r, sum(c) + 2, 2)
        n0 = max(len(v) for v in V)
        total = sum(_np_proj(len(v), n0) @ v for v in V)
        return all(_close(a, _np_proj(n0, len(Q[i])) @ total) for i, a in enumerate(_np_att97(Q, K, V)))

    coprime = _num_exhaustive(ignores_scores, [c for c in _dims(3, 3) if math.gcd(c[1], c[2]) == 1],
                              "p, q, r in [1, 3] with gcd(q, r) = 1")
    # evidence: constant V with q = 1, r = 2 -> scaled by t/q = 2
    scaled = _hyper.df_attention_general([_dev(np.ones(2))], [_dev(np.ones(2))], [_dev(np.ones(2)), _dev(np.ones(2))])
    def uses_scores(c):  # another K (other scores A) must change the output
        p, q, r = c
        Q, K, V = hv(p, sum(c), 0), hv(q, sum(c) + 1, 1), hv(r, sum(c) + 2, 2)
        K2 = [3 * k[::-1] + 1 for k in K]
        A1 = _softmax_np(np.array([[_np_inner_v(x, y) * math.sqrt(math.lcm(len(x), len(y))) for y in K] for x in Q]))
        A2 = _softmax_np(np.array([[_np_inner_v(x, y) * math.sqrt(math.lcm(len(x), len(y))) for y in K2] for x in Q]))
        if _close(A1, A2, 1e-6):
            raise CheckError(f"the two key sets give the same scores at {c}: no test of dependence")
        return not all(_close(a, b, 1e-9) for a, b in zip(_np_att97(Q, K, V), _np_att97(Q, K2, V)))

    def uses_witness(c):
        p, q, r = c
        Q, K, V = hv(p, sum(c), 0), hv(q, sum(c) + 1, 1), hv(r, sum(c) + 2, 2)
        K2 = [3 * k[::-1] + 1 for k in K]
        return {"Q": [v.tolist() for v in Q], "K": [v.tolist() for v in K], "K'": [v.tolist() for v in K2],
                "V": [v.tolist() for v in V], "(97) with K": [v.tolist() for v in _np_att97(Q, K, V)],
                "(97) with K'": [v.tolist() for v in _np_att97(Q, K2, V)]}

    uses_cases = sorted([(p, q, r) for p in (1, 2) for q in (2, 3) for r in (2, 3)], key=lambda c: (sum(c), c))
    general = decide(_num_exhaustive(ok, _dims(3, 3), "p, q, r in [1, 3] vectors; sizes 1 + (i + k) mod 3"),
                     constant_v_q1_r2_output=[float(v) for v in to_numpy(scaled.values()[0])],
                     note_gcd_q_r_1_output_independent_of_q_and_k={
                         "statement": "when gcd(q, r) = 1, (97) gives ξ^i = Π^{n0}_{dim q^i} Σ_k Π^{b_k}_{n0} v^k for every "
                                      "Q, K (the scores A drop out, rows of A summing to 1)",
                         "ok": coprime.ok, "tested": coprime.evidence.get("tested")})
    return by_readings(
        Reading("generalizes (96)", "(97) is defined for every p, q, r and reduces to (96) at q = r", general),
        Reading("still an attention", "for q, r >= 2 the output of (97) depends on the scores A = softmax(Q ⊙_w K)",
                decide(_num_exhaustive(uses_scores, uses_cases, "p in {1, 2}, q, r in {2, 3}; K' = 3·reverse(K) + 1",
                                       uses_witness))),
    )


@claim(
    "cheng2025:eq98",
    quote="when (73) is used to perform (97), (73) should be read as ξ^i := Π^{(t/d)n0}_{n_i} ξ̃^i   (98)",
    statement=(
        "The vector ξ̃^i that step 3 projects is row i of (A ⊗ 1ᵀ_{t/q}) X̃ with X̃ ∈ M_{t×n0}: its dimension must be the "
        "source dimension (t/d)·n0 of (98). The paper leaves d undefined; read as the nominal dimension d = n0 of "
        "(83)-(85) the source dimension is t. Checked against the dimension isomat computes, for q, r ≤ 3 and n0 ≤ 3; "
        "the readings d = q and d = r are checked too (recorded as readings; both fail as well: (t/d)·n0 = n0 only "
        "when t = d). Refuted under every reading, with no correction: what holds is (73) unchanged (the rows have n0 "
        "entries, recorded in evidence), and a 'correction' that deletes (98) is no correction of it."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq98():
    cases = sorted(itertools.product(range(1, 4), repeat=3), key=lambda c: (sum(c), c))

    def row_dim(c):
        q, r, n0 = c
        t = math.lcm(q, r)
        V = [np.ones(n0)] * r
        Xt = np.asarray(_hyper.project_pad([V[i % r] for i in range(t)]))
        return (np.repeat(np.ones((1, q)), t // q, axis=1) @ Xt).shape[1]

    def printed_ok(c):  # d = n0: (t/d)·n0 = t
        q, r, n0 = c
        return row_dim(c) == math.lcm(q, r)

    def witness(c):
        q, r, n0 = c
        return {"t": math.lcm(q, r), "dimension of ξ̃^i": row_dim(c), "(t/d)·n0 with d = n0": math.lcm(q, r)}

    def reading(d_of, name):  # the other values d could stand for
        return decide(_exact_exhaustive(lambda c: row_dim(c) == math.lcm(c[0], c[1]) * c[2] // d_of(c)
                                        if (math.lcm(c[0], c[1]) * c[2]) % d_of(c) == 0 else False, cases, f"d = {name}",
                                        lambda c: {"(t/d)·n0": str(sympy.Rational(math.lcm(c[0], c[1]) * c[2], d_of(c))),
                                                   "dimension of ξ̃^i": row_dim(c)}))

    unchanged = _exact_exhaustive(lambda c: row_dim(c) == c[2], cases, "q, r, n0 in [1, 3]")
    return by_readings(
        Reading("d = n0", "d is the nominal dimension n0 of (83)-(85), so the source dimension (t/d)·n0 is t",
                decide(_exact_exhaustive(printed_ok, cases, "q, r, n0 in [1, 3]", witness),
                       what_holds_instead=dict(_crosscheck(unchanged), statement=(
                           "ξ^i := Π^{n0}_{n_i} ξ̃^i — (73) unchanged: the rows of (A ⊗ 1ᵀ_{t/q}) X̃ have n0 entries")))),
        Reading("d = q", "d is the number q of query vectors", reading(lambda c: c[0], "q")),
        Reading("d = r", "d is the number r of key/value vectors", reading(lambda c: c[1], "r")),
    )


@claim(
    "cheng2025:eq104",
    quote="X + F(X) := Z,  z^i = x^i +_{m_i} f^i = Π^{n_i}_{m_i} x^i + f^i   (104)",
    statement=(
        "x +_{m} f (Def. 2.11 with r = m = dim f) = Π^n_m x + Π^m_m f equals Π^n_m x + f: Π^m_m = I_m proved for "
        "all m >= 1 on the entry rule of Π. Cross-check: the same and isomat's df_add, symbolic x, f, all n, m in [1, 5]."
    ),
    methods=["symbolic", "exhaustive"],
)
def _eq104():
    def ok(c):
        n, m = c
        x, f = sympy.Matrix(sympy.symbols(f"x0:{n}")), sympy.Matrix(sympy.symbols(f"f0:{m}"))
        nominal = naive_projection(n, m) * x + naive_projection(m, m) * f
        z = _hyper.df_add([x], [f])[0]
        return (nominal - (naive_projection(n, m) * x + f)).expand().is_zero_matrix and (z - nominal).expand().is_zero_matrix

    tr = exhaustive(ok, _dims(2, 5), describe="n, m in [1, 5]", method="symbolic")
    m, i, j = _pv.ints("m i j")
    ident = _proof_trial(
        _ov_rule(i, j, m, m) == _pv.ite(i == j, m, 0), for_all="for all m >= 1, 0 <= i, j < m",
        assuming=[m >= 1, 0 <= i, i < m, 0 <= j, j < m],
        describe="Π^m_m[i, j] = ov(i, j, m, m)/m = [i = j]: Π^m_m = I_m, so x +_m f = Π^n_m x + Π^m_m f = Π^n_m x + f")
    return decide(ident, exhaustive_crosscheck=_crosscheck(tr))


@claim(
    "cheng2025:def5.9",
    quote="FFN(X) = W_2 ⋄ ReLU(W_1 ⋄ X +_n B_1) +_n B_2,  n = {n_1, ..., n_s}   (106) — instead of (53)",
    statement=(
        "In the homogeneous case (all n_i = α_i = β_i = n) (106) reduces to the paper's own (53) with α = β = s, "
        "W_2 ReLU(W_1 X + B_1) + B_2 (W_i ∈ M_{s×s} mixing the s tokens): exact on one random integer instance per size "
        "via isomat's df_feed_forward, all s, n in [1, 3]. (So it inherits (53)'s departure from the token-wise FFN, "
        "see eq53.) Strength sampled: an exact check for all values is infeasible here, since isomat's ReLU must decide "
        "the sign of each entry, which generic (symbolic) data does not have."
    ),
    methods=["exact", "exhaustive"],
)
def _def59():
    def ok(c):
        s, n = c
        X, B1, B2 = _rand(s, n, sum(c)), _rand(s, n, sum(c) + 1), _rand(s, n, sum(c) + 2)
        W1, W2 = _rand(s, s, sum(c) + 3), _rand(s, s, sum(c) + 4)
        rows = lambda M: [M[i, :].T for i in range(M.rows)]  # noqa: E731
        out = _hyper.df_feed_forward(rows(X), W1, rows(B1), W2, rows(B2))
        ref = W2 * (W1 * X + B1).applyfunc(lambda v: max(v, 0)) + B2
        return sympy.Matrix.vstack(*[v.T for v in out]) == ref

    return decide(exhaustive(ok, _dims(2, 3), describe="s, n in [1, 3]; one random integer instance per size",
                             method="exact", strength="sampled"))


# =============================================================================================
# §VI: the assembled attention and its non-identifiability
# =============================================================================================
def _sigma(X, Wq, Wk, Wv, scale=True):
    """§VI steps 1-3 as printed: softmax((QKᵀ/√n) V), row-wise; float64 (independent of isomat)."""
    Q, K, V = X @ Wq.T, X @ Wk.T, X @ Wv.T
    S = Q @ K.T @ V
    return _softmax_np(S / math.sqrt(X.shape[1]) if scale else S)


def _standard(X, Wq, Wk, Wv):
    return _sdpa(X @ Wq.T, X @ Wk.T, X @ Wv.T)


def _sec6_data(c):
    s, n = c
    return (_rnd((s, n), sum(c), -2, 2).astype(float), *(_rnd((n, n), sum(c) + k, -2, 2).astype(float) / 2 for k in (1, 2, 3)))


@claim(
    "cheng2025:eq107",
    quote="V' = softmax[X (W^q)ᵀ W^k Xᵀ X (W^v)ᵀ]   (107) — 'putting three steps together'",
    statement=(
        "(107) must equal the composition of steps 1-3 of §VI (Att = (QKᵀ/√n) V, V' = softmax(Att)); isomat's "
        "assembled_attention must equal the composition too. float64, tol 1e-12, integer-valued data, s, n in [1, 3]."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq107():
    def ok(c, printed):
        X, Wq, Wk, Wv = _sec6_data(c)
        steps = _sigma(X, Wq, Wk, Wv)
        if not _close(_hyper.assembled_attention(_dev(X), _dev(Wq), _dev(Wk), _dev(Wv)), steps):
            return False
        S = X @ Wq.T @ Wk @ X.T @ X @ Wv.T
        return _close(_softmax_np(S if printed else S / math.sqrt(X.shape[1])), steps)

    def witness(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        S = X @ Wq.T @ Wk @ X.T @ X @ Wv.T
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(),
                "(107) as printed": _softmax_np(S).tolist(), "steps 1-3": _sigma(X, Wq, Wk, Wv).tolist()}

    return decide(_num_exhaustive(lambda c: ok(c, True), _dims(2, 3), "s, n in [1, 3]", witness),
                  correction=("V' = softmax[X (W^q)ᵀ W^k Xᵀ X (W^v)ᵀ / √n]",
                              _num_exhaustive(lambda c: ok(c, False), _dims(2, 3), "s, n in [1, 3]")))


def _g_mat(n, seed):
    G = np.eye(n) + np.tril(_rnd((n, n), seed, -2, 2), -1)
    return G


@claim(
    "cheng2025:sec6/i",
    quote="(i) If W^{qk} := (W^q)ᵀ W^k remains the same for different W^q and W^k, the mapping Σ remains the same",
    statement=(
        "Replace W^q → G W^q, W^k → G^{-T} W^k (G unit lower-triangular integer, so W^{qk} is unchanged): Σ of §VI "
        "(steps 1-3 as printed) is unchanged; float64 tol 1e-10, s, n in [1, 3]. (The standard attention: sec6/i-standard.)"
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6i():
    def ok(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        G = _g_mat(c[1], sum(c) + 7)
        Wq2, Wk2 = G @ Wq, np.linalg.inv(G).T @ Wk
        return _close(_sigma(X, Wq, Wk, Wv), _sigma(X, Wq2, Wk2, Wv), 1e-10)

    return decide(_num_exhaustive(ok, _dims(2, 3), "s, n in [1, 3]"))


@claim(
    "cheng2025:sec6/i-standard",
    quote="(§VI (i) asked of standard attention) softmax(QKᵀ/√n)V unchanged when W^{qk} = (W^q)ᵀ W^k is unchanged",
    statement=(
        "Whether non-identifiability (i) also holds for the standard scaled dot-product attention (torch SDPA): "
        "W^q → G W^q, W^k → G^{-T} W^k (G unit lower-triangular integer) leaves softmax(QKᵀ/√n)V unchanged, since "
        "QKᵀ = X (W^q)ᵀ W^k Xᵀ; float64 tol 1e-10, s, n in [1, 3]."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6i_std():
    def ok(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        G = _g_mat(c[1], sum(c) + 7)
        return _close(_standard(X, Wq, Wk, Wv), _standard(X, G @ Wq, np.linalg.inv(G).T @ Wk, Wv), 1e-10)

    return decide(_num_exhaustive(ok, _dims(2, 3), "s, n in [1, 3]"))


@claim(
    "cheng2025:sec6/ii",
    quote="(ii) If W^{qk} and W^v are replaced simultaneously by λW^{qk} and (1/λ)W^v, 0 ≠ λ, the mapping Σ remains the same",
    statement=(
        "For Σ as printed in §VI (softmax applied after multiplying by V): W^q → λW^q, W^v → W^v/λ leaves Σ unchanged, "
        "λ ∈ {2, −1, 1/3}, s, n in [1, 3], float64 tol 1e-10."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6ii():
    cases = [(s, n, lam) for (s, n) in _dims(2, 3) for lam in (2.0, -1.0, 1 / 3)]

    def ok(c):
        s, n, lam = c
        X, Wq, Wk, Wv = _sec6_data((s, n))
        return _close(_sigma(X, Wq, Wk, Wv), _sigma(X, lam * Wq, Wk, Wv / lam), 1e-10)

    return decide(_num_exhaustive(ok, cases, "s, n in [1, 3], λ in {2, -1, 1/3}"))


@claim(
    "cheng2025:beyond/ii-standard",
    quote="(§VI (ii) asked of standard attention) softmax(QKᵀ/√n)V unchanged under W^{qk} → λW^{qk}, W^v → W^v/λ",
    statement=(
        "Whether non-identifiability (ii) also holds for the standard scaled dot-product attention softmax(QKᵀ/√n)V "
        "(torch SDPA): exhaustive over s, n in [1, 3] and λ ∈ {2, −1, 1/3}, X, W with entries 1 (first) then integers."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _sec6ii_std():
    cases = [(s, n, lam) for (s, n) in _dims(2, 3) for lam in (2.0, -1.0, 1 / 3)]

    def data(c):
        s, n, lam = c
        if s == n == 1:
            return np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1))
        return _sec6_data((s, n))

    def ok(c):
        X, Wq, Wk, Wv = data(c)
        lam = c[2]
        return _close(_standard(X, Wq, Wk, Wv), _standard(X, lam * Wq, Wk, Wv / lam), 1e-10)

    def witness(c):
        X, Wq, Wk, Wv = data(c)
        lam = c[2]
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(), "λ": lam,
                "attention": _standard(X, Wq, Wk, Wv).tolist(), "after rescaling": _standard(X, lam * Wq, Wk, Wv / lam).tolist()}

    return decide(_num_exhaustive(ok, cases, "s, n in [1, 3], λ in {2, -1, 1/3}", witness))


@claim(
    "cheng2025:sec6/vs-standard",
    quote="§VI: Attention(Q, K, V) = (QKᵀ/√n) V;  V' = softmax(Attention(Q, K, V)) — 'a (self-)attention'",
    statement=(
        "Whether the black box Σ of §VI (softmax after the product with V), which §VI calls a (self-)attention, is the "
        "scaled dot-product attention of (40)-(41) / [18], softmax(QKᵀ/√n) V (torch SDPA): s, n in [1, 3], float64 "
        "tol 1e-12. The paper defines its attention twice, and the two differ (every size where the outputs differ is "
        "a discrepancy): inconsistent. Correction: softmax before the product with V, as (40)-(41) print it."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _sec6_vs():
    def data(c):  # s = n = 1 first with the simplest values that separate the two
        if c == (1, 1):
            return np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), 2 * np.ones((1, 1))
        return _sec6_data(c)

    def witness(c):
        X, Wq, Wk, Wv = data(c)
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(),
                "Σ (§VI)": _sigma(X, Wq, Wk, Wv).tolist(), "softmax(QKᵀ/√n)V": _standard(X, Wq, Wk, Wv).tolist()}

    def corrected(c):  # numpy softmax(QKᵀ/√n) V against torch SDPA (independent implementations)
        X, Wq, Wk, Wv = data(c)
        Q, K, V = X @ Wq.T, X @ Wk.T, X @ Wv.T
        return _close(_softmax_np(Q @ K.T / math.sqrt(X.shape[1])) @ V, _standard(X, Wq, Wk, Wv))

    printed = _num_exhaustive(lambda c: _close(_sigma(*data(c)), _standard(*data(c))),
                              _dims(2, 3), "s, n in [1, 3]; s = n = 1 with X = W^q = W^k = 1, W^v = 2", witness)
    fixed = _num_exhaustive(corrected, _dims(2, 3), "s, n in [1, 3], vs torch SDPA")
    if not fixed.ok:
        raise CheckError("the correction (softmax before the product with V) does not verify")
    cases = _dims(2, 3)
    o = compare_printed({f"output for s = {c[0]}, n = {c[1]} (§VI: softmax after V)": _sigma(*data(c)).tolist() for c in cases},
                        {f"output for s = {c[0]}, n = {c[1]} (§VI: softmax after V)": _standard(*data(c)).tolist()
                         for c in cases},
                        kind="inconsistent", rel_tol=1e-12, method="§VI's attention against the paper's own (40)-(41)",
                        against="(40)-(41): A = softmax(QKᵀ/√n), Attention = A V (= torch SDPA)",
                        printed_trial=_crosscheck(printed), corrected_vs_torch_sdpa=_crosscheck(fixed))
    o.counterexample = printed.counterexample
    o.correction = ("Step 2-3 as in (40)-(41): A = softmax(QKᵀ/√n), V' = Attention(Q, K, V) = A V "
                    "(softmax on the scores, before the product with V)")
    return o


# =============================================================================================
# Further §III-§V statements: positional encoding (39), sizes in (84), Example 4.5
# =============================================================================================
@claim(
    "cheng2025:eq39",
    quote=(
        "PE(pos, 2i) = sin(pos/10000^{2i/d_model}), PE(pos, 2i+1) = cos(...)  (37); d := n0 = 2r; "
        "P = [sin(k/10000^{0/d}) cos(k/10000^{0/d}); ...; sin(k/10000^{1/d}) ...; ...; sin(k/10000^{r/d}) ...]  (39)"
    ),
    statement=(
        "The frequencies written in the position matrix (39) against (37): (39) uses the exponents j/d for "
        "j = 0, 1, ..., r (r + 1 sin/cos pairs), (37) gives 2i/d for i = 0, ..., r − 1 (r pairs, d = 2r columns). "
        "Compared exponent by exponent for d = 8 (r = 4), and the number of pairs."
    ),
    methods=["recompute"],
)
def _eq39():
    d, r = 8, 4
    printed = {f"exponent of pair {j} (d = {d})": sympy.Rational(j, d) for j in range(r + 1)}
    printed[f"number of sin/cos pairs (d = {d})"] = r + 1
    recomputed = {f"exponent of pair {j} (d = {d})": (sympy.Rational(2 * j, d) if j < r else "no such pair (only r = 4)")
                  for j in range(r + 1)}
    recomputed[f"number of sin/cos pairs (d = {d})"] = d // 2
    return compare_printed(printed, recomputed, kind="inconsistent", reference="eq. (37), the encoding of [18]")


@claim(
    "cheng2025:def4.13/linear",
    quote="The linear mapping π_A : R^{n_1×⋯×n_s} → R^{n_1×⋯×n_s}, denoted by A ⋄ X ... Since ⋄ is a linear mapping",
    statement=(
        "A ⋄ X built naively from Steps 1-3 ((71)-(73): x̃^i = Π^{n_i}_{n0} x^i with Π of (22), Ξ̃ = A X̃, "
        "ξ^i = Π^{n0}_{n_i} ξ̃^i) is linear in X: A ⋄ (αX + βY) = α(A ⋄ X) + β(A ⋄ Y), and isomat's diamond equals the "
        "naive construction. Exact, generic (symbolic) A, X, Y, α, β, every dims tuple of length s ≤ 2 with n_i ≤ 3, "
        "and (1, 2, 3), (3, 2, 2)."
    ),
    methods=["exact", "exhaustive"],
)
def _def413_linear():
    al, be = sympy.symbols("alpha beta")

    def naive(A, X):  # X a list of columns
        n0 = max(x.rows for x in X)
        Xt = sympy.Matrix.vstack(*[(naive_projection(x.rows, n0) * x).T for x in X])
        Xi = A * Xt
        return [naive_projection(n0, x.rows) * Xi[i, :].T for i, x in enumerate(X)]

    def ok(dims):
        s_ = len(dims)
        A = _grand(s_, s_, 1)
        X, Y = [_grand(n, 1, 10 + i) for i, n in enumerate(dims)], [_grand(n, 1, 20 + i) for i, n in enumerate(dims)]
        lhs = naive(A, [al * x + be * y for x, y in zip(X, Y)])
        rhs = [al * a + be * b for a, b in zip(naive(A, X), naive(A, Y))]
        iso = [sympy.Matrix(v) for v in _hyper.diamond(A, X).values()]
        return all(_same(a, b) for a, b in zip(lhs, rhs)) and all(_same(a, b) for a, b in zip(iso, naive(A, X)))

    return decide(_exact_exhaustive(ok, _hv_cases(2, 3) + [(1, 2, 3), (3, 2, 2)],
                                    "dims of length <= 2 with n_i <= 3, and (1, 2, 3), (3, 2, 2)"))


@claim(
    "cheng2025:eq69",
    quote="X ⊙_w Y := (X ⊗ Y) ∘ W ∈ M_{s×t}   (69), W = [√w_{i,j}] ∈ M_{s×t} (68)",
    statement=(
        "The Hadamard product with W ∈ M_{s×t} needs an s×t left factor; X ⊗ Y as printed (Kronecker product of the "
        "homogeneous X ∈ M_{s×d}, Y ∈ M_{t×d}, built with np.kron) has shape (st)×d², which is s×t only when "
        "t = d = 1: compared for every s, t, d in [1, 3]. The misprint counts once with its grid of shapes; the "
        "formula that (70) and the rest of the paper use is (X ⊙ Y) ∘ W (eq70 checks it)."
    ),
    methods=["recompute"],
)
def _eq69():
    printed, recomputed = {}, {}
    for s_, t, d in itertools.product(range(1, 4), repeat=3):
        key = f"shape of the left factor of ∘ W in (69), s = {s_}, t = {t}, d = {d}"
        printed[key] = list(np.kron(np.ones((s_, d)), np.ones((t, d))).shape)
        recomputed[key] = [s_, t]
    return compare_printed(printed, recomputed, kind="misprint", method="shape of np.kron(X, Y) against W's",
                           correct_formula="X ⊙_w Y = (X ⊙ Y) ∘ W")


@claim(
    "cheng2025:eq46",
    quote="Col_j(V') := ×_{i=1}^ℓ Col_j(V'_i) ∈ R^r, j ∈ [1, s],  r = Π_{i=1}^ℓ r_i   (46)",
    statement=(
        "Read with × the STP of vectors (= Kronecker product, eq. 12 with n = 1): the product of ℓ columns of sizes "
        "r_1, ..., r_ℓ lies in R^r with r = Π r_i, and it is the Kronecker product np.kron of the columns. Exact, "
        "generic (symbolic) columns and isomat's stp, every ℓ in [1, 3] with r_i in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
)
def _eq46():
    def ok(dims):
        cols = [_grand(r, 1, 10 + i) for i, r in enumerate(dims)]
        out = cols[0]
        for c in cols[1:]:
            out = sympy.Matrix(_stp_mod.stp(out, c))
        ref = cols[0]
        for c in cols[1:]:
            ref = sympy.Matrix(np.kron(np.array(ref.tolist(), dtype=object), np.array(c.tolist(), dtype=object)).tolist())
        return out.shape == (math.prod(dims), 1) and _same(out, ref)

    return decide(_exact_exhaustive(ok, _hv_cases(3, 3), "ℓ in [1, 3], r_i in [1, 3]"))


@claim(
    "cheng2025:sec3c/step4-counts",
    quote=("W ∈ R^{r0×s×r1×...×rℓ×s} is a hypermatrix of the order ℓ + 3. It can be expressed as a matrix M_W ∈ "
           "M_{m×n}, where m = r0 s and n = r1 ... rℓ s"),
    statement=(
        "Counted from the map W : R^{r1×...×rℓ×s} → R^{r0×s} of Step 4: the index tuple (r0, s, r1, ..., rℓ, s) has "
        "ℓ + 3 entries, and unfolding W (numpy reshape) to an m×n matrix with m = r0·s, n = r1⋯rℓ·s makes M_W vec(V') "
        "= vec(W applied to V') (np.tensordot over the input indices), for every ℓ in [1, 3], r_i, r0, s in [1, 2]; "
        "exact for all W and V': W with the injective integer encoding entry t ↦ 1000^t (both sides are linear in W "
        "with coefficients 0/±1) and every basis input V' (both sides are linear in V')."
    ),
    methods=["exact", "exhaustive"],
)
def _step4():
    def ok(c):
        ell, r0, s_, rs = c
        shape = (r0, s_) + rs + (s_,)
        W = np.array([1000 ** t for t in range(math.prod(shape))], dtype=object).reshape(shape)  # injective encoding
        m, n = r0 * s_, math.prod(rs) * s_
        M = W.reshape(m, n)
        basis_ok = all(np.array_equal(M @ e.reshape(-1), np.tensordot(W, e, axes=ell + 1).reshape(-1))
                       for e in np.eye(n, dtype=np.int64).astype(object).reshape((n,) + rs + (s_,)))
        return len(shape) == ell + 3 and M.shape == (m, n) and basis_ok

    cases = [(ell, r0, s_, rs) for ell in range(1, 4) for r0 in (1, 2) for s_ in (1, 2)
             for rs in itertools.product((1, 2), repeat=ell)]
    return decide(_exact_exhaustive(ok, cases, "ℓ in [1, 3]; r0, s, r_i in [1, 2]"))


@claim(
    "cheng2025:sec3a/ds-new-vectors",
    quote="After positional encoding (PE), we have ds new vectors. ... compounded vectors x_j − p_k, j ∈ [1, s], k ∈ [1, d]",
    statement=(
        "The number of new vectors after PE, counted from the paper's own PE(X) = X + P (38), X ∈ M_{s×d}, so P is "
        "the s×d matrix of (37) (row j the encoding of position j; (39)'s printed layout is eq39's finding): PE(X) has s rows x_j + p_j, one per word and its own "
        "position, not the ds word-position pairs x_j − p_k of the text. Counted (rows of X + P built in float64 "
        "from (37)) for every s in [1, 4] and d = 2r in {2, 4, 6}: ds ≠ s for every d >= 2, so the text contradicts "
        "(38): inconsistent. (The sign '−' against (38)'s '+' is noted, not counted.)"
    ),
    methods=["recompute"],
)
def _sec3a_ds():
    printed, recomputed = {}, {}
    for s_, d in itertools.product(range(1, 5), (2, 4, 6)):
        pos, i = np.arange(s_)[:, None], np.arange(d // 2)[None, :]
        P = np.zeros((s_, d))
        P[:, 0::2], P[:, 1::2] = np.sin(pos / 10000 ** (2 * i / d)), np.cos(pos / 10000 ** (2 * i / d))
        X = np.arange(s_ * d, dtype=float).reshape(s_, d)
        key = f"number of new vectors after PE, s = {s_}, d = {d}"
        printed[key] = d * s_
        recomputed[key] = (X + P).shape[0]
    return compare_printed(printed, recomputed, kind="inconsistent", method="count the rows of PE(X) = X + P (38)",
                           against="(38) PE(X) = X + P, P ∈ M_{s×d} (39)")


@claim(
    "cheng2025:eq84",
    quote="X ∈ M_{s0×d};  Qᵀ = W^q Xᵀ, W^q ∈ M_{s×d}; ... where W^q, W^k, W^v ∈ M_{s×s}   (84)",
    statement=(
        "(84) gives W^q (likewise W^k, W^v) two sizes: M_{s×d} in the display and M_{s×s} in the next line; they "
        "differ whenever s ≠ d (compared for every s, d in [1, 3]): inconsistent. Neither makes Qᵀ = W^q Xᵀ defined "
        "with Q ∈ M_{s0×d} like X (the nominal case, all dimensions d): checked for both printed sizes on every "
        "s, s0, d in [1, 3]; correction W^q ∈ M_{d×d} (as in (36), n0 = d), checked on the same cases."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq84():
    cases = sorted(itertools.product(range(1, 4), repeat=3), key=lambda c: (sum(c), c))

    def ok(c, shape):
        s, s0, d = c
        W, X = sympy.zeros(*shape(s, d)), sympy.zeros(s0, d)  # a question of shapes only: entries play no part
        return W.cols == X.T.rows and (W * X.T).T.shape == (s0, d)

    printed = all_of(_exact_exhaustive(lambda c: ok(c, lambda s, d: (s, d)), cases, "W^q ∈ M_{s×d}; s, s0, d in [1, 3]"),
                     _exact_exhaustive(lambda c: ok(c, lambda s, d: (s, s)), cases, "W^q ∈ M_{s×s}; s, s0, d in [1, 3]"))
    corrected = _exact_exhaustive(lambda c: ok(c, lambda s, d: (d, d)), cases, "s, s0, d in [1, 3]")
    sd = [(s, d) for s in range(1, 4) for d in range(1, 4)]
    o = compare_printed({f"size of W^q in the display of (84), s = {s}, d = {d}": [s, d] for s, d in sd},
                        {f"size of W^q in the display of (84), s = {s}, d = {d}": [s, s] for s, d in sd},
                        kind="inconsistent", method="compare the two printed sizes",
                        other_size_printed="where W^q, W^k, W^v ∈ M_{s×s} (the line after (84))",
                        either_size_makes_Q_s0_by_d=_crosscheck(printed), corrected_d_by_d=_crosscheck(corrected))
    if not corrected.ok:
        raise CheckError("the correction W^q ∈ M_{d×d} does not verify")
    o.counterexample, o.correction = printed.counterexample, "W^q, W^k, W^v ∈ M_{d×d}"
    return o


@claim(
    "cheng2025:ex4.5",
    quote="(i) softmax(x) ∈ Υ^n;  (ii) X ∈ M_{s×n0} ⇒ softmax(X)ᵀ ∈ Υ_{n0×s}",
    statement=(
        "With the row-wise softmax of (43) and Def. 4.4 (columns in Υ): entries positive and the columns of "
        "softmax(X)ᵀ sum to 1 — exact (SymPy exp), generic real (symbolic) X, so for every real X at each size, all s, "
        "n0 in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
)
def _ex45():
    def ok(c):
        s, n0 = c
        S = _hyper.softmax_rows(sympy.Matrix(s, n0, lambda i, j: sympy.Symbol(f"x_{i}_{j}", real=True))).T
        return S.shape == (n0, s) and all(v.is_positive for v in S) and all(sympy.simplify(sum(S[:, j]) - 1) == 0 for j in range(s))

    return decide(_exact_exhaustive(ok, _dims(2, 3), "s, n0 in [1, 3]"))


@claim(
    "cheng2025:rem5.7",
    quote=(
        "v_0^k = v_1^k +_{b^0} v_2^k +_{b^0} ... +_{b^0} v_ℓ^k  (99);  V_c^i = diag(Π^{b^i_k}_{b^0_k}) V_{V'_i}  (100);  "
        "V_{V'_c} = Σ_i V_c^i  (101);  Rem. 5.7: (101) can be replaced by Σ_i w_i V_c^i, w_i ≥ 0 (say Σ w_i = 1)  (103)"
    ),
    statement=(
        "(99), read as the iterated nominal addition (23) with r = b^0_k for vector k, equals (100)-(101); (103) with "
        "all w_i = 1 is (101); and with w_i ≥ 0, Σ w_i = 1, ℓ identical heads give back the projected head while (101) "
        "gives ℓ times it — symbolic heads, isomat's df_concat, ℓ ∈ {2, 3}, s ≤ 2 vectors of sizes ≤ 3, all b^0_k = r ≤ 3 "
        "plus two mixed-size cases."
    ),
    methods=["symbolic", "exhaustive"],
)
def _rem57():
    cases = [(ell, dims, (r,) * len(dims)) for ell in (2, 3) for dims in _hv_cases(2, 3) for r in (1, 2, 3)] + \
        [(2, (2, 3), (3, 1)), (2, (3, 1), (2, 3))]

    def ok(c):
        ell, dims, out = c
        heads = [_sym_hv(dims, name=f"h{i}_") for i in range(ell)]
        cat = _hyper.df_concat(heads, out)
        for k, r in enumerate(out):
            chain = heads[0][k]
            chain = naive_projection(chain.rows, r) * chain
            for h in heads[1:]:
                chain = naive_projection(r, r) * chain + naive_projection(h[k].rows, r) * h[k]
            if not (cat[k] - chain).expand().is_zero_matrix:
                return False
        ones = _hyper.df_concat(heads, out, weights=[1] * ell)
        w = [sympy.Rational(1, ell)] * ell
        same = _hyper.df_concat([heads[0]] * ell, out, weights=w)
        plain = _hyper.df_concat([heads[0]] * ell, out)
        return all((a - b).expand().is_zero_matrix for a, b in zip(ones, cat)) and all(
            (a - naive_projection(h.rows, r) * h).expand().is_zero_matrix and (b - ell * a).expand().is_zero_matrix
            for a, b, h, r in zip(same, plain, heads[0], out))

    tr = exhaustive(ok, cases, describe="ℓ in {2, 3}; head dims of length <= 2, sizes <= 3; b^0_k = r <= 3; 2 mixed cases", method="symbolic")
    return decide(tr)
