"""Whole networks (issue: zhu2025's unified representation end to end).

``from_model`` is checked against torch's own forward (the independent reference) on real
architectures (LeNet-5, a ResNet BasicBlock stack with eval batch norm, a U-Net-like
encoder-decoder) and on every supported module and function, alone and in Hypothesis-drawn
compositions; ``local_affine``/``jacobian`` against ``torch.func.jacrev``; the exact field against
Fraction arithmetic done by hand; the sparse twin's outputs and parameter gradients against the
native model's.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from isomat.testing.models import BasicBlock, DigitsCNN, LeNet5, ResNetStack, TinyUNet  # noqa: E402
from isomat.testing.strategies import torch_models  # noqa: E402
from isomat.torch import (LinearRNN, Network, UnsupportedNodeError, from_model,  # noqa: E402
                          to_sparse_model)

F64 = torch.float64


def _randomize_bn(model: nn.Module) -> nn.Module:
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2.0)
                if m.weight is not None:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.5, 0.5)
    return model


def _check_forward(model: nn.Module, shape: tuple[int, ...], n: int = 3, rtol: float = 1e-12) -> Network:
    net = from_model(model, shape)
    x = torch.randn((n,) + shape, dtype=F64)
    with torch.no_grad():
        ref = model.to(F64)(x).numpy()
    got = net.forward(x)
    assert got.shape == ref.shape
    scale = 1.0 + np.max(np.abs(ref))
    assert np.max(np.abs(got - ref)) <= rtol * scale
    return net


def _jacrev(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    J = torch.func.jacrev(lambda t: model(t[None])[0])(x)
    return J.reshape(-1, x.numel()).detach().numpy()


def _check_twin(model: nn.Module, shape: tuple[int, ...], n: int = 3, tol: float = 1e-10) -> None:
    """The twin's outputs and gradients equal the model's with either kernel (the CSR products; the
    cheapest exact form of each layer)."""
    model = model.to(F64)
    twin = to_sparse_model(model, shape, dtype=F64)
    assert twin.kernel == "auto"
    assert [k for k, _ in twin.source.named_parameters()] == [k for k, _ in model.named_parameters()]
    x = torch.randn((n,) + shape, dtype=F64, requires_grad=True)
    y = model(x)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    for kernel in ("auto", "sparse"):
        twin.kernel = kernel
        twin.zero_grad()
        _check_twin_gradients(model, twin, x, y, g, tol)


def _check_twin_gradients(model, twin, x, y, g, tol):
    x2 = x.detach().clone().requires_grad_(True)
    y2 = twin(x2)
    (y2 * g).sum().backward()
    scale = 1.0 + float(y.detach().abs().max())
    assert float((y - y2).abs().max()) <= tol * scale
    assert float((x.grad - x2.grad).abs().max()) <= tol * (1 + float(x.grad.abs().max()))
    twin_params = dict(twin.source.named_parameters())
    for name, p in model.named_parameters():
        q = twin_params[name]
        if p.grad is None:
            assert q.grad is None or float(q.grad.abs().max()) == 0.0, name
            continue
        assert q.grad is not None, name
        assert float((p.grad - q.grad).abs().max()) <= tol * (1 + float(p.grad.abs().max())), name


# ---------------------------------------------------------------------------------------------
# real architectures
# ---------------------------------------------------------------------------------------------
ZOO = [
    pytest.param(lambda: LeNet5(), (1, 32, 32), id="lenet5-avg-relu"),
    pytest.param(lambda: LeNet5(pool="max", act=nn.Tanh), (1, 32, 32), id="lenet5-max-tanh"),
    pytest.param(lambda: _randomize_bn(ResNetStack((16, 32), c_in=3)), (3, 32, 32), id="resnet-basicblocks"),
    pytest.param(lambda: _randomize_bn(TinyUNet(up_mode="bilinear", align_corners=False)), (1, 16, 16), id="unet-bilinear"),
    pytest.param(lambda: _randomize_bn(TinyUNet(up_mode="bilinear", align_corners=True)), (1, 16, 16), id="unet-bilinear-ac"),
    pytest.param(lambda: _randomize_bn(TinyUNet(up_mode="nearest")), (1, 16, 16), id="unet-nearest"),
    pytest.param(lambda: DigitsCNN(), (1, 8, 8), id="digits-cnn"),
]


@pytest.mark.parametrize("factory, shape", ZOO)
def test_from_model_reproduces_real_architectures(factory, shape):
    torch.manual_seed(0)
    model = factory().eval()
    net = _check_forward(model, shape)
    assert net.output_shape == tuple(model(torch.zeros((1,) + shape, dtype=F64)).shape[1:])


def test_resnet_blocks_fold_batch_norm_exactly_into_one_map_per_segment():
    torch.manual_seed(1)
    model = _randomize_bn(nn.Sequential(BasicBlock(4, 4), BasicBlock(4, 8, stride=2))).eval()
    net = _check_forward(model, (4, 8, 8))
    segs = net.affine_segments()
    # conv+bn, conv+bn+identity/projection (the residual addition), per block: 4 segments, one per ReLU
    n_relu = sum(1 for n in net.nodes.values() if getattr(n, "fn", None) == "relu")
    assert len(segs) == n_relu == 4
    assert all(len(s.inputs) in (1, 2) for s in segs)


def test_float32_model_matches_to_float32_rounding():
    torch.manual_seed(2)
    model = LeNet5().eval()
    net = from_model(model, (1, 32, 32))
    x = torch.randn(4, 1, 32, 32)
    with torch.no_grad():
        ref = model(x).numpy()
    assert next(model.parameters()).dtype == torch.float32
    np.testing.assert_allclose(net.forward(x), ref, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# every supported module and function: forward, jacobian, and the twin's gradients
# ---------------------------------------------------------------------------------------------
class Lambda(nn.Module):
    def __init__(self, fn, *mods):
        super().__init__()
        self.fn = fn
        self.mods = nn.ModuleList(mods)

    def forward(self, x):
        return self.fn(x, *self.mods)


class WithParam(nn.Module):
    def __init__(self, fn, shape):
        super().__init__()
        self.conv = nn.Conv2d(shape[0], shape[0], 3, padding=1)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.conv(x))


def _ndlinear():
    ndlinear = pytest.importorskip("ndlinear")
    return ndlinear.NdLinear((3, 4), (2, 5))


CASES = [
    # (id, factory, input shape)
    ("conv1d", lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), (2, 7)),
    ("conv2d-groups-dilation", lambda: nn.Conv2d(4, 4, 3, groups=2, dilation=2, padding=2), (4, 6, 5)),
    ("conv2d-reflect", lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (2, 5, 5)),
    ("conv3d", lambda: nn.Conv3d(1, 2, 2), (1, 3, 3, 3)),
    ("convtranspose2d", lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1), (2, 3, 4)),
    ("linear", lambda: nn.Sequential(nn.Flatten(), nn.Linear(12, 5)), (3, 4)),
    ("linear-lead-axes", lambda: nn.Linear(4, 3), (2, 4)),
    ("avgpool2d", lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 5, 6)),
    ("maxpool2d", lambda: nn.MaxPool2d(3, stride=2, padding=1), (2, 5, 6)),
    ("maxpool1d-dilation", lambda: nn.MaxPool1d(2, dilation=2), (2, 7)),
    ("adaptive-maxpool2d", lambda: nn.AdaptiveMaxPool2d((2, 3)), (2, 5, 7)),
    ("batchnorm1d", lambda: _randomize_bn(nn.BatchNorm1d(3)).eval(), (3, 4)),
    ("batchnorm1d-features", lambda: _randomize_bn(nn.BatchNorm1d(3)).eval(), (3,)),
    ("batchnorm2d-no-affine", lambda: _randomize_bn(nn.BatchNorm2d(2, affine=False)).eval(), (2, 3, 3)),
    ("batchnorm3d", lambda: _randomize_bn(nn.BatchNorm3d(2)).eval(), (2, 2, 3, 2)),
    ("flatten-unflatten-identity", lambda: nn.Sequential(nn.Flatten(), nn.Identity(), nn.Unflatten(1, (2, 6))), (3, 4)),
    ("dropout-eval", lambda: nn.Sequential(nn.Dropout(0.5), nn.Dropout2d(0.3)).eval(), (2, 3, 3)),
    ("adaptive-avgpool1d", lambda: nn.AdaptiveAvgPool1d(3), (2, 7)),
    ("adaptive-avgpool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)), (2, 5, 7)),
    ("adaptive-avgpool3d", lambda: nn.AdaptiveAvgPool3d(2), (1, 3, 4, 5)),
    ("upsample-nearest", lambda: nn.Upsample(scale_factor=2, mode="nearest"), (2, 3, 4)),
    ("upsample-nearest-exact", lambda: nn.Upsample(size=(5, 7), mode="nearest-exact"), (2, 3, 4)),
    ("upsample-linear", lambda: nn.Upsample(scale_factor=3, mode="linear", align_corners=False), (2, 4)),
    ("upsample-bilinear", lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), (2, 3, 4)),
    ("upsample-bilinear-ac", lambda: nn.Upsample(size=(5, 6), mode="bilinear", align_corners=True), (2, 3, 4)),
    ("upsample-trilinear", lambda: nn.Upsample(scale_factor=2, mode="trilinear", align_corners=True), (1, 2, 3, 2)),
    ("upsampling-bilinear2d", lambda: nn.UpsamplingBilinear2d(scale_factor=2), (1, 3, 3)),
    ("zeropad2d", lambda: nn.ZeroPad2d((1, 2, 0, 1)), (2, 3, 3)),
    ("constantpad1d", lambda: nn.ConstantPad1d(2, 0.5), (2, 4)),
    ("reflectionpad2d", lambda: nn.ReflectionPad2d(1), (2, 3, 4)),
    ("replicationpad3d", lambda: nn.ReplicationPad3d(1), (1, 2, 2, 3)),
    ("circularpad2d", lambda: nn.CircularPad2d((1, 1, 2, 0)), (1, 3, 3)),
    ("pixel-shuffle", lambda: nn.PixelShuffle(2), (8, 2, 3)),
    ("pixel-unshuffle", lambda: nn.PixelUnshuffle(2), (2, 4, 6)),
    ("relu", lambda: nn.ReLU(), (2, 3, 3)),
    ("relu6", lambda: nn.ReLU6(), (2, 3, 3)),
    ("leaky-relu", lambda: nn.LeakyReLU(0.2), (2, 3, 3)),
    ("prelu-per-channel", lambda: WithParam(nn.PReLU(2), (2, 3, 3)), (2, 3, 3)),
    ("prelu-shared", lambda: nn.PReLU(), (2, 3, 3)),
    ("hardtanh", lambda: nn.Hardtanh(-0.3, 0.4), (2, 3, 3)),
    ("tanh", lambda: nn.Tanh(), (2, 3, 3)),
    ("sigmoid", lambda: nn.Sigmoid(), (2, 3, 3)),
    ("gelu", lambda: nn.GELU(), (2, 3, 3)),
    ("gelu-tanh", lambda: nn.GELU(approximate="tanh"), (2, 3, 3)),
    ("silu", lambda: nn.SiLU(), (2, 3, 3)),
    ("linear-rnn", lambda: Lambda(lambda x, rnn: rnn(x)[0], LinearRNN(3, 4, num_layers=2, batch_first=True)), (5, 3)),
    ("ndlinear", _ndlinear, (3, 4)),
    # functional forms and tensor methods
    ("f-relu-abs-clamp", lambda: Lambda(lambda x: torch.clamp(F.relu(x) - torch.abs(x) * 0.5, min=-0.2)), (2, 3, 3)),
    ("f-leaky-hardtanh", lambda: Lambda(lambda x: F.hardtanh(F.leaky_relu(x, 0.3), -0.5, 0.5)), (2, 3, 3)),
    ("f-pools", lambda: Lambda(lambda x: F.max_pool2d(F.avg_pool2d(x, 2, 1), 2, 1)), (2, 5, 5)),
    ("f-adaptive", lambda: Lambda(lambda x: F.adaptive_max_pool2d(F.adaptive_avg_pool2d(x, 4), 2)), (2, 5, 5)),
    ("f-interpolate-pad", lambda: Lambda(lambda x: F.pad(F.interpolate(x, scale_factor=1.5, mode="bilinear"), (1, 0, 0, 1),
                                                         mode="replicate")), (2, 4, 4)),
    ("permute-transpose", lambda: Lambda(lambda x: x.permute(0, 2, 3, 1).transpose(1, 2).contiguous().view(x.size(0), -1)),
     (2, 3, 4)),
    ("slice-cat-stack", lambda: Lambda(lambda x: torch.stack([torch.cat([x[:, :, 1:], x[:, :, :1]], dim=2), x], dim=1)),
     (2, 3, 4)),
    ("mean-sum", lambda: Lambda(lambda x: x.mean((2, 3)) + x.sum(dim=3).sum(2) / 7), (2, 3, 4)),
    ("arith-constants", lambda: Lambda(lambda x: (2.0 * x - 1.0) / 3.0 + torch.arange(4.0, dtype=x.dtype) - (-x)), (2, 3, 4)),
    ("residual-broadcast", lambda: Lambda(lambda x: x + x.mean(dim=(2, 3), keepdim=True)), (2, 3, 4)),
    ("pixel-shuffle-functional", lambda: Lambda(lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2)), (4, 2, 3)),
]


@pytest.mark.parametrize("factory, shape", [pytest.param(f, s, id=i) for i, f, s in CASES])
def test_every_supported_module_forward_jacobian_and_twin(factory, shape):
    torch.manual_seed(3)
    model = factory().to(F64).eval()
    net = _check_forward(model, shape)
    x = torch.randn(shape, dtype=F64)
    J = net.jacobian(x)
    np.testing.assert_allclose(J.toarray(), _jacrev(model, x), rtol=1e-10, atol=1e-12)
    _check_twin(model, shape)


def test_float32_twin_matches_the_native_model():
    torch.manual_seed(4)
    model = DigitsCNN().eval()
    twin = to_sparse_model(model, (1, 8, 8))
    x = torch.randn(5, 1, 8, 8)
    y = model(x)
    y.sum().backward()
    for kernel in ("auto", "sparse"):
        twin.kernel = kernel
        twin.zero_grad()
        y2 = twin(x)
        assert y2.dtype == torch.float32
        torch.testing.assert_close(y2, y)
        y2.sum().backward()
        for (name, p), (_, q) in zip(model.named_parameters(), twin.source.named_parameters()):
            torch.testing.assert_close(q.grad, p.grad, msg=name)


# ---------------------------------------------------------------------------------------------
# local linear maps and regions
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("factory, shape", [
    pytest.param(lambda: LeNet5(pool="max"), (1, 32, 32), id="lenet5-max"),
    pytest.param(lambda: _randomize_bn(TinyUNet(width=2)), (1, 8, 8), id="unet"),
    pytest.param(lambda: nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.Hardtanh(-0.2, 0.3), nn.MaxPool2d(2),
                                       nn.LeakyReLU(0.1), nn.Flatten(), nn.Linear(12, 3), nn.ReLU()), (2, 4, 4),
                 id="hardtanh-maxpool-leaky"),
])
def test_local_affine_equals_jacrev_and_the_region_is_where_it_holds(factory, shape):
    torch.manual_seed(5)
    model = factory().to(F64).eval()
    net = from_model(model, shape)
    x = torch.randn(shape, dtype=F64)
    la = net.local_affine(x)
    np.testing.assert_allclose(la.J.toarray(), _jacrev(model, x), rtol=1e-10, atol=1e-12)
    xv = x.numpy().reshape(-1)
    with torch.no_grad():
        fx = model(x[None])[0].numpy().reshape(-1)
    np.testing.assert_allclose(la.J @ xv + la.c, fx, rtol=1e-10, atol=1e-10)
    region = net.region(x)
    assert region.contains(xv)
    r = region.distance(xv)
    assert r > 0
    # inside the region (a step shorter than the distance to its boundary) the map is exact
    rng = np.random.default_rng(0)
    for _ in range(3):
        step = rng.standard_normal(xv.size)
        xp = xv + 0.9 * r * step / np.linalg.norm(step)
        assert region.contains(xp, tol=1e-12)
        with torch.no_grad():
            f_xp = model(torch.as_tensor(xp.reshape((1,) + shape)))[0].numpy().reshape(-1)
        np.testing.assert_allclose(la.J @ xp + la.c, f_xp, rtol=1e-9, atol=1e-9)


def test_leaving_the_region_changes_the_map():
    """Across the nearest boundary the pattern changes: the local map no longer predicts f."""
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(F64)
    net = from_model(model, (3,))
    x = torch.randn(3, dtype=F64)
    la, region = net.local_affine(x), net.region(x)
    xv = x.numpy()
    s = region.slack(xv)
    norms = np.sqrt(np.asarray(region.A.multiply(region.A).sum(axis=1)).reshape(-1))
    k = int(np.argmin(s / norms))
    a = region.A.toarray()[k]
    xp = xv + (s[k] / norms[k] + 0.5) * a / norms[k]  # past the binding hyperplane
    assert not region.contains(xp)
    with torch.no_grad():
        f_xp = model(torch.as_tensor(xp)[None])[0].numpy()
    assert np.max(np.abs(la.J @ xp + la.c - f_xp)) > 1e-6


def test_local_affine_refuses_smooth_networks_and_jacobian_handles_them():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(F64)
    net = from_model(model, (3,))
    x = torch.randn(3, dtype=F64)
    with pytest.raises(ValueError, match=r"tanh.*not piecewise linear.*jacobian"):
        net.local_affine(x)
    np.testing.assert_allclose(net.jacobian(x).toarray(), _jacrev(model, x), rtol=1e-12, atol=1e-14)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(torch_models())
def test_random_models_forward_and_jacobian(spec):
    model = spec.build()
    net = _check_forward(model, spec.input_shape)
    x = torch.randn(spec.input_shape, dtype=F64)
    np.testing.assert_allclose(net.jacobian(x).toarray(), _jacrev(model, x), rtol=1e-9, atol=1e-11)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(torch_models(piecewise_linear=True))
def test_random_piecewise_linear_models_local_affine(spec):
    model = spec.build()
    net = from_model(model, spec.input_shape)
    x = torch.randn(spec.input_shape, dtype=F64)
    la = net.local_affine(x)
    np.testing.assert_allclose(la.J.toarray(), _jacrev(model, x), rtol=1e-9, atol=1e-11)
    with torch.no_grad():
        fx = model(x[None])[0].numpy().reshape(-1)
    np.testing.assert_allclose(la.J @ x.numpy().reshape(-1) + la.c, fx, rtol=1e-9, atol=1e-10)
    assert net.region(x).contains(x.numpy(), tol=1e-12)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(torch_models(max_layers=4))
def test_random_models_twin_gradients(spec):
    _check_twin(spec.build(), spec.input_shape)


# ---------------------------------------------------------------------------------------------
# affine segments, exactly
# ---------------------------------------------------------------------------------------------
def _frac(v: float) -> Fraction:
    return Fraction(*float(v).as_integer_ratio())


def test_exact_segment_of_a_linear_chain_equals_fraction_arithmetic():
    torch.manual_seed(7)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)).to(F64)
    net = from_model(model, (3,))
    (seg,) = net.affine_segments(field="sympy")
    W1, b1 = model[0].weight.detach().numpy(), model[0].bias.detach().numpy()
    W2, b2 = model[1].weight.detach().numpy(), model[1].bias.detach().numpy()
    for i in range(2):
        for j in range(3):
            want = sum(_frac(W2[i, k]) * _frac(W1[k, j]) for k in range(4))
            assert Fraction(int(seg.W[i, j].p), int(seg.W[i, j].q)) == want
        want_b = sum(_frac(W2[i, k]) * _frac(b1[k]) for k in range(4)) + _frac(b2[i])
        assert Fraction(int(seg.b[i].p), int(seg.b[i].q)) == want_b
    (fseg,) = net.affine_segments()
    np.testing.assert_allclose(fseg.W.toarray(), np.array(seg.W.tolist(), dtype=float), rtol=1e-15)


def test_exact_segment_keeps_structural_rationals_exact():
    """An adaptive average over 3 taps is 1/3 exactly in the exact field (the float is not)."""
    import sympy

    model = nn.Sequential(nn.AdaptiveAvgPool1d(1)).to(F64)
    net = from_model(model, (1, 3))
    (seg,) = net.affine_segments(field="sympy")
    assert list(seg.W) == [sympy.Rational(1, 3)] * 3


def test_exact_segments_of_a_conv_pool_linear_model_match_float_and_torch():
    torch.manual_seed(8)
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(8, 3),
                          _randomize_bn(nn.BatchNorm1d(3)).eval()).to(F64).eval()
    net = from_model(model, (1, 4, 4))
    (seg,) = net.affine_segments(field="sympy")  # no nonlinearity: the whole model is one (W, b)
    (fseg,) = net.affine_segments()
    We = np.array(seg.W.evalf(30).tolist(), dtype=float)
    np.testing.assert_allclose(We, fseg.W.toarray(), rtol=1e-13, atol=1e-15)
    x = torch.randn(1, 1, 4, 4, dtype=F64)
    with torch.no_grad():
        ref = model(x)[0].numpy()
    be = np.array(seg.b.evalf(30).tolist(), dtype=float).reshape(-1)
    np.testing.assert_allclose(We @ x.numpy().reshape(-1) + be, ref, rtol=1e-12, atol=1e-12)
    assert seg.input_shape == (1, 4, 4) and seg.output_shape == (3,)


def test_exact_local_affine_of_a_relu_net_equals_fraction_arithmetic():
    torch.manual_seed(9)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)).to(F64)
    net = from_model(model, (2,))
    x = torch.randn(2, dtype=F64)
    la = net.local_affine(x, field="sympy")
    W1, b1 = model[0].weight.detach().numpy(), model[0].bias.detach().numpy()
    W2, b2 = model[2].weight.detach().numpy(), model[2].bias.detach().numpy()
    z = W1 @ x.numpy() + b1
    mask = [1 if v > 0 else 0 for v in z]
    for j in range(2):
        want = sum(_frac(W2[0, k]) * mask[k] * _frac(W1[k, j]) for k in range(3))
        assert Fraction(int(la.J[0, j].p), int(la.J[0, j].q)) == want
    want_c = sum(_frac(W2[0, k]) * mask[k] * _frac(b1[k]) for k in range(3)) + _frac(b2[0])
    assert Fraction(int(la.c[0].p), int(la.c[0].q)) == want_c


def test_collapsed_network_computes_the_same_function():
    torch.manual_seed(10)
    model = _randomize_bn(ResNetStack((4, 8), c_in=1)).eval().to(F64)
    net = from_model(model, (1, 8, 8))
    small = net.collapsed()
    assert len(small.nodes) < len(net.nodes)
    x = torch.randn(2, 1, 8, 8, dtype=F64)
    np.testing.assert_allclose(small.forward(x), net.forward(x), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# refusals name the node, its op and its module path
# ---------------------------------------------------------------------------------------------
class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return x * self.lin(x)


def test_linear_rnn_h_n_and_a_tuple_output_are_refused():
    rnn = LinearRNN(3, 4, batch_first=True)
    with pytest.raises(UnsupportedNodeError, match=r"returns tuple"):
        from_model(rnn, (5, 3))
    with pytest.raises(UnsupportedNodeError, match=r"h_n"):
        from_model(Lambda(lambda x, r: r(x)[1], rnn), (5, 3))


class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class WithLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(3, 3), nn.LSTM(3, 2))

    def forward(self, x):
        return self.encoder(x)


@pytest.mark.parametrize("model, shape, pattern", [
    (WithLSTM(), (2, 3), r"node 'encoder_1' \(call_module, module path 'encoder\.1', torch\.nn\.modules\.rnn\.LSTM\)"),
    (Gate(), (4,), r"node 'mul' \(call_function _operator\.mul.*product of two traced tensors is not affine"),
    (nn.Sequential(nn.BatchNorm1d(3)), (3,), r"call_module, module path '0'.*BatchNorm1d is in training mode.*model\.eval\(\)"),
    (nn.Sequential(nn.Dropout(0.5)), (3,), r"Dropout\(p=0\.5\) is in training mode.*model\.eval\(\)"),
    (nn.Sequential(nn.BatchNorm2d(2, track_running_stats=False)).eval(), (2, 3, 3), r"track_running_stats=False"),
    (Lambda(lambda x: x.view(-1)), (3,), r"call_method Tensor\.view.*mixes or drops the batch axis"),
    (Lambda(lambda x: torch.cat([x, x], dim=0)), (3,), r"concatenation along the batch axis"),
    (Lambda(lambda x: torch.softmax(x, dim=1)), (3,), r"call_function torch\.softmax.*not supported"),
    (Lambda(lambda x: x.sum()), (3,), r"mixes or drops the batch axis|over all axes"),
    (Lambda(lambda x: x[0]), (3,), r"batch axis"),
    (Lambda(lambda x: F.interpolate(x, scale_factor=2, mode="bicubic")), (1, 3, 3), r"bicubic"),
    (nn.Sequential(nn.Conv2d(2, 1, 3)), (3, 3), r"Conv2d receives a tensor of 3 dims.*batched layout"),
])
def test_refusals_name_the_node(model, shape, pattern):
    with pytest.raises(UnsupportedNodeError, match=pattern):
        from_model(model, shape)


def test_untraceable_and_malformed_inputs():
    with pytest.raises(ValueError, match=r"torch\.fx could not trace Branchy\.forward"):
        from_model(Branchy(), (3,))
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module"):
        from_model(lambda x: x, (3,))
    with pytest.raises(ValueError, match=r"input_shape must be a non-empty tuple of positive ints"):
        from_model(nn.ReLU(), (0, 3))
    with pytest.raises(ValueError, match=r"without the batch axis"):
        from_model(nn.Linear(3, 2), (4,))
    with pytest.raises(TypeError, match=r"complex"):
        from_model(nn.Linear(2, 2, dtype=torch.cdouble), (2,))


def test_twin_refuses_a_parameter_used_as_a_constant():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.gamma = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return x * self.gamma

    net = from_model(Scale(), (3,))  # the network itself is fine: gamma is a constant of it
    assert net.nodes[list(net.nodes)[-1]].reads == ("gamma",)
    with pytest.raises(ValueError, match=r"reads the parameter 'gamma' as a constant"):
        to_sparse_model(Scale(), (3,))


def test_network_input_validation():
    net = from_model(nn.Linear(3, 2).to(F64), (3,))
    with pytest.raises(ValueError, match=r"expected one sample \(3,\) or a batch"):
        net.forward(np.zeros(4))
    with pytest.raises(ValueError, match=r"one sample"):
        net.local_affine(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"field must be"):
        net.affine_segments(field="float")
    assert "Network('Linear': (3,) -> (2,)" in repr(net)
    assert math.isinf(net.region(np.zeros(3)).distance(np.zeros(3)))


def test_products_past_the_loose_bound_are_counted_then_refused_or_filled_exactly():
    """A sparse product whose cheap bound passes the memory limit is counted block by block: filled
    at its exact size when it fits, refused (before allocating it) when it does not."""
    import scipy.sparse as sp

    from isomat._config import get_memory_limit, set_memory_limit
    from isomat.errors import SizeLimitError
    from isomat.torch.network import _spmm

    rng = np.random.default_rng(0)
    A = sp.random_array((2000, 2000), density=0.002, random_state=rng, format="csr")
    B = sp.random_array((2000, 2000), density=0.002, random_state=rng, format="csr")
    want = (A @ B).toarray()
    old = get_memory_limit()
    try:
        set_memory_limit(800_000)  # below the cheap bound (1.27 MB: nnz(A) x B's longest row), above the result (0.41 MB)
        np.testing.assert_allclose(_spmm(A, B, "test").toarray(), want, rtol=1e-14, atol=1e-14)
        set_memory_limit(300_000)  # below the result itself
        with pytest.raises(SizeLimitError, match=r"^test: a 2000x2000 operator"):
            _spmm(A, B, "test")
    finally:
        set_memory_limit(old)
