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
JSON to `--output` (default benchmarks/results/; smoke: a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench_encode import MODEL, REPO, SMOKE_DATASET, machine, throwaway_home, timed_process, use_smoke_dataset

DEFAULT_TASKS = "sts-stsb,probe-vader-tweets"


def mteb_side(tasks: list[str]) -> dict[str, float]:
    """Run in the child process: `mteb.evaluate` on mteb's own wrapper of the model; test scores by task."""
    import mteb
    from sentence_transformers import SentenceTransformer

    from sentibench.models.loaders import card_for, weights_folder
    from sentibench.mteb import get_tasks

    model = SentenceTransformer(str(weights_folder(card_for(MODEL))), device="cpu", local_files_only=True)
    results = mteb.evaluate(mteb.SentenceTransformerEncoderWrapper(model), tasks=get_tasks(tasks), cache=None,
                            show_progress_bar=False)
    return {r.task_name: float(r.get_score(splits=["test"])) for r in results.task_results}


def bench_side(tasks: list[str], output: Path, env: dict[str, str]) -> tuple[float, float, dict[str, float]]:
    from sentibench.results.task_result import iter_results

    wall, cpu, done = timed_process([str(Path(sys.executable).parent / "bench"), "run", "-m", MODEL,
                                     "-t", ",".join(tasks), "--output-folder", str(output)], env)
    if done.returncode != 0:
        raise SystemExit(f"bench run failed: {done.stderr.strip()[-800:]}")
    return wall, cpu, {r.task_name: r.scores["test"][0].main_score for r in iter_results(output)}


def run_mteb(tasks: list[str], env: dict[str, str], scratch: Path) -> tuple[float, float, dict[str, float]]:
    answer = scratch / "mteb-scores.json"
    wall, cpu, done = timed_process([sys.executable, __file__, "--mteb-side", ",".join(tasks),
                                     "--answer", str(answer)], env)
    if done.returncode != 0:
        raise SystemExit(f"mteb.evaluate failed: {done.stderr.strip()[-800:]}")
    return wall, cpu, json.loads(answer.read_text())


def mteb_ratio(tasks: list[str], pairs: int, threads: int) -> dict:
    """Interleaved cold runs of both sides; per-round seconds, the ratio, both sides' scores."""
    seconds: dict[str, dict[str, list[float]]] = {s: {"wall_s": [], "cpu_s": []} for s in ("mteb", "sentibench")}
    scores: dict[str, dict[str, float]] = {}
    for round_ in range(pairs):
        fake = throwaway_home()
        try:
            env = {**os.environ, "SENTIBENCH_HOME": str(fake), "OMP_NUM_THREADS": str(threads),
                   "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
            for side in (("mteb", "sentibench") if round_ % 2 == 0 else ("sentibench", "mteb")):
                if side == "mteb":
                    wall, cpu, scores["mteb"] = run_mteb(tasks, env, fake)
                else:
                    wall, cpu, scores["sentibench"] = bench_side(tasks, fake / f"results-{round_}", env)
                seconds[side]["wall_s"].append(round(wall, 2))
                seconds[side]["cpu_s"].append(round(cpu, 2))
        finally:
            shutil.rmtree(fake, ignore_errors=True)  # links are removed, never followed
    ratios = [m / s for m, s in zip(seconds["mteb"]["wall_s"], seconds["sentibench"]["wall_s"])]
    return {"tasks": tasks, "threads": threads, "seconds": seconds,
            "ratio_wall": {"median": round(statistics.median(ratios), 3), "min": round(min(ratios), 3),
                           "max": round(max(ratios), 3)},
            "scores": {task: {side: scores[side].get(task) for side in ("mteb", "sentibench")} for task in tasks}}


def print_ratio(result: dict) -> None:
    r, seconds = result["ratio_wall"], result["seconds"]
    print(f"mteb.evaluate / bench run, cold, {result['threads']} thread(s), {len(seconds['mteb']['wall_s'])} rounds: "
          f"median {r['median']} (min {r['min']}, max {r['max']}); mteb {seconds['mteb']['wall_s']} s, "
          f"sentibench {seconds['sentibench']['wall_s']} s")
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
    with tempfile.TemporaryDirectory(prefix="bench-mteb-smoke-") as scratch:
        folder = Path(scratch) if args.smoke else args.output
        folder.mkdir(parents=True, exist_ok=True)
        commit = report["machine"]["git_commit"] or "unknown"
        commit = commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")
        path = folder / f"mteb-ratio-{datetime.now(UTC):%Y%m%dT%H%M}-{commit}.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
