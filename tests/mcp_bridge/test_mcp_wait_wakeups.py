"""MCP callers waiting in one person's record conversation wake only for their own call.

Two clients wait for the person's decision; deciding one answers that one, and the other
caller does not even look at its call again (with the safety poll pushed out of reach, its
call's row is read again only when its own call changes).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import mcp_types as types
import pytest

from interlock.mcp_bridge import gate
from interlock.settings import Settings
from interlock.storage.views import ToolCallOut
from support.mcp import McpServer, serve_mcp, text_of

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout
VS_CODE = types.Implementation(name="vscode", title="VS Code", version="1.99")


async def _waiting(server: McpServer, count: int) -> dict[str, dict[str, Any]]:
    """The waiting calls by client name once there are ``count`` (bounded poll of the API)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            approvals = (await server.live.client.get("/api/approvals")).json()
            if len(approvals) >= count:
                return {a["tool_call"]["client_name"]: a["tool_call"] for a in approvals}
            await asyncio.sleep(0.05)


async def test_a_decision_wakes_only_the_caller_of_that_call(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gate, "SAFETY_POLL_S", 3600.0)
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        outside = server.live.services.engine.outside
        reads: Counter[str] = Counter()
        outcome = outside.outcome

        def counted(call_id: str) -> tuple[ToolCallOut | None, str | None]:
            reads[call_id] += 1
            return outcome(call_id)

        monkeypatch.setattr(outside, "outcome", counted)
        async with server.client() as desktop, server.client(client_info=VS_CODE) as vscode:
            a = asyncio.create_task(desktop.call_tool("notes_add", {"text": "one"}))
            b = asyncio.create_task(vscode.call_tool("notes_add", {"text": "two"}))
            waiting = await _waiting(server, 2)
            call_a, call_b = waiting["Claude Desktop"]["id"], waiting["VS Code"]["id"]
            async with asyncio.timeout(WAIT_S):  # both callers have looked at their calls
                while not (reads[call_a] and reads[call_b]):  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
            b_reads = reads[call_b]

            assert (await server.live.decide(call_a, type="approve")).status_code == 200
            assert text_of(await asyncio.wait_for(a, WAIT_S)) == "Added note #1: one"
            assert reads[call_b] == b_reads and not b.done()

            assert (await server.live.decide(call_b, type="reject")).status_code == 200
            assert (await asyncio.wait_for(b, WAIT_S)).is_error
            assert reads[call_b] > b_reads
