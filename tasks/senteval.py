"""SentEval transfer tasks (Conneau & Kiela 2018; InfoDCL, Zhang et al. 2023, E.6; the polarity-aware
retrieval paper, Table 7).

A logistic regression on frozen sentence embeddings, with SentEval's protocol per dataset (its
`usepytorch=False` path, `senteval/tools/validation.py`): scikit-learn's `LogisticRegression` (lbfgs, L2)
on the raw embeddings (no standardisation), C by accuracy over a grid, 10 folds wherever SentEval uses k:
- MR, CR (here: the Amazon review snippets, VADER-rated, which are Hu & Liu's source sentences but not
  SentEval's CR labels), SUBJ, MPQA: SentEval's InnerKFoldClassifier: 10-fold stratified CV over the
  whole dataset (our stored train/dev/test splits pooled, in that order); in each outer fold, C by
  10-fold stratified CV on the fold's training part, refit on all of it, score the held-out fold;
  accuracy is the mean over the outer folds;
- TREC, MRPC: SentEval's KFoldClassifier: C by 10-fold stratified CV on the training set (TREC: the
  original 5,452 questions, our train + dev), refit on all of it, scored on the test set;
- SST2 / SST5: SentEval's SplitClassifier: C on dev, the model fitted on train scored on test;
- MRPC features: [u, v, |u - v|, u * v] (SentEval's pair features); accuracy (main) and F1 of the
  paraphrase class (SentEval / GLUE).
Differences from SentEval (version 3 of these tasks): one first C grid `SENTEVAL_GRID` = 2^-2 .. 2^10 for
every protocol, which holds SentEval's grids (2^-2 .. 2^3, TREC/MRPC 2^-1 .. 2^5) and reaches past them, since
raw-embedding optima sat on their upper edge; a search whose best C is an edge still improving widens past
it, four powers of two at a time, within 2^-24 .. 2^24 (`probe.widening_search`; version 2 stopped at the
first grid); `LogisticRegressionCV` fits each fold's grid as one
warm-started path (the same optimum as SentEval's fit per C, up to the solver's tolerance; 500 iterations);
folds are shuffled with the run's seed (SentEval: 1111). A C still improving at the widening's limit is
flagged in details["grid_edge_warning"]. docs/tasks.md says how the match with SentEval's own code was checked.
Confidence interval: percentile bootstrap over the test items (k-fold: every item, in its own fold).
Scores are fractions; `f1` is macro-F1 except on MRPC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation.classifiers import (
    C_LIMITS,
    c_search,
    classification_scores,
    grid_edge_warning,
    item_units,
    kfold_protocol,
    split_protocol,
)
from sentibench.evaluation.sampling import capped_indices, split_arrays
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family

Protocol = Literal["kfold", "cv-then-test", "splits"]
OUTER_FOLDS = 10
INNER_FOLDS = 10
SENTEVAL_GRID: tuple[float, ...] = tuple(2.0 ** p for p in range(-2, 11))


def cv_then_test(x_train, y_train, x_test, y_test, seed: int, positive_f1: bool) -> tuple[dict, dict, np.ndarray]:
    """SentEval's KFoldClassifier: C by inner stratified k-fold CV on train (`widening_search` from
    `SENTEVAL_GRID`), refit on all of train, score
    test. Returns (scores, details, per-test-item correctness)."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedKFold

    cv = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=seed)
    search = c_search(x_train, y_train, cv, seed, SENTEVAL_GRID, standardise=False)
    best, cv_accuracy = search.C, search.by_c
    predicted = search.predict(x_test)
    scores = classification_scores(y_test, predicted)
    if positive_f1:
        scores["f1"] = float(f1_score(y_test, predicted, average="binary"))
    details = {"C": best, "cv_accuracy_by_C": cv_accuracy, "inner_folds": INNER_FOLDS,
               "grid_edge_warning": grid_edge_warning([(best, cv_accuracy)])}
    return scores, details, (predicted == y_test).astype(np.float64)


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's sentence-pair features: [u, v, |u - v|, u * v]."""
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1)


@dataclass
class SentEvalTransfer(Task):
    """One SentEval transfer dataset under its SentEval protocol (module docstring)."""

    metadata: TaskMetadata
    protocol: Protocol = "kfold"

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        prepared = get_dataset(self.metadata.dataset)
        seed, limit = context.seed, context.limit
        details = {"protocol": self.protocol, "C_grid": list(SENTEVAL_GRID), "C_limits": list(C_LIMITS),
                   "limit": limit, "seed": seed,
                   "classifier": "LogisticRegressionCV(lbfgs, L2, C from C_grid, widened within C_limits past "
                                 "an improving edge) on raw embeddings",
                   "dataset_hash": prepared.content_hash}
        if prepared.spec.kind == "pairs":
            x, y = {}, {}
            for split in ("train", "validation", "test"):
                if split in prepared.splits:
                    x[split], y[split] = self._pairs(prepared.split(split), encoder, context)
            if "validation" in x:  # SentEval's MRPC has train and test only: GLUE's dev joins train
                x["train"] = np.concatenate([x["train"], x.pop("validation")])
                y["train"] = np.concatenate([y["train"], y.pop("validation")])
            scores, extra, values = cv_then_test(x["train"], y["train"], x["test"], y["test"], seed,
                                                 positive_f1=True)
            details["features"] = "[u, v, |u - v|, u * v]"
            evaluated = self._pair_ids(prepared.split("test"), context)
        else:
            parts = {s: split_arrays(self.metadata.dataset, s, limit, seed)
                     for s in ("train", "validation", "test") if s in prepared.splits}
            texts = [t for split_texts, _ in parts.values() for t in split_texts]
            vectors = encoder.encode(texts, batch_size=context.batch_size)
            x, y, start = {}, {}, 0
            for split, (split_texts, labels) in parts.items():
                x[split], y[split] = vectors[start:start + len(split_texts)], labels
                start += len(split_texts)
            if self.protocol == "kfold":
                all_x, all_y = np.concatenate(list(x.values())), np.concatenate(list(y.values()))
                folds = min(OUTER_FOLDS, int(np.bincount(all_y).min()))
                scores, extra, values = kfold_protocol(all_x, all_y, folds, seed, inner_folds=INNER_FOLDS,
                                                       grid=SENTEVAL_GRID, standardise=False)
                evaluated = texts
            elif self.protocol == "cv-then-test":
                train_x = np.concatenate([x[s] for s in ("train", "validation") if s in x])
                train_y = np.concatenate([y[s] for s in ("train", "validation") if s in y])
                scores, extra, values = cv_then_test(train_x, train_y, x["test"], y["test"], seed,
                                                     positive_f1=False)
                evaluated = parts["test"][0]
            else:
                scores, extra, values = split_protocol(x["train"], y["train"], x["validation"], y["validation"],
                                                       x["test"], y["test"], seed, grid=SENTEVAL_GRID,
                                                       standardise=False)
                evaluated = parts["test"][0]
        details["sizes"] = {s: int(len(v)) for s, v in y.items()}
        details.update(extra)
        units = item_units(evaluated, seed, values, self.protocol) if context.intervals else None
        return Evaluation({"test": scores}, details, units)

    @staticmethod
    def _pair_ids(part, context: EvalContext) -> list[list[str]]:
        keep = capped_indices(len(part), context.limit, context.seed)
        first, second = part.data.column("sentence1").to_pylist(), part.data.column("sentence2").to_pylist()
        return [[first[i], second[i]] for i in keep]

    @staticmethod
    def _pairs(part, encoder: Encoder, context: EvalContext) -> tuple[np.ndarray, np.ndarray]:
        keep = capped_indices(len(part), context.limit, context.seed)
        first, second = part.data.column("sentence1").to_pylist(), part.data.column("sentence2").to_pylist()
        first, second = [first[i] for i in keep], [second[i] for i in keep]
        vectors = encoder.encode(first + second, batch_size=context.batch_size)
        labels = part.data.column("score").to_numpy()[keep].astype(int)
        return pair_features(vectors[:len(first)], vectors[len(first):]), labels


def senteval_protocol(spec: DatasetSpec) -> Protocol:
    """SentEval's protocol follows the splits a dataset is published with: none, k-fold over all of it; a
    validation split, C on it; train and test only, C by cross-validation on train."""
    if not spec.standard_splits:
        return "kfold"
    return "splits" if "validation" in spec.standard_splits else "cv-then-test"


def senteval_family(spec: DatasetSpec) -> SentEvalTransfer | None:
    """Every dataset tagged "senteval", under the protocol SentEval gives it."""
    if not spec.has("senteval"):
        return None
    protocol = senteval_protocol(spec)
    return SentEvalTransfer(TaskMetadata(
        name=f"senteval-{spec.name}", type="PairClassification" if spec.kind == "pairs" else "Classification",
        dataset=spec.name, eval_splits=("test",), main_score="accuracy", version=3,
        description=f"SentEval transfer, {spec.display_title}: logistic regression on frozen embeddings "
                    f"({protocol}).",
        reference="SentEval (Conneau & Kiela 2018); InfoDCL (Zhang et al., 2023) E.6; polarity-aware "
                  "retrieval paper, Table 7",
        groups=("senteval",)), protocol=protocol)


register_family("senteval", senteval_family)
