from pathlib import Path

import pytest

from sentibench.core.errors import BenchError
from sentibench.data import parsers
from sentibench.data.spec import DatasetSpec
from sentibench.data.store import content_hash, make_splits, validate

FIXTURES = Path(__file__).parent / "fixtures"


def test_vader_ratings_and_binarisation_drop_the_neutral_band():
    rows = parsers.read_vader_ratings(FIXTURES / "core_vader_ratings.txt")
    assert rows[0] == ("1", 2.5, "A gorgeous, moving film.")
    labelled = parsers.binarise_vader(FIXTURES / "core_vader_ratings.txt")
    assert [r["label"] for r in labelled] == [1, 0, 1]  # 0.2 is inside the +-0.5 neutral band


def test_mr_join_matches_through_lost_punctuation_and_skips_plot_rows():
    rows = parsers.mr_sentences(FIXTURES / "core_vader_ratings.txt", FIXTURES / "core_rotten_tomatoes.csv.bz2")
    assert rows == [
        {"text": "A gorgeous, moving film.", "label": 1},
        {"text": "Tedious and flat", "label": 0},          # "Tedious and flat." in the corpus
        {"text": "Smart , funny co writer work.", "label": 1},  # "co-writer" in the corpus
    ]


def test_imdb_train_dedups_and_cleans_and_test_excludes_train():
    train = parsers.imdb_train(FIXTURES / "core_documents.pickle")
    assert train == [{"text": "Great movie, loved it.", "label": 1}, {"text": "Awful plot.", "label": 0}]
    test = parsers.imdb_test(FIXTURES / "core_imdb_50k.csv", train)
    assert test == [{"text": "Dull, dull, dull.", "label": 0}, {"text": "A joy.", "label": 1}]


def test_unpickling_a_downloaded_file_refuses_globals(capsys):
    with pytest.raises(BenchError, match="refusing to unpickle the global .*print"):
        parsers.safe_unpickle(FIXTURES / "core_evil.pickle")
    assert "pwned" not in capsys.readouterr().out


def test_sts_benchmark_layout_with_extra_fields():
    rows = parsers.sts_benchmark(FIXTURES / "core_sts.csv")
    assert rows == [
        {"sentence1": "A plane is taking off.", "sentence2": "An air plane is taking off.", "score": 5.0},
        {"sentence1": "A man plays.", "sentence2": "Stocks fall sharply.", "score": 0.4},
    ]


def _spec(**kw) -> DatasetSpec:
    return DatasetSpec(name="t", description="t", kind="classification", license="t", citation="t",
                       label_names=("negative", "positive"), **kw)


def test_splits_are_stratified_deterministic_and_hashed():
    rows = [{"text": f"s{i}", "label": i % 2} for i in range(100)]
    first = make_splits(_spec(), {"all": rows})
    assert {k: len(v) for k, v in first.items()} == {"train": 80, "validation": 10, "test": 10}
    assert sum(r["label"] for r in first["test"]) == 5
    assert content_hash(first) == content_hash(make_splits(_spec(), {"all": rows}))
    assert content_hash(first) != content_hash(make_splits(_spec(split_seed=1), {"all": rows}))


def test_validation_is_carved_from_train_when_missing():
    rows = {"train": [{"text": f"s{i}", "label": i % 2} for i in range(50)], "test": [{"text": "x", "label": 0}]}
    out = make_splits(_spec(), rows)
    assert len(out["validation"]) == 5 and len(out["train"]) == 45


@pytest.mark.parametrize("rows, message", [
    ({}, "no rows"),
    ({"test": [{"text": "a", "label": 1}, {"text": "b", "label": 1}]}, "single class"),
    ({"test": [{"text": "a", "label": 0}, {"text": "b", "label": 7}]}, "outside 0..1"),
])
def test_bad_data_is_a_clear_error(rows, message):
    with pytest.raises(BenchError, match=message):
        validate(_spec(), rows)
