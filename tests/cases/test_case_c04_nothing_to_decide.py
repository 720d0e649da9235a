"""C04 — decision with nothing to decide (main job).

(a) A decision for a made-up tool call id on a fresh conversation: 404, nothing stored, no
model call. (b) The same decision sent twice: the second gets 409 carrying the recorded
decision, and nothing runs again. Both refusals are logged (``interlock.engine.decisions``,
INFO), with no stream open when they are sent. (c) A run cancelled while its tool runs, then a normal
message: the message starts a new turn that gets an answer; it is never taken as a decision.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from sqlalchemy import func
from sqlmodel import select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Decision, Event, Run
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals

WAIT_S = 60.0  # a bound for a loaded CI machine; passing runs never reach it


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def _count(server: LiveServer, table: Any, conversation_id: str | None = None) -> int:
    with server.services.db.session() as session:
        query = select(func.count()).select_from(table)
        if conversation_id is not None:
            query = query.where(table.conversation_id == conversation_id)
        return int(session.exec(query).one())


async def _all_events(server: LiveServer, conversation_id: str) -> EventLog:
    """Every stored event of the conversation, read from the stream (bounded)."""
    last = (await _detail(server, conversation_id))["last_event_seq"]
    if last == 0:
        return EventLog()
    return await collect(
        server.client,
        conversation_id,
        until=lambda log: int(log.frames[-1].id or 0) >= last,
    )


DECISIONS_LOGS = {"interlock.engine.decisions", "interlock.engine.decision_refusals"}


def _refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name in DECISIONS_LOGS and r.getMessage().startswith("decision refused")
    ]


async def test_case_c04_a_decision_for_a_made_up_id_is_404_and_calls_no_model(
    case_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="interlock.engine")
    model = ScriptedChatModel(responses=[])
    async with live_server(case_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        for body in ({"type": "approve"}, {"type": "reject", "message": "no"}):
            response = await server.decide("call_" + "0" * 32, **body)
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "not_found"
        made_up = "call_" + "0" * 32
        assert _refusals(caplog) == [
            f"decision refused (not_found): tool call {made_up}, user {user}"
            for user in [(await server.client.get("/api/me")).json()["id"]] * 2
        ]

        # Nothing stored, nothing started, the model never called.
        await server.idle()
        assert model.calls_made == 0 and model.received == []
        detail = await _detail(server, conversation_id)
        assert detail["last_event_seq"] == 0
        assert detail["messages"] == []
        assert detail["status"] == "idle"
        assert _count(server, Decision) == 0
        assert _count(server, Run, conversation_id) == 0
        assert _count(server, Event, conversation_id) == 0


async def test_case_c04_b_the_same_decision_twice_gets_409_with_the_recorded_decision(
    case_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="interlock.engine")
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "once"})), "Added."]
    )
    async with live_server(case_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "add a note once")
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]

        first = await server.decide(call["id"], type="approve")
        assert first.status_code == 200, first.text
        recorded = first.json()["decision"]
        assert recorded["type"] == "approve"

        # Sent again at once, while the resume may be under way: 409, the same decision.
        again = await server.decide(call["id"], type="approve")
        assert again.status_code == 409, again.text
        assert again.json()["error"]["code"] == "not_interrupted"
        assert again.json()["error"]["details"]["decision"] == recorded
        assert _refusals(caplog) == [
            f"decision refused (not_interrupted): tool call {call['id']} is "
            f"{again.json()['error']['details']['status']}, decided approve"
        ]

        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed", log.types
        seq_before = (await _detail(server, conversation_id))["last_event_seq"]

        # Sent again after the run ended: 409 with the recorded decision and final status.
        again = await server.decide(call["id"], type="approve")
        assert again.status_code == 409, again.text
        error = again.json()["error"]
        assert error["code"] == "not_interrupted"
        assert error["details"]["decision"] == recorded
        assert error["details"]["status"] == "succeeded"

        await server.idle()
        # The duplicates stored nothing, emitted nothing and called no model.
        assert (await _detail(server, conversation_id))["last_event_seq"] == seq_before
        assert model.calls_made == 2
        assert _count(server, Decision, conversation_id) == 1
        assert [text for _, text in stored_notes(server.services.db)] == ["once"]
        events = await _all_events(server, conversation_id)
        assert len(events.of("tool_call.decided")) == 1
        assert [e["trigger"] for e in events.of("run.started")] == ["message", "resume"]


async def test_case_c04_c_a_message_after_cancelling_a_running_tool_is_a_new_turn(
    case_settings: Settings,
) -> None:
    started = asyncio.Event()
    never = asyncio.Event()  # never set: the tool is running when the run is cancelled

    @tool(
        name="test.block",
        title="Block",
        description="Waits until the test releases it.",
        permission=Permission.ALLOW,
    )
    async def block(args: dict[str, Any], ctx: ToolContext) -> str:
        started.set()
        await never.wait()
        return "released"

    model = ScriptedChatModel(
        responses=[scripted_message("Working.", ("test_block", {})), "Here is your answer."]
    )
    async with live_server(case_settings, model=model) as server:
        server.services.registry.register(block)
        conversation_id = await server.new_conversation()
        first = await server.say(conversation_id, "do the slow thing")
        await asyncio.wait_for(started.wait(), WAIT_S)

        response = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
        assert response.status_code == 200, response.text
        assert response.json() == {"cancelled_run_id": first["run_id"]}
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.cancelled", log.types
        call = log.of("tool_call.running")[0]["tool_call"]
        completed = [e["tool_call"] for e in log.of("tool_call.completed")]
        # Its tool had started: never called cancelled, but stopped while running (it may
        # have happened; never run again).
        assert [(c["id"], c["status"], c["error"]["code"]) for c in completed] == [
            (call["id"], "failed", "outcome_unknown")
        ]

        second = await server.say(conversation_id, "and now answer me")
        assert second["run_id"] != first["run_id"]
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(log.frames[-1].id),
        )
        assert log.types[-1] == "run.completed", log.types
        assert [e["trigger"] for e in log.of("run.started")] == ["message"]
        answer = log.of("message.completed")[-1]["message"]
        assert answer["role"] == "assistant" and answer["content"] == "Here is your answer."
        assert {f.data["run_id"] for f in log.frames} == {second["run_id"]}
        await server.idle()

        # Never taken as a decision.
        assert _count(server, Decision, conversation_id) == 0
        events = await _all_events(server, conversation_id)
        assert events.of("tool_call.decided") == []
        assert [e["run_id"] for e in events.of("run.cancelled")] == [first["run_id"]]

        # The stopped call has its tool message; the new turn's history is valid.
        detail = await _detail(server, conversation_id)
        stored = next(
            c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]
        )
        assert stored["status"] == "failed"
        assert stored["error"]["message"] == (
            "Stopped while running (the run was cancelled): it may have happened. "
            "It was not run again."
        )
        assert stored["decision"] is None
        tool_messages = [m for m in detail["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == [call["id"]]
        assert tool_messages[0]["content"].startswith("Error [outcome_unknown]: Stopped while")
        assert [m["role"] for m in detail["messages"]] == [
            "user",
            "assistant",
            "tool",
            "user",
            "assistant",
        ]
        assert model.calls_made == 2
        history = model.received[1]
        assert isinstance(history[-1], HumanMessage) and history[-1].text == "and now answer me"
        assert isinstance(history[-2], ToolMessage) and history[-2].tool_call_id == call["id"]
