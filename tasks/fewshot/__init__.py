"""Few-shot classification: fine-tune the encoder on K examples per class (or N examples), score test.

Two protocols (docs/fewshot.md has the full record of choices):
- SentiCSE (Kim et al., 2024, §4.4, Table 12): K examples per class drawn without replacement from train;
  500 validation examples drawn from the rest of train; full fine-tuning with the backbone's
  sequence-classification head on the first token, lr 1e-5, batch 16, weight decay 0.01, at most 100 epochs,
  validation every 20 steps, early stop with patience 5 (validations), best state restored; 10 seeds; accuracy.
- InfoDCL (Zhang et al., 2023, §4 "Few-Shot Learning", C.2, D.3): N examples from train (drawn independently
  per seed; we stratify by label to keep train's class proportions), the dataset's own dev split for
  early stopping, lr 1e-5, batch 32, 20 epochs, patience 5 (epochs), weight decay 0 (not stated: the
  Trainer default); 5 seeds; macro-F1.
Both fine-tune the backbone's own sequence-classification head on the unnormalised first-token state, as both
papers' code does (task version 2); the head of version 1, a linear layer on the encoder's pooled (normalised)
vector, stays reachable as the `fewshot-<protocol>-pooled-...` tasks (`with_pooled_linear_head`).
Each fine-tuning task has a frozen twin (`fewshot-frozen-...`): scikit-learn logistic regression on the
frozen (cached) embeddings with exactly the same draws and seeds, its C chosen on the same validation
examples. Encoders without trainable torch weights only run the frozen twins.

Seeds are `context.seed + i`, i < seeds; the confidence interval of the mean over seeds is Student's t
(seeds are the units; `bench compare` pairs models seed by seed). Each fine-tuning seed is an independent
work item (`SeedRun`) fanned out through the run's executor: in this process by default, one Ray task per seed
with `--executor ray`. A test split larger than `test_cap` (IMDB) is replaced by a fixed seeded sample
(seed `TEST_SUBSET_SEED`, the probe task's prefix sampling), recorded in the result.

Here: the family (which tasks every dataset gets, in which groups). Beside it: `protocols` (the papers' designs
and their variants), `task` (`FewShotTask`: data, draws, the fine-tuned seeds and the aggregation), `seeds` (one
fine-tuning seed, the executor's work item); the frozen twin is an evaluator, `evaluation.fewshot_frozen`.
"""

from __future__ import annotations

from sentibench.data.spec import DatasetSpec
from sentibench.tasks.fewshot.protocols import (
    INFODCL,
    POOLED_LINEAR_PROTOCOLS,
    SENTICSE,
    VERSION_3_OPTIONS,
    VERSION_3_PROTOCOLS,
    FewShotProtocol,
)
from sentibench.tasks.fewshot.task import FewShotTask
from sentibench.tasks.registry import register_family

# The default group `fewshot` is what a 2-core CPU can afford (docs/fewshot.md has the measured costs): a
# budget choice, not a dataset fact, so it is named here: the SentiCSE protocol (K = 1, 5; 10 seeds)
# fine-tuned on three short-text sets, the InfoDCL protocol at N = 20 on tweets only (its Twitter setting;
# N >= 100 costs 10-50x more), and the frozen twin of each, plus the frozen SentiCSE twins of long-text sets
# (fine-tuning on 256-token reviews is hours here). Every dataset the family accepts gets every setting by
# name; `fewshot-full` holds all the fine-tuning tasks (for a GPU), `fewshot-frozen` all the frozen twins.
CPU_DEFAULT_DATASETS = ("mr", "vader-amazon", "vader-tweets")
POOLED_LINEAR_GROUP = "fewshot-pooled"  # the version-1 head (docs/fewshot.md): not in `fewshot-full`
VERSION_3_GROUP = "fewshot-v3"  # version 3 (docs/fewshot.md); the default group moves when its results are made
VERSION_3_OPTIONS_GROUP = "fewshot-v3-options"  # version 3 by accuracy / with the first-token head


def _in_default_group(protocol: FewShotProtocol, size: int, spec: DatasetSpec, frozen: bool) -> bool:
    if spec.has("long"):
        return frozen and protocol is SENTICSE
    if spec.name not in CPU_DEFAULT_DATASETS:
        return False
    return protocol is SENTICSE or (spec.has("tweet") and size == 20)


def _fits(protocol: FewShotProtocol, size: int, spec: DatasetSpec) -> bool:
    """Whether the dataset's planned train split (when its size is declared) holds a draw: the training examples
    plus the validation examples drawn from the rest of train."""
    train = spec.planned_train_size
    drawn = size * len(spec.label_names) if protocol.per_class else size
    return train is None or drawn + (protocol.validation_size or 0) < train


def fewshot_family(spec: DatasetSpec) -> list[FewShotTask] | None:
    """Every packaged binary sentiment dataset, under both protocols, fine-tuned and frozen, at every size its
    train split holds (`_fits`). A long-text set's test split is capped at half its `max_examples` (each of the
    seeds predicts it again)."""
    if not (spec.offline and spec.is_binary and spec.has("sentiment")):
        return None
    cap = spec.max_examples // 2 if spec.max_examples and spec.has("long") else None
    tasks = []
    for protocol in (SENTICSE, INFODCL):
        for size in filter(lambda size: _fits(protocol, size, spec), protocol.sizes):
            for frozen in (False, True):
                default = _in_default_group(protocol, size, spec, frozen)
                own = "fewshot-frozen" if frozen else "fewshot-full"
                where = (f"In the default group 'fewshot' and in '{own}'." if default else
                         f"In '{own}', not in the default group 'fewshot' (too slow on a 2-core CPU).")
                note = (f"Test: a fixed seeded sample of {cap} of the test texts. " if cap else "") + where
                tasks.append(FewShotTask(protocol, size, spec.name, frozen=frozen, test_cap=cap, note=note,
                                         groups=("fewshot", own) if default else (own,)))
    for protocols, group in ((POOLED_LINEAR_PROTOCOLS, POOLED_LINEAR_GROUP), (VERSION_3_PROTOCOLS, VERSION_3_GROUP),
                             (VERSION_3_OPTIONS, VERSION_3_OPTIONS_GROUP)):
        for protocol in protocols:
            for size in filter(lambda size: _fits(protocol, size, spec), protocol.sizes):
                note = (f"Test: a fixed seeded sample of {cap} of the test texts. " if cap else "") + (
                    f"In the group '{group}' only; frozen twin: the {protocol.draws_of} one.")
                tasks.append(FewShotTask(protocol, size, spec.name, test_cap=cap, note=note, groups=(group,)))
    return tasks


register_family("fewshot", fewshot_family)
