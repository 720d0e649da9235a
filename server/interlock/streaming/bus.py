"""The event bus: sequence numbers, persistence and live fan-out.

Events are staged on the caller's database session, so an event and the state change it
reports are committed together (nothing half written), and are handed to live subscribers
only after that commit. The events of a transaction are numbered and written in one batch
just before it commits (:mod:`~interlock.streaming.event_rows`: gap-free sequences per
conversation, one ``INSERT`` sent with the ``COMMIT`` on PostgreSQL).

Commits happen on the database thread pool; delivery to subscribers is handed back to the
event loop thread: with the result of the ``db.run`` call that committed
(:func:`~interlock.storage.db_calls.defer_to_caller`, one wake-up of the loop for both), else
``call_soon_threadsafe``. Several server processes on one PostgreSQL database: right after
the commit, in its round trip, ``NOTIFY interlock_events`` announces the conversation and
sequence range (outside the transaction: :mod:`~interlock.storage.pg_notify` says why) and
carries the events' rows when they fit PostgreSQL's payload limit
(:mod:`~interlock.streaming.announce`; a larger batch, such as a long tool result, is
announced by its range alone). Every other process's
:class:`~interlock.streaming.listener.EventListener` delivers the carried rows to its own
subscribers, reading from storage only the rows a notification did not carry. A subscriber
that sees a gap or falls behind re-reads storage from its last sequence, so events arrive once
and in order whatever process wrote them.

Besides subscribers to a whole conversation, a task can watch one run (:meth:`watch_run`):
it is woken only by that run's events (an MCP caller waiting for its one call's decision),
not by every event of the conversation.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session

from interlock.storage import Database
from interlock.storage.db_calls import defer_to_caller
from interlock.storage.pg_notify import WithCommit, forget_with_commit, notify_with_commit
from interlock.streaming import event_rows, sequences
from interlock.streaming.announce import announcements
from interlock.streaming.event_rows import StoredEvent
from interlock.streaming.events import StreamEvent

SUBSCRIBER_QUEUE_SIZE = 2_000

_STAGED_KEY = "interlock_staged_events"
EVENTS_CHANNEL = "interlock_events"
"""PostgreSQL channel: payload ``<origin> <conversation_id> <first seq> <last seq>``."""


@dataclass(eq=False)
class RunWatch:
    """A watch on one run's events: ``wakeup`` is set by each (and by a resync)."""

    conversation_id: str
    run_id: str
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(eq=False)
class Subscription:
    """One live listener. ``overflowed`` is set when it fell behind and must re-read storage."""

    conversation_id: str
    queue: asyncio.Queue[StoredEvent] = field(
        default_factory=lambda: asyncio.Queue(SUBSCRIBER_QUEUE_SIZE)
    )
    overflowed: bool = False
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    deleted: bool = False
    """The conversation was deleted: the stream ends once its queued events are out."""


class EventBus:
    """Publishes typed events of a conversation to storage and to live subscribers.

    Args:
        db: The database events are stored in.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._subscribers: dict[str, set[Subscription]] = defaultdict(set)
        self._run_watches: dict[str, set[RunWatch]] = defaultdict(set)
        self._watched: dict[str, int] = defaultdict(int)
        """Run watches per conversation (the listener reads other processes' events for them)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self.origin = uuid.uuid4().hex
        """This process's name in NOTIFY payloads (its own notifications are skipped)."""

    @property
    def db(self) -> Database:
        """The database events are stored in."""
        return self._db

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver events committed on other threads on ``loop`` (the server's)."""
        self._loop = loop

    def stage(self, session: Session, conversation_id: str, event: StreamEvent) -> None:
        """Add ``event`` to the events ``session`` writes when it commits.

        Call :meth:`commit` (not ``session.commit``): it numbers and writes the staged events
        in one batch, commits, and then delivers them to subscribers. ``event.seq`` is set
        then.
        """
        staged = session.info.get(_STAGED_KEY)
        if staged is None:
            # Begin the transaction now, so a rollback before the commit (which fires
            # ``after_rollback`` only on a begun one) drops these events.
            session.connection()
            staged = session.info[_STAGED_KEY] = []
        staged.append((conversation_id, event))

    hold_seq = staticmethod(sequences.hold_seq)
    """The read that holds a conversation's event sequence with a round trip the transaction
    makes anyway (:mod:`~interlock.streaming.sequences`)."""
    held = staticmethod(sequences.held)
    """Record what :attr:`hold_seq` read (:mod:`~interlock.streaming.sequences`)."""
    hold_soon = staticmethod(sequences.hold_soon)
    """Hold a conversation's event sequence with the transaction's next round trip
    (:mod:`~interlock.streaming.sequences`)."""

    def commit(self, session: Session) -> None:
        """Write the staged events, commit ``session``, then deliver the events.

        On PostgreSQL the other server processes are notified (one ``NOTIFY`` per
        conversation carrying its events' rows when they fit, all in one statement right
        after the ``COMMIT``, in its round trip: :mod:`~interlock.storage.pg_notify`).
        Callable from any thread.

        Raises:
            LookupError: A staged event's conversation does not exist (rolled back).
        """
        pending: list[tuple[str, StreamEvent]] = session.info.pop(_STAGED_KEY, [])
        notifier = self._db.notifier
        asked: WithCommit | None = None
        try:
            staged, ranges = event_rows.write(session, pending) if pending else ([], {})
            if staged and notifier is not None:
                # Sent in the COMMIT's round trip, right after it (storage.pg_notify).
                info = session.connection().info
                payloads = announcements(self.origin, staged, ranges)
                asked = notify_with_commit(info, EVENTS_CHANNEL, payloads)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            if asked is not None:
                forget_with_commit(info)
        if not staged:
            return
        if notifier is not None and asked is not None and not asked.sent:
            notifier.send(asked.channel, asked.payloads)  # the COMMIT went alone
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None:
            self._deliver_all(staged)
        elif defer_to_caller(functools.partial(self._deliver_all, staged)):
            pass  # delivered when the database call returns: no extra wake-up of the loop
        elif self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver_all, staged)

    def publish(self, conversation_id: str, event: StreamEvent) -> int:
        """Stage, commit and deliver one event in its own transaction (a blocking call).

        Returns:
            The event's sequence number.
        """
        with self._db.session() as session:
            self.stage(session, conversation_id, event)
            self.commit(session)
        return event.seq

    def publish_many(self, conversation_id: str, events: Sequence[StreamEvent]) -> None:
        """Stage, commit and deliver ``events`` in one transaction (a blocking call)."""
        with self._db.session() as session:
            for event in events:
                self.stage(session, conversation_id, event)
            self.commit(session)

    async def apublish(self, conversation_id: str, event: StreamEvent) -> int:
        """:meth:`publish` on the database thread pool."""
        return await self._db.run(self.publish, conversation_id, event)

    def subscribe(self, conversation_id: str) -> Subscription:
        """Start buffering live events of ``conversation_id``; pair with :meth:`unsubscribe`.

        Call on the event loop thread.
        """
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        subscription = Subscription(conversation_id)
        self._subscribers[conversation_id].add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """Stop delivering to ``subscription`` and drop its buffer."""
        subscribers = self._subscribers.get(subscription.conversation_id)
        if subscribers is not None:
            subscribers.discard(subscription)
            if not subscribers:
                del self._subscribers[subscription.conversation_id]

    def subscriber_count(self, conversation_id: str) -> int:
        """Return how many live subscribers ``conversation_id`` has."""
        return len(self._subscribers.get(conversation_id, ()))

    def watch_run(self, conversation_id: str, run_id: str) -> RunWatch:
        """Be woken by the events of ``run_id`` only; pair with :meth:`unwatch_run`.

        Call on the event loop thread. Events written by other processes wake it too (through
        the listener), as do resyncs after the listener reconnected.
        """
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        watch = RunWatch(conversation_id, run_id)
        self._run_watches[run_id].add(watch)
        self._watched[conversation_id] += 1
        return watch

    def unwatch_run(self, watch: RunWatch) -> None:
        """Stop waking ``watch``."""
        watches = self._run_watches.get(watch.run_id)
        if watches is None or watch not in watches:
            return
        watches.discard(watch)
        if not watches:
            del self._run_watches[watch.run_id]
        self._watched[watch.conversation_id] -= 1
        if self._watched[watch.conversation_id] <= 0:
            del self._watched[watch.conversation_id]

    def is_followed(self, conversation_id: str) -> bool:
        """Whether anything here waits for ``conversation_id``'s events (subscribers or run
        watches): the listener reads other processes' events only for those."""
        return bool(self._subscribers.get(conversation_id)) or conversation_id in self._watched

    def followed(self) -> frozenset[str]:
        """The conversations :meth:`is_followed` is true for (a snapshot; safe from any
        thread: the copies of the dicts' string keys run without releasing the GIL)."""
        return frozenset(self._subscribers) | frozenset(self._watched)

    def replay(self, conversation_id: str, after_seq: int, limit: int = 1_000) -> list[StoredEvent]:
        """Return stored events with ``seq > after_seq`` in order, at most ``limit``.

        A blocking call: async code uses :meth:`areplay`.
        """
        with self._db.session() as session:
            return self.replay_in(session, conversation_id, after_seq, limit)

    @staticmethod
    def replay_in(
        session: Session, conversation_id: str, after_seq: int, limit: int = 1_000
    ) -> list[StoredEvent]:
        """:meth:`replay` in the caller's session (one prebuilt Core statement)."""
        return event_rows.read_after(session, conversation_id, after_seq, limit)

    async def areplay(
        self, conversation_id: str, after_seq: int, limit: int = 1_000
    ) -> list[StoredEvent]:
        """:meth:`replay` on the database thread pool."""
        return await self._db.run(self.replay, conversation_id, after_seq, limit)

    def deliver(self, conversation_id: str, events: list[StoredEvent]) -> None:
        """Hand events read from storage (written by another process) to live subscribers.

        Call on the event loop thread.
        """
        for stored in events:
            self._deliver(conversation_id, stored)

    def resync_all(self) -> None:
        """Make every live subscriber re-read storage from its last sequence.

        Used when notifications may have been missed (the listener reconnected). Call on the
        event loop thread.
        """
        for subscriptions in self._subscribers.values():
            for subscription in subscriptions:
                _overflow(subscription)
        for watches in self._run_watches.values():
            for watch in watches:
                watch.wakeup.set()

    def end_conversation(self, conversation_id: str) -> None:
        """The conversation was deleted (here or by another process): its live subscribers
        end after the events already queued, and its run watches wake (their calls are gone).

        Idempotent. Call on the event loop thread.
        """
        for subscription in self._subscribers.pop(conversation_id, ()):
            subscription.deleted = True
            subscription.wakeup.set()
        for watches in self._run_watches.values():
            for watch in watches:
                if watch.conversation_id == conversation_id:
                    watch.wakeup.set()

    def _deliver_all(self, staged: list[tuple[str, StoredEvent]]) -> None:
        for conversation_id, stored in staged:
            self._deliver(conversation_id, stored)

    def _deliver(self, conversation_id: str, stored: StoredEvent) -> None:
        for subscription in tuple(self._subscribers.get(conversation_id, ())):
            if subscription.overflowed:
                continue
            try:
                subscription.queue.put_nowait(stored)
            except asyncio.QueueFull:
                # A slow reader: drop its buffer; it re-reads storage from its last seq.
                _overflow(subscription)
            subscription.wakeup.set()
        if stored.run_id is not None:
            for watch in self._run_watches.get(stored.run_id, ()):
                watch.wakeup.set()


def _overflow(subscription: Subscription) -> None:
    subscription.overflowed = True
    while not subscription.queue.empty():
        subscription.queue.get_nowait()
    subscription.wakeup.set()


def _drop_staged(session: OrmSession, *_: Any) -> None:
    session.info.pop(_STAGED_KEY, None)


# One listener for every session (as the audit chain's), not one registered per transaction:
# ``event.listen`` on a session instance is slow (its own dispatch copy per session).
sa_event.listen(OrmSession, "after_rollback", _drop_staged)
