"""kron / kron_operator against np.kron and sympy.kronecker_product."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from isomat.algebra import kron
from isomat.testing import assert_matches_dense, dottest

mats = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
    lambda s: arrays(np.float64, s, elements=st.sampled_from([0.0, 1.0, -2.0, 0.5, 3.0]))
)


@given(mats, mats, mats)
def test_matches_np_kron(A, B, C):
    K = kron(A, B, C)
    assert_matches_dense(K, np.kron(np.kron(A, B), C))
    dottest(K, rng=1)


def test_exact_symbolic():
    a, b, c = sympy.symbols("a b c")
    A = sympy.Matrix([[a, 0], [1, b]])
    B = sympy.Matrix([[c, 2, 0]])
    assert kron(A, B) == sympy.kronecker_product(A, B)


def test_row_major_vec_identity():
    # conventions.md: vec_C(A X B) = (A ⊗ Bᵀ) vec_C(X)
    rng = np.random.default_rng(0)
    A, X, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(kron(A, B.T) @ X.ravel(), (A @ X @ B).ravel(), rtol=1e-12)
