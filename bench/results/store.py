"""The results store: every result under one or more results folders, read and checked once, and the questions
the layers above ask of it (in the spirit of mteb's `ResultCache` / `BenchmarkResults`), so that the board,
`bench compare`, the figures, `bench export mteb` and submissions walk no folders themselves.

Each result is read by `read_result` (validated, size-checked); `current` splits off the results made under an
older version of their task's protocol (a board never mixes versions in a column; `bench run` recomputes them);
`check_one_weights` holds every folder to one set of weights (one folder, one model revision); `of_model` finds
one model's results across the folders, in order (refusing a bare name that two folders answer differently),
with near-name suggestions for a typo; `select` filters by
model, task and benchmark (`counts_for`: a result counts for a benchmark under its pinned version and dataset).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import check_one_weights_per_folder, iter_results
from sentibench.tasks.benchmarks import Benchmark


@dataclass(frozen=True)
class ResultStore:
    """The results of `roots` (folders, in the order given, each once), as read."""

    roots: tuple[Path, ...]
    by_root: tuple[tuple[TaskResult, ...], ...]

    @classmethod
    def load(cls, roots: Path | str | Sequence[Path | str]) -> ResultStore:
        """Read every result under each folder (a missing folder holds none)."""
        folders = [Path(roots)] if isinstance(roots, (str, Path)) else [Path(root) for root in roots]
        unique: dict[Path, Path] = {}
        for folder in folders:
            unique.setdefault(folder.resolve(), folder)
        ordered = tuple(unique.values())
        return cls(ordered, tuple(tuple(iter_results(root)) if root.is_dir() else () for root in ordered))

    @property
    def results(self) -> list[TaskResult]:
        return [result for results in self.by_root for result in results]

    def full(self, root: Path | None = None) -> list[TaskResult]:
        """The results that are not smoke runs (`--limit`, smoke training): of one folder, or of all."""
        chosen = self.by_root[self.roots.index(root)] if root is not None else self.results
        return [result for result in chosen if not result.smoke]

    def select(self, model: str | None = None, task: str | None = None,
               benchmark: Benchmark | None = None) -> list[TaskResult]:
        """The full results of every folder, filtered: by the model name a result records, by task name, and by
        what counts for `benchmark` (`counts_for`); a filter left None keeps everything."""
        return [result for result in self.full()
                if (model is None or (result.provenance.model is not None and result.provenance.model.name == model))
                and (task is None or result.task_name == task)
                and (benchmark is None or counts_for(result, benchmark))]

    def check_one_weights(self) -> None:
        """Each folder holds one set of weights (`check_one_weights_per_folder`), or a one-line error."""
        check_one_weights_per_folder(self.results)

    def of_model(self, model: str) -> dict[str, TaskResult]:
        """A model's full results by task, from the first folder that has it; `model [FOLDER]` picks the
        folder named FOLDER (the board's label for a model found in several), `model@revision` one revision
        (a bare name, when a folder holds several, means the installed card's current revision; without such
        a card it must name one). An unknown name suggests the closest names the folders hold."""
        label, _, folder = model.partition(" [")
        name, _, revision = label.partition("@")
        roots = [root for root in self.roots if not folder or root.name == folder.removesuffix("]")]
        present: set[str] = set()
        for root in roots:
            by_revision: dict[str, dict[str, TaskResult]] = {}
            for result in self.full(root):
                if result.provenance.model is None:
                    continue
                present.add(result.provenance.model.name)
                if result.provenance.model.name != name or (revision and result.path.parent.name != revision):
                    continue
                by_revision.setdefault(result.path.parent.name, {})[result.task_name] = result
            if by_revision:
                found = by_revision.get(current_revision(name)) if len(by_revision) > 1 else None
                if found is None and len(by_revision) > 1:
                    raise BenchError(f"model '{name}' has results of several revisions in {root} "
                                     f"({', '.join(sorted(by_revision))}); name one as {name}@REVISION")
                found = found or next(iter(by_revision.values()))
                check_one_weights_per_folder(list(found.values()))
                if not folder:
                    self._refuse_disagreement(name, revision, root, found)
                return found
        near = difflib.get_close_matches(name, sorted(present), n=3, cutoff=0.6)
        under = ", ".join(str(r) for r in roots) or f"a results folder named '{folder.removesuffix(']')}'"
        if near:
            raise BenchError(f"no results for model '{model}' under {under}. Did you mean: {', '.join(near)}?")
        raise BenchError(f"no results for model '{model}' under {under}; run `bench run -m {name}` first (or add "
                         "the folder that holds them with another --results)")


    def _refuse_disagreement(self, name: str, revision: str, root: Path, found: dict[str, TaskResult]) -> None:
        """A one-line error when another folder holds a different result of model `name` (at `revision`, when
        given) on a task `found` (from `root`) answers: which one a bare name means is the user's to say."""
        for other in self.roots:
            for result in self.full(other) if other != root else ():
                model, mine = result.provenance.model, found.get(result.task_name)
                if (mine is not None and model is not None and model.name == name
                        and (not revision or result.path.parent.name == revision) and _answer(result) != _answer(mine)):
                    raise BenchError(f"folders {root} and {other} hold different results of '{name}' on "
                                     f"{result.task_name}; name the one to use, '{name} [{root.name}]' or "
                                     f"'{name} [{other.name}]'")


def _answer(result: TaskResult) -> dict:
    """What a result says, without the fields that time its run."""
    return result.to_json(exclude={"evaluation_time": True, "sentibench": {"finished_at"}})


def current_revision(name: str) -> str | None:
    """The revision of the installed card called `name` (None: no such card): what a bare model name means
    when a results folder holds several revisions of it."""
    from sentibench.models.catalog.cards import all_cards

    card = all_cards().get(name)
    return None if card is None else card.revision


def current(results: Iterable[TaskResult]) -> tuple[list[TaskResult], list[TaskResult]]:
    """(results made under their task's current protocol version, those made under an older one); a result of
    a task that is not installed here counts as current."""
    from sentibench.tasks.registry import all_tasks

    versions = {name: task.metadata.version for name, task in all_tasks().items()}
    fresh, stale = [], []
    for result in results:
        made_by = result.provenance.task.version
        (fresh if versions.get(result.task_name, made_by) == made_by else stale).append(result)
    return fresh, stale


def counts_for(result: TaskResult, benchmark: Benchmark) -> bool:
    """Whether a result counts for the benchmark: its task is pinned there under the same protocol version and,
    where the result records it, the same dataset content."""
    pinned = benchmark.pinned(result.task_name)
    if pinned is None or result.provenance.task.version != pinned.version:
        return False
    dataset = result.provenance.dataset
    return dataset is None or dataset.content_hash in (None, pinned.dataset_sha256)
