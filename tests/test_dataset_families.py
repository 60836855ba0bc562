"""A new labelled dataset needs one catalog entry (a `DatasetSpec` with tags) and a parser: the task
families give it its tasks. Exact scores on a fake encoder, derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, register_dataset
from sentibench.tasks.base import EvalContext
from sentibench.tasks.registry import all_tasks, groups


def _spec(name: str, rows: list[dict], **extra) -> DatasetSpec:
    return DatasetSpec(name=name, description="test", kind="classification", label_names=("negative", "positive"),
                       license="test", citation="test", load_rows=lambda: {"all": rows},
                       split_fractions=(0.5, 0.0, 0.5), **extra)


POLAR = [{"text": f"{'good' if i % 2 else 'bad'} thing {i}", "label": i % 2} for i in range(40)]


def test_one_catalog_entry_gives_a_sentiment_dataset_its_tasks():
    register_dataset(_spec("new-reviews", POLAR, tags=("sentiment", "review")))
    tasks = all_tasks()
    for family in ("sgts", "probe", "retrieval", "align"):
        assert f"{family}-new-reviews" in tasks and f"{family}-new-reviews" in groups()[family]
    assert "fewshot-senticse-k1-new-reviews" in tasks
    assert "fewshot-senticse-k1-new-reviews" not in groups()["fewshot"]  # the CPU default group is a budget list


def test_tags_select_and_caps_come_from_the_spec():
    register_dataset(_spec("new-long", POLAR, tags=("sentiment", "review", "long"), max_examples=6))
    register_dataset(_spec("new-sarcasm", POLAR, tags=("sarcasm", "small")))
    tasks = all_tasks()
    assert tasks["sgts-new-long"].max_per_class == 6 and tasks["probe-new-long"].max_train == 6
    assert "retrieval-new-long" not in tasks                    # long texts: no retrieval
    assert tasks["fewshot-senticse-k1-new-long"].test_cap == 3  # half the cap (re-predicted per seed)
    assert "retrieval-new-sarcasm" in tasks and "sgts-new-sarcasm" not in tasks and "probe-new-sarcasm" not in tasks


def test_lite_examples_give_lite_versions_whose_texts_are_a_subset_of_the_full_tasks():
    many = [{"text": f"{'good' if i % 2 else 'bad'} thing {i}", "label": i % 2} for i in range(200)]
    register_dataset(_spec("new-lite", many, tags=("sentiment", "review", "long"), max_examples=40, lite_examples=12))
    tasks, recorded = all_tasks(), {}
    assert tasks["sgts-new-lite-lite"].max_per_class == 12 and tasks["probe-new-lite-lite"].max_train == 12
    assert groups()["sgts-lite"][-1:] == ["sgts-new-lite-lite"] and "sgts-new-lite-lite" not in groups()["sgts"]
    assert "probe-new-lite-lite" in groups()["probe-lite"] and "probe-new-lite-lite" not in groups()["probe"]
    assert "retrieval-new-lite-lite" not in tasks and "align-new-lite-lite" not in tasks  # only SgTS and probes

    class Recording(WordEncoder):
        def __init__(self, name):
            self.name, self.seen = name, recorded.setdefault(name, set())

        def encode(self, texts, batch_size=32, show_progress_bar=None):
            self.seen.update(texts)
            return super().encode(texts)

    for name in ("sgts-new-lite", "sgts-new-lite-lite", "probe-new-lite", "probe-new-lite-lite"):
        tasks[name].run(Recording(name), EvalContext())
    # SgTS: 12 of the 40 per polarity of the 100 test rows. Probe: 12 (of 40) of train's 100 and of test's 100
    # (its dev part is carved from the capped train sample).
    assert len(recorded["sgts-new-lite-lite"]) == 24 and len(recorded["sgts-new-lite"]) == 80
    assert recorded["sgts-new-lite-lite"] < recorded["sgts-new-lite"]
    assert len(recorded["probe-new-lite-lite"]) == 24 and len(recorded["probe-new-lite"]) == 80
    assert recorded["probe-new-lite-lite"] < recorded["probe-new-lite"]


@pytest.mark.parametrize("caps", [{"lite_examples": 1}, {"max_examples": 5, "lite_examples": 5}])
def test_a_lite_cap_must_be_below_the_full_cap(caps):
    with pytest.raises(BenchError, match="lite_examples must be at least 2 and below max_examples"):
        _spec("bad-lite", POLAR, tags=("sentiment",), **caps)


class WordEncoder:
    """[1, 0] for a text containing 'good', [0, 1] otherwise: a perfect polarity encoder."""

    name = "words"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        return np.array([[1.0, 0.0] if "good" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


def test_the_new_dataset_runs_end_to_end_with_exact_scores():
    register_dataset(_spec("new-polar", POLAR, tags=("sentiment", "review")))
    tasks = all_tasks()
    sgts = tasks["sgts-new-polar"].run(WordEncoder(), EvalContext())
    # cosine is 1 for same-polarity pairs and 0 otherwise: a perfect ranking of a balanced 0/1 gold,
    # Spearman = Pearson = 1 (ties within each class share one rank).
    assert sgts.scores["test"]["main_score"] == pytest.approx(1.0)
    retrieval = tasks["retrieval-new-polar"].run(WordEncoder(), EvalContext(model_name="words"))
    # The train lookup holds 10 texts per label, so of k=16 neighbours (ties broken either way) ranks 1-10
    # share the label: P = sum_{i=1..10} 2(17 - i) / (16 * 17) = 2 * 115 / 272.
    assert retrieval.scores["test"]["polarity_score"] == pytest.approx(230 / 272)
    align = tasks["align-new-polar"].run(WordEncoder(), EvalContext())
    assert align.scores["test"]["alignment"] == pytest.approx(0.0) and align.scores["test"]["tolerance"] == 1.0


def test_an_unknown_tag_is_refused_when_declared():
    with pytest.raises(BenchError, match="unknown tag"):
        _spec("bad-tags", POLAR, tags=("sentimental",))


def test_registrations_do_not_leak_between_tests():
    assert "sgts-new-polar" not in all_tasks() and "sgts-new-reviews" not in all_tasks()
