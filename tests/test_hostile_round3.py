"""Issue 45's hostile inputs, round 3: each is a one-line error or the correct result, never a traceback, a
hang, a lost file or a wrong success."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from sentibench.cli import main


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_hub_endpoint_that_accepts_and_never_answers_fails_in_one_line_within_the_read_timeout(tmp_path):
    with socket.socket() as mute:  # listening, never accepting: the kernel completes the connection, nobody answers
        mute.bind(("127.0.0.1", 0))
        mute.listen(64)
        env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{mute.getsockname()[1]}", "HF_HUB_OFFLINE": "0",
               "HF_HUB_ETAG_TIMEOUT": "1", "HF_HUB_DOWNLOAD_TIMEOUT": "1", "HF_HOME": str(tmp_path / "hf"),
               "SENTIBENCH_HOME": str(tmp_path / "home")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "sentibench.cli", "run", "-m", "someone/some-model", "-t",
                               "sgts-vader-amazon", "--output-folder", str(tmp_path / "out")],
                              env=env, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 2 and one_error_line(done.stderr), done.stderr
    assert "cannot be reached" in done.stderr and "no answer from 127.0.0.1 within 1 s" in done.stderr


def test_each_hub_request_gets_a_bounded_timeout_and_none_starts_after_one_went_unanswered(monkeypatch):
    import httpx2
    from huggingface_hub import constants

    from sentibench.data import hub

    monkeypatch.setattr(constants, "HF_HUB_ETAG_TIMEOUT", 2)
    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", 3)
    monkeypatch.setattr(hub, "_unanswered_since", [])
    request = httpx2.Request("GET", "http://mirror.example/api", extensions={
        "timeout": {"connect": None, "read": 100.0, "write": 1.0, "pool": None}})
    hub._bound_request(request)
    assert request.extensions["timeout"] == {"connect": 3.0, "read": 3.0, "write": 1.0, "pool": 3.0}
    hub._answered(None)
    hub._bound_request(request)  # answered: the next request starts
    hub._unanswered_since[0] -= 3.5
    with pytest.raises(hub.HubStalled, match="no answer from mirror.example within 3 s"):
        hub._bound_request(request)
