"""Alignment, uniformity and tolerance of frozen embeddings (SentiCSE, Kim et al. 2024, A.4 / Table 15;
InfoDCL, Zhang et al. 2023, Appendix G).

Protocol: a seeded sample of at most `max_examples` (2,000) sentences of the test split, encoded once and
L2-normalised; then, with the standard definitions (`sentibench.evaluation.metrics`):
- alignment = mean over same-label pairs (i < j) of ||x_i - x_j||^2 (Wang & Isola 2020, alpha = 2; the
  "positive pairs" are pairs that share a label); lower is better;
- uniformity = log mean over all pairs (i < j) of exp(-2 ||x_i - x_j||^2) (Wang & Isola 2020, t = 2);
  lower (more negative) is more uniform;
- tolerance = mean cosine over same-label pairs (Wang & Liu 2021); higher keeps same-class items closer;
  the main score (InfoDCL Figure 3 reads it that way). The task metadata declares alignment and
  uniformity lower-is-better, so the leaderboard and comparisons rank each metric in its own direction.
These are over the whole sample, not per training batch: the SentiCSE repository's per-batch numbers are
a different quantity. The definitions are written into every result's details. Confidence interval (of
tolerance): the linearised bootstrap over sentences (`metrics.tolerance_pseudo_values`). The protocol, whole, is
`sentibench.evaluation.geometry.GeometryEvaluator`; this module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.core.hashing import digest
from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


@dataclass
class AlignmentUniformity(Task):
    """Representation geometry of one labelled dataset (module docstring: the protocol)."""

    metadata: TaskMetadata
    max_examples: int = 2000

    def chance_level(self) -> float:
        """NaN: alignment, uniformity and tolerance are geometry diagnostics, never averaged into an axis, and have
        no chance level (a text-ignoring model's geometry is whatever its constant or random vectors make it)."""
        return float("nan")

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.geometry import GeometryEvaluator  # numpy: loaded when a task runs
        from sentibench.evaluation.sampling import capped_indices, split_arrays

        cap = min(c for c in (self.max_examples, context.limit) if c is not None)
        texts, labels = split_arrays(self.metadata.dataset, "test", cap, context.seed)
        scored = GeometryEvaluator(texts, labels)(encoder, context.batch_size, context.intervals)
        details = {**scored.details, "max_examples": self.max_examples, "limit": context.limit,
                   "indices_sha256": digest(capped_indices(len(get_dataset(self.metadata.dataset).split("test")),
                                                           cap, context.seed).tolist()),
                   "seed": context.seed, "dataset_hash": get_dataset(self.metadata.dataset).content_hash}
        return Evaluation({"test": scored.scores}, details, scored.units)


def alignment_family(spec: DatasetSpec) -> AlignmentUniformity | None:
    """Every packaged sentiment dataset (same-label pairs need labels)."""
    if not (spec.offline and spec.is_labelled and spec.has("sentiment")):
        return None
    return AlignmentUniformity(TaskMetadata(
        name=f"align-{spec.name}", type="Geometry", dataset=spec.name, eval_splits=("test",), main_score="tolerance",
        lower_is_better=("alignment", "uniformity"),
        description="Alignment (same-label pairs, alpha=2; lower is better), uniformity (t=2; lower is better) "
        "and tolerance (mean same-label cosine; main) of L2-normalised embeddings of up to 2,000 test sentences.",
        reference="Wang & Isola (2020); Wang & Liu (2021); SentiCSE (Kim et al. 2024) A.4; InfoDCL (Zhang et al. "
                  "2023) Appendix G",
        groups=("align",)))


register_family("align", alignment_family)
