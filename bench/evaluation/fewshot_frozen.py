"""The frozen twin of a few-shot task, an evaluator like the others: for each seed's draw of training and
validation examples (the fine-tuned task's own draws), scikit-learn logistic regression on the frozen (cached)
vectors, its C chosen on the validation examples, then the test texts predicted (`tasks.fewshot`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from sentibench.embed.encoders import Encoder


@dataclass(frozen=True)
class Draw:
    """One seed's training and validation examples (indices into train, or into validation)."""

    seed: int
    train: np.ndarray
    validation: np.ndarray


@dataclass(frozen=True)
class FewShotData:
    """Train, the validation pool and test of one few-shot task, as texts and labels."""

    train_texts: list[str]
    train_labels: np.ndarray
    validation_texts: list[str]   # the pool `Draw.validation` indexes
    validation_labels: np.ndarray
    test_texts: list[str]
    test_labels: np.ndarray
    info: dict


def frozen_search(x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray, metric: str,
                  seed: int) -> tuple[LogisticRegression, float, dict[str, float]]:
    """The frozen twin's classifier: a logistic regression (lbfgs, L2) per C on (x, y), C by `metric` on the
    validation draw (vx, vy), ties to the stronger regularisation, from `C_GRID` widened past an edge that
    is still improving (`widening_search`; each C is fitted once). Returns (model, C, score by C searched)."""
    from sklearn.linear_model import LogisticRegression

    from sentibench.evaluation.classifiers import C_GRID, classification_scores, widening_search

    models: dict[float, LogisticRegression] = {}
    scores: dict[float, float] = {}

    def fit(grid: tuple[float, ...]) -> tuple[float, dict[str, float]]:
        for c in grid:
            if c not in models:
                models[c] = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x, y)
                scores[c] = classification_scores(vy, models[c].predict(vx))[metric]
        best = max(grid, key=lambda c: (scores[c], -c))
        return best, {str(c): scores[c] for c in grid}

    best, by_c = widening_search(fit, lambda chosen: chosen, C_GRID)
    return models[best], best, by_c


def frozen_runs(encoder: Encoder, data: FewShotData, draws: list[Draw], metric: str) -> list[dict]:
    """Each draw's logistic regression on frozen vectors (`frozen_search`), its test predictions and the C it
    chose; every text is encoded in one call, so the embedding cache dedupes across tasks and runs."""
    import numpy as np

    train_ids = sorted({int(i) for d in draws for i in d.train})
    val_ids = sorted({int(i) for d in draws for i in d.validation})
    texts = ([data.train_texts[i] for i in train_ids] + [data.validation_texts[i] for i in val_ids]
             + data.test_texts)
    vectors = encoder.encode(texts)
    train_x = dict(zip(train_ids, vectors[:len(train_ids)]))
    val_x = dict(zip(val_ids, vectors[len(train_ids):len(train_ids) + len(val_ids)]))
    test_x = vectors[len(train_ids) + len(val_ids):]
    runs = []
    for draw in draws:
        x, y = np.stack([train_x[int(i)] for i in draw.train]), data.train_labels[draw.train]
        vx, vy = np.stack([val_x[int(i)] for i in draw.validation]), data.validation_labels[draw.validation]
        model, best, val_scores = frozen_search(x, y, vx, vy, metric, draw.seed)
        runs.append({"predicted": model.predict(test_x), "validation_score": val_scores[str(best)],
                     "C": best, "validation_score_by_C": val_scores})
    return runs
