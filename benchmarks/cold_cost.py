"""What a benchmark costs a new model, measured: `bench run -b NAME -m MODEL` timed cold, side by side.

Each benchmark runs in its own empty SENTIBENCH_HOME (no prepared data, no cached vectors) and output folder, one
after the other in one process, so the ratios between them are measured under the same conditions. The default
model is all-minilm-l6-v2 (6 layers), the model issue 55's cost targets name: v2 at most 1.25x v1, a lite at most
1/8 of its full benchmark.

    python benchmarks/cold_cost.py --measure sentibench-v1 sentibench-v2 sentibench-lite-v2 sentibench-lite-v2.1
        # about 45 minutes on one core; writes benchmarks/results/cold-cost-<commit>.json
    python benchmarks/cold_cost.py --docs       # docs/benchmarks.md's block from the newest committed measurement

Run `--measure` on a clean checkout with one thread (`OMP_NUM_THREADS=1`, recorded) and say what else ran (the
load average before and after is recorded). `--smoke` (CI: the script still runs) times one tiny task with
`--limit` and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from suite_time import machine  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "benchmarks" / "results"
PAGE, BLOCK = "docs/benchmarks.md", "cold-cost"
TARGETS = {("sentibench-v2", "sentibench-v1"): 1.25, ("sentibench-lite-v2", "sentibench-v2"): 1 / 8,
           ("sentibench-lite-v2.1", "sentibench-v2"): 1 / 8, ("sentibench-lite-v1", "sentibench-v1"): 1 / 8}
"""(benchmark, reference): the most the benchmark may cost as a multiple of the reference's cold cost."""


def run_cold(args: list[str], model: str) -> float:
    """Wall seconds of `bench run ARGS -m MODEL` from an empty SENTIBENCH_HOME into an empty output folder."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "SENTIBENCH_HOME": f"{scratch}/home"}
        started = time.perf_counter()
        bench = str(Path(sys.executable).parent / "bench")  # this interpreter's, not whatever PATH finds
        subprocess.run([bench, "run", *args, "-m", model, "--output-folder", f"{scratch}/out"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - started


def measure(benchmarks: list[str], model: str) -> Path:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.strip()
    load_before = os.getloadavg()
    seconds = {}
    for name in benchmarks:
        seconds[name] = round(run_cold(["-b", name], model), 1)
        print(f"{name}: {seconds[name]:.0f}s cold", file=sys.stderr)
    record = {"model": model, "cold_seconds": seconds, "commit": commit + ("-dirty" if dirty else ""),
              "machine": machine(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
              "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
              "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "source": "python benchmarks/cold_cost.py --measure " + " ".join(benchmarks)}
    path = MEASURED / f"cold-cost-{commit}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def newest(root: Path) -> tuple[Path, dict]:
    records = [(path, json.loads(path.read_text(encoding="utf-8")))
               for path in (root / "benchmarks" / "results").glob("cold-cost-*.json")]
    if not records:
        raise SystemExit("no committed cold-cost measurement: run `python benchmarks/cold_cost.py --measure ...`")
    return max(records, key=lambda item: item[1]["measured_at"])


def report(path: Path, record: dict, root: Path) -> str:
    """The measurement as the docs quote it: each benchmark's cold seconds, and each targeted ratio."""
    seconds = record["cold_seconds"]
    lines = [f"Measured by `{record['source']}` at {record['commit']} on {record['machine']}, "
             f"OMP_NUM_THREADS={record['omp_num_threads']}, load average {record['load_average_before_after'][0]} "
             f"before and {record['load_average_before_after'][1]} after, {record['measured_at']} "
             f"(`{path.relative_to(root)}`), {record['model']} cold (empty SENTIBENCH_HOME):", ""]
    lines += [f"- `{name}`: {value:,.0f} s" for name, value in seconds.items()]
    for (name, reference), limit in TARGETS.items():
        if name in seconds and reference in seconds:
            ratio = seconds[name] / seconds[reference]
            shown = f"1/{1 / ratio:.1f}" if ratio < 1 else f"{ratio:.2f}x"
            wanted = f"1/{1 / limit:.0f}" if limit < 1 else f"{limit}x"
            lines.append(f"- `{name}` / `{reference}`: **{shown}** (target at most {wanted}: "
                         f"{'met' if ratio <= limit else 'NOT met'})")
    return "\n".join(lines) + "\n"


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    return {PAGE: {BLOCK: report(*newest(root), root)}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", nargs="+", metavar="BENCHMARK", help="time these benchmarks cold, in order")
    parser.add_argument("--model", default="all-minilm-l6-v2", help="the model (default all-minilm-l6-v2)")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s generated block `{BLOCK}`")
    parser.add_argument("--smoke", action="store_true", help="CI: time one tiny task, write nothing")
    args = parser.parse_args(argv)
    if args.docs:
        from doc_blocks import write  # a sibling script

        for page in write(doc_blocks(ROOT), ROOT):
            print(f"rewrote {page}")
        return 0
    if args.smoke:
        print(f"smoke: {run_cold(['-t', 'sgts-vader-tweets', '--limit', '20'], 'random'):.1f}s cold, one tiny task")
        print(report(*newest(ROOT), ROOT) if list(MEASURED.glob("cold-cost-*.json")) else "no measurement committed")
        return 0
    if not args.measure:
        parser.error("give --measure BENCHMARK ..., --docs or --smoke")
    print(f"wrote {measure(args.measure, args.model)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
