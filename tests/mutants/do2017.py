"""do2017's mutants (see tests/mutants/__init__.py): the matrix-layer and graph entry rules the proofs are about,
and the builders and cells the claims check against their references."""

from __future__ import annotations

from . import Mutant
from .factories import argument_plus_one, plus_one, scaled

_LAYER_CLAIMS = ("do2017:eq3", "do2017:eq6", "do2017:eq8", "do2017:sec2.3/lstm", "do2017:eq19", "do2017:fig3",
                 "do2017:beyond/eq5-vector-form")


def _swap_output_entry(entry):
    def broken(row, col, in_shapes, out_shape, order="C"):
        k, i, a, j, b = entry(row, col, in_shapes, out_shape, order)
        return k, i, b, j, a  # the output entry (a, b) read transposed
    return broken


def _swap_input_entry(entry):
    def broken(row, col, in_shapes, out_shape, order="C"):
        k, i, a, j, b = entry(row, col, in_shapes, out_shape, order)
        return k, j, a, i, b  # the input entry (i, j) read transposed
    return broken


def _renorm_one_sided(entry):
    def broken(a_ij, same, s_i, s_j):
        return entry(a_ij, same, s_i, s_i)  # s_i (A_ij + δ_ij) s_i: not symmetric
    return broken


def _attention_wrong_feature(entry):
    def broken(row, col, N, n, d, order="C"):
        k, i, l, j, match = entry(row, col, N, n, d, order)
        return k, l, i, j, match  # Λ(k)[l, i] instead of Λ(k)[i, l]
    return broken


def _read_weights_unsigned(hypothesis):
    """Eq. (4)'s hypothesis without α_i >= 0: Σ_i α_i = 1 alone (an affine, not a convex, combination of the rows)."""
    def broken(al, p, lo, hi, n):
        import z3

        i = z3.Int("i")
        return z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < n), z3.And(lo <= p(i), p(i) <= hi)))
    return broken


def _skip_form_previous_state(skip_form):
    """Rt ⊙ Ht−1 + Zt ⊙ Ht−1: the skip form with H̃t replaced by Ht−1 (the misprint of §2.2's highway update)."""
    return lambda h_prev, h_tilde, r, z: skip_form(h_prev, h_prev, r, z)


def _softmax_unnormalized(softmax_weight):
    """Λij = exp(g_ij): the division by Σ_l exp(g_il) forgotten."""
    return lambda e_j, total: e_j


def _exp_add_as_sum(exp_add_axiom):
    """exp(u + v) = exp(u) + exp(v) in place of exp(u)·exp(v)."""
    def broken(ex, gp, kappa):
        import z3

        from isomat.proofs import prover

        j = z3.Int("j")
        return prover.axiom("exp-add", z3.ForAll([j], ex(gp(j) + kappa) == ex(gp(j)) + ex(kappa), patterns=[gp(j)]),
                            text="exp(u + v) = exp(u) + exp(v) (broken)")
    return broken


_GRAPH_CLAIMS = ("do2017:eq11", "do2017:eq14", "do2017:eq14/asymmetric", "do2017:eq15", "do2017:eq16", "do2017:eq17",
                 "do2017:eq18", "do2017:eq18/renormalization", "do2017:eq18/misprint", "do2017:eq19")


def _rows_scaled(M, f):
    """diag(f) · M for a rendered graph operator (SciPy / CuPy sparse, or SymPy)."""
    if hasattr(M, "tocsr"):
        import numpy as np
        import scipy.sparse as sps

        if type(M).__module__.startswith("cupyx"):
            import cupy as cp
            import cupyx.scipy.sparse as cps

            return (cps.diags(cp.asarray(np.asarray(f, dtype=float))) @ M).asformat(M.format)
        return (sps.diags_array(np.asarray(f, dtype=float)) @ M).asformat(M.format)
    import sympy

    return type(M)(sympy.diag(*f) * sympy.Matrix(M))


def _graph_nodes(G, kwargs):
    return list(kwargs.get("nodelist") or G.nodes)


def _renormalized_isolated_zero(renormalized_adjacency):
    """Â_kk = 0 for an isolated node k (its self-loop of Ã = A + I dropped): right on every graph without one."""
    def broken(G, **kwargs):
        M = renormalized_adjacency(G, **kwargs)
        nodes = _graph_nodes(G, kwargs)
        if all(G.degree(v) for v in nodes):
            return M
        return _rows_scaled(M, [0 if G.degree(v) == 0 else 1 for v in nodes])
    return broken


def _mean_self_loop_twice(mean_aggregation):
    """D_ii counts a self-loop twice (networkx's degree), so a node with a self-loop gets rows A_ij/(D_ii + 1):
    right on every graph without self-loops."""
    def broken(G, **kwargs):
        M = mean_aggregation(G, **kwargs)
        nodes = _graph_nodes(G, kwargs)
        if not any(G.has_edge(v, v) for v in nodes):
            return M
        deg = [len(G[v]) if not G.is_directed() else G.out_degree(v) for v in nodes]
        return _rows_scaled(M, [d / (d + 1) if G.has_edge(v, v) else 1 for v, d in zip(nodes, deg)])
    return broken


def _read_multigraph_collapsed(read):
    """A multigraph read as the simple graph of its distinct edges (parallel edges silently merged) instead of refused."""
    def broken(G, nodelist, weight, field):
        import networkx as nx

        if isinstance(G, nx.Graph) and G.is_multigraph():
            G = nx.DiGraph(G) if G.is_directed() else nx.Graph(G)
        return read(G, nodelist, weight, field)
    return broken


def _read_directed_as_undirected(read):
    """A directed graph read as its undirected version (every edge i → j also j → i): right on undirected graphs."""
    def broken(G, nodelist, weight, field):
        import networkx as nx

        if isinstance(G, nx.Graph) and G.is_directed() and not G.is_multigraph():
            G = G.to_undirected()
        return read(G, nodelist, weight, field)
    return broken


MUTANTS = [
    Mutant("matrix_layer_entry-output-transposed", "entry rule", "isomat.algebra.matrix_layer:matrix_layer_entry",
           _swap_output_entry, _LAYER_CLAIMS + ("do2017:beyond/eq2-contains-eq1",),
           "the weight's row read as output entry (b, a) instead of (a, b)"),
    Mutant("matrix_layer_entry-input-transposed", "entry rule", "isomat.algebra.matrix_layer:matrix_layer_entry",
           _swap_input_entry, _LAYER_CLAIMS, "the weight's column read as input entry (j, i) instead of (i, j)"),
    Mutant("mean_aggregation_entry-doubled", "entry rule", "isomat.algebra.graph:mean_aggregation_entry",
           scaled(), ("do2017:eq11",), "Ã_ij = 2 A_ij / D_ii: rows sum to 2"),
    Mutant("renormalized_adjacency_entry-one-sided", "entry rule", "isomat.algebra.graph:renormalized_adjacency_entry",
           _renorm_one_sided, ("do2017:eq19",), "s_i (A_ij + δ_ij) s_i: the renormalized adjacency is not symmetric"),
    Mutant("multi_attention_entry-transposed", "entry rule", "isomat.algebra.graph:multi_attention_entry",
           _attention_wrong_feature, ("do2017:eq13",), "row i of H̃ reads Λ(k)[l, i] instead of Λ(k)[i, l]"),
    Mutant("matrix_layer_parameter_count-plus-one", "builder", "isomat.algebra.matrix_layer:matrix_layer_parameter_count",
           plus_one(), ("do2017:abstract/parameters", "do2017:sec2.3/ratio"), "one parameter too many"),
    Mutant("chebyshev_filter-doubled", "builder", "isomat.algebra.graph:chebyshev_filter", scaled(),
           ("do2017:eq16", "do2017:eq17", "do2017:eq18"), "the Chebyshev filter matrix scaled by 2"),
    Mutant("spectral_filter-doubled", "builder", "isomat.algebra.graph:spectral_filter", scaled(),
           ("do2017:eq14",), "the spectral filter U g(Λ) Uᵀ scaled by 2"),
    Mutant("matrix_lstm_cell-hidden-doubled", "builder", "isomat.algebra.matrix_layer:matrix_lstm_cell",
           scaled(2, part=0), ("do2017:sec2.3/lstm",), "the matrix LSTM's hidden state scaled by 2"),
    Mutant("matrix_gru_cell-doubled", "builder", "isomat.algebra.matrix_layer:matrix_gru_cell",
           scaled(), ("do2017:appa/gru",), "the matrix GRU's new state scaled by 2"),
    Mutant("matrix_highway-doubled", "builder", "isomat.algebra.matrix_layer:matrix_highway",
           scaled(), ("do2017:sec2.2/highway",), "the matrix highway layer's output scaled by 2"),
    Mutant("dense_product_muls-plus-one", "entry rule", "isomat.proofs.do2017.appb:dense_product_muls",
           plus_one(), ("do2017:appb/complexity",),
           "a dense product counted with one multiplication too many (the cost model of the O(|V|²) proof)"),
    Mutant("convex-read-weights-unsigned", "hypothesis", "isomat.proofs.do2017.sec2:_convex_read_hypothesis",
           _read_weights_unsigned, ("do2017:eq4",),
           "eq. (4)'s read proved without the hypothesis α_ij >= 0 (only Σ_i α_ij = 1): not a convex combination"),
    Mutant("resnet-skip-form-previous-state", "axiom", "isomat.proofs.do2017.sec2:skip_form",
           _skip_form_previous_state, ("do2017:sec2.2/resnet",),
           "§2.2's skip form written Rt ⊙ Ht−1 + Zt ⊙ Ht−1 (H̃t replaced by Ht−1, as in the highway misprint)"),
    Mutant("identity-entry-shifted", "entry rule", "isomat.proofs.do2017.sec3:identity_entry", argument_plus_one("y"),
           ("do2017:eq12",), "the identity Up = Uq = I_|V| of eq. (12) read with its ones one row below the diagonal"),
    Mutant("softmax-weight-unnormalized", "entry rule", "isomat.proofs.do2017.sec3:softmax_weight",
           _softmax_unnormalized, ("do2017:sec3.1/attention",),
           "Λij = exp(g_ij) without the division by Σ_l exp(g_il)"),
    Mutant("exp-add-axiom-as-sum", "axiom", "isomat.proofs.do2017.sec3:_exp_add_axiom", _exp_add_as_sum,
           ("do2017:beyond/attention-constant-terms",), "the axiom exp-add written exp(u + v) = exp(u) + exp(v)"),
    Mutant("renormalized_adjacency-isolated-node", "builder", "isomat.algebra.graph:renormalized_adjacency",
           _renormalized_isolated_zero, ("do2017:eq19", "do2017:eq18/renormalization", "do2017:eq18/misprint"),
           "renormalized_adjacency drops Ã = A + I's diagonal at an isolated node (Â_kk = 0 instead of 1)"),
    Mutant("mean_aggregation-self-loop-twice", "builder", "isomat.algebra.graph:mean_aggregation",
           _mean_self_loop_twice, ("do2017:eq11",),
           "mean_aggregation counts a self-loop twice in D_ii (networkx's degree) instead of once (A_ii)"),
    Mutant("graph-multigraph-collapsed", "builder", "isomat.algebra.graph:_read", _read_multigraph_collapsed,
           _GRAPH_CLAIMS, "every graph operator takes a multigraph, merging its parallel edges, instead of refusing it"),
    Mutant("graph-directed-as-undirected", "builder", "isomat.algebra.graph:_read", _read_directed_as_undirected,
           _GRAPH_CLAIMS, "every graph operator reads a directed graph as undirected (edge i → j also j → i)"),
]
