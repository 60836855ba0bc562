"""The leaderboard's overview of one benchmark (`sentibench.tasks.benchmarks`): its headline axes first, then
its task families, then its geometry diagnostics.

**Axes.** Each axis (Sentiment, Meaning) is a model's mean main score over the axis's tasks. In-domain results
(the model was trained or selected on the task's dataset) are left out of the mean by default, a zero-shot
view as MTEB's; `include_in_domain` puts them back. Its 95% interval is a two-level percentile bootstrap:
each replicate draws the axis's tasks with replacement, and each task's evaluation units (the stored unit
values; the per-seed scores of a few-shot task) with replacement; the replicate is the mean over the drawn
tasks of each task's resampled score (a replicate that drew none of a model's kept tasks takes the mean of all of
them, their units resampled). Every ranked model shares each replicate's draws (the same tasks, the
same units where the models' units are the same, which the units' hash says), so a replicate ranks the models
against each other; a model's **rank interval** is the 2.5th and 97.5th percentile of its rank over the
replicates (Hall & Miller 2009's bootstrap rank intervals; chosen over shared ranks for overlapping intervals
because overlap of two marginal intervals is not a test of their difference, while a paired replicate is).
The point rank is 1 + the number of models with a higher point estimate (ties share the better rank). The
**Pareto front** is the set of ranked models no other ranked model beats on both axes.

**Families.** A family's column is the mean of the model's main scores over the family's tasks, given only
when the model has every one of them; its interval is the one-level bootstrap of `group_mean`. Families
are shown, not ranked. **Diagnostics** (alignment, uniformity, tolerance) are means over the diagnostic tasks,
never ranked: each has its own direction, and a collapsed space has tolerance 1.

Models with every task of the benchmark are ranked (when there are at least two of them); the others are
listed apart with their coverage.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from sentibench.report.memo import remembered
from sentibench.report.seed_spread import SeedFamily, seed_families
from sentibench.results.schema import TaskResult
from sentibench.results.store import counts_for
from sentibench.results.unit_values_file import result_units
from sentibench.tasks.benchmarks import Benchmark

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


@dataclass(frozen=True)
class AxisScore:
    """A model's score on one headline axis: the mean, its 95% interval, and its rank with the rank's interval
    (ranks only for ranked models)."""

    mean: float
    low: float | None
    high: float | None
    tasks: int                        # tasks averaged
    left_out: tuple[str, ...] = ()    # in-domain tasks left out of the mean
    of: int = 0                       # tasks on the axis (a partial model averages the ones it has)
    rank: int | None = None
    rank_low: int | None = None
    rank_high: int | None = None
    replicates: tuple[float, ...] = field(default=(), repr=False, compare=False)  # the bootstrap's axis means


@dataclass(frozen=True)
class AxisAgreement:
    """How far an axis's tasks rank the ranked models alike: the mean Spearman rho over pairs of tasks,
    Kendall's W (coefficient of concordance, Kendall & Babington Smith 1939; ties averaged, no correction)
    and each task's Spearman rho with the mean (chance-normalised where the benchmark is) of the axis's other
    tasks. A task with a negative rho ranks models against the rest of its axis."""

    models: int
    mean_rho: float
    kendall_w: float
    with_rest: dict[str, float]


@dataclass
class OverviewRow:
    model: str
    kind: str
    covered: int                                   # benchmark tasks the model has
    means: dict[str, GroupMean] = field(default_factory=dict)   # family -> mean
    axes: dict[str, AxisScore] = field(default_factory=dict)    # axis -> score
    geometry: dict[str, float] = field(default_factory=dict)    # diagnostic metric -> mean over diagnostic tasks
    pareto: bool = False
    zero_shot: float | None = None                 # share of the axes' tasks the model did not train on
    tasks: frozenset[str] = frozenset()            # the benchmark tasks it has a counted result for

    @property
    def rank(self) -> int | None:
        """The rank on the first axis (the order of the board)."""
        first = next(iter(self.axes.values()), None)
        return None if first is None else first.rank


@dataclass
class Overview:
    benchmark: Benchmark
    include_in_domain: bool
    groups: dict[str, list[str]]                   # family -> its tasks in the benchmark, headline first
    metrics: dict[str, list[str]]                  # family -> the main-score names it averages
    required: int                                  # tasks in the benchmark
    ranked: list[OverviewRow]                      # full coverage, best first on the first axis
    partial: list[OverviewRow]                     # the rest, most coverage first
    not_run: list[tuple[str, str]]                 # (hub-only card without results, why it cannot run here)
    seeds: list[SeedFamily] = field(default_factory=list)  # one recipe trained with several seeds
    agreement: dict[str, AxisAgreement] = field(default_factory=dict)  # axis -> its tasks' agreement (ranked models)


GEOMETRY = ("alignment", "uniformity", "tolerance")


def benchmark_groups(benchmark: Benchmark) -> dict[str, list[str]]:
    """The benchmark's tasks by family (the diagnostics apart), headline family first."""
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    by_group: dict[str, list[str]] = defaultdict(list)
    for name in benchmark.task_names:
        if name in benchmark.diagnostics:
            continue
        meta = installed[name].metadata if name in installed else None
        by_group[group_of(meta.groups, meta.type) if meta else name.split("-")[0]].append(name)
    return {name: sorted(by_group[name]) for name in ordered(set(by_group))}


def _unit_values(result: TaskResult) -> np.ndarray | None:
    units = result_units(result)
    return None if units is None else units.values


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


METHODS = (BOOTSTRAP, NORMAL)


def remembered_group_mean(results: list[TaskResult]) -> GroupMean:
    """`group_mean`, remembered (`report.memo`) as [mean, low, high, method]: finite where a number is due, NaN
    for a missing bound, the method as its index in `METHODS`."""
    def encode() -> np.ndarray:
        mean = group_mean(results)
        return np.array([mean.mean, np.nan if mean.low is None else mean.low,
                         np.nan if mean.high is None else mean.high, METHODS.index(mean.method)])

    def valid(known: np.ndarray) -> bool:
        return (known.shape == (4,) and bool(np.isfinite(known[0])) and known[3] in (0, 1)
                and np.isnan(known[1]) == np.isnan(known[2]))

    known = remembered("group-mean", results, encode, valid)
    bound = [None if np.isnan(value) else float(value) for value in known[1:3]]
    return GroupMean(float(known[0]), bound[0], bound[1], METHODS[int(known[3])])


def _axis_units(result: TaskResult) -> tuple[np.ndarray, str] | None:
    """A result's resampling units and what identifies them: the stored unit values (their hash), or a few-shot
    task's per-seed main scores (the seeds); None when it has neither."""
    units = result_units(result)
    if units is not None:
        return units.values, units.units_hash
    metric, seeds = result.provenance.task.main_score, result.provenance.details.per_seed or []
    values = [run.metric(metric) for run in seeds] if metric else []
    if len(values) > 1 and all(isinstance(v, (int, float)) for v in values):
        return np.asarray(values, dtype=np.float64), json.dumps([run.seed for run in seeds])
    return None


def _task_replicates(results: list[TaskResult], resamples: int, seed: int) -> np.ndarray:
    """[resamples, models] resampled scores of one task: the same units drawn for every model when their units
    are the same (paired), each model's own draw otherwise, the point score where a model has no units."""
    from sentibench.evaluation.bootstrap import bootstrap_means

    units = [_axis_units(result) for result in results]
    if all(u is not None for u in units) and len({(len(u[0]), u[1]) for u in units}) == 1:
        return bootstrap_means(np.column_stack([u[0] for u in units]), resamples, seed)
    columns = [np.full(resamples, result.main_score()) if u is None else bootstrap_means(u[0], resamples, seed)
               for result, u in zip(results, units)]
    return np.column_stack(columns)


def remembered_task_replicates(results: list[TaskResult], resamples: int, seed: int) -> np.ndarray:
    """`_task_replicates`, remembered (`report.memo`): used only when read back whole, [resamples, models] and
    every value finite."""
    return remembered("replicates", results, lambda: _task_replicates(results, resamples, seed),
                      lambda known: known.shape == (resamples, len(results)) and bool(np.isfinite(known).all()),
                      salt=f"{seed}:{resamples}")


def chance_normalised(values: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """`(score - chance) / (1 - chance)` along the first axis (one chance level per task): 0 is chance, 1 is
    a perfect score, on every task (docs/benchmarks.md, "Scales")."""
    shape = (-1,) + (1,) * (values.ndim - 1)
    return (values - chance.reshape(shape)) / (1 - chance.reshape(shape))


def axis_scores(models: list[dict[str, TaskResult]], tasks: list[str], include_in_domain: bool,
                rank: bool, chance: dict[str, float] | None = None) -> list[AxisScore | None]:
    """Each model's score on the axis of `tasks` (module docstring: two-level bootstrap, shared draws, rank
    intervals when `rank`), on the chance-normalised scale when `chance` gives each task's chance level; None
    for a model with no task left to average."""
    from sentibench.evaluation.bootstrap import BOOTSTRAP_SEED, LEVEL, RESAMPLES

    if not models:
        return []
    scores = np.array([[m[t].main_score() for m in models] for t in tasks], dtype=np.float64)   # [T, M]
    keep = np.array([[include_in_domain or not m[t].provenance.trained_on_eval_dataset for m in models]
                     for t in tasks], dtype=np.float64)
    replicates = np.stack([remembered_task_replicates([m[t] for m in models], RESAMPLES, BOOTSTRAP_SEED + i)
                           for i, t in enumerate(tasks)])                                    # [T, B, M]
    if chance:
        levels = np.array([chance[t] for t in tasks], dtype=np.float64)
        scores, replicates = chance_normalised(scores, levels), chance_normalised(replicates, levels)
    draws = np.random.default_rng(BOOTSTRAP_SEED).multinomial(len(tasks), np.full(len(tasks), 1 / len(tasks)),
                                                              size=RESAMPLES).astype(np.float64)  # [B, T]
    weight = draws[:, :, None] * keep[None, :, :]                                            # [B, T, M]
    total = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = (scores * keep).sum(axis=0) / keep.sum(axis=0)
        values = np.einsum("btm,tbm->bm", weight, replicates) / total
        # a replicate that drew none of a model's kept tasks: the mean of its kept tasks, units resampled
        own = np.einsum("tm,tbm->bm", keep, replicates) / keep.sum(axis=0)
    values = np.where(total > 0, values, own)
    tail = 100 * (1 - LEVEL) / 2
    out: list[AxisScore | None] = []
    valid = keep.sum(axis=0) > 0
    ranks = (1 + (values[:, None, :] > values[:, :, None]).sum(axis=2)) if rank else None   # [B, M]
    for j in range(len(models)):
        if not valid[j]:
            out.append(None)
            continue
        low, high = np.percentile(values[:, j], [tail, 100 - tail])
        left_out = tuple(t for i, t in enumerate(tasks) if not keep[i, j])
        if ranks is None:
            out.append(AxisScore(float(point[j]), float(low), float(high), int(keep[:, j].sum()), left_out,
                                 len(tasks)))
            continue
        point_rank = 1 + int(sum(point[k] > point[j] for k in range(len(models)) if valid[k]))
        rank_low = int(np.percentile(ranks[:, j], tail, method="lower"))
        rank_high = int(np.percentile(ranks[:, j], 100 - tail, method="higher"))
        out.append(AxisScore(float(point[j]), float(low), float(high), int(keep[:, j].sum()), left_out,
                             len(tasks), point_rank, rank_low, rank_high, tuple(values[:, j].tolist())))
    return out


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of `values`, ties sharing their mean rank (scipy's `rankdata` default, without importing scipy:
    the board imports no heavy library)."""
    values = np.asarray(values, dtype=np.float64)
    positions = np.empty(len(values))
    positions[np.argsort(values, kind="mergesort")] = np.arange(1, len(values) + 1)
    _, tie_group = np.unique(values, return_inverse=True)
    return (np.bincount(tie_group, weights=positions) / np.bincount(tie_group))[tie_group]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the average ranks; NaN when either side is constant."""
    x, y = average_ranks(a), average_ranks(b)
    x, y = x - x.mean(), y - y.mean()
    scale = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / scale) if scale > 0 else float("nan")


def axis_agreement(models: list[dict[str, TaskResult]], tasks: list[str],
                   chance: dict[str, float] | None = None) -> AxisAgreement | None:
    """The agreement of `tasks` over `models` (every model has every task), in-domain results included; None
    with fewer than three models or two tasks."""
    if len(models) < 3 or len(tasks) < 2:
        return None
    scores = np.array([[m[t].main_score() for m in models] for t in tasks], dtype=np.float64)   # [T, M]
    if chance:
        scores = chance_normalised(scores, np.array([chance[t] for t in tasks], dtype=np.float64))
    pairs = [spearman(scores[i], scores[j]) for i in range(len(tasks)) for j in range(i + 1, len(tasks))]
    ranks = np.vstack([average_ranks(row) for row in scores])
    n, k = ranks.shape[1], ranks.shape[0]
    spread = ((ranks.sum(axis=0) - k * (n + 1) / 2) ** 2).sum()
    rest = {t: spearman(scores[i], np.delete(scores, i, axis=0).mean(axis=0)) for i, t in enumerate(tasks)}
    return AxisAgreement(len(models), float(np.nanmean(pairs)), float(12 * spread / (k ** 2 * (n ** 3 - n))), rest)


def mark_pareto(rows: list[OverviewRow], axes: list[str]) -> None:
    """Mark the rows that no other row beats on every axis (>= on all, > on one)."""
    for row in rows:
        mine = [row.axes[a].mean for a in axes]
        row.pareto = not any(all(o.axes[a].mean >= m for a, m in zip(axes, mine))
                             and any(o.axes[a].mean > m for a, m in zip(axes, mine))
                             for o in rows if o is not row)


def _geometry(results: dict[str, TaskResult], tasks: tuple[str, ...]) -> dict[str, float]:
    """The diagnostic metrics' means over the diagnostic tasks the model has all of."""
    if not tasks or not all(t in results for t in tasks):
        return {}
    out = {}
    for metric in GEOMETRY:
        values = [results[t].scores[results[t].main_split][0].metric(metric) for t in tasks]
        if all(isinstance(v, (int, float)) for v in values):
            out[metric] = float(np.mean(values))
    return out


def _hub_only(models_with_results: set[str]) -> list[tuple[str, str]]:
    """Packaged cards without results here whose weights only the Hugging Face Hub has (a trained card
    whose base is such a card too): they cannot run offline, so the board lists them instead of leaving
    them out silently."""
    from sentibench.models.catalog.card_schema import recipe_kind
    from sentibench.models.catalog.cards import packaged_cards

    cards = packaged_cards()

    def hub_only(name: str, seen: frozenset[str] = frozenset()) -> bool:
        card = cards.get(name)
        if card is None or name in seen:
            return False
        if recipe_kind(card.loader):
            return hub_only(card.recipe.get("base", ""), seen | {name})
        return bool(card.hub_id) and not (card.registry or card.package or card.checkpoint)

    return [(name, "hub-only: its weights come from the Hugging Face Hub, not a pinned package; cannot run "
                   "offline here") for name in sorted(set(cards) - models_with_results) if hub_only(name)]


def build_overview(by_model: dict[str, dict[str, TaskResult]], kinds: dict[str, str], benchmark: Benchmark,
                   include_in_domain: bool = False) -> Overview:
    """The overview of `by_model` ({row label: {task: result}}, current non-smoke results) for `benchmark`:
    only results of the benchmark's pinned task versions and dataset hashes count."""
    groups = benchmark_groups(benchmark)
    required = benchmark.task_names
    counted = {model: {name: result for name, result in results.items() if counts_for(result, benchmark)}
               for model, results in by_model.items()}
    rows = []
    for model, results in counted.items():
        row = OverviewRow(model, kinds[model], sum(task in results for task in required),
                          tasks=frozenset(task for task in required if task in results))
        for group, tasks in groups.items():
            if all(task in results and results[task].main_score() is not None for task in tasks):
                row.means[group] = remembered_group_mean([results[task] for task in tasks])
        row.geometry = _geometry(results, benchmark.diagnostics)
        rows.append(row)
    full = [row for row in rows if row.covered == len(required)
            and all(counted[row.model][t].main_score() is not None for t in required)]
    ranked = full if len(full) >= 2 else []
    include_in_domain = include_in_domain or benchmark.in_domain == "counted"
    chance = benchmark.chance_levels or None
    agreement = {}
    for axis in benchmark.axes:
        found = axis_agreement([counted[row.model] for row in ranked], list(axis.tasks), chance)
        if found is not None:
            agreement[axis.name] = found
        scores = axis_scores([counted[row.model] for row in ranked], list(axis.tasks), include_in_domain, True, chance)
        for row, score in zip(ranked, scores):
            if score is not None:
                row.axes[axis.name] = score
        for row in rows:  # unranked: the mean over the axis's tasks the model has, marked [n/N]
            have = [t for t in axis.tasks if t in counted[row.model] and counted[row.model][t].main_score() is not None]
            if row not in ranked and have:
                score = axis_scores([counted[row.model]], have, include_in_domain, False, chance)[0]
                if score is not None:
                    row.axes[axis.name] = dataclasses.replace(score, of=len(axis.tasks))
    axis_tasks = {t for axis in benchmark.axes for t in axis.tasks}
    for row in rows:
        had = [counted[row.model][t] for t in axis_tasks if t in counted[row.model]]
        if had:
            row.zero_shot = sum(not r.provenance.trained_on_eval_dataset for r in had) / len(had)
    mark_pareto([row for row in ranked if len(row.axes) == len(benchmark.axes)], [a.name for a in benchmark.axes])
    partial = [row for row in rows if row not in ranked]
    first = benchmark.axes[0].name
    ranked.sort(key=lambda row: (row.axes[first].rank if first in row.axes else len(rows), row.model))
    partial.sort(key=lambda row: (-row.covered, row.model))
    metrics = {group: sorted({counted_metric(by_model, task) for task in tasks} - {""})
               for group, tasks in groups.items()}
    names = {r.provenance.model.name for results in by_model.values() for r in results.values()
             if r.provenance.model is not None}
    seeds = seed_families(counted, {row.model: {axis: (score.mean, score.tasks) for axis, score in row.axes.items()}
                                    for row in rows})
    return Overview(benchmark, include_in_domain, groups, metrics, len(required), ranked, partial, _hub_only(names),
                    seeds, agreement)


def counted_metric(by_model: dict[str, dict[str, TaskResult]], task: str) -> str:
    """The main-score name the results of `task` record ("" when none of them has it)."""
    return next((results[task].provenance.task.main_score or "" for results in by_model.values() if task in results),
                "")
