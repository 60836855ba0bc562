"""On-disk embedding cache shared by every task of a run and across runs.

Vectors are keyed by (model identity, text): the identity is a hash of everything that changes a vector
(card name and revision, weights digest, pooling, max length, normalisation, dtype, and a baseline's
fit). One SQLite file per identity under `$SENTIBENCH_HOME/embeddings/`; rows are (sha1(text), float32
bytes), and, for encoders with a tokenizer, (sha1(text), token count) in a second table, so results can
say how many texts were truncated without re-tokenising. `CachedEncoder` encodes only the distinct texts
it has not seen, in batches of `WRITE_BATCH`
texts, checking each batch's vectors and committing them before the next batch starts (an interrupted run
loses at most one batch). Nothing unchecked enters the cache, and nothing unchecked leaves it: a vector
read back gets the checks of a fresh one (its bytes match its dimension, every value finite, the dimension
of the model's fresh vectors); a row that fails them is re-encoded and overwritten, with a warning. A
cache file that is not a readable SQLite database is moved aside (`*.corrupt`) and rebuilt, with a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sentibench.core.errors import BenchError, printable
from sentibench.core.io import open_regular
from sentibench.core.paths import cache_dir
from sentibench.embed.batching import PROGRESS_MIN_TEXTS, progress_label
from sentibench.embed.encoders import Encoder

if TYPE_CHECKING:  # numpy is imported where vectors are made: a run whose results all exist never loads it
    import numpy as np

_CHUNK = 900  # SQLite's default limit on host parameters is 999
WRITE_BATCH = 512  # texts encoded and committed together; a killed run re-encodes at most this many


def fingerprint(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:32]


def text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


class EmbeddingStore:
    """One model identity's vectors in one SQLite file (safe for concurrent readers/writers)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.db = self._open()
        except sqlite3.DatabaseError as error:
            aside = path.with_name(path.name + ".corrupt")
            print(printable(f"warning: embedding cache {path} is unreadable ({error}); moved to {aside.name} and "
                            "rebuilt (it is only a cache)"), file=sys.stderr)
            os.replace(path, aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        if Path(self.path).exists() or Path(self.path).is_symlink():
            open_regular(self.path, "embedding cache").close()  # a FIFO or a device: refused, never opened
        db = sqlite3.connect(self.path, timeout=60)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, dim INTEGER, vec BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS token_counts (key BLOB PRIMARY KEY, tokens INTEGER)")
        if db.execute("PRAGMA quick_check").fetchall() != [("ok",)]:
            db.close()
            raise sqlite3.DatabaseError("integrity check failed")
        return db

    def get(self, keys: list[bytes]) -> tuple[dict[bytes, np.ndarray], int]:
        """Stored vectors by key, and how many rows were refused: a row whose byte length disagrees with its
        dimension, or with a value that is not finite, is treated as missing (its text is encoded again)."""
        import numpy as np

        found: dict[bytes, np.ndarray] = {}
        refused = 0
        for key, dim, blob in self._rows("SELECT key, dim, vec FROM vectors WHERE key IN ({marks})", keys):
            if isinstance(blob, bytes) and isinstance(dim, int) and dim > 0 and len(blob) == 4 * dim:
                vector = np.frombuffer(blob, dtype=np.float32)
                if np.isfinite(vector).all():
                    found[key] = vector
                    continue
            refused += 1
        return found, refused

    def get_token_counts(self, keys: list[bytes]) -> dict[bytes, int]:
        return {key: n for key, n in self._rows("SELECT key, tokens FROM token_counts WHERE key IN ({marks})", keys)
                if isinstance(n, int)}

    def put_token_counts(self, keys: list[bytes], counts: Sequence[int]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO token_counts VALUES (?, ?)",
                                [(k, int(n)) for k, n in zip(keys, counts)])

    def _rows(self, query: str, keys: list[bytes]) -> Iterator[tuple]:
        """Rows of `query` (`{marks}` stands for the key placeholders) over every key, in chunks."""
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start:start + _CHUNK]
            yield from self.db.execute(query.format(marks=",".join("?" * len(chunk))), chunk)

    def put(self, keys: list[bytes], vectors: np.ndarray) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                [(k, v.shape[0], v.tobytes()) for k, v in zip(keys, vectors)])


def check_texts(texts: list[str], model: str) -> None:
    """Texts are strings that encode as UTF-8 (a lone surrogate does not); a one-line error otherwise."""
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise BenchError(f"model '{model}' was given a {type(text).__name__} as text {index}; texts are strings")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise BenchError(f"text {index} ({text[:40]!r}) is not valid Unicode (a lone surrogate); "
                             "clean the data") from None


def check_embeddings(vectors: object, n_texts: int, model: str) -> np.ndarray:
    """A [n_texts, d] finite float32 array, or a one-line error naming what is wrong."""
    import numpy as np

    array = np.asarray(vectors)
    if array.ndim != 2 or array.shape[0] != n_texts:
        raise BenchError(f"model '{model}' returned embeddings of shape {array.shape} for {n_texts} texts; "
                         f"expected ({n_texts}, dimension)")
    if not np.issubdtype(array.dtype, np.number):
        raise BenchError(f"model '{model}' returned non-numeric embeddings ({array.dtype})")
    array = array.astype(np.float32, copy=False)
    bad = int((~np.isfinite(array)).any(axis=1).sum())
    if bad:
        raise BenchError(f"model '{model}' returned NaN or infinite embeddings for {bad} of {n_texts} texts")
    return array


class CachedEncoder:
    """Wraps an encoder: looks each distinct text up first, encodes only the misses (in one call)."""

    def __init__(self, base: Encoder, identity: dict[str, Any], enabled: bool = True,
                 dimension: int | None = None) -> None:
        self.base = base
        self.dimension = dimension  # the model's declared vector size (its card's embedding_size), if fixed
        self.name = base.name
        self.identity = identity
        self.enabled = enabled
        self.encoded = 0  # texts actually sent to the model (the proof that a warm run re-encodes nothing)
        self._stores: dict[str, EmbeddingStore] = {}

    @property
    def learns_from_data(self) -> bool:
        return getattr(self.base, "fit", None) is not None

    @property
    def normalize(self) -> bool | None:
        """Whether the pipeline L2-normalises its vectors (None when the encoder does not say)."""
        return getattr(self.base, "normalize", None)

    @property
    def max_length(self) -> int | None:
        return getattr(self.base, "max_length", None)

    def fit(self, texts: Sequence[str]) -> None:
        """Let a baseline that learns (bag-of-words) fit its train split; a no-op for other encoders. The
        fit is part of the cache identity (`cache_identity`), so vectors of different fits never mix."""
        fit = getattr(self.base, "fit", None)
        if fit is not None:
            fit(list(texts))

    def truncated_count(self, texts: Sequence[str]) -> int | None:
        """How many texts exceed the model's max length (None when the encoder has no tokenizer), from the
        token counts stored beside the vectors; only texts without a stored count are tokenised."""
        if getattr(self.base, "token_counts", None) is None:
            count = getattr(self.base, "truncated_count", None)
            return count(list(texts)) if count is not None else None
        texts = list(texts)
        unique = list(dict.fromkeys(texts))
        keys = [text_key(t) for t in unique]
        store = self._store() if self.enabled else None
        found = store.get_token_counts(keys) if store else {}
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            counts = self.base.token_counts([unique[i] for i in missing])
            if store:
                store.put_token_counts([keys[i] for i in missing], counts)
            found.update({keys[i]: n for i, n in zip(missing, counts)})
        by_text = {text: found[key] for text, key in zip(unique, keys)}
        return sum(by_text[t] > self.max_length for t in texts)

    def current_identity(self) -> dict[str, Any]:
        """The identity plus a baseline's fit; dtype float32 unless the identity names another."""
        extra = getattr(self.base, "cache_identity", None)
        return {"dtype": "float32", **self.identity, **(extra() if extra else {})}

    def _encode_missing(self, missing: list[int], unique: list[str], keys: list[bytes], found: dict,
                        store: EmbeddingStore | None, batch_size: int, show_progress_bar: bool | None) -> None:
        """Encode `unique[i]` for every i in `missing`, WRITE_BATCH at a time, each batch committed to the
        store and added to `found` (key -> vector)."""
        from tqdm.auto import tqdm  # here: a fully cached run never pays for importing it

        show = len(missing) >= PROGRESS_MIN_TEXTS if show_progress_bar is None else show_progress_bar
        bar = tqdm(total=len(missing), desc=progress_label(self.name), unit="text", disable=not show)
        for start in range(0, len(missing), WRITE_BATCH):
            batch = missing[start:start + WRITE_BATCH]
            new = self.base.encode([unique[i] for i in batch], batch_size=batch_size, show_progress_bar=False)
            new = check_embeddings(new, len(batch), self.name)
            if self.dimension is not None and new.shape[1] != self.dimension:
                raise BenchError(f"model '{self.name}' makes {new.shape[1]}-dimensional vectors but its card declares "
                                 f"embedding_size {self.dimension}; correct the card")
            self.encoded += len(batch)
            if store:
                store.put([keys[i] for i in batch], new)
            found.update({keys[i]: row for i, row in zip(batch, new)})
            bar.update(len(batch))
        bar.close()

    def _store(self) -> EmbeddingStore:
        key = fingerprint(self.current_identity())
        if key not in self._stores:
            self._stores[key] = EmbeddingStore(cache_dir("embeddings") / f"{key}.sqlite")
        return self._stores[key]

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        texts = list(texts)
        if not isinstance(batch_size, int) or batch_size < 1:
            raise BenchError(f"batch size must be a whole number of at least 1, got {batch_size!r}")
        check_texts(texts, self.name)
        unique = list(dict.fromkeys(texts))
        keys = [text_key(t) for t in unique]
        store = self._store() if self.enabled else None
        found, refused = store.get(keys) if store else ({}, 0)
        if self.dimension is not None:  # a self-consistent row of another size is refused like a broken one
            wrong = [key for key, vector in found.items() if vector.shape[0] != self.dimension]
            refused += len(wrong)
            for key in wrong:
                del found[key]
        if refused:
            print(printable(f"warning: embedding cache {store.path}: {refused} stored vector(s) were not finite or "
                            "had the wrong size; encoding those texts again"), file=sys.stderr)
        missing = sorted((i for i, key in enumerate(keys) if key not in found), key=lambda i: -len(unique[i]))
        if missing:
            self._encode_missing(missing, unique, keys, found, store, batch_size, show_progress_bar)
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        by_text = {text: found[key] for text, key in zip(unique, keys)}
        rows = [by_text[t] for t in texts]
        if len({row.shape for row in rows}) > 1:
            raise BenchError(f"model '{self.name}': cached vectors of different dimensions; the cache entry "
                             f"{self._store().path} is inconsistent, delete it to rebuild")
        return check_embeddings(np.stack(rows), len(texts), self.name)
