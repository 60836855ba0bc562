"""The classifier protocols of the probe, SentEval and few-shot tasks: a logistic regression on frozen
features whose L2 strength C is searched on a dev split (`split_protocol`, SentEval's SplitClassifier) or
inside each fold of a stratified k-fold (`kfold_protocol`), over a grid that widens past an edge still
improving (`widening_search`). The tasks' module docstrings state the protocol each task runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sentibench.core.hashing import digest
from sentibench.evaluation.units import UnitValues, mean_units

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

    from sentibench.embed.encoders import Encoder

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
FOLD_JOBS = os.cpu_count() or 1
"""Folds whose paths are fitted at once (threads: lbfgs spends its time in BLAS and scikit-learn's loss,
which release the GIL)."""


@dataclass
class FoldPath:
    """One fold's regularisation path as far as it has been fitted: for each C of an ascending grid, the
    weights (`LogisticRegressionCV`'s layout: coefficients then intercept, one row per class beyond two)
    and the accuracy on the fold's held-out rows."""

    grid: tuple[float, ...] = ()
    weights: tuple[np.ndarray, ...] = ()
    scores: tuple[float, ...] = ()

    def extended(self, x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                 grid: tuple[float, ...], seed: int) -> FoldPath:
        """The path over `grid`: a grid that only adds larger Cs continues this path from its last fit;
        any other starts again from zero weights. Either way each C is fitted once, warm-started from the
        previous C's weights, exactly as `LogisticRegressionCV` fits a fold's path."""
        from sklearn import config_context
        from sklearn.linear_model import LogisticRegression

        keep = len(self.grid) if grid[:len(self.grid)] == self.grid else 0
        fit = LogisticRegression(warm_start=True, max_iter=MAX_ITER, random_state=seed)
        if keep:
            _set_weights(fit, self.weights[-1], np.unique(y))
        weights, scores = list(self.weights[:keep]), list(self.scores[:keep])
        x_train, y_train, x_test, y_test = x[train], y[train], x[test], y[test]
        with config_context(assume_finite=True, skip_parameter_validation=True):  # checked once, in c_search
            for c in grid[keep:]:
                fit.set_params(C=c).fit(x_train, y_train)
                weights.append(_weights(fit))
                scores.append(_accuracy(weights[-1], fit.classes_, x_test, y_test))
        return FoldPath(grid, tuple(weights), tuple(scores))


def _weights(fit) -> np.ndarray:
    """A fitted LogisticRegression's weights in `LogisticRegressionCV`'s path layout."""
    if len(fit.classes_) == 2:
        return np.concatenate([fit.coef_[0], fit.intercept_])
    return np.concatenate([fit.coef_, fit.intercept_[:, None]], axis=1)


def _set_weights(model, w: np.ndarray, classes: np.ndarray) -> None:
    """Give `model` the weights `w` (path layout) as `LogisticRegressionCV` sets its final model's."""
    model.classes_ = classes
    if w.ndim == 1:
        model.coef_, model.intercept_ = w[:-1][None, :], np.array([w[-1]])
    else:
        model.coef_, model.intercept_ = w[:, :-1], w[:, -1]


def _accuracy(w: np.ndarray, classes: np.ndarray, x_test: np.ndarray, y_test: np.ndarray) -> float:
    """Held-out accuracy of the weights `w`, with the arithmetic of `LogisticRegressionCV`'s path scoring
    (its classifier's `predict`; accuracy, the mean of the 0/1 hits, is exact)."""
    from sklearn.linear_model import LogisticRegression

    scorer = LogisticRegression()
    scorer.classes_, scorer.coef_, scorer.intercept_ = classes, w[..., :-1], w[..., -1]
    return float(np.mean(scorer.predict(x_test) == y_test))


@dataclass(frozen=True)
class Search:
    """A finished C search: the chosen C, the mean held-out accuracy per C searched (keys `str(C)`), and the
    classifier to score with ((standardise, then) logistic regression)."""

    C: float
    by_c: dict[str, float]
    model: Pipeline

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.model.predict(x)


def c_search(x: np.ndarray, y: np.ndarray, cv, seed: int, grid: tuple[float, ...] = C_GRID, refit: bool = True,
             standardise: bool = True, jobs: int | None = None) -> Search:
    """(Standardise x once, then) choose C over `grid` by mean held-out accuracy over the folds `cv` (ties: the
    smaller C), widening past an improving edge (`widening_search`): the answers of scikit-learn's
    `LogisticRegressionCV(Cs=grid, cv=cv, scoring="accuracy")` on each grid, fit for fit, but each fold's
    path is fitted once and continued when the grid widens upwards (`FoldPath`), and the folds run on
    `jobs` threads (default `FOLD_JOBS`). `refit` fits all rows with the chosen C, warm-started from the
    folds' mean weights at it; else the one fold's model at its best C is kept."""
    from joblib import Parallel, delayed
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils import check_array

    scaler = StandardScaler().fit(x) if standardise else None
    xs = check_array(scaler.transform(x) if scaler else x, dtype=np.float64, order="C")
    folds = list(cv.split(xs, y))
    paths = [FoldPath()] * len(folds)
    with Parallel(n_jobs=min(jobs or FOLD_JOBS, len(folds)), prefer="threads") as parallel:
        def fit(grid: tuple[float, ...]) -> tuple[list[FoldPath], tuple[float, ...]]:
            nonlocal paths
            paths = parallel(delayed(path.extended)(xs, y, train, test, grid, seed)
                             for path, (train, test) in zip(paths, folds))
            return paths, grid

        paths, grid = widening_search(fit, lambda done: _choice(*done), grid)
    scores = np.array([path.scores for path in paths])  # folds x Cs
    best = int(np.argmax(scores.sum(axis=0)))
    classes = np.unique(y)
    model = LogisticRegression(C=grid[best], warm_start=True, max_iter=MAX_ITER, random_state=seed)
    if refit:
        _set_weights(model, np.mean([path.weights[best] for path in paths], axis=0), classes)
        model.fit(xs, y)
        _set_weights(model, _weights(model), classes)
    else:
        _set_weights(model, np.mean([path.weights[int(np.argmax(path.scores))] for path in paths], axis=0), classes)
    pipeline = make_pipeline(scaler, model) if scaler else make_pipeline(model)
    return Search(grid[best], {str(c): float(a) for c, a in zip(grid, scores.mean(axis=0))}, pipeline)


def _choice(paths: list[FoldPath], grid: tuple[float, ...]) -> tuple[float, dict[str, float]]:
    """The chosen C (best summed accuracy, the first on a tie) and mean accuracy by C of fold paths."""
    scores = np.array([path.scores for path in paths])
    return grid[int(np.argmax(scores.sum(axis=0)))], {str(c): float(a) for c, a in zip(grid, scores.mean(axis=0))}


def improving_edge(best: float, by_c: dict[str, float]) -> int:
    """-1 (+1) when `best` is the smallest (largest) C of a search and scores strictly better there than at
    the next C inwards, so the optimum may lie beyond it; 0 otherwise (an interior C, or a tie on a
    plateau). `by_c` is the search's score by C (keys `str(C)`, as `Search.by_c` holds them)."""
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
    pairs, e.g. from `c_search`. Results carry it in details["grid_edge_warning"]; None when none is."""
    edges = [(c, by_c) for c, by_c in searches if improving_edge(c, by_c)]
    if not edges:
        return None
    c, by_c = edges[0]
    grid = [float(k) for k in by_c]
    return (f"C = {c:g} is the edge of the searched grid {min(grid):g} .. {max(grid):g} and still improving in "
            f"{len(edges)} of {len(searches)} searches: the best C may lie outside it")


def encode_splits(encoder: Encoder, parts: dict[str, tuple[list[str], np.ndarray]], batch_size: int
                  ) -> dict[str, np.ndarray]:
    """Each split's vectors, from one `encode` call over every split's texts in order (the cache dedupes a text
    that two splits share)."""
    vectors = encoder.encode([t for split_texts, _ in parts.values() for t in split_texts], batch_size=batch_size)
    out, start = {}, 0
    for split, (split_texts, _) in parts.items():
        out[split] = vectors[start:start + len(split_texts)]
        start += len(split_texts)
    return out


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
    search = c_search(x, y, PredefinedSplit(fold), seed, grid, refit=False, standardise=standardise)
    predicted = search.predict(x_test)
    details = {"C": search.C, "dev_accuracy_by_C": search.by_c,
               "grid_edge_warning": grid_edge_warning([(search.C, search.by_c)])}
    return classification_scores(y_test, predicted), details, (predicted == y_test).astype(np.float64)


def kfold_protocol(x: np.ndarray, y: np.ndarray, folds: int, seed: int, inner_folds: int | None = None,
                   grid: tuple[float, ...] = C_GRID, standardise: bool = True) -> tuple[dict, dict, np.ndarray]:
    """Stratified k-fold: per fold, C from the fold's training part (a 10% stratified hold-out, or
    `inner_folds`-fold stratified CV as SentEval's InnerKFoldClassifier; `widening_search` from `grid`),
    refit on all of it, score the held-out fold. Returns (mean scores over folds, details: per-fold scores,
    std, chosen Cs; per-item values whose mean is the mean fold accuracy: correctness x n / (folds x fold
    size))."""
    from joblib import Parallel, delayed
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

    def fold_search(train_idx: np.ndarray) -> Search:
        inner = (StratifiedKFold(inner_folds, shuffle=True, random_state=seed) if inner_folds else
                 StratifiedShuffleSplit(1, test_size=dev_rows(y[train_idx]), random_state=seed))
        return c_search(x[train_idx], y[train_idx], inner, seed, grid, standardise=standardise, jobs=1)

    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y))
    searches = Parallel(n_jobs=min(FOLD_JOBS, folds), prefer="threads")(
        delayed(fold_search)(train_idx) for train_idx, _ in splits)
    per_fold, values, fold_of = [], np.zeros(len(y)), np.zeros(len(y), dtype=int)
    for fold, ((_, test_idx), search) in enumerate(zip(splits, searches)):
        fold_of[test_idx] = fold
        predicted = search.predict(x[test_idx])
        per_fold.append(classification_scores(y[test_idx], predicted))
        values[test_idx] = (predicted == y[test_idx]) * len(y) / (folds * len(test_idx))
    chosen = [(search.C, search.by_c) for search in searches]
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
