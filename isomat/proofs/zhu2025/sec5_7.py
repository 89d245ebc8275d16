"""zhu2025 §5-7 and the tables: empirical statements."""

from __future__ import annotations

from ..engine import claim, compare_printed, not_checkable


# ---------------------------------------------------------------------------------------------
# §5-7: empirical statements
# ---------------------------------------------------------------------------------------------
@claim(
    "zhu2025:sec6.1",
    quote="MNIST[16] (60,000 28×28 grayscale images for training and 10,000 for testing) ... WikiText-2 [22] "
          "(2,088,628 tokens for training, 217,646 for validation and 245,569 for testing)",
    statement="§6.1's dataset facts (image counts and sizes for MNIST, CIFAR-10/100, Tiny ImageNet; ETTh1 and "
              "Electricity splits; AG News, WikiText-2 and Penn Treebank counts) are facts about external data sets; "
              "checking them needs the data sets, which the project does not have.",
    methods=["recompute"],
)
def _sec6_1():
    return not_checkable("dataset sizes and splits need the data sets themselves (not available offline)",
                         datasets=["MNIST", "CIFAR-10", "CIFAR-100", "Tiny ImageNet", "ETTh1",
                                   "Electricity Load Diagrams", "AG News", "WikiText-2", "Penn Treebank"])


@claim(
    "zhu2025:sec5",
    quote="matrix–vector and matrix–matrix products align perfectly with GPU parallelism and specialized tensor cores, "
          "yielding high throughput for both dense and structured sparse patterns",
    statement="A performance statement about GPUs and tensor cores with no measurement given; it needs hardware "
              "benchmarks, not mathematics (see benchmarks/conv.py for this project's CPU measurements).",
    methods=["recompute"],
)
def _sec5():
    return not_checkable("hardware throughput claim without a stated measurement; needs GPU benchmarks")


@claim(
    "zhu2025:tab1",
    quote="Table 1: Grouped hyperparameters",
    statement="Training hyperparameters (batch size, learning rates, epochs, ...) for the experiments: settings of "
              "training runs, not checkable without re-running the training on the datasets.",
    methods=["recompute"],
)
def _tab1():
    return not_checkable("training hyperparameters; reproducing them needs the datasets and GPU training runs")


@claim(
    "zhu2025:tab2",
    quote="Table 2: Performance and convergence epochs for original models vs. sparse-isomorphic matrix formulations",
    statement="Accuracies, AMSE, perplexities and epochs from training on MNIST, CIFAR-10/100, Tiny ImageNet, ETTh1, "
              "Electricity, AG News, WikiText-2, PTB: empirical results that need the datasets and training.",
    methods=["recompute"],
)
def _tab2():
    return not_checkable("empirical training results; need the nine datasets and GPU training (6 h per dataset on an RTX 4090)")


# Table 2 as printed (original metric, original epoch, sparse metric, sparse epoch)
TABLE2 = {
    "MNIST": (90.6, 46, 92.48, 38),
    "CIFAR-10": (40.89, 70, 38.42, 67),
    "CIFAR-100": (28.14, 59, 29.21, 64),
    "Tiny ImageNet": (8.24, 20, 8.36, 22),
    "ETTh1": (0.012107, 100, 0.018001, 94),
    "Electricity LD": (0.141201, 20, 0.112086, 22),
    "AG News": (90.97, 5, 90.68, 5),
    "WikiText-2": (172.4, 26, 173.6, 24),
    "Penn Treebank": (137.3, 54, 135.7, 56),
}


# Table 1 as printed: the "epochs" column (number of epochs)
TABLE1_EPOCHS = {
    "MNIST": 150, "CIFAR-10": 150, "CIFAR-100": 200, "Tiny ImageNet": 20, "ETTh1": 200,
    "Electricity LD": 100, "AG News": 100, "WikiText-2": 100, "Penn Treebank": 100,
}


@claim(
    "zhu2025:tab2/epochs-vs-tab1",
    quote="Table 1 ... epochs=number of epochs ... Tiny ImageNet 128 1e-3 20 ... Table 2: Performance and convergence "
          "epochs ... Tiny ImageNet ... 20 ... 22",
    statement="Each convergence epoch of Table 2 (original and sparse model) is at most the number of training epochs "
              "Table 1 gives for that dataset (§6.3: 'All models are trained with' the Table 1 settings). Both tables "
              "transcribed here; recompute of max(epoch) ≤ epochs per dataset.",
    methods=["recompute"],
)
def _tab2_epochs():
    printed, recomputed = {}, {}
    for name, (_, e_orig, _, e_sparse) in TABLE2.items():
        for model, e in (("original", e_orig), ("sparse", e_sparse)):
            key = f"{name}: {model} convergence epoch {e} within Table 1's {TABLE1_EPOCHS[name]} epochs"
            printed[key] = 1
            recomputed[key] = int(e <= TABLE1_EPOCHS[name])
    return compare_printed(printed, recomputed, kind="inconsistent")


@claim(
    "zhu2025:sec7/text-vs-tab2",
    quote="the matrix variant achieves higher accuracy on MNIST (92.48% vs. 90.6%) and CIFAR-100 (29.21% vs. 28.14%) "
          "with faster convergence ... the original RNN yields slightly lower AMSE on ETTh1 but the sparse model "
          "outperforms on Electricity Load Diagrams ... perplexity on Penn Treebank improves marginally ... WikiText-2 "
          "shows a minor increase in perplexity",
    statement="Each comparison stated in the §7 text, recomputed from Table 2 as printed (transcribed here): "
              "'faster convergence' = fewer epochs; lower AMSE/perplexity is better.",
    methods=["recompute"],
)
def _sec7():
    t = TABLE2
    printed = {
        "MNIST: sparse accuracy higher": True,
        "MNIST: quoted accuracies (sparse, original)": [92.48, 90.6],
        "MNIST: sparse converges faster": True,
        "CIFAR-100: sparse accuracy higher": True,
        "CIFAR-100: quoted accuracies (sparse, original)": [29.21, 28.14],
        "CIFAR-100: sparse converges faster": True,
        "ETTh1: original AMSE lower": True,
        "Electricity LD: sparse AMSE lower": True,
        "Penn Treebank: sparse perplexity lower": True,
        "WikiText-2: sparse perplexity higher": True,
    }
    recomputed = {
        "MNIST: sparse accuracy higher": t["MNIST"][2] > t["MNIST"][0],
        "MNIST: quoted accuracies (sparse, original)": [t["MNIST"][2], t["MNIST"][0]],
        "MNIST: sparse converges faster": t["MNIST"][3] < t["MNIST"][1],
        "CIFAR-100: sparse accuracy higher": t["CIFAR-100"][2] > t["CIFAR-100"][0],
        "CIFAR-100: quoted accuracies (sparse, original)": [t["CIFAR-100"][2], t["CIFAR-100"][0]],
        "CIFAR-100: sparse converges faster": t["CIFAR-100"][3] < t["CIFAR-100"][1],
        "ETTh1: original AMSE lower": t["ETTh1"][0] < t["ETTh1"][2],
        "Electricity LD: sparse AMSE lower": t["Electricity LD"][2] < t["Electricity LD"][0],
        "Penn Treebank: sparse perplexity lower": t["Penn Treebank"][2] < t["Penn Treebank"][0],
        "WikiText-2: sparse perplexity higher": t["WikiText-2"][2] > t["WikiText-2"][0],
    }
    printed = {k: (int(v) if isinstance(v, bool) else v) for k, v in printed.items()}
    recomputed = {k: (int(v) if isinstance(v, bool) else v) for k, v in recomputed.items()}
    return compare_printed(printed, recomputed, kind="inconsistent", rel_tol=1e-12,
                           reading="'with faster convergence' read as qualifying both MNIST and CIFAR-100; read as "
                                   "qualifying MNIST only, the text agrees with Table 2 (MNIST 38 < 46 epochs)")
