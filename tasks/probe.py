"""Linear probe: logistic regression on frozen embeddings (SentEval protocol; SentiCSE (Kim et al., 2024) §4.4).

Protocol, per dataset:
- the model encodes every text once (one `encode` call; the embedding cache dedupes);
- features are standardised (mean/std of train + dev, never test), then scikit-learn's logistic
  regression (lbfgs, L2) is fitted; its L2 strength C is chosen by accuracy on the dev split
  (`LogisticRegressionCV` with that one predefined fold) from `C_GRID` = 2^-10 .. 2^4, widened by four
  powers of two at a time beyond an edge that is still improving, up to 2^-24 .. 2^24 (version 3; version 2
  stopped at 2^-10 .. 2^4 and warned; version 1's 2^-2 .. 2^4 often stopped at its lower edge), and the
  model fitted on train with that C is scored on test (SentEval's `SplitClassifier`);
- a dataset without a dev split gets one carved from train (10%, stratified, seeded);
- small sets (`folds` set: test split under ~1,000 examples) use stratified k-fold over all their
  examples instead: per outer fold, C is chosen on a 10% stratified hold-out of the fold's training part
  (SentEval uses an inner k-fold; one hold-out keeps the cost at one regularisation path per fold), then
  refitted on the whole training part. Scores are the mean over folds (std in details);
- `max_train` / `max_eval` cap a split with a seeded sample, to keep the CPU cost of the suite in budget
  (IMDB: 2,000 reviews per split, since 22k long reviews cost many minutes to encode on a CPU; the
  3-class tweets: 8,000 of 29.7k train tweets); `context.limit` caps every split for smoke runs. Both are
  recorded in details.
Scores use MTEB's names: `accuracy` (main) and `f1` (macro-F1). A C still improving at the widening's
limit is flagged in details["grid_edge_warning"]. Confidence interval: percentile bootstrap over the test
items (k-fold: over all items, each counted in its own fold's accuracy; `sentibench.evaluation.units`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sentibench.core.hashing import digest
from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation.units import UnitValues, mean_units
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family

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


def capped_indices(n: int, cap: int | None, seed: int) -> np.ndarray:
    """Indices of a seeded random sample of `cap` of `n` rows (all rows when no cap), in original order.
    The sample is a prefix of one seeded permutation, so smaller caps are subsets of larger ones and every
    task that caps the same split with the same seed sees (and caches) the same texts."""
    if cap is None or cap >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).permutation(n)[:cap])


def split_arrays(dataset: str, split: str, cap: int | None, seed: int) -> tuple[list[str], np.ndarray]:
    """Texts and labels of one split of a classification dataset, optionally capped (see `capped_indices`)."""
    part = get_dataset(dataset).split(split)
    keep = capped_indices(len(part), cap, seed)
    texts = part.data.column("text").to_pylist()  # arrow, not row-by-row iteration
    return [texts[i] for i in keep], part.data.column("label").to_numpy()[keep]


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


@dataclass
class LinearProbe(Task):
    """Logistic-regression probe on one classification dataset (module docstring: the protocol)."""

    metadata: TaskMetadata
    folds: int | None = None        # k-fold over all examples instead of the given splits
    max_train: int | None = None    # seeded cap on the train split
    max_eval: int | None = None     # seeded cap on the dev and test splits

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        prepared = get_dataset(self.metadata.dataset)
        limit, seed = context.limit, context.seed
        cap_train = min(c for c in (self.max_train, limit, 10**12) if c is not None)
        cap_eval = min(c for c in (self.max_eval, limit, 10**12) if c is not None)
        parts = {"train": split_arrays(self.metadata.dataset, "train", cap_train, seed)}
        for split in ("validation", "test"):
            if split in prepared.splits:
                parts[split] = split_arrays(self.metadata.dataset, split, cap_eval, seed)
        texts = [t for split_texts, _ in parts.values() for t in split_texts]
        vectors = encoder.encode(texts, batch_size=context.batch_size)
        x, start = {}, 0
        for split, (split_texts, labels) in parts.items():
            x[split] = (vectors[start:start + len(split_texts)], labels)
            start += len(split_texts)

        caps = {"train": cap_train, "validation": cap_eval, "test": cap_eval}
        samples = {s: digest(capped_indices(len(prepared.split(s)), caps[s], seed).tolist()) for s in parts}
        details = {"protocol": None, "sizes": {s: len(v[1]) for s, v in x.items()}, "C_grid": list(C_GRID),
                   "C_limits": list(C_LIMITS),
                   "indices_sha256": samples,
                   "max_train": self.max_train, "max_eval": self.max_eval, "limit": limit, "seed": seed,
                   "classifier": "StandardScaler + LogisticRegressionCV(lbfgs, L2, C from C_grid, widened "
                                 "within C_limits past an improving edge)",
                   "dataset_hash": prepared.content_hash}
        if self.folds:
            all_x = np.concatenate([v[0] for v in x.values()])
            all_y = np.concatenate([v[1] for v in x.values()])
            folds = min(self.folds, int(np.bincount(all_y).min()))
            scores, extra, values = kfold_protocol(all_x, all_y, folds, seed)
            details["protocol"] = f"{folds}-fold stratified CV over all splits"
            evaluated = texts
        else:
            if "validation" in x:
                (x_tr, y_tr), (x_dev, y_dev) = x["train"], x["validation"]
                details["protocol"] = "train / dev (C) / test"
            else:
                x_tr, x_dev, y_tr, y_dev = holdout(*x["train"], seed)
                details["protocol"] = f"train / dev carved from train ({DEV_FRACTION:.0%}, seeded) / test"
            scores, extra, values = split_protocol(x_tr, y_tr, x_dev, y_dev, *x["test"], seed)
            evaluated = parts["test"][0]
        details.update(extra)
        units = item_units(evaluated, seed, values, details["protocol"]) if context.intervals else None
        return Evaluation({"test": scores}, details, units)


def probe_family(spec: DatasetSpec) -> LinearProbe | None:
    """Every packaged sentiment dataset: k-fold over all splits for a small one, seeded caps for a costly one."""
    if not (spec.offline and spec.is_labelled and spec.has("sentiment")):
        return None
    folds = 10 if spec.has("small") else None
    how = (" 10-fold CV over all splits (small set)." if folds else "") + (
        f" Seeded samples of at most {spec.max_examples:,} examples per split." if spec.max_examples else "")
    return LinearProbe(TaskMetadata(
        name=f"probe-{spec.name}", type="Classification", dataset=spec.name, eval_splits=("test",),
        main_score="accuracy", version=3,
        description=f"Linear probe (logistic regression, L2 tuned on dev) on frozen embeddings of {spec.name} "
                    f"({len(spec.label_names)} classes).{how}",
        reference="SentEval (Conneau & Kiela 2018) linear-probe protocol; SentiCSE (Kim et al. 2024) §4.4",
        groups=("probe",)), folds=folds, max_train=spec.max_examples, max_eval=spec.max_examples)


register_family("probe", probe_family)
