"""A model's page in the static site (`SITE/models/<model>.html`): its whole story on one page.

The card (size: parameters, embedding size, max sequence length; base, recipe, training data, licence,
citation: the result's recorded card, and the packaged card's text fields), the weights' and each dataset's
hashes, the training budget and curve when a training log is recorded beside the results (`training.json`, of
the same weights: preset, training seeds, steps, time, the kept step and whether validation was still improving
there), every score with its 95% interval and its in-domain mark, and the paired comparison against its base
(`report.compare.compare_results`, as `bench compare` does it). Every number links to its result JSON, copied
into the site (`report.site_files`).
"""

from __future__ import annotations

import hashlib
import html
import json
import re

from sentibench.report import training_curve
from sentibench.report.compare import Comparison, compare_results
from sentibench.report.leaderboard import Board, section
from sentibench.report.overview import HEADLINE
from sentibench.report.site_files import SiteFiles
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import recorded_weights
from sentibench.results.training_log import TRAINING_FILE, TrainingLog, read_training_log


def page_name(model: str) -> str:
    """A model page's file name: the row label made safe for a path, with a short hash of the label when
    that changed it (two labels never share a page)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip(".-") or "model"
    return (safe if safe == model else f"{safe}-{hashlib.sha256(model.encode()).hexdigest()[:8]}") + ".html"


def _link(result: TaskResult, files: SiteFiles, text: str) -> str:
    return f'<a class="result" href="{html.escape(files.href(result.path, depth=1))}">{text}</a>'


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def still_improving(log: TrainingLog) -> bool:
    """Whether the kept step is the last validated one, with a better score than the validation before it:
    training stopped while validation was still rising, so a longer budget may well do better."""
    scored = [(point["step"], point["validation"]) for point in log.history if "validation" in point]
    if log.best_step is None or len(scored) < 2:
        return False
    (last_step, last), (_, before) = scored[-1], scored[-2]
    return last_step == log.best_step and last > before


def _budget(log: TrainingLog, recipe: dict) -> str:
    """How much training the checkpoint had: preset, training seeds, steps, time, and the kept step."""
    seeds = recipe.get("seeds") or ([recipe["seed"]] if "seed" in recipe else [])
    parts = [f"preset <code>{html.escape(str(recipe.get('preset', 'not recorded')))}</code>",
             f"{len(seeds)} training seed{'s' if len(seeds) != 1 else ''} ({html.escape(', '.join(map(str, seeds)))})"
             if seeds else "training seeds not recorded",
             f"{log.steps} steps" if log.steps else "steps not recorded",
             f"{log.seconds:.0f} s of training" if log.seconds else "time not recorded",
             f"kept step {log.best_step}" if log.best_step is not None else "the last step kept"]
    verdict = ("Validation was <b>still improving at the kept (last) step</b>: a longer budget may do better"
               if still_improving(log) else "Validation had stopped improving at the kept step"
               if log.best_step is not None else "No validation selected the checkpoint")
    return "; ".join(parts) + f". {verdict}."


def _training_curve(board: Board, model: str, files: SiteFiles) -> tuple[str, str]:
    """(the training budget, the curve) of the checkpoint these results were made with (`training.json` beside
    them), or why there is none."""
    folder = next(iter(board.by_model[model].values())).path.parent
    log = read_training_log(folder)
    if log is None:
        return "none recorded (not trained here, or trained before training logs)", "none"
    if log.weights_sha256 not in {recorded_weights(r) for r in board.by_model[model].values()}:
        return "not shown: the training log beside these results is of other weights", "none"
    info = next(iter(board.by_model[model].values())).provenance.model
    target = files.href(folder / TRAINING_FILE, depth=1)
    curve = (f'<p>{html.escape(log.method or "training")} (<a class="training" href="{html.escape(target)}">'
             f"{TRAINING_FILE}</a>)</p>{training_curve.svg(log)}")
    return _budget(log, info.recipe if info is not None else {}), curve


def _size(info, base_max_length: int | None) -> str:
    """Parameters, embedding size and max sequence length, as the result records the card (a trained card's
    max length is its base's)."""
    if info is None:
        return "not recorded"
    parameters = f"{info.parameters / 1e6:.1f}M parameters" if info.parameters else "parameters not recorded"
    dimension = f"{info.embedding_size}-d embeddings" if info.embedding_size else "embedding size not recorded"
    length = (f"max length {info.max_length} tokens" if info.max_length
              else f"max length {base_max_length} tokens (its base's)" if base_max_length
              else "max length not recorded")
    return f"{parameters}; {dimension}; {length}"


def base_rows_of(board: Board, model: str, base: str | None) -> list[str]:
    """The board's rows of the card `base`: those from `model`'s own results folder when it has one (a base run
    again into another folder is a row of its own, `[folder]`), else every row of that card."""
    if not base:
        return []
    rows = [label for label, results in board.by_model.items()
            if next(iter(results.values())).provenance.model is not None
            and next(iter(results.values())).provenance.model.name == base]
    same_folder = [label for label in rows if board.folders.get(label) == board.folders.get(model)]
    return same_folder or rows


def _card(board: Board, model: str, files: SiteFiles) -> str:
    """The card as recorded in the results, with the packaged card's description, licence and citation."""
    from sentibench.models.catalog.cards import packaged_cards

    info = next(iter(board.by_model[model].values())).provenance.model
    card = packaged_cards().get(info.name) if info is not None else None
    base = info.base if info is not None else None
    base_card = packaged_cards().get(base) if base else None
    base_rows = base_rows_of(board, model, base)
    fields = [
        ("kind", html.escape(board.kinds[model])),
        ("size", html.escape(_size(info, base_card.max_length if base_card else None))),
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
    budget, curve = _training_curve(board, model, files)
    fields += [("training budget", budget), ("training curve", curve)]
    return '<dl class="card">' + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields) + "</dl>"


def _scores(results: dict[str, TaskResult], files: SiteFiles) -> str:
    rows = []
    for task in sorted(results, key=lambda t: (section(results[t]) != HEADLINE, section(results[t]), t)):
        result = results[task]
        interval = result.confidence_interval()
        text = _pct(result.main_score()) + ("*" if result.provenance.trained_on_eval_dataset else "")
        bounds = ("" if interval is None or interval.low is None or interval.high is None
                  else f"[{_pct(interval.low)}, {_pct(interval.high)}]")
        dataset = result.provenance.dataset
        rows.append(f'<tr data-task="{html.escape(task)}"><td>{html.escape(section(result))}</td>'
                    f"<td>{html.escape(task)}</td><td>{_link(result, files, text)}</td><td>{bounds}</td>"
                    f"<td>{'yes' if result.provenance.trained_on_eval_dataset else ''}</td>"
                    f"<td><code>{html.escape(dataset.content_hash[:12]) if dataset else ''}</code></td></tr>")
    return ('<table id="scores"><thead><tr><th>group</th><th>task</th><th>score</th><th>95% CI</th>'
            "<th>in-domain</th><th>data sha256</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _comparison(board: Board, model: str, files: SiteFiles) -> str:
    info = next(iter(board.by_model[model].values())).provenance.model
    base = info.base if info is not None else None
    if not base:
        return "<p>No base: this model was not fine-tuned from another card.</p>"
    rows_of = base_rows_of(board, model, base)
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
            + _comparison_table(rows, ours, theirs, files))


def _comparison_table(rows: list[Comparison], ours: dict[str, TaskResult], theirs: dict[str, TaskResult],
                      files: SiteFiles) -> str:
    body = []
    for row in rows:
        interval = "" if row.low is None else f"[{_pct(row.low)}, {_pct(row.high)}]"
        body.append(f'<tr data-task="{html.escape(row.task)}"><td>{html.escape(row.task)}</td>'
                    f"<td>{_link(ours[row.task], files, _pct(row.score_a))}</td>"
                    f"<td>{_link(theirs[row.task], files, _pct(row.score_b))}</td>"
                    f"<td>{_pct(row.difference)}</td><td>{interval}</td>"
                    f"<td>{'' if row.p_value is None else f'{row.p_value:.3g}'}</td>"
                    f"<td>{'' if row.p_adjusted is None else f'{row.p_adjusted:.3g}'}</td>"
                    f"<td>{html.escape(row.test or row.note)}</td></tr>")
    return ('<table id="comparison"><thead><tr><th>task</th><th>this model</th><th>base</th><th>A - B</th>'
            "<th>95% CI</th><th>p</th><th>p (BH)</th><th>test</th></tr></thead><tbody>"
            + "".join(body) + "</tbody></table>")


def render_model_page(board: Board, model: str, files: SiteFiles) -> str:
    """The page of row `model` of `board` (in the site's models/ folder), linking to the files' site copies."""
    from markupsafe import Markup

    from sentibench.report.templating import asset, render

    results = board.by_model[model]
    return render("model.html", model=model, style=asset("leaderboard.css"), tasks=len(results),
                  card=Markup(_card(board, model, files)), scores=Markup(_scores(results, files)),
                  comparison=Markup(_comparison(board, model, files)))
