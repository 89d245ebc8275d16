"""Whole networks out: export.write_network and `isomat export model` (files re-read independently)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from isomat import export  # noqa: E402
from isomat.testing.models import LeNet5  # noqa: E402
from isomat.torch import from_model  # noqa: E402

F64 = torch.float64
REPO = Path(__file__).resolve().parent.parent


def _affine_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(2 * 3 * 3, 4)).to(F64)


@pytest.mark.parametrize("suffix", ["npz", "mtx", "mat", "pt"])
def test_affine_model_is_one_file_with_its_shapes(tmp_path, suffix):
    model = _affine_model()
    net = from_model(model, (1, 8, 8))
    (path,) = export.write_network(net, tmp_path / f"m.{suffix}")
    meta = export.read_metadata(path)
    assert meta["kind"] == "model" and meta["input_shape"] == [1, 8, 8] and meta["output_shape"] == [4]
    W, b = export.read(path), export.read_bias(path)
    x = torch.randn(1, 8, 8, dtype=F64)
    with torch.no_grad():
        ref = model(x[None])[0].numpy()
    np.testing.assert_allclose(W @ x.numpy().reshape(-1) + b, ref, rtol=1e-12, atol=1e-12)


def test_affine_model_in_column_major_for_matlab(tmp_path):
    model = _affine_model()
    (path,) = export.write_network(from_model(model, (1, 8, 8)), tmp_path / "m.mat", order="F")
    raw = scipy.io.loadmat(path)
    W = sp.csr_array(raw["W"])
    x = np.random.default_rng(0).standard_normal((1, 8, 8))
    with torch.no_grad():
        ref = model(torch.as_tensor(x)[None])[0].numpy()
    np.testing.assert_allclose(W @ x.reshape(-1, order="F") + export.read_bias(path), ref.reshape(-1, order="F"),
                               rtol=1e-12, atol=1e-12)


def _run_manifest(manifest_path: Path, x: np.ndarray) -> np.ndarray:
    """An independent consumer: evaluate the written segments and manifest with NumPy and SciPy."""
    man = json.loads(manifest_path.read_text())
    vals = {}
    for node in man["nodes"]:
        if node["type"] == "input":
            vals[node["name"]] = x.reshape(-1)
        elif node["type"] == "affine":
            y = 0
            for w in node["weights"]:
                f = manifest_path.parent / w["file"]
                y = y + export.read(f) @ vals[w["input"]]
                if w["bias"]:
                    y = y + export.read_bias(f)
            vals[node["name"]] = y
        elif node["type"] == "activation":
            assert node["fn"] == "relu"
            vals[node["name"]] = np.maximum(vals[node["input"]], 0)
        else:
            raise AssertionError(node["type"])
    return vals[man["output"]].reshape(man["model_output_shape"])


def test_network_with_nonlinearities_writes_segments_and_a_manifest(tmp_path):
    torch.manual_seed(1)
    model = LeNet5().to(F64).eval()
    paths = export.write_network(from_model(model, (1, 32, 32)), tmp_path / "lenet.npz")
    assert paths[-1].name == "lenet.npz.network.json" and len(paths) == 6  # 5 segments: conv+pool, conv+pool, 3 linear
    x = np.random.default_rng(2).standard_normal((1, 32, 32))
    with torch.no_grad():
        ref = model(torch.as_tensor(x)[None])[0].numpy()
    np.testing.assert_allclose(_run_manifest(paths[-1], x), ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"exists"):
        export.write_network(from_model(model, (1, 32, 32)), tmp_path / "lenet.npz", overwrite=False)
    with pytest.raises(ValueError, match=r"order='F' applies to one affine map"):
        export.write_network(from_model(model, (1, 32, 32)), tmp_path / "other.npz", order="F")
    with pytest.raises(TypeError, match=r"network must be an isomat.torch Network"):
        export.write_network(model, tmp_path / "x.npz")


def test_cli_export_model(tmp_path):
    (tmp_path / "mymodels.py").write_text(
        "from torch import nn\n"
        "def affine():\n    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(32, 3))\n"
        "def relu():\n    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))\n")
    cli = [sys.executable, "-m", "isomat", "export", "model"]
    r = subprocess.run(cli + ["--module", "mymodels:affine", "--input-shape", "1,6,6", "-o", "a.npz"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "model Sequential (1x6x6 -> 3) as one affine map" in r.stdout
    assert export.read_metadata(tmp_path / "a.npz")["module"] == "mymodels:affine"
    r = subprocess.run(cli + ["--module", "mymodels.py:relu", "--input-shape", "1,6,6", "-o", "b.mtx"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "b.mtx.network.json").exists() and "2 segment files" in r.stdout
    for args, pattern in [(["--module", "nope:make"], "cannot import 'nope'"),
                          (["--module", "mymodels"], "must be MODULE:FACTORY"),
                          (["--module", "mymodels:missing"], "no callable 'missing'")]:
        r = subprocess.run(cli + args + ["--input-shape", "1,6,6", "-o", "c.npz"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 2 and pattern in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
