"""The files a static site links to, copied into it, and the site written all or nothing.

A page links to a result JSON (or a training log) by its place inside the site, `results/<folder>/<model>/
<revision>/<file>`, where `<folder>` is the name of the results folder it came from; `publish` copies every file
a page linked to there, so the site works when copied elsewhere or served by any static server. The site is
staged beside its target and swapped in with renames: an interrupted write leaves the previous site whole. Its
marker file lists what it wrote: a rebuild keeps every other file (a user's `CNAME`), and the results folders
never read a site's copies as results (`results.task_result.SITE_MARKER`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

from sentibench.core.errors import BenchError
from sentibench.results.task_result import SITE_MARKER as MARKER
from sentibench.results.task_result import safe_segment


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


def _not_ours(site: Path) -> list[str]:
    """The files (and links) in an earlier site that `publish` did not write, relative to it: everything its
    marker's list leaves out (a marker without a list, from before it had one: everything outside
    `index.html`, `models/` and `results/`)."""
    try:
        written = set(json.loads((site / MARKER).read_text(encoding="utf-8"))["written"])
    except (OSError, ValueError, KeyError, TypeError):
        written = None
    kept = []
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site).as_posix()
        if path.is_dir() and not path.is_symlink() or relative == MARKER:
            continue
        if written is None and (relative == "index.html" or relative.split("/")[0] in ("models", "results")):
            continue
        if written is None or relative not in written:
            kept.append(relative)
    return kept


def publish(site: Path, pages: dict[str, str], files: SiteFiles) -> Path:
    """Write `pages` ({site path: HTML}) and every linked file into `site`, all or nothing. An existing `site`
    is replaced only when it is empty or an earlier site (it holds the marker, which lists the files written);
    the files a user added to an earlier site (a `CNAME`) are kept, unless the new site writes one of their
    paths (refused). Any other folder is refused, and so is a site that holds the working folder."""
    site = Path(site)
    if Path.cwd().resolve().is_relative_to(site.resolve()):
        raise BenchError(f"--site '{site}' holds the working folder, which a site cannot replace: name a folder "
                         "inside it, e.g. --site site (nothing was written)")
    if site.exists() and not (site.is_dir() and (not any(site.iterdir()) or (site / MARKER).is_file())):
        raise BenchError(f"'{site}' exists and is not a site `bench leaderboard --html` wrote: name a new or empty "
                         "folder (nothing was written)")
    ours = {*pages, *files.copies}
    kept = _not_ours(site) if site.is_dir() else []
    if clash := [relative for relative in kept if relative in ours]:
        raise BenchError(f"'{site / clash[0]}' was not written by `bench leaderboard --html`, and the new site "
                         "writes that path: move it away (nothing was written)")
    site.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site.resolve().name}.", dir=site.parent))
    try:
        for relative, text in pages.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for relative, source in files.copies.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, path)
        (staging / MARKER).write_text(json.dumps({"written": sorted(ours)}, indent=1) + "\n")
        for path in staging.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)  # a site is for reading
        staging.chmod(0o755)
        for relative in kept:  # the user's files, as they were
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(site / relative, staging / relative, follow_symlinks=False)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = staging.with_name(f"{staging.name}.old")
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
