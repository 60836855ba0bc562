"""Few-shot classification: fine-tune the encoder on K examples per class (or N examples), score test.

Two protocols (docs/fewshot.md has the full record of choices):
- SentiCSE (Kim et al., 2024, §4.4, Table 12): K examples per class drawn without replacement from train;
  500 validation examples drawn from the rest of train; full fine-tuning with the backbone's
  sequence-classification head on the first token, lr 1e-5, batch 16, weight decay 0.01, at most 100 epochs,
  validation every 20 steps, early stop with patience 5 (validations), best state restored; 10 seeds; accuracy.
- InfoDCL (Zhang et al., 2023, §4 "Few-Shot Learning", C.2, D.3): N examples from train (drawn independently
  per seed; we stratify by label to keep train's class proportions), the dataset's own dev split for
  early stopping, lr 1e-5, batch 32, 20 epochs, patience 5 (epochs), weight decay 0 (not stated: the
  Trainer default); 5 seeds; macro-F1.
Both fine-tune the backbone's own sequence-classification head on the unnormalised first-token state, as both
papers' code does (task version 2); the head of version 1, a linear layer on the encoder's pooled (normalised)
vector, stays reachable as the `fewshot-<protocol>-pooled-...` tasks (`with_pooled_linear_head`).
Each fine-tuning task has a frozen twin (`fewshot-frozen-...`): scikit-learn logistic regression on the
frozen (cached) embeddings with exactly the same draws and seeds, its C chosen on the same validation
examples. Encoders without trainable torch weights only run the frozen twins.

Seeds are `context.seed + i`, i < seeds; the confidence interval of the mean over seeds is Student's t
(seeds are the units; `bench compare` pairs models seed by seed). Each fine-tuning seed is an independent
work item (`SeedRun`) fanned out through the run's executor: in this process by default, one Ray task per seed
with `--executor ray`. A test split larger than `test_cap` (IMDB) is replaced by a fixed seeded sample
(seed `TEST_SUBSET_SEED`, the probe task's prefix sampling), recorded in the result.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError
from sentibench.core.executors import ItemFailed, fan_out
from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family
from sentibench.training.finetune_config import FineTuneConfig, score

if TYPE_CHECKING:  # numpy, scikit-learn and the samplers load when a task runs, not when tasks are listed
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from sentibench.training.finetune import PretrainedWeights

TEST_SUBSET_SEED = 0


def frozen_search(x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray, metric: str,
                  seed: int) -> tuple[LogisticRegression, float, dict[str, float]]:
    """The frozen twin's classifier: a logistic regression (lbfgs, L2) per C on (x, y), C by `metric` on the
    validation draw (vx, vy), ties to the stronger regularisation, from `C_GRID` widened past an edge that
    is still improving (`widening_search`; each C is fitted once). Returns (model, C, score by C searched)."""
    from sklearn.linear_model import LogisticRegression

    from sentibench.evaluation.classifiers import C_GRID, widening_search

    models: dict[float, LogisticRegression] = {}
    scores: dict[float, float] = {}

    def fit(grid: tuple[float, ...]) -> tuple[float, dict[str, float]]:
        for c in grid:
            if c not in models:
                models[c] = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x, y)
                scores[c] = score(metric, vy, models[c].predict(vx))
        best = max(grid, key=lambda c: (scores[c], -c))
        return best, {str(c): scores[c] for c in grid}

    best, by_c = widening_search(fit, lambda chosen: chosen, C_GRID)
    return models[best], best, by_c


@dataclass(frozen=True)
class FewShotProtocol:
    """A paper's few-shot evaluation design: how many examples, drawn how, validated how, trained how."""

    name: str
    per_class: bool                 # True: `size` examples per class (K); False: `size` in total (N)
    sizes: tuple[int, ...]
    seeds: int
    validation_size: int | None     # drawn from the rest of train; None: the dataset's validation split
    config: FineTuneConfig
    reference: str
    version: int = 1                # the fine-tuned tasks' protocol version (the frozen twins': FROZEN_VERSION)
    draws_of: str | None = None     # a head variant: the protocol whose draws and frozen twin it shares
    first_seed: int | None = None   # seeds first_seed, first_seed + 1, ...; None: from the run's seed
    test_size: int | None = None    # test: a fixed seeded sample of this many texts; None: the whole split


SENTICSE = FewShotProtocol(
    name="senticse", per_class=True, sizes=(1, 5), seeds=10, validation_size=500,
    config=FineTuneConfig(learning_rate=1e-5, batch_size=16, weight_decay=0.01, max_epochs=100, patience=5,
                          eval_steps=20, metric="accuracy", head="sequence-classification"),
    reference="SentiCSE (Kim et al., 2024), §4.4 and Table 12", version=2)
INFODCL = FewShotProtocol(
    name="infodcl", per_class=False, sizes=(20, 100, 500, 1000), seeds=5, validation_size=None,
    config=FineTuneConfig(learning_rate=1e-5, batch_size=32, weight_decay=0.0, max_epochs=20, patience=5,
                          eval_steps=None, metric="f1", head="sequence-classification"),
    reference="InfoDCL (Zhang et al., 2023), §4 (Few-Shot Learning), C.2 and D.3", version=2)
FROZEN_VERSION = 3  # v3: C_GRID widened past an improving edge (v2 stopped at 2^-10 .. 2^4); no head to change
POOLED_LINEAR_VERSION = 1  # the fine-tuned tasks' protocol before the sequence-classification head (version 2)


def with_pooled_linear_head(protocol: FewShotProtocol) -> FewShotProtocol:
    """`protocol` fine-tuned with the head of its version 1 (`pooled-linear`: a linear layer on the encoder's
    pooled, possibly L2-normalised vector); same draws, seeds and hyper-parameters, task names
    `fewshot-<protocol>-pooled-...`, task version 1 (the protocol every result made before version 2 used)."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-pooled", draws_of=protocol.name,
                               version=POOLED_LINEAR_VERSION,
                               config=dataclasses.replace(protocol.config, head="pooled-linear"))


POOLED_LINEAR_PROTOCOLS = tuple(with_pooled_linear_head(p) for p in (SENTICSE, INFODCL))
CURRENT_VERSION = 3


def as_version_3(protocol: FewShotProtocol) -> FewShotProtocol:
    """`protocol` at task version 3 (task names `fewshot-<protocol>-v3-...`): the `pooled-sequence-classification`
    head on the model's own sentence vector (the one the frozen twin reads) and the state with the lowest
    validation loss kept (the SentiCSE authors' `Trainer` without `metric_for_best_model`); same draws, seeds,
    hyper-parameters and frozen twin as version 2."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-v3", draws_of=protocol.name, version=CURRENT_VERSION,
                               config=dataclasses.replace(protocol.config, head="pooled-sequence-classification",
                                                          select_by="loss"))


def selecting_by_metric(protocol: FewShotProtocol) -> FewShotProtocol:
    """Version 3 keeping the state with the highest validation metric (versions 1-2's rule) instead of the lowest
    loss: task names `fewshot-<protocol>-v3-by-<metric>-...`, an option of version 3."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-by-{protocol.config.metric}",
                               config=dataclasses.replace(protocol.config, select_by="metric"))


def with_first_token_head(protocol: FewShotProtocol) -> FewShotProtocol:
    """Version 3 with the backbone's own sequence-classification head on the first token (version 2's head), so
    with the loss selection it is the SentiCSE authors' model and rule: task names
    `fewshot-<protocol>-v3-first-token-...`, an option of version 3."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-first-token",
                               config=dataclasses.replace(protocol.config, head="sequence-classification"))


def with_script_settings(protocol: FewShotProtocol) -> FewShotProtocol:
    """The SentiCSE authors' `few_shot_experiment.py` where it differs from their paper's text (§4.4): seeds 1..5
    instead of 10, a fixed sample of 500 test texts instead of the whole split, truncation at 128 tokens instead of
    the card's max length. Not registered (a Python-API variant, docs/fewshot.md); its draws are this harness's
    (K per class), where the script draws K x classes stratified and validates on the rest shuffled with seed 0."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-script", seeds=5, first_seed=1, test_size=500,
                               draws_of=protocol.draws_of or protocol.name,
                               config=dataclasses.replace(protocol.config, max_length=128))


VERSION_3_PROTOCOLS = tuple(as_version_3(p) for p in (SENTICSE, INFODCL))
VERSION_3_OPTIONS = tuple(option(p) for p in VERSION_3_PROTOCOLS for option in (selecting_by_metric,
                                                                                 with_first_token_head))


def _digest(indices: np.ndarray) -> str:
    import numpy as np

    return hashlib.sha256(np.asarray(indices, dtype=np.int64).tobytes()).hexdigest()[:16]


def _texts_and_labels(split) -> tuple[list[str], np.ndarray]:
    """A split's texts and labels, converted from arrow at once (not row by row)."""
    return split.data.column("text").to_pylist(), split.data.column("label").to_numpy()


@dataclass(frozen=True)
class Draw:
    """One seed's training and validation examples (indices into train, or into validation)."""

    seed: int
    train: np.ndarray
    validation: np.ndarray


@dataclass(frozen=True)
class Data:
    train_texts: list[str]
    train_labels: np.ndarray
    validation_texts: list[str]   # the pool `Draw.validation` indexes
    validation_labels: np.ndarray
    test_texts: list[str]
    test_labels: np.ndarray
    info: dict


FINE_TUNED_TOLERANCE = 0.02
"""A re-run of full fine-tuning (same seeds) may differ by more than frozen protocols: float order changes
every gradient step, and early stopping can pick another epoch."""


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


class FewShotTask(Task):
    """One protocol at one K/N on one dataset, fine-tuned (or, `frozen=True`, logistic regression)."""

    def __init__(self, protocol: FewShotProtocol, size: int, dataset: str, frozen: bool = False,
                 test_cap: int | None = None, groups: tuple[str, ...] = (), note: str = "") -> None:
        self.protocol, self.size, self.frozen, self.test_cap = protocol, size, frozen, test_cap
        letter = "k" if protocol.per_class else "n"
        shots = f"K={size} per class" if protocol.per_class else f"N={size}"
        heads = {"sequence-classification": "the backbone's sequence-classification head on the first token",
                 "pooled-linear": "a linear head on the pooled output",
                 "pooled-sequence-classification": "a sequence-classification head on the model's own sentence "
                                                   "vector"}
        kept = ("lowest validation loss" if protocol.config.select_by == "loss"
                else f"highest validation {protocol.config.metric}")
        how = ("logistic regression on frozen embeddings (C from the validation draw)" if frozen
               else f"full fine-tuning with {heads[protocol.config.head]}" + (
                   f", state of {kept} kept" if protocol.version >= CURRENT_VERSION else ""))
        self.metadata = TaskMetadata(
            name=f"fewshot-{'frozen-' if frozen else ''}{protocol.name}-{letter}{size}-{dataset}",
            type="FewShot", dataset=dataset, eval_splits=("test",),
            main_score=protocol.config.metric,
            description=f"{protocol.name} few-shot protocol, {shots}, {protocol.seeds} seeds, {how}; "
                        f"mean over seeds.{' ' + note if note else ''}",
            reference=protocol.reference, groups=groups, fine_tunes=not frozen,
            tolerance=0.005 if frozen else FINE_TUNED_TOLERANCE,
            version=FROZEN_VERSION if frozen else protocol.version)

    @property
    def frozen_name(self) -> str:
        if self.frozen:
            return self.name
        twin = self.name.replace("fewshot-", "fewshot-frozen-", 1)
        if self.protocol.draws_of:
            twin = twin.replace(f"-{self.protocol.name}-", f"-{self.protocol.draws_of}-", 1)
        return twin

    def data(self, limit: int | None) -> Data:
        """Texts and labels of train, the validation pool and test (capped as recorded in `info`)."""
        from sentibench.evaluation.sampling import capped_indices

        prepared = get_dataset(self.metadata.dataset)
        train, test = prepared.split("train"), prepared.split("test")
        cap = min(c for c in (self.test_cap, self.protocol.test_size, limit, 10**12) if c is not None)
        keep = capped_indices(len(test), cap, TEST_SUBSET_SEED)
        test_texts, test_labels = _texts_and_labels(test)
        info = {"test_size": len(keep), "test_full_size": len(test),
                "test_subset": None if len(keep) == len(test) else
                {"size": len(keep), "seed": TEST_SUBSET_SEED, "indices_sha256": _digest(keep),
                 "how": "seeded permutation prefix (sentibench.evaluation.sampling.capped_indices)"}}
        if self.protocol.validation_size is None:
            pool = prepared.split("validation")
            val_texts, val_labels = _texts_and_labels(pool)
        else:
            val_texts, val_labels = _texts_and_labels(train)
        return Data(*_texts_and_labels(train), val_texts, val_labels,
                    [test_texts[i] for i in keep], test_labels[keep], info)

    def draws(self, data: Data, context: EvalContext) -> list[Draw]:
        """Every seed's training and validation examples; the frozen twin gets exactly the same."""
        from sentibench.evaluation.sampling import capped_indices, sample_per_class, sample_rest, sample_stratified

        out = []
        first = context.seed if self.protocol.first_seed is None else self.protocol.first_seed
        for seed in range(first, first + self.protocol.seeds):
            sample = sample_per_class if self.protocol.per_class else sample_stratified
            train = sample(data.train_labels, self.size, seed)
            wanted = min(c for c in (self.protocol.validation_size, context.limit, 10**12) if c is not None)
            if self.protocol.validation_size is None:
                validation = capped_indices(len(data.validation_labels), context.limit, seed)
            else:
                validation = sample_rest(len(data.train_labels), train, wanted, seed)
            out.append(Draw(seed, train, validation))
        return out

    def chance_level(self) -> float:
        """From the test labels every seed is scored on (one fixed, possibly capped, test set, the same for all
        seeds and for the frozen twin and its fine-tuned tasks), by what the training draw teaches a classifier
        that ignores the text: K examples per class (SentiCSE) give it no class to prefer, so chance is uniform
        guessing, 1/C accuracy whatever the test balance; N examples drawn with the class prior (InfoDCL, scored
        by macro-F1) make it guess from that prior, macro-F1 1/C. Default context: no limit."""
        from sentibench.evaluation.chance import majority_rate, prior_guess_macro_f1, uniform_accuracy

        labels = self.data(EvalContext().limit).test_labels
        if self.metadata.main_score != "accuracy":
            return prior_guess_macro_f1(labels)
        return uniform_accuracy(labels) if self.protocol.per_class else majority_rate(labels)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        data = self.data(context.limit)
        draws = self.draws(data, context)
        runs = self._frozen(encoder, data, draws) if self.frozen else self._fine_tuned(data, draws, context)
        return self._aggregate(data, draws, runs)

    def _fine_tuned(self, data: Data, draws: list[Draw], context: EvalContext) -> list[dict]:
        """One item per seed, fanned out through the run's executor (in this process by default)."""
        from tqdm.auto import tqdm

        if context.load_trainable() is None:
            raise BenchError(f"'{self.name}' fine-tunes the encoder, but model '{context.model_name}' has no "
                             f"trainable torch weights; run '{self.frozen_name}' (logistic regression on frozen "
                             "embeddings) instead")
        seed_runs = [SeedRun(self.name, draw.seed, [data.train_texts[i] for i in draw.train],
                         data.train_labels[draw.train].tolist(),
                         [data.validation_texts[i] for i in draw.validation],
                         data.validation_labels[draw.validation].tolist()) for draw in draws]
        num_labels = int(max(data.train_labels.max(), data.test_labels.max())) + 1
        from sentibench.training.finetune import PretrainedWeights

        work = partial(fine_tune_seed, weights=PretrainedWeights(context.load_trainable), test_texts=data.test_texts,
                       num_labels=num_labels, config=self.protocol.config)
        runs, failed = {}, []
        with tqdm(total=len(seed_runs), desc=f"{self.name} seeds", unit="seed", file=sys.stderr) as bar:
            for seed_run, outcome in fan_out(context.executor, work, seed_runs, trains=True):
                if isinstance(outcome, ItemFailed):
                    failed.append(f"{seed_run.label}: {outcome.message}")
                    continue
                runs[seed_run.seed] = outcome
                test = score(self.protocol.config.metric, data.test_labels, outcome["predicted"])
                bar.set_postfix(seed=seed_run.seed, test=f"{test:.3f}")
                bar.update()
        if failed:
            raise BenchError("; ".join(failed))
        return [runs[draw.seed] for draw in draws]

    def _frozen(self, encoder: Encoder, data: Data, draws: list[Draw]) -> list[dict]:
        import numpy as np

        train_ids = sorted({int(i) for d in draws for i in d.train})
        val_ids = sorted({int(i) for d in draws for i in d.validation})
        texts = ([data.train_texts[i] for i in train_ids] + [data.validation_texts[i] for i in val_ids]
                 + data.test_texts)
        vectors = encoder.encode(texts)  # one call: the embedding cache dedupes across tasks and runs
        train_x = dict(zip(train_ids, vectors[:len(train_ids)]))
        val_x = dict(zip(val_ids, vectors[len(train_ids):len(train_ids) + len(val_ids)]))
        test_x = vectors[len(train_ids) + len(val_ids):]
        metric, runs = self.protocol.config.metric, []
        for draw in draws:
            x, y = np.stack([train_x[int(i)] for i in draw.train]), data.train_labels[draw.train]
            vx, vy = np.stack([val_x[int(i)] for i in draw.validation]), data.validation_labels[draw.validation]
            model, best, val_scores = frozen_search(x, y, vx, vy, metric, draw.seed)
            runs.append({"predicted": model.predict(test_x), "validation_score": val_scores[str(best)],
                         "C": best, "validation_score_by_C": val_scores})
        return runs

    def _aggregate(self, data: Data, draws: list[Draw], runs: list[dict]) -> Evaluation:
        import numpy as np

        from sentibench.evaluation.bootstrap import t_interval
        from sentibench.evaluation.classifiers import C_GRID, C_LIMITS, grid_edge_warning

        per_seed = []
        for draw, run in zip(draws, runs):
            predicted = run.pop("predicted")
            per_seed.append({"seed": draw.seed, "accuracy": score("accuracy", data.test_labels, predicted),
                             "f1": score("f1", data.test_labels, predicted), **run,
                             "train_size": len(draw.train), "train_indices_sha256": _digest(draw.train),
                             "train_label_counts": np.bincount(data.train_labels[draw.train]).tolist(),
                             "validation_size": len(draw.validation),
                             "validation_indices_sha256": _digest(draw.validation)})
        scores = {}
        for metric in ("accuracy", "f1"):
            values = np.array([s[metric] for s in per_seed])
            scores[metric] = float(values.mean())
            scores[f"{metric}_std"] = float(values.std(ddof=1)) if len(values) > 1 else None
        config = self.protocol.config
        details = {
            "protocol": self.protocol.name, "variant": "frozen-logistic-regression" if self.frozen else "fine-tune",
            "k_per_class" if self.protocol.per_class else "n_train": self.size,
            "seeds": [d.seed for d in draws], "per_seed": per_seed,
            "validation": (f"{self.protocol.validation_size} examples drawn from the rest of train per seed"
                           if self.protocol.validation_size else "the dataset's validation split"),
            "chance_accuracy": float(np.bincount(data.test_labels).max() / len(data.test_labels)),
            "confidence_interval": t_interval([s[self.metadata.main_score] for s in per_seed]),
            "std": "sample standard deviation over seeds (ddof=1)", **data.info}
        if self.frozen:
            details["classifier"] = ("sklearn LogisticRegression(lbfgs, L2), C by validation score from C_grid, "
                                     "widened within C_limits past an improving edge")
            details["C_grid"] = list(C_GRID)
            details["C_limits"] = list(C_LIMITS)
            details["grid_edge_warning"] = grid_edge_warning([(s["C"], s["validation_score_by_C"]) for s in per_seed])
        else:
            details["fine_tune"] = {k: getattr(config, k) for k in (
                "learning_rate", "batch_size", "weight_decay", "max_epochs", "patience", "eval_steps", "metric",
                "max_grad_norm", "head", "select_by", "max_length")}
        return Evaluation({"test": scores}, details)


# The default group `fewshot` is what a 2-core CPU can afford (docs/fewshot.md has the measured costs): a
# budget choice, not a dataset fact, so it is named here: the SentiCSE protocol (K = 1, 5; 10 seeds)
# fine-tuned on three short-text sets, the InfoDCL protocol at N = 20 on tweets only (its Twitter setting;
# N >= 100 costs 10-50x more), and the frozen twin of each, plus the frozen SentiCSE twins of long-text sets
# (fine-tuning on 256-token reviews is hours here). Every dataset the family accepts gets every setting by
# name; `fewshot-full` holds all the fine-tuning tasks (for a GPU), `fewshot-frozen` all the frozen twins.
CPU_DEFAULT_DATASETS = ("mr", "vader-amazon", "vader-tweets")
POOLED_LINEAR_GROUP = "fewshot-pooled"  # the version-1 head (docs/fewshot.md): not in `fewshot-full`
VERSION_3_GROUP = "fewshot-v3"  # version 3 (docs/fewshot.md); the default group moves when its results are made
VERSION_3_OPTIONS_GROUP = "fewshot-v3-options"  # version 3 by accuracy / with the first-token head


def _in_default_group(protocol: FewShotProtocol, size: int, spec: DatasetSpec, frozen: bool) -> bool:
    if spec.has("long"):
        return frozen and protocol is SENTICSE
    if spec.name not in CPU_DEFAULT_DATASETS:
        return False
    return protocol is SENTICSE or (spec.has("tweet") and size == 20)


def _fits(protocol: FewShotProtocol, size: int, spec: DatasetSpec) -> bool:
    """Whether the dataset's planned train split (when its size is declared) holds a draw: the training examples
    plus the validation examples drawn from the rest of train."""
    train = spec.planned_train_size
    drawn = size * len(spec.label_names) if protocol.per_class else size
    return train is None or drawn + (protocol.validation_size or 0) < train


def fewshot_family(spec: DatasetSpec) -> list[FewShotTask] | None:
    """Every packaged binary sentiment dataset, under both protocols, fine-tuned and frozen, at every size its
    train split holds (`_fits`). A long-text set's test split is capped at half its `max_examples` (each of the
    seeds predicts it again)."""
    if not (spec.offline and spec.is_binary and spec.has("sentiment")):
        return None
    cap = spec.max_examples // 2 if spec.max_examples and spec.has("long") else None
    tasks = []
    for protocol in (SENTICSE, INFODCL):
        for size in filter(lambda size: _fits(protocol, size, spec), protocol.sizes):
            for frozen in (False, True):
                default = _in_default_group(protocol, size, spec, frozen)
                own = "fewshot-frozen" if frozen else "fewshot-full"
                where = (f"In the default group 'fewshot' and in '{own}'." if default else
                         f"In '{own}', not in the default group 'fewshot' (too slow on a 2-core CPU).")
                note = (f"Test: a fixed seeded sample of {cap} of the test texts. " if cap else "") + where
                tasks.append(FewShotTask(protocol, size, spec.name, frozen=frozen, test_cap=cap, note=note,
                                         groups=("fewshot", own) if default else (own,)))
    for protocols, group in ((POOLED_LINEAR_PROTOCOLS, POOLED_LINEAR_GROUP), (VERSION_3_PROTOCOLS, VERSION_3_GROUP),
                             (VERSION_3_OPTIONS, VERSION_3_OPTIONS_GROUP)):
        for protocol in protocols:
            for size in filter(lambda size: _fits(protocol, size, spec), protocol.sizes):
                note = (f"Test: a fixed seeded sample of {cap} of the test texts. " if cap else "") + (
                    f"In the group '{group}' only; frozen twin: the {protocol.draws_of} one.")
                tasks.append(FewShotTask(protocol, size, spec.name, test_cap=cap, note=note, groups=(group,)))
    return tasks


register_family("fewshot", fewshot_family)
