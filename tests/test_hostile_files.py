"""Crafted files (issue 24): every reader validates what a file declares before it touches memory.

The corpus is written on demand by ``tests/_crafted_files.py`` (no committed binaries). Each file is
read in a subprocess -- a segfault or an abort shows as a negative return code -- under a memory
bound of 256 MiB, and the peak RSS the read adds must stay under the bound + 64 MiB.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from isomat import export
from isomat.errors import SizeLimitError

sys.path.insert(0, str(Path(__file__).parent))
from _crafted_files import EXPECT, SUFFIX, write_corpus, write_kernel_bomb  # noqa: E402

LIMIT = 256 << 20
SLACK = 64 << 20

_PROBE = r"""
import json, resource, sys
import numpy as np
import isomat.export as ex
from isomat.errors import SizeLimitError
path = sys.argv[1]
if path.endswith(".pt"):
    import torch  # imported before the baseline: its own pages are not the read's
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    M = ex.read(path)
    M @ np.ones(M.shape[1])  # the first product must not read out of bounds
    out = {"outcome": "ok", "msg": f"{M.shape} {M.dtype}"}
except SizeLimitError as e:
    out = {"outcome": "size", "msg": str(e)}
except ValueError as e:
    out = {"outcome": "value", "msg": str(e)}
out["growth"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("crafted"))


def _env(limit: int = LIMIT) -> dict[str, str]:
    import os

    return {**os.environ, "ISOMAT_MEMORY_LIMIT": str(limit)}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_crafted_file_is_refused_in_one_line_within_the_bound(corpus, name):
    if name not in corpus:
        pytest.skip("needs torch")
    path = corpus[name]
    r = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, timeout=300,
                       env=_env())
    assert r.returncode == 0, f"{name}: rc={r.returncode} (a crash?)\n{r.stderr[-2000:]}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    want = EXPECT[name]
    if want == "bounded":
        assert out["outcome"] in ("ok", "value"), out
    else:
        assert out["outcome"] == {"size_low": "size"}.get(want, want), out
    if out["outcome"] != "ok":
        assert "\n" not in out["msg"] and str(path) in out["msg"], out
    assert out["growth"] < LIMIT + SLACK, f"{name}: the read grew RSS by {out['growth']} bytes"


@pytest.mark.parametrize("name", ["csc_row_out_of_range", "csr_col_negative", "npz_zip_bomb", "bcoo_huge_shape",
                                  "mtx_huge_rows", "mat_zlib_bomb", "mat_truncated", "shape_huge"])
def test_python_api_raises_value_error(corpus, name):
    """In process, at the default bound: a ValueError (SizeLimitError is one) naming the file."""
    reader = {".npz": export.read_npz, ".mtx": export.read_matrix_market, ".mat": export.read_mat}[SUFFIX[name]]
    with pytest.raises(ValueError) as info:
        reader(corpus[name])
    assert "\n" not in str(info.value) and str(corpus[name]) in str(info.value)
    if EXPECT[name] == "size":
        assert isinstance(info.value, SizeLimitError)
    if name == "mat_truncated":
        assert "truncated" in str(info.value)


def test_converted_values(corpus):
    M = export.read(corpus["csr_big_endian"])
    assert M.dtype == np.float64 and M.dtype.isnative and M.indices.dtype.isnative
    assert np.array_equal(M.toarray(), [[1, 0], [0, 2]])
    assert export.read(corpus["csr_float16"]).dtype == np.float32
    if "pt_float16" in corpus:
        assert np.array_equal(export.read(corpus["pt_float16"]).toarray(), np.eye(2))


def test_mtx_400M_rows_reads_under_a_bound_that_allows_it_only(corpus):
    from isomat import memory_limit

    with memory_limit(LIMIT), pytest.raises(SizeLimitError, match="400000000x1"):
        export.read(corpus["mtx_400M_rows"])


def test_kernel_npy_declaring_9e12_values_is_refused_by_the_cli(tmp_path):
    k = write_kernel_bomb(tmp_path / "k.npy")
    r = subprocess.run([sys.executable, "-m", "isomat", "export", "conv", "--input-shape", "1,8,8", "--kernel", str(k),
                        "--format", "npz", "-o", str(tmp_path / "o.npz")], capture_output=True, text=True, timeout=120)
    assert r.returncode > 0, r
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr and "memory bound" in lines[0], r.stderr
    assert not (tmp_path / "o.npz").exists()


def test_torch_in_memory_tensors_are_checked():
    torch = pytest.importorskip("torch")
    bad = torch.sparse_coo_tensor(torch.tensor([[-1], [0]]), torch.tensor([1.0]), (2, 2), check_invariants=False)
    with pytest.raises(ValueError, match="row indices"):
        export.from_torch(bad)
    huge = torch.ones(1, 1).expand(30000, 30000)
    with pytest.raises(SizeLimitError):
        from isomat import memory_limit

        with memory_limit(LIMIT):
            export.from_torch(huge)


# -- metadata (item 11) --------------------------------------------------------------------------
def _npz_with_metadata(p: Path, text: str) -> Path:
    np.savez(p, indices=np.array([0]), indptr=np.array([0, 1]), format=np.array("csr"), shape=np.array([1, 1]),
             data=np.array([1.0]), isomat_metadata=np.array(text))
    return p


@pytest.mark.parametrize("text, match", [("5", "not an object"), ("[1, 2]", "not an object"),
                                         ("[" * 100000 + "]" * 100000, "nests deeper"),
                                         ('{"a": ' * 100 + "1" + "}" * 100, "nests deeper"),
                                         ("{not json", "not valid JSON")])
def test_crafted_metadata_is_refused(tmp_path, text, match):
    with pytest.raises(ValueError, match=match) as info:
        export.read_metadata(_npz_with_metadata(tmp_path / "m.npz", text))
    assert "\n" not in str(info.value)


def test_forged_metadata_after_a_carriage_return_does_not_shadow_the_real_one(tmp_path):
    p = tmp_path / "m.mtx"
    p.write_bytes(b"%%MatrixMarket matrix coordinate real general\n"
                  b'% hello\r%isomat-metadata: {"order": "forged"}\n'
                  b'%isomat-metadata: {"order": "real"}\n1 1 1\n1 1 1.0\n')
    assert export.read_metadata(p) == {"order": "real"}
    q = tmp_path / "n.mtx"
    q.write_bytes(b"%%MatrixMarket matrix coordinate real general\n"
                  b'% hello\r%isomat-metadata: {"order": "forged"}\n1 1 1\n1 1 1.0\n')
    assert export.read_metadata(q) == {}


def test_pt_metadata(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "m.pt"
    torch.save({"matrix": torch.eye(2).to_sparse()}, p)
    assert export.read_metadata(p) == {}  # no metadata: {} as documented
    torch.save({"matrix": torch.eye(2).to_sparse(), "metadata": 5}, p)
    with pytest.raises(ValueError, match="not an object"):
        export.read_metadata(p)
    torch.save({"bias": torch.ones(2)}, p)
    with pytest.raises(ValueError, match=r"without a 'W' tensor \(nor 0.2.0's 'matrix'"):
        export.load_torch(p)


def test_round_trips_still_read(tmp_path):
    W = sp.random_array((30, 20), density=0.2, random_state=0, format="csr")
    for fmt in ("mtx", "npz", "mat", "pt"):
        if fmt == "pt":
            pytest.importorskip("torch")
        p = export.write((W, np.arange(30.0)), tmp_path / f"w.{fmt}", metadata={"k": [1, {"x": 2}]})
        assert abs(export.read(p) - W).max() < 1e-12
        assert export.read_metadata(p)["k"] == [1, {"x": 2}]
        assert np.array_equal(export.read_bias(p), np.arange(30.0))


# -- JAX index dtype (item 3) --------------------------------------------------------------------
def test_jax_bcoo_keeps_indices_past_2_31(tmp_path):
    jax = pytest.importorskip("jax")
    A = sp.coo_array((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([5, 2_499_999_999]))), shape=(1, 3_000_000_000))
    old = jax.config.jax_enable_x64
    try:
        jax.config.update("jax_enable_x64", False)
        with pytest.raises(ValueError, match="int64"):  # refused, never wrapped to -1794967297
            export.to_jax_bcoo(A, dtype=np.float32)
        jax.config.update("jax_enable_x64", True)
        B = export.to_jax_bcoo(A)
        assert np.asarray(B.indices).dtype == np.int64
        assert np.asarray(B.indices)[:, 1].tolist() == [5, 2_499_999_999]
        p = export.to_jax_npz(A, tmp_path / "j.npz")
        C = export.load_jax_bcoo(p)
        assert np.asarray(C.indices)[:, 1].tolist() == [5, 2_499_999_999] and C.shape == (1, 3_000_000_000)
        M = export.from_jax_bcoo(C)
        assert M.indices.tolist() == [5, 2_499_999_999]
        assert export.read(p).indices.tolist() == [5, 2_499_999_999]
    finally:
        jax.config.update("jax_enable_x64", old)


def test_a_matrix_market_comment_cannot_forge_a_header_line(tmp_path):
    # issue 24, item 11: a '\r' in comment= let a forged metadata line shadow the real one
    import scipy.sparse as sp

    from isomat.export import read_metadata, write

    W = sp.eye_array(2, format="csr")
    forged = 'x\r%isomat-metadata: {"kind": "forged"}'
    with pytest.raises(ValueError, match="metadata line's tag"):
        write(W, tmp_path / "a.mtx", comment=forged, metadata={"kind": "real"})
    write(W, tmp_path / "b.mtx", comment="x\r% y", metadata={"kind": "real"})
    assert read_metadata(tmp_path / "b.mtx")["kind"] == "real"
