"""Do the Meaning tasks agree? Spearman between every two tasks' model rankings, over the models that have
committed full results on both, read from the results folder (issue 54: STS-B and TREC ranked models at -0.32).

    python benchmarks/meaning_agreement.py [--results results] [--tasks sts-stsb,senteval-trec,...] [--smoke]

For each task: its mean Spearman with the other tasks (over the pairs that share at least 4 models), and where
`random` and `bow-tfidf-svd` stand (score x 100). `--smoke` (CI): the same on the committed results, printed.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parent.parent
TASKS = ("sts-stsb", "senteval-trec", "docsim-lee", "duplicates-stsb", "clustering-trec", "clustering-trec-fine",
         "clustering-tweet-hashtags")
MIN_SHARED = 4


def scores(results_folder: Path, tasks: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """{task: {model: main score}}: full (not smoke) results, each model's current revision."""
    import sentibench
    from sentibench.results.store import current, current_revision

    kept, _ = current(r for r in sentibench.load_results(results_folder) if not r.smoke)
    table: dict[str, dict[str, float]] = {task: {} for task in tasks}
    for result in kept:
        model = result.provenance.model
        if result.task_name not in table or model is None or result.main_score() is None:
            continue
        if current_revision(model.name) not in (None, model.revision):
            continue  # an earlier revision of an installed card: the board's row is the current one
        table[result.task_name][model.name] = result.main_score()
    return table


def agreement(table: dict[str, dict[str, float]]) -> dict[tuple[str, str], tuple[float, int]]:
    """(task a, task b) -> (Spearman over the models both have, how many), for pairs sharing MIN_SHARED models."""
    pairs = {}
    for a, b in itertools.combinations(table, 2):
        shared = sorted(table[a].keys() & table[b].keys())
        if len(shared) >= MIN_SHARED:
            rho = spearmanr([table[a][m] for m in shared], [table[b][m] for m in shared]).statistic
            pairs[(a, b)] = (float(rho), len(shared))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=str(ROOT / "results"), help="the results folder (default: committed)")
    parser.add_argument("--tasks", default=",".join(TASKS), help="the Meaning tasks, comma-separated")
    parser.add_argument("--smoke", action="store_true", help="CI: run on the committed results")
    args = parser.parse_args(argv)
    table = scores(Path(args.results), tuple(t.strip() for t in args.tasks.split(",") if t.strip()))
    pairs = agreement(table)
    print(f"{'task a':<27} {'task b':<27} {'spearman':>9} {'models':>7}")
    for (a, b), (rho, n) in sorted(pairs.items()):
        print(f"{a:<27} {b:<27} {rho:9.3f} {n:7d}")
    print(f"\n{'task':<27} {'models':>7} {'mean rho':>9} {'random':>8} {'bow':>8} {'best':>8}")
    for task, by_model in table.items():
        rhos = [rho for pair, (rho, _) in pairs.items() if task in pair]
        mean = f"{sum(rhos) / len(rhos):9.3f}" if rhos else f"{'n/a':>9}"
        best = max(by_model.values(), default=None)

        def cell(value: float | None) -> str:
            return f"{100 * value:8.2f}" if value is not None else f"{'-':>8}"

        print(f"{task:<27} {len(by_model):7d} {mean} {cell(by_model.get('random'))} "
              f"{cell(by_model.get('bow-tfidf-svd'))} {cell(best)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
