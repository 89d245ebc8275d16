"""For isomat's maintainers: regenerate the package's regression guard, ``isomat/proofs/expected/<paper>.json``.

``isomat verify`` never writes the package's files (issue 37, item 4: ``--write-expected`` writes only a
file the user names, outside the package). After changing claims, run from the checkout::

    python benchmarks/_write_expected.py zhu2025          # one paper
    python benchmarks/_write_expected.py --all            # the five papers

Each chosen paper's whole ledger is run (in worker processes, as ``isomat verify`` does) and its file
is written whole from the computed verdicts -- nothing is typed in; a run with an error writes
nothing. Review the diff (``git diff isomat/proofs/expected``) before committing it. (The name starts
with ``_``: ``isomat bench`` does not run it.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's isomat, whose expected files are the ones to write


def main(argv: list[str] | None = None) -> int:
    from isomat import proofs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", nargs="*", metavar="PAPER",
                        help=f"papers to regenerate, of {', '.join(proofs.PAPERS)}")
    parser.add_argument("--all", action="store_true", help="all five papers")
    parser.add_argument("--jobs", type=int, default=proofs.default_jobs("numpy"), help="worker processes")
    args = parser.parse_args(argv)
    papers = list(proofs.PAPERS) if args.all else args.papers
    bad = [p for p in papers if p not in proofs.PAPERS]
    if not papers or bad:
        parser.error(f"name papers of {', '.join(proofs.PAPERS)} (or --all); got {bad or 'none'}")
    if Path(proofs.__file__).resolve().parent != ROOT / "isomat" / "proofs":
        parser.error(f"isomat is imported from {proofs.__file__}, not from this checkout")
    report = proofs.run(papers, jobs=args.jobs, claim_timeout=proofs.DEFAULT_CLAIM_TIMEOUT)
    try:
        paths = proofs.write_expected(report["claims"])
    except (ValueError, RuntimeError) as exc:
        print(f"_write_expected: nothing written: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
