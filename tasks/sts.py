"""Semantic textual similarity (SIFTER (Yu et al.) §5.2; MTEB's STS protocol and metric names).

Protocol: encode every distinct sentence of the evaluated split once; the predicted similarity of a pair
is the cosine of its two vectors; scores are Spearman (main, `cosine_spearman`) and Pearson
(`cosine_pearson`) correlations with the gold scores (scipy.stats), as fractions (papers print x100).
A dataset whose rows carry a `subset` column (SentEval's STS12-16 layout: one file per source) also
reports, under SentEval's names, `all_*` (pooled over subsets; equals the plain score), `mean_*` (the
unweighted mean of per-subset correlations) and `wmean_*` (weighted by subset size); per-subset values go
to details. Every pairs dataset tagged "sts" is scored on its test split, plus its published validation split when it
has one (STS-B: test and dev; STS12-16 and SICK-R: test, hub only).
Confidence interval (main split): the linearised bootstrap over sentence pairs (`sentibench.evaluation.units`).
The protocol, whole, is `sentibench.evaluation.sts.STSEvaluator`; this module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


@dataclass
class STS(Task):
    """Cosine-similarity STS on one pairs dataset (module docstring: the protocol)."""

    metadata: TaskMetadata

    def chance_level(self) -> float:
        """0.0: a correlation main score: Spearman's rho against the graded gold of a model that
        ignores the text has expectation 0 (its cosines carry no information about the gold, so their ranks are
        independent of it); no data is needed."""
        return 0.0

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        import numpy as np  # numpy and the evaluator load when a task runs, not when tasks are listed

        from sentibench.evaluation.sampling import capped_indices
        from sentibench.evaluation.sts import STSEvaluator

        prepared = get_dataset(self.metadata.dataset)
        scores, details = {}, {"limit": context.limit, "seed": context.seed, "similarity": "cosine",
                               "dataset_hash": prepared.content_hash, "pairs": {}, "subsets": {}}
        units = None
        for split in self.metadata.eval_splits:
            part = prepared.split(split)
            keep = capped_indices(len(part), context.limit, context.seed)
            first, second = part.data.column("sentence1").to_pylist(), part.data.column("sentence2").to_pylist()
            subsets = part.data.column("subset").to_pylist() if "subset" in part.column_names else None
            evaluator = STSEvaluator(
                [first[i] for i in keep], [second[i] for i in keep],
                part.data.column("score").to_numpy().astype(np.float64)[keep],
                None if subsets is None else [subsets[i] for i in keep],
                {"split": split, "pairs": keep.tolist(), "data": prepared.content_hash})
            main = split == self.metadata.eval_splits[0]  # the interval is the main split's
            scored = evaluator(encoder, context.batch_size, intervals=context.intervals and main)
            scores[split] = scored.scores
            if "subsets" in scored.details:
                details["subsets"][split] = scored.details["subsets"]
            details["pairs"][split] = len(keep)
            units = scored.units if main else units
        return Evaluation(scores, details, units)


def sts_family(spec: DatasetSpec) -> STS | None:
    """Every pairs dataset of sentences tagged "sts" (documents, tagged "long", are `docsim`'s): scored on test, and
    on its published validation split when it has one."""
    if not (spec.kind == "pairs" and spec.has("sts")) or spec.has("long"):
        return None
    splits = ("test", "validation") if "validation" in spec.standard_splits else ("test",)
    return STS(TaskMetadata(
        name=f"sts-{spec.name}", type="STS", dataset=spec.name, eval_splits=splits, main_score="cosine_spearman",
        description=f"{spec.display_title}: Spearman (main) and Pearson correlation of cosine similarity with "
                    "gold scores.",
        reference="SIFTER (Yu et al.) §5.2; MTEB STS (Muennighoff et al. 2023)", groups=("sts",)))


register_family("sts", sts_family)
