"""isomat: neural layers as structured matrices, exactly, with a ledger of checked claims."""

from ._config import get_memory_limit, memory_limit, set_memory_limit
from .errors import CheckError, SizeLimitError

__version__ = "0.2.0"


def verify(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Run claims and return their records: ``isomat.verify("mylab2026:eq2")``,
    ``isomat.verify(claims="my_claims.py")``, ``isomat.verify(papers="do2017")`` (see
    :func:`isomat.proofs._verify.verify` for every argument). The ledger is imported on the first call."""
    from .proofs._verify import verify as run

    return run(*args, **kwargs)


__all__ = [
    "CheckError",
    "SizeLimitError",
    "__version__",
    "get_memory_limit",
    "memory_limit",
    "set_memory_limit",
    "verify",
]
