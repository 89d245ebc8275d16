"""zhu2025: the properties the paper attributes to its constructions as a whole -- the isomorphism of the abstract,
§1 and §9, §5's "fully substitute", Assumption 4.2 taken as a whole, and the hypotheses of Theorem 4.2 (issue 38,
item 4).

Every layer here is written from its textbook definition by direct loops over exact numbers (SymPy symbols or
integers) and shares no code with :mod:`isomat.algebra`: a convolution is :func:`naive_conv2d` (zero padding), an RNN
is ``h_t = U x_t + V h_{t-1}`` (optionally ``σ`` inside the recurrence), single-head attention is
``Z = A (X W_V)`` with ``A = (X W_Q)(X W_K)^T`` (softmax omitted, as the paper's Remark in §4.5 omits it) or
``softmax`` of it. A layer is *linear* at a size when, for a symbolic input ``x``, ``f(x) − J x`` expands to zero,
``J`` being the matrix whose columns are ``f`` of the unit vectors: an exact decision at that size. isomat's own
``conv_matrix`` and ``rnn_matrix`` are bound to these references (a disagreement is an error of the claim).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import sympy
from sympy import ZZ
from sympy.polys.matrices import DomainMatrix

from ...algebra import conv as _conv, rnn as _rnn
from ..engine import Reading, Trial, all_of, by_readings, claim, compare_printed, decide, device_cached, exhaustive
from ._common import (_dense, _generic_kernel, attention_not_homogeneous_numpy, attention_sign_symmetry_numpy,
                      naive_conv2d, naive_conv_matrix)


# ---------------------------------------------------------------------------------------------
# the layers, by direct loops (exact)
# ---------------------------------------------------------------------------------------------
def _relu(v):
    return v if v > 0 else 0 * v


def conv_layer(H: int, W: int, K: int):
    """The zero-padded K×K convolution (padding ⌊K/2⌋, stride 1) of an H×W image, generic integer kernel, as a map
    of the row-major vec."""
    k = _generic_kernel(K, K).tolist()

    def f(x):
        X = [[x[u * W + v] for v in range(W)] for u in range(H)]
        return [y for row in naive_conv2d(X, k, pad=(K // 2, K // 2)) for y in row]
    return f


def _rnn_weights(M: int, N: int):
    U = [[2 + i + 3 * j for j in range(N)] for i in range(M)]  # nonzero, distinct integer weights
    V = [[1 + 2 * i + j for j in range(M)] for i in range(M)]
    return U, V


def rnn_layer(T: int, M: int, N: int, sigma=None, weights=None):
    """The RNN h_t = σ(U x_t + V h_{t−1}), h_0 = 0 (σ = identity when None) on the stacked input (x_1, ..., x_T), each
    x_t ∈ R^N, returning the stacked (h_1, ..., h_T); integer weights U (M×N), V (M×M)."""
    U, V = weights if weights is not None else _rnn_weights(M, N)

    def f(x):
        h, out = [0] * M, []
        for t in range(T):
            xt = x[t * N:(t + 1) * N]
            pre = [sum(U[i][j] * xt[j] for j in range(N)) + sum(V[i][j] * h[j] for j in range(M)) for i in range(M)]
            h = [sigma(p) for p in pre] if sigma is not None else pre
            out += h
        return out
    return f


def attention_layer(s: int, d: int, softmax: bool = False, weights=None):
    """Single-head self-attention of s tokens of width d (the input is the row-major vec of X ∈ R^{s×d}):
    Z = A V with V = X W_V and A = Q K^T (softmax omitted, §4.5's Remark) or A = softmax(Q K^T) row-wise
    (Q = X W_Q, K = X W_K); integer weights (the 1/√d scale does not change linearity)."""
    Wq, Wk, Wv = weights if weights is not None else (
        [[1 + i + j for j in range(d)] for i in range(d)], [[1 + (i == j) for j in range(d)] for i in range(d)],
        [[1 + 2 * i + j for j in range(d)] for i in range(d)])

    def f(x):
        X = [[x[t * d + c] for c in range(d)] for t in range(s)]
        proj = lambda Wm: [[sum(X[t][a] * Wm[a][c] for a in range(d)) for c in range(d)] for t in range(s)]  # noqa: E731
        Q, K, Vv = proj(Wq), proj(Wk), proj(Wv)
        S = [[sum(Q[i][c] * K[j][c] for c in range(d)) for j in range(s)] for i in range(s)]
        if softmax:
            S = [[sympy.exp(e) / sum(sympy.exp(g) for g in row) for e in row] for row in S]
        return [sum(S[i][j] * Vv[j][c] for j in range(s)) for i in range(s) for c in range(d)]
    return f


def _residual(f, n: int):
    """f(x) − J x for a symbolic x ∈ R^n, J the columns f(e_i): the zero vector exactly when f is linear."""
    x = sympy.symbols(f"x0:{n}")
    cols = [f([1 if j == i else 0 for j in range(n)]) for i in range(n)]
    fx = f(list(x))
    return [sympy.expand(fx[r] - sum(cols[i][r] * x[i] for i in range(n))) for r in range(len(fx))]


def _scaling_witness(f, n: int, value: int = -1):
    """f at x = (value, ..., value) and at 2x, against 2 f(x): exact numbers showing the failure of homogeneity."""
    x = [value] * n
    fx, f2x = f(x), f([2 * v for v in x])
    return {"x": x, "f(x)": [sympy.nsimplify(v) for v in fx], "f(2x)": [sympy.nsimplify(v) for v in f2x],
            "2 f(x)": [2 * sympy.nsimplify(v) for v in fx]}


def _linear_trial(kind: str, cases, make, size, describe: str) -> Trial:
    return exhaustive(lambda c: all(r == 0 for r in _residual(make(*c), size(*c))), cases,
                      describe=f"{kind}: {describe}; linear = f(x) − J x expands to 0 for symbolic x",
                      witness=lambda c: _scaling_witness(make(*c), size(*c)), method="symbolic")


_CONV_CASES = sorted([(H, W, K) for H in range(1, 4) for W in range(1, 4) for K in (1, 3)], key=lambda c: (c[0] * c[1], c))
_RNN_CASES = sorted([(T, M, N) for T in range(1, 4) for M in (1, 2) for N in (1, 2)], key=lambda c: (c[0] * c[1] * c[2], c))
_ATT_CASES = [(1, 1), (1, 2), (2, 1), (2, 2)]


@device_cached  # shared by abstract/isomorphism and sec5/substitute (one worker runs both)
def conv_linear() -> Trial:
    return _linear_trial("convolution (zero padding)", _CONV_CASES, conv_layer, lambda H, W, K: H * W,
                         "H, W <= 3, K in {1, 3}")


@device_cached  # shared by abstract/isomorphism and sec5/substitute (one worker runs both)
def rnn_linear() -> Trial:
    return _linear_trial("linear RNN", _RNN_CASES, rnn_layer, lambda T, M, N: T * N, "T <= 3, M, N <= 2")


@device_cached  # shared by abstract/isomorphism and sec5/substitute (one worker runs both)
def attention_linear(softmax: bool = False) -> Trial:
    what = "softmax attention" if softmax else "attention, softmax omitted"
    return _linear_trial(what, _ATT_CASES, lambda s, d: attention_layer(s, d, softmax=softmax), lambda s, d: s * d,
                         "s tokens, width d: (s, d) in (1,1), (1,2), (2,1), (2,2)")


@device_cached  # shared by abstract/isomorphism and sec5/substitute (one worker runs both)
def conv_matrix_binding() -> Trial:
    """isomat's conv_matrix (zero padding ⌊K/2⌋) equals the loop-built matrix of the same convolution."""
    def ok(c):
        H, W, K = c
        k = _generic_kernel(K, K)
        return bool(np.all(_dense(_conv.conv_matrix((H, W), sympy.Matrix(k.tolist()), padding=K // 2))
                           == naive_conv_matrix(H, W, k.tolist(), pad=(K // 2, K // 2))))
    return exhaustive(ok, _CONV_CASES, describe="isomat conv_matrix == loop-built matrix, H, W <= 3, K in {1, 3}",
                      method="exact")


@device_cached  # shared by abstract/isomorphism and sec5/substitute (one worker runs both)
def rnn_matrix_binding() -> Trial:
    """isomat's rnn_matrix equals the columns of the loop-built linear RNN (integer weights)."""
    def ok(c):
        T, M, N = c
        U, V = _rnn_weights(M, N)
        f = rnn_layer(T, M, N)
        J = np.array([f([1 if j == i else 0 for j in range(T * N)]) for i in range(T * N)], dtype=object).T
        mine = np.array(sympy.Matrix(_rnn.rnn_matrix(sympy.Matrix(U), sympy.Matrix(V), T)).tolist(), dtype=object)
        return mine.shape == J.shape and bool(np.all(mine == J))
    return exhaustive(ok, _RNN_CASES, describe="isomat rnn_matrix == loop-built linear RNN, T <= 3, M, N <= 2",
                      method="exact")


def _first_collision(params, make, n: int):
    """The first two parameter sets (in the order given) whose layers are the same map (equal columns on the unit
    vectors and equal values on a symbolic input): a witness that parameters ↦ map is not one-to-one."""
    x = sympy.symbols(f"x0:{n}")
    seen = {}
    for p in params:
        key = tuple(sympy.expand(v) for v in make(p)(list(x)))
        if key in seen:
            return seen[key], p
        seen[key] = p
    return None


def _parameters_trial() -> Trial:
    """Parameters ↦ layer map one-to-one? Convolution: the generic-kernel matrix holds every tap (H, W >= K, the
    kernel is read off the matrix); linear RNN (T = 2, M = N = 1, U != 0) and attention (s = d = 1): searched over
    small integer weights for the first two parameter sets giving the same map."""
    def conv_ok(c):
        H, W, K = c
        taps = set(_generic_kernel(K, K).ravel().tolist())
        return taps <= set(naive_conv_matrix(H, W, _generic_kernel(K, K).tolist(), pad=(K // 2, K // 2)).ravel().tolist())

    conv = exhaustive(conv_ok, [c for c in _CONV_CASES if c[0] >= c[2] and c[1] >= c[2]],
                      describe="convolution: kernel read off the matrix, H, W <= 3, K in {1, 3}, H, W >= K")
    # U != 0: with U = 0 every V gives the zero map, a degenerate collision that says nothing of the correspondence
    grid = list(itertools.product((-1, 1), (-1, 0, 1)))
    rnn_hit = _first_collision(grid, lambda p: rnn_layer(2, 1, 1, weights=([[p[0]]], [[p[1]]])), 2)
    rnn = exhaustive(lambda _: rnn_hit is None, [("T=2, M=N=1", "U in {-1, 1}, V in {-1, 0, 1}")],
                     describe="linear RNN: (U, V) ↦ map one-to-one for U in {-1, 1}, V in {-1, 0, 1}",
                     witness=lambda _: {"same_map": [{"U": a, "V": b} for a, b in rnn_hit]})
    att_grid = list(itertools.product((-1, 1), repeat=3))
    att_hit = _first_collision(att_grid, lambda p: attention_layer(1, 1, weights=([[p[0]]], [[p[1]]], [[p[2]]])), 1)
    att = exhaustive(lambda _: att_hit is None, [("s=d=1", "(W_Q, W_K, W_V) in {-1, 1}^3")],
                     describe="attention: (W_Q, W_K, W_V) ↦ map one-to-one on {-1, 1}^3",
                     witness=lambda _: {"same_map": [dict(zip(("W_Q", "W_K", "W_V"), p)) for p in att_hit]})
    return all_of(conv, rnn, att)


@claim(
    "zhu2025:abstract/isomorphism",
    quote="[abstract:] We prove algebraic isomorphism with standard CNN, RNN and Transformer layers under mild "
          "assumptions. [§1:] Formal proofs verify that each specialized operator is isomorphic to its matrix "
          "representation under mild assumptions. [§9:] we proved algebraic isomorphism with standard CNN, RNN and "
          "Transformer layers.",
    statement=(
        "The paper's headline property, taken over the three layer families together (the parts are decided in "
        "thm4.1/*, thm4.2/* and thm4.3/*). Two readings, each over a convolution (zero padding ⌊K/2⌋), an RNN and "
        "single-head self-attention, all written by direct loops over exact numbers. (a) Linear part (§4.5's "
        "Remark: nonlinearities excluded): each layer, its nonlinearity omitted, is one fixed matrix acting on the "
        "flattened input -- decided exactly at each size (f(x) − J x expands to 0 for a symbolic x): convolution "
        "H, W <= 3, K in {1, 3}; linear RNN T <= 3, M, N <= 2; attention without softmax, s, d <= 2. (b) One-to-one "
        "(§4.3's 'one-to-one correspondence', A.1's kernel-to-matrix reading): the layer's parameters are read off "
        "its map -- the convolution's kernel from its matrix (H, W >= K), and for the RNN (T = 2, M = N = 1, U ≠ 0: "
        "one-to-one) and attention (s = d = 1: W_K → −W_K, W_V → −W_V gives the same map) a search over small "
        "integer weights for two parameter sets giving the same map. "
        "isomat's conv_matrix and rnn_matrix are bound to the loop references."
    ),
    methods=["symbolic", "exhaustive", "exact"],
    hypotheses=("layers of positive sizes: s >= 1 tokens of width d >= 1 (attention), T, M, N >= 1 (RNN), an H×W image and a K×K kernel (convolution); the parameter search over small integer weights",
                lambda c: isinstance(c, (list, tuple)) and (all(isinstance(v, str) for v in c) or all(isinstance(v, int) and v >= 1 for v in c))),
)
def _abstract_isomorphism():
    linear = all_of(conv_linear(), rnn_linear(), attention_linear())
    bindings = dict(conv_matrix_vs_loops=conv_matrix_binding(), rnn_matrix_vs_loops=rnn_matrix_binding())
    return by_readings(
        Reading("linear part is a matrix (§4.5 Remark)", "Convolution, linear RNN and softmax-free attention are each "
                "a fixed matrix acting on the flattened input.",
                decide(linear, confirm=lambda _: attention_not_homogeneous_numpy(), **bindings)),
        Reading("one-to-one parameters ↔ matrices", "Each layer's parameters are determined by its map (A.1's "
                "kernel-to-matrix correspondence, extended to the RNN and attention).",
                decide(_parameters_trial(), confirm=lambda _: attention_sign_symmetry_numpy())),
    )


def _sigma_rnn_vs_paper_matrix() -> Trial:
    """σ-RNN (σ = ReLU inside the recurrence, as torch.nn.RNN(nonlinearity='relu')) against σ applied after the
    paper's matrix W_RNN (§8: the activation 'applied element-wise ... after the matrix multiplication'); W_RNN is
    the linear RNN's matrix built from its columns; inputs in {−1, 0, 1}^(T N), T = 2, M = N = 1 first."""
    def ok(c):
        T, M, N, x = c
        lin = rnn_layer(T, M, N)
        J = [lin([1 if j == i else 0 for j in range(T * N)]) for i in range(T * N)]
        after = [_relu(sum(J[i][r] * x[i] for i in range(T * N))) for r in range(T * M)]
        return rnn_layer(T, M, N, sigma=_relu)(list(x)) == after

    def witness(c):
        T, M, N, x = c
        lin = rnn_layer(T, M, N)
        J = [lin([1 if j == i else 0 for j in range(T * N)]) for i in range(T * N)]
        return {"sigma_rnn": rnn_layer(T, M, N, sigma=_relu)(list(x)),
                "sigma_after_W_RNN": [_relu(sum(J[i][r] * x[i] for i in range(T * N))) for r in range(T * M)]}

    cases = [(T, 1, 1, x) for T in (1, 2) for x in itertools.product((-1, 0, 1), repeat=T)]
    return exhaustive(ok, cases, describe="σ-RNN == σ(W_RNN x), σ = ReLU, T <= 2, M = N = 1, x in {-1, 0, 1}^T",
                      witness=witness, method="exact")


def _conv_relu_after() -> Trial:
    """A CNN layer ReLU(conv(x)) is ReLU applied after the loop-built convolution matrix (§8's account of CNNs)."""
    def ok(c):
        H, W, K, x = c
        f = conv_layer(H, W, K)
        J = [f([1 if j == i else 0 for j in range(H * W)]) for i in range(H * W)]
        return [_relu(v) for v in f(list(x))] == [_relu(sum(J[i][r] * x[i] for i in range(H * W))) for r in range(H * W)]

    cases = [(H, W, K, x) for H, W, K in _CONV_CASES if H * W <= 4 for x in itertools.product((-1, 0, 1), repeat=H * W)]
    return exhaustive(ok, cases, describe="ReLU(conv x) == ReLU(W_conv x), H W <= 4, K in {1, 3}, x in {-1, 0, 1}^(HW)",
                      method="exact")


@claim(
    "zhu2025:sec5/substitute",
    quote="Sparse weight matrices can fully substitute convolutional, recurrent and attention-based architectures "
          "across vision, sequential and language domains.",
    statement=(
        "§5's claim against the three architectures' layers (direct loops, exact). Two readings. (a) Fully, "
        "nonlinearities included, as §8 accounts for them: a layer is substituted when it equals a fixed matrix "
        "followed by its elementwise activation -- a CNN's ReLU(conv x) against ReLU of the convolution's matrix "
        "(H W <= 4, every x in {−1, 0, 1}^(HW)); an RNN with σ = ReLU inside the recurrence against σ applied after "
        "the paper's W_RNN (T <= 2); attention needs a matrix for its softmax-free part, decided as in "
        "abstract/isomorphism. (b) The linear components only (§4.5's Remark): convolution, linear RNN and "
        "softmax-free attention are each a fixed matrix (decided exactly, sizes as in abstract/isomorphism). "
        "Sparsity is not what fails: the convolution's matrix has at most K² nonzeros a row."
    ),
    methods=["exhaustive", "exact", "symbolic"],
    hypotheses=("layers of positive sizes (T, M, N >= 1 for the RNN, s, d >= 1 for attention, an H×W image for the convolution), inputs of matching length",
                lambda c: all(isinstance(v, int) and v >= 1 for v in c[:2])),
)
def _sec5_substitute():
    bindings = dict(conv_matrix_vs_loops=conv_matrix_binding(), rnn_matrix_vs_loops=rnn_matrix_binding())
    return by_readings(
        Reading("fully, activations included (§8)", "Each architecture's layer is a fixed matrix followed by its "
                "elementwise activation.", decide(all_of(_conv_relu_after(), _sigma_rnn_vs_paper_matrix(),
                                                         attention_linear()),
                                                  confirm=lambda _: attention_not_homogeneous_numpy(), **bindings)),
        Reading("linear components only (§4.5 Remark)", "Convolution, linear RNN and softmax-free attention are "
                "each a fixed matrix.", decide(all_of(conv_linear(), rnn_linear(), attention_linear()),
                                               confirm=lambda _: attention_not_homogeneous_numpy(), **bindings)),
    )


# ---------------------------------------------------------------------------------------------
# Assumption 4.2 as a whole
# ---------------------------------------------------------------------------------------------
def _patches(H: int, W: int, K: int):
    """Every full K×K patch of the H×W grid, as sets of row-major flat indices."""
    return [{(i + a) * W + (j + c) for a in range(K) for c in range(K)}
            for i in range(H - K + 1) for j in range(W - K + 1)]


@functools.lru_cache(maxsize=None)
def patch_in_band(H: int, W: int, K: int, b: int) -> bool:
    """Whether some row r of an (HW)×(HW) matrix has a full K×K patch inside its band {c : |r − c| <= b}."""
    N = H * W
    return any(P <= set(range(max(0, r - b), min(N, r + b + 1))) for r in range(N) for P in _patches(H, W, K))


_A42_CASES = sorted([(H, W, K) for K in (3, 5) for H in range(K, K + 2) for W in range(K, K + 2)],
                    key=lambda c: (c[0] * c[1], c))


def _a42_padded_rows_ok(c) -> bool:
    """Reading (b): the zero-padded convolution matrix (loops, generic kernel) has half-bandwidth ⌊K/2⌋(W + 1) and
    every row's nonzeros lie in the K×K patch centred on its pixel."""
    H, W, K = c
    M = naive_conv_matrix(H, W, _generic_kernel(K, K).tolist(), pad=(K // 2, K // 2))
    b = K // 2
    for r in range(H * W):
        u, v = divmod(r, W)
        cols = {int(j) for j in np.nonzero(M[r] != 0)[0]}
        centred = {(u + p) * W + (v + q) for p in range(-b, b + 1) for q in range(-b, b + 1)
                   if 0 <= u + p < H and 0 <= v + q < W}
        if not cols <= centred or any(abs(r - j) > b * (W + 1) for j in cols):
            return False
    return True


@claim(
    "zhu2025:assumption4.2",
    quote="The weight matrix W ∈ R^{M×N} is banded with half-bandwidth b, i.e. W_ij = 0, ∀|i − j| > b. Here b is "
          "chosen so that each nonzero row of W covers exactly one local patch of size K × K in the original H × W "
          "grid.",
    statement=(
        "Assumption 4.2's two sentences together: a row of W inside the band |i − j| <= b holds a full K×K patch of "
        "the H×W grid (row-major vec, Assumption 4.1). Decided by direct loops over every row and every full patch, "
        "K in {3, 5}, K <= H, W <= K + 1. Readings of b. (a) b = (K − 1)/2, as the paper's own proof fixes it (A.1: "
        "'Write K = 2b + 1 so that the half-bandwidth in Assumption 4.2 is b'; A.1 (2): |r − c| <= b gives a "
        "(2b + 1)×(2b + 1) neighbourhood): the band holds 2b + 1 = K consecutive columns, a patch needs K² "
        "spanning (K − 1)W + K, so no row can hold one for K >= 3 -- the assumption contradicts itself. (b) b free, "
        "chosen as large as a patch needs, b = ⌊K/2⌋(W + 1) (thm4.1/half-bandwidth's correction): the zero-padded "
        "convolution matrix then satisfies both sentences (each row's support inside the patch centred on its "
        "pixel, same sizes) -- recorded, not supported: A.1 defines the assumption's b ('Write K = 2b + 1 so that "
        "the half-bandwidth in Assumption 4.2 is b'), and its later remark that bW + b is 'exactly the half-bandwidth "
        "b' holds only 'under our patch-to-row flattening', not for Assumption 4.1's row-major vec "
        "(thm4.1/half-bandwidth)."
    ),
    methods=["exhaustive", "exact", "recompute"],
    hypotheses=("an H×W image and a K×K kernel with K odd and H, W >= K (Assumption 4.2's patches fit the image)",
                lambda c: c[2] % 2 == 1 and c[0] >= c[2] and c[1] >= c[2]),
)
def _assumption42():
    key = "a row inside the band |i − j| <= (K − 1)/2 holds a full K×K patch"
    fits = exhaustive(lambda c: patch_in_band(*c, (c[2] - 1) // 2), _A42_CASES,
                      describe="K in {3, 5}, K <= H, W <= K + 1, b = (K − 1)/2",
                      witness=lambda c: {"band_columns_per_row": c[2], "patch_entries": c[2] ** 2,
                                         "patch_span": (c[2] - 1) * c[1] + c[2]}, method="exact")
    printed = {f"{key}, H={H}, W={W}, K={K}": True for H, W, K in _A42_CASES}
    recomputed = {f"{key}, H={H}, W={W}, K={K}": patch_in_band(H, W, K, (K - 1) // 2) for H, W, K in _A42_CASES}
    # the wider band of reading (b) does hold a patch: the loop test is not blind
    wide = exhaustive(lambda c: patch_in_band(*c, (c[2] // 2) * (c[1] + 1)), _A42_CASES,
                      describe="the same sizes, b = ⌊K/2⌋(W + 1): some row holds a full patch", method="exact")
    return by_readings(
        Reading("b = (K − 1)/2 (A.1)", "A band of half-width (K − 1)/2 holds a full K×K patch in some row.",
                compare_printed(printed, recomputed, kind="inconsistent", witness=fits,
                                recomputed_by="direct loops over rows, patches and band windows",
                                wider_band_holds_a_patch=wide)),
        Reading("b free, ⌊K/2⌋(W + 1)", "With b = ⌊K/2⌋(W + 1), the zero-padded convolution matrix is banded and each "
                "row covers one K×K patch.",
                decide(all_of(wide, exhaustive(_a42_padded_rows_ok, _A42_CASES, describe="zero-padded convolution "
                                               "matrix (loops): band ⌊K/2⌋(W + 1), rows inside the centred patch",
                                               method="exact"))),
                supported=False),
    )


# ---------------------------------------------------------------------------------------------
# Theorem 4.2's hypotheses: Assumptions 4.1 and 4.3 are about images
# ---------------------------------------------------------------------------------------------
def _stacked_is_row_major(c) -> bool:
    """A.2's stacking (x_1; ...; x_T) is the row-major vec of the T×d sequence matrix (Assumption 4.1 with H = T,
    W = d), and vec H = W_RNN vec X holds for it: the linear RNN's columns (loops) against the block matrix
    [V^{t−s} U] written from A.2's display."""
    T, M, d = c
    Xs = sympy.Matrix(T, d, lambda t, j: sympy.Symbol(f"x{t}{j}"))
    stacked = [Xs[t, j] for t in range(T) for j in range(d)]
    if stacked != list(np.array(Xs.tolist(), dtype=object).reshape(-1)):  # row-major vec (NumPy's C order)
        return False
    U, V = (sympy.Matrix(m) for m in _rnn_weights(M, d))
    W_rnn = sympy.Matrix(sympy.BlockMatrix([[V ** (t - s) * U if s <= t else sympy.zeros(M, d) for s in range(T)]
                                            for t in range(T)]))
    return [sympy.expand(v) for v in W_rnn * sympy.Matrix(stacked)] == [sympy.expand(v) for v in rnn_layer(T, M, d)(stacked)]


@claim(
    "zhu2025:thm4.2/assumptions",
    quote="Theorem 4.2 (Algebraic Isomorphism for RNN). Under Assumptions 4.1 and 4.3, a unidirectional (linear) RNN "
          "with hidden size M processing a length-T input sequence can be written as R(x) = W_RNN x, where x ∈ R^{NT} "
          "is the flattened input [Assumption 4.1: X ∈ R^{H×W}, N = H × W ... Assumption 4.3: Convolutional patches "
          "use zero-padding ... fixed padding of width ⌊K/2⌋]",
    statement=(
        "Theorem 4.2 rests on two assumptions written for images: Assumption 4.1 (an H×W input, N = H×W, row-major) "
        "and Assumption 4.3 (padding of convolutional K×K patches). Readings of N. (a) N as Assumption 4.1 defines it "
        "(N = H·W, the flattened input's length): the T×d sequence matrix (H = T, W = d) then has N = Td, and "
        "Theorem 4.2's input length NT = T²d differs from the Td numbers of the sequence for every T >= 2 -- the "
        "theorem and its hypothesis disagree (T <= 3, d <= 2). (b) N = d per step, as A.2 sets it, Assumption 4.1 "
        "read as the row-major stacking of the T×d sequence, Assumption 4.3 idle (an RNN has no patches, no K, no "
        "padding): the theorem holds with neither assumption doing any work -- A.2's stacking is the row-major vec "
        "and vec H = W_RNN vec X exactly (symbolic inputs, integer weights, T <= 3, M, d <= 2)."
    ),
    methods=["recompute", "exhaustive", "symbolic"],
)
def _thm42_assumptions():
    sizes = [(T, d) for T in range(1, 4) for d in (1, 2)]
    printed = {f"input length NT with N = H·W (H = T = {T}, W = d = {d})": T * (T * d) for T, d in sizes}
    actual = {f"input length NT with N = H·W (H = T = {T}, W = d = {d})": len([(t, j) for t in range(T) for j in range(d)])
              for T, d in sizes}
    cases = sorted([(T, M, d) for T in range(1, 4) for M in (1, 2) for d in (1, 2)], key=lambda c: (c[0] * c[1] * c[2], c))
    holds = exhaustive(_stacked_is_row_major, cases, describe="T <= 3, M, d <= 2: stacking = row-major vec, vec H = "
                       "W_RNN vec X (symbolic x)", method="symbolic")
    return by_readings(
        Reading("N = H·W (Assumption 4.1)", "Theorem 4.2's input length NT, with N = H·W of the T×d sequence, is the "
                "number of inputs.", compare_printed(printed, actual, kind="inconsistent",
                                                     recomputed_by="counting the entries of the T×d sequence")),
        Reading("N = d (A.2), assumptions idle", "Theorem 4.2 holds for the row-major stacked sequence; Assumption "
                "4.3 has no object in an RNN.", decide(holds, rnn_matrix_vs_loops=rnn_matrix_binding())),
    )


# ---------------------------------------------------------------------------------------------
# §5: matrix techniques "without sacrificing expressivity"
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _low_rank_case(c) -> dict:
    """The largest rank r whose factorization U Vᵀ (U, V: N×r, 2rN numbers) is smaller than the sparse matrix's
    nonzeros, against the matrix's rank."""
    H, W, K = c
    M = naive_conv_matrix(H, W, _generic_kernel(K, K).tolist(), pad=(K // 2, K // 2))
    nnz, N = int(np.count_nonzero(M != 0)), H * W
    r_max = (nnz - 1) // (2 * N)
    return {"nonzeros": nnz, "largest_rank_saving_memory": r_max,
            "rank": DomainMatrix([[ZZ(int(v)) for v in row] for row in M], (N, N), ZZ).rank()}


def _block_sparse_exact(c) -> bool:
    """Stored as its nonzero W×W blocks (block row u holds blocks u − ⌊K/2⌋ .. u + ⌊K/2⌋), the convolution matrix is
    reproduced exactly, with fewer blocks than the H² of the dense matrix once H > K."""
    H, W, K = c
    M = naive_conv_matrix(H, W, _generic_kernel(K, K).tolist(), pad=(K // 2, K // 2))
    kept = {(u, v): M[u * W:(u + 1) * W, v * W:(v + 1) * W] for u in range(H) for v in range(H) if abs(u - v) <= K // 2}
    R = np.zeros_like(M)
    for (u, v), blk in kept.items():
        R[u * W:(u + 1) * W, v * W:(v + 1) * W] = blk
    return bool(np.all(R == M)) and len(kept) < H * H


def _low_rank_by_scipy(cases) -> Trial:
    """Independent reference of the low-rank failure (issue 36 item 6): each convolution matrix built column by
    column from scipy.signal.correlate2d of unit images (zero padding, a seeded integer kernel), its rank by NumPy's
    SVD, exceeds the largest memory-saving rank ⌊(nnz − 1)/(2N)⌋ of its own nonzeros."""
    from scipy.signal import correlate2d

    def exceeds(c):
        H, W, K = c
        k = np.random.default_rng(H * 10 + W).integers(1, 10, (K, K)).astype(float)
        cols = []
        for i in range(H * W):
            e = np.zeros(H * W)
            e[i] = 1.0
            cols.append(correlate2d(e.reshape(H, W), k, mode="same").ravel())
        M = np.column_stack(cols)
        return np.linalg.matrix_rank(M) > (int(np.count_nonzero(M)) - 1) // (2 * H * W)

    return exhaustive(exceeds, cases, method="exact",
                      describe="rank (NumPy SVD) of the scipy.signal.correlate2d convolution matrix > the largest "
                               "memory-saving rank, H, W in 3..4, K = 3")


@claim(
    "zhu2025:sec5/expressivity",
    quote="this shift allows direct application of matrix algebra techniques—such as block sparsity, low-rank "
          "factorization and accelerated solvers—to reduce computation and memory footprints without sacrificing "
          "expressivity",
    statement=(
        "Applied to the paper's convolution matrix (zero padding ⌊K/2⌋, generic integer kernel, loops; H, W in "
        "3..4, K = 3). Low-rank factorization reduces memory only below rank r_max = ⌊(nnz − 1)/(2N)⌋ (U Vᵀ stores "
        "2rN numbers against the sparse matrix's nnz): the matrix's exact rank exceeds r_max at every size, so a "
        "factorization small enough to save memory cannot reproduce it -- expressivity is lost. Block sparsity "
        "reproduces it exactly from its nonzero W×W blocks. Readings: (a) every technique the sentence names keeps "
        "expressivity -- fails on low-rank factorization; (b) some technique does (holds with block sparsity; not "
        "supported: the sentence names low-rank factorization among them)."
    ),
    methods=["exhaustive", "exact"],
    hypotheses=("an H×W image, H, W >= K, and a K×K kernel, K = 3 (§5 applies the techniques to the convolution matrix)",
                lambda c: c[0] >= c[2] and c[1] >= c[2] and c[2] == 3),
)
def _sec5_expressivity():
    cases = [(H, W, 3) for H in (3, 4) for W in (3, 4)]
    low = exhaustive(lambda c: _low_rank_case(c)["rank"] <= _low_rank_case(c)["largest_rank_saving_memory"], cases,
                     describe="rank(W_conv) <= the largest memory-saving rank, H, W in 3..4, K = 3",
                     witness=_low_rank_case, method="exact")
    block = exhaustive(_block_sparse_exact, [(H, W, 3) for H in (4, 5) for W in (3, 4)],
                       describe="W_conv reproduced from its nonzero W×W blocks, fewer than H² blocks, H in 4..5, W in "
                                "3..4, K = 3", method="exact")
    return by_readings(
        Reading("every technique named", "Block sparsity and low-rank factorization both keep the convolution "
                "exactly while saving memory.", decide(all_of(block, low), confirm=lambda _: _low_rank_by_scipy(cases))),
        Reading("some technique", "Block sparsity keeps the convolution exactly while saving memory.", decide(block),
                supported=False),
    )


__all__ = ["attention_layer", "conv_layer", "patch_in_band", "rnn_layer"]
