"""Where units of work run: the executor seam of `bench run`, few-shot seeds and sweeps.

A *unit* is the smallest piece of work whose result stands on its own: (model, task) for `bench run`,
(task, seed) for a few-shot protocol, one configuration of a sweep. Each unit has a `label` that names it
in progress lines and failures. A `Job` is a run of units that belong together (a model's
frozen-embedding tasks share one loaded encoder and one encode pass) and the function that does them:
`work(units)` yields one outcome per unit, in order, as each finishes. An executor runs jobs and yields
`(unit, outcome)` pairs as outcomes arrive:

- `LocalExecutor` (the default) runs the jobs one after another in this process, exactly as a plain loop
  would; an exception raised by a unit propagates.
- `RayExecutor` (`sentibench.run.ray_executor`, the `ray` extra) runs each job as a Ray task; a unit whose
  worker is lost is rerun, and a unit that still cannot finish gets a `UnitFailed` outcome while the
  other units go on.

Only `work` and the units travel to a worker, so both must pickle: a module-level function (or a
`functools.partial` of one) and plain dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol


@dataclass(frozen=True)
class Job:
    units: tuple[Any, ...]
    work: Callable[[tuple[Any, ...]], Iterator[Any]]  # yields one outcome per unit, in order
    trains: bool = False  # fine-tunes or trains a model: it gets a GPU where the cluster has one


@dataclass(frozen=True)
class UnitFailed:
    """The outcome of a unit that could not finish remotely (its code raised, or its worker was lost
    more often than the executor retries); the message is one line."""

    message: str


class Executor(Protocol):
    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        """`(unit, outcome)` for every unit of every job, in the order outcomes arrive."""
        ...


class LocalExecutor:
    """Every job in this process, one after another, in the order given."""

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        for job in jobs:
            yield from zip(job.units, job.work(job.units))


def _each(function: Callable[[Any], Any], units: tuple[Any, ...]) -> Iterator[Any]:
    for unit in units:
        yield function(unit)


def fan_out(executor: Executor, function: Callable[[Any], Any], units: Sequence[Any],
            trains: bool = False) -> Iterator[tuple[Any, Any]]:
    """Independent units (seeds, sweep configurations), one job each: `(unit, function(unit))` or
    `(unit, UnitFailed)` as they finish. `function` must pickle for a remote executor."""
    return executor.run([Job((unit,), partial(_each, function), trains) for unit in units])
