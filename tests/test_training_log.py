"""A trained model's training curve travels from its checkpoint to `training.json` beside its results, is read
back through strict checks, and is drawn on its page of the site, with the weights it belongs to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from test_training_core import BagEncoder

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.results.task_result import iter_results, read_result
from sentibench.results.training_log import TRAINING_FILE, from_trace, read_training_log
from sentibench.training.checkpoint import save_module_checkpoint
from sentibench.training.methods import Method, register_method

CURVE = {"best_step": 20, "steps": 30, "seconds": 1.5, "best_score": 0.4,
         "loss_curve": [{"step": 10, "loss": 0.9, "l_xy": 0.5}, {"step": 20, "loss": 0.6, "l_xy": 0.3},
                        {"step": 30, "loss": 0.5, "l_xy": 0.2}],
         "history": [{"step": 0, "validation": 0.1}, {"step": 20, "validation": 0.4}, {"step": 30, "validation": 0.35}]}


def _train_bag_with_curve(request) -> dict:
    torch.manual_seed(request.seed)
    encoder = BagEncoder(buckets=50, dim=4)
    save_module_checkpoint(request.out_dir, "test-bag", {"buckets": 50, "dim": 4}, encoder.bag.state_dict())
    return {"max_length": None, "embedding_size": 4, "notes": "a toy with a curve", "training": CURVE}


register_method(Method("test-bag-curve", presets=("cpu",), entry_point=f"{__name__}:_train_bag_with_curve",
                       description="Toy bag of words with a training curve.", reference="test"))


def test_a_trained_models_curve_lands_beside_its_results_and_on_its_page(fixture_task, tmp_path, sentibench_home):
    checkpoint = tmp_path / "checkpoint"  # not the session's cache: other tests count the checkpoints there
    assert main(["train", "test-bag-curve", "--data", "fixture-reviews", "--name", "curved", "--output",
                 str(checkpoint)]) == 0
    out = tmp_path / "results"
    assert main(["run", "-m", "curved", "-t", "sgts-fixture-reviews", "--output-folder", str(out)]) == 0
    (result,) = iter_results(out)  # training.json is not taken for a result
    log = read_training_log(result.path.parent)
    assert log is not None and log.weights_sha256 == result.provenance.model.weights_sha256 is not None
    assert (log.method, log.best_step, log.steps) == ("test-bag-curve", 20, 30)
    assert log.loss_curve == CURVE["loss_curve"] and log.history == CURVE["history"]

    assert main(["leaderboard", "--results", str(out), "--html", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "models" / "curved.html").read_text()
    assert "30 steps; " in page and "kept step 20. Validation had stopped improving at the kept step" in page
    link = f"results/{out.name}/curved/{result.path.parent.name}/{TRAINING_FILE}"
    assert f'href="../{link}"' in page, "the log's copy inside the site"
    assert (tmp_path / "site" / link).read_bytes() == (result.path.parent / TRAINING_FILE).read_bytes()
    for series in ("training loss (window means):loss", "training loss (window means):l_xy",
                   "validation (checkpoint criterion):validation"):
        assert f'id="{series}"' in page, series

    # a log of other weights is not shown as this model's curve
    path = result.path.parent / TRAINING_FILE
    path.write_text(json.dumps({**json.loads(path.read_text()), "weights_sha256": "0" * 64}))
    assert main(["leaderboard", "--results", str(out), "--html", str(tmp_path / "site2")]) == 0
    assert "the training log beside these results is of other weights" in (
        tmp_path / "site2" / "models" / "curved.html").read_text()
    assert read_result(result.path).main_score() == result.main_score()


def test_the_trace_is_read_from_the_report_or_the_methods_own_log_and_cleaned(tmp_path):
    from sentibench.models.catalog.trained import DONE_FILE, training_trace

    (tmp_path / DONE_FILE).write_text(json.dumps({"method": "m", "training": {
        **CURVE, "loss_curve": [{"step": 1, "loss": None, "n": 4.0}, {"step": "2", "loss": 1.0}, {"step": 3}]}}))
    trace = training_trace(tmp_path)
    assert trace["method"] == "m" and trace["best_step"] == 20
    log = from_trace(trace, "ab")
    assert log.loss_curve == [{"step": 1, "n": 4.0}], "non-numbers, bad steps and empty points dropped"
    assert log.history == CURVE["history"] and log.weights_sha256 == "ab"
    (tmp_path / DONE_FILE).write_text(json.dumps({"recipe": {"method": "senticse"}}))
    assert training_trace(tmp_path) is None, "no curve anywhere: no trace"
    (tmp_path / "senticse_log.json").write_text(json.dumps({"training": CURVE}))
    trace = training_trace(tmp_path)
    assert trace["method"] == "senticse" and from_trace(trace, None).history == CURVE["history"]


@pytest.mark.parametrize("content, problem", [
    ('{"history": [{"validation": 0.1}]}', "needs a 'step'"),
    ('{"history": [{"step": 1, "validation": Infinity}]}', "not finite"),
    ('{"history": [], "unknown": 1}', "unknown"),
    ('{"history": "many"}', "history"),
    ("{not json", "cannot be read"),
])
def test_a_bad_training_log_is_a_one_line_error(tmp_path, content, problem):
    (tmp_path / TRAINING_FILE).write_text(content)
    with pytest.raises(BenchError) as error:
        read_training_log(tmp_path)
    assert "\n" not in str(error.value) and str(tmp_path) in str(error.value)
    assert problem in str(error.value)


def test_no_training_log_is_none(tmp_path):
    assert read_training_log(tmp_path) is None and read_training_log(Path(tmp_path / "absent")) is None
