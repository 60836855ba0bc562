"""Few-shot task version 3 against version 2 and the frozen twin, from the committed results (docs/fewshot.md).

For each model and each SentiCSE-protocol task that has a version-3 result (`fewshot-senticse-v3-...`: the head on
the model's own sentence vector, the state of lowest validation loss kept), the same task's other variants on the
same draws and seeds: version 2 (`fewshot-senticse-...`: the first-token head, highest validation accuracy kept),
version 3 by accuracy (`fewshot-senticse-v3-by-accuracy-...`: version 3's head, version 2's rule) and the frozen
twin (`fewshot-frozen-senticse-...`). Scores are test accuracy, x100: the mean and sample std over seeds, and each
variant minus version 3 paired by seed and training draw with its t-interval over seeds (Student's t, as the task
reports its own interval). Also: for how many seeds the two rules of version 3 kept a different validated state.

    python benchmarks/fewshot_heads.py            # writes benchmarks/results/fewshot-heads.json, prints the table
    python benchmarks/fewshot_heads.py --smoke    # prints only
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.stats import ttest_rel

from sentibench.evaluation.bootstrap import t_interval

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "benchmarks" / "results" / "fewshot-heads.json"
VARIANTS = {"v3": "fewshot-senticse-v3-{s}", "v3-by-accuracy": "fewshot-senticse-v3-by-accuracy-{s}",
            "v2": "fewshot-senticse-{s}", "frozen": "fewshot-frozen-senticse-{s}"}


def read(results: Path, model: str, task: str) -> dict | None:
    """The model's result file of `task` (its only revision folder), or None."""
    found = sorted((results / model).glob(f"*/{task}.json"))
    return json.loads(found[0].read_text()) if found else None


def by_seed(result: dict) -> dict[tuple[int, str], dict]:
    return {(s["seed"], s["train_indices_sha256"]): s for s in result["sentibench"]["details"]["per_seed"]}


def compare(results: Path) -> list[dict]:
    rows = []
    for model_dir in sorted(p for p in results.iterdir() if p.is_dir()):
        model = model_dir.name
        for path in sorted(model_dir.glob("*/fewshot-senticse-v3-k*.json")):
            if "-by-" in path.stem or "-first-token-" in path.stem:
                continue
            setting = path.stem.removeprefix("fewshot-senticse-v3-")
            found = {name: read(results, model, pattern.format(s=setting)) for name, pattern in VARIANTS.items()}
            seeds = {name: by_seed(r) for name, r in found.items() if r is not None}
            reference = seeds["v3"]
            row = {"model": model, "setting": setting,
                   "commits": {name: r["sentibench"]["git_commit"] for name, r in found.items() if r},
                   "versions": {name: r["sentibench"]["task"]["version"] for name, r in found.items() if r}}
            for name, runs in seeds.items():
                keys = sorted(reference)
                if sorted(runs) != keys:
                    row[name] = {"error": "different seeds or training draws from version 3"}
                    continue
                values = np.array([runs[k]["accuracy"] for k in keys]) * 100
                entry = {"mean": round(float(values.mean()), 2), "std": round(float(values.std(ddof=1)), 2)}
                if name != "v3":
                    difference = values - np.array([reference[k]["accuracy"] for k in keys]) * 100
                    interval = t_interval(difference)
                    entry |= {"minus_v3": round(float(difference.mean()), 2),
                              "interval": [round(interval["low"], 2), round(interval["high"], 2)],
                              "p": float(ttest_rel(values, values - difference).pvalue)}
                row[name] = entry
            if "v3-by-accuracy" in seeds and "error" not in row["v3-by-accuracy"]:
                row["seeds_where_the_rules_keep_different_steps"] = sum(
                    reference[k]["best_step"] != seeds["v3-by-accuracy"][k]["best_step"] for k in reference)
            rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    def cell(row: dict, name: str) -> str:
        entry = row.get(name)
        if entry is None:
            return "-"
        if "error" in entry:
            return entry["error"]
        text = f"{entry['mean']:.2f} ± {entry['std']:.2f}"
        if "minus_v3" in entry:
            low, high = entry["interval"]
            text += f" ({entry['minus_v3']:+.2f} [{low:+.2f}, {high:+.2f}], p {entry['p']:.2g})"
        return text

    lines = ["| model | task | v3 (own vector, loss) | v3 by accuracy (- v3 [95% CI], p) | v2 (first token, accuracy) "
             "(- v3 [95% CI], p) | frozen twin (- v3 [95% CI], p) | seeds: rules keep other steps |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        changed = row.get("seeds_where_the_rules_keep_different_steps")
        lines.append(f"| {row['model']} | senticse-{row['setting']} | {cell(row, 'v3')} | "
                     f"{cell(row, 'v3-by-accuracy')} | {cell(row, 'v2')} | {cell(row, 'frozen')} | "
                     f"{'-' if changed is None else changed} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--smoke", action="store_true", help="print the table only, write nothing")
    args = parser.parse_args()
    rows = compare(args.results)
    print(table(rows))
    if not args.smoke:
        OUTPUT.write_text(json.dumps({"script": "benchmarks/fewshot_heads.py", "unit": "accuracy x 100",
                                      "rows": rows}, indent=2) + "\n")
        print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
