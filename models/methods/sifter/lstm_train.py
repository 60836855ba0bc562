"""`bench train sifter-lstm`: SIFTER-LSTM (Yu et al., §4.3, §5.4) and, as `gate=standard`, the plain LSTM
with the same hyperparameters (the paper's reproduced baseline): one code path, only X differs (empty for
the control).

A sentence classifier (eq. 5) trained with cross-entropy (eq. 6) on a labelled dataset's train split; word
vectors start from the base checkpoint's input embeddings (the paper: BERT's WordPiece embeddings, 768-d;
ours: all-MiniLM-L6-v2's, 384-d) and are trained. Validation accuracy on the validation split every 50
steps keeps the best state; the paper selected on the SST-2 *test* set, we never look at test.

§5.4 gives Adam, lr 1e-5, batch 32, L2 1e-7, hidden 384, dropout 0.2. The shared loop uses AdamW with a
linear decay; weight decay 1e-7 on the matrices stands in for the L2 term (both are negligible at 1e-7).
Three epochs of MR at lr 1e-5 move an LSTM trained from scratch too little (Adam's step is ~lr per
weight), so `cpu` uses 1e-3 for three epochs; `paper` keeps 1e-5 for 20 epochs.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import numpy as np
import torch

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.data.lexicons import OPINION_SOURCE, opinion_lexicon
from sentibench.models.methods.sifter.lstm import LSTMEncoder, SifterLSTM
from sentibench.training.loop import LoopConfig, train_loop
from sentibench.training.methods import BaseModel, offline_alternative
from sentibench.training.options import Count, Fraction, Rate, apply_options, preset


@preset
class Config:
    gate: Literal["sifter", "standard"]   # standard: X is empty (the plain LSTM control)
    lr: Rate
    epochs: Count
    batch_size: Count = 32
    hidden_size: Count = 384
    dropout: Fraction = 0.2
    weight_decay: float = 1e-7
    max_length: Count = 64
    eval_every: int = 50
    patience: int | None = None
    log_every: int = 25

    def loop(self) -> LoopConfig:
        return LoopConfig(learning_rate=self.lr, max_epochs=self.epochs, weight_decay=self.weight_decay,
                          eval_every=self.eval_every, patience=self.patience, log_every=self.log_every)


PRESETS: dict[str, Config] = {
    "paper": Config(gate="sifter", lr=1e-5, epochs=20),
    "cpu": Config(gate="sifter", lr=1e-3, epochs=3),
}


def resolve_config(preset: str, options: dict[str, Any]) -> Config:
    if preset not in PRESETS:
        raise BenchError(f"SIFTER-LSTM has no preset '{preset}'; choose {', '.join(PRESETS)}")
    return apply_options(PRESETS[preset], options, owner="SIFTER-LSTM")


def accuracy(encoder: LSTMEncoder, texts: list[str], labels: np.ndarray, batch_size: int = 256) -> float:
    """The classifier's accuracy (eq. 5's arg max) on labelled texts."""
    module = encoder.module
    was_training = module.training
    module.eval()
    predictions = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch_size):
            predictions.append(module(**encoder.features(texts[start:start + batch_size])).argmax(-1).cpu())
    module.train(was_training)
    return float((torch.cat(predictions).numpy() == labels).mean())


def build(base_model: BaseModel, config: Config, device: str | None, max_length: int
          ) -> tuple[LSTMEncoder, dict[str, Any]]:
    """A fresh (SIFTER-)LSTM whose word vectors are the base checkpoint's input embeddings."""
    base = base_model.trainable(device="cpu")
    if base is None:
        raise BenchError(f"SIFTER-LSTM takes its word vectors from a transformers checkpoint; "
                         f"'{base_model.name}' has none")
    embeddings = base.model.get_input_embeddings().weight.detach()
    tokenizer = base.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise BenchError("SIFTER-LSTM needs a fast tokenizer (word boundaries for the sentiment gate)")
    args = {"vocab_size": embeddings.shape[0], "embedding_dim": embeddings.shape[1],
            "hidden_size": config.hidden_size, "dropout": config.dropout, "num_classes": 2,
            "padding_idx": tokenizer.pad_token_id or 0}
    module = SifterLSTM(**args)
    module.embedding.weight.data.copy_(embeddings)
    lexicon = opinion_lexicon() if config.gate == "sifter" else frozenset()
    return LSTMEncoder(module, tokenizer, lexicon, max_length, name=f"sifter-lstm-{config.gate}",
                       device=device), {**args, "gate": config.gate}


def fit(encoder: LSTMEncoder, train_texts: list[str], train_labels: list[int], valid_texts: list[str],
        valid_labels: list[int], config: Config, seed: int, progress: bool = True):
    """Train in place with cross-entropy; restore the best validation-accuracy state."""
    torch.manual_seed(seed)
    labels = torch.tensor(train_labels)
    valid_gold = np.asarray(valid_labels)
    module = encoder.module

    def epoch_batches(epoch: int) -> list[torch.Tensor]:
        order = torch.randperm(len(train_texts), generator=torch.Generator().manual_seed(seed * 1000 + epoch))
        return list(order.split(config.batch_size))

    def loss(batch: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        logits = module(**encoder.features([train_texts[i] for i in batch]))
        return torch.nn.functional.cross_entropy(logits, labels[batch].to(logits.device)), {}

    steps_per_epoch = len(epoch_batches(0))
    module.train()
    return train_loop(module, epoch_batches, loss, lambda: accuracy(encoder, valid_texts, valid_gold),
                      config.loop(), steps_per_epoch=steps_per_epoch,
                      description=f"SIFTER-LSTM ({config.gate})", progress=progress)


def train(request) -> dict[str, Any]:
    """`Method.train` for `bench train sifter-lstm` and its trained cards."""
    config = resolve_config(request.preset, request.options)
    try:
        encoder, args = build(request.base, config, request.device, config.max_length)
    except BenchError as error:
        reason = str(error).split(". ")[0].rstrip(".")
        raise BenchError(f"SIFTER-LSTM cannot load its base '{request.base.name}': {reason}; "
                         + offline_alternative("sifter-lstm", request.data)) from None
    dataset = get_dataset(request.data)
    if not dataset.spec.is_binary or "validation" not in dataset.splits:
        raise BenchError(f"SIFTER-LSTM trains on a binary labelled dataset with train and validation splits; "
                         f"'{request.data}' is not one")
    train_split, valid_split = dataset.split("train"), dataset.split("validation")
    run = fit(encoder, list(train_split["text"]), list(train_split["label"]), list(valid_split["text"]),
              list(valid_split["label"]), config, request.seed)
    encoder.save(request.out_dir, args)
    return {
        "method": "sifter-lstm", "gate": config.gate, "config": dataclasses.asdict(config), "seed": request.seed,
        "lexicon": OPINION_SOURCE if config.gate == "sifter" else "none (standard LSTM)",
        "lexicon_size": len(encoder.lexicon), "best_step": run.best_step, "best_val_accuracy": run.best_score,
        "training": run.report(), "fit_seconds": run.seconds, "max_length": encoder.max_length,
        "embedding_size": config.hidden_size, "parameters": sum(p.numel() for p in encoder.module.parameters()),
        "data_hash": dataset.content_hash,
        "notes": f"{'SIFTER-LSTM' if config.gate == 'sifter' else 'standard LSTM'} classifier on {request.data} "
                 f"(best validation accuracy {run.best_score:.4f} at step {run.best_step}); sentence vector = h_T.",
    }
