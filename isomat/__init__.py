"""isomat: neural layers as structured matrices, exactly, with a ledger of checked claims."""

from ._config import get_memory_limit, memory_limit, set_memory_limit
from ._verify import verify
from .errors import CheckError, SizeLimitError

__version__ = "0.2.0"

__all__ = [
    "CheckError",
    "SizeLimitError",
    "__version__",
    "get_memory_limit",
    "memory_limit",
    "set_memory_limit",
    "verify",
]
