"""The family registry behind ``isomat export KIND``, and :func:`rebuild`, which makes a file's
operator again from its metadata.

One class per kind (its argparse options and how it builds its operator from them and a seeded
generator), registered by :func:`family`. :mod:`isomat.export` re-exports ``FAMILIES`` and the
argparse types the command line uses; the formats' modules know nothing of the families.
"""

from __future__ import annotations

import argparse
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import scipy.sparse as sp

from ._base import to_scipy
from ._io import read_metadata
from ._npz import load_npy, npy_header, read_into



# ---------------------------------------------------------------------------------------------
# the family registry behind ``isomat export KIND``
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExportFamily:
    """One ``isomat export`` kind: its options and how to build its operator.

    ``build(args, rng)`` returns the operator (anything :func:`to_scipy` takes) from the parsed
    options, drawing random values from ``rng`` (a seeded ``numpy.random.Generator``).
    """

    name: str
    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    build: Callable[[argparse.Namespace, np.random.Generator], Any]
    #: ``shapes(args, matrix_shape)``: the (input, output) tensor shapes the matrix maps between,
    #: whose flattening ``--order`` chooses; default: vectors
    shapes: Callable[[argparse.Namespace, tuple[int, int]], tuple[tuple[int, ...], tuple[int, ...]]] = (
        lambda args, shape: ((shape[1],), (shape[0],)))
    #: ``describe(args)``: parameters to record in place of the parsed options (a kernel file's real
    #: channels and content, say), so that the file says what it holds and :func:`rebuild` can make it again
    describe: Callable[[argparse.Namespace], dict[str, Any]] = lambda args: {}


FAMILIES: dict[str, ExportFamily] = {}


class _FamilyClass(Protocol):
    """What :func:`family` needs of the class object it registers: ``options(parser)`` and
    ``build(args, rng)`` callable on the class itself (static methods; matched by the class
    object, so ``self`` below stands for nothing)."""

    def options(self, parser: argparse.ArgumentParser, /) -> None: ...

    def build(self, args: argparse.Namespace, rng: np.random.Generator, /) -> Any: ...


_FamilyT = TypeVar("_FamilyT", bound=_FamilyClass)


def family(name: str, help: str) -> Callable[[_FamilyT], _FamilyT]:
    """Class decorator registering an ``isomat export`` kind.

    The class has two static methods: ``options(parser)`` adds the kind's own argparse
    options, ``build(args, rng)`` returns the operator.
    """

    def deco(cls: _FamilyT) -> _FamilyT:
        extra = {k: getattr(cls, k) for k in ("shapes", "describe") if hasattr(cls, k)}
        FAMILIES[name] = ExportFamily(name, help, cls.options, cls.build, **extra)
        return cls

    return deco


def int_list(text: str) -> tuple[int, ...]:
    """argparse type: ``"1,28,28"`` -> ``(1, 28, 28)``."""
    parts = text.split(",")
    try:
        out = tuple(int(p) for p in parts if p.strip() != "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not out:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if any(abs(v) >= 2**62 for v in out):  # index arithmetic is int64: --stride 1e23 raised OverflowError deep inside
        raise argparse.ArgumentTypeError(f"expected integers below 2**62 in absolute value, got {text!r}")
    return out


def _parsed(text: str, parse: Callable[[str], Any], ok: Callable[[Any], bool], expected: str) -> Any:
    """``parse(text)`` when it parses and ``ok`` holds of it, else argparse's one-line error."""
    try:
        v = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(v):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return v


def positive(text: str) -> int:
    """argparse type: a positive integer."""
    return _parsed(text, int, lambda v: v >= 1, "a positive integer")


def int_or_tuple(text: str) -> int | tuple[int, ...]:
    """argparse type: ``"3"`` -> 3, ``"3,5"`` -> (3, 5)."""
    t = int_list(text)
    return t[0] if len(t) == 1 else t


def normal(rng: np.random.Generator, shape: Any, what: str) -> np.ndarray:
    """Gaussian values of ``shape`` for a family's random operand, refused before drawing when the
    draw alone would pass the memory bound (an option like ``--dim-k 1000000000000``)."""
    from ..algebra._operator import check_bytes

    shape = tuple(int(s) for s in shape)
    if min(shape, default=1) < 1:
        raise ValueError(f"the random {what} needs positive sizes, got shape {shape}")
    check_bytes(f"isomat export: the random {what}", 8 * int(np.prod(shape, dtype=object)),
                f"{'x'.join(map(str, shape))} values")
    return rng.standard_normal(shape)


def new_seed() -> int:
    """A fresh seed (printed by the CLI so the run can be repeated with ``--seed``)."""
    return secrets.randbelow(2**31)


#: a kernel file of at most this many values is recorded in the metadata with its values
KERNEL_VALUES_RECORDED = 4096


def _kernel_record(path: str, folder: Any = None) -> dict[str, Any]:
    """What a kernel file is: its path, shape, dtype, SHA-256 of its values, and the values
    themselves when there are few (so the export can be rebuilt without the file).

    The path is recorded relative to ``folder`` (the export's own folder) when the kernel lies
    inside it -- the only place :func:`~isomat.export.rebuild` reads a recorded kernel from --
    and absolute otherwise (a rebuild then needs the file moved beside the export, or
    ``rebuild(file, kernel=...)``)."""
    import hashlib

    k = _matrix_from_file(path, "--kernel")
    where = Path(path).resolve()
    if folder is not None:
        base = Path(folder).resolve()
        if where.is_relative_to(base):
            where = where.relative_to(base)
    rec: dict[str, Any] = {"path": where.as_posix(), "shape": list(k.shape), "dtype": str(k.dtype),
                           "sha256": hashlib.sha256(np.ascontiguousarray(k).tobytes()).hexdigest()}
    if k.size <= KERNEL_VALUES_RECORDED:
        rec["values"] = k.tolist()
    return rec


def _kernel_input(kernel: Any) -> np.ndarray:
    """The kernel of ``--kernel``: a ``.npy`` path, an array (:func:`~isomat.export.rebuild` resolves a
    recorded kernel first, :func:`recorded_kernel`), or a record holding its values."""
    if isinstance(kernel, np.ndarray):
        return kernel
    if isinstance(kernel, dict):
        return recorded_kernel(kernel, None)
    return _matrix_from_file(kernel, "--kernel")


#: the keys of a kernel record (:func:`_kernel_record`)
_KERNEL_KEYS = frozenset({"path", "shape", "dtype", "sha256", "values"})


def _kernel_refused(raw: Any, folder: Path) -> ValueError:
    # one message whatever went wrong -- missing, outside the folder, a symlink out of it, not a .npy,
    # another shape or dtype, another SHA-256 -- so a crafted record cannot probe which files exist
    # on the machine or what they hold (issue 37 item 2)
    # (the recorded path itself is left out too: the message is the same string for every record)
    return ValueError("the recorded kernel file cannot be used: a kernel recorded by path is read only "
                      f"from a .npy inside the export's folder {str(folder)!r} with the recorded shape, dtype and "
                      "SHA-256 (pass rebuild(..., kernel=FILE.npy or an array) to give it)")


def _check_kernel_record(rec: Any) -> tuple[tuple[int, ...], np.dtype]:
    """The (shape, dtype) of a kernel record, every field checked before anything is allocated."""
    from ..algebra._operator import check_bytes

    if not isinstance(rec, dict):
        raise ValueError(f"the recorded kernel must be a record (a dict with its shape, dtype and SHA-256), "
                         f"got {type(rec).__name__}")
    unknown = sorted(set(map(str, rec)) - _KERNEL_KEYS)
    if unknown:
        raise ValueError(f"the recorded kernel has unknown fields {unknown[:5]} (known: {sorted(_KERNEL_KEYS)})")
    shape, dt = rec.get("shape"), rec.get("dtype")
    if (not isinstance(shape, list) or not 3 <= len(shape) <= 34
            or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s < 2**62 for s in shape)):
        raise ValueError(f"the recorded kernel's shape must be 3 to 34 positive integers (C_out, C_in / groups, "
                         f"k1, ...), got {repr(shape)[:120]}")
    if not isinstance(dt, str) or len(dt) > 16:
        raise ValueError(f"the recorded kernel's dtype must be a numeric dtype name, got {repr(dt)[:120]}")
    try:
        dtype = np.dtype(dt)
    except TypeError:
        raise ValueError(f"the recorded kernel's dtype must be a numeric dtype name, got {dt!r}") from None
    if dtype.kind not in "biufc" or dtype.itemsize > 16:
        raise ValueError(f"the recorded kernel's dtype must be numeric (bool, integer, float or complex), got {dt!r}")
    sha = rec.get("sha256")
    if not isinstance(sha, str) or len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise ValueError(f"the recorded kernel's sha256 must be 64 hexadecimal digits, got {repr(sha)[:120]}")
    if "path" in rec and (not isinstance(rec["path"], str) or len(rec["path"]) > 4096):
        raise ValueError(f"the recorded kernel's path must be a string, got {repr(rec['path'])[:120]}")
    n = math.prod(shape)
    check_bytes("rebuild: the recorded kernel", 2 * n * dtype.itemsize, f"{'x'.join(map(str, shape))} {dtype} values")
    return tuple(shape), dtype


def _nested_ok(values: Any, shape: tuple[int, ...], kind: str) -> bool:
    """Whether ``values`` are nested lists of exactly ``shape`` holding numbers of the dtype ``kind``
    (bools for ``"b"``; complex values: the strings ``str(complex)`` writes, at most 64 characters)."""
    if not shape:
        if isinstance(values, bool):
            return kind == "b"
        if isinstance(values, (int, float)):
            return True
        return kind == "c" and isinstance(values, str) and len(values) <= 64
    return (isinstance(values, list) and len(values) == shape[0]
            and all(_nested_ok(v, shape[1:], kind) for v in values))


def recorded_kernel(rec: Any, folder: Any, given: Any = None) -> np.ndarray:
    """The kernel a conv export's record names, for :func:`~isomat.export.rebuild`.

    ``given`` (a ``.npy`` path or an array, from the caller) is used when set, checked against the
    recorded shape, dtype and SHA-256. Otherwise the recorded values, when the record holds them
    (checked against the recorded shape and SHA-256), else the recorded path, which must resolve
    -- symlinks followed -- to a ``.npy`` inside ``folder`` (the export's own folder; ``None``:
    no file is opened) whose header declares the recorded shape and dtype before anything is
    read. Every failure of the path is one message, which does not tell a missing file from one
    outside the folder or one whose content differs."""
    import hashlib

    shape, dtype = _check_kernel_record(rec)
    sha = rec["sha256"]

    def digest(k: np.ndarray) -> str:
        return hashlib.sha256(np.ascontiguousarray(k).tobytes()).hexdigest()

    if given is not None:
        if isinstance(given, (str, Path)):
            k = _matrix_from_file(str(given), "kernel")
        elif isinstance(given, np.ndarray) and given.dtype.kind in "biufc":
            k = given
        else:
            raise TypeError(f"kernel must be a .npy path or a numeric NumPy array, got {type(given).__name__}")
        if k.shape != shape or k.dtype != dtype:
            raise ValueError(f"kernel has shape {k.shape} and dtype {k.dtype}; the export recorded {shape} {dtype}")
        if digest(k) != sha:
            raise ValueError("kernel holds other values than the export's kernel (its SHA-256 differs from the "
                             "recorded one)")
        return k
    if "values" in rec:
        values = rec["values"]
        if math.prod(shape) > KERNEL_VALUES_RECORDED or not _nested_ok(values, shape, dtype.kind):
            raise ValueError(f"the recorded kernel's values must be nested lists of its shape {shape} "
                             f"(at most {KERNEL_VALUES_RECORDED} numbers)")
        try:
            k = np.array(values, dtype=dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"the recorded kernel's values are not {dtype} numbers ({exc})") from None
        if digest(k) != sha:
            raise ValueError("the recorded kernel's values do not match its recorded SHA-256")
        return k
    raw = rec.get("path")
    if folder is None:
        raise ValueError("the export records its kernel by path only: rebuild the export file (its folder is where "
                         "the kernel is read from) or pass rebuild(..., kernel=FILE.npy or an array)")
    base = Path(folder).resolve()
    if not isinstance(raw, str) or not raw:
        raise _kernel_refused(raw, base)
    cand = Path(raw) if Path(raw).is_absolute() else base / raw
    try:
        where = cand.resolve(strict=True)
        if not where.is_relative_to(base) or where.suffix != ".npy" or not where.is_file():
            raise _kernel_refused(raw, base)
        with open(where, "rb") as fh:
            hdtype, hshape, fortran = npy_header(where, fh, "the kernel")
            if hshape != shape or hdtype.newbyteorder("=") != dtype.newbyteorder("=") or hdtype.kind not in "biufc":
                raise _kernel_refused(raw, base)
            k = read_into(where, fh, hdtype, hshape, fortran, "the kernel")
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop
        raise _kernel_refused(raw, base) from None
    if digest(k) != sha:
        raise _kernel_refused(raw, base)
    return k


def _render(value: Any) -> str | None:
    """The command-line text that gives a recorded (JSON) value back, or None when no text does."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if is_int(value):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        if all(is_int(v) for v in value):
            return ",".join(map(str, value))
        if all(isinstance(v, list) and v and all(is_int(w) for w in v) for v in value):
            return ",".join("x".join(map(str, v)) for v in value)  # --factors 2x3,4x4
    return None


def _same(parsed: Any, recorded: Any) -> bool:
    """Whether the option's parsed value is the recorded one (numbers by value, a float option's
    integer included; strings, sequences and bools by kind too)."""
    if isinstance(parsed, bool) or isinstance(recorded, bool):
        return parsed is recorded
    if isinstance(parsed, (int, float)) and isinstance(recorded, (int, float)):
        return parsed == recorded and (isinstance(parsed, float) or isinstance(recorded, int))
    if isinstance(parsed, (list, tuple)) and isinstance(recorded, (list, tuple)):
        return len(parsed) == len(recorded) and all(_same(a, b) for a, b in zip(parsed, recorded))
    return type(parsed) is type(recorded) and parsed == recorded


def recorded_options(fam: ExportFamily, params: Any) -> argparse.Namespace:
    """The options of an export's recorded ``parameters``, validated as the command line validates
    them, before anything is built (:func:`~isomat.export.rebuild`, issue 37 item 1).

    Only the family's own options are taken (its argparse destinations: a whitelist; any other name,
    ``"__class__"`` say, is refused). Each recorded value is turned back into the text the command
    line would have been given and parsed by the option's own type (``positive``, ``int_list``,
    ``_unit_interval``, ...) and choices -- the same ranges -- and the parsed value must be the
    recorded one (a string where a number was recorded is refused, not repeated a billion times).
    Flags must be bools; a conv kernel must be a record (checked by :func:`recorded_kernel`).
    Options the record leaves out take their defaults; a required one missing is refused."""
    if not isinstance(params, dict):
        raise ValueError(f"the recorded parameters must be an object (a dict), got {type(params).__name__}")
    parser = argparse.ArgumentParser(add_help=False)
    fam.add_options(parser)
    actions = {a.dest: a for a in parser._actions}
    values: dict[str, Any] = {dest: a.default for dest, a in actions.items()}
    for name, value in params.items():
        if name not in actions:
            raise ValueError(f"the recorded parameter {repr(name)[:80]} is not an option of `isomat export "
                             f"{fam.name}` (its options: {', '.join(sorted(actions))})")
        a = actions[name]
        flag = a.option_strings[0] if a.option_strings else name
        shown = repr(value)[:80]
        if fam.name == "conv" and name == "kernel":
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"the recorded {flag} must be a kernel record (a dict), got {type(value).__name__}")
            values[name] = value
            continue
        if a.nargs == 0:  # store_true flags
            if not isinstance(value, bool):
                raise ValueError(f"the recorded {flag} must be true or false, got {shown}")
            values[name] = value
            continue
        text = _render(value)
        if text is None:
            raise ValueError(f"the recorded {flag} must be what `isomat export {fam.name}` records (a number, a string "
                             f"or a list of integers), got {type(value).__name__} {shown}")
        try:
            parsed = a.type(text) if a.type is not None else text
        except (argparse.ArgumentTypeError, ValueError, TypeError, OverflowError) as exc:
            raise ValueError(f"the recorded {flag} {shown} is not a valid value: {exc}") from None
        if a.choices is not None and parsed not in a.choices:
            raise ValueError(f"the recorded {flag} must be one of {', '.join(map(str, a.choices))}, got {shown}")
        if not _same(parsed, value):
            raise ValueError(f"the recorded {flag} must be what `isomat export {fam.name}` records, got "
                             f"{type(value).__name__} {shown} (it parses as {repr(parsed)[:80]})")
        values[name] = parsed
    missing = [a.option_strings[0] for a in actions.values() if a.required and a.dest not in params]
    if missing:
        raise ValueError(f"the recorded parameters lack {', '.join(missing)}, which `isomat export {fam.name}` "
                         "requires")
    return argparse.Namespace(**values)


def _matrix_from_file(path: str, what: str) -> np.ndarray:
    p = Path(path)
    if p.suffix != ".npy":
        raise ValueError(f"{what} must be a .npy file, got {path!r}")
    if not p.is_file():
        raise ValueError(f"{what} {path!r}: no such file")
    try:  # the header's shape and dtype are checked against the memory bound before the values are read
        k = load_npy(p, what)
    except OSError as exc:
        raise ValueError(f"{what} {path!r} is not a readable .npy array ({exc})") from None
    if k.dtype.kind not in "biufc":
        raise ValueError(f"{what} {path!r} holds {k.dtype} values, not numbers")
    return k


# -- projection (cheng2025 eq. 22) ----------------------------------------------------------------
@family("projection", "cheng2025 projection Pi^m_n (eq. 22): n x m, rows sum to one")
class _Projection:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--m", type=positive, required=True, help="input dimension (columns)")
        p.add_argument("--n", type=positive, required=True, help="output dimension (rows)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.projection import projection_operator

        return projection_operator(args.m, args.n)


# -- kron ------------------------------------------------------------------------------------------
def _factor_shapes(text: str) -> list[tuple[int, ...]]:
    shapes = [int_list(f.replace("x", ",")) for f in text.split(",")]
    for shape in shapes:
        if len(shape) != 2 or min(shape) < 1:
            raise argparse.ArgumentTypeError(f"each factor is ROWSxCOLS with positive sizes, got {text!r}")
    return shapes


def _unit_interval(text: str) -> float:
    return _parsed(text, float, lambda v: 0.0 < v <= 1.0, "a number in (0, 1]")


@family("kron", "Kronecker product of random Gaussian factors")
class _Kron:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--factors", required=True, type=_factor_shapes,
                       help="factor shapes, e.g. 2x3,4x4 (each ROWSxCOLS)")
        p.add_argument("--density", type=_unit_interval, default=1.0,
                       help="fraction of nonzero factor entries (default 1)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.kron import kron_operator

        from ..algebra._operator import check_bytes, check_size

        # refused before drawing: the whole product (a single factor is the result), and each factor's
        # draw (its values, the uniform draw for the density, the mask and the masked product)
        shape = (math.prod(s[0] for s in args.factors), math.prod(s[1] for s in args.factors))
        check_size("isomat export kron", shape, int(math.prod(s[0] * s[1] for s in args.factors) * args.density))
        for s in args.factors:
            check_bytes("isomat export kron: the random factor", 25 * s[0] * s[1], f"{s[0]}x{s[1]} values, masked")
        factors = [normal(rng, s, f"factor {s}") * (rng.random(s) < args.density) for s in args.factors]
        return kron_operator(*factors)

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        # (F_1 (x) F_2) vec(X) = vec(F_1 X F_2^T) for row-major vec: X is q_1 x q_2, Y is p_1 x p_2
        return tuple(s[1] for s in args.factors), tuple(s[0] for s in args.factors)


# -- conv (zhu2025 §4.2.1) -------------------------------------------------------------------------
def _export_dtype(args: argparse.Namespace, values: Any) -> Any:
    """The narrower value dtype ``isomat export --dtype`` asks for when a family can build in it directly
    (float32 for real values, complex64 for complex ones), else None (float64 builds; no ``--dtype``, as
    in :func:`rebuild`; a dtype that would make real values complex, left to :func:`write` to refuse)."""
    want = getattr(args, "dtype", None)
    if want is None or not isinstance(values, np.ndarray) or values.dtype.kind not in "fc":
        return None
    dt = np.dtype(want)
    if values.dtype.kind == "f" and dt == np.float32:
        return dt
    if values.dtype.kind == "c" and dt == np.complex64:
        return dt
    return None


def _padding(text: str) -> Any:
    if text in ("same", "valid"):
        return text
    try:
        return int_or_tuple(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected an integer, a tuple like 1,2, 'same' or 'valid', got {text!r}") from None


def _random_kernel_shape(args: argparse.Namespace) -> tuple[int, ...]:
    """``(C_out, C_in / groups, k1, ..., kd)`` of the random kernel ``--kernel-size`` asks for."""
    shape = args.input_shape
    d = len(shape) - 1
    ks = args.kernel_size if isinstance(args.kernel_size, tuple) else (args.kernel_size,) * d
    if len(ks) != d:
        raise ValueError(f"--kernel-size needs {d} values for a {d}-d input, got {len(ks)}")
    if shape[0] % args.groups:
        raise ValueError(f"--groups {args.groups} must divide C_in = {shape[0]}")
    return (args.out_channels, shape[0] // args.groups, *ks)


@family("conv", "convolution layer matrix exactly as torch conv1d/2d/3d (cross-correlation, padding, stride, "
                 "dilation, groups): zhu2025 §4.2.1 generalized; the paper's printed W_conv is "
                 "isomat.algebra.zhu_conv_matrix")
class _Conv:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-shape", type=int_list, required=True, help="C_in,n1,...,nd, e.g. 1,28,28")
        p.add_argument("--kernel-size", type=int_or_tuple, default=None,
                       help="k or k1,...,kd (random Gaussian kernel; or give --kernel)")
        p.add_argument("--kernel", metavar="FILE.npy", default=None,
                       help="kernel array (C_out, C_in, k1, ..., kd) from a .npy file")
        p.add_argument("--out-channels", type=positive, default=1, help="C_out of a random kernel (default 1)")
        p.add_argument("--stride", type=int_or_tuple, default=1,
                       help="step of the window: s or s1,...,sd, as torch's stride (default 1)")
        p.add_argument("--padding", type=_padding, default=0, help="int, tuple, 'same' or 'valid'")
        p.add_argument("--dilation", type=int_or_tuple, default=1,
                       help="spacing of the kernel taps: d or d1,...,dd, as torch's dilation (default 1)")
        p.add_argument("--boundary", choices=["zero", "zeros", "circular", "reflect", "replicate"], default="zero",
                       help="value read outside the input, as torch's padding_mode (zeros, circular, reflect, replicate)")
        p.add_argument("--groups", type=positive, default=1,
                       help="channel groups as torch (a random kernel then has C_in/groups input channels)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.conv import conv_matrix

        shape = args.input_shape
        if len(shape) < 2:
            raise ValueError(f"--input-shape must be C_in,n1,...,nd with at least one spatial axis, got {shape}")
        if args.kernel is not None:
            if args.kernel_size is not None:
                raise ValueError("give either --kernel or --kernel-size, not both")
            kernel = _kernel_input(args.kernel)
        else:
            if args.kernel_size is None:
                raise ValueError("--kernel-size (or --kernel FILE.npy) is required")
            kernel = normal(rng, _random_kernel_shape(args), "kernel")
        narrow = _export_dtype(args, kernel)
        if narrow is not None and args.boundary in ("zero", "zeros"):
            # built in the written dtype (issue 29): a float32 export never holds the float64 matrix. With
            # zero padding every stored entry is one kernel tap (no two taps share a (row, column)), so the
            # values are the float64 matrix's rounded once, exactly what write(dtype=...) would give.
            # Other boundaries sum taps that land on one input: those stay float64 and are rounded after.
            kernel = kernel.astype(narrow)
        # CSR directly: the NumPy CSR path fills the arrays in place, without COO staging
        return conv_matrix(shape, kernel, stride=args.stride, padding=args.padding, dilation=args.dilation,
                           boundary=args.boundary, groups=args.groups, format="csr")

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        from ..algebra.conv import conv_output_shape

        if isinstance(args.kernel, np.ndarray):
            kshape = args.kernel.shape
        elif isinstance(args.kernel, dict):
            kshape = tuple(args.kernel["shape"])
        elif args.kernel is not None:
            kshape = np.load(args.kernel, mmap_mode="r", allow_pickle=False).shape
        else:
            kshape = _random_kernel_shape(args)
        out = conv_output_shape(args.input_shape, kshape, stride=args.stride, padding=args.padding,
                                dilation=args.dilation, groups=args.groups)
        return tuple(args.input_shape), (tuple(out) if len(out) == len(args.input_shape) else (1, *out))

    @staticmethod
    def describe(args: argparse.Namespace) -> dict[str, Any]:
        # a kernel file: its real output channels (not --out-channels' default) and its content
        if args.kernel is None or isinstance(args.kernel, dict):
            return {}
        out = getattr(args, "output", None)  # the export's folder: the kernel's path is recorded relative to it
        rec = _kernel_record(args.kernel, Path(out).parent if isinstance(out, (str, Path)) else None)
        return {"kernel": rec, "out_channels": rec["shape"][0]}


# -- pool (zhu2025 §4.2.2) -------------------------------------------------------------------------
@family("pool", "average-pooling layer matrix exactly as torch avg_pool1d/2d/3d: zhu2025 §4.2.2 generalized; the "
                 "paper's printed W_pool is isomat.algebra.zhu_pool_matrix")
class _Pool:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-shape", type=int_list, required=True, help="C,n1,...,nd, e.g. 1,28,28")
        p.add_argument("--kernel-size", type=int_or_tuple, required=True, help="window k or k1,...,kd")
        p.add_argument("--stride", type=int_or_tuple, default=None,
                       help="step between windows, s or s1,...,sd, as torch's stride (default: the window)")
        p.add_argument("--padding", type=int_or_tuple, default=0, help="zeros added on each side: p or p1,...,pd")
        p.add_argument("--exclude-pad", action="store_true", help="count_include_pad=False")
        p.add_argument("--ceil-mode", action="store_true", help="round the output size up (torch's ceil_mode)")
        p.add_argument("--divisor-override", type=positive, default=None, help="divide every window sum by this")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.pool import avgpool_matrix

        shape = args.input_shape
        if len(shape) < 2:
            raise ValueError(f"--input-shape must be C,n1,...,nd with at least one spatial axis, got {shape}")
        return avgpool_matrix(shape, args.kernel_size, stride=args.stride, padding=args.padding,
                              ceil_mode=args.ceil_mode, count_include_pad=not args.exclude_pad,
                              divisor_override=args.divisor_override, ndim=len(shape) - 1, format="csr")

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        from ..algebra.pool import pool_output_shape

        out = pool_output_shape(args.input_shape, args.kernel_size, stride=args.stride, padding=args.padding,
                                ceil_mode=args.ceil_mode, ndim=len(args.input_shape) - 1)
        return tuple(args.input_shape), tuple(out)


# -- rnn (zhu2025 App. A.2) ------------------------------------------------------------------------
@family("rnn", "zhu2025 unrolled linear RNN matrix W_RNN (h_t = U x_t + V h_(t-1)), random U, V")
class _Rnn:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-size", type=positive, required=True, help="N (size of x_t)")
        p.add_argument("--hidden-size", type=positive, required=True, help="M (size of h_t)")
        p.add_argument("--steps", type=positive, required=True, help="T (sequence length)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.rnn import rnn_matrix

        M, N = args.hidden_size, args.input_size
        U = normal(rng, (M, N), "U") / np.sqrt(N)
        V = normal(rng, (M, M), "V") / np.sqrt(M)
        return rnn_matrix(U, V, args.steps, format="csr")

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        # block (t, s) of the matrix maps x_s to h_t: rows (t, m), columns (s, n), row-major
        return (args.steps, args.input_size), (args.steps, args.hidden_size)


# -- attention (zhu2025 §4.2.4) --------------------------------------------------------------------
@family("attention", "zhu2025 linear self-attention matrix (vec Z = W (x kron x kron x)), random Wq, Wk, Wv")
class _Attention:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tokens", type=positive, required=True, help="T (sequence length)")
        p.add_argument("--dim", type=positive, required=True, help="d (token dimension)")
        p.add_argument("--dim-k", type=positive, default=None, help="d_k (default d)")
        p.add_argument("--dim-v", type=positive, default=None, help="d_v (default d)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.attention import linear_attention_matrix

        d, dk, dv = args.dim, args.dim_k or args.dim, args.dim_v or args.dim
        return linear_attention_matrix(args.tokens, normal(rng, (d, dk), "Wq"), normal(rng, (d, dk), "Wk"),
                                       normal(rng, (d, dv), "Wv"), format="csr")

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        # vec Z of the (T, d_v) output from x (x) x (x) x, x = vec X of the (T, d) tokens
        T, d = args.tokens, args.dim
        return (T, d, T, d, T, d), (T, args.dim_v or d)


# -- stp, dk_stp (cheng2025 Def. 2.5, Def. 2.4) ----------------------------------------------------
def _stp_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--a-shape", type=int_list, required=True, help="ROWS,COLS of the random A")
    p.add_argument("--b-shape", type=int_list, required=True, help="ROWS,COLS of the random B")


def _stp_operands(args: argparse.Namespace, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    for opt, s in (("--a-shape", args.a_shape), ("--b-shape", args.b_shape)):
        if len(s) != 2 or min(s) < 1:
            raise ValueError(f"{opt} must be ROWS,COLS with positive sizes, got {','.join(map(str, s))}")
    return normal(rng, args.a_shape, "A"), normal(rng, args.b_shape, "B")


def _stp_family(name: str, help: str, product: str) -> type:
    """Register the kind ``name``: the STP ``product`` (a function of isomat.algebra.stp) of random A, B."""

    @family(name, help)
    class _Product:
        options = staticmethod(_stp_options)

        @staticmethod
        def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
            from ..algebra.stp import dk_stp, stp

            return {"stp": stp, "dk_stp": dk_stp}[product](*_stp_operands(args, rng))

    return _Product


_Stp = _stp_family("stp", "cheng2025 left semi-tensor product A |x B of random A, B (Def. 2.5, eq. 12)", "stp")
_DkStp = _stp_family("dk_stp", "cheng2025 dimension-keeping STP of random A, B (Def. 2.4, with the bridge matrix)",
                     "dk_stp")


# -- matrix_layer (do2017 eqs. 2-3) ----------------------------------------------------------------
@family("matrix_layer", "do2017 matrix layer vec(U^T P V + B) = W vec(P) + vec(B), random U, V, B")
class _MatrixLayer:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--in-shape", type=int_list, required=True, help="m,n of the input P")
        p.add_argument("--out-shape", type=int_list, required=True, help="p,q of the output Y")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.matrix_layer import matrix_layer

        for opt, s in (("--in-shape", args.in_shape), ("--out-shape", args.out_shape)):
            if len(s) != 2:
                raise ValueError(f"{opt} must be ROWS,COLS, got {','.join(map(str, s))}")
        (m, n), (p, q) = args.in_shape, args.out_shape
        U, V = normal(rng, (m, p), "U"), normal(rng, (n, q), "V")
        # row-major; --order F (the output option) renumbers it into do2017's column-major vec
        return matrix_layer(U, V, order="C", format="csr").weight

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return tuple(args.in_shape), tuple(args.out_shape)


# -- graph (do2017 §3, app. B) ---------------------------------------------------------------------
_GRAPH_OPERATORS = ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency", "laplacian")


def _probability(text: str) -> float:
    v = _parsed(text, float, lambda v: 0.0 <= v <= 1.0, "a probability in [0, 1]")
    if 0.0 < v and 1.0 - v == 1.0:  # networkx's sampler divides by log(1 - p) = 0 (ZeroDivisionError)
        raise argparse.ArgumentTypeError(f"expected 0 or a probability of at least 1.2e-16 (1 - p must differ "
                                         f"from 1 in float64), got {text!r}")
    return v


@family("graph", "do2017 graph operators of a random G(n, p) graph (adjacency, normalizations, Laplacian)")
class _Graph:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--nodes", type=positive, required=True, help="number of nodes")
        p.add_argument("--p", type=_probability, default=0.1, help="edge probability (default 0.1)")
        p.add_argument("--operator", choices=_GRAPH_OPERATORS, default="adjacency")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        import networkx as nx

        from ..algebra import graph

        from ..algebra._operator import check_bytes

        # a networkx graph costs a few hundred bytes a node and an edge; fast_gnp samples the edges in
        # O(n + m) where gnp_random_graph visits all n^2 / 2 pairs
        edges = args.nodes + args.p * args.nodes * (args.nodes - 1) / 2
        check_bytes("isomat export graph", int(300 * (args.nodes + edges)),
                    f"a networkx G({args.nodes}, {args.p}) graph with ~{int(edges)} edges")
        G = nx.fast_gnp_random_graph(args.nodes, args.p, seed=int(rng.integers(2**31)))
        G.add_edges_from((i, i + 1) for i in range(args.nodes - 1))  # a path keeps every node connected
        return getattr(graph, args.operator)(G, format="csr")


# -- ndlinear (reneau2025 Alg. 1) ------------------------------------------------------------------
@family("ndlinear", "reneau2025 NdLinear layer as one Kronecker operator, random factor weights")
class _NdLinear:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--input-dims", type=int_list, required=True, help="D1,...,DN")
        p.add_argument("--hidden-dims", type=int_list, required=True, help="H1,...,HN (same count)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.ndlinear import ndlinear_matrix

        if len(args.input_dims) != len(args.hidden_dims):
            raise ValueError(f"--hidden-dims needs {len(args.input_dims)} values (one per input dim), "
                             f"got {len(args.hidden_dims)}")
        weights = [normal(rng, (h, d), f"W_{k + 1}") / np.sqrt(d)
                   for k, (d, h) in enumerate(zip(args.input_dims, args.hidden_dims))]
        # W_1 (x) ... (x) W_N for either mode order (the order changes only the bias, not written)
        return ndlinear_matrix(weights, format="csr")[0]

    @staticmethod
    def shapes(args: argparse.Namespace, shape: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return tuple(args.input_dims), tuple(args.hidden_dims)


# -- spm (farag2025 eq. 1) -------------------------------------------------------------------------
@family("spm", "farag2025 stagewise pairwise mixer: the layer's n x n matrix (random rotations)")
class _Spm:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--n", type=positive, required=True, help="dimension")
        p.add_argument("--stages", type=positive, default=None, help="L (default ceil(log2 n))")
        p.add_argument("--variant", choices=["rotation", "general"], default="rotation")
        p.add_argument("--schedule", choices=["butterfly", "random"], default="butterfly")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.spm import layer_matrix, random_spm

        layer = random_spm(args.n, args.stages, variant=args.variant, schedule=args.schedule,
                           seed=int(rng.integers(2**31)))
        return layer_matrix(layer, format="csr")


# -- hyper (cheng2025 eqs. 76-82) ------------------------------------------------------------------
@family("hyper", "cheng2025 diamond product X -> A <> X on hypervector addition forms, random s x s A")
class _Hyper:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dims", type=int_list, required=True, help="n_1,...,n_s (dimensions of the components)")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.hyper import diamond_matrix

        s = len(args.dims)
        return diamond_matrix(normal(rng, (s, s), "A"), args.dims, format="csr")


# -- logic (cheng2025 §2, logical matrices) --------------------------------------------------------
@family("logic", "cheng2025 logical matrix delta_k[i_1, ..., i_r] (column j is delta_k^(i_j))")
class _Logic:
    @staticmethod
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--indices", type=int_list, default=None, help="i_1,...,i_r in 1..k (default: random, r = k)")
        p.add_argument("--k", type=positive, required=True, help="number of logical values")

    @staticmethod
    def build(args: argparse.Namespace, rng: np.random.Generator) -> Any:
        from ..algebra.logic import logical_matrix

        if args.indices is None:
            from ..algebra._operator import check_bytes

            from ..algebra._operator import check_size

            # the k x k result, refused before the k indices are drawn (a tuple of k Python ints took
            # 1.2 GB at k = 2e7); the indices stay one int64 array
            check_bytes("isomat export logic: the random indices", 8 * args.k, f"{args.k} indices (one per column)")
            check_size("isomat export logic", (args.k, args.k), args.k)
        idx = args.indices if args.indices is not None else rng.integers(1, args.k + 1, args.k)
        return logical_matrix(idx if args.indices is None else list(idx), args.k, format="csr")


# ---------------------------------------------------------------------------------------------
# an export made again from its metadata
# ---------------------------------------------------------------------------------------------
def rebuild(source: Any, *, kernel: Any = None) -> sp.csr_array:
    """The operator an ``isomat export`` file holds, made again from its metadata.

    ``source`` is the file (any format) or its :func:`read_metadata` dict. The family (``kind``) is
    built again from the recorded ``parameters``, drawing its random values from
    ``numpy.random.default_rng(seed)`` in the same order as the command line did -- so a random
    kernel is reproducible from the recorded ``seed`` -- and a kernel given as a file comes from
    the recorded values (small kernels), from ``kernel``, or from the recorded path.
    The result is the row-major (``order="C"``) float64 matrix, whatever order the file was written in.

    A file is untrusted input: every recorded option is checked with the command line's own
    types and ranges before anything is built (only the family's options; others are refused,
    :func:`recorded_options`), and a recorded kernel path is read only
    from inside the export file's own folder (symlinks followed), as a ``.npy`` of the recorded
    shape, dtype and SHA-256 -- one message for every way it can fail, so that a crafted file
    cannot probe the machine's files (issue 37 items 1-2).

    Parameters
    ----------
    source : str, Path or dict
        An ``isomat export`` file, or its metadata (then a kernel recorded by path needs ``kernel``).
    kernel : str, Path or numpy.ndarray, optional
        The conv kernel (a ``.npy`` anywhere, or an array), checked against the recorded shape,
        dtype and SHA-256; for an export whose kernel file is not beside it.
    """
    folder = None
    if isinstance(source, (str, Path)):
        try:
            meta = read_metadata(source)
        except ValueError as exc:  # the reader names its own argument ("path"): say it of ours
            raise ValueError(f"source: {' '.join(str(exc).split())}") from None
        folder = Path(source).parent
    else:
        meta = source
    if not isinstance(meta, dict):
        raise TypeError(f"source must be an `isomat export` file or its metadata dict, got {type(source).__name__}")
    from ..errors import SizeLimitError

    def of_file(exc: ValueError) -> ValueError:  # a refused record names its file (one line)
        return exc if folder is None else ValueError(f"source {str(source)!r}: {exc}")

    try:
        if "kind" not in meta or not isinstance(meta.get("parameters"), dict):
            raise ValueError("source must be an `isomat export` file or its metadata (with 'kind' and 'parameters'), "
                             f"got one with the keys {sorted(map(str, meta))[:20]}")
        kind = meta["kind"]
        if not isinstance(kind, str) or kind not in FAMILIES:
            raise ValueError(f"unknown export kind {repr(kind)[:80]} (known: {', '.join(sorted(FAMILIES))})")
        fam = FAMILIES[kind]
        args = recorded_options(fam, meta["parameters"])
        seed = meta.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**128:
            raise ValueError(f"the recorded seed must be a non-negative integer, got {repr(seed)[:80]}")
    except SizeLimitError:
        raise
    except ValueError as exc:
        raise of_file(exc) from None
    if getattr(args, "kernel", None) is not None:
        try:
            args.kernel = recorded_kernel(args.kernel, folder, kernel)
        except SizeLimitError:
            raise
        except ValueError as exc:
            if kernel is not None:  # about the caller's own kernel
                raise
            raise of_file(exc) from None
    elif kernel is not None:
        raise ValueError(f"kernel: this {kind} export records no kernel file (its values come from the recorded "
                         "options and seed)")
    return to_scipy(fam.build(args, np.random.default_rng(seed)), "csr")
