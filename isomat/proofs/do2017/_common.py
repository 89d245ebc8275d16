"""Helpers shared by the sections of do2017's claims (see the package docstring): naive references,
Z3 proofs of the vec/Kronecker identities, cross-check plumbing."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import networkx as nx
import z3
import numpy as np
import sympy
from hypothesis import strategies as st

from ...algebra import graph as G_ops
from ...algebra._backend import as_values, to_numpy
from ...algebra.matrix_layer import (
    mat1,
    mat2,
    matrix_gru_cell,
    matrix_highway,
    matrix_layer,
    matrix_layer2,
    matrix_layer_parameter_count,
    matrix_lstm_cell,
    matrix_rnn_cell,
)
from ...algebra.graph import mean_aggregation_entry, multi_attention_entry, renormalized_adjacency_entry
from ...algebra.matrix_layer import matrix_layer_entry
from ._graph_options import WEIGHTED_GRAPHS, graph_options_bad
from ...errors import CheckError
from .. import prover
from ..prover import FLATTENING_LEMMAS, fdiv, fmod, ints
from ..engine import (
    device_cached,
    Outcome,
    Reading,
    Trial,
    by_readings,
    printed_checks,
    threshold_reading,
    all_of,
    claim,
    compare_printed,
    decide,
    exact_equal,
    exhaustive,
    float_backend,
    not_checkable,
    numeric_close,
    property_search,
    holds_memory_bound,
    refuses,
    require,
    symbolic_zero,
)


# ---------------------------------------------------------------------------------------------
# small helpers and naive references
# ---------------------------------------------------------------------------------------------
def _sym(name: str, r: int, c: int) -> sympy.Matrix:
    return sympy.Matrix(r, c, lambda i, j: sympy.Symbol(f"{name}{i}{j}"))


def _vec(M: sympy.Matrix, order: str = "C") -> sympy.Matrix:
    rows, cols = M.shape
    if order == "C":
        return sympy.Matrix([M[i, j] for i in range(rows) for j in range(cols)])
    return sympy.Matrix([M[i, j] for j in range(cols) for i in range(rows)])


def _kron(A: sympy.Matrix, B: sympy.Matrix) -> sympy.Matrix:
    return sympy.kronecker_product(A, B)


def _int_matrix(r: int, c: int):
    return st.lists(st.integers(-5, 5), min_size=r * c, max_size=r * c).map(lambda v: sympy.Matrix(r, c, v))


# graphs: the networkx atlas in increasing size (1..5 nodes: 52 graphs)
ATLAS = nx.graph_atlas_g()[1:53]


def _no_isolated(g: nx.Graph) -> bool:
    return all(d > 0 for _, d in g.degree())


def _naive_adj(g: nx.Graph) -> sympy.Matrix:
    nodes = list(g.nodes)
    n = len(nodes)
    A = sympy.zeros(n, n)
    for u, v in g.edges():
        A[nodes.index(u), nodes.index(v)] = 1
        if not g.is_directed():
            A[nodes.index(v), nodes.index(u)] = 1
    return A


def _naive_sym_norm(A: sympy.Matrix) -> sympy.Matrix:
    d = [sum(A.row(i)) for i in range(A.rows)]
    return sympy.Matrix(A.rows, A.cols, lambda i, j: A[i, j] / sympy.sqrt(d[i] * d[j]) if A[i, j] else 0)


def _radical_equal(M1: sympy.Matrix, M2: sympy.Matrix) -> bool:
    """Exact equality of two matrices with nonnegative entries that are square roots of rationals
    (normalized adjacencies): a = b ⇔ a² = b² for a, b ≥ 0, and the squares are rational."""
    if M1.shape != M2.shape:
        return False
    for a, b in zip(M1, M2):
        if not (a.is_nonnegative and b.is_nonnegative):
            raise CheckError(f"expected nonnegative entries, got {a} and {b}")
        d = sympy.expand(a**2 - b**2)
        if not d.is_Rational:
            raise CheckError(f"squares are not rational: {a}², {b}²")
        if d != 0:
            return False
    return True


def _kron_layer(P: np.ndarray, U: np.ndarray, V: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Naive UᵀPV + B through the C-order vector form (np.kron(Uᵀ, Vᵀ) vec P + vec B)."""
    return (np.kron(U.T, V.T) @ P.ravel() + B.ravel()).reshape(U.shape[1], V.shape[1])


def _np_sigm(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


# ---------------------------------------------------------------------------------------------
# proofs for every size (Z3): vec orders, the Kronecker product's definition, reindexed sums
# ---------------------------------------------------------------------------------------------
_R, _Z = z3.RealSort(), z3.IntSort()


def _fn(name: str, arity: int = 2) -> z3.FuncDeclRef:
    """An arbitrary real matrix (arity 2) or vector (arity 1), indexed by integers: an
    uninterpreted function, so a proof about it holds for every value of every entry."""
    return z3.Function(name, *[_Z] * arity, _R)


def _unvec(k, rows, cols, order):
    """Entry (i, j) of an rows×cols matrix that flat index k names (C: k = i·cols + j; F: k = j·rows + i)."""
    return (fdiv(k, cols), fmod(k, cols)) if order == "C" else (fmod(k, rows), fdiv(k, rows))


def _vecidx(i, j, rows, cols, order):
    return i * cols + j if order == "C" else j * rows + i


def _kron_entry(A, B, p, q, row, col):
    """The definition of the Kronecker product, independent of isomat: for B of shape p×q,
    (A ⊗ B)[row, col] = A[row div p, col div q] · B[row mod p, col mod q]."""
    return A(fdiv(row, p), fdiv(col, q)) * B(fmod(row, p), fmod(col, q))


def _transposed(M):
    return lambda x, y: M(y, x)


@device_cached
def _layer_proof(order: str, nblocks: int, *, sigma: bool = False) -> prover.Proof:
    r"""vec(Σ_k U_kᵀ P_k V_k + B) = [W_0 ... W_{n−1}] [vec P_0; ...] + vec B for every size.

    For symbolic sizes r', c' ≥ 1 and r_k, c_k ≥ 1, arbitrary real U_k, V_k, P_k, B (uninterpreted),
    every output index 0 ≤ row < r'c' and every column 0 ≤ col < Σ r_k c_k, Z3 proves:

    * the row names the output entry (a, b) = unvec(row), in range, and vec(a, b) = row;
    * the column falls in exactly one block k, at input entry (i, j) = unvec(col − off_k), in range,
      with off_k + vec(i, j) = col; and conversely every (k, i, j) in range gives a column in range
      that the rule maps back to (k, i, j) -- so col ↦ (k, i, j) is a bijection onto ⊔_k [0, r_k)×[0, c_k);
    * the Kronecker term (by the definition of ⊗: U_kᵀ ⊗ V_kᵀ in C order, V_kᵀ ⊗ U_kᵀ in F order)
      times vec P_k at that column is the term U_k[i, a] P_k[i, j] V_k[j, b] of Σ_{i,j} in (U_kᵀP_kV_k)[a, b];
    * isomat's weight entry (``matrix_layer_entry``: U_k[i, a]·V_k[j, b]) is that Kronecker entry.

    Reindexing the finite sum Σ_col W[row, col] vecP[col] by the bijection then gives
    Σ_k Σ_{i,j} U_k[i,a] P_k[i,j] V_k[j,b] = (Σ_k U_kᵀ P_k V_k)[a, b]; with ``sigma`` an arbitrary
    elementwise σ is applied on both sides (σ(vec Y)[row] = σ(Y[a, b])).
    """
    rp, cp, row, col = ints("rp cp row col")
    blocks = []
    for k in range(nblocks):
        r, c, i, j = ints(f"r{k} c{k} i{k} j{k}")
        blocks.append((r, c, i, j, _fn(f"U{k}"), _fn(f"V{k}"), _fn(f"P{k}")))
    offs = [z3.IntVal(0)]
    for r, c, *_ in blocks[:-1]:
        offs.append(offs[-1] + r * c)
    total = offs[-1] + blocks[-1][0] * blocks[-1][1]
    hyps = [rp >= 1, cp >= 1, 0 <= row, row < rp * cp, 0 <= col, col < total]
    for r, c, i, j, *_ in blocks:
        hyps += [r >= 1, c >= 1, 0 <= i, i < r, 0 <= j, j < c]
    shapes = [(b[0], b[1]) for b in blocks]
    k_, i_, a, j_, b = matrix_layer_entry(row, col, shapes, (rp, cp), order)
    S = z3.Function("sigma", _R, _R)
    goals = [0 <= a, a < rp, 0 <= b, b < cp, _vecidx(a, b, rp, cp, order) == row]
    in_some = []
    for m, ((r, c, i, j, U, V, P), off) in enumerate(zip(blocks, offs)):
        inside = z3.And(off <= col, col < off + r * c)
        in_some.append(inside)
        lc = col - off
        ii, jj = _unvec(lc, r, c, order)
        kron = (_kron_entry(_transposed(U), _transposed(V), cp, c, row, lc) if order == "C"
                else _kron_entry(_transposed(V), _transposed(U), rp, r, row, lc))
        term = U(ii, a) * P(ii, jj) * V(jj, b)
        goals.append(z3.Implies(inside, z3.And(
            k_ == m, i_ == ii, j_ == jj, 0 <= ii, ii < r, 0 <= jj, jj < c, off + _vecidx(ii, jj, r, c, order) == col,
            U(i_, a) * V(j_, b) == kron, kron * P(*_unvec(lc, r, c, order)) == term)))
        back = off + _vecidx(i, j, r, c, order)
        k2, i2, _, j2, _ = matrix_layer_entry(row, back, shapes, (rp, cp), order)
        goals += [off <= back, back < off + r * c, k2 == m, i2 == i, j2 == j]
    goals.append(z3.Or(*in_some))
    if sigma:  # vec(σ(Y))[row] = σ(Y[unvec(row)]) = σ(Y[a, b]): σ commutes with the flattening
        Y = _fn("Y")
        goals.append(S(Y(*_unvec(row, rp, cp, order))) == S(Y(a, b)))
    sizes = ", ".join(f"r{k}, c{k}" for k in range(nblocks))
    return prover.prove(
        z3.And(*goals), assuming=hyps, lemmas=FLATTENING_LEMMAS,
        sizes=[rp, cp, *[x for blk in blocks for x in blk[:2]]],
        for_all=(f"for all r', c' >= 1, {sizes} >= 1 (input block k of r_k×c_k), 0 <= row < r'c', "
                 f"0 <= col < Σ r_k c_k, 0 <= i_k < r_k, 0 <= j_k < c_k, every real U_k, V_k, P_k, B"
                 f"{' and every elementwise σ' if sigma else ''} (uninterpreted), order {order}"))


def _weight_by_rule(shape: tuple[int, int], blocks: list, out_shape: tuple[int, int], order: str) -> np.ndarray:
    """The weight that matrix_layer_entry (the proved rule) gives for the blocks (U_k, V_k): entry (row, col)
    is U_k[i, a]·V_k[j, b], evaluated with NumPy over every row and column."""
    rows, cols = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
    k, i, a, j, b = matrix_layer_entry(rows, cols, [(u.shape[0], v.shape[0]) for u, v in blocks], out_shape, order)
    k = np.broadcast_to(k, rows.shape)
    want = np.zeros(shape)
    for m, (u, v) in enumerate(blocks):
        sel = k == m
        want[sel] = u[i[sel], a[sel]] * v[j[sel], b[sel]]
    return want


@device_cached
def _layer_builder_check(field: str = "numpy") -> Trial:
    """matrix_layer and matrix_layer2 (the builders) against matrix_layer_entry (the proved rule), entry by
    entry, both orders, every r', c', r_k, c_k <= 3 and three seeded larger shapes (sides up to 9): the rule
    the proof is about is the rule the code users run. The builders run in ``field`` (claims pass
    ``float_backend()``: CuPy under `isomat verify --backend cupy`); the weights are compared on the host."""
    rng = np.random.default_rng(2017)
    shapes = [((r, c), (rp, cp)) for r, c, rp, cp in itertools.product(range(1, 4), repeat=4)]
    shapes += [((int(a), int(b)), (int(x), int(y))) for a, b, x, y in rng.integers(4, 10, size=(3, 4))]

    def ok(case):
        try:
            return _agrees(case)
        except IndexError:  # the rule names an entry outside U or V: it is not the builder's rule
            return False

    def _agrees(case):
        ((r, c), (rp, cp)), order, two = case
        U, V = rng.integers(-4, 5, (r, rp)).astype(float), rng.integers(-4, 5, (c, cp)).astype(float)
        blocks = [(U, V)]
        if two:
            blocks.append((rng.integers(-4, 5, (c, rp)).astype(float), rng.integers(-4, 5, (r, cp)).astype(float)))
        dev = [as_values(m, field) for blk in blocks for m in blk]  # the builders' inputs, in the field
        layer = matrix_layer(*dev, order=order) if not two else matrix_layer2(*dev, order=order)
        W = _dense_np(layer.weight)
        return W.shape == (rp * cp, sum(u.shape[0] * v.shape[0] for u, v in blocks)) and np.array_equal(
            W, _weight_by_rule(W.shape, blocks, (rp, cp), order))

    cases = [(s, o, two) for s in shapes for o in "CF" for two in (False, True)]
    t = exhaustive(ok, cases, describe="matrix_layer / matrix_layer2 against matrix_layer_entry, both orders, "
                   "r', c', r_k, c_k <= 3 and 3 seeded shapes with sides 4..9, one and two input blocks", method="exact")
    small = [s for s in shapes if max(s[0] + s[1]) <= 2] + shapes[-3:]
    forms = ("array", "csr", "operator", "lists", "exact-bias", "exact-weights")
    combos = [(o, two) for o in "CF" for two in (False, True)]  # two of the four per shape, every form in turn
    bias_cases = [(sh, *combos[(i + h) % 4], forms[(2 * i + h // 2) % len(forms)])
                  for i, sh in enumerate(small) for h in (0, 2)]
    bias_cases += [(small[1], "C", False, "no-bias"), (small[-1], "F", True, "no-bias")]  # built without B
    bias = exhaustive(lambda c: _layer_bias_ok(c, field), bias_cases, method="exact",
        describe="matrix_layer / matrix_layer2 with a bias B, in turn a dense array, SciPy CSR, a SparseOperator, with "
                 "U, V as nested lists, an exact SymPy B of halves beside float U, V and no backend (the field is the "
                 "exact one), SymPy U, V with the float backend (NumPy converts them; CuPy must refuse them): bias = vec(B) in the order and the layer applied to "
                 "integer P_k equals Σ U_kᵀ P_k V_k + B computed with NumPy (SymPy for the exact field); every "
                 "r', c', r_k, c_k <= 2 and the 3 seeded shapes, each with two of (order C/F × one/two blocks); and "
                 "two layers built without B (one block order C, two blocks order F): bias None, the layer applied "
                 "equals Σ U_kᵀ P_k V_k")
    return all_of(t, bias).with_evidence(field=field)


def _layer_bias_ok(case, field: str) -> bool:
    """One bias case of :func:`_layer_builder_check`: the layer with B (in the case's form; none for ``"no-bias"``)
    applied to integer inputs against the direct Σ U_kᵀ P_k V_k + B (NumPy matrix products, exact on integers; SymPy's for the exact field), its
    bias against vec(B), and its field against the one the inputs and backend name."""
    import scipy.sparse as sp

    from ...algebra._operator import as_operator
    ((r, c), (rp, cp)), order, two, form = case
    rng = np.random.default_rng(r * 1000 + c * 100 + rp * 10 + cp + 7 * two)
    blocks = [(rng.integers(-4, 5, (r, rp)).astype(float), rng.integers(-4, 5, (c, cp)).astype(float))]
    if two:
        blocks.append((rng.integers(-4, 5, (c, rp)).astype(float), rng.integers(-4, 5, (r, cp)).astype(float)))
    B = rng.integers(-4, 5, (rp, cp)).astype(float)
    Ps = [rng.integers(-4, 5, (u.shape[0], v.shape[0])).astype(float) for u, v in blocks]
    build = matrix_layer2 if two else matrix_layer
    if form == "exact-bias":  # float U, V and an exact B, no backend: the inputs' field is the exact one
        Bx = sympy.Matrix(rp, cp, lambda i, j: sympy.Rational(int(B[i, j]), 2))
        layer = build(*[m for blk in blocks for m in blk], Bx, order=order)
        want = sum((sympy.Matrix(u).T * sympy.Matrix(P) * sympy.Matrix(v) for (u, v), P in zip(blocks, Ps)),
                   sympy.zeros(rp, cp)) + Bx
        return (layer.field == "sympy" and list(layer.bias) == list(Bx if order == "C" else Bx.T)
                and sympy.Matrix(layer(*[sympy.Matrix(P) for P in Ps])) == want)
    if form == "no-bias":  # built without B: its bias is None and applying it adds nothing
        layer = build(*[as_values(m, field) for blk in blocks for m in blk], order=order, backend=field)
        want = sum(u.T @ P @ v for (u, v), P in zip(blocks, Ps))
        got = np.asarray(to_numpy(layer(*[as_values(P, field) for P in Ps])), dtype=float)
        return layer.bias is None and layer.field == field and got.shape == want.shape and np.array_equal(got, want)
    Bin = {"csr": sp.csr_array(B), "operator": as_operator(B, field=field)}.get(form, as_values(B, field))
    conv = {"lists": lambda m: m.tolist(), "exact-weights": lambda m: sympy.Matrix(m.astype(int).tolist())}
    mats = [conv.get(form, lambda m: as_values(m, field))(m) for blk in blocks for m in blk]
    if form == "exact-weights" and field == "cupy":  # SymPy weights on the device: refused, never silently converted
        try:
            build(*mats, Bin, order=order, backend=field)
        except TypeError as exc:
            return "cannot mix SymPy" in str(exc)
        return False
    layer = build(*mats, Bin, order=order, backend=field)
    want = sum(u.T @ P @ v for (u, v), P in zip(blocks, Ps)) + B
    got = np.asarray(to_numpy(layer(*[as_values(P, field) for P in Ps])), dtype=float)
    return (layer.field == field and np.array_equal(np.asarray(to_numpy(layer.bias), dtype=float), B.reshape(-1, order=order))
            and got.shape == want.shape and np.array_equal(got, want))


@device_cached
def _layer_rule_options() -> Trial:
    """matrix_layer_entry where the builders do not take it, and the layers' refusals (issue 36 item 5: the automatic
    mutation run's survivors): the default order is "C"; three input blocks (no builder has more than two; the rule
    and its proof take any number) place U_kᵀ ⊗ V_kᵀ (C) / V_kᵀ ⊗ U_kᵀ (F) side by side, against np.kron and np.hstack;
    a weight that is no matrix refused by name."""
    rng = np.random.default_rng(_LARGE_SEED + 11)

    def default_order_ok(_):
        shapes, out = [(2, 3), (3, 2)], (2, 2)
        rows, cols = np.meshgrid(np.arange(4), np.arange(12), indexing="ij")
        return all(np.array_equal(np.broadcast_to(x, rows.shape), np.broadcast_to(y, rows.shape)) for x, y in
                   zip(matrix_layer_entry(rows, cols, shapes, out), matrix_layer_entry(rows, cols, shapes, out, "C")))

    def three_blocks_ok(order):
        out = (2, 3)
        blocks = [(rng.integers(-4, 5, (r, out[0])).astype(float), rng.integers(-4, 5, (c, out[1])).astype(float))
                  for r, c in ((1, 2), (2, 2), (3, 1))]
        want = np.hstack([np.kron(u.T, v.T) if order == "C" else np.kron(v.T, u.T) for u, v in blocks])
        return np.array_equal(_weight_by_rule(want.shape, blocks, out, order), want)

    def refusals_ok(_):
        return (refuses(lambda: matrix_layer(5, np.eye(2)), TypeError, "U must be a matrix")
                and refuses(lambda: matrix_layer(np.eye(2), "V"), TypeError, "V must be a matrix"))

    return all_of(
        exhaustive(default_order_ok, [0], method="exact",
                   describe="matrix_layer_entry without order equals order 'C' (two blocks 2×3, 3×2, output 2×2, every entry)"),
        exhaustive(three_blocks_ok, ["C", "F"], method="exact",
                   describe="matrix_layer_entry with three input blocks (1×2, 2×2, 3×1; output 2×3; integer U_k, V_k): the "
                            "weight it gives is [U_0ᵀ ⊗ V_0ᵀ | U_1ᵀ ⊗ V_1ᵀ | U_2ᵀ ⊗ V_2ᵀ] (C) / [V_kᵀ ⊗ U_kᵀ] (F) by np.kron"),
        exhaustive(refusals_ok, [0], method="exact",
                   describe="matrix_layer(5, ·) and matrix_layer(·, 'V') refused (TypeError naming U, V)"))


def _layer_trial(orders: str, nblocks: int, *, sigma: bool = False) -> Trial:
    # the builder against the entry rule first: a broken rule or builder ends the claim here, before the proofs
    require(builder_vs_entry_rule=_layer_builder_check(float_backend()), entry_rule_options=_layer_rule_options())
    what = {1: "vec(UᵀPV + B) = W vec P + vec B",
            2: "vec(UpᵀPVp + UqᵀQVq + B) = [Wp | Wq][vec P; vec Q] + vec B"}[nblocks]
    return all_of(*[_layer_proof(o, nblocks, sigma=sigma).trial(
        f"{'σ elementwise: ' if sigma else ''}{what} with W = {'Uᵀ ⊗ Vᵀ' if o == 'C' else 'Vᵀ ⊗ Uᵀ'} "
        f"(definition of ⊗) = isomat's weight (matrix_layer_entry), order {o}: the column ↔ (block, i, j) "
        f"map is a bijection and each Kronecker term is the matching term of Σ_(i,j) U[i,a]P[i,j]V[j,b]")
        for o in orders])


def _matrix_identity(difference, describe: str, for_all: str) -> Trial:
    """A matrix-expression identity with symbolic dimensions (SymPy MatrixSymbol / Identity): proved
    when SymPy's matrix algebra reduces the difference to the zero matrix; a nonzero residual's
    generic entry (0, 0) is what fails."""
    residual = sympy.expand(difference.doit())
    zero = getattr(residual, "is_ZeroMatrix", False) or residual == 0
    scalar = sympy.Integer(0) if zero else residual[0, 0]
    return symbolic_zero(scalar, describe=f"{describe}: SymPy reduces the difference to {residual}", for_all=for_all)


def _scalar(expr, describe: str) -> Trial:
    """An elementwise (⊙) identity proved on generic real scalars: each entry of any r×c matrices (the for_all states
    every symbol real: one declared with a narrower domain, positive say, is refused by symbolic_zero)."""
    return symbolic_zero(expr, describe=describe,
                         for_all="every real value of each symbol; as the operations are elementwise (⊙, scalar "
                                 "functions), for every entry of matrices of every size r×c >= 1×1",
                         domain={str(s): "real" for s in sympy.sympify(expr).free_symbols})




# ---------------------------------------------------------------------------------------------
# seeded larger instances: the builders against the proved entry rules at sizes well past the
# exhaustive bound (each a binding Trial, settled first with require; cached where shared)
# ---------------------------------------------------------------------------------------------
_LARGE_SEED = 20170


def _dense_np(M) -> np.ndarray:
    return np.asarray(to_numpy(M.toarray() if hasattr(M, "toarray") else M), dtype=float)


def _in_field(field: str) -> dict:
    """Keywords that build a graph operator in ``field``: none for NumPy (the builders' default), so a check run in
    the default field calls the builder exactly as a user does (tests patch builders with one-argument stand-ins)."""
    return {} if field == "numpy" else {"backend": field}


# The seeded larger checks below build (and apply) isomat's operators in ``field`` -- claims pass
# ``float_backend()``, CuPy under `isomat verify --backend cupy` -- and compare on the host with NumPy references;
# cached per field.
@device_cached
def _layer_builder_large_check(field: str = "numpy") -> Trial:
    """matrix_layer / matrix_layer2 at seeded shapes with sides 20..60 (integer-valued U, V: exact in float64)
    against np.kron(Uᵀ, Vᵀ) (C) / np.kron(Vᵀ, Uᵀ) (F) and against matrix_layer_entry evaluated with numpy."""
    rng = np.random.default_rng(_LARGE_SEED)
    big = lambda: int(rng.integers(20, 61))  # noqa: E731
    small = lambda: int(rng.integers(2, 5))  # noqa: E731
    shapes = [((big(), small()), (big(), small())), ((small(), big()), (small(), big())),
              ((big(), small()), (small(), big()))]
    cases = [(s, o, two) for s in shapes for o in "CF" for two in (False, True)]

    def ok(case):
        ((r, c), (rp, cp)), order, two = case
        blocks = [(rng.integers(-4, 5, (r, rp)).astype(float), rng.integers(-4, 5, (c, cp)).astype(float))]
        if two:
            blocks.append((rng.integers(-4, 5, (c, rp)).astype(float), rng.integers(-4, 5, (r, cp)).astype(float)))
        dev = [as_values(m, field) for blk in blocks for m in blk]  # the builders' inputs, in the field
        layer = matrix_layer(*dev, order=order) if not two else matrix_layer2(*dev, order=order)
        W = _dense_np(layer.weight)
        kron = np.hstack([np.kron(u.T, v.T) if order == "C" else np.kron(v.T, u.T) for u, v in blocks])
        if W.shape != kron.shape or not np.array_equal(W, kron):
            return False
        return np.array_equal(W, _weight_by_rule(W.shape, blocks, (rp, cp), order))

    desc = ", ".join(f"{r}×{rp} / {c}×{cp}" for (r, c), (rp, cp) in shapes)
    return _with_field(field, exhaustive(ok, cases, method="exact", strength="sampled", describe=(
        f"matrix_layer / matrix_layer2 at 3 seeded larger shapes (U / V: {desc}; sides 20..60 paired with "
        f"sides 2..4, numpy seed {_LARGE_SEED}), orders C and F, one and two input blocks, integer entries in "
        "[-4, 4]: the weight equals np.kron(Uᵀ, Vᵀ) (C) / np.kron(Vᵀ, Uᵀ) (F) and matrix_layer_entry evaluated with numpy, exactly")))


def _with_field(field: str, t: Trial) -> Trial:
    return t.with_evidence(field=field)


@device_cached
def _large_graphs() -> tuple:
    """Three seeded G(n, p) graphs with 30, 55 and 80 nodes (networkx seeds 17, 18, 19), isolated nodes removed."""
    out = []
    for n, p, seed in ((30, 0.15, 17), (55, 0.08, 18), (80, 0.06, 19)):
        g = nx.gnp_random_graph(n, p, seed=seed)
        g.remove_nodes_from([v for v, d in list(g.degree()) if d == 0])
        out.append(g)
    return tuple(out)


def _large_graphs_text() -> str:
    return ("3 seeded networkx gnp_random_graph graphs (n, p, seed) = (30, 0.15, 17), (55, 0.08, 18), (80, 0.06, 19), "
            "isolated nodes removed (" + ", ".join(f"{g.number_of_nodes()} nodes / {g.number_of_edges()} edges"
                                                    for g in _large_graphs()) + ")")


def _np_adj(g: nx.Graph) -> np.ndarray:
    nodes = list(g.nodes)
    pos = {v: k for k, v in enumerate(nodes)}
    A = np.zeros((len(nodes), len(nodes)))
    for u, v in g.edges():
        A[pos[u], pos[v]] = A[pos[v], pos[u]] = 1.0
    return A


def _graph_large(name: str, test, field: str = "numpy") -> Trial:
    def ok(idx):
        g = _large_graphs()[idx]
        return bool(test(g, _np_adj(g), np.random.default_rng(_LARGE_SEED + idx)))

    return _with_field(field, exhaustive(ok, range(len(_large_graphs())), method="numeric", strength="sampled",
                                         describe=f"{name} on {_large_graphs_text()}, float64, rtol 1e-12"))


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


@device_cached
def _mean_aggregation_large_check(field: str = "numpy") -> Trial:
    def test(g, A, rng):
        Aop = G_ops.mean_aggregation(g, **_in_field(field))
        At = _dense_np(Aop)
        d = A.sum(axis=1)
        rule = np.where(A != 0, mean_aggregation_entry(A, d[:, None]), 0.0)
        H = rng.standard_normal((A.shape[0], 3))
        nodes = list(g.nodes)
        pos = {v: k for k, v in enumerate(nodes)}
        loop = np.array([[sum(H[pos[j], f] for j in g[i]) / len(g[i]) for f in range(3)] for i in nodes])
        AtH = to_numpy(Aop @ as_values(H, field, name="H"))  # Ã H in the field
        return _close(At, rule) and _close(AtH, loop) and _close(At.sum(axis=1), np.ones(len(nodes)))

    return _graph_large("mean_aggregation against mean_aggregation_entry (A_ij / D_ii, numpy), Ã H against the "
                        "neighbour means by a direct loop over G[i] (H seeded normal, 3 columns), rows summing to 1",
                        test, field)


@device_cached
def _renormalized_adjacency_large_check(field: str = "numpy") -> Trial:
    def test(g, A, rng):
        Ah = _dense_np(G_ops.renormalized_adjacency(g, **_in_field(field)))
        n = A.shape[0]
        s = 1 / np.sqrt(A.sum(axis=1) + 1)
        rule = renormalized_adjacency_entry(A, np.eye(n, dtype=bool), s[:, None], s[None, :])
        loop = np.array([[(A[i, j] + (i == j)) / np.sqrt((A[i].sum() + 1) * (A[j].sum() + 1)) for j in range(n)]
                         for i in range(n)])
        return _close(Ah, rule) and _close(Ah, loop) and _in_nodelist_order(g, loop, field)

    return _graph_large("renormalized_adjacency against renormalized_adjacency_entry (s_i(A_ij + δ_ij)s_j, numpy) "
                        "and a direct loop over (i, j); given a nodelist (the nodes in a seeded random order), the "
                        "loop's rows and columns in that order", test, field)


def _in_nodelist_order(g, loop: np.ndarray, field: str) -> bool:
    """renormalized_adjacency(g, nodelist=perm) is ``loop`` (built in g.nodes order) with its rows and columns taken
    in the order of ``perm``, a seeded permutation of the nodes."""
    nodes = list(g.nodes)
    p = np.random.default_rng(len(nodes)).permutation(len(nodes))
    got = _dense_np(G_ops.renormalized_adjacency(g, nodelist=[nodes[k] for k in p], **_in_field(field)))
    return _close(got, loop[np.ix_(p, p)])


@device_cached
def _normalized_adjacency_large_check(field: str = "numpy") -> Trial:
    def test(g, A, rng):
        N = _dense_np(G_ops.normalized_adjacency(g, **_in_field(field)))
        n = A.shape[0]
        d = A.sum(axis=1)
        loop = np.array([[A[i, j] / np.sqrt(d[i] * d[j]) for j in range(n)] for i in range(n)])
        return _close(N, loop)

    return _graph_large("normalized_adjacency against D^-1/2 A D^-1/2 by a direct loop over (i, j)", test, field)


@device_cached
def _multi_attention_large_check(field: str = "numpy") -> Trial:
    def test(g, A, rng):
        N, n, d = A.shape[0], 2, 3
        Ls = [np.where(A + np.eye(N) > 0, rng.standard_normal((N, N)), 0.0) for _ in range(n)]
        H = rng.standard_normal((N, d))
        ref = np.hstack([L @ H for L in Ls])
        Ls_f = [as_values(L, field, name="Λ") for L in Ls]
        for o in "CF":
            Mop = G_ops.multi_attention(Ls_f, d, order=o, **_in_field(field))
            M = _dense_np(Mop)
            rows, cols = np.meshgrid(np.arange(N * n * d), np.arange(N * d), indexing="ij")
            k, i, l_, j, match = multi_attention_entry(rows, cols, N, n, d, o)
            rule = np.where(match, np.stack(Ls)[k, i, l_], 0.0)
            MH = to_numpy(Mop @ as_values(H.reshape(-1, order=o), field, name="vec H"))  # in the field
            if not (_close(M, rule) and _close(MH, ref.reshape(-1, order=o))):
                return False
        return True

    return _graph_large("multi_attention (n = 2 attentions supported on A + I, seeded normal, d = 3), orders C and F, "
                        "against multi_attention_entry (numpy) and vec [Λ(1)H, Λ(2)H]", test, field)


def _multi_attention_int64_check() -> Trial:
    """multi_attention(backend="sympy") of NumPy int64 attention matrices with entries near 2^60 (float64 would round
    them) against vec [Λ(1)H, Λ(2)H] on Python ints, orders C and F; and multi_attention_entry with its default order
    equal to order "C"."""
    rng = np.random.default_rng(_LARGE_SEED + 13)
    N, n, d = 3, 2, 2
    Ls = [rng.integers(-2**60, 2**60, (N, N)) for _ in range(n)]
    H = rng.integers(-9, 10, (N, d))
    ref = np.hstack([L.astype(object) @ H.astype(object) for L in Ls])
    ok = True
    for o in "CF":
        M = sympy.Matrix(G_ops.multi_attention(Ls, d, order=o, backend="sympy"))
        got = M * sympy.Matrix(H.reshape(-1, order=o).tolist())
        ok = ok and list(got) == [int(v) for v in ref.reshape(-1, order=o)]
    try:  # the attentions as one stacked array (no sequence of matrices): refused
        G_ops.multi_attention(np.stack(Ls), d)
        ok = False
    except TypeError:
        pass
    # the default order is C: multi_attention and its entry rule called without it
    M = sympy.Matrix(G_ops.multi_attention(Ls, d, backend="sympy"))
    ok = ok and list(M * sympy.Matrix(H.reshape(-1).tolist())) == [int(v) for v in ref.reshape(-1)]
    rows, cols = np.meshgrid(np.arange(N * n * d), np.arange(N * d), indexing="ij")
    ok = ok and all(np.array_equal(a, b) for a, b in zip(multi_attention_entry(rows, cols, N, n, d),
                                                          multi_attention_entry(rows, cols, N, n, d, "C")))
    # exact attentions with the backend left out: the field is theirs (exact), not NumPy's
    S = [sympy.Matrix(L.tolist()) / 3 for L in Ls]
    M = G_ops.multi_attention(S, d)
    ok = ok and isinstance(M, sympy.SparseMatrix) and list(M * sympy.Matrix(H.reshape(-1).tolist())) == list(
        sympy.Matrix.hstack(*[L * sympy.Matrix(H.tolist()) for L in S]).reshape(N * n * d, 1))
    # bad arguments refused by name; the memory bound held at the stored entries it makes (one per nonzero of a
    # Λ(k) and per feature column): the build fits that bound and is refused one byte below it
    one = np.ones((2, 2))
    ok = ok and all((
        refuses(lambda: G_ops.multi_attention([one], 0), ValueError, "d must be a positive integer"),
        refuses(lambda: G_ops.multi_attention([one], 2, order="X"), ValueError, "order must be one of"),
        refuses(lambda: G_ops.multi_attention([one, "x"], 2), TypeError, "attentions[1]"),
        refuses(lambda: G_ops.multi_attention([one, np.ones((3, 3))], 2), ValueError, "attentions[1] has shape (3, 3)")))
    from ...algebra._operator import estimate_bytes

    need = estimate_bytes(sum(np.count_nonzero(L) for L in Ls) * d, N * n * d, value_bytes=8, staging=True)
    ok = ok and holds_memory_bound(lambda: G_ops.multi_attention([L.astype(float) for L in Ls], d), need, "multi_attention")
    return Trial(ok, "exact", {"compared": "multi_attention(backend='sympy') of int64 Λ (|entries| < 2^60, numpy seed "
                                           f"{_LARGE_SEED + 13}, |V| = {N}, n = {n}, d = {d}) times vec H vs vec [Λ(k)H] on "
                                           "Python ints, orders C, F and the default (C); multi_attention_entry's default order vs 'C'; a "
                                           "stacked array of attentions refused (TypeError); exact Λ with the backend left out give "
                                           "an exact operator; d = 0, order 'X', a string attention and unequal shapes refused "
                                           "by name; the float build fits the memory bound of its stored entries and is refused "
                                           "one byte below it"})


def _mat1_np(P, t):
    """mat1 by a direct loop over the output entries: Σ_(i,j) U[i,a] P[i,j] V[j,b] + B[a,b]."""
    U, V, B = t[0], t[1], t[-1]
    out = np.array(B, dtype=float)
    for a in range(U.shape[1]):
        out[a] += np.einsum("i,ij,jb->b", U[:, a], P, V)
    return out


def _mat2_np(P, Q, t):
    return _mat1_np(P, (t[0], t[1], t[4])) + _mat1_np(Q, (t[2], t[3], np.zeros_like(t[4])))


@device_cached
def _cells_large_check() -> Trial:
    """matrix_rnn_cell / matrix_lstm_cell / matrix_gru_cell / matrix_highway at seeded larger shapes against
    the cell equations built from mat1/mat2 by direct loops over the output entries."""
    import scipy.sparse as sp

    rng = np.random.default_rng(_LARGE_SEED + 7)
    a, b, h1, h2, o1, o2 = 24, 30, 20, 28, 22, 26

    def th2():
        return tuple(rng.standard_normal(s) / 5 for s in ((a, h1), (b, h2), (h1, h1), (h2, h2), (h1, h2)))

    X, H, C0 = rng.standard_normal((a, b)), rng.standard_normal((h1, h2)), rng.standard_normal((h1, h2))
    sg, tanh = _np_sigm, np.tanh

    def rnn():
        th, ty = th2(), tuple(rng.standard_normal(s) / 5 for s in ((h1, o1), (h2, o2), (o1, o2)))
        Y, Hn = matrix_rnn_cell(X, H, th, ty)
        Hr = tanh(_mat2_np(X, H, th))
        return _close(Hn, Hr) and _close(Y, _mat1_np(Hr, ty))

    def lstm():
        th = {g: th2() for g in "ifoc"}
        Hm, Cm = matrix_lstm_cell(sp.csr_array(X), H, C0, th)  # a SciPy sparse input: densified by the cell
        I, F, O = (sg(_mat2_np(X, H, th[g])) for g in "ifo")  # noqa: E741
        Cr = F * C0 + I * tanh(_mat2_np(X, H, th["c"]))
        return _close(Cm, Cr) and _close(Hm, O * tanh(Cr))

    def gru():
        th = {g: th2() for g in "zrh"}
        Z, R = sg(_mat2_np(X, H, th["z"])), sg(_mat2_np(X, H, th["r"]))
        return _close(matrix_gru_cell(X.tolist(), H, th),  # nested lists: read as an array by the cell
                      (1 - Z) * H + Z * tanh(_mat2_np(X, R * H, th["h"])))

    def highway():
        tz = (rng.standard_normal((h1, h1)) / 5, rng.standard_normal((h2, h2)) / 5, rng.standard_normal((h1, h2)))
        th = (rng.standard_normal((h1, h1)) / 5, rng.standard_normal((h2, h2)) / 5, rng.standard_normal((h1, h2)))
        Z = sg(_mat1_np(H, tz))
        return _close(matrix_highway(sp.csr_array(H), tz, th), (1 - Z) * H + Z * tanh(_mat1_np(H, th)))

    def refusals():
        # mat2 with rectangular Uq, Vq (the cells' are square) and the refusals of a wrong Q, B, theta and gate mapping
        P, Q = rng.standard_normal((3, 2)), rng.standard_normal((4, 5))
        th = (rng.standard_normal((3, 2)), rng.standard_normal((2, 6)), rng.standard_normal((4, 2)),
              rng.standard_normal((5, 6)), rng.standard_normal((2, 6)))
        gates = {g: th2() for g in "zr"}  # "h" missing
        return (_close(mat2(P, Q, th), _mat2_np(P, Q, th))
                and refuses(lambda: mat2(P, Q.T, th), ValueError, "Q has shape (5, 4)")
                and refuses(lambda: mat2(P, Q, th[:4] + (th[4].T,)), ValueError, "B shape (6, 2)")
                and refuses(lambda: mat1(P, th[:2]), TypeError, "theta must be a tuple (U, V, B), got a sequence of 2")
                and refuses(lambda: mat2(P, Q, list(th) + [th[4]]), TypeError, "got a sequence of 6")
                and refuses(lambda: matrix_gru_cell(X, H, gates), ValueError, "missing gate parameters ['h']"))

    cells = {"matrix_rnn_cell": rnn, "matrix_lstm_cell": lstm, "matrix_gru_cell": gru, "matrix_highway": highway,
             "mat2 and refusals": refusals}
    return exhaustive(lambda name: cells[name](), list(cells), method="numeric", strength="sampled", describe=(
        f"matrix_rnn_cell, matrix_lstm_cell, matrix_gru_cell (corrected update) and matrix_highway at X {a}×{b}, "
        f"H, C {h1}×{h2}, output {o1}×{o2} (numpy seed {_LARGE_SEED + 7}, normal entries, weights scaled 1/5) "
        "against the cell equations with mat1/mat2 = Σ_(i,j) U[i,a]P[i,j]V[j,b] + B by a direct loop over the "
        "output rows, float64, rtol 1e-12 (the LSTM's X and the highway's H given as SciPy CSR, the GRU's X as "
        "nested lists); mat2 with rectangular Uq (4×2), Vq (5×6) against the same loops, and refusals naming a Q or B "
        "of the wrong shape, a theta of 2 or 6 matrices and a gate mapping without 'h'"))


# ---------------------------------------------------------------------------------------------
# Every graph operator on the graphs the other checks leave out (isolated nodes, self-loops, directed edges,
# multigraphs) and at the sizes users run: the builders against the operators written out from their definitions
# (isomat.algebra.graph's module notes: A_ij = 1 per edge i → j, an undirected edge both ways, a self-loop once on
# the diagonal; D_ii = Σ_j A_ij; isolated='zero' reads 0^-1 as 0; the symmetric normalizations refuse directed
# graphs, every operator refuses multigraphs). The references are plain loops over G's edges, exact (Fraction)
# where no square root is taken; they share no code with isomat.
# ---------------------------------------------------------------------------------------------
#: the operators the check covers (names used by _graph_binding)
GRAPH_OPS = ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency", "laplacian/combinatorial",
             "laplacian/symmetric", "laplacian/random-walk", "chebyshev_filter", "spectral_filter")
#: operators that need a symmetric A (refuse directed graphs)
_SYMMETRIC_ONLY = ("normalized_adjacency", "renormalized_adjacency", "laplacian/symmetric", "spectral_filter")
#: operators with an ``isolated`` keyword (a degree-0 node: ValueError with 'raise', a zero row with 'zero')
_ISOLATED_KW = ("mean_aggregation", "normalized_adjacency", "laplacian/symmetric", "laplacian/random-walk",
                "chebyshev_filter", "spectral_filter")
_CHEB_THETA = (0.5, -1.0, 2.0)  # θ0..θ2 of the Chebyshev check (lambda_max = 2)
#: the graph at the size users run (a citation-graph scale: Cora has 2708 nodes): nodes, edges, seed
USER_GRAPH = (3000, 9000, 20171)
#: the sentence each claim bound by _graph_binding adds to its statement
GRAPH_NOTE = (" Binding (issue 36): isomat's graph operators the claim uses are also checked against their definitions "
              "written out by loops over the edges on the graphs the checks above leave out -- every undirected graph "
              "on 1-3 nodes and directed graph on 1-2 nodes with self-loops and isolated nodes, 12 seeded random graphs "
              "on 3-8 nodes, multigraphs (refused) -- and on a 3000-node graph with self-loops and isolated nodes "
              "(pattern, 200 sampled rows, row sums); and on weighted graphs (non-integer weights, self-loops, nodes "
              "of degree 0, directed and undirected) with a permuted nodelist, in the exact and the float field, with "
              "every option (isolated, kind, Chebyshev K = 1..4 with lambda_max given or computed).")


def _build(op: str, g: Any, field: str, isolated: str = "zero") -> Any:
    """isomat's operator ``op`` of ``g`` (weight None), rendered; ``isolated`` where the operator takes it."""
    kw = dict(_in_field(field))
    if op in _ISOLATED_KW:
        kw["isolated"] = isolated
    if op.startswith("laplacian/"):
        return G_ops.laplacian(g, op.split("/")[1], **kw)
    if op == "chebyshev_filter":
        return G_ops.chebyshev_filter(g, list(_CHEB_THETA), lambda_max=2, kind="random-walk" if g.is_directed()
                                      else "symmetric", **kw)
    if op == "spectral_filter":
        return G_ops.spectral_filter(g, lambda lam: 1 - 2 * lam + 3 * lam ** 2, **kw)
    return getattr(G_ops, op)(g, **kw)


def _written_out(g: Any) -> dict[str, Any]:
    """Every operator of GRAPH_OPS for ``g`` from its definition, by loops over the edges (nodes in list(g.nodes)
    order); a symmetric-only operator of a directed graph is None (it must be refused)."""
    nodes = list(g.nodes)
    pos = {v: k for k, v in enumerate(nodes)}
    n = len(nodes)
    A = [[0] * n for _ in range(n)]
    for u, v in g.edges():
        A[pos[u]][pos[v]] = 1
        if not g.is_directed():
            A[pos[v]][pos[u]] = 1
    d = [sum(row) for row in A]
    F = Fraction
    mean = [[F(A[i][j], d[i]) if d[i] else F(0) for j in range(n)] for i in range(n)]
    eye = [[int(i == j) for j in range(n)] for i in range(n)]
    out: dict[str, Any] = {
        "adjacency": np.array(A, dtype=float),
        "mean_aggregation": np.array(mean, dtype=float),
        "laplacian/combinatorial": np.array([[eye[i][j] * d[i] - A[i][j] for j in range(n)] for i in range(n)], dtype=float),
        "laplacian/random-walk": np.array([[eye[i][j] - mean[i][j] for j in range(n)] for i in range(n)], dtype=float),
    }
    if g.is_directed():
        out.update({k: None for k in _SYMMETRIC_ONLY})
        Lt = out["laplacian/random-walk"] - np.eye(n)
    else:
        N = [[A[i][j] / math.sqrt(d[i] * d[j]) if A[i][j] else 0.0 for j in range(n)] for i in range(n)]
        out["normalized_adjacency"] = np.array(N)
        out["renormalized_adjacency"] = np.array([[(A[i][j] + eye[i][j]) / math.sqrt((d[i] + 1) * (d[j] + 1))
                                                   for j in range(n)] for i in range(n)])
        L = np.array([[eye[i][j] - N[i][j] for j in range(n)] for i in range(n)])
        out["laplacian/symmetric"] = L
        out["spectral_filter"] = np.eye(n) - 2 * L + 3 * L @ L  # U g(Λ) Uᵀ = g(L) for the polynomial g
        Lt = L - np.eye(n)
    T = [np.eye(n), Lt, 2 * Lt @ Lt - np.eye(n)]  # eq. (15): T0 = I, T1 = x, T2 = 2x² − 1, at L̃ = 2L/2 − I
    out["chebyshev_filter"] = sum(t * M for t, M in zip(_CHEB_THETA, T))
    out["_isolated"] = any(x == 0 for x in d)
    return out


def _graph_disagreements(g: Any, field: str, ops: tuple = GRAPH_OPS) -> list[tuple[str, str]]:
    """(operator, what) for every operator of ``ops`` where isomat disagrees with :func:`_written_out` on ``g``:
    entries (float64, atol 1e-12), a directed graph not refused by a symmetric-only operator, an isolated node not
    refused with isolated='raise'."""
    want = _written_out(g)
    bad = []
    for op in ops:
        ref = want[op]
        try:
            got = _dense_np(_build(op, g, field))
        except ValueError:
            if ref is not None:
                bad.append((op, "refused a graph it takes"))
            continue
        if ref is None:
            bad.append((op, "took a directed graph (needs a symmetric A)"))
        elif got.shape != ref.shape or not np.allclose(got, ref, rtol=0, atol=1e-12):
            bad.append((op, "entries differ from the definition"))
        elif op in _ISOLATED_KW and want["_isolated"]:
            try:
                _build(op, g, field, isolated="raise")
                bad.append((op, "isolated='raise' took a graph with a node of degree 0"))
            except ValueError:
                pass
    return bad


def _hostile_graphs() -> tuple[list, list]:
    """(exhaustive, seeded random) graphs: every undirected graph on 1..3 labelled nodes with self-loops allowed
    (isolated nodes included) and every directed graph on 1..2 nodes with self-loops; then 12 seeded random graphs
    on 3..8 nodes (directed and undirected, each possible edge and self-loop with probability 0.4), and one
    multigraph of each kind (with a parallel edge)."""
    ex = []
    for n in (1, 2, 3):
        slots = [(i, j) for i in range(n) for j in range(i, n)]
        for mask in range(1 << len(slots)):
            g = nx.Graph()
            g.add_nodes_from(range(n))
            g.add_edges_from(s for k, s in enumerate(slots) if mask >> k & 1)
            ex.append(g)
    for n in (1, 2):
        slots = [(i, j) for i in range(n) for j in range(n)]
        for mask in range(1 << len(slots)):
            g = nx.DiGraph()
            g.add_nodes_from(range(n))
            g.add_edges_from(s for k, s in enumerate(slots) if mask >> k & 1)
            ex.append(g)
    rng = np.random.default_rng(_LARGE_SEED + 11)
    rnd = []
    for k in range(12):
        n = int(rng.integers(3, 9))
        g = nx.DiGraph() if k % 2 else nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from((i, j) for i in range(n) for j in range(n) if (g.is_directed() or i <= j) and rng.random() < 0.4)
        rnd.append(g)
    return ex, rnd


def _user_graph(directed: bool) -> Any:
    """The user-size graph: USER_GRAPH's nodes and random edges (seeded), 30 self-loops, 20 isolated nodes."""
    n, m, seed = USER_GRAPH
    rng = np.random.default_rng(seed + directed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    src, dst = rng.integers(20, n, m), rng.integers(20, n, m)  # nodes 0..19 get no edge: isolated
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    loops = rng.choice(np.arange(20, n), 30, replace=False)
    g.add_edges_from((int(v), int(v)) for v in loops)
    return g


def _sparse_rows(g: Any, field: str, ops: tuple) -> list[tuple[str, str]]:
    """At the user size: for the sparse operators of ``ops``, the stored pattern equals the definition's (A's, A + I's
    or I + A's), 200 sampled rows' entries equal the definition by loops over G's neighbours (exact Fractions for
    the rational operators, float64 atol 1e-12 with square roots), and the row sums of D^-1 A are 1 (0 on an isolated
    node) to 1e-12."""
    nodes = list(g.nodes)
    pos = {v: k for k, v in enumerate(nodes)}
    n = len(nodes)
    succ = [[pos[w] for w in g.successors(v)] if g.is_directed() else [pos[w] for w in g[v]] for v in nodes]
    d = [len(s) for s in succ]  # A_ij = 1 per neighbour (a self-loop once): D_ii = Σ_j A_ij
    rows = sorted(set(np.random.default_rng(USER_GRAPH[2]).choice(n, 200, replace=False).tolist()) | set(range(5))
                  | {k for k in range(n) if k in succ[k]})
    bad = []
    for op in ops:
        if op in ("chebyshev_filter", "spectral_filter"):
            continue  # dense or K-hop: checked on the small graphs
        if g.is_directed() and op in _SYMMETRIC_ONLY:
            try:
                _build(op, g, field)
                bad.append((op, "took a directed graph at the user size"))
            except ValueError:
                pass
            continue
        M = _build(op, g, field)
        M = M.tocsr() if hasattr(M, "tocsr") else M
        M.sum_duplicates()
        indptr, indices, data = (np.asarray(to_numpy(a)) for a in (M.indptr, M.indices, M.data))
        for i in rows:
            got = dict(zip(indices[indptr[i]:indptr[i + 1]].tolist(), data[indptr[i]:indptr[i + 1]].tolist()))
            got = {j: v for j, v in got.items() if v != 0}
            want: dict = {}
            for j in succ[i]:
                if op == "adjacency":
                    want[j] = 1
                elif op == "mean_aggregation":
                    want[j] = Fraction(1, d[i])
                elif op == "normalized_adjacency":
                    want[j] = 1 / math.sqrt(d[i] * d[j])
                elif op == "renormalized_adjacency":
                    want[j] = 1 / math.sqrt((d[i] + 1) * (d[j] + 1))
                elif op == "laplacian/combinatorial":
                    want[j] = -1
                elif op == "laplacian/symmetric":
                    want[j] = -1 / math.sqrt(d[i] * d[j])
                else:  # random-walk
                    want[j] = -Fraction(1, d[i])
            if op == "renormalized_adjacency":
                want[i] = want.get(i, 0) + 1 / (d[i] + 1)
            elif op == "laplacian/combinatorial":
                want[i] = want.get(i, 0) + d[i]
            elif op.startswith("laplacian/"):
                want[i] = want.get(i, 0) + 1
            want = {j: v for j, v in want.items() if v != 0}
            if set(got) != set(want) or any(abs(got[j] - float(want[j])) > 1e-12 for j in want):
                bad.append((op, f"row {i} differs from the definition at the user size"))
                break
        nnz_want = sum(d) + (n if op == "renormalized_adjacency" else 0) - (
            sum(1 for k in range(n) if k in succ[k]) if op == "renormalized_adjacency" else 0)
        if op == "mean_aggregation":
            sums = np.add.reduceat(np.append(data, 0.0), indptr[:-1])[:n] if data.size else np.zeros(n)
            sums = np.where(np.diff(indptr) > 0, sums, 0.0)
            if not np.allclose(sums, [1.0 if x else 0.0 for x in d], rtol=0, atol=1e-12):
                bad.append((op, "rows of D^-1 A do not sum to 1 at the user size"))
        if op in ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency") \
                and int(np.count_nonzero(data)) != nnz_want:
            bad.append((op, f"{int(np.count_nonzero(data))} stored nonzeros, the definition has {nnz_want}"))
    return bad


@device_cached
def _graph_hostile_bad(field: str = "numpy") -> tuple:
    """Every (operator, graph kind, what) where a graph operator disagrees with its definition (see GRAPH_OPS)."""
    ex, rnd = _hostile_graphs()
    bad = []
    for kind, graphs in (("exhaustive", ex), ("random", rnd)):
        for g in graphs:
            for op, what in _graph_disagreements(g, field):
                bad.append((op, kind, f"{what}: {'directed' if g.is_directed() else 'undirected'} graph with "
                                      f"{g.number_of_nodes()} nodes, edges {sorted(g.edges())}"))
    for G0 in (nx.MultiGraph([(0, 1), (0, 1), (1, 2)]), nx.MultiDiGraph([(0, 1), (0, 1), (1, 0)])):
        for op in GRAPH_OPS:
            try:
                _build(op, G0, field)
                bad.append((op, "multigraph", f"took a {type(G0).__name__} with a parallel edge (must be refused: "
                                              "A_ij is one edge's weight)"))
            except TypeError:
                pass
            except ValueError:
                bad.append((op, "multigraph", f"refused a {type(G0).__name__} with ValueError, not TypeError"))
    for directed in (False, True):
        for op, what in _sparse_rows(_user_graph(directed), field, GRAPH_OPS):
            bad.append((op, "user size", f"{what} ({'directed' if directed else 'undirected'}, {USER_GRAPH[0]} nodes)"))
    return tuple(bad)


def _graph_binding(*ops: str) -> Trial:
    """Binding: isomat's graph operators ``ops`` against their definitions written out (loops over the edges) on
    every undirected graph with 1..3 nodes and every directed graph with 1..2 nodes, self-loops and isolated nodes
    included, 12 seeded random graphs with 3..8 nodes, multigraphs (refused with TypeError) and, at a user's size
    (3000 nodes, 9000 random edges, 30 self-loops, 20 isolated nodes, directed and undirected), the stored pattern,
    200 sampled rows exactly / to 1e-12 and the row sums of D^-1 A; and on the weighted graphs of
    :func:`._graph_options.graph_options_bad` (non-integer weights, a permuted nodelist, every option, the exact and
    the float field)."""
    for op in ops:
        if op not in GRAPH_OPS:
            raise CheckError(f"no graph operator {op!r} (one of {GRAPH_OPS})")
    field = float_backend()
    bad = [b for b in _graph_hostile_bad(field) + graph_options_bad(field) if b[0] in ops]
    ex, rnd = _hostile_graphs()
    ev = {"compared": f"isomat {', '.join(ops)} vs the operators written out from their definitions (loops over G's edges; "
                      "A_ij = 1 per edge i → j, undirected both ways, a self-loop once; D_ii = Σ_j A_ij; isolated='zero' "
                      "and 'raise'; Chebyshev θ = (1/2, −1, 2) at λmax = 2; spectral g(λ) = 1 − 2λ + 3λ²)",
          "graphs": f"{len(ex)} graphs exhaustively (undirected 1..3 nodes, directed 1..2 nodes, self-loops and isolated "
                    f"nodes included), {len(rnd)} seeded random graphs with 3..8 nodes (numpy seed {_LARGE_SEED + 11}), "
                    f"a MultiGraph and a MultiDiGraph, and at {USER_GRAPH[0]} nodes / {USER_GRAPH[1]} random edges (seed "
                    f"{USER_GRAPH[2]}, 30 self-loops, 20 isolated nodes) the pattern, 200 sampled rows and the row sums; "
                    f"{len(WEIGHTED_GRAPHS)} weighted graphs (non-integer weights, an edge without the attribute, "
                    "self-loops, nodes of degree 0, directed and undirected, string labels) built with a permuted "
                    "nodelist in the exact field (compared exactly) and the float field, isolated 'zero' and 'raise', "
                    "every kind, Chebyshev K = 1..4 with lambda_max given or computed",
          "tolerance": "exact pattern; entries atol 1e-12 (float64)", "field": field}
    if bad:
        op, kind, what = bad[0]
        return Trial(False, "numeric", ev, {"operator": op, "graphs": kind, "what": what, "failing": len(bad)},
                     strength="sampled")
    return Trial(True, "numeric", ev, strength="sampled")
