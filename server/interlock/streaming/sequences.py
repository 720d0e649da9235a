"""Sequence numbers of a conversation's events: taken per transaction, or from a held row.

A transaction that writes events takes their numbers with one ``UPDATE ... RETURNING`` of
``conversations.last_event_seq`` per conversation (gap-free, in commit order: the row stays
locked until the transaction ends). That is a round trip of its own, before the events and the
``COMMIT`` can go out. A transaction that locks the conversation's row anyway, in a round trip
it makes anyway, can read the sequence there instead (:func:`hold_seq`, then :func:`held`):
its events are numbered from what it read, and their bump is sent with the ``COMMIT``
(:func:`~interlock.storage.write_behind.defer`). :func:`hold_soon` queues that read to go out
with the transaction's next round trip, whatever it is. Nobody can take numbers of the conversation
meanwhile: on PostgreSQL the read locks the row as the bump would (``FOR NO KEY UPDATE``; a
row lock that lets other transactions insert rows referring to it); on SQLite the transaction
holds the database's write lock once it wrote, so the read goes after its first write. The
order the rows are locked in stays the one of the bump (a decision: the call, then the
conversation), so holding adds no deadlock.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy import event as sa_event
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.sql import Executable
from sqlmodel import Session

from interlock.storage import Conversation
from interlock.storage.read_soon import read_soon
from interlock.storage.statements import connection_of
from interlock.storage.write_behind import Params, Sent, defer, send

__all__ = ["held", "hold_seq", "hold_soon", "take"]

_conversations = Conversation.__table__  # type: ignore[attr-defined]
# Prebuilt Core statements: an event is published per token, so the ORM's per-statement
# overhead (about 8x the database's own time here) is avoided on this path.
_BUMP_SEQ = (
    update(_conversations)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .values(last_event_seq=_conversations.c.last_event_seq + bindparam("count"))
    .returning(_conversations.c.last_event_seq)
)
_ADD_SEQ = (
    update(_conversations)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .values(last_event_seq=_conversations.c.last_event_seq + bindparam("count"))
)
""":data:`_BUMP_SEQ` without ``RETURNING``, for a conversation whose sequence is held."""
_HOLD_SEQ = (
    sa_select(_conversations.c.last_event_seq)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .with_for_update(key_share=True)
)
"""Locks the conversation's row as an ``UPDATE`` of it does and reads its last sequence."""
_HELD_KEY = "interlock_held_seq"
"""``Session.info`` key: ``{conversation_id: last seq}`` of the conversations whose row the
transaction holds; dropped when it ends."""


def hold_seq(conversation_id: str) -> tuple[Executable, Params]:
    """The read that holds ``conversation_id``'s sequence until the transaction ends.

    For a transaction that will stage events of the conversation and can send this read with
    a round trip it makes anyway (:func:`~interlock.storage.write_behind.send`): pass what it
    returned to :func:`held`. On SQLite send it after the transaction's first write.
    """
    return _HOLD_SEQ, {"conversation_id": conversation_id}


def held(session: Session, conversation_id: str, sent: Sent) -> None:
    """Record what :func:`hold_seq` read (``sent``) in ``session``'s transaction.

    A conversation that does not exist holds nothing (staging its events fails at the commit,
    as without the hold); one held already in this transaction keeps its count.
    """
    last = sent.scalar()
    if last is not None:
        session.info.setdefault(_HELD_KEY, {}).setdefault(conversation_id, int(last))


def hold_soon(session: Session, conversation_id: str) -> None:
    """Hold ``conversation_id``'s sequence with the transaction's next round trip, on
    PostgreSQL (:func:`~interlock.storage.read_soon.read_soon`): its events are numbered
    from what that read returned, if it came back before they are (else they are bumped as
    usual). Nothing on SQLite, where the bump costs no round trip.

    Call it where the transaction locks its rows in the order a bump would (after the rows it
    locks before the conversation's, such as the call's), since the read locks the row.
    """
    if connection_of(session).dialect.name == "postgresql":
        read_soon(
            session,
            *hold_seq(conversation_id),
            then=lambda sent: held(session, conversation_id, sent),
        )


def take(session: Session, counts: dict[str, int]) -> dict[str, int]:
    """Take ``counts[conversation]`` numbers of each conversation; return each one's last.

    Held conversations are numbered here, their bump sent with the transaction's next round
    trip (the ``COMMIT``); the others are bumped in one round trip.

    Raises:
        LookupError: A conversation does not exist.
    """
    holding: dict[str, int] = session.info.get(_HELD_KEY) or {}
    lasts: dict[str, int] = {}
    for conversation_id, count in counts.items():
        if conversation_id in holding:
            lasts[conversation_id] = holding[conversation_id] = holding[conversation_id] + count
            defer(session, _ADD_SEQ, {"conversation_id": conversation_id, "count": count})
    bumping = [(cid, count) for cid, count in counts.items() if cid not in holding]
    if bumping:
        bumps = [(_BUMP_SEQ, {"conversation_id": cid, "count": n}) for cid, n in bumping]
        for (conversation_id, _count), bumped in zip(bumping, send(session, *bumps), strict=True):
            last = bumped.scalar()
            if last is None:
                raise LookupError(f"conversation {conversation_id} does not exist")
            # the bump holds the row now: a later take of this transaction numbers from here
            # (and not from a hold that went out with the bump, read before it)
            lasts[conversation_id] = session.info.setdefault(_HELD_KEY, {})[conversation_id] = int(
                last
            )
    return lasts


def _drop_held(session: OrmSession, *_: Any) -> None:
    session.info.pop(_HELD_KEY, None)


# One listener for every session, not one registered per transaction (see streaming.bus).
sa_event.listen(OrmSession, "after_commit", _drop_held)
sa_event.listen(OrmSession, "after_rollback", _drop_held)
