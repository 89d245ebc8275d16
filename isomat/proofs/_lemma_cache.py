"""The prover's flattening lemma library, proved on first use and cached on disk (issue 40).

Proving the seven lemmas of :mod:`isomat.proofs.prover`'s library takes Z3 and cvc5 about two seconds;
every worker process that uses one paid it at import. Now nothing is proved at import: the library is
made on first use, and its proofs' results are kept in a cache file, so a later process makes the
same lemmas without calling a solver.

The cache is untrusted input (any process of the user can write it), so it can only ever save work the
prover would do, never let it accept what it would not prove:

* what a lemma *states* is never read from the cache: each statement is built by the library's own
  code, as when it is proved; the cache answers only "this exact proof request went through, with these
  results" (the lemmas and axioms the proof used, the solvers that agreed, why it is single-solver);
* an entry is found by the digest of the exact request -- the lemma's name, variables, body, closed
  statement (with its triggers), text, the statements of the premises offered, the solver limits --
  and the file itself by a key of the isomat, Z3 and cvc5 versions, the digest of the prover's own
  sources (``prover.py``, ``_terms.py``, ``smt.py`` and the module of ``fdiv``/``fmod``) and the cvc5 re-check setting: a lemma whose
  statement or proof request differs in any way, or a prover changed in any way, finds no entry and is
  proved;
* an entry is validated before use (its fields and their types; the lemmas it says were used are among
  those offered, its axioms among those offered; Z3's answer ``unsat`` at this Z3's version, cvc5's at
  this cvc5's, and ``single_solver`` exactly when cvc5 did not confirm); anything else -- a missing, torn,
  foreign or altered file, or one entry wrong -- discards the whole file and the library is proved;
* the file is written atomically (a temporary file renamed over it), and a directory that cannot be
  written only means the next process proves the library again.

The cache keeps each lemma's obligations as SMT-LIB scripts too (their digests must be those the lemma
carries): a lemma made from the cache notes them as its proof would, so ``isomat verify --export-smt``
writes the very obligations the records cite, whichever process proved them first.

``ISOMAT_LEMMA_CACHE=0`` turns the cache off (every process proves the library); ``ISOMAT_CACHE_DIR``
moves it (default ``$XDG_CACHE_HOME/isomat``, else ``~/.cache/isomat``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

#: the format of the cache file (a file of another format is no cache)
FORMAT = 1
#: the most bytes read from a cache file (the library's is about 4 kB)
_READ_LIMIT = 1 << 20
_ENTRY_KEYS = {"uses", "axioms", "method", "seconds", "solvers", "single_solver", "smt2", "model", "scripts"}
#: whether this process's library was read from the cache
_FROM_CACHE = [False]


def enabled() -> bool:
    """Whether the cache is used (``ISOMAT_LEMMA_CACHE=0``, ``off``, ``false`` or ``no`` turns it off)."""
    return os.environ.get("ISOMAT_LEMMA_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


def cache_dir() -> Path:
    """Where the cache file lives: ``ISOMAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/isomat``, else
    ``~/.cache/isomat``."""
    explicit = os.environ.get("ISOMAT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "isomat"


def _sources_digest(prover: ModuleType) -> str:
    """sha256 of the prover's own sources: any change to how a proof is made invalidates the cache."""
    import sys

    from . import _terms, smt

    h = hashlib.sha256()
    for module in (prover, smt, _terms, sys.modules[prover.fdiv.__module__]):
        h.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
        h.update(b"\0")
    return h.hexdigest()


def _header(prover: ModuleType) -> dict[str, Any]:
    from .. import __version__

    return {"format": FORMAT, "isomat": __version__, "z3": prover.Z3_VERSION, "cvc5": prover.CVC5_VERSION,
            "prover": _sources_digest(prover), "recheck": bool(prover._RECHECK[0])}


def cache_path(header: dict[str, Any]) -> Path:
    """The cache file of this isomat, Z3, cvc5, prover source and re-check setting (a :func:`_header`)."""
    key = hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:20]
    return cache_dir() / f"lemmas-{key}.json"


def request_digest(name: str, variables: Any, body: Any, statement: Any, text: str, using: Any, axioms: Any,
                   limits: dict[str, Any]) -> str:
    """The digest of one exact proof request: everything the proof's outcome depends on but the prover's
    code and the solvers' versions (which key the file)."""
    parts = [name, "|".join(str(v) for v in variables), body.sexpr(), statement.sexpr(), text,
             json.dumps(limits, sort_keys=True)]
    parts += [f"{x.name}:{x.statement.sexpr()}" for x in using]
    parts += [f"axiom {a.name}:{a.statement.sexpr()}" for a in axioms]
    return hashlib.sha256("\n\0".join(parts).encode()).hexdigest()


def _valid_entry(entry: Any, offered: set[str], offered_axioms: set[str], z3_version: str,
                 cvc5_version: str | None) -> bool:
    """An entry says what a proof of this request found, in the form the prover makes it."""
    if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
        return False
    uses, axioms, solvers, single = entry["uses"], entry["axioms"], entry["solvers"], entry["single_solver"]
    if not (isinstance(uses, list) and all(isinstance(u, str) and u in offered for u in uses)
            and isinstance(axioms, list) and all(isinstance(a, str) and a in offered_axioms for a in axioms)):
        return False
    seconds = entry["seconds"]
    if not (isinstance(entry["method"], str) and entry["method"] and isinstance(seconds, (int, float))
            and not isinstance(seconds, bool) and math.isfinite(seconds) and seconds >= 0):
        return False
    if not (isinstance(solvers, list) and all(isinstance(s, dict) and all(isinstance(k, str) for k in s)
                                              and all(isinstance(v, (str, int, float)) for v in s.values())
                                              for s in solvers)):
        return False
    z3s = [s for s in solvers if s.get("name") == "z3"]
    cvc5s = [s for s in solvers if s.get("name") == "cvc5"]
    if len(z3s) != 1 or len(z3s) + len(cvc5s) != len(solvers):
        return False
    if z3s[0].get("version") != z3_version or z3s[0].get("result") != "unsat":
        return False
    if len(cvc5s) > 1 or any(s.get("version") != cvc5_version or s.get("result") not in ("unsat", "unknown")
                             for s in cvc5s):
        return False
    confirmed = bool(cvc5s) and cvc5s[0]["result"] == "unsat"
    if not ((single is None) == confirmed and (single is None or isinstance(single, str))):
        return False
    smt2, model, scripts = entry["smt2"], entry["model"], entry["scripts"]
    if not (isinstance(smt2, list) and all(isinstance(d, str) and re.fullmatch(r"[0-9a-f]{16,64}", d) for d in smt2)
            and isinstance(model, list) and all(isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)
                                                for m in model)
            and isinstance(scripts, list) and all(isinstance(t, str) for t in scripts)):
        return False
    # the obligations' SMT-LIB scripts are exactly those whose digests the lemma carries (an export writes them)
    from . import smt

    return sorted(smt.digest(t) for t in scripts) == sorted(smt2)


def _read(path: Path, header: dict[str, Any]) -> dict[str, Any] | None:
    """The entries of the cache file at ``path``, or None when there is no valid one."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_READ_LIMIT + 1)
        if len(raw) > _READ_LIMIT:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("header") != header or not isinstance(data.get("lemmas"), dict):
        return None
    return data["lemmas"]


def _write(path: Path, header: dict[str, Any], entries: dict[str, Any]) -> None:
    """The cache file, written atomically; a directory that cannot be written is left alone."""
    text = json.dumps({"header": header, "lemmas": entries}, indent=1, allow_nan=False)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".lemmas-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass  # (no cache: the next process proves the library again)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


class _Miss(Exception):
    """A lemma the cache does not answer for (then the whole library is proved)."""


def library(build: Callable[[Callable[..., Any]], dict[str, Any]], prover: ModuleType) -> dict[str, Any]:
    """The lemma library ``build(make)`` makes, each lemma by ``make(name, variables, body, text=, using=,
    axioms=, patterns=)`` -- from the cache when every lemma's exact request is in it, else proved by
    ``prover.lemma`` (:mod:`isomat.proofs.prover`, which passes itself: this module imports no prover)
    and the cache written."""
    from . import smt

    if not enabled():
        _FROM_CACHE[0] = False
        return build(prover.lemma)
    header = _header(prover)
    path = cache_path(header)
    entries = _read(path, header)

    def limits(kw: dict[str, Any]) -> dict[str, Any]:
        return {"rlimit": kw.get("rlimit", prover.DEFAULT_RLIMIT), "timeout_s": kw.get("timeout_s", prover.DEFAULT_TIMEOUT_S),
                "cvc5_rlimit": kw.get("cvc5_rlimit", prover.DEFAULT_CVC5_RLIMIT)}

    def request(name: str, variables: Any, body: Any, kw: dict[str, Any]) -> tuple[str, Any]:
        statement = prover._closed(variables, body, kw.get("patterns", ()))
        return request_digest(name, variables, body, statement, kw["text"], tuple(kw.get("using", ())),
                              tuple(kw.get("axioms", ())), limits(kw)), statement

    def from_cache(name: str, variables: Any, body: Any, **kw: Any) -> Any:
        digest, statement = request(name, variables, body, kw)
        entry = entries.get(digest) if entries is not None else None
        offered = {x.name for x in kw.get("using", ())}
        offered_axioms = {a.name for a in kw.get("axioms", ())}
        if not _valid_entry(entry, offered, offered_axioms, prover.Z3_VERSION, prover.CVC5_VERSION):
            raise _Miss(name)
        prover._check_quantified("lemma", name, variables, (*kw.get("using", ()), *kw.get("axioms", ())))
        assert entry is not None
        made = prover._cached_lemma(name, statement, kw["text"], entry)
        for text in entry["scripts"]:  # noted as a proof notes them: exported now or when an export begins
            smt.record_obligation(text, lemma=name)
        return made

    if entries is not None:
        try:
            made = build(from_cache)
            _FROM_CACHE[0] = True
            return made
        except _Miss:
            pass
    proved: dict[str, Any] = {}
    scripts: dict[str, list[str]] = {}
    noting = smt.record_obligation

    def noted(text: str, *, lemma: str | None = None) -> Any:
        """The library's obligations as the prover notes them, kept for the cache too."""
        if lemma is not None:
            scripts.setdefault(lemma, []).append(text)
        return noting(text, lemma=lemma)

    def proving(name: str, variables: Any, body: Any, **kw: Any) -> Any:
        smt.record_obligation = noted  # type: ignore[assignment]
        try:
            lm = prover.lemma(name, variables, body, **kw)
        finally:
            smt.record_obligation = noting  # type: ignore[assignment]
        digest, _ = request(name, variables, body, kw)
        proved[digest] = {"uses": list(lm.uses), "axioms": list(lm.axioms), "method": lm.method,
                          "seconds": round(float(lm.seconds), 6), "solvers": [dict(s) for s in lm.solvers],
                          "single_solver": lm.single_solver, "smt2": list(lm.smt2),
                          "model": [[k, v] for k, v in lm.model], "scripts": scripts.pop(name, [])}
        return lm

    made = build(proving)
    _FROM_CACHE[0] = False
    _write(path, header, proved)
    return made
