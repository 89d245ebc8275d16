"""Issue 15, item 1: the CuPy stand-in is as strict as CuPy >= 14.1, where CuPy differs from NumPy.

Each behaviour is CuPy's, read from its source at tag v14.2.0 (14.1 agrees) and its "Differences
between CuPy and NumPy" page:

* ``cupy.repeat`` takes device repeats (``cupy/_core/_routines_manipulation.pyx: _repeat``);
* out-of-bounds integer-array indices wrap around (``_routines_indexing.pyx``: "wrap all
  out-of-bound indices", the ``cupy_take`` kernel's ``indices % index_range``);
* sparse index dtypes follow ``cupyx/scipy/sparse/_sputils.py: get_index_dtype(...,
  check_contents=True)`` -- int64 kept for an extent >= 2**31.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.standin


# -- cupy.repeat with device repeats (CuPy >= 14.1) ----------------------------------------------
def test_repeat_takes_device_repeats(cupy_standin_module):
    cp = cupy_standin_module
    a = cp.asarray(np.array([10.0, 20.0, 30.0]))
    r = cp.repeat(a, cp.asarray(np.array([2, 0, 3])))
    assert isinstance(r, cp.ndarray)
    np.testing.assert_array_equal(r.get(), [10, 10, 30, 30, 30])
    np.testing.assert_array_equal(a.repeat(cp.asarray(np.array([1, 1, 1]))).get(), [10, 20, 30])  # the method
    np.testing.assert_array_equal(cp.repeat(a, cp.asarray(np.array([2]))).get(), [10, 10, 20, 20, 30, 30])  # size 1
    np.testing.assert_array_equal(cp.repeat(a, [1, 2, 0]).get(), [10, 20, 20])  # a host list is fine
    np.testing.assert_array_equal(cp.repeat(a, 2).get(), [10, 10, 20, 20, 30, 30])
    m = cp.asarray(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(cp.repeat(m, cp.asarray(np.array([1, 2])), axis=0).get(),
                                  np.repeat(np.arange(6.0).reshape(2, 3), [1, 2], axis=0))


def test_repeat_refuses_what_cupy_refuses(cupy_standin_module):
    cp = cupy_standin_module
    a = cp.arange(3.0)
    with pytest.raises(TypeError, match="does not accept numpy.ndarray"):
        cp.repeat(a, np.array([1, 1, 1]))  # a host array of repeats
    with pytest.raises(TypeError, match="rule 'safe'"):
        cp.repeat(a, cp.asarray(np.array([1.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match="too deep"):
        cp.repeat(a, cp.asarray(np.ones((3, 1), dtype=np.int64)))
    with pytest.raises(ValueError, match="same length"):
        cp.repeat(a, cp.asarray(np.array([1, 2])))
    with pytest.raises(ValueError, match="negative"):
        cp.repeat(a, cp.asarray(np.array([1, -1, 1])))
    with pytest.raises(ValueError, match="negative"):
        cp.repeat(a, -1)


# -- out-of-bounds fancy indexing wraps around ---------------------------------------------------
def test_out_of_bounds_integer_arrays_wrap(cupy_standin_module):
    cp = cupy_standin_module
    cp.reset_transfers()
    a = cp.arange(3)
    np.testing.assert_array_equal(a[[1, 3]].get(), [1, 0])  # the docs' example
    np.testing.assert_array_equal(a[cp.asarray(np.array([-4, 5, 2]))].get(), [2, 2, 2])
    x = cp.asarray(np.array([0, 1, 2]))
    x[[1, 3]] = 10
    np.testing.assert_array_equal(x.get(), [10, 10, 2])  # "array([10, 10,  2])" in CuPy's docs
    M = cp.asarray(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(M[:, cp.asarray(np.array([4, 5]))].get(), [[0, 1], [4, 5], [8, 9]])
    np.testing.assert_array_equal(M[..., [-5]].get(), [[3], [7], [11]])
    np.testing.assert_array_equal(M[cp.asarray(np.array([3])), cp.asarray(np.array([4]))].get(), [0])
    assert cp.INDEX_WRAPS["count"] == 7
    cp.reset_transfers()
    assert cp.INDEX_WRAPS["count"] == 0


def test_take_and_scatter_add_wrap(cupy_standin_module):
    cp = cupy_standin_module
    cpx = sys.modules["cupyx"]
    v = cp.asarray(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    np.testing.assert_array_equal(cp.take(v, cp.asarray(np.array([5, -6, 7]))).get(), [1, 5, 3])
    np.testing.assert_array_equal(v.take(cp.asarray(np.array([9]))).get(), [5])
    M = cp.asarray(np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(cp.take_along_axis(M, cp.asarray(np.array([[3], [4]])), 1).get(), [[0], [4]])
    acc = cp.zeros(3)
    cpx.scatter_add(acc, cp.asarray(np.array([0, 3, 4, -1])), cp.asarray(np.ones(4)))
    np.testing.assert_array_equal(acc.get(), [2, 1, 1])
    with pytest.raises(TypeError):
        cp.take(v, np.array([0]))  # host indices into a device function


def test_in_bounds_and_scalar_indices_are_unchanged(cupy_standin_module):
    cp = cupy_standin_module
    cp.reset_transfers()
    a = cp.asarray(np.arange(5.0))
    np.testing.assert_array_equal(a[cp.asarray(np.array([-1, 0, 4]))].get(), [4, 0, 4])
    np.testing.assert_array_equal(a[a > 2].get(), [3, 4])  # boolean masks are not wrapped
    np.testing.assert_array_equal(a[1:3].get(), [1, 2])
    assert cp.INDEX_WRAPS["count"] == 0
    with pytest.raises(IndexError):
        a[5]  # a scalar index is bounds-checked by CuPy too ("Index 5 is out of bounds")


# -- int64 sparse indices (CuPy >= 14.1) ---------------------------------------------------------
BIG = 2**31 + 5


def test_int64_indices_kept_for_a_large_extent(cupy_standin_module):
    cp = cupy_standin_module
    cpx = sys.modules["cupyx.scipy.sparse"]
    data = cp.asarray(np.array([1.0, 2.0]))
    rows = cp.asarray(np.array([0, 0], dtype=np.int64))
    cols = cp.asarray(np.array([3, BIG - 1], dtype=np.int64))
    A = cpx.coo_matrix((data, (rows, cols)), shape=(1, BIG))
    assert A.row.dtype == A.col.dtype == np.int64
    assert int(A.col.get()[1]) == BIG - 1  # not wrapped to a negative int32
    C = A.tocsr()
    assert C.indices.dtype == np.int64 and int(C.indices.get().max()) == BIG - 1
    C2 = cpx.csr_matrix((data, cols, cp.asarray(np.array([0, 2], dtype=np.int64))), shape=(1, BIG))
    assert C2.indices.dtype == np.int64
    # even int32 input indices are widened when the shape needs it (maxval > int32 max)
    B = cpx.coo_matrix((data, (cp.asarray(np.array([0, 0], dtype=np.int32)),
                                cp.asarray(np.array([1, 2], dtype=np.int32)))), shape=(1, BIG))
    assert B.col.dtype == np.int64


def test_small_matrices_get_int32_indices(cupy_standin_module):
    """CuPy's matrices check contents: int64 indices that fit (and a small shape) become int32."""
    cp = cupy_standin_module
    cpx = sys.modules["cupyx.scipy.sparse"]
    idx = cp.asarray(np.array([0, 1], dtype=np.int64))
    A = cpx.coo_matrix((cp.asarray(np.ones(2)), (idx, idx)), shape=(2, 2))
    assert A.row.dtype == np.int32
    C = cpx.csr_matrix((cp.asarray(np.ones(2)), idx, cp.asarray(np.array([0, 1, 2], dtype=np.int64))), shape=(2, 2))
    assert C.indices.dtype == C.indptr.dtype == np.int32
    S = sp.csr_matrix(np.eye(2))
    S.indices, S.indptr = S.indices.astype(np.int64), S.indptr.astype(np.int64)
    assert cpx.csr_matrix(S).indices.dtype == np.int64  # SciPy input keeps its own dtype, as in CuPy


def test_kron_of_two_long_sparse_vectors_keeps_int64(cupy_standin_module):
    """The device checklist's int64 check: kron of two 1 x 70000 sparse vectors (extent 4.9e9)."""
    from isomat.algebra import kron
    from isomat.gpu import is_cupy_sparse, to_gpu

    a = sp.random_array((1, 70000), density=1e-4, rng=1, format="csr")
    b = sp.random_array((1, 70000), density=1e-4, rng=2, format="csr")
    K = kron(to_gpu(a), to_gpu(b))
    assert is_cupy_sparse(K) and K.shape == (1, 70000 * 70000)
    assert K.indices.dtype == np.int64
    ref = sp.kron(sp.csr_matrix(a), sp.csr_matrix(b), format="csr")
    host = K.get()
    assert host.nnz == ref.nnz and int(host.indices.max()) == int(ref.indices.max()) > 2**31
    assert abs(host - ref).max() == 0


# -- isomat never relies on NumPy's bounds check in the GPU field ----------------------------------
def _dense(x):
    if hasattr(x, "toarray"):
        x = x.toarray()
    return x.get() if hasattr(x, "get") else np.asarray(x)


@pytest.mark.parametrize("case", ["maxpool-padded", "maxpool-dilated", "conv-circular", "conv-reflect",
                                  "conv-replicate", "zhu-pool"])
def test_index_heavy_builds_never_wrap_an_index(cupy_standin_module, case):
    """Builds that gather with computed indices (padding, dilation, boundary modes): in the GPU
    field no index is ever out of bounds -- CuPy would wrap it silently where NumPy raises.
    (test_gpu_families asserts the same for every family.) Indices a user passes (logical_matrix's,
    SPM pairings, conv rows=, graph nodelists) are validated on the host before they reach the device."""
    import importlib

    from isomat.gpu import to_gpu

    cp = cupy_standin_module
    pool = importlib.import_module("isomat.algebra.pool")
    conv = importlib.import_module("isomat.algebra.conv")
    x = np.random.default_rng(0).standard_normal((2, 7, 7))
    k = np.arange(9.0).reshape(3, 3)
    builds = {
        "maxpool-padded": lambda dev, b: pool.maxpool_selection(dev(x), (3, 3), stride=2, padding=1),
        "maxpool-dilated": lambda dev, b: pool.maxpool_selection(dev(x), (2, 2), dilation=2),
        "conv-circular": lambda dev, b: conv.conv_matrix((5, 6), dev(k), padding=1, boundary="circular"),
        "conv-reflect": lambda dev, b: conv.conv_matrix((5, 6), dev(k), padding=1, boundary="reflect"),
        "conv-replicate": lambda dev, b: conv.conv_matrix((5, 6), dev(k), padding=2, boundary="replicate",
                                                          stride=2, dilation=2),
        "zhu-pool": lambda dev, b: pool.zhu_pool_matrix((4, 4), 2, backend=b),
    }
    ref = _dense(builds[case](lambda a: a, "numpy"))
    cp.reset_transfers()
    out = builds[case](to_gpu, "cupy")
    assert cp.INDEX_WRAPS["count"] == 0, f"{case}: an out-of-bounds index was wrapped on the device"
    np.testing.assert_allclose(_dense(out), ref, rtol=1e-12, atol=1e-12)


def test_user_indices_are_checked_on_the_host_in_the_gpu_field(cupy_standin_module):
    """An out-of-range index from the user is refused in the cupy field as in the numpy field,
    before anything reaches the device (where it would wrap)."""
    from isomat.algebra import logical_matrix
    from isomat.algebra.spm import spm_layer

    cp = cupy_standin_module
    cp.reset_transfers()
    for backend in ("numpy", "cupy"):
        with pytest.raises(ValueError, match=r"\[1, k\]"):
            logical_matrix([1, 3], 2, backend=backend)
        with pytest.raises(ValueError, match="indices in"):
            spm_layer(4, [np.array([[0, 1], [2, 4]])], np.zeros((1, 2)), backend=backend)
    assert cp.INDEX_WRAPS["count"] == 0


# -- assigning host data into a device array -----------------------------------------------------
def test_setitem_from_the_host_as_cupy_does(cupy_standin_module):
    """CuPy 14.2 (_routines_indexing.pyx, _scatter_op): a basic-index assignment of host data goes
    through fill(), scalars only -- a host array or a list is a ValueError; an integer- or boolean-
    array assignment copies a host value to the device."""
    cp = cupy_standin_module
    a = cp.zeros(4)
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        a[1:3] = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="fill"):
        a[...] = [1.0, 2.0, 3.0, 4.0]
    a[1:3] = 5.0  # a scalar is fine
    a[0] = np.float64(7.0)
    a[3:] = np.array(9.0)  # so is a 0-d host array
    np.testing.assert_array_equal(a.get(), [7, 5, 5, 9])
    a[1:3] = cp.asarray(np.array([1.0, 2.0]))  # a device value
    idx = cp.asarray(np.array([0, 3]))
    cp.reset_transfers()
    a[idx] = np.array([-1.0, -2.0])  # advanced: copied to the device
    assert cp.TRANSFERS["h2d_bytes"] == 16
    a[a.get() > 1.5] = 0.0
    np.testing.assert_array_equal(a.get(), [-1, 1, 0, -2])


def test_compressed_constructors_read_their_own_format(cupy_standin_module):
    """(data, indices, indptr) is CSC for csc_matrix and CSR for csr_matrix, as in CuPy; coo_matrix
    refuses it ('invalid input format')."""
    cp = cupy_standin_module
    cpx = sys.modules["cupyx.scipy.sparse"]
    D = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    for cls, host in ((cpx.csr_matrix, sp.csr_matrix(D)), (cpx.csc_matrix, sp.csc_matrix(D))):
        M = cls((cp.asarray(host.data), cp.asarray(host.indices), cp.asarray(host.indptr)), shape=D.shape)
        assert M.format == host.format
        np.testing.assert_array_equal(M.toarray().get(), D)
    h = sp.csr_matrix(D)
    with pytest.raises(TypeError, match="invalid input format"):
        cpx.coo_matrix((cp.asarray(h.data), cp.asarray(h.indices), cp.asarray(h.indptr)), shape=D.shape)


# -- cupy.RawKernel: the CUDA source compiled for the host (cupy/_core/raw.pyx, cuda/function.pyx) ---
_SAXPY = r'''
extern "C" __global__ void saxpy(const double* x, double* y, double a, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
    y[i] += a * x[i];
}
'''


def test_raw_kernel_runs_the_cuda_source_per_thread(cupy_standin_module):
    cp = cupy_standin_module
    k = cp.RawKernel(_SAXPY, "saxpy")
    x, y = cp.arange(10, dtype=cp.float64), cp.ones(10)
    k((2,), (3,), (x, y, 2.0, 10))  # 6 threads, grid-stride: every i once; Python float/int pass as float64/int64
    np.testing.assert_array_equal(y.get(), 1.0 + 2.0 * np.arange(10))
    # a view is passed as its data pointer, strides ignored (RawKernel ignores views, as CuPy says)
    z = cp.zeros(4)
    k((1,), (4,), (x[::2], z, np.float64(1.0), np.int64(4)))
    np.testing.assert_array_equal(z.get(), [0.0, 1.0, 2.0, 3.0])
    # a size-one host array passes by value
    z2 = cp.zeros(3)
    k((1,), (1,), (x, z2, np.array([3.0]), np.array(3, dtype=np.int64)))
    np.testing.assert_array_equal(z2.get(), [0.0, 3.0, 6.0])


def test_raw_kernel_refuses_what_cupy_or_the_device_refuses(cupy_standin_module):
    cp = cupy_standin_module
    k = cp.RawKernel(_SAXPY, "saxpy")
    x, y = cp.ones(4), cp.ones(4)
    with pytest.raises(TypeError, match="Only numpy.ndarrays of size one can be passed by value"):
        k((1,), (4,), (np.ones(4), y, 1.0, 4))
    with pytest.raises(TypeError, match="expected tuple, got int"):
        k(1, (4,), (x, y, 1.0, 4))
    with pytest.raises(RuntimeError, match="invalid argument"):
        k((1,), (2048,), (x, y, 1.0, 4))  # over 1024 threads a block
    # an int32 where the kernel declares long long: a device misreads it, the stand-in refuses it
    with pytest.raises(TypeError, match=r"argument 3 is a int32 scalar \(4 bytes\) but the parameter is 'long long'"):
        k((1,), (4,), (x, y, 1.0, np.int32(4)))
    with pytest.raises(TypeError, match="takes 4 arguments, 3 given"):
        k((1,), (4,), (x, y, 1.0))
    with pytest.raises(RuntimeError, match="named symbol not found"):
        cp.RawKernel(_SAXPY, "daxpy")((1,), (1,), (x, y, 1.0, 4))
    atomic = 'extern "C" __global__ void f(double* y) { atomicAdd(y, 1.0); }'
    with pytest.raises(NotImplementedError, match="atomic"):
        cp.RawKernel(atomic, "f")((1,), (1,), (y,))
    np.testing.assert_array_equal(y.get(), np.ones(4))  # nothing above ran the kernel


_ROTATE = '''extern "C" __global__ void rot(const double* x, double* y, double* before) {
  extern __shared__ double s[];
  const unsigned t = threadIdx.x, n = blockDim.x;
  before[blockIdx.x * n + t] = s[t];  /* shared memory starts undefined: NaN here */
  s[t] = x[blockIdx.x * n + t];
  __syncthreads();
  y[blockIdx.x * n + t] = s[(t + 1) % n];  /* written by the next thread: only after the barrier */
}'''


def test_raw_kernel_threads_of_a_block_meet_at_syncthreads(cupy_standin_module):
    cp = cupy_standin_module
    x = cp.arange(12, dtype=cp.float64)
    y, before = cp.zeros(12), cp.zeros(12)
    cp.RawKernel(_ROTATE, "rot")((3,), (4,), (x, y, before), shared_mem=4 * 8)
    np.testing.assert_array_equal(y.get(), np.roll(np.arange(12.0).reshape(3, 4), -1, axis=1).ravel())
    assert np.isnan(before.get()).all()
