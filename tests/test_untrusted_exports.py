"""Untrusted export files (issue 37 items 1, 2, 6): bounds that cannot slip, files a file may name,
one line for every bad argument.

Each finding of the issue's review is reproduced here. The memory bounds are measured in a
subprocess under ``isomat.set_memory_limit(256 MiB)``: the peak RSS a call adds
(``ru_maxrss``) must stay under the bound + 64 MiB, whatever the call raises.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from isomat import export
from isomat.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from _crafted_files import (_npy_bytes, npy_v3_bytes, write_bz2_bomb,  # noqa: E402
                            write_long_comment_mtx, write_corpus)

LIMIT = 256 << 20
SLACK = 64 << 20

#: calls ``isomat.export.<fn>(path)`` for each (fn, path) pair of argv[1] (JSON), one JSON line each:
#: the outcome, its message, and the peak RSS grown since before the first call
_PROBE = r"""
import json, resource, sys
import numpy as np
import isomat, isomat.export as ex
from isomat.errors import SizeLimitError
isomat.set_memory_limit(256 << 20)
calls = json.loads(sys.argv[1])
if any(path.endswith(".pt") for _, path in calls):
    import torch  # imported before the baseline: its own pages are not the read's
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for fn, path in calls:
    try:
        getattr(ex, fn)(path)
        out = {"outcome": "ok", "msg": ""}
    except SizeLimitError as e:
        out = {"outcome": "size", "msg": str(e)}
    except (ValueError, TypeError) as e:
        out = {"outcome": type(e).__name__, "msg": str(e)}
    out["growth"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    out["call"] = [fn, path]
    print(json.dumps(out), flush=True)
"""


def _probe(calls: list[tuple[str, str]]) -> list[dict]:
    r = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(calls)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, f"rc={r.returncode} (a crash or a traceback)\n{r.stderr[-3000:]}"
    found = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(found) == len(calls), r.stdout[-2000:]
    return found


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("crafted37"))


# -- item 1: bounds that cannot slip ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["npz_bz2_bomb", "npz_lzma_member", "npz_v2_header_bomb"])
def test_archive_bombs_are_refused_by_every_reader_within_the_bound(corpus, name):
    """A bz2 member inflated 512 MiB (> the bound + 64 MiB) while its 128-byte .npy header was read:
    zipfile passes no output cap to bz2 or lzma, so such members are refused by their method; a v2
    header declaring 3 GB of header text is refused by its declared length, before it is read."""
    path = str(corpus[name])
    out = _probe([(fn, path) for fn in ("read", "read_metadata", "read_bias", "rebuild")])
    for o in out:
        assert o["outcome"] == "ValueError", o
        assert "\n" not in o["msg"] and path in o["msg"], o
        assert o["growth"] < LIMIT + SLACK, o
    want = {"npz_bz2_bomb": "compressed with bzip2", "npz_lzma_member": "compressed with lzma",
            "npz_v2_header_bomb": "header declares 3000000000 bytes"}[name]
    assert all(want in o["msg"] for o in out), out


def test_every_reader_and_rebuild_stay_within_the_bound_on_every_crafted_file(corpus):
    """read_metadata, read_bias and rebuild on the whole crafted corpus (tests/_crafted_files.py; read
    itself is test_hostile_files'): a result or a one-line ValueError naming the file, and the peak
    RSS over all of them under the bound + 64 MiB."""
    calls = [(fn, str(path)) for path in corpus.values() for fn in ("read_metadata", "read_bias", "rebuild")]
    out = _probe(calls)
    for o in out:
        assert o["outcome"] in ("ok", "size", "ValueError"), o
        if o["outcome"] != "ok":
            assert "\n" not in o["msg"] and o["call"][1] in o["msg"], o
        assert o["growth"] < LIMIT + SLACK, o


def test_a_matrix_market_comment_past_any_buffer_cannot_forge_the_size_line(corpus):
    """The comment line is longer than the 16 MiB readline buffer; its remainder "1 1" passed as the
    size line and SciPy read the real 6000 x 6000 array (> 700 MB) under a 256 MiB bound. Now
    isomat parses the size line SciPy reads: refused by its size."""
    path = str(corpus["mtx_long_comment_forged_size"])
    o = _probe([("read", path)])[0]
    assert o["outcome"] == "size" and "6000x6000" in o["msg"], o
    assert o["growth"] < LIMIT + SLACK, o


def test_comments_of_any_length_are_skipped_and_the_values_read(tmp_path):
    p = tmp_path / "c.mtx"
    p.write_bytes(b"%%MatrixMarket matrix coordinate real general\n%" + b"y" * ((1 << 16) + 5) + b" 9 9 9\n"
                  b"%\n\n2 3 2\n1 1 1.5\n2 3 -2\n")
    np.testing.assert_array_equal(export.read(p).toarray(), [[1.5, 0, 0], [0, 0, -2]])
    q = tmp_path / "s.mtx"  # a size line too long to be one is refused, not truncated into another
    q.write_bytes(b"%%MatrixMarket matrix coordinate real general\n" + b"2 " * (1 << 16) + b"\n")
    with pytest.raises(ValueError, match="size line"):
        export.read(q)


def _npz_record(p: Path, meta: dict) -> Path:
    """A small valid export archive whose metadata is ``meta`` (the matrix itself is not rebuilt from)."""
    np.savez(p, format=np.array("csr"), shape=np.array([1, 1]), data=np.array([1.0]),
             indices=np.array([0], np.int32), indptr=np.array([0, 1], np.int32),
             isomat_metadata=np.array(json.dumps(meta)))
    return p


_CONV = {"boundary": "zero", "dilation": 1, "groups": 1, "input_shape": [1, 6, 6], "padding": 0, "stride": 1}
_KERNEL = np.ones((1, 1, 3, 3))
_REC = {"dtype": "float64", "path": "k.npy", "shape": [1, 1, 3, 3],
        "sha256": hashlib.sha256(_KERNEL.tobytes()).hexdigest(), "values": _KERNEL.tolist()}

#: crafted records: name -> (metadata, what the one-line refusal says)
_HOSTILE = {
    # np.asarray(values, dtype="S2000000000") allocated 2 GB before anything checked it
    "kernel_dtype_S2e9": ({"kind": "conv", "parameters": {**_CONV, "kernel": {**_REC, "dtype": "S2000000000"}}},
                          "dtype must be numeric"),
    # int(rows * cols * density) with a string density repeated the string 2e9 times
    "density_string": ({"kind": "kron", "parameters": {"factors": [[40000, 50000]], "density": "0.5"}},
                       "--density"),
    "groups_zero": ({"kind": "conv", "parameters": {**_CONV, "kernel_size": 3, "groups": 0}}, "--groups"),
    "class_injected": ({"kind": "projection", "parameters": {"m": 3, "n": 2, "__class__": "x"}},
                       "'__class__' is not an option"),
    "unknown_option": ({"kind": "projection", "parameters": {"m": 3, "n": 2, "shell": "rm"}}, "'shell'"),
    "bool_for_int": ({"kind": "projection", "parameters": {"m": True, "n": 2}}, "--m"),
    "float_for_int": ({"kind": "logic", "parameters": {"k": 4.5}}, "--k"),
    "probability_string": ({"kind": "graph", "parameters": {"nodes": 10, "p": "0.1"}}, "--p"),
    "choice_outside": ({"kind": "graph", "parameters": {"nodes": 10, "operator": "__import__"}}, "--operator"),
    "flag_not_bool": ({"kind": "pool", "parameters": {"input_shape": [1, 4, 4], "kernel_size": 2,
                                                      "ceil_mode": "yes"}}, "--ceil-mode"),
    "required_missing": ({"kind": "projection", "parameters": {"m": 3}}, "--n"),
    "kernel_values_huge_shape": ({"kind": "conv", "parameters": {**_CONV, "kernel": {
        **_REC, "shape": [100000, 100000, 3, 3]}}}, "memory bound"),
    "kernel_values_ragged": ({"kind": "conv", "parameters": {**_CONV, "kernel": {
        **_REC, "values": [[[[1.0]]]]}}}, "nested lists of its shape"),
    "kernel_not_a_record": ({"kind": "conv", "parameters": {**_CONV, "kernel": "/etc/passwd"}}, "kernel record"),
    "seed_string": ({"kind": "projection", "parameters": {"m": 3, "n": 2}, "seed": "7"}, "seed"),
}


def test_rebuild_validates_every_recorded_option_before_any_allocation(tmp_path):
    files = {name: str(_npz_record(tmp_path / f"{name}.npz", meta)) for name, (meta, _) in _HOSTILE.items()}
    out = _probe([("rebuild", files[name]) for name in _HOSTILE])
    for name, o in zip(_HOSTILE, out):
        assert o["outcome"] == ("size" if name == "kernel_values_huge_shape" else "ValueError"), (name, o)
        assert "\n" not in o["msg"] and _HOSTILE[name][1] in o["msg"], (name, o)
    assert out[-1]["growth"] < LIMIT + SLACK, out  # the peak over all of them


def test_rebuild_still_takes_what_the_command_line_records(tmp_path):
    # a float option recorded as an integer (hand-written JSON) is the same number
    meta = {"kind": "kron", "parameters": {"factors": [[2, 3], [3, 2]], "density": 1}, "seed": 3}
    assert export.rebuild(meta).shape == (6, 6)
    meta = {"kind": "conv", "parameters": {**_CONV, "kernel": _REC}}
    M = export.rebuild(meta)
    from isomat.algebra.conv import conv_matrix

    assert abs(M - sp.csr_array(conv_matrix((1, 6, 6), _KERNEL, format="csr"))).max() == 0


# -- item 2: files a file may name -----------------------------------------------------------------
def _export_with_big_kernel(d: Path) -> tuple[Path, np.ndarray]:
    """An `isomat export conv` in ``d`` whose kernel (more values than are recorded) lies beside it."""
    k = np.random.default_rng(0).standard_normal((64, 8, 3, 3))
    d.mkdir()
    np.save(d / "big.npy", k)
    out = d / "e.npz"
    code = main(["export", "conv", "--input-shape", "8,4,4", "--kernel", str(d / "big.npy"), "-o", str(out)],
                out=io.StringIO(), err=io.StringIO())
    assert code == 0
    return out, k


def _with_path(src: Path, dst: Path, path: str) -> Path:
    """``src``'s archive with its recorded kernel path replaced by ``path``."""
    with np.load(src) as z:
        arrays = {n: z[n] for n in z.files}
    meta = json.loads(str(arrays["isomat_metadata"][()]))
    meta["parameters"]["kernel"]["path"] = path
    arrays["isomat_metadata"] = np.array(json.dumps(meta))
    np.savez(dst, **arrays)
    return dst


def test_a_recorded_kernel_path_resolves_only_inside_the_exports_folder(tmp_path):
    out, k = _export_with_big_kernel(tmp_path / "exp")
    rec = export.read_metadata(out)["parameters"]["kernel"]
    assert rec["path"] == "big.npy" and "values" not in rec  # recorded relative to the export's folder
    W = export.read(out)
    assert abs(export.rebuild(out) - W).max() == 0
    # the same kernel, byte for byte, outside the folder: absolute, '..', a symlink out of the folder
    np.save(tmp_path / "outside.npy", k)
    (tmp_path / "exp" / "link.npy").symlink_to(tmp_path / "outside.npy")
    np.save(tmp_path / "exp" / "other.npy", k * 2)  # inside, another content
    messages = {}
    for case, path in {"absolute": str(tmp_path / "outside.npy"), "dotdot": "../outside.npy",
                       "symlink_out": "link.npy", "missing": "nope.npy", "missing_outside": "/nonexistent/x.npy",
                       "hash_differs": "other.npy", "not_npy": "e.npz", "empty": ""}.items():
        crafted = _with_path(out, tmp_path / "exp" / f"c_{case}.npz", path)
        with pytest.raises(ValueError) as info:
            export.rebuild(crafted)
        prefix = f"source {str(crafted)!r}: "  # the file the caller named, then the one message
        assert str(info.value).startswith(prefix), str(info.value)
        messages[case] = str(info.value)[len(prefix):]
    # one message for all: a crafted file learns neither whether a file exists nor what it holds
    assert len(set(messages.values())) == 1, messages
    assert "cannot be used" in messages["absolute"] and "\n" not in messages["absolute"]
    # the caller may name the kernel anywhere; it is checked against the record
    crafted = tmp_path / "exp" / "c_absolute.npz"
    assert abs(export.rebuild(crafted, kernel=tmp_path / "outside.npy") - W).max() == 0
    assert abs(export.rebuild(export.read_metadata(out), kernel=k) - W).max() == 0
    with pytest.raises(ValueError, match="SHA-256 differs"):
        export.rebuild(out, kernel=k * 2)
    with pytest.raises(ValueError, match="recorded"):
        export.rebuild(out, kernel=k[:1])
    with pytest.raises(TypeError, match="kernel must be"):
        export.rebuild(out, kernel=[1, 2])
    with pytest.raises(ValueError, match="records its kernel by path only"):  # a dict source has no folder
        export.rebuild(export.read_metadata(out))
    with pytest.raises(ValueError, match="records no kernel file"):
        export.rebuild({"kind": "projection", "parameters": {"m": 3, "n": 2}}, kernel=k)


def test_a_relative_kernel_path_is_not_resolved_against_the_working_directory(tmp_path, monkeypatch):
    out, k = _export_with_big_kernel(tmp_path / "exp")
    (tmp_path / "cwd").mkdir()
    np.save(tmp_path / "cwd" / "k.npy", k)  # the right kernel, in the caller's working directory only
    crafted = _with_path(out, tmp_path / "exp" / "c.npz", "k.npy")
    monkeypatch.chdir(tmp_path / "cwd")
    with pytest.raises(ValueError, match="recorded kernel file cannot be used"):
        export.rebuild(crafted)
    (tmp_path / "exp" / "k.npy").write_bytes((tmp_path / "cwd" / "k.npy").read_bytes())
    assert abs(export.rebuild(crafted) - export.read(out)).max() == 0  # beside the export: read


def test_an_old_export_with_an_absolute_path_inside_its_folder_still_rebuilds(tmp_path):
    out, _ = _export_with_big_kernel(tmp_path / "exp")
    old = _with_path(out, tmp_path / "exp" / "old.npz", str((tmp_path / "exp" / "big.npy").resolve()))
    assert abs(export.rebuild(old) - export.read(out)).max() == 0


# -- item 6: .npy headers v1-v3 ----------------------------------------------------------------------
def test_a_version_3_npy_kernel_is_read(tmp_path):
    k = np.random.default_rng(2).standard_normal((2, 1, 3, 3))
    (tmp_path / "k3.npy").write_bytes(npy_v3_bytes(k))
    np.testing.assert_array_equal(np.load(tmp_path / "k3.npy"), k)  # NumPy itself reads the crafted file
    err = io.StringIO()
    code = main(["export", "conv", "--input-shape", "1,6,6", "--kernel", str(tmp_path / "k3.npy"), "-o",
                 str(tmp_path / "c.npz")], out=io.StringIO(), err=err)
    assert code == 0, err.getvalue()
    from isomat.algebra.conv import conv_matrix

    assert abs(export.read(tmp_path / "c.npz") - sp.csr_array(conv_matrix((1, 6, 6), k, format="csr"))).max() == 0


def test_a_version_3_npz_member_is_read(tmp_path):
    import zipfile

    p = tmp_path / "v3.npz"
    with zipfile.ZipFile(p, "w") as zf:
        for name, value in (("format", np.array("csr")), ("shape", np.array([2, 2])),
                            ("indices", np.array([0, 1], np.int32)), ("indptr", np.array([0, 1, 2], np.int32))):
            zf.writestr(name + ".npy", _npy_bytes(value))
        zf.writestr("data.npy", npy_v3_bytes(np.array([3.0, 4.0])), compress_type=zipfile.ZIP_DEFLATED)
    np.testing.assert_array_equal(export.read(p).toarray(), [[3, 0], [0, 4]])


def _v3(header: bytes) -> bytes:
    return b"\x93NUMPY\x03\x00" + len(header).to_bytes(4, "little") + header


@pytest.mark.parametrize("header, match", [
    (b"\x93NUMPY\x02\x00" + (0xFFFFFFFF).to_bytes(4, "little"), "declares 4294967295 bytes"),
    (_v3(b"{'descr': '<f8'}    \n"), "keys"),
    (_v3(b"\xff\xfe{}    \n"), "utf-8"),
    (_v3(b"{'descr': '<f8', 'fortran_order': 1, 'shape': (1,)}\n"), "fortran_order"),
    (_v3(b"{'descr': '<f8', 'fortran_order': False, 'shape': (True,)}\n"), "shape"),
    (_v3(b"{'descr': '|O', 'fortran_order': False, 'shape': (1,)}\n"), "Python objects"),
    (_v3(b"{'descr': __import__('os'), 'fortran_order': False, 'shape': (1,)}\n"), "no readable"),
    (_v3(b"(" * 5000 + b")" * 5000), "no readable"),
    (b"\x93NUMPY\x04\x00" + (8).to_bytes(4, "little"), "version"),
])
def test_crafted_npy_headers_are_refused_in_one_line(tmp_path, header, match):
    p = tmp_path / "k.npy"
    p.write_bytes(header)
    err = io.StringIO()
    code = main(["export", "conv", "--input-shape", "1,6,6", "--kernel", str(p), "-o", str(tmp_path / "c.npz")],
                out=io.StringIO(), err=err)
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    assert match in lines[0], lines[0]


def test_the_npz_member_entry_read_is_the_one_checked(tmp_path):
    """Two entries of one name: the header checked and the data read come from the same entry."""
    import warnings
    import zipfile

    p = tmp_path / "dup.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name"
        with zipfile.ZipFile(p, "w") as zf:
            for name, value in (("format", np.array("csr")), ("shape", np.array([1, 2])),
                                ("indices", np.array([1], np.int32)), ("indptr", np.array([0, 1], np.int32)),
                                ("data", np.array([5.0])), ("data", np.array([7.0]))):
                zf.writestr(name + ".npy", _npy_bytes(value))
    np.testing.assert_array_equal(export.read(p).toarray(), [[0, 7]])


# -- metadata: what json.loads and unpickling build is bounded too -----------------------------------
def _lists_json(n: int) -> str:
    return '{"a": [' + "[]," * n + "[]]}"


def test_metadata_that_would_build_too_many_objects_is_refused_within_the_bound(tmp_path):
    """18 MB of '[],' is 6 million empty lists (~400 MB of Python objects) once json.loads has
    built them: it passed the old 64 MiB character cap under a 256 MiB bound. Now the objects
    json.loads would build are estimated first (npz), and a metadata line is capped (mtx)."""
    text = _lists_json(6_000_000)
    npz = _npz_record(tmp_path / "m.npz", {})
    with np.load(npz) as z:
        arrays = {n: z[n] for n in z.files}
    arrays["isomat_metadata"] = np.array(text)
    np.savez(npz, **arrays)
    del arrays
    mtx = tmp_path / "m.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate real general\n%isomat-metadata: " + text + "\n1 1 1\n1 1 1.0\n")
    out = _probe([(fn, str(f)) for f in (npz, mtx) for fn in ("read_metadata", "rebuild", "read_bias")])
    for o in out:
        if o["call"] == ["read_bias", str(npz)]:  # an npz's bias is its own member: the metadata is not read
            assert o["outcome"] == "ok", o
        else:
            assert o["outcome"] in ("size", "ValueError") and "\n" not in o["msg"], o
            assert "metadata" in o["msg"], o
        assert o["growth"] < LIMIT + SLACK, o
    # metadata of a realistic size still reads under the small bound
    small = tmp_path / "s.mtx"
    small.write_text("%%MatrixMarket matrix coordinate real general\n%isomat-metadata: " + _lists_json(10_000)
                     + "\n1 1 1\n1 1 1.0\n")
    from isomat import memory_limit

    with memory_limit(LIMIT):
        assert len(export.read_metadata(small)["a"]) == 10_001


def test_a_torch_pickle_counts_the_objects_it_would_build(tmp_path):
    torch = pytest.importorskip("torch")
    from isomat import memory_limit
    from isomat.errors import SizeLimitError

    p = tmp_path / "m.pt"
    torch.save({"matrix": torch.eye(2).to_sparse(), "metadata": {"a": [[] for _ in range(1_000_000)]}}, p)
    with memory_limit(LIMIT), pytest.raises(SizeLimitError, match="pickled objects"):
        export.read_metadata(p)
    assert len(export.read_metadata(p)["a"]) == 1_000_000


@pytest.mark.parametrize("values", [[[1.0]], [[1.0, 2.0, 3.0]], ["a"], [True], [[1.0, 2.0], 3.0]])
def test_crafted_mtx_bias_values_are_refused_in_one_line(tmp_path, values):
    p = tmp_path / "b.mtx"
    p.write_text("%%MatrixMarket matrix coordinate real general\n%isomat-metadata: "
                 + json.dumps({"bias_values": values}) + "\n1 1 1\n1 1 1.0\n")
    with pytest.raises(ValueError, match="bias_values must be numbers") as info:
        export.read_bias(p)
    assert str(p) in str(info.value)


def _zip_directory_only(p: Path, n: int) -> Path:
    """A zip archive holding nothing but a central directory of ``n`` entries named 'a'..: all
    zipfile reads to open it (47 bytes an entry on disk, ~560 bytes an entry as ZipInfo)."""
    import struct

    entries = [struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0) + b"a"
               for _ in range(1)] * n
    cd = b"".join(entries)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), len(cd), 0, 0)
    p.write_bytes(cd + eocd)
    return p


def test_a_zip_directory_of_a_million_entries_is_refused_before_zipfile_lists_it(tmp_path):
    big = _zip_directory_only(tmp_path / "dir.npz", 1_000_000)  # 47 MB; ~560 MB as ZipInfo objects
    pt = tmp_path / "dir.pt"
    pt.write_bytes(big.read_bytes())
    out = _probe([(fn, str(f)) for f in (big, pt) for fn in ("read", "read_metadata")])
    for o in out:
        assert o["outcome"] == "size" and "zip directory" in o["msg"] and o["call"][1] in o["msg"], o
        assert o["growth"] < LIMIT + SLACK, o


@pytest.mark.parametrize("dtype", ["bool", "float16", "int8", "float32", ">f8", "complex128"])
def test_a_kernel_of_every_numeric_dtype_still_rebuilds_from_its_recorded_values(tmp_path, dtype):
    """The record's checks (numeric dtype, nested values of its shape, the SHA-256 of what they make)
    accept every kernel the command line accepts."""
    k = (np.arange(9).reshape(1, 1, 3, 3) % 2).astype(dtype)
    if dtype == "complex128":
        k = k + 1j
    np.save(tmp_path / "k.npy", k)
    out = tmp_path / "c.npz"
    assert main(["export", "conv", "--input-shape", "1,5,5", "--kernel", str(tmp_path / "k.npy"), "-o", str(out)],
                out=io.StringIO(), err=io.StringIO()) == 0
    assert "values" in export.read_metadata(out)["parameters"]["kernel"]
    assert abs(export.rebuild(out) - export.read(out)).max() == 0
