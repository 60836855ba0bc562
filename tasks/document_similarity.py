"""Document similarity (Lee, Pincombe & Welsh 2005; gensim's LSI test on the same data): the cosine of every
rated pair of documents against the mean human rating, Spearman's rho (main, `cosine_spearman`) and Pearson's r.

Every pairs dataset of documents (tagged "long") rated for similarity ("sts") or for rewriting ("rewrite") gets one
task, `docsim-<dataset>`, on its test split:
- `docsim-lee`: the 50 Lee documents, all 1,225 pairs (a Meaning task);
- `docsim-clough-stevenson`: 95 short answers against their Wikipedia source, gold the rewrite level 0-3 (0
  written independently ... 3 cut and paste): a diagnostic of how much an encoder follows surface rewriting,
  too small (5 sources, 95 pairs) to rank models on.
Confidence interval: the linearised bootstrap over documents (pairs share documents). The protocol, whole, is
`sentibench.evaluation.document_similarity.DocumentSimilarityEvaluator`; this module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


@dataclass
class DocumentSimilarity(Task):
    """Cosine against graded gold over rated document pairs, documents as units (module docstring)."""

    metadata: TaskMetadata

    def chance_level(self) -> float:
        """0.0: a correlation main score: Spearman's rho against the document ratings of a model that
        ignores the text has expectation 0 (its cosines carry no information about the gold, so their ranks are
        independent of it); no data is needed."""
        return 0.0

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.document_similarity import DocumentSimilarityEvaluator
        from sentibench.evaluation.sampling import capped_indices

        prepared = get_dataset(self.metadata.dataset)
        split = self.metadata.eval_splits[0]
        columns = prepared.columns(split, ("sentence1", "sentence2", "score"))
        keep = capped_indices(len(columns["score"]), context.limit, context.seed)
        evaluator = DocumentSimilarityEvaluator(
            [columns["sentence1"][i] for i in keep], [columns["sentence2"][i] for i in keep],
            [columns["score"][i] for i in keep],
            {"split": split, "pairs": keep.tolist(), "data": prepared.content_hash})
        scored = evaluator(encoder, context.batch_size, context.intervals)
        details = {**scored.details, "similarity": "cosine", "limit": context.limit, "seed": context.seed,
                   "dataset_hash": prepared.content_hash}
        return Evaluation({split: scored.scores}, details, scored.units)


def document_similarity_family(spec: DatasetSpec) -> DocumentSimilarity | None:
    """Every pairs dataset of documents ("long") graded for similarity ("sts") or rewriting ("rewrite")."""
    if not (spec.kind == "pairs" and spec.has("long") and (spec.has("sts") or spec.has("rewrite"))):
        return None
    diagnostic = spec.has("rewrite")
    what = ("the rewrite level (a diagnostic of surface rewriting, not ranked)" if diagnostic
            else "the mean human similarity rating")
    return DocumentSimilarity(TaskMetadata(
        name=f"docsim-{spec.name}", type="STS", dataset=spec.name, eval_splits=("test",),
        main_score="cosine_spearman",
        description=f"{spec.display_title}: Spearman (main) and Pearson correlation of the cosine of each rated "
                    f"document pair with {what}; documents are the bootstrap units.",
        reference="Lee, Pincombe & Welsh (2005); MTEB STS scoring (Muennighoff et al. 2023)",
        groups=("docsim",)))


register_family("docsim", document_similarity_family)
