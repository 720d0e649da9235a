"""An MCP client killed (SIGKILL) while its call waits for the person: no cancel is sent.

The server notices the closed connection (on both protocol eras) and closes the call at once
as ``cancelled`` with the reason "Claude Desktop stopped waiting for the decision", instead
of keeping it open until its 50 s deadline; a later approval is refused (409) and nothing
runs. When the person approves while the client is being killed, either outcome C32 allows
happens: closed unrun, or run once with its result kept; never both, never twice.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Message, ToolCall
from support.mcp import McpServer, serve_mcp
from support.notes import stored_notes
from support.waits import wait_until

CALLER = Path(__file__).parents[1] / "support" / "mcp_caller.py"
WAIT_S = 40.0  # generous for a loaded machine (a new Python process), yet under the 50 s timeout
REASON = "Claude Desktop stopped waiting for the decision, so the call did not run."


def _calls(server: McpServer) -> list[ToolCall]:
    with server.live.services.db.session() as session:
        return list(session.exec(select(ToolCall)).all())


def _start_caller(server: McpServer, mode: str) -> subprocess.Popen[bytes]:
    args = json.dumps({"text": "buy milk"})
    command = [sys.executable, "-P", str(CALLER), server.url, server.token, mode, "notes_add", args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@asynccontextmanager
async def _waiting_caller(server: McpServer, mode: str) -> AsyncIterator[subprocess.Popen[bytes]]:
    """A client process whose ``notes_add`` call waits for the person (killed on exit)."""
    process = _start_caller(server, mode)
    try:
        await wait_until(
            lambda: (
                [c.status for c in _calls(server)] == ["interrupted"] or process.poll() is not None
            ),
            timeout_s=WAIT_S,
            what="the client's call waiting for the person",
        )
        assert process.poll() is None, process.communicate()
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        await asyncio.to_thread(process.communicate)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_killed_client_gets_its_waiting_call_closed_unrun(
    make_settings: Callable[..., Settings], mode: str
) -> None:
    """``mode``: the client's protocol era (``legacy``: the 2025 session; ``auto``: 2026)."""
    settings = make_settings(mcp_approval_timeout_s=50.0, mcp_approval_channel="web")
    async with serve_mcp(settings) as server:
        async with _waiting_caller(server, mode) as process:
            process.kill()  # SIGKILL: no cancel, no goodbye
            await asyncio.to_thread(process.wait)
            await wait_until(
                lambda: [c.status for c in _calls(server)] == ["cancelled"],
                timeout_s=WAIT_S,
                what="the call closed once its caller's connection closed",
            )
        [call] = _calls(server)
        assert call.error_code == "cancelled" and call.error_message == REASON
        assert call.started_at is None and call.executed_args is None
        late = await server.live.decide(call.id, type="approve")
        assert late.status_code == 409
        assert late.json()["error"]["details"]["status"] == "cancelled"
        await server.live.idle()
        assert stored_notes(server.live.services.db) == []
        with server.live.services.db.session() as session:
            audit = session.exec(select(AuditRecord)).all()
        assert [(a.outcome, a.channel) for a in audit] == [("cancelled", "mcp")]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_approval_racing_a_killed_client_has_one_outcome(
    make_settings: Callable[..., Settings], mode: str
) -> None:
    settings = make_settings(mcp_approval_timeout_s=50.0, mcp_approval_channel="web")
    async with serve_mcp(settings) as server:
        async with _waiting_caller(server, mode) as process:
            [waiting] = _calls(server)
            process.kill()
            decided = await server.live.decide(waiting.id, type="approve")
            await wait_until(
                lambda: [c.status for c in _calls(server)] in (["cancelled"], ["succeeded"]),
                timeout_s=WAIT_S,
                what="the call's one outcome",
            )
        await server.live.idle()
        [call] = _calls(server)
        db = server.live.services.db
        with db.session() as session:
            audit = session.exec(select(AuditRecord)).all()
            tool_messages = session.exec(
                select(Message).where(Message.tool_call_id == call.id)
            ).all()
        assert len(tool_messages) == 1
        if call.status == "succeeded":  # approved first: it ran once and its result is kept
            assert decided.status_code == 200
            assert [t for _, t in stored_notes(db)] == ["buy milk"]
            assert call.result_text and tool_messages[0].content == call.result_text
            assert [(a.outcome, a.channel) for a in audit] == [("approved", "api")]
        else:  # the caller's leaving was noticed first: closed unrun, the approval refused
            assert decided.status_code == 409
            assert stored_notes(db) == []
            assert call.error_message == REASON
            assert [(a.outcome, a.channel) for a in audit] == [("cancelled", "mcp")]
