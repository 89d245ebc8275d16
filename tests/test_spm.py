"""isomat.algebra.spm (farag2025) against independent references: stage matrices written with
loops, the dense product, torch.autograd, SymPy differentiation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra.spm import (
    SPMKernel,
    butterfly_pairings,
    layer_matrix,
    random_pairings,
    random_spm,
    spm_attention_backward,
    spm_attention_forward,
    spm_backward,
    spm_forward,
    spm_gru_backward,
    spm_gru_forward,
    spm_layer,
    spm_transpose_apply,
    stage_matrix,
    stage_operator,
)
from isomat.testing import assert_matches_dense, dottest
from isomat.testing.strategies import spm_layers

from .conftest import to_host


# ---------------------------------------------------------------------------------------------
# Independent references (no code shared with isomat.algebra.spm)
# ---------------------------------------------------------------------------------------------
def loop_stage(n, pairs, blocks, single=1.0):
    B = np.zeros((n, n))
    used = set()
    for (i, j), (a, b, c, d) in zip(np.asarray(pairs).tolist(), np.asarray(blocks, dtype=float).tolist()):
        B[i, i], B[i, j], B[j, i], B[j, j] = a, b, c, d
        used |= {i, j}
    for k in range(n):
        if k not in used:
            B[k, k] = single
    return B


def ref_blocks(layer, ell):
    p = np.asarray(layer.params, dtype=float)[ell]
    if layer.variant == "rotation":
        return np.stack([np.cos(p), -np.sin(p), np.sin(p), np.cos(p)], axis=-1)
    return p


def ref_matrix(layer):
    M = np.eye(layer.n)
    for ell in range(layer.L):
        s = float(layer.odd_scale[ell]) if (layer.odd == "scale" and layer.n % 2) else 1.0
        M = loop_stage(layer.n, layer.pairs[ell], ref_blocks(layer, ell), s) @ M
    return np.diag(np.asarray(layer.d_out, float)) @ M @ np.diag(np.asarray(layer.d_in, float))


layers = spm_layers(max_n=12, max_L=5)  # any n (odd, non-powers of two), both variants, schedules, odd modes


# ---------------------------------------------------------------------------------------------
# Matrices and matrix-free forward
# ---------------------------------------------------------------------------------------------
@given(layers, st.integers(1, 5))
def test_forward_equals_dense_reference(layer, batch):
    X = np.random.default_rng(batch).standard_normal((batch, layer.n))
    M = ref_matrix(layer)
    np.testing.assert_allclose(spm_forward(layer, X), X @ M.T + layer.bias, rtol=1e-12, atol=1e-12)
    assert_matches_dense(layer_matrix(layer), M, rtol=1e-12, atol=1e-12)


@given(layers)
def test_stage_matrices_equal_loops_and_nnz(layer):
    for ell in range(layer.L):
        s = float(layer.odd_scale[ell]) if (layer.odd == "scale" and layer.n % 2) else 1.0
        assert_matches_dense(stage_matrix(layer, ell), loop_stage(layer.n, layer.pairs[ell], ref_blocks(layer, ell), s))
        assert stage_operator(layer, ell).nnz == 4 * (layer.n // 2) + layer.n % 2


@given(layers)
def test_dottest_stages_product_and_matrix_free(layer):
    for ell in range(layer.L):
        dottest(stage_matrix(layer, ell), rng=ell)
    dottest(layer_matrix(layer, part="product"))
    dottest(layer_matrix(layer))
    lin = spm_layer(layer.n, list(layer.pairs), layer.params, variant=layer.variant, d_in=layer.d_in, d_out=layer.d_out,
                    odd=layer.odd, odd_scale=layer.odd_scale)  # bias 0: linear
    dottest(lin, matvec=lambda v: spm_forward(lin, v), rmatvec=lambda v: spm_transpose_apply(lin, v))


def test_fields_agree(field):
    if field == "cupy":
        pytest.importorskip("cupy")
    layer = random_spm(5, 3, variant="general", odd="scale", seed=3)
    ref = ref_matrix(layer)
    if field == "sympy":
        ex = spm_layer(5, list(layer.pairs), np.array([[[sympy.Rational(int(v * 1000), 1000) for v in blk] for blk in st_]
                                                        for st_ in layer.params], dtype=object), variant="general",
                       odd="scale", odd_scale=[sympy.Rational(int(v * 1000), 1000) for v in layer.odd_scale])
        M = layer_matrix(ex)
        assert isinstance(M, sympy.SparseMatrix)
        assert all(isinstance(v, sympy.Rational) for v in M.values())
        np.testing.assert_allclose(to_host(M).astype(float), ref_matrix(ex), rtol=1e-12)
        return
    lay = spm_layer(5, list(layer.pairs), layer.params, variant="general", d_in=layer.d_in, d_out=layer.d_out,
                    odd="scale", odd_scale=layer.odd_scale, backend=field)
    np.testing.assert_allclose(to_host(layer_matrix(lay)), ref, rtol=1e-12)


def test_exact_symbolic_angles_stage():
    t = sympy.symbols("t0:2")
    lay = spm_layer(4, butterfly_pairings(4, 1), [list(t)])
    B = stage_matrix(lay, 0)
    assert isinstance(B, sympy.SparseMatrix)
    c, s = sympy.cos, sympy.sin
    expect = sympy.Matrix([[c(t[0]), -s(t[0]), 0, 0], [s(t[0]), c(t[0]), 0, 0],
                           [0, 0, c(t[1]), -s(t[1])], [0, 0, s(t[1]), c(t[1])]])
    assert sympy.Matrix(B) == expect


def test_exact_rational_rotation_is_orthogonal():
    th = [[sympy.atan2(3, 4), sympy.atan2(-5, 12)], [sympy.atan2(8, -15), sympy.atan2(7, 24)]]
    lay = spm_layer(4, butterfly_pairings(4, 2), th)
    M = sympy.Matrix(layer_matrix(lay, part="product"))
    assert all(v.is_Rational for v in M)
    assert M.T * M == sympy.eye(4)


# ---------------------------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------------------------
def torch_grads(layer, X, G):
    torch = pytest.importorskip("torch")
    dt = torch.float64
    p = torch.tensor(np.asarray(layer.params, float), dtype=dt, requires_grad=True)
    di = torch.tensor(np.asarray(layer.d_in, float), dtype=dt, requires_grad=True)
    do = torch.tensor(np.asarray(layer.d_out, float), dtype=dt, requires_grad=True)
    b = torch.tensor(np.asarray(layer.bias, float), dtype=dt, requires_grad=True)
    sc = torch.tensor(np.asarray(layer.odd_scale, float) if layer.odd_scale is not None else np.ones(layer.L), dtype=dt,
                      requires_grad=True)
    x = torch.tensor(X, dtype=dt, requires_grad=True)
    z = x * di
    for ell in range(layer.L):
        i = torch.tensor(layer.pairs[ell, :, 0])
        j = torch.tensor(layer.pairs[ell, :, 1])
        if layer.variant == "rotation":
            a, bb, c, d = torch.cos(p[ell]), -torch.sin(p[ell]), torch.sin(p[ell]), torch.cos(p[ell])
        else:
            a, bb, c, d = p[ell, :, 0], p[ell, :, 1], p[ell, :, 2], p[ell, :, 3]
        x1, x2 = z[:, i], z[:, j]
        parts = torch.zeros_like(z)
        parts = parts.index_copy(1, i, a * x1 + bb * x2).index_copy(1, j, c * x1 + d * x2)
        if layer.n % 2:
            k = int(layer.single[ell])
            keep = z[:, k] * (sc[ell] if layer.odd == "scale" else 1.0)
            parts = parts.index_copy(1, torch.tensor([k]), keep[:, None])
        z = parts
    y = z * do + b
    (y * torch.tensor(G, dtype=dt)).sum().backward()
    out = {"x": x.grad.numpy(), "params": p.grad.numpy(), "d_in": di.grad.numpy(), "d_out": do.grad.numpy(),
           "bias": b.grad.numpy()}
    if layer.odd == "scale" and layer.n % 2:
        out["odd_scale"] = sc.grad.numpy()
    return out


@given(layers, st.integers(1, 4))
def test_backward_matches_torch_autograd(layer, batch):
    rng = np.random.default_rng(batch + layer.n)
    X, G = rng.standard_normal((batch, layer.n)), rng.standard_normal((batch, layer.n))
    got = spm_backward(layer, X, G)
    ref = torch_grads(layer, X, G)
    assert set(got) == set(ref)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-10, atol=1e-10, err_msg=k)


def test_backward_exact_equals_sympy_diff():
    n = 3
    t = sympy.symbols("t0:2")
    xs = sympy.symbols("x0:3")
    gs = sympy.symbols("g0:3")
    lay = spm_layer(n, [np.array([[0, 1]]), np.array([[1, 2]])], [[t[0]], [t[1]]], d_in=[2, sympy.Rational(1, 3), 1],
                    odd="scale", odd_scale=[sympy.Symbol("s0"), 3])
    y = spm_forward(lay, np.array([xs], dtype=object))[0]
    loss = sum(g * v for g, v in zip(gs, y))
    gr = spm_backward(lay, np.array([xs], dtype=object), np.array([gs], dtype=object))
    for k, v in enumerate(xs):
        assert sympy.simplify(sympy.diff(loss, v) - gr["x"][0][k]) == 0
    for k, v in enumerate(t):
        assert sympy.simplify(sympy.diff(loss, v) - gr["params"][k][0]) == 0
    assert sympy.simplify(sympy.diff(loss, sympy.Symbol("s0")) - gr["odd_scale"][0]) == 0


def _close32(got, ref, what):
    """float32 kernel vs float64 reference: |got - ref| <= 1e-4 * max(1, max|ref|) entrywise."""
    ref = np.asarray(ref, float)
    tol = 1e-4 * max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
    np.testing.assert_allclose(np.asarray(got, float), ref, rtol=0, atol=tol, err_msg=what)


def _kernel_vs_reference(layer, batch, seed, **kw):
    K = SPMKernel(layer, batch, np.float32, **kw)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((batch, layer.n)).astype(np.float32)
    G = rng.standard_normal((batch, layer.n)).astype(np.float32)
    _close32(K.forward(X), spm_forward(layer, X.astype(float)), "y")
    got, ref = K.backward(G), spm_backward(layer, X.astype(float), G.astype(float))
    assert set(got) == set(ref)
    for k in ref:
        assert np.shape(got[k]) == np.shape(ref[k]), k
        _close32(got[k], ref[k], k)
    return K


@given(layers, st.integers(1, 9), st.integers(0, 10**6))
def test_kernel_matches_reference_float32(layer, batch, seed):
    """Any float layer (any n, incl. odd and non-powers of two, both variants and schedules)."""
    K = _kernel_vs_reference(layer, batch, seed)
    if layer.variant == "general" or layer.n < 2 or layer.n & (layer.n - 1):
        assert K.path == "gather"


@given(st.integers(1, 9), st.integers(1, 20), st.integers(1, 40), st.integers(0, 10**6),
       st.sampled_from([None, 1, 2, 3, 8]), st.sampled_from([None, 1, 2, 3]), st.booleans(),
       st.sampled_from([None, True, False]))
def test_fused_kernel_butterfly_matches_reference(bits, L, batch, seed, chunk, threads, diagonals, keep):
    """Fused path: rotation, n = 2^bits, butterfly schedule with L below, at and above log2 n
    (stages wrap around), ragged chunks, 1-3 threads, stage outputs kept or recomputed."""
    n = 2**bits
    layer = random_spm(n, L, schedule="butterfly", seed=seed, diagonals=diagonals)
    K = _kernel_vs_reference(layer, batch, seed, chunk=chunk, threads=threads, keep=keep)
    assert K.path == "fused"


@given(st.integers(1, 8), st.integers(1, 12), st.integers(0, 10**6), st.booleans())
def test_kernel_dottest_linear_part(bits, L, seed, fused):
    """<K x, y> = <x, K^T y> for the linear part (bias 0): forward vs the input gradient."""
    n = 2**bits + (0 if fused else 1)
    ref = random_spm(n, L, schedule="butterfly", seed=seed)
    lin = spm_layer(n, list(ref.pairs), ref.params, d_in=ref.d_in, d_out=ref.d_out)
    K = SPMKernel(lin, 1, np.float32, keep=bool(seed % 2))
    assert K.path == ("fused" if fused else "gather")
    # float32: compare against |Kx| |y| (Cauchy-Schwarz scale), not against <Kx, y>, which can cancel
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    Kx = K.forward(x[None])[0].astype(float)
    KTy = K.backward(y[None])["x"][0].astype(float)
    lhs, rhs = float(Kx @ y.astype(float)), float(x.astype(float) @ KTy)
    assert abs(lhs - rhs) <= 1e-5 * np.linalg.norm(Kx) * np.linalg.norm(y), (lhs, rhs)
    dottest(lin, rng=seed, rtol=1e-9, matvec=lambda v: spm_forward(lin, v), rmatvec=lambda v: spm_transpose_apply(lin, v))


@pytest.mark.parametrize("keep", [True, False])
def test_fused_kernel_float64(keep):
    """float64 takes the plain strided shuffles (the 64-bit word casts are float32 only)."""
    layer = random_spm(64, 9, schedule="butterfly", seed=3)
    K = SPMKernel(layer, 7, np.float64, chunk=3, threads=2, keep=keep)
    assert K.path == "fused" and not K.words
    rng = np.random.default_rng(0)
    X, G = rng.standard_normal((7, 64)), rng.standard_normal((7, 64))
    np.testing.assert_allclose(K.forward(X), spm_forward(layer, X), rtol=1e-10, atol=1e-10)
    got, ref = K.backward(G), spm_backward(layer, X, G)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-10, atol=1e-10, err_msg=k)


def test_kernel_paths_and_bad_arguments():
    assert SPMKernel(random_spm(16, 4), 3).path == "fused"
    assert SPMKernel(random_spm(16, 4, variant="general"), 3).path == "gather"
    assert SPMKernel(random_spm(12, 4), 3).path == "gather"
    with pytest.raises(TypeError, match="dtype must be float32 or float64"):
        SPMKernel(random_spm(4, 2), 3, np.int32)
    with pytest.raises(ValueError, match="chunk"):
        SPMKernel(random_spm(4, 2), 3, chunk=0)
    with pytest.raises(ValueError, match="backward needs a forward call first"):
        SPMKernel(random_spm(4, 2), 3).backward(np.ones((3, 4)))


# ---------------------------------------------------------------------------------------------
# GRU and attention against torch.autograd
# ---------------------------------------------------------------------------------------------
def dense_t(layer, torch):
    return torch.tensor(ref_matrix(layer), dtype=torch.float64), torch.tensor(np.asarray(layer.bias, float), dtype=torch.float64)


@given(st.integers(1, 7), st.integers(0, 1000))
def test_gru_backward_matches_torch(n, seed):
    torch = pytest.importorskip("torch")
    maps = {k: random_spm(n, 2, variant="general", schedule="random", seed=seed + i, odd="scale")
            for i, k in enumerate(("Wz", "Uz", "Wr", "Ur", "Wh", "Uh"))}
    rng = np.random.default_rng(seed)
    x, h, gh = (rng.standard_normal((2, n)) for _ in range(3))
    hn, cache = spm_gru_forward(maps, x, h)
    got = spm_gru_backward(maps, cache, gh)
    W = {k: dense_t(v, torch) for k, v in maps.items()}
    xt = torch.tensor(x, requires_grad=True)
    ht = torch.tensor(h, requires_grad=True)
    lin = lambda k, v: v @ W[k][0].T + W[k][1]  # noqa: E731
    z = torch.sigmoid(lin("Wz", xt) + lin("Uz", ht))
    r = torch.sigmoid(lin("Wr", xt) + lin("Ur", ht))
    htl = torch.tanh(lin("Wh", xt) + lin("Uh", r * ht))
    out = (1 - z) * ht + z * htl
    np.testing.assert_allclose(hn, out.detach().numpy(), rtol=1e-12, atol=1e-12)
    (out * torch.tensor(gh)).sum().backward()
    np.testing.assert_allclose(got["x"], xt.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got["h"], ht.grad.numpy(), rtol=1e-10, atol=1e-10)


@given(st.integers(1, 5), st.integers(1, 6), st.integers(0, 1000))
def test_attention_backward_matches_torch(T, d, seed):
    torch = pytest.importorskip("torch")
    maps = {k: random_spm(d, 2, variant="rotation", schedule="random", seed=seed + i) for i, k in enumerate("QKVO")}
    rng = np.random.default_rng(seed)
    X, GY = rng.standard_normal((T, d)), rng.standard_normal((T, d))
    Y, cache = spm_attention_forward(maps, X, d_h=max(1, d // 2))
    got = spm_attention_backward(maps, cache, GY)
    W = {k: dense_t(v, torch) for k, v in maps.items()}
    Xt = torch.tensor(X, requires_grad=True)
    Q, K, V = (Xt @ W[k][0].T + W[k][1] for k in "QKV")
    A = torch.softmax(Q @ K.T / math.sqrt(max(1, d // 2)), dim=-1)
    Yt = (A @ V) @ W["O"][0].T + W["O"][1]
    np.testing.assert_allclose(Y, Yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    (Yt * torch.tensor(GY)).sum().backward()
    np.testing.assert_allclose(got["X"], Xt.grad.numpy(), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# Schedules
# ---------------------------------------------------------------------------------------------
@given(st.integers(1, 70), st.integers(1, 8))
def test_schedules_are_maximum_matchings(n, L):
    for sched in (butterfly_pairings(n, L), random_pairings(n, L, seed=n)):
        assert len(sched) == L
        for P in sched:
            assert P.shape == (n // 2, 2)
            assert len(set(P.reshape(-1).tolist())) == 2 * (n // 2)
            assert P.min(initial=0) >= 0 and P.max(initial=0) < n


def test_butterfly_power_of_two_is_xor_and_random_is_seeded():
    P = butterfly_pairings(8)
    assert [p.tolist() for p in P] == [[[0, 1], [2, 3], [4, 5], [6, 7]], [[0, 2], [1, 3], [4, 6], [5, 7]],
                                       [[0, 4], [1, 5], [2, 6], [3, 7]]]
    a, b = random_pairings(9, 3, seed=5), random_pairings(9, 3, seed=5)
    assert all((x == y).all() for x, y in zip(a, b))


def test_parameter_counts():
    assert random_spm(8, 3).n_params() == 3 * 4 + 3 * 8
    assert random_spm(9, 3, variant="general", odd="scale").n_params() == 4 * 3 * 4 + 3 * 9 + 3


# ---------------------------------------------------------------------------------------------
# Bad input and the memory bound
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(n=0, pairings="butterfly", params=np.zeros((1, 0))), ValueError, "n must be a positive integer, got 0"),
        (dict(n=2.5, pairings="butterfly", params=np.zeros((1, 1))), TypeError, "n must be an integer, got 2.5"),
        (dict(n=4, pairings="butterfly", params=np.zeros((2, 3))), ValueError, "params must have shape (L, 2)"),
        (dict(n=4, pairings="butterfly", params=np.zeros((2, 2)), variant="unitary"), ValueError, "variant must be one of"),
        (dict(n=4, pairings="zigzag", params=np.zeros((2, 2))), ValueError, "pairings must be one of"),
        (dict(n=4, pairings=[np.array([[0, 1], [1, 2]])], params=np.zeros((1, 2))), ValueError, "at most once"),
        (dict(n=4, pairings=[np.array([[0, 1], [2, 4]])], params=np.zeros((1, 2))), ValueError, "indices in [0, 3]"),
        (dict(n=4, pairings=[np.array([[0, 1]])], params=np.zeros((1, 2))), ValueError, "pairings[0] must have shape (2, 2)"),
        (dict(n=4, pairings=[np.array([[0.0, 1.0], [2.0, 3.0]])], params=np.zeros((1, 2))), TypeError, "integer array"),
        (dict(n=4, pairings=[np.array([[0, 1], [2, 3]])] * 2, params=np.zeros((1, 2))), ValueError, "L = 1 pairings"),
        (dict(n=4, pairings="butterfly", params=np.zeros((1, 2)), d_in=np.ones(3)), ValueError, "d_in must have shape (4,), got (3,)"),
        (dict(n=4, pairings="butterfly", params=np.zeros((1, 2)), odd="drop"), ValueError, "odd must be one of"),
        (dict(n=4, pairings="butterfly", params=np.zeros((1, 2)), odd_scale=[1.0]), ValueError, "odd_scale is only used"),
        (dict(n=4, pairings="butterfly", params=np.zeros((1, 2)), backend="torch"), ValueError, "backend must be one of"),
    ],
)
def test_bad_arguments(kwargs, exc, words):
    with pytest.raises(exc) as info:
        spm_layer(**kwargs)
    assert words in str(info.value)


def test_bad_batches_and_indices():
    lay = random_spm(4, 2)
    with pytest.raises(ValueError, match=r"X must have shape \(\.\.\., 4\)"):
        spm_forward(lay, np.ones((2, 5)))
    with pytest.raises(TypeError, match="X must be numeric"):
        spm_forward(lay, np.array([["a"] * 4]))
    with pytest.raises(ValueError, match=r"G must have the shape of X"):
        spm_backward(lay, np.ones((2, 4)), np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"ell must be in \[0, 1\], got 2"):
        stage_matrix(lay, 2)
    with pytest.raises(ValueError, match="part must be one of"):
        layer_matrix(lay, part="stages")
    with pytest.raises(TypeError, match="layer must be a numpy-field SPM"):
        SPMKernel("not a layer", 4)
    with pytest.raises(ValueError, match=r"X must have shape \(4, 4\)"):
        SPMKernel(lay, 4).forward(np.ones((3, 4)))
    with pytest.raises(ValueError, match="maps must be a dict with keys"):
        spm_gru_forward({"Wz": lay}, np.ones((1, 4)), np.ones((1, 4)))
    with pytest.raises(ValueError, match="same n"):
        spm_attention_forward({"Q": lay, "K": lay, "V": lay, "O": random_spm(5, 1)}, np.ones((2, 4)))


def test_memory_bound_refuses_before_allocating():
    lay = random_spm(1024, 10)
    with isomat.memory_limit(10**5):
        with pytest.raises(isomat.SizeLimitError, match="spm product"):
            layer_matrix(lay)
        with pytest.raises(isomat.SizeLimitError, match="spm forward activations"):
            spm_forward(lay, np.ones((64, 1024)), return_cache=True)


def test_forward_backward_in_float_fields(float_field):
    from isomat.algebra import _backend

    ref = random_spm(7, 3, variant="rotation", odd="scale", schedule="random", seed=4)
    lay = spm_layer(7, list(ref.pairs), ref.params, d_in=ref.d_in, d_out=ref.d_out, bias=ref.bias, odd="scale",
                    odd_scale=ref.odd_scale, backend=float_field)
    xp = _backend.array_module(lay.field)
    rng = np.random.default_rng(0)
    X, G = rng.standard_normal((3, 7)), rng.standard_normal((3, 7))
    np.testing.assert_allclose(_backend.to_numpy(spm_forward(lay, xp.asarray(X))), spm_forward(ref, X), rtol=1e-12)
    got = spm_backward(lay, xp.asarray(X), xp.asarray(G))
    want = spm_backward(ref, X, G)
    for k in want:
        np.testing.assert_allclose(_backend.to_numpy(got[k]), want[k], rtol=1e-12, atol=1e-12, err_msg=k)


# ---------------------------------------------------------------------------------------------
# The butterfly entry rule (proved a fixed-point-free involution in isomat.proofs.farag2025)
# ---------------------------------------------------------------------------------------------
@given(st.integers(0, 5), st.integers(1, 6), st.data())
def test_butterfly_pairings_follow_the_scalar_entry_rule(level, Q, data):
    from isomat.algebra.spm import butterfly_partner

    P = 2 ** level
    n = 2 * P * Q  # every partner i XOR P lies in [0, n)
    m = max(1, math.ceil(math.log2(n)))
    assert level < m
    L = data.draw(st.integers(level + 1, m + 1))
    stage = butterfly_pairings(n, L)[level]
    i = np.arange(n)
    partner = butterfly_partner(i, P)  # vectorized: the same function on an array
    assert np.array_equal(partner, i ^ P)
    expect = sorted((int(a), int(b)) for a, b in zip(i, partner) if a < b)
    assert sorted(map(tuple, stage.tolist())) == expect
    # the scalar rule on Python ints agrees entry by entry
    assert [butterfly_partner(int(k), P) for k in range(n)] == [int(v) for v in partner]


def test_rotation_block_is_the_rule_that_builds_every_rotation_stage(monkeypatch):
    # issue 22: one source of truth -- SPM.blocks() builds rotation stages from rotation_block, the function
    # farag2025's orthogonality proof defines the stage with; replacing it changes the builder
    import sympy

    from isomat.algebra import spm as S

    t = sympy.Symbol("t")
    assert S.rotation_block(sympy.cos(t), sympy.sin(t)) == (sympy.cos(t), -sympy.sin(t), sympy.sin(t), sympy.cos(t))
    lay = S.spm_layer(2, [np.array([[0, 1]])], [[t]])
    assert sympy.Matrix(S.stage_matrix(lay, 0)) == sympy.Matrix([[sympy.cos(t), -sympy.sin(t)], [sympy.sin(t), sympy.cos(t)]])
    monkeypatch.setattr(S, "rotation_block", lambda c, s: (c, s, s, c))
    assert sympy.Matrix(S.stage_matrix(lay, 0)) == sympy.Matrix([[sympy.cos(t), sympy.sin(t)], [sympy.sin(t), sympy.cos(t)]])


@pytest.mark.parametrize("n", [1, 2, 3, 8, 9, 100, 101])
@pytest.mark.parametrize("L", [1, 3])
def test_param_count_is_n_params_and_the_written_out_count(n, L):
    from isomat.algebra.spm import param_count

    for variant, p in (("rotation", 1), ("general", 4)):
        for odd in ("pass", "scale"):
            lay = random_spm(n, L, variant=variant, odd=odd, schedule="random", seed=n)
            want = p * L * (n // 2) + 3 * n + (L if odd == "scale" and n % 2 else 0)
            assert lay.n_params() == param_count(n, L, p, int(odd == "scale")) == want


def test_butterfly_pairings_are_driven_by_butterfly_partner(monkeypatch):
    # the builder calls the entry rule: breaking the rule breaks the builder
    from isomat.algebra import spm as S

    good = [p.tolist() for p in S.butterfly_pairings(8, 3)]
    orig = S.butterfly_partner
    monkeypatch.setattr(S, "butterfly_partner", lambda i, P: orig(i, 2 * P))
    assert [p.tolist() for p in S.butterfly_pairings(8, 3)] != good
