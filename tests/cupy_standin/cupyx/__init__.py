"""Stand-in ``cupyx`` (test-only); see ``tests/cupy_standin``."""

STANDIN = True
