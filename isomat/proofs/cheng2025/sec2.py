"""cheng2025 §II: STP, DK-STP, bridge, STA (eqs. 12-16), inner products (17)-(19), Props. 2.7 and 2.12, Def. 2.11."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports, references and proofs)
from .sec2_pi import *  # noqa: F401,F403


# §II: STP, DK-STP, bridge, STA (eqs. 12-16) and the classical STP theorems
# =============================================================================================
import importlib  # noqa: E402

_stp_mod = importlib.import_module("isomat.algebra.stp")
_logic = importlib.import_module("isomat.algebra.logic")
_hyper = importlib.import_module("isomat.algebra.hyper")


def _dev(a):
    """A float64 array in the float field of the run (CuPy under `isomat verify --backend cupy`)."""
    return _backend.as_values(np.asarray(a, dtype=float), float_backend())


def _rand(rows: int, cols: int, seed: int, lo: int = -3, hi: int = 3) -> sympy.Matrix:
    """Deterministic random integer matrix (exact)."""
    rng = np.random.default_rng(seed)
    return sympy.Matrix(rng.integers(lo, hi + 1, size=(rows, cols)).tolist())


def _grand(rows: int, cols: int, seed: int, *_: int) -> sympy.Matrix:
    """Generic matrix (independent symbols g<seed>_i_j) in place of a random integer one: an identity that is
    polynomial in the entries and holds for it holds for every value at that size (exact, not sampled)."""
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"g{seed}_{i}_{j}"))


def _same(X, Y) -> bool:
    """X = Y as polynomials in the generic entries (shapes equal, every entry of X − Y expands to 0)."""
    X, Y = sympy.Matrix(X), sympy.Matrix(Y)
    return X.shape == Y.shape and all(sympy.expand(v) == 0 for v in X - Y)


def naive_stp(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    """Eq. (12) with sympy.kronecker_product: (A ⊗ I_{t/n})(B ⊗ I_{t/p})."""
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    return _kron(A, sympy.eye(t // n)) * _kron(B, sympy.eye(t // p))


def naive_stp_right(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    return _kron(sympy.eye(t // n), A) * _kron(sympy.eye(t // p), B)


def naive_dk(A: sympy.Matrix, B: sympy.Matrix, weighted: bool = False) -> sympy.Matrix:
    """Eq. (13) (or (61) when weighted): (A ⊗ 1ᵀ_{t/n})(B ⊗ 1_{t/p}) [· 1/(t/p)]."""
    n, p = A.cols, B.rows
    t = math.lcm(n, p)
    out = _kron(A, _ones(t // n).T) * _kron(B, _ones(t // p))
    return out / (t // p) if weighted else out


def naive_sta(x: sympy.Matrix, y: sympy.Matrix, sign: int = 1) -> sympy.Matrix:
    """Eq. (14): (x ⊗ 1_{t/m}) ± (y ⊗ 1_{t/n})."""
    t = math.lcm(x.rows, y.rows)
    return _kron(x, _ones(t // x.rows)) + sign * _kron(y, _ones(t // y.rows))


def _M(x) -> sympy.Matrix:
    return sympy.Matrix(x)


def _dims(k: int, bound: int):
    """All k-tuples of dimensions in [1, bound], smallest total first."""
    return sorted(itertools.product(range(1, bound + 1), repeat=k), key=lambda c: (sum(c), c))


def _exact_exhaustive(pred, cases, describe, witness=None):
    tr = exhaustive(pred, cases, describe=describe, witness=witness, method="exact")
    return tr


@claim(
    "cheng2025:beyond/stp-formula",
    quote="A ⋉ B := (A ⊗ I_{t/n})(B ⊗ I_{t/p}),  t = lcm(n, p)   (12)",
    statement=(
        "isomat.algebra.stp (Chinese-remainder re-indexing, no Kronecker factor formed) equals the "
        "printed formula (12) built from the Kronecker definition, exactly, on generic (symbolic) matrices "
        "for every m, q ∈ {1, 2} and n, p ∈ [1, 5] (100 shapes: coprime, divisible and general n, p); "
        "likewise stp_right against (I_{t/n} ⊗ A)(I_{t/p} ⊗ B); with one operand exact and the other a NumPy "
        "integer array (either way round) the product is exact and equals (12) (m = q = 2, n, p in [1, 5]); with "
        "NumPy operands of two dtypes (a complex operand with a real one either way round, complex64 with float32, "
        "float32 with float32) the product has NumPy's promotion of the two dtypes and equals (12) built with np.kron. "
        "Binding, at the sizes users run: stp against (12) "
        "built with scipy.sparse.kron, exactly on seeded integers, at ten listed shapes with inner sizes to 10^3 "
        "(the operands dense -- a one-column B as a 1-d array --, scipy.sparse and isomat SparseOperators in turn) "
        "(stp is computed by Chinese-remainder re-indexing, not from a proved rule: the strength is exhaustive at "
        "the sizes checked). Operands: nested lists, scipy.sparse arrays and 1-d arrays (columns) are read as such; "
        "None, scalars, strings, ragged lists, 3-d and empty arrays are refused naming A or B."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_formula():
    def ok(c):
        m, n, p, q = c
        A, B = _grand(m, n, sum(c)), _grand(p, q, 7 * sum(c) + 1)
        return _stp_mod.stp(A, B) == naive_stp(A, B) and _stp_mod.stp_right(A, B) == naive_stp_right(A, B)

    def mixed(c):  # one operand exact, the other a NumPy integer array: the product is exact (the field of both)
        m, n, p, q = c
        A, B = _rand(m, n, sum(c)), _rand(p, q, sum(c) + 1)
        want = naive_stp(A, B)
        An, Bn = np.array(A.tolist(), dtype=np.int64), np.array(B.tolist(), dtype=np.int64)
        got = (_stp_mod.stp(An, B), _stp_mod.stp(A, Bn))
        return all(isinstance(g, sympy.MatrixBase) and g == want for g in got)

    def dtypes(c):  # NumPy operands of two dtypes: the product has NumPy's promotion of both, values by np.kron
        (m, n, p, q), da, db = c
        rng = np.random.default_rng(m + n + p + q)
        A, B = (rng.integers(-3, 4, size=sh) + 1j * rng.integers(-3, 4, size=sh) for sh in ((m, n), (p, q)))
        A, B = (x if np.dtype(d).kind == "c" else x.real for x, d in ((A, da), (B, db)))
        A, B = A.astype(da), B.astype(db)
        t = math.lcm(n, p)
        want = np.kron(A.astype(complex), np.eye(t // n)) @ np.kron(B.astype(complex), np.eye(t // p))
        got = np.asarray(_stp_mod.stp(A, B))
        return got.dtype == np.result_type(A.dtype, B.dtype) and np.array_equal(got.astype(complex), want)

    cases = sorted(itertools.product((1, 2), range(1, 6), range(1, 6), (1, 2)), key=lambda c: (sum(c), c))
    dtype_cases = [((2, 3, 2, 2), np.complex128, np.float64), ((2, 2, 3, 1), np.float64, np.complex128),
                   ((1, 2, 5, 2), np.complex64, np.float32), ((2, 4, 6, 2), np.complex128, np.float64),
                   ((2, 3, 4, 2), np.float32, np.float32)]
    return decide(all_of(_exact_exhaustive(ok, cases, "m, q in {1, 2}; n, p in [1, 5]; integer entries in [-3, 3]"),
                         _exact_exhaustive(mixed, [c for c in cases if c[0] == c[3] == 2],
                                           "one operand a sympy.Matrix, the other a NumPy int64 array (either way "
                                           "round): an exact sympy.Matrix equal to (12), m = q = 2, n, p in [1, 5]"),
                         _exact_exhaustive(dtypes, dtype_cases,
                                           "NumPy operands of two dtypes (complex A with real B and the reverse, "
                                           "complex64 with float32, float32 with float32; gcd(n, p) = 1 and 2; "
                                           "Gaussian-integer entries in [-3, 3]): the product's dtype is NumPy's "
                                           "promotion of the two and its values equal (12) built with np.kron")),
                  stp_at_user_sizes=builder_check(_stp_large(), derived_from_rule=False, builder="stp"),
                  operands=_stp_inputs())


#: (m, n, p, q) of the stp check at the sizes users run: coprime, divisible, equal and general inner sizes to 10^3
STP_LARGE = [(3, 64, 48, 2), (2, 97, 89, 3), (4, 128, 128, 4), (1, 1000, 10, 1), (2, 10, 1000, 2), (3, 210, 150, 2),
             (1, 360, 1, 5), (5, 1, 360, 1), (2, 999, 111, 2), (16, 12, 18, 16)]


def _stp_large():
    """isomat's stp (NumPy, int64) against (12) with scipy.sparse.kron (no isomat code) at STP_LARGE, seeded integer
    entries, exactly."""
    import scipy.sparse as sp

    def ok(c):
        m, n, p, q = c
        rng = np.random.default_rng(sum(c))
        A, B = rng.integers(-3, 4, size=(m, n)), rng.integers(-3, 4, size=(p, q))
        t = math.lcm(n, p)
        ref = (sp.kron(sp.csr_array(A), sp.eye(t // n, dtype=np.int64)) @ sp.kron(sp.csr_array(B), sp.eye(t // p, dtype=np.int64)))
        got = np.asarray(_stp_mod.stp(*_stp_input_forms(A, B, STP_LARGE.index(c))))
        return got.shape == ref.shape and np.array_equal(got, ref.toarray())

    return _exact_exhaustive(ok, STP_LARGE, f"stp vs (12) by scipy.sparse.kron at (m, n, p, q) in {STP_LARGE}; the "
                                            "operands given dense, as scipy.sparse arrays and as isomat SparseOperators "
                                            "in turn")


def _stp_input_forms(A: np.ndarray, B: np.ndarray, k: int):
    """The k-th case's operands as users pass them, in turn: NumPy arrays (a one-column B as a 1-d array, which stp
    reads as a column vector); A a scipy.sparse CSR array and B an isomat SparseOperator; the other way round."""
    import scipy.sparse as sp

    from ...algebra._operator import as_operator

    if k % 3 == 0:
        return A, (B[:, 0] if B.shape[1] == 1 else B)
    if k % 3 == 1:
        return sp.csr_array(A), as_operator(B)
    return as_operator(A), sp.csr_array(B)


#: (m, n, p, q) of the float DK-STP checks: each order of evaluation (A (Ψ B) when n <= p or it is the cheaper one,
#: else (A Ψ) B), coprime, divisible and equal inner sizes, one-column and one-row operands
DK_FLOAT_SHAPES = [(2, 4, 6, 3), (3, 6, 4, 2), (10, 3, 2, 1), (5, 6, 2, 3), (1, 7, 7, 1), (4, 1, 5, 1), (1, 9, 6, 4)]


def _naive_dk_float(A: np.ndarray, B: np.ndarray, weighted: bool) -> np.ndarray:
    """(13) (or (61)) with np.kron and ones, in float64 (no isomat code)."""
    n, p = A.shape[1], B.shape[0]
    t = math.lcm(n, p)
    out = np.kron(A, np.ones((1, t // n))) @ np.kron(B, np.ones((t // p, 1)))
    return out / (t // p) if weighted else out


def _stp_inputs_ok(case: str, field: str) -> bool:
    """One named check of how the STP family reads its operands (``field``: the float field of the run)."""
    S = _stp_mod
    rng = np.random.default_rng(len(case))
    dev = lambda X: _backend.as_values(X, field, name="X")  # noqa: E731
    if case == "dk float":  # float in the run's field: float64 out in that field, both orders, tol 1e-12
        for m, n, p, q in DK_FLOAT_SHAPES:
            A, B = rng.standard_normal((m, n)), rng.standard_normal((p, q))
            for f, weighted in ((S.dk_stp, False), (S.dk_stp_weighted, True)):
                got = f(dev(A), dev(B))
                if not (_backend.field_of(got) == field and got.dtype == np.float64 and got.shape == (m, q)
                        and np.allclose(to_numpy(got), _naive_dk_float(A, B, weighted), rtol=1e-12, atol=1e-12)):
                    return False
        return True
    if case == "dk exact, generic":  # symbolic entries: the exact field's arithmetic is SymPy's, both orders
        return all(_same(S.dk_stp(A, B), naive_dk(A, B)) and _same(S.dk_stp_weighted(A, B), naive_dk(A, B, True))
                   for A, B in ((_grand(m, n, 1), _grand(p, q, 2)) for m, n, p, q in ((2, 4, 6, 3), (3, 6, 4, 2))))
    if case == "mixed fields":  # one operand exact, the other NumPy (either way round): exact, as in (13)/(14)/(17)
        A, B, x, y = _rand(2, 4, 3), _rand(6, 3, 4), _rand(3, 1, 5), _rand(2, 1, 6)
        An, Bn, xn, yn = (np.array(M.tolist(), dtype=np.int64) for M in (A, B, x, y))
        dk = (S.dk_stp(An, B), S.dk_stp(A, Bn), S.dk_stp_weighted(An, B), S.dk_stp_weighted(A, Bn))
        st_ = (S.sta(xn, y), S.sta(x, yn), S.sta_sub(xn, y))
        iv = (S.inner_v(xn, y), S.inner_v(x, yn))
        return (all(isinstance(g, sympy.MatrixBase) for g in dk + st_)
                and dk == (naive_dk(A, B),) * 2 + (naive_dk(A, B, True),) * 2
                and st_ == (naive_sta(x, y),) * 2 + (naive_sta(x, y, -1),)
                and all(isinstance(v, sympy.Basic) and v == naive_inner_v(x, y) for v in iv))
    if case == "operand forms":  # nested lists, scipy.sparse, a 1-d array as a column, a 1 x k row as a vector
        import scipy.sparse as sp

        A, B = rng.integers(-3, 4, (2, 3)), rng.integers(-3, 4, (3, 2))
        x, y = rng.integers(-3, 4, 4), rng.integers(-3, 4, 6)
        # the references are (12) written out (naive_stp), never isomat's stp on another form of the operands
        want = np.array(naive_stp(_M(A), _M(B)).tolist(), dtype=np.int64)
        want_col = np.array(naive_stp(_M(B), _M(A[0].reshape(-1, 1))).tolist(), dtype=np.int64)
        return (np.array_equal(S.stp(A.tolist(), B.tolist()), want) and np.array_equal(S.stp(sp.csr_array(A), B), want)
                and np.array_equal(S.dk_stp(A.tolist(), sp.csr_array(B)), A @ B)
                and np.array_equal(S.stp(B, A[0]), want_col)
                and S.sta(sympy.Matrix([list(x)]), sympy.Matrix(y)) == naive_sta(sympy.Matrix(x), sympy.Matrix(y))
                and np.array_equal(S.sta(x.tolist(), y[None, :]), np.repeat(x, 3) + np.repeat(y, 2)))
    if case == "refusals":  # what is no matrix or vector is refused by the argument's name, never read as one
        A, x = np.ones((2, 3)), np.ones(3)
        T, V = TypeError, ValueError
        return all((
            refuses(lambda: S.stp(None, A), T, "A must be a matrix or vector"),
            refuses(lambda: S.dk_stp(None, A), T, "A must be a matrix or vector"),
            refuses(lambda: S.dk_stp_weighted(A, None), T, "B must be a matrix or vector"),
            refuses(lambda: S.stp(5, A), T, "A must be a matrix or vector", "5"),
            refuses(lambda: S.stp(A, "ab"), T, "B must be a matrix or vector", "'ab'"),
            refuses(lambda: S.stp([[1, 2], [3]], A), V, "A must be a rectangular array"),
            refuses(lambda: S.dk_stp([[1, 2], [3]], A), V, "A must be a rectangular array"),
            refuses(lambda: S.dk_stp(A, [[1], [2, 3]]), V, "B must be a rectangular array"),
            refuses(lambda: S.stp(np.ones((2, 2, 2)), A), V, "A must be a non-empty matrix (2-d)", "(2, 2, 2)"),
            refuses(lambda: S.dk_stp(A, np.ones((0, 2))), V, "B must be a non-empty matrix (2-d)", "(0, 2)"),
            refuses(lambda: S.sta(np.ones((2, 3)), x), V, "x must be a non-empty vector", "(2, 3)"),
            refuses(lambda: S.sta(x, np.ones(0)), V, "y must be a non-empty vector", "(0,)"),
            refuses(lambda: S.inner_v(x, np.ones((2, 2))), V, "y must be a non-empty vector"),
            refuses(lambda: S.inner_v(None, x), T, "x must be a matrix or vector"),
            refuses(lambda: S.norm_v(np.ones((2, 2))), V, "x must be a non-empty vector", "(2, 2)"),
            refuses(lambda: S.dist_v(x, None), T, "y must be a matrix or vector"),
            refuses(lambda: S.sta_sub(x, [[1, 2], [3]]), V, "y must be a rectangular array"),
        ))
    raise ValueError(f"case must be one of {STP_INPUT_CASES}, got {case!r}")


STP_INPUT_CASES = ("dk float", "dk exact, generic", "mixed fields", "operand forms", "refusals")


def _stp_inputs():
    """The operand plumbing of stp, dk_stp(_weighted), sta(_sub) and inner_v: fields, forms and refusals."""
    return _stp_inputs_in(float_backend())


@device_cached
def _stp_inputs_in(field: str):
    return exhaustive(lambda case: _stp_inputs_ok(case, field), list(STP_INPUT_CASES), method="exact",
                      describe=f"operands of the STP family: DK-STP (plain and weighted) on float64 {field} arrays vs "
                               f"(13)/(61) with np.kron (rtol 1e-12; float64 out in that field; both orders of "
                               f"evaluation, (m, n, p, q) in {DK_FLOAT_SHAPES}); DK-STP on generic symbolic matrices "
                               "vs (13) exactly; one operand exact and one NumPy (either way round) gives exact "
                               "dk_stp, sta, sta_sub and inner_v equal to (13), (14), (17); nested lists, scipy.sparse, "
                               "a 1-d array (a column) and a 1 x k row (a vector) read as such; None, scalars, "
                               "strings, ragged lists, 3-d, empty and non-vector operands refused naming A, B, x or y")


@claim(
    "cheng2025:def2.1/eq12",
    quote="(3) A ⋉ B = AB when n = p; (4) associativity; (5) distributivity — required of any STP",
    statement=(
        "The MM-STP of eq. (12) satisfies Def. 2.1, exactly, with the naive formula (12) on generic (symbolic) matrices "
        "(so for all values at each size): "
        "A ⋉ B = AB for A m×n, B n×q, all m, n, q in [1, 3]; (A ⋉ B) ⋉ C = A ⋉ (B ⋉ C) for A 1×n, B p×q, C r×1 (the outer sizes do not enter the STP), all "
        "n, p, q, r in [1, 3]; (A + A') ⋉ C = A ⋉ C + A' ⋉ C and Cᵀ ⋉ (A + A') = Cᵀ ⋉ A + Cᵀ ⋉ A' for A, A' m×n, "
        "C p×2, all m, n, p in [1, 3]. (Hypothesis-drawn dims up to 6: beyond/stp-associative, beyond/stp-property-sweep.)"
    ),
    methods=["exact", "exhaustive"],
)
def _def21_eq12():
    def generalizes(c):
        m, n, q = c
        A, B = _grand(m, n, 3 * sum(c)), _grand(n, q, 5 * sum(c))
        return _same(naive_stp(A, B), A * B)

    def assoc(c):
        n, p, q, r = c
        A, B, C = _grand(1, n, sum(c)), _grand(p, q, 2 * sum(c) + 1), _grand(r, 1, 3 * sum(c) + 2)
        return _same(naive_stp(naive_stp(A, B), C), naive_stp(A, naive_stp(B, C)))

    def distrib(c):
        m, n, p = c
        A, A2, C = _grand(m, n, sum(c)), _grand(m, n, sum(c) + 9), _grand(p, 2, sum(c) + 4)
        return (_same(naive_stp(A + A2, C), naive_stp(A, C) + naive_stp(A2, C))
                and _same(naive_stp(C.T, A + A2), naive_stp(C.T, A) + naive_stp(C.T, A2)))

    return decide(all_of(
        _exact_exhaustive(generalizes, _dims(3, 3), "m, n, q in [1, 3]"),
        _exact_exhaustive(assoc, _dims(4, 3), "n, p, q, r in [1, 3]"),
        _exact_exhaustive(distrib, _dims(3, 3), "m, n, p in [1, 3]"),
    ))


@claim(
    "cheng2025:beyond/stp-associative",
    quote="(classical; Cheng, Qi & Zhao 2012, Thm 2.11) (A ⋉ B) ⋉ C = A ⋉ (B ⋉ C) for all dimensions",
    statement=(
        "Associativity of isomat's stp on Hypothesis-drawn dimensions (each in [1, 6], so coprime, "
        "divisible and general pairs occur) and integer entries in [-3, 3], exact (SymPy), 60 examples. Sampled: an "
        "exact check for every dimension needs lcm(lcm(m, n), k) = lcm(m, lcm(n, k)) inside the block structure, "
        "which the prover here does not yet have, so it is infeasible here. A failure would blame the paper only when "
        "eq. (12) computed entry by entry with plain loops (no isomat code) confirms it at the counterexample; else "
        "the claim is an error (isomat's stp at fault)."
    ),
    methods=["property", "exact"],
)
def _stp_assoc():
    dims = st.tuples(*[st.integers(1, 6)] * 6)

    def operands(d):
        m, n, p, q, r, s = d
        return _rand(m, n, sum(d)), _rand(p, q, sum(d) + 1), _rand(r, s, sum(d) + 2)

    def ok(d):
        A, B, C = operands(d)
        S = _stp_mod.stp
        return S(S(A, B), C) == S(A, S(B, C))

    def reference(cx):  # the failure recomputed with loops_stp (eq. 12 entry by entry, no isomat code)
        A, B, C = (_plain(M) for M in operands(tuple(cx["case"])))
        left, right = loops_stp(loops_stp(A, B), C), loops_stp(A, loops_stp(B, C))
        return exhaustive(lambda _: left != right, [tuple(cx["case"])], method="exact",
                          describe="(A ⋉ B) ⋉ C vs A ⋉ (B ⋉ C) at the counterexample, eq. (12) by direct loops (loops_stp)")

    return decide(property_search(ok, dims, describe="A m×n, B p×q, C r×s; all dims in [1, 6]", max_examples=60),
                  confirm=reference)


def _csr_float_equals(M, want: sympy.Matrix) -> bool:
    """M is what a builder gives with its default backend and format (a scipy.sparse CSR array, float64) and its
    entries equal ``want``'s (exact rationals of small denominators, so exact in float64 when they are dyadic,
    else to 1e-15)."""
    import scipy.sparse as sp

    ref = np.array(want.tolist(), dtype=float)
    return (sp.issparse(M) and M.format == "csr" and M.dtype == np.float64 and M.shape == ref.shape
            and np.allclose(M.toarray(), ref, rtol=1e-15, atol=0))


def _plain(M: sympy.Matrix) -> list[list[int]]:
    return [[int(v) for v in row] for row in M.tolist()]


def loops_stp(A: list[list[int]], B: list[list[int]]) -> list[list[int]]:
    """Eq. (12) entry by entry with Python loops over lists (an independent reference: no isomat, NumPy or SymPy code):
    (A ⊗ I_a)[u, v] = A[u div a][v div a]·[u mod a = v mod a] with a = t/n, likewise B with b = t/p, t = lcm(n, p)."""
    m, n, p, q = len(A), len(A[0]), len(B), len(B[0])
    t = n * p // math.gcd(n, p)
    a, b = t // n, t // p
    out = [[0] * (q * b) for _ in range(m * a)]
    for u in range(m * a):
        for v in range(q * b):
            total = 0
            for w in range(t):
                if u % a == w % a and w % b == v % b:
                    total += A[u // a][w // a] * B[w // b][v // b]
            out[u][v] = total
    return out


@claim(
    "cheng2025:beyond/stp-transpose-inverse",
    quote="(classical) (A ⋉ B)ᵀ = Bᵀ ⋉ Aᵀ;  (A ⋉ B)⁻¹ = B⁻¹ ⋉ A⁻¹ for invertible A, B",
    statement=(
        "Exact on generic (symbolic) matrices, so for all values at each size, using isomat's stp: the transpose rule "
        "and distributivity over + for every (m, n, p, q) in [1, 3]^4 (Hypothesis-drawn dims up to 6 in "
        "beyond/stp-property-sweep); the inverse rule for every pair of square sizes n, p in [1, 3] as the polynomial "
        "identity (A ⋉ B)(adj B ⋉ adj A) = det A det B · I (by bilinearity of ⋉ this is (A ⋉ B)(B⁻¹ ⋉ A⁻¹) = I for every "
        "invertible A, B)."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_transpose_inverse():
    S = _stp_mod.stp

    def transpose(c):
        m, n, p, q = c
        A, B, A2 = _grand(m, n, 11), _grand(p, q, 12), _grand(m, n, 13)
        return _same(S(A, B).T, S(B.T, A.T)) and _same(S(A + A2, B), S(A, B) + S(A2, B))

    def inverse(c):
        n, p = c
        A, B = _grand(n, n, 20), _grand(p, p, 21)
        P = S(A, B)
        return _same(P * S(B.adjugate(), A.adjugate()), A.det() * B.det() * sympy.eye(P.rows))

    return decide(all_of(
        _exact_exhaustive(transpose, _dims(4, 3), "m, n, p, q in [1, 3] (dims up to 6 in beyond/stp-property-sweep)"),
        _exact_exhaustive(inverse, _dims(2, 3), "generic square A n×n, B p×p, n, p in [1, 3]"),
    ))


@claim(
    "cheng2025:beyond/stp-vector-commute",
    quote="(classical pseudo-commutativity) X ⋉ A = (I_t ⊗ A) ⋉ X for a column X ∈ R^t; A ⋉ Z = Z ⋉ (I_t ⊗ A) for a row Z",
    statement=(
        "Exact, isomat's stp, for every A of size m×n with m, n ∈ [1, 4] and t ∈ [1, 4], generic (symbolic) entries "
        "of A, X, Z (so for all values at each size)."
    ),
    methods=["exact", "exhaustive"],
)
def _stp_commute():
    S = _stp_mod.stp

    def ok(c):
        m, n, t = c
        A, X, Z = _grand(m, n, sum(c)), _grand(t, 1, sum(c) + 3), _grand(1, t, sum(c) + 5)
        It = _kron(sympy.eye(t), A)
        return S(X, A) == S(It, X) and S(A, Z) == S(Z, It)

    return decide(_exact_exhaustive(ok, _dims(3, 4), "m, n, t in [1, 4]"))


def naive_swap(m: int, n: int) -> sympy.Matrix:
    """W[m,n] from its definition: column of δ_m^i ⊗ δ_n^j is δ_n^j ⊗ δ_m^i."""
    cols = []
    for i in range(m):
        for j in range(n):
            cols.append(_kron(sympy.eye(n)[:, j], sympy.eye(m)[:, i]))
    return sympy.Matrix.hstack(*cols)


@claim(
    "cheng2025:beyond/swap-matrix",
    quote="(classical) W[m,n](x ⋉ y) = y ⋉ x;  W[m,n]ᵀ = W[m,n]⁻¹ = W[n,m];  W[m,p](A ⊗ B)W[q,n] = B ⊗ A",
    statement=(
        "Proved for all m, n, p, q >= 1 on the entry rule of isomat's swap_matrix (column k = i n + j has its 1 in "
        "row σ(k) = j m + i; the rule drives the builder, so the record says 'derived from the proved rule'; the builder is checked inside the claim from its CSR arrays against the definition (row j m + i for column i n + j) and np.kron for all m, n <= 12, at those of 24 seeded log-uniform random m, n from 13 to 10^4 with m n <= 10^5 and at listed sizes up to 10^4 x 1, every format and the exact field at a listed few -- a disagreement is an error): σ is a permutation of [0, mn) with inverse "
        "σ_{n,m}, W[m,n]ᵀ = W[n,m] = W[m,n]⁻¹; W[m,n](x ⊗ y) = y ⊗ x for all x, y (for columns x ⋉ y = x ⊗ y, "
        "eq. 12 with t = n); and W[m,p](A⊗B)W[q,n] = B⊗A for all A m×n, B p×q (a permutation matrix product "
        "permutes the indices; A, B, x, y are uninterpreted). Cross-check (binding): exact, swap_matrix vs the column "
        "definition, orthogonality and W(x ⋉ y) = y ⋉ x with isomat's stp for m, n <= 5, the Kronecker swap for "
        "m, n, p, q in [1, 3]."
    ),
    methods=["exact", "exhaustive"],
)
def _swap():
    W = lambda m, n: sympy.Matrix(_stp_mod.swap_matrix(m, n, backend="sympy"))  # noqa: E731

    def basic(c):
        m, n = c
        x, y = _rand(m, 1, sum(c)), _rand(n, 1, sum(c) + 1)
        Wmn = W(m, n)
        return (Wmn == naive_swap(m, n) and Wmn.T * Wmn == sympy.eye(m * n) and Wmn.T == W(n, m)
                and Wmn * _stp_mod.stp(x, y) == _stp_mod.stp(y, x))

    def kron_swap(c):
        m, n, p, q = c
        A, B = _rand(m, n, sum(c)), _rand(p, q, sum(c) + 2)
        return W(m, p) * _kron(A, B) * W(q, n) == _kron(B, A)

    import z3

    m, n, p, q, k, r, c = _pv.ints("m n p q k r c")
    R = z3.RealSort()
    x, y = z3.Function("x", z3.IntSort(), R), z3.Function("y", z3.IntSort(), R)
    sw, fd, fm = _stp_mod.swap_row, _pv.fdiv, _pv.fmod
    perm = _proof_trial(
        _pv.both(0 <= sw(k, m, n), sw(k, m, n) < m * n, sw(sw(k, m, n), n, m) == k,
                 y(fd(sw(k, m, n), m)) * x(fm(sw(k, m, n), m)) == x(fd(k, n)) * y(fm(k, n))),
        for_all="for all m, n >= 1, 0 <= k < mn, and all x ∈ R^m, y ∈ R^n (uninterpreted)",
        assuming=[m >= 1, n >= 1, 0 <= k, k < m * n], sizes=[m, n],
        describe="σ_{m,n}(k) = swap_row(k, m, n) maps [0, mn) into itself and σ_{n,m}∘σ_{m,n} = id (for all m, n, so "
                 "also σ_{m,n}∘σ_{n,m} = id): W[m,n] is a permutation matrix with W[m,n]⁻¹ = W[m,n]ᵀ = W[n,m]; "
                 "(x ⊗ y)[k] = (y ⊗ x)[σ(k)], i.e. W[m,n](x ⊗ y) = y ⊗ x")
    kron = _proof_trial(
        _pv.both(fd(sw(r, p, m), p) == fm(r, m), fm(sw(r, p, m), p) == fd(r, m),
                 fd(sw(c, q, n), q) == fm(c, n), fm(sw(c, q, n), q) == fd(c, n)),
        for_all="for all m, n, p, q >= 1, 0 <= r < pm, 0 <= c < qn",
        assuming=[m >= 1, n >= 1, p >= 1, q >= 1, 0 <= r, r < p * m, 0 <= c, c < q * n], sizes=[m, n, p, q],
        describe="(W[m,p] (A⊗B) W[q,n])[r, c] = (A⊗B)[σ_{m,p}⁻¹(r), σ_{q,n}(c)] = (A⊗B)[σ_{p,m}(r), σ_{q,n}(c)] "
                 "= A[σ_{p,m}(r) div p, σ_{q,n}(c) div q]·B[σ_{p,m}(r) mod p, σ_{q,n}(c) mod q]; the proved digits "
                 "(σ_{p,m}(r) div p = r mod m, σ_{p,m}(r) mod p = r div m, likewise for c) turn it into "
                 "A[r mod m, c mod n]·B[r div m, c div n] = (B⊗A)[r, c] for every A, B")
    cross = all_of(
        _exact_exhaustive(basic, _dims(2, 5), "m, n in [1, 5]"),
        _exact_exhaustive(kron_swap, _dims(4, 3), "m, n, p, q in [1, 3]"),
    )
    return decide(_textbook(all_of(perm, kron), "kron-entry", "kron-column", "permutation-matrix-action", "matmul-entry"),
                  exhaustive_crosscheck=cross, swap_matrix_binds_rule=_swap_binds())


@claim(
    "cheng2025:beyond/power-reducing-dummy",
    quote=(
        "(classical) x ⋉ x = M_{r,k} x for x ∈ Δ_k; D_f x y = x, D_r x y = y (front-/rear-maintaining); "
        "S_i x_1 ⋉ ... ⋉ x_d = x_i (retriever)"
    ),
    statement=(
        "Proved for all sizes on the entry rules: power_reducing_row (column i has its 1 in row ik + i, which drives "
        "power_reducing_matrix) puts M_{r,k} δ_k^i at the index of δ_k^i ⊗ δ_k^i, for all k; retriever_entry "
        "((c div after) mod size = r) at the index c = (b·size + s)·after + a of δ^{j_1} ⋉ ... ⋉ δ^{j_d} is [s = r], "
        "so S_i, D_f = S_1^{[p,q]}, D_r = S_2^{[p,q]} retrieve their factor, for all sizes. Binding: retriever, "
        "front_maintaining, rear_maintaining (built as Kronecker products) equal retriever_entry for all dims in "
        "[1, 4]^L, L <= 3, and 3 seeded random dims up to 12; exhaustive over all logical vectors: k ∈ [2, 5] for "
        "M_{r,k}; p, q ∈ [1, 4] for D_f, D_r; all dims tuples of length ≤ 3 with entries in [2, 3] and every i for "
        "the retriever; exact."
    ),
    methods=["exact", "exhaustive"],
)
def _power_dummy():
    S = _stp_mod.stp
    d = lambda k, i: sympy.eye(k)[:, i]  # noqa: E731

    def power(k):
        Mr = sympy.Matrix(_stp_mod.power_reducing_matrix(k, backend="sympy"))
        return all(S(d(k, i), d(k, i)) == Mr * d(k, i) for i in range(k))

    def dummy(c):
        p, q = c
        Df = sympy.Matrix(_stp_mod.front_maintaining(p, q, backend="sympy"))
        Dr = sympy.Matrix(_stp_mod.rear_maintaining(p, q, backend="sympy"))
        return all(Df * S(d(p, i), d(q, j)) == d(p, i) and Dr * S(d(p, i), d(q, j)) == d(q, j)
                   for i in range(p) for j in range(q))

    def retr(dims):
        for i in range(1, len(dims) + 1):
            R = sympy.Matrix(_stp_mod.retriever(list(dims), i, backend="sympy"))
            for idx in itertools.product(*[range(k) for k in dims]):
                x = _stp_mod.stp_chain(*[d(k, j) for k, j in zip(dims, idx)]) if len(dims) > 1 else d(dims[0], idx[0])
                if R * x != d(dims[i - 1], idx[i - 1]):
                    return False
        return True

    def retr_binds(dims):  # the builder (kron_operator of 1ᵀ, I, 1ᵀ) against the proved entry rule retriever_entry
        fb = float_backend()  # isomat's operators in the float field of the run, compared on the host
        dense = lambda M: to_numpy(M.toarray())  # noqa: E731
        for i in range(1, len(dims) + 1):
            R = dense(_stp_mod.retriever(list(dims), i, backend=fb, format="coo"))
            size, after = dims[i - 1], math.prod(dims[i:])
            rule = _stp_mod.retriever_entry(np.arange(size)[:, None], np.arange(math.prod(dims))[None, :], size, after)
            if R.shape != rule.shape or not np.array_equal(R, rule.astype(R.dtype)):
                return False
        return (np.array_equal(dense(_stp_mod.front_maintaining(dims[0], dims[-1], backend=fb, format="coo")),
                               dense(_stp_mod.retriever([dims[0], dims[-1]], 1, backend=fb, format="coo")))
                and np.array_equal(dense(_stp_mod.rear_maintaining(dims[0], dims[-1], backend=fb, format="coo")),
                                   dense(_stp_mod.retriever([dims[0], dims[-1]], 2, backend=fb, format="coo"))))

    retr_cases = [c for L in (1, 2, 3) for c in itertools.product((2, 3), repeat=L)]
    cross = all_of(
        _exact_exhaustive(power, range(2, 6), "k in [2, 5]"),
        _exact_exhaustive(dummy, _dims(2, 4), "p, q in [1, 4]"),
        _exact_exhaustive(retr, retr_cases, "dims in {2, 3}^L, L <= 3"),
    )
    binds = _builder_binds(retr_binds, [c for L in (1, 2, 3) for c in itertools.product(range(1, 5), repeat=L)],
                           "retriever / front_maintaining / rear_maintaining vs retriever_entry, dims in [1, 4]^L, L <= 3",
                           [tuple(c) for c in _random_sizes(31, 3, 3, 2, 12)], "3 seeded random dims in [2, 12]^3")
    return decide(_textbook(_power_dummy_proof(), "kron-entry", "kron-column"),
                  exhaustive_crosscheck=cross, retriever_binds_rule=binds)


def _power_dummy_proof():
    """M_{r,k} δ_k^i = δ_k^i ⊗ δ_k^i and S_i(δ^{j_1} ⋉ ... ⋉ δ^{j_d}) = δ^{j_i} on the entry rules, for all sizes."""
    k, i, r, c, b, s_, a, size, after = _pv.ints("k i r c b s a size after")
    fd, fm = _pv.fdiv, _pv.fmod
    power = _proof_trial(
        (r == _stp_mod.power_reducing_row(i, k)) == _pv.both(fd(r, k) == i, fm(r, k) == i),
        for_all="for all k >= 1, 0 <= i < k, every row 0 <= r < k²",
        assuming=[k >= 1, 0 <= i, i < k, 0 <= r, r < k * k], sizes=[k],
        lemmas=[_pv.DIV_MOD_RECOMPOSE.at(r, k), _pv.FLATTEN_DIV_MOD.at(i, i, k)],
        describe="(M_{r,k} δ_k^i)[r] = [r = power_reducing_row(i, k) = ik + i] = [r div k = i][r mod k = i] = "
                 "(δ_k^i ⊗ δ_k^i)[r] = (δ_k^i ⋉ δ_k^i)[r]")
    flat = (b * size + s_) * after + a  # the index of δ^{j_1} ⋉ ... ⋉ δ^{j_d}: digits b (before), s (factor i), a (after)
    retr = _proof_trial(
        _stp_mod.retriever_entry(r, flat, size, after) == (s_ == r),
        for_all="for all size, after >= 1 (n_i and n_{i+1}...n_d; D_f: size = p, after = q; D_r: size = q, after = 1), "
                "every digit b >= 0 (before), 0 <= s < size, 0 <= a < after and every row r",
        assuming=[size >= 1, after >= 1, b >= 0, 0 <= s_, s_ < size, 0 <= a, a < after], sizes=[size, after],
        lemmas=[_pv.FLATTEN_DIV_MOD.at(b * size + s_, a, after), _pv.FLATTEN_DIV_MOD.at(b, s_, size)],
        describe="S_i[r, c] = [(c div after) mod size = r] at c = (b·size + s)·after + a (the one 1 of "
                 "δ^{j_1} ⋉ ... ⋉ δ^{j_d}, s = j_i) is [s = r]: S_i x_1 ⋉ ... ⋉ x_d = x_i, D_f x y = x, D_r x y = y")
    return all_of(power, retr)


@claim(
    "cheng2025:beyond/stp-property-sweep",
    quote=(
        "(classical; Cheng, Qi & Zhao 2012) for all dimensions: (A ⋉ B)ᵀ = Bᵀ ⋉ Aᵀ, (A + A') ⋉ B = A ⋉ B + A' ⋉ B, "
        "B ⋉ (A + A') = B ⋉ A + B ⋉ A'; X ⋉ A = (I_t ⊗ A) ⋉ X; the same laws for the DK-STP (13), also associative"
    ),
    statement=(
        "Hypothesis-drawn dimensions, each in [1, 6] (so coprime, divisible and general n, p all occur; shrinking "
        "would give a minimal failure), integer entries in [-3, 3], exact (SymPy), 60 examples: for isomat's stp: "
        "transpose rule and both distributive laws; for isomat's dk_stp: equality with the naive formula (13), "
        "associativity, both distributive laws, and the transpose rule (A ⋉_DK B)ᵀ = Bᵀ ⋉_DK Aᵀ; pseudo-commutativity "
        "X ⋉ A = (I_r ⊗ A) ⋉ X, A ⋉ Z = Z ⋉ (I_r ⊗ A) for a column X ∈ R^r and a row Z (isomat's stp). Sampled: "
        "an exact check for every dimension needs sums over lcm-sized blocks that the prover here does not yet "
        "handle, so it is infeasible here."
    ),
    methods=["property", "exact"],
)
def _property_sweep():
    S, D = _stp_mod.stp, _stp_mod.dk_stp

    def ok(d):
        m, n, p, q, r, u = d
        A, A2 = _rand(m, n, sum(d) + 40), _rand(m, n, sum(d) + 41)
        B, B2 = _rand(p, q, sum(d) + 42), _rand(p, q, sum(d) + 43)
        C = _rand(r, u, sum(d) + 44)
        stp_ok = (S(A, B).T == S(B.T, A.T) and S(A + A2, B) == S(A, B) + S(A2, B)
                  and S(A, B + B2) == S(A, B) + S(A, B2))
        dk_ok = (D(A, B) == naive_dk(A, B) and D(D(A, B), C) == D(A, D(B, C))
                 and D(A + A2, B) == D(A, B) + D(A2, B) and D(A, B + B2) == D(A, B) + D(A, B2)
                 and D(A, B).T == D(B.T, A.T))
        X, Z = _rand(r, 1, sum(d) + 45), _rand(1, r, sum(d) + 46)
        It = _kron(sympy.eye(r), A)
        commute_ok = S(X, A) == S(It, X) and S(A, Z) == S(Z, It)
        return stp_ok and dk_ok and commute_ok

    return decide(property_search(ok, st.tuples(*[st.integers(1, 6)] * 6),
                                  describe="A m×n, B p×q, C r×u; all dims in [1, 6]; entries in [-3, 3]", max_examples=60))


@claim(
    "cheng2025:beyond/logic-structure-matrices",
    quote=(
        "(classical) σ(p, q) = M_σ ⋉ p ⋉ q with M_¬ = δ2[2 1], M_∧ = δ2[1 2 2 2], M_∨ = δ2[1 1 1 2], "
        "M_→ = δ2[1 2 1 1], M_↔ = δ2[1 2 2 1]; and M_σ2 ⋉ M_σ1-type compositions give the structure matrix "
        "of a compound expression"
    ),
    statement=(
        "For k ∈ [2, 4] and every connective (¬, ∧, ∨, →, ↔, xor, nand, nor): M_σ ⋉ δ_k^i ⋉ δ_k^j equals "
        "δ_k of the truth value σ((k−i)/(k−1), (k−j)/(k−1)) computed directly (min/max/1−p), for all i, j; "
        "the Boolean δ-forms equal the printed ones; and for the compound p → (q ∧ ¬r) the structure matrix "
        "from the expression equals M_→ ⋉ p ⋉ M_∧ ⋉ q ⋉ M_¬ ⋉ r evaluated with the classical rule "
        "(move logical vectors right with swap / dummy) on every assignment."
    ),
    methods=["exact", "exhaustive"],
)
def _logic_claim():
    S = _stp_mod.stp
    direct = {
        "conjunction": lambda p, q: min(p, q), "disjunction": lambda p, q: max(p, q),
        "implication": lambda p, q: max(1 - p, q),
        "equivalence": lambda p, q: min(max(1 - p, q), max(1 - q, p)),
        "xor": lambda p, q: 1 - min(max(1 - p, q), max(1 - q, p)),
        "nand": lambda p, q: 1 - min(p, q), "nor": lambda p, q: 1 - max(p, q),
    }

    def ok(k):
        val = lambda i: sympy.Rational(k - 1 - i, k - 1)  # noqa: E731
        vec = lambda v: sympy.eye(k)[:, int(k - 1 - v * (k - 1))]  # noqa: E731
        N = sympy.Matrix(_logic.negation(k, backend="sympy"))
        if any(N * sympy.eye(k)[:, i] != vec(1 - val(i)) for i in range(k)):
            return False
        for name, f in direct.items():
            M = sympy.Matrix(getattr(_logic, name)(k, backend="sympy"))
            for i in range(k):
                for j in range(k):
                    if S(M, S(sympy.eye(k)[:, i], sympy.eye(k)[:, j])) != vec(f(val(i), val(j))):
                        return False
        return True

    printed = {"negation": (2, 1), "conjunction": (1, 2, 2, 2), "disjunction": (1, 1, 1, 2),
               "implication": (1, 2, 1, 1), "equivalence": (1, 2, 2, 1)}
    forms = exhaustive(lambda name: getattr(_logic, name)(form="delta") == printed[name], list(printed),
                       describe="Boolean δ-forms vs the classical printed ones", method="exact")
    p, q, r = sympy.symbols("p q r")
    Mf = sympy.Matrix(_logic.structure_matrix(sympy.Implies(p, q & ~r), [p, q, r], backend="sympy"))
    Mi, Mc, Mn = (sympy.Matrix(f(backend="sympy")) for f in (_logic.implication, _logic.conjunction, _logic.negation))

    def compound(a):
        P, Qv, R = (sympy.eye(2)[:, i] for i in a)
        return Mf * S(S(P, Qv), R) == S(Mi, S(P, S(Mc, S(Qv, S(Mn, R)))))

    comp = _exact_exhaustive(compound, list(itertools.product(range(2), repeat=3)), "all 8 assignments of p, q, r")
    return decide(all_of(_exact_exhaustive(ok, range(2, 5), "k in [2, 4]"), forms, comp))


@claim(
    "cheng2025:def2.1/eq13",
    quote=("Definition 2.5: The following are two commonly used STP of matrices. ... (ii) Let A ∈ M_{m×n}, B ∈ M_{p×q}, "
           "and t = lcm(n, p). The dimension-keeping (DK-) STP of A and B is defined by [7] "
           "A ⋈ B := (A ⊗ 1ᵀ_{t/n})(B ⊗ 1_{t/p}).   (13)"),
    statement=(
        "Location: Def. 2.5 (ii), eq. (13), which calls the DK-STP an STP, checked against Def. 2.1's axioms (3)-(5) "
        "(the id names Def. 2.1 and eq. 13): the DK-STP satisfies Def. 2.1, proved for all sizes: (13) = A Ψ_{n×p} B with Ψ = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) "
        "(A ⊗ 1ᵀ_{t/n} = A (I_n ⊗ 1ᵀ_{t/n}), B ⊗ 1_{t/p} = (I_p ⊗ 1_{t/p}) B entrywise, uninterpreted A, B), and "
        "Ψ_{n×n} = I_n, so it equals AB when n = p; (A ⋉ B) ⋉ C = A Ψ B Ψ' C = A ⋉ (B ⋉ C) and distributivity "
        "follow from associativity and bilinearity of the matrix product. Cross-check: exact, naive (13), random "
        "integer matrices, dimensions in [1, 3], and isomat's dk_stp (prefix-sum projection, no t-sized factor) "
        "equals (13) for every (m, n, p, q) in [1, 3]^4; on generic symbolic matrices and on float64 arrays of the "
        "run's field (rtol 1e-12, float64 out) in both orders of evaluation; with one operand exact and one NumPy, "
        "exactly; refusing what is no matrix by the argument's name."
    ),
    methods=["exact", "exhaustive"],
)
def _def21_eq13():
    def generalizes(c):
        m, n, q = c
        A, B = _rand(m, n, sum(c)), _rand(n, q, sum(c) + 1)
        return naive_dk(A, B) == A * B

    def assoc(c):
        n, p, q, r = c
        A, B, C = _rand(2, n, sum(c)), _rand(p, q, sum(c) + 1), _rand(r, 2, sum(c) + 2)
        return naive_dk(naive_dk(A, B), C) == naive_dk(A, naive_dk(B, C))

    def distrib(c):
        m, n, p = c
        A, A2, C = _rand(m, n, sum(c)), _rand(m, n, sum(c) + 3), _rand(p, 2, sum(c) + 4)
        return (naive_dk(A + A2, C) == naive_dk(A, C) + naive_dk(A2, C)
                and naive_dk(C.T, A + A2) == naive_dk(C.T, A) + naive_dk(C.T, A2))

    def impl(c):
        m, n, p, q = c
        A, B = _rand(m, n, sum(c) + 5), _rand(p, q, sum(c) + 6)
        return _stp_mod.dk_stp(A, B) == naive_dk(A, B) and _stp_mod.dk_stp_weighted(A, B) == naive_dk(A, B, True)

    cross = all_of(
        _exact_exhaustive(generalizes, _dims(3, 3), "m, n, q in [1, 3]"),
        _exact_exhaustive(assoc, _dims(4, 3), "n, p, q, r in [1, 3]"),
        _exact_exhaustive(distrib, _dims(3, 3), "m, n, p in [1, 3]"),
        _exact_exhaustive(impl, _dims(4, 3), "dk_stp vs (13), m, n, p, q in [1, 3]"),
    )
    C, count = _pi_count()
    n, l, k = _pv.ints("n l k")
    square = _proof_trial(
        C(l, k, n, 1, 1) == _pv.ite(l == k, 1, 0), for_all="for all n >= 1, 0 <= l, k < n",
        assuming=[n >= 1, 0 <= l, l < n, 0 <= k, k < n], lemmas=[count], sizes=[n],
        describe="n = p: t = n and Ψ_{n×n} = (I_n ⊗ 1ᵀ_1)(I_n ⊗ 1_1) = I_n (block count), so A ⋉_DK B = AB")
    return decide(_textbook(all_of(_kron_ones_proof(), square), "matmul-associative", "matmul-bilinear"),
                  exhaustive_crosscheck=cross, operands=_stp_inputs())


@claim(
    "cheng2025:def2.3/sta",
    quote="x ± y := (x ⊗ 1_{t/m}) ± (y ⊗ 1_{t/n})   (14); STA must be commutative (8) and associative (9)",
    statement=(
        "Proved for all sizes on the entry rule of (14), (x ⊕ y)[k] = x[k div (t/m)] + y[k div (t/n)] (x ⊗ 1_a repeats "
        "each entry a times; x, y, z uninterpreted): x ⊕ y = y ⊕ x, and (x ⊕ y) ⊕ z = x ⊕ (y ⊕ z) entrywise for all "
        "m, n, p (both sides have length lcm(m, n, p); NESTED_DIV, (k div c) div a = k div ac). Binding cross-check: "
        "isomat's sta / sta_sub equal (14), commutativity and associativity with isomat's sta — exact, generic "
        "(symbolic) vectors, all m, n, k in [1, 5]; with one operand exact and one NumPy, exactly; a 1 x k row read "
        "as a vector; a matrix, an empty vector, None or a ragged list refused naming x or y."
    ),
    methods=["exact", "exhaustive"],
)
def _def23():
    def ok(c):
        m, n, k = c
        x, y, z = _grand(m, 1, sum(c)), _grand(n, 1, sum(c) + 1), _grand(k, 1, sum(c) + 2)
        A = _stp_mod.sta
        return (A(x, y) == naive_sta(x, y) and _stp_mod.sta_sub(x, y) == naive_sta(x, y, -1)
                and A(x, y) == A(y, x) and A(A(x, y), z) == A(x, A(y, z)))

    return decide(_textbook(_sta_proof(), "kron-entry", "lcm-associative"),
                  exhaustive_crosscheck=_exact_exhaustive(ok, _dims(3, 5), "m, n, k in [1, 5]"), operands=_stp_inputs())


def _sta_proof():
    """(14) entrywise, for all sizes: (x ⊕ y)[k] = x[k div a] + y[k div b] (t = ma = nb); commutative, and
    associative through NESTED_DIV ((k div c) div a = k div ac) with the common length T of both sides."""
    import z3

    R, I = z3.RealSort(), z3.IntSort()
    X, Y, Z = (z3.Function(f"{v}_entry", I, R) for v in "xyz")
    m, n, p_, a, b, c, d, f, g, h, k = _pv.ints("m n p a b c d f g h k")
    fd, ND = _pv.fdiv, _pv.NESTED_DIV
    comm = _proof_trial(
        X(fd(k, a)) + Y(fd(k, b)) == Y(fd(k, b)) + X(fd(k, a)),
        for_all="for all m, n >= 1, t = ma = nb, 0 <= k < t, all x ∈ R^m, y ∈ R^n (uninterpreted)",
        assuming=[m >= 1, n >= 1, a >= 1, b >= 1, m * a == n * b, 0 <= k, k < m * a], sizes=[m, n, a, b],
        describe="(x ⊕ y)[k] = x[k div a] + y[k div b] = (y ⊕ x)[k]")
    assoc = _proof_trial(
        X(fd(fd(k, c), a)) + Y(fd(fd(k, c), b)) + Z(fd(k, d)) == X(fd(k, a * c)) + Y(fd(fd(k, f), g)) + Z(fd(fd(k, f), h)),
        for_all="for all m, n, p >= 1; left: t1 = ma = nb, T = t1·c = pd; right: t2 = ng = ph and T = t2·f (the same "
                "length T = lcm(m, n, p), so T/m = ac, and n·gf = T = n·bc, p·hf = T = p·d give gf = bc, hf = d); "
                "0 <= k < T; all x ∈ R^m, y ∈ R^n, z ∈ R^p (uninterpreted)",
        assuming=[m >= 1, n >= 1, p_ >= 1, a >= 1, b >= 1, c >= 1, d >= 1, f >= 1, g >= 1, h >= 1,
                  m * a == n * b, m * a * c == p_ * d, n * g == p_ * h, g * f == b * c, h * f == d, 0 <= k, k < m * a * c],
        sizes=[m, n, p_], lemmas=[ND.at(k, c, a), ND.at(k, c, b), ND.at(k, f, g), ND.at(k, f, h)],
        describe="((x ⊕ y) ⊕ z)[k] = x[(k div c) div a] + y[(k div c) div b] + z[k div d] = x[k div (T/m)] + "
                 "y[(k div f) div g] + z[(k div f) div h] = (x ⊕ (y ⊕ z))[k] (NESTED_DIV)")
    return all_of(comm, assoc)


def _gen(rows: int, cols: int, name: str) -> sympy.Matrix:
    """Generic (symbolic) matrix: a failure found with it is a failure for almost all values."""
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i + 1}_{j + 1}"))


@claim(
    "cheng2025:beyond/dk-stp-mv",
    quote=(
        "(10) A ⋉ (B ⋉ x) = (A ⋉ B) ⋉ x;  (11) A ⋉ (x ⊕ y) = (A ⋉ x) ⊕ (A ⋉ y) — required of an MV-STP; "
        "the paper gives no concrete MV-STP, the DK-STP (13) with a vector is the one it uses later"
    ),
    statement=(
        "Not asserted in so many words: whether the DK-STP (13), applied to a column vector, with the STA (14) is an "
        "MV-STP of Def. 2.4. (10) is checked symbolically (generic A m×n, B p×q, x ∈ R^r) for all m, n, p, q, r in [1, 2]; "
        "(11) symbolically (generic A m×n, x ∈ R^{p1}, y ∈ R^{p2}) for all (m, n, p1, p2) in [1, 3]^4, smallest first, "
        "so the first failing size is minimal for generic values; the counterexample is that size with all entries 1. "
        "The correction (projection-based product) is checked the same way."
    ),
    methods=["symbolic", "exhaustive"],
    hypotheses=_SIZES,
)
def _def24():
    def semigroup(c, prod):
        m, n, p, q, r = c
        A, B, x = _gen(m, n, "a"), _gen(p, q, "b"), _gen(r, 1, "x")
        return (prod(A, prod(B, x)) - prod(prod(A, B), x)).expand().is_zero_matrix

    def distributive(c, prod):
        m, n, p1, p2 = c
        A, x, y = _gen(m, n, "a"), _gen(p1, 1, "x"), _gen(p2, 1, "y")
        return (prod(A, naive_sta(x, y)) - naive_sta(prod(A, x), prod(A, y))).expand().is_zero_matrix

    def witness(c):
        m, n, p1, p2 = c
        A, x, y = sympy.ones(m, n), sympy.ones(p1, 1), sympy.ones(p2, 1)
        lhs, rhs = naive_dk(A, naive_sta(x, y)), naive_sta(naive_dk(A, x), naive_dk(A, y))
        if lhs == rhs:
            raise AssertionError("the all-ones instance does not separate the two sides")
        return {"A": A, "x": x, "y": y, "A⋉(x⊕y)": lhs, "(A⋉x)⊕(A⋉y)": rhs}

    def pp(M, v):  # projection-based product A ⋉_Π B := A Π^p_n B
        return M * naive_projection(v.rows, M.cols) * v

    def sym_exhaustive(pred, cases, describe, witness=None):
        tr = exhaustive(pred, cases, describe=describe, witness=witness, method="symbolic")
        return tr

    printed = all_of(
        sym_exhaustive(lambda c: semigroup(c, naive_dk), _dims(5, 2), "(10): m, n, p, q, r in [1, 2], generic entries"),
        sym_exhaustive(lambda c: distributive(c, naive_dk), _dims(4, 3), "(11): m, n, p1, p2 in [1, 3], generic entries",
                       witness),
    )
    corrected = all_of(
        sym_exhaustive(lambda c: semigroup(c, pp), _dims(5, 2), "(10) for A Π^p_n B: m, n, p, q, r in [1, 2]"),
        sym_exhaustive(lambda c: distributive(c, pp), _dims(4, 3), "(11) for A Π^p_n x: m, n, p1, p2 in [1, 3]"),
    )
    return decide(printed, correction=(
        "the DK-STP satisfies (10) but not (11); the projection-based product A ⋉_Π B := A Π^p_n B = (n/t)·(A ⋉_DK B) "
        "satisfies both (with ⊕ the STA): A Π^t_n (x ⊗ 1 + y ⊗ 1) = A Π^{p1}_n x + A Π^{p2}_n y",
        corrected))


@claim(
    "cheng2025:prop2.7",
    quote="Ψ_{n×p} := (I ⊗ 1ᵀ_{t/n})(I_m ⊗ 1_{t/p}) ∈ M_{n×m}   (15),   M ⋉ N = M Ψ_{n×p} N   (16)",
    statement=(
        "Printed (15) read with I = I_n: the product is formed when the inner sizes agree and must be an n×m "
        "matrix with (16) for the DK-STP (13); checked exactly for all (m, n, p, q) in [1, 3]^4 by size. "
        "Correction: Ψ_{n×p} = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) ∈ M_{n×p} (n×t times t×p), and M Ψ_{n×p} N = (13), "
        "proved for all sizes: M ⊗ 1ᵀ_{t/n} = M (I_n ⊗ 1ᵀ_{t/n}) and N ⊗ 1_{t/p} = (I_p ⊗ 1_{t/p}) N entrywise "
        "(delta-sum lemma, uninterpreted M, N, as in def2.1/eq13), then associativity of the matrix product. "
        "Exact cross-check on generic matrices against (13) and against isomat's bridge, all sizes in [1, 3]^4."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=_SIZES,
)
def _prop27():
    def printed_ok(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        L = _kron(sympy.eye(n), _ones(t // n).T)
        R = _kron(sympy.eye(m), _ones(t // p))
        if L.cols != R.rows:
            return False
        Psi = L * R
        if Psi.shape != (n, m):
            return False
        A, B = _grand(m, n, 1), _grand(p, q, 2)
        return Psi.shape[1] == B.rows and _same(A * Psi * B, naive_dk(A, B))

    def witness(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        return {"(I_n ⊗ 1ᵀ_{t/n}) size": [n, n * (t // n)], "(I_m ⊗ 1_{t/p}) size": [m * (t // p), m]}

    printed = exhaustive(printed_ok, _dims(4, 3), describe="m, n, p, q in [1, 3]", witness=witness, method="exact")

    def corr(c):
        m, n, p, q = c
        t = math.lcm(n, p)
        Psi = _kron(sympy.eye(n), _ones(t // n).T) * _kron(sympy.eye(p), _ones(t // p))
        A, B = _grand(m, n, 1), _grand(p, q, 2)
        return (Psi.shape == (n, p) and _same(A * Psi * B, naive_dk(A, B))
                and sympy.Matrix(_stp_mod.bridge(n, p, backend="sympy")) == Psi
                and _csr_float_equals(_stp_mod.bridge(n, p), Psi))  # the defaults: NumPy field, CSR

    return decide(printed, correction=(
        "Ψ_{n×p} = (I_n ⊗ 1ᵀ_{t/n})(I_p ⊗ 1_{t/p}) ∈ M_{n×p} (= (t/n)·Π^p_n), and then M ⋉_DK N = M Ψ_{n×p} N",
        _textbook(_kron_ones_proof(), "matmul-associative")),
        corrected_exhaustive_crosscheck=(_exact_exhaustive(corr, _dims(4, 3), "m, n, p, q in [1, 3]")),
        bridge_refusals=exhaustive(lambda c: refuses(lambda: _stp_mod.bridge(*c[0]), ValueError, c[1]),
                                   [((0, 2), "n must be a positive integer"), ((2, 0), "p must be a positive integer")],
                                   method="exact", describe="bridge(0, 2) and bridge(2, 0) refused, naming n and p"))


@claim(
    "cheng2025:def2.8",
    quote="<x, y>_V := (1/t) <x ⊗ 1_{t/m}, y ⊗ 1_{t/n}>  (17);  ||x||_V (18);  d_V(x, y) := ||x − y||_V  (19)",
    statement=(
        "isomat's inner_v / norm_v / dist_v (O(m + n), no R^t vector) equal (17)-(19) exactly for all m, n in "
        "[1, 8] on integer vectors; <·,·>_V is symmetric and ||x||²_V = ||x||²/m; d_V is a pseudometric on R^∞: "
        "the triangle inequality holds (Hypothesis, float64, tol 1e-12, sizes ≤ 12) and d_V(x, x ⊗ 1_k) = 0 for "
        "x ≠ x ⊗ 1_k (so d_V is a metric only on the quotient by ~, as in Cheng 2019). Sampled: the triangle "
        "inequality involves square roots of sums over symbolic lengths, for which an exact check at every size is "
        "infeasible here (the identities (17)-(19) themselves are exact). inner_v with one operand exact and one "
        "NumPy is exact; a matrix or None is refused naming x or y."
    ),
    methods=["exact", "exhaustive", "property"],
)
def _def28():
    def ok(c):
        m, n = c
        x, y = _rand(m, 1, sum(c)), _rand(n, 1, sum(c) + 1)
        return (sympy.simplify(_stp_mod.inner_v(x, y) - naive_inner_v(x, y)) == 0
                and _stp_mod.inner_v(x, y) == _stp_mod.inner_v(y, x)
                and _stp_mod.norm_v(x) ** 2 == (x.T * x)[0, 0] / m
                and sympy.simplify(_stp_mod.dist_v(x, y) ** 2 - naive_dist_v_sq(x, y)) == 0
                and _stp_mod.dist_v(x, _kron(x, _ones(2))) == 0)

    vec = lambda k: st.lists(st.integers(-9, 9), min_size=k, max_size=k)  # noqa: E731
    tri = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12)).flatmap(
        lambda d: st.tuples(vec(d[0]), vec(d[1]), vec(d[2])))

    def triangle(c):
        x, y, z = (_dev(v) for v in c)
        D = lambda a, b: float(to_numpy(_stp_mod.dist_v(a, b)))  # noqa: E731
        return D(x, z) <= D(x, y) + D(y, z) + 1e-12

    return decide(all_of(_exact_exhaustive(ok, _dims(2, 8), "m, n in [1, 8]"),
                         property_search(triangle, tri, describe="x, y, z integer vectors, sizes in [1, 12]", max_examples=80)),
                  operands=_stp_inputs())


@claim(
    "cheng2025:prop2.12",
    quote="x +_r y := Π^m_r x + Π^n_r y  (23);  x +_r y = Π^t_r (x + y),  t = lcm(m, n)  (24)",
    statement=(
        "With x + y the STA (14), x ⊕ y = (I_m ⊗ 1_{t/m}) x + (I_n ⊗ 1_{t/n}) y, so by linearity (24) holds for all "
        "x, y exactly when Π^t_r (I_m ⊗ 1_{t/m}) = Π^m_r and Π^t_r (I_n ⊗ 1_{t/n}) = Π^n_r; both are instances of "
        "Π^t_r (I_m ⊗ 1_μ) = Π^m_r, proved for all m, μ, r >= 1 and t = mμ (so for t = lcm(m, n) and m or n) on "
        "the entry rule of Π (as in prop2.12/eq26). Cross-check: (24) with symbolic x ∈ R^m, y ∈ R^n and isomat's nominal_add = (23), "
        "all m, n, r in [1, 4]."
    ),
    methods=["symbolic", "exhaustive"],
)
def _prop212():
    def ok(c):
        m, n, r = c
        x = sympy.Matrix(sympy.symbols(f"x0:{m}"))
        y = sympy.Matrix(sympy.symbols(f"y0:{n}"))
        t = math.lcm(m, n)
        lhs = naive_projection(m, r) * x + naive_projection(n, r) * y
        rhs = naive_projection(t, r) * naive_sta(x, y)
        impl = _stp_mod.nominal_add(x, y, r)
        return (lhs - rhs).expand().is_zero_matrix and (lhs - impl).expand().is_zero_matrix

    tr = exhaustive(ok, _dims(3, 4), describe="m, n, r in [1, 4], symbolic x, y", method="symbolic")
    return decide(_textbook(_eq26_proof(), "kron-column", "matmul-bilinear", "matmul-entry"),
                  exhaustive_crosscheck=tr, projection_binds_rule=_projection_binds())


@claim(
    "cheng2025:prop2.12/eq26",
    quote="Π^t_r (x ⊗ 1_{t/m}) = Π^m_r x  (26);  Π^t_r (y ⊗ 1_{t/n}) = Π^n_r y  (27);  the split (25)",
    statement=(
        "(26) and (27) for every m | t: Π^t_r (I_m ⊗ 1_{t/m}) = Π^m_r as matrices, proved for all m, μ = t/m, r >= 1 "
        "on the entry rule m·Π^m_r[i, j] = ov(i, j, m, r): column j of the left side is the sum of the columns "
        "jμ, ..., jμ+μ−1 of Π^t_r, a difference of overlap prefix sums (proved lemma); this covers t = lcm(m, n) "
        "for every n, and (27) is the case m := n. (25) is linearity of Π^t_r. Cross-check: exact matrices, "
        "m <= 4, t/m <= 3, r <= 5."
    ),
    methods=["symbolic", "exact", "exhaustive"],
)
def _eq26():
    def ok(c):
        m, k, r = c
        t = m * k
        return naive_projection(t, r) * _kron(sympy.eye(m), _ones(k)) == naive_projection(m, r)

    cases = sorted(itertools.product(range(1, 5), range(1, 4), range(1, 6)), key=lambda c: (sum(c), c))
    return decide(_textbook(_eq26_proof(), "matmul-entry", "kron-entry", "matmul-bilinear"),
                  exhaustive_crosscheck=_exact_exhaustive(ok, cases, "m <= 4, t/m <= 3, r <= 5"),
                  projection_binds_rule=_projection_binds())


@claim(
    "cheng2025:def2.11",
    quote="The r-nominal addition of x and y is defined by x +_r y := Π^m_r x + Π^n_r y ∈ R^r. (23)",
    statement=(
        "+_r is an STA in the sense of Def. 2.3, i.e. commutative (8) and associative (9), for every r: "
        "x +_r y = Π^m_r x + Π^n_r y = y +_r x (vector addition commutes), and for x ∈ R^m, y ∈ R^n, z ∈ R^p, "
        "(x +_r y) +_r z = Π^r_r(Π^m_r x + Π^n_r y) + Π^p_r z = Π^m_r x + Π^n_r y + Π^p_r z = x +_r (y +_r z), since "
        "Π^r_r = I_r — proved for all r >= 1 on the entry rule of Π (r·Π^r_r[i, j] = ov(i, j, r, r) = r·[i = j]), with "
        "linearity of the matrix product. Exact cross-check: generic (symbolic) x, y, z, the naive (22) projections and "
        "isomat's nominal_add, all m, n, p, r in [1, 2] and four mixed cases with sizes 3."
    ),
    methods=["symbolic", "exact", "exhaustive"],
)
def _def211():
    ident = _pi_identity_proof(
        "Π^r_r[i, j] = ov(i, j, r, r)/r = [i = j]: Π^r_r = I_r, so (x +_r y) +_r z = Π^m_r x + Π^n_r y + "
                 "Π^p_r z = x +_r (y +_r z); x +_r y = y +_r x by commutativity of vector addition")

    def ok(c):
        m, n, p, r = c
        x, y, z = _grand(m, 1, 1), _grand(n, 1, 2), _grand(p, 1, 3)
        add = lambda a, b: naive_projection(a.rows, r) * a + naive_projection(b.rows, r) * b  # noqa: E731
        impl = sympy.Matrix(_stp_mod.nominal_add(x, y, r))
        return (_same(add(x, y), add(y, x)) and _same(add(add(x, y), z), add(x, add(y, z)))
                and _same(impl, add(x, y)))

    cases = _dims(4, 2) + [(2, 3, 1, 3), (3, 2, 3, 2), (1, 3, 2, 3), (3, 3, 2, 2)]
    cross = _exact_exhaustive(ok, cases, "m, n, p, r in [1, 2] and four mixed cases with sizes 3")
    return decide(_textbook(ident, "matmul-bilinear", "matmul-entry"), exhaustive_crosscheck=cross,
                  projection_binds_rule=_projection_binds())


@claim(
    "cheng2025:prop2.12/proof-coefficient",
    quote="Π^t_r (x ⊗ 1_{t/m}) = (1/r)(I_r ⊗ 1ᵀ_{s/r})(I_t ⊗ 1_{s/t})(x ⊗ 1_{t/m})  (first line of the proof)",
    statement=(
        "The scalar c with Π^t_r = c·(I_r ⊗ 1ᵀ_{s/r})(I_t ⊗ 1_{s/t}), s = lcm(t, r), recomputed from (22) for "
        "every t, r in [1, 4], compared with the printed 1/r (the next line of the proof uses r/s)."
    ),
    methods=["recompute"],
)
def _proof_coeff():
    printed, recomputed = {}, {}
    for t, r in itertools.product(range(1, 5), range(1, 5)):
        s = math.lcm(t, r)
        M = _kron(sympy.eye(r), _ones(s // r).T) * _kron(sympy.eye(t), _ones(s // t))
        P = naive_projection(t, r)
        c = P[0, 0] / M[0, 0]
        if P != c * M:
            raise AssertionError("Π^t_r is not a multiple of the Kronecker product")
        key = f"proof of Prop. 2.12, line 1, coefficient for t={t}, r={r}"
        printed[key] = sympy.Rational(1, r)
        recomputed[key] = c
    def loops(ds):  # c = Π^t_r[0, 0] / M[0, 0], both entry by entry with loops over u < s (no isomat, SymPy code)
        ref = {}
        for t, r in itertools.product(range(1, 5), range(1, 5)):
            s = math.lcm(t, r)
            m00 = sum(1 for u in range(s) if u // (s // r) == 0 and u // (s // t) == 0)
            ref[f"proof of Prop. 2.12, line 1, coefficient for t={t}, r={r}"] = _loops_projection(t, r)[0][0] / m00
        return exhaustive(lambda d: sympy.Rational(str(d["correct"])) == sympy.Rational(str(ref[d["where"]])), ds,
                          method="exact", describe="each discrepancy's correct coefficient, Π of (22) and the Kronecker "
                                                   "product by loops (_loops_projection)")

    return compare_printed(printed, recomputed, correct_formula="r/s, s = lcm(t, r)", confirm=loops)


@claim(
    "cheng2025:prop2.12/proof-steps",
    quote=(
        "= (r/s)(I_r ⊗ 1ᵀ_{s/r})[I_m ⊗ (I_μ ⊗ 1_{s/t})](x ⊗ 1_{t/m}) = ... = (r/s)(I_r ⊗ 1ᵀ_{s/r})(x ⊗ 1_{s/m}) = ... "
        "= (rλ/s)(I_r ⊗ 1ᵀ_{δ/r})(I_m ⊗ 1_{δ/m}) x = (r/δ)(I_r ⊗ 1ᵀ_{δ/r})(I_m ⊗ 1_{δ/m}) x = Π^m_r x  (proof of (26))"
    ),
    statement=(
        "Each line of the printed chain proving (26), from the second on, written as a matrix acting on x (x ⊗ v = "
        "(I_m ⊗ v) x) with t = lcm(m, n) = μm, s = lcm(t, r), δ = lcm(r, m), λ = s/δ, equals the line before; the "
        "first line is taken with the coefficient r/s (its printed 1/r is the misprint recorded in "
        "prop2.12/proof-coefficient); the chain starts at Π^t_r (x ⊗ 1_{t/m}) and ends at Π^m_r x (naive (22)). Exact, "
        "all m, n, r in [1, 4]; (27) is the same chain with m and n exchanged, i.e. the case (n, m, r) of the same loop."
    ),
    methods=["exact", "exhaustive"],
)
def _proof_steps():
    K, E = _kron, sympy.eye

    def chain(m, n, r):
        t = math.lcm(m, n)
        mu, s, delta = t // m, math.lcm(t, r), math.lcm(r, m)
        lam = s // delta
        c = sympy.Rational(r, s)
        head = K(E(r), _ones(s // r).T)
        return [
            naive_projection(t, r) * K(E(m), _ones(t // m)),
            c * head * K(E(t), _ones(s // t)) * K(E(m), _ones(t // m)),
            c * head * K(E(m), K(E(mu), _ones(s // t))) * K(E(m), _ones(t // m)),
            c * head * K(E(m), K(E(mu), _ones(s // t)) * _ones(mu)),
            c * head * K(E(m), K(_ones(mu), _ones(s // t))),
            c * head * K(E(m), _ones(s // m)),
            c * K(K(E(r), _ones(delta // r).T), _ones(lam).T) * K(K(E(m), _ones(delta // m)), _ones(lam)),
            sympy.Rational(r * lam, s) * K(E(r), _ones(delta // r).T) * K(E(m), _ones(delta // m)),
            sympy.Rational(r, delta) * K(E(r), _ones(delta // r).T) * K(E(m), _ones(delta // m)),
            naive_projection(m, r),
        ]

    def ok(c):
        m, n, r = c
        L = chain(m, n, r)
        return all(a == b for a, b in itertools.pairwise(L))

    def witness(c):
        L = chain(*c)
        k = next(i for i, (a, b) in enumerate(itertools.pairwise(L)) if a != b)
        return {"first unequal step": k + 1, "before": L[k], "after": L[k + 1]}

    return decide(_exact_exhaustive(ok, _dims(3, 4), "m, n, r in [1, 4]", witness))


# =============================================================================================


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
