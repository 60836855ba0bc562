"""Every task's chance level (`Task.chance_level`; docs/benchmarks.md, "Chance levels"): the expected main score of a
model that ignores the text, from the labels of the task's own evaluation data (offline; no encoder).

    python benchmarks/chance_levels.py [--tasks sgts-mr,probe-mr,...|--all] [--json OUT] [--smoke]

Prints task, main score and chance for each task; `--all` (the default) is every installed task that does not
fine-tune, less the geometry diagnostics (`align-*`, no chance level). `--json OUT` writes {task: chance} (sorted
keys, rounded to 6 decimals). A task whose data cannot be read here (a Hub-only dataset offline) is listed as
unavailable and left out of the JSON. `--smoke` (CI): one cheap task, `clustering-tweet-hashtags`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

SMOKE_TASK = "clustering-tweet-hashtags"


def selected(names: list[str] | None) -> list:
    """The tasks named (fine-tuning ones too), or every installed non-fine-tuning task with a chance level."""
    from sentibench.tasks.registry import all_tasks, resolve

    if names:
        return resolve(names)
    return [task for task in all_tasks().values()
            if not task.metadata.fine_tunes and task.metadata.type != "Geometry"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--tasks", help="task or group names, comma-separated")
    which.add_argument("--all", action="store_true", help="every installed non-fine-tuning task (the default)")
    parser.add_argument("--json", help="write {task: chance} here")
    parser.add_argument("--smoke", action="store_true", help=f"CI: {SMOKE_TASK} only")
    args = parser.parse_args(argv)
    from sentibench.core.errors import BenchError

    names = [SMOKE_TASK] if args.smoke else [n.strip() for n in args.tasks.split(",")] if args.tasks else None
    started = time.perf_counter()
    values: dict[str, float] = {}
    missing = []
    print(f"{'task':<52} {'main score':<16} {'chance':>9}")
    for task in selected(names):
        try:
            value = task.chance_level()
        except BenchError as error:
            missing.append(task.name)
            print(f"{task.name:<52} {task.metadata.main_score:<16} {'n/a':>9}  ({str(error).splitlines()[0][:80]})")
            continue
        print(f"{task.name:<52} {task.metadata.main_score:<16} {value:9.6f}")
        if not math.isnan(value):
            values[task.name] = round(value, 6)
    seconds = time.perf_counter() - started
    unavailable = f"; unavailable here: {', '.join(missing)}" if missing else ""
    print(f"\n{len(values)} tasks in {seconds:.1f} s{unavailable}")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(sorted(values.items())), indent=2) + "\n", encoding="utf-8")
    return 1 if missing and names else 0


if __name__ == "__main__":
    sys.exit(main())
