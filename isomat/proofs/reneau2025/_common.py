"""reneau2025: what the sections share -- imports and the naive references (no isomat.algebra code):
Algorithm 1 literally, Kolda-Bader mode products, multiplication counting."""

from __future__ import annotations

import itertools
import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import sympy
from hypothesis import strategies as st

from ...algebra import ndlinear as _nd
from ...algebra.kron import kronecker_factors
from ..engine import (
    device_cached,
    exact_equal,
    Reading,
    Trial,
    all_of,
    by_readings,
    claim,
    compare_printed,
    decide,
    exhaustive,
    not_checkable,
    property_search,
    symbolic_zero,
)



# ---------------------------------------------------------------------------------------------
# Naive references (no isomat.algebra code): Algorithm 1 literally, Kolda-Bader mode products,
# multiplication counting.
# ---------------------------------------------------------------------------------------------
def algorithm1(X: np.ndarray, Wp: list[np.ndarray], bs: list, order: str = "outer") -> np.ndarray:
    """reneau2025 Algorithm 1 as printed: permute mode k last, reshape to (B*prod_{j!=k} S_j, D_k),
    ``Y = X W_k + b_k`` with the paper's W_k (D_k x H_k), reshape and permute back. Object arrays
    (exact) or floats. ``order="inner"`` runs k = N..1 (the package's transform_outer=False)."""
    N = len(Wp)
    Y = X
    for k in (range(N) if order == "outer" else reversed(range(N))):
        ax = k + 1
        perm = [a for a in range(N + 1) if a != ax] + [ax]
        T = np.transpose(Y, perm)
        lead = T.shape[:-1]
        M = T.reshape(-1, T.shape[-1])
        out = np.empty((M.shape[0], Wp[k].shape[1]), dtype=object)
        for r in range(M.shape[0]):
            for h in range(Wp[k].shape[1]):
                acc = sum((M[r, d] * Wp[k][d, h] for d in range(M.shape[1])), sympy.Integer(0))
                out[r, h] = acc + (bs[k][h] if bs[k] is not None else 0)
        T = out.reshape(*lead, Wp[k].shape[1])
        Y = np.transpose(T, np.argsort(perm))
    return Y


def kolda_bader_mode_product(X: np.ndarray, U: np.ndarray, n: int) -> np.ndarray | None:
    """(X x_n U)_{..j..} = sum_i x_{..i..} u_{j i} (Kolda & Bader 2009, §2.5); None if undefined."""
    if U.shape[1] != X.shape[n]:
        return None
    Xn = np.moveaxis(X, n, 0)
    out = np.empty((U.shape[0], *Xn.shape[1:]), dtype=object)
    for j in range(U.shape[0]):
        out[j] = sum((U[j, i] * Xn[i] for i in range(U.shape[1])), np.zeros(Xn.shape[1:], dtype=object))
    return np.moveaxis(out, 0, n)


class _Counted:
    """A number that counts the multiplications done with it (for eq. (1))."""

    muls = 0

    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        _Counted.muls += 1
        return _Counted(self.v * (other.v if isinstance(other, _Counted) else other))

    __rmul__ = __mul__

    def __add__(self, other):
        return _Counted(self.v + (other.v if isinstance(other, _Counted) else other))

    __radd__ = __add__


def _sym_layer(D, H, tag=""):
    Wp = [np.array(sympy.symbols(f"w{tag}{k}_0:{D[k] * H[k]}"), dtype=object).reshape(D[k], H[k]) for k in range(len(D))]
    bs = [np.array(sympy.symbols(f"b{tag}{k}_0:{H[k]}"), dtype=object) for k in range(len(D))]
    return Wp, bs


def _isomat_flat(Wp, bs, order):
    """isomat's (K, beta) for the paper's weights (transposed into nn.Linear layout)."""
    Ws = [sympy.Matrix(W.T.tolist()) for W in Wp]
    Bs = [None if b is None else sympy.Matrix(list(b)) for b in bs]
    return _nd.ndlinear_matrix(Ws, Bs, order, backend="sympy")


def _bounded(t: Trial, bound: str) -> Trial:
    """A trial made of proofs that each hold for all sizes at a fixed number of modes N, taken for the N up to a bound:
    exhaustive in N (``bound`` says which), never ``proved`` -- nothing here is proved for every N."""
    if not t.ok:
        return t
    return Trial(True, t.method, {"bounded": bound, "trials": [t.evidence]}, strength="exhaustive")


def _zero(M: sympy.Matrix) -> bool:
    return all(sympy.expand(v) == 0 for v in M)




# ---------------------------------------------------------------------------------------------
# Products and sums over the modes for every N (Z3): mode sizes D(j), H(j), j = 1..N, as uninterpreted
# functions; P_D(m, n) = Π_{m<j<=n} D_j defined by its recursion (axioms); lemmas by induction on n.
# ---------------------------------------------------------------------------------------------
def alg1_step_muls(size_before, d, h):
    """Scalar multiplications of one step of Algorithm 1 (one sample): X_matrix has size_before / D_k rows and D_k
    columns, times W_k (D_k × H_k): rows · D_k · H_k = size_before · H_k. The rule the eq. (1) proof is built from."""
    return size_before * h


def alg1_step_size(size_before, d, h):
    """Entries of the intermediate after one step, times D_k: Y_matrix is (size_before / D_k) × H_k, so
    size_after · D_k = size_before · H_k (the App. C memory proof and the eq. (1) proof use this bookkeeping)."""
    return size_before * h


def linear_params(fan_in, fan_out):
    """Parameters of one ``nn.Linear(fan_in, fan_out)`` with bias, counted over its structure: one weight per
    (h, d) in [0, fan_out) × [0, fan_in) and one bias entry per h in [0, fan_out) (SymPy summations, so the sizes may
    be symbols). Returns ``(weights, biases)``; the §3.1 equal-mode proofs count with it."""
    d, h = sympy.symbols("d_ h_", integer=True)
    return sympy.summation(1, (h, 0, fan_out - 1), (d, 0, fan_in - 1)), sympy.summation(1, (h, 0, fan_out - 1))


def matmul_muls(rows, inner, cols):
    """Scalar multiplications of a (rows × inner) @ (inner × cols) matrix product, counted as the iterations of its
    triple loop (SymPy summations, so the sizes may be symbols); the eq. (1) equal-mode proofs count with it."""
    r, d, h = sympy.symbols("r_ d_ h_", integer=True)
    return sympy.summation(1, (r, 0, rows - 1), (h, 0, cols - 1), (d, 0, inner - 1))


def xavier_bound(fan_in, fan_out):
    """App. C's Xavier-uniform half-width a = √(6/(D_i + H_i)) (the formula the appc/init proof is about)."""
    return sympy.sqrt(6 / (fan_in + fan_out))


@device_cached
def _mode_products():
    """Z3 symbols, axioms and lemmas about products over the modes, for every number of modes n."""
    import z3

    from .. import prover as pv

    Z = z3.IntSort()
    D, H = z3.Function("D", Z, Z), z3.Function("H", Z, Z)
    PD, PH = z3.Function("prodD", Z, Z, Z), z3.Function("prodH", Z, Z, Z)
    j, m, n, a, b, c = pv.ints("j m n a b c")
    axioms = []
    for P, F, L in ((PD, D, "D"), (PH, H, "H")):
        axioms.append(pv.axiom(f"prod{L}-empty", z3.ForAll([m], P(m, m) == 1), text=f"Π_{{m<j<=m}} {L}_j = 1 (empty product)"))
        axioms.append(pv.axiom(f"prod{L}-step", z3.ForAll([m, n], z3.Implies(z3.And(0 <= m, m <= n), P(m, n + 1) == P(m, n) * F(n + 1)),
                                                         patterns=[P(m, n + 1)]),
                               text=f"Π_{{m<j<=n+1}} {L}_j = (Π_{{m<j<=n}} {L}_j) · {L}_{{n+1}}"))
    positive = z3.ForAll([j], z3.Implies(j >= 1, z3.And(D(j) >= 1, H(j) >= 1)), patterns=[D(j), H(j)])
    lemmas = {}
    for P, F, L in ((PD, D, "D"), (PH, H, "H")):
        ax = [x for x in axioms if x.name.startswith(f"prod{L}")]
        lemmas[f"pos{L}"] = pv.induction(
            f"prod{L}-positive", n, lambda n, P=P: z3.Implies(m <= n, P(m, n) >= 1), other=[m], assuming=[m >= 0, positive],
            axioms=ax, patterns=[P(m, n)], text=f"Π_{{m<j<=n}} {L}_j >= 1 when every mode size is >= 1")
        lemmas[f"split{L}"] = pv.induction(
            f"prod{L}-split", n, lambda n, P=P: z3.Implies(z3.And(a <= b, b <= n), P(a, n) == P(a, b) * P(b, n)),
            other=[a, b], assuming=[a >= 0], axioms=ax,
            text=f"Π_{{a<j<=n}} {L}_j = (Π_{{a<j<=b}} {L}_j)(Π_{{b<j<=n}} {L}_j) for 0 <= a <= b <= n")
        lemmas[f"empty{L}"] = pv.lemma(f"prod{L}-empty-product", [m], P(m, m) == 1, axioms=ax[:1], text=f"Π_{{m<j<=m}} {L}_j = 1")
        lemmas[f"one{L}"] = pv.lemma(f"prod{L}-single", [m], z3.Implies(m >= 0, P(m, m + 1) == F(m + 1)), axioms=ax,
                                     text=f"Π_{{m<j<=m+1}} {L}_j = {L}_{{m+1}}")
    lemmas["DleH"] = pv.induction(
        "prodD-le-prodH", n, lambda n: z3.Implies(m <= n, PD(m, n) <= PH(m, n)), other=[m],
        assuming=[m >= 0, positive, z3.ForAll([j], z3.Implies(j >= 1, D(j) <= H(j)), patterns=[D(j)])],
        axioms=axioms, using=[lemmas["posD"], lemmas["posH"]], patterns=[PD(m, n)],
        text="Π D_j <= Π H_j over m < j <= n when every mode grows (1 <= D_j <= H_j)")
    lemmas["HleD"] = pv.induction(
        "prodH-le-prodD", n, lambda n: z3.Implies(m <= n, PH(m, n) <= PD(m, n)), other=[m],
        assuming=[m >= 0, positive, z3.ForAll([j], z3.Implies(j >= 1, H(j) <= D(j)), patterns=[H(j)])],
        axioms=axioms, using=[lemmas["posD"], lemmas["posH"]], patterns=[PH(m, n)],
        text="Π H_j <= Π D_j over m < j <= n when every mode shrinks (1 <= H_j <= D_j)")
    cancel = pv.lemma("cancel-positive", [a, b, c], z3.Implies(z3.And(c >= 1, a * c == b * c), a == b),
                      text="a·c = b·c and c >= 1 give a = b")
    return dict(D=D, H=H, PD=PD, PH=PH, axioms=axioms, positive=positive, lemmas=lemmas, cancel=cancel)


@device_cached
def _alg1_bookkeeping():
    """Algorithm 1's shape bookkeeping and multiplication count for every number of modes n, as Z3 definitions
    (axioms) driven by :func:`alg1_step_size` / :func:`alg1_step_muls` (order 1..n), and the lemma (induction on the
    number of steps m) giving each intermediate and the count in closed form:
    T(m, n) = Π_{j<=m} H_j · Π_{j>m} D_j and C(m, n) = Σ_{k<=m} (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k."""
    import z3

    from .. import prover as pv

    S = _mode_products()
    D, H, PD, PH, L, cancel = S["D"], S["H"], S["PD"], S["PH"], S["lemmas"], S["cancel"]
    Z = z3.IntSort()
    T, C, E = (z3.Function(f, Z, Z, Z) for f in ("alg1_size", "alg1_muls", "eq1_sum"))
    m, n = pv.ints("m n")
    rng = z3.And(0 <= m, m < n)
    ax = [
        pv.axiom("alg1-input", z3.ForAll([n], T(0, n) == PD(0, n)), text="before the first step the sample has Π_j D_j entries"),
        pv.axiom("alg1-step-size", z3.ForAll([m, n], z3.Implies(rng, T(m + 1, n) * D(m + 1) == alg1_step_size(T(m, n), D(m + 1), H(m + 1))),
                                             patterns=[T(m + 1, n)]),
                 text="step k = m+1 reshapes the intermediate to (T/D_k) × D_k and multiplies by W_k (D_k × H_k): T' · D_k = T · H_k"),
        pv.axiom("alg1-muls-0", z3.ForAll([n], C(0, n) == 0), text="no multiplication before the first step"),
        pv.axiom("alg1-muls-step", z3.ForAll([m, n], z3.Implies(rng, C(m + 1, n) == C(m, n) + alg1_step_muls(T(m, n), D(m + 1), H(m + 1))),
                                             patterns=[C(m + 1, n)]),
                 text="step k = m+1 does (T/D_k) · D_k · H_k multiplications"),
        pv.axiom("eq1-sum-0", z3.ForAll([n], E(0, n) == 0), text="the empty sum of eq. (1)"),
        pv.axiom("eq1-sum-step", z3.ForAll([m, n], z3.Implies(rng, E(m + 1, n) == E(m, n) + PH(0, m) * PD(m + 1, n) * D(m + 1) * H(m + 1)),
                                           patterns=[E(m + 1, n)]),
                 text="eq. (1) as printed: term k = m+1 is (Π_{j<k} H_j)(Π_{j=k+1}^n D_j) D_k H_k"),
    ]
    defs = [*S["axioms"], *ax]
    pos = S["positive"]
    outer = pv.induction(
        "alg1-outer-closed-form", m,
        lambda m: z3.Implies(m <= n, z3.And(T(m, n) == PH(0, m) * PD(m, n), C(m, n) == E(m, n))),
        other=[n], assuming=[n >= 0, pos], axioms=defs, rlimit=3_000_000,  # (the proof needs far less: a broken step fails fast)
        using=[L["splitD"].at(n, m, m + 1), cancel.at(T(m + 1, n), PH(0, m + 1) * PD(m + 1, n), D(m + 1))],
        text="for all n >= 0 modes and 0 <= m <= n steps of order 1..n: the intermediate has Π_{j<=m} H_j Π_{j>m} D_j "
             "entries and the multiplications so far are the first m terms of eq. (1)")
    return dict(S, T=T, C=C, E=E, defs=defs, outer=outer)


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
