"""The hand-written metrics against slow, obvious loops on tiny tensors, plus a few hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sentibench.evaluation import metrics


def _unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


@pytest.fixture
def cloud():
    rng = np.random.default_rng(7)
    return rng.normal(size=(9, 5)).astype(np.float32), np.array([0, 1, 0, 2, 1, 0, 2, 2, 1])


def test_weights_match_the_paper_formula_and_sum_to_one():
    for k in (1, 2, 5, 16):
        slow = [2 * (k + 1 - i) / (k * (k + 1)) for i in range(1, k + 1)]
        assert metrics.linear_discount_weights(k) == pytest.approx(slow)
        assert metrics.linear_discount_weights(k).sum() == pytest.approx(1.0)
    assert metrics.linear_discount_weights(3) == pytest.approx([3 / 6, 2 / 6, 1 / 6])


def test_polarity_score_against_a_loop():
    rng = np.random.default_rng(0)
    queries = rng.integers(0, 2, size=6)
    neighbours = rng.integers(0, 2, size=(6, 4))
    w = [2 * (4 + 1 - i) / (4 * 5) for i in range(1, 5)]
    slow = [sum(w[i] * (neighbours[q, i] == queries[q]) for i in range(4)) for q in range(6)]
    assert metrics.polarity_scores(queries, neighbours) == pytest.approx(slow)
    # all neighbours agree -> 1; only the first of k=3 agrees -> 3/6
    assert metrics.polarity_scores(np.array([1, 1]), np.array([[1, 1, 1], [1, 0, 0]])) == pytest.approx([1.0, 0.5])


def test_semantic_score_against_a_loop():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(3, 4))
    nb = rng.normal(size=(3, 5, 4))
    w = metrics.linear_discount_weights(5)
    slow = [sum(w[i] * float(_unit(q[a]) @ _unit(nb[a, i])) for i in range(5)) for a in range(3)]
    assert metrics.semantic_scores(q, nb) == pytest.approx(slow, abs=1e-6)


def _slow_ndcg(rel, k, n_rel):
    dcg = sum(rel[i] / math.log2(i + 2) for i in range(min(k, len(rel))))
    idcg = sum(1 / math.log2(i + 2) for i in range(min(k, n_rel)))
    return dcg / idcg if idcg else 0.0


def test_ranking_metrics_against_loops():
    rng = np.random.default_rng(2)
    relevant = rng.random((8, 12)) < 0.4
    relevant[0] = False
    n_relevant = relevant.sum(1) + rng.integers(0, 5, size=8)
    for k in (1, 3, 10, 12):
        slow_p = [relevant[q, :k].mean() for q in range(8)]
        slow_mrr = [next((1 / (i + 1) for i in range(k) if relevant[q, i]), 0.0) for q in range(8)]
        slow_ndcg = [_slow_ndcg(relevant[q], k, int(n_relevant[q])) for q in range(8)]
        assert metrics.precision_at_k(relevant, k) == pytest.approx(slow_p)
        assert metrics.mrr_at_k(relevant, k) == pytest.approx(slow_mrr)
        assert metrics.ndcg_at_k(relevant, k, n_relevant) == pytest.approx(slow_ndcg)


def test_ndcg_hand_values():
    # relevant at ranks 2 and 3 of 3, two relevant in total: (1/log2 3 + 1/2) / (1 + 1/log2 3)
    expected = (1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3))
    assert metrics.ndcg_at_k(np.array([[0, 1, 1]]), 3, np.array([2]))[0] == pytest.approx(expected)
    assert metrics.ndcg_at_k(np.array([[1, 1, 0]]), 3, np.array([2]))[0] == pytest.approx(1.0)


def _pairs(labels, same_only):
    n = len(labels)
    return [(i, j) for i in range(n) for j in range(i + 1, n) if not same_only or labels[i] == labels[j]]


def test_alignment_uniformity_tolerance_against_loops(cloud):
    x, labels = cloud
    u = [_unit(row) for row in x]
    same = _pairs(labels, True)
    every = _pairs(labels, False)
    slow_align = np.mean([np.linalg.norm(u[i] - u[j]) ** 2 for i, j in same])
    slow_align3 = np.mean([np.linalg.norm(u[i] - u[j]) ** 3 for i, j in same])
    slow_unif = math.log(np.mean([math.exp(-2 * np.linalg.norm(u[i] - u[j]) ** 2) for i, j in every]))
    slow_tol = np.mean([float(u[i] @ u[j]) for i, j in same])
    assert metrics.alignment(x, labels) == pytest.approx(slow_align, rel=1e-6)
    assert metrics.alignment(x, labels, alpha=3) == pytest.approx(slow_align3, rel=1e-6)
    assert metrics.uniformity(x) == pytest.approx(slow_unif, rel=1e-6)
    assert metrics.tolerance(x, labels) == pytest.approx(slow_tol, rel=1e-6)


def test_geometry_extremes():
    collapsed = np.ones((4, 3))
    labels = np.array([0, 0, 1, 1])
    assert metrics.alignment(collapsed, labels) == pytest.approx(0.0)
    assert metrics.tolerance(collapsed, labels) == pytest.approx(1.0)
    assert metrics.uniformity(collapsed) == pytest.approx(0.0)
    # two antipodal points: ||x - y||^2 = 4 -> uniformity = -8
    assert metrics.uniformity(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(-8.0)
    with pytest.raises(ValueError):
        metrics.alignment(np.eye(2), np.array([0, 1]))


def test_pearson_hand_value_and_scipy():
    from scipy import stats

    # x = (1, 2, 3, 4), y = (0, 0, 1, 1): centred (-1.5, -0.5, 0.5, 1.5) and (-0.5, -0.5, 0.5, 0.5);
    # <x, y> = 2, |x|^2 = 5, |y|^2 = 1, so r = 2 / sqrt(5)
    assert metrics.pearson(np.array([1.0, 2, 3, 4]), np.array([0.0, 0, 1, 1])) == pytest.approx(2 / math.sqrt(5),
                                                                                                 abs=1e-15)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=500), (rng.random(500) < 0.3).astype(float)
    assert metrics.pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-14)
    assert metrics.correlations(x, y, spearman=False) == {"cosine_spearman": None,
                                                          "cosine_pearson": pytest.approx(metrics.pearson(x, y))}
