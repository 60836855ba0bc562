"""Where items of work run: the executor seam of `bench run`, few-shot seeds and sweeps.

An *item* is the smallest piece of work whose result stands on its own: (model, task) for `bench run`,
(task, seed) for a few-shot task, one configuration of a sweep. Each item has a `label` that names it
in progress lines and failures. A `Job` is a run of items that belong together (a model's
frozen-embedding tasks share one loaded encoder and one encode pass) and the function that does them:
`work(items)` yields one outcome per item, in order, as each finishes. An executor runs jobs and yields
`(item, outcome)` pairs as outcomes arrive:

- `LocalExecutor` (the default) runs the jobs one after another in this process, exactly as a plain loop
  would; an exception raised by an item propagates.
- `RayExecutor` (`sentibench.run.ray_executor`, the `ray` extra) runs each job as a Ray task; an item whose
  worker is lost is rerun, and an item that still cannot finish gets an `ItemFailed` outcome while the
  other items go on.

Only `work` and the items travel to a worker, so both must pickle: a module-level function (or a
`functools.partial` of one) and plain dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol


@dataclass(frozen=True)
class Job:
    items: tuple[Any, ...]
    work: Callable[[tuple[Any, ...]], Iterator[Any]]  # yields one outcome per item, in order
    trains: bool = False  # fine-tunes or trains a model: it gets a GPU where the cluster has one


@dataclass(frozen=True)
class ItemFailed:
    """The outcome of an item that could not finish remotely (its code raised, or its worker was lost
    more often than the executor retries); the message is one line."""

    message: str


class Executor(Protocol):
    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        """`(item, outcome)` for every item of every job, in the order outcomes arrive."""
        ...


class LocalExecutor:
    """Every job in this process, one after another, in the order given."""

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        for job in jobs:
            yield from zip(job.items, job.work(job.items))


def _each(function: Callable[[Any], Any], items: tuple[Any, ...]) -> Iterator[Any]:
    for item in items:
        yield function(item)


def fan_out(executor: Executor, function: Callable[[Any], Any], items: Sequence[Any],
            trains: bool = False) -> Iterator[tuple[Any, Any]]:
    """Independent items (seeds, sweep configurations), one job each: `(item, function(item))` or
    `(item, ItemFailed)` as they finish. `function` must pickle for a remote executor."""
    return executor.run([Job((item,), partial(_each, function), trains) for item in items])
