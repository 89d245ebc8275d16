r"""Hypothesis strategies for valid layer configurations and operands.

Each strategy draws a small frozen dataclass that knows how to build the layer with isomat and
(where torch has the layer) how to call torch, so a property test reads::

    from hypothesis import given
    from isomat.algebra import conv_matrix
    from isomat.testing.strategies import conv_layers

    @given(conv_layers(dims=(2,)))
    def test_my_conv(cfg):
        W = conv_matrix(cfg.input_shape, cfg.kernel(), **cfg.kwargs())
        assert W.shape == (cfg.n_out, cfg.n_in)

Every size is bounded by a parameter (defaults keep one example well under a millisecond to
build). The values of kernels, inputs, float operands, sparse matrices, SPM parameters and torch
models' parameters are drawn through Hypothesis (small multiples of 1/8, so every sum and product of
a test's size is exact in float32 and float64), so a failing example shrinks to simple values and
is reproduced by its printed configuration alone. Configurations still carry a ``seed`` for tests
that draw further data of their own (and, with ``values=False``, for values made from it instead).

Requires Hypothesis (the ``test`` extra: ``pip install 'isomat[test]'``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Sequence

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - exercised only without the test extra
    raise ImportError(
        "isomat.testing.strategies needs Hypothesis, which is part of isomat's 'test' extra: "
        "pip install 'isomat[test]' (or pip install hypothesis)"
    ) from exc

import numpy as np
import sympy

if TYPE_CHECKING:
    import scipy.sparse as sp
    import torch

    from ..algebra.spm import SPM

__all__ = [
    "ConvConfig", "PoolConfig", "SPMConfig", "STPPair",
    "conv_layers", "pool_layers", "stp_dims", "stp_pairs", "kron_shapes", "kron_factors",
    "spm_configs", "spm_layers", "integer_matrices", "rational_matrices", "symbolic_matrices",
    "exact_matrices", "float_matrices", "sparse_matrices", "ModelSpec", "torch_models",
]

_SEEDS = st.integers(0, 2**32 - 1)


def _tuple(v: Any, d: int) -> tuple[int, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (int(v),) * d


def _rng(seed: int, salt: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), salt])


#: one value of a kernel, input or float operand: k/8 for -16 <= k <= 16 (shrinks towards 0)
_VALUE = st.integers(-16, 16).map(lambda k: k / 8)


def _values(n: int) -> st.SearchStrategy[tuple[float, ...]]:
    """``n`` values drawn through Hypothesis (so they shrink), as a flat tuple: printed in a failing
    example's configuration. NumPy's array strategy draws a few entries and fills the rest, so a
    long vector costs Hypothesis little of its buffer."""
    from hypothesis.extra.numpy import arrays

    return arrays(np.float64, (n,), elements=_VALUE).map(lambda a: tuple(float(v) for v in a))


def _drawn(values: tuple[float, ...] | None, seed: int, salt: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """The drawn values in ``shape``, or -- for a configuration made by hand without values --
    standard-normal values from ``seed``."""
    if values is None:
        return _rng(seed, salt).standard_normal(shape).astype(dtype)
    return np.asarray(values, dtype=np.float64).reshape(shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConvConfig:
    """One valid N-d convolution layer, as ``torch.nn.functional.conv{1,2,3}d`` accepts it.

    Attributes
    ----------
    input_shape : tuple of int
        ``(C_in, n_1, ..., n_d)`` (no batch axis).
    kernel_shape : tuple of int
        ``(C_out, C_in / groups, k_1, ..., k_d)``.
    stride, dilation : tuple of int
        One per spatial axis.
    padding : tuple of int or {"same", "valid"}
        Symmetric padding per axis, or torch's string ("same" only with stride 1).
    groups : int
        Divides ``C_in`` and ``C_out``.
    boundary : {"zero", "circular"}
        isomat's ``boundary`` (torch's ``padding_mode`` "zeros" / "circular").
    seed : int
        A seed for data a test draws itself (and of :meth:`kernel` / :meth:`input` when no values
        were drawn).
    kernel_values, input_values : tuple of float or None
        The kernel's and the input's entries in row-major order, drawn through Hypothesis.
    """

    input_shape: tuple[int, ...]
    kernel_shape: tuple[int, ...]
    stride: tuple[int, ...]
    padding: Any
    dilation: tuple[int, ...]
    groups: int
    boundary: str
    seed: int
    kernel_values: tuple[float, ...] | None = None
    input_values: tuple[float, ...] | None = None

    # -- geometry -------------------------------------------------------------------------
    @property
    def d(self) -> int:
        """Number of spatial axes."""
        return len(self.input_shape) - 1

    @property
    def c_in(self) -> int:
        return self.input_shape[0]

    @property
    def c_out(self) -> int:
        return self.kernel_shape[0]

    @property
    def spatial(self) -> tuple[int, ...]:
        return self.input_shape[1:]

    @property
    def kernel_size(self) -> tuple[int, ...]:
        return self.kernel_shape[2:]

    def pads(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Low and high padding per axis (``"same"``: the extra one on the high side, as torch)."""
        if self.padding == "valid":
            return (0,) * self.d, (0,) * self.d
        if self.padding == "same":
            total = tuple(dl * (k - 1) for dl, k in zip(self.dilation, self.kernel_size))
            lo = tuple(t // 2 for t in total)
            return lo, tuple(t - lo_ for t, lo_ in zip(total, lo))
        return tuple(self.padding), tuple(self.padding)

    @property
    def output_shape(self) -> tuple[int, ...]:
        """``(C_out, o_1, ..., o_d)``, from torch's formula (computed here, not by isomat)."""
        lo, hi = self.pads()
        out = tuple((n + a + b - dl * (k - 1) - 1) // s + 1 for n, a, b, dl, k, s in
                    zip(self.spatial, lo, hi, self.dilation, self.kernel_size, self.stride))
        return (self.c_out,) + out

    @property
    def n_in(self) -> int:
        return math.prod(self.input_shape)

    @property
    def n_out(self) -> int:
        return math.prod(self.output_shape)

    # -- data -----------------------------------------------------------------------------
    def kernel(self, dtype: Any = np.float64) -> np.ndarray:
        """The kernel of :attr:`kernel_shape` (the drawn :attr:`kernel_values`)."""
        return _drawn(self.kernel_values, self.seed, 1, self.kernel_shape, dtype)

    def input(self, dtype: Any = np.float64) -> np.ndarray:
        """The input of :attr:`input_shape` (the drawn :attr:`input_values`)."""
        return _drawn(self.input_values, self.seed, 2, self.input_shape, dtype)

    # -- calls ----------------------------------------------------------------------------
    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`isomat.algebra.conv_matrix` / ``conv_apply`` (after
        ``input_shape`` and the kernel)."""
        return dict(stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups,
                    boundary=self.boundary)

    @property
    def torch_function(self) -> str:
        """``"conv1d"``, ``"conv2d"`` or ``"conv3d"`` (in ``torch.nn.functional``)."""
        return f"conv{self.d}d"

    def torch_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``torch.nn.functional.conv{d}d`` (after input and weight).

        The functional form has no ``padding_mode``: for a ``boundary`` other than ``"zero"`` this
        raises ``ValueError``; use :meth:`torch_forward` or :meth:`torch_module_kwargs` instead.
        """
        if self.boundary != "zero":
            raise ValueError(f"torch.nn.functional.conv*d has no {self.boundary} padding: use cfg.torch_forward(x, w) "
                             "or torch.nn.Conv*d(**cfg.torch_module_kwargs())")
        return dict(stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups)

    def torch_module_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``torch.nn.Conv{d}d`` (``bias=False``, ``padding_mode`` set)."""
        return dict(in_channels=self.c_in, out_channels=self.c_out, kernel_size=self.kernel_size,
                    stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups,
                    bias=False, padding_mode="zeros" if self.boundary == "zero" else self.boundary)

    def torch_forward(self, x: Any, weight: Any) -> torch.Tensor:
        """torch's output for the unbatched input ``x`` ``(C_in, *spatial)`` and ``weight``
        (NumPy or torch; circular, reflect or replicate padding through ``torch.nn.functional.pad``,
        as ``nn.Conv*d`` does). Returns a torch tensor ``(C_out, *out)``."""
        import warnings

        import torch
        import torch.nn.functional as F

        xt = torch.as_tensor(x)[None]
        wt = torch.as_tensor(weight)
        f = getattr(F, self.torch_function)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "same" with an even kernel warns about a padded copy
            if self.boundary == "zero":
                return f(xt, wt, **self.torch_kwargs())[0]
            lo, hi = self.pads()
            pad: list[int] = []
            for a, b in zip(reversed(lo), reversed(hi)):
                pad += [a, b]
            xt = F.pad(xt, pad, mode=self.boundary)
            return f(xt, wt, stride=self.stride, dilation=self.dilation, groups=self.groups)[0]


@st.composite
def conv_layers(draw: Any, *, dims: Sequence[int] = (1, 2, 3), max_channels: int = 3, max_groups: int = 3,
                max_kernel: int = 3, max_stride: int = 3, max_padding: int = 2, max_dilation: int = 2,
                max_extra: int = 4, paddings: Sequence[str] = ("int", "same", "valid"),
                boundaries: Sequence[str] = ("zero", "circular", "reflect", "replicate"),
                torch_compatible: bool = True, values: bool = True) -> ConvConfig:
    """Valid convolution layers (:class:`ConvConfig`).

    Parameters
    ----------
    dims : sequence of {1, 2, 3}
        Spatial dimensions to draw from.
    max_channels : int
        Bound on ``C_in`` and ``C_out``.
    max_groups : int
        Bound on ``groups`` (drawn first; both channel counts are then multiples of it).
    max_kernel, max_stride, max_padding, max_dilation : int
        Bounds per axis (all drawn from 1, padding from 0).
    max_extra : int
        Input size per axis above the smallest that fits the kernel (halved, rounded up, for
        3-d layers).
    paddings : sequence of {"int", "same", "valid"}
        Padding kinds: a tuple of ints, or torch's strings ("same" forces stride 1).
    boundaries : sequence of {"zero", "circular", "reflect", "replicate"}
        Padding modes (torch's ``padding_mode``: "zeros", "circular", "reflect", "replicate").
    torch_compatible : bool
        Only configurations torch also accepts: circular padding at most the input size (reflect
        padding is always drawn smaller than the input, which isomat requires as torch does).
    values : bool
        Draw the kernel's and the input's values through Hypothesis (default); ``False`` for a test
        that reads only the geometry (and the ``seed``): cheaper, and :meth:`ConvConfig.kernel` then
        draws from the seed.

    Returns
    -------
    SearchStrategy[ConvConfig]
    """
    d = draw(st.sampled_from(tuple(dims)))
    g = draw(st.integers(1, max(1, min(max_groups, max_channels))))
    c_in = g * draw(st.integers(1, max(1, max_channels // g)))
    c_out = g * draw(st.integers(1, max(1, max_channels // g)))
    ks = tuple(draw(st.integers(1, max_kernel)) for _ in range(d))
    dil = tuple(draw(st.integers(1, max_dilation)) for _ in range(d))
    kind = draw(st.sampled_from(tuple(paddings)))
    boundary = draw(st.sampled_from(tuple(boundaries)))
    if kind == "same":
        stride = (1,) * d
        padding: Any = "same"
    else:
        stride = tuple(draw(st.integers(1, max_stride)) for _ in range(d))
        padding = "valid" if kind == "valid" else tuple(draw(st.integers(0, max_padding)) for _ in range(d))
    cfg = ConvConfig((c_in,) + (1,) * d, (c_out, c_in // g) + ks, stride, padding, dil, g, boundary, 0)
    lo, hi = cfg.pads()
    extra = max_extra if d < 3 else (max_extra + 1) // 2
    spatial = []
    for k, dl, a, b in zip(ks, dil, lo, hi):
        low = max(1, dl * (k - 1) + 1 - a - b)
        if torch_compatible and boundary == "circular":
            low = max(low, a, b)  # torch's circular pad wraps at most once
        if boundary == "reflect":
            low = max(low, a + 1, b + 1)  # the mirror image needs padding < the input size (torch and isomat)
        spatial.append(draw(st.integers(low, low + extra)))
    seed = draw(_SEEDS)
    shape = (c_in,) + tuple(spatial)
    if not values:
        return ConvConfig(shape, cfg.kernel_shape, stride, padding, dil, g, boundary, seed)
    return ConvConfig(shape, cfg.kernel_shape, stride, padding, dil, g, boundary, seed,
                      draw(_values(math.prod(cfg.kernel_shape))), draw(_values(math.prod(shape))))


# ---------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PoolConfig:
    """One valid pooling layer (average or max) over ``(C, n_1, ..., n_d)``.

    Attributes
    ----------
    kind : {"avg", "max"}
    input_shape : tuple of int
        ``(C, n_1, ..., n_d)``.
    window, stride, padding : tuple of int
        Per spatial axis; ``padding`` at most half the window (torch's rule).
    ceil_mode : bool
    count_include_pad : bool
        Average pooling only.
    divisor_override : int or None
        Average pooling only, non-zero (negative flips the sign, as torch); never drawn for 1-d
        when torch-compatible: ``avg_pool1d`` lacks it.
    seed : int
        A seed for data a test draws itself (and of :meth:`input` when no values were drawn).
    dilation : tuple of int
        Max pooling only (``()`` means 1 along every axis).
    input_values : tuple of float or None
        The input's entries in row-major order, drawn through Hypothesis.
    """

    kind: str
    input_shape: tuple[int, ...]
    window: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None
    seed: int
    dilation: tuple[int, ...] = ()
    input_values: tuple[float, ...] | None = None

    @property
    def d(self) -> int:
        return len(self.window)

    @property
    def channels(self) -> int:
        return self.input_shape[0]

    @property
    def spatial(self) -> tuple[int, ...]:
        return self.input_shape[1:]

    @property
    def dilations(self) -> tuple[int, ...]:
        return self.dilation or (1,) * self.d

    @property
    def output_shape(self) -> tuple[int, ...]:
        """``(C, o_1, ..., o_d)`` from torch's formula (computed here, not by isomat)."""
        out = []
        for n, k, s, p, dl in zip(self.spatial, self.window, self.stride, self.padding, self.dilations):
            e = dl * (k - 1) + 1
            if self.ceil_mode:
                o = (n + 2 * p - e + s - 1) // s + 1
                if (o - 1) * s >= n + p:
                    o -= 1
            else:
                o = (n + 2 * p - e) // s + 1
            out.append(o)
        return (self.channels,) + tuple(out)

    @property
    def torch_accepts(self) -> bool:
        """torch refuses an input smaller than the window along an axis, even when padded."""
        return all(n >= dl * (k - 1) + 1 for n, k, dl in zip(self.spatial, self.window, self.dilations)) and not (
            self.kind == "avg" and self.d == 1 and self.divisor_override is not None)

    def input(self, dtype: Any = np.float64) -> np.ndarray:
        """The input of :attr:`input_shape` (the drawn :attr:`input_values`)."""
        return _drawn(self.input_values, self.seed, 2, self.input_shape, dtype)

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`~isomat.algebra.avgpool_matrix` (``kind="avg"``) or
        :func:`~isomat.algebra.maxpool_selection` (``"max"``), after the input (shape) and
        :attr:`window`."""
        kw: dict[str, Any] = dict(stride=self.stride, padding=self.padding, ceil_mode=self.ceil_mode)
        if self.kind == "avg":
            kw.update(count_include_pad=self.count_include_pad, divisor_override=self.divisor_override)
        else:
            kw["dilation"] = self.dilations
        return kw

    @property
    def torch_function(self) -> str:
        """``"avg_pool2d"``, ``"max_pool1d"``, ... (in ``torch.nn.functional``)."""
        return f"{self.kind}_pool{self.d}d"

    def torch_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``torch.nn.functional.{avg,max}_pool{d}d`` (after the input)."""
        kw: dict[str, Any] = dict(kernel_size=self.window, stride=self.stride, padding=self.padding,
                                  ceil_mode=self.ceil_mode)
        if self.kind == "avg":
            kw["count_include_pad"] = self.count_include_pad
            if self.divisor_override is not None:
                kw["divisor_override"] = self.divisor_override
        else:
            kw["dilation"] = self.dilations
        return kw

    def torch_module_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``torch.nn.{Avg,Max}Pool{d}d``."""
        return self.torch_kwargs()

    def torch_forward(self, x: Any) -> torch.Tensor:
        """torch's output for the unbatched input ``x`` (NumPy or torch), a torch tensor."""
        import torch
        import torch.nn.functional as F

        return getattr(F, self.torch_function)(torch.as_tensor(x)[None], **self.torch_kwargs())[0]


@st.composite
def pool_layers(draw: Any, *, kinds: Sequence[str] = ("avg", "max"), dims: Sequence[int] = (1, 2, 3),
                max_channels: int = 3, max_window: int = 3, max_stride: int = 3, max_extra: int = 4,
                ceil_modes: Sequence[bool] = (False, True), divisors: Sequence[int | None] = (None, 1, 3, -2),
                max_dilation: int = 2, torch_compatible: bool = True, values: bool = True) -> PoolConfig:
    """Valid pooling layers (:class:`PoolConfig`): what :func:`~isomat.algebra.avgpool_matrix`
    and :func:`~isomat.algebra.maxpool_selection` support (window, stride, padding up to half the
    window, ``ceil_mode``, ``count_include_pad``, a non-zero ``divisor_override``, max
    pooling's ``dilation``).

    Parameters
    ----------
    kinds : sequence of {"avg", "max"}
    dims : sequence of {1, 2, 3}
    max_channels, max_window, max_stride : int
    max_extra : int
        Input size per axis above the smallest allowed (halved for 3-d).
    ceil_modes : sequence of bool
    divisors : sequence of int or None
        ``divisor_override`` values for average pooling (``None``: none; non-zero).
    max_dilation : int
        Bound on max pooling's dilation per axis.
    torch_compatible : bool
        Only what torch also accepts: inputs at least the window, no ``divisor_override`` for
        1-d. Without it, an input smaller than the window that padding makes fit is drawn too.
    values : bool
        Draw the input's values through Hypothesis (default); ``False`` for a test that reads only
        the geometry (and the ``seed``).

    Returns
    -------
    SearchStrategy[PoolConfig]
    """
    kind = draw(st.sampled_from(tuple(kinds)))
    d = draw(st.sampled_from(tuple(dims)))
    win = tuple(draw(st.integers(1, max_window)) for _ in range(d))
    stride = tuple(draw(st.integers(1, max_stride)) for _ in range(d))
    dil = tuple(draw(st.integers(1, max_dilation)) for _ in range(d)) if kind == "max" else (1,) * d
    ext = tuple(dl * (k - 1) + 1 for k, dl in zip(win, dil))
    pad = tuple(draw(st.integers(0, k // 2)) for k in win)  # torch: at most half the window, whatever the dilation
    extra = max_extra if d < 3 else (max_extra + 1) // 2
    spatial = []
    for e, p in zip(ext, pad):
        low = e if torch_compatible else max(1, e - 2 * p)
        spatial.append(draw(st.integers(low, low + extra)))
    c = draw(st.integers(1, max_channels))
    ceil_mode = draw(st.sampled_from(tuple(ceil_modes)))
    cip = draw(st.booleans()) if kind == "avg" else True
    div = None
    if kind == "avg" and not (torch_compatible and d == 1):
        div = draw(st.sampled_from(tuple(divisors)))
    shape = (c,) + tuple(spatial)
    return PoolConfig(kind, shape, win, stride, pad, ceil_mode, cip, div, draw(_SEEDS),
                      dil if kind == "max" else (), draw(_values(math.prod(shape))) if values else None)


# ---------------------------------------------------------------------------------------------
# Whole torch models (isomat.torch.from_model)
# ---------------------------------------------------------------------------------------------
#: the layers torch_models composes (image layers on (C, H, W) samples)
MODEL_LAYERS = ("conv", "bn", "relu", "leaky_relu", "prelu", "hardtanh", "tanh", "sigmoid", "gelu", "silu",
                "avgpool", "maxpool", "adaptive_avg", "upsample_nearest", "upsample_bilinear", "pad_zero", "pad_reflect",
                "residual", "concat")
_SMOOTH_LAYERS = ("tanh", "sigmoid", "gelu", "silu")


@dataclass(frozen=True)
class ModelSpec:
    """A random image model: ``layers`` in order on a ``(C, H, W)`` sample, then an optional
    flatten + linear head with ``head`` outputs. ``build()`` makes the eval-mode torch model
    (float64 by default; batch norms with running statistics of their own).

    Attributes
    ----------
    input_shape : (C, H, W)
    layers : tuple of (kind, arguments)
        Kinds from :data:`MODEL_LAYERS`.
    head : int or None
        Outputs of the flatten + linear head (None: no head).
    seed : int
        torch's seed for the parameters when no ``values`` were drawn (and for data a test draws itself).
    values : tuple of float or None
        Every parameter's entries and each batch norm's running mean and variance, in the order of
        :meth:`parameters`, drawn through Hypothesis (multiples of 1/8 in [-2, 2], scaled per kind: see
        :meth:`build`); ``None``: torch's initialisation from ``seed``.
    """

    input_shape: tuple[int, int, int]
    layers: tuple[tuple[str, tuple[int, ...]], ...]
    head: int | None
    seed: int
    values: tuple[float, ...] | None = None

    @staticmethod
    def parameters(model: "torch.nn.Module") -> list[tuple[str, Any, "torch.Tensor"]]:
        """``(name, module, tensor)`` of every tensor :attr:`values` sets, in its order: each module's own
        parameters, and a batch norm's ``running_mean`` and ``running_var`` after them."""
        from torch import nn

        out = []
        for mod in model.modules():
            out += [(name, mod, t) for name, t in mod.named_parameters(recurse=False)]
            if isinstance(mod, nn.BatchNorm2d):
                out += [("running_mean", mod, mod.running_mean), ("running_var", mod, mod.running_var)]
        return out

    def value_count(self) -> int:
        """How many values :attr:`values` holds for this model (its parameters and running statistics)."""
        return sum(int(t.numel()) for _, _, t in self.parameters(replace(self, values=None).build()))

    @property
    def piecewise_linear(self) -> bool:
        return not any(kind in _SMOOTH_LAYERS for kind, _ in self.layers)

    def build(self, dtype: Any = None) -> "torch.nn.Module":
        import torch
        from torch import nn

        torch.manual_seed(self.seed % (2**31))

        class Residual(nn.Module):  # x + conv(x): a residual connection traced through forward
            def __init__(self, c: int) -> None:
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x + self.conv(x)

        class Concat(nn.Module):  # cat([x, conv(x)], dim=1): a skip concatenation
            def __init__(self, c: int, extra: int) -> None:
                super().__init__()
                self.conv = nn.Conv2d(c, extra, 1)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return torch.cat([x, self.conv(x)], dim=1)

        mods: list[nn.Module] = []
        c = self.input_shape[0]
        for kind, a in self.layers:
            if kind == "conv":
                mods.append(nn.Conv2d(c, a[0], a[1], stride=a[2], padding=a[3]))
                c = a[0]
            elif kind == "bn":
                bn = nn.BatchNorm2d(c)
                with torch.no_grad():
                    bn.running_mean.uniform_(-1, 1)
                    bn.running_var.uniform_(0.5, 2.0)
                    bn.weight.uniform_(0.5, 1.5)
                    bn.bias.uniform_(-0.5, 0.5)
                mods.append(bn)
            elif kind == "relu":
                mods.append(nn.ReLU())
            elif kind == "leaky_relu":
                mods.append(nn.LeakyReLU(0.1))
            elif kind == "prelu":
                mods.append(nn.PReLU(c))
            elif kind == "hardtanh":
                mods.append(nn.Hardtanh(-0.5, 0.5))
            elif kind == "tanh":
                mods.append(nn.Tanh())
            elif kind == "sigmoid":
                mods.append(nn.Sigmoid())
            elif kind == "gelu":
                mods.append(nn.GELU(approximate="tanh" if a[0] else "none"))
            elif kind == "silu":
                mods.append(nn.SiLU())
            elif kind == "avgpool":
                mods.append(nn.AvgPool2d(2))
            elif kind == "maxpool":
                mods.append(nn.MaxPool2d(2))
            elif kind == "adaptive_avg":
                mods.append(nn.AdaptiveAvgPool2d((a[0], a[1])))
            elif kind == "upsample_nearest":
                mods.append(nn.Upsample(scale_factor=2, mode="nearest"))
            elif kind == "upsample_bilinear":
                mods.append(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=bool(a[0])))
            elif kind == "pad_zero":
                mods.append(nn.ZeroPad2d(1))
            elif kind == "pad_reflect":
                mods.append(nn.ReflectionPad2d(1))
            elif kind == "residual":
                mods.append(Residual(c))
            elif kind == "concat":
                mods.append(Concat(c, a[0]))
                c += a[0]
            else:  # pragma: no cover
                raise ValueError(kind)
        if self.head is not None:
            mods += [nn.Flatten(), nn.LazyLinear(self.head)]
        model = nn.Sequential(*mods).eval()
        if self.head is not None:  # materialise the lazy head on one sample's worth of input
            with torch.no_grad():
                model(torch.zeros((1,) + self.input_shape))
        model = model.eval().to(dtype if dtype is not None else torch.float64)
        if self.values is not None:
            self._set_values(model)
        return model

    def _set_values(self, model: "torch.nn.Module") -> None:
        """Set the drawn :attr:`values` (exact binary fractions, so any float dtype holds them exactly):
        a convolution's or the head's weight v/8 (a small gain per layer), a batch norm's weight and
        running variance 1 + v/4 (in [0.5, 1.5]: positive), every other entry (biases, running means,
        PReLU slopes) v/2."""
        import torch
        from torch import nn

        vals = np.asarray(self.values, dtype=np.float64)
        k = 0
        with torch.no_grad():
            for name, mod, t in self.parameters(model):
                chunk = vals[k:k + t.numel()]
                k += t.numel()
                if len(chunk) != t.numel():
                    break
                if isinstance(mod, nn.BatchNorm2d) and name in ("weight", "running_var"):
                    chunk = 1 + chunk / 4
                elif name == "weight" and isinstance(mod, (nn.Conv2d, nn.Linear)):
                    chunk = chunk / 8
                else:
                    chunk = chunk / 2
                t.copy_(torch.as_tensor(chunk.reshape(tuple(t.shape)), dtype=t.dtype))
        if k != len(vals):
            raise ValueError(f"values holds {len(vals)} entries; this model's parameters and running statistics "
                             f"take {self.value_count()}")


@st.composite
def torch_models(draw: Any, *, max_layers: int = 5, max_channels: int = 3, max_side: int = 8,
                 kinds: Sequence[str] = MODEL_LAYERS, head: bool | None = None,
                 piecewise_linear: bool = False, values: bool = True) -> ModelSpec:
    """Random eval-mode image models (:class:`ModelSpec`) composed of the layers
    :func:`isomat.torch.from_model` supports: convolutions (stride, padding), batch norm,
    activations, average/max/adaptive pooling, upsampling, padding, residual additions and skip
    concatenations, and optionally a flatten + linear head. Shapes are tracked so every drawn
    model is valid; sides stay between 1 and ``2 max_side``.

    ``piecewise_linear=True`` draws no smooth activation (for ``local_affine``/``region``).
    ``values`` (default): every parameter and running statistic is drawn through Hypothesis
    (:attr:`ModelSpec.values`), so a failing model shrinks to simpler layers and simpler numbers;
    ``False``: torch initialises them from the drawn ``seed`` (cheaper; nothing of them shrinks).
    """
    kinds = tuple(k for k in kinds if not (piecewise_linear and k in _SMOOTH_LAYERS))
    c = draw(st.integers(1, max_channels))
    h = draw(st.integers(2, max_side))
    w = draw(st.integers(2, max_side))
    shape = (c, h, w)
    layers = []
    for _ in range(draw(st.integers(1, max_layers))):
        kind = draw(st.sampled_from(kinds))
        if kind == "conv":
            k = draw(st.integers(1, min(3, h, w)))
            stride = draw(st.integers(1, 2))
            pad = draw(st.integers(0, k // 2))
            out = draw(st.integers(1, max_channels))
            layers.append((kind, (out, k, stride, pad)))
            c, h, w = out, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        elif kind in ("avgpool", "maxpool"):
            if h < 2 or w < 2:
                continue
            layers.append((kind, ()))
            h, w = h // 2, w // 2
        elif kind == "adaptive_avg":
            oh, ow = draw(st.integers(1, h)), draw(st.integers(1, w))
            layers.append((kind, (oh, ow)))
            h, w = oh, ow
        elif kind in ("upsample_nearest", "upsample_bilinear"):
            if 2 * h > 2 * max_side or 2 * w > 2 * max_side:
                continue
            layers.append((kind, (draw(st.integers(0, 1)),)))
            h, w = 2 * h, 2 * w
        elif kind == "pad_reflect":
            if h < 2 or w < 2:
                continue
            layers.append((kind, ()))
            h, w = h + 2, w + 2
        elif kind == "pad_zero":
            if h + 2 > 2 * max_side or w + 2 > 2 * max_side:
                continue
            layers.append((kind, ()))
            h, w = h + 2, w + 2
        elif kind == "concat":
            extra = draw(st.integers(1, 2))
            layers.append((kind, (extra,)))
            c += extra
        elif kind == "gelu":
            layers.append((kind, (draw(st.integers(0, 1)),)))
        else:
            layers.append((kind, ()))
    with_head = draw(st.booleans()) if head is None else head
    spec = ModelSpec(shape, tuple(layers), draw(st.integers(1, 4)) if with_head else None, draw(_SEEDS))
    return replace(spec, values=draw(_values(spec.value_count()))) if values else spec


# ---------------------------------------------------------------------------------------------
# Exact and float matrices
# ---------------------------------------------------------------------------------------------
def _shape_strategy(shape: Any, max_rows: int, max_cols: int) -> Any:
    if shape is None:
        return st.tuples(st.integers(1, max_rows), st.integers(1, max_cols))
    if isinstance(shape, st.SearchStrategy):
        return shape
    return st.just(tuple(shape))


def integer_matrices(shape: Any = None, *, max_rows: int = 4, max_cols: int = 4, min_value: int = -4,
                     max_value: int = 4) -> st.SearchStrategy[sympy.Matrix]:
    """Exact integer matrices (``sympy.Matrix``).

    Parameters
    ----------
    shape : (rows, cols) or strategy of them, optional
        Default: drawn up to ``max_rows`` x ``max_cols``.
    min_value, max_value : int
        Entry range.
    """
    return _shape_strategy(shape, max_rows, max_cols).flatmap(
        lambda s: st.lists(st.integers(min_value, max_value), min_size=s[0] * s[1], max_size=s[0] * s[1])
        .map(lambda v, s=s: sympy.Matrix(s[0], s[1], [sympy.Integer(x) for x in v])))


def rational_matrices(shape: Any = None, *, max_rows: int = 4, max_cols: int = 4, max_numerator: int = 5,
                      max_denominator: int = 5) -> st.SearchStrategy[sympy.Matrix]:
    """Exact rational matrices (``sympy.Matrix`` of ``sympy.Rational``), numerators in
    ``[-max_numerator, max_numerator]`` and denominators in ``[1, max_denominator]``."""
    q = st.builds(sympy.Rational, st.integers(-max_numerator, max_numerator), st.integers(1, max_denominator))
    return _shape_strategy(shape, max_rows, max_cols).flatmap(
        lambda s: st.lists(q, min_size=s[0] * s[1], max_size=s[0] * s[1])
        .map(lambda v, s=s: sympy.Matrix(s[0], s[1], v)))


def symbolic_matrices(shape: Any = None, *, max_rows: int = 3, max_cols: int = 3, prefix: str = "a",
                      zeros: bool = True) -> st.SearchStrategy[sympy.Matrix]:
    """Symbolic matrices (``sympy.Matrix``): entry ``(i, j)`` the symbol ``{prefix}_{i}_{j}``
    (real), or ``0`` where the draw says so (``zeros=True``: a structured pattern)."""

    def build(s: tuple[int, int], mask: list[bool]) -> sympy.Matrix:
        return sympy.Matrix(s[0], s[1], lambda i, j: sympy.Integer(0) if mask[i * s[1] + j]
                            else sympy.Symbol(f"{prefix}_{i}_{j}", real=True))

    return _shape_strategy(shape, max_rows, max_cols).flatmap(
        lambda s: st.lists(st.booleans() if zeros else st.just(False), min_size=s[0] * s[1], max_size=s[0] * s[1])
        .map(lambda m, s=s: build(s, m)))


def exact_matrices(shape: Any = None, *, kinds: Sequence[str] = ("integer", "rational", "symbolic"),
                   max_rows: int = 3, max_cols: int = 3) -> st.SearchStrategy[sympy.Matrix]:
    """One of :func:`integer_matrices`, :func:`rational_matrices`, :func:`symbolic_matrices`."""
    make = {"integer": integer_matrices, "rational": rational_matrices, "symbolic": symbolic_matrices}
    return st.one_of(*[make[k](shape, max_rows=max_rows, max_cols=max_cols) for k in kinds])


def float_matrices(shape: Any = None, *, max_rows: int = 4, max_cols: int = 4, dtype: Any = np.float64,
                   elements: Sequence[float] = (0.0, 1.0, -2.0, 0.5, 3.0)) -> st.SearchStrategy[np.ndarray]:
    """NumPy matrices with entries from ``elements`` (exactly representable by default, so sums
    and products are exact and comparisons need no tolerance)."""
    from hypothesis.extra.numpy import arrays

    return _shape_strategy(shape, max_rows, max_cols).flatmap(
        lambda s: arrays(dtype, tuple(s), elements=st.sampled_from(tuple(elements))))


@st.composite
def sparse_matrices(draw: Any, *, max_rows: int = 50, max_cols: int = 50, dtypes: Sequence[Any] = (
        np.float64, np.float32, np.complex128), formats: Sequence[str] = ("csr",), empty: bool = True) -> sp.sparray:
    """SciPy sparse arrays of any shape up to ``max_rows`` x ``max_cols``, from empty to full (empty
    rows and columns included; ``empty=False`` keeps at least one entry).

    Every value and where it is stored are drawn through Hypothesis (values are small multiples of 1/8,
    real and imaginary parts alike), so a failing matrix shrinks: towards fewer entries and simpler
    values. A matrix is ``"sparse"`` (the drawn entries on zeros), ``"rows"`` (drawn rows full of one
    drawn value, about half of them, and the drawn entries) or ``"full"`` (every row so).
    """
    import scipy.sparse as sp
    from hypothesis.extra.numpy import arrays

    m, n = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    dtype = np.dtype(draw(st.sampled_from(tuple(dtypes))))
    fmt = draw(st.sampled_from(tuple(formats)))
    value = st.builds(complex, _VALUE, _VALUE) if dtype.kind == "c" else _VALUE
    mode = draw(st.sampled_from(("sparse", "rows", "full")))  # (shrinks to "sparse")
    A = np.zeros((m, n), dtype)
    if mode != "sparse":
        full = np.ones(m, bool) if mode == "full" else np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
        A[full] = draw(value)
    # the drawn entries: NumPy's array strategy draws a few and fills the rest (NaN: none drawn there)
    entries = draw(arrays(dtype, (m, n), elements=value, fill=st.just(np.nan)))
    drawn = ~np.isnan(entries)
    A[drawn] = entries[drawn]
    if not empty and not A.any():
        i, j = draw(st.integers(0, m - 1)), draw(st.integers(0, n - 1))
        A[i, j] = draw(value.filter(bool))
    return sp.coo_array(A).asformat(fmt)


# ---------------------------------------------------------------------------------------------
# STP operands
# ---------------------------------------------------------------------------------------------
def stp_dims(*, max_dim: int = 9, max_ratio: int = 4,
             relations: Sequence[str] = ("coprime", "divisible", "any")) -> st.SearchStrategy[tuple[int, int]]:
    """Pairs ``(n, p)`` -- the column count of ``A`` and the row count of ``B`` of a semi-tensor
    product -- with a chosen relation.

    Every pair is STP-compatible (cheng2025: the STP and the DK-STP take any shapes); the
    relation picks the interesting cases.

    Parameters
    ----------
    max_dim : int
        Bound on ``n`` and ``p`` for ``"coprime"``, ``"equal"`` and ``"any"``.
    max_ratio : int
        ``"divisible"`` pairs are ``(a, a r)`` or ``(a r, a)`` with ``a <= (max_dim + 1) // 2``
        and ``r <= max_ratio`` (the classical STP cases, where one dimension divides the other).
    relations : sequence of {"coprime", "divisible", "equal", "any"}
        ``"coprime"``: :math:`\\gcd(n, p) = 1`; ``"equal"``: the ordinary product.

    Returns
    -------
    SearchStrategy[tuple[int, int]]
    """
    small = st.integers(1, max_dim)
    opts = {
        "coprime": st.tuples(small, small).filter(lambda t: math.gcd(*t) == 1),
        "divisible": st.tuples(st.integers(1, max(1, (max_dim + 1) // 2)), st.integers(1, max_ratio)).flatmap(
            lambda t: st.sampled_from([(t[0], t[0] * t[1]), (t[0] * t[1], t[0])])),
        "equal": small.map(lambda k: (k, k)),
        "any": st.tuples(small, small),
    }
    return st.one_of(*[opts[r] for r in relations])


@dataclass(frozen=True)
class STPPair:
    r"""Operands :math:`A\in\mathcal M_{m\times n}`, :math:`B\in\mathcal M_{p\times q}` of an STP.

    ``A`` and ``B`` are NumPy float arrays or ``sympy.Matrix`` (exact), as drawn.
    """

    A: Any
    B: Any

    @property
    def m(self) -> int:
        return int(self.A.shape[0])

    @property
    def n(self) -> int:
        return int(self.A.shape[1])

    @property
    def p(self) -> int:
        return int(self.B.shape[0])

    @property
    def q(self) -> int:
        return int(self.B.shape[1])

    @property
    def t(self) -> int:
        """:math:`\\operatorname{lcm}(n, p)`."""
        return math.lcm(self.n, self.p)

    @property
    def stp_shape(self) -> tuple[int, int]:
        """Shape of the left (and right) STP: :math:`(mt/n, qt/p)`."""
        return (self.m * self.t // self.n, self.q * self.t // self.p)

    @property
    def dk_shape(self) -> tuple[int, int]:
        """Shape of the DK-STP :math:`A\\ltimes_{DK}B`: :math:`(m, q)`."""
        return (self.m, self.q)


@st.composite
def stp_pairs(draw: Any, *, max_dim: int = 6, max_outer: int = 4,
              relations: Sequence[str] = ("coprime", "divisible", "any"),
              fields: Sequence[str] = ("float",)) -> STPPair:
    """STP-compatible operand pairs (:class:`STPPair`).

    Parameters
    ----------
    max_dim : int
        Bound for ``n`` and ``p`` (see :func:`stp_dims`, with ``max_ratio=2``).
    max_outer : int
        Bound for ``m`` and ``q``.
    relations : sequence of str
        As :func:`stp_dims`.
    fields : sequence of {"float", "integer", "rational", "symbolic"}
        ``"float"``: NumPy arrays of values drawn through Hypothesis (see :func:`float_matrices`); the others ``sympy.Matrix`` as
        :func:`integer_matrices`, :func:`rational_matrices`, :func:`symbolic_matrices`.

    Returns
    -------
    SearchStrategy[STPPair]
    """
    n, p = draw(stp_dims(max_dim=max_dim, max_ratio=2, relations=relations))
    m, q = draw(st.integers(1, max_outer)), draw(st.integers(1, max_outer))
    field = draw(st.sampled_from(tuple(fields)))
    if field == "float":  # drawn through Hypothesis, so a failing pair shrinks
        return STPPair(np.asarray(draw(_values(m * n))).reshape(m, n), np.asarray(draw(_values(p * q))).reshape(p, q))
    if field == "symbolic":
        return STPPair(draw(symbolic_matrices((m, n), prefix="a")), draw(symbolic_matrices((p, q), prefix="b")))
    make: Any = {"integer": integer_matrices, "rational": rational_matrices}[field]
    return STPPair(draw(make((m, n))), draw(make((p, q))))


# ---------------------------------------------------------------------------------------------
# Kronecker factors
# ---------------------------------------------------------------------------------------------
def kron_shapes(*, min_factors: int = 2, max_factors: int = 3, max_side: int = 3
                ) -> st.SearchStrategy[tuple[tuple[int, int], ...]]:
    """Shapes ``((r_1, c_1), ..., (r_k, c_k))`` of Kronecker factors, each side in
    ``[1, max_side]``, ``k`` in ``[min_factors, max_factors]``."""
    side = st.tuples(st.integers(1, max_side), st.integers(1, max_side))
    return st.lists(side, min_size=min_factors, max_size=max_factors).map(tuple)


def kron_factors(*, min_factors: int = 2, max_factors: int = 3, max_side: int = 3,
                 field: str = "float") -> st.SearchStrategy[tuple[sympy.Matrix | np.ndarray, ...]]:
    """Tuples of Kronecker factors with shapes from :func:`kron_shapes`: ``"float"`` (NumPy,
    exactly representable entries, see :func:`float_matrices`), ``"integer"``, ``"rational"``
    or ``"symbolic"`` (``sympy.Matrix``; symbols named ``f{k}_i_j`` per factor ``k``)."""

    def factors(shapes: tuple[tuple[int, int], ...]) -> Any:
        if field == "float":
            parts = [float_matrices(s) for s in shapes]
        elif field == "symbolic":
            parts = [symbolic_matrices(s, prefix=f"f{k}") for k, s in enumerate(shapes)]
        else:
            make: Any = {"integer": integer_matrices, "rational": rational_matrices}[field]
            parts = [make(s) for s in shapes]
        return st.tuples(*parts)

    return kron_shapes(min_factors=min_factors, max_factors=max_factors, max_side=max_side).flatmap(factors)


# ---------------------------------------------------------------------------------------------
# SPM
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SPMConfig:
    """One SPM layer configuration (farag2025): what :func:`~isomat.algebra.spm.random_spm` takes.

    Attributes
    ----------
    n : int
        Dimension (any positive int: odd and non-powers of two included, unless drawn otherwise).
    L : int
        Number of stages.
    variant : {"rotation", "general"}
    schedule : {"butterfly", "random"}
    odd : {"pass", "scale"}
    seed : int
        ``random_spm``'s seed: the random schedule's pairings, and the parameters when no ``values``
        were drawn.
    values : tuple of float or None
        The parameters, drawn through Hypothesis (see :meth:`value_count`, :meth:`build`); ``None``:
        ``random_spm``'s, from ``seed``.
    """

    n: int
    L: int
    variant: str
    schedule: str
    odd: str
    seed: int
    values: tuple[float, ...] | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`~isomat.algebra.spm.random_spm` after ``n`` and ``L``."""
        return dict(variant=self.variant, schedule=self.schedule, odd=self.odd, seed=self.seed)

    def value_count(self) -> int:
        """How many values :attr:`values` holds: the stages' parameters (an angle, or four block entries,
        per pair), ``d_in``, ``d_out`` and the bias (``n`` each), and with ``odd="scale"`` one scale per stage."""
        per_pair = 1 if self.variant == "rotation" else 4
        return self.L * (self.n // 2) * per_pair + 3 * self.n + (self.L if self.odd == "scale" else 0)

    def build(self, dtype: Any = np.float64, diagonals: bool = True) -> SPM:
        """The layer: ``random_spm(n, L, **kwargs())``, or, with drawn :attr:`values`, the same schedule with
        those values (exact binary fractions v): angles v, block entries v/2, diagonals 1 + v/8, bias v/8,
        odd scales 1 + v/8. ``diagonals=False``: no diagonals nor bias (identity and zero)."""
        from ..algebra.spm import random_spm, spm_layer

        if self.values is None:
            return random_spm(self.n, self.L, dtype=dtype, diagonals=diagonals, **self.kwargs())
        if len(self.values) != self.value_count():
            raise ValueError(f"values holds {len(self.values)} entries; this configuration takes {self.value_count()}")
        v = np.asarray(self.values, dtype=np.float64)
        m, L, n = self.n // 2, self.L, self.n
        k = L * m * (1 if self.variant == "rotation" else 4)
        params = v[:k].reshape((L, m) if self.variant == "rotation" else (L, m, 4))
        params = params if self.variant == "rotation" else params / 2
        kw: dict[str, Any] = {}
        if diagonals:
            kw = dict(d_in=1 + v[k:k + n] / 8, d_out=1 + v[k + n:k + 2 * n] / 8, bias=v[k + 2 * n:k + 3 * n] / 8)
        if self.odd == "scale":
            kw["odd_scale"] = 1 + v[k + 3 * n:] / 8
        # the pairings random_spm would take: its "random" schedule is seeded with seed + 1
        return spm_layer(n, self.schedule, params.astype(dtype), variant=self.variant, odd=self.odd,
                         seed=self.seed + 1, **{key: np.asarray(val, dtype) for key, val in kw.items()})


@st.composite
def spm_configs(draw: Any, *, max_n: int = 12, max_L: int = 5, powers_of_two: bool = False,
                variants: Sequence[str] = ("rotation", "general"), schedules: Sequence[str] = ("butterfly", "random"),
                odd_modes: Sequence[str] = ("pass", "scale"), max_seed: int = 10**6, values: bool = True) -> SPMConfig:
    """SPM configurations (:class:`SPMConfig`): ``n`` in ``[1, max_n]`` (or powers of two up to
    ``max_n`` when ``powers_of_two``), ``L`` in ``[1, max_L]`` (any L: stages wrap around the
    butterfly levels), both variants, schedules and odd modes. ``values`` (default): the parameters are
    drawn through Hypothesis (:attr:`SPMConfig.values`), so a failing layer shrinks to simpler numbers;
    ``False``: ``random_spm``'s from the drawn seed."""
    if powers_of_two:
        n = 2 ** draw(st.integers(0, max(0, int(math.log2(max_n)))))
    else:
        n = draw(st.integers(1, max_n))
    L = draw(st.integers(1, max_L))
    cfg = SPMConfig(n, L, draw(st.sampled_from(tuple(variants))), draw(st.sampled_from(tuple(schedules))),
                    draw(st.sampled_from(tuple(odd_modes))), draw(st.integers(0, max_seed)))
    return replace(cfg, values=draw(_values(cfg.value_count()))) if values else cfg


def spm_layers(**kwargs: Any) -> st.SearchStrategy[SPM]:
    """Float SPM layers: :func:`spm_configs` (same keyword arguments) built (:meth:`SPMConfig.build`)."""
    return spm_configs(**kwargs).map(lambda c: c.build())
