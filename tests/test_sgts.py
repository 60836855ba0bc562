import math

import numpy as np
import pytest

from sentibench.errors import BenchError
from sentibench.tasks.base import EvalContext
from sentibench.tasks.sgts import build_pairs, sgts_scores


def test_sgts_scores_worked_by_hand():
    # Four pairs: gold [1, 1, 0, 0]; the embeddings give cosines [0.9, 0.8, 0.1, 0.7].
    # Ranks of the cosines: [4, 3, 1, 2] (mean 2.5, deviations [1.5, 0.5, -1.5, -0.5]);
    # tied ranks of the gold: [3.5, 3.5, 1.5, 1.5] (deviations [1, 1, -1, -1]).
    # rho = (1.5 + 0.5 + 1.5 + 0.5) / sqrt((2.25 + 0.25 + 2.25 + 0.25) * 4) = 4 / sqrt(20) = 2 / sqrt(5).
    unit = np.array([[1.0, 0.0]] * 4)
    cosines = [0.9, 0.8, 0.1, 0.7]
    other = np.array([[c, math.sqrt(1 - c * c)] for c in cosines])
    scores = sgts_scores(unit, other, [1, 1, 0, 0])
    assert scores["cosine_spearman"] == pytest.approx(2 / math.sqrt(5))
    assert scores["main_score"] == scores["cosine_spearman"]
    # Pearson by hand: cos mean 0.625, deviations [.275, .175, -.525, .075]; gold deviations [.5, .5, -.5, -.5]
    cov = (0.275 + 0.175 + 0.525 - 0.075) * 0.5
    var_c = 0.275**2 + 0.175**2 + 0.525**2 + 0.075**2
    assert scores["cosine_pearson"] == pytest.approx(cov / math.sqrt(var_c * 1.0))


def test_sgts_scores_undefined_is_none_not_nan():
    same = np.ones((4, 3))
    scores = sgts_scores(same, same, [1, 0, 1, 0])
    assert scores["cosine_spearman"] is None and scores["main_score"] is None


def test_pairs_are_balanced_disjoint_and_seeded():
    labels = [1] * 10 + [0] * 14
    pairs = build_pairs(labels, seed=3)
    assert len(pairs) == 4 * (10 // 4)
    assert sum(g for _, _, g in pairs) == len(pairs) // 2
    used = [i for i, _, _ in pairs] + [j for _, j, _ in pairs]
    assert len(used) == len(set(used)), "every sentence appears in at most one pair"
    for i, j, gold in pairs:
        assert gold == int(labels[i] == labels[j])
    assert build_pairs(labels, seed=3) == pairs
    assert build_pairs(labels, seed=4) != pairs
    assert len(build_pairs(labels, seed=3, max_pairs=4)) == 4


def test_pairs_need_two_polarities_with_enough_sentences():
    with pytest.raises(BenchError, match="two polarities"):
        build_pairs([1, 1, 1, 1], seed=0)
    with pytest.raises(BenchError, match="at least 4"):
        build_pairs([1, 1, 0, 0, 0, 0], seed=0)


def test_sgts_task_golden_score_with_fake_encoder(fixture_task, fake_encoder):
    evaluation = fixture_task.evaluate(fake_encoder, EvalContext(seed=0))
    assert evaluation.details["n_pairs"] == 8 and evaluation.details["n_same"] == 4
    # The fake encoder separates polarity words perfectly: every same-polarity pair has a higher cosine
    # than every mixed pair, so rho is the maximum a 0/1 gold allows. Cosine ranks 1..8 (deviations
    # +-0.5, 1.5, 2.5, 3.5), tied gold ranks 2.5 / 6.5 (deviations +-2): rho = 32 / sqrt(42 * 32) = sqrt(32/42).
    assert evaluation.scores["test"]["cosine_spearman"] == pytest.approx(math.sqrt(32 / 42))
    assert evaluation.scores["test"]["cosine_pearson"] == pytest.approx(0.9994265, abs=1e-6)  # golden: pins the pairing and cosines
    assert fake_encoder.calls == 1, "each distinct sentence is encoded once, in one call"
