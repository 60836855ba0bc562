"""Clustering (MTEB, Muennighoff et al. 2023, §3.2 Clustering): mini-batch k-means on frozen vectors with as many
clusters as labels, V-measure against the labels (main, `v_measure`), mean over 10 seeded clusterings.

Every packaged dataset labelled by topic (tag "topic") gets one task, `clustering-<dataset>`, on its test split
(a model that learns from text, bag-of-words, fits on train and never on the texts it clusters):
`clustering-trec` (TREC's 500 test questions, 6 coarse types), `clustering-trec-fine` (2,976 questions, a
stratified half of all TREC questions, 50 fine types), `clustering-tweet-hashtags` (819 tweets, 5 hashtag
topics, the hashtag removed from each tweet). Confidence interval: the linearised bootstrap over texts with the
clusters held fixed. The protocol, whole, is `sentibench.evaluation.clustering.ClusteringEvaluator`; this
module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


@dataclass
class Clustering(Task):
    """V-measure of seeded mini-batch k-means over one labelled test split (module docstring)."""

    metadata: TaskMetadata

    def chance_level(self) -> float:
        """The expected V-measure of a random partition with the true cluster sizes: scikit-learn's
        `v_measure_score` of the labels against a random permutation of them, the mean over 200 permutations
        drawn with `numpy.random.default_rng(0)`, on the test labels `evaluate` clusters under the default context
        (seed 0, no limit). The evaluator scores every text at once (mini-batch k-means' batches are internal to
        the fit, not separately scored sets), so there is one label set. Not 0: V-measure is not adjusted for
        chance, and small clusters among many labels score well above 0 by chance."""
        import numpy as np

        from sentibench.evaluation.chance import random_partition_v_measure
        from sentibench.evaluation.sampling import capped_indices

        context = EvalContext()
        split = self.metadata.eval_splits[0]
        labels = np.asarray(get_dataset(self.metadata.dataset).columns(split, ("label",))["label"])
        return random_partition_v_measure(labels[capped_indices(len(labels), context.limit, context.seed)])

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        import numpy as np

        from sentibench.evaluation.clustering import ClusteringEvaluator
        from sentibench.evaluation.sampling import capped_indices

        prepared = get_dataset(self.metadata.dataset)
        split = self.metadata.eval_splits[0]
        columns = prepared.columns(split, ("text", "label"))
        keep = capped_indices(len(columns["text"]), context.limit, context.seed)
        evaluator = ClusteringEvaluator([columns["text"][i] for i in keep], np.asarray(columns["label"])[keep],
                                        context.seed, units_id={"split": split, "texts": keep.tolist(),
                                                                "data": prepared.content_hash})
        scored = evaluator(encoder, context.batch_size, context.intervals)
        details = {**scored.details, "limit": context.limit, "seed": context.seed,
                   "dataset_hash": prepared.content_hash}
        return Evaluation({split: scored.scores}, details, scored.units)


def clustering_family(spec: DatasetSpec) -> Clustering | None:
    """Every packaged dataset labelled by topic."""
    if not (spec.offline and spec.is_labelled and spec.has("topic")):
        return None
    return Clustering(TaskMetadata(
        name=f"clustering-{spec.name}", type="Clustering", dataset=spec.name, eval_splits=("test",),
        main_score="v_measure",
        description=f"{spec.display_title}: mini-batch k-means (as many clusters as the test texts have labels) on "
                    "the frozen vectors of the test split, V-measure against the labels, mean of 10 seeded runs.",
        reference="MTEB clustering (Muennighoff et al. 2023, §3.2); V-measure (Rosenberg & Hirschberg 2007)",
        groups=("clustering",)))


register_family("clustering", clustering_family)
