"""One seed of a fine-tuned few-shot task: the work item the task fans out through the run's executor (in
this process, or one Ray task per seed) and the function that runs it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sentibench.training.finetune_config import FineTuneConfig

if TYPE_CHECKING:
    from sentibench.training.finetune import PretrainedWeights


@dataclass(frozen=True)
class SeedRun:
    """One seed's fine-tuning examples: the item few-shot tasks fan out (`sentibench.core.executors.fan_out`)."""

    task: str
    seed: int
    train_texts: list[str]
    train_labels: list[int]
    validation_texts: list[str]
    validation_labels: list[int]

    @property
    def label(self) -> str:
        return f"{self.task} seed {self.seed}"


def fine_tune_seed(seed_run: SeedRun, weights: PretrainedWeights, test_texts: list[str],
                   num_labels: int, config: FineTuneConfig) -> dict:
    """Fine-tune the pretrained weights (restored in place) on one seed's draw; predict test."""
    from sentibench.training.finetune import fine_tune

    encoder = weights.fresh(config.max_length)
    validation = weights.eval_set(seed_run.validation_texts, config.eval_batch_size)
    model, run = fine_tune(encoder, seed_run.train_texts, seed_run.train_labels, validation,
                           seed_run.validation_labels, num_labels, config, seed_run.seed)
    loss, value = run.at_best()
    return {"predicted": weights.eval_set(test_texts, config.eval_batch_size).predict(model),
            "validation_score": value, "best_step": run.best_step, "steps": run.steps,
            "epochs": run.epochs, "stopped_early": run.stopped_early,
            "validation_history": [[s, round(v, 6)] for s, _, v in run.validation],
            "validation_loss": round(loss, 6),
            "validation_loss_history": [[s, round(v, 6)] for s, v, _ in run.validation]}
