"""Polarity-aware semantic retrieval (Polarity-aware semantic retrieval (anonymous, under review) §3.1): the
sample and the scores, apart from the task that records them (`sentibench.tasks.retrieval`), so a method can
score a model in training with the same protocol (polarity-st's evaluator).

- `retrieval_sample`: queries = the test split (capped by `limit`), lookup = a seeded sample of train
  `lookup_factor` times the number of queries (all of train when smaller);
- `score_retrieval`: model M retrieves each query's exact top-k lookup items by cosine (faiss
  `IndexFlatIP` on L2-normalised float32); Polarity Score P (Eq. 1) = sum_i w_i [label(s_i) == label(s)],
  Semantic Similarity Score S (Eq. 2) = sum_i w_i cos_R(s, s_i) under the reference model R, with
  w_i = 2(k+1-i)/(k(k+1)) ("linear-discount") or 1/k ("uniform"); plus label-relevance P@k, MRR@k, nDCG@10;
- `RetrievalEvaluator`: the protocol, whole, in the shape of `evaluation.evaluator` (scores, the details that
  identify the sample, and P's units: the queries, a percentile bootstrap of the mean, the lookup held fixed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentibench.core.hashing import digest
from sentibench.data import get_dataset
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.retrieval_protocol import PAPER_K
from sentibench.evaluation.sampling import capped_indices, split_arrays
from sentibench.evaluation.units import mean_units

NDCG_CUTOFF = 10


@dataclass(frozen=True)
class RetrievalSample:
    """The queries and the lookup of one dataset under one seed (indices into the test and train splits)."""

    query_texts: list[str]
    query_labels: np.ndarray
    query_indices: np.ndarray
    lookup_texts: list[str]
    lookup_labels: np.ndarray
    lookup_indices: np.ndarray
    dataset_hash: str


@dataclass(frozen=True)
class RetrievalScores:
    """Per-query P and S (the interval's resampling units) and the task's summary scores."""

    polarity: np.ndarray
    semantic: np.ndarray
    scores: dict[str, float]
    k: int
    weights: np.ndarray


def retrieval_sample(dataset: str, limit: int | None, seed: int, lookup_factor: int,
                     query_split: str = "test") -> RetrievalSample:
    """The queries (`query_split`, the test split for the task; a trainer selecting on validation names that)
    and the lookup drawn from train."""
    query_texts, query_labels = split_arrays(dataset, query_split, limit, seed)
    data = get_dataset(dataset)
    query_indices = capped_indices(len(data.split(query_split)), limit, seed)
    train = data.split("train")
    keep = capped_indices(len(train), lookup_factor * len(query_texts), seed)
    train_texts = train.data.column("text").to_pylist()
    return RetrievalSample(query_texts, query_labels, query_indices, [train_texts[i] for i in keep],
                           train.data.column("label").to_numpy()[keep], keep, data.content_hash)


def nearest_neighbours(queries: np.ndarray, lookup: np.ndarray, depth: int) -> np.ndarray:
    """Indices [n, depth] of each query's nearest lookup rows by cosine (exact, faiss IndexFlatIP)."""
    import faiss

    lookup = metrics.l2_normalise(lookup)
    index = faiss.IndexFlatIP(lookup.shape[1])
    index.add(lookup)
    _, found = index.search(metrics.l2_normalise(queries), depth)
    return found


def score_retrieval(encoder: Encoder, reference: Encoder, sample: RetrievalSample, k: int, weight_scheme: str,
                    batch_size: int) -> RetrievalScores:
    """Retrieve with `encoder` (M), measure semantic similarity with `reference` (R; may be `encoder`)."""
    queries, lookup = sample.query_texts, sample.lookup_texts
    depth = min(max(k, NDCG_CUTOFF), len(lookup))
    k = min(k, depth)
    vectors = encoder.encode(queries + lookup, batch_size=batch_size)
    found = nearest_neighbours(vectors[:len(queries)], vectors[len(queries):], depth)

    retrieved = sorted({int(i) for i in found[:, :k].ravel()})
    ref_vectors = reference.encode(queries + [lookup[i] for i in retrieved], batch_size=batch_size)
    row_of = {index: len(queries) + r for r, index in enumerate(retrieved)}
    neighbour_ref = ref_vectors[np.vectorize(row_of.get)(found[:, :k])]

    weights = metrics.rank_weights(k, weight_scheme)
    polarity = metrics.polarity_scores(sample.query_labels, sample.lookup_labels[found[:, :k]], weights)
    semantic = metrics.semantic_scores(ref_vectors[:len(queries)], neighbour_ref, weights)
    relevant = sample.lookup_labels[found] == sample.query_labels[:, None]
    n_relevant = (sample.lookup_labels[None, :] == sample.query_labels[:, None]).sum(axis=1)
    scores = {
        "polarity_score": float(polarity.mean()), "polarity_score_std": float(polarity.std()),
        "semantic_similarity_score": float(semantic.mean()),
        "semantic_similarity_score_std": float(semantic.std()),
        f"precision_at_{k}": float(metrics.precision_at_k(relevant, k).mean()),
        f"mrr_at_{k}": float(metrics.mrr_at_k(relevant, k).mean()),
        f"ndcg_at_{NDCG_CUTOFF}": float(metrics.ndcg_at_k(relevant, NDCG_CUTOFF, n_relevant).mean()),
    }
    return RetrievalScores(polarity, semantic, scores, k, weights)


@dataclass(frozen=True)
class RetrievalEvaluator:
    """Retrieval on `sample`: M (the encoder called) retrieves, S is measured under `reference` (R; None: M)."""

    sample: RetrievalSample
    k: int = PAPER_K
    weight_scheme: str = "linear-discount"
    reference: Encoder | None = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        sample = self.sample
        scored = score_retrieval(encoder, self.reference or encoder, sample, self.k, self.weight_scheme, batch_size)
        details = {"k": scored.k, "weights": scored.weights.tolist(), "weight_scheme": self.weight_scheme,
                   "queries": len(sample.query_texts), "lookup": len(sample.lookup_texts),
                   "index": "faiss.IndexFlatIP on L2-normalised float32 (exact cosine)",
                   "dataset_hash": sample.dataset_hash,
                   "query_indices_sha256": digest(sample.query_indices.tolist()),
                   "lookup_indices_sha256": digest(sample.lookup_indices.tolist())}
        units = (mean_units(scored.polarity, "query", {"queries": details["query_indices_sha256"],
                                                       "lookup": details["lookup_indices_sha256"], "k": scored.k,
                                                       "data": details["dataset_hash"]})
                 if intervals else None)
        return Scored(scored.scores, details, units)
