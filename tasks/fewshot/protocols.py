"""The few-shot protocols: each paper's design (`SENTICSE`, `INFODCL`) and the variants of it the family
registers (version 1's pooled-linear head, version 3 and its options) or a user builds (the SentiCSE script's
settings). docs/fewshot.md has the full record of choices."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sentibench.training.finetune_config import FineTuneConfig


@dataclass(frozen=True)
class FewShotProtocol:
    """A paper's few-shot evaluation design: how many examples, drawn how, validated how, trained how."""

    name: str
    per_class: bool                 # True: `size` examples per class (K); False: `size` in total (N)
    sizes: tuple[int, ...]
    seeds: int
    validation_size: int | None     # drawn from the rest of train; None: the dataset's validation split
    config: FineTuneConfig
    reference: str
    version: int = 1                # the fine-tuned tasks' protocol version (the frozen twins': FROZEN_VERSION)
    draws_of: str | None = None     # a head variant: the protocol whose draws and frozen twin it shares
    first_seed: int | None = None   # seeds first_seed, first_seed + 1, ...; None: from the run's seed
    test_size: int | None = None    # test: a fixed seeded sample of this many texts; None: the whole split


SENTICSE = FewShotProtocol(
    name="senticse", per_class=True, sizes=(1, 5), seeds=10, validation_size=500,
    config=FineTuneConfig(learning_rate=1e-5, batch_size=16, weight_decay=0.01, max_epochs=100, patience=5,
                          eval_steps=20, metric="accuracy", head="sequence-classification"),
    reference="SentiCSE (Kim et al., 2024), §4.4 and Table 12", version=2)
INFODCL = FewShotProtocol(
    name="infodcl", per_class=False, sizes=(20, 100, 500, 1000), seeds=5, validation_size=None,
    config=FineTuneConfig(learning_rate=1e-5, batch_size=32, weight_decay=0.0, max_epochs=20, patience=5,
                          eval_steps=None, metric="f1", head="sequence-classification"),
    reference="InfoDCL (Zhang et al., 2023), §4 (Few-Shot Learning), C.2 and D.3", version=2)
FROZEN_VERSION = 3  # v3: C_GRID widened past an improving edge (v2 stopped at 2^-10 .. 2^4); no head to change
POOLED_LINEAR_VERSION = 1  # the fine-tuned tasks' protocol before the sequence-classification head (version 2)


def with_pooled_linear_head(protocol: FewShotProtocol) -> FewShotProtocol:
    """`protocol` fine-tuned with the head of its version 1 (`pooled-linear`: a linear layer on the encoder's
    pooled, possibly L2-normalised vector); same draws, seeds and hyper-parameters, task names
    `fewshot-<protocol>-pooled-...`, task version 1 (the protocol every result made before version 2 used)."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-pooled", draws_of=protocol.name,
                               version=POOLED_LINEAR_VERSION,
                               config=dataclasses.replace(protocol.config, head="pooled-linear"))


POOLED_LINEAR_PROTOCOLS = tuple(with_pooled_linear_head(p) for p in (SENTICSE, INFODCL))
CURRENT_VERSION = 3


def as_version_3(protocol: FewShotProtocol) -> FewShotProtocol:
    """`protocol` at task version 3 (task names `fewshot-<protocol>-v3-...`): the `pooled-sequence-classification`
    head on the model's own sentence vector (the one the frozen twin reads) and the state with the lowest
    validation loss kept (the SentiCSE authors' `Trainer` without `metric_for_best_model`); same draws, seeds,
    hyper-parameters and frozen twin as version 2."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-v3", draws_of=protocol.name, version=CURRENT_VERSION,
                               config=dataclasses.replace(protocol.config, head="pooled-sequence-classification",
                                                          select_by="loss"))


def selecting_by_metric(protocol: FewShotProtocol) -> FewShotProtocol:
    """Version 3 keeping the state with the highest validation metric (versions 1-2's rule) instead of the lowest
    loss: task names `fewshot-<protocol>-v3-by-<metric>-...`, an option of version 3."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-by-{protocol.config.metric}",
                               config=dataclasses.replace(protocol.config, select_by="metric"))


def with_first_token_head(protocol: FewShotProtocol) -> FewShotProtocol:
    """Version 3 with the backbone's own sequence-classification head on the first token (version 2's head), so
    with the loss selection it is the SentiCSE authors' model and rule: task names
    `fewshot-<protocol>-v3-first-token-...`, an option of version 3."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-first-token",
                               config=dataclasses.replace(protocol.config, head="sequence-classification"))


def with_script_settings(protocol: FewShotProtocol) -> FewShotProtocol:
    """The SentiCSE authors' `few_shot_experiment.py` where it differs from their paper's text (§4.4): seeds 1..5
    instead of 10, a fixed sample of 500 test texts instead of the whole split, truncation at 128 tokens instead of
    the card's max length. Not registered (a Python-API variant, docs/fewshot.md); its draws are this harness's
    (K per class), where the script draws K x classes stratified and validates on the rest shuffled with seed 0."""
    return dataclasses.replace(protocol, name=f"{protocol.name}-script", seeds=5, first_seed=1, test_size=500,
                               draws_of=protocol.draws_of or protocol.name,
                               config=dataclasses.replace(protocol.config, max_length=128))


VERSION_3_PROTOCOLS = tuple(as_version_3(p) for p in (SENTICSE, INFODCL))
VERSION_3_OPTIONS = tuple(option(p) for p in VERSION_3_PROTOCOLS for option in (selecting_by_metric,
                                                                                 with_first_token_head))
