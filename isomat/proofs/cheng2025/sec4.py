"""cheng2025 §IV: hypervectors, stochastic products, the operator ⋄, Example 4.15."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from ..engine import device_cached, refuses, require


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
        "The theorem itself, on a grid: for dims (2,2), (2,3), (3,2), (3,3), (2,2,2), all factor tuples with entries "
        "in {−1, 0, 1} are grouped by their nonzero STP product ⋉ x_i (= ⊗ x_i for vectors) and every two tuples with the "
        "same product satisfy y_i = λ_i x_i with Π λ_i = 1 (exact Fractions); normalized tuples (nonnegative, sums 1, "
        "from entries {0, 1, 2}) with the same product are identical. Strength sampled: the theorem is over all real "
        "vectors and the grid decides it only at the grid's values (every pair there, exactly), not for all reals; "
        "an exact check for all reals is infeasible as posed (uncountably many factor tuples), and no symbolic proof "
        "of the rank-one factorization's uniqueness is attempted here. "
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
        exhaustive(theorem, thm_cases, describe="all factor tuples with entries in {-1, 0, 1} (uniqueness: normalized "
                   "from {0, 1, 2}) for dims (2,2), (2,3), (3,2), (3,3), (2,2,2); a finite grid of a statement over "
                   "the reals", method="exact", strength="sampled"),
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


def _matvec_term(A, x, i, j):
    """The j-th term of the matrix-vector product's entry (Ax)_i = Σ_j a_ij x_j: a_ij · x_j (Z3 terms; ``A`` and
    ``x`` uninterpreted entry functions). The definition of Ax that the prop4.6 proof sums."""
    return A(i, j) * x(j)


def _stochastic_hypotheses(C, Xs, m, n):
    """The hypotheses of (60) that the proof of Σ_i (Ax)_i = 1 uses: x ∈ Υ^n sums to 1 (``Xs(n) = Σ_{j<n} x_j = 1``)
    and A ∈ Υ_{m×n} has unit column sums (``C(j, m) = Σ_{i<m} a_ij = 1`` for every column 0 <= j < n).
    (Nonnegativity enters through the textbook step 'nonnegative-closure'.)"""
    import z3

    j = _pv.ints("j")[0]
    return [Xs(n) == 1, z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < n), C(j, m) == 1))]


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
          _pv.axiom("row-sum-step", z3.ForAll([i, J], z3.Implies(J >= 0, Rw(i, J + 1) == Rw(i, J) + _matvec_term(A, x, i, J)), patterns=[Rw(i, J + 1)]), text="(Ax)_i = Σ_j a_ij x_j"),
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
    # the premises (the sums' definitions, columns of A and x summing to 1) are consistent: a candidate model the
    # prover checks -- m = n = 1, A = [1], x = [1], every prefix sum 1 once it has a term (Z3 finds none alone)
    one = lambda *cond: z3.If(z3.And(*cond), z3.RealVal(1), z3.RealVal(0))  # noqa: E731
    model = {A: lambda i, j: one(i == 0), x: lambda j: one(j == 0), Xs: lambda J: one(J >= 1),
             C: lambda j, I_: one(I_ >= 1), Rw: lambda i, J: one(i == 0, J >= 1), D: lambda I_, J: one(I_ >= 1, J >= 1),
             E: lambda I_, J: one(I_ >= 1, J >= 1), m: 1, n: 1}
    return _pv.prove(
        D(m, n) == 1,
        for_all="for all m, n >= 1, every A ∈ M_{m×n} whose columns sum to 1 and every x ∈ R^n whose entries sum to 1 "
                "(A, x uninterpreted)",
        assuming=[m >= 1, n >= 1, *_stochastic_hypotheses(C, Xs, m, n)],
        lemmas=[l2.at(n, m), l3.at(n, m)], sizes=[m, n], model=model,
    ).trial("Σ_i (Ax)_i = Σ_{i<m} Σ_{j<n} a_ij x_j = Σ_{j<n} (Σ_{i<m} a_ij) x_j = Σ_j x_j = 1; entries of Ax are sums "
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
        return (A * Pw * B == naive_dk(A, B, True) and sympy.Matrix(_stp_mod.bridge_weighted(n, p, backend="sympy")) == Pw
                and _csr_float_equals(_stp_mod.bridge_weighted(n, p), Pw))  # the defaults: NumPy field, CSR

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
        "Steps 1 and 3 of Def. 4.13 as block-diagonal matrices: proved for all sizes (s vectors of dimensions "
        "n_1, ..., n_s, n0, uninterpreted Π blocks and entries) that row (i, e) of diag(Π_1, ..., Π_s) times the stacked "
        "vector, a sum over all Σ n_l columns in which block i sits at the prefix offset o_i = n_1 + ... + n_{i-1}, is "
        "(Π_i x^i)[e] (block sums by induction, offsets in range by induction on s); the same for step 3 with the "
        "column blocks of size n0 at offsets i·n0. Binding cross-check, symbolically, every dims tuple of length ≤ 3 "
        "with n_i ≤ 3: the block-diagonal matrices (77), (80) built with the naive Π of (22) and isomat's "
        "project_pad / project_rows each equal Def. 4.13's steps 1 and 3 computed vector by vector "
        "(x̃^i = Π^{n_i}_{n0} x^i, ξ^i = Π^{n0}_{n_i} ξ̃^i). Binding at the sizes users run: isomat's project_pad, "
        "project_rows and diamond against the same steps with the Π of (22) built by scipy.sparse.kron, float64 "
        "(rtol 1e-12), six listed dims tuples with lengths to 10^3."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=_SIZES,
)
def _eq76():
    def ok(dims):
        n0 = max(dims)
        xs = _sym_hv(dims)
        VX = sympy.Matrix.vstack(*xs)
        T = _blockdiag([naive_projection(n, n0) for n in dims])
        # reference: Def. 4.13's steps 1 and 3 vector by vector (x̃^i = Π^{n_i}_{n0} x^i, ξ^i = Π^{n0}_{n_i} ξ̃^i)
        ref1 = sympy.Matrix.vstack(*[naive_projection(n, n0) * x for n, x in zip(dims, xs)])
        Xt = _hyper.project_pad(xs)
        step1 = (T * VX - ref1).expand().is_zero_matrix and (Xt.reshape(len(dims) * n0, 1) - ref1).expand().is_zero_matrix
        Xi = sympy.Matrix(len(dims), n0, lambda i, j: sympy.Symbol(f"z{i}_{j}"))
        T3 = _blockdiag([naive_projection(n0, n) for n in dims])
        ref3 = sympy.Matrix.vstack(*[naive_projection(n0, n) * Xi[i, :].T for i, n in enumerate(dims)])
        rows = _hyper.project_rows(Xi, dims)
        step3 = ((T3 * Xi.reshape(len(dims) * n0, 1) - ref3).expand().is_zero_matrix
                 and (sympy.Matrix.vstack(*list(rows)) - ref3).expand().is_zero_matrix)
        return step1 and step3

    checks = require(exhaustive_crosscheck=exhaustive(ok, _hv_cases(), describe="dims of length <= 3, n_i <= 3",
                                                      method="symbolic"),
                     hypervector_operators_at_user_sizes=_hyper_large())
    return decide(_textbook(_eq76_proof(), "matmul-entry"), **checks)


#: dims of the hypervector check at the sizes users run: equal, coprime, divisible and mixed lengths to 10^3
HYPER_LARGE = [(512, 512, 512), (97, 89, 101, 64), (1000, 10, 250, 7), (3, 1000), (128, 96, 64, 32, 16, 8, 4, 2, 1),
               (360, 1, 240, 17)]


def _sparse_pi(m: int, n: int):
    """Π^m_n of (22) with scipy.sparse.kron (no isomat code): (n/t)(I_n ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/m})."""
    import scipy.sparse as sp

    t = math.lcm(m, n)
    return (sp.kron(sp.eye(n), np.ones((1, t // n))) @ sp.kron(sp.eye(m), np.ones((t // m, 1)))) * (n / t)


def _hyper_large():
    """isomat's project_pad, project_rows and diamond (float64) against Def. 4.13 step by step with the scipy.sparse.kron
    Π of (22), at HYPER_LARGE, seeded data, rtol 1e-12 (binding)."""
    def ok(dims):
        rng = np.random.default_rng(sum(dims))
        xs = [rng.standard_normal(n) for n in dims]
        n0, s = max(dims), len(dims)
        A = rng.standard_normal((s, s))
        step1 = np.stack([_sparse_pi(n, n0) @ x for n, x in zip(dims, xs)])
        ref = [_sparse_pi(n0, n) @ row for n, row in zip(dims, A @ step1)]
        got1 = to_numpy(_hyper.project_pad(xs))
        got = [to_numpy(v) for v in _hyper.diamond(A, xs)]
        rows = [to_numpy(v) for v in _hyper.project_rows(A @ step1, dims)]
        return (np.allclose(got1, step1, rtol=1e-12, atol=1e-12)
                and all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(got, ref))
                and all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(rows, ref)))

    return exhaustive(ok, HYPER_LARGE, method="numeric", strength="sampled",
                      describe=f"project_pad, project_rows, diamond vs Def. 4.13 with the sparse-Kronecker Π of (22), dims "
                               f"{HYPER_LARGE}, seeded float64, rtol 1e-12")


#: dims of the exact hypervector checks of fields and options: unequal, equal, and one vector longer than d
HYPER_OPTION_DIMS = [(2, 3), (3, 1, 2), (2, 2)]


@device_cached
def _hyper_fields_and_options():
    """isomat's diamond, zero_padding_linear, project_padding_linear, project_pad and hv_inner_weighted in the exact
    field against the definitions written out with the Π of (22) (naive_projection) and the V-inner product of (17)
    by repetition (t = lcm; no isomat code), exactly, at HYPER_OPTION_DIMS: every operand exact; one operand a NumPy
    array of integers and the other exact, both ways round (the result is exact: the field is that of all the
    operands); out_dims as a tuple, a list and a range; a rectangular A with out_dims; every result's field exact.
    And the refusals that name what is wrong: a non-square W, and zero-padding out_dims beyond d (binding)."""
    from fractions import Fraction

    def vinner(x, y):  # (17): <x ⊗ 1_{t/m}, y ⊗ 1_{t/n}> / t, by repetition
        t = math.lcm(len(x), len(y))
        xr = [x[k // (t // len(x))] for k in range(t)]
        yr = [y[k // (t // len(y))] for k in range(t)]
        return sum(a * b for a, b in zip(xr, yr)) / t

    def rows(hv):  # compared with exact references: a float entry never equals one
        return [list(u) for u in hv.values()]

    def ok(dims):
        s = len(dims)
        xs = [sympy.Matrix([Fraction(1 + 2 * i + k, 1 + i) for k in range(n)]) for i, n in enumerate(dims)]
        xs_np = [np.array([1 + 3 * i + k for k in range(n)], dtype=np.int64) for i, n in enumerate(dims)]
        A = sympy.Matrix(s, s, lambda i, j: sympy.Rational(1 + i + 2 * j, 1 + j))
        A_np = np.arange(1, s * s + 1, dtype=np.int64).reshape(s, s)
        n0 = max(dims)
        d = n0 + 1
        W = sympy.Matrix(d, d, lambda i, j: sympy.Rational(2 + i - j, 1 + i))
        W_np = np.arange(1, d * d + 1, dtype=np.int64).reshape(d, d) % 7 - 3
        out = tuple(1 + (n % 3) for n in dims)

        def ref_diamond(Am, X, outs):
            Xt = sympy.Matrix.vstack(*[(naive_projection(len(x), n0) * sympy.Matrix(x)).T for x in X])
            Xi = sympy.Matrix(Am) * Xt
            return [list(naive_projection(n0, m) * Xi[i, :].T) for i, m in enumerate(outs)]

        def ref_padded(Wm, X, outs, project):
            if project:
                Xt = sympy.Matrix.vstack(*[(naive_projection(len(x), d) * sympy.Matrix(x)).T for x in X])
            else:
                Xt = sympy.Matrix.vstack(*[sympy.Matrix([list(x) + [0] * (d - len(x))]) for x in X])
            Qt = (sympy.Matrix(Wm) * Xt.T).T
            if project:
                return [list(naive_projection(d, m) * Qt[i, :].T) for i, m in enumerate(outs)]
            return [list(Qt[i, :m]) for i, m in enumerate(outs)]

        Xs_exact = [list(x) for x in xs]
        Xs_int = [[sympy.Integer(int(v)) for v in x] for x in xs_np]
        good = True
        for Am, X, Xref in ((A, xs, Xs_exact), (A_np, xs, Xs_exact), (A, xs_np, Xs_int)):
            got = _hyper.diamond(Am, X)
            good &= got.field == "sympy" and rows(got) == ref_diamond(Am, Xref, dims)
        rect = sympy.Matrix(s + 1, s, lambda i, j: sympy.Rational(i + j + 1, 2))  # p x s with out_dims: (97)'s use
        got = _hyper.diamond(rect, xs, out_dims=list(out) + [2])
        good &= got.field == "sympy" and rows(got) == ref_diamond(rect, Xs_exact, list(out) + [2])
        for project, fn in ((False, _hyper.zero_padding_linear), (True, _hyper.project_padding_linear)):
            for Wm, X, Xref in ((W, xs, Xs_exact), (W_np, xs, Xs_exact), (W, xs_np, Xs_int)):
                for outs in (out, list(out), range(1, s + 1)):
                    got = fn(Wm, X, outs)
                    good &= got.field == "sympy" and rows(got) == ref_padded(Wm, Xref, list(outs), project)
            good &= refuses(lambda: fn(sympy.Matrix(d, d + 1, lambda i, j: i + j), xs, out), ValueError, "W must be square")
        good &= refuses(lambda: _hyper.zero_padding_linear(W, xs, (d + 1,) + out[1:]), ValueError, "out_dims")
        pad = _hyper.project_pad(xs)
        good &= [list(pad.row(i)) for i in range(s)] == [list((naive_projection(len(x), n0) * x).T) for x in xs]
        ys = [sympy.Matrix([sympy.Rational(k + 1, 2 + j) for k in range(1 + (j + 1) % 3)]) for j in range(2)]
        ys_np = [np.array([k + j + 1 for k in range(1 + (j + 1) % 3)], dtype=np.int64) for j in range(2)]
        for X, Y, Xr, Yr in ((xs, ys, Xs_exact, [list(y) for y in ys]),
                             (xs_np, ys, Xs_int, [list(y) for y in ys]),
                             (xs, ys_np, Xs_exact, [[sympy.Integer(int(v)) for v in y] for y in ys_np])):
            G = _hyper.hv_inner_weighted(X, Y)
            ref = sympy.Matrix(len(Xr), len(Yr), lambda i, j: vinner(Xr[i], Yr[j]) * sympy.sqrt(math.lcm(len(Xr[i]), len(Yr[j]))))
            good &= isinstance(G, sympy.MatrixBase) and (G - ref).applyfunc(sympy.simplify).is_zero_matrix
        return bool(good)

    return exhaustive(ok, HYPER_OPTION_DIMS, method="exact",
                      describe=f"diamond, zero/project-padding linear, project_pad and hv_inner_weighted vs the definitions "
                               f"with the Π of (22), exact, dims {HYPER_OPTION_DIMS}: exact operands, one a NumPy integer "
                               f"array either way round, out_dims tuple/list/range, a rectangular A; non-square W and "
                               f"zero-padding beyond d refused by name")


def _eq76_proof():
    """(76)/(79) for all sizes: row (i, e) of a block-diagonal matrix diag(Π_1, ..., Π_s) times a stacked vector V is
    (Π_i v^i)[e]. The sum over all columns c < o_s runs over [o_i, o_i + n_i) only (block i at the prefix offset
    o_i = Σ_{l<i} n_l), where V[c] = v^i[c − o_i]: a shifted block sum (axioms, closed form by induction on the
    summation bound); o_i >= 0 and o_i + n_i <= o_s by induction on s. Step 1 has blocks Π^{n_i}_{n0} at the
    column offsets o_i; step 3 has blocks Π^{n0}_{n_i} at the column offsets i·n0 (w = 1, 3 tell the two apart);
    the Π entries and vectors are uninterpreted."""
    import z3

    I, R = z3.IntSort(), z3.RealSort()
    G = z3.Function("BlockTerm", I, I, I, I, R)  # G(w, i, e, c) = Π_i[e, c]·v^i[c] (step w)
    B = z3.Function("BlockDiagRowSum", I, I, I, I, I, I, R)  # B(w, o, n, i, e, L)
    P = z3.Function("BlockRowSum", I, I, I, I, R)  # P(w, i, e, K) = Σ_{c<K} G(w, i, e, c)
    O, N = z3.Function("PrefixOffset", I, I), z3.Function("VectorDim", I, I)
    w, o, n, i, e, L, K, l, s_, n0 = _pv.ints("w o n i e L K l s n0")
    ax = [
        _pv.axiom("blockdiag-row-sum-0", z3.ForAll([w, o, n, i, e], B(w, o, n, i, e, 0) == 0), text="empty sum"),
        _pv.axiom("blockdiag-row-sum-step", z3.ForAll([w, o, n, i, e, L], z3.Implies(
            L >= 0, B(w, o, n, i, e, L + 1) == B(w, o, n, i, e, L)
            + z3.If(z3.And(o <= L, L < o + n), G(w, i, e, L - o), z3.RealVal(0))), patterns=[B(w, o, n, i, e, L + 1)]),
            text="B(o, n, i, e, L+1) = B(o, n, i, e, L) + T[(i, e), L]·V[L]: row (i, e) of the block diagonal T is "
                 "Π_i[e, L − o] on the columns o <= L < o + n of block i and 0 elsewhere, and there V[L] = v^i[L − o]"),
        _pv.axiom("block-row-sum-0", z3.ForAll([w, i, e], P(w, i, e, 0) == 0), text="empty sum"),
        _pv.axiom("block-row-sum-step", z3.ForAll([w, i, e, K], z3.Implies(
            K >= 0, P(w, i, e, K + 1) == P(w, i, e, K) + G(w, i, e, K)), patterns=[P(w, i, e, K + 1)]),
            text="P(i, e, K+1) = P(i, e, K) + Π_i[e, K]·v^i[K]: (Π_i v^i)[e] = P(i, e, n_i)"),
    ]
    block = _pv.induction(
        "blockdiag-row-sum", L,
        lambda L: z3.Implies(z3.And(o >= 0, n >= 0), B(w, o, n, i, e, L) == P(w, i, e, z3.If(
            L <= o, 0, z3.If(L - o <= n, L - o, n)))),
        text="for all L, o, n >= 0: Σ_{c<L} [o <= c < o+n]·G(i, e, c − o) = Σ_{c<min(max(L − o, 0), n)} G(i, e, c)",
        other=[w, o, n, i, e], axioms=ax, patterns=[B(w, o, n, i, e, L)])
    oax = [_pv.axiom("prefix-offset-0", O(0) == 0, text="o_0 = 0"),
           _pv.axiom("prefix-offset-step", z3.ForAll([l], z3.Implies(l >= 0, O(l + 1) == O(l) + N(l)), patterns=[O(l + 1)]),
                     text="o_{l+1} = o_l + n_l: block l of V_X starts at o_l = n_1 + ... + n_l (0-based l)"),
           _pv.axiom("vector-dims-positive", z3.ForAll([l], N(l) >= 1, patterns=[N(l)]),
                     text="n_l >= 1: every vector of a hypervector has a positive dimension (Def. 4.1)")]
    offsets = _pv.induction(
        "prefix-offset-bounds", s_,
        lambda s_: z3.And(O(s_) >= 0, z3.Implies(z3.And(0 <= i, i < s_), z3.And(0 <= O(i), N(i) >= 1, O(i) + N(i) <= O(s_)))),
        text="for all s >= 0 and 0 <= i < s: o_s >= 0, o_i >= 0 and o_i + n_i <= o_s (block i lies inside V_X)",
        other=[i], axioms=oax)
    return _proof_trial(
        _pv.both(B(1, O(i), N(i), i, e, O(s_)) == P(1, i, e, N(i)), B(3, i * n0, n0, i, e, s_ * n0) == P(3, i, e, n0)),
        for_all="for all s, n0 >= 1, all dimensions n_1, ..., n_s >= 1 (offsets o_i = Σ_{l<i} n_l), every block i < s "
                "and row e, all Π blocks and vectors (uninterpreted)",
        assuming=[s_ >= 1, n0 >= 1, 0 <= i, i < s_, 0 <= e], sizes=[s_, n0],
        lemmas=[block.at(O(s_), 1, O(i), N(i), i, e), block.at(s_ * n0, 3, i * n0, n0, i, e), offsets.at(s_, i),
                _pv.FLAT_INDEX_RANGE.at(i, n0 - 1, n0, s_)],
        describe="(T_X̃ V_X)[(i, e)] = Σ_{c<o_s} T_X̃[(i, e), c] V_X[c] = Σ_{c<n_i} Π^{n_i}_{n0}[e, c] x^i[c] = (Π^{n_i}_{n0} x^i)[e] "
                 "(76), and (T_Ξ V_Ξ̃)[(i, e)] = Σ_{c<s·n0} ... = (Π^{n0}_{n_i} ξ̃^i)[e] (79): the block diagonals of (77), "
                 "(80) are steps 1 and 3 of Def. 4.13")


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
        "Proved for all sizes, entry by entry (Def. 4.12, ⊙_w read as (X ⊙ Y) ∘ W, W[i, j] = √lcm(m_i, n_j)): for "
        "x^i, y^j ∈ R^d and every common multiple t = d·a (t = lcm(d, d) included), ⟨x^i, y^j⟩_V = (1/t)·Σ_{u<t} "
        "(x^i ⊗ 1_a)[u] (y^j ⊗ 1_a)[u] = (1/d)·Σ_l x^i[l] y^j[l] = (XYᵀ/d)[i, j] (the sum over u in row-major digits "
        "(l, c), by induction; x, y uninterpreted), lcm(d, d) = d, and so (X ⊙_w Y)[i, j] = (XYᵀ)[i, j]/√d. Binding "
        "cross-check: exact, generic (symbolic) homogeneous hypervectors, s, t, d in [1, 3], with isomat's hv_inner / "
        "hv_inner_weighted; and hv_inner equals the naive ⟨·,·⟩_V of (17) entrywise on ragged dims (s, t ≤ 2, sizes ≤ 4)."
    ),
    methods=["exact", "exhaustive", "symbolic"],
    hypotheses=_SIZES,
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

    checks = require(exhaustive_crosscheck=all_of(
        _exact_exhaustive(homog, _dims(3, 3), "s, t, d in [1, 3]"),
        _exact_exhaustive(ragged, _dims(4, 3), "two-vector hypervectors, sizes in [1, 3]")))
    return decide(_textbook(_eq70_proof(), "kron-entry"), **checks)


@device_cached
def _homog_inner_lemma():
    """(T, P, lemma): T(i, j, a, L) = Σ_{l<L} Σ_{c<a} (x^i ⊗ 1_a)[l·a + c] (y^j ⊗ 1_a)[l·a + c] and P(i, j, L) =
    Σ_{l<L} x^i[l] y^j[l] (axioms), proved T(i, j, a, L) = a·P(i, j, L) (inner sum over the a copies, then the outer
    over l, both by induction); x, y uninterpreted."""
    import z3

    I, R = z3.IntSort(), z3.RealSort()
    x, y = z3.Function("x_entry", I, I, R), z3.Function("y_entry", I, I, R)  # x(i, l) = x^i[l], y(j, l) = y^j[l]
    U = z3.Function("CopySum", I, I, I, I, R)  # U(i, j, l, c) = Σ_{c'<c} (x^i ⊗ 1_a)[l·a + c'] (y^j ⊗ 1_a)[l·a + c']
    T = z3.Function("ExpandedInner", I, I, I, I, R)  # T(i, j, a, L) = Σ_{l<L} U(i, j, l, a)
    P = z3.Function("DotPrefix", I, I, I, R)  # P(i, j, L) = Σ_{l<L} x^i[l] y^j[l]
    i, j, l, c, a, L = _pv.ints("i j l c a L")
    ax = [
        _pv.axiom("copy-sum-0", z3.ForAll([i, j, l], U(i, j, l, 0) == 0), text="empty sum"),
        _pv.axiom("copy-sum-step", z3.ForAll([i, j, l, c], z3.Implies(
            c >= 0, U(i, j, l, c + 1) == U(i, j, l, c) + x(i, l) * y(j, l)), patterns=[U(i, j, l, c + 1)]),
            text="U(l, c+1) = U(l, c) + (x ⊗ 1_a)[l·a + c]·(y ⊗ 1_a)[l·a + c], with (x ⊗ 1_a)[l·a + c] = x[l] for c < a"),
        _pv.axiom("expanded-inner-0", z3.ForAll([i, j, a], T(i, j, a, 0) == 0), text="empty sum"),
        _pv.axiom("expanded-inner-step", z3.ForAll([i, j, a, L], z3.Implies(
            L >= 0, T(i, j, a, L + 1) == T(i, j, a, L) + U(i, j, L, a)), patterns=[T(i, j, a, L + 1)]),
            text="T(a, L+1) = T(a, L) + U(L, a): the sum over u < t = d·a taken in row-major digits u = l·a + c"),
        _pv.axiom("dot-prefix-0", z3.ForAll([i, j], P(i, j, 0) == 0), text="empty sum"),
        _pv.axiom("dot-prefix-step", z3.ForAll([i, j, L], z3.Implies(
            L >= 0, P(i, j, L + 1) == P(i, j, L) + x(i, L) * y(j, L)), patterns=[P(i, j, L + 1)]),
            text="P(L+1) = P(L) + x^i[L] y^j[L]: (XYᵀ)[i, j] = P(i, j, d)"),
    ]
    copies = _pv.induction("copy-sum", c, lambda c: U(i, j, l, c) == z3.ToReal(c) * x(i, l) * y(j, l),
                           text="for all c >= 0: Σ_{c'<c} x[l] y[l] = c·x[l] y[l]", other=[i, j, l], axioms=ax[:2],
                           patterns=[U(i, j, l, c)])
    rows = _pv.induction("expanded-inner", L, lambda L: z3.Implies(a >= 0, T(i, j, a, L) == z3.ToReal(a) * P(i, j, L)),
                         text="for all L, a >= 0: Σ_{l<L} Σ_{c<a} x[l] y[l] = a·Σ_{l<L} x[l] y[l]", other=[i, j, a],
                         axioms=ax[2:], using=[copies], patterns=[T(i, j, a, L)])
    return T, P, rows


def _eq70_proof():
    """(70) for all sizes: for x^i, y^j ∈ R^d and t = d·a, Σ_{u<t} (x^i ⊗ 1_a)[u] (y^j ⊗ 1_a)[u] = a·Σ_{l<d} x^i[l] y^j[l]
    (u = l·a + c in row-major digits: the inner sum over the a copies, then the outer over l, both by induction);
    so ⟨x^i, y^j⟩_V = (XYᵀ)[i, j]/d, and with lcm(d, d) = d the weight √lcm(d, d) turns it into (XYᵀ)[i, j]/√d."""
    import z3

    T, P, rows = _homog_inner_lemma()
    i, j, a, d, lc, k = _pv.ints("i j a d lc k")
    sq = z3.Real("sqrt_lcm")
    inner = T(i, j, a, d) / z3.ToReal(d * a)
    return _proof_trial(
        _pv.both(inner == P(i, j, d) / z3.ToReal(d), lc == d, inner * sq == P(i, j, d) / sq),
        for_all="for all d >= 1, every common multiple t = d·a of d and d, every entry (i, j), all x^i, y^j ∈ R^d "
                "(uninterpreted); lcm(d, d) is a positive multiple of d and at most d (d is a common multiple); "
                "√lcm(d, d) the positive root",
        assuming=[d >= 1, a >= 1, 0 <= i, 0 <= j, lc == d * k, k >= 1, lc <= d, sq > 0, sq * sq == z3.ToReal(lc)],
        lemmas=[rows.at(d, i, j, a)], sizes=[d, a],
        describe="(X ⊙ Y)[i, j] = ⟨x^i, y^j⟩_V = (1/t) Σ_{u<t} (x^i ⊗ 1_a)[u] (y^j ⊗ 1_a)[u] = (a/t)·Σ_l x^i[l] y^j[l] "
                 "= (XYᵀ)[i, j]/d, and (X ⊙_w Y)[i, j] = (X ⊙ Y)[i, j]·√lcm(d, d) = (XYᵀ)[i, j]/√d  (70)")


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
    naive_q = (TXi * VXi).expand()  # Def. 4.13's three steps with the naive Π of (22): no isomat code
    printed_vx = {f"X entry {k + 1} (row by row) vs V_X[{k + 1}]": v for k, v in enumerate(_EX415_VX)}

    def reference(ds):  # the q's recomputed as T_Ξ V_Ξ (naive); X's entries against the V_X printed in Step 1
        def ok(d):
            if d["where"] in printed_vx:
                return str(d["correct"]) == str(printed_vx[d["where"]])
            i = next(i for i, nm in enumerate(names) if d["where"].startswith(nm + " "))
            return sympy.expand(sympy.sympify(d["correct"], locals={str(x): x for x in naive_q.free_symbols})
                                - naive_q[i]) == 0
        return exhaustive(ok, ds, method="exact", describe="each discrepancy's correct value: the q's as T_Ξ V_Ξ from the "
                                                          "naive Π of (22), X's entries as the V_X printed in Step 1")

    return compare_printed(printed, recomputed, check="T_Ξ V_Ξ equals the step-by-step ⋄: "
                           + str((TXi * VXi - q).expand().is_zero_matrix), confirm=reference)


# =============================================================================================


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
