"""Turning AI actions off closes the waiting write calls and starts the resumed runs in one
commit: a conversation never reads idle in between (it read ``idle``, nothing pending, no
answer yet, for a few milliseconds, then ``running``; a message sent then got 409
``run_active`` although the detail said idle)."""

from __future__ import annotations

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.held_starts import assert_running_not_idle, run_starts_held
from support.live import live_server

from .conftest import notes, turn, until_terminal


async def test_switching_off_never_shows_a_waiting_conversation_idle_before_its_run(
    perm_settings: Settings,
) -> None:
    two_adds = scripted_message(
        "Adding both.", ("notes_add", {"text": "milk"}), ("notes_add", {"text": "bread"})
    )
    model = ScriptedChatModel(responses=[two_adds, two_adds, "Cancelled.", "Cancelled."])
    async with live_server(perm_settings, model=model) as server:
        conversations = [await server.new_conversation() for _ in range(2)]
        seen = {}
        for conversation_id in conversations:
            log = await turn(server, conversation_id, "add milk and bread")
            assert len(log.of("tool_call.interrupted")) == 2
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            seen[conversation_id] = detail["last_event_seq"]

        with run_starts_held(server.services.engine):
            response = await server.client.put("/api/actions/assistant", json={"on": False})
            assert response.status_code == 200, response.text
            assert len(response.json()["cancelled_calls"]) == 4
            for conversation_id in conversations:
                await assert_running_not_idle(server.client, conversation_id)
        for conversation_id in conversations:
            log = await until_terminal(server, conversation_id, seen[conversation_id])
            assert log.types[-1] == "run.completed", log.types
        await server.idle()
        for conversation_id in conversations:
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            assert detail["status"] == "idle"
            assert detail["messages"][-1]["content"] == "Cancelled."
        assert notes(server) == []
