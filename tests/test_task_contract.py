"""The task contract the base class enforces: validated metadata, the main score set by the base class,
metric directions, and a protocol version that results record and resume respects."""

from __future__ import annotations

import dataclasses

import pytest

from sentibench.core.errors import BenchError
from sentibench.results.task_result import read_result
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import all_tasks

META = dict(name="toy-task", type="Classification", dataset="fixture-reviews", eval_splits=("test",),
            main_score="accuracy", description="a toy", reference="none")


@pytest.mark.parametrize("change, message", [
    ({"type": "Summarization"}, "type 'Summarization' is not one of"), ({"name": "Toy Task"}, "name must be"),
    ({"eval_splits": ()}, "eval_splits"), ({"main_score": ""}, "main_score must name"),
    ({"version": 0}, "version must be"), ({"description": ""}, "description and reference"),
])
def test_metadata_is_validated_when_declared(change, message):
    with pytest.raises(BenchError, match=message):
        TaskMetadata(**{**META, **change})


class Scripted(Task):
    def __init__(self, scores: dict, **meta) -> None:
        self.scores = scores
        self.metadata = TaskMetadata(**{**META, **meta})

    def evaluate(self, encoder, context: EvalContext) -> Evaluation:
        return Evaluation({split: dict(s) for split, s in self.scores.items()})


def test_the_base_class_sets_the_main_score_and_refuses_a_missing_one():
    done = Scripted({"test": {"accuracy": 0.75, "f1": 0.5}}).run(None, EvalContext())
    assert done.scores["test"]["main_score"] == 0.75
    with pytest.raises(BenchError, match="produced no 'accuracy' for split 'test'"):
        Scripted({"test": {"f1": 0.5}}).run(None, EvalContext())
    with pytest.raises(BenchError, match="for split 'validation'"):
        Scripted({"test": {"accuracy": 0.5}}, eval_splits=("test", "validation")).run(None, EvalContext())


def test_every_registered_task_declares_a_valid_direction_for_its_main_score():
    tasks = all_tasks()
    assert tasks["align-mr"].metadata.greater_is_better("tolerance")
    assert not tasks["align-mr"].metadata.greater_is_better("uniformity")
    assert not tasks["align-mr"].metadata.greater_is_better("alignment")
    assert all(t.metadata.greater_is_better() for n, t in tasks.items() if not n.startswith("align-"))


def test_results_record_the_version_and_a_new_version_is_recomputed(fixture_task, fake_encoder, tmp_path, monkeypatch):
    from sentibench.run import runner

    monkeypatch.setattr(runner, "load_encoder", lambda card, device=None, use_cache=True: _cached(fake_encoder))
    out = tmp_path / "results"
    first = runner.run(["random"], [fixture_task], out)
    (path,) = first.written
    version = fixture_task.metadata.version
    assert read_result(path).provenance.task.version == version
    assert runner.run(["random"], [fixture_task], out).skipped == [path]
    bumped = dataclasses.replace(fixture_task.metadata, version=version + 1)
    monkeypatch.setattr(fixture_task, "metadata", bumped)
    assert runner.run(["random"], [fixture_task], out).written == [path]
    assert read_result(path).provenance.task.version == version + 1


def _cached(encoder):
    from sentibench.embed.cache import CachedEncoder

    return CachedEncoder(encoder, {"model": "fake"}, enabled=False)
