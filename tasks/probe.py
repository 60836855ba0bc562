"""Linear probe: logistic regression on frozen embeddings (SentEval protocol; SentiCSE (Kim et al., 2024) §4.4).

Protocol, per dataset:
- the model encodes every text once (one `encode` call; the embedding cache dedupes);
- features are standardised (mean/std of train + dev, never test), then scikit-learn's logistic
  regression (lbfgs, L2) is fitted; its L2 strength C is chosen by accuracy on the dev split
  (`LogisticRegressionCV` with that one predefined fold) from `C_GRID` = 2^-10 .. 2^4, widened by four
  powers of two at a time beyond an edge that is still improving, up to 2^-24 .. 2^24 (version 3; version 2
  stopped at 2^-10 .. 2^4 and warned; version 1's 2^-2 .. 2^4 often stopped at its lower edge), and the
  model fitted on train with that C is scored on test (SentEval's `SplitClassifier`);
- a dataset without a dev split gets one carved from train (10%, stratified, seeded);
- small sets (`folds` set: test split under ~1,000 examples) use stratified k-fold over all their
  examples instead: per outer fold, C is chosen on a 10% stratified hold-out of the fold's training part
  (SentEval uses an inner k-fold; one hold-out keeps the cost at one regularisation path per fold), then
  refitted on the whole training part. Scores are the mean over folds (std in details);
- `max_train` / `max_eval` cap a split with a seeded sample, to keep the CPU cost of the suite in budget
  (IMDB: 2,000 reviews per split, since 22k long reviews cost many minutes to encode on a CPU; the
  3-class tweets: 8,000 of 29.7k train tweets); `context.limit` caps every split for smoke runs. Both are
  recorded in details.
Scores use MTEB's names: `accuracy` (main) and `f1` (macro-F1). A C still improving at the widening's
limit is flagged in details["grid_edge_warning"]. Confidence interval: percentile bootstrap over the test
items (k-fold: over all items, each counted in its own fold's accuracy; `sentibench.evaluation.units`).
The protocol, whole, is `sentibench.evaluation.probe.ProbeEvaluator`; this module holds the tasks.
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
class LinearProbe(Task):
    """Logistic-regression probe on one classification dataset (module docstring: the protocol)."""

    metadata: TaskMetadata
    folds: int | None = None        # k-fold over all examples instead of the given splits
    max_train: int | None = None    # seeded cap on the train split
    max_eval: int | None = None     # seeded cap on the dev and test splits

    def _parts(self, context: EvalContext) -> tuple[dict, dict[str, int]]:
        """The probe's splits (split -> (texts, labels), each capped and seeded) and the caps."""
        from sentibench.evaluation.sampling import split_arrays

        prepared = get_dataset(self.metadata.dataset)
        limit, seed = context.limit, context.seed
        cap_train = min(c for c in (self.max_train, limit, 10**12) if c is not None)
        cap_eval = min(c for c in (self.max_eval, limit, 10**12) if c is not None)
        parts = {"train": split_arrays(self.metadata.dataset, "train", cap_train, seed)}
        for split in ("validation", "test"):
            if split in prepared.splits:
                parts[split] = split_arrays(self.metadata.dataset, split, cap_eval, seed)
        return parts, {"train": cap_train, "validation": cap_eval, "test": cap_eval}

    def chance_level(self) -> float:
        """The majority-class rate of the labels the accuracy is computed on (default context: seed 0, no limit):
        the capped test split's; a `folds` task (k-fold over every split) pools the capped splits as `evaluate`
        does, and its chance is the pooled majority class's rate in each of the evaluator's stratified folds,
        averaged as the score averages fold accuracies."""
        import numpy as np

        from sentibench.evaluation.chance import kfold_majority_rate, majority_rate

        context = EvalContext()
        parts, _ = self._parts(context)
        if not self.folds:
            return majority_rate(parts["test"][1])
        labels = np.concatenate([labels for _, labels in parts.values()])
        return kfold_majority_rate(labels, min(self.folds, int(np.bincount(labels).min())), context.seed)

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.probe import ProbeEvaluator  # numpy: loaded when a task runs
        from sentibench.evaluation.sampling import capped_indices

        prepared = get_dataset(self.metadata.dataset)
        limit, seed = context.limit, context.seed
        parts, caps = self._parts(context)
        scored = ProbeEvaluator(parts, seed, self.folds)(encoder, context.batch_size, context.intervals)
        samples = {s: digest(capped_indices(len(prepared.split(s)), caps[s], seed).tolist()) for s in parts}
        details = {**scored.details, "indices_sha256": samples, "max_train": self.max_train,
                   "max_eval": self.max_eval, "limit": limit, "seed": seed, "dataset_hash": prepared.content_hash}
        return Evaluation({"test": scored.scores}, details, scored.units)

def _probe(spec: DatasetSpec, cap: int | None, lite: bool) -> LinearProbe:
    folds = 10 if spec.has("small") else None
    how = (" 10-fold CV over all splits (small set)." if folds else "") + (
        f" Seeded samples of at most {cap:,} examples per split." if cap else "") + (
        f" The lite version of probe-{spec.name}: each split's sample is a subset of that task's." if lite else "")
    return LinearProbe(TaskMetadata(
        name=f"probe-{spec.name}{'-lite' if lite else ''}", type="Classification", dataset=spec.name,
        eval_splits=("test",), main_score="accuracy", version=3,
        description=f"Linear probe (logistic regression, L2 tuned on dev) on frozen embeddings of {spec.name} "
                    f"({len(spec.label_names)} classes).{how}",
        reference="SentEval (Conneau & Kiela 2018) linear-probe protocol; SentiCSE (Kim et al. 2024) §4.4",
        groups=("probe-lite" if lite else "probe",)), folds=folds, max_train=cap, max_eval=cap)


def probe_family(spec: DatasetSpec) -> list[LinearProbe] | None:
    """Every packaged sentiment dataset: k-fold over all splits for a small one, seeded caps for a costly one; a
    dataset with `lite_examples` also gets `probe-NAME-lite` at that cap (a subset of each split's full sample)."""
    if not (spec.offline and spec.is_labelled and spec.has("sentiment")):
        return None
    return [_probe(spec, spec.max_examples, False)] + ([_probe(spec, spec.lite_examples, True)]
                                                       if spec.lite_examples else [])


register_family("probe", probe_family)
