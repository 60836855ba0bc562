"""A trained model's training curve beside its results: `<root>/<model>/<revision>/training.json`.

`bench run` records it from the checkpoint it evaluates (the `training` block the one trainer reports:
`loss_curve`, window means of the loss and its parts by step, and `history`, the validation score by step),
so the results folder, and the site rendered from it, show how the weights they score were reached. It
records the weights' sha256, and is read back through the same strict checks as a result.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError, field_validator

from sentibench.core.errors import BenchError, one_line
from sentibench.core.io import JSON_MAX_BYTES, atomic_write_json, read_regular
from sentibench.results.schema import Typed

TRAINING_FILE = "training.json"
MAX_POINTS = 100_000
Curve = Annotated[list[dict[str, float | int]], Field(max_length=MAX_POINTS)]


class TrainingLog(Typed):
    """How a checkpoint was trained: its loss and validation curves by step, and which step was kept."""

    weights_sha256: str | None = None
    method: str | None = None
    best_step: int | None = None
    steps: int | None = None
    seconds: float | int | None = None
    loss_curve: Curve = Field(default_factory=list)
    history: Curve = Field(default_factory=list)

    @field_validator("loss_curve", "history")
    @classmethod
    def _finite_points_with_steps(cls, points: list[dict[str, float | int]]) -> list[dict[str, float | int]]:
        for point in points:
            if "step" not in point or len(point) < 2:
                raise ValueError("every point needs a 'step' and at least one value")
            if not all(isinstance(v, int) or math.isfinite(v) for v in point.values()):
                raise ValueError("a curve value is not finite")
        return points


def from_trace(trace: dict[str, Any], weights_sha256: str | None) -> TrainingLog:
    """The record of a checkpoint's training trace (`models.trained.training_trace`) for the results made with
    `weights_sha256`. Points without an integer step, values that are not finite numbers, and points left
    with no value are dropped (a curve, not a record of every field)."""

    def curve(points: Any) -> list[dict[str, float | int]]:
        kept = []
        for point in points if isinstance(points, list) else []:
            if not isinstance(point, dict) or not isinstance(point.get("step"), int):
                continue
            values = {k: v for k, v in point.items() if isinstance(k, str) and isinstance(v, (int, float))
                      and not isinstance(v, bool) and math.isfinite(v)}
            if len(values) >= 2:
                kept.append(values)
        return kept[:MAX_POINTS]

    def number(value: Any, kind: type | tuple[type, ...]) -> Any:
        return value if isinstance(value, kind) and not isinstance(value, bool) else None

    return TrainingLog(weights_sha256=weights_sha256, method=number(trace.get("method"), str),
                       best_step=number(trace.get("best_step"), int), steps=number(trace.get("steps"), int),
                       seconds=number(trace.get("seconds"), (int, float)), loss_curve=curve(trace.get("loss_curve")),
                       history=curve(trace.get("history")))


def write_training_log(folder: Path, log: TrainingLog) -> Path:
    path = Path(folder) / TRAINING_FILE
    atomic_write_json(path, log.to_json())
    return path


def read_training_log(folder: Path) -> TrainingLog | None:
    """The folder's training log, validated, or None when it has none; a bad file, or one over `JSON_MAX_BYTES`
    (unread), is a one-line error."""
    path = Path(folder) / TRAINING_FILE
    if not path.is_file():
        return None
    try:
        return TrainingLog.model_validate(json.loads(read_regular(
            path, JSON_MAX_BYTES, "training log", "; delete it or re-run the model with --overwrite-strategy always")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BenchError(f"training log {path} cannot be read ({error})") from None
    except ValidationError as error:
        raise BenchError(f"training log {path} is not valid ({one_line(error)}); delete it or re-run the "
                         "model with --overwrite-strategy always") from None
