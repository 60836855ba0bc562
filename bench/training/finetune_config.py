"""Hyper-parameters and metrics of few-shot fine-tuning, without torch: task registration imports them
(`sentibench.tasks.fewshot` declares its protocols with them); the training itself is `sentibench.training.finetune`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sentibench.core.errors import BenchError

METRICS = ("accuracy", "f1")  # f1: macro-F1 (MTEB's name, as the probe task)
HEADS = ("sequence-classification", "pooled-linear")
"""`sequence-classification` (the default): the backbone's own sequence-classification head (transformers'
`AutoModelForSequenceClassification` layout: dense + tanh + dropout + projection) on the unnormalised first-token
state, as both papers fine-tune (`sentibench.training.finetune.SequenceClassificationHead`). `pooled-linear`: a
fresh linear layer on the encoder's own sentence vector (its pooling and, for normalising models, its L2
normalisation): the few-shot tasks' head before their version 2, kept as the `fewshot-<protocol>-pooled-...` tasks."""


@dataclass(frozen=True)
class FineTuneConfig:
    """Hyper-parameters of one fine-tuning run."""

    learning_rate: float
    batch_size: int
    weight_decay: float
    max_epochs: int
    patience: int                 # validations in a row without improvement before stopping
    eval_steps: int | None        # validate every this many optimiser steps; None: at each epoch's end
    metric: str                   # validation metric for early stopping: "accuracy" or "f1" (macro)
    max_grad_norm: float = 1.0
    eval_batch_size: int = 64
    head: str = "sequence-classification"   # one of HEADS

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise BenchError(f"unknown metric '{self.metric}'; choose one of {', '.join(METRICS)}")
        if self.head not in HEADS:
            raise BenchError(f"unknown fine-tuning head '{self.head}'; choose one of {', '.join(HEADS)}")


def score(metric: str, gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Accuracy, or macro-F1 over the labels present in gold or predictions (scikit-learn)."""
    from sklearn.metrics import accuracy_score, f1_score

    if metric == "accuracy":
        return float(accuracy_score(gold, predicted))
    return float(f1_score(gold, predicted, average="macro"))
