"""Exceptions raised by isomat."""

from __future__ import annotations

__all__ = ["CheckError", "ProofTimeout", "SizeLimitError"]


class SizeLimitError(ValueError, MemoryError):
    """A construction would need more memory than the configured bound.

    It is both a :class:`ValueError` (the arguments ask for too much) and a
    :class:`MemoryError`, so either ``except`` clause catches it.
    """


class CheckError(RuntimeError):
    """A ledger check could not reach a verdict (for example a stated correction fails)."""


class ProofTimeout(RuntimeError):
    """A solver call ran past its wall-clock safety net.

    Deliberately not a :class:`CheckError`: a check that falls back to weaker evidence when a proof is
    ``unknown`` must not do so here, since whether a wall clock runs out depends on the machine's
    load. The claim is reported as an error instead (the deterministic resource limit, not the
    clock, decides what is proved).
    """
