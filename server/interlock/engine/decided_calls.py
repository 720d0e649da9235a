"""The calls of a conversation's latest assistant message with their decisions and
deciders' names, in one statement (read on every tools step of a run)."""

from __future__ import annotations

from typing import NamedTuple

from sqlmodel import Session, col, select

from interlock.engine.records import LATEST_ASSISTANT
from interlock.storage import Decision, ToolCall, User

__all__ = ["DecidedCall", "latest_assistant_calls_decided"]


class DecidedCall(NamedTuple):
    """A call of the latest assistant message with its decision and its decider's name."""

    call: ToolCall
    decision: Decision | None
    decided_by: str | None
    """The decider's name (None: no decision, or no such person)."""


_DECIDED_CALLS_OF_LATEST_ASSISTANT = (
    select(ToolCall, Decision, User.name)
    .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
    .outerjoin(User, col(User.id) == col(Decision.user_id))
    .where(ToolCall.message_id == LATEST_ASSISTANT.scalar_subquery())
    .order_by(col(ToolCall.index))
)


def latest_assistant_calls_decided(session: Session, conversation_id: str) -> list[DecidedCall]:
    """:func:`~interlock.engine.records.latest_assistant_calls` with each call's decision and decider's name, in the
    same statement (read on every tools step: the views of the calls it runs name their
    decider without reading it again)."""
    rows = session.exec(_DECIDED_CALLS_OF_LATEST_ASSISTANT, params={"cid": conversation_id})
    return [
        DecidedCall(call, decision, None if decision is None or name is None else str(name))
        for call, decision, name in rows.all()
    ]
