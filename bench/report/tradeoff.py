"""The field's central trade-off: sentiment awareness against semantic similarity, one point per model.

Left: mean SgTS over the required SgTS tasks (y) against STS-B (x); right: retrieval's Polarity Score P (y)
against its Semantic Similarity Score S (x), each the mean over the required retrieval tasks. Error bars are
the 95% intervals of the overview (`report.overview.group_mean`) and of STS-B's own result; retrieval S has
no stored interval, so it has no horizontal bar. A model is plotted in a panel only when it has every task
that panel averages. A method card is joined to its base (the card's `base:`) by an arrow from the base.
Each label sits beside its point, clear of the other labels and markers, or, in a cluster too dense for that,
farther out with a leader line to its point (`sentibench.core.scatter_labels`).
Drawn with matplotlib: as a PNG for the README and as inline SVG for the web page.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from sentibench.core.scatter_labels import FIRST_PLACE, spread_labels
from sentibench.report.leaderboard import KINDS, Board

STSB = "sts-stsb"
KIND_COLOURS = {"pretrained": "tab:blue", "trained here": "tab:orange", "baseline": "tab:gray"}


@dataclass(frozen=True)
class Point:
    """One model in one panel: its position, each axis's interval (None: not recorded) and its base."""

    model: str
    kind: str
    base: str | None
    x: float
    y: float
    x_interval: tuple[float, float] | None
    y_interval: tuple[float, float] | None


@dataclass(frozen=True)
class Panel:
    key: str          # names the panel's artists: `point:KEY:MODEL`, `arrow:KEY:MODEL`
    title: str
    x_label: str
    y_label: str
    points: list[Point]


def _interval(low: float | None, high: float | None) -> tuple[float, float] | None:
    return None if low is None or high is None else (100 * low, 100 * high)


def _bases(board: Board) -> dict[str, str | None]:
    """Each row's base as a row label: the base card's name when that name labels exactly one row."""
    names = {label: next(iter(results.values())).provenance.model for label, results in board.by_model.items()}
    rows_of: dict[str, list[str]] = {}
    for label, info in names.items():
        if info is not None:
            rows_of.setdefault(info.name, []).append(label)
    bases = {}
    for label, info in names.items():
        base = info.base if info is not None else None
        bases[label] = rows_of[base][0] if base in rows_of and len(rows_of[base]) == 1 else None
    return bases


def panels(board: Board) -> list[Panel]:
    """The two panels' points, from the board's results (module docstring)."""
    groups, bases = board.overview.groups, _bases(board)
    means = {row.model: row.means for row in board.overview.ranked + board.overview.partial}
    sgts, retrieval = groups.get("sgts", []), groups.get("retrieval", [])
    similarity, polarity = [], []
    for model, results in board.by_model.items():
        kind, base = board.kinds[model], bases[model]
        if "sgts" in means[model] and STSB in results:
            mean, stsb = means[model]["sgts"], results[STSB]
            ci = stsb.confidence_interval()
            similarity.append(Point(model, kind, base, 100 * stsb.main_score(), 100 * mean.mean,
                                    _interval(ci.low, ci.high) if ci else None, _interval(mean.low, mean.high)))
        scores = [results[t].scores[results[t].main_split][0] for t in retrieval if t in results]
        if "retrieval" in means[model] and all(s.metric("semantic_similarity_score") is not None for s in scores):
            mean = means[model]["retrieval"]
            s_mean = sum(s.metric("semantic_similarity_score") for s in scores) / len(scores)
            polarity.append(Point(model, kind, base, 100 * s_mean, 100 * mean.mean, None,
                                  _interval(mean.low, mean.high)))
    return [Panel("sgts", "SgTS against STS-B", "STS-B (Spearman x 100)",
                  f"mean SgTS over {len(sgts)} datasets (Spearman x 100)", similarity),
            Panel("retrieval", "Retrieval: polarity P against similarity S",
                  f"retrieval S, mean of {len(retrieval)} datasets",
                  f"retrieval P, mean of {len(retrieval)} datasets", polarity)]


def draw(board: Board):  # -> matplotlib.figure.Figure (matplotlib is imported only when drawing)
    """The two-panel figure; each point's marker and each arrow carries its panel and model in its gid."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    figure = Figure(figsize=(12, 5.5), layout="constrained")
    labels = []
    for axes, panel in zip(figure.subplots(1, 2), panels(board)):
        placed = {p.model: p for p in panel.points}
        for point in panel.points:
            base = placed.get(point.base) if point.base else None
            if base is not None:
                arrow = axes.annotate("", (point.x, point.y), (base.x, base.y),
                                      arrowprops={"arrowstyle": "->", "color": "0.55", "lw": 0.8})
                arrow.arrow_patch.set_gid(f"arrow:{panel.key}:{point.model}")
        for point in panel.points:
            xerr = None if point.x_interval is None else [[point.x - point.x_interval[0]],
                                                          [point.x_interval[1] - point.x]]
            yerr = None if point.y_interval is None else [[point.y - point.y_interval[0]],
                                                          [point.y_interval[1] - point.y]]
            bars = axes.errorbar([point.x], [point.y], xerr=xerr, yerr=yerr, fmt="o", markersize=5, capsize=2,
                                 color=KIND_COLOURS[point.kind], elinewidth=0.8)
            bars.lines[0].set_gid(f"point:{panel.key}:{point.model}")
            label = axes.annotate(point.model, (point.x, point.y), textcoords="offset points",
                                  xytext=FIRST_PLACE, fontsize=6.5)
            label.set_gid(f"label:{panel.key}:{point.model}")
            labels.append(label)
        axes.set_title(f"{panel.title} ({len(panel.points)} models)", fontsize=11)
        axes.set_xlabel(panel.x_label)
        axes.set_ylabel(panel.y_label)
        axes.grid(alpha=0.3)
        if not panel.points:
            axes.text(0.5, 0.5, "no model has these tasks yet", transform=axes.transAxes, ha="center")
    handles = [Line2D([], [], marker="o", linestyle="", color=KIND_COLOURS[k], label=k) for k in KINDS]
    handles.append(Line2D([], [], color="0.55", marker=">", markersize=4, label="base → method card"))
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=9,
                  title="colour: model kind; bars: 95% interval")
    figure.suptitle("Sentiment awareness against semantic similarity", fontsize=13)
    spread_labels(figure, labels)
    return figure


def write_png(board: Board, path: Path | str) -> str:
    """The figure as a PNG (no timestamp or software version inside: same results, same bytes) at `path`
    (`core.io.write_output`: `-` is standard output); where it went."""
    from sentibench.core.io import write_output

    figure = draw(board)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=130, metadata={"Software": None})
    return write_output(path, buffer.getvalue())


def svg(board: Board) -> str:
    """The figure as inline SVG for the web page (fixed ids, no date: same results, same bytes)."""
    import matplotlib

    figure = draw(board)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "sentibench", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]
