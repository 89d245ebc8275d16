"""isomat.export: every target round-trips (write or convert, read back, compare)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import sympy

from isomat import export
from isomat.algebra import as_operator, kron_operator, projection, projection_operator
from isomat.gpu import to_gpu


def _sample(rng_seed: int = 0):
    rng = np.random.default_rng(rng_seed)
    A = rng.standard_normal((3, 4)) * (rng.random((3, 4)) < 0.6)
    B = rng.standard_normal((2, 5)) * (rng.random((2, 5)) < 0.6)
    return kron_operator(A, B), np.kron(A, B)


def _inputs():
    op, dense = _sample()
    return {
        "operator": (op, dense),
        "scipy": (sp.csr_array(dense), dense),
        "scipy-matrix": (sp.coo_matrix(dense), dense),
        "dense": (dense, dense),
        "sympy": (projection(5, 3, backend="sympy"), projection(5, 3).toarray()),
    }


@pytest.mark.parametrize("kind", list(_inputs()))
def test_to_scipy(kind):
    A, dense = _inputs()[kind]
    for fmt in ("csr", "csc", "coo"):
        M = export.to_scipy(A, fmt)
        assert isinstance(M, sp.sparray) and M.format == fmt
        np.testing.assert_array_equal(M.toarray(), dense)


def test_duplicates_are_summed():
    op = projection_operator(1, 1)
    twice = type(op).build((1, 1), np.array([0, 0]), np.array([0, 0]), np.array([0.25, 0.5]), "numpy")
    M = export.to_scipy(twice)
    assert M.nnz == 1 and M[0, 0] == 0.75
    del op


@pytest.mark.parametrize("kind", list(_inputs()))
def test_matrix_market_round_trip(tmp_path, kind):
    A, dense = _inputs()[kind]
    p = export.to_matrix_market(A, tmp_path / "a.mtx", comment="seed 1")
    assert "seed 1" in p.read_text()
    back = export.read_matrix_market(p)
    np.testing.assert_array_equal(back.toarray(), dense)  # 17 digits: float64 is exact


@pytest.mark.parametrize("kind", list(_inputs()))
def test_npz_round_trip(tmp_path, kind):
    A, dense = _inputs()[kind]
    back = export.read_npz(export.to_npz(A, tmp_path / "a.npz"))
    np.testing.assert_array_equal(back.toarray(), dense)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_torch_round_trip(tmp_path, fmt):
    torch = pytest.importorskip("torch")
    A, dense = _sample(3)
    t = export.to_torch(A, fmt)
    assert t.layout == (torch.sparse_coo if fmt == "coo" else torch.sparse_csr)
    np.testing.assert_array_equal(t.to_dense().numpy(), dense)
    x = np.random.default_rng(0).standard_normal(dense.shape[1])
    np.testing.assert_allclose((t @ torch.from_numpy(x)).numpy(), dense @ x, rtol=1e-12)
    np.testing.assert_array_equal(export.from_torch(t).toarray(), dense)
    loaded = export.load_torch(export.save_torch(A, tmp_path / "a.pt", fmt))
    assert loaded.layout == t.layout
    np.testing.assert_array_equal(loaded.to_dense().numpy(), dense)
    with pytest.raises(ValueError, match="format"):
        export.to_torch(A, "bsr")


@pytest.fixture
def jax_x64():
    """JAX with 64-bit values enabled for the test, restored after."""
    jax = pytest.importorskip("jax", reason="jax is not installed (JAX BCOO export is optional)")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)


def test_jax_bcoo_round_trip(jax_x64):
    A, dense = _sample(4)
    M = export.to_jax_bcoo(A)
    assert M.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(M.todense()), dense)
    np.testing.assert_array_equal(export.from_jax_bcoo(M).toarray(), dense)


def test_jax_bcoo_refuses_silent_rounding():
    jax = pytest.importorskip("jax", reason="jax is not installed (JAX BCOO export is optional)")
    if jax.config.jax_enable_x64:
        pytest.skip("64-bit JAX is enabled in this process")
    A, dense = _sample(4)
    with pytest.raises(ValueError, match="float64 values, which JAX would round to 32 bits"):
        export.to_jax_bcoo(A)
    M = export.to_jax_bcoo(A, dtype=np.float32)  # asked for: rounded, and said so by the dtype
    assert M.dtype == np.float32
    np.testing.assert_allclose(np.asarray(M.todense()), dense, rtol=1e-6)


def test_dlpack_round_trip():
    A, dense = _sample(5)
    d = export.to_dlpack(A)
    assert hasattr(d, "__dlpack__")
    np.testing.assert_array_equal(export.from_dlpack(d), dense)
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(torch.from_dlpack(export.to_dlpack(sp.csr_array(dense))).numpy(), dense)


def test_device_data_is_exported_from_the_host(cupy_standin_module):
    A, dense = _sample(6)
    G = to_gpu(A)
    np.testing.assert_array_equal(export.to_scipy(G).toarray(), dense)
    np.testing.assert_array_equal(export.to_scipy(G.render()).toarray(), dense)
    np.testing.assert_array_equal(export.to_scipy(to_gpu(dense)).toarray(), dense)
    d = export.to_dlpack(G)
    assert type(d).__module__ == "cupy"  # stays on the device
    np.testing.assert_array_equal(d.get(), dense)


def test_exact_values_round_to_nearest_float(tmp_path):
    M = sympy.Matrix([[sympy.Rational(1, 3), 0], [0, 2]])
    back = export.read_npz(export.to_npz(M, tmp_path / "m.npz")).toarray()
    assert back[0, 0] == 1 / 3 and back[1, 1] == 2.0


def test_bad_input_is_named(tmp_path):
    with pytest.raises(TypeError, match="SparseOperator"):
        export.to_scipy(object())
    with pytest.raises(ValueError, match="format"):
        export.to_scipy(np.eye(2), "dia")
    with pytest.raises(ValueError, match=r"2-d"):
        export.to_scipy(np.ones(3))
    with pytest.raises(ValueError, match=r"\.mtx"):
        export.to_matrix_market(np.eye(2), tmp_path / "a.txt")
    with pytest.raises(ValueError, match="format"):
        export.write(np.eye(2), tmp_path / "a.csv")
    with pytest.raises(TypeError, match="__dlpack__"):
        export.from_dlpack([1, 2])
    assert as_operator(np.eye(2)).nnz == 2
