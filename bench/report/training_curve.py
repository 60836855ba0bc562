"""A trained model's training curve for its page: the loss (and its parts) by step on the left, the
validation criterion that chose the checkpoint by step on the right (its y axis names the criterion, e.g. the
negative validation loss for InfoDCL), the kept step marked, each legend below its panel so it covers no
data. Drawn with matplotlib as inline SVG with fixed ids and no date, so the same log gives the same bytes."""

from __future__ import annotations

import io

from sentibench.results.training_log import TrainingLog


def _series(points: list[dict[str, float | int]]) -> dict[str, tuple[list[float], list[float]]]:
    names = sorted({key for point in points for key in point} - {"step"})
    return {name: ([p["step"] for p in points if name in p], [p[name] for p in points if name in p])
            for name in names}


CRITERIA = {  # method -> what its log's `validation` is (the methods' own train modules select on it)
    "senticse": "validation SgTS (Spearman), higher is better",
    "infodcl": "minus the validation loss, higher is better",
    "sifter-simcse": "STS-B validation Spearman, higher is better",
    "sifter-lstm": "validation accuracy, higher is better",
    "polarity-st": "P@16 and S on validation texts, higher is better",
}


def criterion(log: TrainingLog) -> str:
    return CRITERIA.get(log.method or "", "validation criterion, higher is better")


def figure(log: TrainingLog):  # -> matplotlib.figure.Figure
    """Two panels (loss, validation), each series with its legend entry, a dashed line at the kept step."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    out = Figure(figsize=(9.5, 3.8), layout="constrained")
    panels = (("training loss (window means)", "loss", log.loss_curve),
              ("validation (checkpoint criterion)", criterion(log), log.history))
    for axes, (title, ylabel, points) in zip(out.subplots(1, 2), panels):
        for name, (steps, values) in _series(points).items():
            axes.plot(steps, values, marker="o", markersize=2.5, linewidth=1, label=name, gid=f"{title}:{name}")
        if log.best_step is not None and points:
            axes.axvline(log.best_step, color="0.5", linestyle="--", linewidth=0.8, label=f"kept: step {log.best_step}")
        axes.set_title(title if points else f"{title}: not recorded", fontsize=10)
        axes.set_xlabel("training step")
        axes.set_ylabel(ylabel, fontsize=8)
        axes.grid(alpha=0.3)
        if points:
            axes.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    return out


def svg(log: TrainingLog) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "sentibench", "svg.fonttype": "none"}):
        figure(log).savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]
