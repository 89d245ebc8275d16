"""The GPU field: device probing, to_gpu/to_cpu, and the core constructions in the cupy field.

Parametrized over ``float_field``: ``numpy``, ``cupy-standin`` (the GPU glue on the CPU through
``tests/cupy_standin``) and ``cupy`` (a real device; skipped with the reason when none).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import scipy.sparse as sp
import sympy

from isomat.algebra import SparseOperator, as_operator, kron, projection
from isomat.gpu import gpu_status, is_cupy_array, is_cupy_sparse, to_cpu, to_gpu
from isomat.testing import assert_matches_dense, dottest

from . import cupy_standin
from .conftest import FLOAT_FIELDS, GPU_OK, _field_fixture, standin_modules, to_host


@pytest.fixture(params=FLOAT_FIELDS[1:])
def gpu_field(request):
    """Only the GPU field: the stand-in, and a real device when there is one."""
    yield from _field_fixture(request)


# -- the probe's reasons -------------------------------------------------------------------------
def test_no_cupy_reason(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    try:
        ok, reason = gpu_status(refresh=True)
        assert not ok and reason.startswith("no cupy"), reason
    finally:
        monkeypatch.undo()
        gpu_status(refresh=True)


def _variant(message: str) -> dict:
    """Stand-in modules whose ``cupy.zeros`` fails like a CUDA runtime error."""
    mods = dict(standin_modules())
    broken = types.ModuleType("cupy")
    broken.__dict__.update(mods["cupy"].__dict__)

    class CUDARuntimeError(RuntimeError):
        pass

    def zeros(*args, **kwargs):
        raise CUDARuntimeError(message)

    broken.zeros = zeros
    mods["cupy"] = broken
    return mods


@pytest.mark.parametrize("message, words", [
    ("cudaErrorNoDevice: no CUDA-capable device is detected", "no usable CUDA device"),
    ("cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
     "no usable CUDA driver"),
])
def test_import_is_not_a_usable_device(monkeypatch, message, words):
    mods = _variant(message)
    for name in cupy_standin.NAMES:
        monkeypatch.setitem(sys.modules, name, mods[name])
    try:
        ok, reason = gpu_status(refresh=True)
        assert not ok
        assert words in reason and "CUDARuntimeError" in reason, reason
        with pytest.raises(RuntimeError, match=words):
            projection(3, 2, backend="cupy")
    finally:
        monkeypatch.undo()
        gpu_status(refresh=True)


# -- the stand-in is as strict as a device -------------------------------------------------------
def test_standin_refuses_implicit_host_conversion(cupy_standin_module):
    cp = cupy_standin_module
    a = cp.arange(4.0)
    assert is_cupy_array(a) and type(a).__module__ == "cupy"
    with pytest.raises(TypeError, match="get"):
        np.asarray(a)
    with pytest.raises(TypeError):
        a + np.ones(4)
    with pytest.raises(TypeError):
        cp.concatenate([np.ones(2), np.ones(2)])
    with pytest.raises(TypeError):
        cp.asarray(np.array([sympy.Rational(1, 2)], dtype=object))
    np.testing.assert_array_equal(a.get(), np.arange(4.0))
    cpx = sys.modules["cupyx.scipy.sparse"]
    with pytest.raises(ValueError, match="cupy.ndarray"):
        cpx.coo_matrix((np.ones(2), (np.arange(2), np.arange(2))), shape=(2, 2))
    A = cpx.csr_matrix(sp.eye(3, format="csr"))
    with pytest.raises(TypeError):
        A @ np.ones(3)
    assert A.indices.dtype == np.int32


# -- to_gpu / to_cpu -----------------------------------------------------------------------------
def test_to_gpu_to_cpu_round_trips(gpu_field):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    d = to_gpu(x)
    assert is_cupy_array(d) and not isinstance(d, np.ndarray)
    np.testing.assert_array_equal(to_cpu(d), x)
    for fmt in ("csr", "coo", "csc"):
        S = sp.random_array((7, 5), density=0.4, rng=rng, format=fmt)
        G = to_gpu(S)
        assert is_cupy_sparse(G) and G.format == fmt
        back = to_cpu(G)
        assert isinstance(back, sp.sparray) and back.format == fmt
        np.testing.assert_array_equal(back.toarray(), S.toarray())
    G = to_gpu(sp.random_array((4, 4), density=0.5, rng=rng, format="csr"), format="coo")
    assert G.format == "coo"
    op = projection(5, 3, format="operator")
    g = to_gpu(op)
    assert isinstance(g, SparseOperator) and g.field == "cupy" and is_cupy_array(g.values)
    h = to_cpu(g)
    assert h.field == "numpy" and isinstance(h.values, np.ndarray)
    np.testing.assert_array_equal(h.to_scipy().toarray(), op.to_scipy().toarray())
    M = to_gpu(sympy.Matrix([[1, sympy.Rational(1, 2)]]))
    np.testing.assert_array_equal(to_cpu(M), [[1.0, 0.5]])
    assert to_cpu(x) is x
    with pytest.raises(TypeError, match="to_gpu"):
        to_gpu(object())
    with pytest.raises(ValueError, match="format"):
        to_gpu(x, format="dia")


def test_to_gpu_without_device_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    try:
        gpu_status(refresh=True)
        with pytest.raises(RuntimeError, match="no cupy"):
            to_gpu(np.ones(2))
    finally:
        monkeypatch.undo()
        gpu_status(refresh=True)


# -- the core in every float field ---------------------------------------------------------------
def _kron_ref(A, B):
    return np.kron(A, B)


def test_projection_renders_in_field(float_field):
    P = projection(7, 4, backend=float_field)
    if float_field == "cupy":
        assert is_cupy_sparse(P) and P.format == "csr"
        op = projection(7, 4, backend="cupy", format="operator")
        assert is_cupy_array(op.rows) and is_cupy_array(op.values)  # pattern built on the device
        assert is_cupy_array(op.todense())
    assert_matches_dense(to_host(P), projection(7, 4, backend="sympy").evalf(), rtol=1e-14)
    dottest(P, rtol=1e-12)


def test_kron_follows_input_field(float_field):
    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    if float_field == "cupy":
        Ad, Bd = to_gpu(A), to_gpu(B)
        K = kron(Ad, Bd)
        assert is_cupy_sparse(K)
        op = kron(Ad, Bd, format="operator")
        assert op.field == "cupy" and is_cupy_array(op.rows)
    else:
        K = kron(A, B)
    np.testing.assert_allclose(to_host(K), _kron_ref(A, B), rtol=1e-14)
    dottest(K)


def test_as_operator_across_fields(float_field):
    rng = np.random.default_rng(3)
    S = sp.random_array((6, 5), density=0.5, rng=rng, format="csr")
    D = S.toarray()
    src = to_gpu(S) if float_field == "cupy" else S
    op = as_operator(src)
    assert op.field == float_field
    np.testing.assert_allclose(to_host(op.render()), D)
    np.testing.assert_allclose(op.to_scipy().toarray(), D)  # device -> host rendering
    ex = as_operator(op, field="sympy").to_sympy()
    np.testing.assert_allclose(np.array(ex.tolist(), dtype=float), D)
    host = as_operator(op, field="numpy")
    assert host.field == "numpy" and isinstance(host.values, np.ndarray)
    dense_src = to_gpu(D) if float_field == "cupy" else D
    np.testing.assert_allclose(to_host(as_operator(dense_src).render()), D)


def test_spmv_matches_host_within_tolerance(float_field):
    """Sparse x dense products on a device may reorder sums (atomics): compare with tolerances."""
    rng = np.random.default_rng(4)
    S = sp.random_array((300, 200), density=0.05, rng=rng, format="csr")
    X = rng.standard_normal((200, 8))
    ref = S @ X
    A = to_gpu(S) if float_field == "cupy" else S
    Xd = to_gpu(X) if float_field == "cupy" else X
    out = to_cpu(A @ Xd)
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    out_t = to_cpu(A.T @ (to_gpu(ref) if float_field == "cupy" else ref))
    np.testing.assert_allclose(out_t, S.T @ ref, rtol=1e-12, atol=1e-10)


def test_standin_left_nothing_installed():
    """Runs after field-parametrized tests in this module: the stand-in must be gone."""
    mod = sys.modules.get("cupy")
    assert mod is None or not getattr(mod, "STANDIN", False)
    ok, reason = gpu_status(refresh=True)
    assert ok == GPU_OK, reason


def test_transfer_counter_catches_a_cpu_build(cupy_standin_module):
    """The families test asserts no pattern-sized host->device copy; a CPU build copied over fails it."""
    cp = cupy_standin_module
    cp.reset_transfers()
    op = projection(500, 300, format="operator")
    to_gpu(op)
    assert cp.TRANSFERS["h2d_bytes"] >= 4 * op.nnz
    cp.reset_transfers()
    projection(500, 300, backend="cupy", format="operator")
    assert cp.TRANSFERS["h2d_bytes"] < 4 * op.nnz


# ---------------------------------------------------------------------------------------------
# issue 15: the probe does real work with each library, and refuses a CuPy older than isomat needs
# ---------------------------------------------------------------------------------------------
def test_probe_runs_a_kernel_a_sparse_and_a_dense_product(cupy_standin_module):
    from isomat.gpu import gpu_status

    ok, reason = gpu_status(refresh=True)
    assert ok and "kernels, cuSPARSE and cuBLAS ran" in reason and "14.2" in reason


@pytest.mark.parametrize("break_what, words", [
    ("ElementwiseKernel", "cannot compile and run a kernel (NVRTC"),
    ("sparse", "cannot run a sparse product (cuSPARSE"),
    ("version", "older than the 14.1 isomat needs"),
])
def test_probe_names_what_is_missing(cupy_standin_module, monkeypatch, break_what, words):
    import sys

    from isomat.gpu import gpu_status

    cp = cupy_standin_module
    if break_what == "ElementwiseKernel":
        def broken(*a, **k):
            raise RuntimeError("nvrtc: cannot open libnvrtc.so.13")

        monkeypatch.setattr(cp, "ElementwiseKernel", broken)
    elif break_what == "sparse":
        sparse = sys.modules["cupyx.scipy.sparse"]

        def broken_csr(*a, **k):
            raise ImportError("libcusparse.so.12: cannot open shared object file")

        monkeypatch.setattr(sparse, "csr_matrix", broken_csr)
    else:
        monkeypatch.setattr(cp, "__version__", "13.6.0")
    ok, reason = gpu_status(refresh=True)
    assert not ok and words in reason, reason
    monkeypatch.undo()
    gpu_status(refresh=True)


def test_device_memory_guard_refuses_before_building(cupy_standin_module, monkeypatch):
    # issue 15: a cupy-field build whose temporaries exceed the device's free memory is a SizeLimitError
    from isomat.algebra import conv_matrix
    from isomat.errors import SizeLimitError

    cp = cupy_standin_module
    monkeypatch.setattr(cp.cuda.Device, "mem_info", property(lambda self: (10_000, 8 << 30)))
    with pytest.raises(SizeLimitError, match="free on the device"):
        conv_matrix((64, 64), cp.asarray(np.ones((3, 3))))
    monkeypatch.setattr(cp.cuda.Device, "mem_info", property(lambda self: (8 << 30, 8 << 30)))
    assert conv_matrix((64, 64), cp.asarray(np.ones((3, 3)))).shape == (62 * 62, 64 * 64)


def test_dlpack_from_the_device_stays_there_or_comes_home(cupy_standin_module):
    # issue 15: from_dlpack(to_dlpack(gpu operator)) used to call numpy.from_dlpack on device memory
    from isomat.algebra import conv_matrix
    from isomat.export import from_dlpack, to_dlpack

    cp = cupy_standin_module
    A = conv_matrix((6, 6), cp.asarray(np.arange(9.0).reshape(3, 3)), format="operator")
    d = to_dlpack(A)
    assert is_cupy_array(d) and d.__dlpack_device__()[0] == 2
    with pytest.raises(BufferError):
        np.from_dlpack(d)  # what the old from_dlpack did
    same = from_dlpack(d)
    assert is_cupy_array(same)
    host = from_dlpack(d, device="host")
    assert isinstance(host, np.ndarray)
    ref = conv_matrix((6, 6), np.arange(9.0).reshape(3, 3)).toarray()
    np.testing.assert_array_equal(host, ref)
    np.testing.assert_array_equal(from_dlpack(np.ones(3)), np.ones(3))  # host data: NumPy, as before
    with pytest.raises(ValueError, match="device must be one of"):
        from_dlpack(d, device="cuda")
