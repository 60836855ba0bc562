"""MkDocs hooks: the repository's README.md is the site's home page (its `docs/` links made relative to docs/),
and the API reference reads the package as it installs (`sentibench` = bench/, with tasks/ and models/ as
`sentibench.tasks` and `sentibench.models`) from a tree of links under build/api-source."""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "build" / "api-source" / "sentibench"  # mkdocs.yml's mkdocstrings `paths`
SUBPACKAGES = ("tasks", "models")  # pyproject.toml [tool.setuptools] package-dir


def on_startup(command: str, dirty: bool) -> None:
    """Before the plugins read their configuration: mkdocstrings keeps only search paths that exist."""
    shutil.rmtree(SOURCE, ignore_errors=True)
    SOURCE.mkdir(parents=True)
    for entry in (ROOT / "bench").iterdir():
        (SOURCE / entry.name).symlink_to(entry)
    for name in SUBPACKAGES:
        (SOURCE / name).symlink_to(ROOT / name)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("](docs/", "](")
    files.append(File.generated(config, "index.md", content=text))
    return files
