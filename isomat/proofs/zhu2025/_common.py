"""zhu2025: helpers shared between sections -- direct loop references written from the printed
formulas (no code shared with ``isomat.algebra``), Z3 proof wrappers, exact generic kernels."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import sympy

from ...errors import CheckError
from .. import prover
from ...algebra._backend import to_numpy
from ..engine import all_of, builder_check, device_cached, exhaustive
from ..prover import fdiv, fmod

BASE = 1000


def _proved(goal, *, assuming, for_all, describe, sizes, lemmas=(), axioms=(), fallback=None):
    """One Z3 proof as a trial: ``proved`` when Z3 discharges it; when Z3 says ``unknown`` the
    ``fallback`` exhaustive trial stands (never a proof); a counterexample fails the trial.
    ``sizes`` are the symbolic sizes the statement quantifies (empty: a size-free identity)."""
    pf = prover.prove(goal, assuming=assuming, for_all=for_all, lemmas=lemmas, axioms=axioms, sizes=sizes)
    if fallback is None:
        return pf.trial(describe)
    return pf.or_else(fallback, describe)


def _settle(build, fallback):
    """The proof trials ``build()`` makes (``_proved`` calls without fallback, which raise CheckError when Z3 says
    ``unknown``, as does a lemma that is not proved): ``all_of`` them when every one is proved; the first failing one
    when Z3 found a (checked) counterexample; otherwise ``fallback()``, the exhaustive trial, with the unsettled
    attempt noted -- an unknown is never a proof."""
    try:
        steps = build()
    except CheckError as exc:
        return fallback().with_evidence(proof_attempt={"status": "unknown", "reason": str(exc)})
    steps = list(steps) if isinstance(steps, (list, tuple)) else [steps]
    failed = [t for t in steps if not t.ok]
    if failed:
        return failed[0]
    return all_of(*steps) if len(steps) > 1 else steps[0]


def _symbolic_kernel(r1: int, r2: int) -> list:
    return [[sympy.Symbol(f"k{a}{b}") for b in range(r2)] for a in range(r1)]


def _generic_kernel(r1: int, r2: int) -> np.ndarray:
    return np.array([[BASE ** (a * r2 + b) for b in range(r2)] for a in range(r1)], dtype=object)


def _dense(M) -> np.ndarray:
    """Exact dense object array of an isomat result (SymPy or SciPy)."""
    if isinstance(M, sympy.MatrixBase):
        return np.array(M.tolist(), dtype=object)
    return np.array(M.toarray().tolist(), dtype=object)



# ---------------------------------------------------------------------------------------------
# naive references (direct loops)
# ---------------------------------------------------------------------------------------------
def naive_conv2d(X, K, stride=(1, 1), pad=(0, 0), dil=(1, 1), circular=False):
    """Y[o1,o2] = sum_{a,b} K[a,b] X[o1 s1 - p1 + a d1, o2 s2 - p2 + b d2] by loops."""
    H, W = len(X), len(X[0])
    r1, r2 = len(K), len(K[0])
    o1 = (H + 2 * pad[0] - dil[0] * (r1 - 1) - 1) // stride[0] + 1
    o2 = (W + 2 * pad[1] - dil[1] * (r2 - 1) - 1) // stride[1] + 1
    Y = [[0] * o2 for _ in range(o1)]
    for i in range(o1):
        for j in range(o2):
            acc = 0
            for a in range(r1):
                for b in range(r2):
                    u = i * stride[0] - pad[0] + a * dil[0]
                    v = j * stride[1] - pad[1] + b * dil[1]
                    if circular:
                        u, v = u % H, v % W
                    elif not (0 <= u < H and 0 <= v < W):
                        continue
                    acc += K[a][b] * X[u][v]
            Y[i][j] = acc
    return Y


def naive_conv_matrix(H, W, K, **kw) -> np.ndarray:
    """Columns are naive_conv2d of the unit images (row-major vec)."""
    cols = []
    for c in range(H * W):
        E = [[1 if u * W + v == c else 0 for v in range(W)] for u in range(H)]
        cols.append([y for row in naive_conv2d(E, K, **kw) for y in row])
    return np.array(cols, dtype=object).T


def a1_matrix(H, W, K):
    """Appendix A.1's entry formula, 1-based as printed: W_{r,c} = k_{p,q} for r = (u-1)W + v,
    c = (u+p-1)W + (v+q), out-of-bounds columns dropped (zero padding)."""
    b = (len(K) - 1) // 2
    M = np.zeros((H * W, H * W), dtype=object)
    for u in range(1, H + 1):
        for v in range(1, W + 1):
            for p in range(-b, b + 1):
                for q in range(-b, b + 1):
                    if 1 <= u + p <= H and 1 <= v + q <= W:
                        r = (u - 1) * W + v
                        c = (u + p - 1) * W + (v + q)
                        M[r - 1, c - 1] += K[p + b][q + b]
    return M


def naive_rnn(U, V, xs):
    """h_t = U x_t + V h_{t-1}, h_0 = 0 (SymPy matrices, non-commutative products kept)."""
    h = sympy.zeros(U.rows, 1)
    out = []
    for x in xs:
        h = U * x + V * h
        out.append(h)
    return out


def naive_avgpool(X, p):
    H, W = len(X), len(X[0])
    return [[sum(X[i * p + a][j * p + b] for a in range(p) for b in range(p)) * Fraction(1, p * p)
             for j in range(W // p)] for i in range(H // p)]


def naive_maxpool(X, p):
    H, W = len(X), len(X[0])
    return [[max(X[i * p + a][j * p + b] for a in range(p) for b in range(p)) for j in range(W // p)]
            for i in range(H // p)]


def naive_wconv(m, n, K, s, P=None) -> np.ndarray:
    """§4.2.1's W_conv by loops, as printed: row p (0-based) holds k_{ij} at column (in + j) + ps;
    P rows (default the printed ⌊(L − max N_0)/s⌋ + 1); columns ≥ L are dropped."""
    r, L = len(K), m * n
    if P is None:
        P = (L - ((r - 1) * n + r - 1)) // s + 1
    M = np.zeros((P, L), dtype=object)
    for p in range(P):
        for i in range(r):
            for j in range(r):
                c = i * n + j + p * s
                if c < L:
                    M[p, c] += K[i][j]
    return M


def _flat(Y):
    return [y for row in Y for y in row]


def _sizes(bound):
    return sorted(itertools.product(range(1, bound + 1), repeat=2), key=lambda c: (c[0] * c[1], c))


# ---------------------------------------------------------------------------------------------
# §4.1 Data2Matrix
# ---------------------------------------------------------------------------------------------
def _rowmajor_pixel(k, n):
    """0-based pixel (row, column) at position k of the row-major vec of an image with n columns."""
    return fdiv(k, n), fmod(k, n)


def _colmajor_pixel(k, m):
    """0-based pixel (row, column) at position k of the column-major vec of an image with m rows."""
    return fmod(k, m), fdiv(k, m)



def _sym(name, r, c, commutative=True):
    return sympy.Matrix(r, c, lambda i, j: sympy.Symbol(f"{name}{i}{j}"))


# ---------------------------------------------------------------------------------------------
# binding checks: isomat's builders against the entry rules the claims prove
# ---------------------------------------------------------------------------------------------
# Each returns one engine.builder_check (exhaustive up to a stated bound, then seeded random larger sizes); a claim
# passes it to ``decide`` as a keyword, so a builder that disagrees with the proved rule makes the
# claim an error -- the proof certifies the rule, this check ties the rule to the code users run.
# Cached per process and per field (functools caches of isomat are cleared by the mutation suite). The float builds
# run in the field the claim passes (``float_backend()``: on the GPU under `isomat verify --backend cupy`); the
# results come back to the host (``_host``) and are compared there with references written by loops / entry rules.
_RANDOM_SEED = 20250601  # zhu_rows_check's; the builders' checks in _builders draw from their own seed


def _host(M) -> np.ndarray:
    """Host NumPy copy of a dense or sparse float result of either field (SciPy array or cupyx matrix)."""
    return np.asarray(to_numpy(M.toarray() if hasattr(M, "toarray") else M))


# The builders' binding checks (exhaustive, random from just above the bound, and at the sizes users run,
# every option and size-threshold path) live in _builders, each an engine.builder_check that a claim passes to decide.
from ._builders import (  # noqa: E402, F401  (re-exported to the sections)
    attention_builder_check,
    avgpool_builder_check,
    conv_builder_check,
    pool_builder_check,
    rnn_builder_check,
    zhu_conv_builder_check,
)


@device_cached
def zhu_rows_check():
    """isomat.algebra.zhu_conv_rows (the printed P, which zhu_conv_matrix uses) equals ⌊(mn − max N_0)/s⌋ + 1 written
    out, max N_0 = (r − 1)n + r − 1: every m, n <= 6, r <= min(m, n), s <= 4; then 20 seeded random sizes up to 500."""
    from ...algebra import conv as _conv

    def ok(c):
        m, n, r, s = c
        return _conv.zhu_conv_rows((m, n), r, s) == (m * n - ((r - 1) * n + r - 1)) // s + 1

    small = sorted([(m, n, r, s) for m in range(1, 7) for n in range(1, 7) for r in range(1, min(m, n) + 1)
                    for s in range(1, 5)], key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_RANDOM_SEED + 5)
    large = []
    for _ in range(20):
        m, n = int(rng.integers(7, 501)), int(rng.integers(7, 501))
        large.append((m, n, int(rng.integers(1, min(m, n) + 1)), int(rng.integers(1, 50))))
    return builder_check(exhaustive(ok, small, describe="zhu_conv_rows == printed P: m, n <= 6, r <= min(m, n), s <= 4"),
                  exhaustive(ok, large, describe=f"the same, 20 random sizes (seed {_RANDOM_SEED + 5}) up to 500",
                             strength="sampled"), derived_from_rule=False, builder="zhu_conv_rows")
