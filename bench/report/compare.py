"""`bench compare A B`: paired comparison of two models' committed results, task by task, without the models.

- Tasks with unit values (`<task>.units.npz` beside the JSON; `sentibench.evaluation.units`): the difference of
  main scores, its paired-bootstrap 95% interval and two-sided p-value, on the same units (equal
  `units_hash`; otherwise the task is refused, with the reason).
- Seed-based tasks (few-shot): seeds paired by seed and by the hash of their training draw; the mean
  difference with its t-interval, the paired t-test's p-value (scipy.stats.ttest_rel), and Almost
  Stochastic Order (Dror et al. 2019; `deepsig.aso`, as InfoDCL's Table 11 uses it): eps_min of "A better
  than B", where eps_min < 0.5 says A is stochastically dominant more often than not.
- Several tasks at once: p-values adjusted by Benjamini-Hochberg (false discovery rate;
  `scipy.stats.false_discovery_control`), across the tasks of one call.
- `bench compare MODEL --frozen-twins`: one model's fine-tuned few-shot results against their frozen twins
  (`fewshot-frozen-...`, fitted on the same draws with the same seeds), paired by seed as above.
The direction of "better" follows each task's metadata (alignment and uniformity: lower).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tabulate import tabulate

from sentibench.core.errors import BenchError
from sentibench.evaluation.bootstrap import BOOTSTRAP_SEED, LEVEL, paired_bootstrap
from sentibench.results.schema import TaskResult
from sentibench.results.store import ResultStore
from sentibench.results.unit_values_file import result_units

ASO_SEED = 0


@dataclass
class Comparison:
    task: str
    score_a: float | None
    score_b: float | None
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    test: str = ""
    aso_eps_min: float | None = None
    note: str = ""



def _plural(unit: str) -> str:
    """"sentence" -> "sentences", "query" -> "queries"."""
    return unit[:-1] + "ies" if unit.endswith("y") and unit[-2:-1] not in "aeiou" else unit + "s"

def results_of(root: Path | Sequence[Path], model: str) -> dict[str, TaskResult]:
    """A model's full results by task name, from the results folder(s) (`ResultStore.of_model`)."""
    return ResultStore.load(root).of_model(model)


def _seed_scores(result: TaskResult) -> dict[tuple, float] | None:
    per_seed, metric = result.provenance.details.per_seed, result.provenance.task.main_score
    if not per_seed or metric is None:
        return None
    return {(run.seed, run.train_indices_sha256): run.metric(metric) for run in per_seed}


def compare_task(a: TaskResult, b: TaskResult, aso: bool = True) -> Comparison:
    """One task's paired comparison (module docstring; `aso=False` skips ASO); `note` says why a task
    could not be compared."""
    row = Comparison(a.task_name, a.main_score(), b.main_score())
    versions = [r.provenance.task.version for r in (a, b)]
    if versions[0] != versions[1]:
        row.note = f"not compared: made under protocol versions {versions[0]} and {versions[1]}"
        return row
    seeds_a, seeds_b = _seed_scores(a), _seed_scores(b)
    if seeds_a is not None and seeds_b is not None:
        return _compare_seeds(row, seeds_a, seeds_b, aso)
    units_a, units_b = result_units(a), result_units(b)
    if units_a is None or units_b is None:
        row.note = "no unit values stored (rerun the task to record them)"
        return row
    if units_a.units_hash != units_b.units_hash:
        row.note = (f"not compared: different evaluation units ({_plural(units_a.unit)} hash {units_a.units_hash[:8]} "
                    f"vs {units_b.units_hash[:8]})")
        return row
    paired = paired_bootstrap(units_a.values, units_b.values)
    row.difference, row.low, row.high = paired["difference"], paired["low"], paired["high"]
    row.p_value = paired["p_value"]
    row.test = f"paired bootstrap over {len(units_a.values)} {_plural(units_a.unit)} ({paired['resamples']} resamples)"
    return row


def _compare_seeds(row: Comparison, seeds_a: dict, seeds_b: dict, with_aso: bool) -> Comparison:

    shared = sorted(set(seeds_a) & set(seeds_b))
    if len(shared) < 2 or len(shared) != len(seeds_a) or len(shared) != len(seeds_b):
        row.note = "different seeds or training draws"
        return row
    a, b = np.array([seeds_a[k] for k in shared]), np.array([seeds_b[k] for k in shared])
    diff = a - b
    row.difference = float(diff.mean())
    if np.ptp(diff) == 0:
        row.low = row.high = row.difference
        row.p_value = 1.0 if row.difference == 0 else 0.0
    else:
        from scipy import stats

        row.low, row.high = (float(v) for v in stats.t.interval(LEVEL, len(diff) - 1, loc=diff.mean(),
                                                                  scale=stats.sem(diff)))
        row.p_value = float(stats.ttest_rel(a, b).pvalue)
    row.test = f"paired t-test over {len(shared)} seeds"
    if with_aso:
        from deepsig import aso  # imports pandas and joblib: only when asked

        row.aso_eps_min = float(aso(a, b, seed=ASO_SEED, show_progress=False, num_jobs=1))
    return row


def _orient(row: Comparison, greater_is_better: bool) -> None:
    """Report differences as 'A better than B' is positive, whatever the metric's direction."""
    if greater_is_better or row.difference is None:
        return
    row.difference = -row.difference
    if row.low is not None:
        row.low, row.high = -row.high, -row.low


def compare(root: Path | Sequence[Path], model_a: str, model_b: str,
            task_names: list[str] | None = None) -> list[Comparison]:
    """Every task both models have (or those named), compared; p-values adjusted across them (BH)."""
    from sentibench.tasks.registry import resolve

    ours, theirs = results_of(root, model_a), results_of(root, model_b)
    wanted = [t.name for t in resolve(task_names)] if task_names else sorted(set(ours) | set(theirs))
    shared = [name for name in wanted if name in ours and name in theirs]
    if not shared:
        raise BenchError(f"'{model_a}' and '{model_b}' have no results for the same task"
                         + (f" among {', '.join(task_names)}" if task_names else ""))
    return compare_results(ours, theirs, shared)


def compare_results(ours: dict[str, TaskResult], theirs: dict[str, TaskResult], tasks: list[str],
                    aso: bool = True) -> list[Comparison]:
    """The named tasks of two models' results ({task: result}) compared, oriented so that A - B > 0 is
    A better, with p-values adjusted across them (BH)."""
    from sentibench.tasks.registry import all_tasks

    known = all_tasks()
    rows = []
    for name in tasks:
        row = compare_task(ours[name], theirs[name], aso=aso)
        task = known.get(name)
        _orient(row, task.metadata.greater_is_better() if task else True)
        rows.append(row)
    _adjust(rows)
    return rows


def _adjust(rows: list[Comparison]) -> None:
    """Benjamini-Hochberg adjusted p-values across the rows that were tested."""
    tested = [r for r in rows if r.p_value is not None]
    if tested:
        from scipy import stats

        adjusted = stats.false_discovery_control([r.p_value for r in tested], method="bh")
        for row, p in zip(tested, adjusted):
            row.p_adjusted = float(p)


def compare_with_frozen_twins(root: Path | Sequence[Path], model: str,
                              task_names: list[str] | None = None) -> list[Comparison]:
    """Each fine-tuned few-shot result of `model` (or those named) against its frozen twin, the task's
    `frozen_name`: the same training and validation draws and seeds, so the seeds pair (fine-tuned - frozen > 0:
    fine-tuning is better). A result made under another protocol version than the registry's is not
    compared, with the reason; p-values adjusted across the tasks (BH)."""
    from sentibench.tasks.registry import all_tasks, resolve

    known = all_tasks()
    ours = results_of(root, model)
    wanted = [t.name for t in resolve(task_names)] if task_names else sorted(ours)
    pairs = [(name, known[name].frozen_name) for name in wanted
             if name in ours and name in known and known[name].metadata.fine_tunes
             and getattr(known[name], "frozen_name", None) in ours]
    if not pairs:
        raise BenchError(f"'{model}' has no fine-tuned few-shot result beside its frozen twin"
                         + (f" among {', '.join(task_names)}" if task_names else "")
                         + "; run `bench run -m MODEL -t fewshot` first")
    rows = []
    for fine_tuned, frozen in pairs:
        stale = [f"{r.task_name} is version {r.provenance.task.version}, now {known[r.task_name].metadata.version}"
                 for r in (ours[fine_tuned], ours[frozen])
                 if r.provenance.task.version != known[r.task_name].metadata.version]
        row = Comparison(fine_tuned, ours[fine_tuned].main_score(), ours[frozen].main_score())
        if stale:
            row.note = "not compared: " + "; ".join(stale)
        else:
            seeds_fine_tuned, seeds_frozen = _seed_scores(ours[fine_tuned]), _seed_scores(ours[frozen])
            if seeds_fine_tuned is None or seeds_frozen is None:
                row.note = "not compared: no per-seed scores stored"
            else:
                row = _compare_seeds(row, seeds_fine_tuned, seeds_frozen, True)
        rows.append(row)
    _adjust(rows)
    return rows


def render(rows: list[Comparison], model_a: str, model_b: str, fmt: str = "github") -> str:
    """The comparison as a table (tabulate format `fmt`: github, latex, plain ...), scores x 100."""
    def pct(value: float | None) -> str:
        return "" if value is None else f"{100 * value:.2f}"

    table = []
    for r in rows:
        interval = "" if r.low is None else f"[{pct(r.low)}, {pct(r.high)}]"
        table.append([r.task, pct(r.score_a), pct(r.score_b), pct(r.difference), interval,
                      "" if r.p_value is None else f"{r.p_value:.3g}",
                      "" if r.p_adjusted is None else f"{r.p_adjusted:.3g}",
                      "" if r.aso_eps_min is None else f"{r.aso_eps_min:.2f}", r.test or r.note])
    headers = ["task", model_a, model_b, "A - B", f"{int(100 * LEVEL)}% CI", "p", "p (BH)", "ASO eps_min",
               "test"]
    tested = sum(r.p_value is not None for r in rows)
    footer = (f"\nA - B > 0: {model_a} is better (lower-is-better metrics are flipped). Scores x 100. "
              f"Bootstrap seed {BOOTSTRAP_SEED}; p (BH): Benjamini-Hochberg across the {tested} tested rows; "
              f"ASO eps_min < 0.5: {model_a} stochastically dominates more often than not (Dror et al. 2019).")
    return tabulate(table, headers=headers, tablefmt=fmt, disable_numparse=True) + "\n" + footer
