"""Result files: one JSON per (model, task) in MTEB's TaskResult layout and path convention
(`<root>/<model>/<revision>/<task>.json`), plus a `sentibench` block recording how it was produced.
A run in an inference dtype other than float32 files its results under `<revision>-<dtype>`, beside the
float32 ones, never over them."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_json
from sentibench.evaluation.bootstrap import t_interval
from sentibench.models.card_schema import validate_result


def safe_segment(text: str) -> str:
    """A path segment from a model name or revision (MTEB replaces '/' with '__'); never `.` or `..`, and
    never hidden (no leading dot), so a result always lands inside its model's folder."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text.replace("/", "__")).lstrip(".").strip("-") or "no_revision_available"


def result_path(root: Path, model: str, revision: str, task: str, dtype: str = "float32") -> Path:
    folder = revision if dtype == "float32" else f"{revision}-{dtype}"
    return Path(root) / safe_segment(model) / safe_segment(folder) / f"{task}.json"


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
                evaluation_time: float, provenance: dict[str, Any]) -> dict[str, Any]:
    """The MTEB TaskResult dictionary: scores[split] is a list with one entry per subset ("default")."""
    return without_nan({
        "task_name": task_name,
        "dataset_revision": dataset_revision,
        "mteb_version": None,
        "scores": {split: [{**values, "hf_subset": "default", "languages": ["eng-Latn"]}]
                   for split, values in scores.items()},
        "evaluation_time": round(evaluation_time, 3),
        "kg_co2_emissions": None,
        "sentibench": provenance,
    })


def write_result(path: Path, result: dict[str, Any]) -> None:
    atomic_write_json(path, result)


@dataclass(frozen=True)
class StoredResult:
    path: Path
    data: dict[str, Any]

    @property
    def task_name(self) -> str:
        return self.data["task_name"]

    @property
    def provenance(self) -> dict[str, Any]:
        return self.data.get("sentibench", {})

    def main_score(self) -> float | None:
        """The main score of the first evaluated split (the task's primary split)."""
        split = self.provenance.get("main_split") or next(iter(self.data["scores"]))
        return self.data["scores"][split][0].get("main_score")


    def confidence_interval(self) -> dict | None:
        """The main score's interval: the one recorded, else (results made before intervals were recorded)
        Student's t over the per-seed scores the result holds, computed now; None when neither exists."""
        details = self.provenance.get("details", {})
        if "confidence_interval" in details:
            return details["confidence_interval"]
        per_seed, metric = details.get("per_seed"), self.provenance.get("task", {}).get("main_score")
        if per_seed and metric and all(metric in s for s in per_seed):
            return {**t_interval([s[metric] for s in per_seed]), "computed_from": "per_seed, when read"}
        return None


def read_result(path: Path) -> StoredResult:
    """A parsed result file, or a one-line error naming the file and what is wrong with it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BenchError(f"result file {path} does not parse ({error.msg if hasattr(error, 'msg') else error}); "
                         "delete it or rerun with --overwrite-strategy always") from None
    except OSError as error:
        raise BenchError(f"result file {path} cannot be read ({error.strerror})") from None
    validate_result(data, path)
    return StoredResult(Path(path), data)


VERIFICATION_FILE = "verification.json"  # `bench verify`'s record beside a submitted model's results
NOT_RESULTS = ("model_meta.json", VERIFICATION_FILE)  # MTEB's model record; the verification record


def iter_results(root: Path) -> list[StoredResult]:
    return [read_result(p) for p in sorted(Path(root).rglob("*.json")) if p.name not in NOT_RESULTS]


def comparable_results(root: Path) -> dict[str, dict[str, Any]]:
    """Every result under `root` by relative path, without the fields that time its run (`evaluation_time`,
    `finished_at`): what two runs of the same work, on any executor, must agree on exactly."""
    out = {}
    for stored in iter_results(root):
        data = {k: v for k, v in stored.data.items() if k != "evaluation_time"}
        data["sentibench"] = {k: v for k, v in stored.provenance.items() if k != "finished_at"}
        out[str(stored.path.relative_to(root))] = data
    return out
