"""The committed `results/` and `leaderboard.md` as a reader of the repository meets them: every result is
valid, names a clean commit of this history, and the board is exactly what `bench leaderboard` renders from
them (so a commit that adds results without regenerating the board, or edits the board by hand, fails)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sentibench.results.task_result import iter_results, recorded_weights
from sentibench.results.training_log import TRAINING_FILE, read_training_log

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


@pytest.fixture(scope="module")
def committed():
    return iter_results(RESULTS)


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)


def test_every_committed_result_is_full_and_from_a_clean_tree(committed):
    assert len(committed) > 100
    for result in committed:
        provenance = result.provenance
        where = result.path.relative_to(RESULTS)
        assert provenance.limit is None, f"{where}: a smoke run (--limit) is not a committed result"
        assert provenance.git_commit, f"{where}: no commit recorded"
        assert not provenance.from_dirty_tree, f"{where}: made from a tree with uncommitted changes"
        assert provenance.model is not None and provenance.dataset is not None, f"{where}: provenance missing"


def test_every_committed_training_log_is_valid_and_of_its_folders_weights(committed):
    weights: dict[Path, set] = {}
    for result in committed:
        weights.setdefault(result.path.parent, set()).add(recorded_weights(result))
    logs = sorted(RESULTS.rglob(TRAINING_FILE))
    for path in logs:
        log = read_training_log(path.parent)
        assert log.loss_curve or log.history, f"{path}: no curve"
        assert weights.get(path.parent) == {log.weights_sha256}, f"{path}: not the weights of its folder's results"


def _full_checkout() -> bool:
    try:
        return _git("rev-parse", "--is-shallow-repository").stdout.strip() == "false"
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _full_checkout(), reason="not a full git checkout: the recorded commits cannot be looked up")
def test_every_recorded_commit_is_in_this_history(committed):
    commits = sorted({result.provenance.git_commit for result in committed})
    unknown = [c for c in commits if _git("merge-base", "--is-ancestor", c, "HEAD").returncode != 0]
    assert not unknown, f"results name commits that are not ancestors of HEAD: {unknown}"


def test_leaderboard_md_is_the_render_of_the_committed_results(tmp_path):
    """Rendered by the command itself, in a fresh process: this session's test plug-ins (extra tasks in the
    registry) must not change the suite the board is ranked on."""
    out = tmp_path / "leaderboard.md"
    done = subprocess.run([sys.executable, "-m", "sentibench.cli", "leaderboard", "--results", str(RESULTS),
                           "--output", str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    def board(text: str) -> tuple[str, list[str]]:
        lines = text.splitlines(keepends=True)
        return "".join(x for x in lines if not x.startswith("Built by sentibench ")), [
            x for x in lines if x.startswith("Built by sentibench ")]

    rendered, _ = board(out.read_text(encoding="utf-8"))
    committed, stamp = board((ROOT / "leaderboard.md").read_text(encoding="utf-8"))
    assert rendered == committed, (
        "leaderboard.md differs from `bench leaderboard --results results`: regenerate it and commit it with "
        "the results")
    assert len(stamp) == 1 and "uncommitted" not in stamp[0], "the committed board was rendered from a clean commit"
    if _full_checkout():
        commit = stamp[0].split("from commit ")[1].split(" ")[0]
        assert _git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0, stamp[0]
