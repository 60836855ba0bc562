"""Seeded samples of a dataset's splits: every task that caps the same split with the same seed sees (and
caches) the same texts."""

from __future__ import annotations

import numpy as np

from sentibench.data import get_dataset


def capped_indices(n: int, cap: int | None, seed: int) -> np.ndarray:
    """Indices of a seeded random sample of `cap` of `n` rows (all rows when no cap), in original order.
    The sample is a prefix of one seeded permutation, so smaller caps are subsets of larger ones and every
    task that caps the same split with the same seed sees (and caches) the same texts."""
    if cap is None or cap >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).permutation(n)[:cap])


def split_arrays(dataset: str, split: str, cap: int | None, seed: int) -> tuple[list[str], np.ndarray]:
    """Texts and labels of one split of a classification dataset, optionally capped (see `capped_indices`)."""
    part = get_dataset(dataset).split(split)
    keep = capped_indices(len(part), cap, seed)
    texts = part.data.column("text").to_pylist()  # arrow, not row-by-row iteration
    return [texts[i] for i in keep], part.data.column("label").to_numpy()[keep]
