r"""Graph operators in matrix form (do2017 §3, eqs. 9-13, and appendix B, eqs. 14-19).

NetworkX graphs in, sparse matrices out, built through the same pattern-plus-values path as
every other construction (:class:`~isomat.algebra.SparseOperator`): exact with
``backend="sympy"`` (Rational degrees, exact square roots), ``scipy.sparse`` floats with
``"numpy"``, ``cupyx.scipy.sparse`` with ``"cupy"``.

Conventions (documented choices where the paper is silent):

* Node order is ``nodelist`` (default ``list(G.nodes)``); row ``i`` belongs to ``nodelist[i]``.
* :math:`A_{ij}` is the weight of edge :math:`i\to j` (``weight=None``: 1). An undirected edge
  gives :math:`A_{ij}=A_{ji}`; a self-loop gives :math:`A_{ii}` once (as
  ``networkx.adjacency_matrix``).
* Degrees are row sums, :math:`D_{ii}=\sum_j A_{ij}` (do2017 app. B). For directed graphs this is
  the out-degree, so the neighbourhood :math:`\mathcal N(i)` of eq. (9) is the set of
  successors of :math:`i`.
* Symmetric normalizations (:func:`normalized_adjacency`, :func:`renormalized_adjacency`,
  ``laplacian(kind="symmetric")``) need a symmetric :math:`A` and refuse directed graphs with a
  ``ValueError``; the mean aggregation and ``kind="random-walk"`` accept them (do2017 app. B:
  :math:`L = I - D^{-1}A` "in case A is asymmetric").
* A node of degree 0 makes :math:`D^{-1}` undefined (eq. (9) divides by :math:`|\mathcal N(i)| = 0`).
  ``isolated="raise"`` (default) refuses such graphs with a ``ValueError`` naming the nodes;
  ``isolated="zero"`` uses the pseudo-inverse, :math:`0^{-1} := 0`, so the node's row of
  :math:`D^{-1}A` is zero and its normalized-Laplacian diagonal is 1 (``networkx``'s
  ``normalized_laplacian_matrix`` puts 0 there instead).
* :math:`D^{-1/2}` needs nonnegative degrees: a node whose edge weights sum to a negative degree
  (negative edge weights) is refused with a ``ValueError`` naming it, never a NaN entry.
  :math:`\tilde D = D + I` of eq. (18) is at least 1 for nonnegative weights; a node with
  :math:`\tilde D_{ii}\le 0` is refused the same way.
* Multigraphs are refused (``TypeError``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from .. import _validate
from .._types import FieldArray
from ._operator import Rendered
from . import _backend
from ._operator import SparseOperator, as_operator, check_bytes, check_size, render

LAPLACIANS = ("combinatorial", "symmetric", "random-walk")
ISOLATED = ("raise", "zero")


# ---------------------------------------------------------------------------------------------
# reading a graph
# ---------------------------------------------------------------------------------------------
def _read(G: Any, nodelist: Sequence[Any] | None, weight: str | None, field: str):
    """(n, rows, cols, values, directed): the stored entries of A, one per nonzero."""
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx graph, got {type(G).__name__}")
    if G.is_multigraph():
        raise TypeError(f"G must be a simple graph (nx.Graph or nx.DiGraph), got a {type(G).__name__}; "
                        f"collapse parallel edges first (e.g. nx.Graph(G))")
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be an edge-attribute name (str) or None, got {type(weight).__name__}")
    nodes = _nodes(G, nodelist)
    if weight is not None and G.number_of_edges() and not any(weight in d for *_, d in G.edges(data=True)):
        # a misspelled attribute would silently give the unweighted graph
        raise ValueError(f"weight={weight!r} is not an attribute of any edge of G (None for an unweighted graph)")
    if len(nodes) == 0:
        raise ValueError("G has no nodes; expected a graph with at least one node")
    if len(set(nodes)) != len(nodes) or set(nodes) != set(G.nodes):
        raise ValueError(f"nodelist must list every node of G exactly once; got {len(nodes)} entries for "
                         f"{G.number_of_nodes()} nodes")
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    directed = G.is_directed()
    m = G.number_of_edges()
    check_size("graph operator", (n, n), 2 * m + n, field=field)
    src = np.fromiter((index[u] for u, _ in G.edges()), dtype=np.int64, count=m)
    dst = np.fromiter((index[v] for _, v in G.edges()), dtype=np.int64, count=m)
    w = [1 if weight is None else d.get(weight, 1) for _, _, d in G.edges(data=True)]
    # as objects in every field: as_values reads each weight as a number or refuses it by name (float() of the
    # list would read a weight given as text, "2.5", as the number)
    w = _backend.as_values(np.array(w, dtype=object), field, name="edge weights")
    if not directed:
        off = src != dst  # a self-loop is stored once
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        w = _cat(field, w, w[_backend.array_module(field).asarray(off)])
    xp = _backend.array_module(field)
    return n, xp.asarray(src), xp.asarray(dst), w, directed


def _rowsum(rows: Any, vals: Any, n: int, field: str) -> FieldArray:
    xp = _backend.array_module(field)
    if field == "sympy":
        out = np.full(n, sympy.Integer(0), dtype=object)
        np.add.at(out, rows, vals)
        return out
    return xp.bincount(rows, weights=vals, minlength=n)


def _power(d: Any, half: bool, field: str, isolated: str, nodes_of: Callable[[Any], list]) -> FieldArray:
    """D^{-1} (half=False) or D^{-1/2} (half=True) as a vector, with the isolated-node rule."""
    xp = _backend.array_module(field)
    if half:  # D^{-1/2} of a negative degree is no real number (it would be a NaN entry)
        negative = _negative(d, field)
        if negative.any():
            raise ValueError(f"D^-1/2 needs nonnegative degrees; G has nodes whose weighted degree is negative "
                             f"(negative edge weights): {nodes_of(np.nonzero(negative)[0])[:10]}")
    zero = _backend.to_numpy(d == 0).astype(bool)  # elementwise in every field (SymPy's == on an object array)
    if zero.any():
        if isolated == "raise":
            raise ValueError(
                f"G has nodes of degree 0 (isolated, without successors in a directed graph, or with edge weights summing to 0): "
                f"{nodes_of(np.nonzero(zero)[0])[:10]}; D^-1 is undefined there. Pass isolated='zero' "
                f"to use 0 for them, or remove them"
            )
    if field == "sympy":
        return np.array([0 if z else (1 / sympy.sqrt(v) if half else 1 / v) for v, z in zip(d, zero)], dtype=object)
    safe = xp.where(xp.asarray(zero), 1.0, d)
    out = 1.0 / (xp.sqrt(safe) if half else safe)
    return xp.where(xp.asarray(zero), 0.0, out)


def _negative(d: Any, field: str) -> np.ndarray:
    """Where a degree is known to be negative, as a host bool array (a symbolic degree of unknown sign is not)."""
    if field == "sympy":
        return np.array([sympy.sympify(v).is_negative is True for v in d], dtype=bool)
    return _backend.to_numpy(d < 0).astype(bool)


def _names(nodes: list) -> Callable[[Any], list]:
    return lambda idx: [nodes[int(i)] for i in idx]


def _nodes(G: Any, nodelist: Any) -> list:
    if nodelist is None:
        return list(G.nodes)
    if isinstance(nodelist, (str, bytes)) or not hasattr(nodelist, "__iter__"):
        raise TypeError(f"nodelist must be a sequence of the nodes of G, got {type(nodelist).__name__}")
    nodes = list(nodelist)
    for v in nodes:
        try:
            hash(v)
        except TypeError:  # networkx nodes are hashable; an array row is not (e.g. a 2-d array given)
            raise TypeError(f"nodelist must list nodes of G (hashable values), got an entry of type "
                            f"{type(v).__name__}") from None
    return nodes


def _identity(n: int, field: str) -> tuple[Any, Any, Any]:
    xp = _backend.array_module(field)
    i = xp.arange(n)
    return i, i, _backend.rational(xp.ones(n, dtype=xp.int64), 1, field, xp)


def _cat(field: str, *arrays: Any) -> Any:
    if field == "sympy":
        return np.concatenate([np.asarray(a, dtype=object) for a in arrays])
    return _backend.array_module(field).concatenate(arrays)


def _neg(vals: Any) -> Any:
    return -vals


# ---------------------------------------------------------------------------------------------
# public operators
# ---------------------------------------------------------------------------------------------
def adjacency(G: Any, *, nodelist: Sequence[Any] | None = None, weight: str | None = None,
              backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Adjacency matrix :math:`A` of ``G`` (do2017 §3 and app. B).

    :math:`A_{ij}` = weight of edge :math:`i\to j` (1 when ``weight`` is None); symmetric for
    undirected graphs; self-loops stored once on the diagonal.

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
    nodelist : sequence, optional
        Node order of rows and columns; default ``list(G.nodes)``.
    weight : str, optional
        Edge attribute holding the weight (missing attribute: 1).
    backend : {"numpy", "sympy", "cupy"}
    format : {"csr", "csc", "coo", "operator"}
    """
    field = _validate.backend(backend)
    n, rows, cols, vals, _ = _read(G, nodelist, weight, field)
    return render(SparseOperator.build((n, n), rows, cols, vals, field), format)


def mean_aggregation(G: Any, *, nodelist: Sequence[Any] | None = None, weight: str | None = None,
                     isolated: str = "raise", backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""The CLN mean aggregation :math:`\tilde A = D^{-1}A` (do2017, eqs. 9 and 11).

    :math:`\tilde A_{ij} = 1/|\mathcal N(i)|` for :math:`j\in\mathcal N(i)` (unweighted), so that
    :math:`\tilde H = \tilde A H` stacks the neighbour means
    :math:`\tilde h_i = |\mathcal N(i)|^{-1}\sum_{j\in\mathcal N(i)} h_j` of eq. (9). Rows sum to 1.
    For a directed graph :math:`\mathcal N(i)` is the set of successors. See the module notes for
    ``isolated``.
    """
    field = _validate.backend(backend)
    isolated = _validate.choice("isolated", isolated, ISOLATED)
    n, rows, cols, vals, _ = _read(G, nodelist, weight, field)
    d = _rowsum(rows, vals, n, field)
    dinv = _power(d, False, field, isolated, _names(_nodes(G, nodelist)))  # refuses a degree-0 node with 'raise'
    # the entry rule drives the builder (one source with do2017:eq11's proof): Ã_ij = A_ij / D_ii; a row with
    # D_ii = 0 (isolated='zero') is 0, the pseudo-inverse's 0^-1 := 0
    if field == "sympy":
        entries = np.array([0 if dv == 0 else mean_aggregation_entry(v, dv) for v, dv in zip(vals, d[rows])], dtype=object)
    else:
        xp = _backend.array_module(field)
        zero = dinv == 0
        entries = xp.where(zero[rows], 0.0, mean_aggregation_entry(vals, xp.where(zero, 1.0, d)[rows]))
    return render(SparseOperator.build((n, n), rows, cols, entries, field), format)


def normalized_adjacency(G: Any, *, nodelist: Sequence[Any] | None = None, weight: str | None = None,
                         isolated: str = "raise", backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Symmetric normalization :math:`D^{-1/2}AD^{-1/2}` (do2017 app. B, eqs. 17-18).

    Undirected graphs only (``ValueError`` otherwise); see the module notes for ``isolated``.
    """
    field = _validate.backend(backend)
    isolated = _validate.choice("isolated", isolated, ISOLATED)
    n, rows, cols, vals, directed = _read(G, nodelist, weight, field)
    _undirected(directed, "normalized_adjacency")
    s = _power(_rowsum(rows, vals, n, field), True, field, isolated, _names(_nodes(G, nodelist)))
    return render(SparseOperator.build((n, n), rows, cols, s[rows] * vals * s[cols], field), format)


def renormalized_adjacency(G: Any, *, nodelist: Sequence[Any] | None = None, weight: str | None = None,
                           backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""The renormalized operator :math:`\tilde D^{-1/2}\tilde A\tilde D^{-1/2}` of do2017 eq. (18)
    (Kipf and Welling's renormalization trick).

    :math:`\tilde A = A + I`, :math:`\tilde D_{ii} = \sum_j\tilde A_{ij} = D_{ii} + 1`. This is a
    different operator from :math:`I + D^{-1/2}AD^{-1/2}` (claim ``do2017:eq18/renormalization``):
    its eigenvalues lie in :math:`(-1, 1]`, those of :math:`I + D^{-1/2}AD^{-1/2}` in :math:`[0, 2]`.
    Undirected graphs only. :math:`\tilde D^{-1/2}` needs :math:`\tilde D_{ii} > 0`, which nonnegative
    weights give (:math:`\tilde D_{ii}\ge 1`); a node with :math:`\tilde D_{ii}\le 0` (negative edge
    weights) is refused with a ``ValueError`` naming it.
    """
    field = _validate.backend(backend)
    n, rows, cols, vals, directed = _read(G, nodelist, weight, field)
    _undirected(directed, "renormalized_adjacency")
    i, _, ones = _identity(n, field)
    xp = _backend.array_module(field)
    # D̃_ii = Σ_j (A + I)_ij = D_ii + 1
    dt = _rowsum(xp.concatenate([rows, i]), _cat(field, vals, ones), n, field)
    bad = _backend.to_numpy(dt == 0).astype(bool) | _negative(dt, field)
    if bad.any():  # no isolated rule here: D̃_ii = 0 is no isolated node but edge weights summing to -1
        raise ValueError(f"renormalized_adjacency needs D_ii + 1 > 0 at every node (nonnegative edge weights give "
                         f"D_ii + 1 >= 1); G has nodes with D_ii + 1 <= 0 (negative edge weights): "
                         f"{_names(_nodes(G, nodelist))(np.nonzero(bad)[0])[:10]}")
    s = np.array([1 / sympy.sqrt(v) for v in dt], dtype=object) if field == "sympy" else 1.0 / xp.sqrt(dt)
    # the entry rule drives the builder (one source with do2017:eq19's proof): Â_ij = s_i (A_ij + δ_ij) s_j on A's
    # stored entries (a self-loop's A_ii gets its δ_ii there) and on the diagonal of every node without a self-loop
    # (A_ii = 0); the rule runs on the host arrays (its δ is _index.ite, NumPy or SymPy)
    hr, hc = _backend.to_numpy(rows), _backend.to_numpy(cols)
    loop = np.zeros(n, dtype=bool)
    loop[hr[hr == hc]] = True
    extra = np.nonzero(~loop)[0]
    er, ec = np.concatenate([hr, extra]), np.concatenate([hc, extra])
    hs = s if field == "sympy" else _backend.to_numpy(s)
    a = _cat("sympy", vals, np.full(extra.size, sympy.Integer(0), dtype=object)) if field == "sympy" else \
        np.concatenate([_backend.to_numpy(vals), np.zeros(extra.size)])
    entries = renormalized_adjacency_entry(a, er == ec, hs[er], hs[ec])
    if field != "sympy":
        entries = xp.asarray(entries)
        er, ec = xp.asarray(er), xp.asarray(ec)
    return render(SparseOperator.build((n, n), er, ec, entries, field), format)


def laplacian(G: Any, kind: str = "symmetric", *, nodelist: Sequence[Any] | None = None,
              weight: str | None = None, isolated: str = "raise", backend: str = "numpy",
              format: str = "csr") -> Rendered:
    r"""Graph Laplacians (do2017 app. B).

    ``kind="combinatorial"``: :math:`D - A`; ``"symmetric"``: :math:`L = I - D^{-1/2}AD^{-1/2}`
    (undirected only); ``"random-walk"``: :math:`L = I - D^{-1}A` (the paper's choice "in case A
    is asymmetric"; note it is not symmetric, so the orthogonal eigendecomposition
    :math:`L = U\Lambda U^{\mathsf T}` of eq. (14) does not exist in general, claim
    ``do2017:eq14/asymmetric``).
    """
    kind = _validate.choice("kind", kind, LAPLACIANS)
    field = _validate.backend(backend)
    isolated = _validate.choice("isolated", isolated, ISOLATED)
    n, rows, cols, vals, directed = _read(G, nodelist, weight, field)
    d = _rowsum(rows, vals, n, field)
    i, _, ones = _identity(n, field)
    if kind == "combinatorial":
        diag = d
    else:
        if kind == "symmetric":
            _undirected(directed, "laplacian(kind='symmetric')")
            s = _power(d, True, field, isolated, _names(_nodes(G, nodelist)))
            vals = s[rows] * vals * s[cols]
        else:
            vals = vals * _power(d, False, field, isolated, _names(_nodes(G, nodelist)))[rows]
        diag = ones
    xp = _backend.array_module(field)
    op = SparseOperator.build((n, n), xp.concatenate([i, rows]), xp.concatenate([i, cols]),
                              _cat(field, diag, _neg(vals)), field)
    return render(op, format)


def chebyshev_filter(G: Any, theta: Sequence[Any], *, lambda_max: Any = None, kind: str = "symmetric",
                     nodelist: Sequence[Any] | None = None, weight: str | None = None, isolated: str = "raise",
                     backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Chebyshev filter :math:`\sum_{k=0}^{K-1}\theta_k T_k(\tilde L)` (do2017 app. B, eqs. 15-16).

    :math:`\tilde L = 2L/\lambda_{\max} - I`, :math:`T_0 = I`, :math:`T_1 = \tilde L`,
    :math:`T_k = 2\tilde L T_{k-1} - T_{k-2}` (eq. 15's recursion applied to the matrix, which is
    :math:`U T_k(\tilde\Lambda)U^{\mathsf T}`, eq. 16). The stored pattern is that of the
    :math:`(K-1)`-hop neighbourhood.

    Parameters
    ----------
    theta : sequence of K numbers
        Chebyshev coefficients :math:`\theta_0,\dots,\theta_{K-1}` (SymPy numbers for exact).
    lambda_max : number, optional
        Largest eigenvalue of :math:`L`. Default: computed with ``numpy.linalg.eigvalsh`` (float
        fields); required in the exact field (eigenvalues are not rational in general). Kipf and
        Welling's approximation is ``lambda_max=2`` (eq. 18).
    kind : {"symmetric", "combinatorial", "random-walk"}
        Which Laplacian (see :func:`laplacian`).
    """
    field = _validate.backend(backend)
    if isinstance(theta, (str, bytes)) or not isinstance(theta, Sequence) and not hasattr(theta, "__len__"):
        raise TypeError(f"theta must be a sequence of K >= 1 coefficients, got {type(theta).__name__}")
    if len(theta) == 0:
        raise ValueError("theta must have at least one coefficient (K >= 1), got an empty sequence")
    th = _backend.as_values(np.array(list(theta), dtype=object), "sympy" if field == "sympy" else "numpy", name="theta")
    kind = _validate.choice("kind", kind, LAPLACIANS)
    if kind == "symmetric":  # refused by this operator's name, not by the laplacian it would build
        _undirected(_simple_directed(G), "chebyshev_filter(kind='symmetric')")
    L: Any = laplacian(G, kind, nodelist=nodelist, weight=weight, isolated=isolated, backend=field, format="csr")
    n = L.shape[0]
    if lambda_max is None:
        if field == "sympy":
            raise ValueError("lambda_max is required with backend='sympy' (the largest eigenvalue of L is "
                             "not rational in general); pass it, e.g. lambda_max=2 as in do2017 eq. (18)")
        # the dense L, LAPACK's copy of it and its workspace (three n x n float64 arrays; eigvals of a
        # random-walk L, nonsymmetric, works in complex): refused before L.toarray() allocates any
        check_bytes("chebyshev_filter (lambda_max=None)", 3 * n * n * (8 if kind != "random-walk" else 16),
                    f"the eigenvalues of the dense {n}x{n} Laplacian (pass lambda_max, e.g. 2, to skip them)")
        dense = _backend.to_numpy(L.toarray())
        ev = np.linalg.eigvalsh(dense) if kind != "random-walk" else np.linalg.eigvals(dense).real
        lambda_max = float(ev.max())
    if field != "sympy" or not isinstance(lambda_max, sympy.Basic):
        _validate.finite_real("lambda_max", lambda_max)  # NaN or inf would give NaN entries silently
        if lambda_max <= 0:  # the largest eigenvalue of a Laplacian (positive semidefinite, not zero)
            raise ValueError(f"lambda_max must be positive (the largest eigenvalue of L), got {lambda_max!r}")
    lam = _backend.as_values(np.array([lambda_max], dtype=object), "sympy" if field == "sympy" else "numpy",
                             name="lambda_max")[0]
    if lam == 0:
        raise ValueError("lambda_max must be nonzero, got 0 (a graph without edges has L = 0 or I)")
    K = len(th)
    A = as_operator(L, field=field)
    deg = int(np.max(np.bincount(_backend.to_numpy(A.rows), minlength=n))) if A.nnz else 0
    check_size("chebyshev_filter", (n, n), min(n * n, n * max(deg, 1) ** max(K - 1, 0)), field=field)
    if field == "sympy":
        I = sympy.SparseMatrix(sympy.eye(n))  # noqa: E741
        Lt = L * (2 / lam) - I
        coef = [sympy.sympify(t) for t in th]
    else:
        if field == "cupy":
            import cupyx.scipy.sparse as cps

            I = cps.identity(n, format="csr")  # noqa: E741
        else:
            import scipy.sparse as sps

            I = sps.identity(n, format="csr")  # noqa: E741
        Lt = L * (2.0 / float(lam)) - I
        coef = [float(t) if not np.iscomplexobj(t) else complex(t) for t in th]
    T_prev, T = I, Lt
    total = I * coef[0]
    if K > 1:
        total = total + Lt * coef[1]
    for k in range(2, K):
        T_prev, T = T, (Lt @ T) * 2 - T_prev
        total = total + T * coef[k]
    return render(as_operator(total, field=field, name="chebyshev filter"), format)


def spectral_filter(G: Any, g: Callable[[Any], Any], *, kind: str = "symmetric",
                    nodelist: Sequence[Any] | None = None, weight: str | None = None, isolated: str = "raise",
                    backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""The spectral filter :math:`U g(\Lambda) U^{\mathsf T}` of do2017 eq. (14), :math:`L = U\Lambda U^{\mathsf T}`.

    Needs the orthogonal eigendecomposition of a symmetric :math:`L` (``kind`` "symmetric" or
    "combinatorial" of an undirected graph; a directed graph is refused with a ``ValueError``), computed
    with ``eigh`` in float64 (NumPy or CuPy).
    ``g`` maps the eigenvalue array to the filter response, elementwise. The result is dense in
    general (all :math:`n^2` entries are stored). Not available in the exact field (``ValueError``):
    use :func:`chebyshev_filter`, which is exact for polynomial filters.
    """
    field = _validate.backend(backend)
    if field == "sympy":
        raise ValueError("spectral_filter needs a float eigendecomposition; backend must be 'numpy' or 'cupy', "
                         "got 'sympy' (use chebyshev_filter for an exact polynomial filter)")
    if not callable(g):
        raise TypeError(f"g must be a callable on the eigenvalue array, got {type(g).__name__}")
    kind = _validate.choice("kind", kind, ("symmetric", "combinatorial"))
    # eigh reads one triangle of L: the combinatorial Laplacian D - A of a directed graph is not symmetric, and
    # would be read as another matrix (laplacian refuses a directed G only for kind="symmetric", by its own name)
    _undirected(_simple_directed(G), f"spectral_filter(kind={kind!r})")
    L: Any = laplacian(G, kind, nodelist=nodelist, weight=weight, isolated=isolated, backend=field, format="csr")
    n = L.shape[0]
    check_size("spectral_filter", (n, n), n * n, field=field)
    xp = _backend.array_module(field)
    lam, U = xp.linalg.eigh(L.toarray())
    resp = xp.asarray(g(lam))
    if resp.shape != lam.shape:
        raise ValueError(f"g must return one value per eigenvalue, shape {tuple(lam.shape)}, got {tuple(resp.shape)}")
    M = (U * resp[None, :]) @ U.T
    r, c = xp.indices((n, n))
    return render(SparseOperator.build((n, n), r.reshape(-1), c.reshape(-1), M.reshape(-1), field), format)


def multi_attention(attentions: Sequence[Any], d: int, *, order: str = "C", backend: str | None = None,
                    format: str = "csr") -> Rendered:
    r"""Multi-attention stacking (do2017, eq. 13) as an operator on :math:`\operatorname{vec}H`.

    For attention matrices :math:`\Lambda^{(1)},\dots,\Lambda^{(n)}\in\mathbb R^{|V|\times|V|}` and
    :math:`H\in\mathbb R^{|V|\times d}`,
    :math:`\tilde H = [\Lambda^{(1)}H,\dots,\Lambda^{(n)}H]\in\mathbb R^{|V|\times nd}` (column
    concatenation). Returns :math:`M` with :math:`\operatorname{vec}\tilde H = M\operatorname{vec}H`,
    shape :math:`(|V|nd, |V|d)`, one stored entry per nonzero of :math:`\Lambda^{(k)}` and per
    feature column: entry :math:`\Lambda^{(k)}_{il}` maps :math:`H_{lj}` to :math:`\tilde H_{i,kd+j}`.

    Parameters
    ----------
    attentions : sequence of square matrices, all :math:`|V|\times|V|`
    d : int
        Number of feature columns of :math:`H`.
    order : {"C", "F"}
        Vectorization order of :math:`H` and :math:`\tilde H`.
    """
    d = _validate.positive_int("d", d)
    order = _validate.choice("order", order, ("C", "F"))
    if isinstance(attentions, (str, bytes)) or not isinstance(attentions, Sequence) or len(attentions) == 0:
        raise TypeError(f"attentions must be a non-empty sequence of square matrices, got {type(attentions).__name__}")
    field = _backend.resolve_field(backend, *attentions)
    ops = [as_operator(a, field=field, name=f"attentions[{k}]") for k, a in enumerate(attentions)]
    N = ops[0].shape[0]
    for k, op in enumerate(ops):
        if op.shape != (N, N):
            raise ValueError(f"attentions[{k}] has shape {op.shape}, expected {(N, N)} (square, like attentions[0])")
    h = len(ops)
    nnz = sum(op.nnz for op in ops) * d
    shape = (N * h * d, N * d)
    check_size("multi_attention", shape, nnz, field=field)
    xp = _backend.array_module(field)
    j = xp.arange(d, dtype=xp.int64)[None, :]
    rows, cols, vals = [], [], []
    for k, op in enumerate(ops):
        i = op.rows.astype(xp.int64)[:, None]
        l = op.cols.astype(xp.int64)[:, None]  # noqa: E741
        if order == "C":
            rows.append((i * (h * d) + k * d + j).reshape(-1))
            cols.append((l * d + j).reshape(-1))
        else:
            rows.append(((k * d + j) * N + i).reshape(-1))
            cols.append((j * N + l).reshape(-1))
        v = op.values[:, None]
        vals.append(xp.repeat(v, d, axis=1).reshape(-1))  # xp is NumPy in the exact field: object arrays repeat alike
    op = SparseOperator.build(shape, xp.concatenate(rows), xp.concatenate(cols), _cat(field, *vals), field)
    return render(op, format)


# ---------------------------------------------------------------------------------------------
# entry rules (scalar index functions the builders above vectorize; proved about in the do2017 ledger)
# ---------------------------------------------------------------------------------------------
def mean_aggregation_entry(a_ij: Any, d_i: Any) -> Any:
    r"""Entry :math:`\tilde A_{ij} = A_{ij} / D_{ii}` of :func:`mean_aggregation` (do2017, eq. 11),
    for :math:`D_{ii} > 0`: :math:`1/|\mathcal N(i)|` on a neighbour, 0 elsewhere (unweighted).

    Works on Python/SymPy numbers, NumPy arrays and Z3 real terms; tests/test_graph.py compares
    it with the builder, claim ``do2017:eq11`` proves what it aggregates for every graph.
    """
    return a_ij / d_i


def renormalized_adjacency_entry(a_ij: Any, same: Any, s_i: Any, s_j: Any) -> Any:
    r"""Entry :math:`s_i(A_{ij} + \delta_{ij})s_j` of :func:`renormalized_adjacency` (do2017, eq. 18),
    with :math:`s_i = \tilde D_{ii}^{-1/2} = (D_{ii} + 1)^{-1/2}` and ``same`` the truth value of
    :math:`i = j` (a bool, a NumPy bool array, or a Z3 bool)."""
    from .._types import ite

    return s_i * (a_ij + ite(same, 1, 0)) * s_j


def multi_attention_entry(row: Any, col: Any, N: Any, n: Any, d: Any, order: str = "C") -> tuple[Any, ...]:
    r"""The entry rule of :func:`multi_attention` (do2017, eq. 13): returns ``(k, i, l, j, match)``.

    Entry ``(row, col)`` of :math:`M` (:math:`\operatorname{vec}\tilde H = M\operatorname{vec}H`,
    :math:`\tilde H\in\mathbb R^{N\times nd}`, :math:`H\in\mathbb R^{N\times d}`) is
    :math:`\Lambda^{(k)}_{il}` when ``match`` (the row's feature column ``j`` equals the column's),
    else 0. Row ``row`` is entry :math:`(i, kd + j)` of :math:`\tilde H`, column ``col`` entry
    :math:`(l, j')` of :math:`H`, in the vectorization ``order``. Written with ``fdiv``/``fmod``
    so it acts on ints, NumPy arrays and Z3 terms alike.
    """
    from .._types import fdiv, fmod

    if order == "C":
        i, kj = fdiv(row, n * d), fmod(row, n * d)
        l, jc = fdiv(col, d), fmod(col, d)  # noqa: E741
    elif order == "F":
        i, kj = fmod(row, N), fdiv(row, N)
        l, jc = fmod(col, N), fdiv(col, N)  # noqa: E741
    else:
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    k, j = fdiv(kj, d), fmod(kj, d)
    return k, i, l, j, j == jc


def _simple_directed(G: Any) -> bool:
    """A directed simple graph: what a symmetric-only operator refuses by its name before anything is built (what
    is no simple graph is left to :func:`_read`'s TypeError)."""
    import networkx as nx

    return isinstance(G, nx.Graph) and not G.is_multigraph() and G.is_directed()


def _undirected(directed: bool, what: str) -> None:
    if directed:
        raise ValueError(f"{what} needs a symmetric adjacency matrix; G is directed (got a DiGraph). "
                         f"Use mean_aggregation or laplacian(kind='random-walk'), or G.to_undirected()")


__all__ = [
    "adjacency", "chebyshev_filter", "laplacian", "mean_aggregation", "multi_attention",
    "normalized_adjacency", "renormalized_adjacency", "spectral_filter",
]
