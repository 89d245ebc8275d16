"""cheng2025 §VI: the assembled attention and its non-identifiability."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4 import *  # noqa: F401,F403
from .sec5 import *  # noqa: F401,F403


# §VI: the assembled attention and its non-identifiability
# =============================================================================================
def _sigma(X, Wq, Wk, Wv, scale=True):
    """§VI steps 1-3 as printed: softmax((QKᵀ/√n) V), row-wise; float64 (independent of isomat). The matrix
    products run in the float field of the run (CuPy under `isomat verify --backend cupy`); the row softmax and the
    result are on the host."""
    Q, K, V = _projections(X, Wq, Wk, Wv)
    S = to_numpy(Q @ K.T @ V)
    return _softmax_np(S / math.sqrt(X.shape[1]) if scale else S)


def _projections(X, Wq, Wk, Wv):
    """Q, K, V = X W^qᵀ, X W^kᵀ, X W^vᵀ, computed in the float field of the run (left there)."""
    Xd = _dev(X)
    return Xd @ _dev(Wq).T, Xd @ _dev(Wk).T, Xd @ _dev(Wv).T


def _standard(X, Wq, Wk, Wv):
    """torch SDPA softmax(QKᵀ/√n)V on the host, of the projections computed in the float field of the run."""
    return _sdpa(*(to_numpy(P) for P in _projections(X, Wq, Wk, Wv)))


def _sec6_data(c):
    s, n = c
    return (_rnd((s, n), sum(c), -2, 2).astype(float), *(_rnd((n, n), sum(c) + k, -2, 2).astype(float) / 2 for k in (1, 2, 3)))


@claim(
    "cheng2025:eq107",
    quote="V' = softmax[X (W^q)ᵀ W^k Xᵀ X (W^v)ᵀ]   (107) — 'putting three steps together'",
    statement=(
        "(107) must equal the composition of steps 1-3 of §VI (Att = (QKᵀ/√n) V, V' = softmax(Att)); isomat's "
        "assembled_attention must equal the composition too. float64, tol 1e-12, integer-valued data, s, n in [1, 3]."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq107():
    def ok(c, printed):
        X, Wq, Wk, Wv = _sec6_data(c)
        steps = _sigma(X, Wq, Wk, Wv)
        if not _close(_hyper.assembled_attention(_dev(X), _dev(Wq), _dev(Wk), _dev(Wv)), steps):
            return False
        S = X @ Wq.T @ Wk @ X.T @ X @ Wv.T
        return _close(_softmax_np(S if printed else S / math.sqrt(X.shape[1])), steps)

    def witness(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        S = X @ Wq.T @ Wk @ X.T @ X @ Wv.T
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(),
                "(107) as printed": _softmax_np(S).tolist(), "steps 1-3": _sigma(X, Wq, Wk, Wv).tolist()}

    return decide(_num_exhaustive(lambda c: ok(c, True), _dims(2, 3), "s, n in [1, 3]", witness),
                  correction=("V' = softmax[X (W^q)ᵀ W^k Xᵀ X (W^v)ᵀ / √n]",
                              _num_exhaustive(lambda c: ok(c, False), _dims(2, 3), "s, n in [1, 3]")))


def _g_mat(n, seed):
    G = np.eye(n) + np.tril(_rnd((n, n), seed, -2, 2), -1)
    return G


@claim(
    "cheng2025:sec6/i",
    quote="(i) If W^{qk} := (W^q)ᵀ W^k remains the same for different W^q and W^k, the mapping Σ remains the same",
    statement=(
        "Replace W^q → G W^q, W^k → G^{-T} W^k (G unit lower-triangular integer, so W^{qk} is unchanged): Σ of §VI "
        "(steps 1-3 as printed) is unchanged; float64 tol 1e-10, s, n in [1, 3]. (The standard attention: cheng2025:beyond/i-standard.)"
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6i():
    def ok(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        G = _g_mat(c[1], sum(c) + 7)
        Wq2, Wk2 = G @ Wq, np.linalg.inv(G).T @ Wk
        return _close(_sigma(X, Wq, Wk, Wv), _sigma(X, Wq2, Wk2, Wv), 1e-10)

    return decide(_num_exhaustive(ok, _dims(2, 3), "s, n in [1, 3]"))


@claim(
    "cheng2025:beyond/i-standard",
    quote="(§VI (i) asked of standard attention) softmax(QKᵀ/√n)V unchanged when W^{qk} = (W^q)ᵀ W^k is unchanged",
    statement=(
        "Whether non-identifiability (i) also holds for the standard scaled dot-product attention (torch SDPA): "
        "W^q → G W^q, W^k → G^{-T} W^k (G unit lower-triangular integer) leaves softmax(QKᵀ/√n)V unchanged, since "
        "QKᵀ = X (W^q)ᵀ W^k Xᵀ; float64 tol 1e-10, s, n in [1, 3]."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6i_std():
    def ok(c):
        X, Wq, Wk, Wv = _sec6_data(c)
        G = _g_mat(c[1], sum(c) + 7)
        return _close(_standard(X, Wq, Wk, Wv), _standard(X, G @ Wq, np.linalg.inv(G).T @ Wk, Wv), 1e-10)

    return decide(_num_exhaustive(ok, _dims(2, 3), "s, n in [1, 3]"))


@claim(
    "cheng2025:sec6/ii",
    quote="(ii) If W^{qk} and W^v are replaced simultaneously by λW^{qk} and (1/λ)W^v, 0 ≠ λ, the mapping Σ remains the same",
    statement=(
        "For Σ as printed in §VI (softmax applied after multiplying by V): W^q → λW^q, W^v → W^v/λ leaves Σ unchanged, "
        "λ ∈ {2, −1, 1/3}, s, n in [1, 3], float64 tol 1e-10."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _sec6ii():
    cases = [(s, n, lam) for (s, n) in _dims(2, 3) for lam in (2.0, -1.0, 1 / 3)]

    def ok(c):
        s, n, lam = c
        X, Wq, Wk, Wv = _sec6_data((s, n))
        return _close(_sigma(X, Wq, Wk, Wv), _sigma(X, lam * Wq, Wk, Wv / lam), 1e-10)

    return decide(_num_exhaustive(ok, cases, "s, n in [1, 3], λ in {2, -1, 1/3}"))


@claim(
    "cheng2025:beyond/ii-standard",
    quote="(§VI (ii) asked of standard attention) softmax(QKᵀ/√n)V unchanged under W^{qk} → λW^{qk}, W^v → W^v/λ",
    statement=(
        "Whether non-identifiability (ii) also holds for the standard scaled dot-product attention softmax(QKᵀ/√n)V "
        "(torch SDPA): exhaustive over s, n in [1, 3] and λ ∈ {2, −1, 1/3}, X, W with entries 1 (first) then integers."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _sec6ii_std():
    cases = [(s, n, lam) for (s, n) in _dims(2, 3) for lam in (2.0, -1.0, 1 / 3)]

    def data(c):
        s, n, lam = c
        if s == n == 1:
            return np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1))
        return _sec6_data((s, n))

    def ok(c):
        X, Wq, Wk, Wv = data(c)
        lam = c[2]
        return _close(_standard(X, Wq, Wk, Wv), _standard(X, lam * Wq, Wk, Wv / lam), 1e-10)

    def witness(c):
        X, Wq, Wk, Wv = data(c)
        lam = c[2]
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(), "λ": lam,
                "attention": _standard(X, Wq, Wk, Wv).tolist(), "after rescaling": _standard(X, lam * Wq, Wk, Wv / lam).tolist()}

    def reference(cx):  # softmax(QKᵀ/√n)V with plain Python loops on the host (no torch, no isomat): the change confirmed
        c = tuple(cx["case"])
        X, Wq, Wk, Wv = (np.asarray(a, dtype=float).tolist() for a in data(c))
        lam = c[2]

        def att(Wq, Wk, Wv):
            mul = lambda A, B: [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]  # noqa: E731
            tr = lambda A: [list(r) for r in zip(*A)]  # noqa: E731
            Q, K, V = mul(X, tr(Wq)), mul(X, tr(Wk)), mul(X, tr(Wv))
            S = [[v / math.sqrt(len(X[0])) for v in row] for row in mul(Q, tr(K))]
            E = [[math.exp(v - max(row)) for v in row] for row in S]
            return mul([[v / sum(row) for v in row] for row in E], V)

        scaled = lambda W, f: [[f * v for v in row] for row in W]  # noqa: E731
        a, b = att(Wq, Wk, Wv), att(scaled(Wq, lam), Wk, scaled(Wv, 1 / lam))
        return exhaustive(lambda _: any(abs(x - y) > 1e-10 * (1 + abs(y)) for ra, rb in zip(a, b) for x, y in zip(ra, rb)),
                          [c], method="numeric", strength="sampled",
                          describe="attention before and after λ-rescaling at the counterexample, plain Python loops (tol 1e-10)")

    return decide(_num_exhaustive(ok, cases, "s, n in [1, 3], λ in {2, -1, 1/3}", witness), confirm=reference)


@claim(
    "cheng2025:sec6/vs-standard",
    quote="§VI: Attention(Q, K, V) = (QKᵀ/√n) V;  V' = softmax(Attention(Q, K, V)) — 'a (self-)attention'",
    statement=(
        "Whether the black box Σ of §VI (softmax after the product with V), which §VI calls a (self-)attention, is the "
        "scaled dot-product attention of (40)-(41) / [18], softmax(QKᵀ/√n) V (torch SDPA): s, n in [1, 3], float64 "
        "tol 1e-12. The paper defines its attention twice, and the two differ (every size where the outputs differ is "
        "a discrepancy): inconsistent. Correction: softmax before the product with V, as (40)-(41) print it."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _sec6_vs():
    def data(c):  # s = n = 1 first with the simplest values that separate the two
        if c == (1, 1):
            return np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), 2 * np.ones((1, 1))
        return _sec6_data(c)

    def witness(c):
        X, Wq, Wk, Wv = data(c)
        return {"X": X.tolist(), "W^q": Wq.tolist(), "W^k": Wk.tolist(), "W^v": Wv.tolist(),
                "Σ (§VI)": _sigma(X, Wq, Wk, Wv).tolist(), "softmax(QKᵀ/√n)V": _standard(X, Wq, Wk, Wv).tolist()}

    def corrected(c):  # numpy softmax(QKᵀ/√n) V against torch SDPA (independent implementations)
        X, Wq, Wk, Wv = data(c)
        Q, K, V = _projections(X, Wq, Wk, Wv)  # in the float field of the run
        return _close(_dev(_softmax_np(to_numpy(Q @ K.T) / math.sqrt(X.shape[1]))) @ V, _standard(X, Wq, Wk, Wv))

    printed = _num_exhaustive(lambda c: _close(_sigma(*data(c)), _standard(*data(c))),
                              _dims(2, 3), "s, n in [1, 3]; s = n = 1 with X = W^q = W^k = 1, W^v = 2", witness)
    fixed = _num_exhaustive(corrected, _dims(2, 3), "s, n in [1, 3], vs torch SDPA")
    cases = _dims(2, 3)
    return compare_printed(
        {f"output for s = {c[0]}, n = {c[1]} (§VI: softmax after V)": _sigma(*data(c)).tolist() for c in cases},
        {f"output for s = {c[0]}, n = {c[1]} (§VI: softmax after V)": _standard(*data(c)).tolist() for c in cases},
        kind="inconsistent", rel_tol=1e-12, method="§VI's attention against the paper's own (40)-(41)",
        against="(40)-(41): A = softmax(QKᵀ/√n), Attention = A V (= torch SDPA)", witness=printed,
        correction=("Step 2-3 as in (40)-(41): A = softmax(QKᵀ/√n), V' = Attention(Q, K, V) = A V "
                    "(softmax on the scores, before the product with V)", fixed),
        recomputed_by="torch's scaled_dot_product_attention of X W^qᵀ, X W^kᵀ, X W^vᵀ (the paper's (40)-(41))")


# =============================================================================================


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
