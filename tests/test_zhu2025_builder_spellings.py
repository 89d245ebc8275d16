"""The zhu2025 builder checks' field spellings, memory-bound and refusal parts (issue 36 items 1 and 5) fail on the
defects they are there to catch: a builder that ignores ``backend=``, one charged for the wrong number of stored
entries, one that takes bad input or refuses it without naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from isomat.algebra import attention as _att
from isomat.errors import SizeLimitError
from isomat.proofs.zhu2025 import _builders as B


def test_refused_needs_the_documented_exception_naming_the_argument():
    def refuse(msg, exc=ValueError):
        def call():
            raise exc(msg)
        return call

    assert B._refused(refuse("Wq must be a matrix"), name="Wq")
    assert not B._refused(refuse("Wqx must be a matrix"), name="Wq")
    assert not B._refused(refuse("None must be a matrix"), name="Wq")
    assert not B._refused(lambda: 1, name="Wq")  # taken, not refused
    with pytest.raises(IndexError):
        B._refused(refuse("Wq", IndexError), name="Wq")  # another exception is no refusal: it propagates


def test_bound_exact_tells_a_miscounted_builder():
    ws = [np.array(W, dtype=np.float64) for W in B._ATT_W]
    build = lambda: _att.linear_attention_matrix(2, *ws)  # noqa: E731
    nnz, rows = 2 * 2 * 2 ** 3 * 2, 2 * 2
    assert B._bound_exact(build, nnz, rows)
    assert not B._bound_exact(build, nnz + 1, rows)  # charged for fewer than it stores: built one byte below
    with pytest.raises(SizeLimitError):
        B._bound_exact(build, nnz - 1, rows)  # charged for more: refused at the exact bound


def test_field_spellings_tell_a_builder_that_ignores_its_backend_or_an_exact_input():
    ref = B._attention_loops(2, *B._ATT_W)
    assert B._fields_ok(lambda *w, backend: _att.linear_attention_matrix(2, *w, backend=backend), B._ATT_W, ref)
    assert not B._fields_ok(lambda *w, backend: _att.linear_attention_matrix(2, *w), B._ATT_W, ref)
    assert not B._fields_ok(lambda *w, backend: _att.linear_attention_matrix(2, *w, backend=backend or "numpy"),
                            B._ATT_W, ref)


@pytest.mark.parametrize("check, cases", [(B._attention_extra_ok, B.ATTENTION_EXTRA), (B._w_sa_ok, ("fields", "refusals")),
                                          (B._rnn_extra_ok, B.RNN_EXTRA + B.MAIN_TEXT_EXTRA),
                                          (B._pool_extra_ok, B.AVGPOOL_EXTRA + B.ZHU_POOL_EXTRA)])
def test_the_builders_pass_every_spelling(check, cases):
    assert [c for c in cases if not check(c)] == []
