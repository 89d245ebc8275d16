"""isomat.algebra.projection against the printed Kronecker formula (cheng2025 eq. 22)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import isomat
from isomat.algebra import projection
from isomat.testing import assert_matches_dense, dottest

from .conftest import to_host


def kron_reference(m: int, n: int) -> np.ndarray:
    """Eq. (22) with np.kron: shares no code with the construction."""
    t = math.lcm(m, n)
    left = np.kron(np.eye(n), np.ones((1, t // n)))
    right = np.kron(np.eye(m), np.ones((t // m, 1)))
    return (n / t) * left @ right


@given(st.integers(1, 40), st.integers(1, 40))
def test_equals_kronecker_formula(m, n):
    P = projection(m, n)
    assert P.shape == (n, m)
    assert P.nnz == n + m - math.gcd(m, n)
    assert_matches_dense(P, kron_reference(m, n), rtol=1e-14, atol=1e-15)


@given(st.integers(1, 9), st.integers(1, 9))
def test_exact_field_is_rational_and_exact(m, n):
    P = projection(m, n, backend="sympy")
    assert isinstance(P, sympy.SparseMatrix)
    assert all(isinstance(v, sympy.Rational) for v in P.values())
    t = math.lcm(m, n)
    ref = sympy.Rational(n, t) * sympy.kronecker_product(sympy.eye(n), sympy.ones(1, t // n)) * \
        sympy.kronecker_product(sympy.eye(m), sympy.ones(t // m, 1))
    assert P == ref


def test_fields_agree(field):
    P = to_host(projection(6, 4, backend=field)).astype(float)
    np.testing.assert_allclose(P, kron_reference(6, 4), rtol=1e-14)


@given(st.integers(1, 200), st.integers(1, 200))
def test_dottest(m, n):
    dottest(projection(m, n), rng=m * 1000 + n)


def test_index_dtype_int32_when_it_fits():
    op = projection(1000, 999, format="operator")
    assert op.rows.dtype == np.int32 and op.cols.dtype == np.int32


def test_large_coprime_sizes_never_build_lcm():
    # lcm = 999_983 * 1_000_003 ~ 1e12: only n + m - 1 entries are ever allocated
    P = projection(999_983, 1_000_003)
    assert P.nnz == 999_983 + 1_000_003 - 1
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize(
    "args, kwargs, exc, words",
    [
        ((0, 3), {}, ValueError, "m must be a positive integer, got 0"),
        ((3, -2), {}, ValueError, "n must be a positive integer, got -2"),
        ((2.5, 3), {}, TypeError, "m must be an integer, got 2.5"),
        ((3, "4"), {}, TypeError, "n must be an integer"),
        ((True, 3), {}, TypeError, "m must be an integer"),
        ((3, 4), {"backend": "torch"}, ValueError, "backend must be one of"),
        ((3, 4), {"backend": None}, TypeError, "backend must be one of"),
        ((3, 4), {"format": "dense"}, ValueError, "format must be"),
    ],
)
def test_bad_arguments(args, kwargs, exc, words):
    with pytest.raises(exc, match=words.replace("(", r"\(").replace(")", r"\)")):
        projection(*args, **kwargs)


def test_cupy_backend_without_device_says_why():
    from isomat.gpu import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present; this checks the no-device message")
    with pytest.raises(RuntimeError, match="needs a usable GPU"):
        projection(3, 4, backend="cupy")


def test_memory_bound_refuses_with_size():
    with isomat.memory_limit(10_000):
        with pytest.raises(isomat.SizeLimitError, match=r"would need about .* over the memory bound"):
            projection(10_000, 7_000)
    assert isomat.get_memory_limit() == 2 * 1024**3
    P = projection(10_000, 7_000)  # fine again once the bound is restored
    assert P.shape == (7_000, 10_000)


@given(st.integers(1, 30), st.integers(1, 30))
def test_builder_equals_entry_rule(m, n):
    """The vectorized builder equals the scalar entry rule that cheng2025's proofs quantify over:
    Π^m_n[i, j] = projection_overlap(i, j, m, n) / m (overlap of [im, (i+1)m) and [jn, (j+1)n))."""
    import importlib

    rule = importlib.import_module("isomat.algebra.projection").projection_overlap
    P = projection(m, n, backend="sympy")
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    ov = rule(i, j, m, n)
    assert all(P[a, b] == sympy.Rational(int(ov[a, b]), m) for a in range(n) for b in range(m))
    assert rule(0, 0, 3, 2) == 2 and rule(1, 1, 3, 2) == 1 and rule(1, 0, 3, 2) == 0  # Π^3_2 = [[2/3, 1/3, 0], [0, 1/3, 2/3]]
