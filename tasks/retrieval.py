"""Polarity / semantic retrieval (Polarity-aware semantic retrieval (anonymous, under review) §3.1, Table 1's set-up).

Protocol, per dataset:
- queries: every sentence of the test split; lookup: a seeded sample of the train split five times the
  test size (all of train when it is smaller; recorded);
- model M encodes queries and lookup once; faiss `IndexFlatIP` on L2-normalised float32 vectors gives
  the exact top k by cosine (k = 16 by default);
- Polarity Score P (Eq. 1): sum_i w_i [label(s_i) == label(s)] with w_i = 2(k+1-i)/(k(k+1));
- Semantic Similarity Score S (Eq. 2): sum_i w_i cos_R(s, s_i), cosines under the reference model R,
  `context.reference_model` (the runner fills it from the model card: a fine-tuned model's base, else
  the model itself); R is recorded in details;
- option `weights="uniform"` (1/k) reproduces what the authors' code computed by default (it had the
  discount behind a `use_discounting=False` flag); the default is the paper's linear discount;
- mean and std over queries of P and S, as the paper's tables report them, plus label-relevance
  `precision_at_{k}`, `mrr_at_{k}` and `ndcg_at_10` (MTEB's names; relevant = same label, so the ideal
  nDCG ranking holds min(10, #same-label lookup items) relevant items). Main score: P.
Choices where the paper is silent: scores are fractions (the paper prints x100); a lookup item with the
same text as its query is not removed (the datasets are deduplicated within themselves).
Samples: the lookup is `capped_indices(len(train), 5 x #queries, seed)` (a seeded permutation prefix,
sorted); both index lists' sha256 are in details. Confidence interval (of P): percentile bootstrap over
queries, the lookup held fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentibench.core.hashing import digest
from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.units import mean_units
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.probe import capped_indices, split_arrays
from sentibench.tasks.registry import register_family

NDCG_CUTOFF = 10


def nearest_neighbours(queries: np.ndarray, lookup: np.ndarray, depth: int) -> np.ndarray:
    """Indices [n, depth] of each query's nearest lookup rows by cosine (exact, faiss IndexFlatIP)."""
    import faiss

    lookup = metrics.l2_normalise(lookup)
    index = faiss.IndexFlatIP(lookup.shape[1])
    index.add(lookup)
    _, found = index.search(metrics.l2_normalise(queries), depth)
    return found


@dataclass
class PolarityRetrieval(Task):
    """k-NN retrieval from a train lookup sample, scored by P, S and label-relevance ranking metrics."""

    metadata: TaskMetadata
    k: int = 16
    lookup_factor: int = 5
    weights: str = "linear-discount"  # or "uniform" (see the module docstring)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        seed, dataset = context.seed, self.metadata.dataset
        query_texts, query_labels = split_arrays(dataset, "test", context.limit, seed)
        query_keep = capped_indices(len(get_dataset(dataset).split("test")), context.limit, seed)
        train = get_dataset(dataset).split("train")
        keep = capped_indices(len(train), self.lookup_factor * len(query_texts), seed)
        train_texts = train.data.column("text").to_pylist()
        lookup_texts = [train_texts[i] for i in keep]
        lookup_labels = train.data.column("label").to_numpy()[keep]
        depth = min(max(self.k, NDCG_CUTOFF), len(lookup_texts))
        k = min(self.k, depth)

        vectors = encoder.encode(query_texts + lookup_texts, batch_size=context.batch_size)
        found = nearest_neighbours(vectors[:len(query_texts)], vectors[len(query_texts):], depth)

        reference_name = context.reference_model or context.model_name
        same_model = reference_name == context.model_name or context.load_encoder is None
        reference = encoder if same_model else context.load_encoder(reference_name)
        retrieved = sorted({int(i) for i in found[:, :k].ravel()})
        ref_vectors = reference.encode(query_texts + [lookup_texts[i] for i in retrieved],
                                       batch_size=context.batch_size)
        row_of = {index: len(query_texts) + r for r, index in enumerate(retrieved)}
        neighbour_ref = ref_vectors[np.vectorize(row_of.get)(found[:, :k])]

        weights = metrics.rank_weights(k, self.weights)
        polarity = metrics.polarity_scores(query_labels, lookup_labels[found[:, :k]], weights)
        semantic = metrics.semantic_scores(ref_vectors[:len(query_texts)], neighbour_ref, weights)
        relevant = lookup_labels[found] == query_labels[:, None]
        n_relevant = (lookup_labels[None, :] == query_labels[:, None]).sum(axis=1)
        scores = {
            "polarity_score": float(polarity.mean()), "polarity_score_std": float(polarity.std()),
            "semantic_similarity_score": float(semantic.mean()),
            "semantic_similarity_score_std": float(semantic.std()),
            f"precision_at_{k}": float(metrics.precision_at_k(relevant, k).mean()),
            f"mrr_at_{k}": float(metrics.mrr_at_k(relevant, k).mean()),
            f"ndcg_at_{NDCG_CUTOFF}": float(metrics.ndcg_at_k(relevant, NDCG_CUTOFF, n_relevant).mean()),
        }
        details = {
            "reference_model": reference_name,
            "reference_is_model_itself": same_model,
            "k": k, "weights": weights.tolist(), "weight_scheme": self.weights,
            "queries": len(query_texts), "lookup": len(lookup_texts), "lookup_factor": self.lookup_factor,
            "lookup_capped_by_train_size": len(lookup_texts) < self.lookup_factor * len(query_texts),
            "index": "faiss.IndexFlatIP on L2-normalised float32 (exact cosine)",
            "limit": context.limit, "seed": seed, "dataset_hash": get_dataset(dataset).content_hash,
            "query_indices_sha256": digest(query_keep.tolist()), "lookup_indices_sha256": digest(keep.tolist()),
        }
        units = (mean_units(polarity, "query", {"queries": details["query_indices_sha256"],
                                                "lookup": details["lookup_indices_sha256"], "k": k,
                                                "data": details["dataset_hash"]})
                 if context.intervals else None)
        return Evaluation({"test": scores}, details, units)


def retrieval_family(spec: DatasetSpec) -> PolarityRetrieval | None:
    """Every packaged binary dataset of short texts labelled by sentiment or sarcasm (the paper's two)."""
    if not (spec.offline and spec.is_binary and (spec.has("sentiment") or spec.has("sarcasm"))
            and not spec.has("long")):
        return None
    return PolarityRetrieval(TaskMetadata(
        name=f"retrieval-{spec.name}", type="Retrieval", dataset=spec.name, eval_splits=("test",),
        main_score="polarity_score",
        description=f"Polarity-aware retrieval on {spec.name} ({' / '.join(spec.label_names)}): k=16 neighbours "
        "from a train lookup 5x the test size; Polarity Score P, Semantic Similarity Score S (reference model R), "
        "P@k, MRR@k, nDCG@10.",
        reference="Polarity-aware retrieval paper §3.1 (Eq. 1-2), §3.2 / Table 1",
        groups=("retrieval",)))


register_family("retrieval", retrieval_family)
