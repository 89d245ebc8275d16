r"""Operator checks for tests: the dot (adjoint) test, operator equality without densifying, and
structured-equals-dense.

Every check takes any of these operand kinds (and the two operands of
:func:`assert_same_operator` may be of different kinds):

* NumPy arrays (2-d);
* SciPy sparse matrices and arrays (any format);
* CuPy arrays and ``cupyx.scipy.sparse`` matrices (vectors are moved with :mod:`isomat.gpu`);
* torch tensors, dense or sparse (COO, CSR, CSC), float32/float64/complex;
* :class:`scipy.sparse.linalg.LinearOperator` (``matvec`` / ``rmatvec`` / ``matmat``);
* a plain callable ``f`` with a stated ``shape`` (and ``rmatvec`` for the adjoint), or any object
  with ``shape`` given ``matvec=`` / ``rmatvec=``;
* numeric SymPy matrices (isomat's exact results; evaluated in float64, a ``SparseMatrix``
  through its stored entries only);
* any other object with ``shape``, ``@`` and ``.T`` (isomat's own operators).

Vectors are drawn as NumPy arrays and converted to the operand's kind and dtype (float32 stays
float32, complex gets complex vectors); results come back to NumPy for the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validate

__all__ = ["SameOperatorReport", "assert_matches_dense", "assert_same_operator", "default_rtol", "dottest"]

#: Default relative tolerance of :func:`dottest` and :func:`assert_same_operator` per precision:
#: the operand's floating dtype (``float16``/``bfloat16``, ``float32``/``complex64``,
#: ``float64``/``complex128``; integer and object data count as float64).
RTOL = {"half": 1e-2, "single": 1e-4, "double": 1e-10}


def _host(x: Any) -> np.ndarray:
    """Any array-like (NumPy, SciPy sparse, CuPy, torch) as a NumPy array."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        x = x.detach()
        if x.layout != _torch().strided:
            x = x.to_dense()
        if x.dtype == _torch().bfloat16:
            x = x.float()
        return x.cpu().resolve_conj().numpy()
    if hasattr(x, "get") and mod.startswith(("cupy", "cupyx")):
        x = x.get()
    if hasattr(x, "toarray"):
        x = x.toarray()
        if hasattr(x, "get"):
            x = x.get()
    return np.asarray(x)


def _torch() -> Any:
    import torch

    return torch


def _dtype_name(dtype: Any) -> str:
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype).replace("torch.", "")


def _precision(dtype: Any) -> str:
    name = _dtype_name(dtype)
    if name in ("float16", "bfloat16", "complex32"):
        return "half"
    if name in ("float32", "complex64"):
        return "single"
    return "double"


def default_rtol(*dtypes: Any) -> float:
    """The dtype-aware default tolerance: that of the least precise of ``dtypes``.

    ``float64``/``complex128`` (and integer or exact data): ``1e-10``; ``float32``/``complex64``:
    ``1e-4``; ``float16``/``bfloat16``: ``1e-2``.
    """
    order = ("double", "single", "half")
    worst = max((order.index(_precision(d)) for d in dtypes), default=0)
    return RTOL[order[worst]]


def _is_complex(dtype: Any) -> bool:
    return "complex" in _dtype_name(dtype)


@dataclass(frozen=True)
class _Op:
    """An operand seen as ``(shape, dtype, matmat, rmatmat)`` on NumPy blocks ``(n, k)``."""

    shape: tuple[int, int]
    dtype: Any
    kind: str
    matmat: Callable[[np.ndarray], np.ndarray]
    rmatmat: Callable[[np.ndarray], np.ndarray] | None


def _shape2(name: str, shape: Any) -> tuple[int, int]:
    try:
        m, n = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (m, n) of ints, got {shape!r}") from None
    if m < 0 or n < 0:
        raise ValueError(f"{name} must be non-negative, got {(m, n)}")
    return m, n


def _columns(f: Callable[[Any], Any], m: int) -> Callable[[np.ndarray], np.ndarray]:
    """A matmat from a matvec: one call per column, each result flattened to length ``m``."""

    def mm(X: np.ndarray) -> np.ndarray:
        cols = [_host(f(X[:, j])).reshape(-1) for j in range(X.shape[1])]
        for c in cols:
            if c.size != m:
                raise AssertionError(f"the operator returned {c.size} entries for a vector, expected {m}")
        return np.stack(cols, axis=1) if cols else np.zeros((m, 0))

    return mm


def _linop_mm(matmat: Callable[[Any], Any], matvec: Callable[[Any], Any], m: int) -> Callable[[np.ndarray], np.ndarray]:
    """A LinearOperator's block product: 1-d vectors through ``matvec`` (many hand-written
    matvecs take only 1-d input, which scipy's default ``matmat`` does not give them), blocks
    through ``matmat``, column by column where ``matmat`` refuses the block."""
    cols = _columns(matvec, m)

    def mm(X: np.ndarray) -> np.ndarray:
        if X.shape[1] == 1:
            return cols(X)
        try:
            return np.asarray(_host(matmat(X))).reshape(m, -1)
        except (ValueError, TypeError):
            return cols(X)

    return mm


def _as_op(A: Any, shape: Any = None, matvec: Any = None, rmatvec: Any = None, dtype: Any = None,
           name: str = "A") -> _Op:
    """Classify ``A`` and wrap it as an :class:`_Op`; TypeError for anything unsupported."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import LinearOperator

    if rmatvec is not None and not callable(rmatvec):
        raise TypeError(f"rmatvec must be callable, got {type(rmatvec).__name__}")
    if matvec is not None and not callable(matvec):
        raise TypeError(f"matvec must be callable, got {type(matvec).__name__}")
    if matvec is not None or (callable(A) and not hasattr(A, "shape") and not isinstance(A, LinearOperator)):
        # matrix-free: a callable with a stated shape (or an object whose shape we read)
        fwd = matvec if matvec is not None else A
        if shape is None:
            if not hasattr(A, "shape"):
                raise TypeError(f"{name} is a callable without a shape: pass shape=(m, n), e.g. "
                                f"dottest(f, shape=(m, n), rmatvec=g)")
            shape = A.shape
        m, n = _shape2("shape", shape)
        try:
            dt = np.dtype(dtype) if dtype is not None else np.dtype(getattr(A, "dtype", np.float64) or np.float64)
        except TypeError:
            dt = np.dtype(str(getattr(A, "dtype", "float64")).replace("torch.", ""))
        if dt.kind not in "fc":
            dt = np.dtype(np.float64)
        return _Op((m, n), dt, "callable", _columns(fwd, m), None if rmatvec is None else _columns(rmatvec, n))
    if shape is not None and hasattr(A, "shape") and tuple(A.shape) != _shape2("shape", shape):
        raise ValueError(f"shape={tuple(shape)} disagrees with {name}.shape = {tuple(A.shape)}")
    mod = type(A).__module__
    adj_override = None if rmatvec is None else _columns(rmatvec, _shape2("shape", A.shape)[1])
    if isinstance(A, LinearOperator):
        m, n = A.shape
        dt = np.dtype(A.dtype) if A.dtype is not None else np.dtype(np.float64)
        return _Op((m, n), dt, "LinearOperator", _linop_mm(A.matmat, A.matvec, m),
                   adj_override or _linop_mm(A.rmatmat, A.rmatvec, n))
    if mod.startswith("torch") and hasattr(A, "layout"):
        torch = _torch()
        if A.dim() != 2:
            raise TypeError(f"{name} must be a 2-d torch tensor, got {A.dim()} dimensions")
        T = A.detach()
        tdt = T.dtype if (T.is_floating_point() or T.is_complex()) else torch.float64
        T = T.to(tdt)
        m, n = T.shape
        if T.layout == torch.strided:
            TH = T.mT.conj()
        else:  # sparse: transpose through COO (CSR.t() is CSC, which CPU matmul may refuse)
            TH = T.to_sparse_coo().t().coalesce()
            TH = TH.conj() if T.is_complex() else TH

        def tmm(M: Any) -> Callable[[np.ndarray], np.ndarray]:
            def f(X: np.ndarray) -> np.ndarray:
                with torch.no_grad():
                    Xt = torch.as_tensor(np.ascontiguousarray(X)).to(device=T.device, dtype=tdt)
                    return _host(M @ Xt)

            return f

        npdt = torch.empty(0, dtype=tdt).numpy().dtype if tdt != torch.bfloat16 else np.dtype(np.float32)
        return _Op((m, n), npdt if tdt != torch.bfloat16 else "bfloat16", "torch", tmm(T), adj_override or tmm(TH))
    if mod.startswith(("cupy", "cupyx")):
        from ..gpu import to_gpu

        m, n = A.shape
        AH = A.T.conj() if _is_complex(A.dtype) else A.T
        return _Op((m, n), np.dtype(str(A.dtype)), "cupy", lambda X: _host(A @ to_gpu(np.ascontiguousarray(X))),
                   adj_override or (lambda Y: _host(AH @ to_gpu(np.ascontiguousarray(Y)))))
    if type(A).__module__.startswith("sympy") and hasattr(A, "todok"):
        A = _sympy_numeric(A, name)
    if isinstance(A, np.ndarray) or sp.issparse(A):
        if A.ndim != 2:
            raise TypeError(f"{name} must be a 2-d array, got shape {A.shape}")
        if A.dtype == object:
            raise TypeError(f"{name} is an object (exact) array: use assert_matches_dense for exact data, "
                            "or convert it to floats")
        M = A if A.dtype.kind in "fc" else A.astype(np.float64)
        MH = M.conj().T if M.dtype.kind == "c" else M.T
        return _Op(M.shape, M.dtype, "sparse" if sp.issparse(A) else "numpy",
                   lambda X: _host(M @ X), adj_override or (lambda Y: _host(MH @ Y)))
    if hasattr(A, "shape") and hasattr(A, "__matmul__") and hasattr(A, "T"):
        m, n = _shape2(f"{name}.shape", A.shape)
        dt = np.dtype(getattr(A, "dtype", np.float64) or np.float64)
        dt = dt if dt.kind in "fc" else np.dtype(np.float64)
        return _Op((m, n), dt, type(A).__name__, _columns(lambda v: A @ v, m),
                   adj_override or _columns(lambda v: A.T.conj() @ v if dt.kind == "c" else A.T @ v, n))
    raise TypeError(
        f"{name}: cannot use a {type(A).__module__}.{type(A).__name__} as an operator; expected a NumPy array, "
        "a SciPy sparse matrix/array, a CuPy array or sparse matrix, a torch tensor (dense, COO or CSR), a "
        "scipy.sparse.linalg.LinearOperator, or a callable with shape=(m, n) (and rmatvec= for the adjoint)"
    )


def _sympy_numeric(M: Any, name: str) -> Any:
    """A numeric SymPy matrix as a SciPy sparse array of its stored entries (no densifying of a
    ``SparseMatrix``); symbolic entries are refused."""
    import scipy.sparse as sp

    entries = M.todok()
    if any(not v.is_number for v in entries.values()):
        raise TypeError(f"{name} has symbolic entries: a float check cannot evaluate them; compare exactly "
                        "with assert_matches_dense, or substitute numbers first")
    vals = [complex(v) for v in entries.values()]
    cplx = any(v.imag != 0 for v in vals)
    data = np.array(vals if cplx else [v.real for v in vals], dtype=np.complex128 if cplx else np.float64)
    rows = np.fromiter((k[0] for k in entries), dtype=np.int64, count=len(vals))
    cols = np.fromiter((k[1] for k in entries), dtype=np.int64, count=len(vals))
    return sp.csr_array((data, (rows, cols)), shape=M.shape)


def _gaussian(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    npdt = np.float32 if str(dtype) == "bfloat16" else np.dtype(dtype)
    x = rng.standard_normal(shape)
    if np.dtype(npdt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(npdt)


def dottest(A: Any, *, shape: Any = None, rmatvec: Any = None, matvec: Any = None, dtype: Any = None,
            rng: np.random.Generator | int | None = 0, rtol: float | None = None) -> float:
    r"""Adjoint (dot) test :math:`\langle A x, y\rangle = \langle x, A^{\mathsf H} y\rangle`.

    Draws Gaussian vectors :math:`x, y` (complex when ``A`` is complex, in ``A``'s dtype) and
    compares :math:`y^{\mathsf H}(Ax)` with :math:`(A^{\mathsf H}y)^{\mathsf H}x` (``np.vdot``).

    Parameters
    ----------
    A : operator
        A NumPy array, SciPy sparse matrix/array, CuPy array or sparse matrix, torch tensor
        (dense or sparse COO/CSR; float32, float64, complex), a
        :class:`scipy.sparse.linalg.LinearOperator`, any object with ``shape``, ``@`` and ``.T``,
        or a callable ``x -> A x`` (then ``shape`` and ``rmatvec`` are required).
    shape : (m, n), optional
        The operator's shape, for a callable ``A``.
    rmatvec : callable, optional
        ``y -> A^H y`` (the adjoint: the transpose for real operators). Overrides the operand's
        own adjoint, so a hand-written transpose can be tested against ``A``.
    matvec : callable, optional
        ``x -> A x`` for an object ``A`` that has ``shape`` but no usable ``@``.
    dtype : dtype, optional
        Vector dtype for a callable (default float64).
    rng : Generator or int, optional
    rtol : float, optional
        Tolerance on :math:`|\langle Ax,y\rangle-\langle x,A^{\mathsf H}y\rangle|` relative to the
        Cauchy-Schwarz scale :math:`\|Ax\|\|y\|+\|x\|\|A^{\mathsf H}y\|` (which, unlike the inner
        products themselves, cannot cancel). Default by precision (:func:`default_rtol`):
        ``1e-10`` for float64/complex128, ``1e-4`` for float32/complex64, ``1e-2`` for
        float16/bfloat16.

    Returns
    -------
    float
        The relative difference.

    Raises
    ------
    AssertionError
        When the two inner products differ by more than ``rtol``.
    TypeError
        For an operand of another kind, or a callable without ``shape`` / ``rmatvec``.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.diff(np.eye(5), axis=0)                       # a 4 x 5 difference operator
    >>> rel = dottest(lambda x: np.diff(x), shape=(4, 5), rmatvec=lambda y: D.T @ y)
    """
    if dtype is not None:
        _validate.dtype("dtype", dtype, kinds="fc")  # a vector dtype: float or complex
    rng = _validate.rng(rng)
    rtol = _validate.tolerance("rtol", rtol)  # NaN used to fail every test, a complex one to crash
    op = _as_op(A, shape, matvec, rmatvec, dtype)
    if op.rmatmat is None:
        raise TypeError("dottest needs the adjoint of a callable operator: pass rmatvec=g with g(y) = A^H y")
    gen = np.random.default_rng(rng)
    m, n = op.shape
    if m == 0 or n == 0:  # both inner products would be 0: a test that could not fail
        raise ValueError(f"dottest needs a non-empty operator, got shape {op.shape}")
    x = _gaussian(gen, (n, 1), op.dtype)
    y = _gaussian(gen, (m, 1), op.dtype)
    Ax = np.asarray(op.matmat(x)).reshape(-1).astype(np.complex128 if _is_complex(op.dtype) else np.float64)
    AHy = np.asarray(op.rmatmat(y)).reshape(-1).astype(np.complex128 if _is_complex(op.dtype) else np.float64)
    if Ax.size != m or AHy.size != n:
        raise AssertionError(f"dot test: A x has {Ax.size} entries (expected {m}), A^H y has {AHy.size} (expected {n})")
    x64, y64 = x.reshape(-1).astype(Ax.dtype), y.reshape(-1).astype(Ax.dtype)
    lhs = np.vdot(y64, Ax)
    rhs = np.vdot(AHy, x64)
    if rtol is None:
        rtol = default_rtol(op.dtype)
    scale = float(np.linalg.norm(Ax) * np.linalg.norm(y64) + np.linalg.norm(x64) * np.linalg.norm(AHy))
    rel = float(abs(lhs - rhs)) / max(scale, 1e-300)
    if not rel <= rtol:
        show = (lambda z: repr(float(z.real)) if not _is_complex(op.dtype) else repr(complex(z)))
        raise AssertionError(
            f"dot test failed ({op.kind}, {op.dtype}, shape {op.shape}): <Ax, y> = {show(lhs)}, "
            f"<x, A^H y> = {show(rhs)}, relative difference {rel:.3e} > rtol {rtol:g}"
        )
    return rel


@dataclass(frozen=True)
class SameOperatorReport:
    """What :func:`assert_same_operator` checked.

    Attributes
    ----------
    mode : {"exact", "probe"}
        ``"exact"``: every column compared (identity blocks); ``"probe"``: Gaussian probes.
    vectors : int
        Columns (exact) or probes applied to each operator.
    max_abs_diff : float
        Largest :math:`|(A-B)x|` entry seen.
    max_tolerance : float
        Largest per-entry tolerance :math:`\\tau` used (``atol + rtol |Bx|``).
    failure_probability : float
        Probability that a difference was missed: ``0.0`` in exact mode; in probe mode the bound
        :math:`(\\sqrt{2/\\pi}\\,\\tau/\\delta)^k` for a difference row of norm ``delta = min_detectable``
        (see :func:`assert_same_operator`).
    min_detectable : float
        In probe mode, the row norm of :math:`A-B` above which a difference is missed with
        probability at most ``failure_probability`` (which is then ``1e-9``); ``0.0`` in exact mode.
    """

    mode: str
    vectors: int
    max_abs_diff: float
    max_tolerance: float
    failure_probability: float
    min_detectable: float

    def __str__(self) -> str:
        if self.mode == "exact":
            return f"exact check on all {self.vectors} basis vectors (max |A-B| entry {self.max_abs_diff:.3e})"
        return (f"{self.vectors} Gaussian probes: a difference row of norm >= {self.min_detectable:.3e} "
                f"escapes all of them with probability <= {self.failure_probability:.1e}; max |(A-B)x| "
                f"{self.max_abs_diff:.3e}")


_TARGET_FAILURE = 1e-9


def assert_same_operator(A: Any, B: Any, *, rtol: float | None = None, atol: float | None = None,
                         exact_below: int = 2048, probes: int = 8, block: int = 256,
                         rng: np.random.Generator | int | None = 0, shape: Any = None) -> SameOperatorReport:
    r"""Check that two operators are equal, without densifying either.

    Small operators (``n <= exact_below`` columns) are compared exactly on the standard basis:
    both are applied to identity blocks of ``block`` columns at a time (memory ``m * block``), so
    every entry is compared. Larger ones are compared on ``probes`` random Gaussian vectors
    :math:`x_1,\dots,x_k`.

    Failure probability of probing: for a nonzero difference :math:`D = A - B` and a Gaussian
    probe :math:`x`, :math:`Dx = 0` has probability 0 (the kernel of :math:`D` is a proper
    subspace). With floats, entry :math:`i` passes when :math:`|(Dx)_i| \le \tau_i`,
    :math:`\tau_i = \mathrm{atol} + \mathrm{rtol}\,|(Bx)_i|`. As :math:`(Dx)_i\sim
    N(0,\|d_i\|^2)` (:math:`d_i` row :math:`i` of :math:`D`), one probe misses it with
    probability at most :math:`\sqrt{2/\pi}\,\tau/\|d_i\|`, and all :math:`k` independent probes
    with probability at most

    .. math::

        \Bigl(\sqrt{2/\pi}\;\tau/\|d_i\|\Bigr)^k,\qquad \tau = \max_i \tau_i .

    The returned report (and the AssertionError) states ``k``, ``tau`` and the row norm
    ``min_detectable`` above which that bound is at most ``1e-9``. In exact mode the failure
    probability is 0.

    Parameters
    ----------
    A, B : operator
        Any kind :func:`dottest` takes (they may differ: a torch tensor against a SciPy matrix);
        a callable needs ``shape``.
    rtol : float, optional
        Default :func:`default_rtol` of the less precise operand (``1e-10`` float64, ``1e-4``
        float32).
    atol : float, optional
        Default: ``rtol`` times the largest :math:`|Bx|` entry of each probe (the scale floats
        lose to cancellation); pass ``0`` for a purely relative comparison.
    exact_below : int
        Largest column count checked exactly on basis vectors.
    probes : int
        Number ``k`` of Gaussian probes for larger operators.
    block : int
        Columns per identity block in exact mode.
    rng : Generator or int, optional
    shape : (m, n), optional
        Shape of a callable operand.

    Returns
    -------
    SameOperatorReport

    Raises
    ------
    AssertionError
        When the shapes or any compared entry differ; the message names the first differing
        entry (exact mode) or probe, and the failure probability.
    """
    rtol, atol = _validate.tolerance("rtol", rtol), _validate.tolerance("atol", atol)
    exact_below = _validate.nonnegative_int("exact_below", exact_below)
    probes = _validate.positive_int("probes", probes)
    block = _validate.positive_int("block", block)
    rng = _validate.rng(rng)
    if shape is not None:
        _shape2("shape", shape)
    opA = _as_op(A, shape if callable(A) and not hasattr(A, "shape") else None, name="A")
    opB = _as_op(B, shape if callable(B) and not hasattr(B, "shape") else None, name="B")
    if opA.shape != opB.shape:
        raise AssertionError(f"shape {opA.shape} (A) != shape {opB.shape} (B)")
    m, n = opA.shape
    if rtol is None:
        rtol = default_rtol(opA.dtype, opB.dtype)
    probes = int(probes)
    if probes < 1:
        raise ValueError(f"probes must be at least 1, got {probes}")
    block = max(1, int(block))
    complex_ = _is_complex(opA.dtype) or _is_complex(opB.dtype)
    wide = np.complex128 if complex_ else np.float64
    max_diff = 0.0
    max_tau = 0.0

    def compare(X: np.ndarray, what: Callable[[int], str]) -> None:
        nonlocal max_diff, max_tau
        YA = np.asarray(opA.matmat(X.astype(_np_dtype(opA.dtype)))).reshape(m, -1).astype(wide)
        YB = np.asarray(opB.matmat(X.astype(_np_dtype(opB.dtype)))).reshape(m, -1).astype(wide)
        diff = np.abs(YA - YB)
        absB = np.abs(YB)
        if atol is None:
            floor = rtol * (absB.max(axis=0, keepdims=True) if absB.size else np.zeros((1, X.shape[1])))
        else:
            floor = np.full((1, X.shape[1]), float(atol))
        tau = floor + rtol * absB
        if diff.size:
            max_diff = max(max_diff, float(diff.max()))
            max_tau = max(max_tau, float(tau.max()))
        bad = ~(diff <= tau)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise AssertionError(
                f"operators differ ({opA.kind} vs {opB.kind}, shape {opA.shape}): {what(j)}, row {i}: "
                f"A gives {_num(YA[i, j], complex_)}, B gives {_num(YB[i, j], complex_)}, |difference| {diff[i, j]:.3e} > tolerance "
                f"{tau[i, j]:.3e} ({int(bad.sum())} entries over tolerance in this block)"
            )

    # the basis block or the probes (n x cols), both products, their difference, magnitudes and
    # tolerances (m x cols each, complex at most): refused before allocating (probes=10**12)
    cols = min(block, n) if n <= exact_below else probes
    from ..algebra._operator import check_bytes

    check_bytes("assert_same_operator", 16 * cols * (n + 6 * m),
                f"{cols:,} {'basis vectors' if n <= exact_below else 'probes'} of a {m:,}x{n:,} operator")
    if n <= exact_below:
        for c0 in range(0, n, block):
            c1 = min(n, c0 + block)
            E = np.zeros((n, c1 - c0))
            E[np.arange(c0, c1), np.arange(c1 - c0)] = 1.0
            compare(E, lambda j, c0=c0: f"column {c0 + j} (exact check on basis vectors)")
        return SameOperatorReport("exact", n, max_diff, max_tau, 0.0, 0.0)
    gen = np.random.default_rng(rng)
    X = gen.standard_normal((n, probes))
    if "double" not in (_precision(opA.dtype), _precision(opB.dtype)) or _precision(opA.dtype) != _precision(opB.dtype):
        X = X.astype(np.float16 if "half" in (_precision(opA.dtype), _precision(opB.dtype)) else np.float32)
        X = X.astype(np.float64)  # both operands get the same (representable) probes
    c = math.sqrt(2.0 / math.pi)
    # smallest row norm delta with (c tau / delta)^k <= target; probes checked before the bound is known
    report_bound = lambda tau: c * tau / _TARGET_FAILURE ** (1.0 / probes)  # noqa: E731
    try:
        compare(X, lambda j: f"Gaussian probe {j} of {probes}")
    except AssertionError as e:
        raise AssertionError(f"{e}; checked by {probes} Gaussian probes (a zero difference never fails a "
                             f"probe, so this difference is real up to the tolerance)") from None
    return SameOperatorReport("probe", probes, max_diff, max_tau, _TARGET_FAILURE, report_bound(max_tau))


def _num(v: Any, complex_: bool) -> str:
    return repr(complex(v)) if complex_ else repr(float(v.real))


def _np_dtype(dtype: Any) -> Any:
    return np.float32 if str(dtype) == "bfloat16" else np.dtype(dtype)


def assert_matches_dense(structured: Any, dense: Any, *, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    """Every structured rendering equals its dense reference (exactly for SymPy input).

    Densifies both: for small operators. For large ones use :func:`assert_same_operator`.
    """
    import sympy

    rtol = _validate.tolerance("rtol", rtol, optional=False)
    atol = _validate.tolerance("atol", atol, optional=False)
    for name, M in (("structured", structured), ("dense", dense)):
        if not hasattr(M, "shape") or len(getattr(M, "shape", ())) != 2:
            raise TypeError(f"{name} must be a matrix (an object with a 2-d shape), got {type(M).__name__}")
        if 0 in tuple(M.shape):  # an empty comparison would pass whatever the operators are
            raise ValueError(f"{name} must be a non-empty matrix, got shape {tuple(M.shape)}")

    if isinstance(structured, sympy.MatrixBase) or isinstance(dense, sympy.MatrixBase):
        S, D = sympy.Matrix(structured), sympy.Matrix(dense)
        if S.shape != D.shape:
            raise AssertionError(f"shape {S.shape} != reference shape {D.shape}")
        diff = (S - D).applyfunc(sympy.simplify)
        if not diff.is_zero_matrix:
            raise AssertionError(f"exact mismatch:\n{diff}")
        return
    S, D = _host(structured), _host(dense)
    if S.shape != D.shape:
        raise AssertionError(f"shape {S.shape} != reference shape {D.shape}")
    np.testing.assert_allclose(S, D, rtol=rtol, atol=atol)
