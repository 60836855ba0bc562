"""Re-run every committed (model, task) result whose task version is older than the registry's, or that
has no confidence interval yet (results made before intervals were recorded) or came from a dirty tree,
and nothing else (a
model's missing tasks stay missing), cheapest task families first. Usage:
python benchmarks/regenerate.py [--dry-run] [--skip-fine-tuning] [--models A,B] [--families sts-,align-]. Run it
on a clean commit (results record the commit). The listed results are overwritten: a result of the current
task version that lacks an interval or came from a dirty tree is not "done" for this script. `--smoke` (CI: the
script still runs) is `--dry-run`: it reads and checks every committed result and runs nothing."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from sentibench.results.task_result import iter_results
from sentibench.run.runner import run
from sentibench.tasks.registry import all_tasks

ROOT = Path(__file__).resolve().parent.parent / "results"
ORDER = ("sgts-", "sts-", "align-", "retrieval-", "probe-", "fewshot-", "senteval-")  # cheap first


def stale(root: Path, skip_fine_tuning: bool) -> dict[str, list[str]]:
    tasks, todo = all_tasks(), defaultdict(list)
    for result in iter_results(root):
        task = tasks.get(result.task_name)
        provenance = result.provenance
        fine_tuning = task is not None and task.metadata.type == "FewShot" and not task.frozen
        has_interval = provenance.details.confidence_interval is not None or fine_tuning
        if task is None or result.smoke or provenance.model is None or (
                provenance.task.version == task.metadata.version and has_interval and not provenance.from_dirty_tree):
            continue
        if skip_fine_tuning and fine_tuning:
            continue
        todo[provenance.model.name].append(task.name)
    return todo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a check that the script runs: --dry-run")
    parser.add_argument("--skip-fine-tuning", action="store_true")
    parser.add_argument("--models", help="comma-separated subset")
    parser.add_argument("--families", help="comma-separated task-name prefixes, e.g. sts-,align- or "
                                           "fewshot-frozen- (default: all)")
    args = parser.parse_args()
    todo = stale(ROOT, args.skip_fine_tuning)
    wanted = set(args.models.split(",")) if args.models else set(todo)
    tasks = all_tasks()
    prefixes = tuple(args.families.split(",")) if args.families else ORDER
    unknown = [p for p in prefixes if not any(p.startswith(f) or f.startswith(p) for f in ORDER)]
    if unknown:
        parser.error(f"no task family starts with {', '.join(unknown)}; families: {', '.join(ORDER)}")
    for family in ORDER:
        for model, names in sorted(todo.items()):
            batch = sorted(n for n in names if n.startswith(family) and n.startswith(prefixes) and model in wanted)
            if not batch:
                continue
            print(f"{model}: {', '.join(batch)}", file=sys.stderr, flush=True)
            if not (args.dry_run or args.smoke):
                report = run([model], [tasks[n] for n in batch], ROOT, overwrite="always")
                print(f"{model}: {len(report.written)} written, {len(report.failed)} failed {report.failed}",
                      file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
