"""The timings docs/tasks.md, docs/executors.md and the README quote, regenerated from the committed measurements.

    python benchmarks/doc_timings.py           # print every block
    python benchmarks/doc_timings.py --docs    # rewrite them (benchmarks/doc_blocks.py checks them)

Every number comes from a file under `benchmarks/results/` and nothing else; nothing is run or timed here:
- `encode-*.json` (`benchmarks/bench_encode.py`): encode ratios (harness against sentence-transformers, against
  one pass per batch, against padded batches; bf16 against float32), the `--scores` runs, and the fixed costs
  of fresh processes against a baseline checkout, for docs/tasks.md's earlier passes and the README's bf16 line;
- `nodes-*.json` (`benchmarks/bench_nodes.py`): docs/executors.md's 1, 2 and 3 node table.

`--smoke` (CI: the script still runs) prints the block names and their sizes, and writes nothing.
"""

from __future__ import annotations

import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from doc_blocks import generator_main  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "doc_timings"


def dec(value: float, decimals: int = 2) -> str:
    """`value` rounded half up as its stored decimal digits read (2.925 -> 2.93), as a reader rounds them."""
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def measurement(root: Path, name: str) -> dict:
    return json.loads((root / "benchmarks" / "results" / name).read_text(encoding="utf-8"))


def encode_files(root: Path) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted((root / "benchmarks" / "results").glob("encode-*.json"))}


def ratio(record: dict, size: str, comparison: str, kind: str = "ratio_wall") -> str:
    r = record["encode"]["sets"][size]["comparisons"][comparison][kind]
    return f"{dec(r['median'], 2)} ({dec(r['min'], 2)}-{dec(r['max'], 2)})"


def sci(value: float) -> str:
    """1.7e-4, not 1.7e-04."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def ratio_table(runs: list[dict], rows: list[tuple[str, str, str]]) -> str:
    head = "| ratio (median of {} pairs; min-max) | ".format(runs[0]["arguments"]["pairs"])
    lines = [head + " | ".join(f"run {i}" for i in range(1, len(runs) + 1)) + " |",
             "| --- |" + " --- |" * len(runs)]
    for label, size, comparison in rows:
        lines.append(f"| {label} | " + " | ".join(ratio(r, size, comparison) for r in runs) + " |")
    return "\n".join(lines) + "\n"


def sizes(record: dict) -> tuple[str, str]:
    a = record["arguments"]
    return f"{a['short']} MR sentences", f"{a['long']} IMDB reviews at 256 tokens"


PROCESSES = (("list tasks", "`bench list tasks`"), ("leaderboard", "`bench leaderboard`"),
             ("no-op run", "no-op `bench run`"), ("warm sgts recompute", "warm SgTS group recompute"))


def cli_table(runs: list[dict], baseline: str, leaderboard_results: int, bold: str = "") -> str:
    """Fixed costs of two runs, this checkout and the baseline, wall medians."""
    repeats = runs[0]["arguments"]["cli_repeats"]
    lines = [f"| process (fresh, median of {repeats}; wall s) | this, run 1 | this, run 2 | {baseline}, run 1 | "
             f"{baseline}, run 2 |", "| --- | --- | --- | --- | --- |"]
    for key, label in PROCESSES:
        label = f"{label} ({leaderboard_results} results)" if key == "leaderboard" else label
        this = [dec(r['cli'][f'this: {key}']['wall']['median']) for r in runs]
        if key == bold:
            this = [f"**{v}**" for v in this]
        base = [dec(r['cli'][f'baseline: {key}']['wall']['median']) for r in runs]
        lines.append(f"| {label} | " + " | ".join(this + base) + " |")
    return "\n".join(lines) + "\n"


def per_round(cli: dict, key: str) -> list[float]:
    return [b / a for a, b in zip(cli[f"this: {key}"]["wall_s"], cli[f"baseline: {key}"]["wall_s"])]


def median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def round_ratio(cli: dict, key: str) -> str:
    """this / baseline per round (wall), median (min-max)."""
    r = [1 / x for x in per_round(cli, key)]
    return f"{dec(median(r), 2)} ({dec(min(r), 2)}-{dec(max(r), 2)})"


# --- docs/tasks.md ----------------------------------------------------------------------------------------------

def first_pass(files: dict[str, dict]) -> dict[str, str]:
    runs = [files["encode-20261123T1136-6d27a3708cb4.json"], files["encode-20261123T1139-6d27a3708cb4.json"]]
    short, long = sizes(runs[0])
    table = ratio_table(runs, [(f"harness / sentence-transformers, float32, {short}", "short",
                                "harness vs sentence-transformers"),
                               (f"harness / sentence-transformers, float32, {long}", "long",
                                "harness vs sentence-transformers"),
                               ("harness bf16 / float32, short", "short", "harness-bf16 vs harness"),
                               ("harness bf16 / float32, long", "long", "harness-bf16 vs harness")])
    scores = runs[0]["scores"]
    diff = scores["bf16_minus_f32"]
    worst = max(diff, key=lambda t: abs(diff[t]))
    rest = max(abs(v) for t, v in diff.items() if t != worst)
    cold = scores["cold_runs"]
    text = (f"`--scores`: the SgTS group cold in float32 took {dec(cold['float32']['wall_s'], 1)} s and in bfloat16 "
            f"{dec(cold['bfloat16']['wall_s'], 1)} s ({dec(scores['cold_ratio_wall'], 1)}x); the largest score\n"
            f"difference was {sci(abs(diff[worst]))} ({worst}), the others at most {sci(rest)}.\n")

    def spread(key: str, decimals: int) -> str:
        values = sorted(dec(r["cli"][f"this: {key}"]["wall"]["median"], decimals) for r in runs)
        return "-".join(dict.fromkeys(values)) + " s"

    fixed = (f"`bench list tasks` {spread('list tasks', 2)}, no-op `bench run` {spread('no-op run', 2)},\n"
             f"warm SgTS group recompute {spread('warm sgts recompute', 1)}")
    return {"encode-ratios-6d27a37": table, "bf16-scores-6d27a37": text, "fixed-costs-6d27a37": fixed,
            "leaderboard-6d27a37": spread("leaderboard", 2) + " at 6d27a37"}


def token_budget_rows(short: str, long: str) -> list[tuple[str, str, str]]:
    """The rows the second and third passes' ratio tables share: (label, text set, comparison)."""
    return [(f"harness / sentence-transformers, float32, {short}", "short", "harness vs sentence-transformers"),
            (f"harness / sentence-transformers, float32, {long}", "long", "harness vs sentence-transformers"),
            ("token budget: harness / harness in one pass per batch, short", "short", "harness vs harness-one-pass"),
            ("token budget: harness / harness in one pass per batch, long", "long", "harness vs harness-one-pass")]


def second_pass(files: dict[str, dict]) -> dict[str, str]:
    runs = [files["encode-20261124T1925-0271bbf1e47e.json"], files["encode-20261124T1933-0271bbf1e47e.json"]]
    short, long = sizes(runs[0])
    rows = token_budget_rows(short, long)
    emulated = files["encode-20261124T1958-0271bbf1e47e.json"]
    sets = emulated["encode"]["sets"]
    bf = {s: sets[s]["comparisons"]["harness-bf16 vs harness"]["ratio_wall"]["median"] for s in ("short", "long")}
    a = emulated["arguments"]
    r = {s: {c: sets[s]["comparisons"][c]["ratio_wall"]["median"] for c in
             ("harness vs sentence-transformers", "harness vs harness-one-pass")} for s in ("short", "long")}
    diff = max(sets[s]["bf16"]["max_abs_diff"] for s in sets)
    cosine = min(sets[s]["bf16"]["min_cosine"] for s in sets)
    text = (f"are emulated, and harness bf16 / float32 is **{dec(bf['short'], 3)}** ({a['short']} MR sentences) and "
            f"**{dec(bf['long'], 3)}** ({a['long']} IMDB reviews), that\n"
            f"is {dec(1 / bf['short'], 1)}x and {dec(1 / bf['long'], 1)}x slower; vectors agree as on the Xeon "
            f"(max abs difference {sci(diff)}, min cosine {dec(cosine, 5)}). The\n"
            f"encoder now says so on stderr when bf16 is asked for on such a CPU. The same run: harness / sentence-\n"
            f"transformers {dec(r['short']['harness vs sentence-transformers'], 2)} (short) and "
            f"{dec(r['long']['harness vs sentence-transformers'], 2)} (long), the token budget "
            f"{dec(r['short']['harness vs harness-one-pass'], 2)} and "
            f"{dec(r['long']['harness vs harness-one-pass'], 2)}, "
            f"on these smaller sets.\n")
    return {"encode-ratios-0271bbf": ratio_table(runs, rows), "fixed-costs-0271bbf": cli_table(runs, "2975d1a", 417),
            "bf16-emulated-0271bbf": text}


def third_pass(files: dict[str, dict]) -> dict[str, str]:
    runs = [files["encode-20261125T0845-452688b9a3d8.json"], files["encode-20261125T0851-452688b9a3d8.json"]]
    short, long = sizes(runs[0])
    rows = token_budget_rows(short, long)
    rounds = [s for r in runs for s in r["cli"]["this: warm sgts recompute"]["wall_s"]]
    speed = [b / a for r in runs for a, b in zip([r["cli"]["this: warm sgts recompute"]["wall"]["median"]],
                                                   [r["cli"]["baseline: warm sgts recompute"]["wall"]["median"]])]
    fast = "-".join(dict.fromkeys(f"{dec(x, 1)}x" for x in (min(speed), max(speed))))
    text = (f"The warm recompute is {fast} faster than 8d956e0 in the same rounds "
            f"(medians) and under 3 s in every timed round\n({dec(min(rounds), 2)}-{dec(max(rounds), 2)} s).\n")
    return {"encode-ratios-452688b": ratio_table(runs, rows),
            "fixed-costs-452688b": cli_table(runs, "8d956e0", 417, bold="warm sgts recompute"),
            "warm-sgts-452688b": text}


TARGETS = {"list tasks": "0.2", "leaderboard": "0.5", "no-op run": "0.3", "warm sgts recompute": "2"}


def fourth_pass(files: dict[str, dict]) -> dict[str, str]:
    invariance = files["encode-20261128T0042-445b3bb1d42b.json"]
    a = invariance["arguments"]
    lines = [f"| padded batches' seconds / equal-length passes' (median of {a['pairs']} pairs; min-max) | wall | CPU |",
             "| --- | --- | --- |"]
    for size, label in (("short", f"{a['short']:,} MR sentences"), ("long", f"{a['long']} IMDB reviews at 256 tokens")):
        lines.append(f"| {label} | {ratio(invariance, size, 'harness vs harness-padded')} | "
                     f"{ratio(invariance, size, 'harness vs harness-padded', 'ratio_cpu')} |")
    fixed = files["encode-20261128T0044-147af87df411.json"]
    cli = fixed["cli"]
    repeats = fixed["arguments"]["cli_repeats"]
    table = [f"| process (wall s, median of {repeats}) | 147af87 | cc62615 | per-round ratio, "
             "median (min-max) | issue 43's target |", "| --- | --- | --- | --- | --- |"]
    for key, label in PROCESSES:
        label = f"{label} (908 results)" if key == "leaderboard" else label
        table.append(f"| {label} | {dec(cli[f'this: {key}']['wall']['median'])} | "
                     f"{dec(cli[f'baseline: {key}']['wall']['median'])} | {round_ratio(cli, key)} | {TARGETS[key]} |")
    again = files["encode-20261128T0123-b130bbf40dce.json"]
    c = again["cli"]
    load = again["load_before"][0], again["load_after"][0]
    names = ("`bench list tasks`", "`bench leaderboard`", "no-op `bench run`", "warm SgTS")
    ratios = ", ".join(f"{n} {round_ratio(c, k)}" for n, (k, _) in zip(names, PROCESSES))
    this = " / ".join(dec(c[f'this: {k}']['wall']['median']) for k, _ in PROCESSES)
    base = " / ".join(dec(c[f'baseline: {k}']['wall']['median']) for k, _ in PROCESSES)
    text = (f"load average {dec(min(load), 1)}-{dec(max(load), 1)} "
            f"(`benchmarks/results/encode-20261128T0123-b130bbf40dce.json`): "
            f"per-round ratio, median (min-max): {ratios}; medians {this} s against cc62615's {base} s in the same "
            f"rounds\n")
    return {"batch-invariance-445b3bb": "\n".join(lines) + "\n", "fixed-costs-147af87": "\n".join(table) + "\n",
            "fixed-costs-b130bbf": text}


def tasks_page(root: Path) -> dict[str, str]:
    files = encode_files(root)
    return {**first_pass(files), **second_pass(files), **third_pass(files), **fourth_pass(files)}


# --- docs/executors.md ------------------------------------------------------------------------------------------

def nodes_table(root: Path) -> dict[str, str]:
    record = measurement(root, "nodes-20261125-ac54e39.json")
    runs = record["runs"]
    n_tasks = len(record["tasks"].split(","))
    items = len(record["models"].split(",")) * n_tasks
    encoded = [r["summary"].split(" text(s) encoded")[0].rsplit("; ", 1)[1] for r in runs]
    head = (f"| {len(record['models'].split(','))} models x (SgTS, probe) x (MR, VADER tweets) = {items} items, "
            f"`--limit {record['limit']}`, cold | " + " | ".join(f"{r['nodes']} node{'s' if r['nodes'] > 1 else ''}"
                                                               for r in runs) + " |")
    lines = [head, "| --- |" + " --- |" * len(runs),
             "| wall time of `bench run` (driver start-up included) | "
             + " | ".join(f"{dec(r['wall_s'], 1)} s" for r in runs) + " |",
             "| speed-up T(1) / T(N) | " + " | ".join(f"{dec(r['speed_up'], 2)}" for r in runs) + " |",
             "| efficiency T(1) / (N T(N)), ideal 1 | " + " | ".join(f"{dec(r['efficiency'], 2)}" for r in runs) + " |",
             "| cluster start-up (`ray start` of every node, not in the wall time) | "
             + " | ".join(f"{dec(r['cluster_start_s'], 1)} s" for r in runs) + " |",
             "| texts encoded | " + " | ".join(f"{int(e):,}" for e in encoded) + " |",
             "| result files equal to 1 node's (timing fields aside) | | "
             + " | ".join(f"{'yes' if r['identical_to_first'] else 'NO'}, {items} of {items}" for r in runs[1:]) + " |"]
    load = record["load_before"][0], record["load_after"][0]
    text = (f"work (load average {dec(load[0], 1)} before, {dec(load[1], 1)} after: the three one-CPU nodes were not "
            f"three free cores):\n")
    return {"nodes-ac54e39": "\n".join(lines) + "\n", "nodes-load-ac54e39": text}


# --- README -------------------------------------------------------------------------------------------------------

def readme(root: Path) -> dict[str, str]:
    """bf16 against float32: the range of the encode ratios on CPUs with bf16 instructions, the emulated slowdown
    on one without, and the largest score difference of the `--scores` runs."""
    native, emulated, scores = [], [], []
    for record in encode_files(root).values():
        for size in (record.get("encode") or {}).get("sets", {}).values():
            cmp = size.get("comparisons", {}).get("harness-bf16 vs harness")
            if cmp:
                (native if record["machine"]["bf16_instructions"] else emulated).append(cmp["ratio_wall"]["median"])
        if "scores" in record:
            scores.append(record["scores"]["max_abs_difference"])
    speed = f"{dec(min(native), 1)}-{dec(max(native), 1)}x"
    return {"bf16-speed": (f"about {speed} faster encoding on CPUs with bf16 matmuls, scores within "
                           f"{sci(max(scores))} (SgTS group; measured: `benchmarks/results/encode-*.json`). "
                           f"On a CPU without bf16 instructions (AVX2 only) bf16 is emulated and\nabout "
                           f"{dec(1 / max(emulated), 1)}-{dec(1 / min(emulated), 1)}x slower than float32\n")}


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    return {"README.md": readme(root), "docs/tasks.md": tasks_page(root), "docs/executors.md": nodes_table(root)}


def main() -> int:
    return generator_main(doc_blocks, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
