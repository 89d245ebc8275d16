r"""Hypervectors and the dimension-free transformer of cheng2025 (§IV-§VI).

A :class:`Hypervector` is an ordered list of vectors of varying sizes (Def. 4.1, eq. 54). Its
three forms are the pseudo-matrix (55), the addition form :math:`V_X` (56, row stacking of the
vectors) and the product form :math:`\ltimes_i x^i` (57). On hypervectors the paper builds a
linear map :math:`A\diamond X` (Def. 4.13, by project-padding, a matrix product and
projecting back), inner products :math:`\odot`, :math:`\odot_w` (Def. 4.12), nominal additions
(Defs. 4.11, 5.8), zero- and project-padding (Algs. 5.1, 5.2), dimension-varying attention
(93), (96), (97), the dimension-free add (104) and feed-forward (106), and the assembled
attention of §VI (107).

Fields follow the inputs, as everywhere in :mod:`isomat.algebra`: SymPy vectors give exact
results (``sympy.Matrix``), NumPy gives NumPy, CuPy gives CuPy. Projections are applied
matrix-free (:func:`~isomat.algebra.project`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy

from .. import _validate
from .._types import DenseMatrix, FieldArray
from ._operator import Rendered
from . import _backend
from ._operator import SparseOperator, check_bytes, check_size, value_bytes
from .kron import kron_operator
from .projection import project, project_bytes, projection_operator
from .stp import _as_dense, _inner_dense, _out


def _field_of_all(*objs: Any) -> str:
    flat: list[Any] = []
    for o in objs:
        if isinstance(o, Hypervector):
            flat.extend(o._v)
        else:
            flat.append(o)
    return _backend.field_of(*flat)


class Hypervector:
    r"""An ordered finite list of finite-dimensional vectors (cheng2025, Def. 4.1, eq. 54).

    .. math:: X=\{x^1,\dots,x^s\},\quad x^i\in\mathbb R^{n_i},\qquad X\in\mathbb R^{n_1\times\cdots\times n_s}.

    Parameters
    ----------
    vectors : sequence of vectors
        SymPy column matrices or lists of SymPy numbers (exact), NumPy or CuPy 1-d arrays.
    """

    def __init__(self, vectors: Sequence[Any]):
        if isinstance(vectors, Hypervector):
            vectors = list(vectors)
        if isinstance(vectors, (str, bytes)) or not isinstance(vectors, Sequence) or len(vectors) == 0:
            raise TypeError(f"vectors must be a non-empty sequence of vectors, got {type(vectors).__name__}")
        field = _backend.field_of(*vectors)
        self.field = field
        self._v = [_as_dense(v, f"vectors[{i}]", field, vector=True) for i, v in enumerate(vectors)]

    # -- basic protocol ----------------------------------------------------------------------
    @property
    def dims(self) -> tuple[int, ...]:
        """:math:`(n_1,\\dots,n_s)`."""
        return tuple(int(v.shape[0]) for v in self._v)

    def __len__(self) -> int:
        return len(self._v)

    def __getitem__(self, i: int) -> DenseMatrix:
        return _out(self._v[i], self.field)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return f"Hypervector(dims={self.dims}, field={self.field!r})"

    def values(self) -> list[Any]:
        """The vectors as 1-d value arrays (object arrays of SymPy numbers in the exact field)."""
        return list(self._v)

    # -- the three forms (eqs. 55-57) -------------------------------------------------------
    def pseudo_matrix(self) -> list[list[Any]]:
        r"""Pseudo-matrix form :math:`M_X` (eq. 55): row :math:`i` is :math:`(x^i)^{\mathsf T}`, of length :math:`n_i`."""
        return [list(_backend.to_numpy(v).tolist()) if self.field != "sympy" else list(v) for v in self._v]

    def addition_form(self) -> DenseMatrix:
        r"""Addition form :math:`V_X=[x^1;\dots;x^s]\in\mathbb R^{n_1+\cdots+n_s}` (eq. 56)."""
        xp = _backend.array_module(self.field)
        return _out(xp.concatenate(self._v), self.field)

    def product_form(self) -> DenseMatrix:
        r"""Product form :math:`x=\ltimes_{i=1}^s x^i = x^1\otimes\cdots\otimes x^s\in\mathbb R^{n_1\cdots n_s}` (eq. 57).

        For column vectors the STP is the Kronecker product, computed as an outer product.
        """
        size = int(np.prod(self.dims, dtype=object))
        check_size("product_form", (size, 1), size, field=self.field)
        out = self._v[0]
        for v in self._v[1:]:
            out = (out[:, None] * v[None, :]).reshape(-1)
        return _out(out, self.field)

    @classmethod
    def from_addition_form(cls, v: Any, dims: Sequence[int]) -> "Hypervector":
        """Split :math:`V_X` back into vectors of sizes ``dims`` (inverse of eq. 56)."""
        dims = _validate.shape("dims", tuple(dims) if isinstance(dims, (list, tuple, range, np.ndarray)) else dims)
        field = _backend.field_of(v)
        arr = _as_dense(v, "v", field, vector=True)
        if arr.shape[0] != sum(dims):
            raise ValueError(f"v has {arr.shape[0]} entries but dims {dims} need {sum(dims)}")
        cuts = np.cumsum((0,) + dims)
        return cls([_out(arr[cuts[i]:cuts[i + 1]], field) if field == "sympy" else arr[cuts[i]:cuts[i + 1]]
                    for i in range(len(dims))])

    @classmethod
    def from_matrix(cls, M: Any) -> "Hypervector":
        """The homogeneous hypervector whose vectors are the rows of ``M`` (eq. 59: :math:`V_X=V_r(M_X)`)."""
        field = _backend.field_of(M)
        arr = _as_dense(M, "M", field)
        return cls([_out(arr[i], field) if field == "sympy" else arr[i] for i in range(arr.shape[0])])

    def to_matrix(self) -> DenseMatrix:
        """:math:`M_X` as a matrix, for a homogeneous hypervector (all :math:`n_i` equal)."""
        if len(set(self.dims)) != 1:
            raise ValueError(f"to_matrix needs equal dimensions, got dims {self.dims}; use zero_pad or project_pad")
        xp = _backend.array_module(self.field)
        return _out(xp.stack(self._v), self.field)


def _hv(X: Any, name: str) -> Hypervector:
    if isinstance(X, Hypervector):
        return X
    if isinstance(X, (list, tuple)):
        return Hypervector(X)
    raise TypeError(f"{name} must be a Hypervector or a list of vectors, got {type(X).__name__}")


def _rebuild(vals: list[Any], field: str) -> Hypervector:
    return Hypervector([_out(v, field) if field == "sympy" else v for v in vals])


def _in_field(X: Hypervector, field: str) -> Hypervector:
    """``X`` with its vectors in ``field``, the field of all the operands: a NumPy hypervector met by an exact matrix
    is made exact *before* it is projected or padded (projected in floats first, an exact result held float
    roundings of thirds and the like as rationals)."""
    if X.field == field:
        return X
    return _rebuild([_backend.as_values(v, field).reshape(-1) for v in X.values()], field)


def _proj_vec(v: Any, n: int, field: str) -> FieldArray:
    """Π^{len v}_n v as a 1-d value array."""
    res = project(_out(v, field) if field == "sympy" else v, n)
    return _backend.as_values(res, field).reshape(-1)


# ---------------------------------------------------------------------------------------------
# Prop. 4.3: rank-one factorization of a product form
# ---------------------------------------------------------------------------------------------
def factor_product_form(x: Any, dims: Sequence[int], *, normalize: bool = True) -> tuple[Hypervector, Any]:
    r"""Recover :math:`x^1,\dots,x^s` from :math:`x=\ltimes_i x^i` (cheng2025, Prop. 4.3, eq. 58).

    Returns ``(X, c)`` with :math:`x = c\,\ltimes_i x^i`. The factors are determined up to
    scalars :math:`\lambda_i` with :math:`\prod\lambda_i=1` (eq. 58); with ``normalize=True`` each
    factor is scaled to sum 1, which fixes them uniquely (the stochastic normalization of
    Prop. 4.3; ``c`` is the product of the factors' sums, 1 when ``x`` is stochastic). Raises
    ``ValueError`` when ``x`` is zero, is not a product form of the given dims (tensor rank > 1),
    or (with ``normalize``) when some factor sums to zero.
    """
    dims = _validate.shape("dims", tuple(dims) if isinstance(dims, (list, tuple, range, np.ndarray)) else dims)
    normalize = _validate.boolean("normalize", normalize)
    field = _backend.field_of(x)
    v = _as_dense(x, "x", field, vector=True)
    N = int(np.prod(dims, dtype=object))
    if v.shape[0] != N:
        raise ValueError(f"x has {v.shape[0]} entries but dims {dims} need their product {N}")
    xp = _backend.array_module(field)
    if field == "sympy":
        mags = np.array([abs(float(e)) for e in v])
        k = int(np.argmax(mags))
        if mags[k] == 0:
            raise ValueError("x is zero; Prop. 4.3 assumes x != 0")
    else:
        k = int(xp.argmax(xp.abs(v)))
        if float(xp.abs(v[k])) == 0:
            raise ValueError("x is zero; Prop. 4.3 assumes x != 0")
    T = v.reshape(dims)
    idx = np.unravel_index(k, dims)
    pivot = v[k]
    factors = []
    for i in range(len(dims)):
        sl: list[Any] = list(idx)
        sl[i] = slice(None)
        factors.append(T[tuple(sl)])
    factors[0] = factors[0] / pivot ** (len(dims) - 1)
    c = sympy.Integer(1) if field == "sympy" else 1.0
    if normalize:
        sums = [f.sum() for f in factors]
        if any((s == 0) if field == "sympy" else float(s) == 0.0 for s in sums):
            raise ValueError("a factor sums to zero: x has no stochastic normalization")
        factors = [f / s for f, s in zip(factors, sums)]
        for s in sums:
            c = c * s
    X = _rebuild(factors, field)
    rebuilt = _backend.as_values(X.product_form(), field).reshape(-1) * c
    if field == "sympy":
        ok = all(sympy.simplify(a - b) == 0 for a, b in zip(rebuilt, v))
    else:
        ok = bool(xp.allclose(rebuilt, v, rtol=1e-10, atol=1e-12 * float(xp.abs(pivot))))
    if not ok:
        raise ValueError(f"x is not a product form x^1 ⋉ ... ⋉ x^s of dims {dims} (its reshaped tensor has rank > 1)")
    return X, c


# ---------------------------------------------------------------------------------------------
# Padding (Algs. 5.1, 5.2; Def. 4.13 step 1)
# ---------------------------------------------------------------------------------------------
def zero_pad(X: Any, d: int) -> DenseMatrix:
    r"""Zero-padding (cheng2025, Alg. 5.1 step 1, eq. 85): the :math:`s\times d` matrix with
    :math:`\tilde x_{i,j}=x^i_j` for :math:`j\le n_i`, 0 otherwise. Needs :math:`n_i\le d`."""
    X = _hv(X, "X")
    d = _validate.positive_int("d", d)
    if max(X.dims) > d:
        raise ValueError(f"zero-padding needs d >= every n_i; got d = {d} and dims {X.dims}")
    s = len(X)
    check_size("zero_pad", (s, d), s * d, field=X.field)
    xp = _backend.array_module(X.field)
    flat = xp.concatenate(X.values())
    lens = xp.asarray(np.array(X.dims))
    rows = xp.repeat(xp.arange(s), lens)
    starts = xp.concatenate([xp.zeros(1, dtype=lens.dtype), xp.cumsum(lens)[:-1]])
    cols = xp.arange(flat.shape[0]) - xp.repeat(starts, lens)
    if X.field == "sympy":
        out = np.empty((s, d), dtype=object)
        out[...] = sympy.Integer(0)
    else:
        out = xp.zeros((s, d), dtype=flat.dtype)
    out[rows, cols] = flat
    return _out(out, X.field)


def project_pad(X: Any, d: int | None = None) -> DenseMatrix:
    r"""Project-padding (cheng2025, Alg. 5.2 step 1, eqs. 88-89; Def. 4.13 step 1, eq. 71).

    Row :math:`i` of the :math:`s\times d` result is :math:`(\Pi^{n_i}_d x^i)^{\mathsf T}`;
    ``d`` defaults to :math:`n_0=\max_i n_i`. Any :math:`n_i` works, larger than ``d`` too.
    """
    X = _hv(X, "X")
    d = max(X.dims) if d is None else _validate.positive_int("d", d)
    # the s projected rows and their stacked s x d copy, plus one projection's work at a time:
    # refused before any is made (d = 10**12 used to reach NumPy's MemoryError)
    item = value_bytes(X.field)
    check_bytes("project_pad", 2 * len(X) * d * item + max(project_bytes(n, d, 1, X.field) for n in X.dims),
                f"{len(X)} rows padded to d = {d:,}")
    xp = _backend.array_module(X.field)
    return _out(xp.stack([_proj_vec(v, d, X.field) for v in X.values()]), X.field)


def truncate_rows(M: Any, dims: Sequence[int]) -> Hypervector:
    r"""Un-padding by the padding mask (Alg. 5.1 step 3, eq. 87): :math:`q^i_j=\tilde q_{i,j}`, :math:`j\le m_i`."""
    field = _backend.field_of(M)
    arr = _as_dense(M, "M", field)
    dims = _validate.shape("dims", tuple(dims) if isinstance(dims, (list, tuple, range, np.ndarray)) else dims)
    if len(dims) != arr.shape[0] or max(dims) > arr.shape[1]:
        raise ValueError(f"dims {dims} must give one size <= {arr.shape[1]} per row of the {arr.shape[0]}-row matrix")
    return _rebuild([arr[i, : dims[i]] for i in range(len(dims))], field)


def project_rows(M: Any, dims: Sequence[int]) -> Hypervector:
    r"""Un-padding by projection (Alg. 5.2 step 3, eq. 91; Def. 4.13 step 3, eq. 73):
    :math:`q^i=\Pi^{d}_{m_i}\,\operatorname{Row}_i(M)^{\mathsf T}`."""
    field = _backend.field_of(M)
    arr = _as_dense(M, "M", field)
    dims = _validate.shape("dims", tuple(dims) if isinstance(dims, (list, tuple, range, np.ndarray)) else dims)
    if len(dims) != arr.shape[0]:
        raise ValueError(f"dims must give one size per row: {arr.shape[0]} rows, got {len(dims)} dims")
    return _rebuild([_proj_vec(arr[i], dims[i], field) for i in range(len(dims))], field)


def _matmul(A: Any, B: Any, field: str) -> Any:
    return A.dot(B) if field == "sympy" else _backend.array_module(field).matmul(A, B)


def _padded_linear(W: Any, X: Any, out_dims: Sequence[int], pad: Any, cut: Any) -> Hypervector:
    r"""Algorithms 5.1/5.2: rows of ``X`` padded to ``d`` by ``pad``, :math:`\tilde Q^{\mathsf T}=W\tilde X^{\mathsf T}`,
    row ``i`` cut back to ``out_dims[i]`` entries by ``cut``."""
    X = _hv(X, "X")
    field = _field_of_all(X, W)
    X = _in_field(X, field)
    Wd = _as_dense(W, "W", field)
    if Wd.shape[0] != Wd.shape[1]:
        raise ValueError(f"W must be square (d x d), got shape {tuple(Wd.shape)}")
    # named as the caller wrote it (the row cutters below call their argument ``dims``)
    out_dims = _validate.shape("out_dims", tuple(out_dims) if isinstance(out_dims, (list, range, np.ndarray))
                               else out_dims)
    if len(out_dims) != len(X):
        raise ValueError(f"out_dims must give one size per vector of X: X has {len(X)}, got {len(out_dims)} "
                         f"sizes {out_dims}")
    if cut is truncate_rows and max(out_dims) > Wd.shape[1]:
        raise ValueError(f"out_dims {out_dims} must be at most d = {Wd.shape[1]} (W is {Wd.shape[0]} x {Wd.shape[1]}): "
                         "zero-padding truncates the rows of W X^T")
    Xt = _backend.as_values(pad(X, Wd.shape[1]), field)
    Qt = _matmul(Wd, Xt.T, field).T
    return cut(_out(Qt, field) if field == "sympy" else Qt, out_dims)


def zero_padding_linear(W: Any, X: Any, out_dims: Sequence[int]) -> Hypervector:
    r"""Algorithm 5.1 (zero-padding): :math:`\tilde Q^{\mathsf T}=W\tilde X^{\mathsf T}` (86), then
    truncate row :math:`i` to :math:`m_i` entries (87). ``W`` is :math:`d\times d` with
    :math:`d\ge\max(n_i, m_i)`."""
    return _padded_linear(W, X, out_dims, zero_pad, truncate_rows)


def project_padding_linear(W: Any, X: Any, out_dims: Sequence[int]) -> Hypervector:
    r"""Algorithm 5.2 (project-padding) with step 2 read as :math:`\tilde Q^{\mathsf T}=W\tilde X^{\mathsf T}`.

    Step 1 (88-89): :math:`\tilde x^i=\Pi^{n_i}_d x^i`; step 2: :math:`\tilde Q^{\mathsf T}=W\tilde X^{\mathsf T}`
    (eq. (90) prints :math:`\tilde Q=W\tilde X`, which is defined only when :math:`s=d`; Example 5.3
    computes :math:`\tilde Q^{\mathsf T}=W^q\tilde X^{\mathsf T}` as in (86)); step 3 (91):
    :math:`q^i=\Pi^d_{m_i}\tilde q^i`. ``W`` is :math:`d\times d`, ``d`` the nominal dimension.
    """
    return _padded_linear(W, X, out_dims, project_pad, project_rows)


# ---------------------------------------------------------------------------------------------
# The operator ⋄ (Def. 4.13, eqs. 71-82)
# ---------------------------------------------------------------------------------------------
def diamond(A: Any, X: Any, *, out_dims: Sequence[int] | None = None) -> Hypervector:
    r"""The linear map :math:`A\diamond X` of cheng2025, Def. 4.13, step by step (eqs. 71-74).

    Step 1: :math:`\tilde x^i=\Pi^{n_i}_{n_0}x^i`, :math:`n_0=\max n_i`; step 2:
    :math:`\tilde\Xi=A\tilde X`; step 3: :math:`\xi^i=\Pi^{n_0}_{n_i}\operatorname{Row}_i(\tilde\Xi)^{\mathsf T}`.
    ``A`` is :math:`s\times s`. ``out_dims`` (default: the :math:`n_i`) generalizes step 3 to a
    rectangular :math:`A\in\mathcal M_{p\times s}` (used by (97)).
    """
    X = _hv(X, "X")
    if out_dims is not None:
        out_dims = _validate.dims("out_dims", out_dims)
    field = _field_of_all(X, A)
    X = _in_field(X, field)
    Ad = _as_dense(A, "A", field)
    s = len(X)
    if Ad.shape[1] != s:
        raise ValueError(f"A must have s = {s} columns (one per vector of X), got shape {tuple(Ad.shape)}")
    if out_dims is None:
        if Ad.shape[0] != s:
            raise ValueError(f"A must be s x s = {s}x{s} (Def. 4.13), got shape {tuple(Ad.shape)}; give out_dims for a rectangular A")
        out_dims = X.dims
    Xt = _backend.as_values(project_pad(X), field)
    Xi = _matmul(Ad, Xt, field)
    return project_rows(_out(Xi, field) if field == "sympy" else Xi, out_dims)


def _block_diag_projections(pairs: Sequence[tuple[int, int]], field: str) -> SparseOperator:
    """diag(Π^{m_1}_{n_1}, ..., Π^{m_s}_{n_s}) as one SparseOperator (eqs. 77, 80)."""
    xp = _backend.array_module(field)
    ops = [projection_operator(m, n, backend=field) for m, n in pairs]
    r_off = np.cumsum([0] + [n for _, n in pairs])
    c_off = np.cumsum([0] + [m for m, _ in pairs])
    rows = xp.concatenate([op.rows.astype(xp.int64) + int(r_off[i]) for i, op in enumerate(ops)])
    cols = xp.concatenate([op.cols.astype(xp.int64) + int(c_off[i]) for i, op in enumerate(ops)])
    vals = np.concatenate([op.values for op in ops]) if field == "sympy" else xp.concatenate([op.values for op in ops])
    return SparseOperator.build((int(r_off[-1]), int(c_off[-1])), rows, cols, vals, field)


def diamond_matrix(A: Any, dims: Sequence[int], *, format: str = "csr") -> Rendered:
    r"""The matrix of :math:`X\mapsto A\diamond X` on addition forms (cheng2025, eqs. 76-82, corrected).

    .. math:: V_{A\diamond X}=T_\Xi\,(A\otimes I_{n_0})\,T_{\tilde X}\,V_X,

    :math:`T_{\tilde X}=\operatorname{diag}(\Pi^{n_i}_{n_0})` (77), :math:`T_\Xi=\operatorname{diag}(\Pi^{n_0}_{n_i})` (80).
    Eqs. (75), (78) and (82) print :math:`A\otimes I_s`; with row stacking
    :math:`V_r(A\tilde X)=(A\otimes I_{n_0})V_r(\tilde X)` for :math:`\tilde X\in\mathcal M_{s\times n_0}`,
    and Example 4.15 uses :math:`W\otimes I_3=W\otimes I_{n_0}` (ledger ``cheng2025:eq82``).
    Sparse in the field of ``A``.
    """
    dims = _validate.shape("dims", tuple(dims) if isinstance(dims, (list, tuple, range, np.ndarray)) else dims)
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator"))
    field = _backend.field_of(A)
    Ad = _as_dense(A, "A", field)
    s = len(dims)
    if Ad.shape != (s, s):
        raise ValueError(f"A must be s x s = {s}x{s} for dims {dims}, got shape {tuple(Ad.shape)}")
    n0 = max(dims)
    TX = _block_diag_projections([(n, n0) for n in dims], field)
    TXi = _block_diag_projections([(n0, n) for n in dims], field)
    xp = _backend.array_module(field)
    eye = SparseOperator.build((n0, n0), xp.arange(n0), xp.arange(n0),
                               _backend.rational(xp.ones(n0, dtype=xp.int64), 1, field, xp), field)
    K = kron_operator(_wrap_dense(Ad, field), eye, backend=field)
    return _compose([TXi, K, TX], field, format)


def _wrap_dense(Ad: Any, field: str) -> SparseOperator:
    from ._operator import as_operator

    return as_operator(_out(Ad, field) if field == "sympy" else Ad, field=field, name="A")


def _compose(ops: list[SparseOperator], field: str, format: str) -> Rendered:
    mats = [op.render("csr") for op in ops]
    out = mats[0]
    for M in mats[1:]:
        out = out * M if field == "sympy" else out @ M
    if format == "operator":
        from ._operator import as_operator

        return as_operator(out, field=field)
    if field == "sympy":
        return sympy.SparseMatrix(out)
    return out.asformat(_validate.choice("format", format, ("csr", "csc", "coo")))


# ---------------------------------------------------------------------------------------------
# Inner products (Def. 4.12) and nominal additions (Defs. 4.11, 5.8; eq. 104)
# ---------------------------------------------------------------------------------------------
def hv_inner(X: Any, Y: Any) -> DenseMatrix:
    r""":math:`X\odot Y=\bigl(\langle x^i,y^j\rangle_{\mathcal V}\bigr)_{i,j}\in\mathcal M_{s\times t}` (cheng2025, Def. 4.12 (i), eq. 67)."""
    X, Y = _hv(X, "X"), _hv(Y, "Y")
    field = _field_of_all(X, Y)
    xs = [_backend.as_values(_out(v, X.field), field).reshape(-1) if X.field == "sympy" else _backend.as_values(v, field) for v in X.values()]
    ys = [_backend.as_values(_out(v, Y.field), field).reshape(-1) if Y.field == "sympy" else _backend.as_values(v, field) for v in Y.values()]
    if field == "sympy":
        return sympy.Matrix([[_inner_dense(x, y, field) for y in ys] for x in xs])
    xp = _backend.array_module(field)
    return xp.stack([xp.stack([_inner_dense(x, y, field) for y in ys]) for x in xs])


def hv_inner_weighted(X: Any, Y: Any) -> DenseMatrix:
    r""":math:`X\odot_w Y=(X\odot Y)\circ W`, :math:`W_{ij}=\sqrt{\operatorname{lcm}(m_i,n_j)}` (cheng2025, eqs. 68-69).

    Eq. (69) prints :math:`(X\otimes Y)\circ W`; the Hadamard factor must be :math:`s\times t`,
    which is :math:`X\odot Y` (eq. 70 confirms this reading).
    """
    X, Y = _hv(X, "X"), _hv(Y, "Y")
    G = hv_inner(X, Y)
    field = _field_of_all(X, Y)
    if field == "sympy":
        return sympy.Matrix(len(X), len(Y), lambda i, j: G[i, j] * sympy.sqrt(math.lcm(X.dims[i], Y.dims[j])))
    xp = _backend.array_module(field)
    W = xp.sqrt(xp.asarray(np.array([[math.lcm(m, n) for n in Y.dims] for m in X.dims], dtype=float)))
    return G * W


def hv_nominal_add(X: Any, Y: Any, r: int) -> DenseMatrix:
    r"""Nominal addition of hypervectors (cheng2025, Def. 4.11, eqs. 65-66), an :math:`k\times r` matrix.

    Row :math:`i` is :math:`(\tilde x^i+_r\tilde y^i)^{\mathsf T}` where, with :math:`k=\operatorname{lcm}(s,t)`,
    :math:`\tilde X=X\otimes\mathbf 1_{k/s}` repeats each :math:`x^i` :math:`k/s` times (66);
    for :math:`s=t` this is (65).
    """
    X, Y = _hv(X, "X"), _hv(Y, "Y")
    r = _validate.positive_int("r", r)
    field = _field_of_all(X, Y)
    s, t = len(X), len(Y)
    k = math.lcm(s, t)
    # k = lcm(s, t) rows of length r, kept (one small array each: ~0.9 KiB of object overhead and
    # allocator slack measured per row at r = 50) and then stacked, and one row's projections at a time
    item = value_bytes(field)
    check_bytes("hv_nominal_add", k * (2 * r * item + 1024) + 3 * max(project_bytes(n, r, 1, field) for n in X.dims + Y.dims),
                f"{k:,} rows of length {r:,}")
    xp = _backend.array_module(field)
    rows = []
    for i in range(k):
        x = X.values()[i // (k // s)]
        y = Y.values()[i // (k // t)]
        rows.append(_proj_vec(x, r, field) + _proj_vec(y, r, field))
    return _out(xp.stack(rows), field)


def hv_nominal_add_r(X: Any, Y: Any, r: Sequence[int]) -> Hypervector:
    r""":math:`X+_{\mathbf r}Y=\{x^i+_{r_i}y^i\}` (cheng2025, Def. 5.8, eq. 105)."""
    X, Y = _hv(X, "X"), _hv(Y, "Y")
    r = _validate.shape("r", tuple(r))
    if not (len(X) == len(Y) == len(r)):
        raise ValueError(f"X, Y and r must have equal lengths, got {len(X)}, {len(Y)}, {len(r)}")
    field = _field_of_all(X, Y)
    return _rebuild([_proj_vec(x, ri, field) + _proj_vec(y, ri, field) for x, y, ri in zip(X.values(), Y.values(), r)], field)


def df_concat(heads: Sequence[Any], out_dims: Sequence[int], weights: Sequence[Any] | None = None) -> Hypervector:
    r"""Dimension-varying Concat of attention heads (cheng2025, eqs. 100-101; weighted: Remark 5.7, eq. 103).

    For heads :math:`V'_i=\{v_i^1,\dots,v_i^s\}` (:math:`v_i^k\in\mathbb R^{b^i_k}`), :math:`i\in[1,\ell]`,
    and output dimensions :math:`b^0_k`:

    .. math:: v_c^k=\sum_{i=1}^{\ell} w_i\,\Pi^{b^i_k}_{b^0_k}\,v_i^k,

    i.e. :math:`V_{V'_c}=\sum_i w_iV_c^i` with :math:`V_c^i=\operatorname{diag}(\Pi^{b^i_k}_{b^0_k})V_{V'_i}`
    (100); ``weights=None`` is (101) (all :math:`w_i=1`), which equals the iterated nominal addition
    :math:`v_1^k+_{b^0_k}v_2^k+_{b^0_k}\cdots` of (99).
    """
    if isinstance(heads, (str, bytes)) or not isinstance(heads, Sequence) or len(heads) == 0:
        raise TypeError(f"heads must be a non-empty sequence of hypervectors, got {type(heads).__name__}")
    H = [_hv(h, f"heads[{i}]") for i, h in enumerate(heads)]
    out_dims = _validate.dims("out_dims", out_dims)
    if weights is not None and (isinstance(weights, (str, bytes)) or not isinstance(weights, (Sequence, np.ndarray))):
        raise TypeError(f"weights must be None or a sequence of one number per head, got {type(weights).__name__}")
    if any(len(h) != len(out_dims) for h in H):
        raise ValueError(f"every head must have s = {len(out_dims)} vectors (one per out_dims entry), got {[len(h) for h in H]}")
    field = _field_of_all(*H, *(() if weights is None else weights))
    if weights is None:
        w = [sympy.Integer(1) if field == "sympy" else 1.0] * len(H)
    else:
        if len(weights) != len(H):
            raise ValueError(f"weights must have one entry per head ({len(H)}), got {len(weights)}")
        try:
            w = [sympy.sympify(x) if field == "sympy" else float(x) for x in weights]
        except (TypeError, ValueError, sympy.SympifyError):
            raise TypeError(f"weights must hold one number per head, got entries like {weights[0]!r}") from None
    out = []
    for k, d in enumerate(out_dims):
        acc = None
        for wi, h in zip(w, H):
            term = _proj_vec(_backend.as_values(_out(h.values()[k], h.field), field).reshape(-1)
                             if h.field == "sympy" else h.values()[k], d, field) * wi
            acc = term if acc is None else acc + term
        out.append(acc)
    return _rebuild(out, field)


def df_add(X: Any, F: Any) -> Hypervector:
    r"""Dimension-free residual add (cheng2025, eq. 104): :math:`z^i=\Pi^{n_i}_{m_i}x^i+f^i\in\mathbb R^{m_i}`."""
    X, F = _hv(X, "X"), _hv(F, "F")
    if len(X) != len(F):
        raise ValueError(f"X and F(X) must have the same number of vectors, got {len(X)} and {len(F)}")
    field = _field_of_all(X, F)
    return _rebuild([_proj_vec(x, len(f), field) + f for x, f in zip(X.values(), F.values())], field)


# ---------------------------------------------------------------------------------------------
# Nonlinearities, attention (93, 96, 97), feed-forward (106), assembled attention (§VI)
# ---------------------------------------------------------------------------------------------
def softmax_rows(E: Any) -> DenseMatrix:
    r"""Row-wise softmax (cheng2025, eqs. 42-43); exact (``sympy.exp``) for SymPy input."""
    field = _backend.field_of(E)
    Ed = _as_dense(E, "E", field)
    if field == "sympy":
        ex = np.vectorize(sympy.exp, otypes=[object])(Ed)
        return _out(ex / ex.sum(axis=1)[:, None], field)
    xp = _backend.array_module(field)
    ex = xp.exp(Ed - Ed.max(axis=1, keepdims=True))
    return ex / ex.sum(axis=1, keepdims=True)


def _relu_vals(v: Any, field: str) -> FieldArray:
    if field == "sympy":
        return np.array([e if e > 0 else sympy.Integer(0) for e in v], dtype=object)
    return _backend.array_module(field).maximum(v, 0)


def relu(X: Any) -> Hypervector:
    """Entrywise ReLU (eq. 51) of every vector of a hypervector."""
    X = _hv(X, "X")
    return _rebuild([_relu_vals(v, X.field) for v in X.values()], X.field)


def _check_attention(what: str, Q: Hypervector, K: Hypervector, V: Hypervector | None = None, t: int = 0) -> None:
    """Refuse, before any is made, attention whose arrays exceed the memory bound: the p x q scores,
    weights, softmax and its temporaries; with ``V``, the p x t repeated scores (``t`` the number of
    value rows after repetition), the t x n0 project-padded values, the p x n0 product and its
    projected rows, and one projection's work."""
    item = value_bytes(_field_of_all(Q, K, *(() if V is None else (V,))))
    p, q = len(Q), len(K)
    need = item * 5 * p * q
    detail = f"{p:,} x {q:,} attention scores"
    if V is not None:
        t = t or len(V)
        n0 = max(V.dims)
        # (+ 1 KiB per value row: the repeated hypervector and its projected rows are lists of small
        # arrays, ~0.4 KiB of object overhead each measured at n0 = 3)
        need += item * (p * t + 2 * t * n0 + 3 * p * n0) + 1024 * t + max(project_bytes(n, n0, 1) for n in V.dims)
        detail += f" over {t:,} value rows of length {n0:,}"
    check_bytes(what, need, detail)


def attention_scores(Q: Any, K: Any, *, weighted: bool = True) -> DenseMatrix:
    r""":math:`A=\operatorname{softmax}(Q\odot_w K)` (eq. 93), or :math:`\operatorname{softmax}(Q\odot K)` (eq. 94) with ``weighted=False``."""
    weighted = _validate.boolean("weighted", weighted)
    Q, K = _hv(Q, "Q"), _hv(K, "K")
    _check_attention("attention_scores", Q, K)
    G = hv_inner_weighted(Q, K) if weighted else hv_inner(Q, K)
    return softmax_rows(G)


def df_attention(Q: Any, K: Any, V: Any, *, weighted: bool = True) -> Hypervector:
    r"""Dimension-varying attention :math:`A\diamond V` with :math:`A` of (93) (cheng2025, eq. 96)."""
    weighted = _validate.boolean("weighted", weighted)
    Q, K, V = _hv(Q, "Q"), _hv(K, "K"), _hv(V, "V")
    _check_attention("df_attention", Q, K, V)
    A = attention_scores(Q, K, weighted=weighted)
    return diamond(A, V)


def df_attention_general(Q: Any, K: Any, V: Any, *, weighted: bool = True,
                         out_dims: Sequence[int] | None = None) -> Hypervector:
    r"""Remark 5.6, eq. (97): :math:`(A\otimes\mathbf 1^{\mathsf T}_{t/q})\diamond(\mathbf 1_{t/r}\otimes V)`.

    :math:`A\in\mathcal M_{p\times q}` from :math:`Q` (p vectors) and :math:`K` (q vectors),
    :math:`V` has r vectors, :math:`t=\operatorname{lcm}(q,r)`; :math:`\mathbf 1_{t/r}\otimes V` is
    :math:`V` repeated :math:`t/r` times. Step 3 of :math:`\diamond` projects row :math:`i`
    from :math:`n_0` (the largest dimension of V) to ``out_dims[i]`` (default: the dimensions
    of Q); eq. (98) prints the source dimension as :math:`(t/d)n_0`, see ``cheng2025:eq98``.
    """
    weighted = _validate.boolean("weighted", weighted)
    if out_dims is not None:
        out_dims = _validate.dims("out_dims", out_dims)
    Q, K, V = _hv(Q, "Q"), _hv(K, "K"), _hv(V, "V")
    _check_attention("df_attention_general", Q, K, V, math.lcm(len(K), len(V)))  # V repeated to lcm(q, r) rows
    A = attention_scores(Q, K, weighted=weighted)
    field = _field_of_all(Q, K, V)
    Ad = _backend.as_values(A, field)
    q, r = len(K), len(V)
    t = math.lcm(q, r)
    xp = _backend.array_module(field)
    Abig = xp.repeat(Ad, t // q, axis=1)  # A ⊗ 1ᵀ_{t/q}
    Vbig = Hypervector([V[i % r] for i in range(t)])  # 1_{t/r} ⊗ V
    return diamond(_out(Abig, field) if field == "sympy" else Abig, Vbig,
                   out_dims=Q.dims if out_dims is None else out_dims)


def df_feed_forward(X: Any, W1: Any, B1: Any, W2: Any, B2: Any) -> Hypervector:
    r"""Dimension-free feed-forward (cheng2025, Def. 5.9, eq. 106).

    .. math:: \mathrm{FFN}(X)=W_2\diamond\mathrm{ReLU}(W_1\diamond X+_{\mathbf n}B_1)+_{\mathbf n}B_2,
              \quad \mathbf n=(n_1,\dots,n_s).
    """
    X = _hv(X, "X")
    n = X.dims
    H = relu(hv_nominal_add_r(diamond(W1, X), B1, n))
    return hv_nominal_add_r(diamond(W2, H), B2, n)


def assembled_attention(X: Any, Wq: Any, Wk: Any, Wv: Any) -> DenseMatrix:
    r"""The attention black box :math:`\Sigma` of cheng2025 §VI, steps 1-3, as printed.

    :math:`Q^{\mathsf T}=W^qX^{\mathsf T}` (likewise K, V); :math:`\mathrm{Att}=\frac{QK^{\mathsf T}}{\sqrt n}V`;
    :math:`V'=\operatorname{softmax}(\mathrm{Att})` (row-wise). Note the softmax is applied
    after multiplying by V, unlike the standard :math:`\operatorname{softmax}(QK^{\mathsf T}/\sqrt n)V` of (40)-(41).
    """
    field = _backend.field_of(X, Wq, Wk, Wv)
    Xd = _as_dense(X, "X", field)
    Ws = [_as_dense(W, name, field) for W, name in ((Wq, "Wq"), (Wk, "Wk"), (Wv, "Wv"))]
    if len(Xd.shape) != 2:
        raise ValueError(f"X must be a matrix (tokens x features), got shape {tuple(Xd.shape)}")
    n = Xd.shape[1]
    for W, name in zip(Ws, ("Wq", "Wk", "Wv")):
        if len(W.shape) != 2 or W.shape[1] != n:
            raise ValueError(f"{name} must be a matrix with {n} columns (X has {n} features: {name} X^T), "
                             f"got shape {tuple(W.shape)}")
    if Ws[0].shape[0] != Ws[1].shape[0]:
        raise ValueError(f"Wq and Wk must have the same number of rows (Q K^T pairs their columns), got "
                         f"{Ws[0].shape[0]} and {Ws[1].shape[0]}")
    Q, K, V = (_matmul(W, Xd.T, field).T for W in Ws)
    S = _matmul(_matmul(Q, K.T, field), V, field)
    S = S / (sympy.sqrt(n) if field == "sympy" else math.sqrt(n))
    return softmax_rows(_out(S, field) if field == "sympy" else S)


__all__ = [
    "Hypervector",
    "assembled_attention",
    "attention_scores",
    "df_add",
    "df_attention",
    "df_attention_general",
    "df_concat",
    "df_feed_forward",
    "diamond",
    "diamond_matrix",
    "factor_product_form",
    "hv_inner",
    "hv_inner_weighted",
    "hv_nominal_add",
    "hv_nominal_add_r",
    "project_pad",
    "project_padding_linear",
    "project_rows",
    "relu",
    "softmax_rows",
    "truncate_rows",
    "zero_pad",
    "zero_padding_linear",
]
