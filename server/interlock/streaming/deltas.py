"""Coalescing streamed tokens into ``message.delta`` events, written off the event loop."""

from __future__ import annotations

import asyncio
import time

from interlock.streaming.bus import EventBus
from interlock.streaming.events import MessageDelta


class DeltaBuffer:
    """Publishes streamed text as ``message.delta`` events, at most one per ``window_s``.

    The first piece goes out at once; pieces arriving within the window are joined, so a fast
    model costs a few writes per answer instead of one per token (``window_s`` 0: one event
    per piece). Writes run on the database threads, one at a time so the pieces keep their
    order; pieces that arrive while a write is under way (or waits for a lock) go with the
    next one, in one transaction, so a slow database never holds up the model's stream, let
    alone the event loop.

    Args:
        bus: The event bus.
        conversation_id: The conversation streamed to.
        run_id: The run whose answer this is.
        window_s: Shortest time between two writes, in seconds.
    """

    def __init__(self, bus: EventBus, conversation_id: str, run_id: str, window_s: float) -> None:
        self._bus = bus
        self._window_s = window_s
        self._conversation_id = conversation_id
        self._run_id = run_id
        self._pending: list[str] = []
        self._last = float("-inf")
        self._writer: asyncio.Task[None] | None = None
        self._writing = False  # the writer task has begun (created is not begun)
        self._held = False

    def add(self, text: str) -> None:
        """Queue ``text``; start a write when none is under way and the window has passed.

        Call on the event loop thread; never blocks.
        """
        if not text:
            return
        self._pending.append(text)
        if (
            self._writer is None
            and not self._held
            and time.monotonic() - self._last >= self._window_s
        ):
            self._writing = False
            self._writer = asyncio.create_task(self._write())

    def hold(self) -> None:
        """The stream is whole: write nothing more from here; ``drain`` returns the rest.

        A write created but not begun yet is dropped (its text is returned by ``drain``):
        a model that sent its whole answer before the loop ran the write (a fast one) costs
        one transaction, the answer's, and its text is written no later.
        """
        self._held = True
        if self._writer is not None and not self._writing:
            self._writer.cancel()
            self._writer = None

    async def flush(self) -> None:
        """Wait for the write under way, then write whatever text is left.

        Raises:
            DatabaseBusy: A write waited longer than the lock timeout.
        """
        await self._wait_writer()
        events = self.take()
        if events:
            await self._bus.db.run(self._bus.publish_many, self._conversation_id, events)

    async def drain(self) -> list[MessageDelta]:
        """Wait for the write under way; return the events of the text not written yet.

        The caller writes them itself, in the transaction storing the whole answer.

        Raises:
            DatabaseBusy: The write under way waited longer than the lock timeout.
        """
        await self._wait_writer()
        return self.take()

    def take(self) -> list[MessageDelta]:
        """Return the pending text as events (joined unless ``window_s`` is 0) and forget it."""
        pieces = self._pending if self._window_s == 0 else ["".join(self._pending)]
        events = [MessageDelta(run_id=self._run_id, delta=piece) for piece in pieces if piece]
        self._pending = []
        return events

    async def _wait_writer(self) -> None:
        writer = self._writer
        if writer is not None:
            # Shielded: a cancelled caller must not leave a write half waited for.
            await asyncio.shield(writer)

    async def _write(self) -> None:
        self._writing = True
        try:
            while self._pending:
                self._last = time.monotonic()
                events = self.take()
                await self._bus.db.run(self._bus.publish_many, self._conversation_id, events)
                if time.monotonic() - self._last < self._window_s:
                    break  # the next add (or the flush) writes what arrived meanwhile
        finally:
            self._writer = None
