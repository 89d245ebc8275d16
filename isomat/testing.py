"""Test helpers for structured operators: the dot (adjoint) test and dense-reference equality.

Public so that users writing property-based tests for their own structured layers can reuse
them (after PyLops' ``dottest`` and linear_operator's "structured equals dense" mixin).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _host(x: Any) -> np.ndarray:
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        x = x.get()
    if hasattr(x, "toarray"):
        x = x.toarray()
        if hasattr(x, "get"):
            x = x.get()
    return np.asarray(x)


def dottest(A: Any, *, rng: np.random.Generator | int | None = 0, rtol: float = 1e-10,
            matvec: Any = None, rmatvec: Any = None) -> float:
    r"""Adjoint (dot) test :math:`\langle A x, y\rangle = \langle x, A^{\mathsf T} y\rangle`.

    ``A`` is anything with ``shape`` and ``@`` (SciPy/CuPy sparse, NumPy arrays), or give
    ``matvec`` and ``rmatvec`` callables for a matrix-free operator. Raises ``AssertionError``
    when the two inner products differ by more than ``rtol`` relative to their size; returns the
    relative difference.
    """
    rng = np.random.default_rng(rng)
    m, n = A.shape
    x = rng.standard_normal(n)
    y = rng.standard_normal(m)
    if matvec is None and type(A).__module__.startswith("cupy"):  # a device operator takes device vectors
        from .gpu import to_gpu

        x_dev, y_dev = to_gpu(x), to_gpu(y)
        lhs = float(np.dot(_host(A @ x_dev).ravel(), y))
        rhs = float(np.dot(x, _host(A.T @ y_dev).ravel()))
        return _dot_compare(lhs, rhs, rtol)
    fwd = matvec if matvec is not None else (lambda v: A @ v)
    adj = rmatvec if rmatvec is not None else (lambda v: A.T @ v)
    lhs = float(np.dot(_host(fwd(x)).ravel(), y))
    rhs = float(np.dot(x, _host(adj(y)).ravel()))
    return _dot_compare(lhs, rhs, rtol)


def _dot_compare(lhs: float, rhs: float, rtol: float) -> float:
    scale = max(abs(lhs), abs(rhs), 1e-300)
    rel = abs(lhs - rhs) / scale
    if rel > rtol:
        raise AssertionError(f"dot test failed: <Ax, y> = {lhs!r}, <x, A^T y> = {rhs!r}, relative difference {rel:.3e} > {rtol:g}")
    return rel


def assert_matches_dense(structured: Any, dense: Any, *, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    """Every structured rendering equals its dense reference (exactly for SymPy input)."""
    import sympy

    if isinstance(structured, sympy.MatrixBase) or isinstance(dense, sympy.MatrixBase):
        S, D = sympy.Matrix(structured), sympy.Matrix(dense)
        if S.shape != D.shape:
            raise AssertionError(f"shape {S.shape} != reference shape {D.shape}")
        diff = (S - D).applyfunc(sympy.simplify)
        if not diff.is_zero_matrix:
            raise AssertionError(f"exact mismatch:\n{diff}")
        return
    S, D = _host(structured), _host(dense)
    if S.shape != D.shape:
        raise AssertionError(f"shape {S.shape} != reference shape {D.shape}")
    np.testing.assert_allclose(S, D, rtol=rtol, atol=atol)
