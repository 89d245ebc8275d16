"""The forms users write (issue 39, item 5): functional layers on the model's parameters, parametrized
layers, ConvTranspose with output_size, chunk/split, flip/roll, amax and max(dim), attention refused.

Each form is checked against torch itself: the traced network's values against the model's, its
Jacobian against ``torch.func.jacrev``, and -- where the form has parameters -- the sparse twin's
parameter gradients against the native model's ``backward`` (and its training trajectory).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from isomat import export  # noqa: E402
from isomat.torch import UnsupportedNodeError, from_model, to_sparse_model  # noqa: E402

F64 = torch.float64


class FunctionalConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3) * 0.3)
        self.b = nn.Parameter(torch.randn(3))
        self.wt = nn.Parameter(torch.randn(3, 2, 2, 2) * 0.3)  # conv_transpose: (in, out/groups, k, k)

    def forward(self, x):
        y = torch.relu(F.conv2d(x, self.w, self.b, stride=1, padding=1))
        return F.conv_transpose2d(y, self.wt, None, stride=2)


class FunctionalLinearBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = nn.Parameter(torch.randn(5, 6) * 0.4)
        self.c = nn.Parameter(torch.randn(5))
        self.gamma = nn.Parameter(torch.rand(5) + 0.5)
        self.beta = nn.Parameter(torch.randn(5))
        self.register_buffer("mean", torch.randn(5))
        self.register_buffer("var", torch.rand(5) + 0.5)
        self.M = nn.Parameter(torch.randn(5, 4) * 0.4)

    def forward(self, x):
        y = F.linear(x, self.W, self.c)
        y = F.batch_norm(y, self.mean, self.var, self.gamma, self.beta, training=False, eps=1e-3)
        return torch.tanh(y) @ self.M


class Einsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.K = nn.Parameter(torch.randn(4, 3) * 0.5)

    def forward(self, x):  # x: (N, 3, 6)
        y = torch.einsum("bct,oc->bot", x, self.K)
        return torch.einsum("bot,tq->boq", F.leaky_relu(y, 0.1), torch.randn(6, 2, generator=torch.Generator().manual_seed(0),
                                                                              dtype=x.dtype)) + \
            torch.einsum("oc,bct->bot", self.K, x)[..., :2] * 0.5


class Parametrized(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 3))
        self.fc = nn.utils.parametrizations.spectral_norm(nn.Linear(3 * 4 * 4, 4))
        self.lin = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3), dim=None)

    def forward(self, x):
        y = torch.relu(self.conv(x)).flatten(1)
        return self.lin(torch.relu(self.fc(y)))


class OutputSize(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(2, 3, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)

    def forward(self, x):
        return self.up(torch.relu(self.down(x)), output_size=x.shape[2:])


class Pieces(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):  # x: (N, 4, 8)
        a, b = self.fc(x).chunk(2, dim=1)
        c, d, e = torch.split(x, [1, 2, 5], dim=2)
        rows = x.unbind(1)
        f = torch.tensor_split(a, 2, dim=2)[1]
        y = torch.cat([b.flip(2), torch.relu(a).roll(3, dims=2)], 1) + torch.cat(torch.chunk(x, 2, 1), 1)
        return y.sum(2) + torch.cat([c, d, e], 2).flip((1, 2)).mean(2) + rows[3][:, :4] + torch.cat([f.mean(2), f.mean(2)], 1)


class Maxes(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):  # x: (N, 3, 6)
        h = torch.relu(self.fc(x))  # many zeros: ties
        return torch.cat([torch.amax(h, dim=2), torch.max(h, 1).values, h.max(dim=2, keepdim=True)[0][..., 0],
                          x.amax(dim=(1, 2), keepdim=True).flatten(1)], 1)


def _model(cls, seed=0):
    torch.manual_seed(seed)
    return cls().to(F64).eval()


CASES = [(FunctionalConv, (2, 5, 5)), (FunctionalLinearBN, (6,)), (Einsum, (3, 6)), (Parametrized, (2, 6, 6)),
         (OutputSize, (2, 7, 7)), (Pieces, (4, 8)), (Maxes, (3, 6))]


@pytest.mark.parametrize("cls,shape", CASES, ids=[c.__name__ for c, _ in CASES])
def test_values_and_jacobian_are_torchs(cls, shape):
    model = _model(cls)
    net = from_model(model, shape)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn((3,) + shape, generator=gen, dtype=F64)
    with torch.no_grad():
        np.testing.assert_allclose(net.forward(x), model(x).numpy(), rtol=1e-12, atol=1e-12)
    J = torch.func.jacrev(lambda t: model(t[None])[0])(x[0]).reshape(-1, x[0].numel()).detach().numpy()
    np.testing.assert_allclose(net.jacobian(x[0].numpy()).toarray(), J, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls,shape", [c for c in CASES if c[0] is not Maxes] + [(Maxes, (3, 6))],
                         ids=[c.__name__ for c, _ in CASES if c is not Maxes] + ["Maxes"])
def test_twin_trains_the_parameters_as_native(cls, shape):
    model = _model(cls)
    twin = to_sparse_model(model, shape)
    assert {n for n, _ in twin.named_parameters()} == {"source." + n for n, _ in model.named_parameters()}
    opt_m = torch.optim.SGD(model.parameters(), lr=0.05)
    opt_t = torch.optim.SGD(twin.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(2)
    for step in range(5):
        twin.kernel = ("auto", "sparse")[step % 2]  # both kernels train as native (the steps alternate)
        x = torch.randn((4,) + shape, generator=gen, dtype=F64)
        for opt, mdl in ((opt_m, model), (opt_t, twin)):
            opt.zero_grad()
            (mdl(x) ** 2).mean().backward()
        for name, p in model.named_parameters():
            q = twin.source.get_parameter(name)
            assert p.grad is not None and q.grad is not None, name
            scale = 1.0 + float(p.grad.abs().max())
            assert float((p.grad - q.grad).abs().max()) <= 1e-12 * scale, (step, name)
        opt_m.step()
        opt_t.step()
    for name, p in model.named_parameters():
        assert float((p - twin.source.get_parameter(name)).abs().max()) <= 1e-12, name


def test_amax_splits_the_gradient_at_ties_and_max_takes_the_first():
    class M(nn.Module):
        def forward(self, x):
            return torch.cat([x.amax(dim=2), torch.max(x, dim=2)[0]], 1)

    model = M()
    net = from_model(model, (2, 4))
    x = torch.tensor([[3.0, 1.0, 3.0, 3.0], [0.0, 2.0, 2.0, -1.0]], dtype=F64)
    J = torch.func.jacrev(lambda t: model(t[None])[0])(x).reshape(4, 8).detach().numpy()
    np.testing.assert_array_equal(J[0], [1 / 3, 0, 1 / 3, 1 / 3, 0, 0, 0, 0])  # torch's amax: even split
    np.testing.assert_array_equal(J[2], [1, 0, 0, 0, 0, 0, 0, 0])  # torch.max(dim): the first maximum
    np.testing.assert_array_equal(net.jacobian(x.numpy()).toarray(), J)
    twin = to_sparse_model(model, (2, 4), dtype=F64)
    xg = x[None].clone().requires_grad_(True)
    (g,) = torch.autograd.grad(twin(xg).sum(), xg)
    xn = x[None].clone().requires_grad_(True)
    (gn,) = torch.autograd.grad(model(xn).sum(), xn)
    assert torch.equal(g, gn)


def test_amax_reads_back_through_the_manifest(tmp_path):
    model = _model(Maxes)
    net = from_model(model, (3, 6))
    paths = export.write_network(net, tmp_path / "m.npz")
    back = export.read_network(paths[-1])
    x = np.zeros((3, 6))  # every row tied: the split shows in the Jacobian
    np.testing.assert_array_equal(back.jacobian(x).toarray(), net.collapsed().jacobian(x).toarray())


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_hook_based_weight_norm_refused_with_the_parametrization_hint():
    model = nn.Sequential(nn.utils.weight_norm(nn.Linear(4, 3)))
    with pytest.raises(ValueError, match=r"use torch.nn.utils.parametrizations.weight_norm"):
        from_model(model, (4,))


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_hook_based_weight_norm_and_spectral_norm_train_in_the_twin():
    torch.manual_seed(11)
    model = nn.Sequential(nn.utils.weight_norm(nn.Linear(4, 3)), nn.ReLU(),
                          nn.utils.spectral_norm(nn.Linear(3, 2))).to(F64).eval()
    with torch.no_grad():  # the hooks' computed weights are then leaves, which torch can copy
        model(torch.randn(1, 4, dtype=F64))
    net = from_model(model, (4,))
    x = torch.randn(5, 4, dtype=F64)
    with torch.no_grad():
        np.testing.assert_allclose(net.forward(x), model(x).numpy(), rtol=1e-12, atol=1e-12)
    twin = to_sparse_model(model, (4,))
    (model(x) ** 2).sum().backward()
    (twin(x) ** 2).sum().backward()
    names = {n for n, _ in model.named_parameters()}
    assert names == {"0.bias", "0.weight_g", "0.weight_v", "2.bias", "2.weight_orig"}
    for n, p in model.named_parameters():
        q = twin.source.get_parameter(n)
        assert float((p.grad - q.grad).abs().max()) <= 1e-12 * (1 + float(p.grad.abs().max())), n


def test_constant_computed_from_a_parameter_is_refused_by_the_twin_only():
    class M(nn.Module):  # the twin would hold g.exp() and P.sum() fixed: P and g would not train
        def __init__(self):
            super().__init__()
            self.g = nn.Parameter(torch.randn(4))
            self.P = nn.Parameter(torch.randn(2))

        def forward(self, x):
            return x * self.g.exp() + self.P.sum()

    model = _model(M)
    net = from_model(model, (4,))
    with torch.no_grad():
        x = torch.randn(2, 4, dtype=F64)
        np.testing.assert_allclose(net.forward(x), model(x).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match=r"a constant computed in forward from the model's parameters"):
        to_sparse_model(model, (4,))


def test_weight_computed_in_forward_is_refused_by_the_twin_only():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(3, 4))

        def forward(self, x):
            return F.linear(x, self.w * 2.0)

    model = _model(M)
    net = from_model(model, (4,))
    x = torch.randn(2, 4, dtype=F64)
    with torch.no_grad():
        np.testing.assert_allclose(net.forward(x), model(x).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match=r"computed in forward from the model's parameters"):
        to_sparse_model(model, (4,))


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(4, 2, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x)[0]


class SDPA(nn.Module):
    def forward(self, x):
        return F.scaled_dot_product_attention(x, x, x)


@pytest.mark.parametrize("cls,pattern", [(MHA, r"not affine: attention \(MultiheadAttention at module path 'attn'"),
                                         (SDPA, r"not affine: attention \(scaled_dot_product_attention")])
def test_attention_refused_as_not_affine(cls, pattern):
    with pytest.raises(UnsupportedNodeError, match=pattern):
        from_model(_model(cls), (3, 4))


@pytest.mark.parametrize("fn,pattern", [
    (lambda x: x.flip(0), r"flip along the batch axis"),
    (lambda x: x.roll(1), r"roll without dims"),
    (lambda x: x.amax(), r"amax over all axes"),
    (lambda x: x.chunk(2, dim=0)[0], r"chunk along the batch axis"),
    (lambda x: torch.max(x, 1)[1].to(x.dtype), r"indices"),
    (lambda x: x @ x.transpose(1, 2), r"product of two traced tensors"),
])
def test_forms_that_stay_refused(fn, pattern):
    class M(nn.Module):
        def forward(self, x):
            return fn(x)

    with pytest.raises(UnsupportedNodeError, match=pattern):
        from_model(M(), (4, 4))


@pytest.mark.parametrize("eq,shapes,pattern", [
    ("bc,cd,de->be", [(3, 4), (4, 2)], r"2 constant tensor operands"),
    ("bc,dk->bcd", [(3, 4)], r"sums several entries of the constant operand"),
])
def test_einsum_whose_entries_are_not_single_constants_refused(eq, shapes, pattern):
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([nn.Parameter(torch.randn(*s)) for s in shapes])

        def forward(self, x):
            return torch.einsum(eq, x, *self.ps)

    with pytest.raises(UnsupportedNodeError, match=pattern):
        from_model(_model(M), (3,))
