"""Advisory locks on `bench run`'s items, so two runs into one output folder never evaluate one item twice.

An item (output folder, model, task) is locked by a `filelock.FileLock` (`flock` on POSIX, `LockFileEx` on
Windows) on a hidden file beside its result, `<folder>/<model>/<revision>/.<task>.lock`, taken without
waiting: a run that finds an item locked leaves it to the run holding it ("in flight in another process") and
does not count it as done. A run holds its items' locks until it returns. A lock file must be a regular file
(a planted link, FIFO or folder is a one-line error) and is never followed as a link: on POSIX, filelock opens
it with `O_NOFOLLOW` and without blocking. The system drops a lock when its holder exits, however it exits, so a lock
file left behind by a killed run holds nothing and blocks nobody; for that, filelock's soft-lock fallback (a
marker file that outlives its holder) is off, and lock files are never removed (removing one while another
process opens it would let two runs lock two files of one name).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError
from sentibench.core.io import kind_of

if TYPE_CHECKING:
    from filelock import BaseFileLock


def lock_path(result: Path) -> Path:
    """The lock file of the item whose result file is `result`."""
    return result.with_name(f".{result.stem}.lock")


class ItemLocks:
    """The item locks one run holds; a context manager that releases every one of them on exit."""

    def __init__(self) -> None:
        self._held: dict[Path, BaseFileLock] = {}  # result path -> the lock held on its item

    def take(self, result: Path) -> bool:
        """Lock the item whose result file is `result`, without waiting; False when another process holds it."""
        from filelock import FileLock, Timeout  # imported by the first run that locks, not by every command

        path = lock_path(result)
        path.parent.mkdir(parents=True, exist_ok=True)
        _check_regular(path)
        # one lock per item, owned by the run rather than by the thread that took it
        lock = FileLock(path, blocking=False, thread_local=False, fallback_to_soft=False)
        try:
            lock.acquire()
        except Timeout:
            return False
        except OSError as error:  # made a link or a folder since it was looked at
            if error.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise
            raise BenchError(f"lock file {path} is a symbolic link or not a file; remove it") from None
        self._held[result] = lock
        return True

    def release(self, result: Path) -> None:
        self._held.pop(result).release()

    def __enter__(self) -> ItemLocks:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        for result in list(self._held):
            self.release(result)


def _check_regular(path: Path) -> None:
    """A one-line error when `path` exists and is not a regular file (looked at without following a link)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise BenchError(f"lock file {path} is {kind_of(mode)}, not a file; remove it")
