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
forges its worker's answer can change only its own record.

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
from typing import Any

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
              "error", "output", "seconds")


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
    if "output" in record:
        record["output"] = engine.capped_output(record["output"])
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


def _start_claims(config: Mapping[str, Any]) -> None:
    from . import load_file
    from . import smt as recheck

    engine._float_backend.set(config["backend"])
    if config.get("memory_limit") is not None:  # the caller's bound holds in the workers too
        from .._config import set_memory_limit

        set_memory_limit(config["memory_limit"])
    # before the claims' modules are imported, so the lemmas they prove at import are written too
    recheck.export_to(config.get("export_smt"))
    for src in config["sources"]:
        if src.endswith(".py"):
            load_file(src)
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
    send({"kind": "ready", "declared": {cid: _where(c.check) for cid, c in engine.REGISTRY.items()}})
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


#: the command a worker runs: the runner's import path first (as multiprocessing's spawn does)
_BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
         "from isomat.proofs._runner import worker_main; worker_main(*map(int, sys.argv[2:5]))")


class Worker:
    """One worker process; ``index`` is the claim it runs (an index into the run's claims)."""

    def __init__(self, config: dict[str, Any], tag: str, out_path: str, trusted: bool, target: int | None) -> None:
        self.tag, self.out_path, self.trusted, self.target = tag, out_path, trusted, target
        cmd_r, cmd_w = os.pipe()
        msg_r, msg_w = os.pipe()
        env = dict(os.environ)
        env[TAG_VARIABLE] = tag
        try:
            with open(out_path, "ab") as out:
                self.proc = subprocess.Popen(
                    [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(cmd_r), str(msg_w), str(os.getpid())],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=out, pass_fds=(cmd_r, msg_w),
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
        self.declared: dict[str, Any] = {}
        self.command({**config, "out_path": out_path})

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

    def death(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1)
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


def run_in_workers(claims: list[engine.Claim], jobs: int, config: dict[str, Any], claim_timeout: float | None,
                   emit: Callable[[int, dict[str, Any] | None], None], announce: Callable[[int], None],
                   default_timeout: float) -> None:
    """Run ``claims`` in at most ``jobs`` workers; ``announce(i)`` and ``emit(i, record or None)`` are
    called in the claims' order (None: no worker declares the claim the same way; run it here). The
    papers' claims share workers that import only the papers' modules; each other claim has a worker
    of its own, which imports only its source. A claim over ``claim_timeout``, whose worker dies or
    sends what is not its record, is an error record; the run goes on."""
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
    results: dict[int, dict[str, Any] | None] = {i: None for i in range(len(claims)) if sources[i] is None}
    workers: list[Worker] = []
    count = [0]

    def spawn(target: int | None) -> Worker:
        count[0] += 1
        srcs = trusted_sources if target is None else [sources[target]]
        w = Worker({**config, "sources": srcs}, f"{run_tag}.{count[0]}", os.path.join(tmp, f"worker-{count[0]}.out"),
                   target is None, target)
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
                emit(nxt, results.pop(nxt))
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
                        i = next((i for i in pending if papers[i]), None)
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
