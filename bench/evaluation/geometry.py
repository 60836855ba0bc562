"""The geometry protocol, whole, as one evaluator (`GeometryEvaluator`; the shape is `evaluation.evaluator`'s):
alignment, uniformity and tolerance of one labelled sample's L2-normalised embeddings (Wang & Isola 2020; Wang &
Liu 2021), the definitions written into details, and tolerance's units. `tasks/alignment.py` holds the tasks.

The metrics are `evaluation.metrics`' (over the whole sample, not per training batch); the units are the
sentences, their linearised-bootstrap pseudo-values of tolerance (`metrics.tolerance_pseudo_values`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sentibench.core.hashing import digest
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.units import LINEARISED, UnitValues

DEFINITIONS = {
    "alignment": "mean over same-label pairs i<j of ||x_i - x_j||_2^2, x L2-normalised (Wang & Isola 2020, "
                 "alpha=2); lower is better",
    "uniformity": "log of the mean over all pairs i<j of exp(-2 ||x_i - x_j||_2^2) (Wang & Isola 2020, t=2); "
                  "lower is more uniform",
    "tolerance": "mean cosine over same-label pairs i<j (Wang & Liu 2021); higher is more tolerant",
    "scope": "the whole evaluated sample, not per training batch",
}


@dataclass(frozen=True)
class GeometryEvaluator:
    """Alignment, uniformity and tolerance (main) of `texts` labelled `labels` (integers from 0)."""

    texts: Sequence[str]
    labels: np.ndarray

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        texts, labels = list(self.texts), self.labels
        x = encoder.encode(texts, batch_size=batch_size)
        scores = {"alignment": metrics.alignment(x, labels), "uniformity": metrics.uniformity(x),
                  "tolerance": metrics.tolerance(x, labels)}
        counts = np.bincount(labels)
        units = (UnitValues(metrics.tolerance_pseudo_values(x, labels), "sentence", LINEARISED, digest(texts))
                 if intervals else None)
        details = {"definitions": DEFINITIONS, "examples": len(texts),
                   "same_label_pairs": int((counts * (counts - 1) // 2).sum()),
                   "all_pairs": len(texts) * (len(texts) - 1) // 2}
        return Scored(scores, details, units)
