"""Max-selection nodes beyond pooling windows: ``torch.amax`` and ``torch.max(x, dim)`` (torch-free).

Both reduce axes of a sample by their maximum. :func:`~isomat.torch.from_model` moves the
reduced axes last (a permutation node) and selects each row's maximum with a
:class:`~isomat.torch.network.MaxPoolNode` whose window is the whole row (``(1, R)`` windows on a
``(1, M, R)`` sample). ``torch.max(x, dim)``'s gradient goes to the index it returns, the first
maximum (torch documents it so), which is what :class:`MaxPoolNode` selects. ``torch.amax``
spreads its gradient evenly over tied maxima (torch's ``amax`` backward: ``grad / count``):
:class:`AmaxNode` is that selection, ``1/k`` on each of a row's ``k`` tied maxima, so the
network's values (the mean of equal values is the maximum), its Jacobian and its ``vjp`` are
torch's. (:meth:`Network.region` at a point where an amax row has tied maxima still reads one
chosen entry per row from the selection -- ``network._maxpool_conditions`` takes ``S.indices``
whole -- and needs the first entry of each row instead; off ties the region is right.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .network import MaxPoolNode

__all__ = ["AmaxNode"]


@dataclass(frozen=True, eq=False)
class AmaxNode(MaxPoolNode):
    """``torch.amax`` over rows of length ``window[-1]``: ``S(z)`` has ``1/k`` on each of a row's
    ``k`` maxima (``ties = "split"``), torch's derivative at ties."""

    ties: str = "split"

    def pick(self, z: np.ndarray) -> sp.csr_array:  # type: ignore[override]
        """``S(z)`` itself (MaxPoolNode.pick's sparse form: not one entry per row at ties)."""
        x = np.asarray(z, dtype=np.float64).reshape(-1)
        R = self.window[-1]
        rows = x.reshape(-1, R)
        top = rows == rows.max(axis=1, keepdims=True)
        k = top.sum(axis=1)
        r, c = np.nonzero(top)
        return sp.csr_array(((1.0 / k)[r], (r, r * R + c)), shape=(rows.shape[0], x.size))
