"""sentibench tasks as mteb task classes, with data from our packaged datasets (never the Hub).

- SgTS (`sgts-*`) and STS (`sts-*`) become `AbsTaskSTS` subclasses: mteb's own STS evaluator scores them.
  SgTS's rows are every pair of our balanced sentence set (`sentibench.evaluation.sgts.all_pairs`, the same seed and
  per-class cap as `bench run`; hundreds of thousands of rows, which mteb's evaluator encodes row by row),
  gold 1 for same polarity and 0 otherwise (min 0, max 1); STS's rows are our pairs split.
  Both report `cosine_spearman` as main score, so mteb's number is comparable with ours pair for pair.
- Every other task whose protocol works on frozen embeddings (probe, senteval, retrieval, frozen few-shot)
  becomes a `SentibenchProtocolTask`: mteb runs it and records it, and the score is computed by our task's
  own `evaluate` on the mteb model's embeddings. Fine-tuning few-shot tasks (they need torch weights) and
  the geometry tasks (no MTEB task type fits them) stay sentibench-only.

Inside mteb each task scores bench's main split only (`eval_splits[0]`, the split `bench run` reports as
main score): mteb's main score is the mean over a task's eval splits, so STS-B would otherwise average
test and dev. Our other splits stay in `bench run`'s results.

mteb looks tasks up by name in its task registry (`mteb.get_tasks._TASKS_REGISTRY`, filled at import from
`mteb.tasks`, with no public way to add to it): `TaskResult.task`, task types, `get_aggregated_scores()`,
`Benchmark.get_score()` and the summary table behind `get_benchmark_result()` all go through it.
`register_with_mteb()` adds our task classes (seed 0, the committed results' seed) under their own names,
never replacing one of mteb's. A fine-tuning task is registered with its type for reading results only
(mteb cannot fine-tune); the geometry tasks, with no MTEB task type, are not registered (nor exported).
`get_tasks()` and `benchmark.sentibench_benchmark()` call it. The dict is private to mteb, so
tests/test_mteb.py checks aggregation against the pinned mteb.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.embed.mteb_model import require_mteb
from sentibench.tasks.base import EvalContext, Task


def mteb_metadata(task: Task):
    """A `mteb.TaskMetadata` for one of our tasks; the dataset "revision" names our dataset recipe, and the
    only eval split is bench's main split (see the module docstring)."""
    from mteb import TaskMetadata

    from sentibench.data import get_spec

    spec = get_spec(task.metadata.dataset)
    return TaskMetadata(
        name=task.name, description=f"{task.metadata.description} Protocol: {task.metadata.reference} "
                                    f"(sentibench protocol version {task.metadata.version}).",
        dataset={"path": f"sentibench/{spec.name}", "revision": f"{spec.name}-r{spec.recipe}"},
        type=task.metadata.mteb_type, category="t2t", modalities=["text"],
        eval_splits=[task.metadata.eval_splits[0]], eval_langs=["eng-Latn"], main_score=task.metadata.main_score,
        license="not specified", dialect=[], sample_creation="found", bibtex_citation=spec.citation or "",
        is_public=True)


def _pairs_dataset(task: Task, split: str, seed: int):
    """The rows mteb's STS evaluator reads: sentence1, sentence2, score."""
    from datasets import Dataset

    from sentibench.data import get_dataset
    from sentibench.evaluation.sgts import all_pairs

    rows = get_dataset(task.metadata.dataset).split(split)
    if task.metadata.type == "STS":
        return Dataset.from_dict({"sentence1": list(rows["sentence1"]), "sentence2": list(rows["sentence2"]),
                                  "score": [float(s) for s in rows["score"]]})
    texts, labels = list(rows["text"]), list(rows["label"])
    sentences, pairs = all_pairs(labels, seed, max_per_class=getattr(task, "max_per_class", None))
    first, second = sentences[pairs[:, 0]], sentences[pairs[:, 1]]
    return Dataset.from_dict({"sentence1": [texts[i] for i in first], "sentence2": [texts[j] for j in second],
                              "score": [float(labels[i] == labels[j]) for i, j in zip(first, second)]})


def _sts_class(task: Task, seed: int) -> type:
    from datasets import DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        if not self.data_loaded:
            self.dataset = DatasetDict({s: _pairs_dataset(task, s, seed) for s in self.metadata.eval_splits})
            self.data_loaded = True

    scale = (0, 1) if task.metadata.type == "SgTS" else (0, 5)
    return type(_class_name(task), (AbsTaskSTS,), {
        "metadata": mteb_metadata(task), "min_score": scale[0], "max_score": scale[1], "load_data": load_data,
        "sentibench_task": task, "__doc__": f"sentibench's {task.name} scored by mteb's STS evaluator."})


def _protocol_class(task: Task, seed: int) -> type:
    return type(_class_name(task), (_protocol_base(),), {
        "metadata": mteb_metadata(task), "sentibench_task": task, "pair_seed": seed,
        "__doc__": f"sentibench's {task.name}, scored by its own protocol on the mteb model's embeddings."})


@cache
def _protocol_base() -> type:
    from mteb import AbsTask

    class SentibenchProtocolTask(AbsTask):
        """Runs a sentibench task's `evaluate` on an mteb encoder (see the module docstring)."""

        sentibench_task: Task
        pair_seed: int = 0

        def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
            self.dataset = {split: None for split in self.metadata.eval_splits}  # our task reads its own data
            self.data_loaded = True

        def _evaluate_subset(self, model, data_split, *, hf_split: str, hf_subset: str, **kwargs: Any) -> dict:
            from sentibench.embed.mteb_model import MtebModelEncoder

            if self.sentibench_task.metadata.fine_tunes:
                raise BenchError(f"task '{self.metadata.name}' fine-tunes the model, which mteb cannot do; "
                                 "run it with `bench run` (mteb reads its results)")
            encoder = MtebModelEncoder(model, self.metadata)
            evaluation = self.sentibench_task.run(encoder, EvalContext(seed=self.pair_seed,
                                                                            model_name=encoder.name))
            return dict(evaluation.scores[hf_split])

        def _calculate_descriptive_statistics_from_split(self, split: str, **kwargs: Any):
            raise NotImplementedError("descriptive statistics are computed by sentibench, not mteb")

        def _push_dataset_to_hub(self, repo_name: str, **kwargs: Any) -> None:
            raise NotImplementedError("sentibench tasks read packaged data; there is nothing to push")

    return SentibenchProtocolTask


def _class_name(task: Task) -> str:
    return "Sentibench" + "".join(part.capitalize() for part in task.name.replace("_", "-").split("-"))


def mteb_task_class(task: Task, seed: int = 0) -> type | None:
    """The mteb task class for one of our tasks (None when it has no mteb form, see the module docstring)."""
    if task.metadata.mteb_type is None or task.metadata.fine_tunes:
        return None
    if task.metadata.type in ("SgTS", "STS"):
        return _sts_class(task, seed)
    return _protocol_class(task, seed)


def register_with_mteb() -> None:
    """Every sentibench task with an mteb form, in mteb's task registry under its own name (seed 0), so that
    mteb's lookups by task name find it (a task registered again, e.g. over new data, replaces its old class);
    a name mteb already gives to a task of its own is an error."""
    require_mteb()
    from mteb.get_tasks import _TASKS_REGISTRY

    from sentibench.tasks.registry import all_tasks

    for task in all_tasks().values():
        known = _TASKS_REGISTRY.get(task.name)
        if known is not None and not hasattr(known, "sentibench_task"):
            raise BenchError(f"mteb has a task of its own called '{task.name}'; rename the sentibench task")
        if known is not None and known.sentibench_task is task:
            continue
        cls = _typed_class(task)
        if cls is not None:
            _TASKS_REGISTRY[task.name] = cls


def _typed_class(task: Task) -> type | None:
    """The class mteb finds a task's results by: its mteb form; for a fine-tuning task, which mteb cannot
    run, a protocol class that carries its type and refuses to evaluate; None without an MTEB task type."""
    if task.metadata.mteb_type is None:
        return None
    return _protocol_class(task, 0) if task.metadata.fine_tunes else mteb_task_class(task)


def get_tasks(names: list[str] | None = None, seed: int = 0) -> list:
    """mteb task objects for sentibench task or group names (default: every task with an mteb form); `seed`
    draws SgTS pairs and other protocols' samples exactly as `bench run --seed` does."""
    register_with_mteb()
    from sentibench.tasks.registry import all_tasks, resolve

    chosen = resolve(names) if names else list(all_tasks().values())
    out = []
    for task in chosen:
        cls = mteb_task_class(task, seed)
        if cls is None:
            if names:
                raise BenchError(f"task '{task.name}' has no mteb form ({task.metadata.type}"
                                 f"{', fine-tunes the model' if task.metadata.fine_tunes else ''})")
            continue
        out.append(cls())
    return out
