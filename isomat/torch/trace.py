r"""Whole torch models in: :func:`from_model` traces a model with ``torch.fx`` into a :class:`Network`.

The model is traced (``torch.fx.symbolic_trace`` semantics; torch's own layers and the modules
:func:`from_module` supports are leaves, the user's modules are traced through) and then run once,
node by node, on a float64 copy of the model with a random batch of two samples. Each node
becomes an exact sparse affine map, an elementwise nonlinearity or a max-pool selection --
or is refused, naming the node, its op and its module path. Every translated node is checked on
the spot against the value torch computed for it (float64, relative error ≤ 1e-9): a
translation that does not reproduce torch is an error, never a silent approximation.

What is supported (beyond every module :func:`from_module` supports):

* containers and structure: ``nn.Sequential``, modules composed in ``forward``, ``nn.Flatten``,
  ``nn.Unflatten``, ``nn.Identity``, dropout in eval mode, ``view``/``reshape``/``flatten``/
  ``unsqueeze``/``squeeze``/``contiguous``, ``permute``/``transpose`` (permutation matrices),
  basic slicing ``x[:, 1:3]``, ``torch.cat``/``torch.stack``, ``mean``/``sum`` over non-batch axes;
* arithmetic: ``+``/``-`` of traced tensors (residual connections, with broadcasting between
  samples' shapes), ``+ - * /`` with constants (scalars, buffers, parameters), negation;
* layers: eval-mode ``BatchNorm1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``, ``Upsample`` and
  ``F.interpolate`` (nearest, nearest-exact, linear, bilinear, trilinear; both
  ``align_corners``), the padding modules and ``F.pad``, ``PixelShuffle``/``PixelUnshuffle``, the
  functional forms of pooling;
* nonlinearities: ReLU, ReLU6, LeakyReLU, PReLU, Hardtanh, ``clamp``, ``abs`` (piecewise
  linear), Tanh, Sigmoid, GELU (both approximations), SiLU (smooth); MaxPool and AdaptiveMaxPool
  as selections. Each keeps torch's derivative where it has a kink: ``clamp`` passes the gradient
  at its bounds, ``Hardtanh`` (and ``ReLU6``) do not;
* ``detach``: the identity in value and a constant for every derivative (``jacobian``,
  ``local_affine``, ``region`` and the sparse twin's gradients), as autograd treats it. A
  ``torch.no_grad()`` block leaves no trace in the graph, so :func:`from_model` compares the
  traced network's gradient with torch's own backward at the example batch and refuses a model
  whose gradients differ (wrap the value in ``.detach()`` instead);
* functional layers on the model's parameters or buffers (``F.conv*d``, ``F.conv_transpose*d``,
  ``F.linear``, ``F.batch_norm`` in eval, ``x @ W``, ``torch.einsum`` with one traced operand),
  parametrized layers (``torch.nn.utils.parametrizations.weight_norm``/``spectral_norm`` in eval)
  and ``ConvTranspose*d(x, output_size=...)``: :class:`LayerNode` s, whose tensors the sparse twin
  reads from its source model at every forward (so it trains them);
* ``chunk``/``split``/``tensor_split``/``unbind`` along sample axes (index nodes), ``flip``/
  ``roll`` (permutations), ``torch.max(x, dim)`` (values; the gradient to the first maximum, as
  the index torch returns) and ``torch.amax`` (:class:`~isomat.torch._selection.AmaxNode`: the
  gradient split evenly among tied maxima, as torch's);
* attention (``nn.MultiheadAttention``, ``nn.Transformer*``, ``F.scaled_dot_product_attention``)
  is refused as "not affine: attention", naming the module;
* in-place methods and operators (``add_``, ``mul_``, ``x += y``, ``inplace=True`` layers) trace
  as their out-of-place forms, unless the tensor they modify shares its memory with another value
  the model still reads (a view): that is refused, naming the op and its out-of-place rewrite.

A model in training mode is traced as it is: batch norm in training mode (batch statistics) and
active dropout are refused, with the hint to call ``model.eval()``.
"""

from __future__ import annotations

import copy
import math
import operator
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
import sympy
import torch
from torch import fx, nn
from torch.fx.operator_schemas import normalize_function
from torch.nn.utils import parametrize as _parametrize

from .. import _validate
from ..algebra._operator import check_bytes
from . import _layout
from ._modules import (_AVG, _CONV, _CONVT, _MAX, LinearRNN, _is_ndlinear, _pool_args, _shape, _tuple, conv_form,
                       from_module)
from ._forms import LayerNode, _containers, _depends_on_parameter, _EinsumSpec, _weight_norm_hook
from ._selection import AmaxNode
from .network import ActivationNode, AffineNode, InputNode, MaxPoolNode, Network, evaluate_node

__all__ = ["from_model", "UnsupportedNodeError"]

_N = 2  # the example batch: two samples, so an op that mixes samples shows


class UnsupportedNodeError(ValueError):
    """A model node from_model cannot represent exactly (names the node, its op and module path)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message  # torch.fx appends its own context to args[0]; this stays clean


# ---------------------------------------------------------------------------------------------
# values flowing through the interpreter
# ---------------------------------------------------------------------------------------------
class _Ref:
    """A traced tensor: the network node holding its flat value, and its per-sample shape."""

    __slots__ = ("node", "shape")

    def __init__(self, node: str, shape: tuple[int, ...]) -> None:
        self.node, self.shape = node, shape

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class _RNNOutput:
    """``LinearRNN``'s ``(output, h_n)``: only ``[0]`` (the output sequence) is affine in x."""

    def __init__(self, module: nn.Module, path: str, ref: _Ref) -> None:
        self.module, self.path, self.ref = module, path, ref


def _describe(n: fx.Node, gm: fx.GraphModule, path: Callable[[str], str] = str) -> str:
    if n.op == "call_module":
        mod = gm.get_submodule(n.target)
        return f"node {n.name!r} (call_module, module path {path(str(n.target))!r}, {type(mod).__module__}.{type(mod).__qualname__})"
    if n.op == "call_function":
        t = n.target
        name = f"{getattr(t, '__module__', None) or ''}.{getattr(t, '__name__', repr(t))}".lstrip(".")
        return f"node {n.name!r} (call_function {name}{_stack_hint(n)})"
    if n.op == "call_method":
        return f"node {n.name!r} (call_method Tensor.{n.target}{_stack_hint(n)})"
    return f"node {n.name!r} ({n.op} {n.target})"


def _stack_hint(n: fx.Node) -> str:
    path = n.meta.get("nn_module_stack")
    if path:
        return f", in module {list(path.keys())[-1]!r}"
    return ""


# ---------------------------------------------------------------------------------------------
# the tracer: leaves are torch's layers and what from_module supports
# ---------------------------------------------------------------------------------------------
class _Tracer(fx.Tracer):
    def is_leaf_module(self, m: nn.Module, qualname: str) -> bool:
        if isinstance(m, LinearRNN) or _is_ndlinear(m):
            return True
        return super().is_leaf_module(m, qualname)


# module families handled here (exact types: a subclass may override forward)
_BN = {nn.BatchNorm1d: 1, nn.BatchNorm2d: 2, nn.BatchNorm3d: 3}
_ADAPTIVE_AVG = {nn.AdaptiveAvgPool1d: 1, nn.AdaptiveAvgPool2d: 2, nn.AdaptiveAvgPool3d: 3}
_ADAPTIVE_MAX = {nn.AdaptiveMaxPool1d: 1, nn.AdaptiveMaxPool2d: 2, nn.AdaptiveMaxPool3d: 3}
_DROPOUT = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout)
_PAD_MODES = {
    nn.ZeroPad1d: "constant", nn.ZeroPad2d: "constant", nn.ZeroPad3d: "constant",
    nn.ConstantPad1d: "constant", nn.ConstantPad2d: "constant", nn.ConstantPad3d: "constant",
    nn.ReflectionPad1d: "reflect", nn.ReflectionPad2d: "reflect", nn.ReflectionPad3d: "reflect",
    nn.ReplicationPad1d: "replicate", nn.ReplicationPad2d: "replicate", nn.ReplicationPad3d: "replicate",
    nn.CircularPad1d: "circular", nn.CircularPad2d: "circular", nn.CircularPad3d: "circular",
}
_UPSAMPLE = (nn.Upsample, nn.UpsamplingNearest2d, nn.UpsamplingBilinear2d)
_ATTENTION = (nn.MultiheadAttention, nn.Transformer, nn.TransformerEncoder, nn.TransformerDecoder,
              nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)

#: the module types (besides from_module's) that from_model translates
SUPPORTED_MODEL_MODULES = (
    "nn.Sequential (traced through)", "nn.Flatten", "nn.Unflatten", "nn.Identity", "nn.Dropout* (eval)",
    "nn.BatchNorm1d/2d/3d (eval)", "nn.AdaptiveAvgPool1d/2d/3d", "nn.AdaptiveMaxPool1d/2d/3d", "nn.Upsample",
    "nn.UpsamplingNearest2d", "nn.UpsamplingBilinear2d", "nn.ZeroPad*/ConstantPad*/ReflectionPad*/ReplicationPad*/CircularPad*",
    "nn.PixelShuffle", "nn.PixelUnshuffle", "nn.ReLU", "nn.ReLU6", "nn.LeakyReLU", "nn.PReLU", "nn.Hardtanh", "nn.Tanh",
    "nn.Sigmoid", "nn.GELU", "nn.SiLU", "nn.MaxPool1d/2d/3d",
)


# ---------------------------------------------------------------------------------------------
# the builder: runs the graph, translating each node
# ---------------------------------------------------------------------------------------------
class _Builder(fx.Interpreter):
    def __init__(self, gm: fx.GraphModule, input_shape: tuple[int, ...], wrapped: bool = False) -> None:
        super().__init__(gm)
        self.gm = gm
        self.wrapped = wrapped
        self.input_shape = input_shape
        self.nodes: list[Any] = []
        self.names: set[str] = set()
        self.refs: dict[int, _Ref] = {}  # id(torch value) -> traced reference
        self.keep: list[Any] = []  # keeps traced tensors alive so their ids stay unique
        self.flat: dict[str, np.ndarray] = {}  # network node -> torch's values on the example batch (N, size)
        self.current: fx.Node | None = None
        self.output_ref: _Ref | None = None
        self.n_placeholders = 0
        self.param_names = {id(p): name for name, p in gm.named_parameters()}
        self.reads: list[str] = []  # parameters the current node reads as constants
        self.rnn: dict[int, _RNNOutput] = {}  # id(LinearRNN's result tuple) -> its affine output
        self.pieces: dict[int, tuple[_Ref, torch.Tensor, list[tuple]]] = {}  # id(chunk/split's tuple) -> its pieces
        self.maxes: dict[int, tuple[_Ref, torch.Tensor, int, bool]] = {}  # id(torch.max(x, dim)'s pair) -> its values
        self.buffer_names = {id(b): name for name, b in gm.named_buffers()}
        self.producer: dict[int, fx.Node] = {}  # id(traced tensor) -> the graph node that made (or last rebound) it
        self.order = {node: k for k, node in enumerate(gm.graph.nodes)}

    # -- bookkeeping ----------------------------------------------------------------------
    def where(self) -> str:
        assert self.current is not None
        return _describe(self.current, self.gm, self.path)

    def refuse(self, why: str) -> UnsupportedNodeError:
        return UnsupportedNodeError(f"from_model: {self.where()}: {why}")

    def path(self, target: str) -> str:
        """The module path in the user's model (a leaf model is traced wrapped as module '0')."""
        if not self.wrapped:
            return target
        return "" if target == "0" else target[2:]

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def ref_of(self, v: Any) -> _Ref | None:
        return self.refs.get(id(v)) if isinstance(v, torch.Tensor) else None

    def sample_shape(self, t: torch.Tensor) -> tuple[int, ...]:
        if t.dim() == 0 or t.shape[0] != _N:
            raise self.refuse(f"its output has shape {tuple(t.shape)} for a batch of {_N} samples: it mixes or "
                              f"drops the batch axis (axis 0), so it is not a map of one sample")
        return tuple(int(s) for s in t.shape[1:])

    def add_node(self, node: Any, result: torch.Tensor) -> _Ref:
        """Record ``node``, check it against torch's value for it, and map the result to it."""
        ins = [self.flat[i] for i in getattr(node, "inputs", ())]
        got = evaluate_node(node, ins)
        # a copy: an in-place op later in the model must not change the value recorded here
        want = result.detach().reshape(_N, -1).to(torch.float64).numpy().copy()
        scale = 1.0 + float(np.max(np.abs(want))) if want.size else 1.0
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        if not np.isfinite(err) or err > 1e-9 * scale:
            raise self.refuse(f"internal check failed: the exact map built for it differs from torch's value by {err:.3g} "
                              f"(scale {scale:.3g}); please report this")
        self.nodes.append(node)
        self.flat[node.name] = want
        return self.bind(result, node.name)

    def bind(self, result: torch.Tensor, node_name: str) -> _Ref:
        ref = _Ref(node_name, self.sample_shape(result))
        self.refs[id(result)] = ref
        self.keep.append(result)
        return ref

    def affine(self, result: torch.Tensor, kind: str, inputs: list[_Ref], weights: list[Any], bias: Any = None, *,
               exact: Callable[[], tuple[list[Any], Any]] | None = None, module: str | None = None,
               proxy: Any = None, live: tuple = (), form: Any = None) -> _Ref:
        shape = self.sample_shape(result)
        ws = tuple(_canonical(W) for W in weights)
        for W, r in zip(ws, inputs):
            if W.shape != (math.prod(shape), r.size):  # pragma: no cover - internal consistency
                raise self.refuse(f"internal shape mismatch: map {W.shape} for {r.shape} -> {shape}")
        b = None if bias is None else np.asarray(bias, dtype=np.float64).reshape(-1)
        if b is not None and not np.any(b):
            b = None
        args = (self.fresh(self.current.name), tuple(r.node for r in inputs), tuple(r.shape for r in inputs), ws, b,
                shape, self.where())
        if proxy is not None:  # the twin reads this layer's tensors from the model (LayerNode.live)
            node: AffineNode = LayerNode(*args, kind=kind, module=None, exact=exact, reads=tuple(self.reads), form=form,
                                         proxy=proxy, live=live)
        else:
            node = AffineNode(*args, kind=kind, module=module, exact=exact, reads=tuple(self.reads), form=form)
        return self.add_node(node, result)

    def alias(self, result: torch.Tensor, src: _Ref) -> _Ref:
        """A reshape: the same flat vector, a new per-sample shape."""
        shape = self.sample_shape(result)
        if math.prod(shape) != src.size:  # pragma: no cover - torch would have refused
            raise self.refuse(f"reshape from {src.shape} to {shape} changes the number of entries")
        ref = _Ref(src.node, shape)
        self.refs[id(result)] = ref
        self.keep.append(result)
        return ref

    def activation(self, result: torch.Tensor, src: _Ref, fn: str, params: dict[str, Any], module: str | None = None) -> _Ref:
        node = ActivationNode(self.fresh(self.current.name), src.node, src.shape, fn, params, self.where(), module=module,
                              reads=tuple(self.reads))
        if self.sample_shape(result) != src.shape:  # pragma: no cover
            raise self.refuse("an elementwise map changed the shape")
        return self.add_node(node, result)

    # -- fx.Interpreter hooks -------------------------------------------------------------
    def run_node(self, n: fx.Node) -> Any:
        self.current = n
        self.reads = []
        result = super().run_node(n)
        if n.op == "placeholder":
            self.n_placeholders += 1
            if self.n_placeholders == 1:
                if not isinstance(result, torch.Tensor):  # pragma: no cover
                    raise self.refuse("the model's first argument must be the input tensor")
                node = InputNode(self.fresh("input"), self.input_shape)
                self.nodes.append(node)
                self.flat[node.name] = result.detach().reshape(_N, -1).numpy().copy()
                self.bind(result, node.name)
                self.producer[id(result)] = n
            elif isinstance(result, torch.Tensor):
                raise self.refuse("the model takes a second tensor argument; from_model traces models of one input")
            return result
        if n.op in ("get_attr", "output"):
            if n.op == "output":
                out = result
                if isinstance(out, (tuple, list)) and len(out) == 1:
                    out = out[0]
                ref = self.ref_of(out)
                if ref is None:
                    raise self.refuse(f"the model returns {type(out).__name__}, not one tensor computed from its input "
                                      f"(from_model handles models with one tensor output)")
                self.output_ref = ref
            return result
        args = fx.node.map_arg(n.args, lambda a: self.env[a])
        kwargs = fx.node.map_arg(n.kwargs, lambda a: self.env[a])
        if n.op == "call_function" and n.target is operator.getitem and id(args[0]) in self.pieces:
            return self.piece(args[0], args[1], result)
        if (n.op == "call_function" and id(args[0] if args else None) in self.maxes
                and (n.target is operator.getitem or getattr(n.target, "__name__", "") == "getattr")):
            return self.max_values(args[0], args[1], result)
        for v in _containers(args, kwargs):  # a chunk/split tuple used whole (torch.cat(x.chunk(2))): every piece
            if id(v) in self.pieces:
                for k in range(len(v)):
                    if self.ref_of(v[k]) is None:
                        self.piece(v, k, v[k])
            elif id(v) in self.maxes:
                raise self.refuse("torch.max(x, dim) is used other than by its values ([0] or .values): its indices "
                                  "are not a function of x's values")
        traced = _traced_inputs(self, args, kwargs)
        rnn = [self.rnn[id(v)] for v in _flatten_args(args, kwargs) if id(v) in self.rnn]
        if not traced and not rnn:
            return result  # constants and shape arithmetic: not part of the network
        split = self.split_call(n, args, kwargs, result)
        if split is not None:
            return split
        if rnn and not (n.op == "call_function" and n.target is operator.getitem):
            raise self.refuse("LinearRNN's (output, h_n) is used other than by taking output[0]")
        if not isinstance(result, torch.Tensor) and not (n.op == "call_module" and isinstance(result, tuple)) and not rnn:
            if _is_metadata(n):
                return result  # x.shape, x.size(), x.dim(): static here
            raise self.refuse(f"it returns {type(result).__name__}, not a tensor (from_model follows tensors)")
        if isinstance(result, torch.Tensor) and any(result is v for v in _flatten_args(args, kwargs)):
            self.check_in_place(n, result)
        # the handlers record the node and map the result (by identity) to it; torch's value flows on
        if n.op == "call_module":
            self.on_module(n, self.gm.get_submodule(n.target), args, kwargs, result)
        elif n.op == "call_function":
            self.on_function(n.target, args, kwargs, result)
        elif n.op == "call_method":
            self.on_method(n.target, args, kwargs, result)
        else:  # pragma: no cover
            raise self.refuse(f"op {n.op!r} is not supported")
        if isinstance(result, torch.Tensor):
            self.producer[id(result)] = n
        return result

    def check_in_place(self, n: fx.Node, result: torch.Tensor) -> None:
        """An in-place op returns the tensor it modified: it traces as its out-of-place form (the
        result is rebound to the new node), which is exact unless another value the model still
        reads shares that tensor's memory (a view of it, or the tensor it views): torch changes
        that value too, the traced network would not."""
        ptr = result.untyped_storage().data_ptr()
        here = self.order[n]
        for t in self.keep:
            if not isinstance(t, torch.Tensor) or t is result or t.untyped_storage().data_ptr() != ptr:
                continue
            made = self.producer.get(id(t))
            if made is not None and any(self.order[u] > here for u in made.users):
                op = _in_place_name(n, self.gm)
                raise self.refuse(f"in-place {op} modifies a tensor that shares its memory with a value the model reads "
                                  f"later (node {made.name!r}: a view of this tensor, or the tensor it views), so torch changes it "
                                  f"too: write the op out of place ({_out_of_place_hint(op)})")

    # -- tuples of pieces: chunk/split/tensor_split/unbind, torch.max(x, dim) -------------------
    def split_call(self, n: fx.Node, args: tuple, kwargs: dict, result: Any) -> Any:
        """Record a chunk/split/tensor_split/unbind (each piece an index node, made when it is read)
        or ``torch.max(x, dim)`` (its values a max-selection node); None for any other call."""
        if n.op not in ("call_function", "call_method") or not isinstance(result, (tuple, list)):
            return None
        name = n.target if n.op == "call_method" else getattr(n.target, "__name__", "")
        if name not in ("chunk", "split", "tensor_split", "unbind", "max", "split_with_sizes"):
            return None
        x = args[0] if args else kwargs.get("input", kwargs.get("tensor"))
        src = self.ref_of(x)
        if src is None:
            raise self.refuse(f"{name} of a value that is not a traced tensor")
        rank = x.dim()
        if name == "max":
            dim = args[1] if len(args) > 1 else kwargs.get("dim")
            if not isinstance(dim, int):
                raise self.refuse("torch.max with a tensor second argument (elementwise maximum of two tensors) is not "
                                  "supported; torch.max(x, dim) and torch.amax are")
            keep = bool(args[2] if len(args) > 2 else kwargs.get("keepdim", False))
            self.maxes[id(result)] = (src, x, int(dim) % rank, keep)
            self.keep.append(result)
            return result
        default_dim = 0
        dim = kwargs.get("dim", args[2] if len(args) > 2 else default_dim) if name != "unbind" else \
            kwargs.get("dim", args[1] if len(args) > 1 else 0)
        if not isinstance(dim, int):  # pragma: no cover - torch would have refused
            raise self.refuse(f"{name} with dim={dim!r}")
        dim = dim % rank
        if dim == 0:
            raise self.refuse(f"{name} along the batch axis (axis 0) separates the samples of a batch")
        specs: list[tuple] = []
        start = 0
        for t in result:
            length = int(t.shape[dim]) if name != "unbind" else 1
            pick: Any = slice(start, start + length) if name != "unbind" else start
            specs.append(tuple(slice(None) for _ in range(dim - 1)) + (pick,))
            start += length
        if start != x.shape[dim]:  # pragma: no cover - internal consistency
            raise self.refuse(f"the pieces of {name} cover {start} of {x.shape[dim]} entries")
        self.pieces[id(result)] = (src, x, specs)
        self.keep.append(result)
        return result

    def piece(self, obj: Any, index: Any, result: Any) -> Any:
        src, _, specs = self.pieces[id(obj)]
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.refuse(f"the pieces of a chunk/split are read by an integer index, got {index!r}")
        ref = self.ref_of(result)
        if ref is not None:  # read before (a tuple unpacked twice): the same node
            return result
        self.layout(result, src, "split", _layout.index_matrix, src.shape, specs[index % len(specs)])
        return result

    def max_values(self, obj: Any, index: Any, result: Any) -> Any:
        if index not in (0, "values"):
            raise self.refuse("torch.max(x, dim)'s indices ([1] or .indices) are not a function of x's values; "
                              "its values ([0] or .values) are supported")
        if self.ref_of(result) is not None:
            return result
        src, x, dim, _ = self.maxes[id(obj)]
        self.reduce_max(result, src, x, (dim,), split_ties=False)
        return result

    def reduce_max(self, result: Any, src: _Ref, x: torch.Tensor, dims: tuple[int, ...], *, split_ties: bool) -> _Ref:
        """``max`` over the batched axes ``dims``: the reduced axes moved last (a permutation node),
        then each row's maximum selected: the first (``torch.max(x, dim)``, whose gradient goes to
        the index it returns) or all tied maxima evenly (``torch.amax``'s gradient)."""
        if 0 in dims:
            raise self.refuse("a max over the batch axis (axis 0) mixes the samples of a batch")
        rank = x.dim()
        rest = [d for d in range(1, rank) if d not in dims]
        order = [0] + rest + sorted(dims)
        R = math.prod(int(x.shape[d]) for d in dims)
        M = src.size // R
        moved = x.permute(order).contiguous() if order != list(range(rank)) else x
        ref = src
        if moved is not x:
            ref = self.layout(moved, src, "permute", _layout.permute_matrix, src.shape, tuple(d - 1 for d in order[1:]))
        rows = moved.reshape(_N, 1, M, R)
        ref = self.alias(rows, ref)
        shape = self.sample_shape(result)
        cls = AmaxNode if split_ties else MaxPoolNode
        node = cls(self.fresh(self.current.name), ref.node, (1, M, R), shape, 2, (1, R), (1, R), (0, 0), (1, 1), False,
                   self.where())
        return self.add_node(node, result)

    def weight_source(self, t: Any, what: str) -> tuple[str, str] | None:
        """Where the twin reads a functional layer's tensor ``t``: ``("param", name)`` for a parameter
        or buffer of the model; None for a constant. A tensor the forward computes from parameters
        (``F.linear(x, self.w * 2)``) is recorded in ``reads``: the twin would hold it fixed, so
        :func:`~isomat.torch.to_sparse_model` refuses it."""
        if t is None:
            return None
        if self.ref_of(t) is not None:
            raise self.refuse(f"its {what} is computed from the model's input: a product of the input with itself is "
                              f"not affine")
        if id(t) in self.param_names:
            return ("param", self.param_names[id(t)])
        if id(t) in self.buffer_names:
            return ("param", self.buffer_names[id(t)])
        made = [u for u in (self.current.all_input_nodes if self.current is not None else ()) if self.env.get(u) is t]
        if any(_depends_on_parameter(u, self.gm) for u in made):
            self.reads.append(f"a {what} computed in forward from the model's parameters")
        return None

    def functional_layer(self, name: str, args: tuple, kwargs: dict, kw: dict, x: Any, src: _Ref | None, result: Any) -> _Ref:
        """``F.conv*d``, ``F.conv_transpose*d``, ``F.linear``, ``F.batch_norm`` (eval), ``einsum``
        with the model's parameters: the layer's map, and (LayerNode) where the twin reads them."""
        if name == "einsum":
            return self.einsum(args, kwargs, result)
        if src is None:
            raise self.refuse(f"{name}'s input is not a traced tensor (a traced weight is not affine)")
        w = kw.get("weight")
        b = kw.get("bias")
        live = []
        for attr, t in (("weight", w), ("bias", b)):
            where = self.weight_source(t, attr)
            if where is not None:
                live.append((attr, where[0], where[1]))
        f64 = dict(dtype=torch.float64)
        if name.startswith("conv"):
            d = int(name[-2])
            transpose = "transpose" in name
            self.need_rank(x, d + 2, name)
            groups = int(kw.get("groups", 1))
            k = tuple(int(v) for v in w.shape[2:])
            common = dict(stride=kw.get("stride", 1), padding=kw.get("padding", 0), dilation=kw.get("dilation", 1),
                          groups=groups, bias=b is not None, **f64)
            if transpose:
                ctor = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[d]
                proxy = ctor(int(w.shape[0]), int(w.shape[1]) * groups, k, output_padding=kw.get("output_padding", 0),
                             **common)
            else:
                ctor = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[d]
                proxy = ctor(int(w.shape[1]) * groups, int(w.shape[0]), k, **common)
            family = "conv_transpose" if transpose else "conv"
        elif name == "linear":
            proxy = nn.Linear(int(w.shape[1]), int(w.shape[0]), bias=b is not None, **f64)
            family = "linear"
        else:  # batch_norm
            if kw.get("training", False):
                raise self.refuse("F.batch_norm(training=True) normalizes by the batch's statistics, not a map of one "
                                  "sample: pass training=False (or self.training in eval mode)")
            rm, rv = kw.get("running_mean"), kw.get("running_var")
            if rm is None or rv is None:
                raise self.refuse("F.batch_norm without running statistics normalizes by the batch's: not affine")
            for attr, t in (("running_mean", rm), ("running_var", rv)):
                where = self.weight_source(t, attr)
                if where is not None:
                    live.append((attr, where[0], where[1]))
            bn = {2: nn.BatchNorm1d, 3: nn.BatchNorm1d, 4: nn.BatchNorm2d, 5: nn.BatchNorm3d}.get(x.dim())
            if bn is None:
                raise self.refuse(f"F.batch_norm receives a tensor of {x.dim()} dims")
            proxy = bn(int(x.shape[1]), eps=float(kw.get("eps", 1e-5)), affine=w is not None or b is not None, **f64).eval()
            with torch.no_grad():
                proxy.running_mean.copy_(rm)
                proxy.running_var.copy_(rv)
            if w is None and b is not None:
                live = [v for v in live if v[0] != "weight"]
        with torch.no_grad():
            if w is not None and hasattr(proxy, "weight") and proxy.weight is not None:
                proxy.weight.copy_(w)
            elif getattr(proxy, "weight", None) is not None:  # F.batch_norm(bias=...) without weight: scale 1
                proxy.weight.fill_(1.0)
            if getattr(proxy, "bias", None) is not None:
                if b is not None:
                    proxy.bias.copy_(b)
                else:
                    proxy.bias.zero_()
        if name == "batch_norm":
            return self.batchnorm(proxy, type(proxy), src, x, result, None, proxy=proxy, live=tuple(live))
        W, bias = from_module(proxy, src.shape, dtype=np.float64)
        return self.affine(result, family, [src], [W], bias, exact=_module_exact(proxy, src.shape), proxy=proxy,
                           form=conv_form(proxy, src.shape),
                           live=tuple(live))

    def matmul(self, a: Any, b: Any, result: Any) -> _Ref:
        """``x @ W`` with ``W`` a 2-d constant (a parameter: the twin trains it): ``F.linear(x, W.T)``."""
        ra, rb = self.ref_of(a), self.ref_of(b)
        if ra is not None and rb is not None:
            raise self.refuse("the product of two traced tensors is not affine (attention-like x @ x^T)")
        if ra is None:
            raise self.refuse("W @ x with the traced tensor on the right is not supported: write "
                              "(x.transpose(-1, -2) @ W.T).transpose(-1, -2), or x @ W")
        if not isinstance(b, torch.Tensor) or b.dim() != 2 or a.dim() < 2:
            raise self.refuse(f"x @ W needs a batched x (N, ..., n) and a 2-d W (n, m), got x of {a.dim()} dims and "
                              f"W of {getattr(b, 'dim', lambda: '?')()} dims")
        where = self.weight_source(b, "weight")
        live = (("weight", "param_T", where[1]),) if where is not None else ()
        proxy = nn.Linear(int(b.shape[0]), int(b.shape[1]), bias=False, dtype=torch.float64)
        with torch.no_grad():
            proxy.weight.copy_(b.T)
        W, _ = from_module(proxy, ra.shape, dtype=np.float64)
        return self.affine(result, "linear", [ra], [W], None, exact=_module_exact(proxy, ra.shape), proxy=proxy, live=live)

    def einsum(self, args: tuple, kwargs: dict, result: Any) -> _Ref:
        """``torch.einsum(eq, ...)`` with one traced operand, the others constants (parameters: the
        twin evaluates the same einsum on them at every forward). The map is read column by column
        from einsum itself on unit samples (linear in the traced operand; exact: each entry is a
        sum of products of the constants' own floats, computed by torch as the model does)."""
        if kwargs or not args or not isinstance(args[0], str):
            raise self.refuse("einsum is supported as torch.einsum('equation', *operands)")
        eq, ops = args[0], list(args[1:])
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = list(ops[0])
        traced = [k for k, o in enumerate(ops) if self.ref_of(o) is not None]
        if len(traced) != 1:
            raise self.refuse(f"einsum with {len(traced)} traced operands: one is affine, a product of two is not")
        pos = traced[0]
        src = self.ref_of(ops[pos])
        lhs = eq.replace(" ", "").split("->")[0].split(",")
        if "..." in lhs[pos] or not lhs[pos] or lhs[pos][0] in "".join(lhs[:pos] + lhs[pos + 1:]):
            raise self.refuse("einsum: the traced operand's first index must be its batch axis, used by no constant "
                              "operand (and no '...')")
        out_shape = self.sample_shape(result)
        n, m = src.size, math.prod(out_shape)
        check_bytes("from_model", 8 * n * (m + n), f"einsum's map ({m}x{n}) read from {n} unit samples")
        unit = torch.eye(n, dtype=torch.float64).reshape((n,) + src.shape)
        consts = [o.detach().to(torch.float64) if isinstance(o, torch.Tensor) else o for o in ops]
        consts[pos] = unit
        cols = torch.einsum(eq, *consts).reshape(n, m)  # row j: the image of unit sample j
        W = sp.csr_array(cols.T.numpy())
        # the stored floats are exact when every entry of the map is one entry of one constant
        # operand: probed with the operands' entries replaced by distinct ids (a sum or a product
        # of constants would be rounded, and is refused)
        tensors = [k for k, o in enumerate(ops) if k != pos and isinstance(o, torch.Tensor)]
        if len(tensors) != 1:
            raise self.refuse(f"einsum with {len(tensors)} constant tensor operands: its map's entries are products of "
                              f"constants (rounded); contract the constants first (one constant operand is supported)")
        probe = list(consts)
        c = ops[tensors[0]]
        probe[tensors[0]] = torch.arange(1, c.numel() + 1, dtype=torch.float64).reshape(c.shape)
        ids = torch.einsum(eq, *probe).reshape(n, m).T.numpy()
        const_flat = c.detach().to(torch.float64).reshape(-1).numpy()
        nz = ids != 0
        single = np.all(ids[nz] == np.rint(ids[nz])) and (ids[nz].max(initial=0) <= c.numel())
        if not single or not np.array_equal(W.toarray()[nz], const_flat[ids[nz].astype(np.int64) - 1]):
            raise self.refuse(f"einsum {eq!r}: an entry of its map sums several entries of the constant operand "
                              f"(a contraction over a constant-only index); contract that index first")
        live = []
        for k, o in enumerate(ops):
            if k != pos and isinstance(o, torch.Tensor):
                where = self.weight_source(o, f"einsum operand {k}")
                live.append((f"operand{k}", where[0] if where else "const", where[1] if where else ""))
        proxy = _EinsumSpec(eq, pos, tuple(o.detach().clone() if isinstance(o, torch.Tensor) else o for o in ops))
        return self.affine(result, "einsum", [src], [W], None, proxy=proxy, live=tuple(live))

    def permutation(self, result: Any, src: _Ref, perm: np.ndarray, kind: str) -> _Ref:
        """A node ``y[i] = x[perm[i]]`` (flip, roll): a 0/1 matrix, exact as stored."""
        n = perm.size
        W = sp.csr_array((np.ones(n), (np.arange(n), perm.reshape(-1))), shape=(n, src.size))
        return self.affine(result, kind, [src], [W])

    # -- modules --------------------------------------------------------------------------
    def on_module(self, n: fx.Node, mod: nn.Module, args: tuple, kwargs: dict, result: Any) -> Any:
        path = self.path(str(n.target))
        kind = type(mod)
        if isinstance(mod, _ATTENTION):
            raise self.refuse(f"not affine: attention ({kind.__name__} at module path {path!r}: softmax of products of "
                              f"the input with itself); from_model represents affine maps and elementwise or selection "
                              f"nonlinearities")
        # layers whose weight the twin must recompute: a parametrization, a weight_norm hook, output_size
        live: tuple = ()
        proxy = None
        if _parametrize.is_parametrized(mod):
            mod, kind, live = self.unparametrize(mod, path)
            proxy = mod
        elif _weight_norm_hook(mod) is not None:
            hook = _weight_norm_hook(mod)
            if type(hook).__name__ == "SpectralNorm" and mod.training:
                raise self.refuse("spectral_norm is in training mode (its power iteration changes the weight at every "
                                  "call): call model.eval()")
            how = "weight_norm" if type(hook).__name__ == "WeightNorm" else "spectral_norm"
            live = ((hook.name, how, path), ("bias", "module", path))
            proxy = copy.deepcopy(mod)  # the plain layer holding the weight the hook computed for this call
            remove = nn.utils.remove_weight_norm if how == "weight_norm" else nn.utils.remove_spectral_norm
            remove(proxy, hook.name)
            mod = proxy
        extra = dict(kwargs)
        if kind in _CONVT and (len(args) == 2 or "output_size" in extra):
            output_size = extra.pop("output_size", args[1] if len(args) == 2 else None)
            args = args[:1]
            if output_size is not None:
                mod = self.with_output_size(mod, args[0], output_size)
                proxy, live = mod, live or (("weight", "module", path), ("bias", "module", path))
        if extra or len(args) != 1:
            if not (isinstance(mod, LinearRNN) and len(args) == 2 and args[1] is None):
                raise self.refuse(f"called with {len(args)} positional and {len(kwargs)} keyword arguments; "
                                  f"from_model supports layers called on one tensor")
        x = args[0]
        src = self.ref_of(x)
        if src is None:
            raise self.refuse("its input is not a tensor computed from the model's input")
        if proxy is not None and not (kind in _CONV or kind in _CONVT or kind is nn.Linear or kind in _BN):
            raise self.refuse(f"a parametrized or weight-normed {kind.__name__} is not supported (Conv, ConvTranspose, "
                              f"Linear and BatchNorm are)")
        twin = {"proxy": proxy, "live": live} if proxy is not None else {}
        if kind in _CONV or kind in _CONVT or kind in _AVG:
            d = _CONV.get(kind) or _CONVT.get(kind) or _AVG.get(kind)
            self.need_rank(x, d + 2, kind.__name__)
            W, b = from_module(mod, src.shape, dtype=np.float64)
            exact = _module_exact(mod, src.shape)
            family = "conv" if kind in _CONV else ("conv_transpose" if kind in _CONVT else "avgpool")
            return self.affine(result, family, [src], [W], b, exact=exact, module=path, form=conv_form(mod, src.shape),
                               **twin)
        if kind is nn.Linear:
            W, b = from_module(mod, src.shape, dtype=np.float64)
            return self.affine(result, "linear", [src], [W], b, exact=_module_exact(mod, src.shape), module=path, **twin)
        if isinstance(mod, LinearRNN):
            self.need_rank(x, 3, "LinearRNN")
            if mod.batch_first is not True:
                raise self.refuse("LinearRNN must be batch_first=True inside a model traced by from_model "
                                  "(axis 0 is the batch)")
            W, b = from_module(mod, src.shape, dtype=np.float64)
            out = result[0]
            ref = self.affine(out, "rnn", [src], [W], b, exact=_module_exact(mod, src.shape), module=path)
            self.rnn[id(result)] = _RNNOutput(mod, path, ref)
            self.keep.append(result)
            return result
        if _is_ndlinear(mod):
            W, b = from_module(mod, src.shape, dtype=np.float64)
            return self.affine(result, "ndlinear", [src], [W], b, exact=_module_exact(mod, src.shape), module=path)
        if kind in _MAX:
            d = _MAX[kind]
            self.need_rank(x, d + 2, kind.__name__)
            if mod.return_indices:
                raise self.refuse("return_indices=True is not supported (the indices are not a function of x's values)")
            window, stride, padding = _pool_args(mod, d)
            dilation = _tuple("dilation", mod.dilation, d, mod)
            return self.maxpool(result, src, d, window, stride, padding, dilation, bool(mod.ceil_mode), None, path)
        if kind in _ADAPTIVE_MAX:
            d = _ADAPTIVE_MAX[kind]
            self.need_rank(x, d + 2, kind.__name__)
            if mod.return_indices:
                raise self.refuse("return_indices=True is not supported")
            out = self.sample_shape(result)
            return self.maxpool(result, src, d, (), (), (), (), False, tuple(out[1:]), path)
        if kind in _BN:
            return self.batchnorm(mod, kind, src, x, result, path, **twin)
        if kind in (nn.Flatten, nn.Unflatten, nn.Identity):
            return self.alias(result, src)
        if kind in _DROPOUT:
            if mod.training and mod.p > 0:
                raise self.refuse(f"{kind.__name__}(p={mod.p}) is in training mode (random): call model.eval()")
            return self.alias(result, src)
        if kind in _ADAPTIVE_AVG:
            d = _ADAPTIVE_AVG[kind]
            self.need_rank(x, d + 2, kind.__name__)
            return self.layout(result, src, "adaptive_avgpool", _layout.adaptive_avgpool_matrix, src.shape, mod.output_size)
        if kind in _UPSAMPLE:
            return self.interpolate(result, src, x, size=mod.size, scale_factor=mod.scale_factor, mode=mod.mode,
                                    align_corners=mod.align_corners,
                                    recompute_scale_factor=getattr(mod, "recompute_scale_factor", None))
        if kind in _PAD_MODES:
            value = float(getattr(mod, "value", 0.0) or 0.0)
            return self.pad(result, src, tuple(mod.padding), _PAD_MODES[kind], value)
        if kind is nn.PixelShuffle:
            return self.layout(result, src, "pixel_shuffle", _layout.pixel_shuffle_matrix, src.shape, mod.upscale_factor)
        if kind is nn.PixelUnshuffle:
            return self.layout(result, src, "pixel_unshuffle", _layout.pixel_unshuffle_matrix, src.shape, mod.downscale_factor)
        act = _module_activation(mod)
        if act is not None:
            fn, params = act
            if fn == "prelu":
                params = {"slope": _prelu_slopes(self, mod.weight, src.shape)}
            return self.activation(result, src, fn, params, module=path)
        if isinstance(mod, nn.RNNBase):
            raise self.refuse(f"{kind.__name__} is not supported by from_model (not affine; use isomat.torch.LinearRNN "
                              f"for the linear recurrence)")
        raise self.refuse(f"module type {kind.__module__}.{kind.__qualname__} is not supported; supported: the layers of "
                          f"isomat.torch.SUPPORTED_MODULES and {', '.join(SUPPORTED_MODEL_MODULES)}")

    def unparametrize(self, mod: nn.Module, path: str) -> tuple[nn.Module, type, tuple]:
        """A parametrized layer (``torch.nn.utils.parametrize``: weight_norm, spectral_norm) as the
        plain layer holding the weights its parametrizations compute now; the twin reads them again
        from the model's module at every forward (the parametrization recomputes them)."""
        for name, plist in mod.parametrizations.items():
            if any(p.training for p in plist):
                raise self.refuse(f"the parametrization of {name!r} is in training mode (spectral_norm's power iteration "
                                  f"changes the weight at every call): call model.eval()")
        # a plain layer of the original class holding the weights computed now (the traced model's
        # module is left as it is: removing parametrizations from a deepcopy reaches the original's)
        base = type(mod).__bases__[0]
        plain = base.__new__(base)
        plain.__dict__.update(mod.__dict__)
        plain._parameters = dict(mod._parameters)
        plain._buffers = dict(mod._buffers)
        plain._modules = {k: v for k, v in mod._modules.items() if k != "parametrizations"}
        with torch.no_grad():
            for name in mod.parametrizations.keys():
                plain._parameters[name] = nn.Parameter(getattr(mod, name).detach().clone())
        live = tuple((a, "module", path) for a in ("weight", "bias", "running_mean", "running_var")
                     if getattr(plain, a, None) is not None)
        return plain, type(plain), live

    def with_output_size(self, mod: nn.Module, x: torch.Tensor, output_size: Any) -> nn.Module:
        """``ConvTranspose(x, output_size=...)``: the layer with the output padding torch derives
        from ``output_size`` (the same derivation, torch's ``_output_padding``)."""
        d = _CONVT[type(mod)]
        if isinstance(output_size, torch.Size):
            output_size = list(output_size)
        try:
            pad = mod._output_padding(x, list(output_size), list(mod.stride), list(mod.padding), list(mod.kernel_size), d,
                                      list(mod.dilation))
        except (ValueError, TypeError) as exc:  # pragma: no cover - torch's own call raised it before
            raise self.refuse(f"output_size={output_size!r}: {exc}") from None
        fixed = copy.deepcopy(mod)
        fixed.output_padding = tuple(int(p) for p in pad)
        return fixed

    def need_rank(self, x: torch.Tensor, rank: int, what: str) -> None:
        if x.dim() != rank:
            raise self.refuse(f"{what} receives a tensor of {x.dim()} dims; from_model needs the batched layout "
                              f"({rank} dims, axis 0 the batch), else torch reads the batch axis as channels")

    def batchnorm(self, mod: nn.Module, kind: type, src: _Ref, x: torch.Tensor, result: Any, path: str | None,
                  **twin: Any) -> Any:
        d = _BN[kind]
        if mod.training:
            raise self.refuse(f"{kind.__name__} is in training mode (it normalizes by the batch's statistics, not a map "
                              f"of one sample): call model.eval()")
        if mod.running_mean is None or mod.running_var is None:
            raise self.refuse(f"{kind.__name__}(track_running_stats=False) normalizes by the batch's statistics even "
                              f"in eval mode: not a map of one sample")
        if d == 1 and x.dim() not in (2, 3) or d > 1 and x.dim() != d + 2:
            raise self.refuse(f"{kind.__name__} receives a tensor of {x.dim()} dims")
        rm, rv = _np64(mod.running_mean), _np64(mod.running_var)
        w = None if mod.weight is None else _np64(mod.weight)
        bb = None if mod.bias is None else _np64(mod.bias)
        eps = float(mod.eps)
        W, b, _ = _layout.batchnorm_matrix(src.shape, rm, rv, w, bb, eps, backend="numpy")

        def exact() -> tuple[list[Any], Any]:
            We, be, _ = _layout.batchnorm_matrix(src.shape, rm, rv, w, bb, eps, backend="sympy")
            return [We], be

        return self.affine(result, "batchnorm", [src], [W], b, exact=exact, module=path, **twin)

    def maxpool(self, result: torch.Tensor, src: _Ref, d: int, window: Any, stride: Any, padding: Any, dilation: Any,
                ceil_mode: bool, adaptive: tuple[int, ...] | None, path: str | None) -> _Ref:
        shape = self.sample_shape(result)
        node = MaxPoolNode(self.fresh(self.current.name), src.node, src.shape, shape, d, tuple(window), tuple(stride),
                           tuple(padding), tuple(dilation), ceil_mode, self.where(), adaptive=adaptive, module=path)
        return self.add_node(node, result)

    def layout(self, result: Any, src: _Ref, kind: str, builder: Callable[..., Any], *args: Any, **kw: Any) -> _Ref:
        try:
            built = builder(*args, **kw, backend="numpy")
        except (ValueError, TypeError) as exc:
            raise self.refuse(str(exc)) from None
        W, b = built[0], (built[1] if len(built) == 3 else None)

        def exact() -> tuple[list[Any], Any]:
            e = builder(*args, **kw, backend="sympy")
            return [e[0]], (e[1] if len(e) == 3 else None)

        return self.affine(result, kind, [src], [W], b, exact=exact)

    def interpolate(self, result: Any, src: _Ref, x: torch.Tensor, *, size: Any, scale_factor: Any, mode: str,
                    align_corners: Any, recompute_scale_factor: Any, antialias: bool = False) -> _Ref:
        if antialias:
            raise self.refuse("antialias=True is not supported")
        d = x.dim() - 2
        if d < 1:
            raise self.refuse(f"interpolation needs (N, C, *spatial) input, got {x.dim()} dims")
        if size is not None and not isinstance(size, (int, np.integer)):
            size = tuple(int(s) for s in size)
        if scale_factor is not None and not isinstance(scale_factor, (int, float)):
            scale_factor = tuple(float(s) for s in scale_factor)
        return self.layout(result, src, "interpolate", _layout.interpolate_matrix, src.shape, size=size,
                           scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                           recompute_scale_factor=recompute_scale_factor)

    def pad(self, result: Any, src: _Ref, pad: tuple[int, ...], mode: str, value: float) -> _Ref:
        return self.layout(result, src, "pad", _layout.pad_matrix, src.shape, tuple(int(p) for p in pad), mode=mode, value=value)

    # -- functions and methods ------------------------------------------------------------
    def on_function(self, target: Any, args: tuple, kwargs: dict, result: Any) -> Any:
        if target is operator.getitem:
            return self.getitem(args[0], args[1], result)
        if target in (operator.add, operator.iadd, operator.sub, operator.isub):
            sign = -1.0 if target in (operator.sub, operator.isub) else 1.0
            return self.linear_combination(args[0], args[1], 1.0, sign, result)
        if target in (operator.mul, operator.imul):
            return self.scale(args[0], args[1], result, divide=False)
        if target in (operator.truediv, operator.itruediv):
            if self.ref_of(args[1]) is not None:
                raise self.refuse("division by a traced tensor is not affine")
            return self.scale(args[0], args[1], result, divide=True)
        if target is operator.neg:
            src = self.ref_of(args[0])
            return self.affine(result, "neg", [src], [-sp.identity(src.size, format="csr")])
        if target is operator.pos:
            return self.alias(result, self.ref_of(args[0]))
        if target is operator.matmul or getattr(target, "__name__", None) == "matmul":
            return self.matmul(args[0], args[1], result)
        name = getattr(target, "__name__", None)
        if not callable(target) or name is None:  # pragma: no cover
            raise self.refuse("unknown call")
        if name in ("scaled_dot_product_attention", "multi_head_attention_forward"):
            raise self.refuse(f"not affine: attention ({name}: softmax of products of the input with itself)")
        if name in ("flip", "roll", "amax", "fliplr", "flipud", "einsum"):
            return self.dispatch(name, target, args, kwargs, {"input": args[0] if args else kwargs.get("input")}, result)
        try:
            norm = normalize_function(target, args, kwargs, arg_types=_types(args), kwarg_types=_types_kw(kwargs),
                                      normalize_to_only_use_kwargs=True)
        except Exception:
            norm = None
        kw = norm.kwargs if norm is not None else None
        return self.dispatch(name, target, args, kwargs, kw, result)

    def on_method(self, name: str, args: tuple, kwargs: dict, result: Any) -> Any:
        self_ = args[0]
        src = self.ref_of(self_)
        if src is None:
            raise self.refuse(f"Tensor.{name} is called on a value that is not a traced tensor")
        if name in ("detach", "detach_"):
            return self.activation(result, src, "detach", {})
        if name in ("view", "reshape", "flatten", "unflatten", "unsqueeze", "squeeze", "contiguous", "clone",
                    "view_as", "reshape_as"):
            return self.alias(result, src)
        if name in ("add", "add_", "sub", "sub_"):
            other = args[1] if len(args) > 1 else kwargs.get("other")
            alpha = float(kwargs.get("alpha", 1.0))
            sign = -alpha if name.startswith("sub") else alpha
            return self.linear_combination(self_, other, 1.0, sign, result)
        if name in ("mul", "mul_", "div", "div_"):
            other = args[1] if len(args) > 1 else kwargs.get("other")
            if name.startswith("div") and (self.ref_of(other) is not None or kwargs.get("rounding_mode")):
                raise self.refuse("division by a traced tensor (or with rounding) is not affine")
            return self.scale(self_, other, result, divide=name.startswith("div"))
        if name in ("neg", "neg_"):
            return self.affine(result, "neg", [src], [-sp.identity(src.size, format="csr")])
        if name in ("flip", "roll", "amax", "fliplr", "flipud"):
            return self.dispatch(name, None, args, kwargs, {"input": self_}, result)
        if name in ("matmul", "__matmul__"):
            return self.matmul(self_, args[1] if len(args) > 1 else kwargs.get("other"), result)
        if name in ("permute", "transpose", "swapaxes", "mean", "sum", "relu", "relu_", "tanh", "tanh_", "sigmoid",
                    "sigmoid_", "abs", "abs_", "clamp", "clamp_", "clip", "clip_", "expand", "expand_as"):
            fn = getattr(torch, name.rstrip("_"), None)
            if name in ("expand", "expand_as"):
                return self.broadcast_to(src, result)
            if name == "permute" and len(args) > 2 or (name == "permute" and len(args) == 2 and isinstance(args[1], int)):
                args = (self_, tuple(args[1:]))
            if name in ("mean", "sum") and len(args) > 2 and all(isinstance(a, int) for a in args[1:]):
                args = (self_, tuple(args[1:]))
            if fn is None:  # pragma: no cover
                raise self.refuse(f"Tensor.{name} is not supported")
            return self.on_function(fn, args, kwargs, result)
        raise self.refuse(f"Tensor.{name} is not supported by from_model")

    def dispatch(self, name: str, target: Any, args: tuple, kwargs: dict, kw: dict | None, result: Any) -> Any:
        if kw is None:
            raise self.refuse(f"{name} is not supported by from_model (or its arguments could not be matched)")
        x = kw.get("input")
        src = self.ref_of(x)
        # elementwise maps
        if name in ("relu", "relu_", "relu6"):
            if name == "relu6":
                return self.activation(result, src, "hardtanh", {"lo": 0.0, "hi": 6.0})
            return self.activation(result, src, "relu", {})
        if name in ("leaky_relu", "leaky_relu_"):
            return self.activation(result, src, "leaky_relu", {"slope": float(kw.get("negative_slope", 0.01))})
        if name in ("hardtanh", "hardtanh_"):
            return self.activation(result, src, "hardtanh", {"lo": float(kw.get("min_val", -1.0)), "hi": float(kw.get("max_val", 1.0))})
        if name in ("clamp", "clip", "clamp_", "clip_"):
            lo, hi = kw.get("min"), kw.get("max")
            if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor):
                raise self.refuse("clamp with tensor bounds is not supported (scalar bounds are)")
            return self.activation(result, src, "clamp", {"lo": -math.inf if lo is None else float(lo),
                                                           "hi": math.inf if hi is None else float(hi)})
        if name in ("abs", "abs_", "absolute"):
            return self.activation(result, src, "abs", {})
        if name in ("tanh", "tanh_"):
            return self.activation(result, src, "tanh", {})
        if name in ("sigmoid", "sigmoid_"):
            return self.activation(result, src, "sigmoid", {})
        if name == "silu":
            return self.activation(result, src, "silu", {})
        if name == "gelu":
            return self.activation(result, src, "gelu", {"approximate": kw.get("approximate", "none")})
        if name == "prelu":
            w = kw.get("weight")
            if self.ref_of(w) is not None:
                raise self.refuse("prelu with a traced weight is not supported")
            params = {"slope": _prelu_slopes(self, w, src.shape)}
            if id(w) in self.param_names:  # F.prelu(x, self.weight): the twin trains that parameter
                params["weight_name"] = self.param_names[id(w)]
            return self.activation(result, src, "prelu", params)
        # structure
        if name in ("flip", "fliplr", "flipud"):
            if name == "flip":
                dims = args[1] if len(args) > 1 else kwargs.get("dims")
                dims = (dims,) if isinstance(dims, int) else tuple(dims)
            else:
                dims = (1,) if name == "fliplr" else (0,)
            rank = len(src.shape) + 1
            axes = tuple(int(d) % rank for d in dims)
            if 0 in axes:
                raise self.refuse(f"{name} along the batch axis (axis 0) exchanges the samples of a batch")
            idx = np.flip(np.arange(src.size).reshape(src.shape), axis=tuple(a - 1 for a in axes))
            return self.permutation(result, src, np.ascontiguousarray(idx), "flip")
        if name == "roll":
            shifts = args[1] if len(args) > 1 else kwargs.get("shifts")
            dims = args[2] if len(args) > 2 else kwargs.get("dims")
            if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
                raise self.refuse("roll without dims rolls the flattened batch (samples into each other); name the "
                                  "axes (dims=...)")
            shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
            dims = (dims,) if isinstance(dims, int) else tuple(dims)
            rank = len(src.shape) + 1
            axes = tuple(int(d) % rank for d in dims)
            if 0 in axes:
                raise self.refuse("roll along the batch axis (axis 0) exchanges the samples of a batch")
            idx = np.roll(np.arange(src.size).reshape(src.shape), tuple(int(v) for v in shifts), axis=tuple(a - 1 for a in axes))
            return self.permutation(result, src, np.ascontiguousarray(idx), "roll")
        if name == "amax":
            dims = args[1] if len(args) > 1 else kwargs.get("dim", ())
            dims = (dims,) if isinstance(dims, int) else tuple(dims)
            if not dims:
                raise self.refuse("amax over all axes mixes the samples of a batch; name the axes (dim=...)")
            rank = len(src.shape) + 1
            return self.reduce_max(result, src, x, tuple(sorted({int(d) % rank for d in dims})), split_ties=True)
        if name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "linear",
                    "batch_norm", "einsum"):
            return self.functional_layer(name, args, kwargs, kw, x, src, result)
        if name == "detach":
            return self.activation(result, src, "detach", {})
        if name in ("flatten", "reshape", "unflatten", "squeeze", "unsqueeze", "contiguous", "clone"):
            return self.alias(result, src)
        if name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
            if kw.get("training", True) and float(kw.get("p", 0.5)) > 0:
                raise self.refuse("dropout is active (training=True): call model.eval() (or pass training=self.training)")
            return self.alias(result, src)
        if name in ("permute", "transpose", "swapaxes", "swapdims"):
            rank = len(src.shape) + 1
            if name == "permute":
                dims = [int(v) % rank for v in kw["dims"]]
            else:
                a, b = (int(kw.get("dim0", kw.get("axis0", 0))) % rank, int(kw.get("dim1", kw.get("axis1", 0))) % rank)
                dims = list(range(rank))
                dims[a], dims[b] = dims[b], dims[a]
            if dims[0] != 0:
                raise self.refuse(f"the permutation {dims} moves the batch axis (axis 0)")
            return self.layout(result, src, "permute", _layout.permute_matrix, src.shape, tuple(d - 1 for d in dims[1:]))
        if name in ("mean", "sum"):
            dims = kw.get("dim")
            if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
                raise self.refuse(f"{name} over all axes mixes the samples of a batch; name the axes (dim=...)")
            if kw.get("dtype") is not None:
                raise self.refuse(f"{name}(dtype=...) is not supported")
            rank = len(src.shape) + 1
            dims = (dims,) if isinstance(dims, int) else tuple(dims)
            dims = tuple(int(v) % rank for v in dims)
            if 0 in dims:
                raise self.refuse(f"{name} over the batch axis (axis 0) mixes samples")
            return self.layout(result, src, name, _layout.reduce_matrix, src.shape, tuple(d - 1 for d in dims),
                               keepdim=bool(kw.get("keepdim", False)), mean=name == "mean")
        if name in ("cat", "concat", "concatenate", "stack"):
            return self.concatenate(kw["tensors"], int(kw.get("dim", 0)), name == "stack", result)
        if name in ("add", "sub", "subtract", "rsub"):
            alpha = float(kw.get("alpha", 1.0))
            a, b = kw["input"], kw["other"]
            if name == "rsub":
                return self.linear_combination(b, a, 1.0, -alpha, result)
            return self.linear_combination(a, b, 1.0, -alpha if name != "add" else alpha, result)
        if name in ("mul", "multiply", "div", "divide", "true_divide"):
            if kw.get("rounding_mode") is not None:
                raise self.refuse("division with rounding is not affine")
            divide = name in ("div", "divide", "true_divide")
            if divide and self.ref_of(kw["other"]) is not None:
                raise self.refuse("division by a traced tensor is not affine")
            return self.scale(kw["input"], kw["other"], result, divide=divide)
        if name in ("neg", "negative"):
            return self.affine(result, "neg", [src], [-sp.identity(src.size, format="csr")])
        # layers in functional form
        if name in ("avg_pool1d", "avg_pool2d", "avg_pool3d"):
            d = int(name[-2])
            ctor = {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}[d]
            extra = {k: kw[k] for k in ("divisor_override",) if k in kw and d > 1}
            mod = ctor(kw["kernel_size"], stride=kw.get("stride") or None, padding=kw.get("padding", 0),
                       ceil_mode=kw.get("ceil_mode", False), count_include_pad=kw.get("count_include_pad", True), **extra)
            self.need_rank(x, d + 2, name)
            W, b = from_module(mod, src.shape, dtype=np.float64)
            return self.affine(result, "avgpool", [src], [W], None, exact=_module_exact(mod, src.shape))
        if name in ("max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
                    "max_pool3d_with_indices", "_max_pool1d", "_max_pool2d", "_max_pool3d"):
            d = int(name.split("max_pool")[1][0])
            self.need_rank(x, d + 2, name)
            if kw.get("return_indices"):
                raise self.refuse("return_indices=True is not supported")
            window = _tuple("kernel_size", kw["kernel_size"], d, nn.Module())
            stride = window if not kw.get("stride") else _tuple("stride", kw["stride"], d, nn.Module())
            return self.maxpool(result, src, d, window, stride, _tuple("padding", kw.get("padding", 0), d, nn.Module()),
                                _tuple("dilation", kw.get("dilation", 1), d, nn.Module()), bool(kw.get("ceil_mode", False)),
                                None, None)
        if name in ("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"):
            d = int(name[-2])
            self.need_rank(x, d + 2, name)
            return self.layout(result, src, "adaptive_avgpool", _layout.adaptive_avgpool_matrix, src.shape, kw["output_size"])
        if name in ("adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
                    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices"):
            d = int(name.split("pool")[1][0])
            self.need_rank(x, d + 2, name)
            if kw.get("return_indices"):
                raise self.refuse("return_indices=True is not supported")
            out = self.sample_shape(result)
            return self.maxpool(result, src, d, (), (), (), (), False, tuple(out[1:]), None)
        if name in ("interpolate", "upsample"):
            return self.interpolate(result, src, x, size=kw.get("size"), scale_factor=kw.get("scale_factor"),
                                    mode=kw.get("mode", "nearest"), align_corners=kw.get("align_corners"),
                                    recompute_scale_factor=kw.get("recompute_scale_factor"),
                                    antialias=bool(kw.get("antialias", False)))
        if name == "pad":
            value = kw.get("value")
            return self.pad(result, src, tuple(kw["pad"]), kw.get("mode", "constant"), 0.0 if value is None else float(value))
        if name == "pixel_shuffle":
            return self.layout(result, src, "pixel_shuffle", _layout.pixel_shuffle_matrix, src.shape, int(kw["upscale_factor"]))
        if name == "pixel_unshuffle":
            return self.layout(result, src, "pixel_unshuffle", _layout.pixel_unshuffle_matrix, src.shape,
                               int(kw["downscale_factor"]))
        raise self.refuse(f"{name} is not supported by from_model")

    # -- structural helpers ---------------------------------------------------------------
    def getitem(self, obj: Any, index: Any, result: Any) -> Any:
        if id(obj) in self.rnn:
            if index == 0:
                self.refs[id(result)] = self.rnn[id(obj)].ref
                self.keep.append(result)
                return result
            raise self.refuse("LinearRNN's h_n (output[1]) is not supported; use output[0], the output sequence")
        src = self.ref_of(obj)
        if src is None:  # pragma: no cover
            raise self.refuse("indexing a value that is not a traced tensor")
        idx = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, torch.Tensor) or isinstance(i, (list, np.ndarray)) for i in idx):
            raise self.refuse("advanced (tensor or list) indexing is not supported; basic slices are")
        first = idx[0] if idx else slice(None)
        if first is Ellipsis:
            # x[..., a:b]: Ellipsis covers the batch axis too
            per_sample = idx
        elif isinstance(first, slice) and first == slice(None):
            per_sample = idx[1:]
        else:
            raise self.refuse(f"the index {index!r} selects along the batch axis (axis 0); index a sample's axes "
                              f"(x[:, ...])")
        return self.layout(result, src, "index", _layout.index_matrix, src.shape, tuple(per_sample))

    def constant_sample(self, c: Any, shape: tuple[int, ...]) -> np.ndarray:
        """A constant (scalar or tensor) broadcast against a batch of per-sample ``shape``: one
        sample's worth (it must not vary along the batch axis)."""
        full = (_N,) + shape
        if isinstance(c, torch.Tensor) and id(c) in self.param_names:
            self.reads.append(self.param_names[id(c)])
        elif isinstance(c, torch.Tensor):  # x * self.g.exp(): computed from parameters, a constant to the twin
            made = [u for u in (self.current.all_input_nodes if self.current is not None else ()) if self.env.get(u) is c]
            if any(_depends_on_parameter(u, self.gm) for u in made):
                self.reads.append("a constant computed in forward from the model's parameters")
        if isinstance(c, torch.Tensor):
            try:
                cb = torch.broadcast_to(c.detach().to(torch.float64), full)
            except RuntimeError:
                raise self.refuse(f"a constant of shape {tuple(c.shape)} does not broadcast to {full}") from None
            arr = cb.numpy()
            if not np.array_equal(arr[0], arr[1]):  # pragma: no cover - a constant cannot vary per sample
                raise self.refuse("a constant varies along the batch axis")
            return np.ascontiguousarray(arr[0]).reshape(-1)
        if isinstance(c, (int, float, bool, np.number)):
            return np.full(math.prod(shape), float(c))
        raise self.refuse(f"an operand of type {type(c).__name__} is not supported")

    def broadcast_matrix(self, src: _Ref, rank: int, out_shape: tuple[int, ...]) -> sp.csr_array:
        """0/1 matrix broadcasting a traced tensor (batched rank ``rank``) to per-sample ``out_shape``."""
        if rank != len(out_shape) + 1:
            raise self.refuse(f"operands of different ranks ({rank} vs {len(out_shape) + 1}) broadcast across the batch "
                              f"axis; give both the batch axis first")
        if src.shape == out_shape:
            return sp.identity(src.size, format="csr")
        idx = np.broadcast_to(np.arange(src.size).reshape(src.shape), out_shape).reshape(-1)
        n = idx.size
        return sp.csr_array((np.ones(n), (np.arange(n), idx)), shape=(n, src.size))

    def broadcast_to(self, src: _Ref, result: torch.Tensor) -> _Ref:
        out = self.sample_shape(result)
        W = self.broadcast_matrix(src, len(src.shape) + 1, out)
        return self.affine(result, "broadcast", [src], [W])

    def linear_combination(self, a: Any, b: Any, ca: float, cb: float, result: Any) -> _Ref:
        out = self.sample_shape(result)
        inputs, weights, bias = [], [], np.zeros(math.prod(out))
        for v, coef in ((a, ca), (b, cb)):
            r = self.ref_of(v)
            if r is not None:
                _merge_input(inputs, weights, r, self.broadcast_matrix(r, v.dim(), out) * coef)
            else:
                bias = bias + coef * self.constant_sample(v, out)
        return self.affine(result, "add", inputs, weights, bias)

    def scale(self, a: Any, b: Any, result: Any, *, divide: bool) -> _Ref:
        ra, rb = self.ref_of(a), self.ref_of(b)
        if ra is not None and rb is not None:
            raise self.refuse("the product of two traced tensors is not affine (nor an elementwise activation)")
        if ra is None:
            if divide:
                raise self.refuse("division by a traced tensor is not affine")
            a, b, ra = b, a, rb
        out = self.sample_shape(result)
        factor = self.constant_sample(b, out)
        if divide:
            factor = 1.0 / factor
        W = sp.diags_array(factor, format="csr") @ self.broadcast_matrix(ra, a.dim(), out)
        return self.affine(result, "scale", [ra], [W])

    def concatenate(self, tensors: Any, dim: int, stack: bool, result: Any) -> _Ref:
        tensors = list(tensors)
        rank = tensors[0].dim() + (1 if stack else 0)
        dim = dim % rank
        if dim == 0:
            raise self.refuse("concatenation along the batch axis (axis 0) mixes samples")
        shapes = []
        for t in tensors:
            s = tuple(int(v) for v in t.shape[1:])
            if stack:
                s = s[: dim - 1] + (1,) + s[dim - 1:]
            shapes.append(s)
        Ws, out_shape = _layout.concat_matrices(shapes, dim - 1, backend="numpy")
        out = self.sample_shape(result)
        inputs, weights = [], []
        bias = np.zeros(math.prod(out))
        for t, W, s in zip(tensors, Ws, shapes):
            r = self.ref_of(t)
            if r is None:
                bias = bias + W @ self.constant_sample(t, s)
            else:
                _merge_input(inputs, weights, r, W)

        return self.affine(result, "concat", inputs, weights, bias)  # 0/1 weights, float constants: exact as stored


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _merge_input(inputs: list[_Ref], weights: list[Any], ref: _Ref, W: Any) -> None:
    """Add ``W ref`` to a sum of maps, merging with the term of the same node (``x + x``)."""
    names = [i.node for i in inputs]
    if ref.node in names:
        k = names.index(ref.node)
        weights[k] = weights[k] + W
    else:
        inputs.append(ref)
        weights.append(W)


def _flatten_args(args: Any, kwargs: Any) -> list[Any]:
    out: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, (list, tuple)):
            for u in v:
                walk(u)
        elif isinstance(v, dict):
            for u in v.values():
                walk(u)
        else:
            out.append(v)

    walk(args)
    walk(kwargs)
    return out


def _traced_inputs(b: _Builder, args: Any, kwargs: Any) -> list[_Ref]:
    return [r for r in (b.ref_of(v) for v in _flatten_args(args, kwargs)) if r is not None]


def _types(args: tuple) -> tuple:
    return tuple(torch.Tensor if isinstance(a, torch.Tensor) else type(a) for a in args)


def _types_kw(kwargs: dict) -> dict:
    return {k: (torch.Tensor if isinstance(v, torch.Tensor) else type(v)) for k, v in kwargs.items()}


def _np64(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().to(torch.float64).numpy()


def _in_place_name(n: fx.Node, gm: fx.GraphModule) -> str:
    if n.op == "call_module":
        return f"{type(gm.get_submodule(str(n.target))).__name__}(inplace=True)"
    if n.op == "call_method":
        return f"Tensor.{n.target}"
    return getattr(n.target, "__name__", str(n.target))


def _out_of_place_hint(op: str) -> str:
    if op.endswith("(inplace=True)"):
        return f"construct the layer with inplace=False: {op.replace('inplace=True', 'inplace=False')}"
    name = op.rsplit(".", 1)[-1]
    if name in ("iadd", "isub", "imul", "itruediv"):
        sym = {"iadd": "+", "isub": "-", "imul": "*", "itruediv": "/"}[name]
        return f"x = x {sym} y instead of x {sym}= y"
    if name.endswith("_"):
        return f"x = x.{name[:-1]}(...) instead of x.{name}(...)"
    return "its out-of-place form"


def _canonical(W: Any) -> sp.csr_array:
    W = sp.csr_array(W, dtype=np.float64)
    W.sum_duplicates()
    W.eliminate_zeros()
    W.sort_indices()
    return W


def _prelu_slopes(b: _Builder, weight: Any, shape: tuple[int, ...]) -> np.ndarray:
    w = _np64(weight).reshape(-1)
    n = math.prod(shape)
    if w.size == 1:
        return np.full(n, float(w[0]))
    if not shape or shape[0] != w.size:
        raise b.refuse(f"PReLU has {w.size} parameters but its input's channel axis has "
                       f"{shape[0] if shape else 'no'} entries")
    return np.repeat(w, n // w.size)


def _module_activation(mod: nn.Module) -> tuple[str, dict[str, Any]] | None:
    t = type(mod)
    if t is nn.ReLU:
        return "relu", {}
    if t is nn.ReLU6:
        return "hardtanh", {"lo": 0.0, "hi": 6.0}
    if t is nn.LeakyReLU:
        return "leaky_relu", {"slope": float(mod.negative_slope)}
    if t is nn.PReLU:
        return "prelu", {}
    if t is nn.Hardtanh:
        return "hardtanh", {"lo": float(mod.min_val), "hi": float(mod.max_val)}
    if t is nn.Tanh:
        return "tanh", {}
    if t is nn.Sigmoid:
        return "sigmoid", {}
    if t is nn.GELU:
        return "gelu", {"approximate": mod.approximate}
    if t is nn.SiLU:
        return "silu", {}
    return None


def _module_exact(mod: nn.Module, shape: tuple[int, ...]) -> Callable[[], tuple[list[Any], Any]]:
    """The exact (SymPy) rendering of a from_module layer, computed on demand."""

    def exact() -> tuple[list[Any], Any]:
        W, b = from_module(mod, shape, field="sympy")
        return [W], b

    return exact


def _is_metadata(n: fx.Node) -> bool:
    if n.op == "call_method":
        return n.target in ("size", "dim", "numel", "ndimension", "nelement")
    if n.op == "call_function":
        import builtins

        if n.target is builtins.getattr:
            return len(n.args) > 1 and n.args[1] in ("shape", "ndim", "dtype", "device", "is_cuda")
        return n.target in (builtins.len,)
    return False


def _shape_arg(input_shape: Any) -> tuple[int, ...]:
    if isinstance(input_shape, bool):
        raise TypeError(f"input_shape must be a tuple of ints (one sample, no batch axis), got {input_shape!r}")
    return _shape(input_shape, None)


def from_model(model: Any, input_shape: Any, *, name: str | None = None, seed: int = 0) -> Network:
    r"""A torch model as a :class:`~isomat.torch.network.Network` of exact sparse affine maps.

    Parameters
    ----------
    model : torch.nn.Module
        The model, called as ``model(x)`` on a batch ``x`` of shape ``(N, *input_shape)`` and
        returning one tensor. Traced with ``torch.fx`` (so ``forward`` must not branch on
        values); torch's layers and :func:`from_module`'s layers are leaves, the user's modules
        are traced through. The model is not modified (a float64 copy is traced).
    input_shape : tuple of int
        One sample's shape, **no batch axis**.
    name : str, optional
        The network's name (default: the model's class name).
    seed : int
        Seed of the random example batch the translation is checked on.

    Returns
    -------
    Network
        ``network.forward(x)`` equals ``model(x)`` (float64 to ~1e-12; a float32 model to
        float32 rounding).

    Raises
    ------
    UnsupportedNodeError
        (a ``ValueError``) naming the first node that has no exact representation: its name, op
        (``call_module``/``call_function``/``call_method``) and module path.
    TypeError, ValueError
        ``model`` is not a module, ``input_shape`` is malformed, the model cannot be traced.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    shape = _shape_arg(input_shape)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    seed = _validate.nonnegative_int("seed", seed)
    # the example batch (two float64 samples) is allocated first: refuse a shape past the memory bound
    check_bytes("from_model", 16 * math.prod(shape), f"an example batch of two samples of shape {shape}")
    for pname, p in list(model.named_parameters()) + list(model.named_buffers()):
        if p.is_complex():
            raise TypeError(f"from_model: parameter {pname!r} is complex ({p.dtype}); from_model handles real models "
                            f"(from_module handles complex layers)")
    try:
        work = copy.deepcopy(model)
    except RuntimeError as exc:  # torch's hook-based weight_norm keeps a computed (non-leaf) weight
        raise ValueError(f"from_model: the model cannot be copied ({str(exc).splitlines()[0]}): the hook-based "
                         f"torch.nn.utils.weight_norm / spectral_norm keep a computed weight that torch cannot copy; use "
                         f"torch.nn.utils.parametrizations.weight_norm / spectral_norm (or run the model once under "
                         f"torch.no_grad() first)") from None
    work = work.to(torch.float64)
    tracer = _Tracer()
    wrapped = tracer.is_leaf_module(work, "")
    if wrapped:  # a single layer: fx traces a root through its forward, so make it a leaf of a wrapper
        work = nn.Sequential(work)
    try:
        graph = tracer.trace(work)
    except Exception as exc:  # torch.fx's TraceError and whatever forward raises on Proxies
        raise ValueError(f"from_model: torch.fx could not trace {type(model).__name__}.forward "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); from_model needs a "
                         f"forward without value-dependent control flow") from None
    gm = fx.GraphModule(work, graph)
    gen = torch.Generator().manual_seed(int(seed))
    x = torch.randn((_N,) + shape, generator=gen, dtype=torch.float64)
    builder = _Builder(gm, shape, wrapped)
    try:
        with torch.no_grad():
            builder.run(x)
    except UnsupportedNodeError as exc:
        raise UnsupportedNodeError(exc.message) from None
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        where = builder.where() if builder.current is not None else "the model"
        raise ValueError(f"from_model: running {where} on a batch of shape {(_N,) + shape} failed "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); is input_shape one "
                         f"sample's shape, without the batch axis?") from None
    out = builder.output_ref
    assert out is not None
    network = Network(builder.nodes, out.node, out.shape, name=name or type(model).__name__)
    _check_gradient(work, network, x, gen)
    return network


def _check_gradient(model: nn.Module, network: Network, x: torch.Tensor, gen: torch.Generator) -> None:
    """Every node's value was checked against torch's as it was traced; this checks the derivative:
    torch's own backward through the model at the example batch against the traced network's
    :meth:`~Network.vjp`. A ``torch.no_grad()`` block leaves no node in the fx graph (its values are
    right, its gradient is not), so a model with one is refused here rather than differentiated wrongly."""
    xg = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = model(xg)  # the model itself, not its fx graph: torch.no_grad() blocks act here
        if isinstance(y, (tuple, list)) and len(y) == 1:
            y = y[0]
        v = torch.randn(y.shape, generator=gen, dtype=torch.float64)
        if y.requires_grad:
            (g,) = torch.autograd.grad(y, xg, v, allow_unused=True)
            g = torch.zeros_like(xg) if g is None else g
        else:
            g = torch.zeros_like(xg)
    want = g.detach().numpy().reshape(x.shape[0], -1)
    got = network.vjp(x.detach().numpy(), v.numpy()).reshape(x.shape[0], -1)
    scale = 1.0 + float(np.max(np.abs(want))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    if not np.isfinite(err) or err > 1e-9 * scale:
        raise UnsupportedNodeError(
            f"from_model: torch's gradient of {network.name} at the example batch differs from the traced network's by "
            f"{err:.3g} (scale {scale:.3g}), though every value agrees: a torch.no_grad() block (which torch.fx does not "
            f"record) or another op whose gradient is not its value's derivative; write .detach() on the values that "
            f"should pass no gradient")
