"""The boundary to the Hugging Face Hub: whether its endpoint can be reached at all, and one line when a file
can come neither from it nor from the local cache.

huggingface_hub and datasets read `HF_ENDPOINT`, `HF_HUB_OFFLINE` and `HF_HOME` themselves, and sentibench
leaves them to it. One thing they do not do is fail fast: without a network, every request is retried five
times with backoff (1 + 2 + 4 + 8 + 8 s), so a run waits about 25 s per Hub dataset before it learns what one
failed connection already said. `hub_access()` asks first, once per endpoint and process: one TCP connection
to the endpoint's host (or to the proxy the environment names for it), at most `PROBE_TIMEOUT` seconds. When
it cannot be opened, the libraries run in their own offline mode (what `HF_HUB_OFFLINE=1` does) for the
call: what the local cache holds is served at once, anything else fails at once.

An endpoint that accepts connections and never answers passes that probe, and some of the libraries' requests
carry no read timeout (`HfApi.repo_info`) or a long one (datasets' 100 s). Inside `hub_access()` every request
of huggingface_hub's shared client (which datasets uses too) waits at most `read_timeout()` for each read, the
libraries' own `HF_HUB_ETAG_TIMEOUT` / `HF_HUB_DOWNLOAD_TIMEOUT` (10 s each by default); and once a request has
gone that long unanswered no further request starts (`HubStalled`), so the libraries' retries cannot stretch
the wait: a mute endpoint fails the call in about one read timeout plus one back-off.

A per-read bound does not stop an endpoint that answers a byte at a time (every read returns within it). So
every connection of that client also reads and writes under a deadline (`_BoundedStream`, below httpx, where
the bytes are): a request gets `read_timeout()` seconds for its headers, and its answer must keep bringing
`WINDOW_BYTES` in every further `read_timeout()` seconds (about 1.6 KiB/s at the default 10 s: a slow line
passes, a trickle does not). A request that falls behind fails as a read timeout naming the endpoint, and no
further request starts. huggingface_hub's own request for its agent-detection registry (`/api/agent-harnesses`,
fetched to decorate its user agent) is turned off with the rest of its telemetry (`HF_HUB_DISABLE_TELEMETRY`).
"""

from __future__ import annotations

import functools
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sentibench.core.errors import UnavailableError

PROBE_TIMEOUT = 3.0
"""Seconds one connection attempt to the endpoint (or its proxy) may take before it counts as unreachable."""


def _probe_address(endpoint: str) -> tuple[str, int]:
    """The (host, port) a request to `endpoint` connects to first: its proxy when the environment names one
    for the endpoint's scheme and the host is not bypassed (`urllib.request.getproxies`, `no_proxy`)."""
    import urllib.parse
    import urllib.request  # here: its http and ssl modules cost every command that never probes the Hub

    url = urllib.parse.urlsplit(endpoint)
    default = 443 if url.scheme == "https" else 80
    proxy = urllib.request.getproxies().get(url.scheme)
    if proxy and url.hostname and not urllib.request.proxy_bypass(url.hostname):
        via = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        return via.hostname or "", via.port or 80
    return url.hostname or "", url.port or default


def _addresses(host: str, port: int, timeout: float) -> list[tuple] | None:
    """The host's TCP addresses, or None when it does not resolve within `timeout` seconds (a resolver that
    cannot be reached can block for much longer; the lookup thread is left to finish on its own)."""
    found: list[list[tuple] | None] = []

    def lookup() -> None:
        try:
            found.append([info[4] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)])
        except (OSError, UnicodeError):  # unresolvable or malformed host
            found.append(None)

    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    thread.join(timeout)
    return found[0] if found else None


@functools.cache
def endpoint_reachable(endpoint: str) -> bool:
    """Whether one TCP connection to `endpoint` (or its proxy) opens within `PROBE_TIMEOUT` seconds, the
    name lookup included."""
    host, port = _probe_address(endpoint)
    deadline = time.monotonic() + PROBE_TIMEOUT
    for address in _addresses(host, port, PROBE_TIMEOUT) or []:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            with socket.create_connection(address[:2], timeout=left):
                return True
        except OSError:  # no route, refused or timed out: the next address, if any
            continue
    return False


class HubStalled(TimeoutError):
    """The endpoint left a request unanswered for longer than `read_timeout()`: no further request starts."""


def read_timeout() -> float:
    """Seconds one read from the endpoint may wait: the larger of huggingface_hub's `HF_HUB_ETAG_TIMEOUT` and
    `HF_HUB_DOWNLOAD_TIMEOUT` (environment variables, read when it is imported)."""
    from huggingface_hub import constants

    return float(max(constants.HF_HUB_ETAG_TIMEOUT, constants.HF_HUB_DOWNLOAD_TIMEOUT))


_unanswered_since: list[float] = []  # when the oldest request still waiting for an answer started, if one is


def _bound_request(request) -> None:
    """The client's request hook: refuse to start once a request went unanswered past the read timeout; cap
    each of this request's timeouts (connect, read, write, pool) at it, a missing one included."""
    limit, now = read_timeout(), time.monotonic()
    if _fell_behind:
        raise HubStalled(_fell_behind[0])
    if _unanswered_since and now - _unanswered_since[0] > limit:
        raise HubStalled(f"no answer from {request.url.host} within {limit:g} s (HF_HUB_ETAG_TIMEOUT, "
                         "HF_HUB_DOWNLOAD_TIMEOUT)")
    if not _unanswered_since:
        _unanswered_since.append(now)
    timeouts = request.extensions.get("timeout", {})
    request.extensions["timeout"] = {kind: limit if timeouts.get(kind) is None else min(timeouts[kind], limit)
                                     for kind in ("connect", "read", "write", "pool")}


def _answered(response) -> None:
    """The client's response hook: the endpoint answers."""
    _unanswered_since.clear()


WINDOW_BYTES = 16 << 10
"""What an answer must bring in every `read_timeout()` seconds after its headers."""

_fell_behind: list[str] = []  # why a request missed its deadline, once one has: no further request starts


class _BoundedStream:
    """A connection's stream (httpcore's `NetworkStream` interface) whose reads and writes keep to a deadline:
    a request (its first write after a read) starts it at `read_timeout()` seconds; every `WINDOW_BYTES` read
    moves it `read_timeout()` seconds on from then; a read or write still waiting at the deadline is a timeout
    naming the endpoint, after which no further request starts."""

    def __init__(self, stream, host: str) -> None:
        self._stream, self._host = stream, host
        self._deadline, self._got, self._heard, self._reading = 0.0, 0, False, True

    def _late(self) -> Exception:
        import httpcore2

        limit = read_timeout()
        how = (f"{self._host} sent under {WINDOW_BYTES >> 10} KiB in {limit:g} s" if self._heard
               else f"no answer from {self._host} within {limit:g} s")
        reason = f"{how} (HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT)"
        _fell_behind[:] = [reason]
        return httpcore2.ReadTimeout(reason)

    def _left(self, timeout: float | None) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._late()
        return left if timeout is None else min(timeout, left)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if self._reading:  # a new request
            self._deadline, self._got, self._heard = time.monotonic() + read_timeout(), 0, False
            self._reading = False
        self._stream.write(buffer, self._left(timeout))

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        import httpcore2

        self._reading = True
        try:
            data = self._stream.read(max_bytes, self._left(timeout))
        except httpcore2.ReadTimeout:
            raise self._late() from None
        self._got, self._heard = self._got + len(data), True
        if self._got >= WINDOW_BYTES:
            self._deadline, self._got = time.monotonic() + read_timeout(), 0
        return data

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None, timeout: float | None = None):
        self._deadline = max(self._deadline, time.monotonic() + read_timeout())  # the handshake: one window
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, self._left(timeout)),
                              self._host)

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _BoundedBackend:
    """httpcore's network backend with every stream it opens a `_BoundedStream`."""

    def __init__(self, backend) -> None:
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options=None):
        return _BoundedStream(self._backend.connect_tcp(host, port, timeout, local_address, socket_options), host)

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options=None):
        return _BoundedStream(self._backend.connect_unix_socket(path, timeout, socket_options), path)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _bound_session() -> None:
    """Add the two hooks to huggingface_hub's shared client (once per client; a new client gets them anew), and
    put every connection pool of it (direct, and through each proxy httpx mounted) on `_BoundedBackend` (httpx
    has no public way to name a pool's backend)."""
    from huggingface_hub import get_session

    session = get_session()
    hooks = session.event_hooks
    if _bound_request not in hooks["request"]:
        session.event_hooks = {"request": [*hooks["request"], _bound_request],
                               "response": [*hooks["response"], _answered]}
    for transport in (session._transport, *session._mounts.values()):
        pool = getattr(transport, "_pool", None)
        if pool is not None and not isinstance(pool._network_backend, _BoundedBackend):
            pool._network_backend = _BoundedBackend(pool._network_backend)


@contextmanager
def hub_access() -> Iterator[bool]:
    """Hub library calls inside run as configured when the endpoint answers (yields True); in the libraries'
    own offline mode, cache only, when it cannot be reached (yields False). `HF_HUB_OFFLINE=1` is left as is."""
    from huggingface_hub import constants

    constants.HF_HUB_DISABLE_TELEMETRY = True  # and with it the agent-detection request
    if constants.HF_HUB_OFFLINE or endpoint_reachable(constants.ENDPOINT):
        _unanswered_since.clear()
        _fell_behind.clear()
        _bound_session()
        yield True
        return
    import datasets.config

    saved = constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = True
    try:
        yield False
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE = saved


def refuse_uncached_dataset(what: str, repo_id: str) -> None:
    """`hub_unavailable`'s error, raised before datasets is imported (about 1 s), when loading Hub dataset
    `repo_id` can only fail: the Hub cannot be asked (`HF_HUB_OFFLINE`, or the endpoint does not answer the
    probe) and neither huggingface_hub's cache (`HF_HUB_CACHE`, `datasets--<org>--<name>`) nor datasets' own
    (`HF_DATASETS_CACHE`, default `HF_HOME/datasets`, `<org>___<name>`) holds a folder for it. Any such
    folder, however partial, leaves the decision to datasets."""
    from huggingface_hub import constants

    offline = constants.HF_HUB_OFFLINE
    if not offline and endpoint_reachable(constants.ENDPOINT):
        return
    datasets_cache = os.path.expanduser(os.environ.get("HF_DATASETS_CACHE")
                                        or os.path.join(constants.HF_HOME, "datasets"))
    folders = (Path(constants.HF_HUB_CACHE) / f"datasets--{repo_id.replace('/', '--')}",
               Path(datasets_cache) / repo_id.replace("/", "___"))
    if not any(folder.exists() for folder in folders):
        raise hub_unavailable(what, None, reachable=bool(offline))


def hub_unavailable(what: str, error: Exception | None, instead: str = "", reachable: bool = True) -> UnavailableError:
    """One line for `what` that neither the local Hugging Face cache nor the Hub endpoint could serve, in the
    Hub libraries' own terms: `HF_HUB_OFFLINE`, `HF_ENDPOINT` (a mirror), `HF_HOME` (the cache). `reachable`
    is what `hub_access` found; `error` is what the library raised, if it was asked."""
    from huggingface_hub import constants

    if not reachable:
        host, port = _probe_address(constants.ENDPOINT)
        why = (f"{constants.ENDPOINT} cannot be reached (no connection to {host}:{port} within {PROBE_TIMEOUT:g} s) "
               f"and it is not in the local cache ({constants.HF_HOME}); set HF_ENDPOINT to a mirror you can "
               "reach, or fill the cache")
    elif constants.HF_HUB_OFFLINE:
        why = (f"HF_HUB_OFFLINE is set and it is not in the local cache ({constants.HF_HOME}); fill the cache on "
               "a machine with access (same HF_HOME), or unset HF_HUB_OFFLINE")
    else:
        detail = (str(error).strip().splitlines() or [""])[0][:160]
        why = (f"{constants.ENDPOINT} did not serve it ({type(error).__name__}: {detail}) and it is not in the "
               f"local cache ({constants.HF_HOME}); set HF_ENDPOINT to a mirror you can reach, or fill the cache")
    hint = f" {instead}" if instead else ""
    return UnavailableError(f"{what} needs the Hugging Face Hub, which cannot be reached from here: {why}.{hint}")
HUB_PATTERNS = ["*.json", "*.txt", "*.model", "*.safetensors", "*/*.json", "merges.txt", "vocab.*"]
"""The files of a hub model that sentibench loads (safetensors weights only, never pickles)."""


def hub_snapshot(repo_id: str, revision: str, what: str, instead: str = "") -> Path:
    """The model's snapshot folder (named by its commit): from the local Hugging Face cache when it is
    there, else from the endpoint huggingface_hub is configured with (`HF_ENDPOINT`); a one-line
    `UnavailableError` when neither can serve it (`HF_HUB_OFFLINE` set, or the endpoint unreachable)."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id, revision=revision, local_files_only=True,
                                      allow_patterns=HUB_PATTERNS))
    except Exception:  # not in the local hub cache: ask the endpoint
        pass
    with hub_access() as reachable:
        if not reachable:  # no connection to the endpoint, and the cache lacks it: say so now, not after retries
            raise hub_unavailable(what, None, instead, reachable=False)
        try:
            return Path(snapshot_download(repo_id, revision=revision, allow_patterns=HUB_PATTERNS))
        except Exception as error:  # the boundary to huggingface_hub: any failure is one line
            raise hub_unavailable(what, error, instead) from None


