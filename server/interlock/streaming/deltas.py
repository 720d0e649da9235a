"""Coalescing streamed tokens into ``message.delta`` events."""

from __future__ import annotations

import time

from interlock.streaming.bus import EventBus
from interlock.streaming.events import MessageDelta


class DeltaBuffer:
    """Publishes streamed text as ``message.delta`` events, at most one per ``window_s``.

    The first piece goes out at once; pieces arriving within the window are joined, so a fast
    model costs a few writes per answer instead of one per token.
    """

    def __init__(self, bus: EventBus, conversation_id: str, run_id: str, window_s: float) -> None:
        self._bus = bus
        self._window_s = window_s
        self._conversation_id = conversation_id
        self._run_id = run_id
        self._pending: list[str] = []
        self._last = float("-inf")

    def add(self, text: str) -> None:
        if not text:
            return
        self._pending.append(text)
        now = time.monotonic()
        if now - self._last >= self._window_s:
            self.flush()
            self._last = now

    def flush(self) -> None:
        if self._pending:
            delta = "".join(self._pending)
            self._pending.clear()
            self._bus.publish(self._conversation_id, MessageDelta(run_id=self._run_id, delta=delta))
