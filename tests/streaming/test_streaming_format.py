"""The wire format of the event stream, read as raw bytes.

Every event is one block of exactly ``id: <seq>``, ``event: <type>`` and ``data: <json>``; the
JSON's ``type`` is the SSE event name and its ``seq`` the id; ids run 1, 2, 3, ... per
conversation; every run starts with ``run.started`` and ends with exactly one terminal event
(paused, completed, cancelled or failed); keep-alive pings are comment blocks without an id.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, terminals

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}
PING_INTERVAL_S = 0.05


async def _seq(server: LiveServer, conversation_id: str) -> int:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return int(detail["last_event_seq"])


async def _run(server: LiveServer, conversation_id: str, text: str) -> EventLog:
    """Send ``text`` and read its events up to the run's terminal."""
    seen = await _seq(server, conversation_id)
    await server.say(conversation_id, text)
    return await collect(
        server.client, conversation_id, until=terminals(1), last_event_id=str(seen)
    )


async def _every_kind_of_run(server: LiveServer, conversation_id: str) -> None:
    """Runs ending paused, completed (after approve, reject, a new message), cancelled, failed."""
    for text, decision in (("add a note alpha", "approve"), ("add a note beta", "reject")):
        log = await _run(server, conversation_id, text)
        assert log.types[-1] == "run.paused"
        seen = await _seq(server, conversation_id)
        call_id = log.of("run.paused")[0]["pending"][0]
        assert (await server.decide(call_id, type=decision)).status_code == 200
        log = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=str(seen)
        )
        assert log.types[-1] == "run.completed"

    # Cancelled while the long answer streams.
    seen = await _seq(server, conversation_id)
    await server.say(conversation_id, "write a long answer")
    await collect(
        server.client,
        conversation_id,
        until=lambda lg: "message.delta" in lg.types,
        last_event_id=str(seen),
    )
    cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
    assert cancelled.json()["cancelled_run_id"]
    await server.idle()

    # Failed: an ALLOW call needs a second model call, past max_steps_per_turn=1.
    log = await _run(server, conversation_id, "what notes do I have?")
    assert log.types[-1] == "run.failed"
    assert log.of("run.failed")[0]["error"]["code"] == "step_limit"

    # Paused, then a new message closes the open call and its own run completes.
    log = await _run(server, conversation_id, "add a note gamma")
    assert log.types[-1] == "run.paused"
    log = await _run(server, conversation_id, "hello")
    assert log.types[-1] == "run.completed"
    await server.idle()


async def _raw_blocks(
    server: LiveServer, conversation_id: str, last_seq: int, pings: int
) -> list[list[str]]:
    """Read the stream from the start as raw bytes, split into blocks of lines.

    Stops once event ``last_seq`` and at least ``pings`` comment blocks have arrived.
    """
    blocks: list[list[str]] = []
    current: list[str] = []

    def done() -> bool:
        ids = [line for block in blocks for line in block if line.startswith("id:")]
        comments = [b for b in blocks if b and all(line.startswith(":") for line in b)]
        return bool(ids) and ids[-1] == f"id: {last_seq}" and len(comments) >= pings

    async with asyncio.timeout(45):
        async with server.client.stream(
            "GET", f"/api/conversations/{conversation_id}/events"
        ) as response:
            assert response.status_code == 200
            buffer = b""
            async for chunk in response.aiter_raw():
                buffer += chunk
                while b"\r\n" in buffer:
                    raw, _, buffer = buffer.partition(b"\r\n")
                    line = raw.decode("utf-8")
                    assert "\r" not in line and "\n" not in line, line
                    if line:
                        current.append(line)
                    elif current:
                        blocks.append(current)
                        current = []
                if done():
                    break
    return blocks


def _fields(block: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in block:
        name, sep, value = line.partition(": ")
        assert sep and name in {"id", "event", "data"}, block
        assert name not in out, f"{name} twice in {block}"
        out[name] = value
    return out


async def test_every_event_is_one_well_formed_block_and_every_run_has_one_terminal(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(
        offline_token_delay_s=0.005, ping_interval_s=PING_INTERVAL_S, max_steps_per_turn=1
    )
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await _every_kind_of_run(server, conversation_id)
        last_seq = await _seq(server, conversation_id)
        blocks = await _raw_blocks(server, conversation_id, last_seq, pings=3)

    comments = [b for b in blocks if all(line.startswith(":") for line in b)]
    events = [_fields(b) for b in blocks if b not in comments]

    # Pings: comment-only blocks, no id (a ping never moves the browser's Last-Event-ID).
    assert len(comments) >= 3
    assert all(block == [": ping"] for block in comments), comments

    # Events: exactly id, event and data; numeric ids 1..N; data matches the frame.
    assert all(set(e) == {"id", "event", "data"} for e in events)
    assert all(re.fullmatch(r"[1-9][0-9]*", e["id"]) for e in events)
    ids = [int(e["id"]) for e in events]
    assert ids == list(range(1, last_seq + 1))
    data: list[dict[str, Any]] = [json.loads(e["data"]) for e in events]
    for event, payload in zip(events, data, strict=True):
        assert payload["type"] == event["event"], event
        assert payload["seq"] == int(event["id"]), event
        assert isinstance(payload["run_id"], str) and payload["run_id"], event

    # Runs: one run.started, then exactly one terminal, per run id.
    runs: dict[str, list[str]] = {}
    for payload in data:
        runs.setdefault(payload["run_id"], []).append(payload["type"])
    for run_id, types in runs.items():
        assert types[0] == "run.started" and types.count("run.started") == 1, (run_id, types)
        assert sum(t in TERMINAL for t in types) == 1, (run_id, types)
    started = [p["run_id"] for p in data if p["type"] == "run.started"]
    endings = [
        next(p["type"] for p in data if p["run_id"] == r and p["type"] in TERMINAL) for r in started
    ]
    assert endings == [
        "run.paused",
        "run.completed",
        "run.paused",
        "run.completed",
        "run.cancelled",
        "run.failed",
        "run.paused",
        "run.completed",
    ]
    # Runs never overlap: a run's terminal comes before the next run.started.
    current: str | None = None
    for payload in data:
        if payload["type"] == "run.started":
            assert current is None, payload
            current = payload["run_id"]
        elif payload["type"] in TERMINAL:
            assert payload["run_id"] == current, payload
            current = None


async def test_events_published_during_a_run_carry_that_runs_id(
    make_settings: Callable[..., Settings],
) -> None:
    """Between a run's ``run.started`` and its terminal, every event names that run.

    Events between runs (a decision, the calls a new message closes) answer the paused run and
    carry its id. Inside the resume run, the approved call's ``tool_call.running`` and
    ``tool_call.completed`` are both part of the resume run.
    """
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "add a note alpha")
        call_id = log.of("run.paused")[0]["pending"][0]
        assert (await server.decide(call_id, type="approve")).status_code == 200
        log = await collect(server.client, conversation_id, until=terminals(2))

    inside: str | None = None
    for frame in log.frames:
        if frame.event == "run.started":
            inside = frame.data["run_id"]
        if inside is not None:
            assert frame.data["run_id"] == inside, (frame.id, frame.event, frame.data["run_id"])
        if frame.event in TERMINAL:
            inside = None
    running = log.of("tool_call.running")[0]
    completed = log.of("tool_call.completed")[0]
    assert completed["run_id"] == running["run_id"]
