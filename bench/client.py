"""What the benchmark's clients share: timestamped SSE frames, reading them, the HITL cycle.

The client itself (aiohttp) is :mod:`load_client`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from common import ASK_PROMPT

if TYPE_CHECKING:
    from load_client import EventStream, LoadClient

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


async def hitl_cycle(client: LoadClient, stream: EventStream, conversation_id: str, i: int) -> None:
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
