"""Atomic file writes: a reader sees the old file or the new one, never half of one; and the size check a
file the harness reads passes before any of it is read."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sentibench.core.errors import BenchError

T = TypeVar("T")

JSON_MAX_BYTES = 16 << 20  # a result, a training log, a verification record: the largest committed is 14 KiB
UNITS_MAX_BYTES = 256 << 20  # a result's unit values: 4 bytes a unit at most, so 64 million units


def refuse_larger(path: Path, max_bytes: int, what: str, advice: str = "") -> None:
    """One line naming `path` when its size on disk is over `max_bytes`, before any of it is read (a 301 MB
    result was read whole, 658 MB of memory, only to be refused); `OSError` when it cannot be looked at."""
    size = Path(path).stat().st_size
    if size > max_bytes:
        raise BenchError(f"{what} {path} is {size / 2**20:.0f} MiB, over the {max_bytes >> 20} MiB a {what} may "
                         f"be{advice}")


def _fresh_beside(path: Path, suffix: str, create: Callable[[Path], T]) -> T:
    """`create` a new entry under a fresh hidden name beside `path` (retried on the rare name clash)."""
    path = Path(path)
    for _ in range(100):
        try:
            return create(path.parent / f".{path.name}.{secrets.token_hex(6)}{suffix}")
        except FileExistsError:
            continue
    raise FileExistsError(17, "no free temporary name", str(path))


def new_file_beside(path: Path, suffix: str = ".tmp") -> tuple[int, Path]:
    """An empty new file beside `path`, open for writing: (fd, its path). Its mode is a plain `open()`'s
    (0o666 less the umask), so what is renamed into place from it is readable like any other file;
    `tempfile.mkstemp`'s 0o600 would make every result, board and archive private to its writer."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    return _fresh_beside(path, suffix, lambda name: (os.open(name, flags, 0o666), name))


def new_folder_beside(path: Path, suffix: str = ".partial") -> Path:
    """An empty new folder beside `path`, with a plain `mkdir`'s mode (0o777 less the umask, where
    `tempfile.mkdtemp` gives 0o700)."""

    def make(name: Path) -> Path:
        name.mkdir()
        return name

    return _fresh_beside(path, suffix, make)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_file_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, obj: Any) -> None:
    """JSON with sorted keys and `allow_nan=False`: a NaN is a bug, never a silent `NaN` token."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n")


@contextmanager
def atomic_folder(target: Path, replace: bool = False) -> Iterator[Path]:
    """Build a folder under a temporary name beside `target` and rename it into place when the block
    succeeds; a failure leaves no partial folder. An existing `target` is an error unless `replace` (only
    for folders sentibench itself owns, such as cache entries)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = new_folder_beside(target)
    try:
        yield tmp
        if target.exists():
            if not replace:
                raise FileExistsError(f"{target} already exists")
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
