"""The live processes of a test's run, found by a tag in their environment (Linux ``/proc``)."""

from __future__ import annotations

from pathlib import Path


def tagged(variable: str, tag: str) -> list[int]:
    """Every live process (zombies awaiting their parent left out) whose environment holds
    ``variable=tag``: the run started with it and everything that inherited it."""
    needle = f"{variable}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                stat = (entry / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found
