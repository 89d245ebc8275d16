"""Issue 15, item 10: the GPU glue sits below the algebra core, and the layering reads one way.

The rule: :mod:`isomat.gpu` (device detection, the CuPy import, host <-> device copies of plain
arrays) imports nothing from :mod:`isomat.algebra`, at module level or inside a function; the
algebra core imports :mod:`isomat.gpu`. Operators move between fields with their own
``to_field`` method, which ``to_gpu`` / ``to_cpu`` call without knowing their types.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GPU_DIR = ROOT / "isomat" / "gpu"
STANDIN = Path(__file__).resolve().parent / "cupy_standin"


def _imports(source: str, package: str = "isomat.gpu") -> list[str]:
    """Every module an ``import`` statement (or ``importlib.import_module("...")``) in ``source``
    names, relative ones resolved against ``package``, wherever the statement sits."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out += [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args \
                and isinstance(node.args[0], ast.Constant):
            out.append(str(node.args[0].value))
    return out


def test_the_gpu_package_imports_nothing_from_algebra():
    files = sorted(GPU_DIR.rglob("*.py"))
    assert files
    found = {str(f.relative_to(ROOT)): [m for m in _imports(f.read_text()) if m.startswith("isomat.algebra")]
             for f in files}
    assert not any(found.values()), found


def test_the_reader_sees_every_spelling_of_an_algebra_import():
    # the check above can fail: the imports isomat/gpu/__init__.py had before (inside functions) are seen
    assert _imports("def f():\n    from ..algebra._operator import SparseOperator\n") == ["isomat.algebra._operator"]
    assert _imports("def f():\n    from .. import algebra\n") == ["isomat.algebra"]
    assert _imports("import isomat.algebra.conv as c") == ["isomat.algebra.conv"]
    assert _imports("importlib.import_module('isomat.algebra')") == ["isomat.algebra"]
    assert _imports("from . import x") == ["isomat.gpu.x"]


_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])  # the CuPy stand-in's packages, importable as cupy / cupyx
import numpy as np, scipy.sparse as sp, sympy
import isomat.gpu as g
report = {"after_import": sorted(m for m in sys.modules if m.startswith("isomat.algebra"))}
ok, reason = g.gpu_status()
x = np.arange(6.0).reshape(2, 3)
back = g.to_cpu(g.to_gpu(x))
S = sp.random_array((5, 4), density=0.5, rng=np.random.default_rng(0), format="csr")
Sb = g.to_cpu(g.to_gpu(S, format="coo"))
M = g.to_cpu(g.to_gpu(sympy.Matrix([[1, sympy.Rational(1, 2)], [sympy.I, 0]])))
report.update(ok=ok, reason=reason, same=bool(np.array_equal(back, x)), sparse=Sb.format,
              sparse_same=bool((abs(Sb - S)).max() == 0), sympy=[[str(v) for v in r] for r in M.tolist()],
              after_use=sorted(m for m in sys.modules if m.startswith("isomat.algebra")))
from isomat.algebra import conv_matrix, diagonal_blocks
op = conv_matrix((4, 4), np.ones((3, 3)), padding=1, format="operator")
dev = g.to_gpu(op)
host = g.to_cpu(dev)
D = g.to_gpu(diagonal_blocks(op))
report.update(op=[dev.field, host.field, g.is_cupy_array(dev.values)], diag=[D.field, g.to_cpu(D).field],
              op_same=bool((abs(host.to_scipy() - op.to_scipy())).max() == 0))
print(json.dumps(report))
"""


def test_importing_and_using_isomat_gpu_loads_no_algebra_module():
    # a fresh interpreter: nothing imported before by this test session can hide an import
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(STANDIN)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["after_import"] == [] and report["after_use"] == []
    assert report["ok"], report["reason"]  # the stand-in passed the probe: the calls above ran "on the device"
    assert report["same"] and report["sparse"] == "coo" and report["sparse_same"]
    assert report["sympy"] == [["(1+0j)", "(0.5+0j)"], ["1j", "0j"]]
    # the public names still move algebra types, which move themselves (to_field)
    assert report["op"] == ["cupy", "numpy", True] and report["op_same"]
    assert report["diag"] == ["cupy", "numpy"]


def test_to_field_moves_an_operator_and_checks_the_field(cupy_standin_module):
    from isomat.algebra import projection

    op = projection(5, 3, format="operator")
    assert op.to_field("numpy") is op
    dev = op.to_field("cupy")
    assert dev.field == "cupy" and isinstance(dev.values, cupy_standin_module.ndarray)
    np.testing.assert_array_equal(dev.to_field("numpy").to_scipy().toarray(), op.to_scipy().toarray())
    exact = op.to_field("sympy")
    assert exact.field == "sympy" and exact.to_sympy().shape == (3, 5)
    with pytest.raises(ValueError, match=r"field must be one of \('sympy', 'numpy', 'cupy'\), got 'gpu'"):
        op.to_field("gpu")
    with pytest.raises(TypeError, match="field must be one of"):
        op.to_field(None)


def test_symbolic_sympy_matrix_is_refused_by_to_gpu(cupy_standin_module):
    import sympy

    from isomat.gpu import to_gpu

    with pytest.raises(TypeError, match="symbolic entries that have no float value"):
        to_gpu(sympy.Matrix([[sympy.Symbol("a"), 1]]))
