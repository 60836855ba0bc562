"""Seeded samples of a dataset's splits: every task that caps the same split with the same seed sees (and
caches) the same texts."""

from __future__ import annotations

import numpy as np

from sentibench.core.errors import BenchError
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


def sample_per_class(labels: np.ndarray, k: int, seed: int) -> np.ndarray:
    """K indices of each class, without replacement (SentiCSE (Kim et al., 2024) §4.4); sorted."""
    rng = np.random.default_rng(seed)
    picked = []
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        if len(members) < k:
            raise BenchError(f"class {label} has {len(members)} training examples, fewer than K={k}")
        picked.append(rng.choice(members, size=k, replace=False))
    return np.sort(np.concatenate(picked))


def sample_stratified(labels: np.ndarray, n: int, seed: int) -> np.ndarray:
    """N indices without replacement, stratified to train's class proportions (scikit-learn); sorted."""
    if n >= len(labels):
        raise BenchError(f"N={n} needs more than the {len(labels)} training examples")
    from sklearn.model_selection import train_test_split

    picked, _ = train_test_split(np.arange(len(labels)), train_size=n, random_state=seed, stratify=labels)
    return np.sort(picked)


def sample_rest(n_total: int, taken: np.ndarray, size: int, seed: int) -> np.ndarray:
    """`size` indices of range(n_total) outside `taken`, without replacement; sorted."""
    rest = np.setdiff1d(np.arange(n_total), taken)
    if size > len(rest):
        raise BenchError(f"{size} validation examples asked, only {len(rest)} training examples are left")
    return np.sort(np.random.default_rng(seed + 1_000_003).choice(rest, size=size, replace=False))
