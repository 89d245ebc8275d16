r"""Proofs for every size: index identities with symbolic dimensions, discharged by Z3.

A structured matrix is an *entry rule*: integer index maps built from sizes, strides, paddings,
``div`` and ``mod``. An identity about such matrices -- "row ``r`` of :math:`S_p \otimes S_q`
has its 1 at column ``c``", "the flattened index ``q n + r`` has digits ``q`` and ``r``" -- is a
first-order statement about integers, and this module proves it **for every size** with the Z3
SMT solver, or returns a minimal counterexample, or says ``unknown``.

.. code-block:: python

    >>> from isomat.proofs.prover import ints, prove, fdiv, fmod
    >>> H, W, i = ints("H W i")
    >>> p = prove(fdiv(i, W) * W + fmod(i, W) == i,            # row-major digits recompose
    ...           assuming=[H >= 1, W >= 1, 0 <= i, i < H * W],
    ...           for_all="H, W >= 1 and 0 <= i < H*W")
    >>> p.status
    'proved'

Nothing is trusted silently:

* a goal is *proved* only when Z3 finds its negation unsatisfiable together with the stated
  hypotheses, the named :class:`Lemma` objects and the named :class:`Axiom` objects -- the
  record lists every lemma and axiom that the proof's unsat core used;
* a :class:`Lemma` is itself proved when it is made (by :func:`lemma`, from the lemmas and
  axioms it names, or by :func:`induction`), so a proof rests only on lemmas that are proved
  and axioms listed by name;
* a timeout or ``unknown`` is never a proof: :attr:`Proof.status` is ``"unknown"`` and
  :meth:`Proof.trial` refuses to make a passing trial of it;
* proofs are deterministic: each runs in a fresh Z3 context (so nothing that ran before can
  change the search), with Z3's ``UFNIA`` solver (no time-based strategy switch), a fixed seed
  and a *resource* limit (``rlimit``, Z3's deterministic count of work) rather than a clock, so
  a proof that goes through goes through on any machine and under any load; a wall-clock limit
  stays as a safety net only, and running into it raises :class:`~isomat.errors.ProofTimeout`
  (an error of the run, never weaker evidence);
* a proof is never vacuous: *every* premise -- the hypotheses, every axiom (quantified ones too),
  the axioms behind every lemma offered (transitively), and the antecedent of an implication goal
  -- is shown consistent by a model a solver finds, and the witness is recorded. Unsatisfiable
  premises make the status ``"vacuous"``, premises no model was found for ``"unknown"`` (with the
  reason), never ``"proved"``. Lemmas need no place in the model (each was proved from the axioms
  it rests on, so every model of those satisfies it), and axioms that define functions by
  well-founded recursion (disjoint clauses, calls only at a lower natural-number argument, both
  shown by Z3, about functions no other premise mentions) are consistent by construction: they
  are listed as ``definitions`` and only the rest needs a model (see :func:`_definitions`);
* the trusted core cannot be handed a proof: only :func:`lemma`/:func:`induction` make a
  :class:`Lemma`, only :meth:`Lemma.at` a :class:`LemmaInstance`, only :func:`prove` a
  :class:`Proof` (their constructors, and so ``dataclasses.replace``, refuse other callers;
  pickling refuses; ``copy`` gives the object itself), and :func:`prove` checks each lemma against
  its own record of what it proved (the very object, its statement, the axioms behind it), so one
  made with ``object.__new__`` or altered with ``object.__setattr__`` is a ``TypeError``; a
  ``proved`` :class:`~isomat.proofs.engine.Trial` needs a proof certified by its maker;
* a lemma is sound by construction: it may quantify only variables that occur free in none of the
  axioms and lemmas it rests on, nor in the axioms behind those lemmas -- constants of every sort
  (Int, Real, Bool, bit-vectors, uninterpreted sorts) -- (a quantifier over a variable an axiom
  pins down would generalize that axiom's special case), and every free variable of its body is
  either quantified or stays a parameter of the lemma;
* every obligation is re-checked by cvc5 (:mod:`isomat.proofs.smt`), which can disagree: its
  ``sat`` is an error naming the obligation; the record carries each obligation file's SHA-256,
  which ``python -m isomat.proofs.recheck`` checks exported files against;
* a proof records the sizes it quantifies (``sizes``: the symbolic dimensions, empty for a
  size-free identity), each of which must be a free unknown of the goal or its hypotheses.

Entry rules meant for both the prover and NumPy are written with :func:`fdiv`, :func:`fmod`,
:func:`ite`, :func:`both` and :func:`either`, which act on Python ints, NumPy arrays and Z3
terms alike, so the function that the builder's tests run is the function that is proved.

:func:`fdiv`/:func:`fmod` are floor division (NumPy's ``//`` and ``%``) for every sign. Z3's
integer ``div``/``mod`` are Euclidean and agree with floor division only for a positive divisor,
so a negative literal divisor is rewritten exactly, and :func:`prove` refuses (status
``"unknown"``, reason "refused: ...") a statement with a symbolic divisor it cannot show positive
from the hypotheses and the conditions guarding the term (see :mod:`isomat._types`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from .._types import both, either, fdiv, fmod, ite
from ..errors import CheckError, ProofTimeout
from . import engine as _engine
from ._terms import (_UNROLL, _candidate_model, _definitions, _free_consts, _free_ints, _guarded_subterms,
                     _has_quantifier, _integer_only, _is_unknown, _Model, _nonlinear_div_mod, _under, _unrolled)
from . import smt as recheck
from .engine import Trial

__all__ = [
    "Axiom", "Lemma", "Proof", "axiom", "both", "bools", "either", "fdiv", "fmod", "induction", "ints",
    "ite", "lemma", "prove", "set_recheck", "Z3_VERSION", "CVC5_VERSION",
    # the flattening lemma library
    "DIV_MOD_RECOMPOSE", "DIGITS_UNIQUE", "DIV_SHIFT", "FLATTEN_DIV_MOD", "FLAT_INDEX_RANGE", "NESTED_DIV", "NESTED_MOD",
    "LemmaInstance",
    "FLATTENING_LEMMAS",
]

Z3_VERSION = z3.get_version_string()
TOOL = f"z3 {Z3_VERSION}"
#: default work budget of one proof, in Z3 resource units (deterministic; about 2-4 s of solver
#: time on a 2-core machine). A proof that needs more is ``unknown``.
DEFAULT_RLIMIT = 60_000_000
#: wall-clock safety net of one solver call, seconds (the resource limit ends a call long before it
#: on any machine; running into it raises ProofTimeout -- it never turns a proof into weaker evidence)
DEFAULT_TIMEOUT_S = 300.0
_SEED = 0
#: cvc5's deterministic work budget for re-checking one obligation (see :mod:`isomat.proofs.smt`)
DEFAULT_CVC5_RLIMIT = recheck.DEFAULT_CVC5_RLIMIT
#: re-check every proved obligation with cvc5 (see :func:`set_recheck`; ``ISOMAT_RECHECK=0`` in the
#: environment turns it off in this process and the worker processes it spawns)
_RECHECK = [os.environ.get("ISOMAT_RECHECK", "1").strip().lower() not in ("0", "off", "false", "no")]
#: the lemma being proved (names its exported obligation when no claim is running)
_LEMMA: contextvars.ContextVar[str | None] = contextvars.ContextVar("isomat_lemma", default=None)


#: proofs already made in this process, by the exact request (see :func:`remember_proofs`); None: off
_MEMO: dict[str, tuple[tuple[Any, ...], "Proof"]] | None = None


def remember_proofs(enabled: bool) -> None:
    """Keep each proof this process makes and answer the very same request again with it (on in the
    ledger's workers: claims of one section prove the same steps -- reneau2025's Algorithm 1 and §2.2
    the same digit decodings -- and a claim's own repeated steps). A request is the same only with the
    same goal and hypotheses (as SMT-LIB text, declarations included), the same lemma and axiom objects
    offered, the same limits, sizes, wording and re-check setting; one with a candidate ``model`` is
    never kept. Off (the default elsewhere): every call proves."""
    global _MEMO
    _MEMO = {} if enabled else None


def _request_key(goal: z3.BoolRef, assuming: Sequence[z3.BoolRef], offered: Sequence[Any], axioms: Sequence[Any],
                 **settings: Any) -> str:
    import hashlib

    s = z3.Solver()
    for h in assuming:
        s.add(h)
    s.add(goal)
    # Z3 names its let-bound subterms by their term ids (?x3181, $x3237), which differ between two builds of one
    # goal: renamed in order of first appearance (a consistent renaming: the same statement, alpha-equivalent)
    names: dict[str, str] = {}
    text = re.sub(r"[?$]x\d+", lambda m: names.setdefault(m.group(0), f"{m.group(0)[0]}x{len(names)}"), s.to_smt2())
    parts = [text, repr(sorted(settings.items())), _LEMMA.get() or "", str(_RECHECK[0]),
             *(f"{type(x).__name__}:{getattr(x, 'name', '')}:{x.statement.sexpr()}" for x in (*offered, *axioms))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def set_recheck(enabled: bool) -> bool:
    """Turn the cvc5 re-check of proved obligations on (the default) or off; returns the previous
    setting. With it off every proof is marked single-solver (``"cvc5: not run"``)."""
    old = _RECHECK[0]
    _RECHECK[0] = bool(enabled)
    return old


@contextlib.contextmanager
def _setting(var: contextvars.ContextVar[Any], value: Any) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def _proving_lemma(name: str) -> contextlib.AbstractContextManager[None]:
    return _setting(_LEMMA, name)


# ---------------------------------------------------------------------------------------------
# the trusted core: only the prover makes Lemma, LemmaInstance and Proof objects
# ---------------------------------------------------------------------------------------------
#: set only while the prover itself makes one of its objects (their __post_init__ refuses otherwise)
_MINTING: contextvars.ContextVar[bool] = contextvars.ContextVar("isomat_prover_minting", default=False)
#: what the prover made, by id: a weak reference to the object and the exact fields it was made with
#: (the statement object itself, the transitive axioms). :func:`prove` accepts a lemma or instance only
#: when it is this very object with these very fields -- a copy, a ``dataclasses.replace``, an
#: ``object.__new__`` or an ``object.__setattr__`` on a frozen field is refused.
_MADE: dict[int, tuple[weakref.ref[Any], tuple[Any, ...]]] = {}


def _mint() -> contextlib.AbstractContextManager[None]:
    return _setting(_MINTING, True)


def _refuse_unminted(kind: str) -> None:
    if not _MINTING.get():
        raise TypeError(f"a {kind} is made only by the prover ({'lemma() or induction()' if kind == 'Lemma' else 'Lemma.at()' if kind == 'LemmaInstance' else 'prove()'}); "
                        f"constructing one directly would be a proof with nothing behind it")


def _same_fields(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    # identity for Z3 terms and objects (== on Z3 terms builds a formula), equality for names
    return len(a) == len(b) and all(x is y or (isinstance(x, (str, tuple)) and type(x) is type(y) and x == y)
                                    for x, y in zip(a, b))


def _lemma_fields(lm: Any) -> tuple[Any, ...]:
    return (lm.name, lm.statement, lm.text, lm.uses, lm.axioms)


def _instance_fields(x: Any) -> tuple[Any, ...]:
    return (x.lemma, x.statement)


def _register(obj: Any, fields: tuple[Any, ...], premises: tuple[Axiom, ...]) -> None:
    _MADE[id(obj)] = (weakref.ref(obj), (*fields, premises))


def _premises_of(item: Any) -> tuple[Axiom, ...]:
    """The axioms a genuine lemma or instance rests on, transitively (from the prover's own record,
    never from the object's fields); a lemma or instance the prover did not make raises TypeError."""
    kind = "lemma instance" if isinstance(item, LemmaInstance) else "lemma"
    if not isinstance(item, (Lemma, LemmaInstance)):
        raise TypeError(f"lemmas must be Lemma objects made by lemma()/induction() or their .at() instances, "
                        f"got {type(item).__name__}")
    entry = _MADE.get(id(item))
    fields = _instance_fields(item) if isinstance(item, LemmaInstance) else _lemma_fields(item)
    if entry is None or entry[0]() is not item or not _same_fields(entry[1][:-1], fields):
        raise TypeError(f"the {kind} {getattr(item, 'name', '?')!r} was not made by the prover, or was altered "
                        f"after it was proved: refused (a lemma is made only by lemma() or induction())")
    if isinstance(item, LemmaInstance):
        _premises_of(item.lemma)
    return entry[1][-1]


class _ProverObject:
    """Refuses pickling and copying: a copy would be an object the prover never made (``copy`` and
    ``deepcopy`` give the object itself, which is the same proof)."""

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"a {type(self).__name__} cannot be pickled or rebuilt: only the prover makes one")

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


# ---------------------------------------------------------------------------------------------
# index arithmetic (defined beneath the algebra, in isomat._types, and re-exported here)
# ---------------------------------------------------------------------------------------------
def ints(names: str) -> tuple[z3.ArithRef, ...]:
    """Integer unknowns, ``ints("H W i")``; sizes and indices alike (state their ranges in
    ``assuming``)."""
    return tuple(z3.Ints(names))


def bools(names: str) -> tuple[z3.BoolRef, ...]:
    return tuple(z3.Bools(names))


# ---------------------------------------------------------------------------------------------
# axioms and lemmas
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Axiom:
    """A statement taken without proof -- a *definition* (of an uninterpreted function, say).
    Every proof that uses one lists it by name."""

    name: str
    statement: z3.BoolRef = field(repr=False)
    text: str = ""


def axiom(name: str, statement: z3.BoolRef, *, text: str) -> Axiom:
    """Name a definition. Axioms are for definitions only: a fact that can be proved is a
    :func:`lemma`. An integer unknown free in ``statement`` is a parameter of the definition: no
    lemma that rests on the axiom may quantify it (see :func:`lemma`)."""
    if not isinstance(statement, z3.BoolRef):
        raise TypeError(f"axiom {name!r}: statement must be a z3 Boolean, got {type(statement).__name__}")
    return Axiom(name, statement, text)


def _parameters(item: Any) -> set[str]:
    """The unknowns an axiom or lemma pins down: the uninterpreted constants of *every* sort (Int,
    Real, Bool, bit-vectors, uninterpreted sorts) free in its (closed, for a lemma) statement. A
    lemma instance's substituted terms are not among them -- the lemma holds for every value."""
    stmt = item.lemma.statement if isinstance(item, LemmaInstance) else item.statement
    return {str(v) for v in _free_consts(stmt)}


def _check_quantified(kind: str, name: str, variables: Sequence[z3.ExprRef], premises: Iterable[Any]) -> None:
    """Refuse a lemma that quantifies a variable some premise holds free: from ``x == 0`` as an axiom,
    ``∀ x. x == 0`` would follow, and from it anything about any other unknown. The rule holds for
    constants of every sort, and for the axioms behind every lemma used (transitively): a lemma
    proved from an axiom about ``x`` holds for that ``x`` only."""
    for v in variables:
        if not (isinstance(v, z3.ExprRef) and _is_unknown(v)):
            raise TypeError(f"{kind} {name!r}: a quantified variable must be an unknown (a Z3 constant), got {v!r}")
    quantified = {str(v) for v in variables}
    for item in premises:
        inherited = () if isinstance(item, Axiom) else _premises_of(item)
        for source in (item, *inherited):
            clash = sorted(quantified & _parameters(source))
            if clash:
                what = "axiom" if isinstance(source, Axiom) else "lemma"
                via = "" if source is item else f" (behind the lemma {item.name!r})"
                raise ValueError(f"{kind} {name!r} quantifies {', '.join(clash)}, which occurs free in the {what} "
                                 f"{source.name!r}{via} it uses: a premise about one value of {clash[0]} proves nothing "
                                 f"for all of them (quantify it in the premise, or leave it a parameter of the {kind})")


@dataclass(frozen=True)
class Lemma(_ProverObject):
    """A universally quantified statement, proved once when it is made (see :func:`lemma`). Only
    :func:`lemma` and :func:`induction` make one: the constructor refuses any other caller, and
    :func:`prove` accepts a lemma only when it is the very object the prover made, unaltered."""

    name: str
    statement: z3.BoolRef = field(repr=False)
    text: str
    uses: tuple[str, ...] = ()
    axioms: tuple[str, ...] = ()
    method: str = "z3"
    seconds: float = 0.0
    #: the solvers that agreed on its proof obligations (z3 and, where it confirmed them, cvc5)
    solvers: tuple[dict[str, Any], ...] = ()
    #: why the lemma's proof rests on Z3 alone (cvc5 did not confirm an obligation), else None
    single_solver: str | None = None
    #: the digests of its obligations' SMT-LIB files (see :func:`isomat.proofs.smt.digest`)
    smt2: tuple[str, ...] = ()
    #: the candidate model of its premises that the prover checked (see :func:`prove`), as text
    model: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        _refuse_unminted("Lemma")

    def record(self) -> dict[str, Any]:
        out = {"name": self.name, "statement": self.text, "proved_by": self.method,
               "uses": list(self.uses), "axioms": list(self.axioms)}
        if self.smt2:
            out["smt2"] = list(self.smt2)
        if self.model:
            out["model"] = dict(self.model)
        if self.solvers:
            out["solvers"] = [dict(x) for x in self.solvers]
        if self.single_solver:
            out["single_solver"] = self.single_solver
        return out

    @property
    def parameters(self) -> list[str]:
        """Integer unknowns free in the lemma (not quantified): it holds for the values they have where
        it is used, and no lemma built on it may quantify them."""
        return sorted(_parameters(self))

    def at(self, *terms: Any) -> LemmaInstance:
        """The lemma instantiated at ``terms`` (one per quantified variable, in order): a
        quantifier-free fact Z3 uses cheaply, recorded as a use of this lemma."""
        if not z3.is_quantifier(self.statement):
            raise ValueError(f"lemma {self.name!r} has no quantified variables to instantiate")
        n = self.statement.num_vars()
        if len(terms) != n:
            raise ValueError(f"lemma {self.name!r} quantifies {n} variables, got {len(terms)} terms")
        premises = _premises_of(self)  # (only a genuine lemma has instances)
        terms = tuple(t if isinstance(t, z3.ExprRef) else z3.IntVal(t) for t in terms)
        # de Bruijn indices count from the innermost variable: the last term replaces index 0
        with _mint():
            inst = LemmaInstance(self, z3.substitute_vars(self.statement.body(), *reversed(terms)))
        _register(inst, _instance_fields(inst), premises)
        return inst


@dataclass(frozen=True)
class LemmaInstance(_ProverObject):
    """A proved lemma at particular terms (see :meth:`Lemma.at`, the only maker of one)."""

    lemma: Lemma
    statement: z3.BoolRef = field(repr=False)

    def __post_init__(self) -> None:
        _refuse_unminted("LemmaInstance")

    @property
    def name(self) -> str:
        return self.lemma.name

    def record(self) -> dict[str, Any]:
        return self.lemma.record()


def _closed(variables: Sequence[z3.ExprRef], body: z3.BoolRef, patterns: Sequence[Any] = ()) -> z3.BoolRef:
    if not variables:
        return body
    return z3.ForAll(list(variables), body, patterns=list(patterns)) if patterns else z3.ForAll(list(variables), body)


def lemma(
    name: str,
    variables: Sequence[z3.ExprRef],
    body: z3.BoolRef,
    *,
    text: str,
    using: Iterable[Lemma | LemmaInstance] = (),
    axioms: Iterable[Axiom] = (),
    patterns: Sequence[Any] = (),
    rlimit: int = DEFAULT_RLIMIT,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cvc5_rlimit: int = DEFAULT_CVC5_RLIMIT,
    model: Mapping[Any, Any] | None = None,
) -> Lemma:
    """Prove ``∀ variables: body`` and return it as a reusable lemma.

    The proof is a Z3 call on the open ``body`` (its negation unsatisfiable), allowed to use the
    lemmas in ``using`` and the axioms in ``axioms``; anything else -- ``unknown``, a timeout, a
    counterexample -- raises :class:`~isomat.errors.CheckError`, so an unproved lemma never
    exists. ``patterns`` are the E-matching triggers under which Z3 instantiates the lemma
    automatically when a later goal contains a matching term. ``model`` is a candidate model of the
    premises, checked as in :func:`prove`.
    """
    using, axioms = tuple(using), tuple(axioms)
    _check_quantified("lemma", name, variables, (*using, *axioms))
    with _proving_lemma(name):
        p = prove(body, lemmas=using, axioms=axioms, for_all=text, rlimit=rlimit, timeout_s=timeout_s, minimize=(),
                  cvc5_rlimit=cvc5_rlimit, model=model)
    if p.status != "proved":
        hint = f" -- {p.hint}" if p.hint else ""
        raise CheckError(f"lemma {name!r} is not proved ({p.status}): {p.reason or p.counterexample}{hint}")
    return _made_lemma(name, _closed(variables, body, patterns), text, tuple(p.lemmas), tuple(p.axioms),
                       "z3", p.seconds, tuple(p.solvers), p.single_solver, tuple(p.smt2),
                       premises=p._premises, model=tuple(p.model.items()))


def _made_lemma(*args: Any, premises: tuple[Axiom, ...], model: tuple[tuple[str, str], ...] = ()) -> Lemma:
    with _mint():
        lm = Lemma(*args, model=model)
    _register(lm, _lemma_fields(lm), tuple(dict.fromkeys(premises)))
    return lm


def induction(
    name: str,
    n: z3.ArithRef,
    prop: Callable[[z3.ArithRef], z3.BoolRef],
    *,
    text: str,
    start: int = 0,
    other: Sequence[z3.ExprRef] = (),
    assuming: Iterable[z3.BoolRef] = (),
    using: Iterable[Lemma | LemmaInstance] = (),
    axioms: Iterable[Axiom] = (),
    patterns: Sequence[Any] = (),
    rlimit: int = DEFAULT_RLIMIT,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cvc5_rlimit: int = DEFAULT_CVC5_RLIMIT,
    model: Mapping[Any, Any] | None = None,
) -> Lemma:
    """Prove ``∀ n ≥ start: hypotheses → prop(n)`` by induction on ``n``.

    The base ``hypotheses → prop(start)`` and the step ``n ≥ start ∧ hypotheses ∧ prop(n) →
    prop(n + 1)`` are two Z3 calls, each allowed the named lemmas and axioms. ``assuming`` are the
    hypotheses, about the ``other`` variables only (a hypothesis that mentions ``n`` would change
    along the induction, and is refused); they stay in the lemma that is returned, so the lemma
    says exactly what was proved. ``other`` are the further variables of ``prop``, universally
    quantified in the lemma too. ``model`` is a candidate model of the premises (the base's and the
    step's), checked as in :func:`prove`.
    """
    using, axioms, hyps = tuple(using), tuple(axioms), list(assuming)
    _check_quantified("induction", name, [n, *other], (*using, *axioms))
    n_name = str(n)
    for h in hyps:
        if any(str(v) == n_name for v in _free_ints(h)):
            raise ValueError(f"induction {name!r}: hypothesis {h} mentions the induction variable {n_name}; "
                             "put conditions on n inside prop")
    # the base may hold vacuously (prop(n) = n >= 1 → ... at n = 0): the step then proves the first real case
    with _proving_lemma(f"{name} (base)"):
        base = prove(prop(z3.IntVal(start)), assuming=hyps, lemmas=using, axioms=axioms, for_all=f"{text} (base)",
                     rlimit=rlimit, timeout_s=timeout_s, minimize=(), antecedents=False, cvc5_rlimit=cvc5_rlimit,
                     model=model)
    # (prop(n) as the step's antecedent is satisfiable wherever the base holds)
    with _proving_lemma(f"{name} (step)"):
        step = prove(z3.Implies(prop(n), prop(n + 1)), assuming=[n >= start, *hyps], lemmas=using, axioms=axioms,
                     for_all=f"{text} (step)", rlimit=rlimit, timeout_s=timeout_s, minimize=(), antecedents=False,
                     cvc5_rlimit=cvc5_rlimit, model=model)
    for part, p in (("base", base), ("step", step)):
        if p.status != "proved":
            hint = f" -- {p.hint}" if p.hint else ""
            raise CheckError(f"lemma {name!r}: the induction {part} is not proved ({p.status}): "
                             f"{p.reason or p.counterexample}{hint}")
    body = z3.Implies(z3.And(n >= start, *hyps), prop(n))
    single = "; ".join(f"{part}: {p.single_solver}" for part, p in (("base", base), ("step", step)) if p.single_solver)
    return _made_lemma(name, _closed([n, *other], body, patterns), text,
                       tuple(dict.fromkeys(base.lemmas + step.lemmas)), tuple(dict.fromkeys(base.axioms + step.axioms)),
                       f"induction on {n} from {start} (base and step by z3)", base.seconds + step.seconds,
                       _merged_solvers(base.solvers, step.solvers), single or None,
                       (*base.smt2, *step.smt2), premises=(*base._premises, *step._premises),
                       model=tuple(base.model.items()))


def _merged_solvers(*lists: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """One ``solvers`` list for several obligations: a solver's result is ``unsat`` only where it
    said so for every one of them."""
    merged: dict[str, dict[str, Any]] = {}
    for lst in lists:
        for x in lst:
            m = merged.setdefault(x["name"], dict(x))
            if x["result"] != "unsat" and m["result"] == "unsat":
                merged[x["name"]] = dict(x)
    return tuple(merged.values())


# ---------------------------------------------------------------------------------------------
# proving a goal
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Proof(_ProverObject):
    """What :func:`prove` found: ``status`` is ``"proved"``, ``"counterexample"``, ``"vacuous"``
    (the premises contradict each other: nothing is proved) or ``"unknown"``. Only :func:`prove`
    makes one (the constructor refuses any other caller), and only a proof it made and certified
    gives a ``proved`` :class:`~isomat.proofs.engine.Trial`."""

    status: str
    for_all: str
    goal: str
    seconds: float
    lemmas: list[str] = field(default_factory=list)
    axioms: list[str] = field(default_factory=list)
    lemma_records: list[dict[str, Any]] = field(default_factory=list)
    counterexample: dict[str, int] | None = None
    reason: str | None = None
    #: the symbolic sizes the proof quantifies (names of free unknowns; empty: a size-free identity)
    sizes: list[str] = field(default_factory=list)
    #: False when ``prove`` was called without ``sizes``: an empty ``sizes`` then says nothing (the record flags
    #: it, issue 38 item 5), where ``sizes=()`` declares a size-free identity
    sizes_declared: bool = True
    #: values of the unknowns that satisfy every hypothesis (the proof is not vacuous)
    witness: dict[str, int] | None = None
    #: a digest of the obligation (hypotheses and goal): equal digests are the same proof
    obligation: str = ""
    #: the obligation as SMT-LIB 2 text (hypotheses, the lemmas and axioms used, the negated goal)
    smtlib: str = field(default="", repr=False)
    #: the solvers that found the obligation unsatisfiable or not: z3's ``unsat`` and cvc5's answer
    solvers: list[dict[str, Any]] = field(default_factory=list)
    #: why the proof rests on Z3 alone ("cvc5: unknown (resource limit ... ran out)"), else None
    single_solver: str | None = None
    #: on ``unknown``: what to try (bound the digits, a flattening lemma, lemma instances, more rlimit)
    hint: str | None = None
    #: the digest of the obligation's SMT-LIB file (a one-item list; see :func:`isomat.proofs.smt.digest`):
    #: ``python -m isomat.proofs.recheck --ledger`` finds each exported file's claim by it
    smt2: list[str] = field(default_factory=list)
    #: the axioms taken as definitions by recursion (consistent by construction; no model needed)
    definitions: list[str] = field(default_factory=list)
    #: the candidate model the caller gave for the premises, as SMT-LIB text (``{name: lambda or
    #: value}``), which the solver checked together with the ``witness`` (see :func:`prove`'s ``model``)
    model: dict[str, str] = field(default_factory=dict)
    #: the axioms the proof rests on, transitively through the lemmas it used (the objects)
    _premises: tuple[Axiom, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        _refuse_unminted("Proof")

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = {"for_all": self.for_all, "sizes": list(self.sizes), "tool": TOOL, "goal": self.goal,
                              "solver_seconds": round(self.seconds, 4)}
        if not self.sizes_declared:
            ev["sizes_declared"] = False
        if self.obligation:
            ev["obligation"] = self.obligation
        if self.witness is not None:
            ev["witness"] = dict(self.witness)
        if self.definitions:
            ev["definitions"] = list(self.definitions)
        if self.model:
            ev["model"] = dict(self.model)
        if self.lemmas:
            ev["lemmas"] = self.lemma_records
        if self.axioms:
            ev["axioms"] = list(self.axioms)
        if self.solvers:
            ev["solvers"] = [dict(x) for x in self.solvers]
        if self.single_solver:
            ev["single_solver"] = self.single_solver
        if self.smt2:
            ev["smt2"] = list(self.smt2)
        if self.reason:
            ev["reason"] = self.reason
        if self.hint:
            ev["hint"] = self.hint
        return ev

    def trial(self, describe: str | None = None) -> Trial:
        """This proof as a ledger trial: ``proved`` passes with strength ``proved``; a
        counterexample fails with it; ``unknown`` and ``vacuous`` raise (neither is evidence either
        way -- fall back to an exhaustive trial instead, see :meth:`or_else`)."""
        ev = self.evidence()
        if describe:
            ev["proved"] = describe
        if self.status == "proved":
            return Trial(True, "symbolic", ev, strength="proved", proof=self)
        if self.status == "counterexample":
            return Trial(False, "symbolic", ev, {"case": self.counterexample})
        hint = f" -- {self.hint}" if self.hint else ""
        raise CheckError(f"no proof and no counterexample for {self.for_all!r} ({self.status}): {self.reason}{hint}")

    def or_else(self, fallback: Callable[[], Trial], describe: str | None = None) -> Trial:
        """The proof's trial when it settled the goal; otherwise ``fallback()`` (an exhaustive
        check), with the unknown proof attempt noted in its evidence."""
        if self.status in ("proved", "counterexample"):
            return self.trial(describe)
        t = fallback()
        return t.with_evidence(proof_attempt={"status": self.status, "reason": self.reason, "for_all": self.for_all,
                                              **({"hint": self.hint} if self.hint else {})})


def _solver(rlimit: int, timeout_s: float, integer_only: bool = True) -> tuple[z3.Solver, z3.Context]:
    """A solver in a fresh context: nothing that ran before in this process can change its search.
    Integer goals get the ``UFNIA`` solver (no time-based strategy switch); any other sort gets
    Z3's general solver."""
    ctx = z3.Context()
    s = z3.SolverFor("UFNIA", ctx=ctx) if integer_only else z3.Solver(ctx=ctx)
    s.set("random_seed", _SEED)
    s.set("rlimit", int(rlimit))
    s.set("timeout", int(timeout_s * 1000))
    return s, ctx


def _lemma_closure(lemmas: Iterable[Lemma]) -> list[Lemma]:
    return list({lm.name: lm for lm in lemmas}.values())


def prove(
    goal: z3.BoolRef,
    *,
    for_all: str,
    assuming: Iterable[z3.BoolRef] = (),
    lemmas: Iterable[Lemma] = (),
    axioms: Iterable[Axiom] = (),
    minimize: Sequence[z3.ArithRef] | None = None,
    sizes: Sequence[Any] | None = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    antecedents: bool = True,
    cvc5_rlimit: int = DEFAULT_CVC5_RLIMIT,
    model: Mapping[Any, Any] | None = None,
) -> Proof:
    r"""Prove ``goal`` for every value of its free integer unknowns that satisfies ``assuming``.

    Parameters
    ----------
    goal : z3.BoolRef
        The statement; its free unknowns are universally quantified.
    for_all : str
        What is quantified, in words ("for all H, W >= 1 and 0 <= i < HW"); recorded with the proof.
    assuming : iterable of z3.BoolRef
        Hypotheses (size ranges, divisibility, ...).
    lemmas, axioms : iterables of :class:`Lemma` (or :meth:`Lemma.at` instances) / :class:`Axiom`
        What the proof may use. Lemmas are proved; axioms are definitions named in the record.
        The record lists only those that the solver's unsat core actually needed. Instances are
        offered from the start; quantified lemmas only when the goal does not go through without
        them (they can slow Z3 down on goals it settles alone).
    minimize : sequence of z3 integer terms, optional
        When the goal is false, the counterexample minimizes their sum (default: every free
        integer unknown), so a reader gets the smallest sizes that break it.
    sizes : sequence of z3 integer unknowns (or their names)
        The symbolic sizes the statement quantifies -- dimensions, lengths, numbers of modes --
        as opposed to indices and values. Each must be a free unknown of the goal or the
        hypotheses. Empty (``()``) declares a size-free identity; not given (None, the default), the
        proof says nothing about its sizes and a ledger record resting on it is flagged
        (``sizes_undeclared``), never counted as an identity.
    rlimit : int
        Work budget in Z3 resource units (deterministic). Running out is ``unknown``, never a proof.
    timeout_s : float
        Wall-clock safety net of each solver call (the resource limit ends it first on any
        machine). Running into it raises :class:`~isomat.errors.ProofTimeout`.
    antecedents : bool
        Also require each antecedent of an implication goal to be satisfiable (default). Only an
        induction's base turns this off: ``prop(start)`` may hold vacuously (``n >= 1 → ...`` at
        ``n = 0``) without weakening the induction, whose step then proves the first real case.
    cvc5_rlimit : int
        cvc5's deterministic work budget for re-checking a proved obligation (see
        :mod:`isomat.proofs.smt`): its ``unsat`` confirms the proof, its ``unknown`` leaves the
        proof single-solver (Z3's stands, and the record says why), its ``sat`` is a
        :class:`~isomat.errors.CheckError`.
    model : mapping, optional
        A candidate model of the premises, for premises whose quantified axioms a solver cannot model
        on its own: ``{function: interpretation, constant: value}``, an interpretation being a Python
        callable from Z3 argument terms to a Z3 term of the function's range (``lambda i, j: If(i ==
        0, 1, 0)``), a value a number or a Z3 term. Nothing in it is trusted: every premise (the
        hypotheses, every axiom, the axioms behind the lemmas, the antecedents) is rewritten with it,
        and the solver must find values of the remaining unknowns that satisfy them all; any such
        solution, with the model, is a model of the premises. The model (as SMT-LIB text) and the
        values are recorded. A model that satisfies no premise set is ``"unknown"`` (it shows nothing
        about the premises either way), never ``"vacuous"``.

    Returns
    -------
    Proof
        ``status`` ``"proved"`` (with a ``witness`` satisfying the hypotheses), ``"counterexample"``
        (with the minimal values found, each re-checked by substituting them into the goal),
        ``"vacuous"`` (the hypotheses, or the antecedent of an implication goal, are
        unsatisfiable: nothing to prove, and nothing proved) or ``"unknown"`` (with Z3's reason and,
        in :attr:`Proof.hint`, what to try). A proof lists in ``solvers`` the solvers that agreed.
    """
    offered_all = list(lemmas)
    memo_key = same = None
    if _MEMO is not None and model is None:
        assuming = list(assuming)
        axioms = list(axioms)
        memo_key = _request_key(goal, assuming, offered_all, axioms, for_all=for_all,
                                minimize=None if minimize is None else [str(m) for m in minimize],
                                sizes=None if sizes is None else [str(v) for v in sizes], rlimit=rlimit,
                                timeout_s=timeout_s, antecedents=antecedents, cvc5_rlimit=cvc5_rlimit)
        hit = _MEMO.get(memo_key)
        # the very lemmas (an instance: of the very lemma, at the terms the key holds) and axioms offered (the
        # entry holds them, so no other object takes their ids)
        same = _offered_objects(offered_all, axioms)
        if hit is not None and len(hit[0]) == len(same) and all(a is b for a, b in zip(hit[0], same)):
            return hit[1]
    proof = _prove(goal, for_all=for_all, assuming=assuming, offered_all=offered_all, axioms=axioms,
                   minimize=minimize, sizes=sizes, rlimit=rlimit, timeout_s=timeout_s, antecedents=antecedents,
                   cvc5_rlimit=cvc5_rlimit, model=model)
    if memo_key is not None and _MEMO is not None:
        _MEMO[memo_key] = (same, proof)
    return proof


def _offered_objects(offered: Sequence[Any], axioms: Sequence[Any]) -> tuple[Any, ...]:
    return (*(x.lemma if isinstance(x, LemmaInstance) else x for x in offered), *axioms)


def _prove(goal: z3.BoolRef, *, for_all: str, assuming: Iterable[z3.BoolRef], offered_all: list[Any],
           axioms: Iterable[Axiom], minimize: Sequence[z3.ArithRef] | None, sizes: Sequence[Any] | None,
           rlimit: int, timeout_s: float, antecedents: bool, cvc5_rlimit: int,
           model: Mapping[Any, Any] | None) -> Proof:
    """:func:`prove`'s work (``offered_all``: the lemmas and instances offered, as a list)."""
    # the trusted core: every lemma and instance must be the very object the prover made, unaltered;
    # the axioms behind each (transitively) are premises of this proof too
    inherited: list[Axiom] = []
    for x in offered_all:
        inherited += _premises_of(x)
    axioms = list(axioms)
    for a in axioms:
        if not isinstance(a, Axiom) or not isinstance(getattr(a, "statement", None), z3.BoolRef):
            raise TypeError(f"axioms must be Axiom objects made by axiom(), got {type(a).__name__}")
    instances = [x for x in offered_all if isinstance(x, LemmaInstance)]
    assuming, lemmas = list(assuming), _lemma_closure(x for x in offered_all if isinstance(x, Lemma))
    sizes_declared = sizes is not None
    size_names = _size_names(() if sizes is None else sizes, goal, assuming)
    t0 = time.perf_counter()

    def made(status: str, **kw: Any) -> Proof:
        if "sizes" in kw:
            kw["sizes_declared"] = sizes_declared
        with _mint():
            p = Proof(status, for_all, goal_text, time.perf_counter() - t0, **kw)
        if status == "proved":
            _engine._certify(p, status=p.status, for_all=p.for_all, goal=p.goal, obligation=p.obligation)
        return p

    # the goal as recorded: Z3's own SMT-LIB text (its Python pretty-printer is far too slow for
    # large index terms: it once took most of the ledger's time)
    text = goal.sexpr()
    goal_text = text if len(text) <= 600 else text[:599] + "…"
    # Quantified lemmas can slow Z3 down on goals it settles without them, so a proof first tries
    # the goal with the hypotheses and axioms alone (a small budget when lemmas are offered: what
    # goes through without them does so quickly), and only then with the lemmas. A lemma is recorded only where the solver's unsat core used it.
    if lemmas and any(_has_quantifier(ax.statement) for ax in axioms):
        # with quantified definitions the goal is never quantifier-free: offer the lemmas at once
        attempts = [(lemmas, rlimit)]
    else:
        first = min(rlimit // 6, 2_000_000) if lemmas else rlimit
        attempts = [((), first)] + ([(lemmas, rlimit - first)] if lemmas else [])
    reason = "unknown"
    premise_axioms = list({id(a): a for a in (*axioms, *inherited)}.values())
    integer_only = _integer_only(goal, *assuming, *(x.statement for x in (*instances, *lemmas, *premise_axioms)))
    obligation = _digest(goal, assuming)
    # fdiv/fmod are floor division: Z3's Euclidean div/mod mean the same only for a positive divisor
    refused = _divisors_not_positive(goal, assuming, axioms, rlimit=max(1, rlimit // 6), timeout_s=timeout_s,
                                     integer_only=integer_only)
    if refused is not None:
        return made("unknown", reason=refused, sizes=size_names, obligation=obligation,
                    hint="state the divisor's sign in the hypotheses (or guard the term with it): fdiv/fmod of a "
                         "divisor not shown positive would be Z3's Euclidean division, another function")
    candidate = _candidate_model(model)
    satisfiable = _witness(goal if antecedents else z3.BoolVal(True), assuming, [*instances, *lemmas], premise_axioms,
                           rlimit=max(1, rlimit // 6), timeout_s=timeout_s, integer_only=integer_only, model=candidate)
    if isinstance(satisfiable[0], str):
        status, why = satisfiable
        return made(status, reason=why, sizes=size_names, obligation=obligation,
                    hint=_hint(why, goal, assuming, lemmas, axioms, rlimit) if status == "unknown" else None)
    satisfiable, definitions = satisfiable
    for offered, limit in attempts:
        s, ctx = _solver(limit, timeout_s, integer_only)
        for h in assuming:
            s.add(h.translate(ctx))
        tracked: dict[str, Any] = {}
        for k, item in enumerate((*instances, *offered, *axioms)):
            kind = "axiom" if isinstance(item, Axiom) else "lemma"
            tag = z3.Bool(f"{kind}::{item.name}::{k}", ctx)
            s.assert_and_track(item.statement.translate(ctx), tag)
            tracked[str(tag)] = item
        s.add(z3.Not(goal).translate(ctx))
        res = s.check()
        if res == z3.unsat:
            core = {str(c) for c in s.unsat_core()}
            used = [tracked[k] for k in tracked if k in core]
            used_lemmas = list({u.name: u for u in used if not isinstance(u, Axiom)}.values())
            used_axioms = list({u.name: u for u in used if isinstance(u, Axiom)}.values())
            # the axioms a used lemma rests on are axioms of this proof too
            axiom_names = list(dict.fromkeys([u.name for u in used_axioms]
                                             + [a for u in used_lemmas for a in (u.lemma if isinstance(u, LemmaInstance) else u).axioms]))
            rests_on = tuple({id(a): a for a in (*used_axioms, *(a for u in used if not isinstance(u, Axiom)
                                                                  for a in _premises_of(u)))}.values())
            smtlib = _smtlib(assuming, used, goal)
            solvers, single, smt2 = _second_solver(smtlib, for_all, cvc5_rlimit, timeout_s)
            # two proofs are the same only with the same premises too: a goal about a function named alike
            # but defined by other axioms is another statement
            obligation = _digest(goal, assuming, [u.statement for u in used])
            return made("proved", lemmas=[u.name for u in used_lemmas], axioms=axiom_names,
                        lemma_records=[u.record() for u in used_lemmas], sizes=size_names, witness=satisfiable,
                        obligation=obligation, smtlib=smtlib, solvers=solvers, single_solver=single, smt2=smt2,
                        definitions=definitions, model=candidate[2], _premises=rests_on)
        if res == z3.sat:
            found = _counterexample(s, ctx, goal, assuming, minimize, rlimit=limit, timeout_s=timeout_s,
                                    integer_only=integer_only)
            if isinstance(found, dict):
                return made("counterexample", counterexample=found)
            reason = found
        else:
            reason = s.reason_unknown() or "unknown"
            _raise_on_clock(reason, for_all, timeout_s)
    return made("unknown", reason=reason, sizes=size_names, obligation=obligation,
                hint=_hint(reason, goal, assuming, lemmas, axioms, rlimit))


def _guarded_divisors(exprs: Sequence[z3.ExprRef]) -> list[tuple[tuple[z3.BoolRef, ...], z3.ExprRef, z3.ExprRef]]:
    """Each integer div/mod term of ``exprs`` whose divisor is not a positive numeral, with the
    conditions guarding it (see :func:`_guarded_subterms`): ``(guards, divisor, term)``."""
    return [(guards, e.arg(1), e) for guards, e in _guarded_subterms(exprs)
            if (z3.is_idiv(e) or z3.is_mod(e)) and e.num_args() == 2
            and not (z3.is_int_value(e.arg(1)) and e.arg(1).as_long() > 0)]


def _stated_positive(facts: Iterable[z3.ExprRef]) -> set[int]:
    """The terms that ``facts`` (conjunctions split) state positive outright: ``t >= c`` with ``c >=
    1``, ``t > c`` with ``c >= 0`` (or the same written the other way round), by Z3 term id (terms are
    hash-consed: one term, one id; the SMT-LIB text of each cost a tenth of the ledger's prover time)."""
    out: set[int] = set()
    todo = list(facts)
    while todo:
        f = todo.pop()
        if z3.is_and(f):
            todo += f.children()
        elif z3.is_app(f) and f.num_args() == 2 and (z3.is_ge(f) or z3.is_gt(f) or z3.is_le(f) or z3.is_lt(f)):
            big, small = (f.arg(0), f.arg(1)) if z3.is_ge(f) or z3.is_gt(f) else (f.arg(1), f.arg(0))
            if z3.is_int_value(small) and small.as_long() >= (0 if z3.is_gt(f) or z3.is_lt(f) else 1):
                out.add(big.get_id())
    return out


def _shown_positive(b: z3.ExprRef, known: set[int]) -> bool:
    """``b`` is positive by sight: a positive numeral, a term in ``known`` (ids), or a sum or product of such."""
    if z3.is_int_value(b):
        return b.as_long() > 0
    if b.get_id() in known:
        return True
    return (z3.is_mul(b) or z3.is_add(b)) and all(_shown_positive(c, known) for c in b.children())


def _divisors_not_positive(goal: z3.BoolRef, assuming: Sequence[z3.BoolRef], axioms: Sequence[Axiom], *,
                           rlimit: int, timeout_s: float, integer_only: bool) -> str | None:
    """None when every div/mod divisor of the goal and the hypotheses is shown positive
    (from the hypotheses and the conditions guarding its term) -- where :func:`fdiv`/:func:`fmod`'s
    Z3 translation is floor division, NumPy's ``//`` and ``%``; else why the proof is refused."""
    # (an axiom's div/mod are Z3's: it defines a fresh function in those terms, and what the record
    # quantifies -- the goal and its hypotheses -- is checked here)
    # (the divisors that the hypotheses and guards show positive at sight -- a size stated >= 1, a
    # product or sum of such -- need no solver call)
    known = _stated_positive(assuming)
    by_guards: dict[tuple[int, ...], set[int]] = {}  # (many divisors sit under one set of guards)

    def shown(guards: tuple[z3.BoolRef, ...], b: z3.ExprRef) -> bool:
        key = tuple(g.get_id() for g in guards)
        if key not in by_guards:
            by_guards[key] = known | _stated_positive(guards)
        return _shown_positive(b, by_guards[key])

    found = [(guards, b, term) for guards, b, term in _guarded_divisors([goal, *assuming]) if not shown(guards, b)]
    if not found:
        return None
    conditions = {}
    for guards, b, term in found:
        cond = z3.Implies(z3.And(*guards), b > 0) if guards else b > 0
        conditions.setdefault(cond.sexpr(), (cond, term))
    s, ctx = _solver(rlimit, timeout_s, integer_only)
    for h in assuming:
        s.add(h.translate(ctx))
    s.add(z3.Not(z3.And(*(c for c, _ in conditions.values()))).translate(ctx))
    res = s.check()
    if res == z3.unsat:
        return None
    if res == z3.unknown:
        _raise_on_clock(s.reason_unknown() or "", "the divisors' signs", timeout_s)
    terms = "; ".join(t.sexpr()[:120] for _, t in list(conditions.values())[:3])
    what = "may be zero or negative" if res == z3.sat else f"are not shown positive ({s.reason_unknown()})"
    return (f"refused: the divisors of {terms} {what} under the hypotheses -- fdiv/fmod are floor division, and Z3's "
            "div/mod agree with it only for a positive divisor, so a proof would be about another function")


def _second_solver(smtlib: str, for_all: str, cvc5_rlimit: int,
                   timeout_s: float) -> tuple[list[dict[str, Any]], str | None, list[str]]:
    """Write the proved obligation as a self-contained SMT-LIB 2 script (exported when
    ``--export-smt`` asks), re-check it with cvc5, and return the solvers that agreed, why the proof
    is single-solver when cvc5 did not confirm it, and ``[digest]`` of the script (the record
    carries it, so ``python -m isomat.proofs.recheck`` can tie each exported file to its claim).
    cvc5's ``sat`` raises CheckError naming the file."""
    text = recheck.script(smtlib, claim=recheck.current_claim.get(), lemma=_LEMMA.get(), for_all=for_all,
                          z3_version=Z3_VERSION)
    name, sha = recheck.record_obligation(text, lemma=_LEMMA.get())
    if not _RECHECK[0]:
        return ([{"name": "z3", "version": Z3_VERSION, "result": "unsat"}], "cvc5: not run (re-check turned off)",
                [sha])
    result = recheck.cvc5_check(text, rlimit=cvc5_rlimit, timeout_s=max(timeout_s, recheck.DEFAULT_CVC5_TIMEOUT_S),
                                name=for_all)
    solvers, single = recheck.agreement(Z3_VERSION, result, for_all, obligation=name)
    return solvers, single, [sha]


def _hint(reason: str, goal: z3.BoolRef, assuming: Sequence[z3.BoolRef], lemmas: Sequence[Lemma],
          axioms: Sequence[Axiom], rlimit: int) -> str:
    """What to try when a goal is ``unknown``."""
    tips: list[str] = []
    if "canceled" in reason or "resource" in reason or "rlimit" in reason or "max. resource" in reason:
        tips.append(f"the deterministic resource limit (rlimit={rlimit:,}) ran out: raise rlimit=, or make the goal "
                    "easier as below")
    divmod_terms = _nonlinear_div_mod(goal, *assuming)
    if divmod_terms:
        tips.append(f"the goal divides products of unknowns ({'; '.join(divmod_terms[:2])}): bound the digits -- "
                    "restate it with the digits as unknowns with their ranges -- for a flat index i = q·W + r write q, r = ints('q r') and assume "
                    "0 <= r, r < W, 0 <= q, q < H instead of i div W, i mod W -- and offer the flattening lemma that "
                    "fits: FLATTEN_DIV_MOD ((q·n + r) div n = q, (q·n + r) mod n = r), DIGITS_UNIQUE (equal flat "
                    "indices have equal digits), NESTED_DIV ((i div n) div m = i div nm), NESTED_MOD ((i mod nm) div n "
                    "= (i div n) mod m), FLAT_INDEX_RANGE, DIV_MOD_RECOMPOSE -- at the terms of the goal: "
                    "lemmas=[FLATTEN_DIV_MOD.at(q, r, W)]")
    if any(z3.is_quantifier(x.statement) for x in lemmas) or any(_has_quantifier(a.statement) for a in axioms):
        tips.append("quantified lemmas or axioms are offered: give Z3 the instances it needs with lemma.at(terms...) "
                    "(quantifier-free facts are cheap), or patterns= on the lemma so it is instantiated on the "
                    "goal's terms")
    if not tips:
        tips.append("split the goal into lemmas (lemma(...) proves each once), state the sizes' ranges in assuming, "
                    "or raise rlimit=")
    return "; ".join(tips)


def _raise_on_clock(reason: str, for_all: str, timeout_s: float) -> None:
    """A solver call stopped by the wall clock (not by the deterministic resource limit): an error of
    the run, never an ``unknown`` that a caller could answer with weaker evidence."""
    # (Z3 says "timeout" for the wall clock; running out of the resource limit is "canceled")
    if "timeout" in reason:
        raise ProofTimeout(f"the solver ran past its {timeout_s:g} s wall-clock safety net on {for_all!r} "
                           "(the machine is overloaded or the resource limit is too high); nothing was decided")


def _size_names(sizes: Sequence[Any], goal: z3.BoolRef, assuming: Sequence[z3.BoolRef]) -> list[str]:
    """The declared sizes as names, each checked to be a free unknown of the goal or its hypotheses."""
    if isinstance(sizes, (str, z3.ExprRef)):
        raise TypeError(f"sizes must be a sequence of unknowns or names, got {sizes!r}")
    names = [str(v) for v in sizes]
    free = {str(v) for v in _free_ints(goal, *assuming)}
    missing = [n for n in names if n not in free]
    if missing:
        raise ValueError(f"sizes {missing} are not free unknowns of the goal or its hypotheses (free: {sorted(free)})")
    return list(dict.fromkeys(names))


def _digest(goal: z3.BoolRef, assuming: Sequence[z3.BoolRef], premises: Sequence[z3.BoolRef] = ()) -> str:
    """A short digest of an obligation: the hypotheses and the premises a proof used (each as a set) and
    the goal, in Z3's SMT-LIB text."""
    import hashlib

    text = ("\n".join(sorted(h.sexpr() for h in assuming)) + "\n--\n" + "\n".join(sorted(p.sexpr() for p in premises))
            + "\n=>\n" + goal.sexpr())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _smtlib(assuming: Sequence[z3.BoolRef], used: Sequence[Any], goal: z3.BoolRef) -> str:
    """The obligation as an SMT-LIB 2 script that a second solver can re-check: hypotheses, the lemmas
    and axioms the proof used, and the negated goal; ``unsat`` confirms the proof."""
    s = z3.Solver()
    for h in assuming:
        s.add(h)
    for item in used:
        s.add(item.statement)
    s.add(z3.Not(goal))
    return s.to_smt2()


def _antecedents(goal: z3.BoolRef) -> list[z3.BoolRef]:
    """The antecedents of an implication goal (``A → B``, or a conjunction of implications), each of
    which must be satisfiable together with the hypotheses for the goal to say anything."""
    parts = goal.children() if z3.is_and(goal) else [goal]
    return [p.arg(0) for p in parts if z3.is_implies(p)]


#: premise checks already done in this process, by the premises' text (a claim's lemmas and goals
#: share their axioms and hypotheses)
_WITNESSED: dict[str, tuple[dict[str, int], list[str]] | tuple[str, str]] = {}


def _witness(goal: z3.BoolRef, assuming: Sequence[z3.BoolRef], lemmas: Sequence[Lemma | LemmaInstance],
             axioms: Sequence[Axiom], *, rlimit: int, timeout_s: float, integer_only: bool,
             model: _Model = ([], [], {})) -> tuple[dict[str, int], list[str]] | tuple[str, str]:
    """Show every premise consistent: the hypotheses, every axiom (quantified ones too), the axioms
    behind each lemma (transitively), the lemmas, and each antecedent of the goal.

    The lemmas and their instances need no place in the model: each was proved by :func:`prove` from
    the axioms it rests on (the prover's own record, which it cannot be handed), so every model of
    those axioms -- which are among ``axioms`` here -- satisfies them. The axioms are split (see
    :func:`_definitions`) into *definitions by recursion on a natural number* of functions that no
    other premise mentions -- consistent by construction: any model of the rest extends to them,
    one argument value after the other -- and the rest, of which a solver must find a model. With a
    candidate ``model`` (see :func:`_candidate_model`) every premise is first rewritten with it: a
    solution of the rewritten premises, with the model, is a model of the premises. Returns
    ``(values of the integer unknowns, names of the axioms taken as definitions)``, or
    ``("vacuous", why)`` when the rest is unsatisfiable (from contradicting premises anything
    follows) and ``("unknown", why)`` when the solver finds no model: neither is ever a proof."""
    extras = _antecedents(goal)
    if model[2]:
        assuming = [_under(model, h) for h in assuming]
        axioms = [Axiom(a.name, _under(model, a.statement), a.text) for a in axioms]
        extras = [_under(model, x) for x in extras]
    key = "\n".join([str(rlimit), *(h.sexpr() for h in assuming), "--", *sorted({a.statement.sexpr() for a in axioms}),
                     "--", *(x.sexpr() for x in extras), "--", *model[2].values()])
    if key not in _WITNESSED:
        _WITNESSED[key] = _model_search(assuming, axioms, extras, rlimit=rlimit, timeout_s=timeout_s,
                                        integer_only=integer_only, model=model)
    found = _WITNESSED[key]
    if isinstance(found[0], dict) and model[1]:
        return {**found[0], **{str(c): v.as_long() for c, v in model[1] if z3.is_int_value(v)}}, found[1]
    return found


def _model_search(assuming: Sequence[z3.BoolRef], axioms: Sequence[Axiom], extras: Sequence[z3.BoolRef], *,
                  rlimit: int, timeout_s: float, integer_only: bool,
                  model: _Model) -> tuple[dict[str, int], list[str]] | tuple[str, str]:
    """The solver's part of :func:`_witness`: a model of the premises (and of each antecedent in turn)."""
    first: dict[str, int] | None = None
    definitions: list[str] = []
    for extra in [None, *extras] if extras else [None]:
        others = [*assuming, *([extra] if extra is not None else [])]
        defined, rest = _definitions(axioms, others)
        facts = [*assuming, *(a.statement for a in rest)]
        unrolled = _unrolled(axioms, others, _UNROLL) if any(_has_quantifier(a.statement) for a in rest) else None
        if unrolled is not None:
            defined, rest, instances = unrolled
            facts = [*assuming, *(a.statement for a in rest), *instances]
        if extra is None:
            definitions = [a.name for a in defined]
        s, ctx = _solver(rlimit, timeout_s, integer_only)
        for f in facts + ([extra] if extra is not None else []):
            s.add(f.translate(ctx))
        res = s.check()
        if res == z3.unsat and model[2]:
            return ("unknown", "the candidate model given for the premises satisfies them for no values of the other "
                               "unknowns: it is no model of them (which says nothing about the premises themselves)")
        if res == z3.unsat:
            what = ("the premises (hypotheses, axioms and the axioms behind the lemmas)" if extra is None
                    else f"the premises and the antecedent {extra.sexpr()[:200]}")
            return ("vacuous", f"{what} are unsatisfiable: the goal holds vacuously and is not proved")
        if res != z3.sat:
            reason = s.reason_unknown() or "unknown"
            _raise_on_clock(reason, "the premises' witness", timeout_s)
            return ("unknown", f"no model shows the premises (hypotheses and axioms) consistent ({reason}): "
                               "premises not shown consistent prove nothing (an axiom that is a definition by "
                               "recursion on a natural number needs no model, see isomat.proofs._terms._definitions; for the rest, "
                               "give the solver a candidate model to check: prove(..., model={function: interpretation}))")
        if first is None:
            m = s.model()
            first = {}
            for v in _free_ints(*facts):
                val = m.eval(v.translate(ctx), model_completion=True)
                if z3.is_int_value(val) or z3.is_bv_value(val):
                    first[str(v)] = val.as_long()
    return (first if first is not None else {}), definitions


def _counterexample(s: z3.Solver, ctx: z3.Context, goal: z3.BoolRef, assuming: list[z3.BoolRef],
                    minimize: Sequence[z3.ArithRef] | None, *, rlimit: int, timeout_s: float,
                    integer_only: bool = True) -> dict[str, Any] | str:
    """Shrink the solver's model of ``not goal`` -- each step asks a fresh solver, with a sixth of
    the deterministic budget, for a model whose sum of |unknowns| is smaller -- then check the values
    by substitution. Returns them, or why they are no counterexample (a model of quantified
    axioms or uninterpreted functions need not be a concrete counterexample of the goal itself:
    that is ``unknown``, never a refutation)."""
    unknowns = _free_ints(goal, *assuming)
    # by default the smallest counterexample is the one of smallest sum of |unknowns| (bit-vectors
    # read unsigned)
    objective = list(minimize) if minimize is not None else [z3.BV2Int(v) if z3.is_bv(v) else v for v in unknowns]

    def values_of(model: z3.ModelRef, c: z3.Context) -> dict[str, int]:
        return {str(v): model.eval(v.translate(c), model_completion=True).as_long() for v in unknowns}

    values = values_of(s.model(), ctx)
    if objective:
        total = z3.Sum([z3.If(v >= 0, v, -v) for v in objective])
        for _ in range(64):
            current = z3.simplify(z3.substitute(total, *[(v, _value(v, values[str(v)])) for v in unknowns])).as_long()
            # a smaller model, when there is one, is found quickly; the last step (none smaller) would
            # otherwise spend a whole budget proving that
            step, c = _solver(max(1, rlimit // 6), timeout_s, integer_only)
            for h in (*assuming, z3.Not(goal), total < current):
                step.add(h.translate(c))
            # (the lemmas and axioms are left out here: a smaller model is re-checked below anyway)
            if step.check() != z3.sat:
                break
            candidate = values_of(step.model(), c)
            if not _refutes(goal, assuming, unknowns, candidate):
                break
            values = candidate
    if _refutes(goal, assuming, unknowns, values):
        return values
    return f"the solver's model {values} is not a concrete counterexample"


def _value(v: z3.ExprRef, x: int) -> z3.ExprRef:
    return z3.BitVecVal(x, v.size()) if z3.is_bv(v) else z3.IntVal(x)


def _refutes(goal: z3.BoolRef, assuming: list[z3.BoolRef], unknowns: list[z3.ArithRef], values: dict[str, int]) -> bool:
    """The values satisfy every hypothesis and falsify the goal, by substitution and evaluation."""
    subst = [(v, _value(v, values[str(v)])) for v in unknowns]
    holds_here = z3.simplify(z3.substitute(goal, *subst)) if subst else z3.simplify(goal)
    hyps_here = [z3.simplify(z3.substitute(h, *subst)) if subst else z3.simplify(h) for h in assuming]
    return z3.is_false(holds_here) and all(z3.is_true(h) for h in hyps_here)


# ---------------------------------------------------------------------------------------------
# the flattening lemma library: made on first use, from the on-disk cache of its proofs or proved
# (isomat/proofs/_lemma_cache.py), so importing the prover proves nothing (issue 40)
# ---------------------------------------------------------------------------------------------
def _library(make: Callable[..., Lemma] = lemma) -> dict[str, Lemma]:
    """The library, each lemma made by ``make`` (:func:`lemma`, or the cache's stand-in for it)."""
    q, r, q2, r2, n, m, i, Q = z3.Ints("q r q2 r2 n m i Q")
    out = {}
    out["DIV_MOD_RECOMPOSE"] = make(
        "div-mod-recompose", [i, n],
        z3.Implies(n > 0, z3.And(i == n * fdiv(i, n) + fmod(i, n), 0 <= fmod(i, n), fmod(i, n) < n)),
        text="for all i and n > 0: i = n·(i div n) + (i mod n) and 0 <= i mod n < n",
        patterns=[z3.MultiPattern(fdiv(i, n), fmod(i, n))])
    out["FLATTEN_DIV_MOD"] = make(
        "flatten-div-mod", [q, r, n],
        z3.Implies(z3.And(n > 0, 0 <= r, r < n), z3.And(fdiv(q * n + r, n) == q, fmod(q * n + r, n) == r)),
        text="for all q, r, n with n > 0 and 0 <= r < n: (q·n + r) div n = q and (q·n + r) mod n = r",
        patterns=[fdiv(q * n + r, n), fmod(q * n + r, n)])
    out["DIGITS_UNIQUE"] = make(
        "digits-unique", [q, r, q2, r2, n],
        z3.Implies(z3.And(n > 0, 0 <= r, r < n, 0 <= r2, r2 < n, q * n + r == q2 * n + r2), z3.And(q == q2, r == r2)),
        text="for all n > 0, 0 <= r, r' < n: q·n + r = q'·n + r' implies q = q' and r = r' (mixed-radix digits are unique)",
        patterns=[z3.MultiPattern(q * n + r, q2 * n + r2)])
    out["FLAT_INDEX_RANGE"] = make(
        "flat-index-range", [q, r, n, Q],
        z3.Implies(z3.And(n > 0, 0 <= q, q < Q, 0 <= r, r < n), z3.And(0 <= q * n + r, q * n + r < Q * n)),
        text="for all 0 <= q < Q and 0 <= r < n: 0 <= q·n + r < Q·n (a flattened index stays in range)",
        patterns=[z3.MultiPattern(q * n + r, Q * n)])
    out["NESTED_DIV"] = make(
        "nested-div", [i, n, m],
        z3.Implies(z3.And(n > 0, m > 0), fdiv(fdiv(i, n), m) == fdiv(i, n * m)),
        text="for all i and n, m > 0: (i div n) div m = i div (n·m)",
        patterns=[fdiv(fdiv(i, n), m)])
    x, k = z3.Ints("x k")
    out["DIV_SHIFT"] = make(
        "div-shift", [x, k, n],
        z3.Implies(n > 0, fdiv(x + k * n, n) == fdiv(x, n) + k),
        text="for all x, k and n > 0: (x + k·n) div n = (x div n) + k",
        patterns=[fdiv(x + k * n, n)])
    # (i mod nm) div n = (i - nm·((i div n) div m)) div n = (i div n) - m·((i div n) div m) = (i div n) mod m
    q_nm = fdiv(fdiv(i, n), m)
    out["NESTED_MOD"] = make(
        "nested-mod", [i, n, m],
        z3.Implies(z3.And(i >= 0, n > 0, m > 0), fdiv(fmod(i, n * m), n) == fmod(fdiv(i, n), m)),
        text="for all i >= 0 and n, m > 0: (i mod n·m) div n = (i div n) mod m",
        using=[out["DIV_MOD_RECOMPOSE"].at(i, n * m), out["NESTED_DIV"].at(i, n, m),
               out["DIV_SHIFT"].at(i, -m * q_nm, n), out["DIV_MOD_RECOMPOSE"].at(fdiv(i, n), m)],
        patterns=[fdiv(fmod(i, n * m), n)])
    return out


def _cached_lemma(name: str, statement: z3.BoolRef, text: str, entry: dict[str, Any]) -> Lemma:
    """A library lemma whose exact proof request the cache answered (see :mod:`._lemma_cache`, which
    validated ``entry``); its statement is the library's own."""
    return _made_lemma(name, statement, text, tuple(entry["uses"]), tuple(entry["axioms"]), entry["method"],
                       float(entry["seconds"]), tuple(dict(x) for x in entry["solvers"]), entry["single_solver"],
                       tuple(entry["smt2"]), premises=(), model=tuple((str(k), str(v)) for k, v in entry["model"]))


_LIBRARY_NAMES = ("DIV_MOD_RECOMPOSE", "FLATTEN_DIV_MOD", "DIGITS_UNIQUE", "FLAT_INDEX_RANGE", "NESTED_DIV",
                  "DIV_SHIFT", "NESTED_MOD")
#: the library per cvc5 re-check setting: one made while the re-check was off is single-solver, and must not
#: stand in for the library once it is on again (the on-disk cache keys its file by the setting for the same reason)
_LIBS: dict[bool, dict[str, Lemma]] = {}


def _lemma_library() -> dict[str, Lemma]:
    rechecked = _RECHECK[0]
    if rechecked not in _LIBS:
        import sys

        from . import _lemma_cache

        _LIBS[rechecked] = dict(_lemma_cache.library(_library, sys.modules[__name__]))
    return _LIBS[rechecked]


def __getattr__(name: str) -> Any:
    """The library's lemmas (``DIV_MOD_RECOMPOSE`` ..., ``FLATTENING_LEMMAS``: every one, for
    ``prove(..., lemmas=FLATTENING_LEMMAS)``), made on first use; ``CVC5_VERSION``."""
    if name in _LIBRARY_NAMES:
        return _lemma_library()[name]
    if name == "CVC5_VERSION":  # cvc5 is imported on first use (see isomat.proofs.smt)
        return recheck.CVC5_VERSION
    if name == "FLATTENING_LEMMAS":
        return tuple(_lemma_library().values())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
