"""Stand-in ``cupyx.scipy`` (test-only); see ``tests/cupy_standin``."""

STANDIN = True
