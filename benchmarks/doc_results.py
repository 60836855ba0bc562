"""Scores, intervals and training logs the method and model docs quote, regenerated from the committed results.

    python benchmarks/doc_results.py           # print every block
    python benchmarks/doc_results.py --docs    # rewrite them (benchmarks/doc_blocks.py checks them)

Every number is read from `results/<card>/<revision>/<task>.json` (main score x 100, its 95% interval, the other
metrics a result records) or from the training log committed beside it (`training.json`: steps, kept step,
validation history, loss curve, the training loop's seconds); the lite axis means are
`benchmarks/plateau_training.py`'s. Nothing is run: paired comparisons (`bench compare`) and timings of whole
runs, which no committed file records, stay typed in the pages.

`--smoke` (CI: the script still runs) prints the block names and their sizes, and writes nothing.
"""

from __future__ import annotations

import json
import statistics
import sys
from functools import cache
from pathlib import Path

from doc_blocks import generator_main  # a sibling script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "doc_results"


# --- reading -------------------------------------------------------------------------------------------------

@cache
def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def folder(root: Path, card: str, revision: str | None = None) -> Path:
    """results/<card>/<revision>/; without a revision, the card's only revision folder."""
    if revision is not None:
        return root / "results" / card / revision
    found = sorted(p for p in (root / "results" / card).iterdir() if p.is_dir())
    if len(found) != 1:
        raise SystemExit(f"error: results/{card} holds {len(found)} revisions; name one")
    return found[0]


def result(root: Path, card: str, task: str, revision: str | None = None) -> dict:
    return _read(folder(root, card, revision) / f"{task}.json")


def training(root: Path, card: str, revision: str | None = None) -> dict:
    return _read(folder(root, card, revision) / "training.json")


def scores(record: dict, split: str | None = None) -> dict:
    return record["scores"][split or record["sentibench"].get("main_split", "test")][0]


def main_score(record: dict, split: str | None = None) -> float:
    return scores(record, split)["main_score"]


def interval(record: dict) -> tuple[float, float]:
    ci = record["sentibench"]["details"]["confidence_interval"]
    return ci["low"], ci["high"]


def in_domain(record: dict) -> bool:
    return bool(record["sentibench"].get("trained_on_eval_dataset"))


# --- formatting -----------------------------------------------------------------------------------------------

def x100(value: float, decimals: int = 2) -> str:
    return f"{100 * value:.{decimals}f}"


def cell(record: dict, ci: bool = True, star: bool = False, decimals: int = 2) -> str:
    """Main score x 100, `*` when in-domain (if asked), and its 95% interval."""
    text = x100(main_score(record), decimals) + ("*" if star and in_domain(record) else "")
    if ci:
        low, high = interval(record)
        text += f" [{x100(low, decimals)}, {x100(high, decimals)}]"
    return text


def geometry(record: dict, star: bool = True) -> str:
    """An align task's tolerance x 100 / alignment / uniformity."""
    s = scores(record)
    return (f"{x100(s['tolerance'], 1)}{'*' if star and in_domain(record) else ''} / {s['alignment']:.3f} / "
            f"{s['uniformity']:.3f}")


def seconds(value: float) -> str:
    return f"{round(value):,} s"


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def history(log: dict) -> dict[int, float]:
    return {point["step"]: point.get("validation", point.get("polarity_score")) for point in log["history"]}


def kept(log: dict) -> float:
    return history(log)[log["best_step"]]


def plateau():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import plateau_training  # a sibling script: the lite axis means and the training summaries

    return plateau_training


@cache
def lite(root: Path, card: str, revision: str) -> dict[str, float]:
    return plateau().lite_axes(store(root), card, revision)


@cache
def store(root: Path):
    from sentibench.results.store import ResultStore

    return ResultStore.load(root / "results")


def spread(values: list[float]) -> str:
    return f"{statistics.fmean(values):.2f} ± {statistics.stdev(values):.2f} ({min(values):.2f}-{max(values):.2f})"


# --- docs/senticse.md ------------------------------------------------------------------------------------------

SGTS = ("sgts-mr", "sgts-vader-amazon", "sgts-vader-nyt", "sgts-vader-tweets", "sgts-imdb")


def senticse(root: Path) -> dict[str, str]:
    out = {}
    # the authors' clipping and masking, against seed 0 of the plateau card and the seed spread
    rows = []
    cards = (("`senticse-minilm` (seed 0, no clipping, exact-count)", "senticse-minilm", "senticse-plateau-r1"),
             ("`senticse-minilm-clip`", "senticse-minilm-clip", None),
             ("`senticse-minilm-per-token`", "senticse-minilm-per-token", None))
    for label, card, revision in cards:
        where = folder(root, card, revision)
        log = training(root, card, revision)
        summary = plateau().training_summary(where)
        axes = lite(root, card, where.name)
        rows.append([label, f"{log['steps']} / {log['best_step']} "
                            f"({'patience' if summary['stopped_early'] else 'step cap'})",
                     f"{log['seconds']:.0f}", f"{kept(log):.4f}", f"{axes['Sentiment']:.2f}", f"{axes['Meaning']:.2f}"])
    seeds = [lite(root, c, "senticse-plateau-r1") for c in ("senticse-minilm", "senticse-minilm-seed1",
                                                             "senticse-minilm-seed2")]
    rows.append(["`senticse-minilm`, seeds 0-2 (the training-seed spread)", "", "", "",
                 spread([s["Sentiment"] for s in seeds]), spread([s["Meaning"] for s in seeds])])
    # the two settings' axis means against the seeds' range
    low = {axis: min(s[axis] for s in seeds) for axis in ("Sentiment", "Meaning")}
    high = {axis: max(s[axis] for s in seeds) for axis in ("Sentiment", "Meaning")}
    outside = []
    for label, card in (("clipping's", "senticse-minilm-clip"), ("per-token's", "senticse-minilm-per-token")):
        axes = lite(root, card, folder(root, card).name)
        for axis in ("Sentiment", "Meaning"):
            if axes[axis] > high[axis]:
                outside.append(f"{label} {axis}, {axes[axis] - high[axis]:.2f} above it ({axes[axis]:.2f} against "
                               f"{high[axis]:.2f})")
            elif axes[axis] < low[axis]:
                outside.append(f"{label} {axis}, {low[axis] - axes[axis]:.2f} below it ({axes[axis]:.2f} against "
                               f"{low[axis]:.2f})")
    out["settings-in-seed-range"] = ("Both cards' axis means lie inside\n  the range of the three seeds of "
                                     "`senticse-minilm`" + (", except " + "; ".join(outside) if outside else ""))
    r2_axes = lite(root, "senticse-minilm", "senticse-cpu-r2")
    out["plateau-against-r2"] = (f"lite Sentiment {spread([s['Sentiment'] for s in seeds])} over the three seeds "
                                 f"against r2's {r2_axes['Sentiment']:.2f} (seed 0), Meaning "
                                 f"{spread([s['Meaning'] for s in seeds])} against {r2_axes['Meaning']:.2f}")
    out["clip-per-token"] = table(["card", "steps run / kept", "training loop s (wall)",
                                   "kept validation (MR validation SgTS)", "lite Sentiment", "lite Meaning"], rows)
    lite_tasks = sorted(entry[0] for entry in manifest(root, "sentibench-lite-v1")["tasks"])
    for card, name in (("senticse-minilm-clip", "clip"), ("senticse-minilm-per-token", "per-token")):
        rows = compared(root, card, "senticse-minilm@senticse-plateau-r1", lite_tasks)
        significant = [r for r in rows if r.p_adjusted < 0.05]
        found = "; ".join(f"{r.task} {signed(r.difference)} [{x100(r.low)}, {x100(r.high)}] (p (BH) "
                          f"{p_text(r.p_adjusted)})" for r in significant)
        sts = next(r for r in rows if r.task == "sts-stsb")
        out[f"{name}-compare"] = (f"Beyond p (BH) 0.05 ({len(significant)} of the {len(rows)} lite rows): "
                                  f"{found or 'none'}" + ("" if sts in significant else
                                                          f"; sts-stsb {signed(sts.difference)} [{x100(sts.low)}, "
                                                          f"{x100(sts.high)}]") + ".")
    # Table 7's ablations at r2: training, then SgTS with intervals
    ablations = (("L_w + L_pos", "senticse-minilm-pos-only", "senticse-cpu-pos-only-r2"),
                 ("L_w + L_neg", "senticse-minilm-neg-only", "senticse-cpu-neg-only-r2"),
                 ("L_pos + L_neg", "senticse-minilm-no-word", "senticse-cpu-no-word-r2"),
                 ("SentiCSE", "senticse-minilm", "senticse-cpu-r2"))
    parts = []
    for label, card, revision in ablations:
        log = training(root, card, revision)
        h = history(log)
        parts.append(f"{label} {seconds(log['seconds'])}, chose step {log['best_step']} "
                     f"({h[0]:.3f} -> {kept(log):.3f})")
    out["ablations-r2-training"] = (f"Training, {training(root, *ablations[0][1:])['steps']} steps each (the "
                                    f"training loop's seconds and validation SgTS-MR, from the committed logs): "
                                    + "; ".join(parts) + ".\n")
    rows = [["all-minilm-l6-v2 (base, no training)", *(cell(result(root, "all-minilm-l6-v2", t)) for t in SGTS)]]
    for label, card, revision in (("senticse-minilm-pos-only (L_w + L_pos)", "senticse-minilm-pos-only",
                                   "senticse-cpu-pos-only-r2"),
                                  ("senticse-minilm-neg-only (L_w + L_neg)", "senticse-minilm-neg-only",
                                   "senticse-cpu-neg-only-r2"),
                                  ("senticse-minilm-no-word (L_pos + L_neg)", "senticse-minilm-no-word",
                                   "senticse-cpu-no-word-r2"),
                                  ("senticse-minilm (SentiCSE)", "senticse-minilm", "senticse-cpu-r2")):
        rows.append([label, *(cell(result(root, card, t, revision)) for t in SGTS)])
    out["ablations-r2-sgts"] = table(["model", *SGTS], rows)
    for alpha, card, revision in (("0", "senticse-minilm-alpha0", "senticse-cpu-alpha0-r1"),
                                  ("2", "senticse-minilm-alpha2", "senticse-cpu-alpha2-r1")):
        log, base = training(root, card, revision), training(root, "senticse-minilm", "senticse-cpu-r2")
        h = history(log)
        against = f", against {kept(base):.3f} for alpha = 1" if alpha == "0" else ""
        out[f"alpha{alpha}-training"] = (f"{seconds(log['seconds'])} of training loop on one thread; validation "
                                         f"SgTS-MR {h[0]:.3f} -> {kept(log):.3f} at step {log['best_step']}{against}")
    for alpha in ("0", "2"):
        rows = compared(root, f"senticse-minilm-alpha{alpha}", "senticse-minilm@senticse-cpu-r2",
                        ["probe", "sgts", "sts"])
        probe, sgts = ([r for r in rows if r.task.startswith(f)] for f in ("probe-", "sgts-"))
        out[f"alpha{alpha}-compare"] = (f"(Benjamini-Hochberg over {len(rows)} rows): linear probing moves by "
                                        f"{family_summary(probe)}; SgTS by {family_summary(sgts)}; STS-B "
                                        + family_summary([r for r in rows if r.task == "sts-stsb"]))
    r2 = training(root, "senticse-minilm", "senticse-cpu-r2")
    out["r2-training"] = f"{r2['steps']} steps in {seconds(r2['seconds'])} (the training loop)"
    return out


# --- docs/infodcl.md -------------------------------------------------------------------------------------------

INFODCL_BASE_TASKS = ("sgts-mr", "sgts-vader-amazon", "sgts-vader-tweets", "sgts-vader-nyt", "sgts-imdb", "probe-mr",
                      "probe-vader-amazon", "probe-vader-tweets", "probe-tweets-3class", "probe-imdb")


def fewshot_cell(record: dict) -> str:
    s = scores(record)
    low, high = interval(record)
    return f"{x100(s['main_score'])} [{x100(low)}, {x100(high)}] (std {x100(s['f1_std'], 1)})"


def infodcl(root: Path) -> dict[str, str]:
    out = {}
    r2 = ("infodcl-minilm", "infodcl-cpu-r2")
    rows = [[t + ("*" if in_domain(result(root, *r2[:1], t, r2[1])) else ""),
             cell(result(root, "all-minilm-l6-v2", t)), cell(result(root, r2[0], t, r2[1]), star=True)]
            for t in INFODCL_BASE_TASKS]
    few = "fewshot-infodcl-n20-vader-tweets"
    version = result(root, r2[0], few, r2[1])["sentibench"]["task"]["version"]
    rows.append([f"{few} (macro-F1, fine-tuned, task version {version})", fewshot_cell(result(root, "all-minilm-l6-v2",
                                                                                              few)),
                 fewshot_cell(result(root, r2[0], few, r2[1]))])
    for task in ("align-tweets-3class", "align-vader-tweets"):
        star = "*" if in_domain(result(root, r2[0], task, r2[1])) else ""
        rows.append([f"{task}{star}: tolerance / alignment / uniformity",
                     geometry(result(root, "all-minilm-l6-v2", task)), geometry(result(root, r2[0], task, r2[1]))])
    out["r2-against-base"] = table(["task", "all-minilm-l6-v2", "infodcl-minilm (r2)"], rows)
    found = compared(root, "infodcl-minilm@infodcl-cpu-r2", "all-minilm-l6-v2", ["sgts"])
    out["r2-sgts-compare"] = "; ".join(f"{r.task} {100 * r.difference:+.1f} [{100 * r.low:.1f}, {100 * r.high:.1f}] "
                                       f"(p (BH) {p_text(r.p_adjusted)})" for r in found)
    log = training(root, *r2)
    first, last = log["loss_curve"][0], log["loss_curve"][-1]
    terms = (("loss", "L (eq. 7)"), ("ccl", "L_CCL"), ("lcl", "L_LCL-LiT"), ("slp", "L_SLP"),
             ("mlm", "L_MLM (fresh tied head)"))
    out["r2-losses"] = table(["", f"step {first['step']} (first window)", f"step {last['step']} (last)"],
                             [[label, f"{first[k]:.2f}", f"{last[k]:.2f}"] for k, label in terms])
    held = history(log)
    out["r2-held-out"] = ", ".join(f"{-v:.3f}" for v in held.values()) + f" (step {max(held)})"
    out["r2-training"] = (f"Training: {log['steps']} steps, **{seconds(log['seconds'])} "
                          f"({log['seconds'] / 60:.1f} min) of training loop** in the committed log")
    # the plateau revision against r2, on the lite benchmark
    plateau_rev = "infodcl-plateau-r1"
    log = training(root, "infodcl-minilm", plateau_rev)
    h = history(log)
    steps = sorted(h)
    picks = [steps[0], 400, 700]
    out["plateau-validation"] = (", ".join(f"{h[s]:.3f} at {'step ' if s == picks[0] else ''}{s}" for s in picks)
                                 + f", {kept(log):.3f} kept at {log['best_step']}")
    lite_tasks = sorted(entry[0] for entry in manifest(root, "sentibench-lite-v1")["tasks"])
    rows = compared(root, f"infodcl-minilm@{plateau_rev}", "infodcl-minilm@infodcl-cpu-r2", lite_tasks)
    sts = next(r for r in rows if r.task == "sts-stsb")
    others = [r for r in rows if r.task != "sts-stsb"]
    significant = [r for r in others if r.p_adjusted is not None and r.p_adjusted < 0.05]
    largest = max(others, key=lambda r: abs(r.difference))
    out["plateau-sts"] = (
        f"gives sts-stsb {x100(sts.score_a)} against {x100(sts.score_b)} (difference {100 * sts.difference:.2f}, "
        f"95% CI [{x100(sts.low)}, {x100(sts.high)}],\np (BH) {p_text(sts.p_adjusted)} over the {len(rows)} lite "
        f"rows); " + ("no other lite task differs significantly" if not significant else
                      "other lite tasks beyond p (BH) 0.05: " + ", ".join(
                          f"{r.task} {signed(r.difference)}" for r in significant))
        + f" (largest: {largest.task} {signed(largest.difference)},\n[{x100(largest.low)}, {x100(largest.high)}])")
    seeds = [main_score(result(root, card, "sts-stsb", plateau_rev)) for card in
             ("infodcl-minilm", "infodcl-minilm-seed1", "infodcl-minilm-seed2")]
    r2_sts = main_score(result(root, "infodcl-minilm", "sts-stsb", "infodcl-cpu-r2"))
    loss = sorted(100 * (r2_sts - v) for v in seeds)
    out["plateau-seeds-sts"] = (f"STS-B test is {x100(seeds[1])} and {x100(seeds[2])} ({x100(seeds[0])} for\nseed 0), "
                                f"so the three seeds lose {loss[0]:.0f}-{loss[-1]:.0f} points of STS-B against r2's "
                                f"{x100(r2_sts)}")
    # Table 18's rows
    columns = (*INFODCL_BASE_TASKS, "fewshot-infodcl-n20-vader-tweets", "fewshot-frozen-infodcl-n20-vader-tweets")
    models = (("all-minilm-l6-v2", "all-minilm-l6-v2", None), ("infodcl-minilm (full)", *r2),
              ("infodcl-minilm-no-ccl (A)", "infodcl-minilm-no-ccl", None),
              ("infodcl-minilm-no-lcl (B)", "infodcl-minilm-no-lcl", None),
              ("infodcl-minilm-no-lcl-ccl (C)", "infodcl-minilm-no-lcl-ccl", None),
              ("infodcl-minilm-no-slp (D)", "infodcl-minilm-no-slp", None),
              ("infodcl-minilm-no-mlm (E)", "infodcl-minilm-no-mlm", None),
              ("infodcl-minilm-dcl (F)", "infodcl-minilm-dcl", None),
              ("infodcl-minilm-no-repair (G)", "infodcl-minilm-no-repair", None))
    rows = []
    for label, card, revision in models:
        rows.append([label, *(cell(result(root, card, t, revision), ci=False) for t in columns),
                     *(geometry(result(root, card, t, revision), star=False)
                       for t in ("align-tweets-3class", "align-vader-tweets"))])
    headers = ["model", "sgts-mr", "sgts-amazon", "sgts-tweets", "sgts-nyt", "sgts-imdb", "probe-mr", "probe-amazon",
               "probe-tweets", "probe-tweets-3class*", "probe-imdb", "few-shot N=20 (F1, fine-tuned, v2)",
               "few-shot N=20 (F1, frozen twin)", "align-tweets-3class*", "align-vader-tweets"]
    out["ablations-table"] = table(headers, rows)
    a, f = training(root, "infodcl-minilm-no-ccl"), training(root, "infodcl-minilm-dcl")
    out["ablations-a-f-training"] = (
        f"`infodcl-minilm-no-ccl` (A): {a['steps']} steps in {seconds(a['seconds'])} of training loop, held-out loss "
        f"{-history(a)[min(history(a))]:.3f} -> {-kept(a):.3f}. `infodcl-minilm-dcl` (F): {f['steps']} steps in "
        f"{seconds(f['seconds'])}, held-out loss\n{-history(f)[min(history(f))]:.3f} -> {-kept(f):.3f}")
    rest = {row: training(root, f"infodcl-minilm-{name}") for row, name in
            (("B", "no-lcl"), ("C", "no-lcl-ccl"), ("D", "no-slp"), ("G", "no-repair"))}
    e = training(root, "infodcl-minilm-no-mlm")
    steps = sorted({log["steps"] for log in (*rest.values(), e)})
    loop = [log["seconds"] for log in rest.values()]
    out["ablations-bcdeg-training"] = (
        f"Training on one core beside another job (the committed logs' training loop): {'/'.join(map(str, steps))} "
        f"steps each, {round(min(loop)):,}-{seconds(max(loop))}; without MLM (E) {seconds(e['seconds'])} (best\n"
        f"  held-out loss at step {e['best_step']}).")
    # rows A and F against the full objective (r2), then B to G, on the ablation table's tasks
    same = ["sgts", "probe", "align-tweets-3class", "align-vader-tweets", "fewshot-infodcl-n20-vader-tweets"]
    for name in ("no-ccl", "dcl"):
        found = compared(root, f"infodcl-minilm-{name}", "infodcl-minilm@infodcl-cpu-r2", same)
        significant = [r for r in found if r.p_adjusted < 0.05]
        others = [r for r in found if r not in significant and not r.task.startswith("fewshot-")]
        largest = max(others, key=lambda r: abs(r.difference))
        few = next(r for r in found if r.task.startswith("fewshot-"))
        out[f"ablation-{name}-compare"] = (
            f"beyond p (BH) 0.05 (of {len(found)} rows): " + "; ".join(
                f"{r.task} {signed(r.difference)} [{x100(r.low)}, {x100(r.high)}] (p (BH) {p_text(r.p_adjusted)})"
                for r in significant)
            + f"; the largest other change: {largest.task} {signed(largest.difference)} [{x100(largest.low)}, "
            f"{x100(largest.high)}]; fine-tuned few-shot (version 2) {signed(few.difference)} [{x100(few.low)}, "
            f"{x100(few.high)}]")
    rows = []
    for row, name, label in (("B", "no-lcl", "without LCL-LiT"), ("C", "no-lcl-ccl", "without LCL and CCL (SCL)"),
                             ("D", "no-slp", "without SLP"), ("E", "no-mlm", "without MLM"),
                             ("G", "no-repair", "without re-pairing")):
        found = compared(root, f"infodcl-minilm-{name}", "infodcl-minilm@infodcl-cpu-r2", same)
        significant = [r for r in found if r.p_adjusted is not None and r.p_adjusted < 0.05]
        rows.append([f"{row}, {label}", "; ".join(f"{r.task} {signed(r.difference)} [{x100(r.low)}, {x100(r.high)}]"
                                                  for r in significant) or "nothing",
                     str(len(found))])
    out["ablations-bcdeg-compare"] = table(["row", "beyond its interval (x100, p (BH) < 0.05; align: tolerance)",
                                            "rows compared"], rows)
    # version 2 of the fine-tuned few-shot tasks (the sequence-classification head), with the frozen twin
    def t_cell(r: dict) -> str:
        low, high = interval(r)
        return f"{x100(main_score(r))} [{x100(low, 1)}, {x100(high, 1)}]"

    rows = []
    for label, card, revision in (("all-minilm-l6-v2", "all-minilm-l6-v2", None), ("infodcl-minilm", *r2),
                                  ("infodcl-minilm-no-ccl", "infodcl-minilm-no-ccl", None),
                                  ("infodcl-minilm-dcl", "infodcl-minilm-dcl", None)):
        rows.append([label, *(t_cell(result(root, card, t, revision)) for t in
                              ("fewshot-infodcl-n20-vader-tweets", "fewshot-frozen-infodcl-n20-vader-tweets",
                               "fewshot-infodcl-n100-vader-tweets"))])
    out["fewshot-v2"] = table(["model", "N = 20 fine-tuned (v2)", "N = 20 frozen twin", "N = 100 fine-tuned (v2)"],
                              rows)
    return out


# --- paired comparisons (`bench compare`, on the committed results' unit values or seeds) -----------------------

def compared(root: Path, a: str, b: str, tasks: list[str]) -> list:
    """`bench compare A B -t TASKS` on the committed results (A - B > 0: A better; p (BH) across the rows), without
    the ASO column, which no page quotes."""
    from sentibench.report.compare import compare_results, results_of
    from sentibench.tasks.registry import resolve

    ours, theirs = results_of(root / "results", a), results_of(root / "results", b)
    shared = [t.name for t in resolve(tasks) if t.name in ours and t.name in theirs]
    return compare_results(ours, theirs, shared, aso=False)


def signed(value: float) -> str:
    return f"{100 * value:+.2f}"


def p_text(p: float) -> str:
    return f"{p:#.2g}" if p >= 0.1 else f"{p:.2g}"


def compare_table(rows: list, a: str, b: str) -> str:
    return table(["task", a, b, "A - B", "95% CI", "p", "p (BH)"],
                 [[r.task, x100(r.score_a), x100(r.score_b), signed(r.difference),
                   f"[{x100(r.low)}, {x100(r.high)}]", p_text(r.p_value), p_text(r.p_adjusted)] for r in rows])


def family_summary(rows: list) -> str:
    """A family of paired rows in words: the range of the differences, and the rows beyond p (BH) 0.05 (or, when
    none is, the two extremes); one row: its scores, difference, interval and p (BH)."""
    def scores_of(r) -> str:
        return f"{r.task} {x100(r.score_a)} vs {x100(r.score_b)}"

    def detail(r) -> str:
        return f"{signed(r.difference)} [{x100(r.low)}, {x100(r.high)}], p (BH) {p_text(r.p_adjusted)}"

    if len(rows) == 1:
        (r,) = rows
        return f"{x100(r.score_a)} vs {x100(r.score_b)} ({detail(r)})"
    low, high = min(rows, key=lambda r: r.difference), max(rows, key=lambda r: r.difference)
    text = f"{signed(low.difference)} to {signed(high.difference)} ("
    significant = [r for r in rows if r.p_adjusted < 0.05]
    if significant:
        rest = len(rows) - len(significant)
        return text + "; ".join(f"{scores_of(r)}, {detail(r)}" for r in significant) + (
            f"; the other {rest} not significant)" if rest else ")")
    return text + "; ".join(f"{scores_of(r)}, [{x100(r.low)}, {x100(r.high)}]" for r in (low, high)) + \
        "; none significant after correction)"


# --- docs/sifter.md --------------------------------------------------------------------------------------------

def sifter(root: Path) -> dict[str, str]:
    out = {}
    # SIFTER-SimCSE against SimCSE, plateau-r1, seed by seed
    from scipy.stats import ttest_rel

    pairs = [(f"sifter-simcse-minilm{suffix}", f"simcse-unsup-minilm{suffix}") for suffix in ("", "-seed1", "-seed2")]
    revisions = ("sifter-simcse-plateau-r1", "simcse-unsup-plateau-r1")

    def paired(values: list[tuple[float, float]]) -> str:
        diffs = [a - b for a, b in values]
        test = ttest_rel([a for a, _ in values], [b for _, b in values])
        return (", ".join(f"{d:+.2f}" for d in diffs) + f" (mean {statistics.fmean(diffs):+.2f}; "
                f"t = {test.statistic:.2f}, p = {p_text(test.pvalue)}")

    sentiment = [(lite(root, a, revisions[0])["Sentiment"], lite(root, b, revisions[1])["Sentiment"]) for a, b in pairs]
    trec, stsb = ([(100 * main_score(result(root, a, task, revisions[0])), 100 * main_score(result(root, b, task,
                                                                                                  revisions[1])))
                   for a, b in pairs] for task in ("senteval-trec", "sts-stsb"))
    out["plateau-seed-differences"] = (
        f"lite Sentiment {paired(sentiment).replace('; t =', '; paired t over the 3 seeds, t =', 1)}); "
        f"TREC {paired(trec)}); STS-B test (in-domain,\nselected on its validation split) {paired(stsb)}")
    lite_tasks = sorted(entry[0] for entry in manifest(root, "sentibench-lite-v1")["tasks"])
    parts = []
    for seed, (a, b) in enumerate(pairs):
        found = compared(root, f"{a}@{revisions[0]}", f"{b}@{revisions[1]}", lite_tasks)
        ahead = [r for r in found if r.p_adjusted < 0.05 and r.difference > 0]
        behind = [r for r in found if r.p_adjusted < 0.05 and r.difference < 0]
        text = f"on {len(ahead) or 'none'}{' rows' if ahead else ''} for seed {seed}"
        if ahead:
            text += " (" + ", ".join(f"{r.task} {signed(r.difference)}" for r in ahead) + ")"
        if behind:
            text += ", with " + ", ".join(f"{r.task} against it ({signed(r.difference)}, p (BH) "
                                          f"{p_text(r.p_adjusted)})" for r in behind)
        parts.append(text)
    out["plateau-seed-compare"] = (f"Benjamini-Hochberg over the {len(lite_tasks)} lite rows) finds SIFTER ahead "
                                   f"beyond p (BH) 0.05 " + "; ".join(parts))
    sts = "sts-stsb"
    rows = []
    for label, card, revision, views in (("simcse-unsup-minilm r3 (dropout 0.15)", "simcse-unsup-minilm",
                                          "simcse-unsup-cpu-r3", ""),
                                         ("sifter-simcse-minilm r2 (cpu)", "sifter-simcse-minilm",
                                          "sifter-simcse-cpu-r2", " (batch 16 x 3 views)")):
        r, log = result(root, card, sts, revision), training(root, card, revision)
        h, losses = history(log), log["loss_curve"]
        low, high = interval(r)  # `*`: selected on STS-B's dev split
        rows.append([label, f"{x100(main_score(r))}* [{x100(low)}, {x100(high)}]",
                     f"{x100(main_score(r, 'validation'))}*",
                     f"{log['steps']} steps{views}, {seconds(log['seconds'])} of training loop; dev "
                     + " / ".join(f"{100 * v:.2f}" for v in h.values()) + " at steps "
                     + " / ".join(map(str, h)) + f", best at step {log['best_step']}; loss {losses[0]['loss']:.3f} "
                     f"(steps 1-{losses[0]['step']}) -> {losses[-1]['loss']:.3f} "
                     f"({losses[-2]['step'] + 1}-{losses[-1]['step']})"])
    base = result(root, "all-minilm-l6-v2", sts)
    rows.append(["all-minilm-l6-v2 (mean pooling, for scale)", x100(main_score(base)),
                 x100(main_score(base, "validation")), "-"])
    out["cpu-preset-stsb"] = table(["model", "STS-B test", "STS-B dev (selection)", "training"], rows)
    tasks = ["sts-stsb", "sgts-imdb", "sgts-mr", "sgts-vader-amazon", "sgts-vader-nyt", "sgts-vader-tweets"]
    out["cpu-preset-compare"] = compare_table(
        compared(root, "sifter-simcse-minilm@sifter-simcse-cpu-r2", "simcse-unsup-minilm@simcse-unsup-cpu-r3", tasks),
        "SIFTER", "SimCSE")
    # the LSTMs as frozen encoders
    columns = ("sgts-imdb", "sgts-mr", "sgts-vader-amazon", "sgts-vader-nyt", "sgts-vader-tweets", "probe-imdb",
               "probe-mr", "probe-tweets-3class", "probe-vader-amazon", "probe-vader-nyt", "probe-vader-tweets")
    rows = []
    for label, card in (("sifter-lstm-mr", "sifter-lstm-mr"), ("lstm-mr (control)", "lstm-mr")):
        rows.append([label, *(cell(result(root, card, t, "sifter-lstm-cpu-r1" if card == "sifter-lstm-mr" else None),
                                   ci=t == "sgts-mr", star=True, decimals=2) for t in columns)])
    rows.append(["all-minilm-l6-v2", *(cell(result(root, "all-minilm-l6-v2", t)) if t == "sgts-mr" else "-"
                                       for t in columns)])
    for row in rows:  # intervals at one decimal, as the result files' spread warrants
        row[2] = _one_decimal_interval(row[2])
    out["lstm-frozen"] = table(["model", *columns], rows)
    found = compared(root, "sifter-lstm-mr@sifter-lstm-cpu-r1", "lstm-mr", ["sgts", "probe"])
    significant = [r for r in found if r.p_adjusted < 0.05]
    mr = next(r for r in found if r.task == "sgts-mr")
    probes = [r for r in found if r.task.startswith("probe-")]
    widest = max(probes, key=lambda r: abs(r.difference))

    def row_text(r) -> str:
        return f"{r.task} {signed(r.difference)} [{x100(r.low)}, {x100(r.high)}] (p (BH) {p_text(r.p_adjusted)})"

    out["lstm-compare"] = (f"Benjamini-Hochberg over the {len(found)} rows), {len(significant)} beyond p (BH) 0.05: "
                           + ("; ".join(row_text(r) for r in significant) or "none")
                           + f". sgts-mr is {signed(mr.difference)} [{x100(mr.low)}, {x100(mr.high)}]; the probes "
                           f"differ by at most {100 * abs(widest.difference):.2f} points ({row_text(widest)})")
    log = training(root, "sifter-lstm-mr", "sifter-lstm-cpu-r1")
    h = history(log)
    first = min(h)
    out["lstm-training"] = (f"{log['steps']} steps (3 epochs of MR train at batch 32), **{seconds(log['seconds'])} of "
                            f"training loop** on one core beside another\njob; MR validation accuracy rose from "
                            f"{100 * h[first]:.1f}% (step {first}) to its best, **{100 * kept(log):.1f}% at step "
                            f"{log['best_step']}**")
    # SIFTER-LSTM against LSTM as classifiers: docs/sifter-lstm-mr-seeds.json
    seeds = json.loads((root / "docs" / "sifter-lstm-mr-seeds.json").read_text(encoding="utf-8"))
    runs = {(run["gate"], run["seed"]): run for run in seeds["runs"]}
    order = sorted({seed for _, seed in runs})
    acc = {gate: [100 * runs[gate, seed]["test_accuracy"] for seed in order] for gate in ("standard", "sifter")}
    paper = {"standard": "84.97 ± 0.38", "sifter": "85.37 ± 0.31"}  # Table 3 of the paper, SST-2
    rows = [[label, *(f"{a:.2f}" for a in acc[gate]),
             f"{statistics.fmean(acc[gate]):.2f} ± {statistics.stdev(acc[gate]):.2f}", paper[gate]]
            for gate, label in (("standard", "LSTM (gate=standard)"), ("sifter", "SIFTER-LSTM"))]
    out["lstm-classifier"] = table(["model", f"seed {order[0]}", *map(str, order[1:]), "mean ± std", "paper (SST-2)"],
                                   rows)
    test = ttest_rel(acc["sifter"], acc["standard"])
    out["lstm-classifier-gain"] = f"{statistics.fmean(acc['sifter']) - statistics.fmean(acc['standard']):+.2f}"
    out["lstm-classifier-test"] = f"t = {test.statistic:.2f}, p = {test.pvalue:.2f}"
    times = [run["seconds"] for run in seeds["runs"]]
    out["lstm-classifier-seconds"] = f"{min(times):.0f}-{max(times):.0f} s"
    return out


# --- docs/polarity.md -----------------------------------------------------------------------------------------

POLARITY_SUITE = ("retrieval-mr", "retrieval-vader-amazon", "retrieval-vader-tweets", "retrieval-vader-nyt",
                  "retrieval-isarcasm", "sgts-mr", "sgts-imdb", "sgts-vader-amazon", "sgts-vader-nyt",
                  "sgts-vader-tweets", "probe-mr", "probe-imdb", "probe-tweets-3class", "probe-vader-amazon",
                  "probe-vader-nyt", "probe-vader-tweets", "sts-stsb", "senteval-mr", "senteval-trec",
                  "senteval-vader-amazon")


def polarity(root: Path) -> dict[str, str]:
    out = {}
    r2 = "polarity-st-minilm@polarity-st-cpu-r2"
    triplet = {r.task: r for r in compared(root, r2, "all-minilm-l6-v2", list(POLARITY_SUITE))}
    setfit = {r.task: r for r in compared(root, "setfit-minilm", "all-minilm-l6-v2", list(POLARITY_SUITE))}
    rows = []
    for task in POLARITY_SUITE:
        a, b = triplet[task], setfit[task]
        star = "*" if in_domain(result(root, "polarity-st-minilm", task, "polarity-st-cpu-r2")) else ""
        label = f"{task}{' (P)' if task.startswith('retrieval') else ''}{star}"
        rows.append([label, x100(a.score_b), x100(a.score_a), f"{signed(a.difference)} [{x100(a.low)}, {x100(a.high)}]",
                     x100(b.score_a), f"{signed(b.difference)} [{x100(b.low)}, {x100(b.high)}]"])
    out["suite-against-base"] = table(["task", "base", "polarity-st-minilm (r2)", "diff [95% CI]", "setfit-minilm",
                                       "diff [95% CI]"], rows)
    out["r2-against-base"] = ", ".join(f"{task}{' P' if task.startswith('retrieval') else ''} "
                                       f"{x100(triplet[task].score_b)} -> {x100(triplet[task].score_a)}"
                                       for task in ("retrieval-mr", "sgts-mr"))
    log = training(root, "polarity-st-minilm", "polarity-st-cpu-r2")
    first, last = log["history"][0], log["history"][-1]
    out["r2-training"] = f"{seconds(log['seconds'])} of training loop"
    out["r2-p"] = f"{100 * first['polarity_score']:.1f} -> {100 * last['polarity_score']:.1f} at step {last['step']}"
    out["r2-s"] = f"{100 * first['semantic_similarity_score']:.1f} -> {100 * last['semantic_similarity_score']:.1f}"
    return out


# --- docs/fewshot.md ------------------------------------------------------------------------------------------

FINE_TUNED = ("fewshot-infodcl-n20-vader-tweets", *(f"fewshot-senticse-k{k}-{d}" for k in (1, 5)
                                                     for d in ("mr", "vader-amazon", "vader-tweets")))


def frozen_twins(root: Path, model: str, revision: str | None) -> list[dict]:
    """`bench compare MODEL --frozen-twins` on the default group's fine-tuned tasks, without ASO: each task
    against its frozen twin (`fewshot-frozen-...`, the same draws and seeds), paired by seed and training draw;
    the mean difference with its t-interval over seeds, the paired t-test's p, adjusted across the model's
    tasks (Benjamini-Hochberg)."""
    import numpy as np
    from scipy.stats import false_discovery_control, ttest_rel

    from sentibench.evaluation.bootstrap import t_interval

    rows = []
    for name in sorted(FINE_TUNED):
        if not (folder(root, model, revision) / f"{name}.json").is_file():
            continue
        tuned = result(root, model, name, revision)
        frozen = result(root, model, name.replace("fewshot-", "fewshot-frozen-", 1), revision)
        metric = tuned["sentibench"]["task"]["main_score"]
        seeds = [{(r["seed"], r["train_indices_sha256"]): r[metric] for r in x["sentibench"]["details"]["per_seed"]}
                 for x in (tuned, frozen)]
        keys = sorted(seeds[0])
        if keys != sorted(seeds[1]):
            raise SystemExit(f"error: {model} {name}: its frozen twin has other seeds or draws")
        a, b = np.array([seeds[0][k] for k in keys]), np.array([seeds[1][k] for k in keys])
        ci = t_interval(a - b)
        rows.append({"task": name, "a": main_score(tuned), "b": main_score(frozen), "difference": float((a - b).mean()),
                     "low": ci["low"], "high": ci["high"], "p": float(ttest_rel(a, b).pvalue)})
    for row, p in zip(rows, false_discovery_control([r["p"] for r in rows])):
        row["p_adjusted"] = float(p)
    return rows


def fewshot(root: Path) -> dict[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fewshot_heads  # a sibling script: version 3 against version 2 and the frozen twin

    out = {"v3-heads": fewshot_heads.table(fewshot_heads.compare(root / "results")) + "\n"}
    cost = []
    for model, label in (("all-minilm-l6-v2", "all-MiniLM-L6-v2"), ("paraphrase-minilm-l3-v2",
                                                                    "paraphrase-MiniLM-L3-v2")):
        times = [result(root, model, f"fewshot-senticse-v3-k1-{d}")["evaluation_time"] for d in ("mr", "vader-tweets")]
        cost.append(f"{times[0]:.0f} s and {times[1]:.0f} s ({label}{', MR and tweets' if not cost else ''})")
    out["v3-cost"] = ", ".join(cost)
    rows = []
    for model, revision in (("all-minilm-l6-v2", None), ("paraphrase-minilm-l3-v2", None),
                            ("senticse-minilm", "senticse-cpu-r2"), ("infodcl-minilm", "infodcl-cpu-r2")):
        for r in frozen_twins(root, model, revision):
            rows.append([model, r["task"].removeprefix("fewshot-"), x100(r["a"]), x100(r["b"]),
                         f"{signed(r['difference'])} [{x100(r['low'])}, {x100(r['high'])}]", f"{r['p_adjusted']:.2g}"])
    traces = []
    for model, revision in (("all-minilm-l6-v2", None), ("paraphrase-minilm-l3-v2", None),
                            ("senticse-minilm", "senticse-cpu-r2"), ("infodcl-minilm", "infodcl-cpu-r2")):
        for name in sorted((*FINE_TUNED, "fewshot-infodcl-n100-vader-tweets")):
            if not (folder(root, model, revision) / f"{name}.json").is_file():
                continue
            runs = result(root, model, name, revision)["sentibench"]["details"]["per_seed"]
            first = [100 * run["validation_history"][0][1] for run in runs]
            best = [100 * run["validation_score"] for run in runs]
            kept_first = sum(run["best_step"] == run["validation_history"][0][0] for run in runs)
            traces.append([model, name.removeprefix("fewshot-"), f"{kept_first}/{len(runs)}",
                           f"{statistics.fmean(first):.1f}", f"{statistics.fmean(best):.1f}",
                           f"{statistics.fmean(best) - statistics.fmean(first):+.1f}"])
    out["v2-traces"] = "\n".join("  " + line for line in table(
        ["model", "task", "seeds whose chosen state is the first validated one", "first validation",
         "best validation", "gain"], traces).splitlines()) + "\n  "  # inside a list item
    out["v2-against-frozen"] = table(["model", "task", "fine-tuned (v2)", "frozen", "fine-tuned - frozen [95% CI]",
                                      "p (BH)"], rows)
    return out


# --- docs/static-vectors.md, docs/multilingual-e5.md, docs/submitting.md ---------------------------------------

def manifest(root: Path, name: str) -> dict:
    return _read(root / "tasks" / "manifests" / f"{name}.json")


def static_vectors(root: Path) -> dict[str, str]:
    models = ("glove-6b-50d-mean", "spacy-md-vectors-mean", "bow-tfidf-svd", "all-minilm-l6-v2")
    tasks = sorted(entry[0] for entry in manifest(root, "sentibench-lite-v1")["tasks"])
    rows = [[task, *(x100(main_score(result(root, m, task))) for m in models)] for task in tasks]
    lines = table(["task", *(f"`{m}`" for m in models)], rows).splitlines()
    lines[1] = "| --- |" + " ---: |" * len(models)
    out = {"lite-v1-tasks": "\n".join(lines) + "\n"}
    out["sgts-mr"] = ", ".join(f"`{m}` {cell(result(root, m, 'sgts-mr'))}" for m in models[:2])
    return out


def multilingual_e5(root: Path) -> dict[str, str]:
    r = result(root, "multilingual-e5-small-q4", "sts-stsb")
    low, high = interval(r)
    row = f"**{x100(main_score(r))}** [{x100(low)}, {x100(high)}] (validation {x100(main_score(r, 'validation'))})"
    return {"stsb": table(["", "STS-B test, cosine Spearman x 100"],
                          [["multilingual-e5-small-q4 (here, `query: ` prefix)", row]])}


def mteb_page(root: Path) -> dict[str, str]:
    """The numbers a read-back of all-MiniLM-L6-v2's weights gives: its committed results' scores."""
    sts, probe = result(root, "all-minilm-l6-v2", "sts-stsb"), result(root, "all-minilm-l6-v2", "probe-mr")
    both = (main_score(sts, "test") + main_score(sts, "validation")) / 2
    return {"stsb-splits": f"{both:.4f} for all-MiniLM-L6-v2, against our {main_score(sts):.4f}",
            "readback-scores": f"`STSBenchmark` {main_score(sts):.4f} (test split only) and `probe-mr` "
                               f"{main_score(probe):.4f}",
            "readback-mean": f"{(main_score(sts) + main_score(probe)) / 2:.5f}"}


def tasks_page(root: Path) -> dict[str, str]:
    """docs/tasks.md's table of the document, clustering and duplicate tasks on three models."""
    models = ("random", "bow-tfidf-svd", "all-minilm-l6-v2")
    rows = []
    for task, label in (("docsim-lee", "`docsim-lee`"), ("docsim-clough-stevenson", "`docsim-clough-stevenson`"),
                        ("clustering-trec", "`clustering-trec`"), ("clustering-trec-fine", "`clustering-trec-fine`"),
                        ("clustering-tweet-hashtags", "`clustering-tweet-hashtags`"),
                        ("duplicates-stsb", "`duplicates-stsb`")):
        rows.append([label, *(cell(result(root, m, task)) for m in models)])
    pearson = ", ".join(f"{label} {scores(result(root, m, 'docsim-lee'))['cosine_pearson']:.3f}" for m, label in
                        zip(models, ("random", "bag-of-words", "MiniLM")))
    return {"docsim-clustering-duplicates": table(["task", *models], rows), "lee-pearson": pearson}


def submitting(root: Path) -> dict[str, str]:
    return {"required-tasks": f"{len(manifest(root, 'sentibench-v2')['tasks'])} tasks",
            "v1-tasks": f"`sentibench-v1`'s {len(manifest(root, 'sentibench-v1')['tasks'])}"}


def _one_decimal_interval(text: str) -> str:
    if "[" not in text:
        return text
    head, rest = text.split(" [")
    low, high = rest.rstrip("]").split(", ")
    return f"{head} [{float(low):.1f}, {float(high):.1f}]"


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    return {"docs/senticse.md": senticse(root), "docs/infodcl.md": infodcl(root), "docs/sifter.md": sifter(root),
            "docs/polarity.md": polarity(root), "docs/fewshot.md": fewshot(root),
            "docs/static-vectors.md": static_vectors(root), "docs/multilingual-e5.md": multilingual_e5(root),
            "docs/submitting.md": submitting(root), "docs/mteb.md": mteb_page(root),
            "docs/tasks.md": tasks_page(root)}


def main() -> int:
    return generator_main(doc_blocks, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
