"""SentiCSE training: presets, the training loop, checkpoint selection on validation SgTS (SentiCSE §3, §4.3).

Each step takes B quadruples (p, p+, n, n+) (see `quadruples`), embeds the 4B sentences with the encoder's
pooling in training mode (dropout on, as SimCSE), and computes L_s (eq. 5-7). The word-level objective
(eq. 2-4) runs on a second forward pass of all 4B sentences (`masked_sentences="all"`, as the authors'
code; `"anchors"`: only the 2B anchors p and n) with 10% of their polarity candidates masked (`masking`:
`exact-count`, the `cpu` preset: round(10% of the batch's candidates) drawn anew each step, always replaced by the
mask token, the paper specifying no 80/10/10 rule; `per-token`, the `paper` preset: the authors' `mask_tokens_map`,
each candidate chosen with probability 10% once per sentence, 80% of the chosen replaced by the mask token and
20% kept); the MLM head runs only at the chosen positions. L = lambda_w * L_w + L_s (eq. 8). AdamW, linear
decay to zero, no warm-up, no weight decay (the Hugging Face Trainer defaults SimCSE's code, and so SentiCSE's,
runs on).

The loop (optimiser, schedule, validation, best-state restore, progress, report) is the shared training core
(`sentibench.training.loop`); SentiCSE sets: no weight decay, gradient clipping at norm 1.0 in the `paper`
preset (the authors' Trainer's default) and none in the `cpu` preset (the protocol its committed cards were
trained with; `--option max_grad_norm=1.0` clips), no warm-up, the plain (not fused) AdamW kernel, and a
validation of the untouched base at step 0 (the base can win).

Checkpoint selection (§4.3: every 500 steps on SgTS of the training dataset's validation split): SgTS
pairs are built from the VALIDATION split only (`sentibench.evaluation.sgts.build_pairs`), never the test pairs
any evaluation uses; the best step's weights are written with `TransformerEncoder.save`.

Presets: `paper` is Table 11 (for a GPU). `cpu` is our choice for a 2-core machine, measured (see
docs/senticse.md). Both take the authors' code where it differs from the printed equations (docs/senticse.md):
log-weights added to the logits (positive 0, own hard negative alpha = 1, other in-batch negatives 0.5),
delta only on positive <-> negative flips, L_w averaged over the kept tokens, all four sentences of a
quadruple masked, L_neg anchored on n+. The `cpu` preset departs from `paper` only where the CPU needs it:
max length 48 (MR's sentences are short), 8 quadruples per step, 150 steps, lr 1e-4 (1e-5 moves a 6-layer
model little in 150 steps), selection every 25 steps, and the base's pooling (mean for all-MiniLM-L6-v2,
the pooling it was trained with; it has no trained pooler). Revision r1 of the `senticse-minilm*` cards was
trained with the printed equations instead (`negative_weighting=multiply`, `word_delta=any-change`,
`word_reduction=mean`, `masked_sentences=anchors`, `negative_anchor=n`): every one is still an option.
`plateau` is `cpu` run until validation SgTS stops improving (patience 4 validations, constant learning
rate, at most 900 steps): what the `senticse-minilm` cards train with since revision plateau-r1.
With `cls` pooling training goes through the checkpoint's pooler (dense + tanh over the first token),
which is saved with the encoder.

Ablations (Table 7), option `ablation`, a comma-separated subset of: `pos-only` (L_s = L_pos),
`neg-only` (L_s = L_neg), `no-word` (lambda_w = 0, the MLM head is not built).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.data.lexicons import SENTIWORDNET_SOURCE
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.evaluation.sgts import sgts_on_split
from sentibench.models.methods.senticse.lexicon import VocabularyTables, sentiwordnet, vocabulary_tables
from sentibench.models.methods.senticse.losses import PolarityMaskedLMLoss, QuadrupleContrastiveLoss
from sentibench.models.methods.senticse.quadruples import quadruples
from sentibench.training.loop import LoopConfig, train_loop
from sentibench.training.methods import trainable_base
from sentibench.training.mlm_head import MaskedLMHead, build_head
from sentibench.training.options import Count, Fraction, Rate, apply_options, preset

LOG_FILE = "senticse_log.json"
ABLATIONS = ("pos-only", "neg-only", "no-word")


@preset
class Config:
    """One training run's hyperparameters (a preset, possibly overridden by `--option key=value`). The field
    defaults below are the earlier behaviour (the printed equations); both presets set the authors' choices.
    Keep them: `models/catalog/trained.py` reads a checkpoint report that predates a field as that field's default."""

    max_length: Count
    batch_size: Count        # quadruples per step (4x sentences)
    lr: Rate
    steps: Count
    pooling: str | None      # None keeps the base card's pooling
    temperature: Rate
    lambda_w: float
    alpha: float             # multiply: every negative's weight; add-to-logits: the own hard negative's log-weight
    mask_ratio: Fraction
    eval_every: int
    word_reduction: Literal["sum", "mean", "mean-kept"]  # eq. 3-4's sum, mean over masked or over kept tokens
    sentence_terms: tuple[str, ...] = ("pos", "neg")
    log_every: int = 25
    negative_weighting: Literal["multiply", "add-to-logits"] = "multiply"  # see `losses`
    positive_log_weight: float = 0.0   # add-to-logits only: added to the positive's logit
    in_batch_log_weight: float = 0.0   # add-to-logits only: added to the other in-batch negatives' logits
    word_delta: Literal["any-change", "polar-flip"] = "any-change"
    masked_sentences: Literal["anchors", "all"] = "anchors"  # which sentences of a quadruple carry L_w
    negative_anchor: Literal["n", "n-plus"] = "n"  # L_neg's anchor: eq. 6's n_i, or n_i+ (see `losses`)
    max_grad_norm: Rate | None = None   # None: no clipping (`cpu`); 1.0: the authors' Trainer's default (`paper`)
    masking: Literal["exact-count", "per-token"] = "exact-count"  # `cpu`; `per-token`: the authors' (`paper`)
    patience: int | None = None        # validations in a row without improvement before stopping (`plateau`)
    schedule: Literal["linear", "constant"] = "linear"  # after warm-up; `plateau` holds the rate constant

    def loop(self) -> LoopConfig:
        return LoopConfig(learning_rate=self.lr, max_steps=self.steps, weight_decay=0.0,
                          max_grad_norm=self.max_grad_norm, eval_every=self.eval_every, validate_at_start=True,
                          log_every=self.log_every, fused_optimizer=False, patience=self.patience,
                          schedule=self.schedule)


PRESETS: dict[str, Config] = {
    "paper": Config(max_length=128, batch_size=64, lr=1e-5, steps=20_000, pooling="cls", temperature=0.05,
                    lambda_w=0.15, alpha=1.0, mask_ratio=0.1, eval_every=500, word_reduction="mean-kept",
                    negative_weighting="add-to-logits", positive_log_weight=0.0, in_batch_log_weight=0.5,
                    word_delta="polar-flip", masked_sentences="all", negative_anchor="n-plus", max_grad_norm=1.0,
                    masking="per-token"),
    "cpu": Config(max_length=48, batch_size=8, lr=1e-4, steps=150, pooling=None, temperature=0.05,
                  lambda_w=0.15, alpha=1.0, mask_ratio=0.1, eval_every=25, word_reduction="mean-kept",
                  negative_weighting="add-to-logits", positive_log_weight=0.0, in_batch_log_weight=0.5,
                  word_delta="polar-flip", masked_sentences="all", negative_anchor="n-plus"),
}
PRESETS["plateau"] = replace(PRESETS["cpu"], steps=900, patience=4, schedule="constant")
"""`cpu` run to a plateau: until validation SgTS has not improved for 4 validations (100 steps), at a constant
learning rate, capped at 900 steps (about 45 minutes on one CPU core, docs/senticse.md)."""


def resolve_config(preset: str, options: dict[str, Any]) -> Config:
    """The preset with `options` applied: typed hyperparameter overrides by field name, plus `ablation`."""
    if preset not in PRESETS:
        raise BenchError(f"SentiCSE has no preset '{preset}'; choose {', '.join(PRESETS)}")
    if "sentence_terms" in options:
        raise BenchError("SentiCSE option 'sentence_terms' is set through ablation=pos-only|neg-only")
    config = apply_options(PRESETS[preset], options, owner="SentiCSE", extra=("ablation",))
    ablation = [a.strip() for a in str(options.get("ablation", "")).split(",") if a.strip()]
    unknown = sorted(set(ablation) - set(ABLATIONS))
    if unknown or {"pos-only", "neg-only"} <= set(ablation):
        raise BenchError(f"SentiCSE ablation {options.get('ablation')!r}: use a comma-separated subset of "
                         f"{', '.join(ABLATIONS)} (not both pos-only and neg-only)")
    changes: dict[str, Any] = {}
    if "pos-only" in ablation:
        changes["sentence_terms"] = ("pos",)
    if "neg-only" in ablation:
        changes["sentence_terms"] = ("neg",)
    if "no-word" in ablation:
        changes["lambda_w"] = 0.0
    return dataclasses.replace(config, **changes)


def mask_candidates(input_ids: torch.Tensor, attention_mask: torch.Tensor, tables: VocabularyTables,
                    ratio: float, mask_id: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(masked input ids, bool [B, L] of masked positions): round(ratio * #candidates) of the batch's
    polarity candidates (at least one when there are any), chosen uniformly, replaced by the mask token."""
    candidates = tables.candidates(input_ids, attention_mask)
    count = int(candidates.sum())
    chosen = torch.zeros_like(candidates)
    if count:
        k = max(1, round(ratio * count))
        keys = torch.rand(candidates.shape, generator=generator, device="cpu").to(input_ids.device)
        keys = torch.where(candidates, keys, torch.full_like(keys, -1.0))
        chosen.view(-1)[keys.view(-1).topk(k).indices] = True
    return torch.where(chosen, torch.full_like(input_ids, mask_id), input_ids), chosen


AUTHORS_MASK_TOKEN_SHARE = 0.8
"""The authors' `mask_tokens_map`: a chosen token becomes the mask token with probability 1 - 0.1 - 0.1, else it is
kept (their random-word branch runs only when `int(replace_prob) != 0`, and int(0.1) is 0)."""


def text_seed(text: str, seed: int) -> int:
    """A 63-bit seed that depends only on the text and the run's seed."""
    return int.from_bytes(hashlib.sha256(f"{seed}\0{text}".encode()).digest()[:8], "big") >> 1


def mask_per_token(input_ids: torch.Tensor, attention_mask: torch.Tensor, tables: VocabularyTables, ratio: float,
                   mask_id: int, texts: list[str], seed: int, max_length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(masked input ids, bool [B, L] of chosen positions), the authors' rule: each polarity candidate chosen with
    probability `ratio`, a chosen one replaced by the mask token with probability `AUTHORS_MASK_TOKEN_SHARE`, else
    kept (it is still predicted). Their masks are drawn once, when the dataset is prepared; here each row's draws
    come from a generator seeded by its text (`text_seed`), so a sentence is masked the same way whenever it comes
    back. `max_length`: the tokenisation's, so a row's draws do not depend on the batch's padding."""
    candidates = tables.candidates(input_ids, attention_mask)
    draws = torch.stack([torch.rand(2, max_length, generator=torch.Generator().manual_seed(text_seed(text, seed)))
                         for text in texts])[:, :, :input_ids.shape[1]].to(input_ids.device)
    chosen = candidates & (draws[:, 0] < ratio)
    replaced = chosen & (draws[:, 1] < AUTHORS_MASK_TOKEN_SHARE)
    return torch.where(replaced, torch.full_like(input_ids, mask_id), input_ids), chosen


@dataclass
class Objective:
    """The losses and the (optional) MLM head, bound to one encoder."""

    sentence: QuadrupleContrastiveLoss
    word: PolarityMaskedLMLoss | None
    head: MaskedLMHead | None
    tables: VocabularyTables | None


def build_objective(encoder: TransformerEncoder, config: Config, lexicon: dict[str, int] | None) -> Objective:
    sentence = QuadrupleContrastiveLoss(config.temperature, config.alpha, config.sentence_terms,
                                        config.negative_weighting, config.positive_log_weight,
                                        config.in_batch_log_weight, config.negative_anchor)
    if config.lambda_w == 0:
        return Objective(sentence, None, None, None)
    if encoder.tokenizer.mask_token_id is None:
        raise BenchError(f"{encoder.name}'s tokenizer has no mask token; SentiCSE's word-level objective needs one")
    tables = vocabulary_tables(encoder.tokenizer, lexicon if lexicon is not None else sentiwordnet())
    tables = tables.to(encoder.device)
    word = PolarityMaskedLMLoss(tables.polarity, config.word_reduction, config.word_delta).to(encoder.device)
    return Objective(sentence, word, build_head(encoder.model), tables)


def tokenize(encoder: TransformerEncoder, texts: list[str], max_length: int) -> dict[str, torch.Tensor]:
    """Training-time tokenization at the preset's max length (the encoder keeps its evaluation length)."""
    features = encoder.tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    return {k: v.to(encoder.device) for k, v in features.items()}


def step_loss(encoder: TransformerEncoder, objective: Objective, config: Config, texts: list[str],
              generator: torch.Generator, seed: int = 0) -> tuple[torch.Tensor, dict[str, float]]:
    """L = lambda_w L_w + L_s for one batch; `texts` is [p..., p+..., n..., n+...] (4 blocks of B)."""
    b = len(texts) // 4
    vectors = encoder.embed(tokenize(encoder, texts, config.max_length))
    l_s = objective.sentence(vectors[:b], vectors[b:2 * b], vectors[2 * b:3 * b], vectors[3 * b:])
    parts = {"l_s": l_s.item()}
    if objective.word is None:
        return l_s, parts
    masked = texts if config.masked_sentences == "all" else texts[:b] + texts[2 * b:3 * b]
    anchors = tokenize(encoder, masked, config.max_length)
    if config.masking == "per-token":
        masked_ids, chosen = mask_per_token(anchors["input_ids"], anchors["attention_mask"], objective.tables,
                                            config.mask_ratio, encoder.tokenizer.mask_token_id, masked, seed,
                                            config.max_length)
    else:
        masked_ids, chosen = mask_candidates(anchors["input_ids"], anchors["attention_mask"], objective.tables,
                                             config.mask_ratio, encoder.tokenizer.mask_token_id, generator)
    hidden = encoder.model(**{**anchors, "input_ids": masked_ids}).last_hidden_state
    logits = objective.head.module(hidden[chosen])
    l_w = objective.word(logits, anchors["input_ids"][chosen])
    parts.update(l_w=l_w.item(), masked=int(chosen.sum()))
    return config.lambda_w * l_w + l_s, parts


def validation_sgts(encoder: TransformerEncoder, texts: list[str], labels: list[int], seed: int) -> float:
    scores, _ = sgts_on_split(encoder, texts, labels, seed=seed, batch_size=64)
    return float(scores["cosine_spearman"]) if scores["cosine_spearman"] is not None else -1.0


class Trained(torch.nn.Module):
    """Everything SentiCSE optimises (the encoder and, with the word objective, its MLM head), as one
    module so the shared loop can keep and restore its best state."""

    def __init__(self, encoder: TransformerEncoder, objective: Objective) -> None:
        super().__init__()
        self.encoder = encoder.model
        self.head = objective.head.module if objective.head is not None else None


def fit(encoder: TransformerEncoder, train_texts: list[str], train_labels: list[int], valid_texts: list[str],
        valid_labels: list[int], config: Config, seed: int, out_dir: Path, positive: int = 1,
        lexicon: dict[str, int] | None = None, progress: bool = True) -> dict[str, Any]:
    """Train `encoder` in place, select the best validation-SgTS step, save it to `out_dir`; a report."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    if config.pooling:
        encoder.pooling = config.pooling
    objective = build_objective(encoder, config, lexicon)

    def epoch_batches(epoch: int) -> list[np.ndarray]:
        order = quadruples(train_labels, positive, seed, epoch)
        return [order[i:i + config.batch_size] for i in range(0, len(order), config.batch_size)
                if len(order) - i >= 2]

    def loss(rows: np.ndarray) -> tuple[torch.Tensor, dict[str, float]]:
        texts = [train_texts[i] for column in range(4) for i in rows[:, column]]
        return step_loss(encoder, objective, config, texts, generator, seed)

    run = train_loop(Trained(encoder, objective), epoch_batches, loss,
                     lambda: validation_sgts(encoder, valid_texts, valid_labels, seed), config.loop(),
                     description="SentiCSE", progress=progress)
    encoder.save(out_dir)
    head_source = objective.head.source if objective.head else "none (no word-level objective)"
    report = {
        "method": "senticse", "config": dataclasses.asdict(config), "seed": seed, "epochs_started": run.epochs,
        "best_step": run.best_step, "best_val_sgts": run.best_score, "base_val_sgts": run.history[0][1],
        "training": run.report(), "mlm_head": head_source,
        "lexicon": SENTIWORDNET_SOURCE if lexicon is None else "caller-supplied lexicon",
        "pooling": encoder.pooling, "max_length": encoder.max_length, "train_max_length": config.max_length,
        "fit_seconds": run.seconds,
        "notes": f"SentiCSE; MLM head: {head_source}; checkpoint chosen on validation SgTS "
                 f"(step {run.best_step} of {config.steps}).",
    }
    (Path(out_dir) / LOG_FILE).write_text(json.dumps(report, indent=2))
    return report


def train(request) -> dict[str, Any]:
    """`Method.train` for `bench train senticse` and trained cards (a `methods.TrainRequest`)."""
    config = resolve_config(request.preset, request.options)
    encoder = trainable_base(request)  # first: a base that cannot be had here fails before any data work
    dataset = get_dataset(request.data)
    names = tuple(dataset.spec.label_names)
    if len(names) != 2 or "train" not in dataset.splits or "validation" not in dataset.splits:
        raise BenchError(f"SentiCSE trains on a binary sentiment dataset with train and validation splits; "
                         f"'{request.data}' is not one")
    positive = names.index("positive") if "positive" in names else 1
    train_split, valid_split = dataset.split("train"), dataset.split("validation")
    report = fit(encoder, list(train_split["text"]), list(train_split["label"]), list(valid_split["text"]),
                 list(valid_split["label"]), config, request.seed, Path(request.out_dir), positive=positive)
    return {**report, "data": request.data, "base": request.base.name, "preset": request.preset,
            "data_hash": dataset.content_hash}
