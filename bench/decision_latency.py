"""(c) Decision POST → first resumed SSE event latency.

With the conversation's event stream open and a run paused on an ASK call, the clock starts
just before ``POST /api/tool-calls/{id}/decision`` (approve) is handed to the HTTP client and
stops when the stream reader has parsed the first event whose ``seq`` is greater than the last
seq seen before the decision (``tool_call.decided``; ``run.started`` follows it). The POST's
own round trip is reported alongside. The run then completes before the next sample, so
samples never overlap. Conversations are rotated every :data:`ROTATE` samples to keep the
history short (history length is (b)'s subject, not this one's).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass
from typing import Any

from client import EventStream, InterlockClient
from common import ASK_PROMPT, median, percentile

WARMUP_SAMPLES = 10
ROTATE = 50


@dataclass
class LatencyStats:
    samples: int
    first_event_types: dict[str, int]
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    post_p50_ms: float
    post_p95_ms: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def _one_sample(
    client: InterlockClient, stream: EventStream, conversation_id: str, i: int
) -> tuple[float, float, str]:
    await client.say(conversation_id, ASK_PROMPT.format(name=f"d{i}"))
    paused = (await stream.until("run.paused"))[-1]
    call_id = paused.data["pending"][0]
    before = stream.last_seq
    start = time.perf_counter()
    post = asyncio.create_task(client.approve(call_id))
    first = await stream.next()
    while first.seq <= before:  # never expected: the stream is in order and gap-free
        first = await stream.next()
    await post
    post_done = time.perf_counter()
    await stream.until("run.completed")
    return first.at - start, post_done - start, first.type


async def decision_latency(base_url: str, samples: int) -> LatencyStats:
    """Take ``WARMUP_SAMPLES`` + ``samples`` samples; report the last ``samples``."""
    client = InterlockClient(base_url)
    latencies: list[float] = []
    posts: list[float] = []
    types: dict[str, int] = {}
    try:
        i = 0
        while i < WARMUP_SAMPLES + samples:
            conversation_id = await client.new_conversation()
            async with client.events(conversation_id) as stream:
                for _ in range(ROTATE):
                    if i >= WARMUP_SAMPLES + samples:
                        break
                    latency, post, first_type = await _one_sample(
                        client, stream, conversation_id, i
                    )
                    if i >= WARMUP_SAMPLES:
                        latencies.append(latency)
                        posts.append(post)
                        types[first_type] = types.get(first_type, 0) + 1
                    i += 1
    finally:
        await client.aclose()
    return LatencyStats(
        samples=len(latencies),
        first_event_types=types,
        p50_ms=median(latencies) * 1e3,
        p95_ms=percentile(latencies, 95) * 1e3,
        p99_ms=percentile(latencies, 99) * 1e3,
        max_ms=max(latencies) * 1e3,
        post_p50_ms=median(posts) * 1e3,
        post_p95_ms=percentile(posts, 95) * 1e3,
    )
