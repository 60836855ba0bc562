"""What MKL's strict reproducible mode costs, and what it buys: batch invariance on CPUs with AVX-512.

    python benchmarks/bench_strict_gemm.py [--rounds 5] [--short 600] [--long 60] [--smoke]

On an AVX-512 CPU (a Sapphire Rapids Xeon here) torch's float32 matrix products (MKL sgemm) pick kernels by
the product's row count, so a text's vector changed with its batch-mates' count even in the harness's
unpadded one-thread passes: tests/test_batch_invariance.py failed there while passing on AVX2 CPUs. MKL's
conditional numerical reproducibility in strict mode (`MKL_CBWR=AUTO,STRICT`: the best instruction set, one
summation order whatever the shape) removes it, and sentibench sets it at import unless the user set
MKL_CBWR (sentibench/__init__.py; an empty value keeps MKL's default). Each setting runs in a fresh process
(MKL reads the variable once): the same texts (MR sentences and IMDB reviews cut at 256 tokens) encoded by
all-MiniLM-L6-v2 at one thread, then re-encoded one at a time; a setting is batch-invariant when every
vector is the same bits both ways. Rounds rotate the order of the settings, and each round gives one ratio
per setting (its seconds / the default's), so load that comes and goes hits every side alike; the table
gives the median, min and max ratio.

`--smoke`: a check that the script still runs (CI): 4 texts, one round, no timing means anything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SETTINGS = {"MKL default (MKL_CBWR empty)": "", "AUTO,STRICT": "AUTO,STRICT", "AVX2,STRICT": "AVX2,STRICT"}
SMOKE_TEXTS = ["A dull, tedious meal.", "Lovely staff, lovely room.", "I would not come back.",
               "The soup was rich and full of flavour, and the bread was fresh."]


def texts(short: int, long: int, smoke: bool) -> list[str]:
    if smoke:
        return SMOKE_TEXTS
    import numpy as np

    from sentibench.data import get_dataset

    mr = get_dataset("mr").split("test").data.column("text").to_pylist()
    imdb = get_dataset("imdb").split("test").data.column("text").to_pylist()
    rng = np.random.default_rng(0)
    return [mr[i] for i in rng.permutation(len(mr))[:short]] + [imdb[i] for i in rng.permutation(len(imdb))[:long]]


def child(args: argparse.Namespace) -> None:
    """Encode in batches (timed), then each text alone; print seconds and the rows that differ."""
    import numpy as np
    import torch

    torch.set_num_threads(1)
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import build_encoder

    encoder = build_encoder(get_card("all-minilm-l6-v2"), device="cpu")
    chosen = texts(args.short, args.long, args.smoke)
    started = time.perf_counter()
    batched = encoder.encode(chosen, batch_size=32)
    seconds = time.perf_counter() - started
    alone = np.stack([encoder.encode([text], batch_size=1)[0] for text in chosen])
    differing = int((~np.all(batched == alone, axis=1)).sum())
    print(json.dumps({"seconds": seconds, "texts": len(chosen), "rows_differing": differing,
                      "mkl_cbwr": os.environ.get("MKL_CBWR")}))


def run_setting(value: str, args: argparse.Namespace) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_CBWR": value}  # empty: MKL's own default
    argv = [sys.executable, __file__, "--child", "--short", str(args.short), "--long", str(args.long)]
    done = subprocess.run(argv + (["--smoke"] if args.smoke else []), env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each running every setting once")
    parser.add_argument("--short", type=int, default=600, help="MR test sentences")
    parser.add_argument("--long", type=int, default=60, help="IMDB test reviews")
    parser.add_argument("--smoke", action="store_true", help="4 texts, one round (CI)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    rounds = 1 if args.smoke else args.rounds
    names = list(SETTINGS)
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            runs[name].append(run_setting(SETTINGS[name], args))
    base = [run["seconds"] for run in runs[names[0]]]
    print(f"{runs[names[0]][0]['texts']} texts, all-MiniLM-L6-v2, 1 thread, {rounds} round(s); "
          "ratio = seconds / the default's seconds in the same round")
    print(f"{'setting':<26} {'median s':>9} {'ratio median':>13} {'min':>6} {'max':>6} {'rows differing':>15}")
    for name in names:
        seconds = [run["seconds"] for run in runs[name]]
        ratios = [s / b for s, b in zip(seconds, base)]
        differing = max(run["rows_differing"] for run in runs[name])
        print(f"{name:<26} {statistics.median(seconds):9.2f} {statistics.median(ratios):13.3f} "
              f"{min(ratios):6.3f} {max(ratios):6.3f} {differing:15d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
