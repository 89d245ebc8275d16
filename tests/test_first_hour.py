"""Regression tests for the first-hour surprises (issue 23, items 8 and 9): errors that leaked from a
dependency or accepted nonsense, and the command line's small roughnesses."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from isomat.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _cli(*argv, env=None):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
             **(env or {}))
    return subprocess.run([sys.executable, "-m", "isomat", *argv], capture_output=True, text=True, env=e, timeout=600)


def test_zhu_offsets_refuses_before_allocating():
    from isomat.algebra import zhu_offsets
    from isomat.errors import SizeLimitError

    with pytest.raises(SizeLimitError, match="r = 1000000000"):
        zhu_offsets((6, 6), 10**9)


def test_spm_kernel_keep_is_a_flag():
    from isomat.algebra.spm import SPMKernel, random_spm

    with pytest.raises(TypeError, match="keep must be True or False"):
        SPMKernel(random_spm(8, 3, seed=0), 4, keep="False")


def test_bad_memory_limit_variable_is_one_line_and_spares_version(tmp_path):
    bad = {"ISOMAT_MEMORY_LIMIT": "bogus"}
    done = _cli("--version", env=bad)
    assert done.returncode == 0 and done.stdout.startswith("isomat ")
    done = _cli("export", "conv", "--input-shape", "1,4,4", "--kernel-size", "3", "-o", str(tmp_path / "c.npz"), env=bad)
    assert done.returncode == 2 and "ISOMAT_MEMORY_LIMIT" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_assembled_attention_names_the_operand():
    from isomat.algebra import assembled_attention

    X = np.ones((3, 4))
    with pytest.raises(ValueError, match="Wk must be a matrix with 4 columns"):
        assembled_attention(X, np.ones((2, 4)), np.ones((2, 5)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="Wq and Wk must have the same number of rows"):
        assembled_attention(X, np.ones((2, 4)), np.ones((3, 4)), np.ones((2, 4)))


def test_field_of_refuses_text_and_estimate_bytes_rows():
    from isomat.algebra import estimate_bytes, field_of

    with pytest.raises(TypeError, match=r"inputs\[0\] must be an array"):
        field_of("abc")
    with pytest.raises(ValueError, match="n_rows must be at least 1"):
        estimate_bytes(nnz=100, n_rows=0)
    assert estimate_bytes(nnz=0, n_rows=0) >= 0


def test_structure_matrix_says_how_much():
    from isomat.algebra import structure_matrix
    from isomat.errors import SizeLimitError

    with pytest.raises(SizeLimitError, match=r"about 2\^\d+ bytes"):
        structure_matrix(lambda *v: v[0], 2, k=10**12)


def test_torch_and_tensorly_spellings():
    from isomat.algebra import conv_matrix, kron

    K = np.arange(9.0).reshape(1, 1, 3, 3)
    assert abs(conv_matrix((1, 5, 5), K, padding=1, boundary="zeros") - conv_matrix((1, 5, 5), K, padding=1)).max() == 0
    A, B = np.eye(2), np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(kron([A, B]).toarray(), np.kron(A, B))
    assert kron([[1, 2], [3, 4]]).shape == (2, 2)  # a list of rows of numbers is still one matrix


def test_reprs_summarize():
    from isomat.algebra import kron_operator
    from isomat.algebra.linear_operators import conv_linear_operator
    from isomat.algebra.spm import random_spm

    for obj in (kron_operator(np.ones((40, 40)), np.ones((3, 3))), random_spm(64, 3, seed=0),
                conv_linear_operator((1, 50, 50), np.ones((1, 1, 3, 3)))):
        text = repr(obj)
        assert len(text) < 200 and "\n" not in text and "_ConvOperator" not in text, text


def test_command_line_roughnesses(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit):
        main(["--help"], out=out, err=err)
    done = _cli("--help")
    assert "``" not in done.stdout
    done = _cli("export", "conv", "--input-shape", "1,4,4", "--kernel-size", "3", "--seed", "-1", "-o",
                str(tmp_path / "c.npz"))
    assert done.returncode == 2 and "--seed" in done.stderr and "non-negative" in done.stderr
    claims = tmp_path / "one.py"
    claims.write_text(
        "from isomat.proofs.engine import claim, decide, exhaustive\n"
        "@claim('firsthour2026:eq1', quote='q', statement='s', methods=['exhaustive'])\n"
        "def _c():\n    return decide(exhaustive(lambda n: n >= 0, range(3), describe='n < 3'))\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "--claims", str(claims), "--jobs", "1"], out=out, err=err) == 0
    text = out.getvalue()
    assert re.search(r"^1 claim in ", text, flags=re.M) and "1 claims" not in text
    assert max(len(line) for line in text.splitlines()) <= 100


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_export_says_what_it_is_doing_on_a_terminal_only(tmp_path):
    # issue 23, item 9: no progress on long export runs; on a terminal the stages are named, in a pipe nothing
    from isomat.cli import main as cli

    argv = ["export", "conv", "--input-shape", "1,6,6", "--kernel-size", "3", "--seed", "1"]
    out, err = io.StringIO(), _Terminal()
    assert cli([*argv, "-o", str(tmp_path / "a.npz")], out=out, err=err) == 0
    lines = err.getvalue().splitlines()
    assert lines[0] == "isomat export conv: building ..." and "stored entries in" in lines[1] and "writing" in lines[1]
    out, err = io.StringIO(), io.StringIO()
    assert cli([*argv, "-o", str(tmp_path / "b.npz")], out=out, err=err) == 0
    assert err.getvalue() == ""


def test_bench_numbers_its_scripts_as_it_goes(tmp_path):
    from isomat.bench import run_benchmarks

    for name in ("one", "two"):
        (tmp_path / f"{name}.py").write_text("print('ok')\n")
    log = io.StringIO()
    run_benchmarks(tmp_path, json_path=tmp_path / "r.json", markdown_path=tmp_path / "r.md", quick=True, log=log)
    text = log.getvalue()
    assert "[1/2] one ..." in text and "[2/2] two:" in text
