"""farag2025: the properties the paper attributes to SPM outside its numbered equations -- costs (§5's memory,
activations included), §2.2's expressive power with depth, §6's "without altering ... training dynamics", §9.1's
scaling against Table 1 and §11's O((log n)²) global mixing (issue 38, item 4).

References here share no code with :mod:`isomat.algebra`: stages are written entry by entry (:func:`naive_stage`) or
applied pair by pair to a vector (:func:`loop_apply`), gradients come from SymPy differentiation, dependence from
bitmask searches, and costs from counting what an instrumented loop backward reads.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import sympy
from sympy import ZZ
from sympy.polys.matrices import DomainMatrix

from ...algebra.spm import layer_matrix, spm_layer
from ..engine import Reading, Trial, all_of, by_readings, claim, compare_printed, decide, exhaustive
from ._common import _min_depth, naive_stage
from .sec9 import TAB1


def butterfly_pairs(n: int, ell: int) -> list[tuple[int, int]]:
    """Stage ``ell`` of the butterfly schedule for n = 2^k, by loops: i paired with i + 2^(ell mod k)."""
    k = n.bit_length() - 1
    s = 1 << (ell % k)
    return [(i, i + s) for i in range(n) if not i & s]


def loop_apply(n: int, stages, v, d_in=None, d_out=None):
    """D_out B_L ⋯ B_1 D_in v, applied pair by pair: stage ``(pairs, blocks)``, block (a, b, c, d) maps
    (v_i, v_j) to (a v_i + b v_j, c v_i + d v_j) (eq. 10-11)."""
    z = [v[i] * (d_in[i] if d_in is not None else 1) for i in range(n)]
    for pairs, blocks in stages:
        z = list(z)
        for (i, j), (a, b, c, d) in zip(pairs, blocks):
            z[i], z[j] = a * z[i] + b * z[j], c * z[i] + d * z[j]
    return [z[i] * (d_out[i] if d_out is not None else 1) for i in range(n)]


# ---------------------------------------------------------------------------------------------
# §11: global mixing with O((log n)²) complexity
# ---------------------------------------------------------------------------------------------
def min_blocks(n: int, *, every_output: bool) -> int:
    """Fewest 2×2 mixing blocks (any pairs, any order) after which one output (``every_output`` False) or every
    output depends on all n inputs: breadth-first search over dependence bitmasks."""
    full = (1 << n) - 1
    start = tuple(1 << i for i in range(n))
    done = (lambda s: all(v == full for v in s)) if every_output else (lambda s: full in s)
    level, seen, depth = {start}, {start}, 0
    while not any(done(s) for s in level):
        nxt = set()
        for s in level:
            for i, j in itertools.combinations(range(n), 2):
                t = list(s)
                t[i] = t[j] = s[i] | s[j]
                t = tuple(t)
                if t not in seen:
                    seen.add(t)
                    nxt.add(t)
        level, depth = nxt, depth + 1
    return depth


def _first_k_below(c: int, kmax: int = 64):
    """The smallest k <= kmax from which c·k² < 2^k − 1 holds for every larger k <= kmax (None: never)."""
    good = [k for k in range(1, kmax + 1) if c * k * k < 2 ** k - 1]
    return next((k for k in good if all(c * j * j < 2 ** j - 1 for j in range(k, kmax + 1))), None)


def _log_squared_by_sequences(cx) -> Trial:
    """Independent reference of the refutation (issue 36 item 6), sharing no code with :func:`min_blocks` or
    :func:`_first_k_below`: (1) the lower bound by brute force over every *sequence* of blocks (not a search over
    dependence sets): with n − 2 blocks no output depends on all n inputs, n = 2..5; (2) at the counterexample's c, the
    integers c·k² and 2^k − 1 compared at every k from the reported one to 64."""
    def no_short_schedule(n):
        pairs = list(itertools.combinations(range(n), 2))
        for seq in itertools.product(pairs, repeat=max(n - 2, 0)):
            deps = [{i} for i in range(n)]
            for i, j in seq:
                deps[i] = deps[j] = deps[i] | deps[j]
            if any(len(d) == n for d in deps):
                return False
        return n > 1

    c, k0 = cx["c"], cx["from_k"]
    below = all(c * k * k < 2 ** k - 1 for k in range(k0, 65))
    return exhaustive(lambda n: no_short_schedule(n) and below, range(2, 6), method="exact",
                      describe=f"no sequence of n − 2 blocks mixes one output over all n inputs (n = 2..5, every "
                               f"sequence); c·k² < 2^k − 1 for c = {c}, every k = {k0}..64 (integers)")


@claim(
    "farag2025:sec11/log-squared",
    quote="By carefully designing pairing schedules and stage connectivity, it may be possible to achieve global "
          "mixing with O((log n)²) complexity while retaining exact forward and backward computation.",
    statement=(
        "Global mixing (every output depends on every input, as beyond/butterfly-depth) at a per-example cost of "
        "O((log n)²). Lower bound: a 2×2 block merges two dependence sets, so one output depending on all n inputs "
        "needs at least n − 1 blocks (n − 1 being the exact minimum is checked by breadth-first search over "
        "dependence bitmasks, every schedule, n <= 5; global mixing's minimum, n <= 4, is recorded). Readings of "
        "'complexity'. (a) Computational cost per example (the sentence before: 'further reduce computational "
        "complexity'): for every constant c, c(log₂ n)² < n − 1 for all n = 2^k beyond a point (exact integers, "
        "c = 1, 2, 4, ..., 1024, k <= 64; SymPy: (n − 1)/(log n)² → ∞), so no global mixing operator built from "
        "pairwise blocks costs O((log n)²). (b) Depth, the number of sequential stages (not supported: SPM's depth "
        "is already log₂ n, so this would reduce nothing): the fewest stages for global mixing is log₂ n <= (log₂ n)² "
        "(breadth-first search over every schedule, n = 2, 4, 8)."
    ),
    methods=["exhaustive", "exact"],
    hypotheses=("a constant c >= 1 of the O((log n)²) bound, n = 2^k >= 2 features built from pairwise 2×2 blocks (§2)",
                lambda c: isinstance(c, int) and c >= 1),
)
def _sec11_log_squared():
    lower = exhaustive(lambda n: min_blocks(n, every_output=False) == n - 1, range(2, 6),
                       describe="fewest blocks for one output to depend on all inputs == n − 1, n = 2..5", method="exact")
    printed = exhaustive(lambda c: _first_k_below(c) is None, [2 ** e for e in range(11)],
                         describe="c(log₂ n)² >= n − 1 (the lower bound) at every n = 2^k, k <= 64, for some c in "
                                  "1, 2, ..., 1024",
                         witness=lambda c: {"c": c, "from_k": _first_k_below(c), "n": 2 ** _first_k_below(c),
                                            "c_log2n_squared": c * _first_k_below(c) ** 2,
                                            "blocks_needed_at_least": 2 ** _first_k_below(c) - 1}, method="exact")
    n = sympy.Symbol("n", positive=True)
    limit = sympy.limit((n - 1) / sympy.log(n) ** 2, n, sympy.oo)
    depth = exhaustive(lambda m: _min_depth(m) == math.log2(m) <= math.log2(m) ** 2, (2, 4, 8),
                       describe="fewest stages for global mixing == log₂ n <= (log₂ n)², n = 2, 4, 8", method="exact")
    return by_readings(
        Reading("cost per example", "Some pairwise construction mixes globally at O((log n)²) operations per example.",
                decide(printed, confirm=_log_squared_by_sequences, lower_bound=lower,
                       limit_of_lower_bound_over_log_squared=str(limit),
                       global_mixing_min_blocks={m: min_blocks(m, every_output=True) for m in range(2, 5)})),
        Reading("depth (stages)", "Global mixing in O((log n)²) sequential stages.", decide(depth), supported=False),
    )


# ---------------------------------------------------------------------------------------------
# §9 / §9.1: the scaling in Table 1
# ---------------------------------------------------------------------------------------------
def doubling_ratios(column: int):
    """Table 1's time column (3: Dense, 4: SPM) at n and 2n, as exact ratios t(2n)/t(n)."""
    ns = sorted(TAB1)
    return {f"{a}->{b}": Fraction(TAB1[b][column]) / Fraction(TAB1[a][column]) for a, b in zip(ns, ns[1:])}


@claim(
    "farag2025:sec9.1/scaling",
    quote="[§9.1:] by n ∈ {1024, 2048} SPM is substantially faster, consistent with the expected O(nL) vs. O(n²) "
          "scaling. [§9:] Compute scaling: as n grows, dense layers become dominated by quadratic cost, while "
          "stagewise mixers approach near-linear scaling.",
    statement=(
        "Table 1's ms/step (transcribed in sec9) against the two cost models, doubling by doubling (256 → 512 → 1024 "
        "→ 2048): a dense time should grow ×4 per doubling (n²), an SPM time ×2 (L constant) or ×2·log₂(2n)/log₂ n "
        "(L = log₂ n, §2.2's choice for large n; §9.1 does not state L). 'Consistent' = every measured ratio within "
        "a relative tolerance of the model's (ours: 25%, and the stricter 10%). Exact ratios of the printed times; "
        "four readings (L constant or log₂ n, tolerance 25% or 10%)."
    ),
    methods=["recompute"],
)
def _sec91_scaling():
    dense, spm = doubling_ratios(3), doubling_ratios(4)

    def outcome(log_l: bool, tol: Fraction):
        printed, rec = {}, {}
        for key, r in dense.items():
            printed[f"dense {key}: ×4 within {tol}"] = True
            rec[f"dense {key}: ×4 within {tol}"] = abs(r / 4 - 1) <= tol
        for key, r in spm.items():
            a, b = (int(v) for v in key.split("->"))
            model = Fraction(2) * (Fraction(math.log2(b)) / Fraction(math.log2(a)) if log_l else 1)
            printed[f"SPM {key}: ×{float(model):.3f} within {tol}"] = True
            rec[f"SPM {key}: ×{float(model):.3f} within {tol}"] = abs(r / model - 1) <= tol
        return compare_printed(printed, rec, kind="inconsistent", from_printed=True,
                               dense_ratios={k: f"{float(v):.3f}" for k, v in dense.items()},
                               spm_ratios={k: f"{float(v):.3f}" for k, v in spm.items()})

    return by_readings(*(Reading(f"L {'= log₂ n' if log_l else 'constant'}, within {int(tol * 100)}%",
                                 f"Each per-doubling time ratio within {int(tol * 100)}% of the model's "
                                 f"(L {'= log₂ n' if log_l else 'constant'}).", outcome(log_l, tol))
                         for tol in (Fraction(1, 4), Fraction(1, 10)) for log_l in (False, True)))


# ---------------------------------------------------------------------------------------------
# §6: "without altering their functional form or training dynamics"
# ---------------------------------------------------------------------------------------------
def _sym_layer(n: int, L: int):
    """A general-variant SPM with symbolic blocks and diagonals on the butterfly schedule: (symbols, stages, d_in,
    d_out, matrix by loops)."""
    blocks = [[tuple(sympy.symbols(f"e{ell}_{k}_0:4")) for k in range(n // 2)] for ell in range(L)]
    d_in, d_out = list(sympy.symbols(f"di0:{n}")), list(sympy.symbols(f"do0:{n}"))
    stages = [(butterfly_pairs(n, ell), blocks[ell]) for ell in range(L)]
    M = sympy.diag(*d_out)
    for pairs, blk in reversed(stages):
        M = M * naive_stage(n, pairs, blk)
    M = (M * sympy.diag(*d_in)).applyfunc(sympy.expand)
    params = [s for ell in blocks for blk in ell for s in blk] + d_in + d_out
    return params, stages, d_in, d_out, M


def one_step_same(c) -> bool:
    """One gradient step on ½‖M x − y‖² from the identity: the SPM's step in its own parameters (SymPy gradient),
    mapped to its matrix, against the dense step M − η (M x − y) xᵀ (η = 1/2, x = e_0, y = 0)."""
    return _one_step(*c)[0]


@functools.lru_cache(maxsize=None)
def _one_step(n: int, L: int):
    params, _, _, _, M = _sym_layer(n, L)
    theta0 = {p: (1 if str(p).endswith("_0") or str(p).endswith("_3") or str(p).startswith("d") else 0) for p in params}
    x, y, eta = sympy.Matrix([1] + [0] * (n - 1)), sympy.zeros(n, 1), sympy.Rational(1, 2)
    loss = sum((e ** 2 for e in (M * x - y)), sympy.Integer(0)) / 2
    theta1 = {p: theta0[p] - eta * sympy.diff(loss, p).subs(theta0) for p in params}
    M0 = M.subs(theta0)
    dense = M0 - eta * (M0 * x - y) * x.T
    spm = M.subs(theta1)
    return spm == dense, {"dense_step": dense, "spm_step": spm}


def gru_same(c) -> bool:
    """One GRU step (eq. 20-23, σ and tanh left as unevaluated functions, symbolic input x_t and state h_(t−1)) with each
    dense map replaced by an SPM applied pair by pair (:func:`loop_apply`), against the same GRU whose matrices are
    isomat's ``layer_matrix`` of those SPMs: the same expressions, so the same recursion at every step."""
    n, L, variant = c
    rng = np.random.default_rng(6 + n + L)
    # σ and tanh as undefined functions: the identity must hold whatever they are, and SymPy does not try to evaluate them
    sig, tanh = sympy.Function("sigma"), sympy.Function("tanh")
    spms = []
    for _ in range(6):  # W_z, U_z, W_r, U_r, W_h, U_h
        if variant == "rotation":
            p, q, r = ((3, 4, 5), (5, 12, 13), (8, 15, 17))[int(rng.integers(3))]
            cs = [[(sympy.Rational(p, r), sympy.Rational(q, r))] * (n // 2) for _ in range(L)]
            blocks = [[(co, -si, si, co) for co, si in st] for st in cs]
            params = np.array([[sympy.atan2(si, co) for co, si in st] for st in cs], dtype=object)
        else:
            params = np.array(rng.integers(-3, 4, size=(L, n // 2, 4)).tolist(), dtype=object)
            blocks = [[tuple(int(v) for v in params[ell, k]) for k in range(n // 2)] for ell in range(L)]
        d_in, d_out = [int(v) for v in rng.integers(1, 4, n)], [int(v) for v in rng.integers(1, 4, n)]
        pairs = [butterfly_pairs(n, ell) for ell in range(L)]
        lay = spm_layer(n, [np.array(p) for p in pairs], params, variant=variant,
                        d_in=[sympy.Integer(v) for v in d_in], d_out=[sympy.Integer(v) for v in d_out], backend="sympy")
        M = sympy.Matrix(layer_matrix(lay))
        spms.append((list(zip(pairs, blocks)), d_in, d_out, M))

    def step(x, h, as_matrix):
        def lin(i, v):
            stages, d_in, d_out, M = spms[i]
            out = list(M * sympy.Matrix(v)) if as_matrix else loop_apply(n, stages, v, d_in, d_out)
            return [sympy.expand(e) for e in out]  # canonical arguments: equal maps give identical trees
        z = [sig(a + b) for a, b in zip(lin(0, x), lin(1, h))]
        r = [sig(a + b) for a, b in zip(lin(2, x), lin(3, h))]
        ht = [tanh(a + b) for a, b in zip(lin(4, x), lin(5, [ri * hi for ri, hi in zip(r, h)]))]
        return [(1 - zi) * hi + zi * hti for zi, hi, hti in zip(z, h, ht)]

    # one step with symbolic input and state: h_t = F(x_t, h_(t−1)) for every t, so equal steps are equal recursions
    x, h = list(sympy.symbols(f"x0:{n}")), list(sympy.symbols(f"h0:{n}"))
    out = [step(x, h, as_matrix) for as_matrix in (False, True)]
    return out[0] == out[1]


@claim(
    "farag2025:sec6/training-dynamics",
    quote="[§6:] We demonstrate how Stagewise Pairwise Mixers (SPM) can replace dense linear transformations inside "
          "recurrent architectures without altering their functional form or training dynamics. [§6.5:] SPM can "
          "replace dense recurrent transformations without modifying GRU semantics",
    statement=(
        "Two readings of 'training dynamics'. (a) How training moves the layer: one gradient step on ½‖Mx − y‖² "
        "from the same matrix (the identity; x = e_0, y = 0, η = 1/2) in the SPM's own parameters (blocks and both "
        "diagonals, SymPy gradient), mapped to its matrix, against the dense step M − η(Mx − y)xᵀ, general variant, "
        "(n, L) = (2, 1), (4, 1), (4, 2): they differ already at n = 2 -- an SPM is trained in its parameters, not "
        "its matrix. (b) §6.3's 'Backward Dynamics and Gradient Flow': the GRU (eq. 20-23) with each dense map "
        "replaced by an SPM is the same function of inputs and state as the GRU whose matrices are the SPMs' "
        "matrices (one step with symbolic x_t and h_(t−1), hence every step; σ and tanh unevaluated; n = 2, 4, L = 1, 2, rotation with "
        "rational cos/sin (n = 2) and general variants; SPMs applied pair by pair, matrices from isomat's layer_matrix), so "
        "the GRU's backward recursion (24)-(28) is unchanged; this is also the 'functional form' half."
    ),
    methods=["symbolic", "exhaustive", "exact"],
    hypotheses=("n a power of two >= 2 features, L >= 1 stages (§2's SPM)",
                lambda c: c[0] >= 2 and c[0] & (c[0] - 1) == 0 and c[1] >= 1),
)
def _sec6_training_dynamics():
    traj = exhaustive(one_step_same, [(2, 1), (4, 1), (4, 2)], describe="one gradient step, SPM vs dense, general "
                      "variant, (n, L) = (2, 1), (4, 1), (4, 2)", witness=lambda c: _one_step(*c)[1], method="exact")
    form = exhaustive(gru_same, [(2, 1, "general"), (2, 1, "rotation"), (4, 2, "general")],
                      describe="SPM-GRU step == GRU step with the SPMs' matrices, symbolic input and state", method="symbolic")
    return by_readings(
        Reading("training trajectory", "One gradient step moves the SPM's matrix as it moves a dense matrix.",
                decide(traj, functional_form=form)),
        Reading("backward dynamics (§6.3's sense)", "The SPM-GRU is the GRU with the SPMs' matrices, so its forward "
                "and backward recursions are the GRU's.", decide(form)),
    )


# ---------------------------------------------------------------------------------------------
# §2.2: expressive power increases with depth
# ---------------------------------------------------------------------------------------------
def _rank(rows) -> int:
    """Exact rank of an integer matrix (SymPy's DomainMatrix over ZZ)."""
    rows = [[ZZ(int(v)) for v in r] for r in rows]
    return DomainMatrix(rows, (len(rows), len(rows[0])), ZZ).rank()


def jacobian_rank(n: int, L: int, seed: int = 22) -> int:
    """Rank of the Jacobian of θ ↦ D_out B_L ⋯ B_1 D_in (general variant, butterfly schedule, stages built by loops)
    at a random integer point: the dimension of the set of L-stage SPM matrices (its generic rank; a random point
    attains it with probability 1). M is linear in each parameter, so each column is exact: the derivative in an
    entry (r, c) of stage ℓ is (D_out B_L ⋯ B_(ℓ+1))[:, r] (B_(ℓ−1) ⋯ B_1 D_in)[c, :]."""
    rng = np.random.default_rng(seed + 10 * n + L)
    blocks = [[tuple(int(v) for v in rng.integers(-5, 6, 4)) for _ in range(n // 2)] for _ in range(L)]
    d_in, d_out = ([int(v) for v in rng.integers(1, 6, n)] for _ in range(2))
    stages = [np.array(naive_stage(n, butterfly_pairs(n, ell), blocks[ell]).tolist(), dtype=object) for ell in range(L)]
    right = [np.diag(np.array(d_in, dtype=object))]          # right[ℓ] = B_ℓ ⋯ B_1 D_in
    for S in stages:
        right.append(S.dot(right[-1]))
    left = [np.diag(np.array(d_out, dtype=object))]           # left[k] = D_out B_L ⋯ B_(L−k+1)
    for S in reversed(stages):
        left.append(left[-1].dot(S))
    cols = []
    for ell in range(L):
        Lm, Rm = left[L - ell - 1], right[ell]                 # around stage ell + 1
        for i, j in butterfly_pairs(n, ell):
            for r, c in ((i, i), (i, j), (j, i), (j, j)):
                cols.append(np.outer(Lm[:, r], Rm[c, :]).ravel())
    for i in range(n):
        cols.append(np.outer(left[L][:, i], np.eye(n, dtype=int)[i]).ravel())    # d_in[i]
        cols.append(np.outer(np.eye(n, dtype=int)[i], right[L][i, :]).ravel())   # d_out[i]
    return _rank(cols)


@claim(
    "farag2025:sec2.2/expressive-depth",
    quote="The composition over L stages yields a global linear operator whose expressive power increases with depth",
    statement=(
        "Expressive power = the dimension of the set of n×n matrices an L-stage SPM represents (general variant, "
        "butterfly schedule, both diagonals): the rank of the Jacobian of θ ↦ D_out B_L ⋯ B_1 D_in at a random "
        "integer point (exact rank, each column exact as M is linear in each parameter; the generic rank with "
        "probability 1, so sampled; an exact check -- the rank of the Jacobian over symbolic parameters -- is "
        "infeasible here: it is read at one random point instead), n = 4, L = 1..4, and n = 8, L = 1..3. Readings of 'increases'. (a) Never "
        "decreases: the dimension is non-decreasing in L (an identity stage embeds L stages in L + 1). (b) Strictly, "
        "at every depth: it fails once the class fills all n² dimensions -- for n = 4 at L = 3 (16 = n²), so L = 4 "
        "adds nothing."
    ),
    methods=["exact", "exhaustive"],
    hypotheses=("n a power of two >= 2 features, depths L >= 1 (§2.2)",
                lambda c: all(n >= 2 and n & (n - 1) == 0 and L >= 1 for n, L in c)),
)
def _sec22_expressive():
    ranks = {(n, L): jacobian_rank(n, L) for n, Ls in ((4, range(1, 5)), (8, range(1, 4))) for L in Ls}
    steps = [((n, L), (n, L + 1)) for (n, L) in ranks if (n, L + 1) in ranks]
    ev = {"dimension": {f"n={n}, L={L}": r for (n, L), r in ranks.items()}}

    def trial(strict: bool) -> Trial:
        return exhaustive(lambda s: ranks[s[1]] > ranks[s[0]] if strict else ranks[s[1]] >= ranks[s[0]], steps,
                          describe=f"dimension {'strictly increasing' if strict else 'non-decreasing'} from L to L + 1",
                          witness=lambda s: {"L": s[0][1], "n": s[0][0], "dim_L": ranks[s[0]], "dim_L+1": ranks[s[1]]},
                          method="exact", strength="sampled")

    return by_readings(
        Reading("non-decreasing", "The represented set's dimension never decreases with depth.",
                decide(trial(False), **ev)),
        Reading("strictly increasing", "Every added stage increases the represented set's dimension.",
                decide(trial(True), **ev)),
    )


# ---------------------------------------------------------------------------------------------
# §5: memory, activations included
# ---------------------------------------------------------------------------------------------
class _Saved(dict):
    """Forward intermediates kept for the backward; records how many numbers the backward reads."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def numbers_read(self) -> int:
        return sum(len(dict.__getitem__(self, k)) for k in self.read)


def loop_backward(n: int, stages, d_in, d_out, saved, g):
    """The exact backward of §4 by loops, reading forward values only through ``saved`` (x and z_0..z_L): eq. (15),
    (17), then per stage from the last (12)-(14), then (18)-(19). Returns (g_x, parameter gradients)."""
    L = len(stages)
    grads = {"d_out": [g[i] * saved[f"z{L}"][i] for i in range(n)]}        # (17)
    gz = [d_out[i] * g[i] for i in range(n)]                                # (15)
    for ell in range(L - 1, -1, -1):
        pairs, blocks = stages[ell]
        zin, new = saved[f"z{ell}"], list(gz)
        for (i, j), (a, b, c, d) in zip(pairs, blocks):
            grads[f"stage{ell}{i}{j}"] = (gz[i] * zin[i], gz[i] * zin[j], gz[j] * zin[i], gz[j] * zin[j])  # (14)
            new[i], new[j] = a * gz[i] + c * gz[j], b * gz[i] + d * gz[j]                              # (12)-(13)
        gz = new
    grads["d_in"] = [gz[i] * saved["x"][i] for i in range(n)]              # (19)
    return [d_in[i] * gz[i] for i in range(n)], grads                       # (18)


def _forward_saved(n: int, stages, d_in, x) -> _Saved:
    saved = _Saved(x=list(x))
    z = [x[i] * d_in[i] for i in range(n)]
    for ell, st in enumerate(stages):
        saved[f"z{ell}"] = list(z)
        z = loop_apply(n, [st], z)
    saved[f"z{len(stages)}"] = list(z)
    saved.read.clear()  # only what the backward reads is counted
    return saved


def _random_stages(n: int, L: int, rng):
    return [(butterfly_pairs(n, ell), [tuple(int(v) for v in rng.integers(-2, 3, 4)) for _ in range(n // 2)])
            for ell in range(L)]


def spm_saved_read(n: int, L: int) -> int:
    """Numbers the exact backward of §4 reads from the forward, for one example (general variant, butterfly
    schedule, integer data): eq. (17) reads z_L, eq. (14) each stage's input pair, eq. (19) x."""
    rng = np.random.default_rng(n + L)
    stages = _random_stages(n, L, rng)
    d_in, d_out, x, g = ([int(v) for v in rng.integers(1, 3, n)] for _ in range(4))
    saved = _forward_saved(n, stages, d_in, x)
    loop_backward(n, stages, d_in, d_out, saved, g)
    return saved.numbers_read()


def dense_saved_read(n: int) -> int:
    """Numbers the backward of y = W x + b reads from the forward: ∇W = g xᵀ reads x (∇x = Wᵀ g reads a parameter)."""
    saved = _Saved(x=list(range(n)))
    g = list(range(1, n + 1))
    _ = [[g[i] * saved["x"][j] for j in range(n)] for i in range(n)]
    return saved.numbers_read()


@claim(
    "farag2025:sec5/memory",
    quote="When used as a drop-in replacement, SPM reduces both compute and memory costs by a factor of O(n/L) "
          "while retaining exact gradients and global linearity.",
    statement=(
        "The memory half, for every resource memory holds in training. (a) Weights: dense n² against SPM's 2nL + 2n "
        "(general) -- a reduction by n/(2(L + 1)), Θ(n/L) (counted, n = 2..64 even powers of two, L = 1..log₂ n; as "
        "sec5/ratio). (b) Activations the exact backward needs: an instrumented loop backward of eq. (12)-(19) "
        "reads x, every stage's input z_0..z_(L−1) and z_L -- (L + 2)n numbers per example -- where the dense "
        "backward (∇W = g xᵀ) reads x, n numbers: SPM needs L + 2 times more, no reduction (n = 4, 8, L = 1..3). "
        "(c) Everything at §9.3's setting (d = 4096, L = 12, batch 32 × 128 positions, rotation variant, "
        "weights nL/2 + 3n): SPM's weights and activations together exceed the dense layer's."
    ),
    methods=["exhaustive", "exact"],
    hypotheses=("positive sizes: n features, L stages (§5), or §9.3's byte counts",
                lambda c: all(isinstance(v, int) and v >= 1 for v in c)),
)
def _sec5_memory():
    def weights_ok(c):
        n, L = c
        r = Fraction(n * n, 2 * n * L + 2 * n)
        return r == Fraction(n, 2 * (L + 1)) and Fraction(n, 4 * L) <= r <= Fraction(n, 2 * L)

    weights = exhaustive(weights_ok, [(2 ** k, L) for k in range(1, 7) for L in range(1, k + 1)],
                         describe="dense n² / SPM 2nL + 2n == n/(2(L + 1)), within [n/(4L), n/(2L)]", method="exact")
    act_cases = [(n, L) for n in (4, 8) for L in (1, 2, 3)]
    counts = {f"n={n}, L={L}": {"spm": spm_saved_read(n, L), "dense": dense_saved_read(n)} for n, L in act_cases}
    acts = exhaustive(lambda c: spm_saved_read(*c) < dense_saved_read(c[0]), act_cases,
                      describe="activation numbers read by the backward: SPM below dense", method="exact",
                      witness=lambda c: {"spm_reads": spm_saved_read(*c), "dense_reads": dense_saved_read(c[0])})
    formula = exhaustive(lambda c: spm_saved_read(*c) == (c[1] + 2) * c[0] and dense_saved_read(c[0]) == c[0],
                         act_cases, describe="instrumented counts == (L + 2)n and n", method="exact")
    d, L, rows = 4096, 12, 32 * 128
    dense_total, spm_total = d * d + d + rows * d, L * d // 2 + 3 * d + rows * (L + 2) * d
    total = exhaustive(lambda c: c[1] < c[0], [(dense_total, spm_total)], method="exact",
                       describe="§9.3: SPM weights + activations below the dense layer's",
                       witness=lambda c: {"dense": c[0], "spm": c[1], "spm_over_dense": f"{c[1] / c[0]:.2f}"})
    return by_readings(
        Reading("weights", "SPM's weights are fewer than a dense layer's by Θ(n/L).", decide(weights)),
        Reading("activations for the backward", "SPM's stored activations are fewer than a dense layer's.",
                decide(acts, counts_formula=formula, counts=counts)),
        Reading("weights and activations at §9.3", "At §9.3's setting SPM's training memory is below the dense "
                "layer's.", decide(total)),
    )


# ---------------------------------------------------------------------------------------------
# §6.4: gradient propagation "local, stable, and linear in the number of stages"
# ---------------------------------------------------------------------------------------------
class _Counted:
    """A number that counts the multiplications made with it (the backward's cost, counted as it runs)."""

    count = 0

    def __init__(self, v):
        self.v = v

    def _val(self, o):
        return o.v if isinstance(o, _Counted) else o

    def __mul__(self, o):
        _Counted.count += 1
        return _Counted(self.v * self._val(o))

    __rmul__ = __mul__

    def __add__(self, o):
        return _Counted(self.v + self._val(o))

    __radd__ = __add__


def backward_multiplications(n: int, L: int) -> int:
    """Multiplications the loop backward makes for one example, counted as it runs (general variant, butterfly)."""
    rng = np.random.default_rng(7 * n + L)
    stages = _random_stages(n, L, rng)
    d_in, d_out, x, g = ([int(v) for v in rng.integers(1, 3, n)] for _ in range(4))
    saved = _forward_saved(n, stages, d_in, x)
    _Counted.count = 0
    loop_backward(n, stages, d_in, d_out, saved, [_Counted(v) for v in g])
    return _Counted.count


def gradient_gain(n: int, L: int, variant: str) -> Fraction:
    """‖g_z0‖² / ‖g_zL‖² through L stages (D_in = D_out = I), exact: rotations by the (3, 4, 5) angle, or the
    general block 2·I (a valid general 2×2 block)."""
    blk = (Fraction(3, 5), Fraction(-4, 5), Fraction(4, 5), Fraction(3, 5)) if variant == "rotation" else (2, 0, 0, 2)
    stages = [(butterfly_pairs(n, ell), [blk] * (n // 2)) for ell in range(L)]
    g = [Fraction(k + 1) for k in range(n)]
    saved = _forward_saved(n, stages, [1] * n, [0] * n)
    gx, _ = loop_backward(n, stages, [1] * n, [1] * n, saved, g)
    return sum(v * v for v in gx) / sum(v * v for v in g)


@claim(
    "farag2025:sec6.4/gradient-flow",
    quote="Because each SPM stage consists of independent 2 × 2 blocks, gradient propagation remains local, stable, "
          "and linear in the number of stages.",
    statement=(
        "Two properties of the SPM backward (eq. (12)-(19), loops). Linear in the number of stages: the "
        "multiplications one example's backward makes, counted as it runs, for n = 8 and L = 1..6, have constant "
        "differences (4n per stage). Stable, read as §6.5 argues it -- the stages' backward B_ℓᵀ preserves the "
        "gradient's norm (exact rationals, n = 4, L = 1..5, D_in = D_out = I). Readings by variant: (a) the rotation "
        "variant (rotations by the (3, 4, 5) angle): the norm is kept exactly; (b) every variant, the general 2×2 "
        "block included: the block 2·I doubles the gradient at every stage, ‖g‖² grows as 4^L. 'Local' is the "
        "block structure itself (a pair's gradient reads only its two coordinates) and is not checked apart."
    ),
    methods=["exhaustive", "exact"],
    hypotheses=("L >= 1 stages (§6.4)",
                lambda c: isinstance(c, int) and c >= 1),
)
def _sec64_gradient_flow():
    counts = {L: backward_multiplications(8, L) for L in range(1, 7)}
    linear = exhaustive(lambda L: counts[L + 1] - counts[L] == counts[2] - counts[1], range(1, 6),
                        describe="backward multiplications, n = 8: equal differences from L to L + 1, L = 1..6",
                        method="exact")

    def stable(variant):
        return exhaustive(lambda L: gradient_gain(4, L, variant) == 1, range(1, 6), method="exact",
                          describe=f"{variant}: ‖g_z0‖² == ‖g_zL‖² through L stages, n = 4, L = 1..5",
                          witness=lambda L: {"L": L, "gain_squared": gradient_gain(4, L, variant)})

    ev = dict(multiplications={L: c for L, c in counts.items()})
    return by_readings(
        Reading("rotation variant", "Rotation stages keep the gradient's norm; the cost is linear in L.",
                decide(all_of(stable("rotation"), linear), **ev)),
        Reading("every variant", "Every variant's stages keep the gradient's norm; the cost is linear in L.",
                decide(all_of(stable("general"), linear), **ev)),
    )


# ---------------------------------------------------------------------------------------------
# §7.2: the attention layer "scales near-linearly in the model dimension"
# ---------------------------------------------------------------------------------------------
def attention_multiplications(T: int, d: int, *, spm: bool = True) -> int:
    """Multiplications of one attention layer (eq. 29-35, one head, softmax not counted) on T tokens of width d,
    counted as it runs: Q, K, V and the output projection by SPMs with L = log₂ d general stages (pair by pair,
    :func:`loop_apply`) or by dense d×d matrices, then S = QKᵀ and H = AV by loops."""
    rng = np.random.default_rng(T + d)
    L = d.bit_length() - 1
    X = [[_Counted(int(v)) for v in rng.integers(-2, 3, d)] for _ in range(T)]
    _Counted.count = 0
    if spm:
        projs = [(_random_stages(d, L, rng), [1] * d, [1] * d) for _ in range(4)]
        proj = lambda k, rows: [loop_apply(d, projs[k][0], r, projs[k][1], projs[k][2]) for r in rows]  # noqa: E731
    else:
        Ws = [rng.integers(-2, 3, (d, d)).tolist() for _ in range(4)]
        proj = lambda k, rows: [[sum((r[i] * Ws[k][i][j] for i in range(d)), _Counted(0)) for j in range(d)]  # noqa: E731
                                for r in rows]
    Q, K, V = proj(0, X), proj(1, X), proj(2, X)
    S = [[sum((Q[t][c] * K[u][c] for c in range(d)), _Counted(0)) for u in range(T)] for t in range(T)]
    H = [[sum((S[t][u] * V[u][c] for u in range(T)), _Counted(0)) for c in range(d)] for t in range(T)]
    proj(3, H)
    return _Counted.count


@claim(
    "farag2025:sec7.2/near-linear",
    quote="Since L is typically constant or logarithmic, the resulting attention layer scales near-linearly in the "
          "model dimension.",
    statement=(
        "The multiplications of one SPM attention layer (four SPM projections with L = log₂ d stages, S = QKᵀ, "
        "H = AV; softmax not counted), counted as the layer runs by loops, T = 4 tokens, d = 4, 8, 16, 32. "
        "Near-linear = O(d log d): each doubling of d multiplies the count by at most 2·log₂(2d)/log₂ d. Readings. "
        "(a) In the model dimension with the sequence length fixed (the sentence's variable): holds. (b) With the "
        "sequence growing as the width (T = d, d = 4, 8): the T²d of QKᵀ and AV take over and the doubling "
        "multiplies the count by 6 (×8 as T²d dominates) -- not supported: the sentence speaks of the model "
        "dimension alone. The dense layer's count (d² per projection) is recorded beside."
    ),
    methods=["exhaustive", "exact"],
    hypotheses=("widths a power of two >= 2 (§7.2)",
                lambda c: all(v >= 2 and v & (v - 1) == 0 for v in c)),
)
def _sec72_near_linear():
    ds = (4, 8, 16, 32)
    fixed = {d: attention_multiplications(4, d) for d in ds}
    grown = {d: attention_multiplications(d, d) for d in ds[:2]}
    dense = {d: attention_multiplications(4, d, spm=False) for d in ds[:2]}

    def near_linear(counts):
        steps = [(a, b) for a, b in zip(sorted(counts), sorted(counts)[1:])]
        return exhaustive(lambda s: Fraction(counts[s[1]], counts[s[0]]) <= 2 * Fraction(s[1].bit_length() - 1,
                                                                                          s[0].bit_length() - 1),
                          steps, describe="count(2d)/count(d) <= 2 log₂(2d)/log₂ d", method="exact",
                          witness=lambda s: {"d": s[0], "count_d": counts[s[0]], "count_2d": counts[s[1]]})

    ev = dict(spm_counts_T4=fixed, spm_counts_T_eq_d=grown, dense_counts_T4=dense)
    return by_readings(
        Reading("sequence length fixed", "The layer's cost is O(d log d) in the model dimension d.",
                decide(near_linear(fixed), **ev)),
        Reading("sequence grows with the width", "The layer's cost is O(d log d) when T = d.",
                decide(near_linear(grown), **ev), supported=False),
    )


__all__ = ["attention_multiplications", "backward_multiplications", "butterfly_pairs", "gradient_gain", "jacobian_rank", "loop_apply",
           "loop_backward", "min_blocks", "spm_saved_read"]
