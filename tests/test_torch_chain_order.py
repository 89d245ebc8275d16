"""The chain of sparse factors multiplied in either order (issue: whole networks, second step, item 2).

``forward`` carries the map from the input, ``reverse`` from the output (as autograd's backward);
both are checked against ``torch.func.jacrev`` (the independent reference) and against each other,
and ``order="auto"`` against the cost estimate it follows.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from isomat.testing.models import LeNet5, TinyUNet  # noqa: E402
from isomat.torch import from_model  # noqa: E402

F64 = torch.float64

MODELS = [
    pytest.param(lambda: LeNet5(pool="max"), (1, 32, 32), id="lenet5-max"),
    pytest.param(lambda: nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1),
                                       nn.Hardtanh(-0.3, 0.3)), (2, 8, 8), id="wide-output-conv"),
    pytest.param(lambda: TinyUNet(width=2), (1, 8, 8), id="unet-residual-cat"),
    pytest.param(lambda: nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 3)), (6,), id="smooth"),
    # few outputs (dense reverse rows): a diagonal factor, a hardtanh's offsets, a padded max pool
    pytest.param(lambda: _bn_stats(nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.Hardtanh(-0.2, 0.3),
                                                 nn.MaxPool2d(3, stride=2, padding=1), nn.Flatten(), nn.Linear(48, 5))),
                 (2, 8, 8), id="classifier-bn-hardtanh-padded-pool"),
]


def _bn_stats(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
    return model


@pytest.mark.parametrize("factory, shape", MODELS)
def test_both_orders_give_torchs_jacobian(factory, shape):
    torch.manual_seed(0)
    model = factory().to(F64).eval()
    net = from_model(model, shape)
    x = torch.randn(shape, dtype=F64)
    ref = torch.func.jacrev(lambda t: model(t[None])[0])(x).reshape(net.n_out, net.n_in).detach().numpy()
    Jf, Jr = net.jacobian(x, order="forward"), net.jacobian(x, order="reverse")
    np.testing.assert_allclose(Jf.toarray(), ref, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(Jr.toarray(), ref, rtol=1e-11, atol=1e-13)
    if net.is_piecewise_linear:
        (Af, cf), (Ar, cr) = net.local_affine(x, order="forward"), net.local_affine(x, order="reverse")
        np.testing.assert_allclose(Ar.toarray(), Af.toarray(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(cr, cf, rtol=1e-12, atol=1e-13)
        y = model(x[None])[0].detach().numpy().reshape(-1)
        np.testing.assert_allclose(Ar @ x.numpy().reshape(-1) + cr, y, rtol=1e-11, atol=1e-12)
    else:
        with pytest.raises(ValueError, match="not piecewise linear"):
            net.local_affine(x, order="reverse")


def test_auto_takes_the_cheaper_estimate():
    torch.manual_seed(1)
    lenet = from_model(LeNet5(pool="max").to(F64).eval(), (1, 32, 32))
    x = torch.randn(1, 32, 32, dtype=F64)
    costs = lenet.chain_costs(x)
    assert costs["reverse"] * 10 < costs["forward"]  # 10 outputs against 1,024 inputs
    # a map with many outputs and few inputs: forward is the cheaper order
    wide = from_model(nn.Sequential(nn.Linear(2, 400), nn.ReLU(), nn.Linear(400, 400)).to(F64).eval(), (2,))
    xw = torch.randn(2, dtype=F64)
    cw = wide.chain_costs(xw)
    assert cw["forward"] < cw["reverse"]
    with pytest.raises(ValueError, match="order"):
        lenet.jacobian(x, order="sideways")
    assert lenet._order(x, "auto")[0] == "reverse"
    J = lenet.jacobian(x)  # the reverse order caches the factors' transposes on the nodes: still deep-copyable
    assert (copy.deepcopy(lenet).jacobian(x) != J).nnz == 0
    # at least as many outputs as inputs (and more than the dense-row bound): forward, for memory, whatever
    # the cost estimate says (the reverse order's sparse rows outgrow the result)
    stack = from_model(nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)).to(F64),
                       (1, 8, 8))
    assert stack.n_out > 64 and stack.n_out >= stack.n_in
    assert stack._order(torch.randn(1, 8, 8, dtype=F64), "auto")[0] == "forward"


def test_cached_window_table_selects_as_maxpool_selection():
    """MaxPoolNode.selection (a window table made once per node) picks what isomat.algebra.maxpool_selection
    picks: each window's first maximum, padding read as -inf, at ties, with dilation and ceil_mode."""
    from isomat.algebra import maxpool_selection

    rng = np.random.default_rng(0)
    for pool, shape in [(nn.MaxPool2d(3, stride=2, padding=1), (2, 5, 6)),
                        (nn.MaxPool2d(2, stride=1, dilation=2, ceil_mode=True), (1, 6, 5)),
                        (nn.MaxPool1d(3, stride=2, padding=1, ceil_mode=True), (2, 7))]:
        node = [n for n in from_model(pool, shape).nodes.values() if hasattr(n, "window")][0]
        for _ in range(3):
            z = rng.integers(-2, 3, size=shape).astype(np.float64)  # many ties
            S = node.selection(z.reshape(-1))
            ref = maxpool_selection(z, node.window, stride=node.stride, padding=node.padding, dilation=node.dilation,
                                    ceil_mode=node.ceil_mode, ndim=node.ndim)
            assert (S != ref).nnz == 0
