"""`runner.run` with models given as Python objects, named by the user (sentibench.models.catalog.inprocess)."""

from __future__ import annotations

import pytest

from sentibench.core.errors import BenchError
from sentibench.models.catalog.inprocess import InProcessModel
from sentibench.results.task_result import read_result
from sentibench.run.runner import run
from sentibench.tasks.base import EvalContext


def test_any_object_with_encode_runs_under_its_given_name(tmp_path, fixture_task, fake_encoder):
    expected = fixture_task.run(fake_encoder, EvalContext(seed=0)).scores["test"]["main_score"]
    report = run([InProcessModel("my-encoder", fake_encoder)], [fixture_task], tmp_path)
    assert report.written == [tmp_path / "my-encoder" / "in-process" / f"{fixture_task.name}.json"]
    stored = read_result(report.written[0])
    assert stored.main_score() == expected and stored.provenance.model.loader == "in-process"


def test_a_revision_turns_the_embedding_cache_on(tmp_path, fixture_task, fake_encoder):
    model = InProcessModel("my-encoder", fake_encoder, revision="v1")
    first = run([model], [fixture_task], tmp_path, overwrite="always")
    again = run([model], [fixture_task], tmp_path, overwrite="always")
    assert first.encoded > 0 and again.encoded == 0
    unversioned = run([InProcessModel("my-encoder", fake_encoder)], [fixture_task], tmp_path, overwrite="always")
    assert unversioned.encoded == first.encoded  # no revision, no cache: never a stale vector


def test_a_sentence_transformer_object_scores_like_its_card(tmp_path, fixture_task):
    from sentence_transformers import SentenceTransformer

    from sentibench.models.catalog.loaders import weights_folder
    from sentibench.models.catalog.lookup import card_for

    model = SentenceTransformer(str(weights_folder(card_for("all-minilm-l6-v2"))), device="cpu")
    by_object = run([InProcessModel("st-minilm", model)], [fixture_task], tmp_path, use_cache=False)
    by_card = run(["all-minilm-l6-v2"], [fixture_task], tmp_path, use_cache=False)
    scores = [read_result(r.written[0]).main_score() for r in (by_object, by_card)]
    assert scores[0] == pytest.approx(scores[1], abs=1e-6)


@pytest.mark.parametrize(("name", "model", "message"), [
    ("all-minilm-l6-v2", object(), "is a model card"),
    ("org/name", object(), "plain name"),
    ("nameless", object(), "no encode method"),
])
def test_bad_in_process_models_are_one_line_errors(name, model, message):
    if message != "no encode method":
        model = type("M", (), {"encode": lambda self, texts, **kw: None})()
    with pytest.raises(BenchError, match=message):
        InProcessModel(name, model)
