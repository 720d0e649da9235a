"""C32 — an outside agent gives up first (protocols).

An MCP client calls an ASK tool with a short client-side timeout while the server would wait
50 s for the person; the client gives up (its courtesy ``notifications/cancelled``) and
disconnects; then the person approves in the web client.

Interlock's choice: the caller left, so the call is closed as ``cancelled`` (not run), with
the reason on its card ("Claude Desktop stopped waiting for the decision, so the call did
not run."); the late approval answers 409 with that recorded outcome. It never runs, and it
has exactly one outcome (one tool message, one audit record).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from mcp.shared.exceptions import MCPError
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Message, ToolCall
from support.mcp import serve_mcp
from support.notes import stored_notes
from support.waits import wait_until

CLIENT_TIMEOUT_S = 5.0
"""The client gives up after this many seconds: long enough that a busy machine has the call
waiting for the person by then (a client gone before the call exists leaves nothing to close;
with 2 s, CI could get there first), short enough for a quick test."""
WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_case_c32_outside_agent_gives_up_first(
    make_settings: Callable[..., Settings], mode: str
) -> None:
    """``mode``: the client's protocol era (``legacy``: the initialize handshake and a session;
    ``auto``: the 2026-07-28 era, one exchange per request)."""
    settings = make_settings(mcp_approval_timeout_s=50.0, mcp_approval_channel="web")
    async with serve_mcp(settings) as server:
        db = server.live.services.db

        def calls() -> list[ToolCall]:
            with db.session() as session:
                return list(session.exec(select(ToolCall)).all())

        async with server.client(mode=mode) as client:
            calling = asyncio.create_task(
                client.call_tool(
                    "notes_add", {"text": "buy milk"}, read_timeout_seconds=CLIENT_TIMEOUT_S
                )
            )
            await wait_until(
                lambda: [c.status for c in calls()] == ["interrupted"] or calling.done(),
                timeout_s=WAIT_S,
                what="the call waiting for the person",
            )
            with pytest.raises(MCPError):
                await calling
        # The client gave up and left; the server notices and closes the call.
        await wait_until(
            lambda: [c.status for c in calls()] == ["cancelled"],
            timeout_s=WAIT_S,
            what="the call closed once its caller left",
        )
        [call] = calls()
        reason = "Claude Desktop stopped waiting for the decision, so the call did not run."
        assert call.error_code == "cancelled" and call.error_message == reason
        assert call.executed_args is None and call.started_at is None

        # The person approves afterwards: told the caller left, nothing runs.
        late = await server.live.decide(call.id, type="approve")
        assert late.status_code == 409
        error = late.json()["error"]
        assert error["code"] == "not_interrupted"
        assert error["details"]["status"] == "cancelled"
        assert "Claude Desktop stopped waiting" in error["message"]
        approvals = (await server.live.client.get("/api/approvals")).json()
        assert approvals == []

        await server.live.idle()
        assert stored_notes(db) == []
        with db.session() as session:
            audit = session.exec(select(AuditRecord)).all()
            tool_messages = session.exec(
                select(Message).where(Message.tool_call_id == call.id)
            ).all()
        assert [(a.outcome, a.channel, a.decider) for a in audit] == [
            ("cancelled", "mcp", "system")
        ]
        assert len(tool_messages) == 1
        assert tool_messages[0].content == f"Cancelled: {reason[:-1]}."
