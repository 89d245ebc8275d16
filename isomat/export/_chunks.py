"""Walking a CSR matrix in row ranges of bounded size, for writers that must not expand it whole.

The exporters turn CSR into other layouts -- COO pairs for torch and JAX, MatrixMarket lines, a
MATLAB column-major element -- and each needs the row index of every stored entry, which CSR
holds only implicitly (``indptr``). Expanding all of them at once would hold 8 bytes an entry
beside the matrix; these helpers hand out row ranges of about ``entries`` entries instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def row_ranges(M: Any, entries: int) -> Iterator[tuple[int, int, int, int]]:
    """``(r0, r1, a, b)`` for consecutive row ranges ``r0:r1`` of the CSR ``M`` holding entries
    ``a:b`` of its arrays, about ``entries`` of them each (a longer row is a range of its own);
    ranges without entries are skipped."""
    n_rows = M.shape[0]
    cuts = np.searchsorted(M.indptr, np.arange(0, M.nnz + entries, entries), side="right") - 1
    cuts = np.unique(np.clip(np.concatenate([[0], cuts, [n_rows]]), 0, n_rows))
    for r0, r1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        a, b = int(M.indptr[r0]), int(M.indptr[r1])
        if a < b:
            yield r0, r1, a, b


def row_indices(M: Any, r0: int, r1: int, dtype: Any = np.int64) -> np.ndarray:
    """The row index of each stored entry of rows ``r0:r1`` of the CSR ``M`` (entries
    ``indptr[r0]:indptr[r1]``)."""
    return np.repeat(np.arange(r0, r1, dtype=dtype), np.diff(M.indptr[r0:r1 + 1]))
