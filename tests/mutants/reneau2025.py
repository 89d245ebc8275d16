"""reneau2025's mutants (see tests/mutants/__init__.py): the Kronecker and mode-product entry rules the proofs are
about, and the NdLinear builders and counting functions the claims check against their references."""

from __future__ import annotations

from . import Mutant
from .factories import plus_one, scaled


def _kron_entry_swapped(entry):
    def broken(row, col, a, b, shape_b):
        from isomat._types import fdiv, fmod
        p, q = shape_b
        # the column digits decoded with the row's radix
        return a(fdiv(row, p), fdiv(col, p)) * b(fmod(row, p), fmod(col, p))
    return broken


def _mode_product_entry_lead_only(entry):
    def broken(o, i, P, D, H, Q, w):
        from isomat._types import fdiv, fmod, ite
        # the row of X_matrix compared on the leading modes only (the trailing modes' index q ignored)
        p, h = fdiv(o, H * Q), fmod(fdiv(o, Q), H)
        p2, d = fdiv(i, D * Q), fmod(fdiv(i, Q), D)
        return ite(p == p2, w(h, d), 0 * w(h, d))
    return broken


def _kron_entry_second_at_quotients(entry):
    def broken(row, col, a, b, shape_b):
        from isomat._types import fdiv, fmod
        p, q = shape_b
        # the second factor read at the quotients too (its own digits, the remainders, lost)
        return a(fdiv(row, p), fdiv(col, q)) * b(fdiv(row, p), fdiv(col, q))
    return broken


def _first_weight_doubled(builder):
    def broken(weights, *args, **kwargs):
        ws = list(weights)
        ws[0] = 2 * ws[0]
        return builder(ws, *args, **kwargs)
    return broken


def _kron_operator_wrong_from_three(kron_operator):
    """F_1 ⊗ ⋯ ⊗ F_N with the last two factors swapped when N >= 3 (right for two factors)."""
    def broken(*factors, backend=None):
        fs = list(factors[0]) if len(factors) == 1 and isinstance(factors[0], (list, tuple)) else list(factors)
        if len(fs) >= 3:
            fs[-1], fs[-2] = fs[-2], fs[-1]
        return kron_operator(*fs, backend=backend)
    return broken


def _kron_operator_wrong_equal_shapes(kron_operator):
    """A ⊗ B computed as B ⊗ A when two consecutive factors have equal shapes (the same shape, so no size tells)."""
    def broken(*factors, backend=None):
        fs = list(factors[0]) if len(factors) == 1 and isinstance(factors[0], (list, tuple)) else list(factors)
        if len(fs) >= 2 and tuple(getattr(fs[0], "shape", ())) == tuple(getattr(fs[1], "shape", ())):
            fs[0], fs[1] = fs[1], fs[0]
        return kron_operator(*fs, backend=backend)
    return broken


MUTANTS = [
    Mutant("kron_operator-wrong-from-three-factors", "builder", "isomat.algebra.kron:kron_operator",
           _kron_operator_wrong_from_three, ("reneau2025:appa", "reneau2025:alg1"),
           "the last two Kronecker factors swapped when there are 3 or more; must become an error"),
    Mutant("kron_operator-wrong-equal-shapes", "builder", "isomat.algebra.kron:kron_operator",
           _kron_operator_wrong_equal_shapes, ("reneau2025:appa", "reneau2025:alg1"),
           "A ⊗ B computed as B ⊗ A when the first two factors have equal shapes; must become an error"),
    Mutant("kron_entry-wrong-radix", "entry rule", "isomat.algebra.kron:kron_entry", _kron_entry_swapped,
           ("reneau2025:appa", "reneau2025:alg1"), "the column of A ⊗ B decoded with the row radix p instead of q"),
    Mutant("kron_entry-doubled", "entry rule", "isomat.algebra.kron:kron_entry", scaled(),
           ("reneau2025:appa", "reneau2025:alg1"), "every Kronecker entry doubled"),
    Mutant("kron_entry-second-at-quotients", "entry rule", "isomat.algebra.kron:kron_entry", _kron_entry_second_at_quotients,
           ("reneau2025:appa",), "A ⊗ B's entry reads B at the quotients of the flat indices, not the remainders "
           "(the N-fold induction's step, and the two-factor proofs, break)"),
    Mutant("kron_rearrange_entry-doubled", "entry rule", "isomat.algebra.kron:kron_rearrange_entry", scaled(),
           ("reneau2025:appa",), "the Van Loan–Pitsianis rearrangement scaled by 2"),
    Mutant("mode_product_entry-doubled", "entry rule", "isomat.algebra.ndlinear:mode_product_entry", scaled(),
           ("reneau2025:sec2.2", "reneau2025:alg1"), "Algorithm 1's step entry rule scaled by 2"),
    Mutant("mode_product_entry-lead-only", "entry rule", "isomat.algebra.ndlinear:mode_product_entry",
           _mode_product_entry_lead_only, ("reneau2025:beyond/mode-order",),
           "Algorithm 1's step couples input and output rows that agree on the leading modes only (trailing index ignored)"),
    Mutant("mode_bias_entry-doubled", "entry rule", "isomat.algebra.ndlinear:mode_bias_entry", scaled(),
           ("reneau2025:alg1",), "Algorithm 1's step bias doubled"),
    Mutant("ndlinear_matrix-first-weight-doubled", "builder", "isomat.algebra.ndlinear:ndlinear_matrix",
           _first_weight_doubled, ("reneau2025:alg1", "reneau2025:beyond/mode-order"),
           "the flattened NdLinear operator built from 2·W_1"),
    Mutant("ndlinear_apply-first-weight-doubled", "builder", "isomat.algebra.ndlinear:ndlinear_apply",
           lambda f: (lambda X, weights, *a, **k: f(X, [2 * weights[0], *list(weights)[1:]], *a, **k)),
           ("reneau2025:alg1",), "ndlinear_apply with 2·W_1"),
    Mutant("ndlinear_param_count-plus-one", "builder", "isomat.algebra.ndlinear:ndlinear_param_count",
           plus_one(part="ndlinear"), ("reneau2025:sec3.1", "reneau2025:sec3.1/example"),
           "NdLinear's parameter count one too high"),
    Mutant("ndlinear_flops-plus-one", "builder", "isomat.algebra.ndlinear:ndlinear_flops", plus_one(part="ndlinear"),
           ("reneau2025:eq1", "reneau2025:eq1/example", "reneau2025:eq1/ndlinear-equal-modes"), "eq. (1)'s FLOP count one too high"),
    Mutant("lora_param_count-plus-one", "builder", "isomat.algebra.ndlinear:lora_param_count", plus_one(),
           ("reneau2025:tab1/qwen3-1.7b", "reneau2025:tab1/llama3-8b"), "LoRA's parameter count one too high"),
    Mutant("kronecker_factors-first-doubled", "builder", "isomat.algebra.kron:kronecker_factors", scaled(2, part=0),
           ("reneau2025:appa",), "the first recovered Kronecker factor doubled"),
    Mutant("alg1_step_muls-doubled", "axiom", "isomat.proofs.reneau2025._common:alg1_step_muls", scaled(),
           ("reneau2025:eq1",), "Algorithm 1's step counted with twice its multiplications (the eq. (1) induction's axiom)"),
    Mutant("alg1_step_size-doubled", "axiom", "isomat.proofs.reneau2025._common:alg1_step_size", scaled(),
           ("reneau2025:eq1", "reneau2025:appc/memory", "reneau2025:eq1/ndlinear-equal-modes"),
           "the intermediate after a step twice as large (the shape bookkeeping the eq. (1) and App. C inductions use)"),
    Mutant("xavier_bound-halved", "entry rule", "isomat.proofs.reneau2025._common:xavier_bound",
           lambda f: (lambda fan_in, fan_out: f(fan_in, fan_out) / 2), ("reneau2025:appc/init",),
           "App. C's Xavier half-width a = √(6/(D+H)) halved"),
    Mutant("linear_params-weight-plus-one", "entry rule", "isomat.proofs.reneau2025._common:linear_params",
           plus_one(part=0),
           ("reneau2025:sec3.1/dense-equal-modes", "reneau2025:sec3.1/ndlinear-equal-modes"),
           "one nn.Linear counted with one weight too many (the §3.1 equal-mode proofs' count)"),
    Mutant("linear_params-bias-dropped", "entry rule", "isomat.proofs.reneau2025._common:linear_params",
           scaled(0, part=1),
           ("reneau2025:sec3.1/dense-equal-modes", "reneau2025:sec3.1/ndlinear-equal-modes"),
           "one nn.Linear counted without its bias"),
    Mutant("matmul_muls-plus-one", "entry rule", "isomat.proofs.reneau2025._common:matmul_muls", plus_one(),
           ("reneau2025:eq1/dense-equal-modes", "reneau2025:eq1/ndlinear-equal-modes"),
           "a matrix product counted with one multiplication too many (the eq. (1) equal-mode proofs' count)"),
    Mutant("matmul_muls-one-row", "entry rule", "isomat.proofs.reneau2025._common:matmul_muls",
           lambda f: (lambda rows, inner, cols: f(1, inner, cols)),
           ("reneau2025:eq1/dense-equal-modes", "reneau2025:eq1/ndlinear-equal-modes"),
           "a (rows × inner) @ (inner × cols) product counted as if it had one row (the batch and reshaped rows lost)"),
]
