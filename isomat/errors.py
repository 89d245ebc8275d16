"""Exceptions raised by isomat."""

from __future__ import annotations


class SizeLimitError(ValueError, MemoryError):
    """A construction would need more memory than the configured bound.

    It is both a :class:`ValueError` (the arguments ask for too much) and a
    :class:`MemoryError`, so either ``except`` clause catches it.
    """


class CheckError(RuntimeError):
    """A ledger check could not reach a verdict (for example a stated correction fails)."""
