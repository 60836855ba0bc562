"""sentibench-lite-v2.1 is what benchmarks/choose_lite_v2_1.py promises (issue 55, item 5): sentibench-v2's tasks
under v2's pins and chance levels, plus `-lite` versions standing in for v2 tasks on their full task's axis and
dataset, spanning every v2 dataset and both axes, at a modelled cold cost of at most 1/8 of v2's (the committed
cost file). Offline, no results read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sentibench.tasks.benchmarks import benchmark_tasks, get_benchmark

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from choose_lite_v2 import REQUIRED, CostModel  # noqa: E402 (benchmarks/ on sys.path)
from choose_lite_v2_1 import COSTS, LITE_VERSIONS, lite_chance, requirements  # noqa: E402

SHA256 = "2e590d5fcaaf35944edf34f071d2702fbb5ffc13ba12528970b9610ec89be0c4"
"""The released manifest's sha256 (also in tests/test_benchmarks.py's RELEASED)."""


@pytest.fixture(scope="module")
def pair():
    return get_benchmark("sentibench-v2"), get_benchmark("sentibench-lite-v2.1")


def test_the_released_manifest_never_changes(pair):
    assert pair[1].manifest_sha256 == SHA256


def test_v2_tasks_keep_v2_pins_and_lite_versions_pin_their_full_tasks_dataset(pair):
    v2, lite = pair
    assert (lite.derived_from, lite.in_domain, lite.diagnostics) == (v2.name, "counted", ())
    versions = [t for t in lite.task_names if t in LITE_VERSIONS]
    assert versions, "no -lite version: lite-v2 would do"
    for task in lite.tasks:
        full = v2.pinned(LITE_VERSIONS.get(task.name, task.name))
        assert full is not None and (task.dataset, task.dataset_sha256) == (full.dataset, full.dataset_sha256)
        if task.name not in LITE_VERSIONS:
            assert task == full
    assert not {LITE_VERSIONS[t] for t in versions} & set(lite.task_names)  # never beside its full task
    assert lite.chance_levels == {t: lite_chance()[t] if t in LITE_VERSIONS else v2.chance_levels[t]
                                  for t in lite.task_names}
    for mine, full in zip(lite.axes, v2.axes):
        assert (mine.name, mine.description) == (full.name, full.description) and mine.tasks
        assert {LITE_VERSIONS.get(t, t) for t in mine.tasks} <= set(full.tasks)


def test_the_installed_code_builds_every_task_of_lite_v2_1(pair):
    tasks = benchmark_tasks(pair[1])
    assert all((t.metadata.version, t.metadata.dataset) == (p.version, p.dataset) for t, p in zip(tasks, pair[1].tasks))


def test_lite_v2_1_spans_every_v2_dataset_and_both_axes_within_an_eighth_of_v2(pair):
    v2, lite = pair
    needs = requirements(v2)
    assert all(tasks & set(lite.task_names) for tasks in needs.values()), \
        [name for name, tasks in needs.items() if not tasks & set(lite.task_names)]
    cost = CostModel(COSTS)
    assert cost.seconds_for(lite.task_names) <= REQUIRED * cost.seconds_for(v2.task_names)
