"""The result file as one pydantic model: MTEB's TaskResult (`task_name`, `dataset_revision`, `scores[split] =
[subset scores]`, ...) plus the `sentibench` block recording how it was produced. The same model is what
the runner writes and what every reader gets back, validated on read.

Choices: types are strict; a main score is finite and within [-1, 1] (every sentibench main score is a
correlation, an accuracy, a cosine or a weighted precision), or null. Unknown keys are refused at the top
level and in the typed provenance blocks; a subset's scores may carry any further metric (MTEB's rule),
each a finite number or null; a task's `details` are its own and kept as they are. A field missing from
a file made by an older harness takes the value that harness meant (its default below): only what
sentibench has always written is required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from sentibench.core.seeds import SEED_LIMIT

FIRST_TASK_VERSION = 1
"""The task protocol version of results made before tasks recorded one."""

Number = Annotated[float, Field(allow_inf_nan=False)]
MainScore = Annotated[float, Field(allow_inf_nan=False, ge=-1.0, le=1.0)]
Seed = Annotated[int, Field(ge=0, lt=SEED_LIMIT)]
INTERVAL_SLACK = 1e-9
"""How far outside its recorded interval a main score may lie on read (float rounding, nothing more)."""


class Block(BaseModel):
    """A part of a result file."""

    def to_json(self, exclude: dict[str, Any] | None = None) -> dict[str, Any]:
        """Its JSON content: exactly the fields given when it was made or read (less `exclude`)."""
        return self.model_dump(mode="json", exclude_unset=True, exclude=exclude)


class Typed(Block):
    """A typed block: strict types, unknown keys refused, immutable once read."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Open(Block):
    """A block whose further keys are kept as they are (typed where a harness reads them)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)


class SubsetScores(Open):
    """One subset's scores on one split: the main score, and any further metric (a number or null)."""

    __pydantic_extra__: dict[str, Number | None] = Field(init=False)
    main_score: MainScore | None
    hf_subset: str = "default"
    languages: list[str] = Field(default_factory=lambda: ["eng-Latn"])

    def metric(self, name: str) -> float | None:
        """The value of metric `name` (`main_score` included); None when it is absent or null."""
        return self.main_score if name == "main_score" else (self.model_extra or {}).get(name)


class ModelInfo(Typed):
    """The model card's fields a result records (`models.describe`), its normalisation and weights hash."""

    name: str
    loader: str | None = None
    revision: str | None = None
    hub_id: str | None = None
    pooling: str | None = None
    max_length: int | None = None
    normalize: bool | None = None
    dtype: str = "float32"  # results without one predate `--dtype` runs
    parameters: int | None = None
    embedding_size: int | None = None
    training_data: list[str] = Field(default_factory=list)
    base: str | None = None
    recipe: dict[str, Any] = Field(default_factory=dict)
    prefix: str | None = None  # put before every text (e5's "query: "); absent when none
    weights_sha256: str | None = None


class TaskInfo(Typed):
    """The task's metadata when the result was made."""

    name: str | None = None
    type: str | None = None
    version: Annotated[int, Field(ge=1)] = FIRST_TASK_VERSION
    groups: list[str] = Field(default_factory=list)
    main_score: str | None = None
    greater_is_better: bool = True
    reference: str | None = None
    tolerance: Number | None = None
    fine_tunes: bool = False


class DatasetInfo(Typed):
    name: str
    content_hash: str
    recipe: int | None = None
    sources: list[str] = Field(default_factory=list)


class Interval(Open):
    """A main score's confidence interval; the method's own fields (level, unit, resamples...) are kept."""

    low: Number | None
    high: Number | None


class SeedRun(Open):
    """One seed of a few-shot task: its seed, its training draw and its metrics."""

    seed: Seed
    train_indices_sha256: str | None = None

    def metric(self, name: str) -> Any:
        return (self.model_extra or {}).get(name)


class Details(Open):
    """What the task records about how it scored (task-specific); the interval and seeds are typed."""

    confidence_interval: Interval | None = None
    per_seed: list[SeedRun] | None = None
    seed: Seed | None = None


class Provenance(Typed):
    """The `sentibench` block: how a result was produced."""

    model: ModelInfo | None = None
    task: TaskInfo = Field(default_factory=TaskInfo)
    main_split: str | None = None
    dataset: DatasetInfo | None = None
    trained_on_eval_dataset: bool = False
    seed: Seed | None = None
    limit: Annotated[int, Field(gt=0)] | None = None
    details: Details = Field(default_factory=Details)
    versions: dict[str, str | None] = Field(default_factory=dict)
    git_commit: str | None = None
    finished_at: str | None = None

    @property
    def from_dirty_tree(self) -> bool:
        """Made from a working tree with uncommitted changes: the recorded commit is not the exact code."""
        return str(self.git_commit).endswith("-dirty")


class TaskResult(Typed):
    """A result file; `path` is where it was read from (None for one not read from a file)."""

    task_name: Annotated[str, Field(min_length=1)]
    dataset_revision: str | None = None
    mteb_version: str | None = None
    scores: Annotated[dict[str, Annotated[list[SubsetScores], Field(min_length=1)]], Field(min_length=1)]
    evaluation_time: Annotated[float, Field(allow_inf_nan=False, ge=0)] | None = None
    kg_co2_emissions: Number | None = None
    sentibench: Provenance = Field(default_factory=Provenance)
    _path: Path | None = PrivateAttr(default=None)
    _json_sha256: bytes | None = PrivateAttr(default=None)  # of the bytes it was read from
    _files_digest: bytes | None = PrivateAttr(default=None)  # results.unit_values_file.files_digest

    @model_validator(mode="after")
    def _main_split_scored(self) -> TaskResult:
        split = self.sentibench.main_split
        if split is not None and split not in self.scores:
            raise ValueError(f"main_split '{split}' has no scores")
        return self

    @model_validator(mode="after")
    def _interval_holds_the_score(self) -> TaskResult:
        """The interval was computed when the result was written; read back, it is checked, never recomputed:
        both bounds or neither, low <= high, and the main score inside (every sentibench interval is a
        percentile bootstrap or a Student's t interval around the score it belongs to)."""
        interval, score = self.sentibench.details.confidence_interval, self.main_score()
        if interval is None or (interval.low is None and interval.high is None):
            return self
        if interval.low is None or interval.high is None:
            raise ValueError("confidence_interval has one bound: give both or neither")
        if interval.low > interval.high:
            raise ValueError(f"confidence_interval low {interval.low} is above high {interval.high}")
        if score is not None and not interval.low - INTERVAL_SLACK <= score <= interval.high + INTERVAL_SLACK:
            raise ValueError(f"main score {score} lies outside its confidence interval "
                             f"[{interval.low}, {interval.high}]")
        return self

    @property
    def path(self) -> Path:
        path = self.__pydantic_private__["_path"]  # direct: the board asks thousands of times
        if path is None:
            raise ValueError(f"result {self.task_name} was not read from a file")
        return path

    @property
    def provenance(self) -> Provenance:
        return self.sentibench

    @property
    def main_split(self) -> str:
        """The split the main score is read from: the recorded one, else the first evaluated split."""
        return self.sentibench.main_split or next(iter(self.scores))

    def main_score(self) -> float | None:
        """The main score of the main split's first subset."""
        return self.scores[self.main_split][0].main_score

    def confidence_interval(self) -> Interval | None:
        """The main score's interval as recorded when the result was written (checked on read); None for a
        result made before intervals were recorded (`bench run --overwrite-strategy always` records one)."""
        return self.sentibench.details.confidence_interval

    @property
    def smoke(self) -> bool:
        """A smoke run (`--limit`, or a model trained with `--smoke-training`): never on the leaderboard,
        never submitted."""
        model = self.sentibench.model
        return self.sentibench.limit is not None or bool(model and model.recipe.get("smoke_steps"))
