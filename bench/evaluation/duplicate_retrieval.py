"""Duplicate retrieval as one evaluator (`DuplicateRetrievalEvaluator`; the shape is `evaluation.evaluator`'s),
scored as MTEB scores retrieval (nDCG@10 main, MRR@10, Recall@10; binary relevance) and built from graded pairs
as MTEB builds its duplicate-question tasks from labelled pairs:

- the corpus is every distinct text of the pairs; a pair whose gold is >= `threshold` (STS-B: 4.0, "mostly
  equivalent") makes each of its two texts a duplicate of the other (pairs of identical texts are skipped);
- every text with a duplicate is a query; it ranks the rest of the corpus (itself left out) by cosine, ties
  in corpus order, and its duplicates are the relevant documents.
Units: the queries (a score is a mean over queries; percentile bootstrap). The two texts of a pair are two
queries, so the interval treats them as independent (slightly narrow).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.units import mean_units

DEPTH = 10


def duplicate_sets(first: Sequence[str], second: Sequence[str], gold: np.ndarray,
                   threshold: float) -> tuple[list[str], dict[int, set[int]]]:
    """The corpus (distinct texts, first appearance order) and each query's duplicates (corpus indices)."""
    corpus = list(dict.fromkeys(text for pair in zip(first, second) for text in pair))
    index = {text: i for i, text in enumerate(corpus)}
    duplicates: dict[int, set[int]] = {}
    for a, b, score in zip(first, second, np.asarray(gold, dtype=np.float64)):
        if score >= threshold and a != b:
            duplicates.setdefault(index[a], set()).add(index[b])
            duplicates.setdefault(index[b], set()).add(index[a])
    return corpus, dict(sorted(duplicates.items()))


@dataclass(frozen=True)
class DuplicateRetrievalEvaluator:
    """Pairs (first[i], second[i]) with gold scores; `units_id` identifies them for the units hash."""

    first: Sequence[str]
    second: Sequence[str]
    gold: np.ndarray
    threshold: float = 4.0
    units_id: Any = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        corpus, duplicates = duplicate_sets(self.first, self.second, self.gold, self.threshold)
        queries = np.array(list(duplicates))
        vectors = metrics.l2_normalise(encoder.encode(corpus, batch_size=batch_size), np.float64)
        similarity = vectors[queries] @ vectors.T
        similarity[np.arange(len(queries)), queries] = -np.inf  # a query never retrieves itself
        ranked = np.argsort(-similarity, axis=1, kind="stable")[:, :DEPTH]
        relevant = np.array([[doc in duplicates[q] for doc in row] for q, row in zip(queries, ranked)])
        n_relevant = np.array([len(duplicates[q]) for q in queries])
        ndcg = metrics.ndcg_at_k(relevant, DEPTH, n_relevant)
        recall = relevant.sum(axis=1) / n_relevant
        scores = {"ndcg_at_10": float(ndcg.mean()), "mrr_at_10": float(metrics.mrr_at_k(relevant, DEPTH).mean()),
                  "recall_at_10": float(recall.mean())}
        details = {"corpus": len(corpus), "queries": len(queries), "threshold": self.threshold,
                   "relevant_per_query_max": int(n_relevant.max())}
        units = mean_units(ndcg, "query", self.units_id) if intervals else None
        return Scored(scores, details, units)
