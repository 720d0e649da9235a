"""Typed events, the event bus and the SSE stream."""

from interlock.streaming.bus import EventBus, Subscription
from interlock.streaming.event_rows import StoredEvent
from interlock.streaming.events import TERMINAL_TYPES, StreamEvent

__all__ = ["TERMINAL_TYPES", "EventBus", "StoredEvent", "StreamEvent", "Subscription"]
