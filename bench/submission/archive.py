"""Zip archives of submissions: written deterministically, extracted defensively.

Extraction refuses, before writing anything: members with absolute paths, drive letters, backslashes or
`..` parts (zip-slip), symlinks, more than `MAX_MEMBERS` members, a declared total over `MAX_BYTES`, and a
member that expands more than `MAX_RATIO` times (a size bomb). While writing it counts the bytes really
inflated, so a member that lies about its size is cut off at the cap.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path, PurePosixPath

from sentibench.core.errors import BenchError
from sentibench.core.io import new_file_beside

MAX_MEMBERS = 10_000
MAX_BYTES = 2 << 30       # 2 GiB: a 110M-parameter float32 model is 0.45 GB
MAX_RATIO = 200           # safetensors and JSON compress 1-10x; zeros 1000x
_CHUNK = 1 << 20


def write_zip(folder: Path, archive: Path, name: str | None = None) -> Path:
    """Every file under `folder`, stored under `name` (default: `folder`'s name), in sorted order; written to
    a temporary file beside `archive` and renamed into place (never half an archive)."""
    folder, archive = Path(folder), Path(archive)
    fd, tmp = new_file_beside(archive)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as out:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                out.write(path, PurePosixPath(name or folder.name, *path.relative_to(folder).parts).as_posix())
        os.replace(tmp, archive)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return archive


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    parts = PurePosixPath(name).parts
    if name.startswith("/") or "\\" in name or (parts and ":" in parts[0]) or ".." in parts:
        return f"member '{name}' points outside the archive (path traversal)"
    if stat.S_ISLNK(info.external_attr >> 16):
        return f"member '{name}' is a symbolic link"
    if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > _CHUNK:
        return f"member '{name}' expands {info.file_size // max(info.compress_size, 1)}x (a size bomb?)"
    return None


def safe_extract(archive: Path, target: Path) -> Path:
    """Extract a submission zip into the empty folder `target`; the single top-level folder it holds."""
    try:
        with zipfile.ZipFile(archive) as source:
            infos = source.infolist()
            if len(infos) > MAX_MEMBERS:
                raise BenchError(f"archive {archive}: {len(infos)} members, more than {MAX_MEMBERS}")
            for info in infos:
                problem = _member_problem(info)
                if problem:
                    raise BenchError(f"archive {archive}: {problem}")
            if sum(i.file_size for i in infos) > MAX_BYTES:
                raise BenchError(f"archive {archive}: expands to more than {MAX_BYTES >> 20} MiB")
            written = 0
            for info in infos:
                destination = target.joinpath(*PurePosixPath(info.filename).parts)
                if info.is_dir():
                    destination.mkdir(parents=True, exist_ok=True)
                    continue
                destination.parent.mkdir(parents=True, exist_ok=True)
                with source.open(info) as reader, open(destination, "wb") as writer:
                    while block := reader.read(_CHUNK):
                        written += len(block)
                        if written > MAX_BYTES:
                            raise BenchError(f"archive {archive}: expands to more than {MAX_BYTES >> 20} MiB")
                        writer.write(block)
    except (zipfile.BadZipFile, OSError) as error:
        raise BenchError(f"archive {archive}: not a readable zip ({error.__class__.__name__})") from None
    tops = list(target.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise BenchError(f"archive {archive}: expected one top-level submission folder")
    return tops[0]
