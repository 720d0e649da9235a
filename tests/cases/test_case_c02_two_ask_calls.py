"""C02 — two ASK calls in one model message (main job).

The model proposes ``notes.add(text="a")`` and ``notes.delete(id=<b>)`` in one message. The
first is approved, the second rejected: once as two decisions in call order, once with the
reject sent first. Each decision must land on its own call, note "a" is added, note b is kept,
each call gets one tool message with its own ``tool_call_id``, and after the first decision the
other call is still listed as pending.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.notes import insert_note, stored_notes
from support.sse import collect, terminals


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _pending_ids(server: LiveServer, conversation_id: str) -> list[str]:
    response = await server.client.get(f"/api/conversations/{conversation_id}/pending")
    assert response.status_code == 200, response.text
    return [c["id"] for c in response.json()]


def _notes(server: LiveServer) -> dict[int, str]:
    return dict(stored_notes(server.services.db))


async def _create_note_b(settings: Settings) -> int:
    """Create note "b" for the implied local user, whose id GET /api/me tells."""
    async with live_server(settings) as setup:
        me = await setup.client.get("/api/me")
        assert me.status_code == 200, me.text
        return insert_note(setup.services.db, me.json()["id"], "b")


@pytest.mark.parametrize("order", ["approve_then_reject", "reject_then_approve"])
async def test_case_c02_two_ask_calls_in_one_message_each_decision_lands_on_its_own_call(
    case_settings: Settings, order: str
) -> None:
    note_b = await _create_note_b(case_settings)
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "I will add a and delete b.",
                ("notes_add", {"text": "a"}),
                ("notes_delete", {"id": note_b}),
            ),
            "Added a; b stays.",
        ]
    )
    async with live_server(case_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note a and delete note b")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types

        # Two distinct pending calls, in call order.
        interrupted = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert [c["name"] for c in interrupted] == ["notes.add", "notes.delete"]
        add, delete = interrupted
        assert add["id"] != delete["id"]
        assert add["proposed_args"] == {"text": "a"}
        assert delete["proposed_args"] == {"id": note_b}
        assert log.of("run.paused")[0]["pending"] == [add["id"], delete["id"]]
        assert await _pending_ids(server, conversation_id) == [add["id"], delete["id"]]

        steps = [(add, "approve"), (delete, "reject")]
        if order == "reject_then_approve":
            steps.reverse()
        (first, first_type), (second, second_type) = steps

        body: dict[str, Any] = {"type": first_type}
        if first_type == "reject":
            body["message"] = "keep b"
        response = await server.decide(first["id"], **body)
        assert response.status_code == 200, response.text
        assert response.json()["id"] == first["id"]
        assert response.json()["decision"]["type"] == first_type

        # The other call is still pending; nothing ran and the run did not resume.
        await server.idle()
        assert await _pending_ids(server, conversation_id) == [second["id"]]
        assert _notes(server) == {note_b: "b"}
        assert model.calls_made == 1
        detail = await _detail(server, conversation_id)
        calls = {c["id"]: c for m in detail["messages"] for c in m["tool_calls"]}
        assert calls[first["id"]]["decision"]["type"] == first_type
        assert calls[second["id"]]["decision"] is None
        assert calls[second["id"]]["status"] == "interrupted"
        assert detail["status"] == "paused"

        body = {"type": second_type}
        if second_type == "reject":
            body["message"] = "keep b"
        response = await server.decide(second["id"], **body)
        assert response.status_code == 200, response.text
        assert response.json()["id"] == second["id"]
        assert response.json()["decision"]["type"] == second_type

        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()

        # Note "a" added once, note b kept.
        notes = _notes(server)
        assert sorted(notes.values()) == ["a", "b"]
        assert notes[note_b] == "b"

        # Each decision on its own call, each outcome on its own call.
        detail = await _detail(server, conversation_id)
        calls = {c["id"]: c for m in detail["messages"] for c in m["tool_calls"]}
        assert calls[add["id"]]["status"] == "succeeded"
        assert calls[add["id"]]["decision"]["type"] == "approve"
        assert calls[add["id"]]["executed_args"] == {"text": "a"}
        assert calls[delete["id"]]["status"] == "rejected"
        assert calls[delete["id"]]["decision"]["type"] == "reject"
        assert calls[delete["id"]]["decision"]["message"] == "keep b"
        assert calls[delete["id"]]["executed_args"] is None

        # Two tool messages with the right tool_call_ids, right after the assistant message.
        roles = [m["role"] for m in detail["messages"]]
        assert roles == ["user", "assistant", "tool", "tool", "assistant"]
        tool_messages = [m for m in detail["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == [add["id"], delete["id"]]
        assert tool_messages[0]["tool_status"] == "success"
        assert tool_messages[0]["content"].startswith("Added note #")
        assert tool_messages[1]["tool_status"] == "error"
        assert tool_messages[1]["content"].startswith("Rejected by the person: keep b.")

        # The model saw one tool message per call id, in call order.
        assert model.calls_made == 2
        history = model.received[1]
        ai_index = next(i for i, m in enumerate(history) if isinstance(m, AIMessage))
        ai = history[ai_index]
        assert isinstance(ai, AIMessage)
        assert [c["id"] for c in ai.tool_calls] == [add["id"], delete["id"]]
        following = history[ai_index + 1 : ai_index + 3]
        assert all(isinstance(m, ToolMessage) for m in following)
        assert [m.tool_call_id for m in following if isinstance(m, ToolMessage)] == [
            add["id"],
            delete["id"],
        ]
