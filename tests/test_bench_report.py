"""The bench report one can read (issue: everyday use, item 4): one summary line, every ratio beside
its target and verdict, the raw output of text-only scripts in an appendix; and the pictures
(``isomat.plot``: spy, the ledger chart, the report's ratios and scaling curves)."""

from __future__ import annotations

import numpy as np
import pytest

from isomat.bench import markdown, report_verdicts, summary


def _report(quick=False):
    return {
        "isomat_version": "0", "generated": "now", "quick": quick, "load_before": (0.5, 0.4, 0.3),
        "load_after": (1.5, 0.9, 0.4),
        "machine": {"platform": "linux", "processor": "cpu", "cpus": 2, "python": "3", "numpy": "2", "scipy": "1"},
        "benchmarks": [
            {"name": "stp", "status": "ok", "seconds": 1.0, "command": "python stp.py", "result": {
                "figures": [
                    {"name": "isomat stp, n=8", "value": 1e-3, "unit": "s", "params": {"n": 8}},
                    {"name": "isomat stp, n=64", "value": 8e-3, "unit": "s", "params": {"n": 64}},
                    {"name": "isomat stp, n=512", "value": 7e-2, "unit": "s", "params": {"n": 512}}],
                "ratios": [
                    {"name": "naive / isomat (n=8)", "value": 148.0, "target": 100.0, "verdict": "met",
                     "numerator": "naive", "denominator": "isomat"},
                    {"name": "naive / isomat (n=64)", "value": 48.66, "target": 100.0, "verdict": "not met",
                     "numerator": "naive", "denominator": "isomat"},
                    {"name": "naive / isomat (n=512)", "value": 3.0, "target": 100.0, "verdict": "noisy",
                     "numerator": "naive", "denominator": "isomat"},
                    {"name": "peak / J bytes", "value": 1.7, "target": "<= 2", "numerator": "peak", "denominator": "J"},
                    {"name": "twin / native", "value": 3.4, "target": "<= 3", "numerator": "twin", "denominator": "native"},
                    {"name": "jacrev / local", "value": 9.0, "target": ">= 20", "noisy": True, "numerator": "a",
                     "denominator": "b"},
                    {"name": "dense / sparse bytes", "value": 4.8, "numerator": "a", "denominator": "b"}]}},
            {"name": "conv", "status": "ok", "seconds": 2.0, "command": "python conv.py", "stdout":
                "stencil 2048^2\n  3x3 float64      3.1 3.2 3.4 ms  [target <= 2.5x met]\n"
                "  5x5 float64      4.7 4.8 9.9 ms  [target <= 3x NOT met]\n"
                "  3x3 float32      2.2 2.3 6.0 ms  [noisy: no verdict]\nraw line without a verdict\n"},
        ]}


def test_every_verdict_is_classified_with_its_target():
    vs = report_verdicts(_report())
    by = {(v["benchmark"], v["name"]): v for v in vs}
    assert by[("stp", "naive / isomat (n=8)")]["verdict"] == "met"
    assert by[("stp", "naive / isomat (n=8)")]["target"] == ">= 100"
    assert by[("stp", "naive / isomat (n=64)")]["verdict"] == "not met"
    assert by[("stp", "naive / isomat (n=512)")]["verdict"] == "no verdict (noisy)"
    assert by[("stp", "peak / J bytes")]["verdict"] == "met"          # judged from its target "<= 2"
    assert by[("stp", "twin / native")]["verdict"] == "not met"       # 3.4 against "<= 3"
    assert by[("stp", "jacrev / local")]["verdict"] == "no verdict (noisy)"
    assert by[("stp", "dense / sparse bytes")]["verdict"] == "measured"
    text = [v for v in vs if v["source"] == "text"]
    assert [v["verdict"] for v in text] == ["met", "not met", "no verdict (noisy)"]
    assert text[0]["target"] == "<= 2.5"


def test_summary_line_counts_and_states_the_load():
    s = summary(_report())
    assert (s["met"], s["not met"], s["no verdict"], s["measured"]) == (3, 3, 3, 1)
    assert "3 met, 3 not met, 3 without a verdict" in s["text"] and "0.50 before, 1.50 after" in s["text"]
    q = summary(_report(quick=True))
    assert q["met"] == 0 and q["not met"] == 0  # a quick run judges nothing


def test_markdown_has_the_summary_targets_and_an_appendix():
    md = markdown(_report())
    first = md.splitlines()[2]
    assert first.startswith("**Summary: 3 met, 3 not met")
    assert "| naive / isomat (n=64) | 48.66 | >= 100 | not met |" in md
    assert "| peak / J bytes | 1.7 | <= 2 | met |" in md
    body, appendix = md.split("## Appendix: the output of the text-only scripts")
    assert "raw line without a verdict" in appendix and "raw line without a verdict" not in body
    assert "[target <= 3x NOT met]" in body  # the verdict lines stay in the body, in a table


def test_compare_verdicts_uses_the_same_classifier(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    a, b = _report(), _report()
    b["benchmarks"][0]["result"]["ratios"][0]["verdict"] = "not met"
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    script = str(Path(__file__).resolve().parent.parent / "benchmarks" / "_compare_verdicts.py")
    p = subprocess.run([sys.executable, script, str(tmp_path / "a.json"), str(tmp_path / "b.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "CONTRADICTION" in p.stdout


# -- pictures ----------------------------------------------------------------------------------------
matplotlib = pytest.importorskip("matplotlib")


def _png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    return data


def test_spy_draws_blocks_and_refuses_bad_blocks(tmp_path):
    from isomat.algebra import conv_matrix, kron
    from isomat.plot import spy

    W = conv_matrix((2, 6, 6), np.ones((3, 2, 3, 3)), padding=1)
    ax = spy(W, blocks=(36, 36), labels=("out channel", "in channel"), path=tmp_path / "conv.png")
    _png(tmp_path / "conv.png")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "1", "2"]
    assert "out channel (blocks of 36 rows)" == ax.get_ylabel()
    big = kron(np.ones((40, 40)), np.eye(30))  # 1200 x 1200: drawn as a density image
    spy(big, blocks=30, path=tmp_path / "kron.png")
    _png(tmp_path / "kron.png")
    import sympy

    spy(sympy.Matrix([[1, 0], [sympy.Symbol("a"), 0]]), path=tmp_path / "sym.png")
    with pytest.raises(ValueError, match="blocks must be a positive int or a pair"):
        spy(W, blocks=(0, 3))
    with pytest.raises(ValueError, match=r"path must end in \.png, \.svg or \.pdf"):
        spy(W, path=tmp_path / "x.txt")


def test_ledger_chart_counts_every_claim(tmp_path):
    from isomat.plot import ledger

    recs = [{"id": "p2025:a", "verdict": "holds", "strength": "proved"},
            {"id": "p2025:b", "verdict": "refuted", "strength": "counterexample"},
            {"id": "q2024:c", "verdict": "holds", "strength": "sampled"},
            {"id": "q2024:beyond/d", "verdict": "holds", "strength": "proved", "beyond": True}]
    v_ax, s_ax = ledger({"claims": recs}, path=tmp_path / "ledger.png")
    _png(tmp_path / "ledger.png")
    widths = sorted(p.get_width() for p in v_ax.patches if p.get_width() > 0)
    assert sum(widths) == 3  # the beyond result is left out
    with pytest.raises(TypeError, match="records"):
        ledger(42)
    with pytest.raises(ValueError, match="by must be"):
        ledger(recs, by="colour")


def test_bench_plots(tmp_path):
    from isomat.plot import bench_ratios, bench_scaling

    ax = bench_ratios(_report(), path=tmp_path / "r.png")
    _png(tmp_path / "r.png")
    assert len(ax.get_yticklabels()) == 6  # the six ratios with a target
    ax2 = bench_scaling(_report(), path=tmp_path / "s.png")
    _png(tmp_path / "s.png")
    (line,) = ax2.get_lines()
    assert list(line.get_xdata()) == [8.0, 64.0, 512.0]
