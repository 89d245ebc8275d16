"""The device memory guard, as the first H100 run (2026-11-26) measured it.

Builds staged through COO and ``sum_duplicates`` held 52-72 bytes an entry at the pool's peak, over
the 50 the guard assumed; the zero-boundary conv now fills its CSR in place on the device; the guard
counts the pool's cached free blocks as free; and a sparse matrix of 2**31 or more entries is refused
on a CuPy that corrupts it (upstream #9490, fixed in 14.3). Run through the CuPy stand-in.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from isomat.algebra import _operator, avgpool_matrix, conv_matrix
from isomat.algebra._operator import (DEVICE_BYTES_PER_ENTRY_STAGED, device_bytes_estimate,
                                      last_device_estimate)
from isomat.errors import SizeLimitError

pytestmark = pytest.mark.standin


def _host(A):
    return sp.csr_array(A.get())


@pytest.mark.parametrize("shape, kernel_shape, padding", [((9, 7), (3, 3), "same"), ((2, 6, 5), (3, 2, 3, 2), 1),
                                                          ((4, 11), (2, 4, 3), 0), ((13,), (4,), 2)])
def test_the_zero_boundary_conv_fills_its_csr_in_place_on_the_device(cupy_standin_module, monkeypatch, shape,
                                                                     kernel_shape, padding):
    cp = cupy_standin_module
    kernel = np.random.default_rng(1).standard_normal(kernel_shape)
    want = sp.csr_array(conv_matrix(shape, kernel, padding=padding))

    def no_staging(*a, **k):
        raise AssertionError("the zero-boundary device build went through COO staging")

    monkeypatch.setattr(_operator.SparseOperator, "build", classmethod(lambda cls, *a, **k: no_staging()))
    A = conv_matrix(shape, cp.asarray(kernel), padding=padding, backend="cupy")
    assert type(A).__module__.startswith("cupyx") and A.format == "csr"
    got = _host(A)
    assert (got != want).nnz == 0 and got.nnz == want.nnz
    assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
    est = last_device_estimate()
    assert est["staging"] is False and est["nnz"] == want.nnz


def test_other_boundaries_and_formats_still_stage_and_are_estimated_so(cupy_standin_module):
    cp = cupy_standin_module
    kernel = np.random.default_rng(2).standard_normal((3, 3))
    for kw in (dict(boundary="circular"), dict(format="coo")):
        A = conv_matrix((6, 7), cp.asarray(kernel), padding="same", **kw)
        want = conv_matrix((6, 7), kernel, padding="same", **kw)
        assert abs(sp.csr_array(A.get()) - sp.csr_array(want)).max() == 0
        assert last_device_estimate()["staging"] is True
    est = last_device_estimate()
    assert est["bytes"] == DEVICE_BYTES_PER_ENTRY_STAGED * est["nnz"] + 16 * (est["rows"] + 1)


def test_the_staged_estimate_bounds_what_the_h100_measured():
    # pool peaks per stored entry on the H100 (benchmarks/results/nvidia-h100-2026-11-26-run1-*.json)
    for measured in (68.47, 70.0, 72.0, 52.0):
        assert device_bytes_estimate(10**7, 10**6) > measured * 10**7


def test_the_guard_counts_the_pools_cached_blocks_as_free(cupy_standin_module, monkeypatch):
    cp = cupy_standin_module
    kernel = cp.asarray(np.ones((3, 3)))
    avgpool_matrix((1, 64, 64), (1, 1), backend="cupy")
    nnz_bytes = last_device_estimate()["bytes"]
    monkeypatch.setattr(type(cp.cuda.Device()), "mem_info", property(lambda self: (nnz_bytes // 2, 8 << 30)))
    with pytest.raises(SizeLimitError, match="free on the device"):
        avgpool_matrix((1, 64, 64), (1, 1), backend="cupy")
    # the same free memory plus the pool's cached blocks is enough
    monkeypatch.setattr(type(cp.get_default_memory_pool()), "free_bytes", lambda self: 8 << 30)
    avgpool_matrix((1, 64, 64), (1, 1), backend="cupy")
    conv_matrix((64, 64), kernel, padding="same", backend="cupy")


def test_a_csr_past_2_31_entries_is_refused_on_cupy_14_2_with_the_fix_named(cupy_standin_module, monkeypatch):
    import isomat

    cp = cupy_standin_module
    monkeypatch.setattr(isomat._config, "_limit", 1 << 42)  # the host bound is not what this test is about
    kernel = cp.asarray(np.ones((64, 64, 3, 3), dtype=np.float32))
    with pytest.raises(SizeLimitError) as info:
        conv_matrix((64, 256, 256), kernel, padding="same", backend="cupy")
    text = str(info.value)
    assert "2,403,352,576" in text or "2**31" in text
    assert "#9490" in text and "14.3" in text and "format='diagonal'" in text and "14.2" in text
    # on a CuPy with the fix, the version gate lets it through: the stand-in's 8 GiB then refuse it by size
    monkeypatch.setattr(cp, "__version__", "14.3.0")
    with pytest.raises(SizeLimitError) as info:
        conv_matrix((64, 256, 256), kernel, padding="same", backend="cupy")
    assert "#9490" not in str(info.value) and "free on the device" in str(info.value)
    # and the diagonal storage, with 64-bit indexing, is offered and is not refused by the version gate
    monkeypatch.setattr(cp, "__version__", "14.2.0")
    with pytest.raises(SizeLimitError, match="free on the device"):
        conv_matrix((64, 256, 256), kernel, padding="same", format="diagonal")
