"""The forms :func:`~isomat.torch.from_model` traces beyond torch's layer modules: helpers.

:class:`LayerNode` (an affine node whose tensors the sparse twin reads from the model at every
forward: functional layers on parameters, parametrized layers, ``ConvTranspose`` with
``output_size``), the einsum node's spec, and the graph helpers the tracer uses to tell a
parameter-derived constant (which the twin could not train) and to find chunk/split tuples.
Kept apart from ``trace.py`` to keep that module readable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import fx, nn

from .network import AffineNode

__all__ = ["LayerNode"]


@dataclass(frozen=True, eq=False)
class LayerNode(AffineNode):
    """An affine node whose weights the sparse twin reads from the model at every forward.

    For the forms a model writes without a plain layer module: functional layers on its
    parameters (``F.conv2d(x, self.w)``, ``F.linear``, ``F.batch_norm``, ``x @ self.W``), a
    parametrized layer (``torch.nn.utils.parametrize``: weight_norm, spectral_norm), a
    ``ConvTranspose`` called with ``output_size``. ``proxy`` is a plain torch layer with the
    node's hyperparameters (the twin probes its pattern); ``live`` says where each of its tensors
    is read in the twin's source model: ``(attribute, how, ref)`` with ``how`` one of ``"param"``
    (the parameter or buffer named ``ref``), ``"param_T"`` (its transpose: ``x @ W`` is
    ``F.linear(x, W.T)``), ``"module"`` (the attribute of the module at path ``ref``, recomputed
    by its parametrization or weight-norm hook at each read).
    """

    proxy: Any = None
    live: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class _EinsumSpec:
    """An einsum node's equation, the traced operand's position and the operands (the traced
    one's entry unused): the twin evaluates the einsum on the model's live parameters."""

    equation: str
    position: int
    operands: tuple


def _depends_on_parameter(n: fx.Node, gm: fx.GraphModule) -> bool:
    """Whether the value of ``n`` is computed (without the input) from a parameter of ``gm``."""
    params = {name for name, _ in gm.named_parameters()}
    seen, stack = set(), [n]
    while stack:
        u = stack.pop()
        if u in seen or u.op == "placeholder":
            continue
        seen.add(u)
        if u.op == "get_attr" and str(u.target) in params:
            return True
        if u.op == "call_module" and any(True for _ in gm.get_submodule(str(u.target)).parameters()):
            continue
        stack.extend(u.all_input_nodes)
    return False


def _weight_norm_hook(mod: nn.Module) -> Any:
    """The forward pre-hook of ``torch.nn.utils.weight_norm`` / ``spectral_norm`` (the older,
    hook-based forms: the weight is a plain attribute recomputed before each call), or None."""
    from torch.nn.utils.spectral_norm import SpectralNorm
    from torch.nn.utils.weight_norm import WeightNorm

    for hook in mod._forward_pre_hooks.values():
        if isinstance(hook, (WeightNorm, SpectralNorm)):
            return hook
    return None


def _containers(args: Any, kwargs: Any) -> list[Any]:
    """The tuples and lists among the arguments, nested ones too (a chunk's tuple passed whole)."""
    out: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, (list, tuple)):
            out.append(v)
            for u in v:
                walk(u)
        elif isinstance(v, dict):
            for u in v.values():
                walk(u)

    walk(tuple(args))
    walk(dict(kwargs))
    return out
