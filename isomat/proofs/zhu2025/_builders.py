"""zhu2025: the builders' binding checks at the sizes and options users run (issue 36, items 1 and 2).

A proof certifies an entry rule; a binding check ties the rule to the code users run. Each check here
is exhaustive up to a stated bound, then random (seeded) from just above that bound -- no gap -- and
then at the sizes users run, where the CSR arrays (``indptr``/``indices``/``data``) are checked
directly and vectorized, never densified: the index arrays' ranges and canonical order, every stored
entry against the proved rule, the exact number of stored entries of every row, and the exact row and
column sums, all computed from the definition here (no code shared with :mod:`isomat.algebra`). Every
option and boundary of the builder is run against direct loops written from the definition, and the
builder's size thresholds (blocking, threading, int32/int64 indices) are set small
(:func:`isomat.algebra.conv._paths_at_small_sizes`) so that every path runs at small sizes.

Each check is an :func:`~isomat.proofs.engine.builder_check` (none of these builders is derived from its
proved rule): a claim passes it to ``decide`` as a keyword, so a builder that disagrees makes the claim an
``error``, and the claim's headline strength is the weaker of its proof and the check's exact part
(exhaustive to the stated bound); the statement says so with :func:`~isomat.proofs.engine.builder_note`.
"""

from __future__ import annotations

import functools
import itertools
import math
import re

import numpy as np

from ...algebra._backend import to_numpy
from ..engine import builder_check, builder_note, device_cached, exhaustive  # noqa: F401  (builder_note: the sections')

_SEED = 20261129

#: what the binding statements say about each builder (the claims' statements quote them)
CONV_BOUND = ("conv_matrix checked exhaustively to H, W <= 4, at 12 random geometries H, W in [5, 64], every "
              "boundary, groups, channels, 1-d and 3-d layers, formats (the diagonal storage too), the exact field and "
              "row blocks, its blocking / threading / int64 / memory paths forced at small sizes, and at the sizes users run (2048² single-channel and 64→64 at 56², 3×3, row blocks: "
              "every stored entry against the rule, nnz per row, row and column sums)")
ZHU_CONV_BOUND = ("zhu_conv_matrix checked exhaustively to m, n <= 5, at 12 random sizes m, n in [6, 64], every "
                  "overflow mode, and at 256² and 300×177 (every stored entry against the rule, nnz per row, row sums)")
POOL_BOUND = ("zhu_pool_matrix checked exhaustively to m, n <= 8 (p <= 4), at 8 random sizes p <= 5 with 3 to 64 "
              "windows a side, and at 1024² (p = 2) and 256² (p = 4) (both flattenings: every stored entry, nnz per row and per "
              "column), with its defaults, every format and the exact field")
AVGPOOL_BOUND = ("avgpool_matrix checked exhaustively to m, n <= 6 (k, s <= 3), at 8 random sizes m, n in [7, 64], "
                 "against direct loops of torch's definition for every padding, ceil_mode, count_include_pad, "
                 "divisor_override and channels (and an int window with ndim, a 1-d input, the exact field), and at 1024² (k = 2; "
                 "with padding, ceil_mode and count_include_pad=False at 2×255×253): every stored entry, nnz per row and per "
                 "column); its defaults, every format, its memory bound and refusals, and pool_output_shape against torch's "
                 "output-size formula with dilation and ceil_mode")
RNN_BOUND = ("rnn_matrix checked exhaustively to M, N, T <= 3, at 8 random sizes T in [4, 40], and at T = 256 "
             "(every stored entry against V^(t−s)U, nnz per row, row sums), with a non-square U in every field "
             "spelling, scalar weights and its refusals")
ATTENTION_BOUND = ("linear_attention_matrix checked symbolically to T, d, d_v <= 2, at 8 random integer instances "
                   "T in [3, 64], and at T = 64 (every stored entry, nnz per row, row sums), with d_k != d in every "
                   "field spelling, and its memory bound")
ZHU_ROWS_BOUND = "zhu_conv_rows checked exhaustively to m, n <= 6 (s <= 4) and at 20 random sizes m, n in [7, 500]"
MAIN_TEXT_BOUND = ("zhu_rnn_main_text checked symbolically against the printed formula by loops (scalars, m <= 5; "
                   "M×M matrices, M, m <= 3), with a non-square W_xh in every field spelling, numbers as weights, its "
                   "memory bound and its refusals")


# ---------------------------------------------------------------------------------------------
# CSR arrays, read directly
# ---------------------------------------------------------------------------------------------
def _csr(A, shape):
    """(rows, cols, vals) of every stored entry of ``A`` (host NumPy, int64 indices), or None when ``A`` is
    not a well-formed CSR of ``shape``: indptr starting at 0, nondecreasing, ending at nnz; column indices in
    range; no position stored twice."""
    if tuple(A.shape) != tuple(shape):
        return None
    if not hasattr(A, "indptr"):
        A = A.tocsr()
    indptr = np.asarray(to_numpy(A.indptr), dtype=np.int64)
    cols = np.asarray(to_numpy(A.indices), dtype=np.int64)
    vals = np.asarray(to_numpy(A.data))
    R, C = shape
    if indptr.shape != (R + 1,) or indptr[0] != 0 or indptr[-1] != cols.size or vals.size != cols.size:
        return None
    counts = np.diff(indptr)
    if (counts < 0).any() or (cols.size and (cols.min() < 0 or cols.max() >= C)):
        return None
    rows = np.repeat(np.arange(R, dtype=np.int64), counts)
    key = rows * C + cols
    if key.size > 1 and not bool((np.diff(key) > 0).all()):
        if getattr(A, "has_canonical_format", False) or getattr(A, "has_sorted_indices", False):
            return None  # flagged sorted and duplicate-free, and it is not
        key = np.sort(key)
        if not bool((np.diff(key) > 0).all()):
            return None
    return rows, cols, vals


def _sums_ok(rows, cols, vals, shape, row_sum=None, col_sum=None, row_nnz=None) -> bool:
    """Exact per-row counts and row / column sums of the stored entries against expected arrays."""
    R, C = shape
    if row_nnz is not None and not np.array_equal(np.bincount(rows, minlength=R), row_nnz):
        return False
    if row_sum is not None and not np.array_equal(np.bincount(rows, weights=vals, minlength=R), row_sum):
        return False
    if col_sum is not None and not np.array_equal(np.bincount(cols, weights=vals, minlength=C), col_sum):
        return False
    return True


#: above this many stored entries the proved rule is evaluated on a seeded sample of this many of them
#: (the definition-based checks -- index ranges, values, counts, sums -- still read every entry)
RULE_SAMPLE = 20000


def _sample(n: int):
    """Indices of the stored entries the rule is evaluated on: all of them, or RULE_SAMPLE seeded ones."""
    if n <= RULE_SAMPLE:
        return slice(None)
    return np.sort(np.random.default_rng(_SEED + n).choice(n, RULE_SAMPLE, replace=False))


def _seeded_check(builder, ok, seed, small, draw, describe, users, describe_users):
    """The builder check of ``builder``: ``ok`` on every case of ``small``, on 8 cases ``draw(rng, i)`` of a NumPy
    generator seeded ``seed``, and at the sizes users run; ``describe`` is (small, random) with ``{seed}``."""
    rng = np.random.default_rng(seed)
    rand = [draw(rng, i) for i in range(8)]
    return builder_check(*_cases(small, rand, describe[0], describe[1].format(seed=seed), ok, users, describe_users),
                         derived_from_rule=False, builder=builder)


def _cases(small, random_cases, describe_small, describe_random, ok, users=None, describe_users=None):
    parts = [exhaustive(ok, small, describe=describe_small)]
    parts.append(exhaustive(ok, random_cases, describe=describe_random, strength="sampled"))
    if users is not None:
        parts.append(exhaustive(ok, users, describe=describe_users, strength="sampled"))
    return parts


# ---------------------------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------------------------
def _axis_valid(n, O, k, s, lo, d):
    """(O × k) input index along one axis and whether it is inside [0, n): the definition
    Y[o] reads X[o s − lo + a d]."""
    idx = np.arange(O, dtype=np.int64)[:, None] * s - lo + np.arange(k, dtype=np.int64)[None, :] * d
    return idx, (idx >= 0) & (idx < n)


def _conv_out(n, k, s, lo, hi, d):
    return (n + lo + hi - d * (k - 1) - 1) // s + 1


def _conv_values(C_out, cpg, KH, KW):
    """Kernel whose entries are 1, 2, ...: each stored entry of a zero-boundary matrix is one kernel entry,
    so its value names (output channel, input channel, tap)."""
    return np.arange(1, C_out * cpg * KH * KW + 1, dtype=np.float64).reshape(C_out, cpg, KH, KW)


def _conv_block_ok(c, field="numpy") -> bool:
    """conv_matrix (zero boundary, ``C_in → C_out``, ``groups``), output rows [r0, r1), against the rule
    conv2d_tap on every stored entry, per-row counts, row sums and column sums from the definition."""
    from ...algebra import conv as _conv

    C_in, C_out, groups, H, W, KH, KW, s, l, d, r0, r1 = c
    cpg, opg = C_in // groups, C_out // groups
    K = _conv_values(C_out, cpg, KH, KW)
    O1, O2 = _conv_out(H, KH, s[0], l[0], l[0], d[0]), _conv_out(W, KW, s[1], l[1], l[1], d[1])
    single = C_in == C_out == 1
    shape_in = (H, W) if single else (C_in, H, W)
    # options at their defaults are left out (stride 1, padding 0, dilation 1, groups 1, every row): the
    # defaults are run too
    kw = {k: v for k, v, default in (("stride", s, (1, 1)), ("padding", l, (0, 0)), ("dilation", d, (1, 1)),
                                     ("groups", groups, 1), ("rows", (r0, r1), (0, C_out * O1 * O2))) if v != default}
    A = _conv.conv_matrix(shape_in, K[0, 0] if single else K, backend=field, **kw)
    kw.pop("rows", None)
    if _conv.conv_output_shape(shape_in, K.shape[2:] if single else K.shape, **kw) != ((O1, O2) if single
                                                                                     else (C_out, O1, O2)):
        return False
    got = _csr(A, (r1 - r0, C_in * H * W))
    if got is None:
        return False
    rows, cols, vals = got
    g_row = rows + r0
    co, o = g_row // (O1 * O2), g_row % (O1 * O2)
    ci, j = cols // (H * W), cols % (H * W)
    tap = _conv.conv2d_tap(o, j, H, W, KH, KW, stride=s, padding=l, dilation=d)  # the proved rule
    cl = ci - (co // opg) * cpg  # input channel within the output channel's group
    if not bool(((tap >= 0) & (cl >= 0) & (cl < cpg)).all()):
        return False
    if not np.array_equal(vals, K[co, cl, tap // KW, tap % KW]):
        return False
    # from the definition, per axis: the taps inside the input of every output position
    i1, v1 = _axis_valid(H, O1, KH, s[0], l[0], d[0])
    i2, v2 = _axis_valid(W, O2, KW, s[1], l[1], d[1])
    if H * W <= 64 and (r0, r1) == (0, C_out * O1 * O2):
        # the rule on every (output position, input pixel), its zero entries included (the stored ones alone
        # cannot show a tap the rule gives where the definition has none): tap a K_W + b exactly where the
        # definition's position reads pixel (i1[o1, a], i2[o2, b]) inside the input, -1 elsewhere
        want = np.full((O1 * O2, H * W), -1, dtype=np.int64)
        for o1, a, o2, b in itertools.product(range(O1), range(KH), range(O2), range(KW)):
            if v1[o1, a] and v2[o2, b]:
                want[o1 * O2 + o2, i1[o1, a] * W + i2[o2, b]] = a * KW + b
        every = _conv.conv2d_tap(np.arange(O1 * O2)[:, None], np.arange(H * W)[None, :], H, W, KH, KW,
                                 stride=s, padding=l, dilation=d)
        if not np.array_equal(every, want):
            return False
    R = np.arange(r0, r1, dtype=np.int64)
    rc, ro1, ro2 = R // (O1 * O2), (R // O2) % O1, R % O2
    nnz = cpg * v1.sum(1)[ro1] * v2.sum(1)[ro2]
    if C_in * H * W <= 64:  # small: every entry and the count of every row pin the matrix; sums add nothing
        return _sums_ok(rows, cols, vals, (r1 - r0, C_in * H * W), row_nnz=nnz)
    Ksum = K.sum(axis=1)  # (C_out, KH, KW): every input channel of the group
    row_sum = np.einsum("ra,rab,rb->r", v1[ro1].astype(np.float64), Ksum[rc], v2[ro2].astype(np.float64))
    # column sums: the forward definition, every (row, input channel, tap) of the block enumerated
    ra, rb = np.nonzero(np.ones((KH, KW), dtype=bool))
    u, v = i1[ro1][:, ra], i2[ro2][:, rb]  # (rows, taps)
    inside = v1[ro1][:, ra] & v2[ro2][:, rb]
    col_sum = np.zeros(C_in * H * W)
    for q in range(cpg):
        chan = (rc // opg) * cpg + q
        colq = (chan[:, None] * (H * W) + u * W + v)[inside]
        np.add.at(col_sum, colq, K[rc, q][:, ra, rb][inside])
    return _sums_ok(rows, cols, vals, (r1 - r0, C_in * H * W), row_sum=row_sum, col_sum=col_sum, row_nnz=nnz)


def _single(H, W, KH, KW, s, l, d):
    O = _conv_out(H, KH, s[0], l[0], l[0], d[0]) * _conv_out(W, KW, s[1], l[1], l[1], d[1])
    return (1, 1, 1, H, W, KH, KW, s, l, d, 0, O)


def _conv_valid(H, W, KH, KW, l, d):
    return H + 2 * l[0] - d[0] * (KH - 1) >= 1 and W + 2 * l[1] - d[1] * (KW - 1) >= 1


def _conv_ref(C_in, C_out, groups, spatial, ktaps, s, l, d, boundary, K):
    """Dense matrix of the N-d convolution with ``boundary`` by direct loops over output channel, output
    position, input channel of the group and tap (torch's padding_mode: zeros read 0, circular wraps, reflect
    mirrors without the edge, replicate clamps); ``K`` is (C_out, C_in / groups, *ktaps)."""
    cpg, opg = C_in // groups, C_out // groups
    out = tuple(_conv_out(n, k, si, li, li, di) for n, k, si, li, di in zip(spatial, ktaps, s, l, d))

    def where(i, n):
        if 0 <= i < n:
            return i
        if boundary == "zero":
            return None
        if boundary == "circular":
            return i % n
        if boundary == "replicate":
            return min(max(i, 0), n - 1)
        while not 0 <= i < n:  # reflect: -1 reads 1, n reads n - 2
            i = -i if i < 0 else 2 * (n - 1) - i
        return i

    n_sp, n_out = math.prod(spatial), math.prod(out)
    M = np.zeros((C_out * n_out, C_in * n_sp))
    for co in range(C_out):
        for r, o in enumerate(itertools.product(*(range(x) for x in out))):
            for q in range(cpg):
                ci = (co // opg) * cpg + q
                for t in itertools.product(*(range(k) for k in ktaps)):
                    at = [where(oi * si - li + ti * di, n) for oi, si, li, ti, di, n in zip(o, s, l, t, d, spatial)]
                    if None not in at:
                        col = 0
                        for a, n in zip(at, spatial):  # row-major position of the read pixel
                            col = col * n + a
                        M[co * n_out + r, ci * n_sp + col] += K[(co, q) + t]
    return M


#: how each boundary is spelled to conv_matrix in the option checks: torch's padding_mode, isomat's boundary=, and
#: torch's "zeros" given as boundary= (every spelling the builder accepts is run)
_SPELLING = {"zero": ("padding_mode", "zeros"), "reflect": ("padding_mode", "reflect"),
             "circular": ("boundary", "circular"), "replicate": ("boundary", "replicate"), "zeros": ("boundary", "zeros")}


def _conv_option_ok(c, field="numpy") -> bool:
    """conv_matrix with a boundary (spelled as in :data:`_SPELLING`), channels and groups, in 1, 2 or 3
    dimensions, in every sparse format and as row blocks (a (start, stop) pair, a list, slices, empty
    blocks; an array pair refused), equal to the direct loops of the definition (values small integers: exact); its shape
    against conv_output_shape; and at one geometry per dimension a float32 kernel (a float32 matrix) and the exact
    field from a float kernel (backend="sympy": every entry an exact rational) and two threads."""
    import sympy

    from ...algebra import conv as _conv

    C_in, C_out, groups, spatial, ktaps, s, l, d, boundary = c
    K = np.arange(1, C_out * (C_in // groups) * math.prod(ktaps) + 1, dtype=np.float64).reshape(
        (C_out, C_in // groups) + tuple(ktaps))
    ref = _conv_ref(C_in, C_out, groups, spatial, ktaps, s, l, d, "zero" if boundary == "zeros" else boundary, K)
    out = tuple(_conv_out(n, k, si, li, li, di) for n, k, si, li, di in zip(spatial, ktaps, s, l, d))
    single = C_in == C_out == 1 and len(spatial) != 2  # 1-d and 3-d single channel: kernel (k..), input (n..)
    shape_in, Kb = (tuple(spatial), K[0, 0]) if single else ((C_in,) + tuple(spatial), K)
    how, name = _SPELLING[boundary]
    kw = {"stride": s, "padding": l, "dilation": d, how: name}
    if groups != 1:
        kw["groups"] = groups
    want = out if single else (C_out,) + out
    if _conv.conv_output_shape(shape_in, Kb.shape, stride=s, padding=l, dilation=d, groups=groups) != want:
        return False
    for fmt in ("csr", "csc", "coo", "operator"):
        A = _conv.conv_matrix(shape_in, Kb, format=fmt, backend=field, **kw)
        if tuple(A.shape) != ref.shape or not np.array_equal(_dense(A), ref):
            return False
        if getattr(A, "format", "operator") != fmt:  # the format asked for (a SparseOperator has none)
            return False
        if fmt == "csr" and field == "numpy":
            # well formed (row pointer, columns in range, sorted and distinct where flagged so), the wrapped
            # duplicates summed (the kernel's entries are positive: one stored entry per nonzero), int32 indices
            # (int64 when the check sets the int32 limit to 0: conv._paths_at_small_sizes)
            wide = np.dtype(np.int32 if _conv._INT32_MAX > 0 else np.int64)
            if (_csr(A, ref.shape) is None or A.nnz != np.count_nonzero(ref)
                    or A.indices.dtype != wide or A.indptr.dtype != wide):
                return False
    R = ref.shape[0]
    if field == "numpy":
        # the NumPy CSR is filled in place: the build holds its CSR arrays (a float64 and an int32 index per entry
        # read, before wrapped duplicates are summed; an int32 row pointer) and an int64 count per row, no COO
        # staging -- it fits a memory bound of exactly that
        from ..._config import memory_limit
        from ...algebra._operator import value_bytes
        from ...errors import SizeLimitError

        reads = np.count_nonzero(ref) if boundary in ("zero", "zeros") else R * (C_in // groups) * math.prod(ktaps)
        with memory_limit(reads * 12 + (R + 1) * 4 + 8 * R):
            A = _conv.conv_matrix(shape_in, Kb, backend=field, **kw)
            if not np.array_equal(_dense(A), ref):
                return False
            try:  # COO triplets are staged on the way to the other formats: refused at that bound
                _conv.conv_matrix(shape_in, Kb, format="coo", backend=field, **kw)
                return False
            except SizeLimitError:
                pass
        # so is the exact field (it stages too) at the bound of its direct CSR, a SymPy value charged value_bytes("sympy")
        with memory_limit(reads * (value_bytes("sympy") + 4) + (R + 1) * 4 + 8 * R):
            try:
                _conv.conv_matrix(shape_in, np.vectorize(sympy.Integer, otypes=[object])(Kb.astype(np.int64)), **kw)
                return False
            except SizeLimitError:
                pass
    half = R // 2
    blocks = (((0, half), (0, half)), (slice(half, None), (half, R)), ([half, half], (half, half)),
              (slice(half, half - 1), (half, half)))
    for rows, (r0, r1) in blocks:  # the slice block through the COO route (a block below the top, staged)
        B = _conv.conv_matrix(shape_in, Kb, rows=rows, backend=field, format="coo" if isinstance(rows, slice) else "csr",
                              **kw)
        if tuple(B.shape) != (r1 - r0, ref.shape[1]) or not np.array_equal(_dense(B), ref[r0:r1]):
            return False
        if field == "numpy" and _csr(B, B.shape) is None:  # a well-formed CSR, the empty blocks too
            return False
    try:  # a pair that is no tuple, list or slice is refused, not read as (start, stop)
        _conv.conv_matrix(shape_in, Kb, rows=np.array([0, half]), backend=field, **kw)
        return False
    except TypeError:
        pass
    if l == (1,) * len(spatial) and boundary == "zero" and field != "sympy":
        # a float32 kernel gives a float32 matrix (the builder keeps the kernel's dtype), equal to the loops: the
        # kernel's entries are small integers, exact in float32
        F = _conv.conv_matrix(shape_in, Kb.astype(np.float32), backend=field, **kw)
        if F.dtype != np.float32 or not np.array_equal(_dense(F), ref):
            return False
    if l == (1,) * len(spatial) and boundary == "zero" and field != "cupy":
        exact = np.vectorize(sympy.Integer, otypes=[object])(Kb.astype(np.int64))
        # a float kernel asked for the exact field, and an exact kernel with the field left to it
        for E in (_conv.conv_matrix(shape_in, Kb, backend="sympy", threads=2, **kw), _conv.conv_matrix(shape_in, exact, **kw)):
            D = np.array(sympy.Matrix(E).tolist(), dtype=object)
            if D.shape != ref.shape or not all(isinstance(v, sympy.Rational) and v == int(ref[i])
                                               for i, v in np.ndenumerate(D)):
                return False
        try:  # the diagonal storage holds floats: an exact kernel is refused (a ValueError naming the field)
            _conv.conv_matrix(shape_in, exact, format="diagonal", **kw)
            return False
        except ValueError:
            pass
    return True


def _conv_diagonal_ok(c, field="numpy") -> bool:
    """format="diagonal" (the block-diagonal storage) against the direct loops: stride 1, padding "same";
    built straight from the kernel (ungrouped, zero boundary, whole, float32/float64) or through the CSR
    matrix (groups, another boundary, a row block, a kernel wider than the image)."""
    from ...algebra import conv as _conv

    C_in, C_out, groups, spatial, ktaps, dl, boundary, dtype, rows = c
    d = len(spatial)
    K = np.arange(1, C_out * (C_in // groups) * math.prod(ktaps) + 1, dtype=np.float64).reshape(
        (C_out, C_in // groups) + tuple(ktaps))
    total = [di * (k - 1) for di, k in zip(dl, ktaps)]
    lo = tuple(t // 2 for t in total)
    if any(t % 2 for t in total):  # "same" puts the odd one on the high side: a geometry the loops do not take
        return False
    ref = _conv_ref(C_in, C_out, groups, spatial, ktaps, (1,) * d, lo, dl, boundary, K)
    try:
        A = _conv.conv_matrix((C_in,) + tuple(spatial), K.astype(dtype), padding="same", dilation=dl, groups=groups,
                              boundary=boundary, rows=rows, format="diagonal", backend=field)
    except ValueError:
        # refused as not banded: grouped layers (their zero blocks are stored too, twice the entries or more)
        # and wrapped ones (the wrapped taps are diagonals of their own)
        return groups > 1 or boundary != "zero"
    if groups > 1 or boundary != "zero":
        return False
    r0, r1 = (0, ref.shape[0]) if rows is None else rows
    if not np.array_equal(to_numpy(A.toarray()), ref[r0:r1]):
        return False
    if rows is None and all(k <= n for k, n in zip(ktaps, spatial)):
        # built from the kernel, the storage is all it holds: its values, one per (output channel, input
        # channel, tap, pixel), fit the memory bound that the CSR matrix the other route builds would pass
        from ..._config import memory_limit

        with memory_limit(C_out * C_in * math.prod(ktaps) * math.prod(spatial) * np.dtype(dtype).itemsize):
            B = _conv.conv_matrix((C_in,) + tuple(spatial), K.astype(dtype), padding="same", dilation=dl,
                                  format="diagonal", backend=field)
        return bool(np.array_equal(to_numpy(B.toarray()), ref))
    return True


def _dense(A) -> np.ndarray:
    if hasattr(A, "todense") and not hasattr(A, "toarray"):  # a SparseOperator
        A = A.todense()
    if hasattr(A, "toarray"):
        _well_formed(A)
    return np.asarray(to_numpy(A.toarray() if hasattr(A, "toarray") else A))


def _well_formed(A) -> None:
    """Raise ValueError unless the sparse result ``A``'s index arrays are in range (a row pointer from 0 to nnz,
    nondecreasing; indices inside the shape): SciPy's and CuPy's ``toarray`` trust them, and a broken builder's
    column past the last writes past the dense buffer (a crashed process, not a failed check)."""
    fmt = getattr(A, "format", None)
    R, C = (int(x) for x in A.shape)
    if fmt in ("csr", "csc"):
        major, minor = (R, C) if fmt == "csr" else (C, R)
        ptr = np.asarray(to_numpy(A.indptr), dtype=np.int64)
        idx = np.asarray(to_numpy(A.indices), dtype=np.int64)
        ok = (ptr.shape == (major + 1,) and ptr[0] == 0 and ptr[-1] == idx.size == np.asarray(to_numpy(A.data)).size
              and bool((np.diff(ptr) >= 0).all()) and (idx.size == 0 or (idx.min() >= 0 and idx.max() < minor)))
    elif fmt == "coo":
        r, c = (np.asarray(to_numpy(x), dtype=np.int64) for x in (A.row, A.col))
        ok = r.shape == c.shape and (r.size == 0 or (r.min() >= 0 and r.max() < R and c.min() >= 0 and c.max() < C))
    else:
        ok = fmt is not None
    if not ok:
        raise ValueError(f"the builder returned a malformed {fmt} matrix of shape {(R, C)} (indices out of range)")


#: (C_in, C_out, H, W, K, stride, padding, rows) of the index-width check: each makes one extent -- columns, output
#: rows, stored entries -- the only one above an int32 limit set between them (see :func:`_conv_index_width_ok`)
CONV_INDEX_WIDTH = [(1, 1, 9, 9, 1, 2, 0, None),   # 81 columns > 25 rows = 25 entries: the columns decide
                    (1, 4, 5, 5, 3, 1, 1, (0, 2)),  # 100 rows (the layer's) > 25 columns > 12 entries (two rows)
                    (1, 1, 5, 5, 3, 1, 1, None)]    # 169 entries > 25 rows = 25 columns: the entries decide


def _conv_index_width_ok(c, field="numpy") -> bool:
    """The builder's index dtype against its rule -- int64 exactly when the columns, the output rows or the stored
    entries pass the int32 limit, int32 otherwise, the row pointer and the columns alike -- with the limit set
    (conv._paths_at_small_sizes) just below and at the largest extent, so each extent's part in the choice runs at
    a small size; the matrix equal to the direct loops each time."""
    from ...algebra import conv as _conv

    C_in, C_out, H, W, k, s, p, rows = c
    K = np.arange(1, C_out * C_in * k * k + 1, dtype=np.float64).reshape(C_out, C_in, k, k)
    ref = _conv_ref(C_in, C_out, 1, (H, W), (k, k), (s, s), (p, p), (1, 1), "zero", K)
    r0, r1 = rows or (0, ref.shape[0])
    ref = ref[r0:r1]
    n_in, n_out, stored = C_in * H * W, C_out * _conv_out(H, k, s, p, p, 1) * _conv_out(W, k, s, p, p, 1), \
        int(np.count_nonzero(ref))
    top = max(n_in, n_out, stored)
    for limit in (top - 1, top):
        with _conv._paths_at_small_sizes(int32_max=limit):
            A = _conv.conv_matrix((C_in, H, W), K, stride=s, padding=p, backend=field,
                                  **({} if rows is None else {"rows": rows}))
        want = np.dtype(np.int64 if top > limit else np.int32)
        # (the NumPy field's arrays are the builder's; CuPy's sparse matrices keep index dtypes of their own)
        if field == "numpy" and (A.indices.dtype != want or A.indptr.dtype != want):
            return False
        # well formed before it is densified (SciPy writes a column index out of range past its buffer)
        got = _csr(A, ref.shape)
        if got is None:
            return False
        rows_, cols_, vals_ = got
        dense = np.zeros(ref.shape)
        dense[rows_, cols_] = vals_
        if not np.array_equal(dense, ref):
            return False
    return True


def _conv_paths_ok(c, field="numpy") -> bool:
    """The same geometry with the builder's size thresholds set small: blocks of 8 entries, two workers,
    int64 indices -- against the rule, as at the default thresholds."""
    from ...algebra import conv as _conv

    with _conv._paths_at_small_sizes():
        if len(c) == 9:  # an N-d option case
            return _conv_option_ok(c, field)
        C_in, C_out, groups, H, W, KH, KW, s, l, d = c[:10]
        return _conv_block_ok(c, field) and _conv_option_ok((C_in, C_out, groups, (H, W), (KH, KW), s, l, d, "zero"),
                                                            field)


@device_cached
def conv_builder_check(field: str = "numpy"):
    """isomat.algebra.conv_matrix against its proved entry rule conv.conv2d_tap (and the definition by loops
    where no rule is proved): see :data:`CONV_BOUND` for what is run."""
    ok = functools.partial(_conv_block_ok, field=field)
    small = [_single(H, W, KH, KW, (s, s), (p, p), (d, d)) for H in range(1, 5) for W in range(1, 5)
             for KH in range(1, 4) for KW in range(1, 4) for s in (1, 2) for p in (0, 1) for d in (1, 2)
             if _conv_valid(H, W, KH, KW, (p, p), (d, d))]
    small.sort(key=lambda c: (c[3] * c[4], c))
    rng = np.random.default_rng(_SEED)
    rand = []
    while len(rand) < 12:  # from just above the exhaustive bound (H, W <= 4) to 64
        H, W = (int(x) for x in rng.integers(5, 65, 2))
        KH, KW = (int(x) for x in rng.integers(1, 6, 2))
        s, p, d = (tuple(int(x) for x in rng.integers(lo, hi, 2)) for lo, hi in ((1, 4), (0, 3), (1, 3)))
        if _conv_valid(H, W, KH, KW, p, d):
            rand.append(_single(H, W, KH, KW, s, p, d))
    # the sizes users run, 3x3 "same": output rows at the top border, the middle and the bottom border
    users = [(1, 1, 1, 2048, 2048, 3, 3, (1, 1), (1, 1), (1, 1), r0, r0 + 2 * 2048) for r0 in (0, 2046 * 2048)]
    users += [(64, 64, 1, 56, 56, 3, 3, (1, 1), (1, 1), (1, 1), r0, r0 + 2 * 56)
              for r0 in (0, 31 * 3136 + 27 * 56, 64 * 3136 - 2 * 56)]
    # every boundary with each channel layout, on two geometries (stride, padding and dilation 1 and 2)
    options = [(ci, co, g) + geo + (bd,) for bd in ("zero", "circular", "reflect", "replicate")
               for (ci, co, g) in ((1, 1, 1), (2, 4, 2), (3, 2, 1))
               for geo in (((3, 4), (2, 3), (1, 1), (1, 1), (1, 1)), ((5, 3), (3, 1), (2, 1), (1, 0), (2, 1)))]
    options += [(1, 1, 1, (5, 4), (2, 2), (1, 1), (0, 0), (1, 1), "zeros")]  # torch's "zeros" given as boundary=
    # 1-d and 3-d: one axis (a single validity mask) and three (masks combined over the middle axes)
    nd = [(ci, co, g, sp, k, s, l, d, bd) for bd in ("zero", "circular", "reflect", "replicate")
          for (ci, co, g, sp, k, s, l, d) in ((1, 1, 1, (7,), (3,), (2,), (1,), (1,)), (2, 4, 2, (6,), (2,), (1,), (1,), (2,)),
                                              (1, 1, 1, (3, 4, 3), (2, 3, 2), (1, 2, 1), (1, 1, 1), (1, 1, 2)),
                                              (2, 2, 2, (3, 3, 4), (2, 2, 3), (2, 1, 1), (1, 0, 1), (1, 1, 1)))]
    # format="diagonal": from the kernel (float64, float32; 2-d and 3-d) and through the CSR matrix (a row block,
    # a kernel wider than the image: two taps on one block diagonal); a grouped or wrapped layer is refused
    diagonal = [(2, 3, 1, (6, 7), (3, 3), (1, 1), "zero", np.float64, None),
                (1, 2, 1, (4, 5, 4), (3, 1, 3), (1, 1, 1), "zero", np.float32, None),
                (2, 2, 1, (7, 6), (3, 3), (2, 1), "zero", np.float64, None),
                (2, 2, 1, (6, 6), (3, 3), (1, 1), "zero", np.float64, (36, 72)),
                (1, 1, 1, (8, 3), (3, 5), (1, 1), "zero", np.float64, None),
                (2, 2, 1, (6, 6), (3, 3), (1, 1), "circular", np.float64, None),
                (2, 2, 2, (6, 6), (3, 3), (1, 1), "zero", np.float64, None)]
    paths = [(ci, co, g, H, W, 3, 2, (s, s), (1, 1), (1, 1), 0, co * _conv_out(H, 3, s, 1, 1, 1) * _conv_out(W, 2, s, 1, 1, 1))
             for (ci, co, g) in ((1, 1, 1), (4, 2, 2)) for (H, W) in ((5, 7), (9, 4)) for s in (1, 2)]
    paths += [c for c in nd if c[-1] in ("zero", "circular")]
    return builder_check(*_cases(small, rand, "conv_matrix == conv2d_tap entry by entry, nnz per row, row and column sums, "
                          "and conv2d_tap on every (output position, input pixel), zero entries included, == the "
                          "definition's taps: H, W <= 4, KH, KW <= 3, stride <= 2, padding <= 1, dilation <= 2",
                          f"the same, 12 random geometries (seed {_SEED}) H, W in [5, 64], KH, KW <= 5, stride <= 3, "
                          "padding <= 2, dilation <= 2", ok, users,
                          "the same at the sizes users run, 3x3 padding 1: 2048² single-channel and 64→64 at 56², "
                          "output rows at the top, middle and bottom (rows= of conv_matrix)"),
                  exhaustive(functools.partial(_conv_option_ok, field=field), options + nd,
                             describe="conv_matrix == direct loops for every boundary (zeros, circular, reflect, "
                                      "replicate; as padding_mode= and boundary=) with 1 → 1, 2 → 4 (groups 2) and "
                                      "3 → 2 channels, two 2-d geometries (stride, padding, dilation 1 and 2) and "
                                      "two 1-d and two 3-d ones, csr / csc / coo / operator, row blocks (pairs, "
                                      "slices, empty), conv_output_shape, a float32 kernel (a float32 matrix) and the exact "
                                      "field from a float kernel"),
                  exhaustive(functools.partial(_conv_diagonal_ok, field=field), diagonal,
                             describe="conv_matrix(format='diagonal') == direct loops, padding 'same': built from the "
                                      "kernel (float64 / float32, 2-d and 3-d, dilation 2) and through the CSR matrix "
                                      "(a row block, a kernel wider than the image); a grouped and a circular layer refused"),
                  exhaustive(functools.partial(_conv_paths_ok, field=field), paths,
                             describe="the same with the blocking, threading and int64 thresholds set small "
                                      "(conv._paths_at_small_sizes: 8-entry blocks, 2 workers, int64 indices)"),
                  exhaustive(functools.partial(_conv_index_width_ok, field=field), CONV_INDEX_WIDTH,
                             describe="the index dtype: int64 exactly when the columns, the output rows or the "
                                      "stored entries pass the int32 limit (set just below and at the largest of "
                                      "them, three layers where each in turn is the largest), else int32"),
                         derived_from_rule=False, builder="conv_matrix")


# ---------------------------------------------------------------------------------------------
# §4.2.1's W_conv
# ---------------------------------------------------------------------------------------------
def _zhu_ok(c, field="numpy") -> bool:
    from ...algebra import conv as _conv

    m, n, r, s = c
    L = m * n
    P = (L - ((r - 1) * n + r - 1)) // s + 1  # the printed P, written out here
    # N_0 = {i n + j | 0 <= i, j < r} in increasing order, and the printed P (the stride left to its default of 1)
    N0 = sorted(i * n + j for i in range(r) for j in range(r))
    if not np.array_equal(_conv.zhu_offsets((m, n), r), N0):
        return False
    if _conv.zhu_conv_rows((m, n), r, s) != P or (s == 1 and _conv.zhu_conv_rows((m, n), r) != P):
        return False
    K = np.arange(1, r * r + 1, dtype=np.float64).reshape(r, r)
    got = _csr(_conv.zhu_conv_matrix((m, n), K, s, backend=field), (P, L))
    if got is None:
        return False
    rows, cols, vals = got
    pick = _sample(rows.size)
    t = _conv.zhu_conv_tap(rows[pick], cols[pick], n, r, s)  # the proved rule
    if not (bool((t >= 0).all()) and np.array_equal(vals[pick], t + 1.0)):
        return False
    # from the definition: row p holds w_x at x + ps for the offsets x = in + j with x + ps < L
    x = (np.arange(r)[:, None] * n + np.arange(r)[None, :]).reshape(-1)
    off = cols - rows * s  # every entry: its offset is some x, and its value names that x
    i_, j_ = off // n, off % n
    if not (bool(((off >= 0) & (i_ < r) & (j_ < r)).all()) and np.array_equal(vals, i_ * r + j_ + 1.0)):
        return False
    keep = np.arange(P)[:, None] * s + x[None, :] < L
    return _sums_ok(rows, cols, vals, (P, L), row_nnz=keep.sum(1), row_sum=(keep * (np.arange(r * r) + 1.0)).sum(1))


def _zhu_overflow_ok(c, field="numpy") -> bool:
    """overflow='extend' keeps every printed entry (widening the matrix), 'raise' refuses exactly when a
    printed column reaches L: the printed pattern by loops."""
    from ...algebra import conv as _conv

    m, n, r, s = c
    L = m * n
    P = (L - ((r - 1) * n + r - 1)) // s + 1
    K = np.arange(1, r * r + 1, dtype=np.float64).reshape(r, r)
    entries = [(p, i * n + j + p * s, K[i, j]) for p in range(P) for i in range(r) for j in range(r)]
    width = max(L, max(cc for _, cc, _ in entries) + 1)
    ref = np.zeros((P, width))
    for p, cc, w in entries:
        ref[p, cc] += w
    if not np.array_equal(_dense(_conv.zhu_conv_matrix((m, n), K, s, overflow="extend", backend=field)), ref):
        return False
    if field != "cupy" and s == 1:
        import sympy

        # the exact field: from a float kernel asked for it, and from an exact kernel with the field (and the
        # stride, the overflow mode) left to their defaults; every entry an exact integer of the printed pattern
        exact = sympy.Matrix(K.astype(np.int64).tolist())
        for E in (_conv.zhu_conv_matrix((m, n), K, backend="sympy"), _conv.zhu_conv_matrix((m, n), exact)):
            D = np.array(sympy.Matrix(E).tolist(), dtype=object)
            if D.shape != (P, L) or not all(isinstance(v, sympy.Integer) and v == int(ref[i]) for i, v in np.ndenumerate(D)):
                return False
    try:
        R = _conv.zhu_conv_matrix((m, n), K, s, overflow="raise", backend=field)
    except ValueError as e:  # refused: it names the first row that reaches past L, and that column
        first = min(p for p, cc, _ in entries if cc >= L)
        return width > L and f"row p = {first} " in str(e) and f"column {width - 1} >= L = {L}" in str(e)
    return width == L and np.array_equal(_dense(R), ref)


#: (function, image_shape, kernel shape, the word the refusal names) of inputs refused with a ValueError
ZHU_REFUSED = [("zhu_conv_matrix", (4, 4), (2, 3), "square"), ("zhu_conv_matrix", (4, 4, 1), (2, 2), "image_shape"),
               ("zhu_conv_matrix", (2, 5), (3, 3), "min(m, n)"), ("zhu_offsets", (4, 4, 1), (2, 2), "image_shape"),
               ("zhu_conv_rows", (4, 4, 1), (2, 2), "image_shape")]


def _zhu_refused_ok(c, field="numpy") -> bool:
    """zhu_conv_matrix refuses a non-square kernel, an image_shape that is not (m, n) and a kernel wider than the
    image, and zhu_offsets / zhu_conv_rows an image_shape that is not (m, n), with a ValueError that names what is
    wrong (§4.2.1 defines W_conv for an m x n image and an r x r kernel, r <= min(m, n))."""
    from ...algebra import conv as _conv

    fn, shape, kshape, word = c
    try:
        if fn == "zhu_conv_matrix":
            _conv.zhu_conv_matrix(shape, np.ones(kshape), backend=field)
        else:
            getattr(_conv, fn)(shape, kshape[0])
    except ValueError as e:
        return word in str(e)
    return False


@device_cached
def zhu_conv_builder_check(field: str = "numpy"):
    """isomat.algebra.zhu_conv_matrix against its entry rule conv.zhu_conv_tap: see :data:`ZHU_CONV_BOUND`."""
    ok = functools.partial(_zhu_ok, field=field)
    small = sorted([(m, n, r, s) for m in range(1, 6) for n in range(1, 6) for r in range(1, min(m, n) + 1)
                    for s in range(1, 4)], key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_SEED + 1)
    rand = []
    for _ in range(12):
        m, n = (int(x) for x in rng.integers(6, 65, 2))
        rand.append((m, n, int(rng.integers(1, min(m, n, 7) + 1)), int(rng.integers(1, 8))))
    users = [(256, 256, 3, 1), (300, 177, 5, 3)]
    return builder_check(*_cases(small, rand, "zhu_conv_matrix == zhu_conv_tap entry by entry, nnz per row, row sums: "
                          "m, n <= 5, r <= min(m, n), s <= 3",
                          f"the same, 12 random sizes (seed {_SEED + 1}) m, n in [6, 64], r <= 7, s <= 7", ok, users,
                          "the same at 256² (r = 3) and 300×177 (r = 5, s = 3)"),
                  exhaustive(functools.partial(_zhu_overflow_ok, field=field),
                             [(m, n, r, s) for m in range(2, 5) for n in range(2, 5) for r in (1, 2) for s in (1, 2, 3)],
                             describe="overflow='extend' and 'raise' against the printed pattern by loops, m, n <= 4 "
                                      "(stride 1: the exact field from a float kernel, and from an exact one with the "
                                      "defaults)"),
                  exhaustive(functools.partial(_zhu_refused_ok, field=field), ZHU_REFUSED,
                             describe=f"zhu_conv_matrix refuses, naming why: {ZHU_REFUSED}"),
                         derived_from_rule=False, builder="zhu_conv_matrix")


# ---------------------------------------------------------------------------------------------
# §4.2.2's W_pool and patch-major order
# ---------------------------------------------------------------------------------------------
def _pool_ok(c, field="numpy") -> bool:
    from ...algebra import pool as _pool

    m, n, p = c
    L, Q = m * n, (m * n) // (p * p)
    v = np.float64(1) / (p * p)
    for flat in ("row-major", "patch-major"):
        got = _csr(_pool.zhu_pool_matrix((m, n), p, flattening=flat, backend=field), (Q, L))
        if got is None:
            return False
        rows, cols, vals = got
        if not np.array_equal(vals, np.full(vals.shape, v)):
            return False
        if flat == "row-major":  # the printed W_pool[q, q p² + r]
            if not np.array_equal(cols // (p * p), rows):
                return False
        else:  # window q holds the pixels pi(k), k = q p² + r: the proved rule patch_major_pixel, and by definition
            # the pixels (p⌊q/(n/p)⌋ + a, p(q mod n/p) + b), a, b < p
            u, v = cols // n, cols % n
            if not np.array_equal((u // p) * (n // p) + v // p, rows):
                return False
            k = np.arange(L, dtype=np.int64)[_sample(L)]
            key = np.sort(rows * L + cols)
            want = (k // (p * p)) * L + _pool.patch_major_pixel(k, n, p)
            at = np.searchsorted(key, want)
            if not (bool((at < key.size).all()) and np.array_equal(key[np.minimum(at, key.size - 1)], want)):
                return False
        # every window p² pixels, every pixel in exactly one window (the values are checked one by one above)
        if not _sums_ok(rows, cols, np.ones_like(vals), (Q, L), row_nnz=np.full(Q, p * p), col_sum=np.ones(L)):
            return False
    k = np.arange(L, dtype=np.int64)[_sample(L)]
    return bool(np.array_equal(_pool.patch_major_order((m, n), p)[k], _pool.patch_major_pixel(k, n, p)))


@device_cached
def pool_builder_check(field: str = "numpy"):
    """isomat.algebra.zhu_pool_matrix (row-major: the printed formula; patch-major: the entry rule
    pool.patch_major_pixel) and patch_major_order: see :data:`POOL_BOUND`."""
    ok = functools.partial(_pool_ok, field=field)
    small = sorted([(m, n, p) for p in range(1, 5) for m in range(p, 9, p) for n in range(p, 9, p)],
                   key=lambda c: (c[0] * c[1], c))
    rng = np.random.default_rng(_SEED + 2)
    rand = []
    while len(rand) < 8:
        p = int(rng.integers(1, 6))
        m, n = (p * int(x) for x in rng.integers(1, 65, 2))
        if max(m, n) > 8:  # just above the exhaustive bound
            rand.append((m, n, p))
    return builder_check(*_cases(small, rand, "zhu_pool_matrix (both flattenings) == printed formula / patch_major_pixel, "
                          "nnz per row, row and column sums: p <= 4, p | m, n <= 8",
                          f"the same, 8 random sizes (seed {_SEED + 2}) p <= 5, m, n > 8 with up to 64 windows a side",
                          ok, [(1024, 1024, 2), (256, 256, 4)], "the same at 1024² (p = 2) and 256² (p = 4)"),
                         pool_extra_check(ZHU_POOL_EXTRA), derived_from_rule=False, builder="zhu_pool_matrix")


def _avg_axis(n, k, s, p, ceil_mode):
    """torch's average pooling along one axis, from its definition: output count, and per output the window
    start and end clipped to the padded input (pool size) and to the input itself."""
    out = (n + 2 * p - k + ((s - 1) if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    return out, start, end, np.maximum(start, 0), np.minimum(end, n)


def _avgpool_ref(C, m, n, k, s, p, ceil_mode, cip, div):
    """Dense matrix of torch's avg_pool2d by direct loops (C channels, square window k, stride s, padding p)."""
    O1, st1, en1, a1, b1 = _avg_axis(m, k, s, p, ceil_mode)
    O2, st2, en2, a2, b2 = _avg_axis(n, k, s, p, ceil_mode)
    M = np.zeros((C * O1 * O2, C * m * n))
    for c in range(C):
        for i in range(O1):
            for j in range(O2):
                if div is not None:
                    q = div
                elif cip:
                    q = (en1[i] - st1[i]) * (en2[j] - st2[j])
                else:
                    q = (b1[i] - a1[i]) * (b2[j] - a2[j])
                for u in range(a1[i], b1[i]):
                    for v in range(a2[j], b2[j]):
                        M[(c * O1 + i) * O2 + j, c * m * n + u * n + v] = 1.0 / q
    return M


def _avgpool_ok(c, field="numpy") -> bool:
    """avgpool_matrix against direct loops of torch's definition (every option) and, without padding or
    rounding up, against the proved rule conv2d_tap on every stored entry."""
    from ...algebra import conv as _conv, pool as _pool

    C, m, n, k, s, p, ceil_mode, cip, div = c
    shape = (m, n) if C == 0 else (C, m, n)
    A = _pool.avgpool_matrix(shape, (k, k), stride=(s, s), padding=p, ceil_mode=ceil_mode, count_include_pad=cip,
                             divisor_override=div, backend=field)
    Cc = max(C, 1)
    O1, st1, en1, a1, b1 = _avg_axis(m, k, s, p, ceil_mode)
    O2, st2, en2, a2, b2 = _avg_axis(n, k, s, p, ceil_mode)
    shape2 = (Cc * O1 * O2, Cc * m * n)
    if m * n <= 64:  # small: the whole matrix, against the loops and (no padding, rounding down) the proved rule
        if tuple(A.shape) != shape2:
            return False
        D = _dense(A)
        if p == 0 and not ceil_mode and div is None and C == 0:
            t = _conv.conv2d_tap(np.arange(O1 * O2)[:, None], np.arange(m * n)[None, :], m, n, k, k, stride=(s, s))
            if not np.array_equal(D, np.where(t >= 0, np.float64(1) / (k * k), 0.0)):
                return False
        return np.array_equal(D, _avgpool_ref(Cc, m, n, k, s, p, ceil_mode, cip, div))
    got = _csr(A, shape2)
    if got is None:
        return False
    rows, cols, vals = got
    ch, o = rows // (O1 * O2), rows % (O1 * O2)
    o1, o2 = o // O2, o % O2
    u, v = (cols % (m * n)) // n, cols % n
    if not bool(((cols // (m * n) == ch) & (a1[o1] <= u) & (u < b1[o1]) & (a2[o2] <= v) & (v < b2[o2])).all()):
        return False
    inside = np.outer(b1 - a1, b2 - a2).reshape(-1)
    q = (np.full(O1 * O2, div) if div is not None else
         np.outer(en1 - st1, en2 - st2).reshape(-1) if cip else inside)
    if not np.array_equal(vals, 1.0 / q[o]):
        return False
    if p == 0 and not ceil_mode:
        pick = _sample(rows.size)
        t = _conv.conv2d_tap(o[pick], (cols % (m * n))[pick], m, n, k, k, stride=(s, s))  # the proved rule
        if not bool((t >= 0).all()):
            return False
    # how many windows read each pixel, per axis from the definition (exact integer counts; the values are
    # checked one by one above, so their float sums would add nothing but rounding)
    cover1 = np.zeros(m, dtype=np.int64)
    cover2 = np.zeros(n, dtype=np.int64)
    for lo_, hi_ in zip(a1, b1):
        cover1[lo_:hi_] += 1
    for lo_, hi_ in zip(a2, b2):
        cover2[lo_:hi_] += 1
    ones = np.ones_like(vals)
    return _sums_ok(rows, cols, ones, shape2, row_nnz=np.tile(inside, Cc), col_sum=np.tile(np.outer(cover1, cover2).reshape(-1), Cc))


@device_cached
def avgpool_builder_check(field: str = "numpy"):
    """isomat.algebra.avgpool_matrix against conv2d_tap (no padding) and torch's definition by loops (every
    option): see :data:`AVGPOOL_BOUND`."""
    ok = functools.partial(_avgpool_ok, field=field)
    small = sorted([(0, m, n, k, s, 0, False, True, None) for m in range(1, 7) for n in range(1, 7)
                    for k in range(1, min(m, n, 3) + 1) for s in range(1, 4)], key=lambda c: (c[1] * c[2], c))
    rng = np.random.default_rng(_SEED + 4)
    rand = [(0, int(rng.integers(7, 65)), int(rng.integers(7, 65)), int(rng.integers(1, 6)), int(rng.integers(1, 6)),
             0, False, True, None) for _ in range(8)]
    options = [(C, m, n, k, s, p, cm, cip, div) for C, (m, n) in ((0, (5, 4)), (2, (3, 5))) for k in (2, 3)
               for s in (1, 2) for p in range(k // 2 + 1) for cm in (False, True) for cip in (False, True)
               for div in (None, 3, -2) if (div is None or cip) and min(m, n) + 2 * p >= k]
    users = [(0, 1024, 1024, 2, 2, 0, False, True, None), (2, 255, 253, 3, 2, 1, True, False, None)]
    return builder_check(*_cases(small, rand, "avgpool_matrix == 1/k² on conv2d_tap's taps: m, n <= 6, k <= 3, s <= 3",
                          f"the same, 8 random sizes (seed {_SEED + 4}) m, n in [7, 64], k, s <= 5", ok, users,
                          "at 1024² (k = s = 2) and 2 channels of 255×253 (k = 3, s = 2, padding 1, ceil_mode, "
                          "count_include_pad=False): every stored entry, nnz per row, column sums"),
                  exhaustive(ok, options, describe="avgpool_matrix == torch's definition by loops: 5×4, and 2 channels "
                             "of 3×5, k in {2, 3}, s <= 2, every padding <= k/2, ceil_mode, count_include_pad, "
                             "divisor_override in {None, 3, -2}"),
                  exhaustive(_avgpool_spellings_ok, AVGPOOL_SPELLINGS,
                             describe="avgpool_matrix given an int window with ndim=2, a 1-d input (int window) and in "
                                      "the exact field, against the same loops, and pool_output_shape against their "
                                      f"output counts: {AVGPOOL_SPELLINGS}"),
                         pool_extra_check(AVGPOOL_EXTRA), derived_from_rule=False, builder="avgpool_matrix")


#: (spelling, m, n, k, s, p, ceil_mode, count_include_pad) of the window spellings and field the options above leave out
AVGPOOL_SPELLINGS = [("int-window", 5, 4, 2, 2, 1, True, False), ("int-window", 3, 6, 3, 1, 0, False, True),
                     ("1-d", 1, 7, 3, 2, 0, True, False), ("1-d", 1, 5, 2, 1, 0, False, True),
                     ("exact", 5, 4, 2, 2, 1, True, False), ("exact", 4, 5, 3, 2, 1, False, False)]


def _avgpool_spellings_ok(c) -> bool:
    """avgpool_matrix with an int window and ndim=2, with a 1-d input shape (an int window, read as one spatial
    axis: the row 1 × n of :func:`_avgpool_ref`), or in the exact field (SymPy Rationals, compared one by one with
    1/q of the loops), against :func:`_avgpool_ref` (torch's definition by direct loops); and pool_output_shape,
    with and without a channel axis, against the output counts of :func:`_avg_axis`."""
    import sympy

    from ...algebra import pool as _pool

    how, m, n, k, s, p, cm, cip = c
    if how == "1-d":
        A = _pool.avgpool_matrix((n,), k, stride=s, padding=p, ceil_mode=cm, count_include_pad=cip)
        O, st, en, a, b = _avg_axis(n, k, s, p, cm)
        ref = np.zeros((O, n))
        for i in range(O):
            ref[i, a[i]:b[i]] = 1.0 / ((en[i] - st[i]) if cip else (b[i] - a[i]))
        return np.array_equal(_dense(A), ref) and _pool.pool_output_shape((n,), k, stride=s, padding=p, ceil_mode=cm) == (O,)
    ref = _avgpool_ref(1, m, n, k, s, p, cm, cip, None)
    if how == "int-window":
        outs = (_avg_axis(m, k, s, p, cm)[0], _avg_axis(n, k, s, p, cm)[0])
        shapes_ok = (_pool.pool_output_shape((m, n), k, stride=s, padding=p, ceil_mode=cm, ndim=2) == outs
                     and _pool.pool_output_shape((2, m, n), (k, k), stride=s, padding=p, ceil_mode=cm) == (2, *outs))
        return shapes_ok and np.array_equal(_dense(_pool.avgpool_matrix((m, n), k, stride=s, padding=p, ceil_mode=cm,
                                                                        count_include_pad=cip, ndim=2)), ref)
    E = sympy.Matrix(_pool.avgpool_matrix((m, n), (k, k), stride=(s, s), padding=p, ceil_mode=cm,
                                          count_include_pad=cip, backend="sympy"))
    return E.shape == ref.shape and all(isinstance(v, sympy.Rational) and (v == 0 or float(v) == ref[i, j])
                                        and (v != 0) == (ref[i, j] != 0)
                                        for (i, j), v in np.ndenumerate(np.array(E.tolist(), dtype=object)))


# ---------------------------------------------------------------------------------------------
# W_RNN
# ---------------------------------------------------------------------------------------------
def _rnn_ok(c, field="numpy") -> bool:
    from ...algebra import rnn as _rnn

    M, N, T, seed = c
    rng = np.random.default_rng(seed)
    U = rng.integers(-2, 3, size=(M, N))
    # V unipotent upper triangular: its powers grow polynomially, so V^k U is exact in float64 up to T = 256
    V = np.triu(rng.integers(0, 2, size=(M, M)), 1) + np.eye(M, dtype=np.int64)
    powers = [U.astype(object)]
    for _ in range(1, T):
        powers.append(V.astype(object).dot(powers[-1]))
    P = np.array(powers, dtype=object).astype(np.float64)  # (T, M, N), exact integers
    got = _csr(_rnn.rnn_matrix(U.astype(np.float64), V.astype(np.float64), T, backend=field), (T * M, T * N))
    if got is None:
        return False
    rows, cols, vals = got
    t, a, s_, b = rows // M, rows % M, cols // N, cols % N
    if not bool((s_ <= t).all()) or not np.array_equal(vals, P[t - s_, a, b]):
        return False
    # nonzeros from the block rule: block (t, s) = V^(t−s)U for s <= t, 0 above
    # every entry of the blocks s <= t is stored (zeros of V^k U included): row (t, a) holds (t + 1) N
    nnz = np.repeat((np.arange(T) + 1) * N, M)
    rsum = np.cumsum(P.sum(axis=2), axis=0)  # row (t, a): blocks k = 0..t, exact integers
    return _sums_ok(rows, cols, vals, (T * M, T * N), row_nnz=nnz, row_sum=rsum.reshape(-1))


@device_cached
def rnn_builder_check(field: str = "numpy"):
    """isomat.algebra.rnn_matrix against the block rule (t, s) = V^(t−s)U for s <= t, 0 above (exact integer
    powers): see :data:`RNN_BOUND`."""
    check = _seeded_check(
        "rnn_matrix", functools.partial(_rnn_ok, field=field), _SEED + 3,
        sorted([(M, N, T, 100 * M + 10 * N + T) for M in range(1, 4) for N in range(1, 4) for T in range(1, 4)],
               key=lambda c: (sum(c[:3]), c)),
        lambda rng, i: (int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(4, 41)), 7 + i),
        ("rnn_matrix == blocks V^(t−s)U entry by entry, nnz per row, row sums: M, N, T <= 3, integer U, V",
         "the same, 8 random sizes (seed {seed}) M, N <= 5, T in [4, 40]"),
        [(3, 2, 256, 5)], "the same at T = 256 (M = 3, N = 2)")
    return builder_check(*check.parts, rnn_extra_check(RNN_EXTRA), derived_from_rule=False, builder="rnn_matrix")


# ---------------------------------------------------------------------------------------------
# the cubic attention operator
# ---------------------------------------------------------------------------------------------
def _attention_ok(c, field="numpy") -> bool:
    """linear_attention_matrix with integer weights: every stored entry at ((k,c),((k',b),(i,e),(i',f))) has
    k' = k, i' = i and the value (W_q W_k^T)_{b,e} (W_v)_{f,c} (the entry rule _cubic_entry), the count
    T² d³ d_v, and the row sums."""
    from ...algebra import attention as _att

    T, d, dv, seed = c
    rng = np.random.default_rng(seed)
    Wq, Wk = rng.integers(-2, 3, size=(d, d)), rng.integers(-2, 3, size=(d, d))
    Wv = rng.integers(1, 4, size=(d, dv))  # nonzero, so every entry of the rule with G_{b,e} != 0 is nonzero
    G = Wq @ Wk.T
    n = T * d
    A = _att.linear_attention_matrix(T, Wq.astype(np.float64), Wk.astype(np.float64), Wv.astype(np.float64),
                                     backend=field)
    got = _csr(A, (T * dv, n ** 3))
    if got is None:
        return False
    rows, cols, vals = got
    k, cc = rows // dv, rows % dv
    x1, rest = cols // (n * n), cols % (n * n)
    x2, x3 = rest // n, rest % n
    kp, b, i, e, ip, f = x1 // d, x1 % d, x2 // d, x2 % d, x3 // d, x3 % d
    if not bool(((kp == k) & (ip == i)).all()) or not np.array_equal(vals, (G[b, e] * Wv[f, cc]).astype(np.float64)):
        return False
    # stored: every (k, c, b, i, e, f) -- T² d³ d_v entries (zeros of G included, as the builder stores them)
    nnz = np.full(T * dv, T * d ** 3)
    row_sum = np.tile(G.sum() * T * Wv.sum(axis=0), T).astype(np.float64)
    return _sums_ok(rows, cols, vals, (T * dv, n ** 3), row_nnz=nnz, row_sum=row_sum)


@device_cached
def attention_builder_check(field: str = "numpy"):
    """isomat.algebra.linear_attention_matrix against the entry rule at integer weights: every T, d, d_v <= 2,
    8 random instances T in [3, 64], and T = 64 (see :data:`ATTENTION_BOUND`)."""
    check = _seeded_check("linear_attention_matrix", functools.partial(_attention_ok, field=field), _SEED + 6,
                          [(T, d, dv, 11 * T + 3 * d + dv) for T, d, dv in itertools.product((1, 2), repeat=3)],
                          lambda rng, j: (int(rng.integers(3, 65)), int(rng.integers(1, 4)), int(rng.integers(1, 4)), 50 + j),
                          ("linear_attention_matrix == entry rule at integer weights, nnz per row, row sums: T, d, d_v <= 2",
                           "the same, 8 random instances (seed {seed}) T in [3, 64], d, d_v <= 3"),
                          [(64, 2, 2, 99)], "the same at T = 64, d = d_v = 2")
    extra = exhaustive(_attention_extra_ok, ATTENTION_EXTRA,
                       describe="linear_attention_matrix with d_k = 3 != d = 2 (T = 2) == 𝒲 by loops in every field "
                                "spelling (floats, backend='sympy', backend='numpy' on exact weights, one exact weight in "
                                "each position); charged for exactly T²d³d_v stored entries against the memory bound; a "
                                "1-d weight refused; lift3 refusing a 2×2 matrix, a 3-d array, a scalar, an empty vector")
    return builder_check(*check.parts, extra, derived_from_rule=False, builder="linear_attention_matrix")


# ---------------------------------------------------------------------------------------------
# every builder: the field it builds in, the inputs it refuses, the memory bound it is charged
# ---------------------------------------------------------------------------------------------
def _refused(call, error=ValueError, name: str | None = None) -> bool:
    """True when ``call()`` raises ``error`` (bad input refused as documented) with a message that begins with the
    argument's ``name`` (the project's rule: a refusal names the argument); another exception propagates (the claim
    is then an error), and a result means the input was taken."""
    try:
        call()
    except error as exc:
        return name is None or re.match(re.escape(name) + r"(?!\w)", str(exc)) is not None
    return False


def _bound_exact(build, nnz: int, n_rows: int, field: str = "numpy", staging: bool = True, name: str | None = None) -> bool:
    """``build()`` is charged for exactly ``nnz`` stored entries in ``n_rows`` rows against the memory bound: it
    builds under a bound of exactly the bytes :func:`~isomat.algebra._operator.estimate_bytes` gives for them, and
    is refused (SizeLimitError, its message beginning with ``name`` when given: the builder that refuses) one byte
    below (nnz counted here from the definition, not read from the builder)."""
    from ... import memory_limit
    from ...algebra._operator import estimate_bytes, value_bytes
    from ...errors import SizeLimitError

    need = estimate_bytes(nnz, n_rows, value_bytes=value_bytes(field), staging=staging)
    with memory_limit(need):
        build()
    with memory_limit(need - 1):
        return _refused(build, SizeLimitError, name)


def _field_of_result(A) -> str:
    """``sympy`` for an exact (SymPy) result, ``numpy`` for a SciPy one."""
    import sympy

    return "sympy" if isinstance(A, sympy.MatrixBase) else "numpy" if hasattr(A, "tocsr") else type(A).__name__


def _same_exact(A, ref) -> bool:
    """``A`` (SymPy or SciPy) equals the integer matrix ``ref`` (nested lists or an object array) entry by entry,
    in its own field: SymPy Integers, or float64 values that are those integers."""
    import sympy

    ref = np.array(ref, dtype=object)
    if tuple(A.shape) != ref.shape:
        return False
    if _field_of_result(A) == "sympy":
        return sympy.Matrix(A) == sympy.Matrix(ref.tolist())
    return np.array_equal(_dense(A), ref.astype(np.float64))


def _field_spellings(k: int):
    """(field wanted, backend=, which inputs are exact) for a builder of ``k`` matrix inputs: the backend given
    overrides the inputs' field either way; without it, one exact (SymPy) input among NumPy ones makes the result
    exact, in every position."""
    return [("numpy", None, ()), ("sympy", "sympy", ()), ("numpy", "numpy", tuple(range(k)))] + \
        [("sympy", None, (i,)) for i in range(k)]


def _fields_ok(build, mats, ref) -> bool:
    """``build(*weights, backend=...)`` in every spelling of :func:`_field_spellings` (``mats``: integer nested
    lists, given as float64 arrays or as SymPy matrices) equals ``ref`` in the field the spelling asks for."""
    import sympy

    for want, backend, exact in _field_spellings(len(mats)):
        ws = [sympy.Matrix(W) if i in exact else np.array(W, dtype=np.float64) for i, W in enumerate(mats)]
        A = build(*ws, backend=backend)
        if _field_of_result(A) != want or not _same_exact(A, ref):
            return False
    return True


# the cubic attention operator and A.3's W_SA
_ATT_W = ([[1, -2, 0], [2, 1, -1]], [[0, 1, 2], [-1, 1, 1]], [[1, 2], [3, -1]])  # Wq, Wk: d × d_k = 2 × 3; Wv: 2 × 2


def _attention_loops(T, Wq, Wk, Wv):
    """𝒲 by loops from its definition: 𝒲_{(k,c),((k,b),(i,e),(i,f))} = (W_q W_k^T)_{b,e} (W_v)_{f,c} (integers)."""
    d, dk, dv = len(Wq), len(Wq[0]), len(Wv[0])
    n = T * d
    G = [[sum(Wq[b][a] * Wk[e][a] for a in range(dk)) for e in range(d)] for b in range(d)]
    W = [[0] * n ** 3 for _ in range(T * dv)]
    for k, c, b, i, e, f in itertools.product(range(T), range(dv), range(d), range(T), range(d), range(d)):
        W[k * dv + c][((k * d + b) * n + i * d + e) * n + i * d + f] = G[b][e] * Wv[f][c]
    return W


def _attention_extra_ok(what) -> bool:
    """linear_attention_matrix with d_k != d (rectangular W_q, W_k) in every field spelling, its memory bound,
    a 1-d weight refused; lift3 refusing what is no vector."""
    from ...algebra import attention as _att

    T = 2
    if what == "fields":
        return _fields_ok(lambda *w, backend: _att.linear_attention_matrix(T, *w, backend=backend), _ATT_W,
                          _attention_loops(T, *_ATT_W))
    if what == "bound":
        d, dv = len(_ATT_W[0]), len(_ATT_W[2][0])
        ws = [np.array(W, dtype=np.float64) for W in _ATT_W]
        return _bound_exact(lambda: _att.linear_attention_matrix(T, *ws), T * T * d ** 3 * dv, T * dv,
                            name="linear_attention_matrix")
    if what == "refusals":  # each refusal names its argument
        v, Wv = np.array([1.0, 2.0]), np.ones((2, 2))
        return (_refused(lambda: _att.linear_attention_matrix(T, v, v, Wv), name="Wq")
                and _refused(lambda: _att.linear_attention_matrix(T, Wv, v, Wv), name="Wk")
                and _refused(lambda: _att.linear_attention_matrix(T, Wv, Wv, v), name="Wv")
                and _refused(lambda: _att.linear_attention_matrix(T, [["a"]], Wv, Wv), TypeError, name="Wq")
                and _refused(lambda: _att.linear_attention_matrix(T, np.ones((2, 3)), Wv, Wv), name="Wk")
                and _refused(lambda: _att.linear_attention_matrix(T, Wv, Wv, np.ones((3, 2))), name="Wv")
                and _refused(lambda: _att.linear_attention_matrix(0, Wv, Wv, Wv), name="T")
                and _refused(lambda: _att.lift3(np.array(["a"])), TypeError, name="x")
                and all(_refused(lambda x=x: _att.lift3(x), name="x") for x in (np.ones((2, 2)), np.ones((1, 1, 2)),
                                                                               np.array(3.0), np.zeros(0))))
    raise ValueError(what)


ATTENTION_EXTRA = ("fields", "bound", "refusals")


def _w_sa_loops(Q, K, V):
    """A.3's [W_SA]_{m,(i,j)} = [W_V]_{m,j} [W_K]_{j,i} [W_Q]_{m,i} by loops (integers, column iN + j)."""
    M, N = len(Q), len(Q[0])
    return [[V[m][j] * K[j][i] * Q[m][i] for i in range(N) for j in range(N)] for m in range(M)]


_WSA_W = ([[1, -2], [2, 3], [-1, 1]], [[2, 1], [-3, 1], [1, 4]], [[1, 5], [-2, 1], [3, -1]])  # M = 3, N = 2


def _w_sa_ok(what) -> bool:
    """zhu_w_sa in every field spelling (the float field included) against the loops, and refusing W_K or W_V of
    another shape than W_Q and N > M (the printed formula undefined)."""
    from ...algebra import attention as _att

    if what == "fields":
        return _fields_ok(lambda *w, backend: _att.zhu_w_sa(*w, backend=backend), _WSA_W, _w_sa_loops(*_WSA_W))
    Q, K, V = (np.array(W, dtype=np.float64) for W in _WSA_W)
    wide, v = np.ones((3, 4)), np.ones(2)
    return (_refused(lambda: _att.zhu_w_sa(Q, np.ones((4, 2)), V), name="W_Q, W_K, W_V")
            and _refused(lambda: _att.zhu_w_sa(Q, K, np.ones((4, 2))), name="W_Q, W_K, W_V")
            and _refused(lambda: _att.zhu_w_sa(wide, wide, wide), name="[W_K]_(j,i)")
            and all(_refused(lambda a=a: _att.zhu_w_sa(*a), name=n) for a, n in (((v, K, V), "W_Q"), ((Q, v, V), "W_K"),
                                                                               ((Q, K, v), "W_V"))))


@device_cached
def w_sa_fields_check():
    """isomat.algebra.zhu_w_sa in the float field and every field spelling against A.3's formula by loops, and its
    refusals (see :func:`_w_sa_ok`): a plain binding check (the claims that use it blame the paper, and their
    strength is their own counterexample's)."""
    return exhaustive(_w_sa_ok, ["fields", "refusals"],
                      describe="zhu_w_sa == A.3's formula by loops, M = 3, N = 2, integer weights, in every field "
                               "spelling (floats, backend='sympy', backend='numpy' on exact weights, one exact weight in "
                               "each position); W_K or W_V of another shape than W_Q and N > M refused")


# W_RNN and §4.3's main-text W_rnn
def _block_loops(blocks, T):
    """The block lower-triangular matrix with block (t, s) = blocks[t − s] for s <= t, 0 above (integer loops)."""
    r, c = len(blocks[0]), len(blocks[0][0])
    W = [[0] * (T * c) for _ in range(T * r)]
    for t in range(T):
        for s in range(t + 1):
            for a in range(r):
                for b in range(c):
                    W[t * r + a][s * c + b] = blocks[t - s][a][b]
    return W


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))] for i in range(len(X))]


_RNN_U, _RNN_V = [[1, -2, 0], [2, 1, 3]], [[1, 2], [-1, 1]]  # U: M × N = 2 × 3, V: 2 × 2
_MT_XH, _MT_HH = [[1, -1, 2], [0, 2, 1]], [[1, 0, 2], [1, -1, 0], [0, 1, 1]]  # W_xh: 2 × 3, W_hh: 3 × 3


def _rnn_extra_ok(what) -> bool:
    """rnn_matrix (blocks V^(t−s)U) and zhu_rnn_main_text (blocks W_xh W_hh^(i−j), as printed) with non-square
    input maps against loops, in every field spelling; scalar weights; the memory bound; their refusals."""
    from ...algebra import rnn as _rnn

    T = 3
    if what == "rnn-fields":
        powers = [_RNN_U]
        for _ in range(1, T):
            powers.append(_mul(_RNN_V, powers[-1]))
        return _fields_ok(lambda U, V, backend: _rnn.rnn_matrix(U, V, T, backend=backend), (_RNN_U, _RNN_V),
                          _block_loops(powers, T))
    if what == "main-text-fields":
        blocks, P = [_MT_XH], [[int(i == j) for j in range(3)] for i in range(3)]
        for _ in range(1, T):
            P = _mul(P, _MT_HH)
            blocks.append(_mul(_MT_XH, P))
        return _fields_ok(lambda A, B, backend: _rnn.zhu_rnn_main_text(A, B, T, backend=backend), (_MT_XH, _MT_HH),
                          _block_loops(blocks, T))
    if what == "rnn-scalars":  # a number is a 1 × 1 matrix: blocks 3 · 2^k
        return _same_exact(_rnn.rnn_matrix(3.0, 2.0, 4), _block_loops([[[3 * 2 ** k]] for k in range(4)], 4))
    if what == "main-text-scalars":  # blocks 2 · 3^k
        return _same_exact(_rnn.zhu_rnn_main_text(2, 3, 4), _block_loops([[[2 * 3 ** k]] for k in range(4)], 4))
    if what == "bound":  # the block assembly charged for exactly m(m + 1)/2 blocks of 2 × 3
        A, B = np.array(_MT_XH, dtype=np.float64), np.array(_MT_HH, dtype=np.float64)
        return _bound_exact(lambda: _rnn.zhu_rnn_main_text(A, B, T), T * (T + 1) // 2 * 6, T * 2)
    U, V, A, B = (np.array(W, dtype=np.float64) for W in (_RNN_U, _RNN_V, _MT_XH, _MT_HH))
    if what == "rnn-refusals":  # each refusal names its argument
        bad_weights = (np.ones((2, 2, 2)), np.zeros((0, 2)), np.array([[1.0, np.nan], [0.0, 1.0]]))
        return (_refused(lambda: _rnn.rnn_matrix(U, U, T), name="V")
                and _refused(lambda: _rnn.rnn_matrix(U, np.ones((3, 3)), T), name="V")
                and all(_refused(lambda W=W: _rnn.rnn_matrix(U, W, T), name="V") for W in bad_weights)
                and all(_refused(lambda W=W: _rnn.rnn_matrix(W, V, T), name="U") for W in bad_weights)
                and _refused(lambda: _rnn.rnn_matrix(True, 1.0, T), TypeError, name="U")
                and _refused(lambda: _rnn.rnn_matrix([["a"]], V, T), TypeError, name="U")
                and _refused(lambda: _rnn.rnn_matrix(U, [["a", "b"], ["c", "d"]], T, backend="sympy"), TypeError, name="V")
                and _refused(lambda: _rnn.rnn_matrix(U, V, 0), name="steps"))
    if what == "main-text-refusals":
        # m = 1 needs no product W_xh W_hh: mismatched shapes are taken there (the result is W_xh), refused from m = 2;
        # W_hh must be square for every m
        return (_refused(lambda: _rnn.zhu_rnn_main_text(A, np.ones((3, 2)), 1), name="W_hh")
                and _refused(lambda: _rnn.zhu_rnn_main_text(np.ones((2, 2, 2)), B, T), name="W_xh")
                and _refused(lambda: _rnn.zhu_rnn_main_text(A, np.ones((3, 3, 3)), T), name="W_hh")
                and _refused(lambda: _rnn.zhu_rnn_main_text(A, np.ones((2, 2)), 2), name="W_xh W_hh^(i-j)")
                and _refused(lambda: _rnn.zhu_rnn_main_text(A, B, 0), name="m")
                and _same_exact(_rnn.zhu_rnn_main_text(A, np.ones((2, 2)), 1), _MT_XH))
    raise ValueError(what)


RNN_EXTRA = ("rnn-fields", "rnn-scalars", "rnn-refusals")
MAIN_TEXT_EXTRA = ("main-text-fields", "main-text-scalars", "bound", "main-text-refusals")


def rnn_extra_check(cases=RNN_EXTRA):
    """The parts of :func:`_rnn_extra_ok` named in ``cases`` (one exhaustive trial)."""
    return exhaustive(_rnn_extra_ok, list(cases),
                      describe="rnn_matrix / zhu_rnn_main_text with non-square input maps (U 2×3, W_xh 2×3 with W_hh 3×3, "
                               "T = 3) == loops in every field spelling (floats, backend='sympy', backend='numpy' on exact "
                               "weights, one exact weight in each position), scalar weights, the assembly charged for "
                               "exactly m(m+1)/2 blocks against the memory bound, and the refusals (V not M×M, 3-d, empty, "
                               f"NaN or bool weights, W_hh not square, W_xh W_hh undefined from m = 2): {', '.join(cases)}")


# average pooling and §4.2.2's W_pool: defaults, formats, the exact field, output shapes, the bound, refusals
def _torch_pool_out(n, k, s, p, dl, ceil_mode):
    """torch's pooling output size along one axis (the formula of its max_pool / avg_pool documentation):
    ⌊ or ⌈(n + 2p − dl(k − 1) − 1)/s⌉ + 1, less one when ceil_mode's last window would start past n + p."""
    span = n + 2 * p - dl * (k - 1) - 1
    out = -(-span // s) + 1 if ceil_mode else span // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= n + p else out


def _dense_any(A):
    """Dense float64 array of a SciPy result or of a SparseOperator (``format='operator'``)."""
    return _dense(A.to_scipy("csr") if hasattr(A, "to_scipy") else A)


def _pool_extra_ok(what) -> bool:
    """avgpool_matrix / zhu_pool_matrix / pool_output_shape: what the claims' other checks pass explicitly, or
    never, against torch's definition by loops (:func:`_avgpool_ref`) and the printed formula."""
    import sympy

    from ...algebra import pool as _pool

    if what == "avgpool-defaults":  # stride = window, padding 0, ceil_mode False, count_include_pad True
        return (np.array_equal(_dense(_pool.avgpool_matrix((5, 5), (2, 2))), _avgpool_ref(1, 5, 5, 2, 2, 0, False, True, None))
                and np.array_equal(_dense(_pool.avgpool_matrix((5, 4), (3, 3), stride=(2, 2), padding=1, ceil_mode=True)),
                                   _avgpool_ref(1, 5, 4, 3, 2, 1, True, True, None)))
    if what == "avgpool-formats":  # uniform, clipped and divisor_override paths, every format and the exact field
        for kw, ref in ((dict(), (0, False, True, None)), (dict(padding=1, ceil_mode=True, count_include_pad=False),
                                                        (1, True, False, None)),
                        (dict(padding=1, ceil_mode=True, count_include_pad=False, divisor_override=3), (1, True, False, 3))):
            R = _avgpool_ref(2, 5, 4, 3, 2, *ref)
            for fmt in ("csr", "csc", "coo", "operator"):
                if not np.array_equal(_dense_any(_pool.avgpool_matrix((2, 5, 4), (3, 3), stride=2, format=fmt, **kw)), R):
                    return False
            E = np.array(sympy.Matrix(_pool.avgpool_matrix((2, 5, 4), (3, 3), stride=2, backend="sympy", **kw)).tolist(),
                         dtype=object)
            if not all(isinstance(v, sympy.Rational) and (v == 0) == (R[i, j] == 0) and (v == 0 or float(v) == R[i, j])
                       for (i, j), v in np.ndenumerate(E)):
                return False
        # three channels: the per-channel window values must come from the one (1, K) row of ones, for every channel
        # and on every path (uniform, clipped, divisor_override)
        return all(np.array_equal(_dense(_pool.avgpool_matrix((3, 5, 4), (2, 2), padding=p, ceil_mode=cm,
                                                              count_include_pad=cip, divisor_override=div)),
                                  _avgpool_ref(3, 5, 4, 2, 2, p, cm, cip, div))
                   for p, cm, cip, div in ((0, False, True, None), (1, True, False, None), (0, False, True, 3)))
    if what == "avgpool-bound":  # charged for exactly the stored entries (COO staging where it stages)
        ok = True
        # the clipped path (ceil_mode here) stages its build as an operator: refused by that build, whose message
        # names conv_matrix (the shared fill), so only the uniform paths' refusals are held to avgpool_matrix's name
        for kw, staged in ((dict(), False), (dict(format="coo"), True), (dict(backend="sympy"), True),
                           (dict(padding=1, ceil_mode=True), True), (dict(padding=1, ceil_mode=True, backend="sympy"), True)):
            p, cm = kw.get("padding", 0), kw.get("ceil_mode", False)
            nnz = int(np.count_nonzero(_avgpool_ref(2, 5, 4, 3, 2, p, cm, True, None)))
            O = _torch_pool_out(5, 3, 2, p, 1, cm) * _torch_pool_out(4, 3, 2, p, 1, cm)
            ok = ok and _bound_exact(lambda kw=kw: _pool.avgpool_matrix((2, 5, 4), (3, 3), stride=2, **kw), nnz, 2 * O,
                                     kw.get("backend", "numpy"), staged, None if kw.get("ceil_mode") else "avgpool_matrix")
        return ok
    if what == "output-shapes":  # every (n, k, s, p, dilation, ceil_mode) of a small grid, 1-d, 2-d and with channels
        for n, k, s, dl, cm in itertools.product((3, 4, 7), (1, 2, 3), (1, 2, 3), (1, 2), (False, True)):
            for p in range(k // 2 + 1):
                if dl * (k - 1) + 1 <= n + 2 * p and _pool.pool_output_shape(
                        (n,), k, stride=s, padding=p, dilation=dl, ceil_mode=cm) != (_torch_pool_out(n, k, s, p, dl, cm),):
                    return False
        for n, k, cm in itertools.product((4, 7), (2, 3), (False, True)):  # two axes: int and tuple window, channels
            o, o2 = _torch_pool_out(n, k, 2, 1, 2, cm), _torch_pool_out(n + 1, k, 2, 1, 2, cm)
            if (_pool.pool_output_shape((2, n, n + 1), k, stride=2, padding=1, dilation=2, ceil_mode=cm, ndim=2) != (2, o, o2)
                    or _pool.pool_output_shape((n, n + 1), (k, k), stride=(2, 2), padding=(1, 1), dilation=(2, 2),
                                               ceil_mode=cm) != (o, o2)):
                return False
        return _pool.pool_output_shape((5, 7), (3, 3)) == (1, 2) and _pool.pool_output_shape((6, 6), 2, ndim=2) == (3, 3)
    if what == "avgpool-refusals":  # each naming its argument
        A = functools.partial(_pool.avgpool_matrix, (5, 5))
        return all(_refused(call, err, name) for call, err, name in (
            (lambda: A((2, 2), ndim=0), ValueError, "ndim"), (lambda: A((2, 2), ndim=3), ValueError, "ndim"),
            (lambda: _pool.avgpool_matrix((3, 5, 5), 2), ValueError, "window"),
            (lambda: _pool.avgpool_matrix((2, 3, 5, 5), (2, 2)), ValueError, "input_shape"),
            (lambda: _pool.avgpool_matrix((5, 0), (2, 2)), ValueError, "input_shape"),
            (lambda: A((0, 2)), ValueError, "window"), (lambda: A((2, 2), stride=0), ValueError, "stride"),
            (lambda: A((2, 2), stride=0, ceil_mode=True), ValueError, "stride"),
            (lambda: A((2, 2), padding=-1), ValueError, "padding"), (lambda: A((2, 2), padding=2), ValueError, "padding"),
            (lambda: A((6, 2)), ValueError, "window"), (lambda: A((2, 2), ceil_mode=1), TypeError, "ceil_mode"),
            (lambda: A((2, 2), count_include_pad=1), TypeError, "count_include_pad"),
            (lambda: A((2, 2), divisor_override=0), ValueError, "divisor_override"),
            (lambda: A((2, 2), divisor_override=1.5), TypeError, "divisor_override"),
            (lambda: A((2, 2), backend="bogus"), ValueError, "backend"), (lambda: A((2, 2), format="bogus"), ValueError, "format"),
            (lambda: _pool.pool_output_shape((5, 5), (3, 3), dilation=3), ValueError, "window"),
            (lambda: _pool.pool_output_shape((2, 2), (3, 3), padding=1, dilation=2), ValueError, "window"),
            (lambda: _pool.pool_output_shape((5, 5), (2, 2), dilation=0), ValueError, "dilation")))
    if what == "zhu-pool-spellings":  # defaults, every format, the exact field, both flattenings; refusals
        for flat in ("row-major", "patch-major"):
            ref = [[0] * 24 for _ in range(6)]
            for q, r in itertools.product(range(6), range(4)):
                k = q * 4 + r
                col = k if flat == "row-major" else (2 * (k // 4 // 3) + (k % 4) // 2) * 6 + 2 * (k // 4 % 3) + k % 2
                ref[q][col] = 1
            R = np.array(ref, dtype=np.float64) / 4
            for fmt in ("csr", "csc", "coo", "operator"):
                if not np.array_equal(_dense_any(_pool.zhu_pool_matrix((4, 6), 2, flattening=flat, format=fmt)), R):
                    return False
            if sympy.Matrix(_pool.zhu_pool_matrix((4, 6), 2, flattening=flat, backend="sympy")) != sympy.Matrix(ref) / 4:
                return False
        return (np.array_equal(_dense(_pool.zhu_pool_matrix((4, 6), 2)), _dense(_pool.zhu_pool_matrix((4, 6), 2, flattening="row-major")))
                and _refused(lambda: _pool.zhu_pool_matrix((4, 6), 0), ValueError, "p")
                and _refused(lambda: _pool.zhu_pool_matrix((4, 6), 4), ValueError, "Q = L / p^2")
                and _refused(lambda: _pool.zhu_pool_matrix((4, 6), 2, flattening="bogus"), ValueError, "flattening")
                and _refused(lambda: _pool.patch_major_order((4, 6), 4), ValueError, "p")
                and _refused(lambda: _pool.patch_major_order((4, 6), 0), ValueError, "p")
                and all(_refused(lambda f=f, sh=sh: f(sh, 2), ValueError, "image_shape")
                        for f in (_pool.zhu_pool_matrix, _pool.patch_major_order) for sh in ((2, 4, 6), (4,))))
    raise ValueError(what)


AVGPOOL_EXTRA = ("avgpool-defaults", "avgpool-formats", "avgpool-bound", "output-shapes", "avgpool-refusals")
ZHU_POOL_EXTRA = ("zhu-pool-spellings",)


def pool_extra_check(cases):
    """The parts of :func:`_pool_extra_ok` named in ``cases`` (one exhaustive trial)."""
    return exhaustive(_pool_extra_ok, list(cases),
                      describe="avgpool_matrix with its defaults, in csr / csc / coo / operator and the exact field on the "
                               "uniform, clipped and divisor_override paths, charged for exactly its stored entries "
                               "against the memory bound, its refusals naming the argument; pool_output_shape against "
                               "torch's output-size formula (n in {3, 4, 7}, k, s <= 3, every padding, dilation 1, 2, ceil_mode, "
                               "1-d, 2-d, channels); zhu_pool_matrix's defaults, formats and exact field for both "
                               f"flattenings (4×6, p = 2) against the printed formula, and its refusals: {', '.join(cases)}")
