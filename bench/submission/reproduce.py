"""`bench reproduce RESULT.json`: rebuild one result from its own provenance and re-run it.

The result names its model card (name and revision), the weights' sha256, the task and its protocol
version, the dataset's content hash, the seed and the limit. Each is checked against what this harness
has now (a changed card, task version or dataset is an error naming both values, since the re-run could
not be the same experiment); the task is then re-run through `runner.run`, the same machinery as `bench
run`, into a temporary folder, by default without the embedding cache (every text is encoded again from
the weights). The two main scores agree when they differ by at most the task's `tolerance`, and every
sample hash recorded in the details (`*_hash`: pairs, lookups, folds ...) is identical. Installed library
versions that differ from the result's (torch, transformers, sentence-transformers, numpy ...) are reported
beside the verdict, which they do not change: the tolerance is what absorbs them.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.provenance import version_changes
from sentibench.data import get_dataset
from sentibench.models.catalog.cards import ModelCard
from sentibench.models.catalog.lookup import card_for
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import read_result
from sentibench.tasks.registry import all_tasks


@dataclass(frozen=True)
class Reproduction:
    task: str
    stored: float | None
    rerun: float | None
    tolerance: float
    differences: tuple[str, ...]  # hashes (weights, samples) that differ between the two runs
    retrained: tuple[str, str] | None = None  # (recorded, here) weights sha256 of a card re-trained from its recipe
    version_changes: tuple[str, ...] = ()  # `package recorded -> here` where the re-run's versions differ

    @property
    def difference(self) -> float | None:
        return None if self.stored is None or self.rerun is None else abs(self.stored - self.rerun)

    @property
    def agrees(self) -> bool:
        both_missing = self.stored is None and self.rerun is None
        close = self.difference is not None and self.difference <= self.tolerance
        return (both_missing or close) and not self.differences

    def line(self) -> str:
        diff = "n/a" if self.difference is None else f"{self.difference:.5f}"
        verdict = "agree" if self.agrees else "DISAGREE"
        extra = f"; differs: {', '.join(self.differences)}" if self.differences else ""
        if self.retrained:
            extra += (f"; weights re-trained from the card's recipe (sha256 {self.retrained[0][:12]} in the result, "
                      f"{self.retrained[1][:12]} here): the scores are compared, the weights are other bytes")
        return (f"{self.task}: stored {_fmt(self.stored)}, re-run {_fmt(self.rerun)}, |difference| {diff} "
                f"(tolerance {self.tolerance}): {verdict}{extra}")


def _fmt(value: float | None) -> str:
    return "null" if value is None else f"{value:.5f}"


def sample_hashes(details: Any, prefix: str = "") -> dict[str, Any]:
    """Every `*_hash` value in a result's details, by its dotted path."""
    found: dict[str, Any] = {}
    if isinstance(details, dict):
        for key, value in details.items():
            path = f"{prefix}{key}"
            if key.endswith("hash") and not isinstance(value, (dict, list)):
                found[path] = value
            else:
                found.update(sample_hashes(value, f"{path}."))
    elif isinstance(details, list):
        for index, value in enumerate(details):
            found.update(sample_hashes(value, f"{prefix}{index}."))
    return found


def check_against_catalog(stored: TaskResult) -> list[str]:
    """Why `stored` was not made by this harness's released task on the current data (empty: it was)."""
    provenance = stored.provenance
    task = all_tasks().get(stored.task_name)
    if task is None:
        return [f"{stored.task_name}: no such task in this harness"]
    problems = []
    made_by = provenance.task.version
    if made_by != task.metadata.version:
        problems.append(f"{stored.task_name}: made by task version {made_by}, the harness has version "
                        f"{task.metadata.version}; rerun it with `bench run`")
    recorded = provenance.dataset.content_hash if provenance.dataset else None
    current = get_dataset(task.metadata.dataset).content_hash
    if recorded != current:
        problems.append(f"{stored.task_name}: dataset '{task.metadata.dataset}' hash {str(recorded)[:12]} is not "
                        f"the current {current[:12]} (stale data); rerun it with `bench run`")
    return problems


def reproduce(stored: TaskResult, card: ModelCard | None = None, device: str | None = None,
              batch_size: int = 32, use_cache: bool = False) -> Reproduction:
    """Re-run the task of `stored` with the model (in its dtype), data, seed and limit it records; compare."""
    from sentibench.run.runner import run

    provenance = stored.provenance
    if provenance.model is None:
        raise BenchError(f"{stored.path}: records no model; it cannot be re-run")
    model = provenance.model
    card = card or _card_of(stored)
    if card.revision != model.revision:
        raise BenchError(f"{stored.path}: made by '{card.name}' revision {model.revision}, the card now "
                         f"says {card.revision}")
    problems = check_against_catalog(stored)
    if problems:
        raise BenchError(problems[0])
    task = all_tasks()[stored.task_name]
    with tempfile.TemporaryDirectory(prefix="sentibench-reproduce-") as scratch:
        report = run([card], [task], Path(scratch), overwrite="always", seed=provenance.seed or 0,
                     limit=provenance.limit, batch_size=batch_size, device=device, use_cache=use_cache,
                     dtype=model.dtype)
        if not report.written:
            raise BenchError((report.failed + report.unavailable + [f"{task.name}: nothing was re-run"])[0])
        rerun = read_result(report.written[0])
    return compare(stored, rerun, task.metadata.tolerance, from_recipe=bool(card.recipe))


def _card_of(stored: TaskResult) -> ModelCard:
    """The card that made `stored`: known here by name; else the card a verified submission merged beside it;
    else, for a Hub model, the recorded hub id at the recorded commit. A local folder without a card cannot be
    found from its result (its name holds a hash of its path): the error says how to name it."""
    from sentibench.submission.merged import merged_card

    model = stored.provenance.model
    try:
        return card_for(model.name)
    except BenchError as unknown:
        if stored.path is not None and (stored.path.parent / "card.yaml").is_file():
            return merged_card(stored.path.parent)
        if model.hub_id and model.revision:
            return card_for(f"{model.hub_id}@{model.revision}")
        raise BenchError(f"{unknown} It is no card here and its result records no hub id: give its folder with "
                         f"`bench reproduce RESULT --model PATH`, or write it a card with `bench card new "
                         f"{model.name} --from PATH`") from None


def compare(stored: TaskResult, rerun: TaskResult, tolerance: float, from_recipe: bool = False) -> Reproduction:
    """Scores within `tolerance` and every sample hash equal. The weights must be the same bytes, except for a
    trained card (`from_recipe`): its checkpoint is re-trained from the recipe where the result's own is not at
    hand, so other bytes are reported beside the verdict and the scores decide."""
    differences, retrained = [], None
    weights = tuple(r.provenance.model.weights_sha256 if r.provenance.model else None for r in (stored, rerun))
    if weights[0] is not None and weights[0] != weights[1]:
        if from_recipe and weights[1] is not None:
            retrained = (weights[0], weights[1])
        else:
            differences.append(f"weights sha256 {weights[0][:12]} != {str(weights[1])[:12]}")
    before, after = (sample_hashes(r.provenance.details.to_json()) for r in (stored, rerun))
    differences += [f"{key} {str(value)[:12]} != {str(after.get(key))[:12]}"
                    for key, value in sorted(before.items()) if after.get(key) != value]
    changes = version_changes(stored.provenance.versions, rerun.provenance.versions)
    return Reproduction(stored.task_name, stored.main_score(), rerun.main_score(), tolerance, tuple(differences),
                        retrained, tuple(changes))


def reproduce_file(path: Path, device: str | None = None, batch_size: int = 32, use_cache: bool = False,
                   model: str | None = None) -> Reproduction:
    """Reproduce the result at `path`, with the model it names or, when given, `model` (a card, folder or hub
    id: its revision must equal the recorded one, which for a folder is the digest of its weight files)."""
    return reproduce(read_result(path), card_for(model) if model else None, device=device, batch_size=batch_size,
                     use_cache=use_cache)
