"""Finds tasks by name or group. Task modules register *families*: a rule that builds a family's task for
a dataset whose catalog facts (tags, kind, labels, caps) fit, or None. Every registered dataset, including
ones added later with `register_dataset`, gets the tasks of every family that accepts it. A task registered
explicitly with `register` (a variant not derived from the catalog) takes precedence over a family's."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache

from sentibench.core.errors import BenchError, unknown_name
from sentibench.data import dataset_names, get_spec
from sentibench.data.spec import DatasetSpec
from sentibench.tasks.base import Task

Family = Callable[[DatasetSpec], Task | None]

_TASKS: dict[str, Task] = {}
_FROM_FAMILY: set[str] = set()          # task names a family built (an explicit registration replaces them)
_FAMILIES: dict[str, Family] = {}
_APPLIED: set[tuple[str, str]] = set()  # (family, dataset) pairs already built


def register(task: Task) -> Task:
    if task.name in _TASKS and task.name not in _FROM_FAMILY:
        raise BenchError(f"task '{task.name}' is registered twice")
    _TASKS[task.name] = task
    _FROM_FAMILY.discard(task.name)
    return task


def register_family(name: str, build: Family) -> None:
    """A task family: `build(spec)` returns the family's task for a dataset that fits, else None."""
    _FAMILIES[name] = build


def _apply_families() -> None:
    for dataset in dataset_names():
        spec = get_spec(dataset)
        for family, build in _FAMILIES.items():
            if (family, dataset) in _APPLIED:
                continue
            _APPLIED.add((family, dataset))
            for task in _as_list(build(spec)):
                if task.name not in _TASKS:
                    _TASKS[task.name] = task
                    _FROM_FAMILY.add(task.name)


def _as_list(built: Task | list[Task] | None) -> list[Task]:
    return [] if built is None else built if isinstance(built, list) else [built]


@cache
def _discover() -> None:
    import sentibench.tasks as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in ("base", "registry"):
            importlib.import_module(f"sentibench.tasks.{info.name}")


def all_tasks() -> dict[str, Task]:
    _discover()
    _apply_families()
    return dict(sorted(_TASKS.items()))


def snapshot() -> tuple:
    """The registry's state, for tests that register and must not leak (see `restore`)."""
    return dict(_TASKS), set(_FROM_FAMILY), dict(_FAMILIES), set(_APPLIED)


def restore(state: tuple) -> None:
    for target, saved in zip((_TASKS, _FROM_FAMILY, _FAMILIES, _APPLIED), state):
        target.clear()
        target.update(saved)


def groups() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, task in all_tasks().items():
        for group in task.metadata.groups:
            out.setdefault(group, []).append(name)
    return out


def resolve(names: list[str]) -> list[Task]:
    """Task names and group names to tasks, in the order given, without duplicates."""
    known, by_group = all_tasks(), groups()
    chosen: list[Task] = []
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        if name in known:
            selected = [known[name]]
        elif name in by_group:
            selected = [known[n] for n in by_group[name]]
        else:
            raise unknown_name("task", name, list(known) + list(by_group))
        chosen += [t for t in selected if t not in chosen]
    return chosen
