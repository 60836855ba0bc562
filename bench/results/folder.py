"""The results folder `bench run` writes, owned here: where a result lives (`path_for`), whether it is done
(`is_done`), and `save`: the unit values first, the JSON last, each atomic (a result never points at missing
values), with the training log of the checkpoint that made a folder's first result. A folder holds one set of
weights (`keep_one_weights`) and an item is evaluated by one run at a time (`claim`, `results.item_locks`);
`load` and `select` read it back (`ResultStore`). A run asks two questions and hands over results: `plan` (what
is left to run of a model, and where each result goes) and `claim` (is this item still this run's to
evaluate), then `save`."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from sentibench.core.errors import BenchError
from sentibench.core.provenance import refuse_dirty_committed_results
from sentibench.results.item_locks import ItemLocks
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import (
    NOT_RESULTS,
    check_one_weights_per_folder,
    describe_weights,
    read_result,
    recorded_weights,
    result_path,
    results_folder,
    weights_by_task,
    write_result,
)
from sentibench.results.training_log import from_trace, write_training_log
from sentibench.results.unit_values_file import save_units, units_path

if TYPE_CHECKING:
    from sentibench.evaluation.units import UnitValues
    from sentibench.results.store import ResultStore
    from sentibench.tasks.base import Task
    from sentibench.tasks.benchmarks import Benchmark

OverwriteStrategy = Literal["always", "never", "only-missing"]


class ResultsFolder:
    """One output folder; a context manager releasing the item locks it took."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._locks = ItemLocks()
        self._kept: dict[Path, dict[str, list[str]]] = {}  # revision folder -> weights kept there -> their tasks
        self._traces: dict[Path, dict] = {}  # revision folder -> how its checkpoint was trained (not yet logged)

    def check_writable(self) -> None:
        """Create the folder, or a one-line error when it cannot be written."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=self.root).close()
        except OSError as error:
            raise BenchError(f"output folder {self.root} is not a writable folder ({error.strerror})") from None

    def path_for(self, model: str, revision: str, task: str | None = None, dtype: str = "float32") -> Path:
        """The result file of `model` at `revision` on `task` (`task_result.result_path`); without a task, the
        folder of that revision."""
        if task is None:
            return results_folder(self.root, model, revision, dtype)
        return result_path(self.root, model, revision, task, dtype)

    @staticmethod
    def is_done(path: Path, task: Task, limit: int | None, strategy: OverwriteStrategy) -> bool:
        """Whether the result at `path` stands: under "only-missing", it scores every split of the task's current
        version under the same `limit`; a file that does not parse is an error, never silently overwritten."""
        if strategy == "always" or not path.exists():
            return False
        if strategy == "never":
            return True
        stored = read_result(path)
        return (set(task.metadata.eval_splits) <= set(stored.scores) and stored.provenance.limit == limit
                and stored.provenance.task.version == task.metadata.version)

    def keep_one_weights(self, folder: Path, replaced: set[Path]) -> None:
        """Before anything in revision `folder` counts as done or is written: the results kept there (all but
        `replaced`) must record one set of weights, and every result saved there later must match them
        (`check_one_weights_per_folder`)."""
        kept = [read_result(path) for path in sorted(folder.glob("*.json"))
                if path not in replaced and path.name not in NOT_RESULTS]
        check_one_weights_per_folder(kept)
        self._kept[folder] = weights_by_task(kept)

    def plan(self, model: str, revision: str, dtype: str, tasks: Sequence[Task], limit: int | None,
             strategy: OverwriteStrategy) -> tuple[list[tuple[Task, Path]], list[Path]]:
        """Before a run of `model` at `revision` (in `dtype`): each task still to run with the path its result
        goes to, and the paths of the results that stand (`is_done`). The results kept in the revision folder
        must record one set of weights (`keep_one_weights`), and when anything is to run, the committed results
        must be clean (`core.provenance.refuse_dirty_committed_results`)."""
        to_run, done = [], []
        for task in tasks:
            path = self.path_for(model, revision, task.name, dtype)
            if self.is_done(path, task, limit, strategy):
                done.append(path)
            else:
                to_run.append((task, path))
        self.keep_one_weights(self.path_for(model, revision, dtype=dtype), {path for _, path in to_run})
        if to_run:
            refuse_dirty_committed_results(self.root)
        return to_run, done

    def log_training(self, model: str, revision: str, dtype: str, trace: dict) -> None:
        """Save `trace` (how the checkpoint was trained) as the revision folder's training log, with its first
        result."""
        self._traces[self.path_for(model, revision, dtype=dtype)] = trace

    def claim(self, path: Path, task: Task, limit: int | None, strategy: OverwriteStrategy
              ) -> Literal["claimed", "in flight", "done"]:
        """Lock the item whose result is `path` for this run: "in flight" when another run holds it, "done" when
        its result was finished since this run planned it (the lock given back), else "claimed"."""
        if not self._locks.take(path):
            return "in flight"
        if self.is_done(path, task, limit, strategy):
            self._locks.release(path)
            return "done"
        return "claimed"

    def save(self, path: Path, result: TaskResult, units: UnitValues | None) -> None:
        """Write `result` at `path` with its unit values (an older sidecar removed when it has none), after the
        one-weights check, and the folder's training log with its first result."""
        weights = recorded_weights(result)
        others = {w: tasks for w, tasks in self._kept.get(path.parent, {}).items() if w != weights}
        if weights is not None and others:
            raise BenchError(f"{path.parent} holds results of other weights, {describe_weights(others)}, and "
                             f"this run's checkpoint has {weights[:12]} (re-trained under the same revision?): "
                             "nothing written there; re-run every task of the model with --overwrite-strategy "
                             "always, or give the card a new revision")
        if units is not None:
            save_units(units_path(path), units)
        else:
            units_path(path).unlink(missing_ok=True)
        write_result(path, result)
        if (trace := self._traces.pop(path.parent, None)) is not None:
            write_training_log(path.parent, from_trace(trace, weights))

    def load(self) -> ResultStore:
        """Every result under the folder, read and checked once."""
        from sentibench.results.store import ResultStore  # the benchmarks: only where results are read back

        return ResultStore.load(self.root)

    def select(self, model: str | None = None, task: str | None = None,
               benchmark: Benchmark | None = None) -> list[TaskResult]:
        """The folder's full results, filtered (`ResultStore.select`)."""
        return self.load().select(model, task, benchmark)

    def __enter__(self) -> ResultsFolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._locks.__exit__(kind, error, trace)
