"""Claims of zhu2025, "Unified Sparse-Matrix Representations for Diverse Neural Architectures".

Paper: Yuzhou Zhu, arXiv:2506.01966 (see docs/conventions.md; no numbered equations; claims are
labelled by section, theorem, appendix and table). Conventions: row-major ``vec``
(Assumption 4.1); "convolution" is cross-correlation as torch; 0-based indices in code.

References here are direct loops written from the printed formulas and share no code with
``isomat.algebra``. Where a check needs a "generic" kernel exactly, tap t gets the integer
1000**t: every entry of a convolution matrix is then a sum of taps with multiplicities < 1000,
which identifies the set of taps exactly (as a symbolic kernel would), at integer speed.

The claims are split by section (ids unchanged): ``sec4_2`` (§4.1-4.2), ``sec4_3`` (§4.3, Theorem 4.2,
§4.5, §8), ``thm4_1`` (Theorem 4.1, Appendix A.1), ``sec4_4`` (§4.4, Theorem 4.3, Appendix A.3),
``sec5_7`` (§5-7, tables), ``properties`` (the properties the abstract, §1, §5, §9 and Assumption 4.2 attribute to
the constructions as a whole); shared helpers in ``_common``.
"""

from . import sec4_2, sec4_3, thm4_1, sec4_4, sec5_7, properties  # noqa: F401  (registration order = ledger order)
