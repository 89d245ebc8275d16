"""cheng2025: what the sections share -- imports, naive references written straight from the printed Kronecker
formulas (eqs. 17-19, 22; no isomat.algebra code) and the proofs for every size about Π^m_n and the
Kronecker identities that several sections use."""

from __future__ import annotations

import importlib
import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from hypothesis import strategies as st

from ...algebra import _backend, projection
from ...errors import CheckError
from ...algebra._backend import to_numpy
from ...algebra.projection import projection_overlap
from ..engine import (
    device_cached,
    holds_memory_bound,
    refuses,
    Reading,
    Trial,
    all_of,
    builder_check,
    by_readings,
    compare_printed,
    claim,
    decide,
    exhaustive,
    float_backend,
    property_search,
)
from .. import prover as _pv

projection_module = importlib.import_module("isomat.algebra.projection")  # the module (project)

#: why the float checks are "sampled": one random float64 instance per size, compared within a tolerance
SAMPLED_WHY = (" Strength sampled: one random float64 instance per size, compared within a tolerance; an exact check "
               "would need softmax/exp/sqrt/normalization symbolically at every size, infeasible here.")


# ---------------------------------------------------------------------------------------------
# Naive references written straight from the printed Kronecker formulas (eqs. 17-19, 22).
# They share no code with isomat.algebra.
# ---------------------------------------------------------------------------------------------
def _loops_projection(m: int, n: int) -> list[list[Fraction]]:
    """Π^m_n of (22) entry by entry with loops (n/t)·#{u < t : u div (t/n) = i, u div (t/m) = j}: an independent
    reference (no isomat, SymPy or NumPy code)."""
    t = m * n // math.gcd(m, n)
    P = [[Fraction(0)] * m for _ in range(n)]
    for u in range(t):
        P[u // (t // n)][u // (t // m)] += Fraction(n, t)
    return P


def _kron(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    """Kronecker product straight from its definition, (A ⊗ B)[i, j] = A[i // r, j // s] B[i % r, j % s]."""
    A, B = sympy.Matrix(A), sympy.Matrix(B)
    r, s = B.shape
    a, b = A.tolist(), B.tolist()
    flat = [_times(a[i // r][j // s], b[i % r][j % s]) for i in range(A.rows * r) for j in range(A.cols * s)]
    return sympy.Matrix(A.rows * r, A.cols * s, flat)


def _times(x: Any, y: Any) -> Any:
    """x·y, exact, with the products by the singletons 0 and 1 written down rather than built (most entries
    of A ⊗ I and A ⊗ 1: building each SymPy product made the references a sixth of cheng2025's time)."""
    if x is sympy.S.Zero or y is sympy.S.Zero:
        return sympy.S.Zero
    if y is sympy.S.One:
        return x
    if x is sympy.S.One:
        return y
    return x * y


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


@device_cached
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


@device_cached
def _exact(m: int, n: int) -> np.ndarray:
    """isomat's Π^m_n as a dense object array of SymPy Rationals (exact matrix products)."""
    return np.array(projection(m, n, backend="sympy").tolist(), dtype=object)


# ---------------------------------------------------------------------------------------------
# Proved for every size: Π^m_n through its entry rule (isomat.algebra.projection.projection_overlap,
# the builder is checked against it inside the claims, _projection_binds): m·Π^m_n[i, j] = ov(i, j, m, n), the length of
# [i m, (i+1) m) ∩ [j n, (j+1) n). Sums over a symbolic range go through one proved lemma: the prefix
# sum S(i, k, A, B) = Σ_{u<k} ov(i, u, A, B), defined by two axioms, equals the overlap of
# [i A, (i+1) A) with [0, k B) (induction on k) -- the column blocks partition [0, k B).
# ---------------------------------------------------------------------------------------------
_ov_rule = projection_overlap  # m·Π^m_n[i, j] = _ov_rule(i, j, m, n)


def _zmax(x, y):
    return _pv.ite(x >= y, x, y)


def _zmin(x, y):
    return _pv.ite(x <= y, x, y)


@device_cached
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
        other=[i, A, B], axioms=[ax0, ax1], patterns=[S(i, k, A, B)])
    _pi_prefix.axioms = (ax0, ax1)
    return S, lm


def _proof_trial(goal, *, for_all, sizes, assuming=(), lemmas=(), describe, fallback=None):
    """A proved trial, or (when Z3 says unknown) the exhaustive fallback with the attempt noted. ``sizes`` are the
    symbolic sizes (dimensions, lengths) the statement quantifies -- not indices or values; empty for a size-free
    identity. Each must be a free unknown of the goal or the hypotheses."""
    p = _pv.prove(goal, for_all=for_all, assuming=list(assuming), lemmas=list(lemmas), sizes=list(sizes))
    return p.or_else(fallback, describe) if fallback is not None else p.trial(describe)


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
    "lcm-associative": "lcm(lcm(m, n), p) = lcm(m, lcm(n, p)) = lcm(m, n, p): both sides of an associativity law of "
                       "⊕ or ⋉ have the same length",
    "full-column-rank-injective": "a matrix of rank equal to its number of columns is injective",
}


def _textbook(trial, *names):
    """``trial`` (wrapped, so shared cached trials are not modified) with the textbook steps it uses listed by name."""
    return all_of(trial).with_evidence(axioms=[{"name": n, "statement": _TEXTBOOK[n]} for n in names])


@device_cached
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
        other=[i, j, a, b], axioms=[ax0, ax1], patterns=[C(i, j, k, a, b)])
    return C, lm


def _pi_eq22_proof():
    """isomat's entry rule equals the printed (22), for all m, n: (n/t)·C(i, j, t, t/n, t/m) = ov(i, j, m, n)/m."""
    C, count = _pi_count()
    m, n, a, b, i, j = _pv.ints("m n a b i j")
    return _proof_trial(
        m * C(i, j, n * a, a, b) == a * _ov_rule(i, j, m, n),
        for_all="for all m, n >= 1 and every common multiple t = n·a = m·b (t = lcm(m, n) included), 0 <= i < n, 0 <= j < m",
        assuming=[m >= 1, n >= 1, a >= 1, b >= 1, n * a == m * b, 0 <= i, i < n, 0 <= j, j < m], lemmas=[count],
        sizes=[m, n, a, b],
        describe="(22)[i, j] = (n/t)·((I_n ⊗ 1ᵀ_a)(I_m ⊗ 1_b))[i, j] = C(i, j, t, a, b)/a = ov(i, j, m, n)/m = isomat's rule")


def _gram_proof():
    """FᵀF = a·I_n for F = I_n ⊗ 1_a (the map y ↦ y ⊗ 1_{t/n} of (17)), for all n, a."""
    C, count = _pi_count()
    n, a, i, j = _pv.ints("n a i j")
    return _proof_trial(
        C(i, j, n * a, a, a) == _pv.ite(i == j, a, 0),
        for_all="for all n, a >= 1 (a = t/n), 0 <= i, j < n", assuming=[n >= 1, a >= 1, 0 <= i, i < n, 0 <= j, j < n],
        sizes=[n, a],
        lemmas=[count], describe="(FᵀF)[i, j] = #{u < na : u div a = i = j} = a·[i = j], F = I_n ⊗ 1_a")


def _dv_calculus(part: str):
    """SymPy, symbolic sizes: d_V(x, y)² = (1/t)‖Ex − Fy‖² (eqs. 17-19, E = I_m ⊗ 1_{t/m}, F = I_n ⊗ 1_{t/n} as
    MatrixSymbols t×m, t×n, t = n·a); its gradient and Hessian in y by SymPy's matrix calculus, then FᵀF
    rewritten to a·I_n (proved by _gram_proof). part: "hessian" (= (2/n) I_n) or "gradient" (zero at
    y = (n/t) FᵀE x = Π^m_n x, eq. 22)."""
    from ..engine import symbolic_zero

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

@device_cached
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
        other=[a, e, k], axioms=[ax[0], ax[1], ax[4], ax[5]], using=[full], patterns=[T(a, e, k, Q)])
    return T, P, outer


def _vec_kron_proof(what: str):
    T, P, outer = _vec_kron_lemma()
    a, e, k, s_ = _pv.ints("a e k s")
    return _proof_trial(
        T(a, e, k, s_) == P(a, e, s_),
        for_all="for all p, s, k >= 1, A ∈ M_{p×s}, X ∈ M_{s×k} (uninterpreted), every row (a, e), 0 <= e < k",
        assuming=[s_ >= 1, k >= 1, 0 <= e, e < k, a >= 0], lemmas=[outer], sizes=[s_, k],
        describe=f"((A ⊗ I_k) V_r(X))[(a, e)] = Σ_{{l<s}} A[a,l] X[l,e] = V_r(AX)[(a, e)] (A ⊗ I_k has sk columns = the length "
                 f"of V_r(X)); {what}")


def _eq26_proof():
    """(26) as an entry identity, for all sizes: Σ_{u ∈ block j} Π^t_r[i, u] = Π^m_r[i, j], t = m μ.
    (27) is the same statement for n, ν = t/n: one universally quantified proof covers both."""
    S, prefix = _pi_prefix()
    m, mu, r, i, j = _pv.ints("m mu r i j")
    return _proof_trial(
        S(i, (j + 1) * mu, m * mu, r) - S(i, j * mu, m * mu, r) == mu * _ov_rule(i, j, m, r),
        for_all="for all m, μ, r >= 1 (t = mμ: every multiple of m), 0 <= i < r, 0 <= j < m",
        assuming=[m >= 1, mu >= 1, r >= 1, 0 <= i, i < r, 0 <= j, j < m], lemmas=[prefix], sizes=[m, mu, r],
        describe="t·Σ_{u=jμ}^{jμ+μ-1} Π^t_r[i,u] = S(i,(j+1)μ,t,r) − S(i,jμ,t,r) = μ·ov(i,j,m,r) = t·Π^m_r[i,j], "
                 "i.e. Π^t_r (I_m ⊗ 1_μ) = Π^m_r for every multiple t = mμ of m")



@device_cached
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
        sizes=[n, p_, a, b],
        describe="(A (I_n ⊗ 1ᵀ_a))[i, u] = Σ_{l<n} A[i,l][u div a = l] = A[i, u div a] = (A ⊗ 1ᵀ_a)[i, u] and "
                 "((I_p ⊗ 1_b) B)[u, j] = B[u div b, j] = (B ⊗ 1_b)[u, j]")


# ---------------------------------------------------------------------------------------------
# Binding checks: isomat's builders against the proved entry rules, exhaustively up to a bound and at
# seeded random larger sizes. Passed to decide(...) as Trials, so a disagreement makes the claim an error.
# ---------------------------------------------------------------------------------------------
def _random_sizes(seed: int, count: int, k: int, lo: int, hi: int) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    return [tuple(int(v) for v in rng.integers(lo, hi + 1, size=k)) for _ in range(count)]


def _builder_binds(ok, small, small_desc: str, large, large_desc: str) -> "Trial":  # noqa: D401
    """The builder agrees with its entry rule at every size of ``small`` (all sizes up to a bound) and at the
    seeded random sizes ``large``."""
    return all_of(exhaustive(ok, small, describe=small_desc, method="exact"),
                  exhaustive(ok, large, describe=large_desc, method="exact"))


#: every size up to this bound is checked (both of m, n), and the seeded random sizes start right above it
EXHAUSTIVE_TO = 12
#: the sizes at which the builders' checks also compare every format (csc, coo, operator) with the CSR result and,
#: where m n <= 64, the exact (SymPy) field: equal sides, coprime, one side 1, divisible, and two large ones
OPTION_SIZES = frozenset({(1, 1), (1, 4), (4, 1), (2, 3), (3, 2), (4, 6), (8, 8), (5, 7), (12, 12), (10_000, 9_973),
                          (317, 313), (100, 100), (7, 9_973)})
#: the largest m, n of the builders' checks (the sizes users run; a swap matrix is m n x m n, so one side stays small)
LARGE_TO = 10_000


def _sizes_above(seed: int, count: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """``count`` seeded random (m, n), each coordinate log-uniform in [lo, hi] (no gap below: ``lo`` is the
    exhaustive bound + 1, and log-uniform draws reach the sizes just above it as often as the large ones)."""
    rng = np.random.default_rng(seed)
    draw = lambda: int(min(hi, max(lo, round(math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))))))  # noqa: E731
    return [(draw(), draw()) for _ in range(count)]


def _builder_checked(ok, small, small_desc: str, large, large_desc: str) -> "Trial":
    """The builder agrees with its reference at every size of ``small`` (all sizes up to a bound: exhaustive) and at
    the listed larger sizes ``large`` (each decided exactly; exhaustive at the sizes listed)."""
    return all_of(exhaustive(ok, small, describe=small_desc, method="exact"),
                  exhaustive(ok, large, describe=large_desc, method="exact"))


def host_csr(Q):
    """A SciPy CSR copy on the host (sorted indices) of a rendered matrix or SparseOperator of any field (a CuPy
    matrix comes back with .get(), never by implicit conversion)."""
    import scipy.sparse as sp

    if hasattr(Q, "rows") and hasattr(Q, "values"):  # a SparseOperator
        Q = sp.coo_array((to_numpy(Q.values), (to_numpy(Q.rows), to_numpy(Q.cols))), shape=Q.shape)
    elif hasattr(Q, "get") and not isinstance(Q, sp.sparray):
        Q = Q.get()
    Q = sp.csr_array(Q)
    Q.sort_indices()
    return Q


def _projection_csr_ok(mn, field: str = "numpy") -> bool:
    """projection(m, n) in ``field`` against the proved rule ov(i, j, m, n)/m from its CSR arrays, vectorized (so it runs at
    m, n ~ 10^4): every stored value equals the rule at its position; the positions are distinct and sorted in each row;
    the rule's exact integer row sums over the stored entries are m and column sums n -- the rule's totals over all
    positions, so no nonzero is missing; n + m − gcd(m, n) entries; 256 seeded random positions (stored or not) read
    from the CSR arrays equal the rule; at OPTION_SIZES every format and the exact field (m n <= 64) give the same matrix, and
    project() refuses a 3-d or row-less x by name; and the matrix-free project() applies it (rtol 1e-12)."""
    m, n = mn
    P = projection(m, n) if field == "numpy" else projection(m, n, backend=field)  # the default field is NumPy's
    if P.shape != (n, m):
        return False
    indptr, cols, data = to_numpy(P.indptr).astype(np.int64), to_numpy(P.indices).astype(np.int64), to_numpy(P.data)
    counts = np.diff(indptr)
    if np.any(counts < 1) or int(indptr[-1]) != n + m - math.gcd(m, n):
        return False
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    keys = rows * m + cols
    ov = projection_overlap(rows, cols, m, n)
    if not (np.all(np.diff(keys) > 0) and np.all(cols < m) and np.array_equal(data, ov / m) and np.all(ov > 0)
            and np.all(np.add.reduceat(ov, indptr[:-1]) == m) and np.array_equal(np.bincount(cols, weights=ov, minlength=m), np.full(m, float(n)))):
        return False
    rng = np.random.default_rng(m * 7919 + n)
    I, J = rng.integers(0, n, 256), rng.integers(0, m, 256)
    pos = np.minimum(np.searchsorted(keys, I * m + J), keys.size - 1)
    got = np.where(keys[pos] == I * m + J, data[pos], 0.0)
    if not np.array_equal(got, projection_overlap(I, J, m, n) / m):
        return False
    ref = (indptr, cols, data)
    for fmt in (("csc", "coo", "operator") if mn in OPTION_SIZES else ()):
        Q = host_csr(projection(m, n, backend=field, format=fmt))
        if not all(np.array_equal(a, b) for a, b in zip((Q.indptr, Q.indices, Q.data), ref)):
            return False
    if mn in OPTION_SIZES and field == "numpy":  # projection_operator called directly, its field left to its default
        Q = host_csr(projection_module.projection_operator(m, n))
        if not all(np.array_equal(a, b) for a, b in zip((Q.indptr, Q.indices, Q.data), ref)):
            return False
        # the memory bound is held against the n + m - gcd entries it builds: the CSR (a float64 and an int32 index
        # each, an int32 row pointer), three staged COO triplet sets (int64 row and column, float64 value) and an int64
        # count per row -- it fits that bound and is refused one byte below it
        nnz = n + m - math.gcd(m, n)
        need = nnz * 12 + (n + 1) * 4 + 3 * nnz * 24 + 8 * n
        if not holds_memory_bound(lambda: projection(m, n), need, "projection"):
            return False
        # project refuses what is no non-empty vector or matrix (3-d, no rows) with a ValueError that names x --
        # never an unpacking error or a division by zero from inside
        for bad in (np.zeros((m, 2, 2)), np.zeros((0, 2))):
            try:
                projection_module.project(bad, n)
                return False
            except ValueError as exc:
                if not str(exc).startswith("x must be"):
                    return False
    if mn in OPTION_SIZES and m * n <= 64:
        E = _exact(m, n)
        rule = sympy.Matrix(n, m, lambda i, j: sympy.Rational(int(projection_overlap(i, j, m, n)), m))
        if any(E[i, j] != rule[i, j] for i in range(n) for j in range(m)):
            return False
        # project in the exact field: two columns (summed over the overlap pieces) and one column (the prefix
        # sums), against the rule's matrix times x, exactly
        X = sympy.Matrix(rng.integers(-9, 10, size=(m, 2)).tolist())
        got2, got1 = projection_module.project(X, n), projection_module.project(X[:, 0], n)
        if not (isinstance(got2, sympy.MatrixBase) and got2.shape == (n, 2) and got2 == rule * X
                and isinstance(got1, sympy.MatrixBase) and got1.shape == (n, 1) and got1 == rule * X[:, 0]):
            return False
    x = rng.integers(-9, 10, size=(m, 2)).astype(float)
    xd = _backend.as_values(x, field, name="x")
    Px = np.zeros((n, 2))
    np.add.at(Px, rows, data[:, None] * x[cols])
    px = to_numpy(projection_module.project(xd, n))
    px0 = to_numpy(projection_module.project(xd[:, 0], n))
    px1 = to_numpy(projection_module.project(xd[:, :1], n))  # an m x 1 matrix stays a matrix: n x 1
    if to_numpy(projection_module.project(xd[:, :0], n)).shape != (n, 0):  # no columns: none projected
        return False
    if not all(v.dtype == np.float64 for v in (px, px0, px1)):  # float in, float64 out (not an object array)
        return False
    return bool(np.allclose(px, Px, rtol=1e-12, atol=1e-12) and px0.shape == (n,)
                and np.allclose(px0, Px[:, 0], rtol=1e-12, atol=1e-12) and px1.shape == (n, 1)
                and np.allclose(px1, Px[:, :1], rtol=1e-12, atol=1e-12))


#: m, n of the projection check beyond the random ones: the largest sizes, coprime, divisible, one side 1, above 1000
PROJECTION_LARGE = [(10_000, 10_000), (9_973, 10_000), (10_000, 9_973), (1, 10_000), (10_000, 1), (5_000, 10_000),
                    (10_000, 2_500), (1_001, 999), (6_144, 4_096), (1_024, 1_000)]


def _projection_binds():
    """isomat's projection (every format; exact for small sizes) and project against the proved entry rule (binding),
    isomat's side in the float field of the run (CuPy under `isomat verify --backend cupy`). The builder computes its
    values with the rule and verifies that its positions are complete (see projection_operator): derived from it."""
    return builder_check(_projection_binds_in(float_backend()), derived_from_rule=True, builder="projection, project")


@device_cached
def _projection_binds_in(field: str):
    B = EXHAUSTIVE_TO
    large = _sizes_above(22, 16, B + 1, LARGE_TO) + PROJECTION_LARGE
    return _builder_checked(lambda mn: _projection_csr_ok(mn, field), list(itertools.product(range(1, B + 1), repeat=2)),
                            f"projection(m, n) (CSR arrays; every format and the exact field at {sorted(OPTION_SIZES)}) and project vs ov(i, j, m, n)/m, "
                            f"all 1 <= m, n <= {B}",
                            large, f"16 seeded log-uniform random (m, n) in [{B + 1}, {LARGE_TO}]^2 and {PROJECTION_LARGE}")


def _swap_csr_ok(mn, field: str = "numpy") -> bool:
    """swap_matrix(m, n) in ``field`` from its CSR arrays, vectorized, against the definition written directly (column
    k = i n + j, i = k div n, j = k mod n, holds its one 1 in row j m + i; no isomat code): one entry per row and per
    column, all 1, at the defined positions; W (x ⊗ y) = y ⊗ x with np.kron on seeded random integer x, y; every
    format, the defaults (backend and format omitted; n omitted when m = n) and the exact field (for m n <= 64) give
    the same matrix at OPTION_SIZES."""
    _stp = importlib.import_module("isomat.algebra.stp")
    m, n = mn
    N = m * n
    W = _stp.swap_matrix(m, n, backend=field)
    if W.shape != (N, N):
        return False
    indptr, cols, data = to_numpy(W.indptr), to_numpy(W.indices), to_numpy(W.data)
    k = np.arange(N, dtype=np.int64)
    i, j = k // n, k % n
    defined_row = j * m + i
    if not (np.array_equal(indptr, np.arange(N + 1)) and np.all(data == 1) and np.array_equal(cols[defined_row], k)
            and np.array_equal(np.bincount(cols, minlength=N), np.ones(N, dtype=np.int64))):
        return False
    rng = np.random.default_rng(N + 17)
    x, y = rng.integers(-9, 10, m).astype(float), rng.integers(-9, 10, n).astype(float)
    xy = _backend.as_values(np.kron(x, y), field, name="x")
    if not np.array_equal(to_numpy(W @ xy), np.kron(y, x)):
        return False
    for fmt in (("csc", "coo", "operator") if mn in OPTION_SIZES else ()):
        Q = host_csr(_stp.swap_matrix(m, n, backend=field, format=fmt))
        if not (np.array_equal(Q.indptr, indptr) and np.array_equal(Q.indices, cols)):
            return False
    if mn in OPTION_SIZES:  # the defaults: the NumPy field, CSR, and W[n] = W[n, n] when n is omitted
        import scipy.sparse as sp

        for D in (_stp.swap_matrix(m, n),) + ((_stp.swap_matrix(m),) if m == n else ()):
            if not (sp.issparse(D) and D.format == "csr" and np.array_equal(D.indptr, indptr)
                    and np.array_equal(D.indices, cols) and np.all(D.data == 1)):
                return False
    if mn in OPTION_SIZES and N <= 64:
        E = _stp.swap_matrix(m, n, backend="sympy")
        if any(E[int(r), int(c)] != 1 for r, c in zip(defined_row, k)) or sum(1 for v in E.values() if v != 0) != N:
            return False
    return True


#: m, n of the swap check beyond the random ones: one side to 10^4 (W is m n x m n), equal sides, coprime, one side 1
SWAP_LARGE = [(10_000, 1), (1, 10_000), (10_000, 3), (7, 9_973), (2, 10_000), (100, 100), (317, 313), (1_001, 21),
              (21, 21), (250, 256)]


def _swap_binds():
    """swap_matrix calls its proved entry rule swap_row for its rows: derived from it (the check guards the rest)."""
    return builder_check(_swap_binds_in(float_backend()), derived_from_rule=True, builder="swap_matrix")


@device_cached
def _swap_binds_in(field: str):
    B = EXHAUSTIVE_TO
    large = [(m, n) for m, n in _sizes_above(9, 24, B + 1, LARGE_TO) if m * n <= 10**5] + SWAP_LARGE
    return _builder_checked(lambda mn: _swap_csr_ok(mn, field), list(itertools.product(range(1, B + 1), repeat=2)),
                            f"swap_matrix(m, n) (CSR arrays; every format, the defaults and the exact field at {sorted(OPTION_SIZES)}) vs the definition "
                            f"(row j m + i for column i n + j) and np.kron, all 1 <= m, n <= {B}",
                            large, f"seeded log-uniform random (m, n) in [{B + 1}, {LARGE_TO}]^2 with m n <= 1e5, and {SWAP_LARGE}")


def _pi_identity_proof(describe: str):
    """Π^r_r = I_r on the entry rule, for all r (one obligation, shared by every claim that uses it, so that
    the claims whose proof is only this are counted once)."""
    r, i, j = _pv.ints("r i j")
    return _proof_trial(
        _ov_rule(i, j, r, r) == _pv.ite(i == j, r, 0), for_all="for all r >= 1, 0 <= i, j < r",
        assuming=[r >= 1, 0 <= i, i < r, 0 <= j, j < r], sizes=[r], describe=describe)


# ---------------------------------------------------------------------------------------------
SIZES = range(1, 6)


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
