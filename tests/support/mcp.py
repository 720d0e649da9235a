"""A real MCP client (``mcp.Client`` over Streamable HTTP) against a live server's ``/mcp``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from sqlmodel import col, select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Database, ToolCall
from interlock.storage.users import create_user
from support.live import LiveServer, live_server

DESKTOP = types.Implementation(name="claude-ai", title="Claude Desktop", version="1.0.0")


@asynccontextmanager
async def mcp_client(
    url: str,
    token: str | None,
    *,
    query: str = "",
    client_info: types.Implementation = DESKTOP,
    mode: Any = "legacy",
    **options: Any,
) -> AsyncIterator[Client]:
    """Connect to ``url + /mcp`` with ``Authorization: Bearer <token>`` as ``client_info``.

    ``mode`` is the client's protocol negotiation (``legacy``: the initialize handshake, as
    desktop clients speak today; ``auto`` probes the 2026 era first). ``options`` go to
    :class:`mcp.Client` (``read_timeout_seconds``, ``elicitation_callback``...).
    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http: httpx2.AsyncClient = create_mcp_http_client(headers=headers)
    async with http:
        transport = streamable_http_client(f"{url}/mcp{query}", http_client=http)
        async with Client(transport, client_info=client_info, mode=mode, **options) as client:
            yield client


def text_of(result: types.CallToolResult) -> str:
    """The text of a tool result's content blocks, joined."""
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


@dataclass
class McpServer:
    """A live server, its person's user id and API token."""

    live: LiveServer
    user_id: str
    token: str

    @property
    def url(self) -> str:
        return self.live.url

    def client(self, **options: Any) -> Any:
        """:func:`mcp_client` on this server with the person's token."""
        return mcp_client(self.url, self.token, **options)


@asynccontextmanager
async def serve_mcp(
    settings: Settings, name: str = "ann", **options: Any
) -> AsyncIterator[McpServer]:
    """Start a server on ``settings`` with a member ``name``; its HTTP client carries the token.
    ``options`` go to :func:`live_server` (``model=``...)."""
    db = Database(settings.database_url)
    try:
        user, token = create_user(db, name)
    finally:
        db.dispose()
    async with live_server(
        settings, headers={"Authorization": f"Bearer {token}"}, **options
    ) as live:
        yield McpServer(live=live, user_id=user.id, token=token)


MCP_WAIT_S = 40.0
"""Bound of a wait on an MCP call, seconds: generous for a loaded machine, yet under the 50 s
MCP approval timeout."""


async def waiting_call(server: McpServer) -> dict[str, Any]:
    """The one MCP call waiting in the person's Approvals view (bounded poll of the API)."""
    found: list[dict[str, Any]] = []

    async def look() -> bool:
        approvals = (await server.live.client.get("/api/approvals")).json()
        found[:] = [a for a in approvals if a["tool_call"]["client_name"] is not None]
        return bool(found)

    async with asyncio.timeout(MCP_WAIT_S):
        while not await look():  # noqa: ASYNC110 (an HTTP read between sleeps)
            await asyncio.sleep(0.05)
    assert len(found) == 1
    return found[0]


def audit_of(server: McpServer, call_id: str) -> list[AuditRecord]:
    """The audit records of ``call_id``, in order."""
    with server.live.services.db.session() as session:
        return list(
            session.exec(
                select(AuditRecord)
                .where(AuditRecord.tool_call_id == call_id)
                .order_by(col(AuditRecord.seq))
            ).all()
        )


def call_of(server: McpServer, call_id: str) -> ToolCall:
    """The stored row of ``call_id``."""
    with server.live.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None
        return call
