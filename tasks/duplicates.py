"""Duplicate retrieval from graded sentence pairs (MTEB's retrieval scoring, Muennighoff et al. 2023, §3.2
Retrieval; its duplicate-question tasks build a corpus from labelled pairs the same way).

Every packaged pairs dataset of sentences tagged "sts" gets `duplicates-<dataset>` on its test split: each
sentence of a pair whose gold is >= 4.0 (STS-B's "mostly equivalent") must retrieve its partner by cosine among
all the split's distinct sentences (itself left out); nDCG@10 (main, `ndcg_at_10`), MRR@10 and Recall@10.
Confidence interval: percentile bootstrap over queries. The protocol, whole, is
`sentibench.evaluation.duplicate_retrieval.DuplicateRetrievalEvaluator`; this module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family

DUPLICATE_THRESHOLD = 4.0  # STS-B's 0-5 scale: 4 = "mostly equivalent", 5 = "completely equivalent"


@dataclass
class DuplicateRetrieval(Task):
    """Each text of a highly rated pair retrieves its partner (module docstring)."""

    metadata: TaskMetadata
    threshold: float = DUPLICATE_THRESHOLD

    def chance_level(self) -> float:
        """The expected nDCG@10 of a uniformly random ranking of each query's candidates, exactly: a query with
        R duplicates among N candidates (the corpus less itself) has each rank relevant with probability R/N, so
        E[DCG@10] = sum_{i <= min(10, N)} (R/N) / log2(i + 1), over the ideal DCG of min(R, 10) duplicates first;
        averaged over the queries as the metric averages them (binary relevance: gold >= threshold). The pairs
        are the test split's under the default context (seed 0, no limit)."""
        import numpy as np

        from sentibench.evaluation.chance import random_ranking_ndcg
        from sentibench.evaluation.duplicate_retrieval import DEPTH, duplicate_sets
        from sentibench.evaluation.sampling import capped_indices

        context = EvalContext()
        columns = get_dataset(self.metadata.dataset).columns(self.metadata.eval_splits[0],
                                                             ("sentence1", "sentence2", "score"))
        keep = capped_indices(len(columns["score"]), context.limit, context.seed)
        corpus, duplicates = duplicate_sets([columns["sentence1"][i] for i in keep],
                                            [columns["sentence2"][i] for i in keep],
                                            np.asarray(columns["score"], dtype=np.float64)[keep], self.threshold)
        relevant = np.array([len(found) for found in duplicates.values()])
        return random_ranking_ndcg(relevant, np.full(len(relevant), len(corpus) - 1), DEPTH)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.duplicate_retrieval import DuplicateRetrievalEvaluator
        from sentibench.evaluation.sampling import capped_indices

        prepared = get_dataset(self.metadata.dataset)
        split = self.metadata.eval_splits[0]
        columns = prepared.columns(split, ("sentence1", "sentence2", "score"))
        keep = capped_indices(len(columns["score"]), context.limit, context.seed)
        evaluator = DuplicateRetrievalEvaluator(
            [columns["sentence1"][i] for i in keep], [columns["sentence2"][i] for i in keep],
            [columns["score"][i] for i in keep], self.threshold,
            {"split": split, "pairs": keep.tolist(), "threshold": self.threshold, "data": prepared.content_hash})
        scored = evaluator(encoder, context.batch_size, context.intervals)
        details = {**scored.details, "limit": context.limit, "seed": context.seed,
                   "dataset_hash": prepared.content_hash}
        return Evaluation({split: scored.scores}, details, scored.units)


def duplicates_family(spec: DatasetSpec) -> DuplicateRetrieval | None:
    """Every packaged pairs dataset of sentences tagged "sts" (gold on STS's 0-5 scale)."""
    if not (spec.offline and spec.kind == "pairs" and spec.has("sts")) or spec.has("long"):
        return None
    return DuplicateRetrieval(TaskMetadata(
        name=f"duplicates-{spec.name}", type="Retrieval", dataset=spec.name, eval_splits=("test",),
        main_score="ndcg_at_10",
        description=f"{spec.display_title}: each sentence of a test pair rated >= {DUPLICATE_THRESHOLD} retrieves its "
                    "partner among all test sentences by cosine; nDCG@10 (main), MRR@10, Recall@10.",
        reference="MTEB retrieval scoring (Muennighoff et al. 2023, §3.2); STS-B gold (Cer et al. 2017)",
        groups=("duplicates",)))


register_family("duplicates", duplicates_family)
