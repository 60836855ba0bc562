"""The views the web leaderboard's filters offer, computed in Python so that the page's script only shows them.

A view is what a set of ticked model kinds and results folders shows (no folder ticked: all of them; the search
box hides rows within a view and does not re-rank). For each view and each overview on the page: every ranked
model's rank, 95% rank range and Pareto mark among the view's ranked models, as `report.overview.build_overview`
gives them on a board of those models alone: `axis_scores` on the same shared bootstrap draws, on the benchmark's
own scale (chance-normalised on a format-2 benchmark), `mark_pareto`, and nobody ranked when fewer than two are
shown. For each task group: the mean ranks among the view's rows with every column (`report.leaderboard`'s
`rank_full_rows`). The view of everything is the board itself. Views showing the same models share one entry.
"""

from __future__ import annotations

from itertools import chain, combinations

from sentibench.report.leaderboard import KINDS, Board, Group, Row, rank_full_rows, rank_text
from sentibench.report.overview import Overview, OverviewRow, axis_scores, mark_pareto


def view_key(kinds: tuple[str, ...], folders: tuple[str, ...]) -> str:
    """The page's name for a view: the ticked kinds, `|`, the ticked folders, each in the controls' order."""
    return ",".join(kinds) + "|" + ",".join(folders)


def _subsets(items: tuple[str, ...]) -> list[tuple[str, ...]]:
    return list(chain.from_iterable(combinations(items, n) for n in range(len(items) + 1)))


def ranked_rows(overview: Overview, board: Board, models: set[str]) -> list[OverviewRow]:
    """The overview's ranked rows among `models`, ranked and Pareto-marked among themselves (module docstring)."""
    shown = [row for row in overview.ranked if row.model in models]
    if len(shown) == len(overview.ranked):
        return overview.ranked
    if len(shown) < 2:
        return []
    bench = overview.benchmark
    rows = [OverviewRow(row.model, row.kind, row.covered) for row in shown]
    for axis in bench.axes:
        results = [{task: board.by_model[row.model][task] for task in axis.tasks} for row in rows]
        scores = axis_scores(results, list(axis.tasks), overview.include_in_domain, True, bench.chance_levels or None)
        for row, score in zip(rows, scores):
            if score is not None:
                row.axes[axis.name] = score
    mark_pareto([row for row in rows if len(row.axes) == len(bench.axes)], [axis.name for axis in bench.axes])
    return rows


def group_ranks(group: Group, models: set[str]) -> dict[str, list]:
    """{model: [mean rank, its text]} of the group's rows among `models` with every column."""
    if group.diagnostic:
        return {}
    rows = [Row(row.model, row.kind, row.cells) for row in group.rows if row.model in models]
    rank_full_rows(rows, group.tasks)
    return {row.model: [row.rank, f"{row.rank:.2f}"] for row in rows if row.rank is not None}


def _view(board: Board, models: set[str]) -> dict:
    overviews = {}
    for overview in [board.overview, *board.sections]:
        overviews[overview.benchmark.name] = {
            row.model: {"ranks": {axis: [score.rank, rank_text(score)] for axis, score in row.axes.items()},
                        "pareto": row.pareto}
            for row in ranked_rows(overview, board, models)}
    return {"overviews": overviews, "groups": {group.name: group_ranks(group, models) for group in board.groups}}


def page_views(board: Board) -> dict:
    """{"views": {view key: index into "data"}, "data": [view]} for every combination of the page's filters."""
    folders = tuple(root.name for root in board.roots) if len(board.roots) > 1 else ()
    keys, data, seen = {}, [], {}
    for kinds in _subsets(KINDS):
        for ticked in _subsets(folders):
            models = frozenset(model for model in board.by_model if board.kinds[model] in kinds
                               and (not ticked or board.folders[model].name in ticked))
            if models not in seen:
                seen[models] = len(data)
                data.append(_view(board, set(models)))
            keys[view_key(kinds, ticked)] = seen[models]
    return {"views": keys, "data": data}
