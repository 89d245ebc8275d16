"""``isomat.verify``: one call that runs claims and returns their records (issue 40).

``isomat.verify`` delegates here on its first call, so that ``import isomat`` imports none of the ledger.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any


def verify(claim: str | Iterable[str] | None = None, *, claims: str | Path | None = None,
           papers: str | Iterable[str] | None = None, backend: str = "numpy", jobs: int | None = None,
           claim_timeout: float | None = 300.0, export_smt: str | Path | None = None) -> list[dict[str, Any]]:
    """Run claims and return their ledger records (conventions.md), as ``isomat verify --json`` does.

    Parameters
    ----------
    claim : str or iterable of str, optional
        A claim id (``"mylab2026:eq2"``, ``"do2017:eq3"``) or several. An id of one of the five papers
        loads that paper's claims; any other id is looked up among the claims of ``claims`` (a file
        or module) or, without it, among those declared in this process (a notebook's ``@claim``).
    claims : str or Path, optional
        A Python file (``"my_claims.py"``) or an importable module that declares claims with
        :func:`isomat.proofs.engine.claim`; without ``claim``, all its claims run. Its code is executed.
    papers : str or iterable of str, optional
        The papers whose ledgers run (``"do2017"``); without ``claim`` and ``claims``.
    backend : {"numpy", "cupy"}
        Where the float checks run.
    jobs : int, optional
        Worker processes side by side (default: the usable CPUs with numpy, 1 with cupy).
    claim_timeout : float or None
        Seconds one claim may take (default 300, as ``isomat verify``); a claim over it is an error
        record. ``None``: no limit.
    export_smt : str or Path, optional
        Write every Z3 proof obligation of the run there as SMT-LIB 2 files.

    Returns
    -------
    list of dict
        One record per claim, in the claims' order. A check that raises is an ``"error"`` record
        with its ``error`` and ``traceback``.

    Notes
    -----
    Claims run in worker processes as ``isomat verify`` runs them (a user's claim in a process of its
    own, forked from a template that imported the claims' file once), and no worker imports the
    caller's ``__main__``: a plain script calls this without an ``if __name__ == "__main__"`` guard.
    A claim declared in ``__main__`` itself (a notebook cell, a script) runs in this process.

    Examples
    --------
    >>> import isomat
    >>> records = isomat.verify(claims="my_claims.py")              # doctest: +SKIP
    >>> [(r["id"], r["verdict"]) for r in records]                  # doctest: +SKIP
    [('mylab2026:eq1', 'holds'), ('mylab2026:eq2', 'refuted')]
    """
    from .. import proofs
    from .engine import REGISTRY

    if claim is not None and papers is not None:
        raise TypeError("verify: give claim ids or papers, not both")
    if claims is not None and papers is not None:
        raise TypeError("verify: give a claims file (claims=) or papers, not both")
    if claim_timeout is not None and not (isinstance(claim_timeout, (int, float)) and claim_timeout > 0):
        raise ValueError(f"claim_timeout must be a positive number of seconds or None, got {claim_timeout!r}")
    ids = [claim] if isinstance(claim, str) else list(claim) if claim is not None else None
    if ids is not None and (not ids or not all(isinstance(i, str) for i in ids)):
        raise TypeError(f"claim must be a claim id or a non-empty list of ids, got {claim!r}")
    paper_list = [papers] if isinstance(papers, str) else list(papers) if papers is not None else None
    chosen = None
    if claims is not None:
        chosen = proofs.load_file(claims)
    elif ids is None and paper_list is None:
        raise TypeError("verify: name a claim id, a claims file (claims=) or papers (papers=)")
    if ids is not None:
        pool = {c.id: c for c in chosen} if chosen is not None else None
        if pool is None:
            keys = sorted({i.split(":", 1)[0] for i in ids} & set(proofs.PAPERS))
            pool = {c.id: c for c in proofs.load(keys)} if keys else {}
            pool.update({k: c for k, c in REGISTRY.items() if k.split(":", 1)[0] not in proofs.PAPERS})
        missing = [i for i in ids if i not in pool]
        if missing:
            near = sorted(k for k in pool if k.startswith(missing[0].split("/")[0]))[:8]
            raise ValueError(f"no claim {missing[0]!r}" + (f"; ids that start alike: {', '.join(near)}" if near else
                                                           " (declare it first, or pass claims= its file)"))
        chosen = [pool[i] for i in ids]
    jobs = proofs.default_jobs(backend) if jobs is None else jobs
    if chosen is not None:
        report = proofs.run(claims=chosen, backend=backend, jobs=jobs, export_smt=export_smt,
                            claim_timeout=claim_timeout)
    else:
        report = proofs.run(paper_list, backend=backend, jobs=jobs, export_smt=export_smt, claim_timeout=claim_timeout)
    return report["claims"]
