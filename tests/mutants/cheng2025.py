"""cheng2025's mutants (see tests/mutants/__init__.py)."""

from __future__ import annotations

from . import Mutant
from .factories import scaled


def _swap_wrong_radix(swap_matrix):
    """The builder's row index j·n + i (radix n instead of m): still a permutation, but not W[m,n]."""
    def broken(m, n=None, *, backend="numpy", format="csr"):
        import numpy as np
        import scipy.sparse as sp
        import sympy

        n = m if n is None else n
        k = np.arange(m * n)
        rows = (k % n) * n + k // n
        rows = np.where(rows < m * n, rows, k)  # stay inside the matrix
        if backend == "sympy":
            return sympy.SparseMatrix(m * n, m * n, {(int(r), int(c)): 1 for r, c in zip(rows, k)})
        return sp.csr_array((np.ones(m * n), (rows, k)), shape=(m * n, m * n)).asformat(format if format != "operator" else "csr")
    return broken


def _swap_wrong_between_9_and_19(swap_matrix):
    """W[m,n] with the radix-n row j·n + i only when 9 <= m, n <= 19 (right at every other size, so a check
    exhaustive to 8 and random from 20 on misses it)."""
    def broken(m, n=None, *, backend="numpy", format="csr"):
        n2 = m if n is None else n
        if 9 <= m <= 19 and 9 <= n2 <= 19 and m != n2:
            return _swap_wrong_radix(swap_matrix)(m, n2, backend=backend, format=format)
        return swap_matrix(m, n, backend=backend, format=format)
    return broken


def _stp_t_is_np(stp):
    """The MM-STP (12) with t = n·p instead of lcm(n, p) when n ≠ p: (A ⊗ I_p)(B ⊗ I_n) (a product, but not the STP;
    with t = n·p at n = p too the product would be another associative one, so isomat's defect is the mix)."""
    def broken(A, B):
        import numpy as np
        import sympy

        shape_a, shape_b = getattr(A, "shape", None), getattr(B, "shape", None)
        n_a = (shape_a[1] if len(shape_a) == 2 else 1) if shape_a else None
        if shape_a is not None and shape_b is not None and n_a == shape_b[0]:
            return stp(A, B)
        if isinstance(A, sympy.MatrixBase) or isinstance(B, sympy.MatrixBase):
            A, B = sympy.Matrix(A), sympy.Matrix(B)
            n, p = A.cols, B.rows
            return sympy.kronecker_product(A, sympy.eye(p)) * sympy.kronecker_product(B, sympy.eye(n))
        A, B = np.asarray(A), np.asarray(B)
        A, B = (A.reshape(-1, 1) if A.ndim == 1 else A), (B.reshape(-1, 1) if B.ndim == 1 else B)
        n, p = A.shape[1], B.shape[0]
        return np.kron(A, np.eye(p, dtype=A.dtype)) @ np.kron(B, np.eye(n, dtype=B.dtype))
    return broken


def _projection_wrong_above_1000(projection_operator):
    """Π^m_n's last stored value doubled when m or n exceeds 1000 (right at every smaller size)."""
    def broken(m, n, *, backend="numpy"):
        import dataclasses

        op = projection_operator(m, n, backend=backend)
        if max(m, n) <= 1000:
            return op
        values = op.values.copy()
        values[-1] = values[-1] * 2
        return dataclasses.replace(op, values=values)
    return broken


def _swap_row_wrong_radix(swap_row):
    def broken(k, m, n):
        from isomat._types import fdiv, fmod
        return fmod(k, n) * n + fdiv(k, n)
    return broken


def _scaled_operator(projection_operator):
    """Π's values scaled inside projection_operator (the audit's escape)."""
    def broken(m, n, *, backend="numpy"):
        op = projection_operator(m, n, backend=backend)
        import dataclasses
        try:
            return dataclasses.replace(op, values=op.values * 2)
        except TypeError:
            op.values = op.values * 2
            return op
    return broken


def _overlap_off_by_one(projection_overlap):
    """The entry rule reads one more unit of overlap on the diagonal block (0, 0)."""
    def broken(i, j, m, n):
        from isomat._types import both, ite
        return projection_overlap(i, j, m, n) + ite(both(i == 0, j == 0, m != n), 1, 0)
    return broken


def _sizes_differ(n, p, **kwargs):
    return n != p


def _inner_sizes_differ(A, B, *args, **kwargs):
    """A's columns and B's rows differ (the STP's nontrivial case)."""
    return getattr(A, "shape", (0, 0))[1] != getattr(B, "shape", (0, 0))[0]


def _resized(x, n):
    """project(x, n) changes the length (m ≠ n)."""
    return (x.shape[0] if hasattr(x, "shape") else len(x)) != n


def _block_count_wrong(pi_count):
    """The block-count axiom counts [k div a = i] only (drops [k div b = j]): FᵀF, (22) and Ψ no longer follow."""
    def broken():
        import z3

        from isomat.proofs import prover as pv
        from isomat.proofs.cheng2025._common import _zmax, _zmin

        i, j, k, a, b = pv.ints("i j k a b")
        C = z3.Function("BlockCount", *[z3.IntSort()] * 6)
        ax0 = pv.axiom("block-count-0", z3.ForAll([i, j, a, b], C(i, j, 0, a, b) == 0), text="empty")
        ax1 = pv.axiom("block-count-step", z3.ForAll([i, j, k, a, b], z3.Implies(
            k >= 0, C(i, j, k + 1, a, b) == C(i, j, k, a, b) + pv.ite(pv.fdiv(k, a) == i, 1, 0)),
            patterns=[C(i, j, k + 1, a, b)]), text="broken step")
        try:
            lm = pv.induction(
                "block-count-closed-form", k,
                lambda k: z3.Implies(z3.And(a >= 1, b >= 1, i >= 0, j >= 0),
                                     C(i, j, k, a, b) == _zmax(0, _zmin(_zmin((i + 1) * a, (j + 1) * b), k) - _zmax(i * a, j * b))),
                text="broken", other=[i, j, a, b], axioms=[ax0, ax1], patterns=[C(i, j, k, a, b)])
        except Exception:
            raise
        return C, lm
    return broken


def _lengths_differ(x, y):
    return getattr(x, "shape", (0,))[0] != getattr(y, "shape", (0,))[0]


def _power_row_shifted(power_reducing_row):
    def broken(c, k):
        return c * k + (c + 1) % k
    return broken


def _retriever_entry_ignores_after(retriever_entry):
    """The entry rule of S_i reads c mod size (forgets to divide by the later factors' sizes)."""
    def broken(r, c, size, after):
        from isomat._types import fmod
        return fmod(c, size) == r
    return broken


def _diamond_transposed(diamond):
    """Step 2 of Def. 4.13 with Aᵀ instead of A (the same for symmetric A only)."""
    def broken(A, X, **kwargs):
        import sympy
        At = A.T if hasattr(A, "T") else sympy.Matrix(A).T
        return diamond(At, X, **kwargs)
    return broken


def _kron_swapped(kron):
    """The reference Kronecker product with its factors swapped (A ⊗ B read as B ⊗ A)."""
    def broken(A, B):
        return kron(B, A)
    return broken


def _stp_columns_swapped(stp):
    """x ⋉ y computed as y ⋉ x when both are columns (the order of the Kronecker factors lost)."""
    def broken(A, B):
        shape_a, shape_b = getattr(A, "shape", None), getattr(B, "shape", None)
        if shape_a and shape_b and len(shape_a) == 2 and len(shape_b) == 2 and shape_a[1] == 1 and shape_b[1] == 1:
            return stp(B, A)
        return stp(A, B)
    return broken


def _zero_padding_transposed(zero_padding_linear):
    """Algorithm 5.1 with W^q transposed (reads the left-top block the wrong way round)."""
    def broken(W, X, out_dims):
        import sympy
        Wt = W.T if hasattr(W, "T") else sympy.Matrix(W).T
        return zero_padding_linear(Wt, X, out_dims)
    return broken


def _project_pad_zero(project_pad):
    """Project-padding replaced by zero-padding (x^i padded with zeros to n0 instead of Π^{n_i}_{n0} x^i)."""
    def broken(X, d=None):
        from isomat.algebra.hyper import Hypervector, zero_pad
        dims = Hypervector(X).dims if not hasattr(X, "dims") else X.dims
        return zero_pad(X, max(dims) if d is None else d)
    return broken


def _inner_weighted_divided(hv_inner_weighted):
    """X ⊙_w Y with the weight √lcm(m_i, n_j) dividing instead of multiplying."""
    def broken(X, Y):
        import math

        import numpy as np
        import sympy
        from isomat.algebra.hyper import Hypervector, hv_inner
        G = hv_inner(X, Y)
        mx, ny = Hypervector(X).dims, Hypervector(Y).dims
        if isinstance(G, sympy.MatrixBase):
            return sympy.Matrix(G.rows, G.cols, lambda i, j: G[i, j] / sympy.sqrt(math.lcm(mx[i], ny[j])))
        return G / np.sqrt(np.array([[math.lcm(m, n) for n in ny] for m in mx], dtype=float))
    return broken


def _attention_unweighted(attention_scores):
    """The attention matrix of (93) built from the unweighted Q ⊙ K (softmax(QKᵀ/n) instead of softmax(QKᵀ/√n))."""
    def broken(Q, K, *, weighted=True):
        return attention_scores(Q, K, weighted=False)
    return broken


def _stochastic_last_column_free(stochastic_hypotheses):
    """A ∈ Υ_{m×n}'s unit column sums required for the columns j < n − 1 only (the last column left free)."""
    def broken(C, Xs, m, n):
        import z3

        j = z3.Int("j")
        x_sum, _ = stochastic_hypotheses(C, Xs, m, n)
        return [x_sum, z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < n - 1), C(j, m) == 1))]
    return broken


def _permutation_forgotten(permuted_token_entry):
    """The token-permuted input read without its permutation: (V P)[u, i] taken as V[u, i]."""
    return lambda ve, pi, tok, u: ve(tok, u)


_PI = ("cheng2025:prop2.10", "cheng2025:beyond/row-stochastic", "cheng2025:def2.9")
MUTANTS = [
    Mutant("swap_matrix-wrong-radix", "builder", "isomat.algebra.stp:swap_matrix", _swap_wrong_radix,
           ("cheng2025:beyond/swap-matrix",), "W[m,n] built with row j·n + i instead of j·m + i"),
    Mutant("swap_matrix-wrong-for-9-to-19", "builder", "isomat.algebra.stp:swap_matrix", _swap_wrong_between_9_and_19,
           ("cheng2025:beyond/swap-matrix",), "W[m,n] built with row j·n + i only for 9 <= m ≠ n <= 19 (the gap between "
           "an exhaustive bound of 8 and random sizes from 20); must become an error"),
    Mutant("stp-t-is-np", "builder", "isomat.algebra.stp:stp", _stp_t_is_np,
           ("cheng2025:beyond/stp-associative", "cheng2025:beyond/stp-formula"),
           "the MM-STP with t = n·p instead of lcm(n, p) when n ≠ p; isomat's defect, so an error, never a refutation of "
           "associativity"),
    Mutant("projection-wrong-above-1000", "builder", "isomat.algebra.projection:projection_operator",
           _projection_wrong_above_1000, _PI, "Π^m_n's last value doubled when m or n > 1000; must become an error"),
    Mutant("swap_row-wrong-radix", "entry rule", "isomat.algebra.stp:swap_row", _swap_row_wrong_radix,
           ("cheng2025:beyond/swap-matrix",), "the entry rule of W[m,n] (and so the builder it drives) uses radix n"),
    Mutant("projection_operator-scaled", "builder", "isomat.algebra.projection:projection_operator", _scaled_operator,
           _PI + ("cheng2025:prop2.12/eq26", "cheng2025:rem5.4/i", "cheng2025:beyond/unpad"),
           "Π^m_n's values doubled inside projection_operator"),
    Mutant("project-scaled", "builder", "isomat.algebra.projection:project", scaled(when=_resized),
           ("cheng2025:prop2.12", "cheng2025:def2.11", "cheng2025:eq104"),
           "the matrix-free Π^m_n x (behind nominal_add) doubled when m ≠ n"),
    Mutant("dk_stp-scaled", "builder", "isomat.algebra.stp:dk_stp", scaled(when=_inner_sizes_differ),
           ("cheng2025:def2.1/eq13",), "the DK-STP doubled when the inner sizes differ"),
    Mutant("bridge-scaled", "builder", "isomat.algebra.stp:bridge", scaled(when=_sizes_differ),
           ("cheng2025:prop2.7",), "the bridge Ψ_{n×p} doubled when n ≠ p"),
    Mutant("bridge_weighted-scaled", "builder", "isomat.algebra.stp:bridge_weighted", scaled(when=_sizes_differ),
           ("cheng2025:prop4.8",), "the weighted bridge Ψ^w doubled when n ≠ p"),
    Mutant("dist_v-scaled", "builder", "isomat.algebra.stp:dist_v", scaled(when=_lengths_differ),
           ("cheng2025:def2.9",), "d_V doubled when the lengths differ"),
    Mutant("sta-scaled", "builder", "isomat.algebra.stp:sta", scaled(when=_lengths_differ),
           ("cheng2025:def2.3/sta",), "the STA (14) doubled when the lengths differ"),
    Mutant("power_reducing_row-shifted", "entry rule", "isomat.algebra.stp:power_reducing_row", _power_row_shifted,
           ("cheng2025:beyond/power-reducing-dummy",), "M_{r,k} built from an entry rule that puts column c's 1 in row ck + c + 1"),
    Mutant("retriever_entry-ignores-after", "entry rule", "isomat.algebra.stp:retriever_entry", _retriever_entry_ignores_after,
           ("cheng2025:beyond/power-reducing-dummy",), "the retriever's entry rule reads c mod n_i instead of (c div after) mod n_i"),
    Mutant("dk_stp_weighted-unnormalized", "builder", "isomat.algebra.stp:dk_stp_weighted", scaled(when=_inner_sizes_differ),
           ("cheng2025:prop4.9",), "A ⋉_w B doubled when the inner sizes differ"),
    Mutant("diamond-transposed", "builder", "isomat.algebra.hyper:diamond", _diamond_transposed,
           ("cheng2025:prop4.14", "cheng2025:eq82"), "A ⋄ X computed with Aᵀ"),
    Mutant("reference-kron-swapped", "entry rule", "isomat.proofs.cheng2025._common:_kron", _kron_swapped,
           ("cheng2025:prop4.10",), "the Kronecker reference of (64) with its factors swapped"),
    Mutant("stp-columns-swapped", "builder", "isomat.algebra.stp:stp", _stp_columns_swapped,
           ("cheng2025:eq46",), "x ⋉ y of two columns computed as y ⋉ x"),
    Mutant("softmax_rows-unnormalized", "builder", "isomat.algebra.hyper:softmax_rows", scaled(when=lambda E: getattr(E, "shape", (0, 0))[1] > 1),
           ("cheng2025:ex4.5",), "softmax rows doubled (not divided by their sum)"),
    Mutant("zero_padding_linear-transposed", "builder", "isomat.algebra.hyper:zero_padding_linear", _zero_padding_transposed,
           ("cheng2025:alg5.1",), "Algorithm 5.1 applied with W^q transposed"),
    Mutant("hv_nominal_add-scaled", "builder", "isomat.algebra.hyper:hv_nominal_add", scaled(when=lambda X, Y, r: len(X) != len(Y)),
           ("cheng2025:def4.11",), "X +_r Y doubled when s ≠ t"),
    Mutant("project_pad-zero-padding", "builder", "isomat.algebra.hyper:project_pad", _project_pad_zero,
           ("cheng2025:eq76",), "step 1 of Def. 4.13 (project-padding) done by zero-padding"),
    Mutant("hv_inner_weighted-divided", "builder", "isomat.algebra.hyper:hv_inner_weighted", _inner_weighted_divided,
           ("cheng2025:eq70",), "X ⊙_w Y divided by √lcm(m_i, n_j) instead of multiplied"),
    Mutant("attention_scores-unweighted", "builder", "isomat.algebra.hyper:attention_scores", _attention_unweighted,
           ("cheng2025:rem5.5",), "the attention matrix of (93) built from Q ⊙ K instead of Q ⊙_w K"),
    Mutant("stochastic-columns-off-by-one", "hypothesis", "isomat.proofs.cheng2025.sec4:_stochastic_hypotheses",
           _stochastic_last_column_free, ("cheng2025:prop4.6",),
           "(60)'s hypothesis 'the columns of A sum to 1' stated for j < n − 1 only (an off-by-one range)"),
    Mutant("eq44-token-permutation-forgotten", "entry rule", "isomat.proofs.cheng2025.further:_permuted_token_entry",
           _permutation_forgotten, ("cheng2025:eq44",),
           "the token-permuted input of (44) read without the permutation: (V P)[u, i] = V[u, i]"),
]
