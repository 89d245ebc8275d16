"""One atomic writer for every file isomat writes (exports, ledgers, reports, expected verdicts).

A file is written to a temporary name in its own directory, checked, flushed to the disk
(``fsync``), given the permissions of the file it replaces -- or, for a new file, those any new
file gets there (``0666`` less the umask: ``mkstemp`` would leave ``0600``) -- and renamed over
the target in one step, so a reader never sees half a file and a failure -- a full disk, a
``KeyboardInterrupt``, the CLI's SIGTERM handler raising -- leaves the old file (or none) and no
temporary file behind. The temporary name is short whatever the
target's (a target name of 250 characters is valid; ``.<name>.XXXXXXXX`` would not be). Targets are
checked before the work that produces them: a missing directory, a directory where the file should
be, or a read-only directory is refused at once, not after a ledger or a build has run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["check_target", "umask", "write_atomic", "write_text"]

#: characters of the target's name kept in the temporary name (the rest of the name is random)
_TEMP_STEM = 32


def umask() -> int:
    """The process's umask (read without changing it where Linux reports it, else set and restored)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _parent(p: Path) -> Path:
    return p.parent if str(p.parent) else Path(".")


def _take_mode(tmp: str, p: Path) -> None:
    """Give the temporary file the mode an overwrite must keep: an existing target's permission bits
    (and its owner and group where this process may set them -- root, or a group it belongs to),
    else those any new file gets (``0666`` less the umask). A ``0600`` file stays ``0600`` after an
    overwrite (issue 37 item 6); setuid, setgid and sticky bits are not carried to new content."""
    import stat

    try:
        st = os.stat(p)  # through a symlink: the file the user sees at that name
    except OSError:  # none there (or unreadable): a new file's mode
        os.chmod(tmp, 0o666 & ~umask())
        return
    if not stat.S_ISREG(st.st_mode):
        os.chmod(tmp, 0o666 & ~umask())
        return
    mine = os.stat(tmp)
    if (st.st_uid, st.st_gid) != (mine.st_uid, mine.st_gid) and hasattr(os, "chown"):
        try:  # before the chmod: chown may clear permission bits
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            try:  # the group alone (a group this user belongs to)
                os.chown(tmp, -1, st.st_gid)
            except OSError:
                pass
    os.chmod(tmp, stat.S_IMODE(st.st_mode) & 0o777)


def check_target(p: Path, *, overwrite: bool = True, what: str = "path",
                 exists_hint: str = "pass overwrite=True to replace it") -> None:
    """Refuse, before any work, a target that cannot be written: its directory missing or not
    writable, a directory in its place, or an existing file when ``overwrite`` is false."""
    parent = _parent(p)
    if not parent.is_dir():
        raise ValueError(f"{what} {str(p)!r}: the directory {str(parent)!r} does not exist (create it first)")
    if p.is_dir():
        raise ValueError(f"{what} {str(p)!r} is a directory, not a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {str(p)!r}: the directory {str(parent)!r} is not writable")
    if not overwrite and (p.exists() or p.is_symlink()):
        raise ValueError(f"{what} {str(p)!r} exists: {exists_hint}")


def write_atomic(p: Path, write: Callable[[str], None], check: Callable[[Path], None] | None = None, *,
                 overwrite: bool = True, what: str = "path",
                 exists_hint: str = "pass overwrite=True to replace it") -> Path:
    """Write ``p`` through ``write(temporary path)``, then ``check(temporary path)``, ``fsync``, the
    replaced file's permissions (a new file: the umask's) and one rename. With ``overwrite=False``
    the temporary file is hard-linked to ``p``, which fails atomically if ``p`` appeared meanwhile.
    Nothing is left behind on failure."""
    p = Path(p)
    check_target(p, overwrite=overwrite, what=what, exists_hint=exists_hint)
    parent = _parent(p)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.stem[:_TEMP_STEM]}.", suffix=p.suffix[:16] + ".tmp", dir=parent)
    os.close(fd)
    try:
        write(tmp)
        if not Path(tmp).is_file() or Path(tmp).stat().st_size == 0:
            raise OSError(f"writing {str(p)!r} produced no data")
        if check is not None:
            check(Path(tmp))
        with open(tmp, "rb") as fh:  # the data on the disk before the name points at it
            os.fsync(fh.fileno())
        _take_mode(tmp, p)
        if overwrite:
            os.replace(tmp, p)
        else:
            try:
                os.link(tmp, p)
            except FileExistsError:
                raise ValueError(f"{what} {str(p)!r} exists: {exists_hint}") from None
            except OSError:  # a filesystem without hard links (FAT, some network mounts): check, then rename
                if p.exists():
                    raise ValueError(f"{what} {str(p)!r} exists: {exists_hint}") from None
                os.replace(tmp, p)
        try:  # the rename itself on the disk (a directory fsync; not every filesystem allows it)
            dfd = os.open(parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
    finally:
        Path(tmp).unlink(missing_ok=True)
    return p


def write_text(p: Path | str, text: str, *, what: str = "path") -> Path:
    """``p`` written atomically with ``text`` (UTF-8)."""
    def put(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")

    return write_atomic(Path(p), put, what=what)
