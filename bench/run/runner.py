"""Runs models on tasks: model card -> cached encoder -> task -> result JSON (atomic, resumable)."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sentibench.core.errors import BenchError, UnavailableError
from sentibench.core.executors import Executor, ItemFailed, Job, LocalExecutor
from sentibench.data import DatasetSpec, dataset_names, get_dataset, get_spec, register_dataset
from sentibench.data.texts import every_text
from sentibench.embed.batching import ENCODING_FOR
from sentibench.embed.cache import CachedEncoder
from sentibench.embed.devices import check_dtype, pick_device
from sentibench.embed.run_memory import for_the_run
from sentibench.models import (
    card_for,
    load_encoder,
    load_trainable,
    open_encoder,
    prepare,
    smoke_trained,
)
from sentibench.models.catalog.cards import ModelCard
from sentibench.models.catalog.inprocess import InProcessModel, as_model
from sentibench.models.catalog.kinds import fit_on_train_split, model_kind
from sentibench.models.catalog.trained import training_trace
from sentibench.results.folder import OverwriteStrategy, ResultsFolder
from sentibench.results.provenance import provenance_of
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import task_result
from sentibench.tasks.base import EvalContext, Task

if TYPE_CHECKING:
    from sentibench.evaluation.units import UnitValues

DEFAULT_MODEL = "all-minilm-l6-v2"
DEFAULT_TASKS = ("sgts",)


def default_tasks() -> list[Task]:
    """What `bench run` runs when no task is named: the `DEFAULT_TASKS` groups on every dataset with an offline
    source (SgTS on every packaged sentiment dataset); a Hub-only dataset's tasks run when named (`-t sgts`),
    so a default run never reaches for the network, nor pays for the Hub libraries, for work it cannot do."""
    from sentibench.tasks.registry import resolve

    return [task for task in resolve(list(DEFAULT_TASKS)) if get_spec(task.metadata.dataset).offline]


@dataclass
class RunReport:
    written: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    in_flight: list[Path] = field(default_factory=list)  # left to another run that holds them (`ResultsFolder.take`)
    encoded: int = 0  # texts the models actually encoded (0 on a warm re-run)


def with_reference(context: EvalContext, task: Task, card: ModelCard, others: EncoderPool) -> EvalContext:
    """`context` with the reference model R opened, before evaluation, for a task that uses one (R is the card's
    `reference_model`, a fine-tuned card's base; a card that is its own reference needs none)."""
    if not task.metadata.uses_reference or card.reference_model in (None, card.name):
        return context
    return replace(context, reference=others.get(card.reference_model))


@dataclass
class EncoderPool:
    """Other models a task asks for (e.g. retrieval's reference model), each loaded once per run."""

    loaded: dict[str, CachedEncoder]
    device: str | None
    use_cache: bool

    def get(self, name: str) -> CachedEncoder:
        if name not in self.loaded:
            self.loaded[name] = for_the_run(open_encoder(name, device=self.device, use_cache=self.use_cache))
        return self.loaded[name]


def _normalises(card: ModelCard, encoder: CachedEncoder) -> bool:
    """What the pipeline really does (a sentence-transformers Normalize module counts), not the card's default."""
    effective = getattr(encoder, "normalize", None)
    return bool(card.normalize if effective is None else effective)


def evaluate_one(card: ModelCard, encoder: CachedEncoder, task: Task, context: EvalContext
                 ) -> tuple[TaskResult, UnitValues | None]:
    """The result and the main score's unit values (None when the task gives none)."""
    fit_on_train_split(encoder, task.metadata.dataset)
    dataset = get_dataset(task.metadata.dataset)
    started = time.perf_counter()
    evaluation = task.run(encoder, context)
    elapsed = time.perf_counter() - started
    made = provenance_of(card, task, dataset, context, evaluation.details, _normalises(card, encoder),
                         getattr(encoder, "identity", {}).get("weights"))
    return task_result(task.name, dataset.content_hash, evaluation.scores, elapsed, made), evaluation.units


def _check_arguments(batch_size: int, limit: int | None, device: str | None, smoke_training: int | None = None
                     ) -> None:
    """Every argument checked before any work, so a bad one never reaches the cache or a result (the output
    folder checks itself: `ResultsFolder.check_writable`)."""
    if not isinstance(batch_size, int) or batch_size < 1:
        raise BenchError(f"batch size must be a whole number of at least 1, got {batch_size!r}")
    for what, value in (("limit", limit), ("smoke training steps", smoke_training)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise BenchError(f"{what} must be a whole number of at least 1 (or none), got {value!r}")
    if device:
        pick_device(device)


EncoderFactory = Callable[[ModelCard], CachedEncoder]
"""How `run` turns a ready card into the encoder under test (default: `load_encoder`); benchmarks and
tools pass their own (e.g. to count or time what is encoded) instead of patching the module."""


@dataclass(frozen=True)
class RunItem:
    """One (model, task) evaluation, the item `run` hands to its executor; the driver writes `path`."""

    model: str
    task: Task
    path: Path

    @property
    def label(self) -> str:
        return f"{self.model} / {self.task.name}"


@dataclass(frozen=True)
class ItemOutcome:
    """What a worker sends back for an item: the result to write, or why there is none."""

    result: TaskResult | None = None
    units: UnitValues | None = None  # the main score's unit values, saved beside the result
    problem: str | None = None
    unavailable: bool = False
    encoded: int = 0  # texts this item sent to a model (cache misses)


@dataclass(frozen=True)
class RunSettings:
    seed: int
    limit: int | None
    batch_size: int
    device: str | None
    use_cache: bool
    executor: Executor
    encoder_factory: EncoderFactory | None = None
    intervals: bool = True


def _smoke_budget(card: ModelCard) -> AbstractContextManager:
    """A smoke-trained card's tasks fine-tune under its step budget too (their results are smoke runs)."""
    steps = card.recipe.get("smoke_steps") if card.recipe else None
    if not steps:
        return nullcontext()
    from sentibench.training.loop import step_budget  # torch: only when a smoke-trained card runs

    return step_budget(steps)


def evaluate_items(items: tuple[RunItem, ...], model: str | ModelCard | InProcessModel, card: ModelCard,
                   settings: RunSettings, datasets: dict[str, DatasetSpec]) -> Iterator[ItemOutcome]:
    """A job's work (on a worker, or in this process): one model's encoder opened once, then its items
    in order, each outcome yielded as soon as the item is done. The embedding cache makes each distinct
    text of the job encoded once. An unusable model raises (it stops a local run). `datasets` travel with
    the job so that a plug-in dataset registered in the driver only is known on the worker too."""
    for name, spec in datasets.items():
        if name not in dataset_names():
            register_dataset(spec)
    in_process = isinstance(model, InProcessModel)  # a Python object named by the user
    device, use_cache = settings.device, settings.use_cache
    factory = settings.encoder_factory or (lambda ready_card: load_encoder(ready_card, device=device,
                                                                           use_cache=use_cache))
    encoder = for_the_run(model.open(use_cache) if in_process else factory(card))  # in-process: its own encoder
    others = EncoderPool({card.name: encoder}, device, use_cache)
    trainable = model.trainable if in_process else (lambda card=card: load_trainable(card, device=device))
    context = EvalContext(seed=settings.seed, batch_size=settings.batch_size, limit=settings.limit,
                          model_name=card.name, reference_model=card.reference_model,
                          load_trainable=trainable, executor=settings.executor,
                          intervals=settings.intervals)

    def encoded() -> int:
        return sum(e.encoded for e in others.loaded.values())

    for item in items:
        before = encoded()
        print(f"{item.label}: started", file=sys.stderr, flush=True)
        token = ENCODING_FOR.set(item.task.name)
        try:
            with _smoke_budget(card):
                result, unit_values = evaluate_one(card, encoder, item.task, with_reference(context, item.task,
                                                                                            card, others))
            outcome = ItemOutcome(result=result, units=unit_values)
        except UnavailableError as error:
            outcome = ItemOutcome(problem=str(error), unavailable=True)
        except BenchError as error:
            outcome = ItemOutcome(problem=str(error))
        finally:
            ENCODING_FOR.reset(token)
        yield replace(outcome, encoded=encoded() - before)


def _jobs(items: list[RunItem], model: str | ModelCard | InProcessModel, card: ModelCard,
          settings: RunSettings) -> list[Job]:
    """A model's frozen-embedding items on one dataset form one job (one encoder, each distinct text encoded
    once), and each item that fine-tunes the model is a job of its own (it shares no vectors), so the largest
    job is one dataset's frozen tasks, not all of a model's. A fine-tuning item is a job that orchestrates:
    it fans its seeds out through the run's executor and waits, so a remote executor runs it in the driver (a
    lost node then costs only the seeds that ran there; the finished ones are kept). A model whose vectors
    are batch-invariant (`_batch_invariant`) runs one job per dataset whatever the datasets share: a text's
    vector is the same in any job. Any other encoder's vector may depend on the batch it is encoded in (last
    digits), so items stay in one job, in the order given, where their datasets share texts: the items that
    read a text encode it in the same order as one job would, for results identical to a run of one job per
    model. A fine-tuning job asks for no GPU: it fans its seeds out, and they ask for one (a job holding the
    GPU while it waits for its own seeds would deadlock a one-GPU cluster)."""
    datasets = {item.task.metadata.dataset: get_spec(item.task.metadata.dataset) for item in items}
    work = partial(evaluate_items, model=model, card=card, settings=settings, datasets=datasets)
    frozen = [item for item in items if not item.task.metadata.fine_tunes]
    if _batch_invariant(model, card, settings):
        by_dataset: dict[str, list[RunItem]] = {}
        for item in frozen:
            by_dataset.setdefault(item.task.metadata.dataset, []).append(item)
        groups = [tuple(group) for group in by_dataset.values()]
    else:
        groups = _sharing_texts(frozen)
    return ([Job(group, work) for group in groups]
            + [Job((item,), work, orchestrates=True) for item in items if item.task.metadata.fine_tunes])


def _batch_invariant(model: str | ModelCard | InProcessModel, card: ModelCard, settings: RunSettings) -> bool:
    """Whether every vector of this run is a function of its text alone: a card of a kind that declares it
    (`ModelKind.batch_invariant`: unpadded forward passes, `embed.batching.equal_length_batches`), in float32
    (where it was verified), loaded by the harness itself (not an in-process object, nor a test's factory)."""
    return (settings.encoder_factory is None and not isinstance(model, InProcessModel) and card.dtype == "float32"
            and model_kind(card.loader).batch_invariant)


def _sharing_texts(items: list[RunItem]) -> list[tuple[RunItem, ...]]:
    """`items` grouped by dataset, datasets that share a text in one group; each group in the given order."""
    names = list(dict.fromkeys(item.task.metadata.dataset for item in items))
    joined = {name: name for name in names}  # dataset -> a dataset it shares texts with (a root: itself)

    def root(name: str) -> str:
        while joined[name] != name:
            name = joined[name]
        return name

    first_with: dict[str, str] = {}  # text -> the first dataset that has it
    for name in names:
        for text in _dataset_texts(name):
            other = root(first_with.setdefault(text, name))
            if other != root(name):
                joined[root(name)] = other
    groups: dict[str, list[RunItem]] = {}
    for item in items:
        groups.setdefault(root(item.task.metadata.dataset), []).append(item)
    return [tuple(group) for group in groups.values()]


def _dataset_texts(name: str) -> set[str]:
    """Every text of every split of a dataset (none when it cannot be had here: its job says why)."""
    try:
        dataset = get_dataset(name)
    except BenchError:
        return set()
    return set(every_text(dataset))


def _record(report: RunReport, item: RunItem, outcome: ItemOutcome | ItemFailed, progress: str,
            folder: ResultsFolder) -> None:
    """The driver's side of an item: its result saved into `folder` (the driver is the only writer)."""
    if isinstance(outcome, ItemFailed):
        outcome = ItemOutcome(problem=outcome.message)
    report.encoded += outcome.encoded
    if outcome.result is not None:
        folder.save(item.path, outcome.result, outcome.units)
        report.written.append(item.path)
        print(f"{progress} {item.label}: done -> {item.path}", file=sys.stderr)
    elif outcome.unavailable:
        report.unavailable.append(f"{item.label}: {outcome.problem}")
        print(f"{progress} {item.label}: skipped, {outcome.problem}", file=sys.stderr)
    else:
        report.failed.append(f"{item.label}: {outcome.problem}")
        print(f"{progress} {item.label}: failed, {outcome.problem}", file=sys.stderr)


def _after_references(jobs: list[Job], references: dict[str, str]) -> list[Job]:
    """`jobs` in an order where each frozen job that scores with a reference model R (a fine-tuned card's base,
    retrieval's S) comes after R's frozen jobs on the same dataset, and waits for them (`Job.after`): R's
    vectors of that dataset's texts are then in the cache when it starts, so a run on a cluster whose nodes
    share a home encodes them once, as a local run does (issue 45). Other jobs keep their order."""
    def datasets(job: Job) -> set[str]:  # one, or several that share texts (an encoder not batch-invariant)
        return {item.task.metadata.dataset for item in job.items}

    def uses_reference(job: Job) -> bool:
        return not job.orchestrates and any(item.task.metadata.uses_reference for item in job.items)

    waits = [uses_reference(job) and job.items[0].model in references for job in jobs]
    first = [job for job, wait in zip(jobs, waits) if not wait]
    frozen: dict[tuple[str, str], set[int]] = {}
    for position, job in enumerate(first):
        for dataset in datasets(job) if not job.orchestrates else ():
            frozen.setdefault((job.items[0].model, dataset), set()).add(position)
    def bases_jobs(job: Job) -> tuple[int, ...]:
        base = references[job.items[0].model]
        return tuple(sorted({position for dataset in datasets(job) for position in frozen.get((base, dataset), ())}))

    return first + [replace(job, after=bases_jobs(job)) for job, wait in zip(jobs, waits) if wait]


def _claim(job: Job, folder: ResultsFolder, report: RunReport, limit: int | None, strategy: OverwriteStrategy
           ) -> Job:
    """`job` with only the items this run now holds the lock of: an item another run holds is left to it (in
    flight there, not done), and one finished since this run looked is done."""
    kept = []
    for item in job.items:
        claim = folder.claim(item.path, item.task, limit, strategy)
        if claim == "in flight":
            report.in_flight.append(item.path)
            print(f"{item.label}: in flight in another process, left to it", file=sys.stderr)
        elif claim == "done":
            report.skipped.append(item.path)
        else:
            kept.append(item)
    return replace(job, items=tuple(kept))


def run(models: list[str | ModelCard | InProcessModel | Any], tasks: list[Task], output_folder: Path,
        overwrite: OverwriteStrategy = "only-missing", seed: int = 0, limit: int | None = None,
        batch_size: int = 32, device: str | None = None, use_cache: bool = True,
        encoder_factory: EncoderFactory | None = None, executor: Executor | None = None,
        intervals: bool = True, dtype: str | None = None, smoke_training: int | None = None) -> RunReport:
    """Every (model, task) item not already done, through `executor` (default: in this process, in order).
    A model is a card name, a local folder, a hub id, a `ModelCard`, or an object the user holds (a
    SentenceTransformer, an mteb encoder, an `InProcessModel`, anything with `encode(list[str])`: named by
    `as_model`); `dtype` overrides the cards' inference dtype (float32 by default). `smoke_training` runs
    each trained card's whole pipeline with every training loop (its training, its few-shot fine-tuning)
    capped at that many steps (its own checkpoint and revision; the results are smoke runs, kept off the
    leaderboard like `limit`). An item another run into the same folder is evaluating is left to it
    (`sentibench.results.item_locks`)."""
    _check_arguments(batch_size, limit, device, smoke_training)
    folder = ResultsFolder(output_folder)
    folder.check_writable()
    settings = RunSettings(seed, limit, batch_size, device, use_cache, executor or LocalExecutor(), encoder_factory,
                           intervals)
    report = RunReport()
    references: dict[str, str] = {}  # card name -> its reference model R, where R is another card
    jobs = []
    for model in models:
        if not isinstance(model, (str, Path, ModelCard)):
            model = as_model(model)
        model = str(model) if isinstance(model, Path) else model
        in_process = isinstance(model, InProcessModel)  # a Python object named by the user
        card = model.card if in_process else model if isinstance(model, ModelCard) else card_for(model)
        if dtype is not None and dtype != card.dtype:
            if in_process:
                raise BenchError(f"in-process model '{card.name}' runs as given; set its dtype on the object")
            card = dataclasses.replace(card, dtype=check_dtype(dtype))
        if smoke_training is not None and not in_process:
            card = smoke_trained(card, smoke_training)
        to_run, done = folder.plan(card.name, card.revision, card.dtype, tasks, limit, overwrite)
        report.skipped += done
        pending = [RunItem(card.name, task, path) for task, path in to_run]
        if pending:
            card = prepare(card)  # a trained card gets its checkpoint (trained now on first use)
            trained_here = model_kind(card.loader).from_recipe and card.checkpoint
            trace = training_trace(Path(card.checkpoint)) if trained_here else None
            if trace is not None:
                folder.log_training(card.name, card.revision, card.dtype, trace)
            jobs += _jobs(pending, model, card, settings)
            if card.reference_model not in (None, card.name):
                references[card.name] = card.reference_model
    with folder:
        jobs = _after_references([job for job in (_claim(job, folder, report, limit, overwrite) for job in jobs)
                                  if job.items], references)
        total = sum(len(job.items) for job in jobs)
        for done, (item, outcome) in enumerate(settings.executor.run(jobs), 1):
            _record(report, item, outcome, f"[{done}/{total}]", folder)
    return report
