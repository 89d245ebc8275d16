"""Claims of farag2025, "Rethinking Dense Linear Transformations: Stagewise Pairwise Mixing (SPM)".

Paper: Peter Farag, arXiv:2512.23905. Vectors are columns in the
formulas; batches are rows (``X`` of shape ``(B, n)``), so a batch forward is ``X M^T + b``.
The layer matrix is ``D_out B_L ... B_1 D_in`` (stage 1 applied first, eq. 2-4).

References used here share no code with :mod:`isomat.algebra`: stage matrices are written
entry by entry in loops (:func:`naive_stage`), gradients come from SymPy differentiation and
central finite differences.

One module per section (``sec2`` ... ``sec9``); ``beyond`` holds results the paper does not state
(ids ``farag2025:beyond/...``); ``properties`` the properties stated outside the equations (costs with
activations, expressive power, training dynamics, scaling, §11); ``_common`` the shared references. Importing the package registers every
claim, in the order of the paper; every name of the section modules is re-exported here."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4 import *  # noqa: F401,F403
from .sec5 import *  # noqa: F401,F403
from .sec6 import *  # noqa: F401,F403
from .sec7 import *  # noqa: F401,F403
from .sec8 import *  # noqa: F401,F403
from .beyond import *  # noqa: F401,F403
from .sec9 import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from . import _common, beyond, properties, sec2, sec3, sec4, sec5, sec6, sec7, sec8, sec9  # noqa: F401,E402
