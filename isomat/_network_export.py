"""Writing whole networks (:func:`isomat.export.write_network`): affine segments plus a manifest.

A network without nonlinearities is one affine map and is written as one file ``(W, b)``, like
any operator. A network with nonlinearities is written as its affine segments (one file per
segment weight, in any of :func:`isomat.export.write`'s formats, each with its metadata) and a
JSON manifest ``<stem>.network.json`` saying how they chain: the nodes in order, the input each
reads, the nonlinearity between segments with its parameters, and every tensor shape. Kept
apart from ``export.py`` (which needs no torch and is long enough); this module needs no torch
either -- it reads a :class:`~isomat.torch.network.Network`, whose data are NumPy and SciPy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__

MANIFEST_SUFFIX = ".network.json"


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
    """Write a network's affine segments (and, with nonlinearities, a chaining manifest).

    Returns the paths written: ``[path]`` for an affine network (its one ``(W, b)``), else the
    segment files ``<stem>.<segment>[.<k>]<suffix>`` and, last, ``<stem>.network.json``.
    """
    from . import _atomic, _validate, export
    from .torch.network import ActivationNode, AffineNode, InputNode, MaxPoolNode, Network

    if not isinstance(network, Network):
        raise TypeError(f"network must be an isomat.torch Network (from_model), got {type(network).__name__}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict (JSON-serializable), got {type(metadata).__name__}")
    order = _validate.choice("order", order, ("C", "F"))
    overwrite = _validate.boolean("overwrite", overwrite)
    p, fmt = export.write_target(path, format, overwrite=overwrite)
    base = {"isomat_version": __version__, "kind": "model", "network": network.name,
            "model_input_shape": list(network.input_shape), "model_output_shape": list(network.output_shape),
            **(metadata or {})}
    segments = network.affine_segments()
    if network.is_affine and len(segments) == 1 and len(segments[0].inputs) == 1:
        seg = segments[0]
        b = seg.bias if seg.bias is not None else np.zeros(seg.W.shape[0])
        meta = {**base, "segment": seg.name, "layers": list(seg.nodes)}
        out = export.write((seg.W, b), p, fmt, metadata=meta, dtype=dtype, order=order, input_shape=seg.input_shape,
                           output_shape=network.output_shape, overwrite=overwrite,
                           comment=f" isomat {__version__} network {network.name}")
        return [out]
    if order != "C":
        raise ValueError("order='F' applies to one affine map; a network with nonlinearities is written row-major "
                         "(order='C'), its manifest giving every tensor shape")
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    manifest_path = p.with_name(stem + MANIFEST_SUFFIX)
    _atomic.check_target(manifest_path, overwrite=overwrite)
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
                fp = p.with_name(f"{stem}.{seg.name}{suffix}{p.suffix}")
                b = seg.bias if (k == 0 and seg.bias is not None) else np.zeros(W.shape[0])
                meta = {**base, "segment": seg.name, "input": src, "layers": list(seg.nodes)}
                written.append(export.write((W, b), fp, fmt, metadata=meta, dtype=dtype, input_shape=in_shape,
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
                          "source": node.source})
    manifest = {**base, "format": fmt, "order": "C", "convention": "y = W x + b on one sample, row-major flattening",
                "input": network.input_name, "output": network.output, "nodes": nodes}
    _atomic.write_text(manifest_path, json.dumps(manifest, indent=1, allow_nan=False) + "\n", what="path")
    written.append(manifest_path)
    return written
