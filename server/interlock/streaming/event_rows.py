"""Event rows: numbering and writing a transaction's events in one batch, reading them back.

The events a transaction staged (:meth:`~interlock.streaming.bus.EventBus.stage`) are written
just before it commits: per conversation one ``UPDATE ... RETURNING`` bumps
``conversations.last_event_seq`` by their number (:mod:`~interlock.streaming.sequences`; so
sequences are gap-free per conversation), sent with the writes the transaction queued before
(:mod:`~interlock.storage.write_behind`), and one multi-row ``INSERT`` stores them all, sent
with the ``COMMIT`` on PostgreSQL. They are read back in order of sequence by subscribers that
fell behind and by streams resuming from a sequence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, insert
from sqlalchemy import select as sa_select
from sqlmodel import Session

from interlock.storage import Event
from interlock.storage.models import utcnow
from interlock.storage.write_behind import defer
from interlock.streaming import sequences
from interlock.streaming.events import StreamEvent

__all__ = ["StoredEvent", "draft_of_run", "draft_start", "read_after", "write"]

# Prebuilt Core statements (an event is published per token: the ORM's overhead is avoided).
_INSERT_EVENT = insert(Event.__table__)  # type: ignore[attr-defined]
_events = Event.__table__  # type: ignore[attr-defined]
_REPLAY = (
    sa_select(_events.c.seq, _events.c.type, _events.c.data, _events.c.run_id)
    .where(
        _events.c.conversation_id == bindparam("conversation_id"),
        _events.c.seq > bindparam("after_seq"),
    )
    .order_by(_events.c.seq)
    .limit(bindparam("limit"))
)


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored and streamed: its sequence, type and JSON text (and its run)."""

    seq: int
    type: str
    data: str
    run_id: str | None = None


def write(
    session: Session, pending: list[tuple[str, StreamEvent]]
) -> tuple[list[tuple[str, StoredEvent]], dict[str, tuple[int, int]]]:
    """Number and insert ``pending`` (in order): one bump per conversation, one insert.

    Sets each event's ``seq``. The insert is sent with the ``COMMIT`` (PostgreSQL).

    Args:
        session: The transaction the events belong to.
        pending: ``(conversation id, event)`` pairs, in the order they were staged.

    Returns:
        The stored events with their conversations, and each conversation's
        ``(first seq, last seq)``.

    Raises:
        LookupError: A conversation does not exist.
    """
    counts: dict[str, int] = {}
    for conversation_id, _event in pending:
        counts[conversation_id] = counts.get(conversation_id, 0) + 1
    lasts = sequences.take(session, counts)
    next_seq: dict[str, int] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for conversation_id, count in counts.items():
        last = lasts[conversation_id]
        next_seq[conversation_id] = last - count + 1
        ranges[conversation_id] = (last - count + 1, last)
    now = utcnow()
    rows: list[dict[str, Any]] = []
    staged: list[tuple[str, StoredEvent]] = []
    for conversation_id, event in pending:
        seq = next_seq[conversation_id]
        next_seq[conversation_id] = seq + 1
        event.seq = seq
        data = event.model_dump_json()
        rows.append(
            {
                "conversation_id": conversation_id,
                "seq": seq,
                "run_id": event.run_id,
                "type": event.type,
                "data": data,
                "created_at": now,
            }
        )
        stored = StoredEvent(seq=seq, type=event.type, data=data, run_id=event.run_id)
        staged.append((conversation_id, stored))
    defer(session, _INSERT_EVENT, rows)  # sent with the COMMIT (PostgreSQL)
    return staged, ranges


def read_after(
    session: Session, conversation_id: str, after_seq: int, limit: int
) -> list[StoredEvent]:
    """Return the stored events of ``conversation_id`` with ``seq > after_seq``, in order.

    Args:
        session: The session to read in (one prebuilt Core statement).
        conversation_id: The conversation.
        after_seq: The last sequence already had (0 for all).
        limit: At most this many events.
    """
    rows = session.connection().execute(
        _REPLAY, {"conversation_id": conversation_id, "after_seq": after_seq, "limit": limit}
    )
    return [
        StoredEvent(seq=seq, type=type_, data=data, run_id=run_id)
        for seq, type_, data, run_id in rows
    ]


_DRAFT_START = sa_select(func.max(_events.c.seq)).where(
    _events.c.conversation_id == bindparam("cid"),
    _events.c.seq <= bindparam("upto"),
    _events.c.type != "message.delta",
)


def draft_start(session: Session, conversation_id: str, upto: int) -> int:
    """The seq after which the text being streamed at ``upto`` starts (a blocking call).

    The ``message.delta`` events of a reply not stored yet are the last events of the
    conversation: none but deltas come between a step's start and its stored message. So the
    last other event at or before ``upto`` is where a reader must start to see the whole draft;
    ``upto`` itself when nothing streams.

    Args:
        session: Open session.
        conversation_id: The conversation.
        upto: Its ``last_event_seq`` as read.
    """
    found = (
        session.connection().execute(_DRAFT_START, {"cid": conversation_id, "upto": upto}).scalar()
    )
    return int(found or 0)


_RUN_DRAFT = (
    sa_select(_events.c.data)
    .where(
        _events.c.conversation_id == bindparam("cid"),
        _events.c.run_id == bindparam("run_id"),
        _events.c.type == "message.delta",
        _events.c.seq
        > sa_select(func.coalesce(func.max(_events.c.seq), 0))
        .where(
            _events.c.conversation_id == bindparam("cid"),
            _events.c.run_id == bindparam("run_id"),
            _events.c.type != "message.delta",
        )
        .scalar_subquery(),
    )
    .order_by(_events.c.seq)
)


def draft_of_run(session: Session, conversation_id: str, run_id: str) -> str:
    """The text run ``run_id`` streamed and never stored as a message (a blocking call).

    Its ``message.delta`` events after its last other event (a step's stored answer, a call's
    event, its start): the reply it was writing when it stopped. Empty when none.

    Args:
        session: Open session.
        conversation_id: The run's conversation.
        run_id: The run.
    """
    rows = session.connection().execute(_RUN_DRAFT, {"cid": conversation_id, "run_id": run_id})
    return "".join(str(json.loads(data)["delta"]) for (data,) in rows)
