"""Full fine-tuning of a sentence encoder with a linear classification head on its pooled output.

The model and loss the few-shot protocols share (SentiCSE, Kim et al. 2024, §4.4 + Table 12; InfoDCL,
Zhang et al. 2023, D.3); the loop
is the shared training core (`sentibench.training.loop`): AdamW with weight decay on every parameter
except biases and norm weights, linear decay to 0 over the maximum number of steps without warm-up,
gradient clipping at norm 1.0, validation every `eval_steps` steps (or at each epoch's end) with
patience and best-state restore. What is particular here: a fresh shuffle of the training set each epoch
(one seeded generator for the whole run), the last partial batch kept, and the validation metric
(accuracy or macro-F1).

Cost: each fixed set is tokenised once per run (training rows unpadded, padded per batch; validation
and test rows in length-sorted, pre-padded batches), evaluation runs under `torch.inference_mode()`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from sentibench.core.errors import BenchError
from sentibench.embed.encoders import TransformerEncoder, length_sorted_batches
from sentibench.training.finetune_config import FineTuneConfig, score
from sentibench.training.loop import LoopConfig, TrainingRun, train_loop


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


def fine_tune(encoder: TransformerEncoder, train_texts: Sequence[str], train_labels: Sequence[int],
              validation: EvalSet, validation_labels: Sequence[int], num_labels: int,
              config: FineTuneConfig, seed: int) -> tuple[PooledClassifier, TrainingRun]:
    """Fine-tune `encoder` (in place) plus a fresh head; returns the model in its best validated state."""
    if not train_texts:
        raise BenchError("fine-tuning needs at least one training example")
    torch.manual_seed(seed)  # the head's initialisation and dropout
    model = PooledClassifier(encoder, num_labels).train()
    tokens = encoder.tokenizer(list(train_texts), truncation=True, max_length=encoder.max_length)
    labels = torch.as_tensor(list(train_labels), dtype=torch.long, device=encoder.device)
    order_rng = torch.Generator().manual_seed(seed)
    gold = list(validation_labels)

    def epoch_batches(_epoch: int) -> list[torch.Tensor]:
        return list(torch.randperm(len(train_texts), generator=order_rng).split(config.batch_size))

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        rows = batch.tolist()
        features = encoder.tokenizer.pad({k: [v[i] for i in rows] for k, v in tokens.items()}, return_tensors="pt")
        logits = model({k: v.to(encoder.device) for k, v in features.items()})
        return torch.nn.functional.cross_entropy(logits, labels[batch.to(encoder.device)]), {}

    loop = LoopConfig(learning_rate=config.learning_rate, max_epochs=config.max_epochs,
                      weight_decay=config.weight_decay, max_grad_norm=config.max_grad_norm,
                      eval_every=config.eval_steps, patience=config.patience, log_every=10**9)
    run = train_loop(model, epoch_batches, loss, lambda: score(config.metric, gold, validation.predict(model)),
                     loop, steps_per_epoch=math.ceil(len(train_texts) / config.batch_size),
                     description="fine-tune", progress=False)
    return model, run
