"""SgTS, Sentiment-guided Textual Similarity (SentiCSE paper, papers/senticse.txt §2).

Pairs of sentences get gold similarity 1 when their polarities agree and 0 when they differ; the score is
Spearman's rho (main) and Pearson's r between the pairs' cosine similarities and that 0/1 gold.

Pair construction. The paper gives only "429 pairs with 0/1 labels from the 872 validation sentences"
(each sentence used once). On small test splits that leaves ~100 pairs and a noise floor of ~0.1 rho,
larger than the differences between models; but encoding is per sentence, so more pairs over the same
sentences cost nothing. Ours, deterministic given the seed:
  1. shuffle the positive and the negative sentences with `numpy.random.default_rng(seed)`, keep the first
     m = min(#pos, #neg, max_per_class) of each (a balanced sentence set; IMDB: 2,000 reviews per class);
  2. with q = min(n_pairs // 4, m(m-1)/2), draw without replacement q distinct positive-positive and q
     distinct negative-negative pairs (gold 1) and 2q distinct positive-negative pairs (gold 0);
  3. shuffle the pair order.
The gold is balanced, no pair repeats, and every score estimates the same quantity as the paper's
one-pair-per-sentence design with lower variance. Evaluation uses the test split; model selection
(trainers) uses the validation split, never the test pairs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np
from scipy import stats

from sentibench.data import get_dataset
from sentibench.encoders import Encoder
from sentibench.errors import BenchError
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register

DATASETS = {"mr": None, "imdb": 2000, "vader-amazon": None, "vader-tweets": None, "vader-nyt": None}
"""Sentiment datasets with an SgTS task, and their cap on sentences per class (IMDB: 2,000 long reviews
per class keeps the default suite's encode cost within the CPU budget)."""
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


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.clip(np.linalg.norm(a, axis=1, keepdims=True), 1e-12, None)
    b = b / np.clip(np.linalg.norm(b, axis=1, keepdims=True), 1e-12, None)
    return np.sum(a * b, axis=1)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def sgts_scores(emb_a: np.ndarray, emb_b: np.ndarray, gold: Sequence[int]) -> dict[str, float | None]:
    """Spearman (main) and Pearson between row-wise cosine similarity and the 0/1 gold; None if undefined."""
    cosine = cosine_rows(np.asarray(emb_a, dtype=np.float64), np.asarray(emb_b, dtype=np.float64))
    gold = np.asarray(gold, dtype=np.float64)
    if np.ptp(cosine) == 0 or np.ptp(gold) == 0:
        spearman = pearson = float("nan")
    else:
        spearman = stats.spearmanr(cosine, gold).statistic
        pearson = stats.pearsonr(cosine, gold).statistic
    return {"cosine_spearman": _finite(spearman), "cosine_pearson": _finite(pearson),
            "main_score": _finite(spearman)}


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
    truncated = getattr(getattr(encoder, "base", encoder), "truncated_count", None)
    if truncated is not None:
        details["truncated_sentences"] = truncated([texts[i] for i in used])
        details["max_length"] = getattr(getattr(encoder, "base", encoder), "max_length", None)
    return scores, details


class SgTSTask(Task):
    """SgTS on one dataset's test split."""

    def __init__(self, dataset: str, max_per_class: int | None = None, split: str = "test") -> None:
        self.max_per_class = max_per_class
        self.metadata = TaskMetadata(
            name=f"sgts-{dataset}", type="SgTS", dataset=dataset, eval_splits=(split,),
            main_score="cosine_spearman", groups=("sgts",),
            description="Spearman correlation between the cosine similarity of a sentence pair and whether "
                        "the two sentences share a polarity (1) or not (0)"
                        + f"; {N_PAIRS} balanced pairs" + (f" over at most {max_per_class} sentences per class."
                                                             if max_per_class else "."),
            reference="Kim et al. (2024), SentiCSE, §2 (papers/senticse.txt)",
        )

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        split = self.metadata.eval_splits[0]
        rows = get_dataset(self.metadata.dataset).split(split)
        cap = min(filter(None, (self.max_per_class, context.limit and context.limit // 2)), default=None)
        scores, details = sgts_on_split(encoder, rows["text"], rows["label"], seed=context.seed,
                                        max_per_class=cap, batch_size=context.batch_size)
        return Evaluation({split: scores}, details)


for _name, _cap in DATASETS.items():
    register(SgTSTask(_name, max_per_class=_cap))
