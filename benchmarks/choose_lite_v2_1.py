"""Choose sentibench-lite-v2.1 from sentibench-v2 and its tasks' `-lite` versions, and validate it out of sample
(issue 55, item 5: a lite that spans every v2 dataset).

sentibench-lite-v2 (`choose_lite_v2.py`) had to leave out IMDB and the 3-class tweets: their cheapest v2 tasks
(`sgts-imdb`, `probe-tweets-3class`) cost more than the whole lite budget. Their `-lite` versions
(`sgts-imdb-lite`, `probe-imdb-lite`, `probe-tweets-3class-lite`: the same protocols over a seeded subset of the
full task's sample, docs/tasks.md) are the candidates this script adds; everything else is lite-v2's method,
reused from `choose_lite_v2.py`: the cost model, the near-chance rule, the greedy selection that keeps every
requirement (each v2 dataset of an axis task, each axis) reachable within the budget, the pinned in-sample
models, and the out-of-sample criterion (pairs v2 separates that the lite mis-orders).

A `-lite` version stands in for its full task: it counts for the full task's axis and dataset, the two are never
both chosen, and v2's axes (the reference every agreement is computed against) stay v2's own tasks.

1. **Cost** (`--costs`, once, writes benchmarks/results/lite_v2_1_task_costs.npz): v2's cost file
   (`v2_task_costs.npz`, never touched) extended by the `-lite` versions, recorded with the recording encoder
   and counted in all-minilm-l6-v2 tokens as new texts (an upper bound: they are a subset of their full task's
   texts, which lite never holds); their evaluation seconds are the committed all-minilm-l6-v2 results'
   `evaluation_time` (an upper bound of a warm evaluation, exact when that run found every vector cached, as
   it did), their chance levels `Task.chance_level()`.
2. **Choice** and 3. **validation**: as `choose_lite_v2.py`, over the ranked v2 models that have results for
   every `-lite` version.
4. `--write` writes tasks/manifests/sentibench-lite-v2.1.json (a released manifest is never rewritten: the choice
   is compared with it instead).

    python benchmarks/choose_lite_v2_1.py            # choice + validation (seconds)
    python benchmarks/choose_lite_v2_1.py --costs    # record the -lite versions' texts first (a minute)
"""

from __future__ import annotations

import sys
from pathlib import Path

import choose_lite_v2 as v2lite  # a sibling script
import numpy as np
from choose_lite import CostModel, record_texts
from choose_lite_v2 import selection_arguments
from doc_blocks import printed_block  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
COSTS = ROOT / "benchmarks" / "results" / "lite_v2_1_task_costs.npz"
MANIFEST = ROOT / "tasks" / "manifests" / "sentibench-lite-v2.1.json"
NAME, FULL, RELEASED = "sentibench-lite-v2.1", "sentibench-v2", "2026-12-02"
LITE_VERSIONS = {"sgts-imdb-lite": "sgts-imdb", "probe-imdb-lite": "probe-imdb",
                 "probe-tweets-3class-lite": "probe-tweets-3class"}
"""Each `-lite` candidate and the v2 task it stands in for."""


# ---- 1. cost -----------------------------------------------------------------------------------------------

def measure_costs(out: Path, results: Path) -> None:
    """v2's cost file extended by the `-lite` versions (module docstring), with their chance levels."""
    from sentibench.models.catalog.loaders import build_encoder
    from sentibench.models.catalog.lookup import card_for
    from sentibench.results.task_result import iter_results
    from sentibench.tasks.registry import resolve

    tasks = resolve(list(LITE_VERSIONS))
    texts, per_task = record_texts(tasks)
    model = build_encoder(card_for("all-minilm-l6-v2"), device="cpu")
    tokens = np.array([min(len(ids), model.max_length)
                       for ids in model.tokenizer(texts, truncation=False)["input_ids"]])
    with np.load(v2lite.COSTS) as stored:
        old = {key: stored[key] for key in stored.files}
    base, count = len(old["tokens"]), len(old["names"])
    evaluation = {r.task_name: r.evaluation_time for r in iter_results(results / "all-minilm-l6-v2")}
    missing = sorted(set(LITE_VERSIONS) - set(evaluation))
    if missing:
        raise SystemExit(f"no committed all-minilm-l6-v2 result for {', '.join(missing)}: run them first")
    arrays = {f"task_{count + k}": per_task[t.name] + base for k, t in enumerate(tasks)}
    np.savez_compressed(
        out, tokens=np.concatenate([old["tokens"], tokens]), rate=old["rate"], fixed=old["fixed"],
        names=np.concatenate([old["names"], [t.name for t in tasks]]),
        seconds=np.concatenate([old["seconds"], [evaluation[t.name] for t in tasks]]),
        upper_bound=np.concatenate([old["upper_bound"], [True] * len(tasks)]),
        chance=np.array([t.chance_level() for t in tasks]), chance_names=np.array([t.name for t in tasks]),
        notes=np.array(f"{old['notes']} The -lite versions ({', '.join(LITE_VERSIONS)}) were added by "
                       "benchmarks/choose_lite_v2_1.py --costs, their texts counted as new (an upper bound), their "
                       "evaluation seconds from the committed all-minilm-l6-v2 results (an upper bound)."),
        **{key: value for key, value in old.items() if key.startswith("task_")}, **arrays)
    print(f"wrote {out}: {len(texts)} texts of the -lite versions, {int(tokens.sum())} tokens", file=sys.stderr)


def lite_chance(path: Path = COSTS) -> dict[str, float]:
    with np.load(path) as stored:
        return dict(zip(map(str, stored["chance_names"]), stored["chance"].tolist()))


# ---- 2. the results: v2's, with the -lite versions ------------------------------------------------------------

class Scores(v2lite.Scores):
    """v2's board (`choose_lite_v2.Scores`) plus each `-lite` version's chance-normalised score and interval, over
    the ranked models that have results for every `-lite` version (`lacking`: the others, left out, each with v2's
    rank ranges as the full board computed them)."""

    def __init__(self, results: Path) -> None:
        super().__init__(results)
        by_model = self.by_model
        self.lacking = [m for m in self.models if not set(LITE_VERSIONS) <= set(by_model[m])]
        keep = np.array([i for i, m in enumerate(self.models) if m not in self.lacking], dtype=int)
        self.models = [self.models[i] for i in keep]
        self.ranges = {axis: ranges[keep] for axis, ranges in self.ranges.items()}
        for table in (self.raw, self.scores, self.intervals):
            table.update({task: values[keep] for task, values in table.items()})
        for task, chance in lite_chance().items():
            results_of = [by_model[m][task] for m in self.models]
            self.raw[task] = np.array([r.main_score() for r in results_of])
            self.scores[task] = (self.raw[task] - chance) / (1 - chance)
            intervals = [r.confidence_interval() for r in results_of]
            self.intervals[task] = np.array([(i.low, i.high) if i else (np.nan, np.nan) for i in intervals])


def requirements(benchmark) -> dict[str, set[str]]:
    """`choose_lite_v2.requirements`, each satisfied by a `-lite` version as by its full task."""
    needs = v2lite.requirements(benchmark)
    for task, full in LITE_VERSIONS.items():
        for tasks in needs.values():
            if full in tasks:
                tasks.add(task)
    return needs


# ---- 4. the manifest -----------------------------------------------------------------------------------------

def lite_benchmark(chosen: list[str]):
    """sentibench-lite-v2.1 as a `Benchmark`: v2's pins, axes and chance levels for v2's tasks; each `-lite`
    version pinned at its own protocol version on its full task's dataset, on its full task's axis."""
    from sentibench.tasks.benchmarks import Axis, Benchmark, BenchmarkTask, get_benchmark
    from sentibench.tasks.registry import resolve

    v2 = get_benchmark(FULL)
    pins = {t.name: t for t in v2.tasks}
    for task in resolve([t for t in chosen if t in LITE_VERSIONS]):
        full = pins[LITE_VERSIONS[task.name]]
        pins[task.name] = BenchmarkTask(task.name, task.metadata.version, full.dataset, full.dataset_sha256)
    chance = {**v2.chance_levels, **lite_chance()}
    axes = tuple(Axis(a.name, a.description, tuple(v2lite.on_axis(chosen, a, LITE_VERSIONS))) for a in v2.axes)
    return Benchmark(
        name=NAME, released=RELEASED, derived_from=FULL,
        description=("A subset of sentibench-v2's tasks, unchanged, with the -lite versions of its IMDB and 3-class "
                     "tweets tasks (the same protocols on seeded subsets of their samples) so that every v2 dataset "
                     "is in it, chosen from v2's results for a cold cost of at most 1/8 of v2's while keeping both "
                     "axes' model order (docs/benchmarks.md)."),
        tasks=tuple(pins[t] for t in chosen), axes=axes, diagnostics=(),
        citation=v2.citation.replace(FULL, NAME), in_domain="counted",
        chance=tuple(sorted((t, chance[t]) for t in chosen)))


# ---- main ----------------------------------------------------------------------------------------------------

PAGE, BLOCK = "docs/benchmarks.md", "lite-v2-1"


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    """docs/benchmarks.md's block `lite-v2.1`: this script's report on the committed results, as printed."""
    return {PAGE: {BLOCK: printed_block(main, root)}}


def main(argv: list[str] | None = None) -> int:
    args = selection_arguments(argv, __doc__.splitlines()[0], f"record the -lite versions' texts into {COSTS.name}",
                               MANIFEST, BLOCK)
    if args.docs:
        return v2lite.rewrite_docs(doc_blocks(ROOT))
    from sentibench.tasks.benchmarks import get_benchmark

    if args.costs:
        measure_costs(COSTS, args.results)
    cost = CostModel(COSTS)
    v2_cold = cost.seconds_for(get_benchmark(FULL).task_names)
    scores = Scores(args.results)
    v2 = scores.benchmark
    rows = scores.rows(v2lite.IN_SAMPLE)
    used = [scores.models[i] for i in rows]
    print(f"ranked on v2 with every -lite version ({args.results}): {len(scores.models)} models"
          + (f"; without them, left out: {', '.join(scores.lacking)}" if scores.lacking else ""))
    print(f"in sample ({len(used)}, lite-v2's pinned models): {', '.join(used)}")
    print("the -lite versions, modelled cold cost alone (their full task's): "
          + ", ".join(f"{t} {cost.seconds_for([t]):.0f}s ({cost.seconds_for([full]):.0f}s)"
                      for t, full in LITE_VERSIONS.items()))
    near, others, dropped = v2lite.near_chance_report(scores, rows)
    candidates = [t for t in v2.task_names + list(LITE_VERSIONS) if t not in v2.diagnostics and t not in dropped]
    needs = requirements(v2)
    cheapest = v2lite.completion([], candidates, needs, cost)
    print(f"the cheapest lite spanning every v2 dataset and both axes ({len(needs)} requirements) costs "
          f"{cheapest:.0f}s = 1/{v2_cold / cheapest:.1f} of v2 (limit {v2lite.TARGET * v2_cold:.0f}s)")
    kept, given_up = v2lite.affordable(needs, candidates, cost, v2lite.REQUIRED * v2_cold)
    for name, total in given_up:
        print(f"  CANNOT be met within {v2lite.REQUIRED * v2_cold:.0f}s, given up: {name} ({total:.0f}s)")
    budget = max(v2lite.BUDGET * v2_cold, v2lite.completion([], candidates, kept, cost))
    chosen = v2lite.choose(scores, candidates, rows, cost, budget, kept, LITE_VERSIONS)
    lite_cold = cost.seconds_for(chosen)
    print(f"\nchosen on {len(used)} models, budget {budget:.0f}s = {budget / v2_cold:.1%} of v2: {len(chosen)} tasks, "
          f"modelled cold {lite_cold:.0f}s = 1/{v2_cold / lite_cold:.1f} of v2 (limit 1/{1 / v2lite.TARGET:.0f})")
    for axis in v2.axes:
        print(f"  {axis.name}: " + ", ".join(f"{t} [{near[t]}/{others}]"
                                             for t in v2lite.on_axis(chosen, axis, LITE_VERSIONS)))
    print(f"  ([n/{others}]: in-sample intervals containing random's score)")
    unmet = [n for n, tasks in needs.items() if not tasks & set(chosen)]
    print(f"spans {len(needs) - len(unmet)} of {len(needs)} requirements (datasets and axes)"
          + (f"; MISSING {', '.join(unmet)}" if unmet else ""))
    lite = v2lite.released_or_written(NAME, MANIFEST, chosen, args.write, args.smoke, lite_benchmark)
    v2lite.validation_report(NAME, lite, scores, rows, LITE_VERSIONS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
