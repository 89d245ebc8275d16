"""Test helpers for structured operators: the dot (adjoint) test, operator equality without
densifying, dense-reference equality, (in :mod:`isomat.testing.strategies`, which needs
Hypothesis from the ``test`` extra) Hypothesis strategies for valid layer configurations, and (in
:mod:`isomat.testing.families`) one small instance of every construction family for comparing
two fields.

Public so that users writing property-based tests for their own structured layers can reuse
them (after PyLops' ``dottest`` and linear_operator's "structured equals dense" mixin).
Importing this package needs neither Hypothesis nor torch.
"""

from __future__ import annotations

from .operators import SameOperatorReport, assert_matches_dense, assert_same_operator, default_rtol, dottest

__all__ = ["SameOperatorReport", "assert_matches_dense", "assert_same_operator", "default_rtol", "dottest"]
