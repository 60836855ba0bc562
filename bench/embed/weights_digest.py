"""A checkpoint's identity: the sha256 of its weight files, remembered while they are unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx")  # the files `weights_digest` hashes


def weights_digest(folder: Path) -> str:
    """sha256 over a checkpoint's weight files (each file's name, then its bytes): the identity of the
    vectors it makes. Remembered in `$SENTIBENCH_HOME/weights-digests.json` under the folder's path with
    each file's size and modification time, so an unchanged checkpoint is read once, not on every run."""
    from sentibench.core.io import atomic_write_json
    from sentibench.core.paths import home

    files = sorted(p for p in Path(folder).rglob("*") if p.suffix in WEIGHT_SUFFIXES)
    stamp = [[str(f.relative_to(folder)), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
    memo_file, key = home() / "weights-digests.json", str(Path(folder).resolve())
    remembered = _read_json(memo_file).get(key, {})
    if remembered.get("files") == stamp:
        return remembered["sha256"]
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode())
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 22), b""):
                digest.update(block)
    atomic_write_json(memo_file, {**_read_json(memo_file), key: {"files": stamp, "sha256": digest.hexdigest()}})
    return digest.hexdigest()


def _read_json(file: Path) -> dict:
    return json.loads(file.read_text()) if file.is_file() else {}
