"""Engine: a run's database work never runs on the event loop.

* A run mid-answer whose next write waits for a lock held by another connection: while it
  waits, ``/api/health`` answers and another person's open stream keeps getting keep-alive
  pings; once the lock is gone the run finishes its answer (before, the write blocked the
  loop until the lock timeout and the run failed with ``database_busy``).
* Every step of a cycle (model step, tool step, decision, reject, cancel) opens its database
  sessions on the database threads, never on the event loop thread.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import live_server
from support.locks import write_lock
from support.sse import EventLog, collect, iter_frames

ANSWER = "one two three four five"


class _Gate:
    """Holds a streamed answer after its first chunk until :meth:`open`."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.passed = asyncio.Event()
        """Set once the engine took the second chunk and asked for the third."""


def _gated_model(gate: _Gate) -> ScriptedChatModel:
    class GatedModel(ScriptedChatModel):
        async def _astream(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: AsyncCallbackManagerForLLMRun | None = None,
            **kwargs: Any,
        ) -> AsyncIterator[ChatGenerationChunk]:
            position = 0
            async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
                yield chunk
                position += 1
                if position == 1:
                    await gate.opened.wait()
                elif position == 2:
                    gate.passed.set()

    return GatedModel(responses=[ANSWER])


async def _pings(stream: httpx.Response, pings: asyncio.Queue[str]) -> None:
    async for line in stream.aiter_lines():
        if line.startswith(":"):
            pings.put_nowait(line)


async def test_engine_a_run_waiting_for_a_lock_mid_answer_stalls_nobody_else(
    make_settings: Any, db_url: str
) -> None:
    gate = _Gate()
    settings: Settings = make_settings(ping_interval_s=0.1, delta_window_s=0)
    async with live_server(settings, model=_gated_model(gate)) as server:
        _ann, ann_token = create_user(server.services.db, "ann")
        _bob, bob_token = create_user(server.services.db, "bob")
        ann, bob = server.signed_in(ann_token), server.signed_in(bob_token)
        async with ann, bob, asyncio.timeout(60):
            ann_conversation = (await ann.post("/api/conversations", json={})).json()["id"]
            bob_conversation = (await bob.post("/api/conversations", json={})).json()["id"]
            ann_log = EventLog()
            pings: asyncio.Queue[str] = asyncio.Queue()
            ann_path = f"/api/conversations/{ann_conversation}/events"
            bob_path = f"/api/conversations/{bob_conversation}/events"
            async with (
                ann.stream("GET", ann_path) as ann_stream,
                bob.stream("GET", bob_path) as bob_stream,
            ):
                reader = asyncio.create_task(_pings(bob_stream, pings))
                frames = iter_frames(ann_stream, ann_log)
                sent = await ann.post(
                    f"/api/conversations/{ann_conversation}/messages", json={"content": "hi"}
                )
                assert sent.status_code == 202, sent.text
                async for frame in frames:
                    if frame.event == "message.delta":
                        break  # the run is mid-answer, held after its first chunk
                with write_lock(db_url):
                    gate.opened.set()
                    # The run took its next chunk: its write now waits for the lock.
                    await gate.passed.wait()
                    health = await ann.get("/api/health")
                    assert health.status_code == 200 and health.json()["status"] == "ok"
                    while not pings.empty():
                        pings.get_nowait()
                    for _ in range(2):
                        await pings.get()  # Bob's stream is alive
                    assert not any(t in ("run.completed", "run.failed") for t in ann_log.types)
                    assert server.services.engine.local_runs(), "the run is still going"
                async for frame in frames:
                    if frame.event in ("run.completed", "run.failed"):
                        break
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
            assert ann_log.types[-1] == "run.completed", ann_log.of("run.failed")
            streamed = "".join(d["delta"] for d in ann_log.of("message.delta"))
            assert streamed.split() == ANSWER.split()
            await server.idle()


class _LoopSessions(AbstractContextManager[None]):
    """Records each ``Database.session`` opened by Interlock's code on an event loop thread."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.db = db
        self.monkeypatch = monkeypatch
        self.found: list[str] = []

    def __enter__(self) -> None:
        original = self.db.session

        def session() -> Any:
            caller = sys._getframe(1)
            module = str(caller.f_globals.get("__name__", ""))
            if module.startswith("interlock.") and _on_loop_thread():
                self.found.append(f"{module}:{caller.f_lineno} {caller.f_code.co_name}")
            return original()

        self.monkeypatch.setattr(self.db, "session", session)

    def __exit__(self, *exc: object) -> None:
        self.monkeypatch.undo()


def _on_loop_thread() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def test_engine_no_step_of_a_cycle_opens_a_session_on_the_event_loop(
    make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "milk"})),
            "Added.",
            scripted_message("Adding.", ("notes_add", {"text": "eggs"})),
            "Not added.",
            scripted_message("Adding.", ("notes_add", {"text": "tea"})),
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        watch = _LoopSessions(server.services.db, monkeypatch)
        with watch:
            conversation_id = await server.new_conversation()
            for text, decision in (("milk", "approve"), ("eggs", "reject")):
                await server.say(conversation_id, f"add a note {text}")
                log = await collect(server.client, conversation_id, until=_paused_call(text))
                call = log.of("tool_call.interrupted")[-1]["tool_call"]
                await server.idle()
                response = await server.decide(call["id"], type=decision)
                assert response.status_code == 200, response.text
                await server.idle()
            await server.say(conversation_id, "add a note tea")
            await server.idle()
            cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            await server.idle()
        assert watch.found == []
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert [c["status"] for m in detail["messages"] for c in m.get("tool_calls") or []] == [
            "succeeded",
            "rejected",
            "cancelled",
        ]


def _paused_call(text: str) -> Any:
    def seen(log: EventLog) -> bool:
        return any(
            e["tool_call"]["proposed_args"] == {"text": text}
            for e in log.of("tool_call.interrupted")
        )

    return seen
