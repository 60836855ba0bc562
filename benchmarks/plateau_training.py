"""How the method cards trained to a plateau got there, per seed: steps run, the kept step, whether patience
stopped the run or the step cap did, seconds, and the kept validation score, read from the training logs committed
beside each card's results (`results/<card>/<revision>/training.json`); with the cards' sentibench-lite-v1 axis
means from the same results folder. Reads committed files only, so a fresh clone reproduces its output.

    python benchmarks/plateau_training.py [--results results] [--json FILE] [--docs]

`--docs` rewrites docs/plateau-training.json and the seed tables of the method docs (benchmarks/doc_blocks.py).
`--smoke` checks that the script runs (on the packaged cards' recipes) and writes nothing.
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
PATIENCE = 4  # every method's `plateau` preset: validations without improvement before it stops
JSON_FILE = "docs/plateau-training.json"
SEED_TABLES = {  # family -> (page, what its validation score is)
    "senticse-minilm": ("docs/senticse.md", "MR validation SgTS"),
    "infodcl-minilm": ("docs/infodcl.md", "minus held-out loss"),
    "sifter-simcse-minilm": ("docs/sifter.md", "STS-B validation Spearman"),
    "simcse-unsup-minilm": ("docs/sifter.md", "STS-B validation Spearman"),
    "polarity-st-minilm": ("docs/polarity.md", "Polarity Score, 200 MR validation queries"),
}


def training_summary(folder: Path) -> dict | None:
    """The committed training log in `folder` (None without one): steps, kept step, whether patience stopped the
    run, validations, the kept and the first validation score, and the training loop's seconds (the log's `seconds`;
    the checkpoint's own report, not committed, also counts data preparation and saving)."""
    from sentibench.results.training_log import read_training_log

    log = read_training_log(folder)
    if log is None:
        return None
    scores = {point["step"]: point.get("validation", point.get("polarity_score")) for point in log.history}
    after = sum(step > (log.best_step if log.best_step is not None else log.steps) for step in scores)
    return {"steps": log.steps, "kept_step": log.best_step, "stopped_early": after >= PATIENCE,
            "validations": len(scores), "kept_validation": scores.get(log.best_step),
            "first_validation": next(iter(scores.values()), None), "loop_seconds": log.seconds}


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


def collect(results: Path) -> dict:
    """The records docs/plateau-training.json holds: each card's training and lite axes, and every earlier
    revision of a family's seed-0 card in the results folder."""
    from sentibench.models.catalog.cards import packaged_cards
    from sentibench.results.store import ResultStore

    cards, store = packaged_cards(), ResultStore.load(results)  # read once, for every card
    records, earlier = [], {}
    for family in CARDS:
        for name in [family, *(f"{family}-seed{seed}" for seed in cards[family].training_seeds)]:
            card = cards[name]
            records.append({"card": name, "family": family, "revision": card.revision, "seed": card.recipe["seed"],
                            "training": training_summary(results / name / card.revision),
                            "lite_axes": lite_axes(store, name, card.revision)})
        for folder in sorted((results / family).glob("*/")):  # seed 0 of earlier recipes
            if folder.name != cards[family].revision:
                earlier[f"{family}@{folder.name}"] = lite_axes(store, family, folder.name)
    return {"benchmark": BENCHMARK, "cards": records, "earlier_revisions": earlier}


def spread(values: list[float]) -> str:
    return f"**{statistics.fmean(values):.2f} ± {statistics.stdev(values):.2f} ({min(values):.2f}-{max(values):.2f})**"


def axis_cells(lite: dict[str, float]) -> list[str]:
    return [f"{lite[axis]:.2f}" if axis in lite else "" for axis in ("Sentiment", "Meaning")]


def training_cells(summary: dict | None) -> list:
    if summary is None:
        return ["", "", "", "", ""]
    kept = summary["kept_validation"]
    return [summary["steps"], "" if summary["kept_step"] is None else summary["kept_step"],
            "patience" if summary["stopped_early"] else "step cap", f"{summary['loop_seconds']:.0f}",
            "" if kept is None else f"{kept:.4f}"]


def seed_table(found: dict, family: str, results: Path) -> str:
    """A family's seeds, their mean ± sd (range) on each lite axis, and its earlier revisions (seed 0)."""
    records = [r for r in found["cards"] if r["family"] == family]
    rows = [[r["seed"], *training_cells(r["training"]), *axis_cells(r["lite_axes"])] for r in records]
    axes = [[r["lite_axes"][axis] for r in records if axis in r["lite_axes"]] for axis in ("Sentiment", "Meaning")]
    rows.append(["**mean ± sd (range)**", "", "", "", "", "", *(spread(v) if len(v) >= 2 else "" for v in axes)])
    for name, lite in found["earlier_revisions"].items():
        card, revision = name.split("@")
        if card == family:
            rows.append([f"`{revision}` (seed 0)", *training_cells(training_summary(results / card / revision)),
                         *axis_cells(lite)])
    headers = ["seed", "steps run", "kept step", "stopped by", "training loop s (wall)",
               f"kept validation ({SEED_TABLES[family][1]})", "lite Sentiment", "lite Meaning"]
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True) + "\n"


def doc_blocks(root: Path) -> dict:
    """docs/plateau-training.json and the method docs' seed tables, from the committed results under `root`."""
    found = collect(root / "results")
    out: dict = {JSON_FILE: json.dumps(found, indent=2) + "\n"}
    for family, (page, _) in SEED_TABLES.items():
        out.setdefault(page, {})[f"seeds-{family}"] = seed_table(found, family, root / "results")
    return out


def main(argv: list[str] | None = None) -> int:
    from sentibench.models.catalog.cards import packaged_cards
    from sentibench.models.catalog.trained import checkpoint_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="the results folder read")
    parser.add_argument("--json", type=Path, default=None, help="also write the records as JSON here")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {JSON_FILE} and the method docs' seed tables "
                        "from the committed results")
    parser.add_argument("--smoke", action="store_true", help="check the script runs; read and write nothing")
    args = parser.parse_args(argv)
    if args.smoke:
        cards = packaged_cards()
        names = [n for family in CARDS for n in [family, *(f"{family}-seed{s}" for s in cards[family].training_seeds)]]
        print(f"{len(names)} cards: {', '.join(f'{n} ({checkpoint_of(cards[n]).name})' for n in names)}")
        return 0
    found = collect(args.results)
    rows = [[r["card"], r["seed"], *training_cells(r["training"]), r["lite_axes"].get("Sentiment", ""),
             r["lite_axes"].get("Meaning", "")] for r in found["cards"]]
    print(tabulate(rows, headers=["card", "seed", "steps", "kept step", "stopped by", "loop s", "kept validation",
                                  "lite Sentiment", "lite Meaning"], tablefmt="github"))
    print(tabulate([[name, axes.get("Sentiment", ""), axes.get("Meaning", "")]
                    for name, axes in found["earlier_revisions"].items()],
                   headers=["earlier revision", "lite Sentiment", "lite Meaning"], tablefmt="github"))
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n")
        print(f"wrote {args.json}")
    if args.docs:
        from doc_blocks import ROOT, write  # a sibling script

        for page in write(doc_blocks(ROOT), ROOT):  # from the committed results, whatever --results says
            print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
