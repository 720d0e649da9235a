"""``Last-Event-ID`` replay: a valid id replays exactly what was missed, anything else all of it.

Rules (docs/architecture.md, ``interlock.streaming.sse``): an id that names a stored event (0 to
the last sequence) replays every event after it, then goes live; an unknown, future, negative
or garbage id replays from sequence 1 - never a silent skip.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.sse import EventLog, Frame, collect, terminals


def _key(frames: list[Frame]) -> list[tuple[Any, ...]]:
    return [(f.id, f.event, f.data) for f in frames]


async def _conversation_with_two_runs(server: LiveServer) -> tuple[str, list[Frame]]:
    """A conversation paused on a note and approved: two runs, every event stored."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note replay me")
    paused = await collect(server.client, conversation_id, until=terminals(1))
    call_id = paused.of("run.paused")[0]["pending"][0]
    assert (await server.decide(call_id, type="approve")).status_code == 200
    full = await collect(server.client, conversation_id, until=terminals(2))
    await server.idle()
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert [int(f.id or "-1") for f in full.frames] == list(range(1, detail["last_event_seq"] + 1))
    return conversation_id, full.frames


def _through(seq: int) -> Callable[[EventLog], bool]:
    """Stop condition: the event ``seq`` (the conversation's last) has arrived."""
    return lambda log: bool(log.frames) and log.frames[-1].id == str(seq)


async def test_unknown_future_negative_and_garbage_ids_replay_from_the_start(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id, full = await _conversation_with_two_runs(server)
        last = len(full)
        bad_ids = [
            str(last + 1),  # the next one, not yet stored
            str(last + 1000),  # far in the future
            "9" * 40,  # beyond any integer column
            "-1",
            "-5",
            "abc",
            "",
            "1.5",
            "1e3",
            "0x3",
            "3abc",
            "null",
        ]
        for raw in bad_ids:
            log = await collect(
                server.client, conversation_id, until=_through(last), last_event_id=raw
            )
            assert _key(log.frames) == _key(full), f"Last-Event-ID {raw!r}"


async def test_ids_that_only_python_reads_as_numbers_replay_from_the_start(
    make_settings: Callable[..., Settings],
) -> None:
    """The server sends plain digits; ``int()`` also reads ``1_0`` (10) and ``+1`` (1)."""
    async with live_server(make_settings()) as server:
        conversation_id, full = await _conversation_with_two_runs(server)
        last = len(full)
        assert last >= 11  # so that "1_0" names a stored event when read as 10
        for raw in ("1_0", "+1", "0_1"):
            log = await collect(
                server.client, conversation_id, until=_through(last), last_event_id=raw
            )
            assert _key(log.frames) == _key(full), f"Last-Event-ID {raw!r}"


async def test_a_valid_id_replays_exactly_the_missed_events(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings(ping_interval_s=0.05)) as server:
        conversation_id, full = await _conversation_with_two_runs(server)
        last = len(full)
        for seen in range(last):
            log = await collect(
                server.client, conversation_id, until=_through(last), last_event_id=str(seen)
            )
            assert _key(log.frames) == _key(full[seen:]), f"Last-Event-ID {seen}"

        # The last id itself: nothing to replay, then the next run arrives live from last + 1.
        # The first ping shows the stream is open and waiting (subscribed) before the message.
        frames: list[tuple[int, str]] = []
        async with asyncio.timeout(45):
            async with server.client.stream(
                "GET",
                f"/api/conversations/{conversation_id}/events",
                headers={"Last-Event-ID": str(last)},
            ) as response:
                lines = response.aiter_lines()
                async for line in lines:
                    assert not line.startswith(("id:", "event:", "data:")), line
                    if line.startswith(":"):
                        break
                await server.say(conversation_id, "hello")
                event = ""
                async for line in lines:
                    if line.startswith("event: "):
                        event = line.removeprefix("event: ")
                    elif line.startswith("id: "):
                        frames.append((int(line.removeprefix("id: ")), ""))
                    elif line == "" and frames and not frames[-1][1]:
                        frames[-1] = (frames[-1][0], event)
                        if event == "run.completed":
                            break
        ids = [seq for seq, _ in frames]
        assert ids == list(range(last + 1, last + 1 + len(ids)))
        assert frames[0][1] == "run.started" and frames[-1][1] == "run.completed"
