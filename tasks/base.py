"""What a task is: validated metadata that says what it measures, and `evaluate(encoder, context)`.

Modelled on MTEB's `TaskMetadata`: a record validated when the task is declared (a closed set of task
types, splits, a main score, which direction is better for each metric, a protocol version). The base
class, not each task, owns the contract around `evaluate`: every declared split must be scored, the main
score must be among its metrics, and `main_score` is set from the metadata. A task's `version` is recorded
in every result and bumped whenever its protocol changes (pairs, grids, caps ...), so results made under
an older protocol are never mixed with new ones (`bench run` recomputes them). Its `tolerance` is how far
a re-run's main score may be from a stored one (`bench reproduce`, `bench verify`): re-running the same
code, data, weights and seed differs only by floating-point order (batch padding, BLAS threads), which
moves a rank correlation or a held-out accuracy by well under 0.005; fine-tuning tasks amplify that
through training and state 0.02. Which tasks a submission must score is not the task's to say: a benchmark
lists its tasks (`tasks/benchmarks.py`). Its MTEB task type follows from its `type`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from annotated_types import Ge, Interval, MinLen, Predicate

from sentibench.core.errors import BenchError
from sentibench.core.executors import Executor, LocalExecutor
from sentibench.core.records import Record, rule
from sentibench.embed.encoders import Encoder

if TYPE_CHECKING:  # numpy and the evaluators load when a task runs, not when tasks are listed
    from sentibench.embed.torch_encoders import TransformerEncoder
    from sentibench.evaluation.units import UnitValues

Scores = dict[str, Any]  # metric name -> value; the base class adds "main_score"

TASK_TYPES: dict[str, str | None] = {
    "SgTS": "STS", "Retrieval": "Retrieval", "Classification": "Classification",
    "PairClassification": "PairClassification", "STS": "STS", "FewShot": "Classification", "Geometry": None,
    "Clustering": "Clustering",
}
"""The closed set of task types (MTEB-style; the leaderboard groups and aggregates by them), each with the
MTEB task type it is scored as (SgTS like STS: cosine against a graded gold), or None when no MTEB type fits."""
TASK_NAME = re.compile(r"[a-z0-9][a-z0-9.-]*")
Text = Annotated[str, MinLen(1)]
"""A string that says something (not empty)."""


@dataclass(frozen=True)
class TaskMetadata(Record):
    """What a task measures, validated when it is declared (`core.records`): a refusal is one line."""

    KIND: ClassVar[str] = "task"
    PROBLEMS: ClassVar[dict[str, str]] = {
        "name": "name must be lower-case letters, digits, '-' and '.'",
        "type": f"type '{{input}}' is not one of {', '.join(TASK_TYPES)}",
        "eval_splits": "eval_splits must name at least one split (a tuple of split names)",
        "main_score": "main_score must name a metric",
        "description": "description and reference are required", "reference": "description and reference are required",
        "version": "version must be a positive integer",
        "tolerance": "tolerance must be in [0, 1)",
    }

    name: Annotated[str, Predicate(TASK_NAME.fullmatch)]  # registered name, e.g. "sgts-mr"
    type: Literal[tuple(TASK_TYPES)]  # one of TASK_TYPES
    dataset: str              # a sentibench dataset name (see `bench list datasets`)
    eval_splits: Annotated[tuple[Text, ...], MinLen(1)]
    main_score: Text          # the metric the leaderboard shows, e.g. "cosine_spearman"
    description: Text
    reference: Text           # paper and section the protocol comes from
    groups: tuple[str, ...] = ()  # group names that select this task, e.g. ("sgts",)
    version: Annotated[int, Ge(1)] = 1  # bumped whenever the protocol changes; recorded in every result
    lower_is_better: tuple[str, ...] = ()  # metrics where smaller is better (all others: greater is better)
    fine_tunes: bool = False  # trains the model under test: its own executor unit, optional in a submission
    uses_reference: bool = False  # also scores with a reference model R (retrieval's S): the runner opens R first
    tolerance: Annotated[float, Interval(ge=0, lt=1)] = 0.005  # |re-run - stored| allowed (`bench reproduce`, `verify`)

    @rule
    def _a_metric(self) -> Iterator[str]:
        if self.main_score == "main_score":
            yield "main_score must name a metric (the base class sets `main_score`)"

    @property
    def mteb_type(self) -> str | None:
        """The MTEB task type this task is scored as (None: it has no MTEB form)."""
        return TASK_TYPES[self.type]

    def greater_is_better(self, metric: str | None = None) -> bool:
        """Whether a larger value of `metric` (default: the main score) is better."""
        return (metric or self.main_score) not in self.lower_is_better


@dataclass
class Evaluation:
    """What `Task.evaluate` returns: scores per split, plus the protocol details a reader needs
    to reproduce them (pair hashes, seeds, subset sizes, truncation counts ...)."""

    scores: dict[str, Scores]
    details: dict[str, Any] = field(default_factory=dict)
    # The main score as one value per evaluation unit (sentibench.evaluation.units): its bootstrap interval goes
    # to details["confidence_interval"], the values beside the result JSON for paired comparisons.
    units: UnitValues | None = None


@dataclass
class EvalContext:
    """Everything a task may need besides the encoder."""

    seed: int = 0
    batch_size: int = 32
    limit: int | None = None  # cap on evaluation examples, for smoke runs; recorded in the result
    model_name: str = "model"
    # The reference model R (a fine-tuned card's base) and its encoder, opened by the caller before evaluation
    # for a task whose metadata `uses_reference`; None: R is the model under test itself.
    reference_model: str | None = None
    reference: Encoder | None = None
    # A fresh trainable copy of the model under test, or None when it has no torch weights.
    load_trainable: Callable[[], TransformerEncoder | None] = lambda: None
    # Where independent pieces of a task (few-shot seeds) run: this process, or the run's Ray cluster.
    executor: Executor = field(default_factory=LocalExecutor)
    intervals: bool = True  # compute unit values and confidence intervals (off: `bench run --no-ci`)


class Task(ABC):
    """A benchmark task. Subclasses set `metadata` and implement `evaluate` (the metrics of every declared
    split); `run` checks the contract and sets the main score. Variants of one protocol on other datasets
    are instances with other metadata, not new classes."""

    metadata: TaskMetadata

    @abstractmethod
    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation: ...

    def run(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        """`evaluate`, then the contract: each declared split scored, the main score present and copied
        to `main_score`; the main score's confidence interval from the unit values, when the task gives them."""
        evaluation = self.evaluate(encoder, context)
        meta = self.metadata
        for split in meta.eval_splits:
            scores = evaluation.scores.get(split)
            if scores is None or meta.main_score not in scores:
                raise BenchError(f"task '{meta.name}' produced no '{meta.main_score}' for split '{split}' "
                                 "(a bug in the task: please report it)")
            scores["main_score"] = scores[meta.main_score]
        if evaluation.units is not None:
            from sentibench.evaluation.bootstrap import describe

            evaluation.details["confidence_interval"] = describe(evaluation.units)
        return evaluation

    def chance_level(self) -> float:
        """The expected main score of a model that ignores the text, on this task's own evaluation data (the
        labels only, read as `evaluate` reads them under the default context: seed 0, no limit), on the main
        score's scale. Every task a benchmark axis can hold declares it; what chance means is the family's
        (its override's docstring; docs/benchmarks.md, "Chance levels"): 0 for a correlation, the majority
        rate for an accuracy, 1/C for a macro-F1, a random neighbour's or random ranking's expected score for
        retrieval, a random partition's V-measure for clustering; NaN for a diagnostic that is never averaged."""
        raise NotImplementedError(f"task '{self.name}' declares no chance level (its family does not implement "
                                  "`chance_level`)")

    @property
    def name(self) -> str:
        return self.metadata.name
