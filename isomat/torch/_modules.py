r"""torch modules in: the exact affine map of a ``torch.nn`` layer as ``(W, b)``.

:func:`from_module` turns a linear (affine) torch layer into a SciPy CSR matrix ``W`` and a NumPy
bias ``b`` with

.. math:: \operatorname{vec}(\text{module}(x)) = W\operatorname{vec}(x) + b

for **one sample** ``x`` of shape ``input_shape`` *without* a batch axis (torch's unbatched
input), ``vec`` the row-major (C order) flattening, i.e. ``module(x).flatten() == W @ x.flatten() + b``.
The matrices come from isomat's constructions (:func:`~isomat.algebra.conv_matrix`,
:func:`~isomat.algebra.avgpool_matrix`, :func:`~isomat.algebra.maxpool_selection`,
:func:`~isomat.algebra.rnn_matrix`, :func:`~isomat.algebra.ndlinear_matrix`), composed where
torch has an option they lack:

=============================  ====================================================================
module                         supported
=============================  ====================================================================
``nn.Conv1d/2d/3d``            groups, stride, dilation, padding (ints, ``"same"``, ``"valid"``),
                               every ``padding_mode`` (``zeros``, ``circular``, ``reflect``,
                               ``replicate``), passed to ``conv_matrix(..., padding_mode=)``
``nn.ConvTranspose1d/2d/3d``   stride, padding, output_padding, dilation, groups: the transpose of
                               the matching convolution's matrix (rows past the input dropped)
``nn.AvgPool1d/2d/3d``         stride, padding, ceil_mode, count_include_pad, divisor_override
                               (negative too: the matrix for ``|d|``, negated)
``nn.MaxPool1d/2d/3d``         the 0/1 selection matrix :math:`S(x)` for the given ``x``
                               (required), ``b = 0``; dilation, ceil_mode, padding
``nn.Linear``                  ``input_shape = (*lead, in_features)``: :math:`I\otimes W`
``LinearRNN``                  (this module) :math:`h_t = W_{ih}x_t + b_{ih} + W_{hh}h_{t-1} + b_{hh}`,
                               :math:`h_0 = 0`, any ``num_layers``; ``W`` maps ``x`` of shape
                               ``(T, input_size)`` to ``module(x)[0]`` of shape ``(T, hidden_size)``
``ndlinear.NdLinear``          both ``transform_outer``; ``input_shape = input_dims``
                               (the module itself needs a batch axis: ``module(x[None])[0]``)
=============================  ====================================================================

``nn.RNN`` always applies ``tanh`` or ``relu``, so it is not affine: it is refused, with a
pointer to :class:`LinearRNN`, an ``nn.RNN`` subclass without the nonlinearity. Any other
module, or option, raises ``TypeError``/``ValueError`` naming it and what is supported. Module
types are matched exactly (a subclass of ``nn.Conv2d`` may override ``forward``, so it is
refused), except ``NdLinear`` and :class:`LinearRNN` subclasses.

Parameters are detached (and moved to the CPU). ``W`` and ``b`` take the module's dtype (its
parameters'; for a parameter-free pooling module that of ``x``, else torch's default dtype), so
a float32 layer gives float32 matrices, unless ``dtype=`` names another. Values are computed in
float64 (complex128 for complex) and rounded once to that dtype.
"""

from __future__ import annotations

import contextvars
import math
from typing import Any

import numpy as np
import scipy.sparse as sp
import sympy

try:
    import torch
    from torch import nn
except ImportError as exc:  # pragma: no cover - exercised with torch hidden
    raise ImportError(
        "isomat.torch needs PyTorch: install the torch extra, pip install 'isomat[torch]'"
    ) from exc

from .. import _validate
from ..algebra.conv import conv_matrix, conv_output_shape
from ..algebra.ndlinear import ndlinear_matrix
from ..algebra.pool import avgpool_matrix, maxpool_selection
from ..algebra.rnn import rnn_matrix

__all__ = ["LinearRNN", "SUPPORTED_MODULES", "from_module"]

SUPPORTED_MODULES = (
    "nn.Conv1d", "nn.Conv2d", "nn.Conv3d", "nn.ConvTranspose1d", "nn.ConvTranspose2d", "nn.ConvTranspose3d",
    "nn.AvgPool1d", "nn.AvgPool2d", "nn.AvgPool3d", "nn.MaxPool1d", "nn.MaxPool2d", "nn.MaxPool3d",
    "nn.Linear", "isomat.torch.LinearRNN", "ndlinear.NdLinear",
)


class LinearRNN(nn.RNN):
    r"""``nn.RNN`` without its nonlinearity: :math:`h_t = W_{ih}x_t + b_{ih} + W_{hh}h_{t-1} + b_{hh}`.

    The linear recurrence of zhu2025 Theorem 4.2 (:func:`isomat.algebra.rnn_matrix`) as a torch
    module: same parameters (``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
    ``bias_hh_l{k}``), same call convention (``module(x, h0=None) -> (output, h_n)``, unbatched
    ``(T, input_size)`` or batched input, ``batch_first``), same initialisation. Layers are
    stacked (``num_layers``); ``bidirectional`` and ``dropout`` are not offered.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, num_layers=num_layers, nonlinearity="tanh", bias=bias,
                         batch_first=batch_first, dropout=0.0, bidirectional=False, device=device, dtype=dtype)
        self.nonlinearity = None  # no nonlinearity

    def extra_repr(self) -> str:
        return super().extra_repr() + ", nonlinearity=None"

    def forward(self, input: torch.Tensor, hx: torch.Tensor | None = None):  # type: ignore[override]
        if input.dim() not in (2, 3):
            raise ValueError(f"LinearRNN: expected input of 2 (unbatched) or 3 dims, got shape {tuple(input.shape)}")
        unbatched = input.dim() == 2
        x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
        T, B = x.shape[0], x.shape[1]
        if hx is None:
            hx = x.new_zeros(self.num_layers, B, self.hidden_size)
        elif unbatched:
            hx = hx.unsqueeze(1)
        layer_in, last = x, []
        for k in range(self.num_layers):
            w_ih, w_hh = getattr(self, f"weight_ih_l{k}"), getattr(self, f"weight_hh_l{k}")
            pre = layer_in @ w_ih.T
            if self.bias:
                pre = pre + getattr(self, f"bias_ih_l{k}") + getattr(self, f"bias_hh_l{k}")
            h, outs = hx[k], []
            for t in range(T):
                h = pre[t] + h @ w_hh.T
                outs.append(h)
            layer_in = torch.stack(outs)
            last.append(h)
        out, h_n = layer_in, torch.stack(last)
        if unbatched:
            return out.squeeze(1), h_n.squeeze(1)
        return (out.transpose(0, 1) if self.batch_first else out), h_n


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
# from_module(field="sympy"): parameters enter as exact Rationals (each float is a dyadic rational)
_EXACT: contextvars.ContextVar[bool] = contextvars.ContextVar("isomat_torch_exact", default=False)


def _exact_array(arr: np.ndarray) -> np.ndarray:
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1).tolist()):
        flat[i] = sympy.Rational(*float(v).as_integer_ratio())
    return out


def _np(t: Any) -> np.ndarray:
    """A detached float64 (complex128) host copy of a tensor / Parameter (exact Rationals in the
    sympy field)."""
    a = t.detach().cpu()
    if _EXACT.get():
        if a.is_complex():
            raise TypeError("from_module(field='sympy') handles real modules; this one has complex parameters")
        return _exact_array(a.to(torch.float64).numpy())
    if a.is_complex():
        return a.to(torch.complex128).numpy()
    return a.to(torch.float64).numpy()


def _np_dtype(dtype: Any) -> np.dtype:
    if isinstance(dtype, torch.dtype):
        try:
            dt = np.dtype(torch.empty((), dtype=dtype).numpy().dtype)
        except TypeError:
            raise ValueError(f"dtype {dtype} has no NumPy equivalent; pass float32, float64, ...") from None
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype must be a torch or NumPy dtype, got {dtype!r}") from None
    if dt.kind not in "fc":
        raise ValueError(f"dtype must be a floating or complex dtype, got {dt}")
    return dt


def _tuple(name: str, value: Any, d: int, module: nn.Module) -> tuple[int, ...]:
    """torch's int-or-tuple argument as a d-tuple (a 1-tuple applies to every axis, as torch)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * d
    vals = tuple(int(v) for v in value)
    if len(vals) == 1:
        return vals * d
    if len(vals) != d:
        raise ValueError(f"{type(module).__name__}: {name} must have 1 or {d} entries, got {value!r}")
    return vals


def _shape(input_shape: Any, x: Any) -> tuple[int, ...]:
    if input_shape is None:
        if x is None:
            raise TypeError("from_module needs input_shape (one sample's shape, no batch axis) or x")
        return tuple(int(s) for s in (x.shape if hasattr(x, "shape") else np.shape(x)))
    if isinstance(input_shape, (int, np.integer)):
        input_shape = (int(input_shape),)
    try:
        if isinstance(input_shape, (str, bytes)):
            raise TypeError
        shape = tuple(int(s) for s in input_shape)
    except (TypeError, ValueError):
        raise TypeError(f"input_shape must be a tuple of ints (one sample, no batch axis), "
                        f"got {input_shape!r}") from None
    if not shape or any(s < 1 for s in shape):
        raise ValueError(f"input_shape must be a non-empty tuple of positive ints (one sample, no batch axis), got {shape}")
    x_shape = None if x is None else tuple(x.shape if hasattr(x, "shape") else np.shape(x))
    if x_shape is not None and x_shape != shape:
        raise ValueError(f"x has shape {x_shape} but input_shape is {shape} (one sample, no batch axis)")
    return shape


def _need_shape(module: nn.Module, shape: tuple[int, ...], ndim: int, what: str) -> None:
    if len(shape) != ndim:
        raise ValueError(f"{type(module).__name__} needs input_shape {what} ({ndim} entries, no batch axis), "
                         f"got {shape}")


def _bias(module: nn.Module, out_shape: tuple[int, ...]) -> np.ndarray:
    """The per-channel bias broadcast over the spatial output, flattened (zeros without a bias)."""
    n_out = math.prod(out_shape)
    if getattr(module, "bias", None) is None:
        return np.zeros(n_out, dtype=object) * 0 if _EXACT.get() else np.zeros(n_out)
    bias = _np(module.bias)
    return np.repeat(bias, n_out // out_shape[0])


def _csr(W: Any) -> sp.csr_array:
    if _EXACT.get():
        return sympy.SparseMatrix(W)
    W = sp.csr_array(W)
    W.sum_duplicates()
    return W


# ---------------------------------------------------------------------------------------------
# per module family: (W, b) in float64, plus the dtype the module implies
# ---------------------------------------------------------------------------------------------
def _conv(module: nn.Module, d: int, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    _need_shape(module, shape, d + 1, "(C_in, " + ", ".join(f"n{i + 1}" for i in range(d)) + ")")
    if shape[0] != module.in_channels:
        raise ValueError(f"{type(module).__name__} has in_channels={module.in_channels} but input_shape "
                         f"{shape} has {shape[0]} channels (input_shape is (C_in, *spatial), no batch axis)")
    k = _np(module.weight)
    stride = _tuple("stride", module.stride, d, module)
    dilation = _tuple("dilation", module.dilation, d, module)
    groups = int(module.groups)
    mode = module.padding_mode
    if isinstance(module.padding, str):
        padding = module.padding  # "same" / "valid", as conv_matrix
    else:
        padding = _tuple("padding", module.padding, d, module)
    if mode not in ("zeros", "circular", "reflect", "replicate"):
        raise ValueError(f"{type(module).__name__}: padding_mode={mode!r} is not supported; supported: "
                         f"'zeros', 'circular', 'reflect', 'replicate'")
    # conv_matrix takes torch's padding_mode as is (reflect: padding < the input size, as torch)
    W = conv_matrix(shape, k, stride=stride, padding=padding, dilation=dilation, groups=groups, padding_mode=mode)
    out = conv_output_shape(shape, k.shape, stride=stride, padding=padding, dilation=dilation, groups=groups)
    return W, _bias(module, out)


def conv_form(module: nn.Module, shape: tuple[int, ...]) -> Any:
    """The :class:`~isomat.torch._products.ConvForm` of a convolution module (``nn.Conv1d/2d/3d``, or a
    functional layer's proxy) on one sample of ``shape``, or ``None`` where it has none (a padding
    mode other than zeros, a padding given as a string, complex weights): the kernel its matrix is
    built from (:func:`_conv`), kept for the fast products of a network's local maps."""
    from ._products import ConvForm

    d = _CONV.get(type(module))
    w = getattr(module, "weight", None)
    if d is None or module.padding_mode != "zeros" or isinstance(module.padding, str) or w is None or w.is_complex():
        return None
    out = conv_output_shape(shape, tuple(w.shape), stride=module.stride, padding=module.padding,
                            dilation=module.dilation, groups=module.groups)
    return ConvForm(d, np.ascontiguousarray(_np(w)), _tuple("stride", module.stride, d, module),
                    _tuple("padding", module.padding, d, module), _tuple("dilation", module.dilation, d, module),
                    int(module.groups), tuple(shape), tuple(int(v) for v in out))


def _conv_transpose(module: nn.Module, d: int, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    _need_shape(module, shape, d + 1, "(C_in, " + ", ".join(f"n{i + 1}" for i in range(d)) + ")")
    if shape[0] != module.in_channels:
        raise ValueError(f"{type(module).__name__} has in_channels={module.in_channels} but input_shape "
                         f"{shape} has {shape[0]} channels (input_shape is (C_in, *spatial), no batch axis)")
    if module.padding_mode != "zeros":
        raise ValueError(f"{type(module).__name__}: padding_mode={module.padding_mode!r} is not supported "
                         f"(torch itself supports only 'zeros' for transposed convolutions)")
    k = _np(module.weight)  # (C_in, C_out / groups, k...): a convolution C_out -> C_in
    stride = _tuple("stride", module.stride, d, module)
    padding = _tuple("padding", module.padding, d, module)
    dilation = _tuple("dilation", module.dilation, d, module)
    out_pad = _tuple("output_padding", module.output_padding, d, module)
    groups = int(module.groups)
    for i in range(d):
        if not (out_pad[i] < stride[i] or out_pad[i] < dilation[i]):
            raise ValueError(f"{type(module).__name__}: output_padding {out_pad} must be smaller than stride "
                             f"{stride} or dilation {dilation} on every axis (as torch)")
    spatial = tuple((n - 1) * s - 2 * p + dl * (kk - 1) + op + 1
                    for n, s, p, dl, kk, op in zip(shape[1:], stride, padding, dilation, k.shape[2:], out_pad))
    if any(o < 1 for o in spatial):
        raise ValueError(f"{type(module).__name__}: input_shape {shape} gives an empty output {spatial}")
    c_out = k.shape[1] * groups
    conv_in = (c_out,) + spatial
    C = conv_matrix(conv_in, k, stride=stride, padding=padding, dilation=dilation, groups=groups)
    got = conv_output_shape(conv_in, k.shape, stride=stride, padding=padding, dilation=dilation, groups=groups)
    if tuple(got[1:]) != tuple(shape[1:]):  # output_padding >= stride (allowed when < dilation): extra rows
        grids = np.meshgrid(*[np.arange(g) for g in got], indexing="ij")
        keep = np.ones(got, dtype=bool)
        for i in range(d):
            keep &= grids[i + 1] < shape[i + 1]
        rows = np.flatnonzero(keep.reshape(-1))
        C = C.extract([int(r) for r in rows], list(range(C.cols))) if _EXACT.get() else C[rows]
    return C.T, _bias(module, conv_in)


def _pool_args(module: nn.Module, d: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    window = _tuple("kernel_size", module.kernel_size, d, module)
    stride = module.stride
    stride = window if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _tuple("stride", stride, d, module)
    padding = _tuple("padding", module.padding, d, module)
    return window, stride, padding


def _avgpool(module: nn.Module, d: int, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    _need_shape(module, shape, d + 1, "(C, " + ", ".join(f"n{i + 1}" for i in range(d)) + ")")
    window, stride, padding = _pool_args(module, d)
    div = getattr(module, "divisor_override", None)  # torch's semantics, negative divisors included
    W = avgpool_matrix(shape, window, stride=stride, padding=padding, ceil_mode=bool(module.ceil_mode),
                       count_include_pad=bool(module.count_include_pad),
                       divisor_override=None if div is None else int(div), backend="sympy" if _EXACT.get() else "numpy")
    return W, np.zeros(W.shape[0])


def _maxpool(module: nn.Module, d: int, shape: tuple[int, ...], x: Any) -> tuple[Any, np.ndarray]:
    if x is None:
        raise ValueError(f"{type(module).__name__} is not linear: pass x= (one sample of shape input_shape) to get "
                         f"the selection matrix S(x) with module(x).flatten() == S(x) @ x.flatten()")
    _need_shape(module, shape, d + 1, "(C, " + ", ".join(f"n{i + 1}" for i in range(d)) + ")")
    window, stride, padding = _pool_args(module, d)
    dilation = _tuple("dilation", module.dilation, d, module)
    xt = x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x))
    xt = xt.detach().cpu()
    if xt.is_complex():
        raise TypeError(f"{type(module).__name__}: x must be real (max pooling compares values), got {xt.dtype}")
    S = maxpool_selection(xt.numpy(), window, stride=stride, padding=padding, dilation=dilation,
                          ceil_mode=bool(module.ceil_mode))
    if _EXACT.get():
        S = sp.coo_array(S)
        S = sympy.SparseMatrix(S.shape[0], S.shape[1], {(int(i), int(j)): sympy.Integer(1) for i, j in zip(S.row, S.col)})
    return S, np.zeros(S.shape[0])


def _linear(module: nn.Module, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    if shape[-1] != module.in_features:
        raise ValueError(f"nn.Linear has in_features={module.in_features} but input_shape {shape} ends in "
                         f"{shape[-1]} (input_shape is (*lead, in_features), no batch axis needed)")
    w = _np(module.weight)
    lead = math.prod(shape[:-1])
    if _EXACT.get():
        m, n = w.shape
        dok = {(r * m + i, r * n + j): w[i, j] for r in range(lead) for i in range(m) for j in range(n) if w[i, j] != 0}
        b = np.zeros(m, dtype=object) * 0 if module.bias is None else _np(module.bias)
        return sympy.SparseMatrix(lead * m, lead * n, dok), np.tile(b, lead)
    W = sp.kron(sp.eye_array(lead, format="csr"), sp.csr_array(w), format="csr") if lead > 1 else sp.csr_array(w)
    b = np.zeros(w.shape[0]) if module.bias is None else _np(module.bias)
    return W, np.tile(b, lead)


def _rnn(module: LinearRNN, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    _need_shape(module, shape, 2, "(T, input_size)")
    if shape[1] != module.input_size:
        raise ValueError(f"LinearRNN has input_size={module.input_size} but input_shape {shape} has {shape[1]} "
                         f"features (input_shape is (T, input_size), no batch axis)")
    if module.bidirectional or module.proj_size:
        raise ValueError("LinearRNN: bidirectional / proj_size are not supported")
    T = shape[0]
    W_tot, b_tot = None, None
    for k in range(module.num_layers):
        U, V = _np(getattr(module, f"weight_ih_l{k}")), _np(getattr(module, f"weight_hh_l{k}"))
        W = rnn_matrix(U, V, T)
        c = np.zeros(U.shape[0], dtype=U.dtype) * 0
        if module.bias:
            c = _np(getattr(module, f"bias_ih_l{k}")) + _np(getattr(module, f"bias_hh_l{k}"))
        b = np.empty((T, U.shape[0]), dtype=U.dtype)  # bias block t: sum_{j<t} V^j c
        acc = np.zeros_like(c)
        for t in range(T):
            acc = V @ acc + c
            b[t] = acc
        b = b.reshape(-1)
        if W_tot is None:
            W_tot, b_tot = W, b
        elif _EXACT.get():  # layer k reads layer k-1's output sequence
            W_tot = W * W_tot
            b_tot = np.asarray(list(W * sympy.Matrix(list(b_tot))), dtype=object) + b
        else:  # layer k reads layer k-1's output sequence
            W_tot, b_tot = W @ W_tot, W @ b_tot + b
    return W_tot, b_tot


def _ndlinear(module: nn.Module, shape: tuple[int, ...]) -> tuple[Any, np.ndarray]:
    dims = tuple(int(v) for v in module.input_dims)
    if shape != dims:
        raise ValueError(f"NdLinear has input_dims={dims} but input_shape is {shape} (one sample, no batch axis)")
    ws = [_np(layer.weight) for layer in module.align_layers]
    bs = [None if layer.bias is None else _np(layer.bias) for layer in module.align_layers]
    K, beta = ndlinear_matrix(ws, bs, "outer" if module.transform_outer else "inner")
    return K, np.asarray(beta).reshape(-1)


def _is_ndlinear(module: nn.Module) -> bool:
    try:
        from ndlinear import NdLinear
    except ImportError:
        return False
    return isinstance(module, NdLinear)


_CONV = {nn.Conv1d: 1, nn.Conv2d: 2, nn.Conv3d: 3}
_CONVT = {nn.ConvTranspose1d: 1, nn.ConvTranspose2d: 2, nn.ConvTranspose3d: 3}
_AVG = {nn.AvgPool1d: 1, nn.AvgPool2d: 2, nn.AvgPool3d: 3}
_MAX = {nn.MaxPool1d: 1, nn.MaxPool2d: 2, nn.MaxPool3d: 3}


def _module_dtype(module: nn.Module, x: Any) -> np.dtype:
    for p in module.parameters():
        return _np_dtype(p.dtype)
    if x is not None:
        dt = x.dtype if isinstance(x, torch.Tensor) else np.asarray(x).dtype
        try:
            return _np_dtype(dt)
        except ValueError:
            pass
    return _np_dtype(torch.get_default_dtype())


def from_module(module: Any, input_shape: Any, *, x: Any = None, dtype: Any = None,
                field: str = "numpy") -> tuple[Any, Any]:
    r"""The affine map of a torch layer: ``(W, b)`` with ``module(x).flatten() == W @ x.flatten() + b``.

    Parameters
    ----------
    module : torch.nn.Module
        One of :data:`SUPPORTED_MODULES` (module docstring: the options each supports).
    input_shape : tuple of int
        One sample's shape, **no batch axis** (torch's unbatched input): ``(C_in, *spatial)``
        for convolutions and pooling, ``(*lead, in_features)`` for ``nn.Linear``,
        ``(T, input_size)`` for :class:`LinearRNN`, ``input_dims`` for ``NdLinear``. May be
        ``None`` when ``x`` is given.
    x : tensor or array, optional
        One sample of shape ``input_shape``. Required for ``nn.MaxPool*`` (the selection matrix
        depends on it); for the other modules only its shape (and, for parameter-free modules,
        its dtype) is used.
    dtype : torch or NumPy dtype, optional
        dtype of ``W`` and ``b``; default the module's (its parameters'; for pooling that of
        ``x``, else ``torch.get_default_dtype()``).
    field : {"numpy", "sympy"}
        ``"sympy"``: the exact map, ``W`` a ``sympy.SparseMatrix`` and ``b`` a ``sympy.Matrix``
        column, every parameter entering as the exact rational its float is (sums of weights that
        meet in one entry, averages' ``1/k`` and the recurrence's powers exact); real modules only.

    Returns
    -------
    (W, b)
        ``W`` a ``scipy.sparse.csr_array`` of shape ``(n_out, prod(input_shape))``, ``b`` a NumPy
        vector of length ``n_out`` (zeros when the module has no bias; always zeros for pooling).

    Raises
    ------
    TypeError
        ``module`` is not a supported module (``nn.RNN``: not affine, use :class:`LinearRNN`).
    ValueError
        An unsupported option, or an ``input_shape`` that does not fit the module.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}; supported: "
                        f"{', '.join(SUPPORTED_MODULES)}")
    shape = _shape(input_shape, x)
    field = _validate.choice("field", field, ("numpy", "sympy"))
    if field == "sympy":
        if dtype is not None:
            raise ValueError("dtype applies to the numpy field; field='sympy' is exact")
        token = _EXACT.set(True)
        try:
            W, b = _family(module, shape, x)
            W = _csr(W)
        finally:
            _EXACT.reset(token)
        b = sympy.Matrix([sympy.sympify(v) for v in np.asarray(b, dtype=object).reshape(-1)])
        return W, b
    out_dtype = _np_dtype(dtype) if dtype is not None else _module_dtype(module, x)
    W, b = _family(module, shape, x)
    W = _csr(W)
    if W.shape[1] != math.prod(shape):  # pragma: no cover - internal consistency
        raise AssertionError(f"built W of shape {W.shape} for input_shape {shape}")
    b = np.asarray(b)
    if out_dtype.kind != "c" and (np.iscomplexobj(W.data) or np.iscomplexobj(b)):
        raise ValueError(f"the module has complex parameters; pass a complex dtype, not {out_dtype}")
    return W.astype(out_dtype), b.astype(out_dtype)


def _family(module: nn.Module, shape: tuple[int, ...], x: Any) -> tuple[Any, Any]:
    """(W, b) of one supported module, in float64 (or exact, inside field='sympy')."""
    kind = type(module)
    if kind in _CONV:
        W, b = _conv(module, _CONV[kind], shape)
    elif kind in _CONVT:
        W, b = _conv_transpose(module, _CONVT[kind], shape)
    elif kind in _AVG:
        W, b = _avgpool(module, _AVG[kind], shape)
    elif kind in _MAX:
        W, b = _maxpool(module, _MAX[kind], shape, x)
    elif kind is nn.Linear:
        W, b = _linear(module, shape)
    elif isinstance(module, LinearRNN):
        W, b = _rnn(module, shape)
    elif isinstance(module, nn.RNNBase):
        what = f"nn.RNN (nonlinearity={module.nonlinearity!r})" if isinstance(module, nn.RNN) else kind.__name__
        raise TypeError(f"{what} is not affine, so it has no (W, b); for the linear recurrence "
                        f"h_t = W_ih x_t + b_ih + W_hh h_(t-1) + b_hh use isomat.torch.LinearRNN (an nn.RNN "
                        f"without the nonlinearity, same parameters)")
    elif _is_ndlinear(module):
        W, b = _ndlinear(module, shape)
    else:
        raise TypeError(f"{kind.__name__} is not supported by from_module; supported: {', '.join(SUPPORTED_MODULES)}")
    return W, b
