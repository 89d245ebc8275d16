"""isomat.torch.from_module: module(x).flatten() == W @ x.flatten() + b on Hypothesis-drawn layers.

float64 layers agree to 1e-12; float32 layers to torch's own float32 tolerance
(``torch.testing.assert_close`` defaults: rtol 1.3e-6, atol 1e-5). Biases are drawn on and off.
"""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from isomat.testing import strategies as kit  # noqa: E402
from isomat.torch import LinearRNN, from_module  # noqa: E402

pytestmark = pytest.mark.torch

DTYPES = st.sampled_from([torch.float64, torch.float32])
SEEDS = st.integers(0, 2**31 - 1)
EXAMPLES = settings(max_examples=40)


def _forward(module, x, batch=False):
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "same" with an even kernel warns about a padded copy
        y = module(x[None])[0] if batch else module(x)
    return y[0] if isinstance(y, tuple) else y


def _check(module, shape, seed, dtype, *, batch=False, x=None, pass_x=False):
    """from_module's (W, b) against the module's forward on one sample."""
    gen = torch.Generator().manual_seed(seed)
    if x is None:
        x = torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)
    W, b = from_module(module, shape, x=x if pass_x else None)
    np_dtype = np.float64 if dtype == torch.float64 else np.float32
    assert isinstance(W, sp.csr_array) and isinstance(b, np.ndarray)
    assert W.dtype == np_dtype and b.dtype == np_dtype, (W.dtype, b.dtype)
    ref = _forward(module, x, batch).reshape(-1)
    assert W.shape == (ref.numel(), x.numel()) and b.shape == (ref.numel(),)
    got = W @ x.numpy().reshape(-1) + b
    if dtype == torch.float64:
        np.testing.assert_allclose(got, ref.numpy(), rtol=1e-12, atol=1e-12)
    else:
        torch.testing.assert_close(torch.from_numpy(got), ref)
    return W, b


def _made(factory, seed, dtype):
    torch.manual_seed(seed)
    m = factory()
    m = m.to(dtype)
    with torch.no_grad():  # biases away from zero so a dropped bias shows
        for name, p in m.named_parameters():
            if "bias" in name:
                p.add_(0.5)
    return m


# ---------------------------------------------------------------------------------------------
# convolutions
# ---------------------------------------------------------------------------------------------
@EXAMPLES
@given(kit.conv_layers(boundaries=("zero", "circular", "reflect", "replicate"), values=False), st.booleans(), SEEDS,
       DTYPES)
def test_conv(cfg, bias, seed, dtype):
    """The kit's layers (every padding kind and padding_mode, groups, dilation), biases on and off."""
    cls = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[cfg.d]
    m = _made(lambda: cls(**{**cfg.torch_module_kwargs(), "bias": bias}), seed, dtype)
    _check(m, cfg.input_shape, seed, dtype)


@st.composite
def conv_transpose_layers(draw):
    d = draw(st.integers(1, 3))
    g = draw(st.integers(1, 3))
    cin, cout = g * draw(st.integers(1, 2)), g * draw(st.integers(1, 2))
    ks = tuple(draw(st.integers(1, 3)) for _ in range(d))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(d))
    dil = tuple(draw(st.integers(1, 2)) for _ in range(d))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(d))
    out_pad = tuple(draw(st.integers(0, max(s, dl) - 1)) for s, dl in zip(stride, dil))
    spatial = []
    for k, s, dl, p, op in zip(ks, stride, dil, padding, out_pad):
        # torch's output size (n-1)s - 2p + dl(k-1) + op + 1 must be positive
        low = 1
        while (low - 1) * s - 2 * p + dl * (k - 1) + op + 1 < 1:
            low += 1
        spatial.append(draw(st.integers(low, low + (2 if d < 3 else 1))))
    kw = dict(stride=stride, padding=padding, output_padding=out_pad, dilation=dil, groups=g,
              bias=draw(st.booleans()))
    return d, cin, cout, ks, kw, (cin,) + tuple(spatial)


@EXAMPLES
@given(conv_transpose_layers(), SEEDS, DTYPES)
def test_conv_transpose(cfg, seed, dtype):
    d, cin, cout, ks, kw, shape = cfg
    cls = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[d]
    m = _made(lambda: cls(cin, cout, ks, **kw), seed, dtype)
    _check(m, shape, seed, dtype)


def test_conv_transpose_output_padding_past_stride():
    """output_padding >= stride is allowed by torch when < dilation: the extra rows are dropped."""
    m = _made(lambda: nn.ConvTranspose2d(2, 4, 3, stride=1, dilation=3, output_padding=(2, 1), groups=2),
              0, torch.float64)
    _check(m, (2, 3, 4), 0, torch.float64)


# ---------------------------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------------------------
POOLS = {("avg", 1): nn.AvgPool1d, ("avg", 2): nn.AvgPool2d, ("avg", 3): nn.AvgPool3d,
         ("max", 1): nn.MaxPool1d, ("max", 2): nn.MaxPool2d, ("max", 3): nn.MaxPool3d}


@EXAMPLES
@given(kit.pool_layers(kinds=("avg",), values=False), SEEDS, DTYPES)
def test_avgpool(cfg, seed, dtype):
    """The kit's average pooling layers: ceil_mode, count_include_pad, divisor_override (negative too)."""
    m = POOLS["avg", cfg.d](**cfg.torch_module_kwargs())
    _check(m, cfg.input_shape, seed, dtype, pass_x=True)  # parameter-free: dtype follows x


@EXAMPLES
@given(kit.pool_layers(kinds=("max",), values=False), SEEDS, DTYPES, st.booleans())
def test_maxpool(cfg, seed, dtype, ties):
    """The kit's max pooling layers, dilation included; with ties torch keeps the first maximum."""
    m = POOLS["max", cfg.d](**cfg.torch_module_kwargs())
    gen = torch.Generator().manual_seed(seed)
    x = torch.randint(-2, 3, cfg.input_shape, generator=gen).to(dtype) if ties else None
    W, b = _check(m, cfg.input_shape, seed, dtype, x=x, pass_x=True)
    assert not b.any() and np.all(W.data == 1) and np.all(np.diff(W.indptr) == 1)


def test_maxpool_return_indices_module():
    m = nn.MaxPool2d(2, return_indices=True)
    _check(m, (2, 4, 5), 3, torch.float64, pass_x=True)


def test_pool_one_tuple_padding_broadcasts():
    m = nn.AvgPool2d(3, stride=2, padding=(1,))
    W, _ = from_module(m, (1, 5, 5), dtype=torch.float64)
    ref = from_module(nn.AvgPool2d(3, stride=2, padding=1), (1, 5, 5), dtype=torch.float64)[0]
    assert (W != ref).nnz == 0


# ---------------------------------------------------------------------------------------------
# Linear, LinearRNN, NdLinear
# ---------------------------------------------------------------------------------------------
@EXAMPLES
@given(st.integers(1, 5), st.integers(1, 5), st.lists(st.integers(1, 3), max_size=2), st.booleans(), SEEDS, DTYPES)
def test_linear(n_in, n_out, lead, bias, seed, dtype):
    m = _made(lambda: nn.Linear(n_in, n_out, bias=bias), seed, dtype)
    _check(m, tuple(lead) + (n_in,), seed, dtype)


@EXAMPLES
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 2), st.integers(1, 5), st.booleans(), SEEDS, DTYPES)
def test_linear_rnn(n_in, hidden, layers, steps, bias, seed, dtype):
    m = _made(lambda: LinearRNN(n_in, hidden, num_layers=layers, bias=bias), seed, dtype)
    _check(m, (steps, n_in), seed, dtype)


def test_linear_rnn_module():
    """LinearRNN is the linear recurrence: isomat's rnn_apply, and batched == unbatched."""
    from isomat.algebra import rnn_apply

    m = _made(lambda: LinearRNN(3, 4, bias=False), 1, torch.float64)
    x = torch.randn(5, 3, dtype=torch.float64)
    out, h_n = m(x)
    ref = rnn_apply(m.weight_ih_l0.detach().numpy(), m.weight_hh_l0.detach().numpy(), x.numpy())
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    assert torch.equal(h_n[0], out[-1])
    mb = _made(lambda: LinearRNN(3, 4, num_layers=2, batch_first=True), 2, torch.float64)
    xb = torch.randn(2, 5, 3, dtype=torch.float64)
    outb, _ = mb(xb)
    torch.testing.assert_close(outb[1], mb(xb[1])[0])
    assert isinstance(m, nn.RNN) and "nonlinearity=None" in repr(m)


@EXAMPLES
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3)), min_size=1, max_size=3), st.booleans(), SEEDS,
       DTYPES)
def test_ndlinear(dims, outer, seed, dtype):
    NdLinear = pytest.importorskip("ndlinear").NdLinear
    D, H = tuple(a for a, _ in dims), tuple(b for _, b in dims)
    m = _made(lambda: NdLinear(D, H, transform_outer=outer), seed, dtype)
    _check(m, D, seed, dtype, batch=True)


# ---------------------------------------------------------------------------------------------
# dtype and parameters
# ---------------------------------------------------------------------------------------------
def test_dtype_follows_module_and_override():
    m = nn.Conv2d(2, 3, 3)  # float32
    W, b = from_module(m, (2, 5, 5))
    assert W.dtype == np.float32 and b.dtype == np.float32
    W64, b64 = from_module(m, (2, 5, 5), dtype=torch.float64)
    assert W64.dtype == np.float64 and b64.dtype == np.float64
    np.testing.assert_array_equal(W64.astype(np.float32).toarray(), W.toarray())
    assert from_module(m, (2, 5, 5), dtype="float64")[0].dtype == np.float64
    assert from_module(m.double(), (2, 5, 5))[0].dtype == np.float64


def test_dtype_of_parameter_free_modules():
    pool = nn.AvgPool2d(2)
    assert from_module(pool, (1, 4, 4))[0].dtype == np.dtype(str(torch.get_default_dtype()).split(".")[1])
    assert from_module(pool, (1, 4, 4), x=torch.zeros(1, 4, 4, dtype=torch.float64))[0].dtype == np.float64
    assert from_module(pool, None, x=np.zeros((1, 4, 4), dtype=np.float32))[0].dtype == np.float32


def test_parameters_requiring_grad_are_detached():
    m = nn.Linear(3, 2)
    assert m.weight.requires_grad
    W, b = from_module(m, (3,))
    np.testing.assert_array_equal(W.toarray(), m.weight.detach().numpy())
    np.testing.assert_array_equal(b, m.bias.detach().numpy())


# ---------------------------------------------------------------------------------------------
# bad inputs
# ---------------------------------------------------------------------------------------------
def test_nn_rnn_is_refused_with_a_pointer():
    with pytest.raises(TypeError, match=r"nn\.RNN.*tanh.*not affine.*LinearRNN"):
        from_module(nn.RNN(2, 3), (4, 2))
    with pytest.raises(TypeError, match=r"LSTM.*LinearRNN"):
        from_module(nn.LSTM(2, 3), (4, 2))


@pytest.mark.parametrize("module, shape, kw, exc, match", [
    (nn.ReLU(), (3,), {}, TypeError, r"ReLU is not supported.*nn\.Conv1d"),
    (nn.Sequential(nn.Linear(2, 2)), (2,), {}, TypeError, "Sequential is not supported"),
    (nn.MaxPool2d(2), (1, 4, 4), {}, ValueError, "pass x="),
    (nn.Conv2d(3, 2, 3), (2, 5, 5), {}, ValueError, "in_channels=3"),
    (nn.Conv2d(3, 2, 3), (3, 5), {}, ValueError, r"\(C_in, n1, n2\)"),
    (nn.Conv2d(3, 2, 3), (1, 3, 5, 5), {}, ValueError, "no batch axis"),
    (nn.ConvTranspose1d(3, 2, 3), (2, 5), {}, ValueError, "in_channels=3"),
    (nn.AvgPool2d(2), (4, 4), {}, ValueError, r"\(C, n1, n2\)"),
    (nn.AvgPool2d(2, divisor_override=0), (1, 4, 4), {}, ValueError, "divisor_override"),
    (nn.Linear(3, 2), (4,), {}, ValueError, "in_features=3"),
    (LinearRNN(3, 2), (4, 2), {}, ValueError, "input_size=3"),
    (LinearRNN(3, 2), (4,), {}, ValueError, r"\(T, input_size\)"),
    (nn.Linear(3, 2), (3,), dict(x=torch.zeros(4)), ValueError, "x has shape"),
    (nn.Linear(3, 2), (3,), dict(dtype=torch.int64), ValueError, "floating"),
    (nn.Linear(3, 2), (3,), dict(dtype=object()), TypeError, "dtype"),
    (nn.Linear(3, 2), (0,), {}, ValueError, "positive"),
    (nn.Linear(3, 2), "abc", {}, TypeError, "input_shape"),
    (nn.Linear(3, 2), None, {}, TypeError, "input_shape"),
    (np.eye(3), (3,), {}, TypeError, "torch.nn.Module"),
])
def test_bad_inputs(module, shape, kw, exc, match):
    with pytest.raises(exc, match=match):
        from_module(module, shape, **kw)


def test_bad_padding_mode():
    m = nn.Conv1d(1, 1, 3, padding=1)
    m.padding_mode = "mirror"
    with pytest.raises(ValueError, match="padding_mode='mirror'.*'reflect', 'replicate'"):
        from_module(m, (1, 5))


def test_ndlinear_shape_mismatch():
    NdLinear = pytest.importorskip("ndlinear").NdLinear
    with pytest.raises(ValueError, match=r"input_dims=\(2, 3\)"):
        from_module(NdLinear((2, 3), (2, 2)), (3, 2))


def test_import_without_torch_names_the_extra(monkeypatch):
    import isomat

    saved_mod, saved_attr = sys.modules.pop("isomat.torch"), isomat.__dict__.pop("torch", None)
    monkeypatch.setitem(sys.modules, "torch", None)
    try:
        with pytest.raises(ImportError, match=r"isomat\[torch\]"):
            importlib.import_module("isomat.torch")
    finally:
        sys.modules["isomat.torch"] = saved_mod
        if saved_attr is not None:
            isomat.torch = saved_attr


@pytest.mark.filterwarnings("ignore:Complex modules are a new feature")
@pytest.mark.parametrize("factory, shape", [
    (lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect", dtype=torch.cdouble), (2, 4, 5)),
    (lambda: nn.ConvTranspose1d(2, 2, 3, stride=2, dtype=torch.cdouble), (2, 4)),
    (lambda: nn.Linear(3, 2, dtype=torch.cdouble), (3,)),
])
def test_complex_modules(factory, shape):
    m = _made(factory, 0, torch.cdouble)
    x = torch.randn(shape, dtype=torch.cdouble)
    W, b = from_module(m, shape)
    assert W.dtype == b.dtype == np.complex128
    np.testing.assert_allclose(W @ x.numpy().reshape(-1) + b, _forward(m, x).reshape(-1).numpy(), rtol=1e-12,
                               atol=1e-12)
    with pytest.raises(ValueError, match="complex parameters"):
        from_module(m, shape, dtype=torch.float64)


def test_linear_rnn_initial_state_and_bad_input():
    m = _made(lambda: LinearRNN(2, 3), 0, torch.float64)
    x, h0 = torch.randn(4, 2, dtype=torch.float64), torch.randn(1, 3, dtype=torch.float64)
    out, _ = m(x, h0)
    ref = m(x)[0] + torch.stack([torch.linalg.matrix_power(m.weight_hh_l0, t + 1) @ h0[0] for t in range(4)])
    torch.testing.assert_close(out, ref)
    with pytest.raises(ValueError, match="2 \\(unbatched\\) or 3 dims"):
        m(torch.zeros(2))
