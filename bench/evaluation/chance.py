"""Chance levels: the expected main score of a model that ignores the text, from the labels a protocol scores on
(`Task.chance_level`; docs/benchmarks.md, "Chance levels"). Pure functions of labels; each task family reads its
labels the way its `evaluate` does and calls the one that fits its metric.
"""

from __future__ import annotations

import numpy as np

PERMUTATIONS = 200  # random partitions averaged for a clustering's chance V-measure
PERMUTATION_SEED = 0


def majority_rate(labels: np.ndarray) -> float:
    """Accuracy of always predicting the most frequent label of `labels`."""
    counts = np.unique(np.asarray(labels), return_counts=True)[1]
    return float(counts.max() / counts.sum())


def kfold_majority_rate(labels: np.ndarray, folds: int, seed: int) -> float:
    """A k-fold score's chance: the pooled majority class's rate in each held-out fold of the evaluator's
    `StratifiedKFold(folds, shuffle=True, random_state=seed)`, averaged over folds as the score averages fold
    accuracies (equal to the pooled majority rate when the folds have equal sizes)."""
    from sklearn.model_selection import StratifiedKFold

    labels = np.asarray(labels)
    classes, counts = np.unique(labels, return_counts=True)
    majority = classes[counts.argmax()]
    splits = StratifiedKFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(labels)), labels)
    return float(np.mean([np.mean(labels[test] == majority) for _, test in splits]))


def uniform_accuracy(labels: np.ndarray) -> float:
    """1/C over the C classes of `labels`: a classifier trained on K examples of every class that ignores the
    text has no class to prefer, so it guesses uniformly: expected accuracy sum_c p_c / C = 1/C, whatever the
    test set's balance."""
    return 1.0 / len(np.unique(np.asarray(labels)))


def prior_guess_macro_f1(labels: np.ndarray) -> float:
    """1/C over the C classes of `labels`: a classifier trained on examples drawn with the class prior that ignores
    the text guesses from that prior, so class c's expected precision and recall are both p_c, its F1 p_c, and
    their unweighted mean 1/C whatever the balance."""
    return 1.0 / len(np.unique(np.asarray(labels)))


def random_neighbour_agreement(query_labels: np.ndarray, lookup_labels: np.ndarray,
                               leave_one_out: bool = False) -> float:
    """The rate at which a uniformly random lookup item shares its query's label, averaged over queries: the
    chance of a rank-weighted P@k whose weights sum to 1 (every rank's neighbour is uniform over the lookup).
    Disjoint queries and lookup: sum_c (q_c / Q)(l_c / L). `leave_one_out` (the queries are the lookup, each
    excluded from its own candidates): sum_c (n_c / N)(n_c - 1) / (N - 1)."""
    queries, lookup = np.asarray(query_labels), np.asarray(lookup_labels)
    classes, lookup_counts = np.unique(lookup, return_counts=True)
    count_of = dict(zip(classes.tolist(), lookup_counts.tolist()))
    same = np.array([count_of.get(label, 0) for label in queries.tolist()], dtype=np.float64)
    if leave_one_out:
        return float(np.mean((same - 1) / (len(lookup) - 1)))
    return float(np.mean(same / len(lookup)))


def random_partition_v_measure(labels: np.ndarray, permutations: int = PERMUTATIONS,
                               seed: int = PERMUTATION_SEED) -> float:
    """Expected V-measure (scikit-learn's `v_measure_score`) of a random partition with the true cluster sizes,
    a random permutation of the labels scored against them: the mean over `permutations` permutations drawn
    with `numpy.random.default_rng(seed)`."""
    from sklearn.metrics import v_measure_score

    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    return float(np.mean([v_measure_score(labels, rng.permutation(labels)) for _ in range(permutations)]))


def random_ranking_ndcg(relevant: np.ndarray, candidates: np.ndarray, k: int = 10) -> float:
    """Expected binary-relevance nDCG@k of a uniformly random ranking, averaged over queries: a query with R
    relevant among N candidates has each of its first min(k, N) ranks relevant with probability R/N, so
    E[DCG@k] = sum_{i <= min(k, N)} (R/N) / log2(i + 1), over the ideal DCG of min(R, k) relevant first
    (`metrics.ndcg_at_k`'s)."""
    relevant, candidates = np.asarray(relevant, dtype=np.float64), np.asarray(candidates)
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    cumulative = np.concatenate([[0.0], np.cumsum(discounts)])
    expected = relevant / candidates * cumulative[np.minimum(candidates, k)]
    ideal = cumulative[np.minimum(relevant.astype(int), k)]
    return float(np.mean(np.divide(expected, ideal, out=np.zeros_like(expected), where=ideal > 0)))
