"""SPM's cupy field runs each stage as one CUDA RawKernel launch (forward) and one per stage plus a
single batch reduction (backward).

Run through the CuPy stand-in (``tests/cupy_standin``), which compiles the same CUDA source with the
host C++ compiler: the kernels' results must equal the numpy field's array code (farag2025 eq. 2-19)
for powers of two and other n (odd n with the unpaired coordinate passed or scaled), both block
variants, 1-d / 2-d / 3-d batches, with and without the forward's cache.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isomat.algebra.spm import random_spm, spm_backward, spm_forward, spm_layer

pytestmark = pytest.mark.standin

_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_TOL = {np.float64: dict(rtol=1e-12, atol=1e-12), np.float32: dict(rtol=1e-5, atol=1e-5)}


def _device_layer(cp, ref):
    """``ref`` (numpy field) rebuilt in the cupy field with the same values and dtype."""
    kw = dict(odd_scale=cp.asarray(ref.odd_scale)) if ref.odd_scale is not None else {}
    return spm_layer(ref.n, list(ref.pairs), cp.asarray(ref.params), variant=ref.variant, d_in=cp.asarray(ref.d_in),
                     d_out=cp.asarray(ref.d_out), bias=cp.asarray(ref.bias), odd=ref.odd, backend="cupy", **kw)


def _count_launches(monkeypatch, cp):
    calls = []
    orig = cp.RawKernel.__call__

    def counted(self, *args, **kwargs):
        calls.append(self.name)
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(cp.RawKernel, "__call__", counted)
    return calls


sizes = st.one_of(st.sampled_from([1, 2, 4, 8, 16, 32, 64]), st.integers(1, 40))
batches = st.sampled_from([(), (1,), (3,), (2, 3), (0,)])


@_SETTINGS
@given(n=sizes, L=st.integers(1, 6), batch=batches, variant=st.sampled_from(["rotation", "general"]),
       odd=st.sampled_from(["pass", "scale"]), schedule=st.sampled_from(["butterfly", "random"]),
       dtype=st.sampled_from([np.float64, np.float32]), use_cache=st.booleans(), seed=st.integers(0, 2**16))
def test_kernels_equal_the_numpy_field(cupy_standin_module, n, L, batch, variant, odd, schedule, dtype, use_cache, seed):
    cp = cupy_standin_module
    ref = random_spm(n, L, variant=variant, odd=odd, schedule=schedule, seed=seed, dtype=dtype)
    lay = _device_layer(cp, ref)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((*batch, n)).astype(dtype)
    G = rng.standard_normal((*batch, n)).astype(dtype)
    tol = _TOL[dtype]

    y_ref, zs_ref = spm_forward(ref, X, return_cache=True)
    y, zs = spm_forward(lay, cp.asarray(X), return_cache=True)
    assert isinstance(zs, list) and len(zs) == L + 1
    np.testing.assert_allclose(y.get(), y_ref, **tol)
    for ell, (z, z_ref) in enumerate(zip(zs, zs_ref)):
        assert tuple(z.shape) == X.shape
        np.testing.assert_allclose(z.get(), z_ref, **tol, err_msg=f"z_{ell}")
    np.testing.assert_allclose(spm_forward(lay, cp.asarray(X)).get(), y_ref, **tol)

    want = spm_backward(ref, X, G)
    got = spm_backward(lay, cp.asarray(X), cp.asarray(G), cache=zs if use_cache else None)
    assert set(got) == set(want)
    for k in want:
        assert tuple(got[k].shape) == np.shape(want[k]), k
        # batch sums of products: scale the absolute tolerance with the batch size
        np.testing.assert_allclose(got[k].get(), want[k], rtol=tol["rtol"], atol=tol["atol"] * max(1, X.size // n),
                                   err_msg=k)


@pytest.mark.parametrize("variant", ["rotation", "general"])
@pytest.mark.parametrize("n, odd", [(16, "pass"), (13, "pass"), (13, "scale")])
def test_one_launch_per_stage(cupy_standin_module, monkeypatch, variant, n, odd):
    cp = cupy_standin_module
    L = 5
    lay = _device_layer(cp, random_spm(n, L, variant=variant, odd=odd, seed=1))
    X = cp.asarray(np.random.default_rng(0).standard_normal((4, n)))
    calls = _count_launches(monkeypatch, cp)
    spm_forward(lay, X)
    assert calls == ["isomat_spm_stage_forward_f64"] * L
    calls.clear()
    _, zs = spm_forward(lay, X, return_cache=True)
    assert len(calls) == L
    calls.clear()
    spm_backward(lay, X, X, cache=zs)  # with the cache: the backward stage kernel alone
    assert calls == ["isomat_spm_stage_backward_f64"] * L
    calls.clear()
    spm_backward(lay, X, X)  # without: the forward's L stages first
    assert calls == ["isomat_spm_stage_forward_f64"] * L + ["isomat_spm_stage_backward_f64"] * L


@pytest.mark.parametrize("variant", ["rotation", "general"])
@pytest.mark.parametrize("n, odd", [(32, "pass"), (9, "scale")])
def test_float32_stays_float32(cupy_standin_module, monkeypatch, variant, n, odd):
    cp = cupy_standin_module
    lay = _device_layer(cp, random_spm(n, 4, variant=variant, odd=odd, seed=2, dtype=np.float32))
    rng = np.random.default_rng(1)
    X = cp.asarray(rng.standard_normal((3, n)).astype(np.float32))
    G = cp.asarray(rng.standard_normal((3, n)).astype(np.float32))
    calls = _count_launches(monkeypatch, cp)
    y, zs = spm_forward(lay, X, return_cache=True)
    assert y.dtype == np.float32 and all(z.dtype == np.float32 for z in zs)
    assert spm_forward(lay, X).dtype == np.float32
    for grads in (spm_backward(lay, X, G), spm_backward(lay, X, G, cache=zs)):
        assert {k: str(v.dtype) for k, v in grads.items()} == {k: "float32" for k in grads}
    assert set(calls) == {"isomat_spm_stage_forward_f32", "isomat_spm_stage_backward_f32"}


def test_mixed_precision_promotes_like_the_array_code(cupy_standin_module):
    cp = cupy_standin_module
    ref = random_spm(8, 3, seed=3)  # float64 layer
    lay = _device_layer(cp, ref)
    X = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    y = spm_forward(lay, cp.asarray(X))
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.get(), spm_forward(ref, X), rtol=1e-12)
    Xi = np.arange(16).reshape(2, 8)  # integer input: float64 as in the numpy field
    np.testing.assert_allclose(spm_forward(lay, cp.asarray(Xi)).get(), spm_forward(ref, Xi), rtol=1e-12)


def test_noncontiguous_input_and_bad_cache(cupy_standin_module):
    cp = cupy_standin_module
    ref = random_spm(6, 2, variant="general", seed=4)
    lay = _device_layer(cp, ref)
    X = np.random.default_rng(3).standard_normal((6, 4))
    Xd = cp.asarray(X).T  # a strided view: the kernels get a contiguous copy
    np.testing.assert_allclose(spm_forward(lay, Xd).get(), spm_forward(ref, X.T), rtol=1e-12)
    with pytest.raises(TypeError, match="cache must be None or the list of L"):
        spm_backward(lay, Xd, Xd, cache=[Xd])
    with pytest.raises(ValueError, match="G must have the shape of X"):
        spm_backward(lay, Xd, Xd[:2])
