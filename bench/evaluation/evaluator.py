"""The one shape every evaluator has (docs/contributing.md, "Adding an evaluator"), in the spirit of mteb's
`Evaluator`: an evaluator is built from one split's data and its protocol's settings (a seed, a cap, a
design), holds the whole protocol of its task family in one place, and is called with the encoder:

    scored = SgTSEvaluator(texts, labels, seed=0)(encoder, batch_size=32)
    scored.scores      # metric name -> value (None where undefined), the task's main score among them
    scored.details     # what a reader needs to reproduce the score (hashes of the units, seeds, sizes)
    scored.units       # the main score as one value per evaluation unit, for its interval; None without

A task (`sentibench.tasks`) knows its metadata and where its data is; it builds the evaluator and files what it
returns under the split (`Evaluation`); `Task.run` turns the units into the recorded interval. The metric
functions an evaluator composes (`metrics`, `spearman`, `classifiers`, `bootstrap`) are shared libraries, not
evaluators. Trainers that select checkpoints on a validation score call the same evaluator with
`intervals=False`, so a checkpoint is chosen by exactly the protocol the benchmark scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sentibench.embed.encoders import Encoder
from sentibench.evaluation.units import UnitValues


@dataclass
class Scored:
    """What an evaluator returns for one split."""

    scores: dict[str, float | None]
    details: dict[str, Any] = field(default_factory=dict)
    units: UnitValues | None = None


class Evaluator(Protocol):
    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        """Score `encoder` on the evaluator's split; `intervals=False` skips the unit values (and their cost)."""
        ...
