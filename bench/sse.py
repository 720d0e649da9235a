"""Server-sent events: an incremental parser of a ``text/event-stream`` body.

Follows the HTML standard's "event stream interpretation": lines end with CRLF, LF or CR
(also when a CRLF is split between two chunks); a leading byte order mark is dropped; a line
starting with ``:`` is a comment (keep-alive pings); ``field: value`` loses one space after
the colon, a line without a colon is a field with an empty value; ``data`` lines are joined
with ``\\n``; a blank line ends the event, which is dispatched only if it had data. The
``retry`` field and unknown fields are ignored (the load never reconnects by itself).
"""

from __future__ import annotations

from dataclasses import dataclass

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One dispatched event.

    Attributes:
        id: The ``id`` field of this event's own lines, or None when it had none (the
            standard's "last event ID" carries over; it is :attr:`SseParser.last_id`).
        type: The ``event`` field, or None when absent (the standard then says ``message``).
        data: The ``data`` lines joined with ``\\n`` (UTF-8, invalid bytes replaced).
    """

    id: str | None
    type: str | None
    data: str


class SseParser:
    """Feed it the body's bytes as they arrive; it returns the events each piece completed."""

    def __init__(self) -> None:
        self.last_id = ""
        """The standard's last event ID (what a reconnect sends as ``Last-Event-ID``)."""
        self._tail = b""  # an unfinished line
        self._at_start = True  # the byte order mark is looked for until 3 bytes arrived
        self._skip_lf = False  # the previous piece ended with CR: a leading LF ends nothing
        self._id: str | None = None
        self._type: str | None = None
        self._data: list[bytes] = []

    def feed(self, piece: bytes) -> list[SseEvent]:
        """Parse ``piece`` (any number of bytes); return the events it completed, in order."""
        if self._skip_lf and piece[:1] == b"\n":
            piece = piece[1:]
        if not piece:
            return []
        self._skip_lf = piece[-1:] == b"\r"
        buffer = self._tail + piece if self._tail else piece
        if self._at_start:
            if len(buffer) < len(_BOM) and _BOM.startswith(buffer):
                self._tail = buffer
                return []
            self._at_start = False
            if buffer.startswith(_BOM):
                buffer = buffer[len(_BOM) :]
        lines = buffer.splitlines(keepends=True)  # bytes: splits on CRLF, LF and CR only
        self._tail = lines.pop() if lines and lines[-1][-1:] not in (b"\n", b"\r") else b""
        events: list[SseEvent] = []
        for line in lines:
            event = self._line(line.rstrip(b"\r\n"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: bytes) -> SseEvent | None:
        if not line:
            return self._dispatch()
        name, colon, value = line.partition(b":")
        if not name:
            return None  # a comment
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._type = value.decode("utf-8", "replace")
        elif name == b"id" and b"\0" not in value:
            self._id = self.last_id = value.decode("utf-8", "replace")
        return None

    def _dispatch(self) -> SseEvent | None:
        event = None
        if self._data:
            data = b"\n".join(self._data).decode("utf-8", "replace")
            event = SseEvent(self._id, self._type, data)
        self._id, self._type, self._data = None, None, []
        return event
