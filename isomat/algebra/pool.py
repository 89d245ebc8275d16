r"""Pooling layers as sparse matrices (zhu2025 §4.2.2).

Average pooling is linear: :func:`avgpool_matrix` is its exact matrix, equal to
``torch.nn.functional.avg_pool{1,2,3}d``. Max pooling is not linear; for one particular input
:math:`x` it equals a 0/1 *selection* matrix, :func:`maxpool_selection`, with one 1 per row at the
arg-max of each window, :math:`\operatorname{maxpool}(x)=S(x)\,x`.

The paper's :math:`W_{pool}` of §4.2.2, :math:`W_{pool}[q, qp^2+r]=1/p^2`, is
:func:`zhu_pool_matrix`, under row-major flattening (as Assumption 4.1 says) or under
patch-major flattening (pixels listed window by window, :func:`patch_major_order`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from .. import _validate
from . import _backend
from ._operator import SparseOperator, check_bytes, check_size, render
from .conv import _blocks, _build, _check_stored, _Plan


def _window_plan(input_shape: Any, window: Any, stride: Any, padding: Any, ndim: int | None,
                 ceil_mode: bool = False, dilation: Any = 1) -> _Plan:
    """The pooling geometry. ``input_shape`` is ``(C, n1..nd)`` or ``(n1..nd)``, as in torch; the number ``d``
    of spatial axes comes from a tuple ``window`` or from ``ndim``, never from a guess: an int window with a
    shape of more than one axis is ambiguous (``(3, 32, 32)`` is three channels of 32×32 for torch's avg_pool2d,
    one 3×32×32 volume for avg_pool3d) and is refused."""
    shape = _validate.shape("input_shape", input_shape)
    if ndim is not None:
        ndim = _validate.positive_int("ndim", ndim)
    if isinstance(window, (tuple, list)):  # its length is the number of spatial axes
        d = len(window)
        if ndim is not None and ndim != d:
            raise ValueError(f"ndim={ndim} contradicts the {d}-entry window {tuple(window)}")
    elif ndim is not None:
        d = ndim
    elif len(shape) == 1:
        d = 1
    else:
        spatial = ", ".join(f"n{i + 1}" for i in range(len(shape) - 1))
        raise ValueError(
            f"window={window!r} does not say how many of the {len(shape)} axes of input_shape={shape} are spatial: "
            f"pass ndim= (ndim={len(shape) - 1} reads it as (C, {spatial}), torch's layout for "
            f"avg_pool{len(shape) - 1}d; ndim={len(shape)} pools all axes of one channel) or a window with one "
            f"entry per spatial axis")
    if len(shape) not in (d, d + 1):
        raise ValueError(f"input_shape={shape} must be (n1..n{d}) or (C, n1..n{d}) for a {d}-d window; "
                         f"{len(shape)} axes given")
    # torch broadcasts a single int -- or a 1-entry tuple -- to every spatial axis
    win = _validate.int_tuple("window", window, d, minimum=1)
    st = win if stride is None else _validate.int_tuple("stride", stride, d, minimum=1)
    pad = _validate.int_tuple("padding", padding, d, minimum=0)
    dil = _validate.int_tuple("dilation", dilation, d, minimum=1)
    for p, k in zip(pad, win):
        if 2 * p > k:  # torch's rule, whatever the dilation
            raise ValueError(f"padding must be at most half the window (as torch), got padding {pad} for window {win}")
    for axis, (n, k, p, dl) in enumerate(zip(shape[-d:], win, pad, dil)):
        # said here in the words of pooling (the geometry shared with convolution speaks of a kernel)
        if dl * (k - 1) + 1 > n + 2 * p:
            spans = f" (dilation {dl}: it spans {dl * (k - 1) + 1} entries)" if dl > 1 else ""
            raise ValueError(f"window {win}{spans} is larger than the input along spatial axis {axis}: "
                             f"input_shape={shape} with padding {pad} gives {n + 2 * p} entries there, "
                             f"the window needs {dl * (k - 1) + 1}")
    if not isinstance(ceil_mode, bool):
        raise TypeError(f"ceil_mode must be a bool, got {ceil_mode!r}")
    extra = None
    if ceil_mode:  # torch's output size: rounded up, but the last window starts inside input + left padding
        spatial = shape[-d:]
        extra = []
        for n, k, s, p, dl in zip(spatial, win, st, pad, dil):
            ext = dl * (k - 1) + 1
            out = (n + 2 * p - ext + s - 1) // s + 1
            if (out - 1) * s >= n + p:
                out -= 1
            extra.append(max(0, (out - 1) * s + ext - (n + 2 * p)))
    return _Plan(shape, win, st, pad, dil, "zero", depthwise=True, extra_hi=extra)


def _divisors(plan: _Plan, pad: tuple[int, ...], count_include_pad: bool) -> np.ndarray:
    """The divisor of each output position (row-major over the output grid), as torch's avg_pool:
    the window clipped to the padded input (``count_include_pad``) or to the input itself."""
    grid = np.ones(1, dtype=np.int64)
    for i in range(plan.d):
        start = np.arange(plan.out[i], dtype=np.int64) * plan.stride[i] - pad[i]
        end = start + plan.ktaps[i]
        n = plan.spatial[i]
        f = (np.minimum(end, n + pad[i]) - start) if count_include_pad else (np.minimum(end, n) - np.maximum(start, 0))
        grid = (grid[:, None] * f[None, :]).reshape(-1)
    return grid


def avgpool_matrix(input_shape: Any, window: Any, *, stride: Any = None, padding: Any = 0,
                   ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
                   ndim: int | None = None, backend: str = "numpy", format: str = "csr") -> Any:
    r"""Exact matrix of average pooling, equal to ``torch.nn.functional.avg_pool{1,2,3}d``.

    Row :math:`(c, o)` holds :math:`1/|w|` (``count_include_pad=True``; :math:`|w|` the window
    size) or :math:`1/(\text{taps inside the input})` at the columns of window :math:`o` of
    channel :math:`c`; channels do not mix (a block-diagonal :math:`I_C\otimes A`).

    Parameters
    ----------
    input_shape : tuple of int
        ``(n1, ..., nd)`` or ``(C, n1, ..., nd)``.
    window : int or tuple of int
        Window; a tuple fixes the number ``d`` of spatial axes. An int needs ``ndim`` unless
        ``input_shape`` has a single axis: ``(3, 32, 32)`` with ``window=2`` is refused, since torch
        reads it as 3 channels (``avg_pool2d``) or one volume (``avg_pool3d``). ``stride``,
        ``padding`` and ``dilation`` given as 1-tuples are broadcast to every axis, as torch does.
    stride : int or tuple, optional
        Default: the window (non-overlapping).
    padding : int or tuple
        Zero padding, at most half the window (torch's rule).
    ceil_mode : bool
        Round the output size up, as torch: a last, partial window is kept when it starts inside
        the input or its left padding.
    count_include_pad : bool
        Divide by the window size -- clipped to the padded input, which only a ``ceil_mode``
        window exceeds (torch's default) -- or by the taps inside the input.
    divisor_override : int, optional
        Divide every window sum by this non-zero integer instead (torch's ``divisor_override``; a
        negative divisor flips the sign, as in torch).
    ndim : int, optional
        Number of spatial axes (the trailing ones), for an int window.
    backend : {"numpy", "sympy", "cupy"}
        ``"sympy"`` gives exact Rationals.
    """
    field = _validate.backend(backend)
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator"))
    if not isinstance(count_include_pad, bool):
        raise TypeError(f"count_include_pad must be a bool, got {count_include_pad!r}")
    if divisor_override is not None:
        divisor_override = _validate.integer("divisor_override", divisor_override)
        if divisor_override == 0:
            raise ValueError("divisor_override must be a non-zero integer (torch divides every window sum by it), got 0")
    plan = _window_plan(input_shape, window, stride, padding, ndim, ceil_mode)
    # refuse before the per-window divisors (one per output position) are computed
    _check_stored(plan, 0, plan.n_out, field, staging=not (field == "numpy" and format == "csr"), what="avgpool_matrix")
    xp = _backend.array_module(field)
    K = plan.K
    pad = plan.lo  # the caller's padding (ceil_mode only adds on the high side)
    if divisor_override is not None:
        return _build(plan, _backend.rational(xp.ones((1, K), dtype=xp.int64), divisor_override, field, xp), None,
                      field, format)
    divisors = _divisors(plan, pad, count_include_pad)
    if bool((divisors == K).all()):  # no window clipped (always so without ceil_mode): one value for every entry
        return _build(plan, _backend.rational(xp.ones((1, K), dtype=xp.int64), K, field, xp), None, field, format)
    op = _build(plan, _backend.rational(xp.ones((1, K), dtype=xp.int64), K, field, xp), None, field, "operator")
    per_row = np.tile(divisors, plan.c_in)
    if field == "sympy":
        import sympy

        inv = np.array([sympy.Rational(1, int(c)) for c in per_row.tolist()], dtype=object)
        vals = inv[_backend.to_numpy(op.rows)]
    else:
        vals = (1.0 / xp.asarray(per_row, dtype=xp.float64))[op.rows]
    return render(SparseOperator.build(op.shape, op.rows, op.cols, vals, field), format)


def maxpool_selection(x: Any, window: Any, *, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                      ceil_mode: bool = False, ndim: int | None = None, format: str = "csr") -> Any:
    r"""The data-dependent 0/1 matrix :math:`S(x)` with :math:`S(x)\,x=\operatorname{maxpool}(x)`.

    Row :math:`(c, o)` has a single 1 at the first (row-major) position of the maximum of window
    :math:`o` of channel :math:`c` (padding reads :math:`-\infty`, as torch). ``S`` depends on
    ``x``: max pooling itself is not a matrix multiplication (zhu2025 §4.2.2).

    Parameters
    ----------
    x : array
        ``(n1..nd)`` or ``(C, n1..nd)``, NumPy or SymPy (exact comparisons).
    window, stride, padding, ceil_mode, ndim
        As :func:`avgpool_matrix` (and torch's ``max_pool``).
    dilation : int or tuple of int
        Spacing of the window's taps (torch's ``max_pool`` ``dilation``).
    """
    format = _validate.choice("format", format, ("csr", "csc", "coo", "operator"))
    field = _backend.field_of(x)
    xv = _backend.as_values(x, field, name="x")
    if xv.ndim == 0 or xv.size == 0:
        raise ValueError(f"x must be a non-empty array (n1..nd) or (C, n1..nd), got shape {tuple(xv.shape)}")
    if isinstance(x, complex) or (hasattr(xv, "dtype") and xv.dtype.kind == "c"):
        raise TypeError("x must be real: max pooling compares values, and complex numbers have no order")
    if field == "sympy":
        # the selection is decided by comparing values: a symbol or a complex number has no order
        unordered = [v for v in xv.reshape(-1) if not getattr(v, "is_extended_real", False) or getattr(v, "free_symbols", None)]
        if unordered:
            raise TypeError(f"x must hold real numbers, not symbols: max pooling compares values, and {unordered[0]} cannot be "
                            f"ordered ({len(unordered)} such entries)")
    plan = _window_plan(tuple(xv.shape), window, stride, padding, ndim, ceil_mode, dilation)
    check_size("maxpool_selection", (plan.n_out, plan.n_in), plan.n_out, field=field)
    xp = _backend.array_module(field)
    flat = xv.reshape(-1)
    chosen = []
    for _lo, _hi, _co, make in _blocks(plan, 0, plan.n_out, xp):
        cols, mask = make()
        if field == "sympy":
            import sympy

            v = np.empty(cols.shape, dtype=object)
            v[...] = flat[cols] if mask is None else np.where(mask, flat[np.where(mask, cols, 0)], -sympy.oo)
        else:
            v = flat[cols] if mask is None else xp.where(mask, flat[xp.where(mask, cols, 0)], -xp.inf)
        best = np.array([max(range(len(row)), key=cast(Callable[[int], Any], lambda j, row=row: (row[j], -j))) for row in v], dtype=np.int64) \
            if field == "sympy" else xp.argmax(v, axis=1)
        chosen.append(cols[xp.arange(cols.shape[0]), best])
    col = xp.concatenate(chosen) if chosen else xp.zeros(0, dtype=xp.int64)
    rows = xp.arange(plan.n_out, dtype=xp.int64)
    vals = _backend.rational(xp.ones(plan.n_out, dtype=xp.int64), 1, field, xp)
    return render(SparseOperator.build((plan.n_out, plan.n_in), rows, col, vals, field), format)


def patch_major_order(image_shape: Any, p: Any) -> np.ndarray:
    r"""Permutation :math:`\pi` listing an :math:`m\times n` image window by window.

    ``x_patch = x_rowmajor[pi]``: windows (:math:`p\times p`, non-overlapping) in row-major
    order of windows, pixels row-major inside each window. Needs :math:`p\mid m` and :math:`p\mid n`.
    """
    m, n = _validate.shape("image_shape", image_shape, ndim=2)
    p = _validate.positive_int("p", p)
    if m % p or n % p:
        raise ValueError(f"p = {p} must divide both image sides for a patch-major order, got image_shape {(m, n)}")
    # the row-major positions and their transposed copy: two int64 arrays of m n entries
    check_bytes("patch_major_order", 16 * m * n, f"the permutation of an {m}x{n} image")
    # a transpose, not the entry rule patch_major_pixel run vectorized: that costs 20-35% of zhu_pool_matrix's build at
    # 512² - 2048² (measured); the ledger checks this permutation against the rule instead (zhu2025 index-formula)
    a = np.arange(m * n).reshape(m // p, p, n // p, p)
    return a.transpose(0, 2, 1, 3).reshape(-1)


def patch_major_pixel(k: Any, n: Any, p: Any) -> Any:
    r"""Entry rule of :func:`patch_major_order`: position ``k`` of the patch-major listing of an
    :math:`m\times n` image (windows :math:`p\times p` in row-major order of windows, pixels row-major
    inside each) holds the row-major pixel

    .. math::

        \pi(k) = \big(p\lfloor w/(n/p)\rfloor + \lfloor t/p\rfloor\big)\,n + p\,(w \bmod n/p) + (t \bmod p),
        \qquad w = \lfloor k/p^2\rfloor,\ t = k \bmod p^2

    (zhu2025 §4.2.2; :math:`p\mid m`, :math:`p\mid n`). Written with :func:`isomat._types.fdiv`/``fmod``
    so it runs on ints, NumPy arrays (tested against :func:`patch_major_order`) and Z3 terms (proved
    in :mod:`isomat.proofs.zhu2025`)."""
    from .._types import fdiv, fmod

    w, t = fdiv(k, p * p), fmod(k, p * p)
    nb = fdiv(n, p)
    return (p * fdiv(w, nb) + fdiv(t, p)) * n + p * fmod(w, nb) + fmod(t, p)


def zhu_pool_matrix(image_shape: Any, p: Any, *, flattening: str = "row-major", backend: str = "numpy",
                    format: str = "csr") -> Any:
    r"""The paper's :math:`W_{pool}\in\mathbb{R}^{Q\times L}` of zhu2025 §4.2.2, as printed.

    .. math::

        L = mn,\quad Q=\frac{L}{p^2},\qquad W_{pool}[q,\;qp^2+r]=\frac{1}{p^2},\ r=0,\dots,p^2-1.

    ``flattening="row-major"`` returns this matrix as is, to act on the row-major ``vec`` of the
    image (Assumption 4.1). ``flattening="patch-major"`` returns :math:`W_{pool}\,\Pi`, the same
    printed matrix applied after re-listing the row-major vector window by window
    (:func:`patch_major_order`), so both act on the row-major ``vec``.
    """
    m, n = _validate.shape("image_shape", image_shape, ndim=2)
    p = _validate.positive_int("p", p)
    _validate.choice("flattening", flattening, ("row-major", "patch-major"))
    field = _validate.backend(backend)
    L = m * n
    if L % (p * p):
        raise ValueError(f"Q = L / p^2 must be an integer: L = {L}, p = {p}")
    Q = L // (p * p)
    check_size("zhu_pool_matrix", (Q, L), L, field=field)
    xp = _backend.array_module(field)
    rows = xp.repeat(xp.arange(Q, dtype=xp.int64), p * p)
    cols = (xp.arange(Q, dtype=xp.int64)[:, None] * (p * p) + xp.arange(p * p, dtype=xp.int64)[None, :]).reshape(-1)
    if flattening == "patch-major":
        cols = xp.asarray(patch_major_order((m, n), p))[cols]
    vals = _backend.rational(xp.ones(Q * p * p, dtype=xp.int64), p * p, field, xp)
    # rows in order, columns increasing within each (q p² + r, or a window's pixels row by row) and distinct
    return render(SparseOperator.build((Q, L), rows, cols, vals, field, canonical=True), format)


def pool_output_shape(input_shape: Any, window: Any, *, stride: Any = None, padding: Any = 0,
                      ceil_mode: bool = False, dilation: Any = 1, ndim: int | None = None) -> tuple[int, ...]:
    """Output shape of :func:`avgpool_matrix` / :func:`maxpool_selection` (``dilation``: max pooling's)."""
    plan = _window_plan(input_shape, window, stride, padding, ndim, ceil_mode, dilation)
    return plan.out if plan.single else (plan.c_in,) + plan.out


__all__ = ["avgpool_matrix", "maxpool_selection", "patch_major_order", "pool_output_shape", "zhu_pool_matrix"]
