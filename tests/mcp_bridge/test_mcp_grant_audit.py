"""A call from an MCP client let through by a "don't ask again" grant is audited as an MCP call:
channel ``mcp`` and the client's name, like every other outcome of an MCP call (a chat's
grant-covered call stays ``system``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sqlmodel import col, select

from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from support.mcp import McpServer, serve_mcp, text_of
from support.notes import insert_note

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


async def _waiting(server: McpServer) -> dict[str, Any]:
    """The one call waiting in the person's Approvals view (bounded poll of the API)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            approvals = (await server.live.client.get("/api/approvals")).json()
            if approvals:
                [approval] = approvals
                return dict(approval["tool_call"])
            await asyncio.sleep(0.05)


async def test_a_call_run_under_a_grant_is_audited_as_mcp_with_the_client_name(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        db = server.live.services.db
        one = insert_note(db, server.user_id, "one")
        two = insert_note(db, server.user_id, "two")
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_delete", {"id": one}))
            first = await _waiting(server)
            decided = await server.live.decide(
                first["id"], type="approve", remember={"scope": "conversation"}
            )
            assert decided.status_code == 200, decided.text
            await asyncio.wait_for(calling, WAIT_S)
            result = await asyncio.wait_for(client.call_tool("notes_delete", {"id": two}), WAIT_S)
            assert text_of(result) == f"Deleted note #{two}: two"
        with db.session() as session:
            granted = session.exec(
                select(ToolCall).where(col(ToolCall.grant_id).is_not(None))
            ).one()
            [record] = session.exec(
                select(AuditRecord).where(AuditRecord.tool_call_id == granted.id)
            ).all()
        assert record.decider == f"policy:{granted.grant_id}"
        assert (record.channel, record.outcome) == ("mcp", "allowed")
        page = (await server.live.client.get("/api/audit")).json()
        shown = [r for r in page["records"] if r["tool_call_id"] == granted.id]
        assert [(r["channel"], r["client_name"]) for r in shown] == [("mcp", "Claude Desktop")]
