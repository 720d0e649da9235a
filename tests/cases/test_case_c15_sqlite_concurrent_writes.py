"""C15 - SQLite under concurrent writes (file-backed SQLite only: this case is about SQLite).

Twenty conversations stream at once while their decisions arrive. There must be no "database is
locked" (every request answers 2xx, every run completes), the database must be in WAL mode with
a busy timeout, and no event, message or tool call may be lost.

When a lock outlives the busy timeout the request must fail cleanly (503 ``database_busy``) with
nothing written; a lock released in time only delays the request. The lock is held and released
from other threads with bounded hold times (C33 checks that the rest of the server keeps
answering meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import Conversation, Decision, Event, Message, Run, ToolCall
from interlock.storage.migrate import upgrade
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, iter_frames

CONVERSATIONS = 20
TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    path = tmp_path / "interlock.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def settings(sqlite_path: Path, tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=f"sqlite:///{sqlite_path}",
        client_dist=tmp_path / "no-client",
        offline_token_delay_s=0.001,
    )


def _count(server: LiveServer, table: Any, conversation_id: str) -> int:
    with server.services.db.session() as session:
        return int(
            session.exec(
                select(func.count())
                .select_from(table)
                .where(table.conversation_id == conversation_id)
            ).one()
        )


# -- twenty conversations at once ----------------------------------------------------------


async def _one_conversation(
    server: LiveServer, index: int, statuses: list[int]
) -> tuple[str, EventLog]:
    """Stream one conversation through a pause and its approval on one connection."""
    client = server.client
    created = await client.post("/api/conversations", json={})
    statuses.append(created.status_code)
    conversation_id = created.json()["id"]
    log = EventLog()
    async with client.stream("GET", f"/api/conversations/{conversation_id}/events") as response:
        statuses.append(response.status_code)
        frames = iter_frames(response, log)
        sent = await client.post(
            f"/api/conversations/{conversation_id}/messages",
            json={"content": f"add a note n{index}"},
        )
        statuses.append(sent.status_code)
        async for frame in frames:
            if frame.event in TERMINAL:
                break
        assert log.types[-1] == "run.paused", log.types
        pending = await client.get(f"/api/conversations/{conversation_id}/pending")
        statuses.append(pending.status_code)
        [call] = pending.json()
        decided = await client.post(
            f"/api/tool-calls/{call['id']}/decision", json={"type": "approve"}
        )
        statuses.append(decided.status_code)
        async for frame in frames:
            if frame.event in TERMINAL:
                break
        await frames.aclose()
    return conversation_id, log


async def test_case_c15_twenty_streams_with_decisions_lose_nothing(
    settings: Settings, server_log: pytest.LogCaptureFixture
) -> None:
    async with live_server(settings) as server:
        with server.services.db.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            busy_timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
            assert busy_timeout == settings.db_lock_timeout_s * 1000 and busy_timeout >= 1000

        statuses: list[int] = []
        async with asyncio.timeout(60):
            results = await asyncio.gather(
                *(_one_conversation(server, i, statuses) for i in range(CONVERSATIONS))
            )
        await server.idle(30)

        assert len(statuses) == CONVERSATIONS * 5
        assert all(200 <= s < 300 for s in statuses), statuses
        for index, (conversation_id, log) in enumerate(results):
            ids = [int(f.id or "-1") for f in log.frames]
            assert ids == list(range(1, len(ids) + 1)), (index, ids)
            assert [f.data["seq"] for f in log.frames] == ids
            assert [t for t in log.types if t in TERMINAL] == ["run.paused", "run.completed"]
            assert log.types.count("run.started") == 2
            assert log.types.count("tool_call.created") == 1
            assert log.types.count("tool_call.interrupted") == 1
            assert log.types.count("tool_call.decided") == 1
            assert log.types.count("tool_call.running") == 1
            assert log.types.count("tool_call.completed") == 1
            roles = [e["message"]["role"] for e in log.of("message.completed")]
            assert roles == ["user", "assistant", "assistant"]
            assert log.of("tool_call.completed")[0]["tool_call"]["status"] == "succeeded"

            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            assert detail["status"] == "idle"
            assert detail["last_event_seq"] == ids[-1]
            assert [m["role"] for m in detail["messages"]] == [
                "user",
                "assistant",
                "tool",
                "assistant",
            ]
            [call] = detail["messages"][1]["tool_calls"]
            assert call["status"] == "succeeded"
            assert call["executed_args"] == {"text": f"n{index}"}
            assert _count(server, Event, conversation_id) == ids[-1]
            assert _count(server, Message, conversation_id) == 4
            assert _count(server, ToolCall, conversation_id) == 1
            assert _count(server, Decision, conversation_id) == 1
            assert _count(server, Run, conversation_id) == 2

        notes = sorted(text for _, text in stored_notes(server.services.db))
        assert notes == sorted(f"n{i}" for i in range(CONVERSATIONS))

    assert "database is locked" not in server_log.text
    assert not [r for r in server_log.records if r.levelno >= logging.ERROR], server_log.text


# -- a lock held by another process -------------------------------------------------------


class WriteLock:
    """A write lock on the database file held by a raw sqlite3 connection.

    ``BEGIN IMMEDIATE`` takes SQLite's single write lock; readers (WAL) are not blocked.
    The connection may be released from another thread.
    """

    def __init__(self, path: Path) -> None:
        self._connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self.held = False

    def acquire(self) -> None:
        self._connection.execute("BEGIN IMMEDIATE")
        self.held = True

    def release(self) -> None:
        with self._lock:
            if self.held:
                self._connection.execute("ROLLBACK")
                self.held = False

    def close(self) -> None:
        self.release()
        self._connection.close()


def _state(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    with server.services.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return {
            "last_event_seq": conversation.last_event_seq,
            "active_run_id": conversation.active_run_id,
            "title": conversation.title,
            "events": _count(server, Event, conversation_id),
            "messages": _count(server, Message, conversation_id),
            "runs": _count(server, Run, conversation_id),
        }


async def test_case_c15_lock_past_the_busy_timeout_fails_cleanly_with_nothing_written(
    settings: Settings, sqlite_path: Path
) -> None:
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        before = _state(server, conversation_id)
        lock = WriteLock(sqlite_path)
        # Held across the whole request; a timer frees it in any case, so nothing hangs.
        guard = threading.Timer(settings.db_lock_timeout_s + 10, lock.release)
        guard.start()
        try:
            lock.acquire()
            started = time.monotonic()
            response = await server.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            waited = time.monotonic() - started
        finally:
            guard.cancel()
            lock.close()

        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "database_busy" and error["message"]
        assert waited >= settings.db_lock_timeout_s * 0.9, waited
        assert _state(server, conversation_id) == before  # nothing half written
        assert (
            await server.client.get(f"/api/conversations/{conversation_id}/pending")
        ).json() == []

        # The conversation is not stuck: the same message goes through once the lock is gone.
        await server.say(conversation_id, "hello")
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
        assert detail["status"] == "idle"


async def test_case_c15_lock_released_in_time_only_delays_the_request(
    settings: Settings, sqlite_path: Path
) -> None:
    hold_s = 1.0
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        before = _state(server, conversation_id)
        lock = WriteLock(sqlite_path)
        release = threading.Timer(hold_s, lock.release)
        try:
            lock.acquire()
            release.start()
            started = time.monotonic()
            response = await server.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            waited = time.monotonic() - started
        finally:
            release.cancel()
            lock.close()

        assert response.status_code == 202, response.text
        assert waited >= hold_s * 0.9, waited  # it really waited for the lock
        await server.idle()
        after = _state(server, conversation_id)
        assert after["active_run_id"] is None
        assert after["messages"] == before["messages"] + 2
        assert after["runs"] == before["runs"] + 1
        assert after["events"] == after["last_event_seq"] > before["last_event_seq"]
        with server.services.db.session() as session:
            seqs = session.exec(
                select(Event.seq)
                .where(Event.conversation_id == conversation_id)
                .order_by(Event.seq)
            ).all()
        assert list(seqs) == list(range(1, after["last_event_seq"] + 1))
