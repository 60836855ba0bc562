"""How the method cards trained to a plateau got there, per seed: steps run, the kept step, whether patience
stopped the run or the step cap did, seconds, and the kept validation score, read from each checkpoint's
training report; with the cards' sentibench-lite-v1 axis means from the results folder.

    python benchmarks/plateau_training.py [--results results] [--json docs/plateau-training.json]

Every card named must be trained already (this script trains nothing). `--smoke` checks that the script runs
(on the packaged cards' recipes, without reading any checkpoint) and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tabulate import tabulate

if TYPE_CHECKING:
    from sentibench.results.store import ResultStore

# the four main method cards, and SIFTER-SimCSE's control (the same recipe with dropout-only positives)
CARDS = ("senticse-minilm", "infodcl-minilm", "sifter-simcse-minilm", "simcse-unsup-minilm", "polarity-st-minilm")
BENCHMARK = "sentibench-lite-v1"


def training_summary(folder: Path) -> dict | None:
    """The trace of the finished checkpoint in `folder`: steps, kept step, stop reason, seconds, kept score."""
    from sentibench.models.catalog.trained import training_report, training_trace

    report, trace = training_report(folder), training_trace(folder)
    if not isinstance(report, dict) or trace is None:
        return None
    history = trace.get("history") or []
    scores = [h.get("validation", h.get("polarity_score")) for h in history]
    kept = trace.get("best_step")
    kept_score = trace.get("best_score", trace.get("best_validation_polarity_score"))
    return {"steps": trace.get("steps"), "kept_step": kept, "stopped_early": trace.get("stopped_early"),
            "validations": len(history), "kept_validation": kept_score,
            "first_validation": scores[0] if scores else None, "train_seconds": report.get("train_seconds")}


def lite_axes(store: ResultStore, name: str, revision: str) -> dict[str, float]:
    """A model's axis means x 100 on the lite benchmark (in-domain tasks left out), from one revision."""
    from sentibench.core.errors import BenchError
    from sentibench.report.overview import axis_scores
    from sentibench.results.store import counts_for
    from sentibench.tasks.benchmarks import get_benchmark

    benchmark = get_benchmark(BENCHMARK)
    try:
        found = store.of_model(f"{name}@{revision}")
    except BenchError:  # a card without results has no row
        return {}
    counted = {task: result for task, result in found.items() if counts_for(result, benchmark)}
    out = {}
    for axis in benchmark.axes:
        have = [task for task in axis.tasks if task in counted]
        if len(have) == len(axis.tasks):
            score = axis_scores([counted], have, False, False)[0]
            if score is not None:
                out[axis.name] = round(100 * score.mean, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    from sentibench.models.catalog.cards import packaged_cards
    from sentibench.models.catalog.trained import DONE_FILE, checkpoint_of
    from sentibench.results.store import ResultStore

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    cards = packaged_cards()
    store = None if args.smoke else ResultStore.load(args.results)  # read once, for every card
    rows, records = [], []
    for family in CARDS:
        names = [family, *(f"{family}-seed{seed}" for seed in cards[family].training_seeds)]
        for name in names:
            card = cards[name]
            folder = checkpoint_of(card)
            if args.smoke:
                records.append({"card": name, "seed": card.recipe["seed"], "checkpoint": folder.name})
                continue
            summary = training_summary(folder) if (folder / DONE_FILE).exists() else None
            axes = lite_axes(store, name, card.revision)
            records.append({"card": name, "family": family, "revision": card.revision, "seed": card.recipe["seed"],
                            "training": summary, "lite_axes": axes})
            rows.append([name, card.recipe["seed"], *(("", "", "", "", "") if summary is None else (
                summary["steps"], summary["kept_step"], "patience" if summary["stopped_early"] else "step cap",
                summary["train_seconds"], f"{summary['kept_validation']:.4f}")),
                axes.get("Sentiment", ""), axes.get("Meaning", "")])
    if args.smoke:
        print(f"{len(records)} cards: {', '.join(r['card'] for r in records)}")
        return 0
    print(tabulate(rows, headers=["card", "seed", "steps", "kept step", "stopped by", "train s", "kept validation",
                                  "lite Sentiment", "lite Meaning"], tablefmt="github"))
    earlier = {}
    for family in CARDS:  # the card's other revisions in the results folder (seed 0 of a fixed step budget)
        for folder in sorted((args.results / family).glob("*/")):
            if folder.name != cards[family].revision:
                earlier[f"{family}@{folder.name}"] = lite_axes(store, family, folder.name)
    print(tabulate([[name, axes.get("Sentiment", ""), axes.get("Meaning", "")] for name, axes in earlier.items()],
                   headers=["earlier revision", "lite Sentiment", "lite Meaning"], tablefmt="github"))
    for family in CARDS:
        axes = [r["lite_axes"] for r in records if r["family"] == family and r["lite_axes"]]
        for axis in ("Sentiment", "Meaning"):
            values = [a[axis] for a in axes if axis in a]
            if len(values) >= 2:
                print(f"{family} {axis}: mean {statistics.fmean(values):.2f}, sd {statistics.stdev(values):.2f}, "
                      f"range {min(values):.2f}-{max(values):.2f} over {len(values)} seeds")
    if args.json:
        args.json.write_text(json.dumps({"benchmark": BENCHMARK, "cards": records, "earlier_revisions": earlier},
                                        indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
