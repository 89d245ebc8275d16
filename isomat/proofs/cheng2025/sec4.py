"""cheng2025 §IV: hypervectors, stochastic products, the operator ⋄, Example 4.15."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403


# §IV: hypervectors, stochastic products, the operator ⋄
# =============================================================================================
def _blockdiag(blocks):
    return sympy.diag(*blocks)


def _sym_hv(dims, name="x"):
    return [sympy.Matrix(sympy.symbols(f"{name}{i + 1}_1:{n + 1}")) for i, n in enumerate(dims)]


def _hv_cases(max_s=3, max_n=3):
    cases = [c for s in range(1, max_s + 1) for c in itertools.product(range(1, max_n + 1), repeat=s)]
    return sorted(cases, key=lambda c: (len(c), sum(c), c))


@claim(
    "cheng2025:prop4.3",
    quote=(
        "0 ≠ x = ⋉ x_i = ⋉ y_i ⇒ y_i = λ_i x_i with Π λ_i = 1  (58); if all x^i are normalized (x^i_j ≥ 0, "
        "Σ_j x^i_j = 1) then the x^i are unique"
    ),
    statement=(
        "The theorem itself, exhaustively: for dims (2,2), (2,3), (3,2), (3,3), (2,2,2), all factor tuples with entries "
        "in {−1, 0, 1} are grouped by their nonzero STP product ⋉ x_i (= ⊗ x_i for vectors) and every two tuples with the "
        "same product satisfy y_i = λ_i x_i with Π λ_i = 1 (exact Fractions); normalized tuples (nonnegative, sums 1, "
        "from entries {0, 1, 2}) with the same product are identical. "
        "Cross-check (one random integer instance per dims, not counted in the strength): for every dims tuple of "
        "length s ≤ 3 with n_i ≤ 3 and integer factors in [−3, 3] (nonzero) / [0, 3] "
        "(normalizable), exact: isomat's factor_product_form recovers factors y_i of x = ⋉ x_i with y_i ∥ x_i "
        "and Π λ_i = 1; with normalization the recovered factors are exactly x_i / Σ x_i (the unique stochastic "
        "ones) and x = (Π Σ x_i)·⋉ y_i."
    ),
    methods=["exact", "exhaustive"],
)
def _prop43():
    def ok(dims):
        seed = sum(dims) * 7 + len(dims)
        xs = []
        for i, n in enumerate(dims):
            v = _rand(n, 1, seed + i)
            if v.is_zero_matrix:
                v[0] = 1
            xs.append(v)
        x = xs[0]
        for v in xs[1:]:
            x = _kron(x, v)
        Y, c = _hyper.factor_product_form(x, dims, normalize=False)
        lam = []
        for xi, yi in zip(xs, Y):
            k = next(j for j in range(xi.rows) if xi[j] != 0)
            lam.append(yi[k] / xi[k])
            if yi != lam[-1] * xi:
                return False
        if sympy.prod(lam) * c != 1:
            return False
        ps = [_rand(n, 1, seed + 10 + i, 0, 3) + sympy.Matrix([1] + [0] * (n - 1)) for i, n in enumerate(dims)]
        z = ps[0]
        for v in ps[1:]:
            z = _kron(z, v)
        Z, cz = _hyper.factor_product_form(z, dims)
        return all(zi == pi / sum(pi) for zi, pi in zip(Z, ps)) and cz == sympy.prod([sum(p) for p in ps])

    def theorem(dims):  # every pair of factorizations of the same nonzero product, entries in {-1, 0, 1} / {0, 1, 2}
        from fractions import Fraction

        def kron(vs):
            out = [Fraction(1)]
            for v in vs:
                out = [a * b for a in out for b in v]
            return tuple(out)

        groups: dict = {}
        for vs in itertools.product(*[list(itertools.product((-1, 0, 1), repeat=n)) for n in dims]):
            x = kron(vs)
            if any(x):
                groups.setdefault(x, []).append(vs)
        for members in groups.values():
            xs = members[0]
            for ys in members[1:]:
                lam = []
                for xi, yi in zip(xs, ys):
                    k = next(j for j, v in enumerate(xi) if v)
                    lam.append(Fraction(yi[k], xi[k]))
                    if any(Fraction(b) != lam[-1] * a for a, b in zip(xi, yi)):
                        return False
                if math.prod(lam) != 1:
                    return False
        normalized: dict = {}
        for vs in itertools.product(*[[v for v in itertools.product((0, 1, 2), repeat=n) if any(v)] for n in dims]):
            ps = tuple(tuple(Fraction(a, sum(v)) for a in v) for v in vs)
            if normalized.setdefault(kron(ps), ps) != ps:
                return False
        return True

    thm_cases = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 2, 2)]
    return decide(
        _exact_exhaustive(theorem, thm_cases, "all factor tuples with entries in {-1, 0, 1} (uniqueness: normalized "
                          "from {0, 1, 2}) for dims (2,2), (2,3), (3,2), (3,3), (2,2,2)"),
        sampled_crosscheck=(exhaustive(
            ok, _hv_cases(), describe="isomat factor_product_form, dims of length <= 3, n_i <= 3; one random integer "
            "instance per dims", method="exact", strength="sampled")))


def _rand_stochastic(rows, cols, seed):
    M = _rand(rows, cols, seed, 0, 4) + sympy.ones(rows, cols) * 0
    M[0, :] = M[0, :] + sympy.ones(1, cols)
    return M * sympy.diag(*[sympy.Rational(1, sum(M[:, j])) for j in range(cols)])


def _is_stochastic(M):
    return all(v >= 0 for v in M) and all(sum(M[:, j]) == 1 for j in range(M.cols))


@claim(
    "cheng2025:prop4.6",
    quote="A ∈ Υ_{m×n}, x ∈ Υ^n ⇒ Ax ∈ Υ^m   (60)",
    statement=(
        "Proved for all m, n: Σ_i (Ax)_i = Σ_j (Σ_i a_ij) x_j = Σ_j x_j = 1 (double sums by axioms, the swap and the "
        "unit column sums by induction; A, x uninterpreted) and the entries are sums of products of nonnegative numbers. "
        "Cross-check, exact on generic entries, so for every column-stochastic A and stochastic x at each size, all m, n in [1, 5]: "
        "with nonnegative symbols a_ij, x_j every entry Σ_j a_ij x_j of Ax is nonnegative (SymPy sign inference), and "
        "with the last row of A and the last entry of x eliminated by the sum-1 constraints (a_{m,j} = 1 − Σ_{i<m} a_ij, "
        "x_n = 1 − Σ_{j<n} x_j) the entries of Ax sum to 1 identically."
    ),
    methods=["exact", "exhaustive"],
)
def _prop46():
    def ok(c):
        m, n = c
        A = sympy.Matrix(m, n, lambda i, j: sympy.Symbol(f"a_{i}_{j}", nonnegative=True))
        x = sympy.Matrix(n, 1, lambda j, _: sympy.Symbol(f"x_{j}", nonnegative=True))
        nonneg = all(v.is_nonnegative for v in A * x)
        sub = {A[m - 1, j]: 1 - sum(A[i, j] for i in range(m - 1)) for j in range(n)}
        sub[x[n - 1]] = 1 - sum(x[j] for j in range(n - 1))
        return nonneg and sympy.expand(sum(A * x).subs(sub, simultaneous=True)) == 1

    return decide(_textbook(_prop46_proof(), "nonnegative-closure"),
                  exhaustive_crosscheck=_exact_exhaustive(ok, _dims(2, 5), "m, n in [1, 5]"))


def _prop46_proof():
    """1ᵀ(Ax) = 1 for column-stochastic A (m×n) and stochastic x, all m, n: Σ_i Σ_j a_ij x_j = Σ_j (Σ_i a_ij) x_j
    (sum swap: prefix sums by axioms, inductions) = Σ_j x_j = 1; A, x uninterpreted."""
    import z3

    I, R = z3.IntSort(), z3.RealSort()
    A, x = z3.Function("A_entry", I, I, R), z3.Function("x_entry", I, R)
    Rw, D = z3.Function("RowSum", I, I, R), z3.Function("EntrySum", I, I, R)
    C, E = z3.Function("ColumnSum", I, I, R), z3.Function("WeightedColumnSum", I, I, R)
    Xs = z3.Function("VectorSum", I, R)
    i, j, I_, J, m, n = _pv.ints("i j I J m n")
    ax = [_pv.axiom("row-sum-0", z3.ForAll([i], Rw(i, 0) == 0), text="empty sum"),
          _pv.axiom("row-sum-step", z3.ForAll([i, J], z3.Implies(J >= 0, Rw(i, J + 1) == Rw(i, J) + A(i, J) * x(J)), patterns=[Rw(i, J + 1)]), text="(Ax)_i = Σ_j a_ij x_j"),
          _pv.axiom("entry-sum-0", z3.ForAll([J], D(0, J) == 0), text="empty sum"),
          _pv.axiom("entry-sum-step", z3.ForAll([I_, J], z3.Implies(I_ >= 0, D(I_ + 1, J) == D(I_, J) + Rw(I_, J)), patterns=[D(I_ + 1, J)]), text="Σ_i (Ax)_i"),
          _pv.axiom("column-sum-0", z3.ForAll([j], C(j, 0) == 0), text="empty sum"),
          _pv.axiom("column-sum-step", z3.ForAll([j, I_], z3.Implies(I_ >= 0, C(j, I_ + 1) == C(j, I_) + A(I_, j)), patterns=[C(j, I_ + 1)]), text="Σ_i a_ij"),
          _pv.axiom("weighted-column-sum-0", z3.ForAll([I_], E(I_, 0) == 0), text="empty sum"),
          _pv.axiom("weighted-column-sum-step", z3.ForAll([I_, J], z3.Implies(J >= 0, E(I_, J + 1) == E(I_, J) + C(J, I_) * x(J)), patterns=[E(I_, J + 1)]), text="Σ_j (Σ_i a_ij) x_j"),
          _pv.axiom("vector-sum-0", Xs(0) == 0, text="empty sum"),
          _pv.axiom("vector-sum-step", z3.ForAll([J], z3.Implies(J >= 0, Xs(J + 1) == Xs(J) + x(J)), patterns=[Xs(J + 1)]), text="Σ_j x_j")]
    l1 = _pv.induction("sum-swap-step", I_, lambda I_: z3.Implies(J >= 0, D(I_, J + 1) == D(I_, J) + C(J, I_) * x(J)),
                      text="D(I, J+1) = D(I, J) + C(J, I) x_J", other=[J], axioms=[ax[0],ax[1],ax[2],ax[3],ax[4],ax[5]], patterns=[D(I_, J + 1)])
    l0 = _pv.induction("entry-sum-empty-rows", I_, lambda I_: D(I_, 0) == 0, text="Σ_i (empty row sums) = 0",
                      axioms=[ax[0], ax[2], ax[3]], patterns=[D(I_, 0)])
    l2 = _pv.induction("sum-swap", J, lambda J: z3.Implies(I_ >= 0, D(I_, J) == E(I_, J)), text="Σ_i Σ_j = Σ_j Σ_i", other=[I_],
                      axioms=[ax[6], ax[7]], using=[l1, l0], patterns=[D(I_, J)])
    l3 = _pv.induction("unit-column-sums", J, lambda J: z3.Implies(z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < J), C(j, I_) == 1)), E(I_, J) == Xs(J)),
                      text="columns summing to 1 give Σ_j C(j,I) x_j = Σ_j x_j", other=[I_], axioms=[ax[6], ax[7], ax[8], ax[9]], patterns=[E(I_, J)])
    return _proof_trial(
        D(m, n) == 1,
        for_all="for all m, n >= 1, every A ∈ M_{m×n} whose columns sum to 1 and every x ∈ R^n whose entries sum to 1 "
                "(A, x uninterpreted)",
        assuming=[m >= 1, n >= 1, Xs(n) == 1, z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < n), C(j, m) == 1))],
        lemmas=[l2.at(n, m), l3.at(n, m)], sizes=[m, n],
        describe="Σ_i (Ax)_i = Σ_{i<m} Σ_{j<n} a_ij x_j = Σ_{j<n} (Σ_{i<m} a_ij) x_j = Σ_j x_j = 1; entries of Ax are sums "
                 "of products of nonnegative numbers, so Ax ∈ Υ^m")


@claim(
    "cheng2025:prop4.8",
    quote="A ⋉_w B := (A ⊗ 1ᵀ_{t/n})(B ⊗ (1/(t/p)) 1_{t/p})  (61) = A Ψ^w_{n×p} B  (62),  Ψ^w = (1/(t/p))(I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p})  (63)",
    statement=(
        "Proved for all sizes: (62) with Ψ^w of (63) equals (61) (A ⊗ 1ᵀ_{t/n} = A (I_n ⊗ 1ᵀ_{t/n}) and B ⊗ 1_{t/p} = "
        "(I_p ⊗ 1_{t/p}) B entrywise, uninterpreted A, B, then associativity of the matrix product); isomat's "
        "bridge_weighted, built as (p/n)·Π^p_n, equals (63) (block-count lemma on the entry rule of Π). Exact "
        "cross-check for all (m, n, p, q) in [1, 3]^4."
    ),
    methods=["exact", "exhaustive"],
)
def _prop48():
    def ok(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        Pw = sympy.Rational(p, t) * _kron(sympy.eye(n), _ones(t // n).T) * _kron(sympy.eye(p), _ones(t // p))
        A, B = _rand(m, n, sum(c)), _rand(p, q, sum(c) + 1)
        return A * Pw * B == naive_dk(A, B, True) and sympy.Matrix(_stp_mod.bridge_weighted(n, p, backend="sympy")) == Pw

    return decide(_textbook(_prop48_proof(), "matmul-associative", "matmul-bilinear"),
                  exhaustive_crosscheck=_exact_exhaustive(ok, _dims(4, 3), "m, n, p, q in [1, 3]"),
                  projection_binds_rule=_projection_binds())


def _prop48_proof():
    """(61) = (62) and bridge_weighted = (63), for all sizes: (61) = A (I_n ⊗ 1ᵀ_a)(I_p ⊗ 1_b) B / b = A Ψ^w B by
    _kron_ones_proof and associativity of the matrix product."""
    kron = _kron_ones_proof()
    n, a, b, p_ = _pv.ints("n a b p")
    C, count = _pi_count()
    k, l = _pv.ints("k l")
    bridge = _proof_trial(
        n * C(l, k, n * a, a, b) == b * _ov_rule(l, k, p_, n),
        for_all="for all n, p >= 1 and every common multiple t = na = pb, 0 <= l < n, 0 <= k < p",
        assuming=[n >= 1, p_ >= 1, a >= 1, b >= 1, n * a == p_ * b, 0 <= l, l < n, 0 <= k, k < p_], lemmas=[count],
        sizes=[n, p_, a, b],
        describe="(63)[l, k] = (1/b)·((I_n ⊗ 1ᵀ_a)(I_p ⊗ 1_b))[l, k] = C(l, k, t, a, b)/b = ov(l, k, p, n)/n = "
                 "(p/n)·Π^p_n[l, k], which is how isomat's bridge_weighted is built")
    return all_of(kron, bridge)


@claim(
    "cheng2025:prop4.9",
    quote="(i) A, B stochastic ⇒ A ⋉_w B stochastic; (ii) A stochastic, x stochastic ⇒ A ⋉_w x stochastic",
    statement=(
        "With Def. 4.4 (columns in Υ), proved for all sizes: A ⋉_w B = A Ψ^w B ((61) = (62), prop4.8) and Ψ^w of (63) "
        "is column-stochastic (entries >= 0, every column sums to 1: prefix-sum lemma on the entry rule of Π); so "
        "for column-stochastic A, B (or x): 1ᵀ A Ψ^w B = 1ᵀ Ψ^w B = 1ᵀ B = 1ᵀ and all entries are sums of products "
        "of nonnegative numbers. Cross-check (one random rational instance per size, so sampled): column-stochastic "
        "A (m×n), B (p×q), x ∈ Υ^p, all m, n, p, q in [1, 3], with isomat's dk_stp_weighted."
    ),
    methods=["exact", "exhaustive"],
)
def _prop49():
    def ok(c):
        m, n, p, q = c
        A, B, x = _rand_stochastic(m, n, sum(c)), _rand_stochastic(p, q, sum(c) + 1), _rand_stochastic(p, 1, sum(c) + 2)
        return _is_stochastic(_stp_mod.dk_stp_weighted(A, B)) and _is_stochastic(_stp_mod.dk_stp_weighted(A, x))

    S, prefix = _pi_prefix()
    n, p_, l, k = _pv.ints("n p l k")
    columns = _proof_trial(
        _pv.both(_ov_rule(l, k, p_, n) >= 0, _ov_rule(l, k, p_, n) == _ov_rule(k, l, n, p_), S(k, n, n, p_) == n),
        for_all="for all n, p >= 1, 0 <= l < n, 0 <= k < p", assuming=[n >= 1, p_ >= 1, 0 <= l, l < n, 0 <= k, k < p_],
        lemmas=[prefix], sizes=[n, p_],
        describe="Ψ^w[l, k] = ov(l, k, p, n)/n >= 0 and column k sums to Σ_l ov(k, l, n, p)/n = S(k, n, n, p)/n = 1: "
                 "Ψ^w is column-stochastic")
    cross = _exact_exhaustive(ok, _dims(4, 3), "m, n, p, q in [1, 3]")
    return decide(_textbook(all_of(_prop48_proof(), columns), "matmul-associative", "matmul-entry", "nonnegative-closure"),
                  sampled_crosscheck=cross, projection_binds_rule=_projection_binds())


@claim(
    "cheng2025:prop4.10",
    quote="X ∈ M_{s×n0} ⇒ V_{Qᵀ} = (W^q ⊗ I_{n0}) V_{Xᵀ}   (64)  (V = row stacking, footnote to (59))",
    statement=(
        "With Qᵀ = W^q Xᵀ (36), W^q ∈ M_{n0×n0}: the printed (64) must be defined (sizes) and equal V_r(W^q Xᵀ), exact, "
        "random integers, all s, n0 in [1, 4]. Correction: V_r(W Xᵀ) = (W ⊗ I_s) V_r(Xᵀ) (Xᵀ has s columns), proved for "
        "all sizes as V_r(AX) = (A ⊗ I_k) V_r(X) with uninterpreted A, X (sums defined by axioms, closed forms by "
        "induction); exact cross-check for s, n0 in [1, 4]."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop410():
    def ok(c, k_of):
        s, n0 = c
        W, X = _rand(n0, n0, sum(c)), _rand(s, n0, sum(c) + 1)
        K = _kron(W, sympy.eye(k_of(s, n0)))
        v = (X.T).reshape(n0 * s, 1)
        return K.cols == v.rows and K * v == (W * X.T).reshape(n0 * s, 1)

    def witness(c):
        s, n0 = c
        return {"W^q ⊗ I_{n0} size": [n0 * n0, n0 * n0], "V_{Xᵀ} length": n0 * s, "V_{Qᵀ} length": n0 * s}

    printed = _exact_exhaustive(lambda c: ok(c, lambda s, n0: n0), _dims(2, 4), "s, n0 in [1, 4]", witness)
    corrected = _exact_exhaustive(lambda c: ok(c, lambda s, n0: s), _dims(2, 4), "s, n0 in [1, 4]")
    proof = _vec_kron_proof("here A = W^q (n0×n0), X := Xᵀ (n0×s), k = s")
    return decide(printed, correction=("V_{Qᵀ} = (W^q ⊗ I_s) V_{Xᵀ}", proof),
                  corrected_exhaustive_crosscheck=(corrected))


@claim(
    "cheng2025:prop4.14",
    quote="X ∈ M_{s×n0} ⇒ A ⋄ X = AX, and V_{AX} = (A ⊗ I_s) V_X   (75)",
    statement=(
        "For homogeneous X (all n_i = n0): isomat's step-by-step ⋄ (Def. 4.13) gives AX, and the printed (75) is defined "
        "and equals V_r(AX); exact, symbolic X, random integer A, all s, n0 in [1, 3]. Correction: (A ⊗ I_{n0}), proved "
        "for all sizes for Def. 4.13 in its matrix form (82) (with (78) corrected): Π^{n0}_{n0} = I and "
        "V_r(AX) = (A ⊗ I_{n0}) V_r(X) (uninterpreted A, X); isomat's diamond = AX is an exact cross-check, s, n0 in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop414():
    def ok(c, k_of):
        s, n0 = c
        A = _rand(s, s, sum(c))
        X = sympy.Matrix(s, n0, lambda i, j: sympy.Symbol(f"x{i + 1}_{j + 1}"))
        D = _hyper.diamond(A, [X[i, :].T for i in range(s)])
        if sympy.Matrix.vstack(*[d.T for d in D]) != A * X:
            return False
        K = _kron(A, sympy.eye(k_of(s, n0)))
        v = X.reshape(s * n0, 1)
        return K.cols == v.rows and (K * v - (A * X).reshape(s * n0, 1)).expand().is_zero_matrix

    def witness(c):
        s, n0 = c
        return {"A ⊗ I_s size": [s * s, s * s], "V_X length": s * n0}

    printed = _exact_exhaustive(lambda c: ok(c, lambda s, n0: s), _dims(2, 3), "s, n0 in [1, 3]", witness)
    corrected = _exact_exhaustive(lambda c: ok(c, lambda s, n0: n0), _dims(2, 3), "s, n0 in [1, 3]")
    ident = _pi_identity_proof(
        "Π^{n0}_{n0} = I_{n0}: for homogeneous X the blocks T_X̃, T_Ξ of (82) are identities")
    proof = all_of(ident, _vec_kron_proof("here X is s×n0, k = n0; with T_X̃ = T_Ξ = I, (82) gives V_{A⋄X} = V_{AX}"))
    return decide(printed, correction=("A ⋄ X = AX and V_{AX} = (A ⊗ I_{n0}) V_X",
                                       _textbook(proof, "matmul-associative", "matmul-entry")),
                  corrected_exhaustive_crosscheck=(corrected))


@claim(
    "cheng2025:eq76",
    quote="V_{X̃} = T_{X̃} V_X  (76),  T_{X̃} = diag(Π^{n_1}_{n0}, ..., Π^{n_s}_{n0})  (77);  V_{A⋄X} = T_Ξ V_{Ξ̃}  (79), T_Ξ = diag(Π^{n0}_{n_i})  (80)",
    statement=(
        "Steps 1 and 3 of Def. 4.13 as block-diagonal matrices (naive Π of (22)) agree with isomat's project_pad / "
        "project_rows, symbolically, for every dims tuple of length ≤ 3 with n_i ≤ 3."
    ),
    methods=["symbolic", "exhaustive"],
)
def _eq76():
    def ok(dims):
        n0 = max(dims)
        xs = _sym_hv(dims)
        VX = sympy.Matrix.vstack(*xs)
        T = _blockdiag([naive_projection(n, n0) for n in dims])
        Xt = _hyper.project_pad(xs)
        step1 = (T * VX - Xt.reshape(len(dims) * n0, 1)).expand().is_zero_matrix
        Xi = sympy.Matrix(len(dims), n0, lambda i, j: sympy.Symbol(f"z{i}_{j}"))
        T3 = _blockdiag([naive_projection(n0, n) for n in dims])
        rows = _hyper.project_rows(Xi, dims)
        step3 = (T3 * Xi.reshape(len(dims) * n0, 1) - sympy.Matrix.vstack(*list(rows))).expand().is_zero_matrix
        return step1 and step3

    tr = exhaustive(ok, _hv_cases(), describe="dims of length <= 3, n_i <= 3", method="symbolic")
    return decide(tr)


@claim(
    "cheng2025:eq82",
    quote="V_{Ξ̃} = (A ⊗ I_s) V_{X̃}  (78);  V_{A⋄X} = T_Ξ (A ⊗ I_s) T_{X̃} V_X  (82)",
    statement=(
        "The matrix expression (82) (naive Π blocks, printed A ⊗ I_s) must be defined and equal the step-by-step ⋄ of "
        "Def. 4.13 (isomat diamond), symbolic X, random integer A, every dims tuple of length ≤ 3 with n_i ≤ 3. "
        "Correction: A ⊗ I_{n0} in (78) and (82), proved for all sizes: Def. 4.13's steps 1 and 3 are the block "
        "diagonals T_X̃, T_Ξ by (76)/(79), and step 2, Ξ̃ = A X̃, is V_Ξ̃ = (A ⊗ I_{n0}) V_X̃ (V_r(AX) = (A ⊗ I_k) V_r(X) "
        "for uninterpreted A, X, every size). Cross-check: isomat's diamond and diamond_matrix, symbolic X, every "
        "dims tuple of length ≤ 3 with n_i ≤ 3."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq82():
    def ok(dims, k_of):
        s, n0 = len(dims), max(dims)
        A = _rand(s, s, sum(dims) + s)
        xs = _sym_hv(dims)
        VX = sympy.Matrix.vstack(*xs)
        T1 = _blockdiag([naive_projection(n, n0) for n in dims])
        T3 = _blockdiag([naive_projection(n0, n) for n in dims])
        K = _kron(A, sympy.eye(k_of(s, n0)))
        if K.cols != T1.rows:
            return False
        M = T3 * K * T1
        steps = sympy.Matrix.vstack(*list(_hyper.diamond(A, xs)))
        ok_ = (M * VX - steps).expand().is_zero_matrix
        if k_of(s, n0) == n0:
            ok_ = ok_ and sympy.Matrix(_hyper.diamond_matrix(A, dims)) == M
        return ok_

    cases = _hv_cases()

    def witness(dims):
        s, n0 = len(dims), max(dims)
        return {"A ⊗ I_s size": [s * s, s * s], "T_X̃ size": [s * n0, sum(dims)]}

    printed = exhaustive(lambda d: ok(d, lambda s, n0: s), cases, describe="dims of length <= 3, n_i <= 3", witness=witness, method="symbolic")
    corrected = exhaustive(lambda d: ok(d, lambda s, n0: n0), cases, describe="dims of length <= 3, n_i <= 3", method="symbolic")
    proof = _vec_kron_proof("here X̃ is s×n0 (step 1 of Def. 4.13, V_X̃ = T_X̃ V_X by (76)), k = n0: (78) reads "
                            "V_Ξ̃ = (A ⊗ I_{n0}) V_X̃, and step 3 (79) V_{A⋄X} = T_Ξ V_Ξ̃ gives (82) with A ⊗ I_{n0}")
    return decide(printed, correction=("V_{A⋄X} = T_Ξ (A ⊗ I_{n0}) T_{X̃} V_X (and (78) with A ⊗ I_{n0})",
                                       _textbook(proof, "matmul-associative", "matmul-entry")),
                  corrected_exhaustive_crosscheck=(corrected))


@claim(
    "cheng2025:eq70",
    quote="m_i = n_j = d ⇒ X ⊙ Y = XYᵀ/d,  X ⊙_w Y = XYᵀ/√d   (70)",
    statement=(
        "Exact, generic (symbolic) homogeneous hypervectors, so for all values at each size, s, t, d in [1, 3], with "
        "isomat's hv_inner / hv_inner_weighted "
        "(Def. 4.12, ⊙_w read as (X ⊙ Y) ∘ W); and hv_inner equals the naive ⟨·,·⟩_V of (17) entrywise on ragged "
        "dims (s, t ≤ 2, sizes ≤ 4)."
    ),
    methods=["exact", "exhaustive"],
)
def _eq70():
    def homog(c):
        s, t, d = c
        X, Y = _grand(s, d, 1), _grand(t, d, 2)
        hx, hy = [X[i, :].T for i in range(s)], [Y[j, :].T for j in range(t)]
        return (_same(_hyper.hv_inner(hx, hy), X * Y.T / d)
                and _same(_hyper.hv_inner_weighted(hx, hy), X * Y.T / sympy.sqrt(d)))

    def ragged(c):
        a, b, cc, dd = c
        xs, ys = [_grand(a, 1, 1), _grand(b, 1, 2)], [_grand(cc, 1, 3), _grand(dd, 1, 4)]
        G = _hyper.hv_inner(xs, ys)
        return all(sympy.expand(G[i, j] - naive_inner_v(xs[i], ys[j])) == 0 for i in range(2) for j in range(2))

    return decide(all_of(_exact_exhaustive(homog, _dims(3, 3), "s, t, d in [1, 3]"),
                         _exact_exhaustive(ragged, _dims(4, 3), "two-vector hypervectors, sizes in [1, 3]")))


# =============================================================================================
# Example 4.15 (printed values transcribed from the paper, §IV-C)
# =============================================================================================
_W2 = sympy.Matrix(2, 2, lambda i, j: sympy.Symbol(f"w{i + 1}{j + 1}"))


def _P(text: str) -> sympy.Expr:
    """Parse a transcribed printed expression; x{i}_{j} is the paper's x^i_j (vector i, entry j)."""
    return sympy.expand(sympy.sympify(text))


# Example 4.15: X as printed (x^i_j written x{i}_{j}; the paper prints z^2_2 for the (2, 2) entry) and V_X of Step 1
_EX415_X = [["x1_1", "x1_2"], ["x2_1", "z2_2", "x2_3"]]
_EX415_VX = ["x1_1", "x1_2", "x2_1", "x2_2", "x2_3"]
# Example 4.15, Step 1: T_X̃ = diag(Π^2_3, I_3) as printed (6 x 5)
_EX415_TX = [[1, 0, 0, 0, 0], ["1/2", "1/2", 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
# Step 2: V_Ξ = (W ⊗ I_3) V_X̃ as printed
_EX415_VXI = ["w11*x1_1 + w12*x2_1", "w11*(x1_1 + x1_2)/2 + w12*x2_2", "w11*x1_2 + w12*x2_3",
              "w21*x1_1 + w22*x2_1", "w21*(x1_1 + x1_2)/2 + w22*x2_2", "w21*x1_2 + w22*x2_3"]
# Step 2: W ⊗ I_3 as printed (6 x 6)
_EX415_WI3 = [["w11", 0, 0, "w12", 0, 0], [0, "w11", 0, 0, "w12", 0], [0, 0, "w11", 0, 0, "w12"],
              ["w21", 0, 0, "w22", 0, 0], [0, "w21", 0, 0, "w22", 0], [0, 0, "w21", 0, 0, "w22"]]
# Step 3: T_Ξ = diag(Π^3_2, I_3) as printed (5 x 6)
_EX415_TXI = [["2/3", "1/3", 0, 0, 0, 0], [0, "1/3", "2/3", 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]]
# q^1_1, q^1_2, q^2_1, q^2_2, q^2_3 as printed (the printed x_2^1 in q^1_1 is x1_2 here)
_EX415_Q = ["2*(w11*x1_1 + w12*x1_2)/3 + (w11*(x1_1 + x1_2) + 2*w12*x2_2)/6",
            "(w11*(x1_1 + x1_2) + 2*w12*x2_2)/6 + 2*(w11*x1_2 + w12*x2_3)/3",
            "w21*x1_1 + w22*x2_1", "w21*(x1_1 + x1_2)/2 + w22*x2_2", "w21*x1_2 + w22*x2_3"]


@claim(
    "cheng2025:ex4.15",
    quote="Example 4.15: W ⋄ X for X = {(x^1_1, x^1_2), (x^2_1, x^2_2, x^2_3)}, W ∈ M_{2×2}: T_X̃, W ⊗ I_3, V_Ξ, T_Ξ, q's",
    statement=(
        "Every printed entry of T_X̃ (6×5), W ⊗ I_3 (6×6), V_Ξ (6), T_Ξ (5×6), V_{W⋄X} = (q^1_1, q^1_2, q^2_1, q^2_2, q^2_3) "
        "recomputed: T's from the naive Π of (22), W ⊗ I_3 from the definition, V_Ξ = (W⊗I_3) T_X̃ V_X, and the q's from "
        "isomat's step-by-step ⋄ (Def. 4.13), compared exactly as polynomials."
    ),
    methods=["recompute", "symbolic"],
)
def _ex415():
    xs = _sym_hv((2, 3))
    VX = sympy.Matrix.vstack(*xs)
    TX = _blockdiag([naive_projection(2, 3), sympy.eye(3)])
    TXi = _blockdiag([naive_projection(3, 2), sympy.eye(3)])
    K = _kron(_W2, sympy.eye(3))
    VXi = K * TX * VX
    q = sympy.Matrix.vstack(*list(_hyper.diamond(_W2, xs)))
    printed, recomputed = {}, {}
    for i in range(6):
        for j in range(5):
            printed[f"T_X̃[{i + 1},{j + 1}]"] = sympy.Rational(sympy.sympify(_EX415_TX[i][j]))
            recomputed[f"T_X̃[{i + 1},{j + 1}]"] = TX[i, j]
    for i in range(6):
        for j in range(6):
            printed[f"W⊗I_3[{i + 1},{j + 1}]"] = sympy.sympify(_EX415_WI3[i][j])
            recomputed[f"W⊗I_3[{i + 1},{j + 1}]"] = K[i, j]
    for i in range(6):
        printed[f"V_Ξ[{i + 1}]"] = _P(_EX415_VXI[i])
        recomputed[f"V_Ξ[{i + 1}]"] = sympy.expand(VXi[i])
    for i in range(5):
        for j in range(6):
            printed[f"T_Ξ[{i + 1},{j + 1}]"] = sympy.Rational(sympy.sympify(_EX415_TXI[i][j]))
            recomputed[f"T_Ξ[{i + 1},{j + 1}]"] = TXi[i, j]
    # the printed X (pseudo-matrix) against V_X = (x^1_1, x^1_2, x^2_1, x^2_2, x^2_3)ᵀ printed in Step 1 (eq. 56)
    for k, (p_sym, v_sym) in enumerate(zip([e for row in _EX415_X for e in row], _EX415_VX)):
        printed[f"X entry {k + 1} (row by row) vs V_X[{k + 1}]"] = p_sym
        recomputed[f"X entry {k + 1} (row by row) vs V_X[{k + 1}]"] = v_sym
    names = ["q^1_1", "q^1_2", "q^2_1", "q^2_2", "q^2_3"]
    for i, nm in enumerate(names):
        printed[f"{nm} (and V_W⋄X[{i + 1}])"] = _P(_EX415_Q[i])
        recomputed[f"{nm} (and V_W⋄X[{i + 1}])"] = sympy.expand(q[i])
    return compare_printed(printed, recomputed, check="T_Ξ V_Ξ equals the step-by-step ⋄: "
                           + str((TXi * VXi - q).expand().is_zero_matrix))


# =============================================================================================


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
