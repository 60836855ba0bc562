"""The linear-probe protocol, whole, as one evaluator (`ProbeEvaluator`; the shape is `evaluation.evaluator`'s):
SentEval's logistic regression on frozen embeddings of labelled splits, C tuned on dev (or k-fold over all the
examples of a small set), accuracy (main) and macro-F1, and the accuracy's units (one per evaluated item).
`tasks/probe.py` holds the tasks (which splits, caps, folds) and its docstring the protocol's choices; the
classifier arithmetic is `evaluation.classifiers`'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentibench.embed.encoders import Encoder
from sentibench.evaluation.classifiers import (
    C_GRID,
    C_LIMITS,
    DEV_FRACTION,
    encode_splits,
    holdout,
    item_units,
    kfold_protocol,
    split_protocol,
)
from sentibench.evaluation.evaluator import Scored

CLASSIFIER = ("StandardScaler + LogisticRegressionCV(lbfgs, L2, C from C_grid, widened within C_limits past an "
              "improving edge)")


@dataclass(frozen=True)
class ProbeEvaluator:
    """The probe on `parts` (split -> (texts, labels): train, and validation and test where they exist); `folds`:
    stratified k-fold over every example instead of the splits (a small set)."""

    parts: dict[str, tuple[list[str], np.ndarray]]
    seed: int
    folds: int | None = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        seed = self.seed
        vectors = encode_splits(encoder, self.parts, batch_size)
        x = {split: (vectors[split], labels) for split, (_, labels) in self.parts.items()}
        details = {"protocol": None, "sizes": {s: len(v[1]) for s, v in x.items()}, "C_grid": list(C_GRID),
                   "C_limits": list(C_LIMITS), "classifier": CLASSIFIER}
        if self.folds:
            all_x = np.concatenate([v[0] for v in x.values()])
            all_y = np.concatenate([v[1] for v in x.values()])
            folds = min(self.folds, int(np.bincount(all_y).min()))
            scores, extra, values = kfold_protocol(all_x, all_y, folds, seed)
            details["protocol"] = f"{folds}-fold stratified CV over all splits"
            evaluated = [t for split_texts, _ in self.parts.values() for t in split_texts]
        else:
            if "validation" in x:
                (x_tr, y_tr), (x_dev, y_dev) = x["train"], x["validation"]
                details["protocol"] = "train / dev (C) / test"
            else:
                x_tr, x_dev, y_tr, y_dev = holdout(*x["train"], seed)
                details["protocol"] = f"train / dev carved from train ({DEV_FRACTION:.0%}, seeded) / test"
            scores, extra, values = split_protocol(x_tr, y_tr, x_dev, y_dev, *x["test"], seed)
            evaluated = self.parts["test"][0]
        details.update(extra)
        units = item_units(evaluated, seed, values, details["protocol"]) if intervals else None
        return Scored(scores, details, units)
