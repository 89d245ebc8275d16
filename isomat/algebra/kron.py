r"""Kronecker products as sparse operators (the shared core for do2017 and reneau2025).

:math:`(A\otimes B)_{(i_a r + i_b),\,(j_a s + j_b)} = a_{i_a j_a}\, b_{i_b j_b}` for
:math:`A\in\mathcal M_{p\times q}`, :math:`B\in\mathcal M_{r\times s}`: the pattern is the
outer combination of the factors' patterns, built without a dense intermediate.

With row-major ``vec`` (conventions.md), :math:`\operatorname{vec}(A X B) = (A\otimes B^{\mathsf T})\operatorname{vec}(X)`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import sympy

from .. import _validate
from .._types import DenseMatrix, FieldArray
from ._operator import Rendered
from . import _backend
from ._operator import SparseOperator, as_operator, check_bytes, check_size, render


def _is_matrix_object(f: Any) -> bool:
    """An array or matrix object (not a Python list of numbers): NumPy/CuPy/torch arrays, SymPy or SciPy
    matrices, SparseOperators."""
    return hasattr(f, "shape") and not isinstance(f, (list, tuple))


def kron_operator(*factors: Any, backend: str | None = None) -> SparseOperator:
    r"""The :class:`SparseOperator` of :math:`F_1\otimes F_2\otimes\cdots\otimes F_k`.

    Parameters
    ----------
    *factors : matrix
        NumPy/CuPy arrays, SymPy matrices, SciPy sparse arrays or SparseOperators -- or one list of
        them, ``kron_operator([A, B])`` (TensorLy's spelling).
    backend : {"sympy", "numpy", "cupy"}, optional
        Field of the result; default: the field of the inputs (SymPy in gives exact).
    """
    if len(factors) == 1 and isinstance(factors[0], (list, tuple)) and factors[0] and all(
            _is_matrix_object(f) for f in factors[0]):
        # TensorLy's habit, kron([A, B]): one list of matrices (a list of rows of numbers stays one matrix)
        factors = tuple(factors[0])
    if not factors:
        raise ValueError("kron_operator needs at least one factor")
    field = _backend.resolve_field(backend, *factors)
    for i, f in enumerate(factors):
        _check_factor(f"kron: factors[{i}]", f, field)  # a single factor is the result, never checked below
    ops = [as_operator(f, field=field, name=f"factors[{i}]") for i, f in enumerate(factors)]
    out = ops[0]
    for k, B in enumerate(ops[1:], 1):
        A = out
        shape = (A.shape[0] * B.shape[0], A.shape[1] * B.shape[1])
        check_size("kron", shape, A.nnz * B.nnz, field=field)
        dt = _backend.index_dtype(*shape)
        ra = A.rows.astype(dt)[:, None]
        ca = A.cols.astype(dt)[:, None]
        rows = (ra * B.shape[0] + B.rows.astype(dt)[None, :]).reshape(-1)
        cols = (ca * B.shape[1] + B.cols.astype(dt)[None, :]).reshape(-1)
        vals = (A.values[:, None] * B.values[None, :]).reshape(-1)
        out = SparseOperator.build(shape, rows, cols, vals, field)
    return out


def _check_factor(what: str, f: Any, field: str) -> None:
    """Refuse, before :func:`as_operator` gathers its nonzero entries, a factor whose operator would
    pass the memory bound (the entries counted without allocating: ``nnz`` of a sparse matrix,
    ``count_nonzero`` of a NumPy array, every entry of anything else)."""
    if isinstance(f, SparseOperator) or not hasattr(f, "shape") or len(tuple(f.shape)) != 2:
        return  # already built, or a list (small, or as_operator says what is wrong)
    shape = (int(f.shape[0]), int(f.shape[1]))
    if getattr(f, "nnz", None) is not None and not callable(f.nnz):
        nnz = int(f.nnz)
    elif isinstance(f, np.ndarray):
        nnz = int(np.count_nonzero(f))
    else:
        nnz = shape[0] * shape[1]
    check_size(what, shape, nnz, field=field)


def kron_entry(row: Any, col: Any, a: Any, b: Any, shape_b: tuple[Any, Any]) -> Any:
    r"""Entry rule of :func:`kron_operator` for two factors: entry ``(row, col)`` of :math:`A\otimes B` is

    .. math:: (A\otimes B)_{\mathrm{row},\mathrm{col}} = a_{\lfloor \mathrm{row}/r\rfloor,\,\lfloor \mathrm{col}/s\rfloor}\;
              b_{\mathrm{row} \bmod r,\,\mathrm{col} \bmod s},\qquad (r, s) = \text{shape of } B,

    the inverse of the builder's ``rows = ra * r + rb``, ``cols = ca * s + cb``. ``a(i, j)`` and ``b(i, j)`` are the
    factors' entry functions; written with :func:`~isomat.proofs.prover.fdiv` / ``fmod``, so the rule acts on Python
    ints, NumPy index arrays and Z3 terms alike (a nested call gives a product of several factors; the rule that the
    tests compare with :func:`kron_operator` is the one ``isomat.proofs.reneau2025`` proves about)."""
    from .._types import fdiv, fmod

    r, s = shape_b
    return a(fdiv(row, r), fdiv(col, s)) * b(fmod(row, r), fmod(col, s))


def kron(*factors: Any, backend: str | None = None, format: str = "csr") -> Rendered:
    """:math:`F_1\\otimes\\cdots\\otimes F_k` rendered in its field (see :func:`kron_operator`)."""
    return render(kron_operator(*factors, backend=backend), format)


# ---------------------------------------------------------------------------------------------
# Kronecker factorization (Van Loan & Pitsianis 1993; reneau2025 Appendix A: an NdLinear layer's
# flattened weight "implicitly has a Kronecker product structure")
# ---------------------------------------------------------------------------------------------
class KroneckerFactors(NamedTuple):
    """Result of :func:`nearest_kronecker`: ``W ≈ A ⊗ B`` with Frobenius ``residual``."""

    A: Any
    B: Any
    residual: Any


def _check_work(what: str, W: Any, *, svd: str = "", shapes: Any = None) -> None:
    r"""Refuse, before densifying ``W``, work that would pass the memory bound: the dense copy of a
    sparse (or SymPy) ``W``, its rearrangement (a copy), and for ``svd="values"`` LAPACK's copy of it,
    for ``svd="vectors"`` that copy and the thin factors U, Vt (measured: ``kronecker_rank`` of a
    4000x4000 sparse matrix peaked at 376 MB, three 128 MB copies).

    ``shapes`` are the factor shapes: the rearrangement of split k is
    :math:`(m_kn_k)\times\prod_{j>k}m_jn_j`, so its SVD's factors depend on them, not on ``W``'s shape
    (a 1 x 10^8 ``W`` split into two 1 x 10^4 factors has a 10^4 x 10^4 rearrangement); the largest
    split is counted (one SVD is held at a time)."""
    shape = getattr(W, "shape", None)
    if shape is None or len(tuple(shape)) != 2:
        return  # a list: as_values says what is wrong, or it is small
    m, n = int(shape[0]), int(shape[1])
    exact = isinstance(W, sympy.MatrixBase) or (isinstance(W, SparseOperator) and W.field == "sympy") or \
        getattr(getattr(W, "dtype", None), "kind", "") == "O"
    item = 16 if exact or getattr(getattr(W, "dtype", None), "kind", "") == "c" else 8
    copies = 1 if isinstance(W, np.ndarray) else 2  # the rearrangement; the dense copy of anything else
    need = copies * m * n * item
    if svd and not exact:
        try:
            sizes = [math.prod(a) for a in (_pair(f"shapes[{i}]", s) for i, s in enumerate(shapes))]
        except (TypeError, ValueError):
            sizes = []  # the shapes are refused below, with their own message
        if math.prod(sizes) != m * n:
            sizes = []  # shapes that do not fit W: refused below, naming both
        splits = [(sizes[k], math.prod(sizes[k + 1:])) for k in range(len(sizes) - 1)] or [(m, n)]
        need += m * n * item
        if svd == "vectors":  # U (p x k), Vt (k x q) and LAPACK's work, k = min(p, q), at the largest split
            need += max(min(p, q) * (p + q + 4 * min(p, q)) for p, q in splits) * item
    check_bytes(what, need, f"a dense {m}x{n} W (its rearrangement{' and SVD' if svd and not exact else ''})")


#: Work bounds of exact ranks (issue 24 item 7: ``kronecker_rank`` of a 9x9 symbolic matrix ran past 90 s).
#: Measured 2026-11-26 (SymPy 1.14, one core): rational entries are ranked over QQ with
#: ``DomainMatrix.rank`` -- random 20x20 0.01 s, 50x50 0.5 s, 64x64 1.6 s, 100x100 14 s (``Matrix.rank(
#: simplify=True)`` took over 60 s at 20x20); entries with symbols go through ``Matrix.rank(simplify=True)``
#: -- generic 3x3 0.4 s, 4x4 1.7 s, 5x5 over 60 s. Past these (the smaller side of the rearrangement)
#: a ValueError asks for float input.
EXACT_RATIONAL_RANK_MAX = 64
EXACT_SYMBOLIC_RANK_MAX = 4


def _dense(W: Any, name: str, *, finite: bool = False) -> tuple[Any, str]:
    """``W`` as a dense 2-d value array of its field (object array of SymPy numbers when exact);
    ``finite``: float entries must be finite (for an SVD, which has no answer for NaN or inf and
    would fail inside LAPACK with "SVD did not converge")."""
    if isinstance(W, SparseOperator):
        W = W.todense()
    if hasattr(W, "toarray") and not isinstance(W, sympy.MatrixBase):
        W = W.toarray()
    if hasattr(W, "detach") and hasattr(W, "numpy"):  # a torch tensor
        W = W.detach().cpu().numpy()
    field = _backend.field_of(W)
    arr = _backend.as_values(W, field, name=name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (2-d), got an array of shape {tuple(arr.shape)}")
    if finite and field != "sympy":
        xp = _backend.array_module(field)
        bad = int((~xp.isfinite(arr)).sum())
        if bad:
            raise ValueError(f"{name} must have finite entries (its singular values decide the structure), "
                             f"got {bad} NaN or infinite of {arr.size}")
    return arr, field


def _pair(name: str, value: Any) -> tuple[int, int]:
    return _validate.shape(name, value, ndim=2)  # type: ignore[return-value]


def kron_rearrange(W: Any, shape_a: Any, shape_b: Any) -> DenseMatrix:
    r"""The Van Loan--Pitsianis rearrangement :math:`\mathcal R(W)` of ``W``.

    For :math:`W\in\mathcal M_{m_1m_2\times n_1n_2}` split into :math:`m_1\times n_1` blocks
    :math:`W_{i_1j_1}\in\mathcal M_{m_2\times n_2}`, row :math:`i_1n_1+j_1` of
    :math:`\mathcal R(W)` is the row-major ``vec`` of block :math:`W_{i_1j_1}`, so that

    .. math:: \mathcal R(A\otimes B) = \operatorname{vec}(A)\,\operatorname{vec}(B)^{\mathsf T},
       \qquad \lVert W - A\otimes B\rVert_F
       = \lVert \mathcal R(W) - \operatorname{vec}(A)\operatorname{vec}(B)^{\mathsf T}\rVert_F .

    Parameters
    ----------
    W : matrix
        NumPy/CuPy array, SymPy matrix or sparse matrix of shape ``(m1*m2, n1*n2)``.
    shape_a, shape_b : tuple of int
        ``(m1, n1)`` and ``(m2, n2)``.

    Returns
    -------
    array of shape ``(m1*n1, m2*n2)`` in ``W``'s field (a ``sympy.Matrix`` for exact input).
    """
    _check_work("kron_rearrange", W)
    arr, field = _dense(W, "W")
    R = _rearranged(arr, _pair("shape_a", shape_a), _pair("shape_b", shape_b))
    return sympy.Matrix(R.tolist()) if field == "sympy" else R


def kron_rearrange_entry(row: Any, col: Any, w: Any, shape_a: tuple[Any, Any], shape_b: tuple[Any, Any]) -> Any:
    r"""Entry rule of :func:`kron_rearrange`: :math:`\mathcal R(W)_{i_1n_1+j_1,\;i_2n_2+j_2} = W_{i_1m_2+i_2,\;j_1n_2+j_2}`
    with ``(m1, n1) = shape_a``, ``(m2, n2) = shape_b`` and ``w(i, j)`` the entry function of ``W``; written with
    :func:`~isomat.proofs.prover.fdiv` / ``fmod`` (ints, NumPy index arrays and Z3 terms alike)."""
    from .._types import fdiv, fmod

    (_, n1), (m2, n2) = shape_a, shape_b
    return w(fdiv(row, n1) * m2 + fdiv(col, n2), fmod(row, n1) * n2 + fmod(col, n2))


def _rearranged(arr: Any, sa: tuple[int, int], sb: tuple[int, int]) -> FieldArray:
    (m1, n1), (m2, n2) = sa, sb
    if tuple(arr.shape) != (m1 * m2, n1 * n2):
        raise ValueError(
            f"W must have shape (shape_a[0]*shape_b[0], shape_a[1]*shape_b[1]) = {(m1 * m2, n1 * n2)} "
            f"for shape_a={sa}, shape_b={sb}, got {tuple(arr.shape)}"
        )
    return arr.reshape(m1, m2, n1, n2).transpose(0, 2, 1, 3).reshape(m1 * n1, m2 * n2)


def _exact_rank(R: np.ndarray) -> int:
    """Exact rank of an object array of SymPy numbers, refused past the work bounds above."""
    p, q = R.shape
    k = min(p, q)  # >= 1: the callers' shapes are validated positive, so R is never empty
    rational = all(isinstance(x, sympy.Rational) for x in R.reshape(-1))
    bound = EXACT_RATIONAL_RANK_MAX if rational else EXACT_SYMBOLIC_RANK_MAX
    if k > bound:
        raise ValueError(
            f"the exact rank of the {p}x{q} rearrangement of W ({'rational' if rational else 'symbolic'} entries) "
            f"is refused: SymPy's elimination past {bound}x{bound} may run for minutes or hours "
            f"(isomat.algebra.kron.EXACT_{'RATIONAL' if rational else 'SYMBOLIC'}_RANK_MAX); pass a float array "
            f"(e.g. numpy.array(W, dtype=float)) for the SVD answer")
    if rational:
        from sympy.polys.matrices import DomainMatrix

        return int(DomainMatrix.from_Matrix(sympy.Matrix(R.tolist())).convert_to(sympy.QQ).rank())
    return int(sympy.Matrix(R.tolist()).rank(simplify=True))


def _float_rank(R: Any, tol: float | None) -> int:
    xp = np if isinstance(R, np.ndarray) else _backend.array_module("cupy")
    s = _backend.to_numpy(xp.linalg.svd(R, compute_uv=False))  # R is never empty (positive shapes): s[0] exists
    cut = (tol if tol is not None else max(R.shape) * np.finfo(np.float64).eps) * float(s[0])
    return int(np.count_nonzero(s > cut))


def kronecker_rank(W: Any, shape_a: Any, shape_b: Any, *, tol: float | None = None) -> int:
    r"""Kronecker rank of ``W``: the least :math:`r` with :math:`W=\sum_{i=1}^r A_i\otimes B_i`.

    It equals :math:`\operatorname{rank}\mathcal R(W)` (Van Loan & Pitsianis), computed exactly
    (fraction-free rank of the SymPy matrix) for exact input and from the singular values of
    :math:`\mathcal R(W)` for float input: singular values above ``tol * s_max`` count
    (default ``tol = max(shape) * eps``).
    """
    tol = _validate.tolerance("tol", tol)  # NaN used to pass (every singular value then counted as 0)
    _check_work("kronecker_rank", W, svd="values", shapes=(shape_a, shape_b))
    arr, field = _dense(W, "W", finite=True)
    R = _rearranged(arr, _pair("shape_a", shape_a), _pair("shape_b", shape_b))
    return _exact_rank(R) if field == "sympy" else _float_rank(R, tol)


def is_kronecker(W: Any, shape_a: Any, shape_b: Any, *, tol: float | None = None) -> bool:
    r"""Whether :math:`W = A\otimes B` for some :math:`A` of ``shape_a`` and :math:`B` of
    ``shape_b``; exact (rank of :math:`\mathcal R(W)` in the field of SymPy numbers) for exact
    input, up to ``tol`` (see :func:`kronecker_rank`) for float input."""
    return kronecker_rank(W, shape_a, shape_b, tol=tol) <= 1


def _exact_rank_one(R: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact u, v with R = u vᵀ, or None when rank(R) > 1. Pivot on the first nonzero entry."""
    nz = [(i, j) for i in range(R.shape[0]) for j in range(R.shape[1]) if R[i, j] != 0]
    if not nz:
        return np.zeros(R.shape[0], dtype=object) * sympy.Integer(0), np.zeros(R.shape[1], dtype=object) * sympy.Integer(0)
    p, q = nz[0]
    u = R[:, q].copy()
    v = np.array([x / R[p, q] for x in R[p, :]], dtype=object)
    D = R - u[:, None] * v[None, :]
    if any(sympy.simplify(x) != 0 for x in D.reshape(-1)):
        return None
    return u, v


def nearest_kronecker(W: Any, shape_a: Any, shape_b: Any) -> KroneckerFactors:
    r"""Nearest Kronecker product :math:`\min_{A,B}\lVert W - A\otimes B\rVert_F`
    (Van Loan--Pitsianis).

    With :math:`\mathcal R(W)=\sum_i \sigma_i u_iv_i^{\mathsf T}` (see :func:`kron_rearrange`),
    :math:`\operatorname{vec}A=\sqrt{\sigma_1}u_1`, :math:`\operatorname{vec}B=\sqrt{\sigma_1}v_1`
    and the residual is :math:`\bigl(\sum_{i\ge2}\sigma_i^2\bigr)^{1/2}`.

    Parameters
    ----------
    W : matrix of shape ``(m1*m2, n1*n2)``
    shape_a, shape_b : ``(m1, n1)``, ``(m2, n2)``

    Returns
    -------
    KroneckerFactors
        ``(A, B, residual)``. Float input gives float factors (NumPy, or CuPy for CuPy input).
        Exact (SymPy) input is factored exactly when it *is* a Kronecker product (residual 0);
        otherwise the nearest factors involve irrational singular vectors and a ``ValueError``
        asks for float input.
    """
    _check_work("nearest_kronecker", W, svd="vectors", shapes=(shape_a, shape_b))
    arr, field = _dense(W, "W", finite=True)
    sa, sb = _pair("shape_a", shape_a), _pair("shape_b", shape_b)
    R = _rearranged(arr, sa, sb)
    if field == "sympy":
        uv = _exact_rank_one(R)
        if uv is None:
            raise ValueError(
                "W (exact) is not a Kronecker product for shape_a="
                f"{sa}, shape_b={sb} (rank of the rearrangement is {_exact_rank(R)}); the nearest "
                "factors are not rational -- pass a float array for the SVD solution"
            )
        u, v = uv
        return KroneckerFactors(sympy.Matrix(sa[0], sa[1], list(u)), sympy.Matrix(sb[0], sb[1], list(v)), sympy.Integer(0))
    xp = _backend.array_module(field)
    U, s, Vt = xp.linalg.svd(R, full_matrices=False)
    root = xp.sqrt(s[0])
    A = (root * U[:, 0]).reshape(sa)
    B = (root * Vt[0, :]).reshape(sb)
    # fix the sign gauge: make the largest-magnitude entry of A positive
    k = int(xp.argmax(xp.abs(A)))
    if float(A.reshape(-1)[k].real) < 0:
        A, B = -A, -B
    residual = float(xp.sqrt(xp.sum(s[1:] ** 2)))
    return KroneckerFactors(A, B, residual)


def kronecker_factors(W: Any, shapes: Any, *, tol: float | None = None) -> list[Any]:
    r"""Exact recovery of :math:`F_1,\dots,F_N` with :math:`W = F_1\otimes\cdots\otimes F_N`.

    Peels one factor at a time: :math:`W = F_1\otimes W'` is decided by
    :math:`\operatorname{rank}\mathcal R(W)\le 1` (exactly for SymPy input, up to ``tol`` for
    float input, see :func:`kronecker_rank`), then recurses on :math:`W'`. The factors are
    unique up to scalars :math:`c_k` with :math:`\prod c_k = 1`; the returned ones put the
    scale in the pivot normalisation (exact: at each split the row of the rearrangement's first
    nonzero entry, read row-major, is divided by that entry) or split it evenly (float: every factor
    has Frobenius norm :math:`\lVert W\rVert_F^{1/N}`; for :math:`W = 0` the first factor is zero
    and the others have norm 1; exact :math:`W = 0` gives zero factors).

    Parameters
    ----------
    W : matrix of shape ``(prod(m_k), prod(n_k))``
    shapes : sequence of ``(m_k, n_k)``
        One shape gives ``[W]``.
    tol : float, optional
        Relative cut of the singular values (float input), as in :func:`kronecker_rank`.

    Raises
    ------
    ValueError
        When ``W`` has no such structure (names the first split that fails and its rank).
    """
    if isinstance(shapes, (str, bytes)) or not hasattr(shapes, "__len__") or len(shapes) == 0:
        raise TypeError(f"shapes must be a non-empty sequence of (rows, cols) pairs, got {shapes!r}")
    shp = [_pair(f"shapes[{i}]", s) for i, s in enumerate(shapes)]
    tol = _validate.tolerance("tol", tol)
    _check_work("kronecker_factors", W, svd="vectors", shapes=shp)
    arr, field = _dense(W, "W", finite=True)
    want = (math.prod(s[0] for s in shp), math.prod(s[1] for s in shp))
    if tuple(arr.shape) != want:
        raise ValueError(f"W must have shape {want} for shapes={shp}, got {tuple(arr.shape)}")
    factors: list[Any] = []
    rest = arr
    for k in range(len(shp) - 1):
        sa = shp[k]
        sb = (rest.shape[0] // sa[0], rest.shape[1] // sa[1])
        R = _rearranged(rest, sa, sb)
        if field == "sympy":
            uv = _exact_rank_one(R)
            if uv is None:
                raise ValueError(f"W is not a Kronecker product of factors with shapes {shp}: "
                                 f"split {k} has rearrangement rank {_exact_rank(R)} > 1")
            u, v = uv
        else:
            r = _float_rank(R, tol)
            if r > 1:
                raise ValueError(f"W is not a Kronecker product of factors with shapes {shp} "
                                 f"(tol={tol}): split {k} has numerical rearrangement rank {r} > 1")
            xp = _backend.array_module(field)
            U, s, Vt = xp.linalg.svd(R, full_matrices=False)
            u, v = U[:, 0] * s[0], Vt[0, :]
            scale = float(xp.linalg.norm(u)) ** ((len(shp) - 1 - k) / (len(shp) - k)) if float(s[0]) > 0 else 1.0
            u, v = u / scale, v * scale
        factors.append(u.reshape(sa))
        rest = v.reshape(sb)
    factors.append(rest)
    if field == "sympy":
        return [sympy.Matrix(f.tolist()) for f in factors]
    return factors


__all__ = ["KroneckerFactors", "is_kronecker", "kron", "kron_operator", "kron_rearrange",
           "kronecker_factors", "kronecker_rank", "nearest_kronecker"]
