"""(e) ``kill -9`` of one of two workers under load, and what the other one does about it.

Two server processes on one PostgreSQL database, ``conversations`` conversations cycling
(message → paused → approve → completed), conversation *k* talking to worker ``k % 2`` only.
The offline model waits ``first_token_delay_s`` before each answer, so most of the time a run
is in flight. After ``before_kill_s`` seconds worker 1 gets SIGKILL. Its conversations then
reconnect their streams to worker 0 with ``Last-Event-ID`` and post there; the load goes on
for ``after_kill_s`` seconds, then every conversation finishes its cycle.

Checked against the database (read directly, after the load):

* lost messages: every message answered 202 is stored;
* duplicate tool runs: no note text (unique per cycle) stored twice;
* stuck runs: no run left ``running``;
* events: each stream (across its reconnect) received every seq 1..``last_event_seq`` once;
* takeover: for every run that was ``running`` on the killed worker, the time from the kill
  to the first event after the kill (seq above the conversation's ``last_event_seq`` read
  right after the kill) reaching the stream — against the lease time.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from client import TERMINAL, Frame
from common import ASK_PROMPT
from load import Delivery
from load_client import ConnectionLost, EventStream, LoadClient
from server import ServerProcess

WAIT_S = 60.0


def plain_url(sqlalchemy_url: str) -> str:
    """``postgresql+psycopg://...`` → ``postgresql://...`` for psycopg."""
    return sqlalchemy_url.replace("postgresql+psycopg://", "postgresql://", 1)


@dataclass
class FailoverStats:
    conversations: int
    lease_s: float
    accepted_messages: int = 0
    lost_messages: int = 0
    duplicate_tool_runs: int = 0
    stuck_runs: int = 0
    cycles_before_kill: int = 0
    cycles_after_kill: int = 0
    runs_on_killed: int = 0
    takeover_s: list[float] = field(default_factory=list)
    not_taken_over: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    delivery: Delivery = field(default_factory=Delivery)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            **{k: v for k, v in self.__dict__.items() if k not in ("delivery", "errors")},
            "takeover_max_s": max(self.takeover_s) if self.takeover_s else float("nan"),
            "delivery": {**self.delivery.__dict__, "ok": self.delivery.ok},
            "errors": len(self.errors),
            "error_samples": self.errors[:5],
        }


class _Conversation:
    """One cycling conversation that moves to the surviving worker when its own dies."""

    def __init__(self, k: int, clients: list[LoadClient], run: _Run) -> None:
        self.k = k
        self.clients = clients
        self.worker = k % 2
        self.run = run
        self.id = ""
        self.stream: EventStream | None = None
        self.received: list[int] = []
        self.seq_at_kill: int | None = None
        self.after_kill_at: float | None = None

    @property
    def client(self) -> LoadClient:
        return self.clients[self.worker]

    async def open(self) -> None:
        self.id = await self.client.new_conversation()
        self.stream = self.client.events(self.id)
        await self.stream.__aenter__()

    async def close(self) -> None:
        if self.stream is not None:
            self.received += self.stream.received
            await self.stream.__aexit__(None, None, None)
            self.stream = None

    async def _move(self) -> None:
        """Reconnect to worker 0, replaying from the last seq consumed."""
        assert self.stream is not None
        last = self.stream.last_seq
        await self.close()
        self.worker = 0
        self.stream = self.client.events(self.id, after_seq=last)
        await self.stream.__aenter__()

    async def next(self) -> Frame:
        while True:
            assert self.stream is not None
            try:
                frame = await self.stream.next()
            except RuntimeError:
                if self.worker == 1 and self.run.killed:
                    await self._move()
                    continue
                raise
            if (
                self.seq_at_kill is not None
                and self.after_kill_at is None
                and frame.seq > self.seq_at_kill
            ):
                self.after_kill_at = frame.at
            return frame

    async def until_terminal(self) -> Frame:
        while True:
            frame = await self.next()
            if frame.type in TERMINAL:
                return frame

    async def post(
        self, path: str, body: dict[str, Any], *, retry: bool = True
    ) -> tuple[int, bytes]:
        """POST to this conversation's worker; return the status and raw body. When the
        worker was killed, move to the other one.

        With ``retry`` the same body is sent again there; without, the move is made and
        :class:`load_client.ConnectionLost` raised, so the caller can send something else.
        """
        while True:
            try:
                return await self.client.send("POST", path, body)
            except ConnectionLost:
                if self.worker == 1 and self.run.killed:
                    await self._move()
                    if retry:
                        continue
                raise

    async def cycle(self, i: int) -> str:
        """One cycle, whatever the kill does to it; return how it ended."""
        attempt = 0
        while True:
            # A message resent after the kill gets a new note text: the first one may have
            # been stored (and its note added) before the worker died.
            text = ASK_PROMPT.format(name=f"e{self.k}-{i}" + "r" * attempt)
            attempt += 1
            try:
                status, raw = await self.post(
                    f"/api/conversations/{self.id}/messages", {"content": text}, retry=False
                )
            except ConnectionLost:
                if self.k % 2 == 1 and self.run.killed:  # moved: send a new text there
                    continue
                raise
            if status == 409:  # a taken-over run is still going: wait for it
                await self.until_terminal()
                continue
            if status != 202:
                raise RuntimeError(f"message refused: {status} {raw[:500]!r}")
            self.run.accepted.append(int(json.loads(raw)["message_id"]))
            break
        end = await self.until_terminal()
        if end.type != "run.paused":
            return end.type
        for call_id in end.data["pending"]:
            status, raw = await self.post(
                f"/api/tool-calls/{call_id}/decision", {"type": "approve"}
            )
            if status not in (200, 409):
                raise RuntimeError(f"decision refused: {status} {raw[:500]!r}")
        return (await self.until_terminal()).type


@dataclass
class _Run:
    killed: bool = False
    stop: bool = False
    accepted: list[int] = field(default_factory=list)


async def failover(
    servers: list[ServerProcess],
    database_url: str,
    *,
    conversations: int,
    lease_s: float,
    before_kill_s: float,
    after_kill_s: float,
) -> FailoverStats:
    """Run the load, kill ``servers[1]``, keep going on ``servers[0]``; check the outcome."""
    stats = FailoverStats(conversations=conversations, lease_s=lease_s)
    clients = [LoadClient(s.url, max_connections=4 * conversations) for s in servers]
    run = _Run()
    convs = [_Conversation(k, clients, run) for k in range(conversations)]

    async def loop(conv: _Conversation) -> None:
        i = 0
        while not run.stop:
            i += 1
            try:
                outcome = await conv.cycle(i)
            except Exception as exc:
                stats.errors.append(f"conversation {conv.k}: {type(exc).__name__}: {exc}")
                return
            stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
            if run.killed:
                stats.cycles_after_kill += 1
            else:
                stats.cycles_before_kill += 1

    try:
        for conv in convs:
            await conv.open()
        tasks = [asyncio.create_task(loop(conv)) for conv in convs]
        await asyncio.sleep(before_kill_s)
        servers[1].kill()
        killed_at = time.perf_counter()
        run.killed = True
        with psycopg.connect(plain_url(database_url)) as db:
            seqs = dict(db.execute("SELECT id, last_event_seq FROM conversations").fetchall())
            running = {
                row[0]
                for row in db.execute("SELECT conversation_id FROM runs WHERE status = 'running'")
            }
        on_killed = [c for c in convs if c.k % 2 == 1 and c.id in running]
        stats.runs_on_killed = len(on_killed)
        for conv in on_killed:
            conv.seq_at_kill = int(seqs[conv.id])
        await asyncio.sleep(after_kill_s)
        run.stop = True
        async with asyncio.timeout(WAIT_S + lease_s * 3):
            await asyncio.gather(*tasks)
        for conv in on_killed:
            if conv.after_kill_at is None:
                stats.not_taken_over += 1
            else:
                stats.takeover_s.append(conv.after_kill_at - killed_at)
    finally:
        for conv in convs:
            await conv.close()
        for client in clients:
            await client.aclose()

    with psycopg.connect(plain_url(database_url)) as db:
        stored = db.execute(
            "SELECT count(*) FROM messages WHERE id = ANY(%s)", (run.accepted,)
        ).fetchone()
        stats.accepted_messages = len(run.accepted)
        stats.lost_messages = len(run.accepted) - int(stored[0] if stored else 0)
        stats.duplicate_tool_runs = sum(
            int(row[0]) - 1
            for row in db.execute(
                "SELECT count(*) FROM store_entries WHERE namespace = 'notes' AND present "
                "GROUP BY value->>'text' HAVING count(*) > 1"
            ).fetchall()
        )
        stuck = db.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()
        stats.stuck_runs = int(stuck[0] if stuck else 0)
        seqs = dict(db.execute("SELECT id, last_event_seq FROM conversations").fetchall())
    for conv in convs:
        stats.delivery.check(conv.received, int(seqs.get(conv.id, 0)))
    return stats
