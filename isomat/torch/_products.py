r"""Fast products with one affine node's factor, for the local maps of networks with few outputs.

zhu2025 (§3, §4) writes a network as a chain of sparse factors :math:`W`. In reverse order
(:meth:`isomat.torch.Network.local_affine` with few outputs, e.g. a classifier) the chain is
multiplied from the output side: :math:`G \mapsto G W` with :math:`G = \partial f/\partial v` a dense
``(n_out, size)`` block. SciPy's CSR products pay index bookkeeping for every stored entry, and a
convolution's matrix repeats each of its few weights at every position, so this module computes the
same products from cheaper forms of the same factor:

* :class:`ConvForm` -- a convolution layer (zero padding) kept as its kernel and hyperparameters
  beside its CSR matrix: ``W x`` is torch's convolution and ``G W`` torch's input gradient of it
  (``torch.nn.grad.conv{d}d_input``, the transposed convolution), both on the float64 kernel the
  matrix was built from (:func:`isomat.algebra.conv_matrix`). A node uses its form only after
  :func:`form_agrees` has found the form's products equal to the matrix's on a random probe.
* a factor storing at least half of its entries: a dense NumPy copy (BLAS);
* a diagonal factor (an eval batch norm's scale): a row scaling;
* otherwise the CSR matrix through the columns of ``G`` that are not zero (the rows a ReLU or a max
  pool's selection kept) -- ``G[:, alive] W[alive]``.

Every path computes :math:`GW` (or :math:`Wx`) in float64; they differ from SciPy's CSR product by
the order of the sums only (rounding), as torch's own ``jacrev`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["ConvForm", "dense_rows_times", "form_agrees"]

#: a factor with at least this share of its entries stored is also kept dense (a linear layer's is full)
DENSE_SHARE = 0.5
#: ... and its dense copy is at most this large
DENSE_MAX_BYTES = 256 * 2**20
#: G W through W's rows where at most this share of G's columns is alive (below it, slicing W's rows
#: and one sparse product beat a product over every entry; a max pool keeps a quarter of them)
SLICE_ALIVE = 0.5
#: the probe's tolerance: |form - matrix| <= this times (|W| |v|), entry by entry (float64 sums of the
#: same products in two orders differ by at most about n * 2**-53 of that bound)
PROBE_RTOL = 1e-12


@dataclass(frozen=True, eq=False)
class ConvForm:
    """A convolution layer with zero padding as its kernel: ``d`` spatial axes, ``kernel``
    ``(C_out, C_in / groups, *taps)`` float64, ``stride``/``padding``/``dilation`` per axis (torch's
    symmetric padding), ``groups``, one sample's ``in_shape`` ``(C_in, *spatial)`` and ``out_shape``."""

    d: int
    kernel: np.ndarray
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    groups: int
    in_shape: tuple[int, ...]
    out_shape: tuple[int, ...]

    def apply(self, X: np.ndarray) -> np.ndarray:
        """``(W X^T)^T`` for samples ``X`` ``(N, prod(in_shape))``: torch's ``conv{d}d``."""
        import torch
        import torch.nn.functional as F

        conv = (F.conv1d, F.conv2d, F.conv3d)[self.d - 1]
        x = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64)).reshape((X.shape[0],) + self.in_shape)
        y = conv(x, torch.from_numpy(self.kernel), None, self.stride, self.padding, self.dilation, self.groups)
        # copied into NumPy's own buffer: a network's values are kept, and memory measured by tracemalloc
        # (benchmarks/networks.py) sees NumPy's allocations, not torch's
        return y.reshape(X.shape[0], -1).numpy().copy()

    def rmatmul(self, G: np.ndarray) -> np.ndarray:
        """``G W`` for rows ``G`` ``(k, prod(out_shape))``: torch's input gradient of the convolution."""
        import torch

        grad_input = (torch.nn.grad.conv1d_input, torch.nn.grad.conv2d_input, torch.nn.grad.conv3d_input)[self.d - 1]
        g = torch.from_numpy(np.ascontiguousarray(G, dtype=np.float64)).reshape((G.shape[0],) + self.out_shape)
        x = grad_input((G.shape[0],) + self.in_shape, torch.from_numpy(self.kernel), g, self.stride, self.padding,
                       self.dilation, self.groups)
        return x.reshape(G.shape[0], -1).numpy()


def form_agrees(form: ConvForm, W: sp.csr_array, seed: int = 0) -> bool:
    """Whether ``form`` computes ``W x`` and ``g W`` for a random ``x`` and ``g`` (within
    :data:`PROBE_RTOL` of ``|W| |x|`` entry by entry): the guard a node passes once before its
    products take the form (a form that does not belong to its matrix is never used)."""
    try:
        import torch  # noqa: F401
    except ImportError:  # a Network read back without torch: the CSR products serve
        return False
    if W.shape != (math.prod(form.out_shape), math.prod(form.in_shape)):
        return False
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, W.shape[1]))
    g = rng.standard_normal((1, W.shape[0]))
    A = sp.csr_array((np.abs(W.data), W.indices, W.indptr), shape=W.shape)  # |W| on W's own index arrays
    ok_x = np.all(np.abs(form.apply(x)[0] - W @ x[0]) <= PROBE_RTOL * (A @ np.abs(x[0])) + 1e-300)
    ok_g = np.all(np.abs(form.rmatmul(g)[0] - W.T @ g[0]) <= PROBE_RTOL * (A.T @ np.abs(g[0])) + 1e-300)
    return bool(ok_x and ok_g)


def dense_rows_times(G: np.ndarray, W: sp.csr_array, dense: np.ndarray | None, diag: np.ndarray | None,
                     form: ConvForm | None) -> np.ndarray:
    """``G W`` for dense rows ``G`` ``(k, W.shape[0])`` (owned by the caller: a diagonal factor scales
    it in place), by the cheapest of the forms above; ``dense``/``diag``/``form``: the node's dense copy,
    diagonal or verified convolution form of ``W`` (``None`` where it has none)."""
    if diag is not None:
        G *= diag
        return G
    if form is not None:
        # torch's transposed convolution over every column, zero or not: its dense kernels beat the CSR
        # rows even where few columns are alive (the VGG-style classifier's 16->16 and 32->32 layers at a
        # 0.16-0.2 share alive after a max pool: 1.8-2.5 ms against 3.1-4.3 ms for the sliced CSR product
        # and 3.4-5.0 ms for a Numba scatter over the alive rows; one thread, loaded machine)
        return form.rmatmul(G)
    alive = np.flatnonzero(G.any(axis=0))
    m = W.shape[0]
    if alive.size == 0:
        return np.zeros((G.shape[0], W.shape[1]))
    few = alive.size <= SLICE_ALIVE * m
    if dense is not None:
        return G[:, alive] @ dense[alive] if few else G @ dense
    if few:
        return np.ascontiguousarray((W[alive].T @ np.ascontiguousarray(G[:, alive].T)).T)
    return np.ascontiguousarray((W.T @ np.ascontiguousarray(G.T)).T)
