"""zhu2025's mutants (see tests/mutants/__init__.py)."""

from __future__ import annotations

from . import Mutant


def _shift_columns(conv_matrix):
    def broken(*args, **kwargs):
        W = conv_matrix(*args, **kwargs)
        if hasattr(W, "tocoo"):
            import scipy.sparse as sp
            C = W.tocoo()
            return sp.csr_array(((C.data), (C.row, (C.col + 1) % C.shape[1])), shape=C.shape)
        import sympy
        return sympy.Matrix(W.rows, W.cols, lambda i, j: W[i, (j - 1) % W.cols])
    return broken


MUTANTS = [
    Mutant("conv_matrix-columns-shifted", "builder", "isomat.algebra.conv:conv_matrix", _shift_columns,
           ("zhu2025:thm4.1/forward",), "every column index of the convolution matrix shifted by one (cyclically)"),
]
