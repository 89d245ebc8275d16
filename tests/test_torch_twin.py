"""isomat.torch.twin.SparseAffine: the sparse twin of a torch layer (zhu2025 §6).

For every family the twin's outputs equal the native layer's on a random batch, and after
``(out * g).sum().backward()`` the gradients of every parameter of the twin's module (the native
layer's own Parameters) equal those of a deep copy of the native layer, as do the input gradients:
float64 to 1e-12, float32 to torch's default tolerance. The autograd Function is gradchecked, the
chunked sampled dense-dense product is checked with a tiny chunk budget, and bad inputs raise with
clear messages.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from isomat.torch import LinearRNN, from_module  # noqa: E402
from isomat.torch import twin as twin_mod  # noqa: E402
from isomat.torch.twin import SparseAffine  # noqa: E402

ndlinear = pytest.importorskip("ndlinear")

pytestmark = pytest.mark.torch

DTYPES = [pytest.param(torch.float64, id="f64"), pytest.param(torch.float32, id="f32")]


def _plain(m, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "same" padding with an even kernel warns
        return m(x)


def _rnn_native(m, x):  # LinearRNN's batched call is (T, N, input_size)
    return m(x.transpose(0, 1))[0].transpose(0, 1)


def _bn(cls, c, **kw):
    def make():
        m = cls(c, **kw)
        with torch.no_grad():
            m.running_mean.uniform_(-1.0, 1.0)
            m.running_var.uniform_(0.5, 2.0)
            if m.weight is not None:
                m.weight.uniform_(0.5, 1.5)
        return m.eval()
    return make


# (id, factory, input_shape, native forward on a batch)
CASES = [
    ("conv1d-stride-pad", lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), (2, 9), _plain),
    ("conv1d-same-dil-groups-circular",
     lambda: nn.Conv1d(4, 4, 3, padding="same", dilation=2, groups=2, padding_mode="circular"), (4, 8), _plain),
    ("conv2d-replicate", lambda: nn.Conv2d(2, 4, 3, padding=1, padding_mode="replicate"), (2, 5, 6), _plain),
    ("conv2d-reflect-groups-nobias",
     lambda: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(2, 1), dilation=(2, 1), groups=2,
                       padding_mode="reflect", bias=False), (4, 7, 6), _plain),
    ("conv2d-valid", lambda: nn.Conv2d(3, 4, 2, padding="valid"), (3, 5, 5), _plain),
    ("conv2d-same-even", lambda: nn.Conv2d(2, 2, (2, 3), padding="same"), (2, 4, 5), _plain),
    ("conv3d-stride", lambda: nn.Conv3d(2, 2, 3, stride=(1, 2, 1), padding=1), (2, 4, 5, 4), _plain),
    ("conv3d-circular-groups",
     lambda: nn.Conv3d(2, 4, 2, groups=2, padding=1, padding_mode="circular"), (2, 3, 4, 3), _plain),
    ("convT1d-outpad", lambda: nn.ConvTranspose1d(2, 3, 3, stride=2, output_padding=1), (2, 5), _plain),
    ("convT2d-groups-outpad-nobias",
     lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False),
     (4, 3, 4), _plain),
    ("convT2d-dilation", lambda: nn.ConvTranspose2d(2, 2, 3, dilation=2, padding=1), (2, 4, 4), _plain),
    ("convT2d-outpad-lt-dilation",
     lambda: nn.ConvTranspose2d(1, 2, 2, stride=1, dilation=3, output_padding=2), (1, 3, 3), _plain),
    ("convT3d-groups", lambda: nn.ConvTranspose3d(2, 4, 2, stride=2, groups=2, output_padding=1),
     (2, 2, 3, 2), _plain),
    ("linear", lambda: nn.Linear(4, 3), (4,), _plain),
    ("linear-lead", lambda: nn.Linear(4, 3), (2, 3, 4), _plain),
    ("linear-nobias", lambda: nn.Linear(5, 2, bias=False), (3, 5), _plain),
    ("avgpool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), (2, 9), _plain),
    ("avgpool2d-ceil", lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), (2, 7, 6), _plain),
    ("avgpool2d-divisor", lambda: nn.AvgPool2d(2, divisor_override=3), (1, 4, 4), _plain),
    ("avgpool3d", lambda: nn.AvgPool3d(2), (1, 4, 4, 4), _plain),
    ("bn1d-vector", _bn(nn.BatchNorm1d, 3), (3,), _plain),
    ("bn1d-seq-noaffine", _bn(nn.BatchNorm1d, 3, affine=False), (3, 5), _plain),
    ("bn2d", _bn(nn.BatchNorm2d, 3, eps=1e-3), (3, 4, 4), _plain),
    ("bn2d-noaffine", _bn(nn.BatchNorm2d, 2, affine=False), (2, 3, 3), _plain),
    ("bn3d", _bn(nn.BatchNorm3d, 2), (2, 3, 2, 3), _plain),
    ("rnn-1layer", lambda: LinearRNN(3, 4), (5, 3), _rnn_native),
    ("rnn-1layer-nobias", lambda: LinearRNN(3, 4, bias=False), (4, 3), _rnn_native),
    ("rnn-2layers", lambda: LinearRNN(3, 4, num_layers=2), (5, 3), _rnn_native),
    ("rnn-2layers-nobias", lambda: LinearRNN(2, 3, num_layers=2, bias=False), (4, 2), _rnn_native),
    ("rnn-batch-first", lambda: LinearRNN(2, 3, batch_first=True), (3, 2), lambda m, x: m(x)[0]),
    ("ndlinear-outer", lambda: ndlinear.NdLinear((3, 4, 2), (2, 5, 3), transform_outer=True), (3, 4, 2), _plain),
    ("ndlinear-inner", lambda: ndlinear.NdLinear((3, 4, 2), (2, 5, 3), transform_outer=False), (3, 4, 2), _plain),
    ("ndlinear-2d", lambda: ndlinear.NdLinear((4, 3), (3, 4), transform_outer=False), (4, 3), _plain),
]


def _made(factory, seed, dtype):
    torch.manual_seed(seed)
    m = factory().to(dtype)
    with torch.no_grad():  # biases away from zero so a dropped bias shows
        for name, p in m.named_parameters():
            if "bias" in name:
                p.add_(0.5)
    return m


def _close(got, ref, dtype, scale=1.0):
    if dtype == torch.float64:
        torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-12 * scale)
    else:
        torch.testing.assert_close(got, ref)


def _twin_and_native(factory, shape, dtype, seed=0, kernel="sparse"):
    module = _made(factory, seed, dtype)
    native = copy.deepcopy(module)
    if isinstance(module, (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)):  # no parameters: dtype= names one
        twin = SparseAffine.from_module(module, shape, dtype=dtype, kernel=kernel)
    else:
        twin = SparseAffine.from_module(module, shape, kernel=kernel)
    return module, native, twin


#: the form kernel="auto" takes for each family (twin._Stage.form)
AUTO_FORM = {"conv": "layer", "linear": "dense", "bn": "diag", "avgpool": "csr", "rnn": "csr", "ndlinear": "csr"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_outputs_and_gradients_match_the_native_layer(case, dtype):
    """Both kernels: the CSR product and its adjoint (kernel="sparse"), then each stage's cheapest exact
    form (kernel="auto": torch's convolution on the tied weights, one GEMM, an elementwise product)."""
    _, factory, shape, forward = case
    module, native, twin = _twin_and_native(factory, shape, dtype, seed=len(case[0]))
    assert twin.module is module  # the native layer's own Parameters are trained
    family = case[0].split("-")[0].rstrip("123dT")
    form = "layer" if family == "linear" and len(shape) > 1 else AUTO_FORM[family]  # leading axes: kron(I, W)
    assert [s.form for s in twin.stages] == [form] * len(twin.stages)
    gen = torch.Generator().manual_seed(7)
    x = torch.randn((4,) + shape, generator=gen, dtype=torch.float64).to(dtype)
    x_nat = x.clone().requires_grad_()
    y_nat = forward(native, x_nat)
    g = torch.randn(y_nat.shape, generator=gen, dtype=torch.float64).to(dtype)
    (y_nat * g).sum().backward()
    nat_params = dict(native.named_parameters())
    for kernel in ("sparse", "auto"):
        twin.kernel = kernel
        module.zero_grad()
        x_twin = x.clone().requires_grad_()
        y_twin = twin(x_twin)
        assert y_twin.shape == y_nat.shape and y_twin.dtype == dtype
        assert twin.output_shape == tuple(y_nat.shape[1:])
        _close(y_twin, y_nat, dtype)
        (y_twin * g).sum().backward()
        _close(x_twin.grad, x_nat.grad, dtype)
        params = dict(module.named_parameters())
        assert params.keys() == nat_params.keys()
        for name, p in params.items():
            assert p.grad is not None, name
            _close(p.grad, nat_params[name].grad, dtype, scale=10.0)
    # one unbatched sample: an unbatched output
    y1 = twin(x[0])
    assert y1.shape == y_nat.shape[1:]
    _close(y1, y_nat[0].detach(), dtype)


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES if not c[0].startswith("bn")])
def test_to_scipy_is_from_module(case):
    _, factory, shape, _ = case
    module, _, twin = _twin_and_native(factory, shape, torch.float64)
    W, b = twin.to_scipy()
    W_ref, b_ref = from_module(module, shape, dtype=np.float64)
    assert isinstance(W, sp.csr_array) and W.shape == W_ref.shape and W.dtype == np.float64
    np.testing.assert_allclose(W.toarray(), W_ref.toarray(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b, b_ref, rtol=1e-12, atol=1e-12)
    if len(twin.stages) == 1:
        assert twin.nnz == W_ref.nnz  # the pattern is the construction's


def test_folded_taps_become_sums_of_weights():
    """replicate padding folds several taps onto one edge pixel: those entries sum weights."""
    _, _, twin = _twin_and_native(lambda: nn.Conv2d(1, 1, 3, padding=1, padding_mode="replicate"), (1, 4, 4),
                                  torch.float64)
    idx = twin.stages[0].value_index
    assert idx.dim() == 2 and idx.shape[1] > 1
    _, _, plain = _twin_and_native(lambda: nn.Conv2d(1, 1, 3, padding=1), (1, 4, 4), torch.float64)
    assert plain.stages[0].value_index.dim() == 1


def test_training_steps_keep_twin_and_native_equal():
    """SGD on the twin's module and on a native copy: the kernels stay equal (the twin trains the kernel)."""
    module = _made(lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), 1, torch.float64)
    native = copy.deepcopy(module)
    twin = SparseAffine.from_module(module, (2, 5, 5), kernel="sparse")
    opt_t = torch.optim.SGD(twin.parameters(), lr=0.1)
    opt_n = torch.optim.SGD(native.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(3)
    for _ in range(3):
        x = torch.randn(4, 2, 5, 5, generator=gen, dtype=torch.float64)
        target = torch.randn(4, 3, 5, 5, generator=gen, dtype=torch.float64)
        for opt, f in ((opt_t, twin), (opt_n, native)):
            opt.zero_grad()
            ((f(x) - target) ** 2).mean().backward()
            opt.step()
    torch.testing.assert_close(module.weight, native.weight, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(module.bias, native.bias, rtol=1e-12, atol=1e-12)
    assert sorted(n for n, _ in twin.named_parameters()) == ["module.bias", "module.weight"]
    assert set(twin.state_dict()) == {"module.weight", "module.bias"}  # indices are not state


# ---------------------------------------------------------------------------------------------
# the autograd Function and the chunked sampled dense-dense product
# ---------------------------------------------------------------------------------------------
def _random_W(n_out, n_in, density, seed):
    W = sp.random_array((n_out, n_in), density=density, format="csr", dtype=np.float64,
                        rng=np.random.default_rng(seed))
    W.sum_duplicates()
    return W


@pytest.mark.parametrize("seed", [0, 1])
def test_gradcheck_of_the_sparse_product(seed):
    W = _random_W(5, 7, 0.4, seed)
    stage = SparseAffine(W, input_shape=(7,)).stages[0]
    values = torch.tensor(W.data, dtype=torch.float64, requires_grad=True)
    x = torch.randn(3, 7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, xx: stage.apply_to(v, xx), (values, x))


def test_gradcheck_through_the_twins():
    torch.manual_seed(0)
    W = _random_W(4, 6, 0.5, 2)
    tw = SparseAffine(W, np.arange(4.0), input_shape=(2, 3), trainable=True)
    x = torch.randn(2, 2, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda v, b, xx: torch.func.functional_call(tw, {"values": v, "bias": b}, (xx,)),
        (tw.values.detach().clone().requires_grad_(), tw.bias.detach().clone().requires_grad_(), x))
    # through module twins: a folded-tap conv's weight and bias, every parameter of a 2-layer LinearRNN
    for module, shape in ((nn.Conv1d(1, 2, 3, padding=1, padding_mode="replicate"), (1, 4)),
                          (LinearRNN(2, 2, num_layers=2), (3, 2))):
        module = module.double()
        twin = SparseAffine.from_module(module, shape, kernel="sparse")
        names = ["module." + n for n, _ in module.named_parameters()]
        xs = torch.randn((2,) + shape, dtype=torch.float64, requires_grad=True)

        def f(*args, twin=twin, names=names):
            *ps, xx = args
            return torch.func.functional_call(twin, dict(zip(names, ps)), (xx,))
        inputs = tuple(p.detach().clone().requires_grad_() for p in module.parameters()) + (xs,)
        assert torch.autograd.gradcheck(f, inputs)


def test_sddmm_in_small_chunks_equals_the_dense_product(monkeypatch):
    W = _random_W(30, 40, 0.3, 5)
    tw = SparseAffine(W, input_shape=(40,), trainable=True)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(6, 40, generator=gen, dtype=torch.float64)
    g = torch.randn(6, 30, generator=gen, dtype=torch.float64)
    stage = tw.stages[0]
    dense = (g.T @ x)[stage.rows, stage.cols]  # the reference: every entry of grad_y^T x, sampled
    (tw(x) * g).sum().backward()
    ref = tw.values.grad.clone()
    torch.testing.assert_close(ref, dense, rtol=1e-12, atol=1e-12)
    # no dense tile may waste anything: every block takes the gather product, in chunks
    monkeypatch.setattr(twin_mod, "_TILE_WASTE", 0)
    stage.__dict__.pop("_tile_plan", None)
    stage.__dict__.pop("_tile_plans", None)
    for budget in (1, 7, 13):  # chunks of max(1, budget // N) entries: 1, 1, 2
        monkeypatch.setattr(twin_mod, "_SDDMM_BUDGET", budget)
        chunks = []
        orig_sum = torch.Tensor.sum

        def counting_sum(self, *a, **k):
            if self.dim() == 2 and self.shape[1] == 6:
                chunks.append(self.shape[0])
            return orig_sum(self, *a, **k)
        monkeypatch.setattr(torch.Tensor, "sum", counting_sum)
        tw.values.grad = None
        (tw(x) * g).sum().backward()
        monkeypatch.setattr(torch.Tensor, "sum", orig_sum)
        torch.testing.assert_close(tw.values.grad, ref, rtol=1e-12, atol=1e-12)
        assert chunks and max(chunks) == max(1, budget // 6) and sum(chunks) == tw.nnz


def test_sddmm_direct():
    gen = torch.Generator().manual_seed(2)
    g = torch.randn(5, 8, generator=gen, dtype=torch.float64)
    x = torch.randn(5, 9, generator=gen, dtype=torch.float64)
    rows = torch.tensor([0, 0, 3, 7, 7])
    cols = torch.tensor([1, 8, 0, 2, 8])
    torch.testing.assert_close(twin_mod._sddmm(g, x, rows, cols), (g.T @ x)[rows, cols], rtol=1e-12, atol=1e-12)
    assert twin_mod._sddmm(g, x, rows[:0], cols[:0]).shape == (0,)


# ---------------------------------------------------------------------------------------------
# from a SciPy matrix
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("trainable", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_from_a_scipy_matrix(trainable, dtype):
    W = _random_W(6, 12, 0.3, 3).astype(dtype)
    W.data[0] = 0.0  # an explicit zero stays part of the pattern
    b = np.linspace(-1, 1, 6).astype(dtype)
    tw = SparseAffine(W, b, input_shape=(3, 4), output_shape=(2, 3), trainable=trainable)
    assert tw.nnz == W.nnz and tw.input_shape == (3, 4) and tw.output_shape == (2, 3)
    assert isinstance(tw.values, nn.Parameter) == trainable
    assert [n for n, _ in tw.named_parameters()] == (["values", "bias"] if trainable else [])
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    x = torch.randn(5, 3, 4, dtype=tdt, requires_grad=True)
    y = tw(x)
    ref = (W @ x.detach().numpy().reshape(5, 12).T).T + b
    _close(y, torch.from_numpy(np.ascontiguousarray(ref.reshape(5, 2, 3))), tdt)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    gx = (W.T @ g.numpy().reshape(5, 6).T).T.reshape(5, 3, 4)
    _close(x.grad, torch.from_numpy(np.ascontiguousarray(gx)), tdt)
    if trainable:
        _close(tw.bias.grad, g.sum(0).reshape(-1), tdt)
    W2, b2 = tw.to_scipy()
    assert W2.dtype == dtype and W2.nnz == W.nnz
    np.testing.assert_array_equal(W2.toarray(), W.toarray())
    np.testing.assert_array_equal(b2, b)
    r = repr(tw)
    assert "nnz=" in r and "input_shape=(3, 4)" in r and "output_shape=(2, 3)" in r and len(r) < 400


def test_parameter_free_twin_casts_and_no_bias():
    tw = SparseAffine.from_module(nn.AvgPool1d(2), (1, 6))
    assert tw.stages[0].const_values.dtype == torch.get_default_dtype()
    tw = tw.double()
    x = torch.randn(2, 1, 6, dtype=torch.float64)
    torch.testing.assert_close(tw(x), nn.AvgPool1d(2)(x), rtol=1e-12, atol=1e-12)
    W = sp.csr_array(np.eye(3))
    tw = SparseAffine(W, input_shape=(3,))
    assert tw.bias is None and tw(torch.ones(3, dtype=torch.float64)).tolist() == [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(tw.to_scipy()[1], np.zeros(3))


# ---------------------------------------------------------------------------------------------
# bad inputs
# ---------------------------------------------------------------------------------------------
def test_bad_input_shape_and_dtype():
    tw = SparseAffine.from_module(nn.Conv2d(2, 3, 3).double(), (2, 5, 5))
    with pytest.raises(ValueError, match=r"expected input of shape \(N, \*input_shape\) = \(N, 2, 5, 5\).*"
                                         r"got \(4, 2, 5, 6\)"):
        tw(torch.zeros(4, 2, 5, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match="expected input of shape"):
        tw(torch.zeros(1, 1, 2, 5, 5, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"input dtype torch.float32 does not match the values' dtype torch.float64"):
        tw(torch.zeros(2, 5, 5))
    with pytest.raises(TypeError, match="must be a torch.Tensor"):
        tw(np.zeros((2, 5, 5)))


def test_unsupported_modules_are_named():
    for m, name in ((nn.ReLU(), "ReLU"), (nn.MaxPool2d(2), "MaxPool2d"), (nn.RNN(2, 3), "RNN"),
                    (nn.LayerNorm(3), "LayerNorm")):
        with pytest.raises(TypeError, match=rf"{name}.*nn\.Conv1d.*ndlinear\.NdLinear"):
            SparseAffine.from_module(m, (1, 4, 4))
    with pytest.raises(TypeError, match="data-dependent"):
        SparseAffine.from_module(nn.MaxPool1d(2), (1, 4))
    with pytest.raises(TypeError, match="needs a torch.nn.Module"):
        SparseAffine.from_module(np.eye(3), (3,))


def test_batchnorm_refusals():
    bn = nn.BatchNorm2d(3)  # training mode by default
    with pytest.raises(ValueError, match=r"BatchNorm2d is in training mode.*module\.eval\(\)"):
        SparseAffine.from_module(bn, (3, 4, 4))
    bn = nn.BatchNorm1d(3, track_running_stats=False).eval()
    with pytest.raises(ValueError, match="track_running_stats=False"):
        SparseAffine.from_module(bn, (3, 5))
    with pytest.raises(ValueError, match=r"num_features=3 but input_shape \(4, 5\)"):
        SparseAffine.from_module(nn.BatchNorm1d(3).eval(), (4, 5))
    with pytest.raises(ValueError, match=r"needs input_shape \(C, H, W\)"):
        SparseAffine.from_module(nn.BatchNorm2d(3).eval(), (3, 4))


def test_bad_construction_arguments():
    with pytest.raises(ValueError, match=r"W has 4 columns but input_shape \(5,\) has 5 entries"):
        SparseAffine(sp.csr_array(np.ones((2, 4))), input_shape=(5,))
    with pytest.raises(ValueError, match=r"W has 2 rows but output_shape \(3,\)"):
        SparseAffine(sp.csr_array(np.ones((2, 4))), input_shape=(4,), output_shape=(3,))
    with pytest.raises(ValueError, match=r"b must have shape \(2,\)"):
        SparseAffine(sp.csr_array(np.ones((2, 4))), np.ones(3), input_shape=(4,))
    with pytest.raises(TypeError, match="not a torch tensor"):
        SparseAffine(torch.ones(2, 4), input_shape=(4,))
    with pytest.raises(ValueError, match="dtype= is for parameter-free modules only"):
        SparseAffine.from_module(nn.Linear(2, 2), (2,), dtype=torch.float64)
    with pytest.raises(ValueError, match="in_features=3 but input_shape"):
        SparseAffine.from_module(nn.Linear(3, 2), (2,))
    with pytest.raises(ValueError, match="input_size=2"):
        SparseAffine.from_module(LinearRNN(2, 3), (4, 3))
    with pytest.raises(ValueError, match="input_dims"):
        SparseAffine.from_module(ndlinear.NdLinear((2, 3), (3, 2)), (3, 2))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_twin_matches_native():  # pragma: no cover - needs a GPU
    module = _made(lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"), 0, torch.float64).cuda()
    native = copy.deepcopy(module)
    twin = SparseAffine.from_module(module, (2, 5, 5))
    x = torch.randn(3, 2, 5, 5, dtype=torch.float64, device="cuda", requires_grad=True)
    y = twin(x)
    torch.testing.assert_close(y, native(x), rtol=1e-12, atol=1e-12)
    y.sum().backward()
    native(x.detach()).sum().backward()
    torch.testing.assert_close(module.weight.grad, native.weight.grad, rtol=1e-12, atol=1e-12)


def test_layer_form_only_where_torch_computes_the_probed_pattern():
    """kernel="auto" computes a layer by torch's own convolution only where an exact integer probe shows it
    equals the probed W and bias: a changed pattern, a swapped tie or another bias is refused."""
    m = nn.Conv2d(2, 3, 3, padding=1).double()
    shape = (2, 5, 5)
    W, _, bias_index = twin_mod._probe_gather(m, shape)
    b = (bias_index + 1).astype(np.float64)
    assert twin_mod._layer_matches(m, shape, W, b)
    other = nn.Conv2d(2, 3, 3, padding=2, dilation=2).double()  # same shapes, other taps
    assert not twin_mod._layer_matches(other, shape, W, b)
    swapped = W.copy()
    swapped.data[[0, 1]] = swapped.data[[1, 0]]  # two entries' weights exchanged: another tie
    assert swapped.data[0] != W.data[0]
    assert not twin_mod._layer_matches(m, shape, swapped, b)
    assert not twin_mod._layer_matches(m, shape, W, b[::-1].copy())
    with pytest.raises(ValueError, match="kernel must be one of 'auto', 'sparse', got 'bsr'"):
        SparseAffine.from_module(m, shape, kernel="bsr")
