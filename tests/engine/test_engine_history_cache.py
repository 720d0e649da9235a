"""Engine: the incremental history equals a full rebuild from storage, whatever happened.

:class:`~interlock.engine.history.HistoryCache` keeps the model form of each conversation's
settled prefix and reads only newer rows. Every check here compares its answer with
``to_model_messages(*load_history(...))`` built from scratch, after decisions (approve, edit,
reject, respond), a cancel, a new message while calls wait, a second worker's cache that went
stale, rows removed or committed late behind the cache's back, and a deleted conversation.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from sqlalchemy import delete
from sqlmodel import col, select

from interlock.engine.history import HistoryCache, load_history, to_model_messages
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Message, MessageRole
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, terminals

PROMPT = "system prompt"


def _wire(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return [m.model_dump(exclude={"id", "response_metadata", "usage_metadata"}) for m in messages]


def _fresh(server: LiveServer, conversation_id: str) -> list[BaseMessage]:
    with server.services.db.session() as session:
        messages, calls = load_history(session, conversation_id)
    return to_model_messages(messages, calls, server.services.registry, PROMPT)


def _cached(server: LiveServer, cache: HistoryCache, conversation_id: str) -> list[BaseMessage]:
    with server.services.db.session() as session:
        return cache.model_messages(session, conversation_id, PROMPT)


def _same(server: LiveServer, cache: HistoryCache, conversation_id: str) -> list[BaseMessage]:
    cached = _cached(server, cache, conversation_id)
    assert _wire(cached) == _wire(_fresh(server, conversation_id))
    return cached


def _both_refuse_while_paused(
    server: LiveServer, cache: HistoryCache, conversation_id: str
) -> None:
    """While calls wait there is no valid model input (the model is not called then)."""
    with pytest.raises(RuntimeError, match="has no tool message"):
        _fresh(server, conversation_id)
    with pytest.raises(RuntimeError, match="has no tool message"):
        _cached(server, cache, conversation_id)


async def _read(server: LiveServer, conversation_id: str, after: EventLog | None) -> EventLog:
    last = after.frames[-1].id if after is not None and after.frames else None
    log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
    await server.idle()
    return log


def _message_count(server: LiveServer, conversation_id: str) -> int:
    with server.services.db.session() as session:
        return len(
            session.exec(select(Message.id).where(Message.conversation_id == conversation_id)).all()
        )


async def test_engine_history_cache_matches_a_rebuild_through_every_kind_of_decision(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Three.",
                ("notes_add", {"text": "a"}),
                ("notes_add", {"text": "b"}),
                ("notes_add", {"text": "c"}),
            ),
            "Done with those.",
            scripted_message("One more.", ("notes_add", {"text": "d"})),
            scripted_message("Another.", ("notes_add", {"text": "e"})),
            "Fine.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        cache = HistoryCache(server.services.registry)
        conversation_id = await server.new_conversation()
        assert _same(server, cache, conversation_id)[1:] == []

        await server.say(conversation_id, "add three")
        log = await _read(server, conversation_id, None)
        a, b, c = (e["tool_call"]["id"] for e in log.of("tool_call.interrupted"))
        # Paused: the calls have no tool messages yet, so only the user message settles.
        _both_refuse_while_paused(server, cache, conversation_id)
        assert len(cache) == 1 and cache._entries[conversation_id].count == 1

        assert (await server.decide(a, type="edit", args={"text": "a2"})).status_code == 200
        assert (await server.decide(b, type="reject", message="no")).status_code == 200
        assert (await server.decide(c, type="respond", message="did it")).status_code == 200
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.completed", log.types
        done = _same(server, cache, conversation_id)
        assert done[2].tool_calls[0]["args"] == {"text": "a2"}  # type: ignore[attr-defined]

        # A new message while a call waits: the waiting call is cancelled, then a new turn.
        await server.say(conversation_id, "one more")
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.paused", log.types
        _both_refuse_while_paused(server, cache, conversation_id)
        await server.say(conversation_id, "never mind, another")
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.paused", log.types
        _both_refuse_while_paused(server, cache, conversation_id)

        # Cancel the waiting call.
        response = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
        assert response.status_code == 200, response.text
        await server.idle()
        _same(server, cache, conversation_id)
        # Everything is settled now: the cache covers every stored message.
        assert cache._entries[conversation_id].count == _message_count(server, conversation_id)


async def test_engine_history_cache_of_a_second_worker_catches_up_and_survives_removals(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "x"})), "Added.", "Hi."]
    )
    async with live_server(engine_settings, model=model) as server:
        other_worker = HistoryCache(server.services.registry)
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add x")
        log = await _read(server, conversation_id, None)
        (call,) = log.of("tool_call.interrupted")
        _both_refuse_while_paused(server, other_worker, conversation_id)  # saw the pause

        # The server (the first worker) goes on; the other worker's entry is now behind.
        assert (await server.decide(call["tool_call"]["id"], type="approve")).status_code == 200
        log = await _read(server, conversation_id, log)
        await server.say(conversation_id, "hello")
        await _read(server, conversation_id, log)
        _same(server, other_worker, conversation_id)

        # A row vanishes under the cached prefix (as if committed late or removed): rebuilt.
        with server.services.db.session() as session:
            first_user = session.exec(
                select(Message.id)
                .where(Message.conversation_id == conversation_id, Message.role == MessageRole.user)
                .order_by(col(Message.id))
            ).first()
            session.exec(delete(Message).where(col(Message.id) == first_user))  # type: ignore[call-overload]
            session.commit()
        rebuilt = _same(server, other_worker, conversation_id)
        assert "add x" not in [m.content for m in rebuilt]

        # A row committed late under the cached prefix (an id below its last one): rebuilt.
        with server.services.db.session() as session:
            session.add(
                Message(
                    id=first_user,
                    conversation_id=conversation_id,
                    role=MessageRole.user,
                    content="late",
                )
            )
            session.commit()
        rebuilt = _same(server, other_worker, conversation_id)
        assert [m.content for m in rebuilt][1] == "late"

        # The conversation is deleted: the cache answers with an empty history, no stale rows.
        response = await server.client.delete(f"/api/conversations/{conversation_id}")
        assert response.status_code == 204, response.text
        assert _same(server, other_worker, conversation_id)[1:] == []


async def test_engine_history_cache_keeps_the_least_recently_used_conversations(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=["One.", "Two.", "Three."])
    async with live_server(engine_settings, model=model) as server:
        cache = HistoryCache(server.services.registry, max_conversations=2)
        ids = []
        for text in ("one", "two", "three"):
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, text)
            await _read(server, conversation_id, None)
            ids.append(conversation_id)
            _same(server, cache, conversation_id)
        assert list(cache._entries) == ids[1:]
        cache.forget(ids[2])
        assert list(cache._entries) == ids[1:2]
