"""Claims of cheng2025, "On Dimension-Free Transformer: An Application of STP to AI".

Paper: Daizhan Cheng, arXiv:2504.14514. Vectors are columns; Kronecker
products follow the paper's formulas; ``t = lcm`` as in eq. (12)-(22).
"""

from __future__ import annotations

from .sec2_pi import *  # noqa: F401,F403
from .sec2 import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4 import *  # noqa: F401,F403
from .sec5 import *  # noqa: F401,F403
from .sec6 import *  # noqa: F401,F403
from .further import *  # noqa: F401,F403
from .results import *  # noqa: F401,F403
from .properties import *  # noqa: F401,F403
from . import _common  # noqa: F401
