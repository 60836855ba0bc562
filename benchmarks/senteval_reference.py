"""SentEval's own protocol, written out loop by loop, beside our `senteval-*` tasks on the same embeddings.

    python benchmarks/senteval_reference.py [-m MODEL] [--results results]

An independent check of `tasks/senteval.py` (docs/tasks.md, "SentEval transfer"): it follows SentEval's
`senteval/tools/validation.py` (`usepytorch=False`) as published, read, not copied: one scikit-learn
`LogisticRegression(C=c, random_state=1111)` fit per C and fold (default lbfgs and iteration cap), raw
features, seed 1111 for every fold split, scores rounded to 0.01 % before the argmax as SentEval does;
- MR (InnerKFoldClassifier, kfold=10): outer and inner StratifiedKFold(10, shuffle, 1111), C in
  2^-2 .. 2^3, accuracy = mean over outer folds;
- TREC (KFoldClassifier, kfold=10): StratifiedKFold(10, shuffle, 1111) on train, C in 2^-1 .. 2^5, refit
  on all of train, accuracy on test.
It reads the embeddings through the cache (run `bench run -t senteval` first) and prints SentEval's value,
ours (from the committed result) and the difference, in points. `--smoke` (CI: the script still runs) runs
both protocols with 3 folds on the plug-in fixture's 48 reviews (tests/fixtures/plugin) and compares nothing.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from bench_encode import SMOKE_DATASET, use_smoke_dataset  # a sibling script (benchmarks/ is its folder)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from sentibench.evaluation.sampling import split_arrays
from sentibench.report.compare import results_of
from sentibench.run.runner import open_encoder

SEED = 1111


def _embed(encoder, dataset: str, splits: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    texts, labels = [], []
    for split in splits:
        split_texts, split_labels = split_arrays(dataset, split, None, 0)
        texts += split_texts
        labels.append(split_labels)
    return np.asarray(encoder.encode(texts), dtype=np.float64), np.concatenate(labels)


def _cv_scores(x, y, grid, folds) -> list[float]:
    scores = []
    for c in grid:
        fold_scores = []
        for train, test in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(x, y):
            model = LogisticRegression(C=c, random_state=SEED).fit(x[train], y[train])
            fold_scores.append(model.score(x[test], y[test]))
        scores.append(round(100 * np.mean(fold_scores), 2))
    return scores


def inner_kfold(x, y, folds=10) -> tuple[float, list[float]]:
    grid = [2.0 ** t for t in range(-2, 4)]
    accuracies, chosen = [], []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(x, y):
        best = grid[int(np.argmax(_cv_scores(x[train], y[train], grid, folds)))]
        model = LogisticRegression(C=best, random_state=SEED).fit(x[train], y[train])
        accuracies.append(round(100 * model.score(x[test], y[test]), 2))
        chosen.append(best)
    return float(np.mean(accuracies)), chosen


def kfold_then_test(x, y, x_test, y_test, folds=10) -> tuple[float, float]:
    grid = [2.0 ** t for t in range(-1, 6)]
    best = grid[int(np.argmax(_cv_scores(x, y, grid, folds)))]
    model = LogisticRegression(C=best, random_state=SEED).fit(x, y)
    return round(100 * model.score(x_test, y_test), 2), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--model", default="all-minilm-l6-v2")
    parser.add_argument("--results", default="results")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)  # SentEval runs with the default cap too
    if args.smoke:
        use_smoke_dataset()
    mr_data, trec_data, folds = (SMOKE_DATASET, SMOKE_DATASET, 3) if args.smoke else ("mr", "trec", 10)
    encoder = open_encoder(args.model)
    ours = {} if args.smoke else results_of(Path(args.results), args.model)
    x, y = _embed(encoder, mr_data, ("train", "validation", "test"))
    mr, chosen = inner_kfold(x, y, folds)
    x_train, y_train = _embed(encoder, trec_data, ("train", "validation"))
    x_test, y_test = _embed(encoder, trec_data, ("test",))
    trec, best = kfold_then_test(x_train, y_train, x_test, y_test, folds)
    for task, reference, note in (("senteval-mr", mr, f"C per fold {chosen}"), ("senteval-trec", trec, f"C {best}")):
        result = ours.get(task)
        mine = 100 * result.main_score() if result else float("nan")
        print(f"{task}: SentEval protocol {reference:.2f}, ours {mine:.2f}, difference {mine - reference:+.2f} "
              f"points ({note})")


if __name__ == "__main__":
    main()
