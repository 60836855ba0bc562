"""`bench leaderboard --html --site SITE`: the leaderboard as a self-contained static site, `SITE/index.html`,
a page per model under `SITE/models/` and a copy of every result file a page links to under `SITE/results/`.

No server and no network at view time: styles, script and figures (PNG as data URIs, the trade-off scatter as
inline SVG) are inside each page, and links are relative, so the folder works copied anywhere or served by any
static server. The index holds the same `Board` as `leaderboard.md` (`report.leaderboard.build`, one results
folder or several): the controls first (a search box, model kinds, results folders, task group), then the
overview, the trade-off scatter (`report.tradeoff`), a table per task group and the figures with their captions.
The controls filter every table and **re-rank what is shown**: the overview's ranks and rank ranges are
recomputed among the shown models from the same bootstrap replicates the board used (embedded in the page), the
Pareto marks among them, and each group's column ranks among its shown complete rows. Bold and `~` keep
comparing with the best of all models. Each table scrolls sideways inside the window with the model column
pinned; every header says its metric and direction; a first click sorts a rank column best first and a score
column high to low. Every page is rendered before anything is written (`report.site_files.publish`).
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from sentibench.core.io import read_regular
from sentibench.report.leaderboard import (
    KINDS,
    METRIC_NAMES,
    Board,
    Cell,
    Group,
    family_header,
    rank_text,
    seed_spread_text,
)
from sentibench.report.model_page import page_name, render_model_page
from sentibench.report.overview import Overview, OverviewRow
from sentibench.report.site_files import SiteFiles, publish

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 100%; }
p, li { max-width: 80em; line-height: 1.4; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 2em; border-left: 1px solid #ccc; }
table { border-collapse: separate; border-spacing: 0; font-size: 13px; }
th, td { border: 1px solid #ccc; border-width: 0 1px 1px 0; padding: 3px 6px; text-align: right; white-space: nowrap; }
tr:first-child th { border-top-width: 1px; }
th { background: #f3f3f3; cursor: pointer; }
th[data-order="asc"]::after { content: " \\25B2"; } th[data-order="desc"]::after { content: " \\25BC"; }
.model { position: sticky; left: 0; z-index: 1; text-align: left; background: #fff; }
th.model { background: #f3f3f3; z-index: 2; }
td.best { font-weight: bold; background: #e8f5e9; }
td.tied { background: #f5fbf5; }
.ci { color: #777; font-size: 11px; }
.controls { position: sticky; top: 0; z-index: 3; background: #fafafa; border: 1px solid #ddd; padding: 0.5em 0.8em;
            margin: 1em 0; display: flex; flex-wrap: wrap; gap: 0.4em 1.5em; align-items: center; }
.controls input[type=search] { width: 16em; }
.stamp { color: #555; font-size: 12px; }
figure { margin: 0 0 2em; max-width: 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { max-width: 80em; font-size: 13px; color: #333; }
#tradeoff svg { max-width: 100%; height: auto; }
dl.card dt { font-weight: bold; } dl.card dd { margin: 0 0 0.5em 1em; white-space: pre-wrap; }
"""

SCRIPT = r"""
function cellValue(row, col) {
  const cell = row.children[col];
  const value = cell ? cell.dataset.value : undefined;
  return value === undefined || value === '' ? null : (isNaN(value) ? value : parseFloat(value));
}
function sortTable(th) {
  const table = th.closest('table'), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const first = th.dataset.first || 'desc';
  const order = th.dataset.order ? (th.dataset.order === 'asc' ? 'desc' : 'asc') : first;
  table.querySelectorAll('th').forEach(h => delete h.dataset.order);
  th.dataset.order = order;
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = cellValue(a, col), y = cellValue(b, col);
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return order === 'asc' ? d : -d;
  });
  rows.forEach(r => body.appendChild(r));
}
function shown(row) {
  const query = document.getElementById('search').value.trim().toLowerCase();
  const kinds = Array.from(document.querySelectorAll('input.kind:checked')).map(i => i.value);
  const folders = Array.from(document.querySelectorAll('input.folder:checked')).map(i => i.value);
  return kinds.includes(row.dataset.kind) && (!folders.length || folders.includes(row.dataset.folder))
    && row.dataset.model.toLowerCase().includes(query);
}
function percentile(sorted, q, up) {
  const at = q * (sorted.length - 1);
  return sorted[up ? Math.ceil(at) : Math.floor(at)];
}
function rankOverview() {
  const data = JSON.parse(document.getElementById('replicates').textContent);
  const table = document.getElementById('overview-ranked');
  if (!table || !table.tBodies.length) return;
  const rows = Array.from(table.tBodies[0].rows).filter(r => r.style.display !== 'none');
  data.axes.forEach(axis => {
    const means = rows.map(r => parseFloat(r.querySelector(`td[data-axis="${axis}"]`).dataset.value));
    const draws = rows.map(r => data.replicates[axis][r.dataset.model]);
    rows.forEach((row, j) => {
      const rank = 1 + means.filter(m => m > means[j]).length;
      const ranks = [];
      for (let b = 0; b < draws[j].length; b++) {
        ranks.push(1 + draws.filter(d => d[b] > draws[j][b]).length);
      }
      ranks.sort((a, b) => a - b);
      const low = percentile(ranks, 0.025, false), high = percentile(ranks, 0.975, true);
      const cell = row.querySelector(`td[data-rank="${axis}"]`);
      cell.dataset.value = rank;
      cell.textContent = low === high ? `${rank}` : `${rank} (${low}-${high})`;
    });
  });
  rows.forEach((row, j) => {
    const mine = data.axes.map(a => parseFloat(row.querySelector(`td[data-axis="${a}"]`).dataset.value));
    const beaten = rows.some((other, k) => {
      if (k === j) return false;
      const theirs = data.axes.map(a => parseFloat(other.querySelector(`td[data-axis="${a}"]`).dataset.value));
      return theirs.every((t, i) => t >= mine[i]) && theirs.some((t, i) => t > mine[i]);
    });
    const cell = row.querySelector('td.pareto');
    cell.dataset.value = beaten ? 0 : 1;
    cell.textContent = beaten ? '' : 'P';
  });
  const body = table.tBodies[0];
  Array.from(body.rows).sort((a, b) => {
    const x = a.style.display === 'none', y = b.style.display === 'none';
    if (x !== y) return x ? 1 : -1;
    return cellValue(a, 1) - cellValue(b, 1);
  }).forEach(r => body.appendChild(r));
}
function rankGroup(table) {
  const tasks = Array.from(table.querySelectorAll('th[data-task]'));
  const full = Array.from(table.tBodies[0].rows).filter(r => r.style.display !== 'none' && r.dataset.full === '1');
  const rankCell = r => r.querySelector('td.rank');
  Array.from(table.tBodies[0].rows).forEach(r => { const c = rankCell(r); c.textContent = ''; c.dataset.value = ''; });
  if (full.length < 2) return;
  const sums = full.map(() => 0);
  tasks.forEach(th => {
    const col = Array.from(th.parentNode.children).indexOf(th), sign = th.dataset.greater === '1' ? 1 : -1;
    const values = full.map(r => sign * cellValue(r, col));
    values.forEach((v, j) => { sums[j] += 1 + values.filter(o => o > v).length; });
  });
  full.forEach((r, j) => {
    const rank = sums[j] / tasks.length, c = rankCell(r);
    c.dataset.value = rank;
    c.textContent = rank.toFixed(2);
  });
}
function applyFilters() {
  const group = document.getElementById('group-filter').value;
  document.querySelectorAll('section.group').forEach(s => {
    s.style.display = (group === 'all' || s.dataset.group === group) ? '' : 'none';
  });
  document.querySelectorAll('tr[data-kind]').forEach(r => { r.style.display = shown(r) ? '' : 'none'; });
  rankOverview();
  document.querySelectorAll('section.group table').forEach(rankGroup);
  const count = document.querySelectorAll('#overview-ranked tbody tr:not([style*="none"])').length;
  document.getElementById('shown-count').textContent = `${count} ranked model(s) shown`;
}
document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('th').forEach(th => th.addEventListener('click', () => sortTable(th)));
  document.querySelectorAll('#group-filter, input.kind, input.folder')
    .forEach(e => e.addEventListener('change', applyFilters));
  document.getElementById('search').addEventListener('input', applyFilters);
});
"""

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


def _cell(cell: Cell | None, task: str, files: SiteFiles) -> str:
    if cell is None:
        return f'<td data-task="{html.escape(task)}" data-value=""></td>'
    if cell.score is None:
        return f'<td data-task="{html.escape(task)}" data-value="">n/a</td>'
    classes = "best" if cell.best else "tied" if cell.tied_with_best else ""
    text = (f"{100 * cell.score:.2f}" + ("*" if cell.in_domain else "") + ("†" if cell.from_dirty_tree else "")
            + (" ~" if cell.tied_with_best else ""))
    interval, title = "", "no interval recorded"
    if cell.low is not None and cell.high is not None:
        interval = f' <span class="ci">[{100 * cell.low:.2f}, {100 * cell.high:.2f}]</span>'
        title = f"95% CI {100 * cell.low:.2f} .. {100 * cell.high:.2f}"
    return (f'<td class="{classes}" data-task="{html.escape(task)}" data-value="{cell.score!r}" '
            f'title="{title}"><a href="{html.escape(files.href(cell.result.path))}">{text}</a>{interval}</td>')


def model_link(model: str, prefix: str = "models/") -> str:
    """The model's name linking to its page."""
    return f'<a class="model-link" href="{html.escape(prefix + page_name(model))}">{html.escape(model)}</a>'


def _row_attributes(board: Board, model: str, kind: str) -> str:
    folder = board.folders.get(model)
    return (f'data-model="{html.escape(model)}" data-kind="{html.escape(kind)}" '
            f'data-folder="{html.escape(folder.name if folder else "")}"')


def _head(label: str, title: str, first: str = "desc", extra: str = "", cls: str = "") -> str:
    """A sortable header: `title` says the metric and direction, `first` the order of the first click."""
    css = f' class="{cls}"' if cls else ""
    return f'<th{css} title="{html.escape(title)}" data-first="{first}"{extra}>{html.escape(label)}</th>'


def _table(board: Board, group: Group, files: SiteFiles) -> str:
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
                           f' data-task="{html.escape(task)}" data-greater="{int(greater)}"'))
    body = []
    for row in group.rows:
        full = all(t in row.cells and row.cells[t].score is not None for t in group.tasks)
        cells = [f'<td class="model" data-value="{html.escape(row.model)}">{model_link(row.model)}</td>',
                 f'<td data-value="{row.kind}">{row.kind}</td>',
                 f'<td class="rank" data-value="{"" if row.rank is None else row.rank}">'
                 f'{"" if row.rank is None else f"{row.rank:.2f}"}</td>',
                 f'<td data-value="{"" if row.average is None else row.average}">'
                 f'{"" if row.average is None else f"{row.average:.2f}"}</td>',
                 f'<td data-value="{len(row.cells)}">{len(row.cells)}/{len(group.tasks)}</td>',
                 *[_cell(row.cells.get(t), t, files) for t in group.tasks]]
        ranked = int(full and not group.diagnostic)
        body.append(f'<tr {_row_attributes(board, row.model, row.kind)} data-full="{ranked}">{"".join(cells)}</tr>')
    return (f'<section class="group" data-group="{html.escape(group.name)}"><h2>{html.escape(group.name)}</h2>'
            f"<p>{html.escape(group.legend())}</p>"
            f'<div class="scroll"><table id="table-{html.escape(group.name)}"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div></section>')


def _figures(folder: Path | None) -> str:
    if folder is None or not folder.is_dir():
        return ""
    parts = []
    for png in sorted(folder.glob("*.png")):
        if png.stem in SHOWN_ELSEWHERE:
            continue
        caption = CAPTIONS.get(png.stem, png.stem.replace("_", " "))
        data = base64.b64encode(read_regular(png, FIGURE_MAX_BYTES, "figure", within=folder)).decode()
        parts.append(f'<figure id="figure-{html.escape(png.stem)}"><img alt="{html.escape(caption)}" '
                     f'src="data:image/png;base64,{data}"><figcaption><b>{html.escape(png.name)}</b>: '
                     f"{html.escape(caption)}.</figcaption></figure>")
    return '<section id="figures"><h2>Figures</h2>' + "".join(parts) + "</section>" if parts else ""


def _number(value: float | None, low: float | None = None, high: float | None = None) -> str:
    interval = "" if low is None or high is None else f' <span class="ci">[{100 * low:.2f}, {100 * high:.2f}]</span>'
    return "" if value is None else f"{100 * value:.2f}{interval}"


def _overview_rows(board: Board, rows: list[OverviewRow], ranked: bool) -> str:
    overview = board.overview
    body = []
    axes = [axis.name for axis in overview.benchmark.axes]
    for row in rows:
        cells = [f'<td class="model" data-value="{html.escape(row.model)}">{model_link(row.model)}</td>']
        if ranked:
            cells.append(f'<td data-rank="{html.escape(axes[0])}" data-value="{row.rank}">'
                         f"{rank_text(row.axes.get(axes[0]))}</td>")
        else:
            cells.append(f'<td data-value="{row.covered}">{row.covered}/{overview.required}</td>')
        cells.append(f'<td data-value="{row.kind}">{row.kind}</td>')
        for axis in axes:
            score = row.axes.get(axis)
            short = "" if score is None or score.tasks >= score.of else f" [{score.tasks}/{score.of}]"
            cells.append(f'<td data-axis="{html.escape(axis)}" data-value="{"" if score is None else score.mean}">'
                         f'{"" if score is None else _number(score.mean, score.low, score.high) + short}</td>')
            if ranked and axis != axes[0]:
                cells.append(f'<td data-rank="{html.escape(axis)}" data-value="{"" if score is None else score.rank}">'
                             f"{rank_text(score)}</td>")
        for group in overview.groups:
            mean = row.means.get(group)
            cells.append(f'<td data-group="{html.escape(group)}" data-value="{"" if mean is None else mean.mean}">'
                         f'{"" if mean is None else _number(mean.mean, mean.low, mean.high)}</td>')
        if ranked:
            cells.append(f'<td class="pareto" data-value="{int(row.pareto)}">{"P" if row.pareto else ""}</td>')
        body.append(f'<tr {_row_attributes(board, row.model, row.kind)}>{"".join(cells)}</tr>')
    return "".join(body)


def _replicates(overview: Overview) -> str:
    """The bootstrap's axis means of each ranked model (x 100, 3 decimals), for re-ranking a filtered overview."""
    data = {"axes": [a.name for a in overview.benchmark.axes],
            "replicates": {a.name: {row.model: [round(100 * v, 3) for v in row.axes[a.name].replicates]
                                    for row in overview.ranked if a.name in row.axes}
                           for a in overview.benchmark.axes}}
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _seeds(overview: Overview) -> str:
    """The training-seed table (`report.seed_spread`): per recipe and axis, mean over seeds ± sd (range)."""
    if not overview.seeds:
        return ""
    axes = [axis.name for axis in overview.benchmark.axes]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ("recipe", "revision", "seeds", *axes))
    rows = "".join(f"<tr><td>{model_link(f.name)}</td><td>{html.escape(f.revision)}</td>"
                   f"<td>{', '.join(map(str, f.seeds))}</td>"
                   + "".join(f"<td>{seed_spread_text(f, a)}</td>" for a in axes) + "</tr>" for f in overview.seeds)
    return (f"<h3>Training seeds ({len(overview.seeds)} recipes)</h3><p>One recipe trained with several seeds: the "
            "mean over seeds of their axis means ± the seeds' sample standard deviation, (the range), [tasks "
            "averaged].</p>"
            f'<div class="scroll"><table id="overview-seeds"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody>'
            "</table></div>")


def _overview(board: Board) -> str:
    overview = board.overview
    bench, axes = overview.benchmark, [axis.name for axis in overview.benchmark.axes]
    families = "".join(_head(family_header(g, t, overview.metrics.get(g, [])),
                             f"mean of the {g} family's main scores x 100 (only with all of its tasks), not ranked")
                       for g, t in overview.groups.items())
    headline = "".join(_head(f"{a.name} ↑", f"{a.name}: {a.description}; mean main score x 100 over its "
                                            f"{len(a.tasks)} tasks, higher is better, 95% interval in brackets")
                       + (_head(f"{a.name} rank (95%)", f"rank on {a.name} among the shown models, 1 is best, and its "
                                "95% range over the bootstrap replicates", "asc") if a.name != axes[0] else "")
                       for a in bench.axes)
    lead = [_head("model", "model (its page)", "asc", cls="model"),
            _head(f"{axes[0]} rank (95%)", f"rank on {axes[0]} among the shown models, 1 is best, and its 95% range "
                                           "over the bootstrap replicates", "asc"),
            _head("kind", "pretrained, trained here, or baseline", "asc")]
    ranked = (f'<div class="scroll"><table id="overview-ranked"><thead><tr>{"".join(lead)}{headline}{families}'
              f'{_head("Pareto", "P: no other shown model is at least as good on both axes and better on one")}'
              f'</tr></thead><tbody>{_overview_rows(board, overview.ranked, True)}</tbody></table></div>'
              if overview.ranked else '<p id="overview-ranked">Fewer than two models have every task of the '
                                      'benchmark: nobody is ranked.</p>')
    plain = "".join(_head(f"{a} ↑", "mean over the axis's tasks the model has; [n/N]: n of its N tasks")
                    for a in axes)
    partial = (f'<div class="scroll"><table id="overview-partial"><thead><tr>{lead[0]}'
               f'{_head("coverage", "benchmark tasks the model has")}{lead[2]}{plain}{families}</tr></thead>'
               f'<tbody>{_overview_rows(board, overview.partial, False)}</tbody></table></div>'
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
            "the rank range is the model's rank over the bootstrap replicates, among the models shown (the filters "
            "above re-rank); P: the Pareto front of the shown models. Family columns: means of each family's main "
            "scores (the metric named), not ranked.</p>"
            f'<h3>Ranked: every task of {html.escape(bench.name)} (<span id="shown-count">{len(overview.ranked)} '
            f'ranked model(s) shown</span>)</h3>{ranked}'
            f'<h3>Partial coverage, not ranked ({len(overview.partial)} models)</h3>{partial}'
            + _seeds(overview)
            + (f'<h3>Cards that cannot run here</h3><ul id="not-run">{not_run}</ul>' if not_run else "")
            + f'<script type="application/json" id="replicates">{_replicates(overview)}</script></section>')


def _tradeoff(board: Board) -> str:
    from sentibench.report.tradeoff import svg

    return (f'<section id="tradeoff"><h2>Sentiment awareness against semantic similarity</h2>{svg(board)}'
            "<p>One point per model with its 95% intervals; an arrow joins a method card to its base. "
            "Retrieval S has no stored interval.</p></section>")


def _controls(board: Board) -> str:
    options = "".join(f'<option value="{html.escape(g.name)}">{html.escape(g.name)}</option>' for g in board.groups)
    kinds = "".join(f'<label><input type="checkbox" class="kind" value="{k}" checked> {k}</label>' for k in KINDS)
    folders = ("" if len(board.roots) < 2 else "<span>Results folder: " + "".join(
        f'<label><input type="checkbox" class="folder" value="{html.escape(root.name)}" checked> '
        f"{html.escape(root.name)}</label> " for root in board.roots) + "</span>")
    return (f'<div class="controls"><label>Model <input type="search" id="search" placeholder="filter by name">'
            f"</label><span>Kind: {kinds}</span>{folders}<label>Task group <select id=\"group-filter\">"
            f'<option value="all">all</option>{options}</select></label></div>')


def render_index(board: Board, files: SiteFiles, figures: Path | None = None) -> str:
    roots = ", ".join(f"<code>{html.escape(root.name)}/</code>" for root in board.roots)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>sentibench leaderboard</title>
<style>{STYLE}</style><script>{SCRIPT}</script></head>
<body><h1>sentibench leaderboard</h1>
<p class="stamp">{html.escape(board.stamp)} Generated by <code>bench leaderboard --html</code> from {roots}.</p>
<p>Main score x 100 with its 95% confidence interval in brackets (bootstrap over each task's evaluation
units; Student's t over seeds for few-shot). Bold: the best of a column among all models; ~: not significantly
worse than it (paired test, p &ge; 0.05); *: in-domain (the model trained or selected on this dataset); &dagger;: made
from a working tree with uncommitted changes. Hover a header for its metric and direction, click it to sort; each
score links to its result JSON, each model to its own page.</p>
{_controls(board)}
{_overview(board)}
{_tradeoff(board)}
{"".join(_table(board, g, files) for g in board.groups)}
{_figures(figures)}
</body></html>
"""


def write_site(board: Board, site: Path, figures: Path | None = None) -> Path:
    """Write `site/index.html`, a page per model under `site/models/` and the result files they link to under
    `site/results/`, all or nothing; the index's path."""
    files = SiteFiles(board.roots)
    pages = {f"models/{page_name(model)}": render_model_page(board, model, files) for model in board.by_model}
    pages["index.html"] = render_index(board, files, figures)
    return publish(Path(site), pages, files)
