"""sha256 fingerprints: of a file's bytes and of a JSON-serialisable payload."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

_BLOCK = 1 << 22  # bytes read at a time


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file's bytes, read in blocks (a regular file only: `core.io.open_regular`)."""
    from sentibench.core.io import open_regular

    digest = hashlib.sha256()
    with open_regular(path, "file") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def digest(payload: object) -> str:
    """Hex sha256 of a JSON-serialisable payload (ids, texts, hashes), keys in their given order."""
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, default=str).encode()).hexdigest()
