"""The board's one disk memo: results of its pure computations over result files (a task's bootstrap
replicates, a family's mean and interval), remembered under the sha256 of what they are computed from, so a
re-render computes only what changed (a cold render of the committed board takes about 20 times as long as a
warm one). An entry is a `.npy` array in `cache_dir("leaderboard-memo")`; it is used only when it reads back
whole and passes the caller's check, else it is computed again; a cache that cannot be written costs only speed.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterable

import numpy as np

from sentibench.core.io import atomic_write_bytes
from sentibench.core.paths import cache_dir
from sentibench.results.schema import TaskResult
from sentibench.results.unit_values_file import files_digest

FOLDER = "leaderboard-memo"


def remembered(kind: str, results: Iterable[TaskResult], compute: Callable[[], np.ndarray],
               valid: Callable[[np.ndarray], bool], salt: str = "") -> np.ndarray:
    """`compute()`, a float64 array that is a pure function of `results`' JSON and unit-value bytes (in order)
    and of `salt` (e.g. a bootstrap's seed and size), remembered under their sha256 and `kind`."""
    digest = hashlib.sha256(f"{kind}:{salt}".encode())
    for result in results:
        digest.update(files_digest(result))
    stored = cache_dir(FOLDER) / f"{kind}-{digest.hexdigest()}.npy"
    try:
        known = np.load(stored, allow_pickle=False)
        if known.dtype == np.float64 and valid(known):
            return known
    except (OSError, ValueError, EOFError):
        pass
    fresh = np.asarray(compute(), dtype=np.float64)
    buffer = io.BytesIO()
    np.save(buffer, fresh, allow_pickle=False)
    try:
        atomic_write_bytes(stored, buffer.getvalue())
    except OSError:
        pass  # a read-only cache only costs the next render its speed
    return fresh
