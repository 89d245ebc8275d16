"""Issue 42 item 3: SPM (farag2025) forward and backward as one fused launch each
(``isomat.algebra._spm_fused``), run through the CuPy stand-in -- a block's threads at once, meeting at
``__syncthreads()`` -- against the CPU field's ``spm_forward`` / ``spm_backward`` in float64.

Tolerance: float32 results within 1e-5 of the reference's largest magnitude (a few roundings per
stage over 6 stages and a batch sum of 5 rows). (``tests/test_nvrtc.py`` compiles the kernels with
the real NVRTC.)"""

from __future__ import annotations

import numpy as np
import pytest

from isomat.algebra.spm import butterfly_pairings, random_pairings, spm_backward, spm_forward, spm_layer

RTOL = 1e-5


@pytest.mark.standin
@pytest.mark.parametrize("variant, pairing", [("rotation", "butterfly"), ("general", "random")])
def test_fused_forward_and_backward_equal_the_cpu_field(cupy_standin_module, variant, pairing):
    from isomat.algebra._spm_fused import spm_backward_fused, spm_forward_fused

    cp = cupy_standin_module
    n, L, rows = 40, 6, 5  # n not a power of two: the random pairings cover it; rows > 1: the batch sums
    rng = np.random.default_rng(3)
    pairs = butterfly_pairings(64, L) if pairing == "butterfly" else random_pairings(n, L, seed=4)
    if pairing == "butterfly":
        n = 64
    P = rng.standard_normal((L, n // 2) if variant == "rotation" else (L, n // 2, 4)).astype(np.float32)
    d_in, d_out, bias = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    X, G = (rng.standard_normal((rows, n)).astype(np.float32) for _ in range(2))
    host = spm_layer(n, pairs, P.astype(np.float64), variant=variant, d_in=d_in.astype(np.float64),
                     d_out=d_out.astype(np.float64), bias=bias.astype(np.float64))
    dev = spm_layer(n, pairs, cp.asarray(P), variant=variant, d_in=cp.asarray(d_in), d_out=cp.asarray(d_out),
                    bias=cp.asarray(bias), backend="cupy")
    want = {"y": spm_forward(host, X.astype(np.float64)), **spm_backward(host, X.astype(np.float64), G.astype(np.float64))}
    got = {"y": spm_forward_fused(dev, cp.asarray(X)), **spm_backward_fused(dev, cp.asarray(X), cp.asarray(G))}
    assert set(got) == set(want)
    for key, ref in want.items():
        have = got[key].get()
        assert have.dtype == np.float32 and have.shape == ref.shape, key
        err = np.abs(have - ref).max() / np.abs(ref).max()
        assert err <= RTOL, (key, err)


@pytest.mark.standin
def test_fused_refuses_what_it_does_not_take(cupy_standin_module):
    from isomat.algebra._spm_fused import fused_unsupported, spm_forward_fused

    cp = cupy_standin_module
    odd = spm_layer(7, "butterfly", cp.zeros((3, 3), dtype=cp.float32), backend="cupy")
    with pytest.raises(ValueError, match="even n"):
        spm_forward_fused(odd, cp.zeros((2, 7), dtype=cp.float32))
    big = spm_layer(8192, "butterfly", cp.zeros((13, 4096)), backend="cupy")  # float64: 64 KiB a row
    assert "over the 49152" in fused_unsupported(big, cp.zeros((1, 8192)))
    host = spm_layer(8, "butterfly", np.zeros((3, 4)))
    assert "cupy field" in fused_unsupported(host, np.zeros((1, 8)))
    with pytest.raises(ValueError, match=r"X must have shape \(\.\.\., 8\)"):
        spm_forward_fused(spm_layer(8, "butterfly", cp.zeros((3, 4)), backend="cupy"), cp.zeros((2, 9)))


@pytest.mark.standin
def test_the_standin_refuses_more_shared_memory_than_a_block_has(cupy_standin_module):
    cp = cupy_standin_module
    k = cp.RawKernel('extern "C" __global__ void k(float* y) { extern __shared__ float s[]; s[0] = 1; '
                     '__syncthreads(); y[0] = s[0]; }', "k")
    with pytest.raises(RuntimeError, match="CUDA_ERROR_INVALID_VALUE.*shared_mem 49156"):
        k((1,), (2,), (cp.zeros(1, dtype=cp.float32),), shared_mem=48 * 1024 + 4)
