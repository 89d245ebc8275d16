"""farag2025 §7: SPM in attention, backward (36)-(39), softmax form, §7.6."""

from __future__ import annotations

from ..engine import device_cached
from ._common import *  # noqa: F401,F403  (shared references, imports and helpers)


# ---------------------------------------------------------------------------------------------
# §7 attention: autograd-free references (SymPy and finite differences)
# ---------------------------------------------------------------------------------------------


# ----- §7.1: where attention's cost lies -------------------------------------------------------------
#: multiplications of the matrix products of (29)-(35) for T rows of width d (h heads of width d_h = d/h):
#: each projection X W is T·d·d; the scores QK^T are h·T·T·d_h = T²d; AV is T²d as well
_PROJ = lambda T, d: 4 * T * d * d  # noqa: E731
_CORE = lambda T, d: 2 * T * T * d  # noqa: E731


@claim(
    "farag2025:sec7.1",
    quote="These projections account for the majority of the O(Td²) cost of attention.",
    statement=(
        "Cost = multiplications in the matrix products of (29)-(35) for one sequence: the four projections "
        "(29)-(31), (35) cost 4Td² (T×d times d×d each); the scores QK^T (32) cost T²d (h heads of width d_h = d/h: "
        "h·T²·d_h) and AV (34) T²d (the softmax's O(T²h) exponentials are not counted; they only add to the "
        "non-projection side). Printed, for every T, d ≥ 1: 4Td² > 2T²d (the projections are more than half). "
        "It fails: Z3's minimal counterexample (smallest T + d) is T = 2, d = 1, where both sides are 8; the "
        "total cost is 4Td² + 2T²d, which is O(Td²) only when T = O(d). Correction, proved with Z3 for all T, d ≥ 1: "
        "the projections are the majority if and only if T < 2d. Other reading (not the text's: it names no "
        "regime): T ≤ d, where the total is at most 6Td²: then the projections are the majority (proved)."
    ),
    methods=["symbolic"],
    hypotheses=("T, d ≥ 1: a sequence length and a model dimension (§7.1)",
                lambda c: isinstance(c, dict) and c.get("T", 0) >= 1 and c.get("d", 0) >= 1),
)
def _sec7_1():
    T, d = prover.ints("T d")
    hyp = [T >= 1, d >= 1]
    fa = "for all integers T, d >= 1 (sequence length, model dimension)"
    printed = prover.prove(_PROJ(T, d) > _CORE(T, d), assuming=hyp, for_all=fa, sizes=[T, d]).trial(
        "4Td² > 2T²d (projections more than half of the cost)")
    corr = prover.prove((_PROJ(T, d) > _CORE(T, d)) == (T < 2 * d), assuming=hyp, for_all=fa, sizes=[T, d]).trial(
        "4Td² > 2T²d if and only if T < 2d")
    literal = decide(printed, correction=(
        "The four projections account for the majority of attention's matrix-product cost (4Td² of 4Td² + 2T²d) "
        "if and only if T < 2d; the total is O(Td²) only when T = O(d).", corr))
    regime = decide(prover.prove(z3.Implies(T <= d, _PROJ(T, d) > _CORE(T, d)), assuming=hyp, for_all=fa, sizes=[T, d]).trial("T <= d implies 4Td² > 2T²d"))
    return by_readings(
        Reading("every T, d", "For every sequence length T and width d, 4Td² > 2T²d.", literal),
        Reading("T <= d", "When T <= d (a regime the text does not name), 4Td² > 2T²d.", regime, supported=False))



@claim(
    "farag2025:sec7.2/cost",
    quote="This substitution preserves the functional form of attention while reducing the dominant projection cost from O(Td²) to O(TdL)",
    statement=(
        "Operation counts for the four projections of one sequence of T rows: dense 4Td² multiplications (X W, "
        "T×d times d×d); SPM 4T·F(d, L) with F(d, L) = L⌊d/2⌋f + L(d mod 2) + 3d the per-example forward count of "
        "sec5/time (f = the printed general block's forward operations, SymPy count_ops of (10)-(11)). Proved with "
        "Z3 for all T, d, L ≥ 1: 2·4T·F(d, L) ≤ 4T((f + 8)dL + 2L), i.e. the SPM projections are O(TdL), while the "
        "dense ones are 4Td² ≥ Td² (Θ(Td²))."
    ),
    methods=["symbolic"],
)
def _sec7_2_cost():
    from .sec5 import _forward_ops, _pair_costs
    f, _ = _pair_costs("general")
    T, d, L = prover.ints("T d L")
    F = _forward_ops(d, L, f)
    pr = prover.prove(z3.And(2 * 4 * T * F <= 4 * T * ((f + 8) * d * L + 2 * L), 4 * T * d * d >= T * d * d),
                      assuming=[T >= 1, d >= 1, L >= 1], lemmas=[prover.DIV_MOD_RECOMPOSE], sizes=[T, d, L],
                      for_all=f"for all T, d, L >= 1 (general block, f = {f})")

    def ok(c):
        t, dd, ll = c
        ff = ll * (dd // 2) * f + ll * (dd % 2) + 3 * dd
        return 2 * 4 * t * ff <= 4 * t * ((f + 8) * dd * ll + 2 * ll)

    fallback = lambda: exhaustive(ok, ((t, dd, ll) for t in range(1, 9) for dd in range(1, 33) for ll in range(1, 9)),  # noqa: E731
                                  describe="T 1..8, d 1..32, L 1..8")
    return decide(pr.or_else(fallback, "SPM projections <= (f/2 + 4)·4TdL + 4TL"), per_pair_forward_ops=f)


def _attn_maps(d, seed):
    return {k: _fspm(d, 2, variant="general", schedule="random", seed=seed + i) for i, k in enumerate("QKVO")}


def _attention_symbolic():
    """T = 2, d = 2: SymPy differentiation of L = ⟨G_Y, Y⟩ in symbolic X, then both sides evaluated at a
    rational point to 60 digits (rational block entries; the softmax makes the residual transcendental)."""
    T, d = 2, 2
    Xs = sympy.Matrix(T, d, sympy.symbols("X0:4"))
    GY = sympy.Matrix(T, d, [sympy.Rational(v, 3) for v in (1, -2, 4, 1)])
    maps = {}
    for q, k in enumerate("QKVO"):
        ent = [sympy.Rational(v, 2 + q) for v in ((1, 2, -1, 3), (2, -1, 1, 1), (-1, 1, 2, 1), (3, 1, 1, -2))[q]]
        maps[k] = spm_layer(2, [np.array([[0, 1]])], [[ent]], variant="general", d_in=[1, 1], d_out=[1, 1], bias=[0, 0])
    X = np.array(Xs.tolist(), dtype=object)
    Y, _ = spm_attention_forward(maps, X, d_h=2)
    loss = sum(GY[i, j] * Y[i, j] for i in range(T) for j in range(d))
    pt = {v: sympy.Rational(k - 1, 2) for k, v in enumerate(Xs)}
    gX = sympy.Matrix(T, d, [sympy.diff(loss, v).subs(pt) for v in Xs])
    Xp = np.array(Xs.subs(pt).tolist(), dtype=object)
    out = spm_attention_backward(maps, spm_attention_forward(maps, Xp, d_h=2)[1], np.array(GY.tolist(), dtype=object))
    A = np.array([[complex(sympy.N(e, 60)).real for e in row] for row in gX.tolist()])
    B = np.array([[complex(sympy.N(e, 60)).real for e in row] for row in out["X"].tolist()])
    return numeric_close(B, A, describe="∂⟨G_Y, Y⟩/∂X by SymPy diff vs printed chain (36)-(39) + softmax form, T=d=2, "
                         "exact expressions evaluated to 60 digits", rtol=1e-13, atol=1e-15)


def _attention_fd():
    T, d = 4, 6
    maps = _attn_maps(d, 7)
    rng = np.random.default_rng(8)
    X, GY = rng.standard_normal((T, d)), rng.standard_normal((T, d))
    cache = spm_attention_forward(maps, _dev(X), d_h=3)[1]  # read, never written, by the backward
    out = spm_attention_backward(maps, cache, _dev(GY))

    def fwd(m, xx):
        return float(np.sum(GY * to_numpy(spm_attention_forward(m, _dev(xx), d_h=3)[0])))

    fx = fd_grad(lambda v: fwd(maps, v), X)
    lq = maps["Q"]
    _, di, do, b, _ = _host(lq)

    def fq(v):
        m2 = dict(maps)
        m2["Q"] = spm_layer(d, list(lq.pairs), v, variant="general", d_in=di, d_out=do, bias=b, backend=float_backend())
        return fwd(m2, X)

    return all_of(numeric_close(out["X"], fx, describe="attention ∂L/∂X vs FD, T=4, d=6, d_h=3", rtol=1e-6, atol=1e-7),
                  numeric_close(out["Q"]["params"], fd_grad(fq, to_numpy(lq.params)), describe="∂L/∂θ_Q vs FD",
                                rtol=1e-6, atol=1e-7),
                  grads_match(out, _attention_reference_grads(maps, X, GY, 3), "every gradient of isomat's attention "
                              "backward (X, grad_H, grad_A, grad_S, grad_Q, grad_K, grad_V and each map's params, d_in, d_out, bias) vs "
                              "(36)-(39) and the softmax form with dense loop-built maps, T=4, d=6, d_h=3"),
                  exhaustive(lambda which: maps_refused(which[1], maps, ATTN_MAPS),
                             [("forward", lambda m: spm_attention_forward(m, _dev(X), d_h=3)),
                              ("backward", lambda m: spm_attention_backward(m, cache, _dev(GY)))],
                             method="exact", describe="spm_attention_forward and spm_attention_backward refuse maps that are "
                                                      "no dict of the four SPM layers of one width, naming maps and what they got"))


def _attention_reference_grads(maps, X, GY, d_h):
    """Every gradient of ⟨G_Y, Y⟩ for (29)-(35), on the host, with the maps as dense matrices built by loops
    (:func:`_naive_dense`, rows: SPM(Z) = Z Mᵀ + b): G_H = G_Y M_O, (36) G_A = G_H Vᵀ, (37) G_V = Aᵀ G_H, row-wise
    G_S = A ⊙ (G_A − rowsum(A ⊙ G_A)), (38) G_Q = G_S K/√d_h, (39) G_K = G_Sᵀ Q/√d_h; each map's parameter gradients
    from :func:`_reference_grads` (loops) at its input (X, or H for O) and upstream gradient; G_X summed over Q, K,
    V. Shares no code with isomat's attention backward."""
    M = {k: _naive_dense(v) for k, v in maps.items()}
    proj = lambda k, Z: Z @ M[k].T + to_numpy(maps[k].bias)  # noqa: E731
    Q, K, V = proj("Q", X), proj("K", X), proj("V", X)
    S = Q @ K.T / math.sqrt(d_h)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    H = A @ V
    G_H = GY @ M["O"]
    G_A, G_V = G_H @ V.T, A.T @ G_H
    G_S = A * (G_A - (A * G_A).sum(axis=1, keepdims=True))
    G_Q, G_K = G_S @ K / math.sqrt(d_h), G_S.T @ Q / math.sqrt(d_h)
    at = {"O": (H, GY), "Q": (X, G_Q), "K": (X, G_K), "V": (X, G_V)}
    out = {k: _reference_grads(maps[k], u, g) for k, (u, g) in at.items()}
    out.update(X=G_Q @ M["Q"] + G_K @ M["K"] + G_V @ M["V"], grad_H=G_H, grad_A=G_A, grad_S=G_S, grad_Q=G_Q,
               grad_K=G_K, grad_V=G_V)
    return out


@device_cached
def _chain_trial_cached(key: str) -> Trial:
    fd = _attention_fd()
    fd = fd.with_evidence(field=key)  # isomat's attention forward/backward ran in this field (the cache is per field)
    return all_of(_attention_symbolic(), fd)


def _chain_trial():
    """Binding: isomat's attention backward against SymPy (T = d = 2) and finite differences (T = 4, d = 6), once
    per float field (a functools cache, which the mutation suite clears)."""
    return _chain_trial_cached(float_backend())


# The printed right-hand sides of (36)-(39) as matrix expressions (symbolic sizes), and the §7.4
# componentwise form as an indexed expression (row of length n, coordinate k, dummy j).
_ATTN_PRINTED = {
    "eq36": lambda GH, A, V: GH * V.T,
    "eq37": lambda GH, A, V: A.T * GH,
    "eq38": lambda GS, Q, K, dh: GS * K / sympy.sqrt(dh),
    "eq39": lambda GS, Q, K, dh: GS.T * Q / sympy.sqrt(dh),
    "sec7.4": lambda g, A, k, n, j: A(k) * (g[k] - sympy.Sum(A(j) * g[j], (j, 0, n - 1))),
}


def _attn_direct(which):
    """Each printed backward formula of §7.3-7.5 by SymPy differentiation with symbolic sizes (T, d, n
    positive integer symbols; MatrixSymbol operands; generic entries)."""
    dh = sympy.Symbol("d_h", positive=True)
    if which in ("eq36", "eq37"):
        A, V, GH = sympy.MatrixSymbol("A", _T, _T), sympy.MatrixSymbol("V", _T, _D), sympy.MatrixSymbol("G_H", _T, _D)
        loss = sympy.Trace(GH.T * A * V)  # ⟨G_H, AV⟩
        wrt = A if which == "eq36" else V
        return _entry_zero(loss.diff(wrt), _ATTN_PRINTED[which](GH, A, V), sizes=[_D] if which == "eq36" else [_T],
                           describe=f"∂⟨G_H, AV⟩/∂{'A' if which == 'eq36' else 'V'} vs printed ({which[2:]}), symbolic T, d",
                           for_all="for all T, d >= 1 and every A ∈ R^{T×T}, V, G_H ∈ R^{T×d} (SymPy matrix calculus, "
                                   "symbolic dimensions)")
    if which in ("eq38", "eq39"):
        Q, K, GS = sympy.MatrixSymbol("Q", _T, _D), sympy.MatrixSymbol("K", _T, _D), sympy.MatrixSymbol("G_S", _T, _T)
        loss = sympy.Trace(GS.T * Q * K.T / sympy.sqrt(dh))  # ⟨G_S, QK^T/√d_h⟩
        wrt = Q if which == "eq38" else K
        return _entry_zero(loss.diff(wrt), _ATTN_PRINTED[which](GS, Q, K, dh), sizes=[_T],
                           describe=f"∂⟨G_S, QK^T/√d_h⟩/∂{'Q' if which == 'eq38' else 'K'} vs printed ({which[2:]}), symbolic T, d",
                           for_all="for all T, d >= 1, d_h > 0 and every Q, K ∈ R^{T×d}, G_S ∈ R^{T×T} (SymPy matrix "
                                   "calculus, symbolic dimensions)", domain={"d_h": "real > 0"})
    if which == "sec7.4":
        # one row t of S (softmax is row-wise): a = softmax(s) ∈ R^n, L = Σ_i g_i a_i; ∂L/∂s_k for 0 <= k < n,
        # with n = k + 1 + m (m >= 0) so that k is in range
        i, j = sympy.symbols("i j", integer=True)
        k, m = sympy.symbols("k m", integer=True, nonnegative=True)
        g, sv = sympy.IndexedBase("g"), sympy.IndexedBase("s")
        Z = sympy.Sum(sympy.exp(sv[j]), (j, 0, _N - 1))
        A = lambda q: sympy.exp(sv[q]) / Z  # noqa: E731
        loss = sympy.Sum(g[i] * A(i), (i, 0, _N - 1))
        got = sympy.diff(loss, sv[k]).doit().subs(_N, k + 1 + m).xreplace({i: j})  # rename the bound index
        printed = _ATTN_PRINTED["sec7.4"](g, A, k, _N, j).subs(_N, k + 1 + m)
        return symbolic_zero(got - printed, describe="∂⟨g, softmax(s)⟩/∂s_k vs componentwise form, symbolic row length n",
                             for_all="for all n >= 1, 0 <= k < n and real s, g ∈ R^n, the row length written n = k + 1 + m "
                                     "with m >= 0 the coordinates after k (one row of S; softmax is row-wise, so every T) "
                                     "(SymPy, Sum over a symbolic range)", sizes=[m],
                             domain={"k": "integer >= 0", "m": "integer >= 0"})
    # sec7.3: Y = SPM_O(H) row-wise = H M^T + 1 b^T  =>  G_H = G_Y M (SPM_O^T applied to each row of G_Y)
    H, GY, M = sympy.MatrixSymbol("H", _T, _N), sympy.MatrixSymbol("G_Y", _T, _N), sympy.MatrixSymbol("M", _N, _N)
    bvec = sympy.MatrixSymbol("b", _N, 1)
    loss = sympy.Trace(GY.T * (H * M.T + sympy.OneMatrix(_T, 1) * bvec.T))
    return _entry_zero(loss.diff(H), GY * M, sizes=[_N], describe="∂⟨G_Y, H M^T + 1 b^T⟩/∂H vs G_Y M (= SPM_O^T on each row)",
                       for_all="for all T, n >= 1, every M ∈ R^{n×n} (in particular M = D_out B_L⋯B_1 D_in), b ∈ R^n, "
                               "H, G_Y ∈ R^{T×n} (SymPy matrix calculus, symbolic dimensions)")


def _sec7_3_isomat() -> Trial:
    """isomat's SPM backward input gradient equals G_Y M for a naive odd-scaled stage (T = 2, n = 3, symbolic)."""
    T, d = 2, 3
    sym = lambda name, r, c: sympy.Matrix(r, c, sympy.symbols(f"{name}0:{r * c}"))  # noqa: E731
    H, GY = sym("H", T, d), sym("GY", T, d)
    ent = sympy.symbols("e0:4")
    di, do, bb = (sympy.symbols(f"{p}0:{d}") for p in ("di", "do", "bb"))
    M = sympy.diag(*do) * naive_stage(d, [(0, 2)], [ent], sympy.Symbol("s")) * sympy.diag(*di)
    lay = spm_layer(d, [np.array([[0, 2]])], [[list(ent)]], variant="general", d_in=list(di), d_out=list(do),
                    bias=list(bb), odd="scale", odd_scale=[sympy.Symbol("s")])
    GH_iso = sympy.Matrix(spm_backward(lay, np.array(H.tolist(), dtype=object), np.array(GY.tolist(), dtype=object))["x"].tolist())
    return symbolic_zero(GH_iso - GY * M, describe="isomat SPM backward input gradient vs G_Y M, n = 3 odd-scaled")


def _attn_claim(which):
    def run():
        printed = _attn_direct(which)
        extra = {}
        if which == "sec7.3":  # SPM_O^T is isomat's spm_backward: a builder no proved rule computes
            extra = {"isomat_spm_transpose": _sec7_3_isomat(), "isomat_backward": _backward_binding("x")}
        return decide(printed, isomat_attention_backward=_chain_trial(), **extra)
    return run


def _attention_forward_check():
    def ok(c):
        T, d = c
        maps = _attn_maps(d, T * 10 + d)
        X = np.random.default_rng(T).standard_normal((T, d))
        W = {k: _naive_dense(v).T for k, v in maps.items()}  # W_• of (29)-(35): Q = X W_Q
        b = {k: to_numpy(v.bias) for k, v in maps.items()}
        Q, K, V = (X @ W[k] + b[k] for k in "QKV")  # (29)-(31)
        S = Q @ K.T / math.sqrt(d)  # (32), d_h = d
        A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)  # (33), row-wise
        Y = (A @ V) @ W["O"] + b["O"]  # (34)-(35)
        return np.allclose(to_numpy(spm_attention_forward(maps, _dev(X))[0]), Y, rtol=1e-11, atol=1e-12)

    return exhaustive(ok, ((T, d) for T in (1, 2, 5) for d in (1, 2, 3, 4, 7)), describe="T ∈ {1,2,5}, d ∈ {1,2,3,4,7}")


# (29)-(35) and §7.2 define SPM attention: definitions, not claims. isomat's attention forward against the dense
# evaluation of (29)-(35) (``_attention_forward_check``) is a test in tests/test_farag2025_claims.py.

for _id, _q, _what in (
        ("eq36", "G_A = G_H V^T   (36)", "∂⟨G_H, AV⟩/∂A = G_H V^T"),
        ("eq37", "G_V = A^T G_H   (37)", "∂⟨G_H, AV⟩/∂V = A^T G_H"),
        ("sec7.4", "(G_{S_t})_i = A_{t,i}((G_{A_t})_i − Σ_j A_{t,j}(G_{A_t})_j)",
         "∂⟨G_A, softmax_rows(S)⟩/∂S equals the componentwise form"),
        ("eq38", "G_Q = G_S K / √d_h   (38)", "∂⟨G_S, QK^T/√d_h⟩/∂Q = G_S K/√d_h"),
        ("eq39", "G_K = G_S^T Q / √d_h   (39)", "∂⟨G_S, QK^T/√d_h⟩/∂K = G_S^T Q/√d_h"),
        ("sec7.3", "G_H = SPM_O^T(G_Y)", "for Y = SPM_O(H) row-wise (= H M^T + b), ∂⟨G_Y, Y⟩/∂H = G_Y M, i.e. SPM_O^T "
         "applied to each row (and isomat's SPM backward gives it)")):
    claim(
        f"farag2025:{_id}", quote=_q,
        statement=(
            f"Proved by SymPy differentiation with symbolic sizes (matrix calculus on MatrixSymbols for every T, d; "
            f"for the softmax form, Sums over a symbolic row length n): {_what}. Binding check (a failure is an error of the claim), the whole chain: "
            "isomat's attention backward is the printed chain G_H = SPM_O^T(G_Y), (36), (37), the softmax "
            "componentwise form, (38), (39), and the three SPM backwards summed at X. It equals SymPy "
            "differentiation of ⟨G_Y, Y⟩ for T = d = 2 in symbolic X (rational G_Y and block entries; both sides "
            "exact expressions evaluated to 60 digits at a rational X, rtol 1e-13), and central finite differences "
            "for ∂L/∂X and ∂L/∂θ_Q (T = 4, d = 6, d_h = 3, rtol 1e-6); every gradient it returns (each map's too) "
            "matches (36)-(39) and the softmax form evaluated with dense loop-built maps (rtol 1e-10)."
            + (_builder_note("spm_backward") if _id == "sec7.3" else "")
        ),
        methods=["symbolic", "exact", "numeric"],
    )(_attn_claim(_id))


@claim(
    "farag2025:sec7.4/jacobian",
    quote="G_{S_t} = J_softmax(A_t)^T G_{A_t}, which admits the closed-form componentwise expression",
    statement=(
        "J_softmax(a) = diag(a) − a a^T, i.e. ∂a_i/∂s_k = a_i(δ_ik − a_k) for a = softmax(s): proved for every row "
        "length n and 0 <= i, k < n (SymPy, Sum over a symbolic range; the form is symmetric in i, k), and J^T g has "
        "components a_k(g_k − Σ_j a_j g_j) (proved as in sec7.4). Binding check (a failure is an error of the claim): SymPy Jacobian of the "
        "softmax of generic s ∈ R^k, k = 2..4."
    ),
    methods=["symbolic", "exhaustive"],
)
def _sec7_4j():
    def ok(k):
        s = sympy.symbols(f"s0:{k}", real=True)
        g = sympy.Matrix(sympy.symbols(f"g0:{k}", real=True))
        e = [sympy.exp(v) for v in s]
        a = sympy.Matrix([v / sum(e) for v in e])
        J = a.jacobian(s)
        comp = sympy.Matrix([a[i] * (g[i] - sum(a[j] * g[j] for j in range(k))) for i in range(k)])
        return symbolic_zero(J.T * g - comp, describe="").ok and symbolic_zero(J - (sympy.diag(*a) - a * a.T), describe="").ok

    cross = exhaustive(ok, range(2, 5), describe="k = 2..4")
    j = sympy.Symbol("j", integer=True)
    i, k, m = sympy.symbols("i k m", integer=True, nonnegative=True)
    sv = sympy.IndexedBase("s")
    Z = sympy.Sum(sympy.exp(sv[j]), (j, 0, _N - 1))
    a = lambda q: sympy.exp(sv[q]) / Z  # noqa: E731
    J = sympy.diff(a(i), sv[k]).doit().subs(_N, k + 1 + m)
    entry = symbolic_zero(J - (a(i) * (sympy.KroneckerDelta(i, k) - a(k))).subs(_N, k + 1 + m),
                          describe="∂a_i/∂s_k vs (diag(a) − a a^T)_{ik} = a_i(δ_ik − a_k)",
                          for_all="for all n >= 1, 0 <= i, k < n and real s ∈ R^n, the row length written n = k + 1 + m "
                                  "with m >= 0 (SymPy, Sum over a symbolic range)", sizes=[m],
                          domain={"i": "integer >= 0", "k": "integer >= 0", "m": "integer >= 0"})
    return decide(all_of(entry, _attn_direct("sec7.4")), small_k=cross, isomat_attention_backward=_chain_trial())


@claim(
    "farag2025:sec7.6",
    quote="When using the orthogonal (rotation-based) SPM parameterization, each projection preserves the ℓ2 norm",
    statement=(
        "‖SPM(x)‖₂ = ‖x‖₂ for every x, rotation variant, with the diagonals of eq. (1) that §7.2 says each "
        "projection has (\"its own diagonal scalings\"). Exhaustive over n = 2, L = 1, θ = 0, d_in, d_out ∈ {1, 2}², "
        "b = 0, x = e_1, e_2, smallest diagonal sum first. Other reading (not the text's: §7.2 gives each projection "
        "its own diagonal scalings): only the stage product B_L⋯B_1 of a projection, orthogonal exactly for symbolic "
        "angles, n = 2..4, L = 1..2 (as sec8.4/stages)."
    ),
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=("rotation variant with the real, nonzero diagonal scalings of (1) that each projection has (§7.2)",
                lambda c: isinstance(c, list) and all(v != 0 for part in c for v in part)),
)
def _sec7_6():
    def ok(c):
        di, do = c
        lay = spm_layer(2, [np.array([[0, 1]])], [[sympy.Integer(0)]], d_in=list(di), d_out=list(do), bias=[0, 0])
        X = np.array([[1, 0], [0, 1]], dtype=object)
        Y = spm_forward(lay, X)
        return all(sum(v**2 for v in Y[r]) == 1 for r in range(2))

    cases = [(di, do) for di in itertools.product((1, 2), repeat=2) for do in itertools.product((1, 2), repeat=2)]
    cases.sort(key=lambda c: sum(c[0]) + sum(c[1]))
    def witness(c):
        di, do = c
        lay = spm_layer(2, [np.array([[0, 1]])], [[sympy.Integer(0)]], d_in=list(di), d_out=list(do), bias=[0, 0])
        Y = spm_forward(lay, np.array([[1, 0], [0, 1]], dtype=object))
        return {"d_in": list(di), "d_out": list(do), "‖SPM(e_1)‖²": sum(v**2 for v in Y[0]), "‖SPM(e_2)‖²": sum(v**2 for v in Y[1])}

    printed = exhaustive(ok, cases, describe="n=2, L=1, θ=0, diagonals in {1,2}, x = e_1, e_2", witness=witness)

    def corr_ok(n):
        # every angle (symbols) and every sign vector: d_in = e, d_out = f with e_i² = f_i² = 1 (symbols reduced by it)
        L = 2
        t = np.array(sympy.symbols(f"t0:{L * (n // 2)}"), dtype=object).reshape(L, n // 2)
        e, f = sympy.symbols(f"e0:{n}"), sympy.symbols(f"f0:{n}")
        lay = spm_layer(n, butterfly_pairings(n, L), t, d_in=list(e), d_out=list(f), bias=[0] * n)
        M = sympy.Matrix(layer_matrix(lay))
        unit = {v**2: 1 for v in (*e, *f)}
        R = (M.T * M - sympy.eye(n)).applyfunc(lambda x: sympy.expand(x).subs(unit))
        return trig_zero(R)

    corr = exhaustive(corr_ok, range(2, 5), describe="n = 2..4, L = 2, symbolic angles, symbolic d_in, d_out with d_i² = 1 "
                      "(every sign vector), b = 0", method="symbolic")
    whole = decide(printed, correction=(
        "Only the stage product B_L⋯B_1 is orthogonal; the projection D_out B_L⋯B_1 D_in x + b preserves ℓ2 norms "
        "when b = 0 and d_in, d_out ∈ {±1}^n (verified exactly for every angle and every sign vector, n = 2..4, L = 2). These conditions are "
        "sufficient, not necessary (d_in = c·1, d_out = c⁻¹·1 also gives an orthogonal matrix); with b ≠ 0 or general "
        "learned diagonals the norm is not preserved (counterexample).", corr))
    stages = decide(exhaustive(_rotation_product_orthogonal, ((n, L) for n in range(2, 5) for L in (1, 2)),
                               describe="n 2..4 (pass-through), L 1..2, symbolic angles", method="symbolic"))
    return by_readings(
        Reading("the projection", "SPM_Q, SPM_K, SPM_V, SPM_O with their own diagonal scalings (§7.2) preserve ‖x‖₂", whole),
        Reading("the mixing stages", "the rotation stages' product B_L⋯B_1 of each projection preserves ‖x‖₂", stages,
                supported=False))



__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
