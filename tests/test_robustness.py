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
