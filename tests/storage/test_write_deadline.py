"""C33, the tryout: a request must not wait for SQLite's write lock longer than
``INTERLOCK_DB_LOCK_TIMEOUT_S`` in all. It waited for this process's write gate (held by a
writer that was itself waiting out its busy timeout on another process's lock), was handed
the gate just before its own wait ended, then waited a whole busy timeout more: 7.53 s for a
5 s setting, and it succeeded (202) when the lock came free instead of failing at 5 s.

Here the gate is held as that writer would, several kinds of request queue behind it, their
deadlines pass (the writer's clock is moved on, no real waiting), then the gate is handed on:
each must fail at once with 503 ``database_busy`` and nothing written, not wait for the lock
held by the other connection (which the test keeps until they have all answered).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlalchemy.engine import make_url
from sqlmodel import select

from interlock.storage import Conversation, Message, Run
from interlock.storage import writer as writer_module
from interlock.storage.writer import WriteGate, gate_for
from support.live import LiveServer, live_server
from support.locks import write_lock
from support.waits import wait_until

LOCK_TIMEOUT_S = 30.0
"""Long, so a request that waits a whole busy timeout after the gate shows (see ANSWER_S)."""
ANSWER_S = 10.0
"""Far less than LOCK_TIMEOUT_S, far more than failing at once takes."""


def _counts(server: LiveServer) -> dict[str, Any]:
    with server.services.db.session() as session:
        return {
            table.__name__: int(session.exec(select(func.count()).select_from(table)).one())
            for table in (Conversation, Message, Run)
        } | {
            "titles": sorted(c.title or "" for c in session.exec(select(Conversation)).all()),
        }


def _gate_of(database: str) -> WriteGate:
    return gate_for(str(Path(database).resolve()))


@pytest.fixture
def backend() -> str:
    """SQLite only: the write gate and busy timeout are SQLite's."""
    return "sqlite"


async def test_requests_handed_the_gate_past_their_deadline_fail_at_once(
    make_settings: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = make_url(db_url)
    settings = make_settings(db_lock_timeout_s=LOCK_TIMEOUT_S)
    async with live_server(settings) as server:
        client = server.client
        conversation_id = (await client.post("/api/conversations", json={})).json()["id"]
        before = _counts(server)
        gate = _gate_of(url.database or "")
        stuck_writer = object()
        with write_lock(db_url):
            assert gate.acquire(stuck_writer, 1.0)
            try:
                requests = [
                    asyncio.create_task(client.post("/api/conversations", json={})),
                    asyncio.create_task(
                        client.post(
                            f"/api/conversations/{conversation_id}/messages",
                            json={"content": "hello while locked"},
                        )
                    ),
                    asyncio.create_task(
                        client.patch(
                            f"/api/conversations/{conversation_id}", json={"title": "Renamed"}
                        )
                    ),
                ]
                await wait_until(
                    lambda: len(gate._queue) == len(requests), timeout_s=30, what="queued"
                )
                now = writer_module._clock
                monkeypatch.setattr(writer_module, "_clock", lambda: now() + LOCK_TIMEOUT_S)
            finally:
                gate.release(stuck_writer)
            _done, waiting = await asyncio.wait(requests, timeout=ANSWER_S)
            assert not waiting, "a request handed the gate past its deadline waited for the lock"
        responses = [request.result() for request in requests]
        for response in responses:
            assert response.status_code == 503, response.text
            assert response.json()["error"]["code"] == "database_busy"
        assert _counts(server) == before  # nothing of them was written

        monkeypatch.undo()
        # The lock is gone: the same requests go through.
        assert (
            await client.patch(f"/api/conversations/{conversation_id}", json={"title": "Renamed"})
        ).status_code == 200
