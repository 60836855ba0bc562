"""SentEval transfer tasks (Conneau & Kiela 2018; InfoDCL, Zhang et al. 2023, E.6; the polarity-aware
retrieval paper, Table 7).

A logistic regression on frozen sentence embeddings, with SentEval's protocol per dataset (its
`usepytorch=False` path, `senteval/tools/validation.py`): scikit-learn's `LogisticRegression` (lbfgs, L2)
on the raw embeddings (no standardisation), C by accuracy over a grid, 10 folds wherever SentEval uses k:
- MR, CR (here: the Amazon review snippets, VADER-rated, which are Hu & Liu's source sentences but not
  SentEval's CR labels), SUBJ, MPQA: SentEval's InnerKFoldClassifier: 10-fold stratified CV over the
  whole dataset (our stored train/dev/test splits pooled, in that order); in each outer fold, C by
  10-fold stratified CV on the fold's training part, refit on all of it, score the held-out fold;
  accuracy is the mean over the outer folds;
- TREC, MRPC: SentEval's KFoldClassifier: C by 10-fold stratified CV on the training set (TREC: the
  original 5,452 questions, our train + dev), refit on all of it, scored on the test set;
- SST2 / SST5: SentEval's SplitClassifier: C on dev, the model fitted on train scored on test;
- MRPC features: [u, v, |u - v|, u * v] (SentEval's pair features); accuracy (main) and F1 of the
  paraphrase class (SentEval / GLUE).
Differences from SentEval (version 3 of these tasks): one first C grid `SENTEVAL_GRID` = 2^-2 .. 2^10 for
every protocol, which holds SentEval's grids (2^-2 .. 2^3, TREC/MRPC 2^-1 .. 2^5) and reaches past them, since
raw-embedding optima sat on their upper edge; a search whose best C is an edge still improving widens past
it, four powers of two at a time, within 2^-24 .. 2^24 (`probe.widening_search`; version 2 stopped at the
first grid); `LogisticRegressionCV` fits each fold's grid as one
warm-started path (the same optimum as SentEval's fit per C, up to the solver's tolerance; 500 iterations);
folds are shuffled with the run's seed (SentEval: 1111). A C still improving at the widening's limit is
flagged in details["grid_edge_warning"]. docs/tasks.md says how the match with SentEval's own code was checked.
Confidence interval: percentile bootstrap over the test items (k-fold: every item, in its own fold).
Scores are fractions; `f1` is macro-F1 except on MRPC. The protocols, whole, are
`sentibench.evaluation.senteval.SentEvalEvaluator`; this module holds the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family

if TYPE_CHECKING:  # numpy and the evaluator load when a task runs, not when tasks are listed
    import numpy as np

    from sentibench.evaluation.senteval import Protocol, SentEvalEvaluator


@dataclass
class SentEvalTransfer(Task):
    """One SentEval transfer dataset under its SentEval protocol (module docstring)."""

    metadata: TaskMetadata
    protocol: Protocol = "kfold"

    def _evaluator(self, context: EvalContext) -> SentEvalEvaluator:
        from sentibench.evaluation.sampling import split_arrays
        from sentibench.evaluation.senteval import SentEvalEvaluator

        prepared = get_dataset(self.metadata.dataset)
        seed, limit = context.seed, context.limit
        splits = [s for s in ("train", "validation", "test") if s in prepared.splits]
        if prepared.spec.kind == "pairs":
            return SentEvalEvaluator(self.protocol, seed, pairs={s: self._pairs(prepared.split(s), context)
                                                                 for s in splits})
        return SentEvalEvaluator(self.protocol, seed, singles={
            s: split_arrays(self.metadata.dataset, s, limit, seed) for s in splits})

    def chance_level(self) -> float:
        """The majority-class rate of the labels the accuracy is computed on (default context: seed 0, no limit):
        the test split's (`cv-then-test`, `splits`, and a pairs dataset, scored on its test pairs); under
        `kfold` the splits pooled in the evaluator's order (train, validation, test) and the pooled majority
        class's rate in each of its outer stratified folds, averaged as the score averages fold accuracies."""
        import numpy as np

        from sentibench.evaluation.chance import kfold_majority_rate, majority_rate
        from sentibench.evaluation.senteval import OUTER_FOLDS

        evaluator = self._evaluator(EvalContext())
        if evaluator.pairs is not None:
            return majority_rate(evaluator.pairs["test"][2])
        parts = evaluator.singles or {}
        if self.protocol != "kfold":
            return majority_rate(parts["test"][1])
        labels = np.concatenate([labels for _, labels in parts.values()])
        return kfold_majority_rate(labels, min(OUTER_FOLDS, int(np.bincount(labels).min())), evaluator.seed)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        prepared = get_dataset(self.metadata.dataset)
        seed, limit = context.seed, context.limit
        scored = self._evaluator(context)(encoder, context.batch_size, context.intervals)
        details = {**scored.details, "limit": limit, "seed": seed, "dataset_hash": prepared.content_hash}
        return Evaluation({"test": scored.scores}, details, scored.units)

    @staticmethod
    def _pairs(part, context: EvalContext) -> tuple[list[str], list[str], np.ndarray]:
        from sentibench.evaluation.sampling import capped_indices

        keep = capped_indices(len(part), context.limit, context.seed)
        first, second = part.data.column("sentence1").to_pylist(), part.data.column("sentence2").to_pylist()
        labels = part.data.column("score").to_numpy()[keep].astype(int)
        return [first[i] for i in keep], [second[i] for i in keep], labels

def senteval_protocol(spec: DatasetSpec) -> Protocol:
    """SentEval's protocol follows the splits a dataset is published with: none, k-fold over all of it; a
    validation split, C on it; train and test only, C by cross-validation on train."""
    if not spec.standard_splits:
        return "kfold"
    return "splits" if "validation" in spec.standard_splits else "cv-then-test"


def senteval_family(spec: DatasetSpec) -> SentEvalTransfer | None:
    """Every dataset tagged "senteval", under the protocol SentEval gives it."""
    if not spec.has("senteval"):
        return None
    protocol = senteval_protocol(spec)
    return SentEvalTransfer(TaskMetadata(
        name=f"senteval-{spec.name}", type="PairClassification" if spec.kind == "pairs" else "Classification",
        dataset=spec.name, eval_splits=("test",), main_score="accuracy", version=3,
        description=f"SentEval transfer, {spec.display_title}: logistic regression on frozen embeddings "
                    f"({protocol}).",
        reference="SentEval (Conneau & Kiela 2018); InfoDCL (Zhang et al., 2023) E.6; polarity-aware "
                  "retrieval paper, Table 7",
        groups=("senteval",)), protocol=protocol)


register_family("senteval", senteval_family)
