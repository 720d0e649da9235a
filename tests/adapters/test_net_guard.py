"""The SSRF guard: address classification, refusal before connecting, connecting to the checked
address while keeping the host name for TLS and ``Host``. No traffic leaves 127.0.0.1."""

from __future__ import annotations

import ipaddress
from typing import Any

import httpcore
import pytest

from interlock.adapters import net_guard
from interlock.adapters.declarative import build_declarative_tool
from interlock.adapters.http_json import HttpJsonRequest, run
from interlock.adapters.net_backend import GuardedNetworkBackend
from interlock.adapters.net_guard import (
    DestinationRefused,
    address_problem,
    checked_addresses,
)
from interlock.tools import ToolError
from support.https_server import HttpsServer, Reply, Seen, make_settings, serve_https


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("100.64.0.1", "not globally routable"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.1", "private"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fd00::1", "unique-local"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("fec0::1", "site-local"),
        ("::ffff:127.0.0.1", "carrying 127.0.0.1, a loopback address"),
        ("::ffff:10.0.0.1", "carrying 10.0.0.1, a private address"),
        ("64:ff9b::a9fe:a9fe", "carrying 169.254.169.254"),
        ("2002:7f00:1::", "carrying 127.0.0.1"),
    ],
)
def test_non_global_addresses_are_refused(address, words):
    problem = address_problem(ipaddress.ip_address(address))

    assert problem is not None
    assert words in problem


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_global_addresses_pass(address):
    assert address_problem(ipaddress.ip_address(address)) is None


def fake_resolver(monkeypatch: pytest.MonkeyPatch, table: dict[str, list[str]]) -> list[str]:
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return table[host.lower().rstrip(".")]

    monkeypatch.setattr(net_guard, "resolve_host", resolve)
    return asked


async def test_one_bad_address_among_good_ones_refuses_the_name(monkeypatch):
    fake_resolver(monkeypatch, {"mixed.test": ["93.184.215.14", "10.1.2.3"]})

    with pytest.raises(DestinationRefused) as caught:
        await checked_addresses("mixed.test", 443, frozenset())

    assert str(caught.value) == (
        "destination not allowed: mixed.test (resolves to 10.1.2.3, a private address)"
    )


async def test_the_allowlist_lets_a_named_host_through(monkeypatch):
    fake_resolver(monkeypatch, {"localhost": ["127.0.0.1"]})

    assert await checked_addresses("LocalHost.", 443, frozenset({"localhost"})) == ["127.0.0.1"]


class SpyBackend(httpcore.AsyncNetworkBackend):
    """An inner backend that records connection attempts and never opens a socket."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    async def connect_tcp(self, host: str, port: int, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        self.attempts.append(host)
        raise httpcore.ConnectError("spy: no sockets here")


async def test_the_backend_refuses_before_any_connection_attempt(monkeypatch):
    fake_resolver(monkeypatch, {"evil.test": ["169.254.169.254"]})
    spy = SpyBackend()

    with pytest.raises(DestinationRefused):
        await GuardedNetworkBackend((), inner=spy).connect_tcp("evil.test", 443)

    assert spy.attempts == []


async def test_the_backend_connects_to_the_checked_addresses_not_the_name(monkeypatch):
    asked = fake_resolver(monkeypatch, {"good.test": ["93.184.215.14", "2606:4700::1"]})
    spy = SpyBackend()

    with pytest.raises(httpcore.ConnectError):
        await GuardedNetworkBackend((), inner=spy).connect_tcp("good.test", 443)

    assert asked == ["good.test"]
    assert spy.attempts == ["93.184.215.14", "2606:4700::1"]


async def test_unix_sockets_are_refused():
    with pytest.raises(DestinationRefused):
        await GuardedNetworkBackend().connect_unix_socket("/var/run/docker.sock")


# -- through a tool ------------------------------------------------------------------------


@pytest.fixture
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make any real connection attempt fail the test (and record it)."""
    attempts: list[str] = []

    async def refuse(self: Any, host: str, port: int, **kwargs: Any) -> Any:
        attempts.append(host)
        raise AssertionError(f"connection attempted to {host}:{port}")

    monkeypatch.setattr(httpcore.AnyIOBackend, "connect_tcp", refuse)
    return attempts


def url_tool(url: str, **settings: Any) -> Any:
    spec = {
        "name": "probe.get",
        "kind": "http_json",
        "title": "Probe",
        "description": "Fetch a URL.",
        "input_schema": {"type": "object", "properties": {}},
        "request": {"url": url},
    }
    return build_declarative_tool(spec, skill="probe", settings=make_settings(**settings))


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.0.0.1/x", "127.0.0.1 (a loopback address)"),
        ("https://10.0.0.1/x", "10.0.0.1 (a private address)"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254 (a link-local address)"),
        ("https://[::1]/x", "::1 (a loopback address)"),
        ("https://[fd00::1]:8443/x", "fd00::1 (a unique-local address)"),
        ("https://[::ffff:127.0.0.1]/x", "carrying 127.0.0.1"),
        ("https://0.0.0.0/x", "0.0.0.0 (an unspecified address)"),
        ("https://localhost/x", "localhost (resolves to"),
    ],
)
async def test_non_public_destinations_are_refused_before_connecting(no_sockets, url, reason):
    tool = url_tool(url)

    with pytest.raises(ToolError) as caught:
        await tool.handler({}, None)

    assert caught.value.code == "permission_denied"
    assert (caught.value.detail or "").startswith("destination not allowed: ")
    assert reason in (caught.value.detail or "")
    assert no_sockets == []


async def test_the_allowlist_is_for_named_hosts_only_and_off_by_default(no_sockets):
    assert make_settings().http_allowed_hosts == []
    tool = url_tool("https://127.0.0.1/x", http_allowed_hosts=["localhost"])

    with pytest.raises(ToolError) as caught:
        await tool.handler({}, None)

    assert caught.value.code == "permission_denied"


async def test_plain_http_is_refused_at_run_time_too(no_sockets):
    tool = url_tool("https://localhost/x", http_allowed_hosts=["localhost"])
    handler: HttpJsonRequest = tool.handler
    plain = HttpJsonRequest(**{**handler.__dict__, "origin": "http://localhost"})

    with pytest.raises(ToolError) as caught:
        await run(plain, {})

    assert caught.value.code == "permission_denied"
    assert "only https:// URLs are allowed" in (caught.value.detail or "")
    assert no_sockets == []


async def test_the_checked_address_is_used_with_the_name_kept_for_tls_and_host(
    monkeypatch, tmp_path
):
    """DNS rebinding: the guard resolves once and connects to that address; the name still
    drives SNI, certificate verification (the test certificate names ``api.test``) and
    ``Host``."""
    asked = fake_resolver(monkeypatch, {"api.test": ["127.0.0.1"]})
    async with serve_https(tmp_path) as server:
        seen: list[Seen] = []

        async def handle(request: Seen) -> Reply:
            seen.append(request)
            return Reply(json={"ok": True})

        server.route("/ping", handle)
        tool = url_tool(
            f"https://api.test:{server.port}/ping",
            http_allowed_hosts=["api.test"],
            http_ca_bundle=server.ca_file,
        )

        result = await tool.handler({}, None)

    assert result.data == {"ok": True}
    assert asked == ["api.test"]
    assert seen[0].headers["host"] == f"api.test:{server.port}"


async def test_without_the_allowlist_a_name_resolving_to_loopback_is_refused(
    monkeypatch, tmp_path, no_sockets
):
    fake_resolver(monkeypatch, {"api.test": ["127.0.0.1"]})
    tool = url_tool("https://api.test/ping")

    with pytest.raises(ToolError) as caught:
        await tool.handler({}, None)

    assert caught.value.detail == (
        "destination not allowed: api.test (resolves to 127.0.0.1, a loopback address)"
    )


async def test_a_certificate_for_another_name_fails_verification(monkeypatch, tmp_path):
    fake_resolver(monkeypatch, {"other.test": ["127.0.0.1"]})
    server: HttpsServer
    async with serve_https(tmp_path) as server:
        tool = url_tool(
            f"https://other.test:{server.port}/ping",
            http_allowed_hosts=["other.test"],
            http_ca_bundle=server.ca_file,
        )

        with pytest.raises(ToolError) as caught:
            await tool.handler({}, None)

    assert caught.value.code == "upstream_error"
    assert "ConnectError" in (caught.value.detail or "")
    assert server.requests == []
