"""Where a forward pass of long texts spends its time, and what the CPU token budget changes (issue 18).

    python benchmarks/profile_forward.py [--rounds 6] [--threads 1] [--smoke]

32 IMDB test reviews longer than 2,500 characters (so every one fills 256 tokens) go through
all-MiniLM-L6-v2's transformer (1) as one forward pass of 32 x 256 positions and (2) as passes within
`sentibench.embed.encoders.CPU_TOKENS_PER_FORWARD` (1,024 positions: 4 reviews a pass). Printed: torch's profiler
table of the top operators for each, then both run interleaved (order flipped every round) with the wall
seconds and the minor page faults (`getrusage`) of each, their medians and the ratio. `--smoke` (CI: the
script still runs) takes 8 made-up long texts and one round.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from bench_encode import smoke_long_texts  # a sibling script (benchmarks/ is the script's folder)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rounds = 1
    import torch
    from torch.profiler import ProfilerActivity, profile

    from sentibench.data import get_dataset
    from sentibench.embed.encoders import CPU_TOKENS_PER_FORWARD
    from sentibench.models.cards import get_card
    from sentibench.models.loaders import build_encoder

    torch.set_num_threads(args.threads)
    encoder = build_encoder(get_card("all-minilm-l6-v2"), device="cpu")
    reviews = (smoke_long_texts(8, 2500) if args.smoke else
               [t for t in get_dataset("imdb").columns("test", ("text",))["text"] if len(t) > 2500][:32])
    features = encoder.tokenize(reviews)
    per_pass = max(1, CPU_TOKENS_PER_FORWARD // features["input_ids"].shape[1])
    variants = {f"one pass of {len(reviews)}": len(reviews),
                f"passes of {per_pass} (budget {CPU_TOKENS_PER_FORWARD})": per_pass}

    def forward(size: int) -> None:
        for start in range(0, len(reviews), size):
            encoder.model(**{k: v[start:start + size] for k, v in features.items()})

    with torch.inference_mode():
        for name, size in variants.items():
            forward(size)
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                forward(size)
            print(f"\n{name}, {tuple(features['input_ids'].shape)} positions in all")
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))
        seconds = {name: [] for name in variants}
        faults = {name: [] for name in variants}
        for round_ in range(args.rounds):
            for name, size in (list(variants.items()) if round_ % 2 == 0 else list(variants.items())[::-1]):
                before, started = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.perf_counter()
                forward(size)
                seconds[name].append(time.perf_counter() - started)
                faults[name].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    one, budget = variants
    for name in variants:
        print(f"{name}: median {statistics.median(seconds[name]):.3f} s, "
              f"{statistics.median(faults[name]):,.0f} minor page faults per {len(reviews)} reviews")
    print(f"one pass / budget: {statistics.median(seconds[one]) / statistics.median(seconds[budget]):.3f}")


if __name__ == "__main__":
    main()
