"""Polarity / semantic retrieval on a hand-built 2-D fixture: neighbours, P, S and ranking metrics checked
against a brute-force loop and hand-computed values; plus the iSarcasmEval parser."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, get_dataset, register_dataset
from sentibench.data.parsers import isarcasm_eval
from sentibench.evaluation import metrics
from sentibench.evaluation.retrieval import nearest_neighbours
from sentibench.tasks.base import EvalContext, TaskMetadata
from sentibench.tasks.retrieval import PolarityRetrieval

# Queries and lookup items live on the unit circle at these angles (degrees); label = polarity.
QUERIES = {"q-pos": (0.0, 1), "q-neg": (180.0, 0)}
LOOKUP = {"a": (10.0, 1), "b": (20.0, 0), "c": (35.0, 1), "d": (60.0, 1), "e": (100.0, 0),
          "f": (170.0, 0), "g": (200.0, 1), "h": (215.0, 0), "i": (250.0, 0), "j": (300.0, 1)}


class TableEncoder:
    """Looks each text up in a fixed table of vectors (deterministic; counts texts asked for)."""

    def __init__(self, table: dict[str, np.ndarray], name: str) -> None:
        self.table, self.name, self.asked = table, name, 0

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.asked += len(texts)
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def _circle(angle: float) -> np.ndarray:
    return np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])


@pytest.fixture(scope="module")
def task():
    name = "frozen-retrieval-fixture"
    from sentibench.data.registry import DATASETS

    if name not in DATASETS:
        rows = {"train": [{"text": t, "label": y} for t, (_, y) in LOOKUP.items()],
                "test": [{"text": t, "label": y} for t, (_, y) in QUERIES.items()]}
        register_dataset(DatasetSpec(name=name, description="test", kind="classification",
                                     label_names=("neg", "pos"), license="test", citation="test",
                                     load_rows=lambda: rows, validation_fraction=0.0))
    return PolarityRetrieval(TaskMetadata(name="retrieval-fixture", type="Retrieval", dataset=name,
                                          eval_splits=("test",), main_score="polarity_score",
                                          description="test", reference="test"), k=3)


def model_encoder() -> TableEncoder:
    return TableEncoder({t: _circle(a) for t, (a, _) in {**QUERIES, **LOOKUP}.items()}, "model")


def test_faiss_neighbours_match_brute_force():
    rng = np.random.default_rng(3)
    queries, lookup = rng.normal(size=(5, 8)), rng.normal(size=(40, 8))
    found = nearest_neighbours(queries, lookup, 6)
    cos = metrics.l2_normalise(queries, np.float64) @ metrics.l2_normalise(lookup, np.float64).T
    assert (found == np.argsort(-cos, axis=1)[:, :6]).all()


def test_scores_by_hand(task):
    # q-pos at 0 deg: nearest a(10, pos), b(20, neg), c(35, pos); q-neg at 180: f(170, neg), g(200, pos), h(215, neg)
    w = [3 / 6, 2 / 6, 1 / 6]
    evaluation = task.run(model_encoder(), EvalContext(model_name="model"))
    scores = evaluation.scores["test"]
    p = [w[0] + w[2], w[0] + w[2]]
    assert scores["polarity_score"] == pytest.approx(np.mean(p))
    assert scores["polarity_score_std"] == pytest.approx(0.0)
    # the reference model is the model itself: S = sum w_i cos(angle gap); both queries see gaps 10, 20, 35 deg
    s = sum(wi * math.cos(math.radians(gap)) for wi, gap in zip(w, (10, 20, 35)))
    assert scores["semantic_similarity_score"] == pytest.approx(s, abs=1e-6)
    assert scores["precision_at_3"] == pytest.approx(2 / 3)
    assert scores["mrr_at_3"] == pytest.approx(1.0)
    assert scores["main_score"] == scores["polarity_score"]
    assert evaluation.details["reference_model"] == "model"
    assert evaluation.details["lookup"] == 10 and evaluation.details["queries"] == 2


def test_uniform_weights_option(task):
    """weights="uniform" (what the authors' code computed by default) changes S from the discounted sum to
    the plain mean of the three neighbours' cosines."""
    uniform = dataclasses.replace(task, weights="uniform").run(model_encoder(), EvalContext(model_name="model"))
    gaps = [math.cos(math.radians(gap)) for gap in (10, 20, 35)]
    assert uniform.scores["test"]["semantic_similarity_score"] == pytest.approx(np.mean(gaps), abs=1e-6)
    assert uniform.details["weight_scheme"] == "uniform" and uniform.details["weights"] == pytest.approx([1 / 3] * 3)


def test_ndcg_against_brute_force_ranking(task):
    evaluation = task.run(model_encoder(), EvalContext(model_name="model"))
    labels = {t: y for t, (_, y) in LOOKUP.items()}
    values = []
    for angle, label in QUERIES.values():
        ranked = sorted(LOOKUP, key=lambda t: -math.cos(math.radians(LOOKUP[t][0] - angle)))
        rel = [labels[t] == label for t in ranked[:10]]
        dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel))
        n_rel = sum(y == label for y in labels.values())
        idcg = sum(1 / math.log2(i + 2) for i in range(min(10, n_rel)))
        values.append(dcg / idcg)
    assert evaluation.scores["test"]["ndcg_at_10"] == pytest.approx(np.mean(values))


def test_semantic_score_uses_the_reference_model(task):
    # R rotates everything so that only one item stays near each query: S must follow R, not M.
    ref_table = {t: _circle(a * 2) for t, (a, _) in {**QUERIES, **LOOKUP}.items()}
    reference = TableEncoder(ref_table, "ref")
    context = EvalContext(model_name="tuned", reference_model="base", reference=reference)
    evaluation = task.run(model_encoder(), context)
    w = metrics.linear_discount_weights(3)
    slow = []
    for angle, _ in QUERIES.values():
        ranked = sorted(LOOKUP, key=lambda t: -math.cos(math.radians(LOOKUP[t][0] - angle)))[:3]
        slow.append(sum(w[i] * math.cos(math.radians(2 * (LOOKUP[t][0] - angle))) for i, t in enumerate(ranked)))
    assert evaluation.details["reference_model"] == "base"
    assert evaluation.details["reference_is_model_itself"] is False
    assert evaluation.scores["test"]["semantic_similarity_score"] == pytest.approx(np.mean(slow), abs=1e-6)
    assert reference.asked == 2 + 6  # the queries plus the 6 distinct retrieved items, nothing else


def test_lookup_is_five_times_the_queries_when_train_is_large(tmp_path):
    name = "frozen-retrieval-large"
    rng = np.random.default_rng(0)
    train = [{"text": f"t{i}", "label": int(i % 2)} for i in range(100)]
    test = [{"text": f"q{i}", "label": int(i % 2)} for i in range(6)]
    register_dataset(DatasetSpec(name=name, description="test", kind="classification", label_names=("a", "b"),
                                 license="test", citation="test", load_rows=lambda: {"train": train, "test": test},
                                 validation_fraction=0.0))
    table = {r["text"]: rng.normal(size=4) for r in train + test}
    task = PolarityRetrieval(TaskMetadata(name="r", type="Retrieval", dataset=name, eval_splits=("test",),
                                          main_score="polarity_score", description="test fixture", reference="test"))
    evaluation = task.run(TableEncoder(table, "m"), EvalContext(model_name="m"))
    assert evaluation.details["lookup"] == 30 and evaluation.details["k"] == 16
    assert get_dataset(name).content_hash == evaluation.details["dataset_hash"]


def test_isarcasm_parser(tmp_path):
    path = tmp_path / "frozen_isarcasm.csv"
    path.write_text('text,sarcastic\n"Oh great, another Monday",1\nPinball!,0\nPinball!,0\n" ",0\n', encoding="utf-8")
    assert isarcasm_eval(path) == [{"text": "Oh great, another Monday", "label": 1}, {"text": "Pinball!", "label": 0}]
