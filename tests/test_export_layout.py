"""Issue 40 item 3: exports that agree -- one layout for (W, b) in every format, read back by each
framework's own reader (SciPy, NumPy, torch; ``scipy.io.loadmat`` for MATLAB's files), the model's
dtype kept, and isomat 0.2.0's files still read. Also the export slips of issue 40: a JAX file
written without JAX, and the conv/pool kinds labelled as what they build."""

from __future__ import annotations

import doctest
import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from isomat import export

ROOT = Path(__file__).resolve().parent.parent


def _affine(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    W = sp.random_array((5, 7), density=0.4, rng=rng, format="csr", dtype=np.float64).astype(dtype)
    b = rng.standard_normal(5).astype(dtype)
    return W, b


def _plain(path: Path, fmt: str):
    """(W, b, metadata) of an export read by the other framework's own reader, no isomat code."""
    if fmt == "npz":
        z = np.load(path)
        return sp.load_npz(path), z["b"] if "b" in z.files else None, json.loads(str(z["isomat_metadata"]))
    if fmt == "jax":
        z = np.load(path)
        idx = z["indices"]
        W = sp.coo_array((z["data"], (idx[:, 0], idx[:, 1])), shape=tuple(z["shape"]))
        return W, z["b"] if "b" in z.files else None, json.loads(str(z["isomat_metadata"]))
    if fmt == "mat":
        m = scipy.io.loadmat(path)
        return m["W"], m["b"].ravel() if "b" in m else None, json.loads(str(m["isomat_metadata_json"][0]))
    if fmt == "mtx":
        line = next(t for t in path.read_text().splitlines() if "isomat-metadata: " in t)
        meta = json.loads(line.split("isomat-metadata: ", 1)[1])
        return scipy.io.mmread(path), np.array(meta["b"]) if "b" in meta else None, meta
    torch = pytest.importorskip("torch")
    obj = torch.load(path, weights_only=True)
    b = obj["b"].numpy() if "b" in obj else None
    return obj["W"].to_dense().numpy(), b, obj["metadata"]


FORMATS = ["npz", "jax", "mat", "mtx", "pt"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_w_and_b_round_trip_through_each_frameworks_own_reader(tmp_path, fmt):
    if fmt == "pt":
        pytest.importorskip("torch")
    W, b = _affine()
    path = export.write((W, b), tmp_path / f"layer{export.SUFFIXES[fmt]}", fmt)
    W2, b2, meta = _plain(path, fmt)
    np.testing.assert_array_equal(sp.csr_array(W2).toarray() if sp.issparse(W2) else W2, W.toarray())
    np.testing.assert_array_equal(b2, b)
    assert meta["convention"] == "y = W x + b" and meta["bias"] is True and meta["dtype"] == "float64"
    # isomat's own readers agree with the plain ones
    np.testing.assert_array_equal(export.read(path).toarray(), W.toarray())
    np.testing.assert_array_equal(export.read_bias(path), b)
    # without a bias: no b anywhere, and the convention says so
    plain = export.write(W, tmp_path / f"w{export.SUFFIXES[fmt]}", fmt)
    _, none, meta = _plain(plain, fmt)
    assert none is None and export.read_bias(plain) is None and meta["convention"] == "y = W x"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_float32_model_stays_float32(tmp_path, fmt):
    if fmt == "pt":
        pytest.importorskip("torch")
    W, b = _affine(np.float32, seed=1)
    dense = W.toarray()  # a dense float32 array (a torch weight's numpy()) was widened to float64 before
    path = export.write((dense, b), tmp_path / f"layer{export.SUFFIXES[fmt]}", fmt)
    W2, b2, meta = _plain(path, fmt)
    W2 = sp.csr_array(W2).toarray() if sp.issparse(W2) else W2
    want = np.float64 if fmt == "mat" else np.float32  # MATLAB's sparse matrices are double: widened exactly
    assert meta["dtype"] == np.dtype(want).name
    # a text file holds 9 digits of each float32 value and says float32: SciPy's reader parses float64, and
    # the recorded dtype gives the written values back exactly (isomat's readers do that)
    np.testing.assert_array_equal(W2.astype(meta["dtype"]), dense.astype(want))
    np.testing.assert_array_equal(b2.astype(meta["dtype"]), b.astype(want))
    assert W2.dtype == b2.dtype == (np.float64 if fmt == "mtx" else want)
    np.testing.assert_array_equal(export.read(path).toarray(), dense.astype(want))
    np.testing.assert_array_equal(export.read_bias(path), b.astype(want))
    assert export.read(path).dtype == want and export.read_bias(path).dtype == want
    # asked for another dtype, it is written so (and b with it)
    if fmt != "mat":
        p64 = export.write((dense, b), tmp_path / f"w64{export.SUFFIXES[fmt]}", fmt, dtype="float64")
        assert export.read(p64).dtype == np.float64 and export.read_bias(p64).dtype == np.float64


def test_the_guides_examples_run():
    """docs/guide/export.md: every ```python block is a doctest, run as written (plain doctest)."""
    pytest.importorskip("torch")
    text = (ROOT / "docs" / "guide" / "export.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert blocks, "docs/guide/export.md has no python example"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "export.md", "docs/guide/export.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    out = io.StringIO()
    runner.run(test, out=out.write)
    assert runner.failures == 0 and runner.tries >= 10, out.getvalue()


# -- isomat 0.2.0's files are still read ----------------------------------------------------------
def _old_npz(path: Path, W: sp.csr_array, b: np.ndarray, meta: dict) -> None:
    np.savez(path, indices=W.indices, indptr=W.indptr, format=np.array("csr"), shape=np.array(W.shape),
             data=W.data, isomat_metadata=np.array(json.dumps(meta)), isomat_bias=b)


def test_files_in_0_2_0s_layout_are_read(tmp_path):
    W, b = _affine(seed=2)
    meta = {"isomat_version": "0.2.0", "convention": "y = W x", "bias": True}
    _old_npz(tmp_path / "old.npz", W, b, meta)
    lines = ["%%MatrixMarket matrix coordinate real general",
             "%isomat-metadata: " + json.dumps({**meta, "bias_values": [float(v) for v in b]})]
    C = W.tocoo()
    lines += [f"{W.shape[0]} {W.shape[1]} {W.nnz}"] + [f"{r + 1} {c + 1} {float(v)!r}" for r, c, v in zip(C.row, C.col, C.data)]
    (tmp_path / "old.mtx").write_text("\n".join(lines) + "\n")
    for name in ("old.npz", "old.mtx"):
        np.testing.assert_array_equal(export.read(tmp_path / name).toarray(), W.toarray())
        np.testing.assert_array_equal(export.read_bias(tmp_path / name), b)
        assert export.read_metadata(tmp_path / name)["isomat_version"] == "0.2.0"
    torch = pytest.importorskip("torch")
    T = torch.sparse_coo_tensor(torch.from_numpy(np.stack([C.row, C.col]).astype(np.int64)), torch.from_numpy(C.data),
                                W.shape).coalesce()
    torch.save({"matrix": T, "metadata": meta, "bias": torch.from_numpy(b)}, tmp_path / "old.pt")
    np.testing.assert_array_equal(export.read(tmp_path / "old.pt").toarray(), W.toarray())
    np.testing.assert_array_equal(export.load_torch(tmp_path / "old.pt").to_dense().numpy(), W.toarray())
    np.testing.assert_array_equal(export.read_bias(tmp_path / "old.pt"), b)
    # a dict with neither key is refused by name
    torch.save({"weights": T}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="without a 'W' tensor"):
        export.read(tmp_path / "other.pt")


def test_an_affine_network_in_0_2_0s_layout_is_read(tmp_path):
    W, b = _affine(seed=3)
    meta = {"isomat_version": "0.2.0", "kind": "model", "network": "net", "segment": "fc",
            "order": "row-major (C) flattening of input and output", "input_shape": [7], "output_shape": [5],
            "model_input_shape": [7], "model_output_shape": [5], "bias": True}
    _old_npz(tmp_path / "net.npz", W, b, meta)
    net = export.read_network(tmp_path / "net.npz")
    x = np.random.default_rng(4).standard_normal(7)
    np.testing.assert_allclose(net.forward(x), W @ x + b, rtol=1e-13, atol=1e-13)


# -- the export slips of issue 40 -------------------------------------------------------------------
def test_format_jax_writes_without_jax_and_only_loading_needs_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError, as when it is not installed
    W, b = _affine(seed=5)
    path = export.write((W, b), tmp_path / "layer.npz", "jax")
    assert zipfile.is_zipfile(path) and export.read_metadata(path)["convention"] == "y = W x + b"
    np.testing.assert_array_equal(export.read(path).toarray(), W.toarray())
    from isomat.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["export", "projection", "--m", "4", "--n", "2", "--format", "jax", "-o", str(tmp_path / "p.npz")],
                out=out, err=err)
    assert code == 0, err.getvalue()
    with pytest.raises(ImportError, match="JAX export needs jax"):
        export.load_jax_bcoo(path)


def test_conv_and_pool_say_they_build_torchs_layers_and_every_option_has_help():
    from isomat.cli import build_parser

    parser = build_parser("export")
    kinds = next(a for a in parser._subparsers._group_actions[0].choices["export"]._actions
                 if a.dest == "kind").choices
    for kind, printed in (("conv", "zhu_conv_matrix"), ("pool", "zhu_pool_matrix")):
        text = kinds[kind].description
        assert "as torch" in text and printed in text and not text.startswith("zhu2025"), text
        no_help = [a.option_strings for a in kinds[kind]._actions if a.option_strings and not a.help]
        assert no_help == [], (kind, no_help)


def test_export_model_keeps_a_float32_models_dtype(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    (tmp_path / "layer_models.py").write_text(
        "import torch\nfrom torch import nn\n"
        "def f32():\n    return nn.Linear(4, 3)\n"
        "def f64():\n    return nn.Linear(4, 3).to(torch.float64)\n")
    monkeypatch.chdir(tmp_path)
    from isomat.cli import main

    for factory, extra, fmt, want in (("f32", [], "npz", "float32"), ("f64", [], "npz", "float64"),
                                      ("f32", ["--dtype", "float64"], "npz", "float64"),
                                      ("f32", [], "mat", "float64")):
        out_file = tmp_path / f"{factory}{len(extra)}.{fmt}"
        err = io.StringIO()
        code = main(["export", "model", "--module", f"layer_models.py:{factory}", "--input-shape", "4",
                     "-o", str(out_file), *extra], out=io.StringIO(), err=err)
        assert code == 0, err.getvalue()
        meta = export.read_metadata(out_file)
        assert meta["dtype"] == want and meta["convention"] == "y = W x + b", (factory, extra, fmt, meta["dtype"])
        assert export.read_bias(out_file).dtype == np.dtype(want)
