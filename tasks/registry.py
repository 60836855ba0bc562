"""Finds tasks by name or group. Tasks come from *families*, the one way to add tasks: a family is a rule that
builds its task(s) for a dataset whose catalog facts (tags, kind, labels, caps, title, standard splits) fit,
or None. Every registered dataset, including ones added later with `register_dataset`, gets the tasks of
every family that accepts it. Families register at import of their module; sentibench's own task modules
and plug-ins alike are found through the `sentibench.tasks` entry points (`FAMILIES`).
"""

from __future__ import annotations

from collections.abc import Callable

from sentibench.core.errors import BenchError, unknown_name
from sentibench.core.registry import Registry
from sentibench.data import dataset_names, get_spec
from sentibench.data.spec import DatasetSpec
from sentibench.tasks.base import Task

Family = Callable[[DatasetSpec], Task | list[Task] | None]

FAMILIES: Registry[Family] = Registry("task family", group="sentibench.tasks")
"""Every task family by name (its default group's name, e.g. "sgts")."""

# (family, dataset) -> the family and spec it was built from, and what it built: a cache that is rebuilt when
# either changes (a test's restore), so it holds no state of its own.
_BUILT: dict[tuple[str, str], tuple[Family, DatasetSpec, list[Task]]] = {}


def register_family(name: str, build: Family) -> Family:
    """A task family: `build(spec)` returns the family's task(s) for a dataset that fits, else None."""
    return FAMILIES.register(name, build)


def _built(family: str, build: Family, spec: DatasetSpec) -> list[Task]:
    cached = _BUILT.get((family, spec.name))
    if cached is not None and cached[0] is build and cached[1] is spec:
        return cached[2]
    try:
        made = build(spec)
    except (Exception, SystemExit) as error:  # a plug-in's family rule: one line naming it, never a traceback
        raise BenchError(f"task family '{family}' failed on dataset '{spec.name}': {type(error).__name__}: "
                         f"{error}") from None
    tasks = [] if made is None else made if isinstance(made, list) else [made]
    _BUILT[(family, spec.name)] = (build, spec, tasks)
    return tasks


def all_tasks() -> dict[str, Task]:
    """Every task, by name (sorted): each family applied to each dataset; a name built twice is an error."""
    tasks: dict[str, Task] = {}
    owner: dict[str, str] = {}
    specs = [get_spec(name) for name in dataset_names()]
    for family, build in FAMILIES.items().items():
        for spec in specs:
            for task in _built(family, build, spec):
                if task.name in tasks:
                    raise BenchError(f"task '{task.name}' is built by two families ('{owner[task.name]}' and "
                                     f"'{family}'); rename one of them")
                tasks[task.name], owner[task.name] = task, family
    return dict(sorted(tasks.items()))


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
