"""``benchmarks/kernel_variants.py`` (issue 42): the chunked ``A^T y`` kernels, the mirror of the library's
``matvec_chunks`` and its float4 / double2 vector-load variant, run through the CuPy stand-in and equal
CSR's products on both sides of the chunking threshold; a kernel that drops the partial last chunk of
block rows is caught. (``tests/test_nvrtc.py`` compiles the same sources with the real NVRTC.)"""

from __future__ import annotations


import numpy as np
import pytest

from ._scripts import load_benchmark


def _script():
    return load_benchmark("kernel_variants", "kernel_variants")


@pytest.mark.standin
def test_the_variants_equal_csr_and_a_dropped_partial_chunk_is_caught(cupy_standin_module, monkeypatch):
    kv = _script()
    cp = cupy_standin_module
    # 17 output channels: one full chunk of 16 float32 block rows and a partial one of 1
    pairs = ((2, 3), (17, 2))
    worst, bad = kv.check_against_csr(cp, kv.Variants(cp), np.float32, pairs, (4, 4))
    assert bad == [] and worst <= 1e-5
    drop = "p1 = p0 + chunk < n_br ? p0 + chunk : p0"  # the partial last chunk sums nothing
    monkeypatch.setattr(kv, "_RMATVEC_CHUNKS", kv._RMATVEC_CHUNKS.replace("p1 = p0 + chunk < n_br ? p0 + chunk : n_br", drop))
    assert drop in kv._source("rmatvec_chunks", np.float32)[1]
    _, bad = kv.check_against_csr(cp, kv.Variants(cp), np.float32, pairs, (4, 4))
    # the mirror fails (one partial chunk at 2 output channels, the second of two at 17); the others pass
    assert all(m.startswith("rmatvec_chunks (float32, ") for m in bad), bad
    assert any(m.startswith("rmatvec_chunks (float32, 17<-2 channels") for m in bad), bad


@pytest.mark.standin
def test_the_vector_variant_refuses_a_block_that_is_not_a_multiple_of_its_lanes(cupy_standin_module):
    from isomat.algebra import conv_matrix

    kv = _script()
    cp = cupy_standin_module
    D = conv_matrix((2, 5, 5), cp.asarray(np.ones((2, 2, 3, 3), dtype=np.float32)), padding="same", format="diagonal")
    with pytest.raises(ValueError, match=r"block \(25\) and the span \(50\) multiples of 4"):
        kv.Variants(cp).rmatvec_chunks(D, cp.ones(50, dtype=cp.float32), vector=True)
