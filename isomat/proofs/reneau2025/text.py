"""reneau2025 §4: the text's statements about its own printed results."""

from __future__ import annotations

from ._common import *  # noqa: F401,F403  (shared imports and references)
from .sec2 import *  # noqa: F401,F403
from .appc import *  # noqa: F401,F403
from .sec3 import *  # noqa: F401,F403
from .sec4_2 import *  # noqa: F401,F403
from .tables import *  # noqa: F401,F403
from functools import partial as _partial  # noqa: E402
from typing import Any  # noqa: E402
from ..engine import compare_printed as _compare_printed  # noqa: E402

#: every comparison in this module sets the paper's text against its own printed numbers (its tables) by arithmetic
#: on them alone -- no isomat builder is called here -- so a discrepancy found is recorded as confirmed by them
compare_printed = _partial(_compare_printed, from_printed=True)


# Printed results used by the text's statements about them (Tables 1, 4, 6, 7, 8; exact decimals as printed)
TAB1_ACC = {  # GSM8K, MultiArith, CSQA, ARC-e, ARC-c, BoolQ
    "Qwen3-1.7B": {"lora-r4": ("45.6", "88.9", "80.4", "91.9", "79.4", "79.7"),
                   "lora-r8": ("40.3", "82.2", "80.9", "91.8", "79.3", "80.8"),
                   "ndlinear-lora": ("52.2", "90.0", "81.0", "92.2", "78.3", "79.7")},
    "Meta-Llama-3-8B": {"lora-r4": ("50.5", "84.4", "80.6", "90.4", "76.3", "85.1"),
                        "lora-r8": ("51.6", "81.1", "81.7", "89.0", "73.6", "76.5"),
                        "ndlinear-lora": ("40.2", "80.0", "82.9", "90.9", "76.6", "80.5")},
}
TAB6_RES = {"CoLA": {"linear": ("0.7790", "0.7127"), "ndlinear": ("0.7906", "0.7405")},  # accuracy, ROC AUC
            "SST-2": {"linear": ("0.8872", "0.8867"), "ndlinear": ("0.8933", "0.8932")}}
TAB7_RES = {"cardio": {"linear": "0.7265", "ndlinear": "0.7321"}, "delivery": {"linear": "70.508", "ndlinear": "67.824"}}
TAB8_RES = {"cifar-10": {"linear": "0.7426", "ndlinear": "0.7689"}, "cifar-100": {"linear": "0.6587", "ndlinear": "0.7096"}}
TAB2_F1 = {  # Table 2 F1: Base Model, parameter-comparable Base Model, NdLinear
    "ECGFiveDay": ("0.7668", "0.7624", "0.7783"), "HeartBeat": ("0.7250", "0.7214", "0.7363"),
    "Chlorine Conc.": ("0.4436", "0.4440", "0.4571"), "ECG5000": ("0.8886", "0.8878", "0.9058"),
    "LSST": ("0.5928", "0.5907", "0.6486"), "Sleep": ("0.4911", "0.4897", "0.4978"),
}
TAB3_ERR = {  # Table 3 means: (RNN MSE, RNN MAE, Transformer MSE, Transformer MAE) for Linear, NdLinear
    "ETTh1": {"linear": ("0.2900", "0.4060", "0.0217", "0.1158"), "ndlinear": ("0.0880", "0.2204", "0.0173", "0.0995")},
    "ETTh2": {"linear": ("0.2636", "0.3955", "0.0226", "0.1229"), "ndlinear": ("0.1536", "0.2831", "0.0158", "0.0995")},
    "ETTm1": {"linear": ("0.0187", "0.0926", "0.0180", "0.1005"), "ndlinear": ("0.0174", "0.0894", "0.0161", "0.0936")},
    "ETTm2": {"linear": ("0.0148", "0.0825", "0.0151", "0.0965"), "ndlinear": ("0.0139", "0.0797", "0.0141", "0.0929")},
}
TEXT_VS_TABLES_PRINTED = {
    "§4.3.1 NdLinear lower MSE and MAE on all four ETT datasets, RNN and Transformer": True,
    "§4.3.1 improvements most notable on ETTh1 and ETTh2 (largest relative MSE gains, both models)": True,
    "§4.3.2 NdLinear F1 above the Base Model on all six UCR datasets": True,
    "§4.3.2 NdLinear F1 above the parameter-comparable Base Model on all six": True,
    "§4.2.1 Qwen3 GSM8K gain over LoRA r=8 (points)": "11.9",
    "§4.2.1 Qwen3 MultiArith: NdLinear-LoRA above both LoRA": True,
    "§4.2.1 Qwen3 slightly trails LoRA r=8 on ARC-c": True,
    "§4.2.1 LLaMA3 matches or exceeds LoRA r=8 on CSQA and ARC-c": True,
    "§4.2.1 LLaMA3 matches or exceeds LoRA r=4 on ARC-e": True,
    "§4.2.1 LLaMA3 GSM8K and MultiArith lower than LoRA (both ranks)": True,
    "§4.2.2 NdLinear OPT perplexity lower (both sizes)": True,
    "§4.2.3 NdLinear improves accuracy and ROC AUC (CoLA, SST-2)": True,
    "§4.4 Cardio accuracy (NdLinear, Linear)": ["0.7321", "0.7265"],
    "§4.4 Delivery MSE (NdLinear, Linear)": ["67.824", "70.508"],
    "§4.5.2 CIFAR-10 accuracy gain (points)": "2.6",
    "§4.5.2 CIFAR-100 accuracy gain (points)": "5.1",
}


@claim(
    "reneau2025:sec4/text-vs-tables",
    quote="substantial gains on GSM8K (+11.9 points over LoRA r=8) ... consistently improved forecasting accuracy (lower "
          "MSE and MAE) across all datasets ... On CIFAR-10, NdLinear improves accuracy by 2.6% "
          "... On CIFAR-100, it improves accuracy by 5.1% ... higher accuracy (0.7321 vs. 0.7265) ... lower MSE "
          "(67.824 vs. 70.508) (§4)",
    statement=(
        "The numerical and comparative statements of §4's text about printed results (one entry each; Table 9's "
        "are in reneau2025:sec4.5.1/table9), recomputed from the tables they cite (Tables 1, 2, 3, 4, 6, 7, 8; "
        "exact decimals): differences in points rounded half up to one decimal (reading used: '2.6%' and '5.1%' "
        "are accuracy points; the relative gains, 3.5% and 7.7%, are in evidence), orderings compared exactly, "
        "'slightly trails' read as behind by more than 0 and at most 2 points, 'particularly notable on ETTh1 and "
        "ETTh2' as the two largest relative MSE gains for both models."
    ),
    methods=["recompute"],
)
def _text_vs_tables():
    D = Decimal

    def pts(a, b, scale=1):
        return str(((D(a) - D(b)) * scale).quantize(D("0.1"), rounding=ROUND_HALF_UP))

    q, l = TAB1_ACC["Qwen3-1.7B"], TAB1_ACC["Meta-Llama-3-8B"]
    col = {"GSM8K": 0, "MultiArith": 1, "CSQA": 2, "ARC-e": 3, "ARC-c": 4}
    v = lambda row, c: D(row[col[c]])
    rec = {
        "§4.2.1 Qwen3 GSM8K gain over LoRA r=8 (points)": pts(q["ndlinear-lora"][0], q["lora-r8"][0]),
        "§4.2.1 Qwen3 MultiArith: NdLinear-LoRA above both LoRA":
            v(q["ndlinear-lora"], "MultiArith") > max(v(q["lora-r4"], "MultiArith"), v(q["lora-r8"], "MultiArith")),
        "§4.2.1 Qwen3 slightly trails LoRA r=8 on ARC-c": D(0) < v(q["lora-r8"], "ARC-c") - v(q["ndlinear-lora"], "ARC-c") <= D(2),
        "§4.2.1 LLaMA3 matches or exceeds LoRA r=8 on CSQA and ARC-c":
            all(v(l["ndlinear-lora"], c) >= v(l["lora-r8"], c) for c in ("CSQA", "ARC-c")),
        "§4.2.1 LLaMA3 matches or exceeds LoRA r=4 on ARC-e": v(l["ndlinear-lora"], "ARC-e") >= v(l["lora-r4"], "ARC-e"),
        "§4.2.1 LLaMA3 GSM8K and MultiArith lower than LoRA (both ranks)":
            all(v(l["ndlinear-lora"], c) < min(v(l["lora-r4"], c), v(l["lora-r8"], c)) for c in ("GSM8K", "MultiArith")),
        "§4.2.2 NdLinear OPT perplexity lower (both sizes)": all(D(TAB4[m]["ndlinear"][0]) < D(TAB4[m]["linear"][0]) for m in TAB4),
        "§4.2.3 NdLinear improves accuracy and ROC AUC (CoLA, SST-2)":
            all(D(r["ndlinear"][i]) > D(r["linear"][i]) for r in TAB6_RES.values() for i in (0, 1)),
        "§4.4 Cardio accuracy (NdLinear, Linear)": [TAB7_RES["cardio"]["ndlinear"], TAB7_RES["cardio"]["linear"]],
        "§4.4 Delivery MSE (NdLinear, Linear)": [TAB7_RES["delivery"]["ndlinear"], TAB7_RES["delivery"]["linear"]],
        "§4.5.2 CIFAR-10 accuracy gain (points)": pts(TAB8_RES["cifar-10"]["ndlinear"], TAB8_RES["cifar-10"]["linear"], 100),
        "§4.5.2 CIFAR-100 accuracy gain (points)": pts(TAB8_RES["cifar-100"]["ndlinear"], TAB8_RES["cifar-100"]["linear"], 100),
    }
    rec["§4.3.1 NdLinear lower MSE and MAE on all four ETT datasets, RNN and Transformer"] = all(
        D(n) < D(li) for r in TAB3_ERR.values() for li, n in zip(r["linear"], r["ndlinear"]))
    gains = {m: {ds: 1 - D(r["ndlinear"][i]) / D(r["linear"][i]) for ds, r in TAB3_ERR.items()}
             for m, i in (("RNN", 0), ("Transformer", 2))}
    rec["§4.3.1 improvements most notable on ETTh1 and ETTh2 (largest relative MSE gains, both models)"] = all(
        set(sorted(g, key=g.get, reverse=True)[:2]) == {"ETTh1", "ETTh2"} for g in gains.values())
    rec["§4.3.2 NdLinear F1 above the Base Model on all six UCR datasets"] = all(D(n) > D(b) for b, _, n in TAB2_F1.values())
    rec["§4.3.2 NdLinear F1 above the parameter-comparable Base Model on all six"] = all(
        D(n) > D(c) for _, c, n in TAB2_F1.values())
    relative = {k: f"{(D(r['ndlinear']) / D(r['linear']) - 1) * 100:.1f}%" for k, r in TAB8_RES.items()}
    return compare_printed(TEXT_VS_TABLES_PRINTED, rec, kind="inconsistent", relative_gains_table8=relative,
                           relative_mse_gains_table3={m: {k: f"{v * 100:.1f}%" for k, v in g.items()} for m, g in gains.items()},
                           slightly_trails="Qwen3 ARC-c: behind LoRA r=8 by more than 0 and at most 2 points")


TAB9 = {  # Table 9: NdViT at embedding dimension 200, 300, 400, and the naive ViT at 500, by number of blocks
    "CIFAR10": {3: ("65.77", "67.53", "69.00", "62.09"), 6: ("68.48", "70.20", "72.03", "65.19"),
                9: ("70.27", "71.50", "72.53", "68.52")},
    "CIFAR100": {3: ("70.78", "73.10", "74.14", "69.34"), 6: ("73.60", "75.07", "76.37", "73.84"),
                 9: ("74.24", "75.52", "76.61", "75.60")},
}
SEC4_5_1_PRINTED = {
    "NdViT consistently outperforms the ViT baseline (best NdViT above naive, every dataset and depth)": True,
    "an NdViT with embedding dimension 200 surpasses a naive ViT with dimension 500 (some dataset and depth)": True,
    "advantage tends to increase with larger dimensions (more rising than falling steps)": True,
    "advantage tends to increase with more transformer blocks (more rising than falling steps)": True,
}


@claim(
    "reneau2025:sec4.5.1/table9",
    quote="NdViT consistently outperforms conventional ViT baselines ... Notably, an NdViT with embedding dimension 200 "
          "surpasses a naive ViT with dimension 500 ... The performance advantage of NdViT tends to increase with more "
          "transformer blocks and larger dimensions (§4.5.1; Table 9)",
    statement=(
        "Against Table 9 (accuracy of NdViT at dimensions 200/300/400 and of the naive ViT at 500, for 3/6/9 blocks): "
        "'advantage' is NdViT minus naive at the same depth. Readings used (favourable): 'consistently outperforms' "
        "as the best NdViT above the naive ViT in every dataset and depth; 'an NdViT with dimension 200 surpasses' "
        "as at least one dataset and depth; 'tends to increase' as more rising than falling steps over all series "
        "(12 steps each way: dimension 200->300->400 at fixed depth, blocks 3->6->9 at fixed dimension). The strict "
        "readings (every NdViT configuration above the baseline; dimension 200 above it everywhere) are in evidence."
    ),
    methods=["recompute"],
)
def _table9():
    D = Decimal
    adv = {ds: {b: [D(v) - D(row[3]) for v in row[:3]] for b, row in rows.items()} for ds, rows in TAB9.items()}
    dim_steps = [y - x for rows in adv.values() for a in rows.values() for x, y in itertools.pairwise(a)]
    block_steps = [adv[ds][b2][i] - adv[ds][b1][i] for ds in adv for i in range(3) for b1, b2 in ((3, 6), (6, 9))]
    tends_up = lambda steps: sum(d > 0 for d in steps) > sum(d < 0 for d in steps)
    rec = {
        "NdViT consistently outperforms the ViT baseline (best NdViT above naive, every dataset and depth)":
            all(max(a) > 0 for rows in adv.values() for a in rows.values()),
        "an NdViT with embedding dimension 200 surpasses a naive ViT with dimension 500 (some dataset and depth)":
            any(a[0] > 0 for rows in adv.values() for a in rows.values()),
        "advantage tends to increase with larger dimensions (more rising than falling steps)": tends_up(dim_steps),
        "advantage tends to increase with more transformer blocks (more rising than falling steps)": tends_up(block_steps),
    }
    steps = {"dimension 200->300->400": {"rising": sum(d > 0 for d in dim_steps), "falling": sum(d < 0 for d in dim_steps)},
             "blocks 3->6->9": {"rising": sum(d > 0 for d in block_steps), "falling": sum(d < 0 for d in block_steps)}}
    by_blocks = {f"{ds} dim {dim}": [str(adv[ds][b][i]) for b in (3, 6, 9)] for ds in adv for i, dim in enumerate((200, 300, 400))}
    strict = {"every NdViT configuration above the naive ViT": all(x > 0 for rows in adv.values() for a in rows.values() for x in a),
              "dimension 200 above the naive ViT everywhere": all(a[0] > 0 for rows in adv.values() for a in rows.values()),
              "configurations below the naive ViT": [f"{ds} {b} blocks dim {dim}" for ds, rows in adv.items()
                                                     for b, a in rows.items() for x, dim in zip(a, (200, 300, 400)) if x <= 0]}
    return printed_checks({k: rec[k] for k in SEC4_5_1_PRINTED}, advantage_by_blocks_3_6_9=by_blocks, steps=steps,
                          strict_readings=strict)


def _benchmark_reductions() -> dict[str, Decimal]:
    """Every printed parameter comparison of a benchmark, baseline / NdLinear (Tables 1-4, 6-8, 10; Table 2 against
    its Base Model, the parameter-comparable Base Model being matched to NdLinear by design)."""
    out = {}
    for m, r in TAB1_PRINTED.items():
        for k in ("lora-r4", "lora-r8"):
            out[f"Table 1 {m} {k}"] = _count(r[k]) / _count(r["ndlinear-lora"])
    for ds, (base, _, nd) in TAB2_PARAMS.items():
        out[f"Table 2 {ds}"] = Decimal(base) / Decimal(nd)
    for m, (li, nd) in TAB3_PARAMS.items():
        out[f"Table 3 {m}"] = Decimal(li) / Decimal(nd)
    for m, r in TAB4.items():
        out[f"Table 4 {m}"] = _count(r["linear"][1]) / _count(r["ndlinear"][1])
    out["Table 6 head"] = Decimal(TAB6_PRINTED["linear head"]) / Decimal(TAB6_PRINTED["ndlinear head"])
    for ds, r in TAB7_PRINTED.items():
        out[f"Table 7 {ds}"] = Decimal(r["linear"]) / Decimal(r["ndlinear"])
    for ds, r in TAB8_PRINTED.items():
        out[f"Table 8 {ds}"] = _count(r["linear"]) / _count(r["ndlinear"])
    for nd in ("619M", "563M"):
        out[f"Table 10 {nd}"] = _count("674M") / _count(nd)
    return out


_REDUCTIONS_NOTE = ("every printed parameter comparison of a benchmark, baseline / NdLinear: Table 1 (LoRA r=4, r=8), "
                    "Table 2 (Base Model), Tables 3, 4, 6, 7, 8, 10")


def _factors_evidence(red):
    return {k: f"{v:.2f}" for k, v in red.items()}


@claim(
    "reneau2025:abstract/parameters",
    quote="Extensive experiments demonstrate NdLinear’s capacity to significantly enhance representational power, "
          "achieve dramatic parameter reductions (often by orders of magnitude), and maintain a favorable computational profile.",
    statement=(
        "The abstract's parameter reductions against the experiments' own printed counts (" + _REDUCTIONS_NOTE + "; "
        "21 comparisons, exact decimals). Readings: (a) 'orders of magnitude' as at least one order (baseline ≥ 10× "
        "NdLinear) and 'often' as in at least a quarter of the comparisons (threshold ours); (b) the plural taken "
        "literally: at least two orders (≥ 100×) in some comparison. Only CIFAR-10's CNN (1.07M vs 65k, 16.5×) "
        "reaches one order; the largest factor is recorded. The representational-power and computational-profile "
        "parts are reneau2025:sec1/efficiency and reneau2025:sec4/accuracy."
    ),
    methods=["recompute"],
)
def _abstract_parameters():
    red = _benchmark_reductions()
    ten = [k for k, v in red.items() if v >= 10]
    return by_readings(
        threshold_reading("at least one order, often", "a reduction of at least 10x in at least a quarter of the printed "
                          "comparisons", {"comparisons with a reduction >= 10x, at least a quarter of them":
                                          4 * len(ten) >= len(red)},
                          factors=_factors_evidence(red), at_least_10x=ten, comparisons=len(red)),
        threshold_reading("two or more orders", "a reduction of at least 100x in some printed comparison",
                          {"some comparison with a reduction >= 100x": any(v >= 100 for v in red.values())},
                          largest=f"{max(red.values()):.2f}"))


#: §3.1's example, as printed: "transforming a 3D tensor where all D_k = H_k = D = 32"
SEC3_1_EXAMPLE = {"N": 3, "D_k = H_k = D": 32}


@claim(
    "reneau2025:sec1/parameters",
    quote="It dramatically reduces parameter counts (often by orders of magnitude vs. flattened layers) and ensures "
          "efficient computation without sacrificing performance.",
    statement=(
        "The Introduction's parameter reduction. Readings: (a) headline, of the layer itself (the sentence is about "
        "NdLinear against flattened layers, not about the experiments): §3.1's own example, a 3-D tensor with all "
        "sizes 32 mapped to the same shape, flattened layer 32^6 + 32^3 parameters vs NdLinear 3·(32² + 32): the "
        "ratio is at least 100 (exact integers); (b) of the experiments, as in reneau2025:abstract/parameters: a "
        "reduction ≥ 10× in at least a quarter of the 21 printed comparisons (threshold ours). 'Efficient "
        "computation' is reneau2025:sec1/efficiency."
    ),
    methods=["recompute"],
)
def _sec1_parameters():
    d, N = SEC3_1_EXAMPLE["D_k = H_k = D"], SEC3_1_EXAMPLE["N"]
    flat, nd = d ** (2 * N) + d ** N, N * (d * d + d)
    red = _benchmark_reductions()
    ten = [k for k, v in red.items() if v >= 10]
    return by_readings(
        threshold_reading("the layer (§3.1's example)", "flattened / NdLinear parameters >= 100 for §3.1's 32×32×32 "
                          "example", {"§3.1 example: flattened / NdLinear >= 100": flat >= 100 * nd},
                          flattened=flat, ndlinear=nd, ratio=f"{Decimal(flat) / Decimal(nd):.1f}"),
        threshold_reading("the experiments", "a reduction >= 10x in at least a quarter of the printed comparisons",
                          {"comparisons with a reduction >= 10x, at least a quarter of them": 4 * len(ten) >= len(red)},
                          at_least_10x=ten, comparisons=len(red)))


@claim(
    "reneau2025:sec1/efficiency",
    quote="These efficiencies lead to faster training/inference and lower memory usage.",
    statement=(
        "The Introduction's speed and memory results, and the abstract's 'maintain a favorable computational "
        "profile': the paper prints no wall-clock, throughput, FLOP or memory measurement of any experiment (its "
        "tables give parameter counts and task metrics only), so there is nothing to check them against."
    ),
    methods=["recompute"],
)
def _sec1_efficiency():
    return not_checkable("no timing, FLOP or memory measurement of any experiment is printed; the claims need the runs")


@claim(
    "reneau2025:abstract/lora",
    quote="For instance, when applied to Large Language Model finetuning, our NdLinear-LoRA delivers comparable or "
          "improved accuracy on reasoning tasks using up to 9× fewer trainable parameters than standard LoRA.",
    statement=(
        "The abstract's accuracy half (the '9×' is reneau2025:sec4.2.1) against Table 1 (both models, six reasoning "
        "benchmarks, LoRA r=4 and r=8; exact decimals). 'Comparable' = at most 2 points behind (the threshold used "
        "for 'slightly trails' in reneau2025:sec4/text-vs-tables, ours). Readings: (a) headline, as §4.2.1 "
        "qualifies the same result ('generally achieves comparable or superior accuracy'): comparable or better in "
        "most of the 24 (model, benchmark, rank) cells; (b) unqualified: comparable or better in every cell; (c) on the "
        "math benchmarks (GSM8K, MultiArith) for each model: LLaMA3-8B's GSM8K cells are 10.3 and 11.4 points behind, "
        "so it fails. Decision (issue 38 item 2): the headline stays (a), the abstract's 'For instance' sentence "
        "summarising §4.2.1, which qualifies the same result as 'generally' and itself reports LLaMA3-8B's GSM8K and "
        "MultiArith drops; (c) records where the sentence overstates."
    ),
    methods=["recompute"],
)
def _abstract_lora():
    D = Decimal
    cells = {f"{m} {b} vs {k}": D(r["ndlinear-lora"][i]) - D(r[k][i])
             for m, r in TAB1_ACC.items() for i, b in enumerate(("GSM8K", "MultiArith", "CSQA", "ARC-e", "ARC-c", "BoolQ"))
             for k in ("lora-r4", "lora-r8")}
    ok = [k for k, v in cells.items() if v >= -2]
    behind = {k: str(v) for k, v in cells.items() if v < -2}
    math_cells = {k: v for k, v in cells.items() if " GSM8K " in k or " MultiArith " in k}
    return by_readings(
        threshold_reading("in most cells", "NdLinear-LoRA at most 2 points behind LoRA in most (model, benchmark, rank) "
                          "cells", {"comparable or better in most cells": 2 * len(ok) > len(cells)},
                          comparable_or_better=len(ok), cells=len(cells), behind_by_more_than_2=behind),
        threshold_reading("in every cell", "NdLinear-LoRA at most 2 points behind LoRA in every cell",
                          {"comparable or better in every cell": len(ok) == len(cells)}, behind_by_more_than_2=behind),
        threshold_reading("on the math benchmarks, each model", "NdLinear-LoRA at most 2 points behind LoRA on GSM8K "
                          "and MultiArith, for each model and rank", {f"{k}: at most 2 points behind": v >= -2
                                                                      for k, v in math_cells.items()},
                          points_ahead={k: str(v) for k, v in math_cells.items()}))


@claim(
    "reneau2025:sec5/reductions",
    quote="It achieves substantial parameter efficiency, with reductions ranging from valuable percentages in transformer "
          "blocks to over 90% in contexts like CNN feature extractors or compact classification heads.",
    statement=(
        "The Conclusion's upper end against the tables it summarises (exact decimals): the CNN of Table 8 (Linear "
        "after two convolutions; CIFAR-10 1.07M vs 65k, CIFAR-100 1.09M vs 433k) and the BERT classification head "
        "of Table 6 (1,544 vs 222). Readings: (a) headline, 'contexts like' as examples of where the top of the range "
        "lies: a reduction over 90% in at least one of the named contexts; (b) over 90% in each named context."
    ),
    methods=["recompute"],
)
def _sec5_reductions():
    D = Decimal
    pct = {f"CNN (Table 8) {ds}": 100 * (1 - _count(r["ndlinear"]) / _count(r["linear"])) for ds, r in TAB8_PRINTED.items()}
    pct["classification head (Table 6)"] = 100 * (1 - D(TAB6_PRINTED["ndlinear head"]) / D(TAB6_PRINTED["linear head"]))
    cnn = max(v for k, v in pct.items() if k.startswith("CNN"))
    head = pct["classification head (Table 6)"]
    ev = {k: f"{v:.2f}%" for k, v in pct.items()}
    return by_readings(
        threshold_reading("in some named context", "a reduction over 90% in a CNN feature extractor or a classification "
                          "head", {"over 90% in some named context": max(cnn, head) > 90}, reductions=ev),
        threshold_reading("in each named context", "a reduction over 90% in both the CNN and the classification head",
                          {"CNN feature extractor: over 90%": cnn > 90, "classification head: over 90%": head > 90},
                          reductions=ev))


def _eq1_flops(D, H) -> int:
    """eq. (1) written out for one sample (B = 1): 2 Σ_k (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k."""
    return 2 * sum(math.prod(H[:k]) * math.prod(D[k + 1:]) * D[k] * H[k] for k in range(len(D)))


def _replaced_cnn_layer() -> dict[str, Any]:
    """The dense layer NdLinear replaces in §4.5.2's CNN and the NdLinear that replaces it, at the architecture that
    reproduces Table 8's printed counts (tables._tab8_search; c2 = 64 channels pooled to 8 × 8): Linear(c2·s·s → 256)
    against NdLinear((c2, s, s) → (64, 8, 8)) (App. D.4). The largest layer the paper states both sides of."""
    arch = next(r for r in _tab8_search(10) if _m2(r["linear"]) == TAB8_PRINTED["cifar-10"]["linear"]
                and _k0(r["ndlinear"]) == TAB8_PRINTED["cifar-10"]["ndlinear"])
    D, H = (arch["c2"], arch["spatial"], arch["spatial"]), (64, 8, 8)
    n_in = math.prod(D)
    return {"architecture": {k: arch[k] for k in ("c1", "c2", "kernel", "spatial")}, "D": D, "H": H,
            "dense parameters": _linear(n_in, 256), "ndlinear parameters": _ndl(D, H),
            "dense FLOPs (2·in·out)": 2 * n_in * 256, "ndlinear FLOPs (eq. 1)": _eq1_flops(D, H)}


def _two_orders(ratio: str, factor: Decimal, layer: dict[str, Any]) -> tuple[Any, Any]:
    """The Impact Statement's two readings of 'up to two orders of magnitude' for one ratio of the replaced layer."""
    ev = dict(layer=jsonable(layer), factor=f"{factor:.2f}")
    return (threshold_reading("the replaced layer reaches 100x", f"{ratio} of the replaced layer >= 100",
                              {f"CNN head: {ratio} >= 100": factor >= 100}, **ev),
            threshold_reading("two orders to the nearest order", f"the replaced layer's {ratio} rounds to two orders",
                              {f"CNN head: log10({ratio}) rounds to 2":
                               factor.log10().quantize(Decimal(1), rounding=ROUND_HALF_UP) == 2}, **ev))


_IMPACT_QUOTE = ("NdLinear replaces each dense linear layer with an rank-1 factorization, cutting parameters and FLOPs "
                 "by up to two orders of magnitude on the benchmarks evaluated in this paper.")
_IMPACT_LAYER = (
    "The sentence is about each replaced layer ('replaces each dense linear layer ... cutting'), not whole models: "
    "the replaced layer with both sides stated is §4.5.2's CNN head (App. D.4), at the architecture that reproduces "
    "Table 8's counts (c2 = 64 channels pooled to 8 × 8): Linear(4096 → 256) against NdLinear((64, 8, 8) → (64, 8, "
    "8)). 'Up to two orders of magnitude' read as the reduction reaching 100× (at least 10^1.5 ≈ 31.6×, two orders "
    "to the nearest order, as a second reading). ")


@claim(
    "reneau2025:impact/orders-parameters",
    quote=_IMPACT_QUOTE,
    statement=_IMPACT_LAYER + (
        "The parameters half, counted as nn.Linear (in·out + out) and NdLinear (Σ D_k H_k + H_k), written out: "
        "1,048,832 against 4,304, about 244×. Readings: (a) the layer's reduction reaches 100×; (b) it rounds to two "
        "orders; (c) whole models (the benchmarks' printed totals, largest 16.5×: Table 8 CIFAR-10), recorded, not "
        "supported (the sentence is about the replaced layers). Exact integers."),
    methods=["recompute"],
)
def _impact_parameters():
    layer = _replaced_cnn_layer()
    factor = Decimal(layer["dense parameters"]) / Decimal(layer["ndlinear parameters"])
    models = max(_benchmark_reductions().values())
    return by_readings(
        *_two_orders("Linear / NdLinear parameters", factor, layer),
        threshold_reading("whole models", "the largest printed whole-model reduction of the benchmarks (" + _REDUCTIONS_NOTE
                          + ") reaches 100x", {"largest benchmark reduction >= 100x": models >= 100}, supported=False,
                          largest=f"{models:.2f}"),
    )


@claim(
    "reneau2025:impact/orders-flops",
    quote=_IMPACT_QUOTE,
    statement=_IMPACT_LAYER + (
        "The FLOPs half, by the paper's own counts (§3.2): the dense layer 2·in·out per sample, NdLinear eq. (1) "
        "written out, 2 Σ_k (Π_{j<k} H_j)(Π_{j>k} D_j) D_k H_k: 2,097,152 against 655,360, 3.2×. Readings: (a) the "
        "layer's reduction reaches 100×; (b) it rounds to two orders. Both fail: by eq. (1) the cut is about half an "
        "order (the parameters half is reneau2025:impact/orders-parameters). Exact integers; the paper prints no "
        "measured FLOPs for any benchmark."),
    methods=["recompute"],
)
def _impact_flops():
    layer = _replaced_cnn_layer()
    factor = Decimal(layer["dense FLOPs (2·in·out)"]) / Decimal(layer["ndlinear FLOPs (eq. 1)"])
    return by_readings(*_two_orders("dense / NdLinear FLOPs (eq. 1)", factor, layer))


@claim(
    "reneau2025:sec5/performance",
    quote="This efficiency is achieved while typically maintaining or, crucially, enhancing model performance.",
    statement=(
        "The Conclusion against every printed metric comparison of NdLinear with its baseline (exact decimals; "
        "'maintaining' = at most 2 points behind on a 0-100 accuracy scale, 0.02 on a 0-1 scale, 1% relative on "
        "errors and perplexity, thresholds ours): Table 1 (24 cells vs LoRA r=4, r=8), Table 2 (6, vs the Base "
        "Model), Table 3 (16 means), Table 4 (2 perplexities), Table 6 (4), Table 7 (2), Table 8 (2), Table 9 (18, "
        "each NdViT vs the naive ViT). Readings: (a) 'typically' as in most comparisons; (b) not the sentence "
        "(which says 'typically'): in every comparison."
    ),
    methods=["recompute"],
)
def _sec5_performance():
    D = Decimal
    cmp = {}
    for m, r in TAB1_ACC.items():
        for i in range(6):
            for k in ("lora-r4", "lora-r8"):
                cmp[f"Table 1 {m} col {i} vs {k}"] = D(r["ndlinear-lora"][i]) - D(r[k][i]) >= -2
    for ds, (b, _, n) in TAB2_F1.items():
        cmp[f"Table 2 {ds}"] = D(n) - D(b) >= D("-0.02")
    for ds, r in TAB3_ERR.items():
        for i, (li, n) in enumerate(zip(r["linear"], r["ndlinear"])):
            cmp[f"Table 3 {ds} col {i}"] = D(n) <= D(li) * D("1.01")
    for m, r in TAB4.items():
        cmp[f"Table 4 {m}"] = D(r["ndlinear"][0]) <= D(r["linear"][0]) * D("1.01")
    for ds, r in TAB6_RES.items():
        for i in (0, 1):
            cmp[f"Table 6 {ds} col {i}"] = D(r["ndlinear"][i]) - D(r["linear"][i]) >= D("-0.02")
    cmp["Table 7 cardio"] = D(TAB7_RES["cardio"]["ndlinear"]) - D(TAB7_RES["cardio"]["linear"]) >= D("-0.02")
    cmp["Table 7 delivery"] = D(TAB7_RES["delivery"]["ndlinear"]) <= D(TAB7_RES["delivery"]["linear"]) * D("1.01")
    for ds, r in TAB8_RES.items():
        cmp[f"Table 8 {ds}"] = D(r["ndlinear"]) - D(r["linear"]) >= D("-0.02")
    for ds, rows in TAB9.items():
        for b, row in rows.items():
            for dim, v in zip((200, 300, 400), row[:3]):
                cmp[f"Table 9 {ds} {b} blocks dim {dim}"] = D(v) - D(row[3]) >= -2
    good = sum(cmp.values())
    behind = [k for k, v in cmp.items() if not v]
    return by_readings(
        threshold_reading("typically = most", "performance maintained or improved in most printed comparisons",
                          {"maintained or improved in most comparisons": 2 * good > len(cmp)},
                          maintained_or_improved=good, comparisons=len(cmp), behind=behind),
        threshold_reading("every comparison", "performance maintained or improved in every printed comparison",
                          {"maintained or improved in every comparison": good == len(cmp)}, supported=False, behind=behind))


__all__ = [k for k in list(globals()) if not k.startswith("__") and k not in ("annotations", "compare_printed")]
