"""Tables 5 and 6 (P and S per loss x margin x model) and the P-vs-S scatter, rendered from a sweep's
`configuration.json` records only (never typed), beside the paper's MiniLM-6 columns for comparison."""

from __future__ import annotations

import json
from pathlib import Path

from tabulate import tabulate

from sentibench.core.io import atomic_write_text
from sentibench.core.scatter_labels import FIRST_PLACE, spread_labels
from sentibench.training.methods import SWEEP_RECORD

BEGIN, END = "<!-- polarity-sweep:begin -->", "<!-- polarity-sweep:end -->"
LABELS = {"reference": "Reference", "setfit": "Cosine (SetFit)", "contrastive": "Contrastive",
          "mnrl": "MultipleNeg", "online-contrastive": "OnlineContr", "triplet": "Triplet"}
ROW_ORDER = ("reference", "setfit", "contrastive", "mnrl", "online-contrastive", "triplet")
LEGEND = {**LABELS, "mnrl": "MultipleNegativesRanking", "online-contrastive": "OnlineContrastive"}
"""The figure's legend names each loss in full (the tables keep the paper's short row names)."""
# The paper's minilm-6 columns (Tables 5 and 6, x100, mean over test queries): (P sst2, S sst2), per row.
PAPER_MINILM_SST2: dict[tuple[str, float | None], tuple[float, float]] = {
    ("reference", None): (63.0, 46.6), ("setfit", None): (77.9, 27.1),
    ("contrastive", 0.1): (68.0, 34.8), ("contrastive", 0.25): (72.4, 34.5), ("contrastive", 0.5): (75.1, 34.2),
    ("contrastive", 0.75): (77.3, 34.1), ("contrastive", 1.0): (78.4, 33.9), ("mnrl", None): (69.4, 43.5),
    ("online-contrastive", 0.1): (70.8, 33.2), ("online-contrastive", 0.25): (74.6, 33.0),
    ("online-contrastive", 0.5): (76.5, 33.9), ("online-contrastive", 0.75): (77.5, 34.5),
    ("online-contrastive", 1.0): (78.4, 35.0), ("triplet", 0.01): (76.9, 33.9), ("triplet", 0.1): (80.6, 35.2),
    ("triplet", 1.0): (83.2, 30.5), ("triplet", 5.0): (81.3, 29.6), ("triplet", 7.5): (81.5, 29.5),
    ("triplet", 10.0): (81.2, 29.6),
}


def load_records(output: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(Path(output).rglob(SWEEP_RECORD))]


def _labels(record: dict) -> dict:
    """The grid point's loss and margin, as `sweep.GridPoint.configuration` recorded them."""
    return record["configuration"]["labels"]


def _row_key(record: dict) -> tuple[str, float | None]:
    return _labels(record)["loss"], _labels(record)["margin"]


def _column(record: dict) -> str:
    configuration = record["configuration"]
    return f"{configuration['base']} / {configuration['data']}"


def _cell(scores: dict, metric: str) -> str:
    return f"{100 * scores[metric]:.1f} ± {100 * scores[metric + '_std']:.1f}"


def _order(key: tuple[str, float | None]) -> tuple[int, float]:
    return ROW_ORDER.index(key[0]), -1.0 if key[1] is None else key[1]


def table(records: list[dict], metric: str, paper_index: int) -> str:
    """One markdown table: a row per loss x margin, a column per base / dataset, the paper's minilm-6 SST-2
    number last."""
    columns = sorted({_column(r) for r in records})
    cells = {(_row_key(r), _column(r)): _cell(r["scores"], metric) for r in records}
    keys = sorted({_row_key(r) for r in records}, key=_order)
    rows = []
    for key in keys:
        paper = PAPER_MINILM_SST2.get(key)
        rows.append([LABELS[key[0]], "-" if key[1] is None else f"{key[1]:g}",
                     *[cells.get((key, column), "") for column in columns],
                     "" if paper is None else f"{paper[paper_index]:.1f}"])
    return tabulate(rows, headers=["loss", "λ", *columns, "paper: minilm-6 / sst2"], tablefmt="github",
                    disable_numparse=True)


def curves(records: list[dict]) -> str:
    """P (and S) after each epoch on the epoch evaluation's capped test queries, per trained configuration."""
    trained = sorted((r for r in records if (r.get("training") or {}).get("history")),
                     key=lambda r: (_column(r), _order(_row_key(r))))
    if not trained:
        return ""
    epochs = max(len(r["training"]["history"]) for r in trained)
    rows = [[_column(r), LABELS[_row_key(r)[0]], "-" if _row_key(r)[1] is None else f"{_row_key(r)[1]:g}",
             *[f"{100 * h['polarity_score']:.1f} / {100 * h['semantic_similarity_score']:.1f}"
               for h in r["training"]["history"]]] for r in trained]
    return tabulate(rows, headers=["model", "loss", "λ", "base", *[f"epoch {e}" for e in range(1, epochs)]],
                    tablefmt="github", disable_numparse=True)


def scatter(records: list[dict], path: Path):  # -> matplotlib.figure.Figure
    """P against S, one point per configuration, coloured by loss, one marker per base / dataset, a legend
    for each encoding, each margin label clear of the others (`spread_labels`); drawn to `path` (PNG) and
    returned."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    figure = Figure(figsize=(8, 5.5), layout="constrained")
    axes = figure.subplots()
    markers = dict(zip(sorted({_column(r) for r in records}), "os^Dv<>"))
    colours = dict(zip(ROW_ORDER, matplotlib.colormaps["tab10"].colors))
    for record in records:
        loss, column = _labels(record)["loss"], _column(record)
        axes.scatter(100 * record["scores"]["semantic_similarity_score"], 100 * record["scores"]["polarity_score"],
                     color=colours[loss], marker=markers[column], s=40, alpha=0.85,
                     gid=f"{column}|{loss}|{_labels(record)['margin']}")
    margins: dict[tuple[float, float], list[str]] = {}  # coinciding points share one label: "1, 5, 7.5"
    for record in sorted(records, key=lambda r: _order(_row_key(r))):
        if _labels(record)["margin"] is not None:
            point = (round(100 * record["scores"]["semantic_similarity_score"], 2),
                     round(100 * record["scores"]["polarity_score"], 2))
            margins.setdefault(point, []).append(f"{_labels(record)['margin']:g}")
    labels = [axes.annotate(", ".join(names), point, fontsize=7, xytext=FIRST_PLACE, textcoords="offset points",
                            gid=f"label:{point[0]},{point[1]}") for point, names in margins.items()]
    axes.set_xlabel("Semantic Similarity Score S (x100, reference model R = base)")
    axes.set_ylabel("Polarity Score P (x100)")
    axes.set_title("Polarity P against semantic similarity S, k = 16 (labels: margin λ)", fontsize=11)
    losses = [loss for loss in ROW_ORDER if any(_labels(r)["loss"] == loss for r in records)]
    colour_legend = axes.legend(handles=[Line2D([], [], marker="o", linestyle="", color=colours[loss],
                                                label=LEGEND[loss]) for loss in losses],
                                title="colour: loss", fontsize=8, title_fontsize=8, loc="upper left",
                                bbox_to_anchor=(1.01, 1.0))
    axes.add_artist(colour_legend)
    axes.legend(handles=[Line2D([], [], marker=marker, linestyle="", color="0.4", label=column)
                         for column, marker in markers.items()],
                title="shape: base / training data", fontsize=8, title_fontsize=8, loc="lower left",
                bbox_to_anchor=(1.01, 0.0))
    axes.grid(alpha=0.3)
    unlabelled = [(axes, 100 * r["scores"]["semantic_similarity_score"], 100 * r["scores"]["polarity_score"])
                  for r in records if _labels(r)["margin"] is None]  # the reference and SetFit points
    spread_labels(figure, labels, avoid=unlabelled)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, metadata={"Software": None})
    return figure


def _relative(path: Path, start: Path) -> str:
    import os

    return os.path.relpath(path.resolve(), start.resolve())


def render(output: Path, docs: Path, figure: Path) -> int:
    """Replace the generated block of `docs` (between the markers) with Tables 5/6 from `output`, and draw
    the scatter to `figure`; the number of configurations rendered (0: nothing written)."""
    records = load_records(output)
    if not records:
        return 0
    scatter(records, figure)
    commits = sorted({r["git_commit"] or "unknown" for r in records})
    block = "\n\n".join([
        BEGIN,
        f"Generated by `bench sweep polarity-st` from `{output}` ({len(records)} configurations; commit(s) "
        f"{', '.join(c[:10] for c in commits)}). P and S x100, mean ± std over test queries.",
        "**Table 5 (ours): Polarity Score P**\n\n" + table(records, "polarity_score", 0),
        "**Table 6 (ours): Semantic Similarity Score S**\n\n" + table(records, "semantic_similarity_score", 1),
        f"![P vs S]({_relative(Path(figure), Path(docs).parent)})",
        "**Training curves: P / S (x100) after each epoch, on the epoch evaluation's test queries** (the "
        "preset's `eval_limit`; the tables above score the whole test split)\n\n" + curves(records),
        END])
    text = Path(docs).read_text(encoding="utf-8") if Path(docs).exists() else f"{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        text = text.rstrip() + f"\n\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    atomic_write_text(Path(docs), head + block + rest.split(END, 1)[1])
    return len(records)
