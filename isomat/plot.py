r"""Pictures: a construction's sparsity pattern, the ledger's verdicts, a benchmark report.

Needs matplotlib (the ``notebooks`` extra); nothing here is imported by the rest of isomat. Every
function draws on an ``ax`` you give it (a notebook's figure) or on a figure of its own, which it
saves to ``path`` when one is given, and returns the axes it drew on. Figures are made with
``matplotlib.figure.Figure`` -- no pyplot state, no GUI backend -- so they draw the same in a script,
a notebook or a test.

.. code-block:: python

    >>> import numpy as np
    >>> from isomat.algebra import conv_matrix
    >>> from isomat.plot import spy
    >>> W = conv_matrix((2, 6, 6), np.ones((3, 2, 3, 3)), padding=1)     # 2 -> 3 channels
    >>> ax = spy(W, blocks=(36, 36), labels=("out channel", "in channel"))  # 3 x 2 blocks of 36 x 36
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["spy", "ledger", "bench_ratios", "bench_scaling", "VERDICT_ORDER", "STRENGTH_ORDER"]

#: the ledger's verdicts and strengths in the order the charts stack them (docs/conventions.md)
VERDICT_ORDER = ("holds", "holds-corrected", "refuted", "misprint", "inconsistent", "not-checkable", "error")
STRENGTH_ORDER = ("proved", "exhaustive", "sampled", "recompute", "not-checkable", "none")


def _figure(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError("isomat.plot needs matplotlib: pip install 'isomat[notebooks]'") from exc
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def _save(fig: Any, path: str | Path | None, own: bool) -> None:
    if path is None:
        return
    if not own:
        raise ValueError("path= saves a figure this function made; with ax= given, save your own figure")
    import io

    from .export._atomic import write_atomic

    fmt = Path(path).suffix.lstrip(".").lower()
    if fmt not in ("png", "svg", "pdf"):
        raise ValueError(f"path must end in .png, .svg or .pdf, got {str(path)!r}")
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110, metadata={"Software": "isomat"} if fmt == "png" else None)
    write_atomic(Path(path), lambda tmp: Path(tmp).write_bytes(buf.getvalue()), what="path")


def _pair(name: str, v: Any) -> tuple[int, int] | None:
    if v is None:
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (int(v), int(v))
    if (not isinstance(v, (tuple, list)) or len(v) != 2
            or not all(isinstance(u, (int, np.integer)) and not isinstance(u, bool) and u >= 1 for u in v)):
        raise ValueError(f"{name} must be a positive int or a pair of positive ints (rows, columns), got {v!r}")
    return int(v[0]), int(v[1])


def spy(W: Any, *, blocks: Any = None, labels: tuple[str, str] | None = None, title: str | None = None,
        ax: Any = None, path: str | Path | None = None, max_pixels: int = 600) -> Any:
    r"""Draw the sparsity pattern of a matrix, with its block structure drawn and labelled.

    Parameters
    ----------
    W : scipy.sparse array or matrix, NumPy array, ``sympy.Matrix``, or an isomat operator
        The construction (anything with ``.tocoo()``/``toarray()``, or a SymPy matrix, whose nonzero
        entries are those not identically zero).
    blocks : int or (int, int), optional
        The block size ``(rows, columns)``: a convolution from ``C_in`` to ``C_out`` channels on
        ``H x W`` images has ``C_out x C_in`` blocks of ``(H W) x (H W)`` (zhu2025 §4.2.1); a
        Kronecker product :math:`A \otimes B` has blocks of ``B``'s shape. Lines are drawn between
        blocks and each block row and column is numbered.
    labels : (str, str), optional
        What a block row and a block column are ("out channel", "in channel").
    max_pixels : int
        A matrix larger than this on a side is drawn as an image of stored entries per pixel
        (a density) rather than one mark per entry.

    Returns
    -------
    matplotlib Axes
    """
    import scipy.sparse as sp

    if hasattr(W, "to_scipy"):
        W = W.to_scipy()
    if hasattr(W, "free_symbols") and hasattr(W, "shape"):  # sympy
        rows, cols = zip(*[(i, j) for i in range(W.shape[0]) for j in range(W.shape[1]) if W[i, j] != 0]) \
            if any(W[i, j] != 0 for i in range(W.shape[0]) for j in range(W.shape[1])) else ((), ())
        m, n = int(W.shape[0]), int(W.shape[1])
        r, c = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    else:
        if hasattr(W, "get"):  # CuPy: to the host
            W = W.get()
        A = sp.coo_array(W)
        A.sum_duplicates()
        A.eliminate_zeros()
        m, n = A.shape
        r, c = A.row.astype(np.int64), A.col.astype(np.int64)
    blk = _pair("blocks", blocks)
    fig, ax_ = _figure(ax, (6.0, 6.0 * min(2.0, max(0.35, m / max(n, 1)))))
    if max(m, n) > max_pixels:
        sr, sc = max(1, math.ceil(m / max_pixels)), max(1, math.ceil(n / max_pixels))
        img = np.zeros((math.ceil(m / sr), math.ceil(n / sc)))
        np.add.at(img, (r // sr, c // sc), 1.0)
        ax_.imshow(np.where(img > 0, img, np.nan), cmap="Blues", interpolation="nearest", aspect="auto",
                   extent=(-0.5, n - 0.5, m - 0.5, -0.5))
    else:
        ax_.scatter(c, r, s=max(0.5, 3000.0 / max(m, n) ** 1.2), marker="s", color="tab:blue", linewidths=0)
        ax_.set_xlim(-0.5, n - 0.5)
        ax_.set_ylim(m - 0.5, -0.5)
    if blk is not None:
        br, bc = blk
        for y in range(br, m, br):
            ax_.axhline(y - 0.5, color="0.6", lw=0.6)
        for x in range(bc, n, bc):
            ax_.axvline(x - 0.5, color="0.6", lw=0.6)
        nbr, nbc = math.ceil(m / br), math.ceil(n / bc)
        if nbr <= 32:
            ax_.set_yticks([min(m, i * br + br / 2) - 0.5 for i in range(nbr)], [str(i) for i in range(nbr)])
        if nbc <= 32:
            ax_.set_xticks([min(n, j * bc + bc / 2) - 0.5 for j in range(nbc)], [str(j) for j in range(nbc)])
        rl, cl = labels or ("block row", "block column")
        ax_.set_ylabel(f"{rl} (blocks of {br} rows)")
        ax_.set_xlabel(f"{cl} (blocks of {bc} columns)")
        ax_.xaxis.set_label_position("top")
        ax_.xaxis.tick_top()
    else:
        ax_.set_ylabel("row")
        ax_.set_xlabel("column")
    ax_.set_title(title or f"{m} x {n}, {r.size:,} stored entries ({r.size / max(1, m * n):.2%})", fontsize=10)
    _save(fig, path, ax is None)
    return ax_


def _records(ledger_or_records: Any) -> list[Mapping[str, Any]]:
    recs = ledger_or_records.get("claims") if isinstance(ledger_or_records, Mapping) else ledger_or_records
    if not isinstance(recs, Sequence) or not all(isinstance(r, Mapping) for r in recs):
        raise TypeError("records must be the list of claim records (or the dict `isomat verify --json` writes)")
    return list(recs)


_VERDICT_COLORS = {"holds": "#1b7837", "holds-corrected": "#7fbf7b", "refuted": "#b2182b", "misprint": "#ef8a62",
                   "inconsistent": "#fddbc7", "not-checkable": "#bbbbbb", "error": "#000000"}
_STRENGTH_COLORS = {"proved": "#08519c", "exhaustive": "#3182bd", "sampled": "#9ecae1", "recompute": "#c2a5cf",
                    "counterexample": "#fdae6b", "not-checkable": "#bbbbbb", "none": "#eeeeee"}


def _stacked(ax: Any, recs: list[Mapping[str, Any]], papers: list[str], key: str, order: Sequence[str],
             colors: Mapping[str, str], title: str) -> None:
    values = [v for v in order if any(str(r.get(key) or "none") == v for r in recs)]
    values += sorted({str(r.get(key) or "none") for r in recs} - set(values))
    y = np.arange(len(papers))
    left = np.zeros(len(papers))
    for v in values:
        counts = np.array([sum(1 for r in recs if str(r.get("id", "")).split(":")[0] == p and str(r.get(key) or "none") == v)
                           for p in papers], dtype=float)
        ax.barh(y, counts, left=left, color=colors.get(v, "#999999"), edgecolor="white", linewidth=0.5, label=v)
        for k, cnt in enumerate(counts):
            if cnt >= 2:
                ax.text(left[k] + cnt / 2, y[k], str(int(cnt)), ha="center", va="center", fontsize=7,
                        color="white" if v in ("holds", "refuted", "proved", "exhaustive", "error") else "black")
        left += counts
    ax.set_yticks(y, papers)
    ax.invert_yaxis()
    ax.set_xlabel("claims")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower right")


def ledger(records: Any, *, by: str | None = None, ax: Any = None, path: str | Path | None = None,
           beyond: bool = False) -> Any:
    """The ledger per paper: a bar of claims split by verdict, and one split by the strength of the
    evidence.

    ``records``: the claim records (``isomat verify --json``'s ``claims``, or the whole dict);
    ``beyond=False`` leaves out the ``beyond`` results, as the papers' tallies do. With ``ax`` (your
    axes), ``by`` (``"verdict"``, the default, or ``"strength"``) says which bar to draw; without it
    both are drawn side by side on a figure of the function's own (saved to ``path`` when given) and
    the two axes are returned."""
    recs = [r for r in _records(records) if beyond or not r.get("beyond")]
    papers = sorted({str(r.get("id", "?")).split(":")[0] for r in recs})
    if by not in (None, "verdict", "strength"):
        raise ValueError(f"by must be 'verdict' or 'strength', got {by!r}")
    panels = [by or "verdict"] if ax is not None else ([by] if by else ["verdict", "strength"])
    if ax is None:
        fig, first = _figure(None, (5.5 * len(panels), 1.4 + 0.7 * max(1, len(papers))))
        first.remove()
        axes = [fig.add_subplot(1, len(panels), k + 1) for k in range(len(panels))]
    else:
        fig, axes = ax.figure, [ax]
    for a, panel in zip(axes, panels):
        if panel == "verdict":
            _stacked(a, recs, papers, "verdict", VERDICT_ORDER, _VERDICT_COLORS,
                     f"verdicts: {len(recs)} claims of {len(papers)} papers")
        else:
            _stacked(a, recs, papers, "strength", STRENGTH_ORDER + ("counterexample",), _STRENGTH_COLORS,
                     "strength of the evidence")
    _save(fig, path, ax is None)
    return axes[0] if len(axes) == 1 else tuple(axes)


def bench_ratios(report: Mapping[str, Any], *, ax: Any = None, path: str | Path | None = None) -> Any:
    """Every ratio of an ``isomat bench`` report that has a target, against it: a bar per ratio (log
    scale), its target as a mark, coloured by verdict (met, not met, no verdict)."""
    from .bench import report_verdicts

    rows = [v for v in report_verdicts(dict(report)) if v["source"] == "json" and v["target"]
            and isinstance(v["value"], (int, float)) and v["value"] > 0]
    fig, ax_ = _figure(ax, (9.0, 1.0 + 0.28 * max(1, len(rows))))
    color = {"met": "#1b7837", "not met": "#b2182b"}
    for k, v in enumerate(rows):
        ax_.barh(k, v["value"], color=color.get(v["verdict"], "#999999"), height=0.7)
        t = v["target"].split()
        try:
            bound = float(t[-1])
            ax_.plot([bound, bound], [k - 0.4, k + 0.4], color="black", lw=1.5)
        except (ValueError, IndexError):
            pass
    ax_.set_yticks(range(len(rows)), [f"{v['benchmark']}: {v['name'][:60]} ({v['target']})" for v in rows], fontsize=6)
    ax_.invert_yaxis()
    ax_.set_xscale("log")
    ax_.set_xlabel("ratio (bar; black mark: target). green met, red not met, grey no verdict")
    ax_.set_title("isomat bench: ratios against their targets", fontsize=10)
    _save(fig, path, ax is None)
    return ax_


def bench_scaling(report: Mapping[str, Any], *, ax: Any = None, path: str | Path | None = None,
                  size_keys: Sequence[str] = ("n", "size", "N", "T")) -> Any:
    """The report's scaling curves: every family of timed figures that differ only in a size parameter
    (``n``, ``size``, ``N``, ``T``), time against size on log-log axes, one line per family."""
    import re

    series: dict[str, list[tuple[float, float]]] = {}
    for b in report.get("benchmarks", []):
        for f in (b.get("result") or {}).get("figures", []) or []:
            params = f.get("params") or {}
            if f.get("unit") not in ("s", "ms") or not isinstance(f.get("value"), (int, float)):
                continue
            key = next((k for k in size_keys if isinstance(params.get(k), (int, float))), None)
            if key is None:
                continue
            name = re.sub(rf"[,(]?\s*\b{key}\s*=\s*[0-9]+\)?", "", str(f["name"])).strip(" ,")
            scale = 1e-3 if f["unit"] == "ms" else 1.0
            series.setdefault(f"{b['name']}: {name}", []).append((float(params[key]), float(f["value"]) * scale))
    fig, ax_ = _figure(ax, (8.0, 5.0))
    for label, pts in sorted(series.items()):
        if len(pts) < 2:
            continue
        pts.sort()
        ax_.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=label[:70])
    ax_.set_xscale("log")
    ax_.set_yscale("log")
    ax_.set_xlabel("size")
    ax_.set_ylabel("seconds (median)")
    ax_.set_title("isomat bench: scaling", fontsize=10)
    if ax_.get_legend_handles_labels()[0]:
        ax_.legend(fontsize=6)
    _save(fig, path, ax is None)
    return ax_
