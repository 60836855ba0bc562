"""Where sentibench keeps downloads, prepared data, embeddings and checkpoints."""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """Root of every cache; `SENTIBENCH_HOME` overrides the default `~/.cache/sentibench`."""
    root = Path(os.environ.get("SENTIBENCH_HOME", Path.home() / ".cache" / "sentibench"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_dir(*parts: str) -> Path:
    path = home().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
