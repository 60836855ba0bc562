"""Benchmarks: named, versioned, frozen task lists with their own aggregation (in the spirit of mteb's
`Benchmark`, e.g. `MTEB(eng, v2)`).

A benchmark pins each of its tasks by name, protocol version, dataset and the dataset's content sha256
(its *manifest*), and says how its scores aggregate: two headline **axes**, each a mean of the listed
tasks' main scores (Sentiment: does the space separate polarity; Meaning: does it keep semantics), and
**diagnostics**, tasks shown beside the axes and never ranked (the geometry of `align-*`: a collapsed
space has tolerance 1, so "higher is better" does not hold there). In-domain results (a model trained or
selected on the task's dataset) are left out of the axis means unless the reader asks for them.

Released benchmarks are never edited: a cheaper or better protocol is a new benchmark (a new name or
version), validated against the old one. `manifest_sha256` is what a citation names; a test holds the
released manifests' hashes, so an edit fails CI. Membership lives here and nowhere else: installing a
plug-in that adds tasks changes no benchmark. Benchmarks register in `BENCHMARKS`, found through the
`sentibench.benchmarks` entry points: a plug-in may add one; a name that is taken is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from sentibench.core.errors import BenchError
from sentibench.core.registry import Registry, load_plugins
from sentibench.tasks.base import TASK_NAME, Task


@dataclass(frozen=True)
class BenchmarkTask:
    """One task as a benchmark pins it: results under another version or dataset do not count for it."""

    name: str
    version: int
    dataset: str
    dataset_sha256: str


@dataclass(frozen=True)
class Axis:
    """A headline score: the mean of `tasks`' main scores (x 100 on the board), higher is better."""

    name: str
    description: str
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Benchmark:
    name: str                        # e.g. "sentibench-v1": lower case, digits, '-', '.'
    description: str
    released: str                    # ISO date; a released benchmark is never edited
    tasks: tuple[BenchmarkTask, ...]
    axes: tuple[Axis, ...]           # headline scores, first one sorts the board
    diagnostics: tuple[str, ...]     # tasks shown beside the axes, not ranked
    citation: str
    derived_from: str | None = None  # the benchmark this one was chosen from and validated against

    def __post_init__(self) -> None:
        names = [task.name for task in self.tasks]
        problems = []
        if not TASK_NAME.fullmatch(self.name):
            problems.append("name must be lower-case letters, digits, '-' and '.'")
        if len(set(names)) != len(names):
            problems.append("a task is listed twice")
        for axis in self.axes:
            if not axis.tasks or not set(axis.tasks) <= set(names):
                problems.append(f"axis '{axis.name}' must list some of the benchmark's tasks")
        if not set(self.diagnostics) <= set(names):
            problems.append("diagnostics must be tasks of the benchmark")
        if not self.axes:
            problems.append("a benchmark needs at least one axis")
        if problems:
            raise BenchError(f"benchmark '{self.name}': {'; '.join(problems)}")

    @property
    def task_names(self) -> list[str]:
        return [task.name for task in self.tasks]

    def manifest(self) -> dict:
        """Everything that defines the benchmark, as JSON-ready data (what `manifest_sha256` hashes)."""
        return {"name": self.name, "released": self.released, "derived_from": self.derived_from,
                "tasks": [[t.name, t.version, t.dataset, t.dataset_sha256] for t in self.tasks],
                "axes": {axis.name: list(axis.tasks) for axis in self.axes},
                "diagnostics": list(self.diagnostics), "in_domain": "left out of axis means by default"}

    @property
    def manifest_sha256(self) -> str:
        text = json.dumps(self.manifest(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def pinned(self, name: str) -> BenchmarkTask | None:
        return next((task for task in self.tasks if task.name == name), None)


BENCHMARKS: Registry[Benchmark] = Registry("benchmark", lambda: load_plugins("sentibench.benchmarks"))
"""Every benchmark by name: sentibench's own (below) and plug-ins' (entry-point group `sentibench.benchmarks`)."""

CURRENT = "sentibench-v1"
"""The benchmark the board, `bench run -t required` and `bench submit` use when none is named."""


def register_benchmark(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark; a name already taken is refused (a released benchmark is never replaced)."""
    if benchmark.name in BENCHMARKS._entries and BENCHMARKS._entries[benchmark.name] != benchmark:
        raise BenchError(f"benchmark '{benchmark.name}' already exists and is never changed; release yours "
                         "under a new name or version")
    return BENCHMARKS.register(benchmark.name, benchmark, replace=True)


def get_benchmark(name: str | None = None) -> Benchmark:
    return BENCHMARKS.get(name or CURRENT)


def benchmark_tasks(benchmark: Benchmark) -> list[Task]:
    """The installed tasks a benchmark lists, in its order; an error when the installed code no longer builds
    one of them under the pinned version and dataset (the benchmark cannot be run as released)."""
    from sentibench.tasks.registry import all_tasks

    installed = all_tasks()
    problems = []
    for pinned in benchmark.tasks:
        task = installed.get(pinned.name)
        if task is None:
            problems.append(f"{pinned.name} is not installed")
        elif (task.metadata.version, task.metadata.dataset) != (pinned.version, pinned.dataset):
            problems.append(f"{pinned.name} is installed as version {task.metadata.version} on "
                            f"'{task.metadata.dataset}', the benchmark pins version {pinned.version} on "
                            f"'{pinned.dataset}'")
    if problems:
        raise BenchError(f"benchmark '{benchmark.name}' cannot run as released: {'; '.join(problems)}")
    return [installed[name] for name in benchmark.task_names]


def required_tasks(benchmark: str | None = None) -> list[Task]:
    """The tasks a run or a submission answers for `benchmark` (default: the current release), never whatever
    the installed families happen to build: fine-tuning tasks and the tasks plug-ins add are in no benchmark,
    and run only when named."""
    return benchmark_tasks(get_benchmark(benchmark))


def expand_required(names: list[str], benchmark: str | None = None) -> list[str]:
    """Task and group names with `required` replaced by the benchmark's task names (`required` in a task list
    stands for the current release's tasks)."""
    out: list[str] = []
    for name in names:
        out += [task.name for task in required_tasks(benchmark)] if name == "required" else [name]
    return out


# ---- sentibench's own benchmarks -------------------------------------------------------------------------

_DATASETS = {  # content sha256 of each dataset as prepared by recipe 1 from its pinned registry package
    "imdb": "9e2481ce49a380dcfa962cfb5a3fa0f8605597f56a6b80a4c3964fe6ed128fd2",
    "isarcasm": "b5fc35bcc654bed0ad0c75cb19d46f09f29f692d322c847b66185fd7f9f03117",
    "mr": "41e1eb5c76ff623e091a19d2dd302f89a7c3c9fa2fa7e9d5350bc85708feb115",
    "stsb": "1929b783b53d8588913442173192a96c5376dded3f6b6c7a85ab872bd8502a66",
    "trec": "a07a13fc90b779bf6264fdb2ce7f06161ccc1b379380d04207fbb9db4e337f4d",
    "tweets-3class": "8057e9beed5bdd5db83751d54a2a755a8dceae0c1aeb5afe38d639d74e593e37",
    "vader-amazon": "776d29303d0ccc016dd3114ea159c0d025225e0160af3e9674d5f0c051209443",
    "vader-nyt": "dd6752c0ea1f6cae8b450a51273fcded5bc21e9d86ab3872b20857aa88c57ab8",
    "vader-tweets": "3fecb6a8c316d552a1c54dbc834cce7f9f7b01b655ac264a592488447ea9511a",
}

_V1_TASKS = {  # task -> (protocol version, dataset): the required suite as of commit c836c09
    "align-imdb": (1, "imdb"), "align-mr": (1, "mr"), "align-tweets-3class": (1, "tweets-3class"),
    "align-vader-amazon": (1, "vader-amazon"), "align-vader-nyt": (1, "vader-nyt"),
    "align-vader-tweets": (1, "vader-tweets"),
    "fewshot-frozen-infodcl-n20-vader-tweets": (3, "vader-tweets"),
    "fewshot-frozen-senticse-k1-imdb": (3, "imdb"), "fewshot-frozen-senticse-k1-mr": (3, "mr"),
    "fewshot-frozen-senticse-k1-vader-amazon": (3, "vader-amazon"),
    "fewshot-frozen-senticse-k1-vader-tweets": (3, "vader-tweets"),
    "fewshot-frozen-senticse-k5-imdb": (3, "imdb"), "fewshot-frozen-senticse-k5-mr": (3, "mr"),
    "fewshot-frozen-senticse-k5-vader-amazon": (3, "vader-amazon"),
    "fewshot-frozen-senticse-k5-vader-tweets": (3, "vader-tweets"),
    "probe-imdb": (3, "imdb"), "probe-mr": (3, "mr"), "probe-tweets-3class": (3, "tweets-3class"),
    "probe-vader-amazon": (3, "vader-amazon"), "probe-vader-nyt": (3, "vader-nyt"),
    "probe-vader-tweets": (3, "vader-tweets"),
    "retrieval-isarcasm": (1, "isarcasm"), "retrieval-mr": (1, "mr"), "retrieval-vader-amazon": (1, "vader-amazon"),
    "retrieval-vader-nyt": (1, "vader-nyt"), "retrieval-vader-tweets": (1, "vader-tweets"),
    "senteval-mr": (3, "mr"), "senteval-trec": (3, "trec"), "senteval-vader-amazon": (3, "vader-amazon"),
    "sgts-imdb": (2, "imdb"), "sgts-mr": (2, "mr"), "sgts-vader-amazon": (2, "vader-amazon"),
    "sgts-vader-nyt": (2, "vader-nyt"), "sgts-vader-tweets": (2, "vader-tweets"),
    "sts-stsb": (1, "stsb"),
}

MEANING_DOC = ("how well the space keeps semantics: STS-B (Spearman rho between cosine and graded human "
               "similarity) and TREC question types (accuracy of a classifier on the frozen vectors; topic, not "
               "sentiment)")
SENTIMENT_DOC = ("how well the space separates polarity: SgTS (Spearman rho), frozen k-shot classifiers "
                 "(accuracy; macro-F1 for the InfoDCL n=20 task), linear probes and SentEval MR / Amazon "
                 "(accuracy), polarity retrieval (the retrieval paper's Polarity Score P@16)")


def _pinned(names: list[str]) -> tuple[BenchmarkTask, ...]:
    return tuple(BenchmarkTask(name, _V1_TASKS[name][0], _V1_TASKS[name][1], _DATASETS[_V1_TASKS[name][1]])
                 for name in names)


def _axes(names: list[str]) -> tuple[Axis, ...]:
    meaning = [n for n in names if n in ("sts-stsb", "senteval-trec")]
    sentiment = [n for n in names if n not in meaning and not n.startswith("align-")]
    return (Axis("Sentiment", SENTIMENT_DOC, tuple(sentiment)), Axis("Meaning", MEANING_DOC, tuple(meaning)))


def _release(name: str, description: str, names: list[str], derived_from: str | None = None) -> Benchmark:
    names = sorted(names)
    return Benchmark(
        name=name, description=description, released="2026-11-27", tasks=_pinned(names), axes=_axes(names),
        diagnostics=tuple(n for n in names if n.startswith("align-")), derived_from=derived_from,
        citation=f"sentibench contributors (2026). {name}: a benchmark of sentiment-aware sentence embeddings. "
                 "https://github.com/sentibench/sentibench (docs/benchmarks.md)")


SENTIBENCH_V1 = _release(
    "sentibench-v1",
    "The full frozen-encoder suite: SgTS, polarity retrieval, linear probes, SentEval, frozen k-shot, STS-B, "
    "and the geometry diagnostics, on every sentiment dataset that ships in a pinned registry package (35 tasks).",
    list(_V1_TASKS))

LITE_V1_TASKS = [
    "fewshot-frozen-infodcl-n20-vader-tweets", "fewshot-frozen-senticse-k1-vader-amazon",
    "fewshot-frozen-senticse-k1-vader-tweets", "fewshot-frozen-senticse-k5-vader-amazon",
    "fewshot-frozen-senticse-k5-vader-tweets", "retrieval-isarcasm", "retrieval-vader-amazon",
    "retrieval-vader-tweets", "senteval-trec", "sgts-vader-amazon", "sgts-vader-nyt", "sgts-vader-tweets", "sts-stsb",
]
"""Chosen by benchmarks/choose_lite.py from the committed v1 results (docs/benchmarks.md)."""

SENTIBENCH_LITE_V1 = _release(
    "sentibench-lite-v1",
    "A subset of sentibench-v1's tasks, unchanged (same versions, same results), chosen from v1's committed "
    "results for a cold cost of at most 1/8 of v1's while keeping both axes' model order (docs/benchmarks.md).",
    LITE_V1_TASKS, derived_from="sentibench-v1")

register_benchmark(SENTIBENCH_V1)
register_benchmark(SENTIBENCH_LITE_V1)
