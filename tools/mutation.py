"""Automatic mutation testing of the certified ``isomat.algebra`` functions against the claims that certify them.

Issue 36, item 5: beside the hand-written mutants (``tests/mutants``), a mutation tool's operators are run
over the certified builders, entry rules and backward passes, and each mutant is held against the ledger
claims that certify its function -- not against the test suite.

**The tool.** The mutants are mutmut's (3.x): its libcst operators (``mutmut.mutation.mutators.
mutation_operators``: numbers +1, comparison and arithmetic operator swaps, ``and``/``or``, ``True``/
``False``, argument removal, assignment to ``None``, ``break``/``continue``, ternaries forced down each
arm, ...) and its visitor (``MutationVisitor``: skips annotations, ``len``/``isinstance`` calls,
triple-quoted strings, decorators). mutmut's own runner is not used: it copies the tree into
``mutants/`` and runs pytest per mutant, while the "tests" here are ledger claims, run in-process through
:func:`isomat.proofs.engine.run_claim`. One mutant = one mutmut mutation of one function, compiled
alone and swapped into the live function object (``__code__``, ``__defaults__``), so every caller --
builders, other modules, the prover calling an entry rule on Z3 terms -- runs it, as mutmut's trampoline
would.

**Scope.** The functions of :mod:`tools.certified` (certified functions and their module-private
helpers). Mutations inside a ``raise`` statement are not generated: what a refused call raises is the
test suite's business (``tests/test_guards_everywhere.py``), and no claim passes bad input. Nor are
string mutations of a literal that spells one of the function's parameter names (``_as_dense(x, "x",
...)``, ``_validate.positive("n", n)``): it is the label of that argument in an error message. The run
prints how many mutations each rule left out. Nor are mutations inside a memory-bound check
(``check_size``, ``check_bytes``, ``_check_device``, and stp's ``_check_dense`` that only calls ``check_size``): they change what is refused above the bound, and no
claim builds near it.

**Kill rule.** The claims of a function are those of ``tools/certifies.json`` (the claims whose run
executes it, measured by ``python -m tools.claim_coverage --write-map``). A mutant is *killed* when one of
them gets another (verdict, strength) than without the mutant, an ``error`` included; it is a *timeout*
when one of its claims runs with the mutant past ``--timeout`` seconds or three times that claim's time in
the map, whichever is longer (a hang; counted as killed, and
reported apart; the unmutated runs, made once per tool run and shared, are not on that clock); otherwise
it *survives*. Claims run cheapest first and stop at the first that kills. Each mutant runs in a child
process forked from a parent that has imported the ledger (isolation: a mutant cannot leave state
behind), with one thread, no cvc5 re-check (the builders are mutated, not the proofs), every isomat
``functools`` cache emptied before each claim, and an address-space limit (``--memory-gb``).

**Equivalent mutants** are listed, with a one-line reason each, in ``tools/mutation_equivalent.json``,
keyed by ``module.function operator: original line => mutated line`` (stable across runs while those
lines stand). The score of a module is killed (timeouts included) / (mutants - equivalent).

Usage (from the repository root)::

    python -m tools.mutation --module stp --jobs 2 --json out.json      # one module, every mutant
    python -m tools.mutation --sample 50 --seed 0                       # the CI sample, over every module
    python -m tools.mutation --list --module pool                       # the mutants, not run
    python -m tools.mutation --gpu-standin --key KEY ... --json re.json  # device-only arms, claims in the cupy field

**Arms only a device runs** (``if field == "cupy"``, the CUDA kernels' launches) are not executed by the CPU
run of a claim. ``--gpu-standin`` runs the claims, and their unmutated runs, with the float checks in the cupy
field on the test suite's CuPy stand-in (``tests/cupy_standin``); its records say ``"field": "cupy-standin"``
and ``--report`` lays them over the full run's like any ``--key`` re-run. The mutants killed there are listed in
``tools/mutation_device_arms.json`` (no equivalents: a CPU run cannot see them); a ``--sample`` run, CI's included,
holds such a mutant against its claims on the stand-in, where it must be killed.

Exit status: 1 when a module's score is below ``--min-score`` (default 0.90) in a full run, or, with
``--sample``, when a sampled mutant survives that is not on the equivalent list; 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import importlib
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import resource
import sys
import time
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as the tool: one thread, no cvc5 re-check (never set for a process importing it)
    os.environ.setdefault("ISOMAT_NUM_THREADS", "1")
    os.environ["ISOMAT_RECHECK"] = "0"

from tools import certified  # noqa: E402

EQUIVALENT_PATH = Path(__file__).resolve().with_name("mutation_equivalent.json")


@dataclass
class Mutant:
    """One mutmut mutation of one function in scope."""

    module: str  # isomat.algebra.conv
    function: str  # conv2d_tap
    operator: str  # mutmut's operator function, e.g. operator_swap_op
    line: int  # line of the file where the mutated text starts
    original: str  # that line as written
    mutated: str  # that line in the mutant
    key: str  # module.function operator: original => mutated [#n]
    source: str = field(repr=False, default="")  # the mutated function's source

    @property
    def where(self) -> str:
        return f"{certified.short(self.module)}.{self.function}"


def _operators() -> list[tuple[type, Any]]:
    from mutmut.mutation.mutators import mutation_operators

    return list(mutation_operators)


#: mutations of the functions in scope that :func:`generate` left out, by reason (counted as it goes)
SKIPPED: dict[str, int] = {}


def generate(module: str, function: str) -> list[Mutant]:
    """mutmut's mutants of one function (its ``def`` to its last line; decorators stay as they are)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider
    from mutmut.mutation.file_mutation import MutationVisitor, deep_replace
    from mutmut.mutation.pragma_handling import IgnoredCode, PragmaVisitor

    filename, first, last = certified.span(module, function)
    lines = Path(filename).read_text(encoding="utf-8").splitlines(keepends=True)
    src = "".join(lines[first - 1:last])
    wrapper = MetadataWrapper(cst.parse_module(src))
    pragmas = PragmaVisitor(filename)
    wrapper.visit(pragmas)
    ignored = IgnoredCode(no_mutate_lines=pragmas.no_mutate_lines, ignore_node_lines=pragmas.ignore_node_lines,
                          ignore_pattern_lines=set())
    positions = wrapper.resolve(PositionProvider)
    raises = [(positions[n].start.line, positions[n].end.line) for n in _walk(wrapper.module)
              if isinstance(n, cst.Raise)]
    bounds = [(positions[n].start.line, positions[n].end.line) for n in _walk(wrapper.module)
              if isinstance(n, cst.Call) and _called_name(n) in MEMORY_BOUND_CALLS]
    out: list[Mutant] = []
    seen: dict[str, int] = {}
    base = src.splitlines()
    src_lines = src.splitlines(keepends=True)
    # one visit with every operator; each mutated node remembers the operator that made it
    made_by: dict[int, tuple[str, Any]] = {}

    def tagged(operator: Any) -> Any:
        def op(node: Any) -> Any:
            for mutated in operator(node):
                made_by[id(mutated)] = (operator.__name__, mutated)
                yield mutated
        return op

    fdef = wrapper.module.body[0]
    params = {p.name.value for group in (fdef.params.params, fdef.params.posonly_params, fdef.params.kwonly_params)
              for p in group}
    visitor = MutationVisitor([(t, tagged(o)) for t, o in _operators()], ignored, None)
    wrapper.visit(visitor)
    for mu in visitor.mutations:
        op_name = made_by[id(mu.mutated_node)][0]
        pos = positions.get(mu.original_node)
        if pos is not None and any(a <= pos.start.line and pos.end.line <= b for a, b in raises):
            SKIPPED["in a raise statement"] = SKIPPED.get("in a raise statement", 0) + 1
            continue  # out of scope (see the module docstring)
        if pos is not None and any(a <= pos.start.line and pos.end.line <= b for a, b in bounds):
            SKIPPED["in a memory-bound check"] = SKIPPED.get("in a memory-bound check", 0) + 1
            continue  # out of scope (see the module docstring)
        if (op_name == "operator_string" and isinstance(mu.original_node, cst.SimpleString)
                and mu.original_node.evaluated_value in params):
            SKIPPED["parameter-name label"] = SKIPPED.get("parameter-name label", 0) + 1
            continue  # the name a validator prints in its message (see the module docstring)
        new = _splice(src_lines, pos, wrapper.module.code_for_node(mu.mutated_node)) if pos is not None else \
            deep_replace(wrapper.module, mu.original_node, mu.mutated_node).code  # type: ignore[union-attr]
        if CHECK_SPLICE:
            ref = deep_replace(wrapper.module, mu.original_node, mu.mutated_node).code  # type: ignore[union-attr]
            assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(ref)), (module, function, new, ref)
        if new == src:
            continue
        changed = new.splitlines()
        sm = difflib.SequenceMatcher(a=base, b=changed, autojunk=False)
        op = next(o for o in sm.get_opcodes() if o[0] != "equal")
        i1, i2, j1, j2 = op[1:]
        # whitespace collapsed: the splice may space an operator differently from the file (same code)
        orig_line = " ".join(" ".join(base[i1:i2]).split()) or "(nothing)"
        mut_line = " ".join(" ".join(changed[j1:j2]).split()) or "(removed)"
        key = f"{certified.short(module)}.{function} {op_name}: {orig_line} => {mut_line}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f" #{seen[key]}"
        out.append(Mutant(module, function, op_name, first + i1, orig_line, mut_line, key, new))
    out.sort(key=lambda m: (m.line, m.key))
    return out


#: the memory-bound refusals (isomat._config): what is refused above the bound, never a layer's values
MEMORY_BOUND_CALLS = {"check_size", "check_bytes", "_check_device",
                      "_check_dense"}  # (stp's: check_size of the dense result's entries, nothing else)


def _called_name(call: Any) -> str:
    f = call.func
    return getattr(f, "value", None) if not hasattr(f, "attr") else f.attr.value


#: compare each spliced mutant with mutmut's own rendering (libcst deep_replace): the same Python AST
CHECK_SPLICE = False


def _splice(lines: list[str], pos: Any, text: str) -> str:
    """The function's source with the node at ``pos`` (a libcst CodeRange, 1-based lines, 0-based columns)
    replaced by ``text``: the same source as mutmut's ``deep_replace`` and render, without rendering the
    whole function once per mutant (which made generating the mutants of one module take minutes)."""
    head = lines[pos.start.line - 1][:pos.start.column]
    tail = lines[pos.end.line - 1][pos.end.column:]
    return "".join(lines[:pos.start.line - 1]) + head + text + tail + "".join(lines[pos.end.line:])


def _walk(node: Any):
    yield node
    for child in node.children:
        yield from _walk(child)


def all_mutants(modules: list[str] | None = None) -> list[Mutant]:
    """Every mutant of every function in scope of ``modules`` (all by default), in a fixed order."""
    out: list[Mutant] = []
    for m, names in certified.scope(modules).items():
        for name in names:
            out += generate(m, name)
    return out


GAPS_PATH = Path(__file__).resolve().with_name("mutation_known_gaps.json")
DEVICE_ARMS_PATH = Path(__file__).resolve().with_name("mutation_device_arms.json")


def _load_notes(path: Path, prefix: str, what: str) -> dict[str, str]:
    """A reviewed list, key -> note: every note a string that starts with ``prefix`` (empty when the file is not)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    bad = [k for k, v in data.items() if not (isinstance(v, str) and v.strip().startswith(prefix))]
    if bad:
        raise ValueError(f"{path}: every {what} needs its note, starting {prefix!r}, these have none: {bad}")
    return data


def load_known_gaps(path: Path = GAPS_PATH) -> dict[str, str]:
    """key -> the check that is missing: survivors that are *not* equivalent, each a gap in the claims named
    with what would kill it. They count against the score like any survivor; a sample run fails only on a
    survivor on neither list (a new gap), and on a listed gap that is now killed (take it off the list)."""
    return _load_notes(path, "gap", "known gap")


def load_device_arms(path: Path = DEVICE_ARMS_PATH) -> dict[str, str]:
    """key -> how it was killed: mutants of an arm only the cupy field runs, which survive a CPU run of their claims
    and are killed when the claims run in the cupy field on the CuPy stand-in (``--gpu-standin``). They are no
    equivalents; a sample run holds such a mutant against its claims on the stand-in (:func:`run_sample`), where
    it must be killed."""
    return _load_notes(path, "device arm", "device arm")


def run_sample(mutants: list[Mutant], claims_of: dict[str, list[str]], *, jobs: int = 1, timeout: float = 120.0,
               seconds: dict[str, float] | None = None, memory_gb: float = 8.0,
               baseline: dict[str, Any] | None = None, progress: bool = False) -> list[dict[str, Any]]:
    """One record per mutant, in order: those on the device-arm list held against their claims in the cupy field on
    the stand-in (a CPU run of their claims would run every claim and see nothing), the others on the CPU."""
    arms = load_device_arms()
    cpu = [m for m in mutants if m.key not in arms]
    dev = [m for m in mutants if m.key in arms]
    done = {r["key"]: r for r in run(cpu, claims_of, jobs=jobs, timeout=timeout, seconds=seconds, memory_gb=memory_gb,
                                     baseline=baseline, progress=progress)} if cpu else {}
    if dev:
        done |= {r["key"]: r for r in run(dev, claims_of, jobs=jobs, timeout=timeout, seconds=seconds,
                                          memory_gb=memory_gb, progress=progress, gpu_standin=True)}
    return [done[m.key] for m in mutants]


def load_equivalent(path: Path = EQUIVALENT_PATH) -> dict[str, str]:
    """key -> why the mutant is equivalent (the reviewed list)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    bad = [k for k, v in data.items() if not (isinstance(v, str) and v.strip())]
    if bad:
        raise ValueError(f"{path}: every equivalent mutant needs a reason, these have none: {bad}")
    return data


def sample(mutants: list[Mutant], n: int, seed: int, equivalent: dict[str, str]) -> list[Mutant]:
    """A seeded sample of ``n`` mutants not on the reviewed equivalent list (all of them when fewer): the first ``n``
    of a seeded shuffle of every mutant, the listed ones passed over. The shuffle does not depend on the list, so
    listing a mutant as equivalent replaces it alone (the next one of the shuffle comes in), never the whole sample.
    A listed equivalent survives every claim by its review, so in a sample it would cost the run of all its claims
    (a survivor runs every one) and could only fail as "listed, yet killed": whether each listed mutant is still
    equivalent is the full per-module run's business, which reports the listed mutants it kills."""
    order = list(mutants)
    random.Random(seed).shuffle(order)
    return [m for m in order if m.key not in equivalent][:n]


# --- running ---------------------------------------------------------------------------------------------


class _Swap:
    """A mutant's compiled function, swapped in and out of the live function object."""

    def __init__(self, m: Mutant):
        import __future__

        module = importlib.import_module(m.module)
        self.target = certified.plain_function(getattr(module, m.function))
        assert self.target is not None
        filename, first, _ = certified.span(m.module, m.function)
        flags = __future__.annotations.compiler_flag if "annotations" in vars(module) else 0
        code = compile("\n" * (first - 1) + m.source, filename, "exec", flags=flags, dont_inherit=True)
        local: dict[str, Any] = {}
        exec(code, module.__dict__, local)  # defines the mutant in `local`, its globals the module's
        fn = local[m.function]
        self.new = (fn.__code__, fn.__defaults__, fn.__kwdefaults__)
        self.old = (self.target.__code__, self.target.__defaults__, self.target.__kwdefaults__)

    def _set(self, state: tuple[types.CodeType, Any, Any]) -> None:
        self.target.__code__, self.target.__defaults__, self.target.__kwdefaults__ = state

    def __enter__(self) -> None:
        self._set(self.new)

    def __exit__(self, *exc: Any) -> None:
        self._set(self.old)


class _Ledger:
    """The parent's state that forked children inherit: the loaded ledger and the caches to empty."""

    def __init__(self, papers: list[str]):
        from isomat.proofs import prover
        from tools.claim_coverage import isomat_caches, load_ledger

        prover.set_recheck(False)
        self.registry = load_ledger(papers)
        self.caches = isomat_caches()
        self.baseline: dict[str, tuple[str, Any]] = {}

    def run(self, cid: str) -> tuple[str, Any, str | None]:
        from isomat.proofs.engine import run_claim

        for c in self.caches:
            c.cache_clear()
        rec = run_claim(self.registry[cid])
        return rec["verdict"], rec["strength"], rec.get("error")


def _child(conn: Any, ledger: _Ledger, m: Mutant, claims: list[str], memory_gb: float) -> None:
    """Run one mutant's claims in this (forked) process and send the result."""
    if memory_gb > 0:
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    result: dict[str, Any] = {"baseline": {}, "final": True}
    try:
        swap = _Swap(m)
    except Exception as exc:  # noqa: BLE001 -- a mutant that does not compile is reported, not run
        conn.send({"status": "invalid", "reason": f"{type(exc).__name__}: {exc}", "baseline": {}, "final": True})
        return
    status, reason = "survived", None
    for cid in claims:
        before = ledger.baseline.get(cid)
        fresh = {}
        if before is None:  # the unmutated run, once per tool run, shared through the parent
            v, s, err = ledger.run(cid)
            before = fresh[cid] = (v, s)
        conn.send({"baseline": fresh, "final": False, "next": cid})  # the parent's clock restarts for this claim
        if before[0] == "error":
            reason = f"{cid} is an error without the mutant"
            continue
        with swap:
            v, s, err = ledger.run(cid)
        if (v, s) != tuple(before):
            status = "killed"
            reason = f"{cid}: {before[0]}/{before[1]} -> {v}/{s}" + (f" ({err[:160]})" if err else "")
            break
    ru = resource.getrusage(resource.RUSAGE_SELF)  # this forked child's own CPU time (load-independent cost)
    result.update(status=status, reason=reason, cpu_s=round(ru.ru_utime + ru.ru_stime, 2))
    conn.send(result)


#: a mutated claim's time limit is the larger of ``timeout`` and this many times the claim's own time in the
#: map (tools/certifies.json): a claim that took 50 s there is not a hang at 61 s
SLOW_FACTOR = 3.0


def run(mutants: list[Mutant], claims_of: dict[str, list[str]], *, jobs: int = 1, timeout: float = 120.0,
        memory_gb: float = 8.0, seconds: dict[str, float] | None = None, progress: bool = False,
        papers: list[str] | None = None, baseline: dict[str, Any] | None = None,
        gpu_standin: bool = False) -> list[dict[str, Any]]:
    """Run each mutant against the claims of its function (``claims_of["module:function"]``); one record each.

    ``baseline`` (claim id -> (verdict, strength) without any mutant) spares those unmutated runs; give it
    only for the very code it was run on, in the same field (:func:`map_baseline`). Other claims' unmutated runs
    are made as they are first needed.

    ``gpu_standin``: the claims run with their float checks in the cupy field (as ``isomat verify --backend cupy``),
    on the test suite's CuPy stand-in (``tests/cupy_standin``, NumPy underneath, as strict as CuPy), the unmutated
    runs too; each record says ``"field": "cupy-standin"``. This is how a mutation of an arm that only the cupy
    field runs is held against the claims without a device.

    Children are forked from this process (Linux ``fork``), ``jobs`` at a time; they inherit the stand-in and the
    float field."""
    seconds = seconds or {}
    wanted = sorted({c for m in mutants for c in claims_of.get(f"{m.module}:{m.function}", [])})
    if papers is None:
        from isomat.proofs.engine import PAPERS

        papers = sorted({c.split(":", 1)[0] for c in wanted} & set(PAPERS))
    from isomat.proofs import prover

    recheck = prover.set_recheck(False)  # the caller's setting comes back when the run ends
    try:
        with contextlib.ExitStack() as stack:
            if gpu_standin:
                from isomat.proofs.engine import using_float_backend
                from tools.claim_coverage import _standin_installed

                stack.enter_context(_standin_installed())
                stack.enter_context(using_float_backend("cupy"))
            records = _run(mutants, claims_of, _Ledger(papers), jobs=jobs, timeout=timeout, memory_gb=memory_gb,
                           seconds=seconds, progress=progress, baseline=baseline, wanted=wanted)
        return [{**r, "field": "cupy-standin"} for r in records] if gpu_standin else records
    finally:
        prover.set_recheck(recheck)


def _run(mutants: list[Mutant], claims_of: dict[str, list[str]], ledger: _Ledger, *, jobs: int, timeout: float,
         memory_gb: float, seconds: dict[str, float], progress: bool, baseline: dict[str, Any] | None,
         wanted: list[str]) -> list[dict[str, Any]]:
    if baseline:
        ledger.baseline.update({c: tuple(v) for c, v in baseline.items()})
    missing = [c for c in wanted if c not in ledger.registry]
    if missing:
        raise ValueError(f"claims not in the ledger: {missing} (rerun python -m tools.claim_coverage --write-map)")
    ctx = multiprocessing.get_context("fork")
    records: list[dict[str, Any] | None] = [None] * len(mutants)
    todo = list(range(len(mutants)))
    running: dict[Any, tuple[int, Any, float]] = {}  # conn -> (index, process, deadline)
    t_start = time.perf_counter()
    done = 0
    while todo or running:
        while todo and len(running) < jobs:
            i = todo.pop(0)
            m = mutants[i]
            claims = sorted(claims_of.get(f"{m.module}:{m.function}", []), key=lambda c: (seconds.get(c, 1.0), c))
            rec = {**{k: v for k, v in asdict(m).items() if k != "source"}, "claims": len(claims),
                   "started": time.perf_counter()}
            if not claims:
                del rec["started"]
                records[i] = {**rec, "status": "survived", "reason": "no claim runs this function", "seconds": 0.0}
                done += 1
                continue
            parent, child = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(child, ledger, m, claims, memory_gb), daemon=True)
            p.start()
            child.close()
            running[parent] = (i, p, time.perf_counter() + timeout, rec)
        if not running:
            continue
        now = time.perf_counter()
        ready = multiprocessing.connection.wait(list(running), timeout=max(0.0, min(d for _, _, d, _ in running.values()) - now))
        for conn in list(running):
            i, p, deadline, rec = running[conn]
            if conn in ready:
                try:
                    res = conn.recv()
                except EOFError:  # the child died without a word (a crash, the memory limit)
                    p.join()
                    res = {"status": "killed", "reason": f"the run died (exit code {p.exitcode})", "baseline": {}}
                if not res.get("final", True):
                    # an unmutated run's verdicts: kept for later mutants; the mutant's clock restarts
                    ledger.baseline.update(res["baseline"])
                    limit = max(timeout, SLOW_FACTOR * seconds.get(res.get("next"), 0.0))
                    running[conn] = (i, p, time.perf_counter() + limit, rec)
                    continue
            elif time.perf_counter() >= deadline:
                p.kill()
                res = {"status": "timeout", "reason": f"its claims ran past {timeout:g} s", "baseline": {}}
            else:
                continue
            p.join()
            conn.close()
            del running[conn]
            ledger.baseline.update(res.pop("baseline"))
            res.pop("final", None)
            records[i] = {**rec, **res, "seconds": round(time.perf_counter() - rec["started"], 2)}
            del records[i]["started"]
            done += 1
            if progress:
                print(f"[{done}/{len(mutants)} {time.perf_counter() - t_start:6.0f}s] {records[i]['status']:8s} "
                      f"{mutants[i].key[:110]}", file=sys.stderr, flush=True)
    return [r for r in records if r is not None]


def map_baseline(cmap: dict[str, Any]) -> dict[str, Any] | None:
    """The map's recorded verdicts when they were run on this very code (same :func:`certified.source_digest`:
    the runs are deterministic, under the same settings), else None (the tool runs the claims itself)."""
    if cmap.get("source_digest") != certified.source_digest() or "verdicts" not in cmap:
        return None
    return cmap["verdicts"]


def summarize(records: list[dict[str, Any]], equivalent: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per module: mutants, killed, timeout, survived, equivalent, invalid, score."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        row = out.setdefault(certified.short(r["module"]), {"mutants": 0, "killed": 0, "timeout": 0, "survived": 0,
                                                              "equivalent": 0, "invalid": 0})
        r.pop("equivalent_but_killed", None)  # judged against today's list, not the one of the run that wrote r
        row["mutants"] += 1
        if r["status"] == "invalid":
            row["invalid"] += 1
        elif r["key"] in equivalent:
            row["equivalent"] += 1
            # an "equivalent" mutant that a claim kills is no equivalent; a timeout on a busy machine says nothing
            if r["status"] == "killed":
                r["equivalent_but_killed"] = True
        else:
            row[r["status"]] += 1
    for row in out.values():
        counted = row["mutants"] - row["equivalent"] - row["invalid"]
        row["score"] = round((row["killed"] + row["timeout"]) / counted, 4) if counted else None
    return out


def module_sha256(module: str) -> str:
    """sha256 of a module's source file (``conv`` or ``isomat.algebra.conv``): what a run's records were made on."""
    import hashlib

    name = certified.module_name(module)
    return hashlib.sha256((certified.ROOT / (name.replace(".", "/") + ".py")).read_bytes()).hexdigest()


def _commit() -> str | None:
    """The checkout's commit, with ``+dirty`` when ``isomat/`` differs from it (None outside a git checkout)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=certified.ROOT, capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "isomat"], cwd=certified.ROOT,
                               capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


def report(paths: list[Path], *, markdown: Path | None = None, min_score: float = 0.90) -> int:
    """The score per module over the records of several ``--json`` files of full runs (one module each, or
    several), counted against today's equivalent and known-gap lists. A module whose source file changed since
    its run is reported *stale* (its score no longer says anything about the code) and none is reported twice.
    Exit status 1 when a current module scores below ``min_score``, a listed equivalent was killed, or a module
    in scope has no current run; 2 on an unreadable or partial file. A ``--key`` run's records replace those of the
    same mutants in their module's full run, when made on the very same module source (a re-run after a check was
    added)."""
    equivalent, gaps = load_equivalent(), load_known_gaps()
    runs: dict[str, dict[str, Any]] = {}
    reruns: list[tuple[Path, dict[str, Any]]] = []  # --key runs, laid over the full runs below
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            records, sha = data["mutants"], data["module_sha256"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"--report: {path}: not a --json file of a run with module digests ({exc})", file=sys.stderr)
            return 2
        if data.get("sample") is not None or data.get("function"):
            print(f"--report: {path}: a sampled run, not a full one", file=sys.stderr)
            return 2
        if data.get("key"):
            reruns.append((path, data))
            continue
        for module in sorted({certified.short(r["module"]) for r in records}):
            if module in runs:
                print(f"--report: module {module} is in {runs[module]['path']} and in {path}", file=sys.stderr)
                return 2
            mine = [r for r in records if certified.short(r["module"]) == module]
            expected = len(all_mutants([certified.module_name(module)]))
            runs[module] = {"path": path, "records": mine, "sha": sha.get(module), "commit": data.get("commit"),
                            "seconds": data.get("seconds"), "jobs": data.get("jobs"), "expected": expected}
    for path, data in reruns:  # a later run of named mutants replaces their records, on the very same module source
        for r in data["mutants"]:
            module = certified.short(r["module"])
            base = runs.get(module)
            if base is None or base["sha"] != data["module_sha256"].get(module):
                print(f"--report: {path}: {r['key']} was re-run on another source of {module} than its full run's",
                      file=sys.stderr)
                return 2
            mine = base["records"]
            at = [i for i, old in enumerate(mine) if old["key"] == r["key"]]
            if not at:
                print(f"--report: {path}: {r['key']} is in no full run of {module}", file=sys.stderr)
                return 2
            mine[at[0]] = {**r, "rerun": str(path.name)}
    scope = sorted(certified.short(m) for m in certified.CERTIFIED)
    table: dict[str, dict[str, Any]] = {}
    for module in scope:
        run_ = runs.get(module)
        if run_ is None:
            table[module] = {"state": "not run"}
            continue
        row = summarize(run_["records"], equivalent)[module]
        current = run_["sha"] == module_sha256(module)
        complete = len(run_["records"]) == run_["expected"]
        row["state"] = "current" if current and complete else ("stale" if not current else "incomplete")
        row |= {"commit": run_["commit"], "seconds": run_["seconds"], "jobs": run_["jobs"]}
        table[module] = row
    everything = [r for run_ in runs.values() for r in run_["records"]]
    stale_equivalents = [r["key"] for r in everything if r.get("equivalent_but_killed")]
    counted = {k: sum(row.get(k, 0) for row in table.values() if row["state"] == "current")
               for k in ("mutants", "killed", "timeout", "survived", "equivalent", "invalid")}
    base = counted["mutants"] - counted["equivalent"] - counted["invalid"]
    total = (counted["killed"] + counted["timeout"]) / base if base else None
    lines = [f"{'module':14s} {'state':10s} {'mutants':>7s} {'killed':>6s} {'timeout':>7s} {'survived':>8s} "
             f"{'equiv':>5s} {'invalid':>7s} {'score':>6s}"]
    for module, row in table.items():
        if row["state"] == "not run":
            lines.append(f"{module:14s} {'not run':10s}")
            continue
        score = "  -   " if row["score"] is None else f"{100 * row['score']:5.1f}%"
        lines.append(f"{module:14s} {row['state']:10s} {row['mutants']:7d} {row['killed']:6d} {row['timeout']:7d} "
                     f"{row['survived']:8d} {row['equivalent']:5d} {row['invalid']:7d} {score}")
    if total is not None:
        lines.append(f"{'all current':25s} {counted['mutants']:7d} {counted['killed']:6d} {counted['timeout']:7d} "
                     f"{counted['survived']:8d} {counted['equivalent']:5d} {counted['invalid']:7d} {100 * total:5.1f}%")
    print("\n".join(lines))
    survivors = [r for r in everything if r["status"] == "survived" and r["key"] not in equivalent]
    for r in survivors:
        print(f"  survivor {r['key']}: {gaps.get(r['key'], 'NOT LISTED: neither an equivalent nor a known gap')}")
    if stale_equivalents:
        print("listed as equivalent but killed (take them off the list):\n  " + "\n  ".join(stale_equivalents))
    if markdown is not None:
        _write_report(markdown, table, everything, survivors, equivalent, gaps, total, counted)
    low = [m for m, row in table.items() if row["state"] == "current" and row["score"] is not None and row["score"] < min_score]
    missing = [m for m, row in table.items() if row["state"] != "current"]
    if missing:
        print(f"no current full run of: {', '.join(missing)}")
    return 1 if low or stale_equivalents or missing or any(r["key"] not in gaps for r in survivors) else 0


def _write_report(path: Path, table: dict[str, dict[str, Any]], records: list[dict[str, Any]],
                  survivors: list[dict[str, Any]], equivalent: dict[str, str], gaps: dict[str, str], total: float | None,
                  counted: dict[str, int]) -> None:
    from collections import Counter

    out = ["# Mutation score of the certified code", "",
           "Generated by `python -m tools.mutation --report RUN.json ... --markdown docs/guide/mutation-score.md` from",
           "full runs of `python -m tools.mutation --module M --json RUN.json` (mutmut's operators over every function",
           "`tools/certified.py` puts in scope; each mutant held against the ledger claims that execute its function;",
           "the tool's docstring says how). The score of a module is killed (timeouts included) over the mutants that",
           "are neither listed as equivalent nor invalid. A module whose file changed since its run is *stale*; *not run*:",
           "no full run of it was given to the report. A run's kills are those of the claims at its commit (\"run at\"):",
           "the module's own file is unchanged since, its claims may have gained checks; CI re-runs a seeded sample of 50",
           "mutants at every commit (`tests/test_mutation_tool.py`).", "",
           "| module | state | run at | mutants | killed | timeout | survived | equivalent | invalid | score |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for module, row in table.items():
        if row["state"] == "not run":
            out.append(f"| `{module}` | not run | | | | | | | | |")
            continue
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f}%"
        commit = (row.get("commit") or "?")[:12]
        out.append(f"| `{module}` | {row['state']} | `{commit}` | {row['mutants']} | {row['killed']} | {row['timeout']} | "
                   f"{row['survived']} | {row['equivalent']} | {row['invalid']} | {score} |")
    if total is not None:
        out.append(f"| **all current** | | | {counted['mutants']} | {counted['killed']} | {counted['timeout']} | "
                   f"{counted['survived']} | {counted['equivalent']} | {counted['invalid']} | **{100 * total:.1f}%** |")
    standin = [r for r in records if r.get("field") == "cupy-standin"]
    if standin:
        out += ["", f"{len(standin)} mutants were re-run with `--gpu-standin`: their claims ran with the float checks in "
                    "the cupy field, on the test suite's CuPy stand-in (`tests/cupy_standin`, NumPy underneath), as "
                    "`isomat verify --backend cupy` runs them on a device. These are mutations of arms that only the cupy "
                    f"field runs. {sum(r['status'] == 'killed' for r in standin)} of them were killed there "
                    f"({sum(r['status'] == 'timeout' for r in standin)} by timeout)."]
    out += ["", "## Survivors that count against the score", ""]
    out += [f"- `{r['key']}` -- {gaps.get(r['key'], 'not listed')}" for r in survivors] or ["None."]
    out += ["", "## Equivalent mutants, by reason", "",
            "Each is listed with its one-line reason in `tools/mutation_equivalent.json`; the most common reasons:", ""]
    reasons = Counter(equivalent[r["key"]] for r in records if r["key"] in equivalent)
    out += [f"- {n} x {why}" for why, n in reasons.most_common(15)]
    out += ["", f"{sum(reasons.values())} equivalent mutants over {len(reasons)} distinct reasons.", ""]
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("\n".join(out), encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", help="a module in scope (conv, pool, ...); repeatable; default all")
    ap.add_argument("--function", action="append", help="only these functions (names in the chosen modules)")
    ap.add_argument("--key", action="append",
                    help="only this mutant (its key, as --list and the records give it); repeatable: a re-run whose records "
                         "--report lays over a full run's")
    ap.add_argument("--sample", type=int, help="run a seeded random sample of this many mutants")
    ap.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds for one mutant's claims (default 120)")
    ap.add_argument("--memory-gb", type=float, default=8.0, help="address-space limit of a mutant's run (0: none)")
    ap.add_argument("--min-score", type=float, default=0.90, help="least score per module of a full run (0.90)")
    ap.add_argument("--gpu-standin", action="store_true",
                    help="run the claims in the cupy field on the test suite's CuPy stand-in (the arms only a device runs)")
    ap.add_argument("--json", type=Path, help="write every mutant's record and the table here")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--report", type=Path, nargs="+", metavar="JSON",
                    help="no run: merge the records of these --json files of full runs into one score table")
    ap.add_argument("--markdown", type=Path, help="with --report: also write the table and every survivor here")
    args = ap.parse_args(argv)
    if args.report:
        return report(args.report, markdown=args.markdown, min_score=args.min_score)
    if args.markdown:
        ap.error("--markdown goes with --report")
    for name, value, low in (("--jobs", args.jobs, 1), ("--sample", args.sample, 1)):
        if value is not None and value < low:
            ap.error(f"{name} must be >= {low}, got {value}")
    if args.timeout <= 0:
        ap.error(f"--timeout must be > 0, got {args.timeout}")
    try:
        modules = [certified.module_name(m) for m in args.module] if args.module else None
    except ValueError as exc:
        ap.error(str(exc))
    mutants = all_mutants(modules)
    for option, wanted, field_ in (("--function", args.function, "function"), ("--key", args.key, "key")):
        if wanted:  # only the mutants of these functions, or these very mutants
            unknown = set(wanted) - {getattr(m, field_) for m in mutants}
            if unknown:
                ap.error(f"{option}: no mutant with {field_} {sorted(unknown)} in the chosen modules")
            mutants = [m for m in mutants if getattr(m, field_) in set(wanted)]
    if args.sample is not None:
        mutants = sorted(sample(mutants, args.sample, args.seed, load_equivalent()), key=lambda m: (m.module, m.line, m.key))
    left_out = ", ".join(f"{n} {why}" for why, n in sorted(SKIPPED.items())) or "none"
    if args.list:
        for m in mutants:
            print(f"{m.module}:{m.line}  {m.key}")
        print(f"{len(mutants)} mutants (mutations left out of scope: {left_out})")
        return 0
    cmap = certified.load_map()
    equivalent = load_equivalent()
    # what the run is made on, taken before it starts (the checkout may move on while it runs)
    commit, digests = _commit(), {certified.short(m): module_sha256(m) for m in sorted({m.module for m in mutants})}
    t0 = time.perf_counter()
    base = None if args.gpu_standin else map_baseline(cmap)  # the map's verdicts are the CPU field's
    print(f"unmutated verdicts: {'from tools/certifies.json (same isomat sources)' if base else 'run here (tools/certifies.json was derived from other isomat sources, or the field differs)'}",
          file=sys.stderr)
    if args.sample is not None and not args.gpu_standin:  # a device arm's kill is on the stand-in
        records = run_sample(mutants, cmap["functions"], jobs=args.jobs, timeout=args.timeout,
                             seconds=cmap.get("seconds"), memory_gb=args.memory_gb, baseline=base, progress=True)
    else:
        records = run(mutants, cmap["functions"], jobs=args.jobs, timeout=args.timeout, memory_gb=args.memory_gb,
                      seconds=cmap.get("seconds"), progress=True, baseline=base, gpu_standin=args.gpu_standin)
    wall = time.perf_counter() - t0
    table = summarize(records, equivalent)
    print(f"\n{'module':14s} {'mutants':>7s} {'killed':>6s} {'timeout':>7s} {'survived':>8s} {'equiv':>5s} "
          f"{'invalid':>7s} {'score':>6s}")
    for mod, row in table.items():
        score = "  -   " if row["score"] is None else f"{100 * row['score']:5.1f}%"
        print(f"{mod:14s} {row['mutants']:7d} {row['killed']:6d} {row['timeout']:7d} {row['survived']:8d} "
              f"{row['equivalent']:5d} {row['invalid']:7d} {score}")
    gaps = load_known_gaps()
    known = [r for r in records if r["status"] == "survived" and r["key"] in gaps]
    if known:
        print(f"\nknown gaps (survivors on tools/mutation_known_gaps.json, counted against the score): {len(known)}")
        for r in known:
            print(f"  {r['module']}:{r['line']}  {r['function']}: {gaps[r['key']]}")
    survivors = [r for r in records if r["status"] == "survived" and r["key"] not in equivalent and r["key"] not in gaps]
    if survivors:
        print("\nnew survivors (on neither tools/mutation_equivalent.json nor tools/mutation_known_gaps.json):")
        for r in survivors:
            print(f"  {r['module']}:{r['line']}  {r['key']}  [{r['claims']} claims{'; ' + r['reason'] if r.get('reason') else ''}]")
    closed = [r["key"] for r in records if r["status"] == "killed" and r["key"] in gaps]
    if closed:
        print("\nlisted as known gaps but now killed (take them off the list):\n  " + "\n  ".join(closed))
    stale = [r["key"] for r in records if r.get("equivalent_but_killed")] + closed
    if stale:
        print("\nlisted as equivalent but killed (take them off the list):\n  " + "\n  ".join(stale))
    timeouts = [r["key"] for r in records if r["status"] == "timeout"]
    if timeouts:
        print("\ntimeouts (hangs, counted as killed):\n  " + "\n  ".join(timeouts))
    cpu = sum(r.get("cpu_s", 0.0) for r in records)
    print(f"\n{len(records)} mutants in {wall:.1f} s with {args.jobs} job(s) ({cpu:.0f} CPU s in the mutants' "
          f"processes, baselines included); mutations left out of scope: {left_out}")
    if args.json:
        args.json.write_text(json.dumps({"sample": args.sample, "seed": args.seed if args.sample else None,
                                         "function": args.function, "key": args.key, "gpu_standin": args.gpu_standin,
                                         "jobs": args.jobs, "timeout": args.timeout, "seconds": round(wall, 1),
                                         "commit": commit, "module_sha256": digests,
                                         "left_out": dict(SKIPPED), "modules": table, "mutants": records}, indent=1) + "\n", encoding="utf-8")
    if args.sample is not None:
        return 1 if survivors or stale else 0
    low = [m for m, row in table.items() if row["score"] is not None and row["score"] < args.min_score]
    return 1 if low or stale else 0


if __name__ == "__main__":
    sys.exit(main())
