"""zhu2025 §4.1-4.2: Data2Matrix, convolution and pooling as sparse matrices."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import sympy
import z3

from ...algebra import conv as _conv, pool as _pool
from ...algebra._backend import as_values, to_numpy
from .. import prover
from ..engine import Reading, by_readings, all_of, claim, compare_printed, decide, exhaustive, float_backend, require
from ...errors import CheckError
from ..prover import fdiv, FLATTEN_DIV_MOD, fmod, ints
from ._common import (
    _colmajor_pixel,
    _dense,
    _flat,
    _generic_kernel,
    _proved,
    _rowmajor_pixel,
    _settle,
    _symbolic_kernel,
    BASE,
    naive_avgpool,
    naive_conv_matrix,
    naive_maxpool,
    naive_wconv,
    avgpool_builder_check,
    conv_builder_check,
    pool_builder_check,
    zhu_conv_builder_check,
    zhu_rows_check,
)
from ._builders import AVGPOOL_BOUND, CONV_BOUND, POOL_BOUND, ZHU_CONV_BOUND, ZHU_ROWS_BOUND, builder_note


@claim(
    "zhu2025:sec4.1.2/row-major",
    quote="a two-dimensional matrix of size m×n is reshaped into a single column vector of dimension mn×1 "
          "... Image_new = (I_11, I_12, I_13, ..., I_mn)^T",
    statement="The printed order I_11, I_12, I_13, ..., I_mn is the row-major vec (as Assumption 4.1 says), and not "
              "the column-major one. Proved (Z3) for all m >= 1, n >= 3 (I_13 must exist): position k of the row-major "
              "vec holds pixel (⌊k/n⌋, k mod n) (0-based), so positions 0, 1, 2 and mn − 1 hold I_11, I_12, I_13, I_mn; "
              "for m >= 2 position 1 of the column-major vec, (k mod m, ⌊k/m⌋), holds I_21 ≠ I_12. Cross-check: "
              "NumPy's C- and F-order flattening of a symbolic image, m <= 3, 3 <= n <= 4.",
    methods=["symbolic", "exact", "exhaustive"],
)
def _rowmajor():
    m, n = ints("m n")
    rm = [_rowmajor_pixel(k, n) for k in (0, 1, 2)] + [_rowmajor_pixel(m * n - 1, n)]
    goal = z3.And(*[z3.And(a == x, b == y) for (a, b), (x, y) in zip(rm, [(0, 0), (0, 1), (0, 2), (m - 1, n - 1)])])
    cm = _colmajor_pixel(1, m)
    proof = lambda: [  # noqa: E731
        _proved(goal, assuming=[m >= 1, n >= 3], sizes=[m, n], for_all="for all m >= 1, n >= 3",
                describe="row-major positions 0, 1, 2, mn−1 hold pixels (0,0), (0,1), (0,2), (m−1,n−1)",
                lemmas=[FLATTEN_DIV_MOD.at(m - 1, n - 1, n)]),
        _proved(z3.Not(z3.And(cm[0] == 0, cm[1] == 1)), assuming=[m >= 2, n >= 3], sizes=[m, n], for_all="for all m >= 2, n >= 3",
                describe="column-major position 1 holds pixel (1, 0), not (0, 1)")]
    s = sympy.Symbol
    printed_head = [s("I11"), s("I12"), s("I13")]

    def flat(mn, order):
        m, n = mn
        I = sympy.Matrix(m, n, lambda i, j: sympy.Symbol(f"I{i + 1}{j + 1}"))
        return list(np.array(I.tolist(), dtype=object).reshape(-1, order=order))

    def ok(mn):
        v = flat(mn, "C")
        return v[:3] == printed_head and v[-1] == s(f"I{mn[0]}{mn[1]}") and (mn[0] < 2 or flat(mn, "F")[:3] != printed_head)

    sizes = [(m, n) for m in range(1, 4) for n in range(3, 5)]
    ex = exhaustive(ok, sizes, describe="NumPy C order has the printed head and tail, F order not (m >= 2), m <= 3, 3 <= n <= 4")

    def rules_are_numpy_orders(mn):  # the two position rules the proof is about, against NumPy's own unravelling
        m_, n_ = mn
        k = np.arange(m_ * n_)
        return (all(np.array_equal(a, b) for a, b in zip(_rowmajor_pixel(k, n_), np.unravel_index(k, (m_, n_), order="C")))
                and all(np.array_equal(a, b) for a, b in zip(_colmajor_pixel(k, m_), np.unravel_index(k, (m_, n_), order="F"))))

    # binding (issue 36 item 6): a refutation must rest on rules that are the orders they name, never on a wrong rule
    checks = require(rules_vs_numpy=exhaustive(rules_are_numpy_orders, [(m_, n_) for m_ in range(1, 5) for n_ in range(1, 6)],
                                               describe="_rowmajor_pixel / _colmajor_pixel == NumPy's C / F unravel_index, "
                                                        "every position, m <= 4, n <= 5"))
    return decide(_settle(proof, lambda: ex), exhaustive_crosscheck=ex, **checks)


# ---------------------------------------------------------------------------------------------
# §4.2.1 W_conv
# ---------------------------------------------------------------------------------------------
def _zhu_cases(bound=4, smax=3):
    cases = [(m, n, r, s) for m in range(1, bound + 1) for n in range(1, bound + 1)
             for r in range(1, min(m, n) + 1) for s in range(1, smax + 1)]
    return sorted(cases, key=lambda c: (c[0] * c[1], c[2], c[3], c))


def _zhu_P(m, n, r, s):
    maxN0 = (r - 1) * n + (r - 1)
    return (m * n - maxN0) // s + 1


@claim(
    "zhu2025:sec4.2.1/p-formula",
    quote="P = ⌊(L − max N_0)/s⌋ + 1 ... Row p of W_conv contains nonzero entries exactly at columns x + ps",
    statement="With L = mn and N_0 = {in + j : 0 ≤ i, j < r}, every printed row p < P has all its columns "
              "x + ps inside [0, L). Checked for all m, n ≤ 4, r ≤ min(m, n), s ≤ 3, smallest L first; the correction "
              "(every row fits and one more would not) is proved by Z3 for all m, n >= 1, 1 <= r <= min(m, n), s >= 1."
              + builder_note(ZHU_ROWS_BOUND),
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=('image m×n, r×r kernel with 1 <= r <= min(m, n), stride s >= 1 (§4.2.1)',
                lambda c: 1 <= c[2] <= min(c[0], c[1]) and c[3] >= 1),
)
def _p_formula():
    def fits(c):
        m, n, r, s = c
        return (r - 1) * n + (r - 1) + (_zhu_P(m, n, r, s) - 1) * s < m * n

    def witness(c):
        m, n, r, s = c
        P = _zhu_P(m, n, r, s)
        return {"L": m * n, "max_N0": (r - 1) * n + r - 1, "P_printed": P,
                "last_row_max_column": (r - 1) * n + r - 1 + (P - 1) * s}

    def corrected(c):
        m, n, r, s = c
        mx = (r - 1) * n + (r - 1)
        P = (m * n - 1 - mx) // s + 1
        return mx + (P - 1) * s < m * n <= mx + P * s  # every row fits, and one more would not

    m, n, r, s = ints("m n r s")
    mx = (r - 1) * n + (r - 1)
    P = fdiv(m * n - 1 - mx, s) + 1
    proof = _proved(z3.And(P >= 1, mx + (P - 1) * s < m * n, m * n <= mx + P * s),
                    assuming=[m >= 1, n >= 1, r >= 1, r <= m, r <= n, s >= 1],
                    sizes=[m, n, r, s], for_all="for all m, n >= 1, 1 <= r <= min(m, n), s >= 1 (L = mn, max N_0 = (r−1)n + r − 1)",
                    describe="P >= 1, the last row's largest column max N_0 + (P−1)s < L, and one more row would reach "
                             "max N_0 + Ps >= L",
                    fallback=lambda: exhaustive(corrected, _zhu_cases(), describe="m, n <= 4, r <= min(m, n), s <= 3"))
    return decide(
        exhaustive(fits, _zhu_cases(), describe="m, n <= 4, r <= min(m, n), s <= 3", witness=witness),
        correction=("P = ⌊(L − 1 − max N_0)/s⌋ + 1 (the number of flat window starts ps with ps + max N_0 ≤ L − 1); "
                    "the printed P is one too many whenever s divides L − max N_0", proof),
        correction_crosscheck=(exhaustive(corrected, _zhu_cases(), describe="m, n <= 4, r <= min(m, n), s <= 3")),
        builder_vs_rule=zhu_rows_check(),
    )


#: the §4.2.1 display of W_conv as printed, read row by row: the zeros before each shown row's first kernel entry (rows
#: 0, 1, 2: "k_11 ...", "0 k_11 ...", "0 0 k_11 ...") and the zeros after the last row's last entry k_mn (none: it
#: ends the row); the first row ends in "0 0 ⋯ 0" (some zeros)
WCONV_DISPLAY = {"leading zeros of rows 0, 1, 2": (0, 1, 2), "trailing zeros of the last row": 0}


def _display_rows(m: int, n: int, r: int, display=None) -> int:
    """The number of rows of the §4.2.1 display, read from the display itself (:data:`WCONV_DISPLAY`): row p starts
    ``lead[0] + p·step`` columns in (``step`` the display's shift from row to row), and the rows go on until the last
    one has ``trailing`` zeros after its last kernel entry, at column max N_0 + offset (N_0 of §4.2.1)."""
    display = WCONV_DISPLAY if display is None else display
    lead, trailing = display["leading zeros of rows 0, 1, 2"], display["trailing zeros of the last row"]
    steps = {b - a for a, b in itertools.pairwise(lead)}
    if len(steps) != 1 or min(steps) < 1:
        raise CheckError(f"the display's rows are not evenly shifted: leading zeros {lead}")
    step, L = steps.pop(), m * n
    last_offset = L - 1 - trailing - max(i * n + j for i in range(r) for j in range(r))
    rows, offset = 0, lead[0]
    while offset <= last_offset:  # row by row, as a reader counts them down the display
        rows, offset = rows + 1, offset + step
    return rows


@claim(
    "zhu2025:sec4.2.1/display-vs-p",
    quote="P = ⌊(L − max N_0)/s⌋ + 1 ... [display:] 0 0 0 ⋯ k_11 k_12 ⋯ k_1n 0 0 ⋯ 0 k_21 ⋯ k_mn",
    statement="The §4.2.1 display of W_conv has as many rows as §4.2.1's P counts. Read from the display as printed "
              "(transcribed in WCONV_DISPLAY): rows 0, 1, 2 start after 0, 1, 2 zeros (a shift of one column per row: "
              "stride 1), and the last row ends in its last kernel entry with no zero after it (its last nonzero is "
              "column L − 1); counting rows down the display gives L − max N_0 rows. The reference is P written out "
              "from the formula, corrected for its off-by-one (P = ⌊(L − 1 − max N_0)/s⌋ + 1 at s = 1; proved in "
              "sec4.2.1/p-formula): they agree. The printed formula counts L − max N_0 + 1 rows, one more than the "
              "display on every case (the same off-by-one: one finding, recorded and counted in sec4.2.1/p-formula, "
              "not here). Every image m, n ≤ 4 with kernel 2 ≤ r ≤ min(m, n).",
    methods=["recompute"],
)
def _display_vs_p():
    cases = [(m, n, r) for m in range(2, 5) for n in range(2, 5) for r in range(2, min(m, n) + 1)]
    # the corrected P of sec4.2.1/p-formula (proved there), written out at s = 1
    corrected = {f"P at m={m}, n={n}, r={r}": (m * n - 1 - ((r - 1) * n + r - 1)) // 1 + 1 for m, n, r in cases}
    display = {f"P at m={m}, n={n}, r={r}": _display_rows(m, n, r) for m, n, r in cases}
    printed_formula = {k: (m * n - ((r - 1) * n + r - 1)) // 1 + 1 for k, (m, n, r) in zip(corrected, cases)}
    return compare_printed(display, corrected, kind="inconsistent", stride=1, display_as_read=WCONV_DISPLAY,
                           note="'printed' is the display's row count (read from WCONV_DISPLAY), 'correct' the "
                                "corrected P of sec4.2.1/p-formula; the printed P is one more on every case (its "
                                "off-by-one, counted in sec4.2.1/p-formula)",
                           printed_p_minus_display_rows=sorted({printed_formula[k] - display[k] for k in display}),
                           recomputed_by="the display's rows as transcribed and the corrected P written out above "
                                         "(integer arithmetic in this claim; no isomat builder)")


@claim(
    "zhu2025:sec4.2.1/display",
    quote="( k_11 k_12 ⋯ k_1n 0 0 ⋯ 0 k_21 k_22 ⋯ k_2n ⋯ k_m1 k_m2 ⋯ k_mn 0 0 ⋯ 0 ) ... Kernel = (k_11 ⋯ k_1r; ⋯; "
          "k_r1 ⋯ k_rr)",
    statement="Row 0 of the displayed W_conv, against the paper's own definitions in §4.2.1 (image m×n, kernel r×r, "
              "N_0 = {in + j : 0 ≤ i, j < r}, W_conv[0, x] = w_x): the display's kernel rows end in k_1n, ..., and its "
              "last nonzero is k_mn (image-sized indices), whereas the definitions put k_1r at column r − 1, k_21 at "
              "column n and the last nonzero k_rr at column max N_0, r² nonzeros per row. Recomputed from a loop over "
              "N_0 for the 4×4 image with a 2×2 kernel (the display's printed subscripts instantiated at m = n = 4).",
    methods=["recompute"],
)
def _wconv_display():
    m, n, r = 4, 4, 2
    K = [[sympy.Symbol(f"k{i + 1}{j + 1}") for j in range(r)] for i in range(r)]
    row0 = naive_wconv(m, n, K, 1)[0]
    nz = [(c, v) for c, v in enumerate(row0) if v != 0]
    first_run = [v for c, v in nz if c < n]
    printed = {
        "row 0: last entry of the first kernel row": "k1n = k14",
        "row 0: last nonzero entry": "kmn = k44",
        "row 0: number of nonzeros": m * n,
    }
    recomputed = {
        "row 0: last entry of the first kernel row": f"k1r = {first_run[-1]}",
        "row 0: last nonzero entry": f"krr = {nz[-1][1]}",
        "row 0: number of nonzeros": len(nz),
    }
    return compare_printed(printed, recomputed, kind="misprint", instance={"m": m, "n": n, "r": r},
                           row0_from_definition=[str(v) for v in row0],
                           recomputed_by="naive_wconv (row 0 by a loop over N_0 from §4.2.1's definition)")


@claim(
    "zhu2025:sec4.2.1/upper-triangular",
    quote="left-multiplying with a sparse upper-triangular matrix W_conv ∈ R^{P×L}",
    statement="W_conv as printed (built here by loops: row p holds w_x = k_ij at column x + ps, x = in + j ∈ N_0, "
              "shared weights w_{p,x} = w_x, the printed P rows, columns ≥ L dropped) has W[p, c] = 0 for all c < p. "
              "Proved (Z3) for all m, n >= 1, 1 <= r <= min(m, n), s >= 1: every printed column x + ps with x ∈ N_0 "
              "is >= p, and isomat's entry rule conv.zhu_conv_tap puts no nonzero below the diagonal. Cross-check: "
              "exact, generic kernel (tap t = 1000^t), all m, n ≤ 4, r ≤ min(m, n), s ≤ 3; "
              "isomat.algebra.zhu_conv_matrix is checked equal to the loop build on the same cases."
              + builder_note(ZHU_CONV_BOUND),
    methods=["symbolic", "exhaustive", "exact"],
)
def _upper():
    def ok(c):
        m, n, r, s = c
        D = naive_wconv(m, n, _generic_kernel(r, r).tolist(), s)
        return all(D[i, j] == 0 for i in range(D.shape[0]) for j in range(min(i, D.shape[1])))

    def same_as_isomat(c):
        m, n, r, s = c
        K = _generic_kernel(r, r)
        return bool(np.all(_dense(_conv.zhu_conv_matrix((m, n), sympy.Matrix(K.tolist()), s)) == naive_wconv(m, n, K.tolist(), s)))

    t = exhaustive(ok, _zhu_cases(), describe="m, n <= 4, r <= min(m, n), s <= 3")
    m, n, r, s, p, c, i, j = ints("m n r s p c i j")
    hyp = [m >= 1, n >= 1, r >= 1, r <= m, r <= n, s >= 1, p >= 0]
    fa = "for all m, n >= 1, 1 <= r <= min(m, n), s >= 1, rows p >= 0"
    proof = lambda: [  # noqa: E731
        _proved(i * n + j + p * s >= p, assuming=hyp + [0 <= i, i < r, 0 <= j, j < r], sizes=[m, n, r, s], for_all=fa + ", taps 0 <= i, j < r",
                describe="the printed column x + ps (x = in + j ∈ N_0) of row p is >= p"),
        _proved(z3.Implies(_conv.zhu_conv_tap(p, c, n, r, s) >= 0, c >= p), assuming=hyp + [c >= 0],
                sizes=[m, n, r, s], for_all=fa + ", columns c >= 0",
                describe="isomat's entry rule zhu_conv_tap (tested equal to zhu_conv_matrix in tests/test_conv.py): a "
                         "nonzero entry (p, c) has c >= p")]
    return decide(_settle(proof, lambda: t), exhaustive_crosscheck=t,
                  construction=exhaustive(same_as_isomat, _zhu_cases(), describe="isomat zhu_conv_matrix == loop build, "
                                          "generic kernel"),
                  builder_vs_rule=zhu_conv_builder_check(float_backend()))


@claim(
    "zhu2025:sec4.2.1/equals-convolution",
    quote="the output vector W_cnn X is identical to that produced by standard convolution. This bijective "
          "mapping establishes an algebraic isomorphism",
    statement="Reading most favourable to the paper: shared weights w_{p,x} = w_x (\"each matrix row encodes exactly "
              "the same filter weights\") and the corrected row count P = ⌊(L − 1 − max N_0)/s⌋ + 1 (so the P issue of "
              "sec4.2.1/p-formula is not counted twice). Checked: W_conv (loop build) equals the matrix of the standard "
              "valid r×r convolution with stride s (direct loops over the 2-d output, row-major vec of the "
              "((m−r)/s+1)×((n−r)/s+1) output). Exact, generic kernel, all m, n ≤ 4, r ≤ min(m, n), s ≤ 3, smallest L "
              "first. Evidence also gives the smallest failure with s = 1 and the one with the printed P. The correction (a "
              "row selection) is proved by Z3 for all m, n >= 1, 1 <= r <= min(m, n), s >= 1, every output (i, j) and "
              "column: from the paper's column formula and from isomat's entry rules (conv.zhu_conv_tap, conv.conv2d_tap)."
              + builder_note(ZHU_CONV_BOUND, CONV_BOUND),
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=('image m×n, r×r kernel with 1 <= r <= min(m, n), stride s >= 1 (§4.2.1)',
                lambda c: 1 <= c[2] <= min(c[0], c[1]) and c[3] >= 1),
)
def _equals_conv():
    # the builders against their rules first: a broken one ends the claim here, before the loop builds below
    checks = require(builder_vs_rule=zhu_conv_builder_check(float_backend()),
                     conv_builder_vs_rule=conv_builder_check(float_backend()))

    def P_corr(m, n, r, s):
        return (m * n - 1 - ((r - 1) * n + r - 1)) // s + 1

    def mats(c, printed_P=False):
        m, n, r, s = c
        K = _generic_kernel(r, r).tolist()
        Z = naive_wconv(m, n, K, s, P=None if printed_P else P_corr(m, n, r, s))
        R = naive_conv_matrix(m, n, K, stride=(s, s))
        return Z, R

    def same(c, printed_P=False):
        Z, R = mats(c, printed_P)
        return Z.shape == R.shape and bool(np.all(Z == R))

    def witness(c):
        m, n, r, s = c
        Z, R = mats(c)
        return {"W_conv_rows": Z.shape[0], "convolution_outputs": R.shape[0],
                "W_conv_window_starts": [p * s for p in range(Z.shape[0])],
                "convolution_window_starts": [i * s * n + j * s for i in range((m - r) // s + 1) for j in range((n - r) // s + 1)]}

    def corrected(c):
        m, n, r, s = c
        K = _generic_kernel(r, r)
        R = naive_conv_matrix(m, n, K.tolist(), stride=(s, s))
        o1, o2 = (m - r) // s + 1, (n - r) // s + 1
        sel = [i * n + j for i in range(o1) for j in range(o2)]
        Zi = _dense(_conv.zhu_conv_matrix((m, n), sympy.Matrix(K.tolist()), s))
        return bool(np.all(naive_wconv(m, n, K.tolist(), s)[sel, :] == R)) and bool(np.all(Zi[sel, :] == R))

    cases = _zhu_cases()
    stride1 = exhaustive(same, [c for c in cases if c[3] == 1], describe="s = 1 only, corrected P")
    printedP = exhaustive(lambda c: same(c, True), cases, describe="printed P")
    corr_x = exhaustive(corrected, cases, describe="m, n <= 4, r <= min(m, n), s <= 3; loop build and isomat zhu_conv_matrix")
    return decide(
        exhaustive(same, cases, describe="m, n <= 4, r <= min(m, n), s <= 3, corrected P", witness=witness),
        correction=("Standard valid convolution with 2-d stride s is a row selection of W_conv: output (i, j) is row "
                    "p = i·n + j (window start s(in + j)); the other rows of W_conv are windows that wrap across "
                    "image rows, or (s > 1) start off the 2-d stride grid, and are no convolution output",
                    _row_selection_proof(lambda: corr_x)),
        correction_crosscheck=corr_x,
        **checks,
        stride_1_only=dict(stride1.evidence, counterexample=stride1.counterexample),
        with_printed_P=dict(printedP.evidence, counterexample=printedP.counterexample),
    )


def _valid_conv_vars():
    """Symbols and hypotheses of a valid r×r convolution with stride s on an m×n image, output pixel (i, j),
    input pixel (u, v) (column c = un + v), tap (a, b)."""
    m, n, r, s, i, j, u, v, a, b = ints("m n r s i j u v a b")
    o1, o2 = fdiv(m - r, s) + 1, fdiv(n - r, s) + 1
    hyp = [m >= 1, n >= 1, r >= 1, r <= m, r <= n, s >= 1, 0 <= i, i < o1, 0 <= j, j < o2, 0 <= u, u < m, 0 <= v, v < n]
    fa = ("for all m, n >= 1, 1 <= r <= min(m, n), s >= 1, outputs 0 <= i < ⌊(m−r)/s⌋+1, 0 <= j < ⌊(n−r)/s⌋+1, "
          "input pixels 0 <= u < m, 0 <= v < n (column c = un + v)")
    return (m, n, r, s, i, j, u, v, a, b), o1, o2, hyp, fa


def _row_selection_proof(fallback):
    """zhu2025 §4.2.1 corrected: output (i, j) of the valid stride-s convolution is row p = in + j of W_conv."""
    (m, n, r, s, i, j, u, v, a, b), o1, o2, hyp, fa = _valid_conv_vars()
    c, p = u * n + v, i * n + j
    mx = (r - 1) * n + (r - 1)
    O2 = fdiv(n + 2 * 0 - 1 * (r - 1) - 1, s) + 1  # the O_2 term of conv2d_tap at padding 0, dilation 1
    du, dv = u - i * s, v - j * s
    steps = lambda: [  # noqa: E731
        _proved(p < fdiv(m * n - 1 - mx, s) + 1, assuming=hyp, sizes=[m, n, r, s], for_all=fa,
                describe="row p = in + j exists: p < P = ⌊(L − 1 − max N_0)/s⌋ + 1 (<= the printed P)"),
        _proved(a * n + b + p * s == (i * s + a) * n + (j * s + b), assuming=hyp, sizes=[m, n, r, s], for_all=fa + ", taps (a, b)",
                describe="the paper's column x + ps of tap x = an + b in row p = in + j is the flat index of the pixel "
                         "(is + a, js + b) that the convolution's output (i, j) reads with tap (a, b)"),
        _proved(_conv.zhu_conv_tap(p, c, n, r, s) == _conv.conv2d_tap(i * o2 + j, c, m, n, r, r, stride=(s, s)),
                assuming=hyp, sizes=[m, n, r, s], for_all=fa,
                describe="isomat's entry rules agree on every column: zhu_conv_tap at row in + j equals conv2d_tap "
                         "(stride s, no padding) at output row i·o2 + j (both tested equal to their builders)",
                lemmas=[FLATTEN_DIV_MOD.at(u, v, n), FLATTEN_DIV_MOD.at(du, dv, n), FLATTEN_DIV_MOD.at(du - 1, dv + n, n),
                        FLATTEN_DIV_MOD.at(i, j, O2)]),
    ]
    return _settle(steps, fallback)


@claim(
    "zhu2025:sec4.1/data2matrix-shapes",
    quote="Multivariate sequences place each observation vector as a row then transpose into a column-wise matrix ... "
          "temporal sequences maintain a Times d layout and token-embedding matrices remain n × d",
    statement="The shape Data2Matrix gives a T-step, d-variate series and an n-token, d-dimensional text: §4.1.1 "
              "builds the matrix with one observation (token) per row and then transposes it, giving d×T (d×n); "
              "§4.1.2 says the series keeps a T×d layout and the token matrix stays n×d, and §4.3 uses X = [x_0, …, "
              "x_{m−1}]^T ∈ R^{m×n}, one step per row. Recomputed with NumPy for T = 5 steps, n = 4 tokens, d = 3 "
              "(distinct sizes); §4.1.1's displayed Series and Text are n×n (s_{11} … s_{nn}), which fits neither.",
    methods=["recompute"],
)
def _data2matrix():
    T, n, d = 5, 4, 3
    series_rows = np.arange(T * d).reshape(T, d)   # one observation s_t per row
    text_rows = np.arange(n * d).reshape(n, d)     # one token embedding per row
    printed = {"series (§4.1.1: rows, then transposed)": list(series_rows.T.shape),
               "text (§4.1.1: rows, then transposed)": list(text_rows.T.shape)}
    recomputed = {"series (§4.1.1: rows, then transposed)": [T, d], "text (§4.1.1: rows, then transposed)": [n, d]}
    return compare_printed(printed, recomputed, kind="inconsistent", sizes={"T": T, "n": n, "d": d},
                           versus="§4.1.2's T×d and n×d (and §4.3's X ∈ R^{m×n} with one step per row)",
                           displayed_series_and_text="n×n",
                           # §4.1.1's procedure (rows, then transposed) on NumPy shapes against §4.1.2's printed shapes
                           recomputed_by="NumPy's transpose of the row layout §4.1.1 describes")


@claim(
    "zhu2025:sec4.2.1/bijective",
    quote="This bijective mapping establishes an algebraic isomorphism: both operations realize equivalent linear "
          "transformations on the input space",
    statement="Two readings of 'bijective'. Kernel ↔ matrix (headline; the sentence pairs the matrix with the "
              "convolution it reproduces): kernel ↦ W_cnn (valid convolution) is one-to-one -- proved (Z3) for every "
              "m, n >= r on the entry rule conv2d_tap (every tap has an entry in row 0; named axiom: disjoint supports "
              "are independent); cross-check: rank of the r² unit-kernel matrices by direct loops is r², all m, n ≤ 4, "
              "r ≤ min(m, n). Literal: X ↦ W_cnn vec X is a bijection "
              "of R^{mn} -- W_cnn has P = (m − r + 1)(n − r + 1) rows, fewer than mn once r >= 2, so it is not "
              "(minimal: 2×2 image, 2×2 kernel); the same holds for §4.2.2's W_pool ('algebraic isomorphism'), Q = "
              "L/p² < L rows (recorded as evidence)."
              + builder_note(CONV_BOUND),
    methods=["exhaustive", "exact"],
    hypotheses=("image m×n, r×r kernel with 1 <= r <= min(m, n), no padding, stride 1",
                lambda c: 1 <= c[2] <= min(c[0], c[1])),
)
def _bijective():
    cases = sorted([(m, n, r) for m in range(1, 5) for n in range(1, 5) for r in range(1, min(m, n) + 1)],
                   key=lambda c: (c[0] * c[1], c[2], c))

    def unit(r, a, b):
        return [[1 if (i, j) == (a, b) else 0 for j in range(r)] for i in range(r)]

    def kmap(c):
        m, n, r = c
        return sympy.Matrix([list(naive_conv_matrix(m, n, unit(r, a, b)).reshape(-1))
                             for a in range(r) for b in range(r)]).rank() == r * r

    def generic_rank(c):
        m, n, r = c
        return sympy.Matrix(naive_conv_matrix(m, n, _generic_kernel(r, r).tolist()).tolist()).rank()

    literal = exhaustive(lambda c: generic_rank(c) == c[0] * c[1], cases,
                         describe="m, n <= 4, r <= min(m, n), generic integer kernel",
                         witness=lambda c: {"rows": (c[0] - c[2] + 1) * (c[1] - c[2] + 1), "columns": c[0] * c[1],
                                            "rank": generic_rank(c)})
    pool_rank = sympy.Matrix([[1 if (c // 4) // 2 == q // 2 and (c % 4) // 2 == q % 2 else 0 for c in range(16)]
                              for q in range(4)]).rank()
    kx = exhaustive(kmap, cases, describe="m, n <= 4, r <= min(m, n), unit kernels")

    def every_tap():
        m, n, r, a, b = ints("m n r a b")
        col = a * n + b
        t = _proved(z3.And(0 <= col, col < m * n, _conv.conv2d_tap(0, col, m, n, r, r) == a * r + b),
                    assuming=[1 <= r, r <= m, r <= n, 0 <= a, a < r, 0 <= b, b < r],
                    sizes=[m, n, r], for_all="for all m, n >= r >= 1 and every tap 0 <= a, b < r",
                    lemmas=[FLATTEN_DIV_MOD.at(a, b, n), prover.FLAT_INDEX_RANGE.at(a, b, n, m)],
                    describe="valid convolution (entry rule conv2d_tap, padding 0, stride 1): tap (a, b) is the tap of "
                             "entry (0, a·n + b), so every unit kernel maps to a nonzero matrix")
        # each entry holds one tap (conv2d_tap is a function), so the unit kernels' images have disjoint supports
        return t.with_evidence(axioms=[{"name": "disjoint-supports-independent",
                                        "statement": "nonzero matrices with pairwise disjoint supports are linearly "
                                                     "independent, so a linear map sending the unit kernels to them is "
                                                     "one-to-one"}])

    return by_readings(
        Reading("kernel-matrix correspondence", "kernel ↦ W_cnn is one-to-one -- proved (Z3) for every m, n >= r >= 1 on "
                "the entry rule conv2d_tap (every tap is the tap of an entry of row 0), with the named axiom that "
                "nonzero matrices of disjoint supports are independent; cross-check: rank of the unit-kernel matrices "
                "by direct loops, m, n <= 4.",
                decide(_settle(every_tap, lambda: kx), exhaustive_crosscheck=kx,
                       builder_vs_rule=conv_builder_check(float_backend()))),
        Reading("literal: X ↦ W_cnn vec X", "X ↦ W_cnn vec X is a bijection of R^{mn}.",
                decide(literal, w_pool_4x4_p2_rank_vs_L=[pool_rank, 16])),
    )


@claim(
    "zhu2025:sec4.2/upper-triangular",
    quote="[abstract:] Convolution is realized via an upper-triangular weight matrix [§4.2:] left-multiplying the "
          "flattened input vector by an upper-triangular weight matrix W_cnn",
    statement="Reading of §4.2 (the convolution §4.2.1 constructs: single channel, no padding, 'valid'): the matrix of "
              "a standard single-channel 2-d convolution (direct loops, row-major vec of input and 2-d output, generic "
              "r×r kernel) with stride s has W[row, c] = 0 for c < row. All H, W ≤ 4, r ≤ min(H, W), s ≤ 3, smallest "
              "first. The verdict depends on the reading: with the zero padding ⌊K/2⌋ of Theorem 4.1 it fails for padded "
              "convolution (reading 'padded convolution', minimal counterexample over H, W <= 3 with H, W >= K "
              "(Assumption 4.2's K×K patch inside the grid), K in {1, 3}, stride <= 2); "
              "the paper never calls that matrix upper-triangular (it calls it banded). Proved (Z3) for all m, n >= 1, 1 <= r <= min(m, n), s >= 1: by direct index "
              "arithmetic (output (i, j) reads column (is + a)n + js + b >= i·o2 + j) and for isomat's entry rule "
              "conv.conv2d_tap; the loop build above is the cross-check."
              + builder_note(CONV_BOUND),
    methods=["symbolic", "exhaustive", "exact"],
    hypotheses=("image H×W, K×K kernel with K <= min(H, W) (§4.2.1's valid convolution; with Theorem 4.1's padding "
                "⌊K/2⌋, Assumption 4.2's K×K patch inside the H×W grid), stride s >= 1",
                lambda c: c[4] >= 1 and 1 <= c[2] <= min(c[0], c[1])),
)
def _upper_padded():
    def upper(c):
        H, W, K, p, s = c
        M = naive_conv_matrix(H, W, _generic_kernel(K, K).tolist(), stride=(s, s), pad=(p, p))
        return all(M[i, j] == 0 for i in range(M.shape[0]) for j in range(min(i, M.shape[1])))

    valid = sorted([(H, W, K, 0, s) for H in range(1, 5) for W in range(1, 5) for K in range(1, min(H, W) + 1)
                    for s in (1, 2, 3)], key=lambda c: (c[0] * c[1], c[2], c[4], c))
    padded = sorted([(H, W, K, K // 2, s) for H in range(1, 4) for W in range(1, 4) for K in (1, 3) for s in (1, 2)
                     if H >= K and W >= K], key=lambda c: (c[0] * c[1], c[2], c[3], c[4], c))
    pad = exhaustive(upper, padded, describe="H, W <= 3 with H, W >= K, K in {1,3}, zero padding K//2, stride <= 2",
                     witness=lambda c: {"W": naive_conv_matrix(c[0], c[1], _symbolic_kernel(c[2], c[2]), stride=(c[4],) * 2,
                                                              pad=(c[3],) * 2)})
    (m, n, r, s, i, j, u, v, a, b), o1, o2, hyp, fa = _valid_conv_vars()
    row, c = i * o2 + j, u * n + v
    O2 = fdiv(n + 2 * 0 - 1 * (r - 1) - 1, s) + 1  # the O_2 term of conv2d_tap at padding 0, dilation 1
    proof = lambda: [  # noqa: E731
        _proved((i * s + a) * n + (j * s + b) >= i * o2 + j, assuming=hyp + [0 <= a, a < r, 0 <= b, b < r],
                sizes=[m, n, r, s], for_all=fa + ", taps 0 <= a, b < r",
                describe="direct index arithmetic: output (i, j) (row i·o2 + j) reads pixel (is + a, js + b), whose "
                         "column (is + a)n + js + b is >= the row"),
        _proved(z3.Implies(_conv.conv2d_tap(row, c, m, n, r, r, stride=(s, s)) >= 0, c >= row), assuming=hyp, sizes=[m, n, r, s], for_all=fa,
                describe="isomat's entry rule conv2d_tap (stride s, no padding; tested equal to conv_matrix): a nonzero "
                         "entry (row, c) has c >= row",
                lemmas=[FLATTEN_DIV_MOD.at(u, v, n), FLATTEN_DIV_MOD.at(i, j, O2)])]
    ex = exhaustive(upper, valid, describe="H, W <= 4, r <= min(H, W), padding 0, stride <= 3")
    return by_readings(
        Reading("valid convolution (§4.2.1)", "The convolution §4.2.1 constructs (no padding): W[row, c] = 0 for c < row.",
                decide(_settle(proof, lambda: ex), exhaustive_crosscheck=ex,
                       builder_vs_rule=conv_builder_check(float_backend()))),
        Reading("padded convolution (Theorem 4.1, Assumption 4.3)", "With the zero padding ⌊K/2⌋ of Theorem 4.1 the "
                "convolution matrix is upper-triangular: it is not (a tap lands below the diagonal).", decide(pad)),
    )


# ---------------------------------------------------------------------------------------------
# §4.2.2 pooling
# ---------------------------------------------------------------------------------------------

def _window_hypotheses(ma, nb, p, I, J, a, b):
    """Sizes, window and offset ranges of p×p average pooling with stride p, and their for_all text."""
    hyp = [ma >= 1, nb >= 1, p >= 1, 0 <= I, I < ma, 0 <= J, J < nb, 0 <= a, a < p, 0 <= b, b < p]
    fa = ("for all p >= 1, m = p·m', n = p·n' (m', n' >= 1), windows 0 <= I < m/p, 0 <= J < n/p (output q = I·(n/p) + J), "
          "offsets 0 <= a, b < p")
    return hyp, fa


def _row_major_window_proofs():
    """Z3, for every size: row q of the row-major pooling matrix, W[q, (p⌊q/(n/p)⌋ + a)n + p(q mod n/p) + b] = 1/p²,
    holds 1/p² on exactly the p² pixels that average pooling's output q reads (the columns are those pixels, inside
    [0, L), and pairwise distinct).  Used by the index formula's correction and by the isomorphism's same-map
    reading (two claims, two proof runs of the same statement)."""
    ma, nb, p, I, J, a, b, a2, b2 = ints("ma nb p I J a b a2 b2")
    m, n = p * ma, p * nb
    hyp, fa = _window_hypotheses(ma, nb, p, I, J, a, b)
    q, pix = I * nb + J, (p * I + a) * n + p * J + b  # output q of the direct loop reads pixel (pI + a, pJ + b)
    col = (p * fdiv(q, fdiv(n, p)) + a) * n + p * fmod(q, fdiv(n, p)) + b
    return [
        _proved(z3.And(col == pix, 0 <= col, col < m * n), assuming=hyp, sizes=[ma, nb, p], for_all=fa,
                describe="row-major formula: column (p⌊q/(n/p)⌋ + a)n + p(q mod n/p) + b of row q is the pixel (pI + a, "
                         "pJ + b) that average pooling's output q = I·(n/p) + J reads, inside [0, L)",
                lemmas=[FLATTEN_DIV_MOD.at(I, J, nb), FLATTEN_DIV_MOD.at(nb, 0, p)]),
        _proved(z3.Implies((p * I + a) * n + p * J + b == (p * I + a2) * n + p * J + b2, z3.And(a == a2, b == b2)),
                assuming=hyp + [0 <= a2, a2 < p, 0 <= b2, b2 < p], sizes=[ma, nb, p], for_all=fa,
                describe="the p² columns of row q are distinct (so row q is 1/p² on exactly the window's p² pixels)",
                lemmas=[prover.DIGITS_UNIQUE.at(p * I + a, p * J + b, p * I + a2, p * J + b2, n)]),
    ]

def _avgpool_rule_proofs():
    """Z3, for every size: isomat's average pooling (avgpool_matrix, window p, stride p; its entry rule is conv2d_tap
    with KH = KW = p, stride (p, p), no padding, checked against the builder) has, in row q = I·(n/p) + J, a tap at
    exactly the p² pixels of window q -- the same support as the row-major W_pool, so both are the same map."""
    ma, nb, p, I, J, a, b, col = ints("ma nb p I J a b col")
    m, n = p * ma, p * nb
    hyp, fa = _window_hypotheses(ma, nb, p, I, J, a, b)
    q = I * nb + J
    tap = lambda c: _conv.conv2d_tap(q, c, m, n, p, p, stride=(p, p))  # noqa: E731
    hyp2 = [ma >= 1, nb >= 1, p >= 1, 0 <= I, I < ma, 0 <= J, J < nb, 0 <= col, col < m * n]
    u, v = fdiv(col, n), fmod(col, n)
    return [
        _proved(tap((p * I + a) * n + p * J + b) == a * p + b, assuming=hyp, sizes=[ma, nb, p], for_all=fa,
                describe="isomat's average pooling (entry rule conv2d_tap, window = stride = p): row q holds tap (a, b) "
                         "at the pixel (pI + a, pJ + b) of window q",
                lemmas=[FLATTEN_DIV_MOD.at(I, J, nb), FLATTEN_DIV_MOD.at(nb - 1, 0, p),
                        FLATTEN_DIV_MOD.at(p * I + a, p * J + b, n), FLATTEN_DIV_MOD.at(ma, 0, p)]),
        _proved(z3.Implies(tap(col) >= 0, z3.And(p * I <= u, u < p * I + p, p * J <= v, v < p * J + p)), assuming=hyp2,
                sizes=[ma, nb, p], for_all=fa.split(", offsets")[0] + ", columns 0 <= col < mn",
                describe="and nowhere else: a tap in row q lies on a pixel of window q",
                lemmas=[FLATTEN_DIV_MOD.at(I, J, nb), FLATTEN_DIV_MOD.at(nb - 1, 0, p), prover.DIV_MOD_RECOMPOSE.at(col, n)]),
    ]


def _pool_cases(bound=6):
    return sorted([(m, n, p) for m in range(1, bound + 1) for n in range(1, bound + 1) for p in range(2, 4)
                   if (m * n) % (p * p) == 0], key=lambda c: (c[0] * c[1], c))


@claim(
    "zhu2025:sec4.2.2/q",
    quote="W_pool ∈ R^{Q×L} where L = m × n, Q = L/p^2",
    statement="Reading most favourable to the paper: the rows of W_pool are 'non-overlapping pooling windows' that "
              "cover every pixel once (the display), i.e. p×p windows tile the image, p | m and p | n. Then Q = L/p² "
              "equals the number of outputs of p×p average pooling with stride p (direct loops). All m, n ≤ 6 divisible "
              "by p ∈ {2, 3}. The verdict depends on the reading: when only p² | mn (the formula's own integrality "
              "condition) Q counts windows that do not exist (reading 'only p² | L', refuted, minimal counterexample); "
              "in general the count is ⌊m/p⌋·⌊n/p⌋. Proved (Z3) for all p >= 2 and m, n multiples of p: "
              "L/p² = ⌊m/p⌋·⌊n/p⌋ (the direct loop's window count); cross-check: loops, m, n <= 6."
              + builder_note(POOL_BOUND),
    methods=["symbolic", "exhaustive", "exact"],
    hypotheses=("p×p windows with stride p, Q = L/p² an integer", lambda c: c[2] >= 2 and (c[0] * c[1]) % (c[2] ** 2) == 0),
)
def _pool_q():
    def ok(c):
        m, n, p = c
        return (m * n) // (p * p) == len(_flat(naive_avgpool([[0] * n for _ in range(m)], p)))

    def general(c):
        m, n, p = c
        return (m // p) * (n // p) == len(_flat(naive_avgpool([[0] * n for _ in range(m)], p)))

    weak = exhaustive(ok, _pool_cases(), describe="m, n <= 6, p in {2,3}, p^2 | mn",
                      witness=lambda c: {"Q_printed": c[0] * c[1] // c[2] ** 2, "windows": (c[0] // c[2]) * (c[1] // c[2])})
    floor = exhaustive(general, [(m, n, p) for m in range(1, 7) for n in range(1, 7) for p in (2, 3)],
                       describe="floor(m/p) floor(n/p), all m, n <= 6, p in {2,3}")
    ex = exhaustive(ok, [c for c in _pool_cases() if c[0] % c[2] == 0 and c[1] % c[2] == 0],
                    describe="m, n <= 6, p in {2,3}, p | m, p | n")
    ma, nb, p = ints("ma nb p")
    m, n = p * ma, p * nb
    proof = _proved(fdiv(m * n, p * p) == fdiv(m, p) * fdiv(n, p), assuming=[ma >= 1, nb >= 1, p >= 2],
                    sizes=[ma, nb, p], for_all="for all p >= 2 and m = p·a, n = p·b with a, b >= 1 (p | m, p | n)",
                    describe="Q = L/p² = ⌊m/p⌋·⌊n/p⌋, the number of outputs of p×p pooling with stride p (the direct "
                             "loop runs over ⌊m/p⌋ × ⌊n/p⌋ windows)",
                    lemmas=[FLATTEN_DIV_MOD.at(ma * nb, 0, p * p), FLATTEN_DIV_MOD.at(ma, 0, p), FLATTEN_DIV_MOD.at(nb, 0, p)],
                    fallback=lambda: ex)
    return by_readings(
        Reading("windows tile the image (p | m, p | n)", "The rows are non-overlapping p×p windows covering every "
                "pixel once: Q = L/p² windows.", decide(proof, exhaustive_crosscheck=ex,
                                                        builder_vs_rule=pool_builder_check(float_backend()),
                                                        general_count=floor)),
        Reading("only p² | L", "Q = L/p² whenever it is an integer.", decide(weak)),
    )


@claim(
    "zhu2025:sec4.2.2/display",
    quote="W_pool = ( 1/p² 1/p² ⋯ 1/p² 0 0 ⋯ 0 1/p² 1/p² ⋯ 1/p² 0 0 ⋯ 0 ⋯ ; 0 0 ⋯ 0 1/p² ⋯ ) ... "
          "W_pool[q, qp^2 + r] = 1/p^2, r = 0,…,p^2 − 1",
    statement="The displayed W_pool is the matrix of row-major average pooling: its row 0 holds p runs of p entries "
              "1/p², separated by n − p zeros (the display's '1/p² ⋯ 1/p² 0 ⋯ 0 1/p² ⋯'). Two readings. Against "
              "average pooling (headline): proved (Z3) for all p and all m, n multiples of p with n > p, a column of "
              "row 0 is in one of the display's runs iff its pixel is in the first pooling window; cross-check: row 0 "
              "of the pooling matrix built by direct loops on unit images has exactly that pattern for every m, "
              "n ≤ 6 with p ∈ {2, 3} dividing both and n > p. Against the printed "
              "index formula W_pool[q, qp² + r] = 1/p²: the formula gives row 0 a single run of p² consecutive "
              "columns, so display and formula disagree -- the formula is the wrong one (sec4.2.2/index-formula)."
              + builder_note(AVGPOOL_BOUND),
    methods=["symbolic", "recompute", "exhaustive"],
    hypotheses=("p divides m and n, n > p", lambda c: c[0] % c[2] == 0 and c[1] % c[2] == 0 and c[1] > c[2]),
)
def _pool_display():
    cases = [c for c in _pool_cases() if c[0] % c[2] == 0 and c[1] % c[2] == 0 and c[1] > c[2]]

    def runs(cols):
        cols = sorted(cols)
        return 1 + sum(1 for a, b in itertools.pairwise(cols) if b != a + 1) if cols else 0

    def formula_row0(c):
        """Columns of row q = 0 under the printed W_pool[q, qp² + r] = 1/p²."""
        p, q = c[2], 0
        return [q * p * p + r for r in range(p * p)]

    def pooling_row0(c):
        m, n, p = c
        out = []
        for col in range(m * n):
            X = [[1 if i * n + j == col else 0 for j in range(n)] for i in range(m)]
            if _flat(naive_avgpool(X, p))[0] != 0:
                out.append(col)
        return out

    def display_pattern(c):
        m, n, p = c
        return [i * n + j for i in range(p) for j in range(p)]  # p runs of p columns, gaps n - p

    pooling_x = exhaustive(lambda c: pooling_row0(c) == display_pattern(c), cases,
                           describe="m, n <= 6, p in {2,3} | m, n, n > p: row 0 of average pooling (loops)",
                           witness=lambda c: {"pooling_row0": pooling_row0(c), "display_row0": display_pattern(c)})
    ma, nb, p, col, k, r = ints("ma nb p col k r")
    m, n = p * ma, p * nb
    hyp = [ma >= 1, nb >= 2, p >= 1]
    fa = "for all p >= 1, m = p·m' (m' >= 1), n = p·n' (n' >= 2, so n > p)"

    def in_window0(c):  # average pooling's output 0 reads the row-major pixel (⌊c/n⌋, c mod n) iff it is in window (0, 0)
        return z3.And(0 <= c, c < m * n, fdiv(fdiv(c, n), p) == 0, fdiv(fmod(c, n), p) == 0)

    # the display's row 0: p runs of p entries, each followed by n − p zeros, so run k covers columns [k·n, k·n + p)
    steps = lambda: [  # noqa: E731
        _proved(in_window0(k * n + r), assuming=hyp + [0 <= k, k < p, 0 <= r, r < p],
                sizes=[ma, nb, p], for_all=fa + ", runs 0 <= k < p, offsets 0 <= r < p",
                describe="every column k·n + r of the display's runs (k, r < p) is a pixel of pooling window (0, 0)",
                lemmas=[FLATTEN_DIV_MOD.at(k, r, n)]),
        _proved(z3.Implies(in_window0(col), z3.And(fdiv(col, n) < p, fdiv(col, n) * n <= col,
                                                   col < fdiv(col, n) * n + p)),
                assuming=hyp, sizes=[ma, nb, p], for_all=fa + ", columns col",
                describe="every column whose pixel is in window (0, 0) lies in run k = ⌊col/n⌋ < p of the display",
                lemmas=[prover.DIV_MOD_RECOMPOSE.at(col, n)]),
    ]
    pooling = decide(_settle(steps, lambda: pooling_x), crosscheck=pooling_x,
                     builder_vs_rule=avgpool_builder_check(float_backend()))
    printed = {"row 0 has more than one run of 1/p^2": 1}
    recomputed = {"row 0 has more than one run of 1/p^2": int(any(runs(formula_row0(c)) > 1 for c in cases))}
    formula = compare_printed(printed, recomputed, kind="inconsistent", sizes="m, n <= 6, p in {2,3} | m, n, n > p",
                              cases=len(cases),
                              row0_runs_formula={str(c): runs(formula_row0(c)) for c in cases[:3]},
                              row0_runs_average_pooling={str(c): runs(pooling_row0(c)) for c in cases[:3]})
    return by_readings(
        Reading("against average pooling", "The display's row pattern is that of row-major average pooling.", pooling),
        Reading("against the index formula", "The display and the printed W_pool[q, qp² + r] = 1/p² describe the same "
                "matrix (they do not: the formula is wrong, see sec4.2.2/index-formula).", formula),
    )


@claim(
    "zhu2025:sec4.2.2/index-formula",
    quote="Each row q of W_pool contains constant entries W_pool[q, qp^2 + r] = 1/p^2, r = 0,…,p^2 − 1 ... "
          "Y = W_pool X yields the same downsampled output as classical average pooling",
    statement="With X the row-major vec of an m×n image (Assumption 4.1), W_pool X (isomat.algebra.zhu_pool_matrix, "
              "as printed) equals p×p average pooling with stride p (direct loops), exactly, with a generic image; "
              "all m, n ≤ 6 divisible by p ∈ {2, 3}, smallest L first. The correction is proved (Z3) for all p >= 1 and "
              "m, n multiples of p: the row-major formula's columns of row q are exactly the p² pixels of window q, and "
              "under isomat's patch-major listing (entry rule pool.patch_major_pixel) position qp² + r is the same "
              "pixel; cross-check: loops and isomat's zhu_pool_matrix, m, n <= 6."
              + builder_note(POOL_BOUND),
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=('p×p windows with stride p, Q = L/p² (p² divides L = mn)',
                lambda c: c[2] >= 2 and (c[0] * c[1]) % (c[2] * c[2]) == 0),
)
def _pool_index():
    cases = [c for c in _pool_cases() if c[0] % c[2] == 0 and c[1] % c[2] == 0]

    def check(flattening):
        def ok(c):
            m, n, p = c
            X = [[BASE ** (i * n + j) for j in range(n)] for i in range(m)]
            Wp = _dense(_pool.zhu_pool_matrix((m, n), p, flattening=flattening, backend="sympy"))
            got = list(Wp.dot(np.array(_flat(X), dtype=object)))
            return got == _flat(naive_avgpool(X, p))
        return ok

    def printed_by_loops(c):
        """The printed W_pool[q, qp² + r] = 1/p² built by loops, applied to the row-major vec."""
        m, n, p = c
        X = [[BASE ** (i * n + j) for j in range(n)] for i in range(m)]
        x = _flat(X)
        got = [sum(Fraction(1, p * p) * x[q * p * p + r] for r in range(p * p)) for q in range(m * n // (p * p))]
        return got == _flat(naive_avgpool(X, p))

    def isomat_is_printed(c):
        m, n, p = c
        Wp = _dense(_pool.zhu_pool_matrix((m, n), p, backend="sympy"))
        ref = np.zeros((m * n // (p * p), m * n), dtype=object)
        for q in range(ref.shape[0]):
            for r in range(p * p):
                ref[q, q * p * p + r] = Fraction(1, p * p)
        return bool(np.all(Wp == ref))

    def row_major_formula(c):
        m, n, p = c
        X = [[BASE ** (i * n + j) for j in range(n)] for i in range(m)]
        x = _flat(X)
        q_per_row = n // p
        got = [sum(Fraction(1, p * p) * x[(p * (q // q_per_row) + a) * n + p * (q % q_per_row) + b]
                   for a in range(p) for b in range(p)) for q in range((m // p) * q_per_row)]
        return got == _flat(naive_avgpool(X, p))

    corr_x = all_of(exhaustive(check("patch-major"), cases, describe="patch-major, m, n <= 6, p | m, n"),
                    exhaustive(row_major_formula, cases, describe="row-major index formula, m, n <= 6"))
    ma, nb, p, I, J, a, b = ints("ma nb p I J a b")
    m, n = p * ma, p * nb
    hyp, fa = _window_hypotheses(ma, nb, p, I, J, a, b)
    q, pix = I * nb + J, (p * I + a) * n + p * J + b
    steps = lambda: _row_major_window_proofs() + [  # noqa: E731
        _proved(_pool.patch_major_pixel(q * (p * p) + a * p + b, n, p) == pix, assuming=hyp, sizes=[ma, nb, p], for_all=fa,
                describe="patch-major reading: position q·p² + (ap + b) of isomat's patch-major listing (entry rule "
                         "pool.patch_major_pixel, tested equal to patch_major_order) is that same pixel, so the printed "
                         "W_pool[q, qp² + r] averages window q",
                lemmas=[FLATTEN_DIV_MOD.at(q, a * p + b, p * p), FLATTEN_DIV_MOD.at(I, J, nb), FLATTEN_DIV_MOD.at(a, b, p),
                        FLATTEN_DIV_MOD.at(nb, 0, p)]),
    ]
    corrected = _settle(steps, lambda: corr_x)
    return decide(
        exhaustive(printed_by_loops, cases, describe="m, n <= 6, p in {2,3}, p | m, p | n",
                   witness=lambda c: {"row_0_columns_printed": list(range(c[2] ** 2)),
                                      "row_0_columns_pooling": [a * c[1] + b for a in range(c[2]) for b in range(c[2])]}),
        correction=("The index formula holds for a patch-major flattening (pixels listed window by window); for the "
                    "row-major vec of Assumption 4.1 the entries are W[q, (p⌊q/(n/p)⌋ + a)n + p(q mod n/p) + b] = 1/p², "
                    "0 ≤ a, b < p", corrected),
        correction_crosscheck=corr_x,
        construction=exhaustive(isomat_is_printed, cases, describe="isomat zhu_pool_matrix == loop build of the "
                                "printed formula"),
        builder_vs_rule=pool_builder_check(float_backend()),
        printed_matrix_via_isomat=dict(exhaustive(check("row-major"), cases, describe="same check with isomat "
                                                  "zhu_pool_matrix").evidence),
    )


@claim(
    "zhu2025:sec4.2.2/isomorphism",
    quote="yields the same downsampled output as classical average pooling. This construction establishes an "
          "algebraic isomorphism between matrix-based pooling and standard layer operations",
    statement="Two readings of 'algebraic isomorphism' for W_pool. Same map (headline): the displayed W_pool (row q = "
              "the q-th p×p window in row-major order, entries 1/p²) times vec X equals average pooling, proved (Z3) "
              "for all p >= 1 and m, n multiples of p; cross-check by direct loops on every unit image, all m, n ≤ 6 "
              "with p ∈ {2, 3} dividing both. Literal: X ↦ W_pool vec X is "
              "a bijection of R^L -- W_pool has Q = L/p² < L rows, so it is not (minimal: 2×2 image, p = 2)."
              + builder_note(AVGPOOL_BOUND),
    methods=["symbolic", "exhaustive", "exact"],
    hypotheses=("p×p windows with stride p, p divides m and n", lambda c: c[0] % c[2] == 0 and c[1] % c[2] == 0),
)
def _pool_isomorphism():
    cases = [c for c in _pool_cases() if c[0] % c[2] == 0 and c[1] % c[2] == 0]

    def display_matrix(c):
        m, n, p = c
        Wd = [[0] * (m * n) for _ in range((m // p) * (n // p))]
        for q in range(len(Wd)):
            a, b = divmod(q, n // p)
            for i in range(p):
                for j in range(p):
                    Wd[q][(a * p + i) * n + b * p + j] = Fraction(1, p * p)
        return Wd

    def same(c):
        m, n, p = c
        Wd = display_matrix(c)
        for col in range(m * n):
            X = [[1 if i * n + j == col else 0 for j in range(n)] for i in range(m)]
            if [row[col] for row in Wd] != _flat(naive_avgpool(X, p)):
                return False
        return True

    literal = exhaustive(lambda c: sympy.Matrix(display_matrix(c)).rank() == c[0] * c[1], cases,
                         describe="m, n <= 6, p in {2,3} | m, n",
                         witness=lambda c: {"rows": (c[0] // c[2]) * (c[1] // c[2]), "L": c[0] * c[1]})
    same_x = exhaustive(same, cases, describe="m, n <= 6, p in {2,3} | m, n, unit images (loops)")
    same_map = _settle(lambda: _row_major_window_proofs() + _avgpool_rule_proofs(), lambda: same_x)
    return by_readings(
        Reading("same map", "W_pool vec X is average pooling of X: proved (Z3) for all p >= 1 and m, n multiples of p "
                "(row q of the display holds 1/p² on exactly the p² pixels of window q); cross-check by loops on unit "
                "images, m, n <= 6.", decide(same_map, crosscheck=same_x,
                                                 builder_vs_rule=avgpool_builder_check(float_backend()))),
        Reading("literal: bijection", "X ↦ W_pool vec X is a bijection of R^L.", decide(literal)),
    )


@claim(
    "zhu2025:sec4.2.2/max-pooling",
    quote="Max or average pooling can likewise be expressed as a sparse matrix multiplication",
    statement="Max pooling (p×p windows, stride p) is additive, as any matrix multiplication is: "
              "maxpool(x + y) = maxpool(x) + maxpool(y), tested exhaustively for 2×2 images and p = 2 over "
              "x, y ∈ {−1, 0, 1}^4 in order of increasing |x| + |y|. The correction S(x)·x is checked exactly on every "
              "weak order of the values of a window (the arg-max selection depends on nothing else): the 75 weak orders "
              "of a 2×2 image, and 75 4×4 images in which every window runs through all 75 orders.",
    methods=["exhaustive", "exact"],
    hypotheses=('one 2×2 window (p = 2): images of L = 4 pixels',
                lambda c: len(c) == 2 and all(len(x) == 4 for x in c)),
)
def _maxpool():
    vecs = sorted(itertools.product((-1, 0, 1), repeat=4), key=lambda v: (sum(map(abs, v)), v))
    pairs = sorted(itertools.product(vecs, vecs), key=lambda xy: (sum(map(abs, xy[0])) + sum(map(abs, xy[1])), xy))

    def img(v):
        return [list(v[:2]), list(v[2:])]

    def additive(xy):
        x, y = xy
        s = tuple(a + b for a, b in zip(x, y))
        return _flat(naive_maxpool(img(s), 2)) == [a + b for a, b in zip(_flat(naive_maxpool(img(x), 2)),
                                                                         _flat(naive_maxpool(img(y), 2)))]

    def selection(c):
        m, n, vals = c
        X = np.array(vals, dtype=np.int64).reshape(m, n)
        # built and applied in the claim's field (on the GPU under `isomat verify --backend cupy`), compared on the host
        Xf = as_values(X.astype(float), float_backend(), name="X")
        S = _pool.maxpool_selection(Xf, (2, 2))  # a 0/1 matrix: S·x is exact in float64 for these integers
        y = to_numpy(S @ Xf.reshape(-1))
        return [int(v) for v in y] == _flat(naive_maxpool(X.tolist(), 2))

    # the selection (an arg-max) depends on the order of the values in each window only: the 75 weak orders of 4
    # values (as patterns in 0..3) are every 2×2 image up to order; 4×4 images: 75 images in which every one of the four
    # windows runs through all 75 orders (window w shows order (i + 19w) mod 75 in image i)
    orders = sorted({tuple(sorted(set(v)).index(x) for x in v) for v in itertools.product(range(4), repeat=4)})
    sel_cases = sorted([(2, 2, o) for o in orders], key=lambda c: (sum(c[2]), c))
    for i in range(len(orders)):
        X = [[0] * 4 for _ in range(4)]
        for w in range(4):
            for t, val in enumerate(orders[(i + 19 * w) % len(orders)]):
                X[2 * (w // 2) + t // 2][2 * (w % 2) + t % 2] = val
        sel_cases.append((4, 4, tuple(x for row in X for x in row)))
    return decide(
        exhaustive(additive, pairs, describe="2x2 image, p = 2, x, y in {-1,0,1}^4",
                   witness=lambda xy: {"maxpool(x)": naive_maxpool(img(xy[0]), 2), "maxpool(y)": naive_maxpool(img(xy[1]), 2),
                                       "maxpool(x+y)": naive_maxpool(img([a + b for a, b in zip(*xy)]), 2)}),
        correction=("Max pooling is not linear, so it is no fixed matrix; for each input x it equals S(x)·x with a "
                    "data-dependent 0/1 selection matrix S(x) (one 1 per row, at the window's arg-max)",
                    exhaustive(selection, sel_cases, describe="isomat maxpool_selection, p = 2: the 75 weak orders of "
                               "a 2×2 image, and 75 4×4 images in which each window runs through all 75 orders")),
    )
