"""Chance levels (`Task.chance_level`, docs/benchmarks.md "Chance levels"): per family, a tiny fixture whose chance is
derived by hand in a comment, plus slow, obvious references (every permutation, every ranking) for the estimates
of clustering, duplicate retrieval and polarity retrieval. Offline: the fixtures are registered datasets."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.registry import DATASETS
from sentibench.evaluation import chance, metrics
from sentibench.tasks.alignment import AlignmentUniformity
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.clustering import Clustering
from sentibench.tasks.document_similarity import DocumentSimilarity
from sentibench.tasks.duplicates import DuplicateRetrieval
from sentibench.tasks.fewshot.protocols import INFODCL, SENTICSE
from sentibench.tasks.fewshot.task import FewShotTask
from sentibench.tasks.probe import LinearProbe
from sentibench.tasks.registry import all_tasks
from sentibench.tasks.retrieval import PolarityRetrieval
from sentibench.tasks.senteval import SentEvalTransfer
from sentibench.tasks.sts import STS


def _labelled(name: str, splits: dict[str, list[int]], label_names=("a", "b"), tags=("sentiment",)) -> str:
    """A classification dataset with the given labels per split (distinct texts)."""
    if name not in DATASETS:
        rows = {split: [{"text": f"{name} {split} {i}", "label": y} for i, y in enumerate(labels)]
                for split, labels in splits.items()}
        register_dataset(DatasetSpec(name=name, description="test", kind="classification", label_names=label_names,
                                     license="test", citation="test", tags=tags, load_rows=lambda: rows,
                                     validation_fraction=0.0))
    return name


def _pairs(name: str, rows: list[tuple[str, str, float]]) -> str:
    if name not in DATASETS:
        test = [{"sentence1": a, "sentence2": b, "score": g} for a, b, g in rows]
        register_dataset(DatasetSpec(name=name, description="test", kind="pairs", license="test", citation="test",
                                     tags=("sts",), load_rows=lambda: {"test": test}, validation_fraction=0.0))
    return name


def _meta(name: str, dataset: str, main_score: str, type_: str = "Classification") -> TaskMetadata:
    return TaskMetadata(name=name, type=type_, dataset=dataset, eval_splits=("test",), main_score=main_score,
                        description="test fixture", reference="test")


# --- the base class -----------------------------------------------------------------------------------------------

class Undeclared(Task):
    metadata = _meta("undeclared", "nowhere", "accuracy")

    def evaluate(self, encoder, context: EvalContext) -> Evaluation:
        return Evaluation({"test": {"accuracy": 1.0}})


def test_a_task_that_declares_no_chance_level_says_so():
    with pytest.raises(NotImplementedError, match="'undeclared' declares no chance level"):
        Undeclared().chance_level()


AXIS_PREFIXES = ("sgts-", "retrieval-", "probe-", "senteval-", "sts-", "fewshot-", "docsim-", "clustering-",
                 "duplicates-", "align-")


def test_every_installed_family_declares_one():
    undeclared = [name for name, task in all_tasks().items()
                  if name.startswith(AXIS_PREFIXES) and type(task).chance_level is Task.chance_level]
    assert undeclared == []


# --- correlations: 0 ----------------------------------------------------------------------------------------------

def test_correlation_tasks_have_chance_zero(fixture_task):
    assert fixture_task.chance_level() == 0.0  # SgTS: Spearman of cosine vs 0/1 gold
    assert STS(_meta("sts-x", "none", "cosine_spearman", "STS")).chance_level() == 0.0
    assert DocumentSimilarity(_meta("docsim-x", "none", "cosine_spearman", "STS")).chance_level() == 0.0


# --- accuracies: the majority rate of the scored labels -------------------------------------------------------------

def test_probe_on_splits_scores_the_test_labels():
    # test labels [0, 0, 0, 1]: always predicting 0 is right 3 times in 4 -> 0.75 (train's 1s do not count)
    name = _labelled("chance-probe", {"train": [1, 1, 1, 0, 1, 0], "validation": [0, 1], "test": [0, 0, 0, 1]})
    assert LinearProbe(_meta("probe-x", name, "accuracy")).chance_level() == 0.75


def test_probe_k_fold_pools_every_split_by_folds():
    # 15 zeros and 5 ones over the three splits, 5 stratified folds of 3 zeros + 1 one: 0 is right 3/4 in every
    # fold -> 0.75 (folds = min(10, smallest class count 5) = 5)
    name = _labelled("chance-probe-folds", {"train": [0] * 9 + [1] * 3, "validation": [0] * 3 + [1],
                                            "test": [0] * 3 + [1]})
    assert LinearProbe(_meta("probe-y", name, "accuracy"), folds=10).chance_level() == pytest.approx(0.75)


def test_kfold_majority_rate_is_the_fold_mean_of_the_pooled_majority():
    # 7 zeros, 3 ones, 3 folds: StratifiedKFold gives folds of 4, 3, 3; whatever their split, the fold mean
    # of the zeros' rate is computed here by hand from the evaluator's own folds
    from sklearn.model_selection import StratifiedKFold

    labels = np.array([0] * 7 + [1] * 3)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(np.zeros(10), labels)
    by_hand = np.mean([np.mean(labels[test] == 0) for _, test in folds])
    assert chance.kfold_majority_rate(labels, 3, 0) == pytest.approx(by_hand)
    assert abs(by_hand - 0.7) < 0.05  # near the pooled rate 7/10, not equal: folds of unequal size


@pytest.mark.parametrize("protocol", ["cv-then-test", "splits"])
def test_senteval_test_protocols_score_the_test_labels(protocol):
    # test labels [2, 2, 0, 1, 2]: class 2 three times in five -> 0.6
    name = _labelled(f"chance-senteval-{protocol}", {"train": [0, 1, 2] * 4, "validation": [0, 1, 2],
                                                     "test": [2, 2, 0, 1, 2]}, ("a", "b", "c"), ("senteval",))
    assert SentEvalTransfer(_meta("senteval-x", name, "accuracy"), protocol=protocol).chance_level() == 0.6


def test_senteval_kfold_pools_the_splits():
    # 20 zeros, 10 ones pooled; 10 stratified folds of 2 zeros + 1 one -> 2/3 in each fold
    name = _labelled("chance-senteval-kfold", {"train": [0] * 14 + [1] * 7, "validation": [0] * 2 + [1],
                                               "test": [0] * 4 + [1] * 2}, tags=("senteval",))
    assert SentEvalTransfer(_meta("senteval-y", name, "accuracy"), protocol="kfold").chance_level() == \
        pytest.approx(2 / 3)


def test_senteval_pairs_score_the_test_pairs():
    # test pair labels [1, 1, 1, 0]: "paraphrase" 3 times in 4 -> 0.75
    name = "chance-senteval-pairs"
    if name not in DATASETS:
        rows = {"train": [{"sentence1": f"a{i}", "sentence2": f"b{i}", "score": float(i % 2)} for i in range(10)],
                "test": [{"sentence1": f"c{i}", "sentence2": f"d{i}", "score": s} for i, s in enumerate([1, 1, 1, 0])]}
        register_dataset(DatasetSpec(name=name, description="test", kind="pairs", license="test", citation="test",
                                     tags=("senteval",), load_rows=lambda: rows, validation_fraction=0.0))
    task = SentEvalTransfer(_meta("senteval-z", name, "accuracy", "PairClassification"), protocol="cv-then-test")
    assert task.chance_level() == 0.75


def test_fewshot_chance_follows_the_training_draw():
    # test labels [0, 0, 0, 1, 2, 2]. SentiCSE draws K per class: a text-blind classifier guesses uniformly, 1/3
    # accuracy. InfoDCL draws N with the prior: it guesses from the prior, per-class F1 p_c, macro-F1 1/3. The
    # fine-tuned task and its frozen twin score the same test labels, so they share the chance.
    name = _labelled("chance-fewshot", {"train": [0, 1, 2] * 30, "validation": [0, 1, 2] * 3,
                                        "test": [0, 0, 0, 1, 2, 2]}, ("a", "b", "c"))
    for frozen in (True, False):
        assert FewShotTask(SENTICSE, 1, name, frozen=frozen).chance_level() == pytest.approx(1 / 3)
        assert FewShotTask(INFODCL, 20, name, frozen=frozen).chance_level() == pytest.approx(1 / 3)


def test_the_chance_formulas_are_what_the_text_blind_predictors_score():
    # checked by simulation with scikit-learn's own metrics on a 60/30/10 test set: uniform guessing tends to
    # accuracy 1/3; guessing from the prior tends to per-class F1 p_c, so macro-F1 1/3
    from sklearn.metrics import accuracy_score, f1_score

    rng = np.random.default_rng(0)
    prior = [0.6, 0.3, 0.1]
    gold = rng.choice(3, size=200_000, p=prior)
    assert accuracy_score(gold, rng.choice(3, size=gold.size)) == pytest.approx(chance.uniform_accuracy(gold), abs=0.01)
    guesses = rng.choice(3, size=gold.size, p=prior)
    assert f1_score(gold, guesses, average="macro") == pytest.approx(chance.prior_guess_macro_f1(gold), abs=0.01)


# --- polarity retrieval: a random neighbour's label agreement -------------------------------------------------------

def test_retrieval_chance_uses_the_protocol_s_queries_and_lookup():
    # queries (test) [0, 0, 0, 1], lookup (all of train, 4 < 5 x 4) [0, 1, 1, 1]: a query of class 0 (3/4 of them)
    # meets a 0 with probability 1/4, a query of class 1 meets a 1 with 3/4: 3/4 * 1/4 + 1/4 * 3/4 = 3/8
    name = _labelled("chance-retrieval", {"train": [0, 1, 1, 1], "test": [0, 0, 0, 1]})
    task = PolarityRetrieval(_meta("retrieval-x", name, "polarity_score", "Retrieval"), k=3)
    assert task.chance_level() == pytest.approx(3 / 8)
    # the obvious reference: every ordering of the lookup, equally likely, scored by P@3 with the linear discount
    queries, lookup = np.array([0, 0, 0, 1]), np.array([0, 1, 1, 1])
    weights = metrics.rank_weights(3)
    scores = [metrics.polarity_scores(queries, np.tile(lookup[list(order[:3])], (4, 1)), weights).mean()
              for order in itertools.permutations(range(4))]
    assert np.mean(scores) == pytest.approx(3 / 8)


def test_leave_one_out_agreement_on_a_two_plus_two_set():
    # labels [0, 0, 1, 1], each query excluded from its candidates: 1 of the 3 others shares its label -> 1/3
    labels = np.array([0, 0, 1, 1])
    assert chance.random_neighbour_agreement(labels, labels, leave_one_out=True) == pytest.approx(1 / 3)


# --- clustering: a random partition with the true sizes -------------------------------------------------------------

def _entropy(counts) -> float:
    total = sum(counts)
    return -sum(c / total * math.log(c / total) for c in counts if c)


def _v_measure(labels, clusters) -> float:
    """V-measure from the entropy definitions (Rosenberg & Hirschberg 2007), slowly."""
    table = [[sum(1 for y, k in zip(labels, clusters) if y == c and k == g) for g in sorted(set(clusters))]
             for c in sorted(set(labels))]
    total = sum(map(sum, table))
    h_c, h_k = _entropy([sum(row) for row in table]), _entropy([sum(col) for col in zip(*table)])
    h = 1.0 if h_c == 0 else 1 - sum(sum(col) / total * _entropy(col) for col in zip(*table)) / h_c
    c = 1.0 if h_k == 0 else 1 - sum(sum(row) / total * _entropy(row) for row in table) / h_k
    return 0.0 if h + c == 0 else 2 * h * c / (h + c)


def test_clustering_chance_matches_an_explicit_loop_and_the_exact_expectation():
    # labels [0, 0, 1, 1]: of the 6 distinct arrangements, 2 ([0,0,1,1], [1,1,0,0]) reproduce the partition
    # (V = 1) and 4 split each class across both clusters (contingency [[1,1],[1,1]]: h = c = 0, V = 0) -> 1/3
    name = _labelled("chance-clustering", {"train": [0, 1], "test": [0, 0, 1, 1]}, tags=("topic",))
    value = Clustering(_meta("clustering-x", name, "v_measure", "Clustering")).chance_level()
    labels = [0, 0, 1, 1]
    rng = np.random.default_rng(0)
    loop = sum(_v_measure(labels, list(rng.permutation(labels))) for _ in range(200)) / 200
    assert value == pytest.approx(loop)
    exact = np.mean([_v_measure(labels, list(p)) for p in set(itertools.permutations(labels))])
    assert exact == pytest.approx(1 / 3)
    assert abs(value - exact) < 0.1  # 200 Bernoulli(1/3) draws: SD 0.033


def test_clustering_estimate_agrees_with_every_arrangement_on_three_uneven_clusters():
    labels = [0, 0, 0, 1, 1, 2]  # 6! / (3! 2! 1!) = 60 arrangements
    exact = np.mean([_v_measure(labels, list(p)) for p in set(itertools.permutations(labels))])
    assert chance.random_partition_v_measure(np.array(labels)) == pytest.approx(exact, abs=0.03)


# --- duplicate retrieval: a random ranking's nDCG@10 ----------------------------------------------------------------

DUP_PAIRS = [("a", "b", 5.0), ("a", "c", 4.5), ("d", "e", 1.0)]


def _exhaustive_ndcg(relevant: set[int], candidates: int) -> float:
    """Mean nDCG@10 over every ranking of the candidates (numbered 0..candidates-1)."""
    rankings = list(itertools.permutations(range(candidates)))
    flags = np.array([[doc in relevant for doc in order] for order in rankings])
    return float(metrics.ndcg_at_k(flags, 10, np.full(len(rankings), len(relevant))).mean())


def test_duplicates_chance_is_the_exact_expectation_over_rankings():
    # corpus a, b, c, d, e; duplicates a: {b, c}, b: {a}, c: {a}; each query ranks the 4 others.
    # R = 1 of N = 4: E[DCG] = (1/4)(1 + 1/log2 3 + 1/2 + 1/log2 5), ideal 1.
    # R = 2 of 4: (2/4)(the same sum) over the ideal 1 + 1/log2 3.
    total = 1 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    one, two = total / 4, (total / 2) / (1 + 1 / math.log2(3))
    assert _exhaustive_ndcg({0}, 4) == pytest.approx(one)
    assert _exhaustive_ndcg({0, 1}, 4) == pytest.approx(two)
    name = _pairs("chance-duplicates", DUP_PAIRS)
    task = DuplicateRetrieval(_meta("duplicates-x", name, "ndcg_at_10", "Retrieval"))
    assert task.chance_level() == pytest.approx((two + one + one) / 3)


def test_random_ranking_ndcg_beyond_the_cutoff():
    # 1 relevant among 20: each of the first 10 ranks holds it with probability 1/20
    expected = sum(1 / math.log2(i + 1) for i in range(1, 11)) / 20
    assert chance.random_ranking_ndcg(np.array([1]), np.array([20])) == pytest.approx(expected)


# --- diagnostics: none ---------------------------------------------------------------------------------------------

def test_alignment_diagnostics_have_no_chance_level():
    assert math.isnan(AlignmentUniformity(_meta("align-x", "none", "tolerance", "Geometry")).chance_level())
