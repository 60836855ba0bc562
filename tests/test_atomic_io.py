"""Atomic writes: the file or folder that lands is whole, nothing temporary is left beside it, and it gets
the mode a plain `open()` / `mkdir` would give under the user's umask (not tempfile's owner-only 0o600/0o700),
so results, boards, archives and submission folders can be shared like any other file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sentibench.core.io import atomic_folder, atomic_write_json, atomic_write_text, new_file_beside
from sentibench.submission.archive import write_zip


@pytest.fixture(params=[0o022, 0o077, 0o002])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_written_files_and_folders_follow_the_umask(tmp_path, umask):
    text = tmp_path / "board.md"
    atomic_write_text(text, "old")
    atomic_write_text(text, "new")
    result = tmp_path / "deep" / "result.json"
    atomic_write_json(result, {"a": 1})
    with atomic_folder(tmp_path / "submission") as staged:
        (staged / "card.yaml").write_text("name: x\n")
    source = tmp_path / "src"
    source.mkdir()
    (source / "f.txt").write_text("x")
    archive = write_zip(source, tmp_path / "out.zip")

    assert text.read_text() == "new" and result.read_text() == '{\n  "a": 1\n}\n'
    for path in (text, result, archive):
        assert mode(path) == 0o666 & ~umask, path
    assert mode(tmp_path / "submission") == 0o777 & ~umask
    assert (tmp_path / "submission" / "card.yaml").read_text() == "name: x\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.md", "deep", "out.zip", "src", "submission"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "result.json"
    atomic_write_text(target, "kept")
    with pytest.raises(ValueError):
        atomic_write_json(target, {"x": float("nan")})  # allow_nan=False
    with pytest.raises(RuntimeError), atomic_folder(tmp_path / "folder") as staged:
        (staged / "half").write_text("x")
        raise RuntimeError("interrupted")
    assert target.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_new_files_beside_never_reuse_a_name(tmp_path):
    target = tmp_path / "x"
    made = set()
    for _ in range(50):
        fd, name = new_file_beside(target)
        os.close(fd)
        assert name.parent == tmp_path and name.name.startswith(".x.") and name.name.endswith(".tmp")
        made.add(name)
    assert len(made) == 50
