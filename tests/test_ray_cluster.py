"""A real Ray cluster on this machine: a head and two worker nodes started with `ray start` (one CPU each,
loopback only, token authentication on as Ray >= 2.60 turns it on when a token exists), and drivers that
attach by address. The results equal the local executor's; a whole worker node stopped mid-run (its raylet,
workers and agents killed) costs only a rerun of its items; a driver killed mid-run and started again with the
same address and output folder redoes none of the finished items; a driver that does not send the token gets
one line within seconds. Each node's processes carry an environment marker of their own, so the test stops
exactly its own processes (never `ray stop`, which stops every Ray on the machine)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from sentibench.results.task_result import comparable_results
from sentibench.tasks.base import Evaluation, Task

TESTS = Path(__file__).resolve().parent
BENCHMARKS = TESTS.parent / "benchmarks"  # the local-cluster helpers are the node benchmark's (bench_nodes.py)
sys.path.insert(0, str(BENCHMARKS))
from bench_nodes import MARKER, free_port, stop_cluster  # noqa: E402

MODELS = ("random", "bow-tfidf-svd", "all-minilm-l6-v2")  # three jobs: one per node's CPU
PACE_S = 1.5  # per item: four items make a job of ~6 s, long enough to stop a node during it

DRIVER = """
import sys
from pathlib import Path
from sentibench.core.executors import LocalExecutor
from sentibench.run.ray_executor import RayExecutor
from sentibench.run.runner import run
from test_executors import FakeFactory, frozen_tasks, register_reviews
from test_ray_cluster import MODELS, Paced

register_reviews()
out, tag, address, log = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
executor = LocalExecutor() if address == "local" else RayExecutor(address=address)
report = run(list(MODELS), [Paced(task, log) for task in frozen_tasks()], out, encoder_factory=FakeFactory(tag),
             executor=executor)
print(f"written {len(report.written)} already done {len(report.skipped)} failed {report.failed}")
sys.exit(1 if report.failed else 0)
"""


@dataclass
class Paced(Task):
    """Wraps a task: logs which node evaluates it (the node's marker), then takes `PACE_S` before scoring."""

    inner: Task
    log: Path
    pace: float = PACE_S

    def __post_init__(self) -> None:
        self.metadata = self.inner.metadata

    def evaluate(self, encoder, context) -> Evaluation:
        with self.log.open("a") as handle:
            handle.write(f"{os.environ.get(MARKER, 'driver')} {self.name}\n")
        time.sleep(self.pace)
        return self.inner.evaluate(encoder, context)


@dataclass
class Cluster:
    address: str
    env: dict[str, str]  # a driver's environment: token reachable, RAY_AUTH_MODE unset as a user's shell
    markers: dict[str, str]


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("ray")
    pytest.importorskip("psutil")
    root = Path(tempfile.mkdtemp(prefix="sbray-"))  # short: Ray's socket paths live under it
    token = root / "auth_token"
    token.write_text(uuid.uuid4().hex + uuid.uuid4().hex)
    base = {key: value for key, value in os.environ.items() if key != "RAY_AUTH_MODE"}
    base |= {"RAY_AUTH_TOKEN_PATH": str(token), "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false",
             "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), str(BENCHMARKS), os.environ.get("PYTHONPATH")]))}
    tag = uuid.uuid4().hex[:8]
    markers = {name: f"{tag}-{name}" for name in ("head", "worker-1", "worker-2")}
    port = free_port()
    address = f"127.0.0.1:{port}"
    ray = [sys.executable, "-m", "ray.scripts.scripts", "start", "--num-cpus=1", "--node-ip-address=127.0.0.1",
           "--disable-usage-stats"]
    try:
        for name, marker in markers.items():
            where = (["--head", f"--port={port}", "--include-dashboard=false",
                      '--system-config={"health_check_period_ms": 1000, "health_check_failure_threshold": 3}']
                     if name == "head" else [f"--address={address}"])
            node_env = {**base, MARKER: marker, "RAY_AUTH_MODE": "token",  # a node joins with the token too
                        "SENTIBENCH_HOME": str(root / name / "home")}  # each node its own caches, as machines
            done = subprocess.run([*ray, *where, f"--temp-dir={root / name}"], env=node_env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"ray start ({name}) failed: {done.stderr[-2000:]}"
        yield Cluster(address, base, markers)
    finally:
        for marker in markers.values():
            stop_cluster(marker)
        shutil.rmtree(root, ignore_errors=True)


def drive(cluster: Cluster, out: Path, tag: str, address: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", DRIVER, str(out), tag, address, str(log)], env=cluster.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(driver: subprocess.Popen, timeout: float = 180) -> str:
    out, err = driver.communicate(timeout=timeout)
    assert driver.returncode == 0, f"driver exited {driver.returncode}: {out}\n{err[-3000:]}"
    return out


def test_the_cluster_has_three_nodes_with_token_authentication_on(cluster):
    probe = ("import ray; ray.init(address=__import__('sys').argv[1]); "
             "print(sum(n['Alive'] for n in ray.nodes()), ray.cluster_resources()['CPU'])")
    env = {**cluster.env, "RAY_AUTH_MODE": "token"}
    done = subprocess.run([sys.executable, "-c", probe, cluster.address], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split() == ["3", "3.0"], done.stderr[-2000:]


def test_a_driver_without_the_token_mode_gets_one_line_within_seconds(cluster, tmp_path):
    env = {**cluster.env, "RAY_AUTH_MODE": "disabled"}  # what a user who opted out sends
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "sentibench.cli", "run", "-m", "random", "-t", "sgts-mr",
                           "--limit", "8", "--executor", "ray", "--address", cluster.address,
                           "--output-folder", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2, done.stderr[-2000:]
    assert last.startswith(f"error: the Ray cluster at {cluster.address} refused this driver's authentication")
    assert "set RAY_AUTH_MODE=token" in last
    assert elapsed < 15, f"{elapsed:.1f} s, process start-up included (Ray alone retries for 20 s)"


@pytest.fixture(scope="module")
def local_results(cluster, tmp_path_factory) -> dict:
    """The workload's results from the local executor (what every cluster run must equal)."""
    folder = tmp_path_factory.mktemp("local")
    finish(drive(cluster, folder / "results", f"{folder}-local", "local", folder / "local.log"))
    return comparable_results(folder / "results")


def test_results_equal_the_local_executor_and_survive_a_lost_worker_node(cluster, local_results, tmp_path):
    whole = drive(cluster, tmp_path / "cluster", f"{tmp_path}-cluster", cluster.address, tmp_path / "cluster.log")
    finish(whole)
    assert comparable_results(tmp_path / "cluster") == local_results
    nodes = {line.split()[0] for line in (tmp_path / "cluster.log").read_text().splitlines()}
    assert nodes == set(cluster.markers.values()), "each node ran a job"

    log, lost = tmp_path / "lost.log", cluster.markers["worker-2"]
    driver = drive(cluster, tmp_path / "lost", f"{tmp_path}-lost", cluster.address, log)
    deadline = time.monotonic() + 120
    while (not log.exists() or lost not in log.read_text()) and time.monotonic() < deadline:
        assert driver.poll() is None, driver.communicate()
        time.sleep(0.1)
    (running,) = [line.split()[1] for line in log.read_text().splitlines() if line.startswith(lost)]
    assert stop_cluster(lost) >= 2, "the node's raylet and its worker were stopped"
    finish(driver)
    assert comparable_results(tmp_path / "lost") == local_results
    evaluated = [line.split() for line in log.read_text().splitlines()]
    assert [node for node, task in evaluated if task == running][-1] != lost, "its item reran on another node"
    assert len(evaluated) == len(MODELS) * 4 + 1, "only the item in progress on the lost node ran twice"


def test_a_driver_killed_mid_run_resumes_on_the_cluster_redoing_no_finished_item(cluster, local_results, tmp_path):
    out, tag, log = tmp_path / "results", f"{tmp_path}-resumed", tmp_path / "evaluated.log"
    driver = drive(cluster, out, tag, cluster.address, log)
    try:
        deadline = time.monotonic() + 120
        while not list(out.rglob("*.json")) and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.05)
    finally:
        driver.kill()  # SIGKILL: the driver gets no chance to tidy up
        driver.communicate()
    finished = {path: path.read_bytes() for path in out.rglob("*.json")}
    items = len(MODELS) * 4
    assert 1 <= len(finished) < items, f"killed mid-run: {len(finished)} of {items} results written"
    resumed = finish(drive(cluster, out, tag, cluster.address, log))
    assert resumed.split()[:5] == ["written", str(items - len(finished)), "already", "done", str(len(finished))]
    assert {path: path.read_bytes() for path in finished} == finished, "finished items are not redone"
    assert comparable_results(out) == local_results


def test_a_port_that_is_not_a_ray_head_is_one_line_within_seconds():
    from sentibench.core.errors import BenchError
    from sentibench.run.ray_executor import check_reachable

    with socket.socket() as silent:  # accepts connections, never answers: not a GCS
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        started = time.monotonic()
        with pytest.raises(BenchError, match="is not a Ray head .it does not speak gRPC."):
            check_reachable(f"127.0.0.1:{silent.getsockname()[1]}")
    assert time.monotonic() - started < 5


# --- a real packaged model: the same bytes however the work was cut (issue 45) -------------------------------

REAL_MODELS = ("all-minilm-l6-v2", "paraphrase-minilm-l3-v2")
REAL_TASKS = ("sgts-mr", "retrieval-mr", "sgts-vader-tweets", "probe-vader-tweets")  # two jobs per model
REAL_LIMIT = 24

REAL_DRIVER = """
import sys
from pathlib import Path
from sentibench.core.executors import LocalExecutor
from sentibench.run.ray_executor import RayExecutor
from sentibench.run.runner import run
from sentibench.tasks.registry import resolve
from test_ray_cluster import PACE_S, REAL_LIMIT, REAL_MODELS, REAL_TASKS, Paced

out, address, log, cache = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4] == "cache"
local = address == "local"
executor = LocalExecutor() if local else RayExecutor(address=address)
tasks = [Paced(task, log, 0.0 if local else PACE_S) for task in resolve(list(REAL_TASKS))]  # paced: a node to stop
report = run(list(REAL_MODELS), tasks, out, limit=REAL_LIMIT, executor=executor, use_cache=cache)
print(f"written {len(report.written)} already done {len(report.skipped)} failed {report.failed}")
sys.exit(1 if report.failed else 0)
"""


def drive_real(cluster: Cluster, out: Path, address: str, log: Path, home: Path, cache: bool = True
               ) -> subprocess.Popen:
    """A driver of the real workload with a home of its own: an embedding cache that starts empty, and the
    prepared datasets and models of `home`'s sibling `prepared` when it exists (linked: prepared once)."""
    prepared = home.parent / "prepared"
    home.mkdir(exist_ok=True)
    for entry in prepared.iterdir() if prepared.is_dir() else ():
        if entry.name != "embeddings" and not (home / entry.name).exists():
            (home / entry.name).symlink_to(entry)
    env = {**cluster.env, "SENTIBENCH_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-c", REAL_DRIVER, str(out), address, str(log),
                             "cache" if cache else "no-cache"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def every_byte(folder: Path) -> tuple[dict, dict]:
    """What two runs of the same work must agree on exactly: the results (less their timing) and the bytes of
    every unit-values file."""
    units = {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*.units.npz"))}
    return comparable_results(folder), units


def test_a_real_model_gives_the_same_bytes_uncached_cached_on_ray_after_a_lost_node_and_a_resumed_driver(
        cluster, tmp_path):
    """all-MiniLM-L6-v2 and the ONNX-converted paraphrase-MiniLM-L3-v2 on four tasks (`--limit 24`), every node
    and every driver with a home of its own (cold caches: a rerun node re-encodes its texts in other batches):
    a local run without the cache, a local cached run, a Ray run, a Ray run that loses a worker node mid-job and
    a Ray driver killed mid-run then resumed give the same scores and unit values to the byte."""
    uncached = tmp_path / "uncached"
    finish(drive_real(cluster, uncached, "local", tmp_path / "uncached.log", tmp_path / "prepared", cache=False))
    reference = every_byte(uncached)
    assert len(reference[0]) == len(REAL_MODELS) * len(REAL_TASKS) and len(reference[1]) == len(reference[0])

    finish(drive_real(cluster, tmp_path / "local", "local", tmp_path / "local.log", tmp_path / "home-l"))
    assert every_byte(tmp_path / "local") == reference
    finish(drive_real(cluster, tmp_path / "ray", cluster.address, tmp_path / "ray.log", tmp_path / "home-r"))
    assert every_byte(tmp_path / "ray") == reference

    log = tmp_path / "lost.log"
    driver = drive_real(cluster, tmp_path / "lost", cluster.address, log, tmp_path / "home-n")
    workers = [marker for name, marker in cluster.markers.items() if name != "head"]
    deadline, lost = time.monotonic() + 180, None
    while lost is None and time.monotonic() < deadline:
        assert driver.poll() is None, driver.communicate()
        started = log.read_text().split() if log.exists() else []
        lost = next((marker for marker in workers if marker in started and stop_cluster(marker) >= 2), None)
        time.sleep(0.1)
    assert lost is not None, "no worker node ran an item"
    finish(driver, timeout=300)
    assert every_byte(tmp_path / "lost") == reference

    out, log = tmp_path / "resumed", tmp_path / "resumed.log"
    driver = drive_real(cluster, out, cluster.address, log, tmp_path / "home-k")
    try:
        deadline = time.monotonic() + 180
        while not list(out.rglob("*.json")) and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.05)
    finally:
        driver.kill()
        driver.communicate()
    finished = {path: path.read_bytes() for path in out.rglob("*.json")}
    assert 1 <= len(finished) < len(reference[0])
    finish(drive_real(cluster, out, cluster.address, log, tmp_path / "home-k"), timeout=300)
    assert {path: path.read_bytes() for path in finished} == finished, "finished items are not redone"
    assert every_byte(out) == reference
