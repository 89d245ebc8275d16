"""The claims-ledger engine.

A claim is data -- ``id``, ``quote``, ``statement``, ``methods`` -- plus a check function.
The check function runs trials and returns an :class:`Outcome` built by one of the deciding
functions below; the verdict is derived from what the trials found, never typed in:

``decide(printed, correction=...)``
    ``holds`` when the printed statement passes; ``holds-corrected`` when it fails and the
    stated correction passes; ``refuted`` when it fails and no correction is offered. A stated
    correction that fails is a :class:`~isomat.errors.CheckError`, not a verdict.
``compare_printed(printed, recomputed)``
    ``misprint`` (or ``inconsistent``) with every mismatching entry listed, else ``holds``.
``not_checkable(reason)``
    for empirical statements that need data, training or hardware.
``printed_checks(checks)`` / ``threshold_reading(name, statement, checks)``
    a results statement: each comparison it asserts, in words, against whether the printed numbers satisfy it
    (:func:`compare_printed` of ``{words: True}``); one helper for every results claim.

A record's ``methods``, ``sizes``, ``sizes_undeclared``, ``obligations`` and ``second_solver`` are computed from its
evidence (:func:`derive_fields`), ``same_proof_as`` against the whole ledger (:func:`same_proofs`).

Trials (:class:`Trial`) come from :func:`exhaustive` (all cases in increasing size; the first
failure is the minimal counterexample), :func:`property_search` (Hypothesis ``find``, which
shrinks a failure to a minimal one), :func:`symbolic_zero` (SymPy simplification to zero) and
:func:`numeric_close` (float64 comparison with a stated tolerance).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import importlib.util
import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import CheckError, SizeLimitError
from . import smt as _recheck


class _Sympy:
    """SymPy, imported on first use: ``import isomat.proofs.prover`` and a worker whose claims use no
    SymPy never pay its import (about half a second; issue 40)."""

    def __getattr__(self, name: str) -> Any:
        import sympy as module

        return getattr(module, name)


sympy: Any = _Sympy()

VERDICTS = ("holds", "holds-corrected", "refuted", "misprint", "inconsistent", "not-checkable")
METHODS = ("symbolic", "exact", "numeric", "property", "exhaustive", "recompute")
#: How strong a record's evidence is, strongest first (conventions: ``strength``).
STRENGTHS = ("proved", "exhaustive", "recompute", "sampled", "counterexample")
#: Strengths a passing trial can have, strongest first; a conjunction is as strong as its weakest part.
_TRIAL_STRENGTHS = ("proved", "exhaustive", "recompute", "sampled")
#: What a trial's method gives when the trial does not say: a property search or a float
#: comparison is a sample; a recomputation is a recomputation; an exhaustive, exact or symbolic
#: check at stated sizes is exhaustive up to those sizes (a check on random instances must say
#: ``strength="sampled"``).
_DEFAULT_STRENGTH = {"property": "sampled", "numeric": "sampled", "recompute": "recompute",
                     "exhaustive": "exhaustive", "exact": "exhaustive", "symbolic": "exhaustive"}
PAPERS = ("zhu2025", "do2017", "farag2025", "cheng2025", "reneau2025")

_ID = re.compile(r"^(?P<paper>[a-z]+\d{4}):(?P<label>[a-z]+[a-z0-9.\-]*)(/(?P<part>[a-z0-9.\-_]+))?$")

_float_backend: contextvars.ContextVar[str] = contextvars.ContextVar("isomat_float_backend", default="numpy")


def float_backend() -> str:
    """Field that float checks should build their operators in (``numpy`` unless the runner
    was asked for ``cupy``)."""
    return _float_backend.get()


def device_cached(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``functools.lru_cache`` for a check's building block that remembers whether computing an
    entry reached the device; using such an entry again counts as a device reuse
    (:func:`isomat.gpu.note_device_reuse`), so ``isomat verify --backend cupy`` can say which
    claims' verdicts rest on device results computed for an earlier claim. The cache itself is
    an ``lru_cache`` (``cache_clear`` empties it; the mutation suite finds it).

    An exception (an ``Exception``: never an interrupt) is remembered as a value is: the building block
    is a deterministic computation, so asking again raises the same error at once (a broken builder
    used to be rebuilt up to its failure by every claim that shares the block). Errors that depend on
    the moment (``MemoryError``, ``OSError``, a :class:`~isomat.errors.SizeLimitError` of the memory
    bound in force) are not remembered."""
    from ..gpu import device_uses, note_device_reuse

    computed = [False]
    first: list[BaseException | None] = [None]  # the error this very call raised, with its whole traceback

    @functools.lru_cache(maxsize=None)
    def entry(*args: Any, **kwargs: Any) -> tuple[Any, bool, BaseException | None]:
        computed[0] = True
        before = device_uses()
        try:
            value = fn(*args, **kwargs)
        except Exception as exc:
            # errors of the moment -- memory, the OS, the memory bound in force -- are not remembered, nor one
            # that cannot be copied: the next call computes again
            kept = None if isinstance(exc, (MemoryError, OSError, SizeLimitError)) else _frameless(exc)
            if kept is None:
                raise
            first[0] = exc
            return None, device_uses() > before, kept
        return value, device_uses() > before, None

    @functools.wraps(fn)
    def cached(*args: Any, **kwargs: Any) -> Any:
        computed[0], first[0] = False, None
        value, on_device, raised = entry(*args, **kwargs)
        if on_device and not computed[0]:
            note_device_reuse()
        if raised is not None:
            exc, first[0] = first[0], None
            raise exc if exc is not None else _frameless(raised)  # type: ignore[misc]
        return value

    cached.cache_clear = entry.cache_clear  # type: ignore[attr-defined]
    cached.cache_info = entry.cache_info  # type: ignore[attr-defined]
    return cached


def _frameless(exc: BaseException) -> BaseException | None:
    """A copy of ``exc`` without its traceback (whose frames would keep every local of the failed computation
    alive in the cache), or None when the exception cannot be copied."""
    import copy

    try:
        kept = copy.copy(exc)
    except Exception:  # noqa: BLE001 -- an exception class whose arguments do not rebuild it
        return None
    if type(kept) is not type(exc) or str(kept) != str(exc):
        return None
    return kept.with_traceback(None)


@contextlib.contextmanager
def using_float_backend(name: str) -> Iterator[None]:
    token = _float_backend.set(name)
    try:
        yield
    finally:
        _float_backend.reset(token)


# ---------------------------------------------------------------------------------------------
# JSON-able exact values
# ---------------------------------------------------------------------------------------------
def jsonable(x: Any) -> Any:
    """Exact, JSON-serializable form: Rationals as "p/q" strings, matrices as nested lists."""
    if isinstance(x, (bool, type(None), str)):
        return x
    # NumPy is not imported with the engine (``import isomat.proofs.prover`` stays cheap, issue 40); no
    # NumPy object exists before NumPy is imported, so its types are looked up only where it is loaded
    np = sys.modules.get("numpy")
    if isinstance(x, int) or (np is not None and isinstance(x, np.integer)):
        return int(x)
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else int(x.numerator)
    if isinstance(x, float) or (np is not None and isinstance(x, np.floating)):
        f = float(x)
        # JSON has no NaN or infinity: they are written as the strings "NaN", "Infinity", "-Infinity"
        return f if math.isfinite(f) else ("NaN" if f != f else ("Infinity" if f > 0 else "-Infinity"))
    loaded = sys.modules.get("sympy")  # (no SymPy object exists before SymPy is imported)
    if loaded is not None and isinstance(x, loaded.MatrixBase):
        return [[jsonable(v) for v in row] for row in x.tolist()]
    if loaded is not None and isinstance(x, loaded.Basic):
        if x.is_Integer:
            return int(x)
        return str(x)
    if np is not None and isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()] if x.ndim else jsonable(x.item())
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "toarray"):
        import numpy

        return jsonable(numpy.asarray(x.toarray()))
    return str(x)


# ---------------------------------------------------------------------------------------------
# Trials
# ---------------------------------------------------------------------------------------------
class FrozenEvidence(dict):  # type: ignore[type-arg]
    """A trial's or outcome's evidence, read-only once made (a dict, so JSON and ``**`` take it as one):
    a check adds to evidence by making a new trial (:meth:`Trial.with_evidence`), never by editing one
    whose verdict is already derived."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("evidence is read-only once the trial or outcome is made (use Trial.with_evidence)")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenEvidence, (dict(self),))

    def __copy__(self) -> FrozenEvidence:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenEvidence:
        import copy

        return FrozenEvidence(copy.deepcopy(dict(self), memo))


def _frozen_evidence(evidence: Any) -> FrozenEvidence:
    if isinstance(evidence, FrozenEvidence):
        return evidence
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping, got {type(evidence).__name__}")
    return FrozenEvidence(evidence)


#: the proofs the trusted makers of proofs certified, by id: a weak reference to the object and the
#: fields it was certified with (see :func:`_certify`)
_CERTIFIED: dict[int, tuple[Any, dict[str, Any]]] = {}


def _certify(proof: Any, **fields: Any) -> None:
    """Record ``proof`` as genuine: called by :func:`isomat.proofs.prover.prove` for each proof it
    discharged and by :func:`symbolic_zero` for each identity it simplified to zero -- the only two
    makers of a ``proved`` :class:`Trial`."""
    import weakref

    _CERTIFIED[id(proof)] = (weakref.ref(proof), dict(fields))


def _is_certified(proof: Any) -> bool:
    """``proof`` is the very object a trusted maker certified, with the fields it had then (a copy, a
    ``dataclasses.replace`` or an ``object.__setattr__`` since is refused)."""
    if isinstance(proof, tuple):
        return bool(proof) and all(_is_certified(p) for p in proof)
    entry = _CERTIFIED.get(id(proof))
    if entry is None or entry[0]() is not proof:
        return False
    return all(getattr(proof, k, None) == v for k, v in entry[1].items())


class _SympyIdentity:
    """The certificate of one :func:`symbolic_zero` proof (SymPy simplified the difference to zero)."""

    def __init__(self, obligation: str, for_all: str) -> None:
        self.obligation, self.for_all, self.status = obligation, for_all, "proved"

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("a proof certificate cannot be pickled or rebuilt")


@dataclass(frozen=True)
class Trial:
    """The result of testing one statement: passed or not, with what was tried. Immutable once
    made: :meth:`with_evidence` gives a copy with more evidence. A ``proved`` trial carries in
    ``proof`` the proof behind it -- a :class:`~isomat.proofs.prover.Proof` that ``prove`` made, a
    :func:`symbolic_zero` identity, or (for :func:`all_of`) a tuple of them -- each certified by its
    maker: any other caller's ``strength="proved"`` is refused."""

    ok: bool
    method: str
    evidence: dict[str, Any]
    counterexample: Any = None
    #: how strong the trial's evidence is when it passes (one of ``proved``, ``exhaustive``,
    #: ``recompute``, ``sampled``); by default what ``method`` gives (see ``_DEFAULT_STRENGTH``).
    #: ``proved`` is reserved for :func:`isomat.proofs.prover.prove` and :func:`symbolic_zero`
    #: with a stated ``for_all``: a trial cannot simply claim it.
    strength: str | None = None
    #: the certified proof behind a ``proved`` trial (None for any other strength)
    proof: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        object.__setattr__(self, "evidence", _frozen_evidence(self.evidence))
        if not self.ok and self.counterexample is None:
            raise CheckError("a failed trial must carry its counterexample")
        if self.strength is None:
            object.__setattr__(self, "strength", _DEFAULT_STRENGTH[self.method])
        if self.strength not in _TRIAL_STRENGTHS:
            raise ValueError(f"strength must be one of {_TRIAL_STRENGTHS}, got {self.strength!r}")
        if self.strength == "proved":
            if not _is_certified(self.proof):
                raise CheckError("a proved trial is made only from a proof: prover.prove(...).trial(), symbolic_zero(..., "
                                 "for_all=...) or all_of of proved trials -- strength='proved' cannot be claimed")
            if not self.evidence.get("for_all"):
                raise CheckError("a proved trial must say in evidence['for_all'] what it quantified over")
            sizes = self.evidence.get("sizes")
            if not isinstance(sizes, list) or not all(isinstance(x, str) for x in sizes):
                raise CheckError("a proved trial must list in evidence['sizes'] the symbolic sizes it quantifies "
                                 "(an empty list for a size-free identity)")

    def with_evidence(self, **extra: Any) -> Trial:
        """This trial with ``extra`` added to (or replacing keys of) its evidence, checked again."""
        import dataclasses

        return dataclasses.replace(self, evidence={**self.evidence, **extra})


def _trial_evidence(t: Trial) -> dict[str, Any]:
    """A trial's evidence as recorded: method, ok, and -- for a passing trial -- its strength
    (a failed trial's strength would say nothing: it is settled by its counterexample). A
    ``proved`` trial is checked again here, where it is used: one made around ``__post_init__``
    (``object.__new__``, an edited field) is refused."""
    if t.ok and t.strength == "proved" and not _is_certified(t.proof):
        raise CheckError("a proved trial without a certified proof behind it is refused")
    return dict(method=t.method, ok=t.ok, **({"strength": t.strength} if t.ok else {}), **t.evidence)


def weakest(*strengths: str) -> str:
    """The weakest of passing-trial strengths (a conjunction is only as strong as its weakest part)."""
    if not strengths:
        raise ValueError("weakest needs at least one strength")
    return max(strengths, key=_TRIAL_STRENGTHS.index)


def exists(search: Trial, *, within: str) -> Trial:
    """A trial for an existence statement ("there is an x with P(x)"), from a search for a
    failure of "not P": it passes when ``search`` failed, and that case is the witness."""
    if not search.ok:
        # one exact witness settles an existence statement; it is no proof of a "for all"
        return Trial(True, search.method, dict(search.evidence, witness=search.counterexample),
                     strength="exhaustive" if search.strength == "proved" else search.strength)
    return Trial(False, search.method, dict(search.evidence), {"no_witness_in": within})


def all_of(*trials: Trial) -> Trial:
    """Conjunction: passes when every trial passes; the first failure is reported."""
    if not trials:
        raise ValueError("all_of needs at least one trial")
    evidence: dict[str, Any] = {"trials": [_trial_evidence(t) for t in trials]}
    for t in trials:
        if not t.ok:
            return Trial(False, t.method, evidence, t.counterexample)
    strength = weakest(*(t.strength for t in trials if t.strength is not None))
    proof = None
    if strength == "proved":
        evidence["for_all"] = "; ".join(str(t.evidence["for_all"]) for t in trials)
        evidence["sizes"] = list(dict.fromkeys(x for t in trials for x in t.evidence["sizes"]))
        proof = tuple(p for t in trials for p in (t.proof if isinstance(t.proof, tuple) else (t.proof,)))
    return Trial(True, trials[0].method, evidence, strength=strength, proof=proof)


def exhaustive(
    predicate: Callable[[Any], bool],
    cases: Iterable[Any],
    *,
    describe: str,
    witness: Callable[[Any], Any] | None = None,
    method: str = "exhaustive",
    strength: str = "exhaustive",
) -> Trial:
    """Test ``predicate`` on every case, in the given order (smallest first).

    The first failing case is returned as the counterexample; when ``cases`` is ordered by
    size this is a minimal counterexample. ``witness(case)`` may add exact detail to it
    (the two sides that differ, say). ``method`` names how each case is decided when that is
    the point of the trial (``"symbolic"``, ``"exact"``, ``"numeric"``); default ``"exhaustive"``.
    ``strength`` is ``"exhaustive"`` when every case is decided exactly for all values (generic
    symbols, or an injective integer encoding of them); a case decided on one random instance
    makes the trial ``"sampled"``, and the caller must say so.
    """
    if strength not in ("exhaustive", "sampled"):
        raise ValueError(f"strength of an exhaustive trial must be 'exhaustive' or 'sampled', got {strength!r}")
    n = 0
    for case in cases:
        n += 1
        if not predicate(case):
            cx = {"case": jsonable(case)}
            if witness is not None:
                cx.update(jsonable(witness(case)))
            return Trial(False, method, {"cases": describe, "tested": n, "first_failure_at": n}, cx)
    if n == 0:
        raise CheckError(f"exhaustive check over {describe!r} tested no case")
    return Trial(True, method, {"cases": describe, "tested": n}, strength=strength)


def refuses(call: Callable[[], Any], errors: type[BaseException] | tuple[type[BaseException], ...],
            *fragments: str) -> bool:
    """Whether ``call()`` is refused: it raises one of ``errors`` whose message holds every one of
    ``fragments`` (the argument's name, the bound, what was expected). A result is ``False``; any
    other exception propagates (the claim is then an error: a crash is no refusal)."""
    try:
        call()
    except errors as exc:
        return all(f in str(exc) for f in fragments)
    return False


def holds_memory_bound(call: Callable[[], Any], need: int, what: str) -> bool:
    """Whether ``call()`` holds to the memory bound a builder states, ``need`` bytes: it runs under a bound of ``need``
    and is refused one byte below it with a :class:`SizeLimitError` naming ``what`` (neither a build that fits is
    refused, nor more work admitted than the bound promises). Any other exception propagates, as in
    :func:`refuses`."""
    from .._config import memory_limit

    try:
        with memory_limit(need):
            call()
    except SizeLimitError:
        return False
    with memory_limit(need - 1):
        return refuses(call, SizeLimitError, what)


def property_search(
    predicate: Callable[[Any], bool],
    strategy: Any,
    *,
    describe: str,
    max_examples: int = 200,
    witness: Callable[[Any], Any] | None = None,
) -> Trial:
    """Hypothesis search for a failure of ``predicate``; a failure is shrunk to a minimal one.

    Runs derandomized with no example database, so the verdict is reproducible.
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    count = 0

    def failing(example: Any) -> bool:
        nonlocal count
        count += 1
        return not predicate(example)

    conf = settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    try:
        example = find(strategy, failing, settings=conf)
    except (NoSuchExample, Unsatisfiable):
        return Trial(True, "property", {"strategy": describe, "examples": count})
    cx = {"case": jsonable(example)}
    if witness is not None:
        cx.update(jsonable(witness(example)))
    return Trial(False, "property", {"strategy": describe, "examples": count, "shrunk": True}, cx)


def _declared_facts(expr: Any) -> dict[Any, dict[str, bool]]:
    """The SymPy assumptions each free symbol of ``expr`` was declared with (``{x: {"positive": True}}``;
    symbols declared with none are left out), as stated at declaration (not the facts derived from them; an
    object that keeps no declaration, an ``Indexed`` entry of a declared ``IndexedBase``, gives its facts)."""
    out: dict[Any, dict[str, bool]] = {}
    for sym in sorted(sympy.sympify(expr).free_symbols, key=str):
        declared = getattr(sym, "_assumptions_orig", None)
        if declared is None:
            declared = sym.assumptions0
        facts = {k: bool(v) for k, v in sorted(declared.items()) if k != "commutative" and v is not None}
        if facts:
            out[sym] = facts
    return out


def _symbol_assumptions(expr: Any) -> dict[str, list[str]]:
    """:func:`_declared_facts` as the evidence records them (``{"x": ["positive"], "y": ["not zero"]}``)."""
    return {str(sym): [k if v else f"not {k}" for k, v in facts.items()] for sym, facts in _declared_facts(expr).items()}


#: The domains a proof by :func:`symbolic_zero` may state for a symbol (its ``domain`` argument), each as the SymPy
#: assumptions a symbol of exactly that domain is declared with. A symbol the difference was built from with
#: assumptions (``positive=True``) narrows what "for all" means: the proof is refused unless the stated domain
#: implies every one of them (SymPy's own inference decides, on a fresh symbol of the stated domain).
DOMAINS: dict[str, dict[str, bool]] = {
    "real": {"real": True},
    "real > 0": {"positive": True},
    "real >= 0": {"nonnegative": True},
    "integer": {"integer": True},
    "integer >= 0": {"integer": True, "nonnegative": True},
    "integer >= 1": {"integer": True, "positive": True},
}


def _stated_domain(difference: Any, for_all: str, domain: Mapping[str, str]) -> dict[str, str]:
    """The domain ``for_all`` states for each free symbol of ``difference`` (the entries of ``domain`` naming one),
    after refusing a ``for_all`` that the symbols' SymPy assumptions narrow: every assumption a symbol was declared
    with must follow from the domain stated for it (issue 36 item 3: ``for_all="for all integers n"`` over an ``n``
    declared ``positive=True`` proves nothing about n <= 0, so it is refused, not recorded as proved)."""
    free = {str(x) for x in sympy.sympify(difference).free_symbols}
    for sym, facts in _declared_facts(difference).items():
        name = str(sym)
        if name not in domain and isinstance(sym, sympy.Indexed):  # x[k]: the domain of its base x
            name = str(sym.base.label)
            free.add(name)
        said = [k if v else f"not {k}" for k, v in facts.items()]
        if name not in domain:
            raise CheckError(f"symbolic_zero: symbol {name} is declared {', '.join(said)} (SymPy assumptions), which "
                             f"narrows for_all {for_all!r}; state its domain (domain={{{name!r}: ...}}, one of "
                             f"{sorted(DOMAINS)}) or build the difference from a symbol without assumptions")
        probe = sympy.Dummy(name, **DOMAINS[domain[name]])
        unmet = [k if v else f"not {k}" for k, v in facts.items() if getattr(probe, f"is_{k}") is not v]
        if unmet:
            raise CheckError(f"symbolic_zero: symbol {name} is declared {', '.join(said)} (SymPy assumptions), but "
                             f"for_all {for_all!r} states {name} {domain[name]}, which does not imply "
                             f"{', '.join(unmet)}: the proof would hold on a narrower domain than stated")
    return {name: phrase for name, phrase in sorted(domain.items()) if name in free}


def symbolic_zero(difference: Any, *, describe: str, for_all: str | None = None,
                  sizes: Sequence[Any] = (), domain: Mapping[str, str] | None = None) -> Trial:
    """Passes when ``difference`` (a SymPy expression or matrix) simplifies to zero.

    ``for_all`` says what the symbols range over when the identity involves no size (generic
    entries of fixed-size operands, or sizes that are themselves symbols): then a zero
    difference is a proof for every value (strength ``proved``), and ``for_all`` is recorded
    in the evidence. Without it the trial is a symbolic check at the sizes built (``exhaustive``).
    ``sizes`` names the symbolic sizes among the difference's free symbols (empty: the identity
    involves no size, as for generic entries of fixed-size operands); a name that is not a free
    symbol of ``difference`` is refused.

    The domain of a SymPy proof is the one its symbols were declared on: ``simplify`` may use
    ``positive=True`` or ``integer=True`` to reach zero (``sqrt(x**2) - x`` is zero only for
    ``x >= 0``). So the words of ``for_all`` are never taken for the quantification on their own:
    ``domain`` maps a symbol's name to the domain the statement quantifies it over (one of
    :data:`DOMAINS`: ``"real"``, ``"real > 0"``, ``"real >= 0"``, ``"integer"``, ``"integer >= 0"``,
    ``"integer >= 1"``), and a proof over a free symbol declared with assumptions that its stated
    domain does not imply -- or that it states no domain for -- is refused (:class:`CheckError`
    naming the symbol, its assumptions and ``for_all``). The recorded ``for_all`` ends with the
    domain stated for the difference's free symbols (``"...; domain: n integer >= 1, x real"``) and
    the assumptions of every free symbol are recorded (``evidence["assumptions"]``). (An assumption
    SymPy already used when the difference was *built* -- ``sqrt(x**2)`` of a positive ``x`` is
    ``x`` at once -- leaves no symbol behind to check: build differences from symbols declared with
    the domain the claim states.) The proof is certified here (it is the only maker of a proved
    trial besides the prover).
    """
    strength = "proved" if for_all else "exhaustive"
    size_names = [str(x) for x in sizes]
    if domain and not for_all:
        raise ValueError("domain states what a proof quantifies over: give for_all too")
    for name, phrase in (domain or {}).items():
        if phrase not in DOMAINS:
            raise ValueError(f"domain[{name!r}] must be one of {sorted(DOMAINS)}, got {phrase!r}")
    if size_names:
        if not for_all:
            raise ValueError("sizes are recorded for a proof: give for_all too")
        free = {str(x) for x in sympy.sympify(difference).free_symbols}
        missing = [x for x in size_names if x not in free]
        if missing:
            raise ValueError(f"sizes {missing} are not free symbols of the difference (free: {sorted(free)})")
    if isinstance(difference, sympy.MatrixBase):
        residual = difference.applyfunc(lambda e: sympy.simplify(sympy.expand(e)))
        bad = [(i, j, residual[i, j]) for i in range(residual.rows) for j in range(residual.cols) if residual[i, j] != 0]
        evidence = {"compared": describe, "size": f"{difference.rows}x{difference.cols}"}
        if bad:
            i, j, v = bad[0]
            return Trial(False, "symbolic", evidence, {"entry": [i, j], "residual": str(v), "nonzero_entries": len(bad)})
    else:
        residual = sympy.simplify(sympy.expand(difference))
        evidence = {"compared": describe}
        if residual != 0:
            return Trial(False, "symbolic", evidence, {"residual": str(residual)})
    if not for_all:
        return Trial(True, "symbolic", evidence, strength=strength)
    # a proof: what it quantifies over is the stated for_all, checked against the symbols' assumptions first (a
    # nonzero residual above is a counterexample on the declared domain, so on any wider one: no check needed)
    stated_domain = _stated_domain(difference, for_all, domain or {})
    stated = for_all
    if stated_domain:
        stated += "; domain: " + ", ".join(f"{k} {v}" for k, v in stated_domain.items())
    extra = {"for_all": stated, "sizes": size_names, "tool": f"sympy {sympy.__version__} (simplify of the difference)",
             "obligation": _sympy_digest((describe, difference)), "assumptions": _symbol_assumptions(difference)}
    return Trial(True, "symbolic", {**evidence, **extra}, strength=strength, proof=_sympy_certificate(extra))


def _sympy_certificate(extra: Mapping[str, Any]) -> _SympyIdentity:
    cert = _SympyIdentity(extra["obligation"], extra["for_all"])
    _certify(cert, status="proved", obligation=cert.obligation, for_all=cert.for_all)
    return cert


def _sympy_digest(expr: Any) -> str:
    """A short digest of a SymPy obligation (equal digests: the same identity proved)."""
    import hashlib

    return hashlib.sha256(sympy.srepr(expr).encode()).hexdigest()[:16]


def exact_equal(a: Any, b: Any, *, describe: str, strength: str = "exhaustive") -> Trial:
    """Exact equality of two SymPy matrices / numbers (method ``exact``).

    ``strength`` is ``"exhaustive"`` (the default) when the operands are generic at the size
    compared, ``"recompute"`` when they are printed numbers, ``"sampled"`` when they are one
    random instance.
    """
    if strength not in ("exhaustive", "recompute", "sampled"):
        raise ValueError(f"strength must be 'exhaustive', 'recompute' or 'sampled', got {strength!r}")
    A, B = sympy.Matrix(a), sympy.Matrix(b)
    if A.shape != B.shape:
        return Trial(False, "exact", {"compared": describe}, {"shapes": [list(A.shape), list(B.shape)]})
    D = A - B
    bad = [(i, j) for i in range(D.rows) for j in range(D.cols) if D[i, j] != 0]
    if bad:
        i, j = bad[0]
        return Trial(False, "exact", {"compared": describe, "size": f"{A.rows}x{A.cols}"},
                     {"entry": [i, j], "left": jsonable(A[i, j]), "right": jsonable(B[i, j]), "mismatches": len(bad)})
    return Trial(True, "exact", {"compared": describe, "size": f"{A.rows}x{A.cols}"}, strength=strength)


def numeric_close(a: Any, b: Any, *, describe: str, rtol: float = 1e-10, atol: float = 1e-12) -> Trial:
    """float64 comparison with the stated tolerances (method ``numeric``)."""
    import numpy as np

    from ..algebra._backend import to_numpy  # device arrays come back with .get()

    A = to_numpy(a.toarray() if hasattr(a, "toarray") else a).astype(np.complex128)
    B = to_numpy(b.toarray() if hasattr(b, "toarray") else b).astype(np.complex128)
    ev = {"compared": describe, "rtol": rtol, "atol": atol}
    if A.shape != B.shape:
        return Trial(False, "numeric", ev, {"shapes": [list(A.shape), list(B.shape)]})
    err = np.abs(A - B)
    tol = atol + rtol * np.abs(B)
    ev["max_abs_error"] = float(err.max()) if err.size else 0.0
    if np.all(err <= tol):
        return Trial(True, "numeric", ev)
    idx = np.unravel_index(int(np.argmax(err - tol)), err.shape)
    return Trial(False, "numeric", ev, {"index": [int(i) for i in idx], "left": complex(A[idx]).real if A[idx].imag == 0 else str(A[idx]),
                                       "right": complex(B[idx]).real if B[idx].imag == 0 else str(B[idx])})


# ---------------------------------------------------------------------------------------------
# Outcomes and verdicts
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """A check's result: the verdict derived from its trials. Immutable once made (the record is
    what the deciding function derived, never a relabelled copy); :func:`run_claim` checks it again."""

    verdict: str
    evidence: dict[str, Any]
    counterexample: Any = None
    correction: str | None = None
    discrepancies: list[dict[str, Any]] | None = None
    #: one of :data:`STRENGTHS`; ``None`` only for ``not-checkable`` (there is no evidence)
    strength: str | None = None
    #: every reading's record when the claim has several (see :func:`by_readings`)
    readings: list[dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        object.__setattr__(self, "evidence", _frozen_evidence(self.evidence))
        for name in ("discrepancies", "readings"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))
        if self.verdict == "not-checkable":
            if self.strength is not None:
                raise CheckError("a not-checkable outcome has no strength")
        elif self.verdict in ("refuted", "misprint", "inconsistent"):
            if self.strength not in (None, "counterexample"):
                raise CheckError(f"a {self.verdict} outcome is settled by its counterexample, not {self.strength!r}")
            object.__setattr__(self, "strength", "counterexample")
        elif self.strength not in _TRIAL_STRENGTHS:
            raise CheckError(f"a {self.verdict} outcome needs a strength from its trials, got {self.strength!r}")


def _outcome_problem(o: Outcome) -> str | None:
    """What is wrong with an outcome as recorded (None: nothing) -- checked again when the record is
    made, so an outcome edited after it was derived (``object.__setattr__``) is an error, not a verdict."""
    if o.verdict not in VERDICTS:
        return f"verdict must be one of {VERDICTS}, got {o.verdict!r}"
    if not isinstance(o.evidence, Mapping):
        return f"evidence must be a mapping, got {type(o.evidence).__name__}"
    if o.verdict == "not-checkable":
        if o.strength is not None:
            return f"a not-checkable outcome has no strength, got {o.strength!r}"
    elif o.verdict in ("refuted", "misprint", "inconsistent"):
        if o.strength != "counterexample":
            return f"a {o.verdict} outcome is settled by its counterexample, not strength {o.strength!r}"
    elif o.strength not in _TRIAL_STRENGTHS:
        return f"a {o.verdict} outcome needs a strength from {_TRIAL_STRENGTHS}, got {o.strength!r}"
    if o.verdict in ("refuted", "holds-corrected") and o.counterexample is None:
        return f"a {o.verdict} outcome must carry the printed statement's counterexample"
    if o.verdict == "holds-corrected" and not (isinstance(o.correction, str) and o.correction.strip()):
        return f"a holds-corrected outcome must carry its correction as text, got {o.correction!r}"
    if o.correction is not None and not isinstance(o.correction, str):
        return f"a correction is text, got {type(o.correction).__name__}"
    if o.verdict == "misprint" and not o.discrepancies:
        return "a misprint outcome must list its discrepancies"
    for name in ("discrepancies", "readings"):
        value = getattr(o, name)
        if value is not None and not isinstance(value, (list, tuple)):
            return f"{name} must be a list, got {type(value).__name__}"
    if o.discrepancies and not all(isinstance(d, Mapping) and {"where", "printed", "correct"} <= set(d)
                                   for d in o.discrepancies):
        return "each discrepancy must give 'where', 'printed' and 'correct'"
    if o.readings is not None and not all(isinstance(r, Mapping) and isinstance(r.get("reading"), str)
                                          and r.get("verdict") in VERDICTS for r in o.readings):
        return "each reading must be a record with its name and verdict"
    if o.strength == "proved":
        deciding = o.evidence.get("corrected" if o.verdict == "holds-corrected" else "printed", o.evidence)
        if not (isinstance(deciding, Mapping) and deciding.get("for_all")):
            return "a proved outcome must say in its deciding evidence's 'for_all' what it quantified over"
        sizes = deciding.get("sizes", [])
        if not isinstance(sizes, (list, tuple)) or not all(isinstance(x, str) for x in sizes):
            return "a proved outcome's 'sizes' must be a list of size names"
    return None


def _binding(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """Evidence given beside the deciding trial, with every :class:`Trial` among it *binding*: a
    cross-check of isomat's construction against the proved rule or an independent reference is
    part of the verdict, never a note -- when it fails, the claim is an error (isomat disagrees with
    what it certifies, so no verdict about the paper can stand), and its counterexample is named.
    A :class:`BuilderCheck` (see :func:`builder_check`) is binding the same way and says in its
    record whether the builder is derived from the proved rule."""
    out: dict[str, Any] = {}
    for key, value in evidence.items():
        if isinstance(value, BuilderCheck):
            _raise_if_failed(key, value.trial)
            out[key] = value.record()
        elif isinstance(value, Trial):
            _raise_if_failed(key, value)
            out[key] = _trial_evidence(value)
        else:
            out[key] = value
    return out


#: the ``builder`` note of a builder check whose builder computes its indices with the proved entry rule
DERIVED = "derived from the proved rule"


@dataclass(frozen=True)
class BuilderCheck:
    """A binding check of one of isomat's builders (made by :func:`builder_check`): the trial (the
    conjunction of its parts), whether the builder is derived from the rule that the claim's proof is
    about, and the parts themselves (the strength a non-derived builder caps the headline at is read
    from them: :attr:`caps`)."""

    trial: Trial
    derived_from_rule: bool
    builder: str = ""
    parts: tuple[Trial, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.trial, Trial):
            raise TypeError(f"builder_check takes a Trial, got {type(self.trial).__name__}")
        if not isinstance(self.derived_from_rule, bool):
            raise TypeError(f"derived_from_rule must be True or False, got {self.derived_from_rule!r}")
        object.__setattr__(self, "parts", tuple(self.parts) or (self.trial,))
        bad = [type(t).__name__ for t in self.parts if not isinstance(t, Trial)]
        if bad:
            raise TypeError(f"builder_check takes Trials, got {bad[0]}")

    @property
    def caps(self) -> str | None:
        """The strength this check caps the headline at (None: a derived builder caps nothing).

        The one rule (issue 36 item 2): the weakest of the parts that are exact up to a stated bound
        (every part not ``sampled``: the builder equals the rule at every size up to N); the sampled parts
        (random sizes above the bound, the sizes users run) stay binding -- a failure of any is an error --
        but add nothing a reader could quote as "for every size up to N". A check with no exact part caps
        at ``sampled``."""
        if self.derived_from_rule:
            return None
        exact = [t.strength for t in self.parts if t.strength != "sampled"]
        return weakest(*exact) if exact else "sampled"

    def record(self) -> dict[str, Any]:
        note = DERIVED if self.derived_from_rule else (
            f"not derived from the proved rule: rule proved for all sizes, builder checked ({self.caps} up to its "
            f"stated bound{', and sampled beyond it' if any(t.strength == 'sampled' for t in self.parts) else ''}), "
            f"so the headline strength is at most {self.caps}")
        return {**_trial_evidence(self.trial), "builder": note, **({"builds": self.builder} if self.builder else {})}


def builder_check(*parts: Trial, derived_from_rule: bool, builder: str = "") -> BuilderCheck:
    """Mark a binding check (``parts``, conjoined) as the check of an isomat builder that the claim certifies.

    Give it to :func:`decide` (or :func:`compare_printed`) as a keyword, like any binding check::

        decide(proof, swap_matrix_binds_rule=builder_check(trial, derived_from_rule=True, builder="swap_matrix"))

    A failing check is a :class:`~isomat.errors.CheckError` (the claim is an error), as for every
    binding check. When it passes:

    * ``derived_from_rule=True`` -- the builder computes its indices or values by calling the entry
      rule that the proof is about (``swap_matrix`` calls ``swap_row``), so a proof of the rule is a
      proof of what the builder builds; the check guards the rest of the builder (formats, fields,
      dtypes). The headline strength is the proof's, and the check's record says
      ``"builder": "derived from the proved rule"``.
    * ``derived_from_rule=False`` -- the builder computes the matrix its own way (``stp`` by
      Chinese-remainder re-indexing, ``kron_operator`` by encoding the factors' patterns, ``conv_matrix``
      by blocked stencils); the proof is about the rule, and the builder is known equal to it only where
      the check ran. The headline strength is then the weaker of the proof and the check
      (:attr:`BuilderCheck.caps`: the check's parts exact up to a stated bound give ``exhaustive``, its
      sampled parts above the bound and at the sizes users run stay binding without lowering it), and the
      record says so -- the claim's statement must say it too (:func:`builder_note`).

    Several ``parts`` (exhaustive to a bound, random above it, at the sizes users run) are kept apart so
    that the cap is read from them; one trial is its own only part.

    Backward compatible: a plain :class:`Trial` keyword stays a binding check that does not enter
    the strength (claims that have not adopted this keep their records)."""
    if not parts:
        raise TypeError("builder_check needs the check's trial (or its parts)")
    bad = [type(t).__name__ for t in parts if not isinstance(t, Trial)]
    if bad:
        raise TypeError(f"builder_check takes a Trial, got {bad[0]}")
    return BuilderCheck(parts[0] if len(parts) == 1 else all_of(*parts), derived_from_rule, builder, parts)


def builder_note(*bounds: str, strength: str = "exhaustive") -> str:
    """The sentence a claim's statement ends with when its headline rests on the check of a builder not
    derived from its proved rule (issue 36 item 2): ``bounds`` say up to where each builder is checked
    exactly and where it is checked beyond (the sizes users run); ``strength`` is the headline that
    :attr:`BuilderCheck.caps` gives."""
    if strength not in _TRIAL_STRENGTHS or strength == "proved":
        raise ValueError(f"a builder's check caps the headline at a strength below 'proved', got {strength!r}")
    return (f" Headline strength {strength}, not proved: the rule is proved for all sizes, but isomat's builder is not "
            "derived from it; " + "; ".join(b.strip().rstrip(".") for b in bounds) + ".")


def _builder_caps(evidence: Mapping[str, Any]) -> list[str]:
    """The strengths that the non-derived builder checks among ``evidence`` cap a headline at."""
    return [v.caps for v in evidence.values() if isinstance(v, BuilderCheck) and v.caps is not None]


#: papers whose ``refuted``/``misprint``/``inconsistent`` records must carry ``independent_reference``
#: evidence (see :func:`decide`'s ``confirm``): all five (issue 36 item 6: a bug is never the paper's fault)
CONFIRMED_PAPERS = frozenset(PAPERS)
#: the verdicts required to be confirmed there: every verdict that blames the paper
CONFIRMED_VERDICTS = frozenset({"refuted", "misprint", "inconsistent"})
#: sources of users' own claims that asked for the same rule (:func:`require_confirmation`)
_CONFIRMED_SOURCES: set[str] = set()


def require_confirmation(*sources: str) -> None:
    """Hold the claims of ``sources`` (source keys such as ``"mylab2026"``) to the rule the five papers are
    held to: a ``refuted``, ``misprint`` or ``inconsistent`` headline without a confirming independent
    reference is an error. Opt-in for a user's own sources (call it at the top of the claims file, which
    every worker imports); a user's claim that gives ``confirm=`` is held to its reference either way."""
    bad = [x for x in sources if not (isinstance(x, str) and re.fullmatch(r"[a-z]+\d{4}", x))]
    if bad or not sources:
        raise ValueError(f"require_confirmation takes source keys of letters and a four-digit year "
                         f"('mylab2026'), got {bad or list(sources)!r}")
    _CONFIRMED_SOURCES.update(sources)


#: verdicts that blame the paper: each must be confirmed by a reference that shares no code with isomat
_BLAMING = ("refuted", "misprint", "inconsistent")
#: the ``independent_reference`` of a compare_printed whose values are the paper's printed numbers (or
#: arithmetic on them alone): no isomat builder computed them, so nothing of isomat's can be at fault
FROM_PRINTED = "the recomputed values are the paper's own printed numbers or arithmetic on them alone (no isomat builder)"


def _confirmed(found: Any, confirm: Any, what: str) -> dict[str, Any]:
    """The ``independent_reference`` evidence of a verdict that blames the paper: ``confirm`` (a
    :class:`Trial`, or a callable taking what was found -- the counterexample or the discrepancies --
    and returning one) recomputes it with a reference that shares no code with isomat's builders;
    when that reference does not confirm it, isomat and its reference disagree, and the claim is an
    error (a bug is never the paper's fault)."""
    t = confirm(found) if callable(confirm) and not isinstance(confirm, Trial) else confirm
    if not isinstance(t, Trial):
        raise TypeError(f"confirm must be a Trial or a callable returning one, got {type(t).__name__}")
    if not t.ok:
        raise CheckError(f"the {what} is not confirmed by the independent reference (isomat's construction and the "
                         f"reference disagree, so it says nothing about the paper): reference "
                         f"{jsonable(t.counterexample)!r}; {jsonable(t.evidence)!r}"[:2000])
    return _trial_evidence(t)


def confirmation_problem(paper: str, o: Outcome) -> str | None:
    """What is missing for outcome ``o`` of a claim of ``paper`` to blame the paper (None: nothing):
    for the papers of :data:`CONFIRMED_PAPERS` (and the sources given to :func:`require_confirmation`), a
    headline with a verdict of :data:`CONFIRMED_VERDICTS` needs ``independent_reference`` evidence that
    passed; any ``refuted``, ``misprint`` or ``inconsistent`` headline that carries one, of any source,
    needs it to have passed. The evidence comes from ``confirm=`` of :func:`decide` or
    :func:`compare_printed`, or ``from_printed=True`` / ``recomputed_by=`` of the latter."""
    if o.verdict not in _BLAMING:
        return None
    ref = o.evidence.get("independent_reference")
    if isinstance(ref, Mapping) and ref.get("ok") is True:
        return None
    held = paper in CONFIRMED_PAPERS or paper in _CONFIRMED_SOURCES
    if ref is None and (not held or o.verdict not in CONFIRMED_VERDICTS):
        return None
    if ref is None:
        return (f"a {o.verdict} verdict blames the paper only when an independent reference (direct loops from the "
                f"definition, no code shared with isomat's builders) or the paper's printed numbers confirm it, and "
                f"this one has none: the outcome's evidence has no 'independent_reference' (give decide/"
                f"compare_printed confirm=, or compare_printed from_printed=True / recomputed_by=)")
    return (f"a {o.verdict} verdict blames the paper only when an independent reference confirms it: its "
            f"'independent_reference' did not pass, got {ref!r}")


def _raise_if_failed(key: str, t: Trial) -> None:
    if not t.ok:
        raise CheckError(f"the check {key!r} fails (isomat's construction disagrees with its reference): "
                         f"{jsonable(t.counterexample)!r}; {jsonable(t.evidence)!r}"[:2000])


def require(**checks: Trial | BuilderCheck) -> dict[str, Any]:
    """Binding checks settled *before* the proofs that follow them: a failing one ends the claim at once
    (the same :class:`~isomat.errors.CheckError` that :func:`decide` would raise for it), so a broken
    construction costs the check, not the proofs' whole resource budget. Returns the checks, to be passed
    on to :func:`decide` as keywords (where they are recorded)."""
    for key, t in checks.items():
        if not isinstance(t, (Trial, BuilderCheck)):
            raise TypeError(f"require takes Trials (or builder checks), got {type(t).__name__} for {key!r}")
        _raise_if_failed(key, t.trial if isinstance(t, BuilderCheck) else t)
    return checks


def decide(printed: Trial, *, correction: tuple[str, Trial] | None = None, confirm: Any = None,
           **evidence: Any) -> Outcome:
    """Verdict from the printed statement's trial and, optionally, a stated correction's trial.

    A correction is verified even when the printed statement holds, so a wrong correction is
    caught; it only enters the record when the printed statement fails. Every other
    :class:`Trial` given as a keyword is a binding check (see :func:`_binding`): its failure is a
    :class:`~isomat.errors.CheckError`, never a note beside the verdict.

    A keyword made with :func:`builder_check` is a binding check of an isomat builder: when that
    builder is not derived from the proved rule, the headline strength is the weakest of the
    deciding trial's and the check's (see :func:`builder_check`).

    ``confirm`` is the independent reference of a failure: a :class:`Trial`, or a callable that
    takes the printed statement's counterexample and returns a Trial recomputing it with direct
    loops from the definition (sharing no code with isomat's builders) -- passing when the reference
    confirms that the statement fails there. It is used only when the printed statement fails; its
    evidence is recorded as ``independent_reference``, and when it does not confirm the failure the
    claim is an error (isomat's defect is never the paper's). For :data:`CONFIRMED_PAPERS` a
    ``refuted`` verdict without it is an error (:func:`run_claim`).
    """
    ev: dict[str, Any] = {"printed": _trial_evidence(printed), **_binding(evidence)}
    caps = _builder_caps(evidence)
    if correction is not None:
        text, trial = correction
        ev["corrected"] = _trial_evidence(trial)
        if not trial.ok:
            raise CheckError(f"the stated correction does not verify: {text!r}; counterexample {trial.counterexample!r}")
    if printed.ok:
        return Outcome("holds", ev, strength=weakest(printed.strength, *caps))
    if confirm is not None:
        ev["independent_reference"] = _confirmed(printed.counterexample, confirm, "printed statement's counterexample")
    if correction is not None:
        # the printed statement is settled by its counterexample; the verdict's strength is
        # that of the evidence for the correction
        return Outcome("holds-corrected", ev, counterexample=printed.counterexample, correction=correction[0],
                       strength=weakest(correction[1].strength, *caps))
    return Outcome("refuted", ev, counterexample=printed.counterexample)


def _same(a: Any, b: Any, rel_tol: float) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, rel_tol) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if rel_tol == 0:
        return sympy.nsimplify(a) == sympy.nsimplify(b) if not isinstance(a, (int, Fraction)) or not isinstance(b, (int, Fraction)) else a == b
    return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=0.0)


def compare_printed(
    printed: Mapping[str, Any],
    recomputed: Mapping[str, Any],
    *,
    kind: str = "misprint",
    rel_tol: float = 0.0,
    method: str = "recompute",
    witness: Trial | None = None,
    correction: tuple[str, Trial] | None = None,
    confirm: Any = None,
    from_printed: bool = False,
    recomputed_by: str | None = None,
    **evidence: Any,
) -> Outcome:
    """Compare printed values with values recomputed from the paper's own definitions.

    Every key of ``printed`` is compared with the same key of ``recomputed``; each mismatch
    becomes a discrepancy ``{"where", "printed", "correct"}``. ``kind`` is the verdict when
    anything mismatches: ``misprint`` (printed value vs definition) or ``inconsistent``
    (the paper's numbers vs each other). ``rel_tol`` 0 means exact comparison; a printed
    number rounded to k digits is compared with its stated rounding.

    ``witness`` is a trial of the printed form against an independent reference; when it fails,
    its computed counterexample becomes the outcome's (checked against the claim's hypotheses
    like any other). ``correction`` is ``(text, trial)``: the consistent form, recorded only when
    its trial verifies (else :class:`~isomat.errors.CheckError`) -- never typed in after the fact.

    When anything mismatches, the discrepancies blame the paper only if they are confirmed
    (``independent_reference`` evidence; required for :data:`CONFIRMED_PAPERS`): ``confirm`` is a
    :class:`Trial`, or a callable taking the list of discrepancies and returning one that recomputes
    their correct values with a reference sharing no code with isomat's builders (a failure of it is
    a :class:`~isomat.errors.CheckError`); ``from_printed=True`` says instead that ``recomputed``
    holds the paper's own printed numbers or arithmetic on them alone, so no builder of isomat's is
    involved (recorded as such; the claim's code is where a reader checks it); ``recomputed_by`` names
    the references that computed ``recomputed`` when they are themselves independent of isomat's
    builders (naive Kronecker formulas, direct loops, torch), recorded the same way. Builder checks made
    with :func:`builder_check` cap a ``holds`` verdict's strength as in :func:`decide`.
    """
    if kind not in ("misprint", "inconsistent"):
        raise ValueError(f"kind must be 'misprint' or 'inconsistent', got {kind!r}")
    caps = _builder_caps(evidence)
    evidence = _binding(evidence)
    if witness is not None:
        evidence = {**evidence, "printed_vs_reference": _trial_evidence(witness)}
    if correction is not None:
        text, trial = correction
        evidence = {**evidence, "corrected": _trial_evidence(trial)}
        if not trial.ok:
            raise CheckError(f"the stated correction does not verify: {text!r}; counterexample {trial.counterexample!r}")
    missing = [k for k in printed if k not in recomputed]
    if missing:
        raise CheckError(f"no recomputed value for printed entries {missing}")
    discrepancies = [
        {"where": k, "printed": jsonable(printed[k]), "correct": jsonable(recomputed[k])}
        for k in printed
        if not _same(printed[k], recomputed[k], rel_tol)
    ]
    ev = {"method": method, "entries_compared": len(printed), "rel_tol": rel_tol, **evidence}
    if discrepancies:
        if confirm is not None:
            ev["independent_reference"] = _confirmed(discrepancies, confirm, "discrepancies' correct values")
        elif from_printed:
            ev["independent_reference"] = {"method": "recompute", "ok": True, "reference": FROM_PRINTED}
        elif recomputed_by is not None:
            if not (isinstance(recomputed_by, str) and recomputed_by.strip()):
                raise TypeError(f"recomputed_by names the independent references, got {recomputed_by!r}")
            ev["independent_reference"] = {"method": "recompute", "ok": True,
                                           "reference": f"recomputed by {recomputed_by.strip()}, no isomat builder"}
        cx = witness.counterexample if witness is not None and not witness.ok else None
        return Outcome(kind, ev, discrepancies=discrepancies, counterexample=cx,
                       correction=correction[0] if correction is not None else None)
    return Outcome("holds", ev, strength=weakest("recompute", *caps))


def not_checkable(reason: str, **evidence: Any) -> Outcome:
    """For statements that need data, training or hardware the project does not have."""
    return Outcome("not-checkable", {"reason": reason, **_binding(evidence)})


#: Verdicts from the most to the least favourable to the paper. The headline of a claim with
#: several readings is its most favourable reading among those its text supports.
FAVOURABLE = ("holds", "holds-corrected", "misprint", "inconsistent", "refuted", "not-checkable")


@dataclass
class Reading:
    """One way of reading a printed statement, with its own statement and computed outcome.

    ``supported`` says whether the paper's text (its proof, appendix, conventions) supports the
    reading; only supported readings can give the headline verdict. A reading the text does not
    support is still recorded (a reader may hold it), but never makes the paper look better.
    """

    name: str
    statement: str
    outcome: Outcome
    supported: bool = True

    def record(self) -> dict[str, Any]:
        o = self.outcome
        rec: dict[str, Any] = {"reading": self.name, "statement": self.statement.strip(), "verdict": o.verdict,
                               "strength": o.strength, "supported": self.supported, "evidence": jsonable(o.evidence)}
        if o.counterexample is not None:
            rec["counterexample"] = jsonable(o.counterexample)
        if o.correction is not None:
            rec["correction"] = o.correction
        if o.discrepancies:
            rec["discrepancies"] = jsonable(o.discrepancies)
        return rec


def by_readings(*readings: Reading) -> Outcome:
    """The outcome of a claim read several ways: the headline is the most favourable supported
    reading (ties go to the first given); every reading's record is kept in ``readings``."""
    if len(readings) < 2:
        raise ValueError("by_readings needs at least two readings; a single reading is just its outcome")
    names = [r.name for r in readings]
    if len(set(names)) != len(names):
        raise ValueError(f"reading names must be distinct, got {names}")
    for r in readings:
        if not isinstance(r.outcome, Outcome):
            raise CheckError(f"reading {r.name!r} has no Outcome")
        if r.outcome.readings:
            raise CheckError(f"reading {r.name!r} has readings of its own")
    supported = [r for r in readings if r.supported]
    if not supported:
        raise CheckError("no reading is supported by the text; at least one must be")
    head = min(supported, key=lambda r: FAVOURABLE.index(r.outcome.verdict))
    o = head.outcome
    records = [dict(r.record(), headline=r is head) for r in readings]
    return Outcome(o.verdict, dict(o.evidence, headline_reading=head.name), o.counterexample, o.correction,
                   o.discrepancies, o.strength, records)


def printed_checks(checks: Mapping[str, Any], *, kind: str = "inconsistent", **evidence: Any) -> Outcome:
    """The outcome of a results statement checked against the paper's own printed numbers, one comparison at a time.

    Each entry of ``checks`` is one comparison the statement asserts, in words ("CIFAR-10: sparse accuracy within
    10% of the original"), mapped to whether the printed numbers satisfy it -- a ``bool`` computed from the
    transcribed tables by exact arithmetic (a threshold the ledger chooses is named in the words and in
    ``evidence``). The statement asserts every one, so it is :func:`compare_printed` of ``{words: True}`` against
    the computed values: ``holds`` when all are satisfied, else ``kind`` (``inconsistent``: the paper's text
    against its own numbers) with each unsatisfied comparison a discrepancy. The computed values are arithmetic on
    the paper's printed numbers alone (``from_printed``: no isomat builder is involved). ``evidence`` is recorded
    beside it (the margins, the thresholds, the rows compared).

    Every results claim of the ledger decides its readings through this helper and :func:`threshold_reading`
    (issue 41, item 3: one place for the ``compare_printed`` -> ``by_readings`` pattern).
    """
    if not isinstance(checks, Mapping) or not checks:
        raise ValueError(f"checks must be a non-empty mapping of comparisons to bools, got {checks!r}")
    np = sys.modules.get("numpy")  # (no NumPy bool exists before NumPy is imported)
    bad = {k: v for k, v in checks.items() if not (isinstance(v, bool) or (np is not None and isinstance(v, np.bool_)))}
    if bad:
        raise TypeError(f"each check is a bool computed from the printed numbers, got {jsonable(bad)!r}")
    return compare_printed({str(k): True for k in checks}, {str(k): bool(v) for k, v in checks.items()}, kind=kind,
                           from_printed=True, **evidence)


def threshold_reading(name: str, statement: str, checks: Mapping[str, Any] | Outcome, *, supported: bool = True,
                      **evidence: Any) -> Reading:
    """One reading of a results statement (see :func:`printed_checks`): its name, what it reads the statement as,
    and the comparisons that reading asserts (or an :class:`Outcome` already decided, a not-checkable part, say).
    ``supported=False`` records a reading the text does not support (it never gives the headline); give the
    readings to :func:`by_readings`."""
    outcome = checks if isinstance(checks, Outcome) else printed_checks(checks, **evidence)
    if isinstance(checks, Outcome) and evidence:
        raise TypeError("evidence goes with the checks, not with an outcome already decided")
    return Reading(name, statement, outcome, supported)


# ---------------------------------------------------------------------------------------------
# Claims and the registry
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hypotheses:
    """What the paper assumes for a claim, as text and as a predicate on a counterexample's
    ``case`` (in its JSON form: tuples become lists). A counterexample that fails the predicate
    does not refute the paper: the engine turns it into a :class:`~isomat.errors.CheckError`."""

    text: str
    holds_for: Callable[[Any], bool] = field(repr=False)


@dataclass(frozen=True)
class Claim:
    id: str
    quote: str
    statement: str
    methods: tuple[str, ...]
    check: Callable[[], Outcome] = field(repr=False)
    hypotheses: Hypotheses | None = None

    @property
    def paper(self) -> str:
        return self.id.split(":", 1)[0]

    @property
    def label(self) -> str:
        return self.id.split(":", 1)[1].split("/", 1)[0]

    @property
    def beyond(self) -> bool:
        """A result isomat finds that the paper does not state (id ``<paper>:beyond/<part>``):
        shown apart from the paper's claims and not counted in its tally."""
        return self.label == "beyond"


REGISTRY: dict[str, Claim] = {}


def claim(
    id: str,
    *,
    quote: str,
    statement: str,
    methods: Sequence[str],
    hypotheses: tuple[str, Callable[[Any], bool]] | Hypotheses | None = None,
) -> Callable[[Callable[[], Outcome]], Callable[[], Outcome]]:
    """Register the decorated function as the check of claim ``id``.

    ``id`` is ``<source>:<label>[/<part>]``: the source is a key of letters and a four-digit year,
    one of the five papers (:data:`PAPERS`) or your own (``mylab2026:eq3``); lowercase, no spaces.
    ``hypotheses`` is ``(text, predicate)``: what the source assumes for the claim, and a
    predicate that every counterexample's ``case`` must satisfy (checked by :func:`run_claim`).
    One check function serves one claim: registering it for a second claim is an error (two
    claims never share a run). Declaring an id again with a function of the same module and
    name -- a notebook cell run twice, a claims file loaded again -- replaces the claim; any
    other second declaration of an id is an error.
    """
    if hypotheses is not None and not isinstance(hypotheses, Hypotheses):
        text, pred = hypotheses
        if not (isinstance(text, str) and text.strip() and callable(pred)):
            raise TypeError(f"claim {id!r}: hypotheses must be (text, predicate), got {hypotheses!r}")
        hypotheses = Hypotheses(text.strip(), pred)
    if not isinstance(id, str) or not _ID.match(id):
        raise ValueError(f"claim id {id!r} is not of the form <source>:<label>[/<part>] with a source key of "
                         "letters and a four-digit year (e.g. 'mylab2026:eq3', 'zhu2025:thm4.1/forward'), lowercase, "
                         "no spaces")
    for name, text in (("quote", quote), ("statement", statement)):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"claim {id!r}: {name} must be a non-empty string, got {text!r}")
    if isinstance(methods, str):
        raise TypeError(f"claim {id!r}: methods must be a list of method names, got the string {methods!r}")
    bad = [x for x in methods if x not in METHODS]
    if bad or not methods:
        raise ValueError(f"claim {id!r}: methods must be a non-empty subset of {METHODS}, got {list(methods)}")

    def register(fn: Callable[[], Outcome]) -> Callable[[], Outcome]:
        if not callable(fn):
            raise TypeError(f"claim {id!r}: @claim decorates the check function, got {type(fn).__name__}")
        old = REGISTRY.get(id)
        if old is not None:
            same_definition = (getattr(old.check, "__module__", None), getattr(old.check, "__qualname__", None)) == (
                getattr(fn, "__module__", None), getattr(fn, "__qualname__", None))
            if not same_definition:
                raise ValueError(f"claim {id!r} is declared twice")
            del REGISTRY[id]  # the same definition run again: it replaces the old one
        shared = [c.id for c in REGISTRY.values() if c.check is fn]
        if shared:
            raise ValueError(f"claim {id!r} reuses the check of {shared[0]!r}: two claims never share one check run")
        REGISTRY[id] = Claim(id, quote.strip(), statement.strip(), tuple(methods), fn, hypotheses)
        return fn

    return register


#: at most this many characters of what a check writes (stdout and stderr) are kept in its record
OUTPUT_LIMIT = 4000


def capped_output(text: str) -> str:
    """``text`` cut to :data:`OUTPUT_LIMIT` characters, saying how much was dropped."""
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n[... {len(text) - OUTPUT_LIMIT} more characters not kept]"


class _Captured:
    """A text stream keeping the first :data:`OUTPUT_LIMIT` characters written to it (and counting the rest)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def write(self, text: Any) -> int:
        text = text if isinstance(text, str) else str(text)
        room = OUTPUT_LIMIT - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        out = "".join(self.parts)
        return out + (f"\n[... {self.dropped} more characters not kept]" if self.dropped else "")


_SIGINTS = [0]  # real SIGINTs (and SIGTERMs: note_real_signal) received while a check ran in this process


def _count_sigint(signum: int, frame: Any) -> None:
    _SIGINTS[0] += 1
    raise KeyboardInterrupt


def note_real_signal() -> None:
    """Called by a signal handler that ends the run by raising (the CLI's SIGTERM): the exception it
    raises while a check runs is the run's end, not the check's error."""
    _SIGINTS[0] += 1


@contextlib.contextmanager
def _telling_real_interrupts() -> Iterator[bool]:
    """While a check runs: count real SIGINTs, so a KeyboardInterrupt the check raises itself is its
    error while Ctrl-C still ends the run. Yields whether a KeyboardInterrupt can be told apart (this
    process ignores SIGINT, as a worker does, or the handler here counts it)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    current = signal.getsignal(signal.SIGINT)
    if current is signal.SIG_IGN:
        yield True
        return
    if current is not signal.default_int_handler:
        yield False
        return
    signal.signal(signal.SIGINT, _count_sigint)
    try:
        yield True
    finally:
        signal.signal(signal.SIGINT, current)


def error_record(c: Claim, error: str, seconds: float = 0.0, output: str | None = None,
                 traceback: str | None = None) -> dict[str, Any]:
    """The record of claim ``c`` whose check gave no verdict: ``error`` says why; ``traceback``, for an
    exception the check raised, where (:func:`isomat.proofs._traceback.check_traceback`)."""
    record = _record_head(c)
    record.update(verdict="error", strength=None, evidence={}, error=error)
    if traceback:
        record["traceback"] = capped_output(traceback)
    if output:
        record["output"] = capped_output(output)
    record["seconds"] = round(max(seconds, 0.0), 4)
    return record


def _record_head(c: Claim) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": c.id,
        "paper": c.paper,
        "label": c.label,
        "quote": c.quote,
        "statement": c.statement,
        "methods": list(c.methods),
    }
    if c.beyond:
        record["beyond"] = True
    if c.hypotheses is not None:
        record["hypotheses"] = c.hypotheses.text
    return record


def _describe(exc: BaseException) -> str:
    """``Type: message`` of an exception, even one whose own ``str`` raises."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001
        text = "(its message cannot be shown)"
    return f"{type(exc).__name__}: {text}"


def run_claim(c: Claim) -> dict[str, Any]:
    """Run one claim's check and return its ledger record (conventions.md schema).

    Whatever the check does, the result is a record: an exception (``SystemExit`` and a
    ``KeyboardInterrupt`` the check raises itself included; a real Ctrl-C still ends the run), an
    invalid or edited outcome, or evidence that cannot be written as JSON is an error record.
    What the check writes to ``sys.stdout``/``sys.stderr`` is kept in ``output``."""
    import json

    t0 = time.perf_counter()
    captured = _Captured()
    sigints = _SIGINTS[0]
    where: str | None = None  # the traceback of an exception the check raised
    try:
        with _telling_real_interrupts() as tellable:
            try:
                with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):  # type: ignore[type-var]
                    with _recheck.claim_context(c.id):  # names the claim's exported SMT-LIB obligations
                        try:
                            outcome = c.check()
                        except BaseException as exc:
                            with contextlib.suppress(Exception):  # a traceback that cannot be written is left out
                                from ._traceback import check_traceback

                                where = check_traceback(exc, c.check)
                            raise
            except KeyboardInterrupt as exc:
                if not tellable or _SIGINTS[0] != sigints:
                    raise  # Ctrl-C: the run ends
                raise CheckError(f"the check raised {_describe(exc)}") from None
            except SystemExit as exc:
                raise CheckError(f"the check raised SystemExit({exc.code!r})") from None
            except Exception:
                raise
            except BaseException as exc:  # GeneratorExit, a class of the check's own: its error, unless a real signal
                if _SIGINTS[0] != sigints:
                    raise
                raise CheckError(f"the check raised {_describe(exc)}") from None
        if not isinstance(outcome, Outcome):
            raise CheckError(f"check of {c.id} returned {type(outcome).__name__}, not an Outcome")
        problem = _outcome_problem(outcome) or confirmation_problem(c.paper, outcome)
        if problem is not None:
            raise CheckError(f"invalid outcome: {problem}")
        _check_hypotheses(c, outcome)
        record = _record_of(c, outcome, t0)
        json.dumps(record, allow_nan=False)  # the record is JSON as it stands
    except Exception as exc:  # a check that raises is reported, never turned into a verdict
        record = error_record(c, _describe(exc), time.perf_counter() - t0, traceback=where)
    except BaseException as exc:  # from the check's objects (a __str__, a hypotheses predicate): its error
        if isinstance(exc, KeyboardInterrupt) or _SIGINTS[0] != sigints:
            raise  # Ctrl-C, or a signal that ends the run
        record = error_record(c, _describe(exc), time.perf_counter() - t0, traceback=where)
    out = captured.text()
    if out:
        record["output"] = out
    return record


def _record_of(c: Claim, outcome: Outcome, t0: float) -> dict[str, Any]:
    record = _record_head(c)
    evidence = jsonable(outcome.evidence)
    readings = jsonable(list(outcome.readings)) if outcome.readings else None
    failed = _failed_notes(evidence) + [p for r in readings or [] for p in _failed_notes(r.get("evidence", {}),
                                                                                        f"reading {r['reading']!r}")]
    if failed:
        record.update(verdict="error", strength=None, evidence=evidence,
                      error=f"CheckError: a failed check is recorded beside the verdict instead of deciding it: "
                            f"{', '.join(failed[:5])}")
        record["seconds"] = round(time.perf_counter() - t0, 4)
        return record
    record["verdict"] = outcome.verdict
    record["strength"] = outcome.strength
    record["evidence"] = evidence
    if outcome.counterexample is not None:
        record["counterexample"] = jsonable(outcome.counterexample)
    if outcome.correction is not None:
        record["correction"] = outcome.correction
    if outcome.discrepancies:
        record["discrepancies"] = jsonable(list(outcome.discrepancies))
    if readings:
        record["readings"] = readings
    record["seconds"] = round(time.perf_counter() - t0, 4)
    return in_order(derive_fields(record))


#: the keys of a record in the order they are written (the head, the verdict, ..., seconds last)
RECORD_ORDER = ("id", "paper", "label", "quote", "statement", "methods", "beyond", "hypotheses", "verdict", "strength",
                "evidence", "error", "traceback", "sizes", "sizes_undeclared", "obligations", "same_proof_as", "second_solver",
                "counterexample", "correction", "discrepancies", "readings", "seconds", "output")


def in_order(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its keys in :data:`RECORD_ORDER` (any other key after them, as it came)."""
    return {**{k: record[k] for k in RECORD_ORDER if k in record}, **{k: v for k, v in record.items() if k not in RECORD_ORDER}}


def _methods_in(evidence: Any) -> set[str]:
    """The methods of every trial and comparison recorded in ``evidence`` (its ``method`` keys)."""
    found: set[str] = set()
    if isinstance(evidence, Mapping):
        if evidence.get("method") in METHODS:
            found.add(evidence["method"])
        for v in evidence.values():
            found |= _methods_in(v)
    elif isinstance(evidence, list):
        for v in evidence:
            found |= _methods_in(v)
    return found


def _undeclared_sizes(evidence: Any) -> list[str]:
    """The ``for_all`` of every proof in ``evidence`` made by a ``prove()`` that was not told its sizes (outside the
    lemmas a proof used: a lemma is no part of the claim's own quantification)."""
    found: list[str] = []
    if isinstance(evidence, Mapping):
        if evidence.get("sizes_declared") is False and evidence.get("for_all"):
            found.append(str(evidence["for_all"]))
        for k, v in evidence.items():
            if k != "lemmas":
                found += _undeclared_sizes(v)
    elif isinstance(evidence, list):
        for v in evidence:
            found += _undeclared_sizes(v)
    return list(dict.fromkeys(found))


def derive_fields(record: dict[str, Any]) -> dict[str, Any]:
    """Set the fields of a record that are computed from its evidence, never typed (issue 38 item 5), in place:

    * ``methods``: the methods of the trials and comparisons its evidence (and its readings') records, in
      :data:`METHODS` order -- a Z3 or SymPy proof is ``symbolic`` -- or, for a record with no trial (not-checkable),
      the methods the claim declares;
    * for a ``proved`` record, from its deciding evidence (the correction's for ``holds-corrected``): ``sizes``,
      ``obligations``, ``second_solver`` and -- when a proof in it came from a ``prove()`` not told its sizes --
      ``sizes_undeclared`` (the ``for_all`` of each such proof: its empty ``sizes`` is not a size-free identity).

    The runner derives them again from a worker's evidence (:func:`isomat.proofs._runner.record_from_worker`)."""
    evidence = record.get("evidence") or {}
    found = _methods_in(evidence) | {m for r in record.get("readings") or [] for m in _methods_in(r.get("evidence", {}))}
    if found:
        record["methods"] = [m for m in METHODS if m in found]
    for key in ("sizes", "obligations", "second_solver", "sizes_undeclared"):
        record.pop(key, None)
    if record.get("strength") == "proved":
        deciding = evidence.get("corrected" if record.get("verdict") == "holds-corrected" else "printed", evidence)
        record["sizes"] = list(deciding.get("sizes", [])) if isinstance(deciding, Mapping) else []
        undeclared = _undeclared_sizes(deciding)
        if undeclared:
            record["sizes_undeclared"] = undeclared
        record["obligations"] = sorted(set(_obligations(deciding)))
        rechecked = second_solver(deciding)
        if rechecked is not None:
            record["second_solver"] = rechecked
    return record


#: evidence keys beginning so hold the printed statement's own trials, which may fail (that is the
#: verdict): ``printed``, ``printed_vs_reference``, ``printed_where_defined``, ...
_STATEMENT_PREFIX = "printed"


def _failed_notes(evidence: Any, where: str = "evidence") -> list[str]:
    """Paths of failed trials (``"ok": false``) in ``evidence`` outside the printed statement's own
    trial: a cross-check that disagrees must decide the verdict (as a binding check does), so a
    record that merely notes one is an error."""
    found: list[str] = []

    def walk(x: Any, path: str) -> None:
        if isinstance(x, Mapping):
            if x.get("ok") is False:
                found.append(path)
                return
            for k, v in x.items():
                if path == where and str(k).startswith(_STATEMENT_PREFIX):
                    continue
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")

    walk(evidence, where)
    return found


def _obligations(evidence: Any) -> list[str]:
    """The digests of every proof obligation discharged in ``evidence``."""
    out: list[str] = []
    if isinstance(evidence, Mapping):
        if isinstance(evidence.get("obligation"), str) and evidence.get("for_all"):
            out.append(evidence["obligation"])
        for v in evidence.values():
            out += _obligations(v)
    elif isinstance(evidence, list):
        for v in evidence:
            out += _obligations(v)
    return out


def second_solver(evidence: Any) -> dict[str, Any] | None:
    """How many of the Z3 obligations in ``evidence`` (the proofs and the lemmas they used, each
    listing its ``solvers``) cvc5 confirmed: ``{"obligations": n, "confirmed": k, "single_solver":
    [reasons]}``, or None when the evidence holds no Z3 proof (a SymPy identity)."""
    found: list[Mapping[str, Any]] = []

    def walk(x: Any) -> None:
        if isinstance(x, Mapping):
            if isinstance(x.get("solvers"), list):
                found.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(evidence)
    if not found:
        return None
    confirmed = sum(1 for x in found if any(s.get("name") == "cvc5" and s.get("result") == "unsat"
                                            for s in x["solvers"]))
    reasons = list(dict.fromkeys(str(x["single_solver"]) for x in found if x.get("single_solver")))
    return {"obligations": len(found), "confirmed": confirmed, "single_solver": reasons}


#: every proved claim of the five papers with the digests of its obligations, in ledger order, as the last whole
#: ledger computed them (written with the expected verdicts by ``benchmarks/_write_expected.py``)
OBLIGATIONS_FILE = Path(__file__).with_name("expected") / "obligations.json"


@functools.lru_cache(maxsize=1)
def _ledger_obligations() -> tuple[tuple[str, frozenset[str]], ...]:
    import json

    if not OBLIGATIONS_FILE.exists():
        return ()
    data = json.loads(OBLIGATIONS_FILE.read_text())
    return tuple((str(cid), frozenset(map(str, obl))) for cid, obl in data.items())


def ledger_obligations() -> dict[str, list[str]]:
    """``{claim id: obligation digests}`` of every proved claim of the whole ledger, in ledger order (see
    :data:`OBLIGATIONS_FILE`)."""
    return {cid: sorted(obl) for cid, obl in _ledger_obligations()}


def _is_beyond(cid: str) -> bool:
    return cid.split(":", 1)[-1].split("/", 1)[0] == "beyond"


def same_proofs(records: list[dict[str, Any]], ledger: Mapping[str, Sequence[str]] | None = None) -> None:
    """Mark each proved record whose obligations are all discharged inside another proved claim's proof with
    ``same_proof_as`` (that claim's id): it is counted once. The other claims are those of the whole ledger --
    the records given and, for every claim of the ledger not among them, its obligations as the whole ledger
    computed them (``ledger``; default :func:`ledger_obligations`) -- so a record is the same whichever claims
    ran with it. Among claims with the same obligations the first in ledger order is counted (claims outside
    the ledger, a user's, come after it in the order given); a record whose obligations are a strict subset of
    another's names the larger one (the first such in ledger order)."""
    ledger = ledger_obligations() if ledger is None else ledger
    position = {cid: i for i, cid in enumerate(ledger)}
    given = {r["id"] for r in records}
    pool: list[tuple[int, str, frozenset[str]]] = [(position[cid], cid, frozenset(obl)) for cid, obl in ledger.items()
                                                   if cid not in given and obl]
    proved = [r for r in records if r.get("strength") == "proved" and r.get("obligations")]
    mark = {id(r) for r in proved}
    for i, r in enumerate(records):
        if id(r) in mark:
            pool.append((position.get(r["id"], len(position) + i), r["id"], frozenset(r["obligations"])))
    pool.sort(key=lambda x: x[0])
    for r in proved:
        r.pop("same_proof_as", None)
        mine = frozenset(r["obligations"])
        me = next(p for p, cid, _ in pool if cid == r["id"])
        for p, other, theirs in pool:
            # a paper's claim is counted in its tally unless another of the papers' claims proves it:
            # a result beyond the papers (not in any tally) does not absorb it
            if other == r["id"] or (_is_beyond(other) and not r.get("beyond")):
                continue
            if mine < theirs or (mine == theirs and p < me):
                r["same_proof_as"] = other
                break


def _check_hypotheses(c: Claim, outcome: Outcome) -> None:
    """Every counterexample (the headline's and each reading's) satisfies the claim's hypotheses."""
    if c.hypotheses is None:
        return
    found = [("headline", outcome.counterexample)]
    found += [(f"reading {r['reading']!r}", r.get("counterexample")) for r in outcome.readings or []]
    for where, cx in found:
        if isinstance(cx, Mapping) and "case" in cx:
            case = jsonable(cx["case"])
            if not c.hypotheses.holds_for(case):
                raise CheckError(f"{c.id}: the {where} counterexample {case!r} violates the claim's hypotheses "
                                 f"({c.hypotheses.text})")


__all__ = [
    "CONFIRMED_PAPERS", "CONFIRMED_VERDICTS", "DERIVED", "FROM_PRINTED", "BuilderCheck", "builder_check", "builder_note",
    "confirmation_problem", "require_confirmation",
    "DOMAINS", "FAVOURABLE", "METHODS", "OUTPUT_LIMIT", "PAPERS", "REGISTRY", "STRENGTHS", "VERDICTS",
    "Claim", "FrozenEvidence", "Hypotheses", "Outcome", "Reading", "Trial",
    "all_of", "by_readings", "capped_output", "claim", "compare_printed", "decide", "error_record", "exact_equal",
    "exhaustive", "exists",
    "float_backend", "holds_memory_bound", "refuses", "jsonable", "not_checkable", "numeric_close", "property_search", "require", "run_claim", "same_proofs",
    "second_solver", "symbolic_zero", "using_float_backend", "weakest", "derive_fields", "in_order", "RECORD_ORDER",
    "ledger_obligations", "OBLIGATIONS_FILE", "printed_checks", "threshold_reading",
]


def load_file(source: str | Path) -> list[Claim]:
    """Import a file (``claims.py``) or an importable module name (``mylab.claims``) that
    declares claims, and return the claims it declared, in order.

    Loading the same file again replaces its claims (it is the same definitions run again). Defined
    here, beside :data:`REGISTRY`, so that the worker processes (:mod:`isomat.proofs._runner`) load
    claims files without importing the package that starts them (issue 41: the two imported each
    other); :mod:`isomat.proofs` re-exports it."""
    path = Path(source)
    before = dict(REGISTRY)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise ValueError(f"claims file {str(source)!r} does not exist (expected a .py file or an importable module name)")
        path = path.resolve()
        # named by the file's stem: loading a file of that name again is the same definitions again
        name = "isomat_user_claims_" + "".join(ch if ch.isalnum() else "_" for ch in path.stem)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"claims file {str(source)!r} cannot be imported as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    else:
        try:
            module = importlib.import_module(str(source))
        except ModuleNotFoundError as exc:
            raise ValueError(f"claims source {str(source)!r} is neither a file nor an importable module ({exc})") from None
    mine = [c for cid, c in REGISTRY.items() if before.get(cid) is not c]
    if not mine:
        raise ValueError(f"claims source {str(source)!r} declares no claim (use @isomat.proofs.engine.claim)")
    return mine
