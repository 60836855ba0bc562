"""Classifier fits of the required suite, old code against new, side by side on the same cached vectors
(issue 32, item 1).

    python benchmarks/bench_fits.py [--model all-minilm-l6-v2] [--tasks senteval-mr,...] [--repeats 1]

For every classifier task of the required suite (the `probe-*` and `senteval-*` tasks), the task runs once
with the model's embedding cache (a text the cache lacks is refused, never encoded: such a task is skipped
and listed) up to its classifier protocol, whose inputs are recorded. Then the protocol runs on those
inputs under the old code (`OldProtocols` below: scikit-learn's `LogisticRegressionCV` refitted over the
whole grid at each widening, as `bench/evaluation/classifiers.py` did before issue 32) and under the new
(`sentibench.evaluation.classifiers`), interleaved (old, new, new, old, ...), `--repeats` pairs per task. The
table gives each task's median seconds old and new, their ratio, and whether every chosen C, every score by
C and every test score and per-item value is bit-identical. JSON to `--output` (default
benchmarks/results/): machine, load average before and after, the git commit, and per task each side's
seconds and the comparison.

The profile that located the cost (committed here as the command that made it):

    OMP_NUM_THREADS=1 python -m cProfile -s tottime benchmarks/bench_fits.py --tasks senteval-vader-amazon \\
        --side old --repeats 1 --output /tmp/prof | head -45        # and --side new  # safe: an example path

It showed the cost is the fits themselves, not waste around them: scikit-learn's lbfgs loss and gradient (two
float64 matrix-vector products per iteration) and the Python around each iteration and each C. For the same
answers bit for bit those iterations must all be done again; what the new code saves is a widened grid's
refit (where a search widens upwards), input validation per C, and time, by running folds on every core
(threads: the matrix products release the GIL, the Python between them does not). On senteval-vader-amazon
(no search widens) both sides make the same 14,779 loss-and-gradient evaluations; with `--jobs 1` the new
side took 106 s and the old 108 s (separate runs), so its gain there is the second core.

`--side old|new` times one side only (for a profile); `--jobs N` gives the new side N threads for its folds
(default: every core), to tell the work saved from the cores added. `--smoke`: a check that the script runs
(CI runs it; no timing means anything): small random vectors instead of a model's cache, the JSON to a
temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from bench_encode import REPO, machine, publish_report  # a sibling script (benchmarks/ is its folder)

MODEL = "all-minilm-l6-v2"
PROTOCOLS = ("kfold_protocol", "split_protocol", "cv_then_test")


class OldProtocols:
    """The protocols as they were before issue 32: each search one `LogisticRegressionCV` (after a
    StandardScaler when standardising), fitted again over the whole widened grid while its choice is an
    improving edge."""

    def __init__(self) -> None:
        from sentibench.evaluation import classifiers

        self.new = classifiers

    def search(self, cv, seed, x, y, grid, refit=True, standardise=True):
        from sklearn.linear_model import LogisticRegressionCV
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        while True:
            search = LogisticRegressionCV(Cs=list(grid), cv=cv, scoring="accuracy", max_iter=self.new.MAX_ITER,
                                          refit=refit, random_state=seed, use_legacy_attributes=False,
                                          l1_ratios=(0.0,))
            model = (make_pipeline(StandardScaler(), search) if standardise else make_pipeline(search)).fit(x, y)
            best, by_c = self.chosen(model)
            side = self.new.improving_edge(best, by_c)
            wider = self.new.widened(grid, side) if side else grid
            if wider == grid:
                return model
            grid = wider

    @staticmethod
    def chosen(model):
        search = model[-1]
        by_c = np.asarray(search.scores_).reshape(-1, len(search.Cs_)).mean(axis=0)
        return float(np.ravel(search.C_)[0]), {str(c): float(a) for c, a in zip(search.Cs_, by_c)}

    def split_protocol(self, x_train, y_train, x_dev, y_dev, x_test, y_test, seed, grid=None, standardise=True):
        from sklearn.model_selection import PredefinedSplit

        x, y = np.concatenate([x_train, x_dev]), np.concatenate([y_train, y_dev])
        fold = np.r_[np.full(len(y_train), -1), np.zeros(len(y_dev), dtype=int)]
        model = self.search(PredefinedSplit(fold), seed, x, y, grid or self.new.C_GRID, refit=False,
                            standardise=standardise)
        best, by_c = self.chosen(model)
        predicted = model.predict(x_test)
        return (self.new.classification_scores(y_test, predicted), {"C": best, "by_C": by_c},
                (predicted == y_test).astype(np.float64))

    def kfold_protocol(self, x, y, folds, seed, inner_folds=None, grid=None, standardise=True):
        from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

        per_fold, chosen, values = [], [], np.zeros(len(y))
        for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y):
            inner = (StratifiedKFold(inner_folds, shuffle=True, random_state=seed) if inner_folds else
                     StratifiedShuffleSplit(1, test_size=self.new.dev_rows(y[train]), random_state=seed))
            model = self.search(inner, seed, x[train], y[train], grid or self.new.C_GRID, standardise=standardise)
            predicted = model.predict(x[test])
            per_fold.append(self.new.classification_scores(y[test], predicted))
            values[test] = (predicted == y[test]) * len(y) / (folds * len(test))
            chosen.append(self.chosen(model))
        scores = {m: float(np.mean([f[m] for f in per_fold])) for m in per_fold[0]}
        return scores, {"per_fold": per_fold, "C_per_fold": [c for c, _ in chosen]}, values

    def cv_then_test(self, x_train, y_train, x_test, y_test, seed, positive_f1):
        from sklearn.metrics import f1_score
        from sklearn.model_selection import StratifiedKFold

        from sentibench.evaluation.senteval import INNER_FOLDS, SENTEVAL_GRID

        cv = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=seed)
        model = self.search(cv, seed, x_train, y_train, SENTEVAL_GRID, standardise=False)
        best, by_c = self.chosen(model)
        predicted = model.predict(x_test)
        scores = self.new.classification_scores(y_test, predicted)
        if positive_f1:
            scores["f1"] = float(f1_score(y_test, predicted, average="binary"))
        return scores, {"C": best, "by_C": by_c}, (predicted == y_test).astype(np.float64)


def new_protocol(name: str):
    from sentibench.evaluation import classifiers, senteval

    return senteval.cv_then_test if name == "cv_then_test" else getattr(classifiers, name)


def comparable(name: str, outcome: tuple) -> dict:
    """The parts of a protocol's outcome both sides must give alike: test scores, per-item values, every
    chosen C (k-fold: with each fold's scores; otherwise with its score by C)."""
    scores, details, values = outcome
    if name == "kfold_protocol":
        chosen = {"C_per_fold": details["C_per_fold"], "per_fold": details["per_fold"]}
    else:
        chosen = {"C": details["C"], "by_C": details.get("by_C") or details.get("dev_accuracy_by_C")
                  or details.get("cv_accuracy_by_C")}
    return {"scores": scores, "chosen": chosen, "values": values.tolist()}


class Recorded(Exception):
    """Raised in place of a protocol: the task's classifier inputs, recorded."""

    def __init__(self, name: str, args: tuple, kwargs: dict) -> None:
        super().__init__(name)
        self.call = (name, args, kwargs)


class CacheOnly:
    """A model that refuses to encode: the cached encoder's misses end the task instead of encoding."""

    name = "cache-only"

    def encode(self, texts, **_):
        raise LookupError(f"{len(texts)} text(s) not in the embedding cache")


def recorded_inputs(model: str, names: list[str]) -> tuple[dict[str, tuple], dict[str, str]]:
    """Each task's protocol call (name, args, kwargs) from a run on cached vectors; the tasks skipped, why."""
    from sentibench.evaluation import probe, senteval
    from sentibench.run.runner import open_encoder
    from sentibench.tasks.base import EvalContext
    from sentibench.tasks.registry import all_tasks

    encoder = open_encoder(model)
    encoder.base = CacheOnly()
    tasks, calls, skipped = all_tasks(), {}, {}
    for name in names:
        originals = {(module, p): getattr(module, p) for module in (probe, senteval) for p in PROTOCOLS
                     if hasattr(module, p)}
        for module, p in originals:
            setattr(module, p, lambda *a, _p=p, **k: (_ for _ in ()).throw(Recorded(_p, a, k)))
        try:
            tasks[name].evaluate(encoder, EvalContext(seed=0, intervals=False))
            skipped[name] = "no classifier protocol"
        except Recorded as call:
            calls[name] = call.call
        except LookupError as missing:
            skipped[name] = str(missing)
        finally:
            for (module, p), original in originals.items():
                setattr(module, p, original)
    return calls, skipped


def smoke_inputs() -> dict[str, tuple]:
    """Small random vectors for each protocol (`--smoke`)."""
    rng = np.random.default_rng(0)
    y = np.arange(120) % 3
    x = (rng.normal(size=(120, 8)) + np.eye(3, 8)[y]).astype(np.float32)
    return {"kfold (inner 3-fold)": ("kfold_protocol", (x, y, 3, 0), {"inner_folds": 3}),
            "split": ("split_protocol", (x[:60], y[:60], x[60:90], y[60:90], x[90:], y[90:], 0), {}),
            "cv-then-test": ("cv_then_test", (x[:90], y[:90], x[90:], y[90:], 0, False), {})}


def timed(function, args: tuple, kwargs: dict) -> tuple[float, tuple]:
    start = time.perf_counter()
    outcome = function(*args, **kwargs)
    return time.perf_counter() - start, outcome


def compare_task(name: str, call: tuple, repeats: int, sides: tuple[str, ...]) -> dict:
    protocol, args, kwargs = call
    old = getattr(OldProtocols(), protocol)
    functions = {"old": old, "new": new_protocol(protocol)}
    seconds: dict[str, list[float]] = {side: [] for side in sides}
    outcomes = {}
    for pair in range(repeats):
        for side in (sides if pair % 2 == 0 else sides[::-1]):
            spent, outcomes[side] = timed(functions[side], args, kwargs)
            seconds[side].append(spent)
    row = {"protocol": protocol, "rows": int(len(args[1])),
           **{f"{side}_s": statistics.median(seconds[side]) for side in sides},
           "seconds": seconds}
    if len(sides) == 2:
        row["ratio"] = row["old_s"] / row["new_s"]
        row["identical"] = comparable(protocol, outcomes["old"]) == comparable(protocol, outcomes["new"])
    print(f"{name:28s} {protocol:15s} " + " ".join(f"{side} {row[side + '_s']:8.2f}s" for side in sides)
          + (f"  ratio {row['ratio']:5.2f}  identical {row['identical']}" if len(sides) == 2 else ""), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--tasks", help="comma-separated task names (default: the required suite's classifier tasks)")
    parser.add_argument("--repeats", type=int, default=1, help="interleaved runs per side and task")
    parser.add_argument("--side", choices=["old", "new"], help="time one side only")
    parser.add_argument("--jobs", type=int, help="the new side's threads for folds (default: every core)")
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args(argv)
    sides = (args.side,) if args.side else ("old", "new")
    if args.jobs:
        from sentibench.evaluation import classifiers

        classifiers.FOLD_JOBS = args.jobs
    report = {"started_at": datetime.now(UTC).isoformat(timespec="seconds"), "load_before": os.getloadavg(),
              "machine": machine() | {"omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "model": None if args.smoke else args.model,
              "arguments": vars(args) | {"output": None}}
    if args.smoke:
        calls, skipped = smoke_inputs(), {}
    else:
        from sentibench.tasks.benchmarks import required_tasks

        names = (args.tasks.split(",") if args.tasks else
                 [t.metadata.name for t in required_tasks() if t.metadata.name.startswith(("probe-", "senteval-"))])
        calls, skipped = recorded_inputs(args.model, names)
    report["skipped"] = skipped
    for name, why in skipped.items():
        print(f"{name:28s} skipped: {why}", flush=True)
    report["tasks"] = {name: compare_task(name, call, args.repeats, sides) for name, call in calls.items()}
    totals = {side: sum(row[f"{side}_s"] for row in report["tasks"].values()) for side in sides}
    report["total_s"] = totals
    if len(sides) == 2 and totals["new"]:
        report["total_ratio"] = totals["old"] / totals["new"]
        report["all_identical"] = all(row["identical"] for row in report["tasks"].values())
        print(f"{'total':28s} {'':15s} old {totals['old']:8.2f}s new {totals['new']:8.2f}s  ratio "
              f"{report['total_ratio']:5.2f}  identical {report['all_identical']}")
    report["load_after"] = os.getloadavg()
    publish_report(report, "fits", args.output, args.smoke)
    return 0 if report.get("all_identical", True) else 1


if __name__ == "__main__":
    sys.exit(main())
