"""Training-seed spread: the rows of one recipe trained with several seeds, folded into a mean and spread.

A *seed family* is the board rows whose results record the same training recipe except its `seed`, and the
same card revision (a card's `training_seeds` makes them: `senticse-minilm`, `senticse-minilm-seed1`, ...;
a researcher's own `bench train --seed` runs of one recipe fold the same way). Each seed stays a row of its
own in the overview; this table adds, per headline axis, the mean over the seeds of their axis means, the
sample standard deviation (n - 1) and the range, over seeds whose means cover the same tasks (a seed missing
a task would change what is averaged, so such an axis is left blank for the family).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass

from sentibench.results.schema import TaskResult


@dataclass(frozen=True)
class SeedSpread:
    """One axis of a seed family: the mean over seeds, its sample standard deviation and range (x 1, not x 100)."""

    mean: float
    sd: float
    low: float
    high: float
    tasks: int


@dataclass(frozen=True)
class SeedFamily:
    name: str                        # the row of the lowest seed (the card's own name)
    revision: str
    seeds: tuple[int, ...]
    rows: tuple[str, ...]            # row labels, in seed order
    axes: dict[str, SeedSpread]      # axis -> spread (axes every seed covers alike)


def recipe_key(result: TaskResult) -> tuple[str, str, int] | None:
    """(revision, the recipe without its seed, the seed) of a result of a model trained from a recipe here;
    None for any other model."""
    model = result.provenance.model
    if model is None or not model.recipe or "seed" not in model.recipe or model.revision is None:
        return None
    seed = model.recipe["seed"]
    if not isinstance(seed, int):
        return None
    rest = {key: value for key, value in model.recipe.items() if key != "seed"}
    return model.revision, json.dumps(rest, sort_keys=True, default=str), seed


def seed_families(results_by_row: dict[str, dict[str, TaskResult]],
                  axes_by_row: dict[str, dict[str, tuple[float, int]]]) -> list[SeedFamily]:
    """The seed families among the rows ({row: {task: result}}), with two or more seeds, and their spread over
    each axis from `axes_by_row` ({row: {axis: (mean, tasks averaged)}})."""
    members: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for row, results in results_by_row.items():
        keys = {recipe_key(result) for result in results.values()}
        if len(keys) != 1 or None in keys:
            continue
        revision, recipe, seed = keys.pop()
        members[(revision, recipe)].setdefault(seed, row)
    families = []
    for (revision, _), by_seed in members.items():
        if len(by_seed) < 2:
            continue
        seeds = tuple(sorted(by_seed))
        rows = tuple(by_seed[seed] for seed in seeds)
        spreads = {}
        for axis in {axis for row in rows for axis in axes_by_row.get(row, {})}:
            values = [axes_by_row.get(row, {}).get(axis) for row in rows]
            if any(value is None for value in values) or len({tasks for _, tasks in values}) != 1:
                continue
            means = [mean for mean, _ in values]
            spreads[axis] = SeedSpread(statistics.fmean(means), statistics.stdev(means), min(means), max(means),
                                       values[0][1])
        families.append(SeedFamily(rows[0], revision, seeds, rows, spreads))
    return sorted(families, key=lambda family: family.name)
