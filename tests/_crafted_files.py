"""Write a corpus of crafted (hostile) matrix files into a directory: ``python tests/_crafted_files.py DIR``.

Each file is what a reader must refuse in one line, before it touches memory (issue 24): indices out
of range, negative, non-monotone ``indptr``, wrong lengths, odd dtypes, shapes declaring far more
memory than the file holds, zip and zlib bombs, torch tensors with bad indices or a stride-0
expansion, hostile metadata. Nothing here is committed as a binary: the files are made on demand,
cheaply (the bombs are deflate streams of one repeated block, never 3 GB compressed for real).

:func:`write_corpus` returns ``{name: path}``; :data:`EXPECT` says what reading each one must give:
``"value"`` (a ValueError), ``"size"`` (a SizeLimitError), ``"ok"`` (reads, converted), ``"bounded"``
(either reads or is refused, within the memory bound).
"""

from __future__ import annotations

import io
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np

#: name -> (file name, expected outcome of isomat.export.read (or the reader named in READER))
EXPECT: dict[str, str] = {
    "csc_row_out_of_range": "value", "csc_row_negative": "value", "csr_col_out_of_range": "value",
    "csr_col_negative": "value", "csr_indptr_decreasing": "value", "csr_indptr_not_from_zero": "value",
    "csr_lengths_differ": "value", "csr_big_endian": "ok", "csr_float16": "ok", "csr_string_values": "value",
    "csr_float_indices": "value", "shape_negative": "value", "shape_huge": "size", "coo_row_out_of_range": "value",
    "bcoo_huge_shape": "size", "bcoo_col_out_of_range": "value", "npz_zip_bomb": "size",
    "npz_zip_bomb_lying": "bounded", "npz_object_member": "value",
    "mtx_400M_rows": "size_low", "mtx_huge_rows": "size", "mtx_out_of_range": "value",
    "mat_zlib_bomb": "size", "mat_row_out_of_range": "value", "mat_row_negative": "value", "mat_truncated": "value",
    "pt_coo_negative": "value", "pt_coo_out_of_range": "value", "pt_csr_col_out_of_range": "value",
    "pt_stride0_expanded": "size", "pt_float16": "ok", "pt_not_a_tensor": "value",
    # issue 37 item 1: a bz2 member inflated 512 MiB while its .npy header was read (zipfile passes no cap to
    # bz2 or lzma); an lzma member; a v2 .npy header declaring 3 GB of header text in a deflate bomb; a
    # MatrixMarket comment longer than a 16 MiB readline, then a forged size line, then the real one
    "npz_bz2_bomb": "value", "npz_lzma_member": "value", "npz_v2_header_bomb": "value",
    "mtx_long_comment_forged_size": "size",
}

SUFFIX = {n: "." + n.split("_")[0] if n.split("_")[0] in ("mtx", "mat", "pt") else ".npz" for n in EXPECT}


def _csr(p: Path, **kw: object) -> None:
    arrays = dict(format=np.array("csr"), shape=np.array([2, 2]), data=np.array([1.0, 2.0]),
                  indices=np.array([0, 1], dtype=np.int32), indptr=np.array([0, 1, 2], dtype=np.int32))
    arrays.update(kw)  # type: ignore[arg-type]
    np.savez(p, **arrays)  # type: ignore[arg-type]


def _npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    from numpy.lib import format as npy

    buf = io.BytesIO()
    npy.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _bomb_stream(head: bytes, zeros: int) -> bytes:
    """A raw deflate stream inflating to ``head`` then ``zeros`` zero bytes: one compressed 16 MiB
    block of zeros repeated (each ends in a full flush, so it can be), then the final empty block."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = [c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)]
    block = 1 << 24
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = z.compress(bytes(block)) + z.flush(zlib.Z_FULL_FLUSH)
    out += [piece] * (zeros // block)
    rest = zeros % block
    if rest:
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        out.append(z.compress(bytes(rest)) + z.flush(zlib.Z_FULL_FLUSH))
    out.append(b"\x03\x00")  # a final, empty, fixed-Huffman block
    return b"".join(out)


def _zip_one(p: Path, members: list[tuple[str, bytes, bytes | None, int]]) -> None:
    """A zip archive by hand: (name, raw bytes (stored) or None, deflate stream, declared size)."""
    local, central, offset = [], [], 0
    for name, stored, deflated, size in members:
        data = stored if deflated is None else deflated
        method = 0 if deflated is None else 8
        crc = zlib.crc32(stored) if stored is not None else 0
        fname = name.encode()
        lh = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data), size, len(fname), 0)
        local.append(lh + fname + data)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, len(data), size,
                                   len(fname), 0, 0, 0, 0, 0, offset) + fname)
        offset += len(lh) + len(fname) + len(data)
    cd = b"".join(central)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(cd), offset, 0)
    p.write_bytes(b"".join(local) + cd + eocd)


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _mat_sparse_bytes(row: int) -> bytes:
    """A v5 .mat holding a 3x3 sparse W with one entry, its row index patched to ``row``."""
    import scipy.io
    import scipy.sparse as sp

    buf = io.BytesIO()
    scipy.io.savemat(buf, {"W": sp.csc_array(([5.0], ([1], [1])), shape=(3, 3))}, do_compression=False)
    raw = buf.getvalue()
    small = struct.pack("<I", 5 | (4 << 16)) + struct.pack("<i", 1)  # ir: one int32 (a small element), row 1
    if small in raw[128:]:
        at = raw.index(small, 128) + 4
    else:
        at = raw.index(struct.pack("<II", 5, 4) + struct.pack("<i", 1), 128) + 8
    return raw[:at] + struct.pack("<i", row) + raw[at + 4:]


def _mat_zlib_bomb(p: Path, n: int = 20000) -> None:
    """A compressed v5 variable W: an n x n double matrix of zeros (8 n^2 bytes inflated)."""
    import scipy.io

    buf = io.BytesIO()
    scipy.io.savemat(buf, {"x": np.zeros(1)}, do_compression=False)
    header = buf.getvalue()[:128]
    name = b"W"
    pr = 8 * n * n
    inner = (struct.pack("<II", 6, 8) + struct.pack("<II", 6, 0)  # flags: mxDOUBLE_CLASS
             + struct.pack("<II", 5, 8) + struct.pack("<ii", n, n)  # dims
             + struct.pack("<II", 1, len(name)) + name + b"\0" * 7  # name
             + struct.pack("<II", 9, pr))  # pr tag; pr bytes follow
    head = struct.pack("<II", 14, len(inner) + pr) + inner
    c = zlib.compressobj(9)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    body = _bomb_stream(b"", pr)[:-2]  # raw deflate blocks of zeros, without the final block
    tail_c = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = first[:] + body + tail_c.flush(zlib.Z_FINISH)  # (adler32 left out: refused long before the end)
    p.write_bytes(header + struct.pack("<II", 15, len(stream)) + stream)


def write_corpus(d: Path) -> dict[str, Path]:
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    out = {n: d / (n + SUFFIX[n]) for n in EXPECT}
    csc = dict(format=np.array("csc"), shape=np.array([3, 3]), data=np.array([1.0]),
               indptr=np.array([0, 1, 1, 1], dtype=np.int32))
    np.savez(out["csc_row_out_of_range"], indices=np.array([7], dtype=np.int32), **csc)
    np.savez(out["csc_row_negative"], indices=np.array([-1], dtype=np.int32), **csc)
    _csr(out["csr_col_out_of_range"], indices=np.array([0, 5], dtype=np.int32))
    _csr(out["csr_col_negative"], indices=np.array([0, -3], dtype=np.int32))
    _csr(out["csr_indptr_decreasing"], indptr=np.array([0, 3, 2], dtype=np.int32))
    _csr(out["csr_indptr_not_from_zero"], indptr=np.array([1, 1, 2], dtype=np.int32))
    _csr(out["csr_lengths_differ"], indices=np.array([0, 1, 1], dtype=np.int32))
    _csr(out["csr_big_endian"], data=np.array([1.0, 2.0], dtype=">f8"), indices=np.array([0, 1], dtype=">i4"),
         indptr=np.array([0, 1, 2], dtype=">i4"))
    _csr(out["csr_float16"], data=np.array([1.0, 2.0], dtype=np.float16))
    _csr(out["csr_string_values"], data=np.array(["a", "b"]))
    _csr(out["csr_float_indices"], indices=np.array([0.0, 1.0]))
    _csr(out["shape_negative"], shape=np.array([-1, 2]))
    _csr(out["shape_huge"], shape=np.array([2**62, 2]))
    np.savez(out["coo_row_out_of_range"], format=np.array("coo"), shape=np.array([2, 2]), data=np.array([1.0]),
             row=np.array([9]), col=np.array([0]))
    bcoo = dict(isomat_layout=np.array("bcoo"), data=np.array([1.0]))
    np.savez(out["bcoo_huge_shape"], shape=np.array([3_000_000_000, 3_000_000_000]),
             indices=np.array([[0, 0]], dtype=np.int64), **bcoo)
    np.savez(out["bcoo_col_out_of_range"], shape=np.array([2, 2]), indices=np.array([[0, 2]], dtype=np.int32), **bcoo)
    # zip bombs: a 3 GB member of zeros whose .npy header and zip directory say so, and one whose
    # header and directory declare one value while the deflate stream would inflate to 3 GB
    small = [(n + ".npy", _npy_bytes(v), None, len(_npy_bytes(v))) for n, v in
             (("format", np.array("csr")), ("shape", np.array([1, 375_000_000])),
              ("indices", np.zeros(1, np.int32)), ("indptr", np.array([0, 1], np.int32)))]
    big_head = _npy_header("<f8", (375_000_000,))
    _zip_one(out["npz_zip_bomb"], small + [("data.npy", None, _bomb_stream(big_head, 3_000_000_000),
                                            len(big_head) + 3_000_000_000)])
    one_head = _npy_header("<f8", (1,))
    small1 = [(n + ".npy", _npy_bytes(v), None, len(_npy_bytes(v))) for n, v in
              (("format", np.array("csr")), ("shape", np.array([1, 1])), ("indices", np.zeros(1, np.int32)),
               ("indptr", np.array([0, 1], np.int32)))]
    _zip_one(out["npz_zip_bomb_lying"], small1 + [("data.npy", None, _bomb_stream(one_head, 3_000_000_000),
                                                   len(one_head) + 8)])
    obj_head = _npy_header("|O", (1,))
    _zip_one(out["npz_object_member"], small1 + [("data.npy", obj_head + b"\x80\x04N.", None, len(obj_head) + 4)])
    write_bz2_bomb(out["npz_bz2_bomb"], small1)
    _write_zip(out["npz_lzma_member"], small1, "data", _npy_bytes(np.array([1.0])), 14)
    v2_head = b"\x93NUMPY\x02\x00" + struct.pack("<I", 3_000_000_000)
    _zip_one(out["npz_v2_header_bomb"], small1 + [("data.npy", None, _bomb_stream(v2_head, 3_000_000_000),
                                                   len(v2_head) + 3_000_000_000)])
    write_long_comment_mtx(out["mtx_long_comment_forged_size"])
    banner = "%%MatrixMarket matrix coordinate real general\n"
    out["mtx_400M_rows"].write_text(banner + "400000000 1 1\n1 1 1.0\n")
    out["mtx_huge_rows"].write_text(banner + "3000000000 3000000000 1\n1 1 1.0\n")
    out["mtx_out_of_range"].write_text(banner + "2 2 1\n5 1 1.0\n")
    _mat_zlib_bomb(out["mat_zlib_bomb"])
    out["mat_row_out_of_range"].write_bytes(_mat_sparse_bytes(7))
    out["mat_row_negative"].write_bytes(_mat_sparse_bytes(-1))
    good = _mat_sparse_bytes(1)
    out["mat_truncated"].write_bytes(good[:len(good) - 20])
    try:
        import torch
    except ImportError:  # the .pt cases need torch
        for n in [n for n in out if n.startswith("pt_")]:
            del out[n]
        return out
    coo = lambda r, c: torch.sparse_coo_tensor(torch.tensor([[r], [c]]), torch.tensor([1.0]), (2, 2),  # noqa: E731
                                               check_invariants=False)
    torch.save(coo(-1, 0), out["pt_coo_negative"])
    torch.save(coo(0, 5), out["pt_coo_out_of_range"])
    import warnings

    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore")
        csr = torch.sparse_csr_tensor(torch.tensor([0, 1, 1]), torch.tensor([9]), torch.tensor([1.0]), (2, 2),
                                      check_invariants=False)
    torch.save(csr, out["pt_csr_col_out_of_range"])
    torch.save(torch.ones(1, 1).expand(30000, 30000), out["pt_stride0_expanded"])
    torch.save({"matrix": torch.eye(2, dtype=torch.float16).to_sparse()}, out["pt_float16"])
    torch.save({"matrix": [1, 2, 3]}, out["pt_not_a_tensor"])
    return out


def _write_zip(p: Path, members: list[tuple[str, bytes, None, int]], name: str, data: bytes | Any,
               method: int) -> None:
    """An archive of stored ``members`` plus ``name.npy`` compressed with zip ``method`` (12: bzip2,
    14: lzma), written by CPython's zipfile; ``data`` is bytes or an iterable of byte chunks."""
    import zipfile

    with zipfile.ZipFile(p, "w") as zf:
        for mname, raw, _, _ in members:
            zf.writestr(mname, raw, compress_type=zipfile.ZIP_STORED)
        info = zipfile.ZipInfo(name + ".npy")
        info.compress_type = method
        with zf.open(info, "w", force_zip64=True) as fh:
            for chunk in ([data] if isinstance(data, bytes) else data):
                fh.write(chunk)


def write_bz2_bomb(p: Path, members: list[tuple[str, bytes, None, int]], inflated: int = 512 << 20) -> Path:
    """An .npz whose ``data`` member is bzip2-compressed: a .npy header declaring one float64, then
    ``inflated`` zero bytes (a few hundred bytes compressed; a few seconds to write)."""
    block = bytes(1 << 24)
    chunks = [_npy_header("<f8", (1,))] + [block] * (inflated // len(block))
    _write_zip(p, members, "data", iter(chunks), 12)
    return p


def write_long_comment_mtx(p: Path) -> Path:
    """A MatrixMarket file: a comment line of 16 MiB + 1 byte (past the 16 MiB readline buffer the
    estimate once used), whose remainder ``1 1`` looked like the size line of a 1 x 1 array, then
    the real size line of a 6000 x 6000 dense array of ones (72 MB of text; 288 MB dense, 432 MB
    as CSR)."""
    with open(p, "wb") as fh:
        fh.write(b"%%MatrixMarket matrix array real general\n%" + b"x" * ((1 << 24) - 1) + b"1 1\n6000 6000\n")
        block = b"1\n" * 6_000_000
        for _ in range(6):
            fh.write(block)
    return p


def npy_v3_bytes(a: np.ndarray) -> bytes:
    """``a`` as a version 3.0 ``.npy`` (NumPy writes 3.0 only for headers that need UTF-8)."""
    import ast

    from numpy.lib import format as npy

    d = {"descr": npy.dtype_to_descr(a.dtype), "fortran_order": False, "shape": a.shape}
    text = repr(d)
    assert ast.literal_eval(text) == d
    body = text.encode("utf-8")
    pad = (-(len(body) + 1 + 12)) % 64
    header = body + b" " * pad + b"\n"
    return b"\x93NUMPY\x03\x00" + struct.pack("<I", len(header)) + header + np.ascontiguousarray(a).tobytes()


def write_kernel_bomb(p: Path) -> Path:
    """A ``.npy`` whose header claims 9e12 float64 values (and holds none)."""
    Path(p).write_bytes(_npy_header("<f8", (3_000_000, 3_000_000)))
    return Path(p)


if __name__ == "__main__":
    for name, path in write_corpus(Path(sys.argv[1])).items():
        print(f"{name:28s} {path.stat().st_size:>10d} B  {EXPECT[name]}")
