"""The SgTS protocol, whole, as one evaluator (`SgTSEvaluator`): the balanced sentence set of a binary-labelled
split, its pairs, their score and the score's resampling units.

Used by the SgTS tasks (`sentibench.tasks.sgts`, on test splits) and by trainers that select checkpoints on
validation SgTS (`sgts_on_split`), so neither models nor tasks import the other. Three pair designs over one
balanced sentence set (`balanced_sentences`); the task module's docstring and docs/tasks.md spell each out:
- "all-pairs" (default): every unordered pair of the set; no pair-sampling noise at all;
- "sampled": `n_pairs` balanced pairs drawn without replacement (`build_pairs`; protocol version 2);
- "paper": SentiCSE's design, each sentence in exactly one pair (`paper_pairs`; their §4.3 built the
  checkpoint-selection set SgTS-MR this way: 429 pairs from the 872 sentences of the validation set).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from sentibench.core.errors import BenchError
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.spearman import spearman_influence
from sentibench.evaluation.units import LINEARISED, UnitValues

N_PAIRS = 4000
Design = Literal["all-pairs", "sampled", "paper"]
DESIGNS: tuple[str, ...] = ("all-pairs", "sampled", "paper")


def balanced_sentences(labels: Sequence[int], seed: int, max_per_class: int | None = None,
                       rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(positive, negative) indices of the balanced set: each polarity's indices shuffled with
    `numpy.random.default_rng(seed)` (positives first, then negatives, from the same generator), then the
    first m = min(#pos, #neg, max_per_class) of each. "Positive" is the larger label value."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if len(classes) != 2:
        raise BenchError(f"SgTS needs exactly two polarities; this split has {len(classes)} label value(s)")
    rng = rng if rng is not None else np.random.default_rng(seed)
    pos = rng.permutation(np.flatnonzero(labels == classes[1]))
    neg = rng.permutation(np.flatnonzero(labels == classes[0]))
    m = min(len(pos), len(neg), max_per_class or len(labels))
    if m < 2:
        raise BenchError("SgTS needs at least 2 sentences of each polarity")
    return pos[:m], neg[:m]


def all_pairs(labels: Sequence[int], seed: int, max_per_class: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The balanced set as one index array (positives, then negatives, in their shuffled order) and the
    pairs (i, j), i < j in that order, as a [P, 2] array of positions in it: m(m-1) same-polarity pairs and
    m^2 mixed ones, P = 2m(2m-1)/2."""
    sentences = balanced_set(labels, seed, max_per_class)
    first, second = np.triu_indices(len(sentences), k=1)
    return sentences, np.stack([first, second], axis=1)


def balanced_set(labels: Sequence[int], seed: int, max_per_class: int | None = None) -> np.ndarray:
    """`balanced_sentences` as one index array: positives, then negatives, in their shuffled order."""
    pos, neg = balanced_sentences(labels, seed, max_per_class)
    return np.concatenate([pos, neg])


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
    """The "sampled" design: with q = min(n_pairs // 4, m(m-1)/2), q positive-positive and q
    negative-negative pairs (gold 1) and 2q positive-negative pairs (gold 0), each kind drawn without
    replacement (`rng.choice` over the pairs' linear indices), then the pair order shuffled; one generator,
    seeded once, in that order."""
    rng = np.random.default_rng(seed)
    pos, neg = balanced_sentences(labels, seed, max_per_class, rng=rng)
    m = len(pos)
    q = min(n_pairs // 4, m * (m - 1) // 2)
    pairs = [(i, j, 1) for i, j in _sample_pairs(rng, pos, None, q)]
    pairs += [(i, j, 1) for i, j in _sample_pairs(rng, neg, None, q)]
    pairs += [(i, j, 0) for i, j in _sample_pairs(rng, pos, neg, 2 * q)]
    order = rng.permutation(len(pairs))
    return [pairs[i] for i in order]


def paper_pairs(labels: Sequence[int], seed: int, max_per_class: int | None = None) -> list[tuple[int, int, int]]:
    """SentiCSE's design (§4.3: 429 pairs from 872 validation sentences): the balanced set, shuffled once more with the
    same generator, cut into consecutive disjoint pairs, so each sentence is in exactly one pair."""
    rng = np.random.default_rng(seed)
    pos, neg = balanced_sentences(labels, seed, max_per_class, rng=rng)
    order = rng.permutation(np.concatenate([pos, neg]))
    labels = np.asarray(labels)
    return [(int(i), int(j), int(labels[i] == labels[j])) for i, j in zip(order[0::2], order[1::2])]


def pairs_hash(texts: Sequence[str], pairs: Sequence[tuple[int, int, int]]) -> str:
    payload = json.dumps([(texts[i], texts[j], gold) for i, j, gold in pairs], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def sentences_hash(texts: Sequence[str], labels: Sequence[int], sentences: np.ndarray) -> str:
    """sha256 of the JSON list [[text, label], ...] of the balanced set in its order: with the design, it
    fixes every all-pairs pair."""
    payload = json.dumps([(texts[i], int(labels[i])) for i in sentences], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def sgts_scores(emb_a: np.ndarray, emb_b: np.ndarray, gold: Sequence[int]) -> dict[str, float | None]:
    """Spearman and Pearson between row-wise cosine similarity and the 0/1 gold; None if undefined."""
    return metrics.correlations(metrics.row_cosines(emb_a, emb_b), gold)


def _truncation(encoder: Encoder, texts: list[str]) -> dict:
    truncated = getattr(encoder, "truncated_count", None)
    count = truncated(texts) if truncated is not None else None
    return {} if count is None else {"truncated_sentences": count, "max_length": getattr(encoder, "max_length", None)}


def sgts_all_pairs(encoder: Encoder, texts: Sequence[str], labels: Sequence[int], seed: int,
                   max_per_class: int | None = None, batch_size: int = 32
                   ) -> tuple[dict, np.ndarray, np.ndarray]:
    """The all-pairs design: returns (details, cosines, gold) over the pairs of the balanced set
    (`details["n_sentences"]` sentences, each encoded once) in `all_pairs`'s order, row by row: (0, 1),
    ..., (0, n-1), (1, 2), ... Cosines are read off the set's Gram matrix a row at a time, so neither a
    [P, 2] index array nor a pair mask is built (IMDB: 8M pairs); `pair_unit_sums` sums per-pair values
    per sentence in the same layout."""
    sentences = balanced_set(labels, seed, max_per_class)
    set_texts = [texts[i] for i in sentences]
    set_labels = np.asarray(labels)[sentences]
    unit = metrics.l2_normalise(encoder.encode(set_texts, batch_size=batch_size), np.float64)
    gram, n = unit @ unit.T, len(sentences)
    cosines, gold = np.empty(n * (n - 1) // 2), np.empty(n * (n - 1) // 2)
    for i, start in enumerate(_row_starts(n)[:-1]):
        cosines[start:start + n - 1 - i] = gram[i, i + 1:]
        np.equal(set_labels[i + 1:], set_labels[i], out=gold[start:start + n - 1 - i])
    del gram
    details = {"design": "all-pairs", "n_pairs": len(cosines), "n_same": int(gold.sum()), "pair_seed": seed,
               "n_sentences": n, "sentences_hash": sentences_hash(texts, labels, sentences),
               **_truncation(encoder, set_texts)}
    return details, cosines, gold


def _row_starts(n: int) -> list[int]:
    """Where row i of the pairs (i, i+1), ..., (i, n-1) starts in the row-by-row layout, for i = 0..n-1."""
    return [i * (2 * n - i - 1) // 2 for i in range(n)]


def pair_unit_sums(per_pair: np.ndarray, n: int) -> np.ndarray:
    """Per sentence, the sum of `per_pair` over its pairs in the row-by-row layout of `sgts_all_pairs`,
    to the same bits as `bincount(first, w) + bincount(second, w)` with (first, second) = triu_indices(n,
    1): row sums in order (a `cumsum`'s last entry) plus column sums accumulated row by row."""
    rows, columns = np.zeros(n), np.zeros(n)
    running = np.empty(n)
    for i, start in enumerate(_row_starts(n)[:-1]):
        row = per_pair[start:start + n - 1 - i]
        rows[i] = np.cumsum(row, out=running[:len(row)])[-1]
        columns[i + 1:] += row
    return rows + columns


@dataclass(frozen=True)
class SgTSEvaluator:
    """SgTS on one split under `design` (module docstring). The all-pairs design's main score carries its
    units: the sentences, each pair weighted by the product of its two sentences' weights, so a sentence's
    pseudo-value is rho + n * (the sum of its pairs' Spearman influences) (`spearman_influence`,
    `pair_unit_sums`; the linearised bootstrap of `evaluation.units`). `n_pairs` is the "sampled" design's."""

    texts: Sequence[str]
    labels: Sequence[int]
    seed: int
    max_per_class: int | None = None
    design: Design = "all-pairs"
    n_pairs: int = N_PAIRS

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        if self.design == "all-pairs":
            return self._all_pairs(encoder, batch_size, intervals)
        if self.design == "sampled":
            pairs = build_pairs(self.labels, self.seed, n_pairs=self.n_pairs, max_per_class=self.max_per_class)
        elif self.design == "paper":
            pairs = paper_pairs(self.labels, self.seed, max_per_class=self.max_per_class)
        else:
            raise BenchError(f"unknown SgTS design '{self.design}'; choose one of {', '.join(DESIGNS)}")
        texts = self.texts
        used = sorted({i for i, _, _ in pairs} | {j for _, j, _ in pairs})
        vectors = dict(zip(used, encoder.encode([texts[i] for i in used], batch_size=batch_size)))
        scores = sgts_scores(np.stack([vectors[i] for i, _, _ in pairs]),
                             np.stack([vectors[j] for _, j, _ in pairs]), [gold for _, _, gold in pairs])
        details = {"design": self.design, "n_pairs": len(pairs), "n_same": sum(g for _, _, g in pairs),
                   "pair_seed": self.seed, "pairs_hash": pairs_hash(texts, pairs), "n_sentences": len(used),
                   **_truncation(encoder, [texts[i] for i in used])}
        return Scored(scores, details)

    def _all_pairs(self, encoder: Encoder, batch_size: int, intervals: bool) -> Scored:
        details, cosines, gold = sgts_all_pairs(encoder, self.texts, self.labels, self.seed, self.max_per_class,
                                                batch_size)
        if not intervals:
            return Scored(metrics.correlations(cosines, gold), details)
        scores = metrics.correlations(cosines, gold, spearman=False)
        if scores["cosine_pearson"] is None:  # constant cosines or gold: no correlation, no units
            return Scored(scores, details)
        rho, per_pair = spearman_influence(cosines, gold)
        n = details["n_sentences"]
        scores["cosine_spearman"] = rho
        units = UnitValues(rho + n * pair_unit_sums(per_pair, n), "sentence", LINEARISED, details["sentences_hash"])
        return Scored(scores, details, units)


def sgts_on_split(encoder: Encoder, texts: Sequence[str], labels: Sequence[int], seed: int,
                  max_per_class: int | None = None, n_pairs: int = N_PAIRS,
                  batch_size: int = 32, design: Design = "all-pairs") -> tuple[dict, dict]:
    """(scores, details) of `SgTSEvaluator` without units: a trainer's validation score."""
    scored = SgTSEvaluator(texts, labels, seed, max_per_class, design, n_pairs)(encoder, batch_size, intervals=False)
    return scored.scores, scored.details
