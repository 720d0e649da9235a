"""Several workers on one PostgreSQL database: a remote MCP server an admin adds or removes on one
worker is added or removed on the other too (``NOTIFY interlock_control``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.settings import Settings
from support.listeners import listening_down
from support.live import two_workers
from support.mcp_remote import RemoteMcp
from support.waits import wait_until


def _settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(
        mcp_retry_max_s=1.0,
        http_allowed_hosts=["127.0.0.1"],  # servers added through the API: public ones only
    )


async def test_an_admin_change_reaches_the_other_worker(
    remote: RemoteMcp, make_settings: Callable[..., Settings]
) -> None:
    async with two_workers(_settings(make_settings)) as (first, second):
        put = await first.client.put("/api/mcp-servers/shared", json={"url": remote.url})
        assert put.status_code == 200, put.text
        for worker in (first, second):
            registry = worker.services.registry
            await wait_until(
                lambda r=registry: "mcp.shared.echo" in r, timeout_s=30, what="tools on a worker"
            )
        listed = (await second.client.get("/api/mcp-servers/shared")).json()
        assert listed["origin"] == "admin"

        gone = await first.client.delete("/api/mcp-servers/shared")
        assert gone.status_code == 204
        registry = second.services.registry
        await wait_until(lambda: "mcp.shared.echo" not in registry, timeout_s=30, what="removed")
        assert (await second.client.get("/api/mcp-servers/shared")).status_code == 404


async def test_an_admin_change_made_while_a_worker_was_not_listening_reaches_it_after(
    remote: RemoteMcp,
    make_settings: Callable[..., Settings],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with two_workers(_settings(make_settings)) as (first, second):
        registry = second.services.registry
        async with listening_down(db_url, monkeypatch, second):
            put = await first.client.put("/api/mcp-servers/shared", json={"url": remote.url})
            assert put.status_code == 200, put.text
        await wait_until(lambda: "mcp.shared.echo" in registry, timeout_s=30, what="added")

        async with listening_down(db_url, monkeypatch, second):
            gone = await first.client.delete("/api/mcp-servers/shared")
            assert gone.status_code == 204
        await wait_until(lambda: "mcp.shared.echo" not in registry, timeout_s=30, what="removed")
        assert (await second.client.get("/api/mcp-servers/shared")).status_code == 404
