"""isomat.testing: the strategies draw only valid configurations (isomat builds them, torch agrees),
dottest takes every operand kind and catches a wrong adjoint, assert_same_operator catches a
single-entry difference without densifying."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sympy
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from isomat.algebra import (avgpool_matrix, conv_apply, conv_matrix, dk_stp, kron, maxpool_selection,
                            pool_output_shape, stp, stp_right)
from isomat.algebra.conv import conv_output_shape
from isomat.algebra.spm import layer_matrix, spm_forward
from isomat.testing import SameOperatorReport, assert_matches_dense, assert_same_operator, default_rtol, dottest
from isomat.testing import strategies as S


# ---------------------------------------------------------------------------------------------
# the package without Hypothesis
# ---------------------------------------------------------------------------------------------
def test_import_without_hypothesis():
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "import isomat.testing as t\n"
        "assert callable(t.dottest) and callable(t.assert_matches_dense) and callable(t.assert_same_operator)\n"
        "try:\n    import isomat.testing.strategies\nexcept ImportError as e:\n    print(e)\n"
        "else:\n    raise SystemExit('strategies imported without hypothesis')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "isomat[test]" in out.stdout and "Hypothesis" in out.stdout


# ---------------------------------------------------------------------------------------------
# strategies draw valid configurations
# ---------------------------------------------------------------------------------------------
@given(S.conv_layers())
def test_conv_layers_build_and_match_torch(cfg):
    K, X = cfg.kernel(), cfg.input()
    assert cfg.c_in % cfg.groups == 0 and cfg.c_out % cfg.groups == 0
    assert cfg.padding != "same" or set(cfg.stride) == {1}
    W = conv_matrix(cfg.input_shape, K, **cfg.kwargs())
    assert W.shape == (cfg.n_out, cfg.n_in)
    kw = {k: v for k, v in cfg.kwargs().items() if k != "boundary"}
    assert conv_output_shape(cfg.input_shape, cfg.kernel_shape, **kw) == cfg.output_shape
    y = W @ X.ravel()
    np.testing.assert_allclose(conv_apply(X, K, **cfg.kwargs()).ravel(), y, rtol=1e-12, atol=1e-12)
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(cfg.torch_forward(X, K).numpy().ravel(), y, rtol=1e-10, atol=1e-12)
    mod = getattr(torch.nn, f"Conv{cfg.d}d")(**cfg.torch_module_kwargs()).double()
    with torch.no_grad():
        mod.weight.copy_(torch.as_tensor(K))
        np.testing.assert_allclose(mod(torch.as_tensor(X)[None])[0].numpy().ravel(), y, rtol=1e-10, atol=1e-12)
    if cfg.boundary == "zero":
        f = getattr(torch.nn.functional, cfg.torch_function)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = f(torch.as_tensor(X)[None], torch.as_tensor(K), **cfg.torch_kwargs())[0]
        np.testing.assert_allclose(t.numpy().ravel(), y, rtol=1e-10, atol=1e-12)
    else:
        with pytest.raises(ValueError, match=f"no {cfg.boundary} padding"):
            cfg.torch_kwargs()


@given(S.conv_layers(dims=(2,), max_channels=6, max_groups=3, paddings=("same",), boundaries=("zero",),
                     max_kernel=2, max_dilation=1, max_extra=1, values=False))
def test_conv_layers_respect_bounds(cfg):
    assert cfg.d == 2 and cfg.padding == "same" and cfg.boundary == "zero" and cfg.stride == (1, 1)
    assert cfg.c_in <= 6 and cfg.c_out <= 6 and 1 <= cfg.groups <= 3 and max(cfg.kernel_size) <= 2
    assert cfg.output_shape[1:] == cfg.spatial  # "same" keeps the spatial shape


@given(S.pool_layers())
def test_pool_layers_build_and_match_torch(cfg):
    X = cfg.input()
    assert all(2 * p <= k for p, k in zip(cfg.padding, cfg.window))
    assert pool_output_shape(cfg.input_shape, cfg.window, stride=cfg.stride, padding=cfg.padding,
                             ceil_mode=cfg.ceil_mode, dilation=cfg.dilations) == cfg.output_shape
    if cfg.kind == "avg":
        A = avgpool_matrix(cfg.input_shape, cfg.window, **cfg.kwargs())
        y = A @ X.ravel()
    else:
        Sx = maxpool_selection(X, cfg.window, **cfg.kwargs())
        y = Sx @ X.ravel()
    assert y.size == math.prod(cfg.output_shape)
    pytest.importorskip("torch")
    assert cfg.torch_accepts
    np.testing.assert_allclose(cfg.torch_forward(X).numpy().ravel(), y, rtol=1e-12, atol=1e-12)


@given(S.pool_layers(torch_compatible=False, kinds=("avg",), values=False))
def test_pool_layers_beyond_torch_build(cfg):
    A = avgpool_matrix(cfg.input_shape, cfg.window, **cfg.kwargs())
    assert A.shape == (math.prod(cfg.output_shape), math.prod(cfg.input_shape))


@given(S.stp_pairs(fields=("float", "integer", "rational", "symbolic")))
def test_stp_pairs_are_compatible(pair):
    out = stp(pair.A, pair.B)
    assert tuple(out.shape) == pair.stp_shape
    assert tuple(stp_right(pair.A, pair.B).shape) == pair.stp_shape
    assert tuple(dk_stp(pair.A, pair.B).shape) == pair.dk_shape
    if isinstance(pair.A, sympy.MatrixBase):
        assert isinstance(out, sympy.MatrixBase)
        ref = (sympy.kronecker_product(pair.A, sympy.eye(pair.t // pair.n))
               * sympy.kronecker_product(pair.B, sympy.eye(pair.t // pair.p)))
        assert (out - ref).expand().is_zero_matrix
    else:
        ref = np.kron(pair.A, np.eye(pair.t // pair.n)) @ np.kron(pair.B, np.eye(pair.t // pair.p))
        np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


@given(S.stp_dims(relations=("coprime",)), S.stp_dims(relations=("divisible",)), S.stp_dims(relations=("equal",)))
def test_stp_dims_relations(c, d, e):
    assert math.gcd(*c) == 1
    assert max(d) % min(d) == 0
    assert e[0] == e[1]


@given(S.kron_factors(field="float"), S.kron_factors(field="rational", max_factors=2))
def test_kron_factors(fs, qs):
    ref = fs[0]
    for F in fs[1:]:
        ref = np.kron(ref, F)
    np.testing.assert_array_equal(kron(*fs).toarray(), ref)
    K = kron(*qs)
    exact = sympy.kronecker_product(*qs)
    assert sympy.Matrix(K) == exact


@given(S.kron_shapes(min_factors=1, max_factors=4, max_side=2))
def test_kron_shapes_bounds(shapes):
    assert 1 <= len(shapes) <= 4 and all(1 <= r <= 2 and 1 <= c <= 2 for r, c in shapes)


@given(S.spm_configs())
def test_spm_configs_build(cfg):
    layer = cfg.build()
    assert layer.n == cfg.n and layer.L == cfg.L and layer.variant == cfg.variant
    M = layer_matrix(layer)
    x = np.random.default_rng(cfg.seed).standard_normal((2, cfg.n))
    np.testing.assert_allclose(spm_forward(layer, x), x @ M.T + np.asarray(layer.bias), rtol=1e-10, atol=1e-12)


@given(S.spm_configs(powers_of_two=True, max_n=16))
def test_spm_powers_of_two(cfg):
    assert cfg.n & (cfg.n - 1) == 0 and cfg.n <= 16


@given(S.integer_matrices(), S.rational_matrices(max_denominator=3), S.symbolic_matrices((2, 3)),
       S.exact_matrices())
def test_exact_matrices(I, Q, Y, E):
    assert all(isinstance(v, sympy.Integer) and -4 <= v <= 4 for v in I) and max(I.shape) <= 4
    assert all(isinstance(v, sympy.Rational) and v.q <= 3 for v in Q)
    assert Y.shape == (2, 3) and all(v == 0 or v.is_Symbol for v in Y)
    assert isinstance(E, sympy.MatrixBase)


@given(S.sparse_matrices(max_rows=20, max_cols=20))
def test_sparse_matrices_pass_dottest(A):
    assert sp.issparse(A) and A.shape[0] <= 20
    dottest(A)
    assert_same_operator(A, A.tocsc())


# ---------------------------------------------------------------------------------------------
# dottest on every operand kind
# ---------------------------------------------------------------------------------------------
def _dense(dtype=np.float64, shape=(7, 5), seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * rng.standard_normal(shape)
    A[A.real > 0.8] = 0  # some structure for the sparse kinds
    return A.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_dottest_numpy_and_scipy(dtype):
    A = _dense(dtype)
    for op in (A, sp.csr_matrix(A), sp.csr_array(A), sp.coo_array(A), sp.csc_matrix(A)):
        assert dottest(op) <= default_rtol(dtype)
        wrong = A.T if np.dtype(dtype).kind == "f" else A.T  # the transpose is not the adjoint of a complex A
        if np.dtype(dtype).kind == "c":
            with pytest.raises(AssertionError, match="dot test failed"):
                dottest(op, rmatvec=lambda y, W=wrong: W @ y)
        with pytest.raises(AssertionError, match="dot test failed"):
            dottest(op, rmatvec=lambda y: 2.0 * (A.conj().T @ y))


def test_default_tolerances():
    assert default_rtol(np.float64) == 1e-10 and default_rtol(np.complex128) == 1e-10
    assert default_rtol(np.float32) == 1e-4 and default_rtol(np.complex64) == 1e-4
    assert default_rtol(np.float64, np.float32) == 1e-4  # the less precise operand decides
    assert default_rtol("torch.float16") == 1e-2


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("layout", ["dense", "coo", "csr"])
def test_dottest_torch(dtype, layout):
    torch = pytest.importorskip("torch")
    A = _dense(np.dtype(dtype))
    T = torch.tensor(A)
    if layout == "coo":
        T = T.to_sparse_coo()
    elif layout == "csr":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Sparse CSR tensor support is in beta state"
            T = T.to_sparse_csr()
    assert dottest(T) <= default_rtol(dtype)
    P = torch.nn.Parameter(torch.tensor(A)) if layout == "dense" else T  # requires_grad is fine
    dottest(P)
    with pytest.raises(AssertionError, match="dot test failed"):
        dottest(T, rmatvec=lambda y: 2.0 * (A.conj().T @ y))  # callables get NumPy vectors
    # a torch result compares with a SciPy one without densifying either
    assert assert_same_operator(T, sp.csr_array(A)).mode == "exact"


def test_dottest_linear_operator_and_callables():
    A = _dense()
    L = aslinearoperator(sp.csr_array(A))
    assert dottest(L) < 1e-10
    assert dottest(lambda x: A @ x, shape=A.shape, rmatvec=lambda y: A.T @ y) < 1e-10
    # a LinearOperator whose rmatvec is wrong: the test must fail
    bad = LinearOperator(A.shape, matvec=lambda x: A @ x, rmatvec=lambda y: A[:, ::-1].T @ y, dtype=np.float64)
    with pytest.raises(AssertionError, match="dot test failed"):
        dottest(bad)
    with pytest.raises(AssertionError, match="dot test failed"):
        dottest(lambda x: A @ x, shape=A.shape, rmatvec=lambda y: np.abs(A.T) @ y)
    # an object with shape and hand-written matvec / rmatvec (the old calling convention)
    class Op:
        shape = A.shape

    dottest(Op(), matvec=lambda x: A @ x, rmatvec=lambda y: A.T @ y, rng=3)
    # complex callable, float32 callable
    C = _dense(np.complex128)
    dottest(lambda x: C @ x, shape=C.shape, rmatvec=lambda y: C.conj().T @ y, dtype=np.complex128)
    with pytest.raises(AssertionError):
        dottest(lambda x: C @ x, shape=C.shape, rmatvec=lambda y: C.T @ y, dtype=np.complex128)
    A32 = A.astype(np.float32)
    dottest(lambda x: A32 @ x, shape=A.shape, rmatvec=lambda y: A32.T @ y, dtype=np.float32)


def test_dottest_and_same_operator_take_numeric_sympy():
    K = np.array([[sympy.Rational(1, 3), sympy.Integer(2)], [sympy.Integer(0), sympy.Rational(-1, 2)]], dtype=object)
    W = conv_matrix((2, 5), K[None, :, :].reshape(1, 2, 2))  # exact SparseMatrix
    assert isinstance(W, sympy.MatrixBase)
    dottest(W)
    Wf = conv_matrix((2, 5), np.array([[1 / 3, 2.0], [0.0, -0.5]])[None])
    assert assert_same_operator(W, Wf).mode == "exact"
    with pytest.raises(TypeError, match="symbolic"):
        dottest(sympy.Matrix([[sympy.Symbol("x")]]))


def test_dottest_refuses_what_it_cannot_use():
    with pytest.raises(TypeError, match="shape=\\(m, n\\)"):
        dottest(lambda x: x)
    with pytest.raises(TypeError, match="rmatvec"):
        dottest(lambda x: x, shape=(3, 3))
    for bad in ("matrix", [[1.0, 2.0]], 3.0, np.zeros((2, 2, 2))):
        with pytest.raises(TypeError):
            dottest(bad)
    with pytest.raises(TypeError, match="exact"):
        dottest(np.array([[sympy.Rational(1, 2)]], dtype=object))
    with pytest.raises(ValueError, match="disagrees"):
        dottest(np.eye(3), shape=(3, 4))


def test_dottest_cupy(cupy_standin_module):
    from isomat.gpu import to_gpu

    A = _dense()
    for op in (to_gpu(A), to_gpu(sp.csr_array(A))):
        assert dottest(op) < 1e-10
        with pytest.raises(AssertionError, match="dot test failed"):
            dottest(op, rmatvec=lambda y: 3.0 * (A.T @ y))
    assert assert_same_operator(to_gpu(sp.csr_array(A)), A).mode == "exact"


# ---------------------------------------------------------------------------------------------
# assert_same_operator
# ---------------------------------------------------------------------------------------------
class _NoDense(sp.csr_array):
    """A CSR array that refuses to be densified."""

    def toarray(self, *a, **k):  # pragma: no cover - reaching it is the failure
        raise AssertionError("densified")

    todense = toarray


def _big(n=10**5, per_row=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, n, n * per_row)
    return sp.csr_array((rng.standard_normal(n * per_row), (rows, cols)), shape=(n, n))


def test_same_operator_catches_one_entry_in_a_huge_sparse_operator():
    A = _big()
    B = A.tocoo()
    i, j = 12345, 67890
    B = sp.coo_array((np.r_[B.data, 1e-3], (np.r_[B.row, i], np.r_[B.col, j])), shape=A.shape).tocsr()
    rep = assert_same_operator(_NoDense(A), _NoDense(A.copy()))
    assert isinstance(rep, SameOperatorReport) and rep.mode == "probe" and rep.vectors == 8
    assert rep.failure_probability <= 1e-9 and 0 < rep.min_detectable < 1e-3
    assert "Gaussian probes" in str(rep)
    with pytest.raises(AssertionError, match=r"row 12345.*Gaussian probes"):
        assert_same_operator(_NoDense(A), _NoDense(B))
    # across kinds: a LinearOperator (matrix-free) and a callable against the sparse matrix
    L = aslinearoperator(A)
    assert assert_same_operator(L, _NoDense(A)).mode == "probe"
    with pytest.raises(AssertionError):
        assert_same_operator(lambda x: A @ x, _NoDense(B), shape=A.shape)


def test_same_operator_exact_mode_small():
    A = _dense(shape=(40, 30))
    rep = assert_same_operator(A, sp.csr_array(A), block=7)
    assert rep.mode == "exact" and rep.vectors == 30 and rep.failure_probability == 0.0 and rep.max_abs_diff == 0
    B = A.copy()
    B[17, 23] += 1e-7
    with pytest.raises(AssertionError, match="column 23.*row 17"):
        assert_same_operator(A, B, block=7)
    assert_same_operator(A, B, rtol=1e-6)  # within a stated tolerance
    with pytest.raises(AssertionError, match="shape"):
        assert_same_operator(A, A[:-1])
    with pytest.raises(AssertionError, match="column 0"):
        assert_same_operator(np.zeros((3, 3)), np.eye(3))  # a difference where B is zero: atol scales with B


def test_same_operator_precision_aware():
    A = _dense(shape=(30, 30))
    assert_same_operator(A.astype(np.float32), A)  # float32 rounding within the float32 tolerance
    assert_same_operator(A.astype(np.float32), A, exact_below=0)  # probes are rounded for both
    with pytest.raises(AssertionError):
        assert_same_operator(A.astype(np.float32), A, rtol=1e-12, atol=0)
    C = _dense(np.complex128, shape=(9, 9))
    assert_same_operator(C, sp.csr_array(C), exact_below=0)
    with pytest.raises(AssertionError):
        assert_same_operator(C, C.conj(), exact_below=0)


def test_assert_matches_dense_unchanged():
    assert_matches_dense(sp.csr_array(np.eye(3)), np.eye(3))
    x = sympy.Symbol("x")
    assert_matches_dense(sympy.Matrix([[x * (x + 1)]]), sympy.Matrix([[x**2 + x]]))
    with pytest.raises(AssertionError):
        assert_matches_dense(sympy.Matrix([[x]]), sympy.Matrix([[x + 1]]))


def test_readme_property_test_example_runs():
    """The README's property test of a user's own layer (once the README carries it) runs as is."""
    from pathlib import Path
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "isomat.testing.strategies" in b]
    if not blocks:
        pytest.skip("README has no isomat.testing.strategies example yet")
    pytest.importorskip("torch")
    for code in blocks:
        # a name that is no file: under "README.md" (the repository root is the working directory) inspect and
        # hypothesis read the real README's lines at the block's line numbers -- another text, which stopped
        # tokenizing when the README above the block changed
        exec(compile(code, "<README.md example>", "exec"), {})


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**16))
def test_dottest_random_shapes(m, n, seed):
    A = np.random.default_rng(seed).standard_normal((m, n))
    dottest(A, rng=seed)
    dottest(sp.csr_array(A), rng=seed)
