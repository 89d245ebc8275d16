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
import torch.nn.functional as F  # noqa: E402

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
    # the convolution forms of the reverse order (isomat/torch/_products.py): strides, dilation, groups, 1-d
    # and 3-d, a functional conv on a parameter, and a reflect-padded layer (no form: its CSR rows)
    pytest.param(lambda: nn.Sequential(nn.Conv1d(2, 4, 3, stride=2, dilation=2, padding=2), nn.ReLU(),
                                       nn.Conv1d(4, 4, 2, groups=2), nn.LeakyReLU(0.1), nn.Flatten(), nn.Linear(24, 3)),
                 (2, 13), id="conv1d-stride-dilation-groups"),
    pytest.param(lambda: nn.Sequential(nn.Conv3d(1, 2, 2, stride=(1, 2, 1), padding=(1, 0, 1)), nn.ReLU(),
                                       nn.Conv3d(2, 2, 1), nn.Flatten(), nn.Linear(2 * 5 * 2 * 5, 2)),
                 (1, 4, 4, 4), id="conv3d"),
    pytest.param(lambda: _FunctionalConv(), (2, 6, 6), id="functional-conv2d-and-reflect-padding"),
]


class _FunctionalConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3))
        self.reflect = nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect")
        self.head = nn.Linear(3 * 3 * 3, 4)

    def forward(self, x):
        y = torch.relu(F.conv2d(x, self.w, stride=2, padding=1))
        return self.head(torch.relu(self.reflect(y)).flatten(1))


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
    convs = _conv_nodes(net)  # every convolution form passed its probe (so Jr came through the forms)
    assert all(node._form() is node.form for node in convs)
    assert not convs or any(node.form is not None for node in convs)
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
    J = lenet.jacobian(x)  # the reverse order caches dense copies and probed forms on the nodes: still deep-copyable
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


def _conv_nodes(net):
    return [n for n in net.nodes.values() if getattr(n, "kind", None) == "conv"]


def test_convolution_forms_are_used_only_where_they_are_the_matrix():
    """A convolution node keeps its kernel (``form``) and takes it for its products once a probe finds it
    computes the node's matrix; a reflect-padded layer has no form, and a form that is not its matrix's
    (a kernel changed behind it) is never used: the local map stays torch's Jacobian either way."""
    import dataclasses

    from isomat.torch._products import form_agrees

    torch.manual_seed(3)
    model = _FunctionalConv().to(F64).eval()
    net = from_model(model, (2, 6, 6))
    convs = _conv_nodes(net)
    assert len(convs) == 2
    functional, reflect = convs
    assert functional.form is not None and functional._form() is functional.form
    assert reflect.form is None and reflect._form() is None
    x = torch.randn(2, 6, 6, dtype=F64)
    ref = torch.func.jacrev(lambda t: model(t[None])[0])(x).reshape(net.n_out, net.n_in).detach().numpy()
    # a wrong form (kernel doubled): the probe refuses it and the CSR products serve
    wrong = dataclasses.replace(functional.form, kernel=2.0 * functional.form.kernel)
    assert not form_agrees(wrong, functional.weights[0])
    object.__setattr__(functional, "form", wrong)
    functional.__dict__.pop("_form_ok", None)
    assert functional._form() is None
    np.testing.assert_allclose(net.jacobian(x, order="reverse").toarray(), ref, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(net.forward(x.numpy()), model(x[None])[0].detach().numpy(), rtol=1e-12, atol=1e-13)


def test_dense_rows_helpers_match_scipy():
    """The reverse order's own assembly (dense rows to CSR) and a max pool's transposed selection
    (disjoint and overlapping windows) equal SciPy's conversions and products."""
    from isomat.torch.network import _dense_to_csr, _unpool

    rng = np.random.default_rng(0)
    D = rng.standard_normal((4, 9)) * (rng.random((4, 9)) < 0.5)
    D[2] = 0.0
    J = _dense_to_csr(D)
    ref = __import__("scipy.sparse", fromlist=["csr_array"]).csr_array(D)
    assert J.has_canonical_format and (J != ref).nnz == 0
    assert np.array_equal(J.indptr, ref.indptr) and np.array_equal(J.indices, ref.indices)
    for pool, shape in [(nn.MaxPool2d(2), (2, 4, 4)), (nn.MaxPool2d(3, stride=1, padding=1), (1, 4, 4))]:
        node = [n for n in from_model(pool, shape).nodes.values() if hasattr(n, "window")][0]
        z = rng.integers(-1, 2, size=shape).astype(np.float64).reshape(-1)  # ties: overlapping windows pick alike
        pick = node.pick(z)
        g = rng.standard_normal((3, pick.size))
        np.testing.assert_array_equal(_unpool(node, pick, g), (node.selection(z).T @ g.T).T)
