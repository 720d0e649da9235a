"""C34 - a worker dies under load (scale-out, PostgreSQL).

Two ``interlock serve`` processes share a database; ten conversations have their streams open
on the first. Three of them are answering on the first worker, the seven others cycle through
a note, its approval and the answer on the second. The first worker is killed with SIGKILL
mid-answer. The second must take its three runs over within the lease (the dead run ends
``server_restarted``, the reply it was writing is kept as cut off, a new run answers the same
message), no message is lost, no tool runs
twice, and every stream, reconnecting to the second worker with ``Last-Event-ID``, sees every
event once and in order.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from support.processes import ServerProcess, servers
from support.sse import EventLog, iter_frames

pytestmark = pytest.mark.postgres

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}
LEASE_S = 6.0
"""Short enough for a quick takeover, long enough that a live worker starved on a loaded
machine (its heartbeat late by more than 0.6 of the lease) is not taken for dead."""
CONVERSATIONS = 10
ON_DOOMED = 3


class ResumableStream:
    """A conversation's stream; reconnects to another server with ``Last-Event-ID``."""

    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        self.log = EventLog()
        self.changed = asyncio.Condition()
        self.task: asyncio.Task[None] | None = None

    def attach(self, server: ServerProcess) -> None:
        self.task = asyncio.create_task(self._read(server))

    async def _read(self, server: ServerProcess) -> None:
        headers = {"Last-Event-ID": self.log.frames[-1].id or "0"} if self.log.frames else {}
        path = f"/api/conversations/{self.conversation_id}/events"
        try:
            async with server.client.stream("GET", path, headers=headers) as response:
                assert response.status_code == 200
                async for _frame in iter_frames(response, self.log):
                    async with self.changed:
                        self.changed.notify_all()
        except httpx.TransportError:
            pass  # the server died: the test reconnects elsewhere
        finally:
            async with self.changed:
                self.changed.notify_all()

    def terminals(self) -> list[str]:
        return [t for t in self.log.types if t in TERMINAL]

    async def wait(self, predicate: object, timeout_s: float = 60.0) -> None:
        async with asyncio.timeout(timeout_s), self.changed:
            await self.changed.wait_for(predicate)  # type: ignore[arg-type]

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


async def _cycle(server: ServerProcess, stream: ResumableStream, index: int) -> None:
    """A note proposed, approved and answered, all on ``server``."""
    base = f"/api/conversations/{stream.conversation_id}"
    sent = await server.client.post(f"{base}/messages", json={"content": f"add a note c{index}"})
    assert sent.status_code == 202, sent.text
    await stream.wait(lambda: stream.terminals()[-1:] == ["run.paused"])
    [call] = (await server.client.get(f"{base}/pending")).json()
    decided = await server.client.post(
        f"/api/tool-calls/{call['id']}/decision", json={"type": "approve"}
    )
    assert decided.status_code == 200, decided.text
    await stream.wait(lambda: stream.terminals() == ["run.paused", "run.completed"])


def _query(url: str, sql: str) -> list[tuple[object, ...]]:
    engine = create_engine(make_url(url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql)).all()]
    finally:
        engine.dispose()


async def test_case_c34_the_surviving_worker_takes_over_and_no_event_is_lost(
    pg_url: str, tmp_path: Path
) -> None:
    settings = {"run_lease_s": str(LEASE_S), "offline_token_delay_s": "0.02"}
    async with servers(pg_url, tmp_path, 2, **settings) as (doomed, survivor), asyncio.timeout(240):
        ids = [
            (await doomed.client.post("/api/conversations", json={})).json()["id"]
            for _ in range(CONVERSATIONS)
        ]
        streams = [ResumableStream(i) for i in ids]
        for stream in streams:
            stream.attach(doomed)
        try:
            long_runs = []
            for stream in streams[:ON_DOOMED]:
                sent = await doomed.client.post(
                    f"/api/conversations/{stream.conversation_id}/messages",
                    json={"content": "write a long answer"},
                )
                assert sent.status_code == 202, sent.text
                long_runs.append(sent.json()["run_id"])
            cycles = [
                asyncio.create_task(_cycle(survivor, stream, i))
                for i, stream in enumerate(streams[ON_DOOMED:])
            ]
            for stream in streams[:ON_DOOMED]:  # the doomed worker is answering all three
                await stream.wait(lambda s=stream: "message.delta" in s.log.types)
            owners = _query(
                pg_url,
                "SELECT DISTINCT w.pid FROM runs r JOIN workers w ON w.id = r.owner_id "
                f"WHERE r.id IN ({', '.join(repr(r) for r in long_runs)})",
            )
            assert owners == [(doomed.pid,)]

            doomed.kill()
            for stream in streams:  # every stream reconnects to the survivor
                assert stream.task is not None
                await asyncio.wait({stream.task}, timeout=30)
                stream.attach(survivor)

            # Taken over within the lease: the dead run fails, a new run answers.
            for stream in streams[:ON_DOOMED]:
                await stream.wait(lambda s=stream: s.terminals() == ["run.failed", "run.completed"])
            await asyncio.gather(*cycles)
        finally:
            for stream in streams:
                await stream.close()

        for index, stream in enumerate(streams):
            detail = (
                await survivor.client.get(f"/api/conversations/{stream.conversation_id}")
            ).json()
            seen = [int(f.id or 0) for f in stream.log.frames]
            assert seen == list(range(1, detail["last_event_seq"] + 1)), (index, seen)
            assert detail["status"] == "idle"
            roles = [m["role"] for m in detail["messages"]]
            if index < ON_DOOMED:
                [failed] = stream.log.of("run.failed")
                assert failed["run_id"] == long_runs[index]
                assert failed["error"]["code"] == "server_restarted"
                assert [e["trigger"] for e in stream.log.of("run.started")] == [
                    "message",
                    "resume",
                ]
                # The cut reply kept (shown cut off), then the message answered, once.
                assert roles == ["user", "assistant", "assistant"]
                assert [m["run_id"] for m in detail["messages"][1:]] == [
                    long_runs[index],
                    stream.log.of("run.started")[1]["run_id"],
                ]
                assert detail["restarted_runs"] == [long_runs[index]]
            else:
                assert roles == ["user", "assistant", "tool", "assistant"]
                assert stream.log.types.count("tool_call.running") == 1

    notes = sorted(
        str(text_)
        for (text_,) in _query(
            pg_url,
            "SELECT value->>'text' FROM store_entries WHERE namespace = 'notes' AND present",
        )
    )
    assert notes == sorted(f"c{i}" for i in range(CONVERSATIONS - ON_DOOMED))  # each ran once
    assert (doomed.pid,) not in _query(pg_url, "SELECT pid FROM workers")
