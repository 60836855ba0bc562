"""`bench leaderboard --html --site SITE`: the leaderboard as a self-contained static site, `SITE/index.html`,
a page per model under `SITE/models/` and a copy of every result file a page links to under `SITE/results/`.

No server and no network at view time: styles, script and figures (PNG as data URIs, the trade-off scatter as
inline SVG) are inside each page, and links are relative, so the folder works copied anywhere or served by any
static server. The pages are Jinja2 templates (`report/templates/`) with the stylesheet and script of
`report/static/` inlined (`report.templating`); this module only gathers what they show. The index holds the same
`Board` as `leaderboard.md` (`report.leaderboard.build`, one results folder or several): the controls first (a
search box, model kinds, results folders, task group), then each benchmark's overview as the Markdown has it (on a
format-2 benchmark: the chance-normalised axes, the zero-shot column and the agreement sentence), the trade-off
scatter (`report.tradeoff`), a table per task group and the figures with their captions. The kind and folder
filters **re-rank what is shown**: the overviews' ranks, rank ranges and Pareto marks and each group's column ranks
among the shown models, for every combination of them computed here (`report.page_views`) and embedded in the page;
the script only shows the ticked one, and the search box only hides rows. Bold and `~` keep comparing with the best of
all models. Each table scrolls sideways inside the window with the model column pinned; every header says its metric
and direction; a first click sorts a rank column best first and a score column high to low. Every page is rendered
before anything is written (`report.site_files.publish`).
"""

from __future__ import annotations

import base64
import json
import re
from html import escape
from pathlib import Path

from markupsafe import Markup

from sentibench.core.io import read_regular
from sentibench.report.leaderboard import (
    KINDS,
    METRIC_NAMES,
    Board,
    Cell,
    Group,
    agreement_text,
    family_header,
    rank_text,
    zero_shot_text,
)
from sentibench.report.model_page import page_name, render_model_page
from sentibench.report.overview import Overview, OverviewRow
from sentibench.report.page_views import page_views
from sentibench.report.site_files import SiteFiles, publish
from sentibench.report.templating import asset, render

FIGURE_MAX_BYTES = 16 << 20  # the committed figures are under 200 KiB each
CAPTIONS = {  # docs/figures/<stem>.png -> what it shows (tradeoff.png is the scatter above, drawn as SVG)
    "sgts_vs_fewshot": "SgTS (Spearman x 100, the mean over the five SgTS tasks) against fine-tuned few-shot accuracy "
                       "x 100 (fewshot-full, the mean over its tasks), one labelled point per model: does a training-"
                       "free score predict what fine-tuning reaches? (`bench plot sgts-vs-fewshot`)",
    "sgts_vs_fewshot_frozen": "The same with the frozen few-shot twins (logistic regression on the same draws): SgTS "
                              "against frozen few-shot accuracy x 100, one labelled point per model (`bench plot "
                              "sgts-vs-fewshot --frozen`)",
    "polarity_p_vs_s": "Polarity-aware fine-tuning: polarity score P@16 against semantic similarity S over the sweep "
                       "of losses and margins, the base model marked (docs/polarity.md, `bench sweep polarity`)",
    "lite_vs_v1": "sentibench-lite-v1 against sentibench-v1: each committed model's axis score on the 13-task lite "
                  "benchmark against the full 35-task benchmark (docs/benchmarks.md, benchmarks/choose_lite.py)",
}
SHOWN_ELSEWHERE = {"tradeoff"}  # drawn on the page itself


def _metric(result_metric: str | None) -> str:
    return METRIC_NAMES.get(result_metric or "", result_metric or "score")


def _head(label: str, title: str, first: str = "desc", extra: dict | None = None, cls: str = "") -> dict:
    """A sortable header: `title` says the metric and direction, `first` the order of the first click."""
    return {"label": label, "title": title, "first": first, "extra": extra or {}, "cls": cls}


def _row(board: Board, model: str, kind: str, **more) -> dict:
    folder = board.folders.get(model)
    return {"model": model, "kind": kind, "folder": folder.name if folder else "", **more}


def _cell(cell: Cell | None, task: str, files: SiteFiles) -> dict:
    if cell is None or cell.score is None:
        return {"task": task, "score": None, "text": "" if cell is None else "n/a"}
    interval = cell.low is not None and cell.high is not None
    return {"task": task, "score": cell.score, "cls": "best" if cell.best else "tied" if cell.tied_with_best else "",
            "text": (f"{100 * cell.score:.2f}" + ("*" if cell.in_domain else "") + ("†" if cell.from_dirty_tree else "")
                     + (" ~" if cell.tied_with_best else "")),
            "title": f"95% CI {100 * cell.low:.2f} .. {100 * cell.high:.2f}" if interval else "no interval recorded",
            "low": f"{100 * cell.low:.2f}" if interval else None,
            "high": f"{100 * cell.high:.2f}" if interval else None,
            "href": files.href(cell.result.path)}


def _table(board: Board, group: Group, files: SiteFiles) -> dict:
    heads = [_head("model", "model (its page); sorted by name", "asc", cls="model"),
             _head("kind", "pretrained, trained here, or baseline", "asc"),
             _head("rank", "mean of the model's ranks over the columns, among shown models with every column; "
                           "1 is best", "asc"),
             _head("average", "mean main score x 100 over the columns (models with every column)"),
             _head("coverage", "columns the model has")]
    for task in group.tasks:
        result = next((row.cells[task].result for row in group.rows if task in row.cells), None)
        metric = result.provenance.task.main_score if result else None
        greater = result.provenance.task.greater_is_better if result else True
        heads.append(_head(task, f"{task}: {_metric(metric)} x 100, {'higher' if greater else 'lower'} is better; "
                                 "95% interval in brackets", "desc" if greater else "asc",
                           {"data-task": task, "data-greater": int(greater)}))
    rows = []
    for row in group.rows:
        full = all(t in row.cells and row.cells[t].score is not None for t in group.tasks)
        rows.append(_row(board, row.model, row.kind, full=int(full and not group.diagnostic), rank=row.rank,
                         average=row.average, covered=len(row.cells),
                         cells=[_cell(row.cells.get(t), t, files) for t in group.tasks]))
    return {"name": group.name, "legend": group.legend(), "heads": heads, "rows": rows, "columns": len(group.tasks)}


def _figures(folder: Path | None) -> list[dict]:
    if folder is None or not folder.is_dir():
        return []
    figures = []
    for png in sorted(folder.glob("*.png")):
        if png.stem in SHOWN_ELSEWHERE:
            continue
        data = read_regular(png, FIGURE_MAX_BYTES, "figure", within=folder)
        figures.append({"stem": png.stem, "name": png.name, "data": base64.b64encode(data).decode(),
                        "caption": CAPTIONS.get(png.stem, png.stem.replace("_", " "))})
    return figures


def _number(value: float | None, low: float | None = None, high: float | None = None) -> str:
    interval = "" if low is None or high is None else f' <span class="ci">[{100 * low:.2f}, {100 * high:.2f}]</span>'
    return "" if value is None else f"{100 * value:.2f}{interval}"


def _td(html: str = "", **attrs) -> dict:
    """An overview cell: its attributes (escaped by the template; `data_value` -> `data-value`) and its HTML."""
    return {"attrs": {key.replace("_", "-"): "" if value is None else value for key, value in attrs.items()},
            "html": Markup(html)}


def _overview_rows(board: Board, overview: Overview, rows: list[OverviewRow], ranked: bool) -> list[dict]:
    axes = [axis.name for axis in overview.benchmark.axes]
    scaled = bool(overview.benchmark.chance)
    out = []
    for row in rows:
        cells = [_td(escape(rank_text(row.axes.get(axes[0]))), data_rank=axes[0], data_value=row.rank) if ranked
                 else _td(f"{row.covered}/{overview.required}", data_value=row.covered),
                 _td(escape(row.kind), data_value=row.kind)]
        for axis in axes:
            score = row.axes.get(axis)
            short = "" if score is None or score.tasks >= score.of else f" [{score.tasks}/{score.of}]"
            cells.append(_td("" if score is None else _number(score.mean, score.low, score.high) + short,
                             data_axis=axis, data_value=None if score is None else score.mean))
            if ranked and axis != axes[0]:
                cells.append(_td(escape(rank_text(score)), data_rank=axis,
                                 data_value=None if score is None else score.rank))
        if ranked and scaled:
            cells.append(_td(zero_shot_text(row), **{"class": "zero-shot"}, data_value=row.zero_shot))
        for group in overview.groups:
            mean = row.means.get(group)
            cells.append(_td("" if mean is None else _number(mean.mean, mean.low, mean.high), data_group=group,
                             data_value=None if mean is None else mean.mean))
        if ranked:
            cells.append(_td("P" if row.pareto else "", **{"class": "pareto"}, data_value=int(row.pareto)))
        out.append(_row(board, row.model, row.kind, cells=cells))
    return out


def _markdown_code(text: str) -> Markup:
    """A sentence of the Markdown board as HTML: escaped, its `code` spans as <code>."""
    return Markup(re.sub(r"`([^`]*)`", r"<code>\1</code>", escape(text, quote=False)))


def _overview(board: Board, overview: Overview, lead: bool) -> dict:
    bench, axes = overview.benchmark, [axis.name for axis in overview.benchmark.axes]
    scaled = bool(bench.chance)
    scale = "chance-normalised main score" if scaled else "main score"
    families = [_head(family_header(g, t, overview.metrics.get(g, [])),
                      f"mean of the {g} family's main scores x 100 (only with all of its tasks), not ranked")
                for g, t in overview.groups.items()]
    rank_head = [_head(f"{axes[0]} rank (95%)", f"rank on {axes[0]} among the shown models, 1 is best, and its 95% "
                                                "range over the bootstrap replicates", "asc")]
    headline = []
    for a in bench.axes:
        headline.append(_head(f"{a.name} ↑", f"{a.name}: {a.description}; mean {scale} x 100 over its {len(a.tasks)} "
                                             "tasks, higher is better, 95% interval in brackets"))
        if a.name != axes[0]:
            headline.append(_head(f"{a.name} rank (95%)", f"rank on {a.name} among the shown models, 1 is best, and "
                                                         "its 95% range over the bootstrap replicates", "asc"))
    zero_shot = [_head("zero-shot", "share of the axes' tasks the model did not train on")] if scaled else []
    model = _head("model", "model (its page)", "asc", cls="model")
    kind = _head("kind", "pretrained, trained here, or baseline", "asc")
    plain = [_head(f"{a} ↑", f"mean {scale} x 100 over the axis's tasks the model has; [n/N]: n of its N tasks")
             for a in axes]
    suffix = "" if lead else f"-{bench.name}"
    return {"overview": overview, "scaled": scaled,
            "agreement": _markdown_code(agreement_text(overview)) if scaled else "",
            "ids": {"section": "overview" + suffix, "ranked": "overview-ranked" + suffix,
                    "partial": "overview-partial" + suffix, "seeds": "overview-seeds" + suffix,
                    "count": "shown-count" + suffix, "not_run": "not-run" + suffix},
            "ranked_heads": [model, *rank_head, kind, *headline, *zero_shot, *families,
                             _head("Pareto", "P: no other shown model is at least as good on every axis and better "
                                             "on one")],
            "partial_heads": [model, _head("coverage", "benchmark tasks the model has"), kind, *plain, *families],
            "ranked": _overview_rows(board, overview, overview.ranked, True),
            "partial": _overview_rows(board, overview, overview.partial, False)}


def _tradeoff(board: Board) -> Markup:
    from sentibench.report.tradeoff import svg

    return Markup(svg(board))


def render_index(board: Board, files: SiteFiles, figures: Path | None = None) -> str:
    from sentibench.report.leaderboard import seed_spread_text

    views = json.dumps(page_views(board), separators=(",", ":")).replace("</", "<\\/")
    return render("index.html", board=board, kinds=KINDS, style=asset("leaderboard.css"),
                  script=asset("leaderboard.js"), page_name=page_name, seed_spread_text=seed_spread_text,
                  overviews=[_overview(board, o, i == 0) for i, o in enumerate([board.overview, *board.sections])],
                  tradeoff=_tradeoff(board), tables=[_table(board, g, files) for g in board.groups],
                  figures=_figures(figures), views=Markup(views))


def write_site(board: Board, site: Path, figures: Path | None = None) -> Path:
    """Write `site/index.html`, a page per model under `site/models/` and the result files they link to under
    `site/results/`, all or nothing; the index's path."""
    files = SiteFiles(board.roots)
    pages = {f"models/{page_name(model)}": render_model_page(board, model, files) for model in board.by_model}
    pages["index.html"] = render_index(board, files, figures)
    return publish(Path(site), pages, files)
