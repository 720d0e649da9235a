"""C33 - one slow database call (scale-out).

Another connection holds a write lock while a person sends a message and a second person's
stream is open. The second person's stream (keep-alive pings, a fresh replay) and
``/api/health`` must keep answering while the message waits for the lock; the waiting request
fails with 503 ``database_busy`` after ``INTERLOCK_DB_LOCK_TIMEOUT_S`` and nothing of it is
written. Once the lock is gone the same message goes through.

The lock: SQLite's one write lock (``BEGIN IMMEDIATE`` on a raw connection); on PostgreSQL a
table lock on ``conversations`` in ``EXCLUSIVE`` mode (reads pass, writes wait). The lock is
held until the blocked request has been answered, with a timer releasing it in any case.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlalchemy import func
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import Conversation, Event, Message, Run
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.locks import write_lock
from support.sse import EventLog, iter_frames

LOCK_TIMEOUT_S = 5.0  # the default INTERLOCK_DB_LOCK_TIMEOUT_S


def _state(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    with server.services.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None

        def count(table: Any) -> int:
            statement = select(func.count()).select_from(table)
            return int(
                session.exec(statement.where(table.conversation_id == conversation_id)).one()
            )

        return {
            "title": conversation.title,
            "last_event_seq": conversation.last_event_seq,
            "active_run_id": conversation.active_run_id,
            "events": count(Event),
            "messages": count(Message),
            "runs": count(Run),
        }


async def test_case_c33_a_held_lock_stalls_only_the_request_that_needs_it(
    make_settings: Any, db_url: str
) -> None:
    settings: Settings = make_settings(db_lock_timeout_s=LOCK_TIMEOUT_S, ping_interval_s=0.1)
    async with live_server(settings) as server:
        _ann, ann_token = create_user(server.services.db, "ann")
        _bob, bob_token = create_user(server.services.db, "bob")
        ann, bob = server.signed_in(ann_token), server.signed_in(bob_token)
        async with ann, bob, asyncio.timeout(60):
            ann_conversation = (await ann.post("/api/conversations", json={})).json()["id"]
            bob_conversation = (await bob.post("/api/conversations", json={})).json()["id"]
            # Bob has a finished exchange, so a fresh stream of his replays stored events.
            await bob.post(
                f"/api/conversations/{bob_conversation}/messages", json={"content": "hi"}
            )
            await server.idle()
            bob_seq = _state(server, bob_conversation)["last_event_seq"]
            before = _state(server, ann_conversation)

            pings: asyncio.Queue[str] = asyncio.Queue()
            path = f"/api/conversations/{bob_conversation}/events"
            async with bob.stream("GET", path, headers={"Last-Event-ID": str(bob_seq)}) as stream:
                assert stream.status_code == 200
                reader = asyncio.create_task(_pings(stream, pings))
                with write_lock(db_url):
                    post = asyncio.create_task(
                        ann.post(
                            f"/api/conversations/{ann_conversation}/messages",
                            json={"content": "hello while locked"},
                        )
                    )
                    # Two keep-alive pings later Ann's request is at the server, waiting.
                    while not pings.empty():
                        pings.get_nowait()
                    for _ in range(2):
                        await pings.get()  # Bob's stream is alive
                    # While it waits for the lock, the server answers everyone else.
                    health = await ann.get("/api/health")
                    assert health.status_code == 200 and health.json()["status"] == "ok"
                    replay = await _replay(bob, bob_conversation)
                    assert replay == list(range(1, bob_seq + 1))
                    assert not post.done(), "the request did not wait for the lock"
                    response = await post
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)

            assert response.status_code == 503, response.text
            error = response.json()["error"]
            assert error["code"] == "database_busy"
            assert "nothing was written" in error["message"]
            assert _state(server, ann_conversation) == before  # nothing half written

            # The lock is gone: the same message goes through and the run completes.
            accepted = await ann.post(
                f"/api/conversations/{ann_conversation}/messages",
                json={"content": "hello while locked"},
            )
            assert accepted.status_code == 202, accepted.text
            await server.idle()
            detail = (await ann.get(f"/api/conversations/{ann_conversation}")).json()
            assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
            assert detail["status"] == "idle"


async def _pings(stream: httpx.Response, pings: asyncio.Queue[str]) -> None:
    """Put every keep-alive comment of ``stream`` into ``pings``."""
    async for line in stream.aiter_lines():
        if line.startswith(":"):
            pings.put_nowait(line)


async def _replay(client: httpx.AsyncClient, conversation_id: str) -> list[int]:
    """Open a fresh stream and return the ids replayed from storage (ends at the last one)."""
    log = EventLog()
    last = (await client.get(f"/api/conversations/{conversation_id}")).json()["last_event_seq"]
    async with client.stream("GET", f"/api/conversations/{conversation_id}/events") as stream:
        assert stream.status_code == 200
        async for frame in iter_frames(stream, log):
            if int(frame.id or 0) >= last:
                break
    return [int(f.id or 0) for f in log.frames]
