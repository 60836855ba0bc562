"""Local executor vs a local Ray, side by side in one run on the same many-item workload (issue 16, item 5).

    python benchmarks/bench_executor.py [-m MODELS] [-t TASKS] [--limit N] [--cpus 2] [--noop 200] [--keep DIR]

1. The workload (default: three models x SgTS and probe, 30 items) runs cold through `sentibench.run.runner.run`
   with the local executor, then cold again with `RayExecutor(num_cpus=--cpus)`; each run starts from an
   empty embedding cache (a throw-away SENTIBENCH_HOME whose datasets and model folders are links to the
   real ones). Prints both wall times and their ratio (local / Ray: > 1 means Ray is faster), the texts
   each run encoded, and whether the two sets of result files are identical (timing fields aside).
2. Ray's overhead per item: `--noop` items that do nothing, fanned out through Ray, wall time / items;
   and Ray's fixed start-up on its own: `ray.init`, then one worker per CPU importing the runner (done
   before the Ray run, so the ratio compares warm workers; a second ratio counts the start-up in).
3. The measured cost of each item (its result's `evaluation_time`) and each model's frozen work (their sum).
4. The largest single job before and after the split (issue 31, item 2), from the executors' own per-item
   timings (`ItemTiming`: wall seconds where the job ran): "before" is a third cold local run whose jobs are
   merged back into one frozen job per model (`OneJobPerModel`, the plan before the split); "after" is the
   local run's plan (one job per dataset's frozen tasks); its results must equal the split run's too. The
   bound no executor beats: max(total / CPUs, the largest job).
`--keep DIR` keeps both result folders (DIR/local, DIR/ray) for `bench leaderboard` or a diff. `--smoke` (CI:
the script still runs) takes two models x two tasks of the plug-in fixture's 48 reviews (tests/fixtures/plugin),
a one-CPU Ray and 5 no-op items; it still fails when the two runs' results differ.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_encode import SMOKE_DATASET, throwaway_home, use_smoke_dataset  # benchmarks/ is the script's folder

from sentibench.core.executors import ItemTiming, Job, LocalExecutor

WORKLOAD_MODELS = "all-minilm-l6-v2,paraphrase-minilm-l3-v2,random"
WORKLOAD_TASKS = "sgts,probe"


def _noop(item: int) -> int:
    return item


def _import_runner(item: int) -> int:
    """What every item's worker does first: import the runner (torch, transformers, datasets ...)."""
    import sentibench.run.runner  # noqa: F401

    return item


@dataclass
class OneJobPerModel:
    """An executor that runs the plan from before the split: the frozen jobs `run` makes for one model (they
    share its `work`) merged into one job, its items in the order of `tasks` (as `run` was given them);
    fine-tuning jobs as they are."""

    inner: LocalExecutor
    tasks: list[str]  # task names, in the order `run` was given them

    @property
    def timings(self) -> list[ItemTiming]:
        return self.inner.timings

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        merged: list[Job] = []
        for job in jobs:
            frozen = not any(item.task.metadata.fine_tunes for item in job.items)
            if frozen and merged and merged[-1].work is job.work and not merged[-1].items[0].task.metadata.fine_tunes:
                items = sorted(merged[-1].items + job.items, key=lambda item: self.tasks.index(item.task.name))
                merged[-1] = Job(tuple(items), job.work, job.trains)
            else:
                merged.append(job)
        return self.inner.run(merged)


def largest_job(timings: list[ItemTiming]) -> tuple[float, list[str]]:
    """The wall seconds of the largest job (its items' seconds added up) and its items."""
    jobs: dict[int, list[ItemTiming]] = defaultdict(list)
    for timing in timings:
        jobs[timing.job].append(timing)
    items = max(jobs.values(), key=lambda job: sum(t.seconds for t in job))
    return sum(t.seconds for t in items), [t.label for t in items]


def timed_run(models, tasks, out: Path, limit, executor):
    from sentibench.run.runner import run

    shutil.rmtree(Path(os.environ["SENTIBENCH_HOME"]) / "embeddings", ignore_errors=True)  # cold: empty cache
    started = time.perf_counter()
    report = run(models, tasks, out, overwrite="always", limit=limit, executor=executor)
    return time.perf_counter() - started, report


def item_costs(folder: Path) -> dict[str, dict[str, float]]:
    """model -> task -> evaluation_time (s) of each written result."""
    from sentibench.results.task_result import iter_results

    costs: dict[str, dict[str, float]] = defaultdict(dict)
    for result in iter_results(folder):
        costs[result.provenance.model.name][result.task_name] = result.evaluation_time
    return costs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--models", default=WORKLOAD_MODELS)
    parser.add_argument("-t", "--tasks", default=WORKLOAD_TASKS)
    parser.add_argument("--limit", type=int, default=None, help="cap examples per task (a quick run)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray")
    parser.add_argument("--noop", type=int, default=200, help="no-op items for Ray's per-item overhead")
    parser.add_argument("--keep", type=Path, default=None, help="copy both result folders here")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument("--smoke", action="store_true", help="a check that the script runs (Ray's start-up included)")
    args = parser.parse_args(argv)
    if args.smoke:
        use_smoke_dataset()
        args.models, args.tasks = "all-minilm-l6-v2,random", f"sgts-{SMOKE_DATASET},probe-{SMOKE_DATASET}"
        args.cpus, args.noop = 1, 5

    throwaway = throwaway_home()
    os.environ["SENTIBENCH_HOME"] = str(throwaway)  # before Ray starts: its workers inherit it
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return measure(args, throwaway)
    finally:  # links are removed, never followed
        shutil.rmtree(throwaway, ignore_errors=True)


def measure(args: argparse.Namespace, home: Path) -> int:
    import torch

    from sentibench.core.executors import fan_out
    from sentibench.results.task_result import comparable_results
    from sentibench.run.ray_executor import RayExecutor, import_ray
    from sentibench.tasks.registry import resolve

    models = [m.strip() for m in args.models.split(",")]
    tasks = resolve([t.strip() for t in args.tasks.split(",")])
    before = OneJobPerModel(LocalExecutor(), [task.name for task in tasks])
    before_s, before_report = timed_run(models, tasks, home / "before", args.limit, before)
    after = LocalExecutor()
    local_s, local = timed_run(models, tasks, home / "local", args.limit, after)
    before_job_s, before_job = largest_job(before.timings)
    after_job_s, after_job = largest_job(after.timings)

    ray = import_ray()
    started = time.perf_counter()
    executor = RayExecutor(num_cpus=args.cpus)
    executor.start()
    ray_init_s = time.perf_counter() - started
    started = time.perf_counter()
    assert [u for u, _ in fan_out(executor, _import_runner, range(args.cpus))]
    workers_s = time.perf_counter() - started
    ray_s, remote = timed_run(models, tasks, home / "ray", args.limit, executor)

    started = time.perf_counter()
    assert [u for u, _ in fan_out(executor, _noop, range(args.noop))]
    noop_s = time.perf_counter() - started
    ray.shutdown()

    same = comparable_results(home / "local") == comparable_results(home / "ray") == comparable_results(home / "before")
    costs = item_costs(home / "local")
    numbers = {
        "models": models, "tasks": [t.name for t in tasks], "limit": args.limit, "ray_cpus": args.cpus,
        "torch_threads": torch.get_num_threads(), "items": len(local.written) + len(local.failed),
        "local_s": round(local_s, 2), "ray_s": round(ray_s, 2), "ray_init_s": round(ray_init_s, 2),
        "ray_worker_start_s": round(workers_s, 2), "ratio_local_over_ray": round(local_s / ray_s, 3),
        "ratio_local_over_ray_with_start_up": round(local_s / (ray_init_s + workers_s + ray_s), 3),
        "encoded_local": local.encoded, "encoded_ray": remote.encoded,
        "results_identical": same, "written_local": len(local.written), "written_ray": len(remote.written),
        "failed_ray": remote.failed,
        "noop_items": args.noop, "ray_overhead_per_item_s": round(noop_s / args.noop, 4),
        "item_cost_s": {m: {t: round(c, 2) for t, c in sorted(tc.items())} for m, tc in costs.items()},
        "model_cost_s": {m: round(sum(tc.values()), 2) for m, tc in costs.items()},
        "before_split": {"local_s": round(before_s, 2), "jobs": len({t.job for t in before.timings}),
                         "largest_job_s": round(before_job_s, 2), "largest_job_items": before_job,
                         "encoded": before_report.encoded},
        "after_split": {"local_s": round(local_s, 2), "jobs": len({t.job for t in after.timings}),
                        "largest_job_s": round(after_job_s, 2), "largest_job_items": after_job,
                        "largest_item_s": round(max(t.seconds for t in after.timings), 2)},
        "ray_largest_job_s": round(largest_job(executor.timings)[0], 2),
        # what no executor can beat: the CPUs' share of the work, or the largest job
        "ray_bound_s": round(max(sum(t.seconds for t in after.timings) / args.cpus, after_job_s), 2),
    }
    print(json.dumps(numbers, indent=2))
    print(f"local {local_s:.1f}s, Ray ({args.cpus} CPUs) {ray_s:.1f}s: ratio local / Ray {local_s / ray_s:.3f} "
          f"(bound: {numbers['ray_bound_s']}s, the larger of the work / CPUs and the largest job)")
    print(f"largest job: {before_job_s:.1f}s before the split (one frozen job per model, {len(before_job)} items), "
          f"{after_job_s:.1f}s after (one per dataset, {len(after_job)} items)")
    print(f"Ray overhead per item: {noop_s / args.noop * 1000:.1f} ms ({args.noop} no-op items); start-up: "
          f"ray.init {ray_init_s:.1f}s, {args.cpus} workers importing the runner {workers_s:.1f}s")
    print(f"texts encoded: before the split {before_report.encoded}, local {local.encoded}, Ray {remote.encoded}; "
          f"result files identical: {same}")
    if args.keep:
        for name in ("before", "local", "ray"):
            shutil.copytree(home / name, args.keep / name, dirs_exist_ok=True)
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
