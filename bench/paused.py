"""(f) Many paused conversations: what they cost in memory, and how fast a restart answers.

One server process (SQLite file). After a few warm-up conversations its RSS is read; then
``count`` conversations are each left paused on an ASK call (message → ``run.paused``, no
decision), and its RSS is read again: the delta is what paused conversations cost a worker
(a pause is stored rows, so it should cost next to nothing in memory).

Then the server is stopped and started again, and the clock runs from the new process's
spawn to:

* the first ``/api/health`` answer; and
* the first answer of a resumed conversation: stream opened, one of the paused calls
  approved, ``run.completed`` received (the tool ran and the model answered) — the figure
  the target is for.

Beside these wall times it reports the new process's CPU time (user + system, every thread)
at the first answer, and the load average when it was spawned: on a busy machine the wall
time is mostly waiting for a core, and the CPU time is what the start itself costs.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from client import hitl_cycle
from common import ASK_PROMPT, process_cpu_seconds, run_async
from load_client import LoadClient
from server import ServerProcess, rss_bytes

CONCURRENCY = 8
WARMUP = 10


@dataclass
class PausedStats:
    paused: int
    rss_before_mb: float
    rss_after_mb: float
    health_s: float
    first_answer_s: float
    first_answer_cpu_s: float
    """The restarted process's CPU time (user + system) when the first answer arrived."""
    restart_load: float
    """1-minute load average when the restarted process was spawned."""

    @property
    def rss_delta_mb(self) -> float:
        return self.rss_after_mb - self.rss_before_mb

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rss_delta_mb": self.rss_delta_mb}


async def _pause(client: LoadClient, name: str) -> tuple[str, str, int]:
    """Leave a new conversation paused on one ASK call; return its id, the call's, the last seq."""
    conversation_id = await client.new_conversation()
    async with client.events(conversation_id) as stream:
        await client.say(conversation_id, ASK_PROMPT.format(name=name))
        paused = (await stream.until("run.paused"))[-1]
    return conversation_id, str(paused.data["pending"][0]), paused.seq


async def _fill(url: str, count: int) -> list[tuple[str, str, int]]:
    client = LoadClient(url, max_connections=2 * CONCURRENCY)
    gate = asyncio.Semaphore(CONCURRENCY)
    out: list[tuple[str, str, int]] = []

    async def one(i: int) -> None:
        async with gate:
            out.append(await _pause(client, f"p{i}"))

    try:
        await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        await client.aclose()
    return out


async def _warm(url: str) -> None:
    client = LoadClient(url)
    try:
        for i in range(WARMUP):
            conversation_id = await client.new_conversation()
            async with client.events(conversation_id) as stream:
                await hitl_cycle(client, stream, conversation_id, i)
    finally:
        await client.aclose()


async def _first_answer(
    server: ServerProcess, paused: tuple[str, str, int]
) -> tuple[float, float, float]:
    """Seconds from ``server.started_at`` to health, and to a resumed conversation's answer;
    and the server's CPU seconds at that answer."""
    health_at = 0.0
    async with httpx.AsyncClient(base_url=server.url, timeout=1.0) as probe:
        while True:
            assert server.process is not None
            if server.process.poll() is not None:
                raise RuntimeError("the restarted server exited")
            try:
                if (await probe.get("/api/health")).status_code == 200:
                    health_at = time.perf_counter()
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.005)
    client = LoadClient(server.url)
    conversation_id, call_id, last_seq = paused
    try:
        async with client.events(conversation_id, after_seq=last_seq) as stream:
            await client.approve(call_id)
            await stream.until("run.completed")
            answered_at = time.perf_counter()
            cpu_s = process_cpu_seconds(server.process.pid)
    finally:
        await client.aclose()
    return health_at - server.started_at, answered_at - server.started_at, cpu_s


def paused_conversations(database_url: str, count: int) -> PausedStats:
    """Measure RSS around ``count`` paused conversations, then the restart (see module doc)."""
    server = ServerProcess(database_url)
    try:
        handle = server.start()
        run_async(_warm(handle.url))
        before = rss_bytes(handle.pid)
        paused = run_async(_fill(handle.url, count))
        after = rss_bytes(handle.pid)
        server.stop()
        load = os.getloadavg()[0]
        server.start(wait=False)
        health_s, answer_s, cpu_s = run_async(_first_answer(server, paused[0]))
    finally:
        server.stop()
    return PausedStats(
        paused=len(paused),
        rss_before_mb=before / 2**20,
        rss_after_mb=after / 2**20,
        health_s=health_s,
        first_answer_s=answer_s,
        first_answer_cpu_s=cpu_s,
        restart_load=load,
    )
