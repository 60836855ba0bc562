"""Honest baselines: a bag-of-words encoder fitted only on a task's training text, and a random floor."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from sentibench.core.errors import BenchError


class BowEncoder:
    """TF-IDF (word 1-2 grams, sublinear tf, min_df 2) -> truncated SVD to `dimension` dims.

    `fit(texts)` must be called with training text before `encode`; the runner fits it on the train
    split of each task's dataset, so evaluation text never shapes the vocabulary or the projection."""

    name = "bow-tfidf-svd"

    def __init__(self, dimension: int = 256, seed: int = 0) -> None:
        self.dimension = dimension
        self.seed = seed
        self.pipeline = None
        self.fit_hash: str | None = None

    def fit(self, texts: Sequence[str]) -> BowEncoder:
        texts = list(texts)
        digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
        if digest == self.fit_hash:
            return self
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.pipeline import make_pipeline

        tfidf = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)
        n_terms = len(tfidf.fit(texts).vocabulary_)
        svd = TruncatedSVD(n_components=min(self.dimension, max(1, n_terms - 1)), random_state=self.seed)
        self.pipeline = make_pipeline(tfidf, svd).fit(texts)
        self.fit_hash = digest
        return self

    def cache_identity(self) -> dict[str, object]:
        return {"fit_hash": self.fit_hash, "dimension": self.dimension, "seed": self.seed}

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        if self.pipeline is None:
            raise BenchError("the bag-of-words encoder must be fitted on training text before encoding")
        return np.asarray(self.pipeline.transform(list(texts)), dtype=np.float32)


class RandomEncoder:
    """A standard-normal vector per text, seeded by the text's sha256 and `seed`: the floor any
    real model must beat (its expected SgTS and STS are 0)."""

    name = "random"

    def __init__(self, dimension: int = 384, seed: int = 0) -> None:
        self.dimension = dimension
        self.seed = seed

    def cache_identity(self) -> dict[str, object]:
        return {"dimension": self.dimension, "seed": self.seed}

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        rows = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            key = int.from_bytes(hashlib.sha256(f"{self.seed}\0{text}".encode()).digest()[:8], "little")
            rows[i] = np.random.default_rng(key).standard_normal(self.dimension)
        return rows


def bow_encoder(card, device: str | None = None) -> BowEncoder:
    """The `bow` kind's encoder: the card's embedding size, 256 when it names none."""
    return BowEncoder(dimension=card.embedding_size or 256)


def random_encoder(card, device: str | None = None) -> RandomEncoder:
    """The `random` kind's encoder: the card's embedding size, 384 when it names none."""
    return RandomEncoder(dimension=card.embedding_size or 384)
