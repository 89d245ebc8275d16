"""Issue 24 items 7, 9, 10: the memory bound everywhere, fork safety of to_torch(csr), one-line CLI errors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
import sympy

import isomat
from isomat.algebra import _operator
from isomat.errors import SizeLimitError

kron_mod = sys.modules["isomat.algebra.kron"]


def _refused_small(fn, *a, **kw):
    """fn refuses with SizeLimitError under a 10 MiB bound, having allocated under 2 MB."""
    with isomat.memory_limit("10M"):
        tracemalloc.start()
        try:
            with pytest.raises(SizeLimitError):
                fn(*a, **kw)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 2_000_000, peak


W4000 = sp.random(2000, 2000, density=0.0005, format="csr", random_state=0)


def test_todense_refused():
    _refused_small(_operator.as_operator(W4000).todense)


def test_kronecker_rank_and_nearest_refused():
    _refused_small(kron_mod.kronecker_rank, W4000, (40, 40), (50, 50))
    _refused_small(kron_mod.nearest_kronecker, W4000, (40, 40), (50, 50))
    _refused_small(kron_mod.kronecker_factors, W4000, [(40, 40), (50, 50)])


def test_chebyshev_lambda_max_none_refused():
    import networkx as nx

    from isomat.algebra.graph import chebyshev_filter

    G = nx.path_graph(2000)
    _refused_small(chebyshev_filter, G, [1.0, 0.5])
    assert chebyshev_filter(nx.path_graph(5), [1.0, 0.5]).shape == (5, 5)


def test_to_dlpack_scipy_refused():
    from isomat.export import to_dlpack

    _refused_small(to_dlpack, W4000)
    assert to_dlpack(sp.eye(3, format="csr")).shape == (3, 3)


def test_single_kron_factor_checked():
    _refused_small(kron_mod.kron_operator, np.ones((2000, 2000)))


def test_sympy_estimate_bounds_measured_build():
    from isomat.algebra.projection import projection

    tracemalloc.start()
    M = projection(20003, 20011, backend="sympy")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    nnz = len(M.todok())
    est = _operator.estimate_bytes(nnz, M.shape[0], value_bytes=_operator.value_bytes("sympy"))
    assert est >= peak, (est, peak)
    assert est < 4 * peak  # not absurdly high either


def test_exact_rank_bounded():
    W = sympy.Matrix(9, 9, sympy.symbols("w0:81"))
    with pytest.raises(ValueError, match="float"):
        kron_mod.kronecker_rank(W, (3, 3), (3, 3))
    A, B = sympy.Matrix([[1, 2], [3, 4]]), sympy.Matrix([[1, -1], [2, 5]])
    W2 = sympy.Matrix(sympy.kronecker_product(A, B))
    W2[0, 0] += sympy.Rational(1, 10**30)
    assert kron_mod.kronecker_rank(W2, (2, 2), (2, 2)) == 2
    R = sympy.Matrix(80, 80, lambda i, j: sympy.Rational(i + 1, j + 1))  # rank 1, but 80 > the rational bound
    with pytest.raises(ValueError, match="EXACT_RATIONAL_RANK_MAX"):
        kron_mod.kronecker_rank(R, (8, 10), (10, 8))


def test_to_torch_csr_after_fork():
    pytest.importorskip("torch")
    code = textwrap.dedent("""
        import os, sys, time, signal
        import scipy.sparse as sp
        from isomat.export import to_torch
        W = sp.random(3000, 3000, density=0.01, format="csr", random_state=0)
        to_torch(W, "csr")
        pid = os.fork()
        if pid == 0:
            to_torch(W, "csr")
            os._exit(0)
        deadline = time.time() + 20
        while time.time() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                sys.exit(0 if os.waitstatus_to_exitcode(status) == 0 else 3)
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.exit(4)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])


def test_to_torch_csr_refuses_invalid_scipy():
    pytest.importorskip("torch")
    from isomat.export import to_torch

    M = sp.csr_array((np.ones(2), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    assert to_torch(M, "csr").to_dense().sum() == 2


ISOMAT = [sys.executable, "-m", "isomat"]


@pytest.mark.parametrize("argv, env, rc", [
    (["export", "logic", "--k", "10", "--memory-limit", "1e400"], {}, 2),
    (["export", "logic", "--k", "10"], {"ISOMAT_MEMORY_LIMIT": "bogus"}, 2),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--stride", "1" + "0" * 23], {}, 2),
    (["export", "pool", "--input-shape", "1,8,8", "--kernel-size", "2", "--stride", "1" + "0" * 20, "--ceil-mode"], {}, 2),
    (["export", "graph", "--nodes", "10", "--p", "1e-300"], {}, 2),
    (["export", "kron", "--factors", "5000x5000", "--memory-limit", "200M"], {}, 2),
    (["export", "logic", "--k", "20000000", "--memory-limit", "170M"], {}, 2),
])
def test_cli_one_line_errors(tmp_path, argv, env, rc):
    r = subprocess.run([*ISOMAT, *argv, "-o", str(tmp_path / "x.npz")], capture_output=True, text=True, timeout=120,
                       env={**os.environ, **env})
    assert r.returncode == rc, r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_cli_version_with_bad_env():
    r = subprocess.run([*ISOMAT, "--version"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "ISOMAT_MEMORY_LIMIT": "bogus"})
    assert r.returncode == 0 and "Traceback" not in r.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
def test_cli_memory_error_one_line(tmp_path):
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1200 * 2**20, 1200 * 2**20)); "
            "from isomat.cli import main; sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", code, "export", "kron", "--factors", "3000x3000,2x2", "--memory-limit", "100G",
                        "-o", str(tmp_path / "x.npz")], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--memory-limit" in r.stderr
