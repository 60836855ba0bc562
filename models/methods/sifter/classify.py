"""SIFTER's Table 3 on our data: SIFTER-LSTM vs the standard LSTM as sentence *classifiers*, test accuracy
mean ± std over seeds (the paper: SST-2, 5 seeds, 85.37 ± 0.31 vs 84.97 ± 0.38; SST-2 is hub-only, so MR).

Each (gate, seed) trains the preset from scratch on the train split, keeps the best validation-accuracy
state, and only then scores the test split once. The std is the sample standard deviation (ddof 1; the
paper does not say which). The output JSON is rewritten after every run, and runs already in it are
skipped, so an interrupted comparison resumes.

    bench sifter-lstm classify --seeds 0,1,2,3,4 --output docs/sifter-lstm-mr-seeds.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from sentibench.core.io import atomic_write_json
from sentibench.core.provenance import git_commit, versions
from sentibench.data import get_dataset
from sentibench.models.methods.sifter.lstm_train import accuracy, build, fit, resolve_config
from sentibench.training.methods import BaseModel, Services
from sentibench.training.options import parse_option_pairs

GATES = ("sifter", "standard")


def run_seed(gate: str, seed: int, base: BaseModel, data: str, preset: str, options: dict[str, str]
             ) -> dict[str, Any]:
    """Train one classifier; its validation (selection) and test accuracy."""
    config = resolve_config(preset, {**options, "gate": gate})
    encoder, _ = build(base, config, None, config.max_length)
    dataset = get_dataset(data)
    train, valid, test = (dataset.split(name) for name in ("train", "validation", "test"))
    started = time.perf_counter()
    run = fit(encoder, list(train["text"]), list(train["label"]), list(valid["text"]), list(valid["label"]),
              config, seed, progress=False)
    return {"gate": gate, "seed": seed, "validation_accuracy": run.best_score, "best_step": run.best_step,
            "test_accuracy": accuracy(encoder, list(test["text"]), np.asarray(test["label"])),
            "seconds": round(time.perf_counter() - started, 1), "commit": git_commit()}


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for gate in GATES:
        values = [r["test_accuracy"] for r in runs if r["gate"] == gate]
        if values:
            out[gate] = {"n": len(values), "mean": float(np.mean(values)),
                         "std": float(np.std(values, ddof=1)) if len(values) > 1 else None}
    return out


def command(args: argparse.Namespace, services: Services) -> int:
    """`bench sifter-lstm classify`: both gates on every seed, resumable, into one JSON record."""
    options = parse_option_pairs(args.option)
    base = services.base(args.base)
    record = json.loads(args.output.read_text()) if args.output.exists() else {"runs": []}
    done = {(r["gate"], r["seed"]) for r in record["runs"]}
    for seed in (int(s) for s in args.seeds.split(",")):
        for gate in GATES:
            if (gate, seed) in done:
                continue
            record["runs"].append(run_seed(gate, seed, base, args.data, args.preset, options))
            print(json.dumps(record["runs"][-1]), file=sys.stderr)
            record.update({"summary": summarise(record["runs"]), "base": args.base, "data": args.data,
                           "data_hash": get_dataset(args.data).content_hash, "preset": args.preset,
                           "options": options, "commit": git_commit(), "versions": versions(),
                           "std": "sample standard deviation (ddof 1)"})
            atomic_write_json(args.output, record)
    return 0
