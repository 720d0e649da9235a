"""The main job end to end over HTTP + SSE: ASK calls pause, decisions resume, history keeps what ran."""

from __future__ import annotations

import asyncio
from typing import Any

from support.live import LiveServer
from support.notes import stored_notes
from support.sse import collect, terminals


async def _pause(server: LiveServer, conversation_id: str, text: str) -> dict[str, Any]:
    """Send ``text``, read its events to ``run.paused`` and return the one interrupted call."""
    seen = (await _detail(server, conversation_id))["last_event_seq"]
    await server.say(conversation_id, text)
    log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=str(seen))
    assert log.types[-1] == "run.paused", log.types
    interrupted = log.of("tool_call.interrupted")
    assert len(interrupted) == 1
    return dict(interrupted[0]["tool_call"])


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200
    return dict(response.json())


def _notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


async def test_choice_card_click_resumes_and_answer_uses_the_choice(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    call = await _pause(server, conversation_id, "Give me ideas for a name for my cat")
    assert call["name"] == "suggestions" and call["status"] == "interrupted"
    option = call["proposed_args"]["options"][1]

    response = await server.decide(
        call["id"], type="edit", args={**call["proposed_args"], "option": option}
    )
    assert response.status_code == 200, response.text
    log = await collect(server.client, conversation_id, until=terminals(2))
    assert log.types[-1] == "run.completed"
    answer = log.of("message.completed")[-1]["message"]
    assert answer["role"] == "assistant" and option in answer["content"]

    detail = await _detail(server, conversation_id)
    stored = next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"])
    assert stored["status"] == "succeeded"
    assert stored["executed_args"]["option"] == option
    assert "option" not in stored["decision"]["proposed_args"]
    assert stored["decision"]["type"] == "edit"


async def test_invalid_edit_keeps_the_pause_and_a_valid_edit_runs_the_edited_args(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    call = await _pause(server, conversation_id, "add a note buy milk")
    assert call["name"] == "notes.add"

    for bad in ({"text": 5}, {}, {"text": "x", "extra": 1}):
        response = await server.decide(call["id"], type="edit", args=bad)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "invalid_args"
        assert response.json()["error"]["details"]["errors"]
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [p["id"] for p in pending] == [call["id"]]

    response = await server.decide(call["id"], type="edit", args={"text": "buy oat milk"})
    assert response.status_code == 200
    await server.idle()
    assert _notes(server) == ["buy oat milk"]
    detail = await _detail(server, conversation_id)
    stored = next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"])
    assert stored["proposed_args"] == {"text": "buy milk"}
    assert stored["executed_args"] == {"text": "buy oat milk"}
    assert stored["decision"]["proposed_args"] == {"text": "buy milk"}


async def test_reject_with_reason_runs_nothing_and_the_reply_acknowledges(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    add = await _pause(server, conversation_id, "add a note keep me")
    assert (await server.decide(add["id"], type="approve")).status_code == 200
    await collect(server.client, conversation_id, until=terminals(2))
    note_id = (await _detail(server, conversation_id))["messages"][1]["tool_calls"][0][
        "result_data"
    ]["id"]

    delete = await _pause(server, conversation_id, f"delete note {note_id}")
    response = await server.decide(delete["id"], type="reject", message="I still need it")
    assert response.status_code == 200
    log = await collect(server.client, conversation_id, until=terminals(4))
    assert log.types[-1] == "run.completed"
    assert _notes(server) == ["keep me"]
    completed = [
        e["tool_call"]
        for e in log.of("tool_call.completed")
        if e["tool_call"]["id"] == delete["id"]
    ]
    assert completed[0]["status"] == "rejected"
    assert "I still need it" in log.of("message.completed")[-1]["message"]["content"]


async def test_decisions_that_cannot_apply_get_404_and_409_with_the_recorded_decision(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    response = await server.decide("call_" + "0" * 32, type="approve")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"

    call = await _pause(server, conversation_id, "add a note twice")
    assert (await server.decide(call["id"], type="approve")).status_code == 200
    again = await server.decide(call["id"], type="reject")
    assert again.status_code == 409
    error = again.json()["error"]
    assert error["code"] == "not_interrupted"
    assert error["details"]["decision"]["type"] == "approve"
    await server.idle()
    assert _notes(server) == ["twice"]


async def test_messages_are_checked_before_anything_is_stored(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    url = f"/api/conversations/{conversation_id}/messages"
    for body in (
        {"content": ""},
        {"content": "   "},
        {"content": " \u200b\ufeff\u202e\n\u2060 "},  # nothing visible
        {"content": "x" * (32 * 1024 + 1)},
        {"content": "hi", "x": 1},
        {},
    ):
        response = await server.client.post(url, json=body)
        assert response.status_code == 422, (body, response.text)
        assert "code" in response.json()["error"]
    response = await server.client.post(
        url, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert (await _detail(server, conversation_id))["messages"] == []


async def test_racing_cancels_of_a_pause_close_each_call_once_and_never_fail(
    server: LiveServer,
) -> None:
    """Cancels run on database threads: ten at once on a pause close the call exactly once."""
    conversation_id = await server.new_conversation()
    call = await _pause(server, conversation_id, "add a note buy milk")
    url = f"/api/conversations/{conversation_id}/cancel"
    answers = await asyncio.gather(*(server.client.post(url) for _ in range(10)))

    assert [a.status_code for a in answers] == [200] * 10, [a.text for a in answers]
    cancelled = [a.json()["cancelled_run_id"] for a in answers if a.json()["cancelled_run_id"]]
    assert len(cancelled) == 1, cancelled
    detail = await _detail(server, conversation_id)
    tool_messages = [m for m in detail["messages"] if m["tool_call_id"] == call["id"]]
    assert len(tool_messages) == 1
    stored = next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"])
    assert stored["status"] == "cancelled"
    last = detail["last_event_seq"]
    log = await collect(
        server.client,
        conversation_id,
        until=lambda lg: bool(lg.frames) and int(lg.frames[-1].id or 0) >= last,
    )
    completed = [e for e in log.of("tool_call.completed") if e["tool_call"]["id"] == call["id"]]
    assert len(completed) == 1
