"""farag2025 §5: complexity and parameter counts."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared references, imports and helpers)
from .sec3 import _G_Y1, _G_Y2, _R_Y1, _R_Y2  # noqa: E402  (the printed per-pair formulas)


# ---------------------------------------------------------------------------------------------
# §5: complexity and parameter counts
# ---------------------------------------------------------------------------------------------
def _param_formula(n, L, variant, odd):
    """The §5 count written out (an independent reference for isomat's param_count / n_params)."""
    per = 1 if variant == "rotation" else 4
    return per * L * (n // 2) + 3 * n + (L if (odd == "scale" and n % 2) else 0)


def _forward_ops(n, L, f):
    """Per-example forward operations of an SPM: L⌊n/2⌋f (f per pair) + L(n mod 2) (odd scale) + 3n ((2), (4));
    ints or Z3 terms. sec5/time proves it is the count over the structure and O(nL); sec7.2/cost uses it."""
    return L * prover.fdiv(n, 2) * f + L * prover.fmod(n, 2) + 3 * n


@claim(
    "farag2025:sec5/params",
    quote="Parameters = O(nL)",
    statement=(
        "Exact counts: rotation L⌊n/2⌋ + 3n (+L for odd n with learned 1×1 scaling), general 4L⌊n/2⌋ + 3n (+L), "
        "where 3n = d_in, d_out, b. Proved: (a) the closed form equals the count over the structure, Σ over L stages "
        "of ⌊n/2⌋ pairs × p parameters (+ the odd scale) + 3 per coordinate (SymPy, symbolic m, L, n = 2m + r); "
        "(b) isomat's own count, param_count (which SPM.n_params is), is that closed form and L(n−1)/2 ≤ count ≤ "
        "4nL + 3n + L for all n, L ≥ 1 (Z3), i.e. Θ(nL) for n ≥ 2. Binding check: isomat's layer arrays and n_params() "
        "equal the closed form written out, exhaustive n = 1..24, L = 1..8, both variants, both odd modes, and at "
        "(n, L) = (1001, 17), (512, 9), (777, 5). Dense: n² + n."
    ),
    methods=["symbolic", "exhaustive", "exact"],
)
def _sec5_params():
    def ok(c):
        n, L, variant, odd = c
        lay = _fspm(n, L, variant=variant, odd=odd, schedule="butterfly")
        count = lay.params.size + lay.d_in.size + lay.d_out.size + lay.bias.size + (lay.odd_scale.size if lay.odd_scale is not None and n % 2 else 0)
        return count == lay.n_params() == _param_formula(n, L, variant, odd) and count <= 4 * n * L + 3 * n + L

    cases = ((n, L, v, o) for n in range(1, 25) for L in range(1, 9) for v in ("rotation", "general") for o in ("pass", "scale"))
    cross = all_of(exhaustive(ok, cases, describe="isomat's layer arrays and n_params() vs the count written out, "
                              "n 1..24, L 1..8, 2 variants, 2 odd modes"),
                   exhaustive(ok, [(1001, 17, "general", "scale"), (512, 9, "rotation", "pass"), (777, 5, "rotation", "scale")],
                              describe="the same at (n, L) = (1001, 17), (512, 9), (777, 5)", strength="sampled"))
    # (a) the closed form from a count over the structure: every stage ℓ = 1..L has m = ⌊n/2⌋ pairs with p
    # parameters each (p = 1 rotation, 4 general) and, for odd n (r = 1) with the learned scale (σ = 1), one scale;
    # every coordinate i = 1..n has d_in, d_out and b.
    m, L, r, pp, sg = sympy.symbols("m L r p sigma", integer=True, nonnegative=True)
    ell, k, i = sympy.symbols("ell k i", integer=True, positive=True)
    counted = sympy.Sum(sympy.Sum(pp, (k, 1, m)) + sg * r, (ell, 1, L)) + sympy.Sum(3, (i, 1, 2 * m + r))
    closed = symbolic_zero(counted.doit() - (pp * L * m + 3 * (2 * m + r) + sg * r * L),
                           describe="Σ_ℓ (Σ_pairs p + σ r) + Σ_coordinates 3 vs p L⌊n/2⌋ + 3n + σ L (n mod 2)",
                           for_all="for all m, L, p, σ >= 0 and r (n = 2m + r, r = n mod 2) (SymPy, sums over symbolic ranges)",
                           sizes=[m, L], domain={str(x): "integer >= 0" for x in (m, L, r, pp, sg)})
    # (b) Θ(nL): L(n−1)/2 <= count <= 4nL + 3n + L for all n, L >= 1 (Z3, with m = n div 2, r = n mod 2)
    n_, L_, p_, s_ = prover.ints("n L p s")
    cnt = param_count(n_, L_, p_, s_)  # isomat's own count (SPM.n_params is this function)
    hyp = [n_ >= 1, L_ >= 1, z3.Or(p_ == 1, p_ == 4), z3.Or(s_ == 0, s_ == 1)]
    closed_z3 = prover.prove(cnt == p_ * L_ * prover.fdiv(n_, 2) + 3 * n_ + s_ * L_ * prover.fmod(n_, 2), assuming=hyp,
                             for_all="for all n, L >= 1, p ∈ {1, 4}, s ∈ {0, 1}", sizes=[n_, L_])
    bound = prover.prove(z3.And(L_ * (n_ - 1) <= 2 * cnt, cnt <= 4 * n_ * L_ + 3 * n_ + L_), assuming=hyp,
                         for_all="for all n, L >= 1, p ∈ {1, 4} (rotation, general), s ∈ {0, 1} (odd scale off/on)",
                         lemmas=[prover.DIV_MOD_RECOMPOSE], sizes=[n_, L_])
    return decide(all_of(closed, closed_z3.trial("isomat's param_count(n, L, p, s) = p L⌊n/2⌋ + 3n + s L (n mod 2)"),
                         bound.or_else(lambda: cross, "L(n−1)/2 <= count <= 4nL + 3n + L")),
                  isomat_count=cross)


def _pair_costs(variant):
    """Arithmetic operations (+, −, ×; cos/sin counted once per pair and shared) of the printed per-pair formulas,
    by SymPy's ``count_ops`` on the expressions: forward (5)-(6) / (10)-(11); backward (7)-(9) / (12)-(14)."""
    if variant == "rotation":
        fwd = [_R_Y1, _R_Y2]
        bwd = [sympy.cos(th) * d1 + sympy.sin(th) * d2, -sympy.sin(th) * d1 + sympy.cos(th) * d2,
               d1 * (-sympy.sin(th) * x1 - sympy.cos(th) * x2) + d2 * (sympy.cos(th) * x1 - sympy.sin(th) * x2)]
    else:
        fwd = [_G_Y1, _G_Y2]
        bwd = [a_ * d1 + c_ * d2, b_ * d1 + d_ * d2, d1 * x1, d1 * x2, d2 * x1, d2 * x2]

    def arith(exprs):
        v = sum((sympy.count_ops(e, visual=True) for e in exprs), sympy.Integer(0))
        return int(sum(v.coeff(sympy.Symbol(k)) for k in ("ADD", "SUB", "MUL", "NEG")))

    return arith(fwd), arith(bwd)


@claim(
    "farag2025:sec5/time",
    quote="Forward time = O(nL), Backward time = O(nL)",
    statement=(
        "Exact operation counts per example, both variants, odd and even n. Per pair, f and g are the arithmetic "
        "operations (+, −, ×, negation; SymPy count_ops, cos/sin of a stage angle computed once) of the printed "
        "formulas: forward f from (5)-(6) / (10)-(11), backward g from (7)-(9) / (12)-(14); their values are in the "
        "evidence. Layer totals: forward L⌊n/2⌋f + L(n mod 2) + 3n ((2): n, (4): 2n; the learned odd scale 1 per "
        "stage), backward L⌊n/2⌋g + 2L(n mod 2) + 4n ((15), (17), (18), (19); odd scale: input and scale "
        "gradient). Proved: these totals equal the count over L stages of ⌊n/2⌋ pairs (SymPy, n = 2m + r symbolic), and "
        "both are ≤ (max(f, g)/2 + 4)·n·L + L (the O(nL) constant) for all n, L ≥ 1 (Z3). Binding check (a failure is an error of the claim): the "
        "stage structure equals isomat's (nnz(B_ℓ) = 4⌊n/2⌋ + (n mod 2)) and the bound, for every n 1..40, L 1..6."
    ),
    methods=["exhaustive", "exact", "symbolic"],
)
def _sec5_time():
    costs = {v: _pair_costs(v) for v in ("rotation", "general")}

    def ok(c):
        n, L = c
        lay = _fspm(n, L, variant="general", odd="scale", schedule="random", seed=n)
        nnz = sum(stage_matrix(lay, e, format="coo").nnz for e in range(L))
        good = nnz == 4 * L * (n // 2) + L * (n % 2)
        for f, g in costs.values():
            fwd = L * (n // 2) * f + L * (n % 2) + 3 * n
            bwd = L * (n // 2) * g + 2 * L * (n % 2) + 4 * n
            bound = Fraction(max(f, g), 2) * n * L + 4 * n * L + L
            good &= fwd <= bound and bwd <= bound
        return good

    t = exhaustive(ok, ((n, L) for n in range(1, 41) for L in range(1, 7)), describe="n 1..40, L 1..6, both variants")
    # proved: (a) the totals from a count over stages and pairs (SymPy), (b) the O(nL) bound for all n, L (Z3)
    m, Ls, r = sympy.symbols("m L r", integer=True, nonnegative=True)
    ell, k, i = sympy.symbols("ell k i", integer=True, positive=True)
    proofs = []
    n_, L_ = prover.ints("n L")
    for v, (f, g) in costs.items():
        fwd = sympy.Sum(sympy.Sum(f, (k, 1, m)) + r, (ell, 1, Ls)) + sympy.Sum(1 + 2, (i, 1, 2 * m + r))  # stages; (2), (4)
        bwd = sympy.Sum(sympy.Sum(g, (k, 1, m)) + 2 * r, (ell, 1, Ls)) + sympy.Sum(4, (i, 1, 2 * m + r))  # (15),(17)-(19)
        proofs.append(symbolic_zero(
            sympy.Matrix([fwd.doit() - (Ls * m * f + Ls * r + 3 * (2 * m + r)), bwd.doit() - (Ls * m * g + 2 * Ls * r + 4 * (2 * m + r))]),
            describe=f"{v}: Σ over L stages of (⌊n/2⌋ pairs × per-pair ops + odd scale) + per-coordinate ops vs the closed totals",
            for_all="for all m, L >= 0 and r (n = 2m + r, r = n mod 2) (SymPy, sums over symbolic ranges)", sizes=[m, Ls],
            domain={str(x): "integer >= 0" for x in (m, Ls, r)}))
        F = max(f, g)
        tot_f = _forward_ops(n_, L_, f)
        tot_b = L_ * prover.fdiv(n_, 2) * g + 2 * L_ * prover.fmod(n_, 2) + 4 * n_
        pf = prover.prove(z3.And(2 * tot_f <= (F + 8) * n_ * L_ + 2 * L_, 2 * tot_b <= (F + 8) * n_ * L_ + 2 * L_),
                          assuming=[n_ >= 1, L_ >= 1], lemmas=[prover.DIV_MOD_RECOMPOSE], sizes=[n_, L_],
                          for_all=f"for all n, L >= 1 ({v}: f = {f}, g = {g})")
        proofs.append(pf.or_else(lambda: t, f"{v}: forward, backward <= (max(f, g)/2 + 4)·n·L + L"))
    ex = {f"{v} n={n} L={L}": {"forward": L * (n // 2) * costs[v][0] + L * (n % 2) + 3 * n,
                               "backward": L * (n // 2) * costs[v][1] + 2 * L * (n % 2) + 4 * n}
          for v in costs for n, L in ((8, 3), (9, 4))}
    # the forward total that the Z3 bound is about is _forward_ops: it must be the count written out above
    ops = exhaustive(lambda c: _forward_ops(c[0], c[1], c[2]) == c[1] * (c[0] // 2) * c[2] + c[1] * (c[0] % 2) + 3 * c[0],
                     ((n, L, f) for n in range(1, 41) for L in range(1, 7) for f in {f for f, _ in costs.values()}),
                     describe="_forward_ops vs L⌊n/2⌋f + L(n mod 2) + 3n, n 1..40, L 1..6")
    return decide(all_of(*proofs), isomat_stages=t, forward_ops=ops,
                  per_pair_ops={v: {"forward": f, "backward": g} for v, (f, g) in costs.items()}, totals=ex)


@claim(
    "farag2025:sec5/ratio",
    quote="SPM reduces both compute and memory costs by a factor of O(n/L)",
    statement=(
        "Dense cost n² (multiplies and weights) over SPM cost (general: 2nL + 2n multiplies; rotation "
        "parameters nL/2 + 3n): the ratio n²/(2nL + 2n) = n/(2(L+1)) and n²/(L⌊n/2⌋+3n) ≥ n/(L/2+3), i.e. "
        "Θ(n/L) for L ≥ 1 (a factor, not merely O(n/L)). Proved: the identity n²/(2nL + 2n) = n/(2(L+1)) (SymPy) and "
        "n/(8L) ≤ ratio ≤ 2n/L for both ratios, for all even n ≥ 2 and L ≥ 1 (Z3). Binding check (a failure is an error of the claim): exact "
        "rationals for even n = 2..256, L = 1..⌈log2 n⌉."
    ),
    methods=["symbolic", "exhaustive", "exact"],
)
def _sec5_ratio():
    def ok(c):
        n, L = c
        r1 = Fraction(n * n, 2 * n * L + 2 * n)
        r2 = Fraction(n * n, _param_formula(n, L, "rotation", "pass"))
        return all(Fraction(n, 8 * L) <= r <= Fraction(2 * n, L) for r in (r1, r2))

    cross = exhaustive(ok, ((n, L) for n in range(2, 257, 2) for L in range(1, max(2, math.ceil(math.log2(n))) + 1)),
                       describe="even n 2..256, L 1..⌈log2 n⌉")
    ns, Ls = sympy.symbols("n L", positive=True)
    ident = symbolic_zero(ns**2 / (2 * ns * Ls + 2 * ns) - ns / (2 * (Ls + 1)), describe="n²/(2nL + 2n) vs n/(2(L+1))",
                          for_all="for all real n, L > 0 (SymPy)", sizes=[ns, Ls], domain={"n": "real > 0", "L": "real > 0"})
    n_, L_, m_ = prover.ints("n L m")
    d1_, d2_ = 2 * n_ * L_ + 2 * n_, L_ * m_ + 3 * n_  # general multiplies; rotation parameters (n = 2m)
    # the rotation count is isomat's own (SPM.n_params is param_count): L m + 3n for n = 2m
    same = prover.prove(param_count(n_, L_, 1, 0) == d2_, assuming=[m_ >= 1, n_ == 2 * m_, L_ >= 1], sizes=[n_, L_],
                        for_all="for all even n = 2m >= 2 and L >= 1").trial("param_count(n, L, 1, 0) = L·n/2 + 3n")
    # n/(8L) <= n²/D <= 2n/L, cross-multiplied (all denominators positive)
    goal = z3.And(*[z3.And(n_ * D <= 8 * L_ * n_ * n_, n_ * n_ * L_ <= 2 * n_ * D) for D in (d1_, d2_)])
    bound = prover.prove(goal, assuming=[m_ >= 1, n_ == 2 * m_, L_ >= 1], sizes=[n_, L_],
                         for_all="for all even n = 2m >= 2 and L >= 1").or_else(lambda: cross, "n/(8L) <= ratio <= 2n/L")
    return decide(all_of(ident, same, bound), exact_ratios=cross)


# §5 (i)/(ii) define how an odd n is handled: a definition, not a claim. isomat's odd-n forward against
# loop-built stages (``_sec5_odd``) is a test in tests/test_farag2025_claims.py.
def _sec5_odd():
    def ok(c):
        n, L, odd = c
        lay = _fspm(n, L, variant="rotation", odd=odd, schedule="random", seed=n * 10 + L)
        M, b = _naive_dense(lay), to_numpy(lay.bias)
        X = np.random.default_rng(n).standard_normal((3, n))
        return np.allclose(to_numpy(spm_forward(lay, _dev(X))), X @ M.T + b, rtol=1e-12, atol=1e-13)

    return decide(exhaustive(ok, ((n, L, o) for n in (1, 3, 5, 7, 9) for L in (1, 2, 3) for o in ("pass", "scale")),
                             describe="odd n 1..9, L 1..3, both modes"))



__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
