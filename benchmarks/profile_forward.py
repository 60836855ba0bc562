"""Where a forward pass of long texts spends its time, and what the CPU token budget changes (issue 18).

    python benchmarks/profile_forward.py [--rounds 6] [--threads 1] [--bf16 [--short 300]] [--smoke]

32 IMDB test reviews longer than 2,500 characters (so every one fills 256 tokens) go through
all-MiniLM-L6-v2's transformer (1) as one forward pass of 32 x 256 positions and (2) as passes within
`sentibench.embed.batching.CPU_TOKENS_PER_FORWARD` (1,024 positions: 4 reviews a pass). Printed: torch's profiler
table of the top operators for each, then both run interleaved (order flipped every round) with the wall
seconds and the minor page faults (`getrusage`) of each, their medians and the ratio. `--smoke` (CI: the
script still runs) takes 8 made-up long texts and one round.

`--bf16` (issue 32: bf16's share of its probe): `--short` MR sentences encoded by the harness in bfloat16
three ways, interleaved: the model cast to bfloat16 with sdpa attention (what `--dtype bfloat16` does), the
same with eager attention, and the float32 model under `torch.autocast(bfloat16)`; each one's GFLOP/s as a
share of the bfloat16 matmul probe timed after every encode, its largest coordinate difference from float32,
and torch's profiler table of the first.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from bench_encode import benchmark_texts, forward_flops, matmul_probe, smoke_long_texts  # a sibling script


def bf16_shares(texts: list[str], rounds: int) -> None:
    """bf16 variants' GFLOP/s as a share of the bf16 matmul probe, and their distance from float32."""
    import dataclasses
    from contextlib import nullcontext

    import numpy as np
    import torch
    from torch.profiler import ProfilerActivity, profile

    from sentibench.embed.batching import token_budget_batches
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import build_encoder

    card = get_card("all-minilm-l6-v2")
    f32 = build_encoder(card, device="cpu")
    cast, eager = (build_encoder(dataclasses.replace(card, dtype="bfloat16"), device="cpu") for _ in range(2))
    eager.model.set_attn_implementation("eager")
    variants = {"bf16 model, sdpa": (cast, nullcontext), "bf16 model, eager": (eager, nullcontext),
                "autocast bf16": (f32, lambda: torch.autocast("cpu", dtype=torch.bfloat16))}
    reference = f32.encode(texts, show_progress_bar=False)
    lengths = [len(ids) for ids in f32.tokenizer(texts, truncation=True, max_length=f32.max_length)["input_ids"]]
    flops = forward_flops(f32.model.config, lengths, token_budget_batches(lengths, 32, f32.tokens_per_forward))
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    probes: list[float] = []

    def encode(name: str) -> np.ndarray:
        encoder, context = variants[name]
        with context():
            return encoder.encode(texts, show_progress_bar=False)

    differences = {name: float(np.abs(encode(name) - reference).max()) for name in variants}
    for round_ in range(rounds):
        for name in (list(variants) if round_ % 2 == 0 else list(variants)[::-1]):
            started = time.perf_counter()
            encode(name)
            seconds[name].append(time.perf_counter() - started)
            probes.append(matmul_probe(torch.bfloat16))
    probe = statistics.median(probes)
    for name in variants:
        rate = flops / statistics.median(seconds[name]) / 1e9
        print(f"{name}: median {statistics.median(seconds[name]):.3f} s, {rate:.1f} GFLOP/s = {rate / probe:.3f} of "
              f"the bf16 probe ({probe:.1f}); max |difference from float32| {differences[name]:.5f}")
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU]) as prof:
        encode("bf16 model, sdpa")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bf16", action="store_true", help="bf16 variants' share of the bf16 matmul probe")
    parser.add_argument("--short", type=int, default=300, help="MR sentences for --bf16")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rounds = 1
    import torch

    if args.bf16:
        torch.set_num_threads(args.threads)
        bf16_shares(benchmark_texts(args.short, 0, smoke=args.smoke)["short"], args.rounds)
        return
    from torch.profiler import ProfilerActivity, profile

    from sentibench.data import get_dataset
    from sentibench.embed.batching import CPU_TOKENS_PER_FORWARD
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import build_encoder

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
