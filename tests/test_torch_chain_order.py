"""The chain of sparse factors multiplied in either order (issue: whole networks, second step, item 2).

``forward`` carries the map from the input, ``reverse`` from the output (as autograd's backward);
both are checked against ``torch.func.jacrev`` (the independent reference) and against each other,
and ``order="auto"`` against the cost estimate it follows.
"""

from __future__ import annotations

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
]


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
