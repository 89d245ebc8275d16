"""Mutation testing of the ledger's proofs: break what a proved claim certifies, and its verdict must change.

A *mutant* replaces one function of isomat -- a builder (``conv_matrix``), an entry rule
(``conv2d_tap``), an axiom or hypothesis a proof is built from, a backward pass -- with a broken
copy, in-process, wherever the function is bound (the defining module and every ``isomat`` module
that imported the name). The claims that certify that function are then run again; each must come
out with another verdict, strength or set of proof obligations than without the mutant (an ``error`` counts: the claim no
longer stands). A mutant that leaves any of its claims unchanged *survives*: the proof does not bind
to the code it is about.

Each paper's mutants are declared in ``tests/mutants/<paper>.py`` as a list ``MUTANTS``;
``tests/test_mutations.py`` runs them all in CI (in two worker processes, without the cvc5 re-check)
and prints the score; ``docs/guide/mutants.md`` is the documented list, generated with::

    .venv/bin/python -m tests.mutants --markdown > docs/guide/mutants.md

A new proved claim comes with its mutant. The defects every paper makes the same way -- a result scaled, a count one
too high, a rule read one index off, on some inputs only -- come from the shared factories of
``tests/mutants/factories.py`` (``scaled``, ``plus_one``, ``argument_plus_one``, ``changed``).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

PAPERS = ("zhu2025", "do2017", "farag2025", "cheng2025", "reneau2025")
KINDS = ("builder", "entry rule", "axiom", "hypothesis", "backward pass", "lemma")


@dataclass(frozen=True)
class Mutant:
    """One deliberate defect.

    ``target`` is ``"module:attribute"`` (``"isomat.algebra.conv:conv_matrix"``); ``mutate`` takes the
    original object and returns the broken one; ``claims`` are the ids of the claims that certify the
    target, each of which must change its verdict or strength."""

    name: str
    kind: str
    target: str
    mutate: Callable[[object], object]
    claims: tuple[str, ...]
    description: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"mutant {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if ":" not in self.target:
            raise ValueError(f"mutant {self.name!r}: target must be 'module:attribute', got {self.target!r}")
        if not self.claims:
            raise ValueError(f"mutant {self.name!r} names no claim that certifies it")


def clear_caches() -> None:
    """Empty every ``functools`` cache of isomat, so a claim recomputes with the mutant (or without it)."""
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            module = getattr(obj, "__module__", "") or ""
            if module.startswith("isomat"):
                obj.cache_clear()


@contextlib.contextmanager
def applied(m: Mutant) -> Iterator[None]:
    """``m`` in force: its target replaced wherever it is bound in isomat's modules; undone on exit."""
    mod_name, attr = m.target.split(":", 1)
    module = importlib.import_module(mod_name)
    original = getattr(module, attr)
    broken = m.mutate(original)
    patched: list[tuple[object, str]] = []
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "isomat" or name.startswith("isomat.")):
            continue
        for key, value in list(vars(mod).items()):
            if value is original:
                setattr(mod, key, broken)
                patched.append((mod, key))
    if not patched:
        raise AssertionError(f"mutant {m.name!r}: {m.target} is bound nowhere")
    clear_caches()
    try:
        yield
    finally:
        for mod, key in patched:
            setattr(mod, key, original)
        # a module first imported while the mutant was in force bound the broken object at its import (``from
        # ...algebra.spm import spm_backward``): undo those bindings too, or a later trial in this process would
        # depend on which mutants ran before it
        for name, mod in list(sys.modules.items()):
            if mod is not None and (name == "isomat" or name.startswith("isomat.")):
                for key, value in list(vars(mod).items()):
                    if value is broken:
                        setattr(mod, key, original)
        clear_caches()


def run_claims(ids: tuple[str, ...]) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
    """(verdict, strength, proof obligations) of each claim, run in this process. The obligations (the
    digests of every proof discharged in the record's evidence) count because a headline capped by a
    builder's check no longer shows a lost proof in its strength: the record still says what was proved."""
    from isomat import proofs
    from isomat.proofs.engine import REGISTRY, run_claim

    proofs.load(sorted({cid.split(":", 1)[0] for cid in ids}))
    out = {}
    for cid in ids:
        if cid not in REGISTRY:
            raise AssertionError(f"no claim {cid!r}")
        out[cid] = signature(run_claim(REGISTRY[cid]))
    return out


def _quiet_worker() -> None:
    """A mutation worker: no cvc5 re-check (it confirms proofs; whether a verdict changes is Z3's and the
    checks' business, and re-checking every broken run's obligations multiplied the suite's time), and
    Ctrl-C left to the parent."""
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["ISOMAT_RECHECK"] = "0"
    from isomat.proofs import prover

    prover.set_recheck(False)


def baseline(cid: str) -> tuple[str, tuple[str, str | None, tuple[str, ...]]]:
    """(id, the claim's (verdict, strength, obligations) without any mutant), caches emptied first."""
    clear_caches()
    return cid, run_claims((cid,))[cid]


def trial(name: str) -> tuple[str, dict[str, tuple[str, str | None]]]:
    """(name, the verdicts of its claims with the mutant ``name`` in force), caches emptied before."""
    (m,) = [x for x in all_mutants() if x.name == name]
    clear_caches()
    with applied(m):
        after = run_claims(m.claims)
    return name, after


def _task(task: tuple[str, str]) -> tuple[str, str, dict]:
    kind, key = task
    if kind == "baseline":
        return kind, *baseline(key)
    return kind, *trial(key)


def signature(record: dict) -> tuple[str, str | None, tuple[str, ...]]:
    """(verdict, strength, proof obligations) of a ledger record -- what :func:`run_claims` gives for a claim."""
    from isomat.proofs.engine import _obligations

    return record["verdict"], record["strength"], tuple(sorted(_obligations(record.get("evidence"))))


def trials(names: list[str], jobs: int = 2, records: list[dict] | None = None) -> dict[str, tuple[dict, dict]]:
    """(verdicts without the mutant, verdicts with it) of each mutant's claims, in ``jobs`` fresh worker
    processes. A claim's verdict without mutants is computed once, however many mutants it certifies
    (each run is seeded and empties the caches first, so it is the same computation each time) -- or read
    from ``records``, the records of a run of the ledger without mutants (the test suite's one run of the
    whole ledger); each mutant is then one run of its claims with the mutant in force."""
    import multiprocessing

    chosen = [x for x in all_mutants() if x.name in set(names)]
    known = {r["id"]: signature(r) for r in records or []}
    claims = sorted({c for m in chosen for c in m.claims} - set(known))
    tasks = [("baseline", c) for c in claims] + [("mutant", n) for n in names]
    if jobs <= 1 or len(tasks) <= 1:
        from isomat.proofs import prover

        old = prover.set_recheck(False)
        try:
            done = [_task(t) for t in tasks]
        finally:
            prover.set_recheck(old)
    else:
        with multiprocessing.get_context("spawn").Pool(min(jobs, len(tasks)), initializer=_quiet_worker) as pool:
            done = list(pool.imap_unordered(_task, tasks, chunksize=1))
    before = {**known, **{key: value for kind, key, value in done if kind == "baseline"}}
    after = {key: value for kind, key, value in done if kind == "mutant"}
    by_name = {m.name: m for m in chosen}
    return {n: ({c: before[c] for c in by_name[n].claims}, after[n]) for n in names}


def all_mutants() -> list[Mutant]:
    """Every paper's mutants, in paper order."""
    found: list[Mutant] = []
    for paper in PAPERS:
        try:
            module = importlib.import_module(f"{__name__}.{paper}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{paper}":
                raise
            continue
        found += list(module.MUTANTS)
    names = [m.name for m in found]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"mutant names must be distinct: {dup}")
    return found


def markdown(mutants: list[Mutant]) -> str:
    lines = [
        "# Mutants: what breaking the code does to the ledger",
        "",
        "Each row is a deliberate defect that `tests/test_mutations.py` applies in-process (the function",
        "replaced wherever isomat binds it) before running the claims that certify it; every one of those",
        "claims must change its verdict or strength. The suite runs in CI and prints its score; a mutant",
        "that leaves a claim unchanged fails the build. Generated by",
        "`python -m tests.mutants --markdown > docs/guide/mutants.md`.",
        "",
        f"{len(mutants)} mutants.",
        "",
        "| mutant | kind | target | claims that must change | defect |",
        "|---|---|---|---|---|",
    ]
    for m in mutants:
        desc = m.description.replace("|", "\\|")
        lines.append(f"| `{m.name}` | {m.kind} | `{m.target}` | {', '.join(f'`{c}`' for c in m.claims)} | {desc} |")
    return "\n".join(lines) + "\n"

