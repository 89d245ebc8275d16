"""MatrixMarket ``.mtx``: a coordinate text file, written in row blocks and read back validated.

The writer formats a block of rows at a time with SciPy's own ``mmwrite`` and writes the header
with the total count itself; the metadata goes into the header comment as one line tagged
``isomat-metadata:`` (:data:`_MTX_TAG`). The reader parses the banner and the size line here
(comments of any length skipped in pieces), checks them against the memory bound, then hands
SciPy's ``mmread`` a canonical header of those very numbers followed by the file's body.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import scipy.io
import scipy.sparse as sp

from .. import _validate
from ._base import _check_target, _path, _Reading, _write_atomic, to_scipy
from ._base import B_NAME, OLD_BIAS_NAMES
from ._checks import _CHUNK, check_alloc, csr_bytes, fail, loaded_matrix, metadata_cap
from ._chunks import row_indices, row_ranges

#: the tag of the metadata line in the header comment
_MTX_TAG = "isomat-metadata: "


def to_matrix_market(A: Any, path: Any, *, comment: str = "", precision: int | None = None,
                     overwrite: bool = True) -> Path:
    """Write ``A`` as a MatrixMarket coordinate file (``.mtx``); returns the path.

    Parameters
    ----------
    A : operator (see :func:`to_scipy`)
    path : str or Path
        Ends in ``.mtx``.
    comment : str
        Written in the header (e.g. the construction and its seed).
    precision : int, optional
        Significant digits; default: enough to round-trip float64 exactly (17).
    overwrite : bool
        Replace an existing file (default); ``False`` refuses instead.

    Notes
    -----
    Written as a ``general`` coordinate matrix in row order, a block of rows at a time (SciPy's
    writer formats each block; this function writes the header with the total count), so the
    write holds one block's text beyond the matrix -- ``scipy.io.mmwrite`` of the whole matrix
    would hold its COO triplets and several copies of the text.
    """
    p = _path(path, ".mtx")
    _check_target(p, _validate.boolean("overwrite", overwrite))
    if not isinstance(comment, str):
        raise TypeError(f"comment must be a str, got {type(comment).__name__}")
    M = to_scipy(A, "csr")
    # 17 significant digits round-trip float64 exactly, 9 float32. SciPy's writer (fast_matrix_market)
    # corrupts float32 values asked for more than ~10 digits -- NUL bytes, lost exponents, a reader that
    # segfaults -- so single precision is capped at the 9 digits that carry it
    single = M.dtype in (np.float32, np.complex64)
    most = 9 if single else 30
    precision = (9 if single else 17) if precision is None else _validate.positive_int("precision", precision)
    if precision > most:
        raise ValueError(f"precision must be at most {most} significant digits for {M.dtype} values, got {precision}")
    return _write_atomic(p, lambda t: _write_mtx_blocks(t, M, comment, precision), _mtx_header_ok, overwrite)


def _mtx_header_ok(t: Path) -> None:
    with open(t, "rb") as fh:
        if not fh.readline().startswith(b"%%MatrixMarket"):
            raise OSError(f"{str(t)!r} does not start with a MatrixMarket header")


def _write_mtx_blocks(path: str, M: sp.csr_array, comment: str, precision: int, block_entries: int = 1 << 20) -> None:
    import io

    field = "complex" if M.dtype.kind == "c" else "real"

    def body(block: sp.coo_array) -> bytes:
        buf = io.BytesIO()
        scipy.io.mmwrite(buf, block, precision=precision, field=field, symmetry="general")
        text = buf.getvalue()
        pos = 0
        while text.startswith(b"%", pos):  # the banner and comment lines
            pos = text.index(b"\n", pos) + 1
        return text[text.index(b"\n", pos) + 1:]  # after the size line

    with open(path, "wb") as fh:
        head = io.BytesIO()
        scipy.io.mmwrite(head, sp.coo_array(M.shape, dtype=M.dtype), comment=comment, precision=precision,
                         field=field, symmetry="general")
        text = head.getvalue().rstrip(b"\n")
        comments = text[text.index(b"\n") + 1:text.rindex(b"\n") + 1]  # SciPy's rendering of the comment
        fh.write(f"%%MatrixMarket matrix coordinate {field} general\n".encode() + comments
                 + f"{M.shape[0]} {M.shape[1]} {M.nnz}\n".encode())
        for r0, r1, a, b in row_ranges(M, block_entries):
            fh.write(body(sp.coo_array((M.data[a:b], (row_indices(M, r0, r1), M.indices[a:b])), shape=M.shape)))


def read_matrix_market(path: Any) -> sp.csr_array:
    """Read a ``.mtx`` file as a ``csr_array``."""
    p = _path(path, ".mtx")
    with _Reading(p, "a MatrixMarket file"), open(p, "rb") as fh:
        # isomat parses the banner and size line (comments of any length skipped) and checks them against
        # the memory bound; SciPy reads a canonical header of those same numbers, then the file's body
        head = mtx_header(p, fh)
        return loaded_matrix(p, scipy.io.mmread(head.stream(fh)))


# -- MatrixMarket -------------------------------------------------------------------------------
#: longest banner or size line read (a comment line may be any length: it is skipped in pieces)
MTX_LINE_CAP = 1 << 16


_MTX_PIECE = 1 << 20


def _mtx_line(fh: Any) -> tuple[bytes, bool]:
    """The next line's first :data:`MTX_LINE_CAP` bytes and whether it was longer; the whole line is
    consumed, in pieces, whatever its length (``b""``: the end of the file)."""
    head = fh.readline(MTX_LINE_CAP + 1)
    if len(head) <= MTX_LINE_CAP or head.endswith(b"\n"):
        return head, False
    while True:
        piece = fh.readline(_MTX_PIECE)
        if not piece or piece.endswith(b"\n"):
            return head[:MTX_LINE_CAP], True


class MtxHeader:
    """A MatrixMarket file's banner and size line as isomat parsed them, and where its entries start.

    :func:`mtx_header` makes it; :meth:`stream` hands SciPy a canonical banner and size line built
    from these very numbers followed by the file's body, so what SciPy allocates is what was
    estimated -- whatever the comments hold (a comment line longer than any read buffer once let a
    forged size line pass the estimate while SciPy read the real one)."""

    def __init__(self, layout: str, field: str, symmetry: str, rows: int, cols: int, nnz: int, body: int) -> None:
        self.layout, self.field, self.symmetry = layout, field, symmetry
        self.rows, self.cols, self.nnz, self.body = rows, cols, nnz, body

    def text(self) -> bytes:
        size = f"{self.rows} {self.cols}" + (f" {self.nnz}" if self.layout == "coordinate" else "")
        return f"%%MatrixMarket matrix {self.layout} {self.field} {self.symmetry}\n{size}\n".encode()

    def stream(self, fh: Any) -> io.BufferedReader:
        """A binary stream: :meth:`text`, then ``fh`` from the first byte after the size line."""
        fh.seek(self.body)
        return io.BufferedReader(_Spliced(self.text(), fh), _CHUNK)


class _Spliced(io.RawIOBase):
    def __init__(self, head: bytes, fh: Any) -> None:
        self.head, self.fh, self.pos = head, fh, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.pos < len(self.head):
            k = min(len(b), len(self.head) - self.pos)
            b[:k] = self.head[self.pos:self.pos + k]
            self.pos += k
            return k
        return self.fh.readinto(b)


def mtx_header(p: Path, fh: Any) -> MtxHeader:
    """Parse a MatrixMarket file's banner and size line from ``fh``; refuse past the memory bound."""
    banner_raw, long = _mtx_line(fh)
    banner = [] if long else banner_raw.decode("latin-1").split()
    if len(banner) != 5 or banner[0].lower() != "%%matrixmarket" or banner[1].lower() != "matrix":
        raise fail(p, "has no '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner line")
    layout, field, symmetry = (s.lower() for s in banner[2:])
    if layout not in ("coordinate", "array") or field not in ("real", "double", "complex", "integer", "pattern") \
            or symmetry not in ("general", "symmetric", "skew-symmetric", "hermitian"):
        raise fail(p, f"has the unsupported banner {' '.join(banner)!r}")
    while True:  # comment and blank lines, each skipped whole
        line, long = _mtx_line(fh)
        if not line:
            raise fail(p, "has no size line")
        if line.startswith(b"%") or (not long and not line.strip()):
            continue
        break
    need = 3 if layout == "coordinate" else 2
    words = line.split()
    nums = [int(w) for w in words if w.isdigit() and len(w) <= 20] if not long else []
    if len(nums) != need or len(words) != need:
        raise fail(p, f"its size line {line[:80].decode('latin-1').strip()!r} is not {need} non-negative integers")
    rows, cols = nums[0], nums[1]
    if max(rows, cols) >= 2**63:
        raise fail(p, f"declares a {rows}x{cols} matrix (extents must be below 2**63)")
    item = 16 if field == "complex" else 8
    if layout == "array":
        nnz = rows * cols
        estimate = nnz * item + csr_bytes((rows, cols), nnz, item)
    else:
        nnz = nums[2]
        if nnz > rows * cols:
            raise fail(p, f"declares {nnz} entries in a {rows}x{cols} matrix")
        stored = nnz * 2 if symmetry != "general" else nnz
        # the reader's COO triplets (int64 pairs and values), then the CSR
        estimate = stored * (16 + item) + csr_bytes((rows, cols), stored, item) + stored * (16 + item)
    check_alloc(p, estimate, f"a {rows}x{cols} MatrixMarket {layout} matrix of "
                             f"{nnz * (2 if layout == 'coordinate' and symmetry != 'general' else 1)} entries")
    return MtxHeader(layout, field, symmetry, rows, cols, nums[2] if layout == "coordinate" else nnz, fh.tell())


def mtx_estimate(p: Path) -> MtxHeader:
    """Check a MatrixMarket file's banner and size line; refuse past the memory bound."""
    with open(p, "rb") as fh:
        return mtx_header(p, fh)


# -- the metadata line and the bias ------------------------------------------------------------
def mtx_metadata_text(p: Path) -> str | None:
    """The JSON text of the header's metadata line (``% isomat-metadata: {...}``), or None."""
    text: str | None = None
    # lines end at "\n" only: a "\r" inside a comment must not start a forged metadata line, and
    # the metadata line write() puts last in the header wins over anything before it
    cap = metadata_cap() + 64  # a line is held as text: capped under the memory bound
    with open(p, encoding="utf-8", errors="replace", newline="\n") as fh:
        if not fh.readline(1 << 16).startswith("%%MatrixMarket"):
            raise ValueError("no %%MatrixMarket header line")
        while True:
            line = fh.readline(cap)
            if not line.startswith("%"):
                break
            tagged = line.startswith("%" + _MTX_TAG) or line.startswith("% " + _MTX_TAG)
            if len(line) == cap and not line.endswith("\n"):  # longer than the cap
                if tagged:
                    raise fail(p, f"its metadata line is longer than {cap} characters (the memory "
                                  "bound's cap; raise the bound to read it)")
                while True:  # a long comment: skipped whole, in pieces
                    rest = fh.readline(1 << 20)
                    if not rest or rest.endswith("\n"):
                        break
                continue
            if tagged:
                text = line.split(_MTX_TAG, 1)[1].rstrip("\r\n")
    return text


def mtx_bias_values(b: np.ndarray) -> list[Any]:
    """The bias as the metadata's JSON list: numbers, or ``[real, imaginary]`` pairs when complex."""
    if np.iscomplexobj(b):
        return [[float(v.real), float(v.imag)] for v in b]
    return [float(v) for v in b]


def mtx_bias(p: Path, meta: dict[str, Any]) -> np.ndarray | None:
    """The bias a MatrixMarket file keeps in its metadata (key ``b``; 0.2.0's ``bias_values``), or None."""
    key = B_NAME if B_NAME in meta else OLD_BIAS_NAMES["mtx"]
    values = meta.get(key)
    if not isinstance(values, list):
        return None

    def num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    # numbers, or [real, imaginary] pairs (a crafted [[1]] made b[:, 1] an IndexError)
    if not (all(num(v) for v in values)
            or all(isinstance(v, list) and len(v) == 2 and num(v[0]) and num(v[1]) for v in values)):
        raise fail(p, f"its metadata's {key} must be numbers or [real, imaginary] pairs")
    b = np.asarray(values, dtype=float)
    b = b[:, 0] + 1j * b[:, 1] if b.ndim == 2 else b
    return as_recorded(b, meta)


def as_recorded(values: Any, meta: dict[str, Any]) -> Any:
    """``values`` (parsed as float64 or complex128) in the dtype the metadata records, when that is
    float32 or complex64: the text holds 9 significant digits of each, which give exactly the
    written values back in single precision (and not in double)."""
    dtype = meta.get("dtype")
    if dtype in ("float32", "complex64") and (dtype == "complex64") == (values.dtype.kind == "c"):
        return values.astype(dtype)
    return values
