"""MTEB interoperability, both ways (optional extra: `pip install "sentibench[mteb]"`).

- `export_results(results, output)`: our result files as a tree that `mteb.ResultCache(output)` loads with
  its defaults (model_meta.json, MTEB's model naming, MTEB's task names and eval splits); `export.py`.
- `get_tasks(names)`: sentibench tasks as mteb task classes with data from our packaged datasets; `tasks.py`.
- `get_model(name)`: any sentibench model card as an mteb encoder with a `ModelMeta`; `encoder.py`.
- `model_meta(card)`: the `ModelMeta` a card describes; `meta.py`.
- `register_with_mteb()`: our tasks in mteb's task registry, so that mteb types and aggregates their results
  (task types, `get_aggregated_scores()`); `tasks.py`.
- `sentibench_benchmark(name)`: a sentibench benchmark (default: the current one, `sentibench-v1`) as an
  `mteb.Benchmark` of the same name, for `ResultCache.load_results(tasks=...)` and `get_benchmark_result()`;
  `benchmark.py`.

mteb is imported only when one of these is called; without it they raise a one-line `BenchError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

from sentibench.embed.mteb_model import MTEB_PIN, require_mteb  # re-exported


def get_tasks(names: list[str] | None = None, seed: int = 0) -> list:
    """sentibench tasks (names or groups; default: every task with an mteb form) as mteb task objects."""
    from sentibench.mteb.tasks import get_tasks as _get_tasks

    return _get_tasks(names, seed=seed)


def get_model(name: str, **kwargs: Any):
    """The model card (or local folder, or an in-process `encoder=` called `name`) as an mteb encoder."""
    from sentibench.mteb.encoder import get_model as _get_model

    return _get_model(name, **kwargs)


def register_with_mteb() -> None:
    """Our tasks in mteb's task registry (see `tasks.py`)."""
    from sentibench.mteb.tasks import register_with_mteb as _register

    _register()


def sentibench_benchmark(name: str | None = None):
    """The sentibench benchmark `name` (default: the current one) as an `mteb.Benchmark` of the same name."""
    from sentibench.mteb.benchmark import sentibench_benchmark as _benchmark

    return _benchmark(name)


def model_meta(card):
    from sentibench.mteb.meta import model_meta as _model_meta

    return _model_meta(card)


def export_results(results: Path, output: Path):
    from sentibench.mteb.export import export_results as _export

    return _export(results, output)


__all__ = ["MTEB_PIN", "export_results", "get_model", "get_tasks", "model_meta", "register_with_mteb", "require_mteb",
           "sentibench_benchmark"]
