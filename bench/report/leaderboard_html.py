"""`bench leaderboard --html SITE/`: the leaderboard as a static site, `SITE/index.html` and a page per model
under `SITE/models/`.

No server and no network at view time: styles, script and figures (PNG as data URIs, the trade-off scatter
as inline SVG) are inside each file. The index holds the same `Board` as `leaderboard.md`
(`sentibench.report.leaderboard.build`): the overview across task groups first, the trade-off scatter
(`report.tradeoff`), then a sortable table per task group (click a header; numbers sort by value), each
score with its 95% interval, the best of a column in bold and `~` for not significantly worse, `*` for
in-domain, coverage and mean rank, filters by task group and by model kind (pretrained / trained here /
baseline). A model's page (`report.model_page`) tells its whole story. Every score links to its result
JSON (a path relative to the page). Every page is rendered before any is written.
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path

from sentibench.core.io import atomic_write_text
from sentibench.report.leaderboard import KINDS, Board, Cell, Group, build, family_header, rank_text
from sentibench.report.model_page import page_name, render_model_page
from sentibench.report.overview import Overview, OverviewRow

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; position: sticky; top: 0; }
th:first-child, td:first-child { text-align: left; }
td.best { font-weight: bold; background: #e8f5e9; }
td.tied { background: #f5fbf5; }
.ci { color: #777; font-size: 11px; }
.controls { margin: 1em 0; }
.controls label { margin-right: 1em; }
figure { display: inline-block; margin: 0 1em 1em 0; }
figure img { max-width: 560px; border: 1px solid #ddd; }
#tradeoff svg { max-width: 100%; height: auto; }
dl.card dt { font-weight: bold; } dl.card dd { margin: 0 0 0.5em 1em; white-space: pre-wrap; }
"""

SCRIPT = """
function sortTable(th) {
  const table = th.closest('table'), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const descending = th.dataset.order !== 'desc';
  table.querySelectorAll('th').forEach(h => delete h.dataset.order);
  th.dataset.order = descending ? 'desc' : 'asc';
  const key = row => {
    const cell = row.children[col];
    const value = cell.dataset.value;
    return value === undefined || value === '' ? null : (isNaN(value) ? value : parseFloat(value));
  };
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null) return 1;
    if (y === null) return -1;
    const order = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
  rows.forEach(r => body.appendChild(r));
}
function applyFilters() {
  const group = document.getElementById('group-filter').value;
  document.querySelectorAll('section.group').forEach(s => {
    s.style.display = (group === 'all' || s.dataset.group === group) ? '' : 'none';
  });
  const kinds = Array.from(document.querySelectorAll('input.kind:checked')).map(i => i.value);
  document.querySelectorAll('tr[data-kind]').forEach(r => {
    r.style.display = kinds.includes(r.dataset.kind) ? '' : 'none';
  });
}
document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('th').forEach(th => th.addEventListener('click', () => sortTable(th)));
  document.querySelectorAll('#group-filter, input.kind').forEach(e => e.addEventListener('change', applyFilters));
});
"""


def _cell(cell: Cell | None, task: str, page_dir: Path) -> str:
    if cell is None:
        return f'<td data-task="{html.escape(task)}" data-value=""></td>'
    if cell.score is None:
        return f'<td data-task="{html.escape(task)}" data-value="">n/a</td>'
    classes = "best" if cell.best else "tied" if cell.tied_with_best else ""
    link = Path(os.path.relpath(cell.result.path.resolve(), page_dir.resolve())).as_posix()
    text = (f"{100 * cell.score:.2f}" + ("*" if cell.in_domain else "") + ("†" if cell.from_dirty_tree else "")
            + (" ~" if cell.tied_with_best else ""))
    interval, title = "", "no interval recorded"
    if cell.low is not None and cell.high is not None:
        interval = f' <span class="ci">[{100 * cell.low:.2f}, {100 * cell.high:.2f}]</span>'
        title = f"95% CI {100 * cell.low:.2f} .. {100 * cell.high:.2f}"
    return (f'<td class="{classes}" data-task="{html.escape(task)}" data-value="{cell.score!r}" '
            f'title="{title}"><a href="{html.escape(link)}">{text}</a>{interval}</td>')


def model_link(model: str, prefix: str = "models/") -> str:
    """The model's name linking to its page."""
    return f'<a class="model" href="{html.escape(prefix + page_name(model))}">{html.escape(model)}</a>'


def _table(group: Group, page_dir: Path) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["model", "kind", "rank", "average", "coverage",
                                                           *group.tasks])
    body = []
    for row in group.rows:
        cells = [f'<td data-value="{html.escape(row.model)}">{model_link(row.model)}</td>',
                 f'<td data-value="{row.kind}">{row.kind}</td>',
                 f'<td data-value="{"" if row.rank is None else row.rank}">'
                 f'{"" if row.rank is None else f"{row.rank:.2f}"}</td>',
                 f'<td data-value="{"" if row.average is None else row.average}">'
                 f'{"" if row.average is None else f"{row.average:.2f}"}</td>',
                 f'<td data-value="{len(row.cells)}">{len(row.cells)}/{len(group.tasks)}</td>',
                 *[_cell(row.cells.get(t), t, page_dir) for t in group.tasks]]
        body.append(f'<tr data-model="{html.escape(row.model)}" data-kind="{row.kind}">{"".join(cells)}</tr>')
    return (f'<section class="group" data-group="{html.escape(group.name)}"><h2>{html.escape(group.name)}</h2>'
            f'<table id="table-{html.escape(group.name)}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></section>')


def _figures(folder: Path | None) -> str:
    if folder is None or not folder.is_dir():
        return ""
    parts = []
    for png in sorted(folder.glob("*.png")):
        data = base64.b64encode(png.read_bytes()).decode()
        parts.append(f'<figure><img alt="{png.stem}" src="data:image/png;base64,{data}">'
                     f'<figcaption>{html.escape(png.stem)}</figcaption></figure>')
    return "<h2>Figures</h2>" + "".join(parts) if parts else ""


def _number(value: float | None, low: float | None = None, high: float | None = None) -> str:
    interval = "" if low is None or high is None else f' <span class="ci">[{100 * low:.2f}, {100 * high:.2f}]</span>'
    return "" if value is None else f"{100 * value:.2f}{interval}"


def _overview_rows(rows: list[OverviewRow], overview: Overview, ranked: bool) -> str:
    body = []
    axes = [axis.name for axis in overview.benchmark.axes]
    for row in rows:
        lead = (f'<td data-value="{row.rank}">{rank_text(row.axes.get(axes[0]))}</td>' if ranked else
                f'<td data-value="{row.covered}">{row.covered}/{overview.required}</td>')
        cells = []
        for axis in axes:
            score = row.axes.get(axis)
            cells.append(f'<td data-axis="{html.escape(axis)}" data-value="{"" if score is None else score.mean}">'
                         f'{"" if score is None else _number(score.mean, score.low, score.high)}</td>')
            if ranked and axis != axes[0]:
                cells.append(f'<td data-value="{"" if score is None else score.rank}">{rank_text(score)}</td>')
        for group in overview.groups:
            mean = row.means.get(group)
            cells.append(f'<td data-group="{html.escape(group)}" data-value="{"" if mean is None else mean.mean}">'
                         f'{"" if mean is None else _number(mean.mean, mean.low, mean.high)}</td>')
        pareto = f'<td data-value="{int(row.pareto)}">{"P" if row.pareto else ""}</td>' if ranked else ""
        body.append(f'<tr data-model="{html.escape(row.model)}" data-kind="{row.kind}">{lead}'
                    f'<td data-value="{html.escape(row.model)}">{model_link(row.model)}</td>'
                    f'<td data-value="{row.kind}">{row.kind}</td>{"".join(cells)}{pareto}</tr>')
    return "".join(body)


def _overview(overview: Overview) -> str:
    bench, axes = overview.benchmark, [axis.name for axis in overview.benchmark.axes]
    families = "".join(f"<th>{html.escape(family_header(g, t, overview.metrics.get(g, [])))}</th>"
                       for g, t in overview.groups.items())
    headline = "".join(f"<th>{html.escape(a)} &uarr;</th>" + (f"<th>{html.escape(a)} rank (95%)</th>"
                                                              if a != axes[0] else "") for a in axes)
    ranked = (f'<table id="overview-ranked"><thead><tr><th>{html.escape(axes[0])} rank (95%)</th><th>model</th>'
              f'<th>kind</th>{headline}{families}<th>Pareto</th></tr></thead>'
              f'<tbody>{_overview_rows(overview.ranked, overview, True)}</tbody></table>'
              if overview.ranked else '<p id="overview-ranked">Fewer than two models have every task of the '
                                      'benchmark: nobody is ranked.</p>')
    plain = "".join(f"<th>{html.escape(a)} &uarr;</th>" for a in axes)
    partial = (f'<table id="overview-partial"><thead><tr><th>coverage</th><th>model</th><th>kind</th>{plain}'
               f'{families}</tr></thead><tbody>{_overview_rows(overview.partial, overview, False)}</tbody></table>'
               if overview.partial else "<p>None.</p>")
    not_run = "".join(f'<li data-card="{html.escape(n)}"><code>{html.escape(n)}</code>: {html.escape(why)}</li>'
                      for n, why in overview.not_run)
    described = "".join(f"<li><b>{html.escape(a.name)}</b> ({len(a.tasks)} tasks): {html.escape(a.description)}</li>"
                        for a in bench.axes)
    return (f'<section id="overview"><h2>Overview: {html.escape(bench.name)}</h2><p>{html.escape(bench.description)} '
            f'Manifest sha256 <code>{bench.manifest_sha256}</code>.</p><ul>{described}</ul><p>Each axis is the mean '
            f'main score x 100 over its tasks, '
            + ("in-domain results included" if overview.include_in_domain else "in-domain results left out")
            + ', with its 95% interval in brackets (two-level bootstrap over tasks and units, shared by every model); '
            'the rank range is the model\'s rank over the bootstrap replicates; P: the Pareto front of the axes. '
            'Family columns: means of each family\'s main scores (the metric named), not ranked.</p>'
            f'<h3>Ranked: every task of {html.escape(bench.name)} ({len(overview.ranked)} models)</h3>'
            f'{ranked}<h3>Partial coverage, not ranked ({len(overview.partial)} models)</h3>{partial}'
            + (f'<h3>Cards that cannot run here</h3><ul id="not-run">{not_run}</ul>' if not_run else "")
            + "</section>")


def _tradeoff(board: Board) -> str:
    from sentibench.report.tradeoff import svg

    return (f'<section id="tradeoff"><h2>Sentiment awareness against semantic similarity</h2>{svg(board)}'
            "<p>One point per model with its 95% intervals; an arrow joins a method card to its base. "
            "Retrieval S has no stored interval.</p></section>")


def render_html(root: Path, page_dir: Path, figures: Path | None = None, board: Board | None = None) -> str:
    board = board or build(root)
    groups = board.groups
    options = "".join(f'<option value="{html.escape(g.name)}">{html.escape(g.name)}</option>' for g in groups)
    kinds = "".join(f'<label><input type="checkbox" class="kind" value="{k}" checked> {k}</label>' for k in KINDS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sentibench leaderboard</title>
<style>{STYLE}</style><script>{SCRIPT}</script></head>
<body><h1>sentibench leaderboard</h1>
<p>Main score x 100 with its 95% confidence interval in brackets (bootstrap over each task's evaluation
units; Student's t over seeds for few-shot). Bold: the best of a column; ~: not significantly worse than it
(paired test, p &ge; 0.05); *: in-domain (the model trained or selected on this dataset); &dagger;: made from a
working tree with uncommitted changes (its commit is not exactly the code behind it). Rank and average: only
for models with every column of a table (coverage). Click a header to sort; each score links to its result
JSON, each model to its own page.
Generated by <code>bench leaderboard --html</code> from <code>{html.escape(Path(root).name)}/</code>.</p>
{_overview(board.overview)}
{_tradeoff(board)}
<div class="controls"><label>Task group <select id="group-filter"><option value="all">all</option>{options}
</select></label> Model kind: {kinds}</div>
{"".join(_table(g, page_dir) for g in groups)}
{_figures(figures)}
</body></html>
"""


def write_html(root: Path, site: Path, figures: Path | None = None, benchmark: str | None = None,
               include_in_domain: bool = False) -> Path:
    """Write `site/index.html` and a page per model under `site/models/`; every page is rendered first."""
    site = Path(site)
    board = build(root, benchmark, include_in_domain)
    pages = {site / "models" / page_name(model): render_model_page(board, model, site / "models")
             for model in board.by_model}
    pages[site / "index.html"] = render_html(root, site, figures, board)
    for path, text in pages.items():
        atomic_write_text(path, text)
        path.chmod(0o644)  # a web page is for reading (the atomic write creates files 0600)
    return site / "index.html"
