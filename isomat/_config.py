"""Process-wide settings: the memory bound that constructions refuse to exceed."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

_DEFAULT_LIMIT = 2 * 1024**3  # 2 GiB


def _initial_limit() -> int:
    raw = os.environ.get("ISOMAT_MEMORY_LIMIT")
    if raw is None:
        return _DEFAULT_LIMIT
    try:
        value = int(float(raw))
    except ValueError:
        raise ValueError(
            f"ISOMAT_MEMORY_LIMIT must be a number of bytes, got {raw!r}"
        ) from None
    if value <= 0:
        raise ValueError(f"ISOMAT_MEMORY_LIMIT must be positive, got {raw!r}")
    return value


_limit = _initial_limit()


def get_memory_limit() -> int:
    """Bytes a single construction may allocate for its result (default 2 GiB)."""
    return _limit


def set_memory_limit(nbytes: int) -> None:
    """Set the memory bound, in bytes, that constructions refuse to exceed."""
    global _limit
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int,)) and not hasattr(nbytes, "__index__"):
        raise TypeError(f"nbytes must be an integer number of bytes, got {type(nbytes).__name__}")
    nbytes = int(nbytes)
    if nbytes <= 0:
        raise ValueError(f"nbytes must be positive, got {nbytes}")
    _limit = nbytes


@contextlib.contextmanager
def memory_limit(nbytes: int) -> Iterator[None]:
    """Temporarily set the memory bound: ``with isomat.memory_limit(10**8): ...``."""
    old = _limit
    set_memory_limit(nbytes)
    try:
        yield
    finally:
        set_memory_limit(old)
