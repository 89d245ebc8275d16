"""isomat.algebra.conv against direct loops, scipy.signal/ndimage and torch (zhu2025 §4.2.1, Thm 4.1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.ndimage as ndi
import scipy.signal as sig
import scipy.sparse as sp
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st

import isomat
from isomat.algebra import (
    conv_apply,
    conv_kron_factors,
    conv_matrix,
    conv_output_shape,
    csr_matvec,
    shift_matrix,
    zhu_conv_matrix,
    zhu_conv_rows,
)
from isomat.testing import assert_matches_dense, dottest
from isomat.testing.strategies import conv_layers

from .conftest import requires_gpu, to_host


def loop_conv(X, K, stride, lo, dil, circular=False, groups=1):
    """Direct loops over output positions and taps (channels vectorized): shares no code with isomat."""
    sp_in = X.shape[1:]
    d = len(sp_in)
    C_out = K.shape[0]
    ks = K.shape[2:]
    his = lo if isinstance(lo[0], int) else None
    out = []
    for i in range(d):
        hi = his[i]
        out.append((sp_in[i] + lo[i] + hi - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1)
    Y = np.zeros((C_out,) + tuple(out), dtype=np.result_type(X, K))
    for o in itertools.product(*[range(n) for n in out]):
        for t in itertools.product(*[range(k) for k in ks]):
            idx = [o[i] * stride[i] - lo[i] + t[i] * dil[i] for i in range(d)]
            if circular:
                idx = [j % n for j, n in zip(idx, sp_in)]
            elif any(j < 0 or j >= n for j, n in zip(idx, sp_in)):
                continue
            opg, cpg = C_out // groups, X.shape[0] // groups
            for g in range(groups):  # output channels of group g read its input channels only
                Y[(slice(g * opg, (g + 1) * opg),) + o] += (
                    K[(slice(g * opg, (g + 1) * opg), slice(None)) + t] @ X[(slice(g * cpg, (g + 1) * cpg),) + tuple(idx)])
    return Y


def conv_case(dims=(1, 2, 3)):
    """(d, c_in, c_out, ks, dil, stride, pad, n, seed): an int-padded, ungrouped layer drawn by the kit."""
    return conv_layers(dims=dims, max_groups=1, paddings=("int",), boundaries=("zero",), values=False).map(
        lambda c: (c.d, c.c_in, c.c_out, c.kernel_size, c.dilation, c.stride, c.padding, c.spatial, c.seed))


@given(conv_case())
def test_matches_direct_loops(case):
    d, c_in, c_out, ks, dil, stride, pad, n, seed = case
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in) + ks)
    X = rng.standard_normal((c_in,) + n)
    W = conv_matrix((c_in,) + n, K, stride=stride, padding=pad, dilation=dil)
    ref = loop_conv(X, K, stride, pad, dil)
    assert W.shape == (ref.size, X.size)
    assert conv_output_shape((c_in,) + n, K.shape, stride=stride, padding=pad, dilation=dil) == ref.shape
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, stride=stride, padding=pad, dilation=dil), ref, rtol=1e-12, atol=1e-12)
    dottest(W, rng=seed)


def grouped_case():
    """(d, groups, cpg, opg, ks, dil, stride, pad, n, seed): a grouped layer drawn by the kit."""
    return conv_layers(dims=(1, 2), max_channels=6, max_groups=3, paddings=("int",), boundaries=("zero",),
                       values=False).map(
        lambda c: (c.d, c.groups, c.c_in // c.groups, c.c_out // c.groups, c.kernel_size, c.dilation, c.stride,
                   c.padding, c.spatial, c.seed))


@given(grouped_case(), st.booleans())
def test_grouped_matches_direct_loops_and_torch(case, circular):
    d, groups, cpg, opg, ks, dil, stride, pad, n, seed = case
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((groups * opg, cpg) + ks)
    X = rng.standard_normal((groups * cpg,) + n)
    kw = dict(stride=stride, padding=pad, dilation=dil, groups=groups, boundary="circular" if circular else "zero")
    W = conv_matrix(X.shape, K, **kw)
    ref = loop_conv(X, K, stride, pad, dil, circular=circular, groups=groups)
    assert conv_output_shape(X.shape, K.shape, stride=stride, padding=pad, dilation=dil, groups=groups) == ref.shape
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, **kw), ref, rtol=1e-12, atol=1e-12)
    dottest(W, rng=seed)
    # block diagonal over the groups: no entry joins an output group to another input group
    coo = W.tocoo()
    out_sp, in_sp = ref[0].size, X[0].size
    assert np.all(coo.row // out_sp // opg == coo.col // in_sp // cpg)
    try:
        import torch
    except ImportError:
        return
    if not circular:
        f = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d}[d]
        tref = f(torch.tensor(X)[None], torch.tensor(K), stride=stride, padding=pad, dilation=dil, groups=groups)[0]
        np.testing.assert_allclose(W @ X.ravel(), tref.numpy().ravel(), rtol=1e-10, atol=1e-12)


def test_grouped_exact_and_bad_groups():
    k = sympy.Matrix(2, 2, sympy.symbols("a b c d"))
    K = np.empty((2, 1, 1, 2), dtype=object)  # depthwise: 2 channels, a 1x2 window each
    K[0, 0, 0], K[1, 0, 0] = list(k.row(0)), list(k.row(1))
    Ws = conv_matrix((2, 1, 3), K, groups=2, backend="sympy")
    a, b, c, dd = sympy.symbols("a b c d")
    assert Ws == sympy.Matrix([[a, b, 0, 0, 0, 0], [0, a, b, 0, 0, 0], [0, 0, 0, c, dd, 0], [0, 0, 0, 0, c, dd]])
    X = sympy.Matrix(1, 6, sympy.symbols("x0:6"))
    assert (Ws * X.T).T == sympy.Matrix(1, 4, list(np.asarray(conv_apply(np.asarray(X).reshape(2, 1, 3), K, groups=2)).ravel()))
    with pytest.raises(ValueError, match=r"expected kernel.shape\[1\] \* groups == input_shape\[0\] \(groups=2\)"):
        conv_matrix((3, 4, 4), np.ones((2, 1, 3, 3)), groups=2)
    with pytest.raises(ValueError, match="groups=2 must divide the kernel's C_out = 3"):
        conv_matrix((4, 4, 4), np.ones((3, 2, 3, 3)), groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer, got 0"):
        conv_matrix((4, 4, 4), np.ones((4, 4, 3, 3)), groups=0)
    with pytest.raises(ValueError, match="groups must be 1 for a single-channel kernel"):
        conv_matrix((4, 4), np.ones((3, 3)), groups=2)


@given(conv_case(dims=(1, 2)))
def test_circular_matches_direct_loops(case):
    d, c_in, c_out, ks, dil, stride, pad, n, seed = case
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in) + ks)
    X = rng.standard_normal((c_in,) + n)
    W = conv_matrix((c_in,) + n, K, stride=stride, padding=pad, dilation=dil, boundary="circular")
    ref = loop_conv(X, K, stride, pad, dil, circular=True)
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, stride=stride, padding=pad, dilation=dil, boundary="circular"), ref,
                               rtol=1e-12, atol=1e-12)
    dottest(W, rng=seed)


@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from([1, 3, 5]), st.sampled_from([1, 3]),
       st.integers(1, 3), st.sampled_from(["constant", "wrap"]), st.integers(0, 999))
def test_against_scipy_ndimage(h, w, k1, k2, s, mode, seed):
    rng = np.random.default_rng(seed)
    X, K = rng.standard_normal((h, w)), rng.standard_normal((k1, k2))
    W = conv_matrix((h, w), K, padding=(k1 // 2, k2 // 2), stride=s, boundary="zero" if mode == "constant" else "circular")
    ref = ndi.correlate(X, K, mode=mode, cval=0.0)[::s, ::s]
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-10, atol=1e-12)


@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 4), st.integers(1, 4), st.booleans(), st.integers(0, 999))
def test_against_scipy_signal(h, w, k1, k2, full, seed):
    assume(full or (k1 <= h and k2 <= w))
    rng = np.random.default_rng(seed)
    X, K = rng.standard_normal((h, w)), rng.standard_normal((k1, k2))
    pad = (k1 - 1, k2 - 1) if full else 0
    ref = sig.correlate2d(X, K, mode="full" if full else "valid")
    np.testing.assert_allclose(conv_matrix((h, w), K, padding=pad) @ X.ravel(), ref.ravel(), rtol=1e-10, atol=1e-12)


@given(conv_case(), st.sampled_from(["int", "same", "valid"]))
def test_against_torch(case, mode):
    torch = pytest.importorskip("torch")
    d, c_in, c_out, ks, dil, stride, pad, n, seed = case
    if mode == "same":
        stride = (1,) * d
        pad = "same"
    elif mode == "valid":
        pad = "valid"
        assume(all(ni >= dl * (k - 1) + 1 for ni, dl, k in zip(n, dil, ks)))
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in) + ks)
    X = rng.standard_normal((c_in,) + n)
    f = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}[d]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = f(torch.tensor(X)[None], torch.tensor(K), stride=stride, padding=pad, dilation=dil)[0].numpy()
    W = conv_matrix((c_in,) + n, K, stride=stride, padding=pad, dilation=dil)
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, stride=stride, padding=pad, dilation=dil), ref, rtol=1e-10, atol=1e-12)


@given(st.integers(1, 3), st.integers(2, 6), st.integers(2, 6), st.integers(1, 2), st.integers(0, 999))
def test_against_torch_circular(c, h, w, p, seed):
    torch = pytest.importorskip("torch")
    assume(p <= h and p <= w)
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((2, c, 3, 3))
    X = rng.standard_normal((c, h, w))
    xt = torch.nn.functional.pad(torch.tensor(X)[None], (p, p, p, p), mode="circular")
    ref = torch.nn.functional.conv2d(xt, torch.tensor(K))[0].numpy()
    W = conv_matrix((c, h, w), K, padding=p, boundary="circular")
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-10, atol=1e-12)


def test_exact_symbolic_kernel():
    k = sympy.Matrix(3, 3, sympy.symbols("k0:9"))
    W = conv_matrix((3, 4), k, padding=1)
    assert isinstance(W, sympy.SparseMatrix)
    X = sympy.Matrix(3, 4, sympy.symbols("x0:12"))
    ref = loop_conv(np.array(X.tolist(), dtype=object)[None], np.array(k.tolist(), dtype=object)[None, None],
                    (1, 1), (1, 1), (1, 1))
    got = W * X.reshape(12, 1)
    assert (got - sympy.Matrix(ref.reshape(-1).tolist())).expand().is_zero_matrix


def test_exact_rational_multichannel_and_fields(field):
    rng = np.random.default_rng(3)
    K = rng.integers(-4, 5, size=(2, 2, 2, 3))
    Kq = np.array([[[[sympy.Rational(int(v), 3) for v in row] for row in ch] for ch in co] for co in K], dtype=object)
    W = conv_matrix((2, 4, 5), Kq, stride=(1, 2), padding=(1, 0), backend=field)
    ref = conv_matrix((2, 4, 5), K / 3.0, stride=(1, 2), padding=(1, 0))
    if field == "sympy":
        assert all(isinstance(v, sympy.Rational) for v in W.values())
        assert_matches_dense(sympy.Matrix(W), sympy.Matrix(conv_matrix((2, 4, 5), Kq, stride=(1, 2), padding=(1, 0))))
    np.testing.assert_allclose(to_host(W).astype(float), ref.toarray(), rtol=1e-14)


@given(conv_case(dims=(1, 2, 3)), st.lists(st.integers(0, 10**6), min_size=0, max_size=4), st.booleans())
def test_row_blocks_stack_to_whole(case, cuts, circ):
    d, c_in, c_out, ks, dil, stride, pad, n, seed = case
    K = np.random.default_rng(seed).standard_normal((c_out, c_in) + ks)
    kw = dict(stride=stride, padding=pad, dilation=dil, boundary="circular" if circ else "zero")
    W = conv_matrix((c_in,) + n, K, **kw)
    R = W.shape[0]
    edges = sorted({0, R} | {c % (R + 1) for c in cuts})
    blocks = [conv_matrix((c_in,) + n, K, rows=(a, b), **kw) for a, b in zip(edges[:-1], edges[1:])]
    assert all(B.shape == (b - a, W.shape[1]) for B, (a, b) in zip(blocks, zip(edges[:-1], edges[1:])))
    assert abs(sp.vstack(blocks).tocsr() - W).max() == 0
    half = conv_matrix((c_in,) + n, K, rows=slice(R // 2, None), **kw)
    assert abs(half - W[R // 2:]).max() == 0


@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2),
       st.integers(0, 1), st.booleans())
def test_kronecker_factors_sum_to_matrix(h, w, k1, k2, s, dl, p, circ):
    assume(h + 2 * p >= dl * (k1 - 1) + 1 and w + 2 * p >= dl * (k2 - 1) + 1)
    K = np.arange(1.0, k1 * k2 + 1).reshape(k1, k2)
    kw = dict(stride=(s, 1), padding=p, dilation=dl, boundary="circular" if circ else "zero")
    total = sum(v * sp.kron(A, B) for v, A, B in conv_kron_factors((h, w), K, **kw))
    assert abs(total - conv_matrix((h, w), K, **kw)).max() < 1e-12
    S = shift_matrix(h, k1, 0, stride=s, padding=p, dilation=dl, boundary="circular" if circ else "zero")
    assert S.shape[1] == h and set(np.unique(S.toarray())) <= {0.0, 1.0}


def test_kronecker_factors_exact():
    k = sympy.Matrix(2, 2, sympy.symbols("a b c d"))
    fac = conv_kron_factors((3, 3), k, padding=1)
    total = sum((v * sympy.kronecker_product(sympy.Matrix(A), sympy.Matrix(B)) for v, A, B in fac), sympy.zeros(16, 9))
    assert total == sympy.Matrix(conv_matrix((3, 3), k, padding=1))


def test_csr_matvec_threads_matches_scipy():
    rng = np.random.default_rng(0)
    W = conv_matrix((3, 40, 50), rng.standard_normal((4, 3, 3, 3)), padding=1)
    x = rng.standard_normal(W.shape[1])
    for threads in (1, 2, 3):
        np.testing.assert_allclose(csr_matvec(W, x, threads=threads), W @ x, rtol=1e-13)
    out = np.empty(W.shape[0])
    assert csr_matvec(W, x, out=out) is out
    with pytest.raises(TypeError, match="A must be a scipy.sparse CSR array"):
        csr_matvec(W.toarray(), x)
    with pytest.raises(ValueError, match=r"x must have shape \(6000,\)"):
        csr_matvec(W, x[:-1])


def test_large_single_channel_is_vectorized_and_canonical():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 301))
    K = rng.standard_normal((3, 3))
    W = conv_matrix(X.shape, K, padding=1)
    assert W.has_canonical_format and W.indices.dtype == np.int32
    assert W.nnz == 9 * 300 * 301 - 3 * 2 * 301 - 3 * 2 * 300 + 4
    np.testing.assert_allclose(W @ X.ravel(), ndi.correlate(X, K, mode="constant").ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, padding=1, threads=2), ndi.correlate(X, K, mode="constant"), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# the paper's W_conv (§4.2.1)
# ---------------------------------------------------------------------------------------------
def test_zhu_conv_matrix_as_printed():
    k = sympy.Matrix(2, 2, sympy.symbols("k11 k12 k21 k22"))
    W = zhu_conv_matrix((3, 3), k, overflow="extend")
    # L = 9, N0 = {0, 1, 3, 4}, P = (9 - 4) // 1 + 1 = 6: rows 0..5, last row reaches column 9 = L
    assert zhu_conv_rows((3, 3), 2) == 6 and W.shape == (6, 10)
    assert [W[0, c] for c in (0, 1, 3, 4)] == list(k)
    assert W[5, 9] == k[3]
    Wd = zhu_conv_matrix((3, 3), k)
    assert Wd.shape == (6, 9) and [Wd[5, c] for c in (5, 6, 8)] == [k[0], k[1], k[2]] and Wd[5, :].nnz() == 3
    with pytest.raises(ValueError, match="row p = 5 .* column 9 >= L = 9"):
        zhu_conv_matrix((3, 3), k, overflow="raise")


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3))
def test_zhu_rows_are_valid_convolution_after_selection(m, n, r, s):
    assume(r <= min(m, n))
    K = np.arange(1.0, r * r + 1).reshape(r, r)
    Z = zhu_conv_matrix((m, n), K, s).toarray()
    o1, o2 = (m - r) // s + 1, (n - r) // s + 1
    C = conv_matrix((m, n), K, stride=s).toarray()
    X = np.random.default_rng(m * n + r).standard_normal((m, n))
    np.testing.assert_allclose(C @ X.ravel(), sig.correlate2d(X, K, mode="valid")[::s, ::s].ravel(), atol=1e-12)
    sel = [i * n + j for i in range(o1) for j in range(o2)]
    np.testing.assert_array_equal(Z[sel], C)
    dottest(zhu_conv_matrix((m, n), K, s))


# ---------------------------------------------------------------------------------------------
# bad input, memory bound, GPU
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, kwargs, exc, words",
    [
        (((4, 4), np.ones((3, 3))), {"stride": 0}, ValueError, "stride must be a positive integer, got 0"),
        (((4, 4), np.ones((3, 3))), {"dilation": 1.5}, TypeError, "dilation must be an integer"),
        (((4, 4), np.ones((3, 3))), {"padding": -1}, ValueError, "padding must be an integer >= 0, got -1"),
        (((4, 4), np.ones((3, 3))), {"padding": "full"}, ValueError, "padding must be one of"),
        (((4, 4), np.ones((3, 3))), {"padding": "same", "stride": 2}, ValueError, "padding='same' needs stride 1"),
        (((4, 4), np.ones((3, 3))), {"boundary": "symmetric"}, ValueError, "boundary must be one of"),
        (((2, 4), np.ones((3, 3))), {"boundary": "reflect", "padding": 2}, ValueError, "needs padding < the input size"),
        (((2, 2), np.ones((3, 3))), {}, ValueError, "kernel extent 3 .* larger than the padded input 2"),
        (((3, 4, 4), np.ones((2, 2, 3, 3))), {}, ValueError, "kernel has C_in = 2 input channels"),
        (((4, 4), np.ones((3,))), {}, ValueError, "does not fit input_shape"),
        (((4, 0), np.ones((3, 3))), {}, ValueError, r"input_shape\[1\] must be a positive integer, got 0"),
        (((4, 4), "abc"), {}, TypeError, "kernel must be an array"),
        (((4, 4), np.ones((3, 3))), {"rows": (5, 2)}, ValueError, "rows must satisfy 0 <= start <= stop <= 4"),
        (((4, 4), np.ones((3, 3))), {"rows": slice(0, 4, 2)}, ValueError, "rows must be a slice with step 1"),
        (((4, 4), np.ones((3, 3))), {"rows": 3}, TypeError, "rows must be None, a slice or a"),
        (((4, 4), np.ones((3, 3))), {"format": "dense"}, ValueError, "format must be"),
        (((4, 4), np.ones((3, 3))), {"backend": "torch"}, ValueError, "backend must be one of"),
    ],
)
def test_bad_arguments(args, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        conv_matrix(*args, **kwargs)


def test_zhu_bad_arguments():
    with pytest.raises(ValueError, match="kernel must be a square r x r matrix"):
        zhu_conv_matrix((4, 4), np.ones((2, 3)))
    with pytest.raises(ValueError, match="kernel size r = 3 must not exceed min"):
        zhu_conv_matrix((2, 5), np.ones((3, 3)))
    with pytest.raises(ValueError, match="overflow must be one of"):
        zhu_conv_matrix((4, 4), np.ones((2, 2)), overflow="clip")


def test_memory_bound_refuses_before_allocating():
    with isomat.memory_limit(100_000):
        with pytest.raises(isomat.SizeLimitError, match="conv_matrix: .* would need about"):
            conv_matrix((64, 64), np.ones((5, 5)), padding=2)
        W = conv_matrix((64, 64), np.ones((5, 5)), padding=2, rows=(0, 64))  # one block fits
        assert W.shape == (64, 64 * 64)


@requires_gpu
def test_cupy_field():
    import cupy as cp

    K = np.random.default_rng(0).standard_normal((2, 3, 3, 3))
    W = conv_matrix((3, 5, 6), cp.asarray(K), padding=1)
    np.testing.assert_allclose(to_host(W), conv_matrix((3, 5, 6), K, padding=1).toarray(), rtol=1e-12)


def test_formats_agree():
    K = np.random.default_rng(5).standard_normal((2, 1, 2, 3))
    ref = conv_matrix((1, 4, 5), K, padding=1, stride=(2, 1)).toarray()
    for fmt in ("csc", "coo"):
        np.testing.assert_array_equal(conv_matrix((1, 4, 5), K, padding=1, stride=(2, 1), format=fmt).toarray(), ref)
    op = conv_matrix((1, 4, 5), K, padding=1, stride=(2, 1), format="operator")
    assert isinstance(op, isomat.algebra.SparseOperator) and op.nnz == np.count_nonzero(ref)
    np.testing.assert_array_equal(op.todense(), ref)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("block_bytes", [1, 3000, None], ids=["row-blocks", "some-rows", "default"])
@given(grouped_case(), st.sampled_from(["zero", "circular", "replicate"]))
def test_conv_apply_stacked_blocks_match_direct_loops(threads, block_bytes, case, boundary):
    """The GEMM path stacks the shifted inputs a block of output rows at a time, on one thread or
    shared among workers, and a zero-padded layer writes its shifts without a padded copy: every
    block size (one row, a few, all), worker count and boundary agrees with the loops."""
    from isomat.algebra import _stencil
    from isomat.algebra import conv as conv_module

    d, groups, cpg, opg, ks, dil, stride, pad, n, seed = case
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((groups * opg, cpg) + ks)
    X = rng.standard_normal((groups * cpg,) + n)
    if boundary == "replicate":  # the loops know zero and circular; replicate is checked against np.pad
        Xp = np.pad(X, [(0, 0)] + [(p, p) for p in pad], mode="edge")
        ref = loop_conv(Xp, K, stride, (0,) * d, dil, groups=groups)
    else:
        ref = loop_conv(X, K, stride, pad, dil, circular=boundary == "circular", groups=groups)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(conv_module, "_stencil_eligible", lambda *a, **k: False)  # the GEMM path, even for one channel
        mp.setattr(_stencil, "PARALLEL_MIN_MACS", 0)  # small layers too go to the workers
        if block_bytes is not None:
            mp.setattr(conv_module, "_IM2COL_BLOCK_BYTES", block_bytes)
        got = conv_apply(X, K, stride=stride, padding=pad, dilation=dil, groups=groups, boundary=boundary,
                         threads=threads)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_conv_apply_on_every_float_field(float_field):
    """conv_apply on the GPU field (through the stand-in without a device) agrees with the loops."""
    from isomat.algebra import _backend

    rng = np.random.default_rng(5)
    K = rng.standard_normal((6, 2, 3, 2))
    X = rng.standard_normal((4, 7, 6))
    ref = loop_conv(X, K, (2, 1), (1, 0), (1, 2), groups=2)
    xp = _backend.array_module(float_field)
    got = conv_apply(xp.asarray(X), xp.asarray(K), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    assert _backend.field_of(got) == float_field
    np.testing.assert_allclose(to_host(got), ref, rtol=1e-12, atol=1e-12)


def test_conv_apply_bad_arguments():
    with pytest.raises(ValueError, match=r"x of shape \(4, 4\) does not fit kernel of shape"):
        conv_apply(np.ones((4, 4)), np.ones((1, 1, 1, 3, 3)))
    with pytest.raises(ValueError, match="x given flat needs its shape"):
        conv_apply(np.ones(16), np.ones((3, 3)))
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        conv_matrix((4, 4), np.ones((3, 3)), threads=0)


@given(st.integers(1, 60), st.integers(1, 40), st.floats(0.0, 1.0), st.integers(1, 3), st.integers(1, 6),
       st.integers(0, 2**31 - 1))
def test_csr_matvec_any_csr_any_blocking(n_rows, n_cols, density, threads, blocks_per_thread, seed):
    # any CSR (empty rows, empty blocks included), every thread/block split, against a dense product
    rng = np.random.default_rng(seed)
    A = sp.random_array((n_rows, n_cols), density=density, format="csr", rng=rng)
    x = rng.standard_normal(n_cols)
    y = csr_matvec(A, x, threads=threads, blocks_per_thread=blocks_per_thread)
    np.testing.assert_allclose(y, A.toarray() @ x, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# entry rules: the scalar functions the ledger proves (isomat.proofs.zhu2025) are what the builders build
# ---------------------------------------------------------------------------------------------
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(0, 2), st.integers(0, 2), st.integers(1, 2), st.integers(1, 2))
def test_conv2d_tap_is_the_entry_rule_of_conv_matrix(H, W, KH, KW, s1, s2, l1, l2, d1, d2):
    from isomat.algebra.conv import conv2d_tap

    assume(H + 2 * l1 - d1 * (KH - 1) >= 1 and W + 2 * l2 - d2 * (KW - 1) >= 1)
    kernel = np.arange(1, KH * KW + 1, dtype=float).reshape(KH, KW)  # tap t holds t + 1
    A = conv_matrix((H, W), kernel, stride=(s1, s2), padding=(l1, l2), dilation=(d1, d2)).toarray()
    rows, cols = np.meshgrid(np.arange(A.shape[0]), np.arange(A.shape[1]), indexing="ij")
    tap = conv2d_tap(rows, cols, H, W, KH, KW, stride=(s1, s2), padding=(l1, l2), dilation=(d1, d2))
    np.testing.assert_array_equal(A, np.where(tap >= 0, tap + 1, 0))
    # and one scalar entry, through plain ints
    assert conv2d_tap(0, 0, H, W, KH, KW, stride=(s1, s2), padding=(l1, l2), dilation=(d1, d2)) + 1 == A[0, 0]


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3))
def test_zhu_conv_tap_is_the_entry_rule_of_zhu_conv_matrix(m, n, r, s):
    from isomat.algebra.conv import zhu_conv_tap

    assume(r <= min(m, n))
    kernel = np.arange(1, r * r + 1, dtype=float).reshape(r, r)
    A = zhu_conv_matrix((m, n), kernel, s).toarray()
    p, c = np.meshgrid(np.arange(A.shape[0]), np.arange(A.shape[1]), indexing="ij")
    tap = zhu_conv_tap(p, c, n, r, s)
    np.testing.assert_array_equal(A, np.where(tap >= 0, tap + 1, 0))



def _loop_conv_padded(X, K, stride, pad, dil, mode):
    """Pad with NumPy's np.pad (reflect / edge), then a valid convolution by direct loops: no isomat code."""
    Xp = np.pad(X, [(0, 0)] + [(p, p) for p in pad], mode={"reflect": "reflect", "replicate": "edge"}[mode])
    return loop_conv(Xp, K, stride, (0,) * len(pad), dil)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@given(case=conv_case(dims=(1, 2)))
def test_reflect_and_replicate_match_loops_and_torch_padding_mode(mode, case):
    d, c_in, c_out, ks, dil, stride, pad, n, seed = case
    if mode == "reflect":
        assume(all(p < m for p, m in zip(pad, n)))
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in) + ks)
    X = rng.standard_normal((c_in,) + n)
    kw = dict(stride=stride, padding=pad, dilation=dil, boundary=mode)
    W = conv_matrix(X.shape, K, **kw)
    ref = _loop_conv_padded(X, K, stride, pad, dil, mode)
    np.testing.assert_allclose(W @ X.ravel(), ref.ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conv_apply(X, K, **kw), ref, rtol=1e-12, atol=1e-12)
    assert W.has_canonical_format  # taps that land on one column are summed
    dottest(W, rng=seed)
    try:
        import torch
    except ImportError:
        return
    layer = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d}[d](c_in, c_out, ks, stride=stride, padding=pad, dilation=dil,
                                                         bias=False, padding_mode=mode).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(K))
        tref = layer(torch.tensor(X)[None])[0].numpy()
    np.testing.assert_allclose(W @ X.ravel(), tref.ravel(), rtol=1e-10, atol=1e-12)


def test_reflect_and_replicate_exact():
    a, b, c = sympy.symbols("a b c")
    k = np.array([a, b, c], dtype=object)
    # padded reflect: (x1, x0, x1, x2, x3, x2); replicate: (x0, x0, x1, x2, x3, x3)
    assert conv_matrix((4,), k, padding=1, boundary="reflect", backend="sympy") == sympy.Matrix(
        [[b, a + c, 0, 0], [a, b, c, 0], [0, a, b, c], [0, 0, a + c, b]])
    assert conv_matrix((4,), k, padding=1, boundary="replicate", backend="sympy") == sympy.Matrix(
        [[a + b, c, 0, 0], [a, b, c, 0], [0, a, b, c], [0, 0, a, b + c]])



def test_a_kernel_that_reads_two_ways_is_refused():
    # issue 13: (3, 32, 32) with a (3, 3, 3) kernel is a 3-d volume or 3 channels with C_out missing: never a guess
    with pytest.raises(ValueError, match=r"reads two ways.*\(C_out, 3, 3, 3\).*\(1, 1, 3, 3, 3\)"):
        conv_matrix((3, 32, 32), np.ones((3, 3, 3)))
    with pytest.raises(ValueError, match="reads two ways"):
        conv_apply(np.ones((3, 8, 8)), np.ones((3, 3, 3)))
    assert conv_matrix((1, 3, 8, 8), np.ones((1, 1, 3, 3, 3))).shape == (6 * 6, 3 * 64)  # the 3-d reading, explicit
    assert conv_matrix((3, 8, 8), np.ones((2, 3, 3, 3))).shape == (2 * 36, 3 * 64)  # the channel reading, explicit
    assert conv_matrix((5, 8, 8), np.ones((3, 3, 3))).shape == (3 * 36, 5 * 64)  # a volume whose first axis differs
    assert conv_matrix((3, 3), np.ones((3, 3))).shape == (1, 9)  # 2-d single channel (zhu2025's images) stays


def test_paths_at_small_sizes_runs_every_threshold_path_and_restores():
    """Issue 36: the blocking, threading and int32/int64 thresholds can be set small, so a check runs every path
    at small sizes (zhu2025's binding checks do); the matrices agree with the default path and with direct loops."""
    from isomat.algebra import conv as _conv

    rng = np.random.default_rng(5)
    k = rng.integers(-3, 4, size=(4, 2, 3, 2)).astype(np.float64)
    default = conv_matrix((4, 9, 7), k, padding=1, groups=2, threads=1)
    saved = (_conv._BLOCK_ENTRIES, _conv._DEVICE_BLOCK_ENTRIES, _conv._FORCE_THREADS, _conv._INT32_MAX)
    seen = []
    real_blocks = _conv._blocks

    def counting(*args, **kwargs):  # count the blocks the fill takes
        for blk in real_blocks(*args, **kwargs):
            seen.append(blk)
            yield blk

    _conv._blocks = counting
    try:
        with _conv._paths_at_small_sizes(block_entries=8, threads=2):
            assert _conv._index_dtype(10, 10) == np.int64
            small = conv_matrix((4, 9, 7), k, padding=1, groups=2, threads=1)
    finally:
        _conv._blocks = real_blocks
    assert (_conv._BLOCK_ENTRIES, _conv._DEVICE_BLOCK_ENTRIES, _conv._FORCE_THREADS, _conv._INT32_MAX) == saved
    assert _conv._index_dtype(10, 10) == np.int32
    assert len(seen) == 4 * 9  # one block per output line of each output channel
    assert (small != default).nnz == 0 and small.nnz == default.nnz
    # direct loops (groups 2: output channel c reads input channels 2 (c // 2) and 2 (c // 2) + 1)
    ref = np.zeros(default.shape)
    for co in range(4):
        for o1 in range(9):
            for o2 in range(8):
                for q in range(2):
                    for a in range(3):
                        for b in range(2):
                            u, v = o1 - 1 + a, o2 - 1 + b
                            if 0 <= u < 9 and 0 <= v < 7:
                                ref[(co * 9 + o1) * 8 + o2, ((co // 2) * 2 + q) * 63 + u * 7 + v] += k[co, q, a, b]
    assert np.array_equal(small.toarray(), ref)
