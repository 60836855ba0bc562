"""sentibench's public Python API, in mteb's shape: five verbs, re-exported at the top of the package.

    import sentibench

    results = sentibench.evaluate("./my-model", benchmark="sentibench-lite-v1", output_folder="runs")
    board = sentibench.load_results("runs")

`evaluate` runs through the same runner as `bench run` (the same cache, resumption, provenance and result
files); `load_results` reads and validates result files as `bench leaderboard` does. Everything else in the
package is internal and may move between releases.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sentibench.core.errors import BenchError

if TYPE_CHECKING:
    from sentibench.models.catalog.cards import ModelCard
    from sentibench.models.catalog.inprocess import InProcessModel
    from sentibench.results.schema import TaskResult
    from sentibench.tasks.base import Task
    from sentibench.tasks.benchmarks import Benchmark

__all__ = ["evaluate", "get_benchmark", "get_model", "get_tasks", "load_results"]


def get_benchmark(name: str | None = None) -> Benchmark:
    """A released benchmark by name (`bench list benchmarks`); None gives the current default."""
    from sentibench.tasks.benchmarks import get_benchmark as lookup

    return lookup(name)


def get_tasks(names: str | Iterable[str] | None = None, benchmark: str | None = None) -> list[Task]:
    """Tasks by name or group (`"sgts"`, `"sts-stsb"`, ...; a comma-separated string works too), or a
    benchmark's pinned tasks; exactly one of the two."""
    from sentibench.tasks.benchmarks import benchmark_tasks
    from sentibench.tasks.registry import resolve

    if (names is None) == (benchmark is None):
        raise BenchError("get_tasks: give task names or a benchmark, not both and not neither")
    if benchmark is not None:
        return benchmark_tasks(get_benchmark(benchmark))
    return resolve(names.split(",") if isinstance(names, str) else list(names))


def get_model(model: str | Any, name: str | None = None) -> ModelCard | InProcessModel:
    """What `evaluate` runs: a card name, a local folder or a Hub id (`org/name[@commit]`) gives its model
    card; an object you hold (a SentenceTransformer, an mteb encoder, anything with `encode(list[str])`) is
    wrapped and named (`name`, else its own metadata)."""
    if isinstance(model, str):
        if name is not None:
            raise BenchError("get_model: `name` names an object; a card, folder or Hub id is named by itself")
        from sentibench.models.catalog.lookup import card_for

        return card_for(model)
    from sentibench.models.catalog.inprocess import as_model

    return as_model(model, name=name)


def evaluate(model: str | Any | Sequence[str | Any], *, tasks: str | Iterable[str] | None = None,
             benchmark: str | None = None, output_folder: str | Path = "results", **options: Any) -> list[TaskResult]:
    """Run `model` (or a list of models: anything `get_model` takes) on `tasks` or a `benchmark`'s tasks and
    return the typed results, one per (model, task), read back from the files written into `output_folder`
    (results already there are reused, as `bench run` does). `options` are `bench run`'s: `overwrite`
    ("only-missing", "always", "never"), `seed`, `limit`, `batch_size`, `device`, `use_cache`, `dtype`.
    A task that fails or cannot run here raises `BenchError` naming it, after the others are written."""
    from sentibench.results.task_result import read_result
    from sentibench.run.runner import run

    models = list(model) if isinstance(model, (list, tuple)) else [model]
    chosen = [get_model(m) if isinstance(m, str) else m for m in models]
    report = run(chosen, get_tasks(tasks, benchmark), Path(output_folder), **options)
    problems = report.failed + report.unavailable
    if problems:
        raise BenchError(f"evaluate: {len(problems)} item(s) did not run: {'; '.join(problems)}")
    return [read_result(path) for path in [*report.written, *report.skipped]]


def load_results(folder: str | Path | Sequence[str | Path] = "results") -> list[TaskResult]:
    """Every result under `folder` (or several folders), validated as the leaderboard reads them."""
    from sentibench.results.store import ResultStore

    return ResultStore.load(folder).results
