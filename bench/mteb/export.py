"""`bench export mteb`: our results as a tree that `mteb.ResultCache(output)` loads with its defaults.

Layout written: `<output>/results/<org>__<name>/<revision>/<Task>.json` plus `model_meta.json` in each
revision folder (`meta.py` says how name and revision are chosen). Each file is an MTEB `TaskResult`:
- a task MTEB also has (`twins.py`) takes MTEB's name and only MTEB's eval split; our other splits (STS-B's
  dev) move to the file's `sentibench.other_splits`, so mteb's split averages match its own results;
- every other task with an MTEB task type keeps its sentibench name and splits (for task types and
  aggregation mteb needs our tasks registered: `sentibench.mteb.register_with_mteb()`, see docs/mteb.md);
  a task with none (the geometry `align-*` tasks, a task no installed family builds) is skipped, since
  whatever mteb aggregates would fail on it;
- `dataset_revision` is our dataset's content hash; a twin's file also names MTEB's dataset and revision
  and states how our data differs (`sentibench.mteb_twin`);
- `mteb_version` is the installed mteb's, whose TaskResult format the file follows (the scores were
  computed by sentibench: the full provenance stays in the `sentibench` block, which mteb ignores).
Smoke runs (`--limit`) are not exported. The committed results layout is not changed.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import new_folder_beside
from sentibench.embed.mteb_model import require_mteb
from sentibench.models.catalog.cards import ModelCard, all_cards
from sentibench.mteb.meta import model_meta, mteb_model_name, mteb_revision
from sentibench.mteb.twins import TWINS
from sentibench.results.schema import ModelInfo, TaskResult
from sentibench.results.store import ResultStore


@dataclass
class ExportReport:
    written: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # smoke, non-float32, no MTEB task type, a twin without its split
    models: set[tuple[str, str]] = field(default_factory=set)  # (MTEB name, revision)


def card_from_provenance(model: ModelInfo) -> ModelCard:
    """The card a result was made with, from the result's own record of the model (its typed provenance):
    the current card when one of that name still has that revision (it carries the license, citation and
    hub revision), else a card rebuilt from the record alone (a local folder, an in-process object, a
    retired card, an edited revision); no card file need exist."""
    current = all_cards().get(model.name)
    if current is not None and current.revision == model.revision:
        return current
    kept = set(ModelCard.__dataclass_fields__) & set(ModelInfo.model_fields)
    recorded = {key: value for key, value in model.model_dump(include=kept).items() if value is not None}
    return ModelCard(**{**recorded, "loader": model.loader or "unknown", "revision": model.revision or "unknown",
                        "description": "rebuilt from a result's provenance"})


def _has_mteb_type(task_name: str) -> bool:
    from sentibench.tasks.registry import all_tasks

    task = all_tasks().get(task_name)
    return task_name in TWINS or (task is not None and task.metadata.mteb_type is not None)


def mteb_task_result(stored: TaskResult, mteb_version: str) -> dict[str, Any] | None:
    """The TaskResult dictionary mteb reads for one of our result files (None: nothing MTEB could score or
    type)."""
    if not _has_mteb_type(stored.task_name):
        return None
    provenance = stored.provenance.to_json()
    scores = {split: [entry.to_json() for entry in entries] for split, entries in stored.scores.items()}
    twin = TWINS.get(stored.task_name)
    if twin is not None:
        if twin.split not in scores:
            return None
        provenance["other_splits"] = {split: values for split, values in scores.items() if split != twin.split}
        provenance["mteb_twin"] = {"sentibench_task": stored.task_name, "difference": twin.difference,
                                   "mteb_dataset": dict(_mteb_task(twin.name).metadata.dataset)}
        scores = {twin.split: scores[twin.split]}
    return {"dataset_revision": stored.dataset_revision, "task_name": twin.name if twin else stored.task_name,
            "mteb_version": mteb_version, "scores": scores, "evaluation_time": stored.evaluation_time,
            "kg_co2_emissions": None, "sentibench": provenance}


def _mteb_task(name: str):
    import mteb

    return mteb.get_task(name)


def _publish(output: Path, files: dict[Path, str]) -> None:
    """Write `files` (paths under `output`) into a staging folder beside `output`, then put them in place."""
    output.parent.mkdir(parents=True, exist_ok=True)
    staged = new_folder_beside(output)
    try:
        for path, text in files.items():
            inside = staged / path.relative_to(output)
            inside.parent.mkdir(parents=True, exist_ok=True)
            inside.write_text(text, encoding="utf-8")
        if not output.exists():
            staged.rename(output)
            return
        for path in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged / path.relative_to(output), path)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def export_results(results: Path, output: Path) -> ExportReport:
    """Write every non-smoke result under `results` as an MTEB results tree under `output/results`: all of
    it or, when any result cannot be exported, nothing: every file is made in memory, then written into a folder
    staged beside `output`, which is renamed into place (a new `output`) or whose files are (an existing one); a
    full disk fails while staging and leaves `output` as it was. A results folder mixing two weights is
    refused, as by the leaderboard."""
    require_mteb()
    results, output = Path(results), Path(output)
    if not results.is_dir():
        raise BenchError(f"no results folder '{results}'")
    if output.resolve() == results.resolve() or results.resolve() in output.resolve().parents:
        raise BenchError(f"export to a folder outside '{results}' (the sentibench results stay as they are)")
    mteb_version = metadata.version("mteb")
    report, files, metas = ExportReport(), {}, {}
    store = ResultStore.load(results)
    store.check_one_weights()
    stored_results = store.results
    for stored in stored_results:
        model = stored.provenance.model
        if stored.smoke or model is None or model.dtype != "float32":  # MTEB's are float32
            report.skipped.append(stored.path)
            continue
        card = card_from_provenance(model)
        exported = mteb_task_result(stored, mteb_version)
        if exported is None:
            report.skipped.append(stored.path)
            continue
        name, revision = mteb_model_name(card), mteb_revision(card)
        folder = output / "results" / name.replace("/", "__").replace(" ", "_") / revision
        target = folder / f"{exported['task_name']}.json"
        if target in files:
            raise BenchError(f"{stored.path} and another result both export to {target}")
        files[target] = json.dumps(exported, indent=2, sort_keys=True, allow_nan=False) + "\n"
        report.models.add((name, revision))
        metas.setdefault(folder, card)
    for folder, card in metas.items():
        meta = model_meta(card).to_dict()
        meta["training_datasets"] = sorted(meta["training_datasets"] or []) or None  # a set: sorted, same bytes
        files[folder / "model_meta.json"] = json.dumps(meta, default=str, indent=2, sort_keys=True) + "\n"
    _publish(output, files)
    report.written = [path for path in files if path.name != "model_meta.json"]
    return report
