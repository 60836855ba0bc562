"""How the board's cost grows with the results it reads (issue 56: at most 0.5 ms per result file plus 0.3 s).

    python benchmarks/board_scale.py                   # 1,000 and 10,000 synthetic results; writes
                                                       # benchmarks/results/board-scale-<commit>.json
    python benchmarks/board_scale.py --sizes 1000 10000 --repeats 3

A synthetic results folder holds copies of one committed model's results (default all-minilm-l6-v2's, every
task of it, unit-value sidecars hard-linked) under new model names, `synthetic-0000`, `synthetic-0001`, ... (the
name inside each file changed to match), until it holds the wanted number of result files; so every file is a
real result that the board reads, validates, ranks and renders, and only the model count grows. Each size is
timed as `bench leaderboard --results FOLDER --output FILE` in a fresh process (median of `--repeats`),
interleaved across sizes within each repeat, with a `SENTIBENCH_HOME` of its own: the first repeat finds the
board's memo (`report/memo.py`) empty and fills it, the others re-render, so the median of three is a re-render,
the case the budget is about, and the first repeat's seconds, recorded too, are the cold cost. The per-file cost
is the slope between the two sizes and the fixed cost the intercept. The record names the machine and its load
average before and after. `--smoke` (CI: the script still runs): 30 and 60 results, one repeat, written to a
temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from suite_time import machine  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "benchmarks" / "results"
PER_FILE, FIXED = 0.0005, 0.3
"""The budget: seconds per result file, and fixed seconds."""


def synthetic_folder(folder: Path, size: int, source: Path) -> int:
    """`size` result files under `folder`: copies of the results in `source` (one model's revision folder) under
    new model names. Returns the number written."""
    results = sorted(source.glob("*.json"))
    if not results:
        raise SystemExit(f"no results under {source}")
    written, copy = 0, 0
    while written < size:
        name = f"synthetic-{copy:04d}"
        target = folder / name / source.name
        target.mkdir(parents=True)
        for path in results[: size - written]:
            record = json.loads(path.read_text(encoding="utf-8"))
            record["sentibench"]["model"]["name"] = name
            (target / path.name).write_text(json.dumps(record), encoding="utf-8")
            sidecar = path.with_suffix(".units.npz")
            if sidecar.exists():
                os.link(sidecar, target / sidecar.name)
            written += 1
        copy += 1
    return written


def board_seconds(folder: Path, output: Path, home: Path) -> float:
    started = time.perf_counter()
    bench = str(Path(sys.executable).parent / "bench")  # this interpreter's, not whatever PATH finds
    subprocess.run([bench, "leaderboard", "--results", str(folder), "--output", str(output)], check=True,
                   env={**os.environ, "SENTIBENCH_HOME": str(home)}, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
    return time.perf_counter() - started


def measure(sizes: list[int], repeats: int, source: Path, out: Path) -> dict:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        folders = {}
        for size in sizes:
            folders[size] = Path(scratch) / f"n{size}"
            synthetic_folder(folders[size], size, source)
        times: dict[int, list[float]] = {size: [] for size in sizes}
        for _ in range(repeats):
            for size in sizes:
                times[size].append(round(board_seconds(folders[size], Path(scratch) / f"board-{size}.md",
                                                       Path(scratch) / "home"), 3))
    median = {size: statistics.median(values) for size, values in times.items()}
    low, high = min(sizes), max(sizes)
    slope = (median[high] - median[low]) / (high - low)
    intercept = median[low] - slope * low
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    record = {"source": f"python benchmarks/board_scale.py --sizes {' '.join(map(str, sizes))} --repeats {repeats}",
              "results_copied": str(source.relative_to(ROOT)) if source.is_relative_to(ROOT) else str(source),
              "seconds": {str(size): values for size, values in times.items()},
              "median_seconds": {str(size): value for size, value in median.items()},
              "seconds_per_file": slope, "fixed_seconds": intercept,
              "budget": {str(size): FIXED + PER_FILE * size for size in sizes},
              "within_budget": all(median[size] <= FIXED + PER_FILE * size for size in sizes),
              "commit": commit, "machine": machine(),
              "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
              "measured_at": datetime.now(UTC).isoformat(timespec="seconds")}
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"board-scale-{commit}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    for size in sizes:
        print(f"{size:>6} results: median {median[size]:.2f}s (budget {FIXED + PER_FILE * size:.2f}s)")
    print(f"per file {slope * 1000:.3f} ms (budget {PER_FILE * 1000} ms), fixed {intercept:.2f}s (budget {FIXED}s)")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[1000, 10000], help="two result counts")
    parser.add_argument("--repeats", type=int, default=3, help="timed renders per size (default 3)")
    parser.add_argument("--model", default="all-minilm-l6-v2", help="the committed model whose results are copied")
    parser.add_argument("--smoke", action="store_true", help="CI: 30 and 60 results, one repeat, nothing kept")
    args = parser.parse_args(argv)
    revisions = sorted((ROOT / "results" / args.model).iterdir())
    if not revisions:
        raise SystemExit(f"no committed results for {args.model}")
    if args.smoke:
        with tempfile.TemporaryDirectory() as scratch:
            measure([30, 60], 1, revisions[0], Path(scratch))
        return 0
    measure(sorted(args.sizes), args.repeats, revisions[0], MEASURED)
    return 0


if __name__ == "__main__":
    sys.exit(main())
