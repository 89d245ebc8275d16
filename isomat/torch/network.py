r"""A whole network as zhu2025's unified representation: exact sparse affine maps and nonlinearities.

zhu2025 (§3, §4, Theorems 4.1–4.3) argues that convolutional, recurrent and attention networks
*are* chains of sparse matrices: every layer is :math:`y = Wx + b` with a structured sparse
:math:`W`, between elementwise or selection nonlinearities. A :class:`Network` is that chain made
explicit for a concrete torch model (:func:`isomat.torch.from_model`): a DAG of

* :class:`AffineNode` -- :math:`y = \sum_i W_i x_i + b` (one input for a layer, several for a
  residual addition or a concatenation), ``W_i`` sparse, exact;
* :class:`ActivationNode` -- an elementwise map (ReLU, LeakyReLU, PReLU, Hardtanh, abs, Tanh,
  Sigmoid, GELU, SiLU);
* :class:`MaxPoolNode` -- max pooling, the selection :math:`S(x)` of zhu2025 §4.2.2;

all on one sample without a batch axis, flattened row-major (``docs/conventions.md``).

On top of it:

* :meth:`Network.affine_segments` -- consecutive affine maps multiplied into one sparse
  :math:`(W, b)` (float, or exact over the rationals);
* :meth:`Network.local_affine` -- for piecewise-linear networks, the exact map
  :math:`f(x') = Jx' + c` on the linear region of :math:`x` (activation pattern and max-pool
  selections fixed at :math:`x`), and :meth:`Network.region` its defining inequalities
  :math:`Ax' \le d`;
* :meth:`Network.jacobian` -- the sparse Jacobian at :math:`x` for any supported network.

Derivatives at kinks follow torch's autograd (ReLU'(0) = 0, LeakyReLU'(0) = slope, Hardtanh' = 0
at its bounds, abs'(0) = 0), so :meth:`jacobian` and :meth:`local_affine` equal
``torch.func.jacrev`` everywhere, and the region of a point on a boundary is the piece torch's
gradient describes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.special

from .. import _validate
from .._config import get_memory_limit
from ..algebra._operator import check_bytes, check_size, estimate_bytes
from ..algebra.conv import _blocks
from ..algebra.pool import _window_plan
from . import _exact, _products

__all__ = ["ActivationNode", "AffineNode", "AffineSegment", "evaluate_node", "InputNode", "LocalAffine", "MaxPoolNode", "Network",
           "Region", "PIECEWISE_LINEAR", "SMOOTH"]

#: activations that are piecewise linear (local_affine and region apply). ``hardtanh`` and ``clamp``
#: take the same values but not the same derivative at their bounds: torch's hardtanh passes no
#: gradient at ``lo``/``hi`` (``lo < z < hi``), its clamp passes it (``lo <= z <= hi``). ``detach``
#: (``Tensor.detach``) is the identity in value and a constant for every derivative: its slope is 0
#: and its offset is its input's value at the point, so local maps are torch's linearization.
PIECEWISE_LINEAR = ("relu", "leaky_relu", "prelu", "hardtanh", "clamp", "abs", "detach")
#: smooth activations (jacobian applies; local_affine refuses)
SMOOTH = ("tanh", "sigmoid", "gelu", "silu")

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: in reverse order, a network with at most this many outputs carries dF/dv as dense rows (a
#: classifier's 10 rows are dense after the first layer back; sparse-times-sparse products would
#: pay index bookkeeping for every one of their entries)
_DENSE_REVERSE_ROWS = 64


# ---------------------------------------------------------------------------------------------
# nodes
# ---------------------------------------------------------------------------------------------
class _OneInput:
    """``inputs`` and ``size`` of a node reading one node (``input``) with output ``shape``."""

    input: str
    shape: tuple[int, ...]

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.input,)

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, eq=False)
class InputNode:
    """The network's input: one sample of ``shape`` (no batch axis)."""

    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, eq=False)
class AffineNode:
    r""":math:`y = \sum_i W_i x_i + b` on flattened samples.

    ``weights[i]`` is a float64 ``csr_array`` of shape ``(prod(shape), prod(input_shapes[i]))``;
    ``bias`` a float64 vector or ``None``. ``exact`` (optional) returns the exact rendering
    ``([W_i as sympy.SparseMatrix], b as sympy.Matrix or None)`` where the floats are not the exact
    values (an adaptive average's 1/3, a bilinear weight, a batch-norm scale); without it the
    stored floats are exact (a convolution's entries are torch's own float weights).
    ``source`` says where the node came from (the fx node, its op and module path); ``module``
    is the module path for a parametrized layer (the sparse twin trains its parameters).
    """

    name: str
    inputs: tuple[str, ...]
    input_shapes: tuple[tuple[int, ...], ...]
    weights: tuple[sp.csr_array, ...]
    bias: np.ndarray | None
    shape: tuple[int, ...]
    source: str
    kind: str = "affine"
    module: str | None = None
    exact: Callable[[], tuple[list[Any], Any]] | None = field(default=None, repr=False)
    reads: tuple[str, ...] = ()  # model parameters it uses as constants (x * self.gamma): the twin cannot train them
    form: _products.ConvForm | None = field(default=None, repr=False)  # a convolution's kernel (fast products)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nnz(self) -> int:
        return int(sum(W.nnz for W in self.weights))

    def _diagonal(self, k: int) -> np.ndarray | None:
        """The diagonal of ``weights[k]`` where its pattern is exactly the diagonal, else ``None`` (cached)."""
        cache = self.__dict__.setdefault("_diagonals", {})
        if k not in cache:
            W = self.weights[k]
            n = W.shape[0]
            diag = W.shape == (n, n) and W.nnz == n and np.array_equal(W.indptr, np.arange(n + 1)) \
                and np.array_equal(W.indices, np.arange(n))
            cache[k] = np.asarray(W.data, dtype=np.float64).copy() if diag else None
        return cache[k]

    def _dense(self, k: int) -> np.ndarray | None:
        """``weights[k]`` as a dense array where it stores at least half of its entries (a linear
        layer's), else ``None`` (cached: the reverse order's BLAS products)."""
        cache = self.__dict__.setdefault("_dense_weights", {})
        if k not in cache:
            W = self.weights[k]
            cells = W.shape[0] * W.shape[1]
            full = W.nnz >= _products.DENSE_SHARE * cells and 8 * cells <= _products.DENSE_MAX_BYTES \
                and self._diagonal(k) is None
            cache[k] = W.toarray() if full else None
        return cache[k]

    def _form(self) -> _products.ConvForm | None:
        """The node's convolution form, once :func:`~._products.form_agrees` has found it computes the
        node's one matrix (cached; ``None`` without a form, or where it does not agree)."""
        if "_form_ok" not in self.__dict__:
            ok = self.form is not None and len(self.weights) == 1 and _products.form_agrees(self.form, self.weights[0])
            self.__dict__["_form_ok"] = ok
        return self.form if self.__dict__["_form_ok"] else None

    def rows_times(self, k: int, G: np.ndarray) -> np.ndarray:
        """``G W_k`` for dense rows ``G`` ``(n, size)``, which it may overwrite (:func:`._products.dense_rows_times`)."""
        return _products.dense_rows_times(G, self.weights[k], self._dense(k), self._diagonal(k),
                                          self._form() if len(self.weights) == 1 else None)

    def apply(self, X: np.ndarray, k: int = 0) -> np.ndarray:
        """``(W_k X^T)^T`` for samples ``X`` ``(N, n_k)``: through the node's convolution form or dense
        copy where it has one, else the CSR product."""
        form = self._form() if len(self.weights) == 1 else None
        if form is not None:
            return form.apply(X)
        d = self._diagonal(k)
        if d is not None:
            return X * d
        D = self._dense(k)
        return X @ D.T if D is not None else np.asarray((self.weights[k] @ X.T).T)

    def exact_maps(self) -> tuple[list[_exact.ExactMatrix], _exact.ExactMatrix | None]:
        """The exact weights and bias as sparse DomainMatrices."""
        if self.exact is None:
            Ws = [_exact.from_csr(W) for W in self.weights]
            b = None if self.bias is None else _exact.from_vector(self.bias)
            return Ws, b
        Ws_s, b_s = self.exact()
        return [_exact.from_sympy(W) for W in Ws_s], (None if b_s is None else _exact.from_vector(b_s))


@dataclass(frozen=True, eq=False)
class ActivationNode(_OneInput):
    """An elementwise nonlinearity ``fn`` with its parameters.

    ``fn`` is one of :data:`PIECEWISE_LINEAR` or :data:`SMOOTH`. ``params``: ``slope`` (a float
    for ``leaky_relu``; a per-entry float vector for ``prelu``), ``lo``/``hi`` for ``hardtanh``
    and ``clamp`` (``-inf``/``inf`` for a one-sided clamp), ``approximate`` for ``gelu``; ``detach``
    has none.
    """

    name: str
    input: str
    shape: tuple[int, ...]
    fn: str
    params: dict[str, Any]
    source: str
    module: str | None = None
    reads: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class MaxPoolNode(_OneInput):
    """Max pooling (zhu2025 §4.2.2): ``y = S(z) z``, ``S(z)`` the 0/1 selection of each window's
    first maximum. ``adaptive`` holds ``output_size`` for adaptive max pooling (windows then
    follow torch's adaptive rule); otherwise ``window``/``stride``/``padding``/``dilation``/
    ``ceil_mode`` as torch's ``max_pool{d}d``."""

    name: str
    input: str
    input_shape: tuple[int, ...]
    shape: tuple[int, ...]
    ndim: int
    window: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    ceil_mode: bool
    source: str
    adaptive: tuple[int, ...] | None = None
    module: str | None = None

    def selection(self, z: np.ndarray) -> sp.csr_array:
        """``S(z)`` for one flattened sample ``z`` of this node's input."""
        return self.selection_matrix(self.pick(z))

    def pick(self, z: np.ndarray) -> np.ndarray | sp.csr_array:
        """The selection at one flattened sample ``z``: the input entry each output reads (an int vector),
        or, for adaptive pooling, ``S(z)`` itself."""
        x = np.asarray(z, dtype=np.float64).reshape(self.input_shape)
        if self.adaptive is not None:
            from ._layout import adaptive_maxpool_selection

            S, _ = adaptive_maxpool_selection(x, self.adaptive)
            return sp.csr_array(S)
        cols, mask = self._window_table()
        # maxpool_selection's rule on a window table made once per node (a local map takes one selection per
        # pool; remaking the plan's blocks each time cost more than the products): each window's first
        # maximum, padding reading -inf (tested against maxpool_selection, ties and padding included)
        if mask is None:
            v = x.reshape(-1)[cols]
        else:  # a padded tap's column is out of the image: read entry 0 there, then -inf
            v = np.where(mask, x.reshape(-1)[np.where(mask, cols, 0)], -np.inf)
        return cols[np.arange(cols.shape[0]), np.argmax(v, axis=1)]

    def selection_matrix(self, pick: np.ndarray | sp.csr_array) -> sp.csr_array:
        """``S(z)`` from :meth:`pick`'s result."""
        if sp.issparse(pick):
            return pick
        n_out = pick.shape[0]
        return sp.csr_array((np.ones(n_out), pick, np.arange(n_out + 1)), shape=(n_out, math.prod(self.input_shape)))

    def _window_table(self) -> tuple[np.ndarray, np.ndarray | None]:
        """Every window's input positions, ``(n_out, taps)``, and where they fall in the image (``None``:
        everywhere), from the window plan :func:`~isomat.algebra.maxpool_selection` itself uses; cached."""
        table = self.__dict__.get("_table")
        if table is None:
            plan = _window_plan(self.input_shape, self.window, self.stride, self.padding, self.ndim, self.ceil_mode,
                                self.dilation)
            blocks = [make() for _lo, _hi, _co, make in _blocks(plan, 0, plan.n_out, np)]
            cols = np.concatenate([c for c, _ in blocks])
            masks = [np.ones(c.shape, dtype=bool) if m is None else m for c, m in blocks]
            table = self.__dict__["_table"] = (cols, None if all(m is None for _, m in blocks) else np.concatenate(masks))
        return table

    def _disjoint(self) -> bool:
        """Whether no input entry lies in two windows (then the entries windows choose are distinct); cached."""
        if "_disjoint_windows" not in self.__dict__:
            if self.adaptive is not None:
                disjoint = False
            else:
                cols, mask = self._window_table()
                taken = cols if mask is None else cols[mask]
                disjoint = bool(np.unique(taken).size == taken.size)
            self.__dict__["_disjoint_windows"] = disjoint
        return self.__dict__["_disjoint_windows"]


Node = InputNode | AffineNode | ActivationNode | MaxPoolNode
#: a max pool's selection at one sample (MaxPoolNode.pick): the input entry each output reads, or S(z)
Pick = np.ndarray | sp.csr_array


# ---------------------------------------------------------------------------------------------
# elementwise maps: values, torch's derivatives, and (for piecewise-linear ones) the piece's offset
# ---------------------------------------------------------------------------------------------
def _slope(params: dict[str, Any]) -> Any:
    return params["slope"]


def activation_value(node: ActivationNode, z: np.ndarray) -> np.ndarray:
    fn, p = node.fn, node.params
    if fn == "relu":
        return np.maximum(z, 0.0)
    if fn in ("leaky_relu", "prelu"):
        return np.where(z > 0, z, z * _slope(p))
    if fn in ("hardtanh", "clamp"):
        return np.clip(z, p["lo"], p["hi"])
    if fn == "abs":
        return np.abs(z)
    if fn == "detach":
        return np.array(z, dtype=np.float64, copy=True)
    if fn == "tanh":
        return np.tanh(z)
    if fn == "sigmoid":
        return scipy.special.expit(z)
    if fn == "silu":
        return z * scipy.special.expit(z)
    if fn == "gelu":
        if p.get("approximate", "none") == "tanh":
            return 0.5 * z * (1.0 + np.tanh(_SQRT_2_OVER_PI * (z + 0.044715 * z ** 3)))
        return 0.5 * z * (1.0 + scipy.special.erf(z / math.sqrt(2.0)))
    raise AssertionError(fn)  # pragma: no cover - the tracer admits only the functions above


def activation_derivative(node: ActivationNode, z: np.ndarray) -> np.ndarray:
    """The derivative torch's autograd uses (at kinks: the conventions in the module docstring)."""
    fn, p = node.fn, node.params
    if fn == "relu":
        return (z > 0).astype(np.float64)
    if fn in ("leaky_relu", "prelu"):
        return np.where(z > 0, 1.0, np.broadcast_to(_slope(p), z.shape)).astype(np.float64)
    if fn == "hardtanh":  # torch's hardtanh_backward: open interval
        return ((z > p["lo"]) & (z < p["hi"])).astype(np.float64)
    if fn == "clamp":  # torch's clamp_backward: closed interval (the gradient passes at the bounds)
        return ((z >= p["lo"]) & (z <= p["hi"])).astype(np.float64)
    if fn == "abs":
        return np.sign(z).astype(np.float64)
    if fn == "detach":
        return np.zeros(np.shape(z), dtype=np.float64)
    if fn == "tanh":
        t = np.tanh(z)
        return 1.0 - t * t
    if fn == "sigmoid":
        s = scipy.special.expit(z)
        return s * (1.0 - s)
    if fn == "silu":
        s = scipy.special.expit(z)
        return s * (1.0 + z * (1.0 - s))
    if fn == "gelu":
        if p.get("approximate", "none") == "tanh":
            u = _SQRT_2_OVER_PI * (z + 0.044715 * z ** 3)
            t = np.tanh(u)
            return 0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * z * z)
        return 0.5 * (1.0 + scipy.special.erf(z / math.sqrt(2.0))) + z * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    raise AssertionError(fn)  # pragma: no cover


def _piece(node: ActivationNode, z: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Slope and offset of the linear piece at ``z`` (piecewise-linear activations): y = s z + e
    (``e`` ``None`` where every piece passes through 0: ReLU, LeakyReLU, PReLU, abs)."""
    s = activation_derivative(node, z)
    e = None
    if node.fn == "hardtanh":
        lo, hi = node.params["lo"], node.params["hi"]
        e = np.where(z <= lo, lo, np.where(z >= hi, hi, 0.0)).astype(np.float64)
    elif node.fn == "clamp":  # at a bound the piece is the identity (slope 1, no offset)
        lo, hi = node.params["lo"], node.params["hi"]
        e = np.where(z < lo, lo, np.where(z > hi, hi, 0.0)).astype(np.float64)
    elif node.fn == "detach":  # a constant: its value at the point
        e = np.asarray(z, dtype=np.float64).copy()
    return s, e


# ---------------------------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AffineSegment:
    r"""Consecutive affine nodes multiplied into one map :math:`y = \sum_i W_i x_i + b`.

    ``inputs`` are the names of the nodes it reads (the network input, or a nonlinearity);
    ``nodes`` the affine nodes it absorbed, in order. ``W``/``b``: float64 ``csr_array`` and
    vector, or ``sympy.SparseMatrix`` and ``sympy.Matrix`` in the exact field.
    """

    name: str
    inputs: tuple[str, ...]
    input_shapes: tuple[tuple[int, ...], ...]
    weights: tuple[Any, ...]
    bias: Any
    shape: tuple[int, ...]
    nodes: tuple[str, ...]
    field: str

    @property
    def W(self) -> Any:
        """The weight of a one-input segment (a multi-input segment has ``weights``)."""
        if len(self.weights) != 1:
            raise ValueError(f"segment {self.name!r} reads {len(self.weights)} inputs {self.inputs}: use .weights")
        return self.weights[0]

    @property
    def b(self) -> Any:
        return self.bias

    @property
    def input_shape(self) -> tuple[int, ...]:
        if len(self.input_shapes) != 1:
            raise ValueError(f"segment {self.name!r} reads {len(self.input_shapes)} inputs: use .input_shapes")
        return self.input_shapes[0]

    @property
    def output_shape(self) -> tuple[int, ...]:
        return self.shape


@dataclass(frozen=True)
class LocalAffine:
    r"""The network on the linear region of a point: :math:`f(x') = Jx' + c` (``J`` sparse).

    ``J``/``c``: float64 ``csr_array`` and vector, or ``sympy.SparseMatrix`` / ``sympy.Matrix``
    in the exact field. ``input_shape``/``output_shape`` are the tensor shapes (no batch axis).
    """

    J: Any
    c: Any
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    field: str

    def __iter__(self) -> Iterator[Any]:  # (J, c) = network.local_affine(x)
        return iter((self.J, self.c))


@dataclass(frozen=True)
class Region:
    r"""The linear region of a point as a polyhedron :math:`\{x' : Ax' \le d\}`.

    One row per condition that fixes the activation pattern or a max-pool selection: a ReLU unit
    stays on its side of 0, a Hardtanh unit in its interval, a max-pool window's chosen entry
    stays a maximum. ``sources[k]`` names the node and unit (or window) of row ``k``.
    """

    A: sp.csr_array
    d: np.ndarray
    sources: tuple[tuple[str, int], ...]
    input_shape: tuple[int, ...]

    def slack(self, x: Any) -> np.ndarray:
        """:math:`d - Ax` (non-negative inside the region)."""
        v = np.asarray(x, dtype=np.float64).reshape(-1)
        if v.size != self.A.shape[1]:
            raise ValueError(f"x has {v.size} entries; the region lives in R^{self.A.shape[1]} (input_shape {self.input_shape})")
        return self.d - self.A @ v

    def contains(self, x: Any, tol: float = 0.0) -> bool:
        return bool(np.all(self.slack(x) >= -tol))

    def distance(self, x: Any) -> float:
        r"""Euclidean distance from ``x`` (inside the region) to the region's boundary:
        :math:`\min_k (d - Ax)_k / \lVert A_k\rVert_2` (negative when ``x`` is outside).
        ``inf`` when no condition binds (a network without kinks)."""
        s = self.slack(x)
        norms = np.sqrt(np.asarray(self.A.multiply(self.A).sum(axis=1)).reshape(-1))
        live = norms > 0
        if not np.any(live):
            return math.inf
        return float(np.min(s[live] / norms[live]))

    @property
    def n_conditions(self) -> int:
        return int(self.A.shape[0])


# ---------------------------------------------------------------------------------------------
# the network
# ---------------------------------------------------------------------------------------------
def _spmm(A: sp.csr_array, B: sp.csr_array, what: str) -> sp.csr_array:
    """``A @ B`` within the memory bound. SciPy's product sizes its result exactly (a symbolic
    pass first), so the product never holds more than its own entries. A cheap bound (nnz(A) times
    B's longest row) decides most products at no cost; when it says the product might not fit,
    :func:`_spmm_rows` counts the actual entries first and refuses before allocating."""
    A, B = sp.csr_array(A), sp.csr_array(B)
    longest = int(np.max(np.diff(B.indptr))) if B.shape[0] else 0
    quick = min(A.nnz * longest, A.shape[0] * B.shape[1])
    if estimate_bytes(quick, A.shape[0], staging=False) > get_memory_limit():
        # the loose bound says it might not fit: count the result's entries block by block, refuse
        # before allocating it if it does not, else fill it at its exact size
        return _spmm_rows(A, B, np.ones(A.shape[0], dtype=bool), what)
    C = sp.csr_array(A @ B)
    C.sum_duplicates()
    C.eliminate_zeros()
    return C


def _spmm_rows(A: sp.csr_array, B: sp.csr_array, alive: np.ndarray, what: str, block_rows: int = 256) -> sp.csr_array:
    """``A @ B`` with only the rows ``alive`` computed (the others stored empty), in blocks of
    contiguous rows of ``A`` (views, no copy of ``A``), in two passes: the first counts each row's
    entries, the second fills the result allocated at its exact size -- so the peak is the result
    plus one block, not the result twice (256-row blocks: the peak of a 3->16->16 conv stack's local map at 32x32 is 1.75x its result, inputs included; 1024-row blocks 2.2x, faster)."""
    A = sp.csr_array(A)
    m, n_cols = A.shape[0], B.shape[1]

    def blocks():
        for start in range(0, m, block_rows):
            stop = min(m, start + block_rows)
            keep = np.flatnonzero(alive[start:stop])
            if keep.size == 0:
                continue
            lo, hi = A.indptr[start], A.indptr[stop]
            view = sp.csr_array((A.data[lo:hi], A.indices[lo:hi], A.indptr[start:stop + 1] - lo),
                                shape=(stop - start, A.shape[1]))
            blk = sp.csr_array(view[keep] @ B)
            blk.sum_duplicates()
            blk.eliminate_zeros()
            yield start + keep, blk

    counts = np.zeros(m, dtype=np.int64)
    for rows, blk in blocks():
        counts[rows] = np.diff(blk.indptr)
    total = int(counts.sum())
    check_size(what, (m, n_cols), total, staging=False)
    idx_dtype = np.int32 if max(total, n_cols) < 2**31 else np.int64
    indptr = np.zeros(m + 1, dtype=idx_dtype)
    np.cumsum(counts, out=indptr[1:])
    data = np.empty(total, dtype=np.result_type(A.dtype, B.dtype))
    indices = np.empty(total, dtype=idx_dtype)
    for rows, blk in blocks():  # rows ascend within and across blocks: each block fills one contiguous stretch
        lo = int(indptr[rows[0]])
        data[lo:lo + blk.nnz] = blk.data
        indices[lo:lo + blk.nnz] = blk.indices
    C = sp.csr_array((data, indices, indptr), shape=(m, n_cols))
    C.has_canonical_format = True
    return C


def _row_scale(d: np.ndarray, J: sp.csr_array, *, in_place: bool = False) -> sp.csr_array:
    """``diag(d) @ J``; ``in_place`` rescales ``J``'s own values (its last reader: no second copy)."""
    out = J if in_place else J.copy()
    out.data *= np.repeat(np.asarray(d, dtype=out.dtype), np.diff(out.indptr))
    out.eliminate_zeros()
    return out


def _unpool(node: MaxPoolNode, pick: Pick, g: np.ndarray) -> np.ndarray:
    """``g S`` for dense rows ``g`` and a max pool's selection (:meth:`MaxPoolNode.pick`): each column of
    ``g`` moved to the input entry its window chose (added where overlapping windows choose alike)."""
    if sp.issparse(pick):
        return np.ascontiguousarray((pick.T @ np.ascontiguousarray(g.T)).T)
    n = math.prod(node.input_shape)
    out = np.zeros((g.shape[0], n))
    if node._disjoint() or pick.size == 0 or np.bincount(pick, minlength=n).max() <= 1:
        out[:, pick] = g
    else:
        np.add.at(out, (slice(None), pick), g)
    return out


def _dense_to_csr(D: np.ndarray) -> sp.csr_array:
    """The nonzero entries of a dense 2-d array as a canonical CSR array (built directly: no COO pass)."""
    m, n = D.shape
    idx = np.int32 if max(n, D.size) < 2**31 else np.int64
    mask = D != 0
    flat = np.flatnonzero(mask)  # row-major: rows ascending, columns ascending within a row
    indptr = np.zeros(m + 1, dtype=idx)
    np.cumsum(np.count_nonzero(mask, axis=1), out=indptr[1:])
    J = sp.csr_array((D.ravel()[flat], (flat % n).astype(idx), indptr), shape=D.shape)
    J.has_canonical_format = True
    return J


class Network:
    """A DAG of exact sparse affine maps and nonlinearities on one flattened sample.

    Built by :func:`isomat.torch.from_model`. ``nodes`` maps names to nodes in topological order
    (the first is the :class:`InputNode`); ``output`` is the name of the node whose value is the
    model's output, of tensor shape ``output_shape``.
    """

    def __init__(self, nodes: Sequence[Node], output: str, output_shape: tuple[int, ...], *, name: str = "network") -> None:
        self.nodes: dict[str, Node] = {}
        for node in nodes:
            if node.name in self.nodes:
                raise ValueError(f"duplicate node name {node.name!r}")
            for i in getattr(node, "inputs", ()):
                if i not in self.nodes:
                    raise ValueError(f"node {node.name!r} reads {i!r}, which is not an earlier node")
            self.nodes[node.name] = node
        first = next(iter(self.nodes.values()), None)
        if not isinstance(first, InputNode):
            raise ValueError("a network starts with its InputNode")
        if output not in self.nodes:
            raise ValueError(f"output {output!r} is not a node")
        out_size = self.nodes[output].size
        if math.prod(output_shape) != out_size:
            raise ValueError(f"output_shape {output_shape} has {math.prod(output_shape)} entries; node {output!r} has {out_size}")
        self.input_name = first.name
        self.input_shape = first.shape
        self.output = output
        self.output_shape = tuple(int(s) for s in output_shape)
        self.name = name

    # -- description ------------------------------------------------------------------------
    @property
    def n_in(self) -> int:
        return math.prod(self.input_shape)

    @property
    def n_out(self) -> int:
        return math.prod(self.output_shape)

    @property
    def nnz(self) -> int:
        """Stored entries of all affine maps."""
        return sum(n.nnz for n in self.nodes.values() if isinstance(n, AffineNode))

    @property
    def is_piecewise_linear(self) -> bool:
        return all(n.fn in PIECEWISE_LINEAR for n in self.nodes.values() if isinstance(n, ActivationNode))

    @property
    def is_affine(self) -> bool:
        return all(isinstance(n, (InputNode, AffineNode)) for n in self.nodes.values())

    def consumers(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {name: [] for name in self.nodes}
        for node in self.nodes.values():
            for i in getattr(node, "inputs", ()):
                out[i].append(node.name)
        return out

    def __repr__(self) -> str:
        kinds: dict[str, int] = {}
        for n in self.nodes.values():
            k = type(n).__name__
            kinds[k] = kinds.get(k, 0) + 1
        parts = ", ".join(f"{v} {k}" for k, v in kinds.items())
        return (f"Network({self.name!r}: {self.input_shape} -> {self.output_shape}, {len(self.nodes)} nodes ({parts}), "
                f"{self.nnz:,} stored entries)")

    def summary(self) -> str:
        """One line per node: name, kind, shape, stored entries, origin."""
        lines = [repr(self)]
        for n in self.nodes.values():
            extra = ""
            if isinstance(n, AffineNode):
                extra = f"affine/{n.kind} nnz={n.nnz:,}"
            elif isinstance(n, ActivationNode):
                extra = f"activation {n.fn}"
            elif isinstance(n, MaxPoolNode):
                extra = "max pool" + (" (adaptive)" if n.adaptive else "")
            else:
                extra = "input"
            src = getattr(n, "source", "")
            lines.append(f"  {n.name:<24} {extra:<28} {str(n.shape):<18} {src}")
        return "\n".join(lines)

    # -- evaluation -------------------------------------------------------------------------
    def _batch(self, x: Any) -> tuple[np.ndarray, bool]:
        if hasattr(x, "detach"):  # a torch tensor
            x = x.detach().cpu().numpy()
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"x must hold real numbers, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        if arr.shape == self.input_shape:
            return arr.reshape(1, -1), False
        if arr.shape[1:] == self.input_shape:
            return arr.reshape(arr.shape[0], -1), True
        raise ValueError(f"x has shape {arr.shape}; expected one sample {self.input_shape} or a batch (N, *{self.input_shape})")

    def values(self, x: Any) -> dict[str, np.ndarray]:
        """Every node's value (``(N, size)`` arrays) for a sample or batch ``x``."""
        return self._values(x)

    def _values(self, x: Any, selections: dict[str, Pick] | None = None) -> dict[str, np.ndarray]:
        """:meth:`values`; for one sample, each max pool's selection is also kept in ``selections``."""
        X, _ = self._batch(x)
        N = X.shape[0]
        vals: dict[str, np.ndarray] = {}
        widest = max((n for n in self.nodes.values() if isinstance(n, AffineNode)), key=lambda n: n.size, default=None)
        for node in self.nodes.values():
            if isinstance(node, InputNode):
                vals[node.name] = X
                continue
            if isinstance(node, AffineNode) and node is widest:  # the largest value checked: every one fits
                check_bytes("Network.forward", 8 * N * node.size, f"node {node.name!r}'s values for {N} samples")
            if isinstance(node, MaxPoolNode) and selections is not None and N == 1:
                pick = selections[node.name] = node.pick(vals[node.input][0])
                z = vals[node.input][0]
                vals[node.name] = (pick @ z if sp.issparse(pick) else z[pick]).reshape(1, -1)
                continue
            vals[node.name] = evaluate_node(node, [vals[i] for i in node.inputs])
        return vals

    def forward(self, x: Any) -> np.ndarray:
        """The network's output for one sample ``input_shape`` or a batch ``(N, *input_shape)``
        (NumPy or torch), in float64, shaped ``output_shape`` (with the batch axis if given)."""
        X, batched = self._batch(x)
        y = self.values(X.reshape((X.shape[0],) + self.input_shape))[self.output]
        return y.reshape((X.shape[0],) + self.output_shape) if batched else y.reshape(self.output_shape)

    __call__ = forward

    # -- affine segments --------------------------------------------------------------------
    def affine_segments(self, field: str = "numpy") -> list[AffineSegment]:
        r"""Consecutive affine nodes multiplied into one sparse map each (in topological order).

        An affine node whose value is read only by another affine node is substituted into it:
        :math:`W_2(W_1x + b_1) + b_2 = (W_2W_1)x + (W_2b_1 + b_2)`; a residual addition or a
        concatenation absorbs each of its affine branches. What remains are maps between the
        network input and the nonlinearities. A network without nonlinearities gives one segment:
        the whole model as one :math:`(W, b)`.

        ``field="numpy"`` multiplies float64 ``csr_array`` matrices (rounding once per product
        entry sum); ``field="sympy"`` multiplies exactly over the rationals (batch-norm scales as
        exact square roots) and returns ``sympy.SparseMatrix`` weights.
        """
        field = _validate.choice("field", field, ("numpy", "sympy"))
        consumers = self.consumers()
        exact = field == "sympy"
        # name -> (inputs, weights, bias, absorbed names) for every affine node, composed
        comp: dict[str, tuple[list[str], list[Any], Any, list[str]]] = {}
        absorbed: set[str] = set()
        for node in self.nodes.values():
            if not isinstance(node, AffineNode):
                continue
            if exact:
                Ws, b = node.exact_maps()
            else:
                Ws, b = list(node.weights), (None if node.bias is None else node.bias.copy())
            ins: list[str] = []
            ws: list[Any] = []
            names = [node.name]
            for W, i in zip(Ws, node.inputs):
                src = self.nodes[i]
                if isinstance(src, AffineNode) and len(consumers[i]) == 1 and i != self.output:
                    s_ins, s_ws, s_b, s_names = comp[i]
                    absorbed.add(i)
                    names = s_names + names
                    for si, sw in zip(s_ins, s_ws):
                        prod = _exact.matmul(W, sw) if exact else _spmm(W, sw, f"affine_segments ({node.name!r})")
                        ins, ws = _accumulate(ins, ws, si, prod, exact)
                    if s_b is not None:
                        wb = _exact.matmul(W, s_b) if exact else W @ s_b
                        b = wb if b is None else (_exact.add(b, wb) if exact else b + wb)
                else:
                    ins, ws = _accumulate(ins, ws, i, W, exact)
            comp[node.name] = (ins, ws, b, names)
        segments = []
        for name, (ins, ws, b, names) in comp.items():
            if name in absorbed:
                continue
            node = self.nodes[name]
            shape = self.output_shape if name == self.output else node.shape
            in_shapes = tuple(self.nodes[i].shape for i in ins)
            if exact:
                out_w = tuple(_exact.to_sympy(w) for w in ws)
                out_b = None if b is None else _exact.vector_to_sympy(b)
            else:
                out_w = tuple(ws)
                out_b = b
            segments.append(AffineSegment(name, tuple(ins), in_shapes, out_w, out_b, shape, tuple(names), field))
        return segments

    def collapsed(self) -> "Network":
        """The same network with every affine segment as one node (float64): fewer, larger maps."""
        segs = {s.name: s for s in self.affine_segments("numpy")}
        absorbed = {n for s in segs.values() for n in s.nodes if n != s.name}
        nodes: list[Node] = []
        for node in self.nodes.values():
            if node.name in absorbed:
                continue
            if node.name in segs:
                s = segs[node.name]
                nodes.append(AffineNode(s.name, s.inputs, s.input_shapes, tuple(sp.csr_array(w) for w in s.weights),
                                        s.bias, node.shape, f"segment of {', '.join(s.nodes)}", kind="segment"))
            else:
                nodes.append(node)
        return Network(nodes, self.output, self.output_shape, name=self.name)

    # -- local linear maps ------------------------------------------------------------------
    def _sample(self, x: Any) -> np.ndarray:
        X, batched = self._batch(x)
        if batched:
            raise ValueError(f"local maps are taken at one sample of shape {self.input_shape}, got a batch of {X.shape[0]}")
        return X

    def chain_costs(self, x: Any) -> dict[str, float]:
        r"""Estimated multiply-adds of the two ways to multiply the chain of sparse factors at ``x``.

        ``forward`` carries :math:`\partial v/\partial x` from the input (a matrix with one column per
        input entry); ``reverse`` carries :math:`\partial f/\partial v` back from the output (one row
        per output entry), as autograd's backward does. A product :math:`W J` costs about
        :math:`\mathrm{nnz}(W)` times the mean stored entries of a row of :math:`J`; those densities are
        propagated from the factors' own nnz and shapes (a receptive field grows by a row's taps, up to
        the number of inputs or outputs). :meth:`jacobian` and :meth:`local_affine` take the cheaper
        one (``order="auto"``)."""
        return self._chain_costs(self.values(self._sample(x).reshape(self.input_shape)))

    def _chain_costs(self, vals: dict[str, np.ndarray]) -> dict[str, float]:
        static_f, weights, cost_r = self._static_costs()
        cost_f = static_f
        for name, w in weights.items():
            node = self.nodes[name]
            z = vals[node.input][0]
            alive = np.count_nonzero(activation_derivative(node, z)) / z.size if z.size else 0.0
            cost_f += w * max(alive, 1e-3)
        return {"forward": cost_f, "reverse": cost_r}

    def _static_costs(self) -> tuple[float, dict[str, float], float]:
        """The parts of :meth:`chain_costs` that do not depend on ``x`` (cached): the forward order's cost
        of its affine and max-pool products, each activation's weight (its size times its input's
        propagated density: the cost of scaling its rows, times the share alive at ``x``), and the
        reverse order's cost."""
        cached = self.__dict__.get("_static_cost_cache")
        if cached is not None:
            return cached
        n_in, n_out = self.n_in, self.n_out
        fwd: dict[str, float] = {}
        weights: dict[str, float] = {}
        cost_f = 0.0
        for node in self.nodes.values():
            if isinstance(node, InputNode):
                fwd[node.name] = 1.0
            elif isinstance(node, AffineNode):
                d = 0.0
                for W, i in zip(node.weights, node.inputs):
                    cost_f += W.nnz * fwd[i]
                    d += W.nnz / max(W.shape[0], 1) * fwd[i]
                fwd[node.name] = min(float(n_in), d)
            elif isinstance(node, ActivationNode):
                fwd[node.name] = fwd[node.input]
                weights[node.name] = node.size * fwd[node.input]
            else:
                fwd[node.name] = fwd[node.input]
                cost_f += node.size * fwd[node.input]
        rev: dict[str, float] = {self.output: 1.0}
        cost_r = 0.0
        for node in reversed(list(self.nodes.values())):
            g = rev.get(node.name, 0.0)
            if isinstance(node, InputNode) or g == 0.0:
                continue
            if isinstance(node, AffineNode):
                for W, i in zip(node.weights, node.inputs):
                    cost_r += W.nnz * g
                    rev[i] = min(float(n_out), rev.get(i, 0.0) + W.nnz / max(W.shape[1], 1) * g)
            elif isinstance(node, ActivationNode):
                cost_r += node.size * g
                rev[node.input] = min(float(n_out), rev.get(node.input, 0.0) + g)
            else:
                cost_r += node.size * g
                rev[node.input] = min(float(n_out), rev.get(node.input, 0.0) + g * node.size / max(math.prod(node.input_shape), 1))
        cached = self.__dict__["_static_cost_cache"] = (cost_f, weights, cost_r)
        return cached

    def _order(self, x: Any, order: str) -> tuple[str, tuple[dict[str, np.ndarray], dict[str, Pick]] | None]:
        """The order to multiply in, and (when it had to compute them) the nodes' values and max-pool
        selections at ``x``."""
        order = _validate.choice("order", order, ("auto", "forward", "reverse"))
        if order != "auto":
            return order, None
        selections: dict[str, Pick] = {}
        vals = self._values(self._sample(x).reshape(self.input_shape), selections)
        if self.n_out > _DENSE_REVERSE_ROWS and self.n_out >= self.n_in:
            # memory first: with at least as many outputs as inputs, the reverse order's sparse dF/dv (one row
            # per output) outgrows the result (a 3->16->16 conv stack at 32x32: 6.1x the sparse J, against
            # 1.75x in forward order, which skips the rows a ReLU zeroes), though its products may cost less
            return "forward", (vals, selections)
        static_f, _, cost_r = self._static_costs()
        if cost_r < static_f:  # the forward order costs at least its products: no need to weigh the activations
            return "reverse", (vals, selections)
        costs = self._chain_costs(vals)
        return ("reverse" if costs["reverse"] < costs["forward"] else "forward"), (vals, selections)

    def _reverse(self, x: Any, known: tuple[dict[str, np.ndarray], dict[str, Pick]] | None = None
                 ) -> tuple[sp.csr_array, np.ndarray | None]:
        """``(J, c)`` at ``x`` in reverse order: ``G = ∂f/∂v`` from the output back to the input
        (float64), and the offset ``c`` by the adjoint (``sum_v (∂f/∂v) e_v`` over the constants
        ``e_v`` the nodes add). ``known``: the nodes' values
        and max-pool selections at ``x``, when :meth:`_order` has computed them."""
        X = self._sample(x)
        if known is None:
            selections: dict[str, Pick] = {}
            vals = self._values(X.reshape(self.input_shape), selections)
        else:
            vals, selections = known
        n_out = self.n_out

        def selection(node: MaxPoolNode) -> Pick:  # each max pool's selection at x, made once
            if node.name not in selections:
                selections[node.name] = node.pick(vals[node.input][0])
            return selections[node.name]

        # few outputs (a classifier): each dF/dv is held as dense rows, n_out by the node's size (NumPy); a
        # factor acts on them by the cheapest exact form of its product (AffineNode.rows_times: a convolution's
        # transposed convolution, a dense copy's BLAS product, a diagonal's scaling, or the CSR rows that dF/dv
        # does not zero -- those a ReLU or a max pool's selection kept). Otherwise every dF/dv is a sparse
        # scipy matrix.
        widest = max(n.size for n in self.nodes.values())
        dense = n_out <= _DENSE_REVERSE_ROWS
        if dense:
            check_bytes("local map (reverse order)", 8 * n_out * widest * 2, f"two {n_out} x {widest} float64 maps")
        G: dict[str, Any] = {self.output: np.eye(n_out) if dense else sp.identity(n_out, format="csr", dtype=np.float64)}
        # the offset by the adjoint: c = sum over nodes v of (dF/dv) e_v, e_v the constant v adds (an affine
        # node's bias, a linear piece's offset), read off each dF/dv as the pass reaches it
        c: Any = None

        def give(name: str, term: Any) -> None:
            if name not in G:
                G[name] = term
            elif dense:
                G[name] += term  # every dense term is made here, so this sum is its own
            else:
                G[name] = sp.csr_array(G[name] + term)

        def offset(g: Any, e: np.ndarray | None) -> None:
            nonlocal c
            if e is not None and np.any(e != 0):
                t = np.asarray(g @ e).reshape(-1)
                c = t if c is None else c + t

        for node in reversed(list(self.nodes.values())):
            if isinstance(node, InputNode):
                continue
            g = G.pop(node.name, None)
            if g is None:
                continue
            if isinstance(node, AffineNode):
                offset(g, node.bias)
                last = len(node.weights) - 1
                for k, (W, i) in enumerate(zip(node.weights, node.inputs)):
                    # rows_times may overwrite its rows (a diagonal scales them in place): the last factor
                    # takes g itself, the others a copy
                    give(i, node.rows_times(k, g if k == last else g.copy()) if dense else
                         _spmm(g, W, f"local map at node {node.name!r} (reverse order)"))
            elif isinstance(node, ActivationNode):
                z = vals[node.input][0]
                s_, e = _piece(node, z) if node.fn in PIECEWISE_LINEAR else (activation_derivative(node, z), None)
                offset(g, e)
                if dense:
                    g *= s_
                    give(node.input, g)
                else:
                    t = sp.csr_array(g.multiply(s_.reshape(1, -1)).tocsr())
                    t.eliminate_zeros()
                    give(node.input, t)
            else:
                pick = selection(node)
                give(node.input, _unpool(node, pick, g) if dense else _spmm(g, node.selection_matrix(pick),
                                                                            f"local map at node {node.name!r} "
                                                                          f"(reverse order)"))
            g = None
        inputs = [n.name for n in self.nodes.values() if isinstance(n, InputNode)]
        J = G.get(inputs[0])
        if J is None:
            return sp.csr_array((n_out, self.n_in), dtype=np.float64), c
        if dense:
            return _dense_to_csr(J), c
        J = sp.csr_array(J)
        J.sum_duplicates()
        J.eliminate_zeros()
        J.sort_indices()
        return J, c

    def _propagate(self, x: Any, mode: str, field: str = "numpy") -> tuple[Any, Any, Region | None]:
        """Compose ``(J, c)`` node by node at the sample ``x`` (mode ``local``, ``jacobian`` or
        ``region``); for ``region`` also collect the inequalities."""
        X = self._sample(x)
        vals = self.values(X.reshape(self.input_shape))
        exact = field == "sympy"
        n = self.n_in
        J: dict[str, Any] = {}
        c: dict[str, Any] = {}
        rows_A: list[sp.csr_array] = []
        rows_d: list[np.ndarray] = []
        sources: list[tuple[str, int]] = []
        consumers = self.consumers()
        remaining = {k: len(v) for k, v in consumers.items()}

        def release(name: str) -> None:  # drop a node's (J, c) once its last consumer has read it
            remaining[name] -= 1
            if remaining[name] == 0 and name != self.output:
                J.pop(name, None)
                c.pop(name, None)

        for node in self.nodes.values():
            if isinstance(node, InputNode):
                J[node.name] = _exact.identity(n) if exact else sp.identity(n, format="csr", dtype=np.float64)
                c[node.name] = None
                continue
            if isinstance(node, AffineNode):
                Ws, b = node.exact_maps() if exact else (node.weights, node.bias)
                Jn, cn = None, b
                # rows the next activation zeroes (a ReLU's negative units) are never computed, and an input's
                # map is handed over (not kept) when this is its last reader, so it is freed before assembly
                alive = None if (exact or mode == "region") else self._alive_rows(node, consumers, vals)
                for W, i in zip(Ws, node.inputs):
                    if exact:
                        term = _exact.matmul(W, J[i])
                    elif alive is not None:
                        last = remaining[i] == 1 and i != self.output and node.inputs.count(i) == 1
                        term = _spmm_rows(W, J.pop(i) if last else J[i], alive, f"local map at node {node.name!r}")
                    else:
                        term = _spmm(W, J[i], f"local map at node {node.name!r}")
                    Jn = term if Jn is None else (_exact.add(Jn, term) if exact else Jn + term)
                    if c[i] is not None:
                        ct = _exact.matmul(W, c[i]) if exact else W @ c[i]
                        cn = ct if cn is None else (_exact.add(cn, ct) if exact else cn + ct)
                J[node.name], c[node.name] = Jn, (None if cn is None else (cn if exact else np.asarray(cn, dtype=np.float64)))
                Jn = term = None  # no frame reference keeps a released map alive
            elif isinstance(node, ActivationNode):
                z = vals[node.input][0]
                if mode != "jacobian" and node.fn not in PIECEWISE_LINEAR:
                    raise ValueError(f"node {node.name!r} ({node.source}) is {node.fn}, which is not piecewise linear: "
                                     f"the network has no linear region; use network.jacobian(x) for its Jacobian")
                s, e = _piece(node, z) if node.fn in PIECEWISE_LINEAR else (activation_derivative(node, z), None)
                if mode == "region" and node.fn in PIECEWISE_LINEAR:
                    A_k, d_k, src_k = _activation_conditions(node, z, J[node.input], c[node.input])
                    rows_A.append(A_k)
                    rows_d.append(d_k)
                    sources.extend(src_k)
                if exact and node.fn == "detach":
                    # a constant: the input map's exact value at x (the float forward pass rounds)
                    Jn = _exact.matmul(_exact.diagonal([0.0] * node.size), J[node.input])
                    cn = _exact.matmul(J[node.input], _exact.from_vector(X.reshape(-1)))
                    if c[node.input] is not None:
                        cn = _exact.add(cn, c[node.input])
                elif exact:
                    D = _exact.diagonal([float(v) for v in s])
                    Jn = _exact.matmul(D, J[node.input])
                    cin = c[node.input]
                    cn = None if cin is None else _exact.matmul(D, cin)
                    if e is not None and np.any(e != 0):
                        ev = _exact.from_vector(e)
                        cn = ev if cn is None else _exact.add(cn, ev)
                else:  # the input's map is rescaled where it lies when this node is its last reader
                    last = remaining[node.input] == 1 and node.input != self.output
                    Jin = J[node.input]
                    stored = np.diff(Jin.indptr) > 0
                    if np.all(s[stored] == 1.0):  # rows the slope zeroes were never computed: nothing to scale
                        Jn = Jin if last else Jin.copy()
                    else:
                        Jn = _row_scale(s, Jin, in_place=last)
                    Jin = None
                    cin = c[node.input]
                    cn = None if cin is None else s * cin
                    if e is not None and np.any(e != 0):
                        cn = e if cn is None else cn + e
                J[node.name], c[node.name] = Jn, cn
            else:  # max pool
                z = vals[node.input][0]
                S = node.selection(z)
                if mode == "region":
                    A_k, d_k, src_k = _maxpool_conditions(node, z, S, J[node.input], c[node.input])
                    rows_A.append(A_k)
                    rows_d.append(d_k)
                    sources.extend(src_k)
                if exact:
                    Se = _exact.from_csr(S)
                    J[node.name] = _exact.matmul(Se, J[node.input])
                    c[node.name] = None if c[node.input] is None else _exact.matmul(Se, c[node.input])
                else:
                    J[node.name] = _spmm(S, J[node.input], f"local map at node {node.name!r}")
                    c[node.name] = None if c[node.input] is None else S @ c[node.input]
            for i in node.inputs:
                release(i)
        Jo, co = J[self.output], c[self.output]
        region = None
        if mode == "region":
            A = sp.csr_array(sp.vstack(rows_A, format="csr")) if rows_A else sp.csr_array((0, n))
            d = np.concatenate(rows_d) if rows_d else np.zeros(0)
            region = Region(A, d, tuple(sources), self.input_shape)
        return Jo, co, region

    def _alive_rows(self, node: AffineNode, consumers: dict[str, list[str]], vals: dict[str, np.ndarray]) -> np.ndarray | None:
        """Rows of ``node``'s map that its only reader, an activation, does not zero at this point."""
        readers = consumers[node.name]
        if node.name == self.output or len(readers) != 1:
            return None
        act = self.nodes[readers[0]]
        if not isinstance(act, ActivationNode):
            return None
        s = activation_derivative(act, vals[node.name][0])
        alive = s != 0
        return None if alive.all() else alive

    def local_affine(self, x: Any, field: str = "numpy", order: str = "auto") -> LocalAffine:
        r"""The exact affine map of a piecewise-linear network on the linear region of ``x``.

        With every ReLU/LeakyReLU/PReLU/Hardtanh/clamp/abs unit's piece and every max-pool window's
        selection fixed at ``x``, the network is affine: :math:`f(x') = Jx' + c` for every
        :math:`x'` of :meth:`region` (``x``). ``J`` is sparse (``prod(output_shape) x
        prod(input_shape)``). ``field="sympy"`` composes exactly over the rationals (the pattern
        is read from the float forward pass). Refused (``ValueError``) when the network has a
        smooth activation: use :meth:`jacobian`.

        ``order`` (float field): ``"forward"`` carries the map from the input, ``"reverse"`` carries
        it back from the output (cheap for few outputs, e.g. a classifier), ``"auto"`` (default)
        takes the one :meth:`chain_costs` estimates cheaper -- except for more than 64 outputs and at
        least as many outputs as inputs, taken forward, whose peak memory stays within twice the sparse
        result (the reverse order's sparse rows outgrow it). Both give the same map to rounding.
        """
        field = _validate.choice("field", field, ("numpy", "sympy"))
        how, vals = self._order(x, order) if field == "numpy" else ("forward", None)
        if how == "reverse":
            self._refuse_smooth()
            Jr, cr = self._reverse(x, vals)
            return LocalAffine(Jr, np.zeros(self.n_out) if cr is None else np.asarray(cr, dtype=np.float64),
                               self.input_shape, self.output_shape, field)
        Jo, co, _ = self._propagate(x, "local", field)
        if field == "sympy":
            J = _exact.to_sympy(Jo)
            c = sympy_zeros(self.n_out) if co is None else _exact.vector_to_sympy(co)
        else:
            J = sp.csr_array(Jo)
            c = np.zeros(self.n_out) if co is None else np.asarray(co, dtype=np.float64)
        return LocalAffine(J, c, self.input_shape, self.output_shape, field)

    def region(self, x: Any) -> Region:
        r"""The linear region of ``x``: :math:`\{x' : Ax' \le d\}` (float64, sparse ``A``).

        Inside it, :meth:`local_affine` (``x``) is the network (with a ``detach`` node, torch's
        linearization: the detached value is held at its value at ``x``, as autograd holds it). :meth:`Region.distance` gives how
        far ``x`` is from the region's boundary (0 when ``x`` sits on a kink)."""
        _, _, region = self._propagate(x, "region")
        assert region is not None
        return region

    def vjp(self, x: Any, v: Any) -> np.ndarray:
        r"""Vector-Jacobian products :math:`v^\top \partial f/\partial x` for a sample or a batch
        ``x`` and cotangents ``v`` of the output's shape (with the same batch axis): what torch's
        ``backward`` computes, node by node in reverse (each activation and max-pool selection
        differentiated as autograd does), without forming a Jacobian. Float64, shaped like ``x``."""
        X, batched = self._batch(x)
        V = np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v, dtype=np.float64)
        want = ((X.shape[0],) if batched else ()) + self.output_shape
        if V.shape != want:
            raise ValueError(f"v has shape {V.shape}; expected {want} (the output's shape"
                             f"{', with the batch axis of x' if batched else ''})")
        V = V.reshape(X.shape[0], -1)
        vals = self.values(X.reshape((X.shape[0],) + self.input_shape))
        grads: dict[str, np.ndarray] = {self.output: V}

        def give(name: str, g: np.ndarray) -> None:
            grads[name] = g if name not in grads else grads[name] + g

        for node in reversed(list(self.nodes.values())):
            g = grads.pop(node.name, None)
            if g is None or isinstance(node, InputNode):
                if isinstance(node, InputNode):
                    grads[node.name] = np.zeros_like(X) if g is None else g
                continue
            if isinstance(node, AffineNode):
                for W, i in zip(node.weights, node.inputs):
                    give(i, np.asarray((W.T @ g.T).T))
            elif isinstance(node, ActivationNode):
                give(node.input, g * activation_derivative(node, vals[node.input]))
            else:  # max pool: each sample's selection, transposed
                z = vals[node.input]
                give(node.input, np.stack([node.selection(z[k]).T @ g[k] for k in range(z.shape[0])]))
        inputs = [n.name for n in self.nodes.values() if isinstance(n, InputNode)]
        G = grads.get(inputs[0], np.zeros_like(X))
        return G.reshape(((X.shape[0],) if batched else ()) + self.input_shape)

    def _refuse_smooth(self) -> None:
        for node in self.nodes.values():
            if isinstance(node, ActivationNode) and node.fn not in PIECEWISE_LINEAR:
                raise ValueError(f"node {node.name!r} ({node.source}) is {node.fn}, which is not piecewise linear: "
                                 f"the network has no linear region; use network.jacobian(x) for its Jacobian")

    def jacobian(self, x: Any, order: str = "auto") -> sp.csr_array:
        r"""The sparse Jacobian :math:`\partial f/\partial x` at one sample ``x`` (float64), for any
        supported network (smooth activations by their derivatives, piecewise-linear ones and max
        pooling as torch's autograd differentiates them). ``order``: as in :meth:`local_affine`."""
        how, vals = self._order(x, order)
        if how == "reverse":
            return self._reverse(x, vals)[0]
        Jo, _, _ = self._propagate(x, "jacobian")
        return sp.csr_array(Jo)


def evaluate_node(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    """One node's value on a batch (rows = samples) from its inputs' values (same order)."""
    if isinstance(node, AffineNode):
        y = None
        for k, v in enumerate(inputs):
            t = node.apply(v, k)
            y = t if y is None else y + t
        y = np.zeros((1, node.size)) if y is None else y  # apply's results are fresh arrays: the sum is this node's own
        if node.bias is not None:
            y += node.bias
        return y
    if isinstance(node, ActivationNode):
        return activation_value(node, inputs[0])
    if isinstance(node, MaxPoolNode):
        z = inputs[0]
        return np.stack([node.selection(z[k]) @ z[k] for k in range(z.shape[0])])
    raise TypeError(f"evaluate_node: no value rule for {type(node).__name__}")


def sympy_zeros(n: int) -> Any:
    import sympy

    return sympy.zeros(n, 1)


def _accumulate(ins: list[str], ws: list[Any], name: str, W: Any, exact: bool) -> tuple[list[str], list[Any]]:
    if name in ins:
        k = ins.index(name)
        ws[k] = _exact.add(ws[k], W) if exact else sp.csr_array(ws[k] + W)
    else:
        ins.append(name)
        ws.append(W)
    return ins, ws


def _rows(J: sp.csr_array, idx: np.ndarray, coef: np.ndarray) -> sp.csr_array:
    """``diag(coef) @ J[idx]`` as CSR."""
    sel = sp.csr_array(J[idx]) if len(idx) else sp.csr_array((0, J.shape[1]))
    return _row_scale(coef, sel) if len(idx) else sel


def _activation_conditions(node: ActivationNode, z: np.ndarray, Jz: sp.csr_array, cz: Any) -> tuple[sp.csr_array, np.ndarray, list]:
    """Rows of ``A x' <= d`` keeping each unit of ``node`` on the piece ``z`` is on."""
    cz = np.zeros(z.size) if cz is None else np.asarray(cz, dtype=np.float64)
    idx_list, coef_list, rhs_list = [], [], []
    if node.fn == "detach":  # a constant: no condition on x' (torch's linearization holds it at its value)
        return sp.csr_array((0, Jz.shape[1])), np.zeros(0), []
    if node.fn in ("hardtanh", "clamp"):
        lo, hi = node.params["lo"], node.params["hi"]
        # the piece z is on: hardtanh's bounds belong to the flat pieces, clamp's to the identity piece
        below, above = (z <= lo, z >= hi) if node.fn == "hardtanh" else (z < lo, z > hi)
        inside = ~below & ~above
        # z <= lo:  J x' <= lo - c ; z >= hi: -J x' <= c - hi ; inside: both -J x' <= c - lo and J x' <= hi - c
        for mask, sign, rhs in ((below, 1.0, lo - cz), (above, -1.0, cz - hi), (inside & np.isfinite(lo), -1.0, cz - lo),
                                (inside & np.isfinite(hi), 1.0, hi - cz)):
            k = np.flatnonzero(mask)
            idx_list.append(k)
            coef_list.append(np.full(k.size, sign))
            rhs_list.append(rhs[k])
    else:
        slope = node.params.get("slope", 0.0) if node.fn != "abs" else -1.0
        slope_v = np.broadcast_to(np.asarray(slope, dtype=np.float64), z.shape)
        keep = slope_v != 1.0  # a unit with slope 1 on both sides has no kink
        pos = (z > 0) & keep
        neg = (z <= 0) & keep
        for mask, sign in ((pos, -1.0), (neg, 1.0)):  # z > 0: -J x' <= c ; z <= 0: J x' <= -c
            k = np.flatnonzero(mask)
            idx_list.append(k)
            coef_list.append(np.full(k.size, sign))
            rhs_list.append(-sign * cz[k])
    idx = np.concatenate(idx_list)
    coef = np.concatenate(coef_list)
    rhs = np.concatenate(rhs_list)
    A = _rows(Jz, idx, coef)
    return A, rhs.astype(np.float64), [(node.name, int(i)) for i in idx]


def _maxpool_conditions(node: MaxPoolNode, z: np.ndarray, S: sp.csr_array, Jz: sp.csr_array, cz: Any) -> tuple[sp.csr_array, np.ndarray, list]:
    """Rows ``(J_j - J_s) x' <= c_s - c_j``: the chosen entry ``s`` of each window stays >= each
    other entry ``j`` of the window."""
    cz = np.zeros(z.size) if cz is None else np.asarray(cz, dtype=np.float64)
    chosen = S.indices[S.indptr[:-1]]  # the first stored entry of each row (amax stores every tied maximum)
    windows = _windows(node)
    js, ss, outs = [], [], []
    for o, taps in enumerate(windows):
        s = int(chosen[o])
        for j in taps:
            if j != s:
                js.append(j)
                ss.append(s)
                outs.append(o)
    if not js:
        return sp.csr_array((0, Jz.shape[1])), np.zeros(0), []
    js_a, ss_a = np.asarray(js), np.asarray(ss)
    A = sp.csr_array(Jz[js_a] - Jz[ss_a])
    A.eliminate_zeros()
    d = cz[ss_a] - cz[js_a]
    return A, d, [(node.name, int(o)) for o in outs]


def _windows(node: MaxPoolNode) -> list[np.ndarray]:
    """The input positions (flat, in the input sample) of every output window, padding skipped,
    in the rows' order of the node's selection: max pooling's from the window plan
    :func:`~isomat.algebra.maxpool_selection` itself uses, adaptive pooling's from torch's rule."""
    if node.adaptive is None:
        cols, mask = node._window_table()
        return [cols[r] if mask is None else cols[r][mask[r]] for r in range(cols.shape[0])]
    from ._layout import _adaptive_windows

    C, spatial = node.input_shape[0], node.input_shape[1:]
    per_axis = []
    for n, o in zip(spatial, node.adaptive):
        start, length = _adaptive_windows(n, o)
        per_axis.append([np.arange(a, a + k) for a, k in zip(start, length)])
    strides = [math.prod(spatial[a + 1:]) for a in range(len(spatial))]
    n_sp = math.prod(spatial)
    out = []
    for ch in range(C):
        for o_idx in np.ndindex(*node.adaptive):
            pos = np.array([ch * n_sp])
            for a, t in enumerate(o_idx):
                pos = (pos[:, None] + per_axis[a][t][None, :] * strides[a]).reshape(-1)
            out.append(pos)
    return out
