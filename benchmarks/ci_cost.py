"""What the trust issue's estimators cost against the default suite's cold time (issue 18, item 5).

    python benchmarks/ci_cost.py [-m MODEL] [-t TASKS] [--repeats N] [--cold] [--json PATH]

Per task, with the embedding cache warm (so only the harness's own work is timed), alternating in one
process, best of N each: the old estimator (SgTS version 1: 4,000 sampled pairs, no interval; other tasks:
no interval) against the new default (all pairs of the balanced set plus the 95% interval). `--cold` also
runs the same tasks as one cold `bench run` process in a throw-away home whose embedding cache starts empty
(datasets and models linked from the real one), and prints the extra seconds as a share of that cold time:
the issue's budget is 5%. Run the tasks once first so that the warm timings encode nothing. `--smoke` (CI:
the script still runs) times SgTS on the plug-in fixture's 48 reviews (tests/fixtures/plugin), once, cold too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from sentibench.run.runner import run
from sentibench.tasks.registry import resolve
from sentibench.tasks.sgts import SgTSTask

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_encode import SMOKE_DATASET, throwaway_home, use_smoke_dataset  # noqa: E402  (a sibling script)


def timed(model: str, task, intervals: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="ci-cost-") as out:
        started = time.perf_counter()
        report = run([model], [task], Path(out), overwrite="always", intervals=intervals)
        elapsed = time.perf_counter() - started
        if report.failed:
            raise SystemExit(f"{task.name} failed: {report.failed}")
        return elapsed


def old_estimator(task):
    """The task as it was scored before: SgTS's sampled pairs (version 1), and no interval for any task."""
    if isinstance(task, SgTSTask) and task.design == "all-pairs":
        return SgTSTask(task.metadata.dataset, max_per_class=task.max_per_class, design="sampled")
    return task


def cold_seconds(model: str, tasks: str) -> float:
    """One cold `bench run` of the tasks, as a process, in a home whose embedding cache is empty."""
    fake = throwaway_home()
    try:
        env = {**os.environ, "SENTIBENCH_HOME": str(fake)}
        started = time.perf_counter()
        done = subprocess.run([str(Path(sys.executable).parent / "bench"), "run", "-m", model, "-t", tasks,
                               "--output-folder", str(fake / "results")], env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"cold bench run failed: {done.stderr.strip()[-500:]}")
        return elapsed
    finally:
        shutil.rmtree(fake, ignore_errors=True)  # links are removed, never followed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--model", default="all-minilm-l6-v2")
    parser.add_argument("-t", "--tasks", default="sgts")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also time one cold run of the tasks (the denominator)")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--smoke", action="store_true", help="a few seconds' check that the script runs")
    args = parser.parse_args()
    if args.smoke:
        use_smoke_dataset()
        args.tasks, args.repeats, args.cold = f"sgts-{SMOKE_DATASET}", 1, True
    rows = []
    for task in resolve(args.tasks.split(",")):
        old = old_estimator(task)
        timed(args.model, task, True)  # warm-up: encodes anything not yet cached, loads the model
        before, now = [], []
        for _ in range(args.repeats):
            before.append(timed(args.model, old, False))
            now.append(timed(args.model, task, True))
        rows.append([task.name, min(before), min(now), min(now) - min(before)])
    total = ["total", sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows)]
    print(tabulate([*rows, total], headers=["task", "old estimator, no CI (s)", "all pairs + CI (s)", "extra (s)"],
                   floatfmt=".2f"))
    report = {"model": args.model, "tasks": args.tasks, "repeats": args.repeats, "rows": rows + [total]}
    if args.cold:
        cold = cold_seconds(args.model, args.tasks)
        report.update(cold_seconds=round(cold, 2), extra_share_of_cold=round(total[3] / cold, 4))
        print(f"cold run of -t {args.tasks}: {cold:.1f} s; the new estimators add {total[3]:.2f} s = "
              f"{100 * total[3] / cold:.1f}% of it (budget 5%)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
