"""The same tasks through `mteb.evaluate` and through `bench run`, cold, same model and threads (issue 32).

    python benchmarks/bench_mteb_ratio.py [--tasks sts-stsb,probe-vader-tweets] [--pairs 3] [--threads 1] [--smoke]

Each side is one fresh process per round, start-up included, with `OMP_NUM_THREADS=--threads`:

- mteb: sentence-transformers' own `SentenceTransformer` of the packaged all-MiniLM-L6-v2 folder, wrapped by
  mteb's `SentenceTransformerEncoderWrapper`, given to `mteb.evaluate` with our tasks as mteb task objects
  (`sentibench.mteb.get_tasks`: STS and SgTS through mteb's own STS evaluator, other protocols through
  their own scoring on mteb's embeddings) and no result cache, so it computes everything;
- sentibench: `bench run -m all-minilm-l6-v2 -t TASKS` in a throw-away SENTIBENCH_HOME whose embedding
  cache starts empty (datasets and models linked from the real one), so every text is encoded again.

STS-B is the task with an MTEB twin whose data is here offline (`sentibench.mteb.twins`); the default set adds
a classification protocol. Sides alternate, the order flipped every round; each round gives mteb's seconds /
ours (above 1: we are faster). Printed: the ratio's median, min and max, and both sides' scores per task
(test split). `--smoke`: the plug-in fixture's SgTS and probe tasks, one round (CI: the script still runs).
Each side also reports how many texts it sent through the model (ours: distinct texts, from `bench run`'s
summary; mteb: every text given to `SentenceTransformer.encode`), and the ratio of CPU seconds per text:
the two sides do not evaluate the same amount (MTEB's STSBenchmark scores the test split only, our
`sts-stsb` scores test and validation), so the per-text ratio is the one that compares like with like.
JSON to `--output` (default benchmarks/results/; smoke: a temporary folder).

Where a cold run's time goes (issue 32 item 3), profiled in a throw-away home, one thread:

    cd benchmarks && export OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
    export SENTIBENCH_HOME=$(python -c "from bench_encode import throwaway_home; print(throwaway_home())")
    python -m cProfile -o bench.prof -m sentibench.cli run -m all-minilm-l6-v2 -t sts-stsb,probe-vader-tweets \\
        --output-folder $SENTIBENCH_HOME/results
    python -m cProfile -o mteb.prof bench_mteb_ratio.py --mteb-side sts-stsb,probe-vader-tweets \\
        --answer $SENTIBENCH_HOME/a.json

then `pstats` cumulative seconds of the functions named below. At 4eca057 on the shared 2-core EPYC
(load about 6; cProfile seconds, under the profiler): of our 89.4 s, forward passes
(`TransformerEncoder.embed`) 70.4 (torch's linear 59.4), loading the model with torch/transformers' imports
9.1 (a second job's load: 0.07 s CPU), classifier fits 5.1 (4.6 of it the main thread waiting on joblib's
fold threads), `import datasets` 1.2, tokenising and padding 1.0 (18 tokeniser calls, one per encode
batch: nothing tokenised twice), scipy.stats' import in `correlations` 0.9, the parser's method plug-ins
0.43, reading 26 cards 0.25, SQLite writes 0.27 (18 commits, one per 512 texts), loading the two arrow
datasets 0.04, hashing dataset files 0.005, bootstrap intervals and unit values 0.03, result and unit
files 0.02. mteb's 79.3 s: forward 54.0 (linear 45.7), importing mteb and sentence-transformers about 19,
model load 1.0, fits 3.2. A cold run is its forward passes and imports; what is neither is about 1 s of
ours, nothing in it done twice. The CPU per text is lower on our side; the two sides' totals are close
because ours encodes 8,817 texts to mteb's 6,190 (the STS-B validation split).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench_encode import (
    MODEL,
    REPO,
    SMOKE_DATASET,
    encoded_count,
    machine,
    publish_report,
    throwaway_home,
    timed_process,
    use_smoke_dataset,
)

DEFAULT_TASKS = "sts-stsb,probe-vader-tweets"


def mteb_side(tasks: list[str]) -> dict:
    """Run in the child process: `mteb.evaluate` on mteb's own wrapper of the model; test scores by task, and
    how many texts were given to the model."""
    import mteb
    from sentence_transformers import SentenceTransformer

    from sentibench.models.catalog.loaders import weights_folder
    from sentibench.models.catalog.lookup import card_for
    from sentibench.mteb import get_tasks

    model = SentenceTransformer(str(weights_folder(card_for(MODEL))), device="cpu", local_files_only=True)
    encoded = 0
    encode = model.encode

    def counted(sentences, *args, **kwargs):
        nonlocal encoded
        encoded += 1 if isinstance(sentences, str) else len(sentences)
        return encode(sentences, *args, **kwargs)

    model.encode = counted
    results = mteb.evaluate(mteb.SentenceTransformerEncoderWrapper(model), tasks=get_tasks(tasks), cache=None,
                            show_progress_bar=False)
    return {"scores": {r.task_name: float(r.get_score(splits=["test"])) for r in results.task_results},
            "encoded": encoded}


def bench_side(tasks: list[str], output: Path, env: dict[str, str]) -> tuple[float, float, dict]:
    from sentibench.results.task_result import iter_results

    wall, cpu, done = timed_process([str(Path(sys.executable).parent / "bench"), "run", "-m", MODEL,
                                     "-t", ",".join(tasks), "--output-folder", str(output)], env)
    if done.returncode != 0:
        raise SystemExit(f"bench run failed: {done.stderr.strip()[-800:]}")
    return wall, cpu, {"scores": {r.task_name: r.scores["test"][0].main_score for r in iter_results(output)},
                       "encoded": encoded_count(done.stderr)}


def run_mteb(tasks: list[str], env: dict[str, str], scratch: Path) -> tuple[float, float, dict]:
    answer = scratch / "mteb-scores.json"
    wall, cpu, done = timed_process([sys.executable, __file__, "--mteb-side", ",".join(tasks),
                                     "--answer", str(answer)], env)
    if done.returncode != 0:
        raise SystemExit(f"mteb.evaluate failed: {done.stderr.strip()[-800:]}")
    return wall, cpu, json.loads(answer.read_text())


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def mteb_ratio(tasks: list[str], pairs: int, threads: int) -> dict:
    """Interleaved cold runs of both sides; per-round seconds and texts encoded, the ratios (wall, CPU, CPU
    per text), both sides' scores."""
    sides = ("mteb", "sentibench")
    seconds: dict[str, dict[str, list]] = {s: {"wall_s": [], "cpu_s": [], "encoded": []} for s in sides}
    scores: dict[str, dict[str, float]] = {}
    for round_ in range(pairs):
        fake = throwaway_home()
        try:
            env = {**os.environ, "SENTIBENCH_HOME": str(fake), "OMP_NUM_THREADS": str(threads),
                   "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
            for side in (sides if round_ % 2 == 0 else sides[::-1]):
                if side == "mteb":
                    wall, cpu, answer = run_mteb(tasks, env, fake)
                else:
                    wall, cpu, answer = bench_side(tasks, fake / f"results-{round_}", env)
                scores[side] = answer["scores"]
                seconds[side]["wall_s"].append(round(wall, 2))
                seconds[side]["cpu_s"].append(round(cpu, 2))
                seconds[side]["encoded"].append(answer["encoded"])
        finally:
            shutil.rmtree(fake, ignore_errors=True)  # links are removed, never followed
    mteb, ours = seconds["mteb"], seconds["sentibench"]
    per_text = [(m / mn) / (o / on) for m, mn, o, on in zip(mteb["cpu_s"], mteb["encoded"], ours["cpu_s"],
                                                            ours["encoded"])]
    return {"tasks": tasks, "threads": threads, "seconds": seconds,
            "ratio_wall": spread([m / o for m, o in zip(mteb["wall_s"], ours["wall_s"])]),
            "ratio_cpu": spread([m / o for m, o in zip(mteb["cpu_s"], ours["cpu_s"])]),
            "ratio_cpu_per_text": spread(per_text),
            "scores": {task: {side: scores[side].get(task) for side in sides} for task in tasks}}


def print_ratio(result: dict) -> None:
    seconds = result["seconds"]
    print(f"mteb.evaluate / bench run, cold, {result['threads']} thread(s), {len(seconds['mteb']['wall_s'])} rounds "
          "(median, min, max):")
    for name in ("ratio_wall", "ratio_cpu", "ratio_cpu_per_text"):
        r = result[name]
        print(f"  {name}: {r['median']} ({r['min']}, {r['max']})")
    for side, numbers in seconds.items():
        print(f"  {side}: wall {numbers['wall_s']} s, CPU {numbers['cpu_s']} s, texts encoded {numbers['encoded']}")
    for task, both in result["scores"].items():
        print(f"  {task}: mteb {both['mteb']}, sentibench {both['sentibench']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=DEFAULT_TASKS)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    parser.add_argument("--mteb-side", help=argparse.SUPPRESS)  # the child process of the mteb side
    parser.add_argument("--answer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.mteb_side:
        args.answer.write_text(json.dumps(mteb_side(args.mteb_side.split(","))))
        return 0
    if args.smoke:
        use_smoke_dataset()
        args.tasks, args.pairs = f"sgts-{SMOKE_DATASET},probe-{SMOKE_DATASET}", 1
    report = {"started_at": datetime.now(UTC).isoformat(timespec="seconds"), "load_before": os.getloadavg(),
              "machine": machine(), "model": MODEL, "arguments": vars(args) | {"output": None}}
    started = time.perf_counter()
    report["mteb_ratio"] = mteb_ratio(args.tasks.split(","), args.pairs, args.threads)
    report["seconds"], report["load_after"] = round(time.perf_counter() - started, 1), os.getloadavg()
    print_ratio(report["mteb_ratio"])
    publish_report(report, "mteb-ratio", args.output, args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
