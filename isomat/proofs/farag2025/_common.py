"""farag2025: what the sections share -- imports, independent references (loop-built stages, finite
differences) and helpers. References here share no code with :mod:`isomat.algebra`."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np
import sympy
import z3
from hypothesis import strategies as st

from ...algebra._backend import array_module, to_numpy
from ...algebra.spm import (
    ATTN_MAPS,
    GRU_MAPS,
    SPMKernel,
    butterfly_pairings,
    butterfly_partner,
    layer_matrix,
    param_count,
    random_pairings,
    random_spm,
    rotation_block,
    spm_attention_backward,
    spm_attention_forward,
    spm_backward,
    spm_forward,
    spm_gru_backward,
    spm_gru_forward,
    spm_layer,
    stage_matrix,
)
from ..engine import (  # noqa: F401  (all_of, require: re-exported to the sections, which import *)
    builder_check,
    builder_note,
    device_cached,
    holds_memory_bound,
    refuses,
    require,
    Outcome,
    Reading,
    by_readings,
    Trial,
    all_of,
    claim,
    compare_printed,
    decide,
    exhaustive,
    float_backend,
    jsonable,
    not_checkable,
    numeric_close,
    property_search,
    symbolic_zero,
    printed_checks,
    threshold_reading,
)
from .. import prover
from ...errors import CheckError

# ---------------------------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------------------------
th, x1, x2, d1, d2 = sympy.symbols("theta x1 x2 delta1 delta2", real=True)
a_, b_, c_, d_ = sympy.symbols("a b c d", real=True)
PYTH = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]


def naive_stage(n, pairs, blocks, single_scale=1):
    """Stage matrix by direct loops: block ``(a, b, c, d)`` on rows/cols ``(i, j)``; an unpaired
    coordinate gets ``single_scale``."""
    B = sympy.zeros(n, n)
    used = set()
    for (i, j), (a, b, c, d) in zip(pairs, blocks):
        i, j = int(i), int(j)
        B[i, i], B[i, j], B[j, i], B[j, j] = a, b, c, d
        used |= {i, j}
    for k in range(n):
        if k not in used:
            B[k, k] = single_scale
    return B


def trig_zero(M):
    """True when every entry of M vanishes after sin² → 1 − cos² (fast for polynomial trig entries)."""
    def z(e):
        e = sympy.expand(e)
        rep = {sympy.sin(a) ** 2: 1 - sympy.cos(a) ** 2 for a in {f.args[0] for f in e.atoms(sympy.sin)}}
        return sympy.expand(e.subs(rep)) == 0
    return all(z(e) for e in M)


def rot(t):
    return (sympy.cos(t), -sympy.sin(t), sympy.sin(t), sympy.cos(t))


def symbolic_blocks(n, L, variant):
    """Symbolic parameters of an n-wide, L-stage SPM and its 2x2 blocks (a rotation by a symbol ``t``,
    or four free symbols ``e`` per pair), with symbolic d_in, d_out, bias and input x."""
    m = n // 2
    if variant == "rotation":
        P = np.array(sympy.symbols(f"t0:{L * m}"), dtype=object).reshape(L, m)
        blocks = [[rot(P[e, k]) for k in range(m)] for e in range(L)]
    else:
        P = np.array(sympy.symbols(f"e0:{L * m * 4}"), dtype=object).reshape(L, m, 4)
        blocks = [[tuple(P[e, k]) for k in range(m)] for e in range(L)]
    di, do, bb = (list(sympy.symbols(f"{p}0:{n}")) for p in ("di", "do", "bb"))
    xs = sympy.Matrix(sympy.symbols(f"x0:{n}"))
    return P, blocks, di, do, bb, xs


def rational_angle(rng):
    """An angle with rational cosine and sine (a Pythagorean triple, random signs/swap)."""
    p, q, r = PYTH[int(rng.integers(len(PYTH)))]
    if rng.integers(2):
        p, q = q, p
    return sympy.atan2(int(rng.choice([-1, 1])) * p, int(rng.choice([-1, 1])) * q)


def fd_grad(f, v, h=1e-6):
    """Central finite-difference gradient of scalar ``f`` at float64 array ``v``."""
    v = np.asarray(v, dtype=np.float64)
    g = np.zeros_like(v)
    for idx in np.ndindex(v.shape):
        e = np.zeros_like(v)
        e[idx] = h
        g[idx] = (f(v + e) - f(v - e)) / (2 * h)
    return g


def _fl(lay):
    """The same float layer rebuilt in :func:`float_backend` (the GPU field under ``verify --backend cupy``)."""
    kw = dict(odd_scale=to_numpy(lay.odd_scale)) if lay.odd == "scale" else {}
    return spm_layer(lay.n, list(lay.pairs), to_numpy(lay.params), variant=lay.variant, d_in=to_numpy(lay.d_in),
                     d_out=to_numpy(lay.d_out), bias=to_numpy(lay.bias), odd=lay.odd, backend=float_backend(), **kw)


def _fspm(n, L, **kw):
    """A random float SPM (isomat's ``random_spm`` values) in the float field of the run."""
    return _fl(random_spm(n, L, **kw))


def _dev(a):
    """A host array moved to the float field of the run (no-op for NumPy)."""
    return array_module(float_backend()).asarray(a)


def _host(lay):
    """Host copies of a layer's values: params, d_in, d_out, bias, odd_scale (None unless scaled)."""
    sc = to_numpy(lay.odd_scale) if lay.odd == "scale" else None
    return to_numpy(lay.params), to_numpy(lay.d_in), to_numpy(lay.d_out), to_numpy(lay.bias), sc


def _naive_stage_float(lay, ell):
    """Stage ``ell`` as a dense float matrix by explicit loops over its pairs (cos/sin from ``math``)."""
    n = lay.n
    P, _, _, _, sc = _host(lay)
    B = np.zeros((n, n))
    used = set()
    for k, (i, j) in enumerate(lay.pairs[ell]):
        i, j = int(i), int(j)
        if lay.variant == "rotation":
            c, s = math.cos(P[ell, k]), math.sin(P[ell, k])
            a, b, cc, d = c, -s, s, c
        else:
            a, b, cc, d = (float(v) for v in P[ell, k])
        B[i, i], B[i, j], B[j, i], B[j, j] = a, b, cc, d
        used |= {i, j}
    for q in range(n):
        if q not in used:
            B[q, q] = float(sc[ell]) if sc is not None else 1.0
    return B


def _naive_dense(lay):
    """D_out B_L ⋯ B_1 D_in as a dense float matrix from :func:`_naive_stage_float` (no isomat code)."""
    _, di, do, _, _ = _host(lay)
    M = np.eye(lay.n)
    for ell in range(lay.L):
        M = _naive_stage_float(lay, ell) @ M
    return np.diag(do) @ M @ np.diag(di)



# ---------------------------------------------------------------------------------------------
# Binding checks: isomat's constructions against the proved rule / independent references, passed to
# decide(...) as Trials (a failure makes the claim an error). Each is exhaustive up to a stated bound and
# seeded-random at a few larger sizes; cached per float field (functools caches, which the mutation suite
# clears).
# ---------------------------------------------------------------------------------------------
#: the seeded larger sizes every binding check also runs at (n, L)
LARGE = ((37, 4), (64, 6), (101, 3))


def _small_depth(n: int) -> int:
    """The deepest L of the exhaustive range at width n: max(3, 2⌈log2 n⌉) (the user-size checks go on from there)."""
    return max(3, 2 * max(1, math.ceil(math.log2(n))))


def _dense(M) -> np.ndarray:
    """A rendered float matrix (SciPy or CuPy sparse) as a host array."""
    return to_numpy(M.toarray() if hasattr(M, "toarray") else M)


def _sym_stage_case(n, pairs, variant, odd):
    """One symbolic stage of isomat and its loop-built reference (symbols for every angle/entry and the scale)."""
    m = len(pairs)
    sc = sympy.Symbol("s") if odd == "scale" else 1
    kw = dict(odd_scale=[sc]) if odd == "scale" else {}
    if variant == "rotation":
        P = np.array(sympy.symbols(f"t0:{m}"), dtype=object).reshape(1, m)
        blocks = [rot(P[0, k]) for k in range(m)]
    else:
        P = np.array(sympy.symbols(f"e0:{4 * m}"), dtype=object).reshape(1, m, 4)
        blocks = [tuple(P[0, k]) for k in range(m)]
    lay = spm_layer(n, [np.array(pairs, dtype=np.int64).reshape(-1, 2)], P, variant=variant, odd=odd, backend="sympy", **kw)
    return sympy.Matrix(stage_matrix(lay, 0)), naive_stage(n, pairs, blocks, sc)


@device_cached
def _stage_binding_cached(key: str, variant: str):
    def small(c):
        n, pairs, odd = c
        got, ref = _sym_stage_case(n, pairs, variant, odd)
        return got == ref

    cases = [(n, m, odd) for n in range(1, 7) for m in _matchings(range(n)) for odd in (("pass", "scale") if n % 2 else ("pass",))]
    exact = exhaustive(small, cases, describe=f"isomat's {variant} stage_matrix vs the stage written out entry by entry "
                       "(naive_stage: block (cos θ, −sin θ, sin θ, cos θ) / (a, b, c, d) at (i, i), (i, j), (j, i), (j, j), "
                       "1 or the symbol s at an unpaired coordinate), symbolic angles/entries, every maximum matching, "
                       "n = 1..6, both odd modes", method="symbolic")

    def large(c):
        n, L, seed = c
        lay = _fspm(n, L, variant=variant, schedule="random", seed=seed, odd="scale" if seed % 2 else "pass")
        # every stage matches, and a stage past the last (ell = L) or before the first is refused by name
        return (all(np.allclose(_dense(stage_matrix(lay, e)), _naive_stage_float(lay, e), rtol=0, atol=1e-15)
                    for e in range(L))
                and refuses(lambda: stage_matrix(lay, L), ValueError, f"ell must be in [0, {L - 1}], got {L}")
                and refuses(lambda: stage_matrix(lay, -1), ValueError, "ell"))

    rnd = exhaustive(large, [(n, L, s) for s, (n, L) in enumerate(LARGE)], strength="sampled",
                     describe=f"isomat's {variant} stage_matrix vs loop-built float stages (math.cos/sin), random "
                          f"pairings and values, (n, L) in {list(LARGE)}, seeds 0..2, atol 1e-15; stages ell = L "
                          "and ell = -1 refused naming ell")
    rnd = rnd.with_evidence(field=key)  # the float stages were built in this field (the cache is per field)
    # exact (symbolic) for every n up to 6: the check caps a headline at exhaustive; the float sizes stay binding
    return builder_check(exact, rnd, derived_from_rule=False, builder=f"stage_matrix ({variant})")


def _stage_binding(variant: str = "rotation"):
    """Binding: isomat's stage builder equals the stage rule written out (exact up to n = 6, every matching;
    seeded random at n = 37, 64, 101)."""
    return _stage_binding_cached(float_backend(), variant)


@device_cached
def _forward_binding_cached(key: str):
    def ok(c):
        n, L, seed = c
        lay = _fspm(n, L, variant="general" if seed % 2 else "rotation", schedule="random", seed=seed,
                    odd="scale" if seed % 3 == 0 else "pass")
        X = np.random.default_rng(seed).standard_normal((3, n))
        M, b = _naive_dense(lay), to_numpy(lay.bias)
        ref = X @ M.T + b
        fwd = np.allclose(to_numpy(spm_forward(lay, _dev(X))), ref, rtol=1e-12, atol=1e-12)
        mat = np.allclose(_dense(layer_matrix(lay)), M, rtol=1e-12, atol=1e-12)
        return bool(fwd and mat and _input_classes_ok(lay, X, M, b))

    cases = [(n, L, 10 * n + L) for n in range(1, 9) for L in range(1, _small_depth(n) + 1)]
    # sampled, though it runs every size of the range: each size is decided on one random float layer (rtol 1e-12)
    small = exhaustive(ok, cases, describe="isomat's spm_forward and layer_matrix vs D_out B_L⋯B_1 D_in x + b from "
                       "loop-built stages (_naive_dense), every n = 1..8, every L = 1..max(3, 2⌈log2 n⌉), random "
                       "pairings and values, rtol 1e-12; a 1-d example, and (host field) integer and object-dtype "
                       "batches read as float64, a (2, 3, n) batch within the forward's memory bound and refused one "
                       "byte below it, return_cache and X refused by name", strength="sampled")
    rnd = exhaustive(ok, [(n, L, 1000 + s) for s, (n, L) in enumerate(LARGE)], strength="sampled",
                     describe=f"the same at seeded random (n, L) in {list(LARGE)}")
    # where users run it: n up to 8192, L up to 2⌈log2 n⌉, against stage-by-stage loops (no dense matrices)
    user = _user_size_binding("y").with_evidence(field=key)  # isomat's forward and layer matrix ran in this field (the cache is per field)
    return builder_check(small, rnd, user, derived_from_rule=False, builder="spm_forward, layer_matrix")


def _input_classes_ok(lay, X, M, b) -> bool:
    """The inputs users pass beside a float batch, against the layer written out (x ↦ M x + b, M from loop-built
    stages): one example as a 1-d array (the result 1-d); and on the host field an integer batch and an object
    array of Python floats, each read as float64 (the result float64)."""
    ref = X @ M.T + b
    one = to_numpy(spm_forward(lay, _dev(X[0])))
    if one.shape != ref[0].shape or not np.allclose(one, ref[0], rtol=1e-12, atol=1e-12):
        return False
    if float_backend() != "numpy":
        return True
    if not _forward_plumbing_ok(lay, X):
        return False
    Xi = np.rint(4 * X).astype(np.int64)  # integers in about [-12, 12]
    for Xin, want in ((Xi, Xi @ M.T + b), (X.astype(object), ref)):
        got = spm_forward(lay, Xin)
        if got.dtype != np.float64 or got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=1e-11):
            return False
    return True


def _forward_plumbing_ok(lay, X) -> bool:
    """spm_forward's memory bound and refusals on the host field: a batch of two leading axes (2, 3, n) fits the bound
    of its L + 6 float64 arrays of 6 x n (the activations kept, a stage's gathers and products, the output) and is
    refused one byte below it; a return_cache that is no bool, a batch whose last axis is not n and an entry that is
    no number (in this field and in the exact one) are refused by name."""
    n = lay.n
    X3 = np.concatenate([X, X])[:6].reshape(2, 3, n) if X.shape[0] >= 3 else np.ones((2, 3, n))
    shapes = []
    return (holds_memory_bound(lambda: shapes.append(to_numpy(spm_forward(lay, X3)).shape), 2 * 3 * n * (lay.L + 6) * 8,
                               "spm_forward")
            and shapes[0] == (2, 3, n)
            and refuses(lambda: spm_forward(lay, X, return_cache=1), TypeError, "return_cache must be True or False")
            and refuses(lambda: spm_forward(lay, np.ones((3, n + 1))), ValueError, f"X must have shape (..., {n})")
            # an entry that is no number, named as X in the float field and in the exact one (an exact layer)
            and refuses(lambda: spm_forward(lay, np.array([[1.0] * (n - 1) + ["a"]], dtype=object)), TypeError,
                        "X must hold numbers, got the string 'a'")
            and refuses(lambda: spm_forward(spm_layer(n, "butterfly", np.zeros((1, n // 2)), backend="sympy"),
                                            [[1] * (n - 1) + ["a"]]), TypeError, "X: cannot use 'a' as an exact SymPy value"))


def _forward_binding():
    """Binding: isomat's forward and layer matrix against the layer written out with loop-built stages."""
    return _forward_binding_cached(float_backend())


def _reference_grads(lay, X, G) -> dict[str, np.ndarray]:
    """∂⟨G, Y⟩ for Y = (D_out B_L⋯B_1 D_in X^T)^T + b, written out with dense loop-built stages
    (:func:`_naive_stage_float`) and the chain rule in matrix form: u_L = G D_out, u_{ℓ−1} = u_ℓ B_ℓ (rows);
    ∂/∂X = u_0 D_in, ∂/∂d_in = Σ_rows u_0 ⊙ X, ∂/∂d_out = Σ_rows G ⊙ z_L, ∂/∂b = Σ_rows G, and a stage
    parameter p gets Σ_rows u_ℓ (∂B_ℓ/∂p) z_{ℓ−1}^T with ∂B_ℓ/∂p the derivative of the written-out block
    ((−sin, −cos, cos, −sin) for an angle; a unit entry for a, b, c, d). Shares no code with isomat's backward."""
    P, di, do, b, sc = _host(lay)
    Bs = [_naive_stage_float(lay, ell) for ell in range(lay.L)]
    zs = [X * di]
    for B in Bs:
        zs.append(zs[-1] @ B.T)
    u = G * do
    gP = np.zeros(np.shape(P))
    gsc = np.zeros(lay.L)
    for ell in range(lay.L - 1, -1, -1):
        z = zs[ell]
        used = set()
        for k, (i, j) in enumerate(lay.pairs[ell]):
            i, j = int(i), int(j)
            used |= {i, j}
            if lay.variant == "rotation":
                c, s = math.cos(P[ell, k]), math.sin(P[ell, k])
                dB = {(i, i): -s, (i, j): -c, (j, i): c, (j, j): -s}
                gP[ell, k] = sum(v * float(np.sum(u[:, r] * z[:, q])) for (r, q), v in dB.items())
            else:
                gP[ell, k] = [float(np.sum(u[:, r] * z[:, q])) for r, q in ((i, i), (i, j), (j, i), (j, j))]
        for q in set(range(lay.n)) - used:
            gsc[ell] = float(np.sum(u[:, q] * z[:, q]))
        u = u @ Bs[ell]
    out = {"x": u * di, "params": gP, "d_in": np.sum(u * X, axis=0), "d_out": np.sum(G * zs[-1], axis=0),
           "bias": np.sum(G, axis=0)}
    if sc is not None and lay.n % 2:
        out["odd_scale"] = gsc
    return out


def grads_match(got: dict, want: dict, describe: str, *, rtol: float = 1e-10, atol: float = 1e-12) -> Trial:
    """Binding: a gradient dict of isomat (one level of nested per-map dicts allowed) has exactly the keys of the
    reference ``want`` and every array agrees (:func:`numeric_close` on them all, in key order)."""
    def flat(d, pre=""):
        out = {}
        for k, v in d.items():
            out.update(flat(v, f"{pre}{k}.") if isinstance(v, dict) else {f"{pre}{k}": v})
        return out

    g, w = flat(got), flat(want)
    if set(g) != set(w) or any(np.shape(to_numpy(g[k])) != np.shape(w[k]) for k in w):
        return Trial(False, "numeric", {"compared": describe},
                     {"isomat_keys": sorted(g), "reference_keys": sorted(w),
                      "shapes": {k: [list(np.shape(to_numpy(g[k]))), list(np.shape(w[k]))] for k in sorted(set(g) & set(w))}})
    keys = sorted(w)
    return numeric_close(np.concatenate([np.ravel(to_numpy(g[k])) for k in keys]),
                         np.concatenate([np.ravel(w[k]) for k in keys]), describe=describe + f" (keys {keys})",
                         rtol=rtol, atol=atol)


@device_cached
def _backward_bad_cases(key: str) -> tuple[tuple[str, tuple[int, int, int], float], ...]:
    """Every (gradient, case, relative error) where isomat's spm_backward disagrees with torch autograd."""
    bad = []
    cases = [(n, L, 10 * n + L) for n in range(1, 9) for L in range(1, _small_depth(n) + 1)] + \
        [(n, L, 2000 + s) for s, (n, L) in enumerate(LARGE)]
    for n, L, seed in cases:
        for variant in ("rotation", "general"):
            lay = _fspm(n, L, variant=variant, schedule="random", seed=seed, odd="scale" if seed % 2 else "pass")
            rng = np.random.default_rng(seed)
            X, G = rng.standard_normal((3, n)), rng.standard_normal((3, n))
            got = {k: to_numpy(v) for k, v in spm_backward(lay, _dev(X), _dev(G)).items()}
            ref = _reference_grads(lay, X, G)
            for k in sorted(set(got) | set(ref)):
                if k not in got or k not in ref or np.shape(got[k]) != np.shape(ref[k]):
                    bad.append((k, (n, L, seed), float("inf")))
                    continue
                err = float(np.max(np.abs(got[k] - ref[k]), initial=0.0)) / (1 + float(np.max(np.abs(ref[k]), initial=0.0)))
                if err > 1e-11:
                    bad.append((k, (n, L, seed), err))
    return tuple(bad)


@device_cached
def _backward_plumbing_bad(key: str) -> tuple[str, ...]:
    """What spm_backward gets wrong around its gradients, on the host field (the cupy field's own bound is its device
    memory check): its memory bound -- L + 8 float64 arrays of the batch when it runs the forward itself, 7 with the
    forward's cache given -- fits and is refused one byte below it naming spm_backward, at a batch of two leading
    axes (2, 3, n), so its rows are the product of every leading axis; and its refusals by name: X or G whose last
    axis is not n, G of another shape than X, and a cache that is no list (an array, a number), has another length
    than L + 1, or holds activations of another shape, each saying what it got."""
    if key != "numpy":
        return ()
    bad = []
    for n, L, variant in ((5, 3, "general"), (8, 4, "rotation")):
        lay = _fspm(n, L, variant=variant, schedule="random", seed=n, odd="scale")
        rng = np.random.default_rng(n)
        X, G = rng.standard_normal((2, 3, n)), rng.standard_normal((2, 3, n))
        zs = spm_forward(lay, X, return_cache=True)[1]
        where = f"n = {n}, L = {L}, {variant}"
        for cache, arrays in ((None, L + 8), (zs, 7)):
            if not holds_memory_bound(lambda cache=cache: spm_backward(lay, X, G, cache=cache), 6 * n * arrays * 8,
                                      "spm_backward"):
                bad.append(f"{where}: not built at its bound of {arrays} arrays of 6 x {n} float64 "
                           f"({'without' if cache is None else 'with'} a cache), or not refused one byte below it")
        for what, call, exc, names in (
                ("X of another width", lambda: spm_backward(lay, X[..., :-1], G), ValueError, (f"X must have shape (..., {n})",)),
                ("G of another width", lambda: spm_backward(lay, X, G[..., :-1]), ValueError, (f"G must have shape (..., {n})",)),
                ("G of another batch shape", lambda: spm_backward(lay, X, G[:1]), ValueError, ("G must have the shape of X",)),
                ("a cache that is no list", lambda: spm_backward(lay, X, G, cache=np.stack(zs)), TypeError,
                 (f"cache must be None or the list of L + 1 = {L + 1} activations", "got ndarray")),
                ("a cache that is no sequence", lambda: spm_backward(lay, X, G, cache=L + 1), TypeError,
                 (f"cache must be None or the list of L + 1 = {L + 1} activations", "got int")),
                ("a cache one activation short", lambda: spm_backward(lay, X, G, cache=zs[:-1]), TypeError,
                 (f"got list of length {L}",)),
                ("a cache of another batch shape", lambda: spm_backward(lay, X, G, cache=[z[:1] for z in zs]), TypeError,
                 (f"activations of X's shape (2, 3, {n})", f"got list of length {L + 1}"))):
            if not refuses(call, exc, *names):
                bad.append(f"{where}: {what} not refused with {exc.__name__} naming {names}")
    return tuple(bad)


def maps_refused(call, maps: dict, keys: tuple[str, ...]) -> bool:
    """``call(m)`` (a GRU or attention forward or backward given the maps ``m``) refuses, naming ``maps`` and saying
    what it got: a list of the maps (no dict), a dict without the last of ``keys``, a value that is no SPM layer, and
    a map of another width."""
    last, n = keys[-1], maps[keys[0]].n
    other = _fspm(n + 1, 1, variant="general", schedule="random", seed=n)
    return (refuses(lambda: call(list(maps.values())), ValueError, f"maps must be a dict with keys {list(keys)}", "got list")
            and refuses(lambda: call({k: v for k, v in maps.items() if k != last}), ValueError,
                        f"got {sorted(k for k in keys if k != last)}")
            and refuses(lambda: call({**maps, last: np.eye(n)}), TypeError, "maps values must be SPM layers")
            and refuses(lambda: call({**maps, last: other}), ValueError, "maps: all SPM maps must have the same n"))


def _backward_binding(*keys: str):
    """Binding: isomat's spm_backward gradients ``keys`` against the chain rule written out with dense
    loop-built stages (:func:`_reference_grads`), every n = 1..8, L = 1..max(3, 2⌈log2 n⌉), both variants, and seeded
    random (n, L) in LARGE (batch 3, random pairings; odd scale on for odd seeds), error relative to 1 + max|reference|
    <= 1e-11; and at the sizes users run (:func:`_user_size_binding`: n up to 8192, L up to 2⌈log2 n⌉, loops over
    the pairs, SPMKernel's paths too)."""
    plumbing = _backward_plumbing_bad(float_backend())
    if plumbing:
        return builder_check(Trial(False, "exact", {"checked": _backward_plumbing_bad.__doc__.split(":", 1)[1].strip()},
                                   {"failing": list(plumbing)}, strength="exhaustive"),
                             derived_from_rule=False, builder="spm_backward")
    bad = [b for b in _backward_bad_cases(float_backend()) if b[0] in keys]
    ev = {"compared": f"isomat spm_backward {', '.join(keys)} vs the chain rule written out with dense loop-built stages",
          "cases": f"n = 1..8, L = 1..max(3, 2⌈log2 n⌉), both variants; random (n, L) in {list(LARGE)}", "tolerance": 1e-11,
          "field": float_backend()}
    user = _user_size_binding(*keys)
    if not user.ok:
        return builder_check(user, derived_from_rule=False, builder="spm_backward")
    ev["at_user_sizes"] = dict(user.evidence)
    if bad:
        k, case, err = bad[0]
        return builder_check(Trial(False, "numeric", ev, {"gradient": k, "case": list(case), "relative_error": err,
                                                          "failing": len(bad)}, strength="sampled"),
                             derived_from_rule=False, builder="spm_backward")
    # sampled: every size of the range, but one random layer and batch per size
    return builder_check(Trial(True, "numeric", ev, strength="sampled"), derived_from_rule=False, builder="spm_backward")


# ---------------------------------------------------------------------------------------------
# Where users run SPM: n up to 8192 (farag2025 Tables 1-2: n = 1024..8192), L up to 2⌈log2 n⌉ (§8.2: full
# dependence after ⌈log2 n⌉ butterfly stages; twice that for depth). The checks above stop at n = 101, L = 6; a
# builder wrong only beyond them passed every claim. Here isomat's forward, backward, stage matrices and the
# SPMKernel paths are compared with a reference written as direct loops over the pairs of each stage (plain
# Python, no NumPy indexing, no isomat code), at the sizes users run and on a seeded random sweep of sizes that
# starts where the exhaustive range (n = 1..8, every L up to 2⌈log2 n⌉) ends.
# ---------------------------------------------------------------------------------------------
#: the largest width checked (the widest of farag2025 Tables 1-2)
USER_N = 8192


def _max_depth(n: int) -> int:
    """2⌈log2 n⌉ (at least 2): the deepest layer the checks cover for width n."""
    return 2 * max(1, math.ceil(math.log2(n)))


#: (n, L, variant, schedule, odd, batch shape) fixed at the sizes users run: the widest power of two with the
#: deepest L (rotation + butterfly is SPMKernel's fused path; general + random its gather path), an odd width
#: (the unpaired coordinate, learned scale, butterfly pairing of a width that is not a power of two, a 3-D batch),
#: and n = 1024 with three rows (SPMKernel's fused path split over two threads in one-row chunks); and one example
#: as a 1-d array (no batch axis: nothing summed) at an odd width with rotations and a learned scale. One row at the
#: widest sizes keeps the loops cheap; summing over the batch is checked on the sweep (two rows) and above.
USER_CASES = ((USER_N, _max_depth(USER_N), "rotation", "butterfly", "pass", (1,)),
              (USER_N, _max_depth(USER_N), "general", "random", "pass", (1,)),
              (USER_N - 1, _max_depth(USER_N - 1), "general", "butterfly", "scale", (1, 1)),
              (1024, _max_depth(1024), "rotation", "butterfly", "pass", (3,)),
              (257, _max_depth(257), "rotation", "random", "scale", ()))
#: seed of the random sweep of sizes n in [9, USER_N] (log-uniform), L in [1, 2⌈log2 n⌉]
SWEEP_SEED, SWEEP_CASES = 8192, 8


def _sweep_cases() -> list[tuple]:
    rng = np.random.default_rng(SWEEP_SEED)
    out = []
    for _ in range(SWEEP_CASES):
        n = int(round(math.exp(rng.uniform(math.log(9), math.log(USER_N)))))
        out.append((n, int(rng.integers(1, _max_depth(n) + 1)), str(rng.choice(["rotation", "general"])),
                    str(rng.choice(["butterfly", "random"])), str(rng.choice(["pass", "scale"])), (2,)))
    return out


def _user_layer(case, seed: int):
    """A float SPM of ``case`` in the run's float field and its values as Python numbers. The general variant
    has integer blocks in {-1, 0, 1} and integer diagonals, bias and scales, so the float64 results are
    integers and compared exactly (the reference asserts they stay below 2^53); the rotation variant has
    random angles (compared with a tolerance)."""
    n, L, variant, schedule, odd, _ = case
    rng = np.random.default_rng(seed)
    m = n // 2
    pr = butterfly_pairings(n, L) if schedule == "butterfly" else random_pairings(n, L, seed=seed)
    if variant == "rotation":
        P = rng.uniform(-np.pi, np.pi, (L, m))
        di, do = 1 + 0.1 * rng.standard_normal(n), 1 + 0.1 * rng.standard_normal(n)
        b, sc = 0.1 * rng.standard_normal(n), 1 + 0.1 * rng.standard_normal(L)
    else:
        P = rng.integers(-1, 2, (L, m, 4)).astype(float)
        di, do = rng.choice([-2.0, -1.0, 1.0, 2.0], n), rng.choice([-2.0, -1.0, 1.0, 2.0], n)
        b, sc = rng.integers(-3, 4, n).astype(float), rng.choice([-2.0, -1.0, 1.0, 2.0], L)
    kw = dict(odd_scale=sc) if odd == "scale" else {}
    lay = spm_layer(n, pr, P, variant=variant, d_in=di, d_out=do, bias=b, odd=odd, backend=float_backend(), **kw)
    num = int if variant == "general" else float
    # the stages written out from their definition: pair (i, j) of stage ℓ mixed by its 2x2 block, the
    # unpaired coordinate of odd n (the one no pair names) passed through or scaled
    stages = []
    cs, sn = np.cos(P), np.sin(P)
    for ell in range(L):
        pairs = pr[ell].tolist()
        if variant == "rotation":
            blocks = [(c, -s, s, c) for c, s in zip(cs[ell].tolist(), sn[ell].tolist())]
        else:
            blocks = P[ell].astype(np.int64).tolist()
        named = set(pr[ell].reshape(-1).tolist())
        single = [k for k in range(n) if k not in named] if n % 2 else []
        scale = num(sc[ell]) if odd == "scale" else 1
        stages.append((pairs, blocks, single, scale))
    conv = (lambda v: v.astype(np.int64).tolist()) if variant == "general" else (lambda v: v.tolist())
    vals = dict(d_in=conv(di), d_out=conv(do), bias=conv(b))
    return lay, stages, vals, num


def _loop_forward(stages, vals, x):
    """z_0 = D_in x, z_ℓ = B_ℓ z_{ℓ-1} pair by pair (eq. 2-3, 5-6 / 10-11), y = D_out z_L + b (eq. 4): the list
    of z_0..z_L and y, plain Python."""
    z = [di * xi for di, xi in zip(vals["d_in"], x)]
    zs = [z]
    for pairs, blocks, single, scale in stages:
        z = list(z)
        for (i, j), (a, b, c, d) in zip(pairs, blocks):
            x1, x2 = z[i], z[j]
            z[i], z[j] = a * x1 + b * x2, c * x1 + d * x2
        for k in single:
            z[k] = scale * z[k]
        zs.append(z)
    return zs, [do * zi + bi for do, zi, bi in zip(vals["d_out"], z, vals["bias"])]


def _loop_backward(stages, vals, x, zs, g, out):
    """Adds to ``out`` the gradients of ⟨g, y⟩ for one example by the chain rule through the loops of
    :func:`_loop_forward`: u = ∂/∂z_L = D_out g, then per stage in reverse, for pair (i, j) with block
    (a, b, c, d) and stage input (x1, x2): ∂/∂(a, b, c, d) = (u_i x1, u_i x2, u_j x1, u_j x2); an angle θ
    (a, b, c, d = cos, −sin, sin, cos) gets u_i(−sin θ x1 − cos θ x2) + u_j(cos θ x1 − sin θ x2); u ← B_ℓᵀ u
    (u_i ← a u_i + c u_j, u_j ← b u_i + d u_j); the unpaired coordinate: ∂/∂s = u_k z_k, u_k ← s u_k."""
    n, L = len(x), len(stages)
    for k in range(n):
        out["bias"][k] += g[k]
        out["d_out"][k] += g[k] * zs[L][k]
    u = [do * gk for do, gk in zip(vals["d_out"], g)]
    for ell in range(L - 1, -1, -1):
        pairs, blocks, single, scale = stages[ell]
        z, gp = zs[ell], out["params"][ell]
        if out["rotation"]:  # a = cos θ, c = sin θ
            for q, ((i, j), (a, b, c, d)) in enumerate(zip(pairs, blocks)):
                x1, x2, d1, d2 = z[i], z[j], u[i], u[j]
                gp[q] += d1 * (-c * x1 - a * x2) + d2 * (a * x1 - c * x2)
                u[i], u[j] = a * d1 + c * d2, b * d1 + d * d2
        else:  # gp: four lists, the gradients of a, b, c, d of every pair
            ga, gb, gc, gd = gp
            for q, ((i, j), (a, b, c, d)) in enumerate(zip(pairs, blocks)):
                x1, x2, d1, d2 = z[i], z[j], u[i], u[j]
                ga[q] += d1 * x1
                gb[q] += d1 * x2
                gc[q] += d2 * x1
                gd[q] += d2 * x2
                u[i], u[j] = a * d1 + c * d2, b * d1 + d * d2
        for k in single:
            out["odd_scale"][ell] += u[k] * z[k]
            u[k] = scale * u[k]
    for k in range(n):
        out["d_in"][k] += u[k] * x[k]
    out["x"].append([u[k] * vals["d_in"][k] for k in range(n)])


@device_cached
def _user_size_bad(key: str) -> tuple[tuple[str, str, tuple, float], ...]:
    """Every (what, gradient or output, case, error) where isomat's forward, backward, stage matrices or
    SPMKernel disagree with the loop reference at the user-size cases and the sweep (see ``USER_CASES``)."""
    import gc

    # the loops make ~10^5 small lists: a cyclic collection over the worker's heap (SymPy, Z3) each time
    # would double the check's cost, and they hold no cycles
    was = gc.isenabled()
    gc.disable()
    try:
        return _user_size_bad_run()
    finally:
        if was:
            gc.enable()


def _user_size_bad_run() -> tuple[tuple[str, str, tuple, float], ...]:
    bad: list = []
    cases = [(c, 4000 + s) for s, c in enumerate(USER_CASES)] + [(c, 5000 + s) for s, c in enumerate(_sweep_cases())]
    for case, seed in cases:
        n, L, variant, schedule, odd, shape = case
        lay, stages, vals, num = _user_layer(case, seed)
        rng = np.random.default_rng(seed + 1)
        if variant == "general":
            X, G = rng.integers(-2, 3, shape + (n,)).astype(float), rng.integers(-2, 3, shape + (n,)).astype(float)
        else:
            X, G = rng.standard_normal(shape + (n,)), rng.standard_normal(shape + (n,))
        conv = (lambda v: v.reshape(-1, n).astype(np.int64).tolist()) if num is int else (lambda v: v.reshape(-1, n).tolist())
        rows_x, rows_g = conv(X), conv(G)
        m = n // 2
        ref = dict(bias=[0] * n, d_out=[0] * n, d_in=[0] * n, odd_scale=[0] * L, x=[], rotation=variant == "rotation",
                   params=[[0] * m for _ in range(L)] if variant == "rotation" else [[[0] * m for _ in range(4)] for _ in range(L)])
        Y, zL = [], []
        for x, g in zip(rows_x, rows_g):
            zs, y = _loop_forward(stages, vals, x)
            Y.append(y)
            zL.append(zs[-1])
            _loop_backward(stages, vals, x, zs, g, ref)
        want = {"y": np.array(Y, dtype=float).reshape(shape + (n,)), "x": np.array(ref["x"], dtype=float).reshape(shape + (n,)),
                "params": (np.array(ref["params"], dtype=float) if variant == "rotation"
                           else np.array(ref["params"], dtype=float).reshape(L, 4, m).transpose(0, 2, 1)),
                **{k: np.array(ref[k], dtype=float) for k in ("bias", "d_out", "d_in")}}
        if odd == "scale" and n % 2:
            want["odd_scale"] = np.array(ref["odd_scale"], dtype=float)
        if num is int:  # exact: every reference value is an integer that float64 holds exactly
            top = max(float(np.max(np.abs(np.array(zL, dtype=float)), initial=0)),
                      *(float(np.max(np.abs(w), initial=0)) for w in want.values()))
            if top >= 2.0 ** 53:
                raise CheckError(f"the exact SPM check left float64's integers (|value| {top} >= 2^53) at {case}")

        def compare(what, key_, got_, ref_):
            got_ = np.asarray(to_numpy(got_), dtype=float)
            if got_.shape != ref_.shape:
                bad.append((what, key_, case, float("inf")))
                return
            err = float(np.max(np.abs(got_ - ref_), initial=0.0))
            tol = 0.0 if num is int else 1e-10 * (1 + float(np.max(np.abs(ref_), initial=0.0)))
            if not err <= tol:
                bad.append((what, key_, case, err))

        compare("spm_forward", "y", spm_forward(lay, _dev(X)), want["y"])
        # and as training runs it: the forward's cache of z_0..z_L (its last against the loops' z_L) passed back
        Yc, cache = spm_forward(lay, _dev(X), return_cache=True)
        compare("spm_forward(return_cache)", "y", Yc, want["y"])
        if len(cache) != L + 1:
            bad.append(("spm_forward(return_cache)", "y", case, float("inf")))
        else:
            compare("spm_forward(return_cache): its z_L", "y", cache[-1], np.array(zL, dtype=float).reshape(shape + (n,)))
        for what, got in (("spm_backward", spm_backward(lay, _dev(X), _dev(G))),
                          ("spm_backward(cache)", spm_backward(lay, _dev(X), _dev(G), cache=cache))):
            for k in sorted(set(got) | set(want) - {"y"}):
                if k not in got or k not in want:
                    bad.append((what, k, case, float("inf")))
                else:
                    compare(what, k, got[k], want[k])
        # stage matrices: every stored entry of the first and the last stage against the stage written out (a stage
        # ℓ < L - 1 reads its own slice of the parameters and odd scales; the loops stay cheap)
        for ell in sorted({0, L - 1}):
            S = stage_matrix(lay, ell, format="coo") if float_backend() == "numpy" else stage_matrix(lay, ell)
            S = S.tocoo() if hasattr(S, "tocoo") else S
            S.sum_duplicates()  # one entry per (row, col), sorted
            pairs, blocks, single, scale = stages[ell]
            ent = []  # (row, col, value) of the stage written out: block (a, b, c, d) at (i, i), (i, j), (j, i), (j, j)
            for (i, j), (a, b_, c_, d) in zip(pairs, blocks):
                ent += [(i, i, a), (i, j, b_), (j, i, c_), (j, j, d)]
            ent += [(k, k, scale) for k in single]
            ent.sort()
            want_s = np.array(ent, dtype=float).reshape(-1, 3)
            got_s = np.stack([np.asarray(to_numpy(S.row), float), np.asarray(to_numpy(S.col), float),
                              np.asarray(to_numpy(S.data), float)], axis=1)
            nz = want_s[:, 2] != 0  # a zero block entry (general variant) may be stored or not
            got_s = got_s[got_s[:, 2] != 0]
            same = got_s.shape == want_s[nz].shape and np.array_equal(got_s[:, :2], want_s[nz, :2])
            err = float(np.max(np.abs(got_s[:, 2] - want_s[nz, 2]), initial=0.0)) if same else float("inf")
            if not err <= (0.0 if num is int else 1e-15):
                bad.append(("stage_matrix", f"stage {ell}", case, err))
        # SPMKernel (float64, the host field): the fused path (rotation, butterfly, n a power of two) and the
        # gather path, with one-row chunks and two threads so that every chunk and thread boundary is crossed
        if float_backend() == "numpy" and len(shape) == 1:
            for kw in ({"chunk": 1, "threads": 2, "keep": True}, {"chunk": 1, "keep": False}):
                K = SPMKernel(lay, shape[0], np.float64, **kw)
                compare(f"SPMKernel[{K.path}, {kw}]", "y", K.forward(X), want["y"])
                kg = K.backward(G)
                for k in sorted(set(kg) | set(want) - {"y"}):
                    if k not in kg or k not in want:
                        bad.append((f"SPMKernel[{K.path}]", k, case, float("inf")))
                    else:
                        compare(f"SPMKernel[{K.path}, {kw}]", k, kg[k], want[k])
                if K.path == "gather":
                    break  # chunk, threads and keep are the fused path's
    return tuple(bad)


def _user_size_text() -> str:
    return (f"fixed (n, L, variant, schedule, odd, batch shape) in {[c for c in USER_CASES]}; and {SWEEP_CASES} "
            f"seeded random cases (numpy seed {SWEEP_SEED}) with n log-uniform in [9, {USER_N}] and L in "
            f"[1, 2⌈log2 n⌉]: {_sweep_cases()}")


def _user_size_binding(*keys: str) -> Trial:
    """Binding at the sizes users run: isomat's spm_forward (``"y"``) / spm_backward gradients ``keys`` (and the
    stage matrices and SPMKernel on the same layers) against the loop reference (:func:`_loop_forward`,
    :func:`_loop_backward`); exact for the general variant (integer values), rtol 1e-10 of the largest
    reference value for rotations."""
    bad = [b for b in _user_size_bad(float_backend()) if b[1] in keys or b[0] == "stage_matrix"]
    ev = {"compared": f"isomat {', '.join(keys)} (spm_forward, spm_backward with and without the forward's cache, "
                      "SPMKernel where it runs) and the stage "
                      "matrices vs stage-by-stage loops over the pairs, written from eq. (2)-(19)",
          "cases": _user_size_text(), "tolerance": "exact (general: integer values); rotation: 1e-10·(1 + max|ref|)",
          "field": float_backend()}
    if bad:
        what, k, case, err = bad[0]
        return Trial(False, "numeric", ev, {"function": what, "output": k, "case": list(case[:5]), "error": err,
                                             "failing": len(bad)}, strength="sampled")
    return Trial(True, "numeric", ev, strength="sampled")



# ---------------------------------------------------------------------------------------------
# Issue 36 item 2: builders no proved rule computes (spm_forward, spm_backward and SPMKernel are matrix-free loops;
# stage_matrix places its entries itself). Their checks are engine.builder_check objects; what each covers:
# ---------------------------------------------------------------------------------------------
_SPM_SIZES = ("at every n = 1..8 and L = 1..max(3, 2⌈log2 n⌉), at seeded random (n, L) in {large}, and at the sizes "
              "users run (n up to {user}, L up to 2⌈log2 n⌉), one random float layer per size")
#: why the SPM loops' checks are sampled (conventions: a sampled strength says why an exact check is infeasible)
_NO_EXACT = (" (an exact check of the builder itself is infeasible: it is a float loop over the pairs, not an entry "
             "rule a prover can take)")
#: the bound of each builder's check, as a claim's statement quotes it (engine.builder_note)
BUILDER_BOUNDS = {
    "spm_forward": ("spm_forward (and SPMKernel's forward) and layer_matrix checked against loop-built stages "
                    + _SPM_SIZES.format(large=list(LARGE), user=USER_N) + " (rtol 1e-12), so sampled" + _NO_EXACT),
    "spm_backward": ("spm_backward (and SPMKernel's backward) checked against the chain rule written out with "
                     "loop-built stages " + _SPM_SIZES.format(large=list(LARGE), user=USER_N) + " (tolerance 1e-11), "
                     "so sampled" + _NO_EXACT),
    "stage_matrix": ("stage_matrix checked exactly, entry by entry against the stage written out (symbolic angles and "
                     "entries, every maximum matching, both odd modes), for every n = 1..6, and in float at random "
                     f"(n, L) in {list(LARGE)}"),
}


def _builder_note(*builders: str, strength: str = "sampled") -> str:
    """The sentence a claim's statement carries when checks of ``builders`` (keys of :data:`BUILDER_BOUNDS`) cap its
    headline: engine.builder_note with their bounds; ``strength`` is the cap (the weakest check's)."""
    return builder_note(*(BUILDER_BOUNDS[b] for b in builders), strength=strength)


_T, _D, _N = sympy.symbols("T d n", integer=True, positive=True)
_P, _Q = sympy.symbols("p q", integer=True, nonnegative=True)


#: the domains of the sizes T, d, n (every ``for_all`` of :func:`_entry_zero` states them >= 1) and of the generic
#: entry's indices p, q (engine.symbolic_zero refuses a proof over a symbol whose assumptions its for_all leaves out)
_ENTRY_DOMAIN = {"T": "integer >= 1", "d": "integer >= 1", "n": "integer >= 1", "p": "integer >= 0", "q": "integer >= 0"}


def _entry_zero(lhs: Any, rhs: Any, describe: str, for_all: str, sizes: Any = (),
                domain: Mapping[str, str] | None = None) -> Trial:
    """A matrix-expression identity lhs = rhs with symbolic dimensions, as its generic entry [p, q]
    (p, q symbolic indices): SymPy's matrix calculus reduces lhs[p, q] − rhs[p, q] to 0 when it holds for
    all sizes. The two entries are subtracted unevaluated, so the obligation recorded is the identity as
    stated (its sums run over the symbolic sizes named in ``sizes``), not a 0 SymPy found before the check.
    ``domain``: that of the caller's own symbols (a batch size B, a scale d_h), beside :data:`_ENTRY_DOMAIN`."""
    return symbolic_zero(sympy.Add(_canonical(lhs[_P, _Q]), -_canonical(rhs[_P, _Q]), evaluate=False), describe=describe,
                         for_all=for_all, sizes=sizes, domain={**_ENTRY_DOMAIN, **(domain or {})})


def _canonical(e: Any) -> Any:
    """``e`` with its summation dummies renamed j0, j1, ... in order of appearance (two entries that are the
    same sum then cancel; SymPy's fresh dummies would keep them apart)."""
    order = []
    for x in sympy.preorder_traversal(e):
        if isinstance(x, sympy.Dummy) and x not in order:
            order.append(x)
    return e.xreplace({d: sympy.Symbol(f"j{k}", integer=True) for k, d in enumerate(order)})


def _rotation_stage_orthogonal(c):
    """B^T B = I for a rotation stage with symbolic angles (odd n: residual passed through, or scaled by a
    free symbol s)."""
    n, odd = c
    m = n // 2
    t = np.array(sympy.symbols(f"t0:{m}"), dtype=object).reshape(1, m)
    kw = dict(odd_scale=[sympy.Symbol("s")]) if odd == "scale" else {}
    lay = spm_layer(n, butterfly_pairings(n, 1), t, odd=odd, **kw)
    B = sympy.Matrix(stage_matrix(lay, 0))
    return trig_zero(B.T * B - sympy.eye(n))


@device_cached
def _rotation_stage_gram_proof(block: Any = None) -> Trial:
    """Z3, for every n and every pairing: BᵀB = I for a rotation stage (§5, trigonometric variant).

    The stage is named as a definition (axiom ``rotation-stage``), written with isomat's own entry rule
    :func:`isomat.algebra.spm.rotation_block` (the function that builds every rotation stage, so the proof is
    about the builder's rule): pi is an involution of [0, n) (pi(k) = k for a coordinate passed through, whose
    diagonal entry is 1); for a pair k < pi(k) with angle (C_k, S_k), C_k² + S_k² = 1, the entries
    (B[k, k], B[k, pi(k)], B[pi(k), k], B[pi(k), pi(k)]) are ``rotation_block(C_k, S_k)``; row r holds
    dg_r on the diagonal and off_r at column pi(r) ≠ r. (BᵀB)[i, j] = Σ_k B[k, i] B[k, j] is a prefix sum
    G(i, j, n) (axioms ``gram-prefix-*``, the definition of the matrix product); the lemma
    ``gram-column-support`` -- only k = i and k = pi(i) contribute, as column i of B is zero elsewhere -- is
    proved by induction on the prefix length with n a parameter (n is free in the stage's definition, so the
    lemma is not closed over it), and the goal then follows for every n.

    ``block`` replaces the entry rule (the tests pass [[c, s], [s, c]], not orthogonal, to see that the same
    proof does not go through). The proof is made once per process (a functools cache, which the mutation suite
    clears): sec6.5 and sec8.4/stages share it."""
    rule = rotation_block if block is None else block
    n, i, j, k, N = prover.ints("n i j k N")
    pi = z3.Function("pi", z3.IntSort(), z3.IntSort())
    dg = z3.Function("dg", z3.IntSort(), z3.RealSort())
    off = z3.Function("off", z3.IntSort(), z3.RealSort())
    C = z3.Function("C", z3.IntSort(), z3.RealSort())
    S = z3.Function("S", z3.IntSort(), z3.RealSort())
    zero = z3.RealVal(0)

    def B(r, col):  # the stage's entry rule: dg on the diagonal, off at the partner's column
        return z3.If(col == r, dg(r), z3.If(z3.And(col == pi(r), pi(r) != r), off(r), zero))

    a_k, b_k, c_k, d_k = rule(C(k), S(k))
    G = z3.Function("G", z3.IntSort(), z3.IntSort(), z3.IntSort(), z3.RealSort())
    stage = prover.axiom("rotation-stage", z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < n), z3.And(
        0 <= pi(k), pi(k) < n, pi(pi(k)) == k,
        z3.Implies(pi(k) == k, z3.And(dg(k) == 1, off(k) == 0)),
        z3.Implies(k < pi(k), z3.And(C(k) * C(k) + S(k) * S(k) == 1, dg(k) == a_k, off(k) == b_k,
                                     off(pi(k)) == c_k, dg(pi(k)) == d_k)))), patterns=[pi(k)]),
        text="a rotation stage of size n: pi is an involution of [0, n) (pi(k) = k for a coordinate passed through, "
             "B[k, k] = 1); for a pair k < pi(k) with cos/sin (C_k, S_k), C_k² + S_k² = 1, its 2×2 block "
             "(B[k, k], B[k, pi(k)], B[pi(k), k], B[pi(k), pi(k)]) is isomat.algebra.spm.rotation_block(C_k, S_k) "
             f"= {tuple(str(v).replace('(k)', '') for v in rule(z3.Real('C'), z3.Real('S')))}; no other entries")
    g0 = prover.axiom("gram-prefix-0", z3.ForAll([i, j], G(i, j, 0) == 0, patterns=[G(i, j, 0)]), text="G(i, j, 0) = 0")
    g1 = prover.axiom(
        "gram-prefix-step",
        z3.ForAll([i, j, N], z3.Implies(N >= 0, G(i, j, N + 1) == G(i, j, N) + B(N, i) * B(N, j)), patterns=[G(i, j, N + 1)]),
        text="G(i, j, N+1) = G(i, j, N) + B[N, i]·B[N, j], i.e. G(i, j, N) = Σ_{k<N} B[k, i] B[k, j] and (BᵀB)[i, j] = "
             "G(i, j, n) (definition of the matrix product)")
    support = prover.induction(
        "gram-column-support", N,
        lambda N: z3.Implies(N <= n, G(i, j, N) == z3.If(i < N, B(i, i) * B(i, j), zero)
                             + z3.If(z3.And(pi(i) != i, pi(i) < N), B(pi(i), i) * B(pi(i), j), zero)),
        other=[i, j], assuming=[0 <= i, i < n, 0 <= j, j < n], axioms=[stage, g0, g1],
        text="for the stage's n (a parameter) and all 0 <= i, j < n, 0 <= N <= n: Σ_{k<N} B[k, i] B[k, j] has only "
             "the terms k = i and k = pi(i) (column i of a rotation stage is zero elsewhere)")
    return prover.prove(
        G(i, j, n) == z3.If(i == j, z3.RealVal(1), zero), assuming=[n >= 1, 0 <= i, i < n, 0 <= j, j < n],
        for_all="for all n >= 1, every pairing of [0, n) (any matching; unpaired coordinates passed through), every "
                "angle of every block, 0 <= i, j < n",
        lemmas=[support.at(n, i, j)], axioms=[stage], sizes=[n],
    ).trial("BᵀB = I for a rotation stage: (BᵀB)[i, i] = cos² + sin² = 1, (BᵀB)[i, pi(i)] = cos·(−sin) + sin·cos = 0, "
            "and 0 elsewhere")


def _orthogonal_product_proof() -> Trial:
    """SymPy, noncommutative symbols: if BᵀB = I and PᵀP = I then (BP)ᵀ(BP) = PᵀBᵀBP = I -- the induction step
    on L that carries stage orthogonality to B_L⋯B_1 (base L = 1: the stage itself)."""
    B_, Bt, P_, Pt = sympy.symbols("B Bt P Pt", commutative=False)
    lhs = sympy.expand(Pt * Bt * B_ * P_).subs(Bt * B_, 1)
    return symbolic_zero(sympy.expand(lhs).subs(Pt * P_, 1) - 1,
                         describe="step L − 1 → L: (B_L P)ᵀ(B_L P) = Pᵀ B_Lᵀ B_L P = PᵀP = I with P = B_{L−1}⋯B_1 "
                                  "((XY)ᵀ = YᵀXᵀ; BᵀB = I and PᵀP = I as rewrite rules)",
                         for_all="every L >= 1, every size, every B_L with B_LᵀB_L = I and P with PᵀP = I "
                                 "(noncommutative symbols)")


def _rotation_product_orthogonal(c):
    n, L = c
    t = np.array(sympy.symbols(f"t0:{L * (n // 2)}"), dtype=object).reshape(L, n // 2)
    lay = spm_layer(n, butterfly_pairings(n, L), t)
    M = sympy.Matrix(layer_matrix(lay, part="product"))
    return trig_zero(M.T * M - sympy.eye(n))


def _matchings(items):
    """All maximum matchings of ``items`` (one element left out when the count is odd)."""
    items = list(items)
    if len(items) < 2:
        yield ()
        return
    if len(items) % 2:
        for s in items:
            yield from _matchings([x for x in items if x != s])
        return
    a = items[0]
    for k in range(1, len(items)):
        rest = items[1:k] + items[k + 1:]
        for m in _matchings(rest):
            yield ((a, items[k]),) + m


def _full_dependence_nx(n, pairings):
    """Every output depends on every input: reachability in the layered graph (networkx)."""
    G = nx.DiGraph()
    for ell, P in enumerate(pairings):
        G.add_edges_from(((ell, i), (ell + 1, i)) for i in range(n))
        for i, j in P:
            G.add_edge((ell, int(i)), (ell + 1, int(j)))
            G.add_edge((ell, int(j)), (ell + 1, int(i)))
    L = len(pairings)
    if L == 0:
        return n == 1
    return all(sum(1 for v in nx.descendants(G, (0, i)) if v[0] == L) == n for i in range(n))


def _min_depth(n, *, schedule=False):
    """Fewest stages over all schedules after which every output depends on every input (BFS over
    dependence bitmasks; the first stage is fixed WLOG by relabelling). With ``schedule``, also one
    optimal schedule (list of matchings)."""
    d, done = _min_depth_search(n)
    if not schedule:
        return d
    return d, [np.array(m, dtype=np.int64).reshape(-1, 2) for m in done]


@functools.lru_cache(maxsize=None)
def _min_depth_search(n):
    """(fewest stages, one optimal schedule as a tuple of matchings) for :func:`_min_depth`: the search at n = 8
    visits about a million states (a second), and three claims ask for it (one search per process)."""
    full = (1 << n) - 1
    ms = sorted({tuple(sorted(m)) for m in _matchings(range(n))})
    state = tuple(1 << i for i in range(n))
    if all(v == full for v in state):
        return 0, ()

    def step(s, m):
        s2 = list(s)
        for a, b in m:
            s2[a] = s2[b] = s[a] | s[b]
        return tuple(s2)

    first = step(state, ms[0])
    level, d = {first: [ms[0]]}, 1
    while not any(all(v == full for v in s) for s in level):
        nxt = {}
        for s, path in level.items():
            for m in ms:
                nxt.setdefault(step(s, m), path + [m])
        level, d = nxt, d + 1
    return d, tuple(next(p for s, p in level.items() if all(v == full for v in s)))




__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
