"""The install story: the wheel and the sdist carry what they promise, and a wheel installed with no
extras runs ``isomat verify``, ``isomat bench --quick`` and ``isomat export`` (python -m build,
twine check, a fresh venv)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_listed_packages_are_the_packages_under_isomat():
    from setuptools import find_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = set(find_packages(str(ROOT), include=["isomat*"]))
    assert set(conf["packages"]) == found | {"isomat._benchmarks"}
    assert conf["package-dir"] == {"isomat._benchmarks": "benchmarks"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    pytest.importorskip("build", reason="the test extra's 'build' is not installed")
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0 and ("Could not find a version" in proc.stderr or "No matching distribution" in proc.stderr):
        pytest.skip("python -m build needs the package index for its isolated build environment")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "SetuptoolsDeprecationWarning" not in proc.stdout + proc.stderr, "the build warns: " + (
        proc.stdout + proc.stderr)[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def test_twine_check_passes(dist):
    pytest.importorskip("twine", reason="the test extra's 'twine' is not installed")
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_wheel_and_sdist_carry_what_they_promise(dist):
    wheel, sdist = dist
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("isomat/_benchmarks/ledger.py", "isomat/_benchmarks/README.md", "isomat/proofs/ledger.schema.json",
                   "isomat/proofs/expected/zhu2025.json", "isomat/proofs/expected/obligations.json", "isomat/py.typed"):
        assert needed in names, needed
    top = sdist.name[: -len(".tar.gz")]
    members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
    for needed in ("CHANGELOG.md", "LEDGER.md", "notebooks/zhu2025.ipynb", "docs/conf.py", "docs/guide/proofs.md",
                   "benchmarks/ledger.py", "tests/test_packaging.py", "pyproject.toml"):
        assert needed in members, f"{top}: {needed}"
    assert not any(m.startswith(("docs/_build", ".venv")) for m in members)


@pytest.mark.slow
def test_a_wheel_without_extras_runs_verify_bench_and_export(dist, tmp_path):
    """A fresh venv, the wheel with its runtime dependencies only (from the package index, or pip's cache)."""
    wheel, _ = dist
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # --no-compile: pip byte-compiles every installed module (SymPy and SciPy are thousands of files) -- the run
    # below compiles only what it imports
    proc = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check",
                           str(wheel)], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0 and ("No matching distribution" in proc.stderr or "Could not find a version" in proc.stderr):
        pytest.skip("installing the wheel's dependencies needs the package index: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    isomat = venv / "bin" / "isomat"
    # without PYTHONPATH (nothing of the checkout) and without PYTHONDONTWRITEBYTECODE (which CI sets): the first
    # interpreter then writes the compiled modules it imports, and the verify workers and the later commands reuse them
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    work = tmp_path / "elsewhere"  # not the checkout: nothing of it on the path
    work.mkdir()

    def run(*argv, timeout=600):
        done = subprocess.run([str(isomat), *argv], capture_output=True, text=True, cwd=work, env=env, timeout=timeout)
        assert done.returncode == 0, f"isomat {' '.join(argv)}: exit {done.returncode}\n{done.stderr[-3000:]}"
        return done.stdout

    assert "zhu2025" in run("verify", "--paper", "zhu2025")
    run("export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--seed", "1", "-o", str(work / "c.npz"))
    assert (work / "c.npz").is_file()
    # a benchmark script shipped in the wheel (isomat._benchmarks), run by the installed CLI; not the ledger's, which
    # times two runs of a paper's ledger (tests/test_bench.py runs that script on two small claims)
    run("bench", "--quick", "--only", "kron", "--json", str(work / "b.json"), "--markdown", str(work / "b.md"))
    (entry,) = json.loads((work / "b.json").read_text())["benchmarks"]
    assert entry["status"] == "ok" and entry["result"]["figures"], entry
