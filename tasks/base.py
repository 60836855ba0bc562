"""What a task is: metadata that says what it measures, and `evaluate(encoder, context) -> Evaluation`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sentibench.encoders import Encoder, TransformerEncoder

Scores = dict[str, Any]  # metric name -> value; always holds "main_score"


@dataclass(frozen=True)
class TaskMetadata:
    name: str                 # registered name, e.g. "sgts-mr"
    type: str                 # "SgTS", "Retrieval", "Classification", "STS", "FewShot", ...
    dataset: str              # a sentibench dataset name (see `bench list datasets`)
    eval_splits: tuple[str, ...]
    main_score: str           # the metric the leaderboard shows, e.g. "spearman"
    description: str
    reference: str            # paper and section the protocol comes from
    groups: tuple[str, ...] = ()  # group names that select this task, e.g. ("sgts",)
    needs_training: bool = False  # fine-tunes the encoder (needs trainable torch weights)


@dataclass
class Evaluation:
    """What `Task.evaluate` returns: scores per split, plus the protocol details a reader needs
    to reproduce them (pair hashes, seeds, subset sizes, truncation counts ...)."""

    scores: dict[str, Scores]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvalContext:
    """Everything a task may need besides the encoder."""

    seed: int = 0
    batch_size: int = 32
    limit: int | None = None  # cap on evaluation examples, for smoke runs; recorded in the result
    model_name: str = "model"
    # Another model's (cached) encoder by card name, e.g. retrieval's reference model R.
    load_encoder: Callable[[str], Encoder] | None = None
    reference_model: str | None = None
    # A fresh trainable copy of the model under test, or None when it has no torch weights.
    load_trainable: Callable[[], TransformerEncoder | None] = lambda: None


class Task(ABC):
    """A benchmark task. Subclasses set `metadata` and implement `evaluate`; variants of one protocol on
    other datasets are instances with other metadata, not new classes."""

    metadata: TaskMetadata

    @abstractmethod
    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation: ...

    @property
    def name(self) -> str:
        return self.metadata.name
