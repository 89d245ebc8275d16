"""Every RawKernel isomat compiles passes the real NVRTC, on a machine without a GPU (issue 27, item 7).

NVRTC is a CPU library: the ``nvidia-cuda-nvrtc`` wheel (in the ``test`` extra on Linux x86-64)
compiles CUDA C++ to PTX/SASS without a driver or a device. Each source registered through
:func:`isomat.gpu.register_raw_kernel_source` is compiled here for the H100/H200 (``-arch=sm_90``),
so a kernel NVRTC rejects fails in CI rather than on a lent GPU. The CuPy stand-in refuses what NVRTC
refuses (a host C++ header); both are shown on the same source.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import platform

import pytest

import isomat.algebra  # noqa: F401 - imports every module that registers a kernel
import isomat.algebra._spm_fused  # noqa: F401 - the fused SPM kernels (not imported by the package)
from isomat.gpu import raw_kernel_sources

ARCHES = ("sm_90", "sm_80")  # Hopper (the lent H100/H200), Ampere


def _libnvrtc() -> ctypes.CDLL:
    spec = importlib.util.find_spec("nvidia")
    paths = sorted(p for loc in (spec.submodule_search_locations if spec else [])
                   for p in glob.glob(os.path.join(loc, "**", "libnvrtc.so*"), recursive=True))
    if not paths:
        if platform.system() == "Linux" and platform.machine() == "x86_64":
            pytest.fail("the nvidia-cuda-nvrtc wheel is missing: pip install -e '.[test]' installs it on Linux x86-64")
        pytest.skip(f"no NVRTC wheel for {platform.system()} {platform.machine()}")
    return ctypes.CDLL(paths[0])


def nvrtc_compile(source: str, name: str, arch: str) -> tuple[int, str]:
    """``(nvrtcResult, log)`` of compiling ``source`` for ``arch`` as CuPy's RawKernel does."""
    lib = _libnvrtc()
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), f"{name}.cu".encode(), 0, None, None) == 0
    try:
        opts = [f"-arch={arch}".encode(), b"--std=c++17"]
        result = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        return result, log.value.decode(errors="replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def test_the_kernels_are_registered():
    names = set(raw_kernel_sources())
    assert {"isomat_dia_blocks_matvec_f32", "isomat_dia_blocks_matvec_f64", "isomat_dia_blocks_rmatvec_f32",
            "isomat_dia_blocks_rmatvec_f64", "isomat_dia_blocks_matvec_chunks_f32", "isomat_dia_blocks_sum_chunks_f32", "isomat_dia_blocks_sum_chunks_f64",
            "isomat_spm_stage_forward_f32", "isomat_spm_stage_forward_f64",
            "isomat_spm_stage_backward_f32", "isomat_spm_stage_backward_f64", "isomat_spm_fused_forward_f32",
            "isomat_spm_fused_forward_f64", "isomat_spm_fused_backward_f32", "isomat_spm_fused_backward_f64"} <= names


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", sorted(raw_kernel_sources()))
def test_every_registered_kernel_compiles_under_nvrtc(name, arch):
    source = raw_kernel_sources()[name]
    assert f'extern "C" __global__ void {name}(' in " ".join(source.split()).replace("( ", "("), name
    result, log = nvrtc_compile(source, name, arch)
    assert result == 0, f"NVRTC rejected {name} for {arch}:\n{log}"


def _benchmark_sources() -> dict[str, str]:
    """The RawKernel sources the device benchmarks compile themselves (``benchmarks/kernel_variants.py``'s
    ``SOURCES``): they run on the lent device too, so NVRTC sees them here first."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "kernel_variants.py"
    spec = importlib.util.spec_from_file_location("_kernel_variants_for_nvrtc", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return dict(mod.SOURCES)


@pytest.mark.parametrize("name", sorted(_benchmark_sources()))
def test_every_benchmark_kernel_compiles_under_nvrtc(name):
    source = _benchmark_sources()[name]
    assert f'extern "C" __global__ void {name}(' in " ".join(source.split()).replace("( ", "("), name
    result, log = nvrtc_compile(source, name, "sm_90")
    assert result == 0, f"NVRTC rejected {name} for sm_90:\n{log}"


BAD = {
    "a host header": '#include <cstdio>\nextern "C" __global__ void k(float* y) { printf("%f", y[0]); }',
    "a syntax error": 'extern "C" __global__ void k(float* y) { y[0] = ; }',
}


@pytest.mark.parametrize("what", sorted(BAD))
def test_nvrtc_rejects_what_it_should(what):
    # the check can fail: NVRTC really compiles, and says no to broken sources
    result, log = nvrtc_compile(BAD[what], "k", "sm_90")
    assert result != 0 and "error" in log.lower(), log


@pytest.mark.standin
def test_the_standin_refuses_a_header_nvrtc_does_not_have(cupy_standin_module):
    cp = cupy_standin_module
    kernel = cp.RawKernel(BAD["a host header"], "k")
    with pytest.raises(RuntimeError, match="cannot open source file \"cstdio\""):
        kernel((1,), (1,), (cp.zeros(1, dtype=cp.float32),))
