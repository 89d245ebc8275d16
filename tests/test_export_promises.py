"""Exports keep their promise: every file says what it holds, an affine map (W, b) exports whole, a
random or file kernel can be built again from the record, and files get the usual permissions."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
import scipy.sparse as sp

from isomat import export
from isomat.cli import main

FORMATS = ["npz", "pt", "mat", "mtx", "jax"]


def _suffix(fmt):
    return export.SUFFIXES[fmt]


def _skip_missing(fmt):
    if fmt == "pt":
        pytest.importorskip("torch")
    if fmt == "jax":
        pytest.importorskip("jax")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_write_records_order_shapes_and_dtype_without_being_asked(tmp_path, fmt):
    _skip_missing(fmt)
    W = sp.random_array((6, 4), density=0.5, random_state=0, format="csr")
    p = export.write(W, tmp_path / f"m{_suffix(fmt)}", fmt, order="F", input_shape=(2, 2), output_shape=(2, 3))
    meta = export.read_metadata(p)
    assert meta["order"].startswith("column-major") and meta["dtype"] == "float64"
    assert meta["input_shape"] == [2, 2] and meta["output_shape"] == [2, 3] and meta["shape"] == [6, 4]
    q = export.write(W, tmp_path / f"v{_suffix(fmt)}", fmt)
    meta = export.read_metadata(q)
    assert meta["order"].startswith("row-major") and meta["input_shape"] == [4] and meta["output_shape"] == [6]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_affine_pair_round_trips_in_the_files_order(tmp_path, fmt, order):
    _skip_missing(fmt)
    rng = np.random.default_rng(1)
    W = sp.random_array((6, 4), density=0.6, random_state=1, format="csr")
    b = rng.standard_normal(6)
    x = rng.standard_normal((2, 2))
    y = (W @ x.ravel() + b).reshape(2, 3)
    p = export.write((W, b), tmp_path / f"m{_suffix(fmt)}", fmt, order=order, input_shape=(2, 2), output_shape=(2, 3))
    Wf, bf = export.read(p), export.read_bias(p)
    assert export.read_metadata(p)["bias"] is True
    flat = "F" if order == "F" else "C"
    np.testing.assert_allclose(Wf @ x.ravel(order=flat) + bf, y.ravel(order=flat), rtol=1e-13, atol=1e-13)


def test_bias_is_refused_by_name_when_it_does_not_fit(tmp_path):
    W = sp.eye_array(3, format="csr")
    with pytest.raises(ValueError, match="bias must be a vector of 3 values"):
        export.write((W, np.ones(4)), tmp_path / "m.npz")
    with pytest.raises(TypeError, match="bias must hold numbers"):
        export.write((W, np.array(["a", "b", "c"])), tmp_path / "m.npz")
    with pytest.raises(TypeError, match="affine pair"):
        export.write((W, np.ones(3), 1), tmp_path / "m.npz")
    assert export.read_bias(export.write(W, tmp_path / "n.npz")) is None


def test_files_take_the_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        p = export.write(sp.eye_array(3, format="csr"), tmp_path / "m.npz")
    finally:
        os.umask(old)
    assert os.stat(p).st_mode & 0o777 == 0o640


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err) if "out" in main.__code__.co_varnames else main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_kernel_file_records_its_channels_and_content_and_rebuilds(tmp_path, capsys):
    k = np.random.default_rng(0).standard_normal((4, 2, 3, 3))
    np.save(tmp_path / "k.npy", k)
    os.chdir(tmp_path)
    assert main(["export", "conv", "--input-shape", "2,5,5", "--kernel", "k.npy", "-o", "c.npz"]) == 0
    out = capsys.readouterr().out
    assert "(2x5x5 -> 4x3x3)" in out  # the wrote line names the tensors' shapes
    meta = export.read_metadata(tmp_path / "c.npz")
    rec = meta["parameters"]["kernel"]
    assert meta["parameters"]["out_channels"] == 4 and rec["shape"] == [4, 2, 3, 3]
    assert rec["path"] == "k.npy" and len(rec["sha256"]) == 64  # beside the export: relative to its folder
    np.testing.assert_array_equal(np.asarray(rec["values"]), k)
    assert abs(export.rebuild(tmp_path / "c.npz") - export.read(tmp_path / "c.npz")).max() == 0
    # a large kernel is recorded by path and hash only; a changed file is refused on rebuild
    big = np.random.default_rng(1).standard_normal((64, 8, 3, 3))
    np.save(tmp_path / "big.npy", big)
    assert main(["export", "conv", "--input-shape", "8,4,4", "--kernel", "big.npy", "-o", "b.npz"]) == 0
    rec = export.read_metadata(tmp_path / "b.npz")["parameters"]["kernel"]
    assert "values" not in rec
    assert abs(export.rebuild(tmp_path / "b.npz") - export.read(tmp_path / "b.npz")).max() == 0
    np.save(tmp_path / "big.npy", big * 2)
    with pytest.raises(ValueError, match="recorded kernel file cannot be used"):
        export.rebuild(tmp_path / "b.npz")


@pytest.mark.parametrize("argv", [
    ["conv", "--input-shape", "2,6,6", "--kernel-size", "3", "--out-channels", "3", "--padding", "1"],
    ["kron", "--factors", "2x3,3x2", "--density", "0.5"],
    ["projection", "--m", "5", "--n", "3"],
])
def test_random_operands_rebuild_from_the_recorded_seed(tmp_path, argv, capsys):
    p = tmp_path / "r.npz"
    assert main(["export", *argv, "--seed", "11", "-o", str(p)]) == 0
    capsys.readouterr()
    assert abs(export.rebuild(p) - export.read(p)).max() == 0
    assert abs(export.rebuild(export.read_metadata(p)) - export.read(p)).max() == 0


def test_rebuild_refuses_what_is_not_an_export_record():
    with pytest.raises(ValueError, match="source must be .* 'kind'"):
        export.rebuild({"shape": [3, 3]})
    with pytest.raises(TypeError, match="source must be"):
        export.rebuild(3)
    with pytest.raises(ValueError, match="unknown export kind"):
        export.rebuild({"kind": "nope", "parameters": {}})


def test_a_comment_cannot_forge_the_metadata_line(tmp_path):
    W = sp.eye_array(2, format="csr")
    with pytest.raises(ValueError, match="comment must not contain"):
        export.write(W, tmp_path / "m.mtx", comment='x\r% isomat-metadata: {"order": "forged"}')


@pytest.mark.parametrize("suffix", [".mtx", ".npz", ".pt", ".mat"])
def test_missing_and_garbage_files_get_one_line_errors(tmp_path, suffix):
    if suffix == ".pt":
        pytest.importorskip("torch")
    with pytest.raises(ValueError, match="no such file"):
        export.read(tmp_path / f"missing{suffix}")
    bad = tmp_path / f"garbage{suffix}"
    bad.write_bytes(b"this is not a matrix file\n" * 3)
    for reader in (export.read, export.read_metadata):
        with pytest.raises(ValueError, match="cannot be read as") as info:
            reader(bad)
        assert "\n" not in str(info.value) and str(bad) in str(info.value)


def test_metadata_that_is_not_an_object_is_refused(tmp_path):
    p = tmp_path / "m.npz"
    np.savez(p, indices=np.array([0]), indptr=np.array([0, 1]), format=np.array("csr"), shape=np.array([1, 1]),
             data=np.array([1.0]), isomat_metadata=np.array("[1, 2, 3]"))
    with pytest.raises(ValueError, match="not an object"):
        export.read_metadata(p)
    deep = tmp_path / "d.npz"
    np.savez(deep, indices=np.array([0]), indptr=np.array([0, 1]), format=np.array("csr"), shape=np.array([1, 1]),
             data=np.array([1.0]), isomat_metadata=np.array("[" * 100000 + "]" * 100000))
    with pytest.raises(ValueError, match="cannot be read"):
        export.read_metadata(deep)


def test_a_torch_dict_without_metadata_reads_as_empty(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "m.pt"
    torch.save({"matrix": torch.eye(2).to_sparse()}, p)
    assert export.read_metadata(p) == {}
