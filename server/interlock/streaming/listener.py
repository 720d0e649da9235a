"""Live events and control messages between server processes (PostgreSQL ``LISTEN``).

Each server process on PostgreSQL keeps one extra connection that listens on two channels:

* ``interlock_events``: sent by :class:`~interlock.streaming.bus.EventBus` in the transaction
  that stores events (``<origin> <conversation> <first seq> <last seq>``). When this process
  has live subscribers (or run watches) on that conversation, the rows are read from storage,
  in order, and delivered to them. Own notifications are skipped (already delivered
  in-process).
* ``interlock_control``: ``<verb> <argument>`` messages between processes (for example
  ``cancel <run_id>``), handed to a callback.

When the connection drops it is opened again with a growing pause; once listening again,
every live subscriber re-reads storage from its last sequence, so nothing sent meanwhile
is lost (and the sequence filter drops what it already has).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy.engine import URL

from interlock.streaming.bus import EVENTS_CHANNEL, EventBus

CONTROL_CHANNEL = "interlock_control"
LISTENER_APPLICATION = "interlock-listener"
"""``application_name`` of the listening connection (seen in ``pg_stat_activity``)."""
RECONNECT_MIN_S = 0.2
RECONNECT_MAX_S = 5.0

log = logging.getLogger(__name__)

ControlHandler = Callable[[str, str], None]
"""Called on the event loop with ``(verb, argument)`` of a control message."""


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
        on_control: Called for each control message.
    """

    def __init__(self, bus: EventBus, url: URL, on_control: ControlHandler) -> None:
        self._bus = bus
        self._conninfo = libpq_conninfo(url)
        self._on_control = on_control
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        """Set while the LISTEN connection is open (tests wait for it)."""

    async def start(self, wait_s: float) -> None:
        """Start listening in a background task; wait up to ``wait_s`` for ``LISTEN``.

        Past the wait (database unreachable) it keeps trying in the background.
        """
        self._bus.bind_loop(asyncio.get_running_loop())
        self._task = asyncio.create_task(self._listen_forever(), name="interlock listener")
        try:
            await asyncio.wait_for(self.listening.wait(), wait_s)
        except TimeoutError:
            log.warning("not listening for other workers' events yet; still trying")

    async def aclose(self) -> None:
        """Stop listening."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _listen_forever(self) -> None:
        # Imported here, not at the top: a SQLite server never listens, and psycopg costs
        # about a tenth of a second of start-up (issue 7, benchmark f).
        import psycopg

        pause = RECONNECT_MIN_S
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(
                    self._conninfo, autocommit=True, application_name=LISTENER_APPLICATION
                )
                async with connection:
                    await connection.execute(f"LISTEN {EVENTS_CHANNEL}")
                    await connection.execute(f"LISTEN {CONTROL_CHANNEL}")
                    self.listening.set()
                    pause = RECONNECT_MIN_S
                    # Anything sent before LISTEN took effect: subscribers re-read storage.
                    self._bus.resync_all()
                    async for notify in connection.notifies():
                        await self._handle(notify.channel, notify.payload)
            except asyncio.CancelledError:
                self.listening.clear()
                raise
            except Exception as exc:  # the connection dropped: listen again, then catch up
                self.listening.clear()
                log.warning("event listener lost its connection (%s); reconnecting", exc)
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECONNECT_MAX_S)

    async def _handle(self, channel: str, payload: str) -> None:
        if channel == CONTROL_CHANNEL:
            verb, _, argument = payload.partition(" ")
            try:
                self._on_control(verb, argument)
            except Exception:
                log.exception("control message %r failed", payload)
            return
        parts = payload.split(" ")
        if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
            log.warning("ignored a malformed event notification %r", payload)
            return
        origin, conversation_id, first, last = parts[0], parts[1], int(parts[2]), int(parts[3])
        if origin == self._bus.origin or not self._bus.is_followed(conversation_id):
            return
        try:
            events = await self._bus.areplay(conversation_id, first - 1, last - first + 1)
        except Exception:
            # Storage unreadable for now: subscribers re-read it themselves.
            log.warning("could not read events of %s; subscribers re-read", conversation_id)
            self._bus.resync_all()
            return
        self._bus.deliver(conversation_id, events)
