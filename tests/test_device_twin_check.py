"""The device checklist's twin check (benchmarks/device_checklist.py, ``twin``): its comparisons run
here on the CPU, so the check that will meet a GPU is known to pass where the twin is right and to
fail where it is wrong; without CUDA the check skips, naming why."""
from __future__ import annotations

import pytest

from .test_gpu_checklist import _script  # the checklist script, loaded as a module

torch = pytest.importorskip("torch")


def test_twin_comparisons_pass_on_the_cpu():
    text = _script().twin_equals_native("cpu")
    assert "Conv2d replicate float64" in text and "LeNet-5 float32" in text


def test_a_wrong_twin_gradient_fails(monkeypatch):
    from isomat.torch import twin

    real = twin.SparseAffine.forward

    def skewed(self, x):  # forward right, gradient wrong: the input gradient is doubled
        y = real(self, x)
        return y + (y - y.detach())

    monkeypatch.setattr(twin.SparseAffine, "forward", skewed)
    with pytest.raises(AssertionError):
        _script().twin_equals_native("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: the check would run")
def test_without_cuda_the_twin_check_skips_with_the_reason():
    mod = _script()
    with pytest.raises(mod.Skip, match="no usable CUDA"):
        mod.check_twin()
    assert "twin" in mod.CHECKS and mod.MINIMUM_S["twin"] > 0
