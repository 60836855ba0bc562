"""A dataset declared once: what it is, where its rows come from, how it is split."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Row = dict[str, object]
RowsBySplit = dict[str, list[Row]]

UNSPLIT = "all"  # a source that returns {"all": rows} is split by the spec's stratified plan


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
    """Metadata plus a row loader. `kind` is "classification" (text, label) or "pairs"
    (sentence1, sentence2, score). `recipe` is bumped whenever the rows a loader yields change."""

    name: str
    description: str
    kind: Literal["classification", "pairs"]
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
    tags: tuple[str, ...] = ()  # e.g. "sentiment", "sts", "topic"

    @property
    def is_sentiment(self) -> bool:
        return "sentiment" in self.tags
