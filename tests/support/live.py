"""A real uvicorn server on 127.0.0.1 (free port) in the test's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from langchain_core.language_models import BaseChatModel
from sqlalchemy.engine import make_url

from interlock.api.app import create_app
from interlock.api.services import Services
from interlock.cli import KEEP_ALIVE_S
from interlock.settings import Settings
from support.sse import EventLog, collect, terminals

START_TIMEOUT_S = 60.0
"""Longest wait for the server to start or stop, in seconds (a loaded 2-core CI machine)."""
WAIT_S = 45.0
"""Default bound of a wait for the server to finish something (a run, a request), in seconds:
generous for a loaded machine, yet under the 50 s MCP approval timeout (a caller never woken
fails the wait rather than ending by expiry)."""


@dataclass
class LiveServer:
    """A running server: its base URL, an HTTP client bound to it, and its services."""

    url: str
    client: httpx.AsyncClient
    services: Services
    server: uvicorn.Server | None = None
    task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def signed_in(self, token: str, timeout_s: float = 30.0) -> httpx.AsyncClient:
        """A new client of this server sending ``token`` (another person); close it."""
        headers = {"Authorization": f"Bearer {token}"}
        return httpx.AsyncClient(base_url=self.url, timeout=timeout_s, headers=headers)

    async def new_conversation(self) -> str:
        response = await self.client.post("/api/conversations", json={})
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    async def say(self, conversation_id: str, content: str) -> dict[str, Any]:
        response = await self.client.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": content}
        )
        assert response.status_code == 202, response.text
        return dict(response.json())

    async def turn(self, conversation_id: str, content: str) -> EventLog:
        """Say ``content`` and return the events of its run, up to its terminal event, once
        the engine is idle."""
        seen = (await self.client.get(f"/api/conversations/{conversation_id}")).json()
        await self.say(conversation_id, content)
        log = await collect(
            self.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(seen["last_event_seq"]),
        )
        await self.idle()
        return log

    async def events_until(self, conversation_id: str, runs: int) -> EventLog:
        """The conversation's events from its start up to the end of its ``runs``-th run
        (paused, completed, failed or cancelled), once the engine is idle."""
        log = await collect(self.client, conversation_id, until=terminals(runs))
        await self.idle()
        return log

    async def decide(self, tool_call_id: str, **body: Any) -> httpx.Response:
        return await self.client.post(f"/api/tool-calls/{tool_call_id}/decision", json=body)

    async def idle(self, timeout_s: float = WAIT_S) -> None:
        await self.services.engine.wait_idle(timeout_s)

    def stop(self) -> None:
        """Ask uvicorn to shut down (as on SIGTERM); :meth:`stopped` waits for it."""
        assert self.server is not None
        self.server.should_exit = True

    async def stopped(self) -> None:
        """Wait (bounded) until the server has shut down, lifespan included."""
        assert self.task is not None
        await asyncio.wait_for(asyncio.shield(self.task), START_TIMEOUT_S)


@asynccontextmanager
async def live_server(
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    headers: dict[str, str] | None = None,
    port: int = 0,
) -> AsyncIterator[LiveServer]:
    """Serve Interlock with ``settings`` (storage already migrated) on a loopback port.

    ``port`` 0 picks a free one; a test restarting "the same server" passes the port the first
    one had (``LiveServer.port``), so open pages reconnect to it.
    """
    services = Services.build(settings, model=model)
    app = create_app(settings, services)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        timeout_keep_alive=KEEP_ALIVE_S,  # as interlock serve
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_S, headers=headers) as client:
            yield LiveServer(url=url, client=client, services=services, server=server, task=task)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, START_TIMEOUT_S)
        services.db.dispose()


@asynccontextmanager
async def two_workers(
    settings: Settings, *, model: Callable[[], BaseChatModel] | None = None
) -> AsyncIterator[tuple[LiveServer, LiveServer]]:
    """Serve two servers on one database, as two workers would be; skips the test on SQLite.

    Args:
        settings: Both servers' settings (their database is the test's).
        model: Builds each server's own chat model (default: the settings' model).
    """
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        pytest.skip("several workers need PostgreSQL")
    async with (
        live_server(settings, model=model() if model else None) as first,
        live_server(settings, model=model() if model else None) as second,
    ):
        yield first, second
