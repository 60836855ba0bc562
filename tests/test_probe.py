"""The linear probe on a separable fixture (given splits, carved dev, k-fold), the C selection, the
seeded caps, and the CrowdFlower 3-class tweets parser."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.parsers import crowdflower_tweets
from sentibench.data.registry import DATASETS
from sentibench.evaluation.classifiers import C_GRID, C_LIMITS, grid_edge_warning, split_protocol, widening_search
from sentibench.evaluation.sampling import capped_indices
from sentibench.tasks.base import EvalContext, TaskMetadata
from sentibench.tasks.probe import LinearProbe


class HashEncoder:
    """Text 'c<label> <i>' -> a fixed 4-d vector: the label's centre (+-2 on dim 0) plus seeded noise."""

    name = "hash"

    def __init__(self, noise: float = 0.5) -> None:
        self.noise = noise
        self.asked = 0

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.asked += len(texts)
        rows = []
        for text in texts:
            label, index = text[1], int(text.split()[1])
            rng = np.random.default_rng(index)
            centre = np.array([2.0 if label == "1" else -2.0, 0.0, 0.0, 0.0])
            rows.append(centre + self.noise * rng.normal(size=4))
        return np.asarray(rows, dtype=np.float32)


def _rows(n: int, offset: int = 0) -> list[dict]:
    return [{"text": f"c{i % 2} {offset + i}", "label": i % 2} for i in range(n)]


def _register(name: str, rows: dict, validation_fraction: float = 0.0) -> str:
    if name not in DATASETS:
        register_dataset(DatasetSpec(name=name, description="test", kind="classification", label_names=("a", "b"),
                                     license="test", citation="test", load_rows=lambda: rows,
                                     validation_fraction=validation_fraction))
    return name


def _splits_fixture() -> str:
    """The separable fixture with given train / validation / test splits (registered once, with its rows, by
    whichever test asks first, so each test also runs alone)."""
    return _register("frozen-probe-splits", {"train": _rows(60), "validation": _rows(20, 100), "test": _rows(30, 200)})


def _probe(dataset: str, **options) -> LinearProbe:
    return LinearProbe(TaskMetadata(name=f"probe-{dataset}", type="Classification", dataset=dataset,
                                    eval_splits=("test",), main_score="accuracy", description="test fixture",
                                    reference="test"),
                       **options)


def test_separable_fixture_is_learned_perfectly_with_given_splits():
    name = _splits_fixture()
    evaluation = _probe(name).run(HashEncoder(), EvalContext())
    assert evaluation.scores == {"test": {"accuracy": 1.0, "f1": 1.0, "main_score": 1.0}}
    assert evaluation.details["protocol"] == "train / dev (C) / test"
    assert evaluation.details["sizes"] == {"train": 60, "validation": 20, "test": 30}
    assert evaluation.details["C"] in C_GRID


def test_chance_level_without_signal():
    name = _splits_fixture()
    # noise 50x the class gap: the probe cannot beat chance by much on 30 test points
    evaluation = _probe(name).run(HashEncoder(noise=100.0), EvalContext())
    assert evaluation.scores["test"]["accuracy"] < 0.85


def test_dev_is_carved_from_train_when_missing():
    name = _register("frozen-probe-nodev", {"train": _rows(60), "test": _rows(20, 300)})
    evaluation = _probe(name).run(HashEncoder(), EvalContext())
    assert evaluation.details["protocol"].startswith("train / dev carved from train (10%")
    assert evaluation.scores["test"]["accuracy"] == 1.0


def test_kfold_uses_every_example_once():
    name = _register("frozen-probe-kfold", {"train": _rows(40), "test": _rows(10, 400)})
    encoder = HashEncoder()
    evaluation = _probe(name, folds=5).run(encoder, EvalContext())
    assert evaluation.details["folds"] == 5 and len(evaluation.details["per_fold"]) == 5
    assert evaluation.scores["test"]["accuracy"] == 1.0
    assert evaluation.details["accuracy_std"] == 0.0
    assert encoder.asked == 50


def test_caps_and_limit_are_seeded_prefix_samples():
    assert list(capped_indices(5, None, 0)) == [0, 1, 2, 3, 4]
    small, large = set(capped_indices(100, 10, 3)), set(capped_indices(100, 40, 3))
    assert small < large and len(small) == 10
    assert list(capped_indices(100, 10, 3)) == sorted(capped_indices(100, 10, 3))
    name = _splits_fixture()
    evaluation = _probe(name, max_train=20).run(HashEncoder(), EvalContext(limit=16))
    assert evaluation.details["sizes"] == {"train": 16, "validation": 16, "test": 16}


def test_c_ties_go_to_the_smaller_c():
    x = np.array([[-1.0], [-2.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    scores, details, correct = split_protocol(x, y, x, y, x, y, seed=0)
    assert details["C"] == C_GRID[0] and set(details["dev_accuracy_by_C"].values()) == {1.0}
    assert details["grid_edge_warning"] is None, "a tie on a plateau is not an edge optimum"
    assert correct.tolist() == [1.0] * 4
    assert scores == {"accuracy": 1.0, "f1": 1.0}


def test_crowdflower_parser(tmp_path):
    path = tmp_path / "frozen_tweets.csv"
    path.write_bytes("sentiment,confidence,text\r\nnegative,0.75,no  thank you\xd1\r\npositive,1,great!\r\n"
                     "neutral,0.6,great!\r\nneutral,1,just a car\r\nneutral,1,just a car\r\n".encode("latin-1"))
    assert crowdflower_tweets(path) == [{"text": "no thank you\xd1", "label": 0}, {"text": "just a car", "label": 1}]


def test_kfold_shrinks_to_the_smallest_class():
    name = _register("frozen-probe-tiny", {"train": _rows(8), "test": _rows(2, 500)})
    evaluation = _probe(name, folds=10).run(HashEncoder(), EvalContext())
    assert evaluation.details["folds"] == 5  # 5 examples per class


def test_grid_edge_warning_only_when_the_edge_is_still_improving():
    improving = {"0.25": 0.70, "0.5": 0.74, "1.0": 0.78, "2.0": 0.80}
    assert grid_edge_warning([(2.0, improving)]).startswith("C = 2 is the edge of the searched grid 0.25 .. 2")
    assert "1 of 2 searches" in grid_edge_warning([(2.0, improving), (1.0, improving)])
    plateau = {"0.25": 0.80, "0.5": 0.80, "1.0": 0.78, "2.0": 0.70}
    assert grid_edge_warning([(0.25, plateau)]) is None
    assert grid_edge_warning([(1.0, improving)]) is None


def _search(score_of_log2_c, calls: list):
    """A fake C search: scores C by `score_of_log2_c(log2 C)`, best by (score, -C) as the real searches do."""
    def fit(grid):
        calls.append((math.log2(min(grid)), math.log2(max(grid)), len(grid)))
        by_c = {str(c): score_of_log2_c(math.log2(c)) for c in grid}
        return max(grid, key=lambda c: (by_c[str(c)], -c)), by_c
    return fit


def test_widening_search_follows_an_optimum_beyond_the_grid():
    calls = []
    best, by_c = widening_search(_search(lambda p: -abs(p + 14), calls), lambda chosen: chosen, C_GRID)
    # 2^-10 .. 2^4 picks its lower edge, still improving; 2^-14 .. 2^4 picks 2^-14, again the edge and
    # better than 2^-13; 2^-18 .. 2^4 has it inside: stop.
    assert calls == [(-10, 4, 15), (-14, 4, 19), (-18, 4, 23)]
    assert best == 2.0 ** -14 and grid_edge_warning([(best, by_c)]) is None


def test_widening_search_stops_on_a_plateau_and_leaves_an_interior_choice_alone():
    calls = []
    best, _ = widening_search(_search(lambda p: -max(p, -12), calls), lambda chosen: chosen, C_GRID)
    assert calls == [(-10, 4, 15), (-14, 4, 19)] and best == 2.0 ** -14  # 2^-14 .. 2^-12 tie: the smallest
    calls.clear()
    best, _ = widening_search(_search(lambda p: -abs(p), calls), lambda chosen: chosen, C_GRID)
    assert calls == [(-10, 4, 15)] and best == 1.0


def test_widening_search_stops_at_its_limit_and_the_result_warns():
    calls = []
    best, by_c = widening_search(_search(lambda p: p, calls), lambda chosen: chosen, C_GRID)
    assert [c[1] for c in calls] == [4, 8, 12, 16, 20, 24] and best == C_LIMITS[1] == 2.0 ** 24
    assert grid_edge_warning([(best, by_c)]).startswith("C = 1.67772e+07 is the edge of the searched grid")


def test_kfold_item_values_average_to_the_mean_fold_accuracy():
    from sentibench.evaluation.classifiers import kfold_protocol

    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(23), np.ones(20)].astype(int)  # 43 items: folds of 9 and 8, unequal
    x = rng.normal(size=(43, 3)) + y[:, None] * 0.8
    scores, details, values = kfold_protocol(x, y, folds=5, seed=0)
    assert values.mean() == pytest.approx(np.mean([f["accuracy"] for f in details["per_fold"]]))
    assert values.mean() == pytest.approx(scores["accuracy"]) and len(details["fold_ids_sha256"]) == 64
