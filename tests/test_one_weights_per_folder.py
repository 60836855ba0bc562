"""One results folder, one set of weights: a checkpoint re-trained under an unchanged revision (a lost
cache, a non-deterministic recipe) must not fill a folder that holds the old checkpoint's results."""

from __future__ import annotations

import pytest
from conftest import FakeEncoder

from sentibench.core.errors import BenchError
from sentibench.embed.cache import CachedEncoder
from sentibench.results.task_result import check_one_weights_per_folder, iter_results, recorded_weights
from sentibench.run.runner import run
from sentibench.tasks.registry import all_tasks

OLD, NEW = "a" * 64, "b" * 64


def weights(digest: str):
    """An encoder factory whose encoder's identity records `digest` as its weights."""
    return lambda card: CachedEncoder(FakeEncoder(), {"model": card.name, "weights": digest}, enabled=False)


@pytest.fixture
def tasks(fixture_task):
    return [all_tasks()[f"{family}-fixture-reviews"] for family in ("sgts", "probe")]


def test_a_new_checkpoint_may_not_fill_a_folder_of_the_old_ones_results(tasks, tmp_path):
    sgts, probe = tasks
    run(["random"], [sgts], tmp_path, encoder_factory=weights(OLD), use_cache=False)
    with pytest.raises(BenchError, match=r"holds results of other weights, aaaaaaaaaaaa \(1 task: sgts-fixture"):
        run(["random"], [sgts, probe], tmp_path, encoder_factory=weights(NEW), use_cache=False)
    assert [r.task_name for r in iter_results(tmp_path)] == ["sgts-fixture-reviews"]  # nothing written
    assert recorded_weights(iter_results(tmp_path)[0]) == OLD


def test_the_same_checkpoint_fills_the_folder_and_a_full_rerun_replaces_it(tasks, tmp_path):
    sgts, probe = tasks
    run(["random"], [sgts], tmp_path, encoder_factory=weights(OLD), use_cache=False)
    run(["random"], [sgts, probe], tmp_path, encoder_factory=weights(OLD), use_cache=False)
    assert {recorded_weights(r) for r in iter_results(tmp_path)} == {OLD}
    # a re-run of every task it keeps there replaces them all, so nothing of the old checkpoint is left
    report = run(["random"], [sgts, probe], tmp_path, overwrite="always", encoder_factory=weights(NEW),
                 use_cache=False)
    assert len(report.written) == 2 and {recorded_weights(r) for r in iter_results(tmp_path)} == {NEW}
    check_one_weights_per_folder(iter_results(tmp_path))


@pytest.fixture
def mixed_folder(tasks, tmp_path):
    """A folder holding an sgts result of weights OLD and a probe result of weights NEW, as a lost cache
    and an only-missing run used to leave it."""
    sgts, probe = tasks
    run(["random"], [sgts], tmp_path / "a", encoder_factory=weights(OLD), use_cache=False)
    run(["random"], [probe], tmp_path / "b", encoder_factory=weights(NEW), use_cache=False)
    (moved,) = (tmp_path / "b").rglob("probe-fixture-reviews.json")
    (kept,) = (tmp_path / "a").rglob("sgts-fixture-reviews.json")
    moved.rename(kept.parent / moved.name)
    return tmp_path / "a"


def test_a_folder_that_mixes_weights_is_refused_when_read(mixed_folder):
    with pytest.raises(BenchError, match=r"mixes results of 2 weights: aaaaaaaaaaaa \(1 task: sgts-fixture-reviews\), "
                                         r"bbbbbbbbbbbb \(1 task: probe-fixture-reviews\)"):
        check_one_weights_per_folder(iter_results(mixed_folder))


def test_the_board_and_a_comparison_refuse_a_folder_that_mixes_weights(mixed_folder):
    from sentibench.report.compare import results_of
    from sentibench.report.leaderboard import build

    for read in (lambda: build(mixed_folder), lambda: results_of(mixed_folder, "random")):
        with pytest.raises(BenchError, match="mixes results of 2 weights"):
            read()
