"""Where a result came from: the source tree's commit (dirty or not) and the versions of the libraries that
shape its numbers. Every record the harness writes (results, training reports, submissions) takes these."""

from __future__ import annotations

import functools
import platform
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.core.version import __version__

PACKAGES = ("torch", "transformers", "sentence-transformers", "datasets", "numpy", "scipy", "scikit-learn",
            "faiss-cpu")


def versions() -> dict[str, str | None]:
    """The versions every record carries (a fresh dict; the installed packages are read once per process)."""
    return dict(_installed_versions())


@functools.cache
def _installed_versions() -> dict[str, str | None]:
    from importlib import metadata  # here: a run with nothing to record never reads the installed packages

    found: dict[str, str | None] = {"sentibench": __version__, "python": platform.python_version()}
    for package in PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found


def version_changes(recorded: Mapping[str, str | None], current: Mapping[str, str | None]) -> list[str]:
    """`name recorded -> current` for each package both records name with different versions (a package one
    of them lacks is not compared: an older record may not list it)."""
    return [f"{name} {recorded[name]} -> {current[name]}" for name in sorted(recorded.keys() & current.keys())
            if recorded[name] is not None and current[name] is not None and recorded[name] != current[name]]


def version_note(changes: Iterable[str]) -> str | None:
    """One line saying the installed versions differ from a result's, or None when they don't."""
    distinct = sorted(set(changes))
    if not distinct:
        return None
    return (f"note: installed versions differ from the result's ({', '.join(distinct)}); the scores are "
            "compared within each task's tolerance all the same")


def git_commit(where: Path | None = None) -> str | None:
    """The commit of the checkout holding `where` (default: this source tree), with `-dirty` when any tracked
    file outside `results/` differs from it (None outside git)."""
    here = Path(where) if where is not None else Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        # results/ holds outputs, not code: a run writing into it must not mark its own later results dirty
        # `:(top)` pathspecs: the whole checkout, not just the folder this module sits in
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ":(top)",
                                ":(top,exclude)results"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if commit.returncode != 0:
        return None
    return commit.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def commit_date(commit: str) -> str | None:
    """The committer date of `commit` as YYYY-MM-DD (None outside git or for an unknown commit)."""
    here = Path(__file__).resolve().parent
    try:
        shown = subprocess.run(["git", "show", "-s", "--format=%cs", commit], cwd=here, capture_output=True,
                               text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shown.stdout.strip() or None if shown.returncode == 0 else None


def committed_results_dir() -> Path | None:
    """The source tree's own `results/` folder (the committed results), or None outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=here, capture_output=True, text=True,
                             timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(top.stdout.strip()) / "results" if top.returncode == 0 else None


def refuse_dirty_committed_results(output_folder: Path) -> None:
    """Results in the committed `results/` must name a commit that holds the code that made them: refuse
    to write there from a tree with uncommitted changes (any other output folder is fine)."""
    committed = committed_results_dir()
    if committed is None or not Path(output_folder).resolve().is_relative_to(committed.resolve()):
        return
    commit = git_commit()
    if commit is not None and commit.endswith("-dirty"):
        raise BenchError(f"refusing to write into the committed {committed} from a tree with uncommitted "
                         "changes: commit first (results record the commit), or pass --output-folder elsewhere")
