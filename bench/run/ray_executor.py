"""The Ray executor (`pip install -e ".[ray]"`): each job is one Ray task, on a local Ray or a cluster.

A job runs as a streaming-generator task: the worker yields each item's outcome the moment the item
finishes, and the driver, the only writer of result files, writes it at once. Ray's own task retries are
off; the driver retries instead, so that finished items are never redone: when a worker or node is lost,
it resubmits only the items of that job it has not received, and after `retries` losses of one item it
reports that item as failed. An exception raised by an item's code fails that item alone (the job's later
items are resubmitted); a `BenchError` escaping a job's work fails the whole job at once, each item it has
left with that one line (a job's work turns an item's own `BenchError` into its outcome, so one that escapes
says the job cannot run: its model does not load here, and loading it again for each item would not help).
Resources: one CPU per job, and one GPU for a job that trains when the cluster has one. A job that only
orchestrates (`Job.orchestrates`: a fine-tuning task, whose seeds it fans out and waits for) runs in a thread
of the driver instead of on a worker: its seeds are Ray tasks of their own, each retried alone when its node is
lost, and the seeds already finished are held by the driver, so a lost node never costs them (on a worker, the
job and every seed it had received were lost with its node). It holds no CPU of the cluster while it waits.
A job with `Job.after` starts once the jobs it names have delivered every outcome (a fine-tuned model's
retrieval job after its base's job on the same dataset: on nodes that share a home, the base's vectors are then
cached when it needs them, and are encoded once, as in a local run).

With no address, `ray.init()` starts a local Ray on this machine; with one, it connects to that cluster
(`host:port` of a head node started by `ray start --head`, or `ray://host:10001`), after checking in a
few seconds that something answers there, and gives Ray a few seconds to connect (it retries for 20 s
otherwise). Token authentication (Ray >= 2.60's `ray start` turns it on when a token exists, e.g.
`~/.ray/auth_token`): a driver given an address sends the token only in token mode, so when
`RAY_AUTH_MODE` is unset and a token is found here, the driver uses token mode (a cluster without
authentication accepts that too); a refused token is one line that says what to set.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.executors import ItemFailed, ItemTiming, Job, label_of, timed

MISSING = 'the Ray executor needs Ray: pip install -e ".[ray]"'
CONNECT_TIMEOUT_S = 5.0
ANSWER_TIMEOUT_S = 2.0  # a gRPC server answers an HTTP/2 preface at once
CONNECT_ATTEMPTS = 3  # Ray's GCS connection attempts (about 1 s each) once the port answers
AUTH_MODE = "RAY_AUTH_MODE"
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def import_ray():
    try:
        import ray
    except ImportError:
        raise BenchError(MISSING) from None
    return ray


def check_reachable(address: str) -> None:
    """A one-line error, within seconds, when nothing listens at a `host:port` or `ray://host:port`, or
    when what listens at a `host:port` does not speak gRPC (a Ray head's GCS port does)."""
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise BenchError(f"Ray address '{address}' is not host:port or ray://host:port")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S) as connection:
            speaks_grpc = address.startswith("ray://") or _answers_http2(connection)
    except OSError as error:
        raise BenchError(f"no Ray cluster answers at {address} ({error.strerror or error}); start one with "
                         "`ray start --head` there, or drop --address to run a local Ray") from None
    if not speaks_grpc:
        raise BenchError(f"what answers at {address} is not a Ray head (it does not speak gRPC); give the "
                         "GCS port that `ray start --head --port=...` printed")


def _answers_http2(connection: socket.socket) -> bool:
    """Whether the server answers an HTTP/2 client preface with a SETTINGS frame, as every gRPC server does."""
    connection.settimeout(ANSWER_TIMEOUT_S)
    connection.sendall(HTTP2_PREFACE + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))  # and an empty SETTINGS frame
    header = b""
    with contextlib.suppress(OSError):
        while len(header) < 9 and (chunk := connection.recv(9 - len(header))):
            header += chunk
    return len(header) == 9 and header[3] == 4


def use_token_when_available() -> None:
    """Token mode for this driver when `RAY_AUTH_MODE` is unset and Ray finds a token here (what Ray does
    itself for `ray.init()` without an address); a Ray without token authentication has nothing to do."""
    if AUTH_MODE in os.environ:
        return
    try:
        from ray._private.authentication import authentication_token_setup as setup
    except ImportError:
        return
    with _quiet("ray._private.authentication.authentication_token_setup"):
        setup.maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    import logging

    log = logging.getLogger(logger)
    level, log.level = log.level, logging.ERROR
    try:
        yield
    finally:
        log.setLevel(level)


def connect(ray, address: str) -> None:
    """`ray.init(address)` that fails in seconds, in one line that names the problem."""
    check_reachable(address)
    use_token_when_available()
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(CONNECT_ATTEMPTS))
    try:
        ray.init(address=address, include_dashboard=False)
    except ray.exceptions.AuthenticationError as error:  # token mode, and no token here (checked before connecting)
        raise BenchError(f"RAY_AUTH_MODE=token and this driver has no usable Ray token ({_first_sentence(error)}): "
                         "give the cluster's token as RAY_AUTH_TOKEN, or in ~/.ray/auth_token or the file "
                         "RAY_AUTH_TOKEN_PATH names (`ray get-auth-token` on the head prints it)") from None
    except (ConnectionError, RuntimeError) as error:
        cause = f"{error} {error.__cause__ or ''}"
        if "Unauthenticated" in cause or "AuthToken" in cause:
            mode = os.environ.get(AUTH_MODE)
            raise BenchError(
                f"the Ray cluster at {address} refused this driver's authentication token (RAY_AUTH_MODE="
                f"{mode or 'unset'}): set RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN, or "
                "~/.ray/auth_token; `ray get-auth-token` on the head prints it)") from None
        raise BenchError(f"cannot connect to the Ray cluster at {address}: {_one_line(error)}; is it a Ray "
                         "head's GCS port (`ray start --head --port=...`)?") from None


def run_job(work, items: tuple[Any, ...]) -> Iterator[tuple[Any, float]]:
    """A job on a worker: its items' outcomes, each with its wall seconds there, streamed back to the driver
    one by one."""
    yield from timed(work, items)


@dataclass
class _Running:
    job: Job
    index: int  # the job's index in `run`'s jobs (a resubmitted remainder keeps it)
    waiting: list[Any]  # the job's items whose outcome has not arrived, in order


@dataclass
class RayExecutor:
    address: str | None = None
    num_cpus: int | None = None  # a local Ray's CPUs (default: all of this machine's)
    retries: int = 2             # reruns of an item whose worker or node was lost
    timings: list[ItemTiming] = field(default_factory=list, repr=False)

    def start(self):
        """Ray, initialised on first use (a worker, or a test that started Ray itself, finds it running)."""
        ray = import_ray()
        if ray.is_initialized():
            return ray
        if self.address:
            connect(ray, self.address)
        else:
            ray.init(num_cpus=self.num_cpus, include_dashboard=False)
        return ray

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Any, Any]]:
        ray = self.start()
        state = _RayRun(ray, list(jobs), self.retries,
                        gpu=1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0)
        threads = [threading.Thread(target=_in_driver, args=(job, index, state.here), daemon=True,
                                    name=f"sentibench-job-{index}")
                   for index, job in enumerate(jobs) if job.orchestrates]
        for index, job in enumerate(jobs):
            if not job.orchestrates and index not in state.blocked:
                state.submit(job, list(job.items), index)
        for thread in threads:
            thread.start()
        while state.running or state.blocked or any(t.is_alive() for t in threads) or not state.here.empty():
            for index, item, outcome, seconds in _arrived(state.here, wait=not state.running):
                if seconds is not None:
                    self.timings.append(ItemTiming(label_of(item), index, seconds))
                state.arrived(index)
                yield item, outcome
            if not state.running:
                continue
            ready, _ = ray.wait(list(state.running), num_returns=1, timeout=0.1 if threads else None)
            for index, item, outcome, seconds in (state.next_of(ready[0]) if ready else ()):
                if seconds is not None:
                    self.timings.append(ItemTiming(label_of(item), index, seconds))
                state.arrived(index)
                yield item, outcome


class _RayRun:
    """One `RayExecutor.run`: the remote jobs in flight, the jobs waiting for others (`Job.after`), the outcomes
    each job still owes, and the queue of the jobs run in the driver (`Job.orchestrates`)."""

    def __init__(self, ray: Any, jobs: list[Job], retries: int, gpu: int) -> None:
        self.ray, self.jobs, self.retries, self.gpu = ray, jobs, retries, gpu
        self.remote = ray.remote(run_job)
        self.running: dict[Any, _Running] = {}
        self.lost: dict[str, int] = {}  # item label -> times its worker was lost
        self.left = {index: len(job.items) for index, job in enumerate(jobs)}
        self.blocked = {index: set(job.after) for index, job in enumerate(jobs) if job.after and not job.orchestrates}
        self.here: queue.Queue = queue.Queue()  # (index, item, outcome, seconds) of the driver-side jobs

    def submit(self, job: Job, items: list[Any], index: int) -> None:
        if items:
            job = Job(tuple(items), job.work, job.trains)
            generator = self.remote.options(num_returns="streaming", num_cpus=1,
                                            num_gpus=self.gpu if job.trains else 0,
                                            max_retries=0).remote(job.work, job.items)
            self.running[generator] = _Running(job, index, list(items))

    def arrived(self, index: int) -> None:
        """One more outcome of job `index`; when it has them all, start the jobs that waited for it only."""
        self.left[index] -= 1
        if self.left[index]:
            return
        for waiting, needs in list(self.blocked.items()):
            needs.discard(index)
            if not needs:
                del self.blocked[waiting]
                self.submit(self.jobs[waiting], list(self.jobs[waiting].items), waiting)

    def next_of(self, generator: Any) -> list[tuple[int, Any, Any, float | None]]:
        """The next outcomes of a remote job that is ready: one item's, or, when the job ended or failed, those
        of the items it has left (resubmitting what a lost worker or an item's own error left undone)."""
        ray, state = self.ray, self.running[generator]
        try:
            outcome, seconds = ray.get(next(generator))
        except StopIteration:
            del self.running[generator]  # a `work` that broke its contract: never silently lost
            return [(state.index, item, ItemFailed("its job ended without an outcome for it"), None)
                    for item in state.waiting]
        except ray.exceptions.RayTaskError as error:
            del self.running[generator]
            if isinstance(error.cause, BenchError):  # the job cannot run here (its model does not load)
                return [(state.index, item, ItemFailed(_one_line(error.cause)), None) for item in state.waiting]
            self.submit(state.job, state.waiting[1:], state.index)  # the item's own code raised
            return [(state.index, state.waiting[0], ItemFailed(_one_line(error.cause)), None)]
        except ray.exceptions.RayError as error:  # its worker or node was lost: rerun what is left
            del self.running[generator]
            item = state.waiting[0]
            label = label_of(item)
            self.lost[label] = self.lost.get(label, 0) + 1
            if self.lost[label] <= self.retries:
                self.submit(state.job, state.waiting, state.index)
                return []
            self.submit(state.job, state.waiting[1:], state.index)
            return [(state.index, item, ItemFailed(f"its worker was lost {self.lost[label]} times "
                                                   f"({type(error).__name__})"), None)]
        return [(state.index, state.waiting.pop(0), outcome, seconds)]


def _arrived(here: queue.Queue, wait: bool) -> list[tuple]:
    """The driver-side jobs' outcomes that have arrived, in order; with `wait`, after waiting up to 0.1 s for one
    (the remote jobs are done: no spinning while a driver-side job works)."""
    found = []
    with contextlib.suppress(queue.Empty):
        found.append(here.get(timeout=0.1) if wait else here.get_nowait())
        while True:
            found.append(here.get_nowait())
    return found


def _in_driver(job: Job, index: int, out: queue.Queue) -> None:
    """Run a job that orchestrates in this process (a thread of the driver), each outcome into `out` as it
    arrives; an exception the job's work lets escape fails the items it has left, in one line each."""
    waiting = list(job.items)
    try:
        for outcome, seconds in timed(job.work, job.items):
            out.put((index, waiting.pop(0), outcome, seconds))
    except Exception as error:  # the job's own failure (its model does not load): each item it has left fails
        message = _one_line(error)
        for item in waiting:
            out.put((index, item, ItemFailed(message), None))
        waiting.clear()
    for item in waiting:  # a `work` that broke its contract: never silently lost
        out.put((index, item, ItemFailed("its job ended without an outcome for it"), None))


def _first_sentence(error: BaseException) -> str:
    """Ray's own reason, without the advice it appends (ours follows)."""
    text = str(getattr(error, "message", error)).strip()
    return text.split(". ")[0].removesuffix(".")


def _one_line(error: BaseException | None) -> str:
    text = str(error).strip().splitlines()
    message = text[0] if text else ""
    return message if isinstance(error, BenchError) else f"{type(error).__name__}: {message}"
