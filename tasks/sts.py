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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentibench.core.hashing import digest
from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.sampling import capped_indices
from sentibench.evaluation.spearman import spearman_pseudo_values
from sentibench.evaluation.units import LINEARISED, UnitValues
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


def pair_cosines(encoder: Encoder, first: list[str], second: list[str], batch_size: int) -> np.ndarray:
    """Cosine of each (first[i], second[i]) pair; each distinct sentence is encoded once."""
    vectors = metrics.l2_normalise(encoder.encode(first + second, batch_size=batch_size), np.float64)
    return np.sum(vectors[:len(first)] * vectors[len(first):], axis=1)


def subset_scores(predicted: np.ndarray, gold: np.ndarray, subsets: list[str]) -> tuple[dict, dict]:
    """SentEval's aggregation over subsets: pooled `all_*`, `mean_*` and size-weighted `wmean_*`."""
    names = sorted(set(subsets))
    labels = np.asarray(subsets)
    per = {name: {**metrics.correlations(predicted[labels == name], gold[labels == name]),
                  "n": int((labels == name).sum())} for name in names}
    pooled = metrics.correlations(predicted, gold)
    scores: dict[str, float | None] = {f"all_{m}": v for m, v in pooled.items()}
    for metric in ("cosine_spearman", "cosine_pearson"):
        valid = [(per[n][metric], per[n]["n"]) for n in names if per[n][metric] is not None]
        values = np.array([v for v, _ in valid])
        sizes = np.array([n for _, n in valid])
        scores[f"mean_{metric}"] = float(values.mean()) if valid else None
        scores[f"wmean_{metric}"] = float((values * sizes).sum() / sizes.sum()) if valid else None
    return scores, per


@dataclass
class STS(Task):
    """Cosine-similarity STS on one pairs dataset (module docstring: the protocol)."""

    metadata: TaskMetadata

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        prepared = get_dataset(self.metadata.dataset)
        scores, details = {}, {"limit": context.limit, "seed": context.seed, "similarity": "cosine",
                               "dataset_hash": prepared.content_hash, "pairs": {}, "subsets": {}}
        units = None
        for split in self.metadata.eval_splits:
            part = prepared.split(split)
            keep = capped_indices(len(part), context.limit, context.seed)
            first, second = part.data.column("sentence1").to_pylist(), part.data.column("sentence2").to_pylist()
            gold = part.data.column("score").to_numpy().astype(np.float64)[keep]
            predicted = pair_cosines(encoder, [first[i] for i in keep], [second[i] for i in keep],
                                     context.batch_size)
            split_scores = metrics.correlations(predicted, gold)
            if "subset" in part.column_names:
                subsets = part.data.column("subset").to_pylist()
                extra, per_subset = subset_scores(predicted, gold, [subsets[i] for i in keep])
                split_scores.update(extra)
                details["subsets"][split] = per_subset
            scores[split] = split_scores
            details["pairs"][split] = len(keep)
            if split == self.metadata.eval_splits[0] and context.intervals and split_scores["cosine_spearman"]:
                _, values = spearman_pseudo_values(predicted, gold, np.arange(len(keep)), None, len(keep))
                units = UnitValues(values, "sentence pair", LINEARISED,
                                   digest({"split": split, "pairs": keep.tolist(), "data": prepared.content_hash}))
        return Evaluation(scores, details, units)


def sts_family(spec: DatasetSpec) -> STS | None:
    """Every pairs dataset tagged "sts": scored on test, and on its published validation split when it has one."""
    if not (spec.kind == "pairs" and spec.has("sts")):
        return None
    splits = ("test", "validation") if "validation" in spec.standard_splits else ("test",)
    return STS(TaskMetadata(
        name=f"sts-{spec.name}", type="STS", dataset=spec.name, eval_splits=splits, main_score="cosine_spearman",
        description=f"{spec.display_title}: Spearman (main) and Pearson correlation of cosine similarity with "
                    "gold scores.",
        reference="SIFTER (Yu et al.) §5.2; MTEB STS (Muennighoff et al. 2023)", groups=("sts",)))


register_family("sts", sts_family)
