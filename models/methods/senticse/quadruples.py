"""SentiCSE's training examples: one quadruple (p, p+, n, n+) per positive training sentence (§4.3).

For each positive sentence p of the training split: p+ is another positive sentence and n, n+ are two
different negative sentences, all drawn uniformly at random. The paper draws them once; we re-draw them
every epoch (more distinct pairs seen in a long run), reproducibly: epoch e uses
`numpy.random.default_rng([seed, e])`, and the order of the quadruples is shuffled by the same generator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sentibench.core.errors import BenchError


def quadruples(labels: Sequence[int], positive: int, seed: int, epoch: int) -> np.ndarray:
    """int [P, 4] row indices (p, p+, n, n+), one row per positive sentence, shuffled."""
    labels = np.asarray(labels)
    pos = np.flatnonzero(labels == positive)
    neg = np.flatnonzero(labels != positive)
    if len(pos) < 2 or len(neg) < 2:
        raise BenchError("SentiCSE needs at least two positive and two negative training sentences")
    rng = np.random.default_rng([seed, epoch])
    anchors = rng.permutation(pos)
    # another positive: shift by 1..P-1 inside `pos`, so p+ != p
    where = np.searchsorted(pos, anchors)
    partners = pos[(where + rng.integers(1, len(pos), size=len(pos))) % len(pos)]
    first = rng.integers(0, len(neg), size=len(pos))
    second = (first + rng.integers(1, len(neg), size=len(pos))) % len(neg)
    return np.stack([anchors, partners, neg[first], neg[second]], axis=1)
