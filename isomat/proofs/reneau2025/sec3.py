"""reneau2025 §3.1 parameters and §3.2 eq. (1) FLOPs, with their worked examples."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports and references)
from .sec2 import *  # noqa: F401,F403
from .appc import *  # noqa: F401,F403


# ---------------------------------------------------------------------------------------------
# §3.1 parameters, §3.2 eq. (1) FLOPs
# ---------------------------------------------------------------------------------------------
@claim(
    "reneau2025:sec3.1",
    quote="A conventional linear layer ... requires D_flat·H_flat + H_flat parameters ... NdLinear's total "
          "parameter count is only Σ_{k=1}^N (D_k H_k + H_k).",
    statement=(
        "Counting one parameter per weight entry (d, h) ∈ [0, D_k) × [0, H_k) and per bias entry of each mode's "
        "nn.Linear gives the printed Σ_k (D_k H_k + H_k), and counting the entries of a dense (H_flat × D_flat) "
        "layer and its bias gives D_flat H_flat + H_flat: proved for all N ≥ 1 and all sizes (SymPy sums with "
        "symbolic N, D_k, H_k). Cross-check that no parameter is lost or duplicated in the flattened map: the number "
        "of distinct symbols in the Kronecker operator and bias, built from symbolic W_k, b_k by the naive "
        "Algorithm 1, equals the formula (and isomat.ndlinear_param_count), exhaustive over N ≤ 2, D_k, H_k ∈ "
        "{1,2} and two N = 3 shapes."
    ),
    methods=["symbolic", "exhaustive"],
)
def _sec3_1():
    cases = sorted({(D, H) for N in (1, 2, 3) for D in itertools.product((1, 2), repeat=N)
                    for H in itertools.product((1, 2), repeat=N) if N < 3 or (D, H) in {((1, 2, 2), (2, 1, 2)), ((2, 2, 2), (2, 2, 2))}},
                   key=lambda s: (len(s[0]), s))

    def ok(case):
        D, H = case
        Wp, bs = _sym_layer(D, H)
        x = sympy.symbols(f"x0:{math.prod(D)}")
        Y = algorithm1(np.array(x, dtype=object).reshape(1, *D), Wp, bs)
        free = set().union(*(sympy.expand(v).free_symbols for v in Y.reshape(-1))) - set(x)
        formula = sum(d * h + h for d, h in zip(D, H))
        Hf = math.prod(H)
        return (len(free) == formula == _nd.ndlinear_param_count(D, H)["ndlinear"]
                and _nd.ndlinear_param_count(D, H)["dense"] == math.prod(D) * Hf + Hf)

    t = exhaustive(ok, cases, describe="N <= 2 all D_k, H_k in {1,2}; N = 3 two shapes; symbolic weights", method="symbolic")
    # For every N and all sizes: count the parameters over the layer's structure -- mode k is one nn.Linear whose
    # weight has an entry for every (d, h) in [0, D_k) x [0, H_k) and whose bias has one for every h in [0, H_k);
    # the dense layer on the flattened tensor has one weight per (r, c) in [0, H_flat) x [0, D_flat) and one bias per
    # r -- and compare with the printed formulas.
    k, N, d, h, r, c = sympy.symbols("k N d h r c", integer=True)
    Dk, Hk = sympy.IndexedBase("D"), sympy.IndexedBase("H")
    counted = sympy.Sum(sympy.summation(1, (d, 0, Dk[k] - 1), (h, 0, Hk[k] - 1)) + sympy.summation(1, (h, 0, Hk[k] - 1)),
                        (k, 1, N))
    printed_nd = sympy.Sum(Dk[k] * Hk[k] + Hk[k], (k, 1, N))
    Df, Hf = sympy.Product(Dk[k], (k, 1, N)), sympy.Product(Hk[k], (k, 1, N))
    counted_dense = sympy.summation(1, (r, 0, Hf - 1), (c, 0, Df - 1)) + sympy.summation(1, (r, 0, Hf - 1))
    proof = all_of(
        symbolic_zero(sympy.Add(counted, -printed_nd, evaluate=False), describe="Σ_k (#{(d,h)} + #{h}) counted over the modes' nn.Linear "
                      "shapes (H_k, D_k) minus the printed Σ_k (D_k H_k + H_k)",
                      for_all="all N >= 1 and all D_k, H_k >= 1 (N, D_k, H_k SymPy symbols)", sizes=[N, Dk, Hk],
                      domain={"N": "integer >= 1"}),
        symbolic_zero(sympy.Add(counted_dense, -(Df * Hf + Hf), evaluate=False), describe="#{(r,c)} + #{r} of the dense (H_flat, D_flat) layer "
                      "minus the printed D_flat H_flat + H_flat",
                      for_all="all N >= 1 and all D_k, H_k >= 1 (D_flat = Π D_k, H_flat = Π H_k symbolic)",
                      sizes=[N, Dk, Hk], domain={"N": "integer >= 1"}))
    return decide(proof, exhaustive_crosscheck=t)


def _sig(x: int, digits: int = 1) -> int:
    """x rounded to `digits` significant figures (half up), exact."""
    e = len(str(abs(x))) - digits
    q = Decimal(x).scaleb(-e).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(q.scaleb(e))


# §3.1 worked example (N = 3, D_k = H_k = D = 32), printed:
SEC3_1_PRINTED = {"dense (32^6)": 10**9, "ndlinear (3*32^2)": 3 * 10**3,
                  "a reduction of several orders of magnitude (≥ 100x)": True}


@claim(
    "reneau2025:sec3.1/example",
    quote="a standard linear layer requires O(D^{2N}) parameters, which is 32^6 ≈ 10^9 parameters. In contrast, "
          "NdLinear requires O(ND^2) parameters, merely 3·32^2 ≈ 3×10^3, a reduction of several orders of magnitude",
    statement=(
        "For N = 3, D_k = H_k = 32: the §3.1 counts (dense D_flat H_flat + H_flat = 1,073,774,592; NdLinear "
        "Σ(D_k H_k + H_k) = 3,168; weights alone 32^6 and 3·32^2, recorded in evidence) rounded to the printed one "
        "significant figure equal the printed 10^9 and 3×10^3, and their ratio is at least 100."
    ),
    methods=["recompute"],
)
def _sec3_1_example():
    D = 32
    pc = {"dense": D**3 * D**3 + D**3, "ndlinear": 3 * (D * D + D)}  # §3.1 formulas, written out
    pw = {"dense": D**6, "ndlinear": 3 * D**2}
    lib = (_nd.ndlinear_param_count((D,) * 3, (D,) * 3), _nd.ndlinear_param_count((D,) * 3, (D,) * 3, bias=False))
    # isomat's counting function against the §3.1 formulas written out: binding (a disagreement is an error)
    lib_check = Trial(lib == (pc, pw), "exact", {"compared": "isomat.ndlinear_param_count vs §3.1 written out, N = 3, D = 32"},
                      None if lib == (pc, pw) else {"isomat": lib, "formula": (pc, pw)}, strength="recompute")
    recomputed = {"dense (32^6)": _sig(pc["dense"]), "ndlinear (3*32^2)": _sig(pc["ndlinear"]),
                  "a reduction of several orders of magnitude (≥ 100x)": pc["dense"] >= 100 * pc["ndlinear"]}
    alt = {"dense, weights only": _sig(pw["dense"]), "ndlinear, weights only": _sig(pw["ndlinear"])}
    return compare_printed(SEC3_1_PRINTED, recomputed, exact_counts=pc, weights_only_rounded=alt, isomat_count_check=lib_check,
                           reduction=f"{pc['dense'] / pc['ndlinear']:.0f}x",
                           recomputed_by="the §3.1 counts written out (D_flat·H_flat + H_flat, Σ(D_k H_k + H_k))")


@claim(
    "reneau2025:eq1",
    quote="FLOPs_NdLinear ≈ 2B Σ_{k=1}^N [(Π_{j=1}^{k-1} H_j)(Π_{j=k+1}^N D_j) D_k H_k]   (1); a standard "
          "linear layer performs approximately 2B·(Π D_k)·(Π H_k) FLOPs",
    statement=(
        "Eq. (1) equals twice the number of scalar multiplications performed by Algorithm 1 (order k = 1..N), "
        "and 2B ΠD_k ΠH_k twice those of a dense layer on the flattened input. Proved for every N >= 1 and all B, D_k, "
        "H_k >= 1 (Z3): the mode sizes are uninterpreted functions of j, the products Π_{m<j<=n} D_j, Π H_j are defined by "
        "their recursions (axioms), Algorithm 1's step k reshapes the intermediate of T entries to (T/D_k) × D_k and does "
        "(T/D_k)·D_k·H_k multiplications, leaving T·H_k/D_k entries (axioms); by induction on the steps the intermediate "
        "after m steps has Π_{j<=m} H_j Π_{j>m} D_j entries and the count is the first m terms of (1); the dense count "
        "by SymPy with symbolic N. Binding checks: the same per N ≤ 4 by SymPy (loop iterations of each step's matrix "
        "product, shapes from the permute/reshape bookkeeping), isomat.ndlinear_flops against (1) written out at 3 "
        "seeded shapes with N up to 6 and D_k, H_k up to 60 (and, run k = N..1, against (1) with the earlier and later "
        "modes' roles swapped). Cross-check by running Algorithm 1 on "
        "counting numbers: exhaustive over B ∈ {1,2}, N ≤ 3, D_k, H_k ∈ {1,2,3} (N = 3: D_k, H_k ∈ {1,2}). "
        "Bias additions are not counted, as in (1). The same count for order N..1 is recorded in evidence: "
        "(1) is specific to the order of Algorithm 1."
    ),
    methods=["symbolic", "exact", "exhaustive"],
)
def _eq1():
    cases = [(B, D, H) for B in (1, 2) for N in (1, 2, 3)
             for D in itertools.product((1, 2, 3) if N < 3 else (1, 2), repeat=N)
             for H in itertools.product((1, 2, 3) if N < 3 else (1, 2), repeat=N)]
    cases.sort(key=lambda c: (len(c[1]), c[0] * math.prod(c[1]) * math.prod(c[2]), c))

    def count(B, D, H, order):
        Wp = [np.array([_Counted(1)] * (D[k] * H[k]), dtype=object).reshape(D[k], H[k]) for k in range(len(D))]
        X = np.array([_Counted(1)] * (B * math.prod(D)), dtype=object).reshape(B, *D)
        _Counted.muls = 0
        algorithm1(X, Wp, [None] * len(D), order)
        return _Counted.muls

    def eq1(B, D, H):
        N = len(D)
        return 2 * B * sum(math.prod(H[:k]) * math.prod(D[k + 1:]) * D[k] * H[k] for k in range(N))

    def count_dense(B, D, H):
        Df, Hf = math.prod(D), math.prod(H)
        W = [[_Counted(1)] * Hf for _ in range(Df)]
        _Counted.muls = 0
        for _ in range(B):  # y = x W on the flattened sample
            x = [_Counted(1)] * Df
            [sum((x[d] * W[d][h] for d in range(Df)), 0) for h in range(Hf)]
        return _Counted.muls

    def ok(case):
        B, D, H = case
        return (eq1(B, D, H) == 2 * count(B, D, H, "outer") == _nd.ndlinear_flops(D, H, B)["ndlinear"]
                and 2 * B * math.prod(D) * math.prod(H) == 2 * count_dense(B, D, H) == _nd.ndlinear_flops(D, H, B)["dense"])

    t = exhaustive(ok, cases, describe="B in {1,2}, N <= 3, D_k, H_k <= 3 (<= 2 for N = 3)",
                   witness=lambda c: {"eq1": eq1(*c), "counted_flops": 2 * count(*c, "outer")}, method="exact")
    inner_example = {"D": [2, 3], "H": [3, 1], "B": 1, "eq1": eq1(1, (2, 3), (3, 1)),
                     "order_N_to_1_counted": 2 * count(1, (2, 3), (3, 1), "inner")}
    proof = _eq1_all_n_proof()
    return decide(proof, order_dependence=inner_example, each_n_up_to_4=_eq1_proof(), exhaustive_crosscheck=t,
                  isomat_flops_at_larger_sizes=_flops_large())


def _flops_large() -> Trial:
    """isomat.ndlinear_flops against eq. (1) and the dense formula written out, and against Algorithm 1's step
    bookkeeping (:func:`_alg1_steps`), at seeded random larger shapes (N up to 6, D_k, H_k up to 60, B up to 64)."""
    rng = np.random.default_rng(2025_1)
    bad = []
    for _ in range(3):
        N = int(rng.integers(3, 7))
        D, H = tuple(int(x) for x in rng.integers(1, 61, N)), tuple(int(x) for x in rng.integers(1, 61, N))
        B = int(rng.integers(1, 65))
        eq1 = 2 * B * sum(math.prod(H[:k]) * math.prod(D[k + 1:]) * D[k] * H[k] for k in range(N))
        steps = 2 * B * sum(rows * dk * hk for rows, dk, hk in _alg1_steps(D, H, "outer"))
        got = _nd.ndlinear_flops(D, H, B)
        if not (got["ndlinear"] == eq1 == steps and got["dense"] == 2 * B * math.prod(D) * math.prod(H)):
            bad.append({"D": D, "H": H, "B": B, "isomat": got, "eq1": eq1, "counted": steps})
        got_1 = _nd.ndlinear_flops(D, H)  # the defaults: one sample, order outer
        if got_1 != {"ndlinear": eq1 // B, "dense": 2 * math.prod(D) * math.prod(H)}:
            bad.append({"D": D, "H": H, "B": "default (1)", "isomat": got_1, "eq1": eq1 // B})
        # run k = N..1 (transform_outer=False): the earlier and later modes swap roles
        eq1_in = 2 * B * sum(math.prod(D[:k]) * math.prod(H[k + 1:]) * D[k] * H[k] for k in range(N))
        steps_in = 2 * B * sum(rows * dk * hk for rows, dk, hk in _alg1_steps(D, H, "inner"))
        got_in = _nd.ndlinear_flops(D, H, B, order="inner")
        if not got_in["ndlinear"] == eq1_in == steps_in:
            bad.append({"D": D, "H": H, "B": B, "order": "inner", "isomat": got_in, "eq1": eq1_in, "counted": steps_in})
    for count in (_nd.ndlinear_flops, _nd.ndlinear_param_count):  # one hidden size per input mode: else refused
        try:
            bad.append({"D": (2, 3), "H": (4,), "took": count.__name__, "isomat": count((2, 3), (4,))})
        except ValueError:
            pass
    return Trial(not bad, "exact", {"compared": "isomat.ndlinear_flops vs eq. (1) written out and the step bookkeeping, "
                                                 "3 seeded shapes, N in [3, 6], D_k, H_k in [1, 60], B in [1, 64], "
                                                 "both orders (k = 1..N and N..1), and with the defaults (B = 1, outer); "
                                                 "ndlinear_flops and ndlinear_param_count refuse D = (2, 3), H = (4,)"},
                 bad[0] if bad else None, strength="sampled")


def _eq1_proof() -> Trial:
    """Eq. (1) and the dense count for symbolic B, D_k, H_k (N = 1..4): the multiplications are counted as the
    iterations of the triple loop of each step's matrix product (B·rows × D_k) @ (D_k × H_k), with the shapes from
    Algorithm 1's bookkeeping (:func:`_alg1_steps`), and of the dense (B × D_flat) @ (D_flat × H_flat)."""
    B = sympy.Symbol("B", integer=True, positive=True)
    r, d, h = sympy.symbols("r d h", integer=True)
    trials = []
    for N in (1, 2, 3, 4):
        D = sympy.symbols(f"D1:{N + 1}", integer=True, positive=True)
        H = sympy.symbols(f"H1:{N + 1}", integer=True, positive=True)
        muls = sum(sympy.summation(1, (r, 0, B * rows - 1), (h, 0, Hk - 1), (d, 0, Dk - 1))
                   for rows, Dk, Hk in _alg1_steps(D, H, "outer"))
        # eq. (1) as printed: 2B Σ_k (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k
        printed = 2 * B * sum(sympy.Mul(*H[:k]) * sympy.Mul(*D[k + 1:]) * D[k] * H[k] for k in range(N))
        Df, Hf = sympy.Mul(*D), sympy.Mul(*H)
        dense_muls = sympy.summation(1, (r, 0, B - 1), (h, 0, Hf - 1), (d, 0, Df - 1))
        for_all = f"N = {N}, all B, D_k, H_k >= 1 (SymPy symbols)"
        domain = {str(x): "integer >= 1" for x in (B, *D, *H)}
        trials.append(symbolic_zero(2 * muls - printed, for_all=for_all, domain=domain,
                                    describe=f"N = {N}: 2 × (loop iterations of Algorithm 1's products) minus eq. (1)"))
        trials.append(symbolic_zero(2 * dense_muls - 2 * B * Df * Hf, for_all=for_all, domain=domain,
                                    describe=f"N = {N}: 2 × (loop iterations of the dense product) minus 2B ΠD_k ΠH_k"))
    return _bounded(all_of(*trials), "N = 1..4 modes (each N proved for all B, D_k, H_k >= 1)")


def _eq1_all_n_proof() -> Trial:
    """Eq. (1) for every number of modes N (Z3): Algorithm 1's multiplication count C(N, N) (axioms driven by
    alg1_step_muls / alg1_step_size, the shape bookkeeping of each step) equals the printed sum E(N, N), products over
    the modes being uninterpreted functions with their recursions (induction on the number of steps); and the dense
    count 2B·ΠD_k·ΠH_k as the iterations of (B × D_flat) @ (D_flat × H_flat) for symbolic N (SymPy)."""
    from .. import prover as pv

    S = _alg1_bookkeeping()
    N, Bz = pv.ints("N B")
    p = pv.prove(2 * Bz * S["C"](N, N) == 2 * Bz * S["E"](N, N), assuming=[N >= 1, Bz >= 1, S["positive"]],
                 lemmas=[S["outer"].at(N, N)], sizes=[N, Bz], model=S["model"],
                 for_all="for every number of modes N >= 1, every batch B >= 1 and all mode sizes D_j, H_j >= 1 "
                         "(uninterpreted functions of j)")
    t = p.trial("2 × (multiplications of Algorithm 1, order 1..N, counted step by step from its shape bookkeeping) = eq. (1) "
                "= 2B Σ_k (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k, by induction on the steps")
    k, Nn, r, d, h = sympy.symbols("k N r d h", integer=True)
    Dk, Hk = sympy.IndexedBase("D"), sympy.IndexedBase("H")
    Bs = sympy.Symbol("B", integer=True, positive=True)
    Df, Hf = sympy.Product(Dk[k], (k, 1, Nn)), sympy.Product(Hk[k], (k, 1, Nn))
    dense_muls = sympy.summation(1, (r, 0, Bs - 1), (h, 0, Hf - 1), (d, 0, Df - 1))
    dense = symbolic_zero(sympy.Add(2 * dense_muls, -2 * Bs * Df * Hf, evaluate=False),
                          describe="2 × (loop iterations of the dense (B × ΠD_k) @ (ΠD_k × ΠH_k) product) minus 2B ΠD_k ΠH_k",
                          for_all="all N >= 1, B >= 1 and D_k, H_k >= 1 (N, B, D_k, H_k SymPy symbols)", sizes=[Nn, Bs, Dk, Hk],
                          domain={"N": "integer >= 1", "B": "integer >= 1"})
    return all_of(t, dense)


_EQ1_BY = "eq. (1) and the dense FLOP count 2·D^N·D^N written out (isomat's ndlinear_flops is checked against them)"


# §3.2 worked example (N = 3, D_k = H_k = 32), printed as multiples of B:
EQ1_PRINTED = {"dense: O(BD^{2N}) ≈ B·10^9": 10**9, "ndlinear: O(NBD^{N+1}) ≈ B·3·10^6": 3 * 10**6,
               "savings: orders of magnitude (≥ 100x)": True}


@claim(
    "reneau2025:eq1/example",
    quote="a standard layer requires O(BD^{2N}) FLOPs (≈ B·10^9). NdLinear requires O(NBD^{N+1}) FLOPs (≈ B·3·10^6). "
          "This represents orders of magnitude in computational savings",
    statement=(
        "N = 3, D_k = H_k = D = 32, per sample (B = 1). Reading used (the paper's own, as in §3.1's "
        "'O(D^{2N}) parameters, which is 32^6 ≈ 10^9'): each '≈' evaluates the O-expression just before it, "
        "D^{2N} = 32^6 = 1,073,741,824 and N·D^{N+1} = 3·32^4 = 3,145,728, rounded to the printed one significant "
        "figure; and the savings, dense FLOPs / eq. (1) FLOPs (the paper's 2B·ΠD_k·ΠH_k and eq. (1)), are at least "
        "two orders of magnitude (headline). Other reading: '≈' as the value of the paper's FLOP "
        "formulas themselves (2·32^6 = 2,147,483,648 and eq. (1) = 6,291,456, i.e. 2·10^9 and 6·10^6 at one "
        "significant figure): the printed values are then a factor 2 low."
    ),
    methods=["recompute"],
)
def _eq1_example():
    D, N = 32, 3
    f = _nd.ndlinear_flops((D,) * N, (D,) * N, batch=1)
    # eq. (1) and the dense count written out here, independently of isomat.algebra
    eq1 = 2 * sum(D ** k * D ** (N - 1 - k) * D * D for k in range(N))
    dense = 2 * D ** N * D ** N
    same = (eq1, dense) == (f["ndlinear"], f["dense"])
    lib_check = Trial(same, "exact", {"compared": "isomat.ndlinear_flops vs eq. (1) written out, N = 3, D = 32, B = 1"},
                      None if same else {"isomat": f, "formula": {"ndlinear": eq1, "dense": dense}}, strength="recompute")
    recomputed = {"dense: O(BD^{2N}) ≈ B·10^9": _sig(D ** (2 * N)), "ndlinear: O(NBD^{N+1}) ≈ B·3·10^6": _sig(N * D ** (N + 1)),
                  "savings: orders of magnitude (≥ 100x)": dense / eq1 >= 100}
    as_formulas = {"dense: O(BD^{2N}) ≈ B·10^9": _sig(dense), "ndlinear: O(NBD^{N+1}) ≈ B·3·10^6": _sig(eq1),
                   "savings: orders of magnitude (≥ 100x)": dense / eq1 >= 100}
    evidence = dict(exact_flops={"dense": dense, "ndlinear": eq1}, savings_ratio=f"{dense / eq1:.1f}x", isomat_flops_check=lib_check)
    return by_readings(
        Reading("'≈' evaluates the O-expression", "Each '≈' is the O-expression before it at N = 3, D = 32, to one "
                "significant figure (the paper's own use in §3.1).", compare_printed(EQ1_PRINTED, recomputed, recomputed_by=_EQ1_BY,
                                                                               **evidence)),
        Reading("'≈' is the FLOP count", "Each '≈' is the paper's FLOP formula (2B·ΠD_k·ΠH_k, eq. (1)) at N = 3, D = 32, "
                "to one significant figure.", compare_printed(EQ1_PRINTED, as_formulas, recomputed_by=_EQ1_BY, **evidence)),
    )


# ---------------------------------------------------------------------------------------------
# §3.1 / §3.2 asymptotic forms with equal modes (D_k = H_k = D), for every N and D
# ---------------------------------------------------------------------------------------------
EQUAL_MODE_CASES = [(N, D) for N in (1, 2, 3, 4) for D in (1, 2, 3, 4)]
EQUAL_MODE_FOR_ALL = "every number of modes N >= 1 and every mode size D >= 1 (N, D SymPy symbols; D_k = H_k = D)"
#: the domain EQUAL_MODE_FOR_ALL (and its batch B >= 1) states, as engine.symbolic_zero checks it
EQUAL_MODE_DOMAIN = {"N": "integer >= 1", "D": "integer >= 1", "B": "integer >= 1"}


def _equal_mode_symbols():
    N, D, B = (sympy.Symbol(x, integer=True, positive=True) for x in ("N", "D", "B"))
    k, j = sympy.symbols("k j", integer=True)
    return N, D, B, k, j, sympy.Product(D, (k, 1, N))  # D_flat = H_flat = Π_{k=1}^N D


def _equal_mode_binding(what: str, count, closed) -> Trial:
    """isomat's counting function against the closed form at equal modes, every N <= 4, D <= 4 (binding)."""
    return exhaustive(lambda c: count(*c) == closed(*c), EQUAL_MODE_CASES,
                      describe=f"{what} vs the closed form, N <= 4, D <= 4 (D_k = H_k = D)",
                      witness=lambda c: {"isomat": count(*c), "closed_form": closed(*c)}, method="exact")


@claim(
    "reneau2025:sec3.1/dense-equal-modes",
    quote="a standard linear layer requires O(D^{2N}) parameters (§3.1, equal modes D_k = H_k = D)",
    statement=(
        "With N modes of equal size D_k = H_k = D, the dense layer on the flattened input (D_flat = H_flat = Π_{k=1}^N D) "
        "has exactly D^{2N} weights and D^N biases (D^{2N} + D^N parameters): the O-expression is its exact weight "
        "count. Proved for every N >= 1 and D >= 1 (SymPy, symbolic N and D): the weights and biases of "
        "nn.Linear(D_flat, D_flat) are counted as loop iterations over its structure (linear_params) with D_flat a "
        "Product with symbolic upper limit N. Binding check: isomat.ndlinear_param_count's dense count (with and "
        "without bias) against D^{2N} + D^N and D^{2N}, every N <= 4, D <= 4."
    ),
    methods=["symbolic", "exact"],
)
def _sec3_1_dense_equal():
    from ..engine import require

    binding = require(isomat_count=_equal_mode_binding(
        "isomat.ndlinear_param_count dense (with bias, weights only)",
        lambda N, D: (_nd.ndlinear_param_count((D,) * N, (D,) * N)["dense"],
                      _nd.ndlinear_param_count((D,) * N, (D,) * N, bias=False)["dense"]),
        lambda N, D: (D ** (2 * N) + D ** N, D ** (2 * N))))
    N, D, _, k, _, Df = _equal_mode_symbols()
    w, b = linear_params(Df, Df)
    proof = all_of(
        symbolic_zero(sympy.Add(w.doit(), -D ** (2 * N), evaluate=False), describe="weights of the dense nn.Linear(ΠD, ΠD), "
                      "counted over its (H_flat, D_flat) structure, minus D^{2N}", for_all=EQUAL_MODE_FOR_ALL, sizes=[N, D],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add(b.doit(), -D ** N, evaluate=False), describe="biases of the dense nn.Linear(ΠD, ΠD) minus D^N",
                      for_all=EQUAL_MODE_FOR_ALL, sizes=[N, D],
                      domain=EQUAL_MODE_DOMAIN))
    return decide(proof, **binding)


@claim(
    "reneau2025:sec3.1/ndlinear-equal-modes",
    quote="In contrast, NdLinear requires O(ND^2) parameters (§3.1, equal modes D_k = H_k = D)",
    statement=(
        "With N modes of equal size D_k = H_k = D, NdLinear (one nn.Linear(D, D) per mode) has exactly N·D² weights and "
        "N·D biases: the O-expression is its exact weight count. Proved for every N >= 1 and D >= 1 (SymPy, symbolic N "
        "and D): the parameters of each mode's nn.Linear are counted as loop iterations over its structure "
        "(linear_params) and summed over k = 1..N (a Sum with symbolic upper limit). Binding check: "
        "isomat.ndlinear_param_count's NdLinear count (with and without bias) against N(D² + D) and N·D², every N <= 4, "
        "D <= 4."
    ),
    methods=["symbolic", "exact"],
)
def _sec3_1_nd_equal():
    from ..engine import require

    binding = require(isomat_count=_equal_mode_binding(
        "isomat.ndlinear_param_count NdLinear (with bias, weights only)",
        lambda N, D: (_nd.ndlinear_param_count((D,) * N, (D,) * N)["ndlinear"],
                      _nd.ndlinear_param_count((D,) * N, (D,) * N, bias=False)["ndlinear"]),
        lambda N, D: (N * (D * D + D), N * D * D)))
    N, D, _, k, _, _ = _equal_mode_symbols()
    w, b = linear_params(D, D)
    proof = all_of(
        symbolic_zero(sympy.Add(sympy.Sum(w, (k, 1, N)).doit(), -N * D ** 2, evaluate=False),
                      describe="Σ_{k=1}^N weights of mode k's nn.Linear(D, D), counted over its structure, minus N·D²",
                      for_all=EQUAL_MODE_FOR_ALL, sizes=[N, D],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add(sympy.Sum(b, (k, 1, N)).doit(), -N * D, evaluate=False),
                      describe="Σ_{k=1}^N biases of mode k's nn.Linear(D, D) minus N·D", for_all=EQUAL_MODE_FOR_ALL, sizes=[N, D],
                      domain=EQUAL_MODE_DOMAIN))
    return decide(proof, **binding)


@claim(
    "reneau2025:eq1/dense-equal-modes",
    quote="a standard layer requires O(BD^{2N}) FLOPs (§3.2, equal modes D_k = H_k = D)",
    statement=(
        "With N modes of equal size D_k = H_k = D and batch B, the dense layer on the flattened input does "
        "(B × D^N) @ (D^N × D^N): 2 × its multiplications (the paper's FLOP convention, a multiply-add counts 2) is "
        "exactly 2B·D^{2N}, the printed O-expression up to the factor 2, and equals the paper's 2B·ΠD_k·ΠH_k at equal "
        "modes. Proved for every N >= 1, B >= 1 and D >= 1 (SymPy, symbolic N, B, D): the multiplications counted as "
        "the iterations of the product's triple loop (matmul_muls), D_flat a Product with symbolic upper limit N. "
        "Binding check: isomat.ndlinear_flops's dense count against 2B·D^{2N}, every N <= 4, D <= 4, B ∈ {1, 3}."
    ),
    methods=["symbolic", "exact"],
)
def _eq1_dense_equal():
    from ..engine import require

    binding = require(isomat_flops=_equal_mode_binding(
        "isomat.ndlinear_flops dense (B = 1, 3)",
        lambda N, D: tuple(_nd.ndlinear_flops((D,) * N, (D,) * N, B)["dense"] for B in (1, 3)),
        lambda N, D: tuple(2 * B * D ** (2 * N) for B in (1, 3))))
    N, D, B, k, _, Df = _equal_mode_symbols()
    proof = all_of(
        symbolic_zero(sympy.Add(2 * matmul_muls(B, Df, Df), -2 * B * D ** (2 * N), evaluate=False),
                      describe="2 × loop iterations of the dense (B × ΠD) @ (ΠD × ΠD) product minus 2B·D^{2N}",
                      for_all=f"{EQUAL_MODE_FOR_ALL}, every batch B >= 1", sizes=[N, D, B],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add((2 * B * Df * Df).doit(), -2 * B * D ** (2 * N), evaluate=False),
                      describe="the paper's 2B·ΠD_k·ΠH_k at D_k = H_k = D minus 2B·D^{2N}",
                      for_all=f"{EQUAL_MODE_FOR_ALL}, every batch B >= 1", sizes=[N, D, B],
                      domain=EQUAL_MODE_DOMAIN))
    return decide(proof, **binding)


@claim(
    "reneau2025:eq1/ndlinear-equal-modes",
    quote="NdLinear requires O(NBD^{N+1}) FLOPs (§3.2, equal modes D_k = H_k = D)",
    statement=(
        "With N modes of equal size D_k = H_k = D and batch B, Algorithm 1 does exactly B·N·D^{N+1} multiplications, "
        "so 2B·N·D^{N+1} FLOPs (the printed O-expression up to the paper's factor 2), and eq. (1) at equal modes is "
        "the same 2B·N·D^{N+1}. Proved for every N >= 1, B >= 1 and D >= 1 (SymPy, symbolic N, B, D): by the step "
        "bookkeeping alg1_step_size (T'·D_k = T·H_k) each step maps an intermediate of T = D^N entries to one of D^N "
        "entries (induction on the steps, base ΠD = D^N), so every step is a (B·D^N/D × D) @ (D × D) product, whose "
        "multiplications are counted as loop iterations (matmul_muls, equal to B·alg1_step_muls) and summed over "
        "k = 1..N (Sum with symbolic upper limit); eq. (1) is written as printed with Products over j < k and j > k. "
        "Binding check: isomat.ndlinear_flops's NdLinear count against 2B·N·D^{N+1}, every N <= 4, D <= 4, B ∈ {1, 3}."
    ),
    methods=["symbolic", "exact"],
)
def _eq1_nd_equal():
    from ..engine import require

    binding = require(isomat_flops=_equal_mode_binding(
        "isomat.ndlinear_flops NdLinear (B = 1, 3)",
        lambda N, D: tuple(_nd.ndlinear_flops((D,) * N, (D,) * N, B)["ndlinear"] for B in (1, 3)),
        lambda N, D: tuple(2 * B * N * D ** (N + 1) for B in (1, 3))))
    N, D, B, k, j, Df = _equal_mode_symbols()
    for_all = f"{EQUAL_MODE_FOR_ALL}, every batch B >= 1"
    step = matmul_muls(B * Df / D, D, D)
    proof = all_of(
        symbolic_zero(sympy.Add((alg1_step_size(Df, D, D) / D).doit(), -Df.doit(), evaluate=False),
                      describe="induction step on Algorithm 1's steps: an intermediate of T = D^N entries is followed by "
                               "one of alg1_step_size(T, D, D)/D entries, minus D^N (base: the input has ΠD = D^N)",
                      for_all=EQUAL_MODE_FOR_ALL, sizes=[N, D],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add(step.doit(), -B * alg1_step_muls(Df, D, D).doit(), evaluate=False),
                      describe="loop iterations of one step's (B·D^N/D × D) @ (D × D) product minus B·alg1_step_muls(D^N, D, D)",
                      for_all=for_all, sizes=[N, D, B],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add(2 * sympy.Sum(step, (k, 1, N)).doit(), -2 * B * N * D ** (N + 1), evaluate=False),
                      describe="2 × Σ_{k=1}^N loop iterations of step k's product minus 2B·N·D^{N+1}",
                      for_all=for_all, sizes=[N, D, B],
                      domain=EQUAL_MODE_DOMAIN),
        symbolic_zero(sympy.Add((2 * B * sympy.Sum(sympy.Product(D, (j, 1, k - 1)) * sympy.Product(D, (j, k + 1, N)) * D * D,
                                                   (k, 1, N))).doit(), -2 * B * N * D ** (N + 1), evaluate=False),
                      describe="eq. (1) as printed, 2B Σ_k (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k at D_j = H_j = D, minus "
                               "2B·N·D^{N+1}", for_all=for_all, sizes=[N, D, B],
                      domain=EQUAL_MODE_DOMAIN))
    return decide(proof, **binding)


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
