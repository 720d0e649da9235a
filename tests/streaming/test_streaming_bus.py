"""The event bus without a server: sequences, staging with the caller's transaction, overflow.

* A subscriber that falls more than ``SUBSCRIBER_QUEUE_SIZE`` events behind loses its buffer
  (memory stays bounded) and ``event_frames`` re-reads storage: every event still arrives
  exactly once, in order.
* Events are staged on the caller's session: subscribers hear of them only after the commit,
  and a rollback (or a failed commit) publishes nothing and uses up no sequence number.
* The events of one transaction are written in one batch: one sequence bump per
  conversation and one insert, whatever their number.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.exc import IntegrityError
from sse_starlette import ServerSentEvent

from interlock.storage import Conversation, Database, Message
from interlock.streaming import EventBus, StoredEvent, Subscription
from interlock.streaming.bus import SUBSCRIBER_QUEUE_SIZE
from interlock.streaming.events import MessageDelta, RunStarted
from interlock.streaming.sse import REPLAY_BATCH, event_frames

RUN_ID = "run_" + "0" * 32


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="user_bus_test", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


def _last_seq(database: Database, conversation_id: str) -> int:
    with database.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return conversation.last_event_seq


def _publish_many(
    bus: EventBus, database: Database, conversation_id: str, first: int, count: int
) -> int:
    """Publish deltas ``d<first>`` ... in transactions of 500; return the last index."""
    index = first
    while index < first + count:
        with database.session() as session:
            for _ in range(min(500, first + count - index)):
                bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta=f"d{index}"))
                index += 1
            bus.commit(session)
    return index - 1


def _drain(subscription: Subscription) -> list[StoredEvent]:
    out: list[StoredEvent] = []
    while not subscription.queue.empty():
        out.append(subscription.queue.get_nowait())
    return out


async def test_a_slow_subscriber_that_overflows_gets_every_event_once_in_order(
    database: Database,
) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    bus.publish(conversation_id, RunStarted(run_id=RUN_ID, trigger="message"))
    frames = event_frames(bus, conversation_id, 0)
    received: list[ServerSentEvent] = []
    async with asyncio.timeout(60):
        received.append(await anext(frames))  # subscribed, replayed seq 1, now not reading
        assert bus.subscriber_count(conversation_id) == 1
        probe = bus.subscribe(conversation_id)

        # Far more than the buffer holds, without reading: the buffers are dropped, not grown.
        last_index = _publish_many(bus, database, conversation_id, 0, SUBSCRIBER_QUEUE_SIZE + 100)
        assert probe.overflowed and probe.queue.qsize() == 0
        bus.unsubscribe(probe)
        assert bus.subscriber_count(conversation_id) == 1

        total = 1 + last_index + 1
        assert total > 2 * REPLAY_BATCH  # the catch-up reads storage in several batches
        overflowed_again = False
        while len(received) < total:
            received.append(await anext(frames))
            if len(received) == REPLAY_BATCH + 10 and not overflowed_again:
                # Mid-replay, the reader falls behind once more.
                overflowed_again = True
                last_index = _publish_many(
                    bus, database, conversation_id, last_index + 1, SUBSCRIBER_QUEUE_SIZE + 50
                )
                total = 1 + last_index + 1

        # Caught up: the next event arrives live.
        pending = asyncio.ensure_future(anext(frames))
        await asyncio.sleep(0)
        assert not pending.done()
        bus.publish(conversation_id, MessageDelta(run_id=RUN_ID, delta="live"))
        received.append(await pending)
        await frames.aclose()

    assert bus.subscriber_count(conversation_id) == 0
    ids = [int(str(f.id)) for f in received]
    assert ids == list(range(1, total + 2))
    assert ids[-1] == _last_seq(database, conversation_id)
    payloads = [json.loads(str(f.data)) for f in received]
    assert [p["seq"] for p in payloads] == ids
    assert [f.event for f in received] == [p["type"] for p in payloads]
    deltas = [p["delta"] for p in payloads[1:]]
    assert deltas == [f"d{i}" for i in range(last_index + 1)] + ["live"]


async def test_events_reach_subscribers_only_after_the_commit(database: Database) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    subscription = bus.subscribe(conversation_id)
    started = RunStarted(run_id=RUN_ID, trigger="message")
    delta = MessageDelta(run_id=RUN_ID, delta="a")
    with database.session() as session:
        bus.stage(session, conversation_id, started)
        bus.stage(session, conversation_id, delta)
        assert subscription.queue.empty() and not subscription.wakeup.is_set()
        assert bus.replay(conversation_id, 0) == []  # not visible outside the transaction
        bus.commit(session)
    assert (started.seq, delta.seq) == (1, 2)  # numbered when written, at the commit
    assert subscription.wakeup.is_set()
    assert [(e.seq, e.type) for e in _drain(subscription)] == [
        (1, "run.started"),
        (2, "message.delta"),
    ]
    assert [e.seq for e in bus.replay(conversation_id, 0)] == [1, 2]


async def test_an_exception_in_the_transaction_publishes_nothing(database: Database) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    subscription = bus.subscribe(conversation_id)
    with pytest.raises(RuntimeError), database.session() as session:
        bus.stage(session, conversation_id, RunStarted(run_id=RUN_ID, trigger="message"))
        raise RuntimeError("the state change failed")
    assert subscription.queue.empty() and not subscription.wakeup.is_set()
    assert bus.replay(conversation_id, 0) == []
    assert _last_seq(database, conversation_id) == 0  # the sequence bump was rolled back
    assert bus.publish(conversation_id, RunStarted(run_id=RUN_ID, trigger="message")) == 1
    assert [e.seq for e in _drain(subscription)] == [1]


async def test_a_failed_commit_publishes_nothing(database: Database) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    subscription = bus.subscribe(conversation_id)
    with database.session() as session:
        bus.stage(session, conversation_id, RunStarted(run_id=RUN_ID, trigger="message"))
        for _ in range(2):  # one tool message per tool call: the second breaks the rule
            session.add(
                Message(conversation_id=conversation_id, role="tool", tool_call_id="call_dup")
            )
        with pytest.raises(IntegrityError):
            bus.commit(session)
    assert subscription.queue.empty() and not subscription.wakeup.is_set()
    assert bus.replay(conversation_id, 0) == []
    assert _last_seq(database, conversation_id) == 0
    assert bus.publish(conversation_id, RunStarted(run_id=RUN_ID, trigger="message")) == 1
    assert [e.seq for e in _drain(subscription)] == [1]


async def test_events_staged_before_a_rollback_are_never_published(database: Database) -> None:
    """A caller that rolls back and goes on with the same session must not publish the undone
    events (their sequence numbers were rolled back too and are given out again)."""
    bus = EventBus(database)
    conversation_id = _conversation(database)
    subscription = bus.subscribe(conversation_id)
    with database.session() as session:
        bus.stage(session, conversation_id, RunStarted(run_id="run_undone", trigger="message"))
        session.rollback()
        bus.stage(session, conversation_id, RunStarted(run_id=RUN_ID, trigger="message"))
        bus.commit(session)
    delivered = _drain(subscription)
    stored = bus.replay(conversation_id, 0)
    assert [(e.seq, json.loads(e.data)["run_id"]) for e in stored] == [(1, RUN_ID)]
    assert delivered == stored, delivered


def test_the_events_of_a_transaction_are_written_in_one_batch(database: Database) -> None:
    bus = EventBus(database)
    first, second = _conversation(database), _conversation(database)
    bus.publish(first, RunStarted(run_id=RUN_ID, trigger="message"))
    statements: list[tuple[str, bool]] = []

    def record(
        _conn: Any, _cursor: Any, statement: str, _params: Any, _ctx: Any, many: bool
    ) -> None:
        statements.append((statement.split()[0].upper(), many))

    sa_event.listen(database.engine, "before_cursor_execute", record)
    try:
        with database.session() as session:
            for index in range(3):
                bus.stage(session, first, MessageDelta(run_id=RUN_ID, delta=f"a{index}"))
                bus.stage(session, second, MessageDelta(run_id=RUN_ID, delta=f"b{index}"))
            bus.commit(session)
    finally:
        sa_event.remove(database.engine, "before_cursor_execute", record)
    writes = [(word, many) for word, many in statements if word in ("UPDATE", "INSERT")]
    assert writes == [("UPDATE", False), ("UPDATE", False), ("INSERT", True)], statements
    assert [(e.seq, json.loads(e.data)["delta"]) for e in bus.replay(first, 1)] == [
        (2, "a0"),
        (3, "a1"),
        (4, "a2"),
    ]
    assert [e.seq for e in bus.replay(second, 0)] == [1, 2, 3]
    assert (_last_seq(database, first), _last_seq(database, second)) == (4, 3)
