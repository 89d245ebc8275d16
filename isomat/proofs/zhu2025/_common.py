"""zhu2025: helpers shared between sections -- direct loop references written from the printed
formulas (no code shared with ``isomat.algebra``), Z3 proof wrappers, exact generic kernels."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np
import sympy

from ...errors import CheckError
from .. import prover
from ...algebra._backend import to_numpy
from ..engine import all_of, device_cached, exhaustive, float_backend
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
# Each returns one Trial (exhaustive up to a stated bound, then seeded random larger sizes); a claim
# passes it to ``decide`` as a keyword, so a builder that disagrees with the proved rule makes the
# claim an error -- the proof certifies the rule, this check ties the rule to the code users run.
# Cached per process and per field (functools caches of isomat are cleared by the mutation suite). The float builds
# run in the field the claim passes (``float_backend()``: on the GPU under `isomat verify --backend cupy`); the
# results come back to the host (``_host``) and are compared there with references written by loops / entry rules.
_RANDOM_SEED = 20250601


def _host(M) -> np.ndarray:
    """Host NumPy copy of a dense or sparse float result of either field (SciPy array or cupyx matrix)."""
    return np.asarray(to_numpy(M.toarray() if hasattr(M, "toarray") else M))


def _tap_values(KH: int, KW: int) -> np.ndarray:
    """Kernel whose tap a·KW + b has the value a·KW + b + 1: each entry of a zero-boundary convolution matrix
    holds at most one tap, so its value names the tap."""
    return np.arange(1, KH * KW + 1, dtype=np.float64).reshape(KH, KW)


def _conv_case_ok(c, field: str = "numpy") -> bool:
    from ...algebra import conv as _conv

    H, W, KH, KW, s, l, d = c
    A = _conv.conv_matrix((H, W), _tap_values(KH, KW), stride=s, padding=l, dilation=d, backend=field)
    O1 = (H + 2 * l[0] - d[0] * (KH - 1) - 1) // s[0] + 1
    O2 = (W + 2 * l[1] - d[1] * (KW - 1) - 1) // s[1] + 1
    if tuple(A.shape) != (O1 * O2, H * W):
        return False
    t = _conv.conv2d_tap(np.arange(O1 * O2)[:, None], np.arange(H * W)[None, :], H, W, KH, KW,
                         stride=s, padding=l, dilation=d)
    return bool(np.array_equal(_host(A), np.where(t >= 0, t + 1, 0).astype(np.float64)))


def _conv_valid(c) -> bool:
    H, W, KH, KW, s, l, d = c
    return H + 2 * l[0] - d[0] * (KH - 1) >= 1 and W + 2 * l[1] - d[1] * (KW - 1) >= 1


@device_cached
def conv_builder_check(field: str = "numpy"):
    """isomat.algebra.conv_matrix (2-d, single channel, zero boundary) equals its entry rule conv.conv2d_tap entry by
    entry (kernel values name the taps): every H, W <= 4, KH, KW <= 3, stride in {1, 2}, padding in {0, 1},
    dilation in {1, 2}; then 8 seeded random geometries with H, W in [5, 24], KH, KW <= 5, per-axis stride <= 3,
    padding <= 2, dilation <= 2."""
    small = [(H, W, KH, KW, (s, s), (l, l), (d, d)) for H in range(1, 5) for W in range(1, 5) for KH in range(1, 4)
             for KW in range(1, 4) for s in (1, 2) for l in (0, 1) for d in (1, 2)]
    small = sorted([c for c in small if _conv_valid(c)], key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_RANDOM_SEED)
    large = []
    while len(large) < 8:
        c = (int(rng.integers(5, 25)), int(rng.integers(5, 25)), int(rng.integers(1, 6)), int(rng.integers(1, 6)),
             tuple(int(x) for x in rng.integers(1, 4, 2)), tuple(int(x) for x in rng.integers(0, 3, 2)),
             tuple(int(x) for x in rng.integers(1, 3, 2)))
        if _conv_valid(c):
            large.append(c)
    ok = functools.partial(_conv_case_ok, field=field)
    return all_of(exhaustive(ok, small, describe="conv_matrix == conv2d_tap: H, W <= 4, KH, KW <= 3, "
                             "stride <= 2, padding <= 1, dilation <= 2 (same on both axes)"),
                  exhaustive(ok, large, describe=f"conv_matrix == conv2d_tap: 8 random geometries (seed "
                             f"{_RANDOM_SEED}), H, W in [5, 24], KH, KW <= 5, stride <= 3, padding <= 2, dilation <= 2",
                             strength="sampled"))


def _zhu_case_ok(c, field: str = "numpy") -> bool:
    from ...algebra import conv as _conv

    m, n, r, s = c
    L = m * n
    P = (L - ((r - 1) * n + r - 1)) // s + 1  # the printed P, written out here
    Z = _conv.zhu_conv_matrix((m, n), _tap_values(r, r), s, backend=field)
    if tuple(Z.shape) != (P, L):
        return False
    t = _conv.zhu_conv_tap(np.arange(P)[:, None], np.arange(L)[None, :], n, r, s)
    return bool(np.array_equal(_host(Z), np.where(t >= 0, t + 1, 0).astype(np.float64)))


@device_cached
def zhu_conv_builder_check(field: str = "numpy"):
    """isomat.algebra.zhu_conv_matrix equals its entry rule conv.zhu_conv_tap on the printed P×L (columns >= L
    dropped), kernel values naming the taps: every m, n <= 5, r <= min(m, n), s <= 3; then 8 seeded random sizes
    m, n in [6, 30], r <= min(m, n, 6), s <= 5."""
    small = sorted([(m, n, r, s) for m in range(1, 6) for n in range(1, 6) for r in range(1, min(m, n) + 1)
                    for s in range(1, 4)], key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_RANDOM_SEED + 1)
    large = []
    for _ in range(8):
        m, n = int(rng.integers(6, 31)), int(rng.integers(6, 31))
        large.append((m, n, int(rng.integers(1, min(m, n, 6) + 1)), int(rng.integers(1, 6))))
    ok = functools.partial(_zhu_case_ok, field=field)
    return all_of(exhaustive(ok, small, describe="zhu_conv_matrix == zhu_conv_tap: m, n <= 5, r <= min(m, n), "
                             "s <= 3"),
                  exhaustive(ok, large, describe=f"zhu_conv_matrix == zhu_conv_tap: 8 random sizes (seed "
                             f"{_RANDOM_SEED + 1}), m, n in [6, 30], r <= 6, s <= 5", strength="sampled"))


def _pool_case_ok(c, field: str = "numpy") -> bool:
    from ...algebra import pool as _pool

    m, n, p = c
    L, Q = m * n, (m * n) // (p * p)
    v = np.float64(1) / (p * p)
    printed = np.zeros((Q, L))
    for q in range(Q):  # the printed W_pool[q, qp² + r] = 1/p², by a loop
        printed[q, q * p * p:(q + 1) * p * p] = v
    patch = np.zeros((Q, L))
    k = np.arange(L)
    patch[k // (p * p), _pool.patch_major_pixel(k, n, p)] = v  # position k of the patch-major listing
    return (bool(np.array_equal(_host(_pool.zhu_pool_matrix((m, n), p, backend=field)), printed))
            and bool(np.array_equal(_host(_pool.zhu_pool_matrix((m, n), p, flattening="patch-major", backend=field)),
                                    patch))
            and bool(np.array_equal(_pool.patch_major_order((m, n), p), _pool.patch_major_pixel(k, n, p))))


@device_cached
def pool_builder_check(field: str = "numpy"):
    """isomat.algebra.zhu_pool_matrix (row-major: the printed formula by a loop; patch-major: the entry rule
    pool.patch_major_pixel) and patch_major_order: every p <= 4 and m, n multiples of p up to 8; then 6 seeded random
    sizes p in [2, 5], m/p, n/p in [2, 10]."""
    small = sorted([(m, n, p) for p in range(1, 5) for m in range(p, 9, p) for n in range(p, 9, p)],
                   key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_RANDOM_SEED + 2)
    large = []
    for _ in range(6):
        p = int(rng.integers(2, 6))
        large.append((p * int(rng.integers(2, 11)), p * int(rng.integers(2, 11)), p))
    ok = functools.partial(_pool_case_ok, field=field)
    return all_of(exhaustive(ok, small, describe="zhu_pool_matrix == printed formula / patch_major_pixel: "
                             "p <= 4, p | m, n <= 8"),
                  exhaustive(ok, large, describe=f"the same, 6 random sizes (seed {_RANDOM_SEED + 2}), "
                             "p <= 5, m/p, n/p <= 10", strength="sampled"))


def _rnn_case_ok(c, field: str = "numpy") -> bool:
    from ...algebra import rnn as _rnn

    M, N, T, seed = c
    rng = np.random.default_rng(seed)
    U, V = rng.integers(-2, 3, size=(M, N)), rng.integers(-2, 3, size=(M, M))
    ref = np.zeros((M * T, N * T), dtype=object)
    P = np.eye(M, dtype=object)
    powers = []
    for _ in range(T):  # V^k U with exact integers
        powers.append(P.dot(U.astype(object)))
        P = V.astype(object).dot(P)
    for t in range(T):
        for s_ in range(t + 1):
            ref[t * M:(t + 1) * M, s_ * N:(s_ + 1) * N] = powers[t - s_]
    A = _rnn.rnn_matrix(U.astype(np.float64), V.astype(np.float64), T, backend=field)
    return tuple(A.shape) == ref.shape and bool(np.array_equal(_host(A), ref.astype(np.float64)))


@device_cached
def rnn_builder_check(field: str = "numpy"):
    """isomat.algebra.rnn_matrix against the block rule (t, s) = V^(t−s)U for s <= t, 0 above (exact integer powers):
    every M, N, T <= 3 (one seeded integer U, V each); then 6 seeded random sizes M, N in [2, 5], T in [4, 8]."""
    small = sorted([(M, N, T, 100 * M + 10 * N + T) for M in range(1, 4) for N in range(1, 4) for T in range(1, 4)],
                   key=lambda c: (sum(c[:3]), c))
    rng = np.random.default_rng(_RANDOM_SEED + 3)
    large = [(int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(4, 9)), 7 + i) for i in range(6)]
    ok = functools.partial(_rnn_case_ok, field=field)
    return all_of(exhaustive(ok, small, describe="rnn_matrix == blocks V^(t−s)U: M, N, T <= 3, integer U, V"),
                  exhaustive(ok, large, describe=f"the same, 6 random sizes (seed {_RANDOM_SEED + 3}), M, N <= 5, "
                             "T <= 8", strength="sampled"))


def _avgpool_case_ok(c, field: str = "numpy") -> bool:
    from ...algebra import conv as _conv, pool as _pool

    m, n, k, s = c
    A = _pool.avgpool_matrix((m, n), (k, k), stride=(s, s), backend=field)
    O1, O2 = (m - k) // s + 1, (n - k) // s + 1
    if tuple(A.shape) != (O1 * O2, m * n):
        return False
    t = _conv.conv2d_tap(np.arange(O1 * O2)[:, None], np.arange(m * n)[None, :], m, n, k, k, stride=(s, s))
    return bool(np.array_equal(_host(A), np.where(t >= 0, np.float64(1) / (k * k), 0.0)))


@device_cached
def avgpool_builder_check(field: str = "numpy"):
    """isomat.algebra.avgpool_matrix (k×k windows, stride s, no padding) holds 1/k² exactly where the entry rule
    conv.conv2d_tap (KH = KW = k, stride s) has a tap, and 0 elsewhere: every m, n <= 6, k <= min(m, n, 3), s <= 3;
    then 6 seeded random sizes m, n in [7, 30], k <= 5, s <= 5."""
    small = sorted([(m, n, k, s) for m in range(1, 7) for n in range(1, 7) for k in range(1, min(m, n, 3) + 1)
                    for s in range(1, 4)], key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_RANDOM_SEED + 4)
    large = [(int(rng.integers(7, 31)), int(rng.integers(7, 31)), int(rng.integers(1, 6)), int(rng.integers(1, 6)))
             for _ in range(6)]
    ok = functools.partial(_avgpool_case_ok, field=field)
    return all_of(exhaustive(ok, small, describe="avgpool_matrix == 1/k² on conv2d_tap's taps: m, n <= 6, "
                             "k <= 3, s <= 3"),
                  exhaustive(ok, large, describe=f"the same, 6 random sizes (seed {_RANDOM_SEED + 4}), "
                             "m, n <= 30, k, s <= 5", strength="sampled"))


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
    return all_of(exhaustive(ok, small, describe="zhu_conv_rows == printed P: m, n <= 6, r <= min(m, n), s <= 4"),
                  exhaustive(ok, large, describe=f"the same, 20 random sizes (seed {_RANDOM_SEED + 5}) up to 500",
                             strength="sampled"))
