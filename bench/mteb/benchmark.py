"""The `sentibench` `mteb.Benchmark`: the required suite as mteb sees it, for `get_benchmark_result()`.

Its tasks are the required suite's mteb forms under the names `bench export mteb` writes: MTEB's own task for
a twin (`STSBenchmark`, test split only, see `twins.py`), our task class for every other task (registered
with mteb by `tasks.register_with_mteb`). Required tasks with no mteb form (the geometry `align-*` tasks:
no MTEB task type fits them) are left out and named in the description. Load an export with it:
`mteb.ResultCache(out).load_results(tasks=sentibench_benchmark())`, then `get_aggregated_scores()` and
`get_benchmark_result()` aggregate by task type as for MTEB's own benchmarks.
"""

from __future__ import annotations

from sentibench.mteb.tasks import mteb_task_class, register_with_mteb
from sentibench.mteb.twins import TWINS
from sentibench.run.suite import required_tasks

NAME = "sentibench"


def sentibench_benchmark():
    """The required suite's mteb twins as an `mteb.Benchmark` named `sentibench`."""
    register_with_mteb()
    import mteb

    tasks, left_out = [], []
    for task in required_tasks():
        twin = TWINS.get(task.name)
        if twin is not None:
            tasks.append(mteb.get_task(twin.name, eval_splits=[twin.split]))
        elif mteb_task_class(task) is not None:
            tasks.append(mteb.get_task(task.name))
        else:
            left_out.append(task.name)
    missing = f" Required tasks with no mteb form, not included: {', '.join(left_out)}." if left_out else ""
    return mteb.Benchmark(
        name=NAME, tasks=tasks,
        description="sentibench's required suite (sentiment-aware sentence embeddings: SgTS, probe, retrieval, "
                    f"frozen few-shot, STS) as mteb tasks, scored on each task's main split.{missing}")
