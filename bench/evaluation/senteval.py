"""The SentEval transfer protocols, whole, as one evaluator (`SentEvalEvaluator`; the shape is
`evaluation.evaluator`'s): logistic regression on frozen embeddings (raw, not standardised) under SentEval's
protocol for the dataset (k-fold, C by inner CV then test, or C on dev), the pair features of a pairs dataset,
accuracy (main) and F1, and the accuracy's units (one per evaluated item). `tasks/senteval.py` holds the tasks,
and its docstring the protocols and where they differ from SentEval's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from sentibench.embed.encoders import Encoder
from sentibench.evaluation.classifiers import (
    C_LIMITS,
    c_search,
    classification_scores,
    encode_splits,
    grid_edge_warning,
    item_units,
    kfold_protocol,
    split_protocol,
)
from sentibench.evaluation.evaluator import Scored

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


CLASSIFIER = ("LogisticRegressionCV(lbfgs, L2, C from C_grid, widened within C_limits past an improving edge) on "
              "raw embeddings")


@dataclass(frozen=True)
class SentEvalEvaluator:
    """SentEval's protocol `protocol` on single sentences, `singles` (split -> (texts, labels)), or on sentence
    pairs, `pairs` (split -> (first, second, labels); scored on [u, v, |u - v|, u * v] under SentEval's
    KFoldClassifier, a validation split joining train as SentEval's MRPC has none)."""

    protocol: Protocol
    seed: int
    singles: dict[str, tuple[list[str], np.ndarray]] | None = None
    pairs: dict[str, tuple[list[str], list[str], np.ndarray]] | None = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        seed = self.seed
        details: dict = {"protocol": self.protocol, "C_grid": list(SENTEVAL_GRID), "C_limits": list(C_LIMITS),
                         "classifier": CLASSIFIER}
        x, y = {}, {}
        if self.pairs is not None:
            for split, (first, second, labels) in self.pairs.items():  # one encode a split, as before
                vectors = encoder.encode(first + second, batch_size=batch_size)
                x[split], y[split] = pair_features(vectors[:len(first)], vectors[len(first):]), labels
            if "validation" in x:
                x["train"] = np.concatenate([x["train"], x.pop("validation")])
                y["train"] = np.concatenate([y["train"], y.pop("validation")])
            scores, extra, values = cv_then_test(x["train"], y["train"], x["test"], y["test"], seed, positive_f1=True)
            details["features"] = "[u, v, |u - v|, u * v]"
            first, second, _ = self.pairs["test"]
            evaluated = [[a, b] for a, b in zip(first, second)]
        else:
            parts = self.singles or {}
            x = encode_splits(encoder, parts, batch_size)
            y = {split: labels for split, (_, labels) in parts.items()}
            if self.protocol == "kfold":
                all_x, all_y = np.concatenate(list(x.values())), np.concatenate(list(y.values()))
                folds = min(OUTER_FOLDS, int(np.bincount(all_y).min()))
                scores, extra, values = kfold_protocol(all_x, all_y, folds, seed, inner_folds=INNER_FOLDS,
                                                       grid=SENTEVAL_GRID, standardise=False)
                evaluated = [t for split_texts, _ in parts.values() for t in split_texts]
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
        units = item_units(evaluated, seed, values, self.protocol) if intervals else None
        return Scored(scores, details, units)
