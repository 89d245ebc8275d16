r"""The sparse twin of a whole model: zhu2025 §6's "sparse-weight-matrix isomorphic counterpart".

:func:`to_sparse_model` traces a model (:func:`~isomat.torch.from_model`) and returns a torch
module that computes the same function as a chain of sparse products: every affine node is a
:class:`~isomat.torch.twin.SparseAffine` (``y = Wx + b``, ``W`` sparse), nonlinearities are
torch's own elementwise functions and max pooling. The twin owns a copy of the model
(``twin.source``); the values of each layer's sparse ``W`` are computed, in every forward, from
*that layer's dense parameters* (a convolution's kernel, a batch norm's scale and shift), and the
backward is the exact adjoint of the construction. Training the twin therefore updates the
kernels exactly as training the model does: from the same initialisation and the same batches,
the two follow the same trajectory up to floating-point rounding.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn.functional as F
from torch import nn

from ._forms import LayerNode, _weight_norm_hook
from ._selection import AmaxNode
from .network import ActivationNode, AffineNode, InputNode, MaxPoolNode, Network
from .trace import from_model
from .twin import SparseAffine, _check_kernel, _KernelChoice

__all__ = ["SparseModel", "to_sparse_model"]


def _is_identity(W: sp.csr_array) -> bool:
    n = W.shape[0]
    return (W.shape[0] == W.shape[1] and W.nnz == n and np.array_equal(W.indices, np.arange(n))
            and np.array_equal(W.indptr, np.arange(n + 1)) and bool(np.all(W.data == 1.0)))


def _read_live(source: nn.Module, how: str, ref: str, attr: str) -> Any:
    """A LayerNode's tensor, read from the twin's source model now (so autograd reaches it)."""
    if how in ("param", "param_T"):
        obj: Any = source
        for part in ref.split("."):
            obj = getattr(obj, part)  # getattr, not get_parameter: buffers too, and functional_call's swaps
        return obj.T if how == "param_T" else obj
    mod = source.get_submodule(ref) if ref else source
    if how == "module":  # a parametrization recomputes it at this read
        return getattr(mod, attr)
    hook = _weight_norm_hook(mod)
    if how == "weight_norm":
        return hook.compute_weight(mod)
    return hook.compute_weight(mod, do_power_iteration=False)  # spectral_norm in eval: the stored u, v


class _Live(nn.Module):
    """Stands in for a LayerNode's layer inside its SparseAffine: the tensors ``live`` names are read
    from the source model at every access, the rest (hyperparameters, constants) from ``proxy``."""

    def __init__(self, source: nn.Module, live: tuple, proxy: nn.Module) -> None:
        super().__init__()
        self.proxy = proxy
        object.__setattr__(self, "_source", source)  # not a child: its parameters are listed once, by the twin
        self._live = {attr: (how, ref) for attr, how, ref in live}

    def __getattr__(self, name: str) -> Any:
        live = self.__dict__.get("_live")
        if live is not None and name in live:
            how, ref = live[name]
            return _read_live(self.__dict__["_source"], how, ref, name)
        modules = self.__dict__.get("_modules", {})
        if name != "proxy" and "proxy" in modules:
            return getattr(modules["proxy"], name)
        return super().__getattr__(name)


class _EinsumTwin(nn.Module):
    """An einsum node of the twin: torch.einsum on the batch and the source model's live operands."""

    def __init__(self, source: nn.Module, node: LayerNode, dtype: torch.dtype) -> None:
        super().__init__()
        spec = node.proxy
        object.__setattr__(self, "_source", source)
        self.equation, self.position = spec.equation, spec.position
        self.how = {int(attr[len("operand"):]): (how, ref) for attr, how, ref in node.live}
        self.consts = [o.to(dtype) if isinstance(o, torch.Tensor) else o for o in spec.operands]

    def _apply(self, fn: Any, recurse: bool = True) -> "_EinsumTwin":  # type: ignore[override]
        super()._apply(fn, recurse)
        self.consts = [fn(o) if isinstance(o, torch.Tensor) else o for o in self.consts]
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ops = list(self.consts)
        ops[self.position] = x
        for k, (how, ref) in self.how.items():
            if how != "const":
                ops[k] = _read_live(self.__dict__["_source"], how, ref, f"operand{k}")
        return torch.einsum(self.equation, *ops)


class SparseModel(_KernelChoice, nn.Module):
    """A torch model computing a :class:`~isomat.torch.network.Network` by sparse products.

    Built by :func:`to_sparse_model`. ``source`` is the twin's copy of the original model: its
    parameters (same names as the model's, under ``source.``) are the twin's parameters, and
    ``twin.source.load_state_dict(model.state_dict())`` synchronises the two. ``network`` is the
    traced network; ``affine`` maps node names to their :class:`SparseAffine` layers.
    """

    def __init__(self, network: Network, source: nn.Module, dtype: torch.dtype, kernel: str = "auto") -> None:
        super().__init__()
        self.kernel = kernel
        self.source = source
        self.network = network
        # the SparseAffine layers read source's parameters; they are kept out of the module tree so that
        # parameters() and state_dict() list each parameter once, under its model name (_apply moves them)
        self._affine: dict[str, list[tuple[str, SparseAffine | None]]] = {}
        for node in network.nodes.values():
            if isinstance(node, AffineNode):
                self._affine[node.name] = self._build_affine(node, dtype)
            for ref in getattr(node, "reads", ()):
                raise ValueError(f"to_sparse_model: node {node.name!r} ({node.source}) reads the parameter {ref!r} as a "
                                 f"constant; the twin would not train it")

    def _kernel_set(self) -> None:  # "auto" or "sparse" (see to_sparse_model): every layer's
        for parts in self.__dict__.get("_affine", {}).values():
            for _, layer in parts:
                if isinstance(layer, SparseAffine):
                    layer.kernel = self._kernel

    @property
    def affine(self) -> dict[str, list[SparseAffine]]:
        return {k: [a for _, a in v if a is not None] for k, v in self._affine.items()}

    def _build_affine(self, node: AffineNode, dtype: torch.dtype) -> list[tuple[str, SparseAffine | None]]:
        if isinstance(node, LayerNode):  # functional / parametrized layers: tensors read from source at each forward
            if node.kind == "einsum":
                return [(node.inputs[0], _EinsumTwin(self.source, node, dtype))]
            proxy = copy.deepcopy(node.proxy).to(dtype)
            layer = SparseAffine.from_module(proxy, node.input_shapes[0], kernel=self.kernel)
            layer.module = _Live(self.source, node.live, proxy)
            return [(node.inputs[0], layer)]
        if node.module is not None and len(node.inputs) == 1 and node.kind in ("conv", "conv_transpose", "linear", "rnn",
                                                                                "ndlinear", "batchnorm", "avgpool"):
            mod = self.source.get_submodule(node.module)
            layer = SparseAffine.from_module(mod, node.input_shapes[0], kernel=self.kernel,
                                             **({"dtype": dtype} if node.kind == "avgpool" else {}))
            return [(node.inputs[0], layer)]
        parts: list[tuple[str, SparseAffine | None]] = []
        for k, (W, i, shape) in enumerate(zip(node.weights, node.inputs, node.input_shapes)):
            b = node.bias if (k == 0 and node.bias is not None) else None
            if b is None and _is_identity(W):
                parts.append((i, None))  # a residual connection's identity: added as is
                continue
            layer = SparseAffine(W, b, input_shape=shape, output_shape=node.shape, kernel=self.kernel)
            parts.append((i, layer.to(dtype)))
        return parts

    def _apply(self, fn: Any, recurse: bool = True) -> "SparseModel":  # type: ignore[override]
        super()._apply(fn, recurse)
        for parts in self._affine.values():
            for _, layer in parts:
                if layer is not None:
                    layer._apply(fn, recurse)
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        net = self.network
        shape = tuple(x.shape)
        if shape == net.input_shape:
            return self.forward(x[None])[0]
        if shape[1:] != net.input_shape:
            raise ValueError(f"x has shape {shape}; expected (N, *{net.input_shape}) or one sample {net.input_shape}")
        N = shape[0]
        vals: dict[str, torch.Tensor] = {}
        for node in net.nodes.values():
            if isinstance(node, InputNode):
                vals[node.name] = x.reshape(N, -1)
            elif isinstance(node, AffineNode):
                y = None
                for (i, layer), in_shape in zip(self._affine[node.name], node.input_shapes):
                    src = vals[i].reshape((N,) + in_shape)
                    term = src.reshape(N, -1) if layer is None else layer(src).reshape(N, -1)
                    y = term if y is None else y + term
                vals[node.name] = y
            elif isinstance(node, ActivationNode):
                vals[node.name] = self._activation(node, vals[node.input], N)
            else:
                vals[node.name] = self._maxpool(node, vals[node.input], N)
        return vals[net.output].reshape((N,) + net.output_shape)

    def _activation(self, node: ActivationNode, z: torch.Tensor, N: int) -> torch.Tensor:
        fn, p = node.fn, node.params
        if fn == "relu":
            return F.relu(z)
        if fn == "leaky_relu":
            return F.leaky_relu(z, float(p["slope"]))
        if fn == "prelu":
            if node.module is not None:
                weight = self.source.get_submodule(node.module).weight
            elif "weight_name" in p:
                weight = self.source.get_parameter(p["weight_name"])
            else:  # F.prelu with a constant weight: its per-entry slopes
                slope = torch.as_tensor(p["slope"], dtype=z.dtype, device=z.device)
                return torch.where(z > 0, z, z * slope)
            zs = z.reshape((N,) + node.shape)
            return F.prelu(zs, weight).reshape(N, -1)
        if fn == "hardtanh":
            lo, hi = p["lo"], p["hi"]
            if math.isfinite(lo) and math.isfinite(hi):
                return F.hardtanh(z, lo, hi)
            return torch.clamp(z, min=None if not math.isfinite(lo) else lo, max=None if not math.isfinite(hi) else hi)
        if fn == "clamp":  # torch's clamp: the gradient passes at the bounds (hardtanh's does not)
            lo, hi = p["lo"], p["hi"]
            return torch.clamp(z, min=lo if math.isfinite(lo) else None, max=hi if math.isfinite(hi) else None)
        if fn == "detach":
            return z.detach()
        if fn == "abs":
            return torch.abs(z)
        if fn == "tanh":
            return torch.tanh(z)
        if fn == "sigmoid":
            return torch.sigmoid(z)
        if fn == "silu":
            return F.silu(z)
        if fn == "gelu":
            return F.gelu(z, approximate=p.get("approximate", "none"))
        raise AssertionError(fn)  # pragma: no cover

    def _maxpool(self, node: MaxPoolNode, z: torch.Tensor, N: int) -> torch.Tensor:
        if isinstance(node, AmaxNode):  # torch.amax over rows: its gradient splits evenly among tied maxima
            return torch.amax(z.reshape(N, -1, node.window[-1]), dim=-1)
        zs = z.reshape((N,) + node.input_shape)
        d = node.ndim
        if node.adaptive is not None:
            fn = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}[d]
            return fn(zs, node.adaptive).reshape(N, -1)
        fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[d]
        return fn(zs, node.window, node.stride, node.padding, node.dilation, node.ceil_mode).reshape(N, -1)

    def extra_repr(self) -> str:
        n_aff = sum(1 for v in self._affine.values() for _, a in v if a is not None)
        return f"{self.network!r}, {n_aff} SparseAffine layers"


def to_sparse_model(model: Any, input_shape: Any, *, dtype: Any = None, kernel: str = "auto") -> SparseModel:
    r"""The sparse twin of ``model``: same outputs, same parameter gradients, sparse products.

    Parameters
    ----------
    model : torch.nn.Module
        Any model :func:`~isomat.torch.from_model` supports (in eval mode where it has batch norm
        or dropout).
    input_shape : tuple of int
        One sample's shape, no batch axis.
    dtype : torch.dtype, optional
        The twin's dtype (default: the model's parameters' (or floating buffers') dtype, else
        ``torch.get_default_dtype()`` -- pass ``dtype=torch.float64`` for a parameter-free model
        fed float64).
    kernel : {"auto", "sparse"}
        How each layer's product is computed (:data:`~isomat.torch.TWIN_KERNELS`). ``"auto"``
        (default): a diagonal pattern (eval batch norm) elementwise, a full one (``nn.Linear``) by
        one GEMM of its stored values, a convolution's pattern by torch's own convolution of the
        kernel its values are gathered from (used only where a build-time exact integer probe shows
        that convolution computes the probed sparse ``W`` and bias), everything else by the CSR
        product. ``"sparse"``: the CSR product and its exact adjoint for every layer -- zhu2025 §6's
        sparse counterpart computed as sparse products throughout (slower: about 3-4x native on
        LeNet-5, more on wider convolutions).

    Returns
    -------
    SparseModel
        ``twin(x)`` equals ``model(x)`` on batches ``(N, *input_shape)``; ``twin.source`` holds a
        copy of the model whose parameters the twin trains (names as in the model), so after
        ``loss.backward()`` on both, ``twin.source``'s gradients equal the model's.
    """
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype (torch.float32 or torch.float64), got {dtype!r}")
    _check_kernel(kernel)
    network = from_model(model, input_shape)
    if dtype is None:
        floats = [t.dtype for t in list(model.parameters()) + list(model.buffers()) if t.is_floating_point()]
        dtype = floats[0] if floats else torch.get_default_dtype()
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")
    source = copy.deepcopy(model).to(dtype)
    return SparseModel(network, source, dtype, kernel)
