"""InfoDCL training: presets, the per-step objective, checkpoint selection (InfoDCL §3, B, C.1, D.3).

Data. `--data` names a tweet dataset (`tweets-3class`); only the texts of its **train** split are read,
never its sentiment labels. `corpus.extract` cleans them, drops every tweet that matches an evaluation
text (the dataset's own validation and test splits and every split of the other packaged tweet sets:
`leakage_texts`), and turns final hashtags into surrogate labels. A stratified `validation_fraction` of
the labelled tweets is held out for checkpoint selection; the NPMI matrix (`npmi.build_npmi`) is counted
over the same leakage-free tweets and saved beside the checkpoint with its sha256.

One step (eq. 7) on m (anchor, positive) pairs from `pairs.epoch_pairs` (re-drawn every epoch, B.4):
- the 2m tweets are embedded with the base's pooling, dropout on; h is the pooled vector before any L2
  normalisation (the losses use cosine similarity; the SLP head reads h). With `projection="dense-tanh"`
  (the `paper` preset: D.1 and the authors' code) h is a fresh dense + tanh layer over that vector, so the
  contrastive losses read it and SLP is two feed-forward layers with tanh in between (B.2); the layer is
  used in training only (not saved: the fine-tuned and frozen evaluations read the encoder's own pooling).
  `projection="none"` (the `cpu` preset, which its committed cards were trained with) uses the vector as is;
- L_SLP: cross-entropy of a dropout + linear head on h over the surrogate labels (the authors' head);
- L_DCL-LiT = gamma L_LCL-LiT + (1 - gamma) L_CCL on the 2m embeddings and their labels (`losses`), the
  LCL weights being the SLP head's softmax, not detached (as the authors; option `detach_lcl_weights`);
- L_MLM: a second forward pass over a masked copy of the same 2m tweets (the authors' layout), 15% of the
  non-special tokens, 80% [MASK] / 10% random / 10% kept (transformers' `DataCollatorForLanguageModeling`,
  seeded), cross-entropy of the shared tied-embedding MLM head (`sentibench.training.mlm_head`) averaged
  over the masked tokens;
- L = lambda_1 L_MLM + lambda_2 L_SLP + (1 - lambda_1 - lambda_2) L_DCL-LiT.

Checkpoint selection. The paper trains three epochs and keeps the end (its script loads the best epoch
by the Trainer's evaluation loss). Ours validates every `eval_every` steps on the held-out surrogate
tweets: the same objective with dropout off, fixed pairs and fixed masks; the score is minus that loss,
and the best state is restored. No evaluation data is involved.

Ablations (Table 18), option `ablation`, a comma-separated subset of `no-ccl` (A), `no-lcl` (B; both: C,
plain SCL), `no-slp` (D: the head still weights LCL-LiT and learns through it, as in the authors' code),
`no-mlm` (E; with `no-slp`: F, DCL), `no-repair` (G).

`plateau` is `cpu` run until the validation loss stops improving (patience 4 validations, constant learning
rate, at most 11 epochs): what `infodcl-minilm` trains with since revision plateau-r1.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F

from sentibench.core.errors import BenchError
from sentibench.data import dataset_names, get_dataset, get_spec
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.methods.infodcl.corpus import ExtractionRules, SurrogateCorpus, extract
from sentibench.models.methods.infodcl.losses import DistantContrastiveLoss, InfoDCLLoss
from sentibench.models.methods.infodcl.npmi import NPMI_FILE, NpmiMatrix, build_npmi
from sentibench.models.methods.infodcl.pairs import epoch_pairs
from sentibench.training.loop import LoopConfig, train_loop
from sentibench.training.methods import offline_alternative, trainable_base
from sentibench.training.mlm_head import MaskedLMHead, build_head
from sentibench.training.options import Count, Fraction, Rate, apply_options, preset

LOG_FILE = "infodcl_log.json"
ABLATIONS = ("no-ccl", "no-lcl", "no-slp", "no-mlm", "no-repair")


@preset
class Config:
    """One run's hyperparameters (a preset, possibly overridden by `--option key=value`)."""

    max_length: Count
    batch_size: Count            # (anchor, positive) pairs per step: 2x tweets
    lr: Rate
    epochs: Count
    weight_decay: float
    temperature: Rate
    lambda_mlm: float            # lambda_1
    lambda_slp: float            # lambda_2
    gamma: float
    eval_every: int
    pooling: str | None = None   # None keeps the base card's pooling
    mlm_probability: Fraction = 0.15
    slp_dropout: Fraction = 0.1
    detach_lcl_weights: bool = False
    min_words: int = 5
    single_label: bool = False
    min_label_count: int = 10
    npmi_min_count: int = 3
    npmi_min_ratio: float = 0.02
    npmi_min_labels: int = 2
    validation_fraction: Fraction = 0.1
    max_steps: Count | None = None
    use_ccl: bool = True
    use_lcl: bool = True
    use_slp: bool = True
    use_mlm: bool = True
    repair: bool = True
    log_every: int = 10
    projection: Literal["none", "dense-tanh"] = "none"  # a training-only dense + tanh over the pooled vector
    patience: int | None = None  # validations in a row without improvement before stopping (`plateau`)
    schedule: Literal["linear", "constant"] = "linear"  # after warm-up; `plateau` holds the rate constant

    def loop(self) -> LoopConfig:
        return LoopConfig(learning_rate=self.lr, max_epochs=self.epochs, max_steps=self.max_steps,
                          weight_decay=self.weight_decay, max_grad_norm=1.0, eval_every=self.eval_every,
                          log_every=self.log_every, patience=self.patience, schedule=self.schedule)

    def rules(self) -> ExtractionRules:
        return ExtractionRules(self.min_words, self.single_label, self.min_label_count)


PRESETS: dict[str, Config] = {
    # D.3 / Table 9, hashtag row: lambda_1 0.4, lambda_2 0.1, gamma 0.1, tau 0.1; batch 128 pairs, lr 2e-5,
    # 3 epochs, max length 72 (the authors' script), weight decay 0.01; C.1's single-hashtag rule and
    # 200-tweet label floor, D.2's NPMI floor of 20 co-occurrences and 0.02 x frequency.
    "paper": Config(max_length=72, batch_size=128, lr=2e-5, epochs=3, weight_decay=0.01, temperature=0.1,
                    lambda_mlm=0.4, lambda_slp=0.1, gamma=0.1, eval_every=500, pooling="cls_before_pooler",
                    single_label=True, min_label_count=200, npmi_min_count=20, validation_fraction=0.05,
                    projection="dense-tanh"),
    # The same objective and weights on a 2-core CPU: smaller batches, a higher learning rate (a few hundred
    # steps instead of ~300k), the single-label rule relaxed and the floors scaled to a 30k-tweet source.
    "cpu": Config(max_length=64, batch_size=32, lr=1e-4, epochs=3, weight_decay=0.01, temperature=0.1,
                  lambda_mlm=0.4, lambda_slp=0.1, gamma=0.1, eval_every=25),
}
PRESETS["plateau"] = replace(PRESETS["cpu"], epochs=11, patience=4, schedule="constant")
"""`cpu` run to a plateau: until the validation loss has not improved for 4 validations (100 steps), at a
constant learning rate, capped at 11 epochs (737 steps, about 45 minutes on one CPU core, docs/infodcl.md)."""


def resolve_config(preset: str, options: dict[str, Any]) -> Config:
    """The preset with typed overrides by field name, plus `ablation` (Table 18)."""
    if preset not in PRESETS:
        raise BenchError(f"InfoDCL has no preset '{preset}'; choose {', '.join(PRESETS)}")
    config = apply_options(PRESETS[preset], options, owner="InfoDCL", extra=("ablation",))
    ablation = {a.strip() for a in str(options.get("ablation", "")).split(",") if a.strip()}
    unknown = sorted(ablation - set(ABLATIONS))
    if unknown:
        raise BenchError(f"InfoDCL ablation {options.get('ablation')!r}: use a comma-separated subset of "
                         f"{', '.join(ABLATIONS)}")
    return dataclasses.replace(config, use_ccl=config.use_ccl and "no-ccl" not in ablation,
                               use_lcl=config.use_lcl and "no-lcl" not in ablation,
                               use_slp=config.use_slp and "no-slp" not in ablation,
                               use_mlm=config.use_mlm and "no-mlm" not in ablation,
                               repair=config.repair and "no-repair" not in ablation)


def leakage_texts(data: str) -> tuple[list[str], list[str]]:
    """(texts, where): the training dataset's validation and test texts and every split of every other
    packaged tweet dataset; no pretraining tweet may match one of them."""
    texts, where = [], []
    for name in dataset_names():
        spec = get_spec(name)
        if not (name == data or (spec.offline and spec.has("tweet"))):
            continue
        dataset = get_dataset(name)
        for split in dataset.splits:
            if name == data and split == "train":
                continue
            texts.extend(dataset.split(split)["text"])
            where.append(f"{name}/{split}")
    return texts, where


class Objective(torch.nn.Module):
    """Everything InfoDCL trains: the encoder, the SLP head and (with L_MLM) the MLM head's transform."""

    def __init__(self, encoder: TransformerEncoder, labels: int, config: Config) -> None:
        super().__init__()
        self.encoder = encoder.model
        dimension = encoder.dimension
        self.slp_head = (torch.nn.Sequential(torch.nn.Dropout(config.slp_dropout), torch.nn.Linear(dimension, labels))
                         if config.use_slp or config.use_lcl else None)
        self.mlm: MaskedLMHead | None = build_head(encoder.model) if config.use_mlm else None
        self.mlm_head = self.mlm.module if self.mlm else None
        self.projection = dense_tanh(encoder) if config.projection == "dense-tanh" else None
        self.to(encoder.device)

    def sentence_vectors(self, encoder: TransformerEncoder, features: dict[str, torch.Tensor]) -> torch.Tensor:
        """h: the pooled vector (no L2 normalisation), through the projection when there is one."""
        h = pooled(encoder, features)
        return self.projection(h) if self.projection is not None else h


def dense_tanh(encoder: TransformerEncoder) -> torch.nn.Sequential:
    """A fresh dense + tanh of the encoder's width (SimCSE's MLP; transformers' normal initialisation)."""
    dense = torch.nn.Linear(encoder.dimension, encoder.dimension)
    torch.nn.init.normal_(dense.weight, std=getattr(encoder.model.config, "initializer_range", 0.02))
    torch.nn.init.zeros_(dense.bias)
    return torch.nn.Sequential(dense, torch.nn.Tanh())


def pooled(encoder: TransformerEncoder, features: dict[str, torch.Tensor]) -> torch.Tensor:
    """The base's pooling without its L2 normalisation (h of the paper)."""
    normalize, encoder.normalize = encoder.normalize, False
    try:
        return encoder.embed(features)
    finally:
        encoder.normalize = normalize


def masker(encoder: TransformerEncoder, config: Config, seed: int):
    """transformers' MLM masking (80/10/10) drawing from its own generator seeded with `seed` (the collator
    creates that generator only when called as a collator; `torch_mask_tokens` alone would use the global
    RNG)."""
    from transformers import DataCollatorForLanguageModeling

    collator = DataCollatorForLanguageModeling(encoder.tokenizer, mlm_probability=config.mlm_probability, seed=seed)
    collator.create_rng()
    return collator


class Step:
    """The loss of one batch of pairs (eq. 7), bound to an encoder, its objective and the NPMI weights."""

    def __init__(self, encoder: TransformerEncoder, objective: Objective, config: Config, weights: torch.Tensor,
                 seed: int) -> None:
        self.encoder, self.objective, self.config, self.seed = encoder, objective, config, seed
        self.dcl = DistantContrastiveLoss(config.temperature, config.gamma,
                                          weights.to(encoder.device) if config.use_ccl else None,
                                          label_aware=config.use_lcl, detach=config.detach_lcl_weights)
        self.infodcl = InfoDCLLoss(config.lambda_mlm, config.lambda_slp)
        self.masker = masker(encoder, config, seed) if config.use_mlm else None

    def mlm_loss(self, features: dict[str, torch.Tensor], collator) -> torch.Tensor:
        tokenizer = self.encoder.tokenizer
        ids = features["input_ids"].cpu()
        special = torch.tensor([tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True)
                                for row in ids.tolist()], dtype=torch.bool)
        masked, targets = collator.torch_mask_tokens(ids.clone(), special_tokens_mask=special)
        chosen = targets != -100
        if not bool(chosen.any()):
            return next(self.objective.mlm_head.parameters()).sum() * 0.0
        device = self.encoder.device
        hidden = self.encoder.model(**{**features, "input_ids": masked.to(device)}).last_hidden_state
        logits = self.objective.mlm_head(hidden[chosen.to(device)])
        return F.cross_entropy(logits.float(), targets[chosen].to(device))

    def __call__(self, texts: list[str], labels: torch.Tensor, collator=None) -> tuple[torch.Tensor, dict[str, float]]:
        config, objective = self.config, self.objective
        features = self.encoder.tokenizer(texts, padding=True, truncation=True, max_length=config.max_length,
                                          return_tensors="pt")
        features = {k: v.to(self.encoder.device) for k, v in features.items()}
        labels = labels.to(self.encoder.device)
        h = objective.sentence_vectors(self.encoder, features)
        logits = objective.slp_head(h) if objective.slp_head is not None else None
        dcl, parts = self.dcl(h, labels, logits)
        slp = F.cross_entropy(logits.float(), labels) if config.use_slp else None
        mlm = self.mlm_loss(features, collator or self.masker) if config.use_mlm else None
        if slp is not None:
            parts["slp"] = slp.item()
        if mlm is not None:
            parts["mlm"] = mlm.item()
        return self.infodcl(dcl, mlm, slp), parts


Batch = tuple[list[str], torch.Tensor]


def batches_of(pairs: np.ndarray, texts: list[str], labels: list[int], size: int) -> list[Batch]:
    """[(2m texts: anchors then positives, their labels)] for consecutive chunks of `size` pairs."""
    out = []
    for start in range(0, len(pairs), size):
        chunk = pairs[start:start + size]
        order = np.concatenate([chunk[:, 0], chunk[:, 1]])
        out.append(([texts[i] for i in order], torch.tensor([labels[i] for i in order])))
    return out


def split_corpus(corpus: SurrogateCorpus, fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Stratified (train, validation) row indices of the labelled tweets."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(corpus.labels))
    train, valid = train_test_split(rows, test_size=fraction, random_state=seed, stratify=corpus.labels)
    return sorted(train.tolist()), sorted(valid.tolist())


def fit(encoder: TransformerEncoder, corpus: SurrogateCorpus, npmi: NpmiMatrix, config: Config, seed: int,
        out_dir: Path, progress: bool = True) -> dict[str, Any]:
    """Train `encoder` in place, keep the best held-out step, save checkpoint and NPMI matrix; a report."""
    torch.manual_seed(seed)
    if config.pooling:
        encoder.pooling = config.pooling
    train_rows, valid_rows = split_corpus(corpus, config.validation_fraction, seed)
    texts = [corpus.texts[i] for i in train_rows]
    labels = [corpus.labels[i] for i in train_rows]
    valid_texts = [corpus.texts[i] for i in valid_rows]
    valid_labels = [corpus.labels[i] for i in valid_rows]
    objective = Objective(encoder, len(corpus.label_names), config)
    step = Step(encoder, objective, config, npmi.tensor(), seed)
    valid_batches = batches_of(epoch_pairs(valid_labels, seed, 0), valid_texts, valid_labels, config.batch_size)
    steps_per_epoch = len(batches_of(epoch_pairs(labels, seed, 0), texts, labels, config.batch_size))

    def epoch_batches(epoch: int):
        return batches_of(epoch_pairs(labels, seed, epoch, config.repair), texts, labels, config.batch_size)

    def validate() -> float:
        fixed = masker(encoder, config, seed + 1) if config.use_mlm else None  # the same masks every time
        objective.eval()
        with torch.no_grad():
            losses = [step(batch_texts, batch_labels, fixed)[0].item() for batch_texts, batch_labels in valid_batches]
        return -float(np.mean(losses))

    run = train_loop(objective, epoch_batches, lambda batch: step(*batch), validate, config.loop(),
                     steps_per_epoch=steps_per_epoch, description="InfoDCL", progress=progress)
    encoder.save(out_dir)
    npmi.save(Path(out_dir) / NPMI_FILE)
    head = objective.mlm.source if objective.mlm else "none (no MLM objective)"
    report = {
        "method": "infodcl", "config": dataclasses.asdict(config), "seed": seed,
        "corpus": {**corpus.stats.as_dict(), "train_tweets": len(texts), "validation_tweets": len(valid_texts),
                   "labels": list(corpus.label_names)},
        "npmi": {"sha256": npmi.sha256, "file": NPMI_FILE, "tweets_counted": npmi.tweets, "pairs_kept": len(npmi.kept),
                 "top_pairs": [list(p) for p in npmi.top_pairs(15)]},
        "best_step": run.best_step, "best_validation_loss": -run.best_score, "training": run.report(),
        "mlm_head": head, "pooling": encoder.pooling, "max_length": encoder.max_length,
        "train_max_length": config.max_length, "fit_seconds": run.seconds,
        "notes": f"InfoDCL on hashtag surrogate labels ({len(corpus.label_names)} labels, {len(texts)} tweets); "
                 f"NPMI matrix sha256 {npmi.sha256}; MLM head: {head}; checkpoint chosen on held-out surrogate-label "
                 f"loss (step {run.best_step} of {run.steps}).",
    }
    (Path(out_dir) / LOG_FILE).write_text(json.dumps(report, indent=2))
    return report


def prepare(data: str, config: Config) -> tuple[SurrogateCorpus, NpmiMatrix, list[str]]:
    """The surrogate-label corpus of a tweet dataset's train split, its NPMI matrix, the blocked splits."""
    spec = get_spec(data)
    if not spec.has("tweet"):
        raise BenchError(f"InfoDCL pretrains on tweets with hashtags; '{data}' is not a tweet dataset "
                         f"(try --data tweets-3class)")
    held_out, where = leakage_texts(data)
    corpus = extract(get_dataset(data).split("train")["text"], held_out, config.rules())
    npmi = build_npmi(corpus.label_sets, corpus.label_names, config.npmi_min_count, config.npmi_min_ratio,
                      config.npmi_min_labels)
    return corpus, npmi, where


def train(request) -> dict[str, Any]:
    """`Method.train` for `bench train infodcl` and trained cards (a `methods.TrainRequest`)."""
    config = resolve_config(request.preset, request.options)
    if request.preset == "paper" and not torch.cuda.is_available():
        raise BenchError("InfoDCL's paper preset (batch 128 pairs, 3 epochs) needs a GPU and none is visible; "
                         + offline_alternative("infodcl", request.data))
    encoder = trainable_base(request)  # first: a base that cannot be had here fails before any data work
    corpus, npmi, where = prepare(request.data, config)
    report = fit(encoder, corpus, npmi, config, request.seed, Path(request.out_dir))
    return {**report, "data": request.data, "base": request.base.name, "preset": request.preset,
            "leakage_checked_against": where}
