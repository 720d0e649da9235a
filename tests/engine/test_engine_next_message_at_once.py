"""Engine: the person's next message, sent the moment a terminal event arrives, is accepted.

A person who types fast after an answer must never be refused: once ``run.completed`` (or
``run.paused``, ``run.failed``, ``run.cancelled``) is on the stream, the conversation is free
(the terminal event and the release are one transaction, and delivered after its commit). The
client here posts the next message as soon as it parses the terminal event, cycle after cycle,
through pauses (every other one approved, the others answered by a new message at once) and
answers; on PostgreSQL also with the stream on one worker and the messages and decisions sent
to another; and after cancelled and failed runs. (The 409 seen in the benchmark came from a takeover run started by a sweep that
read a late heartbeat after the run had completed: ``test_engine_takeover_fence``.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import LiveServer, live_server, two_workers
from support.sse import TERMINAL, EventLog, iter_frames

CYCLES = 12
WAIT_S = 60.0  # a bound for a loaded CI machine; passing runs never reach it


def _model() -> ScriptedChatModel:
    responses: list[Any] = []
    for i in range(CYCLES):
        responses += [scripted_message("Adding.", ("notes_add", {"text": f"n{i}"})), "Done."]
    return ScriptedChatModel(responses=responses + ["Bye."] * 4)


async def _cycles(stream_on: LiveServer, post_to: LiveServer, conversation_id: str) -> list[str]:
    """Post a message at every terminal event; return the terminal types seen."""
    log = EventLog()
    seen: list[str] = []
    pauses = 0
    path = f"/api/conversations/{conversation_id}"
    async with asyncio.timeout(120), stream_on.client.stream("GET", f"{path}/events") as response:
        assert response.status_code == 200
        first = await post_to.client.post(f"{path}/messages", json={"content": "add a note"})
        assert first.status_code == 202, first.text
        async for frame in iter_frames(response, log):
            if frame.event not in TERMINAL:
                continue
            seen.append(str(frame.event))
            if len(seen) == 2 * CYCLES:
                break
            if frame.event == "run.paused":
                pauses += 1
                if pauses % 2:  # every other pause is approved; the others get a new message
                    [call_id] = frame.data["pending"]
                    decided = await post_to.client.post(
                        f"/api/tool-calls/{call_id}/decision", json={"type": "approve"}
                    )
                    assert decided.status_code == 200, decided.text
                    continue
            sent = await post_to.client.post(
                f"{path}/messages", json={"content": f"next {len(seen)}"}
            )
            assert sent.status_code == 202, (seen, sent.text)
    return seen


async def test_engine_the_next_message_at_the_terminal_event_is_accepted(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings, model=_model()) as server:
        conversation_id = await server.new_conversation()
        seen = await _cycles(server, server, conversation_id)
        assert seen == ["run.paused", "run.completed"] * CYCLES
        await server.idle()


@pytest.mark.postgres
async def test_engine_the_next_message_to_another_worker_is_accepted(make_settings: Any) -> None:
    async with two_workers(make_settings(), model=_model) as (a, b):
        conversation_id = await a.new_conversation()
        seen = await _cycles(a, b, conversation_id)
        assert seen == ["run.paused", "run.completed"] * CYCLES
        await a.idle()
        await b.idle()


async def test_engine_the_next_message_after_a_failed_or_cancelled_run_is_accepted(
    engine_settings: Settings,
) -> None:
    rounds = 4
    # Each long answer streams for a while (so the cancel finds it running); once the script
    # is used up, every run fails (the model raises): run.failed.
    model = ScriptedChatModel(responses=["word " * 400] * rounds, token_delay_s=0.005)
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        path = f"/api/conversations/{conversation_id}"
        log = EventLog()
        seen: list[str] = []
        async with (
            asyncio.timeout(120),
            server.client.stream("GET", f"{path}/events") as response,
        ):
            assert response.status_code == 200
            sent = await server.client.post(f"{path}/messages", json={"content": "go"})
            assert sent.status_code == 202, sent.text
            cancelled_this_run = False
            async for frame in iter_frames(response, log):
                if frame.event == "message.delta" and not cancelled_this_run:
                    cancelled_this_run = True
                    cancel = await server.client.post(f"{path}/cancel")
                    assert cancel.status_code in (200, 202), cancel.text
                    continue
                if frame.event not in TERMINAL:
                    continue
                seen.append(str(frame.event))
                if len(seen) == 2 * rounds:
                    break
                cancelled_this_run = False
                sent = await server.client.post(f"{path}/messages", json={"content": "again"})
                assert sent.status_code == 202, (seen, sent.text)
        assert seen[:rounds] == ["run.cancelled"] * rounds, seen
        assert seen[rounds:] == ["run.failed"] * rounds, seen
        await server.idle()
