"""The documentation site builds with warnings as errors, as CI builds it, and has its pages.

A broken docstring (an RST error, a control character that breaks a formula), a notebook that
myst-nb cannot render, or a page left out of every toctree fails the build. The notebooks are
not executed here (``nb_execution_mode = "off"``): their stored outputs are checked for freshness
by tests/test_notebooks.py.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NEEDED = ("sphinx", "myst_nb", "numpydoc", "furo")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"docs extra not installed (missing {', '.join(missing)}): pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("html")
    # in parallel: Sphinx reads in -j processes and writes in -j - 1 (the main process resolves each page
    # and hands it to a writer), so one more than the usable CPUs keeps them all busy; the pages are the
    # same as a serial build's, and a warning in any process still fails the build under -W
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", str(cpus + 1), "-b", "html",
           "-d", str(out / ".doctrees"), str(REPO / "docs"), str(out)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (
        f"sphinx -W failed (exit {proc.returncode}); its warnings:\n{proc.stderr[-6000:]}")
    return out


def test_site_builds_without_warnings(site):
    assert (site / "index.html").is_file()
    for page in ("conventions", "guide/fields", "guide/ledger", "guide/proofs", "guide/export", "guide/torch",
                 "guide/dask", "ledger-table", "api"):
        assert (site / f"{page}.html").is_file(), page


def test_api_reference_renders_numpydoc_and_math(site):
    page = site / "api" / "generated" / "isomat.algebra.conv_matrix.html"
    assert page.is_file()
    html = page.read_text(encoding="utf-8")
    assert "Parameters" in html and "input_shape" in html and "Returns" in html
    assert 'class="math' in html  # the docstring's LaTeX goes to MathJax
    # ... served from the site itself (offline), never from a CDN
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert "_static/mathjax/tex-chtml.js" in html and "cdn.jsdelivr" not in html
    for module in ("isomat", "isomat.algebra", "isomat.export", "isomat.testing", "isomat.distributed",
                   "isomat.torch", "isomat.proofs", "isomat.proofs.engine", "isomat.proofs.prover",
                   "isomat.testing.strategies", "isomat.gpu"):
        assert (site / "api" / f"{module}.html").is_file(), module


def test_notebook_pages_show_stored_figures(site):
    html = (site / "notebooks" / "zhu2025.html").read_text(encoding="utf-8")
    assert "<img" in html and "_images/" in html
    assert any((site / "_images").glob("*.png"))
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        assert (site / "notebooks" / f"{nb.stem}.html").is_file(), nb.name
