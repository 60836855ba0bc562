"""sentibench's benchmarks as `mteb.Benchmark`s, for `ResultCache.load_results(tasks=...)` and
`get_benchmark_result()`: one per sentibench benchmark (`sentibench.tasks.benchmarks`), named after it
(`sentibench-v1`, `sentibench-lite-v1`).

Its tasks are the benchmark's tasks in their mteb forms under the names `bench export mteb` writes: MTEB's own
task for a twin (`STSBenchmark`, test split only, see `twins.py`), our task class for every other task
(registered with mteb by `tasks.register_with_mteb`). Tasks with no mteb form (the geometry `align-*`
diagnostics: no MTEB task type fits them) are left out and named in the description. Load an export with it:
`mteb.ResultCache(out).load_results(tasks=sentibench_benchmark())`, then `get_aggregated_scores()` and
`get_benchmark_result()` aggregate by task type as for MTEB's own benchmarks.
"""

from __future__ import annotations

from sentibench.mteb.tasks import mteb_task_class, register_with_mteb
from sentibench.mteb.twins import TWINS
from sentibench.tasks.benchmarks import CURRENT, benchmark_tasks, get_benchmark

NAME = CURRENT
"""The name of the mteb benchmark `sentibench_benchmark()` builds by default: the current sentibench benchmark's."""


def sentibench_benchmark(name: str | None = None):
    """The sentibench benchmark `name` (default: the current one) as an `mteb.Benchmark` of the same name."""
    benchmark = get_benchmark(name)
    register_with_mteb()
    import mteb

    tasks, left_out = [], []
    for task in benchmark_tasks(benchmark):
        twin = TWINS.get(task.name)
        if twin is not None:
            tasks.append(mteb.get_task(twin.name, eval_splits=[twin.split]))
        elif mteb_task_class(task) is not None:
            tasks.append(mteb.get_task(task.name))
        else:
            left_out.append(task.name)
    missing = f" Its tasks with no mteb form, not included: {', '.join(left_out)}." if left_out else ""
    return mteb.Benchmark(
        name=benchmark.name, tasks=tasks,
        description=f"sentibench's benchmark {benchmark.name} as mteb tasks, scored on each task's main split: "
                    f"{benchmark.description}{missing}",
        citation=benchmark.citation)
