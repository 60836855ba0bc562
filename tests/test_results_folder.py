"""`ResultsFolder`, the one owner of a results folder: paths, done-ness, saving (sidecar first, JSON last, one
set of weights per folder, the training log with the first result) and reading back."""

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.evaluation.units import UnitValues
from sentibench.results.folder import ResultsFolder
from sentibench.results.task_result import read_result, task_result
from sentibench.results.training_log import read_training_log
from sentibench.results.unit_values_file import load_units, units_path


def _result(task: str, weights: str | None, score: float = 0.5, version: int = 1):
    return task_result(task, "hash", {"test": {"main_score": score}}, 1.0,
                       {"model": {"name": "m", "revision": "r", "weights_sha256": weights}, "main_split": "test",
                        "task": {"version": version}})


def test_save_writes_units_then_the_json_and_reads_back(tmp_path):
    folder = ResultsFolder(tmp_path)
    path = folder.path_for("m", "r", "sgts-mr")
    assert path == tmp_path / "m" / "r" / "sgts-mr.json" and folder.path_for("m", "r") == path.parent
    units = UnitValues(np.array([0.25, 0.75]), "sentence", "mean", "h")
    folder.save(path, _result("sgts-mr", "aa"), units)
    assert read_result(path).main_score() == 0.5 and load_units(units_path(path)).values.tolist() == [0.25, 0.75]
    folder.save(path, _result("sgts-mr", "aa", 0.25), None)
    assert not units_path(path).exists(), "an older run's values never stay beside a new result"
    assert [r.main_score() for r in folder.select(model="m")] == [0.25] and folder.load().roots == (tmp_path,)


def test_one_set_of_weights_per_folder_and_the_training_log_with_the_first_result(tmp_path):
    folder = ResultsFolder(tmp_path)
    kept = folder.path_for("m", "r", "a")
    folder.save(kept, _result("a", "aa"), None)
    folder.keep_one_weights(kept.parent, replaced=set())
    folder.log_training("m", "r", "float32", {"method": "x", "best_step": 2,
                                              "loss_curve": [{"step": 1, "loss": 0.5}]})
    with pytest.raises(BenchError, match="holds results of other weights"):
        folder.save(kept.with_name("b.json"), _result("b", "bb"), None)
    assert not kept.with_name("b.json").exists() and read_training_log(kept.parent) is None
    folder.save(kept.with_name("b.json"), _result("b", "aa"), None)
    assert read_training_log(kept.parent).weights_sha256 == "aa"


def test_is_done_follows_the_overwrite_strategy_and_the_lock_is_one_runs(tmp_path, fixture_task):
    folder = ResultsFolder(tmp_path)
    path = folder.path_for("m", "r", fixture_task.name)
    assert not folder.is_done(path, fixture_task, None, "never")
    folder.save(path, _result(fixture_task.name, None, version=fixture_task.metadata.version), None)
    assert folder.is_done(path, fixture_task, None, "only-missing") and folder.is_done(path, fixture_task, 5, "never")
    assert not folder.is_done(path, fixture_task, 5, "only-missing") and not folder.is_done(path, fixture_task, None,
                                                                                             "always")
    with folder, ResultsFolder(tmp_path) as other:
        assert folder.claim(path, fixture_task, None, "always") == "claimed"
        assert other.claim(path, fixture_task, None, "always") == other.claim(path, fixture_task, None,
                                                                               "only-missing") == "in flight"
    with ResultsFolder(tmp_path) as later:  # the first run's locks went with it
        assert later.claim(path, fixture_task, None, "only-missing") == "done"  # finished since: the lock given back
        assert later.claim(path, fixture_task, None, "always") == "claimed"  # so it can be taken again


def test_plan_says_what_is_left_of_a_model_and_where_each_result_goes(tmp_path, fixture_task):
    folder = ResultsFolder(tmp_path)
    path = tmp_path / "m" / "r" / f"{fixture_task.name}.json"
    assert folder.plan("m", "r", "float32", [fixture_task], None, "only-missing") == ([(fixture_task, path)], [])
    folder.save(path, _result(fixture_task.name, "aa", version=fixture_task.metadata.version), None)
    assert folder.plan("m", "r", "float32", [fixture_task], None, "only-missing") == ([], [path])
    assert folder.plan("m", "r", "float32", [fixture_task], None, "always") == ([(fixture_task, path)], [])
    other = path.with_name("other.json")
    folder.save(other, _result("other", "bb"), None)  # a second set of weights in one revision folder
    with pytest.raises(BenchError, match="weights"):
        folder.plan("m", "r", "float32", [fixture_task], None, "only-missing")
