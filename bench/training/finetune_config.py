"""Hyper-parameters and metrics of few-shot fine-tuning, without torch: task registration imports them
(`sentibench.tasks.fewshot` declares its protocols with them); the training itself is `sentibench.training.finetune`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sentibench.core.errors import BenchError

METRICS = ("accuracy", "f1")  # f1: macro-F1 (MTEB's name, as the probe task)
HEADS = ("sequence-classification", "pooled-linear", "pooled-sequence-classification")
"""`sequence-classification` (FineTuneConfig's default, the head of task version 2): the backbone's own
sequence-classification head (transformers' `AutoModelForSequenceClassification` layout: dense + tanh + dropout +
projection) on the unnormalised first-token state, as both papers' code fine-tunes
(`sentibench.training.finetune.SequenceClassificationHead`). `pooled-linear` (version 1, the
`fewshot-<protocol>-pooled-...` tasks): a fresh linear layer on the encoder's own sentence vector (its pooling and,
for normalising models, its L2 normalisation). `pooled-sequence-classification` (version 3, the `-v3-` tasks): the
RoBERTa layout of the sequence-classification head (dropout, fresh dense + tanh, dropout, fresh projection) on that
same sentence vector, the one the frozen twin reads (`sentibench.training.finetune.PooledSequenceClassifier`)."""
SELECTIONS = ("metric", "loss")
"""Which validated state is kept and what early stopping watches: `metric` (the config's `metric`, higher is
better; task versions 1 and 2) or `loss` (mean validation cross-entropy, lower is better: the transformers
`Trainer` without `metric_for_best_model`, as the SentiCSE authors' few-shot script runs it; version 3)."""


@dataclass(frozen=True)
class FineTuneConfig:
    """Hyper-parameters of one fine-tuning run."""

    learning_rate: float
    batch_size: int
    weight_decay: float
    max_epochs: int
    patience: int                 # validations in a row without improvement before stopping
    eval_steps: int | None        # validate every this many optimiser steps; None: at each epoch's end
    metric: str                   # the score: "accuracy" or "f1" (macro); selects the state when select_by="metric"
    max_grad_norm: float = 1.0
    eval_batch_size: int = 64
    head: str = "sequence-classification"   # one of HEADS
    select_by: str = "metric"     # one of SELECTIONS
    max_length: int | None = None  # truncation in tokens; None: the model card's max length

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise BenchError(f"unknown metric '{self.metric}'; choose one of {', '.join(METRICS)}")
        if self.head not in HEADS:
            raise BenchError(f"unknown fine-tuning head '{self.head}'; choose one of {', '.join(HEADS)}")
        if self.select_by not in SELECTIONS:
            raise BenchError(f"unknown selection '{self.select_by}'; choose one of {', '.join(SELECTIONS)}")
        if self.max_length is not None and self.max_length < 2:
            raise BenchError(f"max_length must be at least 2 tokens, got {self.max_length}")


def score(metric: str, gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Accuracy, or macro-F1 over the labels present in gold or predictions (scikit-learn)."""
    from sklearn.metrics import accuracy_score, f1_score

    if metric == "accuracy":
        return float(accuracy_score(gold, predicted))
    return float(f1_score(gold, predicted, average="macro"))
