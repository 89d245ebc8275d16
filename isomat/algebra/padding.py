r"""Padding as a sparse 0/1 selection matrix (torch's ``padding_mode`` and ``F.pad`` modes).

Padding an array :math:`X` of shape :math:`(\dots, n_1, \dots, n_d)` by :math:`(\ell_i, h_i)` on its
last :math:`d` axes gives :math:`\tilde X` of shape :math:`(\dots, n_1+\ell_1+h_1, \dots)` with

.. math:: \tilde X_{\dots, j_1, \dots, j_d} = X_{\dots, \pi_1(j_1), \dots, \pi_d(j_d)}

(or zero where some :math:`\pi_i(j_i)` is undefined, for ``mode="zeros"``), where
:math:`\pi_i` maps a padded position :math:`j` (offset :math:`u = j - \ell_i`) to

- ``"zeros"``: :math:`u` if :math:`0\le u<n_i`, else nothing (the entry is zero);
- ``"circular"``: :math:`u \bmod n_i` (NumPy's ``"wrap"``);
- ``"reflect"``: the reflection about the first and last samples, edge not repeated
  (``... 2 1 | 0 1 2 ... n-1 | n-2 ...``; period :math:`2n_i-2`, NumPy's ``"reflect"``);
- ``"replicate"``: :math:`\min(\max(u, 0), n_i-1)` (NumPy's ``"edge"``);
- ``"symmetric"``: reflection with the edge repeated (period :math:`2n_i`, NumPy's ``"symmetric"``).

So :math:`\operatorname{vec}(\tilde X) = P\operatorname{vec}(X)` (row-major ``vec``) for a matrix
:math:`P` with at most one 1 per row, :func:`padding_matrix`. A convolution with a non-zero
``padding_mode`` is then the valid convolution of the padded input, :math:`W = W_{valid}P`, which
is how :mod:`isomat.torch` builds torch's ``padding_mode="reflect"`` / ``"replicate"`` layers.
Pads larger than the input repeat the rule (as NumPy; torch itself refuses ``reflect`` pads
:math:`\ge n_i` and ``circular`` pads :math:`> n_i`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _validate
from ._operator import check_bytes

PADDING_MODES = ("zeros", "circular", "reflect", "replicate", "symmetric")


def padding_index(n: int, lo: int, hi: int, mode: str = "zeros") -> np.ndarray:
    r"""Source index :math:`\pi(j)` of each padded position :math:`j = 0..n+lo+hi-1` along one axis
    (module docstring), ``-1`` where ``mode="zeros"`` reads a zero."""
    n = _validate.positive_int("n", n)
    lo = _validate.nonnegative_int("lo", lo)
    hi = _validate.nonnegative_int("hi", hi)
    mode = _validate.choice("mode", mode, PADDING_MODES)
    check_bytes("padding_index", 3 * 8 * (n + lo + hi), f"{n + lo + hi:,} padded positions")
    u = np.arange(n + lo + hi, dtype=np.int64) - lo
    if mode == "zeros":
        return np.where((u >= 0) & (u < n), u, -1)
    if mode == "circular":
        return u % n
    if mode == "replicate":
        return np.clip(u, 0, n - 1)
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(u)
        period = 2 * n - 2
        r = u % period
        return np.where(r < n, r, period - r)
    period = 2 * n  # symmetric
    r = u % period
    return np.where(r < n, r, period - 1 - r)


def _pads(padding: Any, d_max: int) -> list[tuple[int, int]]:
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        p = _validate.nonnegative_int("padding", padding)
        return [(p, p)] * d_max
    if isinstance(padding, (str, bytes)) or not hasattr(padding, "__len__"):
        raise TypeError(f"padding must be an int or a sequence of ints / (lo, hi) pairs, one per padded axis, "
                        f"got {padding!r}")
    out = []
    for i, p in enumerate(padding):
        if isinstance(p, (tuple, list)):
            if len(p) != 2:
                raise ValueError(f"padding[{i}] must be an int or a (lo, hi) pair, got {p!r}")
            out.append((_validate.nonnegative_int(f"padding[{i}][0]", p[0]),
                        _validate.nonnegative_int(f"padding[{i}][1]", p[1])))
        else:
            q = _validate.nonnegative_int(f"padding[{i}]", p)
            out.append((q, q))
    if not 1 <= len(out) <= d_max:
        raise ValueError(f"padding must give 1 to {d_max} axes (the last axes of input_shape), got {len(out)}")
    return out


def padded_shape(input_shape: Any, padding: Any) -> tuple[int, ...]:
    """Shape of the padded array: the last ``len(padding)`` axes grow by ``lo + hi``."""
    shape = _validate.shape("input_shape", input_shape)
    pads = _pads(padding, len(shape))
    lead = len(shape) - len(pads)
    return shape[:lead] + tuple(n + lo + hi for n, (lo, hi) in zip(shape[lead:], pads))


def padding_matrix(input_shape: Any, padding: Any, mode: str = "zeros", *, dtype: Any = np.float64,
                   format: str = "csr") -> sp.csr_array | sp.csc_array | sp.coo_array:
    r"""The 0/1 matrix :math:`P` with :math:`\operatorname{vec}(\operatorname{pad}(X)) = P\operatorname{vec}(X)`.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of :math:`X`; leading axes not named by ``padding`` (channels) are not padded.
    padding : int or sequence
        One entry per padded axis, for the *last* ``len(padding)`` axes, in axis order: an int
        (both sides) or a ``(lo, hi)`` pair. (Note: torch's ``F.pad`` lists the last axis first;
        this does not.) An int pads every axis.
    mode : {"zeros", "circular", "reflect", "replicate", "symmetric"}
        As torch's ``padding_mode`` (module docstring); "symmetric" as NumPy's.
    dtype : NumPy dtype of the values (default float64).
    format : {"csr", "csc", "coo"}

    Returns
    -------
    scipy.sparse array of shape ``(prod(padded_shape), prod(input_shape))``, one 1 per row
    (``"zeros"``: rows of padded zeros are empty).

    Examples
    --------
    >>> padding_matrix((3,), [(2, 1)], "reflect").toarray().astype(int)
    array([[0, 0, 1],
           [0, 1, 0],
           [1, 0, 0],
           [0, 1, 0],
           [0, 0, 1],
           [0, 1, 0]])
    """
    shape = _validate.shape("input_shape", input_shape)
    mode = _validate.choice("mode", mode, PADDING_MODES)
    format = _validate.choice("format", format, ("csr", "csc", "coo"))
    dtype = _validate.dtype("dtype", dtype)
    pads = _pads(padding, len(shape))
    lead = len(shape) - len(pads)
    out_shape = shape[:lead] + tuple(n + lo + hi for n, (lo, hi) in zip(shape[lead:], pads))
    n_in, n_out = math.prod(shape), math.prod(out_shape)
    # the column of every output position, its mask, the kept rows and columns, then the CSR itself:
    # refused before any of them exists
    check_bytes("padding_matrix", 8 * 5 * n_out + 4 * n_in, f"a {n_out:,}x{n_in:,} 0/1 matrix")
    # per axis: the source index of every output position (identity on unpadded axes)
    maps = [np.arange(n, dtype=np.int64) for n in shape[:lead]]
    maps += [padding_index(n, lo, hi, mode) for n, (lo, hi) in zip(shape[lead:], pads)]
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    col = np.zeros((1,) * len(shape), dtype=np.int64)
    valid = np.ones((1,) * len(shape), dtype=bool)
    for i, (m, s) in enumerate(zip(maps, strides)):
        sh = [1] * len(shape)
        sh[i] = m.shape[0]
        m = m.reshape(sh)
        col = col + m * s
        valid = valid & (m >= 0)
    col = np.broadcast_to(col, out_shape).reshape(-1)
    valid = np.broadcast_to(valid, out_shape).reshape(-1)
    rows = np.flatnonzero(valid)
    cols = col[valid]
    idx = np.int32 if max(n_in, n_out) < 2**31 - 1 else np.int64
    if format == "coo":
        return sp.coo_array((np.ones(rows.shape[0], dtype=dtype), (rows.astype(idx), cols.astype(idx))),
                            shape=(n_out, n_in))
    counts = np.zeros(n_out + 1, dtype=idx)
    counts[rows + 1] = 1
    indptr = np.cumsum(counts, dtype=idx)
    P = sp.csr_array((np.ones(rows.shape[0], dtype=dtype), cols.astype(idx), indptr), shape=(n_out, n_in))
    P.has_canonical_format = True
    return P if format == "csr" else P.tocsc()


__all__ = ["PADDING_MODES", "padded_shape", "padding_index", "padding_matrix"]
