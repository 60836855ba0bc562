"""The files a static site links to, copied into it, and the site written all or nothing.

A page links to a result JSON (or a training log) by its place inside the site, `results/<folder>/<model>/
<revision>/<file>`, where `<folder>` is the name of the results folder it came from; `publish` copies every file
a page linked to there, so the site works when copied elsewhere or served by any static server. The site is
staged beside its target and swapped in with renames: an interrupted write leaves the previous site whole.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

from sentibench.core.errors import BenchError
from sentibench.results.task_result import safe_segment

MARKER = ".sentibench-site"  # a folder holding it was written by `publish`, so it may be replaced


class SiteFiles:
    """Maps each linked source file to its site path (relative to the site's root)."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots: list[tuple[Path, str]] = []
        taken: set[str] = set()
        for root in roots:
            name, n = safe_segment(root.resolve().name or "results"), 2
            while name in taken:
                name, n = f"{safe_segment(root.resolve().name or 'results')}-{n}", n + 1
            taken.add(name)
            self.roots.append((root.resolve(), name))
        self.copies: dict[str, Path] = {}

    def target(self, source: Path) -> str:
        source = source.resolve()
        for root, name in self.roots:
            if source.is_relative_to(root):
                target = f"results/{name}/{source.relative_to(root).as_posix()}"
                break
        else:
            raise BenchError(f"{source} is in none of the results folders the site is built from")
        self.copies[target] = source
        return target

    def href(self, source: Path, depth: int = 0) -> str:
        """The URL of `source`'s copy from a page `depth` folders below the site's root."""
        return "../" * depth + quote(self.target(source))


def publish(site: Path, pages: dict[str, str], files: SiteFiles) -> Path:
    """Write `pages` ({site path: HTML}) and every linked file into `site`, all or nothing. An existing `site`
    is replaced only when it is empty or an earlier site (it holds the marker); any other folder is refused."""
    site = Path(site)
    if site.exists() and not (site.is_dir() and (not any(site.iterdir()) or (site / MARKER).is_file())):
        raise BenchError(f"'{site}' exists and is not a site `bench leaderboard --html` wrote: name a new or empty "
                         "folder (nothing was written)")
    site.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site.name}.", dir=site.parent))
    try:
        for relative, text in pages.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for relative, source in files.copies.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, path)
        (staging / MARKER).write_text("written by `bench leaderboard --html`; replaced by the next one\n")
        for path in staging.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)  # a site is for reading
        staging.chmod(0o755)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = site.with_name(f"{staging.name}.old")
    if site.exists():
        site.rename(old)
    try:
        staging.rename(site)
    except BaseException:
        if old.exists():
            old.rename(site)  # the previous site, back in place
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return site / "index.html"
