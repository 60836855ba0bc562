"""`bench leaderboard --format csv|json`: every table of the board as data, for papers and notebooks.

One tidy record per (table, model, column): the overview's axes (mean, 95% interval, rank and its 95% range,
the Pareto mark), its family means and geometry diagnostics, and every task group's scores (main score, 95%
interval, best / not significantly worse / in-domain marks) with the row's rank, average and coverage.
Scores are main scores x 100, as the board prints them. The JSON holds the same records under the board's
stamp, benchmark and manifest, so a number taken out says where it came from; the CSV is the records alone.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from sentibench.core.io import write_output
from sentibench.report.leaderboard import Board
from sentibench.report.overview import GEOMETRY, Overview, OverviewRow

FIELDS = ("table", "model", "kind", "folder", "column", "metric", "value", "low", "high", "rank", "rank_low",
          "rank_high", "coverage", "marks")


def _x100(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 6)


def _overview_records(board: Board, overview: Overview, row: OverviewRow, ranked: bool) -> list[dict[str, Any]]:
    """A row's overview records; a section after the lead names its benchmark in the table (`overview: NAME`)."""
    table = "overview" if ranked else "overview (partial coverage)"
    if overview is not board.overview:
        table += f": {overview.benchmark.name}"
    base = {"table": table, "model": row.model, "kind": row.kind,
            "folder": str(board.folders.get(row.model, "")), "coverage": f"{row.covered}/{overview.required}"}
    records = []
    for axis in overview.benchmark.axes:
        score = row.axes.get(axis.name)
        if score is not None:
            marks = ([f"{score.tasks}/{score.of} tasks"] if score.tasks < score.of else []) + (
                ["pareto"] if row.pareto and ranked else []) + (
                [f"zero-shot {100 * row.zero_shot:.0f}%"] if overview.benchmark.chance and row.zero_shot is not None
                else [])
            records.append({**base, "column": axis.name, "metric": "axis mean", "value": _x100(score.mean),
                            "low": _x100(score.low), "high": _x100(score.high), "rank": score.rank,
                            "rank_low": score.rank_low, "rank_high": score.rank_high, "marks": ";".join(marks)})
    for group, mean in row.means.items():
        records.append({**base, "column": group, "metric": " / ".join(overview.metrics.get(group, [])) + " (mean)",
                        "value": _x100(mean.mean), "low": _x100(mean.low), "high": _x100(mean.high)})
    for metric in GEOMETRY:
        if metric in row.geometry:
            records.append({**base, "table": "geometry diagnostics", "column": metric, "metric": metric,
                            "value": round(row.geometry[metric], 6)})
    return records


def board_records(board: Board) -> list[dict[str, Any]]:
    """Every number of the board, one record per (table, model, column), in the board's order."""
    records = []
    for overview in (board.overview, *board.sections):
        for row in overview.ranked:
            records += _overview_records(board, overview, row, True)
        for row in overview.partial:
            records += _overview_records(board, overview, row, False)
    for group in board.groups:
        for row in group.rows:
            for task in group.tasks:
                cell = row.cells.get(task)
                if cell is None:
                    continue
                marks = [name for name, on in (("best", cell.best), ("not significantly worse", cell.tied_with_best),
                                               ("in-domain", cell.in_domain), ("dirty tree", cell.from_dirty_tree))
                         if on]
                records.append({"table": group.name, "model": row.model, "kind": row.kind,
                                "folder": str(board.folders.get(row.model, "")), "column": task,
                                "metric": cell.result.provenance.task.main_score or "", "value": _x100(cell.score),
                                "low": _x100(cell.low), "high": _x100(cell.high),
                                "rank": None if row.rank is None else round(row.rank, 6),
                                "coverage": f"{len(row.cells)}/{len(group.tasks)}", "marks": ";".join(marks)})
    return [{name: record.get(name) for name in FIELDS} for record in records]


def tables_csv(board: Board) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(board_records(board))
    return buffer.getvalue()


def tables_json(board: Board) -> str:
    bench = board.overview.benchmark
    document = {"built": board.stamp, "benchmark": bench.name, "manifest_sha256": bench.manifest_sha256,
                "include_in_domain": board.overview.include_in_domain,
                "results_folders": [str(root) for root in board.roots], "fields": list(FIELDS),
                "records": board_records(board)}
    return json.dumps(document, indent=1, allow_nan=False) + "\n"


def write_tables(board: Board, out: Path | str, fmt: str) -> str:
    """The board's tables as `fmt` ("csv" or "json") at `out` (`core.io.write_output`: `-` is standard
    output); where they went."""
    return write_output(out, tables_csv(board) if fmt == "csv" else tables_json(board))
