r"""The sparse twin of a torch layer: ``y = W x + b`` with a fixed sparsity pattern (zhu2025 §6).

zhu2025 §6 trains each native network beside its "sparse-weight-matrix isomorphic counterpart".
:class:`SparseAffine` is that counterpart for one layer: a ``torch.nn.Module`` whose forward is a
sparse matrix product ``y = W x + b`` on a batch ``(N, *input_shape) -> (N, *output_shape)``
(an unbatched ``input_shape`` tensor gives an unbatched output), with

* a **fixed pattern** (rows, columns, shape) held as integer buffers, so ``.to(device)`` moves it;
* **values** that are, in every forward, torch expressions of the native layer's parameters
  (:meth:`SparseAffine.from_module`), so the optimiser trains the kernel, not the sparse entries
  independently -- or, built from a SciPy matrix (:class:`SparseAffine`'s constructor), a buffer
  (``trainable=False``) or a Parameter of the stored entries (``trainable=True``);
* an **exact backward by the adjoint**: a custom :class:`torch.autograd.Function` whose backward
  gives ``grad_x = W^T grad_y`` (a sparse product with the transposed pattern) and
  ``grad_values[e] = sum_n grad_y[n, rows[e]] * x[n, cols[e]]`` (a sampled dense-dense product:
  for each block of consecutive rows, one GEMM of those rows of ``grad_y^T`` with the columns of
  ``x`` the block's entries read, its entries then picked out -- a dense tile of at most
  ``_TILE_ELEMENTS``, taken where it holds at most ``_TILE_WASTE`` times the block's entries; other
  blocks gather per entry, in chunks of at most ``_SDDMM_BUDGET`` products, never ``N x nnz``). The values' own dependence on the parameters (a gather, a matrix power, ...) is
  ordinary torch autograd, whose backward of a gather is the exact scatter-add adjoint.

How each module's values are expressed (:meth:`SparseAffine.from_module`):

=================================  ==============================================================
module                             values of ``W`` (and ``b``)
=================================  ==============================================================
``nn.Conv1d/2d/3d``,               a gather of ``weight.flatten()`` by an entry -> weight-index map
``nn.ConvTranspose1d/2d/3d``,      found by probing (:func:`~isomat.torch.from_module` on a copy
``nn.Linear``                      whose weight holds the exact integer ids 1..K in float64); an
                                   entry that sums several weights (``padding_mode`` reflect /
                                   replicate / circular folds taps onto one pixel) is resolved by
                                   one probe per kernel tap and becomes a sum of gathers. ``b``: a
                                   gather of ``bias`` (probed the same way), none without a bias
``nn.AvgPool1d/2d/3d``             constants (a buffer; no parameters)
``nn.BatchNorm1d/2d/3d`` (eval)    diagonal: ``weight / sqrt(running_var + eps)`` per channel,
                                   ``b = bias - running_mean * scale`` (``affine=False``: no
                                   weight / bias); training mode, or ``track_running_stats=False``,
                                   is refused (batch statistics are not affine in ``x``)
``isomat.torch.LinearRNN``         one stage per layer (a chain): block lower-triangular, block
                                   ``(t, s)`` a gather from the stacked powers
                                   ``P_j = V^j U`` (``j < T``, torch matmuls of ``weight_hh`` and
                                   ``weight_ih``); bias block ``t`` is ``sum_{j<=t} V^j c`` with
                                   ``c = bias_ih + bias_hh``
``ndlinear.NdLinear``              one stage per axis (a chain), in NdLinear's order
                                   (``transform_outer``: axes 0..n-1, else n-1..0): the factor
                                   ``I (x) W_a (x) I`` is a gather of ``align_layers[a].weight``,
                                   its bias ``align_layers[a].bias`` broadcast over the other axes
=================================  ==============================================================

Stacked layers (``LinearRNN`` with ``num_layers > 1``) and NdLinear are **chains of stages inside
one** :class:`SparseAffine`: each stage has its own pattern and values and the forward applies
them in order; ``nnz`` counts the stored entries of all stages and :meth:`SparseAffine.to_scipy`
returns the composed ``(W, b)``. ``nn.MaxPool*`` is data-dependent (its selection matrix changes
with ``x``) and has no fixed-pattern twin: it is refused, like every other module, with a
``TypeError`` naming it and the supported ones.

Conventions (``docs/conventions.md``): one sample is ``input_shape`` without a batch axis,
flattened row-major; the twin's batched input is ``(N, *input_shape)`` -- batch first, also for
a ``LinearRNN`` (whose own batched call is ``(T, N, input_size)`` unless ``batch_first``).
"""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.autograd.function import once_differentiable
except ImportError as exc:  # pragma: no cover - exercised with torch hidden
    raise ImportError(
        "isomat.torch needs PyTorch: install the torch extra, pip install 'isomat[torch]'"
    ) from exc

from ._modules import LinearRNN, _is_ndlinear, _shape, from_module

__all__ = ["SparseAffine", "TWIN_KERNELS", "TWIN_SUPPORTED"]

#: the twin's kernels: ``"auto"`` takes the cheapest exact product of each stage (``_Stage.form``: the
#: elementwise product of a diagonal pattern, one GEMM for a full one, torch's convolution / F.linear for
#: a layer's pattern whose values are its gathered weights), ``"sparse"`` the CSR product everywhere.
TWIN_KERNELS = ("auto", "sparse")

TWIN_SUPPORTED = (
    "nn.Conv1d", "nn.Conv2d", "nn.Conv3d", "nn.ConvTranspose1d", "nn.ConvTranspose2d", "nn.ConvTranspose3d",
    "nn.Linear", "nn.AvgPool1d", "nn.AvgPool2d", "nn.AvgPool3d",
    "nn.BatchNorm1d", "nn.BatchNorm2d", "nn.BatchNorm3d (eval mode, track_running_stats=True)",
    "isomat.torch.LinearRNN", "ndlinear.NdLinear",
)

#: Most products ``grad_y[n, rows[e]] * x[n, cols[e]]`` held at once by the sampled dense-dense
#: product of the values' gradient: chunks of ``max(1, _SDDMM_BUDGET // N)`` entries.
_SDDMM_BUDGET = 1 << 22
#: the values' gradient by dense tiles: a block of rows times the columns its entries read, one GEMM
#: (``grad_y[:, rows].T @ x[:, cols]``), then the block's entries picked from it. Most elements one tile
#: holds (so most rows a block takes: this over the columns it reads)...
_TILE_ELEMENTS = 1 << 22
#: ... and the most waste a tile may carry: its elements over the block's stored entries. A GEMM reads
#: each operand once and runs at the core's peak; the gather product reads two scattered rows of N per
#: entry (memory-bound, many times slower per product), so a tile with up to 16 times the products wins (8, 16 and 32 tried on LeNet-5: 16 fastest).
_TILE_WASTE = 16

_CONV = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_CONVT = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
_AVG = (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)
_MAX = (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)
_BN = {nn.BatchNorm1d: 1, nn.BatchNorm2d: 2, nn.BatchNorm3d: 3}


# ---------------------------------------------------------------------------------------------
# the sparse product and its adjoint
# ---------------------------------------------------------------------------------------------
def _csr_tensor(crow: torch.Tensor, col: torch.Tensor, values: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Sparse CSR tensor support is in beta state"
        return torch.sparse_csr_tensor(crow, col, values, size=size, check_invariants=False)


def _sddmm(g: torch.Tensor, x: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
    """``out[e] = sum_n g[n, rows[e]] * x[n, cols[e]]`` over chunks of entries (bounded memory)."""
    n = g.shape[0]
    nnz = rows.numel()
    out = g.new_zeros(nnz)
    if nnz == 0 or n == 0:
        return out
    gT, xT = g.t().contiguous(), x.t().contiguous()  # (n_out, N), (n_in, N): gathered rows are contiguous
    step = max(1, int(_SDDMM_BUDGET) // n)
    for start in range(0, nnz, step):
        stop = min(nnz, start + step)
        out[start:stop] = (gT[rows[start:stop]] * xT[cols[start:stop]]).sum(1)
    return out


class _Gather(torch.autograd.Function):
    """``w[idx]`` for a 1-d ``w``, whose backward sums the gradient of every entry into its weight
    with one ``bincount`` pass (autograd's own adjoint of an index is a scatter-add through
    ``index_put_``, several times slower on the CPU for the ~10^5 entries of a convolution's matrix);
    the sums are the same, in the entries' order."""

    @staticmethod
    def forward(ctx, w, idx):  # type: ignore[override]
        ctx.save_for_backward(idx)
        ctx.n = w.numel()
        return w[idx]

    @staticmethod
    @once_differentiable
    def backward(ctx, g):  # type: ignore[override]
        (idx,) = ctx.saved_tensors
        return torch.bincount(idx, weights=g, minlength=ctx.n).to(g.dtype), None


def _gather(w: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    if w.is_complex() or idx.dim() != 1:
        return w[idx]
    return _Gather.apply(w, idx)


def _plan_tiles(crow: np.ndarray, cols: np.ndarray, n_in: int) -> list[tuple[int, int, int, int, torch.Tensor | None, torch.Tensor | None]]:
    """Blocks of consecutive rows for the values' gradient: ``(e0, e1, r0, r1, U, local)`` with the
    block's entries ``e0:e1`` (CSR order keeps a block's entries contiguous), the columns ``U`` they read
    and each entry's place ``local`` in the ``(r1 - r0) x len(U)`` tile; ``U`` is ``None`` where the tile
    would waste more than ``_TILE_WASTE`` times the entries (those entries take the gather product)."""
    n_out = len(crow) - 1
    largest = max(1, min(n_out, _TILE_ELEMENTS // max(1, n_in)))
    plan = []
    r0 = 0
    while r0 < n_out:
        # the largest block (halving from the most the tile budget allows) whose tile wastes little
        B = largest
        while True:
            r1 = min(n_out, r0 + B)
            e0, e1 = int(crow[r0]), int(crow[r1])
            U, inv = np.unique(cols[e0:e1], return_inverse=True)
            fits = (r1 - r0) * U.size <= _TILE_WASTE * (e1 - e0)
            if fits or B <= 16:
                break
            B //= 2
        if e1 > e0:
            if not fits:
                plan.append((e0, e1, r0, r1, None, None))
            else:
                local_rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(crow[r0:r1 + 1]))
                local = local_rows * U.size + inv.reshape(-1)
                plan.append((e0, e1, r0, r1, torch.from_numpy(U.astype(np.int64)), torch.from_numpy(local)))
        r0 = r1
    return plan


def _sddmm_tiled(g: torch.Tensor, x: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor,
                 plan: list[tuple[int, int, int, int, torch.Tensor | None, torch.Tensor | None]]) -> torch.Tensor:
    """``out[e] = sum_n g[n, rows[e]] * x[n, cols[e]]`` by the dense tiles of ``plan`` (see
    :func:`_plan_tiles`): the same sums as :func:`_sddmm`, each by one GEMM per block of rows."""
    out = g.new_zeros(rows.numel())
    if rows.numel() == 0 or g.shape[0] == 0:
        return out
    gT, xT = g.t().contiguous(), x.t().contiguous()  # (n_out, N), (n_in, N)
    dev = g.device
    for e0, e1, r0, r1, U, local in plan:
        if U is None:
            out[e0:e1] = _sddmm(g, x, rows[e0:e1], cols[e0:e1])
            continue
        tile = gT[r0:r1] @ xT[U.to(dev)].t()  # U and local already live on the device (Stage.tiles)
        out[e0:e1] = tile.reshape(-1)[local.to(dev)]
    return out


class _SparseMatmul(torch.autograd.Function):
    """``y = x W^T`` for ``x`` of shape ``(N, n_in)``, ``W`` the CSR matrix of ``values`` on a fixed
    pattern; backward: ``grad_x = grad_y W`` (a sparse product with the transposed pattern) and the
    sampled dense-dense product for ``grad_values``."""

    @staticmethod
    def forward(ctx, values, x, crow, col, row, t_crow, t_col, t_perm, n_out, n_in, stage=None):  # type: ignore[override]
        A = _csr_tensor(crow, col, values, (n_out, n_in))
        y = torch.sparse.mm(A, x.t()).t().contiguous()
        ctx.save_for_backward(values, x, crow, col, row, t_crow, t_col, t_perm)
        ctx.size = (n_out, n_in)
        ctx.stage = stage
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, g):  # type: ignore[override]
        values, x, crow, col, row, t_crow, t_col, t_perm = ctx.saved_tensors
        n_out, n_in = ctx.size
        g = g.contiguous()
        grad_values = grad_x = None
        if ctx.needs_input_grad[1]:
            At = _csr_tensor(t_crow, t_col, values[t_perm], (n_in, n_out))
            grad_x = torch.sparse.mm(At, g.t()).t().contiguous()
        if ctx.needs_input_grad[0]:
            plan = ctx.stage.tiles() if ctx.stage is not None else None
            grad_values = _sddmm(g, x, row, col) if plan is None else _sddmm_tiled(g, x, row, col, plan)
        return grad_values, grad_x, None, None, None, None, None, None, None, None, None


def _pattern_form(rows: np.ndarray, cols: np.ndarray, n_out: int, n_in: int) -> str:
    """``"diag"``, ``"dense"`` or ``"csr"``: the cheapest exact product for this pattern (``_Stage.form``)."""
    nnz = rows.size
    if n_out == n_in == nnz and np.array_equal(rows, np.arange(nnz)) and np.array_equal(cols, rows):
        return "diag"
    if nnz == n_out * n_in and nnz > 0 and np.array_equal(rows, np.repeat(np.arange(n_out), n_in)) \
            and np.array_equal(cols, np.tile(np.arange(n_in), n_out)):
        return "dense"
    return "csr"


def _layer_apply(mod: Any, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    """torch's own operation of the layer ``mod`` (``nn.Linear``: ``F.linear`` over the leading axes; a
    convolution: its stride, padding, padding mode, dilation, groups, output padding) with the weight
    ``w`` and bias ``b``: the structured form of a gather stage (``_Stage.form == "layer"``)."""
    if hasattr(mod, "in_features"):  # nn.Linear (or a functional F.linear's proxy)
        return F.linear(x, w, b)
    if mod.transposed:  # ConvTranspose1d/2d/3d (a proxy's output_padding has output_size= resolved)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[x.dim() - 3]
        return fn(x, w, b, mod.stride, mod.padding, mod.output_padding, mod.groups, mod.dilation)
    return mod._conv_forward(x, w, b)


def _layer_matches(module: nn.Module, shape: tuple[int, ...], W_ids: sp.csr_array, b_ids: np.ndarray | None) -> bool:
    """Whether :func:`_layer_apply` computes ``W x + b`` for the probed pattern ``W_ids`` (entries: the
    sums of the 1-based weight ids they gather) and bias ids ``b_ids``: both sides evaluated in float64 on
    the id weights and four random integer inputs, where every sum is an integer below ``2**53`` and so
    exact; a pattern or tie that differs gives a different product except with probability at most
    ``(2R + 1)**-4`` (``R`` the inputs' range, ``2**16`` here, Freivalds' argument)."""
    row_sums = np.abs(W_ids).sum(axis=1) if W_ids.nnz else np.zeros(1)
    bound = float(np.max(row_sums)) + (0.0 if b_ids is None or not b_ids.size else float(np.abs(b_ids).max()))
    R = min(1 << 16, int(2.0**52 / max(bound, 1.0)))
    if R < 256:  # the integer sums could round: no exact comparison, keep the CSR product
        return False
    probe = _probe_copy(module)
    w = probe.weight
    gen = torch.Generator().manual_seed(0)
    x = torch.randint(-R, R + 1, (4,) + shape, generator=gen, dtype=torch.int64).to(torch.float64)
    with torch.no_grad():
        w.copy_(torch.arange(1, w.numel() + 1, dtype=torch.float64).reshape(w.shape))
        b = None
        if probe.bias is not None:
            b = torch.arange(1, probe.bias.numel() + 1, dtype=torch.float64)
        got = _layer_apply(probe, x, w, b).reshape(4, -1).numpy()
    want = (W_ids @ x.reshape(4, -1).numpy().T).T
    if b_ids is not None:
        want = want + b_ids
    return got.shape == want.shape and bool(np.array_equal(got, want))


# ---------------------------------------------------------------------------------------------
# one stage: a fixed pattern and how its values (and bias) are computed
# ---------------------------------------------------------------------------------------------
class _Stage(nn.Module):
    """A fixed CSR pattern (entries sorted by row, then column) and its transposed order.

    ``value_kind``: ``"own"`` (the twin's ``values``), ``"const"`` (buffer ``const_values``),
    ``"gather"`` (``module.get_parameter(value_ref).flatten()[value_index]``; a 2-d
    ``value_index`` sums several weights per entry, the index ``K`` reading a zero),
    ``"bn"`` / ``"rnn"`` (computed from the module). ``bias_kind``: ``None``, ``"own"``,
    ``"gather"``, ``"bn"``, ``"rnn"``.

    ``form``: the kernel :meth:`SparseAffine.forward` uses with ``kernel="auto"`` (``"sparse"`` always
    takes ``"csr"``): ``"diag"`` where the pattern is the diagonal (``y = x * values``, elementwise),
    ``"dense"`` where it stores every entry (``y = x values.view(n_out, n_in)^T``, one GEMM), ``"layer"``
    where torch's own convolution or ``F.linear`` was shown to compute this pattern with these tied values
    (:func:`_layer_matches`), else ``"csr"`` (:class:`_SparseMatmul`). The first two compute the very
    product of the stored values; ``"layer"`` computes it from the weights the values are gathered from.
    """

    def __init__(self, rows: np.ndarray, cols: np.ndarray, in_shape: tuple[int, ...], out_shape: tuple[int, ...],
                 value_kind: str, bias_kind: str | None = None, *, value_ref: str | None = None,
                 bias_ref: str | None = None, layer: int = 0) -> None:
        super().__init__()
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        self.n_in, self.n_out = math.prod(self.in_shape), math.prod(self.out_shape)
        self.nnz = int(rows.size)
        self.value_kind, self.bias_kind = value_kind, bias_kind
        self.value_ref, self.bias_ref, self.layer = value_ref, bias_ref, layer
        crow = np.zeros(self.n_out + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n_out), out=crow[1:])
        self.form = _pattern_form(rows, cols, self.n_out, self.n_in)
        self.identity_gather = False  # "gather" with value_index == arange(K): the values are the weight's view
        t_perm = np.lexsort((rows, cols)).astype(np.int64)  # by column, then row: W^T in CSR order
        t_crow = np.zeros(self.n_in + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols, minlength=self.n_in), out=t_crow[1:])
        for name, arr in (("rows", rows), ("cols", cols), ("crow", crow), ("t_crow", t_crow),
                          ("t_col", rows[t_perm]), ("t_perm", t_perm)):
            self.register_buffer(name, torch.from_numpy(np.ascontiguousarray(arr)), persistent=False)

    def index(self, name: str, arr: np.ndarray) -> None:
        self.register_buffer(name, torch.from_numpy(np.ascontiguousarray(arr, dtype=np.int64)), persistent=False)

    def tiles(self) -> list[tuple[int, int, int, int, torch.Tensor | None, torch.Tensor | None]]:
        """The dense-tile plan of the values' gradient (:func:`_plan_tiles`), made on first use and
        kept on the pattern's device (one copy of its index tensors per device, not one per step)."""
        plans = self.__dict__.setdefault("_tile_plans", {})
        dev = self.crow.device
        if dev not in plans:
            host = self.__dict__.get("_tile_plan")
            if host is None:
                host = _plan_tiles(self.crow.cpu().numpy(), self.cols.cpu().numpy(), self.n_in)
                self.__dict__["_tile_plan"] = host
            plans[dev] = [(e0, e1, r0, r1, None if U is None else U.to(dev), None if loc is None else loc.to(dev))
                          for e0, e1, r0, r1, U, loc in host]
        return plans[dev]

    def apply_to(self, values: torch.Tensor, x2d: torch.Tensor) -> torch.Tensor:
        return _SparseMatmul.apply(values, x2d, self.crow, self.cols, self.rows, self.t_crow, self.t_col,
                                   self.t_perm, self.n_out, self.n_in, self)

    def extra_repr(self) -> str:
        return f"{self.in_shape} -> {self.out_shape}, nnz={self.nnz}, values={self.value_kind}"


def _csr_parts(W: Any) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    W = sp.csr_array(W)
    W.sum_duplicates()  # also sorts the column indices of every row
    rows = np.repeat(np.arange(W.shape[0], dtype=np.int64), np.diff(W.indptr))
    return W, rows, W.indices.astype(np.int64)


def _keys(rows: np.ndarray, cols: np.ndarray, n_in: int) -> np.ndarray:
    return rows.astype(np.int64) * max(n_in, 1) + cols.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# probing: which weight each stored entry holds
# ---------------------------------------------------------------------------------------------
def _probe_copy(module: nn.Module) -> nn.Module:
    probe = copy.deepcopy(module).to(device="cpu", dtype=torch.float64)
    probe.requires_grad_(False)
    return probe


def _ids(values: np.ndarray, count: int, what: str, module: nn.Module) -> np.ndarray:
    """Probed float64 values that must each be one of the exact ids 1..count: their 0-based index."""
    idx = np.rint(values)
    if values.size and (np.any(idx != values) or idx.min() < 1 or idx.max() > count):
        raise ValueError(f"{type(module).__name__}: a stored entry of {what} is not a single parameter "
                         f"(probing read {values[(idx != values) | (idx < 1) | (idx > count)][:3]!r}); "
                         f"this layer cannot be expressed as a gather of its parameters")
    return idx.astype(np.int64) - 1


def _probe_gather(module: nn.Module, shape: tuple[int, ...]) -> tuple[sp.csr_array, np.ndarray, np.ndarray | None]:
    """The pattern of ``W`` (from a probe with weight ids 1..K), its entry -> weight-index map
    ``(nnz,)`` or ``(nnz, m)`` (entries summing up to ``m`` weights; index ``K`` reads a zero) and
    the bias entry -> bias-index map (None without a bias)."""
    probe = _probe_copy(module)
    w = probe.weight
    K = w.numel()
    with torch.no_grad():
        w.copy_(torch.arange(1, K + 1, dtype=torch.float64).reshape(w.shape))
        if probe.bias is not None:
            probe.bias.copy_(torch.arange(1, probe.bias.numel() + 1, dtype=torch.float64).reshape(probe.bias.shape))
    W_ids, b_ids = from_module(probe, shape, dtype=np.float64)
    W_ids, rows, cols = _csr_parts(W_ids)
    bias_index = None if probe.bias is None else _ids(np.asarray(b_ids), probe.bias.numel(), "b", module)
    with torch.no_grad():
        w.fill_(1.0)
    W_ones, _ = from_module(probe, shape, dtype=np.float64)
    W_ones, r1, c1 = _csr_parts(W_ones)
    if not (np.array_equal(r1, rows) and np.array_equal(c1, cols)):  # pragma: no cover - internal consistency
        raise RuntimeError(f"{type(module).__name__}: probing found two different patterns")
    counts = np.rint(W_ones.data).astype(np.int64)
    if np.all(counts == 1):
        return W_ids, _ids(W_ids.data, K, "W", module), bias_index
    # entries summing several weights (padding_mode reflect / replicate / circular): one probe per
    # kernel tap -- within one tap, an entry (output pixel, input pixel, channel pair) meets at most
    # one weight
    taps = math.prod(w.shape[2:])
    if not isinstance(module, _CONV + _CONVT) or taps < 1:  # pragma: no cover - Linear never sums
        raise ValueError(f"{type(module).__name__}: stored entries of W sum several weights; cannot probe them")
    keys = _keys(rows, cols, W_ids.shape[1])
    m = int(counts.max())
    index = np.full((rows.size, m), K, dtype=np.int64)
    filled = np.zeros(rows.size, dtype=np.int64)
    ids = torch.arange(1, K + 1, dtype=torch.float64).reshape(w.shape)
    tap_of = torch.arange(K).reshape(w.shape) % taps
    for t in range(taps):
        with torch.no_grad():
            w.copy_(torch.where(tap_of == t, ids, torch.zeros_like(ids)))
        Wt, rt, ct = _csr_parts(from_module(probe, shape, dtype=np.float64)[0])
        nz = Wt.data != 0
        found = _keys(rt[nz], ct[nz], W_ids.shape[1])
        pos = np.searchsorted(keys, found)
        if np.any(pos >= keys.size) or np.any(keys[np.minimum(pos, keys.size - 1)] != found):
            raise RuntimeError(f"{type(module).__name__}: a tap probe left the pattern")  # pragma: no cover
        if np.any(filled[pos] >= m):  # pragma: no cover - internal consistency
            raise RuntimeError(f"{type(module).__name__}: more weights per entry than the count probe found")
        index[pos, filled[pos]] = _ids(Wt.data[nz], K, "W", module)
        filled[pos] += 1
    if not np.array_equal(filled, counts):
        raise ValueError(f"{type(module).__name__}: the per-tap probes do not account for every weight of W")
    ext = np.concatenate([np.arange(1, K + 1, dtype=np.float64), [0.0]])
    if not np.array_equal(ext[index].sum(1), W_ids.data):  # exact: integer sums below 2**53
        raise ValueError(f"{type(module).__name__}: the per-tap probes do not reproduce W")
    return W_ids, index, bias_index


def _output_shape(module: nn.Module, shape: tuple[int, ...]) -> tuple[int, ...]:
    probe = _probe_copy(module)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "same" padding with an even kernel warns about a copy
        y = probe(torch.zeros((1,) + shape, dtype=torch.float64))
    return tuple(int(s) for s in y.shape[1:])


def _check_input(x: torch.Tensor, values: torch.Tensor) -> None:
    if x.dtype != values.dtype:
        raise TypeError(f"SparseAffine: input dtype {x.dtype} does not match the values' dtype "
                        f"{values.dtype}; cast the input (x.to({values.dtype})) or the twin")
    if x.device != values.device:
        raise ValueError(f"SparseAffine: input is on {x.device} but the twin is on {values.device}; "
                         f"move one of them (.to(device))")


def _check_kernel(kernel: Any) -> str:
    # a string first: `in` on an array would compare elementwise (and raise NumPy's own error)
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be one of {', '.join(map(repr, TWIN_KERNELS))}, got {type(kernel).__name__} "
                        f"{kernel!r:.80}")
    if kernel not in TWIN_KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(map(repr, TWIN_KERNELS))}, got {kernel!r}")
    return kernel


class _KernelChoice:
    """A settable ``kernel``: ``"auto"`` or ``"sparse"`` (:data:`TWIN_KERNELS`), checked when set; the
    stages keep both forms, so it can change at any time. ``_kernel_set`` hands it on (a model's layers)."""

    @property
    def kernel(self) -> str:
        return self._kernel

    @kernel.setter
    def kernel(self, value: str) -> None:
        self._kernel = _check_kernel(value)
        self._kernel_set()

    def _kernel_set(self) -> None:
        pass


# ---------------------------------------------------------------------------------------------
# the twin
# ---------------------------------------------------------------------------------------------
class SparseAffine(_KernelChoice, nn.Module):
    r"""``y = W x + b`` on ``(N, *input_shape) -> (N, *output_shape)`` with a fixed sparse pattern.

    Parameters
    ----------
    W : scipy sparse matrix / array (or anything ``scipy.sparse.csr_array`` takes)
        Shape ``(prod(output_shape), prod(input_shape))``; its stored entries (explicit zeros
        included) are the fixed pattern. float32 / float64 keep their dtype; other real dtypes
        become ``torch.get_default_dtype()``.
    b : vector, optional
        Length ``W.shape[0]``; ``None``: no bias.
    input_shape : tuple of int
        One sample's shape (no batch axis).
    output_shape : tuple of int, optional
        Default ``(W.shape[0],)``.
    trainable : bool
        ``False``: values (and ``b``) are buffers, the gradient flows to the input only;
        ``True``: Parameters ``values`` (the stored entries, in CSR order) and ``bias``.

    kernel : {"auto", "sparse"}
        ``"auto"`` (default): each stage's cheapest exact product (:data:`TWIN_KERNELS`); ``"sparse"``: the
        CSR product and its adjoint for every stage.

    Use :meth:`from_module` for the twin of a torch layer, whose values are functions of the
    layer's parameters. Attributes: ``input_shape``, ``output_shape``, ``nnz`` (stored entries,
    all stages), ``module`` (the native layer, or ``None``), ``stages``.
    """

    def __init__(self, W: Any = None, b: Any = None, *, input_shape: Any, output_shape: Any = None,
                 trainable: bool = False, kernel: str = "auto") -> None:
        super().__init__()
        self.kernel = kernel
        self.input_shape = _shape(input_shape, None)
        self.module: nn.Module | None = None
        self.stages = nn.ModuleList()
        self._source = "matrix"
        if W is None:  # from_module fills the stages
            self.output_shape = self.input_shape if output_shape is None else _shape(output_shape, None)
            return
        if isinstance(W, torch.Tensor):
            raise TypeError("SparseAffine: W must be a SciPy sparse matrix (or a NumPy array), not a torch tensor; "
                            "convert it with W.detach().cpu().numpy()")
        W, rows, cols = _csr_parts(W)
        if W.dtype.kind == "c":
            raise TypeError(f"SparseAffine: W must be real, got dtype {W.dtype}")
        if W.dtype not in (np.float32, np.float64):
            W = W.astype(np.dtype(str(torch.get_default_dtype()).removeprefix("torch.")))
        n_in = math.prod(self.input_shape)
        if W.shape[1] != n_in:
            raise ValueError(f"SparseAffine: W has {W.shape[1]} columns but input_shape {self.input_shape} has "
                             f"{n_in} entries")
        out = (W.shape[0],) if output_shape is None else _shape(output_shape, None)
        if math.prod(out) != W.shape[0]:
            raise ValueError(f"SparseAffine: W has {W.shape[0]} rows but output_shape {out} has "
                             f"{math.prod(out)} entries")
        self.output_shape = out
        values = torch.from_numpy(np.ascontiguousarray(W.data))
        if b is not None:
            b = np.asarray(b.detach().cpu().numpy() if isinstance(b, torch.Tensor) else b)
            if b.dtype.kind == "c":
                raise TypeError(f"SparseAffine: b must be real, got dtype {b.dtype}")
            if b.shape != (W.shape[0],):
                raise ValueError(f"SparseAffine: b must have shape ({W.shape[0]},) (one per row of W), "
                                 f"got {b.shape}")
            bias = torch.from_numpy(np.ascontiguousarray(b.astype(W.dtype)))
        if trainable:
            self.values = nn.Parameter(values)
            self.bias = None if b is None else nn.Parameter(bias)
        else:
            self.register_buffer("values", values)
            self.register_buffer("bias", None if b is None else bias)
        self.stages.append(_Stage(rows, cols, self.input_shape, out, "own", None if b is None else "own"))

    # -----------------------------------------------------------------------------------------
    @classmethod
    def from_module(cls, module: Any, input_shape: Any, *, dtype: Any = None, kernel: str = "auto") -> SparseAffine:
        """The twin of a torch layer: values computed from ``module``'s parameters in every forward.

        ``module`` becomes the twin's child ``module`` (not a copy: its Parameters are the ones
        trained). ``input_shape``: one sample, no batch axis (as :func:`~isomat.torch.from_module`;
        ``BatchNorm1d``: ``(C,)`` or ``(C, L)``; ``BatchNorm2d``: ``(C, H, W)``; ``BatchNorm3d``:
        ``(C, D, H, W)``). ``dtype``: only for parameter-free modules (``AvgPool*``; default
        ``torch.get_default_dtype()``); otherwise the values take the parameters' dtype.
        """
        if not isinstance(module, nn.Module):
            raise TypeError(f"SparseAffine.from_module needs a torch.nn.Module, got {type(module).__name__}; "
                            f"supported: {', '.join(TWIN_SUPPORTED)}")
        shape = _shape(input_shape, None)
        kind = type(module)
        if dtype is not None and kind not in _AVG:
            raise ValueError(f"SparseAffine.from_module: dtype= is for parameter-free modules only; the values of "
                             f"{kind.__name__} take its parameters' dtype (cast the module instead)")
        twin = cls(input_shape=shape, kernel=kernel)
        twin._source = kind.__name__
        if kind in _CONV or kind in _CONVT or kind is nn.Linear:
            stage = twin._gather_stage(module, shape)
        elif kind in _AVG:
            dt = torch.get_default_dtype() if dtype is None else dtype
            W, _ = from_module(module, shape, dtype=dt)
            W, rows, cols = _csr_parts(W)
            stage = _Stage(rows, cols, shape, _output_shape(module, shape), "const")
            stage.register_buffer("const_values", torch.from_numpy(np.ascontiguousarray(W.data)), persistent=False)
        elif kind in _BN:
            stage = _bn_stage(module, _BN[kind], shape)
        elif kind in _MAX:
            raise TypeError(f"{kind.__name__} is data-dependent (its selection matrix S(x) changes with x), so it has "
                            f"no fixed-pattern SparseAffine; isomat.torch.from_module(module, input_shape, x=x) gives "
                            f"S(x) for one x. SparseAffine supports: {', '.join(TWIN_SUPPORTED)}")
        elif isinstance(module, LinearRNN):
            stages = _rnn_stages(module, shape)
        elif isinstance(module, nn.RNNBase):
            raise TypeError(f"{kind.__name__} is not affine (nn.RNN applies tanh/relu); use isomat.torch.LinearRNN. "
                            f"SparseAffine supports: {', '.join(TWIN_SUPPORTED)}")
        elif _is_ndlinear(module):
            stages = _ndlinear_stages(module, shape)
        else:
            raise TypeError(f"{kind.__name__} is not supported by SparseAffine.from_module; supported: "
                            f"{', '.join(TWIN_SUPPORTED)}")
        if kind in _CONV or kind in _CONVT or kind is nn.Linear or kind in _AVG or kind in _BN:
            stages = [stage]
        twin.module = module
        for s in stages:
            twin.stages.append(s)
        twin.output_shape = stages[-1].out_shape
        device = next((t.device for t in module.parameters()), None)
        if device is None:
            device = next((t.device for t in module.buffers()), None)
        if device is not None and device.type != "cpu":
            twin.stages.to(device)
        return twin

    def _gather_stage(self, module: nn.Module, shape: tuple[int, ...]) -> _Stage:
        W_ids, index, bias_index = _probe_gather(module, shape)
        _, rows, cols = _csr_parts(W_ids)
        out = _output_shape(module, shape)
        if math.prod(out) != W_ids.shape[0]:  # pragma: no cover - internal consistency
            raise RuntimeError(f"{type(module).__name__}: output {out} does not match W's {W_ids.shape[0]} rows")
        stage = _Stage(rows, cols, shape, out, "gather", None if bias_index is None else "gather",
                       value_ref="weight", bias_ref="bias")
        stage.index("value_index", index)
        if bias_index is not None:
            stage.index("bias_index", bias_index)
        K = math.prod(module.weight.shape)
        stage.identity_gather = index.ndim == 1 and index.size == K and np.array_equal(index, np.arange(K))
        if stage.form == "csr" and _layer_matches(
                module, shape, W_ids, None if bias_index is None else (bias_index + 1).astype(np.float64)):
            stage.form = "layer"
        return stage

    # -----------------------------------------------------------------------------------------
    @property
    def nnz(self) -> int:
        """Stored entries, all stages together."""
        return sum(s.nnz for s in self.stages)

    def _param(self, ref: str) -> torch.Tensor:
        # getattr, not get_parameter: torch.func.functional_call swaps Parameters for plain tensors
        assert self.module is not None
        path, _, name = ref.rpartition(".")
        return getattr(self.module.get_submodule(path) if path else self.module, name)

    def _stage_tensors(self, stage: _Stage) -> tuple[torch.Tensor, torch.Tensor | None]:
        kind = stage.value_kind
        bias = None
        if kind == "own":
            values = self.values
            bias = self.bias if stage.bias_kind == "own" else None
        elif kind == "const":
            values = stage.const_values
        elif kind == "gather":
            w = self._param(stage.value_ref).reshape(-1)
            idx = stage.value_index
            if stage.identity_gather:  # every weight once, in order (nn.Linear): the entries are the weight
                values = w
            elif idx.dim() == 1:
                values = _gather(w, idx)
            else:  # entries summing several weights; index K reads the appended zero
                values = torch.cat([w, w.new_zeros(1)])[idx].sum(1)
            if stage.bias_kind == "gather":
                bias = self._param(stage.bias_ref).reshape(-1)[stage.bias_index]
        elif kind == "bn":
            m = self.module
            scale = torch.rsqrt(m.running_var + m.eps)
            if m.weight is not None:
                scale = m.weight * scale
            shift = -m.running_mean * scale
            if m.bias is not None:
                shift = m.bias + shift
            values, bias = scale[stage.value_index], shift[stage.value_index]
        elif kind == "rnn":
            m, k = self.module, stage.layer
            U, V = getattr(m, f"weight_ih_l{k}"), getattr(m, f"weight_hh_l{k}")
            T = stage.out_shape[0]
            powers = [U]
            for _ in range(1, T):
                powers.append(V @ powers[-1])
            values = torch.stack(powers).reshape(-1)[stage.value_index]
            if m.bias:
                c = getattr(m, f"bias_ih_l{k}") + getattr(m, f"bias_hh_l{k}")
                acc, blocks = c, [c]
                for _ in range(1, T):
                    acc = V @ acc + c
                    blocks.append(acc)
                bias = torch.stack(blocks).reshape(-1)
        else:  # pragma: no cover - internal
            raise RuntimeError(f"unknown stage kind {kind!r}")
        return values, bias

    def stage_values(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """The current ``(values, bias)`` of every stage, as differentiable tensors (CSR order)."""
        return [self._stage_tensors(s) for s in self.stages]

    # -----------------------------------------------------------------------------------------
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"SparseAffine: input must be a torch.Tensor, got {type(x).__name__}")
        shape = tuple(x.shape)
        if shape == self.input_shape:
            unbatched, n = True, 1
        elif len(shape) == len(self.input_shape) + 1 and shape[1:] == self.input_shape:
            unbatched, n = False, shape[0]
        else:
            raise ValueError(f"SparseAffine: expected input of shape (N, *input_shape) = (N, "
                             f"{', '.join(map(str, self.input_shape))}) or input_shape {self.input_shape} "
                             f"(unbatched), got {shape}")
        h = x.reshape(n, -1)
        for i, stage in enumerate(self.stages):
            form = stage.form if self.kernel == "auto" else "csr"
            if form == "layer":  # torch's own layer on the weights the values are gathered from (_layer_matches)
                values = self._param(stage.value_ref)
                bias = self._param(stage.bias_ref) if stage.bias_kind == "gather" else None
            else:
                values, bias = self._stage_tensors(stage)
            if i == 0:
                _check_input(x, values)
            if form == "layer":
                h = _layer_apply(self.module, h.reshape((n,) + stage.in_shape), values, bias).reshape(n, -1)
                continue
            if form == "diag":
                h = h * values
            elif form == "dense":
                h = F.linear(h, values.view(stage.n_out, stage.n_in), bias)
                continue
            else:
                h = stage.apply_to(values, h)
            if bias is not None:
                h = h + bias
        out = h.reshape((n,) + tuple(self.output_shape))
        return out[0] if unbatched else out

    def to_scipy(self) -> tuple[sp.csr_array, np.ndarray]:
        """The current ``(W, b)`` (detached): ``W`` a ``csr_array`` (stages composed), ``b`` a NumPy
        vector (zeros without a bias), in the values' dtype."""
        W_tot = b_tot = None
        with torch.no_grad():
            for stage in self.stages:
                values, bias = self._stage_tensors(stage)
                v = values.detach().cpu().numpy()
                W = sp.csr_array((v, stage.cols.cpu().numpy(), stage.crow.cpu().numpy()),
                                 shape=(stage.n_out, stage.n_in))
                b = np.zeros(stage.n_out, dtype=v.dtype) if bias is None else bias.detach().cpu().numpy()
                if W_tot is None:
                    W_tot, b_tot = W, b
                else:
                    W_tot, b_tot = W @ W_tot, W @ b_tot + b
        if W_tot is None:  # pragma: no cover - a twin always has a stage
            raise RuntimeError("SparseAffine has no stages")
        return sp.csr_array(W_tot), np.asarray(b_tot)

    def extra_repr(self) -> str:
        parts = [f"input_shape={self.input_shape}", f"output_shape={self.output_shape}", f"nnz={self.nnz}"]
        if len(self.stages) > 1:
            parts.append(f"stages={len(self.stages)}")
        if self.module is None:
            parts.append(f"trainable={isinstance(self.values, nn.Parameter)}")
        return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# BatchNorm, LinearRNN, NdLinear stages
# ---------------------------------------------------------------------------------------------
def _bn_stage(module: nn.Module, d: int, shape: tuple[int, ...]) -> _Stage:
    name = type(module).__name__
    if module.training:
        raise ValueError(f"{name} is in training mode (module.training=True): it normalises with the batch's "
                         f"statistics, which is not an affine map of one sample; call module.eval() first")
    if not module.track_running_stats or module.running_mean is None or module.running_var is None:
        raise ValueError(f"{name} has track_running_stats=False: even in eval mode it normalises with the batch's "
                         f"statistics (no running statistics), which is not an affine map of one sample")
    allowed = {1: ((1, 2), "(C,) or (C, L)"), 2: ((3,), "(C, H, W)"), 3: ((4,), "(C, D, H, W)")}[d]
    if len(shape) not in allowed[0]:
        raise ValueError(f"{name} needs input_shape {allowed[1]} (no batch axis), got {shape}")
    if shape[0] != module.num_features:
        raise ValueError(f"{name} has num_features={module.num_features} but input_shape {shape} has "
                         f"{shape[0]} channels")
    n = math.prod(shape)
    diag = np.arange(n, dtype=np.int64)
    stage = _Stage(diag, diag, shape, shape, "bn", "bn")
    stage.index("value_index", diag // (n // shape[0]))
    return stage


def _rnn_stages(module: LinearRNN, shape: tuple[int, ...]) -> list[_Stage]:
    if len(shape) != 2:
        raise ValueError(f"LinearRNN needs input_shape (T, input_size) (2 entries, no batch axis), got {shape}")
    if shape[1] != module.input_size:
        raise ValueError(f"LinearRNN has input_size={module.input_size} but input_shape {shape} has {shape[1]} "
                         f"features (input_shape is (T, input_size), no batch axis)")
    if module.bidirectional or module.proj_size:
        raise ValueError("LinearRNN: bidirectional / proj_size are not supported")
    T, M = shape[0], module.hidden_size
    stages = []
    for k in range(module.num_layers):
        N = shape[1] if k == 0 else M
        t, s = np.tril_indices(T)
        t, s = t[:, None, None], s[:, None, None]
        a = np.arange(M)[None, :, None]
        c = np.arange(N)[None, None, :]
        full = (t.shape[0], M, N)
        rows = np.broadcast_to(t * M + a, full).reshape(-1)
        cols = np.broadcast_to(s * N + c, full).reshape(-1)
        idx = np.broadcast_to((t - s) * (M * N) + a * N + c, full).reshape(-1)
        order = np.lexsort((cols, rows))
        stage = _Stage(rows[order], cols[order], (T, N), (T, M), "rnn", "rnn" if module.bias else None, layer=k)
        stage.index("value_index", idx[order])
        stages.append(stage)
    return stages


def _ndlinear_stages(module: nn.Module, shape: tuple[int, ...]) -> list[_Stage]:
    dims = tuple(int(v) for v in module.input_dims)
    if shape != dims:
        raise ValueError(f"NdLinear has input_dims={dims} but input_shape is {shape} (one sample, no batch axis)")
    n = len(dims)
    for i, layer in enumerate(module.align_layers):
        if type(layer) is not nn.Linear:
            raise TypeError(f"NdLinear: align_layers[{i}] is {type(layer).__name__}, not nn.Linear")
    axes = range(n) if module.transform_outer else reversed(range(n))
    cur, stages = list(dims), []
    for a in axes:
        layer = module.align_layers[a]
        if layer.in_features != cur[a]:
            raise ValueError(f"NdLinear: align_layers[{a}] has in_features={layer.in_features}, axis {a} has {cur[a]}")
        pre, post = math.prod(cur[:a]), math.prod(cur[a + 1:])
        out_a = layer.out_features
        ids = sp.csr_array(np.arange(1, out_a * cur[a] + 1, dtype=np.float64).reshape(out_a, cur[a]))
        W = sp.kron(sp.kron(sp.eye_array(pre, format="csr"), ids), sp.eye_array(post, format="csr"), format="csr")
        W, rows, cols = _csr_parts(W)
        in_shape = tuple(cur)
        cur[a] = out_a
        stage = _Stage(rows, cols, in_shape, tuple(cur), "gather", None if layer.bias is None else "gather",
                       value_ref=f"align_layers.{a}.weight", bias_ref=f"align_layers.{a}.bias")
        stage.index("value_index", _ids(W.data, out_a * in_shape[a], "W", module))
        if layer.bias is not None:
            stage.index("bias_index", (np.arange(pre * out_a * post) // post) % out_a)
        stages.append(stage)
    return stages
