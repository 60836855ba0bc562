"""A tiny Hugging Face Hub on 127.0.0.1 for tests: repositories held in memory, served in the Hub's own API
and resolve layout (as much of it as huggingface_hub's `snapshot_download` / `hf_hub_download` and
datasets' `load_dataset` use), so `HF_ENDPOINT=<url>` makes the real client libraries talk to it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Repo:
    kind: str  # "model" or "dataset"
    repo_id: str
    files: dict[str, bytes]
    requests: list[str] = field(default_factory=list)
    pinned: str | None = None  # the commit to report (a real repository's pinned commit); default: from the files

    @property
    def commit(self) -> str:
        if self.pinned:
            return self.pinned
        digest = hashlib.sha1()
        for name, data in sorted(self.files.items()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return digest.hexdigest()

    def entry(self, name: str) -> dict:
        data = self.files[name]
        return {"type": "file", "path": name, "size": len(data), "oid": hashlib.sha1(data).hexdigest()}

    def info(self) -> dict:
        return {"id": self.repo_id, "sha": self.commit, "private": False, "disabled": False, "gated": False,
                "lastModified": "2024-01-01T00:00:00.000Z", "tags": [], "cardData": {},
                "siblings": [{"rfilename": name, "size": len(data)} for name, data in sorted(self.files.items())]}


class HubServer:
    """`with HubServer([repo, ...]) as hub:` serves the repositories at `hub.url` until the block ends."""

    def __init__(self, repos: list[Repo]) -> None:
        self.repos = {(repo.kind, repo.repo_id): repo for repo in repos}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> HubServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _find(self, kind: str, rest: str) -> tuple[Repo, str] | None:
        for (repo_kind, repo_id), repo in self.repos.items():
            if repo_kind == kind and (rest == repo_id or rest.startswith(repo_id + "/")):
                return repo, rest[len(repo_id) + 1:]
        return None

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False):
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def _json(self, value: object, repo: Repo | None = None) -> None:
                headers = {"Content-Type": "application/json"}
                if repo is not None:
                    headers["X-Repo-Commit"] = repo.commit
                self._send(200, json.dumps(value).encode(), headers)

            def _route(self, head: bool = False) -> None:
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                for prefix, kind in (("/api/models/", "model"), ("/api/datasets/", "dataset")):
                    if path.startswith(prefix):
                        return self._api(kind, path[len(prefix):])
                kind, rest = ("dataset", path[len("/datasets/"):]) if path.startswith("/datasets/") else (
                    "model", path[1:])
                found = hub._find(kind, rest)
                if found is None or not found[1].startswith("resolve/"):
                    return self._send(404, b'{"error": "not found"}', {"X-Error-Code": "RepoNotFound"}, head)
                repo, tail = found
                repo.requests.append(self.path)
                _, _, name = tail[len("resolve/"):].partition("/")
                if name not in repo.files:
                    return self._send(404, b"", {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": repo.commit},
                                      head)
                data = repo.files[name]
                self._send(200, data, {"X-Repo-Commit": repo.commit, "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                                       "Content-Type": "application/octet-stream"}, head)

            def _api(self, kind: str, rest: str) -> None:
                found = hub._find(kind, rest)
                if found is None:
                    return self._send(404, b'{"error": "Repository not found"}', {"X-Error-Code": "RepoNotFound"})
                repo, tail = found
                repo.requests.append(self.path)
                action, _, more = tail.partition("/")
                if action in ("", "revision"):
                    return self._json(repo.info(), repo)
                if action == "tree":
                    _, _, folder = more.partition("/")
                    names = [n for n in sorted(repo.files) if not folder or n.startswith(folder.rstrip("/") + "/")]
                    return self._json([repo.entry(n) for n in names], repo)
                if action == "paths-info":
                    length = int(self.headers.get("Content-Length") or 0)
                    form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                    asked = form.get("paths", [])
                    return self._json([repo.entry(n) for n in asked if n in repo.files], repo)
                return self._send(404, b"{}")

            def do_GET(self) -> None:
                self._route()

            def do_HEAD(self) -> None:
                self._route(head=True)

            def do_POST(self) -> None:
                self._route()

        return Handler


class Trickle:
    """`with Trickle(body=False) as url:` an endpoint that answers every request with a valid status line and then
    one byte a second, forever: of its headers, or (`body=True`) of a body after whole headers."""

    def __init__(self, body: bool = False) -> None:
        self.body = body
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.closed = threading.Event()

    def __enter__(self) -> str:
        threading.Thread(target=self._accept, daemon=True).start()
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self.closed.set()
        self.listener.close()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while not self.closed.is_set():
                connection, _ = self.listener.accept()
                threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with contextlib.suppress(OSError), connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\n" + (b"Content-Type: application/json\r\nContent-Length: 100000"
                                                         b"\r\n\r\n" if self.body else b""))
            while not self.closed.wait(1.0):
                connection.sendall(b"x" if self.body else b"X-Slow: x\r\n"[:1])
