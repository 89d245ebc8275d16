"""cheng2025 §V: Example 5.3, remarks 5.4-5.7, algorithms 5.1/5.2, eqs. (97)-(98), (104), (106)."""

from __future__ import annotations

from fractions import Fraction

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from ..engine import require
from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4 import *  # noqa: F401,F403


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
        "polynomials; isomat's project_padding_linear / zero_padding_linear must give the same q's. Not compared: "
        "the zero-padded width 6 (the example sets n0 = 6 itself, so padding to 6 rather than Algorithm 5.1's "
        "d = max n_i = 5 is its own choice, not a misprint). Also in the list: zero-padding Step 2 prints "
        "q̃^i = W^q x^i (undefined: x^i has 3, 4 or 5 entries) for W^q x̃^i; projection-padding Step 2 gives Q̃ᵀ = "
        "W^q X̃ᵀ the shape M_{4×6}, but W^q X̃ᵀ is 6×4."
    ),
    methods=["recompute", "symbolic"],
)
def _ex53():
    xs = _sym_hv(_EX53_DIMS)
    printed, recomputed = {}, {}

    def put(key, p, r):
        printed[key] = p
        recomputed[key] = sympy.expand(r)

    # zero padding. Algorithm 5.1's Step 1 pads to d = max{n_α, m_β} (here Q has the dims of X): the example
    # pads to n0 = 6 instead; Step 2 prints q̃^i = W^q x^i, a product that is undefined (W^q is 6×6, x^i has n_i < 6
    # entries) -- what is computed, and meant, is q̃^i = W^q x̃^i
    # the padded width is the example's own choice: it sets "the nominal dimension n0 = 6" before padding, so
    # padding to 6 (not Algorithm 5.1's d = max n_i = 5) is no misprint and is not compared
    put("zero-padding Step 2: the product defining q̃^i (x^i has n_i entries, W^q is 6×6)",
        sympy.Symbol("W^q x^i"), sympy.Symbol("W^q x̃^i") if any(n != _W6.cols for n in _EX53_DIMS) else sympy.Symbol("W^q x^i"))
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
    put("projection-padding Step 2: shape of Q̃ᵀ = W^q X̃ᵀ (printed M_{4×6})", sympy.Symbol("M_{4×6}"),
        sympy.Symbol(f"M_{{{Qt.rows}×{Qt.cols}}}"))
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
            from ...errors import CheckError

            raise CheckError(f"isomat's padding algorithms disagree with the naive recomputation for q^{k + 1}")
    return compare_printed(printed, recomputed, isomat_agrees=True,
                           recomputed_by="the naive Π of (22) (sympy.kronecker_product) and SymPy products and Jacobians")


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
        lemmas=[prefix], sizes=[n, d], describe="rows of Π^n_{n0} are >= 0 and sum to 1 (prefix-sum lemma)")
    injective = _proof_trial(
        _pv.both(0 <= row(j), row(j) < d, _ov_rule(row(j), j, n, d) > 0,
                 _pv.ite(jp < j, _ov_rule(row(j), jp, n, d) == 0, True), _pv.ite(j + 1 < n, row(j) < row(j + 1), True)),
        for_all="for all 1 <= n <= n0, 0 <= j, j' < n", assuming=[n >= 1, d >= n, 0 <= j, j < n, 0 <= jp, jp < n], sizes=[n, d],
        describe="rows ρ(j) = ceil(j·n0/n), j < n, are distinct rows of Π^n_{n0} with entry (ρ(j), j) > 0 and (ρ(j), j') = 0 "
                 "for j' < j: that n×n submatrix is triangular with nonzero diagonal, so rank Π^n_{n0} = n (injective)")
    cross = _exact_exhaustive(ok, cases, "1 <= n <= n0 <= 8")
    return decide(_textbook(all_of(averages, injective), "matmul-entry", "minor-rank", "full-column-rank-injective"),
                  exhaustive_crosscheck=cross, projection_binds_rule=_projection_binds(),
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
                                         "1 <= n0 < n_i <= 8", witness), confirm=_loops_kernel_vector)),
        Reading("handled (nearest vector)", "Π^{n_i}_{n0} x is the d_V-nearest vector of R^{n0} to x, for n_i > n0",
                decide(_exact_exhaustive(nearest, [c for c in cases if c[0] <= 4], "1 <= n0 < n_i <= 4, generic x, y")),
                supported=False),
    )


def _loops_kernel_vector(cx) -> Trial:
    """The counterexample's x ≠ 0 with Π x = Π 0 = 0, recomputed with _loops_projection."""
    n, d = cx["case"]
    x = [Fraction(str(v)) for v in cx["x"]]
    P = _loops_projection(n, d)
    return exhaustive(lambda _: any(x) and all(sum(p * v for p, v in zip(row, x)) == 0 for row in P), [(n, d)],
                      method="exact", describe="Π^{n_i}_{n0} x = 0 for the counterexample's x ≠ 0, (22) by loops")


@claim(
    "cheng2025:rem5.4/iii",
    quote="(iii) Finally, the output sequences (i.e., vectors) can have the same sizes as the input sequences if we wish.",
    statement=(
        "Rem. 5.4 (iii): with the output sizes chosen equal to the input sizes, the paper's own constructions return "
        "vectors of exactly those sizes: Def. 4.13's step 3 (73) ξ^i = Π^{n0}_{n_i} ξ̃^i and Alg. 5.2's step 3 (91) "
        "q^i = Π^d_{m_i} q̃^i with m_i = n_i, Π built from (22) by Kronecker products (independent of isomat), applied "
        "to integer data in exact rationals (the sizes do not depend on the values): exact, every dims tuple of length ≤ 3 with n_i ≤ 4 and every nominal "
        "d ∈ [1, 5] (so n_i > d too). Binding cross-check (random floats, in the run's float field): isomat's ⋄ and "
        "project_padding_linear return those sizes and the values of the naive float64 construction (np.kron Π), "
        "tol 1e-12; and exactly, isomat's ⋄, zero- and project-padding linear, project_pad and ⊙_w against the "
        "definitions with operands of two fields (one a NumPy integer array: the result exact), every out_dims form "
        "and the refusals of a non-square W and of zero-padding beyond d."
    ),
    methods=["exact", "exhaustive", "numeric"],
)
def _rem54iii():
    pi = {}

    def P(m, n):  # Π^m_n of (22) (naive Kronecker form, exact rationals), as an object array
        if (m, n) not in pi:
            pi[m, n] = np.array(naive_projection(m, n).tolist(), dtype=object)
        return pi[m, n]

    def ok(dims):  # the paper's (71)-(73) and (88)-(91), built from (22), exact integer data
        s = len(dims)
        xs = [np.arange(1, n + 1, dtype=object) for n in dims]
        A = np.arange(1, s * s + 1, dtype=object).reshape(s, s)
        for d in range(1, 6):
            Xt = np.stack([P(n, d) @ x for n, x in zip(dims, xs)])  # (71) / (88)-(89): s × d
            W = np.arange(1, d * d + 1, dtype=object).reshape(d, d)
            outs = [P(d, n) @ row for n, row in zip(dims, A @ Xt)]  # (72)-(73)
            qs = [P(d, n) @ col for n, col in zip(dims, (W @ Xt.T).T)]  # (90) as (86), then (91)
            if [len(o) for o in outs] != list(dims) or [len(q) for q in qs] != list(dims):
                return False
        return True

    def iso_ok(dims):  # isomat against the naive float64 construction
        rng = np.random.default_rng(sum(dims))
        X = [rng.standard_normal(n) for n in dims]
        s, d = len(dims), max(dims) + 1
        A, W = rng.standard_normal((s, s)), rng.standard_normal((d, d))
        n0 = max(dims)
        ref_a = [_np_proj(n0, n) @ row for n, row in zip(dims, A @ np.stack([_np_proj(n, n0) @ x for n, x in zip(dims, X)]))]
        ref_b = [_np_proj(d, n) @ col for n, col in zip(dims, (W @ np.stack([_np_proj(n, d) @ x for n, x in zip(dims, X)]).T).T)]
        a = _hyper.diamond(_dev(A), [_dev(x) for x in X])
        b = _hyper.project_padding_linear(_dev(W), [_dev(x) for x in X], dims)
        return (a.dims == b.dims == tuple(dims)
                and all(_close(to_numpy(u), v) for u, v in zip(a.values(), ref_a))
                and all(_close(to_numpy(u), v) for u, v in zip(b.values(), ref_b)))

    checks = require(float_crosscheck=_num_exhaustive(iso_ok, _hv_cases(3, 4), "isomat vs naive float64, dims of "
                                                      "length <= 3, n_i <= 4"),
                     hypervector_fields_and_options=_hyper_fields_and_options())
    return decide(_exact_exhaustive(ok, _hv_cases(3, 4), "dims of length <= 3, n_i <= 4, nominal d in [1, 5]"), **checks)


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
        assuming=[n >= 1, c >= 1, 0 <= u, u < n * c, 0 <= i, i < n, 0 <= j, j < n], sizes=[n, c],
        describe="if n | d: Π^n_d = I_n ⊗ 1_{d/n}, so Π^d_n Π^n_d = Π^d_n (I_n ⊗ 1_{d/n}) = Π^n_n by (26) (proved), and Π^n_n = I_n")
    us = _pv.fdiv(d, n)
    only_if = _proof_trial(
        _pv.both(0 <= us, us < d, _ov_rule(0, us, d, n) > 0, _ov_rule(us, 1, n, d) > 0, _ov_rule(i, j, d, n) >= 0,
                 _ov_rule(j, i, n, d) >= 0),
        for_all="for all n >= 2, d >= n with n ∤ d, all i, j",
        assuming=[n >= 2, d >= n, _pv.fmod(d, n) != 0], sizes=[n, d],
        describe="if n ∤ d: with u* = d div n, Π^d_n[0, u*] > 0 and Π^n_d[u*, 1] > 0 and all entries are >= 0, so the "
                 "off-diagonal entry (Π^d_n Π^n_d)[0, 1] >= Π^d_n[0, u*]·Π^n_d[u*, 1] > 0: the product is not I_n")
    proof = _textbook(all_of(refine, _eq26_proof(), only_if), "matmul-entry", "kron-entry", "nonnegative-closure")
    return decide(_exact_exhaustive(ok, cases, "1 <= n <= d <= 8", witness),
                  correction=("Π^d_n Π^n_d = I_n if and only if n | d; otherwise un-padding only approximates", proof),
                  corrected_exhaustive_crosscheck=iff, projection_binds_rule=_projection_binds())


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
        "Proved for all sizes, entry by entry: for s tokens q^i, k^j ∈ R^n and every common multiple t = n·a, "
        "softmax(Q ⊙_w K)[i, j] = e^{⟨q^i, k^j⟩_V √lcm(n, n)} / Σ_{l<s} e^{⟨q^i, k^l⟩_V √lcm(n, n)} equals "
        "softmax(QKᵀ/√n)[i, j] (41), and softmax(Q ⊙ K)[i, j] equals softmax(QKᵀ/n)[i, j] (95): ⟨q^i, k^j⟩_V = "
        "(1/t) Σ_{u<t} (q^i ⊗ 1_a)[u] (k^j ⊗ 1_a)[u] = (QKᵀ)[i, j]/n (row-major digit sums by induction), lcm(n, n) = n, "
        "and the softmax denominators agree term by term (induction on the number of keys); Q, K and e^x uninterpreted. "
        "Binding check, exact on the scores: Q ⊙_w K = QKᵀ/√n and Q ⊙ K = QKᵀ/n (isomat hv_inner_weighted / hv_inner, "
        "generic (symbolic) Q, K, so for all values), all s, n in [1, 4]. Cross-check (one integer instance per size, float, not counted in the strength): the attention "
        "matrices agree with softmax(QKᵀ/√n) from torch scaled_dot_product_attention (V = I_s), tol 1e-12, and the "
        "unweighted ones (attention_scores(weighted=False), (94)) with softmax(QKᵀ/n) from it (Q/√n for Q)."
    ),
    methods=["exact", "exhaustive", "numeric", "symbolic"],
    hypotheses=_SIZES,
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
        return _close(A, _sdpa(Qf, Kf, np.eye(s))) and _unweighted_scores_close(Qf, Kf)

    checks = require(exhaustive_crosscheck=_exact_exhaustive(ok, _dims(2, 4), "s, n in [1, 4]"),
                     numeric_crosscheck=_num_exhaustive(num, _dims(2, 4), "s, n in [1, 4]"))
    return decide(_textbook(_rem55_proof(), "kron-entry"), **checks)


def _unweighted_scores_close(Qf, Kf) -> bool:
    """(94)-(95): isomat's attention_scores(weighted=False) = softmax(Q ⊙ K) against torch's
    scaled_dot_product_attention of Q/√n and K (scores QKᵀ/n), V = I_s, tol 1e-12."""
    s, n = Qf.shape
    A = _hyper.attention_scores([_dev(q) for q in Qf], [_dev(k) for k in Kf], weighted=False)
    return _close(A, _sdpa(Qf / np.sqrt(n), Kf, np.eye(s)))


def _rem55_proof():
    """Rem. 5.5 for all sizes: the softmax rows of (93)/(41) and of (94)/(95) agree entry by entry. The scores agree
    (⟨q^i, k^j⟩_V = (QKᵀ)[i, j]/n for every common multiple t = n·a, _homog_inner_lemma; lcm(n, n) = n), so do the
    softmax denominators Σ_{l<s} e^{score[i, l]} (prefix sums by axioms, induction on the number of keys)."""
    import z3

    T, P, rows = _homog_inner_lemma()
    I, R = z3.IntSort(), z3.RealSort()
    E = z3.Function("ExpOf", R, R)
    Dw, D41, Dp, D95 = (z3.Function(nm, I, I, I, I, R, R)
                        for nm in ("SoftmaxSum93", "SoftmaxSum41", "SoftmaxSum94", "SoftmaxSum95"))
    i, j, K, n, a, lc, k, s_ = _pv.ints("i j K n a lc k s")
    sq = z3.Real("sqrt_lcm")
    sw = lambda j: T(i, j, a, n) / z3.ToReal(n * a) * sq  # noqa: E731  (Q ⊙_w K)[i, j] = ⟨q^i, k^j⟩_V·√lcm(n, n)
    s41 = lambda j: P(i, j, n) / sq  # noqa: E731  (QKᵀ/√n)[i, j]
    sp = lambda j: T(i, j, a, n) / z3.ToReal(n * a)  # noqa: E731  (Q ⊙ K)[i, j]
    s95 = lambda j: P(i, j, n) / z3.ToReal(n)  # noqa: E731  (QKᵀ/n)[i, j]
    ax = []
    for D, f, nm in ((Dw, sw, "93"), (D41, s41, "41"), (Dp, sp, "94"), (D95, s95, "95")):
        ax += [_pv.axiom(f"softmax-sum-{nm}-0", z3.ForAll([i, n, a, sq], D(i, 0, n, a, sq) == 0), text="empty sum"),
               _pv.axiom(f"softmax-sum-{nm}-step", z3.ForAll([i, K, n, a, sq], z3.Implies(
                   K >= 0, D(i, K + 1, n, a, sq) == D(i, K, n, a, sq) + E(f(K))), patterns=[D(i, K + 1, n, a, sq)]),
                   text=f"D(i, K+1) = D(i, K) + e^{{score[i, K]}} with the scores of ({nm}): the softmax denominator of row i")]
    hyp = [n >= 1, a >= 1, lc == n * k, k >= 1, lc <= n, sq > 0, sq * sq == z3.ToReal(lc)]
    sums_w = _pv.induction(
        "softmax-sums-93-41", K, lambda K: Dw(i, K, n, a, sq) == D41(i, K, n, a, sq),
        text="for all K >= 0: Σ_{l<K} e^{(Q ⊙_w K)[i, l]} = Σ_{l<K} e^{(QKᵀ)[i, l]/√n}",
        other=[i, n, a, sq, lc, k], assuming=hyp, axioms=ax[:4], using=[rows])
    sums_p = _pv.induction(
        "softmax-sums-94-95", K, lambda K: Dp(i, K, n, a, sq) == D95(i, K, n, a, sq),
        text="for all K >= 0: Σ_{l<K} e^{(Q ⊙ K)[i, l]} = Σ_{l<K} e^{(QKᵀ)[i, l]/n}",
        other=[i, n, a, sq, lc, k], assuming=hyp, axioms=ax[4:], using=[rows])
    return _proof_trial(
        _pv.both(E(sw(j)) / Dw(i, s_, n, a, sq) == E(s41(j)) / D41(i, s_, n, a, sq),
                 E(sp(j)) / Dp(i, s_, n, a, sq) == E(s95(j)) / D95(i, s_, n, a, sq)),
        for_all="for all s, n >= 1 (s tokens of dimension n), every common multiple t = n·a of n and n, every entry "
                "(i, j), j < s, all Q, K (uninterpreted) and e^x (uninterpreted); lcm(n, n) a positive multiple of n and "
                "at most n, √lcm(n, n) its positive root",
        assuming=[*hyp, s_ >= 1, 0 <= i, 0 <= j, j < s_],
        lemmas=[sums_w.at(s_, i, n, a, sq, lc, k), sums_p.at(s_, i, n, a, sq, lc, k), rows.at(n, i, j, a)],
        sizes=[s_, n, a],
        describe="softmax(Q ⊙_w K)[i, j] = softmax(QKᵀ/√n)[i, j] (the A of (93) is that of (41)) and "
                 "softmax(Q ⊙ K)[i, j] = softmax(QKᵀ/n)[i, j] ((94) gives (95))")


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
    quote=("Remark 5.6: In most general case, we assume Q ∈ R^{m_1×⋯×m_p}, K ∈ R^{a_1×⋯×a_q}, V ∈ R^{b_1×⋯×b_r}. Then "
           "A := Q ⊙ K (or Q ⊙_w K) ∈ M_{p×q}. Assume t = lcm(q, r), then we can define "
           "Attention(Q, K, V) := (A ⊗ 1ᵀ_{t/q}) ⋄ (1_{t/r} ⊗ V).   (97)"),
    statement=(
        "Rem. 5.6, eq. (97), offered as the most general case of the attention (96): an attention's output depends on "
        "the scores A = softmax(Q ⊙_w K) once there are several keys and values (q, r >= 2). Refuted: when "
        "gcd(q, r) = 1, t/q = r, so every key block of A ⊗ 1ᵀ_{t/q} meets each of the r copies of V exactly once and "
        "(97) gives ξ^i = Π^{n0}_{dim q^i} Σ_k Π^{b_k}_{n0} v^k whatever Q and K are (rows of A sum to 1). Checked on "
        "(97) built naively in float64 from its printed parts (⟨·,·⟩_V of (17) with np.kron, ⊙_w of (69), row softmax, "
        "A ⊗ 1ᵀ_{t/q} with np.kron, 1_{t/r} ⊗ V as t/r copies of V, the three steps of Def. 4.13 with Π of (22), step 3 "
        "to the dims of Q): p ∈ {1, 2}, q, r ∈ {2, 3}, K' = 3·reverse(K) + 1 gives other scores; minimal case "
        "p, q, r = 1, 2, 3: two K with different scores, the same output. Evidence: the closed form Σ_k v^k against "
        "the naive (97) for every p, q, r in [1, 3] with gcd(q, r) = 1; for q ≠ r the rows of A ⊗ 1ᵀ_{t/q} sum to t/q "
        "(a constant V is scaled by t/q). At q = r (t = q) (97) is (96) term for term, so 'generalizes (96)' is no "
        "check and is not recorded as one. Binding cross-check: isomat's df_attention_general (in the run's float "
        "field) equals the naive (97) for every p, q, r in [1, 3], tol 1e-12; and exactly, its ⋄, padding linear maps, "
        "project_pad and ⊙_w against the definitions with operands of two fields, every out_dims form and their "
        "refusals."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=("p, q, r are positive integers (numbers of query, key and value vectors), q, r >= 2 (several keys "
                "and values)", lambda c: _positive_sizes(c) and c[1] >= 2 and c[2] >= 2),
)
def _rem56():
    def hv(k, seed, offset):
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(1 + (i + offset) % 3) for i in range(k)]

    def iso_ok(c):  # isomat's (97) against the naive float64 construction
        p, q, r = c
        Q, K, V = hv(p, sum(c), 0), hv(q, sum(c) + 1, 1), hv(r, sum(c) + 2, 2)
        ref = _np_att97(Q, K, V)
        iso = _hyper.df_attention_general([_dev(v) for v in Q], [_dev(v) for v in K], [_dev(v) for v in V])
        return len(iso.values()) == len(ref) and all(_close(to_numpy(a), b) for a, b in zip(iso.values(), ref))

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
    checks = require(isomat_crosscheck=_num_exhaustive(iso_ok, _dims(3, 3), "isomat vs naive (97), p, q, r in [1, 3] "
                                                        "vectors; sizes 1 + (i + k) mod 3"),
                     hypervector_fields_and_options=_hyper_fields_and_options())
    return decide(_num_exhaustive(uses_scores, uses_cases, "p in {1, 2}, q, r in {2, 3}; K' = 3·reverse(K) + 1",
                                  uses_witness),
                  gcd_q_r_1_output_is_sum_of_values=coprime, **checks,
                  # the failure is computed by the naive NumPy (97) (_np_att97, no isomat code); recomputed at the case
                  confirm=lambda cx: _num_exhaustive(lambda c: not uses_scores(c), [tuple(cx["case"])],
                                                     "(97) unchanged by K' at the counterexample, naive NumPy (97)"),
                  constant_v_q1_r2_output=[float(v) for v in to_numpy(scaled.values()[0])],
                  note_q_equals_r="at q = r, t = q: A ⊗ 1ᵀ_1 = A and 1_1 ⊗ V = V, so (97) is (96) A ⋄ V term for term "
                                  "(no check)")


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
        V = [_dev(np.ones(n0))] * r  # isomat's project_pad in the float field of the run, its result back on the host
        Xt = to_numpy(_hyper.project_pad([V[i % r] for i in range(t)]))
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
                                                   "dimension of ξ̃^i": row_dim(c)}), confirm=reference(d_of))

    unchanged = _exact_exhaustive(lambda c: row_dim(c) == c[2], cases, "q, r, n0 in [1, 3]")
    def reference(d_of):  # the rows of X̃ have n0 entries whatever the sizes: every V_i has n0 entries and
        def confirm(cx):  # project-padding to the largest, n0, keeps them (Π^{n0}_{n0} = I, by _loops_projection)
            q, r, n0 = cx["case"]
            dim = len(_loops_projection(n0, n0))
            want = Fraction(math.lcm(q, r) * n0, d_of((q, r, n0)))
            return exhaustive(lambda _: dim != want, [(q, r, n0)], method="exact",
                              describe="the dimension of ξ̃^i (n0, from (22) by loops) against (t/d)·n0 at the counterexample")
        return confirm

    return by_readings(
        Reading("d = n0", "d is the nominal dimension n0 of (83)-(85), so the source dimension (t/d)·n0 is t",
                decide(_exact_exhaustive(printed_ok, cases, "q, r, n0 in [1, 3]", witness), confirm=reference(lambda c: c[2]),
                       what_holds_instead=unchanged,
                       what_holds_instead_is=(
                           "ξ^i := Π^{n0}_{n_i} ξ̃^i — (73) unchanged: the rows of (A ⊗ 1ᵀ_{t/q}) X̃ have n0 entries"))),
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
    ident = _pi_identity_proof(
        "Π^m_m[i, j] = ov(i, j, m, m)/m = [i = j]: Π^m_m = I_m, so x +_m f = Π^n_m x + Π^m_m f = Π^n_m x + f")
    return decide(ident, exhaustive_crosscheck=tr, projection_binds_rule=_projection_binds())


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


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
