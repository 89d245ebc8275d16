"""Sphinx configuration for isomat's documentation site.

Build: ``.venv/bin/python -m sphinx -W --keep-going -b html docs docs/_build/html``
(the ``docs`` extra: sphinx, myst-nb, numpydoc, furo, sphinx-mathjax-offline). Everything is
offline: no intersphinx, MathJax 3 is copied into the site (``_static/mathjax``, from
sphinx-mathjax-offline) instead of loaded from a CDN, so formulas render without a network, and
the notebooks are shown with their stored outputs (``nb_execution_mode = "off"``; the test
``tests/test_notebooks.py`` executes them and fails when the stored outputs are stale).

Two folders are written here at build time and are not tracked: ``api/`` (one page per module,
listing the names of its ``__all__`` in an autosummary table, and under ``api/generated/`` one page per name;
a class page documents its methods) and ``notebooks/`` (a copy of the repository's ``notebooks/*.ipynb``, since Sphinx reads only
files under this folder).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import isomat  # noqa: E402

project = "isomat"
author = "isomat developers"
copyright = "isomat developers (MIT licence)"
release = version = isomat.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: formulas render offline
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"

html_theme = "furo"
html_title = f"isomat {release}"
html_static_path: list[str] = []

# --- API reference: the public names of each module's __all__ --------------------------------
#: one page per module; tests/test_docs.py fails when a public module is neither listed here nor has
#: every name of its __all__ documented through a module listed here (isomat.algebra re-exports the
#: names of its submodules, for instance)
API_MODULES = ["isomat", "isomat.algebra", "isomat.export", "isomat.testing", "isomat.testing.strategies",
               "isomat.testing.operators", "isomat.testing.families", "isomat.testing.models", "isomat.distributed",
               "isomat.torch", "isomat.torch.network",
               "isomat.gpu", "isomat.errors", "isomat.bench", "isomat.plot", "isomat.proofs", "isomat.proofs.engine",
               "isomat.proofs.prover", "isomat.proofs.recheck"]

autosummary_generate = False  # the per-name pages are written by _api_pages
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
nb_execution_mode = "off"
nb_merge_streams = True


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


#: the autodoc directive of each kind of public name, for its own page
_DIRECTIVES = {"class": ".. autoclass:: {n}\n   :members:\n   :show-inheritance:", "function": ".. autofunction:: {n}",
               "data": ".. autodata:: {n}"}


def _rst_escape(text: str) -> str:
    return text.replace("_", r"\_")


def _api_pages() -> None:
    """Write ``api/<module>.rst`` for each module (its docstring and an autosummary table of ``__all__``) and
    ``api/generated/<module>.<name>.rst``, one page per public name.

    The per-name pages are written here, as orphans reached from their module's table, instead of by
    autosummary's ``:toctree:``: in a toctree, the ~400 pages were in the navigation tree that furo renders into
    every page's sidebar, and Sphinx resolves that tree again for each page -- quadratic in the pages, 270 of a
    serial build's 345 s.
    """
    api = DOCS / "api"
    wanted: set[str] = set()
    for name in API_MODULES:
        mod = importlib.import_module(name)
        names = [n for n in getattr(mod, "__all__", []) if not n.startswith("__")]
        groups: dict[str, list[str]] = {"class": [], "function": [], "data": []}
        for n in names:
            kind = _kind(getattr(mod, n))
            groups[kind].append(n)
            full = f"{name}.{n}"
            wanted.add(f"{full}.rst")
            title = _rst_escape(full)
            _write_if_changed(api / "generated" / f"{full}.rst", "\n".join(
                [":orphan:", "", title, "=" * len(title), "", f".. currentmodule:: {name}", "",
                 _DIRECTIVES[kind].format(n=n), ""]))
        lines = [name, "=" * len(name), "", f".. automodule:: {name}", "   :no-members:", "",
                 f".. currentmodule:: {name}", ""]
        for kind, heading in (("function", "Functions"), ("class", "Classes"), ("data", "Constants")):
            if not groups[kind]:
                continue
            lines += [heading, "-" * len(heading), "", ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {n}" for n in groups[kind]] + [""]
        _write_if_changed(api / f"{name}.rst", "\n".join(lines))
    for stale in (api / "generated").glob("*.rst"):  # a name no longer public loses its page
        if stale.name not in wanted:
            stale.unlink()


def _copy_notebooks() -> None:
    """Copy ``notebooks/*.ipynb`` to ``docs/notebooks/`` (Sphinx reads only this folder)."""
    dst = DOCS / "notebooks"
    dst.mkdir(exist_ok=True)
    wanted = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    for p in dst.glob("*.ipynb"):
        if p.name not in wanted:
            p.unlink()
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        _write_if_changed(dst / p.name, p.read_text(encoding="utf-8"))


_api_pages()
_copy_notebooks()


def setup(app):
    """Let ``sphinx -j`` read in parallel (tests/test_docs_build.py builds with ``-j auto``).

    sphinx-mathjax-offline (0.0.2) does not declare whether it is parallel-safe, so Sphinx warns and
    reads serially (and ``-W`` makes the warning an error). It is safe: its ``setup`` only points the
    MathJax option at the site's copy and connects ``build-finished``, which copies MathJax into
    ``_static`` in the main process after every page is written; it keeps no per-document state.
    """
    ext = app.extensions.get("sphinx-mathjax-offline")
    if ext is not None and ext.parallel_read_safe is None:
        ext.parallel_read_safe = True
    return {"parallel_read_safe": True, "parallel_write_safe": True}
