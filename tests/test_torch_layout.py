"""isomat.torch._layout: structural torch ops as exact sparse matrices, against torch itself.

torch's functional ops on random float64 samples (batched as ``x[None]``) are the reference;
the sympy field is checked against the numpy one and, where the value is known, exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
import sympy  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from isomat.torch._layout import (  # noqa: E402
    adaptive_avgpool_matrix,
    adaptive_maxpool_selection,
    batchnorm_matrix,
    concat_matrices,
    index_matrix,
    interpolate_matrix,
    pad_matrix,
    permute_matrix,
    pixel_shuffle_matrix,
    pixel_unshuffle_matrix,
    reduce_matrix,
)

SETTINGS = settings(max_examples=30, deadline=None)


def _ref(fn, x):
    """torch's op on the batched sample, unbatched, as a float64 NumPy array."""
    with torch.no_grad():
        return fn(torch.from_numpy(np.ascontiguousarray(x))[None])[0].numpy()


def _check(W, out_shape, ref, x, b=None):
    assert tuple(out_shape) == tuple(ref.shape)
    assert W.shape == (ref.size, x.size)
    assert W.format == "csr" and W.dtype == np.float64 and W.has_canonical_format
    assert not np.any(W.data == 0)
    y = W @ x.reshape(-1) + (0.0 if b is None else b)
    np.testing.assert_allclose(y, ref.reshape(-1), rtol=0, atol=1e-12)


def _dense(M):
    return np.array(M.tolist(), dtype=float)


def _same_fields(build, *args, **kw):
    """The sympy matrix equals the numpy one to float rounding (and has the same shapes)."""
    num = build(*args, backend="numpy", **kw)
    sym = build(*args, backend="sympy", **kw)
    assert num[-1] == sym[-1]
    Wn, Ws = num[0], sym[0]
    assert isinstance(Ws, sympy.SparseMatrix)
    np.testing.assert_allclose(_dense(Ws), Wn.toarray(), rtol=0, atol=1e-15)
    if len(num) == 3:
        assert isinstance(sym[1], sympy.MatrixBase) and sym[1].shape == (Wn.shape[0], 1)
        np.testing.assert_allclose(_dense(sym[1]).reshape(-1), num[1], rtol=0, atol=1e-14)
    return sym


def _rng(seed):
    return np.random.default_rng(seed)


# -- adaptive pooling ----------------------------------------------------------------------------

@st.composite
def adaptive_cases(draw):
    d = draw(st.integers(1, 3))
    C = draw(st.integers(1, 3))
    spatial = tuple(draw(st.integers(1, 6)) for _ in range(d))
    # torch's 1-D functional refuses None; 2-D and 3-D keep that axis
    out = tuple(draw(st.one_of(st.integers(1, 7), st.none()) if d > 1 else st.integers(1, 7)) for _ in range(d))
    if draw(st.booleans()) and all(o is not None for o in out) and len(set(out)) == 1:
        out = out[0]  # an int output_size
    return (C,) + spatial, out, draw(st.integers(0, 2**16))


ADAPTIVE_AVG = {1: torch.nn.AdaptiveAvgPool1d, 2: torch.nn.AdaptiveAvgPool2d, 3: torch.nn.AdaptiveAvgPool3d}
ADAPTIVE_MAX = {1: torch.nn.AdaptiveMaxPool1d, 2: torch.nn.AdaptiveMaxPool2d, 3: torch.nn.AdaptiveMaxPool3d}


@SETTINGS
@given(adaptive_cases())
def test_adaptive_avgpool_matches_torch(case):
    shape, out, seed = case
    x = _rng(seed).standard_normal(shape)
    W, out_shape = adaptive_avgpool_matrix(shape, out)
    _check(W, out_shape, _ref(ADAPTIVE_AVG[len(shape) - 1](out), x), x)


def test_adaptive_avgpool_exact_thirds():
    W, out = adaptive_avgpool_matrix((1, 3), 1, backend="sympy")
    assert out == (1, 1) and W == sympy.SparseMatrix([[sympy.Rational(1, 3)] * 3])
    # 5 -> 3: windows [0,2), [1,4), [3,5): weights 1/2, 1/3, 1/2; 2-D entries multiply exactly
    W, _ = adaptive_avgpool_matrix((1, 5, 5), (3, 3), backend="sympy")
    assert W[4, 6] == sympy.Rational(1, 9) and W[0, 0] == sympy.Rational(1, 4) and W[1, 1] == sympy.Rational(1, 6)


@pytest.mark.parametrize("shape,out", [((2, 5), 3), ((2, 4, 5), (3, None)), ((1, 3, 2, 4), (2, 1, 3)), ((3, 2, 3), 4)])
def test_adaptive_avgpool_fields_agree(shape, out):
    _same_fields(adaptive_avgpool_matrix, shape, out)


@SETTINGS
@given(adaptive_cases(), st.booleans())
def test_adaptive_maxpool_selection_matches_torch(case, specials):
    shape, out, seed = case
    rng = _rng(seed)
    x = rng.integers(-2, 3, size=shape).astype(np.float64)  # many ties: torch takes the first
    if specials:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.2] = np.nan           # ... and the last NaN
        flat[rng.random(flat.size) < 0.2] = -np.inf
    S, out_shape = adaptive_maxpool_selection(x, out)
    with torch.no_grad():
        vals, idx = ADAPTIVE_MAX[len(shape) - 1](out, return_indices=True)(torch.from_numpy(x)[None])
    assert out_shape == tuple(vals.shape[1:])
    assert S.has_canonical_format and np.all(S.data == 1) and np.all(np.diff(S.indptr) == 1)
    inner = math.prod(shape[1:])
    chosen = S.indices.reshape(shape[0], -1) - (np.arange(shape[0]) * inner)[:, None]
    np.testing.assert_array_equal(chosen.reshape(-1), idx[0].numpy().reshape(-1))
    np.testing.assert_array_equal(S @ x.reshape(-1), vals[0].numpy().reshape(-1))


def test_adaptive_maxpool_nan_and_ties():
    S, _ = adaptive_maxpool_selection(np.array([[1.0, np.nan, 3.0, np.nan, 2.0]]), 1)
    assert S.indices.tolist() == [3]  # the last NaN, as torch
    S, _ = adaptive_maxpool_selection(np.array([[2.0, 5.0, 5.0, 1.0]]), 1)
    assert S.indices.tolist() == [1]  # the first maximum
    S, _ = adaptive_maxpool_selection(torch.tensor([[-np.inf, -np.inf]]), (1,))
    assert S.indices.tolist() == [0]


# -- interpolate ---------------------------------------------------------------------------------

MODES_FOR = {1: ["nearest", "nearest-exact", "linear"], 2: ["nearest", "nearest-exact", "bilinear"],
             3: ["nearest", "nearest-exact", "trilinear"]}
SCALES = [0.5, 0.7, 1.1, 1.5, 1.7, 2.0, 2.1, 2.5, 3.0, 1 / 3]


@st.composite
def interp_cases(draw):
    d = draw(st.integers(1, 3))
    C = draw(st.integers(1, 3))
    spatial = tuple(draw(st.integers(1, 6 if d < 3 else 4)) for _ in range(d))
    mode = draw(st.sampled_from(MODES_FOR[d]))
    kw: dict = {"mode": mode}
    if mode not in ("nearest", "nearest-exact"):
        kw["align_corners"] = draw(st.sampled_from([None, False, True]))
    if draw(st.booleans()):
        kw["size"] = tuple(draw(st.integers(1, 8 if d < 3 else 5)) for _ in range(d))
        if draw(st.booleans()) and len(set(kw["size"])) == 1:
            kw["size"] = kw["size"][0]
    else:
        scale = st.one_of(st.sampled_from(SCALES), st.floats(0.3, 2.6, allow_nan=False))
        sf = tuple(draw(scale) for _ in range(d))
        assume(all(math.floor(n * s) >= 1 for n, s in zip(spatial, sf)))
        kw["scale_factor"] = sf if len(set(sf)) > 1 or draw(st.booleans()) else sf[0]
        kw["recompute_scale_factor"] = draw(st.sampled_from([None, False, True]))
    return (C,) + spatial, kw, draw(st.integers(0, 2**16))


@SETTINGS
@given(interp_cases())
def test_interpolate_matches_torch(case):
    shape, kw, seed = case
    x = _rng(seed).standard_normal(shape)
    W, out = interpolate_matrix(shape, **kw)
    _check(W, out, _ref(lambda t: F.interpolate(t, **kw), x), x)


@pytest.mark.parametrize("shape,kw", [
    # torch's floorf: the float64 coordinate 2.99999988... is floored in float32 (to 3)
    ((1, 10), dict(scale_factor=3.0000001, mode="linear")),
    ((2, 10), dict(scale_factor=3.0000001, mode="linear", align_corners=False)),
    # linear modes copy when out == in, whatever the scale
    ((2, 5, 4), dict(scale_factor=1.1, mode="bilinear")),
    ((2, 5), dict(scale_factor=1.1, mode="linear")),
    # 2-D nearest: out == in copies, out == 2 in halves (1-D and 3-D do not)
    ((2, 5, 5), dict(scale_factor=(2.1, 1.1), mode="nearest")),
    ((1, 5, 5), dict(scale_factor=(2.1, 1.1), mode="nearest")),
    ((2, 5), dict(scale_factor=2.1, mode="nearest")),
    ((1, 5, 5, 5), dict(scale_factor=(1.1, 2.1, 1.1), mode="nearest")),
    # float32 scales where an exact coordinate lands on an integer
    ((1, 14), dict(size=46, mode="nearest")),
    ((2, 14, 1), dict(size=(46, 1), mode="nearest")),
    ((1, 14, 1, 1), dict(size=(46, 1, 1), mode="nearest")),
    ((1, 2), dict(size=41, mode="nearest-exact")),
    ((1, 2, 1), dict(size=(41, 1), mode="nearest-exact")),
    ((1, 26), dict(size=22, mode="nearest")),
    ((1, 26, 1), dict(size=(22, 1), mode="nearest")),
    ((3, 4, 3, 2), dict(size=(7, 5, 3), mode="trilinear", align_corners=True)),
    ((3, 4, 3, 2), dict(scale_factor=(1.7, 0.6, 2.5), mode="trilinear")),
    ((1, 7), dict(scale_factor=0.3, mode="linear", recompute_scale_factor=True)),
])
def test_interpolate_torch_corner_cases(shape, kw):
    x = _rng(0).standard_normal(shape)
    W, out = interpolate_matrix(shape, **kw)
    _check(W, out, _ref(lambda t: F.interpolate(t, **kw), x), x)


@pytest.mark.parametrize("shape,kw", [
    ((2, 3), dict(size=5, mode="linear", align_corners=True)),
    ((1, 4), dict(scale_factor=1.7, mode="linear")),
    ((2, 3, 4), dict(size=(5, 3), mode="bilinear")),
    ((1, 3, 3), dict(scale_factor=(1.5, 2.5), mode="bilinear", align_corners=False)),
    ((1, 2, 3, 2), dict(size=(3, 4, 3), mode="trilinear", align_corners=True)),
    ((2, 3, 4), dict(scale_factor=1.7, mode="nearest")),
    ((2, 5), dict(size=3, mode="nearest-exact")),
])
def test_interpolate_fields_agree(shape, kw):
    _same_fields(interpolate_matrix, shape, **kw)


def test_interpolate_exact_weights():
    # align_corners 3 -> 5: coordinates 0, 1/2, 1, 3/2, 2
    W, _ = interpolate_matrix((1, 3), size=5, mode="linear", align_corners=True, backend="sympy")
    half = sympy.Rational(1, 2)
    assert W == sympy.SparseMatrix([[1, 0, 0], [half, half, 0], [0, 1, 0], [0, half, half], [0, 0, 1]])
    # bilinear align_corners 2x2 -> 3x4: products of (1/2, 1/2) and (2/3, 1/3)
    W, out = interpolate_matrix((1, 2, 2), size=(3, 4), mode="bilinear", align_corners=True, backend="sympy")
    assert out == (1, 3, 4)
    assert W[5, :] == sympy.Matrix([[sympy.Rational(1, 3), sympy.Rational(1, 6), sympy.Rational(1, 3), sympy.Rational(1, 6)]])
    # scale_factor taken exactly: 1/1.7 is the Rational of the float 1.7, inverted
    W, _ = interpolate_matrix((1, 4), scale_factor=1.7, mode="linear", backend="sympy")
    r = 1 / sympy.Rational(1.7)
    src = r * sympy.Rational(3, 2) - sympy.Rational(1, 2)  # output 1
    assert W[1, 0] == 1 - src and W[1, 1] == src


# -- pad -----------------------------------------------------------------------------------------

@st.composite
def pad_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    k = draw(st.integers(1, min(rank, 3)))
    pad = tuple(draw(st.integers(-2, 4)) for _ in range(2 * k))
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    value = draw(st.sampled_from([0.0, 1.5, -2.25])) if mode == "constant" else 0.0
    return shape, pad, mode, value, draw(st.integers(0, 2**16))


@SETTINGS
@given(pad_cases())
def test_pad_matches_torch(case):
    shape, pad, mode, value, seed = case
    x = _rng(seed).standard_normal(shape)
    if mode == "circular":
        # torch reads uninitialised memory when the crop leaves less than the left pad to wrap around
        k = len(pad) // 2
        assume(all(shape[-1 - j] + min(pad[2 * j], 0) + min(pad[2 * j + 1], 0) >= max(pad[2 * j], 1)
                   for j in range(k)))
    try:
        ref = _ref(lambda t: F.pad(t, pad, mode=mode, value=value if mode == "constant" else None), x)
    except (RuntimeError, ValueError, NotImplementedError):
        assume(False)  # torch refuses this rank / size: nothing to compare with
    assume(ref.size > 0)
    W, b, out = pad_matrix(shape, pad, mode, value)
    _check(W, out, ref, x, b)
    if value == 0:
        assert not np.any(b)


def test_pad_circular_crops_then_wraps():
    x = np.arange(6.0).reshape(2, 3)
    for pad, want in [((-1, 3), [1, 2, 1, 2, 1]), ((-2, 3), [2, 2, 2, 2]), ((2, -1), [0, 1, 0, 1])]:
        W, b, out = pad_matrix(x.shape, pad, "circular")
        assert (W @ x.reshape(-1)).reshape(out)[0].tolist() == want
        assert _ref(lambda t: F.pad(t, pad, mode="circular"), x)[0].tolist() == want


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_fields_agree(mode):
    W, b, out = _same_fields(pad_matrix, (2, 3, 4), (2, -1, 1, 2), mode, 0.1 if mode == "constant" else 0.0)
    if mode == "constant":
        assert sympy.Rational(0.1) in set(b)  # the float 0.1, exactly


# -- permutations, concatenation, indexing, reductions -------------------------------------------

@SETTINGS
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**16))
def test_pixel_shuffle_and_unshuffle(c, r, h, w, seed):
    rng = _rng(seed)
    x = rng.standard_normal((c * r * r, h, w))
    W, out = pixel_shuffle_matrix(x.shape, r)
    _check(W, out, _ref(lambda t: F.pixel_shuffle(t, r), x), x)
    z = rng.standard_normal((c, h * r, w * r))
    U, out_u = pixel_unshuffle_matrix(z.shape, r)
    _check(U, out_u, _ref(lambda t: F.pixel_unshuffle(t, r), z), z)
    # inverse permutations
    V, _ = pixel_unshuffle_matrix(out, r)
    assert (V @ W != sp_identity(x.size)).nnz == 0


def sp_identity(n):
    import scipy.sparse as sp

    return sp.eye_array(n, format="csr")


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_permute(shape, data):
    shape = tuple(shape)
    dims = data.draw(st.permutations(range(len(shape))))
    dims = tuple(d - len(shape) if data.draw(st.booleans()) else d for d in dims)
    x = _rng(len(shape)).standard_normal(shape)
    W, out = permute_matrix(shape, dims)
    ref = torch.from_numpy(x).permute(dims).contiguous().numpy()
    _check(W, out, ref, x)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.lists(st.integers(1, 3), min_size=1, max_size=3),
       st.data())
def test_concat(base, sizes, data):
    nd = len(base)
    dim = data.draw(st.integers(-nd, nd - 1))
    shapes = []
    for s in sizes:
        sh = list(base)
        sh[dim] = s
        shapes.append(tuple(sh))
    rng = _rng(len(sizes))
    xs = [rng.standard_normal(s) for s in shapes]
    Ws, out = concat_matrices(shapes, dim)
    ref = torch.cat([torch.from_numpy(x) for x in xs], dim).numpy()
    assert out == ref.shape
    y = sum(W @ x.reshape(-1) for W, x in zip(Ws, xs))
    np.testing.assert_array_equal(y, ref.reshape(-1))
    assert all(W.has_canonical_format and W.shape == (ref.size, x.size) for W, x in zip(Ws, xs))


INDICES = [
    0, -1, (slice(None), 1), (Ellipsis, -2), (None, 0, slice(1, None, 2)), (slice(-3, None), None, Ellipsis),
    (1, 2, 3), (slice(None, None, 3), Ellipsis, slice(-10, 10)), (Ellipsis, None), (slice(5, 1),),
    (0, Ellipsis, 0, slice(None, -1)),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_index_matches_torch(index):
    shape = (3, 4, 5)
    x = _rng(1).standard_normal(shape)
    W, out = index_matrix(shape, index)
    ref = torch.from_numpy(x)[index].contiguous().numpy()
    assert out == ref.shape
    np.testing.assert_array_equal(W @ x.reshape(-1), ref.reshape(-1))


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reduce(shape, data):
    shape = tuple(shape)
    nd = len(shape)
    dims = data.draw(st.one_of(st.none(), st.integers(-nd, nd - 1),
                               st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple)))
    keepdim, mean = data.draw(st.booleans()), data.draw(st.booleans())
    x = _rng(nd).standard_normal(shape)
    W, out = reduce_matrix(shape, dims, keepdim=keepdim, mean=mean)
    t = torch.from_numpy(x)
    if dims is None:
        ref = (t.mean() if mean else t.sum()) if not keepdim else (t.mean(tuple(range(nd)), keepdim=True) if mean
                                                                    else t.sum(tuple(range(nd)), keepdim=True))
    else:
        ref = t.mean(dims, keepdim=keepdim) if mean else t.sum(dims, keepdim=keepdim)
    _check(W, out, ref.numpy(), x)


def test_reduce_exact_and_fields():
    W, out = reduce_matrix((2, 3), 1, backend="sympy")
    assert out == (2,) and W[0, 0] == sympy.Rational(1, 3)
    _same_fields(reduce_matrix, (2, 3, 2), (0, 2), keepdim=True)


@pytest.mark.parametrize("build,args", [
    (pixel_shuffle_matrix, ((8, 2, 3), 2)),
    (pixel_unshuffle_matrix, ((2, 4, 6), 2)),
    (permute_matrix, ((2, 3, 4), (2, 0, 1))),
    (index_matrix, ((3, 4), (slice(1, None), None, -1))),
])
def test_permutation_fields_agree(build, args):
    _same_fields(build, *args)
    Ws, out = concat_matrices([(2, 3), (2, 1)], -1, backend="sympy")
    Wn, _ = concat_matrices([(2, 3), (2, 1)], -1)
    assert out == (2, 4) and all((_dense(s) == n.toarray()).all() for s, n in zip(Ws, Wn))


# -- batch norm ----------------------------------------------------------------------------------

BN = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm1d, 3: torch.nn.BatchNorm2d, 4: torch.nn.BatchNorm3d}


@SETTINGS
@given(st.integers(1, 3), st.lists(st.integers(1, 4), max_size=3), st.booleans(),
       st.sampled_from([1e-5, 1e-3, 0.5]), st.integers(0, 2**16))
def test_batchnorm_matches_torch(C, spatial, affine, eps, seed):
    shape = (C,) + tuple(spatial)
    rng = _rng(seed)
    bn = BN[len(shape)](C, eps=eps, affine=affine).double().eval()
    with torch.no_grad():
        bn.running_mean.copy_(torch.from_numpy(rng.standard_normal(C)))
        bn.running_var.copy_(torch.from_numpy(rng.uniform(0.1, 3.0, C)))
        if affine:
            bn.weight.copy_(torch.from_numpy(rng.standard_normal(C)))
            bn.bias.copy_(torch.from_numpy(rng.standard_normal(C)))
    x = rng.standard_normal(shape)
    W, b, out = batchnorm_matrix(shape, bn.running_mean.numpy(), bn.running_var.numpy(),
                                 bn.weight.detach() if affine else None, bn.bias.detach() if affine else None, eps)
    _check(W, out, _ref(bn, x), x, b)


def test_batchnorm_exact():
    W, b, out = batchnorm_matrix((2, 2), np.array([0.5, 1.0]), np.array([1.0, 3.75]), np.array([2.0, 0.0]),
                                 np.array([0.25, 1.0]), 0.25, backend="sympy")
    s = 2 / sympy.sqrt(sympy.Rational(5, 4))
    assert out == (2, 2) and W[0, 0] == s and W[1, 1] == s and W[2, 2] == 0 and W.nnz() == 2
    assert b[0] == sympy.Rational(1, 4) - s / 2 and b[3] == 1
    _same_fields(batchnorm_matrix, (3, 2), np.array([0.1, -0.2, 0.3]), np.array([0.7, 1.1, 2.0]),
                 np.array([1.5, -0.5, 0.25]), None, 1e-5)


# -- argument errors -----------------------------------------------------------------------------

ERRORS = [
    (lambda: adaptive_avgpool_matrix((2, 4), (2, 2)), ValueError, "input_shape"),
    (lambda: adaptive_avgpool_matrix((2, 4), 0), ValueError, "output_size"),
    (lambda: adaptive_avgpool_matrix((2, 4), "3"), TypeError, "output_size"),
    (lambda: adaptive_avgpool_matrix((2, 4, 4, 4, 4), 2), ValueError, "output_size"),
    (lambda: adaptive_avgpool_matrix((2, 4), 2, backend="cupy"), ValueError, "backend"),
    (lambda: adaptive_avgpool_matrix((2, -4), 2), ValueError, r"input_shape\[1\]"),
    (lambda: adaptive_maxpool_selection(np.ones((2, 3), dtype=complex), 1), TypeError, "x must be a real"),
    (lambda: interpolate_matrix((1, 4, 4), size=3, mode="bicubic"), ValueError, "bicubic"),
    (lambda: interpolate_matrix((1, 4, 4), size=3, mode="area"), ValueError, "area"),
    (lambda: interpolate_matrix((1, 4, 4), size=3, mode="bilinear", antialias=True), ValueError, "antialias"),
    (lambda: interpolate_matrix((1, 4), size=3, mode="bilinear"), ValueError, "bilinear"),
    (lambda: interpolate_matrix((1, 4), size=3, mode="nearest", align_corners=True), ValueError, "align_corners"),
    (lambda: interpolate_matrix((1, 4), size=3, scale_factor=2.0), ValueError, "exactly one"),
    (lambda: interpolate_matrix((1, 4)), ValueError, "exactly one"),
    (lambda: interpolate_matrix((1, 4), scale_factor=-1.0), ValueError, "scale_factor"),
    (lambda: interpolate_matrix((1, 4), scale_factor=0.1), ValueError, "scale_factor"),
    (lambda: interpolate_matrix((1, 4, 4), scale_factor=(1.0, 2.0, 3.0)), ValueError, "scale_factor"),
    (lambda: interpolate_matrix((1, 4), size=0), ValueError, "size"),
    (lambda: interpolate_matrix((1, 4), size=2.5), TypeError, "size"),
    (lambda: interpolate_matrix((1, 4), size=3, recompute_scale_factor=True), ValueError, "recompute_scale_factor"),
    (lambda: interpolate_matrix((1, 4), size=3, mode="linear", align_corners="yes"), TypeError, "align_corners"),
    (lambda: pad_matrix((2, 3), (1,)), ValueError, "pad"),
    (lambda: pad_matrix((2, 3), (1, 1, 1, 1, 1, 1)), ValueError, "pad"),
    (lambda: pad_matrix((2, 3), (3, 0), "reflect"), ValueError, "reflect"),
    (lambda: pad_matrix((2, 3), (0, 4), "circular"), ValueError, "circular"),
    (lambda: pad_matrix((2, 3), (1, 1), "wrap"), ValueError, "mode"),
    (lambda: pad_matrix((2, 3), (1, 1), "reflect", 2.0), ValueError, "value"),
    (lambda: pad_matrix((2, 3), (-2, -1)), ValueError, "pad"),
    (lambda: pad_matrix((2, 3), (1.5, 1)), TypeError, r"pad\[0\]"),
    (lambda: pad_matrix((2, 3), (1, 1), value=float("nan")), ValueError, "value"),
    (lambda: pixel_shuffle_matrix((3, 2, 2), 2), ValueError, "upscale_factor"),
    (lambda: pixel_shuffle_matrix((4, 2), 2), ValueError, "input_shape"),
    (lambda: pixel_unshuffle_matrix((1, 3, 4), 2), ValueError, "downscale_factor"),
    (lambda: pixel_unshuffle_matrix((1, 4, 4), 0), ValueError, "downscale_factor"),
    (lambda: permute_matrix((2, 3), (0, 0)), ValueError, "dims"),
    (lambda: permute_matrix((2, 3), (0, 2)), ValueError, r"dims\[1\]"),
    (lambda: permute_matrix((2, 3), (0,)), ValueError, "dims"),
    (lambda: concat_matrices([(2, 3), (3, 3)], 1), ValueError, "shapes"),
    (lambda: concat_matrices([(2, 3), (2,)], 0), ValueError, "shapes"),
    (lambda: concat_matrices([(2, 3)], 2), ValueError, "dim"),
    (lambda: concat_matrices([], 0), TypeError, "shapes"),
    (lambda: index_matrix((2, 3), ([0, 1],)), TypeError, "index"),
    (lambda: index_matrix((2, 3), torch.tensor([0])), TypeError, "index"),
    (lambda: index_matrix((2, 3), (True,)), TypeError, "index"),
    (lambda: index_matrix((2, 3), (0, 0, 0)), ValueError, "index"),
    (lambda: index_matrix((2, 3), (5,)), ValueError, "out of range"),
    (lambda: index_matrix((2, 3), (slice(None, None, -1),)), ValueError, "step"),
    (lambda: index_matrix((2, 3), (Ellipsis, Ellipsis)), ValueError, "Ellipsis"),
    (lambda: reduce_matrix((2, 3), (0, 0)), ValueError, "dims"),
    (lambda: reduce_matrix((2, 3), 2), ValueError, "dims"),
    (lambda: reduce_matrix((2, 3), 0, keepdim=1), TypeError, "keepdim"),
    (lambda: batchnorm_matrix((2, 3), np.zeros(3), np.ones(2)), ValueError, "running_mean"),
    (lambda: batchnorm_matrix((2, 3), np.zeros(2), np.array([1.0, -1.0])), ValueError, "running_var"),
    (lambda: batchnorm_matrix((2, 3), np.zeros(2), np.ones(2), eps=0.0), ValueError, "eps"),
    (lambda: batchnorm_matrix((2, 3), np.zeros(2), None), TypeError, "running_var"),
    (lambda: batchnorm_matrix((2, 3), np.array([np.nan, 0.0]), np.ones(2)), ValueError, "running_mean"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS, ids=[f"{i}-{e[2]}" for i, e in enumerate(ERRORS)])
def test_bad_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
