"""Encode and suite benchmark, measured side by side in one run on the same texts (issue 3, item 8).

    python benchmarks/bench_encode.py [-m all-minilm-l6-v2] [-t TASKS] [--limit N] [--sample 2000]

Prints three ratios:
(a) encode throughput of the harness's encoder divided by sentence-transformers' own `encode` on the
    same model folder and the same texts (a sample of the suite's distinct texts), both batch 32, best of
    `--repeats` interleaved timings; >= 1.0 means the harness is at least as fast;
(b) the suite's cold wall time (`sentibench.runner.run`, empty embedding cache) divided by the time to
    encode the suite's distinct texts once in one bare `encode` call: 1.0 would mean zero overhead beyond
    encoding;
(c) a warm re-run (same cache, every result rewritten) divided by the cold run.
The cold run uses a throw-away SENTIBENCH_HOME whose datasets, downloads and model folders are links to
the real ones, so only the embedding cache starts empty; results go inside it; it is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _throwaway_home() -> Path:
    """A temporary SENTIBENCH_HOME sharing everything with the real one except the embedding cache."""
    from sentibench.paths import home

    real = home()
    fake = Path(tempfile.mkdtemp(prefix="sentibench-bench-"))
    for entry in real.iterdir():
        if entry.name != "embeddings":
            (fake / entry.name).symlink_to(entry)
    return fake


class Recorder:
    """Wraps a bare encoder and keeps every text it is asked to encode (the cache's misses)."""

    def __init__(self, base) -> None:
        self.base, self.name, self.texts = base, base.name, []

    def __getattr__(self, attribute):
        return getattr(self.base, attribute)

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.texts += list(texts)
        return self.base.encode(texts, batch_size=batch_size, show_progress_bar=show_progress_bar)


def run_suite(model: str, task_names: list[str], limit: int | None, out: Path, overwrite: str):
    """Run the suite through the real runner, recording the texts each model actually encodes."""
    import sentibench.runner as runner
    from sentibench.models.loaders import load_encoder
    from sentibench.tasks.registry import resolve

    recorders: list[Recorder] = []

    def recording_encoder(card):
        cached = load_encoder(card)
        cached.base = Recorder(cached.base)
        recorders.append(cached.base)
        return cached

    started = time.perf_counter()
    report = runner.run([model], resolve(task_names), out, overwrite=overwrite, limit=limit,
                        encoder_factory=recording_encoder)
    return time.perf_counter() - started, report, recorders


def time_encode(encode, texts: list[str]) -> float:
    started = time.perf_counter()
    encode(texts)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--model", default="all-minilm-l6-v2")
    parser.add_argument("-t", "--tasks", default=None, help="tasks or groups (default: the runner's default suite)")
    parser.add_argument("--limit", type=int, default=None, help="cap examples per task (a quick run)")
    parser.add_argument("--sample", type=int, default=2000, help="texts for ratio (a)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)

    throwaway = _throwaway_home()
    os.environ["SENTIBENCH_HOME"] = str(throwaway)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return measure(args)
    finally:  # links are removed, never followed
        shutil.rmtree(throwaway, ignore_errors=True)


def measure(args: argparse.Namespace) -> int:
    import numpy as np
    import torch

    from sentibench.models.cards import get_card
    from sentibench.models.loaders import build_encoder, weights_folder
    from sentibench.runner import DEFAULT_TASKS

    task_names = [t.strip() for t in args.tasks.split(",")] if args.tasks else list(DEFAULT_TASKS)
    results = Path(os.environ["SENTIBENCH_HOME"]) / "bench-results"

    cold, cold_report, recorders = run_suite(args.model, task_names, args.limit, results / "cold", "always")
    texts = [t for r in recorders for t in r.texts]
    warm, warm_report, _ = run_suite(args.model, task_names, args.limit, results / "warm", "always")

    card = get_card(args.model)
    harness = build_encoder(card)
    encode_once = time_encode(lambda batch: harness.encode(batch, batch_size=32), texts)

    rng = np.random.default_rng(0)
    sample = [texts[i] for i in rng.permutation(len(texts))[:args.sample]]
    from sentence_transformers import SentenceTransformer

    st_model = SentenceTransformer(str(weights_folder(card)), device="cpu")
    st_model.max_seq_length = getattr(harness, "max_length", st_model.max_seq_length)
    timings = {"harness": [], "sentence_transformers": []}
    with torch.inference_mode():
        for _ in range(args.repeats):
            timings["harness"].append(time_encode(lambda b: harness.encode(b, batch_size=32), sample))
            timings["sentence_transformers"].append(time_encode(
                lambda b: st_model.encode(b, batch_size=32, convert_to_numpy=True, show_progress_bar=False), sample))
    a = min(timings["sentence_transformers"]) / min(timings["harness"])

    numbers = {
        "model": args.model, "tasks": task_names, "limit": args.limit, "torch_threads": torch.get_num_threads(),
        "suite_results": len(cold_report.written), "suite_unavailable": len(cold_report.unavailable),
        "distinct_texts_encoded": len(texts), "warm_run_texts_encoded": warm_report.encoded,
        "cold_suite_s": round(cold, 2), "encode_distinct_once_s": round(encode_once, 2), "warm_suite_s": round(warm, 2),
        "sample_texts": len(sample), "harness_encode_s": [round(t, 3) for t in timings["harness"]],
        "st_encode_s": [round(t, 3) for t in timings["sentence_transformers"]],
        "a_harness_over_st_throughput": round(a, 3),
        "b_cold_suite_over_encode_once": round(cold / encode_once, 3),
        "c_warm_over_cold": round(warm / cold, 4),
    }
    print(json.dumps(numbers, indent=2))
    print(f"(a) harness / sentence-transformers encode throughput: {a:.3f}")
    print(f"(b) cold suite wall time / encode distinct texts once: {cold / encode_once:.3f}")
    print(f"(c) warm re-run / cold run: {warm / cold:.4f}")
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
