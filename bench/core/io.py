"""Every file the harness writes or reads back goes through here.

Writes are atomic (a reader sees the old file or the new one, never half of one) and land only on a new path or
over a regular file: a directory, device, FIFO or socket at the target is refused, and so is a symbolic link
(sentibench neither writes through a link nor replaces it; name the file itself). `write_output` also takes
`-`, standard output, for the files a user names (a board, a table, a card).

Reads (`read_regular`) take regular files only, looked at before they are opened and opened without blocking (a
FIFO never hangs a command), refuse a file over its size limit unread, and, given the folder a file belongs to,
refuse one whose real path (links followed) leads out of it."""

from __future__ import annotations

import gc
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from sentibench.core.errors import BenchError

T = TypeVar("T")

JSON_MAX_BYTES = 16 << 20  # a result, a training log, a verification record: the largest committed is 14 KiB
UNITS_MAX_BYTES = 256 << 20  # a result's unit values: 4 bytes a unit at most, so 64 million units
STDOUT = "-"
"""The output name that means standard output."""

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind_of(mode: int) -> str:
    """'a folder', 'a FIFO', ... for a file's `st_mode`; 'a file' for a regular one."""
    return next((name for test, name in _KINDS if test(mode)), "a file")


def check_target(path: Path) -> None:
    """A one-line error unless `path` is a new path or a regular file (looked at without following a link)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode):
        return
    if stat.S_ISLNK(mode):
        raise BenchError(f"{path} is a symbolic link (to {os.readlink(path)}); sentibench neither writes through "
                         "a link nor replaces it: name the file itself, or - for standard output where a table "
                         "or card is written (nothing was written)")
    raise BenchError(f"{path} is {kind_of(mode)}, not a file; name a new or regular file, or - for standard "
                     "output where a table or card is written (nothing was written)")


def write_output(target: str | Path, data: str | bytes) -> str:
    """`data` to the file a user named (atomically, `check_target`'s rules), or to standard output for `-`;
    what was written to, for the 'wrote ...' line."""
    if str(target) == STDOUT:
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return "standard output"
    atomic_write_bytes(Path(target), data.encode("utf-8") if isinstance(data, str) else data)
    return str(target)


class NotAFile(BenchError):
    """A file to read that is a folder, a FIFO, a socket or a device (`kind`)."""

    def __init__(self, what: str, path: Path, kind: str) -> None:
        super().__init__(f"{what} {path} is {kind}, not a file; remove it")
        self.kind = kind


def open_regular(path: Path, what: str) -> BinaryIO:
    """`path` open for reading, if it is a regular file: anything else is a one-line error naming it, refused
    before it is opened (and opened without blocking, then checked again: a FIFO swapped in never hangs)."""
    mode = Path(path).stat().st_mode
    if not stat.S_ISREG(mode):
        raise NotAFile(what, path, kind_of(mode))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_BINARY", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotAFile(what, path, kind_of(mode))
    return os.fdopen(fd, "rb")


def read_regular(path: Path, max_bytes: int, what: str, advice: str = "", within: Path | None = None) -> bytes:
    """The bytes of `path`, a regular file (`open_regular`) of at most `max_bytes`, or a one-line error naming
    it (`what`: 'result file', ...; `advice` ends the size error): a file over the limit is refused unread and,
    given `within`, a file whose real path leads out of that folder. `OSError` when it cannot be opened."""
    path = Path(path)
    if within is not None and not _inside(os.path.realpath(path), os.path.realpath(within)):
        raise BenchError(f"{what} {path} leads out of {within} (to {path.resolve()}); sentibench reads it only "
                         "inside its folder")
    with open_regular(path, what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise BenchError(f"{what} {path} is {size / 2**20:.0f} MiB, over the {max_bytes >> 20} MiB a {what} "
                             f"may be{advice}")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise BenchError(f"{what} {path} is over the {max_bytes >> 20} MiB a {what} may be{advice}")
    return data


def _inside(real: str, folder: str) -> bool:
    """Whether the real path `real` is the real folder `folder` or lies under it (string paths: `Path.resolve` and
    `is_relative_to` cost three times as much, paid once per result file a board reads)."""
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for a bulk read, then restored as it was. Reading thousands of
    validated records allocates millions of objects that all stay alive, and each allocation burst triggers a
    full collection that walks every one of them again: half the time of reading 10,000 results
    (`benchmarks/board_scale.py`). Reference counting still frees everything that is not a cycle."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_json(path: Path, what: str, max_bytes: int = JSON_MAX_BYTES, within: Path | None = None) -> Any:
    """A JSON file read by `read_regular`'s rules; `ValueError` when it does not parse."""
    return json.loads(read_regular(path, max_bytes, what, within=within))


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
    """`data` at `path`, renamed into place from a new file beside it; `check_target` first."""
    path = Path(path)
    check_target(path)
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
