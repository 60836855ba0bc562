"""The executor seam: a model's frozen tasks run as one job per dataset (datasets that share a text in one),
with results equal to one job per model even where a vector depends on its batch; executors time each item;
a run on a local Ray (2 CPUs, a deterministic fake encoder) writes the same result
files as the local executor and encodes each distinct text once; few-shot seeds fan out with the same
scores; a killed worker's item reruns while finished items are not redone; an item lost too often fails
alone and named; a model that does not load on a worker fails its job once (loaded once, every item
failed with its line); a run resumes after its driver is killed; a missing Ray or an unreachable cluster is one
line. Helpers live at module level: Ray workers import them from `tests/` (see the `ray_cluster` fixture)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.core.executors import Job, LocalExecutor, fan_out
from sentibench.data import DatasetSpec, dataset_names, register_dataset
from sentibench.embed.cache import CachedEncoder
from sentibench.models.catalog.inprocess import InProcessModel
from sentibench.results.task_result import comparable_results, read_result
from sentibench.run.executors import get_executor
from sentibench.run.runner import run
from sentibench.tasks.base import Evaluation, Task, TaskMetadata
from sentibench.tasks.fewshot.protocols import FewShotProtocol
from sentibench.tasks.fewshot.task import FewShotTask
from sentibench.tasks.registry import all_tasks
from sentibench.training.finetune import FineTuneConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # the "before" plan's executor
DATASET = "ray-reviews"
ROWS = [{"text": f"{'good' if i % 2 else 'bad'} {'film' if i % 3 else 'plot'} {i}", "label": i % 2}
        for i in range(48)]
FROZEN_TASKS = ("sgts", "probe", "retrieval", "align")


class WordHashEncoder:
    """Deterministic: ['good' in text, 'bad' in text, a text-hash value in [0, 1)]."""

    name = "word-hash"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        return np.array([["good" in t, "bad" in t, int(hashlib.sha256(t.encode()).hexdigest()[:6], 16) / 16**6]
                         for t in texts], dtype=np.float32)


@dataclass(frozen=True)
class FakeFactory:
    """`run(encoder_factory=...)`: the fake encoder behind the embedding cache, under a cache identity of
    its own (`tag`), so that each run starts cold and its encode count is comparable."""

    tag: str

    def __call__(self, card):
        return CachedEncoder(WordHashEncoder(), {"model": card.name, "fake": self.tag})


@dataclass
class Marked(Task):
    """Wraps a task: appends its name to `log` each time it is evaluated, and on the first evaluation
    (no `marker` yet) kills its own worker process when `kill` is "once", on every one when "always"."""

    inner: Task
    log: Path
    kill: str = "never"

    def __post_init__(self) -> None:
        self.metadata = self.inner.metadata

    def evaluate(self, encoder, context) -> Evaluation:
        marker = self.log.parent / f"{self.name}.killed"
        with self.log.open("a") as handle:
            handle.write(self.name + "\n")
        if self.kill == "always" or (self.kill == "once" and not marker.exists()):
            marker.touch()
            time.sleep(0.5)  # the job's earlier outcomes reach the driver first (one lost in flight is rerun)
            os.kill(os.getpid(), signal.SIGKILL)
        return self.inner.evaluate(encoder, context)


@dataclass
class Sleepy(Task):
    """Scores nothing useful; takes `seconds` (the item a test kills its driver during)."""

    seconds: float

    def __post_init__(self) -> None:
        self.metadata = TaskMetadata(name="sleepy", type="Geometry", dataset=DATASET, eval_splits=("test",),
                                     main_score="slept", description="test", reference="test")

    def evaluate(self, encoder, context) -> Evaluation:
        time.sleep(self.seconds)
        return Evaluation({"test": {"slept": self.seconds}})


def logged_piece(piece: int, log: Path) -> float:
    """One piece of an orchestrating task's work (a stand-in for a few-shot seed): logs its number and the
    process it ran in; piece 1 kills its own worker on its first attempt."""
    with log.open("a") as handle:
        handle.write(f"{piece} {os.getpid()}\n")
    marker = log.parent / f"piece-{piece}.killed"
    if piece == 1 and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return piece / 10


@dataclass
class Orchestrating(Task):
    """A fine-tuning-like task: fans three pieces out through the run's executor and waits for them; records
    the process its own evaluation ran in."""

    log: Path

    def __post_init__(self) -> None:
        self.metadata = TaskMetadata(name="orchestrating", type="FewShot", dataset=DATASET, eval_splits=("test",),
                                     main_score="total", description="test", reference="test", fine_tunes=True)

    def evaluate(self, encoder, context) -> Evaluation:
        (self.log.parent / "orchestrated-in").write_text(str(os.getpid()))
        outcomes = dict(fan_out(context.executor, partial(logged_piece, log=self.log), [0, 1, 2], trains=True))
        return Evaluation({"test": {"total": sum(outcomes.values())}})


def register_reviews() -> None:
    register_dataset(DatasetSpec(name=DATASET, description="test", kind="classification",
                                 label_names=("negative", "positive"), license="test", citation="test",
                                 load_rows=lambda: {"all": ROWS}, split_fractions=(0.5, 0.0, 0.5),
                                 tags=("sentiment", "review")))


def frozen_tasks() -> list[Task]:
    return [all_tasks()[f"{family}-{DATASET}"] for family in FROZEN_TASKS]


@pytest.fixture
def reviews():
    register_reviews()
    return frozen_tasks()


class BatchSensitiveEncoder(WordHashEncoder):
    """As `WordHashEncoder`, plus 0.001 x the number of texts in the call: a text's vector depends on the
    batch it was encoded in, as a transformer's last digits do (padding, summation order)."""

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        return super().encode(texts) + np.float32(0.001 * len(texts))


@dataclass(frozen=True)
class BatchSensitiveFactory(FakeFactory):
    def __call__(self, card):
        return CachedEncoder(BatchSensitiveEncoder(), {"model": card.name, "fake": self.tag})


def register_more_reviews(shared: int) -> str:
    """A second dataset of 40 reviews of its own plus the first `shared` texts of `ray-reviews`; its name."""
    name = f"{DATASET}-more-{shared}"
    rows = [{"text": f"{'good' if i % 2 else 'bad'} {'acting' if i % 3 else 'score'} {i}", "label": i % 2}
            for i in range(40)] + ROWS[:shared]
    if name not in dataset_names():
        register_dataset(DatasetSpec(name=name, description="test", kind="classification",
                                     label_names=("negative", "positive"), license="test", citation="test",
                                     load_rows=lambda: {"all": rows}, split_fractions=(0.5, 0.0, 0.5),
                                     tags=("sentiment", "review")))
    return name


def jobs_of(executor: LocalExecutor) -> list[list[str]]:
    """The task names of each job the executor ran, from its per-item timings."""
    jobs: dict[int, list[str]] = {}
    for timing in executor.timings:
        jobs.setdefault(timing.job, []).append(timing.label.split(" / ")[1])
    return list(jobs.values())


@pytest.mark.parametrize("shared", [0, 6])
def test_frozen_tasks_run_one_job_per_dataset_with_the_results_of_one_job_per_model(reviews, tmp_path, shared):
    """Tasks interleaved across two datasets; vectors depend on their batch. Disjoint datasets run as two jobs,
    datasets that share texts as one; either way the results and the texts encoded equal those of the plan
    before the split (one frozen job per model)."""
    from bench_executor import OneJobPerModel  # noqa: I001 (benchmarks/, put on sys.path above)

    other = register_more_reviews(shared)
    sgts, probe = reviews[0], reviews[1]
    tasks = [sgts, all_tasks()[f"sgts-{other}"], probe, all_tasks()[f"probe-{other}"]]
    split, before = LocalExecutor(), OneJobPerModel(LocalExecutor(), [task.name for task in tasks])
    report = run(["random"], tasks, tmp_path / "split", encoder_factory=BatchSensitiveFactory(f"{tmp_path}-split"),
                 executor=split)
    reference = run(["random"], tasks, tmp_path / "before", encoder_factory=BatchSensitiveFactory(f"{tmp_path}-b"),
                    executor=before)
    names = [task.name for task in tasks]
    assert jobs_of(before) == [names]
    assert jobs_of(split) == ([names[0::2], names[1::2]] if shared == 0 else [names])
    assert len(report.written) == 4 and report.encoded == reference.encoded == 48 + 40
    assert comparable_results(tmp_path / "split") == comparable_results(tmp_path / "before")


def test_batch_sensitive_vectors_would_differ_if_datasets_that_share_texts_were_split(reviews, tmp_path, monkeypatch):
    """The control of the test above: the same run with the sharing datasets forced apart differs."""
    import sentibench.run.runner as runner

    other = register_more_reviews(6)
    tasks = [reviews[0], all_tasks()[f"sgts-{other}"], reviews[1], all_tasks()[f"probe-{other}"]]
    run(["random"], tasks, tmp_path / "one", encoder_factory=BatchSensitiveFactory(f"{tmp_path}-one"))
    monkeypatch.setattr(runner, "_dataset_texts", lambda name: {name})  # as if they shared nothing
    run(["random"], tasks, tmp_path / "apart", encoder_factory=BatchSensitiveFactory(f"{tmp_path}-apart"))
    assert comparable_results(tmp_path / "apart") != comparable_results(tmp_path / "one")


def nap_each(seconds: tuple[float, ...]):
    for pause in seconds:
        time.sleep(pause)
        yield pause


def test_executors_time_each_item_where_its_job_ran():
    executor = LocalExecutor()
    assert list(executor.run([Job((0.05, 0.1), nap_each), Job((0.0,), nap_each)])) == [(0.05, 0.05), (0.1, 0.1),
                                                                                         (0.0, 0.0)]
    assert [(t.label, t.job) for t in executor.timings] == [("0.05", 0), ("0.1", 0), ("0.0", 1)]
    first, second, third = (t.seconds for t in executor.timings)
    assert 0.05 <= first < 0.5 and 0.1 <= second < 0.5 and third < 0.05


def test_local_fan_out_yields_each_item_with_its_outcome_in_order():
    assert list(fan_out(LocalExecutor(), abs, [-2, 3, -5])) == [(-2, 2), (3, 3), (-5, 5)]


def test_ray_writes_the_local_results_and_encodes_each_text_once(ray_cluster, reviews, tmp_path):
    from sentibench.run.ray_executor import RayExecutor

    fine_tuned = all_tasks()[f"fewshot-senticse-k1-{DATASET}"]  # too few examples for its protocol: fails
    tasks = [*reviews, fine_tuned]
    local = run(["random"], tasks, tmp_path / "local", encoder_factory=FakeFactory(f"{tmp_path}-local"))
    executor = RayExecutor()
    ray = run(["random"], tasks, tmp_path / "ray", encoder_factory=FakeFactory(f"{tmp_path}-ray"), executor=executor)
    assert len(local.written) == len(ray.written) == len(FROZEN_TASKS)
    assert sorted(t.label for t in executor.timings) == sorted(f"random / {t.name}" for t in tasks)
    assert {t.job for t in executor.timings} == {0, 1}, "the frozen tasks' job, the fine-tuning task's"
    assert comparable_results(tmp_path / "ray") == comparable_results(tmp_path / "local")
    # Every distinct text of the four tasks (the 24 test and 24 train sentences) reaches the model once.
    assert ray.encoded == local.encoded == len(ROWS)
    assert ray.failed == local.failed and len(ray.failed) == 1
    assert ray.failed[0].startswith(f"random / fewshot-senticse-k1-{DATASET}: 500 validation examples asked")


def tiny_bert():
    from test_fewshot import tiny_bert as build  # a 2-layer, 32-wide BERT with seeded weights

    return build()


def test_fewshot_seeds_fan_out_on_ray_with_the_local_scores(ray_cluster, reviews, tmp_path):
    """Two fine-tuning tasks at once on a cluster with two (logical) GPUs: each task's job waits for its
    seeds without holding a GPU (else the two waiting jobs would hold both and no seed could start)."""
    from sentibench.run.ray_executor import RayExecutor

    config = FineTuneConfig(learning_rate=3e-3, batch_size=8, weight_decay=0.01, max_epochs=6, patience=2,
                            eval_steps=2, metric="accuracy")
    protocol = FewShotProtocol(name="toy", per_class=True, sizes=(1, 2), seeds=2, validation_size=8, config=config,
                        reference="test")
    tasks = [FewShotTask(protocol, size, DATASET) for size in protocol.sizes]
    model = InProcessModel("tiny", tiny_bert(), revision="seeded-0")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as a Ray worker with one CPU: the same float arithmetic
    try:
        run([model], tasks, tmp_path / "local")
    finally:
        torch.set_num_threads(threads)
    report = run([model], tasks, tmp_path / "ray", executor=RayExecutor())
    assert len(report.written) == 2 and not report.failed
    local, ray = comparable_results(tmp_path / "local"), comparable_results(tmp_path / "ray")
    assert ray == local
    assert [s["seed"] for r in ray.values() for s in r["sentibench"]["details"]["per_seed"]] == [0, 1, 0, 1]


def gpu_ids(_item) -> list:
    import ray

    return ray.get_gpu_ids()


def test_items_that_train_ask_for_a_gpu_where_the_cluster_has_one(ray_cluster):
    from sentibench.run.ray_executor import RayExecutor

    assert [len(ids) for _, ids in fan_out(RayExecutor(), gpu_ids, ["train", "train"], trains=True)] == [1, 1]
    assert [ids for _, ids in fan_out(RayExecutor(), gpu_ids, ["encode"])] == [[]]


def test_a_killed_worker_reruns_its_item_and_redoes_no_finished_one(ray_cluster, reviews, tmp_path):
    from sentibench.run.ray_executor import RayExecutor

    log = tmp_path / "evaluated.log"
    sgts, probe, _, align = reviews
    tasks = [Marked(sgts, log), Marked(probe, log, kill="once"), Marked(align, log)]
    report = run(["random"], tasks, tmp_path / "ray", encoder_factory=FakeFactory(str(tmp_path)),
                 executor=RayExecutor())
    assert sorted(p.name for p in report.written) == sorted(f"{t.name}.json" for t in tasks) and not report.failed
    assert log.read_text().split() == [sgts.name, probe.name, probe.name, align.name]
    reference = run(["random"], [sgts, probe, align], tmp_path / "local",
                    encoder_factory=FakeFactory(f"{tmp_path}-local"))
    assert len(reference.written) == 3
    assert comparable_results(tmp_path / "ray") == comparable_results(tmp_path / "local")


def test_a_fine_tuning_job_runs_in_the_driver_and_a_lost_seed_worker_costs_only_that_seed(ray_cluster, reviews,
                                                                                         tmp_path):
    """Issue 45: the job that fans a task's seeds out runs in the driver, so the seeds already finished are held
    there whatever worker or node is lost; a lost seed reruns alone. (On a worker, the job and every seed it had
    received went down with that worker's node.)"""
    from sentibench.run.ray_executor import RayExecutor

    log = tmp_path / "pieces.log"
    report = run(["random"], [Orchestrating(log), reviews[0]], tmp_path / "ray",
                 encoder_factory=FakeFactory(str(tmp_path)), executor=RayExecutor())
    assert len(report.written) == 2 and not report.failed
    assert (tmp_path / "orchestrated-in").read_text() == str(os.getpid()), "the orchestrating job ran here"
    runs = [line.split() for line in log.read_text().splitlines()]
    assert sorted(piece for piece, _ in runs) == ["0", "1", "1", "2"], "only the lost piece ran twice"
    assert all(pid != str(os.getpid()) for _, pid in runs), "each piece ran on a worker"
    (result,) = [path for path in report.written if path.name == "orchestrating.json"]
    assert read_result(result).main_score() == pytest.approx(0.3)


def stamped(item: tuple[str, float], log: Path) -> str:
    """Logs `name start end` around a pause of `seconds`: when a job's item ran."""
    name, seconds = item
    started = time.monotonic()
    time.sleep(seconds)
    with log.open("a") as handle:
        handle.write(f"{name} {started} {time.monotonic()}\n")
    return name


def test_a_job_after_others_starts_once_they_have_delivered_everything(ray_cluster, tmp_path):
    from sentibench.core.executors import _each
    from sentibench.run.ray_executor import RayExecutor

    log, work = tmp_path / "stamps.log", partial(_each, partial(stamped, log=tmp_path / "stamps.log"))
    jobs = [Job((("base-a", 1.0), ("base-b", 0.5)), work), Job((("other", 0.2),), work),
            Job((("tuned", 0.1),), work, after=(0,))]
    outcomes = [outcome for _, outcome in RayExecutor().run(jobs)]
    assert sorted(outcomes) == ["base-a", "base-b", "other", "tuned"]
    stamps = {name: (float(start), float(end)) for name, start, end in (line.split() for line in
                                                                       log.read_text().splitlines())}
    assert stamps["tuned"][0] >= stamps["base-b"][1], "the waiting job started after its dependency's last item"
    assert stamps["other"][0] < stamps["base-b"][1], "a job without `after` did not wait"


def test_a_fine_tuned_cards_reference_jobs_come_after_its_bases_on_the_same_dataset(reviews):
    from sentibench.run.runner import RunItem, _after_references

    other = register_more_reviews(0)
    sgts, probe, retrieval, _ = reviews
    more = all_tasks()[f"retrieval-{other}"]

    def job(model: str, *tasks: Task) -> Job:
        return Job(tuple(RunItem(model, task, Path(f"{model}-{task.name}.json")) for task in tasks), abs)

    jobs = [job("tuned", sgts, retrieval), job("tuned", more), job("base", sgts, probe), job("base", more),
            job("solo", retrieval)]
    ordered = _after_references(jobs, {"tuned": "base"})
    names = [(j.items[0].model, j.items[0].task.metadata.dataset, j.after) for j in ordered]
    assert names == [("base", DATASET, ()), ("base", other, ()), ("solo", DATASET, ()),
                     ("tuned", DATASET, (0,)), ("tuned", other, (1,))]


def test_an_item_lost_too_often_fails_alone_and_named(ray_cluster, reviews, tmp_path):
    from sentibench.run.ray_executor import RayExecutor

    sgts, probe, _, align = reviews
    tasks = [Marked(sgts, tmp_path / "log"), Marked(probe, tmp_path / "log", kill="always"), align]
    report = run(["random"], tasks, tmp_path, encoder_factory=FakeFactory(str(tmp_path)),
                 executor=RayExecutor(retries=1))
    assert sorted(p.name for p in report.written) == [f"{align.name}.json", f"{sgts.name}.json"]
    (failure,) = report.failed
    assert failure.startswith(f"random / {probe.name}: its worker was lost 2 times")


@dataclass(frozen=True)
class UnloadableFactory:
    """A model that does not load: each attempt appends a line to `log`, then raises the loader's one line."""

    log: Path

    def __call__(self, card):
        with self.log.open("a") as handle:
            handle.write("load\n")
        raise BenchError(f"model '{card.name}': its folder could not be loaded")


def test_a_model_that_fails_to_load_on_a_worker_fails_its_job_once(ray_cluster, reviews, tmp_path):
    from sentibench.run.ray_executor import RayExecutor

    log = tmp_path / "loads.log"
    report = run(["random"], reviews, tmp_path / "out", encoder_factory=UnloadableFactory(log), executor=RayExecutor())
    assert log.read_text() == "load\n", "loaded once, not once per item"
    assert report.failed == [f"random / {task.name}: model 'random': its folder could not be loaded"
                             for task in reviews] and not report.written


DRIVER = """
import sys
from pathlib import Path
from sentibench.run.ray_executor import RayExecutor
from sentibench.run.runner import run
from test_executors import FakeFactory, Sleepy, frozen_tasks, register_reviews

register_reviews()
sgts = frozen_tasks()[0]
run(["random"], [sgts, Sleepy(60.0)], Path(sys.argv[1]), encoder_factory=FakeFactory(sys.argv[2]),
    executor=RayExecutor(address=sys.argv[3]))
"""


def test_a_run_resumes_after_its_driver_is_killed(ray_cluster, reviews, tmp_path):
    from sentibench.run.ray_executor import RayExecutor

    out, tag = tmp_path / "results", str(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    address = ray_cluster.get_runtime_context().gcs_address
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(out), tag, address], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list(out.rglob("*.json")) and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.2)
        (first,) = out.rglob("*.json")  # SgTS is done; the sleepy item is running
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    written_before = first.read_bytes()
    deadline = time.monotonic() + 30
    while ray_cluster.available_resources().get("CPU") != 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_cluster.available_resources().get("CPU") == 2, "the dead driver's running item was released"
    sgts = reviews[0]
    report = run(["random"], [sgts, Sleepy(0.0)], out, encoder_factory=FakeFactory(tag), executor=RayExecutor())
    assert report.skipped == [first] and first.read_bytes() == written_before, "finished items are not redone"
    assert [p.name for p in report.written] == ["sleepy.json"] and report.encoded == 0


def test_missing_ray_and_unreachable_clusters_are_one_line_errors(monkeypatch):
    from sentibench.run.ray_executor import MISSING, RayExecutor, check_reachable

    with pytest.raises(BenchError, match="no Ray cluster answers at 127.0.0.1:1 "):
        check_reachable("127.0.0.1:1")
    with pytest.raises(BenchError, match="not host:port"):
        check_reachable("head-node")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(BenchError) as error:
        RayExecutor().start()
    assert str(error.value) == MISSING and "pip install -e \".[ray]\"" in MISSING
    with pytest.raises(BenchError, match="--address is for --executor ray"):
        get_executor("local", "head:6379")


def test_cli_refuses_an_address_without_the_ray_executor(fixture_task, tmp_path, capsys):
    code = main(["run", "-t", fixture_task.name, "--address", "head:6379", "--output-folder", str(tmp_path)])
    assert code == 2 and "--address is for --executor ray" in capsys.readouterr().err
