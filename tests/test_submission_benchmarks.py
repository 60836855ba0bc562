"""A submission answers one named benchmark: `bench submit` requires exactly that benchmark's tasks, under the
task versions and dataset contents it pins, and records it in the manifest; `bench verify` reads it back,
checks against it and records it; `verified_for` lists the verification records of one benchmark. End to end on
the packaged `random` card and the 16-sentence fixture tasks, in benchmarks registered for the test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from one_line import fails

import sentibench.submission.submit as submit_module
from sentibench.core.errors import Rejected
from sentibench.data import get_dataset
from sentibench.models.catalog.card_schema import ModelCard
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import verified_for
from sentibench.submission.layout import MANIFEST
from sentibench.submission.submit import result_problems, submit
from sentibench.submission.verify import submission_benchmark, verify
from sentibench.tasks.benchmarks import BENCHMARKS, Axis, Benchmark, BenchmarkTask, get_benchmark, register_benchmark

TASK, OTHER, PROBE = "sgts-fixture-reviews", "sgts-paper-fixture-reviews", "probe-fixture-reviews"
CLEAN_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _benchmark(name: str, tasks: list[str], sha256: str | None = None) -> Benchmark:
    """A benchmark of fixture tasks, each pinned to its installed version and the fixture data's content
    (or to `sha256`)."""
    from sentibench.tasks.registry import all_tasks

    content = sha256 or get_dataset("fixture-reviews").content_hash
    pinned = tuple(BenchmarkTask(t, all_tasks()[t].metadata.version, "fixture-reviews", content) for t in tasks)
    return Benchmark(name=name, description="test", released="2026-01-01", tasks=pinned,
                     axes=(Axis("Sentiment", "test", tuple(tasks)),), diagnostics=(), citation="test")


@pytest.fixture
def benchmarks(tmp_path, monkeypatch, fixture_task):
    """A fresh home, results stamped with a clean commit, and three fixture benchmarks (removed afterwards)."""
    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sentibench.results.provenance.git_commit", lambda: CLEAN_COMMIT)
    before = BENCHMARKS.snapshot()
    made = {name: register_benchmark(_benchmark(name, tasks)) for name, tasks in [
        ("fixture-one", [TASK]), ("fixture-two", [TASK, OTHER]), ("fixture-three", [TASK, OTHER, PROBE])]}
    made["fixture-stale"] = register_benchmark(_benchmark("fixture-stale", [TASK], sha256="0" * 64))
    yield made
    BENCHMARKS.restore(before)


@pytest.fixture
def runs(benchmarks, tmp_path) -> Path:
    """`random`'s result of TASK only."""
    from sentibench.models import get_card
    from sentibench.run.runner import run
    from sentibench.tasks.registry import all_tasks

    report = run([get_card("random")], [all_tasks()[TASK]], tmp_path / "runs")
    assert len(report.written) == 1
    return tmp_path / "runs"


def test_a_submission_requires_exactly_the_tasks_of_the_benchmark_it_names(runs, tmp_path):
    with pytest.raises(Rejected) as caught:
        submit("random", runs, tmp_path / "out", benchmark="fixture-two")
    assert caught.value.problems == [f"{OTHER}: no result (required); run `bench run -m random -t {OTHER}`"]
    with pytest.raises(Rejected) as caught:
        submit("random", runs, tmp_path / "out", benchmark="fixture-three")
    assert caught.value.problems == [f"2 tasks of fixture-three have no result ({OTHER}, {PROBE}); run "
                                     "`bench run -m random -b fixture-three`"]
    assert not (tmp_path / "out").exists()
    fails("unknown benchmark 'fixture-nine'. Did you mean: fixture-one, fixture-three, fixture-stale? See `bench list "
          "benchmarks`.",
          submit, "random", runs, tmp_path / "out", benchmark="fixture-nine")


def test_the_manifest_names_the_benchmark_and_verify_checks_reruns_and_records_it(benchmarks, runs, tmp_path):
    folder, _ = submit("random", runs, tmp_path / "out", benchmark="fixture-one")
    manifest = json.loads((folder / MANIFEST).read_text())
    assert (manifest["benchmark"], manifest["benchmark_manifest_sha256"], manifest["required_suite"]) == (
        "fixture-one", benchmarks["fixture-one"].manifest_sha256, [TASK])
    verdict = verify(folder, tmp_path / "results", None, seed=1)
    assert (verdict.benchmark, verdict.status, [r.task for r in verdict.reruns]) == ("fixture-one", "verified", [TASK])
    record = json.loads((verdict.merged_into / "verification.json").read_text())
    assert (record["benchmark"], record["status"], record["tasks"]) == ("fixture-one", "verified", 1)
    assert verified_for(tmp_path / "results", "fixture-one") == [("random", "verified")]
    assert verified_for(tmp_path / "results", "sentibench-v1") == []


def test_a_submission_carries_only_its_benchmarks_tasks_so_verify_reruns_only_those(benchmarks, runs, tmp_path):
    """The results folder also holds OTHER, which only fixture-two lists: a submission to fixture-one leaves it
    home, so verify re-runs TASK alone; a submission to fixture-two carries both."""
    from sentibench.models import get_card
    from sentibench.run.runner import run
    from sentibench.tasks.registry import all_tasks

    run([get_card("random")], [all_tasks()[OTHER]], runs)
    one, _ = submit("random", runs, tmp_path / "one", benchmark="fixture-one")
    assert sorted(p.name for p in one.rglob("*.json") if p.name != MANIFEST) == [f"{TASK}.json"]
    assert [r.task for r in verify(one, tmp_path / "results-one", None, seed=1).reruns] == [TASK]
    two, _ = submit("random", runs, tmp_path / "two", benchmark="fixture-two")
    carried = sorted(p.name for p in two.rglob("*.json") if p.name != MANIFEST)
    assert carried == sorted([f"{TASK}.json", f"{OTHER}.json"])


def test_verify_checks_the_results_against_the_manifests_benchmark(benchmarks, runs, tmp_path):
    folder, _ = submit("random", runs, tmp_path / "out", benchmark="fixture-one")
    manifest = json.loads((folder / MANIFEST).read_text())
    for name in ("fixture-two", "fixture-stale"):  # as if the submitter had edited the manifest
        (folder / MANIFEST).write_text(json.dumps({**manifest, "benchmark": name,
                                                   "benchmark_manifest_sha256": benchmarks[name].manifest_sha256}))
        with pytest.raises(Rejected) as caught:
            verify(folder, tmp_path / "results", None, seed=1)
        assert caught.value.problems == {
            "fixture-two": [f"{OTHER}: no result (required); run `bench run -m random -t {OTHER}`"],
            "fixture-stale": [f"{TASK}: dataset hash {get_dataset('fixture-reviews').content_hash[:12]} is not the "
                              "000000000000 fixture-stale pins for 'fixture-reviews'"]}[name]
    (folder / MANIFEST).write_text(json.dumps({**manifest, "benchmark": "sentibench-v9"}))
    fails(f"submission {folder}: {MANIFEST} names benchmark 'sentibench-v9', which this harness does not have; "
          "see `bench list benchmarks`", verify, folder, tmp_path / "results", None)
    assert not (tmp_path / "results").exists()


def test_a_result_of_another_pinned_dataset_content_is_refused_at_submit(runs, tmp_path):
    content = get_dataset("fixture-reviews").content_hash
    with pytest.raises(Rejected) as caught:
        submit("random", runs, tmp_path / "out", benchmark="fixture-stale")
    assert caught.value.problems == [
        f"{TASK}: dataset hash {content[:12]} is not the 000000000000 fixture-stale pins for 'fixture-reviews'"]


def test_the_benchmark_a_manifest_names(benchmarks, tmp_path):
    lite = get_benchmark("sentibench-lite-v1")
    assert submission_benchmark(tmp_path, {}) == "sentibench-v1"  # a manifest from before benchmarks were named
    assert submission_benchmark(tmp_path, {"benchmark": "sentibench-lite-v1",
                                           "benchmark_manifest_sha256": lite.manifest_sha256}) == "sentibench-lite-v1"
    for name, shown in [("nope", "nope"), (["sentibench-v1"], "['sentibench-v1']"), ("x\ny", "x\\ny")]:
        fails(f"submission {tmp_path}: manifest.json names benchmark '{shown}', which this harness does not have; "
              "see `bench list benchmarks`", submission_benchmark, tmp_path, {"benchmark": name})
    fails(f"submission {tmp_path}: manifest.json answers benchmark 'sentibench-lite-v1' with manifest sha256 "
          f"ffffffffffff, this harness's 'sentibench-lite-v1' is {lite.manifest_sha256[:12]}",
          submission_benchmark, tmp_path, {"benchmark": "sentibench-lite-v1", "benchmark_manifest_sha256": "f" * 64})


# --- the released benchmarks, on hand-written results -------------------------------------------------------------

CARD = ModelCard(name="m", loader="random", description="d", revision="r1")


def _result(name: str, version: int | None = None, content: str | None = None, recorded: bool = True) -> TaskResult:
    """A clean result of `name` made under the version and on the data sentibench-v1 pins (or those given;
    no dataset block unless `recorded`)."""
    pinned = get_benchmark("sentibench-v1").pinned(name)
    dataset = {"name": pinned.dataset, "content_hash": content or pinned.dataset_sha256}
    return TaskResult.model_validate({
        "task_name": name, "scores": {"test": [{"main_score": 0.5}]},
        "sentibench": {"model": {"name": "m", "revision": "r1"}, "git_commit": "c0ffee",
                       "task": {"version": version or pinned.version}, **({"dataset": dataset} if recorded else {})}})


@pytest.fixture
def catalog_passes(monkeypatch):
    monkeypatch.setattr(submit_module, "check_against_catalog", lambda result: [])


def test_lite_needs_only_its_own_tasks_and_v1_needs_all_of_its_own(catalog_passes):
    lite, v1 = get_benchmark("sentibench-lite-v1"), get_benchmark("sentibench-v1")
    results = [_result(name) for name in lite.task_names]
    assert result_problems(CARD, results, "sentibench-lite-v1") == []
    missing = [name for name in v1.task_names if name not in lite.task_names]
    assert result_problems(CARD, results, "sentibench-v1") == [
        f"{len(missing)} tasks of sentibench-v1 have no result ({', '.join(missing[:5])} and {len(missing) - 5} "
        "more); run `bench run -m m -b sentibench-v1`"]
    current = get_benchmark()  # no benchmark named: the current one (v2), whose tasks lite-v1 covers fewer of
    assert current.name == "sentibench-v2" and result_problems(CARD, results)[0].startswith(
        f"{len([t for t in current.task_names if t not in lite.task_names])} tasks of sentibench-v2 have no result")
    extra = _result(missing[0])  # a task outside lite: included and checked like the rest
    assert result_problems(CARD, [*results, extra], "sentibench-lite-v1") == []


TASK_IN_LITE = "sgts-vader-amazon"


def test_a_result_under_another_task_version_or_dataset_content_than_pinned_is_refused(catalog_passes):
    lite = get_benchmark("sentibench-lite-v1")
    pinned = lite.pinned(TASK_IN_LITE)
    results = [_result(name) for name in lite.task_names if name != TASK_IN_LITE]
    assert result_problems(CARD, [*results, _result(TASK_IN_LITE, version=pinned.version + 1)], lite.name) == [
        f"{TASK_IN_LITE}: made by task version {pinned.version + 1}, sentibench-lite-v1 pins version {pinned.version}"]
    assert result_problems(CARD, [*results, _result(TASK_IN_LITE, content="a" * 64)], lite.name) == [
        f"{TASK_IN_LITE}: dataset hash aaaaaaaaaaaa is not the {pinned.dataset_sha256[:12]} sentibench-lite-v1 "
        "pins for 'vader-amazon'"]
    unrecorded = _result(TASK_IN_LITE, recorded=False)  # no content recorded: the catalog check refuses it
    assert result_problems(CARD, [*results, unrecorded], lite.name) == []


# --- verified_for -------------------------------------------------------------------------------------------------

def test_verified_for_lists_the_records_of_one_benchmark_sorted(tmp_path):
    records = {"b/r1": {"status": "verified", "benchmark": "sentibench-lite-v1"},
               "a/r1": {"status": "sampled"},  # written before records named a benchmark: sentibench-v1
               "c/r2": {"status": "verified", "benchmark": "sentibench-v1"},
               "c/r1": {"status": "unverified", "benchmark": "sentibench-v1"},
               "d/r1": "{not json", "e/r1": ["a list"], "f/r1": {"benchmark": "sentibench-v1"},
               "g/r1": b"\xff\xfe"}
    for where, record in records.items():
        (tmp_path / where).mkdir(parents=True)
        path = tmp_path / where / "verification.json"
        if isinstance(record, bytes):
            path.write_bytes(record)
        else:
            path.write_text(record if isinstance(record, str) else json.dumps(record))
    assert verified_for(tmp_path, "sentibench-v1") == [("a", "sampled"), ("c", "unverified"), ("c", "verified")]
    assert verified_for(tmp_path, "sentibench-lite-v1") == [("b", "verified")]
    assert verified_for(tmp_path, "fixture-one") == []
    shutil.rmtree(tmp_path / "a")
    assert verified_for(tmp_path, "sentibench-v1") == [("c", "unverified"), ("c", "verified")]
