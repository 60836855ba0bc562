"""A dataset declared once: what it is, where its rows come from, how it is split."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from sentibench.core.errors import BenchError

Row = dict[str, object]
RowsBySplit = dict[str, list[Row]]

UNSPLIT = "all"  # a source that returns {"all": rows} is split by the spec's stratified plan

DATASET_TAGS = frozenset({
    "sentiment", "sarcasm", "subjectivity", "topic", "sts", "paraphrase",  # what the labels are
    "rewrite",  # pairs scored by how closely one text rewrites the other (Clough & Stevenson): a diagnostic
    "review", "tweet", "news",                                             # the genre of the texts
    "long",    # multi-sentence documents: protocols cap them with `max_examples` (encode / fine-tune cost)
    "small",   # a few hundred test items: probes use 10-fold cross-validation over all splits instead
    "senteval",  # one of SentEval's transfer datasets (Conneau & Kiela 2018): the SentEval family scores it
})
"""Task families select datasets by these tags (e.g. SgTS: labelled, binary, "sentiment"), so a new
dataset gets its tasks from one catalog entry."""


@dataclass(frozen=True)
class HubSource:
    """The canonical Hugging Face dataset: the real loading path for users with internet."""

    repo_id: str
    config: str | None = None
    revision: str | None = None
    splits: dict[str, str] = field(default_factory=dict)  # our split name -> hub split name
    columns: dict[str, str] = field(default_factory=dict)  # our column -> hub column


@dataclass(frozen=True)
class DatasetSpec:
    """Metadata plus a row loader. `kind` is "classification" (text, label), "pairs"
    (sentence1, sentence2, score) or "sentences" (unlabelled text, for pre-training corpora). `recipe` is
    bumped whenever the rows a loader yields change."""

    name: str
    description: str
    kind: Literal["classification", "pairs", "sentences"]
    license: str
    citation: str
    label_names: tuple[str, ...] = ()
    load_rows: Callable[[], RowsBySplit] | None = None  # offline: registry package or local file
    provenance: tuple[str, ...] = ()  # human-readable pinned sources, e.g. "vaderSentiment==3.3.2 (sdist) ..."
    hub: HubSource | None = None
    split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)  # train / validation / test, if unsplit
    validation_fraction: float = 0.1  # carved (stratified) from train when a source has no validation split
    split_seed: int = 42
    recipe: int = 1
    tags: tuple[str, ...] = ()  # from DATASET_TAGS
    max_examples: int | None = None  # seeded cap per split for costly (long) texts; see each task family
    # A smaller seeded cap for the `-lite` versions of its costliest tasks (SgTS, probe), which lite benchmarks
    # pin where the full task would cost more than the whole lite budget; the sample is a subset of the full one.
    lite_examples: int | None = None
    derived_from: tuple[str, ...] = ()  # datasets whose rows this one is built from (in-domain marks)
    title: str = ""  # how task descriptions name it, e.g. "STS Benchmark (Cer et al. 2017)" (default: `name`)
    # The splits its publishers define (not those sentibench carves): protocols that follow the literature
    # read them, e.g. STS scores a published validation split too, SentEval cross-validates a set without any.
    standard_splits: tuple[str, ...] = ()
    size: int | None = None  # rows the loader yields, all splits together (declared; a test checks the real parse)
    language: str = "en"  # ISO 639-1 code of the texts

    def __post_init__(self) -> None:
        unknown = sorted(set(self.tags) - DATASET_TAGS)
        if unknown:
            known = ", ".join(sorted(DATASET_TAGS))
            raise BenchError(f"dataset '{self.name}': unknown tag(s) {unknown}; known: {known}")
        if self.max_examples is not None and self.max_examples < 2:
            raise BenchError(f"dataset '{self.name}': max_examples must be at least 2")
        if self.lite_examples is not None and not 2 <= self.lite_examples < (self.max_examples or 10**12):
            raise BenchError(f"dataset '{self.name}': lite_examples must be at least 2 and below max_examples")

    @property
    def planned_train_size(self) -> int | None:
        """Rows the stratified plan leaves in train for an unsplit source of `size` rows (scikit-learn's
        `train_test_split` holds out ceil(fraction x n)); None when the size is not declared."""
        if self.size is None:
            return None
        from math import ceil

        train_f, valid_f, test_f = self.split_fractions
        rest = self.size - ceil(test_f * self.size) if test_f > 0 else self.size
        return rest - (ceil(valid_f / (train_f + valid_f) * rest) if valid_f > 0 else 0)

    @property
    def display_title(self) -> str:
        return self.title or self.name

    def has(self, *tags: str) -> bool:
        return set(tags) <= set(self.tags)

    @property
    def offline(self) -> bool:
        """Rows come from a pinned package or local file (not only from the Hub)."""
        return self.load_rows is not None

    @property
    def is_labelled(self) -> bool:
        return self.kind == "classification" and len(self.label_names) >= 2

    @property
    def is_binary(self) -> bool:
        return self.kind == "classification" and len(self.label_names) == 2
