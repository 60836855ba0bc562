"""Finds tasks by name or group; every module in `sentibench.tasks` registers its own on import."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from sentibench.errors import BenchError, unknown_name
from sentibench.tasks.base import Task

_TASKS: dict[str, Task] = {}


def register(task: Task) -> Task:
    if task.name in _TASKS:
        raise BenchError(f"task '{task.name}' is registered twice")
    _TASKS[task.name] = task
    return task


@cache
def _discover() -> None:
    import sentibench.tasks as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in ("base", "registry"):
            importlib.import_module(f"sentibench.tasks.{info.name}")


def all_tasks() -> dict[str, Task]:
    _discover()
    return dict(sorted(_TASKS.items()))


def groups() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, task in all_tasks().items():
        for group in task.metadata.groups:
            out.setdefault(group, []).append(name)
    return out


def resolve(names: list[str]) -> list[Task]:
    """Task names and group names to tasks, in the order given, without duplicates."""
    tasks, known, by_group = all_tasks(), all_tasks(), groups()
    chosen: list[Task] = []
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        if name in known:
            selected = [known[name]]
        elif name in by_group:
            selected = [tasks[n] for n in by_group[name]]
        else:
            raise unknown_name("task", name, list(known) + list(by_group))
        chosen += [t for t in selected if t not in chosen]
    return chosen
