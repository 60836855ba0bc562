"""A fresh result's `sentibench` block, built as the typed `schema.Provenance` from what made it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sentibench.core.errors import BenchError, one_line
from sentibench.core.provenance import git_commit, versions
from sentibench.models import describe
from sentibench.results.schema import DatasetInfo, Details, ModelInfo, Provenance, TaskInfo
from sentibench.results.task_result import without_nan

if TYPE_CHECKING:
    from sentibench.data.store import PreparedDataset
    from sentibench.models.catalog.cards import ModelCard
    from sentibench.tasks.base import EvalContext, Task


def provenance_of(card: ModelCard, task: Task, dataset: PreparedDataset, context: EvalContext,
                  details: dict[str, Any], normalize: bool, weights_sha256: str | None) -> Provenance:
    """How `task` scored `card` on `dataset` under `context`, with the task's `details`; a value the schema
    refuses is one line naming the task."""
    meta = task.metadata
    try:
        return Provenance(
            model=ModelInfo(**describe(card) | {"normalize": normalize, "weights_sha256": weights_sha256}),
            task=TaskInfo(name=task.name, type=meta.type, version=meta.version, groups=list(meta.groups),
                          main_score=meta.main_score, greater_is_better=meta.greater_is_better(),
                          reference=meta.reference, tolerance=meta.tolerance, fine_tunes=meta.fine_tunes),
            main_split=meta.eval_splits[0],
            dataset=DatasetInfo(name=dataset.spec.name, content_hash=dataset.content_hash,
                                recipe=dataset.spec.recipe, sources=list(dataset.sources)),
            trained_on_eval_dataset=meta.dataset in card.training_data,
            seed=context.seed, limit=context.limit,
            details=Details.model_validate(without_nan(details)),
            versions=versions(), git_commit=git_commit(),
            finished_at=datetime.now(UTC).isoformat(timespec="seconds"))
    except ValidationError as error:
        raise BenchError(f"task {task.name} produced an invalid result ({one_line(error)})") from None
