"""Fine-tuned few-shot per task: the old seed loop against the current one, same seeds, interleaved (issue 32).

    python benchmarks/bench_fewshot.py [--task fewshot-senticse-k1-mr] [--seeds 2] [--pairs 2] [--limit 200]
                                       [--threads 1] [--profile] [--smoke]

Both sides run the same seeds of the same task (draws as `bench run` makes them; `--limit` caps the validation
draw and the test split as `bench run --limit` does) for each head (`FineTuneConfig.head`): the task as named (the
backbone's own `sequence-classification` head) and its `-pooled-` variant (`pooled-linear`). Old: the loop
before issue 32 (a reference copy of its `fine_tune_seed`: the checkpoint loaded and the validation and test
texts tokenised again for every seed). New: `sentibench.tasks.fewshot.seeds.fine_tune_seed` with one
`PretrainedWeights` per task (one load, the pretrained weights restored in memory per seed, the test set
tokenised once). Sides alternate, the order flipped every pair; each pair gives old seconds / new seconds.
Every seed's test predictions and validation trace must be identical on both sides (the script stops
otherwise).

`--profile`: first cProfile one seed of the new path (top functions by cumulative time). The profile of
issue 32 was taken with `python benchmarks/bench_fewshot.py --task fewshot-senticse-k5-mr --profile --pairs 0`.

`--smoke`: the plug-in fixture's dataset, one seed, one pair, a handful of texts, two epochs (CI: the script
still runs).
JSON to `--output` (default benchmarks/results/; smoke: a temporary folder).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench_encode import MODEL, REPO, SMOKE_DATASET, machine, publish_report, use_smoke_dataset  # a sibling script


def old_fine_tune_seed(seed_run, load_trainable, test_texts: list[str], num_labels: int, config) -> dict:
    """The per-seed work as it was before issue 32 (reference copy): load, tokenise, train, predict."""
    from sentibench.training.finetune import EvalSet, fine_tune

    encoder = load_trainable()
    validation = EvalSet(encoder, seed_run.validation_texts, config.eval_batch_size)
    model, run = fine_tune(encoder, seed_run.train_texts, seed_run.train_labels, validation,
                           seed_run.validation_labels, num_labels, config, seed_run.seed)
    return {"predicted": EvalSet(encoder, test_texts, config.eval_batch_size).predict(model),
            "validation_history": [[s, round(v, 6)] for s, v in run.history], "steps": run.steps}


def seed_work(task_name: str, seeds: int, limit: int | None, max_epochs: int | None = None):
    """The task, its seeds' items (`SeedRun`s exactly as `FewShotTask` makes them), test texts, label count;
    `max_epochs` shortens training (smoke only)."""
    import dataclasses

    from sentibench.tasks.base import EvalContext
    from sentibench.tasks.fewshot.seeds import SeedRun
    from sentibench.tasks.registry import all_tasks

    task = all_tasks()[task_name]
    config = task.protocol.config if max_epochs is None else dataclasses.replace(
        task.protocol.config, max_epochs=max_epochs, eval_steps=1)
    task.protocol = dataclasses.replace(task.protocol, seeds=seeds, config=config)
    data = task.data(limit)
    runs = [SeedRun(task.name, d.seed, [data.train_texts[i] for i in d.train], data.train_labels[d.train].tolist(),
                    [data.validation_texts[i] for i in d.validation], data.validation_labels[d.validation].tolist())
            for d in task.draws(data, EvalContext(seed=0, limit=limit))]
    num_labels = int(max(data.train_labels.max(), data.test_labels.max())) + 1
    return task, runs, data.test_texts, num_labels


def run_side(side: str, load, task, seed_runs, test_texts, num_labels) -> tuple[float, float, list[dict]]:
    """Wall and CPU seconds of every seed of one side, and each seed's outcome."""
    from sentibench.tasks.fewshot.seeds import fine_tune_seed
    from sentibench.training.finetune import PretrainedWeights

    config = task.protocol.config
    weights = PretrainedWeights(load)
    wall, cpu = time.perf_counter(), time.process_time()
    if side == "old":
        out = [old_fine_tune_seed(r, load, test_texts, num_labels, config) for r in seed_runs]
    else:
        out = [fine_tune_seed(r, weights, test_texts, num_labels, config) for r in seed_runs]
    return time.perf_counter() - wall, time.process_time() - cpu, out


def profile_one_seed(load, task, seed_runs, test_texts, num_labels) -> str:
    from sentibench.tasks.fewshot.seeds import fine_tune_seed
    from sentibench.training.finetune import PretrainedWeights

    profiler = cProfile.Profile()
    profiler.enable()
    fine_tune_seed(seed_runs[0], PretrainedWeights(load), test_texts, num_labels, task.protocol.config)
    profiler.disable()
    text = tempfile.SpooledTemporaryFile(mode="w+")
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
    text.seek(0)
    return text.read()


def compare(task_name: str, args: argparse.Namespace, load) -> dict:
    task, seed_runs, test_texts, num_labels = seed_work(task_name, args.seeds, args.limit, 2 if args.smoke else None)
    entry: dict = {"task": task_name, "head": task.protocol.config.head, "seeds": [r.seed for r in seed_runs],
                   "train_size": len(seed_runs[0].train_texts), "validation_size": len(seed_runs[0].validation_texts),
                   "test_size": len(test_texts), "wall_s": {"old": [], "new": []}, "cpu_s": {"old": [], "new": []}}
    if args.profile:
        entry["profile"] = profile_one_seed(load, task, seed_runs, test_texts, num_labels)
        print(f"\n{task_name}: one seed, new path\n{entry['profile']}")
    for pair in range(args.pairs):
        outcomes = {}
        for side in (("old", "new") if pair % 2 == 0 else ("new", "old")):
            wall, cpu, outcomes[side] = run_side(side, load, task, seed_runs, test_texts, num_labels)
            entry["wall_s"][side].append(round(wall, 3))
            entry["cpu_s"][side].append(round(cpu, 3))
        for old, new in zip(outcomes["old"], outcomes["new"]):
            if old["predicted"].tolist() != new["predicted"].tolist() or \
                    old["validation_history"] != new["validation_history"]:
                raise SystemExit(f"{task_name}: the old and new paths disagree on a seed")
        entry["steps"] = [o["steps"] for o in outcomes["new"]]
    if args.pairs:
        ratios = [o / n for o, n in zip(entry["wall_s"]["old"], entry["wall_s"]["new"])]
        entry["ratio_wall"] = {"median": round(statistics.median(ratios), 4), "min": round(min(ratios), 4),
                               "max": round(max(ratios), 4)}
        entry["identical_predictions"] = True
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="fewshot-senticse-k1-mr", help="a fine-tuning task (default head)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="cap on validation and test texts (bench run --limit)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile one seed of the new path first")
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args(argv)
    if args.smoke:
        use_smoke_dataset()
        args.task, args.seeds, args.pairs, args.limit = f"fewshot-senticse-k1-{SMOKE_DATASET}", 1, 1, 4
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    from sentibench.models import card_for, load_trainable

    torch.set_num_threads(args.threads)
    card = card_for(MODEL)

    def load():
        return load_trainable(card, device="cpu")

    load()  # imports and OS caches, untimed
    report = {"started_at": datetime.now(UTC).isoformat(timespec="seconds"), "load_before": os.getloadavg(),
              "machine": machine(), "model": MODEL, "arguments": vars(args) | {"output": None}}
    heads = [args.task, args.task.replace("fewshot-senticse-", "fewshot-senticse-pooled-", 1)
             .replace("fewshot-infodcl-", "fewshot-infodcl-pooled-", 1)]
    report["tasks"] = [compare(name, args, load) for name in dict.fromkeys(heads)]
    report["load_after"] = os.getloadavg()
    for entry in report["tasks"]:
        if "ratio_wall" in entry:
            print(f"{entry['task']} ({entry['head']}, {len(entry['seeds'])} seeds, validation "
                  f"{entry['validation_size']}, test {entry['test_size']}): old {entry['wall_s']['old']} s, new "
                  f"{entry['wall_s']['new']} s; old/new median {entry['ratio_wall']['median']} "
                  f"(min {entry['ratio_wall']['min']}, max {entry['ratio_wall']['max']}); predictions identical")
    publish_report(report, "fewshot", args.output, args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
