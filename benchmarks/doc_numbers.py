"""The costs the README, docs/fewshot.md and docs/tasks.md quote, regenerated from committed files only.

    python benchmarks/doc_numbers.py           # print every block
    python benchmarks/doc_numbers.py --docs    # rewrite them (benchmarks/doc_blocks.py checks them)

One function per page; each reads what is committed and nothing else, and runs no model:
- `readme`: the default `fewshot` group's cost, from the `evaluation_time` of the committed results;
- `fewshot_page`: the same, per task and per model, for docs/fewshot.md's Cost section;
- `tasks_page`: docs/tasks.md's SgTS estimator cost (`benchmarks/results/ci-cost-*.json`) and its fixed-cost tables
  (the `cli` rounds of `benchmarks/results/encode-*.json`, written by `benchmarks/bench_encode.py`).

`--smoke` (CI: the script still runs) prints the block names and their sizes, and writes nothing.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from doc_blocks import generator_main  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
GROUP = "fewshot"
SCRIPT = "doc_numbers"


# --- the committed few-shot results -------------------------------------------------------------------------

def group_results(root: Path, group: str = GROUP) -> dict[str, dict[str, dict]]:
    """{model folder/revision: {task: result}} for every committed result of a task in `group`."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for path in sorted((root / "results").glob("*/*/*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        task = record.get("sentibench", {}).get("task", {}) if isinstance(record, dict) else {}
        if group in (task.get("groups") or []) and record.get("evaluation_time") is not None:
            out[f"{path.parts[-3]}/{path.parts[-2]}"][task["name"]] = record
    return dict(out)


def fine_tuned(results: dict[str, dict]) -> dict[str, dict]:
    return {name: r for name, r in results.items() if r["sentibench"]["task"].get("fine_tunes")}


def complete_models(root: Path) -> tuple[list[str], dict[str, dict[str, dict]]]:
    """The fine-tuned tasks of the group (every one any committed result names) and the models that hold all of
    them, largest total first."""
    results = group_results(root)
    tasks = sorted({name for by_task in results.values() for name in fine_tuned(by_task)})
    models = {m: by_task for m, by_task in results.items() if tasks and set(tasks) <= set(fine_tuned(by_task))}
    order = sorted(models, key=lambda m: -sum(models[m][t]["evaluation_time"] for t in tasks))
    return tasks, {m: models[m] for m in order}


def seconds(value: float) -> str:
    return f"{round(value):,} s"


def minutes(value: float) -> str:
    return f"{round(value / 60)} min"


def commits(records) -> str:
    found = sorted({r["sentibench"].get("git_commit", "")[:7] for r in records} - {""})
    return ", ".join(found) or "no commit recorded"


def name(model: str) -> str:
    return model.split("/", 1)[0]


def readme(root: Path) -> dict[str, str]:
    tasks, models = complete_models(root)
    parts = []
    for model, by_task in models.items():
        total = sum(by_task[t]["evaluation_time"] for t in tasks)
        mr = [f"{k}-shot {seconds(by_task[t]['evaluation_time'])}" for k, t in
              ((1, "fewshot-senticse-k1-mr"), (5, "fewshot-senticse-k5-mr")) if t in by_task]
        parts.append(f"{name(model)} {seconds(total)} ({minutes(total)}{'; MR ' + ', '.join(mr) if mr else ''})")
    records = [models[m][t] for m in models for t in tasks]
    return {"fewshot-cost": (f"The {len(tasks)} fine-tuned tasks of the default `{GROUP}` group took, as the committed "
                             f"results record (`evaluation_time`, 10 seeds per SentiCSE task; {commits(records)}): "
                             + "; ".join(parts) + ".\n")}


def fewshot_page(root: Path) -> dict[str, str]:
    tasks, models = complete_models(root)
    all_results = group_results(root)
    head = "| task | " + " | ".join(name(m) for m in models) + " |"
    lines = [head, "| --- |" + " --- |" * len(models)]
    for task in tasks:
        cells = []
        for m in models:
            r = models[m][task]
            n = len(r["sentibench"].get("details", {}).get("seeds") or []) or 1
            cells.append(f"{seconds(r['evaluation_time'])} ({n} seeds, {r['evaluation_time'] / n:.0f} s each)")
        lines.append(f"| `{task}` | " + " | ".join(cells) + " |")
    totals = [sum(models[m][t]["evaluation_time"] for t in tasks) for m in models]
    lines.append(f"| the {len(tasks)} fine-tuned tasks | " + " | ".join(f"**{seconds(t)}** ({minutes(t)})"
                                                                      for t in totals) + " |")
    whole = [sum(r["evaluation_time"] for r in all_results[m].values()) for m in models]
    counts = [len(all_results[m]) for m in models]
    lines.append("| every committed task of the group (frozen twins too) | "
                 + " | ".join(f"{seconds(w)} ({c} tasks)" for w, c in zip(whole, counts)) + " |")
    records = [models[m][t] for m in models for t in tasks]
    return {"fewshot-cost": f"Fine-tuned tasks at {commits(records)}:\n\n" + "\n".join(lines) + "\n"}


# --- benchmarks/results ---------------------------------------------------------------------------------------

def measured(root: Path, pattern: str) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted((root / "benchmarks" / "results").glob(pattern))}


def sgts_cost(root: Path) -> str:
    (file, record), = measured(root, "ci-cost-*.json").items()  # one measurement; a second would need choosing
    rows = {row[0]: row[1:] for row in record["rows"]}
    old, new, extra = rows["total"]
    imdb = rows["sgts-imdb"][2]
    return (f"`python benchmarks/ci_cost.py -t sgts --repeats 3 --cold` (`benchmarks/results/{file}`): with the "
            f"embedding cache warm, the old estimator (4,000 sampled SgTS pairs, no interval) took {old:.2f} s for\n"
            f"the five SgTS tasks and the new default (all pairs of the balanced set plus the linearised-bootstrap\n"
            f"interval) {new:.2f} s: {imdb:+.2f} s on IMDB's 8M pairs, the four small sets a few hundredths faster; "
            f"a cold run of the group took {record['cold_seconds']:.1f} s,\n"
            f"so the new estimators add **{record['extra_share_of_cold']:.1%}** of the cold time (the budget is 5%).\n")


PROCESSES = {"no-op run": "no-op `bench run`", "warm sgts recompute": "warm SgTS group recompute",
             "leaderboard": "`bench leaderboard`", "list tasks": "`bench list tasks`"}
FLOORS = {"interpreter": "floor: the interpreter (`-c pass`)", "import numpy and pydantic":
          "floor: `import numpy, pydantic`", "read and validate every committed result":
          "floor: read and validate every committed result (`iter_results`)"}


def per_round(cli: dict, process: str) -> str:
    ratios = [a / b for a, b in zip(cli[f"this: {process}"]["wall_s"], cli[f"baseline: {process}"]["wall_s"])]
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def fixed_costs(record: dict, baseline: str, order: tuple[str, ...], ratio: bool, floors: bool,
                decimals: int) -> str:
    cli = record["cli"]
    this = record["machine"]["git_commit"][:7]
    head = f"| process | {this} (s) | {baseline} (s) |" + (" ratio per round: median (range) |" if ratio else "")
    lines = [head, "| --- | --- | --- |" + (" --- |" if ratio else "")]
    for process in order:
        row = (f"| {PROCESSES[process]} | {cli[f'this: {process}']['wall']['median']:.{decimals}f} | "
               f"{cli[f'baseline: {process}']['wall']['median']:.{decimals}f} |")
        lines.append(row + (f" {per_round(cli, process)} |" if ratio else ""))
    if floors:
        lines += [f"| {label} | {cli[f'floor: {key}']['wall']['median']:.3f} | |" + (" |" if ratio else "")
                  for key, label in FLOORS.items() if f"floor: {key}" in cli]
    load = record["load_before"][0], record["load_after"][0]
    return (f"`benchmarks/results/{record['_file']}`: wall seconds, median of {record['arguments']['cli_repeats']} "
            f"rounds, {record['machine']['cores']} cores ({record['machine']['cpu']}), load average "
            f"{min(load):.1f}-{max(load):.1f} (before, after):\n\n" + "\n".join(lines) + "\n")


def tasks_page(root: Path) -> dict[str, str]:
    records = {file: {**record, "_file": file} for file, record in measured(root, "encode-*.json").items()}
    fifth = records["encode-20261128T0351-fa9cfc2cdea1.json"]
    sixth = records["encode-20261128T0653-4fc2b81ae81c.json"]
    return {"sgts-estimator-cost": sgts_cost(root),
            "fixed-costs-fa9cfc2": fixed_costs(fifth, "6417eab", ("list tasks", "leaderboard", "no-op run",
                                                                 "warm sgts recompute"), False, True, 3),
            "fixed-costs-4fc2b81": fixed_costs(sixth, "3672ebe", ("no-op run", "warm sgts recompute",
                                                                 "leaderboard", "list tasks"), True, True, 3)}


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    return {"README.md": readme(root), "docs/fewshot.md": fewshot_page(root), "docs/tasks.md": tasks_page(root)}


def main() -> int:
    return generator_main(doc_blocks, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
