"""One registry type for every kind of plug-in (tasks, datasets, methods, encoder kinds, benchmarks), in the spirit of
lm-evaluation-harness's `Registry[T]`: lookup with near-name suggestions, snapshot/restore for tests, and
discovery of out-of-tree plug-ins through Python entry points.

A plug-in package declares, in its own `pyproject.toml`,

    [project.entry-points."sentibench.methods"]
    my-method = "my_package.method"

Each entry point names a module (or a "module:attribute"); loading it registers what it holds, exactly as
sentibench's own modules do at import. Entry points are loaded the first time a registry is listed or
searched (never at import of sentibench), once per process. Choice: a plug-in that fails to import (any
exception, `sys.exit` included) is an error naming the distribution and the entry point, never silently
skipped: a missing task in a benchmark is worse than a loud failure.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from typing import Generic, TypeVar

from sentibench.core.errors import BenchError, unknown_name

T = TypeVar("T")

ENTRY_POINT_GROUPS = ("sentibench.datasets", "sentibench.tasks", "sentibench.methods", "sentibench.encoders",
                      "sentibench.benchmarks", "sentibench.model_kinds")
"""The entry-point groups sentibench reads; a plug-in may use any of them. sentibench declares its own
datasets, tasks, methods and encoder kinds in each (pyproject.toml), so an installation without them is stale."""


@dataclass
class Registry(Generic[T]):
    """Named objects of one kind. `kind` is the word users see ("task", "dataset", ...), so an unknown name
    reads "unknown task 'sgst-mr'. Did you mean: sgts-mr?". The entry points of `group` are loaded once, before
    the first lookup (`load_plugins`: the modules that register built-in and plug-in entries)."""

    kind: str
    group: str | None = None
    _entries: dict[str, T] = field(default_factory=dict)
    _discovered: bool = False

    def register(self, name: str, entry: T, replace: bool = False) -> T:
        """Add `entry` under `name`; a second registration of a name is an error unless `replace`."""
        if name in self._entries and not replace and self._entries[name] is not entry:
            raise BenchError(f"{self.kind} '{name}' is registered twice")
        self._entries[name] = entry
        return entry

    def register_once(self, name: str, entry: T, refusal: str) -> T:
        """Add `entry` under `name`; an equal entry may register again (a module imported twice), a different
        one is refused with `refusal` (for entries that are never replaced, such as released benchmarks)."""
        if name in self._entries and self._entries[name] != entry:
            raise BenchError(refusal)
        self._entries[name] = entry
        return entry

    def _ready(self) -> None:
        if not self._discovered and self.group is not None:
            self._discovered = True  # first: a discovery that registers must not recurse into itself
            load_plugins(self.group)

    def get(self, name: str) -> T:
        self._ready()
        if name not in self._entries:
            raise unknown_name(self.kind, name, self._entries)
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        self._ready()
        return name in self._entries

    def names(self) -> list[str]:
        self._ready()
        return sorted(self._entries)

    def items(self) -> dict[str, T]:
        """Every entry, sorted by name (a copy: changing it changes nothing here)."""
        self._ready()
        return dict(sorted(self._entries.items()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def snapshot(self) -> dict[str, T]:
        """The registry's entries, for a test that registers and must leave nothing behind (`restore`)."""
        self._ready()
        return dict(self._entries)

    def restore(self, state: dict[str, T]) -> None:
        self._entries.clear()
        self._entries.update(state)


_LOADED: set[str] = set()
_SCANNED: dict[tuple[str, ...], EntryPoints] = {}


def group_entry_points(group: str) -> list[EntryPoint]:
    """The installed entry points of `group`, from one scan of the installed distributions per import path
    (`importlib.metadata.entry_points` reads every distribution's metadata on each call; sentibench reads up
    to six groups in one command), scanned again when `sys.path` changes."""
    key = tuple(sys.path)
    if key not in _SCANNED:
        _SCANNED.clear()
        _SCANNED[key] = entry_points()
    return list(_SCANNED[key].select(group=group))


def load_plugins(group: str) -> None:
    """Import every installed entry point of `group` once per process (each registers what it holds)."""
    if group in _LOADED:
        return
    points = sorted(group_entry_points(group), key=lambda p: p.name)
    if group in ENTRY_POINT_GROUPS and not any(p.dist is not None and p.dist.name == "sentibench" for p in points):
        raise BenchError(f"the installed sentibench declares no '{group}' entry points (its metadata predates "
                         "them): reinstall it, e.g. `pip install -e .` in the source folder")
    _LOADED.add(group)
    for point in points:
        try:
            loaded = point.load() if ":" in point.value else import_module(point.value)
            if callable(loaded) and ":" in point.value:
                loaded()  # "module:register" form: a function that registers
        except (Exception, SystemExit) as error:  # a broken plug-in (one that exits too): one line naming it
            owner = point.dist.name if point.dist is not None else "an installed package"
            raise BenchError(f"plug-in '{point.name}' ({group}) of {owner} failed to load: "
                             f"{type(error).__name__}: {error}") from None
