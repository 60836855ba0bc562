"""A model's page in the static site (`SITE/models/<model>.html`): its whole story on one page.

The card (base, recipe, training data, licence, citation: the result's recorded card, and the packaged card's
text fields), the weights' and each dataset's hashes, the training curve when one is recorded beside the
results (`training.json`, of the same weights), every score with its 95% interval and its in-domain mark,
and the paired comparison against its base (`report.compare.compare_results`, as `bench compare` does it).
Every number links to its result JSON.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from pathlib import Path

from sentibench.report import training_curve
from sentibench.report.compare import Comparison, compare_results
from sentibench.report.leaderboard import Board, section
from sentibench.report.overview import HEADLINE
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import recorded_weights
from sentibench.results.training_log import TRAINING_FILE, read_training_log


def page_name(model: str) -> str:
    """A model page's file name: the row label made safe for a path, with a short hash of the label when
    that changed it (two labels never share a page)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip(".-") or "model"
    return (safe if safe == model else f"{safe}-{hashlib.sha256(model.encode()).hexdigest()[:8]}") + ".html"


def _link(result: TaskResult, page_dir: Path, text: str) -> str:
    target = Path(os.path.relpath(result.path.resolve(), page_dir.resolve())).as_posix()
    return f'<a class="result" href="{html.escape(target)}">{text}</a>'


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def _training_curve(board: Board, model: str, page_dir: Path) -> str:
    """The curve of the checkpoint these results were made with (`training.json` beside them), or why none."""
    folder = next(iter(board.by_model[model].values())).path.parent
    log = read_training_log(folder)
    if log is None:
        return "none: no training log is recorded beside these results"
    if log.weights_sha256 not in {recorded_weights(r) for r in board.by_model[model].values()}:
        return "none: the training log beside these results is of other weights"
    target = Path(os.path.relpath((folder / TRAINING_FILE).resolve(), page_dir.resolve())).as_posix()
    kept = f"kept step {log.best_step} of {log.steps}" if log.best_step is not None and log.steps else "all steps"
    return (f'<p>{html.escape(log.method or "training")}: {kept} (<a class="training" href="{html.escape(target)}">'
            f"{TRAINING_FILE}</a>)</p>{training_curve.svg(log)}")


def _card(board: Board, model: str, page_dir: Path) -> str:
    """The card as recorded in the results, with the packaged card's description, licence and citation."""
    from sentibench.models.cards import packaged_cards

    info = next(iter(board.by_model[model].values())).provenance.model
    card = packaged_cards().get(info.name) if info is not None else None
    base = info.base if info is not None else None
    base_rows = [label for label, results in board.by_model.items()
                 if next(iter(results.values())).provenance.model is not None
                 and next(iter(results.values())).provenance.model.name == base]
    fields = [
        ("kind", html.escape(board.kinds[model])),
        ("description", html.escape(card.description) if card else "no packaged card"),
        ("base", "none" if not base else (f'<a class="base" href="{html.escape(page_name(base_rows[0]))}">'
                                          f"{html.escape(base)}</a>" if len(base_rows) == 1 else html.escape(base))),
        ("recipe", html.escape(json.dumps(info.recipe, sort_keys=True)) if info and info.recipe else "none"),
        ("loader / revision", html.escape(f"{info.loader} / {info.revision}") if info else "not recorded"),
        ("hub id", html.escape(info.hub_id or "none") if info else "not recorded"),
        ("training data", html.escape(", ".join(info.training_data) or "none recorded") if info else "not recorded"),
        ("licence", html.escape(card.license or "not recorded") if card else "not recorded (no packaged card)"),
        ("citation", html.escape(card.citation or "not recorded") if card else "not recorded (no packaged card)"),
        ("notes", html.escape(card.notes) if card and card.notes else "none"),
    ]
    weights = sorted({r.provenance.model.weights_sha256 or "not recorded" for r in board.by_model[model].values()
                      if r.provenance.model is not None})
    fields.append(("weights sha256", "<br>".join(f"<code>{html.escape(w)}</code>" for w in weights) or "not recorded"))
    fields.append(("training curve", _training_curve(board, model, page_dir)))
    return '<dl class="card">' + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields) + "</dl>"


def _scores(results: dict[str, TaskResult], page_dir: Path) -> str:
    rows = []
    for task in sorted(results, key=lambda t: (section(results[t]) != HEADLINE, section(results[t]), t)):
        result = results[task]
        interval = result.confidence_interval()
        text = _pct(result.main_score()) + ("*" if result.provenance.trained_on_eval_dataset else "")
        bounds = ("" if interval is None or interval.low is None or interval.high is None
                  else f"[{_pct(interval.low)}, {_pct(interval.high)}]")
        dataset = result.provenance.dataset
        rows.append(f'<tr data-task="{html.escape(task)}"><td>{html.escape(section(result))}</td>'
                    f"<td>{html.escape(task)}</td><td>{_link(result, page_dir, text)}</td><td>{bounds}</td>"
                    f"<td>{'yes' if result.provenance.trained_on_eval_dataset else ''}</td>"
                    f"<td><code>{html.escape(dataset.content_hash[:12]) if dataset else ''}</code></td></tr>")
    return ('<table id="scores"><thead><tr><th>group</th><th>task</th><th>score</th><th>95% CI</th>'
            "<th>in-domain</th><th>data sha256</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _comparison(board: Board, model: str, page_dir: Path) -> str:
    info = next(iter(board.by_model[model].values())).provenance.model
    base = info.base if info is not None else None
    if not base:
        return "<p>No base: this model was not fine-tuned from another card.</p>"
    rows_of = [label for label, results in board.by_model.items()
               if next(iter(results.values())).provenance.model is not None
               and next(iter(results.values())).provenance.model.name == base]
    if len(rows_of) != 1:
        return f"<p>Its base {html.escape(base)} has no single set of results here to compare with.</p>"
    ours, theirs = board.by_model[model], board.by_model[rows_of[0]]
    shared = sorted(set(ours) & set(theirs))
    if not shared:
        return f"<p>It shares no task with its base {html.escape(base)}.</p>"
    rows = compare_results(ours, theirs, shared, aso=False)
    return (f"<p>Paired comparison with its base <code>{html.escape(base)}</code> on the {len(shared)} tasks "
            f"both have (as <code>bench compare {html.escape(model)} {html.escape(rows_of[0])}</code>; A - B &gt; 0: "
            "this model is better; p (BH): Benjamini-Hochberg across the tested rows).</p>"
            + _comparison_table(rows, ours, theirs, page_dir))


def _comparison_table(rows: list[Comparison], ours: dict[str, TaskResult], theirs: dict[str, TaskResult],
                      page_dir: Path) -> str:
    body = []
    for row in rows:
        interval = "" if row.low is None else f"[{_pct(row.low)}, {_pct(row.high)}]"
        body.append(f'<tr data-task="{html.escape(row.task)}"><td>{html.escape(row.task)}</td>'
                    f"<td>{_link(ours[row.task], page_dir, _pct(row.score_a))}</td>"
                    f"<td>{_link(theirs[row.task], page_dir, _pct(row.score_b))}</td>"
                    f"<td>{_pct(row.difference)}</td><td>{interval}</td>"
                    f"<td>{'' if row.p_value is None else f'{row.p_value:.3g}'}</td>"
                    f"<td>{'' if row.p_adjusted is None else f'{row.p_adjusted:.3g}'}</td>"
                    f"<td>{html.escape(row.test or row.note)}</td></tr>")
    return ('<table id="comparison"><thead><tr><th>task</th><th>this model</th><th>base</th><th>A - B</th>'
            "<th>95% CI</th><th>p</th><th>p (BH)</th><th>test</th></tr></thead><tbody>"
            + "".join(body) + "</tbody></table>")


def render_model_page(board: Board, model: str, page_dir: Path) -> str:
    """The page of row `model` of `board`, with links relative to `page_dir`."""
    from sentibench.report.leaderboard_html import STYLE

    results = board.by_model[model]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(model)}: sentibench</title>
<style>{STYLE}</style></head>
<body><p><a href="../index.html">&larr; leaderboard</a></p><h1>{html.escape(model)}</h1>
<h2>Card</h2>{_card(board, model, page_dir)}
<h2>Scores ({len(results)} tasks)</h2>
<p>Main score x 100 (each links to its result JSON), its 95% interval, whether the model trained or was
selected on the dataset (in-domain, marked *), and the hash of the evaluated data.</p>
{_scores(results, page_dir)}
<h2>Against its base</h2>{_comparison(board, model, page_dir)}
</body></html>
"""
