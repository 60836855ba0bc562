"""`bench plot sgts-vs-fewshot`: each model's mean SgTS against its mean k-shot accuracy (SentiCSE (Kim et al., 2024)
Figure 5 / Figure 7), with Pearson's r and Spearman's rho across models in the title.

One point per (model, revision) result folder and variant. SgTS: the mean main score (Spearman) of its
`sgts-*` results; k-shot: the mean main score (accuracy) of its SentiCSE-protocol results, frozen
(`fewshot-frozen-senticse-*`: logistic regression on frozen embeddings, which every model with the frozen
twins has) and fine-tuned (`fewshot-senticse-k*`, the default head; the `-pooled-` head variants are not
plotted). Only results made under their task's current version count (`results.store.current`). The default
figure shows both variants (shape and colour: variant; each point labelled with its model's name, placed clear
of the others by `core.scatter_labels`); `frozen=True` draws the frozen twins alone. Both axes are x 100, as
the board's tables. So that the means compare like with like, only tasks that every plotted model has are
averaged (a model without any such result is left out and named in the figure's footnote). The title gives
each variant's Spearman rho with its 95% interval (Fisher's z with Fieller et al.'s 1957 variance 1.06 / (n - 3))
and n, and no correlation at all for fewer than 5 models ("too few models").
"""

from __future__ import annotations

import io
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from scipy.stats import pearsonr, spearmanr

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_bytes
from sentibench.results.store import ResultStore, current

matplotlib.use("Agg")


def collect(results_dir: Path, frozen: bool = False) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """{model label: ({sgts task: score}, {k-shot task: score})} from the result files under `results_dir`."""
    prefix = "fewshot-frozen-senticse-k" if frozen else "fewshot-senticse-k"
    found: dict[str, tuple[dict[str, float], dict[str, float]]] = defaultdict(lambda: ({}, {}))
    store = ResultStore.load(results_dir)
    store.check_one_weights()
    results, _older_versions = current(store.results)
    for result in results:
        name, value = result.task_name, result.main_score()
        if value is None:
            continue
        label = f"{result.path.parent.parent.name}@{result.path.parent.name}"
        if name.startswith("sgts-"):
            found[label][0][name] = float(value)
        elif name.startswith(prefix):
            found[label][1][name] = float(value)
    return dict(found)


def _common(tables: list[dict[str, float]]) -> set[str]:
    return set.intersection(*(set(t) for t in tables)) if tables else set()


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.2f}"


@dataclass(frozen=True)
class Summary:
    """The plotted points: one per model, with the tasks averaged and the correlations across models."""

    labels: list[str]
    sgts: np.ndarray
    kshot: np.ndarray
    sgts_tasks: list[str]
    kshot_tasks: list[str]
    left_out: list[str]
    pearson: float | None
    spearman: float | None


def summarize(results_dir: Path, frozen: bool = False, sgts_tasks: list[str] | None = None) -> Summary:
    """Each model's mean SgTS and mean k-shot accuracy over the tasks every model has (or over `sgts_tasks`,
    leaving out the models without all of them); correlations need at least 3 models (and some spread),
    else None."""
    found = collect(Path(results_dir), frozen)
    usable = {m: v for m, v in found.items() if v[0] and v[1] and set(sgts_tasks or ()) <= set(v[0])}
    if not usable:
        raise BenchError(f"no model under {results_dir} has both sgts-* and "
                         f"{'fewshot-frozen-senticse' if frozen else 'fewshot-senticse'}-k* results made under "
                         "the tasks' current versions; "
                         "run `bench run -m MODEL -t sgts,fewshot` first")
    sgts_tasks = sgts_tasks or sorted(_common([v[0] for v in usable.values()]))
    shot_tasks = sorted(_common([v[1] for v in usable.values()]))
    if not sgts_tasks or not shot_tasks:
        raise BenchError("the models share no sgts or k-shot task; run the same tasks on every model")
    labels = sorted(usable)
    x = np.array([np.mean([usable[m][0][t] for t in sgts_tasks]) for m in labels])
    y = np.array([np.mean([usable[m][1][t] for t in shot_tasks]) for m in labels])
    pearson = spearman = None
    if len(labels) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
        pearson, spearman = float(pearsonr(x, y)[0]), float(spearmanr(x, y)[0])
    return Summary(labels, x, y, sgts_tasks, shot_tasks, sorted(set(found) - set(usable)), pearson, spearman)


VARIANT_MARKERS = {"frozen": "o", "fine-tuned": "^"}


def summaries(results_dir: Path, frozen_only: bool = False) -> dict[str, Summary]:
    """The plotted variants ({"frozen": ..., "fine-tuned": ...}; those without results are absent), their
    SgTS means over the SgTS tasks every plotted model of every variant has."""
    found: dict[str, Summary] = {}
    for variant in ("frozen",) if frozen_only else ("frozen", "fine-tuned"):
        try:
            found[variant] = summarize(results_dir, frozen=variant == "frozen")
        except BenchError:
            if frozen_only or variant == "fine-tuned" and not found:
                raise
    shared = sorted(_common([set(s.sgts_tasks) for s in found.values()])) if found else []
    if len(found) > 1 and any(s.sgts_tasks != shared for s in found.values()):
        found = {variant: summarize(results_dir, frozen=variant == "frozen", sgts_tasks=shared)
                 for variant in found}
    return found


VARIANT_COLOURS = {"frozen": "tab:blue", "fine-tuned": "tab:orange"}
MIN_MODELS = 5  # fewer models give no correlation worth printing


def figure_sgts_vs_fewshot(results_dir: Path, frozen: bool = False):  # -> matplotlib.figure.Figure
    """The scatter: one marker per model and variant (shape and colour: variant), each labelled with its model,
    the correlations per variant in the title, the averaged tasks in the footnote."""
    from matplotlib.figure import Figure

    from sentibench.core.scatter_labels import FIRST_PLACE, spread_labels

    found = summaries(Path(results_dir), frozen_only=frozen)
    labels = sorted({label for s in found.values() for label in s.labels})
    short = [m.split("@")[0] for m in labels]
    names = dict(zip(labels, short if len(set(short)) == len(short) else labels))
    figure = Figure(figsize=(10, 7.5), layout="constrained")
    axes = figure.subplots()
    texts = []
    for variant, s in found.items():
        axes.scatter(100 * s.sgts, 100 * s.kshot, marker=VARIANT_MARKERS[variant], color=VARIANT_COLOURS[variant],
                     s=36, edgecolors="black", linewidths=0.4, gid=f"{variant}:points",
                     label=f"{variant} ({len(s.labels)} models, {len(s.kshot_tasks)} tasks)")
        for label, x, y in zip(s.labels, s.sgts, s.kshot):
            text = axes.annotate(names[label], (100 * x, 100 * y), textcoords="offset points", xytext=FIRST_PLACE,
                                 fontsize=7, color="0.15")
            text.set_gid(f"label:{variant}:{label}")
            texts.append(text)
    first = next(iter(found.values()))
    axes.set_xlabel(f"SgTS: Spearman rho x 100, mean over {len(first.sgts_tasks)} datasets")
    axes.set_ylabel("k-shot accuracy x 100, mean over the variant's tasks")
    axes.margins(x=0.12, y=0.1)
    axes.grid(alpha=0.3)
    axes.legend(title="k-shot variant", fontsize=8, title_fontsize=8, loc="lower right")
    axes.set_title(title_of(found), fontsize=10)
    left_out = sorted({m for s in found.values() for m in s.left_out} - set(labels))
    footnote = textwrap.fill("; ".join([f"SgTS: {', '.join(first.sgts_tasks)}"]
                                       + [f"{v}: {', '.join(s.kshot_tasks)}" for v, s in found.items()]
                                       + ([f"left out (missing results): {', '.join(left_out)}"] if left_out
                                          else [])), width=150)
    lines = footnote.count("\n") + 1
    figure.get_layout_engine().set(rect=(0, 0.01 + 0.02 * lines, 1, 1 - 0.01 - 0.02 * lines))
    figure.text(0.01, 0.008, footnote, fontsize=7, va="bottom")
    spread_labels(figure, texts)
    return figure


def plot_sgts_vs_fewshot(results_dir: Path, out_path: Path, frozen: bool = False) -> Path:
    """Draw the scatter to `out_path` (PNG) and return it."""
    figure = figure_sgts_vs_fewshot(results_dir, frozen)
    out_path = Path(out_path)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=150, metadata={"Software": None})
    atomic_write_bytes(out_path, buffer.getvalue())
    return out_path


def title_of(found: dict[str, Summary]) -> str:
    """One line per variant: its number of models and its rank correlation."""
    return "SgTS against k-shot accuracy, one point per model\n" + "\n".join(
        f"{v}: {correlation_text(s)}" for v, s in found.items())


def spearman_interval(rho: float, n: int) -> tuple[float, float]:
    """The 95% interval of Spearman's rho over n pairs: Fisher's z with variance 1.06 / (n - 3) (Fieller,
    Hartley and Pearson 1957)."""
    z, half = np.arctanh(np.clip(rho, -0.999999, 0.999999)), 1.959964 * np.sqrt(1.06 / (n - 3))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def correlation_text(s: Summary) -> str:
    """`Spearman rho = 0.62 [0.27, 0.83] over 25 models`, or why there is none."""
    n = len(s.labels)
    if n < MIN_MODELS or s.spearman is None:
        return f"{n} model{'' if n == 1 else 's'}: too few models (or no spread) for a correlation"
    low, high = spearman_interval(s.spearman, n)
    return (f"Spearman ρ = {_fmt(s.spearman)} [{_fmt(low)}, {_fmt(high)}] over {n} models "
            f"(Pearson r = {_fmt(s.pearson)})")
