"""The STS protocol, whole, as one evaluator (`STSEvaluator`; the shape is `evaluation.evaluator`'s): the cosine
of each sentence pair against its gold score, Spearman (main) and Pearson, SentEval's subset aggregation where the
pairs carry a source, and the main score's units. `tasks/sts.py` holds the tasks (datasets, splits, caps).

- Each distinct sentence is encoded once (`pair_cosines`); scores come from `metrics.correlations`.
- Subsets (SentEval's STS12-16 layout, one file per source): `all_*` (pooled over subsets; equals the plain
  score), `mean_*` (the unweighted mean of per-subset correlations) and `wmean_*` (weighted by subset size);
  the per-subset values go to details (`subset_scores`).
- Units: the sentence pairs, their linearised-bootstrap pseudo-values (`spearman.spearman_pseudo_values`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentibench.core.hashing import digest
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.spearman import spearman_pseudo_values
from sentibench.evaluation.units import LINEARISED, UnitValues


def pair_cosines(encoder: Encoder, first: list[str], second: list[str], batch_size: int) -> np.ndarray:
    """Cosine of each (first[i], second[i]) pair; each distinct sentence is encoded once."""
    vectors = metrics.l2_normalise(encoder.encode(first + second, batch_size=batch_size), np.float64)
    return np.sum(vectors[:len(first)] * vectors[len(first):], axis=1)


def subset_scores(predicted: np.ndarray, gold: np.ndarray, subsets: list[str]) -> tuple[dict, dict]:
    """SentEval's aggregation over subsets: pooled `all_*`, `mean_*` and size-weighted `wmean_*`."""
    names = sorted(set(subsets))
    labels = np.asarray(subsets)
    per = {name: {**metrics.correlations(predicted[labels == name], gold[labels == name]),
                  "n": int((labels == name).sum())} for name in names}
    pooled = metrics.correlations(predicted, gold)
    scores: dict[str, float | None] = {f"all_{m}": v for m, v in pooled.items()}
    for metric in ("cosine_spearman", "cosine_pearson"):
        valid = [(per[n][metric], per[n]["n"]) for n in names if per[n][metric] is not None]
        values = np.array([v for v, _ in valid])
        sizes = np.array([n for _, n in valid])
        scores[f"mean_{metric}"] = float(values.mean()) if valid else None
        scores[f"wmean_{metric}"] = float((values * sizes).sum() / sizes.sum()) if valid else None
    return scores, per


@dataclass(frozen=True)
class STSEvaluator:
    """STS on one split's pairs (first[i], second[i]) with gold scores; `subsets` names each pair's source
    (None: no subsets); `units_id` identifies the pairs for the units hash (split, indices, data hash)."""

    first: Sequence[str]
    second: Sequence[str]
    gold: np.ndarray
    subsets: Sequence[str] | None = None
    units_id: Any = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        predicted = pair_cosines(encoder, list(self.first), list(self.second), batch_size)
        scores = metrics.correlations(predicted, self.gold)
        details: dict[str, Any] = {}
        if self.subsets is not None:
            extra, details["subsets"] = subset_scores(predicted, self.gold, list(self.subsets))
            scores.update(extra)
        units = None
        if intervals and scores["cosine_spearman"]:
            n = len(self.gold)
            _, values = spearman_pseudo_values(predicted, self.gold, np.arange(n), None, n)
            units = UnitValues(values, "sentence pair", LINEARISED, digest(self.units_id))
        return Scored(scores, details, units)

