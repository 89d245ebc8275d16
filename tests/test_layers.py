"""Issue 41 item 2: isomat's modules import one another in layers, and never in a circle.

A static walk of every ``import`` in ``isomat/`` (module level, inside functions and under
``TYPE_CHECKING`` alike: each is an import a reader must follow) builds the module graph. The test
fails on any cycle, on an import that climbs a floor (the algebra importing the exports, the
ledger, torch or the command line), on an import between packages of one floor that is not listed
with its reason, and on a private module at the package root beside the shared ones. The floors
and the reasons are those of ``docs/architecture.md``, which the last test keeps in step.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "isomat"

#: the floor of each part of isomat (a module takes the floor of its longest listed prefix): a module
#: imports its own floor's part and the floors beneath, never one above
FLOORS = {
    # 0: what the whole package shares (settings, argument checks, types and index arithmetic, errors,
    # the GPU glue)
    "isomat": 0, "isomat._config": 0, "isomat._validate": 0, "isomat._types": 0, "isomat.errors": 0, "isomat.gpu": 0,
    # 1: the constructions
    "isomat.algebra": 1,
    # 2: what is built on the constructions
    "isomat.export": 2, "isomat.torch": 2, "isomat.proofs": 2, "isomat.testing": 2, "isomat.distributed": 2,
    # 3: the programs a user runs
    "isomat.cli": 3, "isomat.__main__": 3, "isomat.bench": 3, "isomat.plot": 3,
}
#: on floor 2, only these imports between parts are allowed, each for its reason (the shared modules
#: of floor 0 and the programs of floor 3 may import one another: the module graph still has no cycle)
SIDEWAYS = {
    ("isomat.export", "isomat.torch"): "whole networks are written and read as isomat.torch's Network "
                                       "(its torch-free module) and, with as_module=True, its SparseModel",
    ("isomat.torch", "isomat.export"): "a torch model may load an exported network (isomat.export.read_network)",
    ("isomat.proofs", "isomat.export"): "the ledger's files go through the one atomic writer (isomat.export._atomic)",
}
#: the private modules the package root keeps: what every part shares
SHARED_ROOT = {"_config", "_validate", "_types"}


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    base = package.parent
    out = {}
    for f in sorted(package.rglob("*.py")):
        parts = list(f.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def imports(source: str, module: str, is_package: bool, known: set[str] | frozenset[str]) -> set[str]:
    """The modules of ``known`` that the imports in ``source`` (of ``module``) name, wherever they
    sit; ``from P import x`` names ``P.x`` when that is a module, else ``P``; a name that is no
    known module counts as its nearest known parent."""
    top = module.split(".")[0]
    out = set()
    tree = ast.parse(source)
    for node in (_outside_functions(tree) if module == top else ast.walk(tree)):
        named: list[str] = []
        if isinstance(node, ast.Import):
            named = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            named = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        for name in named:
            if name != top and not name.startswith(top + "."):
                continue
            while name not in known and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in known and name != module:
                out.add(name)
    return out


def _outside_functions(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` not inside a function: the root package's own imports. Inside a function
    the root is the package's front door, delegating lazily to any part (so ``import isomat`` stays
    light); those calls are the parts' imports, not the root's."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


@functools.lru_cache(maxsize=None)
def graph(package: Path = PACKAGE) -> dict[str, frozenset[str]]:
    """The module graph of ``package`` (parsed once per session: the tests below share it)."""
    mods = _modules(package)
    known = frozenset(mods)
    return {m: frozenset(imports(f.read_text(encoding="utf-8"), m, f.name == "__init__.py", known))
            for m, f in mods.items()}


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each holds a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph has ~200 modules, no recursion limit near
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def part(module: str) -> str:
    """The listed part (a key of :data:`FLOORS`) a module belongs to: its longest listed prefix."""
    best = max((p for p in FLOORS if module == p or module.startswith(p + ".")), key=len, default=None)
    if best is None:
        raise KeyError(module)
    return best


def violations(edges: dict[str, frozenset[str]]) -> list[str]:
    bad = []
    for src, targets in sorted(edges.items()):
        a = part(src)
        for dst in sorted(targets):
            b = part(dst)
            if a == b:
                continue
            fa, fb = FLOORS[a], FLOORS[b]
            if fb > fa:
                bad.append(f"{src} (floor {fa}) imports {dst} (floor {fb}): an import that climbs")
            elif fa == fb == 2 and (a, b) not in SIDEWAYS:
                bad.append(f"{src} imports {dst}: {a} and {b} share floor 2, and this import is not in SIDEWAYS")
    return bad


def test_no_import_cycle_anywhere():
    found = cycles(graph())
    assert found == [], f"import cycles (each a set of modules that import one another): {found}"


def test_every_module_has_a_floor():
    missing = [m for m in graph() if not any(m == p or m.startswith(p + ".") for p in FLOORS)]
    assert missing == [], (f"modules on no floor: {missing}; give each one in tests/test_layers.py FLOORS "
                           "and docs/architecture.md")


def test_no_import_climbs_a_floor_or_crosses_one_unlisted():
    edges = graph()
    assert violations(edges) == []
    # what the issue names outright: the constructions import none of the parts above them
    above = ("isomat.export", "isomat.proofs", "isomat.torch", "isomat.cli", "isomat.testing", "isomat.bench")
    assert not {(m, t) for m, ts in edges.items() if m.startswith("isomat.algebra") for t in ts if t.startswith(above)}


def test_the_root_keeps_public_modules_the_shared_ones_and_subpackages():
    private = sorted(f.stem for f in PACKAGE.glob("_*.py") if f.stem not in ("__init__", "__main__"))
    assert set(private) <= SHARED_ROOT, (f"private modules at isomat/'s root beside the shared {sorted(SHARED_ROOT)}: "
                                         f"{sorted(set(private) - SHARED_ROOT)} (move them into the subpackage they serve)")
    assert (PACKAGE / "export" / "__init__.py").is_file() and not (PACKAGE / "export.py").exists()


def _write_package(tmp: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = tmp / "isomat" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return tmp / "isomat"


def test_the_walk_sees_cycles_and_climbs_however_they_are_spelled(tmp_path):
    # the checks above can fail: a cycle through a function-level relative import and a TYPE_CHECKING one,
    # and an algebra module importing the exports, are all found in a made-up package
    pkg = _write_package(tmp_path, {
        "__init__.py": "from . import _types\n\ndef verify():\n    from .export import write\n",
        "_types.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .algebra._operator import Op\n",
        "algebra/__init__.py": "",
        "algebra/_operator.py": "from .._types import X\n\ndef f():\n    from ..export import write\n",
        "export/__init__.py": "from ._io import write\n",
        "export/_io.py": "def g():\n    import isomat.export\n",
    })
    edges = graph(pkg)
    # the root's module-level import counts; its lazy delegation inside a function is the part's, not the root's
    assert edges["isomat"] == {"isomat._types"}
    assert edges["isomat.export._io"] == {"isomat.export"} and edges["isomat.export"] == {"isomat.export._io"}
    assert sorted(cycles(edges)) == [["isomat._types", "isomat.algebra._operator"], ["isomat.export", "isomat.export._io"]]
    assert any("climbs" in v and v.startswith("isomat.algebra._operator") for v in violations(edges))


def test_the_architecture_page_names_every_part_and_every_sideways_import():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [p for p in FLOORS if p != "isomat" and f"`{p}`" not in text]
    assert missing == [], f"docs/architecture.md does not name {missing}"
    for a, b in SIDEWAYS:  # every allowed import between parts of floor 2 is on the page, with its reason
        assert f"`{a}` → `{b}`" in text, (a, b)


#: ``isomat.export.__all__`` of isomat 0.2.0 (docs/api.md's page of isomat.export lists these), and the names
#: the command line took from the module then (its family registry and argparse types)
EXPORT_0_2_0 = ["FORMATS", "SUFFIXES", "column_major", "read_bias", "rebuild", "flatten_permutation", "from_dlpack",
                "from_jax_bcoo", "from_torch", "load_jax_bcoo", "load_torch", "read", "read_mat", "read_matrix_market",
                "read_metadata", "read_network", "read_npz", "save_torch", "to_dlpack", "to_jax_bcoo", "to_jax_npz",
                "to_mat", "to_matrix_market", "to_npz", "to_scipy", "to_torch", "write", "write_network"]
EXPORT_CLI_0_2_0 = ["FAMILIES", "ExportFamily", "family", "int_list", "int_or_tuple", "new_seed", "normal", "positive",
                    "write_target"]


def test_every_public_name_of_0_2_0_still_imports_from_isomat_export():
    import importlib

    export = importlib.import_module("isomat.export")
    assert sorted(export.__all__) == sorted(EXPORT_0_2_0)  # the public names, unchanged
    missing = [n for n in EXPORT_0_2_0 + EXPORT_CLI_0_2_0 if not hasattr(export, n)]
    assert missing == []
    for name in EXPORT_0_2_0:  # each is the package's own object, documented where it is defined
        obj = getattr(export, name)
        assert not callable(obj) or obj.__module__.startswith("isomat.export"), (name, obj.__module__)


def test_importing_the_exports_loads_neither_torch_nor_the_ledger():
    import subprocess
    import sys

    code = ("import sys, isomat.export; print(sorted(m for m in ('torch', 'jax', 'z3', 'cvc5', 'isomat.proofs', "
            "'isomat.cli', 'isomat.torch') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout
