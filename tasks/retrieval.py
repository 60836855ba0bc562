"""Polarity / semantic retrieval (Polarity-aware semantic retrieval (anonymous, under review) §3.1, Table 1's set-up).

Protocol, per dataset:
- queries: every sentence of the test split; lookup: a seeded sample of the train split five times the
  test size (all of train when it is smaller; recorded);
- model M encodes queries and lookup once; faiss `IndexFlatIP` on L2-normalised float32 vectors gives
  the exact top k by cosine (k = 16 by default);
- Polarity Score P (Eq. 1): sum_i w_i [label(s_i) == label(s)] with w_i = 2(k+1-i)/(k(k+1));
- Semantic Similarity Score S (Eq. 2): sum_i w_i cos_R(s, s_i), cosines under the reference model R,
  `context.reference` (the runner opens it before evaluation, from the model card: a fine-tuned model's
  base, else the model itself); R is recorded in details;
- option `weights="uniform"` (1/k) reproduces what the authors' code computed by default (it had the
  discount behind a `use_discounting=False` flag); the default is the paper's linear discount;
- mean and std over queries of P and S, as the paper's tables report them, plus label-relevance
  `precision_at_{k}`, `mrr_at_{k}` and `ndcg_at_10` (MTEB's names; relevant = same label, so the ideal
  nDCG ranking holds min(10, #same-label lookup items) relevant items). Main score: P.
Choices where the paper is silent: scores are fractions (the paper prints x100); a lookup item with the
same text as its query is not removed (the datasets are deduplicated within themselves).
The protocol, whole, is `sentibench.evaluation.retrieval.RetrievalEvaluator`; this module holds the tasks.
Samples: the lookup is `capped_indices(len(train), 5 x #queries, seed)` (a seeded permutation prefix,
sorted); both index lists' sha256 are in details. Confidence interval (of P): percentile bootstrap over
queries, the lookup held fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation.retrieval_protocol import PAPER_K, PAPER_LOOKUP_FACTOR
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


@dataclass
class PolarityRetrieval(Task):
    """k-NN retrieval from a train lookup sample, scored by P, S and label-relevance ranking metrics."""

    metadata: TaskMetadata
    k: int = PAPER_K
    lookup_factor: int = PAPER_LOOKUP_FACTOR
    weights: str = "linear-discount"  # or "uniform" (see the module docstring)

    def chance_level(self) -> float:
        """The Polarity Score of neighbours drawn at random from the lookup: the rate at which a random lookup
        item shares its query's label, averaged over the queries, sum_c (q_c / Q)(l_c / L), with the queries
        (the test split) and the lookup (the seeded train sample) that `evaluate` draws under the default context
        (seed 0, no limit). Not leave-one-out: queries and lookup are disjoint splits. Exact for any k and either
        weighting, since the rank weights sum to 1 and every rank's random neighbour is uniform over the lookup."""
        from sentibench.evaluation.chance import random_neighbour_agreement
        from sentibench.evaluation.retrieval import retrieval_sample

        context = EvalContext()
        sample = retrieval_sample(self.metadata.dataset, context.limit, context.seed, self.lookup_factor)
        return random_neighbour_agreement(sample.query_labels, sample.lookup_labels)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.retrieval import RetrievalEvaluator, retrieval_sample  # numpy, faiss: when run

        seed = context.seed
        sample = retrieval_sample(self.metadata.dataset, context.limit, seed, self.lookup_factor)
        same_model = context.reference is None
        evaluator = RetrievalEvaluator(sample, self.k, self.weights, context.reference)
        scored = evaluator(encoder, context.batch_size, context.intervals)
        queries, lookup = scored.details["queries"], scored.details["lookup"]
        details = {"reference_model": context.model_name if same_model else context.reference_model,
                   "reference_is_model_itself": same_model, **scored.details, "lookup_factor": self.lookup_factor,
                   "lookup_capped_by_train_size": lookup < self.lookup_factor * queries,
                   "limit": context.limit, "seed": seed}
        return Evaluation({"test": scored.scores}, details, scored.units)


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
        groups=("retrieval",), uses_reference=True))


register_family("retrieval", retrieval_family)
