"""STS on fixtures with a known Spearman, SentEval's subset aggregation, and None (never NaN) when constant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.registry import DATASETS
from sentibench.evaluation.metrics import correlations
from sentibench.evaluation.sts import subset_scores
from sentibench.tasks.base import EvalContext, TaskMetadata
from sentibench.tasks.sts import STS

# Pair i: sentence "a{i}" at angle 0, sentence "b{i}" at ANGLES[i]: cosines cos(ANGLES) are ranked 1,3,4,2.
ANGLES = [80.0, 40.0, 10.0, 60.0]


class AngleEncoder:
    name = "angles"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        out = []
        for text in texts:
            angle = 0.0 if text[0] == "a" else ANGLES[int(text[1:])]
            out.append([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        return np.asarray(out, dtype=np.float32)


def _task(gold: list[float], name: str, subsets: list[str] | None = None) -> STS:
    if name not in DATASETS:
        rows = [{"sentence1": f"a{i}", "sentence2": f"b{i}", "score": g} for i, g in enumerate(gold)]
        if subsets:
            rows = [{**row, "subset": s} for row, s in zip(rows, subsets)]
        register_dataset(DatasetSpec(name=name, description="test", kind="pairs", license="test", citation="test",
                                     load_rows=lambda: {"test": rows}))
    return STS(TaskMetadata(name=f"sts-{name}", type="STS", dataset=name, eval_splits=("test",),
                            main_score="cosine_spearman", description="test fixture", reference="test"))


def test_known_spearman():
    # cosine ranks [1, 3, 4, 2] vs gold ranks [1, 2, 4, 3]: sum d^2 = 2 -> rho = 1 - 6*2/(4*15) = 0.8
    evaluation = _task([1.0, 2.0, 5.0, 3.0], "frozen-sts-known").run(AngleEncoder(), EvalContext())
    scores = evaluation.scores["test"]
    assert scores["cosine_spearman"] == pytest.approx(0.8)
    assert scores["main_score"] == scores["cosine_spearman"]
    cosines = np.cos(np.radians(ANGLES))
    gold = np.array([1.0, 2.0, 5.0, 3.0])
    slow_pearson = np.sum((cosines - cosines.mean()) * (gold - gold.mean())) / (
        np.sqrt(np.sum((cosines - cosines.mean()) ** 2)) * np.sqrt(np.sum((gold - gold.mean()) ** 2)))
    assert scores["cosine_pearson"] == pytest.approx(slow_pearson)
    assert evaluation.details["pairs"] == {"test": 4}


def test_perfect_order_gives_one():
    evaluation = _task([1.0, 3.0, 5.0, 2.0], "frozen-sts-perfect").run(AngleEncoder(), EvalContext())
    assert evaluation.scores["test"]["cosine_spearman"] == pytest.approx(1.0)


def test_constant_gold_is_none_not_nan():
    assert correlations(np.array([0.1, 0.2, 0.3]), np.array([1.0, 1.0, 1.0])) == {
        "cosine_spearman": None, "cosine_pearson": None}


def test_subsets_all_mean_wmean():
    predicted = np.array([0.1, 0.2, 0.3, 0.9, 0.8, 0.7, 0.6])
    gold = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0])
    subsets = ["x", "x", "x", "y", "y", "y", "y"]
    scores, per = subset_scores(predicted, gold, subsets)
    assert per["x"]["cosine_spearman"] == pytest.approx(1.0) and per["y"]["cosine_spearman"] == pytest.approx(-1.0)
    assert scores["mean_cosine_spearman"] == pytest.approx(0.0)
    assert scores["wmean_cosine_spearman"] == pytest.approx((3 * 1.0 + 4 * -1.0) / 7)
    assert scores["all_cosine_spearman"] == pytest.approx(correlations(predicted, gold)["cosine_spearman"])


def test_task_reports_subsets_when_the_rows_have_them():
    task = _task([1.0, 2.0, 5.0, 3.0], "frozen-sts-subsets", subsets=["s1", "s1", "s2", "s2"])
    evaluation = task.run(AngleEncoder(), EvalContext())
    scores = evaluation.scores["test"]
    assert {"all_cosine_spearman", "mean_cosine_spearman", "wmean_cosine_spearman"} <= set(scores)
    assert set(evaluation.details["subsets"]["test"]) == {"s1", "s2"}
