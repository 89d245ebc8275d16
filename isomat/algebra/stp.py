r"""Semi-tensor products, semi-tensor addition and the V-space geometry (cheng2025, §II).

Every function here takes dense matrices or vectors in one of the three fields and returns the
same kind: ``sympy.Matrix`` in gives an exact ``sympy.Matrix`` out, NumPy in gives NumPy out,
CuPy in gives CuPy out. Products with identities or ones-vectors of size :math:`t/n` are
never formed: the STP is evaluated by re-indexing (Chinese remainder) and a batched matrix
product, the DK-STP through the sparse bridge matrix (``n + p - gcd(n, p)`` entries), and the
STA / V-inner products by repeating entries with strides, all in time and memory proportional
to the inputs plus the result.

Conventions: vectors are columns; :math:`\delta_k^i=\operatorname{Col}_i(I_k)`; ``vec`` orders
are named where used (row stacking :math:`V_r`, column stacking :math:`V_c`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

from .. import _validate
from . import _backend
from .._types import BoolTerm, DenseMatrix, FieldArray, FieldScalar, IndexTerm
from ._operator import Rendered
from ._operator import SparseOperator, check_size, render
from .projection import projection_operator

# ---------------------------------------------------------------------------------------------
# Field plumbing: dense value arrays in, the caller's kind out
# ---------------------------------------------------------------------------------------------


def _as_dense(M: Any, name: str, field: str, *, vector: bool = False) -> FieldArray:
    """Dense value array (2-D, or 1-D when ``vector``) of ``M`` in ``field``."""
    if M is None:
        raise TypeError(f"{name} must be a matrix or vector, got None")
    if isinstance(M, SparseOperator):
        M = M.todense()
    elif hasattr(M, "toarray") and not isinstance(M, (sympy.MatrixBase, np.ndarray)):
        M = M.toarray()
    if isinstance(M, (str, bytes)) or np.isscalar(M) and not isinstance(M, sympy.Basic):
        raise TypeError(f"{name} must be a matrix or vector (array-like), got {M!r} ({type(M).__name__})")
    arr = _backend.as_values(M, field, name=name)
    if vector:
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.reshape(-1)
        if arr.ndim != 1 or arr.shape[0] == 0:
            raise ValueError(f"{name} must be a non-empty vector, got an array of shape {tuple(arr.shape)}")
        return arr
    if arr.ndim == 1:
        arr = arr[:, None]  # a vector is a column
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"{name} must be a non-empty matrix (2-d), got an array of shape {tuple(arr.shape)}")
    return arr


def _out(arr: Any, field: str) -> DenseMatrix:
    """Render a dense value array in its field: ``sympy.Matrix`` for exact, else the array."""
    if field == "sympy":
        return sympy.Matrix(arr.tolist())  # a 1-d array becomes a column
    return arr


def _fld(*inputs: Any) -> str:
    return _backend.field_of(*inputs)


def _check_dense(what: str, shape: tuple[int, int], field: str) -> None:
    check_size(what, shape, int(shape[0]) * int(shape[1]), field=field)


# ---------------------------------------------------------------------------------------------
# MM-STP (eq. 12)
# ---------------------------------------------------------------------------------------------
def _stp_dense(A: Any, B: Any, field: str) -> FieldArray:
    r"""Left STP of two dense value arrays by Chinese-remainder re-indexing.

    With :math:`g=\gcd(n,p)`, :math:`n=gn'`, :math:`p=gp'` and :math:`t=gn'p'`, entry
    :math:`((i,\alpha),(l,\beta))` of :math:`(A\otimes I_{p'})(B\otimes I_{n'})` is
    :math:`\sum_{c<g} A_{i,\,cn'+D_{\alpha\beta}}\,B_{cp'+E_{\alpha\beta},\,l}` with
    :math:`D=\lfloor v/p'\rfloor`, :math:`E=\lfloor v/n'\rfloor` and :math:`v<n'p'` the unique
    residue with :math:`v\equiv\alpha\ (p')`, :math:`v\equiv\beta\ (n')` (CRT; :math:`\gcd(n',p')=1`).
    Two gathers of sizes :math:`mt` and :math:`tq`, then an outer product (:math:`g=1`) or one
    batched matrix product over the :math:`n'p'` residues (:math:`g>1`).
    """
    xp = _backend.array_module(field)
    m, n = A.shape
    p, q = B.shape
    g = math.gcd(n, p)
    n1, p1 = n // g, p // g
    V = n1 * p1
    out_shape = (m * p1, q * n1)
    _check_dense("stp", out_shape, field)
    check_size("stp (gathered operands)", (m + q, g * V), (m + q) * g * V, field=field)
    # CRT table v[α, β] = (α n1 inv(n1 mod p1) + β p1 inv(p1 mod n1)) mod V
    c1 = n1 * (pow(n1, -1, p1) if p1 > 1 else 0)
    c2 = p1 * (pow(p1, -1, n1) if n1 > 1 else 0)
    al = xp.arange(p1, dtype=xp.int64)[:, None]
    be = xp.arange(n1, dtype=xp.int64)[None, :]
    v = (al * c1 + be * c2) % V if V > 1 else xp.zeros((p1, n1), dtype=xp.int64)
    D, E = v // p1, v // n1  # (p1, n1) each
    if g == 1:
        Ag = A[:, D]  # (m, p1, n1)
        Bg = xp.moveaxis(B[E, :], 2, 1)  # (p1, q, n1)
        dt = object if field == "sympy" else xp.result_type(Ag.dtype, Bg.dtype)
        out = xp.empty((m, p1, q, n1), dtype=dt)  # C order, so the final reshape is free
        xp.multiply(Ag[:, :, None, :], Bg[None, :, :, :], out=out)
    else:
        Ag = A.reshape(m, g, n1)[:, :, D]  # (m, g, p1, n1)
        Bg = B.reshape(g, p1, q)[:, E, :]  # (g, p1, n1, q)
        R = xp.matmul(xp.transpose(Ag, (2, 3, 0, 1)), xp.transpose(Bg, (1, 2, 0, 3)))  # (p1, n1, m, q)
        out = xp.ascontiguousarray(xp.transpose(R, (2, 0, 3, 1)))  # (m, p1, q, n1)
    return out.reshape(out_shape)


def stp(A: Any, B: Any) -> DenseMatrix:
    r"""Left matrix-matrix semi-tensor product (cheng2025, Definition 2.5 (i), eq. 12).

    .. math::

        A\ltimes B := (A\otimes I_{t/n})\,(B\otimes I_{t/p}),\qquad
        A\in\mathcal M_{m\times n},\ B\in\mathcal M_{p\times q},\ t=\operatorname{lcm}(n,p).

    The result is :math:`(mt/n)\times(qt/p)`. It equals :math:`AB` when :math:`n=p`. Computed
    without forming either Kronecker factor: time :math:`O(mqt)` (the result's size times
    :math:`\gcd(n,p)`), memory of the order of inputs plus result.

    Parameters
    ----------
    A, B : matrix
        ``sympy.Matrix`` (exact), NumPy or CuPy arrays; a 1-d array is a column vector.

    Returns
    -------
    matrix
        Same kind as the inputs.

    Examples
    --------
    >>> import sympy
    >>> from isomat.algebra import stp
    >>> stp(sympy.Matrix([[1, 2, 3, 4]]), sympy.Matrix([5, 6]))
    Matrix([[23, 34]])
    """
    field = _fld(A, B)
    Ad = _as_dense(A, "A", field)
    Bd = _as_dense(B, "B", field)
    return _out(_stp_dense(Ad, Bd, field), field)


def stp_right(A: Any, B: Any) -> DenseMatrix:
    r"""Right semi-tensor product :math:`A\rtimes B := (I_{t/n}\otimes A)(I_{t/p}\otimes B)`.

    The right STP of Cheng's book (not printed in cheng2025, which uses the left STP of eq. 12);
    with :math:`t=\operatorname{lcm}(n,p)` for :math:`A\in\mathcal M_{m\times n}`,
    :math:`B\in\mathcal M_{p\times q}`. Computed by block reshaping: with :math:`g=\gcd(n,p)`,
    the product is block-diagonal-like in :math:`t/n` and :math:`t/p` copies, evaluated here
    through the identity :math:`A\rtimes B = W\,(A\ltimes B)\,W'` is avoided; instead each
    output block :math:`(a, b)` is :math:`A_{[:, \cdot]}B_{[\cdot, :]}` on the overlapping index
    ranges, gathered with one batched product.
    """
    field = _fld(A, B)
    Ad = _as_dense(A, "A", field)
    Bd = _as_dense(B, "B", field)
    xp = _backend.array_module(field)
    m, n = Ad.shape
    p, q = Bd.shape
    t = math.lcm(n, p)
    a, b = t // n, t // p
    out_shape = (m * a, q * b)
    _check_dense("stp_right", out_shape, field)
    # (I_a ⊗ A)(I_b ⊗ B): entry ((α,i),(β,l)) = Σ_u [u//n = α] A[i, u%n] [u//p = β] B[u%p, l].
    # For the index u in [0, t): u = α n + j = β p + k. Overlapping ranges of α-blocks and β-blocks
    # are the merged breakpoints of the two partitions (n + p - gcd pieces... of total length t).
    # Each piece is a run of consecutive u with fixed (α, β): a contiguous slice product.
    # Within the piece structure, u runs in steps of g share (α, β) pattern; we vectorize over
    # u with a gather of size t*(m + q) (no larger than the result when g == 1).
    u = xp.arange(t)
    al, j = u // n, u % n
    be, k = u // p, u % p
    if field == "sympy":
        out = np.empty((a, m, b, q), dtype=object)
        out[...] = sympy.Integer(0)
    else:
        out = xp.zeros((a, m, b, q), dtype=xp.result_type(Ad.dtype, Bd.dtype))
    # contributions grouped by (α, β): sum over the u of that group; groups are contiguous runs
    brk = xp.unique(xp.concatenate([xp.arange(0, t + 1, n), xp.arange(0, t + 1, p)]))
    starts, stops = brk[:-1], brk[1:]
    lengths = stops - starts
    # pad every run to the longest run (≤ g... ≤ min(n, p)) so one batched matmul does it all
    L = int(lengths.max())
    offs = xp.arange(L)
    idx = starts[:, None] + offs[None, :]
    valid = offs[None, :] < lengths[:, None]
    idx = xp.where(valid, idx, starts[:, None])
    Ag = Ad[:, j[idx]]  # (m, runs, L)
    Bg = Bd[k[idx], :]  # (runs, L, q)
    Ag = Ag * valid.astype(xp.int64)[None, :, :]
    R = xp.matmul(xp.moveaxis(Ag, 1, 0), Bg)  # (runs, m, q)
    out[al[starts], :, be[starts], :] = R
    return _out(out.reshape(out_shape), field)


def stp_chain(*Ms: Any) -> DenseMatrix:
    r"""Left STP of several factors, :math:`M_1\ltimes M_2\ltimes\cdots\ltimes M_k` (eq. 12).

    Well defined without brackets because the left STP is associative (Def. 2.1 (2), eq. 4).
    """
    if not Ms:
        raise ValueError("stp_chain needs at least one factor, got none")
    field = _fld(*Ms)
    out = _as_dense(Ms[0], "Ms[0]", field)
    for i, M in enumerate(Ms[1:], 1):
        out = _stp_dense(out, _as_dense(M, f"Ms[{i}]", field), field)
    return _out(out, field)


# ---------------------------------------------------------------------------------------------
# Bridge matrices and DK-STP (eqs. 13, 15, 16, 61, 63)
# ---------------------------------------------------------------------------------------------
def _bridge_op(n: int, p: int, weighted: bool, backend: str) -> SparseOperator:
    n = _validate.positive_int("n", n)
    p = _validate.positive_int("p", p)
    field = _validate.backend(backend)
    t = math.lcm(n, p)
    P = projection_operator(p, n, backend=field)  # Π^p_n = (n/t) Ψ
    scale = sympy.Rational(t, n) if not weighted else sympy.Rational(p, n)
    if field == "sympy":
        vals = P.values * scale
    else:
        vals = P.values * float(scale)
    return SparseOperator(P.shape, P.rows, P.cols, vals, field)


def bridge(n: int, p: int, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Bridge matrix :math:`\Psi_{n\times p}` of the DK-STP (cheng2025, Prop. 2.7, eq. 15).

    .. math::

        \Psi_{n\times p} = (I_n\otimes\mathbf 1^{\mathsf T}_{t/n})(I_p\otimes\mathbf 1_{t/p})
        \in\mathcal M_{n\times p},\qquad t=\operatorname{lcm}(n,p),

    so that :math:`A\ltimes_{DK}B = A\Psi_{n\times p}B` (eq. 16). Eq. (15) as printed reads
    :math:`(I\otimes\mathbf 1^{\mathsf T}_{t/n})(I_m\otimes\mathbf 1_{t/p})\in\mathcal M_{n\times m}`;
    the dimensions that make (16) true are :math:`I_n`, :math:`I_p` and :math:`n\times p`
    (ledger claim ``cheng2025:prop2.7``). Entry :math:`(j,k)` is the overlap of the index
    blocks :math:`[j\,t/n,(j+1)t/n)` and :math:`[k\,t/p,(k+1)t/p)`; equivalently
    :math:`\Psi_{n\times p}=\tfrac{t}{n}\Pi^p_n`. ``n + p - gcd(n, p)`` stored entries.
    """
    return render(_bridge_op(n, p, False, backend), format)


def bridge_weighted(n: int, p: int, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Weighted bridge :math:`\Psi^w_{n\times p}` (cheng2025, Prop. 4.8, eq. 63).

    .. math::

        \Psi^w_{n\times p} = \frac{1}{t/p}(I_n\otimes\mathbf 1^{\mathsf T}_{t/n})
        (I_p\otimes\mathbf 1_{t/p}) = \frac{p}{n}\,\Pi^p_n,

    column-stochastic, with :math:`A\ltimes_w B = A\Psi^w_{n\times p}B` (eq. 62).
    """
    return render(_bridge_op(n, p, True, backend), format)


def _dk(A: Any, B: Any, weighted: bool) -> DenseMatrix:
    """A Ψ B with Ψ = (t/n) Π^p_n (weighted: (p/n) Π^p_n) applied matrix-free by prefix sums."""
    from .projection import project

    field = _fld(A, B)
    Ad = _as_dense(A, "A", field)
    Bd = _as_dense(B, "B", field)
    xp = _backend.array_module(field)
    m, n = Ad.shape
    p, q = Bd.shape
    _check_dense("dk_stp", (m, q), field)
    t = math.lcm(n, p)
    exact = field == "sympy"

    def proj(X: Any, k: int) -> Any:  # Π^{rows X}_k X as a value array
        return _backend.as_values(project(_out(X, field), k), field).reshape(k, X.shape[1])

    if m * n * q + n * q <= m * p * q + m * p or n <= p:
        # A (Ψ B): Ψ B = (t/n) Π^p_n B is n x q
        scale = sympy.Rational(p, n) if weighted else sympy.Rational(t, n)
        PB = proj(Bd, n) * (scale if exact else float(scale))
        out = xp.matmul(Ad, PB)  # object arrays in the exact field: SymPy arithmetic, no rounding
    else:
        # (A Ψ) B with A Ψ = (Ψᵀ Aᵀ)ᵀ and Ψᵀ = Ψ_{p×n} = (t/p) Π^n_p
        scale = sympy.Integer(1) if weighted else sympy.Rational(t, p)
        AP = proj(Ad.T, p).T * (scale if exact else float(scale))
        out = xp.matmul(AP, Bd)
    return _out(out, field)


def dk_stp(A: Any, B: Any) -> DenseMatrix:
    r"""Dimension-keeping semi-tensor product (cheng2025, Def. 2.5 (ii), eq. 13).

    .. math::

        A\ltimes_{DK}B := (A\otimes\mathbf 1^{\mathsf T}_{t/n})(B\otimes\mathbf 1_{t/p})
        = A\,\Psi_{n\times p}\,B\in\mathcal M_{m\times q},\qquad t=\operatorname{lcm}(n,p),

    evaluated as :math:`A\,(\Psi B)` (or :math:`(A\Psi)B`) with :math:`\Psi=\tfrac tn\Pi^p_n`
    applied matrix-free by prefix sums (:func:`~isomat.algebra.project`, eq. 16): time
    :math:`O((n+p)\,q+mq\min(n,p))`, never a :math:`t`-sized intermediate.
    """
    return _dk(A, B, False)


def dk_stp_weighted(A: Any, B: Any) -> DenseMatrix:
    r"""Weighted DK-STP (cheng2025, Def. 4.7, eq. 61; Prop. 4.8, eq. 62).

    .. math::

        A\ltimes_w B := (A\otimes\mathbf 1^{\mathsf T}_{t/n})
        \Bigl(B\otimes\tfrac{1}{t/p}\mathbf 1_{t/p}\Bigr) = A\,\Psi^w_{n\times p}\,B.
    """
    return _dk(A, B, True)


# ---------------------------------------------------------------------------------------------
# STA and V-space geometry (eqs. 14, 17-19, 23)
# ---------------------------------------------------------------------------------------------
def _expand(x: Any, k: int, xp: Any) -> FieldArray:
    """:math:`x\\otimes\\mathbf 1_k` (repeat each entry k times)."""
    return xp.repeat(x, k)


def _vecs(x: Any, y: Any) -> tuple[Any, Any, str]:
    field = _fld(x, y)
    return _as_dense(x, "x", field, vector=True), _as_dense(y, "y", field, vector=True), field


def sta(x: Any, y: Any) -> DenseMatrix:
    r"""Semi-tensor addition (cheng2025, Def. 2.6, eq. 14).

    .. math::

        x\,\vec{+}\,y := (x\otimes\mathbf 1_{t/m}) + (y\otimes\mathbf 1_{t/n})\in\mathbb R^t,
        \qquad x\in\mathbb R^m,\ y\in\mathbb R^n,\ t=\operatorname{lcm}(m,n).
    """
    xv, yv, field = _vecs(x, y)
    xp = _backend.array_module(field)
    m, n = len(xv), len(yv)
    t = math.lcm(m, n)
    _check_dense("sta", (t, 1), field)
    return _out(_expand(xv, t // m, xp) + _expand(yv, t // n, xp), field)


def sta_sub(x: Any, y: Any) -> DenseMatrix:
    r"""Semi-tensor subtraction :math:`x\,\vec{-}\,y := (x\otimes\mathbf 1_{t/m})-(y\otimes\mathbf 1_{t/n})` (eq. 14)."""
    xv, yv, field = _vecs(x, y)
    xp = _backend.array_module(field)
    m, n = len(xv), len(yv)
    t = math.lcm(m, n)
    _check_dense("sta_sub", (t, 1), field)
    return _out(_expand(xv, t // m, xp) - _expand(yv, t // n, xp), field)


def _inner_dense(xv: Any, yv: Any, field: str) -> FieldScalar:
    """⟨x, y⟩_V in O(m + n): Σ over the merged block pieces of x_i y_j · overlap, divided by t."""
    xp = _backend.array_module(field)
    m, n = len(xv), len(yv)
    t = math.lcm(m, n)
    a, b = t // m, t // n
    brk = xp.union1d(xp.arange(m + 1, dtype=xp.int64) * a, xp.arange(n + 1, dtype=xp.int64) * b)
    starts = brk[:-1]
    ov = xp.diff(brk)  # the overlap of piece [starts, starts + ov) with one block of x and one of y
    # in the exact field the arrays hold SymPy objects (the integer overlaps become Python ints), so the sum and
    # the division by t are SymPy's exact arithmetic
    return xp.sum(xv[starts // a] * yv[starts // b] * ov) / t


def inner_v(x: Any, y: Any) -> FieldScalar:
    r"""V-inner product (cheng2025, Def. 2.8 (i), eq. 17).

    .. math::

        \langle x,y\rangle_{\mathcal V} := \frac1t\,
        \langle x\otimes\mathbf 1_{t/m},\ y\otimes\mathbf 1_{t/n}\rangle,\qquad t=\operatorname{lcm}(m,n).

    Evaluated over the ``m + n - gcd(m, n)`` overlapping blocks, never in :math:`\mathbb R^t`.
    Returns a SymPy number for exact input, else a scalar (NumPy or CuPy 0-d).
    """
    xv, yv, field = _vecs(x, y)
    return _inner_dense(xv, yv, field)


def norm_v(x: Any) -> FieldScalar:
    r"""V-norm :math:`\|x\|_{\mathcal V}=\sqrt{\langle x,x\rangle_{\mathcal V}}=\|x\|_2/\sqrt m` (eq. 18)."""
    field = _fld(x)
    xv = _as_dense(x, "x", field, vector=True)
    val = _inner_dense(xv, xv, field)
    if field == "sympy":
        return sympy.sqrt(val)
    return _backend.array_module(field).sqrt(val)


def dist_v(x: Any, y: Any) -> FieldScalar:
    r"""V-distance :math:`d_{\mathcal V}(x,y)=\|x\,\vec{-}\,y\|_{\mathcal V}` (eq. 19)."""
    d = sta_sub(x, y)
    return norm_v(d)


def nominal_add(x: Any, y: Any, r: int) -> DenseMatrix:
    r"""r-nominal addition (cheng2025, Def. 2.11, eq. 23).

    .. math::  x +_r y := \Pi^m_r x + \Pi^n_r y\in\mathbb R^r.

    The projections are applied matrix-free (:func:`isomat.algebra.project`).
    """
    from .projection import project

    r = _validate.positive_int("r", r)
    xv, yv, field = _vecs(x, y)
    out = _backend.as_values(project(_out(xv, field) if field == "sympy" else xv, r), field) + \
        _backend.as_values(project(_out(yv, field) if field == "sympy" else yv, r), field)
    return _out(out.reshape(-1), field)


# ---------------------------------------------------------------------------------------------
# The STP toolbox: swap, power-reducing, retriever, dummy operators, stacking, block transpose
# ---------------------------------------------------------------------------------------------
def swap_row(k: Any, m: Any, n: Any) -> IndexTerm:
    r"""Entry rule of :math:`W_{[m,n]}`: column ``k = i n + j`` (index of :math:`x\otimes y`) has its
    one 1 in row ``j m + i`` (index of :math:`y\otimes x`). Ints, NumPy arrays or Z3 terms
    (:func:`~isomat.proofs.prover.fdiv` / ``fmod``)."""
    from .._types import fdiv, fmod, index_operands

    index_operands("swap_row", k=k, m=m, n=n)
    if isinstance(n, int) and n < 1:  # a divisor (Z3 terms carry it in the proof's hypotheses)
        raise ValueError(f"swap_row: n must be a positive integer (W_[m,n] with n >= 1), got {n}")
    return fmod(k, n) * m + fdiv(k, n)


def power_reducing_row(c: Any, k: Any) -> IndexTerm:
    r"""Entry rule of :math:`M_{r,k}`: column ``c`` has its one 1 in row ``c k + c``."""
    from .._types import index_operands

    index_operands("power_reducing_row", c=c, k=k)
    return c * k + c


def retriever_entry(r: Any, c: Any, size: Any, after: Any) -> BoolTerm:
    r"""Entry rule of :math:`S_i=\mathbf 1^{\mathsf T}_{\text{before}}\otimes I_{n_i}\otimes\mathbf 1^{\mathsf T}_{\text{after}}`
    (``size`` = :math:`n_i`, ``after`` = :math:`n_{i+1}\cdots n_d`): entry ``(r, c)`` is 1 exactly when
    ``(c div after) mod size = r`` (a boolean; ints, NumPy arrays or Z3 terms). :math:`D_f^{[p,q]}` is
    ``size=p, after=q``; :math:`D_r^{[p,q]}` is ``size=q, after=1``."""
    from .._types import fdiv, fmod, index_operands

    index_operands("retriever_entry", r=r, c=c, size=size, after=after)
    for name, v in (("size", size), ("after", after)):
        if isinstance(v, int) and v < 1:  # divisors (Z3 terms carry them in the proof's hypotheses)
            raise ValueError(f"retriever_entry: {name} must be a positive integer, got {v}")

    return fmod(fdiv(c, after), size) == r


def swap_matrix(m: int, n: int | None = None, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Swap matrix :math:`W_{[m,n]}\in\mathcal M_{mn\times mn}` (Cheng, Qi & Zhao 2012, Def. 2.9).

    The permutation with :math:`W_{[m,n]}\,(x\ltimes y) = y\ltimes x` for :math:`x\in\mathbb R^m`,
    :math:`y\in\mathbb R^n`; :math:`W_{[m,n]}=[I_n\otimes\delta_m^1,\dots,I_n\otimes\delta_m^m]`
    and :math:`W_{[m,n]}^{-1}=W_{[m,n]}^{\mathsf T}=W_{[n,m]}`. ``W[n] = W[n, n]`` when ``n``
    is omitted (MATLAB toolbox ``wij``). ``mn`` stored entries.
    """
    m = _validate.positive_int("m", m)
    n = m if n is None else _validate.positive_int("n", n)
    field = _validate.backend(backend)
    check_size("swap_matrix", (m * n, m * n), m * n, field=field)
    xp = _backend.array_module(field)
    # the proved entry rule drives the builder (on host indices; an entry rule takes ints, NumPy or Z3):
    # column k = i n + j has its 1 in row swap_row(k, m, n) = j m + i
    kh = np.arange(m * n, dtype=np.int64)
    rows, k = xp.asarray(swap_row(kh, m, n)), xp.asarray(kh)
    vals = _backend.rational(xp.ones(m * n, dtype=xp.int64), 1, field, xp)
    return render(SparseOperator.build((m * n, m * n), rows, k, vals, field), format)


def power_reducing_matrix(k: int = 2, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Power-reducing matrix :math:`M_{r,k}=\operatorname{diag}(\delta_k^1,\dots,\delta_k^k)\in\mathcal M_{k^2\times k}`.

    :math:`x\ltimes x = M_{r,k}\,x` for every logical vector :math:`x\in\Delta_k`; the Boolean
    case is :math:`M_r=\delta_4[1,4]` (MATLAB toolbox ``lmr``; Cheng, Qi & Li 2011, Prop. 1.?).
    """
    k = _validate.positive_int("k", k)
    field = _validate.backend(backend)
    check_size("power_reducing_matrix", (k * k, k), k, field=field)
    xp = _backend.array_module(field)
    ch = np.arange(k, dtype=np.int64)
    c = xp.asarray(ch)
    vals = _backend.rational(xp.ones(k, dtype=xp.int64), 1, field, xp)
    # the entry rule drives the builder: column c has its 1 in row power_reducing_row(c, k) = c k + c
    return render(SparseOperator.build((k * k, k), xp.asarray(power_reducing_row(ch, k)), c, vals, field), format)


def _dims_list(name: str, dims: Any) -> tuple[int, ...]:
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        raise TypeError(f"{name} must be a sequence of positive integers, got the single integer {dims!r}")
    return _validate.shape(name, tuple(dims) if not isinstance(dims, (str, bytes)) else dims)


def _ones_row(k: int, field: str) -> SparseOperator:
    xp = _backend.array_module(field)
    return SparseOperator.build((1, k), xp.zeros(k, dtype=xp.int64), xp.arange(k),
                                _backend.rational(xp.ones(k, dtype=xp.int64), 1, field, xp), field)


def _eye(k: int, field: str) -> SparseOperator:
    xp = _backend.array_module(field)
    return SparseOperator.build((k, k), xp.arange(k), xp.arange(k),
                                _backend.rational(xp.ones(k, dtype=xp.int64), 1, field, xp), field)


def retriever(dims: Any, i: int, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Retriever :math:`S_i = \mathbf 1^{\mathsf T}_{n_1\cdots n_{i-1}}\otimes I_{n_i}\otimes\mathbf 1^{\mathsf T}_{n_{i+1}\cdots n_d}`.

    For logical vectors :math:`x_j\in\Delta_{n_j}`: :math:`S_i\,(x_1\ltimes\cdots\ltimes x_d)=x_i`
    (``i`` is 1-based, as in the toolboxes). Boolean ``k``-fold case: ``dims = [2] * k``.
    """
    from .kron import kron_operator

    dims = _dims_list("dims", dims)
    i = _validate.positive_int("i", i)
    if i > len(dims):
        raise ValueError(f"i must be in [1, {len(dims)}] (one of the factors), got {i}")
    field = _validate.backend(backend)
    before = int(np.prod(dims[: i - 1], dtype=object)) if i > 1 else 1
    after = int(np.prod(dims[i:], dtype=object)) if i < len(dims) else 1
    check_size("retriever", (dims[i - 1], before * dims[i - 1] * after), before * dims[i - 1] * after, field=field)
    op = kron_operator(_ones_row(before, field), _eye(dims[i - 1], field), _ones_row(after, field), backend=field)
    return render(op, format)


def front_maintaining(p: int, q: int | None = None, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Front-maintaining dummy operator :math:`D_f^{[p,q]} = I_p\otimes\mathbf 1^{\mathsf T}_q`.

    :math:`D_f^{[p,q]}\,x\ltimes y = x` for :math:`x\in\Delta_p`, :math:`y\in\Delta_q`
    (Boolean: :math:`D_f=\delta_2[1,1,2,2]`). ``q`` defaults to ``p``.
    """
    p = _validate.positive_int("p", p)
    q = p if q is None else _validate.positive_int("q", q)
    return retriever([p, q], 1, backend=backend, format=format)


def rear_maintaining(p: int, q: int | None = None, *, backend: str = "numpy", format: str = "csr") -> Rendered:
    r"""Rear-maintaining dummy operator :math:`D_r^{[p,q]} = \mathbf 1^{\mathsf T}_p\otimes I_q`.

    :math:`D_r^{[p,q]}\,x\ltimes y = y` (Boolean: :math:`D_r=E_d=\delta_2[1,2,1,2]`, the dummy
    operator of Cheng, Qi & Li 2011). ``q`` defaults to ``p``.
    """
    p = _validate.positive_int("p", p)
    q = p if q is None else _validate.positive_int("q", q)
    return retriever([p, q], 2, backend=backend, format=format)


def _mat(A: Any, name: str) -> tuple[Any, str]:
    field = _fld(A)
    return _as_dense(A, name, field), field


def column_stack(A: Any) -> DenseMatrix:
    r"""Column stacking :math:`V_c(A)=(a_{11},\dots,a_{m1},\dots,a_{1n},\dots,a_{mn})^{\mathsf T}` (Fortran-order vec)."""
    Ad, field = _mat(A, "A")
    return _out(Ad.T.reshape(-1, 1), field)


def row_stack(A: Any) -> DenseMatrix:
    r"""Row stacking :math:`V_r(A)=(a_{11},\dots,a_{1n},\dots,a_{m1},\dots,a_{mn})^{\mathsf T}` (C-order vec; cheng2025 eq. 59 footnote)."""
    Ad, field = _mat(A, "A")
    return _out(Ad.reshape(-1, 1), field)


def _unstack_args(v: Any, m: int, n: int) -> tuple[Any, str, int, int]:
    m = _validate.positive_int("m", m)
    n = _validate.positive_int("n", n)
    field = _fld(v)
    vd = _as_dense(v, "v", field, vector=True)
    if vd.shape[0] != m * n:
        raise ValueError(f"v must have m*n = {m * n} entries to fill a {m}x{n} matrix, got {vd.shape[0]}")
    return vd, field, m, n


def column_unstack(v: Any, m: int, n: int) -> DenseMatrix:
    r"""Inverse of :func:`column_stack`: the :math:`m\times n` matrix :math:`A` with :math:`V_c(A)=v`."""
    vd, field, m, n = _unstack_args(v, m, n)
    return _out(vd.reshape(n, m).T, field)


def row_unstack(v: Any, m: int, n: int) -> DenseMatrix:
    r"""Inverse of :func:`row_stack`: the :math:`m\times n` matrix :math:`A` with :math:`V_r(A)=v`."""
    vd, field, m, n = _unstack_args(v, m, n)
    return _out(vd.reshape(m, n), field)


def block_transpose(A: Any, p: int, q: int) -> DenseMatrix:
    r"""Block transpose: partition :math:`A` into :math:`p\times q` blocks :math:`A_{ij}` and
    return the block matrix whose block :math:`(j,i)` is :math:`A_{ij}` (blocks not transposed;
    MATLAB toolbox ``bt``)."""
    Ad, field = _mat(A, "A")
    p = _validate.positive_int("p", p)
    q = _validate.positive_int("q", q)
    M, N = Ad.shape
    if M % p or N % q:
        raise ValueError(f"A of shape {M}x{N} does not split into blocks of p x q = {p}x{q}")
    B = Ad.reshape(M // p, p, N // q, q).transpose(2, 1, 0, 3).reshape(N // q * p, M // p * q)
    return _out(B, field)


__all__ = [
    "power_reducing_row",
    "retriever_entry",
    "swap_row",
    "block_transpose",
    "bridge",
    "bridge_weighted",
    "column_stack",
    "column_unstack",
    "dist_v",
    "dk_stp",
    "dk_stp_weighted",
    "front_maintaining",
    "inner_v",
    "nominal_add",
    "norm_v",
    "power_reducing_matrix",
    "rear_maintaining",
    "retriever",
    "row_stack",
    "row_unstack",
    "sta",
    "sta_sub",
    "stp",
    "stp_chain",
    "stp_right",
    "swap_matrix",
]
