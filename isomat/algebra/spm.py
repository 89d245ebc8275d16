r"""Stagewise Pairwise Mixers (farag2025): sparse stages, matrix-free forward, exact backward.

An SPM layer on :math:`\mathbb{R}^n` is (farag2025, eq. 1--4)

.. math::

    \mathbf z_0 = D_{\mathrm{in}}\mathbf x,\qquad
    \mathbf z_\ell = B_\ell\,\mathbf z_{\ell-1}\ (\ell=1,\dots,L),\qquad
    \mathbf y = D_{\mathrm{out}}\mathbf z_L + \mathbf b,

so the layer matrix is :math:`D_{\mathrm{out}}\,B_L B_{L-1}\cdots B_1\,D_{\mathrm{in}}` (the
stage applied first stands rightmost; eq. (1) writes :math:`\prod_{\ell=1}^L B_\ell`, which must
be read in this order to agree with the recursion (2)--(4)).

Stage :math:`B_\ell` acts on the disjoint pairs :math:`(i_k, j_k)` of a pairing
:math:`\mathcal P_\ell` by a :math:`2\times2` block: a rotation :math:`M(\theta)` (variant
``"rotation"``, §3.1, eq. 5--6) or a general block :math:`\begin{bmatrix}a&b\\c&d\end{bmatrix}`
(variant ``"general"``, §3.2, eq. 10--11). For odd :math:`n` one coordinate per stage is
unpaired (§5) and is passed through (``odd="pass"``) or scaled by a learned scalar
(``odd="scale"``).

Batches are arrays of shape ``(..., n)`` whose last axis is the feature axis (row vectors, as in
``torch.nn.Linear``); every function works with float NumPy arrays and with NumPy object arrays
of SymPy expressions (exact, symbolic angles allowed) through the same vectorized code.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Sequence, cast, overload

import numpy as np
import sympy

from .. import _validate
from .._types import FieldArray, IndexTerm, SparseMatrix
from ._operator import Rendered
from ..gpu import register_raw_kernel_source
from . import _backend
from ._operator import SparseOperator, check_bytes, check_size, render, value_bytes

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

VARIANTS = ("rotation", "general")
ODD_MODES = ("pass", "scale")


# ---------------------------------------------------------------------------------------------
# Pairing schedules
# ---------------------------------------------------------------------------------------------
def _check_pairing(name: str, P: Any, n: int) -> np.ndarray:
    """A pairing of {0..n-1}: an int array of shape (n // 2, 2) using each index at most once."""
    arr = np.asarray(P)
    if arr.dtype == object or arr.dtype.kind not in "iu":
        if arr.size == 0 and n < 2:
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must be an integer array of shape ({n // 2}, 2), got dtype {arr.dtype}")
    if arr.shape != (n // 2, 2):
        raise ValueError(f"{name} must have shape ({n // 2}, 2) for n = {n}, got {arr.shape}")
    flat = arr.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise ValueError(f"{name} must hold indices in [0, {n - 1}], got values in [{flat.min()}, {flat.max()}]")
    if np.unique(flat).size != flat.size:
        raise ValueError(f"{name} must use each coordinate at most once (a matching), got repeated indices")
    return arr.astype(np.int64)


def butterfly_pairings(n: int, L: int | None = None) -> list[np.ndarray]:
    r"""Butterfly (XOR) schedule: stage :math:`\ell` pairs :math:`i` with :math:`i\oplus 2^{\ell \bmod m}`.

    :math:`m=\lceil\log_2 n\rceil` (at least 1) and ``L`` defaults to :math:`m`. When
    :math:`n` is not a power of two the partners :math:`\ge n` are missing; those coordinates
    are paired with each other in increasing order (one stays unpaired for odd :math:`n`).

    Parameters
    ----------
    n : int
        Dimension, positive.
    L : int, optional
        Number of stages, positive (default :math:`\lceil\log_2 n\rceil`, at least 1).

    Returns
    -------
    list of ndarray
        ``L`` int64 arrays of shape ``(n // 2, 2)``.
    """
    n = _validate.positive_int("n", n)
    m = max(1, math.ceil(math.log2(n))) if n > 1 else 1
    L = m if L is None else _validate.positive_int("L", L)
    check_bytes("butterfly_pairings", 8 * n * (L + 4), f"{L} stages of {n:,} indices")
    idx = np.arange(n, dtype=np.int64)
    out = []
    for ell in range(L):
        # the entry rule drives the builder: the partner is butterfly_partner (i XOR 2^l in integer
        # arithmetic), the function farag2025 §2.1's proof is about
        partner: Any = butterfly_partner(idx, 1 << (ell % m))
        ok = (partner < n) & (idx < partner)
        pairs = np.stack([idx[ok], partner[ok]], axis=1)
        left = idx[(partner >= n)]
        k = (left.size // 2) * 2
        extra = left[:k].reshape(-1, 2)
        out.append(np.concatenate([pairs, extra], axis=0).astype(np.int64).reshape(-1, 2))
    return out


def butterfly_partner(i: Any, P: Any) -> IndexTerm:
    r"""Entry rule of the butterfly schedule: the partner of coordinate ``i`` at the level with
    :math:`P = 2^\ell`, i.e. :math:`i \oplus 2^\ell` written in integer arithmetic,

    .. math::

        p_P(i) = \begin{cases} i + P & \lfloor i/P\rfloor \bmod 2 = 0,\\ i - P & \text{otherwise.}\end{cases}

    This is the scalar rule that :func:`butterfly_pairings` vectorizes (for :math:`n` a multiple
    of :math:`2P` every partner lies in :math:`[0, n)`); it acts on Python ints, NumPy arrays and
    Z3 terms alike, so the function the tests compare with the builder is the function that
    ``isomat.proofs.farag2025`` proves to be a fixed-point-free involution (farag2025 §2.1).
    """
    from .._types import fdiv, fmod, ite

    return ite(fmod(fdiv(i, P), 2) == 0, i + P, i - P)


def rotation_block(c: Any, s: Any) -> tuple[Any, Any, Any, Any]:
    r"""Entry rule of a rotation block (farag2025 eq. 5-6): the entries :math:`(a, b, c, d)` of
    :math:`M(\theta) = \begin{pmatrix}\cos\theta & -\sin\theta\\ \sin\theta & \cos\theta\end{pmatrix}`
    from ``c = cos θ``, ``s = sin θ``, in the order :meth:`SPM.blocks` stores them (row-major).

    It acts on NumPy / CuPy arrays, SymPy objects and Z3 terms alike: :meth:`SPM.blocks` builds
    every rotation stage from it, and ``isomat.proofs.farag2025`` defines the stage that its
    orthogonality proof (§6.5, §8.4) is about with the same function -- one source of truth.
    """
    return c, -s, s, c


def param_count(n: Any, L: Any, p: Any, s: Any) -> IndexTerm:
    r"""Trainable scalars of an SPM (farag2025 §5): :math:`p\,L\lfloor n/2\rfloor + 3n + s\,L\,(n \bmod 2)`
    with ``p`` parameters per block (1 rotation, 4 general) and ``s = 1`` when odd ``n`` has a
    learned scale (else 0). Works on ints and Z3 terms; :meth:`SPM.n_params` is this function, and
    farag2025 ``sec5/params`` proves it equal to the count over the structure and Θ(nL)."""
    from .._types import fdiv, fmod

    return p * L * fdiv(n, 2) + 3 * n + s * L * fmod(n, 2)


def random_pairings(n: int, L: int, *, seed: int | None = 0) -> list[np.ndarray]:
    """``L`` independent uniformly random (maximum) matchings of ``{0..n-1}`` from ``seed``."""
    n = _validate.positive_int("n", n)
    L = _validate.positive_int("L", L)
    seed = _validate.seed(seed)
    check_bytes("random_pairings", 2 * 8 * n * L, f"{L} permutations of {n:,} indices")
    rng = np.random.default_rng(seed)
    m = n // 2
    return [rng.permutation(n)[: 2 * m].reshape(m, 2).astype(np.int64) for _ in range(L)]


# ---------------------------------------------------------------------------------------------
# The layer
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SPM:
    r"""An SPM layer :math:`\mathbf y = D_{\mathrm{out}} B_L\cdots B_1 D_{\mathrm{in}}\mathbf x + \mathbf b` (farag2025 eq. 1).

    Build it with :func:`spm_layer`. ``pairs`` has shape ``(L, n // 2, 2)``; ``params`` shape
    ``(L, n // 2)`` (angles) or ``(L, n // 2, 4)`` (entries ``a, b, c, d``); ``single`` the
    unpaired coordinate of each stage (``-1`` for even ``n``); ``odd_scale`` shape ``(L,)``
    when ``odd == "scale"``.
    """

    n: int
    pairs: np.ndarray
    variant: str
    params: Any
    d_in: Any
    d_out: Any
    bias: Any
    odd: str
    odd_scale: Any
    single: np.ndarray
    field: str

    def __repr__(self) -> str:
        # a summary: the pairings and parameters are arrays of L·n/2 entries
        return (f"SPM(n={self.n}, L={self.L}, variant={self.variant!r}, odd={self.odd!r}, "
                f"bias={self.bias is not None}, field={self.field!r})")

    @property
    def L(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def blocks(self) -> FieldArray:
        """Block entries ``(a, b, c, d)`` per stage and pair, shape ``(L, n // 2, 4)``."""
        if self.variant == "general":
            return self.params
        c, s = _cos(self.params, self.field), _sin(self.params, self.field)
        blk = list(rotation_block(c, s))  # the entry rule (eq. 5-6)
        return _xp(self).stack(blk, axis=-1)

    def n_params(self) -> int:
        """Trainable scalars: stage parameters, both diagonals, bias and odd scales (§5)."""
        return int(param_count(self.n, self.L, 1 if self.variant == "rotation" else 4, int(self.odd == "scale")))

    def __call__(self, X: Any) -> FieldArray:
        return spm_forward(self, X)


def _xp(layer: SPM) -> Any:
    return _backend.array_module(layer.field)


def _cos(t: Any, field: str) -> FieldArray:
    if field == "sympy":
        return np.vectorize(sympy.cos, otypes=[object])(t) if np.size(t) else np.asarray(t, dtype=object)
    return _backend.array_module(field).cos(t)


def _sin(t: Any, field: str) -> FieldArray:
    if field == "sympy":
        return np.vectorize(sympy.sin, otypes=[object])(t) if np.size(t) else np.asarray(t, dtype=object)
    return _backend.array_module(field).sin(t)


def _vector(name: str, v: Any, n: int, field: str, default: Any) -> FieldArray:
    if v is None:
        v = default
    arr = _backend.as_values(v, field, name=name)
    if tuple(arr.shape) != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {tuple(arr.shape)}")
    return arr


def spm_layer(
    n: int,
    pairings: Sequence[Any] | str,
    params: Any,
    *,
    variant: str = "rotation",
    d_in: Any = None,
    d_out: Any = None,
    bias: Any = None,
    odd: str = "pass",
    odd_scale: Any = None,
    seed: int | None = 0,
    backend: str | None = None,
) -> SPM:
    r"""Build an SPM layer (farag2025 eq. 1, §3.1--3.2, §5).

    Parameters
    ----------
    n : int
        Dimension, positive.
    pairings : sequence of int arrays, or {"butterfly", "random"}
        One pairing per stage, each of shape ``(n // 2, 2)`` (disjoint coordinate pairs), or a
        schedule name: :func:`butterfly_pairings` / :func:`random_pairings` (with ``seed``); the
        number of stages is then read from ``params``.
    params : array
        Angles :math:`\theta_{\ell,k}` of shape ``(L, n // 2)`` (``variant="rotation"``) or
        block entries ``(a, b, c, d)`` of shape ``(L, n // 2, 4)`` (``variant="general"``).
        Floats, or SymPy numbers/symbols for the exact field.
    variant : {"rotation", "general"}
    d_in, d_out : array of shape (n,), optional
        Diagonals of :math:`D_{\mathrm{in}}, D_{\mathrm{out}}` (default ones).
    bias : array of shape (n,), optional
        :math:`\mathbf b` (default zeros).
    odd : {"pass", "scale"}
        For odd ``n``: the unpaired coordinate of each stage is passed through or multiplied
        by ``odd_scale[ell]`` (§5 (i), (ii)).
    odd_scale : array of shape (L,), optional
        Default ones.
    backend : {"sympy", "numpy", "cupy"}, optional
        Field; default from the inputs (SymPy in gives exact).

    Returns
    -------
    SPM
    """
    n = _validate.positive_int("n", n)
    variant = _validate.choice("variant", variant, VARIANTS)
    odd = _validate.choice("odd", odd, ODD_MODES)
    seed = _validate.seed(seed)  # checked whatever the schedule (it used to be read only for "random")
    field = _backend.resolve_field(backend, params, d_in, d_out, bias, odd_scale)
    P = _backend.as_values(params, field, name="params")
    m = n // 2
    want_ndim = 2 if variant == "rotation" else 3
    if P.ndim != want_ndim or P.shape[1] != m or (variant == "general" and P.shape[2] != 4) or P.shape[0] < 1:
        want = f"(L, {m})" if variant == "rotation" else f"(L, {m}, 4)"
        raise ValueError(f"params must have shape {want} with L >= 1 for variant {variant!r} and n = {n}, got {tuple(P.shape)}")
    L = int(P.shape[0])
    if isinstance(pairings, str):
        kind = _validate.choice("pairings", pairings, ("butterfly", "random"))
        pairings = butterfly_pairings(n, L) if kind == "butterfly" else random_pairings(n, L, seed=seed)
    if isinstance(pairings, np.ndarray) and pairings.ndim == 3:
        pairings = list(pairings)
    if not isinstance(pairings, Sequence) or len(pairings) != L:
        got = len(pairings) if isinstance(pairings, Sequence) else type(pairings).__name__
        raise ValueError(f"pairings must be a sequence of L = {L} pairings (one per stage of params), got {got}")
    pairs = np.stack([_check_pairing(f"pairings[{i}]", p, n) for i, p in enumerate(pairings)]) if m else np.zeros((L, 0, 2), np.int64)
    if n % 2:
        used = np.zeros((L, n), dtype=bool)
        used[np.repeat(np.arange(L), 2 * m), pairs.reshape(L, -1).reshape(-1)] = True
        single = np.argmin(used, axis=1).astype(np.int64)
    else:
        single = np.full(L, -1, dtype=np.int64)
    one = _backend.as_values(np.ones(n, dtype=np.int64), field)  # Integer 1 exact, 1.0 in a float field
    zero = _backend.as_values(np.zeros(n, dtype=np.int64), field)
    din = _vector("d_in", d_in, n, field, one)
    dout = _vector("d_out", d_out, n, field, one)
    b = _vector("bias", bias, n, field, zero)
    if odd == "scale":
        s = _vector("odd_scale", odd_scale, L, field, one[:1].repeat(L))
    else:
        if odd_scale is not None:
            raise ValueError("odd_scale is only used with odd='scale', got odd='pass' and an odd_scale")
        s = None
    xp = _backend.array_module(field)
    if field == "cupy":
        P = xp.asarray(P)
    return SPM(n, pairs, variant, P, din, dout, b, odd, s, single, field)


def random_spm(n: int, L: int | None = None, *, variant: str = "rotation", schedule: str = "butterfly",
               odd: str = "pass", seed: int = 0, dtype: Any = np.float64, diagonals: bool = True) -> SPM:
    """A float SPM with random parameters (angles in [-pi, pi], normal entries, diagonals
    near one, small bias) for tests and benchmarks."""
    n = _validate.positive_int("n", n)
    L = (max(1, math.ceil(math.log2(n))) if n > 1 else 1) if L is None else _validate.positive_int("L", L)
    variant = _validate.choice("variant", variant, VARIANTS)
    schedule = _validate.choice("schedule", schedule, ("butterfly", "random"))
    seed = _validate.seed(seed)
    if not isinstance(diagonals, bool):
        raise TypeError(f"diagonals must be a bool, got {diagonals!r}")
    check_bytes("random_spm", 8 * L * n * 4 + 8 * 6 * n, f"{L} stages of {n:,} features")
    if seed is None:  # random_pairings below needs an int seed of its own
        seed = int(np.random.default_rng().integers(2**62))
    rng = np.random.default_rng(seed)
    m = n // 2
    params = rng.uniform(-np.pi, np.pi, (L, m)) if variant == "rotation" else rng.standard_normal((L, m, 4)) / np.sqrt(2)
    pr = butterfly_pairings(n, L) if schedule == "butterfly" else random_pairings(n, L, seed=seed + 1)
    kw: dict[str, Any] = {}
    if diagonals:
        kw = dict(d_in=1 + 0.1 * rng.standard_normal(n), d_out=1 + 0.1 * rng.standard_normal(n),
                  bias=0.1 * rng.standard_normal(n))
    if odd == "scale":
        kw["odd_scale"] = 1 + 0.1 * rng.standard_normal(L)
    layer = spm_layer(n, pr, params.astype(dtype), variant=variant, odd=odd, **cast("dict[str, Any]", {k: np.asarray(v, dtype) for k, v in kw.items()}))
    return layer


# ---------------------------------------------------------------------------------------------
# Matrices
# ---------------------------------------------------------------------------------------------
def _need_layer(layer: Any) -> None:
    if not isinstance(layer, SPM):
        raise TypeError(f"layer must be an SPM (see spm_layer, random_spm), got {type(layer).__name__}")


def stage_operator(layer: SPM, ell: int) -> SparseOperator:
    r"""Stage :math:`B_{\ell}` (0-based ``ell``) as a :class:`SparseOperator` with
    :math:`4\lfloor n/2\rfloor + (n \bmod 2)` stored entries."""
    _need_layer(layer)
    ell = _validate.nonnegative_int("ell", ell)
    if ell >= layer.L:
        raise ValueError(f"ell must be in [0, {layer.L - 1}], got {ell}")
    n, field = layer.n, layer.field
    check_size("spm stage", (n, n), 4 * (n // 2) + n % 2, field=field)
    xp = _xp(layer)
    i = xp.asarray(layer.pairs[ell, :, 0])
    j = xp.asarray(layer.pairs[ell, :, 1])
    blk = layer.blocks()[ell]
    rows = [i, i, j, j]
    cols = [i, j, i, j]
    vals = [blk[:, 0], blk[:, 1], blk[:, 2], blk[:, 3]]
    if n % 2:
        k = xp.asarray(layer.single[ell : ell + 1])
        rows.append(k)
        cols.append(k)
        if layer.odd == "scale":
            vals.append(layer.odd_scale[ell : ell + 1])
        else:
            vals.append(_backend.as_values(np.ones(1, dtype=np.int64), field))
    return SparseOperator.build((n, n), xp.concatenate(rows), xp.concatenate(cols), xp.concatenate(vals), field)


def stage_matrix(layer: SPM, ell: int, *, format: str = "csr") -> Rendered:
    r"""Stage :math:`B_{\ell+1}` rendered in the layer's field (``sympy.SparseMatrix`` exact,
    ``scipy.sparse`` or ``cupyx`` float); see :func:`stage_operator`."""
    return render(stage_operator(layer, ell), format)


def _diag_operator(v: Any, field: str) -> SparseOperator:
    n = len(v)
    xp = _backend.array_module(field)
    idx = xp.arange(n)
    return SparseOperator.build((n, n), idx, idx, v, field)


def layer_matrix(layer: SPM, *, part: str = "layer", format: str = "csr") -> SparseMatrix:
    r"""The layer's matrix in its field.

    ``part="product"``: :math:`B_L\cdots B_1` (the stages in the order the recursion applies
    them, eq. 3); ``part="layer"``: :math:`D_{\mathrm{out}}B_L\cdots B_1D_{\mathrm{in}}` (eq. 1,
    without the bias). The product can fill in up to :math:`n^2` entries, checked against the
    memory bound first.
    """
    _need_layer(layer)
    part = _validate.choice("part", part, ("product", "layer"))
    format = _validate.choice("format", format, ("csr", "csc", "coo"))
    n = layer.n
    check_size("spm product", (n, n), min(n * n, n * 2 ** min(layer.L, 62)), field=layer.field)
    ops = [stage_operator(layer, ell) for ell in range(layer.L)]
    if part == "layer":
        ops = [_diag_operator(layer.d_in, layer.field), *ops, _diag_operator(layer.d_out, layer.field)]
    if layer.field == "sympy":
        M = ops[0].to_sympy()
        for op in ops[1:]:
            M = op.to_sympy() * M
        M = M.applyfunc(sympy.expand) if any(not v.is_number for v in M.values()) else M
        return sympy.SparseMatrix(M)
    M = ops[0].render("csr")
    for op in ops[1:]:
        M = op.render("csr") @ M
    return M.asformat(format)


# ---------------------------------------------------------------------------------------------
# Matrix-free forward and backward (§2.2, §3, §4)
# ---------------------------------------------------------------------------------------------
def _as_batch(name: str, X: Any, layer: SPM) -> FieldArray:
    _need_layer(layer)
    if layer.field == "sympy":
        A = _backend.as_values(X, "sympy", name=name)
    elif layer.field == "cupy":
        A = _xp(layer).asarray(X)
    else:
        A = np.asarray(X)
        if A.dtype == object:
            A = _backend.as_values(A, "numpy", name=name)
        if A.dtype.kind not in "fc":
            if A.dtype.kind not in "biu":
                raise TypeError(f"{name} must be numeric, got dtype {A.dtype}")
            A = A.astype(np.float64)
    if A.ndim < 1 or A.shape[-1] != layer.n:
        raise ValueError(f"{name} must have shape (..., {layer.n}) (last axis = features), got {tuple(A.shape)}")
    return A


def _stage_forward(layer: SPM, ell: int, z: Any, blk: Any) -> FieldArray:
    i, j = layer.pairs[ell, :, 0], layer.pairs[ell, :, 1]
    x1, x2 = z[..., i], z[..., j]
    out = z.copy()
    out[..., i] = blk[:, 0] * x1 + blk[:, 1] * x2  # eq. (5) / (10)
    out[..., j] = blk[:, 2] * x1 + blk[:, 3] * x2  # eq. (6) / (11)
    if layer.n % 2 and layer.odd == "scale":
        k = layer.single[ell]
        out[..., k] = z[..., k] * layer.odd_scale[ell]
    return out


@overload
def spm_forward(layer: SPM, X: Any, *, return_cache: Literal[False] = False) -> FieldArray: ...
@overload
def spm_forward(layer: SPM, X: Any, *, return_cache: bool) -> FieldArray | tuple[FieldArray, list[FieldArray]]: ...
def spm_forward(layer: SPM, X: Any, *, return_cache: bool = False
                ) -> FieldArray | tuple[FieldArray, list[FieldArray]]:
    r"""Matrix-free forward over a batch, eq. (2)--(4): ``X`` of shape ``(..., n)``.

    Cost :math:`O(nL)` per example: one gather and four multiply-adds per pair and stage.
    With ``return_cache`` also returns the list :math:`[\mathbf z_0,\dots,\mathbf z_L]` that
    :func:`spm_backward` reuses.

    In the cupy field with float32 / float64 values each stage is one CUDA kernel launch (a
    thread per batch row and pair, eq. 5-6 / 10-11); float32 stays float32. Complex values and
    the other fields run the array code.
    """
    return_cache = _validate.boolean("return_cache", return_cache)
    X = _as_batch("X", X, layer)
    rows = int(np.prod(X.shape[:-1]))
    # the L + 1 activations (kept whether or not they are returned), a stage's gathered pairs and
    # their products, the output and its temporary: refused before any is made
    n_arrays = layer.L + 6
    check_bytes("spm_forward", rows * layer.n * n_arrays * value_bytes(layer.field),
                f"the spm forward activations ({n_arrays} arrays of {rows:,} x {layer.n:,})")
    dt = _device_dtype(layer, X)
    if dt is not None:  # cupy field, real values: one RawKernel launch per stage
        return _device_forward(layer, X, dt, return_cache)
    blk = layer.blocks()
    z = X * layer.d_in  # eq. (2)
    zs = [z]
    for ell in range(layer.L):
        z = _stage_forward(layer, ell, z, blk[ell])  # eq. (3)
        zs.append(z)
    y = z * layer.d_out + layer.bias  # eq. (4)
    return (y, zs) if return_cache else y


def _shape_of(z: Any) -> tuple[int, ...]:
    # an array's own shape (np.shape of a CuPy array dispatches to CuPy, which need not define it)
    shape = getattr(z, "shape", None)
    return tuple(shape) if shape is not None else tuple(np.shape(z))


def spm_backward(layer: SPM, X: Any, G: Any, *, cache: Any = None) -> dict[str, Any]:
    r"""Exact gradients of :math:`\mathcal L` given :math:`G=\partial\mathcal L/\partial Y` (§4).

    Output diagonal and bias, eq. (15)--(17); stages in reverse order with
    :math:`\mathbf g_{z_{\ell-1}}=B_\ell^{\mathsf T}\mathbf g_{z_\ell}` per pair by eq. (7)--(8)
    or (12)--(13), angle gradients eq. (9), entry gradients eq. (14); input diagonal eq.
    (18)--(19). Parameter gradients are summed over all leading (batch) axes (§4, "Batch
    setting"); the input gradient keeps the batch shape.

    In the cupy field with float32 / float64 values each stage is one CUDA kernel launch (input
    gradient and per-row-chunk parameter terms), and one reduction sums the parameter terms of
    all stages over the batch, deterministically (no atomics).

    Returns
    -------
    dict
        ``"x"`` (shape of ``X``), ``"params"`` (shape of ``layer.params``), ``"d_in"``,
        ``"d_out"``, ``"bias"`` (shape ``(n,)``) and, when ``odd == "scale"`` with odd ``n``,
        ``"odd_scale"`` (shape ``(L,)``).
    """
    X = _as_batch("X", X, layer)
    G = _as_batch("G", G, layer)
    if G.shape != X.shape:
        raise ValueError(f"G must have the shape of X {tuple(X.shape)}, got {tuple(G.shape)}")
    if cache is not None and (not isinstance(cache, (list, tuple)) or len(cache) != layer.L + 1
                              or any(_shape_of(z) != tuple(X.shape) for z in cache)):
        got = f"{type(cache).__name__} of length {len(cache)}" if isinstance(cache, (list, tuple)) else type(cache).__name__
        raise TypeError(f"cache must be None or the list of L + 1 = {layer.L + 1} activations of X's shape "
                        f"{tuple(X.shape)} that spm_forward(..., return_cache=True) returns, got {got}")
    rows = int(np.prod(X.shape[:-1]))
    # the L + 1 cached activations (when computed here), the gradient, its next stage and the
    # gathered pairs (four half-width arrays), the input gradient: refused before any is made
    n_arrays = (layer.L + 1 if cache is None else 0) + 7
    check_bytes("spm_backward", rows * layer.n * n_arrays * value_bytes(layer.field),
                f"{n_arrays} arrays of {rows:,} x {layer.n:,} activations")
    dt = _device_dtype(layer, X, G)
    if dt is not None:  # cupy field, real values: one RawKernel launch per stage
        return _device_backward(layer, X, G, cache, dt)
    zs = spm_forward(layer, X, return_cache=True)[1] if cache is None else cache
    axes = tuple(range(X.ndim - 1))
    red = (lambda a: a.sum(axis=axes)) if axes else (lambda a: a)
    blk = layer.blocks()
    g = G * layer.d_out  # eq. (15)
    grads: dict[str, Any] = {"bias": red(G), "d_out": red(G * zs[-1])}  # eq. (16), (17)
    gp = []
    gs = []
    for ell in range(layer.L - 1, -1, -1):
        i, j = layer.pairs[ell, :, 0], layer.pairs[ell, :, 1]
        x1, x2 = zs[ell][..., i], zs[ell][..., j]
        d1, d2 = g[..., i], g[..., j]
        a, b, c, d = blk[ell, :, 0], blk[ell, :, 1], blk[ell, :, 2], blk[ell, :, 3]
        if layer.variant == "rotation":
            # eq. (9): dL/dθ = δ1(−sinθ x1 − cosθ x2) + δ2(cosθ x1 − sinθ x2), with c = cos, s = sin
            cs, sn = a, c
            gp.append(red(d1 * (-sn * x1 - cs * x2) + d2 * (cs * x1 - sn * x2)))
        else:
            # eq. (14)
            gp.append(_xp(layer).stack([red(d1 * x1), red(d1 * x2), red(d2 * x1), red(d2 * x2)], axis=-1))
        gn = g.copy()
        gn[..., i] = a * d1 + c * d2  # eq. (7) / (12)
        gn[..., j] = b * d1 + d * d2  # eq. (8) / (13)
        if layer.n % 2 and layer.odd == "scale":
            k = layer.single[ell]
            gs.append(red(g[..., k] * zs[ell][..., k]))
            gn[..., k] = g[..., k] * layer.odd_scale[ell]
        g = gn
    stack = _xp(layer).stack
    grads["params"] = stack(gp[::-1], axis=0)
    grads["d_in"] = red(g * X)  # eq. (19)
    grads["x"] = g * layer.d_in  # eq. (18)
    if layer.n % 2 and layer.odd == "scale":
        grads["odd_scale"] = stack(gs[::-1], axis=0)
    return grads


def spm_transpose_apply(layer: SPM, G: Any) -> FieldArray:
    r""":math:`G\,(D_{\mathrm{out}}B_L\cdots B_1D_{\mathrm{in}})` row-wise, i.e. the adjoint
    :math:`\mathrm{SPM}^{\mathsf T}` of the linear part applied to each row (§7.3)."""
    G = _as_batch("G", G, layer)
    blk = layer.blocks()
    g = G * layer.d_out
    for ell in range(layer.L - 1, -1, -1):
        i, j = layer.pairs[ell, :, 0], layer.pairs[ell, :, 1]
        d1, d2 = g[..., i], g[..., j]
        gn = g.copy()
        gn[..., i] = blk[ell, :, 0] * d1 + blk[ell, :, 2] * d2
        gn[..., j] = blk[ell, :, 1] * d1 + blk[ell, :, 3] * d2
        if layer.n % 2 and layer.odd == "scale":
            k = layer.single[ell]
            gn[..., k] = g[..., k] * layer.odd_scale[ell]
        g = gn
    return g * layer.d_in


# ---------------------------------------------------------------------------------------------
# Device kernels (cupy field, float32 / float64): one CUDA launch per stage
# ---------------------------------------------------------------------------------------------
# Run stage by stage as CuPy array operations, a stage costs about 16 kernel launches forward
# (gathers, products, sums, scatters) and 28 backward, each moving a few MB at most: on an H100
# the forward took 3.5-4.6 ms whatever n, launch overhead, where one stage's traffic is a few us.
# Each stage is therefore one RawKernel: a thread per (batch row, pair) reads x_i, x_j and writes
# y_i, y_j (eq. 5-6 / 10-11); the extra slot k = m of odd n copies or scales the unpaired
# coordinate, so that a launch writes every coordinate and two buffers can alternate.
# Threads of a warp take consecutive pairs of one row: the butterfly's pairs hit neighbouring
# addresses. 64-bit index arithmetic (rows * n passes 2**31 for large batches); grid-stride loops
# so any grid covers any size. No headers: NVRTC has none, cos/sin/cosf/sinf are builtins.
_STAGE_FORWARD_SOURCE = r"""
extern "C" __global__ void isomat_spm_stage_forward_SUFFIX(
    const T* __restrict__ z, T* __restrict__ out, const long long* __restrict__ pairs,
    const T* __restrict__ params, const long long* __restrict__ single, const T* __restrict__ scale,
    long long rows, long long n, long long m, long long ell, long long rotation)
{
  const long long w = m + (n & 1);  /* pairs, plus the unpaired coordinate of odd n */
  const long long total = rows * w;
  const long long step = (long long)blockDim.x * gridDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const long long r = t / w, k = t - r * w;
    const T* zr = z + r * n;
    T* yr = out + r * n;
    if (k < m) {
      const long long p = ell * m + k;
      const long long i = pairs[2 * p], j = pairs[2 * p + 1];
      T a, b, c, d;
      if (rotation) {  /* M(theta) = [[cos, -sin], [sin, cos]] (eq. 5-6, rotation_block) */
        const T cs = COS(params[p]), sn = SIN(params[p]);
        a = cs; b = -sn; c = sn; d = cs;
      } else {  /* [[a, b], [c, d]] (eq. 10-11) */
        a = params[4 * p]; b = params[4 * p + 1]; c = params[4 * p + 2]; d = params[4 * p + 3];
      }
      const T x1 = zr[i], x2 = zr[j];
      yr[i] = a * x1 + b * x2;
      yr[j] = c * x1 + d * x2;
    } else {  /* odd n: passed through (odd="pass") or scaled by odd_scale[ell] (§5) */
      const long long s = single[ell];
      yr[s] = scale != nullptr ? zr[s] * scale[ell] : zr[s];
    }
  }
}
"""
# Backward of one stage: a thread per (chunk of rows, pair) writes g_{z_{l-1}} = B_l^T g_{z_l} for
# the chunk's rows (eq. 7-8 / 12-13) and sums its rows' parameter-gradient terms (eq. 9 / 14, the
# odd scale's g_k z_k) into contrib[chunk, ell, :]; one deterministic `.sum(axis=0)` over chunks
# after the last stage finishes the batch sums (no atomics: results do not depend on scheduling).
# Chunks of a few rows keep contrib at most one activation array in size.
_STAGE_BACKWARD_SOURCE = r"""
extern "C" __global__ void isomat_spm_stage_backward_SUFFIX(
    const T* __restrict__ z, const T* __restrict__ g, T* __restrict__ gn, T* __restrict__ contrib,
    const long long* __restrict__ pairs, const T* __restrict__ params, const long long* __restrict__ single,
    const T* __restrict__ scale, long long rows, long long n, long long m, long long ell, long long L,
    long long chunk, long long n_chunks, long long rotation)
{
  const long long w = m + (n & 1);
  const long long per = rotation ? 1 : 4;  /* parameters per pair */
  const long long wc = m * per + (scale != nullptr ? 1 : 0);  /* contrib entries per stage */
  const long long total = n_chunks * w;
  const long long step = (long long)blockDim.x * gridDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const long long q = t / w, k = t - q * w;
    const long long r0 = q * chunk, r1 = (r0 + chunk < rows) ? r0 + chunk : rows;
    T* acc = contrib + (q * L + ell) * wc;
    if (k < m) {
      const long long p = ell * m + k;
      const long long i = pairs[2 * p], j = pairs[2 * p + 1];
      T a, b, c, d;
      if (rotation) {
        const T cs = COS(params[p]), sn = SIN(params[p]);
        a = cs; b = -sn; c = sn; d = cs;
      } else {
        a = params[4 * p]; b = params[4 * p + 1]; c = params[4 * p + 2]; d = params[4 * p + 3];
      }
      T e0 = 0, e1 = 0, e2 = 0, e3 = 0;
      for (long long r = r0; r < r1; ++r) {
        const T x1 = z[r * n + i], x2 = z[r * n + j];
        const T d1 = g[r * n + i], d2 = g[r * n + j];
        gn[r * n + i] = a * d1 + c * d2;  /* eq. (7) / (12) */
        gn[r * n + j] = b * d1 + d * d2;  /* eq. (8) / (13) */
        if (rotation) {  /* eq. (9) with cos = a, sin = c */
          e0 += d1 * (-c * x1 - a * x2) + d2 * (a * x1 - c * x2);
        } else {  /* eq. (14) */
          e0 += d1 * x1; e1 += d1 * x2; e2 += d2 * x1; e3 += d2 * x2;
        }
      }
      if (rotation) {
        acc[k] = e0;
      } else {
        acc[4 * k] = e0; acc[4 * k + 1] = e1; acc[4 * k + 2] = e2; acc[4 * k + 3] = e3;
      }
    } else {
      const long long s = single[ell];
      T e = 0;
      for (long long r = r0; r < r1; ++r) {
        const T gs = g[r * n + s];
        if (scale != nullptr) {
          e += gs * z[r * n + s];
          gn[r * n + s] = gs * scale[ell];
        } else {
          gn[r * n + s] = gs;
        }
      }
      if (scale != nullptr) acc[m * per] = e;
    }
  }
}
"""
_KERNELS: dict[tuple, Any] = {}
_DEVICE_INDEX: "weakref.WeakKeyDictionary[SPM, tuple[int, Any, Any]]" = weakref.WeakKeyDictionary()
_THREADS = 256


def _kernel_source(dtype: Any, name: str) -> tuple[str, str]:
    """``(kernel name, CUDA source)`` of the stage kernel ``name`` ("forward" / "backward") for
    float32 or float64."""
    f64 = np.dtype(dtype) == np.float64
    ctype, suffix = ("double", "f64") if f64 else ("float", "f32")
    cos, sin = ("cos", "sin") if f64 else ("cosf", "sinf")  # float32 math stays float32
    source = (_STAGE_FORWARD_SOURCE if name == "forward" else _STAGE_BACKWARD_SOURCE)
    source = source.replace("SUFFIX", suffix).replace("COS", cos).replace("SIN", sin)
    return f"isomat_spm_stage_{name}_{suffix}", f"typedef {ctype} T;\n" + source


for _dtype in (np.float32, np.float64):  # declared for the NVRTC test (tests/test_nvrtc.py)
    for _name in ("forward", "backward"):
        register_raw_kernel_source(*_kernel_source(_dtype, _name))


def _device_kernel(cp: Any, dtype: np.dtype, name: str) -> Any:
    """The compiled stage kernel ``name`` ("forward" / "backward") for float32 or float64, made
    once per CuPy module."""
    key = (id(cp), np.dtype(dtype).name, name)
    if key not in _KERNELS:
        _KERNELS[key] = cp.RawKernel(*reversed(_kernel_source(dtype, name)))
    return _KERNELS[key]


def _device_dtype(layer: SPM, *arrays: Any) -> np.dtype | None:
    """The real dtype the cupy-field computation has (NumPy's promotion of the inputs and the
    layer's arrays, as the array code promotes them), or None where the kernels do not apply
    (another field, complex or object values: today's array code runs)."""
    if layer.field != "cupy":
        return None
    parts = [a.dtype for a in arrays] + [layer.params.dtype, layer.d_in.dtype, layer.d_out.dtype, layer.bias.dtype]
    if layer.odd_scale is not None:
        parts.append(layer.odd_scale.dtype)
    try:
        dt = np.result_type(*parts)
    except TypeError:
        return None
    if dt.kind == "b" or dt.kind in "iu":  # integer inputs and layer: the array code gives float64
        dt = np.dtype(np.float64)
    return dt if dt in (np.float32, np.float64) else None


def _device_index(cp: Any, layer: SPM) -> tuple[Any, Any]:
    """The layer's pairings ``(L, m, 2)`` and unpaired coordinates ``(L,)`` on the device, int64,
    copied once per layer (they are fixed and checked when spm_layer builds it)."""
    got = _DEVICE_INDEX.get(layer)
    if got is None or got[0] != id(cp):
        got = (id(cp), cp.asarray(np.ascontiguousarray(layer.pairs, dtype=np.int64)),
               cp.asarray(np.ascontiguousarray(layer.single, dtype=np.int64)))
        _DEVICE_INDEX[layer] = got
    return got[1], got[2]


def _device_operands(cp: Any, layer: SPM, dt: np.dtype) -> tuple[Any, Any]:
    """Contiguous ``params`` and ``odd_scale`` (None unless odd n with odd="scale") in ``dt``."""
    params = cp.ascontiguousarray(layer.params, dtype=dt)
    want = (layer.L, layer.n // 2) if layer.variant == "rotation" else (layer.L, layer.n // 2, 4)
    if tuple(params.shape) != want:
        raise ValueError(f"layer.params must have shape {want} for variant {layer.variant!r}, "
                         f"got {tuple(params.shape)}")
    scale = None
    if layer.n % 2 and layer.odd == "scale":
        scale = cp.ascontiguousarray(layer.odd_scale, dtype=dt)
        if tuple(scale.shape) != (layer.L,):
            raise ValueError(f"layer.odd_scale must have shape ({layer.L},), got {tuple(scale.shape)}")
    return params, scale


def _grid(total: int) -> tuple[tuple[int], tuple[int]]:
    return (min(-(-total // _THREADS), 1 << 20),), (_THREADS,)  # the kernels loop over the rest


def _device_stages_forward(cp: Any, layer: SPM, Xc: Any, dt: np.dtype, keep: bool) -> Any:
    """:math:`z_0 = D_{in} x` (eq. 2) for ``Xc`` (rows, n), then the L stages, eq. (3): L launches of
    the forward stage kernel.

    ``keep``: returns all activations ``(L + 1, rows, n)``; else the last one, two buffers
    alternating."""
    rows, n = (int(s) for s in Xc.shape)
    L, m = layer.L, n // 2
    pairs, single = _device_index(cp, layer)
    params, scale = _device_operands(cp, layer, dt)
    kern = _device_kernel(cp, dt, "forward")
    if keep:
        Z = cp.empty((L + 1, rows, n), dtype=dt)
        bufs = [Z[ell] for ell in range(L + 1)]
    else:
        pair = (cp.empty((rows, n), dtype=dt), cp.empty((rows, n), dtype=dt))
        bufs = [pair[ell % 2] for ell in range(L + 1)]
    cp.multiply(Xc, cp.asarray(layer.d_in, dtype=dt), out=bufs[0])  # eq. (2)
    total = rows * (m + n % 2)
    i64 = np.int64
    for ell in range(L):
        if total:
            kern(*_grid(total), (bufs[ell], bufs[ell + 1], pairs, params, single, scale, i64(rows), i64(n),
                                 i64(m), i64(ell), i64(layer.variant == "rotation")))
    return Z if keep else bufs[L]


def _device_forward(layer: SPM, X: Any, dt: np.dtype, return_cache: bool
                    ) -> FieldArray | tuple[FieldArray, list[FieldArray]]:
    """:func:`spm_forward` in the cupy field with the stage kernels (eq. 2-4)."""
    cp = _xp(layer)
    shape = tuple(X.shape)
    n = layer.n
    rows = int(np.prod(shape[:-1]))
    Xc = cp.ascontiguousarray(X, dtype=dt).reshape(rows, n)
    Z = _device_stages_forward(cp, layer, Xc, dt, return_cache)
    ZL = Z[layer.L] if return_cache else Z
    y = (ZL * cp.asarray(layer.d_out, dtype=dt) + cp.asarray(layer.bias, dtype=dt)).reshape(shape)  # eq. (4)
    if not return_cache:
        return y
    return y, [Z[ell].reshape(shape) for ell in range(layer.L + 1)]


def _device_backward(layer: SPM, X: Any, G: Any, cache: Any, dt: np.dtype) -> dict[str, Any]:
    """:func:`spm_backward` in the cupy field: one launch of the backward stage kernel per stage,
    then one reduction for all parameter gradients (eq. 7-9, 12-14), eq. (15)-(19) as arrays."""
    cp = _xp(layer)
    shape, n, L, m = tuple(X.shape), layer.n, layer.L, layer.n // 2
    rows = int(np.prod(shape[:-1]))
    Xc = cp.ascontiguousarray(X, dtype=dt).reshape(rows, n)
    Gc = cp.ascontiguousarray(G, dtype=dt).reshape(rows, n)
    if cache is None:
        zs = list(_device_stages_forward(cp, layer, Xc, dt, True))
    else:
        zs = [cp.ascontiguousarray(cp.asarray(z), dtype=dt).reshape(rows, n) for z in cache]
    pairs, single = _device_index(cp, layer)
    params, scale = _device_operands(cp, layer, dt)
    per = 1 if layer.variant == "rotation" else 4
    wc = m * per + (scale is not None)
    # rows per thread: enough that contrib (n_chunks, L, wc) holds at most rows * n values
    n_chunks = max(1, min(rows, (rows * n) // max(1, L * wc)))
    chunk = max(1, -(-rows // n_chunks))
    n_chunks = -(-rows // chunk) if rows else 0
    contrib = cp.empty((n_chunks, L, wc), dtype=dt)
    g = Gc * cp.asarray(layer.d_out, dtype=dt)  # eq. (15)
    gn = cp.empty((rows, n), dtype=dt)
    kern = _device_kernel(cp, dt, "backward")
    total = n_chunks * (m + n % 2)
    i64 = np.int64
    for ell in range(L - 1, -1, -1):
        if total:
            kern(*_grid(total), (zs[ell], g, gn, contrib, pairs, params, single, scale, i64(rows), i64(n), i64(m),
                                 i64(ell), i64(L), i64(chunk), i64(n_chunks), i64(layer.variant == "rotation")))
        g, gn = gn, g
    acc = contrib.sum(axis=0) if n_chunks else cp.zeros((L, wc), dtype=dt)  # batch sums, one reduction
    grads: dict[str, Any] = {"bias": Gc.sum(axis=0), "d_out": (Gc * zs[-1]).sum(axis=0)}  # eq. (16), (17)
    grads["params"] = cp.ascontiguousarray(acc[:, : m * per]).reshape(layer.params.shape)
    grads["d_in"] = (g * Xc).sum(axis=0)  # eq. (19)
    grads["x"] = (g * cp.asarray(layer.d_in, dtype=dt)).reshape(shape)  # eq. (18)
    if scale is not None:
        grads["odd_scale"] = cp.ascontiguousarray(acc[:, m * per])
    if len(shape) == 1:  # no batch axis: the array code's sums are over no axes
        for k in ("bias", "d_out", "d_in"):
            grads[k] = grads[k].reshape(n)
    return grads


# ---------------------------------------------------------------------------------------------
# Elementwise nonlinearities in a field
# ---------------------------------------------------------------------------------------------
def _sigmoid(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.vectorize(lambda v: 1 / (1 + sympy.exp(-v)), otypes=[object])(x)
    return 1.0 / (1.0 + np.exp(-x))


def _tanh(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.vectorize(sympy.tanh, otypes=[object])(x)
    return np.tanh(x)


def _exp(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.vectorize(sympy.exp, otypes=[object])(x)
    return np.exp(x)


# ---------------------------------------------------------------------------------------------
# GRU with SPM maps (§6)
# ---------------------------------------------------------------------------------------------
GRU_MAPS = ("Wz", "Uz", "Wr", "Ur", "Wh", "Uh")


def _check_maps(name: str, maps: Any, keys: Sequence[str]) -> dict[str, SPM]:
    if not isinstance(maps, dict) or set(maps) != set(keys):
        got = sorted(maps) if isinstance(maps, dict) else type(maps).__name__
        raise ValueError(f"{name} must be a dict with keys {list(keys)}, got {got}")
    ns = {k: maps[k].n for k in keys if isinstance(maps[k], SPM)}
    if len(ns) != len(keys):
        raise TypeError(f"{name} values must be SPM layers")
    if len(set(ns.values())) != 1:
        raise ValueError(f"{name}: all SPM maps must have the same n (SPM is square), got {ns}")
    return maps


def spm_gru_forward(maps: dict[str, SPM], x: Any, h: Any) -> tuple[Any, dict[str, Any]]:
    r"""One GRU step with every dense map replaced by an SPM (farag2025 eq. 20--23, §6.2).

    .. math::

        z=\sigma(\mathrm{SPM}_{W_z}(x)+\mathrm{SPM}_{U_z}(h)),\quad
        r=\sigma(\mathrm{SPM}_{W_r}(x)+\mathrm{SPM}_{U_r}(h)),\\
        \tilde h=\tanh(\mathrm{SPM}_{W_h}(x)+\mathrm{SPM}_{U_h}(r\odot h)),\quad
        h'=(1-z)\odot h+z\odot\tilde h.

    The biases :math:`b_z, b_r, b_h` are the SPM biases. SPM is square, so :math:`n_x=n_h`.
    ``x`` and ``h`` have shape ``(..., n)``. Returns ``h'`` and the cache for
    :func:`spm_gru_backward`.
    """
    maps = _check_maps("maps", maps, GRU_MAPS)
    s = spm_forward(maps["Wz"], x) + spm_forward(maps["Uz"], h)
    q = spm_forward(maps["Wr"], x) + spm_forward(maps["Ur"], h)
    z, r = _sigmoid(s), _sigmoid(q)
    rh = r * h
    a = spm_forward(maps["Wh"], x) + spm_forward(maps["Uh"], rh)
    ht = _tanh(a)
    h_new = (1 - z) * h + z * ht
    return h_new, dict(x=x, h=h, z=z, r=r, rh=rh, ht=ht)


def spm_gru_backward(maps: dict[str, SPM], cache: dict[str, Any], g_h: Any) -> dict[str, Any]:
    r"""Closed-form backward of :func:`spm_gru_forward` (farag2025 eq. 24--28 and §6.4).

    :math:`g_z=g_h\odot(\tilde h-h)` (24), :math:`g_{\tilde h}=g_h\odot z` (25),
    :math:`g^{(1)}_{h}=g_h\odot(1-z)` (26), :math:`g_a=g_{\tilde h}\odot(1-\tilde h^2)`,
    :math:`g_s=g_z\odot z\odot(1-z)` (27), :math:`g_q=g_r\odot r\odot(1-r)` (28), with
    :math:`g_r=(\mathrm{SPM}_{U_h}^{\mathsf T}g_a)\odot h` (not printed in the paper) and the SPM
    backward of §4 for each map. The total :math:`g_h` adds to (26) the paths through
    :math:`U_z, U_r, U_h` and :math:`r`.

    Returns
    -------
    dict
        ``"x"``, ``"h"`` and, per map name, the :func:`spm_backward` dict of that SPM.
    """
    maps = _check_maps("maps", maps, GRU_MAPS)
    x, h, z, r, rh, ht = (cache[k] for k in ("x", "h", "z", "r", "rh", "ht"))
    g_z = g_h * (ht - h)  # (24)
    g_ht = g_h * z  # (25)
    g_h1 = g_h * (1 - z)  # (26)
    g_a = g_ht * (1 - ht * ht)
    g_s = g_z * z * (1 - z)  # (27)
    bw_Wh = spm_backward(maps["Wh"], x, g_a)
    bw_Uh = spm_backward(maps["Uh"], rh, g_a)
    g_r = bw_Uh["x"] * h
    g_q = g_r * r * (1 - r)  # (28)
    out: dict[str, Any] = {"Wh": bw_Wh, "Uh": bw_Uh}
    out["Wz"], out["Uz"] = spm_backward(maps["Wz"], x, g_s), spm_backward(maps["Uz"], h, g_s)
    out["Wr"], out["Ur"] = spm_backward(maps["Wr"], x, g_q), spm_backward(maps["Ur"], h, g_q)
    out["x"] = bw_Wh["x"] + out["Wz"]["x"] + out["Wr"]["x"]
    out["h"] = g_h1 + bw_Uh["x"] * r + out["Uz"]["x"] + out["Ur"]["x"]
    return out


# ---------------------------------------------------------------------------------------------
# Scaled dot-product attention with SPM projections (§7)
# ---------------------------------------------------------------------------------------------
ATTN_MAPS = ("Q", "K", "V", "O")


def spm_attention_forward(maps: dict[str, SPM], X: Any, *, d_h: Any = None) -> tuple[Any, dict[str, Any]]:
    r"""Single-head attention with SPM projections (farag2025 eq. 29--35, §7.2).

    ``X`` has shape ``(T, d)`` (rows are tokens); :math:`Q=\mathrm{SPM}_Q(X)` row-wise, so the
    dense :math:`W_Q` of eq. (29) is the transpose of the SPM matrix.
    :math:`S=QK^{\mathsf T}/\sqrt{d_h}` (32), :math:`A=\mathrm{softmax}(S)` row-wise (33),
    :math:`H=AV` (34), :math:`Y=\mathrm{SPM}_O(H)` (35). ``d_h`` defaults to ``d``.
    """
    maps = _check_maps("maps", maps, ATTN_MAPS)
    n = maps["Q"].n
    d_h = n if d_h is None else _validate.positive_int("d_h", d_h)  # NaN used to give a NaN output
    if d_h > n:
        raise ValueError(f"d_h must be at most the model dimension d = {n} (a head's width), got {d_h}")
    Xb = _as_batch("X", X, maps["Q"])
    if Xb.ndim != 2:
        raise ValueError(f"X must have shape (T, {n}), got {tuple(np.shape(X))}")
    T = int(Xb.shape[0])
    # Q, K, V, H, Y (T x n) and the scores, their exponentials and the weights (T x T), before any
    check_bytes("spm_attention_forward", (5 * T * n + 4 * T * T) * value_bytes(maps["Q"].field),
                f"attention over {T:,} tokens of {n:,} features")
    Q, K, V = spm_forward(maps["Q"], X), spm_forward(maps["K"], X), spm_forward(maps["V"], X)
    exact = Q.dtype == object
    scale = 1 / sympy.sqrt(d_h) if exact else 1.0 / math.sqrt(float(d_h))
    S = (Q @ K.T) * scale
    if exact:
        E = _exp(S)
    else:
        E = np.exp(S - S.max(axis=-1, keepdims=True))
    A = E / E.sum(axis=-1, keepdims=True)
    H = A @ V
    Y = spm_forward(maps["O"], H)
    return Y, dict(X=X, Q=Q, K=K, V=V, A=A, H=H, scale=scale)


def spm_attention_backward(maps: dict[str, SPM], cache: dict[str, Any], G_Y: Any) -> dict[str, Any]:
    r"""Closed-form backward of :func:`spm_attention_forward` (farag2025 eq. 36--39, §7.3--7.5).

    :math:`G_H=\mathrm{SPM}_O^{\mathsf T}(G_Y)`; :math:`G_A=G_HV^{\mathsf T}` (36),
    :math:`G_V=A^{\mathsf T}G_H` (37); softmax row-wise
    :math:`(G_S)_{t,i}=A_{t,i}\bigl((G_A)_{t,i}-\sum_j A_{t,j}(G_A)_{t,j}\bigr)`;
    :math:`G_Q=G_SK/\sqrt{d_h}` (38), :math:`G_K=G_S^{\mathsf T}Q/\sqrt{d_h}` (39); the input
    gradient sums the three projection branches.

    Returns
    -------
    dict
        ``"X"``, ``"A"``, ``"S"``, ``"Q"``, ``"K"``, ``"V"``, ``"H"`` gradients and per map name
        the :func:`spm_backward` dict of that SPM.
    """
    maps = _check_maps("maps", maps, ATTN_MAPS)
    X, Q, K, V, A, H, scale = (cache[k] for k in ("X", "Q", "K", "V", "A", "H", "scale"))
    out: dict[str, Any] = {}
    out["O"] = spm_backward(maps["O"], H, G_Y)
    G_H = out["O"]["x"]
    G_A = G_H @ V.T  # (36)
    G_V = A.T @ G_H  # (37)
    G_S = A * (G_A - (A * G_A).sum(axis=-1, keepdims=True))
    G_Q = (G_S @ K) * scale  # (38)
    G_K = (G_S.T @ Q) * scale  # (39)
    out["Q"], out["K"], out["V"] = spm_backward(maps["Q"], X, G_Q), spm_backward(maps["K"], X, G_K), spm_backward(maps["V"], X, G_V)
    out["X"] = out["Q"]["x"] + out["K"]["x"] + out["V"]["x"]
    out.update(grad_H=G_H, grad_A=G_A, grad_S=G_S, grad_Q=G_Q, grad_K=G_K, grad_V=G_V)
    return out


# ---------------------------------------------------------------------------------------------
# Fast float kernel (benchmarks, training loops)
# ---------------------------------------------------------------------------------------------
class SPMKernel:
    r"""Preallocated float forward/backward of one float SPM layer for a fixed batch size.

    The same mathematics as :func:`spm_forward` / :func:`spm_backward` (eq. 2--19), laid out for
    memory streaming. Two paths, chosen at construction (``self.path``):

    ``"fused"`` -- rotation variant, :math:`n = 2^m \ge 2`, butterfly schedule (stage
    :math:`\ell` pairs :math:`i` with :math:`i \oplus 2^{\ell \bmod m}`, as
    :func:`butterfly_pairings` builds it; the setting of farag2025 Tables 1--2).
    Rows of the batch are kept batch-major and processed in cache-sized chunks of ``chunk`` rows,
    all :math:`L` stages per chunk, so the activations stream through memory once per layer
    rather than once per stage (optionally split over ``threads`` threads). Inside a chunk, in stage :math:`\ell` the features are stored in the
    order :math:`\mathrm{rotr}_m(i, \ell)` (bit :math:`\ell` of the feature index is the lowest
    address bit), so the two members of every pair are adjacent and the rotation
    :math:`M(\theta)` of eq. (5)--(6) is one complex multiplication
    :math:`x_i + \mathrm{i}\,x_j \mapsto e^{\mathrm{i}\theta}(x_i + \mathrm{i}\,x_j)`; a perfect
    shuffle (one strided copy) moves to the next stage's order. No gather is needed. The
    backward (eq. 7--9, 15--19) runs stage by stage in reverse on the chunk, propagating
    :math:`g \mapsto e^{-\mathrm{i}\theta}g` (that is :math:`B_\ell^{\mathsf T}g`) and
    recomputing each stage output by the inverse rotation (stages are orthogonal), starting from
    :math:`\mathbf z_L` kept by the forward (or, with ``keep``, reading the stage outputs the
    forward kept); the angle gradient is
    :math:`\sum_b \operatorname{Im}(\bar y\,\delta) = \sum_b (\delta_2 y_1 - \delta_1 y_2)`
    (eq. 9 rewritten with the stage output :math:`y`). In float32 the recomputed inputs carry a
    relative error of order :math:`L\cdot 10^{-7}`.

    ``"gather"`` -- every other float layer (general blocks, other schedules, any :math:`n`):
    activations feature-major ``(n, B)``, rows ordered per stage as
    :math:`[i_1..i_m, j_1..j_m, \text{unpaired}]`; a stage is one row gather and four
    multiply-adds; all stage inputs are kept.

    Parameters
    ----------
    layer : SPM
        A float (numpy field) layer.
    batch : int
        Batch size ``B`` the buffers are allocated for.
    dtype : numpy dtype
        ``float32`` (default) or ``float64``.
    chunk : int, optional
        Rows per chunk on the fused path (default: about :math:`2^{18}` values per chunk).
    threads : int, optional
        Threads for the fused path, each taking a contiguous share of the rows (default 1: on
        the 2-core machine this was tuned on a second thread gained nothing).
    keep : bool, optional
        Fused path: keep every stage's output from the forward (``L B n`` values) instead of
        recomputing it in the backward by the inverse rotation; saves one complex multiply and
        one shuffle per backward stage, costs the writes in the forward. Default: keep when the
        ``L B n`` values take at most 16 MiB (half the last-level cache of the machine this was
        tuned on; beyond it the forward streams them to memory).
    """

    def __init__(self, layer: SPM, batch: int, dtype: Any = np.float32, *, chunk: int | None = None,
                 threads: int | None = None, keep: bool | None = None) -> None:
        if not isinstance(layer, SPM) or layer.field != "numpy":
            raise TypeError(f"layer must be a numpy-field SPM, got {type(layer).__name__}"
                            + (f" in field {layer.field!r}" if isinstance(layer, SPM) else ""))
        B = _validate.positive_int("batch", batch)
        dt = np.dtype(dtype)
        if dt.kind != "f" or dt.itemsize not in (4, 8):
            raise TypeError(f"dtype must be float32 or float64, got {dt}")
        self.layer, self.B, self.dtype, self.n, self.m, self.L = layer, B, dt, layer.n, layer.n // 2, layer.L
        self.X: np.ndarray | None = None
        fused = _butterfly_layout(layer)
        self.path = "fused" if fused is not None else "gather"
        if fused is not None:
            self._init_fused(fused, chunk, threads, keep)
        else:
            self._init_gather()

    # =========================================================================================
    # fused path (rotation, butterfly, n = 2^m)
    # =========================================================================================
    def _init_fused(self, pair_of: np.ndarray, chunk: int | None, threads: int | None, keep: bool | None) -> None:
        layer, B, n, L, dt = self.layer, self.B, self.n, self.L, self.dtype
        ct = np.complex64 if dt.itemsize == 4 else np.complex128
        self.bits = n.bit_length() - 1
        self.pair_of = pair_of  # (L, n // 2): stage-order complex slot -> pair index in params[ell]
        theta = np.asarray(layer.params, dtype=np.float64)[np.arange(L)[:, None], pair_of]
        self.e = np.exp(1j * theta).astype(ct)  # forward: z -> e z   (eq. 5-6)
        self.ec = np.conj(self.e)  # backward: g -> conj(e) g = B^T g (eq. 7-8), z -> z / e
        self.ct = ct
        if threads is None:  # measured: a second thread gains nothing on this 2-core VM (GIL hand-offs)
            threads = 1
        self.threads = max(1, min(_validate.positive_int("threads", threads), B))
        per = -(-B // self.threads)
        if chunk is None:  # about 2^18 values (1 MiB in float32) per chunk: best measured for n = 256..4096
            chunk = max(1, min(per, (1 << 18) // n))
        self.chunk = b = max(1, min(_validate.positive_int("chunk", chunk), per))
        self.k_end = L % self.bits  # stage order after L shuffles (0 = natural)
        if keep is not None:
            keep = _validate.boolean("keep", keep)  # a flag, never read by truth value ("False" is true)
        if keep is None:  # keep what fits in half the 32 MiB last-level cache; beyond, the forward
            keep = L * B * n * dt.itemsize <= 16 * 2**20  # would stream them to memory
        self.keep = bool(keep)
        extra = L * B * n if self.keep else 0
        check_size("SPMKernel buffers", (B, 3 * n + extra // B), 3 * B * n + extra + 7 * self.threads * b * n,
                   field="numpy")
        # flat buffers carry 2 spare values so that the odd-word views (_forward_plan) never leave them
        self.Sflat: np.ndarray | None = np.empty(L * B * n + 2, dt) if self.keep else None
        self.S = cast(np.ndarray, self.Sflat)[: L * B * n].reshape(L, B, n) if self.keep else None  # stage outputs, stage order
        self.words = dt.itemsize == 4 and sys.byteorder == "little"  # float32 shuffles by 64-bit word casts
        self.d_in = np.asarray(layer.d_in, dt)
        self.d_out = np.asarray(layer.d_out, dt)
        self.bias = np.asarray(layer.bias, dt)
        self.ZL = np.empty((B, n), dt)  # z_L (natural order), kept for the backward
        self.Y = np.empty((B, n), dt)
        self.GX = np.empty((B, n), dt)
        bounds = np.linspace(0, B, self.threads + 1).astype(int)
        self.parts = [(int(lo), int(hi)) for lo, hi in itertools.pairwise(bounds) if hi > lo]
        self.scratch = [(np.empty(2 * b * n + 2, dt), np.empty(2 * b * n + 2, dt), np.empty(b * n, dt)) for _ in self.parts]
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = os.getpid()
        self._fplan: list[Any] = [None] * len(self.parts)
        self._bplan: list[Any] = [None] * len(self.parts)

    def _map(self, fn: Any) -> list[Any]:
        if len(self.parts) == 1:
            return [fn(0)]
        if self._pool is None or self._pool_pid != os.getpid():
            # (re)made in this process: a pool inherited through fork() has no threads and would hang
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(len(self.parts))
            self._pool_pid = os.getpid()
        return list(self._pool.map(fn, range(len(self.parts))))

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)

    @staticmethod
    def _reorder(src: np.ndarray, dst: np.ndarray, k: int, bits: int, inverse: bool = False) -> None:
        """Copy rows ``src`` (..., n) in stage order ``k`` (feature ``i`` at ``rotr(i, k)``) to
        natural order in ``dst``, or natural to stage order ``k`` with ``inverse``."""
        lead, n = src.shape[:-1], src.shape[-1]
        lo, hi = 1 << k, n >> k
        if inverse:
            np.copyto(dst.reshape(*lead, lo, hi), src.reshape(*lead, hi, lo).swapaxes(-1, -2))
        else:
            np.copyto(dst.reshape(*lead, hi, lo), src.reshape(*lead, lo, hi).swapaxes(-1, -2))

    def _forward_plan(self, t: int) -> list[tuple[Any, ...]]:
        """Per chunk of part ``t``: ``(r, rows, first buffer, steps, last buffer)``, each step the
        fixed views one stage uses (the buffers never move, so this is built once).

        A step is the complex multiplication in place, then the perfect shuffle to the next
        stage's order: ``dst[:, 0, :]`` = the even values, ``dst[:, 1, :]`` = the odd values.
        In float32 each pair is one 64-bit word; casting the words to 32 bits keeps their low
        halves (the even values, little-endian), and the same cast on the words read 4 bytes
        later gives the odd values: two contiguous casts instead of a strided copy (2.5x faster).
        """
        lo, hi = self.parts[t]
        n, L, b, B = self.n, self.L, self.chunk, self.B
        P0, Q0, _ = self.scratch[t]
        ZL, S = self.ZL, self.S
        plan = []
        cur: tuple[np.ndarray, int] | None  # None after the last stage when it writes z_L
        nxt: tuple[np.ndarray, int] | None
        for r in range(lo, hi, b):
            rows = min(b, hi - r)
            cur = (cast(np.ndarray, self.Sflat), r * n) if S is not None else (P0, 0)  # (flat buffer, start) of P
            P = first = cur[0][cur[1] : cur[1] + rows * n].reshape(rows, n)
            steps: list[tuple[Any, ...]] = []
            for ell in range(L):
                assert cur is not None  # None only after the last stage
                if ell == L - 1 and self.k_end == 0:
                    nxt, dst = None, ZL[r : r + rows]
                else:
                    if S is not None and ell + 1 < L:
                        nxt = (cast(np.ndarray, self.Sflat), (ell + 1) * B * n + r * n)
                    else:
                        nxt = (Q0 if cur[0] is P0 else P0, 0)
                    dst = nxt[0][nxt[1] : nxt[1] + rows * n].reshape(rows, n)
                if self.words:
                    du = dst.view(np.uint32).reshape(rows, 2, n // 2)
                    odd = np.ndarray((rows, n // 2), np.uint64, buffer=cur[0], offset=(cur[1] + 1) * 4,
                                     strides=(4 * n, 8))
                    steps.append((P.view(self.ct), self.e[ell], du[:, 0], P.view(np.uint64), du[:, 1], odd))
                else:
                    steps.append((P.view(self.ct), self.e[ell], dst.reshape(rows, 2, n // 2),
                                  P.reshape(rows, n // 2, 2).swapaxes(1, 2), None, None))
                cur, P = nxt, dst
            plan.append((r, rows, first, steps, P))
        return plan

    def _forward_part(self, t: int) -> None:
        if self._fplan[t] is None:
            self._fplan[t] = self._forward_plan(t)
        X, ZL, Y = self.X, self.ZL, self.Y
        assert X is not None  # set by forward before the parts run
        unsafe: Literal["unsafe"]
        mul, copy, unsafe = np.multiply, np.copyto, "unsafe"
        for r, rows, first, steps, last in self._fplan[t]:
            mul(X[r : r + rows], self.d_in, out=first)  # eq. (2); stage order 0 = natural
            for Pc, e, d0, s0, d1, s1 in steps:
                mul(Pc, e, out=Pc)  # eq. (5)-(6) for all pairs of the stage
                copy(d0, s0, casting=unsafe)  # perfect shuffle to the next stage's order
                if d1 is not None:
                    copy(d1, s1, casting=unsafe)
            if self.k_end:
                self._reorder(last, ZL[r : r + rows], self.k_end, self.bits)
            mul(ZL[r : r + rows], self.d_out, out=Y[r : r + rows])  # eq. (4)
            np.add(Y[r : r + rows], self.bias, out=Y[r : r + rows])

    def _backward_plan(self, t: int) -> list[tuple[Any, ...]]:
        """Per chunk of part ``t``: ``(r, rows, (W, V, T), steps, dL/dz_0 buffer)`` with the fixed
        views of each backward stage (built once, like :meth:`_forward_plan`)."""
        lo, hi = self.parts[t]
        n, L, b, ct, S = self.n, self.L, self.chunk, self.ct, self.S
        W0, V0, T0 = self.scratch[t]
        k = 1 if S is not None else 2  # arrays carried backwards: g, or (z, g) when z is recomputed
        plan = []
        for r in range(lo, hi, b):
            rows = min(b, hi - r)
            W, V = W0[: k * rows * n].reshape(k, rows, n), V0[: k * rows * n].reshape(k, rows, n)
            T = T0[: rows * n].reshape(rows, n)
            start, steps = (W, V, T), []
            for ell in range(L - 1, -1, -1):
                # inverse perfect shuffle W -> V (stage order ell + 1 -> ell): float32, the even
                # values zero-extended into 64-bit words, then the odd values into the high halves;
                # else two strided copies (one copy into the interleaved view is 4x slower)
                if self.words:
                    Wu = W.view(np.uint32).reshape(k, rows, 2, n // 2)
                    cps = ((V.view(np.uint64), Wu[:, :, 0]),
                           (V.view(np.uint32).reshape(k, rows, n // 2, 2)[..., 1], Wu[:, :, 1]))
                else:
                    Vi, Wh = V.reshape(k, rows, n // 2, 2), W.reshape(k, rows, 2, n // 2)
                    cps = ((Vi[..., 0], Wh[:, :, 0]), (Vi[..., 1], Wh[:, :, 1]))
                W, V = V, W
                Wc = W.view(ct)  # Wc[k - 1] = delta (gradient at the stage output)
                y = S[ell, r : r + rows].view(ct) if S is not None else Wc[0]  # stage output
                target = Wc if (k == 2 and ell) else Wc[k - 1]  # g (and z, recomputed) <- conj(e) *
                steps.append((cps, y, Wc[k - 1], target, self.ec[ell], ell))
            plan.append((r, rows, start, steps, W[k - 1]))
        return plan

    def _backward_part(self, t: int) -> tuple[np.ndarray, ...]:
        if self._bplan[t] is None:
            self._bplan[t] = self._backward_plan(t)
        n, L, bits, dt, ct = self.n, self.L, self.bits, self.dtype, self.ct
        X, ZL, G, GX = self.X, self.ZL, self._G, self.GX
        assert X is not None and G is not None  # set by forward / backward before the parts run
        k = 1 if self.S is not None else 2
        unsafe: Literal["unsafe"]
        mul, copy, unsafe = np.multiply, np.copyto, "unsafe"
        acc = np.zeros((L, n // 2), np.complex128)
        g_bias, g_out, g_in = np.zeros(n, dt), np.zeros(n, dt), np.zeros(n, dt)
        for r, rows, (W, _V, T), steps, gz0 in self._bplan[t]:
            Gc, Zc = G[r : r + rows], ZL[r : r + rows]
            np.add(g_bias, Gc.sum(axis=0), out=g_bias)  # eq. (17)
            mul(Gc, Zc, out=T)
            np.add(g_out, T.sum(axis=0), out=g_out)  # eq. (16)
            if self.k_end:  # to the stage order reached after the last stage
                mul(Gc, self.d_out, out=T)  # eq. (15)
                self._reorder(T, W[k - 1], self.k_end, bits, inverse=True)
                if k == 2:
                    self._reorder(Zc, W[0], self.k_end, bits, inverse=True)
            else:
                mul(Gc, self.d_out, out=W[k - 1])  # eq. (15)
                if k == 2:
                    copy(W[0], Zc)
            Tc = T.view(ct)
            for (c0, c1), y, delta, target, ec, ell in steps:
                copy(c0[0], c0[1], casting=unsafe)  # back to stage ell's order
                copy(c1[0], c1[1], casting=unsafe)
                np.conjugate(y, out=Tc)
                mul(Tc, delta, out=Tc)
                np.add(acc[ell], Tc.sum(axis=0), out=acc[ell])  # eq. (9): sum_b Im(conj(y) delta)
                mul(target, ec, out=target)  # g <- B^T g (eq. 7-8); recomputing: z <- B^{-1} z too
            mul(gz0, X[r : r + rows], out=T)  # gz0 = dL/dz_0, natural order
            np.add(g_in, T.sum(axis=0), out=g_in)  # eq. (19)
            mul(gz0, self.d_in, out=GX[r : r + rows])  # eq. (18)
        return acc, g_bias, g_out, g_in

    # =========================================================================================
    # gather path (any float layer)
    # =========================================================================================
    def _init_gather(self) -> None:
        layer, B, dt = self.layer, self.B, self.dtype
        n, L, m = self.n, self.L, self.m
        check_size("SPMKernel buffers", (n, B * (L + 6)), n * B * (L + 6), field="numpy")
        orders = []
        for ell in range(L):
            o = [layer.pairs[ell, :, 0], layer.pairs[ell, :, 1]]
            if n % 2:
                o.append(layer.single[ell : ell + 1])
            orders.append(np.concatenate(o).astype(np.intp))
        pos = [np.argsort(o).astype(np.intp) for o in orders]
        self.order0, self.posL = orders[0], pos[-1]
        self.fperm = [pos[ell][orders[ell + 1]] for ell in range(L - 1)]  # stage ell order -> ell+1 order
        self.bperm = [pos[ell + 1][orders[ell]] for ell in range(L - 1)]
        blk = np.asarray(layer.blocks(), dtype=dt)
        self.coef = [tuple(np.ascontiguousarray(blk[ell, :, k])[:, None] for k in range(4)) for ell in range(L)]
        self.angles = layer.variant == "rotation"
        self.scale = (np.asarray(layer.odd_scale, dt) if (n % 2 and layer.odd == "scale") else None)
        self.d_in0 = np.asarray(layer.d_in, dt)[self.order0][:, None]
        self.d_in, self.d_out = np.asarray(layer.d_in, dt), np.asarray(layer.d_out, dt)
        self.bias = np.asarray(layer.bias, dt)
        self.U = np.empty((L, n, B), dt)  # stage inputs, each in its stage order
        self.V = np.empty((n, B), dt)
        self.T = np.empty((m, B), dt)
        self.ZL = np.empty((n, B), dt)
        self.Y = np.empty((B, n), dt)
        self.G1 = np.empty((n, B), dt)
        self.G2 = np.empty((n, B), dt)
        self.GX = np.empty((B, n), dt)

    def stage_forward(self, ell: int, u: np.ndarray, v: np.ndarray) -> None:
        """Gather path: ``v = B_ell u`` in stage order (eq. 5--6 / 10--11)."""
        m, t = self.m, self.T
        a, b, c, d = self.coef[ell]
        x1, x2 = u[:m], u[m : 2 * m]
        np.multiply(x1, a, out=v[:m])
        np.multiply(x2, b, out=t)
        np.add(v[:m], t, out=v[:m])
        np.multiply(x1, c, out=v[m : 2 * m])
        np.multiply(x2, d, out=t)
        np.add(v[m : 2 * m], t, out=v[m : 2 * m])
        if self.n % 2:
            if self.scale is not None:
                np.multiply(u[2 * m :], self.scale[ell], out=v[2 * m :])
            else:
                v[2 * m :] = u[2 * m :]

    # =========================================================================================
    # public entry points
    # =========================================================================================
    def forward(self, X: np.ndarray) -> np.ndarray:
        """``Y = X M^T + b`` for ``X`` of shape ``(B, n)`` (eq. 2--4); keeps what backward needs."""
        X = np.asarray(X)
        if X.shape != (self.B, self.n):
            raise ValueError(f"X must have shape ({self.B}, {self.n}), got {X.shape}")
        if self.path == "gather":
            return self._forward_gather(X)
        self.X = np.ascontiguousarray(X, dtype=self.dtype)
        self._map(self._forward_part)
        return self.Y

    def backward(self, G: np.ndarray) -> dict[str, Any]:
        """Gradients for ``G = dL/dY`` of shape ``(B, n)``, as :func:`spm_backward` returns them."""
        G = np.asarray(G)
        if G.shape != (self.B, self.n):
            raise ValueError(f"G must have shape ({self.B}, {self.n}), got {G.shape}")
        if self.X is None:
            raise ValueError("backward needs a forward call first")
        if self.path == "gather":
            return self._backward_gather(G)
        self._G: np.ndarray | None = np.ascontiguousarray(G, dtype=self.dtype)
        parts = self._map(self._backward_part)
        self._G = None
        acc = sum(p[0] for p in parts)
        gp = np.empty((self.L, self.m), self.dtype)
        gp[np.arange(self.L)[:, None], self.pair_of] = acc.imag  # eq. (9)
        return {"bias": sum(p[1] for p in parts), "d_out": sum(p[2] for p in parts), "params": gp,
                "d_in": sum(p[3] for p in parts), "x": self.GX}

    def _forward_gather(self, X: np.ndarray) -> np.ndarray:
        self.X = X
        U, V = self.U, self.V
        np.take(X.T, self.order0, axis=0, out=U[0])
        np.multiply(U[0], self.d_in0, out=U[0])
        for ell in range(self.L):
            self.stage_forward(ell, U[ell], V)
            if ell + 1 < self.L:
                np.take(V, self.fperm[ell], axis=0, out=U[ell + 1])
        np.take(V, self.posL, axis=0, out=self.ZL)
        np.multiply(self.ZL.T, self.d_out, out=self.Y)
        np.add(self.Y, self.bias, out=self.Y)
        return self.Y

    def _backward_gather(self, G: np.ndarray) -> dict[str, Any]:
        m, L = self.m, self.L
        out: dict[str, Any] = {"bias": G.sum(axis=0), "d_out": np.einsum("bi,ib->i", G, self.ZL)}
        g, h = self.G1, self.G2
        order_L = np.argsort(self.posL)
        np.take(G.T, order_L, axis=0, out=g)
        np.multiply(g, self.d_out[order_L][:, None], out=g)
        gp = np.empty(self.layer.params.shape, self.dtype)
        gs = np.empty(L, self.dtype) if self.scale is not None else None
        for ell in range(L - 1, -1, -1):
            u = self.U[ell]
            x1, x2, d1, d2 = u[:m], u[m : 2 * m], g[:m], g[m : 2 * m]
            e11 = np.einsum("ij,ij->i", d1, x1)
            e12 = np.einsum("ij,ij->i", d1, x2)
            e21 = np.einsum("ij,ij->i", d2, x1)
            e22 = np.einsum("ij,ij->i", d2, x2)
            a, b, c, d = self.coef[ell]
            if self.angles:  # eq. (9) with cos = a, sin = c
                gp[ell] = -c[:, 0] * (e11 + e22) + a[:, 0] * (e21 - e12)
            else:  # eq. (14)
                gp[ell] = np.stack([e11, e12, e21, e22], axis=-1)
            t = self.T
            np.multiply(d1, a, out=h[:m])  # eq. (7) / (12)
            np.multiply(d2, c, out=t)
            np.add(h[:m], t, out=h[:m])
            np.multiply(d1, b, out=h[m : 2 * m])  # eq. (8) / (13)
            np.multiply(d2, d, out=t)
            np.add(h[m : 2 * m], t, out=h[m : 2 * m])
            if self.n % 2:
                if gs is not None:
                    assert self.scale is not None  # gs exists exactly when scale does
                    gs[ell] = np.dot(g[2 * m], u[2 * m])
                    np.multiply(g[2 * m :], self.scale[ell], out=h[2 * m :])
                else:
                    h[2 * m :] = g[2 * m :]
            if ell > 0:
                np.take(h, self.bperm[ell - 1], axis=0, out=g)
            else:
                g, h = h, g
        pos0 = np.argsort(self.order0)
        gz0 = np.take(g, pos0, axis=0)
        assert self.X is not None  # set by _forward_gather (backward checks it)
        out["d_in"] = np.einsum("ib,bi->i", gz0, self.X)  # eq. (19)
        np.multiply(gz0.T, self.d_in, out=self.GX)  # eq. (18)
        out["x"] = self.GX
        out["params"] = gp
        if gs is not None:
            out["odd_scale"] = gs
        return out


def _butterfly_layout(layer: SPM) -> np.ndarray | None:
    """For a rotation layer with ``n = 2^m >= 2`` whose stage ``ell`` pairs ``i`` with
    ``i XOR 2^(ell mod m)``: the pair index held by each complex slot ``h`` of stage ``ell``'s
    order (features at ``rotr_m(i, ell mod m)``, pair members adjacent), shape ``(L, n // 2)``;
    ``None`` for any other layer (the kernel then takes the gather path)."""
    n, L = layer.n, layer.L
    if layer.variant != "rotation" or n < 2 or n & (n - 1):
        return None
    bits = n.bit_length() - 1
    mem = np.arange(0, n, 2, dtype=np.int64)
    out = np.empty((L, n // 2), np.int64)
    for ell in range(L):
        k = ell % bits
        first = ((mem << k) | (mem >> (bits - k))) & (n - 1)  # rotl(2h, k): feature in the real slot
        second = (((mem + 1) << k) | ((mem + 1) >> (bits - k))) & (n - 1)
        lookup = np.full(n, -1, np.int64)
        lookup[layer.pairs[ell, :, 0]] = np.arange(n // 2)
        p = lookup[first]
        if (p < 0).any() or not np.array_equal(layer.pairs[ell, p, 1], second):
            return None
        out[ell] = p
    return out


__all__ = [
    "SPM", "SPMKernel", "spm_layer", "random_spm", "butterfly_pairings", "random_pairings",
    "stage_operator", "stage_matrix", "layer_matrix",
    "spm_forward", "spm_backward", "spm_transpose_apply",
    "spm_gru_forward", "spm_gru_backward", "spm_attention_forward", "spm_attention_backward",
]
