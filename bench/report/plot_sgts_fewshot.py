"""`bench plot sgts-vs-fewshot`: each model's mean SgTS against its mean k-shot accuracy (SentiCSE (Kim et al., 2024)
Figure 5 / Figure 7), with Pearson's r and Spearman's rho across models in the title.

One point per (model, revision) result folder and variant. SgTS: the mean main score (Spearman) of its
`sgts-*` results; k-shot: the mean main score (accuracy) of its SentiCSE-protocol results, frozen
(`fewshot-frozen-senticse-*`: logistic regression on frozen embeddings, which every model with the frozen
twins has) and fine-tuned (`fewshot-senticse-k*`, the default head; the `-pooled-` head variants are not
plotted). Only results made under their task's current version count (`leaderboard.current`). The default
figure shows both variants (shape: variant; colour: model, each with a legend); `frozen=True` draws the frozen
twins alone. So that the means compare like with like, only tasks that every plotted model has are averaged
(a model without any such result is left out and named in the figure's footnote).
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from scipy.stats import pearsonr, spearmanr

from sentibench.core.errors import BenchError
from sentibench.report.leaderboard import current
from sentibench.results.task_result import check_one_weights_per_folder, iter_results

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)


def collect(results_dir: Path, frozen: bool = False) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """{model label: ({sgts task: score}, {k-shot task: score})} from the result files under `results_dir`."""
    prefix = "fewshot-frozen-senticse-k" if frozen else "fewshot-senticse-k"
    found: dict[str, tuple[dict[str, float], dict[str, float]]] = defaultdict(lambda: ({}, {}))
    results, _older_versions = current(list(iter_results(results_dir)))
    check_one_weights_per_folder(results)
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


def distinct_colours(n: int) -> list[tuple[float, ...]]:
    """`n` colours, no two alike: matplotlib's three 20-colour qualitative maps in turn (tab20 first, so a
    board of up to 20 models keeps its colours), and past 60 models, `n` even steps along turbo."""
    palette = [colour for name in ("tab20", "tab20b", "tab20c") for colour in plt.get_cmap(name).colors]
    return palette[:n] if n <= len(palette) else [tuple(plt.get_cmap("turbo")(i / (n - 1))) for i in range(n)]


def figure_sgts_vs_fewshot(results_dir: Path, frozen: bool = False):  # -> matplotlib.figure.Figure
    """The scatter: one marker per model and variant (shape: variant, colour: model), both legends, the
    correlations per variant in the title, the averaged tasks in the footnote."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    found = summaries(Path(results_dir), frozen_only=frozen)
    labels = sorted({label for s in found.values() for label in s.labels})
    short = [m.split("@")[0] for m in labels]
    names = dict(zip(labels, short if len(set(short)) == len(short) else labels))
    colours = dict(zip(labels, distinct_colours(len(labels))))
    figure = Figure(figsize=(8, 5.6), layout="constrained")
    axes = figure.subplots()
    for variant, s in found.items():
        for label, x, y in zip(s.labels, s.sgts, s.kshot):
            axes.scatter([x], [100 * y], marker=VARIANT_MARKERS[variant], color=colours[label], s=45,
                         gid=f"{variant}:{label}", edgecolors="black", linewidths=0.4)
    first = next(iter(found.values()))
    axes.set_xlabel(f"mean SgTS (Spearman) over {len(first.sgts_tasks)} datasets")
    axes.set_ylabel("k-shot accuracy (%), mean over the variant's tasks")
    axes.margins(x=0.08, y=0.1)
    axes.grid(alpha=0.3)
    variants = [Line2D([], [], marker=VARIANT_MARKERS[v], linestyle="", color="0.4",
                       label=f"{v} ({len(s.labels)} models, {len(s.kshot_tasks)} tasks)") for v, s in found.items()]
    shapes = axes.legend(handles=variants, title="shape: k-shot variant", fontsize=7, title_fontsize=8,
                         loc="best")  # inside the axes, where it covers the fewest points
    axes.add_artist(shapes)
    # the axes' own legend, which the layout makes room for: the colours fill the column beside the axes
    axes.legend(handles=[Line2D([], [], marker="s", linestyle="", color=colours[m], label=names[m])
                         for m in labels], title="colour: model", fontsize=7, title_fontsize=8,
                loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes.set_title(title_of(found), fontsize=10)
    left_out = sorted({m for s in found.values() for m in s.left_out} - set(labels))
    footnote = textwrap.fill("; ".join([f"SgTS: {', '.join(first.sgts_tasks)}"]
                                       + [f"{v}: {', '.join(s.kshot_tasks)}" for v, s in found.items()]
                                       + ([f"left out (missing results): {', '.join(left_out)}"] if left_out
                                          else [])), width=200)
    lines = footnote.count("\n") + 1
    figure.get_layout_engine().set(rect=(0, 0.015 + 0.016 * lines, 1, 1 - 0.015 - 0.016 * lines))
    figure.text(0.01, 0.008, footnote, fontsize=5, va="bottom")
    return figure


def plot_sgts_vs_fewshot(results_dir: Path, out_path: Path, frozen: bool = False) -> Path:
    """Draw the scatter to `out_path` (PNG) and return it."""
    figure = figure_sgts_vs_fewshot(results_dir, frozen)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_path, dpi=150, metadata={"Software": None})
    return out_path


def title_of(found: dict[str, Summary]) -> str:
    """One line per variant: its number of models and its correlations."""
    return "SgTS vs k-shot accuracy\n" + "\n".join(f"{v}: {title(s).split(': ', 1)[1]} ({len(s.labels)} models)"
                                                    for v, s in found.items())


def title(s: Summary) -> str:
    n = len(s.labels)
    return (f"SgTS vs k-shot accuracy ({n} model{'' if n == 1 else 's'}): "
            f"Pearson r = {_fmt(s.pearson)}, Spearman ρ = {_fmt(s.spearman)}")
