"""Graph operators (do2017 §3 and app. B) against direct networkx / numpy formulas."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from isomat.algebra import (
    adjacency,
    chebyshev_filter,
    laplacian,
    mean_aggregation,
    multi_attention,
    normalized_adjacency,
    renormalized_adjacency,
    spectral_filter,
)
from isomat.testing import assert_matches_dense, dottest

from .conftest import to_host


@st.composite
def graphs(draw, directed=False, min_nodes=1, max_nodes=8, allow_isolated=True, weighted=False):
    n = draw(st.integers(min_nodes, max_nodes))
    pairs = [(i, j) for i in range(n) for j in range(n) if (directed and i != j) or i < j]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(draw(st.permutations(list(range(n)))))  # node order differs from labels
    for u, v in chosen:
        if weighted:
            g.add_edge(u, v, w=draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])))
        else:
            g.add_edge(u, v)
    if not allow_isolated:
        for v in list(g.nodes):
            if (g.out_degree(v) if directed else g.degree(v)) == 0:
                u = (v + 1) % n
                if u == v:
                    g.add_edge(v, v)
                else:
                    g.add_edge(v, u)
    return g


def dense_adj(g, weight=None):
    return nx.to_numpy_array(g, nodelist=list(g.nodes), weight=weight) if weight else \
        nx.to_numpy_array(g, nodelist=list(g.nodes), weight=None)


@given(graphs(weighted=True), st.booleans())
def test_adjacency_and_combinatorial_laplacian(g, use_weight):
    w = "w" if use_weight else None
    A = adjacency(g, weight=w)
    assert_matches_dense(A, nx.to_numpy_array(g, nodelist=list(g.nodes), weight=w or None) if w else dense_adj(g))
    L = laplacian(g, "combinatorial", weight=w)
    assert_matches_dense(L, nx.laplacian_matrix(g, nodelist=list(g.nodes), weight=w).toarray())
    dottest(A, rng=0)
    dottest(L, rng=1)


@given(graphs(allow_isolated=False, min_nodes=2))
def test_symmetric_normalizations_match_networkx(g):
    L = laplacian(g)
    assert_matches_dense(L, nx.normalized_laplacian_matrix(g, nodelist=list(g.nodes), weight=None).toarray(),
                         rtol=1e-12, atol=1e-12)
    N = normalized_adjacency(g)
    A = dense_adj(g)
    d = A.sum(1)
    assert_matches_dense(N, A / np.sqrt(np.outer(d, d)), rtol=1e-12, atol=1e-14)
    dottest(N, rng=2)


@given(graphs(directed=True, allow_isolated=False, min_nodes=2))
def test_mean_aggregation_is_neighbour_mean(g):
    At = mean_aggregation(g)
    nodes = list(g.nodes)
    H = np.arange(len(nodes) * 3, dtype=float).reshape(-1, 3) ** 1.5
    ref = np.array([np.mean([H[nodes.index(j)] for j in g.successors(i)], axis=0) for i in nodes])
    np.testing.assert_allclose(At @ H, ref, rtol=1e-12)
    np.testing.assert_allclose(At.sum(axis=1), 1.0)
    assert_matches_dense(laplacian(g, "random-walk"), np.eye(len(nodes)) - At.toarray())
    dottest(At, rng=3)


@given(graphs(weighted=True))
def test_renormalized_adjacency(g):
    A = nx.to_numpy_array(g, nodelist=list(g.nodes), weight="w")
    At = A + np.eye(len(A))
    d = At.sum(1)
    R = renormalized_adjacency(g, weight="w")
    assert_matches_dense(R, At / np.sqrt(np.outer(d, d)), rtol=1e-12, atol=1e-14)
    ev = np.linalg.eigvalsh(R.toarray())
    assert ev.min() > -1 - 1e-12 and ev.max() <= 1 + 1e-12
    dottest(R, rng=4)


@given(graphs(allow_isolated=False, min_nodes=2, max_nodes=7), st.lists(st.sampled_from([-1.0, 0.5, 2.0, 0.0]), min_size=1, max_size=5))
def test_chebyshev_and_spectral_filter_against_eigh(g, theta):
    L = nx.normalized_laplacian_matrix(g, nodelist=list(g.nodes), weight=None).toarray()
    lam, U = np.linalg.eigh(L)
    lt = 2 * lam / lam.max() - 1
    ref = (U * np.polynomial.chebyshev.chebval(lt, theta)) @ U.T
    C = chebyshev_filter(g, theta)
    assert_matches_dense(C, ref, rtol=1e-9, atol=1e-9)
    S = spectral_filter(g, lambda x: np.polynomial.chebyshev.chebval(2 * x / x.max() - 1, theta))
    assert_matches_dense(S, ref, rtol=1e-9, atol=1e-9)
    dottest(C, rng=5)
    dottest(S, rng=6)


def test_exact_field():
    g = nx.path_graph(3)
    N = normalized_adjacency(g, backend="sympy")
    s = sympy.sqrt(2) / 2
    assert N == sympy.SparseMatrix([[0, s, 0], [s, 0, s], [0, s, 0]])
    M = mean_aggregation(g, backend="sympy")
    assert M == sympy.SparseMatrix([[0, 1, 0], [sympy.Rational(1, 2), 0, sympy.Rational(1, 2)], [0, 1, 0]])
    R = renormalized_adjacency(g, backend="sympy")
    assert R[0, 0] == sympy.Rational(1, 2) and R[1, 1] == sympy.Rational(1, 3)
    t0, t1 = sympy.symbols("t0 t1")
    C = chebyshev_filter(g, [t0, t1], lambda_max=2, backend="sympy")
    assert (sympy.Matrix(C) - (t0 * sympy.eye(3) - t1 * sympy.Matrix(N))).expand().is_zero_matrix


def test_fields_agree(field):
    g = nx.cycle_graph(5)
    ref = nx.normalized_laplacian_matrix(g, weight=None).toarray()
    L = to_host(laplacian(g, backend=field)).astype(float)
    np.testing.assert_allclose(L, ref, rtol=1e-14, atol=1e-15)
    C = to_host(chebyshev_filter(g, [1, 2, 3], lambda_max=2, backend=field)).astype(float)
    lt = ref - np.eye(5)
    np.testing.assert_allclose(C, np.eye(5) + 2 * lt + 3 * (2 * lt @ lt - np.eye(5)), atol=1e-12)


@given(st.integers(1, 5), st.integers(1, 3), st.integers(1, 3), st.sampled_from("CF"), st.integers(0, 2**16))
def test_multi_attention_is_column_concatenation(N, d, n, order, seed):
    rng = np.random.default_rng(seed)
    Ls = [rng.random((N, N)) * (rng.random((N, N)) < 0.6) for _ in range(n)]
    H = rng.standard_normal((N, d))
    M = multi_attention(Ls, d, order=order)
    ref = np.concatenate([L @ H for L in Ls], axis=1)
    assert M.shape == (N * n * d, N * d)
    np.testing.assert_allclose(M @ H.ravel(order=order), ref.ravel(order=order), rtol=1e-12, atol=1e-12)
    dottest(M, rng=7)


# ---------------------------------------------------------------------------------------------
# isolated nodes, directed graphs, bad input
# ---------------------------------------------------------------------------------------------
def test_isolated_nodes_raise_or_zero():
    g = nx.Graph()
    g.add_nodes_from(["a", "b", "c"])
    g.add_edge("a", "b")
    with pytest.raises(ValueError, match=r"degree 0.*\['c'\].*isolated='zero'"):
        mean_aggregation(g)
    with pytest.raises(ValueError, match="degree 0"):
        laplacian(g)
    M = mean_aggregation(g, isolated="zero").toarray()
    np.testing.assert_allclose(M, [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    L = laplacian(g, isolated="zero").toarray()
    np.testing.assert_allclose(L, [[1, -1, 0], [-1, 1, 0], [0, 0, 1]])
    # renormalized: D~ >= 1, isolated nodes are fine
    np.testing.assert_allclose(renormalized_adjacency(g).toarray()[2], [0, 0, 1])


def test_directed_graphs():
    g = nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)])
    for fn in (normalized_adjacency, renormalized_adjacency):
        with pytest.raises(ValueError, match="symmetric adjacency.*directed"):
            fn(g)
    with pytest.raises(ValueError, match="symmetric adjacency"):
        laplacian(g, "symmetric")
    # D - A of a directed graph is not symmetric: eigh would read its lower triangle as the whole matrix
    for kind in ("combinatorial", "symmetric"):  # named as the user called it, not as the Laplacian it builds
        with pytest.raises(ValueError, match=rf"^spectral_filter\(kind='{kind}'\) needs a symmetric adjacency.*directed"):
            spectral_filter(g, np.exp, kind=kind)
    with pytest.raises(ValueError, match=r"^chebyshev_filter\(kind='symmetric'\) needs a symmetric adjacency"):
        chebyshev_filter(g, [1, 2], lambda_max=2)
    np.testing.assert_allclose(mean_aggregation(g).toarray(), [[0, .5, .5], [0, 0, 1], [1, 0, 0]])
    sink = nx.DiGraph([(0, 1)])
    with pytest.raises(ValueError, match=r"without successors.*\[1\]"):
        mean_aggregation(sink)


@pytest.mark.parametrize("backend", ["numpy", "sympy"])
def test_negative_degrees_are_refused_where_a_square_root_is_taken(backend):
    # D = (-2, -1, 1) at (a, b, c), so D + I = (-1, 0, 2): sqrt of a negative degree used to give NaN entries
    g = nx.Graph([("a", "b", {"w": -2}), ("b", "c", {"w": 1})])
    for call in (lambda: normalized_adjacency(g, weight="w", backend=backend),
                 lambda: laplacian(g, "symmetric", weight="w", backend=backend)):
        with pytest.raises(ValueError, match=r"nonnegative degrees.*negative edge weights\): \['a', 'b'\]"):
            call()
    with pytest.raises(ValueError, match=r"D_ii \+ 1 <= 0 \(negative edge weights\): \['b', 'a'\]"):
        renormalized_adjacency(g, weight="w", nodelist=["c", "b", "a"], backend=backend)
    # D^-1 of a negative degree is a number: the random-walk Laplacian is built, I - D^-1 A by hand
    rw = laplacian(g, "random-walk", weight="w", backend=backend)
    got = rw.toarray() if backend == "numpy" else np.array(sympy.Matrix(rw).tolist(), dtype=object)
    assert (got == np.array([[1, -1, 0], [-2, 1, 1], [0, -1, 1]])).all()


def test_bad_input():
    g = nx.path_graph(3)
    with pytest.raises(TypeError, match="G must be a networkx graph, got ndarray"):
        adjacency(np.eye(3))
    with pytest.raises(TypeError, match="simple graph"):
        adjacency(nx.MultiGraph([(0, 1), (0, 1)]))
    with pytest.raises(ValueError, match="G has no nodes"):
        adjacency(nx.Graph())
    with pytest.raises(ValueError, match="nodelist must list every node"):
        adjacency(g, nodelist=[0, 1])
    with pytest.raises(ValueError, match="kind must be one of"):
        laplacian(g, "normalized")
    with pytest.raises(ValueError, match="isolated must be one of"):
        mean_aggregation(g, isolated="drop")
    with pytest.raises(ValueError, match="theta must have at least one"):
        chebyshev_filter(g, [])
    with pytest.raises(ValueError, match="lambda_max is required with backend='sympy'"):
        chebyshev_filter(g, [1, 2], backend="sympy")
    with pytest.raises(ValueError, match="backend must be 'numpy' or 'cupy', got 'sympy'"):
        spectral_filter(g, np.exp, backend="sympy")
    with pytest.raises(TypeError, match="g must be a callable"):
        spectral_filter(g, 3)
    with pytest.raises(ValueError, match=r"attentions\[1\] has shape \(2, 2\), expected \(3, 3\)"):
        multi_attention([np.eye(3), np.eye(2)], 2)
    with pytest.raises(ValueError, match="d must be a positive integer"):
        multi_attention([np.eye(3)], 0)
    with pytest.raises(TypeError, match="weight must be an edge-attribute name"):
        adjacency(g, weight=3)


def test_nodelist_order():
    g = nx.Graph([("x", "y"), ("y", "z")])
    A = adjacency(g, nodelist=["z", "y", "x"]).toarray()
    np.testing.assert_allclose(A, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    M = mean_aggregation(g, nodelist=["y", "x", "z"]).toarray()
    np.testing.assert_allclose(M, [[0, .5, .5], [1, 0, 0], [1, 0, 0]])


# ---------------------------------------------------------------------------------------------
# entry rules the do2017 ledger proves things about (claims do2017:eq11, eq13, eq19)
# ---------------------------------------------------------------------------------------------
@given(graphs(allow_isolated=False, max_nodes=6))
def test_mean_aggregation_equals_entry_rule(g):
    from isomat.algebra.graph import mean_aggregation_entry

    A = sympy.Matrix(adjacency(g, backend="sympy"))
    d = [sum(A.row(i)) for i in range(A.rows)]
    rule = sympy.Matrix(A.rows, A.cols, lambda i, j: mean_aggregation_entry(A[i, j], d[i]))
    assert sympy.Matrix(mean_aggregation(g, backend="sympy")) == rule


@given(graphs(max_nodes=6))
def test_renormalized_adjacency_equals_entry_rule(g):
    from isomat.algebra.graph import renormalized_adjacency_entry

    A = sympy.Matrix(adjacency(g, backend="sympy"))
    s = [1 / sympy.sqrt(sum(A.row(i)) + 1) for i in range(A.rows)]
    rule = sympy.Matrix(A.rows, A.cols, lambda i, j: renormalized_adjacency_entry(A[i, j], i == j, s[i], s[j]))
    assert (sympy.Matrix(renormalized_adjacency(g, backend="sympy")) - rule).applyfunc(sympy.nsimplify).is_zero_matrix


@given(N=st.integers(1, 4), n=st.integers(1, 3), d=st.integers(1, 3), order=st.sampled_from("CF"),
       seed=st.integers(0, 2**16))
def test_multi_attention_equals_entry_rule(N, n, d, order, seed):
    from isomat.algebra.graph import multi_attention_entry

    rng = np.random.default_rng(seed)
    Ls = [rng.integers(-3, 4, size=(N, N)).astype(float) for _ in range(n)]
    M = to_host(multi_attention(Ls, d, order=order).toarray())
    rows, cols = np.indices(M.shape)
    k, i, l, j, match = multi_attention_entry(rows, cols, N, n, d, order)
    assert ((0 <= k) & (k < n) & (0 <= i) & (i < N) & (0 <= l) & (l < N) & (0 <= j) & (j < d)).all()
    np.testing.assert_array_equal(M, np.where(match, np.stack(Ls)[k, i, l], 0.0))
