"""Encoding speed and fixed costs, measured so that the ratios hold on a loaded machine (issue 18).

    python benchmarks/bench_encode.py [--pairs 6] [--threads 1] [--short 1000] [--long 200]
                                      [--cli-repeats 5] [--baseline-bench PATH] [--scores] [--suite]

Encode ratios. Two encoders of the same model folder encode the same texts (same threads, batch size 32,
max length 256, the same attention implementation) in alternating chunks, the order flipped every pair
(A B, B A, A B, ...); each pair gives one ratio (B's seconds / A's: above 1, A is faster), so load that
comes and goes hits both sides of a pair alike. The table gives the median, min and max of the per-pair
ratios, for short texts (MR sentences) and long texts (IMDB reviews, cut at 256 tokens) separately, the
token positions each side computes (its forward passes padded to their longest text: the harness batches
by token count within its CPU token budget, sentence-transformers by character count) against the real
tokens, and each side's achieved GFLOP/s against a matmul probe of the same dtype timed in the same
process after every pair. Pairs: harness (unpadded one-thread passes of equal-length texts, batch-invariant:
issue 45) vs harness-padded (the padded, intra-op-threaded batches of earlier releases: what batch invariance
costs); harness vs sentence-transformers' own `encode` (float32); harness vs the
harness running each batch of 32 as one forward pass (the effect of the CPU token budget,
`sentibench.embed.batching.CPU_TOKENS_PER_FORWARD`); harness bfloat16 vs harness float32 (with the largest
coordinate difference and the smallest cosine between the two vectors of a text; `--skip bf16` leaves it
out, for CPUs without bf16 instructions, where bf16 is emulated and several times slower).

Fixed costs. `bench list tasks`, `bench leaderboard`, a no-op `bench run` (every default result present)
and a warm-cache recompute of the SgTS group (`--overwrite-strategy always`) each run as a fresh process,
start-up included, round-robin for `--cli-repeats` rounds after one untimed warm-up; wall and CPU seconds.
`--baseline-bench PATH` times another `bench` executable (an older checkout's) in the same rounds.

`--smoke`: a check that the script still runs (CI runs it; no timing means anything): a handful of texts,
one pair, no bf16, no mteb ratio, `bench list tasks` once as the only process, the JSON to a temporary folder.

The mteb ratio (`benchmarks/bench_mteb_ratio.py`): the same tasks through `mteb.evaluate` and `bench run`,
cold, interleaved for `--mteb-pairs` rounds (default 3; `--skip mteb` leaves it out), with both sides' scores.

`--suite`: `bench run -m all-minilm-l6-v2 -t required` (the 35 tasks a submission needs) in a throw-away home
whose embedding cache starts empty, first cold, then warm (every text cached), each a fresh process: wall and CPU
seconds, texts encoded, and whether the warm run's scores equal the cold run's (smoke: `sgts-mr --limit 16`).

`--scores`: the SgTS group (the default suite) run cold in float32 and in bfloat16, as processes, in a
throw-away home whose embedding cache starts empty (datasets and models are linked from the real one):
each run's wall time and each task's score difference.

The benchmark sets its own thread count (`--threads`, default 1, torch.set_num_threads; child processes
get OMP_NUM_THREADS). One table to stdout; JSON to `--output` (default benchmarks/results/) with the
machine's description, the load average before and after, and the git commit that measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

MODEL = "all-minilm-l6-v2"
BATCH = 32
REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "tests" / "fixtures" / "plugin"  # the smoke modes' dataset: `plugin-reviews`, 48 sentences
SMOKE_DATASET = "plugin-reviews"
SMOKE_TEXTS = [
    "The soup was rich and full of flavour.", "Our waiter was kind and attentive all evening.",
    "A dull, tedious meal.", "The bread was stale and the coffee cold.", "Lovely staff, lovely room.",
    "I would not come back.", "Fresh, bright and generous.", "Noisy, slow and overpriced.",
]


def use_smoke_dataset() -> None:
    """`--smoke` of every benchmark: the plug-in fixture (tests/fixtures/plugin) on the path here and in child
    processes (Ray workers included), so its dataset and tasks exist offline in an empty home."""
    sys.path.insert(0, str(PLUGIN))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGIN), os.environ.get("PYTHONPATH")]))


def smoke_long_texts(count: int, characters: int) -> list[str]:
    """`count` distinct texts of at least `characters` characters made of the smoke sentences."""
    return [f"Visit {k}. " + " ".join(SMOKE_TEXTS * (characters // 200 + 1)) for k in range(count)]


# --- encode ratios -----------------------------------------------------------------------------------------

def benchmark_texts(short: int, long: int, seed: int = 0, smoke: bool = False) -> dict[str, list[str]]:
    """`short` MR sentences (every split) and `long` IMDB test reviews, seeded samples (smoke: fixed texts)."""
    import numpy as np

    if smoke:
        return {"short": SMOKE_TEXTS[:short], "long": smoke_long_texts(long, 1200)}

    from sentibench.data import get_dataset

    mr = [t for split in get_dataset("mr").splits.values() for t in split.data.column("text").to_pylist()]
    imdb = get_dataset("imdb").split("test").data.column("text").to_pylist()
    rng = np.random.default_rng(seed)
    return {"short": [mr[i] for i in rng.permutation(len(mr))[:short]],
            "long": [imdb[i] for i in rng.permutation(len(imdb))[:long]]}


def padded_positions(lengths: list[int], batches: list[list[int]]) -> int:
    """Token positions computed when each batch (one forward pass) is padded to its longest text."""
    return sum(len(b) * max(lengths[i] for i in b) for b in batches)


def forward_flops(config, lengths: list[int], batches: list[list[int]]) -> float:
    """Multiply-adds x 2 of the encoder's forward on padded batches: per layer the Q, K, V and output
    projections (4 h^2), the feed-forward (2 h f) per position, and attention scores plus weighted sum
    (2 s h per position)."""
    h, f, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    total = 0.0
    for batch in batches:
        positions, width = len(batch) * max(lengths[j] for j in batch), max(lengths[j] for j in batch)
        total += 2 * layers * positions * (4 * h * h + 2 * h * f + 2 * width * h)
    return total


def matmul_probe(dtype, rows: int = 2048, inner: int = 384, cols: int = 1536, repeats: int = 20) -> float:
    """GFLOP/s of a plain (rows x inner) @ (inner x cols) matmul in `dtype`: what this process can reach now."""
    import torch

    x, w = torch.randn(rows, inner, dtype=dtype), torch.randn(inner, cols, dtype=dtype)
    x @ w
    started = time.perf_counter()
    for _ in range(repeats):
        x @ w
    return 2 * rows * inner * cols * repeats / (time.perf_counter() - started) / 1e9


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 4), "min": round(min(values), 4),
            "max": round(max(values), 4)}


def interleaved(encoders: dict, a: str, b: str, texts: list[str], pairs: int,
                dtypes: tuple[str, ...] = ("float32", "bfloat16")) -> dict:
    """Alternate A and B (order flipped each pair); per-pair ratios of wall and of CPU seconds, and the
    matmul probe's GFLOP/s in each of `dtypes` after each pair."""
    import torch

    wall: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    probes: dict[str, list[float]] = {dtype: [] for dtype in dtypes}
    for name in (a, b):
        encoders[name](texts[:BATCH])  # warm-up: first-call allocations, lazy initialisation
    for k in range(pairs):
        for name in ((a, b) if k % 2 == 0 else (b, a)):
            started, started_cpu = time.perf_counter(), time.process_time()
            encoders[name](texts)
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
        for dtype in probes:
            probes[dtype].append(round(matmul_probe(getattr(torch, dtype)), 2))
    return {"wall_s": wall, "cpu_s": cpu, "probe_gflops": probes,
            "ratio_wall": summary([tb / ta for ta, tb in zip(wall[a], wall[b])]),
            "ratio_cpu": summary([tb / ta for ta, tb in zip(cpu[a], cpu[b])])}


def bf16_agreement(low, reference) -> dict:
    """The largest coordinate difference and the smallest cosine between a text's bf16 and float32 vectors."""
    import numpy as np

    cosine = (low * reference).sum(1) / np.linalg.norm(low, axis=1) / np.linalg.norm(reference, axis=1)
    return {"max_abs_diff": float(np.abs(low - reference).max()), "min_cosine": float(cosine.min())}


def encode_benchmark(args: argparse.Namespace) -> dict:
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from sentibench.embed.batching import equal_length_batches, token_budget_batches
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import build_encoder, weights_folder

    torch.set_num_threads(args.threads)
    card = get_card(MODEL)
    f32 = build_encoder(card, device="cpu")
    one_pass = build_encoder(card, device="cpu")
    one_pass.tokens_per_forward = None  # the whole batch in one forward pass: the token budget's effect
    one_pass.equal_lengths = False
    padded = build_encoder(card, device="cpu")
    padded.equal_lengths = False  # the padded batches (intra-op threads) before issue 45: batch invariance's cost
    with_bf16 = "bf16" not in args.skip
    bf16 = build_encoder(replace(card, dtype="bfloat16"), device="cpu") if with_bf16 else None
    st = SentenceTransformer(str(weights_folder(card)), device="cpu")
    st.max_seq_length = f32.max_length
    encoders = {
        "harness": lambda texts: f32.encode(texts, batch_size=BATCH, show_progress_bar=False),
        "harness-one-pass": lambda texts: one_pass.encode(texts, batch_size=BATCH, show_progress_bar=False),
        "harness-padded": lambda texts: padded.encode(texts, batch_size=BATCH, show_progress_bar=False),
        "harness-bf16": lambda texts: bf16.encode(texts, batch_size=BATCH, show_progress_bar=False),  # if built
        "sentence-transformers": lambda texts: st.encode(texts, batch_size=BATCH, convert_to_numpy=True,
                                                         show_progress_bar=False),
    }
    attention = {"harness": f32.model.config._attn_implementation,
                 "sentence-transformers": st[0].auto_model.config._attn_implementation}
    out = {"attention": attention, "threads": torch.get_num_threads(), "sets": {}}
    for kind, texts in benchmark_texts(args.short, args.long, smoke=args.smoke).items():
        lengths = [len(ids) for ids in f32.tokenizer(texts, truncation=True, max_length=f32.max_length)["input_ids"]]
        by_chars = [int(i) for i in np.argsort([-len(t) for t in texts])]  # sentence-transformers' order
        passes = {"harness": equal_length_batches(lengths, BATCH, f32.tokens_per_forward),
                  "harness-padded": token_budget_batches(lengths, BATCH, f32.tokens_per_forward),
                  "harness-one-pass": token_budget_batches(lengths, BATCH, None),
                  "sentence-transformers": [by_chars[i:i + BATCH] for i in range(0, len(by_chars), BATCH)]}
        passes["harness-bf16"] = passes["harness"]
        flops = {name: forward_flops(f32.model.config, lengths, batches) for name, batches in passes.items()}
        reference = encoders["harness"](texts)
        st_diff = float(np.abs(encoders["sentence-transformers"](texts) - reference).max())
        low = encoders["harness-bf16"](texts) if with_bf16 else None
        comparisons = {}
        pairs = [("harness", "harness-padded"), ("harness", "sentence-transformers"), ("harness", "harness-one-pass")]
        pairs += [("harness-bf16", "harness")] if with_bf16 else []
        for a, b in pairs:
            result = interleaved(encoders, a, b, texts, args.pairs,
                                 ("float32", "bfloat16") if with_bf16 else ("float32",))
            for n in (a, b):  # achieved rate, and its share of the same-dtype matmul probe's median
                rate = flops[n] / statistics.median(result["wall_s"][n]) / 1e9
                probe = statistics.median(result["probe_gflops"]["bfloat16" if n.endswith("bf16") else "float32"])
                result.setdefault("gflops", {})[n] = {"achieved": round(rate, 2), "of_probe": round(rate / probe, 3)}
            comparisons[f"{a} vs {b}"] = result
        out["sets"][kind] = {
            "texts": len(texts), "real_tokens": sum(lengths),
            "padded_positions": {n: padded_positions(lengths, b) for n, b in passes.items()},
            "forward_gflop": {n: round(f / 1e9, 2) for n, f in flops.items()},
            "max_abs_diff_vs_sentence_transformers": st_diff,
            **({} if low is None else {"bf16": bf16_agreement(low, reference)}),
            "comparisons": comparisons,
        }
    return out


# --- fixed costs, as processes ------------------------------------------------------------------------------

def timed_process(argv: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU (user + system) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def encoded_count(stderr: str) -> int | None:
    found = re.search(r"(\d+) text\(s\) encoded", stderr)
    return int(found.group(1)) if found else None


def floors(smoke: bool) -> dict[str, str]:
    """What any command pays before its own work, timed beside the commands: the interpreter with this machine's
    start-up hooks, the libraries every result read needs (pydantic validates what is read back; numpy holds
    scores), and reading and validating the committed results alone (the board's share that no cache may skip:
    data read back is checked like data made fresh)."""
    found = {"interpreter": "pass", "import numpy and pydantic": "import numpy, pydantic"}
    if not smoke:
        found["read and validate every committed result"] = (
            "from sentibench.results.task_result import iter_results; iter_results(" + repr(str(REPO / "results"))
            + ")")
    return found


def cli_benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    """Round-robin process timings of the fixed-cost commands for this tree's `bench` (and a baseline's)."""
    from sentibench.models.catalog.cards import get_card
    from sentibench.results.task_result import safe_segment

    benches = {"this": str(Path(sys.executable).parent / "bench")}
    if args.baseline_bench:
        benches["baseline"] = args.baseline_bench
    commands = {"list tasks": ["list", "tasks"]}
    if not args.smoke:  # the others need the committed results and the real datasets
        done_results = scratch / "noop"
        model_folder = safe_segment(get_card(MODEL).name)
        shutil.copytree(REPO / "results" / model_folder, done_results / model_folder)
        commands |= {
            "leaderboard": ["leaderboard", "--results", str(REPO / "results"), "--output", str(scratch / "lb.md")],
            "no-op run": ["run", "--output-folder", str(done_results)],
            "warm sgts recompute": ["run", "-t", "sgts", "--overwrite-strategy", "always",
                                    "--output-folder", str(scratch / "warm")],
        }
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    if args.cli_command:  # a baseline too old to read today's results times only the commands it can run
        unknown = sorted(set(args.cli_command) - set(commands))
        if unknown:
            raise SystemExit(f"--cli-command: unknown {', '.join(unknown)}; choose from {', '.join(commands)}")
        commands = {name: argv for name, argv in commands.items() if name in args.cli_command}
    runs = {f"{b}: {c}": [bench, *argv] for b, bench in benches.items() for c, argv in commands.items()}
    runs |= {f"floor: {name}": [sys.executable, "-c", code] for name, code in floors(args.smoke).items()}
    timings: dict[str, dict] = {name: {"wall_s": [], "cpu_s": [], "encoded": []} for name in runs}
    for round_ in range(args.cli_repeats + 1):  # round 0: warm-up (fills the cache and OS caches), untimed
        for name, argv in runs.items():
            wall, cpu, done = timed_process(argv, env)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}")
            if round_:
                entry = timings[name]
                entry["wall_s"].append(round(wall, 3))
                entry["cpu_s"].append(round(cpu, 3))
                entry["encoded"].append(encoded_count(done.stderr))
    for entry in timings.values():
        entry["wall"], entry["cpu"] = summary(entry["wall_s"]), summary(entry["cpu_s"])
    return timings


# --- bf16 scores on the default suite ------------------------------------------------------------------------

def throwaway_home() -> Path:
    """A temporary SENTIBENCH_HOME sharing everything with the real one except the embedding cache."""
    from sentibench.core.paths import home

    fake = Path(tempfile.mkdtemp(prefix="sentibench-bench-"))
    for entry in home().iterdir() if home().is_dir() else ():
        if entry.name != "embeddings":
            (fake / entry.name).symlink_to(entry)
    return fake


def scores_benchmark(args: argparse.Namespace) -> dict:
    from sentibench.results.task_result import iter_results

    fake = throwaway_home()
    try:
        env = {**os.environ, "SENTIBENCH_HOME": str(fake), "OMP_NUM_THREADS": str(args.threads)}
        runs, scores = {}, {}
        for dtype in ("float32", "bfloat16"):
            out = fake / f"results-{dtype}"
            wall, cpu, done = timed_process([str(Path(sys.executable).parent / "bench"), "run", "-t", "sgts",
                                             "--dtype", dtype, "--output-folder", str(out)], env)
            if done.returncode != 0:
                raise SystemExit(f"bench run --dtype {dtype} failed: {done.stderr.strip()[-500:]}")
            runs[dtype] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "encoded": encoded_count(done.stderr)}
            scores[dtype] = {r.task_name: r.main_score() for r in iter_results(out)}
        differences = {task: round(scores["bfloat16"][task] - value, 6) for task, value in scores["float32"].items()}
        return {"cold_runs": runs, "cold_ratio_wall": round(runs["float32"]["wall_s"] / runs["bfloat16"]["wall_s"], 3),
                "scores": scores, "bf16_minus_f32": differences,
                "max_abs_difference": max(abs(d) for d in differences.values())}
    finally:
        shutil.rmtree(fake, ignore_errors=True)  # links are removed, never followed


def suite_benchmark(args: argparse.Namespace) -> dict:
    """The required suite cold (an empty embedding cache) and then warm (the same home, every text cached)."""
    from sentibench.results.task_result import iter_results

    fake = throwaway_home()
    tasks, limit = ("sgts-mr", ["--limit", "16"]) if args.smoke else ("required", [])
    try:
        env = {**os.environ, "SENTIBENCH_HOME": str(fake), "OMP_NUM_THREADS": str(args.threads)}
        runs, scores = {}, {}
        for phase in ("cold", "warm"):
            out = fake / f"results-{phase}"
            wall, cpu, done = timed_process([str(Path(sys.executable).parent / "bench"), "run", "-m", MODEL, "-t",
                                             tasks, *limit, "--output-folder", str(out)], env)
            if done.returncode != 0:
                raise SystemExit(f"bench run -t {tasks} ({phase}) failed: {done.stderr.strip()[-500:]}")
            runs[phase] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "encoded": encoded_count(done.stderr)}
            scores[phase] = {r.task_name: r.main_score() for r in iter_results(out)}
        return {"tasks": tasks, "results": len(scores["cold"]), "runs": runs,
                "warm_over_cold_wall": round(runs["warm"]["wall_s"] / runs["cold"]["wall_s"], 3),
                "warm_scores_equal_cold": scores["warm"] == scores["cold"]}
    finally:
        shutil.rmtree(fake, ignore_errors=True)  # links are removed, never followed


# --- report -------------------------------------------------------------------------------------------------

def machine() -> dict:
    from sentibench.core.provenance import git_commit, versions
    from sentibench.embed.devices import cpu_bf16_instructions

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "bf16_instructions": cpu_bf16_instructions(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "platform": platform.platform(), "versions": versions(), "git_commit": git_commit()}


def print_table(report: dict) -> None:
    from tabulate import tabulate

    rows = []
    for kind, data in report.get("encode", {}).get("sets", {}).items():
        for name, c in data["comparisons"].items():
            a, b = name.split(" vs ")
            rows.append([f"{name} ({kind}, {data['texts']} texts)", c["ratio_wall"]["median"], c["ratio_wall"]["min"],
                         c["ratio_wall"]["max"], c["ratio_cpu"]["median"],
                         f"{data['padded_positions'][a]:,} / {data['padded_positions'][b]:,} ({data['real_tokens']:,})",
                         " / ".join(f"{c['gflops'][n]['achieved']} ({100 * c['gflops'][n]['of_probe']:.0f}%)"
                                    for n in (a, b))])
    if rows:
        print(tabulate(rows, headers=["encode: A vs B", "B/A median", "min", "max", "cpu median",
                                      "positions A / B (real)", "GFLOP/s A / B (% of probe)"]))
    cli = [[name, t["wall"]["median"], t["wall"]["min"], t["wall"]["max"], t["cpu"]["median"],
            t["encoded"][-1] if t["encoded"][-1] is not None else ""] for name, t in report.get("cli", {}).items()]
    if cli:
        print()
        print(tabulate(cli, headers=["process", "wall median s", "min", "max", "cpu median s", "encoded"]))
    if "scores" in report:
        s = report["scores"]
        print(f"\ncold SgTS group: float32 {s['cold_runs']['float32']['wall_s']} s, bfloat16 "
              f"{s['cold_runs']['bfloat16']['wall_s']} s (x{s['cold_ratio_wall']}); max |score difference| "
              f"{s['max_abs_difference']}")
    if "suite" in report:
        s = report["suite"]
        print(f"\n{MODEL} -t {s['tasks']} ({s['results']} results): cold {s['runs']['cold']['wall_s']} s wall, "
              f"{s['runs']['cold']['cpu_s']} s CPU, {s['runs']['cold']['encoded']} texts encoded; warm "
              f"{s['runs']['warm']['wall_s']} s wall, {s['runs']['warm']['cpu_s']} s CPU, "
              f"{s['runs']['warm']['encoded']} encoded; warm scores equal cold: {s['warm_scores_equal_cold']}")
    if "mteb_ratio" in report:
        from bench_mteb_ratio import print_ratio

        print()
        print_ratio(report["mteb_ratio"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=6, help="interleaved pairs per comparison (at least 5)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads here and OMP threads in children")
    parser.add_argument("--short", type=int, default=1000, help="MR sentences")
    parser.add_argument("--long", type=int, default=200, help="IMDB reviews")
    parser.add_argument("--cli-repeats", type=int, default=5)
    parser.add_argument("--cli-command", action="append", default=[],
                        help="time only this fixed-cost command (repeatable; e.g. 'list tasks', 'no-op run')")
    parser.add_argument("--baseline-bench", help="another `bench` executable to time beside this tree's")
    parser.add_argument("--skip", action="append", default=[], choices=["encode", "cli", "bf16", "mteb"],
                        help="leave a part out (bf16: the bfloat16 encode comparison; mteb: the mteb ratio)")
    parser.add_argument("--mteb-pairs", type=int, default=3, help="rounds of the mteb ratio")
    parser.add_argument("--scores", action="store_true", help="also run the SgTS group cold in float32 and bf16")
    parser.add_argument("--suite", action="store_true", help="also time the required suite cold and warm")
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.pairs, args.short, args.long, args.cli_repeats, args.scores, args.suite = 1, 8, 2, 1, False, True
        args.skip += ["bf16", "mteb"]
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

    report = {"started_at": datetime.now(UTC).isoformat(timespec="seconds"), "load_before": os.getloadavg(),
              "machine": machine(), "model": MODEL, "batch_size": BATCH, "arguments": vars(args) | {"output": None}}
    if "encode" not in args.skip:
        report["encode"] = encode_benchmark(args)
    if "cli" not in args.skip:
        with tempfile.TemporaryDirectory(prefix="sentibench-cli-") as scratch:
            report["cli"] = cli_benchmark(args, Path(scratch))
    if args.scores:
        report["scores"] = scores_benchmark(args)
    if args.suite:
        report["suite"] = suite_benchmark(args)
    if "mteb" not in args.skip:
        from bench_mteb_ratio import DEFAULT_TASKS, mteb_ratio  # a sibling script

        report["mteb_ratio"] = mteb_ratio(DEFAULT_TASKS.split(","), args.mteb_pairs, args.threads)
    report["load_after"] = os.getloadavg()
    print_table(report)
    publish_report(report, "encode", args.output, args.smoke)
    return 0


def publish_report(report: dict, kind: str, folder: Path, smoke: bool = False) -> None:
    """Write a benchmark's JSON as `<kind>-<UTC time>-<commit>.json` under `folder` (in smoke mode the JSON is
    made in a throw-away folder, never kept); a dirty tree's commit says so."""
    with tempfile.TemporaryDirectory(prefix=f"bench-{kind}-smoke-") as scratch:
        folder = Path(scratch) if smoke else folder
        folder.mkdir(parents=True, exist_ok=True)
        commit = report["machine"]["git_commit"] or "unknown"
        commit = commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")
        path = folder / f"{kind}-{datetime.now(UTC):%Y%m%dT%H%M}-{commit}.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nwrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")


if __name__ == "__main__":
    sys.exit(main())
