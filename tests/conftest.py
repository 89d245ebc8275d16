"""Shared fixtures: the fields an operator renders in, and GPU/torch availability."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from isomat.gpu import gpu_status

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")

GPU_OK, GPU_REASON = gpu_status()

requires_gpu = pytest.mark.skipif(not GPU_OK, reason=f"GPU field skipped: {GPU_REASON}")

FLOAT_FIELDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("cupy", id="cupy", marks=[pytest.mark.gpu, requires_gpu]),
]
ALL_FIELDS = [pytest.param("sympy", id="sympy"), *FLOAT_FIELDS]


def to_host(x):
    """Dense NumPy copy of a SciPy/CuPy sparse matrix, CuPy array or SymPy matrix."""
    import numpy as np
    import sympy

    if isinstance(x, sympy.MatrixBase):
        return np.array(x.tolist(), dtype=object)
    if hasattr(x, "toarray"):
        x = x.toarray()
    if hasattr(x, "get"):
        x = x.get()
    return np.asarray(x)


@pytest.fixture(params=ALL_FIELDS)
def field(request):
    return request.param


@pytest.fixture(params=FLOAT_FIELDS)
def float_field(request):
    return request.param
