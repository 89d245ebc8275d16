"""cheng2025: properties the paper attributes to a transformer's parts in its introduction and abstract -- §I's
"an attention is a multi-linear mapping" (1), and the abstract's "matrix expressions for every parts of a
transformer" (issue 38, item 4).

The attention here is written from (36) and (41)-(43) by direct loops over exact numbers (SymPy, ``exp`` kept
exact); a failure is confirmed by an independent float64 recomputation with NumPy.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy

from ..engine import Reading, Trial, by_readings, claim, compare_printed, decide, exhaustive


def attention(tokens, W, *, softmax: bool = True, qkv=None):
    """Self-attention of the tokens x^1..x^s (rows of X ∈ M_{s×n0}, (32)): Qᵀ = W^q Xᵀ etc. (36) with
    W^q = W^k = W^v = W, scores E = QKᵀ/√n0, A = softmax(E) row-wise (41)-(43) or A = E (softmax omitted), output
    rows y^i = Σ_j A_ij v^j. ``qkv`` gives Q, K, V directly (for the trilinear reading)."""
    s, n0 = len(tokens), len(tokens[0])
    if qkv is None:
        proj = [[sum(W[a][c] * x[c] for c in range(n0)) for a in range(n0)] for x in tokens]
        Q = K = V = proj
    else:
        Q, K, V = qkv
    E = [[sum(Q[i][a] * K[j][a] for a in range(n0)) / sympy.sqrt(n0) for j in range(s)] for i in range(s)]
    if softmax:
        E = [[sympy.exp(e) / sum(sympy.exp(g) for g in row) for e in row] for row in E]
    return [[sum(E[i][j] * V[j][a] for j in range(s)) for a in range(n0)] for i in range(s)]


def _scaled(tokens, i, lam):
    return [[lam * v for v in x] if k == i else list(x) for k, x in enumerate(tokens)]


def _is_zero(e) -> bool:
    """Whether an exact expression is zero: a value certified away from zero by mpmath's 30-digit evaluation (which
    tracks its own error) is not; otherwise SymPy's simplification decides."""
    if abs(sympy.N(e, 30)) > sympy.Float("1e-20"):
        return False
    return sympy.simplify(e) == 0


def _homogeneous_in_token(c, softmax: bool) -> bool:
    """Scaling token i by 2 scales every output by 2 (exact)."""
    s, n0, i, flat = c
    tokens = [list(flat[k * n0:(k + 1) * n0]) for k in range(s)]
    W = [[1 if a == b else 0 for b in range(n0)] for a in range(n0)]
    y, y2 = attention(tokens, W, softmax=softmax), attention(_scaled(tokens, i, 2), W, softmax=softmax)
    return all(_is_zero(2 * a - b) for ra, rb in zip(y, y2) for a, b in zip(ra, rb))


def _cases():
    out = []
    for s, n0 in ((1, 1), (2, 1), (1, 2), (2, 2)):
        for flat in itertools.product((1, 0, -1), repeat=s * n0):
            out += [(s, n0, i, flat) for i in range(s)]
    return out


def _numpy_confirms(cx, softmax: bool) -> Trial:
    """The failure recomputed in float64 with NumPy (no SymPy): 2·y(x) and y(.., 2x^i, ..) differ by more than 1e-9."""
    s, n0, i, flat = cx["case"]
    X = np.array(flat, dtype=float).reshape(s, n0)

    def att(X):
        E = X @ X.T / np.sqrt(n0)
        A = np.exp(E - E.max(axis=1, keepdims=True)) if softmax else E
        A = A / A.sum(axis=1, keepdims=True) if softmax else A
        return A @ X

    X2 = X.copy()
    X2[i] *= 2
    gap = float(np.abs(2 * att(X) - att(X2)).max())
    return Trial(gap > 1e-9, "numeric", {"compared": "numpy float64: 2 y(X) vs y(X with token i doubled)",
                                         "max_gap": gap}, None if gap > 1e-9 else {"case": cx["case"], "max_gap": gap})


def _witness(c, softmax: bool):
    s, n0, i, flat = c
    tokens = [list(flat[k * n0:(k + 1) * n0]) for k in range(s)]
    W = [[1 if a == b else 0 for b in range(n0)] for a in range(n0)]
    y = attention(tokens, W, softmax=softmax)
    return {"token_scaled": i, "y(X)": y, "y(X, token doubled)": attention(_scaled(tokens, i, 2), W, softmax=softmax),
            "2 y(X)": [[2 * v for v in row] for row in y]}


def _trilinear_qkv() -> Trial:
    """(QKᵀ)V is linear in each of Q, K, V: for generic symbolic Q, K, V (s, n0 <= 2) the output at (λQ, K, V) etc.
    is λ times the output (and additive) -- decided exactly."""
    def ok(c):
        s, n0, which = c
        mats = [[[sympy.Symbol(f"{nm}{r}{a}") for a in range(n0)] for r in range(s)] for nm in "qkv"]
        other = [[sympy.Symbol(f"w{r}{a}") for a in range(n0)] for r in range(s)]
        lam = sympy.Symbol("lam")
        base = attention(mats[0], None, softmax=False, qkv=mats)
        scaled = [m if k != which else [[lam * v for v in row] for row in m] for k, m in enumerate(mats)]
        summed = [m if k != which else [[v + w for v, w in zip(r1, r2)] for r1, r2 in zip(m, other)] for k, m in enumerate(mats)]
        alone = [m if k != which else other for k, m in enumerate(mats)]
        ys = attention(mats[0], None, softmax=False, qkv=scaled)
        ysum, yo = (attention(mats[0], None, softmax=False, qkv=q) for q in (summed, alone))
        return all(sympy.expand(a - lam * b) == 0 for ra, rb in zip(ys, base) for a, b in zip(ra, rb)) and \
            all(sympy.expand(a - b - c) == 0 for ra, rb, rc in zip(ysum, base, yo) for a, b, c in zip(ra, rb, rc))
    return exhaustive(ok, [(s, n0, w) for s, n0 in ((1, 1), (2, 1), (1, 2)) for w in range(3)],
                      describe="(QKᵀ/√n0)V linear in each of Q, K, V, symbolic, (s, n0) = (1, 1), (2, 1), (1, 2)",
                      method="symbolic")


@claim(
    "cheng2025:eq1/multilinear",
    quote="From mathematical point of view, an attention is a multi-linear mapping π : x^1 × ⋯ × x^s → y^1 × ⋯ × y^t. (1)",
    statement=(
        "Multilinear in the tokens: each output y^j is linear in each token x^i when the others are held fixed. "
        "Decided on the paper's self-attention (36), (41)-(43) with W^q = W^k = W^v = I, exactly (SymPy, exp kept "
        "exact), by doubling one token: every s, n0 <= 2 and every token in {1, 0, −1}^n0, smallest first. Readings. "
        "(a) The attention of (41)-(43), softmax included. (b) Softmax omitted (§VI's Attention(Q, K, V) = "
        "(QKᵀ/√n)V): cubic in the tokens, it fails with one token (y = x³); (a) fails with two (with one token the "
        "softmax weight is 1 and the map is x ↦ W^v x); both failures confirmed in float64 by NumPy. (c) Linear in "
        "each of Q, K, V as separate arguments, softmax omitted (holds, symbolic, (s, n0) = (1, 1), (2, 1), "
        "(1, 2)) -- recorded, not "
        "supported: (1)'s arguments are the tokens x^1, ..., x^s, and Q, K, V are all computed from them."
    ),
    methods=["exhaustive", "exact", "symbolic", "numeric"],
    hypotheses=("s >= 1 tokens of width >= 1 (eq. (1))",
                lambda c: c[0] >= 1 and c[1] >= 1),
)
def _eq1_multilinear():
    def reading(softmax: bool):
        t = exhaustive(lambda c: _homogeneous_in_token(c, softmax), _cases(),
                       describe=f"attention{'' if softmax else ' without softmax'}: doubling token i doubles the output, "
                                f"s, n0 <= 2, tokens in {{1, 0, -1}}^n0", witness=lambda c: _witness(c, softmax),
                       method="exact")
        return decide(t, confirm=lambda cx: _numpy_confirms(cx, softmax))

    return by_readings(
        Reading("softmax attention (41)-(43)", "The attention of (41)-(43) is linear in each token.", reading(True)),
        Reading("softmax omitted", "(QKᵀ/√n)V is linear in each token.", reading(False)),
        Reading("linear in Q, K, V", "(QKᵀ/√n)V is linear in each of Q, K and V.", decide(_trilinear_qkv()),
                supported=False),
    )


#: the blocks of the transformer's architecture figure (cheng2025 Fig. 2, redrawn from Vaswani et al. [18], Fig. 1)
FIGURE2_BLOCKS = ("Input Embedding", "Output Embedding", "Positional Encoding", "Multi-Head Attention",
                  "Masked Multi-Head Attention", "Add & Norm", "Feed Forward", "Linear (output)", "Softmax (output)")
#: where §III gives each block a formula (subsection and equation numbers, transcribed); absent: none given
SECTION3_FORMULAS = {
    "Input Embedding": "§III.A (32)-(36)", "Output Embedding": "§III.A Remark 3.2 (same as the input's)",
    "Positional Encoding": "§III.A (37)-(39)", "Multi-Head Attention": "§III.B (40)-(43), §III.C (44)-(46)",
    "Masked Multi-Head Attention": "§III.D (47)-(48)", "Add & Norm": "§III.E (49)-(52)",
    "Feed Forward": "§III.F (53)", "Softmax (output)": "(42) defines softmax (used in (41)); its use on the output "
    "is not described",
}
#: the blocks repeated inside the encoder and decoder (Fig. 2's N× stacks), as opposed to the output head
LAYER_BLOCKS = FIGURE2_BLOCKS[:7]


@claim(
    "cheng2025:abstract/every-part",
    quote="The matrix expressions for every parts of a transformer are firstly described.",
    statement=(
        "Each block of the transformer in Fig. 2 (Vaswani et al.'s Fig. 1, which §III.B says Fig. 5 is redrawn "
        "from as well): Input and Output Embedding, Positional Encoding, Multi-Head and Masked Multi-Head Attention, "
        "Add & Norm, Feed Forward, and the output head's Linear and Softmax -- has a formula in §III ('This section "
        "gives each part of transformer a rigorous mathematical description part-by-part'), transcribed with its "
        "equation numbers. Counted favourably: the embeddings count as described by the arrangement (32) of given "
        "vectors, the output Softmax by (42). Readings: (a) every block of Fig. 2 -- the output Linear has no formula; "
        "(b) the blocks of the encoder and decoder layers only (holds; not supported: 'every parts' includes the "
        "output head Fig. 2 draws)."
    ),
    methods=["recompute"],
)
def _abstract_every_part():
    def outcome(blocks):
        return compare_printed({f"{b}: formula in §III": True for b in blocks},
                               {f"{b}: formula in §III": b in SECTION3_FORMULAS for b in blocks}, kind="inconsistent",
                               from_printed=True, where=SECTION3_FORMULAS)

    return by_readings(
        Reading("every block of Fig. 2", "Every block of the transformer figure has a formula in §III.",
                outcome(FIGURE2_BLOCKS)),
        Reading("encoder and decoder layers only", "Every block of the repeated layers has a formula in §III.",
                outcome(LAYER_BLOCKS), supported=False),
    )


__all__ = ["FIGURE2_BLOCKS", "SECTION3_FORMULAS", "attention"]
