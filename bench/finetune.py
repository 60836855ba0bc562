"""Full fine-tuning of a sentence encoder with a linear classification head on its pooled output.

The loop the few-shot protocols share (senticse.txt §4.4 + Table 12; infodcl.txt D.3). Where the papers
say nothing, it follows the Hugging Face `Trainer` defaults their code was built on (documented in
docs/fewshot.md): AdamW with weight decay on every parameter except biases and norm weights (1-D tensors),
linear learning-rate decay to 0 over the maximum number of steps without warm-up, gradient clipping at
norm 1.0, a fresh shuffle of the training set each epoch, the last partial batch kept. Validation runs
every `eval_steps` optimiser steps (or at the end of each epoch) and once more at the last step if that
step was not a validation step; a validation counts as an improvement only when its score is strictly
higher than the best so far (so ties keep the earlier state); training stops after `patience`
validations in a row without improvement, and the best state is restored.

Cost: each fixed set is tokenised once per run (training rows unpadded, padded per batch; validation
and test rows in length-sorted, pre-padded batches), evaluation runs under `torch.inference_mode()`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score
from transformers import get_linear_schedule_with_warmup

from sentibench.encoders import TransformerEncoder, length_sorted_batches
from sentibench.errors import BenchError

METRICS = ("accuracy", "f1")  # f1: macro-F1 (MTEB's name, as the probe task)


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

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise BenchError(f"unknown metric '{self.metric}'; choose one of {', '.join(METRICS)}")


@dataclass
class FineTuneRun:
    """What happened in one run: the restored state's validation score and step, and the whole trace."""

    best_score: float
    best_step: int
    steps: int
    epochs: int
    stopped_early: bool
    history: list[tuple[int, float]] = field(default_factory=list)  # (step, validation score)


def score(metric: str, gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Accuracy, or macro-F1 over the labels present in gold or predictions (scikit-learn)."""
    if metric == "accuracy":
        return float(accuracy_score(gold, predicted))
    return float(f1_score(gold, predicted, average="macro"))


class PooledClassifier(torch.nn.Module):
    """`Linear(encoder.embed(x))`: a linear head on the encoder's own pooled sentence vector."""

    def __init__(self, encoder: TransformerEncoder, num_labels: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.backbone = encoder.model  # registered, so its parameters are trained and saved with the head
        self.head = torch.nn.Linear(encoder.dimension, num_labels).to(encoder.device)

    def forward(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.encoder.embed(features))


class EvalSet:
    """Texts tokenised once into length-sorted, padded batches, for repeated prediction."""

    def __init__(self, encoder: TransformerEncoder, texts: Sequence[str], batch_size: int) -> None:
        texts = list(texts)
        self.size = len(texts)
        self.batches = [(torch.as_tensor(batch), encoder.tokenize([texts[i] for i in batch]))
                        for batch in length_sorted_batches(texts, batch_size)]

    def predict(self, model: PooledClassifier) -> np.ndarray:
        """Argmax labels, in the original text order."""
        out = np.zeros(self.size, dtype=np.int64)
        was_training = model.training
        model.eval()
        with torch.inference_mode():
            for index, features in self.batches:
                out[index.numpy()] = model(features).argmax(-1).cpu().numpy()
        model.train(was_training)
        return out


def _optimizer(model: torch.nn.Module, config: FineTuneConfig) -> torch.optim.Optimizer:
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim > 1]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.ndim <= 1]
    fused = next(model.parameters()).device.type in ("cpu", "cuda")  # same update, one kernel: ~6x faster on CPU
    return torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], lr=config.learning_rate,
                             fused=fused or None)


def fine_tune(encoder: TransformerEncoder, train_texts: Sequence[str], train_labels: Sequence[int],
              validation: EvalSet, validation_labels: Sequence[int], num_labels: int,
              config: FineTuneConfig, seed: int) -> tuple[PooledClassifier, FineTuneRun]:
    """Fine-tune `encoder` (in place) plus a fresh head; returns the model in its best validated state."""
    if not train_texts:
        raise BenchError("fine-tuning needs at least one training example")
    torch.manual_seed(seed)  # the head's initialisation and dropout
    model = PooledClassifier(encoder, num_labels).train()
    tokens = encoder.tokenizer(list(train_texts), truncation=True, max_length=encoder.max_length)
    labels = torch.as_tensor(list(train_labels), dtype=torch.long, device=encoder.device)
    steps_per_epoch = math.ceil(len(train_texts) / config.batch_size)
    max_steps = steps_per_epoch * config.max_epochs
    optimizer = _optimizer(model, config)
    schedule = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=0, num_training_steps=max_steps)
    order_rng = torch.Generator().manual_seed(seed)
    gold = list(validation_labels)

    run = FineTuneRun(best_score=-math.inf, best_step=0, steps=0, epochs=0, stopped_early=False)
    best_state: dict[str, torch.Tensor] | None = None
    misses = 0

    def validate() -> bool:
        """Score the current state; keep it if strictly best; True when patience is exhausted."""
        nonlocal best_state, misses
        value = score(config.metric, gold, validation.predict(model))
        run.history.append((run.steps, value))
        if value > run.best_score:
            run.best_score, run.best_step, misses = value, run.steps, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            return False
        misses += 1
        return misses >= config.patience

    for _ in range(config.max_epochs):
        run.epochs += 1
        for batch in torch.randperm(len(train_texts), generator=order_rng).split(config.batch_size):
            rows = batch.tolist()
            features = encoder.tokenizer.pad({k: [v[i] for i in rows] for k, v in tokens.items()},
                                             return_tensors="pt")
            logits = model({k: v.to(encoder.device) for k, v in features.items()})
            loss = torch.nn.functional.cross_entropy(logits, labels[batch.to(encoder.device)])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            run.steps += 1
            if config.eval_steps and run.steps % config.eval_steps == 0 and validate():
                run.stopped_early = True
                break
        if run.stopped_early or (config.eval_steps is None and validate()):
            run.stopped_early = True
            break
    if not run.history or run.history[-1][0] != run.steps:
        validate()
    assert best_state is not None
    model.load_state_dict(best_state)
    model.eval()
    return model, run
