"""Every call waiting for the caller: in their own conversations, and, for an approver, in
other people's conversations of the employees they approve (see ``interlock.approvals``)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict
from sqlmodel import Session, col, select

from interlock.api.deps import CurrentUser, EngineDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.summaries import summaries
from interlock.approvals.access import waiting_for_approver
from interlock.engine import Engine
from interlock.engine.current_cards import describe_now, with_current
from interlock.engine.records import view, waiting_for_owner
from interlock.storage import Conversation, Decision, ToolCall, User
from interlock.storage.views import ConversationSummary, ToolCallOut, conversation_status

router = APIRouter(prefix="/api", tags=["approvals"], responses=ERROR_RESPONSES)

MAX_APPROVALS = 500


class ApprovalOut(BaseModel):
    """A call waiting for the caller, with the conversation it belongs to.

    ``role`` says why it waits for the caller: ``owner`` (their conversation) or ``approver``
    (someone else's conversation of an employee they approve). An approver's entry carries the
    owner's name (``requested_by``) and the text of the message that proposed the call
    (``message``); its ``conversation`` shows no title, and the conversation itself stays
    closed to the approver (404).
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    tool_call: ToolCallOut
    conversation: ConversationSummary
    role: Literal["owner", "approver"] = "owner"
    requested_by: str | None = None
    message: str | None = None


@router.get("/approvals")
async def list_approvals(user: CurrentUser, engine: EngineDep) -> list[ApprovalOut]:
    """Calls waiting for the caller (interrupted and undecided, or awaiting the browser's
    result) across their conversations, then those waiting for them as an approver, each
    part newest first (at most 500 in all); their cards read as things are now (see
    :mod:`interlock.engine.current_cards`)."""
    listed = await engine.db.run(_listed, engine, user)
    current = await describe_now(
        engine, ((a.tool_call, owner, a.conversation.id) for a, owner in listed)
    )
    return [
        a.model_copy(update={"tool_call": with_current(a.tool_call, current)}) if current else a
        for a, _owner in listed
    ]


def _listed(engine: Engine, user: User) -> list[tuple[ApprovalOut, str]]:
    """The approvals as stored, each with the id of its conversation's owner."""
    with engine.db.session() as session:
        own = [(a, user.id) for a in _own(session, engine, user)]
        return own + _as_approver(session, engine, user, MAX_APPROVALS - len(own))


def _own(session: Session, engine: Engine, user: User) -> list[ApprovalOut]:
    rows = session.exec(
        select(ToolCall, Conversation)
        .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
        .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
        .where(Conversation.owner_id == user.id, waiting_for_owner())
        .order_by(
            col(ToolCall.created_at).desc(),
            col(ToolCall.message_id).desc(),
            col(ToolCall.index),
        )
        .limit(MAX_APPROVALS)
    ).all()
    conversations = {c.id: c for _call, c in rows}
    by_id = {s.id: s for s in summaries(session, list(conversations.values()))}
    return [
        ApprovalOut(
            tool_call=view(session, engine.registry, call, None),
            conversation=by_id[conversation.id],
        )
        for call, conversation in rows
    ]


def _as_approver(
    session: Session, engine: Engine, user: User, limit: int
) -> list[tuple[ApprovalOut, str]]:
    if limit <= 0:
        return []
    rows = waiting_for_approver(session, user, engine.employees.list(), limit)
    return [
        (
            ApprovalOut(
                # As the approver reads it: it waits for them.
                tool_call=view(session, engine.registry, call, None).model_copy(
                    update={"waiting_for": "you"}
                ),
                conversation=ConversationSummary(
                    id=conversation.id,
                    title=f"{owner}'s conversation",
                    employee=conversation.employee,
                    status=conversation_status(conversation, True),  # type: ignore[arg-type]
                    created_at=conversation.created_at,
                    updated_at=conversation.updated_at,
                ),
                role="approver",
                requested_by=owner,
                message=text,
            ),
            conversation.owner_id,
        )
        for call, conversation, owner, text in rows
    ]
