"""Benchmarks: named, versioned, frozen task lists with their own aggregation (in the spirit of mteb's
`Benchmark`, e.g. `MTEB(eng, v2)`).

A benchmark pins each of its tasks by name, protocol version, dataset and the dataset's content sha256
(its *manifest*), and says how its scores aggregate: headline **axes**, each a mean of the listed tasks'
main scores (Sentiment: does the space separate polarity; Meaning: does it keep semantics), and
**diagnostics**, tasks shown beside the axes and never ranked (the geometry of `align-*`: a collapsed
space has tolerance 1, so "higher is better" does not hold there).

Two things a release fixes about its axes (docs/benchmarks.md, "Scales"):
- **scale**: raw main scores (v1), or **chance-normalised** ones, `(score - chance) / (1 - chance)`, with each
  task's chance level pinned in the manifest (`Task.chance_level()`, computed once from the task's data), so
  chance is 0 and perfect is 1 on every task and the anchors do not move when models join the board;
- **in-domain results** (a model trained or selected on the task's dataset): *left out* of a model's axis
  means (v1: each model is averaged over its own zero-shot tasks), or *counted* and flagged (every model is
  averaged over the same tasks, as MTEB does, with its zero-shot share shown beside it).

Released benchmarks are committed manifest files (`tasks/manifests/NAME.json`, read by `load_manifest`) and
never edited: a cheaper or better protocol is a new benchmark (a new name or version), validated against the
old one. `manifest_sha256` is what a citation names; a test holds the released manifests' hashes, so an edit
fails CI. Membership lives in the manifests and nowhere else: installing a plug-in that adds tasks changes no
benchmark. Benchmarks register in `BENCHMARKS`, found through the `sentibench.benchmarks` entry points: a
plug-in may add one (`register_benchmark`, or `load_manifest` on its own file); a name that is taken is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from annotated_types import Interval, MinLen, Predicate
from pydantic import BaseModel, ConfigDict, ValidationError

from sentibench.core.errors import BenchError
from sentibench.core.records import Record, rule
from sentibench.core.registry import Registry
from sentibench.tasks.base import TASK_NAME, Task

IN_DOMAIN = {"left out": "left out of axis means by default", "counted": "counted in axis means and flagged"}
"""How a benchmark's axes treat in-domain results, as its manifest (and so its sha256) words it."""
InDomain = Literal[tuple(IN_DOMAIN)]
ChanceLevel = Annotated[float, Interval(ge=0, lt=1)]
"""A main score in [0, 1) (neither NaN nor infinite: they are in no interval)."""


@dataclass(frozen=True)
class BenchmarkTask(Record):
    """One task as a benchmark pins it: results under another version or dataset do not count for it."""

    KIND: ClassVar[str] = "benchmark task"

    name: str
    version: int
    dataset: str
    dataset_sha256: str


@dataclass(frozen=True)
class Axis(Record):
    """A headline score: the mean of `tasks`' main scores (x 100 on the board), higher is better."""

    KIND: ClassVar[str] = "axis"

    name: str
    description: str
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Benchmark(Record):
    """A benchmark, validated when it is built (`core.records`): a refusal is one line."""

    KIND: ClassVar[str] = "benchmark"
    PROBLEMS: ClassVar[dict[str, str]] = {
        "name": "name must be lower-case letters, digits, '-' and '.'",
        "axes": "a benchmark needs at least one axis",
        "in_domain": f"in_domain must be one of {', '.join(map(repr, IN_DOMAIN))}",
        "chance": "a chance level is a main score in [0, 1)",
    }

    name: Annotated[str, Predicate(TASK_NAME.fullmatch)]  # e.g. "sentibench-v1"
    description: str
    released: str                    # ISO date; a released benchmark is never edited
    tasks: tuple[BenchmarkTask, ...]
    axes: Annotated[tuple[Axis, ...], MinLen(1)]  # headline scores, first one sorts the board
    diagnostics: tuple[str, ...]     # tasks shown beside the axes, not ranked
    citation: str
    derived_from: str | None = None  # the benchmark this one was chosen from and validated against
    in_domain: InDomain = "left out"  # a key of IN_DOMAIN
    chance: tuple[tuple[str, ChanceLevel], ...] = ()  # (axis task, chance level): empty = the raw scale

    @rule
    def _distinct(self) -> Iterator[str]:
        if len(set(self.task_names)) != len(self.tasks):
            yield "a task is listed twice"

    @rule
    def _axes_of_the_tasks(self) -> Iterator[str]:
        for axis in self.axes:
            if not axis.tasks or not set(axis.tasks) <= set(self.task_names):
                yield f"axis '{axis.name}' must list some of the benchmark's tasks"

    @rule
    def _diagnostics_of_the_tasks(self) -> Iterator[str]:
        if not set(self.diagnostics) <= set(self.task_names):
            yield "diagnostics must be tasks of the benchmark"

    @rule
    def _chance_of_the_axis_tasks(self) -> Iterator[str]:
        if self.chance and {task for task, _ in self.chance} != {task for axis in self.axes for task in axis.tasks}:
            yield "a chance-normalised benchmark pins a chance level for every axis task, and only those"

    @property
    def task_names(self) -> list[str]:
        return [task.name for task in self.tasks]

    @property
    def chance_levels(self) -> dict[str, float]:
        """{axis task: chance level} on a chance-normalised benchmark; empty on a raw one."""
        return dict(self.chance)

    def manifest(self) -> dict:
        """Everything that defines the benchmark, as JSON-ready data (what `manifest_sha256` hashes)."""
        out = {"name": self.name, "released": self.released, "derived_from": self.derived_from,
               "tasks": [[t.name, t.version, t.dataset, t.dataset_sha256] for t in self.tasks],
               "axes": {axis.name: list(axis.tasks) for axis in self.axes},
               "diagnostics": list(self.diagnostics), "in_domain": IN_DOMAIN[self.in_domain]}
        if self.chance:
            out["scale"] = {"name": "chance-normalised", "chance": self.chance_levels}
        return out

    @property
    def manifest_sha256(self) -> str:
        text = json.dumps(self.manifest(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def pinned(self, name: str) -> BenchmarkTask | None:
        return next((task for task in self.tasks if task.name == name), None)


class _AxisFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    description: str
    tasks: list[str]


class ManifestFile(BaseModel):
    """A released benchmark as its committed file holds it (`tasks/manifests/NAME.json`). Format 1 is raw
    scores with in-domain results left out; format 2 adds the chance-normalised scale."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    format: Literal[1, 2]
    name: str
    released: str
    derived_from: str | None
    description: str
    citation: str
    tasks: list[tuple[str, int, str, str]]
    axes: list[_AxisFile]
    diagnostics: list[str]
    in_domain: InDomain
    chance: dict[str, float] = {}

    def benchmark(self) -> Benchmark:
        if (self.format == 2) != bool(self.chance):
            raise BenchError(f"benchmark '{self.name}': format 2 and only format 2 pins chance levels")
        return Benchmark(
            name=self.name, description=self.description, released=self.released,
            tasks=tuple(BenchmarkTask(*task) for task in self.tasks),
            axes=tuple(Axis(a.name, a.description, tuple(a.tasks)) for a in self.axes),
            diagnostics=tuple(self.diagnostics), citation=self.citation, derived_from=self.derived_from,
            in_domain=self.in_domain, chance=tuple(sorted(self.chance.items())))


def load_manifest(path: Path) -> Benchmark:
    """The benchmark a manifest file describes; a `BenchError` naming the file when it is not one."""
    from sentibench.core.io import read_json

    try:
        return ManifestFile.model_validate(read_json(Path(path), "benchmark manifest")).benchmark()
    except (ValueError, ValidationError) as error:
        first = error.errors()[0] if isinstance(error, ValidationError) else {"msg": str(error), "loc": ()}
        where = ".".join(map(str, first["loc"]))
        raise BenchError(f"{path}: not a benchmark manifest ({where + ': ' if where else ''}{first['msg']})") from None


def manifest_text(benchmark: Benchmark, description: str | None = None) -> str:
    """`benchmark` as its committed manifest file: one task per line, so a release reads (and diffs) by task."""
    head = {"format": 2 if benchmark.chance else 1, "name": benchmark.name, "released": benchmark.released,
            "derived_from": benchmark.derived_from, "description": description or benchmark.description,
            "citation": benchmark.citation}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    lines.append(' "tasks": [')
    lines += [f"  {json.dumps([t.name, t.version, t.dataset, t.dataset_sha256])}," for t in benchmark.tasks]
    lines[-1] = lines[-1].rstrip(",")
    lines.append(" ],")
    lines.append(' "axes": [')
    axes = [{"name": a.name, "description": a.description, "tasks": list(a.tasks)} for a in benchmark.axes]
    lines += [f"  {json.dumps(axis, ensure_ascii=False)}," for axis in axes]
    lines[-1] = lines[-1].rstrip(",")
    lines.append(" ],")
    lines.append(f' "diagnostics": {json.dumps(list(benchmark.diagnostics))},')
    lines.append(f' "in_domain": {json.dumps(benchmark.in_domain)}' + ("," if benchmark.chance else ""))
    if benchmark.chance:
        lines.append(' "chance": {')
        lines += [f"  {json.dumps(task)}: {level!r}," for task, level in benchmark.chance]
        lines[-1] = lines[-1].rstrip(",")
        lines.append(" }")
    return "\n".join(lines + ["}"]) + "\n"


BENCHMARKS: Registry[Benchmark] = Registry("benchmark", group="sentibench.benchmarks")
"""Every benchmark by name: sentibench's own (below) and plug-ins' (entry-point group `sentibench.benchmarks`)."""

CURRENT = "sentibench-v2"
"""The benchmark the board, `bench run -t required` and `bench submit` use when none is named."""

BOARD = (CURRENT, "sentibench-multilingual-v1")
"""The benchmarks `bench leaderboard` shows when none is named, each its own overview section, the current first."""


def register_benchmark(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark; a name already taken is refused (a released benchmark is never replaced)."""
    return BENCHMARKS.register_once(benchmark.name, benchmark,
                                    f"benchmark '{benchmark.name}' already exists and is never changed; release "
                                    "yours under a new name or version")


def get_benchmark(name: str | None = None) -> Benchmark:
    return BENCHMARKS.get(name or CURRENT)


def benchmark_tasks(benchmark: Benchmark) -> list[Task]:
    """The installed tasks a benchmark lists, in its order; an error when the installed code no longer builds
    one of them under the pinned version and dataset (the benchmark cannot be run as released)."""
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    problems = []
    for pinned in benchmark.tasks:
        task = installed.get(pinned.name)
        if task is None:
            problems.append(f"{pinned.name} is not installed")
        elif (task.metadata.version, task.metadata.dataset) != (pinned.version, pinned.dataset):
            problems.append(f"{pinned.name} is installed as version {task.metadata.version} on "
                            f"'{task.metadata.dataset}', the benchmark pins version {pinned.version} on "
                            f"'{pinned.dataset}'")
    if problems:
        raise BenchError(f"benchmark '{benchmark.name}' cannot run as released: {'; '.join(problems)}")
    return [installed[name] for name in benchmark.task_names]


def required_tasks(benchmark: str | None = None) -> list[Task]:
    """The tasks a run or a submission answers for `benchmark` (default: the current release), never whatever
    the installed families happen to build: fine-tuning tasks and the tasks plug-ins add are in no benchmark,
    and run only when named."""
    return benchmark_tasks(get_benchmark(benchmark))


def expand_required(names: list[str], benchmark: str | None = None) -> list[str]:
    """Task and group names with `required` replaced by the benchmark's task names (`required` in a task list
    stands for the current release's tasks)."""
    out: list[str] = []
    for name in names:
        out += [task.name for task in required_tasks(benchmark)] if name == "required" else [name]
    return out


# ---- sentibench's own benchmarks: the committed manifests -----------------------------------------------

def _register_released() -> None:
    for entry in sorted(resources.files("sentibench.tasks").joinpath("manifests").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            with resources.as_file(entry) as path:
                register_benchmark(load_manifest(path))


_register_released()
