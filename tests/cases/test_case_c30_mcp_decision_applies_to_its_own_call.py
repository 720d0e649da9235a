"""C30 for MCP-originated calls — a decision applies to its own call only.

Two MCP clients of one person (Claude Desktop, VS Code) each wait on a ``notes.delete`` call
while a chat conversation of the same person waits on a ``notes.add`` call (a slash command).
A decision body naming another call is refused (the API has no body id); each decision lands
on the call in its URL and answers that call's MCP request only; a replayed decision gets 409
with the recorded decision; a "don't ask again" grant made on one MCP call covers later
calls of that tool from MCP, never the chat's different tool. Each call has exactly one
outcome in the audit log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import mcp_types as types
from sqlmodel import col, func, select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Message, ToolCall
from support.mcp import McpServer, serve_mcp, text_of
from support.notes import insert_note, stored_notes

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout
VS_CODE = types.Implementation(name="vscode", title="VS Code", version="1.99")


async def _waiting_for(server: McpServer, count: int) -> list[dict[str, Any]]:
    """The person's waiting calls once there are ``count`` (bounded poll of the API)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            approvals = (await server.live.client.get("/api/approvals")).json()
            if len(approvals) >= count:
                return [a["tool_call"] for a in approvals]
            await asyncio.sleep(0.05)


async def test_case_c30_mcp_decision_applies_to_its_own_call(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        db = server.live.services.db
        one = insert_note(db, server.user_id, "one")
        two = insert_note(db, server.user_id, "two")
        three = insert_note(db, server.user_id, "three")
        chat = await server.live.new_conversation()
        await server.live.say(chat, "/notes buy bread")
        async with server.client() as desktop, server.client(client_info=VS_CODE) as vscode:
            a = asyncio.create_task(desktop.call_tool("notes_delete", {"id": one}))
            waiting = await _waiting_for(server, 2)
            b = asyncio.create_task(vscode.call_tool("notes_delete", {"id": two}))
            waiting = await _waiting_for(server, 3)
            by_client = {c["client_name"]: c for c in waiting}
            call_a, call_b, call_chat = (
                by_client["Claude Desktop"],
                by_client["VS Code"],
                by_client[None],
            )
            assert call_chat["name"] == "notes.add"

            # No body id: a decision naming the other call is refused, nothing recorded.
            swapped = await server.live.client.post(
                f"/api/tool-calls/{call_a['id']}/decision",
                json={"type": "approve", "tool_call_id": call_b["id"]},
            )
            assert swapped.status_code == 422
            assert len(await _waiting_for(server, 3)) == 3

            # B first: only VS Code's request answers, with B's note.
            decided = await server.live.decide(
                call_b["id"], type="approve", remember={"scope": "conversation"}
            )
            assert decided.status_code == 200 and decided.json()["id"] == call_b["id"]
            result_b = await asyncio.wait_for(b, WAIT_S)
            assert text_of(result_b) == f"Deleted note #{two}: two"
            assert not a.done()

            rejected = await server.live.decide(call_a["id"], type="reject", message="keep it")
            assert rejected.status_code == 200
            result_a = await asyncio.wait_for(a, WAIT_S)
            assert result_a.is_error
            assert text_of(result_a).startswith(
                "Error [rejected]: Rejected by the person: keep it."
            )

            # A replayed decision meets the recorded one.
            replay = await server.live.decide(call_b["id"], type="approve")
            assert replay.status_code == 409
            assert replay.json()["error"]["details"]["decision"]["type"] == "approve"

            # The grant covers the next MCP delete (no card), not the chat's add.
            result_c = await asyncio.wait_for(
                desktop.call_tool("notes_delete", {"id": three}), WAIT_S
            )
            assert text_of(result_c) == f"Deleted note #{three}: three"
            [still] = await _waiting_for(server, 1)
            assert still["id"] == call_chat["id"] and still["status"] == "interrupted"

        assert sorted(t for _, t in stored_notes(db)) == ["one"]
        with db.session() as session:
            calls = session.exec(select(ToolCall).order_by(col(ToolCall.created_at))).all()
            outcomes = {
                call_id: count
                for call_id, count in session.exec(
                    select(AuditRecord.tool_call_id, func.count()).group_by(
                        col(AuditRecord.tool_call_id)
                    )
                ).all()
            }
            grant_run = next(c for c in calls if c.proposed_args == {"id": three})
            tool_messages = session.exec(
                select(Message.tool_call_id, func.count())
                .where(col(Message.tool_call_id).is_not(None))
                .group_by(col(Message.tool_call_id))
            ).all()
        assert grant_run.grant_id is not None and grant_run.status == "succeeded"
        decided_ids = {call_a["id"], call_b["id"], grant_run.id}
        assert {k: v for k, v in outcomes.items() if k in decided_ids} == dict.fromkeys(
            decided_ids, 1
        )
        assert call_chat["id"] not in outcomes  # still waiting: no outcome yet
        assert all(count == 1 for _, count in tool_messages)
