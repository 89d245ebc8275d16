"""cheng2025: the results statements of the abstract (Abstract), the introduction (§I), Remark 5.5's conjecture and the
conclusion (§VII), sentence by sentence; each checked against the paper's own constructions or not-checkable with why."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2 import *  # noqa: F401,F403
from .sec4 import *  # noqa: F401,F403
import functools

from ..engine import not_checkable, threshold_reading

_NO_EXPERIMENT = ("the paper reports no experiment, data set, model, baseline or measure (no table, no figure of "
                  "results, no number): ")


def _pi_obj(cache: dict, m: int, n: int) -> np.ndarray:
    """Π^m_n of (22) from its naive Kronecker form (exact rationals) as an object array, cached per call site."""
    if (m, n) not in cache:
        cache[m, n] = np.array(naive_projection(m, n).tolist(), dtype=object)
    return cache[m, n]


@claim(
    "cheng2025:abstract/efficient",
    quote="Using balanced information about all entries, DFT must be more efficient in dealing with signals.",
    statement=(
        "Abstract, last sentence: DFT is more efficient than the zero-padding transformer in dealing with signals. "
        "(The 'balanced information about all entries' it rests on is checked as cheng2025:sec1/balanced.)"
    ),
    methods=["recompute"],
)
def _abstract_efficient():
    return not_checkable(
        _NO_EXPERIMENT + "'more efficient' names no quantity (time, memory, accuracy, sample efficiency) and the "
        "paper trains and runs no DFT, so there is nothing to compare with; the 'must' is argued, not measured.")


def _per_token_pbths(pi: dict, c) -> bool:
    """⋄ of Def. 4.13 ((71)-(73)), Alg. 5.2 ((88)-(91)) and the residual add (104), built from Π of (22) (naive
    Kronecker form, exact rationals, integer data) on tokens of dims ``ins``, return tokens of the chosen dims
    ``outs`` at nominal size ``d`` (``c = (ins, outs, d)``)."""
    ins, outs, d = c
    s = len(ins)
    xs = [np.arange(1, n + 1, dtype=object) for n in ins]
    A = np.arange(1, s * s + 1, dtype=object).reshape(s, s)
    W = np.arange(1, d * d + 1, dtype=object).reshape(d, d)
    Xt = np.stack([_pi_obj(pi, n, d) @ x for n, x in zip(ins, xs)])  # (71) / (88)-(89)
    diamond = [_pi_obj(pi, d, m) @ row for m, row in zip(outs, A @ Xt)]  # (72)-(73)
    alg52 = [_pi_obj(pi, d, m) @ col for m, col in zip(outs, (W @ Xt.T).T)]  # (90) as (86), (91)
    fs = [np.arange(1, m + 1, dtype=object) for m in outs]
    add = [_pi_obj(pi, n, m) @ x + f for n, m, x, f in zip(ins, outs, xs, fs)]  # (104)
    return all([len(v) for v in out] == list(outs) for out in (diamond, alg52, add))


def _pbth_cases(k: int) -> list:
    """Input and output dims tuples of length <= 2 with sizes <= k, nominal d in [1, k]."""
    return [(i, o, d) for s in (1, 2) for i in itertools.product(range(1, k + 1), repeat=s)
            for o in itertools.product(range(1, k + 1), repeat=s) for d in range(1, k + 1)]


@claim(
    "cheng2025:abstract/arbitrary-dims",
    quote=("Using projection-based transformation of hypervector (PBTH), the framework of dimension-free transformer "
           "(DFT) is proposed by verifying each linear transformation in a transformer and replacing it by a proper "
           "PBTH, which allows the inputs and outputs being of arbitrary dimensions."),
    statement=(
        "Abstract: the PBTH replacements accept inputs, and give outputs, of arbitrary dimensions. Two readings. "
        "(a) The per-token PBTHs: ⋄ of Def. 4.13 ((71)-(73)), Alg. 5.2 ((88)-(91)) and the residual add (104), built "
        "from Π of (22) (naive Kronecker form, exact rationals, integer data), are defined for every input dims tuple "
        "and return every chosen output dims tuple: all input and output dims tuples of length ≤ 2 with sizes ≤ 4, "
        "nominal d ∈ [1, 4]. (b) Also the general attention (97), whose step 3 the paper prescribes as (98) "
        "ξ^i := Π^{(t/d)n0}_{n_i} ξ̃^i: ξ̃^i (a row of (A ⊗ 1ᵀ_{t/q}) X̃, X̃ ∈ M_{t×n0}) has n0 entries, (98)'s source "
        "dimension read with d = n0 is t, so step 3 is undefined whenever t ≠ n0 (q, r ≤ 3, n0 ≤ 3; the same finding "
        "as cheng2025:eq98)."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=("dimensions are positive integers", lambda c: all(int(x) >= 1 for x in (c if isinstance(c, list) else [c]))),
)
def _abstract_arbitrary_dims():
    pi: dict = {}
    a = decide(_exact_exhaustive(functools.partial(_per_token_pbths, pi), _pbth_cases(4), "input and output dims "
                                 "tuples of length <= 2, sizes <= 4; nominal d in [1, 4]; integer data, exact rationals"))

    def general(c):  # (98) with d = n0: source dimension (t/n0)·n0 = t against the n0 entries of ξ̃^i
        q, r, n0 = c
        t = math.lcm(q, r)
        row = (np.kron(np.ones((1, q)), np.ones((1, t // q))) @ np.ones((t, n0)))[0]  # a row of (A ⊗ 1ᵀ_{t/q}) X̃
        return len(row) == sympy.Rational(t, n0) * n0

    def witness(c):
        q, r, n0 = c
        t = math.lcm(q, r)
        return {"t": t, "entries of ξ̃^i": n0, "source dimension (t/d)·n0 of (98), d = n0": sympy.Rational(t, n0) * n0}

    b = decide(_exact_exhaustive(general, _dims(3, 3), "q, r, n0 in [1, 3]", witness))
    return by_readings(
        Reading("per-token PBTHs", "⋄ (Def. 4.13), Alg. 5.2 and (104) take any input dims and give any chosen output "
                "dims", a),
        Reading("including (97)-(98)", "also the general attention (97) with step 3 as (98) prescribes", b),
    )


@claim(
    "cheng2025:sec1/balanced",
    quote=("(b) The components of a vector are not used in a balance way. There are some biases. ... Instead of "
           "zero-padding approach, a projection-based padding is proposed, which can overcome the above mentioned "
           "weaknesses of zero-padding."),
    statement=(
        "§I, weakness (b) of zero-padding against projection-padding (also the abstract's 'balanced information about "
        "all entries'): padding x ∈ R^m to R^n with Π^m_n of (22) weights every input entry alike (every column of "
        "Π^m_n sums to n/m) and makes every padded entry a weighted average of the input (every row sums to 1, "
        "entries ≥ 0), where zero-padding gives the n − m padded entries no input at all (zero rows). Exact, naive (22) "
        "(Kronecker form, rationals), every 1 ≤ m ≤ n ≤ 8 (padding: the nominal size is at least the vector's). "
        "(Weakness (a), the junk zeros, is cheng2025:rem5.4/i; (c) is cheng2025:sec1/memory.)"
    ),
    methods=["exact", "exhaustive"],
)
def _sec1_balanced():
    pi: dict = {}

    def ok(c):
        m, n = c
        P = _pi_obj(pi, m, n)
        return (all(x >= 0 for x in P.ravel()) and all(sum(P[i, :]) == 1 for i in range(n))
                and all(sum(P[:, j]) == sympy.Rational(n, m) for j in range(m)))

    zero_rows = {f"m = {m}, n = {n}": n - m for m, n in ((1, 2), (3, 6), (5, 8))}
    return decide(_exact_exhaustive(ok, [(m, n) for n in range(1, 9) for m in range(1, n + 1)],
                                    "1 <= m <= n <= 8, exact"),
                  zero_padding_rows_without_input=zero_rows)


@claim(
    "cheng2025:sec1/memory",
    quote=("(c) ... Then the padded x̃^i, i ∈ [1, s] (similarly, ỹ^j, j ∈ [1, t]) together become a sparse matrix, "
           "which also waste some memories. ... a projection-based padding is proposed, which can overcome the above "
           "mentioned weaknesses of zero-padding."),
    statement=(
        "§I, weakness (c) of zero-padding, overcome by projection-padding. Two readings. (a) Sparsity: the "
        "projection-padded X̃ (rows Π^{n_i}_{n0} x^i, (88)-(89)) has no structurally zero entry: every row of Π^{n_i}_{n0} "
        "of (22) has a nonzero entry, so with x^i of nonzero entries ≥ 0 (here 1, ..., n_i) every entry of X̃ is "
        "nonzero, while zero-padding stores Σ (n0 − n_i) zeros; exact, every dims tuple of length ≤ 3 with n_i ≤ 4, "
        "n0 = max n_i. (b) Memory: the numbers stored. Projection-padding stores X̃ ∈ M_{s×n0}, s·n0 numbers, exactly "
        "as many as zero-padding, more than the Σ n_i of the data whenever the sizes differ: not overcome (same grid, "
        "smallest first)."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=("dims are positive integers", lambda c: all(int(x) >= 1 for x in c)),
)
def _sec1_memory():
    pi: dict = {}

    def dense(dims):
        n0 = max(dims)
        Xt = np.stack([_pi_obj(pi, n, n0) @ np.arange(1, n + 1, dtype=object) for n in dims])
        return all(x != 0 for x in Xt.ravel())

    def saves(dims):
        n0 = max(dims)
        proj = np.stack([_pi_obj(pi, n, n0) @ np.arange(1, n + 1, dtype=object) for n in dims]).size
        zero = np.stack([np.concatenate([np.arange(1, n + 1), np.zeros(n0 - n)]) for n in dims]).size
        return proj < zero or proj == sum(dims)

    def witness(dims):
        n0 = max(dims)
        return {"numbers in the data Σ n_i": sum(dims), "zero-padded X̃ (s·n0)": len(dims) * n0,
                "projection-padded X̃ (s·n0)": len(dims) * n0}

    cases = _hv_cases(3, 4)
    return by_readings(
        Reading("sparsity", "the projection-padded X̃ has no structurally zero entry",
                decide(_exact_exhaustive(dense, cases, "dims of length <= 3, n_i <= 4"))),
        Reading("memory", "projection-padding stores fewer numbers than zero-padding (or no more than the data)",
                decide(_exact_exhaustive(saves, cases, "dims of length <= 3, n_i <= 4", witness))),
    )


#: §I's list of a transformer's operators -- the bricks §VII says were each rebuilt -- and where the paper gives each a
#: dimension-free (STP/STA, projection-padded) form; None: nowhere in the paper (transcribed from §I and §V)
DFT_FORMS = {
    "MatMul (matrix product)": "⊙_w (93); the attention (96)-(97)",
    "Linear (linear mapping)": "⋄ of Def. 4.13; Alg. 5.2, (88)-(91)",
    "+ (addition, feed-forward)": "the residual add (104), Def. 5.8; the feed-forward (106)",
    "padding mask": "dropped: projection-padding adds no junk zeros (Rem. 5.4 (i))",
    "causal mask": None,  # only the classical PM ∈ M_{s×s} of (47)-(48), §III.D; §V's attention has no mask
    "PE (positional encoding)": None,  # only the classical (37)-(39), §III.A; §V.A pads the embeddings only
}


def _causal_rows_independent_of_later_tokens(dims) -> bool:
    """Causal attention softmax(X̃X̃ᵀ/√n0 + PM) X̃ of projection-padded tokens (rows Π^{n_i}_{n0} x^i of (22), naive
    Kronecker form; PM the causal mask of (47) as corrected in cheng2025:eq47: −∞ above the diagonal) computed twice, the
    second time with the last token changed: every earlier row of the output is the same (float64, bit for bit: the
    masked scores are exactly zero weights)."""
    n0 = max(dims)
    s = len(dims)

    def out(last_shift):
        rows = [np.array(naive_projection(n, n0).tolist(), dtype=float) @ (np.arange(1, n + 1, dtype=float)
                + (last_shift if i == s - 1 else 0)) for i, n in enumerate(dims)]
        X = np.stack(rows)
        i, j = np.indices((s, s))
        E = X @ X.T / math.sqrt(n0) + np.where(j > i, -np.inf, 0.0)
        E = np.exp(E - E.max(axis=1, keepdims=True))
        return (E / E.sum(axis=1, keepdims=True)) @ X

    return bool(np.array_equal(out(0)[:-1], out(5)[:-1]))


@claim(
    "cheng2025:sec1/causal-mask",
    quote="In the sequel, you will see that the projection-based padding is also available for causal mask.",
    statement=(
        "§I promises that the sequel shows projection-based padding with the causal mask. Judged as the ledger judges "
        "zhu2025's promised machine-translation benchmark (zhu2025:sec1/benchmarks): the paper's text against its own "
        "content, an inventory of where the paper gives each transformer operator a dimension-free form (DFT_FORMS, "
        "transcribed from §III-§V): the only causal mask is the classical PM ∈ M_{s×s} of (47)-(48) in §III.D, and §V's "
        "dimension-free transformer has no mask at all -- the promise is not kept (inconsistent). Recorded as a second "
        "reading, not supported (the sentence promises a construction the paper would show, not a property one may "
        "supply): what the paper does deliver composes -- the classical causal mask (as corrected in cheng2025:eq47) "
        "acts on the s×s scores, not the feature dimension, so causal attention of projection-padded tokens keeps every "
        "output row independent of later tokens (float64, bit for bit, every dims tuple of length <= 3, n_i <= 3)."
    ),
    methods=["recompute", "numeric"],
)
def _sec1_causal_mask():
    delivered = exhaustive(_causal_rows_independent_of_later_tokens, _hv_cases(3, 3),
                           describe="dims of length <= 3, n_i <= 3, n0 = max n_i; tokens 1..n_i, the last shifted by 5; "
                                    "one integer instance per dims tuple", method="numeric", strength="sampled")
    return by_readings(
        threshold_reading("the sequel shows it", "the paper gives a projection-padded (dimension-free) causal mask",
                          {"causal mask: a dimension-free form in the paper": DFT_FORMS["causal mask"] is not None},
                          forms_given=DFT_FORMS),
        threshold_reading("what is delivered composes", "the classical causal mask (47)-(48), corrected, applied to "
                          "projection-padded tokens keeps attention causal", decide(delivered), supported=False),
    )


@claim(
    "cheng2025:rem5.5/conjecture",
    quote="A conjecture is, (95) might be better than (41).",
    statement="Rem. 5.5 (ii), last sentence: the attention scaled by 1/n (95) performs better than the 1/√n of (41).",
    methods=["recompute"],
)
def _rem55_conjecture():
    return not_checkable(
        _NO_EXPERIMENT + "'better' has no criterion and the paper states it as a conjecture; the exact relation of "
        "(95) to (41), a rescaling of the scores, is checked in cheng2025:rem5.5.")


@claim(
    "cheng2025:sec7/junk",
    quote="position Padding might cause some junk information, which is not completely deleted by masking.",
    statement="§VII: zero-padding leaves junk information that masking does not completely delete.",
    methods=["recompute"],
)
def _sec7_junk():
    return not_checkable(
        "'junk information' is given no definition or measure, the sentence is hedged ('might'), and the paper runs "
        "no transformer with or without masks: there is no quantity to compute. (That projection-padding adds no "
        "zeros is cheng2025:rem5.4/i.)")


@claim(
    "cheng2025:sec7/each-brick",
    quote=("Using STP and STA, this paper has proposed a dimension-free transformer. Each building bricks in a "
           "transformer have been reconstructed by STP/STA."),
    statement=(
        "§VII: every building brick of the transformer -- the operators §I lists: MatMul, Linear, +, Mask "
        "(padding and causal), PE -- has a dimension-free STP/STA form in the paper. Judged as the ledger judges "
        "zhu2025's promised machine-translation benchmark (zhu2025:sec1/benchmarks): the paper's text against its own "
        "content, an inventory of where it gives each brick a dimension-free form (DFT_FORMS, transcribed from §III-§V): "
        "§V gives Linear (⋄, Def. 4.13; Alg. 5.2), MatMul (⊙_w, (93); (96)-(97)), + ((104), Def. 5.8, the feed-forward "
        "(106)) and drops the padding mask (Rem. 5.4 (i)), but gives none for the positional encoding ((37)-(39) only "
        "in the classical form) or the causal mask ((47)-(48) only classical): inconsistent. Recorded as a second "
        "reading, not supported (the sentence says 'each'): the forms that are given take tokens of any dims and give "
        "any chosen output dims -- ⋄ ((71)-(73)), Alg. 5.2 ((88)-(91)) and (104) from Π of (22), exact rationals, "
        "every input and output dims tuple of length <= 2 with sizes <= 3, nominal d in [1, 3] (each form is also "
        "checked under its own label)."
    ),
    methods=["recompute", "exact"],
)
def _sec7_each_brick():
    pi: dict = {}
    given = decide(_exact_exhaustive(functools.partial(_per_token_pbths, pi), _pbth_cases(3), "input and output dims "
                                     "tuples of length <= 2, sizes <= 3; nominal d in [1, 3]; integer data, exact"))
    return by_readings(
        threshold_reading("each brick", "every operator §I lists has a dimension-free STP/STA form in the paper",
                          {f"{brick}: a dimension-free form in the paper": form is not None
                           for brick, form in DFT_FORMS.items()}, forms_given=DFT_FORMS),
        threshold_reading("the bricks given", "the dimension-free forms the paper gives take any input dims and give "
                          "any chosen output dims", given, supported=False),
    )


@claim(
    "cheng2025:sec7/efficient",
    quote="The STP/STA based AI system might be more efficient in various applications.",
    statement="§VII, last sentence: an STP/STA based AI system is more efficient in various applications.",
    methods=["recompute"],
)
def _sec7_efficient():
    return not_checkable(
        _NO_EXPERIMENT + "'more efficient' names no quantity and no application, and the sentence is hedged "
        "('might').")
