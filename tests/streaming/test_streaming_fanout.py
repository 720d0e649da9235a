"""Two streams on one conversation, open at the same time, see exactly the same sequence.

Stream A opens before the message; stream B joins while the answer is streaming (replay, then
live). Both read through a pause, its approval and the resumed run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from interlock.settings import Settings
from support.live import live_server
from support.sse import EventLog, Frame, iter_frames
from support.waits import wait_until

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}


class Stream:
    """One open event stream, read frame by frame with bounded waits."""

    def __init__(self, response: httpx.Response) -> None:
        self.log = EventLog()
        self._frames: AsyncIterator[Frame] = iter_frames(response, self.log)

    async def until(self, stop: Callable[[EventLog], bool], timeout_s: float = 15.0) -> None:
        async with asyncio.timeout(timeout_s):
            while not stop(self.log):
                await anext(self._frames)


def _terminals(n: int) -> Callable[[EventLog], bool]:
    return lambda log: sum(t in TERMINAL for t in log.types) >= n


def _key(log: EventLog) -> list[tuple[Any, ...]]:
    return [(f.id, f.event, f.data) for f in log.frames]


async def test_two_concurrent_streams_get_identical_sequences(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings(offline_token_delay_s=0.005)) as server:
        conversation_id = await server.new_conversation()
        url = f"/api/conversations/{conversation_id}/events"
        bus = server.services.bus
        async with server.client.stream("GET", url) as response_a:
            assert response_a.status_code == 200
            a = Stream(response_a)
            await server.say(conversation_id, "add a note fan out")
            await a.until(lambda log: "message.delta" in log.types)

            async with server.client.stream("GET", url) as response_b:
                assert response_b.status_code == 200
                b = Stream(response_b)
                await b.until(lambda log: len(log.frames) >= 1)
                assert bus.subscriber_count(conversation_id) == 2

                await a.until(_terminals(1))
                await b.until(_terminals(1))
                assert a.log.types[-1] == "run.paused"
                call_id = a.log.of("run.paused")[0]["pending"][0]
                assert (await server.decide(call_id, type="approve")).status_code == 200

                await a.until(_terminals(2))
                await b.until(_terminals(2))

        assert _key(a.log) == _key(b.log)
        ids = [int(f.id or "-1") for f in a.log.frames]
        assert ids == list(range(1, len(ids) + 1))
        assert a.log.types[-1] == "run.completed"
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["last_event_seq"] == ids[-1]


async def test_streams_release_their_subscription_refused_or_closed(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        bus = server.services.bus
        refused = await server.client.get("/api/conversations/conv_unknown/events")
        assert refused.status_code == 404
        assert bus.subscriber_count("conv_unknown") == 0

        url = f"/api/conversations/{conversation_id}/events"
        async with server.client.stream("GET", url) as response:
            assert response.status_code == 200
            assert bus.subscriber_count(conversation_id) == 1
        await wait_until(
            lambda: bus.subscriber_count(conversation_id) == 0,
            timeout_s=15.0,
            what="the closed stream's subscription released",
        )
