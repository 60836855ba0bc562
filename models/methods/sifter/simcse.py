"""`bench train sifter-simcse`: SIFTER-SimCSE (Yu et al., §3, §5.4) and, as `variant=simcse`, its control,
unsupervised SimCSE (Gao et al. 2021): the same data, encoder, loop and selection. With the presets' dropout
(0.15, SIFTER's §6.2 best) only the positives differ, as in the packaged control card `simcse-unsup-minilm`
(revision r3; r2 set SimCSE's own 0.1, so its gap to `sifter-simcse-minilm` mixed two changes; docs/sifter.md).

- `variant=sifter`: each sentence X is encoded with its two positives Y+ (X + backbone) and Z+ (X minus
  articles and conjunctions, `positives.py`), dropout on, and eq. 2 (`losses.SifterLoss`) is minimised.
- `variant=simcse`: X is encoded twice; the two dropout masks make the positive pair (eq. 1).

Training sentences are a seeded sample of the `train-sentences` corpus (the paper: 1M Wikipedia sentences),
one pass over them (§5.4: one epoch), AdamW through the shared loop. Checkpoints are chosen on STS-B
*validation* Spearman every `eval_every` steps, as SimCSE and §5.4 do; the start is not a candidate (the
card is a trained model, as in SimCSE's trainer). Evaluation never sees STS-B test before the end.

Presets: `paper` is §5.4 (batch 64, lr 1e-5, one epoch, tau 0.05, dropout 0.15, [CLS] with a training-only
MLP, validation every 125 steps) over the whole corpus, for a GPU; it refuses to start on a CPU. `cpu`
keeps the paper's [CLS] + training-only MLP and trains 2,400 sentences (150 steps of 16) from
all-MiniLM-L6-v2 at lr 5e-5. Not its mean pooling: all-MiniLM-L6-v2 was contrastively trained with it, so
every positive already sits far above every in-batch negative and both losses are ~1e-4 at tau 0.05 (no
gradient; measured, docs/sifter.md); its [CLS] state starts where the paper's BERT [CLS] does, untrained
for similarity (losses ~0.2). `plateau` is `cpu` run until validation stops improving (patience 4, constant
learning rate, at most 24,000 sentences): what `sifter-simcse-minilm` trains with since revision plateau-r1.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Literal

import numpy as np
import torch

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.evaluation import metrics
from sentibench.models.methods.sifter.losses import SifterLoss
from sentibench.models.methods.sifter.positives import DEFAULT_DELETE, build_positives
from sentibench.training.contrastive import InfoNCELoss
from sentibench.training.loop import LoopConfig, train_loop
from sentibench.training.methods import trainable_base
from sentibench.training.options import Count, Fraction, Rate, apply_options, preset

CORPUS = "train-sentences"


@preset
class Config:
    variant: Literal["sifter", "simcse"]
    sentences: Count | None      # seeded sample of the corpus; None: all of it
    batch_size: Count
    lr: Rate
    max_length: Count            # training-time token limit (Y+ is X plus a backbone: keep room)
    pooling: str | None          # None: the base card's pooling
    mlp: bool                    # SimCSE's training-only MLP over the pooled vector (dropped when saved)
    dropout: Fraction            # every dropout of the encoder (§6.2)
    temperature: Rate
    lambda_xy: float = 1.0       # eq. 2's weights (§6.1's ablation)
    lambda_xz: float = 1.0
    lambda_yz: float = 1.0
    delete: tuple[str, ...] = DEFAULT_DELETE  # word classes removed to make Z+
    eval_every: int = 125
    validation: str = "stsb"     # a sentence-pair dataset whose validation split selects the checkpoint
    require_gpu: bool = False
    log_every: int = 25
    patience: int | None = None  # validations in a row without improvement before stopping (`plateau`)
    schedule: Literal["linear", "constant"] = "linear"  # after warm-up; `plateau` holds the rate constant

    def __post_init__(self) -> None:
        lambdas = (self.lambda_xy, self.lambda_xz, self.lambda_yz)
        if any(weight < 0 for weight in lambdas) or not any(lambdas):
            raise BenchError(f"SIFTER-SimCSE's lambda_xy, lambda_xz, lambda_yz must be non-negative and not all zero, "
                             f"got {lambdas}")

    def loop(self) -> LoopConfig:
        return LoopConfig(learning_rate=self.lr, max_epochs=1, weight_decay=0.0, max_grad_norm=None,
                          eval_every=self.eval_every, validate_at_start=False, log_every=self.log_every,
                          patience=self.patience, schedule=self.schedule)


PRESETS: dict[str, Config] = {
    "paper": Config(variant="sifter", sentences=None, batch_size=64, lr=1e-5, max_length=64,
                    pooling="cls_before_pooler", mlp=True, dropout=0.15, temperature=0.05, eval_every=125,
                    require_gpu=True),
    "cpu": Config(variant="sifter", sentences=2400, batch_size=16, lr=5e-5, max_length=64,
                  pooling="cls_before_pooler", mlp=True, dropout=0.15, temperature=0.05, eval_every=50),
}
PRESETS["plateau"] = dataclasses.replace(PRESETS["cpu"], sentences=24_000, patience=4, schedule="constant")
"""`cpu` run to a plateau: one pass over up to 24,000 sentences (1,500 steps of 16, about 45 minutes on one CPU
core), stopped once STS-B validation Spearman has not improved for 4 validations (200 steps), at a constant
learning rate (docs/sifter.md)."""


def resolve_config(preset: str, options: dict[str, Any]) -> Config:
    if preset not in PRESETS:
        raise BenchError(f"SIFTER-SimCSE has no preset '{preset}'; choose {', '.join(PRESETS)}")
    return apply_options(PRESETS[preset], options, owner="SIFTER-SimCSE")


def set_dropout(model: torch.nn.Module, p: float) -> float:
    """Every dropout module of the encoder (and its config) to p; returns the config's previous value."""
    previous = float(getattr(model.config, "hidden_dropout_prob", p))
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = p
    for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
        if hasattr(model.config, name):
            setattr(model.config, name, p)
    return previous


class Trained(torch.nn.Module):
    """What the loop optimises: the encoder and, with `mlp`, SimCSE's training-only head."""

    def __init__(self, encoder: TransformerEncoder, mlp: bool) -> None:
        super().__init__()
        self.encoder = encoder.model
        width = encoder.dimension
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh()) if mlp else None


def sample_sentences(texts: list[str], count: int | None, seed: int) -> list[str]:
    """`count` corpus sentences drawn without replacement (seeded), in the drawn order."""
    if count is None or count >= len(texts):
        return random.Random(seed).sample(texts, len(texts))
    return random.Random(seed).sample(texts, count)


def sts_validation(encoder: TransformerEncoder, first: list[str], second: list[str], gold: np.ndarray) -> float:
    vectors = encoder.encode(first + second, batch_size=64)
    spearman = metrics.correlations(metrics.row_cosines(vectors[:len(first)], vectors[len(first):]), gold)
    return float(spearman["cosine_spearman"]) if spearman["cosine_spearman"] is not None else -1.0


def fit(encoder: TransformerEncoder, texts: list[str], positives: tuple[list[str], list[str]] | None,
        valid: tuple[list[str], list[str], np.ndarray], config: Config, seed: int, progress: bool = True):
    """Train `encoder` in place on `texts` (and their Y+, Z+ for SIFTER); restore the best validated state."""
    torch.manual_seed(seed)
    if config.pooling:
        encoder.pooling = config.pooling
    base_dropout = set_dropout(encoder.model, config.dropout)
    trained = Trained(encoder, config.mlp).to(encoder.device)
    objective = (InfoNCELoss(config.temperature) if config.variant == "simcse" else
                 SifterLoss(config.temperature, (config.lambda_xy, config.lambda_xz, config.lambda_yz)))
    rows = list(range(len(texts)))

    def epoch_batches(epoch: int) -> list[list[int]]:
        return [rows[i:i + config.batch_size] for i in range(0, len(rows), config.batch_size)
                if len(rows) - i >= 2]

    def loss(batch: list[int]) -> tuple[torch.Tensor, dict[str, float]]:
        views = (texts, texts) if config.variant == "simcse" else (texts, *positives)
        flat = [view[i] for view in views for i in batch]
        features = encoder.tokenizer(flat, padding=True, truncation=True, max_length=config.max_length,
                                     return_tensors="pt")
        vectors = encoder.embed({k: v.to(encoder.device) for k, v in features.items()})
        if trained.mlp is not None:
            vectors = trained.mlp(vectors)
        blocks = vectors.split(len(batch))
        if config.variant == "simcse":
            return objective(*blocks), {}
        return objective(*blocks)

    run = train_loop(trained, epoch_batches, loss, lambda: sts_validation(encoder, *valid), config.loop(),
                     steps_per_epoch=len(epoch_batches(0)), description=f"SIFTER-SimCSE ({config.variant})",
                     progress=progress)
    set_dropout(encoder.model, base_dropout)  # the saved checkpoint keeps its base's dropout
    return run


def train(request) -> dict[str, Any]:
    """`Method.train` for `bench train sifter-simcse` and its trained cards."""
    if request.preset not in PRESETS:
        raise BenchError(f"SIFTER-SimCSE has no preset '{request.preset}'; choose {', '.join(PRESETS)}")
    config = resolve_config(request.preset, request.options)
    if config.require_gpu and not torch.cuda.is_available() and request.device in (None, "cpu"):
        raise BenchError(f"SIFTER-SimCSE's {request.preset} preset is GPU-sized (the whole corpus at batch 64); "
                         "no GPU here: use --preset cpu")
    encoder = trainable_base(request)  # first: a base that cannot be had here fails before any data work
    corpus = get_dataset(request.data)
    if corpus.spec.kind != "sentences":
        raise BenchError(f"SIFTER-SimCSE trains on an unlabelled sentence corpus (e.g. {CORPUS}); "
                         f"'{request.data}' is a {corpus.spec.kind} dataset")
    texts = sample_sentences(list(corpus.split("train")["text"]), config.sentences, request.seed)
    positives = build_positives(texts, request.seed, config.delete) if config.variant == "sifter" else None
    dev = get_dataset(config.validation).split("validation")
    valid = (list(dev["sentence1"]), list(dev["sentence2"]), np.asarray(dev["score"], dtype=np.float64))
    if config.pooling:
        encoder.pooling = config.pooling
    base_score = sts_validation(encoder, *valid)  # where training starts (reported, not a candidate)
    run = fit(encoder, texts, (positives.with_backbone, positives.reduced) if positives else None, valid,
              config, request.seed)
    encoder.save(request.out_dir)
    return {
        "method": "sifter-simcse", "variant": config.variant, "config": dataclasses.asdict(config),
        "seed": request.seed, "sentences": len(texts), "corpus_hash": corpus.content_hash,
        "positives": positives.summary() if positives else None,
        "selection": f"{config.validation} validation Spearman",
        "base_val_spearman": base_score, "best_step": run.best_step, "best_val_spearman": run.best_score,
        "training": run.report(),
        "fit_seconds": run.seconds, "pooling": encoder.pooling, "max_length": encoder.max_length,
        "training_data": [request.data, *corpus.spec.derived_from, config.validation],
        "notes": f"{'SIFTER-SimCSE' if config.variant == 'sifter' else 'unsupervised SimCSE'} on {len(texts)} "
                 f"sentences of {request.data}; checkpoint chosen on {config.validation} validation "
                 f"(step {run.best_step}).",
    }
