"""A failing check's traceback, trimmed to the user's frames (issue 40: an error a user can debug).

Kept out of the engine: it is needed only when a check raises.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
from collections.abc import Callable
from typing import Any


def _library_file(filename: str) -> str | None:
    """For a frame of isomat itself, of an installed package or of the standard library (not the user's
    code): its path from the package's folder (``isomat/proofs/engine.py``, the same on every machine);
    None for the user's own."""
    if filename.startswith("<frozen "):
        return filename
    path = os.path.abspath(filename)
    roots = [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]  # isomat's parent
    roots += [p for p in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")} if p]
    inside = [r for r in roots if path.startswith(os.path.join(r, "")) and
              (r != roots[0] or path.startswith(os.path.join(r, "isomat", "")))]
    return os.path.relpath(path, max(inside, key=len)) if inside else None


def check_traceback(exc: BaseException, check: Callable[..., Any]) -> str:
    """The traceback of an exception that escaped ``check``, trimmed to the user's frames: it starts at
    the check (the engine's frames above it are left out), and a run of frames in isomat, installed
    packages or the standard library is shown by its innermost frame (where it raised) after a line
    counting the others (issue 40: an error a user can debug)."""
    frames = traceback.extract_tb(exc.__traceback__)
    code = getattr(check, "__code__", None)
    start = next((k for k, f in enumerate(frames) if code is not None and f.filename == code.co_filename
                  and f.name == code.co_name), 0)
    frames = frames[start:]
    lines = ["Traceback (most recent call last, from the check):\n"]
    library = set()
    for n, f in enumerate(frames):  # a library's frame by its path in the library: the same on every machine
        short = _library_file(f.filename)
        if short is not None:
            f.filename = short
            library.add(n)
    k = 0
    while k < len(frames):
        j = k
        while j < len(frames) and j in library:
            j += 1
        if j - k > 1:  # a run of library frames: the innermost (where it raised or called back) stays
            lines.append(f"  [... {j - k - 1} frame{'s' if j - k > 2 else ''} in isomat or libraries ...]\n")
            k = j - 1
        lines += traceback.format_list([frames[k]])
        k += 1
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)
