"""farag2025: results isomat finds that the paper does not state (mixing depth of §9.2's schedule)."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared references, imports and helpers)


# ---------------------------------------------------------------------------------------------
# Beyond the paper: mixing depth (the paper states no depth bound; the abstract's "global" with a
# constant L, which the minimum depth contradicts, is the paper claim farag2025:abstract/global)
# ---------------------------------------------------------------------------------------------


@claim(
    "farag2025:beyond/butterfly-depth",
    quote="(beyond the paper) with the butterfly schedule, ⌈log₂ n⌉ stages make every output depend on every input",
    statement=(
        "isomat's butterfly/XOR schedule (partners ≥ n re-paired in order) with ⌈log₂ n⌉ stages: reachability of "
        "every output from every input in the layered stage graph (networkx), n = 2..40 smallest first."
    ),
    methods=["exhaustive"],
    hypotheses=("n ≥ 2 coordinates (isomat's butterfly schedule re-pairs partners ≥ n)", lambda c: isinstance(c, int) and c >= 2),
)
def _butterfly_depth():
    printed = exhaustive(lambda n: _full_dependence_nx(n, butterfly_pairings(n, math.ceil(math.log2(n)))), range(2, 41),
                         describe="n = 2..40")
    corr = all_of(
        exhaustive(lambda k: _full_dependence_nx(2**k, butterfly_pairings(2**k, k))
                   and not _full_dependence_nx(2**k, butterfly_pairings(2**k, k - 1)) if k > 1 else
                   _full_dependence_nx(2, butterfly_pairings(2, 1)), range(1, 8), describe="n = 2^k, k = 1..7"),
        exhaustive(lambda n: not _full_dependence_nx(n, butterfly_pairings(n, 3)), [6], describe="n = 6, XOR schedule, 3 stages"),
    )
    full = {n: _full_dependence_nx(n, butterfly_pairings(n, math.ceil(math.log2(n)))) for n in range(2, 41)}
    return decide(printed, correction=(
        "For n a power of two the butterfly schedule mixes fully in exactly log₂ n stages (and not in log₂ n − 1); "
        "for other n no schedule reaches full dependence in ⌈log₂ n⌉ stages when n is odd (see "
        "beyond/min-depth), and isomat's XOR schedule with re-pairing also fails for every even non-power-of-two "
        "n ≤ 40 (6 is checked; the list is in the evidence), although other schedules mix fully in ⌈log₂ n⌉ stages "
        "for even n ≤ 8 (beyond/min-depth).", corr),
        xor_schedule_full_at_ceil_log2=[n for n in full if full[n]],
        xor_schedule_not_full_at_ceil_log2_even_n=[n for n in full if not full[n] and n % 2 == 0])


@claim(
    "farag2025:beyond/min-depth",
    quote="(beyond the paper) no pairing schedule does it in fewer stages",
    statement=(
        "Minimal number of stages, over all schedules of maximum matchings (one coordinate unpaired per stage for "
        "odd n), after which every output depends on every input, by exhaustive breadth-first search over "
        "dependence bitmasks, n = 1..8. Checked: (a) the statement: no schedule does it in fewer than ⌈log₂ n⌉ "
        "stages (min depth ≥ ⌈log₂ n⌉); (b) the exact minimum is ⌈log₂ n⌉ for even n and ⌈log₂ n⌉ + 1 for odd "
        "n ≥ 3 (the unpaired coordinate of the last stage keeps the ≤ 2^{L−1} inputs it had), so the bound of (a) "
        "is attained exactly for even n; (c) an optimal schedule found by the search mixes fully by networkx "
        "reachability in the layered stage graph."
    ),
    methods=["exhaustive"],
)
def _min_depth_claim():
    found = {n: _min_depth(n, schedule=True) for n in range(1, 9)}
    depths = {n: d for n, (d, _) in found.items()}
    clog = lambda n: math.ceil(math.log2(n)) if n > 1 else 0
    lower = exhaustive(lambda n: depths[n] >= clog(n), range(1, 9), describe="n = 1..8, all schedules",
                       witness=lambda n: {"min_depth": depths[n], "ceil_log2": clog(n)})
    exact = exhaustive(lambda n: depths[n] == clog(n) + (n % 2 if n > 1 else 0), range(1, 9), describe="n = 1..8, all schedules",
                       witness=lambda n: {"min_depth": depths[n], "ceil_log2 + (n mod 2)": clog(n) + n % 2})
    reach = exhaustive(lambda n: _full_dependence_nx(n, found[n][1]) and (found[n][0] == 0 or not _full_dependence_nx(n, found[n][1][:-1])),
                       range(1, 9), describe="optimal schedule of each n = 1..8 (networkx): full at min depth, not one stage earlier")
    return decide(all_of(lower, exact, reach), min_depths=depths,
                  optimal_schedules={n: [[list(map(int, p)) for p in m] for m in sch] for n, (_, sch) in found.items()})



__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
