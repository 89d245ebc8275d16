r"""torch in, torch out: layers and whole networks as exact sparse affine maps.

* :func:`from_module` -- one ``torch.nn`` layer as ``(W, b)`` with
  ``module(x).flatten() == W @ x.flatten() + b`` (one sample, no batch axis).
* :func:`from_model` -- a whole model, traced with ``torch.fx``, as a :class:`Network`: a DAG of
  exact sparse affine maps and elementwise or selection nonlinearities (zhu2025's unified
  representation), with :meth:`Network.affine_segments`, :meth:`Network.local_affine`,
  :meth:`Network.region` and :meth:`Network.jacobian`.
* :class:`SparseAffine` and :func:`to_sparse_model` -- the sparse twin: a torch model whose layers
  are sparse products, with the native model's outputs and parameter gradients.

Conventions (``docs/conventions.md``): one sample, no batch axis, row-major (C-order) flattening.
"""

try:
    import torch as _torch  # noqa: F401  (the extra's check, before any submodule is imported)
except ImportError as exc:  # pragma: no cover - exercised with torch hidden
    raise ImportError(
        "isomat.torch needs PyTorch: install the torch extra, pip install 'isomat[torch]'"
    ) from exc

from ._modules import SUPPORTED_MODULES, LinearRNN, from_module
from .network import AffineSegment, LocalAffine, Network, Region
from .sparse_model import SparseModel, to_sparse_model
from .trace import SUPPORTED_MODEL_MODULES, UnsupportedNodeError, from_model
from .twin import TWIN_KERNELS, TWIN_SUPPORTED, SparseAffine

__all__ = ["AffineSegment", "LinearRNN", "LocalAffine", "Network", "Region", "SUPPORTED_MODEL_MODULES", "SUPPORTED_MODULES",
           "SparseAffine", "SparseModel", "TWIN_KERNELS", "TWIN_SUPPORTED", "UnsupportedNodeError", "from_model", "from_module", "to_sparse_model"]
