"""C16 - one database session per request or task.

Fifty concurrent reads and writes hit one conversation (GET detail, GET pending, GET list, POST
message, POST cancel) while its event stream is open and a run streams and stores its answer in
the background. There must be no 5xx, no "concurrent operations are not permitted" or illegal
state error in the server's log, and the stream must keep working: gap-free ids, exactly one
terminal per run, and live events after the storm.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from interlock.settings import Settings
from interlock.storage import Conversation, Run
from interlock.storage.users import get_or_create_local_user
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, iter_frames, terminals

OPERATIONS = 50
TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}
BAD_LOG_MARKERS = (
    "concurrent operations are not permitted",
    "IllegalStateChangeError",
    "illegal state",
    "is already in progress",
    "This session is in",
    "Traceback",
)


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        offline_token_delay_s=0.005,  # a long answer streams for about 2 s
    )


async def _read_forever(response: httpx.Response, log: EventLog, seen: asyncio.Condition) -> None:
    async for _frame in iter_frames(response, log):
        async with seen:
            seen.notify_all()


async def _wait_for(
    log: EventLog, seen: asyncio.Condition, predicate: Any, timeout_s: float = 20.0
) -> None:
    async with asyncio.timeout(timeout_s):
        async with seen:
            await seen.wait_for(lambda: predicate(log))


def _operation(server: LiveServer, conversation_id: str, index: int) -> Any:
    client = server.client
    base = f"/api/conversations/{conversation_id}"
    kind = index % 5
    if kind == 0:
        return "detail", {200}, client.get(base)
    if kind == 1:
        return "pending", {200}, client.get(f"{base}/pending")
    if kind == 2:
        return "list", {200}, client.get("/api/conversations")
    if kind == 3:
        content = "write a long answer" if index % 2 else "hello"
        return "message", {202, 409}, client.post(f"{base}/messages", json={"content": content})
    return "cancel", {200}, client.post(f"{base}/cancel")


async def test_case_c16_fifty_concurrent_requests_while_a_run_streams(
    settings: Settings, server_log: pytest.LogCaptureFixture
) -> None:
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        log = EventLog()
        seen = asyncio.Condition()
        async with server.client.stream(
            "GET", f"/api/conversations/{conversation_id}/events"
        ) as response:
            assert response.status_code == 200
            reader = asyncio.create_task(_read_forever(response, log, seen))
            try:
                await server.say(conversation_id, "write a long answer")
                # The background run is streaming and storing when the storm starts.
                await _wait_for(log, seen, lambda lg: lg.types.count("message.delta") >= 3)

                kinds, expected, requests = zip(
                    *(_operation(server, conversation_id, i) for i in range(OPERATIONS)),
                    strict=True,
                )
                async with asyncio.timeout(60):
                    answers = await asyncio.gather(*requests)
                for kind, allowed, answer in zip(kinds, expected, answers, strict=True):
                    assert answer.status_code < 500, (kind, answer.status_code, answer.text)
                    assert answer.status_code in allowed, (kind, answer.status_code, answer.text)
                    if answer.status_code == 409:
                        assert answer.json()["error"]["code"] == "run_active"
                    if kind == "detail":
                        assert answer.json()["id"] == conversation_id
                    if kind == "pending":
                        assert answer.json() == []  # nothing in this flow asks for a decision
                cancelled = [
                    a.json()["cancelled_run_id"] for a in answers if "cancel" in a.url.path
                ]
                assert any(cancelled), "the storm never met an active run"

                await server.idle(30)
                # The stream still works after the storm: a new run arrives live.
                runs_before = log.types.count("run.started")
                accepted = await server.say(conversation_id, "hello")
                await _wait_for(
                    log,
                    seen,
                    lambda lg: any(
                        f.event in TERMINAL and f.data["run_id"] == accepted["run_id"]
                        for f in lg.frames
                    ),
                )
                assert log.types.count("run.started") == runs_before + 1
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)

        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["status"] == "idle"

    ids = [int(f.id or "-1") for f in log.frames]
    assert ids == list(range(1, len(ids) + 1)), ids
    assert ids[-1] == detail["last_event_seq"]
    assert all(f.data["seq"] == int(f.id or "-1") for f in log.frames)
    started = [f.data["run_id"] for f in log.frames if f.event == "run.started"]
    ended = [f.data["run_id"] for f in log.frames if f.event in TERMINAL]
    assert sorted(started) == sorted(ended), (started, ended)  # exactly one terminal per run
    assert len(set(ended)) == len(ended)
    assert log.types[-1] == "run.completed"
    assert "run.cancelled" in log.types
    # Every stored user message started exactly one run (no message was half accepted).
    users = [m for m in detail["messages"] if m["role"] == "user"]
    assert len(users) == len(started)

    errors = [r for r in server_log.records if r.levelno >= logging.ERROR]
    assert not errors, server_log.text
    assert not any(marker in server_log.text for marker in BAD_LOG_MARKERS), server_log.text


async def test_case_c16_a_cancel_before_the_run_task_starts_still_ends_the_run(
    settings: Settings, server_log: pytest.LogCaptureFixture
) -> None:
    """The storm's worst interleaving, made deterministic: POST message and POST cancel handled
    back to back, before the new run's task has taken its first step.

    The run must still end with exactly one terminal (``run.cancelled``) and release the
    conversation; otherwise every later message answers 409 ``run_active`` for good.
    """
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        user = get_or_create_local_user(server.services.db)
        engine = server.services.engine
        # No await in between: the run's task is created but has not started when cancelled.
        run_id, _message_id = await engine.post_message(user.id, conversation_id, "hello")
        assert await engine.cancel(user.id, conversation_id) == run_id
        await server.idle()

        with server.services.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            run = session.get(Run, run_id)
            assert conversation is not None and run is not None
            assert (conversation.active_run_id, run.status) == (None, "cancelled")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.cancelled"
        response = await server.client.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
        )
        assert response.status_code == 202, response.text
        await server.idle()
    assert not [r for r in server_log.records if r.levelno >= logging.ERROR], server_log.text
