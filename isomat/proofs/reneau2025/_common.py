"""reneau2025: what the sections share -- imports and the naive references (no isomat.algebra code):
Algorithm 1 literally, Kolda-Bader mode products, multiplication counting."""

from __future__ import annotations

import itertools
import math
from decimal import ROUND_HALF_UP, Decimal
from functools import cache

import numpy as np
import sympy
from hypothesis import strategies as st

from ...algebra import ndlinear as _nd
from ...algebra.kron import kronecker_factors
from ..engine import (
    exact_equal,
    Reading,
    Trial,
    all_of,
    by_readings,
    claim,
    compare_printed,
    decide,
    exhaustive,
    not_checkable,
    property_search,
    symbolic_zero,
)



# ---------------------------------------------------------------------------------------------
# Naive references (no isomat.algebra code): Algorithm 1 literally, Kolda-Bader mode products,
# multiplication counting.
# ---------------------------------------------------------------------------------------------
def algorithm1(X: np.ndarray, Wp: list[np.ndarray], bs: list, order: str = "outer") -> np.ndarray:
    """reneau2025 Algorithm 1 as printed: permute mode k last, reshape to (B*prod_{j!=k} S_j, D_k),
    ``Y = X W_k + b_k`` with the paper's W_k (D_k x H_k), reshape and permute back. Object arrays
    (exact) or floats. ``order="inner"`` runs k = N..1 (the package's transform_outer=False)."""
    N = len(Wp)
    Y = X
    for k in (range(N) if order == "outer" else reversed(range(N))):
        ax = k + 1
        perm = [a for a in range(N + 1) if a != ax] + [ax]
        T = np.transpose(Y, perm)
        lead = T.shape[:-1]
        M = T.reshape(-1, T.shape[-1])
        out = np.empty((M.shape[0], Wp[k].shape[1]), dtype=object)
        for r in range(M.shape[0]):
            for h in range(Wp[k].shape[1]):
                acc = sum((M[r, d] * Wp[k][d, h] for d in range(M.shape[1])), sympy.Integer(0))
                out[r, h] = acc + (bs[k][h] if bs[k] is not None else 0)
        T = out.reshape(*lead, Wp[k].shape[1])
        Y = np.transpose(T, np.argsort(perm))
    return Y


def kolda_bader_mode_product(X: np.ndarray, U: np.ndarray, n: int) -> np.ndarray | None:
    """(X x_n U)_{..j..} = sum_i x_{..i..} u_{j i} (Kolda & Bader 2009, §2.5); None if undefined."""
    if U.shape[1] != X.shape[n]:
        return None
    Xn = np.moveaxis(X, n, 0)
    out = np.empty((U.shape[0], *Xn.shape[1:]), dtype=object)
    for j in range(U.shape[0]):
        out[j] = sum((U[j, i] * Xn[i] for i in range(U.shape[1])), np.zeros(Xn.shape[1:], dtype=object))
    return np.moveaxis(out, 0, n)


class _Counted:
    """A number that counts the multiplications done with it (for eq. (1))."""

    muls = 0

    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        _Counted.muls += 1
        return _Counted(self.v * (other.v if isinstance(other, _Counted) else other))

    __rmul__ = __mul__

    def __add__(self, other):
        return _Counted(self.v + (other.v if isinstance(other, _Counted) else other))

    __radd__ = __add__


def _sym_layer(D, H, tag=""):
    Wp = [np.array(sympy.symbols(f"w{tag}{k}_0:{D[k] * H[k]}"), dtype=object).reshape(D[k], H[k]) for k in range(len(D))]
    bs = [np.array(sympy.symbols(f"b{tag}{k}_0:{H[k]}"), dtype=object) for k in range(len(D))]
    return Wp, bs


def _isomat_flat(Wp, bs, order):
    """isomat's (K, beta) for the paper's weights (transposed into nn.Linear layout)."""
    Ws = [sympy.Matrix(W.T.tolist()) for W in Wp]
    Bs = [None if b is None else sympy.Matrix(list(b)) for b in bs]
    return _nd.ndlinear_matrix(Ws, Bs, order, backend="sympy")


def _bounded(t: Trial, bound: str) -> Trial:
    """A trial made of proofs that each hold for all sizes at a fixed number of modes N, taken for the N up to a bound:
    exhaustive in N (``bound`` says which), never ``proved`` -- nothing here is proved for every N."""
    if not t.ok:
        return t
    return Trial(True, t.method, {"bounded": bound, "trials": [t.evidence]}, strength="exhaustive")


def _zero(M: sympy.Matrix) -> bool:
    return all(sympy.expand(v) == 0 for v in M)


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
