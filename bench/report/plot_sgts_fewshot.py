"""`bench plot sgts-vs-fewshot`: each model's mean SgTS against its mean k-shot accuracy (SentiCSE (Kim et al., 2024)
Figure 5 / Figure 7), with Pearson's r and Spearman's rho across models in the title.

One point per (model, revision) result folder. SgTS: the mean main score (Spearman) of its `sgts-*`
results; k-shot: the mean main score (accuracy) of its SentiCSE-protocol results `fewshot-senticse-*`
(fine-tuned; `frozen=True` uses the `fewshot-frozen-senticse-*` twins instead). So that the means
compare like with like, only tasks that every plotted model has are averaged (a model without any such
result is left out and named in the figure's footnote).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from scipy.stats import pearsonr, spearmanr

from sentibench.core.errors import BenchError
from sentibench.results.task_result import iter_results

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)


def collect(results_dir: Path, frozen: bool = False) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """{model label: ({sgts task: score}, {k-shot task: score})} from the result files under `results_dir`."""
    prefix = "fewshot-frozen-senticse-" if frozen else "fewshot-senticse-"
    found: dict[str, tuple[dict[str, float], dict[str, float]]] = defaultdict(lambda: ({}, {}))
    for result in iter_results(results_dir):
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


def summarize(results_dir: Path, frozen: bool = False) -> Summary:
    """Each model's mean SgTS and mean k-shot accuracy over the tasks every model has; correlations need
    at least 3 models (and some spread), else None."""
    found = collect(Path(results_dir), frozen)
    usable = {m: v for m, v in found.items() if v[0] and v[1]}
    if not usable:
        raise BenchError(f"no model under {results_dir} has both sgts-* and "
                         f"{'fewshot-frozen-senticse' if frozen else 'fewshot-senticse'}-* results; "
                         "run `bench run -m MODEL -t sgts,fewshot` first")
    sgts_tasks = sorted(_common([v[0] for v in usable.values()]))
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


def plot_sgts_vs_fewshot(results_dir: Path, out_path: Path, frozen: bool = False) -> Path:
    """Draw the scatter to `out_path` (PNG) and return it."""
    s = summarize(results_dir, frozen)
    # Labels drop the revision when the model names alone are unique.
    short = [m.split("@")[0] for m in s.labels]
    names = short if len(set(short)) == len(short) else s.labels
    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    axes.scatter(s.sgts, 100 * s.kshot)
    for xi, yi, name in zip(s.sgts, s.kshot, names):
        axes.annotate(name, (xi, 100 * yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
    axes.set_xlabel(f"mean SgTS (Spearman) over {len(s.sgts_tasks)} datasets")
    variant = "frozen" if frozen else "fine-tuned"
    axes.set_ylabel(f"k-shot accuracy (%), {variant}, mean of {len(s.kshot_tasks)} tasks")
    axes.margins(x=0.25, y=0.15)  # room for the labels
    axes.set_title(title(s), fontsize=10)
    footnote = "; ".join([f"SgTS: {', '.join(s.sgts_tasks)}", f"k-shot: {', '.join(s.kshot_tasks)}"]
                         + ([f"left out (missing results): {', '.join(s.left_out)}"] if s.left_out else []))
    figure.text(0.01, 0.01, footnote, fontsize=5, wrap=True)
    figure.tight_layout(rect=(0, 0.06, 1, 1))
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_path, dpi=150)
    plt.close(figure)
    return out_path


def title(s: Summary) -> str:
    n = len(s.labels)
    return (f"SgTS vs k-shot accuracy ({n} model{'' if n == 1 else 's'}): "
            f"Pearson r = {_fmt(s.pearson)}, Spearman ρ = {_fmt(s.spearman)}")
