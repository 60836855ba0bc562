"""How much of the full-length Pang & Lee reviews (`pang-lee-reviews`) other sentibench datasets already hold
(issue 54): word 8-gram shingles of each review, lower-cased letters and digits only, looked up among the
shingles of IMDB (train + validation + test) and of MR's sentences.

    python benchmarks/review_overlap.py

Prints, for IMDB, how many reviews share at least half of their shingles with IMDB and the largest share; for
MR, how many MR sentences (of at least 8 words) occur whole inside some review, and in how many reviews.
"""

from __future__ import annotations

import re

import numpy as np

from sentibench.data import get_dataset
from sentibench.data.texts import every_text

SHINGLE = 8


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _shingles(words: list[str]) -> np.ndarray:
    """The distinct word 8-grams of a text as 64-bit hashes (Python's string hash, fixed per process)."""
    grams = {hash(" ".join(words[i:i + SHINGLE])) for i in range(len(words) - SHINGLE + 1)}
    return np.fromiter(grams, dtype=np.int64, count=len(grams))


def _found(values: np.ndarray, sorted_unique: np.ndarray) -> np.ndarray:
    """Whether each value is in `sorted_unique` (a binary search each; `np.isin` would sort the big side again)."""
    at = np.minimum(np.searchsorted(sorted_unique, values), len(sorted_unique) - 1)
    return sorted_unique[at] == values


def main() -> None:
    reviews = every_text(get_dataset("pang-lee-reviews"))
    review_shingles = [_shingles(_words(text)) for text in reviews]
    imdb_texts = every_text(get_dataset("imdb"))
    imdb = np.unique(np.concatenate([_shingles(_words(text)) for text in imdb_texts]))
    shares = np.array([_found(s, imdb).mean() if len(s) else 0.0 for s in review_shingles])
    print(f"IMDB: {(shares >= 0.5).sum()} of {len(reviews)} Pang & Lee reviews share >= 50% of their "
          f"{SHINGLE}-word shingles with IMDB's {len(imdb_texts):,} reviews; "
          f"largest share {shares.max():.3f}, mean {shares.mean():.4f}")
    holders_of: dict[int, set[int]] = {}
    for review, shingles in enumerate(review_shingles):
        for gram in shingles.tolist():
            holders_of.setdefault(gram, set()).add(review)
    sentences = [_words(text) for text in every_text(get_dataset("mr"))]
    long_enough = [w for w in sentences if len(w) >= SHINGLE]
    found, reviews_hit = 0, set()
    for words in long_enough:
        holders = set.intersection(*(holders_of.get(gram, set()) for gram in _shingles(words).tolist()))
        found += bool(holders)
        reviews_hit.update(holders)
    print(f"MR: {found} of {len(long_enough):,} MR sentences of >= {SHINGLE} words (of {len(sentences):,}) occur "
          f"whole (every {SHINGLE}-word shingle) in {len(reviews_hit)} of the {len(reviews)} Pang & Lee reviews")


if __name__ == "__main__":
    main()
