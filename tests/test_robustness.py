"""Issue 17: no wrong answer for bad input, fork-safe thread pools, checked threads / out arguments."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest

from isomat.algebra import SPMKernel, conv_apply, conv_matrix, csr_matvec, random_spm

X = np.random.default_rng(0).standard_normal((1, 16, 16))
K = np.ones((1, 1, 3, 3))


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (0, ValueError), (True, TypeError), (2.5, TypeError),
                                      ("2", TypeError)])
def test_threads_must_be_a_positive_int(bad, exc):
    # threads=-1 used to return uninitialized memory, 0 and True were silently the default
    with pytest.raises(exc, match="threads must be"):
        conv_apply(X, K, threads=bad)
    with pytest.raises(exc, match="threads must be"):
        conv_matrix(X.shape, K, threads=bad)
    with pytest.raises(exc, match="threads must be"):
        csr_matvec(conv_matrix(X.shape, K), X.ravel(), threads=bad)


def test_csr_matvec_out_is_checked_not_truncated():
    A = conv_matrix(X.shape, K)
    with pytest.raises(ValueError, match="dtype float64"):
        csr_matvec(A, X.ravel(), out=np.zeros(A.shape[0], dtype=np.int64))
    with pytest.raises(ValueError, match=r"shape \(196,\)"):
        csr_matvec(A, X.ravel(), out=np.zeros(A.shape[0] + 1))
    with pytest.raises(ValueError, match="C-contiguous"):
        csr_matvec(A, X.ravel(), out=np.zeros(2 * A.shape[0])[::2])
    with pytest.raises(TypeError, match="out must be a NumPy array"):
        csr_matvec(A, X.ravel(), out=[0.0] * A.shape[0])
    out = np.empty(A.shape[0])
    assert csr_matvec(A, X.ravel(), out=out, threads=2) is out
    np.testing.assert_allclose(out, A @ X.ravel(), rtol=1e-13)


def _threaded_work(_=None):
    y = conv_apply(X, K, threads=2)
    z = csr_matvec(conv_matrix(X.shape, K), X.ravel(), threads=2)
    layer = random_spm(8, 3, seed=0)
    kern = SPMKernel(layer, 6, np.float64, threads=2)
    f = kern.forward(np.ones((6, 8)))
    return float(np.asarray(y).sum() + z.sum() + np.asarray(f).sum())


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="no fork() on this platform")
def test_thread_pools_survive_fork():
    # a threaded call in the parent creates the pools; the same calls in a fork()ed child used to hang forever
    expected = _threaded_work()
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_threaded_work).get(timeout=60)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="no fork() on this platform")
def test_thread_pools_survive_dask_process_workers():
    distributed = pytest.importorskip("distributed")
    import dask

    _threaded_work()  # the parent's pools exist before the workers are forked
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = client.submit(_threaded_work, pure=False).result(timeout=120)
    assert got == pytest.approx(_threaded_work(), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# accepted-but-meaningless inputs (issue 17): each now a clear error naming the argument
# ---------------------------------------------------------------------------------------------
def _graph():
    import networkx as nx

    return nx.path_graph(3)


@pytest.mark.parametrize("call, exc, words", [
    (lambda A: A.chebyshev_filter(_graph(), [1.0, 2.0], lambda_max=float("nan")), ValueError, "lambda_max must be a finite"),
    (lambda A: A.chebyshev_filter(_graph(), [1.0], lambda_max="2"), TypeError, "lambda_max must be a finite"),
    (lambda A: A.random_spm(4, 2, schedule="bogus"), ValueError, "schedule must be one of"),
    (lambda A: A.random_spm(4, 2, variant="bogus"), ValueError, "variant must be one of"),
    (lambda A: A.random_spm(4, 2, seed=2.5), TypeError, "seed must be an integer"),
    (lambda A: A.random_spm(4, 2, seed=-1), ValueError, "seed must be an integer >= 0"),
    (lambda A: A.random_pairings(4, 2, seed=True), TypeError, "seed must be an integer"),
    (lambda A: A.as_operator(np.eye(2), field="bogus"), ValueError, "field must be one of"),
    (lambda A: A.estimate_bytes(-1, 3), ValueError, "nnz must be an integer >= 0"),
    (lambda A: A.estimate_bytes(2.5, 3), TypeError, "nnz must be an integer"),
    (lambda A: A.pool_output_shape((), 2), ValueError, "input_shape must have at least one entry"),
    (lambda A: A.maxpool_selection(np.ones((2, 2), dtype=complex), (2, 2)), TypeError, "x must be real"),
])
def test_meaningless_input_is_refused(call, exc, words):
    import isomat.algebra as A

    with pytest.raises(exc, match=words):
        call(A)


@pytest.mark.parametrize("call, words", [
    (lambda A: A.random_pairings(10**12, 1), "random_pairings"),
    (lambda A: A.butterfly_pairings(10**12), "butterfly_pairings"),
    (lambda A: A.logical_vector(1, 10**12), "logical_vector"),
    (lambda A: A.conjunction(10**7), "conjunction"),
    (lambda A: A.negation(10**12), "negation"),
])
def test_unbounded_work_is_refused_before_allocating(call, words):
    # these used to allocate terabytes (MemoryError) or hang; they are refused, with the size, at once
    import isomat.algebra as A
    from isomat.errors import SizeLimitError

    with pytest.raises(SizeLimitError, match=f"{words}.*over the memory bound"):
        call(A)


# ---------------------------------------------------------------------------------------------
# every write checked (issue 17 item 3)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("writer, ext", [("to_matrix_market", ".mtx"), ("to_npz", ".npz"), ("save_torch", ".pt")])
def test_writes_are_atomic_and_refuse_a_missing_directory(tmp_path, writer, ext):
    from isomat import export

    if writer == "save_torch":
        pytest.importorskip("torch")
    M = conv_matrix(X.shape, K)
    fn = getattr(export, writer)
    with pytest.raises(ValueError, match="does not exist"):
        fn(M, tmp_path / "missing" / f"x{ext}")
    assert not (tmp_path / "missing").exists()
    p = fn(M, tmp_path / f"x{ext}")
    assert p.is_file() and p.stat().st_size > 0
    assert sorted(q.name for q in tmp_path.iterdir()) == [f"x{ext}"]  # no temporary file left behind
    back = export.read(p)
    assert abs(back - M).max() == 0


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    import scipy.io

    from isomat import export

    def broken(target, *a, **k):  # a partial write, then a failure (to a path or, as isomat.export now
        if hasattr(target, "write"):  # writes the header, to an in-memory buffer)
            target.write(b"%%MatrixMarket partial")
        else:
            with open(target, "w") as fh:
                fh.write("%%MatrixMarket partial")
        raise OSError("disk full")

    monkeypatch.setattr(scipy.io, "mmwrite", broken)
    with pytest.raises(OSError, match="disk full"):
        export.to_matrix_market(conv_matrix(X.shape, K), tmp_path / "x.mtx")
    assert list(tmp_path.iterdir()) == []


def test_precision_and_kernel_file_are_checked(tmp_path):
    from isomat import export
    from isomat.cli import main

    with pytest.raises(ValueError, match="precision must be a positive integer"):
        export.to_matrix_market(conv_matrix(X.shape, K), tmp_path / "x.mtx", precision=-1)
    import io

    err = io.StringIO()
    code = main(["export", "conv", "--input-shape", "1,8,8", "--kernel", str(tmp_path / "missing.npy"),
                 "-o", str(tmp_path / "c.mtx")], out=io.StringIO(), err=err)
    assert code == 2 and err.getvalue().count("\n") == 1 and "no such file" in err.getvalue()


# ---------------------------------------------------------------------------------------------
# the memory guard on every path (issue 17 item 2): refused before allocating, peak RSS measured
# ---------------------------------------------------------------------------------------------
REFUSED = {  # one oversize call per family (the refusal names the function)
    "conv_matrix": "conv_matrix((30000, 30000), np.ones((3, 3)))",
    "avgpool_matrix": "avgpool_matrix((40000, 40000), (2, 2))",
    "conv_apply": "conv_apply(np.zeros((1, 2, 2)), np.ones((1, 1, 3, 3)), padding=10**5)",
    "random_pairings": "random_pairings(10**12, 1)",
    "logical_vector": "logical_vector(1, 10**12)",
    "swap_matrix": "swap_matrix(10**6, 10**6)",
    "rnn_matrix": "rnn_matrix(np.ones((1, 1)), np.ones((1, 1)), 10**6)",
    "padding_matrix": "padding_matrix((30000, 30000), 1)",
    "power_reducing_matrix": "power_reducing_matrix(10**7)",
    "zhu_pool_matrix": "zhu_pool_matrix((40000, 40000), 2)",
    "stp": "stp(np.ones((1, 99991)), np.ones((99989, 1)))",
    "linear_attention_matrix": "linear_attention_matrix(10**4, np.ones((64, 64)), np.ones((64, 64)), np.ones((64, 64)))",
    "kron": "kron(np.ones((300, 300)), np.ones((300, 300)))",  # small factors, a 8.1e9-entry product
    # found by the keyword fuzz: a padding of 10**12 reached NumPy's MemoryError (14.6 TiB)
    "shift_matrix": "shift_matrix(6, 3, 1, padding=10**12)",
    "conv_kron_factors": "conv_kron_factors((6, 6), np.ones((3, 3)), padding=10**12)",
    # matrix-free applies: refused before their outputs and temporaries exist
    "project_pad": "project_pad([np.ones(3), np.ones(4)], d=10**12)",
    "ndlinear_apply": "ndlinear_apply(np.ones((10**5, 1)), [np.ones((1, 10**5)), np.ones((10**5, 1))], order='inner')",
    "spm_attention_forward": "spm_attention_forward({k: random_spm(6, 2, seed=0) for k in 'QKVO'}, np.ones((10**5, 6)))",
    "df_attention_general": "df_attention_general([np.ones(2)] * 10, [np.ones(2)] * 10**4, [np.ones(2)] * 9999)",
    "rnn_apply": "rnn_apply(np.ones((1000, 1)), np.eye(1000), np.ones((10**6, 1)))",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_oversize_calls_allocate_nothing_near_their_size(name):
    import subprocess
    import sys

    code = (
        "import resource, numpy as np\n"
        "from isomat.algebra import *\n"
        "from isomat.errors import SizeLimitError\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"try:\n    {REFUSED[name]}\n    print('NOT REFUSED')\n"
        "except SizeLimitError as e:\n    print('REFUSED', str(e).split(':')[0])\n"
        "print('GROWTH_KIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert f"REFUSED {name}" in out, out  # (the first word of the refusal is the refusing function)
    growth_kib = int(out.split("GROWTH_KIB")[1])
    # the requests are tens of GiB to TiB; the refusal itself must stay within a few MiB
    assert growth_kib < 64 * 1024, out



def _estimate_and_growth(spy_setup: str, small: str, call: str) -> tuple[int, int]:
    """In a fresh process: install ``spy_setup`` (which records the guard's byte counts in ``seen``),
    warm up with ``small`` (lazy imports and first-use caches are not the call's), then run ``call``
    under a 64 MiB bound. Returns (the largest count the guard saw, the RSS the call grew by)."""
    import subprocess
    import sys

    code = (
        "import resource, sys, numpy as np, isomat\n"
        "from isomat.algebra import *\n"
        "seen = []\n"
        f"{spy_setup}"
        f"{small}  # warm-up\n"
        "seen.clear()\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "isomat.set_memory_limit('64M')\n"
        f"r = {call}\n"
        "grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base\n"
        "print('ESTIMATE', max(seen), 'GREW', grew)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "ESTIMATE" in out.stdout, out.stderr[-2000:]
    words = out.stdout.split()
    return int(words[words.index("ESTIMATE") + 1]), int(words[words.index("GREW") + 1])


NEAR_BOUND = {  # builds that fit a 64 MiB bound with little room: their real peak must stay under the estimate
    "conv_matrix": ("conv_matrix((700, 700), np.ones((3, 3)))", "conv_matrix((20, 20), np.ones((3, 3)))"),
    "conv_matrix coo": ("conv_matrix((250, 250), np.ones((3, 3)), format='coo')",
                        "conv_matrix((20, 20), np.ones((3, 3)), format='coo')"),
    "avgpool_matrix": ("avgpool_matrix((1, 1200, 1200), (2, 2))", "avgpool_matrix((1, 24, 24), (2, 2))"),
    "swap_matrix": ("swap_matrix(800, 800)", "swap_matrix(20, 20)"),
}


@pytest.mark.parametrize("name", sorted(NEAR_BOUND))
def test_the_estimate_is_an_upper_bound_of_the_real_peak(name):
    """Build near a 64 MiB bound in a fresh process and compare the RSS it really grew by with the
    bytes isomat's estimate allowed: the estimate must bound the real peak (CSR, staging arrays,
    index temporaries), so a refusal is never needed after allocation."""
    call, small = NEAR_BOUND[name]
    estimate, grew = _estimate_and_growth(
        "from isomat.algebra import _operator\n"
        "real = _operator.estimate_bytes\n"
        "def spy(*a, **k):\n    v = real(*a, **k); seen.append(v); return v\n"
        "_operator.estimate_bytes = spy\n", small, call)
    assert estimate > 8 * 2**20, (name, estimate)  # a build near the bound, not a toy
    # a fixed 16 MiB for what is not proportional to the matrix: worker-thread stacks, allocator arenas,
    # the builders' cache-sized block scratch (measured 11.6 MiB on conv and avgpool at 2 threads)
    assert grew <= estimate + 16 * 2**20, (name, estimate, grew)


# ---------------------------------------------------------------------------------------------
# keyword arguments of every public callable (issue 17, the keyword fuzz of tests/test_fuzz.py)
# ---------------------------------------------------------------------------------------------
def _hv(*dims):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(n) for n in dims]


def _spm():
    return random_spm(6, 2, seed=0)


@pytest.mark.parametrize("call, exc, words", [
    # flags used to be read by their truth value (weighted=nan weighted, staging=None unstaged)
    (lambda A: A.df_attention(_hv(3, 4), _hv(3, 4), _hv(3, 4), weighted=float("nan")), TypeError, "weighted must be True or False"),
    (lambda A: A.estimate_bytes(10, 3, staging=None), TypeError, "staging must be True or False"),
    (lambda A: A.spm_forward(_spm(), np.ones((2, 6)), return_cache=1), TypeError, "return_cache must be True or False"),
    # a keyword's refusal named another argument (field= said "backend", out_dims= said "dims")
    (lambda A: A.diamond(np.eye(2), _hv(3, 4), out_dims=2.5), TypeError, "out_dims must be"),
    # an array where a string or sequence is expected: NumPy's "truth value of an empty array is ambiguous"
    (lambda A: A.diamond_matrix(np.eye(2), [2, 3], format=np.empty((0, 3))), TypeError, "format must be one of"),
    (lambda A: A.df_concat([_hv(2, 3), _hv(4, 1)], (3, 2), weights=np.nan), TypeError, "weights must be None or a sequence"),
    # max_fill=True passed as 1
    (lambda A: A.diagonal_blocks(conv_matrix(X.shape, K), max_fill=True), TypeError, "max_fill must be a number"),
    # tol=nan counted every singular value; tol="x" failed inside a product
    (lambda A: A.kronecker_rank(np.ones((4, 4)), (2, 2), (2, 2), tol=float("nan")), ValueError, "tol must be a finite"),
    # activations: "'float' object is not callable", SciPy's decorator message for rnn_apply
    (lambda A: A.matrix_highway(np.ones((2, 2)), (np.eye(2), np.eye(2), np.zeros((2, 2))),
                                (np.eye(2), np.eye(2), np.zeros((2, 2))), gate=1.0), TypeError, "gate must be a callable"),
    (lambda A: A.rnn_apply(np.eye(2), np.eye(2), np.ones((3, 2)), activation=1j), TypeError, "activation must be a callable"),
    # dtype: NumPy's "Cannot interpret 'nan' as a data type"
    (lambda A: A.padding_matrix((2, 4), 1, dtype=float("nan")), TypeError, "dtype must be a NumPy dtype"),
    # SPM: d_h=nan gave NaN outputs; a float cache failed on subscripting; seed unchecked with butterfly pairings
    (lambda A: A.spm_attention_forward({k: _spm() for k in "QKVO"}, np.ones((3, 6)), d_h=float("nan")), TypeError, "d_h must be an integer"),
    (lambda A: A.spm_attention_forward({k: _spm() for k in "QKVO"}, np.ones((3, 6)), d_h=7), ValueError, "d_h must be at most"),
    (lambda A: A.spm_backward(_spm(), np.ones((2, 6)), np.ones((2, 6)), cache=1.0), TypeError, "cache must be None or the list"),
    (lambda A: A.spm_layer(6, "butterfly", np.zeros((2, 3)), seed=1j), TypeError, "seed must be an integer"),
])
def test_bad_keyword_values_are_refused_with_their_name(call, exc, words):
    import isomat.algebra as A

    with pytest.raises(exc, match=words):
        call(A)


def test_apply_row_blocks_checks_workers_and_return_info():
    from isomat.distributed import apply_row_blocks, construction_rows

    from ._fuzz_calls import FakeClient

    build = construction_rows(conv_matrix, X.shape, K)
    with pytest.raises(TypeError, match="workers must be None or a sequence of worker addresses"):
        apply_row_blocks(build, 196, X.ravel(), client=FakeClient(), workers=2.5)
    with pytest.raises(TypeError, match="return_info must be True or False"):
        apply_row_blocks(build, 196, X.ravel(), client=FakeClient(), return_info=None)


def test_testing_helpers_check_their_tolerances_and_counts():
    from isomat.testing import assert_matches_dense, assert_same_operator, dottest

    M = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="rtol must be a finite"):  # NaN failed every dot test
        dottest(M, rtol=float("nan"))
    with pytest.raises(TypeError, match="rng must be None, a non-negative integer seed"):  # NumPy's SeedSequence message
        dottest(M, rng=float("nan"))
    with pytest.raises(TypeError, match="dtype must be a NumPy dtype"):  # accepted and ignored
        dottest(M, dtype=float("nan"))
    with pytest.raises(ValueError, match="atol must be a finite"):  # NaN: "operators differ" for equal operators
        assert_same_operator(M, M, atol=float("nan"))
    with pytest.raises(TypeError, match="probes must be an integer"):  # int(None) inside
        assert_same_operator(M, M, probes=None)
    with pytest.raises(TypeError, match="rtol must be a finite"):  # NumPy's format-string message
        assert_matches_dense(M, M, rtol=None)


# ---------------------------------------------------------------------------------------------
# matrix-free applies refuse, with the size, before allocating (issue 17 item 2)
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def one_mib():
    import isomat

    with isomat.memory_limit(2**20):
        yield


def _many(k, n=1):
    return [np.ones(n)] * k


GUARDED = {  # each needs well over 1 MiB for its outputs and temporaries; its inputs stay small
    "project": lambda A: A.project(np.ones(3), 10**6),
    "project_pad": lambda A: A.project_pad(_hv(3, 4), d=10**6),
    # the inner order's intermediate (10**3 x 10**3) used to be bounded by the outer order's (10**3)
    "ndlinear_apply": lambda A: A.ndlinear_apply(np.ones((1000, 1)), [np.ones((1, 1000)), np.ones((1000, 1))],
                                                 order="inner"),
    "spm_forward": lambda A: A.spm_forward(_spm(), np.ones((10**4, 6))),
    "spm_backward": lambda A: A.spm_backward(_spm(), np.ones((10**4, 6)), np.ones((10**4, 6))),
    "spm_attention_forward": lambda A: A.spm_attention_forward({k: _spm() for k in "QKVO"}, np.ones((2000, 6))),
    "rnn_apply": lambda A: A.rnn_apply(np.ones((100, 1)), np.eye(100), np.ones((10**4, 1))),
    "attention_scores": lambda A: A.attention_scores(_many(1000), _many(1000)),
    "df_attention": lambda A: A.df_attention(_many(1000), _many(1000), _many(1000)),
    # 10 x 1000 scores fit; V repeated to lcm(1000, 999) rows does not
    "df_attention_general": lambda A: A.df_attention_general(_many(10), _many(1000), _many(999)),
    # lcm(1000, 999) rows of length 10
    "hv_nominal_add": lambda A: A.hv_nominal_add(_many(1000), _many(999), 10),
    "assert_same_operator": lambda A: __import__("isomat.testing").testing.assert_same_operator(
        np.ones((3, 3000)), np.ones((3, 3000)), probes=10**5),
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_matrix_free_applies_are_refused_before_allocating(name, one_mib):
    import isomat.algebra as A
    from isomat.errors import SizeLimitError

    with pytest.raises(SizeLimitError, match=rf"^{name}: .*would need about [0-9.]+ [KMGT]iB, over the memory bound of 1.0 MiB"):
        GUARDED[name](A)


APPLY_NEAR_BOUND = {  # matrix-free applies near a 64 MiB bound (call, a small warm-up call)
    "spm_forward": ("spm_forward(random_spm(64, 6, seed=0), np.ones((10000, 64)))",
                    "spm_forward(random_spm(64, 6, seed=0), np.ones((4, 64)))"),
    "rnn_apply": ("rnn_apply(np.ones((1, 1)), np.full((1, 1), 0.5), np.ones((60000, 1)))",
                  "rnn_apply(np.ones((1, 1)), np.full((1, 1), 0.5), np.ones((4, 1)))"),
    "hv_nominal_add": ("hv_nominal_add([np.ones(2)] * 200, [np.ones(3)] * 199, 20)",
                       "hv_nominal_add([np.ones(2)] * 2, [np.ones(3)] * 3, 20)"),
    "df_attention_general": ("df_attention_general([np.ones(4)] * 100, [np.ones(4)] * 150, [np.ones(3)] * 149)",
                             "df_attention_general([np.ones(4)] * 2, [np.ones(4)] * 3, [np.ones(3)] * 2)"),
}


@pytest.mark.parametrize("name", sorted(APPLY_NEAR_BOUND))
def test_apply_guards_bound_the_real_peak(name):
    """As for the builds above: in a fresh process, the RSS an apply really grew by is at most the
    bytes its guard counted (plus the fixed 16 MiB of allocator arenas), so the guard refuses
    before allocation whatever would not fit."""
    call, small = APPLY_NEAR_BOUND[name]
    estimate, grew = _estimate_and_growth(
        "mods = [sys.modules['isomat.algebra.' + m] for m in ('spm', 'hyper', 'rnn', 'projection')]\n"
        "real = mods[0].check_bytes\n"
        "def spy(what, nbytes, detail=''):\n    seen.append(nbytes); return real(what, nbytes, detail)\n"
        "for m in mods:\n    m.check_bytes = spy\n", small, call)
    assert estimate > 16 * 2**20, (name, estimate)  # near the bound, not a toy
    assert grew <= estimate + 16 * 2**20, (name, estimate, grew)


# -- issue 17's list, the cases a scalar-valued fuzz cannot draw --------------------------------------
@pytest.mark.parametrize("name", ["is_kronecker", "kronecker_rank", "nearest_kronecker", "ndlinear_from_dense"])
def test_nan_matrices_are_refused_before_the_svd(name):
    # LAPACK's "SVD did not converge" (numpy.linalg.LinAlgError) used to be the answer
    import isomat.algebra as A

    W = np.eye(4)
    W[1, 2] = np.nan
    with pytest.raises(ValueError, match="W must have finite entries") as info:
        getattr(A, name)(W, (2, 2), (2, 2))
    assert "isomat" in info.traceback[-1].path.as_posix()


def test_symbolic_max_pooling_is_refused_by_name():
    import sympy

    from isomat.algebra import maxpool_selection

    with pytest.raises(TypeError, match="x must hold real numbers, not symbols"):
        maxpool_selection(sympy.Matrix(2, 2, sympy.symbols("a:4")), 2, ndim=2)
    exact = maxpool_selection(sympy.Matrix([[1, sympy.Rational(3, 2)], [sympy.sqrt(2), 0]]), 2, ndim=2)
    assert sympy.Matrix(exact).tolist() == [[0, 1, 0, 0]]  # exact numbers still compare


def test_patch_major_order_is_refused_before_allocating():
    from isomat._config import memory_limit
    from isomat.algebra import patch_major_order
    from isomat.errors import SizeLimitError

    with memory_limit("64M"), pytest.raises(SizeLimitError, match="patch_major_order"):
        patch_major_order((10**6, 10**6), 2)  # 7.3 TiB of positions (MemoryError before)


# -- found when the fuzz drew arrays with NaN, 3-d arrays, object arrays and symbols -----------------
def test_non_finite_values_in_the_exact_field_are_refused_by_name():
    import sympy

    from isomat.algebra import conv_apply, linear_attention

    x = sympy.Symbol("x")
    with pytest.raises(ValueError, match="no exact value"):  # Fraction's 'cannot convert NaN' before
        conv_apply(np.full((2, 2), np.nan), sympy.Matrix([[x]]))
    with pytest.raises(ValueError, match="no exact value"):  # an OverflowError crash before
        linear_attention(np.array([[np.inf]]), sympy.Matrix([[x]]), sympy.Matrix([[1]]), sympy.Matrix([[1]]))


def test_refusals_name_the_callers_argument():
    import networkx as nx

    from isomat.algebra import adjacency, conv_kron_factors, df_concat, matrix_highway
    from isomat.export import from_dlpack

    with pytest.raises(TypeError, match="image_shape"):
        conv_kron_factors("bogus", np.ones((2, 2)))
    with pytest.raises(TypeError, match="theta_z must be a tuple"):
        matrix_highway(np.ones((2, 2)), None, None)
    with pytest.raises(TypeError, match="nodelist must list nodes of G"):
        adjacency(nx.path_graph(2), nodelist=np.ones((2, 2)))
    with pytest.raises(TypeError, match="weights must hold one number per head"):
        df_concat([[np.ones(2)], [np.ones(2)]], [2], weights=np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="x cannot be exchanged through DLPack"):
        from_dlpack(np.array([object(), object()], dtype=object))


def test_strings_among_numbers_are_refused_by_name_not_read_as_numbers():
    # float("2.5") read a string entry as 2.5, and float("a") failed inside NumPy with no argument named
    import networkx as nx

    from isomat.algebra import chebyshev_filter
    from isomat.algebra._backend import as_values

    for theta, shown in (([1, "a"], "'a'"), ([1, "2.5"], "'2.5'"), ([1, b"2"], "b'2'")):
        with pytest.raises(TypeError, match=f"theta must hold numbers, got the string {shown}"):
            chebyshev_filter(nx.path_graph(3), theta, lambda_max=2)
    from isomat.algebra import adjacency, laplacian

    g = nx.Graph([("a", "b", {"w": 1}), ("b", "c", {"w": "2.5"})])  # a weight given as text was read as 2.5
    for build in (adjacency, laplacian):
        with pytest.raises(TypeError, match="edge weights must hold numbers, got the string '2.5'"):
            build(g, weight="w")
    with pytest.raises(TypeError, match="w must hold numbers"):
        as_values(np.array([[1.0, "3"]], dtype=object), "numpy", name="w")
    assert as_values(np.array([1, 2.5], dtype=object), "numpy", name="w").tolist() == [1.0, 2.5]
