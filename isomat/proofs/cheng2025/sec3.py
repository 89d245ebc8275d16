"""cheng2025 §III: the transformer formulas against the standard definitions (torch as the reference)."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403


# §III: the transformer formulas against the standard definitions (torch as the reference)
# =============================================================================================
def _torch():
    import torch

    return torch


def _rnd(shape, seed, lo=-3, hi=3):
    return np.random.default_rng(seed).integers(lo, hi + 1, size=shape)


def _softmax_np(E):
    E = np.asarray(E, dtype=float)
    ex = np.exp(E - np.where(np.isfinite(E.max(axis=1, keepdims=True)), E.max(axis=1, keepdims=True), 0))
    with np.errstate(invalid="ignore"):
        return ex / ex.sum(axis=1, keepdims=True)


def _sdpa(Q, K, V, causal=False):
    torch = _torch()
    t = lambda a: torch.tensor(np.asarray(a, dtype=float), dtype=torch.float64)  # noqa: E731
    return torch.nn.functional.scaled_dot_product_attention(t(Q)[None], t(K)[None], t(V)[None], is_causal=causal)[0].numpy()


def _close(a, b, tol=1e-12):
    a, b = np.asarray(to_numpy(a), dtype=float), np.asarray(to_numpy(b), dtype=float)
    return a.shape == b.shape and bool(np.all(np.isfinite(a))) and bool(np.allclose(a, b, rtol=tol, atol=tol))


def _scores_softmax_v(Q, K, V, root, mask=None):
    """softmax(QKᵀ/root [+ mask]) V with the two matrix products in the float field of the run (CuPy under
    `isomat verify --backend cupy`) and the row softmax on the host; a host float64 result."""
    E = to_numpy(_dev(Q) @ _dev(K).T) / root
    E = E if mask is None else E + mask
    return to_numpy(_dev(_softmax_np(E)) @ _dev(V))


def _num_exhaustive(pred, cases, describe, witness=None):
    """Float checks on random data: every size, one random instance each -- strength "sampled" (SAMPLED_WHY)."""
    return exhaustive(pred, cases, describe=describe + "; one random float64 instance per size", witness=witness,
                      method="numeric", strength="sampled")


@claim(
    "cheng2025:eq36",
    quote="Qᵀ = W^q Xᵀ, Kᵀ = W^k Xᵀ, Vᵀ = W^v Xᵀ,  W^q, W^k, W^v ∈ M_{n0×n0}   (36)",
    statement=(
        "(36) is the standard bias-free projection Q = X W^qᵀ of torch.nn.functional.linear(X, W^q): equal "
        "for all s, n0 in [1, 4] on integer X, W (float64, tol 1e-12)."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
)
def _eq36():
    torch = _torch()

    def ok(c):
        s, n0 = c
        X, W = _rnd((s, n0), sum(c)), _rnd((n0, n0), sum(c) + 1)
        ref = torch.nn.functional.linear(torch.tensor(X, dtype=torch.float64), torch.tensor(W, dtype=torch.float64)).numpy()
        return _close((_dev(W) @ _dev(X).T).T, ref)  # the product in the float field of the run

    return decide(_num_exhaustive(ok, _dims(2, 4), "s, n0 in [1, 4]"))


@claim(
    "cheng2025:eq43",
    quote="A = softmax(QKᵀ/√n)  (41);  for E := QKᵀ/√s, softmax(E) row-wise  (43);  softmax(QKᵀ/√s + PM)V  (48)",
    statement=(
        "Eqs. (43) and (48) scale by 1/√s (s = batch/sequence length) where the paper's own (41) (and the standard "
        "attention of [18]) scale by 1/√d_k (d_k = n0, the query/key dimension): the two printed scalings differ "
        "whenever s ≠ n0 (compared for every s, n0 in [1, 4]), so the paper is inconsistent. Checked: softmax(QKᵀ/√s)V equals "
        "torch.nn.functional.scaled_dot_product_attention (scale 1/√n0) for all s, n0 in [1, 4], integer Q, K, V "
        "(float64, tol 1e-12)."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq43():
    def case(c, scale_dim):
        s, n0 = c
        Q, K, V = _rnd((s, n0), sum(c)), _rnd((s, n0), sum(c) + 1), _rnd((s, n0), sum(c) + 2)
        d = s if scale_dim == "s" else n0
        return _scores_softmax_v(Q, K, V, math.sqrt(d)), _sdpa(Q, K, V)

    def witness(c):
        s, n0 = c
        mine, ref = case(c, "s")
        return {"Q": _rnd((s, n0), sum(c)).tolist(), "K": _rnd((s, n0), sum(c) + 1).tolist(),
                "V": _rnd((s, n0), sum(c) + 2).tolist(), "printed (1/√s)": mine.tolist(), "standard (1/√n0)": ref.tolist()}

    printed = _num_exhaustive(lambda c: _close(*case(c, "s")), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _num_exhaustive(lambda c: _close(*case(c, "n0")), _dims(2, 4), "s, n0 in [1, 4]")
    sn = _dims(2, 4)
    return compare_printed({f"scale of QKᵀ in (43)/(48), s = {s}, n0 = {n}": f"1/√{s}" for s, n in sn},
                           {f"scale of QKᵀ in (43)/(48), s = {s}, n0 = {n}": f"1/√{n}" for s, n in sn},
                           kind="inconsistent", method="compare the paper's two printed scalings",
                           against="(41): A = softmax(QKᵀ/√n), n = n0 the query/key dimension", witness=printed,
                           correction=("E := QKᵀ/√n0 (the key dimension d_k = n0, as in (41)), in (43) and (48)",
                                       corrected), from_printed=True)


@claim(
    "cheng2025:eq47",
    quote="p_{i,j} = 0 for j > i,  −∞ for j ≤ i   (47);  Attention = softmax(QKᵀ/√s + PM)V  (48)",
    statement=(
        "The causal mask (47)-(48) compared with the standard causal attention (torch scaled_dot_product_attention, "
        "is_causal=True, scale 1/√n0 — the scale is taken as in the standard so only the mask is tested) for all "
        "s, n0 in [1, 4], integer Q, K, V; a row that is all −∞ gives NaN and counts as a failure."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq47():
    def run(c, printed):
        s, n0 = c
        Q, K, V = _rnd((s, n0), sum(c)), _rnd((s, n0), sum(c) + 1), _rnd((s, n0), sum(c) + 2)
        i, j = np.indices((s, s))
        PM = np.where(j > i, 0.0, -np.inf) if printed else np.where(j > i, -np.inf, 0.0)
        return _scores_softmax_v(Q, K, V, math.sqrt(n0), PM), _sdpa(Q, K, V, causal=True)

    def witness(c):
        mine, ref = run(c, True)
        return {"printed mask result": [[str(v) for v in r] for r in mine.tolist()], "causal attention": ref.tolist()}

    printed = _num_exhaustive(lambda c: _close(*run(c, True)), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _num_exhaustive(lambda c: _close(*run(c, False)), _dims(2, 4), "s, n0 in [1, 4]")
    return decide(printed, correction=(
        "p_{i,j} = 0 for j ≤ i and −∞ for j > i (mask the future, keep the diagonal)", corrected))


@claim(
    "cheng2025:eq50",
    quote="Step 1, Add: Add is completed by residual network ... X' = ReLU(X + F(X))   (50);  Step 2, Normalization (52)",
    statement=(
        "Add & Norm of [18] is LayerNorm(X + F(X)) (torch.nn.functional.layer_norm over each token's n0 features, "
        "eps 1e-5): no ReLU. The printed pipeline LayerNorm(ReLU(X + F(X))) is compared with it for all s, n0 in [1, 3], "
        "with the sublayer output F(X) = 0 (a zero-weight sublayer) and X[i, j] = j − 1 (a negative first feature), "
        "float64 tol 1e-12; n0 = 1 agrees for all inputs (LayerNorm of one feature is 0). (A ReLU after the addition "
        "is He et al.'s ResNet block, not the transformer's Add & Norm.) Correction verified against a float64 "
        "LayerNorm written out in NumPy."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq50():
    torch = _torch()
    eps = 1e-5

    def ln(Z):
        t = torch.tensor(np.asarray(Z, dtype=float))
        return torch.nn.functional.layer_norm(t, (t.shape[1],), eps=eps).numpy()

    def data(c):
        s, n0 = c
        return np.tile(np.arange(n0, dtype=float) - 1, (s, 1)), np.zeros((s, n0))

    def printed_ok(c):
        X, F = data(c)
        return _close(ln(np.maximum(X + F, 0)), ln(X + F))

    def witness(c):
        X, F = data(c)
        return {"X": X.tolist(), "F(X)": F.tolist(), "Norm(ReLU(X + F(X)))": ln(np.maximum(X + F, 0)).tolist(),
                "Norm(X + F(X))": ln(X + F).tolist()}

    def corrected(c):
        X, F = data(c)
        Z = X + F
        mine = (Z - Z.mean(axis=1, keepdims=True)) / np.sqrt(Z.var(axis=1, keepdims=True) + eps)
        return _close(mine, ln(X + F))

    return decide(_num_exhaustive(printed_ok, _dims(2, 3), "s, n0 in [1, 3]", witness),
                  correction=("X' = X + F(X) (the residual sum itself; the Norm of (52) follows)",
                              _num_exhaustive(corrected, _dims(2, 3), "s, n0 in [1, 3], NumPy LayerNorm vs torch")))


@claim(
    "cheng2025:eq52",
    quote="y = (x − E(x))/√(Var(x) + ε) * γ + β  (52),  Var(x) = (1/d) √(Σ_i (x_{i,j} − E_j(x))²)",
    statement=(
        "Vector-wise and layer-wise normalization with the printed Var compared with the standard layer "
        "normalization torch.nn.functional.layer_norm (biased variance (1/d)Σ(x − E)², same ε = 1e-3, γ = 1, "
        "β = 0), for d in [1, 4] (vector-wise, one column) and d×s in [1, 3]² (layer-wise), integer x, float64 tol 1e-12."
        + SAMPLED_WHY
    ),
    methods=["numeric", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq52():
    torch = _torch()
    eps = 1e-3

    def norm(x, printed):
        x = np.asarray(x, dtype=float)
        E = x.mean()
        dev = ((x - E) ** 2).sum()
        var = math.sqrt(dev) / x.size if printed else dev / x.size
        return (x - E) / math.sqrt(var + eps)

    def ref(x):
        t = torch.tensor(np.asarray(x, dtype=float))
        return torch.nn.functional.layer_norm(t, t.shape, eps=eps).numpy()

    cases = [("vector", (d, 1)) for d in range(1, 5)] + [("layer", c) for c in _dims(2, 3)]

    def ok(case, printed=True):
        _, (d, s) = case
        x = _rnd((d, s), d * 10 + s)
        return _close(norm(x, printed), ref(x))

    def witness(case):
        _, (d, s) = case
        x = _rnd((d, s), d * 10 + s)
        return {"x": x.tolist(), "printed": norm(x, True).tolist(), "layer_norm": ref(x).tolist()}

    printed = _num_exhaustive(ok, cases, "vector-wise d in [1, 4]; layer-wise d, s in [1, 3]", witness)
    corrected = _num_exhaustive(lambda c: ok(c, False), cases, "same cases, Var = (1/d) Σ (x − E)²")
    return decide(printed, correction=("Var(x) = (1/d) Σ_i (x_{i,j} − E_j(x))² (no square root); layer-wise (1/(ds)) ΣΣ (x − E)²", corrected))


@claim(
    "cheng2025:eq53",
    quote="FFN(X) = W_2 ReLU(W_1 X + α B_1) + β B_2,  X ∈ M_{s×n0}, W_1 ∈ M_{α×s}, W_2 ∈ M_{β×α}   (53)",
    statement=(
        "The standard feed-forward of [18] acts on each token separately, FFN(X)_i = ReLU(X_i V_1 + b_1) V_2 + b_2, "
        "so it commutes with permutations of the tokens (rows of X). Checked: the printed (53), with β = s so the "
        "shapes allow it and the biases read as shared by all tokens (αB_1 = 1_α b_1ᵀ, βB_2 = 1_s b_2ᵀ, the reading "
        "most favourable to the paper: only the weights W_1 ∈ M_{α×s}, W_2 ∈ M_{s×α} can then break it), commutes with "
        "the cyclic shift of the rows, exactly, for all s, n0, α in [1, 3] (s = 1 is equivariant for all values, P = I), on "
        "X = (1, 2, ...) row by row, W_1 = [1 0 ... 0] in every row, W_2 = e_1 1ᵀ_α, b = 0; "
        "the correction, stated in the paper's own convention (36) (Qᵀ = W^q Xᵀ: weights on the left of Xᵀ), is "
        "compared with torch Linear-ReLU-Linear and checked to commute with the row shift."
        + SAMPLED_WHY
    ),
    methods=["exact", "exhaustive", "numeric"],
    hypotheses=_SIZES,
)
def _eq53():
    torch = _torch()
    relu = lambda a: np.maximum(a, 0)  # noqa: E731

    def data(c):  # every hidden unit reads token 1 and only token 1 is written: X positive, biases 0
        s, n0, al = c
        X = np.arange(1, s * n0 + 1, dtype=np.int64).reshape(s, n0)
        W1 = np.zeros((al, s), dtype=np.int64)
        W1[:, 0] = 1
        W2 = np.zeros((s, al), dtype=np.int64)
        W2[0, :] = 1
        return X, W1, W2, np.zeros(n0, dtype=np.int64), np.zeros(n0, dtype=np.int64)

    def printed_f(Z, W1, W2, b1, b2):  # biases shared by the tokens, as in [18] (the reading most favourable to (53))
        return W2 @ relu(W1 @ Z + np.ones((W1.shape[0], 1), dtype=np.int64) * b1) + np.ones((W2.shape[0], 1), dtype=np.int64) * b2

    def printed_ok(c):
        X, W1, W2, b1, b2 = data(c)
        P = np.roll(np.eye(c[0], dtype=np.int64), 1, axis=0)
        return np.array_equal(printed_f(P @ X, W1, W2, b1, b2), P @ printed_f(X, W1, W2, b1, b2))

    def witness(c):
        X, W1, W2, b1, b2 = data(c)
        P = np.roll(np.eye(c[0], dtype=np.int64), 1, axis=0)
        return {"X": X.tolist(), "W1": W1.tolist(), "W2": W2.tolist(), "b1": b1.tolist(), "b2": b2.tolist(),
                "P (cyclic row shift)": P.tolist(), "FFN(PX)": printed_f(P @ X, W1, W2, b1, b2).tolist(),
                "P FFN(X)": (P @ printed_f(X, W1, W2, b1, b2)).tolist()}

    printed = _exact_exhaustive(printed_ok, _dims(3, 3), "s, n0, α in [1, 3]", witness)

    def corr(c):
        s, n0, dff = c  # d_ff = α, the hidden width
        X = _rnd((s, n0), sum(c))
        W1, W2 = _rnd((dff, n0), sum(c) + 1), _rnd((n0, dff), sum(c) + 2)  # (36)'s convention: weights on the left of Xᵀ
        b1, b2 = _rnd(dff, sum(c) + 3), _rnd(n0, sum(c) + 4)
        fixed_t = W2 @ relu(W1 @ X.T + np.outer(b1, np.ones(s))) + np.outer(b2, np.ones(s))  # FFN(X)ᵀ, the fix of (53)
        mine = fixed_t.T
        V1, V2 = W1.T, W2.T
        net = torch.nn.Sequential(torch.nn.Linear(n0, dff), torch.nn.ReLU(), torch.nn.Linear(dff, n0)).double()
        with torch.no_grad():
            net[0].weight.copy_(torch.tensor(V1.T, dtype=torch.float64)); net[0].bias.copy_(torch.tensor(b1, dtype=torch.float64))
            net[2].weight.copy_(torch.tensor(V2.T, dtype=torch.float64)); net[2].bias.copy_(torch.tensor(b2, dtype=torch.float64))
            ref = net(torch.tensor(X, dtype=torch.float64)).numpy()
        P = np.roll(np.eye(s, dtype=np.int64), 1, axis=0)
        return _close(mine, ref) and np.array_equal(relu(P @ X @ V1 + b1) @ V2 + b2, P @ mine)

    return decide(printed, correction=(
        "In the paper's own convention (36), Qᵀ = W^q Xᵀ: FFN(X)ᵀ = W_2 ReLU(W_1 Xᵀ + b_1 1ᵀ_s) + b_2 1ᵀ_s with W_1 ∈ "
        "M_{α×n0}, W_2 ∈ M_{n0×α} (β = n0), b_1 ∈ R^α, b_2 ∈ R^{n0} -- the minimal fix of (53): Xᵀ for X and n0 for s "
        "in W_1's shape; the weights then act on the features of each token, not across the s tokens",
        _num_exhaustive(corr, _dims(3, 3), "s, n0, d_ff in [1, 3], vs torch Linear-ReLU-Linear")))


# =============================================================================================


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
