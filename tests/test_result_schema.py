"""The typed result file: what is written is what is read, every committed result reads back unchanged,
and a malformed file is one line naming it."""

import json
from pathlib import Path

import pytest
from scipy import stats

from sentibench.core.errors import BenchError
from sentibench.results.schema import FIRST_TASK_VERSION, TaskResult
from sentibench.results.task_result import iter_results, read_result, task_result, write_result

COMMITTED_RESULTS = Path(__file__).resolve().parent.parent / "results"

PROVENANCE = {
    "model": {"name": "m", "loader": "random", "revision": "r1", "hub_id": None, "pooling": None,
              "max_length": None, "normalize": False, "dtype": "float32", "parameters": 0, "embedding_size": 8,
              "training_data": [], "base": None, "recipe": {}, "weights_sha256": None},
    "task": {"name": "probe-mr", "type": "Classification", "version": 2, "groups": ["probe"],
             "main_score": "accuracy", "greater_is_better": True, "reference": "ref", "tolerance": 0.01,
             "fine_tunes": False},
    "main_split": "test",
    "dataset": {"name": "mr", "content_hash": "abc", "recipe": 1, "sources": ["somewhere"]},
    "trained_on_eval_dataset": False, "seed": 0, "limit": None,
    "details": {"confidence_interval": {"low": 0.5, "high": 0.75, "level": 0.95, "unit": "sentence"},
                "folds": 10},
    "versions": {"python": "3.11"}, "git_commit": "0123abc", "finished_at": "2026-01-01T00:00:00+00:00",
}


def _fresh() -> TaskResult:
    return task_result("probe-mr", "abc", {"test": {"main_score": 0.625, "accuracy": 0.625, "f1": float("nan")}},
                       1.23456, PROVENANCE)


def test_a_fresh_result_is_written_in_mteb_layout_and_reads_back_equal(tmp_path):
    path = tmp_path / "m" / "r1" / "probe-mr.json"
    fresh = _fresh()
    write_result(path, fresh)
    assert json.loads(path.read_text()) == {  # written by hand from MTEB's TaskResult layout
        "task_name": "probe-mr", "dataset_revision": "abc", "mteb_version": None,
        "scores": {"test": [{"main_score": 0.625, "accuracy": 0.625, "f1": None, "hf_subset": "default",
                             "languages": ["eng-Latn"]}]},
        "evaluation_time": 1.235, "kg_co2_emissions": None, "sentibench": PROVENANCE}
    read = read_result(path)
    assert read.path == path and read.to_json() == fresh.to_json()
    assert (read.scores, read.provenance) == (fresh.scores, fresh.provenance)
    assert read.main_score() == 0.625 and read.scores["test"][0].metric("f1") is None
    assert (read.confidence_interval().low, read.confidence_interval().high) == (0.5, 0.75)
    assert read.provenance.model.name == "m" and read.provenance.task.version == 2 and not read.smoke


def test_every_committed_result_reads_back_through_the_model_unchanged():
    results = iter_results(COMMITTED_RESULTS)
    assert len(results) > 100
    for result in results:
        text = json.dumps(result.to_json(), indent=2, sort_keys=True, allow_nan=False) + "\n"
        assert text == result.path.read_text(encoding="utf-8"), result.path


def test_older_files_get_the_defaults_their_harness_meant(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"task_name": "sgts-mr", "scores": {"validation": [{"main_score": 0.25}],
                                                                   "test": [{"main_score": 0.5}]},
                                "sentibench": {"model": {"name": "m"}}}))
    old = read_result(path)
    assert old.provenance.task.version == FIRST_TASK_VERSION and old.provenance.model.dtype == "float32"
    assert old.main_score() == 0.25, "no main_split recorded: the first split"
    assert old.confidence_interval() is None and old.to_json() == json.loads(path.read_text())


def test_an_interval_is_read_as_written_and_none_is_made_up_for_an_old_result(tmp_path):
    path = tmp_path / "fewshot.json"
    seeds = [{"seed": 0, "accuracy": 0.5}, {"seed": 1, "accuracy": 0.7}]
    old = {"task_name": "fewshot-x", "scores": {"test": [{"main_score": 0.6}]},
           "sentibench": {"task": {"main_score": "accuracy"}, "details": {"per_seed": seeds}}}
    path.write_text(json.dumps(old))
    assert read_result(path).confidence_interval() is None
    half = stats.t.ppf(0.975, 1) * 0.1  # sd of (0.5, 0.7) is 0.1414, its standard error 0.1
    old["sentibench"]["details"]["confidence_interval"] = {"low": 0.6 - half, "high": 0.6 + half}
    path.write_text(json.dumps(old))
    interval = read_result(path).confidence_interval()
    assert (interval.low, interval.high) == (0.6 - half, 0.6 + half)


VALID = '{"task_name": "t", "scores": {"test": [{"main_score": 0.5, "accuracy": 0.5}]}, "sentibench": {}}'


@pytest.mark.parametrize("text, field", [
    ('{"scores": {"test": [{"main_score": 0.5}]}}', "task_name"),
    (VALID.replace('"main_score": 0.5', '"main_score": "0.5"'), "main_score"),
    (VALID.replace('"main_score": 0.5', '"main_score": NaN'), "main_score"),
    (VALID.replace('"accuracy": 0.5', '"accuracy": Infinity'), "accuracy"),
    (VALID.replace('"accuracy": 0.5', '"accuracy": "high"'), "accuracy"),
    (VALID.replace('"sentibench": {}', '"sentibench": {}, "junk": 1'), "junk"),
    (VALID.replace('"sentibench": {}', '"sentibench": {"modle": {"name": "m"}}'), "modle"),
    (VALID.replace('"sentibench": {}', '"sentibench": {"seed": "0"}'), "seed"),
    (VALID.replace('"sentibench": {}', '"sentibench": {"model": {"revision": "r"}}'), "model.name"),
    (VALID.replace('"sentibench": {}', '"evaluation_time": -1, "sentibench": {}'), "evaluation_time"),
])
def test_malformed_result_files_are_one_line_errors_naming_the_file_and_field(tmp_path, text, field):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(BenchError) as error:
        read_result(path)
    message = str(error.value)
    assert str(path) in message and field in message and "is not a valid result" in message
    assert "\n" not in message


def test_a_fresh_result_is_checked_before_it_is_written():
    with pytest.raises(BenchError, match=r"task t produced an invalid result \(scores.test.0.main_score: "):
        task_result("t", "h", {"test": {"main_score": 2.0}}, 1.0, {})
