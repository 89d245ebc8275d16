"""Running claims in worker processes, each claim contained (issue 37, items 3 and 5).

The runner (:func:`run_in_workers`) starts each worker as a fresh interpreter in a session (process
group) of its own, its standard input on ``/dev/null`` and its standard output and error on a file
the runner owns (never the caller's stdout: a process a check leaves behind cannot hold the caller's
pipes). Runner and worker talk over two pipes in length-prefixed frames of JSON text -- never pickles
-- of bounded size; the runner reads them without blocking, so a partial frame or garbage written
into the pipe by a check fails that worker's claim, never the run.

Records are built in the runner, from plain data: the head of a record (id, paper, quote, statement,
methods, hypotheses) is the runner's own :class:`~isomat.proofs.engine.Claim`; the verdict, strength
and evidence a worker sends are validated against ``ledger.schema.json`` and the engine's
verdict/strength rules, and ``sizes``, ``obligations`` and ``second_solver`` of a proved record are
derived again from the evidence. A worker answers only for the claim it was given (the id is
checked; a second answer is refused).

Trust: the papers' claims (modules ``isomat.proofs.<paper>``) are the package's own code; their
workers import only them and are reused from claim to claim. A user's claim (a ``--claims`` file, a
module of one's own) runs in a worker of its own, started for that claim alone and ended after it:
a check that patches the engine in its worker (``engine._record_of``, ``_outcome_problem``) or
forges its worker's answer can change only its own record. On Linux such a worker is forked from a
*template* process that imported the claims' file once and runs no claim itself (issue 40: a handful
of cheap claims without an interpreter start and an import each): every claim still gets a process
of its own, a copy of the template as it was after the import (``ISOMAT_FORK_WORKERS=0``: a fresh
interpreter per claim instead).

Nothing outlives a run: a worker sets itself as the subreaper of what its checks start
(``PR_SET_CHILD_SUBREAPER``) and kills every descendant after each claim; the runner kills a
worker's process group when it ends it, and every process still carrying the run's tag in its
environment (a grandchild that called ``setsid`` and whose worker is gone) at the end of the run.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from . import engine

#: the largest message a worker may send (the ledger's largest record is about 110 kB)
MESSAGE_LIMIT = 16 * 2**20
#: the deepest nesting a worker's message may have (the ledger's records nest 13 deep)
DEPTH_LIMIT = 100
#: the environment variable that tags a worker and everything it starts (``<run>.<worker>``)
TAG_VARIABLE = "ISOMAT_WORKER"
_HEADER = struct.Struct("!Q")


class MessageError(ValueError):
    """A worker's message that is not one: too large, not JSON, too deep, or not what was asked."""


# ---------------------------------------------------------------------------------------------
# Frames of JSON text
# ---------------------------------------------------------------------------------------------
def encode(message: Any) -> bytes:
    """One frame: 8-byte length, then the JSON text (NaN and infinities refused: they are no JSON)."""
    body = json.dumps(message, allow_nan=False, ensure_ascii=True).encode("ascii")
    return _HEADER.pack(len(body)) + body


_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _refuse_constant(name: str) -> Any:
    raise MessageError(f"{name} is not JSON")


def decode(body: bytes) -> Any:
    """The JSON value of a frame's body, refusing bad text, ``NaN``, and nesting deeper than
    :data:`DEPTH_LIMIT` (checked before parsing, so the parser never recurses that deep)."""
    depth = opened = 0
    # strings are skipped whole (a bracket inside one is no nesting)
    for match in _TOKENS.finditer(body):
        tok = match.group()
        if tok in (b"[", b"{"):
            opened += 1
            depth = max(depth, opened)
            if depth > DEPTH_LIMIT:
                raise MessageError(f"the message nests deeper than {DEPTH_LIMIT} levels")
        elif tok in (b"]", b"}"):
            opened -= 1
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except MessageError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MessageError(f"the message is not JSON text ({type(exc).__name__}: {str(exc)[:200]})") from None


class FrameReader:
    """Frames arriving on a non-blocking pipe: :meth:`feed` reads what is there and returns the
    complete frames' values; a frame over :data:`MESSAGE_LIMIT` is refused at its header."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self.buffer = bytearray()
        self.closed = False

    def feed(self) -> list[Any]:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                break
            self.buffer += chunk
            if len(self.buffer) > MESSAGE_LIMIT + _HEADER.size:
                break
        out = []
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if size > MESSAGE_LIMIT:
                raise MessageError(f"a message of {size} bytes announced, over the limit of {MESSAGE_LIMIT}")
            if len(self.buffer) < _HEADER.size + size:
                break
            body = bytes(self.buffer[_HEADER.size:_HEADER.size + size])
            del self.buffer[:_HEADER.size + size]
            out.append(decode(body))
        return out


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exactly(fd: int, n: int) -> bytes | None:
    parts = bytearray()
    while len(parts) < n:
        chunk = os.read(fd, n - len(parts))
        if not chunk:
            return None
        parts += chunk
    return bytes(parts)


def _read_frame(fd: int) -> Any:
    """A worker's blocking read of the runner's next frame (None at the end of the pipe)."""
    head = _read_exactly(fd, _HEADER.size)
    if head is None:
        return None
    (size,) = _HEADER.unpack(head)
    if size > MESSAGE_LIMIT:
        raise MessageError(f"a command of {size} bytes")
    body = _read_exactly(fd, size)
    return None if body is None else decode(body)


# ---------------------------------------------------------------------------------------------
# Records built in the runner
# ---------------------------------------------------------------------------------------------
_SCHEMA_KEYWORDS = {"type", "enum", "const", "pattern", "minLength", "minItems", "minimum", "required",
                    "properties", "additionalProperties", "items", "allOf", "if", "then", "$ref"}
_IGNORED_KEYWORDS = {"$schema", "$id", "title", "description", "$defs"}
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    schema = json.loads(Path(__file__).with_name("ledger.schema.json").read_text(encoding="utf-8"))

    def keywords(s: Any) -> None:  # a keyword this validator does not know would be skipped silently
        if isinstance(s, dict):
            for k, v in s.items():
                if k in ("properties", "$defs"):
                    for sub in v.values():
                        keywords(sub)
                elif k in ("items", "additionalProperties", "if", "then"):
                    keywords(v)
                elif k == "allOf":
                    for sub in v:
                        keywords(sub)
                elif k not in _SCHEMA_KEYWORDS and k not in _IGNORED_KEYWORDS:
                    raise RuntimeError(f"ledger.schema.json uses {k!r}, which isomat's record validator does not know")

    keywords(schema)
    return schema


def schema_problems(value: Any, schema: Mapping[str, Any] | None = None, path: str = "record",
                    limit: int = 5) -> list[str]:
    """Where ``value`` breaks the JSON schema ``schema`` (default: the ledger's record,
    ``ledger.schema.json#/$defs/record``), at most ``limit`` places. The subset of JSON Schema the
    ledger's schema uses is checked (``_SCHEMA_KEYWORDS``); loading a schema with another keyword fails."""
    root = _schema()
    schema = root["$defs"]["record"] if schema is None else schema
    found: list[str] = []

    def check(v: Any, s: Mapping[str, Any], where: str) -> None:
        if len(found) >= limit:
            return
        if "$ref" in s:
            ref = s["$ref"]
            if not ref.startswith("#/"):
                raise RuntimeError(f"schema reference {ref!r} is not local")
            target: Any = root
            for part in ref[2:].split("/"):
                target = target[part]
            check(v, target, where)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(_TYPES[t](v) for t in types):
                found.append(f"{where}: expected {' or '.join(types)}, got {type(v).__name__}")
                return
        if "enum" in s and not any(v == e and type(v) is type(e) or (v is None and e is None) for e in s["enum"]):
            found.append(f"{where}: {str(v)[:60]!r} is not one of {s['enum']}")
        if "const" in s and not (v == s["const"] and type(v) is type(s["const"])):
            found.append(f"{where}: must be {s['const']!r}, got {str(v)[:60]!r}")
        if isinstance(v, str):
            if "minLength" in s and len(v) < s["minLength"]:
                found.append(f"{where}: shorter than {s['minLength']}")
            if "pattern" in s and not re.search(s["pattern"], v):
                found.append(f"{where}: {v[:60]!r} does not match {s['pattern']}")
        if _TYPES["number"](v) and "minimum" in s and v < s["minimum"]:
            found.append(f"{where}: {v} is below {s['minimum']}")
        if isinstance(v, list):
            if "minItems" in s and len(v) < s["minItems"]:
                found.append(f"{where}: fewer than {s['minItems']} items")
            if "items" in s:
                for i, x in enumerate(v):
                    check(x, s["items"], f"{where}[{i}]")
        if isinstance(v, dict):
            for k in s.get("required", []):
                if k not in v:
                    found.append(f"{where}: missing {k!r}")
            props = s.get("properties", {})
            for k, x in v.items():
                if k in props:
                    check(x, props[k], f"{where}.{k}")
                elif "additionalProperties" in s:
                    extra = s["additionalProperties"]
                    if extra is False:
                        found.append(f"{where}: unexpected key {k!r}")
                    elif isinstance(extra, dict):
                        check(x, extra, f"{where}.{k}")
        for sub in s.get("allOf", []):
            check(v, sub, where)
        if "if" in s:
            probe: list[str] = []
            saved = found[:]
            found.clear()
            check(v, s["if"], where)
            probe, found[:] = found[:], saved
            if not probe and "then" in s:
                check(v, s["then"], where)

    check(value, schema, path)
    return found[:limit]


#: what a worker's record may carry beside its head; the rest is the runner's (head) or derived here
_SENT_KEYS = ("verdict", "strength", "evidence", "counterexample", "correction", "discrepancies", "readings",
              "error", "traceback", "output", "seconds")


def record_from_worker(c: engine.Claim, sent: Any) -> dict[str, Any]:
    """The record of claim ``c`` built from what its worker sent (raises :class:`MessageError` when
    that is no valid record of ``c``): the head is ``c``'s own; the verdict and strength are checked
    against the engine's rules (:func:`engine._outcome_problem`, failed cross-checks); a proved
    record's sizes, obligations and second-solver count are derived again from its evidence."""
    if not isinstance(sent, dict):
        raise MessageError(f"the record is a {type(sent).__name__}, not an object")
    if sent.get("id") != c.id:
        raise MessageError(f"the record is of {str(sent.get('id'))[:80]!r}, not of {c.id!r}")
    problems = schema_problems(sent)
    if problems:
        raise MessageError("the record breaks ledger.schema.json: " + "; ".join(problems))
    record = engine._record_head(c)
    record.update({k: sent[k] for k in _SENT_KEYS if k in sent})
    if record["verdict"] == "error":
        if record["strength"] is not None or not isinstance(record.get("error"), str):
            raise MessageError("an error record has no strength and says its error")
    else:
        record.pop("error", None)
        record.pop("traceback", None)  # (only an error has one)
        outcome = object.__new__(engine.Outcome)  # the rules of Outcome, on the data (no check runs here)
        for name, default in (("verdict", None), ("evidence", {}), ("counterexample", None), ("correction", None),
                              ("discrepancies", None), ("readings", None), ("strength", None)):
            object.__setattr__(outcome, name, record.get(name, default))
        problem = engine._outcome_problem(outcome)
        if problem is not None:
            raise MessageError(f"invalid outcome: {problem}")
        failed = engine._failed_notes(record["evidence"]) + [
            p for r in record.get("readings") or [] for p in engine._failed_notes(r.get("evidence", {}),
                                                                                 f"reading {r['reading']!r}")]
        if failed:
            raise MessageError(f"a failed check is recorded beside the verdict: {', '.join(failed[:5])}")
        engine.derive_fields(record)  # methods, and a proved record's sizes, obligations and second solver
    for key in ("output", "traceback"):
        if key in record:
            record[key] = engine.capped_output(record[key])
    # keys in the engine's order (the head, the verdict, ..., seconds last), as run_claim builds them
    record = {k: record[k] for k in engine.RECORD_ORDER if k in record}
    problems = schema_problems(record)
    if problems:
        raise MessageError("the record breaks ledger.schema.json: " + "; ".join(problems))
    return record


# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------
def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` on Linux (False where it is not there or fails)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


def _process_table() -> dict[int, int]:
    """``{pid: parent pid}`` of the live processes (Linux ``/proc``; empty elsewhere)."""
    table = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields and fields[0] != b"Z":
                table[int(entry.name)] = int(fields[1])
    return table


def end_descendants(root: int | None = None) -> int:
    """SIGKILL every live descendant of ``root`` (this process by default) and reap this process's
    children; returns how many were killed. A worker is its checks' subreaper, so a grandchild whose
    parent died (one that called ``setsid`` included) is still found under it."""
    if root is None:
        try:
            os.waitpid(-1, os.WNOHANG)  # cheap: a process with no child at all has no descendant (it is their subreaper)
        except ChildProcessError:
            return 0
    root = os.getpid() if root is None else root
    killed = 0
    for _ in range(20):
        table = _process_table()
        found, frontier = [], [root]
        while frontier:
            p = frontier.pop()
            kids = [pid for pid, ppid in table.items() if ppid == p]
            found += kids
            frontier += kids
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed += len(found)
        if root == os.getpid():
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    time.sleep(0.005)
        if not found:
            break
    return killed


def kill_tagged(tag: str, *, prefix: bool = False) -> int:
    """SIGKILL every process of this user whose environment holds ``ISOMAT_WORKER=<tag>`` (with
    ``prefix``: a value beginning with ``tag``): what a run's workers started, even in sessions of
    their own and orphaned. Returns how many."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    killed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as fh:
                    env = fh.read()
            except OSError:
                continue
            if any(item.startswith(needle) if prefix else item == needle for item in env.split(b"\0")):
                with contextlib.suppress(OSError):
                    os.kill(int(entry.name), signal.SIGKILL)
                    killed += 1
    return killed


def _where(check: Any) -> list[Any] | None:
    code = getattr(check, "__code__", None)
    return None if code is None else [code.co_filename, code.co_firstlineno, check.__qualname__]


def _read_output(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read(engine.OUTPUT_LIMIT + 1)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def _configure(config: Mapping[str, Any]) -> None:
    """A worker's settings: the float backend, the caller's memory bound, the SMT-LIB export."""
    from . import smt as recheck

    engine._float_backend.set(config["backend"])
    if config.get("memory_limit") is not None:  # the caller's bound holds in the workers too
        from .._config import set_memory_limit

        set_memory_limit(config["memory_limit"])
    # before the claims' modules are imported, so the lemmas they prove (the library, on first use) are written too
    recheck.export_to(config.get("export_smt"))
    threads = config.get("threads")
    if threads is not None:
        _limit_threads(threads)


def _limit_threads(n: Any) -> None:
    """This worker's share of the cores: isomat's thread cap (``ISOMAT_NUM_THREADS``, read on every call)
    and the BLAS/OpenMP pools already loaded (threadpoolctl), and the pools a library loaded later starts
    (their environment variables)."""
    from ..algebra import _threads

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise MessageError(f"a worker's thread share must be a positive integer, got {n!r}")
    os.environ[_threads.ENV] = str(n)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    try:
        import threadpoolctl
    except ImportError:  # pragma: no cover - threadpoolctl is a runtime dependency
        return
    threadpoolctl.threadpool_limits(limits=n)  # kept for the worker's life (never restored)


def _start_claims(config: Mapping[str, Any]) -> None:
    _configure(config)
    for src in config["sources"]:
        if src.endswith(".py"):
            engine.load_file(src)
        else:
            importlib.import_module(src)


def worker_main(cmd_fd: int, msg_fd: int, parent: int | None = None) -> None:
    """A worker: read its configuration, declare the claims, then run the claim ids the runner sends,
    one at a time, answering each with ``{"kind": "done", "id", "record"}``. Its ``ready`` message
    lists where each claim it declares was written (sent before any check runs: the runner sends a
    claim only when its own check was written there, and runs any other itself). Its stdout and
    stderr are the runner's file (emptied before each claim, read into the record)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to answer
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # the runner killed outright: its workers end with it
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the runner was gone before that was set
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # orphans of what a check starts come here, to be ended
    config = _read_frame(cmd_fd)
    if not isinstance(config, dict):
        os._exit(1)

    def send(message: dict[str, Any]) -> None:
        _write_all(msg_fd, encode(message))

    try:
        _start_claims(config)
    except BaseException as exc:  # noqa: BLE001 -- an import that fails here, however, is the run's error
        send({"kind": "init-error", "error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:2000]})
        return
    end_descendants()
    if config.get("template"):
        send({"kind": "ready", "declared": {}})
        _serve_forks(cmd_fd, msg_fd, config)
        return
    _serve(cmd_fd, msg_fd, config)


def _serve(cmd_fd: int, msg_fd: int, config: Mapping[str, Any]) -> None:
    """A worker whose claims are declared: say so, then run the claim ids the runner sends."""
    def send(message: dict[str, Any]) -> None:
        _write_all(msg_fd, encode(message))

    send({"kind": "ready", "declared": {cid: _where(c.check) for cid, c in engine.REGISTRY.items()}})
    from . import prover

    prover.remember_proofs(True)  # a repeated proof request answered once in this worker (claims of a section share steps)
    out_path = config["out_path"]
    while True:
        try:
            claim_id = _read_frame(cmd_fd)
        except (OSError, MessageError):
            return
        if not isinstance(claim_id, str):
            return
        os.ftruncate(1, 0)
        t0 = time.perf_counter()
        c = engine.REGISTRY.get(claim_id)
        record = None
        if c is not None:
            try:
                record = engine.run_claim(c)
            except BaseException as exc:  # noqa: BLE001 -- whatever escapes the check is this claim's error
                record = engine.error_record(c, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        end_descendants()  # nothing a check started outlives its claim
        if record is not None:
            extra = _read_output(out_path)
            if extra:
                record["output"] = engine.capped_output(record.get("output", "") + extra)
        message = {"kind": "done", "id": claim_id, "record": record}
        try:
            frame = encode(message)
            if len(frame) > MESSAGE_LIMIT:
                raise ValueError(f"the record is {len(frame)} bytes, over the limit of {MESSAGE_LIMIT}")
        except (TypeError, ValueError) as exc:
            assert c is not None
            message["record"] = engine.error_record(c, f"record not transferable: {type(exc).__name__}: {exc}",
                                                    time.perf_counter() - t0)
            frame = encode(message)
        _write_all(msg_fd, frame)


# ---------------------------------------------------------------------------------------------
# Workers forked from a template (issue 40: a user's claims without an interpreter start each)
# ---------------------------------------------------------------------------------------------
def fork_workers() -> bool:
    """Whether a user's claims run in workers forked from a template process that imported their
    claims file once (Linux, ``socket.send_fds``; ``ISOMAT_FORK_WORKERS=0`` turns it off: then each such
    claim's worker is a fresh interpreter that imports the file itself)."""
    import socket

    off = os.environ.get("ISOMAT_FORK_WORKERS", "1").strip().lower() in ("0", "off", "false", "no")
    return not off and sys.platform.startswith("linux") and hasattr(socket, "send_fds") and hasattr(os, "fork")


def _exit_note(out_path: str, code: int) -> None:
    """The exit status of a forked worker, for the runner (which is not its parent and cannot wait for it)."""
    tmp = out_path + ".exit.tmp"
    with contextlib.suppress(OSError):
        with open(tmp, "w") as fh:
            fh.write(str(code))
        os.replace(tmp, out_path + ".exit")


def _forked_worker(setup: Callable[[], None], cmd_fd: int, msg_fd: int, config: Mapping[str, Any], out_path: str,
                   tag: str, parent: int | None = None) -> NoReturn:
    """The life of a worker forked from a template or from the runner (never returns): ``setup`` (its pipes
    where it reads them), then what a fresh worker has -- a session of its own, its output on
    ``out_path``, its tag, the parent-death signal (``parent``: the runner, which must still be there),
    the subreaper -- and it serves its claims. An exception escaping it is its exit status 1, said on its
    output file, as an interpreter's would be."""
    code = 1
    try:
        setup()
        os.setsid()
        out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        os.environ[TAG_VARIABLE] = tag  # what its checks start carries its own tag
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if parent is not None and os.getppid() != parent:
            os._exit(1)  # the runner was gone before that was set
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        _serve(cmd_fd, msg_fd, {**config, "out_path": out_path})
        code = 0
    except BaseException:  # noqa: BLE001 -- said on its output file, as an interpreter would
        with contextlib.suppress(BaseException):
            import traceback

            traceback.print_exc()
    finally:
        os._exit(code)


def _serve_forks(cmd_fd: int, msg_fd: int, config: Mapping[str, Any]) -> None:
    """The template: its claims file imported (and nothing run), it forks one worker per request on its
    control socket. A request is ``{"tag", "out_path"}`` with the new worker's two pipe ends attached; the
    child takes them at the template's own descriptor numbers (so a check finds its own pipes where a
    fresh worker's are, ``sys.argv``), its own session, output file, tag and parent-death signal, and
    serves its claim as a fresh worker does. Each child is a copy of the template as it was after the
    import -- no claim ever ran in it -- so a claim can change only its own copy. The template answers
    each request with the child's pid and notes each child's exit status beside its output file."""
    import select
    import socket

    ctl = socket.socket(fileno=int(config["ctl_fd"]))
    children: dict[int, str] = {}
    while True:
        ready, _, _ = select.select([ctl], [], [], 0.05)
        while children:  # reap: the runner reads the statuses beside the output files
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in children:
                _exit_note(children.pop(pid), -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
        if not ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 2)
        except OSError:
            data, fds = b"", []
        if not data:  # the runner is gone or done: the children end with this process (parent-death signal)
            os._exit(0)
        try:
            request = decode(data)
            tag, out_path = str(request["tag"]), str(request["out_path"])
            if len(fds) != 2:
                raise MessageError("a fork request without its two pipes")
        except (MessageError, KeyError, TypeError):
            for fd in fds:
                os.close(fd)
            os._exit(1)
        pid = os.fork()
        if pid == 0:  # the new worker

            def take_pipes(fds: list[int] = fds) -> None:
                ctl.close()
                os.dup2(fds[0], cmd_fd)
                os.dup2(fds[1], msg_fd)
                for fd in fds:
                    os.close(fd)

            _forked_worker(take_pipes, cmd_fd, msg_fd, {**config, "template": False}, out_path, tag)
        for fd in fds:
            os.close(fd)
        children[pid] = out_path
        ctl.sendall(encode({"pid": pid}))


#: how long a forked worker's exit note may lag its reaping (the template reaps, then writes the note)
_FORKED_NOTE_GRACE_S = 2.0


class _Forked:
    """The process handle of a forked worker (``poll``/``wait``/``kill`` as ``subprocess.Popen``'s), its
    exit status read from the note its template writes."""

    def __init__(self, pid: int, out_path: str) -> None:
        self.pid, self._note, self.returncode = pid, out_path + ".exit", None

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(OSError, ValueError):
                with open(self._note) as fh:
                    self.returncode = int(fh.read())
        return self.returncode

    def _lost(self) -> bool:
        """Gone from the process table: reaped by its template (whose note follows the reaping), or its
        template died first and no status will come."""
        return not os.path.exists(f"/proc/{self.pid}")

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        lost_at = None
        while self.poll() is None:
            now = time.monotonic()
            if self._lost():
                # the template writes the note just after reaping: on a busy machine that can take a while (a
                # SIGKILLed worker was reported as "closed its pipe" when the note came a moment late)
                lost_at = now if lost_at is None else lost_at
                if now - lost_at > _FORKED_NOTE_GRACE_S:
                    raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
            if deadline is not None and now > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
            time.sleep(0.01)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------
# Workers forked from the runner itself (issue 40: ``isomat verify --claim ID`` without a second import)
# ---------------------------------------------------------------------------------------------
def may_fork_here() -> bool:
    """Whether a worker may be a copy of this very process: :func:`fork_workers` allows forking, and this
    process runs its main thread alone (a process with other threads is not forked: a lock one of them
    holds would stay locked in the copy)."""
    import threading

    return fork_workers() and threading.active_count() == 1


class _Child(_Forked):
    """The process handle of a worker forked from the runner: the runner is its parent and waits for it."""

    def __init__(self, pid: int) -> None:
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # (reaped elsewhere: its status is lost)
                self.returncode = -int(signal.SIGKILL)
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def _lost(self) -> bool:
        return False  # (its status comes from waitpid, in poll)


def _fork_here(config: Mapping[str, Any], tag: str, out_path: str, cmd_r: int, msg_w: int) -> _Child:
    """A worker that is a copy of this process (see :func:`run_in_workers`'s ``fork_here``): set up as a
    fresh worker is -- its own session, standard input on ``/dev/null``, output on ``out_path``, no
    descriptor but its two pipes (as ``Popen(close_fds=True)``: no other worker's pipe), its tag, the
    parent-death signal, the subreaper -- with the claims this process declared, imported nothing again."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]  (nothing buffered here is written twice)
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return _Child(pid)

    def detach() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to answer
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the command's handler would raise in the check)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd > 2 and fd not in (cmd_r, msg_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        _configure(config)

    _forked_worker(detach, cmd_r, msg_w, config, out_path, tag, parent)


#: the command a worker runs: the runner's import path first (as multiprocessing's spawn does)
_BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
         "from isomat.proofs._runner import worker_main; worker_main(*map(int, sys.argv[2:5]))")


class Worker:
    """One worker process; ``index`` is the claim it runs (an index into the run's claims). With
    ``template``, a worker forked from that template process (see :func:`_serve_forks`) rather than a
    fresh interpreter; with ``ctl`` (a pair of connected sockets: the runner's end, the template's), a
    template itself."""

    def __init__(self, config: dict[str, Any], tag: str, out_path: str, trusted: bool, target: int | None,
                 template: Worker | None = None, ctl: Any = None, here: bool = False) -> None:
        self.tag, self.out_path, self.trusted, self.target = tag, out_path, trusted, target
        self.ctl = None
        cmd_r, cmd_w = os.pipe()
        msg_r, msg_w = os.pipe()
        try:
            if template is not None:
                self.proc: Any = template.fork(tag, out_path, cmd_r, msg_w)
            elif here:
                self.proc = _fork_here(config, tag, out_path, cmd_r, msg_w)
            else:
                env = dict(os.environ)
                env[TAG_VARIABLE] = tag
                keep = (cmd_r, msg_w) + ((ctl[1].fileno(),) if ctl is not None else ())
                with open(out_path, "ab") as out:
                    self.proc = subprocess.Popen(
                        [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(cmd_r), str(msg_w), str(os.getpid())],
                        stdin=subprocess.DEVNULL, stdout=out, stderr=out, pass_fds=keep,
                        start_new_session=True, env=env)
        except BaseException:
            for fd in (cmd_r, cmd_w, msg_r, msg_w):
                os.close(fd)
            raise
        os.close(cmd_r)
        os.close(msg_w)
        self.cmd = cmd_w
        self.reader = FrameReader(msg_r)
        self.ready = False
        self.born = time.monotonic()
        self.index: int | None = None
        self.since = 0.0
        self.answered = 0
        self.run: int | None = None  # the papers' worker's run of claims (see run_in_workers)
        self.declared: dict[str, Any] = {}
        if template is None and not here:
            if ctl is not None:  # the template holds its end now; the runner keeps its own
                config = {**config, "template": True, "ctl_fd": ctl[1].fileno()}
                ctl[1].close()
                self.ctl = ctl[0]
            self.command({**config, "out_path": out_path})

    def fork(self, tag: str, out_path: str, cmd_r: int, msg_w: int) -> _Forked:
        """A worker forked from this template, on the given pipe ends (the template answers its pid)."""
        import socket

        assert self.ctl is not None
        socket.send_fds(self.ctl, [encode({"tag": tag, "out_path": out_path})[_HEADER.size:]], [cmd_r, msg_w])
        self.ctl.settimeout(60.0)
        reader = b""
        while len(reader) < _HEADER.size or len(reader) < _HEADER.size + _HEADER.unpack_from(reader)[0]:
            chunk = self.ctl.recv(1 << 12)
            if not chunk:
                raise OSError("the template process ended")
            reader += chunk
        answer = decode(reader[_HEADER.size:])
        if not isinstance(answer, dict) or not isinstance(answer.get("pid"), int):
            raise OSError("the template process sent no pid")
        return _Forked(answer["pid"], out_path)

    def command(self, message: Any) -> None:
        _write_all(self.cmd, encode(message))

    def stop(self) -> None:
        """End the worker and its process group, and whatever carries its tag."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        kill_tagged(self.tag)
        for fd in (self.cmd, self.reader.fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.ctl is not None:
            with contextlib.suppress(OSError):
                self.ctl.close()

    def death(self) -> str:
        # its pipe has closed: the process is ending; its status normally comes at once, on a busy machine later
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        code = self.proc.returncode
        if code is None:
            return "its worker process closed its pipe"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"its worker process was killed by {signal.Signals(-code).name}"
            return f"its worker process was killed by signal {-code}"
        return f"its worker process exited with status {code}"


class WorkerStartError(RuntimeError):
    """A worker process could not declare the claims (a claims file that fails to import there,
    or a worker that died or hung while importing them): the run cannot go on."""


def trusted(c: engine.Claim) -> bool:
    """Whether ``c`` is one of the papers' claims, the package's own code (``isomat.proofs.<paper>``)."""
    name = getattr(c.check, "__module__", None) or ""
    parts = name.split(".")
    return len(parts) >= 3 and parts[:2] == ["isomat", "proofs"] and parts[2] in engine.PAPERS


def claim_source(c: engine.Claim) -> str | None:
    """What a fresh interpreter imports to declare ``c`` again: a module name, or the path of a file
    loaded with :func:`isomat.proofs.load_file` (None for a claim of ``__main__``: a notebook, a script)."""
    name = getattr(c.check, "__module__", None) or "__main__"
    module = sys.modules.get(name)
    if module is None or name == "__main__":
        return None
    return getattr(module, "__file__", None) if name.startswith("isomat_user_claims_") else name


def _next_in_runs(w: "Worker", runs: list[list[int]], workers: list["Worker"]) -> int | None:
    """The next claim for the papers' worker ``w``: the first of its run (``runs`` hold the claims not yet
    given out, in order; a worker without one takes a run no live worker has), else the last of the
    longest run (its own run's next claims stay with the worker that holds it). Removes it from its run."""
    if w.run is None or not runs[w.run]:
        held = {x.run for x in workers if x is not w and x.trusted}
        w.run = next((k for k, r in enumerate(runs) if r and k not in held), None)
    if w.run is not None and runs[w.run]:
        return runs[w.run].pop(0)
    longest = max(runs, key=len, default=[])
    return longest.pop() if longest else None


def run_in_workers(claims: list[engine.Claim], jobs: int, config: dict[str, Any], claim_timeout: float | None,
                   emit: Callable[[int, dict[str, Any] | None], None], announce: Callable[[int], None],
                   default_timeout: float, fork_here: bool = False) -> None:
    """Run ``claims`` in at most ``jobs`` workers; ``announce(i)`` and ``emit(i, record or None)`` are
    called in the claims' order (None: no worker declares the claim the same way; run it here). The
    papers' claims share workers that import only the papers' modules; each other claim has a worker
    of its own, which imports only its source. A claim over ``claim_timeout``, whose worker dies or
    sends what is not its record, is an error record; the run goes on.

    ``fork_here``: the caller's process imported the papers' claims modules and nothing else, and ran no
    claim (the ``isomat`` command does): the papers' workers are then copies of it (:func:`may_fork_here`),
    as a fresh interpreter that imported those modules would be, without the interpreter's start and the
    second import (issue 40: ``isomat verify --claim ID`` in one import). The papers' modules are the
    package's own code, imported the same way everywhere; a user's claims file is not (it may do
    something else in a worker, ``ISOMAT_WORKER`` set): its claims run in copies of its template, which
    imported it itself, as without ``fork_here``. Once a claim ran here, or where forking is not
    allowed, the papers' workers are fresh interpreters."""
    import shutil
    import tempfile
    from multiprocessing.connection import wait

    tmp = tempfile.mkdtemp(prefix="isomat-verify-")
    run_tag = uuid.uuid4().hex
    start_limit = max(claim_timeout or default_timeout, 120.0)
    sources = {i: claim_source(c) for i, c in enumerate(claims)}
    papers = [trusted(c) for c in claims]  # the papers' own claims (the package's code)
    trusted_sources = list(dict.fromkeys(s for i, s in sources.items() if s and papers[i]))
    pending = [i for i in range(len(claims)) if sources[i] is not None]
    # The papers' claims are cut into ``jobs`` runs of neighbours, one per worker: neighbouring claims share
    # cached work (a family's matrices and builder checks, a lemma proved once; fig. and eq. of one section),
    # which two workers taking claims alternately each did again (the claims' times summed to 127 s in two
    # workers, 103 s in one process). A worker whose run is done takes the last claim of the longest run
    # left, so the load still balances.
    queued = [i for i in pending if papers[i]]
    runs = [queued[k * len(queued) // jobs:(k + 1) * len(queued) // jobs] for k in range(jobs)]
    results: dict[int, dict[str, Any] | None] = {i: None for i in range(len(claims)) if sources[i] is None}
    workers: list[Worker] = []
    count = [0]
    templates: dict[str, Worker] = {}  # a user's claims file imported once, forked per claim (issue 40)
    clean = [fork_here]  # this process may still be copied: it ran no claim

    def template_for(source: str) -> Worker:
        """The template process of ``source``, started and ready (its import failing is the run's error)."""
        import socket

        if source in templates:
            return templates[source]
        count[0] += 1
        pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            t = Worker({**config, "sources": [source]}, f"{run_tag}.{count[0]}",
                       os.path.join(tmp, f"worker-{count[0]}.out"), False, None, ctl=pair)
        except BaseException:
            for end in pair:
                end.close()
            raise
        templates[source] = t
        deadline = time.monotonic() + start_limit
        while not t.ready:
            wait([t.reader.fd], timeout=0.2)
            try:
                messages = t.reader.feed()
            except MessageError as exc:
                raise WorkerStartError(f"a worker process could not declare the claims: {exc}") from None
            for message in messages:
                kind = message.get("kind") if isinstance(message, dict) else None
                if kind == "init-error":
                    raise WorkerStartError(f"a worker process could not declare the claims: "
                                           f"{str(message.get('error'))[:2000]}")
                t.ready = t.ready or kind == "ready"
            if not t.ready and (t.reader.closed or t.proc.poll() is not None):
                raise WorkerStartError(f"a worker process could not declare the claims: {t.death()} while importing them")
            if not t.ready and time.monotonic() > deadline:
                raise WorkerStartError(f"a worker process could not declare the claims: no answer in {start_limit:g} s "
                                       "while importing them")
        return t

    def spawn(target: int | None) -> Worker:
        count[0] += 1
        srcs = trusted_sources if target is None else [sources[target]]
        tag, out = f"{run_tag}.{count[0]}", os.path.join(tmp, f"worker-{count[0]}.out")
        w = None
        if target is None and clean[0] and may_fork_here():
            # a papers' worker that is a copy of this process, which imported their modules and ran nothing
            w = Worker({**config, "sources": srcs}, tag, out, True, None, here=True)
        elif target is not None and fork_workers():
            # a fresh process of its own, forked from the file's template: no interpreter start, no import
            with contextlib.suppress(OSError):
                w = Worker({}, tag, out, False, target, template=template_for(str(sources[target])))
        if w is None:
            w = Worker({**config, "sources": srcs}, tag, out, target is None, target)
        workers.append(w)
        return w

    def retire(w: Worker) -> None:
        w.stop()
        workers.remove(w)

    def lost(w: Worker, why: str) -> None:
        """``w`` is gone (dead, killed here, or it sent what is no answer): its claim is an error record."""
        i = w.index  # an idle worker's claim, if it has one, is still pending: another worker runs it
        output = _read_output(w.out_path) if i is not None else ""
        retire(w)
        if not w.ready and i is None:
            raise WorkerStartError(f"a worker process could not declare the claims: {why} while importing them")
        if i is not None:
            results[i] = engine.error_record(claims[i], why, time.monotonic() - w.since, output or None)

    def answer(w: Worker, message: Any) -> None:
        if not isinstance(message, dict):
            raise MessageError(f"a {type(message).__name__}, not a message")
        kind = message.get("kind")
        if kind == "init-error" and not w.ready:  # (once ready, a worker's "init-error" is a check's forgery)
            raise WorkerStartError(f"a worker process could not declare the claims: {str(message.get('error'))[:2000]}")
        if kind == "ready" and not w.ready:
            declared = message.get("declared")
            if not isinstance(declared, dict):
                raise MessageError("a ready message without the claims it declares")
            w.declared = declared
            w.ready = True
            return
        if kind != "done":
            raise MessageError(f"an unexpected message {str(kind)[:40]!r}")
        if w.index is None:
            raise MessageError("an answer for no claim asked (a second answer?)")
        c = claims[w.index]
        if message.get("id") != c.id:
            raise MessageError(f"an answer for {str(message.get('id'))[:80]!r}, asked {c.id!r}")
        results[w.index] = record_from_worker(c, message.get("record"))
        w.index = None
        w.answered += 1

    try:
        nxt = 0
        announced = -1
        while nxt < len(claims):
            if announced < nxt:
                announce(nxt)
                announced = nxt
            if nxt in results:
                rec = results.pop(nxt)
                clean[0] = clean[0] and rec is not None  # (None: the claim runs here; no copy of this process after it)
                emit(nxt, rec)
                nxt += 1
                continue
            # a user's claim's worker answers once; a papers' worker with nothing left to do makes room
            for w in list(workers):
                if w.ready and w.index is None and (w.answered if not w.trusted else
                                                    not any(papers[i] for i in pending)):
                    retire(w)
            for w in workers:
                if w.ready and w.index is None:
                    if w.trusted:
                        i = _next_in_runs(w, runs, workers)
                    else:
                        i = w.target if w.target in pending and not w.answered else None
                    if i is None:
                        continue
                    pending.remove(i)
                    where = _where(claims[i].check)
                    if where is None or w.declared.get(claims[i].id) != where:
                        # the worker does not declare this claim the same way (one made in a function body,
                        # a check replaced here): it runs here, as declared here
                        results[i] = None
                        w.answered += not w.trusted
                        continue
                    try:
                        w.command(claims[i].id)
                    except OSError:
                        pending.insert(0, i)
                        if w.trusted:  # back at the head of its run, for the next worker that takes it
                            runs[w.run if w.run is not None else 0].insert(0, i)
                        continue
                    w.index, w.since = i, time.monotonic()
            # start workers, in the claims' order, while there is room
            waiting_trusted = sum(1 for w in workers if w.trusted and w.index is None)
            needed = sum(1 for j in pending if papers[j]) if len(workers) < jobs else 0
            for i in list(pending):
                if len(workers) >= jobs:
                    break
                if papers[i]:
                    if waiting_trusted < needed:
                        spawn(None)
                        waiting_trusted += 1
                elif not any(w.target == i for w in workers):
                    spawn(i)
            wait([w.reader.fd for w in workers], timeout=0.2)
            now = time.monotonic()
            for w in list(workers):
                try:
                    for message in w.reader.feed():
                        answer(w, message)
                except MessageError as exc:
                    lost(w, f"its worker sent a malformed message ({' '.join(str(exc).split())[:500]}); the worker "
                            "was stopped")
                    continue
                if w.reader.closed or w.proc.poll() is not None:
                    lost(w, w.death() + (" while running the check" if w.index is not None else ""))
                elif not w.ready and now - w.born > start_limit:
                    lost(w, f"no answer in {start_limit:g} s")
                elif w.index is not None and claim_timeout is not None and now - w.since > claim_timeout:
                    lost(w, f"timed out after {claim_timeout:g} s (the check was stopped)")
    finally:
        for w in list(workers):
            with contextlib.suppress(Exception):
                w.command(None)
            w.stop()
        for t in templates.values():
            t.stop()
        kill_tagged(run_tag + ".", prefix=True)
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def fd_output() -> Any:
    """While a claim runs in this process: what is written to file descriptors 1 and 2 (``os.write``,
    a C library, a child process) goes to a temporary file, read back as ``captured[0]``; the caller's
    stdout and stderr are restored after."""
    import tempfile

    captured = [""]
    try:
        saved = (os.dup(1), os.dup(2))
    except OSError:
        yield captured
        return
    tmp = tempfile.TemporaryFile()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]
    os.dup2(tmp.fileno(), 1)
    os.dup2(tmp.fileno(), 2)
    try:
        yield captured
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream.flush()  # type: ignore[union-attr]
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        tmp.seek(0)
        captured[0] = tmp.read(engine.OUTPUT_LIMIT + 1).decode("utf-8", "replace")
        tmp.close()
