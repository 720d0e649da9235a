"""The loop guard for MCP calls: a call the person rejected is refused as ``repeated`` only
when the same caller repeats it in the same MCP session within ``mcp_repeat_window_s``.

A new session (a client restarted, another agent), a call past the window, or a call that
only expired (nobody decided) is put to the person again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from mcp import Client

from interlock.settings import Settings
from interlock.storage.models import utcnow
from support.mcp import McpServer, serve_mcp, text_of

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout
MILK = {"text": "buy milk"}


async def _waiting(server: McpServer) -> dict[str, Any]:
    """The one call waiting in the person's Approvals view (bounded poll of the API)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            approvals = (await server.live.client.get("/api/approvals")).json()
            if approvals:
                [approval] = approvals
                return dict(approval["tool_call"])
            await asyncio.sleep(0.05)


async def _rejected(server: McpServer, client: Client) -> None:
    """Call ``notes_add`` with :data:`MILK` and have the person reject it."""
    calling = asyncio.create_task(client.call_tool("notes_add", MILK))
    call = await _waiting(server)
    assert (await server.live.decide(call["id"], type="reject", message="no")).status_code == 200
    result = await asyncio.wait_for(calling, WAIT_S)
    assert text_of(result).startswith("Error [rejected]: Rejected by the person: no.")


async def _asked_again(server: McpServer, client: Client) -> None:
    """The same call waits for the person again (then rejected, to end it)."""
    await _rejected(server, client)


async def test_a_rejection_is_repeated_only_in_its_own_session(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as first:
            await _rejected(server, first)
            again = await asyncio.wait_for(first.call_tool("notes_add", MILK), WAIT_S)
            assert again.is_error
            assert text_of(again) == (
                "Error [repeated]: Not asked again: the person rejected this exact call "
                "(notes.add with the same arguments) a short while ago. Do not call it again "
                "unless they ask for it; tell them what you would need instead."
            )
            assert (await server.live.client.get("/api/approvals")).json() == []
            # Other arguments are another call: asked as usual.
            other = asyncio.create_task(first.call_tool("notes_add", {"text": "buy tea"}))
            call = await _waiting(server)
            assert call["proposed_args"] == {"text": "buy tea"}
            await server.live.decide(call["id"], type="reject")
            await asyncio.wait_for(other, WAIT_S)
        async with server.client() as second:  # a new MCP session
            await _asked_again(server, second)


async def test_a_rejection_past_the_window_is_asked_again(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(mcp_approval_channel="web", mcp_repeat_window_s=600)
    async with serve_mcp(settings) as server:
        deadlines = server.live.services.engine.deadlines
        async with server.client() as client:
            await _rejected(server, client)
            # Eleven minutes later on the server's clock, same session: asked again.
            deadlines.clock = lambda: utcnow() + timedelta(minutes=11)
            await _asked_again(server, client)


async def test_an_expired_call_is_not_a_rejection(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(mcp_approval_channel="web", mcp_approval_timeout_s=1.0)
    async with serve_mcp(settings) as server:
        async with server.client() as client:
            result = await asyncio.wait_for(client.call_tool("notes_add", MILK), WAIT_S)
            assert text_of(result).startswith("Error [expired]")
            # Same session: put to the person again (and, undecided, expired again).
            again = await asyncio.wait_for(client.call_tool("notes_add", MILK), WAIT_S)
            assert text_of(again).startswith("Error [expired]")
