"""farag2025: what the sections share -- imports, independent references (loop-built stages, finite
differences) and helpers. References here share no code with :mod:`isomat.algebra`."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np
import sympy
import z3
from hypothesis import strategies as st

from ...algebra._backend import array_module, to_numpy
from ...algebra.spm import (
    butterfly_pairings,
    butterfly_partner,
    layer_matrix,
    random_spm,
    spm_attention_backward,
    spm_attention_forward,
    spm_backward,
    spm_forward,
    spm_gru_backward,
    spm_gru_forward,
    spm_layer,
    stage_matrix,
)
from ..engine import (
    Outcome,
    Reading,
    by_readings,
    Trial,
    all_of,
    claim,
    compare_printed,
    decide,
    exhaustive,
    float_backend,
    not_checkable,
    numeric_close,
    property_search,
    symbolic_zero,
)
from .. import prover
from ...errors import CheckError

# ---------------------------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------------------------
th, x1, x2, d1, d2 = sympy.symbols("theta x1 x2 delta1 delta2", real=True)
a_, b_, c_, d_ = sympy.symbols("a b c d", real=True)
PYTH = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]


def naive_stage(n, pairs, blocks, single_scale=1):
    """Stage matrix by direct loops: block ``(a, b, c, d)`` on rows/cols ``(i, j)``; an unpaired
    coordinate gets ``single_scale``."""
    B = sympy.zeros(n, n)
    used = set()
    for (i, j), (a, b, c, d) in zip(pairs, blocks):
        i, j = int(i), int(j)
        B[i, i], B[i, j], B[j, i], B[j, j] = a, b, c, d
        used |= {i, j}
    for k in range(n):
        if k not in used:
            B[k, k] = single_scale
    return B


def trig_zero(M):
    """True when every entry of M vanishes after sin² → 1 − cos² (fast for polynomial trig entries)."""
    def z(e):
        e = sympy.expand(e)
        rep = {sympy.sin(a) ** 2: 1 - sympy.cos(a) ** 2 for a in {f.args[0] for f in e.atoms(sympy.sin)}}
        return sympy.expand(e.subs(rep)) == 0
    return all(z(e) for e in M)


def rot(t):
    return (sympy.cos(t), -sympy.sin(t), sympy.sin(t), sympy.cos(t))


def rational_angle(rng):
    """An angle with rational cosine and sine (a Pythagorean triple, random signs/swap)."""
    p, q, r = PYTH[int(rng.integers(len(PYTH)))]
    if rng.integers(2):
        p, q = q, p
    return sympy.atan2(int(rng.choice([-1, 1])) * p, int(rng.choice([-1, 1])) * q)


def fd_grad(f, v, h=1e-6):
    """Central finite-difference gradient of scalar ``f`` at float64 array ``v``."""
    v = np.asarray(v, dtype=np.float64)
    g = np.zeros_like(v)
    for idx in np.ndindex(v.shape):
        e = np.zeros_like(v)
        e[idx] = h
        g[idx] = (f(v + e) - f(v - e)) / (2 * h)
    return g


def _fl(lay):
    """The same float layer rebuilt in :func:`float_backend` (the GPU field under ``verify --backend cupy``)."""
    kw = dict(odd_scale=to_numpy(lay.odd_scale)) if lay.odd == "scale" else {}
    return spm_layer(lay.n, list(lay.pairs), to_numpy(lay.params), variant=lay.variant, d_in=to_numpy(lay.d_in),
                     d_out=to_numpy(lay.d_out), bias=to_numpy(lay.bias), odd=lay.odd, backend=float_backend(), **kw)


def _fspm(n, L, **kw):
    """A random float SPM (isomat's ``random_spm`` values) in the float field of the run."""
    return _fl(random_spm(n, L, **kw))


def _dev(a):
    """A host array moved to the float field of the run (no-op for NumPy)."""
    return array_module(float_backend()).asarray(a)


def _host(lay):
    """Host copies of a layer's values: params, d_in, d_out, bias, odd_scale (None unless scaled)."""
    sc = to_numpy(lay.odd_scale) if lay.odd == "scale" else None
    return to_numpy(lay.params), to_numpy(lay.d_in), to_numpy(lay.d_out), to_numpy(lay.bias), sc


def _naive_stage_float(lay, ell):
    """Stage ``ell`` as a dense float matrix by explicit loops over its pairs (cos/sin from ``math``)."""
    n = lay.n
    P, _, _, _, sc = _host(lay)
    B = np.zeros((n, n))
    used = set()
    for k, (i, j) in enumerate(lay.pairs[ell]):
        i, j = int(i), int(j)
        if lay.variant == "rotation":
            c, s = math.cos(P[ell, k]), math.sin(P[ell, k])
            a, b, cc, d = c, -s, s, c
        else:
            a, b, cc, d = (float(v) for v in P[ell, k])
        B[i, i], B[i, j], B[j, i], B[j, j] = a, b, cc, d
        used |= {i, j}
    for q in range(n):
        if q not in used:
            B[q, q] = float(sc[ell]) if sc is not None else 1.0
    return B


def _naive_dense(lay):
    """D_out B_L ⋯ B_1 D_in as a dense float matrix from :func:`_naive_stage_float` (no isomat code)."""
    _, di, do, _, _ = _host(lay)
    M = np.eye(lay.n)
    for ell in range(lay.L):
        M = _naive_stage_float(lay, ell) @ M
    return np.diag(do) @ M @ np.diag(di)



def _crosscheck(t: Trial) -> dict[str, Any]:
    """A trial's evidence kept beside a proof (``decide(proof, ..._crosscheck=...)``), so it does not
    weaken the proof's strength; ``ok`` records whether it passed."""
    return dict(t.evidence, method=t.method, ok=t.ok, strength=t.strength,
                **({"counterexample": t.counterexample} if t.counterexample else {}))



_T, _D, _N = sympy.symbols("T d n", integer=True, positive=True)
_P, _Q = sympy.symbols("p q", integer=True, nonnegative=True)


def _entry_zero(D: Any, describe: str, for_all: str) -> Trial:
    """A matrix-expression identity D = 0 with symbolic dimensions, as its generic entry D[p, q]
    (p, q symbolic indices): SymPy's matrix calculus reduces it to 0 when it holds for all sizes."""
    return symbolic_zero(D[_P, _Q], describe=describe, for_all=for_all)



def _rotation_stage_orthogonal(c):
    """B^T B = I for a rotation stage with symbolic angles (odd n: residual passed through, or scaled by a
    free symbol s)."""
    n, odd = c
    m = n // 2
    t = np.array(sympy.symbols(f"t0:{m}"), dtype=object).reshape(1, m)
    kw = dict(odd_scale=[sympy.Symbol("s")]) if odd == "scale" else {}
    lay = spm_layer(n, butterfly_pairings(n, 1), t, odd=odd, **kw)
    B = sympy.Matrix(stage_matrix(lay, 0))
    return trig_zero(B.T * B - sympy.eye(n))


def _rotation_stage_gram_proof(partner_sign: int = -1) -> Trial:
    """Z3, for every n and every pairing: BᵀB = I for a rotation stage (§5, trigonometric variant).

    The stage is named as a definition (axiom ``rotation-stage``): an involution pi of [0, n) (a coordinate
    passed through has pi(k) = k), row k holding c_k on the diagonal and t_k at column pi(k) ≠ k, with
    c_pi(k) = c_k, t_pi(k) = −t_k (the block [[c, −s], [s, c]], either sign convention) and c_k² + t_k² = 1.
    (BᵀB)[i, j] = Σ_k B[k, i] B[k, j] is a prefix sum G(i, j, n) (axioms ``gram-prefix-*``, the definition of
    the matrix product); the lemma ``gram-column-support`` -- only k = i and k = pi(i) contribute, as column i of
    B is zero elsewhere -- is proved by induction on the prefix length, and the goal then follows.

    ``partner_sign`` is −1 for a rotation; the tests pass +1 (blocks [[c, s], [s, c]], not orthogonal) to see that
    the same axioms do not prove a false statement."""
    n, i, j, k, N = prover.ints("n i j k N")
    pi = z3.Function("pi", z3.IntSort(), z3.IntSort())
    c = z3.Function("c", z3.IntSort(), z3.RealSort())
    t = z3.Function("t", z3.IntSort(), z3.RealSort())
    zero = z3.RealVal(0)

    def B(r, col):  # the stage's entry rule
        return z3.If(col == r, c(r), z3.If(z3.And(col == pi(r), pi(r) != r), t(r), zero))

    G = z3.Function("G", z3.IntSort(), z3.IntSort(), z3.IntSort(), z3.RealSort())
    stage = prover.axiom("rotation-stage", z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < n), z3.And(
        0 <= pi(k), pi(k) < n, pi(pi(k)) == k, c(pi(k)) == c(k), t(pi(k)) == partner_sign * t(k),
        c(k) * c(k) + t(k) * t(k) == 1)), patterns=[pi(k)]),
        text="a rotation stage of size n: pi is an involution of [0, n) (pi(k) = k for a coordinate passed through); "
             "row k holds c_k on the diagonal and t_k at column pi(k) ≠ k, with c_pi(k) = c_k, t_pi(k) = −t_k (the 2×2 "
             "block [[c, −s], [s, c]]) and c_k² + t_k² = 1 (so t_k = 0, c_k = ±1 for a coordinate passed through)")
    g0 = prover.axiom("gram-prefix-0", z3.ForAll([i, j], G(i, j, 0) == 0, patterns=[G(i, j, 0)]), text="G(i, j, 0) = 0")
    g1 = prover.axiom(
        "gram-prefix-step",
        z3.ForAll([i, j, N], z3.Implies(N >= 0, G(i, j, N + 1) == G(i, j, N) + B(N, i) * B(N, j)), patterns=[G(i, j, N + 1)]),
        text="G(i, j, N+1) = G(i, j, N) + B[N, i]·B[N, j], i.e. G(i, j, N) = Σ_{k<N} B[k, i] B[k, j] and (BᵀB)[i, j] = "
             "G(i, j, n) (definition of the matrix product)")
    support = prover.induction(
        "gram-column-support", N,
        lambda N: z3.Implies(N <= n, G(i, j, N) == z3.If(i < N, B(i, i) * B(i, j), zero)
                             + z3.If(z3.And(pi(i) != i, pi(i) < N), B(pi(i), i) * B(pi(i), j), zero)),
        other=[i, j, n], assuming=[0 <= i, i < n, 0 <= j, j < n], axioms=[stage, g0, g1],
        text="for all 0 <= i, j < n and 0 <= N <= n: Σ_{k<N} B[k, i] B[k, j] has only the terms k = i and k = pi(i) "
             "(column i of a rotation stage is zero elsewhere)")
    return prover.prove(
        G(i, j, n) == z3.If(i == j, z3.RealVal(1), zero), assuming=[n >= 1, 0 <= i, i < n, 0 <= j, j < n],
        for_all="for all n >= 1, every pairing of [0, n) (any matching; unpaired coordinates passed through), every "
                "angle of every block, 0 <= i, j < n",
        lemmas=[support.at(n, i, j, n)], axioms=[stage],
    ).trial("BᵀB = I for a rotation stage: (BᵀB)[i, i] = c_i² + t_i² = 1, (BᵀB)[i, pi(i)] = c_i t_i − t_i c_i = 0, "
            "and 0 elsewhere")


def _orthogonal_product_proof() -> Trial:
    """SymPy, noncommutative symbols: if BᵀB = I and PᵀP = I then (BP)ᵀ(BP) = PᵀBᵀBP = I -- the induction step
    on L that carries stage orthogonality to B_L⋯B_1 (base L = 1: the stage itself)."""
    B_, Bt, P_, Pt = sympy.symbols("B Bt P Pt", commutative=False)
    lhs = sympy.expand(Pt * Bt * B_ * P_).subs(Bt * B_, 1)
    return symbolic_zero(sympy.expand(lhs).subs(Pt * P_, 1) - 1,
                         describe="step L − 1 → L: (B_L P)ᵀ(B_L P) = Pᵀ B_Lᵀ B_L P = PᵀP = I with P = B_{L−1}⋯B_1 "
                                  "((XY)ᵀ = YᵀXᵀ; BᵀB = I and PᵀP = I as rewrite rules)",
                         for_all="every L >= 1, every size, every B_L with B_LᵀB_L = I and P with PᵀP = I "
                                 "(noncommutative symbols)")


def _rotation_product_orthogonal(c):
    n, L = c
    t = np.array(sympy.symbols(f"t0:{L * (n // 2)}"), dtype=object).reshape(L, n // 2)
    lay = spm_layer(n, butterfly_pairings(n, L), t)
    M = sympy.Matrix(layer_matrix(lay, part="product"))
    return trig_zero(M.T * M - sympy.eye(n))


def _matchings(items):
    """All maximum matchings of ``items`` (one element left out when the count is odd)."""
    items = list(items)
    if len(items) < 2:
        yield ()
        return
    if len(items) % 2:
        for s in items:
            yield from _matchings([x for x in items if x != s])
        return
    a = items[0]
    for k in range(1, len(items)):
        rest = items[1:k] + items[k + 1:]
        for m in _matchings(rest):
            yield ((a, items[k]),) + m


def _full_dependence_nx(n, pairings):
    """Every output depends on every input: reachability in the layered graph (networkx)."""
    G = nx.DiGraph()
    for ell, P in enumerate(pairings):
        G.add_edges_from(((ell, i), (ell + 1, i)) for i in range(n))
        for i, j in P:
            G.add_edge((ell, int(i)), (ell + 1, int(j)))
            G.add_edge((ell, int(j)), (ell + 1, int(i)))
    L = len(pairings)
    if L == 0:
        return n == 1
    return all(sum(1 for v in nx.descendants(G, (0, i)) if v[0] == L) == n for i in range(n))


def _min_depth(n, *, schedule=False):
    """Fewest stages over all schedules after which every output depends on every input (BFS over
    dependence bitmasks; the first stage is fixed WLOG by relabelling). With ``schedule``, also one
    optimal schedule (list of matchings)."""
    full = (1 << n) - 1
    ms = sorted({tuple(sorted(m)) for m in _matchings(range(n))})
    state = tuple(1 << i for i in range(n))
    if all(v == full for v in state):
        return (0, []) if schedule else 0

    def step(s, m):
        s2 = list(s)
        for a, b in m:
            s2[a] = s2[b] = s[a] | s[b]
        return tuple(s2)

    first = step(state, ms[0])
    level, d = {first: [ms[0]]}, 1
    while not any(all(v == full for v in s) for s in level):
        nxt = {}
        for s, path in level.items():
            for m in ms:
                nxt.setdefault(step(s, m), path + [m])
        level, d = nxt, d + 1
    if not schedule:
        return d
    done = next(p for s, p in level.items() if all(v == full for v in s))
    return d, [np.array(m, dtype=np.int64).reshape(-1, 2) for m in done]




__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
