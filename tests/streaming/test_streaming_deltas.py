"""Streamed text coalescing (``DeltaBuffer``): the first piece goes out at once, but a stream
that is whole before its first write began writes nothing itself: ``drain`` hands all the
text to the answer's own transaction."""

from __future__ import annotations

import asyncio
from typing import Any

from interlock.streaming.deltas import DeltaBuffer


class _Db:
    def __init__(self) -> None:
        self.writes: list[list[str]] = []

    async def run(self, _fn: Any, _conversation_id: str, events: list[Any]) -> None:
        self.writes.append([event.delta for event in events])


class _Bus:
    def __init__(self) -> None:
        self.db = _Db()

    def publish_many(self, *_args: Any) -> None:  # pragma: no cover - run by _Db.run only
        raise AssertionError("written through db.run")


async def test_a_stream_whole_before_the_first_write_leaves_it_to_the_answer() -> None:
    bus = _Bus()
    deltas = DeltaBuffer(bus, "conv_1", "run_1", window_s=0.02)  # type: ignore[arg-type]
    deltas.add("Hello ")
    deltas.add("there.")
    deltas.hold()  # no turn of the loop yet: the write never began
    for _ in range(5):
        await asyncio.sleep(0)
    tail = await deltas.drain()
    assert bus.db.writes == []
    assert [event.delta for event in tail] == ["Hello there."]


async def test_a_write_under_way_keeps_its_text_and_drain_returns_the_rest() -> None:
    bus = _Bus()
    deltas = DeltaBuffer(bus, "conv_1", "run_1", window_s=0.02)  # type: ignore[arg-type]
    deltas.add("Hello ")
    await asyncio.sleep(0)  # the first write begins: the first piece goes out at once
    deltas.add("there.")
    deltas.hold()
    tail = await deltas.drain()
    assert bus.db.writes == [["Hello "]]
    assert [event.delta for event in tail] == ["there."]
