"""Document similarity as one evaluator (`DocumentSimilarityEvaluator`; the shape is `evaluation.evaluator`'s):
Lee et al. (2005)'s protocol, as gensim's LSI test and later embedding papers apply it: the cosine of each rated
document pair against the mean human rating, Spearman's rho (main) and Pearson's r over the rated pairs.

- Each distinct document is encoded once (a Lee document is in 49 of the 1,225 pairs).
- Units: the documents, not the pairs (pairs share documents, as SgTS pairs share sentences): a pair carries
  the product of its two documents' weights, and each document's linearised-bootstrap pseudo-value is
  rho + n x (the sum of its pairs' Spearman influences) (`spearman.spearman_pseudo_values`).
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


@dataclass(frozen=True)
class DocumentSimilarityEvaluator:
    """Rated pairs (first[i], second[i]) of documents with their gold similarity; `units_id` identifies the
    pairs for the units hash (data hash, split)."""

    first: Sequence[str]
    second: Sequence[str]
    gold: np.ndarray
    units_id: Any = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        documents = list(dict.fromkeys([*self.first, *self.second]))
        index = {text: i for i, text in enumerate(documents)}
        first = np.array([index[text] for text in self.first])
        second = np.array([index[text] for text in self.second])
        vectors = metrics.l2_normalise(encoder.encode(documents, batch_size=batch_size), np.float64)
        cosines = np.sum(vectors[first] * vectors[second], axis=1)
        gold = np.asarray(self.gold, dtype=np.float64)
        scores = metrics.correlations(cosines, gold)
        details = {"documents": len(documents), "pairs": len(gold)}
        units = None
        if intervals and scores["cosine_spearman"] is not None:
            _, values = spearman_pseudo_values(cosines, gold, first, second, len(documents))
            units = UnitValues(values, "document", LINEARISED, digest(self.units_id))
        return Scored(scores, details, units)
