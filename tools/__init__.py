"""Developer tools that are not shipped with isomat (mutation testing, claim coverage).

They run from a checkout: ``python -m tools.mutation``, ``python -m tools.claim_coverage``.
"""
