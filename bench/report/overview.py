"""The leaderboard's overview: one row per model, one column per task group of the required suite.

A group's column is the mean of the model's main scores over the group's required tasks, given only when the
model has every one of them (a mean over fewer tasks is not comparable). Its 95% interval comes from the
stored unit values when every task of the group has them: each task's units are resampled independently
(`evaluation.bootstrap.bootstrap_means`, one seed per task) and the percentile interval is taken over the
means of the tasks' resampled scores; a group whose tasks carry only per-seed scores (few-shot) gets the
normal approximation from the tasks' own intervals, half-width sqrt(sum h_i^2) / n. Models that have the whole
required suite are ranked (mean of their ranks over the group columns); the others are listed apart with their
coverage, unranked.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from sentibench.core.io import atomic_write_json
from sentibench.results.schema import TaskResult

HEADLINE = "sgts"  # the benchmark's headline group: first in every listing
BOOTSTRAP = "bootstrap of the stored unit values"
NORMAL = "normal approximation from the tasks' intervals"


def group_of(groups: tuple[str, ...] | list[str], kind: str | None = None) -> str:
    """A task's most specific group (its last): `fewshot-full` and `fewshot-frozen` are apart."""
    return (list(groups) or [kind or "other"])[-1]


def ordered(names: set[str] | list[str]) -> list[str]:
    """Group names with the headline group first, then alphabetically."""
    return sorted(names, key=lambda name: (name != HEADLINE, name))


@dataclass(frozen=True)
class GroupMean:
    """A model's mean main score over one group's required tasks, with its 95% interval."""

    mean: float
    low: float | None
    high: float | None
    method: str


@dataclass
class OverviewRow:
    model: str
    kind: str
    covered: int                                   # required tasks the model has
    means: dict[str, GroupMean] = field(default_factory=dict)
    rank: float | None = None


@dataclass
class Overview:
    groups: dict[str, list[str]]                   # group -> its required tasks, headline first
    required: int                                  # size of the required suite
    ranked: list[OverviewRow]                      # full coverage, best first
    partial: list[OverviewRow]                     # the rest, most coverage first
    not_run: list[tuple[str, str]]                 # (hub-only card without results, why it cannot run here)


def required_groups() -> dict[str, list[str]]:
    """The required suite's tasks by group, headline group first."""
    from sentibench.run.suite import required_tasks

    by_group: dict[str, list[str]] = defaultdict(list)
    for task in required_tasks():
        by_group[group_of(task.metadata.groups, task.metadata.type)].append(task.name)
    return {name: sorted(by_group[name]) for name in ordered(set(by_group))}


def _unit_values(result: TaskResult) -> np.ndarray | None:
    from sentibench.evaluation.units import UnitValues, units_path

    path = units_path(result.path)
    return UnitValues.load(path).values if path.exists() else None


def group_mean(results: list[TaskResult]) -> GroupMean:
    """The mean main score of `results` (one per task) and its interval (module docstring)."""
    from sentibench.evaluation.bootstrap import BOOTSTRAP_SEED, LEVEL, bootstrap_means

    scores = np.array([r.main_score() for r in results], dtype=float)
    units = [_unit_values(r) for r in results]
    tail = 100 * (1 - LEVEL) / 2
    if all(u is not None and len(u) for u in units):
        replicates = np.mean([bootstrap_means(u, seed=BOOTSTRAP_SEED + i) for i, u in enumerate(units)], axis=0)
        low, high = np.percentile(replicates, [tail, 100 - tail])
        return GroupMean(float(scores.mean()), float(low), float(high), BOOTSTRAP)
    halves = []
    for result in results:
        interval = result.confidence_interval()
        if interval is None or interval.low is None or interval.high is None:
            return GroupMean(float(scores.mean()), None, None, NORMAL)
        halves.append((interval.high - interval.low) / 2)
    half = float(np.sqrt(np.sum(np.square(halves))) / len(halves))
    return GroupMean(float(scores.mean()), float(scores.mean()) - half, float(scores.mean()) + half, NORMAL)


def _valid(entry: object) -> bool:
    """A cached group mean read back: the four fields, finite numbers (bounds may be null), a known method."""
    def number(value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))

    return (isinstance(entry, dict) and set(entry) == {"mean", "low", "high", "method"}
            and number(entry["mean"]) and entry["method"] in (BOOTSTRAP, NORMAL)
            and all(entry[k] is None or number(entry[k]) for k in ("low", "high")))


class _CachedMeans:
    """`group_mean`, remembered in the cache by the sha256 of its results' JSON and unit-value bytes (a group
    mean is a pure function of those files: the bootstrap is seeded), so a re-render only bootstraps the
    groups whose files changed. A missing, unreadable or malformed cache entry is recomputed."""

    FILE = "leaderboard-group-means.json"

    def __init__(self) -> None:
        from sentibench.core.paths import cache_dir

        self.path = cache_dir() / self.FILE
        try:
            self.known = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.known = {}
        self.changed = False

    @staticmethod
    def _key(results: list[TaskResult]) -> str:
        from sentibench.evaluation.units import units_path

        digest = hashlib.sha256()
        for result in results:
            for path in (result.path, units_path(result.path)):
                digest.update(path.read_bytes() if path.exists() else b"-")
        return digest.hexdigest()

    def __call__(self, results: list[TaskResult]) -> GroupMean:
        key = self._key(results)
        entry = self.known.get(key) if isinstance(self.known, dict) else None
        if _valid(entry):
            return GroupMean(**entry)
        mean = group_mean(results)
        if not isinstance(self.known, dict):
            self.known = {}
        self.known[key], self.changed = asdict(mean), True
        return mean

    def save(self) -> None:
        if self.changed:
            try:
                atomic_write_json(self.path, self.known)
            except (OSError, ValueError):
                pass  # a read-only cache only costs the next render its speed


def _rank(rows: list[OverviewRow], groups: list[str], greater_is_better: dict[str, bool]) -> None:
    """Each row's mean rank over the group columns (ties share the better rank)."""
    ranks: dict[int, list[float]] = defaultdict(list)
    for group in groups:
        sign = 1 if greater_is_better[group] else -1
        keys = [-sign * row.means[group].mean for row in rows]
        for index, key in enumerate(keys):
            ranks[index].append(1.0 + sum(other < key for other in keys))
    for index, row in enumerate(rows):
        row.rank = sum(ranks[index]) / len(ranks[index]) if ranks[index] else None


def _hub_only(models_with_results: set[str]) -> list[tuple[str, str]]:
    """Packaged cards without results here whose weights only the Hugging Face Hub has (a trained card
    whose base is such a card too): they cannot run offline, so the board lists them instead of leaving
    them out silently."""
    from sentibench.models.cards import packaged_cards

    cards = packaged_cards()

    def hub_only(name: str, seen: frozenset[str] = frozenset()) -> bool:
        card = cards.get(name)
        if card is None or name in seen:
            return False
        if card.loader == "trained":
            return hub_only(card.recipe.get("base", ""), seen | {name})
        return bool(card.hub_id) and not (card.registry or card.package or card.checkpoint)

    return [(name, "hub-only: its weights come from the Hugging Face Hub, not a pinned package; cannot run "
                   "offline here") for name in sorted(set(cards) - models_with_results) if hub_only(name)]


def build_overview(by_model: dict[str, dict[str, TaskResult]], kinds: dict[str, str]) -> Overview:
    """The overview of `by_model` ({row label: {task: result}}, current non-smoke results only)."""
    groups = required_groups()
    required = [task for tasks in groups.values() for task in tasks]
    rows, means = [], _CachedMeans()
    for model, results in by_model.items():
        row = OverviewRow(model, kinds[model], sum(task in results for task in required))
        for group, tasks in groups.items():
            if all(task in results and results[task].main_score() is not None for task in tasks):
                row.means[group] = means([results[task] for task in tasks])
        rows.append(row)
    means.save()
    ranked = [row for row in rows if row.covered == len(required) and len(row.means) == len(groups)]
    partial = [row for row in rows if row not in ranked]
    greater = {group: next((by_model[row.model][tasks[0]].provenance.task.greater_is_better for row in ranked),
                           True) for group, tasks in groups.items()}
    _rank(ranked, list(groups), greater)
    ranked.sort(key=lambda row: (row.rank, row.model))
    partial.sort(key=lambda row: (-row.covered, row.model))
    names = {r.provenance.model.name for results in by_model.values() for r in results.values()
             if r.provenance.model is not None}
    return Overview(groups, len(required), ranked, partial, _hub_only(names))
