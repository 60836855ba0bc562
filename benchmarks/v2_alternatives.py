"""Why sentibench-v2's axes use the chance-normalised scale over one task set: the ranks each alternative rule
would give the models ranked on the committed board, side by side, with the `random` model's score under each.

    python benchmarks/v2_alternatives.py [--benchmark sentibench-v2] [--docs] [--smoke]

Rules (each a point estimate per model and axis; the board's intervals and rank ranges are the chosen rule's):
- **chance-norm., counted** (the release's rule): mean of (score - chance) / (1 - chance), in-domain included;
- **raw mean**: MTEB's mean of main scores, in-domain included;
- **Borda**: mean rank over the axis's tasks (1 = best), a rank-only rule;
- **z-score**: mean over tasks of (score - the board's task mean) / the board's task sd: anchored on whoever is
  on the board, so one new model moves every other model's score;
- **chance-norm., left out**: v1's rule on the new scale: in-domain results left out, each model over its own
  task set;
- **chance-norm., zero-shot common**: only the tasks no ranked model trained on.
On a raw-scale benchmark (v1) the chance levels are the installed tasks' own (`Task.chance_level`). `--docs` rewrites
docs/benchmarks.md's generated blocks `v2-alternatives` and `v1-alternatives`; `--smoke` prints v2's table only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

ROOT = Path(__file__).resolve().parent.parent
PAGE, BLOCKS = "docs/benchmarks.md", {"v2-alternatives": "sentibench-v2", "v1-alternatives": "sentibench-v1"}
RULES = ("chance-norm., counted", "raw mean", "Borda", "z-score", "chance-norm., left out",
         "chance-norm., zero-shot common")


def rule_scores(scores: np.ndarray, chance: np.ndarray, in_domain: np.ndarray) -> dict[str, np.ndarray]:
    """Each rule's score per model from `scores` [tasks, models] (main scores), `chance` [tasks] and `in_domain`
    [tasks, models] (bool); higher is better under every rule (Borda is negated mean rank)."""
    normalised = (scores - chance[:, None]) / (1 - chance[:, None])
    zero_shot = ~in_domain
    common = ~in_domain.any(axis=1)
    sd = scores.std(axis=1, ddof=1, keepdims=True)
    z = (scores - scores.mean(axis=1, keepdims=True)) / np.where(sd > 0, sd, 1)
    with np.errstate(invalid="ignore"):
        left_out = np.where(zero_shot, normalised, 0).sum(axis=0) / zero_shot.sum(axis=0)
    return {
        RULES[0]: normalised.mean(axis=0),
        RULES[1]: scores.mean(axis=0),
        RULES[2]: -np.vstack([rankdata(-row) for row in scores]).mean(axis=0),
        RULES[3]: z.mean(axis=0),
        RULES[4]: left_out,
        RULES[5]: normalised[common].mean(axis=0) if common.any() else np.full(scores.shape[1], np.nan),
    }


def table(root: Path, benchmark_name: str | None = None) -> dict:
    """{"benchmark", "models", "axes": {axis: {"tasks", "common", "ranks": {rule: [..]}, "random": {rule: x}}}}
    over the models the committed board ranks."""
    from sentibench.report.leaderboard import build
    from sentibench.tasks.benchmarks import get_benchmark
    from sentibench.tasks.registry import all_tasks

    benchmark = get_benchmark(benchmark_name)
    board = build(root / "results", benchmark.name)
    levels = benchmark.chance_levels or {t: all_tasks()[t].chance_level() for a in benchmark.axes for t in a.tasks}
    models = [row.model for row in board.overview.ranked]
    from sentibench.report.leaderboard import agreement_text

    out = {"benchmark": benchmark.name, "models": models, "axes": {}, "agreement": agreement_text(board.overview)}
    for axis in benchmark.axes:
        tasks = list(axis.tasks)
        results = [[board.by_model[m][t] for m in models] for t in tasks]
        scores = np.array([[r.main_score() for r in row] for row in results], dtype=np.float64)
        in_domain = np.array([[r.provenance.trained_on_eval_dataset for r in row] for row in results], dtype=bool)
        chance = np.array([levels[t] for t in tasks], dtype=np.float64)
        found = rule_scores(scores, chance, in_domain)
        ranks = {rule: [int(r) for r in rankdata(-np.nan_to_num(v, nan=-np.inf), method="min")]
                 for rule, v in found.items()}
        random = {rule: float(v[models.index("random")]) for rule, v in found.items()} if "random" in models else {}
        out["axes"][axis.name] = {"tasks": len(tasks), "common": int((~in_domain.any(axis=1)).sum()),
                                  "ranks": ranks, "random": random}
    return out


def markdown(found: dict) -> str:
    from tabulate import tabulate

    parts = []
    for axis, data in found["axes"].items():
        rows = [[model, *[data["ranks"][rule][i] for rule in RULES]] for i, model in enumerate(found["models"])]
        rows.sort(key=lambda row: (row[1], row[0]))
        parts.append(f"**{axis}** ({data['tasks']} tasks, {data['common']} of them zero-shot for every ranked model); "
                     "the rank under each rule:\n")
        parts.append(tabulate(rows, headers=["model", *RULES], tablefmt="github", disable_numparse=True))
        if data["random"]:
            scaled = {rule: (f"{value:.2f}" if rule in (RULES[2], RULES[3]) else f"{100 * value:.2f}")
                      for rule, value in data["random"].items()}
            parts.append("\nThe `random` model's score under each: " + ", ".join(f"{r} {v}" for r, v in scaled.items())
                         + " (Borda: minus its mean rank; z-score in board standard deviations).\n")
    return (f"Over the {len(found['models'])} models ranked on the committed `{found['benchmark']}` board. "
            f"{found['agreement']}\n\n" + "\n".join(parts))


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    """docs/benchmarks.md's blocks from the committed results under `root` (benchmarks/doc_blocks.py): v2's board,
    and v1's (its raw axes, with the installed tasks' chance levels) where the rule decided ranks."""
    return {PAGE: {block: markdown(table(root, name)) for block, name in BLOCKS.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", help="a chance-normalised benchmark (default: the current one)")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s generated blocks")
    parser.add_argument("--smoke", action="store_true", help="print the table only (CI)")
    args = parser.parse_args()
    if args.docs:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from doc_blocks import write  # a sibling script

        for page in write(doc_blocks(ROOT), ROOT):
            print(f"rewrote {page}")
        return 0
    print(markdown(table(ROOT, args.benchmark)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
