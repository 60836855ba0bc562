import math

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.data import get_dataset
from sentibench.evaluation.sgts import all_pairs, build_pairs, pair_unit_sums, paper_pairs, sgts_all_pairs, sgts_scores
from sentibench.tasks.base import EvalContext


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
    # 16 test sentences, 8 per class: all 16 * 15 / 2 = 120 pairs, 2 * (8 * 7 / 2) = 56 of them same-polarity.
    assert evaluation.details["n_pairs"] == 120 and evaluation.details["n_same"] == 56
    # The fake encoder separates polarity words perfectly: every same-polarity pair has a higher cosine
    # than every mixed pair. Cosine ranks 1..n, the n1 = 56 same pairs on top: mean rank of the same pairs
    # minus that of the mixed ones is n/2, the rank SD is sqrt((n^2 - 1)/12) and the gold SD sqrt(p(1-p)),
    # p = n1/n, so rho = (n/2) sqrt(p(1-p)) / sqrt((n^2 - 1)/12) = sqrt(3 n^2 p(1-p) / (n^2 - 1)).
    n, p = 120, 56 / 120
    assert evaluation.scores["test"]["cosine_spearman"] == pytest.approx(math.sqrt(3 * n**2 * p * (1 - p) / (n**2 - 1)))
    # Pearson from a slow, independent computation over every pair of the 16 sentences (pure Python).
    rows = get_dataset("fixture-reviews").split("test")
    texts, labels = list(rows["text"]), list(rows["label"])
    vectors = dict(zip(texts, fake_encoder.encode(texts).tolist()))

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))

    pairs = [(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))]
    xs = [cosine(vectors[texts[i]], vectors[texts[j]]) for i, j in pairs]
    ys = [float(labels[i] == labels[j]) for i, j in pairs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slow = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(
        sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    assert evaluation.scores["test"]["cosine_pearson"] == pytest.approx(slow, abs=1e-9)
    assert fake_encoder.calls == 2, "the task encodes each distinct sentence once, in one call (+1 above)"
    interval = evaluation.details["confidence_interval"]
    assert interval["unit"] == "sentence" and interval["n_units"] == 16
    rho = evaluation.scores["test"]["cosine_spearman"]
    assert interval["low"] - 1e-12 <= rho <= interval["high"] + 1e-12  # perfect separation: a point interval


def test_all_pairs_are_every_pair_of_the_balanced_set():
    labels = [1] * 5 + [0] * 7
    sentences, pairs = all_pairs(labels, seed=2)
    # m = 5 per class; 10 sentences; 45 pairs: 2 * 10 same-polarity, 25 mixed.
    assert len(sentences) == 10 and sorted(np.asarray(labels)[sentences]) == [0] * 5 + [1] * 5
    assert {tuple(p) for p in pairs.tolist()} == {(i, j) for i in range(10) for j in range(i + 1, 10)}
    same = sum(labels[sentences[i]] == labels[sentences[j]] for i, j in pairs)
    assert same == 20
    again, _ = all_pairs(labels, seed=2)
    assert again.tolist() == sentences.tolist()


def test_all_pairs_scoring_reads_the_same_pairs_as_the_pair_list(fake_encoder):
    """The task's row-by-row cosines and gold, pair by pair, against `all_pairs`'s list and a loop."""
    texts = [f"sentence {i}" for i in range(11)]
    labels = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    details, cosines, gold = sgts_all_pairs(fake_encoder, texts, labels, seed=4)
    sentences, pairs = all_pairs(labels, seed=4)
    assert len(cosines) == len(gold) == len(pairs)
    vectors = fake_encoder.encode([texts[i] for i in sentences]).astype(np.float64)
    for k, (i, j) in enumerate(pairs.tolist()):
        a, b = vectors[i], vectors[j]
        assert cosines[k] == pytest.approx(float(a @ b) / math.sqrt(float(a @ a) * float(b @ b)), abs=1e-12)
        assert gold[k] == float(labels[sentences[i]] == labels[sentences[j]])
    assert details["n_pairs"] == 45 and details["n_same"] == 20


@pytest.mark.parametrize("n", [2, 3, 10, 37])
def test_pair_unit_sums_are_bincounts_over_the_pair_list_to_the_last_bit(n):
    """Per-sentence sums over the row-by-row layout against the obvious bincount over triu_indices (same
    additions in the same order, so equal bits, not just close values)."""
    per_pair = np.random.default_rng(n).normal(size=n * (n - 1) // 2) * 1e-3
    first, second = np.triu_indices(n, k=1)
    expected = np.bincount(first, weights=per_pair, minlength=n) + np.bincount(second, weights=per_pair, minlength=n)
    assert np.array_equal(pair_unit_sums(per_pair, n), expected)
    slow = [sum(per_pair[k] for k in range(len(first)) if s in (first[k], second[k])) for s in range(n)]
    assert pair_unit_sums(per_pair, n) == pytest.approx(slow, abs=1e-15)


def test_paper_design_uses_each_sentence_once():
    labels = [1] * 9 + [0] * 12
    pairs = paper_pairs(labels, seed=1)
    used = [i for i, _, _ in pairs] + [j for _, j, _ in pairs]
    assert len(pairs) == 9 and len(set(used)) == 18, "m = 9 per class -> 18 sentences in 9 disjoint pairs"
    assert all(gold == int(labels[i] == labels[j]) for i, j, gold in pairs)


def test_sampled_design_is_version_one_bit_for_bit():
    """The sampled design (protocol version 1) still draws the pairs the committed v1 results hash."""
    labels = [1] * 10 + [0] * 14
    pairs = build_pairs(labels, seed=3)
    assert pairs[:3] == [(8, 19, 0), (18, 13, 1), (2, 23, 0)]  # from the version-1 code (commit 0b6a7a6)
