"""Advisory locks on `bench run`'s items, so two runs into one output folder never evaluate one item twice.

An item (output folder, model, task) is locked by `fcntl.flock` on a hidden file beside its result,
`<folder>/<model>/<revision>/.<task>.lock`, taken without waiting: a run that finds an item locked leaves it
to the run holding it ("in flight in another process") and does not count it as done. A run holds its items'
locks until it returns. A lock file is opened without following a link and must be a regular file (a planted
link or FIFO is a one-line error). The kernel drops a lock when its holder exits, however it exits, so a lock file left
behind by a killed run holds nothing and blocks nobody; lock files are never removed (removing one while
another process opens it would let two runs lock two files of one name).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from types import TracebackType

from sentibench.core.errors import BenchError
from sentibench.core.io import kind_of


def lock_path(result: Path) -> Path:
    """The lock file of the item whose result file is `result`."""
    return result.with_name(f".{result.stem}.lock")


class ItemLocks:
    """The item locks one run holds; a context manager that releases every one of them on exit."""

    def __init__(self) -> None:
        self._held: dict[Path, int] = {}  # result path -> the open lock file holding its lock

    def take(self, result: Path) -> bool:
        """Lock the item whose result file is `result`, without waiting; False when another process holds it."""
        path = lock_path(result)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:  # never through a link (a planted one would create a file outside the folder), never a FIFO's wait
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENXIO):
                raise
            raise BenchError(f"lock file {path} is a symbolic link or not a file; remove it") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise BenchError(f"lock file {path} is {kind_of(os.lstat(path).st_mode)}, not a file; remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._held[result] = fd
        return True

    def release(self, result: Path) -> None:
        os.close(self._held.pop(result))  # closing the file drops its lock

    def __enter__(self) -> ItemLocks:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        for result in list(self._held):
            self.release(result)
