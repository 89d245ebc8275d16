"""README.md stays true: its quickstart runs as a doctest, its Python examples execute."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_quickstart_doctest():
    doctests = [b for b in BLOCKS if b.lstrip().startswith(">>>")]
    assert doctests, "README has no doctest block"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(doctests):
        runner.run(doctest.DocTestParser().get_doctest(block, {}, f"README[{i}]", "README.md", 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_distributed_example_runs():
    pytest.importorskip("dask.distributed", reason="distributed extra not installed")
    (code,) = [b for b in BLOCKS if "apply_row_blocks" in b]
    ns: dict = {}
    exec(compile(code, "README.md", "exec"), ns)
    import numpy as np
    from isomat.algebra import conv_matrix

    W = conv_matrix((1, 512, 512), ns["kernel"], padding="same")
    np.testing.assert_allclose(ns["y"], W @ ns["x"], rtol=1e-12, atol=1e-12)
