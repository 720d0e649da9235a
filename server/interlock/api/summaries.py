"""Conversation summaries with their counts of calls waiting for the owner.

A call waits for its person while it is ``interrupted`` without a decision, or
``awaiting_client`` (a frontend call the browser has not answered yet); one needing an
approver (``require_approver``) waits for the approvers instead: the conversation is paused,
but its owner has nothing to decide (:func:`~interlock.engine.records.waiting_for_owner`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Integer, cast, func
from sqlmodel import Session, col, select

from interlock.engine.records import waiting_for_owner, waiting_for_person
from interlock.storage import Conversation, Decision, ToolCall
from interlock.storage.views import ConversationSummary, conversation_status


def pending_counts(session: Session, conversation_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Return ``{conversation_id: (calls waiting, of them waiting for the owner)}`` for the
    given conversations (absent: none)."""
    if not conversation_ids:
        return {}
    rows = session.exec(
        select(
            ToolCall.conversation_id,
            func.count(),
            func.sum(cast(waiting_for_owner(), Integer)),
        )
        .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
        .where(col(ToolCall.conversation_id).in_(list(conversation_ids)), waiting_for_person())
        .group_by(col(ToolCall.conversation_id))
    ).all()
    return {
        conversation_id: (int(count), int(yours or 0)) for conversation_id, count, yours in rows
    }


def summaries(session: Session, conversations: Sequence[Conversation]) -> list[ConversationSummary]:
    """Return the summaries of ``conversations``, in the same order (two queries in all)."""
    counts = pending_counts(session, [c.id for c in conversations])
    return [
        ConversationSummary(
            id=c.id,
            title=c.title,
            employee=c.employee,
            status=conversation_status(c, counts.get(c.id, (0, 0))[0] > 0),  # type: ignore[arg-type]
            pending=counts.get(c.id, (0, 0))[1],
            channel="mcp" if c.channel == "mcp" else "chat",
            created_at=c.created_at,
            updated_at=c.updated_at,
        )
        for c in conversations
    ]


def summary(session: Session, conversation: Conversation) -> ConversationSummary:
    """Return the summary of one conversation."""
    return summaries(session, [conversation])[0]
