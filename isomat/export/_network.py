"""Writing whole networks (:func:`isomat.write_network`): affine segments plus a manifest.

A network without nonlinearities is one affine map and is written as one file ``(W, b)``, like
any operator. A network with nonlinearities is written as its affine segments (one file per
segment weight, in any of :func:`isomat.write`'s formats, each with its metadata) and a
JSON manifest ``<stem>.<format>.network.json`` saying how they chain: the nodes in order, the
input each reads, the nonlinearity between segments with its parameters, and every tensor shape.
:func:`read_network` reads one back (validated as untrusted input). It writes and reads through the format-blind
:mod:`~isomat.export._io` (never through the package namespace, so no import runs in a circle);
like the formats it needs no torch -- it reads and
builds a :class:`~isomat.torch.network.Network`, whose data are NumPy and SciPy.

The manifest's format is documented field by field in ``docs/guide/networks.md``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__, _validate
from . import _atomic
from ._base import FORMATS, SUFFIXES, write_target
from ._checks import fail, json_depth_ok
from ._io import read, read_bias, read_metadata, write

MANIFEST_SUFFIX = ".network.json"
#: the manifest layout this module writes and reads (``"isomat_manifest"``)
MANIFEST_VERSION = 1


def manifest_name(stem: str, fmt: str) -> str:
    """``<stem>.<format>.network.json``: one model exported in several formats keeps one manifest per format."""
    return f"{stem}.{fmt}{MANIFEST_SUFFIX}"


def _segment_name(stem: str, seg: str, k_suffix: str, fmt: str, suffix: str) -> str:
    # jax and npz share the suffix .npz: a jax export's segments say so in their names, so the
    # two exports of one model do not overwrite each other's segment files
    return f"{stem}.{seg}{k_suffix}{'.jax' if fmt == 'jax' else ''}{suffix}"


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return [float(x) for x in v.reshape(-1)]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if np.isfinite(f) else ("inf" if f > 0 else "-inf")
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    return v


def write_network(network: Any, path: Any, format: str | None = None, *, order: str = "C", dtype: Any = None,
                  metadata: dict[str, Any] | None = None, overwrite: bool = True) -> list[Path]:
    """Write a whole network (:func:`isomat.torch.from_model`) through :func:`~isomat.export.write`'s formats.

    An affine network (no nonlinearity) is one file holding its composed ``(W, b)`` (its
    :meth:`~isomat.torch.network.Network.affine_segments`), with the model's input and output
    tensor shapes in its metadata; ``order="F"`` works as for :func:`~isomat.export.write`. A
    network with nonlinearities is written as one file per affine segment weight, each with its
    metadata, plus ``<stem>.<format>.network.json``: the nodes in order (segments with their files
    and inputs, activations with their parameters, max pools with their windows) and every tensor
    shape.

    Each file holds its ``W`` and ``b`` in :func:`~isomat.export.write`'s one layout; ``dtype``
    (default: float64, the traced network's own; ``isomat export model`` defaults to the model's)
    converts the values.

    Returns the paths written: ``[path]`` for an affine network (its one ``(W, b)``), else the
    segment files ``<stem>.<segment>[.<k>]<suffix>`` (``<stem>.<segment>[.<k>].jax.npz`` for
    ``jax``) and, last, the manifest ``<stem>.<format>.network.json``. With ``overwrite=True``,
    the files an earlier manifest of the same name listed (beside it) and this export does not
    write again are removed, so a replaced export leaves no stale segments.
    """
    from ..torch.network import ActivationNode, AffineNode, InputNode, MaxPoolNode, Network

    if not isinstance(network, Network):
        raise TypeError(f"network must be an isomat.torch Network (from_model), got {type(network).__name__}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict (JSON-serializable), got {type(metadata).__name__}")
    order = _validate.choice("order", order, ("C", "F"))
    overwrite = _validate.boolean("overwrite", overwrite)
    p, fmt = write_target(path, format, overwrite=overwrite)
    base = {"isomat_version": __version__, "kind": "model", "network": network.name,
            "model_input_shape": list(network.input_shape), "model_output_shape": list(network.output_shape),
            **(metadata or {})}
    segments = network.affine_segments()
    if network.is_affine and len(segments) == 1 and len(segments[0].inputs) == 1:
        seg = segments[0]
        b = seg.bias if seg.bias is not None else np.zeros(seg.W.shape[0])
        meta = {**base, "segment": seg.name, "layers": list(seg.nodes)}
        out = write((seg.W, b), p, fmt, metadata=meta, dtype=dtype, order=order, input_shape=seg.input_shape,
                           output_shape=network.output_shape, overwrite=overwrite,
                           comment=f" isomat {__version__} network {network.name}")
        stem = p.name[: -len(p.suffix)] if p.suffix else p.name
        old_manifest = p.with_name(manifest_name(stem, fmt))
        if overwrite and old_manifest.is_file() and not old_manifest.is_symlink():
            # this export replaces a network export of the same name: its segments and manifest go
            for old in _listed_files(old_manifest):
                if old != out:
                    old.unlink(missing_ok=True)
            old_manifest.unlink(missing_ok=True)
        return [out]
    if order != "C":
        raise ValueError("order='F' applies to one affine map; a network with nonlinearities is written row-major "
                         "(order='C'), its manifest giving every tensor shape")
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    manifest_path = p.with_name(manifest_name(stem, fmt))
    _atomic.check_target(manifest_path, overwrite=overwrite)
    stale = _listed_files(manifest_path) if overwrite else []
    seg_by_name = {s.name: s for s in segments}
    absorbed = {n for s in segments for n in s.nodes if n != s.name}
    written: list[Path] = []
    nodes: list[dict[str, Any]] = []
    for node in network.nodes.values():
        if node.name in absorbed:
            continue
        shape = network.output_shape if node.name == network.output else node.shape
        if isinstance(node, InputNode):
            nodes.append({"name": node.name, "type": "input", "shape": list(node.shape)})
        elif isinstance(node, AffineNode):
            seg = seg_by_name[node.name]
            files = []
            for k, (W, src, in_shape) in enumerate(zip(seg.weights, seg.inputs, seg.input_shapes)):
                suffix = "" if len(seg.weights) == 1 else f".{k}"
                fp = p.with_name(_segment_name(stem, seg.name, suffix, fmt, p.suffix))
                b = seg.bias if (k == 0 and seg.bias is not None) else np.zeros(W.shape[0])
                meta = {**base, "segment": seg.name, "input": src, "layers": list(seg.nodes)}
                written.append(write((W, b), fp, fmt, metadata=meta, dtype=dtype, input_shape=in_shape,
                                            output_shape=shape, overwrite=overwrite,
                                            comment=f" isomat {__version__} network {network.name} segment {seg.name}"))
                files.append({"file": fp.name, "input": src, "input_shape": list(in_shape), "bias": k == 0})
            nodes.append({"name": node.name, "type": "affine", "inputs": list(seg.inputs), "shape": list(shape),
                          "layers": list(seg.nodes), "weights": files, "source": node.source})
        elif isinstance(node, ActivationNode):
            nodes.append({"name": node.name, "type": "activation", "input": node.input, "shape": list(shape),
                          "fn": node.fn, "params": {k: _jsonable(v) for k, v in node.params.items() if k != "weight_name"},
                          "source": node.source})
        elif isinstance(node, MaxPoolNode):
            nodes.append({"name": node.name, "type": "maxpool", "input": node.input, "input_shape": list(node.input_shape),
                          "shape": list(shape), "ndim": node.ndim, "window": list(node.window),
                          "stride": list(node.stride), "padding": list(node.padding), "dilation": list(node.dilation),
                          "ceil_mode": node.ceil_mode, "adaptive": None if node.adaptive is None else list(node.adaptive),
                          "ties": getattr(node, "ties", "first"), "source": node.source})
    manifest = {**base, "isomat_manifest": MANIFEST_VERSION, "format": fmt, "order": "C",
                "convention": "y = W x + b on one sample, row-major flattening",
                "input": network.input_name, "output": network.output, "nodes": nodes}
    _atomic.write_text(manifest_path, json.dumps(manifest, indent=1, allow_nan=False) + "\n", what="path")
    written.append(manifest_path)
    keep = {w.name for w in written}
    for old in stale:  # the replaced export's files that this one did not write again
        if old.name not in keep:
            try:
                old.unlink()
            except FileNotFoundError:  # pragma: no cover - removed meanwhile
                pass
    return written


def _listed_files(manifest_path: Path) -> list[Path]:
    """The segment files an existing manifest lists that lie beside it (plain names, regular files,
    no symlinks): what ``--force`` may remove. An unreadable or foreign manifest lists none."""
    if not manifest_path.is_file() or manifest_path.is_symlink():
        return []
    try:
        if manifest_path.stat().st_size > _MAX_MANIFEST_CHARS:
            return []
        man = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    out: list[Path] = []
    nodes = man.get("nodes") if isinstance(man, dict) else None
    for node in nodes if isinstance(nodes, list) else []:
        weights = node.get("weights") if isinstance(node, dict) else None
        for w in weights if isinstance(weights, list) else []:
            name = w.get("file") if isinstance(w, dict) else None
            if isinstance(name, str) and _plain_name(name):
                f = manifest_path.parent / name
                if f.is_file() and not f.is_symlink():
                    out.append(f)
    return out


def _plain_name(name: str) -> bool:
    """A file name with no directory part: not absolute, no separator, not ``.``/``..``, no NUL."""
    return (bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name
            and Path(name).name == name and not Path(name).is_absolute())


# ---------------------------------------------------------------------------------------------
# reading a network back
# ---------------------------------------------------------------------------------------------
#: the largest manifest read (a model's manifest is a few KiB; a PReLU's slopes make it longer)
_MAX_MANIFEST_CHARS = 64 << 20
_NODE_TYPES = ("input", "affine", "activation", "maxpool")
_NO_PARAMS = ("relu", "abs", "tanh", "sigmoid", "silu", "detach")


class _Manifest:
    """Type checks of one manifest's fields, each failure a one-line ValueError naming the file and field."""

    def __init__(self, p: Path) -> None:
        self.p = p

    def fail(self, field: str, why: str) -> ValueError:

        return fail(self.p, f"manifest field {field}: {why}")

    def get(self, d: dict[str, Any], key: str, field: str) -> Any:
        if key not in d:
            raise self.fail(field + ("." if field else "") + key, "is missing")
        return d[key]

    def string(self, v: Any, field: str) -> str:
        if not isinstance(v, str) or not v or len(v) > 4096:
            raise self.fail(field, f"must be a non-empty string (at most 4096 characters), got {_short(v)}")
        return v

    def boolean(self, v: Any, field: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(field, f"must be true or false, got {_short(v)}")
        return v

    def ints(self, v: Any, field: str, *, minimum: int, length: int | None = None, max_len: int = 8) -> tuple[int, ...]:
        if (not isinstance(v, list) or len(v) > max_len or (length is not None and len(v) != length)
                or not all(isinstance(k, int) and not isinstance(k, bool) and minimum <= k < 2**62 for k in v)):
            n = f"{length}" if length is not None else f"at most {max_len}"
            raise self.fail(field, f"must be a list of {n} integers >= {minimum}, got {_short(v)}")
        return tuple(int(k) for k in v)

    def shape(self, v: Any, field: str) -> tuple[int, ...]:
        from ..algebra._operator import check_bytes

        s = self.ints(v, field, minimum=1)
        n = math.prod(s)
        if n >= 2**62:
            raise self.fail(field, f"declares {n} entries")
        check_bytes(f"{str(self.p)!r}: manifest field {field}", 8 * n, f"a value of shape {list(s)}")
        return s

    def number(self, v: Any, field: str, *, infinite: bool = False) -> float:
        if infinite and v in ("inf", "-inf"):
            return math.inf if v == "inf" else -math.inf
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(float(v)):
            extra = " or the string 'inf'/'-inf'" if infinite else ""
            raise self.fail(field, f"must be a finite number{extra}, got {_short(v)}")
        return float(v)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _network_module() -> Any:
    """:mod:`isomat.torch.network` -- torch-free itself; where torch is missing (the package
    ``isomat.torch`` then refuses to import), the same source file is loaded under a private
    package name, so reading a network needs torch only for ``as_module=True``."""
    try:
        from ..torch import network

        return network
    except ImportError:
        import importlib
        import sys
        import types

        name = "isomat._torchfree_network"
        if name not in sys.modules:
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(Path(__file__).resolve().parent.parent / "torch")]  # type: ignore[attr-defined]
            pkg.__package__ = name
            sys.modules[name] = pkg
        return importlib.import_module(name + ".network")


def _selection_module(net_mod: Any) -> Any:
    """:mod:`isomat.torch._selection` beside the network module in use (torch-free, like it)."""
    import importlib

    return importlib.import_module(net_mod.__name__.rsplit(".", 1)[0] + "._selection")


def read_network(path: Any, *, as_module: bool = False, dtype: Any = None) -> Any:
    """A network written by :func:`isomat.write_network`, read back.

    Parameters
    ----------
    path : str or Path
        The manifest ``<stem>.<format>.network.json`` of a network with nonlinearities, or the one
        file of an affine network's export (its metadata ``kind`` is ``"model"``, its order ``C``).
        Untrusted input: every manifest field is type-checked, segment files must be plain names
        of regular files beside the manifest (no directory part, no ``..``, no symbolic link),
        and each is read by :func:`isomat.read` / :func:`~isomat.read_bias`, which
        check the declared sizes against the memory bound before allocating. Each refusal is a
        one-line ``ValueError`` naming the file and the field.
    as_module : bool
        ``False`` (default): an :class:`isomat.torch.Network` (float64; no torch needed -- without
        torch, the same class loaded from its torch-free module). ``True``: a torch module
        (:class:`isomat.torch.SparseModel` without a source model: each affine segment a
        :class:`~isomat.torch.SparseAffine` holding the file's ``W`` and ``b``, the nonlinearities
        torch's own functions) computing the network on batches ``(N, *input_shape)``.
    dtype : torch.dtype, optional
        The module's dtype (``as_module=True``; default ``torch.float64``).

    Returns
    -------
    Network or SparseModel
        Its ``forward`` equals the exported network's :meth:`~isomat.torch.Network.collapsed`
        forward (the same float64 matrices; a ``dtype="float32"`` export to float32 rounding).
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    as_module = _validate.boolean("as_module", as_module)
    p = Path(path)
    if not p.name.endswith(MANIFEST_SUFFIX) and p.suffix not in (".mtx", ".npz", ".pt", ".mat"):
        raise ValueError(f"path must be a <stem>.<format>{MANIFEST_SUFFIX} manifest or an affine network's one file "
                         f"(.mtx, .npz, .pt, .mat), got {str(p)!r}")
    if not p.exists():
        raise ValueError(f"path {str(p)!r}: no such file")
    net_mod = _network_module()
    if p.name.endswith(MANIFEST_SUFFIX):
        network = _read_manifest(p, net_mod)
    else:
        network = _read_affine_file(p, net_mod)
    if not as_module:
        if dtype is not None:
            raise ValueError("dtype applies to as_module=True (the torch module's dtype); a Network is float64")
        return network
    try:
        import torch
    except ImportError as exc:
        raise ImportError(f"read_network(as_module=True) needs PyTorch: pip install 'isomat[torch]' ({exc})") from None
    from torch import nn

    from ..torch.sparse_model import SparseModel

    if dtype is None:
        dtype = torch.float64
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    # no source model: every affine node is a SparseAffine holding the file's W and b as its values
    return SparseModel(network, nn.Module(), dtype)


def _read_affine_file(p: Path, net_mod: Any) -> Any:
    """A one-file export (an affine model's composed ``(W, b)``) as a two-node network."""

    meta = read_metadata(p)
    m = _Manifest(p)
    if meta.get("kind") != "model":
        raise fail(p, f"is not a network export (metadata kind {meta.get('kind')!r}, expected 'model'); a "
                               f"network with nonlinearities is read from its <stem>.<format>{MANIFEST_SUFFIX} manifest")
    if meta.get("order") != "row-major (C) flattening of input and output":
        raise fail(p, f"was written with order {meta.get('order')!r}; read_network reads row-major (order='C') exports")
    in_shape = m.shape(meta.get("input_shape"), "input_shape")
    out_shape = m.shape(meta.get("output_shape"), "output_shape")
    W, b = _weight(p, in_shape, out_shape, True, "the file")
    name = meta.get("network") if isinstance(meta.get("network"), str) else "network"
    seg = meta.get("segment") if isinstance(meta.get("segment"), str) and meta.get("segment") != "input" else "affine"
    nodes = [net_mod.InputNode("input", in_shape),
             net_mod.AffineNode(seg, ("input",), (in_shape,), (W,), b, out_shape, f"file {p.name}", kind="segment")]
    return net_mod.Network(nodes, seg, out_shape, name=name)


def _weight(f: Path, in_shape: tuple[int, ...], out_shape: tuple[int, ...], with_bias: bool,
            field: str) -> tuple[Any, Any]:
    """One segment file's ``W`` (and bias), read by export's validating readers, shapes checked."""
    import scipy.sparse as sp

    W = read(f)
    want = (math.prod(out_shape), math.prod(in_shape))
    if W.shape != want:
        raise fail(f, f"holds a {W.shape[0]}x{W.shape[1]} matrix; {field} declares {want[0]}x{want[1]} "
                               f"(output shape {list(out_shape)}, input shape {list(in_shape)})")
    if W.dtype.kind not in "f":
        raise fail(f, f"holds {W.dtype} values; a network's maps are real")
    W = sp.csr_array(W, dtype=np.float64)
    W.sum_duplicates()
    W.sort_indices()
    b = read_bias(f)
    if with_bias:
        if b is None:
            raise fail(f, f"has no bias; {field} says it holds one")
        if np.iscomplexobj(b) or b.shape != (want[0],):
            raise fail(f, f"its bias must be {want[0]} real values, got {b.dtype} of shape {b.shape}")
        b = np.asarray(b, dtype=np.float64)
        if not np.all(np.isfinite(b)):
            raise fail(f, "its bias holds a non-finite value")
    else:
        b = None  # the write stores zeros for a weight without the bias
    if not np.all(np.isfinite(W.data)):
        raise fail(f, "its matrix holds a non-finite value")
    return W, b


def _read_manifest(p: Path, net_mod: Any) -> Any:

    m = _Manifest(p)
    if not p.is_file():
        raise fail(p, "is not a regular file")
    size = p.stat().st_size
    if size > _MAX_MANIFEST_CHARS:
        raise fail(p, f"is {size} bytes; a network manifest is read up to {_MAX_MANIFEST_CHARS} bytes")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(p, f"cannot be read as UTF-8 text ({exc})") from None
    json_depth_ok(p, text)
    try:
        man = json.loads(text)
    except ValueError as exc:
        raise fail(p, f"is not JSON ({exc})") from None
    if not isinstance(man, dict):
        raise m.fail("(top level)", f"must be a JSON object, got {type(man).__name__}")
    version = m.get(man, "isomat_manifest", "")
    if version != MANIFEST_VERSION:
        raise m.fail("isomat_manifest", f"must be {MANIFEST_VERSION} (the layout this isomat reads), got {_short(version)}")
    if m.get(man, "kind", "") != "model":
        raise m.fail("kind", f"must be 'model', got {_short(man['kind'])}")
    fmt = m.get(man, "format", "")
    if fmt not in FORMATS:
        raise m.fail("format", f"must be one of {', '.join(FORMATS)}, got {_short(fmt)}")
    if m.get(man, "order", "") != "C":
        raise m.fail("order", f"must be 'C' (row-major), got {_short(man['order'])}")
    name = m.string(m.get(man, "network", ""), "network")
    in_model = m.shape(m.get(man, "model_input_shape", ""), "model_input_shape")
    out_model = m.shape(m.get(man, "model_output_shape", ""), "model_output_shape")
    input_name = m.string(m.get(man, "input", ""), "input")
    output_name = m.string(m.get(man, "output", ""), "output")
    raw_nodes = m.get(man, "nodes", "")
    if not isinstance(raw_nodes, list) or not raw_nodes or len(raw_nodes) > 1_000_000:
        raise m.fail("nodes", f"must be a non-empty list of node objects, got {_short(raw_nodes)}")
    suffix = SUFFIXES[fmt]
    folder = p.parent.resolve()
    sizes: dict[str, int] = {}
    nodes: list[Any] = []
    for k, raw in enumerate(raw_nodes):
        f = f"nodes[{k}]"
        if not isinstance(raw, dict):
            raise m.fail(f, f"must be an object, got {_short(raw)}")
        nname = m.string(m.get(raw, "name", f), f + ".name")
        if nname in sizes:
            raise m.fail(f + ".name", f"{nname!r} names an earlier node too")
        kind = m.get(raw, "type", f)
        if kind not in _NODE_TYPES:
            raise m.fail(f + ".type", f"must be one of {', '.join(_NODE_TYPES)}, got {_short(kind)}")
        shape = m.shape(m.get(raw, "shape", f), f + ".shape")
        source = raw.get("source", f"manifest {p.name}")
        if not isinstance(source, str):
            raise m.fail(f + ".source", f"must be a string, got {_short(source)}")
        if kind == "input":
            if k != 0 or nname != input_name:
                raise m.fail(f + ".type", f"the input node must be the first node, named by 'input' ({input_name!r})")
            if shape != in_model:
                raise m.fail(f + ".shape", f"{list(shape)} differs from model_input_shape {list(in_model)}")
            node: Any = net_mod.InputNode(nname, shape)
        elif k == 0:
            raise m.fail(f + ".type", f"the first node must be the input, got {kind!r}")
        elif kind == "affine":
            node = _affine_node(raw, f, nname, shape, source, sizes, folder, p, suffix, m)
        elif kind == "activation":
            src = _reads(m, raw, f, sizes, math.prod(shape))
            fn = m.get(raw, "fn", f)
            known = net_mod.PIECEWISE_LINEAR + net_mod.SMOOTH
            if fn not in known:
                raise m.fail(f + ".fn", f"must be one of {', '.join(known)}, got {_short(fn)}")
            params = _activation_params(m, fn, m.get(raw, "params", f), f + ".params", math.prod(shape))
            node = net_mod.ActivationNode(nname, src, shape, fn, params, source)
        else:
            node = _maxpool_node(net_mod, m, raw, f, nname, shape, source, sizes)
        sizes[nname] = math.prod(shape)
        nodes.append(node)
    if output_name not in sizes:
        raise m.fail("output", f"{output_name!r} is not a node")
    if sizes[output_name] != math.prod(out_model):
        raise m.fail("model_output_shape", f"{list(out_model)} has {math.prod(out_model)} entries; node "
                                           f"{output_name!r} has {sizes[output_name]}")
    try:
        return net_mod.Network(nodes, output_name, out_model, name=name)
    except ValueError as exc:  # pragma: no cover - the checks above cover what Network checks
        raise fail(p, f"manifest: {exc}") from None


def _reads(m: _Manifest, raw: dict[str, Any], f: str, sizes: dict[str, int], size: int | None) -> str:
    src = m.string(m.get(raw, "input", f), f + ".input")
    if src not in sizes:
        raise m.fail(f + ".input", f"{src!r} is not an earlier node")
    if size is not None and sizes[src] != size:
        raise m.fail(f + ".shape", f"has {size} entries; its input {src!r} has {sizes[src]}")
    return src


def _affine_node(raw: dict[str, Any], f: str, nname: str, shape: tuple[int, ...], source: str, sizes: dict[str, int],
                 folder: Path, p: Path, suffix: str, m: _Manifest) -> Any:
    net_mod = _network_module()
    weights = m.get(raw, "weights", f)
    if not isinstance(weights, list) or not weights or len(weights) > 4096:
        raise m.fail(f + ".weights", f"must be a non-empty list of weight objects, got {_short(weights)}")
    layers = raw.get("layers", [])
    if not isinstance(layers, list) or not all(isinstance(v, str) for v in layers):
        raise m.fail(f + ".layers", f"must be a list of strings, got {_short(layers)}")
    inputs, in_shapes, Ws = [], [], []
    bias = None
    for j, w in enumerate(weights):
        fw = f"{f}.weights[{j}]"
        if not isinstance(w, dict):
            raise m.fail(fw, f"must be an object, got {_short(w)}")
        name = m.string(m.get(w, "file", fw), fw + ".file")
        if not _plain_name(name):
            raise m.fail(fw + ".file", f"{name!r} must be a file name beside the manifest (no directory, no '..', not absolute)")
        if not name.endswith(suffix):
            raise m.fail(fw + ".file", f"{name!r} must end in {suffix!r} (the manifest's format)")
        target = folder / name
        if target.is_symlink() or target.resolve().parent != folder:
            raise m.fail(fw + ".file", f"{name!r} is a symbolic link; segment files must be regular files beside the manifest")
        if not target.is_file():
            raise m.fail(fw + ".file", f"{name!r} does not exist beside the manifest")
        src = m.string(m.get(w, "input", fw), fw + ".input")
        if src not in sizes:
            raise m.fail(fw + ".input", f"{src!r} is not an earlier node")
        if src in inputs:
            raise m.fail(fw + ".input", f"{src!r} is read by an earlier weight of this node too")
        in_shape = m.shape(m.get(w, "input_shape", fw), fw + ".input_shape")
        if math.prod(in_shape) != sizes[src]:
            raise m.fail(fw + ".input_shape", f"{list(in_shape)} has {math.prod(in_shape)} entries; node {src!r} has {sizes[src]}")
        has_bias = m.boolean(m.get(w, "bias", fw), fw + ".bias")
        if has_bias and j != 0:
            raise m.fail(fw + ".bias", "only a node's first weight file holds its bias")
        W, b = _weight(target, in_shape, shape, has_bias, fw)
        if has_bias:
            bias = b if np.any(b) else None
        inputs.append(src)
        in_shapes.append(in_shape)
        Ws.append(W)
    raw_inputs = raw.get("inputs", inputs)
    if raw_inputs != inputs:
        raise m.fail(f + ".inputs", f"{_short(raw_inputs)} differs from its weights' inputs {inputs}")
    return net_mod.AffineNode(nname, tuple(inputs), tuple(in_shapes), tuple(Ws), bias, shape, source, kind="segment")


def _activation_params(m: _Manifest, fn: str, params: Any, f: str, size: int) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise m.fail(f, f"must be an object, got {_short(params)}")
    allowed = {"leaky_relu": ("slope",), "prelu": ("slope",), "hardtanh": ("lo", "hi"), "clamp": ("lo", "hi"),
               "gelu": ("approximate",)}.get(fn, ())
    extra = sorted(set(params) - set(allowed))
    if extra:
        raise m.fail(f, f"{fn} takes {list(allowed) or 'no parameters'}, got the key {extra[0]!r}")
    for key in allowed:
        m.get(params, key, f)
    if fn == "leaky_relu":
        return {"slope": m.number(params["slope"], f + ".slope")}
    if fn == "prelu":
        s = params["slope"]
        if isinstance(s, list):
            if len(s) != size:
                raise m.fail(f + ".slope", f"must hold one slope per entry ({size}), got {len(s)}")
            return {"slope": np.array([m.number(v, f"{f}.slope[{i}]") for i, v in enumerate(s)], dtype=np.float64)}
        return {"slope": m.number(s, f + ".slope")}
    if fn in ("hardtanh", "clamp"):
        lo = m.number(params["lo"], f + ".lo", infinite=True)
        hi = m.number(params["hi"], f + ".hi", infinite=True)
        if not lo <= hi or lo == math.inf or hi == -math.inf:
            raise m.fail(f, f"needs lo <= hi (lo not 'inf', hi not '-inf'), got lo={params['lo']!r}, hi={params['hi']!r}")
        if fn == "hardtanh" and not (math.isfinite(lo) and math.isfinite(hi)):
            raise m.fail(f, "hardtanh's bounds are finite (a one-sided bound is a clamp)")
        return {"lo": lo, "hi": hi}
    if fn == "gelu":
        if params["approximate"] not in ("none", "tanh"):
            raise m.fail(f + ".approximate", f"must be 'none' or 'tanh', got {_short(params['approximate'])}")
        return {"approximate": params["approximate"]}
    return {}


def _maxpool_node(net_mod: Any, m: _Manifest, raw: dict[str, Any], f: str, nname: str, shape: tuple[int, ...],
                  source: str, sizes: dict[str, int]) -> Any:
    src = _reads(m, raw, f, sizes, None)
    in_shape = m.shape(m.get(raw, "input_shape", f), f + ".input_shape")
    if math.prod(in_shape) != sizes[src]:
        raise m.fail(f + ".input_shape", f"{list(in_shape)} has {math.prod(in_shape)} entries; node {src!r} has {sizes[src]}")
    d = m.get(raw, "ndim", f)
    if d not in (1, 2, 3) or isinstance(d, bool):
        raise m.fail(f + ".ndim", f"must be 1, 2 or 3, got {_short(d)}")
    if len(in_shape) != d + 1:
        raise m.fail(f + ".input_shape", f"must be (channels, *{d} spatial sizes), got {list(in_shape)}")
    ceil_mode = m.boolean(m.get(raw, "ceil_mode", f), f + ".ceil_mode")
    adaptive = m.get(raw, "adaptive", f)
    if adaptive is not None:
        out = m.ints(adaptive, f + ".adaptive", minimum=1, length=d)
        parts = {key: m.ints(m.get(raw, key, f), f"{f}.{key}", minimum=0, length=0)
                 for key in ("window", "stride", "padding", "dilation")}
        if shape != (in_shape[0],) + out and math.prod(shape) != in_shape[0] * math.prod(out):
            raise m.fail(f + ".shape", f"{list(shape)} is not adaptive pooling's output {[in_shape[0], *out]}")
        node = net_mod.MaxPoolNode(nname, src, in_shape, shape, d, (), (), (), (), ceil_mode, source, adaptive=out)
    else:
        parts = {key: m.ints(m.get(raw, key, f), f"{f}.{key}", minimum=0 if key == "padding" else 1, length=d)
                 for key in ("window", "stride", "padding", "dilation")}
        for a in range(d):
            if 2 * parts["padding"][a] > parts["window"][a]:
                raise m.fail(f + ".padding", f"must be at most half the window {list(parts['window'])}, got "
                                             f"{list(parts['padding'])}")
        ties = raw.get("ties", "first")
        if ties not in ("first", "split"):
            raise m.fail(f + ".ties", f"must be 'first' or 'split', got {_short(ties)}")
        cls = net_mod.MaxPoolNode
        if ties == "split":  # torch.amax: the gradient split evenly among tied maxima (whole-row windows)
            if d != 2 or in_shape[0] != 1 or parts["window"] != (1, in_shape[2]) or parts["stride"] != parts["window"] \
                    or parts["padding"] != (0, 0) or parts["dilation"] != (1, 1) or ceil_mode:
                raise m.fail(f + ".ties", "'split' (amax) needs whole-row windows: ndim 2, input_shape [1, M, R], "
                                          "window and stride [1, R], no padding or dilation")
            cls = _selection_module(net_mod).AmaxNode
        node = cls(nname, src, in_shape, shape, d, parts["window"], parts["stride"], parts["padding"],
                   parts["dilation"], ceil_mode, source)
    # the selection of a zero sample gives the node's output size: checked against the declared shape
    try:
        n_out = node.selection(np.zeros(sizes[src])).shape[0]
    except ValueError as exc:
        raise m.fail(f, f"its pooling parameters do not fit its input shape ({exc})") from None
    if n_out != math.prod(shape):
        raise m.fail(f + ".shape", f"{list(shape)} has {math.prod(shape)} entries; the pooling gives {n_out}")
    return node
