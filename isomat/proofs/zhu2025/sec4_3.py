"""zhu2025 §4.3, Theorem 4.2, §4.5 and §8: RNNs."""

from __future__ import annotations

import itertools

import numpy as np
import sympy
import z3

from ...algebra import conv as _conv, rnn as _rnn
from ...algebra._backend import to_numpy
from ...errors import CheckError
from .. import prover
from ..engine import (Outcome, Reading, all_of, builder_check, by_readings, claim, decide, device_cached, exhaustive, exists,
                      float_backend, require)
from ..prover import ints
from ._common import (
    _flat,
    _proved,
    rnn_builder_check,
    _settle,
    _sym,
    naive_conv2d,
    naive_conv_matrix,
    naive_rnn,
)
from ._builders import MAIN_TEXT_BOUND, MAIN_TEXT_EXTRA, RNN_BOUND, builder_note, rnn_extra_check


# ---------------------------------------------------------------------------------------------
# §4.3 and Theorem 4.2: RNN
# ---------------------------------------------------------------------------------------------

def _rnn_ref_matrix(U, V, T):
    """Columns: the naive recurrence driven by unit inputs."""
    M, N = U.shape
    cols = []
    for c in range(T * N):
        xs = [sympy.Matrix(N, 1, lambda i, _j, t=t: 1 if t * N + i == c else 0) for t in range(T)]
        cols.append(sympy.Matrix.vstack(*naive_rnn(U, V, xs)))
    return sympy.Matrix.hstack(*cols)


def _printed_w_rnn(U, V, T):
    """A.2's displayed W_RNN (and §4.3's display, U = W_xh, V = W_hh): block (t, s) = V^{t−s}U for s ≤ t, else 0."""
    M, N = U.shape
    W = sympy.zeros(M * T, N * T)
    for t in range(T):
        for s_ in range(t + 1):
            W[t * M:(t + 1) * M, s_ * N:(s_ + 1) * N] = V ** (t - s_) * U
    return W


def _main_text_w_rnn(Wxh, Whh, m):
    """§4.3's entry formula as printed, W_rnn[i, j] = W_xh W_hh^{i−j} (0 ≤ j ≤ i < m), blockwise; scalars or matrices."""
    Wxh, Whh = (x if isinstance(x, sympy.MatrixBase) else sympy.Matrix([[x]]) for x in (Wxh, Whh))
    M, N = Wxh.shape
    W = sympy.zeros(M * m, N * m)
    for i in range(m):
        for j in range(i + 1):
            W[i * M:(i + 1) * M, j * N:(j + 1) * N] = Wxh * Whh ** (i - j)
    return W


# The unrolled recurrence for symbolic T, proved by Z3 by induction over the time step. Hidden vectors are elements
# of an abstract sort with +, 0 and the linear map V (so the proof holds in R^M for every M, and for every input size N
# and U: M×N, since only the input contributions U x_s enter); matrix power, the printed block product and the
# recurrence are definitions (axioms named in the record); everything else is proved.
_VEC_AXIOM_TEXT = {
    "add-assoc": "vectors: (a + b) + c = a + (b + c)",
    "add-comm": "vectors: a + b = b + a",
    "add-zero": "vectors: a + 0 = a",
    "V-additive": "V is linear: V(a + b) = Va + Vb",
    "V-zero": "V is linear: V0 = 0",
}


def _recurrence_axiom(h, u, Vm, add, zero, t):
    """The recurrence the RNN claims are about, as a definition: h_0 = U x_0 + V·0, h_t = U x_t + V h_(t−1)."""
    return prover.axiom("recurrence", z3.ForAll([t], h(t) == z3.If(t <= 0, add(u(0), Vm(zero)), add(u(t), Vm(h(t - 1)))),
                                                patterns=[h(t)]),
                        text="definition of the recurrence: h_0 = U x_0 + V·0, h_t = U x_t + V h_(t−1) for t >= 1")


@device_cached
def _rnn_model(commuting_input_map=False):
    """(Built and proved once per process: the lemmas are the same for every claim that uses them.) Z3 definitions of zhu2025's W_RNN (Theorem 4.2 / A.2, §4.3) and of the recurrence, and the lemmas proved about
    them. Returns (symbols, axioms, lemmas). With ``commuting_input_map`` the input contribution is A x_s for a linear
    map A that commutes with V (scalars a, b: §4.3's scalar case), and the printed block is A V^{t−s} (the main text's
    order W_xh W_hh^{t−s})."""
    Vec = z3.DeclareSort("Vec")
    add, Vm = z3.Function("add", Vec, Vec, Vec), z3.Function("V", Vec, Vec)
    zero = z3.Const("zero", Vec)
    pw = z3.Function("Vpow", z3.IntSort(), Vec, Vec)  # Vpow(k, w) = V^k w
    # WX(t, k) = Σ_{s<k} (block (t, s) of W_RNN) x_s; the main text's W_rnn (blocks A V^(t−s)) is another function
    R = z3.Function("W_rnn_X" if commuting_input_map else "W_RNN_X", z3.IntSort(), z3.IntSort(), Vec)
    h = z3.Function("h", z3.IntSort(), Vec)
    a_, b_, c_ = z3.Consts("a b c", Vec)
    k, t = z3.Ints("k t")
    ax = [prover.axiom("add-assoc", z3.ForAll([a_, b_, c_], add(add(a_, b_), c_) == add(a_, add(b_, c_))), text=_VEC_AXIOM_TEXT["add-assoc"]),
          prover.axiom("add-comm", z3.ForAll([a_, b_], add(a_, b_) == add(b_, a_)), text=_VEC_AXIOM_TEXT["add-comm"]),
          prover.axiom("add-zero", z3.ForAll([a_], add(a_, zero) == a_), text=_VEC_AXIOM_TEXT["add-zero"]),
          prover.axiom("V-additive", z3.ForAll([a_, b_], Vm(add(a_, b_)) == add(Vm(a_), Vm(b_))), text=_VEC_AXIOM_TEXT["V-additive"]),
          prover.axiom("V-zero", Vm(zero) == zero, text=_VEC_AXIOM_TEXT["V-zero"]),
          prover.axiom("V-power", z3.ForAll([k, a_], pw(k, a_) == z3.If(k <= 0, a_, Vm(pw(k - 1, a_))), patterns=[pw(k, a_)]),
                       text="definition of the matrix power: V^0 w = w, V^k w = V(V^(k−1) w) for k >= 1")]
    lemmas = []
    if commuting_input_map:
        A, x = z3.Function("A", Vec, Vec), z3.Function("x", z3.IntSort(), Vec)
        ax += [prover.axiom("A-additive", z3.ForAll([a_, b_], A(add(a_, b_)) == add(A(a_), A(b_))), text="A is linear: A(a + b) = Aa + Ab"),
               prover.axiom("A-zero", A(zero) == zero, text="A is linear: A0 = 0"),
               prover.axiom("AV=VA", z3.ForAll([a_], A(Vm(a_)) == Vm(A(a_))),
                            text="A and V commute: A(Vw) = V(Aw) (scalars a, b: a·b·w = b·a·w)")]
        comm = prover.induction("A-commutes-with-V^k", k, lambda k: A(pw(k, a_)) == pw(k, A(a_)), other=[a_],
                                text="A V^k w = V^k A w for all k >= 0 and vectors w", axioms=ax)
        lemmas.append(comm)
        u = lambda s_: A(x(s_))  # noqa: E731 -- the recurrence's input contribution W_xh x_s
        block_x = lambda tt, s_: A(pw(tt - s_, x(s_)))  # noqa: E731 -- printed a·b^(t−s) x_s
        ax.append(prover.axiom("W-printed", z3.ForAll([t, k], R(t, k) == z3.If(k <= 0, zero, add(
            R(t, k - 1), z3.If(k - 1 <= t, block_x(t, k - 1), zero))), patterns=[R(t, k)]),
            text="definition of (W_rnn X)_t as printed in §4.3: Σ_{s<k} [s <= t] W_xh W_hh^(t−s) x_s, built step by step in k"))
    else:
        u = z3.Function("Ux", z3.IntSort(), Vec)  # U x_s
        ax.append(prover.axiom("W-printed", z3.ForAll([t, k], R(t, k) == z3.If(k <= 0, zero, add(
            R(t, k - 1), z3.If(k - 1 <= t, pw(t - (k - 1), u(k - 1)), zero))), patterns=[R(t, k)]),
            text="definition of (W_RNN X)_t with the printed blocks (t, s) = V^(t−s) U for s <= t, 0 for s > t: "
                 "Σ_{s<k} [s <= t] V^(t−s) U x_s, built step by step in k"))
    ax.append(_recurrence_axiom(h, u, Vm, add, zero, t))
    if commuting_input_map:
        bx = prover.lemma("printed-block-is-V^k-A", [t, k], z3.Implies(z3.And(0 <= k, k <= t), A(pw(t - k, x(k))) == pw(t - k, u(k))),
                          text="A V^(t−s) x_s = V^(t−s) A x_s for 0 <= s <= t", using=[lemmas[0].at(t - k, x(k))], axioms=ax)
        lemmas.append(bx)
        shift_using = [bx.at(t, k), bx.at(t + 1, k)]
    else:
        shift_using = []
    shift = prover.induction("W-row-shift", k, lambda k: z3.Implies(k <= t + 1, R(t + 1, k) == Vm(R(t, k))),
                             text="for all t >= 0 and 0 <= k <= t + 1: (W X)_(t+1) summed over s < k is V times (W X)_t "
                                  "summed over s < k", other=[t], assuming=[t >= 0], using=shift_using, axioms=ax)
    rows = prover.induction("W-rows-are-the-recurrence", t, lambda t: R(t, t + 1) == h(t),
                            text="for all t >= 0: Σ_{s<=t} (block (t, s)) x_s = h_t",
                            using=[shift.at(t + 1, t)] + ([bx.at(t + 1, t + 1)] if commuting_input_map else []),
                            axioms=ax)
    above = prover.induction("W-zero-above-diagonal", k, lambda k: z3.Implies(k >= t + 1, R(t, k) == R(t, t + 1)),
                             text="for all t >= 0 and k >= t + 1: blocks (t, s) with s > t add nothing",
                             other=[t], assuming=[t >= 0], axioms=ax)
    lemmas += [shift, rows, above]
    return dict(R=R, h=h, pw=pw, u=u, zero=zero, Vm=Vm, add=add), ax, lemmas


def _rnn_block_proof(describe, commuting_input_map=False):
    """For every T >= 1 and step 0 <= t < T: block row t of (printed W_RNN)·X equals h_t (Z3, by induction)."""
    sym, ax, lm = _rnn_model(commuting_input_map)
    T, t = ints("T t")
    rows, above = lm[-2], lm[-1]
    return _proved(sym["R"](t, T) == sym["h"](t), assuming=[T >= 1, 0 <= t, t < T],
                   sizes=[T], for_all="for all T >= 1 and 0 <= t < T, every input sequence x_0..x_(T−1), hidden size M, input size N, "
                           "U and V (vectors: any commutative monoid with V linear, e.g. R^M" +
                           ("; W_xh = A, W_hh = V commuting, as scalars do)" if commuting_input_map else ")"),
                   describe=describe, lemmas=[rows.at(t), above.at(T, t)] + lm[:-2], axioms=ax)


def _main_text_builder_check():
    """isomat.algebra.zhu_rnn_main_text (the main text's W_rnn[i, j] = W_xh W_hh^(i−j), as printed) equals the loop
    build of the printed formula: symbolic scalars a, b, m <= 5 steps; symbolic M×M matrices, M <= 3, m <= 3."""
    a, b = sympy.symbols("a b")

    def ok(c):
        M, m = c
        Wxh, Whh = (a, b) if M == 0 else (_sym("u", M, M), _sym("v", M, M))
        mine = sympy.Matrix(_rnn.zhu_rnn_main_text(Wxh, Whh, m, backend="sympy"))
        return (mine - _main_text_w_rnn(Wxh, Whh, m)).expand().is_zero_matrix

    cases = [(0, m) for m in range(1, 6)] + [(M, m) for M in range(1, 4) for m in range(1, 4)]
    return builder_check(exhaustive(ok, cases, describe="isomat zhu_rnn_main_text == printed formula by loops: scalars, "
                                    "m <= 5; M×M matrices (M = 0 marks scalars), M, m <= 3", method="symbolic"),
                         rnn_extra_check(MAIN_TEXT_EXTRA), derived_from_rule=False, builder="zhu_rnn_main_text")


def _rnn_cases():
    return sorted([(M, N) for M in range(1, 4) for N in range(1, 4)], key=lambda c: (c[0] + c[1], c))


@claim(
    "zhu2025:sec4.3/scalar",
    quote="W_rnn[i, j] = W_xh W_hh^{i−j}, 0 ≤ j ≤ i < m ... H = W_rnn X ∈ R^{m×n} ... identical across each "
          "feature dimension to the unrolled recurrence h_t = W_xh x_t + W_hh h_{t−1}",
    statement="With scalar weights W_xh = a, W_hh = b (symbols) and X ∈ R^{m×n} (symbols), every column of "
              "W_rnn X (the printed entry formula, built by loops) equals the scalar recurrence run on that column. "
              "Proved (Z3, induction on the step) for every number of steps m: with W_xh = A and W_hh = V linear maps "
              "that commute (scalars), row t of W_rnn X, Σ_{s<=t} A V^(t−s) x_s, is h_t (definitions of the power, the "
              "printed product and the recurrence are the named axioms). Cross-check: symbolic, m ≤ 4, n ≤ 2."
              + builder_note(MAIN_TEXT_BOUND),
    methods=["symbolic", "exhaustive"],
)
def _rnn_scalar():
    a, b = sympy.symbols("a b")

    def ok(c):
        m, n = c
        X = _sym("x", m, n)
        W = _main_text_w_rnn(a, b, m)
        H = W * X
        for col in range(n):
            hs = naive_rnn(sympy.Matrix([[a]]), sympy.Matrix([[b]]), [sympy.Matrix([[X[t, col]]]) for t in range(m)])
            if any(sympy.expand(H[t, col] - hs[t][0]) != 0 for t in range(m)):
                return False
        return True

    t = exhaustive(ok, [(m, n) for m in range(1, 5) for n in range(1, 3)], describe="m <= 4, n <= 2, symbolic", method="symbolic")
    proof = _settle(lambda: _rnn_block_proof(
        "row t of W_rnn X with the printed entries W_xh W_hh^(t−s) (s <= t), 0 above, equals h_t of the recurrence, for "
        "every number of steps m and every column of X", commuting_input_map=True), lambda: t)
    main_text = _main_text_builder_check()
    return decide(proof, exhaustive_crosscheck=t, builder_vs_formula=main_text)


def _row_recurrence(M, N, T):
    """§4.3's recurrence in the row-vector layout, symbolically: W_xh (N×M), W_hh (M×M), the rows x_t^T
    (1×N) and the rows h_t^T = x_t^T W_xh + h_{t−1}^T W_hh, t < T."""
    U, V = _sym("u", N, M), _sym("v", M, M)
    xs = [sympy.Matrix(1, N, lambda _i, j, t=t: sympy.Symbol(f"x{t}_{j}")) for t in range(T)]
    h, hs = sympy.zeros(1, M), []
    for t in range(T):
        h = xs[t] * U + h * V
        hs.append(h)
    return U, V, xs, hs


def _row_layout(M, N, T, hidden_cols=None):
    """§4.3 in the row-vector layout its X = [x_0, …, x_{m−1}]^T suggests: rows x_t^T, h_t^T = x_t^T W_xh +
    h_{t−1}^T W_hh (W_xh: N×M, W_hh: M×M), against the printed rows H[i, :] = Σ_j X[j, :] W_xh W_hh^{i−j} (the
    printed block order, acting on the right). True when they agree as polynomials."""
    U, V, xs, hs = _row_recurrence(M, N, T)
    printed = [sum((xs[j] * U * V ** (i - j) for j in range(i + 1)), sympy.zeros(1, M)) for i in range(T)]
    return all((a - b).expand().is_zero_matrix for a, b in zip(hs, printed))


def _row_layout_printed_order(M, N, T):
    """§4.3's row formula exactly as printed, H[i, :] = Σ_j W_xh W_hh^{i−j} X[j, :], in the row-vector layout (rows
    x_t^T of X, 1×N; W_xh: N×M, W_hh: M×M): the weights multiply the row X[j, :] from the left. True when every term
    is defined, is a 1×M row, and the sum is h_i^T of h_t^T = x_t^T W_xh + h_{t−1}^T W_hh (as polynomials)."""
    U, V, xs, hs = _row_recurrence(M, N, T)
    try:
        printed = [[U * V ** (i - j) * xs[j] for j in range(i + 1)] for i in range(T)]
    except sympy.ShapeError:
        return False
    if any(term.shape != (1, M) for row in printed for term in row):
        return False
    return all((sum(row, sympy.zeros(1, M)) - hh).expand().is_zero_matrix for row, hh in zip(printed, hs))


@claim(
    "zhu2025:sec4.3/main-text-order",
    quote="W_rnn[i, j] = W_xh W_hh^{i−j}, 0 ≤ j ≤ i < m ... H[i, :] = Σ_{j=0}^{i} W_xh W_hh^{i−j} X[j, :]",
    statement="The printed block order W_xh W_hh^{i−j} reproduces the recurrence. Three readings. Row-vector layout "
              "(headline; §4.3's X = [x_0, …, x_{m−1}]^T has the inputs as rows): h_t^T = x_t^T W_xh + h_{t−1}^T W_hh, "
              "and H[i, :] = Σ_j X[j, :] W_xh W_hh^{i−j} -- proved (Z3, induction on the step) for every number of "
              "steps and all sizes, right multiplication by W_xh and W_hh being linear maps of the abstract model; "
              "cross-check: symbolic generic matrices, all hidden M, input N ≤ 3, m ≤ 3 steps. Column-vector layout (the printed h_t = W_xh x_t + W_hh h_{t−1} and A.2): with M = N the "
              "blocks W_xh W_hh^{i−j} on the stacked vec X -- symbolic, M = N ≤ 3, m ≤ 3, smallest first; the "
              "correction W_hh^{i−j} W_xh is proved (Z3, induction on the step) for every number of steps, hidden and "
              "input size; cross-check: symbolic, M = N <= 3, m <= 3. Printed row formula (the factors in the printed "
              "order, W_xh W_hh^{i−j} X[j, :], X[j, :] the 1×n row of X, row-vector layout): all hidden M, input N ≤ 3, "
              "m ≤ 3 steps, smallest M·N·m first -- defined and right only for scalar weights; the correction "
              "X[j, :] W_xh W_hh^{i−j} is the row-vector reading's proof."
              + builder_note(MAIN_TEXT_BOUND),
    methods=["symbolic", "exhaustive"],
    hypotheses=("hidden size M >= 1, input size N >= 1 (cases (M, steps) with M = N for the column-vector reading, "
                "(M, N, steps) for the printed row formula), m >= 1 steps", lambda c: c[0] >= 1 and c[1] >= 1),
)
def _rnn_order():
    cases = [(M, T) for M in range(1, 4) for T in range(1, 4)]
    cases.sort(key=lambda c: (c[0] * c[1], c))

    def ok(c, corrected=False):
        M, T = c
        U, V = _sym("u", M, M), _sym("v", M, M)
        if corrected:
            W = _printed_w_rnn(U, V, T)
        else:
            W = _main_text_w_rnn(U, V, T)
        return (W - _rnn_ref_matrix(U, V, T)).expand().is_zero_matrix

    def witness(c):
        M, T = c
        U, V = _sym("u", M, M), _sym("v", M, M)
        D = (_main_text_w_rnn(U, V, T) - _rnn_ref_matrix(U, V, T)).expand()
        i, j = next((i, j) for i in range(D.rows) for j in range(D.cols) if D[i, j] != 0)
        return {"entry": [i, j], "printed_minus_recurrence": str(D[i, j])}

    corr_x = exhaustive(lambda c: ok(c, True), cases, describe="M = N <= 3, steps <= 3, symbolic")
    proof = _settle(lambda: _rnn_block_proof("with blocks (i, j) = W_hh^(i−j) W_xh (j <= i), 0 above, block row i of W_rnn X "
                                             "is h_i"), lambda: corr_x)
    column = decide(
        exhaustive(ok, cases, describe="M = N <= 3, steps <= 3, symbolic", witness=witness),
        correction=("Block (i, j) is W_hh^{i−j} W_xh (the order of the printed W_RNN matrix and of A.2's V^{i−j}U)",
                    proof),
        correction_crosscheck=corr_x,
    )
    rcases = sorted(((M, N, T) for M in range(1, 4) for N in range(1, 4) for T in range(1, 4)),
                    key=lambda c: (c[0] * c[1] * c[2], c))
    row_x = exhaustive(lambda c: _row_layout(*c), rcases, describe="hidden M, input N <= 3, steps <= 3, symbolic")
    # In the row layout x ↦ x W_xh and h ↦ h W_hh are linear maps U, V, and X[j, :] W_xh W_hh^(i−j) applies U, then
    # V^(i−j): exactly the block rule V^(i−j) U that the abstract model proves for every linear U, V.
    row_proof = _settle(lambda: _rnn_block_proof(
        "row-vector layout: with U: x ↦ x W_xh and V: h ↦ h W_hh (linear maps acting on the right), the printed "
        "X[j, :] W_xh W_hh^(i−j) is V^(i−j)(U(x_j)), and block row i of the unrolled map is h_i^T"), lambda: row_x)
    main_text = _main_text_builder_check()
    row = decide(row_proof, exhaustive_crosscheck=row_x, builder_vs_formula=main_text)
    printed_row = decide(
        exhaustive(lambda c: _row_layout_printed_order(*c), rcases, describe="hidden M, input N <= 3, steps <= 3, "
                   "symbolic, the factors in the printed order",
                   witness=lambda c: {"W_xh_shape": [c[1], c[0]], "W_hh_shape": [c[0], c[0]], "X_row_shape": [1, c[1]]}),
        correction=("H[i, :] = Σ_{j<=i} X[j, :] W_xh W_hh^{i−j}: the row X[j, :] multiplies the weights from the left "
                    "(the row-vector reading)", row_proof),
        correction_crosscheck=row_x,
    )
    return by_readings(
        Reading("row-vector layout", "Rows of X are x_t^T and h_t^T = x_t^T W_xh + h_{t−1}^T W_hh: then "
                "H[i, :] = Σ_{j<=i} X[j, :] W_xh W_hh^{i−j}, the printed block order W_xh W_hh^{i−j} acting on the "
                "right of the row X[j, :] (the printed sum writes it on the left: reading 'printed row formula') -- "
                "proved (Z3, induction on the step) for every number of steps and sizes, the right multiplications by "
                "W_xh and W_hh being linear maps of the abstract model; cross-check: symbolic, M, N <= 3, 3 steps.", row),
        Reading("column-vector layout", "h_t = W_xh x_t + W_hh h_{t−1} on column vectors (the printed recurrence, "
                "A.2): block (i, j) of W_rnn must be W_hh^{i−j} W_xh; the printed W_xh W_hh^{i−j} fails.", column),
        Reading("printed row formula", "H[i, :] = Σ_{j<=i} W_xh W_hh^{i−j} X[j, :] exactly as printed, the weights "
                "multiplying the 1×n row X[j, :] from the left (row-vector layout, W_xh: N×M): defined and equal to "
                "h_i^T only for scalar weights; corrected by moving X[j, :] to the left of the weights.", printed_row),
    )


@claim(
    "zhu2025:sec4.3/main-text-shapes",
    quote="W_rnn ∈ R^{m×m} ... W_rnn[i, j] = W_xh W_hh^{i−j} ... H = W_rnn X ∈ R^{m×n}",
    statement="With input size N and hidden size M, the printed product W_xh W_hh^{i−j} is defined for every block "
              "(two steps or more). Two readings. Row-vector layout (headline; rows of X are x_t^T, W_xh: N×M): every "
              "block W_xh W_hh^{i−j} is N×M, and Σ_j X[j, :] W_xh W_hh^{i−j} is the recurrence's h_i^T (proved, Z3, for "
              "every M, N and number of steps; cross-check symbolic, all M, N ≤ 3, 2 steps); H is then m×M, so the printed H ∈ R^{m×n} needs M = n. Column-vector layout (W_xh: "
              "M×N, W_hh: M×M): the product is undefined unless M = N, all M, N ≤ 3, smallest M + N first. Its "
              "correction is proved (Z3) for every M, N and number of steps: V^k is M×M (induction with the product's "
              "shape rule), so every block W_hh^k W_xh is M×N and W_RNN is (mM)×(mN), and block row i of W_RNN X is h_i "
              "(induction on the step); cross-check: symbolic, M, N <= 3, 2 steps.",
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=("hidden size M >= 1, input size N >= 1", lambda c: c[0] >= 1 and c[1] >= 1),
)
def _rnn_shapes():
    def defined(c):
        M, N = c
        try:
            _sym("u", M, N) * _sym("v", M, M)  # the printed block W_xh W_hh^{i-j}, i - j = 1
        except sympy.ShapeError:
            return False
        return True

    def corrected(c):
        M, N = c
        U, V = _sym("u", M, N), _sym("v", M, M)
        W = _printed_w_rnn(U, V, 2)
        return W.shape == (2 * M, 2 * N) and (W - _rnn_ref_matrix(U, V, 2)).expand().is_zero_matrix

    corr_x = exhaustive(corrected, _rnn_cases(), describe="M, N <= 3, 2 steps, symbolic")
    proof = _settle(lambda: [_rnn_shape_proof(), _rnn_block_proof(
        "with blocks W_hh^(i−j) W_xh, block row i of W_RNN times the stacked inputs is h_i")], lambda: corr_x)
    column = decide(
        exhaustive(defined, _rnn_cases(), describe="M, N <= 3, 2 steps",
                   witness=lambda c: {"W_xh_shape": [c[0], c[1]], "W_hh_shape": [c[0], c[0]]}),
        correction=("For N ≠ M the blocks must be W_hh^{i−j} W_xh (M×N): W_RNN is (mM)×(mN), acts on the stacked "
                    "inputs, and H has M (not n) columns", proof),
        correction_crosscheck=corr_x,
        builder_vs_rule=rnn_builder_check(float_backend()),
    )

    def row_defined(c):
        M, N = c
        try:
            _sym("u", N, M) * _sym("v", M, M)
        except sympy.ShapeError:
            return False
        return _row_layout(M, N, 2)

    row_x = exhaustive(row_defined, _rnn_cases(), describe="M, N <= 3, 2 steps, symbolic")
    row_proof = _settle(lambda: [_rnn_shape_proof(row_layout=True), _rnn_block_proof(
        "row-vector layout: with U: x ↦ x W_xh and V: h ↦ h W_hh (linear maps acting on the right), the printed "
        "X[j, :] W_xh W_hh^(i−j) is V^(i−j)(U(x_j)), and block row i of the unrolled map is h_i^T")], lambda: row_x)
    row = decide(row_proof, exhaustive_crosscheck=row_x)
    return by_readings(
        Reading("row-vector layout", "W_xh is N×M and acts on the right of the rows x_t^T: every block W_xh W_hh^{i−j} "
                "is defined (N×M) and gives the recurrence; H is m×M (the printed m×n when M = n). Proved (Z3) for "
                "every M, N and number of steps: V^k is M×M by induction, so W_xh V^k is N×M, and the blocks give "
                "h_i^T (induction on the step); cross-check: symbolic, M, N <= 3, 2 steps.", row),
        Reading("column-vector layout", "W_xh is M×N as in h_t = W_xh x_t + W_hh h_{t−1}: W_xh W_hh^{i−j} is "
                "undefined unless M = N; blocks W_hh^{i−j} W_xh are.", column),
    )


@claim(
    "zhu2025:thm4.2/block-form",
    quote="W_RNN = [U 0 …; VU U …; V²U VU U …; …; V^{T−1}U … U] of size (MT)×(NT) ... ignoring the elementwise "
          "nonlinearity σ, one checks H = W_RNN X",
    statement="The displayed W_RNN (built here block by block: (t, s) = V^{t−s}U; the same matrix as §4.3's display "
              "with U = W_xh, V = W_hh) has shape (MT)×(NT) and equals the matrix of the recurrence "
              "h_t = U x_t + V h_{t−1}, h_0 = 0, on the stacked vec X (direct loop on unit inputs). Symbolic "
              "non-commuting U (M×N), V (M×M), all M, N ≤ 3, T ≤ 3 (M ≠ N included); isomat.algebra.rnn_matrix is "
              "checked equal to the block build on the same cases. Proved (Z3) for every T, M, N: by induction on the "
              "step, block row t of W_RNN X is h_t (vectors an abstract commutative monoid with V linear; matrix power, "
              "block product and recurrence are the named definitions), and by induction on k, V^k is M×M so every "
              "block is M×N. The symbolic check above is the cross-check."
              + builder_note(RNN_BOUND),
    methods=["symbolic", "exhaustive"],
)
def _rnn_block():
    cases = sorted([(M, N, T) for M in range(1, 4) for N in range(1, 4) for T in range(1, 4)], key=lambda c: (sum(c), c))

    def ok(c):
        M, N, T = c
        U, V = _sym("u", M, N), _sym("v", M, M)
        W = _printed_w_rnn(U, V, T)
        return W.shape == (M * T, N * T) and (W - _rnn_ref_matrix(U, V, T)).expand().is_zero_matrix

    def isomat_same(c):
        M, N, T = c
        U, V = _sym("u", M, N), _sym("v", M, M)
        return (sympy.Matrix(_rnn.rnn_matrix(U, V, T)) - _printed_w_rnn(U, V, T)).expand().is_zero_matrix

    t = exhaustive(ok, cases, describe="M, N, T <= 3, symbolic", method="symbolic")
    proof = _settle(lambda: [_rnn_block_proof("block row t of the displayed W_RNN (blocks V^(t−s)U for s <= t, 0 above) "
                                              "times the stacked X is h_t, for every T"),
                             _rnn_shape_proof()], lambda: t)
    return decide(proof, exhaustive_crosscheck=t,
                  construction=exhaustive(isomat_same, cases, describe="isomat rnn_matrix == block build, symbolic U, V"),
                  builder_vs_rule=rnn_builder_check(float_backend()))


def _rnn_shape_proof(row_layout=False):
    """Shapes for every M, N, T: V^k is M×M (induction on k with the product's shape rule), V^k U is M×N, and T×T
    blocks of M×N make an (MT)×(NT) matrix. With ``row_layout`` the row-vector layout's block W_xh V^k (W_xh: N×M on
    the left of V^k) is defined (columns of W_xh = rows of V^k = M) and N×M.

    The shape functions take the hidden size as an argument (rows_Vpow(k, M) is the number of rows of V^k for V: M×M),
    and the shape rule quantifies it, so the induction over k may quantify M too (no axiom pins M down)."""
    M, N, T, k, k2, M2 = ints("M N T k k2 M2")
    I2 = z3.IntSort()
    rws, cls, ok_ = z3.Function("rows_Vpow", I2, I2, I2), z3.Function("cols_Vpow", I2, I2, I2), \
        z3.Function("defined_Vpow", I2, I2, z3.BoolSort())
    ax = [prover.axiom("shape-of-V^k", z3.ForAll([k2, M2], z3.And(
        z3.Implies(k2 == 0, z3.And(rws(k2, M2) == M2, cls(k2, M2) == M2, ok_(k2, M2))),  # V^0 = I_M
        # V (M×M) times V^(k−1): defined iff the inner sizes agree; rows of V, columns of V^(k−1)
        z3.Implies(k2 >= 1, z3.And(rws(k2, M2) == M2, cls(k2, M2) == cls(k2 - 1, M2),
                                   ok_(k2, M2) == z3.And(ok_(k2 - 1, M2), rws(k2 - 1, M2) == M2)))),
        patterns=[rws(k2, M2), cls(k2, M2), ok_(k2, M2)]),
                          text="for every M: shape rule of the product V·V^(k−1) with V: M×M (defined iff inner sizes "
                               "agree; rows of the left factor, columns of the right); V^0 = I_M")]
    sq = prover.induction("V^k-is-MxM", k, lambda k: z3.And(ok_(k, M), rws(k, M) == M, cls(k, M) == M), other=[M],
                          text="for all M >= 1 and k >= 0: V^k is defined and M×M", assuming=[M >= 1], axioms=ax)
    fa = "for all M, N, T >= 1 and block offsets 0 <= k < T"
    if row_layout:
        # W_xh (N×M) times V^k: defined iff cols(W_xh) = M = rows(V^k); then rows(W_xh) × cols(V^k)
        xr, xc = z3.Ints("rows_Wxh cols_Wxh")
        goal = z3.And(ok_(k, M), xc == rws(k, M), xr == N, cls(k, M) == M)
        return _proved(goal, assuming=[M >= 1, N >= 1, T >= 1, 0 <= k, k < T, xr == N, xc == M],
                       for_all=fa + " (W_xh: N×M)", lemmas=[sq.at(k, M)], axioms=ax, sizes=[M, N, T],
                       describe="row layout: every printed block W_xh V^k (W_xh: N×M, k = i − j) is defined -- W_xh has "
                                "M columns and V^k M rows -- and is N×M")
    # V^k (M×M) times U (M×N) is defined iff cols(V^k) = rows(U) = M, and is then rows(V^k) × cols(U) = M×N
    ur, uc = z3.Ints("rows_U cols_U")
    goal = z3.And(ok_(k, M), cls(k, M) == ur, rws(k, M) == M, uc == N)
    return _proved(goal, assuming=[M >= 1, N >= 1, T >= 1, 0 <= k, k < T, ur == M, uc == N],
                   for_all=fa + " (U: M×N)", lemmas=[sq.at(k, M)], axioms=ax, sizes=[M, N, T],
                   describe="every block V^k U (k = t − s) is defined -- V^k has M columns and U M rows -- and is M×N, "
                            "so W_RNN (T×T blocks) is (MT)×(NT)")


@claim(
    "zhu2025:thm4.2/strictly-lower-triangular",
    quote="W_RNN ∈ R^{MT×NT} is a strictly lower-triangular (block-banded) matrix",
    statement="The recurrence matrix (direct loop, generic symbolic U, V) is strictly lower-triangular: entry (r, c) "
              "= 0 whenever c ≥ r. All M, N ≤ 2, T ≤ 2, smallest first. The correction (block lower-triangular with U "
              "on the diagonal, block (T−1, 0) = V^(T−1)U not identically 0) is proved (Z3) for every T, M, N: the "
              "recurrence's matrix is the displayed W_RNN (induction on the step), and with the witness V = I the "
              "corner block maps x_0 to U x_0; cross-check: symbolic, M, N, T <= 3."
              + builder_note(RNN_BOUND),
    methods=["symbolic", "exhaustive"],
    hypotheses=('hidden size M, input size N, T steps, all >= 1',
                lambda c: min(c) >= 1),
)
def _rnn_strict():
    cases = sorted([(M, N, T) for M in range(1, 3) for N in range(1, 3) for T in range(1, 3)], key=lambda c: (sum(c), c))

    def strict(c):
        M, N, T = c
        W = _rnn_ref_matrix(_sym("u", M, N), _sym("v", M, M), T)
        return all(W[i, j] == 0 for i in range(W.rows) for j in range(W.cols) if j >= i)

    def block_lower_not_banded(c):
        M, N, T = c
        U, V = _sym("u", M, N), _sym("v", M, M)
        W = _rnn_ref_matrix(U, V, T)
        upper_zero = all(W[t * M + a, s * N + b] == 0 for t in range(T) for s in range(t + 1, T)
                         for a in range(M) for b in range(N))
        diag_is_U = all(W[t * M:(t + 1) * M, t * N:(t + 1) * N] == U for t in range(T))
        corner_nonzero = T == 1 or not W[(T - 1) * M:, :N].is_zero_matrix
        return upper_zero and diag_is_U and corner_nonzero

    t = exhaustive(strict, cases, describe="M, N, T <= 2, symbolic",
                   witness=lambda c: {"W_RNN": _rnn_ref_matrix(_sym("u", c[0], c[1]), _sym("v", c[0], c[0]), c[2])}, method="symbolic")
    corr = exhaustive(block_lower_not_banded, sorted([(M, N, T) for M in range(1, 4) for N in range(1, 4) for T in range(1, 4)]),
                      describe="M, N, T <= 3, symbolic", method="symbolic")
    return decide(t, correction=("W_RNN is block lower-triangular, not strictly: blocks (t, s) vanish for s > t, the "
                                 "diagonal blocks are U; and it is not block-banded: block (T−1, 0) = V^{T−1}U is "
                                 "nonzero for generic V", _settle(_block_lower_proof, lambda: corr)),
                  correction_crosscheck=corr, builder_vs_rule=rnn_builder_check(float_backend()))


def _block_lower_proof():
    """Theorem 4.2 corrected, for every T: the recurrence's matrix is the displayed W_RNN (so its blocks (t, s) are
    V^(t−s)U below and on the diagonal -- V^0 U = U -- and 0 above), and block (T−1, 0) is not identically 0."""
    same = _rnn_block_proof("block row t of the displayed W_RNN times X is h_t for every input sequence, so the "
                            "recurrence's matrix has the displayed blocks: V^(t−s)U for s <= t (V^0 U = U on the "
                            "diagonal: definition of V^0) and 0 for s > t")
    sym, ax, _ = _rnn_model(False)
    pw, u, zero, Vm = sym["pw"], sym["u"], sym["zero"], sym["Vm"]
    w = z3.Const("w", zero.sort())
    k, T = ints("k T")
    identity = prover.axiom("witness-V=I", z3.ForAll([w], Vm(w) == w), text="the witness V = I_M")
    ipow = prover.induction("I^k=I", k, lambda k: pw(k, w) == w, other=[w], text="for all k >= 0 and w: I^k w = w",
                            axioms=ax + [identity])
    # the premises with the antecedent U x_0 ≠ 0 are consistent: a candidate model the prover checks (Z3 finds none
    # within its budget) -- the two-element group {0, e} (e + e = 0), V = I, x_0 = e and every later input 0, so every
    # partial sum and h_t is e
    e, add = z3.Const("e", zero.sort()), sym["add"]
    model = {add: lambda a, b: z3.If(a == zero, b, z3.If(b == zero, a, zero)), Vm: lambda a: a, pw: lambda k, a: a,
             u: lambda s: z3.If(s == 0, e, zero), sym["h"]: lambda t: e,
             sym["R"]: lambda t, k: z3.If(z3.And(k >= 1, t >= 0), e, zero)}
    corner = prover.prove(z3.Implies(u(0) != zero, pw(T - 1, u(0)) != zero), assuming=[T >= 1], sizes=[T],
                          for_all="for all T >= 1 (witness V = I_M; any U and x_0 with U x_0 ≠ 0)",
                          lemmas=[ipow.at(T - 1, u(0))], axioms=ax + [identity], model=model).trial(
        "block (T−1, 0) = V^(T−1)U is not identically zero: with V = I it maps x_0 to U x_0 ≠ 0")
    return [same, corner]


# ---------------------------------------------------------------------------------------------
# §4.5 remark, §8 limitations: nonlinearities
# ---------------------------------------------------------------------------------------------
def _relu(v):
    return v if v > 0 else 0


def _relu_rnn(u, v, xs):
    h, out = 0, []
    for x in xs:
        h = _relu(u * x + v * h)
        out.append(h)
    return out


def _rnn_small_cases():
    vals = (-1, 0, 1)
    cases = [(T, u, v, xs) for T in (1, 2) for u in vals for v in vals for xs in itertools.product(vals, repeat=T)]
    return sorted(cases, key=lambda c: (c[0], abs(c[1]) + abs(c[2]) + sum(map(abs, c[3])), c))


@claim(
    "zhu2025:thm4.2/sigma-after",
    quote="a unidirectional (linear) RNN ... can be written as R(vec X) = W_RNN vec X ... Activation σ(·) is applied "
          "after this linear map. [§4.5 Remark:] Nonlinear activations (e.g., ReLU in CNNs, σ(·) in RNNs, softmax in "
          "attention) are applied after the corresponding matrix multiplication W vec X and are not encompassed by "
          "these isomorphism statements. [§8:] in RNNs the activation function σ(·) is applied repeatedly at each "
          "time step—a behavior not captured by a single linear mapping",
    statement="Theorem 4.2's sentence 'Activation σ(·) is applied after this linear map', read two ways. Linear RNN "
              "(headline; Theorem 4.2 says '(linear) RNN', and the §4.5 Remark and §8 state the limitation): the "
              "theorem covers only the linear recurrence h_t = U x_t + V h_{t−1}, which is W_RNN vec X (checked "
              "symbolically, generic U, V, M, N, T <= 2; thm4.2/block-form proves it for every size), and σ after it "
              "is a further layer σ(W_RNN x), not the RNN with σ inside each step -- which is what §8 says: for the "
              "ReLU RNN (M = N = 1) σ(W_RNN x) differs from h_t = σ(u x_t + v h_{t−1}) on some input (exhaustive "
              "search, T <= 2, u, v, x_t ∈ {−1, 0, 1}), so the three passages agree. σ-RNN (A.2 defines the RNN as "
              "h_t = σ(U x_t + V h_{t−1})): the sentence says that network is σ(W_RNN x) -- the same search finds "
              "the input where it is not, contradicting §8.",
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=("Theorem 4.2's RNN: scalar weights u, v, inputs x_t, T steps; σ = ReLU",
                lambda c: isinstance(c, list) and len(c) == 4 and c[0] >= 1 and len(c[3]) == c[0]),
)
def _remark():
    def after(c):
        T, u, v, xs = c
        lin = [sum(v ** (t - s) * u * xs[s] for s in range(t + 1)) for t in range(T)]
        return [_relu(y) for y in lin] == _relu_rnn(u, v, xs)

    t = exhaustive(after, _rnn_small_cases(), describe="T <= 2, u, v, x in {-1,0,1}",
                   witness=lambda c: {"sigma_after_W": [_relu(sum(c[2] ** (t - s) * c[1] * c[3][s] for s in range(t + 1))) for t in range(c[0])],
                                      "rnn": _relu_rnn(c[1], c[2], c[3])})
    if t.ok:
        raise CheckError("σ(W_RNN x) matched the ReLU RNN on every case: no contradiction found")

    def linear_is_w(c):  # the linear recurrence (loops on unit inputs) is the displayed W_RNN (blocks V^(t−s)U)
        M, N, T = c
        U, V = _sym("u", M, N), _sym("v", M, M)
        return (_printed_w_rnn(U, V, T) - _rnn_ref_matrix(U, V, T)).expand().is_zero_matrix

    linear = exhaustive(linear_is_w, sorted(itertools.product((1, 2), repeat=3), key=lambda c: (sum(c), c)),
                        describe="M, N, T <= 2, symbolic generic U, V", method="symbolic")
    differs = exists(t, within="T <= 2, u, v, x in {-1,0,1}")
    sigma_rnn = Outcome("inconsistent", {"printed": dict(method=t.method, ok=t.ok, **t.evidence),
                                         "versus": "§8: σ applied at each time step, not captured by one linear map"},
                        counterexample=t.counterexample)
    return by_readings(
        Reading("linear RNN, σ a separate layer after it", "Theorem 4.2 is about the linear RNN (its words: '(linear) "
                "RNN'): h_t = U x_t + V h_{t−1} is W_RNN vec X, and σ applied after it gives σ(W_RNN x), a different "
                "network from the per-step σ RNN -- the limitation the §4.5 Remark and §8 state; the passages agree.",
                decide(all_of(linear, differs))),
        Reading("σ-RNN equals σ(W_RNN x)", "The RNN of A.2, h_t = σ(U x_t + V h_{t−1}), is σ(W_RNN x): false (the "
                "search's input), and it contradicts §8.", sigma_rnn),
    )


@claim(
    "zhu2025:sec8/nonlinearity",
    quote="In CNNs, nonlinear activations (e.g., ReLU) can be applied element-wise to the resulting feature map "
          "after the matrix multiplication. However, in RNNs the activation function σ(·) is applied repeatedly at "
          "each time step—a behavior not captured by a single linear mapping",
    statement="(a) ReLU(conv(X)) = ReLU(W vec X) for the convolution matrix W (3×3 image, 3×3 integer kernel, "
              "padding 1; W vec X equals the direct loops as polynomials in a symbolic X, so for every X); (b) the ReLU RNN x ↦ (h_1, …, h_T) is not a linear map: a pair x, y "
              "with RNN(x + y) ≠ RNN(x) + RNN(y) exists (exhaustive search, T ≤ 2, u, v, x_t ∈ {−1, 0, 1}).",
    methods=["exhaustive", "exact"],
)
def _sec8():
    K = [[1, -2, 3], [0, 1, -1], [2, 0, 1]]
    Wop = _conv.conv_matrix((3, 3), np.array(K, dtype=float), padding=1, backend=float_backend())
    W = np.asarray(to_numpy(Wop.toarray()), dtype=float)
    X = sympy.Matrix(3, 3, lambda i, j: sympy.Symbol(f"x{i}{j}"))

    def cnn(_):
        # W's entries are small integers, exact in float64: W vec X and the direct loops agree as polynomials in a
        # symbolic image X, hence ReLU of either is the same for every X
        Wi = sympy.Matrix([[int(round(v)) for v in row] for row in W.tolist()])
        return bool(np.all(np.abs(W - np.array(Wi.tolist(), dtype=float)) == 0)) and \
            list(Wi * X.reshape(9, 1)) == [sympy.expand(y) for y in _flat(naive_conv2d(X.tolist(), K, pad=(1, 1)))]

    def cnn_loops(_):
        # the statement decided on the matrix of the loops (issue 36 item 6: no verdict rests on isomat's builder)
        Wl = sympy.Matrix(naive_conv_matrix(3, 3, K, pad=(1, 1)).tolist())
        return list(Wl * X.reshape(9, 1)) == [sympy.expand(y) for y in _flat(naive_conv2d(X.tolist(), K, pad=(1, 1)))]

    a = exhaustive(cnn_loops, ["symbolic 3x3 image"], describe="symbolic 3x3 image X (every X): W vec X = conv(X) "
                   "exactly, W the matrix of the direct loops", method="symbolic")
    checks = require(builder_vs_loops=exhaustive(cnn, ["symbolic 3x3 image"], describe="isomat's conv_matrix: W vec X "
                                                 "= conv(X) exactly, symbolic 3x3 image", method="symbolic"))

    def additive(c):
        T, u, v, xs = c
        ys = tuple(reversed(xs))
        s = [x + y for x, y in zip(xs, ys)]
        return _relu_rnn(u, v, s) == [p + q for p, q in zip(_relu_rnn(u, v, xs), _relu_rnn(u, v, ys))]

    b = exists(exhaustive(additive, _rnn_small_cases(), describe="T <= 2, u, v, x in {-1,0,1}, y = reversed x"),
               within="T <= 2, u, v, x in {-1,0,1}")
    return decide(all_of(a, b), **checks)
