import math

import numpy as np
import pytest

from sentibench.data import get_dataset
from sentibench.errors import BenchError
from sentibench.tasks.base import EvalContext
from sentibench.sgts import build_pairs, sgts_scores


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
    # Pearson by hand: cos mean 0.625, deviations [.275, .175, -.525, .075]; gold deviations [.5, .5, -.5, -.5]
    cov = (0.275 + 0.175 + 0.525 - 0.075) * 0.5
    var_c = 0.275**2 + 0.175**2 + 0.525**2 + 0.075**2
    assert scores["cosine_pearson"] == pytest.approx(cov / math.sqrt(var_c * 1.0))


def test_sgts_scores_undefined_is_none_not_nan():
    same = np.ones((4, 3))
    scores = sgts_scores(same, same, [1, 0, 1, 0])
    assert scores["cosine_spearman"] is None and scores["cosine_pearson"] is None


def test_pairs_are_balanced_distinct_and_seeded():
    labels = [1] * 10 + [0] * 14
    pairs = build_pairs(labels, seed=3)
    # m = 10 sentences per class; q = min(4000 // 4, 10 * 9 / 2) = 45 pairs of each same-polarity kind
    assert len(pairs) == 4 * 45 and sum(g for _, _, g in pairs) == 2 * 45
    assert len({frozenset((i, j)) for i, j, _ in pairs}) == len(pairs), "no pair repeats"
    assert all(i != j for i, j, _ in pairs)
    for i, j, gold in pairs:
        assert gold == int(labels[i] == labels[j])
    used = {i for i, _, _ in pairs} | {j for _, j, _ in pairs}
    assert sum(labels[i] for i in used) == len(used) // 2, "the sentence set is balanced"
    assert build_pairs(labels, seed=3) == pairs
    assert build_pairs(labels, seed=4) != pairs
    small = build_pairs(labels, seed=3, n_pairs=8, max_per_class=4)
    assert len(small) == 8 and len({i for i, _, _ in small} | {j for _, j, _ in small}) <= 8


def test_pairs_need_two_polarities_with_enough_sentences():
    with pytest.raises(BenchError, match="two polarities"):
        build_pairs([1, 1, 1, 1], seed=0)
    with pytest.raises(BenchError, match="at least 2"):
        build_pairs([1, 0, 0, 0], seed=0)


def test_sgts_task_golden_score_with_fake_encoder(fixture_task, fake_encoder):
    evaluation = fixture_task.run(fake_encoder, EvalContext(seed=0))
    # 16 test sentences, 8 per class: q = min(1000, 8 * 7 / 2) = 28 -> 112 pairs, half of them same-polarity.
    assert evaluation.details["n_pairs"] == 112 and evaluation.details["n_same"] == 56
    # The fake encoder separates polarity words perfectly: every same-polarity pair has a higher cosine
    # than every mixed pair, so rho is the maximum a balanced 0/1 gold allows over n pairs. Cosine ranks
    # 1..n; tied gold ranks sit n/4 either side of the mean: sum(dev_c * dev_g) = n^3/16,
    # sum(dev_c^2) = n(n^2 - 1)/12, sum(dev_g^2) = n^3/16, so rho = sqrt(3 n^2 / (4 (n^2 - 1))).
    n = 112
    rho_max = math.sqrt(3 * n**2 / (4 * (n**2 - 1)))
    assert evaluation.scores["test"]["cosine_spearman"] == pytest.approx(rho_max)
    # Pearson from a slow, independent computation over the same pairs (pure Python cosines and formula).
    rows = get_dataset("fixture-reviews").split("test")
    texts, labels = list(rows["text"]), list(rows["label"])
    pairs = build_pairs(labels, seed=0)
    vectors = dict(zip(texts, fake_encoder.encode(texts).tolist()))

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))

    xs = [cosine(vectors[texts[i]], vectors[texts[j]]) for i, j, _ in pairs]
    ys = [float(gold) for _, _, gold in pairs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slow = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(
        sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    assert evaluation.scores["test"]["cosine_pearson"] == pytest.approx(slow, abs=1e-9)
    assert fake_encoder.calls == 2, "the task encodes each distinct sentence once, in one call (+1 above)"
