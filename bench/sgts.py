"""The SgTS protocol's core: balanced sentence pairs over a binary-labelled split and their score.

Shared by the SgTS tasks (`sentibench.tasks.sgts`, on test splits) and by trainers that select
checkpoints on validation SgTS, so neither models nor tasks import the other. See the task module for the
protocol (SentiCSE, Kim et al. 2024, §2, and our many-pairs design).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np

from sentibench import metrics
from sentibench.encoders import Encoder
from sentibench.errors import BenchError

N_PAIRS = 4000


def _sample_pairs(rng: np.random.Generator, a: np.ndarray, b: np.ndarray | None, count: int) -> list[tuple]:
    """`count` distinct unordered pairs within `a` (b None) or across a x b, sampled without replacement."""
    if b is None:
        rows, cols = np.triu_indices(len(a), k=1)
        chosen = rng.choice(len(rows), size=count, replace=False)
        return [(int(a[rows[k]]), int(a[cols[k]])) for k in chosen]
    chosen = rng.choice(len(a) * len(b), size=count, replace=False)
    return [(int(a[k // len(b)]), int(b[k % len(b)])) for k in chosen]


def build_pairs(labels: Sequence[int], seed: int, n_pairs: int = N_PAIRS,
                max_per_class: int | None = None) -> list[tuple[int, int, int]]:
    """Balanced (i, j, gold) pairs over a binary-labelled split; see the module docstring."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if len(classes) != 2:
        raise BenchError(f"SgTS needs exactly two polarities; this split has {len(classes)} label value(s)")
    rng = np.random.default_rng(seed)
    pos = rng.permutation(np.flatnonzero(labels == classes[1]))
    neg = rng.permutation(np.flatnonzero(labels == classes[0]))
    m = min(len(pos), len(neg), max_per_class or len(labels))
    pos, neg = pos[:m], neg[:m]
    q = min(n_pairs // 4, m * (m - 1) // 2)
    if q == 0:
        raise BenchError("SgTS needs at least 2 sentences of each polarity")
    pairs = [(i, j, 1) for i, j in _sample_pairs(rng, pos, None, q)]
    pairs += [(i, j, 1) for i, j in _sample_pairs(rng, neg, None, q)]
    pairs += [(i, j, 0) for i, j in _sample_pairs(rng, pos, neg, 2 * q)]
    order = rng.permutation(len(pairs))
    return [pairs[i] for i in order]


def pairs_hash(texts: Sequence[str], pairs: Sequence[tuple[int, int, int]]) -> str:
    payload = json.dumps([(texts[i], texts[j], gold) for i, j, gold in pairs], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def sgts_scores(emb_a: np.ndarray, emb_b: np.ndarray, gold: Sequence[int]) -> dict[str, float | None]:
    """Spearman and Pearson between row-wise cosine similarity and the 0/1 gold; None if undefined."""
    return metrics.correlations(metrics.row_cosines(emb_a, emb_b), gold)


def sgts_on_split(encoder: Encoder, texts: Sequence[str], labels: Sequence[int], seed: int,
                  max_per_class: int | None = None, n_pairs: int = N_PAIRS,
                  batch_size: int = 32) -> tuple[dict, dict]:
    """Build the pairs, encode each distinct sentence once, score; returns (scores, details)."""
    pairs = build_pairs(labels, seed, n_pairs=n_pairs, max_per_class=max_per_class)
    used = sorted({i for i, _, _ in pairs} | {j for _, j, _ in pairs})
    vectors = dict(zip(used, encoder.encode([texts[i] for i in used], batch_size=batch_size)))
    scores = sgts_scores(np.stack([vectors[i] for i, _, _ in pairs]), np.stack([vectors[j] for _, j, _ in pairs]),
                         [gold for _, _, gold in pairs])
    details = {"n_pairs": len(pairs), "n_same": sum(g for _, _, g in pairs), "pair_seed": seed,
               "pairs_hash": pairs_hash(texts, pairs), "n_sentences": len(used)}
    truncated = getattr(encoder, "truncated_count", None)
    count = truncated([texts[i] for i in used]) if truncated is not None else None
    if count is not None:
        details["truncated_sentences"] = count
        details["max_length"] = getattr(encoder, "max_length", None)
    return scores, details
