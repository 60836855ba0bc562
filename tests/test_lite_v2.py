"""sentibench-lite-v2 is what benchmarks/choose_lite_v2.py promises (issue 55, item 5): a subset of sentibench-v2
under the same pins and chance levels, on both axes, spanning every v2 dataset that fits the budget, at a
modelled cold cost of at most 1/8 of v2's (the committed cost file). Offline, no results read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sentibench.tasks.benchmarks import benchmark_tasks, get_benchmark

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from choose_lite_v2 import COSTS, REQUIRED, CostModel, completion, requirements  # noqa: E402 (benchmarks/ on sys.path)

SHA256 = "44ee3a8bdb4fff4ab2930a2d992c707e1523ab4d9ea7bbc58e4c44ab33ba910f"
"""The released manifest's sha256 (also in tests/test_benchmarks.py's RELEASED)."""

UNCOVERED = {"imdb", "tweets-3class"}
"""v2 datasets lite-v2 leaves out: no cover of every v2 dataset fits 1/8 of v2's cold cost (checked below)."""


@pytest.fixture(scope="module")
def pair():
    return get_benchmark("sentibench-v2"), get_benchmark("sentibench-lite-v2")


@pytest.fixture(scope="module")
def cost():
    return CostModel(COSTS)


def test_the_released_manifest_never_changes(pair):
    assert pair[1].manifest_sha256 == SHA256


def test_lite_v2_is_a_subset_of_v2_under_the_same_pins_chance_levels_and_axes(pair):
    v2, lite = pair
    assert (lite.derived_from, lite.in_domain, lite.diagnostics, lite.released) == (v2.name, "counted", (),
                                                                                    "2026-12-02")
    assert lite.tasks and all(v2.pinned(task.name) == task for task in lite.tasks)
    assert [t.name for t in lite.tasks] == [t for t in v2.task_names if t in lite.task_names]   # v2's order
    assert lite.chance_levels == {t: v2.chance_levels[t] for t in lite.task_names}
    assert [(a.name, a.description) for a in lite.axes] == [(a.name, a.description) for a in v2.axes]
    for mine, full in zip(lite.axes, v2.axes):
        assert mine.tasks and mine.tasks == tuple(t for t in full.tasks if t in mine.tasks)
    assert not set(lite.task_names) & set(v2.diagnostics)


def test_the_installed_code_builds_every_task_of_lite_v2(pair):
    tasks = benchmark_tasks(pair[1])
    assert all((t.metadata.version, t.metadata.dataset) == (p.version, p.dataset) for t, p in zip(tasks, pair[1].tasks))


def test_lite_v2_spans_every_v2_dataset_that_any_affordable_lite_could(pair, cost):
    """Every dataset of v2's axis tasks is in lite-v2 but `UNCOVERED`, and each of those is forced out: the
    cheapest cover of lite-v2's datasets and axes plus that dataset costs more than 1/8 of v2 (and no cover of
    every v2 dataset fits)."""
    v2, lite = pair
    needs = requirements(v2)
    met = {name for name, tasks in needs.items() if tasks & set(lite.task_names)}
    assert {name.removeprefix("dataset:") for name in set(needs) - met} == UNCOVERED
    assert {"axis:Sentiment", "axis:Meaning"} <= met
    candidates = [t for t in v2.task_names if t not in v2.diagnostics]
    full = cost.seconds_for(v2.task_names)
    assert completion([], candidates, needs, cost) > full / 8
    for dataset in UNCOVERED:
        wanted = {name: needs[name] for name in met | {f"dataset:{dataset}"}}
        assert completion([], candidates, wanted, cost) > full / 8, dataset


def test_lite_v2_costs_at_most_an_eighth_of_v2_and_v2_at_most_1_25_times_v1(pair, cost):
    v2, lite = pair
    full, mine = cost.seconds_for(v2.task_names), cost.seconds_for(lite.task_names)
    assert mine <= REQUIRED * full <= full / 8
    v1 = CostModel(COSTS.with_name("v1_task_costs.npz")).seconds_for(get_benchmark("sentibench-v1").task_names)
    assert full <= 1.25 * v1
