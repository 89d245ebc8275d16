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
from typing import Any

from .. import _validate
from . import _backend
from ._operator import SparseOperator, check_size, render


def projection_operator(m: int, n: int, *, backend: str = "numpy") -> SparseOperator:
    r"""The pattern-plus-values form of :math:`\Pi^m_n`; see :func:`projection`."""
    m = _validate.positive_int("m", m)
    n = _validate.positive_int("n", n)
    field = _validate.backend(backend)
    g = math.gcd(m, n)
    t = m // g * n
    nnz = n + m - g
    check_size("projection", (n, m), nnz, field=field)
    xp = _backend.array_module(field)
    row_block, col_block = t // n, t // m  # widths of the row and column blocks in 0..t-1
    dt = _backend.index_dtype(t)
    if dt.itemsize == 4:
        dt = xp.int64  # products below (n * overlap) may exceed int32
    breaks = xp.union1d(xp.arange(n + 1, dtype=dt) * row_block, xp.arange(m + 1, dtype=dt) * col_block)
    starts = breaks[:-1]
    overlap = xp.diff(breaks)
    rows = starts // row_block
    cols = starts // col_block
    values = _backend.rational(overlap * n, t, field, xp)
    return SparseOperator.build((n, m), rows, cols, values, field)


def projection(m: int, n: int, *, backend: str = "numpy", format: str = "csr") -> Any:
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


__all__ = ["projection", "projection_operator"]
