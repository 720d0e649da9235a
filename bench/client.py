"""A small HTTP + SSE client for Interlock, with arrival timestamps on every event."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from common import ASK_PROMPT

TERMINAL = frozenset({"run.paused", "run.completed", "run.failed", "run.cancelled"})
EVENT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Frame:
    """One SSE event: sequence, type, parsed data and ``time.perf_counter()`` at arrival."""

    seq: int
    type: str
    data: dict[str, Any]
    at: float


class FrameReader:
    """What every event-stream client shares: the frames a reader task queues, and reading them.

    A subclass's reader task calls :meth:`_fail` when the stream ends or fails.
    """

    def __init__(self, conversation_id: str, after_seq: int = 0) -> None:
        self._conversation_id = conversation_id
        self._after_seq = after_seq
        self._queue: asyncio.Queue[Frame | BaseException] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._opened = asyncio.Event()
        self.last_seq = after_seq
        self.received: list[int] = []
        """Every seq the reader parsed, in arrival order (for the delivered-once checks)."""
        self.ended: BaseException | None = None
        """Why the stream ended (None while open)."""

    @property
    def open(self) -> bool:
        """True while the reader runs (the server has not closed the stream)."""
        return self._task is not None and not self._task.done() and self.ended is None

    async def next(self) -> Frame:
        """Return the next frame (at most :data:`EVENT_TIMEOUT_S` seconds)."""
        async with asyncio.timeout(EVENT_TIMEOUT_S):
            item = await self._queue.get()
        if isinstance(item, BaseException):
            raise RuntimeError("the event stream ended") from item
        self.last_seq = item.seq
        return item

    async def until(self, *types: str) -> list[Frame]:
        """Read frames up to and including the first one whose type is in ``types``."""
        frames: list[Frame] = []
        while True:
            frame = await self.next()
            frames.append(frame)
            if frame.type in types:
                return frames
            if frame.type in TERMINAL:
                raise RuntimeError(
                    f"expected {types}, the run ended with {frame.type}: {frame.data}"
                )

    def _fail(self, exc: BaseException) -> None:
        """End the stream with ``exc``: the next :meth:`next` raises it."""
        self.ended = exc
        self._opened.set()
        self._queue.put_nowait(exc)


class EventStream(FrameReader):
    """An open ``GET /api/conversations/{id}/events``; frames are read by a background task.

    The reader stamps each frame as soon as its blank line is parsed, so a waiting consumer
    does not delay the timestamp.
    """

    def __init__(self, client: httpx.AsyncClient, conversation_id: str, after_seq: int = 0) -> None:
        super().__init__(conversation_id, after_seq)
        self._client = client

    async def __aenter__(self) -> EventStream:
        self._task = asyncio.create_task(self._read(), name=f"sse {self._conversation_id}")
        async with asyncio.timeout(EVENT_TIMEOUT_S):
            await self._opened.wait()
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _read(self) -> None:
        url = f"/api/conversations/{self._conversation_id}/events"
        headers = {"Last-Event-ID": str(self._after_seq)} if self._after_seq else {}
        try:
            async with self._client.stream("GET", url, timeout=None, headers=headers) as response:
                response.raise_for_status()
                self._opened.set()
                event, data, seq = "", "", 0
                async for line in response.aiter_lines():
                    if not line:
                        if data:
                            frame = Frame(seq, event, json.loads(data), time.perf_counter())
                            self.received.append(seq)
                            self._queue.put_nowait(frame)
                        event, data, seq = "", "", 0
                    elif line.startswith(":"):
                        continue
                    elif line.startswith("id:"):
                        seq = int(line[3:].strip())
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data = line[5:].lstrip(" ")
            raise RuntimeError("the server closed the event stream")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._fail(exc)


class InterlockClient:
    """The calls a HITL cycle makes, over one ``httpx.AsyncClient`` (keep-alive pool)."""

    def __init__(self, base_url: str, max_connections: int = 16) -> None:
        self.base_url = base_url
        self.http = httpx.AsyncClient(
            base_url=base_url,
            timeout=EVENT_TIMEOUT_S,
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        )

    async def aclose(self) -> None:
        await self.http.aclose()

    async def new_conversation(self) -> str:
        response = await self.http.post("/api/conversations", json={})
        response.raise_for_status()
        return str(response.json()["id"])

    async def say(self, conversation_id: str, content: str) -> int:
        """Post a message; return its id."""
        response = await self.http.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": content}
        )
        if response.status_code != 202:
            raise RuntimeError(f"message refused: {response.status_code} {response.text}")
        return int(response.json()["message_id"])

    async def conversation(self, conversation_id: str) -> dict[str, Any]:
        """``GET /api/conversations/{id}`` (ConversationDetail)."""
        response = await self.http.get(f"/api/conversations/{conversation_id}")
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    async def approve(self, tool_call_id: str) -> None:
        response = await self.http.post(
            f"/api/tool-calls/{tool_call_id}/decision", json={"type": "approve"}
        )
        if response.status_code != 200:
            raise RuntimeError(f"decision refused: {response.status_code} {response.text}")

    def events(self, conversation_id: str, after_seq: int = 0) -> EventStream:
        return EventStream(self.http, conversation_id, after_seq)


async def hitl_cycle(
    client: InterlockClient, stream: EventStream, conversation_id: str, i: int
) -> None:
    """One full cycle: message → ASK call → run.paused → approve → tool runs → run.completed.

    Raises:
        RuntimeError: The run did not go that way (checked, so a broken server cannot look fast).
    """
    await client.say(conversation_id, ASK_PROMPT.format(name=f"n{i}"))
    paused = (await stream.until("run.paused"))[-1]
    pending = paused.data["pending"]
    if len(pending) != 1:
        raise RuntimeError(f"expected one pending call, got {pending}")
    await client.approve(pending[0])
    frames = await stream.until("run.completed")
    completed = [f for f in frames if f.type == "tool_call.completed"]
    if not completed or completed[0].data["tool_call"]["status"] != "succeeded":
        raise RuntimeError("the approved tool call did not succeed")
