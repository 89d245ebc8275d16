"""torch users' habits: a construction takes a Parameter (or any tensor that requires grad, on any
device torch has here) as it takes the same values in a NumPy array -- detached, never refused with
torch's "Can't call numpy() on Tensor that requires grad"."""

from __future__ import annotations

import numpy as np
import pytest

from isomat.testing.families import family_builds

torch = pytest.importorskip("torch", reason="torch extra not installed")

BUILDS = family_builds()


def _dense(M):
    return M.toarray() if hasattr(M, "toarray") else np.asarray(M)


def _parameter(x):
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return torch.nn.Parameter(torch.from_numpy(np.array(x)))
    return x


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_every_family_takes_parameters_as_it_takes_arrays(name):
    build = BUILDS[name]
    ref, got = build(lambda x: x, "numpy"), build(_parameter, "numpy")
    np.testing.assert_array_equal(_dense(got), _dense(ref))


def test_the_issues_two_calls():
    from isomat.algebra import conv_matrix, rnn_matrix

    conv = torch.nn.Conv2d(3, 8, 3)
    W = conv_matrix((3, 8, 8), conv.weight)
    x = torch.randn(3, 8, 8, dtype=torch.float64)
    ref = torch.nn.functional.conv2d(x[None], conv.weight.double()).detach().numpy().ravel()
    np.testing.assert_allclose(W @ x.numpy().ravel(), ref, rtol=1e-6, atol=1e-6)  # float32 weights
    p = torch.nn.Parameter(torch.randn(2, 2, dtype=torch.float64))
    np.testing.assert_array_equal(_dense(rnn_matrix(p, p, 4)), _dense(rnn_matrix(p.detach().numpy(), p.detach().numpy(), 4)))


def test_half_precision_and_conjugate_views_are_read_as_values():
    from isomat.algebra._backend import from_torch

    h = torch.tensor([1.5, -2.0], dtype=torch.bfloat16, requires_grad=True)
    np.testing.assert_array_equal(from_torch(h), np.array([1.5, -2.0], dtype=np.float32))
    z = torch.tensor([1 + 2j]).conj()
    np.testing.assert_array_equal(from_torch(z), np.array([1 - 2j]))


# ---------------------------------------------------------------------------------------------
# issue 23: torch's option spellings -- padding_mode= for conv_matrix, count_include_pad /
# ceil_mode / divisor_override for avgpool_matrix -- checked against torch itself
# ---------------------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from isomat.algebra import avgpool_matrix, conv_apply, conv_matrix  # noqa: E402

MODES = ("zeros", "reflect", "replicate", "circular")
_CONV = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}
_AVG = {1: torch.nn.functional.avg_pool1d, 2: torch.nn.functional.avg_pool2d, 3: torch.nn.functional.avg_pool3d}


def _torch_conv(d, c_in, c_out, k, stride, padding, mode, groups=1):
    return _CONV[d](c_in, c_out, k, stride=stride, padding=padding, padding_mode=mode, groups=groups,
                    bias=False, dtype=torch.float64)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("d, spatial", [(1, (9,)), (2, (6, 7))])
@pytest.mark.parametrize("stride", [1, 2])
def test_padding_mode_alias_matches_torch_conv(mode, d, spatial, stride):
    gen = torch.Generator().manual_seed(23)
    conv = _torch_conv(d, 2, 3, 3, stride, 1, mode)
    with torch.no_grad():
        conv.weight.copy_(torch.randn(conv.weight.shape, generator=gen, dtype=torch.float64))
    x = torch.randn((2,) + spatial, generator=gen, dtype=torch.float64)
    ref = conv(x).detach().numpy().ravel()
    W = conv_matrix((2,) + spatial, conv.weight, stride=stride, padding=1, padding_mode=mode)  # a Parameter
    np.testing.assert_allclose(W @ x.numpy().ravel(), ref, rtol=1e-12, atol=1e-12)
    # padding_mode= is boundary= under torch's name: the same matrix
    same = conv_matrix((2,) + spatial, conv.weight.detach().numpy(), stride=stride, padding=1,
                       boundary="zero" if mode == "zeros" else mode)
    assert (W != same).nnz == 0
    y = conv_apply(x.numpy(), conv.weight, stride=stride, padding=1, padding_mode=mode)
    np.testing.assert_allclose(np.asarray(y).ravel(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_padding_mode_with_same_padding_dilation_and_groups_matches_torch(mode):
    gen = torch.Generator().manual_seed(5)
    conv = torch.nn.Conv2d(4, 6, (3, 2), padding="same", dilation=(1, 2), groups=2, padding_mode=mode,
                           bias=False, dtype=torch.float64)
    x = torch.randn(4, 7, 8, generator=gen, dtype=torch.float64)
    W = conv_matrix((4, 7, 8), conv.weight, padding="same", dilation=(1, 2), groups=2, padding_mode=mode)
    np.testing.assert_allclose(W @ x.numpy().ravel(), conv(x).detach().numpy().ravel(), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(d=st.integers(1, 3), mode=st.sampled_from(MODES), stride=st.integers(1, 2), k=st.integers(1, 3),
       extra=st.lists(st.integers(0, 3), min_size=3, max_size=3), c_in=st.integers(1, 2), c_out=st.integers(1, 2),
       seed=st.integers(0, 2**16))
def test_padding_mode_on_drawn_layers_matches_torch(d, mode, stride, k, extra, c_in, c_out, seed):
    padding = k // 2  # reflect needs padding < n: n >= k > padding
    spatial = tuple(k + e for e in extra[:d])
    gen = torch.Generator().manual_seed(seed)
    conv = _torch_conv(d, c_in, c_out, k, stride, padding, mode)
    x = torch.randn((c_in,) + spatial, generator=gen, dtype=torch.float64)
    W = conv_matrix((c_in,) + spatial, conv.weight, stride=stride, padding=padding, padding_mode=mode)
    np.testing.assert_allclose(W @ x.numpy().ravel(), conv(x).detach().numpy().ravel(), rtol=1e-12, atol=1e-12)


def test_padding_mode_errors():
    k = np.ones((3, 3))
    with pytest.raises(ValueError, match=r"boundary='zero' and padding_mode='zeros' are both given"):
        conv_matrix((5, 5), k, boundary="zero", padding_mode="zeros")  # even when they agree
    with pytest.raises(ValueError, match=r"boundary='circular' and padding_mode='reflect'"):
        conv_apply(np.ones((5, 5)), k, boundary="circular", padding_mode="reflect")
    with pytest.raises(ValueError, match=r"padding_mode must be one of \('zeros', 'reflect', 'replicate', 'circular'\), "
                                         r"got 'mirror'"):
        conv_matrix((5, 5), k, padding_mode="mirror")
    with pytest.raises(ValueError, match=r"padding_mode must be one of .*got 'zero'"):  # torch's names only
        conv_matrix((5, 5), k, padding_mode="zero")
    with pytest.raises(TypeError, match="padding_mode must be one of"):
        conv_matrix((5, 5), k, padding_mode=0)
    with pytest.raises(ValueError, match="needs padding < the input size"):  # as torch's reflect
        conv_matrix((2, 4), k, padding=2, padding_mode="reflect")
    # boundary alone, and its "zeros" spelling, are unchanged
    assert (conv_matrix((5, 5), k, boundary="zeros", padding=1) != conv_matrix((5, 5), k, padding=1)).nnz == 0


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("stride", [1, 2])
def test_avgpool_count_include_pad_matches_torch(count_include_pad, ceil_mode, stride):
    x = torch.randn(2, 7, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    ref = torch.nn.functional.avg_pool2d(x, 3, stride=stride, padding=1, ceil_mode=ceil_mode,
                                         count_include_pad=count_include_pad)
    A = avgpool_matrix((2, 7, 6), (3, 3), stride=stride, padding=1, ceil_mode=ceil_mode,
                       count_include_pad=count_include_pad)
    np.testing.assert_allclose(A @ x.numpy().ravel(), ref.numpy().ravel(), rtol=1e-13, atol=1e-13)


def test_count_include_pad_false_divides_by_the_taps_inside():
    """The corner window of a 3x3 pool with padding 1 reads 4 pixels: torch divides by 9, or by 4."""
    A = avgpool_matrix((4, 4), (3, 3), stride=1, padding=1, count_include_pad=False).toarray()
    B = avgpool_matrix((4, 4), (3, 3), stride=1, padding=1).toarray()
    assert np.allclose(A[0][A[0] != 0], 1 / 4) and np.allclose(B[0][B[0] != 0], 1 / 9)
    assert np.allclose(A[1][A[1] != 0], 1 / 6) and np.allclose(A[5][A[5] != 0], 1 / 9)


@settings(max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(d=st.integers(1, 3), k=st.integers(1, 3), stride=st.integers(1, 3), data=st.data(),
       ceil_mode=st.booleans(), count_include_pad=st.booleans(), c=st.integers(1, 2),
       divisor=st.sampled_from([None, None, 2, -3]), seed=st.integers(0, 2**16))
def test_avgpool_on_drawn_shapes_matches_torch(d, k, stride, data, ceil_mode, count_include_pad, c, divisor, seed):
    padding = data.draw(st.integers(0, k // 2))
    spatial = tuple(data.draw(st.lists(st.integers(k, 6), min_size=d, max_size=d)))
    x = torch.randn((c,) + spatial, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    kw = {"stride": stride, "padding": padding, "ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
          "divisor_override": divisor}
    if d == 1:
        if divisor is not None:  # avg_pool1d has no divisor_override
            return
        del kw["divisor_override"]
    ref = _AVG[d](x, k, **kw)
    A = avgpool_matrix((c,) + spatial, (k,) * d, **kw)
    np.testing.assert_allclose(A @ x.numpy().ravel(), ref.numpy().ravel(), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("kw, exc, match", [
    ({"count_include_pad": "False"}, TypeError, r"count_include_pad must be a bool, got 'False'"),
    ({"count_include_pad": 0}, TypeError, r"count_include_pad must be a bool, got 0"),
    ({"ceil_mode": "True"}, TypeError, r"ceil_mode must be a bool, got 'True'"),
    ({"ceil_mode": None}, TypeError, r"ceil_mode must be a bool, got None"),
    ({"divisor_override": 0}, ValueError, r"divisor_override must be a non-zero integer"),
    ({"divisor_override": 2.5}, TypeError, r"divisor_override"),
    ({"padding": 2}, ValueError, r"padding must be at most half the window"),
])
def test_avgpool_bad_torch_options(kw, exc, match):
    with pytest.raises(exc, match=match):
        avgpool_matrix((2, 6, 6), (3, 3), **kw)


def test_parameters_with_the_aliases_are_detached():
    """A weight that requires grad goes in with padding_mode=, as torch's layer takes it; the result
    is plain SciPy (no graph), and pooling of a requires-grad input compares equal to torch."""
    conv = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate", bias=False)
    assert conv.weight.requires_grad
    W = conv_matrix((2, 5, 5), conv.weight, padding=1, padding_mode="replicate")
    x = torch.randn(2, 5, 5, requires_grad=True)
    np.testing.assert_allclose(W @ x.detach().numpy().ravel(), conv(x).detach().numpy().ravel(), rtol=1e-5, atol=1e-6)
    y = conv_apply(x, conv.weight, padding=1, padding_mode="replicate")
    np.testing.assert_allclose(np.asarray(y), conv(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    A = avgpool_matrix((2, 5, 5), (3, 3), padding=1, count_include_pad=False)
    ref = torch.nn.functional.avg_pool2d(x, 3, stride=3, padding=1, count_include_pad=False)
    # torch pools in float32: sums of up to 9 values that may cancel, so an absolute term beside the relative one
    np.testing.assert_allclose(A @ x.detach().double().numpy().ravel(), ref.detach().numpy().ravel(), rtol=1e-6, atol=1e-6)


def test_the_torch_guides_examples_run():
    """docs/guide/torch.md: every ```python block is a doctest, run as written."""
    import doctest
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "torch.md").read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.S))
    test = doctest.DocTestParser().get_doctest(code, {}, "torch.md", "docs/guide/torch.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)  # no ELLIPSIS: the guide runs as plain doctest
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 20 and result.failed == 0, result
