"""The issue-54 Meaning families on hand-made fixtures, each golden value derived by hand (comments) or by a
slow, obvious implementation written here: document similarity (Spearman over rated pairs, documents as
units), clustering (V-measure and its pseudo-values), duplicate retrieval (nDCG@10 / MRR@10), and which
datasets each family takes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, register_dataset
from sentibench.evaluation.clustering import ClusteringEvaluator, v_measure_pseudo_values
from sentibench.evaluation.document_similarity import DocumentSimilarityEvaluator
from sentibench.evaluation.duplicate_retrieval import DuplicateRetrievalEvaluator
from sentibench.tasks.base import EvalContext
from sentibench.tasks.registry import all_tasks


class AngleEncoder:
    """Each text is the unit vector at its angle (degrees) in the plane: cos(a - b) is the pair's cosine."""

    name = "angles"

    def __init__(self, angles: dict[str, float]) -> None:
        self.angles = angles

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        radians = np.radians([self.angles[t] for t in texts])
        return np.stack([np.cos(radians), np.sin(radians)], axis=1).astype(np.float32)


# --- document similarity -----------------------------------------------------------------------------------

DOC_ANGLES = {"d0": 0.0, "d1": 20.0, "d2": 50.0, "d3": 90.0}
DOC_PAIRS = [("d0", "d1", 0.9), ("d0", "d2", 0.5), ("d0", "d3", 0.1), ("d1", "d2", 0.6), ("d1", "d3", 0.3),
             ("d2", "d3", 0.7)]


def test_document_similarity_spearman_on_a_hand_made_matrix():
    # angle gaps 20, 50, 90, 30, 70, 40: cosine ranks (ascending) 6, 3, 1, 5, 2, 4; gold ranks 6, 3, 1, 4, 2, 5;
    # d = 0, 0, 0, 1, 0, -1: rho = 1 - 6 * 2 / (6 * 35) = 0.942857...
    first, second, gold = zip(*DOC_PAIRS)
    scored = DocumentSimilarityEvaluator(first, second, np.array(gold), "fixture")(AngleEncoder(DOC_ANGLES))
    assert scored.scores["cosine_spearman"] == pytest.approx(1 - 12 / 210)
    assert scored.details == {"documents": 4, "pairs": 6}
    assert scored.units.unit == "document" and len(scored.units.values) == 4
    assert scored.units.values.mean() == pytest.approx(1 - 12 / 210)


def _weighted_spearman(cosines, gold, first, second, weights):
    """Spearman with pair weights w_first * w_second, the slow way: weighted mid-ranks, weighted Pearson."""
    w = weights[first] * weights[second]

    def ranks(x):
        return np.array([w[x < v].sum() + w[x == v].sum() / 2 for v in x])

    a, b = ranks(cosines), ranks(gold)
    ma, mb = np.average(a, weights=w), np.average(b, weights=w)
    return (np.sum(w * (a - ma) * (b - mb))
            / math.sqrt(np.sum(w * (a - ma) ** 2) * np.sum(w * (b - mb) ** 2)))


def test_document_pseudo_values_are_the_derivatives_of_the_document_weighted_spearman():
    first, second, gold = zip(*DOC_PAIRS)
    scored = DocumentSimilarityEvaluator(first, second, np.array(gold))(AngleEncoder(DOC_ANGLES))
    index = {d: i for i, d in enumerate(DOC_ANGLES)}
    f, s = np.array([index[d] for d in first]), np.array([index[d] for d in second])
    cos = np.array([math.cos(math.radians(DOC_ANGLES[a] - DOC_ANGLES[b])) for a, b in zip(first, second)])
    rho, step = scored.scores["cosine_spearman"], 1e-6
    for unit in range(4):
        weights = np.ones(4)
        weights[unit] += step
        derivative = (_weighted_spearman(cos, np.array(gold), f, s, weights) - rho) / step
        assert scored.units.values[unit] == pytest.approx(rho + 4 * derivative, abs=1e-4)


# --- clustering ----------------------------------------------------------------------------------------------

def _entropy(counts):
    total = sum(counts)
    return -sum(c / total * math.log(c / total) for c in counts if c)


def test_v_measure_of_a_hand_made_two_cluster_fixture():
    labels, clusters = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]
    # contingency: class 0 -> clusters (2, 1); class 1 -> (0, 3). H(C) = ln 2; H(C|K) = 4/6 H(1/4, 3/4);
    # H(K) = H(2/6, 4/6); H(K|C) = 3/6 H(2/3, 1/3)
    homogeneity = 1 - (4 / 6 * _entropy([1, 3])) / math.log(2)
    completeness = 1 - (3 / 6 * _entropy([2, 1])) / _entropy([2, 4])
    expected = 2 * homogeneity * completeness / (homogeneity + completeness)
    v, pseudo = v_measure_pseudo_values(np.array(labels), np.array(clusters))
    assert v == pytest.approx(expected)
    assert pseudo.mean() == pytest.approx(v)  # the derivatives sum to zero (V is scale-free in the counts)


def _weighted_v_measure(labels, clusters, weights):
    """V-measure of a weighted contingency table, from the entropy definitions (Rosenberg & Hirschberg 2007)."""
    classes, groups = sorted(set(labels)), sorted(set(clusters))
    table = [[sum(w for y, k, w in zip(labels, clusters, weights) if y == c and k == g) for g in groups]
             for c in classes]
    total = sum(map(sum, table))
    h_c, h_k = _entropy([sum(row) for row in table]), _entropy([sum(col) for col in zip(*table)])
    h_c_given_k = sum(sum(col) / total * _entropy(col) for col in zip(*table))
    h_k_given_c = sum(sum(row) / total * _entropy(row) for row in table)
    h = 1.0 if h_c == 0 else 1 - h_c_given_k / h_c
    c = 1.0 if h_k == 0 else 1 - h_k_given_c / h_k
    return 0.0 if h + c == 0 else 2 * h * c / (h + c)


def test_v_measure_matches_scikit_learn_and_its_pseudo_values_the_weighted_derivative():
    from sklearn.metrics import v_measure_score

    rng = np.random.default_rng(3)
    labels, clusters = rng.integers(0, 3, 40), rng.integers(0, 4, 40)
    v, pseudo = v_measure_pseudo_values(labels, clusters)
    assert v == pytest.approx(v_measure_score(labels, clusters))
    assert v == pytest.approx(_weighted_v_measure(list(labels), list(clusters), [1.0] * 40))
    step = 1e-6
    for item in (0, 7, 21):
        weights = [1.0] * 40
        weights[item] += step
        derivative = (_weighted_v_measure(list(labels), list(clusters), weights) - v) / step
        assert pseudo[item] == pytest.approx(v + 40 * derivative, abs=1e-4)


def test_clustering_separated_topics_scores_one_and_one_cluster_scores_zero():
    texts = [f"sport {i}" for i in range(6)] + [f"music {i}" for i in range(6)]
    angles = {t: (0.0 if t.startswith("sport") else 90.0) + i for i, t in enumerate(texts)}
    labels = np.array([0] * 6 + [1] * 6)
    scored = ClusteringEvaluator(texts, labels, seed=0, runs=3)(AngleEncoder(angles))
    assert scored.scores["v_measure"] == pytest.approx(1.0) and scored.scores["v_measure_std"] == pytest.approx(0)
    assert scored.details["v_measure_per_run"] == pytest.approx([1.0, 1.0, 1.0])
    assert scored.units.unit == "text" and scored.units.values.mean() == pytest.approx(1.0)
    v, _ = v_measure_pseudo_values(labels, np.zeros(12, dtype=int))  # one cluster: completeness 1, homogeneity 0
    assert v == 0.0


# --- duplicate retrieval --------------------------------------------------------------------------------------

DUP_ANGLES = {"a": 0.0, "a2": 10.0, "b": 100.0, "b2": 130.0, "c": 15.0, "c2": 90.0, "d": 80.0, "d2": 250.0}
DUP_PAIRS = [("a", "a2", 4.5), ("b", "b2", 4.0), ("c", "c2", 3.9), ("d", "d2", 1.0)]


def test_duplicate_retrieval_mrr_and_ndcg_on_hand_made_pairs():
    # duplicates (gold >= 4.0): a <-> a2, b <-> b2; c, d pairs are distractors. Angular gaps give the ranks:
    # a: a2 (10) first -> 1; a2: c (5), a (10) -> 2; b: c2 (10), d (20), b2 (30) -> 3; b2: b (30) first -> 1.
    first, second, gold = zip(*DUP_PAIRS)
    scored = DuplicateRetrievalEvaluator(first, second, np.array(gold), 4.0, "fixture")(AngleEncoder(DUP_ANGLES))
    assert scored.scores["mrr_at_10"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1) / 4)
    assert scored.scores["ndcg_at_10"] == pytest.approx((1 + 1 / math.log2(3) + 1 / math.log2(4) + 1) / 4)
    assert scored.scores["recall_at_10"] == 1.0
    assert scored.details["corpus"] == 8 and scored.details["queries"] == 4
    assert scored.units.unit == "query" and len(scored.units.values) == 4


def test_a_pair_of_identical_texts_is_no_duplicate_query():
    scored = DuplicateRetrievalEvaluator(["x", "y"], ["x", "z"], np.array([5.0, 4.0]))(
        AngleEncoder({"x": 0.0, "y": 50.0, "z": 40.0}))
    assert scored.details["queries"] == 2  # y and z only: x = x retrieves nothing
    assert scored.scores["mrr_at_10"] == 1.0  # y: z (10) before x (50); z: y (10) before x (40)


# --- families ---------------------------------------------------------------------------------------------------

def _pairs_spec(name, tags, rows):
    return DatasetSpec(name=name, description="t", kind="pairs", license="t", citation="t", tags=tags,
                       load_rows=lambda: {"test": rows}, validation_fraction=0.0)


def test_families_pick_documents_topics_and_sentence_pairs_by_their_tags():
    rows = [{"sentence1": a, "sentence2": b, "score": g} for a, b, g in DOC_PAIRS]
    register_dataset(_pairs_spec("doc-pairs", ("sts", "long"), rows))
    register_dataset(_pairs_spec("sentence-pairs", ("sts",), rows))
    register_dataset(_pairs_spec("rewrites", ("rewrite", "long"), rows))
    register_dataset(DatasetSpec(name="topics", description="t", kind="classification", label_names=("x", "y"),
                                 license="t", citation="t", tags=("topic",), load_rows=lambda: {"test": []}))
    tasks = all_tasks()
    assert "docsim-doc-pairs" in tasks and "sts-doc-pairs" not in tasks and "duplicates-doc-pairs" not in tasks
    assert "sts-sentence-pairs" in tasks and "duplicates-sentence-pairs" in tasks
    assert "docsim-sentence-pairs" not in tasks
    assert "docsim-rewrites" in tasks and "clustering-topics" in tasks
    docsim = tasks["docsim-doc-pairs"].run(AngleEncoder(DOC_ANGLES), EvalContext())
    assert docsim.scores["test"]["main_score"] == pytest.approx(1 - 12 / 210)
    assert docsim.details["confidence_interval"]["unit"] == "document"
