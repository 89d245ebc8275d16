r"""Cross-dimensional projection :math:`\Pi^m_n` (cheng2025, Definition 2.9 and eq. 22).

For :math:`x\in\mathbb{R}^m` and :math:`t=\operatorname{lcm}(m,n)`,

.. math::

    \Pi^m_n = \frac{n}{t}\,\bigl(I_n\otimes\mathbf 1^{\mathsf T}_{t/n}\bigr)
                         \bigl(I_m\otimes\mathbf 1_{t/m}\bigr)\in\mathcal M_{n\times m}.

Entry :math:`(i, j)` is :math:`n/t` times the overlap of the index blocks
:math:`[i\,t/n,(i+1)\,t/n)` and :math:`[j\,t/m,(j+1)\,t/m)` of :math:`\{0,\dots,t-1\}`, so the
pattern is read off the merged breakpoints of the two block partitions: exactly
:math:`n+m-\gcd(m,n)` stored entries, with no :math:`t`-sized intermediate.
"""

from __future__ import annotations

import math

import numpy as np
from typing import Any

from .. import _validate
from .._types import DenseMatrix, FieldArray, IndexTerm
from ._operator import Rendered
from . import _backend
from ._operator import SparseOperator, check_bytes, check_size, render, value_bytes


def _breakpoints(m: int, n: int, a: int, b: int, xp: Any, dt: Any) -> FieldArray:
    """Merged block boundaries {0, a, 2a, ..., ma} ∪ {0, b, ..., nb} (both end at t), sorted.

    When one grid refines the other (a | b or b | a) it is the finer grid itself (no sort)."""
    if b % a == 0:
        return xp.arange(m + 1, dtype=dt) * a
    if a % b == 0:
        return xp.arange(n + 1, dtype=dt) * b
    return xp.union1d(xp.arange(n + 1, dtype=dt) * b, xp.arange(m + 1, dtype=dt) * a)


def projection_operator(m: int, n: int, *, backend: str = "numpy") -> SparseOperator:
    r"""The pattern-plus-values form of :math:`\Pi^m_n`; see :func:`projection`.

    The values come from the proved entry rule :func:`projection_overlap` (``Π[i, j] = ov(i, j, m, n) / m``)
    at the positions that the merged breakpoints give; the positions are then complete, checked here in
    ``O(n + m)``: the rule is nonnegative and its row ``i`` sums to ``m`` over all ``j`` (both proved,
    ``cheng2025:beyond/row-stochastic``), so the stored (distinct) positions hold every nonzero of the rule
    exactly when their rule values sum to ``n m`` in all (one reduction). So the matrix returned is the rule's matrix
    at every size, not only where a test looked (an internal error otherwise)."""
    m = _validate.positive_int("m", m)
    n = _validate.positive_int("n", n)
    field = _validate.backend(backend)
    g = math.gcd(m, n)
    t = m // g * n
    nnz = n + m - g
    check_size("projection", (n, m), nnz, field=field)
    xp = _backend.array_module(field)
    row_block, col_block = t // n, t // m  # widths of the row and column blocks in 0..t-1
    # in the field's array module (the rule takes ints, NumPy or CuPy arrays and Z3 terms: a device build
    # stays on the device), int64: the rule's i * m and the breakpoints reach m n and t
    host = xp if field == "cupy" else np
    breaks = _breakpoints(m, n, col_block, row_block, host, host.int64)
    starts = breaks[:-1]
    rows = starts // row_block
    cols = starts // col_block
    ov = projection_overlap(rows, cols, m, n)  # the proved entry rule drives the values
    # starts are strictly increasing, so (rows, cols) are sorted and distinct; the rule's values are >= 0
    # and sum to n m over the whole matrix, so they sum to n m over the stored positions exactly when no
    # nonzero of the rule is missing from them (one scalar back from the device)
    if int(ov.sum()) != n * m:
        raise RuntimeError(f"projection({m}, {n}): internal error, the breakpoint pattern misses a nonzero of the entry rule")
    values = _backend.rational(xp.asarray(ov), m, field, xp)
    return SparseOperator.build((n, m), xp.asarray(rows), xp.asarray(cols), values, field, canonical=True)


def projection(m: int, n: int, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Projection matrix :math:`\Pi^m_n:\mathbb{R}^m\to\mathbb{R}^n` (cheng2025, eq. 22).

    :math:`\Pi^m_n x` is the point of :math:`\mathbb{R}^n` nearest to :math:`x` in the
    V-distance of eq. (19) (Proposition 2.10). Each row sums to one.

    Parameters
    ----------
    m : int
        Dimension of the input space (number of columns), positive.
    n : int
        Dimension of the target space (number of rows), positive.
    backend : {"numpy", "sympy", "cupy"}
        Field of the result: ``scipy.sparse`` float array, exact ``sympy.SparseMatrix`` with
        Rational entries, or ``cupyx.scipy.sparse`` matrix.
    format : {"csr", "csc", "coo", "operator"}
        Sparse format of a float result; ``"operator"`` returns the
        :class:`~isomat.algebra.SparseOperator` itself.

    Returns
    -------
    matrix
        ``n x m`` with ``n + m - gcd(m, n)`` stored entries.

    Examples
    --------
    >>> from isomat.algebra import projection
    >>> projection(3, 2, backend="sympy").tolist()
    [[2/3, 1/3, 0], [0, 1/3, 2/3]]
    """
    return render(projection_operator(m, n, backend=backend), format)


def projection_overlap(i: Any, j: Any, m: Any, n: Any) -> IndexTerm:
    r"""Entry rule of :math:`\Pi^m_n` (eq. 22), scaled: :math:`m\,\Pi^m_n[i, j]`.

    The length of :math:`[i\,m,(i+1)\,m)\cap[j\,n,(j+1)\,n)`, i.e. the overlap of row block
    :math:`[i/n,(i+1)/n)` and column block :math:`[j/m,(j+1)/m)` of :math:`[0, 1)` in units of
    :math:`1/(mn)`; no ``lcm`` is needed (the builder's blocks of width :math:`t/n`, :math:`t/m`
    are these scaled by :math:`t/(mn)`). Written with :func:`~isomat.proofs.prover.ite`, so it
    means the same on ints, NumPy arrays and Z3 terms; ``Π^m_n[i, j] = projection_overlap(i, j, m, n) / m``.
    """
    from .._types import index_operands, ite

    index_operands("projection_overlap", i=i, j=j, m=m, n=n)
    lo = ite(i * m >= j * n, i * m, j * n)
    hi = ite((i + 1) * m <= (j + 1) * n, (i + 1) * m, (j + 1) * n)
    return ite(hi > lo, hi - lo, 0)


def project_bytes(m: int, n: int, k: int, field: str = "numpy") -> int:
    """Bytes :func:`project` holds at its peak for an ``m x k`` input and ``n`` outputs: the merged
    breakpoints and their offsets (int64, ``m + n + 1`` each, several copies while ``union1d``
    sorts), the output positions, the prefix sums and padded input (``(m + 1) x k``), the gathered
    terms, their difference and the scaled result (``(n + 1) x k`` each)."""
    item = value_bytes(field)
    return 8 * (6 * (m + n + 2) + 4 * (n + 1)) + item * (2 * (m + 1) * k + 6 * (n + 1) * k)


def project(x: Any, n: int) -> DenseMatrix:
    r"""Apply :math:`\Pi^m_n` to ``x`` without building the matrix (cheng2025, eqs. 21-22).

    ``x`` is a vector in :math:`\mathbb R^m` or an :math:`m\times k` matrix (columns projected).
    With :math:`t=\operatorname{lcm}(m,n)`, :math:`a=t/m` and the prefix function
    :math:`F(u)=\sum_{v<u}(x\otimes\mathbf 1_a)_v = a\,S_{\lfloor u/a\rfloor}+(u\bmod a)\,x_{\lfloor u/a\rfloor}`
    (:math:`S` the prefix sums of :math:`x`),

    .. math:: (\Pi^m_n x)_i = \frac nt\Bigl(F\bigl((i+1)\tfrac tn\bigr)-F\bigl(i\tfrac tn\bigr)\Bigr),

    so the cost is :math:`O((m+n)k)` whatever :math:`t` is (for ``k > 1`` columns on the CPU the same
    sums are taken over the :math:`m+n-\gcd(m,n)` overlap pieces in one sparse product). The field follows ``x`` (SymPy in,
    exact ``sympy.Matrix`` out; NumPy in, NumPy out; CuPy in, CuPy out); a 1-d input gives a
    1-d output (a column ``sympy.Matrix`` for exact input).
    """
    import numpy as np
    import sympy

    n = _validate.positive_int("n", n)
    field = _backend.field_of(x)
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"x must be a vector or matrix, got {x!r}")
    arr = _backend.as_values(x, field, name="x")
    one_d = arr.ndim == 1 or (field == "sympy" and isinstance(x, sympy.MatrixBase) and arr.shape[1] == 1)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"x must be a non-empty vector or matrix, got an array of shape {tuple(arr.shape)}")
    m, k = arr.shape
    check_bytes("project", project_bytes(m, n, k, field), f"projecting {k:,} column(s) of length {m:,} to {n:,}")
    xp = _backend.array_module(field)
    t = m // math.gcd(m, n) * n
    a, b = t // m, t // n
    if k > 1 and field != "cupy":
        # several columns: sum the n + m - gcd overlap pieces of each output block with one
        # reduceat (contiguous rows; a column-wise cumsum is several times slower in NumPy)
        brk = _breakpoints(m, n, a, b, np, np.int64)
        starts, ov = brk[:-1], np.diff(brk)
        first = np.searchsorted(starts, np.arange(n, dtype=np.int64) * b)
        if field == "sympy":
            D = np.add.reduceat(arr[starts // a] * ov.astype(object)[:, None], first, axis=0)
        else:
            import scipy.sparse as sp

            indptr = np.append(first, starts.size)
            D = sp.csr_array((ov.astype(np.float64), starts // a, indptr), shape=(n, m)) @ arr
    else:
        if field == "sympy":
            zero = np.empty((1, k), dtype=object)
            zero[...] = sympy.Integer(0)
            S = np.concatenate([zero, np.cumsum(arr, axis=0)], axis=0)
            xe = np.concatenate([arr, zero], axis=0)
        else:
            S = xp.concatenate([xp.zeros((1, k), dtype=arr.dtype), xp.cumsum(arr, axis=0)], axis=0)
            xe = xp.concatenate([arr, xp.zeros((1, k), dtype=arr.dtype)], axis=0)
        u = xp.arange(n + 1, dtype=xp.int64) * b
        j, r = u // a, u % a
        rr = r[:, None].astype(object) if field == "sympy" else r[:, None]
        F = S[j] * a + xe[j] * rr
        D = F[1:] - F[:-1]
    if field == "sympy":
        out = D * sympy.Rational(n, t)
        return sympy.Matrix(out.tolist())
    out = D * (n / t)
    return out.reshape(-1) if one_d else out
__all__ = ["project", "projection", "projection_operator", "projection_overlap"]
