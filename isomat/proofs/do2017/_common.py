"""Helpers shared by the sections of do2017's claims (see the package docstring): naive references,
Z3 proofs of the vec/Kronecker identities, cross-check plumbing."""

from __future__ import annotations

import functools
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
from ...errors import CheckError
from .. import prover
from ..prover import FLATTENING_LEMMAS, fdiv, fmod, ints
from ..engine import (
    Outcome,
    Reading,
    Trial,
    by_readings,
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


@functools.lru_cache(maxsize=None)
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


@functools.lru_cache(maxsize=None)
def _layer_builder_check() -> Trial:
    """matrix_layer and matrix_layer2 (the builders) against matrix_layer_entry (the proved rule), entry by
    entry, both orders, every r', c', r_k, c_k <= 3 and three seeded larger shapes (sides up to 9): the rule
    the proof is about is the rule the code users run."""
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
        layer = (matrix_layer(U, V, order=order) if not two else
                 matrix_layer2(U, V, blocks[1][0], blocks[1][1], order=order))
        W = np.asarray(layer.weight.toarray() if hasattr(layer.weight, "toarray") else layer.weight, dtype=float)
        rows, cols = np.meshgrid(np.arange(W.shape[0]), np.arange(W.shape[1]), indexing="ij")
        k, i, a, j, b = matrix_layer_entry(rows, cols, [(u.shape[0], v.shape[0]) for u, v in blocks], (rp, cp), order)
        k = np.broadcast_to(k, rows.shape)
        want = np.zeros(W.shape)
        for m, (u, v) in enumerate(blocks):
            sel = k == m
            want[sel] = u[i[sel], a[sel]] * v[j[sel], b[sel]]
        return W.shape == (rp * cp, sum(u.shape[0] * v.shape[0] for u, v in blocks)) and np.array_equal(W, want)

    cases = [(s, o, two) for s in shapes for o in "CF" for two in (False, True)]
    return exhaustive(ok, cases, describe="matrix_layer / matrix_layer2 against matrix_layer_entry, both orders, "
                      "r', c', r_k, c_k <= 3 and 3 seeded shapes with sides 4..9, one and two input blocks", method="exact")


def _layer_trial(orders: str, nblocks: int, *, sigma: bool = False) -> Trial:
    # the builder against the entry rule first: a broken rule or builder ends the claim here, before the proofs
    require(builder_vs_entry_rule=_layer_builder_check())
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
    """An elementwise (⊙) identity proved on generic real scalars: each entry of any r×c matrices."""
    return symbolic_zero(expr, describe=describe,
                         for_all="every real value of each symbol; as the operations are elementwise (⊙, scalar "
                                 "functions), for every entry of matrices of every size r×c >= 1×1")


