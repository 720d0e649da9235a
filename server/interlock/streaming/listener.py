"""Live events and control messages between server processes (PostgreSQL ``LISTEN``).

Each server process on PostgreSQL keeps one extra connection, owned by a thread of its own,
that listens on two channels:

* ``interlock_events``: sent by :class:`~interlock.streaming.bus.EventBus` right after the
  transaction that stores events commits (``<origin> <conversation> <first seq> <last seq>``,
  then the events' rows when they fit: :mod:`~interlock.streaming.announce`). Own notifications
  are skipped (already delivered in-process), and so are conversations nothing here follows
  (no live subscriber, no run watch).
* ``interlock_control``: ``<verb> <argument>`` messages between processes (for example
  ``cancel <run_id>``), handed to a callback.

The path from another process's ``COMMIT`` to a subscriber does not depend on this process's
load: the thread wakes on the connection's socket, takes every notification already there
(a burst is one batch), takes the new rows of the followed conversations from the
notifications themselves (they carry them when they fit: :mod:`~interlock.streaming.announce`),
reads the others' in one query **on the same connection** (never through the database thread
pool, where it would queue behind run steps and requests), and hands the batch to the event
loop with one ``call_soon_threadsafe``. Notifications arriving during that read wait in the connection and
make the next batch.

When the connection drops it is opened again with a growing pause; once listening again,
every live subscriber re-reads storage from its last sequence, so nothing sent meanwhile
is lost (and the sequence filter drops what it already has), and the ``on_listening_again``
callback runs: control messages sent meanwhile were lost, so what they would have refreshed
(cached employees, remote MCP servers) is read again from storage.

Notifications go out just after their commits (``storage.pg_notify``), so a process that dies
between the two, or a notification that cannot be sent, leaves committed events unannounced.
Every ``catch_up_s`` the thread therefore compares the followed conversations' last sequence
in storage (one query) with the last one it was told of, and delivers the rows that were
stored already at the previous comparison and still not announced: a stream held here never
waits for an event that is already stored longer than twice that. (Not the rows stored since:
their notifications are usually on their way, and each event is delivered once. A
notification that comes after all, later than that, delivers only what the catch-up did not.)
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import URL

from interlock.streaming.announce import parse
from interlock.streaming.bus import EVENTS_CHANNEL, EventBus
from interlock.streaming.event_rows import StoredEvent

if TYPE_CHECKING:
    import psycopg

CONTROL_CHANNEL = "interlock_control"
LISTENER_APPLICATION = "interlock-listener"
"""``application_name`` of the listening connection (seen in ``pg_stat_activity``)."""
RECONNECT_MIN_S = 0.2
RECONNECT_MAX_S = 5.0
CONNECT_TIMEOUT_S = 5
"""Longest wait for the listening connection to open (whole seconds, libpq's unit)."""
READ_TIMEOUT_MS = 10_000
"""``statement_timeout`` of the listening connection's reads."""
CATCH_UP_S = 5.0
"""Default seconds between two comparisons of the followed conversations' stored last
sequence with the notifications received (see the module docstring)."""
STOP_WAIT_S = 10.0
"""Longest wait for the listening thread to end on :meth:`EventListener.aclose`."""

# Rows of one (conversation, first seq, last seq) range: most batches have one. Scalar
# parameters: psycopg dumps them in C (arrays take about three times the CPU).
_READ_RANGE = """
SELECT conversation_id, seq, type, data, run_id FROM events
WHERE conversation_id = %s AND seq BETWEEN %s AND %s
ORDER BY seq
"""
# Rows of every range of a batch, in one round trip.
_READ_RANGES = """
SELECT e.conversation_id, e.seq, e.type, e.data, e.run_id
FROM events AS e
JOIN unnest(%s::varchar[], %s::integer[], %s::integer[]) AS r(conversation_id, first, last)
  ON e.conversation_id = r.conversation_id AND e.seq BETWEEN r.first AND r.last
ORDER BY e.conversation_id, e.seq
"""

# The stored last sequence of the followed conversations (the catch-up's comparison).
_LAST_SEQS = "SELECT id, last_event_seq FROM conversations WHERE id = ANY(%s::varchar[])"

log = logging.getLogger(__name__)

ControlHandler = Callable[[str, str], None]
"""Called on the event loop with ``(verb, argument)`` of a control message."""

Ranges = list[tuple[str, int, int]]
"""``(conversation_id, first seq, last seq)`` of the notifications of one batch."""


def libpq_conninfo(url: URL) -> str:
    """Return a libpq connection string for a SQLAlchemy PostgreSQL URL.

    Args:
        url: ``postgresql+psycopg://user:password@host:port/db?...``.
    """
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class EventListener:
    """Listens for other processes' events and control messages; one per server process.

    Args:
        bus: The process's event bus (its database must be PostgreSQL).
        url: The database URL.
        on_control: Called for each control message, on the event loop.
        on_listening_again: Called on the event loop each time ``LISTEN`` took effect (at
            start and after every reconnect): control messages sent while the connection was
            down never arrive, so it drops or re-reads what they would have refreshed.
    """

    def __init__(
        self,
        bus: EventBus,
        url: URL,
        on_control: ControlHandler,
        *,
        on_listening_again: Callable[[], None] | None = None,
        catch_up_s: float = CATCH_UP_S,
    ) -> None:
        self._bus = bus
        self._catch_up_s = catch_up_s
        self._announced: dict[str, int] = {}
        """Listening thread only: per conversation, the last sequence a notification (this
        process's own included) or a catch-up announced."""
        self._stored: dict[str, int] = {}
        """Listening thread only: per followed conversation, its stored last sequence at the
        previous catch-up."""
        self._caught_up: dict[str, list[tuple[int, int]]] = {}
        """Listening thread only: per conversation, the ranges a catch-up delivered that no
        notification announced yet (a late one delivers only the rest of its range)."""
        self._conninfo = libpq_conninfo(url)
        self._on_control = on_control
        self._on_listening_again = on_listening_again
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._wake_read, self._wake_write = -1, -1
        self.listening = asyncio.Event()
        """Set while the LISTEN connection is open (tests wait for it)."""

    async def start(self, wait_s: float) -> None:
        """Start listening on a thread of its own; wait up to ``wait_s`` for ``LISTEN``.

        Past the wait (database unreachable) it keeps trying in the background.
        """
        self._loop = asyncio.get_running_loop()
        self._bus.bind_loop(self._loop)
        self._stopping.clear()
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(
            target=self._listen_forever, name="interlock listener", daemon=True
        )
        self._thread.start()
        try:
            await asyncio.wait_for(self.listening.wait(), wait_s)
        except TimeoutError:
            log.warning("not listening for other workers' events yet; still trying")

    async def aclose(self) -> None:
        """Stop listening: wake the thread, wait for it to close its connection."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        os.write(self._wake_write, b"x")
        await asyncio.to_thread(thread.join, STOP_WAIT_S)
        self.listening.clear()
        if not thread.is_alive():  # else it may still select on the pipe: leave it open
            os.close(self._wake_read)
            os.close(self._wake_write)

    # -- the listening thread ------------------------------------------------------------------
    def _listen_forever(self) -> None:
        # Imported here, not at the top: a SQLite server never listens, and psycopg costs
        # about a tenth of a second of start-up (issue 7, benchmark f).
        import psycopg

        pause = RECONNECT_MIN_S
        while not self._stopping.is_set():
            try:
                with psycopg.connect(
                    self._conninfo,
                    autocommit=True,
                    application_name=LISTENER_APPLICATION,
                    connect_timeout=CONNECT_TIMEOUT_S,
                    options=f"-c statement_timeout={READ_TIMEOUT_MS}",
                ) as connection:
                    connection.execute(f"LISTEN {EVENTS_CHANNEL}")
                    connection.execute(f"LISTEN {CONTROL_CHANNEL}")
                    # Anything sent before LISTEN took effect: subscribers re-read storage.
                    self._call(self._listening_again)
                    pause = RECONNECT_MIN_S
                    self._serve(connection)
            except Exception as exc:  # the connection dropped: listen again, then catch up
                self._call(self.listening.clear)
                if self._stopping.is_set():
                    return
                log.warning("event listener lost its connection (%s); reconnecting", exc)
                self._stopping.wait(pause)
                pause = min(pause * 2, RECONNECT_MAX_S)

    def _serve(self, connection: psycopg.Connection[Any]) -> None:
        """Take notifications in batches until stopped (returns) or the connection fails."""
        # poll, not select: a busy server's descriptors (one per open stream) pass 1024.
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN)
        poller.register(self._wake_read, select.POLLIN)
        for table in (self._announced, self._stored, self._caught_up):
            table.clear()  # subscribers re-read storage on listening again
        catch_up_at = time.monotonic() + self._catch_up_s
        while not self._stopping.is_set():
            # Without waiting: what the socket holds plus what arrived during the last read.
            batch = [(n.channel, n.payload) for n in connection.notifies(timeout=0)]
            if batch:
                self._handle(connection, batch)
            else:
                poller.poll(max(0, round((catch_up_at - time.monotonic()) * 1000)))
            if time.monotonic() >= catch_up_at:
                self._catch_up(connection)
                catch_up_at = time.monotonic() + self._catch_up_s

    def _catch_up(self, connection: psycopg.Connection[Any]) -> None:
        """Deliver the followed conversations' events that were stored at the previous
        catch-up and that no notification announced since (their notifications were lost)."""
        followed = self._bus.followed()
        for table in (self._announced, self._stored, self._caught_up):
            for conversation_id in [c for c in table if c not in followed]:
                del table[conversation_id]
        if not followed:
            return
        ranges: Ranges = []
        for conversation_id, last in connection.execute(_LAST_SEQS, (list(followed),)):
            stored = self._stored.get(conversation_id)
            self._stored[conversation_id] = last
            if stored is None:  # first look: the notifications may be on their way
                continue
            known = self._announced.get(conversation_id)
            # Nothing announced since listening: the last event alone (a stream behind re-reads).
            first = stored if known is None else known + 1
            if 0 < first <= stored:
                ranges.append((conversation_id, first, stored))
                self._announced[conversation_id] = stored
                self._caught_up.setdefault(conversation_id, []).append((first, stored))
        if ranges:
            log.info("caught up on %d conversation(s) with unannounced events", len(ranges))
            self._call(self._deliver, _read(connection, ranges), [])

    def _handle(self, connection: psycopg.Connection[Any], batch: list[tuple[str, str]]) -> None:
        controls: list[tuple[str, str]] = []
        ranges: Ranges = []
        carried: list[tuple[str, StoredEvent]] = []
        for channel, payload in batch:
            if channel == CONTROL_CHANNEL:
                verb, _, argument = payload.partition(" ")
                controls.append((verb, argument))
                continue
            announced = parse(payload)
            if announced is None:
                log.warning("ignored a malformed event notification %r", payload[:200])
                continue
            conversation_id, first, last = (
                announced.conversation_id,
                announced.first,
                announced.last,
            )
            if last > self._announced.get(conversation_id, last - 1):
                self._announced[conversation_id] = last
            rest = self._not_caught_up(conversation_id, first, last)
            # is_followed only reads the bus's dicts: safe from this thread. A subscriber that
            # appears just after this check reads storage itself, after these rows committed.
            if announced.origin == self._bus.origin or not self._bus.is_followed(conversation_id):
                continue
            if announced.rows is None:  # too long to carry its rows: read them
                ranges.extend((conversation_id, low, high) for low, high in rest)
                continue
            carried.extend(
                (conversation_id, StoredEvent(seq=seq, type=type_, data=data, run_id=run_id))
                for seq, type_, run_id, data in announced.rows
                if any(low <= seq <= high for low, high in rest)
            )
        events = _read(connection, ranges) if ranges else {}
        if carried:
            for conversation_id, stored in carried:
                events.setdefault(conversation_id, []).append(stored)
            for stored_events in events.values():
                stored_events.sort(key=_by_seq)
        if events or controls:
            self._call(self._deliver, events, controls)

    def _not_caught_up(self, conversation_id: str, first: int, last: int) -> list[tuple[int, int]]:
        """The parts of a notification's range ``first..last`` no catch-up delivered; forgets
        the parts it did (they are announced now)."""
        caught = self._caught_up.get(conversation_id)
        if not caught:
            return [(first, last)]
        rest = [(first, last)]
        for caught_range in caught:
            rest = [part for announced in rest for part in _minus(announced, caught_range)]
        left = [part for caught_range in caught for part in _minus(caught_range, (first, last))]
        if left:
            self._caught_up[conversation_id] = left
        else:
            del self._caught_up[conversation_id]
        return rest

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop (dropped once the loop is closed)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # closed meanwhile
            pass

    # -- on the event loop -----------------------------------------------------------------------
    def _listening_again(self) -> None:
        if self._on_listening_again is not None:
            try:
                self._on_listening_again()
            except Exception:
                log.exception("refreshing after listening again failed")
        self.listening.set()
        self._bus.resync_all()

    def _deliver(
        self, events: dict[str, list[StoredEvent]], controls: list[tuple[str, str]]
    ) -> None:
        for conversation_id, stored in events.items():
            self._bus.deliver(conversation_id, stored)
        for verb, argument in controls:
            try:
                self._on_control(verb, argument)
            except Exception:
                log.exception("control message %s %r failed", verb, argument)


def _by_seq(stored: StoredEvent) -> int:
    return stored.seq


def _minus(whole: tuple[int, int], cut: tuple[int, int]) -> list[tuple[int, int]]:
    """The sequences of the range ``whole`` outside the range ``cut``: none, one or two ranges."""
    (first, last), (cut_first, cut_last) = whole, cut
    parts = [(first, min(last, cut_first - 1)), (max(first, cut_last + 1), last)]
    return [(low, high) for low, high in parts if low <= high]


def _read(connection: psycopg.Connection[Any], ranges: Ranges) -> dict[str, list[StoredEvent]]:
    """Return the stored events of ``ranges``, per conversation in sequence order.

    Raises:
        psycopg.Error: The read failed (the caller listens again and subscribers catch up).
    """
    if len(ranges) == 1:
        rows = connection.execute(_READ_RANGE, ranges[0])
    else:
        ids, firsts, lasts = (list(column) for column in zip(*ranges, strict=True))
        rows = connection.execute(_READ_RANGES, (ids, firsts, lasts))
    events: dict[str, list[StoredEvent]] = {}
    for conversation_id, seq, type_, data, run_id in rows:
        events.setdefault(conversation_id, []).append(
            StoredEvent(seq=seq, type=type_, data=data, run_id=run_id)
        )
    return events
