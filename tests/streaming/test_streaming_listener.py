"""The listener of one process against events written by another, on one PostgreSQL database.

Two event buses on one database stand for two server processes (each bus has its own origin).
The listener of the second:

* delivers a burst of the first one's events, written concurrently into several
  conversations, to their streams once each and in sequence order (notifications are sent
  after their commits, so two commits into one conversation may announce themselves in
  either order: a stream that sees a gap fills it from storage);
* reads rows only for conversations something follows here (a subscriber or a run watch),
  and none that the notification carried (only those too long for it);
* skips its own process's notifications (those events were delivered in-process already);
* hands control messages (``interlock_control``) to its callback, on the event loop;
* finds events whose notification never came (the writer died between its commit and the
  notification) at its next catch-up;
* delivers an event once when its notification was still on its way as a catch-up compared
  the stored last sequence (the race is driven step by step: the test hands the listener
  each notification itself).
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import aclosing
from typing import Any

import psycopg
import pytest
from sqlalchemy import func, select

from interlock.storage import Conversation, Database
from interlock.streaming import EventBus, StoredEvent, Subscription
from interlock.streaming import listener as listener_module
from interlock.streaming.announce import MAX_PAYLOAD_BYTES, announcement
from interlock.streaming.bus import EVENTS_CHANNEL
from interlock.streaming.events import MessageDelta
from interlock.streaming.listener import CONTROL_CHANNEL, EventListener, libpq_conninfo
from interlock.streaming.sse import stored_batches

pytestmark = pytest.mark.postgres

WAIT_S = 30.0


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="user_listener_test", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


async def _received_up_to(subscription: Subscription, last_seq: int) -> list[StoredEvent]:
    """Take events off ``subscription`` until one with ``last_seq`` arrived."""
    received: list[StoredEvent] = []
    async with asyncio.timeout(WAIT_S):
        while not received or received[-1].seq < last_seq:
            received.append(await subscription.queue.get())
    return received


async def _streamed_up_to(bus: EventBus, conversation_id: str, last_seq: int) -> list[int]:
    """The sequences a stream of ``conversation_id`` yields until ``last_seq``."""
    streamed: list[int] = []
    async with asyncio.timeout(WAIT_S):
        async with aclosing(stored_batches(bus, conversation_id, 0)) as batches:
            async for batch in batches:
                streamed.extend(e.seq for e in batch)
                if streamed[-1] >= last_seq:
                    return streamed
    return streamed


async def test_another_processes_burst_arrives_once_in_order_and_own_events_are_skipped(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer_db, reader_db = Database(pg_url), Database(pg_url)
    writer, reader = EventBus(writer_db), EventBus(reader_db)
    read_for: set[str] = set()
    real_read = listener_module._read

    def recording_read(connection: Any, ranges: Any) -> Any:
        read_for.update(conversation_id for conversation_id, _first, _last in ranges)
        return real_read(connection, ranges)

    monkeypatch.setattr(listener_module, "_read", recording_read)
    controls: list[tuple[str, str]] = []
    control_seen = asyncio.Event()

    def on_control(verb: str, argument: str) -> None:
        assert threading.current_thread() is threading.main_thread()
        controls.append((verb, argument))
        control_seen.set()

    listener = EventListener(reader, reader_db.url, on_control)
    try:
        await listener.start(wait_s=WAIT_S)
        assert listener.listening.is_set()
        followed = [_conversation(writer_db) for _ in range(3)]
        unfollowed = _conversation(writer_db)
        subscriptions = {c: reader.subscribe(c) for c in followed}
        expected = 2 * (4 * 4 + 6)  # per conversation: 2 threads x (4 batches of 4 + 6 singles)
        streams = [asyncio.create_task(_streamed_up_to(reader, c, expected)) for c in followed]
        await asyncio.sleep(0)  # the streams have subscribed

        # A burst: every conversation gets single events and batches from several threads.
        def write(conversation_id: str, k: int) -> None:
            for i in range(10):
                if i % 3 == 0:
                    writer.publish_many(
                        conversation_id, [MessageDelta(delta=f"{k}.{i}.{j}") for j in range(4)]
                    )
                else:
                    writer.publish(conversation_id, MessageDelta(delta=f"{k}.{i}"))

        await asyncio.gather(
            *(
                asyncio.to_thread(write, conversation_id, k)
                for conversation_id in [*followed, unfollowed]
                for k in range(2)
            )
        )
        for streamed in await asyncio.gather(*streams):
            assert streamed == list(range(1, expected + 1))
        for subscription in subscriptions.values():  # every event came, once, to this process
            async with asyncio.timeout(WAIT_S):
                received = [await subscription.queue.get() for _ in range(expected)]
            assert sorted(e.seq for e in received) == list(range(1, expected + 1))
            assert subscription.queue.empty() and not subscription.overflowed

        # Own events arrive once (in-process), not a second time through the listener.
        first = followed[0]
        own = await reader.apublish(first, MessageDelta(delta="own"))
        foreign = await writer.apublish(first, MessageDelta(delta="foreign"))
        received = await _received_up_to(subscriptions[first], foreign)
        assert [e.seq for e in received] == [own, foreign]

        with writer_db.session() as session:
            session.execute(select(func.pg_notify(CONTROL_CHANNEL, "cancel run_x")))
            session.commit()
        async with asyncio.timeout(WAIT_S):
            await control_seen.wait()
        assert controls == [("cancel", "run_x")]
        assert read_for <= set(followed)  # rows are read for followed conversations only
    finally:
        await listener.aclose()
        writer_db.dispose()
        reader_db.dispose()
    assert not listener.listening.is_set()


async def test_events_no_notification_announced_reach_the_streams_at_the_next_catch_up(
    pg_url: str,
) -> None:
    """A writer that commits events and dies before its notification (here: never sends
    one): the listener finds them by comparing the stored last sequence."""
    writer_db, reader_db = Database(pg_url), Database(pg_url)
    writer, reader = EventBus(writer_db), EventBus(reader_db)
    writer_db.notifier = None  # its commits announce nothing
    listener = EventListener(reader, reader_db.url, lambda _verb, _argument: None, catch_up_s=0.1)
    try:
        await listener.start(wait_s=WAIT_S)
        conversation_id = _conversation(writer_db)
        before = await writer.apublish(conversation_id, MessageDelta(delta="before"))
        stream = asyncio.create_task(_streamed_up_to(reader, conversation_id, before + 3))
        await asyncio.sleep(0)  # the stream has subscribed
        last = before
        for text in ("one", "two", "three"):
            last = await writer.apublish(conversation_id, MessageDelta(delta=text))
        assert await stream == list(range(1, last + 1))
    finally:
        await listener.aclose()
        writer_db.dispose()
        reader_db.dispose()


def _queued(subscription: Subscription) -> list[int]:
    """The sequences waiting in ``subscription``'s queue (taken off it)."""
    seqs: list[int] = []
    while not subscription.queue.empty():
        seqs.append(subscription.queue.get_nowait().seq)
    return seqs


def _handed_pair(pg_url: str) -> tuple[Database, Database, EventBus, EventBus, EventListener]:
    """A writing and a reading process's databases and buses, and the reader's listener, which
    the test hands each notification itself; what its thread would hand the event loop is
    delivered at once (no thread runs)."""
    writer_db, reader_db = Database(pg_url), Database(pg_url)
    writer, reader = EventBus(writer_db), EventBus(reader_db)
    writer_db.notifier = None
    listener = EventListener(reader, reader_db.url, lambda _verb, _argument: None)
    listener._call = lambda fn, *args: fn(*args)  # type: ignore[method-assign]
    return writer_db, reader_db, writer, reader, listener


async def test_an_event_whose_notification_is_on_its_way_at_a_catch_up_is_delivered_once(
    pg_url: str,
) -> None:
    writer_db, reader_db, writer, reader, listener = _handed_pair(pg_url)
    conversation_id = _conversation(writer_db)
    subscription = reader.subscribe(conversation_id)

    def notification(seq: int) -> list[tuple[str, str]]:
        return [(EVENTS_CHANNEL, f"{writer.origin} {conversation_id} {seq} {seq}")]

    try:
        with psycopg.connect(libpq_conninfo(reader_db.url), autocommit=True) as connection:
            one = await writer.apublish(conversation_id, MessageDelta(delta="one"))
            listener._handle(connection, notification(one))
            listener._catch_up(connection)
            two = await writer.apublish(conversation_id, MessageDelta(delta="two"))
            listener._catch_up(connection)  # two is stored; its notification is on its way
            listener._handle(connection, notification(two))  # ... and comes
            assert _queued(subscription) == [one, two]

            # A notification lost for good: the next catch-up but one delivers the event.
            three = await writer.apublish(conversation_id, MessageDelta(delta="three"))
            listener._catch_up(connection)
            listener._catch_up(connection)
            assert _queued(subscription) == [three]

            # A notification later than that: the catch-up delivered the event already.
            four = await writer.apublish(conversation_id, MessageDelta(delta="four"))
            listener._catch_up(connection)
            listener._catch_up(connection)
            listener._handle(connection, notification(four))
            five = await writer.apublish(conversation_id, MessageDelta(delta="five"))
            listener._handle(connection, notification(five))
            assert _queued(subscription) == [four, five]
    finally:
        reader.unsubscribe(subscription)
        writer_db.dispose()
        reader_db.dispose()


async def test_rows_a_notification_carries_are_delivered_without_reading_storage(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer_db, reader_db, writer, reader, listener = _handed_pair(pg_url)
    reads: list[Any] = []
    real_read = listener_module._read

    def recording_read(connection: Any, ranges: Any) -> Any:
        reads.append(list(ranges))
        return real_read(connection, ranges)

    monkeypatch.setattr(listener_module, "_read", recording_read)
    conversation_id = _conversation(writer_db)
    subscription = reader.subscribe(conversation_id)

    def notification(first: int, last: int) -> list[tuple[str, str]]:
        stored = writer.replay(conversation_id, first - 1)
        payload = announcement(writer.origin, conversation_id, first, last, stored)
        return [(EVENTS_CHANNEL, payload)]

    try:
        with psycopg.connect(libpq_conninfo(reader_db.url), autocommit=True) as connection:
            await asyncio.to_thread(
                writer.publish_many,
                conversation_id,
                [MessageDelta(run_id="run_1", delta="one"), MessageDelta(delta="two")],
            )
            listener._handle(connection, notification(1, 2))
            delivered = [subscription.queue.get_nowait() for _ in range(2)]
            assert delivered == writer.replay(conversation_id, 0)  # seq, type, data, run
            assert reads == []

            big = await writer.apublish(
                conversation_id, MessageDelta(delta="x" * MAX_PAYLOAD_BYTES)
            )
            listener._handle(connection, notification(big, big))
            assert _queued(subscription) == [big]
            assert reads == [[(conversation_id, big, big)]]
    finally:
        reader.unsubscribe(subscription)
        writer_db.dispose()
        reader_db.dispose()
