"""Notifications of stored events go out with their transaction's COMMIT, after it.

* The transaction that stores events sends no ``NOTIFY`` itself (it would hold PostgreSQL's
  cluster-wide notification lock through its commit): the ``NOTIFY`` follows the ``COMMIT``
  in its round trip, as a transaction of its own, and a listener that gets it finds the rows
  committed. No notifying connection is opened for it, and the storing connection's settings
  are left as they were.
* A ``NOTIFY`` that fails after the commit fails nothing: the rows stay committed, the caller
  goes on, and the notifying connection sends it. The same holds when the audit records' round
  trip carries the ``COMMIT`` (a decision's transaction).
* A notifying connection the server closed is replaced: the next notification still arrives.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from interlock.audit.chain import record_outcome
from interlock.storage import Conversation, Database, ToolCall, pg_notify
from interlock.storage.pg_notify import NOTIFIER_APPLICATION
from interlock.streaming import EventBus
from interlock.streaming.bus import EVENTS_CHANNEL
from interlock.streaming.events import MessageDelta
from interlock.streaming.listener import libpq_conninfo

pytestmark = pytest.mark.postgres

WAIT_S = 30.0


@pytest.fixture
def database(pg_database: Database) -> Database:
    """This file's tests run on PostgreSQL only."""
    return pg_database


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="user_notify_test", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


def _listen(database: Database) -> psycopg.Connection[tuple[object, ...]]:
    connection = psycopg.connect(libpq_conninfo(database.url), autocommit=True)
    connection.execute(f"LISTEN {EVENTS_CHANNEL}")
    return connection


def _next_notification(
    connection: psycopg.Connection[tuple[object, ...]],
) -> psycopg.Notify:
    for notification in connection.notifies(timeout=WAIT_S, stop_after=1):
        return notification
    raise AssertionError(f"no notification within {WAIT_S} s")


@dataclass
class Watched:
    """A bus, a conversation of its own, and a connection listening for its events."""

    bus: EventBus
    conversation_id: str
    listening: psycopg.Connection[tuple[object, ...]]

    def next(self) -> tuple[str, psycopg.Notify]:
        """The next notification's first line (``<origin> <conversation> <first> <last>``)."""
        notification = _next_notification(self.listening)
        return notification.payload.split("\n")[0], notification

    def head(self, first: int, last: int) -> str:
        """The first line announcing events ``first`` to ``last`` of this bus."""
        return f"{self.bus.origin} {self.conversation_id} {first} {last}"


@pytest.fixture
def watched(database: Database) -> Iterator[Watched]:
    listening = _listen(database)
    try:
        yield Watched(EventBus(database), _conversation(database), listening)
    finally:
        listening.close()


def _notifier_pids(database: Database) -> list[int]:
    admin = create_engine(make_url(str(database.url)), poolclass=NullPool)
    try:
        with admin.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE application_name = :name AND datname = current_database()"
                ),
                {"name": NOTIFIER_APPLICATION},
            )
            return [int(pid) for (pid,) in rows]
    finally:
        admin.dispose()


def _fail_after_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the NOTIFY that follows a COMMIT fail (an argument PostgreSQL refuses)."""
    failing = "SELECT pg_notify(%s, %s::integer::text)"
    monkeypatch.setattr(pg_notify, "_SEND_ONE_AFTER_COMMIT", failing)
    monkeypatch.setattr(
        pg_notify, "_SEND_MANY_AFTER_COMMIT", failing.replace("%s::", "%s::text[]::")
    )


def test_stored_events_are_announced_right_after_their_commit_on_the_same_connection(
    database: Database, watched: Watched
) -> None:
    watched.bus.publish_many(
        watched.conversation_id, [MessageDelta(delta="a"), MessageDelta(delta="b")]
    )
    assert watched.next()[0] == watched.head(1, 2)
    assert _notifier_pids(database) == []  # no notifying connection was needed
    rows = watched.listening.execute(
        "SELECT seq FROM events WHERE conversation_id = %s ORDER BY seq",
        (watched.conversation_id,),
    ).fetchall()
    assert [seq for (seq,) in rows] == [1, 2]
    with database.session() as session:  # the storing connection (one pooled)
        setting = session.execute(text("SHOW synchronous_commit")).scalar()
    assert setting == "on"  # the NOTIFY's own setting stayed in its transaction


def test_a_notify_failing_after_the_commit_is_sent_by_the_notifier(
    database: Database, watched: Watched, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, conversation_id = watched.bus, watched.conversation_id
    _fail_after_commit(monkeypatch)
    bus.publish_many(conversation_id, [MessageDelta(delta="a"), MessageDelta(delta="b")])
    head, notification = watched.next()
    assert head == watched.head(1, 2)
    assert notification.pid in _notifier_pids(database)
    assert [e.seq for e in bus.replay(conversation_id, 0)] == [1, 2]
    bus.publish(conversation_id, MessageDelta(delta="c"))  # the connection still works
    assert watched.next()[0] == watched.head(3, 3)


def test_a_notifier_connection_closed_by_the_server_is_replaced(
    database: Database, watched: Watched, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_after_commit(monkeypatch)  # every notification goes through the notifier
    watched.bus.publish(watched.conversation_id, MessageDelta(delta="first"))
    assert watched.next()[0] == watched.head(1, 1)
    (pid,) = _notifier_pids(database)
    watched.listening.execute("SELECT pg_terminate_backend(%s)", (pid,))

    watched.bus.publish(watched.conversation_id, MessageDelta(delta="second"))
    assert watched.next()[0] == watched.head(2, 2)
    assert _notifier_pids(database) not in ([], [pid])


def _decide_with_audit(database: Database, bus: EventBus, conversation_id: str) -> None:
    """A transaction like a decision's: an audit record (its round trip carries the COMMIT)
    and an event."""
    call = ToolCall(id="call_notify", conversation_id=conversation_id, name="notes.add")
    with database.session() as session:
        record_outcome(
            session,
            call=call,
            decider="user_notify_test",
            channel="web",
            outcome="approved",
            reason=None,
            proposed_args={},
            executed_args={},
        )
        bus.stage(session, conversation_id, MessageDelta(delta="decided"))
        bus.commit(session)


@pytest.mark.parametrize("notify_fails", [False, True])
def test_a_commit_carried_by_the_audit_records_round_trip_is_announced_once_committed(
    database: Database, watched: Watched, monkeypatch: pytest.MonkeyPatch, notify_fails: bool
) -> None:
    if notify_fails:
        _fail_after_commit(monkeypatch)
    _decide_with_audit(database, watched.bus, watched.conversation_id)
    head, notification = watched.next()
    assert head == watched.head(1, 1)
    assert (notification.pid in _notifier_pids(database)) is notify_fails
    assert [e.type for e in watched.bus.replay(watched.conversation_id, 0)] == ["message.delta"]
    with database.session() as session:
        records = session.execute(text("SELECT count(*) FROM audit_records")).scalar()
    assert records == 1
