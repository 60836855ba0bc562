"""`sentibench.data.hub`: one connection attempt decides whether the Hub's libraries may use the network;
what it connects to honours the environment's proxy settings as urllib reads them."""

from __future__ import annotations

import socket

import pytest

from sentibench.data import hub


@pytest.fixture(autouse=True)
def _fresh_probe(monkeypatch):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy",
                 "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    hub.endpoint_reachable.cache_clear()


def test_the_endpoint_itself_is_probed_with_its_scheme_default_port():
    assert hub._probe_address("https://huggingface.co") == ("huggingface.co", 443)
    assert hub._probe_address("http://mirror.example:8080/path") == ("mirror.example", 8080)
    assert hub._probe_address("http://mirror.example") == ("mirror.example", 80)


def test_a_proxy_for_the_scheme_is_probed_instead_unless_the_host_is_bypassed(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://proxy.example:3128")
    assert hub._probe_address("https://huggingface.co") == ("proxy.example", 3128)
    assert hub._probe_address("http://mirror.example:8080") == ("mirror.example", 8080)  # no http proxy set
    monkeypatch.setenv("no_proxy", "huggingface.co")
    assert hub._probe_address("https://huggingface.co") == ("huggingface.co", 443)


def test_a_listening_port_is_reachable_and_a_closed_one_is_not():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert hub.endpoint_reachable(f"http://127.0.0.1:{port}")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    assert not hub.endpoint_reachable(f"http://127.0.0.1:{closed}")
    assert not hub.endpoint_reachable("https://hub.sentibench-test.invalid")  # unresolvable: .invalid never resolves


def test_an_unreachable_endpoint_puts_both_libraries_offline_for_the_call_only(monkeypatch):
    import datasets.config
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub, "endpoint_reachable", lambda endpoint: False)
    with hub.hub_access() as reachable:
        assert reachable is False and constants.HF_HUB_OFFLINE and datasets.config.HF_HUB_OFFLINE
    assert not constants.HF_HUB_OFFLINE and not datasets.config.HF_HUB_OFFLINE
    with pytest.raises(RuntimeError), hub.hub_access():  # restored when the call fails too
        raise RuntimeError
    assert not constants.HF_HUB_OFFLINE and not datasets.config.HF_HUB_OFFLINE
    monkeypatch.setattr(hub, "endpoint_reachable", lambda endpoint: True)
    with hub.hub_access() as reachable:
        assert reachable is True and not constants.HF_HUB_OFFLINE


def test_the_unreachable_line_names_the_address_and_what_to_do(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", "https://mirror.example:8443")
    message = str(hub.hub_unavailable("dataset 'x' (org/x)", None, reachable=False))
    assert "\n" not in message and "no connection to mirror.example:8443 within 3 s" in message
    assert "set HF_ENDPOINT to a mirror you can reach, or fill the cache" in message


def test_a_name_lookup_that_hangs_counts_as_unreachable_within_the_timeout(monkeypatch):
    import threading
    import time

    release = threading.Event()
    monkeypatch.setattr(hub, "PROBE_TIMEOUT", 0.2)
    monkeypatch.setattr(hub.socket, "getaddrinfo", lambda *args, **kwargs: release.wait(5) and [])
    started = time.monotonic()
    assert not hub.endpoint_reachable("https://slow-resolver.example")
    assert time.monotonic() - started < 1.0
    release.set()
