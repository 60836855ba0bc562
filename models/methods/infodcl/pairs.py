"""Epoch-wise re-pairing (InfoDCL B.4): the positive of an anchor is another tweet with the same label,
re-drawn at the start of every epoch, and "each sample in the training dataset is used only once at each
epoch, either as the anchor or as a positive sample".

Epoch e: within each label, the tweets are shuffled by `numpy.random.default_rng([seed, e])` and paired
consecutively, (1st, 2nd), (3rd, 4th), ...; a label with an odd count leaves one tweet out of that epoch
(a different one next epoch); then the pairs of all labels are shuffled together. Without re-pairing
(Table 18 G) the pairing of epoch 0 is kept for every epoch and only the order of the pairs is re-shuffled,
as a fixed pair file read by a shuffling data loader would be.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pair_within_labels(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int [P, 2]: disjoint same-label pairs covering every tweet but one per odd-sized label."""
    pairs = []
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        usable = len(members) - len(members) % 2
        pairs.append(members[:usable].reshape(-1, 2))
    return np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)


def epoch_pairs(labels: Sequence[int], seed: int, epoch: int, repair: bool = True) -> np.ndarray:
    """int [P, 2] (anchor, positive) row indices for `epoch`, in training order."""
    labels = np.asarray(labels)
    pairs = pair_within_labels(labels, np.random.default_rng([seed, epoch if repair else 0]))
    order = np.random.default_rng([seed, epoch, 1]).permutation(len(pairs))
    return pairs[order]
