"""Where items of work run: the executor seam of `bench run`, few-shot seeds and sweeps.

An *item* is the smallest piece of work whose result stands on its own: (model, task) for `bench run`,
(task, seed) for a few-shot task, one configuration of a sweep. Each item has a `label` that names it
in progress lines and failures. A `Job` is a run of items that belong together (a model's
frozen-embedding tasks on one dataset share one loaded encoder and one encode pass) and the function that
does them: `work(items)` yields one outcome per item, in order, as each finishes. An executor runs jobs and yields
`(item, outcome)` pairs as outcomes arrive:

- `LocalExecutor` (the default) runs the jobs one after another in this process, exactly as a plain loop
  would; an exception raised by an item propagates.
- `RayExecutor` (`sentibench.run.ray_executor`, the `ray` extra) runs each job as a Ray task; an item whose
  worker is lost is rerun, and an item that still cannot finish gets an `ItemFailed` outcome while the
  other items go on. A `BenchError` that escapes `work` (which makes an item's own `BenchError` its outcome)
  means the job cannot run at all, its model not loading: every item the job has left gets it as `ItemFailed`.

Each executor keeps its own per-item timings (`timings`: an `ItemTiming` per outcome, measured where the
job ran), so a benchmark reads the largest job off them. Only `work` and the items travel to a worker, so
both must pickle: a module-level function (or a `functools.partial` of one) and plain dataclasses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol


@dataclass(frozen=True)
class Job:
    items: tuple[Any, ...]
    work: Callable[[tuple[Any, ...]], Iterator[Any]]  # yields one outcome per item, in order
    trains: bool = False  # fine-tunes or trains a model: it gets a GPU where the cluster has one
    orchestrates: bool = False  # only fans its pieces out (a fine-tuning task's seeds) and waits: a remote
    # executor runs it in the driver, so a lost node costs only the pieces that ran there, never the finished ones
    after: tuple[int, ...] = ()  # jobs (indices in the same `run` call, all earlier) to finish before it starts:
    # a job that reads vectors another job writes to a shared cache (a fine-tuned model's reference, its base)


@dataclass(frozen=True)
class ItemFailed:
    """The outcome of an item that could not finish remotely (its code raised, or its worker was lost
    more often than the executor retries); the message is one line."""

    message: str


@dataclass(frozen=True)
class ItemTiming:
    """Wall seconds of one item where its job ran: from the job's start (its first item) or the previous
    item's outcome to this item's outcome; a job's items' seconds add up to the job's wall time."""

    label: str
    job: int  # the job's index in the `run` call that ran it
    seconds: float


def timed(work: Callable[[tuple[Any, ...]], Iterator[Any]], items: tuple[Any, ...]) -> Iterator[tuple[Any, float]]:
    """`work(items)`'s outcomes, each with its item's wall seconds (see `ItemTiming`)."""
    started = time.perf_counter()
    for outcome in work(items):
        now = time.perf_counter()
        yield outcome, now - started
        started = time.perf_counter()  # the consumer's time between outcomes is not the item's


def label_of(item: Any) -> str:
    return str(getattr(item, "label", item))


class Executor(Protocol):
    timings: list[ItemTiming]

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        """`(item, outcome)` for every item of every job, in the order outcomes arrive."""
        ...


@dataclass
class LocalExecutor:
    """Every job in this process, one after another, in the order given."""

    timings: list[ItemTiming] = field(default_factory=list)

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        for index, job in enumerate(jobs):
            for item, (outcome, seconds) in zip(job.items, timed(job.work, job.items)):
                self.timings.append(ItemTiming(label_of(item), index, seconds))
                yield item, outcome


def _each(function: Callable[[Any], Any], items: tuple[Any, ...]) -> Iterator[Any]:
    for item in items:
        yield function(item)


def fan_out(executor: Executor, function: Callable[[Any], Any], items: Sequence[Any],
            trains: bool = False) -> Iterator[tuple[Any, Any]]:
    """Independent items (seeds, sweep configurations), one job each: `(item, function(item))` or
    `(item, ItemFailed)` as they finish. `function` must pickle for a remote executor."""
    return executor.run([Job((item,), partial(_each, function), trains) for item in items])
