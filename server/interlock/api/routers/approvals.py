"""Every call waiting for the caller, across their conversations."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel
from sqlmodel import col, select

from interlock.api.deps import CurrentUser, EngineDep
from interlock.api.summaries import summaries
from interlock.engine.records import view, waiting_for_person
from interlock.storage import Conversation, Decision, ToolCall
from interlock.storage.views import ConversationSummary, ToolCallOut

router = APIRouter(prefix="/api", tags=["approvals"])

MAX_APPROVALS = 500


class ApprovalOut(BaseModel):
    """A call waiting for the caller, with the conversation it belongs to."""

    tool_call: ToolCallOut
    conversation: ConversationSummary


@router.get("/approvals")
def list_approvals(user: CurrentUser, engine: EngineDep) -> list[ApprovalOut]:
    """Calls waiting for the caller (interrupted and undecided, or awaiting the browser's
    result) across their conversations, newest first (at most 500)."""
    with engine.db.session() as session:
        rows = session.exec(
            select(ToolCall, Conversation)
            .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(Conversation.owner_id == user.id, waiting_for_person())
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
