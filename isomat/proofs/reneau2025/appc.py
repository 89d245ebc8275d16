"""reneau2025 App. C: memory of the intermediates, initialization."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports and references)
from .sec2 import *  # noqa: F401,F403


# ---------------------------------------------------------------------------------------------
# Appendix C: memory of the intermediates, initialization
# ---------------------------------------------------------------------------------------------
def _alg1_steps(D, H, order="outer"):
    """Per sample, the matrix product of each step of Algorithm 1: (rows of X_matrix, D_k, H_k), from the shape
    bookkeeping of its permute / reshape / multiply / reshape / permute steps. Works on ints and on symbolic sizes
    (SymPy or Z3 terms)."""
    S, steps = list(D), []
    for k in (range(len(D)) if order == "outer" else reversed(range(len(D)))):
        rows = math.prod(S[:k] + S[k + 1:])  # X_matrix is (B * prod_{j != k} S_j, D_k)
        S[k] = H[k]  # Y_matrix is (B * prod_{j != k} S_j, H_k)
        steps.append((rows, D[k], H[k]))
    return steps


def _alg1_sizes(D, H, order="outer"):
    """Element counts of X_out per sample after each step of Algorithm 1 (rows of Y_matrix times H_k)."""
    return [rows * h for rows, _, h in _alg1_steps(D, H, order)]


#: NdLinear shapes the paper states for its own experiments (App. D.1 BERT, D.3, D.4; Table 1 closest-to-square)
PAPER_NDLINEAR_SHAPES = {"BERT head (8,96)->(2,2)": ((8, 96), (2, 2)), "Cardio [11,1]->[11,64]": ((11, 1), (11, 64)),
                         "Cardio [11,64]->[11,64]": ((11, 64), (11, 64)), "Delivery [14,1]->[32,64]": ((14, 1), (32, 64)),
                         "Delivery [32,64]->[32,64]": ((32, 64), (32, 64)), "CNN (64,8,8)->(64,8,8)": ((64, 8, 8), (64, 8, 8)),
                         "Qwen3 gate (32,64)->(64,96)": ((32, 64), (64, 96)), "Qwen3 down (64,96)->(32,64)": ((64, 96), (32, 64)),
                         "LLaMA3 k (64,64)->(32,32)": ((64, 64), (32, 32)), "LLaMA3 up (64,64)->(112,128)": ((64, 64), (112, 128))}


@claim(
    "reneau2025:appc/memory",
    quote="The forward pass requires allocating intermediate tensors during each mode transformation ... these "
          "intermediate allocations are of the same order as the input/output size (App. C, Memory Efficiency)",
    statement=(
        "Per sample, the intermediate of Algorithm 1 after mode k has Π_{j≤k} H_j · Π_{j>k} D_j entries (shape "
        "bookkeeping of its steps). Printed, read as 'bounded by a constant times max(input, output) size': the "
        "family D = (1, n), H = (n, 1) has input = output = n and an intermediate of n² entries, a ratio n that "
        "no constant bounds (symbolic in n); the smallest shape with an intermediate larger than both input and output, searched smallest first, is D = (1, 2), H = (2, 1): 4 > 2. Correction, proved for every N >= 1 "
        "and all sizes for Algorithm 1's order 1..N (Z3: mode sizes as uninterpreted functions, products over the modes "
        "by their recursions, the intermediates' sizes by induction on the steps, as in eq. (1)'s proof), and for both "
        "orders at each N ≤ 3 for all sizes (Z3, a binding check beside it) (exhaustive cross-check: N ≤ 3, D_k, H_k ∈ {1,2,3}): every intermediate is at most max(ΠD_k, ΠH_k) when every "
        "mode grows (D_k ≤ H_k) or every mode shrinks (D_k ≥ H_k); evidence lists the NdLinear shapes the paper "
        "states for its experiments, which all satisfy this condition."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=("NdLinear with N >= 1 modes, D_k, H_k >= 1 (the claim is stated for every layer)",
                lambda c: len(c) == 2 and len(c[0]) == len(c[1]) >= 1 and all(v >= 1 for v in (*c[0], *c[1]))),
)
def _appc_memory():
    n = sympy.Symbol("n", positive=True, integer=True)
    small_cases = sorted({(D, H) for N in (1, 2) for D in itertools.product((1, 2), repeat=N)
                          for H in itertools.product((1, 2), repeat=N)}, key=lambda c: (len(c[0]), sum(c[0]) + sum(c[1]), c))
    smallest = exhaustive(lambda c: max(_alg1_sizes(*c)) <= max(math.prod(c[0]), math.prod(c[1])), small_cases,
                          describe="N <= 2, D_k, H_k in {1,2}, smallest first (order 1..N)",
                          witness=lambda c: {"input": math.prod(c[0]), "output": math.prod(c[1]),
                                             "intermediates": _alg1_sizes(*c)})
    sizes = _alg1_sizes((1, n), (n, 1))  # the same bookkeeping with a symbolic mode size
    ratio = sympy.simplify(sympy.Max(*sizes) / sympy.Max(n * 1, 1 * n))
    limit = sympy.limit(ratio, n, sympy.oo)
    bounded_family = bool(limit.is_finite)
    printed = Trial(bounded_family, "symbolic",
                    {"family": "D = (1, n), H = (n, 1)", "intermediates": [str(v) for v in sizes],
                     "peak / max(input, output)": str(ratio), "limit n -> oo": str(limit)},
                    None if bounded_family else {
                        "case": (smallest.counterexample or {}).get("case"),
                        "family": {"D": [1, "n"], "H": ["n", 1], "input": "n", "output": "n",
                                   "intermediates": [str(v) for v in sizes]},
                        "smallest instance": smallest.counterexample})

    cases = sorted({(D, H) for N in (1, 2, 3) for D in itertools.product((1, 2, 3), repeat=N)
                    for H in itertools.product((1, 2, 3), repeat=N)
                    if all(d <= h for d, h in zip(D, H)) or all(d >= h for d, h in zip(D, H))},
                   key=lambda c: (len(c[0]), math.prod(c[0]) * math.prod(c[1]), c))

    def bounded(case):
        D, H = case
        return all(max(_alg1_sizes(D, H, o)) <= max(math.prod(D), math.prod(H)) for o in ("outer", "inner"))

    def tensordot_sizes(D, H, order):
        Y, out = np.zeros((1, *D)), []
        for k in (range(len(D)) if order == "outer" else reversed(range(len(D)))):
            Y = np.moveaxis(np.tensordot(Y, np.zeros((D[k], H[k])), axes=([k + 1], [0])), -1, k + 1)
            out.append(Y.size)
        return out

    bookkeeping = exhaustive(lambda c: all(_alg1_sizes(*c, o) == tensordot_sizes(*c, o) for o in ("outer", "inner")),
                             [((1, 2), (2, 1)), *cases], describe="shape bookkeeping = sizes of np.tensordot mode products")
    corrected = _memory_all_n_proof()
    paper = {k: {"input": math.prod(D), "output": math.prod(H), "peak": max(_alg1_sizes(D, H)),
                 "monotone": all(d <= h for d, h in zip(D, H)) or all(d >= h for d, h in zip(D, H))}
             for k, (D, H) in PAPER_NDLINEAR_SHAPES.items()}
    crosscheck = all_of(exhaustive(bounded, cases, describe="N <= 3, D_k, H_k in {1,2,3}, all modes grow or all shrink, "
                                                            "both orders"), bookkeeping)
    return decide(printed, correction=(
        ("each intermediate of Algorithm 1 has at most max(ΠD_k, ΠH_k) entries per sample when all modes grow "
         "(D_k ≤ H_k) or all shrink (D_k ≥ H_k); with mixed modes it can exceed both by an unbounded factor "
         "(D = (1, n), H = (n, 1): n² against n)"), corrected), paper_shapes=paper,
        each_n_up_to_3_both_orders=_memory_bound_proof(), exhaustive_crosscheck=crosscheck)


def _memory_all_n_proof() -> Trial:
    """The correction for every number of modes N (Z3, order 1..N of Algorithm 1): the intermediate after m steps has
    T(m, N) = Π_{j<=m} H_j Π_{j>m} D_j entries (the induction of the eq. (1) proof, from the step bookkeeping
    alg1_step_size); with every mode growing it is <= Π H_j, with every mode shrinking <= Π D_j (inductions on the
    products over the modes)."""
    import z3

    from .. import prover as pv

    S = _alg1_bookkeeping()
    L, PD, PH, T, D, H = S["lemmas"], S["PD"], S["PH"], S["T"], S["D"], S["H"]
    N, m, a, x, y, j = pv.ints("N m a x y j")
    mono = pv.lemma("mul-monotone", [a, x, y], z3.Implies(z3.And(a >= 0, x <= y), a * x <= a * y),
                    text="a >= 0 and x <= y give a·x <= a·y")
    top = z3.If(PD(0, N) >= PH(0, N), PD(0, N), PH(0, N))
    hyps = [N >= 1, 0 <= m, m <= N, S["positive"]]
    grow = pv.prove(T(m, N) <= top, assuming=[*hyps, z3.ForAll([j], z3.Implies(j >= 1, D(j) <= H(j)), patterns=[D(j)])],
                    lemmas=[S["outer"].at(m, N), L["DleH"].at(N, m), L["splitH"].at(N, 0, m), L["posH"].at(m, 0),
                            mono.at(PH(0, m), PD(m, N), PH(m, N))], sizes=[N], model=S["model"],
                    for_all="every N >= 1 modes, every step m = 0..N of Algorithm 1 (order 1..N), all sizes 1 <= D_j <= H_j")
    shrink = pv.prove(T(m, N) <= top, assuming=[*hyps, z3.ForAll([j], z3.Implies(j >= 1, H(j) <= D(j)), patterns=[H(j)])],
                      lemmas=[S["outer"].at(m, N), L["HleD"].at(m, 0), L["splitD"].at(N, 0, m), L["posD"].at(N, m),
                              mono.at(PD(m, N), PH(0, m), PD(0, m))], sizes=[N], model=S["model"],
                      for_all="every N >= 1 modes, every step m = 0..N of Algorithm 1 (order 1..N), all sizes D_j >= H_j >= 1")
    return all_of(grow.trial("every intermediate of Algorithm 1 <= max(ΠD_j, ΠH_j) when every mode grows (D_j <= H_j)"),
                  shrink.trial("every intermediate of Algorithm 1 <= max(ΠD_j, ΠH_j) when every mode shrinks (D_j >= H_j)"))


def _memory_bound_proof() -> Trial:
    """The correction of App. C's memory statement, proved by Z3 for N = 1, 2, 3 and every size: the intermediate sizes
    are those of the shape bookkeeping :func:`_alg1_sizes` evaluated on symbolic (Z3) mode sizes."""
    import z3

    from ..prover import prove

    trials = []
    for N in (1, 2, 3):
        D, H = list(z3.Ints(" ".join(f"D{k}" for k in range(1, N + 1)))), list(z3.Ints(" ".join(f"H{k}" for k in range(1, N + 1))))
        Df, Hf = math.prod(D), math.prod(H)
        for grow in (True, False):
            hyps = [x >= 1 for x in D + H] + [(d <= h) if grow else (d >= h) for d, h in zip(D, H)]
            goal = z3.And(*[sz <= z3.If(Df >= Hf, Df, Hf) for o in ("outer", "inner") for sz in _alg1_sizes(D, H, o)])
            what = "D_k <= H_k" if grow else "D_k >= H_k"
            trials.append(prove(goal, assuming=hyps, sizes=D + H,
                                for_all=f"N = {N}, all D_k, H_k >= 1 with {what} for every k, both orders").trial(
                f"every intermediate of Algorithm 1 (Π_{{j≤k}} H_j Π_{{j>k}} D_j, or the N..1 order's) <= max(ΠD_k, ΠH_k)"))
    return _bounded(all_of(*trials), "N = 1, 2, 3 modes (each N proved for all D_k, H_k >= 1 by Z3)")


@claim(
    "reneau2025:appc/init",
    quote="Since W_i has fan-in D_i and fan-out H_i, the initialization follows Uni(−√(6/(D_i+H_i)), √(6/(D_i+H_i))) "
          "for Xavier uniform",
    statement=(
        "The printed interval is Glorot–Bengio's: a uniform law on [−a, a] with a = √(6/(D+H)) has variance "
        "∫_{−a}^{a} x²/(2a) dx = 2/(D + H), the Xavier condition Var(W) = 2/(fan_in + fan_out). Proved for all "
        "real D, H > 0 (SymPy integral with positive symbols)."
    ),
    methods=["symbolic"],
)
def _appc_init():
    D, H, x = sympy.symbols("D H x", positive=True)
    a = xavier_bound(D, H)
    var = sympy.integrate(x**2 / (2 * a), (x, -a, a))
    return decide(symbolic_zero(sympy.Add(var, -2 / (D + H), evaluate=False), describe="variance of Uni(-a, a), a = sqrt(6/(D+H)), minus 2/(D+H)",
                                for_all="all real D, H > 0 (fan-in and fan-out as positive SymPy symbols)", sizes=[D, H],
                                domain={"D": "real > 0", "H": "real > 0"}))


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
