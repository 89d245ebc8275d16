"""do2017 binding of isomat's graph operators on the inputs and options the unweighted checks leave out (issue 36).

The binding of ``_common._graph_binding`` builds every operator with ``weight=None``, the default node order and
mostly in the float field. Here the same operators are built on weighted graphs -- non-integer weights (exact
fractions in the exact field), an edge without the weight attribute (weight 1), a self-loop, a node of degree 0 (with
no edge, or with signed weights summing to 0),
string node labels, an undirected and a directed graph -- with a ``nodelist`` that is not ``G``'s node order, in
the exact field (``backend="sympy"``) and in the float field, with every option: ``isolated`` 'zero' and 'raise',
every Laplacian ``kind``, Chebyshev filters with K = 1..4 coefficients (complex ones too) and ``lambda_max`` given
(a SymPy rational, a Python number) or computed, spectral filters of both symmetric kinds (a directed graph refused).
Bad arguments (a nodelist that is a string, no sequence, misses or repeats a node; a weight no edge has) must be
refused with the exception the module documents.

The references are written out from the definitions (isomat.algebra.graph's module notes) by loops over the edges,
with SymPy rationals and square roots; the Chebyshev polynomials are their closed forms (T0 = 1, T1 = x,
T2 = 2x² − 1, T3 = 4x³ − 3x), not the recursion the builder runs. No isomat code is shared. Entries are compared
exactly in the exact field (the difference expanded, or shown zero by SymPy) and to atol 1e-12 in the float
field.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np
import sympy

from ...algebra import graph as G_ops
from ...algebra._backend import to_numpy
from ...algebra._operator import estimate_bytes
from ..engine import device_cached, holds_memory_bound

F = Fraction
#: (directed, nodes in G's insertion order, edges (u, v, weight; None: no attribute), the nodelist passed)
WEIGHTED_GRAPHS = (
    (False, ("c", "a", "b", "d", "e"),
     (("a", "b", F(1, 2)), ("b", "c", F(3, 4)), ("a", "a", F(5, 3)), ("b", "d", None)),  # e: isolated
     ("d", "b", "e", "a", "c")),
    (False, ("p", "q", "r", "s"),
     (("p", "q", F(1, 3)), ("q", "r", F(2)), ("r", "p", F(1, 2)), ("r", "s", F(5, 4)), ("s", "s", F(1, 2))),
     ("s", "r", "q", "p")),
    (True, ("x", "y", "z", "w"),
     (("x", "y", F(2, 3)), ("y", "x", F(1, 4)), ("y", "y", F(3, 2)), ("y", "z", F(5, 2)), ("x", "z", None)),
     ("w", "z", "y", "x")),  # z and w: no successors (degree 0)
    (True, ("u", "v"), (("u", "v", F(7, 5)), ("v", "u", F(1, 3)), ("u", "u", F(1, 6))), ("v", "u")),
    # signed weights: m's row sums to 0 with two stored entries (D^-1 is the pseudo-inverse's 0 there, not 1/0)
    (True, ("m", "n", "o"), (("m", "n", F(2)), ("m", "o", F(-2)), ("n", "o", F(1, 2)), ("o", "m", None)),
     ("o", "m", "n")),
)
#: the Chebyshev filters built per graph: (kind, K, which lambda_max) -- K = 1 (θ_0 only), 2 (no recursion), 3 and 4
#: (the recursion, once and twice); lambda_max per field: a SymPy rational or a Python int (exact), a float or
#: computed by the builder ("eig", float field only)
CHEB_UNDIRECTED = (("combinatorial", 4, 0), ("symmetric", 3, 1), ("random-walk", 2, 1), ("symmetric", 1, 0))
CHEB_DIRECTED = (("random-walk", 4, 1), ("combinatorial", 2, 0), ("random-walk", 1, 1), ("combinatorial", 3, 1))
CHEB_THETAS = {1: (F(3, 2),), 2: (F(1, 2), F(-1)), 3: (F(1, 2), F(-1), F(2)), 4: (F(1), F(1, 3), F(-2), F(3, 4))}
CHEB_LAMBDAS = {"exact": (sympy.Rational(5, 2), 1), "float": (2.5, "eig")}
CHEB_COMPLEX = (0.5 + 1j, -1.0, 0.25j)  # θ of the complex filter (float field, lambda_max 2.5)
SPECTRAL = lambda lam: 1 - 2 * lam + 3 * lam ** 2  # noqa: E731  (g(λ), so U g(Λ) Uᵀ = I − 2L + 3L²)


def _graph(directed: bool, nodes: tuple, edges: tuple) -> Any:
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(nodes)
    for u, v, w in edges:
        g.add_edge(u, v, **({} if w is None else {"w": w}))
    return g


def _isqrt(x: sympy.Expr) -> sympy.Expr:
    return sympy.Integer(0) if x == 0 else 1 / sympy.sqrt(x)


def _cheb(L: sympy.Matrix, lam: Any, theta: tuple) -> sympy.Matrix:
    """Σ_k θ_k T_k(2L/λ − I) with the closed forms of T_0..T_3."""
    n = L.rows
    I = sympy.eye(n)  # noqa: E741
    X = L * (2 / sympy.nsimplify(lam)) - I
    T = (I, X, 2 * X ** 2 - I, 4 * X ** 3 - 3 * X)
    return sum((sympy.Rational(t.numerator, t.denominator) * T[k] for k, t in enumerate(theta)), sympy.zeros(n, n))


def _reference(directed: bool, edges: tuple, nodelist: tuple) -> dict[str, Any]:
    """The operators of the graph from their definitions, exact (SymPy), rows and columns in ``nodelist`` order:
    A_ij = the weight of edge i → j (1 without the attribute; an undirected edge both ways, a self-loop once),
    D_ii = Σ_j A_ij, 0^-1 := 0 (isolated='zero'). A symmetric-only operator of a directed graph is None."""
    pos = {v: k for k, v in enumerate(nodelist)}
    n = len(nodelist)
    A = sympy.zeros(n, n)
    for u, v, w in edges:
        a = sympy.Integer(1) if w is None else sympy.Rational(w.numerator, w.denominator)
        A[pos[u], pos[v]] = a
        if not directed:
            A[pos[v], pos[u]] = a
    d = [sum(A.row(i)) for i in range(n)]
    I = sympy.eye(n)  # noqa: E741
    mean = sympy.Matrix(n, n, lambda i, j: A[i, j] / d[i] if d[i] else 0)
    out: dict[str, Any] = {
        "adjacency": A, "mean_aggregation": mean,
        "laplacian/combinatorial": sympy.diag(*d) - A, "laplacian/random-walk": I - mean,
        "_isolated": any(x == 0 for x in d), "_directed": directed,
    }
    if directed:
        out.update({"normalized_adjacency": None, "renormalized_adjacency": None, "laplacian/symmetric": None})
    else:
        N = sympy.Matrix(n, n, lambda i, j: _isqrt(d[i]) * A[i, j] * _isqrt(d[j]))
        out["normalized_adjacency"] = N
        out["renormalized_adjacency"] = sympy.Matrix(
            n, n, lambda i, j: (A[i, j] + I[i, j]) / sympy.sqrt((d[i] + 1) * (d[j] + 1)))
        out["laplacian/symmetric"] = I - N
    return out


def _equal(got: Any, want: sympy.Matrix, exact: bool) -> bool:
    if got is None:
        return False
    if exact:
        M = sympy.Matrix(got)
        # the exact field holds exact numbers: a float in it is a defect even where it rounds to the right value
        # (SymPy compares Float(1/3) - Rational(1, 3) as 0)
        if M.shape != want.shape or M.has(sympy.Float):
            return False
        for a, b in zip(M, want):
            diff = sympy.expand(a - b)
            if diff != 0 and diff.equals(0) is not True:
                return False
        return True
    want = np.array(want, dtype=complex if np.iscomplexobj(want) else float)
    # a real operator is real: a complex result with zero imaginary parts is not what a float field returns
    return (got.shape == want.shape and np.iscomplexobj(got) == np.iscomplexobj(want)
            and bool(np.allclose(got, want, rtol=0, atol=1e-12)))


FORMATS = ("csr", "csc", "coo", "operator")  # the builds take them in turn


def _dense(M: Any, exact: bool, fmt: str = "csr", field: str = "numpy") -> Any:
    """The matrix a build returned in ``fmt``, densified: a SciPy matrix of that format (a SymPy matrix in the exact
    field), or the operator's (row, col, value) triplets summed (format "operator", its field ``field``); None when
    the build returned something else."""
    if fmt == "operator":
        if not all(hasattr(M, a) for a in ("rows", "cols", "values", "shape")) or getattr(M, "field", None) != field:
            return None
        out = sympy.zeros(*M.shape) if exact else np.zeros(M.shape, dtype=np.asarray(to_numpy(M.values)).dtype)
        for r, c, v in zip(to_numpy(M.rows).tolist(), to_numpy(M.cols).tolist(), to_numpy(M.values).tolist()):
            out[r, c] += v
        return out
    if exact:
        return M
    if getattr(M, "format", None) != fmt:
        return None
    return np.asarray(to_numpy(M.toarray()))


def _cases(directed: bool, field: str) -> list[tuple[str, str, dict, Any]]:
    """(operator of GRAPH_OPS, label, keywords, key of the reference or a callable of the references) per build."""
    exact = field == "sympy"
    kinds = ("combinatorial", "random-walk") if directed else ("combinatorial", "symmetric", "random-walk")
    cases = [("adjacency", "adjacency", {}, "adjacency"),
             ("renormalized_adjacency", "renormalized_adjacency", {}, "renormalized_adjacency")]
    for iso in ("zero", "raise"):
        cases += [("mean_aggregation", f"mean_aggregation isolated={iso}", {"isolated": iso}, "mean_aggregation"),
                  ("normalized_adjacency", f"normalized_adjacency isolated={iso}", {"isolated": iso},
                   "normalized_adjacency")]
        cases += [(f"laplacian/{k}", f"laplacian kind={k} isolated={iso}", {"kind": k, "isolated": iso},
                   f"laplacian/{k}") for k in kinds]
    for k, K, which in CHEB_DIRECTED if directed else CHEB_UNDIRECTED:
        theta, lam = CHEB_THETAS[K], CHEB_LAMBDAS["exact" if exact else "float"][which]
        # exact: a list of SymPy rationals; float: a NumPy array (a sequence only by its __len__)
        th = [sympy.Rational(t.numerator, t.denominator) for t in theta] if exact else np.array([float(t) for t in theta])
        kw = {"theta": th, "kind": k, "isolated": "zero", "lambda_max": None if lam == "eig" else lam}
        cases.append(("chebyshev_filter", f"chebyshev_filter kind={k} K={K} lambda_max={lam}", kw,
                      (f"laplacian/{k}", lam, theta)))
    if not exact:  # complex coefficients: the filter is complex (real ones give a real filter, checked above)
        kw = {"theta": [complex(t) for t in CHEB_COMPLEX], "kind": kinds[-1], "isolated": "zero", "lambda_max": 2.5}
        cases.append(("chebyshev_filter", f"chebyshev_filter kind={kinds[-1]} complex theta", kw,
                      (f"laplacian/{kinds[-1]}", "complex", CHEB_COMPLEX)))
        cases += [("spectral_filter", f"spectral_filter kind={k}", {"g": SPECTRAL, "kind": k, "isolated": "zero",
                                                                    "format": fmt},
                   (f"laplacian/{k}", "spectral")) for k, fmt in (("combinatorial", "operator"), ("symmetric", "coo"))]
    return cases


def _want(ref: dict, key: Any) -> Any:
    """The reference of one case (None: the operator must refuse the graph)."""
    if isinstance(key, str):
        return ref[key]
    L = ref[key[0]]
    if L is None:
        return None
    if key[1] == "spectral":  # None for a directed graph: eigh needs a symmetric L, whatever the kind
        return None if ref["_directed"] else sympy.eye(L.rows) - 2 * L + 3 * L ** 2
    lam = key[1]
    if lam == "complex":
        return _cheb_float(L, 2.5, key[2])
    if lam == "eig":  # lambda_max computed by the builder: the reference's largest eigenvalue (NumPy)
        dense = np.array(L, dtype=float)
        ev = np.linalg.eigvalsh(dense) if key[0] != "laplacian/random-walk" else np.linalg.eigvals(dense).real
        return _cheb_float(L, float(ev.max()), key[2])
    return _cheb(L, lam, key[2])


def _cheb_float(L: sympy.Matrix, lam: float, theta: tuple) -> sympy.Matrix:
    X = np.array(L, dtype=float) * (2 / lam) - np.eye(L.rows)
    I = np.eye(L.rows)  # noqa: E741
    T = (I, X, 2 * X @ X - I, 4 * X @ X @ X - 3 * X)
    return sum((t if isinstance(t, complex) else float(t)) * T[k] for k, t in enumerate(theta))


def _build(op: str, g: Any, nodelist: tuple, field: str, kw: dict) -> Any:
    common = {"nodelist": list(nodelist), "weight": "w", "backend": field}
    if op.startswith("laplacian/"):
        return G_ops.laplacian(g, **common, **kw)
    if op == "chebyshev_filter":
        return G_ops.chebyshev_filter(g, **common, **kw)
    if op == "spectral_filter":
        return G_ops.spectral_filter(g, **common, **kw)
    return getattr(G_ops, op)(g, **common, **kw)


def _defaults_bad(field: str) -> list[tuple[str, str, str]]:
    """Each operator called with its defaults only (unweighted, G's node order, kind 'symmetric', isolated 'raise',
    lambda_max computed; the numpy field when ``field`` is numpy) on the undirected graphs of WEIGHTED_GRAPHS: equal
    to the definition, or refused where a node has degree 0."""
    bad = []
    kw = {} if field == "numpy" else {"backend": field}
    calls = {"adjacency": lambda g: G_ops.adjacency(g, **kw),
             "mean_aggregation": lambda g: G_ops.mean_aggregation(g, **kw),
             "normalized_adjacency": lambda g: G_ops.normalized_adjacency(g, **kw),
             "renormalized_adjacency": lambda g: G_ops.renormalized_adjacency(g, **kw),
             "laplacian/symmetric": lambda g: G_ops.laplacian(g, **kw),
             "chebyshev_filter": lambda g: G_ops.chebyshev_filter(g, [float(t) for t in CHEB_THETAS[3]], **kw),
             "spectral_filter": lambda g: G_ops.spectral_filter(g, SPECTRAL, **kw)}
    for directed, nodes, edges, _ in WEIGHTED_GRAPHS:
        if directed:
            continue
        g = _graph(directed, nodes, edges)
        ref = _reference(directed, tuple((u, v, None) for u, v, _ in edges), nodes)
        L = ref["laplacian/symmetric"]
        for op, call in calls.items():
            if op == "chebyshev_filter":
                want = _cheb_float(L, float(np.linalg.eigvalsh(np.array(L, dtype=float)).max()), CHEB_THETAS[3])
            elif op == "spectral_filter":
                want = _want(ref, ("laplacian/symmetric", "spectral"))
            else:
                want = ref[op]
            refuse = ref["_isolated"] and op not in ("adjacency", "renormalized_adjacency")
            try:
                got = _dense(call(g), False)
            except ValueError:
                if not refuse:
                    bad.append((op, "defaults", f"refused the unweighted graph {nodes} called with its defaults"))
                continue
            if refuse or not _equal(got, want, False):
                bad.append((op, "defaults", f"{'took' if refuse else 'differs on'} the unweighted graph {nodes} called "
                                            "with its defaults"))
    return bad


def _says_why(message: str, op: str, kw: dict, symmetric_only: bool, degree_zero: list) -> bool:
    """Whether a refusal names what it refuses: a symmetric-only operator given a directed graph names itself as the
    user called it; a D^-1 of a node of degree 0 (isolated='raise') names the first such node and the way out."""
    if symmetric_only:
        kind = kw.get("kind")
        base = op.split("/")[0]  # every operator that takes a kind names it as called
        called = f"{base}(kind={kind!r})" if base in ("laplacian", "chebyshev_filter", "spectral_filter") else op
        return f"{called} needs a symmetric adjacency matrix" in message
    return "degree 0" in message and repr(degree_zero[0]) in message and "isolated='zero'" in message


def _refusals() -> list[tuple[str, str, Any, type, str]]:
    """(operator, what, a call, the exception it must raise, what its message names): bad arguments every operator
    refuses (the module's rules: a nodelist lists every node of G once, as a sequence; the weight names an edge
    attribute; no multigraph; isolated and kind are one of their documented values)."""
    g = nx.Graph([("a", "b"), ("b", "c")])
    calls = []
    for op in ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency", "laplacian/symmetric"):
        fn = G_ops.laplacian if op.startswith("laplacian/") else getattr(G_ops, op)
        bad_args = [("a nodelist given as a string of the node names", {"nodelist": "abc"}, TypeError, "nodelist"),
                    ("a nodelist that is no sequence (an int)", {"nodelist": 3}, TypeError, "nodelist"),
                    ("a nodelist with an unhashable entry", {"nodelist": [["a"], "b", "c"]}, TypeError, "nodelist"),
                    ("a nodelist missing a node", {"nodelist": ["a", "b"]}, ValueError, "nodelist"),
                    ("a nodelist listing a node twice", {"nodelist": ["a", "b", "b", "c"]}, ValueError, "nodelist"),
                    ("a weight attribute no edge has", {"weight": "w"}, ValueError, "weight"),
                    ("a weight that is no attribute name", {"weight": 1}, TypeError, "weight")]
        if op not in ("adjacency", "renormalized_adjacency"):  # the operators that take D^-1 or D^-1/2
            bad_args += [("an unknown isolated rule", {"isolated": "skip"}, ValueError, "isolated must be one of"),
                         ("an isolated rule that is no string", {"isolated": 0}, TypeError, "isolated must be one of")]
        if op.startswith("laplacian/"):
            bad_args += [("an unknown kind", {"kind": "normalized"}, ValueError, "kind must be one of"),
                         ("a kind that is no string", {"kind": None}, TypeError, "kind must be one of")]
        calls += [(op, what, lambda fn=fn, kw=kw: fn(g, **kw), exc, names) for what, kw, exc, names in bad_args]
        # edge weights that are no numbers: named as the edge weights, never read as numbers or failed inside NumPy
        for what, w, kw, exc, names in (("an edge weight given as text", "2.5", {}, TypeError, "edge weights must hold numbers"),
                                        ("a NaN edge weight in the exact field", float("nan"), {"backend": "sympy"}, ValueError,
                                         "edge weights: nan has no exact value")):
            h = nx.Graph([("a", "b", {"w": 1}), ("b", "c", {"w": w})])
            calls.append((op, what, lambda fn=fn, h=h, kw=kw: fn(h, weight="w", **kw), exc, names))
    # negative edge weights: D^-1/2 of a negative degree (and D̃^-1/2 of D̃_ii = D_ii + 1 <= 0) is no real number,
    # so the operators that take it refuse the graph naming its nodes in nodelist order, in both fields -- never a
    # NaN entry. In h, D = (-2, -1, 1) at (a, b, c), so D̃ = (-1, 0, 2): one negative D̃_ii and one zero
    h = nx.Graph([("a", "b", {"w": -2}), ("b", "c", {"w": 1})])
    order = ["c", "b", "a"]  # not G's order, so names taken in G's order would name other nodes
    for field in ("numpy", "sympy"):
        for op, fn, names in (
                ("normalized_adjacency", G_ops.normalized_adjacency, "negative (negative edge weights): ['b', 'a']"),
                ("laplacian/symmetric", G_ops.laplacian, "negative (negative edge weights): ['b', 'a']"),
                ("renormalized_adjacency", G_ops.renormalized_adjacency, "D_ii + 1 <= 0 (negative edge weights): ['b', 'a']")):
            calls.append((op, f"negative edge weights in the {field} field", lambda fn=fn, field=field:
                          fn(h, weight="w", nodelist=order, backend=field), ValueError, names))
    cheb = G_ops.chebyshev_filter
    for what, args, kw, exc, names in (
            ("theta given as a string", ("abc",), {}, TypeError, "theta must be a sequence"),
            ("theta that is no sequence (an int)", (5,), {}, TypeError, "theta must be a sequence"),
            ("an empty theta", ([],), {}, ValueError, "theta must have at least one coefficient"),
            ("a theta with a string among its numbers", ([1, "2.5"],), {}, TypeError, "theta must hold numbers"),
            ("lambda_max NaN", ([1, 2],), {"lambda_max": float("nan")}, ValueError, "lambda_max"),
            ("lambda_max infinite", ([1, 2],), {"lambda_max": float("inf")}, ValueError, "lambda_max"),
            ("lambda_max 0", ([1, 2],), {"lambda_max": 0}, ValueError, "lambda_max must be positive"),
            ("lambda_max negative", ([1, 2],), {"lambda_max": -1.5}, ValueError, "lambda_max must be positive"),
            ("lambda_max a string", ([1, 2],), {"lambda_max": "2"}, TypeError, "lambda_max"),
            ("no lambda_max in the exact field", ([1, 2],), {"backend": "sympy"}, ValueError,
             "lambda_max is required with backend='sympy'"),
            ("an exact lambda_max 0", ([1, 2],), {"backend": "sympy", "lambda_max": sympy.Integer(0)}, ValueError,
             "lambda_max must be nonzero"),
            ("a negative float lambda_max in the exact field", ([1, 2],), {"backend": "sympy", "lambda_max": -1.5},
             ValueError, "lambda_max must be positive")):
        calls.append(("chebyshev_filter", what, lambda args=args, kw=kw: cheb(g, *args, **kw), exc, names))
    calls.append(("chebyshev_filter", "an unknown kind", lambda: cheb(g, [1, 2], lambda_max=2, kind="normalized"),
                  ValueError, "kind must be one of"))
    dg = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    calls.append(("chebyshev_filter", "a directed graph with kind='symmetric'", lambda: cheb(dg, [1, 2], lambda_max=2),
                  ValueError, "chebyshev_filter(kind='symmetric') needs a symmetric adjacency matrix"))
    calls.append(("laplacian/symmetric", "a directed graph", lambda: G_ops.laplacian(dg, "symmetric"), ValueError,
                  "laplacian(kind='symmetric') needs a symmetric adjacency matrix"))
    calls.append(("spectral_filter", "the exact field (no exact eigendecomposition)",
                  lambda: G_ops.spectral_filter(g, SPECTRAL, backend="sympy"), ValueError,
                  "spectral_filter needs a float eigendecomposition"))
    return calls


def _symbolic_weights_bad() -> list[tuple[str, str, str]]:
    """The operators that take D^-1/2 in the exact field, on an edge weight that is an unrestricted SymPy symbol w
    (path a -w- b -1- c): built, never refused by the sign test (w + 1 is of unknown sign, not negative), with the
    entry (a, b) of the definition written out: D_a^-1/2 w D_b^-1/2, D = (w, w + 1, 1), or D + I for the renormalized
    operator (one square root per node: sqrt(D_a D_b) differs from sqrt(D_a) sqrt(D_b) for a complex w)."""
    w = sympy.Symbol("w")
    h = nx.Graph([("a", "b", {"w": w}), ("b", "c", {"w": 1})])
    bad = []
    for op, call, want in (
            ("normalized_adjacency", lambda: G_ops.normalized_adjacency(h, weight="w", backend="sympy"),
             w / (sympy.sqrt(w) * sympy.sqrt(w + 1))),
            ("laplacian/symmetric", lambda: G_ops.laplacian(h, "symmetric", weight="w", backend="sympy"),
             -w / (sympy.sqrt(w) * sympy.sqrt(w + 1))),
            ("renormalized_adjacency", lambda: G_ops.renormalized_adjacency(h, weight="w", backend="sympy"),
             w / (sympy.sqrt(w + 1) * sympy.sqrt(w + 2)))):
        try:
            got = call()[0, 1]
        except Exception as e:  # noqa: BLE001  (a refusal or a crash: either is a defect here)
            bad.append((op, "symbolic", f"an unrestricted symbolic edge weight: raised {type(e).__name__}: {e}"))
            continue
        if sympy.simplify(got - want) != 0:
            bad.append((op, "symbolic", f"an unrestricted symbolic edge weight: entry (a, b) is {got}, not {want}"))
    return bad


@device_cached
def graph_options_bad(field: str = "numpy") -> tuple:
    """Every (operator, 'weighted', what) where an operator disagrees with its definition on WEIGHTED_GRAPHS, built
    in the exact field and in ``field`` (the run's float field): entries, a directed graph not refused by a
    symmetric-only operator, a node of degree 0 not refused with isolated='raise' (where D^-1 is taken); every
    operator called with its defaults (:func:`_defaults_bad`); every refusal names what it refuses (the operator that
    needs a symmetric matrix, the first node of degree 0); and every bad argument of :func:`_refusals` refused with its
    exception, naming the argument."""
    bad = []
    for directed, nodes, edges, nodelist in WEIGHTED_GRAPHS:
        g = _graph(directed, nodes, edges)
        ref = _reference(directed, edges, nodelist)
        degree_zero = [v for i, v in enumerate(nodelist) if sum(ref["adjacency"].row(i)) == 0]  # in nodelist order
        wants: dict = {}  # the references by value: the fields share those with the same lambda_max
        for f in ("sympy", field):
            exact = f == "sympy"
            where = f"{'directed' if directed else 'undirected'} weighted graph {nodes}, nodelist {nodelist}, field {f}"
            for idx, (op, label, kw, key) in enumerate(_cases(directed, f)):
                fmt = kw.get("format", FORMATS[idx % len(FORMATS)])
                vkey = key if isinstance(key, str) or key[1] in ("eig", "spectral", "complex") else (key[0], sympy.nsimplify(key[1]), key[2])
                if vkey not in wants:
                    wants[vkey] = _want(ref, key)
                want = wants[vkey]
                takes_d_inverse = not label.startswith(("adjacency", "renormalized", "laplacian kind=combinatorial",
                                                        "chebyshev_filter kind=combinatorial",
                                                        "spectral_filter kind=combinatorial"))
                refuse = want is None or (kw.get("isolated") == "raise" and ref["_isolated"] and takes_d_inverse)
                try:
                    got = _dense(_build(op, g, nodelist, f, {**kw, "format": fmt}), exact, fmt, f)
                except ValueError as exc:
                    if not refuse:
                        bad.append((op, "weighted", f"{label} refused a graph it takes: {where}"))
                    elif not _says_why(str(exc), op, kw, want is None, degree_zero):
                        bad.append((op, "weighted", f"{label} refused without naming {'itself' if want is None else 'the nodes of degree 0'}: "
                                                    f"{where}: {exc}"))
                    continue
                if refuse:
                    bad.append((op, "weighted", f"{label} took a graph it must refuse: {where}"))
                elif not _equal(got, want, exact):
                    bad.append((op, "weighted", f"{label}, format {fmt}, differs from the definition: {where}"))
    bad += _defaults_bad(field)
    # the memory bound of chebyshev_filter: at most min(n^2, n deg^(K-1)) entries (deg: the most stored entries of a
    # row of L, K - 1 hops); the path a-b-c has deg 3 and K = 3, so the bound is n^2 = 9 entries
    g = nx.Graph([("a", "b"), ("b", "c")])
    if not holds_memory_bound(lambda: G_ops.chebyshev_filter(g, [1, 2, 3], lambda_max=2),
                              estimate_bytes(9, 3, value_bytes=8, staging=True), "chebyshev_filter"):
        bad.append(("chebyshev_filter", "memory", "not built at its bound of min(n^2, n deg^(K-1)) entries, or not "
                                                  "refused one byte below it"))
    bad += _symbolic_weights_bad()
    for op, what, call, exc, names in _refusals():
        try:
            call()
            bad.append((op, "refusal", f"took {what}"))
        except exc as e:
            if names not in str(e):
                bad.append((op, "refusal", f"{what}: the message does not name {names!r}: {e}"))
        except Exception as e:  # noqa: BLE001  (another exception is a defect too: name it)
            bad.append((op, "refusal", f"{what}: raised {type(e).__name__}, not {exc.__name__}"))
    return tuple(bad)
