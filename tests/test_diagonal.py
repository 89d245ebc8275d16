"""isomat.algebra.diagonal: a sparse matrix stored by block diagonals equals its CSR/dense source.

References that share no code with the format: SciPy's CSR product, dense NumPy products, and
``scipy.ndimage.correlate`` for the convolution case.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndi
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import DiagonalBlocks, conv_matrix, diagonal_blocks
from isomat.errors import SizeLimitError
from isomat.testing import dottest


@given(st.integers(1, 50), st.integers(1, 50), st.integers(1, 60), st.floats(0.0, 1.0),
       st.sampled_from([np.float64, np.float32, np.complex128]), st.integers(0, 2**31 - 1))
def test_any_sparse_matrix_any_block(n_rows, n_cols, block, density, dtype, seed):
    # blocks that do not divide the shape, empty rows and blocks, every dtype the kernel takes
    rng = np.random.default_rng(seed)
    A = sp.random_array((n_rows, n_cols), density=density, format="csr", rng=rng, dtype=dtype)
    D = diagonal_blocks(A, block=block, max_fill=np.inf)
    dense = A.toarray()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    x = rng.standard_normal(n_cols).astype(dtype)
    y = rng.standard_normal(n_rows).astype(dtype)
    for tile in (1, 3, block, 2 * block + 1, 10**6):
        for threads in (1, 2, 3):
            np.testing.assert_allclose(D.matvec(x, tile=tile, threads=threads), dense @ x, rtol=tol, atol=tol)
    np.testing.assert_allclose(D.rmatvec(y), dense.T @ y, rtol=tol, atol=tol)
    np.testing.assert_array_equal(D.toarray(), dense)
    assert D.nnz == A.nnz and D.dtype == dtype


@given(st.integers(1, 4), st.integers(1, 4), st.integers(2, 12), st.integers(2, 12), st.sampled_from([1, 3, 5]),
       st.integers(0, 2**31 - 1))
def test_same_padded_convolution(c_in, c_out, h, w, k, seed):
    # a stride-1 "same" convolution is banded in each channel block: at most k*k diagonals (zero
    # fill only at the image borders), and the product equals scipy.ndimage.correlate summed over
    # input channels
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((c_out, c_in, k, k))
    X = rng.standard_normal((c_in, h, w))
    D = diagonal_blocks(conv_matrix((c_in, h, w), K, padding=k // 2), block=h * w, max_fill=np.inf)
    ref = np.stack([sum(ndi.correlate(X[i], K[o, i], mode="constant") for i in range(c_in)) for o in range(c_out)])
    for tile in (7, h * w, 10**6):
        np.testing.assert_allclose(D.matvec(X.ravel(), tile=tile), ref.ravel(), rtol=1e-12, atol=1e-12)
    assert len(D.offsets) <= k * k and D.data.size <= c_out * c_in * k * k * h * w


@pytest.mark.parametrize("shape,kernel_shape,block", [((40, 37), (3, 3), None), ((3, 9, 11), (4, 3, 3, 3), 99)])
def test_dot_test_and_linear_operator(shape, kernel_shape, block):
    rng = np.random.default_rng(3)
    W = conv_matrix(shape, rng.standard_normal(kernel_shape), padding=1)
    D = diagonal_blocks(W, block=block)
    dottest(D.aslinearoperator())
    dottest(D, matvec=D.matvec, rmatvec=D.rmatvec)
    x = rng.standard_normal(W.shape[1])
    np.testing.assert_allclose(D @ x, W @ x, rtol=1e-13)
    assert (abs(D.tocsr() - W)).max() == 0


def test_fill_and_layout_of_a_single_channel_convolution():
    # 9 taps of a 3x3 kernel on a 5x6 image: 9 diagonals k = 6 di + dj; nothing else stored
    W = conv_matrix((5, 6), np.arange(1.0, 10.0).reshape(3, 3), padding=1)
    D = diagonal_blocks(W)
    assert D.offsets.tolist() == [-7, -6, -5, -1, 0, 1, 5, 6, 7]
    assert D.data.shape == (1, 9, 30)
    # the centre tap (value 5) sits on diagonal 0 at every column
    np.testing.assert_array_equal(D.data[0, 4], np.full(30, 5.0))
    assert D.fill == pytest.approx(D.data.size / W.nnz)


def test_out_argument_and_dtype_promotion():
    A = sp.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]], dtype=np.float32))
    D = diagonal_blocks(A)
    out = np.empty(2, dtype=np.float64)
    assert D.matvec(np.array([1.0, 1.0]), out=out) is out  # float32 data, float64 x: float64 result
    np.testing.assert_array_equal(out, [3.0, 3.0])
    with pytest.raises(ValueError, match=r"out must be a contiguous NumPy array of shape \(2,\) and dtype float64"):
        D.matvec(np.ones(2), out=np.empty(3))
    with pytest.raises(ValueError, match="out must be a contiguous"):
        D.matvec(np.ones(2), out=np.empty(4)[::2])
    np.testing.assert_array_equal(D.matvec(np.ones(4)[::2]), [3.0, 3.0])  # strided x is fine


def test_bad_input_is_refused_with_names():
    A = sp.random_array((30, 30), density=0.2, format="csr", rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="A must be a scipy.sparse array"):
        diagonal_blocks(A.toarray())
    with pytest.raises(ValueError, match="block must be a positive integer, got 0"):
        diagonal_blocks(A, block=0)
    with pytest.raises(ValueError, match=r"max_fill must be a number >= 1"):
        diagonal_blocks(A, max_fill=0.5)
    with pytest.raises(ValueError, match=r"not banded in blocks of 30: .* over max_fill=1.5"):
        diagonal_blocks(A)  # random sparsity: ~all 59 diagonals for ~180 entries
    D = diagonal_blocks(A, max_fill=np.inf)
    with pytest.raises(ValueError, match=r"x must have shape \(30,\), got \(29,\)"):
        D.matvec(np.ones(29))
    with pytest.raises(ValueError, match=r"y must have shape \(30,\)"):
        D.rmatvec(np.ones(31))
    with pytest.raises(ValueError, match="tile must be a positive integer"):
        D.matvec(np.ones(30), tile=0)
    with pytest.raises(TypeError, match="threads must be an integer"):
        D.matvec(np.ones(30), threads=1.5)
    with pytest.raises(TypeError, match="float operator"):
        diagonal_blocks(conv_matrix((3, 3), np.ones((2, 2), dtype=object) * 1, backend="sympy"))


def test_strided_convolution_is_not_banded():
    W = conv_matrix((16, 16), np.ones((3, 3)), stride=2, padding=1)
    with pytest.raises(ValueError, match="not banded"):
        diagonal_blocks(W)


def test_memory_bound_refuses_with_the_size():
    W = conv_matrix((64, 64), np.ones((3, 3)), padding=1)
    with isomat.memory_limit(10_000):
        with pytest.raises(SizeLimitError, match=r"storing 36,864 values would need about 288.0 KiB"):
            diagonal_blocks(W)


def test_direct_construction_checks_the_layout():
    D = diagonal_blocks(conv_matrix((4, 4), np.ones((3, 3)), padding=1))
    E = DiagonalBlocks(D.shape, D.block, D.offsets, D.data, D.nnz)
    np.testing.assert_array_equal(E.toarray(), D.toarray())
    with pytest.raises(ValueError, match=r"data must have shape .* = \(1, 9, 16\) .* got \(1, 8, 16\)"):
        DiagonalBlocks(D.shape, D.block, D.offsets, D.data[:, :8], D.nnz)
    with pytest.raises(ValueError, match="block must be a positive integer"):
        DiagonalBlocks(D.shape, 0, D.offsets, D.data, D.nnz)


def test_repr_names_the_layout():
    D = diagonal_blocks(conv_matrix((4, 4), np.ones((3, 3)), padding=1))
    assert isinstance(D, DiagonalBlocks)
    assert repr(D).startswith("DiagonalBlocks(shape=(16, 16), block=16, diagonals=9, nnz=100,")


def test_result_placed_away_from_4k_aliasing():
    # x and the result at the same address modulo 4 KiB: the product goes through a scratch
    # placed away from every x stream, and is still exact
    from isomat.algebra import diagonal as dg

    W = conv_matrix((64, 64), np.random.default_rng(5).standard_normal((3, 3)), padding=1)
    D = diagonal_blocks(W)
    n = W.shape[0]
    page = np.empty(3 * n + 4096 // 8)
    base = (-page.ctypes.data % 4096) // 8  # first element on a 4 KiB boundary
    x = page[base:base + n]
    out = page[base + 2 * 512 * (-(-n // 512)):][:n]  # also on a 4 KiB boundary, not overlapping x
    assert (x.ctypes.data - out.ctypes.data) % 4096 == 0
    assert dg._aliases(out.ctypes.data, x.ctypes.data + 8 * D.offsets)
    x[:] = np.random.default_rng(6).standard_normal(n)
    for tile in (100, 1000, n):
        np.testing.assert_allclose(D.matvec(x, out=out, tile=tile), W @ x, rtol=1e-13, atol=1e-13)


def test_conv_matrix_renders_by_diagonals():
    rng = np.random.default_rng(8)
    K = rng.standard_normal((3, 2, 3, 3))
    W = conv_matrix((2, 9, 10), K, padding="same")
    D = conv_matrix((2, 9, 10), K, padding="same", format="diagonal")
    assert isinstance(D, DiagonalBlocks) and D.block == 90 and len(D.offsets) == 9
    x = rng.standard_normal(W.shape[1])
    np.testing.assert_allclose(D @ x, W @ x, rtol=1e-13)
    # a row block that starts on an output channel keeps the channel blocks
    Dr = conv_matrix((2, 9, 10), K, padding="same", rows=(90, 270), format="diagonal")
    np.testing.assert_allclose(Dr @ x, (W @ x)[90:270], rtol=1e-13)
    with pytest.raises(ValueError, match="not banded"):
        conv_matrix((2, 9, 10), K, stride=2, padding=1, format="diagonal")
    with pytest.raises(ValueError, match="format='diagonal' stores float values"):
        conv_matrix((4, 4), np.ones((3, 3)), padding=1, backend="sympy", format="diagonal")
    with pytest.raises(ValueError, match=r"format must be one of \('csr', 'csc', 'coo', 'operator', 'diagonal'\)"):
        conv_matrix((4, 4), np.ones((3, 3)), format="dia")


# -- the cupy field: diagonals on the device, the product a CUDA kernel (issue 15, item 8) ------------
# Run for the stand-in (the same CUDA source compiled for the host, tests/cupy_standin RawKernel) and a
# real device when there is one. References: NumPy's dense product, SciPy's CSR product, the field's own
# CSR product (cupyx/cuSPARSE) and the CPU DiagonalBlocks.
from .conftest import to_host  # noqa: E402


def _dev(field, a):
    if field != "cupy":
        return a
    from isomat.gpu import to_gpu

    return to_gpu(a)


@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 50), st.floats(0.0, 1.0),
       st.sampled_from([np.float64, np.float32]), st.integers(0, 2**31 - 1))
def test_product_in_every_float_field(float_field, n_rows, n_cols, block, density, dtype, seed):
    # blocks that do not divide the shape, empty rows and blocks, several block rows and columns
    rng = np.random.default_rng(seed)
    A = sp.random_array((n_rows, n_cols), density=density, format="csr", rng=rng, dtype=dtype)
    D = diagonal_blocks(_dev(float_field, A), block=block, max_fill=np.inf)
    assert D.field == float_field
    x = rng.standard_normal(n_cols).astype(dtype)
    y = rng.standard_normal(n_rows).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    Ax, ATy = D @ _dev(float_field, x), D.rmatvec(_dev(float_field, y))
    assert Ax.dtype == dtype and ATy.dtype == dtype  # float32 stays float32 on the device
    dense = A.toarray()
    np.testing.assert_allclose(to_host(Ax), dense @ x, rtol=tol, atol=tol)
    np.testing.assert_allclose(to_host(ATy), dense.T @ y, rtol=tol, atol=tol)
    # beside the field's own CSR product (cuSPARSE on a device) and the CPU storage
    np.testing.assert_allclose(to_host(Ax), to_host(_dev(float_field, A) @ _dev(float_field, x)), rtol=tol, atol=tol)
    cpu = diagonal_blocks(A, block=block, max_fill=np.inf)
    np.testing.assert_array_equal(to_host(D.data), cpu.data)
    np.testing.assert_array_equal(D.offsets, cpu.offsets)
    np.testing.assert_array_equal(to_host(D.toarray()), dense)


@pytest.mark.parametrize("c_in,c_out,h,w,k", [(1, 1, 7, 9, 3), (3, 2, 6, 5, 3), (2, 3, 12, 11, 5)])
def test_convolution_built_and_applied_in_the_field(float_field, c_in, c_out, h, w, k):
    # conv_matrix(..., format="diagonal") in the field: the product equals scipy.ndimage.correlate
    # summed over input channels, and the adjoint passes the dot test
    rng = np.random.default_rng(c_in * 100 + k)
    K, X = rng.standard_normal((c_out, c_in, k, k)), rng.standard_normal((c_in, h, w))
    D = conv_matrix((c_in, h, w), _dev(float_field, K), padding="same", format="diagonal")
    assert isinstance(D, DiagonalBlocks) and D.field == float_field and D.block == h * w
    ref = np.stack([sum(ndi.correlate(X[i], K[o, i], mode="constant") for i in range(c_in)) for o in range(c_out)])
    np.testing.assert_allclose(to_host(D @ _dev(float_field, X.ravel())), ref.ravel(), rtol=1e-12, atol=1e-12)
    u, v = rng.standard_normal(D.shape[1]), rng.standard_normal(D.shape[0])
    lhs = float(v @ to_host(D @ _dev(float_field, u)))
    rhs = float(to_host(D.rmatvec(_dev(float_field, v))) @ u)
    assert lhs == pytest.approx(rhs, rel=1e-12)


@pytest.mark.standin
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c_in,c_out", [(19, 17), (8, 40), (1, 33)])
def test_device_products_sum_chunks_of_block_columns_and_rows(cupy_standin_module, dtype, c_in, c_out):
    # the device kernels give each thread 64 bytes of block columns (A x) or block rows (A^T y) and add
    # the chunks' partial sums: many channels, partial last chunks, and out= must all come out right
    cp = cupy_standin_module
    rng = np.random.default_rng(c_in + c_out)
    K = rng.standard_normal((c_out, c_in, 3, 3)).astype(dtype)
    X, Y = rng.standard_normal((c_in, 5, 4)), rng.standard_normal((c_out, 5, 4))
    D = conv_matrix((c_in, 5, 4), cp.asarray(K), padding="same", format="diagonal")
    assert D.dtype == dtype  # 19 and 40 block columns / rows: several chunks, the last one partial
    k64 = K.astype(np.float64)
    ref = np.stack([sum(ndi.correlate(X[i], k64[o, i], mode="constant") for i in range(c_in)) for o in range(c_out)])
    # A^T y by the adjoint's own sum: correlation's transpose is convolution
    ref_t = np.stack([sum(ndi.convolve(Y[o], k64[o, i], mode="constant") for o in range(c_out)) for i in range(c_in)])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    out = cp.empty(D.shape[0], dtype=dtype)
    got = D._device_product(cp.asarray(X.ravel().astype(dtype)), out, transpose=False)
    assert got is out
    np.testing.assert_allclose(out.get(), ref.ravel(), rtol=tol, atol=tol * np.abs(ref).max())
    got_t = D.rmatvec(cp.asarray(Y.ravel().astype(dtype))).get()
    np.testing.assert_allclose(got_t, ref_t.ravel(), rtol=tol, atol=tol * np.abs(ref_t).max())


def test_device_storage_moves_between_fields(cupy_standin_module):
    cp = cupy_standin_module
    W = conv_matrix((2, 6, 7), np.random.default_rng(1).standard_normal((2, 2, 3, 3)), padding=1)
    H = diagonal_blocks(W, block=42)
    G = diagonal_blocks(W, block=42, field="cupy")  # converted on the host, diagonals copied once
    assert G.field == "cupy" and isinstance(G.data, cp.ndarray) and "field='cupy'" in repr(G)
    assert H.to_field("numpy") is H and G.to_field("cupy") is G
    back = G.to_field("numpy")
    assert back.field == "numpy" and isinstance(back.data, np.ndarray)
    np.testing.assert_array_equal(back.data, H.data)
    x = np.random.default_rng(2).standard_normal(W.shape[1])
    np.testing.assert_allclose((G @ cp.asarray(x)).get(), W @ x, rtol=1e-13, atol=1e-13)
    # a device matrix asked for on the host is converted there
    assert diagonal_blocks(cp_csr(W), block=42, field="numpy").field == "numpy"
    out = cp.empty(W.shape[0])
    assert G.matvec(cp.asarray(x), out=out) is out
    # the device kernel reads contiguous storage: a strided view of x gives the same product
    xx = cp.asarray(np.repeat(x, 2))[::2]
    np.testing.assert_allclose((G @ xx).get(), W @ x, rtol=1e-13, atol=1e-13)


def cp_csr(W):
    from isomat.gpu import to_gpu

    return to_gpu(W)


def test_device_product_refuses_bad_input_with_names(cupy_standin_module):
    cp = cupy_standin_module
    W = conv_matrix((5, 5), np.ones((3, 3)), padding=1)
    G = diagonal_blocks(W, field="cupy")
    with pytest.raises(TypeError, match="x must be a CuPy array .* got ndarray"):
        G @ np.ones(25)  # no silent host -> device copy per product
    with pytest.raises(TypeError, match="y must be a CuPy array"):
        G.rmatvec(np.ones(25))
    with pytest.raises(ValueError, match=r"x must have shape \(25,\), got \(24,\)"):
        G @ cp.ones(24)
    with pytest.raises(TypeError, match="x: the device product takes float32 or float64 values, got complex128"):
        G @ cp.ones(25, dtype=cp.complex128)
    with pytest.raises(ValueError, match=r"out must be a contiguous CuPy array of shape \(25,\) and dtype float64"):
        G.matvec(cp.ones(25), out=cp.empty(25, dtype=cp.float32))
    with pytest.raises(ValueError, match="tile must be a positive integer"):
        G.matvec(cp.ones(25), tile=0)
    with pytest.raises(ValueError, match=r"field must be one of \('numpy', 'cupy'\), got 'gpu'"):
        diagonal_blocks(W, field="gpu")
    with pytest.raises(TypeError, match="A: the device product takes float32 or float64 values"):
        diagonal_blocks(W.astype(np.complex128), field="cupy")
    with pytest.raises(TypeError, match="to_field"):
        G.aslinearoperator()
    with pytest.raises(SizeLimitError, match="over the memory bound"):
        with isomat.memory_limit(1000):
            diagonal_blocks(cp_csr(W))
