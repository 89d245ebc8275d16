"""zhu2025 §4.4 and Theorem 4.3 (Appendix A.3): attention."""

from __future__ import annotations

import itertools

import numpy as np
import sympy
import z3

from ...algebra import attention as _att
from ...algebra._backend import array_module
from .. import prover
from ..engine import (Reading, all_of, builder_check, by_readings, claim, compare_printed, decide, exhaustive, float_backend,
                      require)
from ._common import (
    _sizes,
    attention_builder_check,
    attention_not_homogeneous_numpy,
    _sym,
)
from ._builders import ATTENTION_BOUND, builder_note, w_sa_fields_check


# ---------------------------------------------------------------------------------------------
# §4.4 and Theorem 4.3 (Appendix A.3): attention
# ---------------------------------------------------------------------------------------------
def _softmax_attn(X, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    S = np.exp(S - S.max(axis=1, keepdims=True))
    return (S / S.sum(axis=1, keepdims=True)) @ V


def _softmax_attn_exact(X, Wq, Wk, Wv):
    """softmax(XW_q(XW_k)^T/√d) XW_v in exact SymPy arithmetic (E, sqrt kept symbolic)."""
    d = X.cols
    S = (X * Wq) * (X * Wk).T / sympy.sqrt(d)
    A = sympy.Matrix(S.rows, S.cols, lambda i, j: sympy.exp(S[i, j]) / sum(sympy.exp(S[i, l]) for l in range(S.cols)))
    return A * (X * Wv)


@claim(
    "zhu2025:sec4.4/third-order-tensor",
    quote="These operations collapse into a third-order tensor T_att ∈ R^{N×N×d} such that each output row "
          "Z_{k,:} = Σ_i Σ_j T_att[k, i, j] X_{j,:} matches the transformer block exactly",
    statement="With softmax (as §4.4 prints it), Z = softmax(XW_q(XW_k)^T/√d)XW_v against a fixed tensor T "
              "(independent of X; weights fixed). Two readings, both refuted. Value rows (headline, the most favourable "
              "to the paper): X_{j,:} may stand for the value rows (XW_v)_{j,:}, so the printed form is Z = C·XW_v with "
              "C_{kj} = Σ_i T[k,i,j] fixed; this forces Z(2X) = 2Z(X). Checked exactly (SymPy, e kept symbolic) with "
              "W_q = W_k = W_v = I_d and X ∈ {−1,0,1}^{N×d}, all N, d ≤ 2, smallest N·d then |X| first. Literal (rows "
              "of X itself, W_v ≠ I): float64 least-squares fit of a fixed C over 6 random X (residual ≤ 1e-9), N, d ≤ "
              "3. Note also that T's third index has size d while j runs over the N rows. No fixed T is a correction: "
              "the cubic form without softmax, vec Z = 𝒲(x ⊗ x ⊗ x), is isomat's result (zhu2025:beyond/attention-cubic-"
              "form), not the paper's.",
    methods=["exhaustive", "exact", "numeric"],
    hypotheses=("N tokens of width d >= 1; fixed weights", lambda c: c[0] >= 1 and c[1] >= 1),
)
def _sec44():
    def fit(c):
        N, d = c
        rng = np.random.default_rng(0)
        Wq, Wk, Wv = (rng.integers(-2, 3, size=(d, d)).astype(float) for _ in range(3))
        Xs = [rng.standard_normal((N, d)) for _ in range(6)]
        A = np.vstack([X.T for X in Xs])            # (6d, N): Z^T = X^T C^T
        B = np.vstack([_softmax_attn(X, Wq, Wk, Wv).T for X in Xs])
        # the least-squares fit and its residual in the float field of the run (CuPy under `isomat verify --backend cupy`)
        xp = array_module(float_backend())
        A, B = xp.asarray(A), xp.asarray(B)
        Ct, *_ = xp.linalg.lstsq(A, B, rcond=None)
        return float(xp.abs(A @ Ct - B).max())

    cases = []
    for N, d in _sizes(2):
        for v in sorted(itertools.product((-1, 0, 1), repeat=N * d), key=lambda t: (sum(map(abs, t)), t)):
            cases.append((N, d, v))

    def Zs(c):
        N, d, v = c
        X, I = sympy.Matrix(N, d, list(v)), sympy.eye(d)
        return _softmax_attn_exact(X, I, I, I), _softmax_attn_exact(2 * X, I, I, I)

    def homogeneous(c):
        Z1, Z2 = Zs(c)
        return all(sympy.simplify(e) == 0 for e in (Z2 - 2 * Z1))

    def witness(c):
        Z1, Z2 = Zs(c)
        return {"X": sympy.Matrix(c[0], c[1], list(c[2])), "Z(X)": Z1.applyfunc(sympy.simplify),
                "Z(2X)": Z2.applyfunc(sympy.simplify)}

    literal = exhaustive(lambda c: fit(c) <= 1e-9, _sizes(3), describe="N, d <= 3, 6 random X, lstsq residual <= 1e-9",
                         method="numeric", strength="sampled",
                         witness=lambda c: {"N": c[0], "d": c[1], "lstsq_residual": fit(c)})
    printed = exhaustive(homogeneous, cases, describe="N, d <= 2, W = I, X in {-1,0,1}^{N x d}, exact", witness=witness, method="exact")
    return by_readings(
        Reading("value rows", "X_{j,:} stands for (XW_v)_{j,:}: Z = C·XW_v with C fixed (so Z(2X) = 2Z(X)).",
                decide(printed, confirm=_softmax_by_loops)),
        Reading("literal", "X_{j,:} are the rows of X: Z = C·X with C fixed.", decide(literal)),
    )


def _softmax_by_loops(cx):
    """Independent reference of the value-rows counterexample: softmax(XX^T/√d)X (W = I) by float loops over
    math.exp (no SymPy, no NumPy), Z(2X) − 2Z(X) far above rounding (> 1e-6)."""
    import math

    N, d, v = cx["case"]

    def Z(s):
        X = [[s * v[t * d + e] for e in range(d)] for t in range(N)]
        out = []
        for a in range(N):
            w = [math.exp(sum(X[a][e] * X[b][e] for e in range(d)) / math.sqrt(d)) for b in range(N)]
            out.append([sum(w[b] * X[b][e] for b in range(N)) / sum(w) for e in range(d)])
        return out

    gap = max(abs(z2 - 2 * z1) for r1, r2 in zip(Z(1), Z(2)) for z1, z2 in zip(r1, r2))
    return exhaustive(lambda _: gap > 1e-6, [(N, d)], method="numeric",
                      describe=f"|Z(2X) − 2Z(X)| = {gap:.3g} > 1e-6 at the counterexample's X, float loops")


# ---------------------------------------------------------------------------------------------
# beyond: the cubic form, proved for every T, d, d_v
# ---------------------------------------------------------------------------------------------
def _cubic_entry(k, c, kp, b, i, e, ip, f, G, V, when):
    """The entry rule of isomat.algebra.linear_attention_matrix: 𝒲_{(k,c),((kp,b),(i,e),(ip,f))} =
    [kp = k][ip = i] G_{b,e} (W_v)_{f,c}, G = W_q W_k^T; ``when(conditions, value)`` is the Iverson bracket
    (Python ints or Z3)."""
    return when([kp == k, ip == i], G(b, e) * V(f, c))


def _py_when(conds, value):
    return value if all(conds) else 0


def _cubic_rule_case(c):
    """isomat's linear_attention_matrix against the matrix built from _cubic_entry (symbolic weights)."""
    T, d, dv = c
    Wq, Wk, Wv = _sym("q", d, d), _sym("k", d, d), _sym("v", d, dv)
    G = Wq * Wk.T
    n = T * d
    W3 = sympy.Matrix(_att.linear_attention_matrix(T, Wq, Wk, Wv))
    if W3.shape != (T * dv, n ** 3):
        return False
    ref = sympy.zeros(T * dv, n ** 3)
    for k, cc, kp, b, i, e, ip, f in itertools.product(range(T), range(dv), range(T), range(d), range(T), range(d),
                                                       range(T), range(d)):
        ref[k * dv + cc, ((kp * d + b) * n + i * d + e) * n + ip * d + f] = _cubic_entry(
            k, cc, kp, b, i, e, ip, f, lambda x, y: G[x, y], lambda x, y: Wv[x, y], _py_when)
    return (W3 - ref).expand().is_zero_matrix


def _cubic_proof():
    """Row (k, c) of 𝒲 (x ⊗ x ⊗ x), summed over the columns ((kp, b), (i, e), (ip, f)) as nested sums (digits i,
    kp, b, e, ip, f; each sum defined by two axioms), equals the direct ((X G X^T)(X W_v))[k, c] =
    Σ_{i<T} (Σ_{b<d} X[k,b] Σ_{e<d} G[b,e] X[i,e]) (Σ_{f<d} X[i,f] V[f,c]) (sums by axioms too); G = W_q W_k^T,
    V = W_v and X uninterpreted. Six inductions, innermost sum first."""
    I, R = z3.IntSort(), z3.RealSort()
    G, V, X = z3.Function("G", I, I, R), z3.Function("V", I, I, R), z3.Function("X", I, I, R)
    k, c, kp, b, i, e, ip, T, d, dv, m = prover.ints("k c kp b i e ip T d dv m")
    Fn = lambda name, arity: z3.Function(name, *([I] * arity), R)  # noqa: E731
    P, Se, Sb, Z = Fn("XV", 3), Fn("GXt", 3), Fn("XGXt", 4), Fn("Zdirect", 4)
    Lf, Lip, Le, Lb, Lkp, Li = (Fn("Wsum_f", 8), Fn("Wsum_ip", 8), Fn("Wsum_e", 8), Fn("Wsum_b", 7),
                                Fn("Wsum_kp", 6), Fn("Wsum_i", 5))

    def when(conds, value):
        return z3.If(z3.And(*conds), value, z3.RealVal(0))

    def sums(name, fn, params, step, text):
        return [prover.axiom(f"{name}-0", z3.ForAll(params, fn(*params, 0) == 0), text=f"{text} over an empty range = 0"),
                prover.axiom(f"{name}-step", z3.ForAll([*params, m], z3.Implies(
                    m >= 0, fn(*params, m + 1) == fn(*params, m) + step(*params, m)), patterns=[fn(*params, m + 1)]),
                    text=f"{text}: the sum over < m+1 adds term m")]

    axP = sums("xv", P, [i, c], lambda i, c, f: X(i, f) * V(f, c), "XV(i,c,F) = Σ_{f<F} X[i,f] V[f,c]")
    axSe = sums("gxt", Se, [i, b], lambda i, b, e: G(b, e) * X(i, e), "GXt(i,b,E) = Σ_{e<E} G[b,e] X[i,e]")
    axSb = sums("xgxt", Sb, [k, i, d], lambda k, i, d, b: X(k, b) * Se(i, b, d),
                "XGXt(k,i,d,B) = Σ_{b<B} X[k,b] GXt(i,b,d)")
    axZ = sums("zdirect", Z, [k, c, d], lambda k, c, d, i: Sb(k, i, d, d) * P(i, c, d),
               "Zdirect(k,c,d,I) = Σ_{i<I} XGXt(k,i,d,d) XV(i,c,d)")
    axLf = sums("wsum-f", Lf, [k, c, kp, b, i, e, ip],
                lambda k, c, kp, b, i, e, ip, f: _cubic_entry(k, c, kp, b, i, e, ip, f, G, V, when)
                * X(kp, b) * X(i, e) * X(ip, f),
                "Wsum_f(k,c,kp,b,i,e,ip,F) = Σ_{f<F} 𝒲[(k,c),((kp,b),(i,e),(ip,f))] x[kp,b] x[i,e] x[ip,f]")
    axLip = sums("wsum-ip", Lip, [k, c, kp, b, i, e, d], lambda k, c, kp, b, i, e, d, ip: Lf(k, c, kp, b, i, e, ip, d),
                 "Wsum_ip(k,c,kp,b,i,e,d,IP) = Σ_{ip<IP} Wsum_f(k,c,kp,b,i,e,ip,d)")
    axLe = sums("wsum-e", Le, [k, c, kp, b, i, d, T], lambda k, c, kp, b, i, d, T, e: Lip(k, c, kp, b, i, e, d, T),
                "Wsum_e(k,c,kp,b,i,d,T,E) = Σ_{e<E} Wsum_ip(k,c,kp,b,i,e,d,T)")
    axLb = sums("wsum-b", Lb, [k, c, kp, i, d, T], lambda k, c, kp, i, d, T, b: Le(k, c, kp, b, i, d, T, d),
                "Wsum_b(k,c,kp,i,d,T,B) = Σ_{b<B} Wsum_e(k,c,kp,b,i,d,T,d)")
    axLkp = sums("wsum-kp", Lkp, [k, c, i, d, T], lambda k, c, i, d, T, kp: Lb(k, c, kp, i, d, T, d),
                 "Wsum_kp(k,c,i,d,T,KP) = Σ_{kp<KP} Wsum_b(k,c,kp,i,d,T,d)")
    axLi = sums("wsum-i", Li, [k, c, d, T], lambda k, c, d, T, i: Lkp(k, c, i, d, T, T),
                "Wsum_i(k,c,d,T,I) = Σ_{i<I} Wsum_kp(k,c,i,d,T,T)")

    f_, IP, E, B, KP, Ii = prover.ints("F IP E B KP I")
    l1 = prover.induction(
        "cubic-sum-f", f_, lambda F: Lf(k, c, kp, b, i, e, ip, F) == when([kp == k, ip == i], G(b, e) * X(k, b) * X(i, e) * P(i, c, F)),
        text="Σ_{f<F} 𝒲[(k,c),((kp,b),(i,e),(ip,f))] x x x = [kp=k][ip=i] G[b,e] X[k,b] X[i,e] XV(i,c,F)",
        other=[k, c, kp, b, i, e, ip], axioms=axLf + axP, patterns=[Lf(k, c, kp, b, i, e, ip, f_)])
    l2 = prover.induction(
        "cubic-sum-ip", IP, lambda IP: Lip(k, c, kp, b, i, e, d, IP)
        == when([kp == k, 0 <= i, i < IP], G(b, e) * X(k, b) * X(i, e) * P(i, c, d)),
        text="Σ_{ip<IP} (the f-sum) = [kp=k][0<=i<IP] G[b,e] X[k,b] X[i,e] XV(i,c,d)",
        other=[k, c, kp, b, i, e, d], assuming=[d >= 0], axioms=axLip, using=[l1], patterns=[Lip(k, c, kp, b, i, e, d, IP)])
    l3 = prover.induction(
        "cubic-sum-e", E, lambda E: Le(k, c, kp, b, i, d, T, E)
        == when([kp == k, 0 <= i, i < T], X(k, b) * Se(i, b, E) * P(i, c, d)),
        text="Σ_{e<E} (the ip-sum over ip<T) = [kp=k][0<=i<T] X[k,b] GXt(i,b,E) XV(i,c,d)",
        other=[k, c, kp, b, i, d, T], assuming=[d >= 0, T >= 0], axioms=axLe + axSe, using=[l2],
        patterns=[Le(k, c, kp, b, i, d, T, E)])
    l4 = prover.induction(
        "cubic-sum-b", B, lambda B: Lb(k, c, kp, i, d, T, B)
        == when([kp == k, 0 <= i, i < T], Sb(k, i, d, B) * P(i, c, d)),
        text="Σ_{b<B} (the e-sum over e<d) = [kp=k][0<=i<T] XGXt(k,i,d,B) XV(i,c,d)",
        other=[k, c, kp, i, d, T], assuming=[d >= 0, T >= 0], axioms=axLb + axSb, using=[l3],
        patterns=[Lb(k, c, kp, i, d, T, B)])
    l5 = prover.induction(
        "cubic-sum-kp", KP, lambda KP: Lkp(k, c, i, d, T, KP)
        == when([0 <= k, k < KP, 0 <= i, i < T], Sb(k, i, d, d) * P(i, c, d)),
        text="Σ_{kp<KP} (the b-sum over b<d) = [0<=k<KP][0<=i<T] XGXt(k,i,d,d) XV(i,c,d)",
        other=[k, c, i, d, T], assuming=[d >= 0, T >= 0], axioms=axLkp, using=[l4], patterns=[Lkp(k, c, i, d, T, KP)])
    l6 = prover.induction(
        "cubic-sum-i", Ii, lambda I_: z3.Implies(I_ <= T, Li(k, c, d, T, I_) == when([0 <= k, k < T], Z(k, c, d, I_))),
        text="for I <= T: Σ_{i<I} (the kp-sum over kp<T) = [0<=k<T] Zdirect(k,c,d,I)",
        other=[k, c, d, T], assuming=[d >= 0, T >= 0], axioms=axLi + axZ, using=[l5], patterns=[Li(k, c, d, T, Ii)])
    return prover.prove(
        Li(k, c, d, T, T) == Z(k, c, d, T),
        assuming=[T >= 1, d >= 1, dv >= 1, 0 <= k, k < T, 0 <= c, c < dv], lemmas=[l6], sizes=[T, d, dv],
        for_all="T, d, d_v >= 1, every W_q, W_k (d×d), W_v (d×d_v), X (T×d) (uninterpreted reals), every output (k, c)")


def _cubic_case(c):
    T, d = c
    Wq, Wk, Wv = _sym("q", d, d), _sym("k", d, d), _sym("v", d, d)  # generic weights and image: exact for all values
    X = _sym("x", T, d)
    W3 = sympy.Matrix(_att.linear_attention_matrix(T, Wq, Wk, Wv))
    x = list(X.reshape(T * d, 1))
    lifted = sympy.Matrix([a * b * e for a in x for b in x for e in x])
    direct = (X * Wq) * (X * Wk).T * (X * Wv)
    return (W3 * lifted - direct.reshape(T * d, 1)).expand().is_zero_matrix and _lift3_binds(X, lifted)


def _lift3_binds(X, lifted) -> bool:
    """isomat.lift3 (x ⊗ x ⊗ x, the input the cubic form acts on) equals ``lifted``, the triple products listed
    with plain loops, given x as a column, as a row and as a flat list of the entries of vec X (row-major)."""
    x = list(X.reshape(X.rows * X.cols, 1))
    return all(list(_att.lift3(v)) == list(lifted) for v in (sympy.Matrix(x), sympy.Matrix([x]), np.array(x, dtype=object)))


@claim(
    "zhu2025:beyond/attention-cubic-form",
    quote="[abstract:] attention arises naturally as a third-order tensor factorization",
    statement="isomat's result, not the paper's (§4.4 prints a fixed third-order T acting on rows of X, which fails: "
              "sec4.4/third-order-tensor). Without softmax, attention is a fixed cubic form: vec Z = 𝒲 (x ⊗ x ⊗ x), x = vec X (row-major), with "
              "the fixed sparse 𝒲_{(k,c),((k,b),(i,e),(i,f))} = (W_q W_k^T)_{b,e} (W_v)_{f,c} (T²d³d_v entries; "
              "isomat.algebra.linear_attention_matrix) equals (XW_q)(XW_k)^T(XW_v) computed directly. Proved (Z3) for "
              "every T, d, d_v >= 1: row (k, c) of 𝒲 (x ⊗ x ⊗ x), a sum over the columns ((k',b),(i,e),(i',f)) of "
              "isomat's entry rule [k'=k][i'=i] G_{b,e} (W_v)_{f,c} times x_{k'b} x_{ie} x_{i'f} (nested sums defined by "
              "recursive axioms, six inductions), equals Σ_i (Σ_b X_{kb} Σ_e G_{b,e} X_{ie})(Σ_f X_{if} (W_v)_{fc}), "
              "G = W_q W_k^T and X, W_v uninterpreted. Binding: linear_attention_matrix equals the matrix built from "
              "that entry rule (T, d, d_v <= 2), and 𝒲 (x ⊗ x ⊗ x) equals (XW_q)(XW_k)^T(XW_v) with symbolic generic "
              "weights and X, T, d <= 2, x ⊗ x ⊗ x listed by loops and equal to isomat.lift3's (x a column, a row, a "
              "flat array)."
              + builder_note(ATTENTION_BOUND),
    methods=["symbolic", "exhaustive"],
)
def _cubic_form():
    checks = require(
        entry_rule=builder_check(
            exhaustive(_cubic_rule_case, sorted(itertools.product((1, 2), repeat=3), key=lambda c: (c[0] * c[1] * c[2], c)),
                       describe="linear_attention_matrix == the matrix of the proved entry rule, T, d, d_v <= 2, "
                                "symbolic weights", method="symbolic"),
            derived_from_rule=False, builder="linear_attention_matrix"),
        builder_vs_rule=attention_builder_check(float_backend()),
        direct=exhaustive(_cubic_case, _sizes(2), describe="T, d <= 2, symbolic weights and X", method="symbolic"))
    proof = _cubic_proof().trial("row (k, c) of 𝒲 (x ⊗ x ⊗ x) = ((XW_q)(XW_k)^T(XW_v))[k, c] for every T, d, d_v >= 1 "
                                 "(sums over symbolic lengths by axioms, by induction)")
    return decide(proof, **checks)


def _a3_instance(M, N, seed):
    rng = np.random.default_rng(seed)
    mats = [sympy.Matrix(rng.integers(-3, 4, size=(M, N)).tolist()) for _ in range(3)]
    x = sympy.Matrix(rng.integers(-3, 4, size=(N, 1)).tolist())
    return mats, x


def _a3_y(WQ, WK, WV, x):
    q, k, v = WQ * x, WK * x, WV * x
    return v * (k.T * q)[0, 0]


def _thm43_shape():
    def inst(c):
        M, N = c
        return (_sym("q", M, N), _sym("k", M, N), _sym("v", M, N)), _sym("x", N, 1)

    def linear(c):
        (WQ, WK, WV), x = inst(c)
        return (_a3_y(WQ, WK, WV, 2 * x) - 2 * _a3_y(WQ, WK, WV, x)).expand().is_zero_matrix

    def corrected(c):
        M, N = c
        WQ, WK, WV = _sym("q", M, N), _sym("k", M, N), _sym("v", M, N)
        x = _sym("x", N, 1)
        G = WK.T * WQ
        y3 = sympy.Matrix([sum(WV[m, i] * G[j, l] * x[i] * x[j] * x[l] for i in range(N) for j in range(N) for l in range(N))
                           for m in range(M)])
        return (y3 - _a3_y(WQ, WK, WV, x)).expand().is_zero_matrix

    # the cubic form is checked (binding) and recorded, but it is no correction: a tensor on x ⊗ x ⊗ x in place of a
    # linear map is another theorem (isomat's, zhu2025:beyond/attention-cubic-form), so the printed one is refuted --
    # as thm4.1/attention and sec4.4/third-order-tensor refute the same linearity (issue 38, item 1)
    cubic = exhaustive(corrected, _sizes(2), describe="M, N <= 2, symbolic: y = W3 (x ⊗ x ⊗ x), "
                       "[W3]_{m,(i,j,l)} = [W_V]_{m,i} (W_K^T W_Q)_{j,l} (another theorem, not a correction)",
                       method="symbolic")
    return decide(
        exhaustive(linear, _sizes(2), describe="M, N <= 2, symbolic W_Q, W_K, W_V, x",
                   witness=lambda c: {"y(x)": _a3_y(*inst(c)[0], inst(c)[1]),
                                      "y(2x) - 2y(x)": (_a3_y(*inst(c)[0], 2 * inst(c)[1]) - 2 * _a3_y(*inst(c)[0], inst(c)[1])).expand()}),
        confirm=lambda _: attention_not_homogeneous_numpy(), cubic_form_instead=cubic,
    )


def _w_sa():
    def w_sa_loops(WQ, WK, WV):
        M, N = WQ.shape
        return sympy.Matrix(M, N * N, lambda m, col: WV[m, col % N] * WK[col % N, col // N] * WQ[m, col // N])

    def instances():
        for v in sorted(itertools.product((-1, 0, 1), repeat=4), key=lambda t: (sum(map(abs, t)), t)):
            q, k, vv, x = v
            yield (1, 1, (sympy.Matrix([[q]]), sympy.Matrix([[k]]), sympy.Matrix([[vv]])), sympy.Matrix([[x]]))
        for Mi, Ni in sorted([(a, b) for a in range(1, 4) for b in range(1, a + 1)], key=lambda c: (c[0] * c[1], c)):
            for seed in range(3):
                mats, x = _a3_instance(Mi, Ni, 100 * Mi + 10 * Ni + seed)
                yield (Mi, Ni, tuple(mats), x)

    def parts(c):
        _, N, (WQ, WK, WV), x = c
        lifted = sympy.Matrix([x[i] * x[j] for i in range(N) for j in range(N)])
        return w_sa_loops(WQ, WK, WV) * lifted, _a3_y(WQ, WK, WV, x)

    def ok(c):
        got, y = parts(c)
        return got == y

    def witness(c):
        _, _, (WQ, WK, WV), x = c
        got, y = parts(c)
        return {"W_Q": WQ, "W_K": WK, "W_V": WV, "x": x, "W_SA(x⊗x)": got, "y=V(K^T Q)": y}

    t = exhaustive(ok, instances(), describe="M = N = 1 over {-1,0,1}^4, then N <= M <= 3 random integer instances",
                   strength="sampled",
                   witness=witness)
    M = N = 2
    WQ, WK, WV, x, lam = _sym("q", M, N), _sym("k", M, N), _sym("v", M, N), _sym("x", N, 1), sympy.Symbol("lam")

    def lift(z):
        return sympy.Matrix([z[i] * z[j] for i in range(N) for j in range(N)])

    Ws = w_sa_loops(WQ, WK, WV)
    deg2 = ((Ws * lift(lam * x)) - lam ** 2 * (Ws * lift(x))).expand().is_zero_matrix
    deg3 = (_a3_y(WQ, WK, WV, lam * x) - lam ** 3 * _a3_y(WQ, WK, WV, x)).expand().is_zero_matrix
    def same(c):
        mats = _a3_instance(c[0], c[1], c[2])[0]
        return (sympy.Matrix(_att.zhu_w_sa(*mats)) - w_sa_loops(*mats)).is_zero_matrix

    rng = np.random.default_rng(20250606)
    large = [(Mi, int(rng.integers(2, Mi + 1)), 1000 + i) for i, Mi in enumerate(rng.integers(4, 8, size=4).tolist())]
    construction = all_of(
        exhaustive(same, [(Mi, Ni, 5) for Mi in range(1, 4) for Ni in range(1, Mi + 1)],
                   describe="isomat zhu_w_sa == loop build of A.3's entry formula, N <= M <= 3, integer weights"),
        exhaustive(same, large, describe="the same, 4 random sizes (seed 20250606), 2 <= N <= M <= 7", strength="sampled"))
    return decide(t, degrees={"W_SA(x⊗x) homogeneous of degree 2": deg2, "y homogeneous of degree 3": deg3,
                              "sizes": "M = N = 2, symbolic"},
                  construction=construction)


def _thm43_vs_a3():
    M, N = 3, 2
    Wq, Wk, Wv = _sym("q", M, N), _sym("k", M, N), _sym("v", M, N)
    xs = sympy.symbols(f"x0:{N}")
    x = sympy.Matrix(N, 1, list(xs))
    W_sa = sympy.Matrix(M, N * N, lambda m, c: Wv[m, c % N] * Wk[c % N, c // N] * Wq[m, c // N])
    y_a3 = (Wv * x) * ((Wk * x).T * (Wq * x))[0, 0]
    Q2, K2, V2 = _sym("q", 2, 2), _sym("k", 2, 2), _sym("v", 2, 2)
    x2 = sympy.Matrix(2, 1, sympy.symbols("x0:2"))
    try:
        Wv * (Wk * x)
        thm_defined_at_M_ne_N = True
    except sympy.ShapeError:
        thm_defined_at_M_ne_N = False
    y_thm = V2 * (K2 * x2) * (Q2 * x2).T
    degree = max(sympy.Poly(sympy.expand(e), *xs).total_degree() for e in y_a3 if e != 0)
    printed = {"W_SA shape": [M, N], "output shape (M = N = 2)": list(y_thm.shape), "degree of y in x ('bilinear')": 2}
    recomputed = {"W_SA shape": list(W_sa.shape), "output shape (M = N = 2)": [2, 1], "degree of y in x ('bilinear')": degree}
    return compare_printed(printed, recomputed, kind="inconsistent", method="symbolic", sizes={"M": M, "N": N},
                           theorem_product_defined_for_M_ne_N=thm_defined_at_M_ne_N,
                           a3_output_shape=list(y_a3.shape))


@claim(
    "zhu2025:thm4.3/w-sa",
    quote="A(vec X) = W_V (W_K vec X)(W_Q vec X)^T ≈ W_SA vec X, where W_SA ∈ R^{M×N} is a (third-order) sparse "
          "matrix ... [A.3:] y = V (K^T Q) = W_V (W_K vec X)(W_Q vec X)^T. Notice this is a bilinear form in vec X ... "
          "[W_SA]_{m,(i,j)} = [W_V]_{m,j} [W_K]_{j,i} [W_Q]_{m,i}, then y = W_SA X̃",
    statement="Single-head attention without softmax, y = V(K^T Q) with Q = W_Q x, K = W_K x, V = W_V x (W_* ∈ "
              "R^{M×N}, x = vec X), is cubic in x, so no M×N matrix -- and no bilinear form -- gives it. Two readings of "
              "the statement, both refuted. Theorem 4.3 (headline): y = W_SA x with W_SA ∈ R^{M×N} ('≈' read as equality; no linear "
              "map approximates a cubic for all scalings of x) needs y(2x) = 2y(x) -- symbolic W_*, x, all M, N ≤ 2, "
              "smallest first. The cubic form y = W3 (x ⊗ x ⊗ x), W3 ∈ R^{M×N³}, is checked (symbolic, M, N ≤ 2) and "
              "recorded, but it is no correction: a tensor on x ⊗ x ⊗ x in place of a linear map is another theorem "
              "(isomat's zhu2025:beyond/attention-cubic-form), so the verdict agrees with zhu2025:thm4.1/attention and "
              "zhu2025:sec4.4/third-order-tensor, which refute the same linearity. A.3: the printed W_SA (entry formula "
              "by loops; defined when N ≤ M, since j indexes a row of W_K) applied to x ⊗ x equals y -- exact: for M = "
              "N = 1 all q, k, v, x ∈ {−1, 0, 1} by increasing |q|+|k|+|v|+|x|, then three random integer instances in "
              "[−3, 3] for each N ≤ M ≤ 3 (evidence: W_SA(x ⊗ x) is homogeneous of degree 2, y of degree 3, M = N = 2; "
              "isomat.algebra.zhu_w_sa equals the loop build). Theorem 4.3 against its own proof A.3, recomputed from "
              "the printed formulas (symbolic, M = 3, N = 2, and M = N = 2 where Theorem 4.3's product needs it): "
              "W_SA's shape (M×N vs A.3's M×N²), the output's shape (Theorem 4.3's W_V (W_K x)(W_Q x)^T is an M×M "
              "matrix, defined only when M = N; A.3's V(K^T Q) an M-vector), and 'bilinear' (y has total degree 3): "
              "recorded as a third reading, not supported -- it compares the theorem with its proof, it is not a way of "
              "reading what the theorem asserts, so it cannot make the headline (issue 38 item 1).",
    methods=["exhaustive", "exact", "symbolic", "recompute"],
    hypotheses=("W_Q, W_K, W_V ∈ R^{M×N}, M, N >= 1, softmax dropped (Theorem 4.3); A.3's entry formula indexes W_K "
                "by j <= N, so cases have N <= M",
                lambda c: 1 <= c[1] <= c[0]),
)
def _thm43_w_sa():
    return by_readings(
        Reading("Theorem 4.3: linear, W_SA ∈ R^{M×N}", "y = W_SA x for an M×N matrix W_SA (y linear in x).",
                _thm43_shape()),
        Reading("A.3: bilinear, y = W_SA (x ⊗ x)", "A.3's printed W_SA ∈ R^{M×N²} applied to x ⊗ x is y.", _w_sa()),
        Reading("Theorem 4.3 against A.3", "Theorem 4.3 and its proof A.3 agree on W_SA's shape, the output's shape "
                "and the degree of y in x (not a reading of the theorem's assertion: not supported).", _thm43_vs_a3(),
                supported=False),
    )


def _w_sa_by_loops(WQ, WK, WV):
    """A.3's printed [W_SA]_{m,(i,j)} = [W_V]_{m,j} [W_K]_{j,i} [W_Q]_{m,i} by loops (column iN + j): the reference
    the sparsity readings are decided on (issue 36: a verdict against the paper rests on no isomat builder)."""
    M, N = WQ.shape
    return sympy.Matrix(M, N * N, lambda m, col: WV[m, col % N] * WK[col % N, col // N] * WQ[m, col // N])


def _coupling_by_loops(cx):
    """Independent reference of the coupling found: with banded all-ones weights (|i − j| <= b) and x = 1, y_m =
    (W_V x)_m · (W_K x)^T (W_Q x) by integer loops changes when the position outside m's patch is set to 0."""
    M, N, b = cx["case"]
    first = cx["couplings"][0]
    m, j = first["output"], first["positions_outside_patch"][0]

    def y_m(x):
        band = [[1 if abs(i - k) <= b else 0 for k in range(N)] for i in range(M)]
        s = [sum(band[i][k] * x[k] for k in range(N)) for i in range(M)]
        return s[m] * sum(si * si for si in s)

    ones = [1] * N
    return exhaustive(lambda _: abs(j - m) > b and y_m(ones) != y_m([0 if k == j else 1 for k in range(N)]),
                      [(M, N, b)], method="exact",
                      describe=f"y_{m} depends on x_{j}, outside its patch, banded all-ones weights, integer loops")


@claim(
    "zhu2025:thm4.3/sparsity",
    quote="The sparsity pattern of W_SA follows from patch-based grouping: only pairs (i, j) within the same local "
          "patch produce nonzero weights",
    statement="Only pairs within one local patch interact. Two readings. Attention operator (headline): under "
              "Assumption 4.2 with half-bandwidth b = 0 (diagonal symbolic W_Q, W_K, W_V, so each row covers a patch of "
              "one position, K = 1), A.3's y = V(K^T Q) = (W_V x)((W_K x)^T(W_Q x)) has in y_m only monomials whose "
              "positions lie within b of m; M = N ∈ {2, 3}, smallest first -- it fails at N = 2: y_m contains x_m x_j² "
              "for j ≠ m, so the cubic operator couples patches. Printed W_SA formula with generic (symbolic) weights: "
              "some pair (i, j), i ≠ j, has a zero entry (as it must if pairs in different patches vanish), all "
              "2 <= N <= M <= 3. (The printed formula with diagonal weights is zero off i = j, but it does not compute "
              "attention -- thm4.3/w-sa -- so its pattern says nothing about the layer: recorded, not supported.)",
    methods=["exhaustive", "symbolic"],
    hypotheses=("W_Q, W_K, W_V ∈ R^{M×N} with N <= M (A.3's indices), N >= 2 positions",
                lambda c: 2 <= c[1] <= c[0]),
)
def _sparsity():
    cases = sorted([(M, N) for M in range(1, 4) for N in range(2, M + 1)], key=lambda c: (c[0] * c[1], c))
    diagonal = lambda c: tuple(sympy.diag(*sympy.symbols(f"{n}0:{c[1]}")) for n in "qkv")  # noqa: E731
    generic = lambda c: (_sym("q", *c), _sym("k", *c), _sym("v", *c))  # noqa: E731
    # isomat's zhu_w_sa against the loops, on every weight the readings use: binding (a bug is an error)
    checks = require(builder_vs_loops=exhaustive(
        lambda cw: (sympy.Matrix(_att.zhu_w_sa(*cw[1])) - _w_sa_by_loops(*cw[1])).expand().is_zero_matrix,
        [(c, generic(c)) for c in cases] + [(c, diagonal(c)) for c in ((2, 2), (3, 3))],
        describe="isomat zhu_w_sa == the printed formula by loops: 2 <= N <= M <= 3 symbolic, M = N in {2, 3} diagonal",
        method="symbolic"), builder_fields=w_sa_fields_check())

    def has_offpatch_zero(c):
        M, N = c
        Ws = _w_sa_by_loops(*generic(c))
        return any(Ws[m, i * N + j] == 0 for m in range(M) for i in range(N) for j in range(N) if i != j)

    t = exhaustive(has_offpatch_zero, cases, describe="2 <= N <= M <= 3, symbolic weights (the printed formula by loops)",
                   witness=lambda c: {"W_SA": _w_sa_by_loops(*generic(c))}, method="symbolic")

    def banded(c):
        M, N, b = c
        xs = sympy.symbols(f"x0:{N}")
        x = sympy.Matrix(N, 1, list(xs))
        Wq, Wk, Wv = (sympy.Matrix(M, N, lambda i, j, n=n: sympy.Symbol(f"{n}{i}{j}") if abs(i - j) <= b else 0)
                      for n in "qkv")
        y = (Wv * x) * ((Wk * x).T * (Wq * x))[0, 0]
        out = []
        for m in range(M):
            for mono in sympy.Poly(sympy.expand(y[m]), *xs).monoms():
                far = [j for j, e in enumerate(mono) if e and abs(j - m) > b]
                if far:
                    out.append({"output": m, "monomial": str(sympy.Mul(*[xs[j] ** e for j, e in enumerate(mono)])),
                                "positions_outside_patch": far})
        return out

    bcases = [(2, 2, 0), (3, 3, 0), (3, 3, 1)]
    layer = exhaustive(lambda c: not banded(c), bcases, describe="M = N in {2, 3}, banded symbolic weights, b = 0 (and b = 1 at N = 3)",
                       witness=lambda c: {"b": c[2], "couplings": banded(c)[:2]}, method="symbolic")
    diag_formula = exhaustive(
        lambda c: all(
            _w_sa_by_loops(*diagonal(c))[m, i * c[1] + j] == 0
            for m in range(c[0]) for i in range(c[1]) for j in range(c[1]) if i != j),
        [(2, 2), (3, 3)], describe="M = N in {2, 3}, diagonal symbolic weights", method="symbolic")
    return by_readings(
        Reading("attention operator under Assumption 4.2", "Under banded weights the layer y = V(K^T Q) couples only "
                "positions within one patch.", decide(layer, confirm=_coupling_by_loops)),
        Reading("printed W_SA, generic weights", "The printed W_SA has zeros off the patch pairs for generic weights.",
                decide(t, **checks)),
        Reading("printed W_SA, diagonal weights", "With diagonal weights the printed W_SA vanishes off i = j (it does "
                "not compute attention: thm4.3/w-sa).", decide(diag_formula), supported=False),
    )
