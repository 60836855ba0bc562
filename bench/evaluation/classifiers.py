"""The classifier protocols of the probe, SentEval and few-shot tasks: a logistic regression on frozen
features whose L2 strength C is searched on a dev split (`split_protocol`, SentEval's SplitClassifier) or
inside each fold of a stratified k-fold (`kfold_protocol`), over a grid that widens past an edge still
improving (`widening_search`). The tasks' module docstrings state the protocol each task runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sentibench.core.hashing import digest
from sentibench.evaluation.units import UnitValues, mean_units

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

T = TypeVar("T")

C_GRID: tuple[float, ...] = tuple(2.0 ** p for p in range(-10, 5))
"""C for standardised features: 2^-10 .. 2^4 (SentEval's 2^-2 .. 2^3 stopped short: with standardised
features, cross-validated accuracy kept rising toward smaller C). The first grid of every search: a search
whose best C is an edge still improving widens past it (`widening_search`)."""
C_LIMITS: tuple[float, float] = (2.0 ** -24, 2.0 ** 24)
"""How far `widening_search` may widen a grid. Far beyond where the score stops changing: as C -> 0 the
weights vanish and the predictions settle (majority class or the centroid direction), and as C grows on
separable data they settle on the max-margin direction; either way the score ties and the search stops."""
WIDEN_STEPS = 4  # powers of two added beyond an improving edge per widening
DEV_FRACTION = 0.1
MAX_ITER = 500  # lbfgs iterations per C; features without signal (the random floor) would otherwise crawl


def tuned_classifier(cv, seed: int, refit: bool = True, grid: tuple[float, ...] = C_GRID,
                     standardise: bool = True) -> Pipeline:
    """(Standardise, then) scikit-learn's `LogisticRegressionCV` over `grid` with the folds `cv`: the
    grid is one warm-started regularisation path per fold (far cheaper than a fit per C), the best mean
    accuracy wins (ties: the smaller C); `refit` fits all rows again with it, else the one fold's model
    is kept as is."""
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    search = LogisticRegressionCV(Cs=list(grid), cv=cv, scoring="accuracy", max_iter=MAX_ITER, refit=refit,
                                  random_state=seed, **_new_attributes())
    return make_pipeline(StandardScaler(), search) if standardise else make_pipeline(search)


def search_on(cv, seed: int, x: np.ndarray, y: np.ndarray, refit: bool = True,
              standardise: bool = True) -> Callable[[tuple[float, ...]], Pipeline]:
    """The C search on (x, y) with folds `cv` as a function of its grid (`tuned_classifier`, fitted), for
    `widening_search`."""
    return lambda grid: tuned_classifier(cv, seed, refit=refit, grid=grid, standardise=standardise).fit(x, y)


@cache
def _new_attributes() -> dict:
    """scikit-learn >= 1.8 announces simpler LogisticRegressionCV attributes and an explicit L2 (l1 ratio
    0); opt in where the switch exists."""
    from sklearn.linear_model import LogisticRegressionCV

    return ({"use_legacy_attributes": False, "l1_ratios": (0.0,)}
            if "use_legacy_attributes" in inspect.signature(LogisticRegressionCV).parameters else {})


def chosen_c(model: Pipeline) -> tuple[float, dict[str, float]]:
    """The C a tuned classifier chose and its mean validation accuracy per C."""
    search = model[-1]
    grid = list(search.Cs_)
    scores = search.scores_ if not isinstance(search.scores_, dict) else next(iter(search.scores_.values()))
    by_c = np.asarray(scores).reshape(-1, len(grid)).mean(axis=0)  # folds x Cs (x one l1 ratio)
    return float(np.ravel(search.C_)[0]), {str(c): float(a) for c, a in zip(grid, by_c)}


def improving_edge(best: float, by_c: dict[str, float]) -> int:
    """-1 (+1) when `best` is the smallest (largest) C of a search and scores strictly better there than at
    the next C inwards, so the optimum may lie beyond it; 0 otherwise (an interior C, or a tie on a
    plateau). `by_c` is the search's score by C (keys `str(C)`, as `chosen_c` writes them)."""
    grid = sorted(float(c) for c in by_c)
    if len(grid) < 2:
        return 0
    if best == grid[0] and by_c[str(grid[0])] > by_c[str(grid[1])]:
        return -1
    if best == grid[-1] and by_c[str(grid[-1])] > by_c[str(grid[-2])]:
        return 1
    return 0


def widened(grid: tuple[float, ...], side: int) -> tuple[float, ...]:
    """`grid` with `WIDEN_STEPS` more powers of two beyond its lower (side -1) or upper (+1) end, never past
    `C_LIMITS`; the same grid when that end is already at its limit."""
    end = min(grid) if side < 0 else max(grid)
    beyond = [end * 2.0 ** (side * step) for step in range(1, WIDEN_STEPS + 1)]
    return tuple(sorted({*grid, *(c for c in beyond if C_LIMITS[0] <= c <= C_LIMITS[1])}))


def widening_search(fit: Callable[[tuple[float, ...]], T], choice: Callable[[T], tuple[float, dict[str, float]]],
                    grid: tuple[float, ...]) -> T:
    """Fit a C search over `grid`; while its choice (`choice(fitted)`: chosen C, score by C) is an improving
    edge (`improving_edge`), widen that side (`widened`) and fit again. Returns the last fit: its score by C
    shows the grid it searched. A choice inside `grid` returns the one fit, unchanged."""
    while True:
        fitted = fit(grid)
        side = improving_edge(*choice(fitted))
        wider = widened(grid, side) if side else grid
        if wider == grid:
            return fitted
        grid = wider


def grid_edge_warning(searches: list[tuple[float, dict[str, float]]]) -> str | None:
    """A warning when a search's chosen C is still an improving edge of the grid it searched
    (`improving_edge`): after `widening_search`, only at `C_LIMITS`. `searches` are (chosen C, score by C)
    pairs, e.g. from `chosen_c`. Results carry it in details["grid_edge_warning"]; None when none is."""
    edges = [(c, by_c) for c, by_c in searches if improving_edge(c, by_c)]
    if not edges:
        return None
    c, by_c = edges[0]
    grid = [float(k) for k in by_c]
    return (f"C = {c:g} is the edge of the searched grid {min(grid):g} .. {max(grid):g} and still improving in "
            f"{len(edges)} of {len(searches)} searches: the best C may lie outside it")


def classification_scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score

    return {"accuracy": float(accuracy_score(y_true, y_pred)),
            "f1": float(f1_score(y_true, y_pred, average="macro"))}


def dev_rows(y: np.ndarray, fraction: float = DEV_FRACTION) -> int:
    """How many rows a carved dev split holds: `fraction` of them, and at least one per class."""
    return max(len(np.unique(y)), int(round(fraction * len(y))))


def holdout(x: np.ndarray, y: np.ndarray, seed: int):
    """A stratified, seeded (train, dev) split of (x, y): x_train, x_dev, y_train, y_dev."""
    from sklearn.model_selection import train_test_split

    return train_test_split(x, y, test_size=dev_rows(y), random_state=seed, stratify=y)


def split_protocol(x_train, y_train, x_dev, y_dev, x_test, y_test, seed: int, grid: tuple[float, ...] = C_GRID,
                   standardise: bool = True) -> tuple[dict, dict, np.ndarray]:
    """Tune C on dev (`widening_search` from `grid`), keep the model fitted on train with it, score test
    (SentEval's SplitClassifier). Returns (scores, details, per-test-item correctness)."""
    from sklearn.model_selection import PredefinedSplit

    x = np.concatenate([x_train, x_dev])
    y = np.concatenate([y_train, y_dev])
    fold = np.r_[np.full(len(y_train), -1), np.zeros(len(y_dev), dtype=int)]
    model = widening_search(search_on(PredefinedSplit(fold), seed, x, y, refit=False, standardise=standardise),
                            chosen_c, grid)
    best, dev_accuracy = chosen_c(model)
    predicted = model.predict(x_test)
    details = {"C": best, "dev_accuracy_by_C": dev_accuracy,
               "grid_edge_warning": grid_edge_warning([(best, dev_accuracy)])}
    return classification_scores(y_test, predicted), details, (predicted == y_test).astype(np.float64)


def kfold_protocol(x: np.ndarray, y: np.ndarray, folds: int, seed: int, inner_folds: int | None = None,
                   grid: tuple[float, ...] = C_GRID, standardise: bool = True) -> tuple[dict, dict, np.ndarray]:
    """Stratified k-fold: per fold, C from the fold's training part (a 10% stratified hold-out, or
    `inner_folds`-fold stratified CV as SentEval's InnerKFoldClassifier; `widening_search` from `grid`),
    refit on all of it, score the held-out fold. Returns (mean scores over folds, details: per-fold scores,
    std, chosen Cs; per-item values whose mean is the mean fold accuracy: correctness x n / (folds x fold
    size))."""
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

    per_fold, chosen, values, fold_of = [], [], np.zeros(len(y)), np.zeros(len(y), dtype=int)
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    for fold, (train_idx, test_idx) in enumerate(splitter.split(x, y)):
        fold_of[test_idx] = fold
        inner = (StratifiedKFold(inner_folds, shuffle=True, random_state=seed) if inner_folds else
                 StratifiedShuffleSplit(1, test_size=dev_rows(y[train_idx]), random_state=seed))
        model = widening_search(search_on(inner, seed, x[train_idx], y[train_idx], standardise=standardise),
                                chosen_c, grid)
        predicted = model.predict(x[test_idx])
        per_fold.append(classification_scores(y[test_idx], predicted))
        values[test_idx] = (predicted == y[test_idx]) * len(y) / (folds * len(test_idx))
        chosen.append(chosen_c(model))
    scores = {m: float(np.mean([f[m] for f in per_fold])) for m in per_fold[0]}
    details = {"folds": folds, "C_per_fold": [c for c, _ in chosen], "per_fold": per_fold,
               "fold_ids_sha256": digest(fold_of.tolist()),
               "grid_edge_warning": grid_edge_warning(chosen),
               **{f"{m}_std": float(np.std([f[m] for f in per_fold])) for m in per_fold[0]}}
    return scores, details, values


def item_units(texts: list[str], seed: int, values: np.ndarray, protocol: str) -> UnitValues:
    """Unit values of an accuracy: one per evaluated item, identified by the items' texts, the seed and the
    protocol (k-fold values depend on the folds)."""
    return mean_units(values, "test item", {"texts": texts, "seed": seed, "protocol": protocol})
