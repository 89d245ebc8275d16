"""isomat.algebra.padding: the 0/1 padding matrix against np.pad (and torch's F.pad)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isomat.algebra.conv import conv_matrix
from isomat.algebra.padding import PADDING_MODES, padded_shape, padding_index, padding_matrix

NP_MODE = {"zeros": "constant", "circular": "wrap", "reflect": "reflect", "replicate": "edge",
           "symmetric": "symmetric"}


@st.composite
def pad_cases(draw):
    lead = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=1)))
    spatial = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    pads = [(draw(st.integers(0, 7)), draw(st.integers(0, 7))) for _ in spatial]
    return lead + spatial, pads, draw(st.sampled_from(PADDING_MODES)), draw(st.integers(0, 2**16))


@settings(max_examples=80)
@given(pad_cases())
def test_matches_np_pad(case):
    shape, pads, mode, seed = case
    x = np.random.default_rng(seed).standard_normal(shape)
    P = padding_matrix(shape, pads, mode)
    lead = len(shape) - len(pads)
    ref = np.pad(x, [(0, 0)] * lead + pads, mode=NP_MODE[mode])
    assert P.shape == (ref.size, x.size)
    assert padded_shape(shape, pads) == ref.shape
    np.testing.assert_array_equal(P @ x.reshape(-1), ref.reshape(-1))
    assert set(np.unique(P.data)) <= {1.0}
    assert P.has_canonical_format or P.format != "csr"


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_formats_and_dtype(fmt):
    P = padding_matrix((2, 3, 4), [(1, 2), (0, 3)], "replicate", dtype=np.float32, format=fmt)
    assert P.format == fmt and P.dtype == np.float32
    x = np.arange(24.0).reshape(2, 3, 4)
    ref = np.pad(x, [(0, 0), (1, 2), (0, 3)], mode="edge")
    np.testing.assert_array_equal(P @ x.reshape(-1), ref.reshape(-1))


def test_int_padding_pads_every_axis():
    P = padding_matrix((3, 2), 1, "circular")
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(P @ x.reshape(-1), np.pad(x, 1, mode="wrap").reshape(-1))
    # a bare int per entry means (p, p)
    np.testing.assert_array_equal(padding_matrix((3, 2), [2], "reflect").toarray(),
                                  padding_matrix((3, 2), [(2, 2)], "reflect").toarray())


def test_zero_rows_are_empty():
    P = padding_matrix((3,), [(2, 1)], "zeros")
    assert P.toarray()[:2].sum() == 0 and P.toarray()[-1].sum() == 0 and P.nnz == 3


def test_padding_index():
    np.testing.assert_array_equal(padding_index(3, 2, 2, "reflect"), [2, 1, 0, 1, 2, 1, 0])
    np.testing.assert_array_equal(padding_index(3, 2, 2, "replicate"), [0, 0, 0, 1, 2, 2, 2])
    np.testing.assert_array_equal(padding_index(3, 2, 2, "circular"), [1, 2, 0, 1, 2, 0, 1])
    np.testing.assert_array_equal(padding_index(3, 2, 2, "symmetric"), [1, 0, 0, 1, 2, 2, 1])
    np.testing.assert_array_equal(padding_index(3, 2, 2, "zeros"), [-1, -1, 0, 1, 2, -1, -1])
    np.testing.assert_array_equal(padding_index(1, 2, 1, "reflect"), [0, 0, 0, 0])


@pytest.mark.parametrize("bad, exc, match", [
    (dict(mode="edge"), ValueError, "mode"),
    (dict(padding=[(1, 2, 3)]), ValueError, r"\(lo, hi\)"),
    (dict(padding=[-1]), ValueError, "padding"),
    (dict(padding=[1, 1, 1]), ValueError, "1 to 2 axes"),
    (dict(padding="same"), TypeError, "padding"),
    (dict(padding=[]), ValueError, "1 to 2 axes"),
    (dict(input_shape=(0, 3)), ValueError, "input_shape"),
    (dict(format="dense"), ValueError, "format"),
])
def test_bad_inputs(bad, exc, match):
    kw = dict(input_shape=(2, 3), padding=[1, 1], mode="reflect")
    kw.update(bad)
    with pytest.raises(exc, match=match):
        padding_matrix(kw.pop("input_shape"), kw.pop("padding"), **kw)


def test_composes_with_valid_convolution():
    """zero/circular boundary of conv_matrix == valid convolution @ padding matrix."""
    rng = np.random.default_rng(0)
    k = rng.standard_normal((2, 3, 3, 2))
    shape = (3, 5, 4)
    for mode, boundary in (("zeros", "zero"), ("circular", "circular")):
        direct = conv_matrix(shape, k, padding=(1, 2), boundary=boundary).toarray()
        P = padding_matrix(shape, [(1, 1), (2, 2)], mode)
        composed = (conv_matrix((3, 7, 8), k) @ P).toarray()
        np.testing.assert_allclose(composed, direct, rtol=0, atol=1e-14)


@settings(max_examples=40)
@given(pad_cases())
def test_matches_torch_pad(case):
    torch = pytest.importorskip("torch")
    shape, pads, mode, seed = case
    if mode == "symmetric" or len(pads) > 3:
        return
    spatial = shape[len(shape) - len(pads):]
    if mode == "reflect" and any(max(lo, hi) >= n for n, (lo, hi) in zip(spatial, pads)):
        return  # torch: reflect pad must be < input size
    if mode == "circular" and any(max(lo, hi) > n for n, (lo, hi) in zip(spatial, pads)):
        return  # torch: circular pad at most the input size
    x = np.random.default_rng(seed).standard_normal(shape)
    # torch's non-constant modes want (C, *spatial) or (N, C, *spatial): add leading axes as needed
    xt = torch.from_numpy(x).reshape((1,) * (len(pads) + 2 - len(shape)) + shape) if len(shape) < len(pads) + 2 \
        else torch.from_numpy(x)
    flat = []
    for lo, hi in reversed(pads):
        flat += [lo, hi]
    ref = torch.nn.functional.pad(xt, flat, mode="constant" if mode == "zeros" else mode).numpy()
    got = padding_matrix(shape, pads, mode) @ x.reshape(-1)
    np.testing.assert_array_equal(got, ref.reshape(-1))
