"""The suite a run or a submission answers: a benchmark's tasks (`sentibench.tasks.benchmarks`), never whatever
the installed families happen to build. `required` in a task list stands for the current release's tasks
(`CURRENT`, sentibench-v1); fine-tuning tasks and the tasks plug-ins add are in no benchmark, and run only
when named.
"""

from __future__ import annotations

from sentibench.tasks.base import Task
from sentibench.tasks.benchmarks import benchmark_tasks, get_benchmark


def required_tasks(benchmark: str | None = None) -> list[Task]:
    """The tasks of `benchmark` (default: the current release)."""
    return benchmark_tasks(get_benchmark(benchmark))


def expand_required(names: list[str], benchmark: str | None = None) -> list[str]:
    """Task and group names with `required` replaced by the benchmark's task names."""
    out: list[str] = []
    for name in names:
        out += [task.name for task in required_tasks(benchmark)] if name == "required" else [name]
    return out
