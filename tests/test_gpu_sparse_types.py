"""Issue 15, item 4: the sparse type of each field, and every behaviour in which they differ.

The CPU field returns ``scipy.sparse`` *arrays* (``csr_array``...); the GPU field returns
``cupyx.scipy.sparse`` *matrices* (``csr_matrix``...): CuPy 14.1, the oldest CuPy isomat
supports, has no sparse array classes (they arrived in 14.2). Each difference documented in
``isomat/gpu/__init__.py`` and ``docs/gpu.md`` is exercised here on both fields, the GPU one through
the stand-in (``tests/cupy_standin``), whose ``*_matrix`` classes imitate CuPy's
(``cupyx/scipy/sparse/_base.py``, identical for these operations in 14.1 and 14.2) -- so that a
stand-in that drifts from CuPy, or an isomat that changes its sparse type, fails here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from isomat.algebra import projection
from isomat.gpu import is_cupy_array, is_cupy_sparse, to_cpu, to_gpu

pytestmark = pytest.mark.standin

ROOT = Path(__file__).resolve().parent.parent
M, N = 4, 6


@pytest.fixture
def pair(cupy_standin_module):
    """The same operator in both fields: (CPU csr_array, GPU csr_matrix, dense reference)."""
    cpu = projection(N, M)
    gpu = projection(N, M, backend="cupy")
    return cpu, gpu, cpu.toarray()


def test_each_field_has_one_sparse_type(pair):
    cpu, gpu, _ = pair
    assert isinstance(cpu, sp.csr_array) and isinstance(cpu, sp.sparray) and not isinstance(cpu, sp.spmatrix)
    cpx = sys.modules["cupyx.scipy.sparse"]
    assert type(gpu) is cpx.csr_matrix and is_cupy_sparse(gpu)
    assert cpx.issparse(gpu) and not sp.issparse(gpu)  # SciPy does not recognise device matrices
    for fmt in ("csr", "csc", "coo"):
        assert type(projection(N, M, backend="cupy", format=fmt)).__name__ == f"{fmt}_matrix"
        assert type(projection(N, M, format=fmt)).__name__ == f"{fmt}_array"


def test_star_with_a_vector_is_the_product_on_gpu_and_elementwise_on_cpu(pair, cupy_standin_module):
    cp = cupy_standin_module
    cpu, gpu, D = pair
    x = np.arange(1.0, N + 1)
    g = gpu * cp.asarray(x)  # matrix: the matrix-vector product
    assert is_cupy_array(g) and g.shape == (M,)
    np.testing.assert_allclose(g.get(), D @ x)
    c = cpu * x  # array: broadcast elementwise product, a sparse (M, N) result
    assert sp.issparse(c) and c.shape == (M, N)
    np.testing.assert_allclose(c.toarray(), D * x)


def test_star_between_sparse_operands(pair):
    cpu, gpu, D = pair
    g = gpu.T * gpu  # matrix: product (N, N)
    assert is_cupy_sparse(g) and g.shape == (N, N)
    np.testing.assert_allclose(g.toarray().get(), D.T @ D)
    c = cpu * cpu  # array: Hadamard product, same shape
    assert c.shape == (M, N)
    np.testing.assert_allclose(c.toarray(), D * D)
    with pytest.raises(ValueError):
        cpu.T * cpu  # shapes (N, M) and (M, N) do not broadcast elementwise


def test_dense_on_the_left_of_star(pair, cupy_standin_module):
    cp = cupy_standin_module
    cpu, gpu, D = pair
    y = np.arange(1.0, M + 1)
    g = cp.asarray(y) * gpu  # matrix: y @ A (CuPy's ndarray defers to the sparse __rmul__)
    assert is_cupy_array(g) and g.shape == (N,)
    np.testing.assert_allclose(g.get(), y @ D)
    Y = np.ones((2, M))
    np.testing.assert_allclose((cp.asarray(Y) * gpu).get(), Y @ D)
    z = np.arange(1.0, N + 1)
    np.testing.assert_allclose((z * cpu).toarray(), z * D)  # array: elementwise


def test_at_is_the_product_in_both_fields_and_refuses_scalars(pair, cupy_standin_module):
    cp = cupy_standin_module
    cpu, gpu, D = pair
    x = np.arange(1.0, N + 1)
    np.testing.assert_allclose((gpu @ cp.asarray(x)).get(), D @ x)
    np.testing.assert_allclose(cpu @ x, D @ x)
    np.testing.assert_allclose((gpu @ gpu.T).toarray().get(), D @ D.T)
    np.testing.assert_allclose((cpu @ cpu.T).toarray(), D @ D.T)
    with pytest.raises(ValueError, match="Scalar operands are not allowed"):
        gpu @ 2.0
    with pytest.raises(ValueError, match="Scalar operands are not allowed"):
        cpu @ 2.0
    np.testing.assert_allclose((gpu * 2.0).toarray().get(), 2 * D)  # a scalar scales with * in both
    np.testing.assert_allclose((cpu * 2.0).toarray(), 2 * D)


@pytest.mark.parametrize("axis, gpu_shape, cpu_shape", [
    (0, (1, N), (N,)), (1, (M, 1), (M,)), (-1, (M, 1), (M,)), (None, (), ()),
])
def test_sum_keeps_two_dimensions_on_gpu(pair, axis, gpu_shape, cpu_shape):
    cpu, gpu, D = pair
    g = gpu.sum(axis=axis)
    assert is_cupy_array(g) and type(g).__name__ == "ndarray" and g.shape == gpu_shape  # not numpy.matrix
    c = cpu.sum(axis=axis)
    assert np.shape(c) == cpu_shape and not isinstance(c, np.matrix)
    want = D.sum(axis=axis)
    np.testing.assert_allclose(np.ravel(g.get()), np.ravel(want))
    np.testing.assert_allclose(np.ravel(c), np.ravel(want))


def test_dense_views(pair):
    cpu, gpu, D = pair
    for g in (gpu.toarray(), gpu.todense()):
        assert is_cupy_array(g) and g.shape == (M, N)
        np.testing.assert_array_equal(g.get(), D)
    assert isinstance(cpu.toarray(), np.ndarray) and cpu.toarray().shape == (M, N)
    with pytest.warns(DeprecationWarning, match="toarray"):
        a = gpu.A  # matrix: .A exists, deprecated in CuPy
    np.testing.assert_array_equal(a.get(), D)
    assert not hasattr(cpu, "A")  # array: no .A


def test_transpose_keeps_the_kind(pair):
    cpu, gpu, D = pair
    assert type(gpu.T).__name__ == "csc_matrix" and gpu.T.shape == (N, M)
    assert type(cpu.T).__name__ == "csc_array" and cpu.T.shape == (N, M)
    np.testing.assert_array_equal(gpu.T.toarray().get(), D.T)


def test_get_gives_a_scipy_matrix_and_to_cpu_an_array(pair):
    cpu, gpu, D = pair
    h = gpu.get()
    assert isinstance(h, sp.csr_matrix) and isinstance(h, sp.spmatrix) and not isinstance(h, sp.sparray)
    assert not hasattr(cpu, "get")
    back = to_cpu(gpu)
    assert isinstance(back, sp.csr_array)
    np.testing.assert_array_equal(back.toarray(), D)
    assert type(to_gpu(cpu)).__name__ == "csr_matrix"


def test_power_is_the_matrix_power_on_gpu(pair):
    cpu, gpu, D = pair
    S = gpu @ gpu.T  # square (M, M)
    np.testing.assert_allclose((S ** 2).toarray().get(), (D @ D.T) @ (D @ D.T))
    C = cpu @ cpu.T
    np.testing.assert_allclose((C ** 2).toarray(), (D @ D.T) ** 2)  # array: elementwise


def test_the_portable_spellings_agree(pair, cupy_standin_module):
    """What docs/gpu.md recommends for code that runs in both fields gives the same numbers."""
    cp = cupy_standin_module
    cpu, gpu, D = pair
    x = np.arange(1.0, N + 1)
    np.testing.assert_allclose((gpu @ cp.asarray(x)).get(), cpu @ x)
    np.testing.assert_allclose(gpu.multiply(gpu).toarray().get(), cpu.multiply(cpu).toarray())
    np.testing.assert_allclose(gpu.sum(axis=1).ravel().get(), cpu.sum(axis=1))
    np.testing.assert_allclose(to_cpu(gpu).sum(axis=1), cpu.sum(axis=1))


def test_the_differences_are_documented():
    text = (ROOT / "docs" / "gpu.md").read_text(encoding="utf-8")
    doc = __import__("isomat.gpu", fromlist=["x"]).__doc__
    for needle in ("csr_matrix", "csr_array", "A * x", "A * B", "x * A", "sum(axis=1)", ".A", ".get()",
                   "A ** 2", "@", "14.2"):
        assert needle in text, f"docs/gpu.md does not mention {needle!r}"
        assert needle in doc, f"isomat.gpu's docstring does not mention {needle!r}"


def test_the_standin_has_no_sparse_array_classes(cupy_standin_module):
    """CuPy 14.2 has csr_array & co., 14.1 -- which isomat supports -- has not: the stand-in leaves
    them out so that a GPU-field code path that reached for them fails here, not on a 14.1 install.
    When isomat requires 14.2 and moves the GPU field to sparse arrays, add them to the stand-in."""
    cpx = sys.modules["cupyx.scipy.sparse"]
    for name in ("csr_array", "csc_array", "coo_array", "sparray"):
        assert not hasattr(cpx, name), name
