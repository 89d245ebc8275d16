"""zhu2025's mutants (see tests/mutants/__init__.py)."""

from __future__ import annotations

from . import Mutant
from .factories import argument_plus_one, changed, plus_one, scaled

_CONV_RULE_CLAIMS = ("zhu2025:thm4.1/forward", "zhu2025:thm4.1/half-bandwidth", "zhu2025:thm4.1/one-to-one",
                     "zhu2025:sec4.2/upper-triangular", "zhu2025:sec4.2.1/bijective",
                     "zhu2025:sec4.2.1/equals-convolution")
_RNN_CLAIMS = ("zhu2025:thm4.2/block-form", "zhu2025:thm4.2/strictly-lower-triangular", "zhu2025:sec4.3/main-text-shapes")


def _shift_columns(conv_matrix):
    def broken(*args, **kwargs):
        W = conv_matrix(*args, **kwargs)
        if hasattr(W, "tocoo"):
            import scipy.sparse as sp
            C = W.tocoo()
            return sp.csr_array(((C.data), (C.row, (C.col + 1) % C.shape[1])), shape=C.shape)
        import sympy
        return sympy.Matrix(W.rows, W.cols, lambda i, j: W[i, (j - 1) % W.cols])
    return broken


def _reverse_kernel(zhu_conv_matrix):
    def broken(image_shape, kernel, *args, **kwargs):
        import numpy as np
        import sympy
        if isinstance(kernel, sympy.MatrixBase):
            k = sympy.Matrix(kernel.rows, kernel.cols, lambda i, j: kernel[kernel.rows - 1 - i, kernel.cols - 1 - j])
        else:
            k = np.asarray(kernel)[::-1, ::-1].copy()
        return zhu_conv_matrix(image_shape, k, *args, **kwargs)
    return broken


def _pixel_transposed_window(patch_major_pixel):
    """Pixels inside each window listed column by column instead of row by row."""
    from isomat._types import fdiv, fmod

    def broken(k, n, p):
        w, t = fdiv(k, p * p), fmod(k, p * p)
        nb = fdiv(n, p)
        return (p * fdiv(w, nb) + fmod(t, p)) * n + p * fmod(w, nb) + fdiv(t, p)
    return broken


def _rnn_transposed_V(rnn_matrix):
    def broken(U, V, steps, **kwargs):
        import numpy as np
        import sympy
        Vt = V.T if isinstance(V, sympy.MatrixBase) else np.asarray(V).T.copy()
        return rnn_matrix(U, Vt, steps, **kwargs)
    return broken


def _window_offsets_unbounded(window_hypotheses):
    """The pooling windows' hypotheses with the offset bounds a < p, b < p dropped."""
    def broken(ma, nb, p, I, J, a, b):
        hyp, fa = window_hypotheses(ma, nb, p, I, J, a, b)
        return [h for h in hyp if not (str(h) in (str(a < p), str(b < p)))], fa
    return broken


def _colmajor_as_rowmajor(rowmajor_pixel):
    def broken(k, n):
        from isomat._types import fdiv, fmod
        return fmod(k, n), fdiv(k, n)
    return broken


def _cubic_entry_wrong_token(cubic_entry):
    def broken(k, c, kp, b, i, e, ip, f, G, V, when):
        return when([kp == k, ip == kp], G(b, e) * V(f, c))   # the value row i' pinned to k instead of i
    return broken


def _spatial(shape):
    """The spatial sizes of an input_shape (trailing two axes: (H, W) or (C, H, W))."""
    return tuple(shape)[-2:]


def _one_entry_doubled(A):
    """A's first stored entry doubled (sparse results), A itself otherwise."""
    if hasattr(A, "data") and getattr(A, "nnz", 0):
        A = A.copy()
        A.data[0] *= 2
    return A




def _wrong_above(size_of, limit):
    """A builder that is right up to ``limit`` and wrong (one entry doubled) above it -- the defect only a check
    at larger sizes sees."""
    return changed(_one_entry_doubled, when=lambda *args, **kwargs: size_of(*args, **kwargs) > limit)


def _conv_pixels(input_shape, *args, **kwargs):
    H, W = _spatial(input_shape)
    return H * W


def _zhu_side(image_shape, *args, **kwargs):
    return max(image_shape)


def _pool_windows_a_side(image_shape, p, *args, **kwargs):
    return max(image_shape) // p


def _rnn_steps(U, V, steps, *args, **kwargs):
    return steps


def _attention_steps(T, *args, **kwargs):
    return T + 5  # wrong from T = 4 on (4 + 5 > 8)


def _option_ignored(name, value):
    """A builder that ignores its option ``name``, always using ``value``."""
    def mutate(builder):
        def broken(*args, **kwargs):
            kwargs[name] = value
            return builder(*args, **kwargs)
        return broken
    return mutate


def _later_blocks_shifted(blocks):
    """conv's block generator with every block after the first reading one column to the right: wrong only where
    a build takes more than one block (above ~2^17 entries at the default threshold)."""
    def broken(*args, **kwargs):
        for n, (lo, hi, co, make) in enumerate(blocks(*args, **kwargs)):
            if n == 0:
                yield lo, hi, co, make
                continue

            def shifted(scratch=None, make=make):
                c, m = make(scratch)
                return c + 1, m
            yield lo, hi, co, shifted
    return broken


def _every_entry_plus_one(builder):
    """Every entry of an exact (SymPy) result plus one: no zero left."""
    def broken(*args, **kwargs):
        W = builder(*args, **kwargs)
        if hasattr(W, "applyfunc"):
            return W.applyfunc(lambda v: v + 1)
        return W
    return broken


_CONV_BOUND_CLAIMS = ("zhu2025:thm4.1/forward", "zhu2025:thm4.1/half-bandwidth", "zhu2025:thm4.1/one-to-one",
                      "zhu2025:sec4.2/upper-triangular", "zhu2025:sec4.2.1/bijective", "zhu2025:sec4.2.1/equals-convolution",
                      "zhu2025:thm4.1/circular")
_POOL_BOUND_CLAIMS = ("zhu2025:sec4.2.2/q", "zhu2025:sec4.2.2/index-formula")
_AVGPOOL_BOUND_CLAIMS = ("zhu2025:sec4.2.2/isomorphism", "zhu2025:sec4.2.2/display")
_RNN_BOUND_CLAIMS = ("zhu2025:thm4.2/block-form", "zhu2025:thm4.2/strictly-lower-triangular",
                     "zhu2025:sec4.3/main-text-shapes")

#: issue 36's classes of defects that only appear where no check looked (each must turn its claims into errors)
BOUND_MUTANTS = [
    Mutant("conv_matrix-wrong-above-24x24", "builder", "isomat.algebra.conv:conv_matrix",
           _wrong_above(_conv_pixels, 576), _CONV_BOUND_CLAIMS,
           "conv_matrix right up to H·W = 576 (24×24) and wrong (one entry doubled) above"),
    Mutant("zhu_conv_matrix-wrong-above-30", "builder", "isomat.algebra.conv:zhu_conv_matrix",
           _wrong_above(_zhu_side, 30), ("zhu2025:sec4.2.1/upper-triangular", "zhu2025:sec4.2.1/equals-convolution"),
           "zhu_conv_matrix right up to m, n <= 30 and wrong above"),
    Mutant("zhu_pool_matrix-wrong-above-10-windows", "builder", "isomat.algebra.pool:zhu_pool_matrix",
           _wrong_above(_pool_windows_a_side, 10), _POOL_BOUND_CLAIMS,
           "zhu_pool_matrix right up to 10 windows a side and wrong above"),
    Mutant("rnn_matrix-wrong-above-T8", "builder", "isomat.algebra.rnn:rnn_matrix", _wrong_above(_rnn_steps, 8),
           _RNN_BOUND_CLAIMS, "rnn_matrix right up to T = 8 steps and wrong above"),
    Mutant("avgpool_matrix-ceil_mode-ignored", "builder", "isomat.algebra.pool:avgpool_matrix",
           _option_ignored("ceil_mode", False), _AVGPOOL_BOUND_CLAIMS, "avgpool_matrix ignores ceil_mode (rounds down)"),
    Mutant("avgpool_matrix-count_include_pad-ignored", "builder", "isomat.algebra.pool:avgpool_matrix",
           _option_ignored("count_include_pad", True), _AVGPOOL_BOUND_CLAIMS,
           "avgpool_matrix ignores count_include_pad (always divides by the padded window)"),
    Mutant("avgpool_matrix-divisor_override-ignored", "builder", "isomat.algebra.pool:avgpool_matrix",
           _option_ignored("divisor_override", None), _AVGPOOL_BOUND_CLAIMS,
           "avgpool_matrix ignores divisor_override (always divides by the window)"),
    Mutant("linear_attention_matrix-wrong-from-T4", "builder", "isomat.algebra.attention:linear_attention_matrix",
           _wrong_above(_attention_steps, 8), ("zhu2025:beyond/attention-cubic-form",),
           "linear_attention_matrix right for T <= 3 and wrong from T = 4 on"),
    Mutant("conv-blocks-after-the-first-shifted", "builder", "isomat.algebra.conv:_blocks", _later_blocks_shifted,
           _CONV_BOUND_CLAIMS[:6] + _AVGPOOL_BOUND_CLAIMS,
           "conv_matrix's (and avgpool_matrix's) fill wrong in every block after the first: a size-threshold path"),
    Mutant("zhu_w_sa-no-zero-entries", "builder", "isomat.algebra.attention:zhu_w_sa", _every_entry_plus_one,
           ("zhu2025:thm4.3/sparsity",),
           "A.3's W_SA with every entry plus one: a refuted verdict must not rest on it (it becomes an error)"),
]

MUTANTS = [
    Mutant("conv_matrix-columns-shifted", "builder", "isomat.algebra.conv:conv_matrix", _shift_columns,
           _CONV_RULE_CLAIMS + ("zhu2025:thm4.1/circular", "zhu2025:sec8/nonlinearity"),
           "every column index of the convolution matrix shifted by one (cyclically)"),
    Mutant("conv_matrix-values-doubled", "builder", "isomat.algebra.conv:conv_matrix", scaled(),
           _CONV_RULE_CLAIMS + ("zhu2025:thm4.1/circular",), "every entry of the convolution matrix doubled"),
    Mutant("zhu_conv_matrix-kernel-reversed", "builder", "isomat.algebra.conv:zhu_conv_matrix", _reverse_kernel,
           ("zhu2025:sec4.2.1/upper-triangular", "zhu2025:sec4.2.1/equals-convolution"),
           "W_conv of §4.2.1 built from the kernel flipped in both axes"),
    Mutant("zhu_conv_rows-one-more", "builder", "isomat.algebra.conv:zhu_conv_rows", plus_one(),
           ("zhu2025:sec4.2.1/p-formula", "zhu2025:sec4.2.1/upper-triangular", "zhu2025:sec4.2.1/equals-convolution"),
           "the printed P of §4.2.1 one row too many"),
    Mutant("conv2d_tap-column-off-by-one", "entry rule", "isomat.algebra.conv:conv2d_tap", argument_plus_one("col"),
           _CONV_RULE_CLAIMS + ("zhu2025:sec4.2.2/isomorphism", "zhu2025:sec4.2.2/display"),
           "the convolution's entry rule read one column to the right"),
    Mutant("zhu_conv_tap-stride-off", "entry rule", "isomat.algebra.conv:zhu_conv_tap", argument_plus_one("s"),
           ("zhu2025:sec4.2.1/upper-triangular", "zhu2025:sec4.2.1/equals-convolution"),
           "W_conv's entry rule with stride s + 1"),
    Mutant("patch_major_pixel-window-transposed", "entry rule", "isomat.algebra.pool:patch_major_pixel",
           _pixel_transposed_window, ("zhu2025:sec4.2.2/index-formula",),
           "the patch-major entry rule lists each window's pixels column by column"),
    Mutant("zhu_pool_matrix-values-doubled", "builder", "isomat.algebra.pool:zhu_pool_matrix", scaled(),
           ("zhu2025:sec4.2.2/index-formula", "zhu2025:sec4.2.2/q"), "W_pool's entries 2/p² instead of 1/p²"),
    Mutant("avgpool_matrix-values-doubled", "builder", "isomat.algebra.pool:avgpool_matrix", scaled(),
           ("zhu2025:sec4.2.2/isomorphism", "zhu2025:sec4.2.2/display"), "average pooling's entries doubled"),
    Mutant("rnn_matrix-V-transposed", "builder", "isomat.algebra.rnn:rnn_matrix", _rnn_transposed_V,
           _RNN_CLAIMS, "W_RNN built with V^T for V"),
    Mutant("zhu_rnn_main_text-values-doubled", "builder", "isomat.algebra.rnn:zhu_rnn_main_text", scaled(),
           ("zhu2025:sec4.3/scalar", "zhu2025:sec4.3/main-text-order"),
           "the main text's W_rnn built with every block doubled"),
    Mutant("pool-window-offsets-unbounded", "hypothesis", "isomat.proofs.zhu2025.sec4_2:_window_hypotheses",
           _window_offsets_unbounded, ("zhu2025:sec4.2.2/index-formula", "zhu2025:sec4.2.2/isomorphism"),
           "the pooling proofs' hypotheses without the window offset bounds a, b < p"),
    Mutant("zhu_w_sa-values-doubled", "builder", "isomat.algebra.attention:zhu_w_sa", scaled(), ("zhu2025:thm4.3/w-sa",),
           "A.3's W_SA built with every entry doubled"),
    Mutant("linear_attention_matrix-values-doubled", "builder", "isomat.algebra.attention:linear_attention_matrix",
           scaled(), ("zhu2025:beyond/attention-cubic-form",), "the cubic attention operator with every entry doubled"),
    Mutant("rowmajor-pixel-is-colmajor", "entry rule", "isomat.proofs.zhu2025._common:_rowmajor_pixel",
           _colmajor_as_rowmajor, ("zhu2025:sec4.1.2/row-major",),
           "Data2Matrix's row-major position rule replaced by the column-major one"),
    Mutant("cubic-attention-entry-value-row-is-query-row", "entry rule", "isomat.proofs.zhu2025.sec4_4:_cubic_entry",
           _cubic_entry_wrong_token, ("zhu2025:beyond/attention-cubic-form",),
           "the cubic attention operator's entry rule reads the value row i' = k instead of i' = i"),
]

MUTANTS += BOUND_MUTANTS
