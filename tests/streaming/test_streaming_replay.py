"""``Last-Event-ID`` replay: a valid id replays exactly what was missed.

Rules (docs/architecture.md, ``interlock.streaming.sse``): an id that names a stored event (0 to
the last sequence) replays every event after it, then goes live; one past the last sequence
replays nothing (live events follow); one that is not plain digits is refused (400
``invalid_last_event_id``); an absent or empty one replays from sequence 1.
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


async def test_malformed_ids_are_refused_and_ids_past_the_end_replay_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    """Was: every one of these replayed from event 1, so a client showed its history twice."""
    async with live_server(make_settings(ping_interval_s=0.05)) as server:
        conversation_id, full = await _conversation_with_two_runs(server)
        last = len(full)
        path = f"/api/conversations/{conversation_id}/events"
        # "1_0" and "+1" are numbers to Python's int(), not to the server.
        for raw in (
            "-1",
            "-5",
            "abc",
            "1.5",
            "1e3",
            "0x3",
            "3abc",
            "null",
            "1_0",
            "+1",
            "\u0663".encode(),
        ):
            refused = await server.client.get(path, headers={"Last-Event-ID": raw})
            assert refused.status_code == 400, (raw, refused.text)
            error = refused.json()["error"]
            assert error["code"] == "invalid_last_event_id", raw
            assert error["message"] == (
                "Last-Event-ID must be the number of an event this stream sent "
                "(digits only, such as 42)."
            )
        # Past the end: nothing replayed; the next run arrives live from last + 1. 5,000
        # digits are more than Python's int() takes (ValueError): the stream once answered 500.
        for raw in (
            str(last + 1),
            str(last + 5000),
            "99999999999999999999999",
            "9" * 40,
            "9" * 5000,
        ):
            frames: list[tuple[int, str]] = []
            async with asyncio.timeout(45):
                async with server.client.stream(
                    "GET", path, headers={"Last-Event-ID": raw}
                ) as response:
                    assert response.status_code == 200, raw
                    seen = last
                    lines = response.aiter_lines()
                    async for line in lines:
                        assert not line.startswith(("id:", "event:", "data:")), (raw, line)
                        if line.startswith(":"):
                            break
                    await server.say(conversation_id, "hello")
                    async for line in lines:
                        if line.startswith("id: "):
                            frames.append((int(line.removeprefix("id: ")), ""))
                        elif line == "event: run.completed":
                            break
            await server.idle()
            assert [seq for seq, _ in frames] == list(range(seen + 1, seen + 1 + len(frames)))
            assert frames, raw
            last = frames[-1][0]
        # Absent or empty: everything from event 1.
        log = await collect(server.client, conversation_id, until=_through(last), last_event_id="")
        assert [int(f.id or 0) for f in log.frames] == list(range(1, last + 1))


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
