"""The C search (`classifiers.c_search`, behind every probe and SentEval protocol) gives the answers of the
obvious algorithm it replaced, bit for bit: scikit-learn's `LogisticRegressionCV` over the grid, fitted again
over the whole widened grid while its choice is an improving edge. Small random data: both directions of
widening, two and three classes, standardised and raw features, refit and dev-split."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import PredefinedSplit, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sentibench.evaluation.classifiers import C_GRID, MAX_ITER, c_search, kfold_protocol, split_protocol

RAW_GRID = tuple(2.0 ** p for p in range(-2, 11))


def reference_search(x, y, cv, seed, grid, refit=True, standardise=True):
    """The old algorithm, plainly: (C, mean accuracy by C, fitted pipeline) of the last widened search."""
    while True:
        search = LogisticRegressionCV(Cs=list(grid), cv=cv, scoring="accuracy", max_iter=MAX_ITER, refit=refit,
                                      random_state=seed, use_legacy_attributes=False, l1_ratios=(0.0,))
        model = (make_pipeline(StandardScaler(), search) if standardise else make_pipeline(search)).fit(x, y)
        by_c = np.asarray(search.scores_).reshape(-1, len(search.Cs_)).mean(axis=0)
        best, ordered = float(np.ravel(search.C_)[0]), sorted(grid)
        i = ordered.index(best)
        if i == 0 and len(grid) > 1 and by_c[0] > by_c[1] and grid[0] / 16 >= 2.0 ** -24:
            grid = tuple(sorted({*grid, *(grid[0] / 2 ** k for k in range(1, 5))}))
        elif i == len(grid) - 1 and by_c[-1] > by_c[-2] and grid[-1] * 16 <= 2.0 ** 24:
            grid = tuple(sorted({*grid, *(grid[-1] * 2 ** k for k in range(1, 5))}))
        else:
            return best, {str(c): float(a) for c, a in zip(grid, by_c)}, model


def data(n: int, classes: int, signal: float, seed: int, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    x = rng.normal(size=(n, 12)) + signal * np.eye(classes, 12)[y]
    return (scale * x).astype(np.float32), y


CASES = {  # name: (rows, classes, signal, scale, grid, standardise)
    "weak signal, standardised": (160, 2, 0.25, 1.0, C_GRID, True),
    "weak signal, raw (widens down)": (120, 2, 0.25, 1.0, RAW_GRID, False),
    "three classes, tiny raw features (widens up twice)": (120, 3, 2.0, 1e-3, RAW_GRID, False),
    "no signal": (100, 2, 0.0, 1.0, C_GRID, True),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_c_search_matches_the_reference_bit_for_bit(case):
    n, classes, signal, scale, grid, standardise = CASES[case]
    x, y = data(n, classes, signal, n, scale)
    x_test, y_test = data(60, classes, signal, n + 1, scale)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    best, by_c, model = reference_search(x, y, cv, 0, grid, standardise=standardise)
    search = c_search(x, y, cv, 0, grid, standardise=standardise)
    assert (search.C, search.by_c) == (best, by_c)
    assert np.array_equal(search.model.decision_function(x_test), model.decision_function(x_test))
    fold = np.r_[np.full(n // 2, -1), np.zeros(n - n // 2, dtype=int)]
    best, by_c, model = reference_search(x, y, PredefinedSplit(fold), 0, grid, refit=False, standardise=standardise)
    search = c_search(x, y, PredefinedSplit(fold), 0, grid, refit=False, standardise=standardise)
    assert (search.C, search.by_c) == (best, by_c)
    assert np.array_equal(search.model.decision_function(x_test), model.decision_function(x_test))


def test_the_searches_widen_both_ways_in_these_cases():
    """The cases above exercise a path restarted (widened down) and a path continued twice (widened up)."""
    searched = {}
    for case in ("weak signal, raw (widens down)", "three classes, tiny raw features (widens up twice)"):
        n, classes, signal, scale, grid, standardise = CASES[case]
        x, y = data(n, classes, signal, n, scale)
        search = c_search(x, y, StratifiedKFold(3, shuffle=True, random_state=0), 0, grid, standardise=standardise)
        searched[case] = (min(map(float, search.by_c)), max(map(float, search.by_c)))
    assert searched == {"weak signal, raw (widens down)": (2.0 ** -6, 2.0 ** 10),
                        "three classes, tiny raw features (widens up twice)": (2.0 ** -2, 2.0 ** 18)}


def test_protocols_agree_with_the_reference_searches():
    x, y = data(150, 2, 0.5, 7)
    scores, details, values = kfold_protocol(x, y, folds=3, seed=0)
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(x, y)
    expected = []
    for train, test in folds:
        from sklearn.model_selection import StratifiedShuffleSplit

        inner = StratifiedShuffleSplit(1, test_size=max(2, round(0.1 * len(train))), random_state=0)
        best, _, model = reference_search(x[train], y[train], inner, 0, C_GRID)
        expected.append((best, float(np.mean(model.predict(x[test]) == y[test]))))
    assert details["C_per_fold"] == [c for c, _ in expected]
    assert [f["accuracy"] for f in details["per_fold"]] == [a for _, a in expected]
    scores, details, values = split_protocol(x[:80], y[:80], x[80:110], y[80:110], x[110:], y[110:], seed=0)
    fold = np.r_[np.full(80, -1), np.zeros(30, dtype=int)]
    best, by_c, model = reference_search(x[:110], y[:110], PredefinedSplit(fold), 0, C_GRID, refit=False)
    assert (details["C"], details["dev_accuracy_by_C"]) == (best, by_c)
    assert np.array_equal(values, (model.predict(x[110:]) == y[110:]).astype(float))
