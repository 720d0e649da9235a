"""C10 - the browser goes away mid-stream.

The offline model streams its long answer slowly (``offline_token_delay_s``). A client reads five
events and closes the connection. The server must drop that connection's subscription at once
(no buffer keeps growing for a reader that is gone) while the run goes on, finishes and is
stored; a new stream with ``Last-Event-ID: 5`` delivers exactly the rest and the terminal event.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from interlock.models.offline import LONG_TEXT
from interlock.settings import Settings
from interlock.storage import Conversation
from interlock.streaming import EventBus, Subscription
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, iter_frames, terminals

TOKEN_DELAY_S = 0.01  # 344 tokens: the run streams for about 3.5 s
DISCONNECT_DEADLINE_S = 10.0
"""Longest wait for the server to drop a gone reader's subscription, in seconds: generous for a
loaded machine, yet shorter than the 15 s keep-alive interval (a server noticing the reader
only when its next ping fails would miss it) and checked while the run still streams."""


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        offline_token_delay_s=TOKEN_DELAY_S,
    )


class Unsubscribes:
    """Wakes the test whenever the server drops a stream's subscription (no polling)."""

    def __init__(self, bus: EventBus, monkeypatch: pytest.MonkeyPatch) -> None:
        self._bus = bus
        self._changed = asyncio.Event()
        original = bus.unsubscribe

        def unsubscribe(subscription: Subscription) -> None:
            original(subscription)
            self._changed.set()

        monkeypatch.setattr(bus, "unsubscribe", unsubscribe)

    async def until_none(self, conversation_id: str, timeout_s: float) -> None:
        """Wait until ``conversation_id`` has no subscriber left, at most ``timeout_s``."""
        async with asyncio.timeout(timeout_s):
            while self._bus.subscriber_count(conversation_id):
                self._changed.clear()
                await self._changed.wait()


def _active_run(server: LiveServer, conversation_id: str) -> str | None:
    with server.services.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return conversation.active_run_id


def _ids(log: EventLog) -> list[int]:
    return [int(f.id or "-1") for f in log.frames]


def _deltas(frames: list[Any]) -> str:
    return "".join(f.data["delta"] for f in frames if f.event == "message.delta")


async def test_case_c10_client_leaves_mid_stream_and_resumes_with_last_event_id(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with live_server(settings) as server:
        bus = server.services.bus
        unsubscribes = Unsubscribes(bus, monkeypatch)
        conversation_id = await server.new_conversation()
        accepted = await server.say(conversation_id, "write a long answer")
        run_id = accepted["run_id"]

        # Read five events, then close the connection mid-answer.
        first = EventLog()
        async with asyncio.timeout(30):
            async with server.client.stream(
                "GET", f"/api/conversations/{conversation_id}/events"
            ) as response:
                assert response.status_code == 200
                async for _frame in iter_frames(response, first):
                    if len(first.frames) == 5:
                        break
                assert bus.subscriber_count(conversation_id) == 1
        assert _ids(first) == [1, 2, 3, 4, 5]
        assert first.types[:3] == ["run.started", "message.completed", "message.delta"]

        # The server notices at once and stops delivering to the gone reader...
        await unsubscribes.until_none(conversation_id, DISCONNECT_DEADLINE_S)
        # ...while the run itself is still streaming (the reader left mid-answer).
        assert _active_run(server, conversation_id) == run_id

        # Reconnect while the run is still going: replay of 6.. then live, to the terminal.
        rest = await collect(server.client, conversation_id, until=terminals(1), last_event_id="5")
        await unsubscribes.until_none(conversation_id, DISCONNECT_DEADLINE_S)
        ids = _ids(rest)
        assert ids == list(range(6, 6 + len(ids))), ids
        assert rest.types[-1] == "run.completed"
        assert sum(t in {"run.completed", "run.failed", "run.cancelled"} for t in rest.types) == 1
        assert all(f.data["seq"] == int(f.id or "-1") for f in rest.frames)
        assert all(f.data["run_id"] == run_id for f in rest.frames)

        # Nothing lost and nothing repeated: the deltas of both streams are the whole answer.
        assert _deltas(first.frames) + _deltas(rest.frames) == LONG_TEXT

        # The run finished and is stored with the full text.
        await server.idle()
        assert _active_run(server, conversation_id) is None
        response = await server.client.get(f"/api/conversations/{conversation_id}")
        assert response.status_code == 200
        detail = response.json()
        assert detail["status"] == "idle"
        assert detail["last_event_seq"] == ids[-1]
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
        assert detail["messages"][1]["content"] == LONG_TEXT
        stored_answer = rest.of("message.completed")[-1]["message"]
        assert stored_answer["content"] == LONG_TEXT

        # After the run, the same Last-Event-ID replays exactly the same rest from storage.
        again = await collect(server.client, conversation_id, until=terminals(1), last_event_id="5")
        assert [(f.id, f.event, f.data) for f in again.frames] == [
            (f.id, f.event, f.data) for f in rest.frames
        ]
        await unsubscribes.until_none(conversation_id, DISCONNECT_DEADLINE_S)
