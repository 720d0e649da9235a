"""(a) Interlock: full HITL cycles per second over HTTP + SSE against a real uvicorn server.

A cycle is: ``POST /messages`` "add a note n<i>" → SSE until ``run.paused`` → ``POST
/decision`` approve → SSE until ``run.completed`` (the ``notes.add`` tool ran and the offline
model answered). Two modes:

* ``fresh``: every cycle creates a conversation and opens its event stream (what a new chat
  costs);
* ``same``: all cycles in one conversation with one event stream kept open (history grows).

The server runs in its own process (see :mod:`server`), so client and server neither share
an event loop nor a GIL. Besides wall time, the CPU time of the server process and of the
client (this process) is measured per cycle: it is what the work costs whatever else the
machine is doing.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Literal

from client import hitl_cycle
from common import WARMUP_CYCLES, median, percentile, process_cpu_seconds
from load_client import LoadClient
from server import ServerHandle

Mode = Literal["fresh", "same"]


@dataclass
class CycleStats:
    """Throughput of sequential cycles, one cycle's duration, and CPU per cycle.

    ``cpu_ms`` is all CPU the cycle cost (Interlock: server + client processes; baseline: its
    one process); ``server_cpu_ms`` is the Interlock server process alone (baseline: same as
    ``cpu_ms``).
    """

    system: str
    mode: Mode
    cycles: int
    seconds: float
    per_s: float
    p50_ms: float
    p95_ms: float
    cpu_ms: float
    server_cpu_ms: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def cycle_stats(
    system: str, mode: Mode, durations: list[float], cpu_s: float, server_cpu_s: float
) -> CycleStats:
    total = sum(durations)
    n = len(durations)
    return CycleStats(
        system=system,
        mode=mode,
        cycles=n,
        seconds=total,
        per_s=n / total if total else float("nan"),
        p50_ms=median(durations) * 1e3,
        p95_ms=percentile(durations, 95) * 1e3,
        cpu_ms=cpu_s / n * 1e3 if n else float("nan"),
        server_cpu_ms=server_cpu_s / n * 1e3 if n else float("nan"),
    )


class CpuMeter:
    """CPU seconds of the server process and of this process between ``start`` and ``stop``."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.server_s = self.client_s = 0.0
        self._server0 = self._client0 = 0.0

    def start(self) -> None:
        self._server0 = process_cpu_seconds(self.server_pid)
        self._client0 = time.process_time()

    def stop(self) -> None:
        self.server_s = process_cpu_seconds(self.server_pid) - self._server0
        self.client_s = time.process_time() - self._client0


async def interlock_cycles(server: ServerHandle, cycles: int, mode: Mode) -> CycleStats:
    """Run ``WARMUP_CYCLES`` + ``cycles`` sequential HITL cycles; time the last ``cycles``."""
    client = LoadClient(server.url)
    meter = CpuMeter(server.pid)
    try:
        if mode == "fresh":
            durations = await _fresh(client, cycles, meter)
        else:
            durations = await _same(client, cycles, meter)
    finally:
        await client.aclose()
    return cycle_stats(
        "interlock", mode, durations, meter.server_s + meter.client_s, meter.server_s
    )


async def _fresh(client: LoadClient, cycles: int, meter: CpuMeter) -> list[float]:
    durations: list[float] = []
    for i in range(WARMUP_CYCLES + cycles):
        if i == WARMUP_CYCLES:
            meter.start()
        start = time.perf_counter()
        conversation_id = await client.new_conversation()
        async with client.events(conversation_id) as stream:
            await hitl_cycle(client, stream, conversation_id, i)
        if i >= WARMUP_CYCLES:
            durations.append(time.perf_counter() - start)
    meter.stop()
    return durations


async def _same(client: LoadClient, cycles: int, meter: CpuMeter) -> list[float]:
    durations: list[float] = []
    conversation_id = await client.new_conversation()
    async with client.events(conversation_id) as stream:
        for i in range(WARMUP_CYCLES + cycles):
            if i == WARMUP_CYCLES:
                meter.start()
            start = time.perf_counter()
            await hitl_cycle(client, stream, conversation_id, i)
            if i >= WARMUP_CYCLES:
                durations.append(time.perf_counter() - start)
        meter.stop()
    return durations
