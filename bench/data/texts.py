"""The texts of a prepared split, as models read them: one place, for the runner, the model kinds that fit on
a train split, and the mteb wrapper."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError

if TYPE_CHECKING:
    from datasets import Dataset

    from sentibench.data.store import PreparedDataset


def split_texts(split: Dataset) -> list[str]:
    """Every text of a split: its `text` column, or both sides of a sentence-pair split."""
    columns = ["text"] if "text" in split.column_names else ["sentence1", "sentence2"]
    return [text for name in columns for text in split.data.column(name).to_pylist()]  # arrow, not row by row


def train_texts(dataset: str) -> list[str]:
    """Every text of the dataset's train split (what a model that learns from data may see)."""
    from sentibench.data import get_dataset

    return split_texts(get_dataset(dataset).split("train"))


def every_text(dataset: PreparedDataset) -> list[str]:
    """Every text of every split of a prepared dataset (`text`, or both sides of a sentence-pair split), read
    from its verified Arrow files without importing `datasets` (`PreparedDataset.columns`)."""
    texts: list[str] = []
    for split in dataset.split_names:
        try:
            columns = dataset.columns(split, ["text"])
        except BenchError:  # a sentence-pair split
            columns = dataset.columns(split, ["sentence1", "sentence2"])
        texts += [text for column in columns.values() for text in column]
    return texts
