"""``python -m tests.mutants --markdown``: the documented list of mutants (docs/guide/mutants.md)."""

import sys

from . import all_mutants, markdown

if sys.argv[1:] != ["--markdown"]:
    raise SystemExit("usage: python -m tests.mutants --markdown")
sys.stdout.write(markdown(all_mutants()))
