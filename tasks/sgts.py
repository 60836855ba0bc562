"""SgTS, Sentiment-guided Textual Similarity (SentiCSE paper, papers/senticse.txt §2).

Pairs of sentences get gold similarity 1 when their polarities agree and 0 when they differ; the score is
Spearman's rho (main) and Pearson's r between the pairs' cosine similarities and that 0/1 gold.

Pair construction (the paper gives only "pairs with 0/1 labels from the validation set", 429 pairs from
872 sentences, i.e. each sentence used once). Ours, deterministic given the seed:
  1. shuffle the positive and the negative sentences of the held-out split with `numpy.random.default_rng(seed)`;
  2. q = min(#pos, #neg) // 4 (capped so that 4q <= max_pairs);
  3. q positive-positive and q negative-negative pairs (gold 1), and 2q positive-negative pairs (gold 0),
     drawn without replacement, so every sentence appears in at most one pair and the gold is balanced;
  4. shuffle the pair order.
Evaluation uses the test split; model selection (trainers) uses the validation split, never the test pairs.
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
"""Sentiment datasets with an SgTS task, and their cap on pairs (IMDB: 2,000 pairs of long reviews,
i.e. 4,000 documents, keeps the encode cost of the default suite within the CPU budget)."""


def build_pairs(labels: Sequence[int], seed: int, max_pairs: int | None = None) -> list[tuple[int, int, int]]:
    """Balanced (i, j, gold) pairs over a binary-labelled split; see the module docstring."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if len(classes) != 2:
        raise BenchError(f"SgTS needs exactly two polarities; this split has {len(classes)} label value(s)")
    rng = np.random.default_rng(seed)
    pos = rng.permutation(np.flatnonzero(labels == classes[1]))
    neg = rng.permutation(np.flatnonzero(labels == classes[0]))
    q = min(len(pos), len(neg)) // 4
    if max_pairs is not None:
        q = min(q, max_pairs // 4)
    if q == 0:
        raise BenchError("SgTS needs at least 4 sentences of each polarity")
    pairs = [(int(pos[2 * k]), int(pos[2 * k + 1]), 1) for k in range(q)]
    pairs += [(int(neg[2 * k]), int(neg[2 * k + 1]), 1) for k in range(q)]
    pairs += [(int(pos[2 * q + k]), int(neg[2 * q + k]), 0) for k in range(2 * q)]
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
                  max_pairs: int | None = None, batch_size: int = 32) -> tuple[dict, dict]:
    """Build the pairs, encode each distinct sentence once, score; returns (scores, details)."""
    pairs = build_pairs(labels, seed, max_pairs)
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

    def __init__(self, dataset: str, max_pairs: int | None = None, split: str = "test") -> None:
        self.max_pairs = max_pairs
        self.metadata = TaskMetadata(
            name=f"sgts-{dataset}", type="SgTS", dataset=dataset, eval_splits=(split,),
            main_score="cosine_spearman", groups=("sgts",),
            description="Spearman correlation between the cosine similarity of a sentence pair and whether "
                        "the two sentences share a polarity (1) or not (0)"
                        + (f"; at most {max_pairs} pairs." if max_pairs else "."),
            reference="Kim et al. (2024), SentiCSE, §2 (papers/senticse.txt)",
        )

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        split = self.metadata.eval_splits[0]
        rows = get_dataset(self.metadata.dataset).split(split)
        cap = min(filter(None, (self.max_pairs, context.limit)), default=None)
        scores, details = sgts_on_split(encoder, rows["text"], rows["label"], seed=context.seed, max_pairs=cap,
                                        batch_size=context.batch_size)
        return Evaluation({split: scores}, details)


for _name, _cap in DATASETS.items():
    register(SgTSTask(_name, max_pairs=_cap))
