"""farag2025's mutants (see tests/mutants/__init__.py): the SPM builders, entry rules, backward passes and
the definitions the proofs rest on, each broken in one way."""

from __future__ import annotations

from . import Mutant
from .factories import plus_one, scaled

_BACKWARD = ("farag2025:eq15", "farag2025:eq16", "farag2025:eq17", "farag2025:eq18", "farag2025:eq19",
             "farag2025:sec4.2", "farag2025:sec4")


def _rotation_block_symmetric(rule):
    return lambda c, s: (c, s, s, c)  # [[c, s], [s, c]]: not a rotation


def _stage_odd_dropped(stage_operator):
    """The unpaired coordinate of an odd stage loses its diagonal entry (odd-dimension handling broken)."""
    def broken(layer, ell):
        import numpy as np
        from isomat.algebra._operator import SparseOperator

        op = stage_operator(layer, ell)
        if layer.n % 2 == 0:
            return op
        k = int(layer.single[ell])
        rows, cols = np.asarray(op.rows), np.asarray(op.cols)
        keep = ~((rows == k) & (cols == k))
        return SparseOperator.build(op.shape, rows[keep], cols[keep], np.asarray(op.values)[keep], layer.field)
    return broken


def _stage_transposed(stage_operator):
    """Every stage built transposed (B^T for B): a general block's b and c swapped, a rotation's angle negated."""
    def broken(layer, ell):
        from isomat.algebra._operator import SparseOperator

        op = stage_operator(layer, ell)
        return SparseOperator.build(op.shape, op.cols, op.rows, op.values, layer.field)
    return broken


def _partner_off_by_level(partner):
    return lambda i, P: partner(i, 2 * P)  # pairs i with i XOR 2^(l+1)


def _forward_bias_dropped(spm_forward):
    def broken(layer, X, *, return_cache=False):
        out = spm_forward(layer, X, return_cache=return_cache)
        if return_cache:
            return out[0] - layer.bias, out[1]
        return out - layer.bias
    return broken


def _param_count_no_depth(param_count):
    from isomat._types import fdiv, fmod
    return lambda n, L, p, s: p * fdiv(n, 2) + 3 * n + s * L * fmod(n, 2)  # the L stages counted once


def _gram_axiom_symmetric(proof):
    return lambda block=None: proof(lambda c, s: (c, s, s, c))


def _core_cost_halved(core):
    return lambda T, d: T * T * d  # scores and AV counted as T²d together


def _forward_ops_quadratic(ops):
    return lambda n, L, f: L * n * n * f  # a dense per-stage cost


def _forward_wrong_beyond(attr, bound, eps):
    """spm_forward off by a relative ``eps`` only when the layer's ``attr`` (n or L) exceeds ``bound``: right at every
    size the exhaustive and seeded checks used to reach (n <= 101, L <= 6)."""
    def mutate(spm_forward):
        def broken(layer, X, *, return_cache=False):
            out = spm_forward(layer, X, return_cache=return_cache)
            if getattr(layer, attr) <= bound:
                return out
            if return_cache:
                return out[0] * (1 + eps), out[1]
            return out * (1 + eps)
        return broken
    return mutate


def _backward_wrong_at_large_n(spm_backward):
    """Every gradient of spm_backward off by a relative 1e-9 when n > 101 (right at every smaller width)."""
    def broken(layer, X, G, *, cache=None):
        g = dict(spm_backward(layer, X, G, cache=cache))
        if layer.n > 101:
            g = {k: v * (1 + 1e-9) for k, v in g.items()}
        return g
    return broken


def _kernel_threads_wrong(SPMKernel):
    """SPMKernel's fused path, split over two or more threads, off by a relative 1e-7 in its output (the
    single-thread path and spm_forward are right)."""
    class Broken(SPMKernel):
        def forward(self, X):
            Y = super().forward(X)
            if self.path == "fused" and len(getattr(self, "parts", ())) > 1:
                return Y * (1 + 1e-7)
            return Y
    Broken.__name__ = SPMKernel.__name__
    return Broken


MUTANTS = [
    Mutant("spm-rotation-block-symmetric", "entry rule", "isomat.algebra.spm:rotation_block", _rotation_block_symmetric,
           ("farag2025:sec6.5", "farag2025:sec8.4/stages", "farag2025:sec3.1", "farag2025:sec3.2"),
           "the rotation block [[c, −s], [s, c]] replaced by [[c, s], [s, c]] (in the builder and the stage's definition)"),
    Mutant("spm-stage-odd-coordinate-dropped", "builder", "isomat.algebra.spm:stage_operator", _stage_odd_dropped,
           ("farag2025:sec6.5", "farag2025:sec8.4/stages", "farag2025:sec3.1", "farag2025:sec5/time", "farag2025:eq1"),
           "an odd stage's unpaired coordinate loses its diagonal entry (1 or the learned scale)"),
    Mutant("spm-stage-transposed", "builder", "isomat.algebra.spm:stage_operator", _stage_transposed,
           ("farag2025:sec2.1", "farag2025:sec3.2", "farag2025:sec6.5", "farag2025:eq1"),
           "every stage matrix built transposed (B^T instead of B)"),
    Mutant("butterfly-partner-wrong-level", "entry rule", "isomat.algebra.spm:butterfly_partner", _partner_off_by_level,
           ("farag2025:sec2.1",), "the butterfly partner at level ℓ is i XOR 2^(ℓ+1)"),
    Mutant("spm-backward-bias-doubled", "backward pass", "isomat.algebra.spm:spm_backward",
           scaled(2, part="bias"), ("farag2025:eq16", "farag2025:sec4"),
           "spm_backward's bias gradient doubled"),
    Mutant("spm-backward-input-gradient-scaled", "backward pass", "isomat.algebra.spm:spm_backward",
           scaled(1.001, part="x"),
           ("farag2025:eq15", "farag2025:eq18", "farag2025:sec4", "farag2025:sec7.3", "farag2025:eq7", "farag2025:eq8",
            "farag2025:eq12", "farag2025:eq13"),
           "spm_backward's input gradient off by 0.1%"),
    Mutant("spm-backward-params-sign", "backward pass", "isomat.algebra.spm:spm_backward",
           scaled(-1, part="params"),
           ("farag2025:sec4.2", "farag2025:sec4", "farag2025:eq9", "farag2025:eq14/a", "farag2025:eq14/b",
            "farag2025:eq14/c", "farag2025:eq14/d"),
           "spm_backward's stage-parameter gradients with the wrong sign"),
    Mutant("spm-backward-d-out-gradient", "backward pass", "isomat.algebra.spm:spm_backward",
           plus_one(part="d_out"), ("farag2025:eq17", "farag2025:sec4"),
           "spm_backward's output-diagonal gradient shifted by one"),
    Mutant("spm-backward-d-in-gradient", "backward pass", "isomat.algebra.spm:spm_backward",
           scaled(0, part="d_in"), ("farag2025:eq19", "farag2025:sec4"),
           "spm_backward's input-diagonal gradient zeroed"),
    Mutant("spm-forward-bias-dropped", "builder", "isomat.algebra.spm:spm_forward", _forward_bias_dropped,
           ("farag2025:eq1", "farag2025:sec8.4/stages"), "spm_forward forgets the bias b of eq. (4)"),
    Mutant("spm-param-count-without-depth", "entry rule", "isomat.algebra.spm:param_count", _param_count_no_depth,
           ("farag2025:sec5/params", "farag2025:sec5/ratio"), "param_count counts the stage parameters once, not L times"),
    Mutant("spm-gru-backward-input", "backward pass", "isomat.algebra.spm:spm_gru_backward", scaled(1.01, part="x"),
           ("farag2025:eq24", "farag2025:eq25", "farag2025:eq26", "farag2025:sec6.3", "farag2025:eq27",
            "farag2025:eq28", "farag2025:sec6.3/g-r", "farag2025:sec6.4"),
           "the SPM-GRU backward's ∂L/∂x_t off by 1%"),
    Mutant("spm-attention-backward-input", "backward pass", "isomat.algebra.spm:spm_attention_backward",
           scaled(2, part="X"),
           ("farag2025:eq36", "farag2025:eq37", "farag2025:eq38", "farag2025:eq39", "farag2025:sec7.3",
            "farag2025:sec7.4", "farag2025:sec7.4/jacobian"),
           "the SPM-attention backward's ∂L/∂X doubled"),
    Mutant("rotation-stage-axiom-symmetric", "axiom", "isomat.proofs.farag2025._common:_rotation_stage_gram_proof",
           _gram_axiom_symmetric, ("farag2025:sec6.5", "farag2025:sec8.4/stages"),
           "the definition 'rotation-stage' written with [[c, s], [s, c]] blocks: BᵀB = I must not be proved"),
    Mutant("attention-core-cost-halved", "axiom", "isomat.proofs.farag2025.sec7:_CORE", _core_cost_halved,
           ("farag2025:sec7.1",), "the cost model counts QKᵀ and AV as T²d together (half of 2T²d)"),
    Mutant("spm-forward-ops-quadratic", "entry rule", "isomat.proofs.farag2025.sec5:_forward_ops", _forward_ops_quadratic,
           ("farag2025:sec5/time", "farag2025:sec7.2/cost"), "the per-example forward count made L·n²·f (dense stages)"),
    Mutant("spm-forward-wrong-beyond-n101", "builder", "isomat.algebra.spm:spm_forward",
           _forward_wrong_beyond("n", 101, 1e-6), ("farag2025:eq1", "farag2025:sec8.4/stages"),
           "spm_forward off by 1e-6 (relative) only for n > 101, the widest size the checks used to reach"),
    Mutant("spm-forward-wrong-beyond-L6", "builder", "isomat.algebra.spm:spm_forward",
           _forward_wrong_beyond("L", 6, 1e-9), ("farag2025:eq1", "farag2025:sec8.4/stages"),
           "spm_forward off by 1e-9 (relative) only for L > 6 stages, the deepest the checks used to reach"),
    Mutant("spm-backward-wrong-at-large-n", "backward pass", "isomat.algebra.spm:spm_backward",
           _backward_wrong_at_large_n, ("farag2025:eq7", "farag2025:eq8", "farag2025:eq9", "farag2025:eq12", "farag2025:eq13", "farag2025:eq14/a", "farag2025:eq14/b", "farag2025:eq14/c", "farag2025:eq14/d", "farag2025:eq15", "farag2025:eq16", "farag2025:eq17", "farag2025:eq18", "farag2025:eq19", "farag2025:sec4.2", "farag2025:sec4", "farag2025:sec7.3"),
           "every spm_backward gradient off by 1e-9 (relative) only for n > 101"),
    Mutant("spmkernel-fused-threads-wrong", "builder", "isomat.algebra.spm:SPMKernel", _kernel_threads_wrong,
           ("farag2025:eq1", "farag2025:sec8.4/stages"),
           "SPMKernel's fused path (rotation, butterfly, n = 2^k) off by 1e-7 when its rows are split over threads"),
]
