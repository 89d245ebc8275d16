"""Matrix-free layers as scipy.sparse.linalg.LinearOperator (issue 13, part 5).

Each operator is compared with the materialized isomat matrix of its family (forward on vectors
and column blocks, adjoint against the transpose), dot-tested, and the convolution also against
independent references (scipy.signal, torch's conv and its autograd adjoint). An iterative solve
runs through the operators.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.signal
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg, lsqr

import isomat
import isomat.algebra.conv as conv_module
from isomat.algebra import (
    conv_matrix,
    diagonal_blocks,
    layer_matrix,
    ndlinear_apply,
    ndlinear_matrix,
    projection,
    random_spm,
    spm_forward,
    spm_layer,
)
from isomat.algebra.linear_operators import (
    MatrixFreeOperator,
    conv_linear_operator,
    conv_transpose_apply,
    diagonal_blocks_linear_operator,
    ndlinear_linear_operator,
    projection_linear_operator,
    spm_linear_operator,
)
from isomat.errors import SizeLimitError
from isomat.testing import dottest

TOL = {"rtol": 1e-11, "atol": 1e-11}


def _dense(M):
    return M.toarray() if hasattr(M, "toarray") else np.asarray(M, dtype=float)


def _check_against(A, M, seed=0, k=3):
    """matvec, matmat, rmatvec, rmatmat of A equal M and M^T; the dot test passes."""
    M = _dense(M)
    assert isinstance(A, LinearOperator) and isinstance(A, MatrixFreeOperator)
    assert A.shape == M.shape
    rng = np.random.default_rng(seed)
    x, X = rng.standard_normal(A.shape[1]), rng.standard_normal((A.shape[1], k))
    y, Y = rng.standard_normal(A.shape[0]), rng.standard_normal((A.shape[0], k))
    np.testing.assert_allclose(A.matvec(x), M @ x, **TOL)
    np.testing.assert_allclose(A @ x, M @ x, **TOL)
    np.testing.assert_allclose(A.matmat(X), M @ X, **TOL)
    np.testing.assert_allclose(A @ X, M @ X, **TOL)
    np.testing.assert_allclose(A.rmatvec(y), M.T @ y, **TOL)
    np.testing.assert_allclose(A.T @ y, M.T @ y, **TOL)
    np.testing.assert_allclose(A.rmatmat(Y), M.T @ Y, **TOL)
    np.testing.assert_allclose(A.H @ Y, M.T @ Y, **TOL)
    assert A.matvec(x).shape == (A.shape[0],) and A.rmatmat(Y).shape == (A.shape[1], k)
    dottest(A, matvec=A.matvec, rmatvec=A.rmatvec, rng=seed)
    dottest(A)  # through LinearOperator's own @ and .T


# ---------------------------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------------------------
# every boundary conv_apply knows that the transposed convolution folds back (reflect and
# replicate join in when the convolution grows them)
BOUNDARIES = tuple(b for b in ("zero", "circular", "reflect", "replicate") if b in conv_module._BOUNDARIES)


@st.composite
def conv_layers(draw, boundaries=BOUNDARIES, single=None):
    """(input_shape, kernel, kwargs) of a valid convolution, 1-3 spatial axes."""
    d = draw(st.integers(1, 3))
    ktaps = tuple(draw(st.integers(1, 3)) for _ in range(d))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(d))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(d))
    boundary = draw(st.sampled_from(boundaries))
    same = draw(st.booleans()) and all(s == 1 for s in stride)
    if same:
        padding = "same"
        pad = (0,) * d
    else:
        pad = tuple(draw(st.integers(0, 2)) for _ in range(d))
        padding = pad if draw(st.booleans()) else (pad[0] if len(set(pad)) == 1 else pad)
    extent = tuple(dl * (k - 1) + 1 for dl, k in zip(dilation, ktaps))
    budget = {1: 9, 2: 6, 3: 4}[d]
    spatial = tuple(draw(st.integers(max(1, e - 2 * p), max(1, e - 2 * p) + budget)) for e, p in zip(extent, pad))
    if boundary == "circular":  # np.pad / torch wrap a pad of at most the axis length
        assume(all(p <= n for p, n in zip(pad, spatial)))
    if boundary == "reflect":  # torch reflects a pad shorter than the axis
        assume(all(p < n for p, n in zip(pad, spatial)))
    single_channel = draw(st.booleans()) if single is None else single
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if single_channel:
        assume(d < 3 or ktaps[0] != spatial[0])  # else the layer reads two ways and isomat refuses it
        kernel = rng.standard_normal(ktaps)
        input_shape = spatial
        groups = 1
    else:
        groups = draw(st.integers(1, 3))
        cpg, opg = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        kernel = rng.standard_normal((groups * opg, cpg) + ktaps)
        input_shape = (groups * cpg,) + spatial
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "boundary": boundary, "groups": groups}
    return input_shape, kernel, kw


@given(conv_layers())
def test_conv_operator_equals_conv_matrix(layer):
    input_shape, kernel, kw = layer
    A = conv_linear_operator(input_shape, kernel, **kw)
    M = conv_matrix(input_shape, kernel, **kw)
    _check_against(A, M)
    assert A.dtype == np.float64
    assert math.prod(A.input_shape) == A.shape[1] and tuple(A.input_shape) == tuple(input_shape)


def _torch_conv(torch, x, k, kw, single):
    """torch's convolution of one sample ``x`` (torch tensor, isomat shape)."""
    F = torch.nn.functional
    d = k.ndim if single else k.ndim - 2
    kt = k.reshape((1, 1) + k.shape) if single else k
    xt = x.reshape((1, 1) + x.shape) if single else x[None]
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]
    pad = kw["padding"]
    if kw["boundary"] in ("circular", "reflect", "replicate"):  # torch's padding_mode: pad first, then convolve
        if pad == "same":
            total = [dl * (t - 1) for dl, t in zip(kw["dilation"], kt.shape[2:])]
            lohi = [(t // 2, t - t // 2) for t in total]
        else:
            p = (pad,) * d if isinstance(pad, int) else pad
            lohi = [(q, q) for q in p]
        flat = [v for lo_hi in reversed(lohi) for v in lo_hi]  # F.pad: last axis first
        xt = F.pad(xt, flat, mode=kw["boundary"]) if any(flat) else xt
        pad = 0
    y = conv(xt, kt, stride=kw["stride"], padding=pad, dilation=kw["dilation"], groups=kw["groups"])
    return y[0, 0] if single else y[0]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@given(conv_layers())
def test_conv_operator_matches_torch_forward_and_autograd_adjoint(layer):
    torch = pytest.importorskip("torch")
    input_shape, kernel, kw = layer
    single = kernel.ndim == len(input_shape)
    A = conv_linear_operator(input_shape, kernel, **kw)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(input_shape)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = _torch_conv(torch, xt, torch.tensor(kernel), kw, single)
    np.testing.assert_allclose(A @ x.ravel(), yt.detach().numpy().ravel(), **TOL)
    g = rng.standard_normal(A.shape[0])
    (vjp,) = torch.autograd.grad(yt, xt, torch.tensor(g.reshape(yt.shape)))
    np.testing.assert_allclose(A.rmatvec(g), vjp.numpy().ravel(), **TOL)  # W^T g is torch's input gradient


@given(conv_layers(boundaries=("zero",), single=False))
def test_conv_adjoint_is_torch_conv_transpose(layer):
    torch = pytest.importorskip("torch")
    input_shape, kernel, kw = layer
    assume(kw["padding"] != "same")
    d = kernel.ndim - 2
    pad = (kw["padding"],) * d if isinstance(kw["padding"], int) else kw["padding"]
    A = conv_linear_operator(input_shape, kernel, **kw)
    y = np.random.default_rng(2).standard_normal(A.output_shape)
    # output_padding makes conv_transpose give back the input size: (o-1)s - 2p + dl(k-1) + 1 + op = n
    op = tuple(n - ((o - 1) * s - 2 * p + dl * (t - 1) + 1) for n, o, s, p, dl, t in
               zip(input_shape[1:], A.output_shape[1:], kw["stride"], pad, kw["dilation"], kernel.shape[2:]))
    ct = {1: torch.nn.functional.conv_transpose1d, 2: torch.nn.functional.conv_transpose2d,
          3: torch.nn.functional.conv_transpose3d}[d]
    ref = ct(torch.tensor(y)[None], torch.tensor(kernel), stride=kw["stride"], padding=pad, output_padding=op,
             groups=kw["groups"], dilation=kw["dilation"])[0].numpy()
    np.testing.assert_allclose(A.rmatvec(y.ravel()), ref.ravel(), **TOL)
    np.testing.assert_allclose(conv_transpose_apply(y, kernel, input_shape, **kw), ref, **TOL)


@given(st.integers(1, 2), st.data())
def test_single_channel_conv_matches_scipy_signal(d, data):
    """Stride 1, zero padding: A x is scipy.signal.correlate of the padded input ('valid'),
    A^T y is scipy.signal.convolve(y, k, 'full') cropped to the input."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    ktaps = tuple(data.draw(st.integers(1, 4)) for _ in range(d))
    pad = tuple(data.draw(st.integers(0, 3)) for _ in range(d))
    spatial = tuple(data.draw(st.integers(max(1, t - 2 * p), 9)) for t, p in zip(ktaps, pad))
    k = rng.standard_normal(ktaps)
    A = conv_linear_operator(spatial, k, padding=pad)
    x = rng.standard_normal(spatial)
    ref = scipy.signal.correlate(np.pad(x, [(p, p) for p in pad]), k, mode="valid")
    np.testing.assert_allclose((A @ x.ravel()).reshape(A.output_shape), ref, **TOL)
    y = rng.standard_normal(A.output_shape)
    full = scipy.signal.convolve(y, k, mode="full")
    crop = full[tuple(slice(p, p + n) for p, n in zip(pad, spatial))]
    np.testing.assert_allclose(A.rmatvec(y.ravel()).reshape(spatial), crop, **TOL)


def test_conv_transpose_apply_shapes():
    rng = np.random.default_rng(3)
    k = rng.standard_normal((4, 3, 3, 3))
    A = conv_linear_operator((3, 8, 7), k, stride=2, padding=1)
    M = conv_matrix((3, 8, 7), k, stride=2, padding=1)
    Y = rng.standard_normal((5,) + A.output_shape)
    X = conv_transpose_apply(Y, k, (3, 8, 7), stride=2, padding=1)
    assert X.shape == (5, 3, 8, 7)
    np.testing.assert_allclose(X.reshape(5, -1), (M.T @ Y.reshape(5, -1).T).T, **TOL)
    np.testing.assert_allclose(conv_transpose_apply(Y[0], k, (3, 8, 7), stride=2, padding=1), X[0], **TOL)
    flat = conv_transpose_apply(Y[0].ravel(), k, (3, 8, 7), stride=2, padding=1)
    assert flat.shape == (3 * 8 * 7,)
    np.testing.assert_allclose(flat, X[0].ravel(), **TOL)
    with pytest.raises(ValueError, match="y must have the convolution's output shape"):
        conv_transpose_apply(rng.standard_normal((2, 3)), k, (3, 8, 7), stride=2, padding=1)


def test_conv_operator_dtypes_torch_and_complex():
    torch = pytest.importorskip("torch")
    w = torch.nn.Conv2d(2, 3, 3, bias=False).weight  # a Parameter that requires grad
    A = conv_linear_operator((2, 6, 5), w, padding=1)
    M = conv_matrix((2, 6, 5), w.detach().numpy().astype(np.float64), padding=1)
    assert A.dtype == np.float32
    x = np.random.default_rng(4).standard_normal(A.shape[1]).astype(np.float32)
    np.testing.assert_allclose(A @ x, M @ x, rtol=1e-5, atol=1e-5)
    rng = np.random.default_rng(5)
    kc = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    Ac = conv_linear_operator((5, 6), kc, padding=1, boundary="circular")
    Mc = conv_matrix((5, 6), kc, padding=1, boundary="circular").toarray()
    assert Ac.dtype == np.complex128
    y = rng.standard_normal(Ac.shape[0]) + 1j * rng.standard_normal(Ac.shape[0])
    np.testing.assert_allclose(Ac.rmatvec(y), Mc.conj().T @ y, **TOL)  # rmatvec is the adjoint A^H
    np.testing.assert_allclose(Ac.H @ y[:, None], Mc.conj().T @ y[:, None], **TOL)


def test_conv_operator_exact_kernel_is_converted_to_float():
    import sympy

    k = sympy.Matrix([[sympy.Rational(1, 2), 1], [0, sympy.Rational(-1, 3)]])
    A = conv_linear_operator((4, 4), k)
    np.testing.assert_allclose(_dense(A @ np.eye(16)), conv_matrix((4, 4), k, backend="numpy").toarray(), **TOL)
    with pytest.raises(TypeError, match="symbolic"):
        conv_linear_operator((4, 4), sympy.Matrix([[sympy.Symbol("a"), 1]]))


# ---------------------------------------------------------------------------------------------
# projection, NdLinear, SPM, DiagonalBlocks
# ---------------------------------------------------------------------------------------------
@given(st.integers(1, 40), st.integers(1, 40))
def test_projection_operator_equals_projection(m, n):
    A = projection_linear_operator(m, n)
    _check_against(A, projection(m, n))
    assert A.input_shape == (m,) and A.output_shape == (n,)


@given(st.integers(1, 3), st.data())
def test_ndlinear_operator_equals_ndlinear_matrix(N, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    D = tuple(data.draw(st.integers(1, 4)) for _ in range(N))
    H = tuple(data.draw(st.integers(1, 4)) for _ in range(N))
    ws = [rng.standard_normal((h, dd)) for h, dd in zip(H, D)]
    bs = [rng.standard_normal(h) if data.draw(st.booleans()) else None for h in H]
    order = data.draw(st.sampled_from(["outer", "inner"]))
    A = ndlinear_linear_operator(ws, bs, order, input_shape=D)
    K, beta = ndlinear_matrix(ws, bs, order)
    _check_against(A, K)
    assert A.input_shape == D and A.output_shape == H
    # the bias is kept out of the operator: the layer is A @ x + A.bias
    X = rng.standard_normal(D)
    np.testing.assert_allclose(ndlinear_apply(X, ws, bs, order).ravel(), A @ X.ravel() + A.bias, **TOL)
    np.testing.assert_allclose(A.bias, beta, **TOL)


@given(st.integers(1, 12), st.integers(1, 4), st.sampled_from(["rotation", "general"]),
       st.sampled_from(["pass", "scale"]), st.sampled_from(["butterfly", "random"]), st.integers(0, 100))
def test_spm_operator_equals_layer_matrix(n, L, variant, odd, schedule, seed):
    layer = random_spm(n, L, variant=variant, odd=odd, schedule=schedule, seed=seed)
    A = spm_linear_operator(layer)
    _check_against(A, layer_matrix(layer))
    X = np.random.default_rng(seed).standard_normal((4, n))
    np.testing.assert_allclose(spm_forward(layer, X), (A @ X.T).T + A.bias, **TOL)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(2, 7), st.integers(2, 7),
       st.integers(1, 3), st.integers(0, 2**16))
def test_diagonal_blocks_operator_equals_toarray(c_in, c_out, d, n1, n2, taps, seed):
    rng = np.random.default_rng(seed)
    spatial = (n1, n2)[:d]
    k = rng.standard_normal((c_out, c_in) + (taps,) * d)
    # tiny layers store some zero fill, which conv_matrix(format="diagonal") refuses
    D = diagonal_blocks(conv_matrix((c_in,) + spatial, k, padding="same"), block=math.prod(spatial), max_fill=100)
    A = diagonal_blocks_linear_operator(D)
    _check_against(A, D.toarray())
    # a general banded matrix in blocks of a size that does not divide the shape
    B = sp.random_array((17, 13), density=0.3, random_state=seed, format="csr")
    Db = diagonal_blocks(B, block=5, max_fill=100)
    _check_against(diagonal_blocks_linear_operator(Db), B.toarray())


# ---------------------------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------------------------
def test_cg_on_convolution_normal_equations():
    """Deblurring: (A^T A + lam I) x = A^T b by conjugate gradients through the operator only."""
    rng = np.random.default_rng(6)
    kernel = rng.standard_normal((3, 2, 3, 3)) / 3
    A = conv_linear_operator((2, 16, 16), kernel, padding=1)
    x_true = rng.standard_normal(A.shape[1])
    b = A @ x_true
    lam = 1e-3
    N = LinearOperator((A.shape[1], A.shape[1]), dtype=A.dtype,
                       matvec=lambda v: A.rmatvec(A.matvec(v)) + lam * v)
    rhs = A.rmatvec(b)
    x, info = cg(N, rhs, rtol=1e-12, maxiter=2000)
    assert info == 0
    assert np.linalg.norm(N @ x - rhs) <= 1e-10 * np.linalg.norm(rhs)
    M = conv_matrix((2, 16, 16), kernel, padding=1)  # the same system, materialized
    ref = np.linalg.solve((M.T @ M).toarray() + lam * np.eye(A.shape[1]), M.T @ b)
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6)


def test_lsqr_through_every_operator():
    rng = np.random.default_rng(7)
    layer = random_spm(8, 3, seed=1)
    ops = [
        conv_linear_operator((2, 9, 8), rng.standard_normal((3, 2, 3, 3)), stride=2, padding=1),
        projection_linear_operator(7, 12),
        ndlinear_linear_operator([rng.standard_normal((4, 3)), rng.standard_normal((3, 2))]),
        spm_linear_operator(layer),
        diagonal_blocks_linear_operator(conv_matrix((2, 6, 6), rng.standard_normal((2, 2, 3, 3)), padding="same",
                                                    format="diagonal")),
    ]
    for A in ops:
        b = rng.standard_normal(A.shape[0])
        x = lsqr(A, b, atol=1e-14, btol=1e-14, iter_lim=5000)[0]
        M = _dense(A @ np.eye(A.shape[1]))
        ref = np.linalg.lstsq(M, b, rcond=None)[0]
        # same least-squares residual (the minimizer may not be unique)
        assert np.linalg.norm(M @ x - b) <= np.linalg.norm(M @ ref - b) * (1 + 1e-8) + 1e-10, type(A).__name__
        assert np.linalg.norm(M.T @ (M @ x - b)) <= 1e-7 * max(1.0, np.linalg.norm(b)), type(A).__name__
        assert aslinearoperator(A) is A


def test_pylops_takes_the_operators():
    pylops = pytest.importorskip("pylops")
    A = conv_linear_operator((1, 10, 10), np.ones((1, 1, 3, 3)) / 9, padding=1)
    P = pylops.aslinearoperator(A)
    x = np.random.default_rng(8).standard_normal(A.shape[1])
    np.testing.assert_allclose(P @ x, A @ x, **TOL)
    np.testing.assert_allclose(P.H @ (P @ x), A.rmatvec(A @ x), **TOL)
    from pylops.utils import dottest as pylops_dottest

    assert pylops_dottest(P, *A.shape, rtol=1e-10)
    assert pylops_dottest(pylops.aslinearoperator(spm_linear_operator(random_spm(8, 3))), 8, 8, rtol=1e-10)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
def test_bad_arguments_are_named():
    k = np.ones((2, 3, 3, 3))
    with pytest.raises(TypeError, match="kernel"):
        conv_linear_operator((3, 8, 8), None)
    with pytest.raises(TypeError, match="kernel"):
        conv_linear_operator((3, 8, 8), "abc")
    with pytest.raises(ValueError, match="input channels"):
        conv_linear_operator((2, 8, 8), k)
    with pytest.raises(ValueError, match="stride"):
        conv_linear_operator((3, 8, 8), k, stride=0)
    with pytest.raises(ValueError, match="boundary"):
        conv_linear_operator((3, 8, 8), k, boundary="mirror")
    with pytest.raises(TypeError, match="input_shape"):
        conv_linear_operator("3x8x8", k)
    with pytest.raises(ValueError, match="m must be a positive integer"):
        projection_linear_operator(0, 3)
    with pytest.raises(TypeError, match="n must be an integer"):
        projection_linear_operator(3, 2.5)
    with pytest.raises(TypeError, match="weights"):
        ndlinear_linear_operator(np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        ndlinear_linear_operator([np.ones((2, 3)), np.ones(4)])
    with pytest.raises(ValueError, match="input_shape"):
        ndlinear_linear_operator([np.ones((2, 3))], input_shape=(4,))
    with pytest.raises(ValueError, match=r"biases\[0\]"):
        ndlinear_linear_operator([np.ones((2, 3))], [np.ones(3)])
    with pytest.raises(TypeError, match="layer must be an isomat SPM"):
        spm_linear_operator(np.eye(4))
    import sympy

    exact = spm_layer(4, "butterfly", [[sympy.Symbol("t"), 0]])
    with pytest.raises(TypeError, match="numpy field"):
        spm_linear_operator(exact)
    with pytest.raises(TypeError, match="D must be a DiagonalBlocks"):
        diagonal_blocks_linear_operator(sp.eye(4, format="csr"))
    A = conv_linear_operator((3, 8, 8), k, padding=1)
    with pytest.raises(ValueError, match="dimension mismatch"):
        A.matvec(np.ones(5))
    with pytest.raises(ValueError, match="dimension mismatch"):
        A.rmatvec(np.ones(5))


def test_memory_guard_covers_the_work_arrays():
    A = conv_linear_operator((1, 64, 64), np.ones((1, 1, 3, 3)), padding=1)
    with isomat.memory_limit(10_000), pytest.raises(SizeLimitError, match="conv transpose apply"):
        A.rmatvec(np.ones(A.shape[0]))
    D = diagonal_blocks_linear_operator(conv_matrix((1, 32, 32), np.ones((1, 1, 3, 3)), padding="same",
                                                    format="diagonal"))
    with isomat.memory_limit(10_000), pytest.raises(SizeLimitError, match="DiagonalBlocks matmat"):
        D.matmat(np.ones((D.shape[1], 8)))


@given(st.sampled_from([("zero", "constant"), ("circular", "wrap"), ("reflect", "reflect"), ("replicate", "edge")]),
       st.integers(1, 6), st.integers(0, 9), st.integers(0, 9), st.integers(0, 2**16))
def test_padding_adjoint_is_the_transpose_of_numpy_pad(modes, n, lo, hi, seed):
    """The fold that undoes padding in the transposed convolution is the adjoint of np.pad in the
    mode conv_apply pads with (also for reflect / replicate, ready for those boundaries)."""
    from isomat.algebra.linear_operators import _fold_axis

    boundary, mode = modes
    if mode == "reflect" and n == 1:
        mode = "edge"  # NumPy reflects a single element onto itself
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, n, 3))
    g = rng.standard_normal((2, n + lo + hi, 3))
    padded = np.pad(x, [(0, 0), (lo, hi), (0, 0)], mode=mode)
    folded = _fold_axis(g, 1, n, lo, hi, boundary)
    assert folded.shape == x.shape
    np.testing.assert_allclose(np.vdot(padded, g), np.vdot(x, folded), rtol=1e-12, atol=1e-12)
