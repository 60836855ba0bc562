"""A few-shot task: one protocol at one K/N on one dataset, fine-tuned seed by seed or, as the frozen twin,
logistic regression on frozen vectors (`evaluation.fewshot_frozen`), with the same draws; then the mean over
seeds and its interval."""

from __future__ import annotations

import hashlib
import sys
from functools import partial
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError
from sentibench.core.executors import ItemFailed, fan_out
from sentibench.data import get_dataset
from sentibench.embed.encoders import Encoder
from sentibench.evaluation.fewshot_frozen import Draw, FewShotData, frozen_runs
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.fewshot.protocols import CURRENT_VERSION, FROZEN_VERSION, FewShotProtocol
from sentibench.tasks.fewshot.seeds import SeedRun, fine_tune_seed
from sentibench.training.finetune_config import score

if TYPE_CHECKING:  # numpy loads when a task runs, not when tasks are listed
    import numpy as np

TEST_SUBSET_SEED = 0


def _digest(indices: np.ndarray) -> str:
    import numpy as np

    return hashlib.sha256(np.asarray(indices, dtype=np.int64).tobytes()).hexdigest()[:16]


def _texts_and_labels(split) -> tuple[list[str], np.ndarray]:
    """A split's texts and labels, converted from arrow at once (not row by row)."""
    return split.data.column("text").to_pylist(), split.data.column("label").to_numpy()


FINE_TUNED_TOLERANCE = 0.02
"""A re-run of full fine-tuning (same seeds) may differ by more than frozen protocols: float order changes
every gradient step, and early stopping can pick another epoch."""


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

    def data(self, limit: int | None) -> FewShotData:
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
        return FewShotData(*_texts_and_labels(train), val_texts, val_labels,
                    [test_texts[i] for i in keep], test_labels[keep], info)

    def draws(self, data: FewShotData, context: EvalContext) -> list[Draw]:
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
        runs = (frozen_runs(encoder, data, draws, self.protocol.config.metric) if self.frozen
                else self._fine_tuned(data, draws, context))
        return self._aggregate(data, draws, runs)

    def _fine_tuned(self, data: FewShotData, draws: list[Draw], context: EvalContext) -> list[dict]:
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

    def _aggregate(self, data: FewShotData, draws: list[Draw], runs: list[dict]) -> Evaluation:
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
