"""Networks read back: isomat.export.read_network on write_network's files, in every format, and
crafted manifests refused (untrusted input).

The reference for the values is the written network itself (``Network.collapsed``: the same
segments, multiplied by ``Network.affine_segments``) and torch's model; the manifests here are
edited with ``json`` directly, not through isomat.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from isomat import export  # noqa: E402
from isomat.torch import Network, SparseModel, from_model  # noqa: E402

F64 = torch.float64
REPO = Path(__file__).resolve().parent.parent


class _Mixed(nn.Module):
    """Every node type and every activation's parameters: relu, leaky_relu, prelu (per channel),
    hardtanh, clamp (one-sided), gelu (tanh), abs, max pooling, adaptive max pooling, a residual
    addition (a segment with two weight files) and a detach."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.prelu = nn.PReLU(3)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(3, 3, 3, padding=1)
        self.amax = nn.AdaptiveMaxPool2d((2, 3))
        self.fc = nn.Linear(18, 5)

    def forward(self, x):
        y = self.prelu(self.conv(x))
        y = self.pool(torch.nn.functional.leaky_relu(y, 0.2))
        z = torch.relu(self.conv2(y))
        y = torch.clamp(z, min=0.1) + torch.nn.functional.hardtanh(y, -0.5, 0.75)
        y = self.amax(torch.nn.functional.gelu(y, approximate="tanh")).flatten(1)
        return torch.abs(self.fc(y)) + self.fc(y).detach()


def _mixed() -> tuple[nn.Module, Network]:
    torch.manual_seed(0)
    model = _Mixed().to(F64).eval()
    return model, from_model(model, (2, 8, 8))


@pytest.fixture(scope="module")
def mixed():
    return _mixed()


@pytest.mark.parametrize("fmt", ["npz", "mtx", "mat", "pt", "jax"])
def test_every_format_reads_back_equal(tmp_path, mixed, fmt):
    model, net = mixed
    if fmt == "jax":
        pytest.importorskip("jax")
    paths = export.write_network(net, tmp_path / f"m{export.SUFFIXES[fmt]}", fmt)
    assert paths[-1].name == f"m.{fmt}.network.json"
    back = export.read_network(paths[-1])
    assert isinstance(back, Network) and back.input_shape == (2, 8, 8) and back.output_shape == (5,)
    # the same segments, bit for bit (float64 written, float64 read)
    segs = {s.name: s for s in net.affine_segments()}
    for node in back.nodes.values():
        if node.name in segs:
            s = segs[node.name]
            assert node.inputs == s.inputs and len(node.weights) == len(s.weights)
            for Wb, Ws in zip(node.weights, s.weights):
                assert abs(Wb - Ws).max() == 0.0
    x = np.random.default_rng(1).standard_normal((4, 2, 8, 8))
    ref = net.collapsed().forward(x)
    assert np.max(np.abs(back.forward(x) - ref)) <= 1e-15
    with torch.no_grad():  # the model itself: the composed segments round once more per product
        np.testing.assert_allclose(back.forward(x), model(torch.as_tensor(x)).numpy(), rtol=1e-12, atol=1e-12)
    mod = export.read_network(paths[-1], as_module=True)
    assert isinstance(mod, SparseModel)
    xt = torch.as_tensor(x).requires_grad_(True)
    y = mod(xt)
    assert float((y.detach() - torch.as_tensor(ref)).abs().max()) <= 1e-15
    # its input gradient is the read network's vjp (each activation as torch differentiates it)
    v = torch.randn(y.shape, dtype=F64, generator=torch.Generator().manual_seed(2))
    (g,) = torch.autograd.grad(y, xt, v)
    np.testing.assert_allclose(g.numpy(), back.vjp(x, v.numpy()), rtol=1e-12, atol=1e-13)
    assert mod(xt[0]).shape == (5,)  # one sample without the batch axis


def test_float32_export_reads_back_to_float32_rounding(tmp_path, mixed):
    _, net = mixed
    paths = export.write_network(net, tmp_path / "m.npz", dtype="float32")
    back = export.read_network(paths[-1])
    x = np.random.default_rng(3).standard_normal((2, 2, 8, 8))
    ref = net.collapsed().forward(x)
    np.testing.assert_allclose(back.forward(x), ref, rtol=1e-5, atol=1e-5)
    mod = export.read_network(paths[-1], as_module=True, dtype=torch.float32)
    with torch.no_grad():
        np.testing.assert_allclose(mod(torch.as_tensor(x, dtype=torch.float32)).numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fmt", ["npz", "mtx", "mat", "pt"])
def test_affine_model_one_file_reads_back(tmp_path, fmt):
    torch.manual_seed(4)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(2 * 4 * 4, 3)).to(F64)
    net = from_model(model, (1, 6, 6))
    (path,) = export.write_network(net, tmp_path / f"a.{fmt}")
    back = export.read_network(path)
    x = np.random.default_rng(5).standard_normal((3, 1, 6, 6))
    assert np.max(np.abs(back.forward(x) - net.collapsed().forward(x))) <= 1e-15
    with torch.no_grad():
        y = export.read_network(path, as_module=True)(torch.as_tensor(x)).numpy()
    assert np.max(np.abs(y - net.collapsed().forward(x))) <= 1e-15
    (col,) = export.write_network(net, tmp_path / f"f.{fmt}", order="F")
    with pytest.raises(ValueError, match=r"order='C'"):
        export.read_network(col)


def test_two_formats_do_not_collide_and_force_removes_the_old_export(tmp_path, mixed):
    _, net = mixed
    a = export.write_network(net, tmp_path / "m.npz")
    b = export.write_network(net, tmp_path / "m.mtx")
    assert not set(a) & set(b) and all(p.exists() for p in a + b)
    # a smaller model under the same name: --force (overwrite=True) removes the segments the old
    # manifest listed that the new export does not write; a file it did not list stays
    (tmp_path / "m.notes.npz").write_bytes(b"mine")
    torch.manual_seed(6)
    small = from_model(nn.Sequential(nn.Flatten(), nn.Linear(128, 4), nn.ReLU(), nn.Linear(4, 2)).to(F64), (2, 8, 8))
    new = export.write_network(small, tmp_path / "m.npz")
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".npz") or p.name == "m.npz.network.json")
    assert left == sorted([p.name for p in new] + ["m.notes.npz"])
    assert all(p.exists() for p in b)  # the mtx export is another manifest: untouched
    # an affine model written over a network export of the same name replaces it whole
    torch.manual_seed(10)
    affine = from_model(nn.Sequential(nn.Flatten(), nn.Linear(128, 4)).to(F64), (2, 8, 8))
    (one,) = export.write_network(affine, tmp_path / "m.mtx")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("m.") and "mtx" in p.name) == ["m.mtx"]
    with pytest.raises(ValueError, match="exists"):
        export.write_network(small, tmp_path / "m.npz", overwrite=False)


def test_force_removes_only_plain_names_beside_the_manifest(tmp_path):
    torch.manual_seed(7)
    small = from_model(nn.Sequential(nn.Flatten(), nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).to(F64), (4,))
    sub = tmp_path / "sub"
    sub.mkdir()
    outside = tmp_path / "keep.npz"
    outside.write_bytes(b"x")
    paths = export.write_network(small, sub / "m.npz")
    man = json.loads(paths[-1].read_text())
    man["nodes"][1]["weights"][0]["file"] = "../keep.npz"
    man["nodes"][-1]["weights"][0]["file"] = str(outside)
    paths[-1].write_text(json.dumps(man))
    export.write_network(small, sub / "m.npz")
    assert outside.exists()


def _written(tmp_path: Path) -> tuple[Path, dict]:
    torch.manual_seed(8)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 3),
                          nn.LeakyReLU(0.1), nn.Linear(3, 2)).to(F64).eval()
    paths = export.write_network(from_model(model, (1, 6, 6)), tmp_path / "c.npz")
    return paths[-1], json.loads(paths[-1].read_text())


def _set(man: dict, keys: tuple, value) -> dict:
    d = man
    for k in keys[:-1]:
        d = d[k]
    if value is _DELETE:
        del d[keys[-1]]
    else:
        d[keys[-1]] = value
    return man


_DELETE = object()
# (where, the value written there, what the message must name)
_CRAFTED = [
    (("isomat_manifest",), 99, r"isomat_manifest"),
    (("format",), "exe", r"field format"),
    (("order",), "F", r"field order"),
    (("nodes",), {}, r"field nodes"),
    (("nodes",), [], r"field nodes"),
    (("output",), "nowhere", r"field output"),
    (("model_input_shape",), [1, -6, 6], r"model_input_shape"),
    (("model_input_shape",), [True, 6, 6], r"model_input_shape"),
    (("model_output_shape",), [3], r"model_output_shape"),
    (("nodes", 0, "shape"), [1, 6, 7], r"nodes\[0\]\.shape"),
    (("nodes", 1, "type"), "exec", r"nodes\[1\]\.type"),
    (("nodes", 1, "name"), "input", r"nodes\[1\]\.name"),
    (("nodes", 1, "weights", 0, "file"), "/etc/passwd", r"nodes\[1\]\.weights\[0\]\.file"),
    (("nodes", 1, "weights", 0, "file"), "../c.c_0.npz", r"nodes\[1\]\.weights\[0\]\.file"),
    (("nodes", 1, "weights", 0, "file"), "sub/c.c_0.npz", r"nodes\[1\]\.weights\[0\]\.file"),
    (("nodes", 1, "weights", 0, "file"), "c.c_0.mtx", r"nodes\[1\]\.weights\[0\]\.file.*must end in '.npz'"),
    (("nodes", 1, "weights", 0, "file"), "missing.npz", r"does not exist"),
    (("nodes", 1, "weights", 0, "file"), 7, r"nodes\[1\]\.weights\[0\]\.file"),
    (("nodes", 1, "weights", 0, "input"), "later", r"nodes\[1\]\.weights\[0\]\.input"),
    (("nodes", 1, "weights", 0, "input_shape"), [1, 6, 5], r"nodes\[1\]\.weights\[0\]\.input_shape"),
    (("nodes", 1, "weights", 0, "bias"), "yes", r"nodes\[1\]\.weights\[0\]\.bias"),
    (("nodes", 1, "weights", 0), _DELETE, r"nodes\[1\]\.weights"),
    (("nodes", 1, "shape"), [2, 4, 5], r"holds a 32x36 matrix; nodes\[1\]\.weights\[0\] declares 40x36"),
    (("nodes", 1, "shape"), [2**40, 2**20], r"nodes\[1\]\.shape"),
    (("nodes", 2, "fn"), "eval", r"nodes\[2\]\.fn"),
    (("nodes", 2, "params"), {"slope": 1}, r"nodes\[2\]\.params.*'slope'"),
    (("nodes", 2, "input"), "nodes_9", r"nodes\[2\]\.input"),
    (("nodes", 2, "shape"), [3], r"nodes\[2\]\.shape"),
    (("nodes", 3, "window"), [2, 2, 2], r"nodes\[3\]\.window"),
    (("nodes", 3, "window"), [0, 2], r"nodes\[3\]\.window"),
    (("nodes", 3, "padding"), [5, 5], r"nodes\[3\]\.padding"),
    (("nodes", 3, "ndim"), 7, r"nodes\[3\]\.ndim"),
    (("nodes", 3, "ceil_mode"), 1, r"nodes\[3\]\.ceil_mode"),
    (("nodes", 3, "shape"), [2, 3, 3], r"nodes\[3\]\.shape"),
    (("nodes", 5, "params", "slope"), "0.1", r"nodes\[5\]\.params\.slope"),
    (("nodes", 5, "params", "slope"), float("nan"), r"nodes\[5\]\.params\.slope"),
    (("nodes", 5, "params"), _DELETE, r"nodes\[5\]\.params"),
]


@pytest.mark.parametrize("keys,value,pattern", _CRAFTED, ids=[f"{'.'.join(map(str, k))}={v if v is not _DELETE else 'deleted'}"[:60]
                                                            for k, v, _ in _CRAFTED])
def test_crafted_manifest_refused_in_one_line(tmp_path, keys, value, pattern):
    path, man = _written(tmp_path)
    # the layout this test edits (written by write_network): input, conv+relu, maxpool, linear, leaky, linear
    assert [n["type"] for n in man["nodes"]] == ["input", "affine", "activation", "maxpool", "affine", "activation",
                                                  "affine"]
    path.write_text(json.dumps(_set(man, keys, value)))
    with pytest.raises(ValueError, match=pattern) as info:
        export.read_network(path)
    assert len(str(info.value).splitlines()) == 1


def test_crafted_manifest_text_refused(tmp_path):
    path, man = _written(tmp_path)
    for text, pattern in [("[" * 10000 + "]" * 10000, r"nest"), ("{not json", r"not JSON"), ("[1, 2]", r"JSON object"),
                          ("\udcff", r"UTF-8|JSON")]:
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        with pytest.raises(ValueError, match=pattern) as info:
            export.read_network(path)
        assert len(str(info.value).splitlines()) == 1


def test_segment_symlink_out_of_the_folder_refused(tmp_path):
    (tmp_path / "a").mkdir()
    path, man = _written(tmp_path / "a")
    seg = path.parent / man["nodes"][1]["weights"][0]["file"]
    moved = tmp_path / "elsewhere.npz"
    seg.rename(moved)
    os.symlink(moved, seg)
    with pytest.raises(ValueError, match=r"nodes\[1\]\.weights\[0\]\.file.*symbolic link"):
        export.read_network(path)


def test_segment_file_is_validated_by_the_readers(tmp_path):
    path, man = _written(tmp_path)
    seg = path.parent / man["nodes"][1]["weights"][0]["file"]
    seg.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(ValueError, match=r"not an \.npz|zip") as info:
        export.read_network(path)
    assert len(str(info.value).splitlines()) == 1


def test_arguments_checked(tmp_path):
    path, _ = _written(tmp_path)
    with pytest.raises(TypeError, match=r"path must be a str or pathlib.Path"):
        export.read_network(3)
    with pytest.raises(TypeError, match=r"as_module"):
        export.read_network(path, as_module="yes")
    with pytest.raises(ValueError, match=r"dtype must be torch.float32 or torch.float64"):
        export.read_network(path, as_module=True, dtype=torch.int64)
    with pytest.raises(ValueError, match=r"path .*nope.npz.network.json.*no such file"):
        export.read_network(tmp_path / "nope.npz.network.json")
    with pytest.raises(ValueError, match=r"path must be a <stem>.<format>.network.json manifest"):
        export.read_network(tmp_path / "x.json")


def test_reading_a_network_needs_no_torch(tmp_path, mixed):
    _, net = mixed
    paths = export.write_network(net, tmp_path / "m.npz")
    x = np.random.default_rng(9).standard_normal((2, 2, 8, 8))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "ref.npy", net.collapsed().forward(x))
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np\n"
        "from isomat import export\n"
        f"net = export.read_network({str(paths[-1])!r})\n"
        f"x = np.load({str(tmp_path / 'x.npy')!r}); ref = np.load({str(tmp_path / 'ref.npy')!r})\n"
        "assert np.max(np.abs(net.forward(x) - ref)) <= 1e-15, np.max(np.abs(net.forward(x) - ref))\n"
        "assert all(sys.modules[m] is None for m in sys.modules if m.split('.')[0] == 'torch')\n"
        "print(type(net).__name__, net.jacobian(x[0]).shape)\n"
        "try:\n"
        f"    export.read_network({str(paths[-1])!r}, as_module=True)\n"
        "except ImportError as exc:\n"
        "    print('refused:', exc)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "Network (5, 128)" in r.stdout and "refused: read_network(as_module=True) needs PyTorch" in r.stdout
