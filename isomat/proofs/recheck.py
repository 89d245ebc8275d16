"""``python -m isomat.proofs.recheck DIR``: re-check the SMT-LIB 2 proof obligations that
``isomat verify --export-smt DIR`` wrote, with cvc5 (through its Python API; the ``cvc5`` pip
package ships no binary) or ``--solver z3``; prints one line per file and exits 1 when a solver
finds an obligation satisfiable (a proof it refutes), when a file cannot be read, or when a file is
no ledger obligation: every file must be listed, with the SHA-256 of its text, in the export's
``manifest.jsonl`` or in the records of ``--ledger FILE`` (an ``isomat verify --json`` output), so
a file written by hand (say, ``(assert false)``) is refused, not "confirmed". See
:mod:`isomat.proofs.smt`."""

from __future__ import annotations

import sys

from .smt import (CVC5_OPTIONS, CVC5_VERSION, DEFAULT_CVC5_RLIMIT, DEFAULT_CVC5_TIMEOUT_S, agreement, cvc5_check, digest,
                  export_to, main, recheck_paths, sanitize, script, z3_check)

#: the second solver's public API, documented here (implemented in :mod:`isomat.proofs.smt`)
__all__ = ["CVC5_OPTIONS", "CVC5_VERSION", "DEFAULT_CVC5_RLIMIT", "DEFAULT_CVC5_TIMEOUT_S", "agreement", "cvc5_check",
           "digest", "export_to", "main", "recheck_paths", "sanitize", "script", "z3_check"]

if __name__ == "__main__":
    sys.exit(main())
