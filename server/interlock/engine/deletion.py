"""Deleting a conversation: every row of it in one transaction, then its streams end.

A conversation is deleted for good (no soft delete): the conversation, its runs, messages,
tool calls (with their decisions, approvals and outputs), grants and stored events go in one
transaction, so nothing half-written is left. The audit chain keeps its records (they are the
history of what was decided, and hash-linked); a call still waiting for a decision (or for the
browser) gets its one outcome there in the same transaction: ``cancelled`` by the person who
deleted, reason :data:`DELETED_REASON`.

The delete is refused while a run is active, and the check is part of the ``DELETE`` itself
(``active_run_id IS NULL``): a message or decision that starts a run at the same moment
either commits first (then the delete is refused) or finds no conversation.

Lock order (PostgreSQL): a decision locks its tool call, then the conversation (to claim the
resumed run). The delete takes the same order, locking the conversation's tool calls
(``SELECT ... FOR UPDATE``) before its guarded ``DELETE``: deleting the conversation first
and then waiting for a call a decision had locked made the two wait for each other, and
PostgreSQL ended one as a deadlock (503 ``database_busy`` after a second). Now a decision
that locked its call first commits and the delete is refused (``run_active``), and one that
comes after the delete finds no call (404).

Streams: after the commit the live subscribers of the conversation in this process end with
a final ``conversation.deleted`` event (:meth:`~interlock.streaming.bus.EventBus.end_conversation`);
on PostgreSQL the transaction also sends ``NOTIFY interlock_control`` with
``conversation_deleted <id>``, and every other process ends its own streams the same way.
A process whose listening connection was down at that moment never gets it: once listening
again it ends the streams of the conversations that are gone (:func:`end_streams_of_deleted`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from interlock.audit import Channel, Outcome, record_outcome
from interlock.engine.records import OPEN_STATUSES
from interlock.errors import Conflict
from interlock.storage import (
    Conversation,
    Decision,
    Event,
    Grant,
    Message,
    Run,
    ToolCall,
    ToolCallApproval,
    ToolOutput,
)
from interlock.streaming.listener import CONTROL_CHANNEL

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

DELETED_REASON = "The conversation was deleted."
"""Audit reason of the calls a deleted conversation still had waiting."""

DELETED_VERB = "conversation_deleted"
"""Control message ``conversation_deleted <conversation_id>`` between server processes."""

_CHILD_TABLES = (Event, Decision, ToolCallApproval, ToolOutput, ToolCall, Message, Run, Grant)


async def delete_conversation(engine: Engine, user_id: str, conversation_id: str) -> None:
    """Delete ``user_id``'s conversation and every row of it; end its open streams everywhere.

    Raises:
        NotFound: Unknown, or not the caller's.
        Conflict: ``run_active`` while a run is active.
    """
    await engine.db.run(_delete, engine, user_id, conversation_id)
    engine.bus.end_conversation(conversation_id)


async def end_streams_of_deleted(engine: Engine) -> None:
    """End this process's streams of conversations deleted while ``conversation_deleted``
    notices could not arrive (the listening connection was down): one read of which of the
    followed conversations still exist."""
    followed = engine.bus.followed()
    if not followed:
        return
    existing = await engine.db.run(_existing, engine, followed)
    for conversation_id in sorted(followed - existing):
        engine.bus.end_conversation(conversation_id)


def _existing(engine: Engine, conversation_ids: frozenset[str]) -> set[str]:
    with engine.db.session() as session:
        found = session.exec(
            select(Conversation.id).where(col(Conversation.id).in_(conversation_ids))
        ).all()
    return set(found)


def _delete(engine: Engine, user_id: str, conversation_id: str) -> None:
    """The transaction (database thread): the conversation first, guarded, then its rows."""
    with engine.db.session() as session:
        if not engine.db.is_sqlite:  # lock order: calls, then the conversation (see above)
            session.exec(
                select(ToolCall.id)
                .where(col(ToolCall.conversation_id) == conversation_id)
                .order_by(col(ToolCall.message_id), col(ToolCall.index))  # as closers lock them
                .with_for_update()
            ).all()
        # Staged before the guarded DELETE (record_outcome reads the conversation); a refused
        # delete never commits them.
        _record_waiting_calls(session, user_id, conversation_id)
        gone = session.exec(
            delete(Conversation).where(  # type: ignore[call-overload]
                col(Conversation.id) == conversation_id,
                col(Conversation.owner_id) == user_id,
                col(Conversation.active_run_id).is_(None),
            )
        )
        if gone.rowcount == 0:
            # Not the caller's (NotFound), or a run is active.
            engine.owned_conversation(session, user_id, conversation_id)
            raise Conflict("Cancel the active run before deleting.", code="run_active")
        for table in _CHILD_TABLES:
            session.exec(delete(table).where(col(table.conversation_id) == conversation_id))  # type: ignore[call-overload]
        if not engine.db.is_sqlite:
            notice = f"{DELETED_VERB} {conversation_id}"
            session.exec(select(func.pg_notify(CONTROL_CHANNEL, notice)))  # type: ignore[call-overload]
        session.commit()


def _record_waiting_calls(session: Session, user_id: str, conversation_id: str) -> None:
    """Stage a ``cancelled`` audit record for each call of the conversation still open."""
    waiting = session.exec(
        select(ToolCall)
        .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
        .where(
            col(ToolCall.conversation_id) == conversation_id,
            col(Conversation.owner_id) == user_id,
            col(ToolCall.status).in_([s.value for s in OPEN_STATUSES]),
        )
    ).all()
    for call in sorted(waiting, key=lambda c: (c.message_id, c.index)):
        record_outcome(
            session,
            call=call,
            decider=user_id,
            channel=Channel.system,
            outcome=Outcome.cancelled,
            reason=DELETED_REASON,
            proposed_args=call.proposed_args,
            executed_args=call.executed_args,
        )
