"""C11 - stream tests in any order.

Two sync tests each build their own app, serve it with uvicorn in a background thread (its own
event loop) and read the event stream with a sync ``httpx.Client``; one async test does the same
with ``support.live.live_server`` in the test's loop. pytest-randomly shuffles them (check with
``pytest -p randomly --randomly-seed=N``); every order must pass, with no "bound to a different
event loop" error, and no server may outlive its test.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

from interlock.api.app import create_app
from interlock.api.services import Services
from interlock.settings import Settings
from support.live import live_server
from support.notes import stored_notes
from support.sse import collect, terminals

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}
READ_TIMEOUT_S = 45.0
STOP_TIMEOUT_S = 15.0
LOOP_ERRORS = ("different event loop", "attached to a different loop", "Event loop is closed")


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings()


@pytest.fixture(autouse=True)
def _no_loop_errors(server_log: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail on any logged error, above all an event-loop mix-up, in the servers of this test."""
    yield
    errors = [r for r in server_log.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    assert not any(marker in server_log.text for marker in LOOP_ERRORS), server_log.text


# -- a server in a background thread, read with a sync client -----------------------------


@dataclass
class ThreadedServer:
    url: str
    client: httpx.Client
    services: Services


@contextmanager
def threaded_server(settings: Settings) -> Iterator[ThreadedServer]:
    """Serve a new app on a loopback socket from a thread running its own event loop.

    The socket is bound and listening before the thread starts, so requests simply wait in the
    backlog until the server accepts them: no polling for start-up.
    """
    services = Services.build(settings)
    app = create_app(settings, services)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=STOP_TIMEOUT_S
    )
    server = uvicorn.Server(config)
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # reported to the test thread below
            failure.append(exc)

    thread = threading.Thread(target=serve, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=READ_TIMEOUT_S) as client:
            yield ThreadedServer(url=url, client=client, services=services)
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        sock.close()
        services.db.dispose()
        assert not thread.is_alive(), "the threaded server did not stop"
        assert not failure, failure


@dataclass
class SyncFrame:
    id: str | None
    event: str | None
    data: Any


class SyncReader:
    """Parses SSE frames from one sync response; ``frames`` keeps every frame read so far."""

    def __init__(self, response: httpx.Response) -> None:
        self._lines = response.iter_lines()
        self.frames: list[SyncFrame] = []

    def until_terminals(self, count: int, deadline: float) -> None:
        """Read until ``count`` terminal events in total.

        Each read is bounded by the client's read timeout, the whole loop by ``deadline``.
        """
        fields: dict[str, str] = {}
        while sum(f.event in TERMINAL for f in self.frames) < count:
            assert time.monotonic() < deadline, "stream read past its deadline"
            line = next(self._lines, None)
            assert line is not None, "the stream ended before the terminal events"
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
                continue
            if fields:
                data = json.loads(fields.get("data", "null"))
                self.frames.append(SyncFrame(fields.get("id"), fields.get("event"), data))
                fields = {}


def _check_contiguous(frames: list[SyncFrame]) -> None:
    ids = [int(f.id or "-1") for f in frames]
    assert ids == list(range(1, len(ids) + 1)), ids
    assert all(f.data["type"] == f.event and f.data["seq"] == int(f.id or "-1") for f in frames)


# -- the three tests -----------------------------------------------------------------------


def test_case_c11_sync_client_streams_a_plain_answer(settings: Settings) -> None:
    with threaded_server(settings) as live:
        conversation_id = live.client.post("/api/conversations", json={}).json()["id"]
        with live.client.stream("GET", f"/api/conversations/{conversation_id}/events") as response:
            assert response.status_code == 200
            reader = SyncReader(response)
            sent = live.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            assert sent.status_code == 202, sent.text
            reader.until_terminals(1, time.monotonic() + READ_TIMEOUT_S)
        frames = reader.frames
        _check_contiguous(frames)
        assert frames[-1].event == "run.completed"
        answer = [f.data["message"] for f in frames if f.event == "message.completed"][-1]
        assert answer["role"] == "assistant" and answer["content"]


def test_case_c11_sync_client_streams_a_pause_and_its_approval(settings: Settings) -> None:
    with threaded_server(settings) as live:
        conversation_id = live.client.post("/api/conversations", json={}).json()["id"]
        deadline = time.monotonic() + READ_TIMEOUT_S
        with live.client.stream("GET", f"/api/conversations/{conversation_id}/events") as response:
            assert response.status_code == 200
            reader = SyncReader(response)
            frames = reader.frames
            sent = live.client.post(
                f"/api/conversations/{conversation_id}/messages",
                json={"content": "add a note from a thread"},
            )
            assert sent.status_code == 202, sent.text
            reader.until_terminals(1, deadline)
            assert frames[-1].event == "run.paused"
            call_id = frames[-1].data["pending"][0]
            decided = live.client.post(
                f"/api/tool-calls/{call_id}/decision", json={"type": "approve"}
            )
            assert decided.status_code == 200, decided.text
            reader.until_terminals(2, deadline)
        _check_contiguous(frames)
        assert frames[-1].event == "run.completed"
        assert [text for _, text in stored_notes(live.services.db)] == ["from a thread"]


async def test_case_c11_async_client_streams_a_pause_and_its_approval(settings: Settings) -> None:
    async with live_server(settings) as live:
        conversation_id = await live.new_conversation()
        await live.say(conversation_id, "add a note from the test loop")
        log = await collect(live.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused"
        call_id = log.of("run.paused")[0]["pending"][0]
        decided = await live.decide(call_id, type="approve")
        assert decided.status_code == 200, decided.text
        log = await collect(live.client, conversation_id, until=terminals(2))
        ids = [int(f.id or "-1") for f in log.frames]
        assert ids == list(range(1, len(ids) + 1))
        assert log.types[-1] == "run.completed"
        await live.idle()
