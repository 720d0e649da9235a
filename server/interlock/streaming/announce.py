"""What a notification on ``interlock_events`` says: a conversation's new events, with their rows.

One notification per conversation and committing transaction, its payload::

    <origin> <conversation_id> <first seq> <last seq>
    <type> <run_id or -> <data>        (one line per event, first to last)

The lines of the events are there when the whole payload fits PostgreSQL's limit (under 8000
bytes): a listener then delivers them without reading storage (one round trip fewer, and no
wait for its thread's turn at the GIL after it). A larger batch (a long tool result) is
announced by its first line alone, and the listener reads those rows. An event's ``data`` is
its JSON text, which has no line break (JSON escapes them), and neither its type nor a run id
has a space. A payload whose lines do not match its range is read from storage as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

MAX_PAYLOAD_BYTES = 7999
"""PostgreSQL refuses a ``NOTIFY`` payload of 8000 bytes or more."""
_NO_RUN = "-"


class Row(Protocol):
    """What is announced of an event (a :class:`~interlock.streaming.event_rows.StoredEvent`)."""

    @property
    def type(self) -> str: ...
    @property
    def run_id(self) -> str | None: ...
    @property
    def data(self) -> str: ...


@dataclass(frozen=True)
class Announced:
    """A parsed notification: who wrote which range, and its rows when it carried them.

    Attributes:
        rows: ``(seq, type, run_id, data)`` of each event ``first`` to ``last``, or None
            when the payload did not carry them (read them from storage).
    """

    origin: str
    conversation_id: str
    first: int
    last: int
    rows: list[tuple[int, str, str | None, str]] | None


def announcement(
    origin: str, conversation_id: str, first: int, last: int, events: Sequence[Row]
) -> str:
    """The payload announcing ``events`` (sequences ``first`` to ``last``) of a conversation."""
    head = f"{origin} {conversation_id} {first} {last}"
    lines = [head]
    size = len(head)
    for event in events:
        if "\n" in event.data:  # never from JSON text; read from storage then
            return head
        line = f"{event.type} {event.run_id or _NO_RUN} {event.data}"
        size += len(line) + 1
        if size > MAX_PAYLOAD_BYTES:  # characters: a lower bound of the bytes
            return head
        lines.append(line)
    payload = "\n".join(lines)
    if size * 4 > MAX_PAYLOAD_BYTES and len(payload.encode()) > MAX_PAYLOAD_BYTES:
        return head
    return payload


def announcements(
    origin: str, staged: Sequence[tuple[str, Row]], ranges: dict[str, tuple[int, int]]
) -> list[str]:
    """The payloads of one transaction's events: one per conversation of ``ranges`` (its
    ``(first seq, last seq)``); ``staged`` holds each event with its conversation, in order."""
    events: dict[str, list[Row]] = {}
    for conversation_id, event in staged:
        events.setdefault(conversation_id, []).append(event)
    return [
        announcement(origin, cid, first, last, events.get(cid, []))
        for cid, (first, last) in ranges.items()
    ]


def parse(payload: str) -> Announced | None:
    """Read a payload of :func:`announcement`; None when it is malformed."""
    head, *lines = payload.split("\n")
    parts = head.split(" ")
    if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
        return None
    first, last = int(parts[2]), int(parts[3])
    rows: list[tuple[int, str, str | None, str]] | None = None
    if lines and len(lines) == last - first + 1:
        rows = []
        for seq, line in enumerate(lines, start=first):
            type_, run_id, data = ([*line.split(" ", 2), "", ""])[:3]
            if not data:  # not a line of ours: read the rows instead
                return Announced(parts[0], parts[1], first, last, None)
            rows.append((seq, type_, None if run_id == _NO_RUN else run_id, data))
    return Announced(parts[0], parts[1], first, last, rows)
