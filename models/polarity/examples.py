"""Example generation (polarity-aware retrieval paper §3.4, Figure 2, Table 3).

1. Encode the training split with the base model (through sentibench's embedding cache).
2. For every sentence, its k nearest neighbours **of each polarity** by cosine (faiss `IndexFlatIP` on
   L2-normalised vectors, one index per label, the sentence itself excluded), keeping only those with
   cosine >= `threshold` (the paper's 0.5). `threshold=None` keeps every neighbour: what the authors'
   code did (it computed the filtered list and returned the unfiltered one).
3. Combine per loss input type (Table 3), as indices into the training split:
   - `triplet`: (anchor, same-label neighbour, other-label neighbour), every combination per anchor;
   - `contrastive`: (anchor, neighbour, 1) for same-label and (anchor, neighbour, 0) for other-label ones;
   - `mnrl`: (anchor, same-label neighbour). Each anchor appears with up to k positives, so a batch can
     hold the same anchor twice, and each copy's positive becomes the other's in-batch negative: the
     contradictory examples the paper blames for MNRL's weak polarity scores (§4).
4. Thin to `pool_size` examples by a seeded dropout. Choice: the paper tunes a dropout rate until about
   250,000 examples remain; we draw exactly `pool_size` of the M candidates without replacement (dropout
   rate 1 - pool_size / M), so the count is exact and the pool deterministic given the seed.

The pool is cached on disk (`$SENTIBENCH_HOME/polarity-examples/<hash>.npz`, integer arrays, loaded
without pickle) under a hash of everything that changes it; the hash and counts go to the training report.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from sentibench.core.io import atomic_write_bytes
from sentibench.core.paths import cache_dir
from sentibench.evaluation import metrics

InputType = Literal["triplet", "contrastive", "mnrl"]
COLUMNS: dict[str, tuple[str, ...]] = {"triplet": ("anchor", "positive", "negative"),
                                       "contrastive": ("sentence1", "sentence2", "label"),
                                       "mnrl": ("anchor", "positive")}


@dataclass(frozen=True)
class GenerationConfig:
    input_type: InputType
    k: int = 16
    threshold: float | None = 0.5
    pool_size: int = 250_000
    seed: int = 0


@dataclass(frozen=True)
class Neighbours:
    """Per sentence, up to k neighbours of its own label (`same`) and of the other label (`other`):
    indices into the split, -1 where fewer than k pass the threshold; rank order (most similar first)."""

    same: np.ndarray    # [n, k] int64
    other: np.ndarray   # [n, k] int64


def polarity_neighbours(vectors: np.ndarray, labels: np.ndarray, k: int, threshold: float | None) -> Neighbours:
    """Each sentence's k nearest neighbours per label (binary labels), cosine >= threshold."""
    import faiss

    vectors = metrics.l2_normalise(np.asarray(vectors))
    labels = np.asarray(labels)
    values = np.unique(labels)
    if len(values) != 2:
        raise ValueError(f"example generation needs exactly two labels, got {values.tolist()}")
    rows = np.arange(len(labels))[:, None]
    by_label = {}
    for label in values:
        members = np.flatnonzero(labels == label)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors[members])
        cosines, found = index.search(vectors, min(k + 1, len(members)))  # +1: a sentence finds itself
        hits = np.where(found >= 0, members[np.clip(found, 0, None)], -1)
        hits[hits == rows] = -1
        if threshold is not None:
            hits[cosines < threshold] = -1
        by_label[label] = first_valid(hits, k)
    first = (labels == values[0])[:, None]
    return Neighbours(same=np.where(first, by_label[values[0]], by_label[values[1]]),
                      other=np.where(first, by_label[values[1]], by_label[values[0]]))


def first_valid(hits: np.ndarray, k: int) -> np.ndarray:
    """The first k valid (>= 0) entries of each row, order kept, padded with -1 to width k."""
    order = np.argsort(hits < 0, axis=1, kind="stable")
    kept = np.take_along_axis(hits, order, axis=1)[:, :k]
    return np.pad(kept, ((0, 0), (0, k - kept.shape[1])), constant_values=-1).astype(np.int64)


def candidates(neighbours: Neighbours, input_type: InputType) -> np.ndarray:
    """Every example of one input type, [M, columns] indices (contrastive: the third column is the 0/1
    label), in anchor order."""
    same, other = neighbours.same, neighbours.other
    n, k = same.shape
    anchors = np.arange(n)
    if input_type == "mnrl":
        a, j = np.nonzero(same >= 0)
        return np.stack([anchors[a], same[a, j]], axis=1)
    if input_type == "contrastive":
        both = np.concatenate([same, other], axis=1)
        a, j = np.nonzero(both >= 0)
        return np.stack([anchors[a], both[a, j], (j < k).astype(np.int64)], axis=1)
    if input_type == "triplet":
        valid = (same >= 0)[:, :, None] & (other >= 0)[:, None, :]
        a, p, q = np.nonzero(valid)
        return np.stack([anchors[a], same[a, p], other[a, q]], axis=1)
    raise ValueError(f"unknown input type '{input_type}'")


def thin(examples: np.ndarray, pool_size: int, seed: int) -> np.ndarray:
    """Exactly min(pool_size, M) of the M examples, drawn without replacement (seeded), in original order."""
    if len(examples) <= pool_size:
        return examples
    keep = np.sort(np.random.default_rng(seed).choice(len(examples), size=pool_size, replace=False))
    return examples[keep]


def pool_hash(config: GenerationConfig, encoder_identity: dict, data_hash: str) -> str:
    record = {"config": asdict(config), "encoder": encoder_identity, "data": data_hash, "version": 1}
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ExamplePool:
    """The generated examples of one input type (indices into the training split) and how they came about."""

    examples: np.ndarray
    hash: str
    stats: dict

    def report(self) -> dict:
        return {"hash": self.hash, **self.stats}


def generate(config: GenerationConfig, vectors: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, dict]:
    """Steps 2-4 on given vectors: the thinned examples and their counts."""
    neighbours = polarity_neighbours(vectors, labels, config.k, config.threshold)
    every = candidates(neighbours, config.input_type)
    kept = thin(every, config.pool_size, config.seed)
    stats = {"sentences": int(len(labels)), "candidates": int(len(every)), "kept": int(len(kept)),
             "dropout": round(1.0 - len(kept) / len(every), 6) if len(every) else 0.0,
             "mean_same_label_neighbours": float((neighbours.same >= 0).sum(axis=1).mean()) if len(labels) else 0.0,
             "mean_other_label_neighbours": float((neighbours.other >= 0).sum(axis=1).mean()) if len(labels) else 0.0,
             "anchors_without_same_label_neighbour": int((neighbours.same[:, 0] < 0).sum()) if len(labels) else 0,
             "config": asdict(config), "columns": list(COLUMNS[config.input_type])}
    return kept, stats


def example_pool(config: GenerationConfig, texts: list[str], labels: np.ndarray, encoder, data_hash: str
                 ) -> ExamplePool:
    """The cached pool for `config` over a split encoded by `encoder` (a `CachedEncoder`); built on first use."""
    key = pool_hash(config, encoder.current_identity(), data_hash)
    path = cache_dir("polarity-examples") / f"{key}.npz"
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists():
        with np.load(path, allow_pickle=False) as stored:
            return ExamplePool(stored["examples"], key, json.loads(meta.read_text()))
    kept, stats = generate(config, encoder.encode(texts, batch_size=64), labels)
    buffer = io.BytesIO()
    np.savez(buffer, examples=kept)
    atomic_write_bytes(path, buffer.getvalue())
    atomic_write_bytes(meta, json.dumps(stats, sort_keys=True).encode())
    return ExamplePool(kept, key, stats)
