"""farag2025 §3: per-pair mathematics, rotation (5)-(9) and general (10)-(14) blocks."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared references, imports and helpers)


# ---------------------------------------------------------------------------------------------
# §3: per-pair mathematics
# ---------------------------------------------------------------------------------------------

#: what the per-pair identities of §3 quantify over (generic real symbols, no size involved)
FORALL_ROT = "for all real θ, x1, x2, δ1, δ2 (generic SymPy symbols; one 2×2 block, no size involved)"
FORALL_GEN = "for all real a, b, c, d, x1, x2, δ1, δ2 (generic SymPy symbols; one 2×2 block, no size involved)"
#: the domain both state for the symbols (engine.symbolic_zero checks it implies the symbols' assumptions)
PAIR_DOMAIN = {str(v): "real" for v in (th, x1, x2, d1, d2, a_, b_, c_, d_)}


def _pair_grad_claim(y1, y2, var, printed, params, fd_point):
    """``printed`` is the paper's dL/dvar for L = δ1 y1 + δ2 y2 (any loss, by the chain rule, with
    δ = ∂L/∂y). Proved by SymPy differentiation with generic symbols; a central finite difference
    at a float point is kept as cross-check evidence."""
    Lf = d1 * y1 + d2 * y2
    for_all = FORALL_ROT if th in params else FORALL_GEN
    sym = symbolic_zero(sympy.diff(Lf, var) - printed, describe=f"dL/d{var} vs SymPy diff, generic symbols",
                        for_all=for_all, domain=PAIR_DOMAIN)
    f = sympy.lambdify([*params], Lf, "numpy")
    g = sympy.lambdify([*params], printed, "numpy")
    vals = np.array(fd_point, dtype=float)
    k = list(params).index(var)

    def scalar(v):
        return f(*v)

    fd = fd_grad(scalar, vals)[k]
    num = numeric_close(g(*vals), fd, describe=f"dL/d{var} vs central finite difference (h=1e-6)", rtol=1e-6, atol=1e-8)
    # the finite difference checks the printed formula (the statement itself, so it may fail with it: a wrong
    # printed formula is refuted by the SymPy trial); the isomat_* checks bind isomat's backward to it
    fd_note = dict(num.evidence, method=num.method, ok=num.ok, **({"counterexample": num.counterexample} if not num.ok else {}))
    return decide(sym, isomat_backward=_backward_binding("params" if var not in (x1, x2) else "x"),
                  printed_fd_check=fd_note, isomat_pair=_isomat_pair_grad(var, sympy.diff(Lf, var), th in params))


def _isomat_pair_grad(var, printed, rotation):
    """Binding: isomat's spm_backward on one 2×2 block (n = 2, L = 1, symbolic parameters, x, δ) gives ``printed``,
    the SymPy derivative of δ1 y1 + δ2 y2."""
    if rotation:
        lay = spm_layer(2, [np.array([[0, 1]])], [[th]])
    else:
        lay = spm_layer(2, [np.array([[0, 1]])], [[[a_, b_, c_, d_]]], variant="general")
    gr = spm_backward(lay, np.array([[x1, x2]], dtype=object), np.array([[d1, d2]], dtype=object))
    got = {x1: gr["x"][0][0], x2: gr["x"][0][1], th: gr["params"][0][0] if rotation else None,
           **({a_: gr["params"][0][0][0], b_: gr["params"][0][0][1], c_: gr["params"][0][0][2],
               d_: gr["params"][0][0][3]} if not rotation else {})}[var]
    return symbolic_zero(got - printed, describe=f"isomat spm_backward ∂L/∂{var} on one block vs SymPy's derivative")


_R_Y1 = sympy.cos(th) * x1 - sympy.sin(th) * x2
_R_Y2 = sympy.sin(th) * x1 + sympy.cos(th) * x2
_R_PARAMS = (th, x1, x2, d1, d2)
_R_POINT = (0.7, -1.3, 0.4, 0.9, -2.1)
_G_Y1 = a_ * x1 + b_ * x2
_G_Y2 = c_ * x1 + d_ * x2
_G_PARAMS = (a_, b_, c_, d_, x1, x2, d1, d2)
_G_POINT = (0.3, -1.1, 2.0, 0.5, -1.3, 0.4, 0.9, -2.1)


def _rotation_entry(k: int, printed: Any, eq: str) -> Outcome:
    """Entry k of the printed rotation M(θ)(x1, x2)ᵀ vs the printed yₖ (proved for all θ, x); isomat's
    stage forward is compared too, as cross-check evidence."""
    lay = spm_layer(2, [np.array([[0, 1]])], [[th]])
    y = spm_forward(lay, np.array([[x1, x2]], dtype=object))[0]
    M = sympy.Matrix([[sympy.cos(th), -sympy.sin(th)], [sympy.sin(th), sympy.cos(th)]])
    return decide(symbolic_zero((M * sympy.Matrix([x1, x2]))[k] - printed, describe=f"({eq}) vs printed M(θ) times x",
                                for_all="for all real θ, x1, x2 (generic SymPy symbols)"),
                  isomat_forward=symbolic_zero(y[k] - printed, describe=f"({eq}) vs isomat forward"))


# (5)-(6) and (10)-(11) expand the printed 2×2 products M(θ)x and Mx: definitions restated, not claims (issue 12).
# The expansions against the matrix product and isomat's stage are tests in tests/test_farag2025_claims.py.
def _eq5():
    return _rotation_entry(0, _R_Y1, "5")


def _eq6():
    return _rotation_entry(1, _R_Y2, "6")


@claim("farag2025:eq7", quote="∂L/∂x1 = cos θ δ1 + sin θ δ2   (7)",
       statement="With δ = ∂L/∂y, ∂L/∂x1 = Σ_k δ_k ∂y_k/∂x1 equals (7): proved by SymPy differentiation for all real θ, x1, x2, δ1, δ2 (generic symbols). Cross-check evidence: central finite difference at a float point (rtol 1e-6)." + _builder_note("spm_backward"),
       methods=["symbolic", "numeric"])
def _eq7():
    return _pair_grad_claim(_R_Y1, _R_Y2, x1, sympy.cos(th) * d1 + sympy.sin(th) * d2, _R_PARAMS, _R_POINT)


@claim("farag2025:eq8", quote="∂L/∂x2 = −sin θ δ1 + cos θ δ2   (8)",
       statement="As eq7 for x2: proved for all real θ, x1, x2, δ1, δ2 (SymPy); FD cross-check." + _builder_note("spm_backward"), methods=["symbolic", "numeric"])
def _eq8():
    return _pair_grad_claim(_R_Y1, _R_Y2, x2, -sympy.sin(th) * d1 + sympy.cos(th) * d2, _R_PARAMS, _R_POINT)


@claim("farag2025:eq9", quote="∂L/∂θ = δ1(−sin θ x1 − cos θ x2) + δ2(cos θ x1 − sin θ x2)   (9)",
       statement="As eq7 for θ: proved for all real θ, x1, x2, δ1, δ2 (SymPy); FD cross-check." + _builder_note("spm_backward"), methods=["symbolic", "numeric"])
def _eq9():
    pr = d1 * (-sympy.sin(th) * x1 - sympy.cos(th) * x2) + d2 * (sympy.cos(th) * x1 - sympy.sin(th) * x2)
    return _pair_grad_claim(_R_Y1, _R_Y2, th, pr, _R_PARAMS, _R_POINT)


@claim("farag2025:sec3.1",
       quote="Since M(θ) is orthogonal, it preserves the Euclidean norm, i.e., ‖y‖2 = ‖x‖2",
       statement="M(θ)^T M(θ) = I and y1² + y2² − x1² − x2² = 0 with y from (5)-(6): proved for all real θ, x1, x2 (SymPy, generic symbols)." + _builder_note("stage_matrix", strength="exhaustive"), methods=["symbolic"])
def _sec3_1():
    M = sympy.Matrix([[sympy.cos(th), -sympy.sin(th)], [sympy.sin(th), sympy.cos(th)]])
    fa = "for all real θ, x1, x2 (generic SymPy symbols)"
    return decide(all_of(symbolic_zero(M.T * M - sympy.eye(2), describe="M^T M - I", for_all=fa, domain=PAIR_DOMAIN),
                                        symbolic_zero(_R_Y1**2 + _R_Y2**2 - x1**2 - x2**2, describe="‖y‖² − ‖x‖²", for_all=fa,
                                                       domain=PAIR_DOMAIN)),
                                 isomat_stages=_stage_binding("rotation"),
                  isomat_block=_isomat_block("rotation"))


def _isomat_block(variant):
    """Binding: isomat's stage on one pair (n = 2, symbolic) is the printed block M(θ) of (5)-(6) / M of (10)-(11)."""
    if variant == "rotation":
        lay = spm_layer(2, [np.array([[0, 1]])], [[th]])
        M = sympy.Matrix([[sympy.cos(th), -sympy.sin(th)], [sympy.sin(th), sympy.cos(th)]])
    else:
        lay = spm_layer(2, [np.array([[0, 1]])], [[[a_, b_, c_, d_]]], variant="general")
        M = sympy.Matrix([[a_, b_], [c_, d_]])
    return symbolic_zero(sympy.Matrix(stage_matrix(lay, 0)) - M, describe=f"isomat's {variant} stage, n = 2, vs the printed block")


@claim("farag2025:sec3.2", quote="This variant subsumes the rotation case",
       statement="The general block with (a, b, c, d) = (cos θ, −sin θ, sin θ, cos θ) gives (5)-(6) and its entry gradients (14) chain to (9): dL/dθ = −sinθ·∂a − cosθ·∂b + cosθ·∂c − sinθ·∂d; proved for all real θ, x1, x2, δ1, δ2 (SymPy)." + _builder_note("stage_matrix", strength="exhaustive"),
       methods=["symbolic"])
def _sec3_2():
    sub = {a_: sympy.cos(th), b_: -sympy.sin(th), c_: sympy.sin(th), d_: sympy.cos(th)}
    ga, gb, gc, gd = d1 * x1, d1 * x2, d2 * x1, d2 * x2
    chain = ga * -sympy.sin(th) + gb * -sympy.cos(th) + gc * sympy.cos(th) + gd * -sympy.sin(th)
    pr9 = d1 * (-sympy.sin(th) * x1 - sympy.cos(th) * x2) + d2 * (sympy.cos(th) * x1 - sympy.sin(th) * x2)
    return decide(all_of(symbolic_zero(_G_Y1.subs(sub) - _R_Y1, describe="(10) at rotation vs (5)", for_all=FORALL_ROT,
                                       domain=PAIR_DOMAIN),
                         symbolic_zero(_G_Y2.subs(sub) - _R_Y2, describe="(11) at rotation vs (6)", for_all=FORALL_ROT,
                                       domain=PAIR_DOMAIN),
                         symbolic_zero(chain - pr9, describe="(14) chained through the rotation vs (9)", for_all=FORALL_ROT,
                                       domain=PAIR_DOMAIN)),
                                 isomat_stages=_stage_binding("rotation"), isomat_general_stages=_stage_binding("general"),
                  isomat_rotation=_isomat_block("rotation"), isomat_general=_isomat_block("general"))


def _general_entry(k: int, printed: Any, eq: str) -> Outcome:
    """Entry k of the printed block [[a, b], [c, d]](x1, x2)ᵀ vs the printed yₖ (proved for all a..d, x);
    isomat's general stage forward as cross-check evidence."""
    lay = spm_layer(2, [np.array([[0, 1]])], [[[a_, b_, c_, d_]]], variant="general")
    y = spm_forward(lay, np.array([[x1, x2]], dtype=object))[0]
    M = sympy.Matrix([[a_, b_], [c_, d_]])
    return decide(symbolic_zero((M * sympy.Matrix([x1, x2]))[k] - printed, describe=f"({eq}) vs printed M times x",
                                for_all="for all real a, b, c, d, x1, x2 (generic SymPy symbols)"),
                  isomat_forward=symbolic_zero(y[k] - printed, describe=f"({eq}) vs isomat forward"))


def _eq10():
    return _general_entry(0, _G_Y1, "10")


def _eq11():
    return _general_entry(1, _G_Y2, "11")


@claim("farag2025:eq12", quote="∂L/∂x1 = a δ1 + c δ2   (12)", statement="As eq7 for the general block: proved for all real a, b, c, d, x1, x2, δ1, δ2 (SymPy); FD cross-check." + _builder_note("spm_backward"), methods=["symbolic", "numeric"])
def _eq12():
    return _pair_grad_claim(_G_Y1, _G_Y2, x1, a_ * d1 + c_ * d2, _G_PARAMS, _G_POINT)


@claim("farag2025:eq13", quote="∂L/∂x2 = b δ1 + d δ2   (13)", statement="As eq7 for the general block: proved for all real a, b, c, d, x1, x2, δ1, δ2 (SymPy); FD cross-check." + _builder_note("spm_backward"), methods=["symbolic", "numeric"])
def _eq13():
    return _pair_grad_claim(_G_Y1, _G_Y2, x2, b_ * d1 + d_ * d2, _G_PARAMS, _G_POINT)


for _v, _pr in (("a", d1 * x1), ("b", d1 * x2), ("c", d2 * x1), ("d", d2 * x2)):
    def _mk(v=_v, pr=_pr):
        return lambda: _pair_grad_claim(_G_Y1, _G_Y2, {"a": a_, "b": b_, "c": c_, "d": d_}[v], pr, _G_PARAMS, _G_POINT)
    claim(f"farag2025:eq14/{_v}", quote=f"∂L/∂{_v} = {sympy.sstr(_pr).replace('delta', 'δ')}   (14)",
          statement=f"∂L/∂{_v} for L = δ1 y1 + δ2 y2 (δ = ∂L/∂y, chain rule): proved by SymPy differentiation for all real a, b, c, d, x1, x2, δ1, δ2; central FD (rtol 1e-6) as cross-check evidence." + _builder_note("spm_backward"), methods=["symbolic", "numeric"])(_mk())



__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations",)]
