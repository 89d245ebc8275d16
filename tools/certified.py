"""What the ledger certifies in ``isomat.algebra``: the scope of the mutation run and of the claim coverage.

``CERTIFIED`` lists, per module, the public functions that the claims prove or bind to: the entry rules
the proofs quantify over (``conv2d_tap``, ``zhu_conv_tap``, ``patch_major_pixel``, ...), the builders
the binding checks compare with a reference (``conv_matrix``, ``zhu_pool_matrix``, ``rnn_matrix``, ...)
and the backward passes (``spm_backward``, ...). It is the union of the ``isomat.algebra`` targets of
the hand-written mutants (``tests/mutants``) and the builders named in issue 36. Each function's
module-private helpers (``_name``, reached from it through its code's global names, transitively, in
the same module) are in scope too; device code (``_device_*``, ``_kernel*``) and the per-thread scratch
buffer are not (the CPU ledger never runs them), nor are the helpers that only refuse (``_check_*`` and
``_need_*`` annotated ``-> None``: bad input and the memory bound, which no claim exercises; the test
suite does).

Which claims certify a function is not typed here: ``tools/certifies.json`` records, for each function
in scope, the ledger claims whose run executes it, measured with coverage.py (one context per claim) by
``python -m tools.claim_coverage --write-map``. A claim that never runs a function cannot notice a
defect in it; one that runs it can, and the mutation run asks whether it does.
"""

from __future__ import annotations

import importlib
import inspect
import json
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAP_PATH = Path(__file__).resolve().with_name("certifies.json")

CERTIFIED: dict[str, tuple[str, ...]] = {
    "isomat.algebra.conv": ("conv_matrix", "conv_output_shape", "conv2d_tap", "zhu_conv_tap", "zhu_offsets",
                            "zhu_conv_rows", "zhu_conv_matrix"),
    "isomat.algebra.pool": ("avgpool_matrix", "patch_major_order", "patch_major_pixel", "zhu_pool_matrix",
                            "pool_output_shape"),
    "isomat.algebra.rnn": ("rnn_matrix", "zhu_rnn_main_text"),
    "isomat.algebra.attention": ("linear_attention_matrix", "zhu_w_sa", "lift3"),
    "isomat.algebra.kron": ("kron_operator", "kron_entry", "kron", "kron_rearrange", "kron_rearrange_entry",
                            "kronecker_factors"),
    "isomat.algebra.stp": ("stp", "sta", "dk_stp", "dk_stp_weighted", "bridge", "bridge_weighted", "inner_v",
                           "norm_v", "dist_v", "swap_row", "swap_matrix", "power_reducing_row", "retriever_entry"),
    "isomat.algebra.spm": ("butterfly_partner", "rotation_block", "param_count", "stage_operator", "spm_forward",
                           "spm_backward", "spm_gru_backward", "spm_attention_backward"),
    "isomat.algebra.graph": ("adjacency", "mean_aggregation", "normalized_adjacency", "renormalized_adjacency",
                             "laplacian", "chebyshev_filter", "spectral_filter", "multi_attention",
                             "mean_aggregation_entry", "renormalized_adjacency_entry", "multi_attention_entry"),
    "isomat.algebra.projection": ("projection_operator", "projection", "project"),
    "isomat.algebra.hyper": ("zero_padding_linear", "softmax_rows", "project_pad", "hv_nominal_add",
                             "hv_inner_weighted", "diamond", "attention_scores"),
    "isomat.algebra.matrix_layer": ("matrix_layer_entry", "matrix_layer", "matrix_layer_parameter_count",
                                    "matrix_highway", "matrix_lstm_cell", "matrix_gru_cell"),
    "isomat.algebra.ndlinear": ("ndlinear_matrix", "mode_product_entry", "mode_bias_entry", "ndlinear_apply",
                                "ndlinear_param_count", "ndlinear_flops", "lora_param_count"),
}

#: helpers left out of scope, with the reason: code the CPU ledger does not run, or that only manages memory
_EXCLUDED_PREFIXES = ("_device", "_kernel")
_EXCLUDED = {"isomat.algebra.conv:_scratch"}  # a per-thread buffer cache, no arithmetic of the layer


def short(module: str) -> str:
    """``isomat.algebra.conv`` -> ``conv``."""
    return module.rsplit(".", 1)[-1]


def module_name(name: str) -> str:
    """``conv`` or ``isomat.algebra.conv`` -> ``isomat.algebra.conv`` (a ValueError for one out of scope)."""
    full = name if name.startswith("isomat.") else f"isomat.algebra.{name}"
    if full not in CERTIFIED:
        raise ValueError(f"module must be one of {sorted(short(m) for m in CERTIFIED)}, got {name!r}")
    return full


def plain_function(obj: Any) -> types.FunctionType | None:
    """The Python function under decorators (``functools.wraps`` chains), or None for anything else."""
    try:
        obj = inspect.unwrap(obj)
    except ValueError:
        return None
    return obj if isinstance(obj, types.FunctionType) else None


def _refusal_only(name: str, fn: types.FunctionType) -> bool:
    """A helper that only refuses (``_check_*``/``_need_*`` returning None: bad input, the memory bound)."""
    return name.startswith(("_check", "_need")) and fn.__annotations__.get("return") in ("None", None.__class__, None) \
        and "return" in fn.__annotations__


def _helpers(module: types.ModuleType, roots: tuple[str, ...]) -> list[str]:
    """The module-private functions of ``module`` reached from ``roots`` through global names."""
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = todo.pop()
        fn = plain_function(getattr(module, name, None))
        if fn is None:
            continue
        codes = [fn.__code__]
        names: set[str] = set()
        while codes:  # nested functions and comprehensions are constants of their parent's code
            code = codes.pop()
            names.update(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for ref in sorted(names):
            helper = plain_function(getattr(module, ref, None))
            if (not ref.startswith("_") or ref in seen or ref in roots or helper is None
                    or helper.__module__ != module.__name__ or ref.startswith(_EXCLUDED_PREFIXES)
                    or f"{module.__name__}:{ref}" in _EXCLUDED or _refusal_only(ref, helper)):
                continue
            seen.append(ref)
            todo.append(ref)
    return sorted(seen)


def scope(modules: list[str] | None = None) -> dict[str, list[str]]:
    """Module -> the functions in scope (the certified ones, then their private helpers)."""
    out: dict[str, list[str]] = {}
    for m in modules or list(CERTIFIED):
        m = module_name(m)
        module = importlib.import_module(m)
        roots = CERTIFIED[m]
        for name in roots:
            if plain_function(getattr(module, name, None)) is None:
                raise ValueError(f"{m}.{name} is listed as certified but is not a function of that module")
        out[m] = list(roots) + _helpers(module, roots)
    return out


def span(module: str, name: str) -> tuple[str, int, int]:
    """(file, first line of the ``def``, last line) of a function in scope, after its decorators."""
    fn = plain_function(getattr(importlib.import_module(module), name))
    assert fn is not None
    lines, start = inspect.getsourcelines(fn)
    first = start + next(i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "async def ")))
    return fn.__code__.co_filename, first, start + len(lines) - 1


def source_digest() -> str:
    """sha256 of every ``isomat/**/*.py`` (path and bytes): the code a map's recorded verdicts were run on."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted((ROOT / "isomat").rglob("*.py")):
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def load_map(path: Path = MAP_PATH) -> dict[str, Any]:
    """The derived map (``tools/certifies.json``): ``functions`` ("module:function" -> claim ids that run it),
    ``seconds`` and ``verdicts`` (claim id -> the time and [verdict, strength] of its run when the map was
    derived) and ``source_digest`` (:func:`source_digest` then)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: derive it with `python -m tools.claim_coverage --write-map`")
    return json.loads(path.read_text(encoding="utf-8"))
