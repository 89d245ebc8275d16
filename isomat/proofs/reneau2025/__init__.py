"""Claims of reneau2025, "NdLinear: Don't Flatten! Building Superior Neural Architectures by
Preserving N-D Structure".

Paper: Alex Reneau et al., arXiv:2503.17353 (v2, the version the ledger quotes). The paper writes the mode-k weight as
:math:`W_k\\in\\mathbb R^{D_k\\times H_k}` acting on the right of the mode-k fibres (Algorithm 1:
``Y_matrix = X_matrix W_k + b_k``); isomat stores ``nn.Linear`` weights :math:`W_k^{\\mathsf T}`
(``(H_k, D_k)``). ``vec`` is row-major, so the flattened layer is
:math:`(W_1^{\\mathsf T}\\otimes\\cdots\\otimes W_N^{\\mathsf T})\\operatorname{vec}(X)+\\beta`.

Proofs for every size (issue 11): one step of Algorithm 1 is the entry rule
:func:`isomat.algebra.ndlinear.mode_product_entry`, proved (Z3) equal to the entry of
:math:`I_P\\otimes W_k\\otimes I_Q` (:func:`isomat.algebra.kron.kron_entry`) and to the Kolda–Bader mode product with
:math:`W_k^{\\mathsf T}` for all :math:`P, D_k, H_k, Q`; App. A's Kronecker structure is proved on the entry rules
``kron_entry`` / ``kron_rearrange_entry``; the §3.1 parameter and eq. (1) FLOP formulas are SymPy identities in symbolic
sizes, counted over the layer's structure; App. C's memory correction is a Z3 proof on the shape bookkeeping. Exhaustive
and sampled checks stay beside them as cross-checks (a failing cross-check is an error).

Printed numbers are transcribed next to the claim that uses them (table or section given).
Where the paper does not fully state an architecture, the check searches the space the text
allows and records every architecture that reproduces the printed count.
"""

from __future__ import annotations

from .sec2 import *  # noqa: F401,F403
from .appc import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4_2 import *  # noqa: F401,F403
from .tables import *  # noqa: F401,F403
from .text import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from . import _common  # noqa: F401
