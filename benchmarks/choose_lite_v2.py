"""Choose sentibench-lite-v2 from sentibench-v2 and validate it out of sample (issue 55, item 5).

The method of `choose_lite.py` (which chose lite-v1 from v1), whose cost model and greedy selection this
script reuses, on v2's scale: chance-normalised axes, in-domain results counted (as v2's board).

1. **Cost** (`--costs`, once, writes benchmarks/results/v2_task_costs.npz; v1_task_costs.npz is never
   touched). v2's tasks that v1 lacks are run with the recording encoder (the `random` card: free to encode) to
   learn which texts they encode, counted in all-MiniLM-L6-v2 tokens; `sts-stsb` is recorded again so that
   `duplicates-stsb` (STS-B's test sentences too) shares its texts with it. v1's tasks keep v1's cost file:
   their texts, their *warm* evaluation seconds, the start-up and the throughput. A new task's evaluation
   seconds are its committed all-minilm-l6-v2 result's `evaluation_time`, an **upper bound** of its warm
   evaluation (those runs were not all warm: a task that encoded its texts first counts that encoding twice).
   New texts that are not STS-B's are counted as new even where a v1 dataset might hold the same string
   (also an upper bound).
2. **Choice** (default): greedy forward selection over v2's non-diagnostic tasks, each step adding the task
   that most raises the mean over v2's two axes of Spearman's rho (lite axis against v2 axis over the
   in-sample models; ties by the mean Pearson r, then the cheaper task), while the result stays completable
   within the budget (`BUDGET` of v2's modelled cold cost), until no task fits. Constraints: every dataset of
   v2's axis tasks is represented, both axes have tasks, and no task is a candidate whose `random` score lies
   inside the 95% interval of more than half the in-sample non-random models. A requirement that no cover can
   meet within `REQUIRED` of v2's cost (1/8 less 10% for the cost model's error) is given up and printed (today
   IMDB and the 3-class tweets: their cheapest tasks, `sgts-imdb` at 137 s and `probe-tweets-3class` at 98 s,
   make every full cover cost about 1/3.8 of v2); the others may raise the budget up to `REQUIRED`.
   **In sample**: the models with full v2 results when lite-v2 was chosen, excluding the held-out set `HELD_OUT`
   and every card trained for v2 (`*-v2` cards trained here): pinned as `IN_SAMPLE`, so that a model reaching
   full v2 later is out of sample by construction.
3. **Out-of-sample validation**: over every model ranked on v2's board (`--results`), the pairs v2 separates
   (disjoint 95% rank ranges on an axis) that lite-v2's point scores put in the opposite order; over all
   pairs and over the pairs with at least one out-of-sample model, with Spearman in and out of sample.
4. `--write` writes tasks/manifests/sentibench-lite-v2.json from the choice (a released manifest is never
   rewritten: the choice is compared with it instead).

    python benchmarks/choose_lite_v2.py                          # choice + validation (seconds)
    python benchmarks/choose_lite_v2.py --results /other/results # another results folder
    python benchmarks/choose_lite_v2.py --costs                  # record the new tasks' texts first (minutes)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from choose_lite import COSTS as V1_COSTS  # a sibling script
from choose_lite import CostModel, record_texts
from doc_blocks import printed_block, write  # a sibling script
from scipy.stats import pearsonr, spearmanr

ROOT = Path(__file__).resolve().parent.parent
COSTS = ROOT / "benchmarks" / "results" / "v2_task_costs.npz"
MANIFEST = ROOT / "tasks" / "manifests" / "sentibench-lite-v2.json"
NAME, FULL, RELEASED = "sentibench-lite-v2", "sentibench-v2", "2026-12-02"
BUDGET = 0.10        # of v2's modelled cold cost: under the 1/8 target, with room for the model's error
TARGET = 1 / 8
REQUIRED = 0.9 * TARGET  # a requirement (dataset, axis) may raise the budget to this: 1/8 less 10% for the model
HELD_OUT = ("multilingual-e5-small-q4", "glove-6b-50d-mean", "spacy-md-vectors-mean")
IN_SAMPLE = ("random", "bow-tfidf-svd", "paraphrase-minilm-l3-v2", "all-minilm-l6-v2", "all-mpnet-base-v2")
"""The models lite-v2 was chosen on: `in_sample_by_rule` on the results of the release (models with full v2
results, less `HELD_OUT` and the cards trained for v2)."""
COST_NOTES = (
    "v2 task costs for all-minilm-l6-v2 (benchmarks/choose_lite_v2.py --costs). v1's tasks keep "
    "v1_task_costs.npz's texts, token counts and warm evaluation seconds; start-up and throughput are v1's. "
    "The tasks v2 adds were recorded with the random card's recording encoder; their evaluation seconds are "
    "the committed results/all-minilm-l6-v2 `evaluation_time`, an upper bound of a warm evaluation "
    "(`upper_bound` marks them). duplicates-stsb's texts are mapped onto sts-stsb's (same STS-B test "
    "sentences); other new texts count as new.")


def card(model: str) -> str:
    return model.split("@")[0].split(" [")[0]


# ---- 1. cost -----------------------------------------------------------------------------------------------

def measure_costs(out: Path, results: Path) -> None:
    """v2's cost file: v1's, extended by the texts and evaluation seconds of the tasks v2 adds (docstring)."""
    from sentibench.models.catalog.loaders import build_encoder
    from sentibench.models.catalog.lookup import card_for
    from sentibench.results.task_result import iter_results
    from sentibench.tasks.benchmarks import benchmark_tasks, get_benchmark

    v1, v2 = get_benchmark("sentibench-v1"), get_benchmark(FULL)
    new = [t for t in v2.task_names if t not in v1.task_names]
    tasks = [t for t in benchmark_tasks(v2) if t.name in new or t.name == "sts-stsb"]
    texts, per_task = record_texts(tasks)
    model = build_encoder(card_for("all-minilm-l6-v2"), device="cpu")
    tokens = np.array([min(len(ids), model.max_length)
                       for ids in model.tokenizer(texts, truncation=False)["input_ids"]])
    with np.load(V1_COSTS) as stored:
        old = {key: stored[key] for key in stored.files}
    names = [str(n) for n in old["names"]]
    v1_texts = {n: old[f"task_{i}"] for i, n in enumerate(names)}
    v1_seconds = dict(zip(names, old["seconds"].tolist()))
    # sts-stsb: the recorded texts are v1's (same count, same token counts); pair them up by token count
    mine, theirs = per_task["sts-stsb"], v1_texts["sts-stsb"]
    if len(mine) != len(theirs) or sorted(tokens[mine]) != sorted(old["tokens"][theirs]):
        raise SystemExit("sts-stsb's recorded texts are not v1's: the cost file cannot be extended")
    shared = [n for n in v2.task_names if n in v1_texts and n != "sts-stsb" and np.isin(v1_texts[n], theirs).any()]
    if shared:
        raise SystemExit(f"v1 tasks {shared} share texts with sts-stsb: pairing by token count is not safe")
    index = dict(zip(sorted(mine, key=lambda i: (tokens[i], texts[i])),
                     sorted(theirs, key=lambda i: (old["tokens"][i], i))))
    extra = [i for i in range(len(texts)) if i not in index]
    index.update({i: len(old["tokens"]) + k for k, i in enumerate(extra)})
    all_tokens = np.concatenate([old["tokens"], tokens[extra]])
    evaluation = {r.task_name: r.evaluation_time for r in iter_results(results / "all-minilm-l6-v2")}
    seconds, upper, arrays = [], [], {}
    for i, name in enumerate(v2.task_names):
        if name in v1_texts:
            arrays[f"task_{i}"], seconds_i, bound = v1_texts[name], v1_seconds[name], False
        else:
            arrays[f"task_{i}"] = np.array(sorted(index[j] for j in per_task[name]), dtype=np.int64)
            seconds_i, bound = float(evaluation[name]), True
        seconds.append(seconds_i)
        upper.append(bound)
    np.savez_compressed(out, tokens=all_tokens, rate=old["rate"], fixed=old["fixed"], names=np.array(v2.task_names),
                        seconds=np.array(seconds), upper_bound=np.array(upper), notes=np.array(COST_NOTES), **arrays)
    print(f"wrote {out}: {len(all_tokens)} distinct texts ({len(extra)} new), {int(all_tokens.sum())} tokens",
          file=sys.stderr)


def cold_costs(cost_v1: CostModel, cost_v2: CostModel) -> tuple[float, float]:
    """Modelled cold seconds of all-minilm-l6-v2 on v1 and on v2."""
    from sentibench.tasks.benchmarks import get_benchmark

    return (cost_v1.seconds_for(get_benchmark("sentibench-v1").task_names),
            cost_v2.seconds_for(get_benchmark(FULL).task_names))


# ---- 2. the results ------------------------------------------------------------------------------------------

class Scores:
    """v2's board over a results folder: the ranked models, each task's main score (chance-normalised) and
    95% interval per model, and each axis's rank ranges."""

    def __init__(self, results: Path) -> None:
        from sentibench.report.leaderboard import build
        from sentibench.tasks.benchmarks import get_benchmark

        self.benchmark = get_benchmark(FULL)
        board = build(results, FULL)
        self.by_model = board.by_model  # every current result of every model, by task
        self.models = [row.model for row in board.overview.ranked]
        self.kinds = {row.model: row.kind for row in board.overview.ranked}
        self.ranges = {axis.name: np.array([(row.axes[axis.name].rank_low, row.axes[axis.name].rank_high)
                                            for row in board.overview.ranked]) for axis in self.benchmark.axes}
        chance = self.benchmark.chance_levels
        results_of = {m: board.by_model[m] for m in self.models}
        self.raw = {t: np.array([results_of[m][t].main_score() for m in self.models]) for t in chance}
        self.scores = {t: (self.raw[t] - chance[t]) / (1 - chance[t]) for t in chance}
        self.intervals = {}
        for t in chance:
            pairs = [results_of[m][t].confidence_interval() for m in self.models]
            self.intervals[t] = np.array([(i.low, i.high) if i else (np.nan, np.nan) for i in pairs])

    def rows(self, names) -> np.ndarray:
        return np.array([i for i, m in enumerate(self.models) if card(m) in names or m in names], dtype=int)


def in_sample_by_rule(scores: Scores) -> list[str]:
    """Models with full v2 results, less `HELD_OUT` and every card trained here for v2 (`*-v2`)."""
    return [m for m in scores.models if card(m) not in HELD_OUT
            and not (scores.kinds[m] == "trained here" and card(m).endswith("-v2"))]


def near_chance(scores: Scores, rows: np.ndarray) -> dict[str, int]:
    """Per axis task, how many of the in-sample non-random models' 95% intervals contain `random`'s score."""
    random = [i for i, m in enumerate(scores.models) if card(m) == "random"]
    if not random:
        raise SystemExit("the random model has no full v2 results: the near-chance rule cannot be applied")
    others = [i for i in rows if card(scores.models[i]) != "random"]
    out = {}
    for task, intervals in scores.intervals.items():
        level = scores.raw[task][random[0]]
        out[task] = int(sum(intervals[i, 0] <= level <= intervals[i, 1] for i in others))
    return out


def axis_means(tasks: list[str], scores: Scores, rows: np.ndarray) -> np.ndarray | None:
    """The axis's chance-normalised mean per model (rows) over `tasks`, in-domain counted; None without tasks."""
    return np.mean([scores.scores[t][rows] for t in tasks], axis=0) if tasks else None


def on_axis(tasks: list[str], axis, stands_for: Mapping[str, str] = MappingProxyType({})) -> list[str]:
    """The tasks of `tasks` that count for `axis`: its own, and a task that `stands_for` one of its own (a lite
    release's cheaper version of a v2 task, `choose_lite_v2_1.py`)."""
    return [t for t in tasks if stands_for.get(t, t) in axis.tasks]


def agreement(chosen: list[str], scores: Scores, rows: np.ndarray,
              stands_for: Mapping[str, str] = MappingProxyType({})) -> tuple[list[float], list[float]]:
    """Per axis, Spearman rho and Pearson r of lite's axis against v2's over `rows` (-1 for an empty axis)."""
    rho, r = [], []
    for axis in scores.benchmark.axes:
        lite = axis_means(on_axis(chosen, axis, stands_for), scores, rows)
        full = axis_means(list(axis.tasks), scores, rows)
        if lite is None or len(rows) < 2 or np.ptp(lite) == 0:
            rho.append(-1.0), r.append(-1.0)
        else:
            rho.append(float(spearmanr(lite, full).statistic)), r.append(float(pearsonr(lite, full).statistic))
    return rho, r


def requirements(benchmark) -> dict[str, set[str]]:
    """What lite must span: each dataset of an axis task (key `dataset:NAME`) and each axis (`axis:NAME`),
    each with the axis tasks that satisfy it."""
    out: dict[str, set[str]] = {}
    for axis in benchmark.axes:
        out[f"axis:{axis.name}"] = set(axis.tasks)
        for task in axis.tasks:
            out.setdefault(f"dataset:{benchmark.pinned(task).dataset}", set()).add(task)
    return out


def completion(chosen: list[str], candidates: list[str], needs: dict[str, set[str]], cost: CostModel) -> float:
    """The modelled cost of `chosen` plus, greedily, the cheapest candidate for each requirement it misses."""
    chosen = list(chosen)
    while True:
        missing = [n for n, tasks in needs.items() if not tasks & set(chosen)]
        if not missing:
            return cost.seconds_for(chosen)
        options = [t for t in candidates if t not in chosen and t in needs[missing[0]]]
        if not options:
            return float("inf")
        chosen.append(min(options, key=lambda t: cost.seconds_for(chosen + [t])))


def affordable(needs: dict[str, set[str]], candidates: list[str], cost: CostModel,
               budget: float) -> tuple[dict[str, set[str]], list[tuple[str, float]]]:
    """The requirements that can be met together within `budget`, and the ones that cannot (with the modelled
    cost of the cheapest cover that includes them): while the cheapest cover of all of them exceeds the budget,
    the requirement whose cheapest candidate costs most on its own is given up."""
    needs, dropped = dict(needs), []
    while needs and completion([], candidates, needs, cost) > budget:
        alone = {n: min((cost.seconds_for([t]) for t in tasks if t in candidates), default=float("inf"))
                 for n, tasks in needs.items()}
        worst = max(alone, key=alone.get)
        dropped.append((worst, completion([], candidates, needs, cost)))
        del needs[worst]
    return needs, dropped


def choose(scores: Scores, candidates: list[str], rows: np.ndarray, cost: CostModel, budget: float,
           needs: dict[str, set[str]], stands_for: Mapping[str, str] = MappingProxyType({})) -> list[str]:
    """Greedy forward selection (module docstring) that keeps every requirement of `needs` reachable within
    `budget` (`affordable` says which can be); a task that `stands_for` another is never chosen beside it.
    The choice in v2's task order, the stand-ins after."""
    if completion([], candidates, needs, cost) > budget:
        raise SystemExit("the requirements cannot be met within the budget")
    chosen: list[str] = []
    while True:
        taken = {stands_for.get(t, t) for t in chosen}
        options = []
        for task in candidates:
            if stands_for.get(task, task) in taken or completion(chosen + [task], candidates, needs, cost) > budget:
                continue
            rho, r = agreement(chosen + [task], scores, rows, stands_for)
            options.append((float(np.mean(rho)), float(np.mean(r)), -cost.seconds_for(chosen + [task]), task))
        if not options:
            return [t for t in scores.benchmark.task_names + list(stands_for) if t in chosen]
        chosen.append(max(options)[3])


# ---- 3. validation -------------------------------------------------------------------------------------------

def misordered(lite: list[str], scores: Scores, held: set[int], stands_for: Mapping[str, str] = MappingProxyType({})
               ) -> dict[str, tuple[int, int, int, int, list[str]]]:
    """Per axis: (pairs v2 separates, of them lite mis-orders, separated pairs with a held-out model, of them
    lite mis-orders, the mis-ordered pairs' names). Separated: disjoint 95% rank ranges on v2's board;
    mis-ordered: lite's point scores in the opposite order (a tie counts as mis-ordered)."""
    rows = np.arange(len(scores.models))
    out = {}
    for axis in scores.benchmark.axes:
        mine = axis_means(on_axis(lite, axis, stands_for), scores, rows)
        ranges = scores.ranges[axis.name]
        counts, names = [0, 0, 0, 0], []
        for a in rows:
            for b in rows:
                if ranges[a, 1] < ranges[b, 0]:          # v2 puts a above b, beyond its rank uncertainty
                    wrong = mine[a] <= mine[b]
                    counts[0] += 1
                    counts[1] += wrong
                    if a in held or b in held:
                        counts[2] += 1
                        counts[3] += wrong
                    if wrong:
                        names.append(f"{scores.models[a]} > {scores.models[b]}")
        out[axis.name] = (*counts, names)
    return out


# ---- 4. the manifest -----------------------------------------------------------------------------------------

def lite_benchmark(chosen: list[str]):
    """sentibench-lite-v2 as a `Benchmark`: v2's pins, axes and chance levels restricted to `chosen`."""
    from sentibench.tasks.benchmarks import Axis, Benchmark, get_benchmark

    v2 = get_benchmark(FULL)
    axes = tuple(Axis(a.name, a.description, tuple(t for t in a.tasks if t in chosen)) for a in v2.axes)
    return Benchmark(
        name=NAME, released=RELEASED, derived_from=FULL,
        description=("A subset of sentibench-v2's tasks, unchanged (same versions, chance levels and results), "
                     "chosen from v2's results for a cold cost of at most 1/8 of v2's while keeping both axes' model "
                     "order and every v2 dataset that fits that cost (docs/benchmarks.md)."),
        tasks=tuple(t for t in v2.tasks if t.name in chosen), axes=axes, diagnostics=(),
        citation=v2.citation.replace(FULL, NAME), in_domain="counted",
        chance=tuple((t, level) for t, level in v2.chance if t in chosen))


# ---- main ----------------------------------------------------------------------------------------------------

PAGE, BLOCK = "docs/benchmarks.md", "lite-v2"


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    """docs/benchmarks.md's block `lite-v2`: this script's report on the committed results under `root` (the
    choice checked against the released manifest, the costs, and the out-of-sample validation), as printed."""
    return {PAGE: {BLOCK: printed_block(main, root)}}


def selection_arguments(argv: list[str] | None, description: str, costs_help: str, manifest: Path, block: str
                        ) -> argparse.Namespace:
    """The command line both lite selections take (this one and `choose_lite_v2_1.py`)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--results", type=Path, default=Path("results"), help="results folder (default results/)")
    parser.add_argument("--costs", action="store_true", help=costs_help)
    parser.add_argument("--write", action="store_true", help=f"write {manifest.relative_to(ROOT)} from the choice")
    parser.add_argument("--smoke", action="store_true", help="CI: the same, from the committed files")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s generated block `{block}`")
    return parser.parse_args(argv)


def rewrite_docs(blocks: dict[str, dict[str, str]]) -> int:
    for page in write(blocks, ROOT):
        print(f"rewrote {page}")
    return 0


def near_chance_report(scores: Scores, rows: np.ndarray) -> tuple[dict[str, int], int, list[str]]:
    """Per task, the in-sample non-random models whose interval holds random's score; that count of models; and
    the tasks near chance for more than half of them (not candidates), printed."""
    near = near_chance(scores, rows)
    others = sum(card(scores.models[i]) != "random" for i in rows)
    dropped = sorted(t for t, n in near.items() if n > others / 2)
    print(f"near chance (random's score inside more than half of the {others} in-sample non-random models' "
          f"intervals), not candidates: " + (", ".join(f"{t} ({near[t]}/{others})" for t in dropped) or "none"))
    return near, others, dropped


def released_or_written(name: str, manifest: Path, chosen: list[str], write: bool, smoke: bool,
                        build: Callable[[list[str]], Any]) -> list[str]:
    """The released lite's tasks when its manifest is committed (said whether the choice still gives them), else
    the choice, written as the manifest on `--write`."""
    from sentibench.tasks.benchmarks import get_benchmark, manifest_text

    if manifest.exists():
        released = get_benchmark(name)
        print(f"{name} (released, sha256 {released.manifest_sha256[:12]}): "
              + ("the same tasks" if sorted(released.task_names) == sorted(chosen)
                 else f"DIFFERS: {', '.join(released.task_names)}"))
        return released.task_names
    if write and not smoke:
        benchmark = build(chosen)
        manifest.write_text(manifest_text(benchmark))
        print(f"wrote {manifest.relative_to(ROOT)} (sha256 {benchmark.manifest_sha256})")
    return chosen


def validation_report(label: str, lite: list[str], scores: Scores, rows: np.ndarray,
                      stands_for: Mapping[str, str] = MappingProxyType({})) -> None:
    """The lite against v2 in sample, out of sample and over every ranked model (Spearman, Pearson), and the
    pairs v2 separates that the lite mis-orders, printed."""
    axes = scores.benchmark.axes
    out = [i for i in range(len(scores.models)) if i not in set(rows.tolist())]
    print(f"\nout of sample ({len(out)}): " + (", ".join(scores.models[i] for i in out) or "none"))
    for name, group in (("in sample", rows), ("out of sample", np.array(out, dtype=int)),
                        ("all ranked", np.arange(len(scores.models)))):
        if len(group) >= 2:
            rho, r = agreement(lite, scores, group, stands_for)
            print(f"Spearman rho (Pearson r) of {label} against v2, {name} ({len(group)} models"
                  + ("; with 2, rho and r are +-1" if len(group) == 2 else "") + "): "
                  + ", ".join(f"{a.name} {x:.3f} ({y:.3f})" for a, x, y in zip(axes, rho, r)))
        else:
            print(f"Spearman, {name}: {len(group)} models, too few")
    for axis, (pairs, wrong, held_pairs, held_wrong, names) in misordered(lite, scores, set(out), stands_for).items():
        print(f"{axis}: pairs v2 separates {pairs}, {label} mis-orders {wrong}; with an out-of-sample model "
              f"{held_pairs}, mis-ordered {held_wrong}" + (f" ({'; '.join(names)})" if names else ""))


def main(argv: list[str] | None = None) -> int:
    args = selection_arguments(argv, __doc__.splitlines()[0], f"record the new tasks' texts into {COSTS.name} first",
                               MANIFEST, BLOCK)
    if args.docs:
        return rewrite_docs(doc_blocks(ROOT))
    if args.costs:
        measure_costs(COSTS, args.results)
    cost, cost_v1 = CostModel(COSTS), CostModel(V1_COSTS)
    v1_cold, v2_cold = cold_costs(cost_v1, cost)
    print(f"modelled cold cost, all-minilm-l6-v2: v1 {v1_cold:.0f}s, v2 {v2_cold:.0f}s = {v2_cold / v1_cold:.2f}x v1 "
          f"(target at most 1.25x); new tasks' evaluation seconds are upper bounds")
    scores = Scores(args.results)
    v2 = scores.benchmark
    rule = in_sample_by_rule(scores)
    rows = scores.rows(IN_SAMPLE)
    used = [scores.models[i] for i in rows]
    print(f"\nranked on v2 ({args.results}): {len(scores.models)} models")
    print(f"in sample ({len(used)}, pinned): {', '.join(used)}")
    if sorted(map(card, rule)) != sorted(map(card, used)):
        print(f"  the rule (full v2, less held-out and *-v2 trained cards) gives today: {', '.join(rule)}; "
              "models that reached full v2 after the release are out of sample")
    missing = sorted(set(IN_SAMPLE) - {card(m) for m in used})
    if missing:
        print(f"  WARNING: pinned in-sample models without full v2 results here: {', '.join(missing)}")
    near, others, dropped = near_chance_report(scores, rows)
    candidates = [t for t in v2.task_names if t not in v2.diagnostics and t not in dropped]
    budget = BUDGET * v2_cold
    needs = requirements(v2)
    print(f"the cheapest lite spanning every v2 dataset and both axes ({len(needs)} requirements) costs "
          f"{completion([], candidates, needs, cost):.0f}s = 1/{v2_cold / completion([], candidates, needs, cost):.1f}"
          f" of v2 (budget {budget:.0f}s, limit {TARGET * v2_cold:.0f}s)")
    kept, dropped = affordable(needs, candidates, cost, REQUIRED * v2_cold)
    for name, total in dropped:
        print(f"  CANNOT be met within {REQUIRED * v2_cold:.0f}s (0.9 x 1/8 of v2), given up: {name} (the cheapest "
              f"cover with it: {total:.0f}s = 1/{v2_cold / total:.1f} of v2)")
    budget = max(budget, completion([], candidates, kept, cost))
    chosen = choose(scores, candidates, rows, cost, budget, kept)
    lite_cold = cost.seconds_for(chosen)
    rho, r = agreement(chosen, scores, rows)
    print(f"\nchosen on {len(used)} models, budget {budget:.0f}s = {budget / v2_cold:.1%} of v2: {len(chosen)} tasks, "
          f"modelled cold {lite_cold:.0f}s = 1/{v2_cold / lite_cold:.1f} of v2 (limit 1/{1 / TARGET:.0f}), "
          f"{lite_cold / v1_cold:.3f}x v1")
    for axis in v2.axes:
        print(f"  {axis.name}: " + ", ".join(f"{t} [{near[t]}/{others}]" for t in chosen if t in axis.tasks))
    print(f"  ([n/{others}]: in-sample intervals containing random's score)")
    unmet = [n for n, tasks in needs.items() if not tasks & set(chosen)]
    print(f"spans {len(needs) - len(unmet)} of {len(needs)} requirements (datasets and axes)"
          + (f"; MISSING {', '.join(unmet)}" if unmet else ""))
    print("Spearman rho (Pearson r) against v2 in sample: "
          + ", ".join(f"{a.name} {x:.3f} ({y:.3f})" for a, x, y in zip(v2.axes, rho, r)))
    lite = released_or_written(NAME, MANIFEST, chosen, args.write, args.smoke, lite_benchmark)
    validation_report("lite-v2", lite, scores, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
