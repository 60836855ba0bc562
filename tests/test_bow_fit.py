"""The bag-of-words baseline learns its vocabulary from a task's train split only, and from the scored split's
texts (never its labels) when the dataset has nothing else (models.catalog.kinds.fit_on_train_split)."""

from __future__ import annotations

from sentibench.data import get_dataset
from sentibench.data.texts import split_texts, train_texts
from sentibench.models.catalog.baselines import BowEncoder
from sentibench.models.catalog.kinds import fit_on_train_split


class Recorder(BowEncoder):
    learns_from_data = True

    def fit(self, texts):
        self.seen = list(texts)
        return self


def test_a_dataset_with_a_train_split_fits_on_it_only():
    encoder = Recorder()
    assert fit_on_train_split(encoder, "mr")
    assert encoder.seen == train_texts("mr")
    assert not set(encoder.seen) & set(split_texts(get_dataset("mr").split("test")))


def test_a_one_split_corpus_fits_on_its_texts():
    encoder = Recorder()
    assert fit_on_train_split(encoder, "clough-stevenson")
    corpus = get_dataset("clough-stevenson")
    assert corpus.split_names == ("test",)
    assert encoder.seen == split_texts(corpus.split("test")) and len(encoder.seen) > 50


def test_a_model_that_does_not_learn_is_not_fitted():
    class Frozen:
        def fit(self, texts):
            raise AssertionError("fitted")

    assert not fit_on_train_split(Frozen(), "mr")
