"""Live events across server processes on one PostgreSQL database (LISTEN/NOTIFY).

Two real ``interlock serve`` processes share a database. A stream open on one sees, once and
in order, the events the other one writes: a message sent to the first, the decision posted
to the second, the resumed run driven by the second. When a listener's connection is cut,
its streams catch up from storage once it listens again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from interlock.streaming.listener import LISTENER_APPLICATION
from support.processes import ServerProcess, servers, start_server
from support.sse import EventLog, iter_frames

pytestmark = pytest.mark.postgres

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}


class Stream:
    """A stream held open in the background, collecting frames."""

    def __init__(self, server: ServerProcess, conversation_id: str) -> None:
        self.log = EventLog()
        self.changed = asyncio.Condition()
        self._task = asyncio.create_task(self._read(server, conversation_id))

    async def _read(self, server: ServerProcess, conversation_id: str) -> None:
        path = f"/api/conversations/{conversation_id}/events"
        async with server.client.stream("GET", path) as response:
            assert response.status_code == 200
            async for _frame in iter_frames(response, self.log):
                async with self.changed:
                    self.changed.notify_all()

    async def wait_for(self, count_terminals: int, timeout_s: float = 30.0) -> None:
        async with asyncio.timeout(timeout_s), self.changed:
            await self.changed.wait_for(
                lambda: (
                    sum(t in TERMINAL for t in self.log.types) >= count_terminals
                    or self._task.done()
                )
            )
        if self._task.done():
            self._task.result()

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def _stored_ids(server: ServerProcess, conversation_id: str) -> list[int]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return list(range(1, detail["last_event_seq"] + 1))


def _assert_once_in_order(log: EventLog, stored: list[int]) -> None:
    ids = [int(f.id or 0) for f in log.frames]
    assert ids == stored, ids
    assert [f.data["seq"] for f in log.frames] == ids


async def test_a_stream_on_one_worker_sees_the_other_workers_events_once_in_order(
    pg_url: str, tmp_path: Path
) -> None:
    async with servers(pg_url, tmp_path, 2) as (first, second):
        conversation_id = (await first.client.post("/api/conversations", json={})).json()["id"]
        on_first, on_second = Stream(first, conversation_id), Stream(second, conversation_id)
        try:
            sent = await first.client.post(
                f"/api/conversations/{conversation_id}/messages",
                json={"content": "add a note across workers"},
            )
            assert sent.status_code == 202, sent.text
            await on_second.wait_for(1)  # the run on the first worker, seen on the second
            assert on_second.log.types[-1] == "run.paused", on_second.log.types
            [call] = on_second.log.of("tool_call.interrupted")

            decided = await second.client.post(
                f"/api/tool-calls/{call['tool_call']['id']}/decision", json={"type": "approve"}
            )
            assert decided.status_code == 200, decided.text
            await on_first.wait_for(2)  # the resumed run on the second, seen on the first
            await on_second.wait_for(2)
            stored = await _stored_ids(first, conversation_id)
            for stream in (on_first, on_second):
                _assert_once_in_order(stream.log, stored)
                assert [t for t in stream.log.types if t in TERMINAL] == [
                    "run.paused",
                    "run.completed",
                ]
                assert stream.log.types.count("tool_call.completed") == 1
        finally:
            await on_first.close()
            await on_second.close()


async def test_a_listener_that_lost_its_connection_catches_up_from_storage(
    pg_url: str, tmp_path: Path
) -> None:
    async with servers(pg_url, tmp_path, 2) as (first, second):
        conversation_id = (await first.client.post("/api/conversations", json={})).json()["id"]
        watcher = Stream(first, conversation_id)
        try:
            # Cut every listening connection of this database; the workers listen again.
            url = make_url(pg_url)
            admin = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
            try:
                with admin.connect() as connection:
                    cut = connection.execute(
                        text(
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE application_name = :name AND datname = :db"
                        ),
                        {"name": LISTENER_APPLICATION, "db": url.database},
                    ).scalar()
            finally:
                admin.dispose()
            assert cut == 2
            sent = await second.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            assert sent.status_code == 202, sent.text
            await watcher.wait_for(1)
            assert watcher.log.types[-1] == "run.completed", watcher.log.types
            _assert_once_in_order(watcher.log, await _stored_ids(first, conversation_id))
        finally:
            await watcher.close()
        assert "lost its connection" in first.log()


async def test_a_cancel_sent_to_one_worker_stops_the_run_the_other_drives(
    pg_url: str, tmp_path: Path
) -> None:
    async with servers(pg_url, tmp_path, 2, offline_token_delay_s="0.05") as (first, second):
        conversation_id = (await first.client.post("/api/conversations", json={})).json()["id"]
        watcher = Stream(second, conversation_id)
        try:
            sent = await first.client.post(
                f"/api/conversations/{conversation_id}/messages",
                json={"content": "write a long answer"},
            )
            assert sent.status_code == 202, sent.text
            async with asyncio.timeout(30), watcher.changed:
                await watcher.changed.wait_for(lambda: "message.delta" in watcher.log.types)
            cancelled = await second.client.post(f"/api/conversations/{conversation_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            assert cancelled.json()["cancelled_run_id"] == sent.json()["run_id"]
            await watcher.wait_for(1)
            assert watcher.log.types[-1] == "run.cancelled", watcher.log.types
            detail = (await second.client.get(f"/api/conversations/{conversation_id}")).json()
            assert detail["status"] == "idle"
            # The run's own worker ended it: nothing is written after the terminal.
            _assert_once_in_order(watcher.log, await _stored_ids(second, conversation_id))
        finally:
            await watcher.close()


async def test_deleting_on_one_worker_ends_the_streams_open_on_the_other(
    pg_url: str, tmp_path: Path
) -> None:
    async with servers(pg_url, tmp_path, 2) as (first, second):
        conversation_id = (await first.client.post("/api/conversations", json={})).json()["id"]
        on_first, on_second = Stream(first, conversation_id), Stream(second, conversation_id)
        try:
            sent = await first.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "add a note x"}
            )
            assert sent.status_code == 202, sent.text
            await on_second.wait_for(1)
            await on_first.wait_for(1)
            assert on_second.log.types[-1] == "run.paused", on_second.log.types
            last = int(on_second.log.frames[-1].id or 0)

            deleted = await first.client.delete(f"/api/conversations/{conversation_id}")
            assert deleted.status_code == 204, deleted.text
            for stream in (on_first, on_second):
                async with asyncio.timeout(30):  # the server ends the response
                    await asyncio.shield(stream._task)
                assert stream.log.types[-1] == "conversation.deleted", stream.log.types
                assert [int(f.id or 0) for f in stream.log.frames] == list(range(1, last + 2))
            for server in (first, second):
                again = await server.client.get(
                    f"/api/conversations/{conversation_id}/events",
                    headers={"Last-Event-ID": str(last + 1)},
                )
                assert again.status_code == 404
                assert again.json()["error"]["code"] == "not_found"
                assert (await server.client.get("/api/approvals")).json() == []
        finally:
            await on_first.close()
            await on_second.close()


async def test_serve_with_two_workers_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    server, _port = start_server(pg_url, tmp_path, "--workers", "2")
    try:
        await server.wait_ready()
        engine = create_engine(make_url(pg_url), poolclass=NullPool)
        try:
            async with asyncio.timeout(30):
                while True:
                    with engine.connect() as connection:
                        pids = connection.execute(text("SELECT pid FROM workers")).scalars().all()
                    if len(set(pids)) == 2:
                        break
                    await asyncio.sleep(0.2)
        finally:
            engine.dispose()
        assert server.pid not in pids  # the two workers, not the supervisor
        conversation_id = (await server.client.post("/api/conversations", json={})).json()["id"]
        sent = await server.client.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
        )
        assert sent.status_code == 202, sent.text
    finally:
        await server.stop()
