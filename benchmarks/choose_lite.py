"""Choose and validate sentibench-lite-v1 from sentibench-v1's committed results (docs/benchmarks.md).

MMTEB chose MTEB(eng, v2) from MTEB(eng, v1) by inter-task correlation over models, then downsampling. Here:
1. **Cost** (`--costs`, once, writes benchmarks/results/v1_task_costs.npz): every v1 task is run with a
   recording encoder (the `random` card's Gaussian vectors: free to encode) to learn exactly which texts it
   encodes, each counted in all-MiniLM-L6-v2 tokens; then all-minilm-l6-v2 runs v1 cold (an empty
   SENTIBENCH_HOME) and again warm (every vector cached: each result's `evaluation_time` is its evaluation
   alone), and the smallest task cold (the fixed start-up). A subset's modelled cold cost is fixed + (tokens
   of the *union* of its texts) / throughput + its tasks' evaluation seconds, the throughput being what makes
   the model reproduce v1's cold seconds. Shared texts count once, as `bench run` encodes them once.
2. **Choice** (default): greedy forward selection over v1's tasks on the committed results, each step adding
   the task that most raises the mean of the two headline axes' Spearman rho (lite axis against v1 axis, over
   models; in-domain results left out as on the board), until no task fits the budget of `BUDGET` of v1's
   modelled cost. Lite keeps v1's task versions unchanged, so no result is simulated: a lite score is computed from
   the very result files v1 uses, and every committed model's lite result is a real run.
3. **Leave-models-out validation**: `--splits` random halvings of the model *families* (the SentiCSE and
   InfoDCL ablation families, the LSTM pair and the SimCSE pair stay whole, so no family leaks across the
   split); the subset is chosen on one half and its Spearman rho measured on the other.
4. **Measured cost** (`--measure`): `bench run -b sentibench-v1` and `-b sentibench-lite-v1` for
   all-minilm-l6-v2, each from an empty SENTIBENCH_HOME, one after the other, and their ratio.

    python benchmarks/choose_lite.py            # choice + validation from the committed files (seconds)
    python benchmarks/choose_lite.py --docs     # and rewrite docs/benchmarks.md's numbers, table and figure
    python benchmarks/choose_lite.py --measure  # plus the measured cold runs (about 20 minutes, 2 cores)
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parent.parent
COSTS = ROOT / "benchmarks" / "results" / "v1_task_costs.npz"
BUDGET = 0.10        # of v1's modelled cold cost: under the 1/8 target, with room for the model's error
TARGET_RHO = 0.95
SPLITS = 20
PAGE, FIGURE = "docs/benchmarks.md", "docs/figures/lite_vs_v1.png"
FAMILIES = {"senticse-minilm": "senticse", "infodcl-minilm": "infodcl", "lstm-mr": "lstm", "sifter-lstm-mr": "lstm",
            "simcse-unsup-minilm": "simcse", "sifter-simcse-minilm": "simcse"}


def family(model: str) -> str:
    """The family a model belongs to (ablations of one method share it; `card@revision` is the card's)."""
    model = model.split("@")[0]
    for prefix, name in FAMILIES.items():
        if model == prefix or model.startswith(prefix + "-"):
            return name
    return model


# ---- 1. cost -----------------------------------------------------------------------------------------------

def record_texts(tasks: list | None = None) -> tuple[list[str], dict[str, np.ndarray]]:
    """Every v1 task (or `tasks`) run with a recording random encoder: the distinct texts, and each task's
    indices into them."""
    from sentibench.models.catalog.baselines import RandomEncoder
    from sentibench.tasks.base import EvalContext
    from sentibench.tasks.benchmarks import required_tasks

    class Recording(RandomEncoder):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[str] = set()

        def encode(self, texts, batch_size=32, show_progress_bar=None):
            self.seen.update(texts)
            return super().encode(texts, batch_size, show_progress_bar)

    table: dict[str, int] = {}
    per_task = {}
    for task in required_tasks("sentibench-v1") if tasks is None else tasks:
        encoder = Recording()
        task.run(encoder, EvalContext(model_name="random"))
        per_task[task.name] = np.array(sorted(table.setdefault(t, len(table)) for t in encoder.seen), dtype=np.int64)
        print(f"{task.name}: {len(encoder.seen)} texts", file=sys.stderr)
    return sorted(table, key=table.get), per_task


def run_seconds(args: list[str], home: str, output: Path) -> float:
    """Wall seconds of `bench run ARGS -m all-minilm-l6-v2` with SENTIBENCH_HOME=home, results under `output`."""
    env = {**os.environ, "SENTIBENCH_HOME": home}
    started = time.perf_counter()
    subprocess.run(["bench", "run", *args, "-m", "all-minilm-l6-v2", "--output-folder", str(output)], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def measure_costs(out: Path, cold: float | None, warm: Path | None, fixed: float | None) -> None:
    """The cost model's measurements, each made here unless given: which texts each task encodes and their
    token counts; `cold`, v1's cold wall seconds (empty SENTIBENCH_HOME); `warm`, a results folder of v1 re-run
    with every vector cached, whose `evaluation_time`s are the evaluation alone; `fixed`, the cold wall seconds
    of the smallest task (start-up, model load, one dataset). Throughput: v1's tokens over the cold seconds
    that are neither fixed nor evaluation."""
    from sentibench.models.catalog.loaders import build_encoder
    from sentibench.models.catalog.lookup import card_for
    from sentibench.results.task_result import iter_results

    texts, per_task = record_texts()
    model = build_encoder(card_for("all-minilm-l6-v2"), device="cpu")
    tokens = np.array([min(len(ids), model.max_length)
                       for ids in model.tokenizer(texts, truncation=False)["input_ids"]])
    with tempfile.TemporaryDirectory() as scratch:
        if fixed is None:
            fixed = run_seconds(["-t", "sgts-vader-tweets"], f"{scratch}/tiny", Path(scratch) / "tiny-out")
        if cold is None or warm is None:
            home = f"{scratch}/home"
            cold_seconds = run_seconds(["-b", "sentibench-v1"], home, Path(scratch) / "cold")
            cold = cold if cold is not None else cold_seconds
            warm = warm or Path(scratch) / "warm"
            run_seconds(["-b", "sentibench-v1"], home, warm)
        seconds = {r.task_name: r.evaluation_time for r in iter_results(warm)}
    evaluation = sum(seconds[name] for name in per_task)
    rate = tokens.sum() / (cold - fixed - evaluation)
    np.savez_compressed(out, tokens=tokens, rate=np.array(rate), fixed=np.array(fixed), names=np.array(list(per_task)),
                        seconds=np.array([seconds[n] for n in per_task]),
                        **{f"task_{i}": per_task[n] for i, n in enumerate(per_task)})
    print(f"wrote {out}: {len(texts)} distinct texts, {tokens.sum()} tokens; v1 cold {cold:.0f}s = fixed {fixed:.0f}s"
          f" + evaluation {evaluation:.0f}s + encoding at {rate:.0f} tokens/s", file=sys.stderr)


class CostModel:
    def __init__(self, path: Path) -> None:
        with np.load(path) as stored:
            self.tokens, self.rate, self.fixed = stored["tokens"], float(stored["rate"]), float(stored["fixed"])
            names = [str(n) for n in stored["names"]]
            self.seconds = dict(zip(names, stored["seconds"].tolist()))
            self.texts = {n: stored[f"task_{i}"] for i, n in enumerate(names)}
        self.masks = {name: np.isin(np.arange(len(self.tokens)), texts) for name, texts in self.texts.items()}

    def seconds_for(self, tasks: list[str]) -> float:
        """Modelled cold seconds of all-minilm-l6-v2 on `tasks`: fixed + the union's tokens / throughput +
        the tasks' evaluation seconds."""
        if not tasks:
            return 0.0
        union = np.logical_or.reduce([self.masks[t] for t in tasks])
        return float(self.fixed + self.tokens[union].sum() / self.rate + sum(self.seconds[t] for t in tasks))


# ---- 2. the committed results --------------------------------------------------------------------------------

def load_scores(benchmark, results: Path = ROOT / "results") -> tuple[list[str], dict[str, np.ndarray],
                                                                     dict[str, np.ndarray]]:
    """(models with every v1 task, task -> main score per model, task -> in-domain mask per model)."""
    from sentibench.report.leaderboard import build

    board = build(results, benchmark.name)
    models = [row.model for row in board.overview.ranked]
    scores = {t: np.array([board.by_model[m][t].main_score() for m in models]) for t in benchmark.task_names}
    in_domain = {t: np.array([board.by_model[m][t].provenance.trained_on_eval_dataset for m in models])
                 for t in benchmark.task_names}
    return models, scores, in_domain


def axis_values(tasks: list[str], scores: dict[str, np.ndarray], in_domain: dict[str, np.ndarray],
                rows: np.ndarray) -> np.ndarray | None:
    """The axis mean per model (rows) over `tasks`, in-domain results left out; None if a model has none."""
    keep = np.array([~in_domain[t][rows] for t in tasks], dtype=float)
    if not len(tasks) or (keep.sum(axis=0) == 0).any():
        return None
    values = np.array([scores[t][rows] for t in tasks])
    return (values * keep).sum(axis=0) / keep.sum(axis=0)


def agreement(chosen: list[str], axes, scores, in_domain, rows: np.ndarray) -> list[float]:
    """Spearman rho of lite's axis against v1's, per axis, over `rows`."""
    out = []
    for axis in axes:
        lite = axis_values([t for t in chosen if t in axis.tasks], scores, in_domain, rows)
        full = axis_values(list(axis.tasks), scores, in_domain, rows)
        out.append(-1.0 if lite is None else float(spearmanr(lite, full).statistic))
    return out


def choose(axes, candidates: list[str], scores, in_domain, rows: np.ndarray, cost: CostModel,
           budget: float) -> list[str]:
    """Greedy forward selection until the budget is spent: add the task that most raises the mean of the axes'
    rho (an axis some model cannot be scored on counts -1), the cheaper on a tie. Filling the budget rather
    than stopping at the first subset that reaches the target generalised better to held-out families in an
    exploration with an earlier cost model (docs/benchmarks.md)."""
    chosen: list[str] = []
    while True:
        options = []
        for task in candidates:
            if task in chosen:
                continue
            seconds = cost.seconds_for(chosen + [task])
            if seconds <= budget:
                rho = agreement(chosen + [task], axes, scores, in_domain, rows)
                options.append((float(np.mean(rho)), -seconds, task))
        if not options:
            return sorted(chosen)
        chosen.append(max(options)[2])


def validate(axes, candidates, models, scores, in_domain, cost, budget,
             splits: int) -> list[tuple[list[float], list[str]]]:
    """Leave-families-out: choose on a random half of the families, score on the other half; per split, each
    axis's rho and the held-out models."""
    families = sorted({family(m) for m in models})
    rng = np.random.default_rng(0)
    out = []
    for _ in range(splits):
        held = set(rng.permutation(families)[: len(families) // 2].tolist())
        test = np.array([family(m) in held for m in models])
        chosen = choose(axes, candidates, scores, in_domain, np.flatnonzero(~test), cost, budget)
        out.append((agreement(chosen, axes, scores, in_domain, np.flatnonzero(test)),
                    [m for m, held_out in zip(models, test) if held_out]))
    return out


def plot(path: Path | io.BytesIO, lite, axes, models: list[str], scores, in_domain) -> None:
    """Lite's axis against v1's, one point per model, one panel per axis (x 100), with the identity line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sentibench.core.scatter_labels import FIRST_PLACE, spread_labels

    rows, labels = np.arange(len(models)), []
    fig, panels = plt.subplots(1, len(axes), figsize=(7 * len(axes), 6.5))
    for panel, axis in zip(np.atleast_1d(panels), axes):
        full = 100 * axis_values(list(axis.tasks), scores, in_domain, rows)
        mine = 100 * axis_values([t for t in lite.task_names if t in axis.tasks], scores, in_domain, rows)
        rho = spearmanr(mine, full).statistic
        panel.scatter(full, mine, s=22, color="#1f77b4", zorder=3)
        low, high = min(full.min(), mine.min()) - 3, max(full.max(), mine.max()) + 3
        panel.plot([low, high], [low, high], color="#999999", lw=0.8, zorder=1)
        labels += [panel.annotate(name, (x, y), xytext=FIRST_PLACE, textcoords="offset points", fontsize=6.5,
                                  color="#444444") for x, y, name in zip(full, mine, models)]
        panel.set_xlabel(f"{axis.name}, sentibench-v1 ({len(axis.tasks)} tasks), x 100")
        panel.set_ylabel(f"{axis.name}, {lite.name}, x 100")
        panel.set_title(f"{axis.name}: Spearman rho {rho:.3f} over {len(models)} models", fontsize=11)
        panel.grid(alpha=0.3)
    fig.tight_layout()
    spread_labels(fig, labels)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(lite, axes, models: list[str], scores, in_domain) -> str:
    """Per model, each axis on v1 and on lite (x 100) and the model's rank on each: the validation table."""
    from tabulate import tabulate

    rows, columns, headers = np.arange(len(models)), [], []
    for axis in axes:
        full = axis_values(list(axis.tasks), scores, in_domain, rows)
        mine = axis_values([t for t in lite.task_names if t in axis.tasks], scores, in_domain, rows)
        rank = {name: 1 + (values > values[:, None]).sum(axis=1) for name, values in (("v1", full), ("lite", mine))}
        columns += [100 * full, rank["v1"], 100 * mine, rank["lite"]]
        headers += [f"{axis.name} v1", "rank", f"{axis.name} lite", "rank"]
    order = np.argsort(-columns[0], kind="stable")
    body = [[models[i], *[f"{c[i]:.2f}" if c.dtype.kind == "f" else int(c[i]) for c in columns]] for i in order]
    return tabulate(body, headers=["model", *headers], tablefmt="github", disable_numparse=True)


# ---- the doc -------------------------------------------------------------------------------------------------

def seconds(value: float) -> str:
    return f"{value:,.0f} s"


def doc_blocks(root: Path) -> dict[str, dict[str, str] | bytes]:
    """docs/benchmarks.md's numbers on lite (the benchmarks table, the cost model, the choice, the validation, the
    per-model table) and its figure, from the committed results and cost model under `root`."""
    from tabulate import tabulate

    from sentibench.tasks.benchmarks import get_benchmark

    v1, lite, current = get_benchmark("sentibench-v1"), get_benchmark("sentibench-lite-v1"), get_benchmark().name
    cost = CostModel(root / COSTS.relative_to(ROOT))
    candidates = [t for t in v1.task_names if t not in v1.diagnostics]
    full_cost, lite_cost = cost.seconds_for(v1.task_names), cost.seconds_for(lite.task_names)
    models, scores, in_domain = load_scores(v1, root / "results")
    rows = np.arange(len(models))
    chosen = choose(v1.axes, candidates, scores, in_domain, rows, cost, BUDGET * full_cost)
    splits = validate(v1.axes, candidates, models, scores, in_domain, cost, BUDGET * full_cost, SPLITS)
    benchmarks = [[f"`{b.name}`" + (" (current)" if b.name == current else ""), len(b.tasks),
                   *(len(a.tasks) for a in b.axes), len(b.diagnostics),
                   seconds(cost.seconds_for(b.task_names)) + ("" if b is v1 else f" (1/{full_cost / lite_cost:.1f})"),
                   f"`{b.manifest_sha256[:12]}…`"] for b in (v1, lite)]
    overview = tabulate(benchmarks, headers=["benchmark", "tasks", *(a.name for a in v1.axes), "diagnostics",
                                             "modelled cold cost, all-minilm-l6-v2", "manifest sha256"],
                        tablefmt="github", disable_numparse=True)
    evaluation = dict(sorted(cost.seconds.items(), key=lambda item: -item[1]))
    cost_model = (f"The committed cost model: {len(cost.tokens):,} distinct texts, {int(cost.tokens.sum()):,} MiniLM "
                  f"tokens; start-up {seconds(cost.fixed)}; {cost.rate:,.0f} tokens/s; evaluation "
                  f"{seconds(sum(evaluation.values()))} in all, the largest "
                  + ", ".join(f"`{name}` {seconds(s)}" for name, s in list(evaluation.items())[:4])
                  + f". v1's modelled cold cost: {seconds(full_cost)}.\n")
    same = sorted(chosen) == sorted(lite.task_names)
    choice = (f"The result, {len(chosen)} tasks with a modelled cold cost of {seconds(cost.seconds_for(chosen))} "
              f"(1/{full_cost / cost.seconds_for(chosen):.1f} of v1's), chosen on all {len(models)} models: "
              + ", ".join(f"`{name}`" for name in chosen)
              + (": exactly `sentibench-lite-v1`.\n" if same else ": **not** `sentibench-lite-v1`'s tasks.\n"))
    in_sample = agreement(sorted(lite.task_names), v1.axes, scores, in_domain, rows)
    lines = [f"**In sample** (`sentibench-lite-v1` over all {len(models)} models): Spearman rho of lite against v1 is "
             + " and ".join(f"**{r:.3f} on {a.name}**" for a, r in zip(v1.axes, in_sample)) + ".", "",
             f"**Leave-models-out** ({len(splits)} random halvings of the {len({family(m) for m in models})} model "
             "families; chosen on one half, scored on the other):"]
    for index, axis in enumerate(v1.axes):
        values = np.array([rho[index] for rho, _ in splits])
        lines.append(f"{axis.name} median **{np.median(values):.3f}**, mean {values.mean():.3f}, minimum "
                     f"{values.min():.3f}, at least {TARGET_RHO} in {np.mean(values >= TARGET_RHO):.0%} of the splits;")
    worst_rho, held = min(splits, key=lambda split: split[0][0])
    lines.append(f"the worst {v1.axes[0].name} split ({worst_rho[0]:.3f}) holds out {len(held)} models: "
                 + ", ".join(held) + ".\n")
    figure = io.BytesIO()
    plot(figure, lite, v1.axes, models, scores, in_domain)
    return {PAGE: {"lite-benchmarks": overview + "\n", "lite-cost-model": cost_model, "lite-choice": choice,
                   "lite-validation": "\n".join(lines), "lite-table": table(lite, v1.axes, models, scores, in_domain)
                   + "\n"},
            FIGURE: figure.getvalue()}


# ---- 4. measured cost ---------------------------------------------------------------------------------------

def measure_cold(benchmarks: list[str]) -> dict[str, float]:
    """Wall seconds of `bench run -b NAME -m all-minilm-l6-v2`, each from an empty SENTIBENCH_HOME, one after
    the other."""
    out = {}
    for name in benchmarks:
        with tempfile.TemporaryDirectory() as home:
            out[name] = run_seconds(["-b", name], home, Path(home) / "out")
        print(f"{name}: {out[name]:.1f}s cold", file=sys.stderr)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--costs", action="store_true", help=f"measure the cost model into {COSTS.name} first "
                                                             "(about 30 minutes on 2 cores)")
    parser.add_argument("--cold", type=float, help="with --costs: v1's measured cold seconds, instead of a run")
    parser.add_argument("--warm", type=Path, help="with --costs: a folder of v1 results re-run warm, instead of a run")
    parser.add_argument("--fixed", type=float, help="with --costs: the smallest task's cold seconds, instead of a run")
    parser.add_argument("--measure", action="store_true", help="time cold v1 and lite runs side by side")
    parser.add_argument("--splits", type=int, default=20, help="leave-families-out splits")
    parser.add_argument("--plot", metavar="PNG", help="draw lite's axes against v1's per model")
    parser.add_argument("--table", action="store_true", help="print the per-model validation table (Markdown)")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s generated blocks and {FIGURE} "
                                                            "from the committed files")
    parser.add_argument("--smoke", action="store_true", help="CI: 2 splits, no timing")
    args = parser.parse_args()
    if args.docs:
        from doc_blocks import write  # a sibling script

        for page in write(doc_blocks(ROOT), ROOT):
            print(f"rewrote {page}")
        return 0
    from sentibench.tasks.benchmarks import get_benchmark

    v1 = get_benchmark("sentibench-v1")
    if args.costs:
        measure_costs(COSTS, args.cold, args.warm, args.fixed)
    cost = CostModel(COSTS)
    candidates = [t for t in v1.task_names if t not in v1.diagnostics]
    full_cost = cost.seconds_for(v1.task_names)
    budget = BUDGET * full_cost
    models, scores, in_domain = load_scores(v1)
    rows = np.arange(len(models))
    chosen = choose(v1.axes, candidates, scores, in_domain, rows, cost, budget)
    rho = agreement(chosen, v1.axes, scores, in_domain, rows)
    lite_cost = cost.seconds_for(chosen)
    print(f"v1: {len(v1.tasks)} tasks, modelled cold cost {full_cost:.0f}s; budget {BUDGET:.0%} = {budget:.0f}s")
    print(f"chosen on all {len(models)} models: {', '.join(chosen)}")
    print(f"modelled cold cost {lite_cost:.0f}s = 1/{full_cost / lite_cost:.1f} of v1; Spearman rho against v1: "
          + ", ".join(f"{a.name} {r:.3f}" for a, r in zip(v1.axes, rho)))
    released = sorted(get_benchmark("sentibench-lite-v1").task_names)
    print("matches sentibench-lite-v1" if chosen == released else
          f"DIFFERS from sentibench-lite-v1 ({', '.join(released)})")
    splits = validate(v1.axes, candidates, models, scores, in_domain, cost, budget, 2 if args.smoke else args.splits)
    lite = get_benchmark("sentibench-lite-v1")
    print(f"\nleave-families-out validation ({len(splits)} random halvings of {len({family(m) for m in models})} "
          "families; chosen on one half, Spearman rho on the held-out half):")
    for axis_index, axis in enumerate(v1.axes):
        values = np.array([s[0][axis_index] for s in splits])
        print(f"  {axis.name}: median {np.median(values):.3f}, mean {values.mean():.3f}, min {values.min():.3f}, "
              f"share >= {TARGET_RHO}: {np.mean(values >= TARGET_RHO):.0%}")
    fixed = agreement(sorted(lite.task_names), v1.axes, scores, in_domain, rows)
    print("sentibench-lite-v1 itself over all models: "
          + ", ".join(f"{a.name} {r:.3f}" for a, r in zip(v1.axes, fixed)))
    if args.table:
        print("\n" + table(lite, v1.axes, models, scores, in_domain))
    if args.plot:
        plot(Path(args.plot), lite, v1.axes, models, scores, in_domain)
        print(f"wrote {args.plot}")
    if args.measure and not args.smoke:
        full_s, lite_s = measure_cold(["sentibench-v1", "sentibench-lite-v1"]).values()
        print(f"\nmeasured cold, all-minilm-l6-v2, one after the other: v1 {full_s:.0f}s, lite {lite_s:.0f}s: "
              f"ratio 1/{full_s / lite_s:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
