"""A float32 export never holds the float64 matrix (issue 29): its peak is the float32 CSR plus the
construction's own fixed scratch, measured with tracemalloc at a small size (no timing)."""

from __future__ import annotations

import gc
import io
import tracemalloc

import numpy as np
import pytest

from isomat import export
from isomat.algebra.conv import conv_matrix
from isomat.cli import main

C, N = 16, 40  # 16 -> 16 channels, 3x3, padding 1 at 40x40: 3.56 million entries, a 27 MiB float32 CSR


def _argv(path, c, n, dtype):
    return ["export", "conv", "--input-shape", f"{c},{n},{n}", "--kernel-size", "3", "--out-channels", str(c),
            "--padding", "1", "--seed", "0", "--force", "-o", str(path), *(["--dtype", dtype] if dtype else [])]


def _peak(fn):
    gc.collect()
    tracemalloc.start()
    try:
        out = fn()
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def _csr_bytes(M):
    return M.data.nbytes + M.indices.nbytes + M.indptr.nbytes


@pytest.mark.parametrize("fmt", ["npz", "jax"])
def test_float32_export_peak(tmp_path, fmt):
    path = tmp_path / "w.npz"
    extra = ["--format", fmt]
    assert main(_argv(path, 2, 6, "float32") + extra, out=io.StringIO(), err=io.StringIO()) == 0  # imports, caches
    peak, rc = _peak(lambda: main(_argv(path, C, N, "float32") + extra, out=io.StringIO(), err=io.StringIO()))
    assert rc == 0
    M = export.read(path)
    assert M.dtype == np.float32 and export.read_metadata(path)["dtype"] == "float32"
    csr32 = _csr_bytes(M)
    nnz = M.nnz
    # the same values as the float64 export rounded once (zero padding: one kernel tap per entry)
    kernel = np.random.default_rng(0).standard_normal((C, C, 3, 3))
    ref = conv_matrix((C, N, N), kernel, padding=1, format="csr")
    assert (ref.astype(np.float32) != M).nnz == 0
    del ref
    # what the construction itself needs beyond its result: fixed per-thread scratch
    build_peak, W = _peak(lambda: conv_matrix((C, N, N), kernel.astype(np.float32), padding=1, format="csr"))
    scratch = build_peak - _csr_bytes(W)
    del W
    # the export adds at most a tenth of the float32 CSR to its construction
    assert peak <= 1.1 * csr32 + scratch, (peak / 2**20, csr32 / 2**20, scratch / 2**20)
    # never the float64 values: they alone would add 8 bytes an entry to the float32 matrix's 8
    float64_copy = csr32 + 8 * nnz
    assert peak < float64_copy, (peak / 2**20, float64_copy / 2**20)


def test_float64_export_unchanged(tmp_path):
    path = tmp_path / "w.npz"
    assert main(_argv(path, 4, 10, None), out=io.StringIO(), err=io.StringIO()) == 0
    M = export.read(path)
    assert M.dtype == np.float64
    path32 = tmp_path / "w32.npz"
    assert main(_argv(path32, 4, 10, "float32"), out=io.StringIO(), err=io.StringIO()) == 0
    assert (export.read(path32) != M.astype(np.float32)).nnz == 0


def test_other_boundaries_round_once(tmp_path):
    # taps summed on one input (circular wrap on a tiny image) stay float64 until write rounds them
    path = tmp_path / "c.npz"
    argv = _argv(path, 2, 3, "float32") + ["--boundary", "circular"]
    assert main(argv, out=io.StringIO(), err=io.StringIO()) == 0
    ref = export.read(tmp_path / "c.npz")
    path64 = tmp_path / "c64.npz"
    assert main(_argv(path64, 2, 3, None) + ["--boundary", "circular"], out=io.StringIO(), err=io.StringIO()) == 0
    assert (export.read(path64).astype(np.float32) != ref).nnz == 0
