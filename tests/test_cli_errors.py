"""Issue 14 item 4: every CLI user error is one line on stderr with a non-zero exit; sizes with units."""

from __future__ import annotations

import subprocess
import sys

import pytest

import isomat
from isomat._config import get_memory_limit, memory_limit, parse_size, set_memory_limit


def _isomat(*argv, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "isomat", *argv], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


@pytest.mark.parametrize("argv, words", [
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "-o", "{tmp}/missing/x.mtx"], "does not exist"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "-o", "{tmp}/noext"], "format must be one of"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel", "{tmp}/missing.npy", "-o", "{tmp}/c.mtx"], "no such file"),
    (["export", "pool", "--input-shape", "3,8,8", "--kernel-size", "2", "--memory-limit", "4X", "-o", "{tmp}/p.mtx"],
     "size like '4G'"),
    (["export", "conv", "--input-shape", "1,4000,4000", "--kernel-size", "3", "--memory-limit", "1M",
      "-o", "{tmp}/big.mtx"], "--memory-limit"),
    (["export", "bogus-kind", "-o", "{tmp}/x.mtx"], "invalid choice"),
    (["verify", "--paper", "nosuch2030"], "nosuch2030"),
    (["verify", "--claim", "zhu2025.thm4.1", "--memory-limit", "4X"], "--memory-limit"),
    (["bench", "--memory-limit", "-3G"], "--memory-limit"),
    # a family's random operand is refused before it is drawn (found by tests/test_cli_fuzz.py)
    (["export", "attention", "--tokens", "2", "--dim", "2", "--dim-k", "1000000000000", "-o", "{tmp}/a.npz"],
     "the random Wq"),
    (["export", "graph", "--nodes", "100000000", "--p", "0.5", "-o", "{tmp}/g.npz"], "networkx G(100000000, 0.5)"),
    (["export", "logic", "--k", "1000000000000", "-o", "{tmp}/l.npz"], "random indices"),
])
def test_user_errors_are_one_line_without_a_traceback(tmp_path, argv, words, capsys):
    # in this process, through the entry point ``python -m isomat`` calls (an exception escaping it would be the
    # traceback; argparse's own errors go to sys.stderr); test_the_entry_point_prints_one_line runs one of
    # these through a real ``python -m isomat``
    import io

    from isomat.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        code = main([a.format(tmp=tmp_path) for a in argv], out=out, err=err)
    except SystemExit as exc:
        code = exc.code
    stderr = err.getvalue() + capsys.readouterr().err
    assert code not in (0, None)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], stderr


def test_the_entry_point_prints_one_line(tmp_path):
    proc = _isomat("export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "-o", str(tmp_path / "noext"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "format must be one of" in lines[0], proc.stderr


def test_memory_limit_option_builds_what_the_default_refuses(tmp_path):
    argv = ["export", "conv", "--input-shape", "1,600,600", "--kernel-size", "3", "-o", str(tmp_path / "c.npz")]
    assert _isomat(*argv, "--memory-limit", "1M").returncode == 2
    ok = _isomat(*argv, "--memory-limit", "512M")
    assert ok.returncode == 0 and (tmp_path / "c.npz").is_file(), ok.stderr


def test_sizes_take_units_everywhere():
    assert parse_size("4G") == 4 * 1024**3 and parse_size("512M") == 512 * 1024**2
    assert parse_size("1.5GiB") == 3 * 1024**3 // 2 and parse_size("2GB") == 2 * 10**9 and parse_size("2e9") == 2 * 10**9
    for bad, exc in (("4X", ValueError), ("-1", ValueError), (0, ValueError), (True, TypeError), (2.5, TypeError)):
        with pytest.raises(exc):
            parse_size(bad)
    with memory_limit("64M"):
        assert get_memory_limit() == 64 * 1024**2
    old = get_memory_limit()
    set_memory_limit("3G")
    assert get_memory_limit() == 3 * 1024**3
    set_memory_limit(old)
    env_proc = subprocess.run([sys.executable, "-c", "import isomat; print(isomat.get_memory_limit())"],
                              capture_output=True, text=True, env={**__import__("os").environ, "ISOMAT_MEMORY_LIMIT": "4G"})
    assert env_proc.stdout.strip() == str(4 * 1024**3), env_proc.stderr


def test_bench_finds_its_scripts_from_any_directory(tmp_path):
    from isomat.cli import _bench_dir

    assert _bench_dir(None) .endswith("benchmarks")
    proc = _isomat("bench", "--help", cwd=tmp_path)
    assert proc.returncode == 0


def test_distributed_benchmark_skips_without_dask(monkeypatch):
    import importlib.util
    import pathlib

    path = pathlib.Path(isomat.__file__).resolve().parent.parent / "benchmarks" / "distributed.py"
    if not path.is_file():
        pytest.skip("not a source checkout")
    spec = importlib.util.spec_from_file_location("bench_distributed", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    res = mod.run(size=8, big=8, repeats=1)
    assert "skipped" in res and "not installed" in res["skipped"] and res["figures"] == []
