"""The embedding cache's logic over a store in memory, for an encoder whose cache is off: each distinct text is
still encoded once per model and run, never on disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sentibench.embed.cache import CachedEncoder, fingerprint

if TYPE_CHECKING:
    import numpy as np


class RunMemory:
    """The embedding store's interface over dicts: one model identity's vectors and token counts, held for
    the length of a job, never on disk."""

    path = "(the run's memory)"

    def __init__(self) -> None:
        self.vectors: dict[bytes, np.ndarray] = {}
        self.token_counts: dict[bytes, int] = {}

    def get(self, keys: list[bytes]) -> tuple[dict[bytes, np.ndarray], int]:
        """Held vectors by key, and the rows refused (none: they never left this process)."""
        return {key: self.vectors[key] for key in keys if key in self.vectors}, 0

    def put(self, keys: list[bytes], vectors: np.ndarray) -> None:
        self.vectors.update(zip(keys, vectors))

    def get_token_counts(self, keys: list[bytes]) -> dict[bytes, int]:
        return {key: self.token_counts[key] for key in keys if key in self.token_counts}

    def put_token_counts(self, keys: list[bytes], counts: list[int]) -> None:
        self.token_counts.update(zip(keys, counts))


class RunMemoryEncoder(CachedEncoder):
    """An encoder whose embedding cache is off (`--no-cache`, an unversioned in-process model) still
    encodes each distinct text once per model and run: the cache's own logic over a store in memory, one
    per identity (a baseline's fit included), so its vectors and scores equal a cold cached run's."""

    def __init__(self, uncached: CachedEncoder) -> None:
        super().__init__(uncached.base, uncached.identity, enabled=True)
        self._memory: dict[str, RunMemory] = {}

    def _store(self) -> RunMemory:  # type: ignore[override]
        return self._memory.setdefault(fingerprint(self.current_identity()), RunMemory())


def for_the_run(encoder: CachedEncoder) -> CachedEncoder:
    """`encoder`, or, when its cache is off, the same encoder remembering its vectors for the run."""
    return encoder if encoder.enabled else RunMemoryEncoder(encoder)
