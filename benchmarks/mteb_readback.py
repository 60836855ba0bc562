"""The committed results read back by mteb: the numbers docs/mteb.md quotes, regenerated, never typed.

    python benchmarks/mteb_readback.py [--results results] [--docs] [--json OUT] [--smoke]

Exports the results folder with `bench export mteb` into a temporary folder, loads it with mteb's own
`ResultCache` (after `register_with_mteb`, so mteb can type our tasks), and prints each model's
`get_aggregated_scores()` (`Mean(Task)`, `Mean(TaskType)`) and, in the current benchmark's table
(`sentibench_benchmark()`, mteb's `get_benchmark_result()`), all-MiniLM-L6-v2's STS column. With `--docs`
docs/mteb.md's generated block `mteb-readback` is rewritten from them (benchmarks/doc_blocks.py). `--smoke`: one
committed model's results only, nothing rewritten (CI: the script still runs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from sentibench.mteb import register_with_mteb, sentibench_benchmark
from sentibench.mteb.export import export_results

PAGE, BLOCK = "docs/mteb.md", "mteb-readback"
QUOTED = {  # our card -> its name in mteb's results (its hub id where mteb knows the weights)
    "all-minilm-l6-v2": "sentence-transformers/all-MiniLM-L6-v2",
    "senticse-minilm": "sentibench/senticse-minilm",
    "all-mpnet-base-v2": "sentence-transformers/all-mpnet-base-v2",
    "random": "sentibench/random",
}
SMOKE_MODEL = "random"


def read_back(results: Path) -> dict:
    """{"aggregated": {mteb name: {"Mean(Task)": ..., "Mean(TaskType)": ...}}, "exported": n, "sts_column": x}."""
    import mteb

    register_with_mteb()
    with tempfile.TemporaryDirectory(prefix="sentibench-mteb-readback-") as scratch:
        report = export_results(results, Path(scratch) / "export")
        cache = mteb.ResultCache(str(Path(scratch) / "export"))
        loaded = cache.load_results()
        aggregated = {name: {key: float(value) for key, value in scores.items()}
                      for name, scores in loaded.get_aggregated_scores().items() if name in QUOTED.values()}
        benchmark = sentibench_benchmark()
        table = cache.load_results(tasks=benchmark).get_benchmark_result()
    sts = None
    minilm = QUOTED["all-minilm-l6-v2"]
    if "STS" in table.columns:
        names = [column for column in table.columns if "model" in column.lower() or "name" in column.lower()]
        for _, row in table.iterrows():
            if any(minilm.split("/")[1] in str(row[column]) for column in names):
                sts = float(row["STS"])
    sts_tasks = sum(task.metadata.type == "STS" for task in benchmark.tasks)
    return {"exported": len(report.written), "aggregated": aggregated, "sts_column": sts, "benchmark": benchmark.name,
            "sts_tasks": sts_tasks}


def block(found: dict) -> str:
    """The page's generated sentence: each quoted model's aggregates and the benchmark table's STS column."""
    parts = []
    for card, name in QUOTED.items():
        scores = found["aggregated"].get(name)
        if scores:
            parts.append(f"{card} {scores['Mean(Task)']:.4f} / {scores['Mean(TaskType)']:.4f}")
    sts = "" if found["sts_column"] is None else (
        f"; in the current benchmark's (`{found['benchmark']}`) table all-MiniLM-L6-v2's STS column is "
        f"{found['sts_column']:.4f} (the mean of its {found['sts_tasks']} STS-type tasks)")
    return (f"Read back from the committed results ({found['exported']} results exported; `Mean(Task)` / "
            "`Mean(TaskType)`): " + ", ".join(parts) + f"{sts}.\n")


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    """docs/mteb.md's generated block, from the committed results under `root` (benchmarks/doc_blocks.py)."""
    return {PAGE: {BLOCK: block(read_back(root / "results"))}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results", help="sentibench results folder to export and read back")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s generated block from --results")
    parser.add_argument("--json", help="also write the numbers as JSON here")
    parser.add_argument("--smoke", action="store_true", help="one committed model only; nothing rewritten")
    args = parser.parse_args()
    results = Path(args.results)
    with tempfile.TemporaryDirectory(prefix="sentibench-readback-smoke-") as scratch:
        if args.smoke:
            shutil.copytree(results / SMOKE_MODEL, Path(scratch) / SMOKE_MODEL)
            results = Path(scratch)
        found = read_back(results)
    print(json.dumps(found, indent=1, sort_keys=True))
    if args.smoke:
        if not found["aggregated"].get(QUOTED[SMOKE_MODEL]):
            print("error: the smoke model's results did not aggregate", file=sys.stderr)
            return 1
        return 0
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.docs:
        from doc_blocks import ROOT, write  # a sibling script

        write({PAGE: {BLOCK: block(found)}}, ROOT)
        print(f"rewrote the generated block of {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
