"""Deleting a conversation ends its open streams (on either backend).

Every open stream of the conversation gets what it had not yet received, then one final
``conversation.deleted`` event numbered one past its last, and the response ends; a
reconnect is 404 ``not_found``. The conversation's pending calls are gone with it (no
"No such tool call" later: the approvals list no longer shows them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from interlock.settings import Settings
from interlock.storage import Conversation
from support.listeners import listening_down
from support.live import LiveServer, live_server, two_workers
from support.sse import EventLog, collect, iter_frames, terminals


async def _read_to_end(
    client: httpx.AsyncClient,
    conversation_id: str,
    log: EventLog,
    caught_up: asyncio.Event | None = None,
    last: int = 0,
) -> None:
    """Read the stream until the server ends it; set ``caught_up`` once event ``last`` came."""
    async with client.stream("GET", f"/api/conversations/{conversation_id}/events") as response:
        assert response.status_code == 200, await response.aread()
        async for frame in iter_frames(response, log):
            if caught_up is not None and int(frame.id or 0) == last:
                caught_up.set()


async def _paused(server: LiveServer) -> tuple[str, int]:
    """A conversation whose run waits on a ``notes.add`` card: (id, its last sequence)."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note kept")
    log = await collect(server.client, conversation_id, until=terminals(1))
    assert log.types[-1] == "run.paused", log.types
    await server.idle()
    return conversation_id, int(log.frames[-1].id or 0)


async def test_deleting_a_conversation_ends_every_open_stream_with_conversation_deleted(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id, last = await _paused(server)
        other_id, _ = await _paused(server)
        logs = [EventLog(), EventLog()]
        caught_up = [asyncio.Event(), asyncio.Event()]
        readers = [
            asyncio.create_task(_read_to_end(server.client, conversation_id, log, ready, last))
            for log, ready in zip(logs, caught_up, strict=True)
        ]
        other_log = EventLog()
        other = asyncio.create_task(_read_to_end(server.client, other_id, other_log))
        try:
            async with asyncio.timeout(45):
                await asyncio.gather(*(ready.wait() for ready in caught_up))
            assert server.services.engine.bus.subscriber_count(conversation_id) == 2

            deleted = await server.client.delete(f"/api/conversations/{conversation_id}")
            assert deleted.status_code == 204, deleted.text
            async with asyncio.timeout(45):  # the server ends both responses
                await asyncio.gather(*readers)
            for log in logs:
                assert [int(f.id or 0) for f in log.frames] == list(range(1, last + 2))
                final = log.frames[-1]
                assert final.event == "conversation.deleted"
                assert final.data == {
                    "type": "conversation.deleted",
                    "seq": last + 1,
                    "run_id": None,
                }
            assert server.services.engine.bus.subscriber_count(conversation_id) == 0
            assert not other.done()  # another conversation's stream stays open
            assert server.services.engine.bus.subscriber_count(other_id) == 1

            reconnect = await server.client.get(
                f"/api/conversations/{conversation_id}/events",
                headers={"Last-Event-ID": str(last + 1)},
            )
            assert reconnect.status_code == 404
            assert reconnect.json()["error"]["code"] == "not_found"
            pending = (await server.client.get("/api/approvals")).json()
            waiting = {a["conversation"]["id"] for a in pending}
            assert waiting == {other_id}, pending
        finally:
            for task in (*readers, other):
                task.cancel()
            await asyncio.gather(*readers, other, return_exceptions=True)


async def test_a_delete_while_a_run_is_active_is_refused_and_the_stream_stays_open(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        # Mark a run active as the engine does (no model timing involved).
        with server.services.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            conversation.active_run_id = "run_held"
            session.add(conversation)
            session.commit()
        refused = await server.client.delete(f"/api/conversations/{conversation_id}")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "run_active"
        assert (await server.client.get(f"/api/conversations/{conversation_id}")).status_code == 200
        unknown = await server.client.delete("/api/conversations/conv_unknown")
        assert unknown.status_code == 404
        assert unknown.json()["error"]["code"] == "not_found"


async def test_a_delete_made_while_a_worker_was_not_listening_ends_its_streams_after(
    db_url: str,
    make_settings: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with two_workers(make_settings()) as (first, second):
        conversation_id, last = await _paused(first)
        log, caught_up = EventLog(), asyncio.Event()
        reader = asyncio.create_task(
            _read_to_end(second.client, conversation_id, log, caught_up, last)
        )
        try:
            async with asyncio.timeout(30):
                await caught_up.wait()
            async with listening_down(db_url, monkeypatch, second):
                deleted = await first.client.delete(f"/api/conversations/{conversation_id}")
                assert deleted.status_code == 204, deleted.text
            async with asyncio.timeout(30):  # the second worker ends the response
                await asyncio.shield(reader)
        finally:
            reader.cancel()
        assert log.types[-1] == "conversation.deleted", log.types
        assert [int(f.id or 0) for f in log.frames] == list(range(1, last + 2))
