"""A waiting card reads as things are now, whenever it is read.

Found in QA: a pending card's sentence ("Delete note #2: buy milk") was fixed when the call was
proposed; once note #2 was changed or deleted (by another call, or in another conversation of
the same person), the card still named the old text, though approving acts on the new. The
routes that read waiting calls (the conversation's detail, its pending calls, the Approvals
view) now describe each waiting card again; nothing is stored, and the event stream (the
HITL cycle) is unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlmodel import select

from interlock.engine import current_cards
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import ToolCall
from interlock.tools import Confirmation, Permission, ToolContext, ToolError, tool
from support.live import LiveServer, live_server
from support.notes import change_note, insert_note

BUY_MILK = "Delete note #{id}: “buy milk”. It can be undone afterwards."


async def _me(server: LiveServer) -> str:
    return str((await server.client.get("/api/me")).json()["id"])


async def _summaries(server: LiveServer, conversation_id: str, call_id: str) -> list[str]:
    """The call's card sentence as the detail, the pending list and the Approvals view read it."""
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    [in_detail] = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id]
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    [in_pending] = [c for c in pending if c["id"] == call_id]
    approvals = (await server.client.get("/api/approvals")).json()
    [in_approvals] = [a["tool_call"] for a in approvals if a["tool_call"]["id"] == call_id]
    return [c["confirmation"]["summary"] for c in (in_detail, in_pending, in_approvals)]


def _stored_summary(server: LiveServer, call_id: str) -> str:
    with server.services.db.session() as session:
        call = session.exec(select(ToolCall).where(ToolCall.id == call_id)).one()
        assert isinstance(call.confirmation, dict)
        undo = call.confirmation.get("undo")
        return str(call.confirmation["summary"]) + (f" {undo}" if undo else "")


async def _waiting_delete(server: LiveServer, conversation_id: str, note: int) -> dict[str, Any]:
    log = await server.turn(conversation_id, f"delete note {note}")
    [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
    assert call["name"] == "notes.delete"
    return dict(call)


async def test_a_waiting_delete_names_the_note_as_it_is_now_or_that_it_is_gone(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings) as server:
        note = insert_note(server.services.db, await _me(server), "buy milk")
        first = await server.new_conversation()
        call = await _waiting_delete(server, first, note)
        proposed = BUY_MILK.format(id=note)
        assert call["confirmation"]["summary"] == proposed
        assert await _summaries(server, first, call["id"]) == [proposed] * 3

        # Changed elsewhere: the card names the new text.
        change_note(server.services.db, note, "buy bread")
        bread = f"Delete note #{note}: “buy bread”. It can be undone afterwards."
        assert await _summaries(server, first, call["id"]) == [bread] * 3

        # Deleted by a call in another conversation of the same person.
        second = await server.new_conversation()
        other = await _waiting_delete(server, second, note)
        assert (await server.decide(other["id"], type="approve")).status_code == 200
        await server.idle()
        gone = f"Delete note #{note} (this note no longer exists)."
        assert await _summaries(server, first, call["id"]) == [gone] * 3

        # Read, never written: the stored sentence is the proposal's.
        assert _stored_summary(server, call["id"]) == proposed
        # Approving now does what the card says: nothing to delete.
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{first}")).json()
        [done] = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]]
        assert (
            done["status"] == "failed" and done["error"]["message"] == f"There is no note #{note}."
        )
        # A decided card keeps the sentence the person decided on, without the undo promise:
        # the call failed, so nothing is to be undone.
        assert done["confirmation"]["summary"] == f"Delete note #{note}: “buy milk”."


async def test_a_card_the_tool_can_no_longer_describe_says_so(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool whose confirmation now refuses (the thing it names is gone) keeps its card's
    title and says why instead of the old sentence; one that fails as a bug, or is slower than
    a read waits (not the tool's own hour), keeps the stored sentence."""
    state = {"file": "present"}

    async def confirm(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
        if state["file"] == "slow":
            await asyncio.Event().wait()  # never set: only the read's own limit ends it
        if state["file"] == "gone":
            raise ToolError("not_found", "The file report.txt was removed.")
        if state["file"] == "broken":
            raise RuntimeError("a bug in the confirmation")
        return Confirmation(
            title="Archive a file", summary="Archive report.txt.", action_label="Archive"
        )

    @tool(
        name="test.archive",
        title="Archive a file",
        description="Archive a file.",
        permission=Permission.ASK,
        confirmation=confirm,
        timeout_s=3600,
    )
    def archive(args: dict[str, Any], ctx: ToolContext) -> str:
        return "archived"

    model = ScriptedChatModel(responses=[scripted_message("Archiving.", ("test_archive", {}))])
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register(archive)
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "archive it")
        [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert await _summaries(server, conversation_id, call["id"]) == ["Archive report.txt."] * 3

        state["file"] = "gone"
        said = "This can no longer be done as proposed: The file report.txt was removed."
        assert await _summaries(server, conversation_id, call["id"]) == [said] * 3
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        [card] = [c for m in detail["messages"] for c in m["tool_calls"]]
        assert (card["confirmation"]["title"], card["confirmation"]["action_label"]) == (
            "Archive a file",
            "Archive",
        )

        state["file"] = "broken"
        assert await _summaries(server, conversation_id, call["id"]) == ["Archive report.txt."] * 3

        state["file"] = "slow"
        monkeypatch.setattr(current_cards, "READ_TIMEOUT_S", 0.05)
        read = _summaries(server, conversation_id, call["id"])
        assert await asyncio.wait_for(read, 30) == ["Archive report.txt."] * 3


async def test_a_delete_that_did_not_run_promises_no_undo(engine_settings: Settings) -> None:
    """Found in QA: an expired delete card still said "Delete note #2: “buy milk”. It can be
    undone afterwards." though it never ran. The undo sentence follows the summary only while
    the call may still run, or once it ran; an expired or rejected card names the note alone."""
    from datetime import UTC, datetime

    from interlock.engine.expiry import expire_due

    async with live_server(engine_settings) as server:
        engine = server.services.engine
        me = await _me(server)
        for how in ("expired", "rejected"):
            note = insert_note(server.services.db, me, "buy milk")
            conversation = await server.new_conversation()
            call = await _waiting_delete(server, conversation, note)
            assert call["confirmation"]["summary"] == BUY_MILK.format(id=note)
            if how == "expired":
                far = datetime(2100, 1, 1, tzinfo=UTC)
                assert await engine.db.run(expire_due, engine, far) != []
            else:
                response = await server.decide(call["id"], type="reject")
                assert response.status_code == 200, response.text
            await server.idle()
            detail = (await server.client.get(f"/api/conversations/{conversation}")).json()
            [shown] = [
                c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]
            ]
            assert shown["status"] == how
            assert shown["confirmation"]["summary"] == f"Delete note #{note}: “buy milk”."
