"""Issue 14: the repository stands on its own -- conventions, schema, docstrings, no outside paths."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import isomat
from isomat.proofs.engine import PAPERS, STRENGTHS, VERDICTS

ROOT = Path(__file__).resolve().parent.parent


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / line for line in out.splitlines() if line]


def test_nothing_refers_to_a_path_outside_the_repository():
    outside = re.compile(r"\.\./shared|shared/(conventions|papers|data)|/work/")
    hits = []
    for path in _tracked():
        if path.suffix in {".npz", ".pt", ".png"} or not path.is_file() or path == Path(__file__).resolve():
            continue  # (this file names the patterns it looks for)
        text = path.read_text(encoding="utf-8", errors="ignore")
        hits += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in outside.finditer(text)]
    assert not hits, hits


def _modules():
    for m in pkgutil.walk_packages(isomat.__path__, "isomat."):
        if m.name.endswith("__main__"):
            continue
        try:
            yield importlib.import_module(m.name)
        except ImportError:  # an optional dependency (torch, cupy) is missing
            continue


def test_no_docstring_holds_a_control_character():
    # '\times' in a non-raw docstring is a tab plus 'imes'; '\bigl' a backspace: help() prints garbage
    bad = []
    for mod in _modules():
        objs = [mod] + [o for _, o in inspect.getmembers(mod)
                        if (inspect.isfunction(o) or inspect.isclass(o)) and getattr(o, "__module__", "") == mod.__name__]
        for o in objs:
            doc = o.__doc__ or ""
            found = sorted({repr(c) for c in doc if ord(c) < 32 and c != "\n"})
            if found:
                bad.append(f"{mod.__name__}.{getattr(o, '__qualname__', '')}: {found}")
    assert not bad, bad


def test_conventions_hold_everything_users_need():
    text = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    for v in VERDICTS:
        assert f"`{v}`" in text, v
    for s in STRENGTHS:
        assert f"`{s}`" in text, s
    for key in PAPERS:
        assert f"`{key}`" in text, key
    assert len(re.findall(r"arXiv:\d{4}\.\d{4,5}", text)) >= len(PAPERS)
    for word in ("row-major", "readings", "hypotheses", "beyond", "ledger.schema.json"):
        assert word in text, word


def test_verify_json_validates_against_the_schema(verify_json_run):
    # the whole ledger's `isomat verify --json` (the session's one run, tests/conftest.py; it was
    # `verify --paper reneau2025 --json`, whose records are a part of it) validates against the schema
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(isomat.__file__).parent / "proofs" / "ledger.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert verify_json_run.code == 0, verify_json_run.err
    data = json.loads(verify_json_run.text)
    errors = [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
    assert not errors, errors[:5]
    # the schema is not vacuous: a record without a verdict, or with an unknown strength, is refused
    broken = json.loads(verify_json_run.text)
    del broken["claims"][0]["verdict"]
    broken["claims"][1]["strength"] = "probably"
    messages = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(broken)]
    assert "'verdict' is a required property" in messages
    assert any("'probably' is not one of" in m for m in messages)


def test_project_files_exist():
    for name in ("LICENSE", "CHANGELOG.md", "CITATION.cff", "docs/conventions.md"):
        assert (ROOT / name).is_file(), name
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert isomat.__version__ in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"version: {isomat.__version__}" in (ROOT / "CITATION.cff").read_text(encoding="utf-8")


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_every_relative_link_resolves():
    # README, CONTRIBUTING, the docs' Markdown, benchmarks/README: a relative link names a file or
    # folder of the repository (web links are left to the reader: CI has no network)
    broken, checked = [], 0
    for md in (p for p in _tracked() if p.suffix == ".md"):
        for target in _LINK.findall(md.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            checked += bool(path)
            if not path:
                continue
            where = (md.parent / path).resolve()
            if where.parent == ROOT / "docs" / "notebooks":  # docs/conf.py copies notebooks/ there at build time
                where = ROOT / "notebooks" / where.name
            if not where.exists():
                broken.append(f"{md.relative_to(ROOT)}: {target}")
    assert not broken, broken
    assert checked >= 10, checked  # the README's links to the docs, the ledger and the guide at least


def _public_modules() -> list[str]:
    """isomat's public modules: no name part starting with '_', not the command line (documented in the
    README and guide), not the papers' claims modules (isomat.proofs.<paper>: the ledger documents them)."""
    papers = tuple(f"isomat.proofs.{p}" for p in PAPERS)
    names = [m.name for m in pkgutil.walk_packages(isomat.__path__, "isomat.")]
    return ["isomat"] + [n for n in names if not any(part.startswith("_") for part in n.split("."))
                         and n != "isomat.cli" and not n.startswith(papers)]


def test_every_public_module_has_an_api_page():
    """A public module is listed in docs/conf.py's API_MODULES (one page, from its __all__), or every name of
    its __all__ is documented through a listed module that exports the same object (isomat.algebra
    re-exports its submodules' names)."""
    import ast

    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    listed = next(ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "API_MODULES")
    toc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert all(f"api/{m}\n" in toc for m in listed), "docs/api.md's toctree lists every API module"
    documented = {}
    for m in listed:
        mod = importlib.import_module(m)
        assert getattr(mod, "__all__", None), f"{m} has an API page but no __all__ to list"
        for n in mod.__all__:
            documented.setdefault(id(getattr(mod, n)), n)
    missing = []
    for name in _public_modules():
        if name in listed:
            continue
        mod = importlib.import_module(name)
        names = getattr(mod, "__all__", None)
        if names is None or any(id(getattr(mod, n)) not in documented for n in names):
            missing.append(name)
    assert not missing, f"public modules without an API page (add them to API_MODULES in docs/conf.py): {missing}"


def test_docs_load_mathjax_from_the_site_itself():
    import ast

    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    tree = ast.parse(conf)
    extensions = next(ast.literal_eval(node.value) for node in tree.body
                      if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "extensions")
    assert "sphinx-mathjax-offline" in extensions  # MathJax 3 copied into _static, no CDN
    assert "mathjax_path" not in conf or "cdn" not in conf.lower()
