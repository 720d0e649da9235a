"""Events numbered from a held sequence (``EventBus.hold_seq``), both databases.

A transaction that read its conversation's last sequence with :meth:`EventBus.hold_seq` (a
decision does, with its lock) numbers its events from it and sends their bump with the
``COMMIT``, without a round trip of its own. That is only right while nobody else can take
sequence numbers of the conversation meanwhile:

* another transaction publishing to the conversation waits until the holder commits, then
  numbers its events after the holder's: each sequence once, none missing, in commit order;
* the same when the hold was queued (``EventBus.hold_soon``) and went out with the
  transaction's next statement;
* a rollback of the holder uses up no number and leaves nothing held for the session's next
  transaction.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text, update
from sqlmodel import Session, select

from interlock.storage import Conversation, Database, Event
from interlock.storage.write_behind import execute, send
from interlock.streaming import EventBus
from interlock.streaming.events import MessageDelta
from support.waits import wait_until

RUN_ID = "run_" + "1" * 32
WAIT_S = 30.0

_conversations = Conversation.__table__  # type: ignore[attr-defined]


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="user_held_seq", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


def _stored(database: Database, conversation_id: str) -> tuple[int, list[tuple[int, str]]]:
    with database.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        rows = session.exec(
            select(Event.seq, Event.data)
            .where(Event.conversation_id == conversation_id)
            .order_by(Event.seq)  # type: ignore[arg-type]
        ).all()
        return conversation.last_event_seq, [(int(seq), str(data)) for seq, data in rows]


def _hold(bus: EventBus, session: Session, conversation_id: str, how: str = "sent") -> None:
    """Write first (on SQLite that takes the write lock; on PostgreSQL the row written is
    another conversation's, so only the read locks this one), then hold the sequence, as a
    decision does (``how="sent"``: with the write), or as closing a call does (``"soon"``:
    queued before the write, which carries it)."""
    other = _conversation(bus.db)
    touch = (
        update(_conversations)
        .where(_conversations.c.id == other)
        .values(title=_conversations.c.title)
    )
    if how == "soon":
        execute(session, touch)  # the first write (SQLite's write lock)
        bus.hold_soon(session, conversation_id)
        execute(session, touch)  # carries the queued hold (PostgreSQL)
        return
    _, held = send(session, (touch, None), bus.hold_seq(conversation_id))
    bus.held(session, conversation_id, held)


def _lock_waiters(db_url: str) -> int:
    """Backends of ``db_url``'s database waiting for a lock (PostgreSQL)."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    url = make_url(db_url).set(drivername="postgresql+psycopg")
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
            )
    finally:
        engine.dispose()


@pytest.mark.parametrize("how", ["sent", "soon"])
async def test_a_held_sequence_makes_other_publishers_wait_and_number_after_it(
    database: Database, db_url: str, how: str
) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    bus.publish(conversation_id, MessageDelta(run_id=RUN_ID, delta="before"))
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        with database.session() as session:
            _hold(bus, session, conversation_id, how)
            bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta="held 1"))
            bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta="held 2"))
            holding.set()
            release.wait(WAIT_S)
            bus.commit(session)

    with ThreadPoolExecutor(2) as pool:
        held = pool.submit(holder)
        await wait_until(holding.is_set, timeout_s=WAIT_S, what="the held sequence")
        other = pool.submit(
            bus.publish, conversation_id, MessageDelta(run_id=RUN_ID, delta="other")
        )
        if not database.is_sqlite:  # the other publisher waits for the holder's row lock
            await wait_until(
                lambda: _lock_waiters(db_url) >= 1 or other.done(),
                timeout_s=WAIT_S,
                what="the other publisher waiting for the held row",
            )
            assert not other.done(), "another transaction numbered events of a held sequence"
        release.set()
        held.result(timeout=WAIT_S)
        assert other.result(timeout=WAIT_S) == 4

    last, rows = _stored(database, conversation_id)
    assert last == 4
    assert [seq for seq, _ in rows] == [1, 2, 3, 4]
    deltas = [data.split('"delta":"')[1].split('"')[0] for _, data in rows]
    assert deltas == ["before", "held 1", "held 2", "other"]
    assert all(f'"seq":{seq}' in data for seq, data in rows)


def test_a_rolled_back_hold_uses_no_number_and_holds_nothing_after(database: Database) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    with database.session() as session:
        _hold(bus, session, conversation_id)
        bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta="dropped"))
        session.rollback()
        # The session's next transaction bumps as usual (nothing held is left over).
        bus.publish(conversation_id, MessageDelta(run_id=RUN_ID, delta="elsewhere"))
        bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta="next"))
        bus.commit(session)
    last, rows = _stored(database, conversation_id)
    assert last == 2
    assert [seq for seq, _ in rows] == [1, 2]
    assert '"delta":"next"' in rows[1][1]


@pytest.mark.parametrize("events", [1, 3])
def test_a_held_sequence_after_a_commit_is_read_again(database: Database, events: int) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    with database.session() as session:
        _hold(bus, session, conversation_id)
        for i in range(events):
            bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta=f"a{i}"))
        bus.commit(session)
        bus.publish(conversation_id, MessageDelta(run_id=RUN_ID, delta="elsewhere"))
        bus.stage(session, conversation_id, MessageDelta(run_id=RUN_ID, delta="b"))
        bus.commit(session)  # not numbered from the first transaction's hold
    last, rows = _stored(database, conversation_id)
    assert last == events + 2
    assert [seq for seq, _ in rows] == list(range(1, events + 3))
