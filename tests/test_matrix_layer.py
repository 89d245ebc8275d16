"""matrix_layer / matrix_layer2 and the matrix cell forwards (do2017 eqs. 3-8, §2.2, app. A)
against np.kron, dense einsum, SymPy and torch."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from isomat.algebra import (
    MatrixLayer,
    mat1,
    mat2,
    matrix_gru_cell,
    matrix_highway,
    matrix_layer,
    matrix_layer2,
    matrix_lstm_cell,
    matrix_rnn_cell,
    matrix_layer_parameter_count,
)
from isomat.errors import SizeLimitError
from isomat.testing import assert_matches_dense, dottest

from .conftest import to_host

dims = st.integers(1, 4)
vals = st.sampled_from([0.0, 1.0, -2.0, 0.5, 3.0, -0.25])


def mat(r, c):
    return arrays(np.float64, (r, c), elements=vals)


layer_cases = st.tuples(dims, dims, dims, dims).flatmap(
    lambda s: st.tuples(mat(s[0], s[2]), mat(s[1], s[3]), mat(s[0], s[1]), mat(s[2], s[3]), st.sampled_from("CF"))
)


@given(layer_cases)
def test_weight_is_np_kron_and_applies_einsum(case):
    U, V, P, B, order = case
    layer = matrix_layer(U, V, B, order=order)
    ref_W = np.kron(U.T, V.T) if order == "C" else np.kron(V.T, U.T)
    assert_matches_dense(layer.weight, ref_W)
    ref_Y = np.einsum("ai,ab,bj->ij", U, P, V) + B
    np.testing.assert_allclose(layer(P), ref_Y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.weight @ P.ravel(order=order) + B.ravel(order=order),
                               ref_Y.ravel(order=order), rtol=1e-12, atol=1e-12)
    dottest(layer.weight, rng=3)


@given(st.tuples(dims, dims, dims, dims, dims, dims).flatmap(
    lambda s: st.tuples(mat(s[0], s[4]), mat(s[1], s[5]), mat(s[2], s[4]), mat(s[3], s[5]),
                        mat(s[0], s[1]), mat(s[2], s[3]), mat(s[4], s[5]), st.sampled_from("CF"))))
def test_layer2_blocks_and_forward(case):
    Up, Vp, Uq, Vq, P, Q, B, order = case
    layer = matrix_layer2(Up, Vp, Uq, Vq, B, order=order)
    if order == "C":
        ref_W = np.hstack([np.kron(Up.T, Vp.T), np.kron(Uq.T, Vq.T)])
    else:
        ref_W = np.hstack([np.kron(Vp.T, Up.T), np.kron(Vq.T, Uq.T)])
    assert_matches_dense(layer.weight, ref_W)
    ref = np.einsum("ai,ab,bj->ij", Up, P, Vp) + np.einsum("ai,ab,bj->ij", Uq, Q, Vq) + B
    np.testing.assert_allclose(layer(P, Q), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mat2(P, Q, (Up, Vp, Uq, Vq, B)), ref, rtol=1e-12, atol=1e-12)
    dottest(layer.weight, rng=4)


def test_exact_symbolic_identity_both_orders():
    U = sympy.Matrix(2, 3, sympy.symbols("u0:6"))
    V = sympy.Matrix(2, 2, sympy.symbols("v0:4"))
    B = sympy.Matrix(3, 2, sympy.symbols("b0:6"))
    P = sympy.Matrix(2, 2, sympy.symbols("p0:4"))
    for order in "CF":
        layer = matrix_layer(U, V, B, order=order)
        assert layer.field == "sympy"
        W = sympy.Matrix(layer.weight)
        ref = sympy.kronecker_product(U.T, V.T) if order == "C" else sympy.kronecker_product(V.T, U.T)
        assert (W - ref).is_zero_matrix
        Y = sympy.Matrix(layer(P))
        assert (Y - (U.T * P * V + B)).expand().is_zero_matrix


def test_fields_agree(field):
    rng = np.random.default_rng(0)
    U, V, B = rng.integers(-3, 4, (3, 2)), rng.integers(-3, 4, (2, 4)), rng.integers(-3, 4, (2, 4))
    Uf, Vf, Bf = (sympy.Matrix(M) for M in (U, V, B)) if field == "sympy" else (U, V, B)
    layer = matrix_layer(Uf, Vf, Bf, backend=field)
    W = to_host(layer.weight).astype(float)
    np.testing.assert_allclose(W, np.kron(U.T, V.T))
    if field != "sympy":
        dottest(layer.weight, rng=0)


def test_operator_format_and_sparse_input():
    import scipy.sparse as sp

    U = sp.random_array((5, 3), density=0.4, random_state=1, format="csr")
    V = np.eye(4)[:, :2]
    layer = matrix_layer(U, V, format="operator")
    assert isinstance(layer, MatrixLayer) and layer.bias is None
    assert layer.weight.nnz == U.nnz * 2
    assert_matches_dense(layer.weight.to_scipy(), np.kron(U.toarray().T, V.T))


def test_parameter_count():
    assert matrix_layer_parameter_count((28, 28), (50, 50)) == 28 * 50 * 2 + 2500
    assert matrix_layer_parameter_count((2, 3), (4, 5), bias=False) == 8 + 15


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
def test_bad_inputs_name_the_argument():
    U, V = np.ones((2, 3)), np.ones((4, 5))
    with pytest.raises(ValueError, match=r"B has shape \(2, 2\), expected \(3, 5\)"):
        matrix_layer(U, V, np.ones((2, 2)))
    with pytest.raises(ValueError, match="order must be one of"):
        matrix_layer(U, V, order="K")
    with pytest.raises(TypeError, match="U must be a matrix"):
        matrix_layer(3, V)
    with pytest.raises(ValueError, match="V must be a 2-d matrix"):
        matrix_layer(U, np.ones(4))
    with pytest.raises(ValueError, match="U must have positive dimensions"):
        matrix_layer(np.ones((0, 2)), V)
    with pytest.raises(TypeError, match="numeric"):
        matrix_layer(np.array([["a"]]), V)
    with pytest.raises(ValueError, match="Uq has 2 columns, expected 3"):
        matrix_layer2(U, V, np.ones((2, 2)), V)
    with pytest.raises(ValueError, match=r"inputs\[0\] has shape \(3, 3\), expected \(2, 4\)"):
        matrix_layer(U, V)(np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"P has shape"):
        mat1(np.ones((3, 3)), (U, V, np.zeros((3, 5))))
    with pytest.raises(TypeError, match=r"theta must be a tuple \(U, V, B\)"):
        mat1(np.ones((2, 4)), (U, V))
    with pytest.raises(ValueError, match="backend must be one of"):
        matrix_layer(U, V, backend="jax")


def test_size_bound():
    from isomat._config import memory_limit

    with memory_limit(10_000), pytest.raises(SizeLimitError, match="kron|matrix_layer"):
        matrix_layer(np.ones((20, 20)), np.ones((20, 20)))


# ---------------------------------------------------------------------------------------------
# cell forwards against vectorized (Kronecker) references
# ---------------------------------------------------------------------------------------------
def sig(z):
    return 1 / (1 + np.exp(-z))


def rand_theta(rng, a, b, h1, h2):
    return tuple(rng.standard_normal(s) for s in ((a, h1), (b, h2), (h1, h1), (h2, h2), (h1, h2)))


def kron_pre(theta, x, h):
    Up, Vp, Uq, Vq, B = theta
    return np.kron(Up.T, Vp.T) @ x + np.kron(Uq.T, Vq.T) @ h + B.ravel()


@given(st.tuples(dims, dims, dims, dims, dims, dims), st.integers(0, 2**16))
def test_rnn_cell_is_kronecker_vector_rnn(s, seed):
    a, b, h1, h2, y1, y2 = s
    rng = np.random.default_rng(seed)
    X, H = rng.standard_normal((a, b)), rng.standard_normal((h1, h2))
    th = rand_theta(rng, a, b, h1, h2)
    ty = (rng.standard_normal((h1, y1)), rng.standard_normal((h2, y2)), rng.standard_normal((y1, y2)))
    Y, Hn = matrix_rnn_cell(X, H, th, ty)
    hv = np.tanh(kron_pre(th, X.ravel(), H.ravel()))
    np.testing.assert_allclose(Hn.ravel(), hv, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Y.ravel(), np.kron(ty[0].T, ty[1].T) @ hv + ty[2].ravel(), rtol=1e-12, atol=1e-12)


@given(st.tuples(dims, dims, dims, dims), st.integers(0, 2**16))
def test_lstm_and_gru_cells_are_kronecker_vector_cells(s, seed):
    a, b, h1, h2 = s
    rng = np.random.default_rng(seed)
    X, H, C = rng.standard_normal((a, b)), rng.standard_normal((h1, h2)), rng.standard_normal((h1, h2))
    th = {g: rand_theta(rng, a, b, h1, h2) for g in "ifoc"}
    Hn, Cn = matrix_lstm_cell(X, H, C, th)
    x, h, c = X.ravel(), H.ravel(), C.ravel()
    g = {k: kron_pre(th[k], x, h) for k in "ifoc"}
    c_ref = sig(g["f"]) * c + sig(g["i"]) * np.tanh(g["c"])
    np.testing.assert_allclose(Cn.ravel(), c_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Hn.ravel(), sig(g["o"]) * np.tanh(c_ref), rtol=1e-12, atol=1e-12)

    tg = {k: rand_theta(rng, a, b, h1, h2) for k in "zrh"}
    Hg = matrix_gru_cell(X, H, tg)
    z, r = sig(kron_pre(tg["z"], x, h)), sig(kron_pre(tg["r"], x, h))
    ht = np.tanh(kron_pre(tg["h"], x, r * h))
    np.testing.assert_allclose(Hg.ravel(), (1 - z) * h + z * ht, rtol=1e-12, atol=1e-12)


def test_gru_gates_matter():
    # the corrected update depends on the candidate (the printed one would return H unchanged)
    rng = np.random.default_rng(5)
    X, H = rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    tg = {k: rand_theta(rng, 2, 3, 2, 2) for k in "zrh"}
    assert not np.allclose(matrix_gru_cell(X, H, tg), H)
    with pytest.raises(ValueError, match="missing gate parameters"):
        matrix_gru_cell(X, H, {"z": tg["z"]})
    with pytest.raises(TypeError, match="mapping"):
        matrix_lstm_cell(X, H, H, [1, 2])


@given(dims, dims, st.integers(0, 2**16))
def test_highway_interpolates(r, c, seed):
    rng = np.random.default_rng(seed)
    H = rng.standard_normal((r, c))
    tz = (rng.standard_normal((r, r)), rng.standard_normal((c, c)), rng.standard_normal((r, c)))
    th = (rng.standard_normal((r, r)), rng.standard_normal((c, c)), rng.standard_normal((r, c)))
    out = matrix_highway(H, tz, th)
    Z = sig(tz[0].T @ H @ tz[1] + tz[2])
    Ht = np.tanh(th[0].T @ H @ th[1] + th[2])
    np.testing.assert_allclose(out, (1 - Z) * H + Z * Ht, rtol=1e-12, atol=1e-12)
    # gate closed -> identity; gate open -> candidate
    np.testing.assert_allclose(matrix_highway(H, tz, th, gate=lambda a: np.zeros_like(a)), H)
    np.testing.assert_allclose(matrix_highway(H, tz, th, gate=lambda a: np.ones_like(a)), Ht)


def test_lstm_cell_matches_torch_lstmcell():
    torch = pytest.importorskip("torch")
    # a matrix LSTM with 1-column input/hidden and Uq, Vp, Vq scalars 1 is a vector LSTMCell:
    # mat2(x, h) = Upᵀ x + Uqᵀ h + b
    rng = np.random.default_rng(11)
    n_in, n_h = 3, 4
    cell = torch.nn.LSTMCell(n_in, n_h).double()
    Wih, Whh = cell.weight_ih.detach().numpy(), cell.weight_hh.detach().numpy()
    b = (cell.bias_ih + cell.bias_hh).detach().numpy()
    th = {}
    for k, name in enumerate("ifco"):  # torch gate order: input, forget, cell, output
        sl = slice(k * n_h, (k + 1) * n_h)
        th[name] = (Wih[sl].T, np.ones((1, 1)), Whh[sl].T, np.ones((1, 1)), b[sl][:, None])
    x, h, c = rng.standard_normal(n_in), rng.standard_normal(n_h), rng.standard_normal(n_h)
    Hn, Cn = matrix_lstm_cell(x[:, None], h[:, None], c[:, None], th)
    ht, ct = cell(torch.tensor(x[None]), (torch.tensor(h[None]), torch.tensor(c[None])))
    np.testing.assert_allclose(Hn[:, 0], ht.detach().numpy()[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Cn[:, 0], ct.detach().numpy()[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# the entry rule the do2017 ledger proves things about (claims do2017:eq3, eq6, fig3, eq19)
# ---------------------------------------------------------------------------------------------
@given(shapes=st.lists(st.tuples(dims, dims), min_size=1, max_size=3), out=st.tuples(dims, dims),
       order=st.sampled_from("CF"), seed=st.integers(0, 2**16))
def test_weight_equals_entry_rule(shapes, out, order, seed):
    from isomat.algebra.matrix_layer import matrix_layer_entry

    rng = np.random.default_rng(seed)
    pairs = [(rng.standard_normal((r, out[0])), rng.standard_normal((c, out[1]))) for r, c in shapes]
    if len(pairs) == 1:
        W = matrix_layer(*pairs[0], order=order).weight
    elif len(pairs) == 2:
        W = matrix_layer2(*pairs[0], *pairs[1], order=order).weight
    else:
        from isomat.algebra.matrix_layer import _layer_operator

        W = _layer_operator(pairs, None, order, "numpy")[0].render("csr")
    W = np.asarray(W.toarray())
    rows, cols = np.indices(W.shape)
    k, i, a, j, b = matrix_layer_entry(rows, cols, shapes, out, order)
    U = np.stack([np.pad(U, ((0, 4 - U.shape[0]), (0, 0))) for U, _ in pairs])  # (block, r, r')
    V = np.stack([np.pad(V, ((0, 4 - V.shape[0]), (0, 0))) for _, V in pairs])
    assert W.shape == (out[0] * out[1], sum(r * c for r, c in shapes))
    # every index the rule returns is inside its block's matrices, and the value is U_k[i,a] V_k[j,b]
    rk, ck = np.array(shapes)[k, 0], np.array(shapes)[k, 1]
    assert ((0 <= i) & (i < rk) & (0 <= j) & (j < ck) & (0 <= a) & (a < out[0]) & (0 <= b) & (b < out[1])).all()
    np.testing.assert_array_equal(W, U[k, i, a] * V[k, j, b])


def test_entry_rule_single_block_by_hand():
    from isomat.algebra.matrix_layer import matrix_layer_entry

    # r, c = 2, 3; r', c' = 2, 2: C-order row 3 is Y[1, 1], column 4 is P[1, 1]
    assert matrix_layer_entry(3, 4, [(2, 3)], (2, 2), "C") == (0, 1, 1, 1, 1)
    # F order: row 1 is Y[1, 0], column 4 is P[0, 2]; a second block starts at column 6
    assert matrix_layer_entry(1, 4, [(2, 3)], (2, 2), "F") == (0, 0, 1, 2, 0)
    assert matrix_layer_entry(1, 7, [(2, 3), (1, 2)], (2, 2), "F") == (1, 0, 1, 1, 0)
