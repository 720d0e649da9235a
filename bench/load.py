"""Concurrent load for (c) and (d): idle event streams plus conversations cycling at once.

A load is ``active`` conversations, each cycling HITL cycles (message → ``run.paused`` →
approve → ``run.completed``) as fast as it can for ``duration_s`` seconds, while ``idle``
other conversations only hold an event stream open. With several servers (workers on one
PostgreSQL database), conversation *k* holds its stream on server ``k % n`` and, with
``cross``, posts its messages and decisions to server ``(k + 1) % n``: every event it sees
was produced by the other worker.

Measured per cycle:

* decision POST round trip;
* decision → first event on the stream (``tool_call.decided``; with ``cross`` it was written
  by the other worker);
* decision → the resumed run's first event (``run.started`` with ``trigger: resume``);
* that first event's arrival minus the decision POST's answer (``cross``: how long the
  committed decision took to reach the stream on the other worker, less the time the
  deciding worker took to write its answer; negative when the event came first);

and for the whole load: cycles completed within the window, errors, the CPU of the server
processes, of PostgreSQL, of this load generator and of the rest of the machine
(:mod:`cpu_shares`), and the delivery check: after the load, every active
conversation's stream must have received each seq from 1 to the conversation's
``last_event_seq`` exactly once and in order, and every idle stream must still be open.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from client import TERMINAL
from common import ASK_PROMPT, percentile, process_cpu_seconds
from cpu_shares import CpuMeter, Shares
from load_client import EventStream, LoadClient

SETUP_CONCURRENCY = 20
SETTLE_TIMEOUT_S = 60.0
IDLE_SETTLE_S = 0.5


@dataclass
class Delivery:
    """What the streams received compared with what the servers stored."""

    conversations: int = 0
    events: int = 0
    missing: int = 0
    duplicates: int = 0
    out_of_order: int = 0

    @property
    def ok(self) -> bool:
        return self.conversations > 0 and not (self.missing or self.duplicates or self.out_of_order)

    def check(self, received: list[int], last_seq: int) -> None:
        """Add one conversation: ``received`` seqs against its stored ``last_seq``."""
        self.conversations += 1
        self.events += last_seq
        unique = set(received)
        self.missing += len(set(range(1, last_seq + 1)) - unique)
        self.duplicates += len(received) - len(unique)
        self.out_of_order += sum(1 for a, b in pairwise(received) if b <= a)


@dataclass
class LoadStats:
    """Figures of one load run (times in ms, CPU in s)."""

    label: str
    servers: int
    active: int
    idle: int
    seconds: float
    cycles: int
    errors: list[str] = field(default_factory=list)
    post_ms: list[float] = field(default_factory=list)
    first_event_ms: list[float] = field(default_factory=list)
    resume_ms: list[float] = field(default_factory=list)
    cross_ms: list[float] = field(default_factory=list)
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    idle_window_s: float = 0.0
    idle_server_cpu_s: float = float("nan")
    shares: Shares = field(default_factory=Shares)
    delivery: Delivery = field(default_factory=Delivery)
    idle_closed: int = 0

    @property
    def per_s(self) -> float:
        return self.cycles / self.seconds if self.seconds else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "servers": self.servers,
            "active": self.active,
            "idle": self.idle,
            "seconds": self.seconds,
            "cycles": self.cycles,
            "per_s": self.per_s,
            "errors": len(self.errors),
            "error_samples": self.errors[:5],
            "post_p50_ms": percentile(self.post_ms, 50),
            "post_p95_ms": percentile(self.post_ms, 95),
            "first_event_p50_ms": percentile(self.first_event_ms, 50),
            "first_event_p95_ms": percentile(self.first_event_ms, 95),
            "resume_p50_ms": percentile(self.resume_ms, 50),
            "resume_p95_ms": percentile(self.resume_ms, 95),
            "cross_p50_ms": percentile(self.cross_ms, 50),
            "cross_p95_ms": percentile(self.cross_ms, 95),
            "samples": len(self.post_ms),
            "server_cpu_s": self.server_cpu_s,
            "client_cpu_s": self.client_cpu_s,
            "cpu_shares": self.shares.as_dict(),
            "server_cpu_ms_per_cycle": self.server_cpu_s / self.cycles * 1e3
            if self.cycles
            else float("nan"),
            "idle_window_s": self.idle_window_s,
            "idle_server_cores": self.idle_server_cpu_s / self.idle_window_s
            if self.idle_window_s
            else float("nan"),
            "delivery": {**self.delivery.__dict__, "ok": self.delivery.ok},
            "idle_closed": self.idle_closed,
        }


@dataclass
class CycleTimes:
    post_s: float
    first_event_s: float
    resume_s: float


async def timed_cycle(
    post: LoadClient, stream: EventStream, conversation_id: str, name: str
) -> CycleTimes:
    """One HITL cycle with the decision's latencies measured.

    Raises:
        RuntimeError: The run did not go message → paused → approve → tool ran → completed.
    """
    await post.say(conversation_id, ASK_PROMPT.format(name=name))
    paused = (await stream.until("run.paused"))[-1]
    pending = paused.data["pending"]
    if len(pending) != 1:
        raise RuntimeError(f"expected one pending call, got {pending}")
    posted_at = 0.0

    async def approve() -> None:
        nonlocal posted_at
        await post.approve(pending[0])
        posted_at = time.perf_counter()

    start = time.perf_counter()
    task = asyncio.create_task(approve())
    first_at = resume_at = 0.0
    succeeded = False
    try:
        while True:
            frame = await stream.next()
            first_at = first_at or frame.at
            if frame.type == "run.started" and frame.data.get("trigger") == "resume":
                resume_at = resume_at or frame.at
            if frame.type == "tool_call.completed":
                succeeded = frame.data["tool_call"]["status"] == "succeeded"
            if frame.type == "run.completed":
                break
            if frame.type in TERMINAL:
                raise RuntimeError(f"the resumed run ended with {frame.type}: {frame.data}")
    finally:
        await task
    if not succeeded or not resume_at:
        raise RuntimeError("the approved call did not run in a resumed run")
    return CycleTimes(posted_at - start, first_at - start, resume_at - start)


async def run_load(
    label: str,
    urls: list[str],
    pids: list[int],
    *,
    active: int,
    idle: int,
    duration_s: float,
    cross: bool = False,
    database: str | None = None,
    idle_window_s: float = 0.0,
) -> LoadStats:
    """Hold ``idle`` streams open and cycle ``active`` conversations for ``duration_s``.

    Every active conversation cycles from the start; its first cycle is a warm-up. The
    window opens when the last warm-up is done: cycles ending inside it are counted, cycles
    starting inside it give the latency samples. Cycles in flight at the end finish (and are
    checked) but are not counted. ``database``: the PostgreSQL database of the servers (its
    backends' CPU is read), None on SQLite. ``idle_window_s``: before any conversation
    cycles, the servers' CPU is read over this many seconds with only the idle streams open
    (what holding them costs: keep-alive pings, timers).
    """
    n = len(urls)
    clients = [LoadClient(url, max_connections=2 * active + 16) for url in urls]
    stats = LoadStats(label, n, active, idle, duration_s, 0)
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    idle_streams: list[EventStream] = []

    async def open_idle(j: int) -> None:
        async with gate:
            client = clients[j % n]
            conversation_id = await client.new_conversation()
            stream = client.events(conversation_id)
            await stream.__aenter__()
            idle_streams.append(stream)

    # No synchronized start: every conversation cycles on its own from its warm-up on, and
    # the window opens once the last warm-up is done, so it sees the steady state.
    warmed = 0
    all_warm = asyncio.Event()
    stop = False
    window = [0.0, 0.0]

    def in_window(at: float) -> bool:
        return all_warm.is_set() and window[0] <= at <= window[1]

    async def worker(k: int) -> None:
        nonlocal warmed
        stream_client = clients[k % n]
        post_client = clients[(k + 1) % n] if cross and n > 1 else stream_client
        async with gate:
            conversation_id = await post_client.new_conversation()
        i = 0
        async with stream_client.events(conversation_id) as stream:
            try:
                while not stop:
                    i += 1
                    started = time.perf_counter()
                    try:
                        times = await timed_cycle(
                            post_client, stream, conversation_id, f"{label}-{k}-{i}"
                        )
                    except Exception as exc:
                        stats.errors.append(f"{type(exc).__name__}: {exc}")
                        return
                    ended = time.perf_counter()
                    if i == 1:
                        warmed += 1
                        if warmed == active:
                            all_warm.set()
                        continue
                    if in_window(ended):
                        stats.cycles += 1
                    if in_window(started):
                        stats.post_ms.append(times.post_s * 1e3)
                        stats.first_event_ms.append(times.first_event_s * 1e3)
                        stats.resume_ms.append(times.resume_s * 1e3)
                        stats.cross_ms.append((times.first_event_s - times.post_s) * 1e3)
            finally:
                if i == 1 and warmed < active:  # failed in its warm-up: do not hold the window
                    warmed += 1
                    if warmed == active:
                        all_warm.set()
            detail = await post_client.conversation(conversation_id)
            stats.delivery.check(stream.received, int(detail["last_event_seq"]))

    try:
        await asyncio.gather(*(open_idle(j) for j in range(idle)))
        if idle_window_s > 0:
            await asyncio.sleep(IDLE_SETTLE_S)  # the last streams' opening work is done
            before = sum(process_cpu_seconds(pid) for pid in pids)
            started = time.perf_counter()
            await asyncio.sleep(idle_window_s)
            stats.idle_window_s = time.perf_counter() - started
            stats.idle_server_cpu_s = sum(process_cpu_seconds(pid) for pid in pids) - before
        tasks = [asyncio.create_task(worker(k)) for k in range(active)]
        async with asyncio.timeout(SETTLE_TIMEOUT_S * 2):
            await all_warm.wait()
        meter = CpuMeter(pids, database)
        meter.start()
        window[0] = time.perf_counter()
        window[1] = window[0] + duration_s
        await asyncio.sleep(duration_s)
        stats.shares = meter.stop()
        stats.server_cpu_s, stats.client_cpu_s = stats.shares.servers_s, stats.shares.generator_s
        stop = True
        async with asyncio.timeout(SETTLE_TIMEOUT_S):
            await asyncio.gather(*tasks)
        stats.idle_closed = sum(1 for s in idle_streams if not s.open)
    finally:
        for stream in idle_streams:
            await stream.__aexit__(None, None, None)
        for client in clients:
            await client.aclose()
    return stats
