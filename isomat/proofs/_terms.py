"""Walking Z3 terms, and showing premises consistent: the prover's term-level machinery.

One walk over terms (:func:`_subterms`, and :func:`_guarded_subterms` where the conditions guarding
a term matter) serves every search the prover makes -- free unknowns, quantifiers, sorts, div/mod
terms, function applications. On it rest the parts of :func:`isomat.proofs.prover.prove`'s premise
check that read terms: which axioms define functions by well-founded recursion (consistent by
construction, :func:`_definitions`), a definition unrolled where the hypotheses pin it at points
(:func:`_unrolled`), and a caller's candidate model of the premises (:func:`_candidate_model`),
which the solver then checks. Nothing here decides a proof: the prover does, with a solver.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import z3

#: an :class:`isomat.proofs.prover.Axiom` (read here only through its ``statement``; not imported:
#: the prover imports this module)
_Axiom = Any

def _subterms(*exprs: z3.ExprRef) -> Iterator[z3.ExprRef]:
    """Every distinct subterm of ``exprs``, each once (by Z3's term id), quantifier bodies entered
    (their bound variables appear as de Bruijn variables): the one walk over Z3 terms that the
    prover's searches -- free unknowns, quantifiers, sorts, div/mod terms, function applications --
    filter (see :func:`_guarded_subterms` for the walk that keeps the conditions guarding a term)."""
    stack, seen = list(exprs), set()
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        yield e
        if z3.is_quantifier(e):
            stack.append(e.body())
        elif z3.is_app(e):
            stack.extend(e.children())


def _is_unknown(e: z3.ExprRef) -> bool:
    """An uninterpreted constant: a 0-ary symbol the solver may give any value."""
    return z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED


def _free_consts(*exprs: z3.ExprRef, sorts: tuple[int, ...] | None = None) -> list[Any]:
    """Every uninterpreted constant (a 0-ary symbol of any sort: Int, Real, Bool, bit-vector, an
    uninterpreted sort, an array) that occurs in ``exprs`` -- only those of the sort kinds ``sorts``
    when given -- in order of name."""
    seen = {str(e): e for e in _subterms(*exprs)
            if _is_unknown(e) and (sorts is None or e.sort().kind() in sorts)}
    return [seen[k] for k in sorted(seen)]


def _free_ints(*exprs: z3.ExprRef) -> list[z3.ArithRef]:
    """The integer and bit-vector constants that occur in ``exprs``, in order of name."""
    return _free_consts(*exprs, sorts=(z3.Z3_INT_SORT, z3.Z3_BV_SORT))


def _has_quantifier(e: z3.ExprRef) -> bool:
    return any(z3.is_quantifier(x) for x in _subterms(e))


def _integer_only(*exprs: Any) -> bool:
    """Every term of ``exprs`` is an integer, a Boolean or a function over them (the fragment the
    ``UFNIA`` solver decides); bit-vectors, reals, arrays and the rest need Z3's general solver."""
    fragment = (z3.Z3_INT_SORT, z3.Z3_BOOL_SORT)
    return all(all(x.var_sort(k).kind() in fragment for k in range(x.num_vars())) if z3.is_quantifier(x)
               else x.sort().kind() in fragment for x in _subterms(*exprs))


def _guarded_subterms(exprs: Sequence[z3.ExprRef]) -> Iterator[tuple[tuple[z3.BoolRef, ...], z3.ExprRef]]:
    """Every subterm of ``exprs`` with the conditions under which its value matters: ``A`` for a
    term in ``B`` of ``A → B`` or ``A ∧ B``, ``¬A`` in ``A ∨ B``, the branch condition in ``If``.
    A quantified formula's bound variables become fresh unknowns (a condition on them must hold for
    all of them). Each (term, guards) pair is yielded once."""
    seen: set[tuple[int, tuple[int, ...]]] = set()
    stack: list[tuple[z3.ExprRef, tuple[z3.BoolRef, ...]]] = [(e, ()) for e in exprs]
    while stack:
        e, guards = stack.pop()
        key = (e.get_id(), tuple(g.get_id() for g in guards))
        if key in seen:
            continue
        seen.add(key)
        if z3.is_quantifier(e):
            fresh = [z3.FreshConst(e.var_sort(k), str(e.var_name(k))) for k in range(e.num_vars())]
            stack.append((z3.substitute_vars(e.body(), *reversed(fresh)), guards))
            continue
        if not z3.is_app(e):
            continue
        yield guards, e
        kids = e.children()
        if z3.is_implies(e) or z3.is_and(e):
            stack += [(c, guards + tuple(kids[:k])) for k, c in enumerate(kids)]
        elif z3.is_or(e):
            stack += [(c, guards + tuple(z3.Not(x) for x in kids[:k])) for k, c in enumerate(kids)]
        elif z3.is_app_of(e, z3.Z3_OP_ITE):
            stack += [(kids[0], guards), (kids[1], guards + (kids[0],)), (kids[2], guards + (z3.Not(kids[0]),))]
        else:
            stack += [(c, guards) for c in kids]


def _nonlinear_div_mod(*exprs: z3.ExprRef) -> list[str]:
    """The div/mod terms of ``exprs`` whose dividend or divisor multiplies unknowns together (a
    product of sizes or of an index and a size): nonlinear integer arithmetic, where Z3 most often
    answers ``unknown``."""
    def product(x: z3.ExprRef) -> bool:
        return z3.is_mul(x) and sum(1 for c in x.children() if not z3.is_int_value(c)) >= 2

    found = {e.sexpr()[:120]: None for e in _subterms(*exprs)
             if (z3.is_div(e) or z3.is_idiv(e) or z3.is_mod(e)) and any(product(x) for x in _subterms(*e.children()))}
    return list(found)


#: a candidate model, checked: (function interpretations for z3.substitute_funs, constant values, the text)
_Model = tuple[list[tuple[z3.FuncDeclRef, z3.ExprRef]], list[tuple[z3.ExprRef, z3.ExprRef]], dict[str, str]]


def _candidate_model(model: Mapping[Any, Any] | None) -> _Model:
    """Read a caller's candidate model (see :func:`isomat.proofs.prover.prove`): each uninterpreted function with its
    interpretation as a term over de Bruijn variables (``Var(k)`` the ``k``-th argument, as
    ``z3.substitute_funs`` takes it), each constant with its value, and the model as SMT-LIB text.
    Bad input is a TypeError/ValueError naming the entry."""
    if model is None:
        return [], [], {}
    if not isinstance(model, Mapping):
        raise TypeError(f"model must be a mapping {{function or constant: interpretation}}, got {type(model).__name__}")
    funs: list[tuple[z3.FuncDeclRef, z3.ExprRef]] = []
    consts: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    text: dict[str, str] = {}
    for key, value in model.items():
        if isinstance(key, z3.FuncDeclRef) and key.kind() == z3.Z3_OP_UNINTERPRETED and key.arity() > 0:
            if not callable(value):
                raise TypeError(f"model[{key.name()}] must be a callable from Z3 argument terms to a term, got {value!r}")
            # (named after the function, so the recorded text is the same in every process)
            args = [z3.Const(f"{key.name()}!{k}", key.domain(k)) for k in range(key.arity())]
            body = value(*args)
            if not (isinstance(body, z3.ExprRef) and body.sort() == key.range()):
                raise TypeError(f"model[{key.name()}] must give a Z3 term of sort {key.range()}, got {body!r}")
            text[key.name()] = (f"(lambda ({' '.join(f'({a} {a.sort().sexpr()})' for a in args)}) {body.sexpr()})")
            funs.append((key, z3.substitute(body, *[(a, z3.Var(k, a.sort())) for k, a in enumerate(args)])))
        elif isinstance(key, z3.ExprRef) and _is_unknown(key):
            v = value if isinstance(value, z3.ExprRef) else (
                z3.BoolVal(value) if z3.is_bool(key) else z3.RealVal(value) if z3.is_real(key) else z3.IntVal(value)
                if isinstance(value, int) and z3.is_int(key) else None)
            if v is None or v.sort() != key.sort():
                raise TypeError(f"model[{key}] must be a value of sort {key.sort()}, got {value!r}")
            text[str(key)] = v.sexpr()
            consts.append((key, v))
        else:
            raise TypeError(f"model keys must be uninterpreted functions (z3.Function) or constants, got {key!r}")
    given = set(text)
    for key, body in (*funs, *consts):
        clash = sorted(given & ({a.decl().name() for a in _applications(body)} | {str(c) for c in _free_consts(body)}))
        if clash:
            raise ValueError(f"model[{key.name() if isinstance(key, z3.FuncDeclRef) else key}] uses {', '.join(clash)}, "
                             "which the model interprets too: give each interpretation in terms of the rest only")
    return funs, consts, text


def _under(model: _Model, e: z3.ExprRef) -> z3.ExprRef:
    """``e`` with the model's functions and constants replaced by their interpretations."""
    funs, consts, _ = model
    e = z3.substitute_funs(e, *funs) if funs else e
    return z3.substitute(e, *consts) if consts else e


#: how far a definition is unrolled where the hypotheses mention its function (see :func:`_unrolled`)
_UNROLL = 4


def _unrolled(axioms: Sequence[_Axiom], others: Sequence[z3.BoolRef],
              top: int) -> tuple[list[_Axiom], list[_Axiom], list[z3.BoolRef]] | None:
    """Definitions the hypotheses mention, made quantifier-free for the model search.

    A hypothesis may pin a defined function at a point (``mass(r) == 1``): then the definition is no
    longer consistent by construction. For a function ``f`` defined (see :func:`_definitions`, the
    hypotheses left aside) and mentioned in ``others`` only at ground points ``f(t̄)``, the model
    search gets, instead of ``f``'s quantified axioms, ``0 <= t_p <= top`` for its recursion argument
    ``p`` and the clauses at every point ``t̄[p := k]``, ``k = 0..top`` -- whose values may use ``f``
    only at those points and no other defined function. A model of that extends to a model of the
    definitions: ``f`` keeps its values on those points and takes the rest by recursion (as in
    :func:`_definitions`). Returns ``(definitions, rest, instances)``, or None where this does not
    apply."""
    taken, rest = _definitions(axioms, [])
    by_fn: dict[str, list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]]] = {}
    for a in taken:
        for clause in _clauses(a.statement) or []:
            by_fn.setdefault(clause[1].decl().name(), []).append(clause)
    mentioned = set().union(*(_functions_in(e) for e in others)) & set(by_fn) if others else set()
    if not mentioned:
        return None
    instances: list[z3.BoolRef] = []
    for e in others:
        if _has_quantifier(e) and _functions_in(e) & mentioned:
            return None
        for app in _applications(e):
            f = app.decl().name()
            if f not in mentioned:
                continue
            positions = {k for _, lhs, _ in by_fn[f] for k, x in enumerate(lhs.children())
                         if z3.is_int_value(x) or _offset(x) is not None}
            for _, lhs, v in by_fn[f]:  # the cases form f(.., t, ..) = If(t <= 0, a, b)
                if z3.is_app_of(v, z3.Z3_OP_ITE) and z3.is_le(v.arg(0)):
                    positions |= {k for k, x in enumerate(lhs.children()) if x.eq(v.arg(0).arg(0))}
            if len(positions) != 1:
                return None
            (p,) = positions
            args = app.children()
            instances += [args[p] >= 0, args[p] <= top]
            for k in range(top + 1):
                point = list(args)
                point[p] = z3.IntVal(k, app.ctx)
                for g, lhs, v in by_fn[f]:
                    where, value = _at_point(g, lhs, v, point)
                    where = z3.simplify(where)
                    if z3.is_false(where):
                        continue
                    value = z3.simplify(value)
                    for call in _applications(value):
                        name = call.decl().name()
                        if name not in by_fn:
                            continue
                        at = z3.simplify(call.arg(p))
                        if name != f or not (z3.is_int_value(at) and 0 <= at.as_long() <= top) or not all(
                                call.arg(m).eq(args[m]) for m in range(len(args)) if m != p):
                            return None
                    instances.append(z3.Implies(where, app.decl()(*point) == value))
    unrolled = [a for a in taken if any(c[1].decl().name() in mentioned for c in _clauses(a.statement) or [])]
    kept = [a for a in taken if not any(a is u for u in unrolled)]
    return kept, [*rest, *unrolled[:0]], instances


def _applications(e: z3.ExprRef) -> list[z3.ExprRef]:
    """Every application of an uninterpreted function of one or more arguments in ``e``."""
    return [x for x in _subterms(e) if _is_fn_app(x)]


def _functions_in(e: z3.ExprRef) -> set[str]:
    return {a.decl().name() for a in _applications(e)}


def _offset(e: z3.ExprRef) -> tuple[z3.ExprRef, int] | None:
    """``(v, c)`` when ``e`` is ``v + c`` or ``v - c`` for an integer literal ``c`` (as z3py writes them)."""
    kids = e.children() if z3.is_app(e) else []
    if len(kids) == 2 and z3.is_int_value(kids[1]) and (z3.is_add(e) or z3.is_sub(e)):
        return kids[0], kids[1].as_long() * (1 if z3.is_add(e) else -1)
    return None


def _is_fn_app(e: z3.ExprRef) -> bool:
    return z3.is_app(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED and e.num_args() > 0


#: what :func:`_clauses` read, by term (the statement is kept, so its id is not reused): the same
#: fresh constants each time, so :func:`_defines`'s cache finds a definition it has seen
_CLAUSES: dict[tuple[int, int], tuple[z3.BoolRef, Any]] = {}


def _clauses(stmt: z3.BoolRef) -> list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]] | None:
    key = (id(stmt.ctx), stmt.get_id())
    if key not in _CLAUSES:
        _CLAUSES[key] = (stmt, _read_clauses(stmt))
    return _CLAUSES[key][1]


def _read_clauses(stmt: z3.BoolRef) -> list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]] | None:
    """``stmt`` as defining clauses ``(guards, f(args), value)`` -- ``∀ x̄. G → f(args) = value``,
    conjunctions and nested implications split, a Boolean ``f(args)`` (or its negation) read as
    ``f(args) = True`` (``False``) -- with the bound variables as fresh constants; None when some
    part is no such equation. Each bound variable occurs in the arguments once (alone or as
    ``v + c``), the other arguments are integer literals: a clause speaks of each point once."""
    out: list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]] = []
    todo: list[tuple[list[z3.ExprRef], z3.ExprRef, list[z3.ExprRef]]] = [([], stmt, [])]
    while todo:
        guards, e, bound = todo.pop()
        if z3.is_quantifier(e):
            if not e.is_forall():
                return None
            fresh = [z3.FreshConst(e.var_sort(k), str(e.var_name(k))) for k in range(e.num_vars())]
            todo.append((guards, z3.substitute_vars(e.body(), *reversed(fresh)), bound + fresh))
            continue
        if z3.is_and(e):
            todo += [(guards, c, bound) for c in e.children()]
            continue
        if z3.is_implies(e):
            todo.append((guards + [e.arg(0)], e.arg(1), bound))
            continue
        if z3.is_eq(e) and _is_fn_app(e.arg(0)):
            lhs, value = e.arg(0), e.arg(1)
        elif z3.is_not(e) and _is_fn_app(e.arg(0)) and z3.is_bool(e.arg(0)):
            lhs, value = e.arg(0), z3.BoolVal(False, e.ctx)
        elif _is_fn_app(e) and z3.is_bool(e):
            lhs, value = e, z3.BoolVal(True, e.ctx)
        else:
            return None
        seen: set[int] = set()
        for a in lhs.children():
            off = _offset(a)
            base = off[0] if off is not None else a
            if any(base.eq(b) for b in bound):
                if base.get_id() in seen and off is not None:
                    return None  # (a repeated variable is an equality of coordinates; shifted, it is not kept simple)
                seen.add(base.get_id())
            elif not z3.is_int_value(a):
                return None
        if len(seen) != len(bound):
            return None
        out.append((guards, lhs, value))
    return out


def _at_point(guards: list[z3.ExprRef], lhs: z3.ExprRef, value: z3.ExprRef,
              point: list[z3.ExprRef]) -> tuple[z3.ExprRef, z3.ExprRef]:
    """A clause at the point ``f(point)``: (where it speaks there, the value it gives there)."""
    subst: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    conds: list[z3.ExprRef] = []
    first: dict[int, z3.ExprRef] = {}
    for a, z in zip(lhs.children(), point):
        off = _offset(a)
        if z3.is_int_value(a):
            conds.append(z == a)
        elif off is not None:
            subst.append((off[0], z - off[1]))
        elif a.get_id() in first:
            conds.append(z == first[a.get_id()])  # f(m, m): the clause speaks where the coordinates agree
        else:
            first[a.get_id()] = z
            subst.append((a, z))
    where = z3.And(*conds, *guards) if (conds or guards) else z3.BoolVal(True, lhs.ctx)
    return (z3.substitute(where, *subst) if subst else where), (z3.substitute(value, *subst) if subst else value)


def _calls(e: z3.ExprRef, names: set[str]) -> list[tuple[list[z3.ExprRef], z3.ExprRef]]:
    """The applications of the functions ``names`` in ``e``, each with the conditions under which its
    value matters (see :func:`_guarded_subterms`)."""
    return [(list(guards), x) for guards, x in _guarded_subterms([e]) if _is_fn_app(x) and x.decl().name() in names]


#: what :func:`_defines` found, by the clauses' text (the ledger uses each definition in many proofs)
_DEFINES: dict[tuple[str, ...], bool] = {}


def _defines(f: str, clauses: list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]], earlier: set[str],
             defined: set[str]) -> bool:
    """The clauses of ``f`` define it by well-founded recursion: at each point at most one clause
    speaks (their conditions are pairwise disjoint, shown by Z3); their conditions use no defined
    function; their values use defined functions only from ``earlier`` (at any arguments) and ``f``
    itself at a point where one integer argument has gone down by at least 1 and stays >= 0, the
    others unchanged (shown by Z3 under the clause's conditions): the values of ``f`` then follow by
    recursion on that natural number."""
    key = (f, *sorted(" ".join(g.sexpr() for g in gs) + "|" + lhs.sexpr() + "=" + v.sexpr() for gs, lhs, v in clauses),
           "|", *sorted(earlier & defined))
    if key in _DEFINES:
        return _DEFINES[key]
    lhs0 = clauses[0][1]
    if any(lhs.num_args() != lhs0.num_args() for _, lhs, _ in clauses):
        _DEFINES[key] = False
        return False
    point = [z3.FreshConst(lhs0.arg(k).sort(), "z") for k in range(lhs0.num_args())]
    at = [_at_point(g, lhs, v, point) for g, lhs, v in clauses]
    obligations: list[z3.ExprRef] = []
    ok = all(not (_functions_in(w) & defined) for w, _ in at)
    for i in range(len(at)):
        for j in range(i + 1, len(at)):
            obligations.append(z3.Not(z3.And(at[i][0], at[j][0])))
    for where, value in at if ok else []:
        for guards, call in _calls(value, defined):
            g = call.decl().name()
            if g in earlier and g != f:
                continue
            if g != f:
                ok = False
                break
            downs = [z3.And(a <= z - 1, a >= 0, *(call.arg(m) == point[m] for m in range(len(point)) if m != k))
                     for k, (a, z) in enumerate(zip(call.children(), point)) if z3.is_int(a)]
            if not downs:
                ok = False
                break
            obligations.append(z3.Implies(z3.And(where, *guards), z3.Or(*downs)))
        if not ok:
            break
    if ok and obligations:
        s = z3.Solver(ctx=lhs0.ctx)
        s.set("rlimit", 2_000_000)
        s.add(z3.Not(z3.And(*obligations)))
        ok = s.check() == z3.unsat
    _DEFINES[key] = ok
    return ok


def _definitions(axioms: Sequence[_Axiom], others: Sequence[z3.BoolRef]) -> tuple[list[_Axiom], list[_Axiom]]:
    """Split ``axioms`` into definitions that are consistent by construction and the rest.

    An axiom counts as a definition when it is a conjunction of clauses ``∀ x̄. G → f(args) =
    value`` (see :func:`_clauses`); every function ``f`` it defines is defined by all its clauses
    together by well-founded recursion (see :func:`_defines`); ``f`` occurs in no other axiom but
    definitions, and in none of ``others`` (the hypotheses and antecedents); and the defined
    functions use each other without a cycle. Then every model of the rest extends to a model of
    the definitions: take the defined functions in order of use, and give ``f`` at each point, by
    recursion on the argument that goes down, the value its one clause there says (the value uses
    only the rest's symbols, functions defined before, and ``f`` at lower points) -- any value where
    no clause speaks. So only the rest needs a model (see :func:`isomat.proofs.prover._witness`)."""
    unique: dict[str, _Axiom] = {}
    for a in axioms:
        unique.setdefault(a.statement.sexpr(), a)
    parsed = {id(a): _clauses(a.statement) for a in unique.values()}
    by_fn: dict[str, list[tuple[list[z3.ExprRef], z3.ExprRef, z3.ExprRef]]] = {}
    owners: dict[str, list[_Axiom]] = {}
    for a in unique.values():
        for clause in parsed[id(a)] or []:
            f = clause[1].decl().name()
            by_fn.setdefault(f, []).append(clause)
            if not any(a is o for o in owners.setdefault(f, [])):
                owners[f].append(a)
    candidates = set(by_fn)
    outside: set[str] = set()
    for e in others:
        outside |= _functions_in(e)
    while True:
        taken = [a for a in unique.values() if parsed[id(a)] is not None
                 and all(c[1].decl().name() in candidates for c in parsed[id(a)])]
        mentioned = set(outside)
        for a in unique.values():
            if not any(a is t for t in taken):
                mentioned |= _functions_in(a.statement)
        drop = candidates & mentioned
        # an order of definition: a function after those its clauses use (besides itself)
        uses = {f: set().union(*(_functions_in(v).union(*(_functions_in(x) for x in g)) for g, _, v in by_fn[f]))
                & candidates - {f} for f in candidates}
        order: list[str] = []
        while True:
            ready = sorted(f for f in candidates - set(order) - drop if uses[f] <= set(order))
            if not ready:
                break
            order += ready
        drop |= candidates - set(order)
        if not drop:
            drop = {f for k, f in enumerate(order) if not _defines(f, by_fn[f], set(order[:k]), candidates)}
            if not drop:
                break
        candidates -= drop
    return taken, [a for a in unique.values() if not any(a is t for t in taken)]
