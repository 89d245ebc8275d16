"""Before the device recipe starts: can this interpreter import what the checklist needs?

``benchmarks/device_run.sh`` installs the wheels carried in ``.whl/`` into a private folder and then
runs this (with the checklist's options) before anything else, so that a lent machine's minutes
are not spent on a run that cannot import its solver or its Dask stack:

* ``z3`` (the z3-solver wheel): every paper module's prover imports it (issue 42: without it every
  paper module fails to import);
* ``dask`` and ``distributed`` with every dependency they import (partd, locket, tblib, zict,
  tornado, msgpack, sortedcontainers, ... whatever the image lacks), unless the checklist's
  ``--only`` / ``--skip`` leave the ``dask`` check out: a ``LocalCluster`` must be importable, so
  the Dask GPU leg (``apply_row_blocks(..., device="gpu")``) runs instead of being skipped.

Each requirement is imported for real; a missing module is reported with the distribution to
download, and the ``pip download`` line (this interpreter's version and platform, binary wheels
only, dependencies resolved) to run on a machine with a package index. Exit status 0 when all
import, 3 otherwise (the recipe's "wheels missing" status)::

    python benchmarks/device_wheels.py [checklist options]
"""

from __future__ import annotations

import importlib
import platform
import sys
from pathlib import Path

EXIT_MISSING = 3
#: import name -> distribution name, where they differ
DISTRIBUTIONS = {"z3": "z3-solver", "yaml": "pyyaml", "jinja2": "Jinja2", "markupsafe": "MarkupSafe",
                 "importlib_metadata": "importlib-metadata", "sortedcontainers": "sortedcontainers"}
#: what each requirement imports (a LocalCluster pulls in most of distributed's dependencies)
REQUIREMENTS = {"z3": ("z3",), "dask": ("dask", "dask.array", "distributed", "distributed.deploy.local")}


def _checklist_names(argv: list[str]) -> set[str]:
    """The checks the checklist will run with ``argv`` (its ``--only`` / ``--skip``)."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    import argparse

    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--only")
    ap.add_argument("--skip")
    args, _ = ap.parse_known_args(argv)
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("_device_checklist", here / "device_checklist.py")
    dc = module_from_spec(spec)
    spec.loader.exec_module(dc)
    only, skip = dc._names(args.only), dc._names(args.skip)
    return {c for c in dc.CHECKS if (not only or c in only or c == "probe") and c not in skip}


def missing(requirements: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """``{distribution: why}`` for every module of ``requirements`` that does not import here (a module
    found but broken counts, with its error)."""
    out: dict[str, str] = {}
    for modules in requirements.values():
        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                top = (getattr(exc, "name", None) or name).split(".")[0]
                out.setdefault(DISTRIBUTIONS.get(top, top), f"import {name}: {type(exc).__name__}: {exc}")
    return out


def download_line(dists: list[str]) -> str:
    """The ``pip download`` command that fetches ``dists`` with their dependencies as wheels for this
    interpreter and platform (run where there is an index; the files go to ``.whl/``)."""
    py = f"{sys.version_info.major}{sys.version_info.minor}"
    plat = {"x86_64": "manylinux2014_x86_64", "aarch64": "manylinux2014_aarch64"}.get(platform.machine(),
                                                                                     platform.machine())
    return (f"pip download --only-binary=:all: --python-version {py} --platform {plat} -d .whl "
            + " ".join(sorted(set(dists))))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    checks = _checklist_names(argv)
    wanted = {k: v for k, v in REQUIREMENTS.items() if k == "z3" or k in checks}
    gone = missing(wanted)
    if not gone:
        print(f"device_wheels: {', '.join(sorted(wanted))} import (python {platform.python_version()})")
        return 0
    print("device_wheels: the run cannot start, these do not import:", file=sys.stderr)
    for dist, why in sorted(gone.items()):
        print(f"  {dist}: {why}", file=sys.stderr)
    top = ["z3-solver"] + (["dask", "distributed"] if "dask" in wanted else [])
    print("carry them (and their dependencies) in .whl/; on a machine with a package index run:\n  "
          + download_line(top + list(gone)), file=sys.stderr)
    return EXIT_MISSING


if __name__ == "__main__":
    sys.exit(main())
