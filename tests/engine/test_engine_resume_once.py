"""Engine: a decided pause is resumed once, however many resume requests arrive.

Several paths ask for a resume of the same message: the decision itself, the lease sweep
(a decided pause with no run), an expiry. One of them starts the resume run; a request
arriving after that run answered (a busy server delivers it late) must start nothing: no
second answer, and the conversation stays free for the person's next message (it answered
409 ``run_active`` before, or the model answered twice).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Conversation, Message, Run
from support.live import LiveServer, live_server
from support.sse import collect, terminals


def _count(server: LiveServer, table: Any, conversation_id: str) -> int:
    with server.services.db.session() as session:
        query = select(func.count()).select_from(table)
        return int(session.exec(query.where(table.conversation_id == conversation_id)).one())


async def test_engine_a_late_resume_request_after_the_answer_starts_nothing(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "once"})),
            "Added.",
            "You're welcome.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        engine = server.services.engine
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note once")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        last = str(log.frames[-1].id)
        await server.idle()
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        runs, messages = (
            _count(server, Run, conversation_id),
            _count(server, Message, conversation_id),
        )

        with server.services.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            owner_id = conversation.owner_id
        late = await engine.resume_if_decided(conversation_id, call["message_id"], owner_id)
        await server.idle()

        assert late is None
        assert (_count(server, Run, conversation_id), _count(server, Message, conversation_id)) == (
            runs,
            messages,
        )
        assert model.calls_made == 2
        accepted = await server.client.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": "thanks"}
        )
        assert accepted.status_code == 202, accepted.text
        await server.idle()
        assert model.calls_made == 3


def _events(server: LiveServer, conversation_id: str) -> list[tuple[str, str | None]]:
    """Stored ``(type, run_id)`` of the conversation's events, in order."""
    bus = server.services.bus
    return [(stored.type, stored.run_id) for stored in bus.replay(conversation_id, 0)]


async def test_engine_the_last_decision_commits_the_resumed_runs_start_with_it(
    engine_settings: Settings,
) -> None:
    """When the decision's answer arrives, ``run.started`` of the resume is already stored
    right after ``tool_call.decided`` and the run holds the conversation; a decision that
    leaves another call waiting starts nothing."""
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Adding two.", ("notes_add", {"text": "a"}), ("notes_add", {"text": "b"})
            ),
            "Added both.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add notes a and b")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        first, second = (c["tool_call"]["id"] for c in log.of("tool_call.interrupted"))
        await server.idle()
        runs = _count(server, Run, conversation_id)

        response = await server.decide(first, type="approve")
        assert response.status_code == 200, response.text
        assert _events(server, conversation_id)[-1][0] == "tool_call.decided"
        assert _count(server, Run, conversation_id) == runs  # the other call still waits

        response = await server.decide(second, type="approve")
        assert response.status_code == 200, response.text
        # The resumed run may already have stored more events: look right after the decision.
        events = _events(server, conversation_id)
        decided_at = max(i for i, (type_, _) in enumerate(events) if type_ == "tool_call.decided")
        assert len(events) > decided_at + 1, events
        started, run_id = events[decided_at + 1]
        assert started == "run.started", events
        with server.services.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            run = session.get(Run, run_id)
            assert conversation is not None and run is not None
            assert run.trigger == "resume"
            assert conversation.active_run_id in (run_id, None)  # None once it completed

        last = str(log.frames[-1].id)
        log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
        assert log.types[-1] == "run.completed", log.types
        assert log.types.count("run.started") == 1
        await server.idle()
        assert _count(server, Run, conversation_id) == runs + 1
        assert model.calls_made == 2
