"""The alignment / uniformity / tolerance task on a fixture with hand-known geometry; the PCA plot."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.registry import DATASETS
from sentibench.evaluation.geometry import DEFINITIONS
from sentibench.tasks.alignment import AlignmentUniformity
from sentibench.tasks.base import EvalContext, TaskMetadata

# Four test sentences on the unit circle: two positives at 0 and 90 deg, two negatives at 180 and 270 deg.
POINTS = {"p0": (0.0, 1), "p90": (90.0, 1), "n180": (180.0, 0), "n270": (270.0, 0)}


class CircleEncoder:
    name = "circle"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        # scaled by 3: the task must L2-normalise before measuring
        return np.asarray([[3 * math.cos(math.radians(POINTS[t][0])), 3 * math.sin(math.radians(POINTS[t][0]))]
                           for t in texts], dtype=np.float32)


@pytest.fixture(scope="module")
def task():
    name = "frozen-align-fixture"
    if name not in DATASETS:
        rows = [{"text": t, "label": y} for t, (_, y) in POINTS.items()]
        register_dataset(DatasetSpec(name=name, description="test", kind="classification", label_names=("n", "p"),
                                     license="test", citation="test", load_rows=lambda: {"train": rows, "test": rows},
                                     validation_fraction=0.0))
    return AlignmentUniformity(TaskMetadata(name="align-fixture", type="Geometry", dataset=name,
                                            eval_splits=("test",), main_score="tolerance", description="test fixture",
                                            reference="test"))


def test_hand_values(task):
    evaluation = task.run(CircleEncoder(), EvalContext())
    scores = evaluation.scores["test"]
    # same-label pairs are 90 deg apart: ||x - y||^2 = 2, cos = 0
    assert scores["alignment"] == pytest.approx(2.0)
    assert scores["tolerance"] == pytest.approx(0.0, abs=1e-7)
    # all 6 pairs: four at 90 deg (d^2 = 2), two antipodal (d^2 = 4)
    assert scores["uniformity"] == pytest.approx(math.log((4 * math.exp(-4) + 2 * math.exp(-8)) / 6))
    assert scores["main_score"] == scores["tolerance"]
    assert evaluation.details["definitions"] == DEFINITIONS
    assert evaluation.details["same_label_pairs"] == 2 and evaluation.details["all_pairs"] == 6


def test_sample_cap(task):
    evaluation = task.run(CircleEncoder(), EvalContext(limit=3))
    assert evaluation.details["examples"] == 3


def test_pca_plot_writes_one_png_per_dataset(task, tmp_path):
    from sentibench.report.plot_pca import pca_2d, plot_pca

    points, ratio = pca_2d(np.array([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [2.0, 2.0, 1.0], [3.0, 3.1, 1.0]]))
    assert ratio[0] > 0.99 and points.shape == (4, 2)
    paths = plot_pca(["random"], [task.metadata.dataset], tmp_path / "plots", limit=None)
    assert paths == [tmp_path / "plots" / f"pca-{task.metadata.dataset}.png"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
