"""``/api/mcp-servers`` against bad input: private, loopback, link-local and metadata addresses
(refused as for ``http_json`` tools, also when a stored server's name resolves there later),
plain http, bad names and oversized lists; nothing is stored for a refused request, and no
connection secret is echoed back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interlock.mcp_bridge.store import load_servers, save_server
from interlock.settings import McpServerSpec, Settings
from interlock.storage import Database
from support.live import live_server
from support.mcp_remote import RemoteMcp
from support.waits import wait_until

REFUSED_URLS = [
    ("https://169.254.169.254/latest/meta-data", "link-local"),  # cloud metadata
    ("https://[fd00:ec2::254]/mcp", "unique-local"),  # AWS metadata over IPv6
    ("https://10.0.0.5/mcp", "private"),
    ("https://192.168.1.10:8443/mcp", "private"),
    ("https://127.0.0.1:9/mcp", "loopback"),
    ("https://localhost:9/mcp", "loopback"),
    ("https://[::1]/mcp", "loopback"),
    ("https://[::ffff:169.254.169.254]/mcp", "link-local"),
    ("https://0.0.0.0/mcp", "unspecified"),
    ("https://100.64.0.1/mcp", "not globally routable"),
    ("http://example.com/mcp", "https://"),
]


def _settings(db_url: str, tmp_path: Path, **extra: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_retry_max_s=1.0,
        connections={"docs": {"headers": {"Authorization": "Bearer sk-very-secret-123"}}},
        **extra,
    )


async def test_urls_that_are_not_public_https_are_refused_and_nothing_is_stored(
    db_url: str, tmp_path: Path
):
    async with live_server(_settings(db_url, tmp_path)) as server:
        for url, said in REFUSED_URLS:
            response = await server.client.put("/api/mcp-servers/evil", json={"url": url})
            assert response.status_code == 422, (url, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_mcp_server", (url, error)
            assert said in error["message"], (url, error["message"])
        assert (await server.client.get("/api/mcp-servers")).json() == []
        assert "evil" not in server.services.mcp_sources.sources
    db = Database(db_url)
    try:
        assert load_servers(db) == {}
    finally:
        db.dispose()


OK_URL = "https://127.0.0.1:9/mcp"  # allowed by the test settings below: only the spec is wrong


@pytest.mark.parametrize(
    ("name", "body", "said"),
    [
        ("Docs", {"url": OK_URL}, "lowercase"),
        ("a" * 33, {"url": OK_URL}, "1 to 32"),
        ("docs", {"url": OK_URL, "env": {"A": "b"}}, "Env is for command"),
        ("docs", {"url": OK_URL, "connection": "nope"}, "not configured"),
        ("docs", {"url": OK_URL, "title": "t" * 201}, "title"),
        ("docs", {"url": "https://127.0.0.1/" + "p" * 2000}, "url"),
        ("docs", {"url": OK_URL, "read_only": ["x"] * 1001}, "read_only"),
        (
            "docs",
            {"url": OK_URL, "permissions": {f"t{i}": "ASK" for i in range(1001)}},
            "at most 1,000 items",
        ),
        ("docs", {"url": OK_URL, "permissions": {"x": "MAYBE"}}, "permissions"),
        ("docs", {"url": OK_URL, "extra": 1}, "extra"),
        ("docs", {"url": "https://127.0.0.1:99999/mcp"}, "Port out of range"),
        ("docs", {"url": "https://no-such-host.invalid/mcp"}, "does not resolve"),
        # Text the database cannot hold, or that is no text, in any field (accepted before).
        ("docs", {"url": OK_URL, "title": "Docs\u0000"}, "NUL character"),
        ("docs", {"url": OK_URL, "title": "\u001b[31mDocs"}, "control character (U+001B)"),
        ("docs", {"url": OK_URL, "permissions": {"se\u0000arch": "ALLOW"}}, "NUL character"),
        ("docs", {"url": OK_URL, "read_only": ["search\ud800"]}, "unpaired surrogate"),
        ("docs", {"url": "https://127.0.0.1:9/m\u0000cp"}, "NUL character"),
        # Hidden characters in the title people read (accepted before), as in user names.
        ("docs", {"url": OK_URL, "title": "Company \u202edocs"}, "one line of visible"),
        ("docs", {"url": OK_URL, "title": "Docs\u200b"}, "invisible characters"),
    ],
)
async def test_bad_server_specs_are_refused_with_a_clear_error(
    name: str, body: dict[str, Any], said: str, db_url: str, tmp_path: Path
):
    settings = _settings(db_url, tmp_path, http_allowed_hosts=["127.0.0.1"])
    async with live_server(settings) as server:
        # json.dumps escapes a lone surrogate as JSON may (httpx's own encoding cannot).
        response = await server.client.put(
            f"/api/mcp-servers/{name}",
            content=json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 422, response.text
        assert said in response.text, response.text
        assert (await server.client.get("/api/mcp-servers")).json() == []


async def test_a_huge_body_is_refused_before_it_is_read(db_url: str, tmp_path: Path):
    async with live_server(_settings(db_url, tmp_path)) as server:
        body = {"url": "https://docs.example.com/mcp", "title": "x" * 2_000_000}
        response = await server.client.put("/api/mcp-servers/docs", json=body)
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"


async def test_a_stored_server_that_points_inside_is_not_connected_to(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    # A record written before this rule (or a name that now resolves to loopback): the guard
    # at connection time refuses it; the operator's own servers (settings) are not guarded.
    db = Database(db_url)
    try:
        save_server(db, "inside", McpServerSpec(url=remote.url), "user_1")
    finally:
        db.dispose()
    settings = _settings(db_url, tmp_path, mcp_servers={"mine": {"url": remote.url}})
    async with live_server(settings) as server:
        sources = server.services.mcp_sources
        inside = sources.sources["inside"].session
        await wait_until(lambda: inside.state == "down", timeout_s=60, what="refused")
        assert inside.error == "Interlock may not connect to 127.0.0.1: a loopback address"
        mine = sources.sources["mine"].session
        await wait_until(lambda: mine.state == "ready", timeout_s=30, what="settings server")
        assert not any(t.name.startswith("mcp.inside.") for t in server.services.registry.tools())


async def test_connection_secrets_are_never_echoed_back(db_url: str, tmp_path: Path):
    settings = _settings(db_url, tmp_path, http_allowed_hosts=["127.0.0.1"])
    async with live_server(settings) as server:
        url = "https://user:pw-secret-456@127.0.0.1:9/mcp?api_key=q-secret-789"
        put = await server.client.put(
            "/api/mcp-servers/docs", json={"url": url, "connection": "docs"}
        )
        assert put.status_code == 200, put.text
        session = server.services.mcp_sources.sources["docs"].session
        await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
        for response in (
            put,
            await server.client.get("/api/mcp-servers"),
            await server.client.get("/api/mcp-servers/docs"),
            await server.client.post("/api/mcp-servers/docs/refresh"),
        ):
            for secret in ("sk-very-secret-123", "pw-secret-456", "q-secret-789"):
                assert secret not in response.text
