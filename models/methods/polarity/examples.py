"""Example generation (polarity-aware retrieval paper §3.4, Figure 2, Table 3).

1. Encode the training split with the base model (through sentibench's embedding cache), or with one
   fixed model for every base (`example_encoder` in `train`; the authors encoded once with e5-small).
2. For every sentence, its nearest neighbours by cosine (faiss `IndexFlatIP` on L2-normalised vectors,
   the sentence itself excluded), keeping only those with cosine >= `threshold` (the paper's 0.5).
   `threshold=None` keeps every neighbour: what the authors' code did (it computed the filtered list and
   returned the unfiltered one). `neighbour_search="per-polarity"`: k neighbours **of each polarity** (one
   index per label); `"overall"` (the authors' code): the k nearest of all sentences, then split by label,
   so an anchor has k neighbours in all. Both presets are a hybrid of the two sources: the code's overall
   search with the paper's threshold, a list neither the paper's text nor the authors' code produces
   (docs/polarity.md); `threshold=None` with `"overall"` is the authors' code's list.
3. Combine per loss input type (Table 3), as indices into the training split:
   - `triplet`: (anchor, same-label neighbour, other-label neighbour), every combination per anchor;
   - `contrastive`: (anchor, neighbour, 1) for same-label and (anchor, neighbour, 0) for other-label ones;
   - `mnrl`: (anchor, same-label neighbour). Each anchor appears with up to k positives, so a batch can
     hold the same anchor twice, and each copy's positive becomes the other's in-batch negative: the
     contradictory examples the paper blames for MNRL's weak polarity scores (§4).
4. Thin the candidates. `thinning="exact-count"`: exactly `pool_size` of the M candidates drawn without
   replacement (dropout rate 1 - pool_size / M), so the count is exact and the pool deterministic given the
   seed. `thinning="per-loss-dropout"` (the authors' code): each candidate is dropped independently with
   the loss's rate, tuned by the authors until about 250,000 examples remained (`example_dropout`, or when
   unset their SST-2 rate for the input type, `AUTHORS_SST2_DROPOUT`); `pool_size` is not used.

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


NeighbourSearch = Literal["per-polarity", "overall"]
Thinning = Literal["exact-count", "per-loss-dropout"]
AUTHORS_SST2_DROPOUT: dict[str, float] = {"triplet": 0.83, "mnrl": 0.73, "contrastive": 0.77}
"""The authors' per-loss example dropout on SST-2 (their `data_generation/generate.py`), by input type."""


@dataclass(frozen=True)
class GenerationConfig:
    input_type: InputType
    k: int = 16
    threshold: float | None = 0.5
    pool_size: int = 250_000
    seed: int = 0
    neighbour_search: NeighbourSearch = "per-polarity"
    thinning: Thinning = "exact-count"
    example_dropout: float | None = None  # per-loss-dropout's rate; None: AUTHORS_SST2_DROPOUT[input_type]

    def dropout_rate(self) -> float:
        """The per-example dropout rate of `per-loss-dropout`."""
        rate = AUTHORS_SST2_DROPOUT[self.input_type] if self.example_dropout is None else self.example_dropout
        if not 0 <= rate < 1:
            raise ValueError(f"example dropout must be in [0, 1), got {rate}")
        return rate


@dataclass(frozen=True)
class Neighbours:
    """Per sentence, up to k neighbours of its own label (`same`) and of the other label (`other`):
    indices into the split, -1 where fewer than k pass the threshold; rank order (most similar first)."""

    same: np.ndarray    # [n, k] int64
    other: np.ndarray   # [n, k] int64


def _search(vectors: np.ndarray, members: np.ndarray, k: int, threshold: float | None) -> np.ndarray:
    """For every row of `vectors`, its k nearest `members` (indices into the split) by inner product, itself
    and those below `threshold` replaced by -1 (rank order kept, not compacted)."""
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors[members])
    cosines, found = index.search(vectors, min(k + 1, len(members)))  # +1: a sentence finds itself
    hits = np.where(found >= 0, members[np.clip(found, 0, None)], -1)
    hits[hits == np.arange(len(vectors))[:, None]] = -1
    if threshold is not None:
        hits[cosines < threshold] = -1
    return hits


def polarity_neighbours(vectors: np.ndarray, labels: np.ndarray, k: int, threshold: float | None,
                        search: NeighbourSearch = "per-polarity") -> Neighbours:
    """Each sentence's nearest neighbours (binary labels), cosine >= threshold: k of each label
    (`per-polarity`), or the k nearest overall split by label (`overall`)."""
    vectors = metrics.l2_normalise(np.asarray(vectors))
    labels = np.asarray(labels)
    values = np.unique(labels)
    if len(values) != 2:
        raise ValueError(f"example generation needs exactly two labels, got {values.tolist()}")
    first = (labels == values[0])[:, None]
    if search == "overall":
        hits = first_valid(_search(vectors, np.arange(len(labels)), k, threshold), k)
        same_label = (labels[np.clip(hits, 0, None)] == labels[:, None]) & (hits >= 0)
        return Neighbours(same=first_valid(np.where(same_label, hits, -1), k),
                          other=first_valid(np.where(~same_label & (hits >= 0), hits, -1), k))
    by_label = {label: first_valid(_search(vectors, np.flatnonzero(labels == label), k, threshold), k)
                for label in values}
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


def drop_examples(examples: np.ndarray, rate: float, seed: int) -> np.ndarray:
    """Each example dropped independently with probability `rate` (seeded), the rest in original order."""
    return examples[np.random.default_rng(seed).random(len(examples)) >= rate]


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
    neighbours = polarity_neighbours(vectors, labels, config.k, config.threshold, config.neighbour_search)
    every = candidates(neighbours, config.input_type)
    kept = (drop_examples(every, config.dropout_rate(), config.seed) if config.thinning == "per-loss-dropout"
            else thin(every, config.pool_size, config.seed))
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
